/* test_stat.c: parsing real v1 and v2 memory.stat files, normalisation, absent keys, PSI. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "memcg.h"

static char *slurp(const char *name)
{
	char path[4096];
	FILE *f;
	char *buf = calloc(1, 1 << 16);

	snprintf(path, sizeof(path), "%s/%s", MCG_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static bool find_raw(const struct mcg_stat *st, const char *key, uint64_t *ret)
{
	size_t i;

	for (i = 0; i < st->n_raw; i++)
		if (!strcmp(st->raw[i].key, key)) {
			*ret = st->raw[i].value;
			return true;
		}
	return false;
}

static uint64_t raw(const struct mcg_stat *st, const char *key)
{
	uint64_t v = 0;

	if (!find_raw(st, key, &v))
		fail_msg("raw key %s missing", key);
	return v;
}

/* memory.stat TEXT both ways: normalised into a record (the schema) and every raw key. */
static int parse(const char *text, int version, struct mcg_stat *st, struct mcg_record *rec)
{
	int r;

	memset(rec, 0, sizeof(*rec));
	r = mcg_record_parse(rec, version, "memory.stat", text);
	if (r < 0)
		return r;
	return mcg_stat_parse(text, st);
}

#define V(k) mcg_record_get(&rec, MCG_K_##k, 0xdead)
#define HAS(k) mcg_record_has(&rec, MCG_K_##k)

static void test_v1(void **state)
{
	char *text = slurp("v1.memory.stat");
	struct mcg_record rec;
	struct mcg_stat st;

	(void)state;
	assert_int_equal(parse(text, 1, &st, &rec), 0);
	/* hierarchical total_* wins over the local key */
	assert_true(HAS(FILE));
	assert_int_equal(V(FILE), raw(&st, "total_cache"));
	assert_int_equal(V(ANON), raw(&st, "total_rss"));
	assert_int_equal(V(DIRTY), raw(&st, "total_dirty"));
	assert_int_equal(V(WRITEBACK), raw(&st, "total_writeback"));
	assert_int_equal(V(PGPGOUT), raw(&st, "total_pgpgout"));
	/* v1 has no per-cgroup pgscan/pgsteal and no kernel key in memory.stat */
	assert_false(HAS(PGSCAN));
	assert_false(HAS(PGSTEAL));
	assert_false(HAS(KERNEL));
	assert_false(HAS(SLAB));
	/* every key is kept, known or not */
	assert_int_equal(raw(&st, "hierarchical_memory_limit"), V(EFFECTIVE_LIMIT));
	assert_true(st.n_raw >= 40);
	mcg_stat_release(&st);
	free(text);
}

static void test_v1_local_only(void **state)
{
	struct mcg_record rec;
	struct mcg_stat st;

	(void)state;
	/* an old or trimmed file with only local keys still normalises */
	assert_int_equal(parse("cache 4096\nrss 8192\ndirty 0\n", 1, &st, &rec), 0);
	assert_int_equal(V(FILE), 4096);
	assert_int_equal(V(ANON), 8192);
	assert_true(HAS(DIRTY));
	assert_false(HAS(WRITEBACK));
	mcg_stat_release(&st);
	/* total_ first, then the local key: the total stays */
	assert_int_equal(parse("total_cache 100\ncache 5\n", 1, &st, &rec), 0);
	assert_int_equal(V(FILE), 100);
	mcg_stat_release(&st);
}

/*
 * Every counter the table reads from v2 memory.stat is normalised to the
 * kernel's value when the file has its key, and absent when it has not.
 */
static void test_v2(void **state)
{
	char *text = slurp("v2.memory.stat");
	struct mcg_record rec;
	struct mcg_stat st;
	unsigned k, n = 0;

	(void)state;
	assert_int_equal(parse(text, 2, &st, &rec), 0);
	for (k = 0; k < MCG_K__COUNT; k++) {
		const struct mcg_key_desc *d = mcg_key_desc(k);
		uint64_t v;

		if (!d->file[1] || strcmp(d->file[1], "memory.stat"))
			continue;
		if (find_raw(&st, d->key[1], &v)) {
			if (!mcg_record_has(&rec, k))
				fail_msg("v2 key %s not normalised", d->key[1]);
			assert_int_equal(rec.v[k], v);
			n++;
		} else {
			assert_false(mcg_record_has(&rec, k));
		}
	}
	assert_true(n >= 25);
	assert_false(HAS(PGPGIN));
	assert_false(HAS(PGPGOUT));
	/* unknown keys kept */
	assert_int_equal(raw(&st, "thp_collapse_alloc"), 0);
	assert_int_equal(raw(&st, "kernel_stack"), 65536);
	mcg_stat_release(&st);
	free(text);
}

/* memory.stat captured from Debian's 6.1 kernel in the real-v2 guest */
static void test_v2_captured(void **state)
{
	char *text = slurp("v2-6.1.memory.stat");
	struct mcg_record rec;
	struct mcg_stat st;

	(void)state;
	assert_int_equal(parse(text, 2, &st, &rec), 0);
	assert_true(HAS(KERNEL));
	assert_int_equal(V(FILE), raw(&st, "file"));
	assert_int_equal(V(DIRTY), raw(&st, "file_dirty"));
	assert_int_equal(V(PGSTEAL_DIRECT), raw(&st, "pgsteal_direct"));
	assert_true(V(DIRTY) >= 24ULL << 20); /* the capture wrote 24 MiB dirty */
	mcg_stat_release(&st);
	free(text);
}

static void test_v2_future_keys(void **state)
{
	struct mcg_record rec;
	struct mcg_stat st;

	(void)state;
	/* keys appear anywhere and new ones come: parse by key */
	assert_int_equal(parse("pgscan_proactive 7\nfile 4096\nnew_thing 3\n", 2, &st, &rec), 0);
	assert_int_equal(V(FILE), 4096);
	assert_false(HAS(ANON));
	assert_int_equal(st.n_raw, 3);
	assert_string_equal(st.raw[0].key, "pgscan_proactive");
	mcg_stat_release(&st);
	assert_int_equal(parse("", 2, &st, &rec), 0);
	assert_true(mcg_keyset_empty(&rec.valid));
	assert_int_equal(st.n_raw, 0);
	mcg_stat_release(&st);
	assert_true(parse("file 1\n", 3, &st, &rec) < 0);
}

static void test_psi(void **state)
{
	struct mcg_psi p;

	(void)state;
	assert_int_equal(mcg_psi_parse("some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\n"
				       "full avg10=0.10 avg60=0.00 avg300=0.00 total=99\n",
				       &p),
			 0);
	assert_true(p.some_valid && p.full_valid);
	assert_true(p.some.avg10 > 1.49 && p.some.avg10 < 1.51);
	assert_int_equal(p.some.total_us, 123456);
	assert_int_equal(p.full.total_us, 99);
	assert_true(mcg_psi_parse("garbage", &p) < 0);
}

static void test_keyed(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(mcg_keyed_get("low 0\nhigh 5\nmax 7\noom 1\noom_kill 2\n", "oom", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(mcg_keyed_get("low 0\nhigh 5\nmax 7\noom_kill 2\n", "oom", &v), -ENOENT);
	assert_int_equal(mcg_keyed_get("oom_kill 2\n", "oom_kill", &v), 0);
	assert_int_equal(v, 2);
}

/* The one table: the record from captured files; absent stays absent. */
static void test_record_captured(void **state)
{
	struct mcg_record r;
	char *t;

	(void)state;
	t = slurp("v1.memory.stat");
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 1, "memory.stat", t), 0);
	assert_int_equal(r.v[MCG_K_DIRTY], 25174016);
	assert_int_equal(r.v[MCG_K_ANON], 8593408);
	assert_int_equal(r.v[MCG_K_EFFECTIVE_LIMIT], 536870912);
	assert_true(mcg_record_has(&r, MCG_K_INACTIVE_FILE));
	assert_false(mcg_record_has(&r, MCG_K_KERNEL)); /* v1: memory.kmem.usage_in_bytes */
	assert_false(mcg_record_has(&r, MCG_K_PGSCAN)); /* v2 only */
	assert_false(mcg_record_has(&r, MCG_K_USAGE));
	/* v1 floor: anon that cannot go to swap; v1 does not count kernel memory */
	assert_int_equal(mcg_floor_from_record(&r, 1, 0), 8593408);
	assert_int_equal(mcg_floor_from_record(&r, 1, UINT64_MAX / 4), 0);
	free(t);

	t = slurp("v2.memory.stat");
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 2, "memory.stat", t), 0);
	assert_int_equal(r.v[MCG_K_DIRTY], 25165824);
	assert_int_equal(r.v[MCG_K_FILE], 50331648);
	assert_int_equal(r.v[MCG_K_KERNEL], 2097152);
	assert_false(mcg_record_has(&r, MCG_K_PGPGIN)); /* v1 only */
	assert_false(mcg_record_has(&r, MCG_K_EFFECTIVE_LIMIT));
	/* kernel - reclaimable slab + anon (no swap) */
	assert_int_equal(mcg_floor_from_record(&r, 2, 0), 2097152 - 1048576 + 8388608);
	assert_int_equal(mcg_floor_from_record(&r, 2, UINT64_MAX / 4), 2097152 - 1048576);
	assert_int_equal(mcg_reclaimable_from_record(&r, false), 25165824 + 25165824);
	mcg_record_derive(&r, 2, false);
	assert_true(mcg_record_has(&r, MCG_K_REFAULT));
	assert_int_equal(r.v[MCG_K_REFAULT], r.v[MCG_K_WORKINGSET_REFAULT_ANON] +
						     r.v[MCG_K_WORKINGSET_REFAULT_FILE]);
	assert_false(mcg_record_has(&r, MCG_K_LIMIT)); /* not the root: no invented limit */
	mcg_record_derive(&r, 2, true);
	assert_int_equal(r.v[MCG_K_LIMIT], MCG_MAX);
	free(t);

	t = slurp("v2-6.1.memory.stat");
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 2, "memory.stat", t), 0);
	assert_int_equal(r.v[MCG_K_DIRTY], 25178112);
	assert_int_equal(r.v[MCG_K_KERNEL], 1396736);
	assert_true(mcg_record_has(&r, MCG_K_WORKINGSET_NODERECLAIM));
	assert_int_equal(r.v[MCG_K_WORKINGSET_NODERECLAIM], 0);
	assert_string_equal(mcg_key_name(MCG_K_WORKINGSET_NODERECLAIM), "workingset_nodereclaim");
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 2, "memory.stat", "workingset_nodereclaim 17\n"), 0);
	assert_int_equal(r.v[MCG_K_WORKINGSET_NODERECLAIM], 17);
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 1, "memory.stat", "workingset_nodereclaim 3\n"), 0);
	assert_false(mcg_record_has(&r, MCG_K_WORKINGSET_NODERECLAIM)); /* v2 only */
	free(t);
}

static void test_record_files(void **state)
{
	struct mcg_record r = {0};

	(void)state;
	assert_int_equal(mcg_record_parse(&r, 2, "memory.max", "max\n"), 0);
	assert_int_equal(r.v[MCG_K_LIMIT], MCG_MAX);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.current", "4096\n"), 0);
	assert_int_equal(r.v[MCG_K_USAGE], 4096);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.events",
					  "low 0\nhigh 5\nmax 7\noom 1\noom_kill 2\noom_group_kill 0\n"),
			 0);
	assert_int_equal(r.v[MCG_K_EV_HIGH], 5);
	assert_int_equal(r.v[MCG_K_EV_OOM_KILL], 2);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.pressure",
					  "some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\n"),
			 0);
	assert_int_equal(r.v[MCG_K_PSI_SOME], 123456);
	assert_false(mcg_record_has(&r, MCG_K_PSI_FULL));
	assert_true(r.psi.some_valid);
	/* v1: the page-rounded LONG_MAX is no limit */
	assert_int_equal(mcg_record_parse(&r, 1, "memory.limit_in_bytes", "9223372036854771712\n"), 0);
	assert_int_equal(r.v[MCG_K_LIMIT], MCG_MAX);
	assert_int_equal(mcg_record_parse(&r, 1, "memory.oom_control",
					  "oom_kill_disable 0\nunder_oom 1\noom_kill 3\n"),
			 0);
	assert_int_equal(r.v[MCG_K_UNDER_OOM], 1);
	assert_int_equal(r.v[MCG_K_EV_OOM_KILL], 3);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.nonesuch", "1\n"), -ENOENT);
	assert_int_equal(mcg_record_parse(&r, 3, "memory.stat", ""), -EINVAL);
}

/* The one place that says which file a version reads. */
static void test_knob_file(void **state)
{
	(void)state;
	assert_string_equal(mcg_knob_file(1, MCG_K_USAGE), "memory.usage_in_bytes");
	assert_string_equal(mcg_knob_file(2, MCG_K_USAGE), "memory.current");
	assert_string_equal(mcg_knob_file(1, MCG_K_LIMIT), "memory.limit_in_bytes");
	assert_string_equal(mcg_knob_file(2, MCG_K_LIMIT), "memory.max");
	assert_null(mcg_knob_file(1, MCG_K_HIGH));
	assert_null(mcg_knob_file(3, MCG_K_USAGE));
	assert_string_equal(mcg_key_name(MCG_K_DIRTY), "dirty");
	assert_string_equal(mcg_unit_suffix(mcg_key_desc(MCG_K_DIRTY)->unit), "_bytes");
	assert_int_equal(mcg_key_lookup("pgscan"), MCG_K_PGSCAN);
	assert_int_equal(mcg_key_lookup("nonesuch"), -ENOENT);
	assert_string_equal(mcg_knob_file(2, MCG_K_OOM_GROUP), "memory.oom.group");
	assert_string_equal(mcg_knob_file(2, MCG_K_ZSWAP_LIMIT), "memory.zswap.max");
	assert_null(mcg_knob_file(1, MCG_K_SWAP_HIGH));
}

/* The counters past the first 64 of the table have validity bits like the others. */
static void test_keyset(void **state)
{
	struct mcg_record r;
	struct mcg_keyset ks, all;
	unsigned k, n = 0;

	(void)state;
	assert_true(MCG_K__COUNT > 64);
	memset(&r, 0, sizeof(r));
	assert_int_equal(mcg_record_parse(&r, 2, "memory.swap.high", "max\n"), 0);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.zswap.max", "1048576\n"), 0);
	assert_int_equal(mcg_record_parse(&r, 2, "memory.oom.group", "1\n"), 0);
	assert_true(mcg_record_has(&r, MCG_K_SWAP_HIGH) && r.v[MCG_K_SWAP_HIGH] == MCG_MAX);
	assert_true(mcg_record_get(&r, MCG_K_ZSWAP_LIMIT, 0) == 1048576);
	assert_true(mcg_record_get(&r, MCG_K_OOM_GROUP, 0) == 1);
	assert_false(mcg_record_has(&r, MCG_K_ZSWAP));
	mcg_record_set(&r, MCG_K_STALL, 5); /* the last row of the table */
	assert_true(mcg_record_has(&r, MCG_K_STALL));
	mcg_record_unset(&r, MCG_K_STALL);
	assert_false(mcg_record_has(&r, MCG_K_STALL));
	/* iteration visits exactly the members, across words */
	memset(&ks, 0, sizeof(ks));
	assert_true(mcg_keyset_empty(&ks));
	mcg_keyset_add(&ks, 0);
	mcg_keyset_add(&ks, 63);
	mcg_keyset_add(&ks, 64);
	mcg_keyset_add(&ks, MCG_K__COUNT - 1);
	mcg_keyset_add(&ks, MCG_K__COUNT); /* out of range: ignored */
	k = mcg_keyset_next(&ks, 0);
	assert_int_equal(k, 0);
	assert_int_equal(mcg_keyset_next(&ks, 1), 63);
	assert_int_equal(mcg_keyset_next(&ks, 64), 64);
	assert_int_equal(mcg_keyset_next(&ks, 65), MCG_K__COUNT - 1);
	assert_int_equal(mcg_keyset_next(&ks, MCG_K__COUNT), MCG_K__COUNT);
	mcg_keyset_all(&all);
	mcg_keyset_foreach(k, &all)
		n++;
	assert_int_equal(n, MCG_K__COUNT);
}

/* The scanner: "Key:   N kB" lines, PSI fields in any order, blank lines. */
static void test_scanner(void **state)
{
	struct mcg_psi p;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(mcg_keyed_get("MemTotal:       16 kB\nMemFree: 8 kB\n", "MemFree", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(mcg_keyed_get("\n\nx 1\n", "x", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(mcg_keyed_get("x\n", "x", &v), -EINVAL);
	assert_int_equal(mcg_keyed_get("x 99999999999999999999999\n", "x", &v), -EINVAL);
	assert_int_equal(mcg_psi_parse("full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"
				       "some avg10=2.00 avg60=0.00 avg300=0.00 total=9",
				       &p),
			 0);
	assert_true(p.some_valid && p.full_valid);
	assert_int_equal(p.some.total_us, 9);
	assert_int_equal(p.full.total_us, 5);
	assert_true(mcg_psi_parse("some avg10=x\n", &p) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1),  cmocka_unit_test(test_v1_local_only),
		cmocka_unit_test(test_v2),  cmocka_unit_test(test_v2_captured),
		cmocka_unit_test(test_v2_future_keys),
		cmocka_unit_test(test_psi), cmocka_unit_test(test_keyed),
		cmocka_unit_test(test_record_captured), cmocka_unit_test(test_record_files),
		cmocka_unit_test(test_knob_file),
		cmocka_unit_test(test_keyset), cmocka_unit_test(test_scanner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
