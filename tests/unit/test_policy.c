/* test_policy.c: the async-reclaim policy (CPU budget, thrash back-off, clean-cache skip, adaptive timer). */
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
	assert_int_equal(MCG_POLICY_BUDGET_BURST_NS, 2 * NS);
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
		/* a full bucket: 2 s of wall time at max_cpu */
		{5.0, 0, 100 * NS, 100 * NS, 0.1 * NS},
		{100.0, 0, 0, 0, 2.0 * NS},
		/* full stays full however long it waits */
		{5.0, 0, 0, 3600 * NS, 0.1 * NS},
		/* spent 0.1 s of CPU, then 1 s at 5%: 0.05 s back */
		{5.0, 0.1 * NS, 10 * NS, 11 * NS, 0.05 * NS},
		/* overrun by 1 s, 10 s at 5% pays 0.5 s of it */
		{5.0, 1.1 * NS, 10 * NS, 20 * NS, -0.5 * NS},
		/* the clock went back: nothing earned */
		{5.0, 0.1 * NS, 10 * NS, 9 * NS, 0},
		/* no CPU share: never refilled, an empty bucket */
		{0, 0, 0, 100 * NS, 0},
		/* huge times: capped */
		{100.0, 0, 0, UINT64_MAX, 2.0 * NS},
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
	mcg_policy_budget_spend(&b, (uint64_t)(0.2 * NS)); /* empty */
	mcg_policy_budget_refill(&b, 50 * NS);              /* back 50 s */
	assert_true(b.tokens_ns > -1 && b.tokens_ns < 1);
	mcg_policy_budget_refill(&b, 51 * NS); /* 1 s at 10% from 50 s, not from 100 s */
	assert_true(b.tokens_ns > 0.1 * NS - 1 && b.tokens_ns < 0.1 * NS + 1);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
