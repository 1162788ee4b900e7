/* test_fields.c: the derived values (effective limit, v2 writeback headroom, usage percent, the kernel floor, the working set) and dirty's counters on captured v1 and v2 trees and on hand-made lineages, against the files read here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcg.h"
#include "memcg/openmetrics.h"

#define M (1ULL << 20)

/* The first number of FILE under the fixture DIR (the oracle: read here, not through the library). */
static uint64_t file_u64(const char *dir, const char *file)
{
	char path[4608], buf[64];
	FILE *f;
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	if (!strncmp(buf, "max", 3))
		return MCG_MAX;
	v = strtoull(buf, NULL, 10);
	/* the v1 sentinel */
	return v >= 9223372036854771712ULL ? MCG_MAX : v;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static struct mcg_ctx *fixture(const char *name, int version, char *dir, size_t len)
{
	struct mcg_ctx *ctx;

	snprintf(dir, len, "%s/../../cli/fixtures/%s/cgroup", MCG_TEST_DATA, name);
	assert_int_equal(mcg_ctx_new_root(dir, version, NULL, NULL, &ctx), 0);
	return ctx;
}

/* v2 (captured in the guest): /fixture max 1G, /fixture/app max 512M, high 384M. */
static void test_v2_tree(void **state)
{
	char dir[4200], d[4400];
	struct mcg_ctx *ctx = fixture("v2-guest", 2, dir, sizeof(dir));
	struct mcg_group *g;
	struct mcg_info i;
	struct mcg_lineage_buf b;
	static const enum mcg_key keys[] = {MCG_K_LIMIT, MCG_K_HIGH, MCG_K_USAGE};
	uint64_t eff, fmax, amax, ahigh, acur, fcur, want;
	double pct;

	(void)state;
	snprintf(d, sizeof(d), "%s/fixture", dir);
	fmax = file_u64(d, "memory.max");
	fcur = file_u64(d, "memory.current");
	snprintf(d, sizeof(d), "%s/fixture/app", dir);
	amax = file_u64(d, "memory.max");
	ahigh = file_u64(d, "memory.high");
	acur = file_u64(d, "memory.current");
	assert_true(amax < fmax); /* the fixture's shape, which the cases below rely on */

	assert_int_equal(mcg_group_open(ctx, "/fixture/app", &g), 0);
	assert_int_equal(mcg_lineage_read(g, keys, 3, &b), 0);
	assert_int_equal(b.l.n, 3); /* app, fixture, the root */
	assert_true(b.l.root);
	assert_true(mcg_field_effective_limit(2, &b.l, &eff));
	assert_true(eff == min_u64(amax, fmax));
	/* the kernel's headroom: the least of min(max, high) - current, in pages, below the root */
	want = min_u64(min_u64(amax, ahigh) / 4096 - acur / 4096, fmax / 4096 - fcur / 4096);
	assert_true(mcg_field_wb_headroom(&b.l, 4096) == want);
	mcg_lineage_free(&b);
	/* show's record carries it, from the same function */
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_true(mcg_record_has(&i.rec, MCG_K_EFFECTIVE_LIMIT));
	assert_true(i.rec.v[MCG_K_EFFECTIVE_LIMIT] == eff);
	assert_true(mcg_field_usage_percent(&i.rec, &pct));
	assert_true(pct > 100.0 * (double)acur / (double)amax - 1e-9 &&
		    pct < 100.0 * (double)acur / (double)amax + 1e-9);
	mcg_info_release(&i);
	mcg_group_close(g);

	/* idle has no limit of its own: its parent's binds; no usage percent */
	assert_int_equal(mcg_group_open(ctx, "/fixture/idle", &g), 0);
	assert_int_equal(mcg_group_info(g, &i), 0);
	assert_true(i.rec.v[MCG_K_EFFECTIVE_LIMIT] == fmax);
	assert_false(mcg_field_usage_percent(&i.rec, &pct));
	mcg_info_release(&i);
	mcg_group_close(g);

	/* the root: nothing limits it */
	assert_int_equal(mcg_group_open(ctx, "/", &g), 0);
	assert_int_equal(mcg_lineage_read(g, keys, 3, &b), 0);
	assert_int_equal(b.l.n, 1);
	assert_true(mcg_field_effective_limit(2, &b.l, &eff));
	assert_true(eff == MCG_MAX);
	assert_true(mcg_field_wb_headroom(&b.l, 4096) == UINT64_MAX);
	mcg_lineage_free(&b);
	mcg_group_close(g);
	mcg_ctx_free(ctx);
}

/* The value of KEY in DIR's memory.stat (the oracle, parsed here). */
static uint64_t stat_u64(const char *dir, const char *key)
{
	char path[4608], line[256];
	size_t n = strlen(key);
	uint64_t v = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ') {
			v = strtoull(line + n + 1, NULL, 10);
			found = true;
		}
	fclose(f);
	assert_true(found);
	return v;
}

/* v2: kernel - slab_reclaimable of memory.stat, the floor's kernel part; v1 does not split it. */
static void test_kernel_floor(void **state)
{
	char dir[4200], d[4400];
	struct mcg_ctx *ctx = fixture("v2-guest", 2, dir, sizeof(dir));
	struct mcg_group *g;
	struct mcg_record r;
	uint64_t want;

	(void)state;
	snprintf(d, sizeof(d), "%s/fixture/app", dir);
	want = stat_u64(d, "kernel") - stat_u64(d, "slab_reclaimable");
	assert_int_equal(mcg_group_open(ctx, "/fixture/app", &g), 0);
	assert_int_equal(mcg_group_read_record(g, &r, NULL), 0);
	assert_true(mcg_field_kernel_floor(&r, 2) == want);
	assert_true(mcg_field_kernel_floor(&r, 1) == 0);
	/* the floor counts it once, and no more than it when nothing else stays */
	assert_true(mcg_floor_from_record(&r, 2, UINT64_MAX / 4) >= want);
	mcg_group_close(g);
	mcg_ctx_free(ctx);

	/* more reclaimable slab than kernel (raced reads): none, not a wrapped number */
	memset(&r, 0, sizeof(r));
	mcg_record_set(&r, MCG_K_KERNEL, 4096);
	mcg_record_set(&r, MCG_K_SLAB_RECLAIMABLE, 8192);
	assert_true(mcg_field_kernel_floor(&r, 2) == 0);
	memset(&r, 0, sizeof(r));
	assert_true(mcg_field_kernel_floor(&r, 2) == 0);
}

/* dirty's counters, one list for dirty, record and export: per version. */
static void test_dirty_keys(void **state)
{
	struct mcg_keyset k1 = {{0}}, k2 = {{0}};
	static const enum mcg_key both[] = {MCG_K_DIRTY, MCG_K_WRITEBACK, MCG_K_INACTIVE_FILE,
					    MCG_K_ACTIVE_FILE};
	size_t i;

	(void)state;
	mcg_dirty_keys(1, &k1);
	mcg_dirty_keys(2, &k2);
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
		assert_true(mcg_keyset_has(&k1, both[i]));
		assert_true(mcg_keyset_has(&k2, both[i]));
	}
	assert_true(mcg_keyset_has(&k1, MCG_K_EFFECTIVE_LIMIT));
	assert_false(mcg_keyset_has(&k1, MCG_K_LIMIT));
	assert_true(mcg_keyset_has(&k2, MCG_K_LIMIT));
	assert_true(mcg_keyset_has(&k2, MCG_K_HIGH));
	assert_true(mcg_keyset_has(&k2, MCG_K_USAGE));
	assert_false(mcg_keyset_has(&k2, MCG_K_EFFECTIVE_LIMIT));
	/* it adds: a caller's keys stay */
	mcg_keyset_add(&k1, MCG_K_SWAP_USAGE);
	mcg_dirty_keys(1, &k1);
	assert_true(mcg_keyset_has(&k1, MCG_K_SWAP_USAGE));
}

/*
 * cAdvisor's working set: usage - inactive file, on the captured trees against
 * the files read here (v1: usage_in_bytes - total_inactive_file, v2:
 * memory.current - inactive_file), and 0, not a wrapped number, when the
 * inactive file LRU is the larger (reads that raced).
 */
static void test_working_set(void **state)
{
	static const struct {
		const char *fix, *path, *usage, *inactive;
		int version;
	} c[] = {
		{"v1", "/fixture/app", "memory.usage_in_bytes", "total_inactive_file", 1},
		{"v2-guest", "/fixture/app", "memory.current", "inactive_file", 2},
		{"v2-guest", "/fixture", "memory.current", "inactive_file", 2},
	};
	struct mcg_keyset ks = {{0}};
	struct mcg_record r;
	uint64_t ws;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		char dir[4200], d[4400];
		struct mcg_ctx *ctx = fixture(c[k].fix, c[k].version, dir, sizeof(dir));
		struct mcg_group *g;
		uint64_t usage, inactive;

		snprintf(d, sizeof(d), "%s%s", dir, c[k].path);
		usage = file_u64(d, c[k].usage);
		inactive = stat_u64(d, c[k].inactive);
		assert_true(inactive < usage); /* the fixtures' shape: the plain case */
		assert_int_equal(mcg_group_open(ctx, c[k].path, &g), 0);
		assert_int_equal(mcg_group_read_record(g, &r, NULL), 0);
		assert_true(mcg_field_working_set(&r, &ws));
		assert_true(ws == usage - inactive);
		mcg_group_close(g);
		mcg_ctx_free(ctx);
	}

	memset(&r, 0, sizeof(r));
	mcg_record_set(&r, MCG_K_USAGE, 4096);
	assert_false(mcg_field_working_set(&r, &ws)); /* no inactive_file: unknown, not usage */
	mcg_record_set(&r, MCG_K_INACTIVE_FILE, 8192);
	assert_true(mcg_field_working_set(&r, &ws));
	assert_true(ws == 0);
	memset(&r, 0, sizeof(r));
	mcg_record_set(&r, MCG_K_INACTIVE_FILE, 8192);
	assert_false(mcg_field_working_set(&r, &ws));

	/* the sources, listed beside it: what a one-shot reads for it */
	mcg_field_working_set_keys(&ks);
	assert_true(mcg_keyset_has(&ks, MCG_K_USAGE));
	assert_true(mcg_keyset_has(&ks, MCG_K_INACTIVE_FILE));
	assert_false(mcg_keyset_has(&ks, MCG_K_LIMIT));
	assert_string_equal(mcg_json_key(MCG_F_WORKING_SET), "working_set_bytes");
	assert_string_equal(mcg_header(MCG_F_WORKING_SET), "WORKING_SET");
}

/* v1: memory.stat's hierarchical_memory_limit is the kernel's answer; the walk agrees with it. */
static void test_v1_tree(void **state)
{
	char dir[4200], d[4400];
	struct mcg_ctx *ctx = fixture("v1", 1, dir, sizeof(dir));
	static const enum mcg_key limit[] = {MCG_K_LIMIT};
	const char *paths[] = {"/fixture", "/fixture/app", "/fixture/idle"};
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		struct mcg_group *g;
		struct mcg_lineage_buf b;
		struct mcg_info i;
		uint64_t walked, want = MCG_MAX;
		char p[64], *slash;

		/* the oracle: the least limit_in_bytes from the cgroup up, below the root */
		snprintf(p, sizeof(p), "%s", paths[k]);
		while (strcmp(p, "") && strcmp(p, "/")) {
			snprintf(d, sizeof(d), "%s%s", dir, p);
			want = min_u64(want, file_u64(d, "memory.limit_in_bytes"));
			slash = strrchr(p, '/');
			*slash = '\0';
		}
		assert_int_equal(mcg_group_open(ctx, paths[k], &g), 0);
		/* a lineage of limits only: the walk */
		assert_int_equal(mcg_lineage_read(g, limit, 1, &b), 0);
		assert_true(mcg_field_effective_limit(1, &b.l, &walked));
		assert_true(walked == want);
		mcg_lineage_free(&b);
		/* the full record: the kernel's own hierarchical_memory_limit, the same here */
		assert_int_equal(mcg_group_info(g, &i), 0);
		assert_true(i.rec.v[MCG_K_EFFECTIVE_LIMIT] == want);
		mcg_info_release(&i);
		mcg_group_close(g);
	}
	mcg_ctx_free(ctx);
}

/*
 * mcg_group_effective_limit, show's (a record standing for the cgroup) and
 * set-limit's (the parent's) in one: against the limit files read here.
 */
static void test_group_effective_limit(void **state)
{
	static const struct {
		const char *fix, *limit;
		int version;
	} trees[] = {{"v2-guest", "memory.max", 2}, {"v1", "memory.limit_in_bytes", 1}};
	char dir[4200], d[4400];
	size_t t;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct mcg_ctx *ctx = fixture(trees[t].fix, trees[t].version, dir, sizeof(dir));
		struct mcg_record self = {0};
		struct mcg_group *g;
		uint64_t fmax, amax, v;

		snprintf(d, sizeof(d), "%s/fixture", dir);
		fmax = file_u64(d, trees[t].limit);
		snprintf(d, sizeof(d), "%s/fixture/app", dir);
		amax = file_u64(d, trees[t].limit);
		assert_true(amax < fmax);

		assert_int_equal(mcg_group_open(ctx, "/fixture/app", &g), 0);
		assert_int_equal(mcg_group_effective_limit(g, NULL, false, &v), 1);
		assert_true(v == amax);
		/* the parent's: /fixture's own limit */
		assert_int_equal(mcg_group_effective_limit(g, NULL, true, &v), 1);
		assert_true(v == fmax);
		/* a record in the cgroup's place counts, not its limit file */
		mcg_record_set(&self, MCG_K_LIMIT, fmax + 4096);
		assert_int_equal(mcg_group_effective_limit(g, &self, false, &v), 1);
		assert_true(v == fmax);
		mcg_record_set(&self, MCG_K_LIMIT, amax / 2);
		assert_int_equal(mcg_group_effective_limit(g, &self, false, &v), 1);
		assert_true(v == amax / 2);
		mcg_group_close(g);

		/* below the root, the parent is the root: nothing limits it */
		assert_int_equal(mcg_group_open(ctx, "/fixture", &g), 0);
		assert_int_equal(mcg_group_effective_limit(g, NULL, true, &v), 1);
		assert_true(v == MCG_MAX);
		mcg_group_close(g);
		/* the root has no parent */
		assert_int_equal(mcg_group_open(ctx, "/", &g), 0);
		assert_int_equal(mcg_group_effective_limit(g, NULL, true, &v), 0);
		mcg_group_close(g);
		mcg_ctx_free(ctx);
	}
}

/* A table of rows naming their parents (export's, a snapshot's): the lineage walk. */
struct trow {
	const char *path;
	long parent;
	struct mcg_record rec;
};

static void trow_at(const void *rows, size_t i, long *parent, const char **path,
		    const struct mcg_record **ret_rec, const struct mcg_sample_row **ret_row)
{
	const struct trow *r = &((const struct trow *)rows)[i];

	/* its rows hold their records */
	*parent = r->parent;
	*path = r->path;
	*ret_rec = &r->rec;
	*ret_row = NULL;
}

static void test_lineage_of_rows(void **state)
{
	/* "/" <- "/a" <- "/a/b", and "/c" under the root; row 4 names a parent past the table */
	struct trow t[] = {{.path = "/", .parent = -1}, {.path = "/a", .parent = 0},
			   {.path = "/a/b", .parent = 1},  {.path = "/c", .parent = 0},
			   {.path = "/x", .parent = 9}};
	const struct mcg_record *buf[8];
	struct mcg_lineage l;

	(void)state;
	mcg_lineage_of_rows(t, 5, 2, trow_at, buf, NULL, 8, &l);
	assert_int_equal(l.n, 3);
	assert_true(l.root);
	assert_ptr_equal(l.rec, buf);
	assert_null(l.row);
	assert_ptr_equal(buf[0], &t[2].rec);
	assert_ptr_equal(buf[1], &t[1].rec);
	assert_ptr_equal(buf[2], &t[0].rec);
	mcg_lineage_of_rows(t, 5, 3, trow_at, buf, NULL, 8, &l);
	assert_int_equal(l.n, 2);
	assert_ptr_equal(buf[1], &t[0].rec);
	/* room for two: cut there, and the root is not reached */
	mcg_lineage_of_rows(t, 5, 2, trow_at, buf, NULL, 2, &l);
	assert_int_equal(l.n, 2);
	assert_false(l.root);
	/* a subtree's table: its first row is not the root */
	t[0].path = "/sub";
	mcg_lineage_of_rows(t, 5, 2, trow_at, buf, NULL, 8, &l);
	assert_int_equal(l.n, 3);
	assert_false(l.root);
	/* a parent outside the table ends the walk (never read past it) */
	mcg_lineage_of_rows(t, 5, 4, trow_at, buf, NULL, 8, &l);
	assert_int_equal(l.n, 1);
	assert_false(l.root);
	mcg_lineage_of_rows(t, 5, 7, trow_at, buf, NULL, 8, &l);
	assert_int_equal(l.n, 0);
}

/*
 * Deep lineages of compact rows, read through the accessors (what dirty,
 * record and export compute), against lineages of whole records filled from
 * the same rows (what they computed before): nested 6 levels, rows whose
 * parent comes after them, rows whose parent is missing (an index past the
 * table), a subtree whose top is not the root, counters absent at random.
 */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 17;
}

static void deep_row_at(const void *rows, size_t i, long *parent, const char **path,
			const struct mcg_record **ret_rec, const struct mcg_sample_row **ret_row)
{
	const struct mcg_sample_row *r = &((const struct mcg_sample_row *)rows)[i];

	*parent = r->parent;
	*path = r->path;
	*ret_rec = NULL;
	*ret_row = r;
}

/* REF: ROW's lineage of records (mcg_sample_record of each row up the parents). */
static void deep_reference(const struct mcg_snapshot *s, size_t row, struct mcg_record *recs,
			   const struct mcg_record **ptrs, size_t max, struct mcg_lineage *ref)
{
	long k = (long)row;
	size_t n = 0;

	ref->root = false;
	while (k >= 0 && (size_t)k < s->n_rows && n < max) {
		mcg_sample_record(&s->rows[k], &recs[n]);
		ptrs[n] = &recs[n];
		n++;
		if (s->rows[k].parent < 0)
			ref->root = !strcmp(s->rows[k].path, "/");
		k = s->rows[k].parent;
	}
	ref->rec = ptrs;
	ref->row = NULL;
	ref->n = n;
}

static void test_lineages_deep(void **state)
{
	/*
	 * Row order is not tree order: "/" is row 3, after its child "/a" is
	 * not; "/a" (row 5) is the parent of "/a/b" (row 0), after it; then the
	 * chain /a/b/c/d/e/f/g (rows 1, 2, 4, 6, 7) goes 8 levels down to the
	 * root; row 8's parent is past the table (missing); row 9 is a top that
	 * is not the root ("/sub", a subtree's) with 10 below it and 11 below 10.
	 */
	static const struct {
		const char *path;
		long parent;
	} tree[] = {
		{"/a/b", 5},	   {"/a/b/c", 0}, {"/a/b/c/d", 1},     {"/", -1},
		{"/a/b/c/d/e", 2}, {"/a", 3},	  {"/a/b/c/d/e/f", 4}, {"/a/b/c/d/e/f/g", 6},
		{"/lost", 42},	   {"/sub", -1},  {"/sub/x", 9},       {"/sub/x/y", 10},
	};
	static const enum mcg_key keys[] = {
		MCG_K_LIMIT, MCG_K_HIGH,      MCG_K_USAGE,	   MCG_K_EFFECTIVE_LIMIT,
		MCG_K_DIRTY, MCG_K_WRITEBACK, MCG_K_INACTIVE_FILE, MCG_K_ACTIVE_FILE};
	const size_t nr = sizeof(tree) / sizeof(tree[0]), max = MCG_WALK_MAX_DEPTH + 1;
	struct mcg_record *recs = calloc(max + 2, sizeof(*recs)), above = {0};
	const struct mcg_record *ptrs[MCG_WALK_MAX_DEPTH + 3], *mixr[MCG_WALK_MAX_DEPTH + 3];
	const struct mcg_sample_row *rows[MCG_WALK_MAX_DEPTH + 3];
	struct mcg_snapshot *s;
	struct mcg_lineage end;
	uint64_t x = 28;
	unsigned round;

	(void)state;
	assert_non_null(recs);
	for (round = 0; round < 200; round++) {
		size_t i, j, cut;

		assert_int_equal(mcg_snapshot_new(NULL, nr, &s), 0);
		s->page_size = 4096;
		s->version = round % 2 ? 2 : 1;
		for (i = 0; i < nr; i++) {
			s->rows[i].path = tree[i].path;
			s->rows[i].parent = (int)tree[i].parent;
			for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
				uint64_t v = (lcg(&x) % 512) * M;

				if (lcg(&x) % 4 == 0)
					continue; /* absent */
				if (lcg(&x) % 5 == 0)
					v = MCG_MAX;
				assert_true(mcg_sample_set(&s->rows[i], keys[j], v));
			}
		}
		mcg_record_set(&above, MCG_K_LIMIT, (lcg(&x) % 512) * M);
		for (i = 0; i < nr; i++) {
			struct mcg_lineage ref, got, viarows;
			struct mcg_dirty_cg rc = {0}, gc = {0}, fc = {0};
			uint64_t re = 0, ge = 0, ve = 0;
			bool rok, gok, vok;
			int rr, gr;

			/* cut: every length up to the whole, as MAX bounds it */
			for (cut = 1; cut <= max; cut += cut < 3 ? 1 : max - 3) {
				deep_reference(s, i, recs, ptrs, cut, &ref);
				mcg_snapshot_lineage(s, i, rows, cut, &got);
				mcg_lineage_of_rows(s->rows, nr, i, deep_row_at, NULL, rows, cut,
						    &viarows);
				assert_int_equal(got.n, ref.n);
				assert_int_equal(viarows.n, ref.n);
				assert_int_equal(got.root, ref.root);
				assert_int_equal(viarows.root, ref.root);
				assert_null(got.rec);
				assert_true(mcg_field_wb_headroom(&got, 4096) ==
					    mcg_field_wb_headroom(&ref, 4096));
				rok = mcg_field_effective_limit(s->version, &ref, &re);
				gok = mcg_field_effective_limit(s->version, &got, &ge);
				vok = mcg_field_effective_limit(s->version, &viarows, &ve);
				assert_int_equal(gok, rok);
				assert_int_equal(vok, rok);
				if (rok)
					assert_true(ge == re && ve == re);
			}
			/* export's: the rows up to the top, then records of the top's ancestors */
			deep_reference(s, i, recs, ptrs, max, &ref);
			if (!ref.root) {
				mcg_snapshot_lineage(s, i, rows, max, &got);
				for (j = 0; j < got.n; j++)
					mixr[j] = NULL;
				mixr[got.n] = &above;
				rows[got.n] = NULL;
				got.rec = mixr;
				got.n++;
				ptrs[ref.n] = &above;
				ref.n++;
				assert_true(mcg_field_wb_headroom(&got, 4096) ==
					    mcg_field_wb_headroom(&ref, 4096));
				rok = mcg_field_effective_limit(2, &ref, &re);
				gok = mcg_field_effective_limit(2, &got, &ge);
				assert_int_equal(gok, rok);
				if (rok)
					assert_true(ge == re);
			}
			/* dirty's counters and v2 headroom and limit: the row's against the
			 * records' */
			deep_reference(s, i, recs, ptrs, max, &ref);
			rr = mcg_dirty_cg_from_record(ptrs[0], s->version, &rc);
			gr = mcg_dirty_cg_from_row(&s->rows[i], s->version, &gc);
			assert_int_equal(gr, rr);
			assert_int_equal(mcg_dirty_cg_from_snapshot(s, i, s->version, &fc), rr);
			if (rr < 0)
				continue;
			if (s->version == 2) {
				rc.headroom = mcg_field_wb_headroom(&ref, 4096);
				if (!mcg_field_effective_limit(2, &ref, &rc.limit))
					rc.limit = MCG_MAX;
				gc.headroom = rc.headroom;
				gc.limit = rc.limit;
			}
			assert_true(gc.dirty == rc.dirty && gc.writeback == rc.writeback &&
				    gc.file == rc.file && gc.limit == rc.limit);
			assert_true(fc.dirty == rc.dirty && fc.writeback == rc.writeback &&
				    fc.file == rc.file && fc.limit == rc.limit &&
				    fc.headroom == rc.headroom);
		}
		/* the lineages are as deep as the tree: /a/b/c/d/e/f/g has 8 */
		mcg_snapshot_lineage(s, 7, rows, max, &end);
		assert_int_equal(end.n, 8);
		assert_true(end.root);
		mcg_snapshot_lineage(s, 8, rows, max, &end);
		assert_int_equal(end.n, 1);
		assert_false(end.root);
		mcg_snapshot_lineage(s, 11, rows, max, &end);
		assert_int_equal(end.n, 3);
		assert_false(end.root);
		mcg_snapshot_unref(s);
	}
	free(recs);
}

/* Hand-made lineages: what is not read is not counted as unlimited. */
static void test_lineages(void **state)
{
	struct mcg_record a = {0}, p = {0}, root = {0};
	const struct mcg_record *rec[3] = {&a, &p, &root};
	struct mcg_lineage l = {rec, 3, true, NULL};
	uint64_t eff;

	(void)state;
	/* nothing read: no answer (not "unlimited") */
	assert_false(mcg_field_effective_limit(2, &l, &eff));
	/* the root's own values never count */
	mcg_record_set(&root, MCG_K_LIMIT, 1 * M);
	mcg_record_set(&root, MCG_K_USAGE, 1 * M);
	mcg_record_set(&p, MCG_K_LIMIT, 300 * M);
	assert_true(mcg_field_effective_limit(2, &l, &eff));
	assert_true(eff == 300 * M);
	/* no usage on a row: it is not a ceiling the headroom can be computed against */
	assert_true(mcg_field_wb_headroom(&l, 4096) == UINT64_MAX);
	mcg_record_set(&p, MCG_K_USAGE, 100 * M);
	mcg_record_set(&a, MCG_K_HIGH, 250 * M);
	mcg_record_set(&a, MCG_K_USAGE, 240 * M);
	mcg_record_set(&a, MCG_K_LIMIT, MCG_MAX);
	assert_true(mcg_field_wb_headroom(&l, 4096) == 10 * M / 4096);
	/* over a ceiling: none left (never a wrap) */
	mcg_record_set(&a, MCG_K_USAGE, 260 * M);
	assert_true(mcg_field_wb_headroom(&l, 4096) == 0);
	/* a subtree's lineage (no root): its top row counts */
	l.root = false;
	l.n = 2;
	mcg_record_set(&p, MCG_K_LIMIT, 200 * M);
	assert_true(mcg_field_effective_limit(2, &l, &eff));
	assert_true(eff == 200 * M);
	/* v1: the kernel's hierarchical value wins over the walk */
	mcg_record_set(&a, MCG_K_EFFECTIVE_LIMIT, 150 * M);
	assert_true(mcg_field_effective_limit(1, &l, &eff));
	assert_true(eff == 150 * M);
}

/*
 * The names table: every counter and derived value has a JSON key, a header and a label;
 * no two values share a key or a header (one value, one name, memcgctl-json(7) NAMES); a
 * counter's key is its base name and unit, its label the key without the unit, its header
 * the label in capitals, but for the exceptions the page lists.
 */
static void test_names(void **state)
{
	unsigned i, j;

	(void)state;
	assert_null(mcg_value_names(MCG_F__END));
	assert_string_equal(mcg_json_key(MCG_F__END), "");
	for (i = 0; i < MCG_F__END; i++) {
		const struct mcg_value_names *n = mcg_value_names(i);

		assert_non_null(n);
		assert_true(n->json[0] && n->header[0] && n->label[0]);
		assert_true(n->scale >= 1);
		for (j = 0; j < i; j++) {
			if (!strcmp(mcg_json_key(j), n->json) || !strcmp(mcg_header(j), n->header))
				fail_msg("ids %u and %u share a name: %s %s", j, i, n->json, n->header);
		}
		if (i < MCG_K__COUNT && i != MCG_K_PSI_SOME && i != MCG_K_PSI_FULL) {
			const struct mcg_key_desc *d = mcg_key_desc(i);
			char want[96];

			snprintf(want, sizeof(want), "%s%s", d->name, mcg_unit_suffix(d->unit));
			assert_string_equal(n->json, want);
			assert_string_equal(n->label, d->name);
			assert_int_equal(n->scale, 1);
		}
		if (i < MCG_K__COUNT) {
			char om[128];

			mcg_om_metric_name(i, om, sizeof(om));
			assert_string_equal(n->om, om);
		}
	}
	assert_string_equal(mcg_header(MCG_K_USAGE), "USAGE");
	assert_string_equal(mcg_header(MCG_K_SWAP_USAGE), "SWAP");
	assert_string_equal(mcg_header(MCG_K_WRITEBACK), "WBACK");
	assert_string_equal(mcg_json_key(MCG_K_WRITEBACK), "writeback_bytes");
	assert_string_equal(mcg_value_names(MCG_K_WRITEBACK)->label, "writeback");
	assert_string_equal(mcg_header(MCG_F_USAGE_PERCENT), "%LIM");
	assert_string_equal(mcg_json_key(MCG_F_USAGE_PERCENT), "usage_percent");
	/* PSI totals: microseconds read, nanoseconds printed, as show's total_ns */
	assert_string_equal(mcg_json_key(MCG_K_PSI_SOME), "psi_some_total_ns");
	assert_string_equal(mcg_json_key(MCG_K_PSI_FULL), "psi_full_total_ns");
	assert_int_equal(mcg_value_names(MCG_K_PSI_SOME)->scale, 1000);
	assert_string_equal(mcg_json_key(MCG_F_DIRTY_LIMIT_PERCENT), "limit_percent");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_tree),
		cmocka_unit_test(test_v1_tree),
		cmocka_unit_test(test_group_effective_limit),
		cmocka_unit_test(test_lineage_of_rows),
		cmocka_unit_test(test_lineages),
		cmocka_unit_test(test_lineages_deep),
		cmocka_unit_test(test_kernel_floor),
		cmocka_unit_test(test_dirty_keys),
		cmocka_unit_test(test_working_set),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
