/* test_size.c: size, duration and CPU budget parsing, good and bad inputs, and formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ops/ops.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)

struct good {
	const char *in;
	unsigned flags;
	uint64_t ref, base, want;
};

static const struct good goods[] = {
	{"4096", 0, 0, 0, 4096},
	{"4097", 0, 0, 0, 4096}, /* whole pages, rounded down like the kernel */
	{"8191", 0, 0, 0, 4096},
	{"0", 0, 0, 0, 0},
	{"512K", 0, 0, 0, 512 * KiB},
	{"512k", 0, 0, 0, 512 * KiB},
	{"512KiB", 0, 0, 0, 512 * KiB},
	{"512KB", 0, 0, 0, 512 * KiB},
	{"512M", 0, 0, 0, 512 * MiB},
	{"1G", 0, 0, 0, GiB},
	{"1.5G", 0, 0, 0, GiB + GiB / 2},
	{"1.25M", 0, 0, 0, MiB + MiB / 4},
	{"2T", 0, 0, 0, 2048 * GiB},
	{".5G", 0, 0, 0, GiB / 2},
	{"0B", 0, 0, 0, 0},
	{"0.0G", 0, 0, 0, 0}, /* zero as written */
	{"-4096", MCG_SIZE_RELATIVE_OK, 0, 4096, 0},
	{"max", MCG_SIZE_MAX_OK, 0, 0, MCG_MAX},
	{"infinity", MCG_SIZE_MAX_OK, 0, 0, MCG_MAX},
	{"-1", MCG_SIZE_MAX_OK, 0, 0, MCG_MAX},
	{"50%", MCG_SIZE_PERCENT_OK, 8 * GiB, 0, 4 * GiB},
	{"100%", MCG_SIZE_PERCENT_OK, 8 * GiB, 0, 8 * GiB},
	{"12.5%", MCG_SIZE_PERCENT_OK, 8 * GiB, 0, GiB},
	{"0%", MCG_SIZE_PERCENT_OK, 8 * GiB, 0, 0},
	{"+256M", MCG_SIZE_RELATIVE_OK, 0, GiB, GiB + 256 * MiB},
	{"-256M", MCG_SIZE_RELATIVE_OK, 0, GiB, GiB - 256 * MiB},
	{"-1G", MCG_SIZE_RELATIVE_OK, 0, GiB, 0},
};

struct bad {
	const char *in;
	unsigned flags;
	uint64_t ref, base;
	const char *why; /* a substring of the reason */
};

static const struct bad bads[] = {
	{"", 0, 0, 0, "empty"},
	{"abc", 0, 0, 0, "not a number"},
	{"12X", 0, 0, 0, "unknown suffix 'X'"},
	{"12MX", 0, 0, 0, "trailing characters 'X'"},
	{"12 M", 0, 0, 0, "unknown suffix ' M'"},
	{"1.5", 0, 0, 0, "fractional bytes"},
	{"1.", 0, 0, 0, "not a number"},
	{"-5M", 0, 0, 0, "negative sizes are not allowed"},
	{"+5M", 0, 0, 0, "relative sizes are not allowed"},
	{"max", 0, 0, 0, "not allowed here"},
	{"-1", 0, 0, 0, "not allowed here"},
	{"50%", 0, 0, 0, "percentages are not allowed"},
	{"50%", MCG_SIZE_PERCENT_OK, 0, 0, "no reference"},
	{"101%", MCG_SIZE_PERCENT_OK, GiB, 0, "above 100%"},
	{"50%x", MCG_SIZE_PERCENT_OK, GiB, 0, "trailing characters 'x'"},
	{"99999999999999999999", 0, 0, 0, "too large"},
	{"16E", 0, 0, 0, "too large"},
	{"20000000T", 0, 0, 0, "too large"},
	{"-2G", MCG_SIZE_RELATIVE_OK, 0, GiB, "negative"},
	{"+1G", MCG_SIZE_RELATIVE_OK, 0, MCG_MAX, "current limit, which is max"},
	{"1.0000000001G", 0, 0, 0, "not a number"},
	/* issue 12: a size below one page would silently become 0 */
	{"512", 0, 0, 0, "rounds down to 0"},
	{"0.5K", 0, 0, 0, "rounds down to 0"},
	{"100B", 0, 0, 0, "rounds down to 0"},
	{"4095", 0, 0, 0, "rounds down to 0"},
	{"0.00001%", MCG_SIZE_PERCENT_OK, GiB, 0, "rounds down to 0"},
	{"-4000", MCG_SIZE_RELATIVE_OK, 0, 4096, "rounds down to 0"},
};

static void test_good(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		uint64_t v = 12345;
		char why[128] = "";
		int r = mcg_size_parse(goods[i].in, goods[i].flags, goods[i].ref, goods[i].base, &v,
				       why, sizeof(why));

		if (r != 0 || v != goods[i].want)
			fail_msg("'%s': r=%d v=%llu want %llu (%s)", goods[i].in, r,
				 (unsigned long long)v, (unsigned long long)goods[i].want, why);
	}
}

static void test_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		uint64_t v = 777;
		char why[128] = "";
		int r = mcg_size_parse(bads[i].in, bads[i].flags, bads[i].ref, bads[i].base, &v, why,
				       sizeof(why));

		if (r >= 0)
			fail_msg("'%s' accepted as %llu", bads[i].in, (unsigned long long)v);
		if (v != 777)
			fail_msg("'%s': out parameter written on failure", bads[i].in);
		if (!strstr(why, bads[i].why))
			fail_msg("'%s': reason '%s' lacks '%s'", bads[i].in, why, bads[i].why);
	}
}

static void test_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(mcg_size_format(0, b, sizeof(b)), "0 B");
	assert_string_equal(mcg_size_format(4096, b, sizeof(b)), "4 KiB");
	assert_string_equal(mcg_size_format(1536 * MiB, b, sizeof(b)), "1.5 GiB");
	assert_string_equal(mcg_size_format(512 * MiB, b, sizeof(b)), "512 MiB");
	assert_string_equal(mcg_size_format(1000, b, sizeof(b)), "1000 B");
	assert_string_equal(mcg_size_format(MCG_MAX, b, sizeof(b)), "max");
	assert_string_equal(mcg_size_format(50 * MiB + MiB / 10, b, sizeof(b)), "50.1 MiB");
}

static void test_duration(void **state)
{
	uint64_t ms = 0;
	char why[64];

	(void)state;
	assert_int_equal(mcg_duration_parse("10", &ms, why, sizeof(why)), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(mcg_duration_parse("1.5s", &ms, why, sizeof(why)), 0);
	assert_int_equal(ms, 1500);
	assert_int_equal(mcg_duration_parse("250ms", &ms, why, sizeof(why)), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(mcg_duration_parse("2m", &ms, why, sizeof(why)), 0);
	assert_int_equal(ms, 120000);
	assert_true(mcg_duration_parse("-1s", &ms, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "negative"));
	assert_true(mcg_duration_parse("5 parsecs", &ms, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "unknown unit"));
	assert_true(mcg_duration_parse("", &ms, why, sizeof(why)) < 0);
}

static void test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(mcg_parse_u64("9223372036854771712\n", &v), 0);
	assert_true(v == MCG_MAX); /* the v1 unlimited sentinel */
	assert_int_equal(mcg_parse_u64("max\n", &v), 0);
	assert_true(v == MCG_MAX);
	assert_int_equal(mcg_parse_u64("4096\n", &v), 0);
	assert_int_equal(v, 4096);
	assert_true(mcg_parse_u64("12 34", &v) < 0);
	assert_true(mcg_parse_u64("", &v) < 0);
}

/*
 * The syntax alone (MCG__SIZE_SYNTAX, what set-limit checks before it takes the
 * lock): what no current value or parent limit can make valid is refused, the
 * rest waits for the values.
 */
static void test_syntax_only(void **state)
{
	static const struct {
		const char *in;
		int ret;
	} cases[] = {
		{"512M", 0},	  {"+1G", 0},	     {"-1G", 0},	  {"50%", 0},
		{"0", 0},	  {"max", 0},	     {"-1", 0},		  {"+100", 0},
		{"12X", -EINVAL}, {"150%", -ERANGE}, {"512", -EINVAL},	  {"", -EINVAL},
		{"1.5", -EINVAL}, {"+", -EINVAL},    {"50%x", -EINVAL},	  {"99999999999E", -ERANGE},
	};
	const unsigned fl = MCG_SIZE_MAX_OK | MCG_SIZE_PERCENT_OK | MCG_SIZE_RELATIVE_OK;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v;
		char why[128] = "";
		int r = mcg_size_parse(cases[i].in, fl | MCG__SIZE_SYNTAX, 0, MCG_MAX, &v, why,
				       sizeof(why));

		if (r != cases[i].ret)
			fail_msg("'%s': %d (%s), want %d", cases[i].in, r, why, cases[i].ret);
	}
	/* and without it the same strings depend on the values */
	{
		uint64_t v;

		assert_int_equal(mcg_size_parse("+1G", fl, 0, MCG_MAX, &v, NULL, 0), -EINVAL);
		assert_int_equal(mcg_size_parse("50%", fl, 0, 0, &v, NULL, 0), -EINVAL);
		assert_int_equal(mcg_size_parse("-1G", fl, 0, 0, &v, NULL, 0), -ERANGE);
	}
}

/*
 * --max-cpu and --size-max-cpu (mcg_cpu_percent_parse): 0.001 to 100, at most three
 * decimals, one optional '%'; the value is exact thousandths (what the enable file keeps).
 */
static void test_cpu_percent(void **state)
{
	static const struct {
		const char *in;
		unsigned milli;
	} good_pct[] = {
		{"5", 5000},	     {"1.5%", 1500}, {"100", 100000}, {"100%", 100000},
		{"100.000", 100000}, {"0.001", 1},   {"0.001%", 1},   {"2.5", 2500},
		{"0.25", 250},	     {".5", 500},    {"007", 7000},   {"99.999", 99999},
		{"1.0", 1000},	     {"0.010", 10},
	};
	static const struct {
		const char *in;
		int ret;
		const char *why; /* a substring of the reason */
	} bad_pct[] = {
		{"", -EINVAL, "empty"},
		{"-1", -EINVAL, "negative"},
		{"-0.5%", -EINVAL, "negative"},
		{"%", -EINVAL, "not a number"},
		{"abc", -EINVAL, "not a number"},
		{"+5", -EINVAL, "not a number"},
		{" 5", -EINVAL, "not a number"},
		{".", -EINVAL, "not a number"},
		{"5.", -EINVAL, "not a number"},
		{"inf", -EINVAL, "not a number"},
		{"nan", -EINVAL, "not a number"},
		{"0", -ERANGE, "below 0.001"},
		{"0.000", -ERANGE, "below 0.001"},
		{"0%", -ERANGE, "below 0.001"},
		{"100.001", -ERANGE, "above 100"},
		{"101", -ERANGE, "above 100"},
		{"1000%", -ERANGE, "above 100"},
		{"99999999999999999999999", -ERANGE, "above 100"},
		{"0.0001", -EINVAL, "more than three decimals"},
		{"1.5000", -EINVAL, "more than three decimals"},
		{"1.0000000001%", -EINVAL, "more than three decimals"},
		{"5x", -EINVAL, "trailing characters 'x'"},
		{"5 ", -EINVAL, "trailing characters ' '"},
		{"5%%", -EINVAL, "trailing characters '%'"},
		{"1.5%x", -EINVAL, "trailing characters 'x'"},
		{"1e2", -EINVAL, "trailing characters 'e2'"},
		{"0x10", -EINVAL, "trailing characters 'x10'"},
		{"1.5.5", -EINVAL, "trailing characters '.5'"},
		{"5,5", -EINVAL, "trailing characters ',5'"},
		{"5\n\033]52", -EINVAL, "trailing characters '\\n\\e]52'"}, /* escaped */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good_pct) / sizeof(good_pct[0]); i++) {
		double v = -1;
		char why[128] = "";
		int r = mcg_cpu_percent_parse(good_pct[i].in, &v, why, sizeof(why));

		if (r != 0 || v != (double)good_pct[i].milli / 1000.0)
			fail_msg("'%s': %d (%s) %.6f, want %u thousandths", good_pct[i].in, r, why,
				 v, good_pct[i].milli);
	}
	for (i = 0; i < sizeof(bad_pct) / sizeof(bad_pct[0]); i++) {
		double v = -1;
		char why[128] = "";
		int r = mcg_cpu_percent_parse(bad_pct[i].in, &v, why, sizeof(why));

		if (r != bad_pct[i].ret || !strstr(why, bad_pct[i].why) || v != -1)
			fail_msg("'%s': %d (%s), want %d (%s) and the value untouched",
				 bad_pct[i].in, r, why, bad_pct[i].ret, bad_pct[i].why);
	}
	{
		double v = -1;

		assert_int_equal(mcg_cpu_percent_parse(NULL, &v, NULL, 0), -EINVAL);
		assert_int_equal(mcg_cpu_percent_parse("x", &v, NULL, 0), -EINVAL); /* no why */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),	    cmocka_unit_test(test_bad),
		cmocka_unit_test(test_format),	    cmocka_unit_test(test_duration),
		cmocka_unit_test(test_parse_u64),   cmocka_unit_test(test_syntax_only),
		cmocka_unit_test(test_cpu_percent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
