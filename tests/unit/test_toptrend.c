/*
 * test_toptrend.c: top's usage trend (cli/top/model.c): kept by row id, drawn in 8 levels;
 * and the detail pane's session graph of usage against limit and high.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

/* the model is CLI code; it is pure, so it is compiled into the test directly */
#include "top/model.c"

static struct mcg_sample_row *rows; /* a hand-built snapshot's (mcg_snapshot_new) */
static struct mcg_snapshot *held;
#define NROWS 2
static struct mcg_snapshot snap;

/* a snapshot of rows with ids ID0 and ID1 and usages U0 and U1 (U < 0: absent) */
static void sample(uint64_t id0, double u0, uint64_t id1, double u1)
{
	uint64_t id[2] = {id0, id1};
	double u[2] = {u0, u1};
	unsigned i;

	mcg_snapshot_unref(held);
	assert_int_equal(mcg_snapshot_new(NULL, NROWS, &held), 0);
	rows = held->rows;
	for (i = 0; i < 2; i++) {
		rows[i].path = i ? "/b" : "/a";
		rows[i].id = id[i];
		if (u[i] >= 0) {
			mcg_sample_set(&rows[i], MCG_K_USAGE, (uint64_t)u[i]);
			mcg_keyset_add(&rows[i].valid, MCG_K_USAGE);
		}
	}
	memset(&snap, 0, sizeof(snap));
	snap.rows = rows;
	snap.n_rows = 2;
}

static void want(const struct top_trend *t, uint64_t id, bool utf8, const char *w)
{
	char buf[TOP_TREND_N * 4 + 1];

	top_trend_format(t, id, utf8, buf, sizeof(buf));
	assert_string_equal(buf, w);
}

static void test_trend(void **state)
{
	struct top_trend *t = NULL;
	unsigned i;

	(void)state;
	want(NULL, 1, false, "        "); /* nothing yet */
	/* row 1 steady, row 2 rising 0..7 MiB */
	for (i = 0; i < 3; i++) {
		sample(1, 1000000, 2, i * 1048576.0);
		assert_int_equal(top_trend_push(&t, &snap), 0);
	}
	want(t, 1, false, "     ---");
	want(t, 2, false, "     _=#"); /* 0, 1, 2 MiB: 1 is 3.5 levels up, drawn at 4 */
	for (; i < 10; i++) {
		sample(2, i * 1048576.0, 1, 1000000 + i); /* the rows in another order: by id */
		assert_int_equal(top_trend_push(&t, &snap), 0);
	}
	/* the last 8 of 0..9: 2..9 in eight levels; row 1 moves by 9 bytes: flat */
	want(t, 2, false, "_.,-=+*#");
	want(t, 2, true, "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588");
	want(t, 1, false, "--------");
	/* row 1 removed, a new id for it: starts over; an absent usage is a blank cell */
	sample(3, -1, 2, 10 * 1048576.0);
	assert_int_equal(top_trend_push(&t, &snap), 0);
	want(t, 1, false, "        ");
	want(t, 3, false, "        ");
	want(t, 2, false, "_.,-=+*#");
	/* a buffer too small: whole characters only, terminated */
	{
		char small[5];

		top_trend_format(t, 2, true, small, sizeof(small));
		assert_string_equal(small, "\u2581");
	}
	top_trend_free(t);
}

/* row /a (id 1) with usage U, limit L and high H in MiB (< 0: absent), at T seconds */
static void sample_g(double u, double l, double h, unsigned t)
{
	sample(1, u < 0 ? -1 : u * 1048576, 2, 0);
	if (l >= 0) {
		mcg_sample_set(&rows[0], MCG_K_LIMIT, l > 1e12 ? MCG_MAX : (uint64_t)(l * 1048576));
		mcg_keyset_add(&rows[0].valid, MCG_K_LIMIT);
	}
	if (h >= 0) {
		mcg_sample_set(&rows[0], MCG_K_HIGH, (uint64_t)(h * 1048576));
		mcg_keyset_add(&rows[0].valid, MCG_K_HIGH);
	}
	snap.mono_ns = (uint64_t)t * 1000000000ULL;
}

#define G_STRIDE 512
static char g[8][G_STRIDE];

static void want_line(unsigned y, const char *w)
{
	assert_string_equal(g[y], w);
}

static void test_graph(void **state)
{
	struct top_trend *t = NULL;
	struct top_graph_info gi;
	static const double u[] = {0, 25, 50, 100};
	unsigned i;

	(void)state;
	gi = top_graph_format(NULL, 1, 40, 4, false, &g[0][0], G_STRIDE);
	assert_int_equal(gi.points, 0);
	want_line(0, "");
	/* 0, 25, 50 and 100 MiB against a 100 MiB limit: the limit on the top line */
	for (i = 0; i < 4; i++) {
		sample_g(u[i], 100, -1, i);
		assert_int_equal(top_trend_push(&t, &snap), 0);
	}
	gi = top_graph_format(t, 1, 40, 4, false, &g[0][0], G_STRIDE);
	assert_int_equal(gi.points, 4);
	assert_int_equal(gi.per, 1);
	assert_int_equal(gi.samples, 4);
	assert_true(gi.seconds == 3.0);
	assert_true(gi.scale == 100.0 * 1048576);
	want_line(0, "  100M|LLLL");
	want_line(1, "      |   #");
	want_line(2, "      |  ##");
	want_line(3, "     0| ###");
	/* two columns: the last two points */
	top_graph_format(t, 1, 2, 4, false, &g[0][0], G_STRIDE);
	want_line(0, "  100M|LL");
	want_line(3, "     0|##");
	/* UTF-8: a cell filled in eighths; 25 MiB of 100 on 4 lines fills the bottom one */
	top_graph_format(t, 1, 40, 4, true, &g[0][0], G_STRIDE);
	want_line(3, "     0| \u2588\u2588\u2588");
	want_line(2, "      |  \u2588\u2588");
	top_trend_free(t);

	/* no limit (max): the top is the most usage; high 60 of 80 is marked on its line */
	t = NULL;
	sample_g(40, 1e13, 60, 0);
	assert_int_equal(top_trend_push(&t, &snap), 0);
	sample_g(80, 1e13, 60, 1);
	assert_int_equal(top_trend_push(&t, &snap), 0);
	gi = top_graph_format(t, 1, 40, 4, false, &g[0][0], G_STRIDE);
	assert_true(gi.scale == 80.0 * 1048576);
	want_line(0, "   80M|HH"); /* 60/80 of 4 lines: line 3, the top; the mark wins */
	want_line(1, "      | #");
	want_line(2, "      |##");
	want_line(3, "     0|##");
	/* an absent usage is a blank column */
	sample_g(-1, 1e13, -1, 2);
	assert_int_equal(top_trend_push(&t, &snap), 0);
	top_graph_format(t, 1, 40, 4, false, &g[0][0], G_STRIDE);
	want_line(3, "     0|## ");
	top_trend_free(t);

	/* past TOP_GRAPH_N samples pairs merge, keeping each pair's most usage */
	t = NULL;
	for (i = 0; i < TOP_GRAPH_N + 1; i++) {
		sample_g(i % 2 ? 10 : 0, 100, -1, i);
		assert_int_equal(top_trend_push(&t, &snap), 0);
	}
	gi = top_graph_format(t, 1, TOP_GRAPH_N, 8, false, &g[0][0], G_STRIDE);
	assert_int_equal(gi.per, 2);
	assert_int_equal(gi.points, TOP_GRAPH_N / 2 + 1);
	assert_int_equal(gi.samples, TOP_GRAPH_N + 1);
	/* every merged point holds 10 MiB (the most of 0 and 10): no gap on the bottom line */
	assert_int_equal(strspn(g[7] + 7, "#"), TOP_GRAPH_N / 2);
	/* a row gone: its graph goes with it (ASan would see a leak), a new id starts over */
	sample(5, 1, 6, 1);
	assert_int_equal(top_trend_push(&t, &snap), 0);
	gi = top_graph_format(t, 1, 40, 4, false, &g[0][0], G_STRIDE);
	assert_int_equal(gi.points, 0);
	gi = top_graph_format(t, 5, 40, 4, false, &g[0][0], G_STRIDE);
	assert_int_equal(gi.points, 1);
	/* a stride too small for anything: no line */
	gi = top_graph_format(t, 5, 40, 4, false, &g[0][0], 4);
	assert_int_equal(gi.points, 0);
	top_trend_free(t);
}

/* RECL/s (v1: pgpgout pages/s times the page size) under the graph, from 0 to its most */
static void test_graph_rate(void **state)
{
	struct top_trend *t = NULL;
	static const double pages[] = {-1, 0, 7, 14, 7};
	char buf[256];
	unsigned i;

	(void)state;
	assert_false(top_graph_rate_format(NULL, 1, 40, false, buf, sizeof(buf)));
	assert_string_equal(buf, "");
	for (i = 0; i < 5; i++) {
		sample_g(10, 100, -1, i);
		snap.page_size = 4096;
		if (pages[i] >= 0) {
			mcg_sample_set_rate(&rows[0], MCG_K_PGPGOUT, pages[i]);
			mcg_keyset_add(&rows[0].rate_valid, MCG_K_PGPGOUT);
		}
		assert_int_equal(top_graph_rate_format(t, 1, 40, false, buf, sizeof(buf)), i > 1);
		assert_int_equal(top_trend_push(&t, &snap), 0);
	}
	/* the first sample has no rate: blank; 0, half and the most of 14 pages/s (56K) */
	assert_true(top_graph_rate_format(t, 1, 40, false, buf, sizeof(buf)));
	assert_string_equal(buf, "   56K| _=#="); /* 7 of 14: 3.5 levels up, drawn at 4 */
	assert_true(top_graph_rate_format(t, 1, 40, true, buf, sizeof(buf)));
	assert_string_equal(buf, "   56K| \u2581\u2585\u2588\u2585");
	/* a buffer too small: whole characters only */
	assert_true(top_graph_rate_format(t, 1, 40, true, buf, 12));
	assert_string_equal(buf, "   56K| \u2581");
	top_trend_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_graph_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
