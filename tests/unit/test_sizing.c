/* test_sizing.c: the size probe's controller on synthetic workloads (hot/cold sets, floor, events, back-off, watch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memcg.h"
#include "fx-tmp.h"

#define MIB (1024ULL * 1024)
#define PAGE 4096ULL
#define TICK_NS 1000000000ULL

/*
 * A workload in a cgroup: ANON it cannot give back (no swap), HOT bytes of file
 * cache it touches every tick, COLD bytes it read once. Reclaim takes cold pages
 * first (the inactive list), then hot ones; a hot page taken comes back during
 * the next tick (a refault, and a stall of STALL_PER_PAGE).
 */
struct sim {
	uint64_t anon, hot, cold;
	uint64_t hot_out;  /* hot bytes reclaimed, to refault next tick */
	uint64_t freed;    /* what the last step freed */
	uint64_t stall_per_page_ns;
	uint64_t min_left; /* the lowest usage - ask seen, for the floor check */
	uint64_t ev_oom_kill_at; /* tick at which an OOM kill shows, 0: never */
	unsigned tick;
};

static uint64_t sim_usage(const struct sim *s)
{
	return s->anon + s->hot - s->hot_out + s->cold;
}

static void sim_observe(struct sim *s, struct mcg_size_obs *o, enum mcg_size_signal sig)
{
	uint64_t back = s->hot_out;

	memset(o, 0, sizeof(*o));
	s->tick++;
	/* the workload's loop brings back what the last step took from the hot set */
	s->hot_out = 0;
	o->dt_ns = TICK_NS;
	o->usage = sim_usage(s);
	o->file = s->hot + s->cold;
	o->anon = s->anon;
	o->floor = s->anon;
	o->reclaimed = s->freed;
	o->refault_valid = true;
	o->refault_bytes = back;
	if (sig != MCG_SIZE_SIG_REFAULTS) {
		o->stall_valid = true;
		o->stall_ns = back / PAGE * s->stall_per_page_ns;
	}
	if (s->ev_oom_kill_at && s->tick == s->ev_oom_kill_at)
		o->ev_oom_kill = 1;
	s->freed = 0;
}

static void sim_reclaim(struct sim *s, uint64_t ask)
{
	uint64_t take = ask < s->cold ? ask : s->cold, left;

	assert_true(ask <= sim_usage(s));
	left = sim_usage(s) - ask;
	if (left < s->min_left)
		s->min_left = left;
	s->cold -= take;
	ask -= take;
	if (ask > s->hot - s->hot_out)
		ask = s->hot - s->hot_out;
	s->hot_out += ask;
	s->freed = take + ask;
}

/* Run up to MAX ticks; returns the ticks run. */
static unsigned run(struct mcg_size_ctl *c, struct sim *s, unsigned max)
{
	struct mcg_size_obs o;
	unsigned i;

	for (i = 0; i < max && c->stop == MCG_SIZE_RUNNING; i++) {
		uint64_t ask;

		sim_observe(s, &o, c->sig);
		ask = mcg_size_ctl_tick(c, &o);
		if (ask)
			sim_reclaim(s, ask);
	}
	return i;
}

static void params(struct mcg_size_params *p)
{
	mcg_size_params_init(p, PAGE);
}

static void check_answer_near(const struct mcg_size_answer *a, uint64_t need)
{
	/* the band holds the need, and the answer is within 10% above it */
	assert_true(a->band_n > 0);
	assert_true(a->band_lo <= need + 2 * MIB);
	assert_true(a->band_hi >= need);
	assert_true(a->needed >= need);
	assert_true(a->needed <= need + need / 10);
}

/* Refaults only: hot 200 MiB + anon 40 MiB beside 400 MiB read once. */
static void test_refaults_hot_cold(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_answer a;
	struct sim s = {.anon = 40 * MIB, .hot = 200 * MIB, .cold = 400 * MIB, .min_left = UINT64_MAX};
	unsigned n;

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_REFAULTS);
	n = run(&c, &s, 600);
	assert_int_equal(c.stop, MCG_SIZE_CONVERGED);
	assert_true(n < 600);
	mcg_size_ctl_answer(&c, &a);
	check_answer_near(&a, 240 * MIB);
	assert_false(a.floor_is_answer);
	/* cold: what was above the need at the start; file, since anon stayed */
	assert_int_equal(a.cold, 640 * MIB - a.needed);
	assert_int_equal(a.cold_anon, 0);
	assert_int_equal(a.cold_file, a.cold);
	/* never below the unreclaimable floor plus the margin */
	assert_true(s.min_left >= 40 * MIB + 8 * MIB);
}

/* PSI: each hot page taken costs 100 us of stall when it comes back. */
static void test_psi_hot_cold(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_answer a;
	struct sim s = {.anon = 10 * MIB,
			.hot = 100 * MIB,
			.cold = 300 * MIB,
			.stall_per_page_ns = 100000,
			.min_left = UINT64_MAX};

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	run(&c, &s, 600);
	assert_int_equal(c.stop, MCG_SIZE_CONVERGED);
	mcg_size_ctl_answer(&c, &a);
	check_answer_near(&a, 110 * MIB);
	assert_true(c.backoffs >= MCG_SIZE_BAND_N);
	/* the probe's own stall was seen and counted after the warmup */
	assert_true(c.probe_stall_ns > 0);
	assert_int_equal(c.base_stall_ns, 0);
}

/* Nothing hot: the probe walks down to the floor and says that is the answer. */
static void test_all_cold_floor(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_answer a;
	struct sim s = {.anon = 64 * MIB, .cold = 512 * MIB, .min_left = UINT64_MAX};

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_REFAULTS);
	run(&c, &s, 600);
	assert_int_equal(c.stop, MCG_SIZE_FLOOR);
	mcg_size_ctl_answer(&c, &a);
	assert_true(a.floor_is_answer);
	assert_int_equal(a.band_n, 0);
	assert_true(a.needed >= 64 * MIB + 8 * MIB);
	assert_true(a.needed <= 64 * MIB + 8 * MIB + 2 * MIB);
	assert_true(s.min_left >= 64 * MIB + 8 * MIB);
}

/* The user's floor is never crossed either. */
static void test_user_floor(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct sim s = {.anon = 8 * MIB, .cold = 512 * MIB, .min_left = UINT64_MAX};

	(void)state;
	params(&p);
	p.floor = 300 * MIB;
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_REFAULTS);
	run(&c, &s, 600);
	assert_int_equal(c.stop, MCG_SIZE_FLOOR);
	assert_true(s.min_left >= 300 * MIB);
}

/* An OOM kill (or max/high events) stops the probe at once, with no further step. */
static void test_events_stop(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_obs o = {.dt_ns = TICK_NS, .usage = 500 * MIB, .floor = 0};
	unsigned i;

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	o.stall_valid = true;
	for (i = 0; i < 4; i++)
		mcg_size_ctl_tick(&c, &o);
	assert_int_equal(c.stop, MCG_SIZE_RUNNING);
	o.ev_high = 3;
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(c.stop, MCG_SIZE_EVENTS);
	o.ev_high = 0;
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);

	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	o.ev_oom_kill = 1;
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(c.stop, MCG_SIZE_EVENTS);
	assert_int_equal(c.ev_oom_kill, 1);

	/* the sim's OOM kill at tick 6 stops a run in progress */
	{
		struct sim s = {.hot = 100 * MIB, .cold = 100 * MIB, .ev_oom_kill_at = 6,
				.min_left = UINT64_MAX};

		mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_REFAULTS);
		assert_int_equal(run(&c, &s, 100), 6);
		assert_int_equal(c.stop, MCG_SIZE_EVENTS);
	}
}

/* Warmup ticks only observe: the baseline, no step. */
static void test_warmup_baseline(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_obs o = {.dt_ns = TICK_NS, .usage = 500 * MIB, .stall_valid = true,
				 .stall_ns = 100000};

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(c.base_ns, 2 * TICK_NS);
	assert_int_equal(c.base_stall_ns, 200000);
	/* 0.01% stall is below the 0.1% target: the first step is 1% of usage, scaled down */
	{
		uint64_t ask = mcg_size_ctl_tick(&c, &o);

		assert_true(ask > 0);
		assert_true(ask <= 5 * MIB);
		assert_int_equal(ask % PAGE, 0);
	}
}

/* Cost over the target without a step of ours is held, not taken as the need. */
static void test_cost_without_step(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_obs o = {.dt_ns = TICK_NS, .usage = 500 * MIB, .stall_valid = true,
				 .stall_ns = 5000000}; /* 0.5% */
	unsigned i;

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	for (i = 0; i < 10; i++)
		assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(c.n_adj, 0);
	assert_int_equal(c.stop, MCG_SIZE_RUNNING);
	/* then quiet: steps begin; a cost right after a step is an adjustment at the level */
	o.stall_ns = 0;
	for (i = 0; i < 3 && !c.last_ask; i++)
		mcg_size_ctl_tick(&c, &o);
	assert_true(c.last_ask > 0);
	o.usage -= c.last_ask;
	o.stall_ns = 5000000;
	assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_int_equal(c.n_adj, 1);
	assert_int_equal(c.adj[0].level, 500 * MIB);
	/* and the step halved */
	assert_true(c.step <= p.step_start);
}

/* The step grows while nothing costs and halves on each back-off, within its bounds. */
static void test_step_bounds(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_obs o = {.dt_ns = TICK_NS, .usage = 1000 * MIB, .stall_valid = true};
	uint64_t ask, max_ask = 0;
	unsigned i;

	(void)state;
	params(&p);
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_PSI);
	for (i = 0; i < 20; i++) {
		ask = mcg_size_ctl_tick(&c, &o);
		if (ask > max_ask)
			max_ask = ask;
	}
	assert_true(c.step == p.step_max);
	assert_true(max_ask <= (uint64_t)(1000 * MIB * p.step_max));
	o.stall_ns = 100000000; /* 10% */
	for (i = 0; i < 20; i++)
		assert_int_equal(mcg_size_ctl_tick(&c, &o), 0);
	assert_true(c.step == p.step_min);
}

/* Watch mode: converged, then the working set grows; the answer follows it up. */
static void test_watch_phase_change(void **state)
{
	struct mcg_size_params p;
	struct mcg_size_ctl c;
	struct mcg_size_answer a;
	struct sim s = {.anon = 16 * MIB, .hot = 100 * MIB, .cold = 200 * MIB, .min_left = UINT64_MAX};

	(void)state;
	params(&p);
	p.watch = true;
	mcg_size_ctl_init(&c, &p, MCG_SIZE_SIG_REFAULTS);
	run(&c, &s, 300);
	assert_int_equal(c.stop, MCG_SIZE_RUNNING);
	assert_true(c.converged);
	mcg_size_ctl_answer(&c, &a);
	check_answer_near(&a, 116 * MIB);
	/* phase change: the hot set doubles (the workload reads it back in) */
	s.hot = 200 * MIB;
	run(&c, &s, 300);
	mcg_size_ctl_answer(&c, &a);
	check_answer_near(&a, 216 * MIB);
}

/* The names JSON and text use. */
static void test_names(void **state)
{
	(void)state;
	assert_string_equal(mcg_size_signal_name(MCG_SIZE_SIG_PSI), "psi");
	assert_string_equal(mcg_size_signal_name(MCG_SIZE_SIG_DELAYS), "delays");
	assert_string_equal(mcg_size_signal_name(MCG_SIZE_SIG_REFAULTS), "refaults");
	assert_string_equal(mcg_size_stop_name(MCG_SIZE_CONVERGED), "converged");
	assert_string_equal(mcg_size_stop_name(MCG_SIZE_FLOOR), "floor");
	assert_string_equal(mcg_size_stop_name(MCG_SIZE_CONFLICT), "conflict");
}


/* ---- mcg_size_run on a fake v1 tree: the journalled steps put everything back ---- */

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static uint64_t knob(struct mcg_group *g, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(mcg_knob_read_u64(g, name, &v), 0);
	return v;
}

/* /app: usage 400 MiB, limit 512 MiB, 300 MiB of inactive file, 20 MiB anon, no tasks */
static void fx_v1(const char *dir, struct mcg_ctx **ctx, struct mcg_group **g)
{
	char d[256];

	snprintf(d, sizeof(d), "%s/proc", dir);
	mkdir(d, 0755);
	put(d, "meminfo", "MemTotal: 16777216 kB\nSwapFree: 0 kB\n");
	snprintf(d, sizeof(d), "%s/root", dir);
	mkdir(d, 0755);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	put(d, "memory.usage_in_bytes", "0\n");
	strcat(d, "/app");
	mkdir(d, 0755);
	put(d, "memory.usage_in_bytes", "419430400\n");
	put(d, "memory.limit_in_bytes", "536870912\n");
	put(d, "memory.stat", "total_cache 398458880\ntotal_rss 20971520\ntotal_inactive_file "
			      "314572800\ntotal_active_file 83886080\ntotal_workingset_refault_file 0\n");
	put(d, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	put(d, "cgroup.procs", "");
	snprintf(d, sizeof(d), "%s/root", dir);
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, ctx), 0);
	snprintf(d, sizeof(d), "%s/proc", dir);
	assert_int_equal(mcg_ctx_set_procfs(*ctx, d), 0);
	snprintf(d, sizeof(d), "%s/run", dir);
	assert_int_equal(mcg_ctx_set_rundir(*ctx, d), 0);
	assert_int_equal(mcg_group_open(*ctx, "/app", g), 0);
}

static void test_run_v1_steps_restored(void **state)
{
	static volatile sig_atomic_t flag;
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_cancel c;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char dir[64] = "/tmp/test_sizing.XXXXXX", cmd[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, &ctx, &g);
	mcg_size_params_init(&o.p, PAGE);
	o.interval_ms = 50;
	/* the deadline ends it: usage never moves in a tree of plain files */
	flag = 0;
	mcg_cancel_init(&c, 700, &flag);
	assert_int_equal(mcg_size_run(g, &o, &c, &res), 0);
	assert_int_equal(res.stop, MCG_SIZE_TIMEOUT);
	assert_int_equal(res.sig, MCG_SIZE_SIG_REFAULTS); /* v1, no task_delayacct here */
	assert_string_equal(res.method, "limit-steps");
	assert_true(res.steps > 0);
	assert_true(res.writes >= 2 * res.steps); /* each step lowered and wrote the original back */
	assert_int_equal(res.limit_before, 512 << 20);
	assert_int_equal(res.limit_after, 512 << 20);
	assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);
	/* the floor: 20 MiB of anon without swap */
	assert_int_equal(res.floor, 20 << 20);
	assert_int_equal(res.usage_start, 400 << 20);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal' 2>/dev/null)\"", dir);
	assert_int_equal(system(cmd), 0);

	/* the flag: interrupted before the first tick, nothing written */
	flag = SIGINT;
	mcg_cancel_init(&c, 0, &flag);
	assert_int_equal(mcg_size_run(g, &o, &c, &res), 0);
	assert_int_equal(res.stop, MCG_SIZE_INTERRUPTED);
	assert_int_equal(res.steps, 0);
	assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);

	/* a dry run writes nothing and takes no lock: the first step it would take */
	flag = 0;
	o.dry_run = true;
	assert_int_equal(mcg_size_run(g, &o, NULL, &res), 0);
	assert_int_equal(res.stop, MCG_SIZE_RUNNING);
	assert_string_equal(res.method, "dry-run");
	assert_int_equal(res.writes, 0);
	assert_true(res.first_step >= 256 * PAGE);
	assert_true(res.first_step <= (400 << 20) / 100);
	assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);

	/* the root cgroup is refused */
	mcg_group_close(g);
	assert_int_equal(mcg_group_open(ctx, "/", &g), 0);
	o.dry_run = false;
	assert_int_equal(mcg_size_run(g, &o, NULL, &res), -EPERM);

	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/*
 * The probe tick by tick with the lock for each step only (reclaimd --size): no lock and no
 * journal between ticks (another memcgctl's transaction begins), a tick while one holds the
 * lock takes no step, a step is no larger than the caller's bound, the limit is back after
 * each tick; the end says why it stopped.
 */
static void test_probe_step_lock(void **state)
{
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_size_probe *p;
	struct mcg_size_tick tk;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	struct mcg_txn *t;
	char dir[64] = "/tmp/test_sizing.XXXXXX", cmd[256];
	uint64_t steps = 0;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, &ctx, &g);
	mcg_size_params_init(&o.p, PAGE);
	o.p.watch = true;
	assert_int_equal(mcg_size_probe_new(g, &o, MCG_SIZE_PROBE_STEP_LOCK, NULL, &p), 0);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal' 2>/dev/null)\"", dir);
	for (i = 0; i < 8; i++) {
		assert_int_equal(mcg_size_probe_tick(p, 2 << 20, NULL, &tk), 0);
		assert_int_equal(tk.stop, MCG_SIZE_RUNNING);
		assert_false(tk.locked);
		assert_true(tk.asked <= 2 << 20);
		assert_int_equal(tk.asked % PAGE, 0);
		steps += tk.asked != 0;
		assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);
		assert_int_equal(system(cmd), 0); /* no journal between ticks */
		/* nor the lock: another memcgctl's transaction takes it */
		assert_int_equal(mcg_txn_begin(g, 0, "set-limit", &t), 0);
		mcg_txn_free(t);
	}
	assert_true(steps >= 4); /* after the two ticks of the baseline */
	/* held by another: the tick reads and accounts, but takes no step */
	assert_int_equal(mcg_txn_begin(g, 0, "set-limit", &t), 0);
	assert_int_equal(mcg_size_probe_tick(p, 0, NULL, &tk), 0);
	assert_true(tk.locked);
	assert_int_equal(tk.asked, 0);
	mcg_txn_free(t);
	assert_int_equal(mcg_size_probe_end(p, MCG_SIZE_INTERRUPTED, &res), 0);
	mcg_size_probe_free(p);
	assert_int_equal(res.stop, MCG_SIZE_INTERRUPTED);
	assert_int_equal(res.steps, steps);
	assert_true(res.writes >= 2 * steps); /* each step lowered and wrote the original back */
	assert_int_equal(res.limit_after, 512 << 20);
	assert_string_equal(res.method, "limit-steps");
	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/* the one file in DIR/run/size into BUF (its path); false if none */
static bool state_file(const char *dir, char *buf, size_t len)
{
	char cmd[256];
	FILE *f;
	bool ok;

	snprintf(cmd, sizeof(cmd), "ls -A '%s/run/size' 2>/dev/null | grep -v '^\\.'", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	snprintf(buf, len, "%s/run/size/", dir);
	ok = fgets(buf + strlen(buf), (int)(len - strlen(buf)), f) != NULL;
	pclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* The last answer is kept for show: written by a run with an answer, read back only as written. */
static void test_state(void **state)
{
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_size_state st = {0}, back;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char dir[64] = "/tmp/test_sizing.XXXXXX", path[512], cmd[1200];
	uint64_t t0;
	struct {
		const char *sh; /* run on the kept file ($F) */
		int want;
	} bad[] = {
		{"printf 'x\\n' >>\"$F\"", -EBADMSG},			 /* a line more */
		{"sed -i 's/^needed .*/needed 12a/' \"$F\"", -EBADMSG},	 /* not a number */
		{"sed -i 's/^needed .*/needed -1/' \"$F\"", -EBADMSG},
		{"sed -i 's/^cold_anon .*/cold_anon 1/' \"$F\"", -EBADMSG}, /* file + anon != cold */
		{"sed -i 's/^stop .*/stop bogus/' \"$F\"", -EBADMSG},
		{"sed -i 's/^method .*/method ..\\/x/' \"$F\"", -EBADMSG},
		{"sed -i '1d' \"$F\"", -EBADMSG},				 /* no magic line */
		{"yes | head -c 1000 >\"$F\"", -EBADMSG},			 /* too long */
		{"mv \"$F\" \"$F.x\" && ln -s \"$F.x\" \"$F\"", -MCG_E_UNTRUSTED}, /* a symlink */
		{"rm \"$F\" && mkfifo \"$F\"", -MCG_E_UNTRUSTED},		 /* not a regular file */
		{"[ \"$(id -u)\" = 0 ] && chown 4321 \"$F\"", -MCG_E_UNTRUSTED}, /* another owner */
		{"rm \"$F\"", -ENOENT},
	};
	size_t k, ran = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, &ctx, &g);
	/* no run yet: nothing kept, and no run directory needed to say so */
	assert_int_equal(mcg_size_state_read(g, &back), -ENOENT);
	/* a run that meets the user's floor at once: the floor is the answer, kept */
	mcg_size_params_init(&o.p, PAGE);
	o.interval_ms = 50;
	o.p.floor = 399ULL << 20;
	t0 = (uint64_t)time(NULL) * 1000000000ULL;
	assert_int_equal(mcg_size_run(g, &o, NULL, &res), 0);
	assert_int_equal(res.stop, MCG_SIZE_FLOOR);
	assert_int_equal(res.state_err, 0);
	assert_int_equal(mcg_size_state_read(g, &back), 0);
	assert_int_equal(back.needed, res.ans.needed);
	assert_int_equal(back.cold, res.ans.cold);
	assert_int_equal(back.cold_file, res.ans.cold_file);
	assert_int_equal(back.cold_anon, res.ans.cold_anon);
	assert_int_equal(back.stop, MCG_SIZE_FLOOR);
	assert_int_equal(back.sig, MCG_SIZE_SIG_REFAULTS);
	assert_string_equal(back.method, "limit-steps");
	assert_true(back.time_ns >= t0);
	assert_true(state_file(dir, path, sizeof(path)));
	/* a dry run keeps nothing new */
	o.dry_run = true;
	assert_int_equal(mcg_size_run(g, &o, NULL, &res), 0);
	assert_int_equal(mcg_size_state_read(g, &back), 0);
	assert_int_equal(back.stop, MCG_SIZE_FLOOR);

	/* written and read back exactly; then each way of tampering with it is refused */
	st.needed = 123 << 20;
	st.cold = 7 << 20;
	st.cold_file = 5 << 20;
	st.cold_anon = 2 << 20;
	st.split_valid = true;
	st.time_ns = 1764000000000000000ULL;
	st.stop = MCG_SIZE_CONVERGED;
	st.sig = MCG_SIZE_SIG_PSI;
	strcpy(st.method, "memory.reclaim");
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(mcg_size_state_write(g, &st), 0);
		memset(&back, 0, sizeof(back));
		assert_int_equal(mcg_size_state_read(g, &back), 0);
		assert_memory_equal(&back, &st, sizeof(st));
		snprintf(cmd, sizeof(cmd), "F='%s'; rm -f \"$F.x\"; %s", path, bad[k].sh);
		if (system(cmd) != 0)
			continue; /* chown: not root */
		ran++;
		assert_int_equal(mcg_size_state_read(g, &back), bad[k].want);
		snprintf(cmd, sizeof(cmd), "F='%s'; rm -f \"$F\" \"$F.x\"", path);
		assert_int_equal(system(cmd), 0);
	}
	assert_true(ran >= sizeof(bad) / sizeof(bad[0]) - 1);
	/* what the writer refuses to write */
	st.stop = (enum mcg_size_stop)99;
	assert_int_equal(mcg_size_state_write(g, &st), -EINVAL);
	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/* Many cgroups' answers through one handle (export, top, record): the same reader, per path. */
static void test_states(void **state)
{
	struct mcg_size_state st = {0}, back;
	struct mcg_size_states *ss;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char dir[64] = "/tmp/test_sizing.XXXXXX", path[512], cmd[600];

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, &ctx, &g);
	/* none kept at all: no handle, and a NULL handle has none either */
	assert_int_equal(mcg_size_states_open(ctx, &ss), -ENOENT);
	assert_int_equal(mcg_size_states_get(NULL, "/app", &back), -ENOENT);
	st.needed = 300 << 20;
	st.cold = 100 << 20;
	st.cold_file = 100 << 20;
	st.time_ns = 1764000000000000000ULL;
	st.stop = MCG_SIZE_FLOOR;
	st.sig = MCG_SIZE_SIG_DELAYS;
	strcpy(st.method, "limit-steps");
	assert_int_equal(mcg_size_state_write(g, &st), 0);
	assert_int_equal(mcg_size_states_open(ctx, &ss), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(mcg_size_states_get(ss, mcg_group_path(g), &back), 0);
	assert_memory_equal(&back, &st, sizeof(st));
	/* a cgroup without one: -ENOENT (one failed openat) */
	assert_int_equal(mcg_size_states_get(ss, "/other", &back), -ENOENT);
	/* the same trust rules as mcg_size_state_read: a link is refused */
	assert_true(state_file(dir, path, sizeof(path)));
	snprintf(cmd, sizeof(cmd), "F='%s'; mv \"$F\" \"$F.x\" && ln -s \"$F.x\" \"$F\"", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mcg_size_states_get(ss, mcg_group_path(g), &back), -MCG_E_UNTRUSTED);
	mcg_size_states_close(ss);
	mcg_size_states_close(NULL);
	/*
	 * The handle makes each name itself: the same as the writer's for a '%' in
	 * a path and for a path long enough to be hashed (nested cgroups, 240 bytes)
	 */
	{
		static const char *const paths[] = {
			"/app/a%2fb",
			"/app/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			"/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
			"/cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
		};
		size_t k;

		for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
			struct mcg_group *g2;
			char d[1024], *sl;

			snprintf(d, sizeof(d), "%s/root%s", dir, paths[k]);
			/* each component a cgroup directory (v1: usage and limit) */
			for (sl = d + strlen(dir) + strlen("/root/app"); sl; sl = strchr(sl + 1, '/')) {
				*sl = '\0';
				mkdir(d, 0755);
				put(d, "memory.usage_in_bytes", "0\n");
				put(d, "memory.limit_in_bytes", "9223372036854771712\n");
				*sl = '/';
			}
			mkdir(d, 0755);
			put(d, "memory.usage_in_bytes", "0\n");
			put(d, "memory.limit_in_bytes", "9223372036854771712\n");
			assert_int_equal(mcg_group_open(ctx, paths[k], &g2), 0);
			st.needed = (uint64_t)(k + 1) << 20;
			assert_int_equal(mcg_size_state_write(g2, &st), 0);
			mcg_group_close(g2);
			assert_int_equal(mcg_size_states_open(ctx, &ss), 0);
			memset(&back, 0, sizeof(back));
			assert_int_equal(mcg_size_states_get(ss, paths[k], &back), 0);
			assert_memory_equal(&back, &st, sizeof(st));
			mcg_size_states_close(ss);
		}
	}
	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/* The answer as the recorder stores it (MCG_HEV_SIZE) and back; what it does not write is refused. */
static void test_state_event(void **state)
{
	struct mcg_size_state st = {0}, back;
	struct mcg_hist_event ev, e2;
	char buf[200], d2[240];
	static const char *const bad[] = {
		"v1 cold=7 cold_file=5 cold_anon=2 split=1 signal=psi",	/* no method */
		"v1 cold=7 cold_file=5 cold_anon=2 split=2 signal=psi method=memory.reclaim",
		"v1 cold=07 cold_file=5 cold_anon=2 split=1 signal=psi method=memory.reclaim",
		"v1 cold=7 cold_file=5 cold_anon=2 split=1 signal=bogus method=memory.reclaim",
		"v1 cold=7 cold_file=5 cold_anon=2 split=1 signal=psi method=../x",
		"v1 cold=7 cold_file=5 cold_anon=2 split=1 signal=psi method=memory.reclaimX",
		"v2 cold=7",
		"",
	};
	size_t k;

	(void)state;
	st.needed = 123 << 20;
	st.cold = 7;
	st.cold_file = 5;
	st.cold_anon = 2;
	st.split_valid = true;
	st.time_ns = 1764000000000000000ULL;
	st.stop = MCG_SIZE_CONVERGED;
	st.sig = MCG_SIZE_SIG_PSI;
	strcpy(st.method, "memory.reclaim");
	assert_int_equal(mcg_size_state_to_event(&st, "/web", &ev, buf, sizeof(buf)), 0);
	assert_int_equal(ev.type, MCG_HEV_SIZE);
	assert_string_equal(mcg_hist_event_name(ev.type), "size_answer");
	assert_int_equal(ev.count, st.needed);
	assert_int_equal(ev.time_ns, st.time_ns);
	assert_string_equal(ev.cgroup, "/web");
	assert_string_equal(ev.op, "converged");
	assert_int_equal(ev.uid, -1);
	memset(&back, 0, sizeof(back));
	assert_int_equal(mcg_size_state_from_event(&ev, &back), 0);
	assert_memory_equal(&back, &st, sizeof(st));
	/* a later version's keys after these are skipped */
	snprintf(d2, sizeof(d2), "%s band_lo=5", buf);
	e2 = ev;
	e2.detail = d2;
	assert_int_equal(mcg_size_state_from_event(&e2, &back), 0);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		e2 = ev;
		e2.detail = bad[k];
		assert_int_equal(mcg_size_state_from_event(&e2, &back), -MCG_E_CORRUPT);
	}
	e2 = ev;
	e2.op = "bogus";
	assert_int_equal(mcg_size_state_from_event(&e2, &back), -MCG_E_CORRUPT);
	e2 = ev;
	e2.type = MCG_HEV_CHANGE;
	assert_int_equal(mcg_size_state_from_event(&e2, &back), -MCG_E_CORRUPT);
	assert_int_equal(mcg_size_state_to_event(&st, "web", &ev, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mcg_size_state_to_event(&st, "/web", &ev, buf, 10), -ENOSPC);
}

/* A fake v2 tree: /app with 200 MiB current, memory.high max; memory.reclaim when RECLAIM. */
static void fx_v2(const char *dir, bool reclaim, struct mcg_ctx **ctx, struct mcg_group **g)
{
	char d[256];

	snprintf(d, sizeof(d), "%s/proc", dir);
	mkdir(d, 0755);
	put(d, "meminfo", "MemTotal: 16777216 kB\nSwapFree: 0 kB\n");
	snprintf(d, sizeof(d), "%s/root", dir);
	mkdir(d, 0755);
	put(d, "cgroup.controllers", "memory\n");
	put(d, "cgroup.subtree_control", "memory\n");
	strcat(d, "/app");
	mkdir(d, 0755);
	put(d, "cgroup.controllers", "memory\n");
	put(d, "cgroup.procs", "");
	put(d, "memory.current", "209715200\n");
	put(d, "memory.max", "max\n");
	put(d, "memory.high", "max\n");
	put(d, "memory.low", "0\n");
	put(d, "memory.min", "0\n");
	put(d, "memory.stat", "anon 10485760\nfile 199229440\nkernel 0\nshmem 0\n"
			      "inactive_file 150000000\nworkingset_refault_file 0\n");
	put(d, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	put(d, "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	if (reclaim)
		put(d, "memory.reclaim", "");
	snprintf(d, sizeof(d), "%s/root", dir);
	assert_int_equal(mcg_ctx_new_root(d, 2, NULL, NULL, ctx), 0);
	snprintf(d, sizeof(d), "%s/proc", dir);
	assert_int_equal(mcg_ctx_set_procfs(*ctx, d), 0);
	snprintf(d, sizeof(d), "%s/run", dir);
	assert_int_equal(mcg_ctx_set_rundir(*ctx, d), 0);
	assert_int_equal(mcg_group_open(*ctx, "/app", g), 0);
}

/* v2: memory.reclaim written, PSI the signal; without memory.reclaim a temporary memory.high, put back */
static void test_run_v2(void **state)
{
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_cancel c;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char dir[64] = "/tmp/test_sizing.XXXXXX", cmd[256], buf[64];
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		bool reclaim = pass == 0;

		strcpy(dir, "/tmp/test_sizing.XXXXXX");
		assert_non_null(mkdtemp(dir));
		fx_v2(dir, reclaim, &ctx, &g);
		mcg_size_params_init(&o.p, PAGE);
		o.interval_ms = 50;
		mcg_cancel_init(&c, 500, NULL);
		assert_int_equal(mcg_size_run(g, &o, &c, &res), 0);
		assert_int_equal(res.stop, MCG_SIZE_TIMEOUT);
		assert_int_equal(res.sig, MCG_SIZE_SIG_PSI);
		assert_true(res.stall_valid);
		assert_true(res.steps > 0);
		assert_int_equal(res.floor, 10 << 20);
		if (reclaim) {
			assert_string_equal(res.method, "memory.reclaim");
			/* the last step's request, in bytes */
			assert_true(mcg_knob_read(g, "memory.reclaim", buf, sizeof(buf)) > 0);
			assert_true(strtoull(buf, NULL, 10) >= 256 * PAGE);
		} else {
			assert_string_equal(res.method, "memory.high");
		}
		/* memory.high as it was, memory.max never written */
		assert_int_equal(knob(g, "memory.high"), MCG_MAX);
		assert_true(mcg_knob_read(g, "memory.max", buf, sizeof(buf)) > 0);
		assert_string_equal(buf, "max\n"); /* untouched: still the fixture's bytes */
		/*
		 * Without memory.reclaim the steps wrote memory.high and the last write put max
		 * back (memcgctl writes no newline: the fixture file shows it); with it, untouched.
		 */
		assert_true(mcg_knob_read(g, "memory.high", buf, sizeof(buf)) > 0);
		assert_string_equal(buf, reclaim ? "max\n" : "max");
		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal' 2>/dev/null)\"", dir);
		assert_int_equal(system(cmd), 0);
		mcg_group_close(g);
		mcg_ctx_free(ctx);
		assert_int_equal(fx_rmtree(dir), 0);
	}
}

/*
 * ---- the memory.high fallback on a fake kernel: its own high events are no stop ----
 *
 * Before 5.19 (no memory.reclaim) a step is a temporary memory.high below usage. While it
 * stands, every charge the workload makes over it raises "high" in memory.events (the
 * kernel's reclaim_high on the way back to user space), so a probe reading those events as
 * "the cgroup at its own limit" stopped after its first step. The fake kernel: pwrite is
 * wrapped (-Wl,--wrap=pwrite, tests/CMakeLists.txt); a number below memory.current written
 * to /app/memory.high bumps /app/memory.events "high" at once, as the workload's charges
 * during that step would.
 */
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
static char fake_app[256]; /* the fake /app directory; empty: no fake kernel */
static unsigned fake_bumped; /* high events the fake kernel raised in the probe's steps */

struct fake_events {
	unsigned long long low, high, max, oom, oom_kill;
};

static void events_rw(struct fake_events *ev, bool write_back)
{
	char path[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.events", fake_app);
	if (write_back) {
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "low %llu\nhigh %llu\nmax %llu\noom %llu\noom_kill %llu\n", ev->low,
			ev->high, ev->max, ev->oom, ev->oom_kill);
	} else {
		f = fopen(path, "r");
		assert_non_null(f);
		assert_int_equal(fscanf(f, "low %llu high %llu max %llu oom %llu oom_kill %llu",
					&ev->low, &ev->high, &ev->max, &ev->oom, &ev->oom_kill),
				 5);
	}
	fclose(f);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	char link[64], target[320], want[320], val[32];
	ssize_t len;

	if (fake_app[0] && n < sizeof(val)) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, target, sizeof(target) - 1);
		snprintf(want, sizeof(want), "%s/memory.high", fake_app);
		if (len > 0 && (target[len] = '\0', !strcmp(target, want))) {
			char *end;
			unsigned long long v;

			memcpy(val, buf, n);
			val[n] = '\0';
			v = strtoull(val, &end, 10);
			if (end != val && *end == '\0' && v < 209715200ULL) { /* fx_v2's memory.current */
				struct fake_events ev;

				events_rw(&ev, false);
				ev.high += 7; /* the workload charged over our high a few times */
				events_rw(&ev, true);
				fake_bumped += 7;
			}
		}
	}
	return __real_pwrite(fd, buf, n, off);
}

/* A tick's progress: at BUMP_AT, one event of the kind asked raised by someone else. */
struct bump {
	unsigned ticks, at;
	char kind; /* 'h' high (the user's own memory.high), 'm' max, 'k' oom_kill */
};

static void bump_progress(void *userdata, const struct mcg_size_progress *p)
{
	struct bump *b = userdata;
	struct fake_events ev;

	(void)p;
	if (++b->ticks != b->at)
		return;
	events_rw(&ev, false);
	if (b->kind == 'h')
		ev.high++;
	else if (b->kind == 'm')
		ev.max++;
	else
		ev.oom_kill++;
	events_rw(&ev, true);
}

static void test_run_v2_high_events(void **state)
{
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_cancel c;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	struct bump b;
	char dir[64], cmd[256];
	const char kinds[] = {0, 'h', 'm', 'k'};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(kinds); k++) {
		strcpy(dir, "/tmp/test_sizing.XXXXXX");
		assert_non_null(mkdtemp(dir));
		fx_v2(dir, false, &ctx, &g);
		snprintf(fake_app, sizeof(fake_app), "%s/root/app", dir);
		fake_bumped = 0;
		mcg_size_params_init(&o.p, PAGE);
		o.interval_ms = 50;
		memset(&b, 0, sizeof(b));
		b.at = kinds[k] ? 6 : 0; /* after the warmup and three steps */
		b.kind = kinds[k];
		o.progress = bump_progress;
		o.userdata = &b;
		/* no bump: the deadline ends it; a bump: the event does, long before this one */
		mcg_cancel_init(&c, kinds[k] ? 30000 : 1500, NULL);
		assert_int_equal(mcg_size_run(g, &o, &c, &res), 0);
		assert_string_equal(res.method, "memory.high");
		/* the fake kernel saw our temporary high below usage */
		assert_true(fake_bumped > 0);
		if (!kinds[k]) {
			/*
			 * Only the probe's own high events: not a stop. The deadline ends it (usage
			 * never moves in a tree of plain files), after many steps, all counted.
			 */
			assert_int_equal(res.stop, MCG_SIZE_TIMEOUT);
			assert_true(res.steps > 3);
			assert_int_equal(res.ev_high, 0);
			assert_int_equal(res.ev_high_probe, fake_bumped);
			assert_int_equal(res.ev_high_probe, 7 * res.steps);
		} else {
			/* an event outside the probe's steps stops it at the next tick */
			assert_int_equal(res.stop, MCG_SIZE_EVENTS);
			assert_int_equal(res.steps, 4);
			assert_int_equal(res.ev_high, kinds[k] == 'h');
			assert_int_equal(res.ev_max, kinds[k] == 'm');
			assert_int_equal(res.ev_oom_kill, kinds[k] == 'k');
			assert_int_equal(res.ev_high_probe, 7 * res.steps);
		}
		/* memory.high put back, memory.max never written, no journal */
		assert_int_equal(knob(g, "memory.high"), MCG_MAX);
		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal' 2>/dev/null)\"", dir);
		assert_int_equal(system(cmd), 0);
		fake_app[0] = '\0';
		mcg_group_close(g);
		mcg_ctx_free(ctx);
		assert_int_equal(fx_rmtree(dir), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refaults_hot_cold),
		cmocka_unit_test(test_psi_hot_cold),
		cmocka_unit_test(test_all_cold_floor),
		cmocka_unit_test(test_user_floor),
		cmocka_unit_test(test_events_stop),
		cmocka_unit_test(test_warmup_baseline),
		cmocka_unit_test(test_cost_without_step),
		cmocka_unit_test(test_step_bounds),
		cmocka_unit_test(test_watch_phase_change),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_run_v1_steps_restored),
		cmocka_unit_test(test_probe_step_lock),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_state_event),
		cmocka_unit_test(test_run_v2),
		cmocka_unit_test(test_run_v2_high_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
