/* test_empty.c: the batch parser and the stepping plan of 'empty' (targets, budget, patience). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "memcg.h"
#include "fx-files.h"
#include "fx-tmp.h"

#define PAGE ((uint64_t)mcg_page_size())

static void test_batch_valid(void **state)
{
	static const struct {
		const char *in;
		uint64_t pages; /* expected bytes = pages * PAGE, or bytes when pages == 0 */
		uint64_t bytes;
	} cases[] = {
		{"1", 1, 0},      {"32", 32, 0}, {"1024", 1024, 0}, {"65536", 65536, 0},
		{"4M", 0, 4 << 20}, {"1G", 0, 1 << 30}, {"256K", 0, 256 << 10},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t b = 0;
		char why[128];

		assert_int_equal(mcg_empty_parse_batch(cases[i].in, &b, why, sizeof(why)), 0);
		assert_int_equal(b, cases[i].pages ? cases[i].pages * PAGE : cases[i].bytes);
		assert_int_equal(b % PAGE, 0);
	}
}

static void test_batch_invalid(void **state)
{
	static const char *const bad[] = {
		"0", "-1", "-4M", "", "abc", "12x", "0M", "1.5", "99999999999999999999999",
		"2G", "1025M",
	};
	size_t i;
	uint64_t b = 12345;
	char why[128] = "";

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_true(mcg_empty_parse_batch(bad[i], &b, why, sizeof(why)) < 0);
		assert_int_equal(b, 12345); /* untouched on failure */
		assert_true(why[0] != '\0');
	}
	/* one page over 1 GiB of pages */
	snprintf(why, sizeof(why), "%llu", (unsigned long long)(MCG_EMPTY_MAX_BATCH / PAGE + 1));
	assert_true(mcg_empty_parse_batch(why, &b, why, sizeof(why)) < 0);
	/* exactly 1 GiB is the largest */
	snprintf(why, sizeof(why), "%llu", (unsigned long long)(MCG_EMPTY_MAX_BATCH / PAGE));
	assert_int_equal(mcg_empty_parse_batch(why, &b, why, sizeof(why)), 0);
	assert_int_equal(b, MCG_EMPTY_MAX_BATCH);
	/* a size below one page */
	b = 12345;
	assert_true(mcg_empty_parse_batch("1K", &b, why, sizeof(why)) < 0 || PAGE <= 1024);
	if (PAGE > 1024)
		assert_int_equal(b, 12345);
}

static void test_plan_steps_to_target(void **state)
{
	struct mcg_empty_plan p;

	(void)state;
	mcg_empty_plan_init(&p, 1024 * PAGE, 0, PAGE, false, 0);
	/* far above the target: one batch */
	assert_int_equal(mcg_empty_plan_next(&p, 100 << 20), 1024 * PAGE);
	/* close to the target: only what is left, in whole pages */
	assert_int_equal(mcg_empty_plan_next(&p, 3 * PAGE), 3 * PAGE);
	assert_int_equal(mcg_empty_plan_next(&p, PAGE + 1), 2 * PAGE);
	/* at or below: nothing */
	assert_int_equal(mcg_empty_plan_next(&p, 0), 0);

	mcg_empty_plan_init(&p, 1024 * PAGE, 50 << 20, PAGE, false, 0);
	assert_int_equal(mcg_empty_plan_next(&p, 50 << 20), 0);
	assert_int_equal(mcg_empty_plan_next(&p, (50 << 20) - 1), 0);
	assert_int_equal(mcg_empty_plan_next(&p, (50 << 20) + 10 * PAGE), 10 * PAGE);
	assert_int_equal(mcg_empty_plan_next(&p, 1ULL << 40), 1024 * PAGE);
}

static void test_plan_budget(void **state)
{
	struct mcg_empty_plan p;

	(void)state;
	/* v1: never ask beyond what memory.stat called reclaimable */
	mcg_empty_plan_init(&p, 1024 * PAGE, 0, PAGE, true, 100 * PAGE);
	assert_int_equal(mcg_empty_plan_next(&p, 1 << 30), 100 * PAGE);
	assert_true(mcg_empty_plan_account(&p, 1 << 30, (1 << 30) - 60 * PAGE));
	assert_int_equal(p.budget, 40 * PAGE);
	assert_int_equal(mcg_empty_plan_next(&p, (1 << 30) - 60 * PAGE), 40 * PAGE);
	/* freeing more than the budget (usage moved) spends it, never wraps */
	assert_true(mcg_empty_plan_account(&p, 1 << 30, (1 << 30) - 500 * PAGE));
	assert_int_equal(p.budget, 0);
	assert_int_equal(mcg_empty_plan_next(&p, 1 << 30), 0);
	/* less than a page of budget is no budget */
	mcg_empty_plan_init(&p, 1024 * PAGE, 0, PAGE, true, PAGE - 1);
	assert_int_equal(mcg_empty_plan_next(&p, 1 << 30), 0);
	/* unbounded plans (v2) ignore the budget */
	mcg_empty_plan_init(&p, 1024 * PAGE, 0, PAGE, false, 0);
	assert_int_equal(mcg_empty_plan_next(&p, 1 << 30), 1024 * PAGE);
}

static void test_plan_patience(void **state)
{
	struct mcg_empty_plan p;
	unsigned i;

	(void)state;
	mcg_empty_plan_init(&p, 32 * PAGE, 0, PAGE, false, 0);
	/* progress resets the count; PATIENCE idle steps in a row stop */
	for (i = 0; i + 1 < MCG_EMPTY_PATIENCE; i++)
		assert_true(mcg_empty_plan_account(&p, 1000 * PAGE, 1000 * PAGE));
	assert_true(mcg_empty_plan_account(&p, 1000 * PAGE, 999 * PAGE));
	assert_int_equal(p.idle, 0);
	for (i = 0; i + 1 < MCG_EMPTY_PATIENCE; i++)
		assert_true(mcg_empty_plan_account(&p, 1000 * PAGE, 1001 * PAGE)); /* usage grew */
	assert_false(mcg_empty_plan_account(&p, 1000 * PAGE, 1000 * PAGE));
}

static void test_plan_batch_rounding(void **state)
{
	struct mcg_empty_plan p;

	(void)state;
	mcg_empty_plan_init(&p, PAGE + 5, 0, PAGE, false, 0);
	assert_int_equal(p.batch, PAGE);
	mcg_empty_plan_init(&p, 3, 0, PAGE, false, 0);
	assert_int_equal(p.batch, PAGE);
}

static void test_stop_names(void **state)
{
	(void)state;
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_DONE), "done");
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_UNRECLAIMABLE), "unreclaimable");
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_NO_PROGRESS), "no-progress");
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_TIMEOUT), "timeout");
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_INTERRUPTED), "interrupted");
	assert_string_equal(mcg_empty_stop_name(MCG_EMPTY_KERNEL), "force-empty");
}

/* ---- mcg_empty_run on a fake v1 tree: the cancel shape ---- */

static uint64_t knob(struct mcg_group *g, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(mcg_knob_read_u64(g, name, &v), 0);
	return v;
}

/*
 * A fake v1 tree in DIR (a mkdtemp name): proc/meminfo := MEMINFO, root/ and
 * root/app (usage USAGE, limit 512 MiB, no tasks), the context with its procfs
 * and run dir, and /app open in *G.
 */
static void fx_v1(const char *dir, const char *meminfo, const char *usage, struct mcg_ctx **ctx,
		  struct mcg_group **g)
{
	char d[256];

	snprintf(d, sizeof(d), "%s/proc", dir);
	mkdir(d, 0755);
	put(d, "meminfo", meminfo);
	snprintf(d, sizeof(d), "%s/root", dir);
	mkdir(d, 0755);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	put(d, "memory.usage_in_bytes", "0\n");
	strcat(d, "/app");
	mkdir(d, 0755);
	put(d, "memory.usage_in_bytes", usage);
	put(d, "memory.limit_in_bytes", "536870912\n");
	put(d, "cgroup.procs", "");
	snprintf(d, sizeof(d), "%s/root", dir);
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, ctx), 0);
	snprintf(d, sizeof(d), "%s/proc", dir);
	assert_int_equal(mcg_ctx_set_procfs(*ctx, d), 0);
	snprintf(d, sizeof(d), "%s/run", dir);
	assert_int_equal(mcg_ctx_set_rundir(*ctx, d), 0);
	assert_int_equal(mcg_group_open(*ctx, "/app", g), 0);
}

/*
 * A deadline already past: empty stops before its first step with a timeout,
 * the flag makes it an interrupt instead; either way the limit is as it was
 * (read back) and no journal is left.
 */
static void test_run_cancelled_before_any_step(void **state)
{
	static volatile sig_atomic_t flag;
	struct mcg_cancel c = {1, &flag};
	struct mcg_empty_opts o = {0};
	struct mcg_empty_result res;
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char dir[64] = "/tmp/test_empty.XXXXXX", d[256], cmd[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, "MemTotal: 16777216 kB\nSwapFree: 0 kB\n", "157286400\n", &ctx, &g);
	snprintf(d, sizeof(d), "%s/root/app", dir);
	put(d, "memory.stat", "total_cache 104857600\ntotal_rss 41943040\ntotal_inactive_file "
			      "104857600\ntotal_active_file 0\n");

	flag = 0;
	assert_int_equal(mcg_empty_run(g, &o, &c, &res), 0);
	assert_int_equal(res.stop, MCG_EMPTY_TIMEOUT);
	assert_int_equal(res.steps, 0);
	assert_int_equal(res.writes, 0);
	assert_false(res.limit_changed);
	assert_int_equal(res.usage_before, 150 << 20);
	assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);
	flag = SIGINT;
	assert_int_equal(mcg_empty_run(g, &o, &c, &res), 0);
	assert_int_equal(res.stop, MCG_EMPTY_INTERRUPTED);
	assert_int_equal(res.steps, 0);
	assert_int_equal(knob(g, "memory.limit_in_bytes"), 512 << 20);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal')\"", dir);
	assert_int_equal(system(cmd), 0);

	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/*
 * empty's residue through the one record, on the captured v1 memory.stat: the
 * hierarchical total_ keys, the kmem counter as kernel memory (v1 memory.stat
 * has no kernel key), SwapFree from the one meminfo reader. The same values
 * the old memory.stat view gave (it read the same table).
 */
static void test_residue_v1_captured(void **state)
{
	char dir[64] = "/tmp/test_empty.XXXXXX", d[256], cmd[1024];
	struct mcg_residue res;
	struct mcg_ctx *ctx;
	struct mcg_group *g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fx_v1(dir, "MemTotal: 16777216 kB\nSwapTotal: 4096 kB\nSwapFree:   2048 kB\n",
	      "52428800\n", &ctx, &g);
	snprintf(d, sizeof(d), "%s/root/app", dir);
	put(d, "memory.kmem.usage_in_bytes", "3145728\n");
	snprintf(cmd, sizeof(cmd), "cp '%s/v1.memory.stat' '%s/memory.stat'", MCG_TEST_DATA, d);
	assert_int_equal(system(cmd), 0);

	assert_int_equal(mcg_residue_read(g, &res), 0);
	assert_int_equal(res.usage, 52428800);
	assert_true(res.valid & MCG_RESIDUE_FILE);
	assert_int_equal(res.file, 41951232); /* total_cache */
	assert_int_equal(res.file_dirty, 25174016); /* total_dirty */
	assert_true(res.valid & MCG_RESIDUE_WRITEBACK);
	assert_int_equal(res.file_writeback, 0); /* zero, and present */
	assert_int_equal(res.anon, 8593408); /* total_rss */
	assert_int_equal(res.shmem, 0);
	assert_int_equal(res.unevictable, 0);
	assert_true(res.valid & MCG_RESIDUE_KERNEL);
	assert_int_equal(res.kernel, 3145728); /* memory.kmem.usage_in_bytes */
	assert_true(res.valid & MCG_RESIDUE_SWAP);
	assert_int_equal(res.swap_free, 2048 * 1024);
	assert_true(res.valid & MCG_RESIDUE_CHILDREN);
	assert_int_equal(res.nr_children, 0);

	/* no kmem counter, no SwapFree line: absent, not 0 */
	snprintf(d, sizeof(d), "%s/root/app/memory.kmem.usage_in_bytes", dir);
	assert_int_equal(unlink(d), 0);
	snprintf(d, sizeof(d), "%s/proc", dir);
	put(d, "meminfo", "MemTotal: 16777216 kB\n");
	assert_int_equal(mcg_residue_read(g, &res), 0);
	assert_false(res.valid & MCG_RESIDUE_KERNEL);
	assert_false(res.valid & MCG_RESIDUE_SWAP);
	assert_int_equal(res.file, 41951232);

	mcg_group_close(g);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_valid),	     cmocka_unit_test(test_batch_invalid),
		cmocka_unit_test(test_plan_steps_to_target), cmocka_unit_test(test_plan_budget),
		cmocka_unit_test(test_plan_patience),	     cmocka_unit_test(test_plan_batch_rounding),
		cmocka_unit_test(test_stop_names),
		cmocka_unit_test(test_run_cancelled_before_any_step),
		cmocka_unit_test(test_residue_v1_captured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
