/* info.c: everything about one group (show, list), read through the schema's one reader; absent stays absent. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* v2: the smallest memory.max from this group up to the root. */
static void v2_effective_limit(const struct mcg_group *g, struct mcg_record *r)
{
	char *path = strdup(g->path); /* any length: never a truncated, other cgroup's path */
	const char *knob = mcg_knob_file(2, MCG_K_LIMIT);
	uint64_t eff = MCG_MAX;
	bool any = false;

	if (!path)
		return;
	while (strcmp(path, "/") && path[0]) {
		struct mcg_group *p;
		uint64_t v;
		char *slash;

		if (mcg_group_open(g->ctx, path, &p) == 0) {
			if (mcg_knob_read_u64(p, knob, &v) == 0) {
				any = true;
				if (v < eff)
					eff = v;
			}
			mcg_group_close(p);
		}
		slash = strrchr(path, '/');
		if (!slash)
			break;
		if (slash == path)
			path[1] = '\0';
		else
			*slash = '\0';
	}
	free(path);
	if (any || !strcmp(g->path, "/")) {
		mcg_record_set(r, MCG_K_EFFECTIVE_LIMIT, eff);
	}
}

/*
 * The plan of every counter on CTX's version, made at the first record and
 * kept by CTX: a walk of 1000 cgroups made it 1000 times, half of an
 * export's instructions.
 */
static const struct mcg__plan *record_plan(struct mcg_ctx *ctx, int *err)
{
	struct mcg__plan *p;

	if (ctx->record_plan)
		return ctx->record_plan;
	p = malloc(sizeof(*p));
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = mcg__plan_init(p, ctx->version, NULL, MCG__PLAN_V1_LOCAL);
	if (*err < 0) {
		free(p);
		return NULL;
	}
	ctx->record_plan = p;
	return p;
}

int mcg_group_read_record(const struct mcg_group *g, struct mcg_record *rec, struct mcg_stat *st)
{
	const size_t len = MCG__READ_BUF;
	const struct mcg__plan *p;
	struct mcg_record r = {0};
	unsigned f, n;
	char *buf;
	int e;

	p = record_plan(g->ctx, &e);
	if (!p)
		return e;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	for (f = 0; f < p->nf; f++) {
		int fd = MCG__FD_UNSET;
		bool stat = !strcmp(p->f[f].name, "memory.stat") && st;
		ssize_t got = mcg__plan_read(p, f, &fd, g->dirfd, buf, len, &r);

		if (fd >= 0)
			close(fd);
		if (got < 0 && stat && got != -ENOENT) {
			free(buf);
			return (int)got;
		}
		if (got >= 0 && stat) {
			e = mcg_stat_parse(buf, st);
			if (e < 0) {
				free(buf);
				return e;
			}
		}
	}
	free(buf);
	if (p->version == 2)
		v2_effective_limit(g, &r);
	mcg_record_derive(&r, p->version, mcg_group_is_root(g));
	if (mcg_group_nr_procs(g, &n) == 0)
		mcg_record_set(&r, MCG_K_NR_PROCS, n);
	if (mcg_group_nr_children(g, &n) == 0)
		mcg_record_set(&r, MCG_K_NR_CHILDREN, n);
	*rec = r;
	return 0;
}

int mcg_group_info(const struct mcg_group *g, struct mcg_info *ret)
{
	struct mcg_info i = {0};
	int r;

	i.version = g->ctx->version;
	i.path = strdup(g->path);
	if (!i.path)
		return -ENOMEM;
	r = mcg_group_read_record(g, &i.rec, &i.stat);
	if (r < 0) {
		mcg_info_release(&i);
		return r;
	}
	*ret = i;
	return 0;
}

void mcg_info_release(struct mcg_info *info)
{
	if (!info)
		return;
	free(info->path);
	info->path = NULL;
	mcg_stat_release(&info->stat);
}
