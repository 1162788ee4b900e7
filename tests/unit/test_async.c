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
#include "ops/ops.h"
#include "fx-tmp.h"
#include <memcg/async-persist.h>

#include <fcntl.h>
#include <sys/stat.h>

#define MIB (1024ULL * 1024)
#define GIB (1024 * MIB)

/* Case I of a parser's table: accepted when WANT is NULL, else refused as corrupt with a
 * reason that starts with WANT. */
static void verdict_is(size_t i, int r, const char *why, const char *want)
{
	if (!want && r != 0)
		fail_msg("case %zu refused: %s", i, why);
	if (want && (r != -MCG_E_CORRUPT || strncmp(why, want, strlen(want))))
		fail_msg("case %zu: returned %d (%s), expected -MCG_E_CORRUPT (%s)", i, r, why, want);
}

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
	c.dev = 42;
	c.ino = 4711;
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
	(void)state;
	return fx_rmtree(dir);
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
	assert_int_equal(v[0].dev, 42);
	assert_int_equal(v[0].ino, 4711);
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
	b.max_cpu = 0.0001; /* would be written as 0.000: refused, not left behind */
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	b.max_cpu = 1;
	b.ino = 0; /* no identity */
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	b.ino = 7;
	strcpy(b.path, "/"); /* the root cgroup */
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	strcpy(b.path, "/a/../etc");
	assert_int_equal(mcg_async_enable(sd, &b), -EINVAL);
	strcpy(b.path, "relative");
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

#define GOOD_CONF                                                                          \
	"memcgctl-async-reclaim 2\nroot /sys/fs/cgroup/memory\npath /web%0Aapp\ndev 42\nino 4711\n" \
	"high 16777216 margin\nlow 0 default\nbatch 64\nmax_cpu 2.500\nclean 1\n"

static void test_conf_parse(void **state)
{
	static const struct {
		const char *text;
		const char *why; /* NULL: accepted */
	} cases[] = {
		{GOOD_CONF, NULL},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a/b\ndev 0\nino 1\nhigh 300 \nlow 1\n"
		 "batch 1\nmax_cpu 100.000\nclean 0\n",
		 "a watermark"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a/b\ndev 0\nino 1\nhigh 300\nlow 1\n"
		 "batch 1\nmax_cpu 100.000\nclean 0\n",
		 NULL},
		{"", "empty file"},
		{"memcgctl-async-reclaim 1\nroot /r\npath /x\nhigh 1\nlow 0\n", "a format version"},
		{"something else\n", "not a memcgctl file"},
		/* planted: the root cgroup, paths that leave the hierarchy, relative */
		{"memcgctl-async-reclaim 2\nroot /r\npath /\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "names the root cgroup"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a/../..\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad cgroup path"},
		{"memcgctl-async-reclaim 2\nroot /r\npath a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad cgroup path"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a%2Fb\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad cgroup path"}, /* %2F is not what the writer escapes */
		{"memcgctl-async-reclaim 2\nroot r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad hierarchy root"},
		/* garbage values */
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 0\nmax_cpu 1.000\nclean 0\n",
		 "a batch out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1048577\nmax_cpu 1.000\nclean 0\n",
		 "a batch out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 0.000\nclean 0\n",
		 "a CPU budget out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1e9\nclean 0\n",
		 "a CPU budget out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 100.001\nclean 0\n",
		 "a CPU budget out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh -1\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a watermark out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 99999999999999999999\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a watermark out of range"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 5 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a default watermark with a value"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 5 bogus\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a watermark that is not"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 0\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad inode number"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 01\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a bad device number"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean yes\n",
		 "clean is not 0 or 1"},
		/* structure: missing, repeated, unknown lines, truncation, binary */
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\n",
		 "a line is missing"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\npath /b\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n",
		 "a repeated line"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\nknob cgroup.procs 1\n",
		 "an unknown line"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0",
		 "truncated"},
		{"memcgctl-async-reclaim 2\nroot /r\npath /a\ndev 1\nino 1\nhigh 0 default\n"
		 "low 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\nx\n",
		 "a line without a value"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcg_async_conf c;
		const char *why = "";
		int r = mcg__async_conf_parse_why(cases[i].text, strlen(cases[i].text), &c, &why);

		verdict_is(i, r, why, cases[i].why);
		assert_int_equal(mcg__async_conf_parse(cases[i].text, strlen(cases[i].text), &c), r);
	}
	/* embedded NUL */
	{
		struct mcg_async_conf c;

		assert_int_equal(mcg__async_conf_parse("memcgctl-async-reclaim 2\n\0\n", 27, &c),
				 -MCG_E_CORRUPT);
	}
	/* the good one, field by field */
	{
		struct mcg_async_conf c;

		assert_int_equal(mcg__async_conf_parse(GOOD_CONF, strlen(GOOD_CONF), &c), 0);
		assert_string_equal(c.path, "/web\napp");
		assert_string_equal(c.root, "/sys/fs/cgroup/memory");
		assert_int_equal(c.dev, 42);
		assert_int_equal(c.ino, 4711);
		assert_int_equal(c.high, 16 * MIB);
		assert_int_equal(c.flags, MCG_ASYNC_HIGH_SET | MCG_ASYNC_HIGH_MARGIN | MCG_ASYNC_CLEAN);
		assert_int_equal(c.batch, 64);
		assert_true(c.max_cpu > 2.4999 && c.max_cpu < 2.5001);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * Files planted in a state directory: a conf naming another cgroup than its
 * file name, a symlink, garbage. None is listed; each is reported corrupt.
 */
static void test_planted(void **state)
{
	struct mcg_async_conf a = conf(0, 0, 0), *v;
	struct mcg_async_corrupt *bad;
	char sd[300], f[700], victim[400];
	size_t n;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/planted", dir);
	strcpy(a.path, "/web");
	assert_int_equal(mcg_async_enable(sd, &a), 0);
	/* web's file copied under the name of /other */
	snprintf(f, sizeof(f), "%s/%%2fsys%%2ffs%%2fcgroup%%2fmemory%%2fother.conf", sd);
	write_file(f, "memcgctl-async-reclaim 2\nroot /sys/fs/cgroup/memory\npath /web\ndev 42\n"
		      "ino 4711\nhigh 0 default\nlow 0 default\nbatch 1\nmax_cpu 1.000\nclean 0\n");
	/* a symlink to a file that would parse */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	write_file(victim, "memcgctl-async-reclaim 2\nroot /sys/fs/cgroup/memory\npath /link\n"
			   "dev 42\nino 4711\nhigh 0 default\nlow 0 default\nbatch 1\n"
			   "max_cpu 1.000\nclean 0\n");
	snprintf(f, sizeof(f), "%s/%%2fsys%%2ffs%%2fcgroup%%2fmemory%%2flink.conf", sd);
	assert_int_equal(symlink(victim, f), 0);
	/* garbage */
	snprintf(f, sizeof(f), "%s/junk.conf", sd);
	write_file(f, "rm -rf /\n");
	/* stats: garbage and a name mismatch */
	snprintf(f, sizeof(f), "%s/stats/%%2fx", sd);
	write_file(f, "memcgctl-async-stats 2\nroot /x\n");
	assert_int_equal(mcg_async_list(sd, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "/web");
	free(v);
	assert_int_equal(mcg_async_corrupt_list(sd, &bad, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(bad[0].file, "%2fsys%2ffs%2fcgroup%2fmemory%2flink.conf");
	assert_string_equal(bad[0].why, "not a regular file owned by memcgctl's user (a link?)");
	assert_string_equal(bad[1].file, "%2fsys%2ffs%2fcgroup%2fmemory%2fother.conf");
	assert_string_equal(bad[1].why, "the file name does not match the cgroup it names");
	assert_string_equal(bad[2].file, "junk.conf");
	assert_string_equal(bad[3].file, "stats/%2fx");
	assert_string_equal(bad[3].why, "a line is missing");
	free(bad);
	/* the single-file reader says the same */
	snprintf(f, sizeof(f), "%s/%%2fsys%%2ffs%%2fcgroup%%2fmemory%%2fother.conf", sd);
	{
		struct mcg_async_conf c;

		assert_int_equal(mcg_async_conf_read(f, &c), -MCG_E_CORRUPT);
	}
}

/* A state directory anyone else can write, or a symlink to one, is refused. */
static void test_untrusted_dir(void **state)
{
	struct mcg_async_conf a = conf(0, 0, 0), *v;
	struct mcg_reclaimd_info info;
	char sd[300], ln[400];
	size_t n;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/open", dir);
	assert_int_equal(mkdir(sd, 0777), 0);
	assert_int_equal(chmod(sd, 0777), 0);
	assert_int_equal(mcg_async_enable(sd, &a), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_async_list(sd, &v, &n), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_reclaimd_info(sd, &info), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_async_log_open(sd), -MCG_E_UNTRUSTED);
	assert_int_equal(chmod(sd, 0755), 0);
	assert_int_equal(mcg_async_enable(sd, &a), 0);
	snprintf(ln, sizeof(ln), "%s/link", dir);
	assert_int_equal(symlink(sd, ln), 0);
	assert_int_equal(mcg_async_list(ln, &v, &n), -MCG_E_UNTRUSTED);
	/* stats/ is checked too */
	snprintf(ln, sizeof(ln), "%s/stats", sd);
	assert_int_equal(chmod(ln, 0777), 0);
	assert_int_equal(mcg_async_list(sd, &v, &n), -MCG_E_UNTRUSTED);
}

/* A symlink planted as the stats .tmp is replaced, never written through. */
static void test_planted_tmp(void **state)
{
	struct mcg_async_stats s;
	struct mcg_async_conf a = conf(0, 0, 0);
	char sd[300], f[700], victim[400], buf[64] = "";
	FILE *fp;

	(void)state;
	snprintf(sd, sizeof(sd), "%s/tmp", dir);
	assert_int_equal(mcg_async_enable(sd, &a), 0);
	snprintf(victim, sizeof(victim), "%s/victim2", dir);
	write_file(victim, "precious\n");
	snprintf(f, sizeof(f), "%s/stats/%%2fsys%%2ffs%%2fcgroup%%2fmemory%%2fweb.tmp", sd);
	assert_int_equal(symlink(victim, f), 0);
	snprintf(f, sizeof(f), "%s/%%2fsys%%2ffs%%2fcgroup%%2fmemory%%2fweb.conf.tmp", sd);
	assert_int_equal(symlink(victim, f), 0);
	memset(&s, 0, sizeof(s));
	strcpy(s.path, a.path);
	strcpy(s.root, a.root);
	s.pid = 1;
	s.ino = 1;
	assert_int_equal(mcg_async_stats_write(sd, &s), 0);
	assert_int_equal(mcg_async_enable(sd, &a), 0);
	fp = fopen(victim, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "precious\n");
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
	s.conflicts = 3;
	s.dev = 42;
	s.ino = 4711;
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
									 .ino = 1,
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
	assert_int_equal(r.conflicts, 3);
	assert_int_equal(r.dev, 42);
	assert_int_equal(r.ino, 4711);
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

#define STATS_HEAD "memcgctl-async-stats 2\nroot /r\npath /a\ndev 1\nino 2\n"
#define STATS_TAIL                                                                         \
	"last_error_time 0\nenabled_time 1\nupdated 2\nevent_source eventfd\n"
#define STATS_MID(state, pid, ratio, err)                                                  \
	"state " state "\npid " pid "\nlimit 18446744073709551615\nhigh 1\nlow 1\nusage 1\n"   \
	"reclaimed 1\nwakeups 1\nsteps 1\nshort_steps 1\ncpu_ns 1\ndeferred 1\nrefaulted 1\n"  \
	"thrash_episodes 1\nrefault_ratio " ratio "\nclean_skips 1\nconflicts 7\n"            \
	"last_error " err "\n"

static void test_stats_parse(void **state)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "0") STATS_TAIL, NULL},
		{STATS_HEAD STATS_MID("thrashing", "4194304", "12.5000", "-16") STATS_TAIL, NULL},
		{STATS_HEAD STATS_MID("sleeping", "1", "0.0000", "0") STATS_TAIL, "an unknown state"},
		{STATS_HEAD STATS_MID("waiting", "0", "0.0000", "0") STATS_TAIL, "a bad pid"},
		{STATS_HEAD STATS_MID("waiting", "4194305", "0.0000", "0") STATS_TAIL, "a bad pid"},
		{STATS_HEAD STATS_MID("waiting", " 1", "0.0000", "0") STATS_TAIL, "a bad pid"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.5", "0") STATS_TAIL, "a bad refault ratio"},
		{STATS_HEAD STATS_MID("waiting", "1", "nan", "0") STATS_TAIL, "a bad refault ratio"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "5") STATS_TAIL, "a bad error number"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "-99999") STATS_TAIL,
		 "a bad error number"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "0")
		 "last_error_time 0\nenabled_time 1\nupdated 2\nevent_source \x1b]52;c;AAAA\x07\n",
		 "an unknown event source"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "0")
		 "last_error_time -1\nenabled_time 1\nupdated 2\nevent_source timer\n",
		 "a bad time"},
		{STATS_HEAD STATS_MID("waiting", "1", "0.0000", "0"), "a line is missing"},
		{"memcgctl-async-stats 2\nroot /r\npath /\ndev 1\nino 2\n"
		 STATS_MID("waiting", "1", "0.0000", "0") STATS_TAIL,
		 "names the root cgroup"},
		{"memcgctl-async-stats 1\nroot /r\n", "a format version"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcg_async_stats st;
		const char *why = "";
		int r = mcg__async_stats_parse_why(cases[i].text, strlen(cases[i].text), &st, &why);

		verdict_is(i, r, why, cases[i].why);
		if (r == 0)
			assert_int_equal(st.conflicts, 7);
		assert_int_equal(mcg__async_stats_parse(cases[i].text, strlen(cases[i].text), &st), r);
	}
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

/*
 * The configuration kept under /etc (here a temporary directory): enabled again
 * in the state directory while its cgroup exists, with the cgroup's identity of
 * now; a cgroup made again gets the new identity; a missing one is counted.
 */
static void test_persist_reapply(void **state)
{
	char base[] = "/tmp/mcg-persist-XXXXXX", root[128], kept[128], sdir[128], p[256], p2[256];
	struct mcg_async_conf c, *l;
	struct stat st;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(base));
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(kept, sizeof(kept), "%s/kept", base);
	snprintf(sdir, sizeof(sdir), "%s/state", base);
	snprintf(p, sizeof(p), "%s/web", root);
	snprintf(p2, sizeof(p2), "%s/web2", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(stat(p, &st), 0);
	memset(&c, 0, sizeof(c));
	snprintf(c.root, sizeof(c.root), "%s", root);
	snprintf(c.path, sizeof(c.path), "/web");
	c.dev = (uint64_t)st.st_dev;
	c.ino = (uint64_t)st.st_ino;
	c.batch = MCG_ASYNC_DEFAULT_BATCH;
	c.max_cpu = MCG_ASYNC_DEFAULT_MAX_CPU;
	c.high = 64 * MIB;
	c.flags = MCG_ASYNC_HIGH_SET;

	assert_int_equal(mcg_async_persist(kept, &c), 0);
	assert_int_equal(mcg_async_kept_waiting(kept), 0);
	/* no runtime file: enabled again; then served as it is */
	assert_int_equal(mcg_async_reapply(kept, sdir), 1);
	assert_int_equal(mcg_async_reapply(kept, sdir), 0);
	assert_int_equal(mcg_async_list(sdir, &l, &n), 0);
	assert_int_equal(n, 1);
	assert_true(l[0].ino == (uint64_t)st.st_ino);
	assert_true(l[0].high == 64 * MIB);
	free(l);
	/* made again (another directory, moved to the path): the new identity */
	assert_int_equal(mkdir(p2, 0755), 0);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rename(p2, p), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(mcg_async_reapply(kept, sdir), 1);
	assert_int_equal(mcg_async_list(sdir, &l, &n), 0);
	assert_int_equal(n, 1);
	assert_true(l[0].ino == (uint64_t)st.st_ino);
	free(l);
	/* gone: waiting for it, nothing written */
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(mcg_async_kept_waiting(kept), 1);
	assert_int_equal(mcg_async_reapply(kept, sdir), 0);
	/* forgotten */
	assert_int_equal(mcg_async_unpersist(kept, root, "/web"), 0);
	assert_int_equal(mcg_async_unpersist(kept, root, "/web"), -ENOENT);
	assert_int_equal(mcg_async_kept_waiting(kept), 0);
	assert_int_equal(fx_rmtree(base), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_margins),
		cmocka_unit_test(test_watermarks),
		cmocka_unit_test(test_enable_list_disable),
		cmocka_unit_test(test_conf_parse),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_untrusted_dir),
		cmocka_unit_test(test_planted_tmp),
		cmocka_unit_test(test_stats_roundtrip),
		cmocka_unit_test(test_stats_parse),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_reclaimd_info_none),
		cmocka_unit_test(test_persist_reapply),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
