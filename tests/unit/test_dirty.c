/* test_dirty.c: the dirty threshold arithmetic against worked examples from mm/page-writeback.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "memcg.h"

#define PS 4096ULL

static struct mcg_dirty_settings ratios(uint64_t r, uint64_t bg)
{
	struct mcg_dirty_settings s = {r, bg, 0, 0, 3000, 500};

	return s;
}

/* Captured on this project's host (6.18): zoneinfo reserve and the kernel's vmstat values. */
static const char zoneinfo_host[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 0\n"
	"  pages free     3840\n"
	"        boost    0\n"
	"        min      29\n"
	"        low      53\n"
	"        high     78\n"
	"        managed  3840\n"
	"        protection: (0, 3018, 4810, 4810, 4810)\n"
	"      nr_free_pages 3840\n"
	"Node 0, zone    DMA32\n"
	"  pages free     772808\n"
	"        high     15853\n"
	"        spanned  1044480\n"
	"        managed  772808\n"
	"        protection: (0, 0, 1792, 1792, 1792)\n"
	"Node 0, zone   Normal\n"
	"  pages free     243862\n"
	"        high     9410\n"
	"        managed  458752\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 0, zone  Movable\n"
	"  pages free     0\n"
	"        high     32\n"
	"        managed  0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 0, zone   Device\n"
	"  pages free     0\n"
	"        high     0\n"
	"        managed  0\n"
	"        protection: (0, 0, 0, 0, 0)\n";

static void test_reserve(void **state)
{
	uint64_t r = 0;

	(void)state;
	assert_int_equal(mcg_dirty_reserve_parse(zoneinfo_host, &r), 0);
	/* DMA: min(78 + 4810, 3840) = 3840 (capped at managed); DMA32: 15853 + 1792;
	 * Normal: 9410; Movable: min(32, 0) = 0; Device: 0. */
	assert_int_equal(r, 3840 + 15853 + 1792 + 9410);
	r = 7;
	assert_int_equal(mcg_dirty_reserve_parse("", &r), -EINVAL);
	assert_int_equal(mcg_dirty_reserve_parse("garbage\nmore\n", &r), -EINVAL);
	/* a zone without a managed line is not understood: refuse rather than guess */
	assert_int_equal(mcg_dirty_reserve_parse("Node 0, zone DMA\n  high 5\n", &r), -EINVAL);
	assert_int_equal(r, 7);
}

static void test_dirtyable(void **state)
{
	(void)state;
	/* host, MemFree 5922375 pages, file 55395 + 52246 + others: as the kernel's +1 */
	assert_int_equal(mcg_dirty_dirtyable(5922375, 30895, 109901), 5922375 - 30895 + 109901 + 1);
	/* reserve larger than free: free counts as 0, never wraps */
	assert_int_equal(mcg_dirty_dirtyable(100, 5000, 2000), 2001);
	/* nothing at all: never 0 */
	assert_int_equal(mcg_dirty_dirtyable(0, 0, 0), 1);
}

static void test_global_ratio(void **state)
{
	struct mcg_dirty_settings s = ratios(20, 10);
	struct mcg_dirty_limits l;

	(void)state;
	/* Seen on the host: dirtyable 6001339 -> nr_dirty_threshold 1199974,
	 * nr_dirty_background_threshold 599254 (ratio 20 -> 819/4096, 10 -> 409/4096). */
	mcg_dirty_domain_limits(&s, 6001339, 0, PS, &l);
	assert_int_equal(l.thresh, 1199974);
	assert_int_equal(l.bg_thresh, 599254);
	assert_int_equal(l.freerun, (1199974 + 599254) / 2);
	assert_int_equal(l.avail, 6001339);
}

static void test_global_bytes(void **state)
{
	struct mcg_dirty_settings s = ratios(0, 0);
	struct mcg_dirty_limits l;

	(void)state;
	/* dirty_bytes 100 MB (rounded up to pages), background 10 MiB exactly */
	s.bytes = 100000000;
	s.bg_bytes = 10 << 20;
	mcg_dirty_domain_limits(&s, 1000000, 0, PS, &l);
	assert_int_equal(l.thresh, (100000000 + PS - 1) / PS); /* 24415 */
	assert_int_equal(l.bg_thresh, 2560);
	/* mixed: bytes for the limit, a ratio for background */
	s.bg_bytes = 0;
	s.bg_ratio = 1;
	mcg_dirty_domain_limits(&s, 1000000, 0, PS, &l);
	assert_int_equal(l.bg_thresh, (1 * PS / 100) * 1000000 / PS); /* 40 * 1e6 / 4096 = 9765 */
}

static void test_bg_clamp(void **state)
{
	struct mcg_dirty_settings s = ratios(10, 30);
	struct mcg_dirty_limits l;

	(void)state;
	/* background >= limit: the kernel halves the limit for background */
	mcg_dirty_domain_limits(&s, 100000, 0, PS, &l);
	assert_int_equal(l.thresh, 409 * 100000 / 4096);
	assert_int_equal(l.bg_thresh, l.thresh / 2);
	/* same with byte settings */
	s = ratios(0, 0);
	s.bytes = 4096 * 100;
	s.bg_bytes = 4096 * 100;
	mcg_dirty_domain_limits(&s, 100000, 0, PS, &l);
	assert_int_equal(l.thresh, 100);
	assert_int_equal(l.bg_thresh, 50);
	assert_int_equal(l.freerun, 75);
}

static void test_memcg_avail(void **state)
{
	(void)state;
	/* a 100 MiB memcg holding 20 MiB of file pages, 5 MiB dirty, 60 MiB used:
	 * headroom 40 MiB = 10240 pages; plenty of clean memory elsewhere */
	assert_int_equal(mcg_dirty_memcg_avail(5120, 10240, 1280, 6000000, 50000), 5120 + 10240);
	/* little global clean memory: other_clean = global_clean - this memcg's clean */
	assert_int_equal(mcg_dirty_memcg_avail(5120, 10240, 1280, 10000, 2000),
		     5120 + (8000 - (5120 - 1280)));
	/* this memcg holds all the clean memory: nothing else to grow into */
	assert_int_equal(mcg_dirty_memcg_avail(5120, 10240, 0, 5120, 0), 5120);
	/* no limit (headroom "max"): bounded by global clean memory */
	assert_int_equal(mcg_dirty_memcg_avail(100, UINT64_MAX, 0, 1000, 0), 100 + 900);
	/* zero file pages: only the headroom */
	assert_int_equal(mcg_dirty_memcg_avail(0, 2560, 0, 1000000, 0), 2560);
	/* dirty above file pages (racing counters): clean is 0, not a wrap */
	assert_int_equal(mcg_dirty_memcg_avail(10, 5, 50, 1000, 0), 15);
}

static void test_memcg_domain(void **state)
{
	struct mcg_dirty_settings s = ratios(20, 10);
	struct mcg_dirty_limits l;
	uint64_t avail = mcg_dirty_memcg_avail(5120, 10240, 1280, 6000000, 50000);

	(void)state;
	/* ratios apply to the memcg's avail, 15360 pages = 60 MiB */
	mcg_dirty_domain_limits(&s, avail, 6000000, PS, &l);
	assert_int_equal(l.thresh, 819 * 15360 / 4096);   /* 3071 pages, ~12 MiB */
	assert_int_equal(l.bg_thresh, 409 * 15360 / 4096); /* 1533 */
	assert_int_equal(l.freerun, (3071 + 1533) / 2);

	/* byte settings become ratios of the global dirtyable memory:
	 * 600 MB of 6000000 pages -> DIV_ROUND_UP(600e6, 6e6) = 100 per 4096 */
	s = ratios(0, 0);
	s.bytes = 600000000;
	s.bg_bytes = 300000000;
	mcg_dirty_domain_limits(&s, 15360, 6000000, PS, &l);
	assert_int_equal(l.thresh, 100 * 15360 / 4096); /* 375 */
	assert_int_equal(l.bg_thresh, 50 * 15360 / 4096); /* 187 */
	/* bytes larger than all dirtyable memory: the ratio caps at 100% */
	s.bytes = 1ULL << 50;
	s.bg_bytes = 0;
	mcg_dirty_domain_limits(&s, 15360, 6000000, PS, &l);
	assert_int_equal(l.thresh, 15360);
}

static void test_classify(void **state)
{
	struct mcg_dirty_limits l = {15360, 3071, 1533, 2302};

	(void)state;
	assert_int_equal(mcg_dirty_classify(&l, 0, 0), MCG_DIRTY_BELOW_BG);
	assert_int_equal(mcg_dirty_classify(&l, 1533, 0), MCG_DIRTY_BELOW_BG);
	assert_int_equal(mcg_dirty_classify(&l, 1534, 0), MCG_DIRTY_BACKGROUND);
	/* writeback counts toward the throttle, not the background threshold */
	assert_int_equal(mcg_dirty_classify(&l, 1000, 1303), MCG_DIRTY_THROTTLED);
	assert_int_equal(mcg_dirty_classify(&l, 1000, 1302), MCG_DIRTY_BELOW_BG);
	assert_int_equal(mcg_dirty_classify(&l, 3000, 71), MCG_DIRTY_AT_LIMIT);
	assert_string_equal(mcg_dirty_state_name(MCG_DIRTY_BACKGROUND), "background writeback");
}

static void test_stat_parse(void **state)
{
	struct mcg_dirty_cg c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(mcg_dirty_stat_parse("cache 10\ndirty 4096\nwriteback 0\n"
					      "hierarchical_memory_limit 5242880\n"
					      "total_dirty 8192\ntotal_writeback 4096\n"
					      "total_inactive_file 100\ntotal_active_file 20\n",
					      1, &c),
			 0);
	assert_int_equal(c.dirty, 8192);
	assert_int_equal(c.writeback, 4096);
	assert_int_equal(c.file, 120);
	assert_int_equal(c.limit, 5242880);
	assert_int_equal(mcg_dirty_stat_parse("hierarchical_memory_limit 9223372036854771712\n"
					      "total_dirty 0\ntotal_writeback 0\n",
					      1, &c),
			 0);
	assert_true(c.limit == MCG_MAX);
	assert_int_equal(mcg_dirty_stat_parse("anon 1\nfile 2\nfile_dirty 12288\nfile_writeback 4096\n"
					      "inactive_file 8192\nactive_file 8192\n",
					      2, &c),
			 0);
	assert_int_equal(c.dirty, 12288);
	assert_int_equal(c.file, 16384);
	/* v1 local keys alone are not the hierarchical ones: refused */
	assert_int_equal(mcg_dirty_stat_parse("dirty 1\nwriteback 2\n", 1, &c), -ENOENT);
	assert_int_equal(mcg_dirty_stat_parse("", 2, &c), -ENOENT);
	/* a key that only starts like ours is not ours */
	assert_int_equal(mcg_dirty_stat_parse("file_dirty_x 5\nfile_writeback 1\n", 2, &c), -ENOENT);
}

static struct mcg_dirty_global global_host(void)
{
	struct mcg_dirty_global g;

	memset(&g, 0, sizeof(g));
	g.set = ratios(20, 10);
	g.page_size = PS;
	g.free = 5922375;
	g.vmstat_free = 986890;
	g.file = 109901;
	g.reserve = 30895;
	g.reserve_valid = true;
	mcg_dirty_domain_limits(&g.set, mcg_dirty_dirtyable(g.free, g.reserve, g.file), 0, PS,
				&g.lim);
	g.kernel_valid = true;
	g.kernel_thresh = g.lim.thresh;
	g.kernel_bg_thresh = g.lim.bg_thresh;
	g.cgwb = 1;
	return g;
}

/* mcg_dirty_verdict() with its text, checked to give the level it gives without (NULL). */
static enum mcg_dirty_level verdict(const struct mcg_dirty_cg *c, int version,
				    const struct mcg_dirty_global *g, double stale_s, char *why,
				    size_t len)
{
	enum mcg_dirty_level l = mcg_dirty_verdict(c, version, g, stale_s, why, len);

	assert_int_equal(mcg_dirty_verdict(c, version, g, stale_s, NULL, 0), l);
	assert_true(why[0]);
	return l;
}

static void test_eval_v2_and_verdicts(void **state)
{
	struct mcg_dirty_global g = global_host();
	struct mcg_dirty_cg c;
	char why[512];
	enum mcg_dirty_level l;

	(void)state;
	/* v2, a 100 MiB cgroup with 60 MiB used and 20 MiB of file pages */
	memset(&c, 0, sizeof(c));
	c.file = 20 << 20;
	c.dirty = 2 << 20;
	c.headroom = 10240;
	c.limit = 100 << 20;
	mcg_dirty_cg_eval(&c, 2, &g);
	assert_true(c.has_domain);
	assert_int_equal(c.dom.avail, 5120 + 10240);
	assert_int_equal(c.memcg_state, MCG_DIRTY_BELOW_BG);
	l = verdict(&c, 2, &g, -1, why, sizeof(why));
	assert_int_equal(l, MCG_DIRTY_OK);
	assert_non_null(strstr(why, "below background"));

	/* 7 MiB dirty: above the memcg bg threshold (~6 MiB), below freerun (~9 MiB) */
	c.dirty = 7 << 20;
	mcg_dirty_cg_eval(&c, 2, &g);
	assert_int_equal(c.memcg_state, MCG_DIRTY_BACKGROUND);
	assert_int_equal(c.global_state, MCG_DIRTY_BELOW_BG);
	assert_int_equal(c.state, MCG_DIRTY_BACKGROUND);
	assert_int_equal(verdict(&c, 2, &g, -1, why, sizeof(why)), MCG_DIRTY_NOTE);
	assert_non_null(strstr(why, "memcg domain"));

	/* dirty + writeback over the freerun ceiling: throttled */
	c.writeback = 4 << 20;
	mcg_dirty_cg_eval(&c, 2, &g);
	assert_int_equal(c.state, MCG_DIRTY_THROTTLED);
	assert_int_equal(verdict(&c, 2, &g, -1, why, sizeof(why)), MCG_DIRTY_WARN);
	assert_non_null(strstr(why, "throttled"));

	/* at the limit */
	c.dirty = 12 << 20;
	mcg_dirty_cg_eval(&c, 2, &g);
	assert_int_equal(c.state, MCG_DIRTY_AT_LIMIT);
	verdict(&c, 2, &g, -1, why, sizeof(why));
	assert_non_null(strstr(why, "blocked"));
}

static void test_cgwb(void **state)
{
	struct mcg_dirty_global g = global_host();
	struct mcg_dirty_cg c;
	char why[512];

	(void)state;
	/* this host: memory and blkio on v1 hierarchies */
	assert_int_equal(mcg_dirty_cgwb_parse("#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
					      "cpuset\t3\t1\t1\nblkio\t7\t1\t1\nmemory\t4\t56\t1\n"
					      "net_cls\t0\t1\t1\n"),
			 0);
	/* pure v2: everything on hierarchy 0 */
	assert_int_equal(mcg_dirty_cgwb_parse("#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
					      "blkio\t0\t4\t1\nmemory\t0\t4\t1\n"),
			 1);
	/* memory on v2, blkio still mounted on v1 (hybrid): no cgroup writeback */
	assert_int_equal(mcg_dirty_cgwb_parse("blkio 5 1 1\nmemory 0 9 1\n"), 0);
	/* memory disabled (cgroup_disable=memory) */
	assert_int_equal(mcg_dirty_cgwb_parse("blkio 0 1 1\nmemory 0 1 0\n"), 0);
	assert_int_equal(mcg_dirty_cgwb_parse("cpu 0 1 1\n"), -ENOENT);

	/* v2 without cgroup writeback: the memcg domain is shown, not enforced */
	g.cgwb = 0;
	memset(&c, 0, sizeof(c));
	c.file = 20 << 20;
	c.dirty = 12 << 20;
	c.writeback = 4 << 20;
	c.headroom = 10240;
	c.limit = 100 << 20;
	mcg_dirty_cg_eval(&c, 2, &g);
	assert_true(c.has_domain);
	assert_int_equal(c.memcg_state, MCG_DIRTY_AT_LIMIT);
	assert_int_equal(c.state, MCG_DIRTY_BELOW_BG);
	assert_int_equal(verdict(&c, 2, &g, -1, why, sizeof(why)), MCG_DIRTY_NOTE);
	assert_non_null(strstr(why, "no cgroup writeback"));
}

static void test_verdict_v1(void **state)
{
	struct mcg_dirty_global g = global_host();
	struct mcg_dirty_cg c;
	char why[512];

	(void)state;
	memset(&c, 0, sizeof(c));
	/* the 2012 report's case: a 5 MiB cgroup full of dirty pages */
	c.limit = 5 << 20;
	c.dirty = 3 << 20;
	c.writeback = 1 << 20;
	c.file = 4 << 20;
	mcg_dirty_cg_eval(&c, 1, &g);
	assert_false(c.has_domain);
	assert_int_equal(c.state, MCG_DIRTY_BELOW_BG);
	assert_int_equal(verdict(&c, 1, &g, -1, why, sizeof(why)), MCG_DIRTY_WARN);
	assert_non_null(strstr(why, "reclaim will wait on writeback"));
	assert_non_null(strstr(why, "80%"));

	/* small share: fine, but only global thresholds apply */
	c.limit = 1ULL << 30;
	assert_int_equal(verdict(&c, 1, &g, -1, why, sizeof(why)), MCG_DIRTY_OK);
	assert_non_null(strstr(why, "only the global thresholds"));

	/* limit max: no share, no warning */
	c.limit = MCG_MAX;
	assert_int_equal(verdict(&c, 1, &g, -1, why, sizeof(why)), MCG_DIRTY_OK);
	assert_non_null(strstr(why, "no limit"));

	/* dirty for longer than expire + writeback interval without progress */
	assert_int_equal(verdict(&c, 1, &g, 36, why, sizeof(why)), MCG_DIRTY_WARN);
	assert_non_null(strstr(why, "dirty_expire"));
	assert_int_equal(verdict(&c, 1, &g, 34, why, sizeof(why)), MCG_DIRTY_OK);

	/* nothing dirty */
	c.dirty = c.writeback = 0;
	assert_int_equal(verdict(&c, 1, &g, 100, why, sizeof(why)), MCG_DIRTY_OK);
	assert_string_equal(why, "no dirty or writeback pages");

	/* the whole system over its global threshold: blocked, whatever the cgroup */
	g.nr_dirty = g.kernel_thresh;
	c.dirty = 4096;
	mcg_dirty_cg_eval(&c, 1, &g);
	assert_int_equal(c.state, MCG_DIRTY_AT_LIMIT);
	verdict(&c, 1, &g, -1, why, sizeof(why));
	assert_non_null(strstr(why, "global limit"));
}

/* The counters dirty needs, from captured memory.stat files through the one record. */
static void test_from_record_captured(void **state)
{
	static const struct {
		const char *file;
		int version;
		uint64_t dirty, file_, limit;
	} cases[] = {
		{"v1.memory.stat", 1, 25174016, 41951232, 536870912},
		{"v2.memory.stat", 2, 25165824, 50331648, 0},
		{"v2-6.1.memory.stat", 2, 25178112, 41967616, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[4096], buf[1 << 16] = "";
		struct mcg_record r = {0};
		struct mcg_dirty_cg c = {0}, d = {0};
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", MCG_TEST_DATA, cases[i].file);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
		fclose(f);
		assert_int_equal(mcg_record_parse(&r, cases[i].version, "memory.stat", buf), 0);
		assert_int_equal(mcg_dirty_cg_from_record(&r, cases[i].version, &c), 0);
		assert_int_equal(c.dirty, cases[i].dirty);
		assert_int_equal(c.writeback, 0);
		assert_int_equal(c.file, cases[i].file_);
		if (cases[i].version == 1)
			assert_int_equal(c.limit, cases[i].limit);
		/* the text parser is the same reader */
		assert_int_equal(mcg_dirty_stat_parse(buf, cases[i].version, &d), 0);
		assert_int_equal(d.dirty, c.dirty);
		assert_int_equal(d.file, c.file);
	}
}

/* zoneinfo: the per-cpu pagesets' "high:" is not the zone's high watermark. */
static void test_reserve_pagesets(void **state)
{
	uint64_t r = 0;

	(void)state;
	assert_int_equal(mcg_dirty_reserve_parse("Node 0, zone   Normal\n"
						 "  pages free     100\n"
						 "        min      10\n"
						 "        high     30\n"
						 "        managed  1000\n"
						 "        protection: (0, 0, 5)\n"
						 "  pagesets\n"
						 "    cpu: 0\n"
						 "              high:  378\n",
						 &r),
			 0);
	assert_int_equal(r, 35);
	{
		struct mcg_record e = {0};
		struct mcg_dirty_cg c;

		assert_int_equal(mcg_dirty_cg_from_record(&e, 2, &c), -ENOENT);
	}
}

/* v2: the headroom and the limit come from the rows of the ancestors, not the root. */
static void test_from_snapshot_v2(void **state)
{
	struct mcg_snapshot snap, *held;
	struct mcg_sample_row *rows;
	struct mcg_dirty_cg c;
	const uint64_t M = 1 << 20, ps = 4096;

	(void)state;
	assert_int_equal(mcg_snapshot_new(NULL, 3, &held), 0);
	rows = held->rows;
	memset(&snap, 0, sizeof(snap));
	snap.version = 2;
	snap.page_size = ps;
	snap.rows = rows;
	snap.n_rows = 3;
	rows[0].path = "/";
	rows[1].path = "/a";
	rows[2].path = "/a/b";
	rows[0].parent = -1; /* the root: no limits of its own count */
	mcg_sample_set(&rows[0], MCG_K_LIMIT, 1 * M);
	mcg_sample_set(&rows[0], MCG_K_USAGE, 1 * M);
	rows[1].parent = 0; /* /a: max 100M, usage 60M: 40M of room */
	mcg_sample_set(&rows[1], MCG_K_LIMIT, 100 * M);
	mcg_sample_set(&rows[1], MCG_K_HIGH, MCG_MAX);
	mcg_sample_set(&rows[1], MCG_K_USAGE, 60 * M);
	rows[2].parent = 1; /* /a/b: high 80M, usage 50M: 30M of room */
	mcg_sample_set(&rows[2], MCG_K_LIMIT, MCG_MAX);
	mcg_sample_set(&rows[2], MCG_K_HIGH, 80 * M);
	mcg_sample_set(&rows[2], MCG_K_USAGE, 50 * M);
	mcg_sample_set(&rows[2], MCG_K_DIRTY, 10 * M);
	mcg_sample_set(&rows[2], MCG_K_WRITEBACK, 0);
	assert_int_equal(mcg_dirty_cg_from_snapshot(&snap, 2, 2, &c), 0);
	assert_true(c.dirty == 10 * M);
	assert_true(c.headroom == 30 * M / ps);
	assert_true(c.limit == 100 * M);
	/* no dirty counters: nothing to say */
	assert_int_equal(mcg_dirty_cg_from_snapshot(&snap, 1, 2, &c), -ENOENT);
	assert_int_equal(mcg_dirty_cg_from_snapshot(&snap, 3, 2, &c), -EINVAL);
	/* a snapshot of a subtree: its first row is a cgroup like any other (/a's 100M binds) */
	snap.rows = rows + 1;
	snap.n_rows = 2;
	rows[1].parent = -1;
	rows[2].parent = 0;
	mcg_sample_set(&rows[1], MCG_K_LIMIT, 70 * M);
	assert_int_equal(mcg_dirty_cg_from_snapshot(&snap, 1, 2, &c), 0);
	assert_true(c.headroom == 10 * M / ps);
	assert_true(c.limit == 70 * M);
	mcg_snapshot_unref(held);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_pagesets),
		cmocka_unit_test(test_from_record_captured),
		cmocka_unit_test(test_dirtyable),
		cmocka_unit_test(test_global_ratio),
		cmocka_unit_test(test_global_bytes),
		cmocka_unit_test(test_bg_clamp),
		cmocka_unit_test(test_memcg_avail),
		cmocka_unit_test(test_memcg_domain),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_eval_v2_and_verdicts),
		cmocka_unit_test(test_cgwb),
		cmocka_unit_test(test_verdict_v1),
		cmocka_unit_test(test_from_snapshot_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
