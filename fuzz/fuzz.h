/* fuzz.h: what the libFuzzer targets share: NUL-terminated copies, failing checks, fixture trees. */
#ifndef MCG_FUZZ_H
#define MCG_FUZZ_H

#include "ops/ops.h"
#include "store/store.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property the code under test broke: report and abort, which libFuzzer saves as a crash. */
__attribute__((noreturn, format(printf, 1, 2))) static inline void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: property violated: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FZ_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fz_fail(__VA_ARGS__);                                                      \
	} while (0)

/* The input as a malloc'd C string (parsers take text; an embedded NUL ends it). */
static inline char *fz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split the input at NUL bytes into up to N sections (the files of one fixture).
 * Missing sections are NULL; the last one takes the rest. Free with fz_free_sections.
 */
static inline void fz_sections(const uint8_t *data, size_t size, char **sec, size_t *len, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		const uint8_t *z;
		size_t end;

		sec[i] = NULL;
		len[i] = 0;
		if (start > size)
			continue; /* the input ended in an earlier section */
		z = i < n - 1 ? memchr(data + start, 0, size - start) : NULL;
		end = z ? (size_t)(z - data) : size;
		sec[i] = malloc(end - start + 1);
		if (!sec[i])
			abort();
		memcpy(sec[i], data + start, end - start);
		sec[i][end - start] = '\0';
		len[i] = end - start;
		start = z ? end + 1 : size + 1;
	}
}

static inline void fz_free_sections(char **sec, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(sec[i]);
}

/*
 * What a parser's _why variant returned (R, WHY), WHAT naming it: a reason always, and
 * a refusal only as -MCG_E_CORRUPT with a reason (or -ENOMEM). True if it accepted.
 */
static inline bool fz_parsed(const char *what, int r, const char *why)
{
	FZ_CHECK(why, "%s: no reason", what);
	if (r < 0) {
		FZ_CHECK(r == -MCG_E_CORRUPT || r == -ENOMEM, "%s: %d", what, r);
		FZ_CHECK(r == -ENOMEM || why[0], "%s: corrupt without a reason", what);
		return false;
	}
	FZ_CHECK(r == 0, "%s returned %d", what, r);
	return true;
}

/*
 * A cgroup path as memcgctl writes one into its files: absolute, not "/", no empty,
 * "." or ".." component, no trailing slash. The parsers' own check is the code under
 * test: this is the fuzzers' independent statement of it.
 */
static inline bool fz_path_clean(const char *p)
{
	const char *c;

	if (p[0] != '/' || !p[1] || strstr(p, "//"))
		return false;
	for (c = p; c; c = strchr(c + 1, '/')) {
		if (!strncmp(c, "/./", 3) || !strcmp(c, "/.") || !strncmp(c, "/../", 4) ||
		    !strcmp(c, "/.."))
			return false;
	}
	return p[strlen(p) - 1] != '/';
}

/* ---- fixture trees under a private temporary directory, removed at exit ---- */

static char fz_tmp[4096];

static inline int fz_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static inline void fz_cleanup(void)
{
	if (fz_tmp[0])
		nftw(fz_tmp, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fz_tmp[0] = '\0';
}

/* A fresh private directory (FUZZ_TMPDIR, /dev/shm, TMPDIR or /tmp), removed at exit. */
static inline const char *fz_tmpdir(void)
{
	const char *base = getenv("FUZZ_TMPDIR");

	if (fz_tmp[0])
		return fz_tmp;
	/* tmpfs when there is one: rewriting fixture files on ext4 is four times slower */
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(fz_tmp, sizeof(fz_tmp), "%s/mcg-fuzz.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(fz_tmp)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fz_cleanup);
	return fz_tmp;
}

/* mkdir -p of REL under the temporary directory; the absolute path in BUF. */
static inline const char *fz_mkdir(const char *rel, char *buf, size_t len)
{
	char *p;

	snprintf(buf, len, "%s/%s", fz_tmpdir(), rel);
	for (p = buf + strlen(fz_tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(buf, 0700);
		*p = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
		perror(buf);
		abort();
	}
	return buf;
}

/*
 * Write DATA as file NAME under DIR, in place (O_TRUNC keeps the inode, so a
 * reader's kept descriptor sees the new text); DATA NULL removes the file.
 */
static inline void fz_put(const char *dir, const char *name, const char *data, size_t len)
{
	char path[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!data) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n <= 0) {
			perror(path);
			abort();
		}
		data += n;
		len -= (size_t)n;
	}
	close(fd);
}

static inline void fz_put_str(const char *dir, const char *name, const char *s)
{
	fz_put(dir, name, s, strlen(s));
}

#endif
