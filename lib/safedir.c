/* safedir.c: the only way memcgctl opens its run, state and history files: under a checked directory, never through a link. */
#include "internal.h"
#include "util.h"

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
static int check_dir_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -MCG_E_UNTRUSTED;
	return 0;
}

static int open_dir_at(int atfd, const char *name, mode_t mode, bool create, int *ret_fd)
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
	r = check_dir_fd(fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int mcg__trusted_dir(const char *path, mode_t mode, bool create, int *ret_fd)
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
		return open_dir_at(AT_FDCWD, "/", mode, false, ret_fd);
	slash = strrchr(parent, '/');
	if (!slash) {
		return open_dir_at(AT_FDCWD, parent, mode, create, ret_fd);
	}
	base = slash + 1;
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	if (slash == parent) {
		pfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		parent[slash - parent] = '\0';
		/*
		 * The parents may be links (/var/run -> /run) and need not be
		 * trusted: what is checked is the directory itself, through
		 * the descriptor that every later open goes through.
		 */
		if (create) {
			r = mcg__mkdir_p(parent, 0755);
			if (r < 0)
				return r;
		}
		pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		parent[slash - parent] = '/';
	}
	if (pfd < 0)
		return -errno;
	r = open_dir_at(pfd, base, mode, create, ret_fd);
	close(pfd);
	return r;
}

int mcg__trusted_subdir(int dirfd, const char *name, mode_t mode, bool create, int *ret_fd)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return open_dir_at(dirfd, name, mode, create, ret_fd);
}

int mcg__openat_file(int dirfd, const char *name, int flags, mode_t mode)
{
	struct stat st;
	int fd, r;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0)
		return errno == ELOOP ? -MCG_E_UNTRUSTED : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	return fd;
}

int mcg__read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	int fd = mcg__openat_file(dirfd, name, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	return mcg__read_fd(fd, max, ret, ret_len);
}

int mcg__write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode)
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
	fd = mcg__openat_file(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd == -EEXIST || fd == -MCG_E_UNTRUSTED) {
		if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
			return -errno;
		fd = mcg__openat_file(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
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

int mcg__rundir_fd(struct mcg_ctx *ctx, bool create, int *ret_fd)
{
	int r;

	if (ctx->rundirfd < 0) {
		r = mcg__trusted_dir(ctx->rundir, 0755, create, &ctx->rundirfd);
		if (r < 0)
			return r;
	}
	*ret_fd = ctx->rundirfd;
	return 0;
}
