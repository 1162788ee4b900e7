/* empty.c: reclaim a cgroup's memory in batches to a target, and account for what is left. */
#include "ops/ops.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mcg_empty_parse_batch(const char *s, uint64_t *ret_bytes, char *why, size_t whylen)
{
	uint64_t page = (uint64_t)mcg_page_size(), bytes;
	const char *p;
	char w[128] = "";
	int r;

	if (!s || !*s) {
		snprintf(why, whylen, "empty value");
		return -EINVAL;
	}
	for (p = s; isspace((unsigned char)*p); p++)
		;
	if (*p == '-') {
		snprintf(why, whylen, "must be positive");
		return -EINVAL;
	}
	if (strspn(s, "0123456789") == strlen(s)) {
		/* a bare number counts pages */
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(s, &end, 10);
		if (errno == ERANGE || n > MCG_EMPTY_MAX_BATCH / page) {
			snprintf(why, whylen, "more than %llu pages (%llu MiB) per step",
				 (unsigned long long)(MCG_EMPTY_MAX_BATCH / page),
				 (unsigned long long)(MCG_EMPTY_MAX_BATCH >> 20));
			return -ERANGE;
		}
		if (n == 0) {
			snprintf(why, whylen, "must be at least 1 page");
			return -EINVAL;
		}
		*ret_bytes = (uint64_t)n * page;
		return 0;
	}
	r = mcg_size_parse(s, 0, 0, 0, &bytes, w, sizeof(w));
	if (r < 0) {
		snprintf(why, whylen, "%s", w[0] ? w : "not a number of pages or a size");
		return r;
	}
	if (bytes < page) {
		snprintf(why, whylen, "less than one page (%llu bytes)", (unsigned long long)page);
		return -EINVAL;
	}
	if (bytes > MCG_EMPTY_MAX_BATCH) {
		snprintf(why, whylen, "more than %llu MiB per step",
			 (unsigned long long)(MCG_EMPTY_MAX_BATCH >> 20));
		return -ERANGE;
	}
	*ret_bytes = bytes / page * page;
	return 0;
}

void mcg_empty_plan_init(struct mcg_empty_plan *p, uint64_t batch, uint64_t target, uint64_t page,
			 bool bounded, uint64_t budget)
{
	memset(p, 0, sizeof(*p));
	p->page = page ? page : 4096;
	p->batch = batch < p->page ? p->page : batch / p->page * p->page;
	p->target = target;
	p->bounded = bounded;
	p->budget = budget;
	p->patience = MCG_EMPTY_PATIENCE;
}

uint64_t mcg_empty_plan_next(const struct mcg_empty_plan *p, uint64_t usage)
{
	uint64_t want;

	if (usage <= p->target)
		return 0;
	want = usage - p->target;
	/* whole pages: the v1 limit is page-rounded and memory.reclaim frees pages */
	want = (want + p->page - 1) / p->page * p->page;
	if (want > p->batch)
		want = p->batch;
	if (p->bounded) {
		uint64_t b = p->budget / p->page * p->page;

		if (b == 0)
			return 0;
		if (want > b)
			want = b;
	}
	return want;
}

bool mcg_empty_plan_account(struct mcg_empty_plan *p, uint64_t usage_before, uint64_t usage_after)
{
	uint64_t freed = usage_before > usage_after ? usage_before - usage_after : 0;

	if (p->bounded)
		p->budget = freed < p->budget ? p->budget - freed : 0;
	if (freed > 0) {
		p->idle = 0;
		return true;
	}
	return ++p->idle < p->patience;
}

const char *mcg_empty_stop_name(enum mcg_empty_stop s)
{
	switch (s) {
	case MCG_EMPTY_DONE:
		return "done";
	case MCG_EMPTY_UNRECLAIMABLE:
		return "unreclaimable";
	case MCG_EMPTY_NO_PROGRESS:
		return "no-progress";
	case MCG_EMPTY_TIMEOUT:
		return "timeout";
	case MCG_EMPTY_INTERRUPTED:
		return "interrupted";
	case MCG_EMPTY_KERNEL:
		return "force-empty";
	case MCG_EMPTY_CONFLICT:
		return "conflict";
	}
	return "unknown";
}

/* memory.stat into a record (one file: what a step needs, not the whole group). */
static int read_stat(const struct mcg_group *g, struct mcg_record *rec)
{
	char *text;
	int r = mcg_read_file_at(g->dirfd, "memory.stat", &text, NULL);

	if (r < 0)
		return r;
	*rec = (struct mcg_record){0};
	r = mcg_record_parse(rec, g->ctx->version, "memory.stat", text);
	free(text);
	return r;
}

struct child_sum {
	struct mcg_ctx *ctx;
	const char *top;
	uint64_t usage;
	unsigned n;
};

static int sum_child(const char *path, int depth, void *userdata)
{
	struct child_sum *c = userdata;
	struct mcg_group *g;
	uint64_t u;

	if (depth != 1)
		return 0;
	c->n++;
	if (mcg_group_open(c->ctx, path, &g) < 0)
		return 1;
	if (mcg_group_usage(g, &u) == 0)
		c->usage += u;
	mcg_group_close(g);
	return 1; /* usage is hierarchical: the children's children are in it */
}

int mcg_residue_read(const struct mcg_group *g, struct mcg_residue *ret)
{
	static const struct {
		enum mcg_key k;
		size_t off;
		unsigned bit;
	} map[] = {
		{MCG_K_FILE, offsetof(struct mcg_residue, file), MCG_RESIDUE_FILE},
		{MCG_K_DIRTY, offsetof(struct mcg_residue, file_dirty), MCG_RESIDUE_DIRTY},
		{MCG_K_WRITEBACK, offsetof(struct mcg_residue, file_writeback), MCG_RESIDUE_WRITEBACK},
		{MCG_K_SHMEM, offsetof(struct mcg_residue, shmem), MCG_RESIDUE_SHMEM},
		{MCG_K_ANON, offsetof(struct mcg_residue, anon), MCG_RESIDUE_ANON},
		{MCG_K_UNEVICTABLE, offsetof(struct mcg_residue, unevictable),
		 MCG_RESIDUE_UNEVICTABLE},
		/* v2 memory.stat's kernel; v1 the kmem counter (the schema's v1 file) */
		{MCG_K_KERNEL, offsetof(struct mcg_residue, kernel), MCG_RESIDUE_KERNEL},
	};
	struct mcg_residue res = {0};
	struct child_sum cs = {.ctx = g->ctx, .top = g->path};
	struct mcg_record rec;
	size_t i;
	int r;

	r = mcg_group_read_record(g, &rec, NULL);
	if (r < 0)
		return r;
	/* the usage file's own error (the group went away, ...) when it has none */
	if (!mcg_record_has(&rec, MCG_K_USAGE)) {
		r = mcg_group_usage(g, &res.usage);
		if (r < 0)
			return r;
	} else {
		res.usage = rec.v[MCG_K_USAGE];
	}
	for (i = 0; i < MCG_ARRAY_SIZE(map); i++)
		if (mcg_record_has(&rec, map[i].k)) {
			*(uint64_t *)((char *)&res + map[i].off) = rec.v[map[i].k];
			res.valid |= map[i].bit;
		}
	if (mcg_walk(g->ctx, g->path, 1, sum_child, &cs) == 0) {
		res.children = cs.usage;
		res.nr_children = cs.n;
		res.valid |= MCG_RESIDUE_CHILDREN;
	}
	if (mcg__swap_free(g->ctx, &res.swap_free) == 0)
		res.valid |= MCG_RESIDUE_SWAP;
	*ret = res;
	return 0;
}

/*
 * What a v1 step may take without pushing a charging workload into OOM: the
 * file LRUs, and anon too when there is swap to put it in.
 */
static uint64_t reclaimable(const struct mcg_group *g)
{
	struct mcg_record rec;
	uint64_t swap = 0;

	if (read_stat(g, &rec) < 0)
		return 0;
	mcg__swap_free(g->ctx, &swap); /* none known: no swap to put anon in */
	return mcg_reclaimable_from_record(&rec, swap > 0);
}

/* Dirty page cache worth waiting for writeback on (below it: a page or two being written). */
#define DIRTY_WAIT_MIN (64 * 1024)

static bool dirty_pending(const struct mcg_group *g)
{
	struct mcg_record rec;

	if (read_stat(g, &rec) < 0)
		return false;
	return mcg_record_get(&rec, MCG_K_DIRTY, 0) >= DIRTY_WAIT_MIN ||
	       mcg_record_get(&rec, MCG_K_WRITEBACK, 0) > 0;
}

static void report(const struct mcg_empty_opts *o, const struct mcg_empty_result *res,
		   uint64_t usage, uint64_t t0)
{
	struct mcg_empty_progress p;

	if (!o->progress)
		return;
	p.usage_start = res->usage_before;
	p.usage = usage;
	p.target = res->target;
	p.reclaimed = res->usage_before > usage ? res->usage_before - usage : 0;
	p.writes = res->writes;
	p.elapsed_ns = mcg_monotonic_ns() - t0;
	o->progress(&p, o->userdata);
}

/* Why to stop before the next step: MCG_EMPTY_INTERRUPTED, MCG_EMPTY_TIMEOUT, or -1 to go on. */
static int cancelled(const struct mcg_cancel *c)
{
	int r = mcg_cancel_check(c);

	return r == -EINTR ? MCG_EMPTY_INTERRUPTED : r == -ETIMEDOUT ? MCG_EMPTY_TIMEOUT : -1;
}

static int run_kernel(struct mcg_group *g, const struct mcg_cancel *c,
		      struct mcg_empty_result *res)
{
	int r;

	r = mcg_knob_write(g, "memory.force_empty", "0");
	res->writes = 1;
	res->steps = 1;
	if (r == -EINTR || (r == 0 && cancelled(c) == MCG_EMPTY_INTERRUPTED)) {
		res->stop = MCG_EMPTY_INTERRUPTED;
		return 0;
	}
	if (r < 0)
		return r;
	res->stop = MCG_EMPTY_KERNEL;
	return 0;
}

/*
 * Waits for writeback allowed when dirty data is what holds reclaim back, and
 * each one's length (600 of 10 ms: up to 6 s in all).
 */
#define DIRTY_WAIT_ROUNDS 600
#define DIRTY_WAIT_MS 10

struct procs_count {
	struct mcg_ctx *ctx;
	unsigned n;
};

static int count_procs(const char *path, int depth, void *userdata)
{
	struct procs_count *c = userdata;
	struct mcg_group *g;
	unsigned n;

	(void)depth;
	if (mcg_group_open(c->ctx, path, &g) < 0) {
		c->n++; /* unknown: assume someone lives there */
		return 0;
	}
	if (mcg_group_nr_procs(g, &n) < 0)
		n = 1;
	c->n += n;
	mcg_group_close(g);
	return 0;
}

static int run_steps(struct mcg_txn *t, const struct mcg_empty_opts *o,
		     const struct mcg_cancel *c, struct mcg_empty_result *res, uint64_t t0)
{
	struct mcg_group *g = mcg_txn_group(t);
	bool v1 = g->ctx->version == 1, idle = false;
	struct procs_count pc = {.ctx = g->ctx};
	struct mcg_reclaimer *rc = NULL;
	struct mcg_empty_plan plan;
	uint64_t usage = res->usage_before;
	unsigned dirty_waits = 0;
	int r, r2, why;
	/*
	 * With nothing in the cgroup to charge meanwhile, the v1 limit may stay
	 * lowered from one step to the next and be restored once at the end.
	 */
	if (v1 && mcg_walk(g->ctx, g->path, -1, count_procs, &pc) == 0 && pc.n == 0)
		idle = true;
	mcg_empty_plan_init(&plan, res->batch, res->target, (uint64_t)mcg_page_size(), v1,
			    v1 ? reclaimable(g) : 0);
	r = 0;
	for (;;) {
		struct mcg_step st;
		uint64_t want, ts;
		bool keep;

		if (usage <= res->target || (res->target == 0 && usage <= MCG_EMPTY_SLACK)) {
			res->stop = MCG_EMPTY_DONE;
			break;
		}
		why = cancelled(c);
		if (why >= 0) {
			res->stop = (enum mcg_empty_stop)why;
			break;
		}
		want = mcg_empty_plan_next(&plan, usage);
		if (want == 0) {
			/* v1 budget spent: ask memory.stat again before giving up */
			plan.budget = reclaimable(g);
			want = mcg_empty_plan_next(&plan, usage);
			if (want == 0) {
				res->stop = MCG_EMPTY_UNRECLAIMABLE;
				break;
			}
		}
		/* keep the lower limit only with room to spare in what memory.stat calls reclaimable */
		keep = idle && plan.budget >= want + 2 * plan.batch;
		if (!rc) {
			/* journals the v1 limit: only once there is something to do */
			r = mcg_reclaimer_new(t, &rc);
			if (r < 0)
				return r;
		}
		ts = mcg_monotonic_ns();
		r = mcg_reclaimer_step(rc, want, keep, &st);
		res->steps++;
		if (r == 0)
			mcg_log(g->ctx, MCG_LOG_DEBUG,
				"step %u: asked %llu, usage %llu -> %llu%s%s, %.3f ms", res->steps,
				(unsigned long long)want, (unsigned long long)st.usage_before,
				(unsigned long long)st.usage_after, st.short_ ? ", short: " : "",
				st.short_ ? strerror(st.kernel_err) : "", (double)(mcg_monotonic_ns() - ts) / 1e6);
		if (r == -EINTR) {
			r = 0;
			if (cancelled(c) == MCG_EMPTY_INTERRUPTED) {
				res->stop = MCG_EMPTY_INTERRUPTED;
				break;
			}
			continue; /* a signal that is not ours to act on: the step is redone */
		}
		if (r == -MCG_E_CONFLICT)
			break;
		if (r < 0)
			break;
		res->last_err = st.short_ ? st.kernel_err : 0;
		usage = st.usage_after;
		res->writes = mcg_reclaimer_writes(rc);
		report(o, res, usage, t0);
		if (!mcg_empty_plan_account(&plan, st.usage_before, st.usage_after)) {
			/*
			 * Dirty page cache is freed only once the flusher has written it;
			 * reclaim has woken it. Wait for it while it has work left, with a
			 * bound, rather than calling the rest unreclaimable.
			 */
			if (dirty_waits < DIRTY_WAIT_ROUNDS && dirty_pending(g)) {
				dirty_waits++;
				plan.idle = 0;
				mcg_log(g->ctx, MCG_LOG_DEBUG, "waiting for writeback of dirty page cache");
				r = mcg_reclaimer_restore(rc);
				if (r < 0)
					break;
				mcg__cancel_nap(c, DIRTY_WAIT_MS);
				continue;
			}
			res->stop = MCG_EMPTY_NO_PROGRESS;
			break;
		}
	}
	if (rc) {
		r2 = mcg_reclaimer_restore(rc);
		res->writes = mcg_reclaimer_writes(rc);
		if (r == 0 && r2 < 0)
			r = r2;
		if (mcg_reclaimer_conflict(rc, &res->conflict_found, &res->conflict_expected) == 0) {
			/* someone else set the limit: theirs stays, and so does what is left */
			res->stop = MCG_EMPTY_CONFLICT;
			if (r == -MCG_E_CONFLICT)
				r = 0;
		}
		mcg_reclaimer_free(rc);
	}
	return r;
}

int mcg_empty_run(struct mcg_group *g, const struct mcg_empty_opts *o,
		  const struct mcg_cancel *cancel, struct mcg_empty_result *ret)
{
	struct mcg_empty_result res = {0};
	struct mcg_txn *t = NULL;
	const char *limit_knob = mcg_knob_file(1, MCG_K_LIMIT); /* read on v1 only */
	uint64_t t0 = mcg_monotonic_ns(), page = (uint64_t)mcg_page_size();
	bool v1 = g->ctx->version == 1;
	int r, r2;

	if (mcg_group_is_root(g))
		return -EPERM;
	if (o->kernel && !v1)
		return -EOPNOTSUPP;
	res.batch = o->batch ? o->batch / page * page : MCG_EMPTY_DEFAULT_PAGES * page;
	if (res.batch == 0 || res.batch > MCG_EMPTY_MAX_BATCH)
		return -EINVAL;
	res.target = o->target;
	r = mcg_txn_begin_recovering(g, o->wait ? MCG_TXN_WAIT : 0, o->kernel ? "empty --kernel" : "empty", cancel,
				     o->recovered, o->userdata, &t);
	if (r < 0)
		return r;
	if (v1) {
		r = mcg_knob_read_u64(g, limit_knob, &res.limit_before);
		if (r < 0)
			goto out;
	}
	r = mcg_group_usage(g, &res.usage_before);
	if (r < 0)
		goto out;
	if (o->kernel)
		r = run_kernel(g, cancel, &res);
	else
		r = run_steps(t, o, cancel, &res, t0);
	res.limit_changed = v1 && res.steps > 0 && !o->kernel;
	/*
	 * The limit before is the one the journal saved when the first step began: another
	 * writer may have set it between the read above and then, and that value is the one
	 * memcgctl restores and compares with, not the earlier read.
	 */
	if (v1 && res.limit_changed)
		(void)mcg__txn_saved_u64(t, limit_knob, &res.limit_before);
	/* Put the limit back before anything else, whatever happened (if it is still ours). */
	r2 = mcg_txn_rollback(t);
	(void)mcg_txn_writer_seen(t, &res.writer);
	if (r2 == -MCG_E_CONFLICT) {
		if (res.stop != MCG_EMPTY_CONFLICT)
			mcg_txn_conflict(t, NULL, &res.conflict_found, &res.conflict_expected);
		res.stop = MCG_EMPTY_CONFLICT;
		r2 = 0;
	}
	if (r == 0 && r2 < 0)
		r = r2;
	if (r < 0)
		goto out;
	res.elapsed_ns = mcg_monotonic_ns() - t0;
	if (v1) {
		r = mcg_knob_read_u64(g, limit_knob, &res.limit_after);
		if (r < 0)
			goto out;
	}
	/* Never say "empty" on the strength of a write: read usage back. */
	r = mcg_residue_read(g, &res.residue);
	if (r < 0)
		goto out;
	res.usage_after = res.residue.usage;
	res.reclaimed = res.usage_before > res.usage_after ? res.usage_before - res.usage_after : 0;
	if (res.stop != MCG_EMPTY_INTERRUPTED && res.stop != MCG_EMPTY_TIMEOUT &&
	    res.stop != MCG_EMPTY_CONFLICT && res.usage_after <= res.target)
		res.stop = MCG_EMPTY_DONE;
	mcg_hist_note(g->ctx, o->kernel ? "empty --kernel" : "empty", g->path,
		      "reclaimed %llu bytes, usage %llu -> %llu, %s",
		      (unsigned long long)res.reclaimed, (unsigned long long)res.usage_before,
		      (unsigned long long)res.usage_after, mcg_empty_stop_name(res.stop));
	*ret = res;
out:
	mcg_txn_free(t);
	return r;
}
