/* fuzz_stat.c: keyed cgroup files from text: memory.stat (v1, v2), memory.events, memory.oom_control, /proc/cgroups. */
#include "fuzz.h"

#include "memcg/dirty.h"

#include <ctype.h>

/* show's one pass (the record and the raw keys together) gives what the two passes give. */
static void stat_one_pass(const char *text, int version, const struct mcg_record *rec,
			  const struct mcg_stat *st)
{
	struct mcg_record r2;
	struct mcg_stat st2;
	struct mcg__plan p;
	int f, e;
	size_t i;
	unsigned id;

	FZ_CHECK(mcg__plan_init(&p, version, NULL, MCG__PLAN_V1_LOCAL) == 0, "plan v%d", version);
	f = mcg__plan_slot(&p, MCG_K_ANON);
	FZ_CHECK(f >= 0 && !strcmp(p.f[f].name, "memory.stat"), "memory.stat slot v%d", version);
	memset(&r2, 0, sizeof(r2));
	memset(&st2, 0x5a, sizeof(st2));
	e = mcg__plan_parse_stat(&p, (unsigned)f, text, &r2, &st2);
	if (e < 0) {
		FZ_CHECK(e == -ENOMEM, "mcg__plan_parse_stat v%d: %d", version, e);
		return;
	}
	FZ_CHECK(!memcmp(&r2.valid, &rec->valid, sizeof(r2.valid)), "one pass: other counters");
	mcg_keyset_foreach(id, &rec->valid)
		FZ_CHECK(r2.v[id] == rec->v[id], "one pass: %s differs", mcg_key_name(id));
	FZ_CHECK(st2.n_raw == st->n_raw, "one pass: %zu raw keys, not %zu", st2.n_raw, st->n_raw);
	for (i = 0; i < st->n_raw; i++)
		FZ_CHECK(!strcmp(st2.raw[i].key, st->raw[i].key) &&
				 st2.raw[i].value == st->raw[i].value,
			 "one pass: raw key %zu differs", i);
	mcg_stat_release(&st2);
}

static void stat_one(const char *text, int version)
{
	struct mcg_record rec;
	struct mcg_stat st;
	size_t i;
	unsigned id;
	int r;

	memset(&rec, 0, sizeof(rec));
	r = mcg_record_parse(&rec, version, "memory.stat", text);
	if (version != 1 && version != 2) {
		FZ_CHECK(r == -EINVAL, "mcg_record_parse accepted version %d", version);
		return;
	}
	FZ_CHECK(r == 0, "mcg_record_parse v%d: %d", version, r);
	/* only counters the table reads from memory.stat on this version */
	mcg_keyset_foreach(id, &rec.valid) {
		const char *f = mcg_knob_file(version, id);

		FZ_CHECK(f && !strcmp(f, "memory.stat"), "counter %s set from memory.stat",
			 mcg_key_name(id));
	}
	memset(&st, 0x5a, sizeof(st));
	r = mcg_stat_parse(text, &st);
	if (r < 0) {
		FZ_CHECK(r == -ENOMEM, "mcg_stat_parse v%d: %d", version, r);
		return;
	}
	FZ_CHECK(st.n_raw <= strlen(text) / 3 + 1, "%zu keys from %zu bytes", st.n_raw, strlen(text));
	stat_one_pass(text, version, &rec, &st);
	for (i = 0; i < st.n_raw; i++) {
		const char *k = st.raw[i].key, *p;

		FZ_CHECK(k && *k, "raw key %zu empty", i);
		FZ_CHECK(strstr(text, k), "raw key '%s' is not in the text", k);
		for (p = k; *p; p++)
			FZ_CHECK(!isspace((unsigned char)*p), "raw key '%s' holds a space", k);
	}
	mcg_stat_release(&st);
	FZ_CHECK(!st.raw && !st.n_raw, "mcg_stat_release left raw keys");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"low", "high", "max", "oom", "oom_kill", "oom_group_kill", "oom_kill_disable",
		"under_oom", "hierarchical_memory_limit", "total_dirty", "file_dirty", "nr_dirty",
		"", " ", "max\n",
	};
	char *text;
	size_t i;

	if (size > 65536)
		return -1;
	text = fz_str(data, size);
	stat_one(text, 1);
	stat_one(text, 2);
	stat_one(text, 0);
	for (i = 0; i < MCG_ARRAY_SIZE(keys); i++) {
		uint64_t v = 42;
		int r = mcg_keyed_get(text, keys[i], &v);

		FZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL, "mcg_keyed_get(%s): %d", keys[i], r);
		if (r < 0)
			FZ_CHECK(v == 42, "mcg_keyed_get(%s) wrote its result on failure", keys[i]);
	}
	for (i = 1; i <= 2; i++) {
		struct mcg_dirty_cg cg;
		int r;

		memset(&cg, 0, sizeof(cg));
		r = mcg_dirty_stat_parse(text, (int)i, &cg);
		FZ_CHECK(r == 0 || r == -ENOENT, "mcg_dirty_stat_parse v%zu: %d", i, r);
	}
	{
		int r = mcg_dirty_cgwb_parse(text);

		FZ_CHECK(r == 0 || r == 1 || r == -ENOENT, "mcg_dirty_cgwb_parse: %d", r);
	}
	free(text);
	return 0;
}
