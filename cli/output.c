/* output.c: the column tables (libsmartcols text, JSON from the same cells) and the small JSON writer. */
#include "output.h"
#include "memcg.h"
#include "memcgctl.h"

#include <ctype.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <wchar.h>
#include <wctype.h>

/* Nesting state: whether the current container already has a member. */
static bool need_comma[64];
static int depth;

static void escape(FILE *f, const char *s);

static void jw_key(FILE *f, const char *key)
{
	if (depth > 0) {
		if (need_comma[depth])
			fputc(',', f);
		need_comma[depth] = true;
	}
	if (key) {
		escape(f, key);
		fputc(':', f);
	}
}

/*
 * A JSON string for any bytes: valid UTF-8 as is, controls (C0, DEL, C1, bidi) as
 * \uXXXX, each byte of invalid UTF-8 as the four characters \xHH and a
 * backslash as two (each escaped for JSON): decoded, backslashes and bytes read
 * as mcg_escape() prints them, and a decoded \xHH can only mean a byte
 * (memcgctl(8), CGROUP NAMES).
 */
static void escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		uint32_t cp;
		size_t n;

		/* a run of printable ASCII that needs no escape, in one write */
		for (n = 0; p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' && p[n] != '\\'; n++)
			;
		if (n) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			/* decodes to two: "\\xHH" then always means a byte, never a name's text */
			fputs("\\\\\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else if ((n = mcg_utf8_seq(p, &cp)) > 0) {
				if (mcg_cp_escaped(cp))
					fprintf(f, "\\u%04x", (unsigned)cp);
				else
					fwrite(p, 1, n, f);
				p += n;
				continue;
			} else {
				fprintf(f, "\\\\x%02x", c);
			}
		}
		p++;
	}
	fputc('"', f);
}

void jw_open_object(FILE *f, const char *key)
{
	jw_key(f, key);
	fputc('{', f);
	if (depth < 63)
		need_comma[++depth] = false;
}

void jw_close_object(FILE *f)
{
	fputc('}', f);
	if (depth > 0)
		depth--;
}

void jw_open_array(FILE *f, const char *key)
{
	jw_key(f, key);
	fputc('[', f);
	if (depth < 63)
		need_comma[++depth] = false;
}

void jw_close_array(FILE *f)
{
	fputc(']', f);
	if (depth > 0)
		depth--;
}

void jw_string(FILE *f, const char *key, const char *val)
{
	jw_key(f, key);
	if (val)
		escape(f, val);
	else
		fputs("null", f);
}

/* NEG and V / 10^D, with its last D digits after a decimal point (D <= 6). */
static void put_decimal(FILE *f, bool neg, uint64_t v, int d)
{
	char buf[48], *end = buf + sizeof(buf), *p = end;

	if (d > 0) {
		uint64_t scale = 1;
		int i;

		for (i = 0; i < d; i++)
			scale *= 10;
		p = mcg_u64_digits(v % scale, d, p);
		*--p = '.';
		v /= scale;
	}
	p = mcg_u64_digits(v, 0, p);
	if (neg)
		*--p = '-';
	fwrite(p, 1, (size_t)(end - p), f);
}

void jw_u64(FILE *f, const char *key, uint64_t v)
{
	jw_key(f, key);
	put_decimal(f, false, v, 0);
}

void jw_i64(FILE *f, const char *key, int64_t v)
{
	jw_key(f, key);
	put_decimal(f, v < 0, v < 0 ? 0ULL - (uint64_t)v : (uint64_t)v, 0);
}

/*
 * V with at most 6 decimals, when that reads back as V and %.15g would print
 * the same text (no exponent: 1e-4 <= |V| < 1e15; at most 15 digits): rates and percents, without
 * printf's and strtod's multiple-precision work. M / 10^D is the correctly
 * rounded quotient, as strtod's result is, so the test is exact.
 */
static bool put_short(FILE *f, double v)
{
	double a = fabs(v), scale = 1;
	int d;

	if (!(a >= 1e-4 && a < 1e15))
		return false;
	for (d = 0; d <= 6 && a * scale < 1e15; d++, scale *= 10) {
		double m = nearbyint(a * scale);

		if (m / scale == a) {
			put_decimal(f, v < 0, (uint64_t)m, d);
			return true;
		}
	}
	return false;
}

void jw_double(FILE *f, const char *key, double v)
{
	jw_key(f, key);
	char buf[32];
	int prec;

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == 0) {
		fputs(signbit(v) ? "-0" : "0", f);
		return;
	}
	if (put_short(f, v))
		return;
	/* the shortest of %.15g..%.17g that reads back as V: 0.001 stays 0.001 */
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void jw_bool(FILE *f, const char *key, bool v)
{
	jw_key(f, key);
	fputs(v ? "true" : "false", f);
}

void jw_null(FILE *f, const char *key)
{
	jw_key(f, key);
	fputs("null", f);
}

void jw_end(FILE *f)
{
	fputc('\n', f);
	depth = 0;
	need_comma[0] = false;
}

/* ---- column tables ------------------------------------------------------ */


struct out_opts out_opts;

enum { OPT_NOHEADINGS = 0x300, OPT_LIST_COLUMNS };

static const struct argp_option table_options[] = {
	{"output", 'o', "COLS", 0,
	 "Columns to print, comma-separated (+COLS: add to the default set; see --list-columns)", 0},
	{"noheadings", OPT_NOHEADINGS, NULL, 0, "Do not print the column headings", 0},
	{"list-columns", OPT_LIST_COLUMNS, NULL, 0, "List the columns -o takes and exit", 0},
	{0},
};

static error_t table_parse(int key, char *arg, struct argp_state *state)
{
	(void)state;
	switch (key) {
	case 'o':
		out_opts.output = arg;
		break;
	case OPT_NOHEADINGS:
		out_opts.noheadings = true;
		break;
	case OPT_LIST_COLUMNS:
		out_opts.list_columns = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp table_argp = {table_options, table_parse, NULL, NULL, NULL, NULL, NULL};
const struct argp_child out_table_children[] = {
	{&table_argp, 0, "Table output:", 2},
	{&cli_common_argp, 0, "Global options:", 3},
	{0},
};

/*
 * A table's rows and strings live in its arena (blocks of OUT_BLK bytes, freed
 * with the table): no allocation per row or per cell, and a row has a cell
 * only for the columns selected (slot[], not every column of the description).
 */
struct out_cell {
	union {
		uint64_t u;
		double d;
		bool b;
		const char *s; /* OUT_STR value (a column has one type) */
	};
	const char *text; /* shown instead (already escaped) */
};

struct out_row {
	struct out_row *parent, *child, *last_child, *next;
	struct out_table *t;
	struct libscols_line *ln;
	uint64_t set;           /* bit per slot: the cell has a value */
	struct out_cell cells[]; /* one per selected column (t->slot) */
};

struct out_blk {
	struct out_blk *next;
	size_t size, used;
	char data[];
};

struct out_table {
	const struct out_col *cols;
	size_t ncols;
	size_t sel[64]; /* selected columns, in print order */
	size_t nsel;
	signed char *slot; /* per column of the description: its cell in a row, -1 not selected */
	size_t nslots;
	bool shown; /* every cell's text is what out_table_print() shows (chunked printing) */
	struct out_row **rows;
	size_t nrows, cap;
	struct out_blk *blk; /* the arena, newest block first */
};

/* Below malloc's mmap threshold: a refresh's blocks come back from the heap, no page faults. */
enum { OUT_BLK = 60 * 1024 };

static void *arena_alloc(struct out_table *t, size_t n, size_t align)
{
	struct out_blk *b = t->blk;
	size_t off;

	if (b) {
		off = (b->used + align - 1) & ~(align - 1);
		if (off + n <= b->size) {
			b->used = off + n;
			return b->data + off;
		}
	}
	size_t size = n > OUT_BLK - sizeof(*b) ? n : OUT_BLK - sizeof(*b);

	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->size = size;
	b->used = n;
	b->next = t->blk;
	t->blk = b;
	return b->data;
}

static const char *arena_strdup(struct out_table *t, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = arena_alloc(t, n, 1);

	return d ? memcpy(d, s, n) : NULL;
}

uint64_t out_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The host counters of a sample, named by MCG_HOST (memcg/host.h): the levels,
 * then the rate rows' counters and per_second, then the PSI averages; rows
 * without a JSON key and absent rows are left out.
 */
void jw_sample_global(FILE *f, const struct mcg_sample_global *g)
{
	const struct mcg_host *h = &g->host;
	const struct mcg_host_desc *d;
	unsigned c;

	for (c = 0; c < MCG_G__COUNT; c++)
		if ((d = mcg_host_desc(c))->json && !d->rate && d->unit != MCG_HU_PCT100 &&
		    mcg_host_has(h, c))
			jw_u64(f, d->json, mcg_host_get(h, c));
	jw_open_object(f, "counters");
	for (c = 0; c < MCG_G__COUNT; c++)
		if ((d = mcg_host_desc(c))->json && d->rate && mcg_host_has(h, c))
			jw_u64(f, d->json, mcg_host_get(h, c));
	jw_close_object(f);
	jw_open_object(f, "per_second");
	for (c = 0; c < MCG_G__COUNT; c++)
		if ((d = mcg_host_desc(c))->json && d->rate && ((g->rate_valid >> c) & 1))
			jw_double(f, d->json, g->rate[c]);
	jw_close_object(f);
	for (c = 0; c < MCG_G__COUNT; c++)
		if ((d = mcg_host_desc(c))->json && d->unit == MCG_HU_PCT100 && mcg_host_has(h, c))
			jw_double(f, d->json, mcg_host_percent(h, c));
}

void jw_timestamp(FILE *f)
{
	jw_u64(f, "timestamp_ns", out_realtime_ns());
}

void jw_bytes(FILE *f, const char *key, uint64_t v, bool valid)
{
	if (!valid)
		return;
	if (v == MCG_MAX)
		jw_null(f, key);
	else
		jw_u64(f, key, v);
}

static int find_col(const struct out_col *cols, size_t n, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len)) ||
		    (strlen(cols[i].json) == len && !strncasecmp(cols[i].json, name, len)))
			return (int)i;
	return -1;
}

void out_list_columns(const struct out_col *cols, size_t ncols, FILE *f)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		fprintf(f, "%-14s %-22s %s%s\n", cols[i].name, cols[i].json, cols[i].help,
			cols[i].flags & OUT_EXTRA ? " (not shown by default)" : "");
}

static bool col_default(const struct out_col *c, int version)
{
	if (c->flags & OUT_EXTRA)
		return false;
	if ((c->flags & OUT_V1) && version == 2)
		return false;
	if ((c->flags & OUT_V2) && version == 1)
		return false;
	return true;
}

static void unknown_col(const struct out_col *cols, size_t n, const char *name, size_t len)
{
	size_t i;

	(void)len;
	fprintf(stderr, "memcgctl: unknown column '%s' for --output; valid columns:", out_esc(name));
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? "," : "", cols[i].name);
	fputc('\n', stderr);
}

struct out_table *out_table_new(const struct out_col *cols, size_t ncols, int version,
				int *ret_status)
{
	struct out_table *t = calloc(1, sizeof(*t));
	const char *spec = out_opts.output, *p;
	size_t i;

	*ret_status = EXIT_FAILURE;
	if (!t)
		return NULL;
	t->cols = cols;
	t->ncols = ncols;
	if (!spec || *spec == '+') {
		for (i = 0; i < ncols && t->nsel < 64; i++)
			if (col_default(&cols[i], version))
				t->sel[t->nsel++] = i;
		if (spec)
			spec++;
	}
	for (p = spec; p && *p;) {
		size_t len = strcspn(p, ",");
		int c = find_col(cols, ncols, p, len);

		if (len) {
			if (c < 0) {
				/* the name as typed: escaped, it may be anything */
				char *name = strndup(p, len);

				unknown_col(cols, ncols, name ? name : "?", name ? strlen(name) : 1);
				free(name);
				free(t);
				*ret_status = EXIT_USAGE;
				return NULL;
			}
			if (t->nsel < 64)
				t->sel[t->nsel++] = (size_t)c;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!t->nsel) {
		cli_err("no columns to print for --output '%s'", out_esc(out_opts.output));
		free(t);
		*ret_status = EXIT_USAGE;
		return NULL;
	}
	/* a cell per column selected (once, if -o names it twice) */
	t->slot = malloc(ncols ? ncols : 1);
	if (!t->slot) {
		free(t);
		return NULL;
	}
	memset(t->slot, -1, ncols);
	for (i = 0; i < t->nsel; i++)
		if (t->slot[t->sel[i]] < 0)
			t->slot[t->sel[i]] = (signed char)t->nslots++;
	*ret_status = 0;
	return t;
}

bool out_table_has(const struct out_table *t, size_t c)
{
	return c < t->ncols && t->slot[c] >= 0;
}

size_t out_table_nrows(const struct out_table *t)
{
	return t->nrows;
}

const struct out_row *out_table_row(const struct out_table *t, size_t i)
{
	return i < t->nrows ? t->rows[i] : NULL;
}

struct out_row *out_row_new(struct out_table *t, struct out_row *parent)
{
	size_t n = sizeof(struct out_row) + t->nslots * sizeof(struct out_cell);
	struct out_row *r;

	if (mcg_grow(&t->rows, &t->cap, t->nrows, sizeof(*t->rows), 64) < 0)
		return NULL;
	r = arena_alloc(t, n, _Alignof(struct out_row));
	if (!r)
		return NULL;
	memset(r, 0, n);
	r->t = t;
	r->parent = parent;
	if (parent) {
		if (parent->last_child)
			parent->last_child->next = r;
		else
			parent->child = r;
		parent->last_child = r;
	}
	t->rows[t->nrows++] = r;
	return r;
}

/*
 * Column C's cell of R, NULL when C is not selected (nothing to keep) or is
 * not of the value's kind (STR: a string for an OUT_STR column, else a number:
 * they share the cell).
 */
static struct out_cell *cell_of(struct out_row *r, size_t c, bool str)
{
	if (!r || c >= r->t->ncols || r->t->slot[c] < 0 ||
	    (r->t->cols[c].type == OUT_STR) != str)
		return NULL;
	return &r->cells[r->t->slot[c]];
}

static void cell_set(struct out_row *r, const struct out_cell *ce)
{
	r->set |= 1ULL << (ce - r->cells);
}

static bool cell_isset(const struct out_row *r, const struct out_cell *ce)
{
	return (r->set >> (ce - r->cells)) & 1;
}

void out_cell_str(struct out_row *r, size_t c, const char *s)
{
	struct out_cell *ce = cell_of(r, c, true);

	if (!ce || !s)
		return;
	ce->s = arena_strdup(r->t, s);
	if (ce->s)
		cell_set(r, ce);
	else
		r->set &= ~(1ULL << (ce - r->cells));
}

void out_cell_u64(struct out_row *r, size_t c, uint64_t v)
{
	struct out_cell *ce = cell_of(r, c, false);

	if (!ce)
		return;
	ce->u = v;
	cell_set(r, ce);
}

void out_cell_num(struct out_row *r, size_t c, double v)
{
	struct out_cell *ce = cell_of(r, c, false);

	if (!ce || !isfinite(v))
		return;
	ce->d = v;
	cell_set(r, ce);
}

void out_cell_bool(struct out_row *r, size_t c, bool v)
{
	struct out_cell *ce = cell_of(r, c, false);

	if (!ce)
		return;
	ce->b = v;
	cell_set(r, ce);
}

void out_cell_text(struct out_row *r, size_t c, const char *text)
{
	struct out_cell *ce = r && c < r->t->ncols && r->t->slot[c] >= 0 ? &r->cells[r->t->slot[c]]
									: NULL;
	char *e;

	if (!ce || !text)
		return;
	if (mcg_escape_plain(text)) {
		ce->text = arena_strdup(r->t, text);
		return;
	}
	e = mcg_escape_dup(text);
	ce->text = e ? arena_strdup(r->t, e) : NULL;
	free(e);
}

/* The cell as text, into BUF or a string the row owns. */
static const char *cell_text(const struct out_col *col, const struct out_row *r,
			     const struct out_cell *ce, bool tree, char *buf, size_t len)
{
	if (ce->text && (tree || !(col->flags & OUT_TREE)))
		return ce->text;
	if (!cell_isset(r, ce))
		return "-";
	switch (col->type) {
	case OUT_STR:
		return out_esc(ce->s);
	case OUT_BYTES:
		return cli_size(ce->u, buf, len);
	case OUT_U64:
		snprintf(buf, len, "%llu", (unsigned long long)ce->u);
		return buf;
	case OUT_NUM:
		snprintf(buf, len, "%.2f", ce->d);
		return buf;
	case OUT_PCT:
		snprintf(buf, len, "%.1f%%", ce->d);
		return buf;
	case OUT_BOOL:
		return ce->b ? "yes" : "no";
	}
	return "-";
}

/* $COLUMNS, when set to a width: the table fits it even on a pipe (tests, scripts). */
static size_t env_columns(void)
{
	const char *s = getenv("COLUMNS");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 10);
	return *end || v < 10 || v > 100000 ? 0 : (size_t)v;
}

/*
 * What libsmartcols may be given: mcg_escape() left printable ASCII and valid
 * UTF-8. Without a UTF-8 locale each byte from 0x80 becomes \xHH (libsmartcols
 * cannot measure it: it loops); in one, a character with no width (wcwidth < 0)
 * does too. Returns S itself or BUF.
 */
static const char *term_safe(const char *s, bool utf8, char **buf)
{
	const unsigned char *p;
	size_t n = 0;
	char *b;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p >= 0x80)
			n++;
	if (!n)
		return s;
	b = realloc(*buf, strlen(s) + 3 * n + 1);
	if (!b)
		return "?";
	*buf = b;
	for (p = (const unsigned char *)s; *p;) {
		if (*p < 0x80) {
			*b++ = (char)*p++;
			continue;
		}
		if (utf8) {
			mbstate_t st = {0};
			wchar_t wc;
			size_t l = mbrtowc(&wc, (const char *)p, MB_CUR_MAX, &st);

			if (l != (size_t)-1 && l != (size_t)-2 && l > 0 && wcwidth(wc) >= 0) {
				memcpy(b, p, l);
				b += l;
				p += l;
				continue;
			}
		}
		b += sprintf(b, "\\x%02x", *p++);
	}
	*b = '\0';
	return *buf;
}

/*
 * The width of a cell as libsmartcols' mbs_width() measures it (the display
 * width; control characters and "\e[...m" count nothing), with a fast path for
 * printable ASCII, which nearly every cell is.
 */
static size_t cell_width(const struct libscols_column *cl, const char *data, void *unused)
{
	const unsigned char *p = (const unsigned char *)data;
	mbstate_t st = {0};
	size_t w = 0;

	(void)cl;
	(void)unused;
	while (*p >= 0x20 && *p < 0x7f)
		p++;
	if (!*p)
		return (size_t)(p - (const unsigned char *)data);
	for (p = (const unsigned char *)data; *p;) {
		wchar_t wc;
		size_t l;

		if (iscntrl(*p)) {
			const unsigned char *e = ++p;

			if (*e == '[') {
				while (*e && *e != 'm')
					e++;
				if (*e == 'm')
					p = e + 1;
			}
			continue;
		}
		l = mbrtowc(&wc, (const char *)p, MB_CUR_MAX, &st);
		if (l == 0)
			break;
		if (l == (size_t)-1 || l == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			l = 1;
		} else if (iswprint((wint_t)wc) && wcwidth(wc) > 0) {
			w += (size_t)wcwidth(wc);
		}
		p += l;
	}
	return w;
}

/* The custom wrap below keeps a cell on one line. */
static char *one_chunk(const struct libscols_column *cl, char *data, void *unused)
{
	(void)cl;
	(void)data;
	(void)unused;
	return NULL;
}

/*
 * libsmartcols before 2.40 measures every cell twice, with mbrtowc(),
 * iswprint() and wcwidth() for each character: at 1000 cgroups that was half
 * of top -b's CPU. Its documented custom wrap (SCOLS_FL_WRAP with
 * scols_column_set_wrapfunc()) lets the caller measure the widest chunk; with
 * one chunk per cell (one_chunk) nothing wraps, and the width pass uses
 * cell_width(), which skips the per-character calls for ASCII. 2.40 no longer
 * calls the measure and routes custom-wrap cells through its wrap buffer, so
 * the columns stay plain there.
 */
static bool measure_off; /* tests/unit/test_output.c: libsmartcols' own measure, to compare */

static bool measure_cells(void)
{
	static int before_240 = -1; /* the library's version: read once */
	const char *v = NULL;
	int major = 0, minor = 0;

	if (measure_off)
		return false;
	if (before_240 < 0) {
		scols_get_library_version(&v);
		before_240 = v && sscanf(v, "%d.%d", &major, &minor) == 2 && major == 2 &&
			     minor < 40;
	}
	return before_240;
}

/*
 * Rows of one libsmartcols table when a table is printed in chunks (see
 * chunked()); tests/unit/test_output.c makes it small.
 */
static size_t print_chunk = 256;

/*
 * libsmartcols keeps a line and a cell per value (and a copy of its text) until
 * the table is printed: at 10,000 cgroups top -b's table was 6.5 MB of them.
 * A flat table can be printed as consecutive tables of print_chunk rows with
 * the same bytes, when each chunk's columns get the whole table's widths: the
 * width calculation of 2.36 to 2.38 (calculate.c) gives a column of a table
 * that is not a tree, without relative width hints, the largest of its cells'
 * widths and its header's, and then works on the widths only (the terminal's
 * reductions and enlargements); an absolute hint of the whole table's width W
 * with SCOLS_FL_STRICTWIDTH (never the header's width instead of the hint) makes
 * a chunk's column W. --raw has no widths. Other versions, trees and relative
 * hints: one table.
 */
static bool chunk_version(void)
{
	static int ok = -1;
	const char *v = NULL;
	int major = 0, minor = 0;

	if (ok < 0) {
		scols_get_library_version(&v);
		ok = v && sscanf(v, "%d.%d", &major, &minor) == 2 && major == 2 && minor >= 36 &&
		     minor <= 38;
	}
	return ok;
}

static bool chunked(const struct out_table *t, bool raw, bool measure)
{
	size_t k;

	if (t->nrows <= print_chunk || !(raw || measure) || !chunk_version())
		return false;
	for (k = 0; k < t->nsel; k++) {
		const struct out_col *c = &t->cols[t->sel[k]];

		if ((!raw && (c->flags & OUT_TREE)) || c->whint > 0)
			return false;
	}
	return true;
}

/*
 * A libsmartcols table of T's columns on F; with WIDTH, each column made that
 * wide (chunked printing). *TREE: a tree column was made.
 */
static struct libscols_table *table_new(const struct out_table *t, FILE *f, bool raw, bool measure,
					bool noheadings, const size_t *width, bool *tree)
{
	struct libscols_table *tb = scols_new_table();
	size_t k, w;

	*tree = false;
	if (!tb)
		return NULL;
	/* every cell was escaped by mcg_escape(): libsmartcols must not encode it again */
	scols_table_enable_noencoding(tb, 1);
	scols_table_enable_raw(tb, raw);
	scols_table_enable_noheadings(tb, noheadings);
	scols_table_set_stream(tb, f);
	w = env_columns();
	if (w && !raw) {
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
		scols_table_set_termwidth(tb, w);
	}
	for (k = 0; k < t->nsel; k++) {
		const struct out_col *c = &t->cols[t->sel[k]];
		struct libscols_column *cl;
		double hint = c->whint > 0 ? c->whint : 0;
		int fl = 0;

		if (c->flags & OUT_RIGHT)
			fl |= SCOLS_FL_RIGHT;
		if ((c->flags & OUT_TREE) && !raw && !*tree) {
			fl |= SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES;
			*tree = true;
		}
		if (c->flags & OUT_TRUNC)
			fl |= SCOLS_FL_TRUNC;
		if (measure)
			fl |= SCOLS_FL_WRAP;
		/* wider than its header: the header's width must not win in a chunk (see above) */
		if (width && width[k] > cell_width(NULL, c->name, NULL)) {
			hint = (double)width[k];
			fl |= SCOLS_FL_STRICTWIDTH;
		}
		cl = scols_table_new_column(tb, c->name, hint, fl);
		if (!cl) {
			scols_unref_table(tb);
			return NULL;
		}
		if (measure)
			scols_column_set_wrapfunc(cl, cell_width, one_chunk, NULL);
	}
	return tb;
}

/*
 * libsmartcols writes a cell, each byte of padding and each separator with its
 * own fputs(): without stdio's lock on each call (this program has one thread)
 * that was a fifth of top -b's CPU at 1000 cgroups.
 */
static void print_unlocked(struct libscols_table *tb, FILE *f)
{
	int lock = __fsetlocking(f, FSETLOCKING_BYCALLER);

	scols_print_table(tb);
	__fsetlocking(f, lock);
}

/* The text of row R's cell at print position K, as libsmartcols is given it. */
static const char *shown_text(const struct out_table *t, const struct out_row *r, size_t k,
			      bool tree, bool utf8, char **tbuf, char *buf, size_t len)
{
	const struct out_col *c = &t->cols[t->sel[k]];
	const struct out_cell *ce = &r->cells[t->slot[t->sel[k]]];

	if (t->shown)
		return ce->text;
	return term_safe(cell_text(c, r, ce, tree, buf, len), utf8, tbuf);
}

/*
 * Chunked printing: each cell's shown text kept as its text (t->shown), the
 * columns' widths over the whole table, then tables of print_chunk rows.
 */
static void print_chunks(struct out_table *t, FILE *f, bool raw, bool measure, bool utf8,
			 char **tbuf)
{
	size_t width[64] = {0}, i, i0, k;
	bool tree;

	for (i = 0; i < t->nrows && !t->shown; i++) {
		struct out_row *r = t->rows[i];

		for (k = 0; k < t->nsel; k++) {
			struct out_cell *ce = &r->cells[t->slot[t->sel[k]]];
			char buf[64];
			const char *txt = shown_text(t, r, k, false, utf8, tbuf, buf, sizeof(buf));

			if (txt != ce->text) {
				const char *d = arena_strdup(t, txt);

				ce->text = d ? d : "?";
			}
		}
	}
	t->shown = true;
	for (i = 0; i < t->nrows && !raw; i++)
		for (k = 0; k < t->nsel; k++) {
			size_t w = cell_width(NULL, t->rows[i]->cells[t->slot[t->sel[k]]].text, NULL);

			if (w > width[k])
				width[k] = w;
		}
	for (i0 = 0; i0 < t->nrows; i0 += print_chunk) {
		struct libscols_table *tb = table_new(t, f, raw, measure,
						      out_opts.noheadings || i0 > 0, raw ? NULL : width,
						      &tree);

		if (!tb)
			return;
		for (i = i0; i < t->nrows && i < i0 + print_chunk; i++) {
			struct libscols_line *ln = scols_table_new_line(tb, NULL);

			if (!ln)
				break;
			for (k = 0; k < t->nsel; k++)
				scols_line_set_data(ln, k, t->rows[i]->cells[t->slot[t->sel[k]]].text);
		}
		print_unlocked(tb, f);
		scols_unref_table(tb);
	}
}

void out_table_print(struct out_table *t, FILE *f)
{
	struct libscols_table *tb = NULL;
	bool raw = cli_state.raw, tree = false, utf8, measure = !raw && measure_cells();
	char *old = setlocale(LC_CTYPE, NULL), *saved = old ? strdup(old) : NULL, *tbuf = NULL;
	size_t i, k;

	/* the user's character set for measuring names and the tree art, for this table only */
	setlocale(LC_CTYPE, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (chunked(t, raw, measure)) {
		print_chunks(t, f, raw, measure, utf8, &tbuf);
		goto out;
	}
	tb = table_new(t, f, raw, measure, out_opts.noheadings, NULL, &tree);
	if (!tb)
		goto out;
	for (i = 0; i < t->nrows; i++) {
		struct out_row *r = t->rows[i];

		r->ln = scols_table_new_line(tb, tree && r->parent ? r->parent->ln : NULL);
		if (!r->ln)
			goto out;
		for (k = 0; k < t->nsel; k++) {
			char buf[64];

			scols_line_set_data(r->ln, k,
					    shown_text(t, r, k, tree, utf8, &tbuf, buf, sizeof(buf)));
		}
	}
	print_unlocked(tb, f);
out:
	scols_unref_table(tb);
	free(tbuf);
	setlocale(LC_CTYPE, saved ? saved : "C");
	free(saved);
}

void out_row_json(const struct out_table *t, const struct out_row *r, FILE *f)
{
	size_t k;

	for (k = 0; k < t->nsel; k++) {
		const struct out_col *c = &t->cols[t->sel[k]];
		const struct out_cell *ce = &r->cells[t->slot[t->sel[k]]];

		if (!cell_isset(r, ce))
			continue; /* absent stays absent */
		switch (c->type) {
		case OUT_STR:
			jw_string(f, c->json, ce->s);
			break;
		case OUT_BYTES:
			jw_bytes(f, c->json, ce->u, true);
			break;
		case OUT_U64:
			jw_u64(f, c->json, ce->u);
			break;
		case OUT_NUM:
		case OUT_PCT:
			jw_double(f, c->json, ce->d);
			break;
		case OUT_BOOL:
			jw_bool(f, c->json, ce->b);
			break;
		}
	}
}

static void row_json_tree(const struct out_table *t, const struct out_row *r, FILE *f)
{
	const struct out_row *c;

	jw_open_object(f, NULL);
	out_row_json(t, r, f);
	if (r->child) {
		jw_open_array(f, "children");
		for (c = r->child; c; c = c->next)
			row_json_tree(t, c, f);
		jw_close_array(f);
	}
	jw_close_object(f);
}

void out_table_json(struct out_table *t, FILE *f, const char *key)
{
	size_t i;

	jw_open_array(f, key);
	for (i = 0; i < t->nrows; i++)
		if (!t->rows[i]->parent)
			row_json_tree(t, t->rows[i], f);
	jw_close_array(f);
}

void out_table_free(struct out_table *t)
{
	struct out_blk *b, *next;

	if (!t)
		return;
	for (b = t->blk; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->rows);
	free(t->slot);
	free(t);
}
