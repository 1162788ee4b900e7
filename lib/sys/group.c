/* group.c: open a cgroup safely under the root and read/write its knobs with openat(). */
#include "sys/sys.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

static bool knob_name_ok(const char *knob)
{
	return knob && *knob && !strchr(knob, '/') && strcmp(knob, ".") && strcmp(knob, "..");
}

int mcg_read_file_at(int dirfd, const char *name, char **ret, size_t *ret_len)
{
	/* a knob is never a symlink: a planted one in a --root tree is not followed */
	int fd = mcg__open_regular(dirfd, name, O_RDONLY | O_NOFOLLOW, 0, NULL);

	if (fd < 0)
		return fd;
	return mcg__read_fd(fd, SIZE_MAX, ret, ret_len);
}

/* Does NAME exist under DIRFD as a file that is not a symlink? */
static bool file_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode);
}

int mcg__cgroup_dir_check(const struct mcg_ctx *ctx, int dirfd, bool is_root)
{
	if (ctx->version == 2) {
		if (!file_at(dirfd, "cgroup.controllers"))
			return -MCG_E_NOTCGROUP;
		/* The root has no memory.current but always has memory.stat. */
		if (!file_at(dirfd, is_root ? "memory.stat" : "memory.max"))
			return -MCG_E_NOTCGROUP;
		return 0;
	}
	if (!file_at(dirfd, "memory.usage_in_bytes"))
		return -MCG_E_NOTCGROUP;
	return 0;
}

int mcg_pid_cgroup(struct mcg_ctx *ctx, pid_t pid, char *buf, size_t len)
{
	char rel[64], *text = NULL, *line, *save = NULL;
	int procfd, r = -ENOENT;

	if (pid <= 0)
		return -EINVAL;
	procfd = open(ctx->procfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -errno;
	snprintf(rel, sizeof(rel), "%d/cgroup", (int)pid);
	r = mcg_read_file_at(procfd, rel, &text, NULL);
	close(procfd);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	r = -ENOENT;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		bool match = false;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		if (ctx->version == 2) {
			match = !strcmp(line, "0") && c1[1] == '\0';
		} else {
			char *tok, *s2 = NULL;

			for (tok = strtok_r(c1 + 1, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2))
				if (!strcmp(tok, "memory"))
					match = true;
		}
		if (match) {
			if (strlen(c2 + 1) + 1 > len) {
				r = -ENAMETOOLONG;
			} else {
				strcpy(buf, c2 + 1);
				r = 0;
			}
			break;
		}
	}
	free(text);
	return r;
}

/* "pid:N": N is a decimal number from 1 to INT32_MAX, nothing else (no sign, no blanks). */
static int parse_pid_spec(const char *s, pid_t *ret)
{
	long long v = 0;

	if (*s < '1' || *s > '9')
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -EINVAL;
	}
	*ret = (pid_t)v;
	return 0;
}

/*
 * The cgroup mcg_walk() is visiting (its callback's PATH and the walk's
 * descriptor of it): mcg_group_open() of that very string, from the callback,
 * duplicates the descriptor instead of opening the path again component by
 * component from the root (the walks of empty and size open every cgroup
 * they are given; for list's walk, at 10,000 cgroups under one parent, three
 * path lookups and a dup saved a cgroup). The same directory either way, unless it was renamed
 * since the walk listed it, when the walk's is the one its path was built from.
 */
static __thread struct {
	const struct mcg_ctx *ctx;
	const char *path;
	int dirfd;
} walk_cur = {NULL, NULL, -1};

int mcg_group_open(struct mcg_ctx *ctx, const char *spec, struct mcg_group **ret)
{
	char pidpath[4096], *canon = NULL, *copy, *tok, *save = NULL, *cg = NULL;
	const char *rel = spec;
	size_t rootlen = strlen(ctx->root), clen = 0;
	struct mcg_group *g;
	int fd, r;

	if (!spec || !*spec)
		return -EINVAL;
	if (ctx->resolve && (r = ctx->resolve(ctx, spec, &cg, ctx->resolve_data)) != 0) {
		/* a name ("web.service"): its cgroup, as its owner reports it */
		if (r < 0)
			return r;
		if (strlen(cg) >= sizeof(pidpath)) {
			free(cg);
			return -ENAMETOOLONG;
		}
		strcpy(pidpath, cg);
		free(cg);
		rel = pidpath;
	} else if (!strncmp(spec, "pid:", 4)) {
		pid_t pid;

		if (parse_pid_spec(spec + 4, &pid) < 0)
			return -EINVAL;
		r = mcg_pid_cgroup(ctx, pid, pidpath, sizeof(pidpath));
		if (r < 0)
			return r;
		rel = pidpath;
	} else if (!strncmp(spec, ctx->root, rootlen) &&
		   (spec[rootlen] == '/' || spec[rootlen] == '\0') && strcmp(ctx->root, "/")) {
		rel = spec + rootlen;
	}
	/* Opened one component at a time, so any length the walk prints opens again. */
	if (strlen(rel) > MCG_PATH_MAX)
		return -ENAMETOOLONG;
	if (rel == spec && spec == walk_cur.path && ctx == walk_cur.ctx && walk_cur.dirfd >= 0) {
		fd = fcntl(walk_cur.dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		canon = strdup(spec);
		if (!canon) {
			close(fd);
			return -ENOMEM;
		}
		copy = NULL;
		goto opened;
	}

	copy = strdup(rel);
	canon = malloc(strlen(rel) + 2);
	if (!copy || !canon) {
		free(copy);
		free(canon);
		return -ENOMEM;
	}
	canon[0] = '\0';
	fd = dup(ctx->rootfd);
	if (fd < 0) {
		r = -errno;
		goto fail_nofd;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		size_t tlen = strlen(tok);
		int nfd;

		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			r = -MCG_E_ESCAPE;
			goto fail;
		}
		if (tlen > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto fail;
		}
		/* O_NOFOLLOW on each component: a symlink cannot lead out of the root. */
		nfd = openat(fd, tok, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			struct stat st;

			r = errno == ELOOP ? -MCG_E_ESCAPE : errno == ENOTDIR ? -MCG_E_NOTCGROUP : -errno;
			/* a symlink could lead anywhere: never follow one */
			if (fstatat(fd, tok, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				r = -MCG_E_ESCAPE;
			goto fail;
		}
		close(fd);
		fd = nfd;
		canon[clen++] = '/';
		memcpy(canon + clen, tok, tlen + 1);
		clen += tlen;
	}
	if (!canon[0])
		strcpy(canon, "/");
opened:
	r = mcg__cgroup_dir_check(ctx, fd, !strcmp(canon, "/"));
	if (r < 0)
		goto fail;
	g = calloc(1, sizeof(*g));
	if (!g) {
		r = -ENOMEM;
		goto fail;
	}
	g->ctx = ctx;
	g->dirfd = fd;
	g->path = canon;
	free(copy);
	*ret = g;
	return 0;
fail:
	close(fd);
fail_nofd:
	free(copy);
	free(canon);
	return r;
}

void mcg_group_close(struct mcg_group *g)
{
	if (!g)
		return;
	close(g->dirfd);
	free(g->path);
	free(g);
}

const char *mcg_group_path(const struct mcg_group *g)
{
	return g->path;
}

int mcg_group_dirfd(const struct mcg_group *g)
{
	return g->dirfd;
}

bool mcg_group_is_root(const struct mcg_group *g)
{
	return !strcmp(g->path, "/");
}

struct mcg_ctx *mcg_group_ctx(const struct mcg_group *g)
{
	return g->ctx;
}

bool mcg_knob_exists(const struct mcg_group *g, const char *knob)
{
	return knob_name_ok(knob) && file_at(g->dirfd, knob);
}

ssize_t mcg_fd_pread(int fd, char *buf, size_t len)
{
	ssize_t n, total = 0;

	if (!len)
		return -EINVAL;
	while ((size_t)total < len - 1) {
		n = pread(fd, buf + total, len - 1 - (size_t)total, total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	return total;
}

int mcg_fd_read_u64(int fd, uint64_t *ret)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0 || buf[n - 1] != '\n')
		n = mcg_fd_pread(fd, buf, sizeof(buf));
	else
		buf[n] = '\0';
	if (n < 0)
		return (int)n;
	return mcg_parse_u64(buf, ret);
}

int mcg_knob_open(const struct mcg_group *g, const char *knob, int flags)
{
	int fd;

	if (!knob_name_ok(knob))
		return -EINVAL;
	/*
	 * O_NOFOLLOW: a symlink planted in a --root tree never redirects a read or
	 * a write; a FIFO there is refused, not waited on
	 */
	fd = mcg__open_regular(g->dirfd, knob, flags | O_NOFOLLOW, 0, NULL);
	return fd;
}

ssize_t mcg_knob_read(const struct mcg_group *g, const char *knob, char *buf, size_t len)
{
	int fd = mcg_knob_open(g, knob, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = mcg_fd_pread(fd, buf, len);
	close(fd);
	return n;
}

int mcg_knob_read_u64(const struct mcg_group *g, const char *knob, uint64_t *ret)
{
	char buf[64];
	ssize_t n = mcg_knob_read(g, knob, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return mcg_parse_u64(buf, ret);
}

int mcg_knob_write(const struct mcg_group *g, const char *knob, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	/* O_TRUNC: cgroupfs ignores it (as for a shell redirection); a fixture tree of
	 * regular files then reads back exactly what was written. */
	int fd = mcg_knob_open(g, knob, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

int mcg_knob_write_u64(const struct mcg_group *g, const char *knob, uint64_t val,
		       uint64_t *ret_readback)
{
	char buf[32];
	uint64_t back;
	int r;

	if (val == MCG_MAX)
		snprintf(buf, sizeof(buf), "%s", g->ctx->version == 2 ? "max" : "-1");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	r = mcg_knob_write(g, knob, buf);
	if (r < 0)
		return r;
	r = mcg_knob_read_u64(g, knob, &back);
	if (r < 0)
		return r;
	if (ret_readback)
		*ret_readback = back;
	return 0;
}

int mcg_group_nr_procs(const struct mcg_group *g, unsigned *ret)
{
	char *text, *p;
	unsigned n = 0;
	int r = mcg_read_file_at(g->dirfd, "cgroup.procs", &text, NULL);

	if (r < 0)
		return r;
	for (p = text; *p; p++)
		if (*p == '\n')
			n++;
	free(text);
	*ret = n;
	return 0;
}

/*
 * Is this directory entry a child cgroup? Every name counts, dot names too (a
 * cgroup named ".x" holds memory like any other); only "." and ".." are not
 * children. Symlinks are not directories here.
 */
static bool is_child(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
		return false;
	if (de->d_type == DT_DIR)
		return true;
	if (de->d_type != DT_UNKNOWN)
		return false;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static int take_child(int dirfd, const struct dirent *de, void *elem, void *ud)
{
	(void)ud;
	if (!is_child(dirfd, de))
		return 0;
	return (*(char **)elem = strdup(de->d_name)) ? 1 : -ENOMEM;
}

static void drop_name(void *elem)
{
	free(*(char **)elem);
}

static int list_children(int dirfd, char ***ret, size_t *ret_n)
{
	return mcg__dir_load(dirfd, sizeof(char *), take_child, drop_name, NULL, (void **)ret,
			     ret_n);
}

/* Counts a child in *UD. */
static int count_child(int dirfd, const struct dirent *de, void *ud)
{
	if (is_child(dirfd, de))
		(*(unsigned *)ud)++;
	return 0;
}

int mcg_group_nr_children(const struct mcg_group *g, unsigned *ret)
{
	unsigned n = 0;
	int r = mcg__dir_each(g->dirfd, count_child, &n);

	if (r < 0)
		return r;
	*ret = n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct walk {
	struct mcg_ctx *ctx;
	int max_depth;
	mcg_walk_fn cb;
	void *userdata;
	unsigned skipped; /* subtrees left out for depth */
};

/*
 * Children are opened from their parent's descriptor (never by a path string,
 * which PATH_MAX would cut), and paths are built at their full length. The
 * recursion holds one descriptor and a small frame per level and stops at
 * MCG_WALK_MAX_DEPTH, where what lies deeper is skipped with a warning.
 */
static int walk_rec(struct walk *w, int dirfd, const char *path, int depth)
{
	size_t plen = strcmp(path, "/") ? strlen(path) : 0;
	char **names;
	size_t n, i;
	int r;

	walk_cur.ctx = w->ctx;
	walk_cur.path = path;
	walk_cur.dirfd = dirfd;
	r = w->cb(path, depth, w->userdata);
	walk_cur.path = NULL;
	walk_cur.dirfd = -1;

	if (r < 0)
		return r;
	if (r == 1 || (w->max_depth >= 0 && depth >= w->max_depth))
		return 0;
	r = list_children(dirfd, &names, &n);
	if (r < 0)
		return r == -ENOENT ? 0 : r; /* removed while we walked */
	if (n && depth >= MCG_WALK_MAX_DEPTH) {
		char *e = mcg_escape_dup(path);

		mcg_log(w->ctx, MCG_LOG_WARNING,
			"skipping the %zu cgroup(s) under '%s': deeper than %d levels", n,
			e ? e : "?", MCG_WALK_MAX_DEPTH);
		free(e);
		w->skipped++;
		mcg_strv_free(names, n);
		return 0;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	r = 0;
	for (i = 0; i < n; i++) {
		size_t nlen = strlen(names[i]);
		char *child;
		int cfd;

		if (r < 0)
			goto next;
		cfd = openat(dirfd, names[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			/* out of descriptors is not a vanished child: the walk is not whole */
			if (errno == EMFILE || errno == ENFILE)
				r = -errno;
			goto next; /* vanished, or replaced by a symlink */
		}
		child = malloc(plen + nlen + 2);
		if (!child) {
			close(cfd);
			r = -ENOMEM;
			goto next;
		}
		memcpy(child, path, plen);
		child[plen] = '/';
		memcpy(child + plen + 1, names[i], nlen + 1);
		r = walk_rec(w, cfd, child, depth + 1);
		free(child);
		close(cfd);
next:
		free(names[i]);
	}
	free(names);
	return r;
}

int mcg_walk(struct mcg_ctx *ctx, const char *path, int max_depth, mcg_walk_fn cb, void *userdata)
{
	struct walk w = {ctx, max_depth, cb, userdata, 0};
	struct mcg_group *g;
	int r = mcg_group_open(ctx, path ? path : "/", &g);

	if (r < 0)
		return r;
	r = walk_rec(&w, g->dirfd, g->path, 0);
	mcg_group_close(g);
	return r;
}

void mcg__path_to_name(const char *path, char *buf, size_t len)
{
	size_t o = 0;

	for (; *path && o + 4 < len; path++) {
		if (*path == '/' || *path == '%') {
			o += (size_t)snprintf(buf + o, len - o, "%%%02x", (unsigned char)*path);
		} else {
			buf[o++] = *path;
		}
	}
	buf[o] = '\0';
}

void mcg__cgroup_file_name(const char *root, const char *path, char *buf, size_t len)
{
	char full[8200];

	snprintf(full, sizeof(full), "%s%s", root, strcmp(path, "/") ? path : "");
	mcg__path_to_name(full, buf, len);
	if (strlen(buf) > 200) {
		/* FNV-1a keeps long paths within NAME_MAX */
		uint64_t h = 1469598103934665603ULL;
		const char *p;

		for (p = full; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		snprintf(buf, len, "long-%016llx", (unsigned long long)h);
	}
}
