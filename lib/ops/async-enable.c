/* async-enable.c: async reclaim's enable and disable as operations ('async-reclaim enable|disable', top's A). */
#include "ops/ops.h"

#include <memcg/async-persist.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cpus_available(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int stop(struct mcg_async_enable_result *res, enum mcg_async_enable_stage stage, int error)
{
	res->stage = stage;
	res->error = error;
	return error < 0 ? error : -EINVAL;
}

/*
 * The limit the watermarks are computed from, read under the cgroup's lock once
 * a journal a killed run left (a reclaimd burst, set-limit, empty) is restored:
 * never the lowered limit of an interrupted step. A running burst or command is
 * waited for (bounded by the request's cancel).
 */
static int stable_limit(struct mcg_group *g, const struct mcg_async_enable_req *req,
			struct mcg_async_enable_result *res)
{
	struct mcg_txn *t = NULL;
	int r = mcg_txn_begin_recovering(g, MCG_TXN_WAIT, "async-reclaim enable", req->cancel,
					 req->recovered, req->recovered_data, &t);

	if (r < 0)
		return stop(res, MCG_AE_LOCK, r);
	r = mcg_knob_read_u64(g, g->ctx->version == 2 ? "memory.max" : "memory.limit_in_bytes",
			      &res->limit);
	mcg_txn_commit(t); /* nothing was written: no journal to drop */
	mcg_txn_free(t);
	return r < 0 ? stop(res, MCG_AE_LIMIT, r) : 0;
}

/* A watermark as typed (a size, or NN% of LIMIT) into *V; the flags say which it is. */
static int mark(const char *abs, const char *margin, unsigned set, unsigned is_margin,
		uint64_t limit, struct mcg_async_enable_result *res, enum mcg_async_enable_stage stage,
		uint64_t *v)
{
	int r;

	if (!abs && !margin)
		return 0;
	res->conf.flags |= set | (margin ? is_margin : 0);
	r = mcg_size_parse(abs ? abs : margin, MCG_SIZE_PERCENT_OK, limit, 0, v, res->why,
			   sizeof(res->why));
	return r < 0 ? stop(res, stage, r) : 0;
}

/* Put back what was there before a failed enable: the earlier enable file, or none. */
static void undo(const char *statedir, const struct mcg_async_conf *c,
		 const struct mcg_async_conf *old)
{
	if (old)
		mcg_async_enable(statedir, old);
	else
		mcg_async_disable(statedir, c->root, c->path);
}

/* The enable file and what serves it; OLD is put back on a failure. */
static int write_and_start(const char *statedir, const struct mcg_async_enable_req *req,
			   const struct mcg_async_conf *old, struct mcg_async_enable_result *res)
{
	const struct mcg_async_conf *c = &res->conf;
	struct mcg_reclaimd_info info = {0};
	int r = mcg_async_enable(statedir, c);

	if (r < 0)
		return stop(res, MCG_AE_WRITE, r);
	if (req->start) {
		r = mcg_reclaimd_info(statedir, &info);
		if (r < 0) {
			undo(statedir, c, old);
			return stop(res, MCG_AE_INFO, r);
		}
		if (!info.pid) {
			r = req->start(statedir, &info.pid, req->start_data);
			if (r < 0) {
				/* nothing half done: no enable file that nothing serves */
				undo(statedir, c, old);
				return stop(res, MCG_AE_START, r);
			}
		}
	}
	res->pid = info.pid;
	if (req->persist) {
		r = mcg_async_persist(NULL, c);
		if (r < 0) {
			undo(statedir, c, old);
			return stop(res, MCG_AE_PERSIST, r);
		}
		res->persistent = true;
	}
	return 0;
}

int mcg_async_enable_run(struct mcg_group *g, const char *statedir,
			 const struct mcg_async_enable_req *req, struct mcg_async_enable_result *res)
{
	struct mcg_async_conf *c = &res->conf, *confs = NULL, *old = NULL;
	size_t nc = 0, i;
	int r;

	memset(res, 0, sizeof(*res));
	r = mcg_async_conf_init(c, g);
	if (r < 0)
		return stop(res, MCG_AE_INIT, r);
	if (!strcmp(c->path, "/"))
		return stop(res, MCG_AE_ROOT, -EINVAL);
	if (req->clean)
		c->flags |= MCG_ASYNC_CLEAN;
	if (req->batch) {
		/* the one --batch parser (empty's): a size, or a bare number of pages */
		uint64_t bytes, ps = (uint64_t)mcg_page_size();

		r = mcg_empty_parse_batch(req->batch, &bytes, res->why, sizeof(res->why));
		if (r < 0)
			return stop(res, MCG_AE_BATCH, r);
		if (bytes / ps > MCG_ASYNC_MAX_BATCH) {
			snprintf(res->why, sizeof(res->why), "at most %u pages per step",
				 MCG_ASYNC_MAX_BATCH);
			return stop(res, MCG_AE_BATCH, -ERANGE);
		}
		c->batch = (unsigned)(bytes / ps);
	}
	if (req->max_cpu) {
		/* the one CPU budget parser (reclaimd --size-max-cpu's), in the file's thousandths
		 */
		r = mcg_cpu_percent_parse(req->max_cpu, &c->max_cpu, res->why, sizeof(res->why));
		if (r < 0)
			return stop(res, MCG_AE_MAX_CPU, r);
	}
	r = stable_limit(g, req, res);
	if (r < 0)
		return r;
	if (res->limit == MCG_MAX)
		return stop(res, MCG_AE_NO_LIMIT, -EDOM);
	r = mark(req->high, req->high_margin, MCG_ASYNC_HIGH_SET, MCG_ASYNC_HIGH_MARGIN, res->limit,
		 res, MCG_AE_HIGH, &c->high);
	if (r == 0)
		r = mark(req->low, req->low_margin, MCG_ASYNC_LOW_SET, MCG_ASYNC_LOW_MARGIN,
			 res->limit, res, MCG_AE_LOW, &c->low);
	if (r < 0)
		return r;
	r = mcg_async_watermarks(c, res->limit, &res->high, &res->low);
	if (r < 0)
		return stop(res, MCG_AE_WATERMARKS, r);
	if (cpus_available() < 2 && !req->force)
		return stop(res, MCG_AE_ONE_CPU, -EBUSY);
	/* the enable file there now, put back if this enable fails */
	r = mcg_async_list(statedir, &confs, &nc);
	if (r < 0)
		return stop(res, MCG_AE_WRITE, r);
	for (i = 0; i < nc; i++)
		if (!strcmp(confs[i].root, c->root) && !strcmp(confs[i].path, c->path))
			old = &confs[i];
	r = write_and_start(statedir, req, old, res);
	free(confs);
	if (r < 0)
		return r;
	/* for the recorder (memcgctl record): who enabled what, once it is done */
	mcg_hist_note(g->ctx, "async-reclaim enable", c->path, "high %llu low %llu batch %u%s",
		      (unsigned long long)res->high, (unsigned long long)res->low, c->batch,
		      res->persistent ? " persistent" : "");
	res->stage = MCG_AE_DONE;
	return 0;
}

int mcg_async_disable_run(struct mcg_ctx *ctx, const char *statedir, const char *path,
			  bool persist, struct mcg_async_disable_result *res)
{
	int k = persist ? mcg_async_unpersist(NULL, ctx->root, path) : -ENOENT, r;

	memset(res, 0, sizeof(*res));
	if (k < 0 && k != -ENOENT) {
		res->unpersist_failed = true;
		res->error = k;
		return k;
	}
	res->unkept = k == 0;
	r = mcg_async_disable(statedir, ctx->root, path);
	if (res->unkept && r == -ENOENT)
		r = 0; /* kept but not enabled now (its cgroup was not there) */
	if (r == -ENOENT)
		return 0; /* the state asked for is the state there */
	if (r < 0) {
		res->error = r;
		return r;
	}
	res->changed = true;
	mcg_hist_note(ctx, "async-reclaim disable", path, "%s",
		      res->unkept ? "kept configuration removed" : "");
	return 0;
}
