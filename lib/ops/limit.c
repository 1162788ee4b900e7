/* limit.c: safe limit changes: preflight, an ordered plan, reclaim before shrinking, rollback. */
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* Consecutive attempts without progress before a shrink gives up (no --timeout). */
#define NO_PROGRESS_TRIES 3
/* With a deadline, the nap between attempts that made no progress: writeback's turn. */
#define STALL_NAP_MS 20
/*
 * With a deadline and no step asked for, a shrink still goes in writes of at
 * most this much: the deadline is checked between writes, and one write that
 * reclaims gigabytes through dirty page cache would outlast it (no timer
 * interrupts it: the library owns no signal).
 */
#define DEADLINE_STEP (64ULL << 20)

static const char *const knob_names[MCG_LK__COUNT] = {
	[MCG_LK_MAX] = "max", [MCG_LK_HIGH] = "high", [MCG_LK_LOW] = "low",
	[MCG_LK_MIN] = "min", [MCG_LK_SOFT] = "soft", [MCG_LK_SWAP] = "swap",
	[MCG_LK_SWAP_HIGH] = "swap_high", [MCG_LK_ZSWAP_MAX] = "zswap_max",
};

void mcg_limit_req_init(struct mcg_limit_req *req)
{
	size_t i;

	memset(req, 0, sizeof(*req));
	for (i = 0; i < MCG_LK__COUNT; i++)
		req->v[i] = MCG_KEEP;
}

const char *mcg_limit_knob_name(enum mcg_limit_knob k)
{
	return (unsigned)k < MCG_LK__COUNT ? knob_names[k] : NULL;
}

const char *mcg_limit_verdict_name(enum mcg_limit_verdict v)
{
	switch (v) {
	case MCG_LV_OK:
		return "ok";
	case MCG_LV_RECLAIM:
		return "reclaim";
	case MCG_LV_BELOW_FLOOR:
		return "below-floor";
	case MCG_LV_FORCED:
		return "forced";
	}
	return "?";
}

static void set_why(char *why, size_t len, const char *s)
{
	if (why && len)
		snprintf(why, len, "%s", s);
}

int mcg_limit_supported(const struct mcg_group *g, enum mcg_limit_knob k, char *why, size_t whylen)
{
	int v = g->ctx->version;
	const char *file = mcg_limit_knob_file(v, k);

	if (v == 1 && !file) {
		set_why(why, whylen,
			k == MCG_LK_SWAP_HIGH ? "memory.swap.high exists only on cgroup v2"
			: k == MCG_LK_ZSWAP_MAX ? "memory.zswap.max exists only on cgroup v2"
			: k == MCG_LK_HIGH  ? "memory.high exists only on cgroup v2 (v1 has a soft "
					    "limit: --soft)"
			: k == MCG_LK_LOW ? "memory.low exists only on cgroup v2 (v1 has no "
					    "protection; --soft is the closest)"
					  : "memory.min exists only on cgroup v2 (v1 has no hard "
					    "protection)");
		return -EOPNOTSUPP;
	}
	if (v == 2 && !file) {
		set_why(why, whylen,
			"memory.soft_limit_in_bytes exists only on cgroup v1 (on v2 use --low to "
			"protect "
			"or --high to throttle)");
		return -EOPNOTSUPP;
	}
	if (mcg_group_is_root(g)) {
		set_why(why, whylen, "the root cgroup has no limits");
		return -EOPNOTSUPP;
	}
	if (!mcg_knob_exists(g, file)) {
		if (k == MCG_LK_SWAP)
			set_why(why, whylen,
				v == 2 ? "memory.swap.max is missing: the kernel does not account "
					 "swap"
				       : "memory.memsw.limit_in_bytes is missing: the kernel does "
					 "not account "
					 "swap (boot with swapaccount=1)");
		else if (k == MCG_LK_SWAP_HIGH)
			set_why(why, whylen,
				"memory.swap.high is missing: the kernel does not account swap or "
				"is older than Linux 5.8");
		else if (k == MCG_LK_ZSWAP_MAX)
			set_why(why, whylen,
				"memory.zswap.max is missing: the kernel has no zswap accounting "
				"(CONFIG_ZSWAP, Linux 5.19 or newer)");
		else
			set_why(why, whylen, "the cgroup has no such file");
		return -EOPNOTSUPP;
	}
	return 0;
}

int mcg_limit_current(const struct mcg_group *g, enum mcg_limit_knob k, uint64_t *ret)
{
	const char *file = mcg_limit_knob_file(g->ctx->version, k);
	uint64_t lim, memsw;
	int r;

	if (!file)
		return -EOPNOTSUPP;
	if (g->ctx->version == 2 || k != MCG_LK_SWAP)
		return mcg_knob_read_u64(g, file, ret);
	r = mcg_knob_read_u64(g, mcg_limit_knob_file(1, MCG_LK_MAX), &lim);
	if (r < 0)
		return r;
	r = mcg_knob_read_u64(g, file, &memsw);
	if (r < 0)
		return r;
	*ret = memsw == MCG_MAX || lim == MCG_MAX ? MCG_MAX : memsw - lim;
	return 0;
}

/*
 * The parent's effective limit (MCG_MAX when none, or for the root): the smallest
 * limit from the parent up, read from each ancestor's limit file. Cheaper than the
 * parent's memory.stat, which for the v1 root sums over every cgroup.
 */
static int parent_limit(const struct mcg_group *g, uint64_t *ret)
{
	int r = mcg_group_effective_limit(g, NULL, true, ret);

	if (r == 0)
		*ret = MCG_MAX;
	return r < 0 ? r : 0;
}

int mcg_limit_percent_ref(const struct mcg_group *g, uint64_t *ret)
{
	uint64_t v;
	int r = parent_limit(g, &v);

	if (r < 0)
		return r;
	if (v == MCG_MAX)
		return mcg_mem_total(g->ctx, ret);
	*ret = v;
	return 0;
}

/* ---- resolving a request ---- */

static int bad(struct mcg_limit_error *e, enum mcg_limit_bad what, int knob, int err,
	       const char *why)
{
	e->bad = what;
	e->knob = knob;
	e->err = err;
	if (why != e->why)
		snprintf(e->why, sizeof(e->why), "%s", why);
	return err;
}

static const unsigned size_flags = MCG_SIZE_MAX_OK | MCG_SIZE_PERCENT_OK | MCG_SIZE_RELATIVE_OK;

/*
 * What can be checked without the cgroup's values: the group, each knob
 * against the version, the flags, the step, the syntax of each value. REQ gets
 * the step and the flags.
 */
static int validate(const struct mcg_group *g, const struct mcg_limit_spec *spec,
		    struct mcg_limit_req *req, struct mcg_limit_error *e)
{
	uint64_t dummy;
	bool any = false;
	size_t k;
	int r;

	mcg_limit_req_init(req);
	req->flags = spec->flags & (MCG_LIMIT_ALLOW_OOM | MCG_LIMIT_FORCE);
	if (mcg_group_is_root(g))
		return bad(e, MCG_LB_ROOT, -1, -EINVAL, "the kernel has none there");
	for (k = 0; k < MCG_LK__COUNT; k++) {
		if (!spec->v[k])
			continue;
		any = true;
		r = mcg_limit_supported(g, k, e->why, sizeof(e->why));
		if (r < 0)
			return bad(e, MCG_LB_UNSUPPORTED, (int)k, r, e->why);
	}
	if (!any)
		return bad(e, MCG_LB_NOTHING, -1, -EINVAL, "no value to change");
	if ((spec->flags & MCG_LIMIT_ALLOW_OOM) && g->ctx->version == 1)
		return bad(e, MCG_LB_ALLOW_OOM, -1, -EOPNOTSUPP,
			   "cgroup v1 limit writes never OOM-kill (they fail with EBUSY); use "
			   "--force to try below the floor");
	if (spec->step) {
		r = mcg_size_parse(spec->step, 0, 0, 0, &req->step, e->why, sizeof(e->why));
		if (r < 0)
			return bad(e, MCG_LB_STEP, -1, r, e->why);
		if (!req->step)
			return bad(e, MCG_LB_STEP, -1, -EINVAL, "must be at least one page");
	}
	for (k = 0; k < MCG_LK__COUNT; k++) {
		if (!spec->v[k])
			continue;
		r = mcg_size_parse(spec->v[k], size_flags | MCG__SIZE_SYNTAX, 0, 0, &dummy, e->why,
				   sizeof(e->why));
		if (r < 0)
			return bad(e, MCG_LB_SIZE, (int)k, r, e->why);
	}
	return 0;
}

/* Each value against the knob's current value and the parent's effective limit. */
static int resolve_values(const struct mcg_group *g, const struct mcg_limit_spec *spec,
			  struct mcg_limit_req *req, struct mcg_limit_error *e)
{
	uint64_t ref = 0;
	bool percent = false;
	size_t k;
	int r;

	for (k = 0; k < MCG_LK__COUNT; k++)
		percent |= spec->v[k] && strchr(spec->v[k], '%');
	/* The parent's effective limit costs a walk: only for a percentage. */
	if (percent && (r = mcg_limit_percent_ref(g, &ref)) < 0)
		return bad(e, MCG_LB_READ_REF, -1, r, mcg_strerror(r));
	for (k = 0; k < MCG_LK__COUNT; k++) {
		uint64_t base = 0;

		if (!spec->v[k])
			continue;
		/* a relative size needs the current value; it costs a read (two for v1 swap) */
		if ((spec->v[k][0] == '+' || spec->v[k][0] == '-') && strcmp(spec->v[k], "-1") &&
		    (r = mcg_limit_current(g, (enum mcg_limit_knob)k, &base)) < 0)
			return bad(e, MCG_LB_READ, (int)k, r, mcg_strerror(r));
		r = mcg_size_parse(spec->v[k], size_flags, ref, base, &req->v[k], e->why,
				   sizeof(e->why));
		if (r < 0)
			return bad(e, MCG_LB_SIZE, (int)k, r, e->why);
	}
	return 0;
}

int mcg_limit_resolve(const struct mcg_group *g, const struct mcg_limit_spec *spec,
		      struct mcg_limit_req *ret, struct mcg_limit_error *err)
{
	struct mcg_limit_error e = {MCG_LB_NONE, -1, 0, ""};
	struct mcg_limit_req req;
	int r = validate(g, spec, &req, &e);

	if (r == 0)
		r = resolve_values(g, spec, &req, &e);
	if (err)
		*err = e;
	if (r == 0)
		*ret = req;
	return r;
}

/* The v1 memsw limit a request leads to: MCG_KEEP when it stays. */
static uint64_t v1_memsw_target(const struct mcg_limit_req *req, uint64_t lim_cur,
				uint64_t memsw_cur, uint64_t lim_new, bool has_memsw)
{
	uint64_t m;

	if (!has_memsw)
		return MCG_KEEP;
	if (req->v[MCG_LK_SWAP] != MCG_KEEP) {
		uint64_t s = req->v[MCG_LK_SWAP];

		m = lim_new == MCG_MAX || s == MCG_MAX || s > MCG_MAX - 2 - lim_new ? MCG_MAX
										    : lim_new + s;
	} else if (memsw_cur == MCG_MAX) {
		return MCG_KEEP; /* no swap limit stays no swap limit */
	} else {
		/* keep the swap allowance (memsw - limit) as it is */
		uint64_t allow = lim_cur == MCG_MAX ? 0 : memsw_cur - lim_cur;

		m = lim_new == MCG_MAX || allow > MCG_MAX - 2 - lim_new ? MCG_MAX : lim_new + allow;
	}
	return m == memsw_cur ? MCG_KEEP : m;
}

int mcg_limit_preflight(const struct mcg_group *g, const struct mcg_limit_req *req,
			struct mcg_limit_pre *ret)
{
	struct mcg_limit_pre p = {0};
	struct mcg_record i;
	uint64_t headroom;
	int r;

	if (mcg_group_is_root(g))
		return -EPERM;
	r = mcg_group_read_record(g, &i, NULL);
	if (r < 0)
		return r;
	if (!mcg_record_has(&i, MCG_K_USAGE) || !mcg_record_has(&i, MCG_K_LIMIT))
		return -ENOENT;
	p.version = g->ctx->version;
	p.usage = i.v[MCG_K_USAGE];
	p.limit = i.v[MCG_K_LIMIT];
	p.target = req->v[MCG_LK_MAX] == MCG_KEEP ? p.limit : req->v[MCG_LK_MAX];
	p.anon = mcg_record_get(&i, MCG_K_ANON, 0);
	p.file = mcg_record_get(&i, MCG_K_FILE, 0);
	p.shmem = mcg_record_get(&i, MCG_K_SHMEM, 0);
	p.unevictable = mcg_record_get(&i, MCG_K_UNEVICTABLE, 0);
	p.dirty = mcg_record_get(&i, MCG_K_DIRTY, 0);
	p.writeback = mcg_record_get(&i, MCG_K_WRITEBACK, 0);
	/* v1: 0; the kernel answers EBUSY when a shrink meets what stays, and we roll back */
	p.kernel = mcg_field_kernel_floor(&i, p.version);

	/* Swap the cgroup could still push anon and shmem to. */
	headroom = 0; /* no SwapFree known: none */
	mcg__swap_free(g->ctx, &headroom);
	if (p.version == 2) {
		uint64_t smax = req->v[MCG_LK_SWAP] != MCG_KEEP ? req->v[MCG_LK_SWAP]
								: mcg_record_get(&i, MCG_K_SWAP_LIMIT, 0);
		uint64_t sused = mcg_record_get(&i, MCG_K_SWAP_USAGE, 0);

		if (smax != MCG_MAX && mcg__sat_sub(smax, sused) < headroom)
			headroom = mcg__sat_sub(smax, sused);
	} else if (mcg_record_has(&i, MCG_K_MEMSW_LIMIT)) {
		uint64_t cur = i.v[MCG_K_MEMSW_LIMIT];
		uint64_t m = v1_memsw_target(req, p.limit, cur, p.target, true);

		if (m == MCG_KEEP)
			m = cur;
		if (m != MCG_MAX && p.target != MCG_MAX) {
			uint64_t sused = mcg_record_get(&i, MCG_K_SWAP_USAGE, 0);
			uint64_t room = mcg__sat_sub(mcg__sat_sub(m, p.target), sused);

			if (room < headroom)
				headroom = room;
		}
	}
	p.swap_headroom = headroom;
	p.floor = mcg_floor_from_record(&i, p.version, headroom);

	r = parent_limit(g, &p.parent_limit);
	if (r < 0)
		return r;
	if (p.target == MCG_MAX || p.target >= p.usage) {
		p.verdict = MCG_LV_OK;
	} else {
		p.reclaim = p.usage - p.target;
		if (p.target >= p.floor)
			p.verdict = MCG_LV_RECLAIM;
		else if (req->flags & (MCG_LIMIT_FORCE | MCG_LIMIT_ALLOW_OOM))
			p.verdict = MCG_LV_FORCED;
		else
			p.verdict = MCG_LV_BELOW_FLOOR;
	}
	*ret = p;
	return 0;
}

static struct mcg_limit_write *add(struct mcg_limit_plan *pl, enum mcg_limit_op op,
				   const char *knob, uint64_t before, uint64_t value)
{
	struct mcg_limit_write *w;

	if (pl->n == MCG_LIMIT_MAX_WRITES)
		return NULL;
	w = &pl->w[pl->n++];
	memset(w, 0, sizeof(*w));
	w->op = op;
	snprintf(w->knob, sizeof(w->knob), "%s", knob);
	w->before = before;
	w->value = value;
	w->after = value;
	w->memsw = MCG_KEEP;
	return w;
}

/* Add a plain write of knob K if the request changes it. */
static int add_simple(const struct mcg_group *g, const struct mcg_limit_req *req,
		      struct mcg_limit_plan *pl, enum mcg_limit_knob k)
{
	uint64_t cur;
	int r;

	if (req->v[k] == MCG_KEEP)
		return 0;
	r = mcg_limit_current(g, k, &cur);
	if (r < 0)
		return r;
	if (cur == req->v[k])
		return 0;
	return add(pl, MCG_LW_SET, mcg_limit_knob_file(g->ctx->version, k), cur, req->v[k]) ? 0 : -E2BIG;
}

static int plan_v2(const struct mcg_group *g, const struct mcg_limit_req *req,
		   const struct mcg_limit_pre *pre, struct mcg_limit_plan *pl)
{
	const char *high_knob = mcg_limit_knob_file(2, MCG_LK_HIGH);
	uint64_t high;
	bool temp = false;
	int r;

	r = mcg_knob_read_u64(g, high_knob, &high);
	if (r < 0)
		return r;
	if ((r = add_simple(g, req, pl, MCG_LK_SWAP)) < 0)
		return r;
	if (pre->target != pre->limit && pre->target != MCG_MAX && pre->target < pre->usage) {
		/* Throttle growth while we reclaim, so memory.max finds usage already below it. */
		if (high > pre->target) {
			if (!add(pl, MCG_LW_TEMP, high_knob, high, pre->target))
				return -E2BIG;
			temp = true;
		}
		if (!add(pl, MCG_LW_RECLAIM, "memory.reclaim", pre->usage, pre->target))
			return -E2BIG;
	}
	if (pre->target != pre->limit &&
	    !add(pl, MCG_LW_SET, mcg_limit_knob_file(2, MCG_LK_MAX), pre->limit, pre->target))
		return -E2BIG;
	if (req->v[MCG_LK_HIGH] != MCG_KEEP) {
		if ((temp || req->v[MCG_LK_HIGH] != high) &&
		    !add(pl, MCG_LW_SET, high_knob, temp ? pre->target : high,
			 req->v[MCG_LK_HIGH]))
			return -E2BIG;
	} else if (temp && !add(pl, MCG_LW_SET, high_knob, pre->target, high)) {
		return -E2BIG;
	}
	if ((r = add_simple(g, req, pl, MCG_LK_LOW)) < 0)
		return r;
	if ((r = add_simple(g, req, pl, MCG_LK_MIN)) < 0)
		return r;
	if ((r = add_simple(g, req, pl, MCG_LK_SWAP_HIGH)) < 0)
		return r;
	return add_simple(g, req, pl, MCG_LK_ZSWAP_MAX);
}

static int plan_v1(const struct mcg_group *g, const struct mcg_limit_req *req,
		   const struct mcg_limit_pre *pre, struct mcg_limit_plan *pl)
{
	const char *memsw_knob = mcg_limit_knob_file(1, MCG_LK_SWAP);
	bool has_memsw = mcg_knob_exists(g, memsw_knob);
	uint64_t memsw_cur = MCG_MAX, memsw_new;
	struct mcg_limit_write *w;
	int r;

	if ((r = add_simple(g, req, pl, MCG_LK_SOFT)) < 0)
		return r;
	if (has_memsw && (r = mcg_knob_read_u64(g, memsw_knob, &memsw_cur)) < 0)
		return r;
	memsw_new = v1_memsw_target(req, pre->limit, memsw_cur, pre->target, has_memsw);
	/* limit <= memsw after every write: raise memsw first, lower the limit first. */
	if (memsw_new != MCG_KEEP && memsw_new >= pre->limit &&
	    !add(pl, MCG_LW_SET, memsw_knob, memsw_cur, memsw_new))
		return -E2BIG;
	if (pre->target != pre->limit) {
		bool shrink = pre->target != MCG_MAX && pre->target < pre->usage;

		w = add(pl, shrink ? MCG_LW_SHRINK : MCG_LW_SET, mcg_limit_knob_file(1, MCG_LK_MAX),
			pre->limit, pre->target);
		if (!w)
			return -E2BIG;
	}
	if (memsw_new != MCG_KEEP && memsw_new < pre->limit &&
	    !add(pl, MCG_LW_SET, memsw_knob, memsw_cur, memsw_new))
		return -E2BIG;
	return 0;
}

int mcg_limit_plan(const struct mcg_group *g, const struct mcg_limit_req *req,
		   const struct mcg_limit_pre *pre, struct mcg_limit_plan *ret)
{
	struct mcg_limit_plan pl = {0};
	size_t k;
	int r;

	if (mcg_group_is_root(g))
		return -EPERM;
	for (k = 0; k < MCG_LK__COUNT; k++)
		if (req->v[k] != MCG_KEEP && mcg_limit_supported(g, k, NULL, 0) < 0)
			return -EOPNOTSUPP;
	r = g->ctx->version == 2 ? plan_v2(g, req, pre, &pl) : plan_v1(g, req, pre, &pl);
	if (r < 0)
		return r;
	*ret = pl;
	return 0;
}

const char *mcg_limit_systemd_unit(const struct mcg_group *g)
{
	static const char *const sfx[] = {".service", ".scope", ".slice"};
	const char *name = strrchr(g->path, '/');
	size_t i, n;

	name = name ? name + 1 : g->path;
	n = strlen(name);
	for (i = 0; i < MCG_ARRAY_SIZE(sfx); i++) {
		size_t s = strlen(sfx[i]);

		if (n > s && !strcmp(name + n - s, sfx[i]))
			return name;
	}
	return NULL;
}

/* ---- applying a plan ---- */

struct run {
	struct mcg_txn *t;
	struct mcg_group *g;
	const struct mcg_limit_req *req;
	const struct mcg_cancel *cancel;
	const struct mcg_limit_ops *ops;
	uint64_t start_ns;
	bool deadline; /* keep retrying a shrink that stalls, until the deadline */
	uint64_t step; /* the request's step, else DEADLINE_STEP with a deadline, else 0 */
	unsigned steps;
};

/* 0 to go on, -EINTR when interrupted, -ETIMEDOUT past the deadline. */
static int check(struct run *run)
{
	return mcg_cancel_check(run->cancel);
}

static void progress(struct run *run, uint64_t usage, uint64_t target, uint64_t cur)
{
	struct mcg_limit_progress p = {usage, target, cur,
				       (mcg_monotonic_ns() - run->start_ns) / 1000000, run->steps};

	if (run->ops && run->ops->progress)
		run->ops->progress(run->ops->userdata, &p);
}

/*
 * Every value set-limit writes goes through the transaction's compare-and-write:
 * the file must still hold what set-limit last wrote there (or the saved
 * original before the first write), else another writer changed it and the
 * run stops with -MCG_E_CONFLICT, leaving their value (see mcg__txn_set).
 */
static int write_val(struct run *run, const char *knob, uint64_t v)
{
	char buf[32];

	if (strcmp(knob, "memory.reclaim"))
		return mcg__txn_set(run->t, knob, v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return mcg_knob_write(run->g, knob, buf);
}

/*
 * One write that may have to reclaim first (v1 limits): retry EINTR unless the
 * caller cancelled, retry EBUSY while usage still falls (or until the deadline).
 */
static int write_retrying(struct run *run, const char *knob, uint64_t v, uint64_t *ret_usage)
{
	uint64_t best = MCG_MAX, usage = 0;
	int noprog = 0, r;

	for (;;) {
		r = check(run);
		if (r < 0)
			return r;
		r = write_val(run, knob, v);
		if (r == 0)
			return 0;
		if (r == -EINTR)
			continue;
		if (r != -EBUSY)
			return r;
		if (mcg_group_usage(run->g, &usage) == 0)
			*ret_usage = usage;
		/* progress: a new low; a workload that refills as fast as we reclaim is none */
		noprog = usage + (uint64_t)mcg_page_size() <= best ? 0 : noprog + 1;
		if (usage < best)
			best = usage;
		if (noprog >= NO_PROGRESS_TRIES && !run->deadline)
			return -EBUSY;
		if (noprog >= NO_PROGRESS_TRIES) /* within the timeout: let writeback make progress */
			mcg__cancel_nap(run->cancel, STALL_NAP_MS);
	}
}

/* v1: lower the limit to W->value, in steps of run->step, each write reclaiming. */
static int v1_shrink(struct run *run, struct mcg_limit_write *w, uint64_t *ret_usage)
{
	uint64_t cur = w->before, usage, next, ps = (uint64_t)mcg_page_size();
	int r;

	for (;;) {
		r = mcg_group_usage(run->g, &usage);
		if (r < 0)
			return r;
		*ret_usage = usage;
		if (cur <= w->value)
			return 0;
		next = w->value;
		if (run->step) {
			uint64_t from = cur < usage ? cur : usage;

			if (from > w->value + run->step)
				next = (from - run->step) / ps * ps;
		}
		progress(run, usage, w->value, cur);
		r = write_retrying(run, w->knob, next, ret_usage);
		if (r < 0)
			return r;
		cur = next;
		run->steps++;
	}
}

/* v2: memory.reclaim until usage <= W->value; never touches memory.max. */
static int v2_reclaim(struct run *run, struct mcg_limit_write *w, uint64_t *ret_usage)
{
	uint64_t usage, best = MCG_MAX, ps = (uint64_t)mcg_page_size();
	int noprog = 0, r;

	for (;;) {
		r = mcg_group_usage(run->g, &usage);
		if (r < 0)
			return r;
		*ret_usage = usage;
		progress(run, usage, w->value, w->value);
		if (usage <= w->value)
			return 0;
		r = check(run);
		if (r < 0)
			return r;
		if (usage < best)
			best = usage;
		{
			uint64_t ask = usage - w->value;

			if (run->step && ask > run->step)
				ask = run->step;
			r = write_val(run, "memory.reclaim", (ask + ps - 1) / ps * ps);
		}
		run->steps++;
		if (r < 0 && r != -EAGAIN && r != -EINTR)
			return r;
		if (mcg_group_usage(run->g, &usage) < 0)
			continue;
		/* progress: a new low; a workload that refills as fast as we reclaim is none */
		noprog = usage + ps <= best ? 0 : noprog + 1;
		if (noprog >= NO_PROGRESS_TRIES) {
			*ret_usage = usage;
			if (run->req->flags & MCG_LIMIT_ALLOW_OOM)
				return 0; /* memory.max does the rest, with the OOM killer */
			if (!run->deadline)
				return -EBUSY;
			mcg__cancel_nap(run->cancel, STALL_NAP_MS);
		}
	}
}

/*
 * After a failure R (of a write, or systemd's refusal): put back every saved
 * value (a conflicting one is left) and say so in FAIL.
 */
static void rollback(struct mcg_txn *t, int r, size_t index, uint64_t usage,
		     struct mcg_limit_failure *fail)
{
	struct mcg_limit_failure f = {0};
	const char *k;

	f.err = r;
	f.index = index;
	if (mcg_group_usage(mcg_txn_group(t), &f.usage) < 0)
		f.usage = usage;
	f.rollback_err = mcg_txn_rollback(t);
	/* a conflict leaves the other writer's value and restores the rest */
	f.rolled_back = f.rollback_err == 0 || f.rollback_err == -MCG_E_CONFLICT;
	(void)mcg_txn_writer_seen(t, &f.writer);
	if (mcg_txn_conflict(t, &k, &f.found, &f.expected) == 0) {
		f.conflict = true;
		snprintf(f.knob, sizeof(f.knob), "%s", k);
	}
	if (fail)
		*fail = f;
}

/* The writes of PLAN; on a failure everything put back (FAIL), else left uncommitted. */
static int apply_writes(struct mcg_txn *t, const struct mcg_limit_req *req,
			struct mcg_limit_plan *plan, const struct mcg_cancel *cancel,
			const struct mcg_limit_ops *ops, struct mcg_limit_failure *fail)
{
	struct run run = {.t = t, .g = mcg_txn_group(t), .req = req, .cancel = cancel, .ops = ops};
	struct mcg_limit_failure f = {0};
	uint64_t usage = 0;
	size_t i;
	int r = 0;

	run.start_ns = mcg_monotonic_ns();
	run.deadline = mcg__cancel_has_deadline(cancel);
	run.step = req->step ? req->step : run.deadline ? DEADLINE_STEP : 0;
	/* Not even a journal once cancelled or past the deadline. */
	r = check(&run);
	if (r < 0)
		goto fail;
	/* Journal every value we may touch before the first write. */
	for (i = 0; i < plan->n; i++) {
		if (plan->w[i].op == MCG_LW_RECLAIM)
			continue;
		r = mcg_txn_save(t, plan->w[i].knob);
		if (r < 0) {
			f.index = i;
			goto fail;
		}
	}
	for (i = 0; i < plan->n; i++) {
		struct mcg_limit_write *w = &plan->w[i];

		f.index = i;
		r = check(&run);
		if (r < 0)
			goto fail;
		switch (w->op) {
		case MCG_LW_RECLAIM:
			r = v2_reclaim(&run, w, &usage);
			w->after = usage;
			break;
		case MCG_LW_SHRINK:
			r = v1_shrink(&run, w, &usage);
			break;
		case MCG_LW_SET:
		case MCG_LW_TEMP:
			r = write_retrying(&run, w->knob, w->value, &usage);
			break;
		}
		if (r < 0)
			goto fail;
		if (w->op != MCG_LW_RECLAIM &&
		    (r = mcg_knob_read_u64(run.g, w->knob, &w->after)) < 0)
			goto fail;
		w->done = true;
	}
	if (mcg_group_usage(run.g, &usage) == 0)
		progress(&run, usage, usage, usage);
	return 0;
fail:
	rollback(t, r, f.index, usage, fail);
	return r;
}

int mcg__limit_apply_plan(struct mcg_txn *t, const struct mcg_limit_req *req,
			  struct mcg_limit_plan *plan, const struct mcg_cancel *cancel,
			  const struct mcg_limit_ops *ops, struct mcg_limit_failure *fail)
{
	int r = apply_writes(t, req, plan, cancel, ops, fail);

	return r < 0 ? r : mcg_txn_commit(t);
}

/* ---- the whole operation ---- */

/* Write permission on every file the request touches, before taking any lock. */
static int check_access(const struct mcg_group *g, const struct mcg_limit_spec *spec,
			struct mcg_limit_error *e)
{
	size_t k;

	for (k = 0; k < MCG_LK__COUNT; k++) {
		const char *f = mcg_limit_knob_file(g->ctx->version, (enum mcg_limit_knob)k);

		if (spec->v[k] && f && faccessat(g->dirfd, f, W_OK, AT_EACCESS) < 0)
			return bad(e, MCG_LB_NONE, (int)k, -errno, f);
	}
	return 0;
}

static int stop_at(struct mcg_limit_result *res, enum mcg_limit_stage stage, int r)
{
	res->stage = stage;
	res->err = r;
	return r;
}

/* After validate(): resolve (under the lock), preflight and plan; the caller hears of the plan. */
static int prepare(struct mcg_group *g, const struct mcg_limit_spec *spec,
		   const struct mcg_limit_ops *ops, struct mcg_limit_result *res)
{
	int r;

	r = resolve_values(g, spec, &res->req, &res->error);
	if (r < 0)
		return stop_at(res, MCG_LS_REQUEST, r);
	r = mcg_limit_preflight(g, &res->req, &res->pre);
	if (r < 0)
		return stop_at(res, MCG_LS_PREFLIGHT, r);
	r = mcg_limit_plan(g, &res->req, &res->pre, &res->plan);
	if (r < 0)
		return stop_at(res, MCG_LS_PLAN, r);
	if (ops && ops->planned)
		ops->planned(ops->userdata, res);
	return 0;
}

/* ---- systemd ---- */

const char *mcg_limit_systemd_property(enum mcg_limit_knob k)
{
	static const char *const prop[MCG_LK__COUNT] = {
		[MCG_LK_MAX] = "MemoryMax", [MCG_LK_HIGH] = "MemoryHigh",
		[MCG_LK_LOW] = "MemoryLow", [MCG_LK_MIN] = "MemoryMin",
		[MCG_LK_SWAP] = "MemorySwapMax",
		/* systemd 253 and newer; 252 answers "unknown property" (then put back) */
		[MCG_LK_ZSWAP_MAX] = "MemoryZSwapMax",
		/* memory.swap.high: no property; systemd never writes the file */
	};

	return (unsigned)k < MCG_LK__COUNT ? prop[k] : NULL;
}

/*
 * Does systemd own G's cgroup, so that the final values go to it? Only on v2
 * (systemd 252 writes MemoryMax= and the others to the unified hierarchy
 * alone) and for the unit's own cgroup: a delegated child is not what the
 * unit's properties set. 0 with SD->used false when not; -errno (D-Bus).
 */
static int systemd_owner(const struct mcg_group *g, unsigned flags, struct mcg_limit_systemd *sd)
{
	int r;

	memset(sd, 0, sizeof(*sd));
	if ((flags & MCG_LIMIT_NO_SYSTEMD) || g->ctx->version != 2)
		return 0;
	r = mcg_unit_owner(g, sd->unit, sizeof(sd->unit));
	if (r < 0) {
		snprintf(sd->why, sizeof(sd->why), "cannot ask systemd which unit owns it: %s",
			 strerror(-r));
		return r;
	}
	sd->used = r > 0;
	sd->runtime = flags & MCG_LIMIT_RUNTIME;
	return 0;
}

/* The request's values as the unit's properties (resolved: bytes, MCG_MAX infinity). */
static void systemd_props(const struct mcg_limit_req *req, struct mcg_limit_systemd *sd)
{
	static const enum mcg_limit_knob order[] = {MCG_LK_MAX, MCG_LK_HIGH, MCG_LK_LOW,
						    MCG_LK_MIN, MCG_LK_SWAP, MCG_LK_ZSWAP_MAX};
	size_t i;

	sd->n = 0;
	for (i = 0; i < MCG_ARRAY_SIZE(order); i++) {
		uint64_t v = req->v[order[i]];

		if (v == MCG_KEEP)
			continue;
		sd->props[sd->n].name = mcg_limit_systemd_property(order[i]);
		/* systemd's infinity is UINT64_MAX, as MCG_MAX */
		sd->props[sd->n].value = v;
		sd->props[sd->n].is_bool = false;
		sd->n++;
	}
	/* nothing systemd keeps (memory.swap.high alone): no call */
	if (!sd->n)
		sd->used = false;
}

int mcg_limit_apply(struct mcg_group *g, const struct mcg_limit_spec *spec,
		    const struct mcg_cancel *cancel, const struct mcg_limit_ops *ops,
		    struct mcg_limit_result *res)
{
	mcg_recover_fn rcb = ops ? ops->recovered : NULL;
	void *ud = ops ? ops->userdata : NULL;
	struct mcg_txn *t = NULL;
	int r;

	memset(res, 0, sizeof(*res));
	res->error.knob = -1;
	mcg_limit_req_init(&res->req);
	if (spec->flags & MCG_LIMIT_DRY_RUN) {
		r = validate(g, spec, &res->req, &res->error);
		if (r < 0)
			return stop_at(res, MCG_LS_REQUEST, r);
		r = systemd_owner(g, spec->flags, &res->systemd);
		if (r < 0)
			return stop_at(res, MCG_LS_SYSTEMD, r);
		/* what a real run would restore first: said, not done */
		mcg_recover(g->ctx, g->path, true, rcb, ud);
		r = prepare(g, spec, ops, res);
		if (r < 0)
			return r;
		if (res->systemd.used)
			systemd_props(&res->req, &res->systemd);
		return stop_at(res, MCG_LS_DONE, 0);
	}
	/* Refuse a wrong request before touching the run directory or any journal. */
	r = validate(g, spec, &res->req, &res->error);
	if (r < 0)
		return stop_at(res, MCG_LS_REQUEST, r);
	r = check_access(g, spec, &res->error);
	if (r < 0)
		return stop_at(res, MCG_LS_ACCESS, r);
	/* Which unit, if any, before anything is written: a D-Bus failure changes nothing. */
	r = systemd_owner(g, spec->flags, &res->systemd);
	if (r < 0)
		return stop_at(res, MCG_LS_SYSTEMD, r);
	r = mcg_txn_begin_recovering(g, spec->flags & MCG_LIMIT_WAIT ? MCG_TXN_WAIT : 0,
				     "set-limit", cancel, rcb, ud, &t);
	if (r < 0)
		return stop_at(res, MCG_LS_LOCK, r);
	snprintf(res->journal, sizeof(res->journal), "%s", mcg_txn_journal_path(t));
	/* The lock is ours: from here on nobody else's memcgctl changes the values read. */
	r = prepare(g, spec, ops, res);
	if (r < 0)
		goto out;
	if (res->pre.verdict == MCG_LV_BELOW_FLOOR) {
		r = stop_at(res, MCG_LS_FLOOR, -ERANGE);
		goto out;
	}
	r = apply_writes(t, &res->req, &res->plan, cancel, ops, &res->fail);
	if (r < 0) {
		stop_at(res, MCG_LS_APPLY, r);
		goto out;
	}
	if (res->systemd.used) {
		struct mcg_limit_systemd *sd = &res->systemd;

		/*
		 * Still under the lock and the journal: systemd checks every property
		 * before it applies one, so a refusal changed nothing and the kernel's
		 * values go back as after a failed write.
		 */
		systemd_props(&res->req, sd);
		r = !sd->used ? 0
			      : mcg_unit_set_properties(sd->unit, sd->runtime, sd->props, sd->n,
							sd->why, sizeof(sd->why));
		if (r < 0) {
			rollback(t, r, res->plan.n, 0, &res->fail);
			stop_at(res, MCG_LS_SYSTEMD, r);
			goto out;
		}
		sd->done = sd->used;
	}
	r = mcg_txn_commit(t);
	stop_at(res, r < 0 ? MCG_LS_APPLY : MCG_LS_DONE, r);
out:
	mcg_txn_free(t);
	return r;
}
