/* info.c: everything about one group (show, and the operations on one cgroup), read through the schema's one reader; absent stays absent. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Read G through plan P into REC: every file of the plan once (memory.stat
 * parsed once, into ST too when given), and the counters no file holds (the
 * v2 effective limit, processes, children). A memory.stat that is there but
 * cannot be read is an error with ST.
 */
static int read_plan(const struct mcg_group *g, const struct mcg__plan *p, char *buf, size_t len,
		     struct mcg_record *rec, struct mcg_stat *st)
{
	struct mcg_record r = {0};
	uint64_t eff;
	unsigned f, n;
	int e;

	for (f = 0; f < p->nf; f++) {
		int fd = MCG__FD_UNSET;
		bool stat = !strcmp(p->f[f].name, "memory.stat");
		ssize_t got = mcg__plan_read(p, f, &fd, g->dirfd, buf, len, stat && st ? NULL : &r);

		if (fd >= 0)
			close(fd);
		if (got < 0 && stat && st && got != -ENOENT)
			return (int)got;
		if (got >= 0 && stat && st && (e = mcg__plan_parse_stat(p, f, buf, &r, st)) < 0)
			return e;
	}
	/* v2: the smallest memory.max from this group up (v1: memory.stat says it) */
	if (p->version == 2 && mcg_group_effective_limit(g, &r, false, &eff) > 0)
		mcg_record_set(&r, MCG_K_EFFECTIVE_LIMIT, eff);
	mcg_record_derive(&r, p->version, mcg_group_is_root(g));
	if (mcg_group_nr_procs(g, &n) == 0)
		mcg_record_set(&r, MCG_K_NR_PROCS, n);
	if (mcg_group_nr_children(g, &n) == 0)
		mcg_record_set(&r, MCG_K_NR_CHILDREN, n);
	*rec = r;
	return 0;
}

int mcg_group_read_record(const struct mcg_group *g, struct mcg_record *rec, struct mcg_stat *st)
{
	const size_t len = MCG__READ_BUF;
	const struct mcg__plan *p;
	char *buf;
	int e;

	p = record_plan(g->ctx, &e);
	if (!p)
		return e;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	e = read_plan(g, p, buf, len, rec, st);
	free(buf);
	return e;
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
