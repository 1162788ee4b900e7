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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "memcg.h"
#include "fx-tmp.h"

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
	(void)state;
	return fx_rmtree(tmpl);
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
	/* a plain decimal id only (issue 12: "pid: 1" was accepted) */
	expect_open(ctx, "pid: 123", -EINVAL, NULL);
	expect_open(ctx, "pid:+123", -EINVAL, NULL);
	expect_open(ctx, "pid:123 ", -EINVAL, NULL);
	expect_open(ctx, "pid:0123", -EINVAL, NULL);
	expect_open(ctx, "pid:99999999999", -EINVAL, NULL);
	{
		char longname[400];

		memset(longname, 'n', sizeof(longname) - 1);
		longname[0] = '/';
		longname[sizeof(longname) - 1] = '\0';
		expect_open(ctx, longname, -ENAMETOOLONG, NULL);
	}
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
	assert_true(mcg_record_has(&i.rec, MCG_K_LIMIT));
	assert_int_equal(i.rec.v[MCG_K_LIMIT], 512ULL << 20);
	assert_true(mcg_record_has(&i.rec, MCG_K_SOFT_LIMIT));
	assert_true(i.rec.v[MCG_K_SOFT_LIMIT] == MCG_MAX); /* the v1 sentinel reads as max */
	assert_true(mcg_record_has(&i.rec, MCG_K_FAILCNT));
	assert_false(mcg_record_has(&i.rec, MCG_K_HIGH));
	assert_false(mcg_record_has(&i.rec, MCG_K_EV_MAX));
	assert_false(mcg_record_has(&i.rec, MCG_K_PGSCAN));
	assert_true(mcg_record_has(&i.rec, MCG_K_KERNEL)); /* from memory.kmem.usage_in_bytes */
	assert_int_equal(i.rec.v[MCG_K_EFFECTIVE_LIMIT], 512ULL << 20);
	assert_int_equal(i.rec.v[MCG_K_NR_PROCS], 2);
	mcg_info_release(&i);
	mcg_group_close(g);
	mcg_ctx_free(ctx);

	snprintf(dir, sizeof(dir), "%s/../../cli/fixtures/v2/cgroup", MCG_TEST_DATA);
	assert_int_equal(mcg_ctx_new_root(dir, 0, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_ctx_version(ctx), 2);
	assert_int_equal(mcg_group_open(ctx, "/fixture/idle", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_true(mcg_record_has(&i.rec, MCG_K_USAGE));
	assert_int_equal(i.rec.v[MCG_K_USAGE], 0); /* zero, and present */
	assert_true(mcg_record_has(&i.rec, MCG_K_HIGH));
	assert_false(mcg_record_has(&i.rec, MCG_K_SOFT_LIMIT));
	assert_false(mcg_record_has(&i.rec, MCG_K_FAILCNT));
	assert_false(mcg_record_has(&i.rec, MCG_K_PGPGIN));
	/* the effective limit is the parent's 1 GiB */
	assert_int_equal(i.rec.v[MCG_K_EFFECTIVE_LIMIT], 1ULL << 30);
	mcg_info_release(&i);
	mcg_group_close(g);
	/* the v2 root has no memory.current: usage absent, limit max */
	assert_int_equal(mcg_group_open(ctx, "/", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_false(mcg_record_has(&i.rec, MCG_K_USAGE));
	assert_true(i.rec.v[MCG_K_LIMIT] == MCG_MAX);
	mcg_info_release(&i);
	mcg_group_close(g);
	mcg_ctx_free(ctx);
}

/*
 * The sampler once, asked for some counters (list, one-shot export), gives
 * each of them as mcg_group_info() does (but the v2 effective limit, which
 * export derives from the rows and the top's ancestors), and reads no file
 * that none of them needs; info's raw memory.stat keys (parsed in the
 * record's pass) are mcg_stat_parse()'s.
 */
static void once_record(struct mcg_ctx *ctx, const char *path, const struct mcg_keyset *ks,
			struct mcg_record *rec)
{
	struct mcg_snapshot *snap;
	struct mcg_sampler *s;

	assert_int_equal(mcg_sampler_new(ctx, path, MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, ks), 0);
	assert_int_equal(mcg_sampler_set_depth(s, 0), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 1);
	assert_int_equal(snap->rows[0].err, 0);
	mcg_sample_record(&snap->rows[0], rec);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
}

static void check_once(struct mcg_ctx *ctx, const char *path)
{
	static const enum mcg_key sets[][4] = {
		{MCG_K_USAGE},
		{MCG_K_ANON, MCG_K_FILE, MCG_K_DIRTY, MCG_K_WRITEBACK},
		{MCG_K_SWAP_USAGE},
		{MCG_K_REFAULT, MCG_K_EFFECTIVE_LIMIT},
		{MCG_K_NR_PROCS, MCG_K_LIMIT},
	};
	struct mcg_record rec;
	struct mcg_keyset ks;
	struct mcg_group *g;
	struct mcg_stat st;
	struct mcg_info i;
	char file[8400], *text;
	unsigned k;
	size_t s, j;
	FILE *f;

	assert_int_equal(mcg_group_open(ctx, path, &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		memset(&ks, 0, sizeof(ks));
		for (j = 0; j < 4 && (j == 0 || sets[s][j]); j++)
			mcg_keyset_add(&ks, sets[s][j]);
		once_record(ctx, path, &ks, &rec);
		mcg_keyset_foreach(k, &ks) {
			if (k == MCG_K_EFFECTIVE_LIMIT && mcg_ctx_version(ctx) == 2)
				continue;
			assert_int_equal(mcg_record_has(&rec, k), mcg_record_has(&i.rec, k));
			if (mcg_record_has(&rec, k))
				assert_true(rec.v[k] == i.rec.v[k]);
		}
		/* usage alone: memory.stat, cgroup.procs and the children are not read */
		if (s == 0) {
			assert_true(mcg_record_has(&i.rec, MCG_K_ANON));
			assert_false(mcg_record_has(&rec, MCG_K_ANON));
			assert_false(mcg_record_has(&rec, MCG_K_NR_PROCS));
			assert_false(mcg_record_has(&rec, MCG_K_NR_CHILDREN));
		}
	}
	/* every counter: the whole record (the taskstats stall is not a file's) */
	once_record(ctx, path, NULL, &rec);
	for (k = 0; k < MCG_K__COUNT; k++) {
		if ((k == MCG_K_EFFECTIVE_LIMIT && mcg_ctx_version(ctx) == 2) || k == MCG_K_STALL)
			continue;
		assert_int_equal(mcg_record_has(&rec, k), mcg_record_has(&i.rec, k));
		if (mcg_record_has(&rec, k))
			assert_true(rec.v[k] == i.rec.v[k]);
	}
	/* the raw keys, in file order */
	snprintf(file, sizeof(file), "%s%s/memory.stat", mcg_ctx_root(ctx), path);
	f = fopen(file, "r");
	assert_non_null(f);
	text = calloc(1, 65536);
	assert_non_null(text);
	assert_true(fread(text, 1, 65535, f) > 0);
	fclose(f);
	assert_int_equal(mcg_stat_parse(text, &st), 0);
	assert_true(st.n_raw >= 10);
	assert_int_equal(i.stat.n_raw, st.n_raw);
	for (j = 0; j < st.n_raw; j++) {
		assert_string_equal(i.stat.raw[j].key, st.raw[j].key);
		assert_true(i.stat.raw[j].value == st.raw[j].value);
	}
	mcg_stat_release(&st);
	free(text);
	mcg_info_release(&i);
	mcg_group_close(g);
}

static void test_once_fixtures(void **state)
{
	char dir[4200];
	struct mcg_ctx *ctx;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/../../cli/fixtures/v1/cgroup", MCG_TEST_DATA);
	assert_int_equal(mcg_ctx_new_root(dir, 0, NULL, NULL, &ctx), 0);
	check_once(ctx, "/fixture/app");
	mcg_ctx_free(ctx);
	snprintf(dir, sizeof(dir), "%s/../../cli/fixtures/v2/cgroup", MCG_TEST_DATA);
	assert_int_equal(mcg_ctx_new_root(dir, 0, NULL, NULL, &ctx), 0);
	check_once(ctx, "/fixture/idle");
	check_once(ctx, "/fixture/app");
	mcg_ctx_free(ctx);
}

/* A knob that is a symlink (planted in a --root tree) is never followed: read, write, exists. */
static void test_knob_symlink(void **state)
{
	struct mcg_ctx *ctx = ctx_v(2);
	struct mcg_group *g;
	char buf[64], p[8400], q[8400];
	FILE *f;

	(void)state;
	put("outside/secret", "untouched\n");
	snprintf(p, sizeof(p), "%s/outside/secret", tmpl);
	snprintf(q, sizeof(q), "%s/cg/a/memory.low", tmpl);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(mcg_group_open(ctx, "/a", &g), 0);
	assert_int_equal(mcg_knob_read(g, "memory.low", buf, sizeof(buf)), -ELOOP);
	assert_int_equal(mcg_knob_write(g, "memory.low", "0"), -ELOOP);
	assert_false(mcg_knob_exists(g, "memory.low"));
	mcg_group_close(g);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "untouched\n");
	unlink(q);
	mcg_ctx_free(ctx);
}

/* mkdir NAME under DFD with the v2 cgroup files; returns the new directory's fd. */
static int mkcg_at(int dfd, const char *name)
{
	static const char *const files[] = {"cgroup.controllers", "memory.max", "memory.current",
					    "memory.stat", "cgroup.procs"};
	size_t i;
	int fd;

	assert_int_equal(mkdirat(dfd, name, 0755), 0);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int f = openat(fd, files[i], O_WRONLY | O_CREAT, 0644);

		assert_true(f >= 0);
		assert_int_equal(write(f, "max\n", 4), 4);
		close(f);
	}
	return fd;
}

struct paths {
	char *p[64];
	int n;
	size_t longest;
};

static int collect_cb(const char *path, int depth, void *userdata)
{
	struct paths *ps = userdata;

	(void)depth;
	if (ps->n < 64)
		ps->p[ps->n++] = strdup(path);
	if (strlen(path) > ps->longest)
		ps->longest = strlen(path);
	return 0;
}

/*
 * 19 nested cgroups with 250-byte names (a 4774-byte path, past PATH_MAX) and a dot
 * name: each is walked once with its whole path, and the deepest opens again by it
 * (issue 12: the walk cut paths at PATH_MAX and listed three cgroups under one path).
 */
static void test_deep_paths(void **state)
{
	struct mcg_ctx *ctx = ctx_v(2);
	struct paths ps = {{0}, 0, 0};
	struct mcg_group *g;
	char name[251], *deepest;
	int fd, i, j;

	(void)state;
	fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	i = mkcg_at(fd, "deep");
	close(fd);
	close(mkcg_at(i, ".dot"));
	fd = i;
	for (i = 1; i <= 19; i++) {
		int nfd;

		memset(name, 'y', 250);
		name[250] = '\0';
		name[0] = (char)('a' + i); /* each level its own name */
		nfd = mkcg_at(fd, name);
		close(fd);
		fd = nfd;
	}
	close(fd);
	assert_int_equal(mcg_walk(ctx, "/deep", -1, collect_cb, &ps), 0);
	assert_int_equal(ps.n, 21); /* /deep, /deep/.dot, 19 levels */
	assert_int_equal(ps.longest, strlen("/deep") + 19 * 251);
	for (i = 0; i < ps.n; i++)
		for (j = i + 1; j < ps.n; j++)
			assert_string_not_equal(ps.p[i], ps.p[j]);
	assert_string_equal(ps.p[1], "/deep/.dot");
	deepest = ps.p[ps.n - 1];
	assert_int_equal(strlen(deepest), ps.longest);
	assert_int_equal(mcg_group_open(ctx, deepest, &g), 0);
	assert_string_equal(mcg_group_path(g), deepest);
	mcg_group_close(g);
	for (i = 0; i < ps.n; i++)
		free(ps.p[i]);
	mcg_ctx_free(ctx);
}

static int warnings;
static void count_log(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)fmt;
	(void)ap;
	if (level == MCG_LOG_WARNING)
		warnings++;
}

static int depth_cb(const char *path, int depth, void *userdata)
{
	int *max = userdata;

	(void)path;
	if (depth > *max)
		*max = depth;
	return 0;
}

/* A tree deeper than MCG_WALK_MAX_DEPTH: the walk stops there and says so (no unbounded recursion). */
static void test_depth_bound(void **state)
{
	struct mcg_ctx *ctx = NULL;
	int fd, i, max = -1;

	(void)state;
	assert_int_equal(mcg_ctx_new_root(root, 2, count_log, NULL, &ctx), 0);
	fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	i = mkcg_at(fd, "tall");
	close(fd);
	fd = i;
	for (i = 0; i < MCG_WALK_MAX_DEPTH + 20; i++) {
		int nfd;

		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		assert_true(nfd >= 0);
		close(fd);
		fd = nfd;
	}
	close(fd);
	warnings = 0;
	assert_int_equal(mcg_walk(ctx, "/tall", -1, depth_cb, &max), 0);
	assert_int_equal(max, MCG_WALK_MAX_DEPTH);
	assert_int_equal(warnings, 1);
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
		cmocka_unit_test(test_info_fixtures), cmocka_unit_test(test_once_fixtures),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_knob_symlink), cmocka_unit_test(test_deep_paths),
		cmocka_unit_test(test_depth_bound),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
