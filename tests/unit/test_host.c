/* test_host.c: MCG_HOST and its one reader (lib/sys/host.c) on captured /proc text: every row, absent keys left absent, units, the recorded rows, and its callers' answers on broken files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "sys/sys.h"
#include "fx-files.h"
#include "fx-tmp.h"

#define PS 4096ULL

static char *slurp(const char *rel)
{
	char p[512];
	FILE *f;
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(buf);
	snprintf(p, sizeof(p), "%s/%s", MCG_TEST_DATA, rel);
	f = fopen(p, "r");
	assert_non_null(f);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The number on KEY's line of TEXT, found the slow way (sscanf per line): -1 for none. */
static long long want_of(const char *text, const char *key)
{
	const char *p = text;
	char k[64];
	long long v;

	while (*p) {
		if (sscanf(p, "%63[^: ]%*[: ]%lld", k, &v) == 2 && !strcmp(k, key))
			return v;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -1;
}

/* Every meminfo and vmstat row of the table on the v1 fixture's captured files, by the slow parse.
 */
static void test_rows_on_captured(void **state)
{
	static const char *const files[] = {"meminfo", "vmstat"};
	static const enum mcg_host_src srcs[] = {MCG_HS_MEMINFO, MCG_HS_VMSTAT};
	size_t f;
	unsigned id;

	(void)state;
	for (f = 0; f < 2; f++) {
		char rel[128], *text;
		struct mcg_host h = {0};

		snprintf(rel, sizeof(rel), "../../cli/fixtures/v1/proc/%s", files[f]);
		text = slurp(rel);
		assert_int_equal(mcg__host_parse(srcs[f], text, PS, &h), 0);
		for (id = 0; id < MCG_G__COUNT; id++) {
			const struct mcg_host_desc *d = mcg_host_desc(id);
			long long w;

			if (d->src != srcs[f]) {
				assert_false(mcg_host_has(&h, id));
				continue;
			}
			w = want_of(text, d->key);
			if (w < 0) {
				if (mcg_host_has(&h, id))
					fail_msg("%s: %s read, the file has none", files[f],
						 d->key);
				continue;
			}
			if (!mcg_host_has(&h, id))
				fail_msg("%s: %s not read", files[f], d->key);
			assert_int_equal(mcg_host_get(&h, id),
					 (uint64_t)w * (d->unit == MCG_HU_KB	  ? 1024
							: d->unit == MCG_HU_PAGES ? PS
										  : 1));
		}
		free(text);
	}
}

/* Values read back as the fixture's lines say: kB and pages in bytes, events as printed. */
static void test_units(void **state)
{
	struct mcg_host h = {0};
	char *mi = slurp("../../cli/fixtures/v1/proc/meminfo");
	char *vm = slurp("../../cli/fixtures/v1/proc/vmstat");

	(void)state;
	assert_int_equal(mcg__host_parse(MCG_HS_MEMINFO, mi, PS, &h), 0);
	assert_int_equal(mcg__host_parse(MCG_HS_VMSTAT, vm, PS, &h), 0);
	assert_int_equal(mcg_host_get(&h, MCG_G_MEM_TOTAL), 24683620ULL * 1024);
	assert_int_equal(mcg_host_get(&h, MCG_G_SWAP_FREE), 0);
	assert_true(mcg_host_has(&h, MCG_G_SWAP_FREE)); /* a 0 line is a 0, not absent */
	assert_int_equal(mcg_host_get(&h, MCG_G_DIRTY), 33213ULL * PS);
	assert_int_equal(mcg_host_get(&h, MCG_G_DIRTY_THRESH), 1217562ULL * PS);
	assert_int_equal(mcg_host_get(&h, MCG_G_NR_DIRTIED), 268172);
	assert_int_equal(mcg_host_get(&h, MCG_G_PGSCAN_KSWAPD), 0);
	assert_true(mcg_host_has(&h, MCG_G_PGSCAN_KSWAPD));
	/* nothing of PSI was read */
	assert_false(mcg_host_has(&h, MCG_G_PSI_SOME_AVG10));
	free(mi);
	free(vm);
}

/* Keys the file does not have stay absent, never a 0 made up; the others are read. */
static void test_missing_keys(void **state)
{
	struct mcg_host h = {0};
	char *mi = slurp("meminfo-noswap");

	(void)state;
	/* a kernel without CONFIG_SWAP: no Swap lines */
	assert_int_equal(mcg__host_parse(MCG_HS_MEMINFO, mi, PS, &h), 0);
	assert_true(mcg_host_has(&h, MCG_G_MEM_TOTAL));
	assert_false(mcg_host_has(&h, MCG_G_SWAP_TOTAL));
	assert_false(mcg_host_has(&h, MCG_G_SWAP_FREE));
	free(mi);

	/* an old kernel's vmstat: no pgsteal_*, no thresholds; a line without a number */
	memset(&h, 0, sizeof(h));
	assert_int_equal(mcg__host_parse(MCG_HS_VMSTAT,
					 "nr_free_pages 10\nnr_dirty 3\nnr_writeback x\n"
					 "pgscan_kswapd 7\n",
					 PS, &h),
			 0);
	assert_true(h.valid == (1ULL << MCG_G_NR_FREE_PAGES | 1ULL << MCG_G_DIRTY |
				1ULL << MCG_G_PGSCAN_KSWAPD));
	assert_false(mcg_host_has(&h, MCG_G_WRITEBACK));
	assert_false(mcg_host_has(&h, MCG_G_DIRTY_THRESH));
	assert_false(mcg_host_has(&h, MCG_G_PGSTEAL_KSWAPD));

	/* no line of the table's: -EINVAL, nothing valid */
	memset(&h, 0, sizeof(h));
	assert_int_equal(mcg__host_parse(MCG_HS_MEMINFO, "garbage\n", PS, &h), -EINVAL);
	assert_int_equal(h.valid, 0);
}

/* The overflow guard drops the one value and keeps the other keys of the same file. */
static void test_overflow_keeps_others(void **state)
{
	struct mcg_host h = {0};

	(void)state;
	assert_int_equal(mcg__host_parse(MCG_HS_MEMINFO,
					 "MemTotal: 16 kB\nSwapFree: 18014398509481984 kB\n", PS,
					 &h),
			 0);
	assert_true(mcg_host_has(&h, MCG_G_MEM_TOTAL));
	assert_int_equal(mcg_host_get(&h, MCG_G_MEM_TOTAL), 16 * 1024);
	assert_false(mcg_host_has(&h, MCG_G_SWAP_FREE));
	/* the largest that fits */
	memset(&h, 0, sizeof(h));
	assert_int_equal(
		mcg__host_parse(MCG_HS_MEMINFO, "SwapFree: 18014398509481983 kB\n", PS, &h), 0);
	assert_int_equal(mcg_host_get(&h, MCG_G_SWAP_FREE), 18014398509481983ULL * 1024);
	/* pages: the same guard */
	memset(&h, 0, sizeof(h));
	assert_int_equal(mcg__host_parse(MCG_HS_VMSTAT,
					 "nr_dirty 4503599627370496\nnr_writeback 1\n", PS, &h),
			 0);
	assert_false(mcg_host_has(&h, MCG_G_DIRTY));
	assert_int_equal(mcg_host_get(&h, MCG_G_WRITEBACK), PS);
}

/* PSI: avg10 of each line in hundredths; a line missing or malformed is absent. */
static void test_psi(void **state)
{
	struct mcg_host h = {0};
	char *p = slurp("../../cli/fixtures/v1/proc/pressure/memory");

	(void)state;
	assert_int_equal(mcg__host_parse(MCG_HS_PSI, p, PS, &h), 0);
	assert_true(mcg_host_has(&h, MCG_G_PSI_SOME_AVG10) &&
		    mcg_host_has(&h, MCG_G_PSI_FULL_AVG10));
	assert_int_equal(mcg_host_get(&h, MCG_G_PSI_SOME_AVG10), 0);
	free(p);
	memset(&h, 0, sizeof(h));
	assert_int_equal(mcg__host_parse(MCG_HS_PSI,
					 "some avg10=12.34 avg60=0.25 avg300=0.00 total=123456\n",
					 PS, &h),
			 0);
	assert_int_equal(mcg_host_get(&h, MCG_G_PSI_SOME_AVG10), 1234);
	assert_true(mcg_host_percent(&h, MCG_G_PSI_SOME_AVG10) == 12.34);
	assert_false(mcg_host_has(&h, MCG_G_PSI_FULL_AVG10));
	memset(&h, 0, sizeof(h));
	assert_int_equal(mcg__host_parse(MCG_HS_PSI, "some avg10=x\n", PS, &h), -EINVAL);
	assert_int_equal(h.valid, 0);
}

/* mcg__host_read: a file missing is its error, and the others are still read. */
static void test_read_missing_file(void **state)
{
	char dir[64], d[256], cmd[1024];
	struct mcg_ctx *ctx;
	struct mcg_host h = {0};
	char buf[16384];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_host.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(d, sizeof(d), "%s/root", dir);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, &ctx), 0);
	snprintf(d, sizeof(d), "%s/proc", dir);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(mcg_ctx_set_procfs(ctx, d), 0);
	snprintf(cmd, sizeof(cmd), "cp '%s/meminfo-noswap' '%s/meminfo'", MCG_TEST_DATA, d);
	assert_int_equal(system(cmd), 0);
	/* no vmstat, no pressure/memory */
	assert_int_equal(mcg__host_read(ctx, MCG_HS_ALL, buf, sizeof(buf), &h), -ENOENT);
	assert_true(mcg_host_has(&h, MCG_G_MEM_TOTAL));
	assert_false(mcg_host_has(&h, MCG_G_DIRTY));
	assert_false(mcg_host_has(&h, MCG_G_PSI_SOME_AVG10));
	/* dirty's global read: vmstat's read error, and -EINVAL without nr_dirty, never zeros */
	{
		static const char *const vm[] = {"dirty_ratio",
						 "dirty_background_ratio",
						 "dirty_bytes",
						 "dirty_background_bytes",
						 "dirty_expire_centisecs",
						 "dirty_writeback_centisecs"};
		struct mcg_dirty_global g;
		char sv[300];
		size_t i;

		snprintf(sv, sizeof(sv), "%s/sys", d);
		assert_int_equal(mkdir(sv, 0755), 0);
		snprintf(sv, sizeof(sv), "%s/sys/vm", d);
		assert_int_equal(mkdir(sv, 0755), 0);
		for (i = 0; i < sizeof(vm) / sizeof(vm[0]); i++)
			put(sv, vm[i], "10\n");
		assert_int_equal(mcg_dirty_global_read(ctx, &g), -ENOENT);
		put(d, "vmstat",
		    "nr_free_pages 10\nnr_inactive_file 1\nnr_active_file 1\n"
		    "nr_writeback 0\n");
		assert_int_equal(mcg_dirty_global_read(ctx, &g), -EINVAL);
		put(d, "vmstat",
		    "nr_free_pages 10\nnr_inactive_file 1\nnr_active_file 2\n"
		    "nr_writeback 0\nnr_dirty 5\n");
		assert_int_equal(mcg_dirty_global_read(ctx, &g), 0);
		assert_int_equal(g.nr_dirty, 5);
		assert_int_equal(g.file, 3);
		assert_false(g.kernel_valid); /* no thresholds in the file: computed, not 0 */
		/* MemFree of meminfo-noswap, in pages */
		assert_int_equal(g.free, 19746264ULL * 1024 / (uint64_t)mcg_page_size());
		assert_int_equal(g.nr_dirtied, 0);
	}
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(dir), 0);
}

/* The table: the recorded rows are history's format; names unique; rates are counters. */
static void test_table(void **state)
{
	unsigned i, j;

	(void)state;
	assert_int_equal(MCG_G__RECORDED, 11);
	assert_int_equal(MCG_G_PGSTEAL_DIRECT, 10);
	assert_null(mcg_host_desc(MCG_G__COUNT));
	for (i = 0; i < MCG_G__COUNT; i++) {
		const struct mcg_host_desc *d = mcg_host_desc(i);

		assert_non_null(d->key);
		if (d->rate)
			assert_int_equal(d->unit, MCG_HU_EVENTS);
		for (j = 0; j < i; j++) {
			const struct mcg_host_desc *e = mcg_host_desc(j);

			if (d->src == e->src && !strcmp(d->key, e->key))
				fail_msg("row %u and %u read the same key %s", j, i, d->key);
			if (d->json && e->json && !strcmp(d->json, e->json))
				fail_msg("row %u and %u share the JSON key %s", j, i, d->json);
			if (d->om && e->om && !strcmp(d->om, e->om))
				fail_msg("row %u and %u share the family %s", j, i, d->om);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_on_captured),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_missing_keys),
		cmocka_unit_test(test_overflow_keeps_others),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
