/* test_sample.c: the top sampler on a fixture tree and rate computation across two snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memcg.h"
#include "fx-files.h"

static char tmpl[64];


/* A v1 cgroup directory with the files the sampler reads. */
static void cg_v1(const char *dir, unsigned long usage, const char *limit, unsigned long pgpgout,
		  unsigned long failcnt, unsigned long refault_file)
{
	mkdir(dir, 0755);
	putf(dir, "memory.usage_in_bytes", "%lu\n", usage);
	putf(dir, "memory.limit_in_bytes", "%s\n", limit);
	putf(dir, "memory.failcnt", "%lu\n", failcnt);
	putf(dir, "memory.stat",
	    "cache 1\nrss 2\ndirty 3\npgpgout 99999\n"
	    "total_cache %lu\ntotal_rss 4096\ntotal_dirty 8192\ntotal_writeback 0\n"
	    "total_pgpgout %lu\ntotal_workingset_refault_anon 1\ntotal_workingset_refault_file %lu\n",
	    usage - 4096, pgpgout, refault_file);
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

/* One cgroup of a fixture tree: its path under the root ("" for the root) and files. */
struct fx_cg {
	const char *rel;
	unsigned long usage;
	const char *limit;
	unsigned long pgpgout, failcnt, refault_file;
};

/* A fresh v1 tree of CGS under tmpl (removed by remove_tree); its root's path in ROOT. */
static void fx_tree(char *root, size_t len, const struct fx_cg *cgs, size_t n)
{
	char dir[256];
	size_t i;

	snprintf(tmpl, sizeof(tmpl), "/tmp/mcg-sample-XXXXXX");
	assert_non_null(mkdtemp(tmpl));
	assert_true((size_t)snprintf(root, len, "%s/cg", tmpl) < len);
	for (i = 0; i < n; i++) {
		assert_true((size_t)snprintf(dir, sizeof(dir), "%s%s", root, cgs[i].rel) < sizeof(dir));
		cg_v1(dir, cgs[i].usage, cgs[i].limit, cgs[i].pgpgout, cgs[i].failcnt,
		      cgs[i].refault_file);
	}
}

#define NOLIMIT "9223372036854771712"

static const struct mcg_sample_row *find(const struct mcg_snapshot *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n_rows; i++)
		if (!strcmp(s->rows[i].path, path))
			return &s->rows[i];
	return NULL;
}

/* The row of PATH; a missing row fails the test (and reads as an empty row). */
static const struct mcg_sample_row *row(const struct mcg_snapshot *s, const char *path)
{
	static const struct mcg_sample_row none = {.path = "", .name = "", .parent = -2};
	const struct mcg_sample_row *r = find(s, path);

	if (!r) {
		print_error("no row for %s\n", path);
		_fail(__FILE__, __LINE__);
		return &none;
	}
	return r;
}

static const struct mcg_psi *psi(const struct mcg_snapshot *s, const char *path)
{
	return mcg_sample_psi(row(s, path));
}

static bool has(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_sample_has(r, c);
}

static bool has_rate(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_sample_rate_has(r, c);
}

static void test_sampler_fixture(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 100, 0, 0}, {"/a", 65536, "1048576", 10, 5, 7},
		{"/b", 65536, NOLIMIT, 1000, 0, 0}, {"/c", 65536, "4096000", 0, 0, 0},
	};
	char root[128], a[160], b[160], c[160], d[160], cmd[256];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *s1, *s2;
	const struct mcg_sample_row *r;
	double dt;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(b, sizeof(b), "%s/b", root);
	snprintf(c, sizeof(c), "%s/c", root);
	snprintf(d, sizeof(d), "%s/d", root);

	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0);
	assert_int_equal(s1->n_rows, 4);
	assert_int_equal(s1->seq, 1);
	r = row(s1, "/a");
	assert_int_equal(r->parent, 0);
	assert_int_equal(r->depth, 1);
	assert_string_equal(r->name, "a");
	assert_true(has(r, MCG_K_USAGE) && mcg_sample_get(r, MCG_K_USAGE, 0) == 65536);
	assert_true(mcg_sample_get(r, MCG_K_LIMIT, 0) == 1048576);
	assert_true(mcg_sample_get(r, MCG_K_FILE, 0) == 65536 - 4096);
	assert_true(mcg_sample_get(r, MCG_K_ANON, 0) == 4096);
	assert_true(mcg_sample_get(r, MCG_K_DIRTY, 0) == 8192); /* the total_ key, not the local one */
	assert_true(mcg_sample_get(r, MCG_K_PGPGOUT, 0) == 10);
	assert_true(mcg_sample_get(r, MCG_K_REFAULT, 0) == 8); /* anon + file */
	assert_true(mcg_sample_get(r, MCG_K_FAILCNT, 0) == 5);
	/* v2-only counters are absent on v1, not zero */
	assert_false(has(r, MCG_K_PGSCAN));
	assert_false(has(r, MCG_K_HIGH));
	assert_false(has(r, MCG_K_EV_OOM));
	assert_false(has(r, MCG_K_STALL));
	/* the first snapshot has no rates */
	assert_true(mcg_keyset_empty(&r->rate_valid));
	assert_true(mcg_sample_get(row(s1, "/b"), MCG_K_LIMIT, 0) == MCG_MAX);
	assert_true(mcg_sample_get(row(s1, "/"), MCG_K_LIMIT, 0) == MCG_MAX);
	assert_true(mcg_sampler_nfds(s) >= 16);

	/* a: counters grow; b: its counters go back (reset); c vanishes; d appears */
	usleep(20000);
	cg_v1(a, 131072, "2097152", 110, 9, 17);
	cg_v1(b, 65536, "9223372036854771712", 3, 2, 0); /* failcnt written: seen through inotify */
	rm_cg(c);
	cg_v1(d, 8192, NOLIMIT, 50, 0, 0);
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_int_equal(s2->n_rows, 4);
	assert_null(find(s2, "/c"));
	assert_non_null(find(s2, "/d"));
	dt = s2->interval;
	assert_true(dt > 0.015 && dt < 5);
	r = row(s2, "/a");
	assert_true(mcg_sample_get(r, MCG_K_LIMIT, 0) == 2097152); /* the write was seen */
	assert_true(has_rate(r, MCG_K_PGPGOUT));
	assert_true(fabs(mcg_sample_rate(r, MCG_K_PGPGOUT) * dt - 100) < 1e-6);
	assert_true(fabs(mcg_sample_rate(r, MCG_K_FAILCNT) * dt - 4) < 1e-6);
	assert_true(fabs(mcg_sample_rate(r, MCG_K_REFAULT) * dt - 10) < 1e-6);
	assert_true(fabs(mcg_sample_rate(r, MCG_K_USAGE) * dt - 65536) < 1e-3);
	assert_true(mcg_sample_since(r, MCG_K_PGPGOUT) == 100);
	assert_true(r->id == row(s1, "/a")->id);
	/* reset: no rate for the interval, counting goes on from the new value */
	r = row(s2, "/b");
	assert_true(mcg_sample_get(r, MCG_K_FAILCNT, 0) == 2);
	assert_false(has_rate(r, MCG_K_PGPGOUT));
	assert_true(mcg_sample_since(r, MCG_K_PGPGOUT) == 3);
	/* new: values but no rates */
	r = row(s2, "/d");
	assert_true(has(r, MCG_K_USAGE));
	assert_true(mcg_keyset_empty(&r->rate_valid));
	assert_int_equal(r->parent, 0);

	/* immutable: the first snapshot still reads as it was */
	assert_non_null(find(s1, "/c"));
	assert_true(mcg_sample_get(row(s1, "/a"), MCG_K_PGPGOUT, 0) == 10);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

/*
 * Pruning at clean cgroups (dirty's sampler): below a cgroup whose hierarchical
 * dirty and writeback read 0 nothing is read or listed, except on the way to a
 * kept path; the clean cgroup's own row is given.
 */
static void test_sampler_prune(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0}, {"/x", 65536, NOLIMIT, 0, 0, 0},
		{"/x/y", 65536, NOLIMIT, 0, 0, 0}, {"/z", 65536, NOLIMIT, 0, 0, 0},
		{"/z/w", 65536, NOLIMIT, 0, 0, 0},
	};
	char root[128], x[160], cmd[256];
	const char *keep[] = {"/x/y"};
	struct mcg_keyset zero = {{0}}, keys = {{0}};
	struct mcg_snapshot *snap;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(x, sizeof(x), "%s/x", root);
	putf(x, "memory.stat", "total_dirty 0\ntotal_writeback 0\n");

	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	mcg_keyset_add(&keys, MCG_K_DIRTY);
	mcg_keyset_add(&keys, MCG_K_WRITEBACK);
	mcg_keyset_add(&zero, MCG_K_DIRTY);
	mcg_keyset_add(&zero, MCG_K_WRITEBACK);
	assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
	assert_int_equal(mcg_sampler_set_prune(s, &zero), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 4); /* /, /x (clean: its row, nothing below), /z, /z/w */
	assert_true(mcg_sample_get(row(snap, "/x"), MCG_K_DIRTY, 0) == 0);
	assert_null(find(snap, "/x/y"));
	assert_true(mcg_sample_get(row(snap, "/z/w"), MCG_K_DIRTY, 0) == 8192);
	assert_false(has(row(snap, "/z"), MCG_K_USAGE)); /* only the keys asked for */
	mcg_snapshot_unref(snap);
	/* a kept path is read whatever the pruning */
	assert_int_equal(mcg_sampler_set_keep(s, keep, 1, false), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 5);
	assert_int_equal(row(snap, "/x/y")->parent, (int)(row(snap, "/x") - snap->rows));
	mcg_snapshot_unref(snap);
	/* only the kept path and its ancestors */
	assert_int_equal(mcg_sampler_set_keep(s, keep, 1, true), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 3); /* /, /x, /x/y */
	assert_null(find(snap, "/z"));
	/* the kept cgroup in full; those on the way to it without memory.stat */
	assert_true(has(row(snap, "/x/y"), MCG_K_DIRTY));
	assert_false(has(row(snap, "/x"), MCG_K_DIRTY));
	assert_false(has(row(snap, "/"), MCG_K_DIRTY));
	mcg_snapshot_unref(snap);
	assert_int_equal(mcg_sampler_set_keep(s, NULL, 0, false), 0);
	/* pruning off: everything */
	assert_int_equal(mcg_sampler_set_prune(s, NULL), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 5);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

/*
 * A live view's detail: rows on screen read in full, the others usage and
 * limits only and memory.stat in turn, carried (with their age) in between.
 */
static void test_sampler_detail(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0},
		{"/a", 65536, NOLIMIT, 10, 0, 0},
		{"/b", 65536, NOLIMIT, 20, 0, 0},
	};
	char root[128], a[160], b[160], cmd[256];
	struct mcg_snapshot *s1, *s2, *s3;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	uint64_t id_a;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(b, sizeof(b), "%s/b", root);
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0); /* everything, once */
	id_a = row(s1, "/a")->id;
	/* /a on screen; the others' memory.stat every 1000 samples */
	assert_int_equal(mcg_sampler_set_detail(s, &id_a, 1, 1000), 0);
	cg_v1(a, 131072, NOLIMIT, 15, 0, 0);
	cg_v1(b, 131072, NOLIMIT, 25, 0, 0);
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_true(mcg_keyset_has(&s2->detail_keys, MCG_K_PGPGOUT));
	assert_false(mcg_keyset_has(&s2->detail_keys, MCG_K_USAGE));
	/* on screen: all new */
	assert_int_equal(row(s2, "/a")->stale, 0);
	assert_true(mcg_sample_get(row(s2, "/a"), MCG_K_PGPGOUT, 0) == 15);
	/* off screen: usage new, memory.stat's counters carried from the first read */
	assert_true(mcg_sample_get(row(s2, "/b"), MCG_K_USAGE, 0) == 131072);
	assert_true(mcg_sample_get(row(s2, "/b"), MCG_K_PGPGOUT, 0) == 20);
	assert_int_equal(row(s2, "/b")->stale, 1);
	assert_true(row(s2, "/b")->detail_ns == row(s1, "/b")->detail_ns);
	/* a carried counter has no new rate of its own (the last one, if any, stays) */
	assert_false(mcg_sample_rate_has(row(s2, "/b"), MCG_K_PGPGOUT));
	assert_true(mcg_sample_rate_has(row(s2, "/a"), MCG_K_PGPGOUT));
	/* off: every row in full again */
	assert_int_equal(mcg_sampler_set_detail(s, NULL, 0, 0), 0);
	assert_int_equal(mcg_sampler_sample(s, &s3), 0);
	assert_int_equal(row(s3, "/b")->stale, 0);
	assert_true(mcg_sample_get(row(s3, "/b"), MCG_K_PGPGOUT, 0) == 25);
	/* its rate spans the two reads (s1 to s3), not one interval */
	assert_true(mcg_sample_rate_has(row(s3, "/b"), MCG_K_PGPGOUT));
	assert_true(fabs(mcg_sample_rate(row(s3, "/b"), MCG_K_PGPGOUT) *
			 ((double)(row(s3, "/b")->detail_ns - row(s1, "/b")->detail_ns) / 1e9) -
		    5) < 1e-6);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_snapshot_unref(s3);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

/* A v2 cgroup directory: usage, limit, memory.stat, memory.events and pressure (some avg10 SOME). */
static void cg_v2(const char *dir, unsigned long usage, const char *some)
{
	char p[256];

	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	putf(dir, "memory.current", "%lu\n", usage);
	put(dir, "memory.max", "max\n");
	put(dir, "memory.high", "max\n");
	put(dir, "memory.stat", "anon 4096\nfile 8192\n");
	put(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	snprintf(p, sizeof(p), "some avg10=%s avg60=0.00 avg300=0.00 total=7\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=3\n", some);
	put(dir, "memory.pressure", p);
	put(dir, "cgroup.procs", "");
	put(dir, "cgroup.controllers", "memory\n");
	put(dir, "cgroup.subtree_control", "memory\n");
}

/*
 * A row off the live view's screen carries its pressure from its last read
 * as it carries memory.stat's counters (the node keeps it only when there was
 * one); on screen, or when the rotation is off, it is read again.
 */
static void test_sampler_detail_psi(void **state)
{
	char root[128], a[160], b[160], cmd[256];
	struct mcg_snapshot *s1, *s2, *s3;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	uint64_t id_a;

	(void)state;
	snprintf(tmpl, sizeof(tmpl), "/tmp/mcg-sample-XXXXXX");
	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s/cg", tmpl);
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(b, sizeof(b), "%s/b", root);
	cg_v2(root, 1 << 20, "0.50");
	cg_v2(a, 65536, "1.25");
	cg_v2(b, 65536, "2.50");
	assert_int_equal(mcg_ctx_new_root(root, 2, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0);
	assert_true(psi(s1, "/b")->some_valid);
	assert_true(psi(s1, "/b")->some.avg10 == 2.5);
	id_a = row(s1, "/a")->id;
	assert_int_equal(mcg_sampler_set_detail(s, &id_a, 1, 1000), 0);
	cg_v2(a, 65536, "3.75");
	cg_v2(b, 65536, "5.00");
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_int_equal(row(s2, "/a")->stale, 0);
	assert_true(psi(s2, "/a")->some.avg10 == 3.75);
	/* off screen: the last read's pressure, whole */
	assert_int_equal(row(s2, "/b")->stale, 1);
	assert_true(psi(s2, "/b")->some_valid && psi(s2, "/b")->full_valid);
	assert_true(psi(s2, "/b")->some.avg10 == 2.5);
	assert_true(psi(s2, "/b")->some.total_us == psi(s1, "/b")->some.total_us);
	assert_true(psi(s2, "/b")->full.total_us == psi(s1, "/b")->full.total_us);
	/* a pressure file with no line: read as absent, and carried as absent */
	put(b, "memory.pressure", "");
	assert_int_equal(mcg_sampler_set_detail(s, NULL, 0, 0), 0);
	assert_int_equal(mcg_sampler_sample(s, &s3), 0);
	assert_int_equal(row(s3, "/b")->stale, 0);
	assert_false(psi(s3, "/b")->some_valid);
	mcg_snapshot_unref(s3);
	assert_int_equal(mcg_sampler_set_detail(s, &id_a, 1, 1000), 0);
	assert_int_equal(mcg_sampler_sample(s, &s3), 0);
	assert_int_equal(row(s3, "/b")->stale, 1);
	assert_false(psi(s3, "/b")->some_valid || psi(s3, "/b")->full_valid);
	assert_true(psi(s3, "/a")->some_valid);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_snapshot_unref(s3);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

/*
 * Overwrite the first byte of DIR/NAME in place through a shared mapping: the
 * kernel's cgroup files change without an inotify event, and so does this.
 */
static void poke(const char *dir, const char *name, char c)
{
	char p[512], *m;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	m = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	m[0] = c;
	assert_int_equal(munmap(m, 1), 0);
	close(fd);
}

/*
 * An empty cgroup (usage 0 at two samples in a row) carries its peak and v1
 * kmem usage as memory.stat's counters are; once it has usage they are read again.
 */
static void test_sampler_empty_carry(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0},
		{"/e", 0, NOLIMIT, 10, 0, 0},
	};
	static const enum mcg_key keys[] = {MCG_K_USAGE, MCG_K_PEAK, MCG_K_KMEM_USAGE, MCG_K_KERNEL,
					    MCG_K_PGPGOUT};
	struct mcg_snapshot *s1, *s2, *s3, *s4;
	char root[128], e[160];
	struct mcg_sampler *s;
	struct mcg_keyset ks;
	struct mcg_ctx *ctx;
	size_t i;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(e, sizeof(e), "%s/e", root);
	putf(e, "memory.max_usage_in_bytes", "5\n");
	putf(e, "memory.kmem.usage_in_bytes", "6\n");
	memset(&ks, 0, sizeof(ks));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		mcg_keyset_add(&ks, keys[i]);
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, &ks), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0);
	assert_true(mcg_sample_get(row(s1, "/e"), MCG_K_PEAK, 0) == 5);
	assert_true(mcg_sample_get(row(s1, "/e"), MCG_K_KMEM_USAGE, 0) == 6);
	assert_true(mcg_sample_get(row(s1, "/e"), MCG_K_KERNEL, 0) == 6);
	/* empty at both samples: the files changed, the values are carried */
	poke(e, "memory.max_usage_in_bytes", '7');
	poke(e, "memory.kmem.usage_in_bytes", '8');
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_true(mcg_sample_get(row(s2, "/e"), MCG_K_PEAK, 0) == 5);
	assert_true(mcg_sample_get(row(s2, "/e"), MCG_K_KMEM_USAGE, 0) == 6);
	assert_true(mcg_sample_get(row(s2, "/e"), MCG_K_KERNEL, 0) == 6);
	assert_true(mcg_sample_get(row(s2, "/e"), MCG_K_PGPGOUT, 0) == 10);
	/* usage again: read again */
	poke(e, "memory.usage_in_bytes", '9');
	assert_int_equal(mcg_sampler_sample(s, &s3), 0);
	assert_true(mcg_sample_get(row(s3, "/e"), MCG_K_USAGE, 0) == 9);
	assert_true(mcg_sample_get(row(s3, "/e"), MCG_K_PEAK, 0) == 7);
	assert_true(mcg_sample_get(row(s3, "/e"), MCG_K_KMEM_USAGE, 0) == 8);
	assert_true(mcg_sample_get(row(s3, "/e"), MCG_K_KERNEL, 0) == 8);
	/* the root, never empty, reads its (absent) files every time: absent stays absent */
	assert_false(has(row(s3, "/"), MCG_K_PEAK));
	poke(e, "memory.usage_in_bytes", '0');
	poke(e, "memory.max_usage_in_bytes", '3');
	assert_int_equal(mcg_sampler_sample(s, &s4), 0);
	/* the first empty sample after usage reads them: the last read had usage */
	assert_true(mcg_sample_get(row(s4, "/e"), MCG_K_PEAK, 0) == 3);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_snapshot_unref(s3);
	mcg_snapshot_unref(s4);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/* A hand-built snapshot of N rows for every counter, taken at NS. */
static struct mcg_snapshot *mk(size_t n, uint64_t ns)
{
	struct mcg_snapshot *s;

	assert_int_equal(mcg_snapshot_new(NULL, n, &s), 0);
	s->version = 2;
	s->mono_ns = ns;
	s->page_size = 4096;
	return s;
}

static void set(struct mcg_sample_row *r, enum mcg_key c, uint64_t v)
{
	assert_true(mcg_sample_set(r, c, v));
}

/* The pure function with an exact interval: 2 s. */
static void test_rates_pure(void **state)
{
	struct mcg_snapshot *sp = mk(3, 1000000000ULL), *sc = mk(3, 3000000000ULL);
	struct mcg_sample_row *p = sp->rows, *c = sc->rows;

	(void)state;
	p[0].id = 1, p[1].id = 2, p[2].id = 3;
	set(&p[0], MCG_K_PGSTEAL, 1000);
	set(&p[0], MCG_K_EV_OOM, 2);
	set(&p[1], MCG_K_PGSTEAL, 500);
	set(&p[2], MCG_K_PGSTEAL, 7);
	mcg_snapshot_rates(NULL, sp);
	assert_true(mcg_keyset_empty(&sp->rows[0].rate_valid));
	assert_true(sp->interval == 0);

	/* rows in another order (ids 3 and 1 kept, 2 vanished, 9 new) */
	c[0].id = 3, c[1].id = 1, c[2].id = 9;
	set(&c[0], MCG_K_PGSTEAL, 4);   /* went back: reset */
	set(&c[1], MCG_K_PGSTEAL, 3000); /* +2000 in 2 s */
	set(&c[1], MCG_K_EV_OOM, 2);
	set(&c[1], MCG_K_USAGE, 100);
	set(&c[2], MCG_K_PGSTEAL, 50);
	assert_true(mcg_sample_set_since(&sp->rows[0], MCG_K_PGSTEAL, 40));
	assert_true(mcg_sample_set_since(&sp->rows[2], MCG_K_PGSTEAL, 6));
	mcg_snapshot_rates(sp, sc);
	assert_true(sc->interval == 2.0);
	assert_true(mcg_sample_rate(&sc->rows[1], MCG_K_PGSTEAL) == 1000.0);
	assert_true(mcg_sample_since(&sc->rows[1], MCG_K_PGSTEAL) == 2040);
	assert_true(mcg_sample_rate_has(&sc->rows[1], MCG_K_EV_OOM));
	assert_true(mcg_sample_rate(&sc->rows[1], MCG_K_EV_OOM) == 0.0);
	/* usage was not in the previous sample: no rate */
	assert_false(mcg_sample_rate_has(&sc->rows[1], MCG_K_USAGE));
	assert_false(mcg_sample_rate_has(&sc->rows[0], MCG_K_PGSTEAL));
	assert_true(mcg_sample_since(&sc->rows[0], MCG_K_PGSTEAL) == 10);
	assert_true(mcg_keyset_empty(&sc->rows[2].rate_valid));
	assert_true(mcg_sample_since(&sc->rows[2], MCG_K_PGSTEAL) == 0);
	mcg_snapshot_unref(sp);
	mcg_snapshot_unref(sc);
}

/* A row holds the asked counters this hierarchy has, and no others: a cell each. */
static void test_sampler_columns(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 100, 0, 0},
		{"/a", 65536, "1048576", 10, 5, 7},
	};
	struct mcg_keyset want = {{0}}, dflt;
	char root[128];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *snap;
	const struct mcg_sample_row *r;
	unsigned k;
	size_t i;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	/* the default (top's): on v1 neither reclaim counters nor high */
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	mcg_sampler_default_keys(&dflt);
	mcg_keyset_foreach(k, &snap->cols.keys)
		assert_true(mcg_keyset_has(&dflt, k));
	assert_false(mcg_keyset_has(&snap->cols.keys, MCG_K_PGSCAN));
	assert_false(mcg_keyset_has(&snap->cols.keys, MCG_K_HIGH));
	assert_true(mcg_keyset_has(&snap->cols.keys, MCG_K_REFAULT)); /* derived */
	assert_false(mcg_keyset_has(&snap->cols.keys, MCG_K_WORKINGSET_REFAULT_FILE)); /* its source */
	assert_true(snap->cols.n < MCG_K__COUNT / 3);
	for (i = 0; i < snap->n_rows; i++) {
		r = &snap->rows[i];
		assert_ptr_equal(r->cols, &snap->cols);
		mcg_keyset_foreach(k, &r->valid)
			assert_true(mcg_keyset_has(&snap->cols.keys, k));
		assert_null(r->psi); /* v1: no pressure */
	}
	mcg_snapshot_unref(snap);
	/* two counters asked: two cells, and exactly those counters in every row */
	mcg_keyset_add(&want, MCG_K_USAGE);
	mcg_keyset_add(&want, MCG_K_PGPGOUT);
	assert_int_equal(mcg_sampler_set_keys(s, &want), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->cols.n, 2);
	assert_memory_equal(&snap->cols.keys, &want, sizeof(want));
	assert_int_equal(snap->n_rows, 2);
	for (i = 0; i < snap->n_rows; i++)
		assert_memory_equal(&snap->rows[i].valid, &want, sizeof(want));
	r = row(snap, "/a");
	assert_true(mcg_sample_get(r, MCG_K_USAGE, 0) == 65536);
	assert_true(mcg_sample_get(r, MCG_K_PGPGOUT, 0) == 10);
	assert_false(mcg_sample_has(r, MCG_K_LIMIT));
	assert_true(mcg_sample_get(r, MCG_K_LIMIT, 77) == 77);
	{
		struct mcg_record rec;

		mcg_sample_record(r, &rec);
		assert_memory_equal(&rec.valid, &want, sizeof(want));
		assert_true(rec.v[MCG_K_USAGE] == 65536 && rec.v[MCG_K_PGPGOUT] == 10);
	}
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/*
 * Rates and since-start counts across a change of the sampler's counters: the
 * previous snapshot's cells are read through its own columns.
 */
static void test_sampler_columns_change(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 100, 0, 0},
		{"/a", 65536, "1048576", 10, 5, 7},
	};
	struct mcg_keyset two = {{0}};
	char root[128], a[160];
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *s1, *s2, *s3;
	const struct mcg_sample_row *r;
	double dt;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(a, sizeof(a), "%s/a", root);
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_sampler_new(ctx, "/", 0, &s), 0);
	mcg_keyset_add(&two, MCG_K_USAGE);
	mcg_keyset_add(&two, MCG_K_PGPGOUT);
	assert_int_equal(mcg_sampler_set_keys(s, &two), 0);
	assert_int_equal(mcg_sampler_sample(s, &s1), 0);
	/* every counter from the next sample on: PGPGOUT has another cell */
	assert_int_equal(mcg_sampler_set_keys(s, NULL), 0);
	usleep(20000);
	cg_v1(a, 131072, "1048576", 110, 5, 7);
	assert_int_equal(mcg_sampler_sample(s, &s2), 0);
	assert_true(s2->cols.n > s1->cols.n);
	assert_int_not_equal(s1->cols.col[MCG_K_PGPGOUT], s2->cols.col[MCG_K_PGPGOUT]);
	dt = s2->interval;
	r = row(s2, "/a");
	assert_true(mcg_sample_rate_has(r, MCG_K_PGPGOUT));
	assert_true(fabs(mcg_sample_rate(r, MCG_K_PGPGOUT) * dt - 100) < 1e-6);
	assert_true(fabs(mcg_sample_rate(r, MCG_K_USAGE) * dt - 65536) < 1e-3);
	assert_true(mcg_sample_since(r, MCG_K_PGPGOUT) == 100);
	/* new in this sample: a value, no rate */
	assert_true(mcg_sample_has(r, MCG_K_FAILCNT));
	assert_false(mcg_sample_rate_has(r, MCG_K_FAILCNT));
	/* and back to two: the counts go on */
	assert_int_equal(mcg_sampler_set_keys(s, &two), 0);
	usleep(20000);
	cg_v1(a, 131072, "1048576", 150, 5, 7);
	assert_int_equal(mcg_sampler_sample(s, &s3), 0);
	r = row(s3, "/a");
	assert_true(mcg_sample_since(r, MCG_K_PGPGOUT) == 140);
	assert_true(fabs(mcg_sample_rate(r, MCG_K_PGPGOUT) * s3->interval - 40) < 1e-6);
	assert_false(mcg_sample_has(r, MCG_K_FAILCNT));
	/* the kept snapshots read as they were */
	assert_true(mcg_sample_get(row(s1, "/a"), MCG_K_PGPGOUT, 0) == 10);
	assert_true(mcg_sample_since(row(s2, "/a"), MCG_K_PGPGOUT) == 100);
	mcg_snapshot_unref(s1);
	mcg_snapshot_unref(s2);
	mcg_snapshot_unref(s3);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/* Taskstats over libnl: replies are read whole (no stray ACK), errors do not desync the socket. */
static void test_taskstats(void **state)
{
	struct mcg_taskstats *ts;
	uint64_t d = 1, c = 1;
	int r;

	(void)state;
	r = mcg_taskstats_open(&ts);
	if (r == -EPERM || r == -ENOENT || r == -EACCES) {
		print_message("taskstats unavailable here (%s): skipped\n", mcg_strerror(r));
		skip();
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(mcg_taskstats_tgid(ts, getpid(), &d, &c), 0);
	/* a task group that does not exist: an error, not a stale reply */
	assert_true(mcg_taskstats_tgid(ts, 0x3ffffff0, &d, &c) < 0);
	/* and the next query still gets its own reply */
	d = c = 12345;
	assert_int_equal(mcg_taskstats_tgid(ts, getpid(), &d, &c), 0);
	assert_true(c != 12345 || d != 12345);
	assert_int_equal(mcg_taskstats_tgid(ts, 1, &d, &c), 0);
	assert_true(mcg_taskstats_tgid(ts, 0, &d, &c) == -EINVAL);
	mcg_taskstats_close(ts);
}

/*
 * Once (list, the one-shot export): nothing kept after the sample, a
 * directory that is not a memory cgroup left out with what is below it, the
 * depth, children counted at the depth, every process of a long
 * cgroup.procs, v1 local keys for missing total_ ones, a file that cannot
 * be read said in the row.
 */
static void test_sampler_once(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0}, {"/x", 65536, NOLIMIT, 0, 0, 0},
		{"/x/y", 65536, NOLIMIT, 0, 0, 0}, {"/z", 65536, NOLIMIT, 0, 0, 0},
		{"/z/w", 65536, NOLIMIT, 0, 0, 0},
	};
	char root[128], dir[192], p[256];
	struct mcg_keyset keys = {{0}};
	struct mcg_snapshot *snap;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	FILE *f;
	int i;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	/* not a memory cgroup (no memory.usage_in_bytes), with one below it */
	snprintf(dir, sizeof(dir), "%s/nomem", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/nomem/below", root);
	cg_v1(dir, 65536, NOLIMIT, 0, 0, 0);
	/* 5000 processes: 30,000 bytes, past the sampler's 16 KiB buffer */
	snprintf(p, sizeof(p), "%s/z/cgroup.procs", root);
	f = fopen(p, "w");
	assert_non_null(f);
	for (i = 0; i < 5000; i++)
		fprintf(f, "%d\n", 10000 + i);
	fclose(f);
	/* a memory.stat without total_ keys: the local one stands in */
	snprintf(dir, sizeof(dir), "%s/z/w", root);
	put(dir, "memory.stat", "dirty 4096\n");
	/* a memory.stat that cannot be read (a directory: EISDIR) */
	snprintf(p, sizeof(p), "%s/x/y/memory.stat", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);

	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	mcg_keyset_add(&keys, MCG_K_USAGE);
	mcg_keyset_add(&keys, MCG_K_DIRTY);
	mcg_keyset_add(&keys, MCG_K_NR_PROCS);
	mcg_keyset_add(&keys, MCG_K_NR_CHILDREN);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(mcg_sampler_nfds(s), 0); /* no descriptor kept */
	assert_int_equal(snap->n_rows, 5); /* /, /x, /x/y, /z, /z/w: not /nomem nor below it */
	assert_null(find(snap, "/nomem"));
	assert_null(find(snap, "/nomem/below"));
	/* every directory is a child, as mcg_group_nr_children() counts them */
	assert_true(mcg_sample_get(row(snap, "/"), MCG_K_NR_CHILDREN, 0) == 3);
	assert_true(mcg_sample_get(row(snap, "/x"), MCG_K_NR_CHILDREN, 0) == 1);
	assert_true(mcg_sample_get(row(snap, "/z"), MCG_K_NR_PROCS, 0) == 5000);
	assert_true(mcg_sample_get(row(snap, "/z/w"), MCG_K_DIRTY, 0) == 4096);
	assert_true(mcg_sample_get(row(snap, "/z"), MCG_K_DIRTY, 0) == 8192);
	assert_int_equal(row(snap, "/x/y")->err, -EISDIR);
	assert_true(has(row(snap, "/x/y"), MCG_K_USAGE));
	assert_false(has(row(snap, "/x/y"), MCG_K_DIRTY));
	assert_int_equal(row(snap, "/z")->err, 0);
	assert_false(has_rate(row(snap, "/z"), MCG_K_USAGE));
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);

	/* one level: the rows of depth 1 still count their children */
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
	assert_int_equal(mcg_sampler_set_depth(s, 1), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_int_equal(snap->n_rows, 3); /* /, /x, /z */
	assert_null(find(snap, "/x/y"));
	assert_true(mcg_sample_get(row(snap, "/x"), MCG_K_NR_CHILDREN, 0) == 1);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/*
 * Once, a cgroup whose usage reads 0 has nothing charged: memory.stat's
 * amounts are 0 without reading it (the fixture's file says otherwise, which
 * the kernel's could not), a key the kernel's memory.stat lacks stays absent;
 * with an event counter asked for, memory.stat is read.
 */
static void test_sampler_once_empty(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0},
		{"/a", 0, NOLIMIT, 10, 0, 0},
		{"/b", 8192, NOLIMIT, 0, 0, 0},
	};
	struct mcg_keyset keys = {{0}};
	struct mcg_snapshot *snap;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	char root[128];

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	mcg_keyset_add(&keys, MCG_K_USAGE);
	mcg_keyset_add(&keys, MCG_K_ANON);
	mcg_keyset_add(&keys, MCG_K_DIRTY);
	mcg_keyset_add(&keys, MCG_K_SHMEM); /* no such key in the fixture's memory.stat */
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_true(mcg_sample_get(row(snap, "/a"), MCG_K_ANON, 99) == 0);
	assert_true(mcg_sample_get(row(snap, "/a"), MCG_K_DIRTY, 99) == 0);
	assert_false(has(row(snap, "/a"), MCG_K_SHMEM));
	assert_true(mcg_sample_get(row(snap, "/b"), MCG_K_ANON, 0) == 4096);
	assert_true(mcg_sample_get(row(snap, "/b"), MCG_K_DIRTY, 0) == 8192);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);

	/* an event counter: memory.stat is read for the empty cgroup too */
	mcg_keyset_add(&keys, MCG_K_PGPGOUT);
	assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
	assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
	assert_int_equal(mcg_sampler_sample(s, &snap), 0);
	assert_true(mcg_sample_get(row(snap, "/a"), MCG_K_PGPGOUT, 0) == 10);
	assert_true(mcg_sample_get(row(snap, "/a"), MCG_K_ANON, 0) == 4096);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
}

/*
 * An idle cgroup (usage 0 at two samples in a row) carries cgroup.procs' count
 * and memory.stat's counters between its turns: each is read again within
 * MCG_SAMPLER_IDLE_EVERY samples, and at once when usage moves; with the
 * setting at 1, every sample.
 */
static void test_sampler_idle(void **state)
{
	static const struct fx_cg tree[] = {
		{"", 1 << 20, NOLIMIT, 0, 0, 0},
		{"/i", 0, NOLIMIT, 10, 0, 0},
	};
	struct mcg_keyset keys = {{0}};
	struct mcg_snapshot *snap;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	char root[128], i_dir[160];
	unsigned n, carried = 0, every;

	(void)state;
	fx_tree(root, sizeof(root), tree, sizeof(tree) / sizeof(tree[0]));
	snprintf(i_dir, sizeof(i_dir), "%s/i", root);
	put(i_dir, "cgroup.procs", "");
	assert_int_equal(mcg_ctx_new_root(root, 1, NULL, NULL, &ctx), 0);
	mcg_keyset_add(&keys, MCG_K_USAGE);
	mcg_keyset_add(&keys, MCG_K_PGPGOUT);
	mcg_keyset_add(&keys, MCG_K_NR_PROCS);
	for (every = MCG_SAMPLER_IDLE_EVERY; every; every = every == 1 ? 0 : 1) {
		assert_int_equal(mcg_sampler_new(ctx, "/", MCG_SAMPLER_CGROUPS_ONLY, &s), 0);
		assert_int_equal(mcg_sampler_set_keys(s, &keys), 0);
		mcg_sampler_set_idle(s, every);
		put(i_dir, "cgroup.procs", "");
		for (n = 0; n < 2; n++) {
			assert_int_equal(mcg_sampler_sample(s, &snap), 0);
			assert_true(mcg_sample_get(row(snap, "/i"), MCG_K_NR_PROCS, 9) == 0);
			mcg_snapshot_unref(snap);
		}
		/* a task moved in, usage still 0: seen within EVERY samples */
		put(i_dir, "cgroup.procs", "4242\n");
		for (n = 1;; n++) {
			assert_int_equal(mcg_sampler_sample(s, &snap), 0);
			if (mcg_sample_get(row(snap, "/i"), MCG_K_NR_PROCS, 9) == 1) {
				mcg_snapshot_unref(snap);
				break;
			}
			assert_int_equal(row(snap, "/i")->stale, 0); /* carried as unchanged */
			mcg_snapshot_unref(snap);
			carried++;
			assert_true(n < (every > 1 ? every : 1));
		}
		/* usage moves: read at once */
		put(i_dir, "cgroup.procs", "4242\n4243\n");
		put(i_dir, "memory.usage_in_bytes", "4096\n");
		assert_int_equal(mcg_sampler_sample(s, &snap), 0);
		assert_true(mcg_sample_get(row(snap, "/i"), MCG_K_NR_PROCS, 9) == 2);
		assert_int_equal(row(snap, "/i")->stale, 0);
		mcg_snapshot_unref(snap);
		put(i_dir, "memory.usage_in_bytes", "0\n");
		mcg_sampler_free(s);
	}
	(void)carried;
	mcg_ctx_free(ctx);
}

/* The fixture tree goes even when an assertion stopped the test half-way. */
static int remove_tree(void **state)
{
	char cmd[256];

	(void)state;
	if (tmpl[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taskstats),
		cmocka_unit_test_teardown(test_sampler_fixture, remove_tree),
		cmocka_unit_test_teardown(test_sampler_prune, remove_tree),
		cmocka_unit_test_teardown(test_sampler_once, remove_tree),
		cmocka_unit_test_teardown(test_sampler_once_empty, remove_tree),
		cmocka_unit_test_teardown(test_sampler_idle, remove_tree),
		cmocka_unit_test_teardown(test_sampler_detail, remove_tree),
		cmocka_unit_test_teardown(test_sampler_detail_psi, remove_tree),
		cmocka_unit_test_teardown(test_sampler_empty_carry, remove_tree),
		cmocka_unit_test(test_rates_pure),
		cmocka_unit_test_teardown(test_sampler_columns, remove_tree),
		cmocka_unit_test_teardown(test_sampler_columns_change, remove_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
