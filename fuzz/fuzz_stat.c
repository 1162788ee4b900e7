/* fuzz_stat.c: keyed cgroup files from text: memory.stat (v1, v2), memory.events, memory.oom_control, /proc/cgroups. */
#include "fuzz.h"

#include "memcg/dirty.h"

#include <ctype.h>

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
