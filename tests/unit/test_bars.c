/* test_bars.c: cli/bars.c's bars with marks (dirty, async-reclaim status), compiled in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../cli/bars.c"

static void expect(unsigned cells, uint64_t v, uint64_t scale, const struct bar_mark *m, size_t n,
		   bool utf8, const char *want)
{
	char buf[BAR_MAX_CELLS * 4 + 3];

	assert_string_equal(bar_render(buf, sizeof(buf), cells, v, scale, m, n, utf8), want);
}

static void test_ascii(void **state)
{
	struct bar_mark m[3] = {{40, 'b'}, {60, 'f'}, {80, 't'}};

	(void)state;
	expect(10, 0, 100, NULL, 0, false, "[..........]");
	expect(10, 100, 100, NULL, 0, false, "[##########]");
	expect(10, 500, 100, NULL, 0, false, "[##########]"); /* beyond the scale: full */
	expect(10, 34, 100, NULL, 0, false, "[###.......]");
	expect(10, 35, 100, NULL, 0, false, "[####......]"); /* half a cell counts */
	expect(10, 30, 100, m, 3, false, "[###.b.f.t.]");
	/* marks over the fill, a mark beyond the scale in the last cell */
	expect(10, 100, 100, m, 3, false, "[####b#f#t#]");
	m[2].at = 1000;
	expect(10, 0, 100, m, 3, false, "[....b.f..t]");
	/* no scale: everything in the last cell, the bar full */
	expect(4, 0, 0, NULL, 0, false, "[####]");
	/* cells bounded: at least 1 */
	expect(0, 1, 2, NULL, 0, false, "[#]");
}

static void test_utf8(void **state)
{
	struct bar_mark m[1] = {{75, 't'}};

	(void)state;
	expect(4, 0, 100, NULL, 0, true, "[\u00b7\u00b7\u00b7\u00b7]");
	/* 4 cells * 8 eighths: 50% is two full cells, 53.125% one eighth more */
	expect(4, 50, 100, NULL, 0, true, "[\u2588\u2588\u00b7\u00b7]");
	expect(4, 53125, 100000, NULL, 0, true, "[\u2588\u2588\u258f\u00b7]");
	expect(4, 71875, 100000, NULL, 0, true, "[\u2588\u2588\u2589\u00b7]");
	expect(4, 100, 100, m, 1, true, "[\u2588\u2588\u2588t]");
}

static void test_truncated(void **state)
{
	char buf[6];

	(void)state;
	/* never half a character, always terminated */
	assert_string_equal(bar_render(buf, sizeof(buf), 10, 0, 100, NULL, 0, false), "[....");
	assert_string_equal(bar_render(buf, sizeof(buf), 10, 100, 100, NULL, 0, true), "[\u2588");
}

static void test_watermarks(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(bar_watermarks(buf, sizeof(buf), 10, 70, 50, 80, 100, false),
			    "[#####l#.h.]");
	/* unknown or unlimited watermarks are not marked */
	assert_string_equal(bar_watermarks(buf, sizeof(buf), 10, 70, 0, UINT64_MAX, 100, false),
			    "[#######...]");
	assert_string_equal(bar_watermarks(buf, sizeof(buf), 10, 0, 100, 200, 100, false),
			    "[..........]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_watermarks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
