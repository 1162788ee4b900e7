/* util.c: small helpers the library files (and memcgctl) share (util.h). */

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mcg_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : first;
	if (c <= n)
		c = n + 1;
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&p, arrp, sizeof(p));
	p = realloc(p, c * elem);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = c;
	return 0;
}

void mcg_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int mcg__opendir_at(int dirfd, DIR **ret)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret = d;
	return 0;
}

int mcg__dir_each(int dirfd, int (*fn)(int dirfd, const struct dirent *de, void *ud), void *ud)
{
	struct dirent *de;
	DIR *d = NULL;
	int r = mcg__opendir_at(dirfd, &d);

	if (r < 0)
		return r;
	while (r >= 0 && (de = readdir(d)))
		r = fn(dirfd, de, ud);
	closedir(d);
	return r < 0 ? r : 0;
}

struct dir_load {
	size_t size, n, cap;
	char *v;
	int (*take)(int dirfd, const struct dirent *de, void *elem, void *ud);
	void *ud;
};

static int load_one(int dirfd, const struct dirent *de, void *ud)
{
	struct dir_load *l = ud;
	int r = mcg_grow(&l->v, &l->cap, l->n, l->size, 16);

	if (r < 0)
		return r;
	r = l->take(dirfd, de, l->v + l->n * l->size, l->ud);
	if (r > 0)
		l->n++;
	return r;
}

int mcg__dir_load(int dirfd, size_t size,
		  int (*take)(int dirfd, const struct dirent *de, void *elem, void *ud),
		  void (*drop)(void *elem), void *ud, void **ret, size_t *ret_n)
{
	struct dir_load l = {.size = size, .take = take, .ud = ud};
	size_t i;
	int r = mcg__dir_each(dirfd, load_one, &l);

	if (r < 0) {
		for (i = 0; drop && i < l.n; i++)
			drop(l.v + i * size);
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

char *mcg_u64_digits(uint64_t v, int width, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
		width--;
	} while (v || width > 0);
	return end;
}

bool mcg__abs_path_ok(const char *p)
{
	const char *c = p;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	while (*c == '/') {
		const char *e = strchr(c + 1, '/');
		size_t n = e ? (size_t)(e - c - 1) : strlen(c + 1);

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		if (!e)
			return true;
		c = e;
	}
	return false;
}

int mcg__read_fd(int fd, size_t max, char **ret, size_t *ret_len)
{
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int r = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			/* room for one byte past MAX (to see it) and the NUL */
			size_t c = cap ? cap * 2 : 4096;
			char *nb;

			if (max < SIZE_MAX - 2 && c > max + 2)
				c = max + 2;
			nb = realloc(buf, c);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap = c;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			break;
		}
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

long mcg_page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

uint64_t mcg__v1_unlimited(void)
{
	uint64_t ps = (uint64_t)mcg_page_size();

	return ((uint64_t)LONG_MAX / ps) * ps;
}
