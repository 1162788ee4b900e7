/* fuzz_size.c: the short-string parsers: sizes, empty batch, kernel numbers, durations, CPU %. */
#include "fuzz.h"

#include "memcg/empty.h"

static void check_why(int r, const char *why, size_t len, const char *what, const char *s)
{
	FZ_CHECK(memchr(why, '\0', len), "%s('%s'): reason not NUL-terminated", what, s);
	if (r < 0)
		FZ_CHECK(why[0], "%s('%s') failed (%d) without a reason", what, s, r);
}

static void size_one(const char *s, unsigned flags, uint64_t ref, uint64_t base)
{
	uint64_t ps = (uint64_t)mcg_page_size(), v = 12345;
	char why[64];
	int r;

	memset(why, 0, sizeof(why));
	r = mcg_size_parse(s, flags, ref, base, &v, why, sizeof(why));
	check_why(r, why, sizeof(why), "mcg_size_parse", s);
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -ERANGE, "mcg_size_parse('%s'): %d", s, r);
		FZ_CHECK(v == 12345, "mcg_size_parse('%s') wrote its result on failure", s);
		return;
	}
	FZ_CHECK(r == 0, "mcg_size_parse('%s') returned %d", s, r);
	if (v == MCG_MAX) {
		FZ_CHECK(flags & MCG_SIZE_MAX_OK, "'%s' gave max without MCG_SIZE_MAX_OK", s);
		return;
	}
	FZ_CHECK(v % ps == 0, "mcg_size_parse('%s') = %llu, not whole pages", s,
		 (unsigned long long)v);
	if (strchr(s, '%') && s[0] != '+' && s[0] != '-')
		FZ_CHECK(v <= ref, "'%s' of %llu gave %llu, above the reference", s,
			 (unsigned long long)ref, (unsigned long long)v);
	if (s[0] == '-')
		FZ_CHECK(v <= base, "'%s' from %llu grew to %llu", s, (unsigned long long)base,
			 (unsigned long long)v);
	/* the same call without a reason buffer agrees */
	{
		uint64_t w = 0;

		FZ_CHECK(mcg_size_parse(s, flags, ref, base, &w, NULL, 0) == 0 && w == v,
			 "mcg_size_parse('%s') differs without a reason buffer", s);
	}
	/* formatting never overflows, even into a short buffer */
	{
		char buf[16], small[4];

		mcg_size_format(v, buf, sizeof(buf));
		FZ_CHECK(memchr(buf, '\0', sizeof(buf)), "mcg_size_format: no NUL");
		mcg_size_format(v, small, sizeof(small));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct {
		uint64_t ref, base;
	} rb[] = {
		{8ULL << 30, 64ULL << 20},
		{0, MCG_MAX},
		{MCG_MAX - 1, MCG_MAX - 2},
		{4096, 0},
		{1, 1ULL << 63},
	};
	char *s = fz_str(data, size), why[64];
	uint64_t v, ms;
	size_t i;
	int r;

	if (size > 256) { /* command-line words: longer adds nothing but time */
		free(s);
		return -1;
	}
	for (i = 0; i < MCG_ARRAY_SIZE(rb); i++)
		size_one(s, MCG_SIZE_MAX_OK | MCG_SIZE_PERCENT_OK | MCG_SIZE_RELATIVE_OK, rb[i].ref,
			 rb[i].base);
	size_one(s, 0, 8ULL << 30, 64ULL << 20);
	size_one(s, MCG_SIZE_MAX_OK, 0, 0);

	memset(why, 0, sizeof(why));
	v = 0;
	r = mcg_empty_parse_batch(s, &v, why, sizeof(why));
	check_why(r, why, sizeof(why), "mcg_empty_parse_batch", s);
	if (r == 0)
		FZ_CHECK(v >= (uint64_t)mcg_page_size() && v <= MCG_EMPTY_MAX_BATCH &&
				 v % (uint64_t)mcg_page_size() == 0,
			 "mcg_empty_parse_batch('%s') = %llu", s, (unsigned long long)v);

	memset(why, 0, sizeof(why));
	ms = 777;
	r = mcg_duration_parse(s, &ms, why, sizeof(why));
	check_why(r, why, sizeof(why), "mcg_duration_parse", s);
	if (r < 0)
		FZ_CHECK(ms == 777, "mcg_duration_parse('%s') wrote its result on failure", s);

	if (mcg_parse_u64(s, &v) == 0 && v != MCG_MAX)
		FZ_CHECK(v < mcg__v1_unlimited(), "mcg_parse_u64('%s') = %llu, past the v1 sentinel", s,
			 (unsigned long long)v);

	{
		/* --max-cpu, --size-max-cpu: 0.001..100 in exact thousandths, or untouched */
		double pct = -1;

		memset(why, 0, sizeof(why));
		r = mcg_cpu_percent_parse(s, &pct, why, sizeof(why));
		check_why(r, why, sizeof(why), "mcg_cpu_percent_parse", s);
		if (r < 0)
			FZ_CHECK(pct == -1,
				 "mcg_cpu_percent_parse('%s') wrote its result on failure", s);
		else
			FZ_CHECK(pct >= 0.001 && pct <= 100 &&
					 pct == (double)(unsigned)(pct * 1000 + 0.5) / 1000.0,
				 "mcg_cpu_percent_parse('%s') = %f", s, pct);
	}
	free(s);
	return 0;
}
