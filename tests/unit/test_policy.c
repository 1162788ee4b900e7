/* test_policy.c: the async-reclaim policy (CPU budget, thrash back-off, clean-cache skip, timers, keeping up, writeback-bound). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memcg.h"

#define NS MCG_POLICY_NSEC
#define MS MCG_POLICY_MSEC
#define MIB (1024ULL * 1024)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The named numbers are today's: changing one changes the daemon's behaviour. */
static void test_constants(void **state)
{
	(void)state;
	assert_int_equal(MCG_POLICY_FALLBACK_NS, 1 * NS);
	assert_int_equal(MCG_POLICY_BUDGET_BURST_NS, NS / 2);
	assert_int_equal(MCG_POLICY_BUDGET_SLACK_NS, 1 * MS);
	assert_int_equal(MCG_POLICY_THRASH_BACKOFF_MIN_NS, 5 * NS);
	assert_int_equal(MCG_POLICY_THRASH_BACKOFF_MAX_NS, 120 * NS);
	assert_int_equal(MCG_POLICY_THRASH_WINDOW_MIN, 64 * MIB);
	assert_int_equal(MCG_POLICY_THRASH_WINDOW_GAPS, 8);
	assert_true(MCG_POLICY_THRASH_RATIO == 1.0);
	assert_int_equal(MCG_POLICY_DIRTY_SHARE, 16);
	assert_int_equal(MCG_POLICY_ADAPTIVE_MIN_NS, 10 * MS);
}

/* Refill: tokens after init at T0, then refill at T1, for a max_cpu. */
static void test_budget_refill(void **state)
{
	static const struct {
		double max_cpu;
		double spend;   /* spent after init */
		uint64_t t0, t1;
		double tokens;  /* expected after the refill at t1 */
	} cases[] = {
		/* a full bucket: 0.5 s of wall time at max_cpu */
		{5.0, 0, 100 * NS, 100 * NS, 0.025 * NS},
		{100.0, 0, 0, 0, 0.5 * NS},
		/* full stays full however long it waits */
		{5.0, 0, 0, 3600 * NS, 0.025 * NS},
		/* spent the bucket and 0.01 s more, then 0.1 s at 5%: 0.005 s back */
		{5.0, 35 * MS, 10 * NS, 10 * NS + 100 * MS, -0.005 * NS},
		/* overrun by 1 s, 10 s at 5% pays 0.5 s of it */
		{5.0, 1 * NS + 25 * MS, 10 * NS, 20 * NS, -0.5 * NS},
		/* the clock went back: nothing earned */
		{5.0, 25 * MS, 10 * NS, 9 * NS, 0},
		/* no CPU share: never refilled, an empty bucket */
		{0, 0, 0, 100 * NS, 0},
		/* huge times: capped */
		{100.0, 0, 0, UINT64_MAX, 0.5 * NS},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct mcg_policy_budget b;

		mcg_policy_budget_init(&b, cases[i].max_cpu, cases[i].t0);
		mcg_policy_budget_spend(&b, (uint64_t)cases[i].spend);
		mcg_policy_budget_refill(&b, cases[i].t1);
		assert_true(b.tokens_ns > cases[i].tokens - 1 && b.tokens_ns < cases[i].tokens + 1);
		assert_int_equal(b.refill_ns, cases[i].t1);
	}
}

/* A clock that goes back, then forward again, earns only the forward part from the new reference. */
static void test_budget_clock_back(void **state)
{
	struct mcg_policy_budget b;

	(void)state;
	mcg_policy_budget_init(&b, 10.0, 100 * NS);
	mcg_policy_budget_spend(&b, (uint64_t)(0.05 * NS)); /* empty */
	mcg_policy_budget_refill(&b, 50 * NS);              /* back 50 s */
	assert_true(b.tokens_ns > -1 && b.tokens_ns < 1);
	mcg_policy_budget_refill(&b, 50 * NS + NS / 4); /* 0.25 s at 10% from 50 s, not from 100 s */
	assert_true(b.tokens_ns > 0.025 * NS - 1 && b.tokens_ns < 0.025 * NS + 1);
}

static void test_budget_exhausted_wait(void **state)
{
	static const struct {
		double max_cpu, tokens;
		uint64_t used;
		bool exhausted;
		uint64_t wait;
	} cases[] = {
		{5.0, 0.1 * NS, 0, false, 0},
		{5.0, 0.1 * NS, 0.05 * NS, false, 0},
		{5.0, 0.1 * NS, 0.1 * NS, true, 0}, /* spent exactly: stop */
		/* nothing left: wait until the refill is back to zero, and 1 ms */
		{5.0, 0, 0, true, 1 * MS},
		{5.0, -0.05 * NS, 0, true, 1 * NS + 1 * MS},
		{100.0, -1.0 * NS, 0, true, 1 * NS + 1 * MS},
		{0.001, -1.0 * MS, 0, true, 100 * NS + 1 * MS},
		/* no CPU share, or an absurd debt: the longest wait, never an overflow */
		{0, 0, 0, true, MCG_POLICY_WAIT_MAX_NS},
		{0.001, -1e30, 0, true, MCG_POLICY_WAIT_MAX_NS},
		{5.0, 0.1 * NS, UINT64_MAX, true, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct mcg_policy_budget b = {.tokens_ns = cases[i].tokens, .max_cpu = cases[i].max_cpu};
		uint64_t w = mcg_policy_budget_wait(&b);

		assert_int_equal(mcg_policy_budget_exhausted(&b, cases[i].used), cases[i].exhausted);
		/* a double's rounding: within 1 us */
		assert_true(w + 1000 >= cases[i].wait && w <= cases[i].wait + 1000);
	}
}

static void test_thrash_window(void **state)
{
	static const struct {
		uint64_t high, low, window;
	} cases[] = {
		{100 * MIB, 90 * MIB, 80 * MIB},
		{100 * MIB, 99 * MIB, 64 * MIB},   /* the floor */
		{100 * MIB, 100 * MIB, 64 * MIB},  /* no gap */
		{100 * MIB, 200 * MIB, 64 * MIB},  /* crossed: no gap */
		{UINT64_MAX, 0, UINT64_MAX},       /* saturates */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		assert_int_equal(mcg_policy_thrash_window(cases[i].high, cases[i].low),
				 cases[i].window);
}

/*
 * A sequence of bursts: each reclaims R bytes, then (if the policy wants a
 * sample) the refault counter reads F (KNOWN) at time T; the verdict, the
 * refaults of the closed window, the back-off and the ratio that follow.
 */
struct tstep {
	uint64_t reclaimed;
	bool known;
	uint64_t refault, t;
	bool wants;
	enum mcg_policy_thrash_verdict v;
	uint64_t refaulted, backoff, until;
};

static void run_thrash(const struct tstep *s, size_t n)
{
	const uint64_t high = 100 * MIB, low = 90 * MIB; /* a window of 80 MiB */
	struct mcg_policy_thrash t = {0};
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t refaulted = 12345;
		enum mcg_policy_thrash_verdict v = MCG_POLICY_THRASH_OPEN;

		mcg_policy_thrash_reclaimed(&t, s[i].reclaimed);
		assert_int_equal(mcg_policy_thrash_wants_sample(&t, high, low), s[i].wants);
		if (s[i].wants)
			v = mcg_policy_thrash_sample(&t, high, low, s[i].known, s[i].refault, s[i].t,
						     &refaulted);
		assert_int_equal(v, s[i].v);
		if (v != MCG_POLICY_THRASH_OPEN)
			assert_int_equal(refaulted, s[i].refaulted);
		assert_int_equal(t.backoff_ns, s[i].backoff);
		if (v == MCG_POLICY_THRASH_BACKOFF) {
			assert_int_equal(t.until_ns, s[i].until);
			assert_true(mcg_policy_thrash_backing_off(&t, s[i].t));
			assert_true(mcg_policy_thrash_backing_off(&t, s[i].until - 1));
			assert_false(mcg_policy_thrash_backing_off(&t, s[i].until));
		}
	}
}

static void test_thrash_backoff_doubles_and_decays(void **state)
{
	static const struct tstep s[] = {
		/* the first burst takes the base; the window starts empty */
		{50 * MIB, true, 1000 * MIB, 1 * NS, true, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		/* 40 MiB: the window (80 MiB) is not full, no sample wanted */
		{40 * MIB, true, 0, 2 * NS, false, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		/* 80 MiB reclaimed, 80 MiB refaulted: ratio 1.0, back off 5 s */
		{40 * MIB, true, 1080 * MIB, 3 * NS, true, MCG_POLICY_THRASH_BACKOFF, 80 * MIB,
		 5 * NS, 8 * NS},
		/* again: doubled */
		{100 * MIB, true, 1200 * MIB, 10 * NS, true, MCG_POLICY_THRASH_BACKOFF, 120 * MIB,
		 10 * NS, 20 * NS},
		/* a window below the ratio forgets the back-off */
		{80 * MIB, true, 1279 * MIB, 600 * NS, true, MCG_POLICY_THRASH_CALM, 79 * MIB, 0, 0},
		/* and the next thrash starts from 5 s again */
		{80 * MIB, true, 1359 * MIB, 700 * NS, true, MCG_POLICY_THRASH_BACKOFF, 80 * MIB,
		 5 * NS, 705 * NS},
	};

	(void)state;
	run_thrash(s, N(s));
}

/* Each thrashing window doubles the back-off from 5 s, up to 120 s. */
static void test_thrash_backoff_cap(void **state)
{
	static const uint64_t want[] = {5, 10, 20, 40, 80, 120, 120, 120};
	struct mcg_policy_thrash t = {0};
	uint64_t refault = 0, now = 0;
	size_t i;

	(void)state;
	mcg_policy_thrash_sample(&t, 100 * MIB, 90 * MIB, true, refault, now, NULL);
	for (i = 0; i < N(want); i++) {
		mcg_policy_thrash_reclaimed(&t, 80 * MIB);
		refault += 100 * MIB;
		now += 1000 * NS;
		assert_int_equal(mcg_policy_thrash_sample(&t, 100 * MIB, 90 * MIB, true, refault,
							  now, NULL),
				 MCG_POLICY_THRASH_BACKOFF);
		assert_int_equal(t.backoff_ns, want[i] * NS);
		assert_int_equal(t.until_ns, now + want[i] * NS);
	}
}

static void test_thrash_unknown_and_backwards(void **state)
{
	static const struct tstep s[] = {
		/* no refault counter: no base, asked again after the next burst */
		{50 * MIB, false, 0, 1 * NS, true, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		{50 * MIB, false, 0, 2 * NS, true, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		/* the base at last (what came before does not count) */
		{50 * MIB, true, 500 * MIB, 3 * NS, true, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		/* a full window, but the counter cannot be read: stays open, asked again */
		{90 * MIB, false, 0, 4 * NS, true, MCG_POLICY_THRASH_OPEN, 0, 0, 0},
		/* the counter went back: no refaults counted, calm, new base */
		{10 * MIB, true, 100 * MIB, 5 * NS, true, MCG_POLICY_THRASH_CALM, 0, 0, 0},
		/* zero refaults over a window */
		{80 * MIB, true, 100 * MIB, 6 * NS, true, MCG_POLICY_THRASH_CALM, 0, 0, 0},
		/* huge counters and a back-off near the end of time: saturates */
		{80 * MIB, true, UINT64_MAX, UINT64_MAX - 1, true, MCG_POLICY_THRASH_BACKOFF,
		 UINT64_MAX - 100 * MIB, 5 * NS, UINT64_MAX},
	};

	(void)state;
	run_thrash(s, N(s));
}

static void test_thrash_reclaimed_saturates(void **state)
{
	struct mcg_policy_thrash t = {.started = true, .reclaimed = UINT64_MAX - 1};

	(void)state;
	mcg_policy_thrash_reclaimed(&t, 10);
	assert_int_equal(t.reclaimed, UINT64_MAX);
	assert_true(mcg_policy_thrash_wants_sample(&t, 2 * MIB, MIB));
}

static void test_skip_clean(void **state)
{
	static const struct {
		uint64_t file, dirty, writeback, gap;
		bool skip;
	} cases[] = {
		/* all clean: left to the kernel */
		{1024 * MIB, 0, 0, 10 * MIB, true},
		/* 1/16 dirty and more than the gap: reclaim */
		{1024 * MIB, 64 * MIB, 0, 10 * MIB, false},
		/* just below 1/16 */
		{1024 * MIB, 64 * MIB - 1, 0, 10 * MIB, true},
		/* writeback counts with dirty */
		{1024 * MIB, 32 * MIB, 32 * MIB, 10 * MIB, false},
		/* a large share, but less than the gap (a write in flight) */
		{16 * MIB, 8 * MIB, 0, 10 * MIB, true},
		/* exactly the gap */
		{16 * MIB, 10 * MIB, 0, 10 * MIB, false},
		/* no file cache at all and no gap: nothing clean to keep */
		{0, 0, 0, 0, false},
		/* huge values: no overflow in the share or the sum */
		{UINT64_MAX, UINT64_MAX / 8, 0, 0, false},
		{UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, false},
		{UINT64_MAX, 1, 0, 0, true},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		assert_int_equal(mcg_policy_skip_clean(cases[i].file, cases[i].dirty,
						       cases[i].writeback, cases[i].gap),
				 cases[i].skip);
}

static void test_next_wakeup(void **state)
{
	static const struct {
		uint64_t usage, high, last_usage, last_ns, now, next;
	} cases[] = {
		/* no previous look: the fallback below high, the minimum above */
		{50 * MIB, 100 * MIB, 0, 0, 10 * NS, 1 * NS},
		{100 * MIB, 100 * MIB, 0, 0, 10 * NS, 10 * MS},
		{200 * MIB, 100 * MIB, 0, 0, 10 * NS, 10 * MS},
		/* not growing (zero rate, or shrinking): the fallback */
		{50 * MIB, 100 * MIB, 50 * MIB, 9 * NS, 10 * NS, 1 * NS},
		{50 * MIB, 100 * MIB, 60 * MIB, 9 * NS, 10 * NS, 1 * NS},
		/* 10 MiB/s, 5 MiB to go: half of 0.5 s */
		{95 * MIB, 100 * MIB, 85 * MIB, 9 * NS, 10 * NS, 250 * MS},
		/* 1 GiB/s, 1 MiB to go: the 10 ms floor */
		{500 * MIB, 501 * MIB, 500 * MIB - 1024 * MIB / 10, 9900 * MS, 10 * NS, 10 * MS},
		/* slow growth: capped at the fallback */
		{50 * MIB, 100 * MIB, 50 * MIB - 1, 9 * NS, 10 * NS, 1 * NS},
		/* grown past high since the last look: the minimum */
		{101 * MIB, 100 * MIB, 50 * MIB, 9 * NS, 10 * NS, 10 * MS},
		/* the clock went back, or did not move: no rate, the fallback */
		{95 * MIB, 100 * MIB, 85 * MIB, 11 * NS, 10 * NS, 1 * NS},
		{95 * MIB, 100 * MIB, 85 * MIB, 10 * NS, 10 * NS, 1 * NS},
		/* huge values: no overflow */
		{UINT64_MAX - 1, UINT64_MAX, 0, 1, 2, 10 * MS},
		{1, UINT64_MAX, 0, 1, UINT64_MAX, 1 * NS},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t n = mcg_policy_next_wakeup(cases[i].usage, cases[i].high,
						    cases[i].last_usage, cases[i].last_ns,
						    cases[i].now);

		/* a double's rounding: within 1 us */
		assert_true(n + 1000 >= cases[i].next && n <= cases[i].next + 1000);
	}
}

/* The keeping-up constants are today's too. */
static void test_keepup_constants(void **state)
{
	(void)state;
	assert_int_equal(MCG_POLICY_RATE_RISE_NS, 10 * MS);
	assert_int_equal(MCG_POLICY_RATE_FALL_NS, 1 * NS);
	assert_int_equal(MCG_POLICY_RATE_MIN_DT_NS, 200 * 1000);
	assert_int_equal(MCG_POLICY_POLL_MIN_NS, 1 * MS);
	assert_int_equal(MCG_POLICY_POLL_SHARE, 4);
	assert_int_equal(MCG_POLICY_MARGIN_MAX_DIV, 16);
	assert_int_equal(MCG_POLICY_STEP_MIN, 1 * MIB);
	assert_true(MCG_POLICY_MISS_BOOST_MAX == 8.0);
	assert_int_equal(MCG_POLICY_MISS_HALF_NS, 2 * NS);
	assert_int_equal(MCG_POLICY_CLEAN_MIN_NS, 20 * MS);
	assert_int_equal(MCG_POLICY_CLEAN_MAX_NS, 160 * MS);
}

/* The charge rate: usage growth plus what was reclaimed, rising fast, falling slowly. */
static void test_rate(void **state)
{
	struct mcg_policy_rate r = {0};
	uint64_t t = 10 * NS, c = 100 * MIB;
	int i;

	(void)state;
	mcg_policy_rate_update(&r, c, t); /* the first look: a reference, no rate */
	assert_true(r.started && r.bps == 0);
	/* 100 MiB/s steady, a look every 1 ms: within 2% after 50 ms (rise: 10 ms) */
	for (i = 0; i < 50; i++) {
		t += 1 * MS;
		c += 100 * MIB / 1000;
		mcg_policy_rate_update(&r, c, t);
	}
	assert_true(r.bps > 0.98 * 100 * MIB && r.bps < 1.001 * 100 * MIB);
	/* a look 100 us later is merged into the next one: no change, no reference moved */
	mcg_policy_rate_update(&r, c + 10 * MIB, t + 100 * 1000);
	assert_true(r.bps > 0.98 * 100 * MIB && r.bps < 1.001 * 100 * MIB);
	assert_int_equal(r.ns, t);
	/* the writer stops: after 100 ms the estimate has fallen by about a tenth, not to zero */
	for (i = 0; i < 100; i++) {
		t += 1 * MS;
		mcg_policy_rate_update(&r, c, t);
	}
	assert_true(r.bps > 0.85 * 100 * MIB && r.bps < 0.95 * 100 * MIB);
	/* usage fell (the kernel reclaimed): no negative charge */
	t += 10 * MS;
	c -= 50 * MIB;
	mcg_policy_rate_update(&r, c, t);
	assert_true(r.bps > 0.8 * 100 * MIB);
	/* the clock went back: a new reference, the estimate kept */
	{
		double before = r.bps;

		mcg_policy_rate_update(&r, c + 10 * MIB, t - 5 * MS);
		assert_true(r.bps == before);
		assert_int_equal(r.ns, t - 5 * MS);
		assert_int_equal(r.base, c + 10 * MIB);
	}
}

/* Costs move by an eighth of each sample. */
static void test_cost(void **state)
{
	struct mcg_policy_cost c = MCG_POLICY_COST_INIT;
	int i;

	(void)state;
	assert_true(c.step_ns == 1e6 && c.late_ns == 1e6 && c.look_ns == 20e3);
	mcg_policy_cost_step(&c, 9 * MS);
	assert_true(c.step_ns == 2e6);
	for (i = 0; i < 100; i++) {
		mcg_policy_cost_late(&c, 0);
		mcg_policy_cost_look(&c, 8000);
	}
	assert_true(c.late_ns < 1000 && c.look_ns > 7999 && c.look_ns < 8001);
}

/* Misses: doubled on a hit (capped), halved every 2 s without one, never below 1. */
static void test_miss(void **state)
{
	struct mcg_policy_miss m;
	int i;

	(void)state;
	mcg_policy_miss_init(&m, 10 * NS);
	assert_true(m.boost == 1);
	mcg_policy_miss_update(&m, false, 11 * NS);
	assert_true(m.boost == 1);
	mcg_policy_miss_update(&m, true, 11 * NS);
	assert_true(m.boost == 2);
	for (i = 0; i < 10; i++)
		mcg_policy_miss_update(&m, true, 11 * NS);
	assert_true(m.boost == MCG_POLICY_MISS_BOOST_MAX);
	mcg_policy_miss_update(&m, false, 13 * NS); /* one half-life */
	assert_true(m.boost > 3.99 && m.boost < 4.01);
	mcg_policy_miss_update(&m, false, 12 * NS); /* the clock went back: nothing decays */
	assert_true(m.boost > 3.99 && m.boost < 4.01);
	mcg_policy_miss_update(&m, false, 3600 * NS);
	assert_true(m.boost == 1);
}

/* The poll floor is what a quarter of the budget pays for, at least 1 ms. */
static void test_poll_floor(void **state)
{
	static const struct {
		double look_ns, max_cpu;
		uint64_t floor;
	} cases[] = {
		/* 20 us a look at 5%: 20 us x 4 / 0.05 = 1.6 ms */
		{20e3, 5.0, 1600 * 1000},
		/* three times the budget: three times faster, down to the 1 ms floor */
		{20e3, 15.0, 1 * MS},
		{60e3, 15.0, 1600 * 1000},
		/* a cheap look: the floor */
		{1e3, 5.0, 1 * MS},
		/* no budget, or an absurd cost: the fallback */
		{20e3, 0, 1 * NS},
		{1e12, 5.0, 1 * NS},
		{-5, 5.0, 1 * MS},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t f = mcg_policy_poll_floor(cases[i].look_ns, cases[i].max_cpu);

		assert_true(f + 1000 >= cases[i].floor && f <= cases[i].floor + 1000);
	}
	/* a raised budget never polls slower */
	assert_true(mcg_policy_poll_floor(50e3, 15.0) <= mcg_policy_poll_floor(50e3, 5.0));
}

static void test_react(void **state)
{
	struct mcg_policy_cost c = {.step_ns = 2e6, .late_ns = 0.5e6, .look_ns = 1};

	(void)state;
	assert_int_equal(mcg_policy_react_ns(1 * MS, &c), 3500 * 1000);
	c.step_ns = 1e30;
	assert_int_equal(mcg_policy_react_ns(1 * MS, &c), MCG_POLICY_WAIT_MAX_NS);
}

/* Watermarks widen with rate x reaction time and the boost, within the caps, never above configured. */
static void test_watermarks(void **state)
{
	static const struct {
		uint64_t limit, high, low;
		double rate;
		uint64_t react;
		double boost;
		uint64_t eh, el;
	} cases[] = {
		/* nothing charged, no misses: as configured (320 MiB: 8/24 MiB margins) */
		{320 * MIB, 312 * MIB, 296 * MIB, 0, 3 * MS, 1, 312 * MIB, 296 * MIB},
		/* absurd rate: the high margin capped at limit/16, the low one at limit/8 */
		{320 * MIB, 312 * MIB, 296 * MIB, 1e15, 4 * MS, 1, 300 * MIB, 280 * MIB},
		/* 1280 MiB (32/96 MiB margins): 4000 MiB/s for 4 ms is 16 MiB, twice that is the margin */
		{1280 * MIB, 1248 * MIB, 1184 * MIB, 4000.0 * MIB, 4 * MS, 1, 1248 * MIB, 1184 * MIB},
		/* 8000 MiB/s: need 32 MiB: high margin 64 MiB, the gap (64 MiB) stays */
		{1280 * MIB, 1248 * MIB, 1184 * MIB, 8000.0 * MIB, 4 * MS, 1, 1216 * MIB, 1152 * MIB},
		/* absurd rate: 80 and 160 MiB */
		{1280 * MIB, 1248 * MIB, 1184 * MIB, 1e15, 4 * MS, 1, 1200 * MIB, 1120 * MIB},
		/* misses double the margin (the gap stays), up to the cap */
		{1280 * MIB, 1248 * MIB, 1184 * MIB, 0, 3 * MS, 2, 1216 * MIB, 1152 * MIB},
		{1280 * MIB, 1248 * MIB, 1184 * MIB, 0, 3 * MS, 8, 1200 * MIB, 1136 * MIB},
		/* a boost below 1 is 1 */
		{320 * MIB, 312 * MIB, 296 * MIB, 0, 3 * MS, 0.1, 312 * MIB, 296 * MIB},
		/* a configured margin beyond the caps stays as configured */
		{320 * MIB, 100 * MIB, 10 * MIB, 1e15, 4 * MS, 8, 100 * MIB, 10 * MIB},
		/* not resolved (low >= high, high >= limit): returned as given */
		{320 * MIB, 300 * MIB, 300 * MIB, 1e9, 4 * MS, 8, 300 * MIB, 300 * MIB},
		{320 * MIB, 320 * MIB, 300 * MIB, 1e9, 4 * MS, 8, 320 * MIB, 300 * MIB},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t h, l;

		mcg_policy_watermarks(cases[i].limit, cases[i].high, cases[i].low, cases[i].rate,
				      cases[i].react, cases[i].boost, &h, &l);
		if (h + 4096 < cases[i].eh || h > cases[i].eh + 4096 || l + 4096 < cases[i].el ||
		    l > cases[i].el + 4096)
			fail_msg("case %zu: high %llu low %llu, want %llu %llu", i,
				 (unsigned long long)h, (unsigned long long)l,
				 (unsigned long long)cases[i].eh, (unsigned long long)cases[i].el);
		assert_true(h <= cases[i].high && l <= cases[i].low);
		if (cases[i].low < cases[i].high && cases[i].high < cases[i].limit)
			assert_true(l < h && h < cases[i].limit && l > 0);
	}
}

/* A step is what the writer charges in one reaction time, 1 MiB .. --batch, whole pages. */
static void test_step(void **state)
{
	static const struct {
		double rate;
		uint64_t react, batch, page, step;
	} cases[] = {
		{0, 3 * MS, 4 * MIB, 4096, 1 * MIB},
		{100.0 * MIB, 3 * MS, 4 * MIB, 4096, 1 * MIB},
		{1024.0 * MIB, 3 * MS, 4 * MIB, 4096, 3 * MIB + 73728},
		{1e15, 3 * MS, 4 * MIB, 4096, 4 * MIB},
		/* --batch below 1 MiB wins */
		{1e15, 3 * MS, 256 * 4096, 4096, 1 * MIB},
		{0, 3 * MS, 64 * 4096, 4096, 64 * 4096},
		/* 64 KiB pages */
		{1024.0 * MIB, 3 * MS, 64 * 65536, 65536, 49 * 65536},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t st = mcg_policy_step(cases[i].rate, cases[i].react, cases[i].batch,
					      cases[i].page);

		if (st != cases[i].step)
			fail_msg("case %zu: step %llu, want %llu", i, (unsigned long long)st,
				 (unsigned long long)cases[i].step);
	}
}

/* Look again at half the time to reach high, between the floor and the fallback. */
static void test_poll(void **state)
{
	static const struct {
		uint64_t usage, high;
		double rate;
		uint64_t floor, next;
	} cases[] = {
		{100 * MIB, 200 * MIB, 0, 1 * MS, 1 * NS},           /* nothing charged */
		{100 * MIB, 200 * MIB, 100.0 * MIB, 1 * MS, 500 * MS}, /* 1 s to go */
		{199 * MIB, 200 * MIB, 100.0 * MIB, 1 * MS, 5 * MS},
		{199 * MIB, 200 * MIB, 1e12, 1 * MS, 1 * MS},          /* the floor */
		{199 * MIB, 200 * MIB, 1e12, 2 * MS, 2 * MS},
		{200 * MIB, 200 * MIB, 0, 2 * MS, 2 * MS},             /* at high */
		{1 * MIB, 200 * MIB, 1.0, 1 * MS, 1 * NS},             /* slow: the fallback */
		{1 * MIB, 200 * MIB, 0, 2 * NS, 2 * NS},               /* a floor above the fallback */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t n = mcg_policy_poll(cases[i].usage, cases[i].high, cases[i].rate,
					     cases[i].floor);

		if (n + 1000 < cases[i].next || n > cases[i].next + 1000)
			fail_msg("case %zu: %llu ns, want %llu", i, (unsigned long long)n,
				 (unsigned long long)cases[i].next);
	}
}

/* Behind: within one step of the limit, a limit hit since the last look, or a PSI stall. */
static void test_behind(void **state)
{
	(void)state;
	assert_false(mcg_policy_behind(300 * MIB, 320 * MIB, 1 * MIB, false, false));
	assert_true(mcg_policy_behind(319 * MIB, 320 * MIB, 1 * MIB, false, false));
	assert_true(mcg_policy_behind(320 * MIB, 320 * MIB, 1 * MIB, false, false));
	assert_true(mcg_policy_behind(330 * MIB, 320 * MIB, 1 * MIB, false, false));
	assert_true(mcg_policy_behind(100 * MIB, 320 * MIB, 1 * MIB, true, false));
	assert_true(mcg_policy_behind(100 * MIB, 320 * MIB, 1 * MIB, false, true));
}

/*
 * Budget spending while behind: a raised --max-cpu buys proportionally more
 * reclaim over the same second (steps of a fixed cost, back to back, each
 * stopping when the bucket is spent and waiting what the policy says).
 */
static double reclaim_second(double max_cpu)
{
	struct mcg_policy_budget b;
	uint64_t t = 0, step_cpu = 2 * MS, steps = 0;

	mcg_policy_budget_init(&b, max_cpu, t);
	mcg_policy_budget_spend(&b, (uint64_t)b.tokens_ns); /* the saved-up burst spent */
	while (t < 1 * NS) {
		uint64_t w;

		mcg_policy_budget_refill(&b, t);
		w = mcg_policy_budget_wait(&b);
		if (w) {
			t += w;
			continue;
		}
		mcg_policy_budget_spend(&b, step_cpu);
		t += step_cpu;
		steps++;
	}
	return (double)steps;
}

static void test_budget_spendable(void **state)
{
	double s5 = reclaim_second(5.0), s15 = reclaim_second(15.0);

	(void)state;
	/* 5% of a second is 25 steps of 2 ms; 15% three times as many */
	assert_true(s5 >= 24 && s5 <= 26);
	assert_true(s15 >= 3 * s5 - 2 && s15 <= 3 * s5 + 2);
}

static void test_clean_wait(void **state)
{
	uint64_t w = 0;
	int i;

	(void)state;
	w = mcg_policy_clean_wait(w);
	assert_int_equal(w, 20 * MS);
	w = mcg_policy_clean_wait(w);
	assert_int_equal(w, 40 * MS);
	for (i = 0; i < 10; i++)
		w = mcg_policy_clean_wait(w);
	assert_int_equal(w, 160 * MS);
	assert_int_equal(mcg_policy_clean_wait(UINT64_MAX), 160 * MS);
}

/* ---- writeback-bound: standing aside (synthetic counter sequences) ---- */

struct aside_run {
	struct mcg_policy_aside a;
	uint64_t now, hits, charges, gap;
};

static void aside_start(struct aside_run *r, uint64_t gap)
{
	struct mcg_policy_aside_sample s = {true, 0, 0, 0};

	memset(r, 0, sizeof(*r));
	r->now = 1000 * NS;
	r->gap = gap;
	assert_int_equal(mcg_policy_aside_look(&r->a, &s, gap, r->now), MCG_POLICY_ASIDE_NONE);
}

/*
 * One window: looks every MCG_POLICY_ASIDE_SAMPLE_NS, DH hits and DC charges
 * per window spread evenly, clean CLEAN[i % 8] at the i-th look: the last
 * verdict that was not NONE.
 */
static enum mcg_policy_aside_verdict aside_window(struct aside_run *r, uint64_t dh, uint64_t dc,
						  const uint64_t clean[8])
{
	enum mcg_policy_aside_verdict v = MCG_POLICY_ASIDE_NONE, x;
	unsigned i, n = (unsigned)(MCG_POLICY_ASIDE_WINDOW_NS / MCG_POLICY_ASIDE_SAMPLE_NS);

	for (i = 0; i < n; i++) {
		struct mcg_policy_aside_sample s;

		r->now += MCG_POLICY_ASIDE_SAMPLE_NS;
		r->hits += dh / n;
		r->charges += dc / n;
		s = (struct mcg_policy_aside_sample){true, r->hits, r->charges, clean[i % 8]};
		x = mcg_policy_aside_look(&r->a, mcg_policy_aside_wants_sample(&r->a, r->now) ? &s : NULL,
					  r->gap, r->now);
		if (x != MCG_POLICY_ASIDE_NONE)
			v = x;
	}
	return v;
}

static const uint64_t clean_10m[8] = {10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB,
				      10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB};
static const uint64_t clean_60m[8] = {60 * MIB, 60 * MIB, 60 * MIB, 60 * MIB,
				      60 * MIB, 60 * MIB, 60 * MIB, 60 * MIB};
static const uint64_t clean_200m[8] = {200 * MIB, 200 * MIB, 200 * MIB, 200 * MIB,
				       200 * MIB, 200 * MIB, 200 * MIB, 200 * MIB};

static void test_aside_constants(void **state)
{
	(void)state;
	assert_int_equal(MCG_POLICY_ASIDE_WINDOW_NS, 1 * NS);
	assert_int_equal(MCG_POLICY_ASIDE_SAMPLE_NS, 125 * MS);
	assert_int_equal(MCG_POLICY_ASIDE_ENTER, 3);
	assert_int_equal(MCG_POLICY_ASIDE_MIN_NS, 2 * NS);
	assert_int_equal(MCG_POLICY_ASIDE_MAX_NS, 32 * NS);
}

static void test_aside_clean_file(void **state)
{
	(void)state;
	assert_int_equal(mcg_policy_clean_file(200 * MIB, 100 * MIB, 250 * MIB, 20 * MIB), 30 * MIB);
	assert_int_equal(mcg_policy_clean_file(100 * MIB, 0, 90 * MIB, 20 * MIB), 0);
	assert_int_equal(mcg_policy_clean_file(UINT64_MAX, UINT64_MAX, 0, 0), UINT64_MAX);
	assert_int_equal(mcg_policy_clean_file(MIB, MIB, UINT64_MAX, UINT64_MAX), 0);
}

/*
 * A streaming writer: twice as many hits as charges (every charge meets the
 * limit), 10 MiB clean against a 24 MiB burst. Three windows to stand aside,
 * probes after 2, 4, 8, 16, 32, 32 s.
 */
static void test_aside_streamer(void **state)
{
	static const uint64_t periods[] = {4, 8, 16, 32, 32};
	struct aside_run r;
	unsigned i, k;

	(void)state;
	aside_start(&r, 24 * MIB);
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	assert_false(mcg_policy_aside_holds(&r.a));
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_ENTERED);
	assert_true(mcg_policy_aside_holds(&r.a));
	assert_int_equal(r.a.period_ns, 2 * NS);
	assert_int_equal(r.a.last_clean, 10 * MIB);
	for (k = 0; k < N(periods); k++) {
		uint64_t held = 0;

		/* held for the period (its windows change nothing), then one probe window */
		while (aside_window(&r, 2000, 1000, clean_10m) != MCG_POLICY_ASIDE_PROBING) {
			assert_true(mcg_policy_aside_holds(&r.a));
			held++;
			assert_true(held <= 64);
		}
		assert_int_equal(held + 1, k ? periods[k - 1] : 2);
		assert_false(mcg_policy_aside_holds(&r.a));
		assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_ENTERED);
		assert_true(mcg_policy_aside_holds(&r.a));
		assert_int_equal(r.a.period_ns, periods[k] * NS);
	}
	/* the writer turns into one with a hot set (far fewer hits than charges): back within a window */
	for (i = 0; i < 2; i++)
		assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(aside_window(&r, 300, 1000, clean_10m), MCG_POLICY_ASIDE_RESUMED);
	assert_false(mcg_policy_aside_holds(&r.a));
	assert_int_equal(r.a.period_ns, 0);
	/* and the evidence starts over: three windows again */
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_ENTERED);
	assert_int_equal(r.a.period_ns, 2 * NS);
}

/* Writers that reclaim ahead helps: never aside. */
static void test_aside_never(void **state)
{
	struct aside_run r;
	unsigned i;

	(void)state;
	/* a hot set: fewer hits than charges, however dirty */
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 20; i++)
		assert_int_equal(aside_window(&r, 999, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
	/* every charge at the limit, but clean cache enough for two bursts */
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 20; i++)
		assert_int_equal(aside_window(&r, 2000, 1000, clean_60m), MCG_POLICY_ASIDE_NONE);
	/* off the limit: no hits */
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 20; i++)
		assert_int_equal(aside_window(&r, 0, 0, clean_10m), MCG_POLICY_ASIDE_NONE);
	/* bound windows that never come three in a row (noise) */
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 20; i++)
		assert_int_equal(aside_window(&r, 2000, 1000, i % 3 == 2 ? clean_200m : clean_10m),
				 MCG_POLICY_ASIDE_NONE);
	assert_false(mcg_policy_aside_holds(&r.a));
}

/* The majority of a window's samples decides: a flusher batch in a few samples does not. */
static void test_aside_majority(void **state)
{
	static const uint64_t three_high[8] = {10 * MIB, 200 * MIB, 10 * MIB, 200 * MIB,
					       10 * MIB, 200 * MIB, 10 * MIB, 10 * MIB};
	static const uint64_t five_high[8] = {200 * MIB, 200 * MIB, 10 * MIB, 200 * MIB,
					      10 * MIB, 200 * MIB, 10 * MIB, 200 * MIB};
	struct aside_run r;
	unsigned i;

	(void)state;
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 2; i++)
		assert_int_equal(aside_window(&r, 2000, 1000, three_high), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(aside_window(&r, 2000, 1000, three_high), MCG_POLICY_ASIDE_ENTERED);
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 10; i++)
		assert_int_equal(aside_window(&r, 2000, 1000, five_high), MCG_POLICY_ASIDE_NONE);
}

/* Hysteresis: standing aside, clean between two and four bursts keeps it; above four ends it. */
static void test_aside_hysteresis(void **state)
{
	struct aside_run r;
	unsigned i;

	(void)state;
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 3; i++)
		aside_window(&r, 2000, 1000, clean_10m);
	assert_true(mcg_policy_aside_holds(&r.a));
	/* 60 MiB: not bound while stepping (>= 48), bound while aside (< 96) */
	assert_int_equal(aside_window(&r, 2000, 1000, clean_60m), MCG_POLICY_ASIDE_NONE);
	assert_true(mcg_policy_aside_holds(&r.a));
	assert_int_equal(aside_window(&r, 2000, 1000, clean_60m), MCG_POLICY_ASIDE_PROBING);
	assert_int_equal(aside_window(&r, 2000, 1000, clean_60m), MCG_POLICY_ASIDE_ENTERED);
	assert_true(mcg_policy_aside_holds(&r.a));
	assert_int_equal(aside_window(&r, 2000, 1000, clean_200m), MCG_POLICY_ASIDE_RESUMED);
	assert_false(mcg_policy_aside_holds(&r.a));
	assert_int_equal(aside_window(&r, 2000, 1000, clean_60m), MCG_POLICY_ASIDE_NONE);
	assert_int_equal(r.a.bound, 0);
}

/* No samples, unknown ones, counters or a clock that went back: no verdict. */
static void test_aside_unknown(void **state)
{
	struct mcg_policy_aside_sample s = {false, 0, 0, 0};
	struct aside_run r;
	unsigned i;

	(void)state;
	aside_start(&r, 24 * MIB);
	for (i = 0; i < 40; i++) {
		r.now += MCG_POLICY_ASIDE_SAMPLE_NS;
		assert_int_equal(mcg_policy_aside_look(&r.a, i % 2 ? &s : NULL, r.gap, r.now),
				 MCG_POLICY_ASIDE_NONE);
	}
	/* two bound windows, then the counter goes back (a reset failcnt): a new start */
	aside_start(&r, 24 * MIB);
	aside_window(&r, 2000, 1000, clean_10m);
	aside_window(&r, 2000, 1000, clean_10m);
	r.hits = 0;
	/* the new window opens at the first look of this one: three closes from there */
	for (i = 0; i < 3; i++) {
		assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_NONE);
		assert_false(mcg_policy_aside_holds(&r.a));
	}
	assert_int_equal(aside_window(&r, 2000, 1000, clean_10m), MCG_POLICY_ASIDE_ENTERED);
	/* a clock that went back: a new window, nothing decided */
	r.now -= 10 * NS;
	s = (struct mcg_policy_aside_sample){true, r.hits, r.charges, 200 * MIB};
	assert_int_equal(mcg_policy_aside_look(&r.a, &s, r.gap, r.now), MCG_POLICY_ASIDE_NONE);
	assert_true(mcg_policy_aside_holds(&r.a));
	/* the sample cadence */
	assert_false(mcg_policy_aside_wants_sample(&r.a, r.now + MCG_POLICY_ASIDE_SAMPLE_NS - 1));
	assert_true(mcg_policy_aside_wants_sample(&r.a, r.now + MCG_POLICY_ASIDE_SAMPLE_NS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_budget_refill),
		cmocka_unit_test(test_budget_clock_back),
		cmocka_unit_test(test_budget_exhausted_wait),
		cmocka_unit_test(test_thrash_window),
		cmocka_unit_test(test_thrash_backoff_doubles_and_decays),
		cmocka_unit_test(test_thrash_backoff_cap),
		cmocka_unit_test(test_thrash_unknown_and_backwards),
		cmocka_unit_test(test_thrash_reclaimed_saturates),
		cmocka_unit_test(test_skip_clean),
		cmocka_unit_test(test_next_wakeup),
		cmocka_unit_test(test_keepup_constants),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_miss),
		cmocka_unit_test(test_poll_floor),
		cmocka_unit_test(test_react),
		cmocka_unit_test(test_watermarks),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_behind),
		cmocka_unit_test(test_budget_spendable),
		cmocka_unit_test(test_clean_wait),
		cmocka_unit_test(test_aside_constants),
		cmocka_unit_test(test_aside_clean_file),
		cmocka_unit_test(test_aside_streamer),
		cmocka_unit_test(test_aside_never),
		cmocka_unit_test(test_aside_majority),
		cmocka_unit_test(test_aside_hysteresis),
		cmocka_unit_test(test_aside_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
