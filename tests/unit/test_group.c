/* test_group.c: path validation (relative, absolute, pid:N, "..", symlinks), knob I/O and the
 * model's absent-versus-zero rule, on temporary and captured fixture trees. */
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

static char tmpl[] = "/tmp/mcg-unit-XXXXXX";
static char root[4200], procfs[4200];

static void put(const char *rel, const char *content)
{
	char p[8400];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpl, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void mk(const char *rel)
{
	char p[8400];

	snprintf(p, sizeof(p), "%s/%s", tmpl, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void v2cg(const char *rel)
{
	char f[512];

	mk(rel);
	snprintf(f, sizeof(f), "%s/cgroup.controllers", rel);
	put(f, "memory\n");
	snprintf(f, sizeof(f), "%s/memory.max", rel);
	put(f, "max\n");
	snprintf(f, sizeof(f), "%s/memory.current", rel);
	put(f, "8192\n");
	snprintf(f, sizeof(f), "%s/memory.stat", rel);
	put(f, "anon 4096\nfile 4096\n");
	snprintf(f, sizeof(f), "%s/cgroup.procs", rel);
	put(f, "");
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(tmpl));
	mk("cg");
	put("cg/cgroup.controllers", "memory\n");
	put("cg/memory.stat", "anon 0\n");
	put("cg/cgroup.procs", "1\n");
	v2cg("cg/a");
	v2cg("cg/a/b");
	mk("cg/plain"); /* a directory that is not a cgroup */
	mk("outside");
	v2cg("outside/x");
	assert_int_equal(symlink("../outside/x", strcat(strcpy(root, tmpl), "/cg/escape")), 0);
	assert_int_equal(symlink("a", strcat(strcpy(root, tmpl), "/cg/alias")), 0);
	mk("proc");
	mk("proc/123");
	put("proc/123/cgroup", "0::/a/b\n");
	mk("proc/124");
	put("proc/124/cgroup", "5:cpu:/x\n4:memory,foo:/a\n0::/\n");
	snprintf(root, sizeof(root), "%s/cg", tmpl);
	snprintf(procfs, sizeof(procfs), "%s/proc", tmpl);
	return 0;
}

static int teardown(void **state)
{
	char cmd[8400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	return system(cmd);
}

static struct mcg_ctx *ctx_v(int v)
{
	struct mcg_ctx *ctx = NULL;

	assert_int_equal(mcg_ctx_new_root(root, v, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_ctx_set_procfs(ctx, procfs), 0);
	return ctx;
}

static void expect_open(struct mcg_ctx *ctx, const char *spec, int want, const char *path)
{
	struct mcg_group *g = (struct mcg_group *)0x1;
	int r = mcg_group_open(ctx, spec, &g);

	if (r != want)
		fail_msg("open '%s': got %d (%s), want %d", spec, r, mcg_strerror(r), want);
	if (r == 0) {
		assert_string_equal(mcg_group_path(g), path);
		mcg_group_close(g);
	} else {
		assert_ptr_equal(g, (struct mcg_group *)0x1); /* untouched on failure */
	}
}

static void test_paths(void **state)
{
	struct mcg_ctx *ctx = ctx_v(0);
	char abs[8400];

	(void)state;
	assert_int_equal(mcg_ctx_version(ctx), 2);
	expect_open(ctx, "/", 0, "/");
	expect_open(ctx, "/a", 0, "/a");
	expect_open(ctx, "a/b", 0, "/a/b");
	expect_open(ctx, "//a///b/", 0, "/a/b");
	expect_open(ctx, "/a/./b", 0, "/a/b");
	snprintf(abs, sizeof(abs), "%s/a/b", root);
	expect_open(ctx, abs, 0, "/a/b");
	expect_open(ctx, root, 0, "/");
	expect_open(ctx, "/a/../a", -MCG_E_ESCAPE, NULL);
	expect_open(ctx, "..", -MCG_E_ESCAPE, NULL);
	expect_open(ctx, "/escape", -MCG_E_ESCAPE, NULL);
	expect_open(ctx, "/alias", -MCG_E_ESCAPE, NULL); /* even a link inside: never followed */
	expect_open(ctx, "/plain", -MCG_E_NOTCGROUP, NULL);
	expect_open(ctx, "/a/memory.max", -MCG_E_NOTCGROUP, NULL);
	expect_open(ctx, "/nope", -ENOENT, NULL);
	expect_open(ctx, "", -EINVAL, NULL);
	expect_open(ctx, "pid:123", 0, "/a/b");
	expect_open(ctx, "pid:999", -ESRCH, NULL);
	expect_open(ctx, "pid:abc", -EINVAL, NULL);
	expect_open(ctx, "pid:-1", -EINVAL, NULL);
	expect_open(ctx, "pid:", -EINVAL, NULL);
	mcg_ctx_free(ctx);
}

static void test_pid_v1(void **state)
{
	struct mcg_ctx *ctx = ctx_v(2);
	char buf[64];

	(void)state;
	mcg_ctx_free(ctx);
	/* a v1 context reads the memory line (controllers listed with commas) */
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_ctx_set_procfs(ctx, procfs), 0);
	assert_int_equal(mcg_pid_cgroup(ctx, 124, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a");
	assert_int_equal(mcg_pid_cgroup(ctx, 123, buf, sizeof(buf)), -ENOENT);
	mcg_ctx_free(ctx);
}

static void test_knobs(void **state)
{
	struct mcg_ctx *ctx = ctx_v(2);
	struct mcg_group *g;
	uint64_t v = 0;
	char buf[64];

	(void)state;
	assert_int_equal(mcg_group_open(ctx, "/a", &g), 0);
	assert_int_equal(mcg_knob_read_u64(g, "memory.max", &v), 0);
	assert_true(v == MCG_MAX);
	assert_int_equal(mcg_knob_write_u64(g, "memory.max", 1 << 20, &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(mcg_knob_write_u64(g, "memory.max", MCG_MAX, &v), 0);
	assert_true(v == MCG_MAX);
	assert_true(mcg_knob_read(g, "memory.max", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "max");
	assert_int_equal(mcg_knob_read(g, "../a/memory.max", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mcg_knob_read(g, "memory.nope", buf, sizeof(buf)), -ENOENT);
	assert_false(mcg_knob_exists(g, "memory.high"));
	assert_true(mcg_knob_exists(g, "memory.current"));
	mcg_group_close(g);
	mcg_ctx_free(ctx);
}

static int count_cb(const char *path, int depth, void *userdata)
{
	int *n = userdata;

	(void)path;
	(void)depth;
	(*n)++;
	return 0;
}

static void test_walk(void **state)
{
	struct mcg_ctx *ctx = ctx_v(2);
	int n = 0;

	(void)state;
	/* /, /a, /a/b, /plain (the walk lists directories; symlinks are not walked) */
	assert_int_equal(mcg_walk(ctx, "/", -1, count_cb, &n), 0);
	assert_int_equal(n, 4);
	n = 0;
	assert_int_equal(mcg_walk(ctx, "/a", 0, count_cb, &n), 0);
	assert_int_equal(n, 1);
	mcg_ctx_free(ctx);
}

/* The captured v1 fixture and the v2 fixture: present counters present, absent ones absent. */
static void test_info_fixtures(void **state)
{
	char dir[4200];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	struct mcg_info i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/../../cli/fixtures/v1/cgroup", MCG_TEST_DATA);
	assert_int_equal(mcg_ctx_new_root(dir, 0, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_ctx_version(ctx), 1);
	assert_int_equal(mcg_group_open(ctx, "/fixture/app", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_true(mcg_info_has(&i, MCG_F_LIMIT));
	assert_int_equal(i.f[MCG_F_LIMIT], 512ULL << 20);
	assert_true(mcg_info_has(&i, MCG_F_SOFT));
	assert_true(i.f[MCG_F_SOFT] == MCG_MAX); /* the v1 sentinel reads as max */
	assert_true(mcg_info_has(&i, MCG_F_FAILCNT));
	assert_false(mcg_info_has(&i, MCG_F_HIGH));
	assert_false(mcg_info_has(&i, MCG_F_EV_MAX));
	assert_false(mcg_stat_has(&i.stat, MCG_S_PGSCAN));
	assert_true(mcg_stat_has(&i.stat, MCG_S_KERNEL)); /* from memory.kmem.usage_in_bytes */
	assert_int_equal(i.f[MCG_F_EFFECTIVE_LIMIT], 512ULL << 20);
	assert_int_equal(i.f[MCG_F_NR_PROCS], 2);
	mcg_info_release(&i);
	mcg_group_close(g);
	mcg_ctx_free(ctx);

	snprintf(dir, sizeof(dir), "%s/../../cli/fixtures/v2/cgroup", MCG_TEST_DATA);
	assert_int_equal(mcg_ctx_new_root(dir, 0, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_ctx_version(ctx), 2);
	assert_int_equal(mcg_group_open(ctx, "/fixture/idle", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_true(mcg_info_has(&i, MCG_F_USAGE));
	assert_int_equal(i.f[MCG_F_USAGE], 0); /* zero, and present */
	assert_true(mcg_info_has(&i, MCG_F_HIGH));
	assert_false(mcg_info_has(&i, MCG_F_SOFT));
	assert_false(mcg_info_has(&i, MCG_F_FAILCNT));
	assert_false(mcg_stat_has(&i.stat, MCG_S_PGPGIN));
	/* the effective limit is the parent's 1 GiB */
	assert_int_equal(i.f[MCG_F_EFFECTIVE_LIMIT], 1ULL << 30);
	mcg_info_release(&i);
	mcg_group_close(g);
	/* the v2 root has no memory.current: usage absent, limit max */
	assert_int_equal(mcg_group_open(ctx, "/", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_false(mcg_info_has(&i, MCG_F_USAGE));
	assert_true(i.f[MCG_F_LIMIT] == MCG_MAX);
	mcg_info_release(&i);
	mcg_group_close(g);
	mcg_ctx_free(ctx);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(mcg_strerror(-MCG_E_ESCAPE), "path leaves the cgroup hierarchy");
	assert_string_equal(mcg_strerror(-ENOENT), "No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths), cmocka_unit_test(test_pid_v1),
		cmocka_unit_test(test_knobs), cmocka_unit_test(test_walk),
		cmocka_unit_test(test_info_fixtures), cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
