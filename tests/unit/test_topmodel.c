/* test_topmodel.c: the pure model of 'top': sort, reverse, filter, tree, collapse, selection, cells. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

/* the model is CLI code; it is pure, so it is compiled into the test directly */
#include "top/model.c"

/*
 * /            usage 1000
 *   /a         usage 300  limit 600
 *     /a/x     usage 200
 *   /b         usage 500  limit max
 *   /c         usage absent
 */
static struct mcg_sample_row *rows; /* a hand-built snapshot's (mcg_snapshot_new) */
static struct mcg_snapshot *held;
#define NROWS 5
static struct mcg_snapshot snap;

static void setup_rows(void)
{
	static const char *paths[] = {"/", "/a", "/a/x", "/b", "/c"};
	static const int parents[] = {-1, 0, 1, 0, 0};
	static const int depth[] = {0, 1, 2, 1, 1};
	static const uint64_t usage[] = {1000, 300, 200, 500, 0};
	unsigned i;

	mcg_snapshot_unref(held);
	assert_int_equal(mcg_snapshot_new(NULL, NROWS, &held), 0);
	rows = held->rows;
	for (i = 0; i < 5; i++) {
		rows[i].path = paths[i];
		rows[i].name = i ? strrchr(paths[i], '/') + 1 : paths[i];
		rows[i].parent = parents[i];
		rows[i].depth = depth[i];
		rows[i].id = 10 + i;
		rows[i].async = -1;
		if (i != 4) {
			mcg_sample_set(&rows[i], MCG_K_USAGE, usage[i]);
			mcg_keyset_add(&rows[i].valid, MCG_K_USAGE);
		}
		mcg_sample_set(&rows[i], MCG_K_LIMIT, MCG_MAX);
		mcg_keyset_add(&rows[i].valid, MCG_K_LIMIT);
	}
	mcg_sample_set(&rows[1], MCG_K_LIMIT, 600);
	/* v2 reclaim: 10 pages/s stolen of 40 scanned */
	mcg_sample_set_rate(&rows[3], MCG_K_PGSTEAL, 10);
	mcg_sample_set_rate(&rows[3], MCG_K_PGSCAN, 40);
	mcg_keyset_add(&rows[3].rate_valid, MCG_K_PGSTEAL);
	mcg_keyset_add(&rows[3].rate_valid, MCG_K_PGSCAN);
	memset(&snap, 0, sizeof(snap));
	snap.version = 2;
	snap.page_size = 4096;
	snap.rows = rows;
	snap.n_rows = 5;
}

static void expect(const struct top_model *m, const char *want)
{
	int out[5];
	size_t n = top_model_rows(m, &snap, out), i;
	char got[128] = "";

	for (i = 0; i < n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, rows[out[i]].path);
	}
	assert_string_equal(got, want);
}

static void test_tree_sort(void **state)
{
	struct top_model m;

	(void)state;
	setup_rows();
	top_model_init(&m);
	expect(&m, "/ /a /a/x /b /c"); /* by name */
	m.reverse = true;
	expect(&m, "/ /c /b /a /a/x"); /* children stay under their parent */
	m.reverse = false;
	m.sort = TOP_USAGE;
	expect(&m, "/ /b /a /a/x /c"); /* largest first, absent last */
	m.reverse = true;
	expect(&m, "/ /a /a/x /b /c"); /* smallest first, absent still last */
}

static void test_flat_filter_collapse(void **state)
{
	struct top_model m;

	(void)state;
	setup_rows();
	top_model_init(&m);
	m.flat = true;
	m.sort = TOP_USAGE;
	expect(&m, "/ /b /a /a/x /c");
	m.sort = TOP_PCT; /* only /a has a limit */
	expect(&m, "/a / /a/x /b /c");
	/* filter: flat keeps matches only, tree keeps their ancestors */
	strcpy(m.filter, "X");
	expect(&m, "/a/x");
	m.flat = false;
	expect(&m, "/ /a /a/x");
	strcpy(m.filter, "nomatch");
	expect(&m, "");
	m.filter[0] = '\0';
	m.sort = TOP_NAME;
	top_model_toggle_collapse(&m, rows[1].id);
	expect(&m, "/ /a /b /c");
	top_model_toggle_collapse(&m, rows[1].id);
	expect(&m, "/ /a /a/x /b /c");
}

static void test_selection(void **state)
{
	struct top_model m;
	int out[5];
	size_t n;

	(void)state;
	setup_rows();
	top_model_init(&m);
	n = top_model_rows(&m, &snap, out);
	assert_int_equal(top_model_selected_pos(&m, &snap, out, n), 0);
	top_model_move(&m, &snap, out, n, 2);
	assert_true(m.selected == rows[2].id);
	top_model_move(&m, &snap, out, n, 100);
	assert_true(m.selected == rows[4].id);
	top_model_move(&m, &snap, out, n, -100);
	assert_true(m.selected == rows[0].id);
	/* the selection follows the cgroup when the order changes */
	m.selected = rows[3].id;
	m.sort = TOP_USAGE;
	n = top_model_rows(&m, &snap, out);
	assert_int_equal(top_model_selected_pos(&m, &snap, out, n), 1);
	/* a vanished selection falls back to the first row */
	m.selected = 999;
	assert_int_equal(top_model_selected_pos(&m, &snap, out, n), 0);
}

static void test_cells(void **state)
{
	char b[32];
	double v;

	(void)state;
	setup_rows();
	top_cell_format(&snap, &rows[1], TOP_PCT, false, b, sizeof(b));
	assert_string_equal(b, "50");
	top_cell_format(&snap, &rows[3], TOP_PCT, false, b, sizeof(b));
	assert_string_equal(b, "-"); /* no limit: no percentage */
	top_cell_format(&snap, &rows[3], TOP_LIMIT, false, b, sizeof(b));
	assert_string_equal(b, "max");
	top_cell_format(&snap, &rows[4], TOP_USAGE, false, b, sizeof(b));
	assert_string_equal(b, "-"); /* absent is never 0 */
	top_cell_format(&snap, &rows[3], TOP_EFF, false, b, sizeof(b));
	assert_string_equal(b, "25");
	assert_true(top_cell_value(&snap, &rows[3], TOP_RECL, &v) && v == 40960);
	top_cell_format(&snap, &rows[3], TOP_RECL, false, b, sizeof(b));
	assert_string_equal(b, "40K");
	top_cell_format(&snap, &rows[3], TOP_RECL, true, b, sizeof(b));
	assert_string_equal(b, "40960");
	assert_false(top_cell_value(&snap, &rows[1], TOP_EFF, &v));
	top_cell_format(&snap, &rows[1], TOP_ASYNC, false, b, sizeof(b));
	assert_string_equal(b, "-");
	top_fmt_size(1.5 * 1024 * 1024, b, sizeof(b));
	assert_string_equal(b, "1.5M");
	assert_int_equal(top_col_find("reclaim"), TOP_RECL);
	assert_int_equal(top_col_find("USAGE"), TOP_USAGE);
	assert_int_equal(top_col_find("bogus"), -1);
	assert_false(top_col_on(TOP_FAIL, 2));
	assert_true(top_col_on(TOP_FAIL, 1));
}

/* top_fmt_size() prints what the snprintf() formats it replaced print, to the last tie */
static void ref_fmt_size(double v, char *buf, size_t len)
{
	static const char *const unit[] = {"", "K", "M", "G", "T", "P", "E"};
	int u = 0;

	for (v = v < 0 ? 0 : v; v >= 1024 && u < 6; u++)
		v /= 1024;
	snprintf(buf, len, "%.*f%s", u && v < 10 && v != (double)(long)v, v, unit[u]);
}

static void test_fmt_size_as_printf(void **state)
{
	static const double edge[] = {0, 0.5, 1.5, 2.5, 0.49999999999999994, 1023.5, 1024, 10239.5,
				      10240, 10752, 1048575.5, 1e15, 1e19, 1.8446744073709552e19,
				      -3, 12.5 * 1024, 13.5 * 1024 * 1024, 1e300};
	char a[32], b[32];
	unsigned long long x = 88172645463325252ULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		top_fmt_size(edge[i], a, sizeof(a));
		ref_fmt_size(edge[i], b, sizeof(b));
		assert_string_equal(a, b);
	}
	for (i = 0; i < 200000; i++) { /* xorshift: sizes and rates of every magnitude */
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = (double)(x >> (x % 60)) / (double)(1 + (x >> 61)) / ((x & 8) ? 2.0 : 1.0);
		top_fmt_size(v, a, sizeof(a));
		ref_fmt_size(v, b, sizeof(b));
		assert_string_equal(a, b);
	}
	top_fmt_size(123456789, a, 3); /* cut as snprintf cuts */
	assert_string_equal(a, "11");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_sort),
		cmocka_unit_test(test_flat_filter_collapse),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_fmt_size_as_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
