/* test_async_enable.c: async reclaim's enable and disable operations (ops/async-enable.c) on a fake v1 tree. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "memcg.h"
#include "fx-files.h"
#include "fx-tmp.h"

#define MIB (1024ULL * 1024)

struct fx {
	char dir[64], statedir[128];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
};

/* DIR/root (the hierarchy) and /app in it with LIMIT; the run and state directories in DIR. */
static void fx_open(struct fx *f, const char *limit)
{
	char d[256];

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_async_enable.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(d, sizeof(d), "%s/root", f->dir);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	put(d, "memory.usage_in_bytes", "0\n");
	strcat(d, "/app");
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "memory.limit_in_bytes", limit);
	put(d, "memory.usage_in_bytes", "0\n");
	snprintf(d, sizeof(d), "%s/root", f->dir);
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, &f->ctx), 0);
	snprintf(d, sizeof(d), "%s/run", f->dir);
	assert_int_equal(mcg_ctx_set_rundir(f->ctx, d), 0);
	snprintf(f->statedir, sizeof(f->statedir), "%s/run/async-reclaim", f->dir);
	assert_int_equal(mcg_group_open(f->ctx, "/app", &f->g), 0);
}

static void fx_close(struct fx *f)
{
	mcg_group_close(f->g);
	mcg_ctx_free(f->ctx);
	assert_int_equal(fx_rmtree(f->dir), 0);
}

static size_t enabled(const struct fx *f, struct mcg_async_conf *ret)
{
	struct mcg_async_conf *c = NULL;
	size_t n = 0;

	assert_int_equal(mcg_async_list(f->statedir, &c, &n), 0);
	if (n && ret)
		*ret = c[0];
	free(c);
	return n;
}

static int start_calls;
static int start_fails(const char *statedir, pid_t *ret_pid, void *userdata)
{
	(void)statedir;
	(void)ret_pid;
	start_calls++;
	return *(int *)userdata;
}

/* Enabled with the defaults, no daemon asked for: the file, resolved marks, no pid. */
static void test_enable_defaults(void **state)
{
	struct mcg_async_enable_req req = {.force = true};
	struct mcg_async_enable_result res;
	struct mcg_async_conf c;
	uint64_t dh, dl;
	struct fx f;

	(void)state;
	fx_open(&f, "536870912\n");
	assert_int_equal(mcg_async_enable_run(f.g, f.statedir, &req, &res), 0);
	assert_int_equal(res.stage, MCG_AE_DONE);
	assert_int_equal(res.limit, 512 * MIB);
	mcg_async_default_margins(512 * MIB, &dh, &dl);
	assert_int_equal(res.high, 512 * MIB - dh);
	assert_int_equal(res.low, 512 * MIB - dl);
	assert_int_equal(res.pid, 0);
	assert_false(res.persistent);
	assert_int_equal(enabled(&f, &c), 1);
	assert_string_equal(c.path, "/app");
	assert_int_equal(c.batch, MCG_ASYNC_DEFAULT_BATCH);
	fx_close(&f);
}

/* Refusals say where and change nothing: no limit, bad values, marks that do not fit. */
static void test_enable_refused(void **state)
{
	static const struct {
		const char *limit;
		struct mcg_async_enable_req req;
		enum mcg_async_enable_stage stage;
	} cases[] = {
		{"9223372036854771712\n", {.force = true}, MCG_AE_NO_LIMIT},
		{"536870912\n", {.force = true, .batch = "0"}, MCG_AE_BATCH},
		{"536870912\n", {.force = true, .batch = "2000000"}, MCG_AE_BATCH},
		{"536870912\n", {.force = true, .max_cpu = "0.0001"}, MCG_AE_MAX_CPU},
		{"536870912\n", {.force = true, .max_cpu = "101"}, MCG_AE_MAX_CPU},
		{"536870912\n", {.force = true, .high = "40Q"}, MCG_AE_HIGH},
		{"536870912\n", {.force = true, .low_margin = "x"}, MCG_AE_LOW},
		{"536870912\n", {.force = true, .high = "600M"}, MCG_AE_WATERMARKS},
		{"536870912\n", {.force = true, .high = "90%", .low = "95%"}, MCG_AE_WATERMARKS},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcg_async_enable_result res;
		struct fx f;

		fx_open(&f, cases[i].limit);
		assert_true(mcg_async_enable_run(f.g, f.statedir, &cases[i].req, &res) < 0);
		if (res.stage != cases[i].stage)
			fail_msg("case %zu: stage %d, want %d", i, res.stage, cases[i].stage);
		if (cases[i].stage == MCG_AE_BATCH || cases[i].stage == MCG_AE_HIGH ||
		    cases[i].stage == MCG_AE_LOW)
			assert_true(res.why[0] != '\0');
		assert_int_equal(enabled(&f, NULL), 0);
		fx_close(&f);
	}
}

/*
 * A daemon that cannot be started: nothing half done. The first enable leaves no
 * file; over an earlier enable, that one is put back as it was.
 */
static void test_enable_start_fails_undoes(void **state)
{
	struct mcg_async_enable_req ok = {.force = true, .high = "400M"};
	int err = -EIO;
	struct mcg_async_enable_req req = {
		.force = true, .high = "450M", .start = start_fails, .start_data = &err};
	struct mcg_async_enable_result res;
	struct mcg_async_conf c;
	struct fx f;

	(void)state;
	fx_open(&f, "536870912\n");
	start_calls = 0;
	assert_int_equal(mcg_async_enable_run(f.g, f.statedir, &req, &res), -EIO);
	assert_int_equal(res.stage, MCG_AE_START);
	assert_int_equal(res.error, -EIO);
	assert_int_equal(start_calls, 1);
	assert_int_equal(enabled(&f, NULL), 0);

	assert_int_equal(mcg_async_enable_run(f.g, f.statedir, &ok, &res), 0);
	assert_int_equal(mcg_async_enable_run(f.g, f.statedir, &req, &res), -EIO);
	assert_int_equal(enabled(&f, &c), 1);
	assert_int_equal(c.high, 400 * MIB); /* the earlier one, not 450M */
	fx_close(&f);
}

/* Disable: changed once, then nothing to disable (0, as systemctl disable); a removed cgroup by path. */
static void test_disable(void **state)
{
	struct mcg_async_enable_req req = {.force = true};
	struct mcg_async_enable_result res;
	struct mcg_async_disable_result d;
	struct fx f;

	(void)state;
	fx_open(&f, "536870912\n");
	assert_int_equal(mcg_async_disable_run(f.ctx, f.statedir, "/app", false, &d), 0);
	assert_false(d.changed);
	assert_int_equal(mcg_async_enable_run(f.g, f.statedir, &req, &res), 0);
	assert_int_equal(enabled(&f, NULL), 1);
	assert_int_equal(mcg_async_disable_run(f.ctx, f.statedir, "/app", false, &d), 0);
	assert_true(d.changed);
	assert_false(d.unkept);
	assert_int_equal(enabled(&f, NULL), 0);
	assert_int_equal(mcg_async_disable_run(f.ctx, f.statedir, "/gone", false, &d), 0);
	assert_false(d.changed);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enable_defaults), cmocka_unit_test(test_enable_refused),
		cmocka_unit_test(test_enable_start_fails_undoes), cmocka_unit_test(test_disable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
