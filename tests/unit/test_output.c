/* test_output.c: the JSON writer's numbers and strings, and the table's cell measure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the output layer is CLI code: compiled into the test (with cli/cli.c, the messages and sizes it uses) */
#include "output.c"

/* What FN wrote on a fresh stream, in BUF. */
#define CAPTURE(buf, call)                                                                         \
	do {                                                                                       \
		FILE *f_ = fmemopen(buf, sizeof(buf), "w");                                        \
		assert_non_null(f_);                                                               \
		call;                                                                              \
		fclose(f_);                                                                        \
	} while (0)

/* The writer's rule, written out: the shortest of %.15g, %.16g, %.17g that reads back. */
static void shortest_g(double v, char *buf, size_t len)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void check_double(double v)
{
	char got[64] = "", want[64];

	CAPTURE(got, jw_double(f_, NULL, v));
	shortest_g(v, want, sizeof(want));
	if (strcmp(got, want))
		fail_msg("jw_double(%a): '%s', %%.Ng gives '%s'", v, got, want);
	assert_true(strtod(got, NULL) == v);
}

static void jw_double_prints_printfs_shortest(void **state __attribute__((unused)))
{
	static const double fixed[] = {
		-0.0, 1, -1, 0.1, 0.3, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 12.5, 99.95, 100, 0.0001,
		0.00010000000000000002, 9.9999e-5, 1e-5, 123456.789, 999999999.999999, 1e9, 1e15 - 1,
		1e15, 1e16, 4503599627370497.0, 9007199254740993.0, 1e300, -2.5e-7, 5e-324,
		0.000123456, 65.53599999999999, 1234567.1234567,
	};
	unsigned seed = 20261201;
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_double(fixed[i]);
	/* rates as top computes them: a delta over an interval; and decimals, and any bits */
	for (i = 0; i < 200000; i++) {
		uint64_t bits = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 11) ^
				(uint64_t)rand_r(&seed);
		double v;

		check_double((double)(rand_r(&seed) % 100000000) / (0.001 * (1 + rand_r(&seed) % 5000)));
		check_double((double)(rand_r(&seed) % 10000000) / 1000.0);
		check_double((double)(rand_r(&seed) % 1000) / 10.0);
		memcpy(&v, &bits, sizeof(v));
		if (isfinite(v))
			check_double(v);
	}
}

static void jw_double_not_finite_is_null(void **state __attribute__((unused)))
{
	char got[16] = "";

	CAPTURE(got, jw_double(f_, NULL, NAN));
	assert_string_equal(got, "null");
	CAPTURE(got, jw_double(f_, NULL, -INFINITY));
	assert_string_equal(got, "null");
}

static void jw_integers_print_as_printf(void **state __attribute__((unused)))
{
	static const uint64_t u[] = {0, 1, 9, 10, 4096, 18446744073709551615ULL};
	static const int64_t s[] = {0, -1, 42, INT64_MAX, INT64_MIN};
	char got[32], want[32];
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		memset(got, 0, sizeof(got));
		CAPTURE(got, jw_u64(f_, NULL, u[i]));
		snprintf(want, sizeof(want), "%llu", (unsigned long long)u[i]);
		assert_string_equal(got, want);
	}
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		memset(got, 0, sizeof(got));
		CAPTURE(got, jw_i64(f_, NULL, s[i]));
		snprintf(want, sizeof(want), "%lld", (long long)s[i]);
		assert_string_equal(got, want);
	}
}

static void jw_string_escapes_around_plain_runs(void **state __attribute__((unused)))
{
	char got[128] = "";

	CAPTURE(got, jw_string(f_, NULL, "plain name.slice"));
	assert_string_equal(got, "\"plain name.slice\"");
	memset(got, 0, sizeof(got));
	CAPTURE(got, jw_string(f_, NULL, "a\"b\\c\nd\x01" "e\xc3\xa9" "f\xff" "g\x7f"));
	assert_string_equal(got, "\"a\\\"b\\\\\\\\c\\nd\\u0001e\xc3\xa9" "f\\\\xffg\\u007f\"");
	/* bidi controls as \uXXXX: the same name decoded, nothing reordered where it is printed raw */
	memset(got, 0, sizeof(got));
	CAPTURE(got, jw_string(f_, NULL, "bidi\xe2\x80\xae" "exe.txt\xe2\x81\xa6" "x\xd8\x9c\xe2\x80\x8f"));
	assert_string_equal(got, "\"bidi\\u202eexe.txt\\u2066x\\u061c\\u200f\"");
}

/* The display width as wcswidth() counts it, for text without control characters. */
static size_t oracle_width(const char *s)
{
	wchar_t w[64];
	size_t n = mbstowcs(w, s, 64);

	assert_int_not_equal(n, (size_t)-1);
	return (size_t)wcswidth(w, n);
}

static void cell_width_matches_wcswidth(void **state __attribute__((unused)))
{
	static const char *const s[] = {
		"", "0", "system.slice", "1.5G", "\xe4\xb8\xad\xe6\x96\x87" /* 2 wide */,
		"e\xcc\x81" /* combining */, "\xe2\x94\x9c\xe2\x94\x80 web" /* tree art */,
		"caf\xc3\xa9.service", "\\xff\\x01",
	};
	size_t i;

	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		assert_int_equal(cell_width(NULL, s[i], NULL), oracle_width(s[i]));
	/* "\e[1m" and the like count nothing, as in libsmartcols */
	assert_int_equal(cell_width(NULL, "\033[1mab\033[0m", NULL), 2);
	setlocale(LC_CTYPE, "C");
}

static const struct out_col cols[] = {
	{"NAME", "name", "", OUT_STR, OUT_TREE | OUT_TRUNC, 0},
	{"USAGE", "usage_bytes", "", OUT_BYTES, OUT_RIGHT, 0},
	{"RATE", "rate", "", OUT_NUM, OUT_RIGHT, 0},
	{"NOTE", "note", "", OUT_STR, 0, 0},
};

/* A tree of NAMES under one root, printed as text with COLUMNS=WIDTH (0: unset). */
static char *print(bool off, const char *width)
{
	static const char *const names[] = {
		"/", "system.slice", "\xe4\xb8\xad\xe6\x96\x87.scope", "caf\xc3\xa9.service",
		"very-long-name-that-a-narrow-terminal-must-cut.service", "e\xcc\x81", "x",
	};
	struct out_table *t;
	struct out_row *root = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	int status;
	FILE *f;

	if (width)
		setenv("COLUMNS", width, 1);
	else
		unsetenv("COLUMNS");
	setenv("LC_ALL", "C.UTF-8", 1);
	measure_off = off;
	t = out_table_new(cols, sizeof(cols) / sizeof(cols[0]), 2, &status);
	assert_non_null(t);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct out_row *r = out_row_new(t, i ? root : NULL);

		if (!i)
			root = r;
		out_cell_str(r, 0, names[i]);
		out_cell_text(r, 0, names[i]);
		if (i % 3)
			out_cell_u64(r, 1, (uint64_t)i << (8 * i));
		out_cell_num(r, 2, 1000.0 / (double)(i + 1));
		out_cell_str(r, 3, i % 2 ? names[i] : "");
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	out_table_print(t, f);
	fclose(f);
	out_table_free(t);
	measure_off = false;
	return buf;
}

static void table_measure_changes_nothing(void **state __attribute__((unused)))
{
	static const char *const widths[] = {NULL, "20", "40", "60", "200"};
	size_t i;

	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		char *fast = print(false, widths[i]), *plain_ = print(true, widths[i]);

		assert_true(strlen(fast) > 100);
		assert_string_equal(fast, plain_);
		free(fast);
		free(plain_);
	}
}

/*
 * A flat table of N rows (no tree column), printed as text with COLUMNS=WIDTH
 * (0: unset), in chunks of CHUNK rows. The widest cells of a column come in
 * different chunks, some columns narrower than their headers in some chunks
 * only, one column never wider than its header; -o names one column twice.
 */
static const struct out_col flat_cols[] = {
	{"NAME", "name", "", OUT_STR, OUT_TRUNC, 0},
	{"USAGE", "usage_bytes", "", OUT_BYTES, OUT_RIGHT, 0},
	{"RATE", "rate", "", OUT_NUM, OUT_RIGHT, 0},
	{"NOTE", "note", "", OUT_STR, OUT_TRUNC, 0},
	{"LONGHEADER", "h", "", OUT_U64, OUT_RIGHT, 0},
	{"LAST", "last", "", OUT_STR, 0, 0},
};

static char *print_flat(size_t n, size_t chunk, const char *width, bool raw, const char *o)
{
	static const char *const names[] = {
		"/", "system.slice", "\xe4\xb8\xad\xe6\x96\x87.scope", "caf\xc3\xa9.service",
		"very-long-name-that-a-narrow-terminal-must-cut.service", "x", "a/b/c",
	};
	struct out_table *t;
	char *buf = NULL;
	size_t len = 0, i, saved = print_chunk;
	int status;
	FILE *f;

	if (width)
		setenv("COLUMNS", width, 1);
	else
		unsetenv("COLUMNS");
	setenv("LC_ALL", "C.UTF-8", 1);
	cli_state.raw = raw;
	out_opts.output = o;
	print_chunk = chunk;
	t = out_table_new(flat_cols, sizeof(flat_cols) / sizeof(flat_cols[0]), 2, &status);
	assert_non_null(t);
	for (i = 0; i < n; i++) {
		struct out_row *r = out_row_new(t, NULL);
		char text[32];

		assert_non_null(r);
		out_cell_str(r, 0, names[(i * 5) % 7]);
		if (i % 4)
			out_cell_u64(r, 1, (uint64_t)1 << (i % 41));
		out_cell_num(r, 2, i == n - 2 ? 123456789.5 : 1000.0 / (double)(i + 1));
		out_cell_str(r, 3, i % 9 == 8 ? names[4] : i % 2 ? "n" : "");
		out_cell_u64(r, 4, i % 100);
		snprintf(text, sizeof(text), "%zu", i * i);
		out_cell_text(r, 5, i % 3 ? text : names[(i * 3) % 7]);
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	out_table_print(t, f);
	fclose(f);
	out_table_free(t);
	print_chunk = saved;
	cli_state.raw = false;
	out_opts.output = NULL;
	return buf;
}

static void table_chunks_print_as_one(void **state __attribute__((unused)))
{
	static const char *const widths[] = {NULL, "20", "40", "60", "75", "200"};
	static const char *const outs[] = {NULL, "usage,name,usage", "+name", "last,note"};
	static const size_t chunks[] = {1, 2, 7, 16};
	static const size_t ns[] = {17, 40};
	size_t w, o, c, n;
	int raw;

	for (raw = 0; raw < 2; raw++)
		for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
			for (o = 0; o < sizeof(outs) / sizeof(outs[0]); o++)
				for (n = 0; n < sizeof(ns) / sizeof(ns[0]); n++) {
					char *one = print_flat(ns[n], 100000, widths[w], raw, outs[o]);

					assert_true(strlen(one) > 100);
					for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
						char *got = print_flat(ns[n], chunks[c], widths[w], raw,
								       outs[o]);

						if (strcmp(one, got))
							fail_msg("COLUMNS=%s raw=%d -o %s, %zu rows in chunks of %zu:\n%s\nwhole:\n%s",
								 widths[w] ? widths[w] : "-", raw,
								 outs[o] ? outs[o] : "-", ns[n], chunks[c],
								 got, one);
						free(got);
					}
					free(one);
				}
	/* the chunks are taken: the version here is one they are made for */
	assert_true(chunk_version());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jw_double_prints_printfs_shortest),
		cmocka_unit_test(jw_double_not_finite_is_null),
		cmocka_unit_test(jw_integers_print_as_printf),
		cmocka_unit_test(jw_string_escapes_around_plain_runs),
		cmocka_unit_test(cell_width_matches_wcswidth),
		cmocka_unit_test(table_measure_changes_nothing),
		cmocka_unit_test(table_chunks_print_as_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
