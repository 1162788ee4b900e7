/* info.c: everything about one group (show, list), read through the schema's one reader; absent stays absent. */
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
 * parsed once, into ST too when given). EXTRA: the counters no file holds
 * that the caller wants (the v2 effective limit, processes, children; NULL:
 * all of them). A memory.stat that is there but cannot be read is an error
 * with ST or STAT_ERR.
 */
static int read_plan(const struct mcg_group *g, const struct mcg__plan *p,
		     const struct mcg_keyset *extra, bool stat_err, char *buf, size_t len,
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
		if (got < 0 && stat && (st || stat_err) && got != -ENOENT)
			return (int)got;
		if (got >= 0 && stat && st && (e = mcg__plan_parse_stat(p, f, buf, &r, st)) < 0)
			return e;
	}
	/* v2: the smallest memory.max from this group up (v1: memory.stat says it) */
	if (p->version == 2 && (!extra || mcg_keyset_has(extra, MCG_K_EFFECTIVE_LIMIT)) &&
	    mcg_group_effective_limit(g, &r, false, &eff) > 0)
		mcg_record_set(&r, MCG_K_EFFECTIVE_LIMIT, eff);
	mcg_record_derive(&r, p->version, mcg_group_is_root(g));
	if ((!extra || mcg_keyset_has(extra, MCG_K_NR_PROCS)) && mcg_group_nr_procs(g, &n) == 0)
		mcg_record_set(&r, MCG_K_NR_PROCS, n);
	if ((!extra || mcg_keyset_has(extra, MCG_K_NR_CHILDREN)) &&
	    mcg_group_nr_children(g, &n) == 0)
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
	e = read_plan(g, p, NULL, false, buf, len, rec, st);
	free(buf);
	return e;
}

/* ---- a reader of some counters, for a walk (list, one-shot export) ---- */

struct mcg_reader {
	struct mcg__plan plan;
	struct mcg_keyset want;
	unsigned flags;
	char buf[MCG__READ_BUF];
};

int mcg_reader_new(struct mcg_ctx *ctx, const struct mcg_keyset *want, unsigned flags,
		   struct mcg_reader **ret)
{
	struct mcg_reader *rd = malloc(sizeof(*rd));
	struct mcg_keyset w;
	int e;

	if (!rd)
		return -ENOMEM;
	if (want)
		rd->want = *want;
	else
		mcg_keyset_all(&rd->want);
	rd->flags = flags;
	/* the sources of the derived counters (mcg_record_derive, fields.c) */
	w = rd->want;
	if (mcg_keyset_has(&w, MCG_K_REFAULT)) {
		mcg_keyset_add(&w, MCG_K_WORKINGSET_REFAULT_ANON);
		mcg_keyset_add(&w, MCG_K_WORKINGSET_REFAULT_FILE);
		mcg_keyset_add(&w, MCG_K_WORKINGSET_REFAULT);
	}
	if (ctx->version == 1 && mcg_keyset_has(&w, MCG_K_SWAP_USAGE)) {
		mcg_keyset_add(&w, MCG_K_MEMSW_USAGE);
		mcg_keyset_add(&w, MCG_K_USAGE);
	}
	if (ctx->version == 2 && mcg_keyset_has(&w, MCG_K_EFFECTIVE_LIMIT))
		mcg_keyset_add(&w, MCG_K_LIMIT);
	e = mcg__plan_init(&rd->plan, ctx->version, &w, MCG__PLAN_V1_LOCAL);
	if (e < 0) {
		free(rd);
		return e;
	}
	*ret = rd;
	return 0;
}

int mcg_reader_read(struct mcg_reader *rd, const struct mcg_group *g, struct mcg_record *rec)
{
	if (g->ctx->version != rd->plan.version)
		return -EINVAL;
	return read_plan(g, &rd->plan, &rd->want, rd->flags & MCG_READER_STAT_ERR, rd->buf,
			 sizeof(rd->buf), rec, NULL);
}

void mcg_reader_free(struct mcg_reader *rd)
{
	free(rd);
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
