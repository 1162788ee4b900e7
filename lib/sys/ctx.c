/* ctx.c: find the memory controller (v1, v2, hybrid) and hold the library's context. */
#include "sys/sys.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static const char *const mcg_errors[] = {
	[MCG_E_NOCONTROLLER - MCG_E_BASE] = "no memory cgroup controller is mounted",
	[MCG_E_NOTCGROUP - MCG_E_BASE] = "not a memory cgroup",
	[MCG_E_ESCAPE - MCG_E_BASE] = "path leaves the cgroup hierarchy",
	[MCG_E_STALE_JOURNAL - MCG_E_BASE] =
		"an interrupted memcgctl run left a journal (run 'memcgctl recover')",
	[MCG_E_LOCKED - MCG_E_BASE] = "another memcgctl is changing this cgroup",
	[MCG_E_LIBCGROUP - MCG_E_BASE] = "libcgroup failed", /* not returned since it was dropped */
	[MCG_E_UNTRUSTED - MCG_E_BASE] =
		"not trusted: a symlink, or not a directory owned by root that only root can write",
	[MCG_E_CONFLICT - MCG_E_BASE] = "another writer changed the value memcgctl had set",
	[MCG_E_CORRUPT - MCG_E_BASE] = "corrupt file: not what memcgctl writes",
};

const char *mcg_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err > MCG_E_BASE && err < MCG_E__END)
		return mcg_errors[err - MCG_E_BASE];
	return strerror(err);
}

void mcg_ctx_set_resolver(struct mcg_ctx *ctx, mcg_resolve_fn fn, void *userdata)
{
	ctx->resolve = fn;
	ctx->resolve_data = userdata;
}

void mcg_ctx_get_log(const struct mcg_ctx *ctx, mcg_log_fn *ret_log, void **ret_userdata)
{
	*ret_log = ctx->log;
	*ret_userdata = ctx->log_data;
}

void mcg_ctx_set_log(struct mcg_ctx *ctx, mcg_log_fn log, void *userdata)
{
	ctx->log = log;
	ctx->log_data = userdata;
}

void mcg_log(const struct mcg_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	if (!ctx || !ctx->log)
		return;
	va_start(ap, fmt);
	ctx->log(ctx->log_data, level, fmt, ap);
	va_end(ap);
}

/* Is there a cgroup2 mount, and where (for hybrid detection and the fallback)? */
static int find_mounts(char **ret_v1_memory, char **ret_v2)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t n = 0;

	if (!f)
		return -errno;
	while (getline(&line, &n, f) > 0) {
		char mnt[4096], rest[4096], fstype[64], opts[1024];
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s %4095[^\n]", mnt, rest) != 2)
			continue;
		if (sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (!strcmp(fstype, "cgroup2") && ret_v2 && !*ret_v2)
			*ret_v2 = strdup(mnt);
		if (!strcmp(fstype, "cgroup") && ret_v1_memory && !*ret_v1_memory) {
			char *tok, *save = NULL;

			for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, "memory"))
					*ret_v1_memory = strdup(mnt);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

static bool v2_has_memory(const char *mnt)
{
	char path[4200], buf[512];
	FILE *f;
	bool found = false;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	fd = mcg__open_regular(AT_FDCWD, path, O_RDONLY, 0, NULL);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (fgets(buf, sizeof(buf), f)) {
		char *tok, *save = NULL;

		for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, "memory"))
				found = true;
	}
	fclose(f);
	return found;
}

static struct mcg_ctx *ctx_alloc(mcg_log_fn log, void *userdata)
{
	struct mcg_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->rootfd = -1;
	ctx->rundirfd = -1;
	ctx->log = log;
	ctx->log_data = userdata;
	ctx->procfs = strdup("/proc");
	ctx->rundir = strdup("/run/memcgctl"); /* the CLI applies --run-dir / MEMCGCTL_RUNDIR */
	if (!ctx->procfs || !ctx->rundir) {
		mcg_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

static int ctx_set_root(struct mcg_ctx *ctx, const char *root)
{
	char *real = realpath(root, NULL);

	if (!real)
		return -errno;
	ctx->rootfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctx->rootfd < 0) {
		int e = -errno;

		free(real);
		return e;
	}
	ctx->root = real;
	return 0;
}

int mcg_ctx_new(mcg_log_fn log, void *userdata, struct mcg_ctx **ret)
{
	struct mcg_ctx *ctx = ctx_alloc(log, userdata);
	char *cg_mnt = NULL, *v1 = NULL, *v2 = NULL;
	struct statfs sfs;
	int r;

	if (!ctx)
		return -ENOMEM;

	/*
	 * The mount table says where the memory controller is: the v1 memory hierarchy
	 * (hybrid hosts too), else a cgroup2 mount with memory in cgroup.controllers.
	 * libcgroup was linked for this lookup alone, and missed memory on cgroup2.
	 */
	r = find_mounts(&v1, &v2);
	if (r < 0)
		goto out;
	if (v1)
		cg_mnt = strdup(v1);
	else if (v2 && v2_has_memory(v2))
		cg_mnt = strdup(v2);
	if (!cg_mnt) {
		r = -MCG_E_NOCONTROLLER;
		goto out;
	}
	if (statfs(cg_mnt, &sfs) < 0) {
		r = -errno;
		goto out;
	}
	if ((unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC) {
		if (!v2_has_memory(cg_mnt)) {
			r = -MCG_E_NOCONTROLLER;
			goto out;
		}
		ctx->version = 2;
		ctx->mode = MCG_MODE_V2;
	} else {
		ctx->version = 1;
		ctx->mode = v2 ? MCG_MODE_HYBRID : MCG_MODE_V1;
	}
	r = ctx_set_root(ctx, cg_mnt);
out:
	free(cg_mnt);
	free(v1);
	free(v2);
	if (r < 0) {
		mcg_ctx_free(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

int mcg_ctx_new_root(const char *root, int version, mcg_log_fn log, void *userdata,
		     struct mcg_ctx **ret)
{
	struct mcg_ctx *ctx;
	int r;

	if (version != 0 && version != 1 && version != 2)
		return -EINVAL;
	ctx = ctx_alloc(log, userdata);
	if (!ctx)
		return -ENOMEM;
	r = ctx_set_root(ctx, root);
	if (r < 0)
		goto fail;
	if (!version) {
		if (faccessat(ctx->rootfd, "cgroup.controllers", F_OK, 0) == 0)
			version = 2;
		else if (faccessat(ctx->rootfd, "memory.limit_in_bytes", F_OK, 0) == 0 ||
			 faccessat(ctx->rootfd, "memory.usage_in_bytes", F_OK, 0) == 0)
			version = 1;
		else {
			r = -MCG_E_NOTCGROUP;
			goto fail;
		}
	}
	ctx->version = version;
	ctx->mode = MCG_MODE_FIXTURE;
	*ret = ctx;
	return 0;
fail:
	mcg_ctx_free(ctx);
	return r;
}

void mcg_ctx_free(struct mcg_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->rootfd >= 0)
		close(ctx->rootfd);
	free(ctx->root);
	free(ctx->procfs);
	if (ctx->rundirfd >= 0)
		close(ctx->rundirfd);
	free(ctx->rundir);
	free(ctx->record_plan);
	free(ctx);
}

int mcg_ctx_version(const struct mcg_ctx *ctx)
{
	return ctx->version;
}

const char *mcg_ctx_root(const struct mcg_ctx *ctx)
{
	return ctx->root;
}

int mcg_ctx_rootfd(const struct mcg_ctx *ctx)
{
	return ctx->rootfd;
}

static int replace_str(char **dst, const char *src)
{
	char *s = strdup(src);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int mcg_ctx_set_procfs(struct mcg_ctx *ctx, const char *dir)
{
	return replace_str(&ctx->procfs, dir);
}

const char *mcg_ctx_procfs(const struct mcg_ctx *ctx)
{
	return ctx->procfs;
}

int mcg_ctx_set_rundir(struct mcg_ctx *ctx, const char *dir)
{
	if (!dir || !*dir)
		return -EINVAL;
	if (ctx->rundirfd >= 0) {
		close(ctx->rundirfd);
		ctx->rundirfd = -1;
	}
	return replace_str(&ctx->rundir, dir);
}

const char *mcg_ctx_rundir(const struct mcg_ctx *ctx)
{
	return ctx->rundir;
}

ssize_t mcg_proc_read(const struct mcg_ctx *ctx, const char *rel, char *buf, size_t len)
{
	char path[4096];
	ssize_t n, total = 0;
	int fd;

	if (!len)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", ctx->procfs, rel);
	/* a --proc tree's FIFO is refused, not waited on */
	fd = mcg__open_regular(AT_FDCWD, path, O_RDONLY, 0, NULL);
	if (fd < 0)
		return fd;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - (size_t)total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

int mcg_proc_read_u64(const struct mcg_ctx *ctx, const char *rel, uint64_t *ret)
{
	char buf[64];
	ssize_t n = mcg_proc_read(ctx, rel, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return mcg_parse_u64(buf, ret);
}

int mcg__rundir_fd(struct mcg_ctx *ctx, bool create, int *ret_fd)
{
	int r;

	if (ctx->rundirfd < 0) {
		r = mcg_trusted_dir(ctx->rundir, 0755, create, &ctx->rundirfd);
		if (r < 0)
			return r;
	}
	*ret_fd = ctx->rundirfd;
	return 0;
}
