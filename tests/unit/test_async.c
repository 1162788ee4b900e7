/* test_async.c: async-reclaim's watermark rules and its state and stats files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "memcg.h"

#define MIB (1024ULL * 1024)
#define GIB (1024 * MIB)

static void test_default_margins(void **state)
{
	static const struct {
		uint64_t limit, high_margin, low_margin;
	} cases[] = {
		{320 * MIB, 8 * MIB, 24 * MIB},    /* limit/40, three times that */
		{32 * MIB, 4 * MIB, 8 * MIB},      /* at least 4 MiB; low at most limit/4 */
		{16 * MIB, 2 * MIB, 4 * MIB},      /* small: at most limit/8 and limit/4 */
		{64 * GIB, 1 * GIB, 3 * GIB},      /* at most 1 GiB */
		{1000 * MIB, 25 * MIB, 75 * MIB},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t h, l;

		mcg_async_default_margins(cases[i].limit, &h, &l);
		assert_int_equal(h, cases[i].high_margin);
		assert_int_equal(l, cases[i].low_margin);
	}
}

static struct mcg_async_conf conf(uint64_t high, uint64_t low, unsigned flags)
{
	struct mcg_async_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.path, "/web");
	strcpy(c.root, "/sys/fs/cgroup/memory");
	c.high = high;
	c.low = low;
	c.flags = flags;
	c.batch = MCG_ASYNC_DEFAULT_BATCH;
	c.max_cpu = MCG_ASYNC_DEFAULT_MAX_CPU;
	return c;
}

static void test_watermarks(void **state)
{
	enum { HS = MCG_ASYNC_HIGH_SET, LS = MCG_ASYNC_LOW_SET, HM = MCG_ASYNC_HIGH_MARGIN,
	       LM = MCG_ASYNC_LOW_MARGIN };
	static const struct {
		uint64_t limit, high, low;
		unsigned flags;
		int ret;
		uint64_t want_high, want_low;
	} cases[] = {
		/* defaults scale with the limit */
		{320 * MIB, 0, 0, 0, 0, 312 * MIB, 296 * MIB},
		{1000 * MIB, 0, 0, 0, 0, 975 * MIB, 925 * MIB},
		/* absolute */
		{320 * MIB, 300 * MIB, 250 * MIB, HS | LS, 0, 300 * MIB, 250 * MIB},
		/* margins */
		{320 * MIB, 16 * MIB, 64 * MIB, HS | HM | LS | LM, 0, 304 * MIB, 256 * MIB},
		/* mixed: high absolute, low margin */
		{320 * MIB, 310 * MIB, 40 * MIB, HS | LS | LM, 0, 310 * MIB, 280 * MIB},
		/* only high given: the default gap below it */
		{320 * MIB, 200 * MIB, 0, HS, 0, 200 * MIB, 184 * MIB},
		/* only low given: the default high */
		{320 * MIB, 0, 100 * MIB, LS, 0, 312 * MIB, 100 * MIB},
		/* refused: crossing, equal, at or above the limit, margins too large */
		{320 * MIB, 250 * MIB, 300 * MIB, HS | LS, -ERANGE, 0, 0},
		{320 * MIB, 300 * MIB, 300 * MIB, HS | LS, -ERANGE, 0, 0},
		{320 * MIB, 320 * MIB, 300 * MIB, HS | LS, -ERANGE, 0, 0},
		{320 * MIB, 400 * MIB, 300 * MIB, HS | LS, -ERANGE, 0, 0},
		{320 * MIB, 0, 320 * MIB, LS | LM, -ERANGE, 0, 0},
		{320 * MIB, 320 * MIB, 0, HS | HM, -ERANGE, 0, 0},
		{320 * MIB, 8 * MIB, 4 * MIB, HS | HM | LS | LM, -ERANGE, 0, 0}, /* low above high */
		{320 * MIB, 16 * MIB, 0, HS, -ERANGE, 0, 0}, /* no room for the default gap */
		{320 * MIB, 300 * MIB, 0, HS | LS, -ERANGE, 0, 0}, /* low 0 */
		/* no limit */
		{MCG_MAX, 0, 0, 0, -EDOM, 0, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcg_async_conf c = conf(cases[i].high, cases[i].low, cases[i].flags);
		uint64_t h = 7, l = 7;
		int r = mcg_async_watermarks(&c, cases[i].limit, &h, &l);

		if (r != cases[i].ret)
			fail_msg("case %zu: returned %d, expected %d", i, r, cases[i].ret);
		if (r == 0) {
			assert_int_equal(h, cases[i].want_high);
			assert_int_equal(l, cases[i].want_low);
		} else {
			/* out parameters untouched on failure */
			assert_int_equal(h, 7);
			assert_int_equal(l, 7);
		}
	}
}

static char dir[256];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_async.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_enable_list_disable(void **state)
{
	struct mcg_async_conf a = conf(16 * MIB, 280 * MIB, MCG_ASYNC_HIGH_SET | MCG_ASYNC_HIGH_MARGIN |
								      MCG_ASYNC_LOW_SET);
	struct mcg_async_conf b = conf(0, 0, 0), *v;
	char sd[300];
	size_t n;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/state", dir);
	strcpy(b.path, "/a/b c");
	b.flags = MCG_ASYNC_CLEAN;
	b.batch = 32;
	b.max_cpu = 1.5;
	assert_int_equal(mcg_async_list(sd, &v, &n), 0); /* no directory yet: empty */
	assert_int_equal(n, 0);
	free(v);
	assert_int_equal(mcg_async_enable(sd, &a), 0);
	assert_int_equal(mcg_async_enable(sd, &b), 0);
	assert_int_equal(mcg_async_enable(sd, &a), 0); /* again: replaces */
	assert_int_equal(mcg_async_list(sd, &v, &n), 0);
	assert_int_equal(n, 2);
	/* sorted by path; every field survives the round trip */
	assert_string_equal(v[0].path, "/a/b c");
	assert_int_equal(v[0].flags, MCG_ASYNC_CLEAN);
	assert_int_equal(v[0].batch, 32);
	assert_true(v[0].max_cpu > 1.49 && v[0].max_cpu < 1.51);
	assert_string_equal(v[1].path, "/web");
	assert_string_equal(v[1].root, "/sys/fs/cgroup/memory");
	assert_int_equal(v[1].high, 16 * MIB);
	assert_int_equal(v[1].low, 280 * MIB);
	assert_int_equal(v[1].flags, a.flags);
	free(v);
	/* bad input is refused and nothing is written */
	b.batch = 0;
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	b.batch = 1;
	b.max_cpu = 0;
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	strcpy(b.path, "relative");
	b.max_cpu = 1;
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	assert_int_equal(mcg_async_list(sd, &v, &n), 0);
	assert_int_equal(n, 2);
	free(v);
	assert_int_equal(mcg_async_disable(sd, a.root, "/web"), 0);
	assert_int_equal(mcg_async_disable(sd, a.root, "/web"), -ENOENT);
	assert_int_equal(mcg_async_list(sd, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "/a/b c");
	free(v);
}

static void test_conf_read_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"memcgctl-async-reclaim 1\nroot /r\npath /x\nhigh 1 default\n",        /* no low */
		"memcgctl-async-reclaim 1\nroot /r\npath x\nhigh 1\nlow 0\n",         /* relative */
		"memcgctl-async-reclaim 1\nroot /r\npath /x\nhigh 1 bogus\nlow 0\n",  /* bad word */
		"something else\nroot /r\npath /x\nhigh 1\nlow 0\n",                  /* magic */
		"memcgctl-async-reclaim 1\nroot /r\npath /x\nhigh 1\nlow 0\nbatch 0\n",
	};
	struct mcg_async_conf c;
	char file[300];
	size_t i;

	(void)state;
	snprintf(file, sizeof(file), "%s/x.conf", dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(file, "w");

		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		if (mcg_async_conf_read(file, &c) != -EBADMSG)
			fail_msg("case %zu was accepted", i);
	}
}

static void test_stats_roundtrip(void **state)
{
	struct mcg_async_stats s, r, *v;
	char sd[300];
	size_t n;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/state2", dir);
	memset(&s, 0, sizeof(s));
	strcpy(s.path, "/web");
	strcpy(s.root, "/sys/fs/cgroup/memory");
	s.state = MCG_ASYNC_THRASHING;
	s.pid = 42;
	s.limit = 320 * MIB;
	s.high = 310 * MIB;
	s.low = 300 * MIB;
	s.usage = 305 * MIB;
	s.reclaimed = 5 * GIB;
	s.wakeups = 12;
	s.steps = 345;
	s.short_steps = 3;
	s.cpu_ns = 123456789;
	s.deferred = 4;
	s.refaulted = 6 * GIB;
	s.thrash_episodes = 2;
	s.clean_skips = 9;
	s.refault_ratio = 1.25;
	s.last_error = -EBUSY;
	s.last_error_time = 1700000000;
	s.enabled_time = 1690000000;
	s.updated = 1700000001;
	strcpy(s.event_source, "eventfd");
	/* no stats directory: ENOENT */
	assert_int_equal(mcg_async_stats_read(sd, s.root, s.path, &r), -ENOENT);
	assert_int_equal(mcg_async_enable(sd, &(struct mcg_async_conf){.path = "/web",
									 .root = "/sys/fs/cgroup/memory",
									 .batch = 1,
									 .max_cpu = 1}),
			 0);
	assert_int_equal(mcg_async_stats_write(sd, &s), 0);
	assert_int_equal(mcg_async_stats_read(sd, s.root, s.path, &r), 0);
	assert_string_equal(r.path, s.path);
	assert_int_equal(r.state, MCG_ASYNC_THRASHING);
	assert_int_equal(r.pid, 42);
	assert_int_equal(r.limit, s.limit);
	assert_int_equal(r.high, s.high);
	assert_int_equal(r.low, s.low);
	assert_int_equal(r.usage, s.usage);
	assert_int_equal(r.reclaimed, s.reclaimed);
	assert_int_equal(r.wakeups, s.wakeups);
	assert_int_equal(r.steps, s.steps);
	assert_int_equal(r.short_steps, s.short_steps);
	assert_int_equal(r.cpu_ns, s.cpu_ns);
	assert_int_equal(r.deferred, s.deferred);
	assert_int_equal(r.refaulted, s.refaulted);
	assert_int_equal(r.thrash_episodes, s.thrash_episodes);
	assert_int_equal(r.clean_skips, 9);
	assert_true(r.refault_ratio > 1.249 && r.refault_ratio < 1.251);
	assert_int_equal(r.last_error, -EBUSY);
	assert_int_equal(r.last_error_time, s.last_error_time);
	assert_int_equal(r.enabled_time, s.enabled_time);
	assert_int_equal(r.updated, s.updated);
	assert_string_equal(r.event_source, "eventfd");
	assert_int_equal(mcg_async_stats_list(sd, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "/web");
	free(v);
	/* disable drops the stats too */
	assert_int_equal(mcg_async_disable(sd, s.root, s.path), 0);
	assert_int_equal(mcg_async_stats_read(sd, s.root, s.path, &r), -ENOENT);
	/* a removed cgroup's stats alone can be disabled */
	s.state = MCG_ASYNC_GONE;
	assert_int_equal(mcg_async_stats_write(sd, &s), 0);
	assert_int_equal(mcg_async_disable(sd, s.root, s.path), 0);
	assert_int_equal(mcg_async_disable(sd, s.root, s.path), -ENOENT);
}

static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(mcg_async_state_name(MCG_ASYNC_WAITING), "waiting");
	assert_string_equal(mcg_async_state_name(MCG_ASYNC_THRASHING), "thrashing");
	assert_string_equal(mcg_async_state_name(MCG_ASYNC_GONE), "gone");
	assert_string_equal(mcg_async_state_name(MCG_ASYNC_CLEAN_SKIP), "clean");
	assert_string_equal(mcg_async_state_name((enum mcg_async_state)99), "unknown");
}

static void test_reclaimd_info_none(void **state)
{
	struct mcg_reclaimd_info info = {.pid = 5};
	char file[300];
	FILE *f;

	(void)state;
	assert_int_equal(mcg_reclaimd_info(dir, &info), 0);
	assert_int_equal(info.pid, 0);
	/* a pid file nobody holds locked is a dead daemon's */
	snprintf(file, sizeof(file), "%s/reclaimd.pid", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	info.pid = 5;
	assert_int_equal(mcg_reclaimd_info(dir, &info), 0);
	assert_int_equal(info.pid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_margins),
		cmocka_unit_test(test_watermarks),
		cmocka_unit_test(test_enable_list_disable),
		cmocka_unit_test(test_conf_read_rejects),
		cmocka_unit_test(test_stats_roundtrip),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_reclaimd_info_none),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
