/* safedir.c: the only way memcgctl opens its run, state and history files: under a checked directory, never through a link. */
#include "base/base.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * memcgctl runs as root, and whoever owns a directory it writes in can plant a
 * symlink there (journal.tmp -> /etc/shadow) or swap files under it. So a
 * directory is used only if it is owned by the effective uid and nobody else
 * may write it; once opened, every file below is reached from its descriptor
 * with O_NOFOLLOW, so renaming a parent afterwards changes nothing.
 */
static int check_dir_fd(int fd, bool ro)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	/* RO: a reader that is not root trusts what root wrote */
	if (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && !(ro && st.st_uid == 0)) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -MCG_E_UNTRUSTED;
	return 0;
}

static int open_dir_ro(int atfd, const char *name, mode_t mode, bool create, bool ro, int *ret_fd)
{
	int fd, r;

	if (create) {
		if (mkdirat(atfd, name, mode) == 0) {
			/* exactly MODE, whatever the umask */
			fd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && fchmod(fd, mode) < 0) {
				r = -errno;
				close(fd);
				return r;
			}
		} else if (errno != EEXIST) {
			return -errno;
		} else {
			fd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
	} else {
		fd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		/* ELOOP/ENOTDIR: a symlink or a file where the directory should be */
		return errno == ELOOP || errno == ENOTDIR ? -MCG_E_UNTRUSTED : -errno;
	r = check_dir_fd(fd, ro);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int open_dir_at(int atfd, const char *name, mode_t mode, bool create, int *ret_fd)
{
	return open_dir_ro(atfd, name, mode, create, false, ret_fd);
}

/*
 * A directory on the way to a trusted one: owned by root or the euid, and
 * writable by nobody else, unless it is root's and sticky (/tmp), where
 * others may add entries but not replace ours: what is below it is checked
 * in turn.
 */
static bool parent_ok(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && st->st_uid != geteuid()))
		return false;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	return (st->st_mode & S_ISVTX) && st->st_uid == 0;
}

#define MAX_LINKS 40

/*
 * Open the directory PATH (O_PATH) one component at a time from / (or the
 * working directory), each with O_NOFOLLOW and checked by parent_ok(); a
 * missing one is made 0755 when CREATE. A symlink on the way (/var/run ->
 * /run) is followed only if root or the euid owns it: it sits in a checked
 * directory, so nobody else could have planted it. Otherwise a user who can
 * write a directory on the way could send root anywhere with a link.
 */
static int open_parent(const char *path, bool create, int *ret_fd)
{
	char rest[8192], next[8192], link[4096];
	struct stat st;
	int fd, nfd, links = 0;
	char *comp, *end;

	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	snprintf(rest, sizeof(rest), "%s", path);
	fd = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (rest[0] == '/' && (fstat(fd, &st) < 0 || !parent_ok(&st))) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	comp = rest;
	for (;;) {
		while (*comp == '/')
			comp++;
		if (!*comp)
			break;
		end = strchr(comp, '/');
		if (end)
			*end = '\0';
		if (!strcmp(comp, ".")) {
			comp = end ? end + 1 : comp + 1;
			if (!end)
				break;
			continue;
		}
		nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && create && strcmp(comp, "..")) {
			if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
				nfd = -errno;
				close(fd);
				return nfd;
			}
			nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0 || fstat(nfd, &st) < 0) {
			int r = -errno;

			if (nfd >= 0)
				close(nfd);
			close(fd);
			return r;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = -1;

			if ((st.st_uid == 0 || st.st_uid == geteuid()) && ++links <= MAX_LINKS)
				n = readlinkat(nfd, "", link, sizeof(link) - 1);
			close(nfd);
			if (n <= 0) {
				close(fd);
				return links > MAX_LINKS ? -ELOOP : -MCG_E_UNTRUSTED;
			}
			link[n] = '\0';
			if ((size_t)snprintf(next, sizeof(next), "%s/%s", link,
					     end ? end + 1 : "") >= sizeof(next)) {
				close(fd);
				return -ENAMETOOLONG;
			}
			memcpy(rest, next, strlen(next) + 1);
			comp = rest;
			if (rest[0] == '/') {
				close(fd);
				fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0)
					return -errno;
			}
			continue;
		}
		close(fd);
		fd = nfd;
		if (!parent_ok(&st)) {
			close(fd);
			return S_ISDIR(st.st_mode) ? -MCG_E_UNTRUSTED : -ENOTDIR;
		}
		if (!end)
			break;
		comp = end + 1;
	}
	*ret_fd = fd;
	return 0;
}

static int trusted_dir(const char *path, mode_t mode, bool create, bool ro, int *ret_fd)
{
	char parent[4096];
	const char *slash, *base;
	size_t plen;
	int pfd, r;

	if (!path || !*path)
		return -EINVAL;
	plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (plen >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, plen);
	parent[plen] = '\0';
	if (!strcmp(parent, "/"))
		return open_dir_ro(AT_FDCWD, "/", mode, false, ro, ret_fd);
	slash = strrchr(parent, '/');
	if (!slash)
		return open_dir_ro(AT_FDCWD, parent, mode, create, ro, ret_fd);
	base = slash + 1;
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	if (slash == parent) {
		r = open_parent("/", false, &pfd);
	} else {
		parent[slash - parent] = '\0';
		r = open_parent(parent, create, &pfd);
		parent[slash - parent] = '/';
	}
	if (r < 0)
		return r;
	r = open_dir_ro(pfd, base, mode, create, ro, ret_fd);
	close(pfd);
	return r;
}

int mcg_trusted_dir(const char *path, mode_t mode, bool create, int *ret_fd)
{
	return trusted_dir(path, mode, create, false, ret_fd);
}

int mcg__trusted_dir_ro(const char *path, int *ret_fd)
{
	return trusted_dir(path, 0, false, true, ret_fd);
}

int mcg__trusted_subdir(int dirfd, const char *name, mode_t mode, bool create, int *ret_fd)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return open_dir_at(dirfd, name, mode, create, ret_fd);
}

/*
 * Open NAME under DIRFD (a path, AT_FDCWD too) as a regular file, or fail.
 * O_NONBLOCK: a FIFO planted where a file is expected would block open() (and
 * every read after it) for ever; a device would act on the open. Once it is
 * known to be a regular file the flag is dropped again.
 */
int mcg__open_regular(int dirfd, const char *name, int flags, mode_t mode, struct stat *ret_st)
{
	struct stat st;
	int fd, r;

	fd = openat(dirfd, name, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0)
		/* ENXIO: a FIFO opened for writing with no reader */
		return errno == ENXIO ? -MCG_E_UNTRUSTED : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	/* F_SETFL takes the status flags of FLAGS (O_APPEND) and ignores the rest */
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (ret_st)
		*ret_st = st;
	return fd;
}

int mcg_openat_file(int dirfd, const char *name, int flags, mode_t mode)
{
	struct stat st = {0};
	int fd;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	fd = mcg__open_regular(dirfd, name, flags | O_NOFOLLOW, mode, &st);
	if (fd < 0)
		return fd == -ELOOP ? -MCG_E_UNTRUSTED : fd;
	if (st.st_uid != geteuid()) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	return fd;
}

int mcg__read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	int fd = mcg_openat_file(dirfd, name, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	return mcg__read_fd(fd, max, ret, ret_len);
}

int mcg_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	const char *p = data;
	size_t done = 0;
	int fd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	/*
	 * A .tmp left by a run killed here is ours to replace (the directory is
	 * trusted), but is never opened as it stands: O_EXCL makes a new file.
	 */
	fd = mcg_openat_file(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd == -EEXIST || fd == -MCG_E_UNTRUSTED) {
		if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
			return -errno;
		fd = mcg_openat_file(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
	}
	if (fd < 0)
		return fd;
	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			close(fd);
			unlinkat(dirfd, tmp, 0);
			return r;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0) {
		r = -errno;
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		r = -errno;
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	return 0;
}

int mcg__mkdir_p(const char *path, mode_t mode)
{
	char tmp[4096];
	size_t i, len = strlen(path);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char c = tmp[i];

			tmp[i] = '\0';
			if (mkdir(tmp, mode) < 0 && errno != EEXIST)
				return -errno;
			tmp[i] = c;
		}
	}
	return 0;
}
