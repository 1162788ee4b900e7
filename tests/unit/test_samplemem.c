/*
 * test_samplemem.c: the sampler's memory across samples. A caller that lets
 * each snapshot go before the next (top -b, export --listen) gets the next
 * sample in the same rows, its rates taken from a compact copy of the
 * previous snapshot: the rates must be those mcg_snapshot_rates() gives from
 * the whole previous snapshot, and the bytes allocated must not grow from
 * sample to sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memcg.h"
#include "fx-files.h"

/* under ASan malloc is its own: its count of the bytes allocated (libasan; gcc has no header) */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN_BYTES 1
size_t __sanitizer_get_current_allocated_bytes(void);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN_BYTES 1
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#endif

static char tmpl[64];


/* A v1 cgroup directory with the files the sampler reads; N moves its counters. */
static void cg_v1(const char *dir, unsigned long n)
{
	mkdir(dir, 0755);
	putf(dir, "memory.usage_in_bytes", "%lu\n", 65536 + 4096 * n);
	putf(dir, "memory.limit_in_bytes", "%s\n", "9223372036854771712");
	putf(dir, "memory.failcnt", "%lu\n", n / 3);
	putf(dir, "memory.stat",
	    "cache 1\nrss 2\ntotal_cache %lu\ntotal_rss 4096\ntotal_dirty %lu\ntotal_writeback 0\n"
	    "total_pgpgout %lu\ntotal_workingset_refault_anon 1\ntotal_workingset_refault_file %lu\n",
	    61440 + 4096 * n, 4096 * (n % 5), 10 * n, 7 * n);
}

static void rm_cg(const char *dir)
{
	const char *f[] = {"memory.usage_in_bytes", "memory.limit_in_bytes", "memory.failcnt",
			   "memory.stat"};
	char p[512];
	unsigned i;

	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, f[i]);
		unlink(p);
	}
	rmdir(dir);
}

static int remove_tree(void **state)
{
	char cmd[128];

	(void)state;
	if (tmpl[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

#define NCG 12

static void mk_tree(char *root, size_t len)
{
	char dir[256];
	unsigned i;

	snprintf(tmpl, sizeof(tmpl), "/tmp/mcg-samplemem-XXXXXX");
	assert_non_null(mkdtemp(tmpl));
	assert_true((size_t)snprintf(root, len, "%s/cg", tmpl) < len);
	cg_v1(root, 0);
	for (i = 0; i < NCG; i++) {
		snprintf(dir, sizeof(dir), "%s/c%u", root, i);
		cg_v1(dir, i);
	}
}

/* A copy of SNAP's rows the caller owns (rates are computed on it by hand). */
static struct mcg_snapshot *copy_snap(const struct mcg_snapshot *snap)
{
	struct mcg_snapshot *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	size_t i, nc = snap->n_rows * snap->cols.n;

	assert_non_null(c);
	*c = *snap;
	c->rows = malloc((snap->n_rows ? snap->n_rows : 1) * sizeof(*c->rows));
	c->cells = malloc((nc ? nc : 1) * sizeof(*c->cells));
	assert_non_null(c->rows);
	assert_non_null(c->cells);
	memcpy(c->rows, snap->rows, snap->n_rows * sizeof(*c->rows));
	memcpy(c->cells, snap->cells, nc * sizeof(*c->cells));
	c->psis = NULL;
	for (i = 0; i < c->n_rows; i++) {
		/* the row's cells are the copy's, through the copy's columns */
		assert_ptr_equal(snap->rows[i].cell, snap->cells + i * snap->cols.n);
		assert_ptr_equal(snap->rows[i].cols, &snap->cols);
		c->rows[i].cols = &c->cols;
		c->rows[i].cell = c->cells + i * c->cols.n;
		c->rows[i].psi = NULL;
	}
	c->strings = NULL;
	c->refs = 1;
	return c;
}

static void free_copy(struct mcg_snapshot *c)
{
	free(c->rows);
	free(c->cells);
	free(c);
}

/* The rates and since-start counts of GOT are those mcg_snapshot_rates() gives from PREV. */
static void same_rates(const struct mcg_snapshot *prev, const struct mcg_snapshot *got)
{
	struct mcg_snapshot *want = copy_snap(got);
	size_t i;
	unsigned c;

	for (i = 0; i < want->n_rows; i++) {
		for (c = 0; c < want->cols.n; c++)
			want->rows[i].cell[c].rate = 0, want->rows[i].cell[c].since = 0;
		memset(&want->rows[i].rate_valid, 0, sizeof(want->rows[i].rate_valid));
	}
	mcg_snapshot_rates(prev, want);
	assert_true(want->interval == got->interval);
	assert_int_equal(want->global.rate_valid, got->global.rate_valid);
	for (c = 0; c < MCG_G__COUNT; c++)
		if ((got->global.rate_valid >> c) & 1)
			assert_true(want->global.rate[c] == got->global.rate[c]);
	for (i = 0; i < got->n_rows; i++) {
		const struct mcg_sample_row *w = &want->rows[i], *g = &got->rows[i];

		assert_memory_equal(&w->rate_valid, &g->rate_valid, sizeof(w->rate_valid));
		mcg_keyset_foreach(c, &g->rate_valid)
			assert_true(mcg_sample_rate(w, c) == mcg_sample_rate(g, c));
		mcg_keyset_foreach(c, &g->valid)
			assert_true(mcg_sample_since(w, c) == mcg_sample_since(g, c));
	}
	free_copy(want);
}

static void run_equivalence(unsigned rotate)
{
	char root[128], dir[256];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *snap, *prev = NULL;
	const struct mcg_sample_row *rows_was = NULL, *rows_was2 = NULL;
	unsigned step, i, reused = 0, moved = 0;

	mk_tree(root, sizeof(root));
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	if (rotate) {
		uint64_t ids[] = {1, 3};

		assert_int_equal(mcg_sampler_set_detail(s, ids, 2, rotate), 0);
	}
	for (step = 0; step < 8; step++) {
		assert_int_equal(mcg_sampler_sample(s, &snap), 0);
		if (prev) {
			same_rates(prev, snap);
			for (i = 0; i < snap->n_rows; i++)
				if (!mcg_keyset_empty(&snap->rows[i].rate_valid))
					moved++;
			free_copy(prev);
		}
		/*
		 * The rows of the sample before the previous one, filled again (the
		 * previous one is kept for the rates while the sample is taken).
		 */
		if (rows_was2 && snap->rows == rows_was2)
			reused++;
		rows_was2 = rows_was;
		rows_was = snap->rows;
		prev = copy_snap(snap);
		mcg_snapshot_unref(snap);
		usleep(2000);
		/* counters grow, one goes back, a cgroup goes and another comes */
		for (i = 0; i < NCG; i++) {
			snprintf(dir, sizeof(dir), "%s/c%u", root, i);
			if (i == 5 && step == 3) {
				rm_cg(dir);
				continue;
			}
			if (i == 5 && step < 3)
				continue;
			cg_v1(dir, i == 2 ? (step % 2 ? 1 : 40) : i + 3 * step + 3);
		}
	}
	free_copy(prev);
	assert_true(moved > 0);
	assert_true(reused >= 5); /* not when a row came or went */
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

static void test_compact_rates_equal(void **state)
{
	(void)state;
	run_equivalence(0);
}

static void test_compact_rates_equal_detail(void **state)
{
	(void)state;
	run_equivalence(3);
}

/* SNAP's rows and cells are those of its copy C (copy_snap()), pointers aside. */
static void untouched(const struct mcg_snapshot *snap, const struct mcg_snapshot *c)
{
	size_t i;

	assert_int_equal(snap->n_rows, c->n_rows);
	assert_int_equal(snap->cols.n, c->cols.n);
	assert_memory_equal(&snap->cols, &c->cols, sizeof(c->cols));
	assert_memory_equal(snap->cells, c->cells, snap->n_rows * snap->cols.n * sizeof(*c->cells));
	for (i = 0; i < snap->n_rows; i++) {
		const struct mcg_sample_row *a = &snap->rows[i], *b = &c->rows[i];

		assert_true(a->id == b->id && a->path == b->path && a->parent == b->parent &&
			    a->depth == b->depth && a->stale == b->stale && a->err == b->err &&
			    a->detail_ns == b->detail_ns);
		assert_memory_equal(&a->valid, &b->valid, sizeof(a->valid));
		assert_memory_equal(&a->rate_valid, &b->rate_valid, sizeof(a->rate_valid));
		assert_ptr_equal(a->cell, snap->cells + i * snap->cols.n);
	}
}

/* A caller that keeps the previous snapshot gets fresh rows: the kept one stays as it was. */
static void test_kept_snapshot_untouched(void **state)
{
	char root[128], dir[256];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *s1, *s2, *c1;

	(void)state;
	mk_tree(root, sizeof(root));
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0);
	c1 = copy_snap(s1);
	snprintf(dir, sizeof(dir), "%s/c4", root);
	cg_v1(dir, 50);
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_true(s2->rows != s1->rows);
	untouched(s1, c1);
	same_rates(s1, s2);
	free_copy(c1);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

static size_t bytes_in_use(void)
{
#ifdef HAVE_ASAN_BYTES
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

/* 100 samples of an unchanging tree, each let go: the bytes allocated stay where sample 2 left them. */
static void test_no_growth(void **state)
{
	char root[128];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *snap;
	size_t after2 = 0, most = 0, now;
	unsigned i;

	(void)state;
	mk_tree(root, sizeof(root));
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	for (i = 1; i <= 100; i++) {
		assert_int_equal(mcg_sampler_sample(s, &snap), 0);
		assert_int_equal(snap->n_rows, NCG + 1);
		mcg_snapshot_unref(snap);
		now = bytes_in_use();
		if (i == 2)
			after2 = now;
		if (i > 2 && now > most)
			most = now;
	}
	if (most > after2)
		print_error("grew by %zu bytes from sample 2 to 100\n", most - after2);
	assert_true(most <= after2);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/*
 * A tree with more cgroups than the process may hold descriptors for
 * (RLIMIT_NOFILE 256 here: the sampler keeps 128): every cgroup is in every
 * sample, with its counters, and so is every grandchild (a cgroup whose
 * directory could not be opened lost its counters and its children before the
 * directories were counted in the budget, seen at 12,000 cgroups and 20,000
 * descriptors). The snapshot says it is whole.
 */
#define NWIDE 300
static void test_wider_than_the_budget(void **state)
{
	char root[128], dir[256];
	struct rlimit old, low;
	struct mcg_ctx *ctx;
	struct mcg_sampler *smp;
	struct mcg_snapshot *snap;
	unsigned i, k, kids;

	(void)state;
	snprintf(tmpl, sizeof(tmpl), "/tmp/mcg-samplemem-XXXXXX");
	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s/cg", tmpl);
	cg_v1(root, 0);
	for (i = 0; i < NWIDE; i++) {
		snprintf(dir, sizeof(dir), "%s/c%03u", root, i);
		cg_v1(dir, i);
		if (i % 10 == 9) { /* every tenth has a child, read after the budget ran out */
			snprintf(dir, sizeof(dir), "%s/c%03u/kid", root, i);
			cg_v1(dir, i);
		}
	}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 256;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &smp), 0);
	for (k = 0; k < 3; k++) {
		assert_int_equal(mcg_sampler_sample(smp, &snap), 0);
		assert_int_equal(snap->n_rows, 1 + NWIDE + NWIDE / 10);
		assert_int_equal(snap->incomplete, 0);
		for (i = 0, kids = 0; i < snap->n_rows; i++) {
			assert_true(mcg_sample_has(&snap->rows[i], MCG_K_USAGE));
			assert_true(mcg_sample_has(&snap->rows[i], MCG_K_FILE));
			kids += !strcmp(snap->rows[i].name, "kid");
		}
		assert_int_equal(kids, NWIDE / 10);
		mcg_snapshot_unref(snap);
	}
	mcg_sampler_free(smp);
	mcg_ctx_free(ctx);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_compact_rates_equal, remove_tree),
		cmocka_unit_test_teardown(test_compact_rates_equal_detail, remove_tree),
		cmocka_unit_test_teardown(test_kept_snapshot_untouched, remove_tree),
		cmocka_unit_test_teardown(test_no_growth, remove_tree),
		cmocka_unit_test_teardown(test_wider_than_the_budget, remove_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
