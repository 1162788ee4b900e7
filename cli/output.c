/* output.c: a small JSON writer and aligned tables, the only text formatting the commands use. */
#include "output.h"
#include "memcg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
 * Length of the valid UTF-8 sequence at S (2..4 bytes), or 0: overlong forms,
 * surrogates and code points past U+10FFFF are invalid. (C1 controls are valid
 * UTF-8; the caller escapes them.)
 */
static size_t utf8_len(const unsigned char *s, uint32_t *ret_cp)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret_cp = cp;
	return n;
}

/*
 * A JSON string for any bytes: valid UTF-8 as is, controls (C0, DEL, C1) as
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
			} else if ((n = utf8_len(p, &cp)) > 0) {
				if (cp <= 0x9f)
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

/* A ring of buffers, so that a few escaped names can be used in one printf. */
const char *out_esc(const char *s)
{
	static char *ring[8];
	static unsigned next;
	char **slot = &ring[next++ % 8];
	size_t n;
	char *b;

	if (!s)
		return "-";
	n = mcg_escape(s, NULL, 0);
	b = realloc(*slot, n + 1);
	if (!b)
		return "?";
	*slot = b;
	mcg_escape(s, b, n + 1);
	return b;
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

void jw_u64(FILE *f, const char *key, uint64_t v)
{
	jw_key(f, key);
	fprintf(f, "%llu", (unsigned long long)v);
}

void jw_i64(FILE *f, const char *key, int64_t v)
{
	jw_key(f, key);
	fprintf(f, "%lld", (long long)v);
}

void jw_double(FILE *f, const char *key, double v)
{
	jw_key(f, key);
	if (isfinite(v))
		fprintf(f, "%.2f", v);
	else
		fputs("null", f);
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

void jw_size(FILE *f, const char *key, uint64_t v, bool valid)
{
	if (!valid)
		jw_null(f, key);
	else if (v == MCG_MAX)
		jw_string(f, key, "max");
	else
		jw_u64(f, key, v);
}

void jw_end(FILE *f)
{
	fputc('\n', f);
	depth = 0;
	need_comma[0] = false;
}

struct table {
	unsigned ncols;
	char **headers;
	enum col_align *align;
	size_t nrows, cap;
	char **cells; /* nrows * ncols */
};

struct table *table_new(unsigned ncols, const char *const *headers, const enum col_align *align)
{
	struct table *t = calloc(1, sizeof(*t));
	unsigned i;

	if (!t)
		return NULL;
	t->ncols = ncols;
	t->headers = calloc(ncols, sizeof(char *));
	t->align = calloc(ncols, sizeof(*t->align));
	if (!t->headers || !t->align) {
		table_free(t);
		return NULL;
	}
	for (i = 0; i < ncols; i++) {
		t->headers[i] = mcg_escape_dup(headers[i]);
		t->align[i] = align ? align[i] : COL_LEFT;
	}
	return t;
}

int table_add(struct table *t, const char *const *cells)
{
	unsigned i;

	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		char **n = realloc(t->cells, ncap * t->ncols * sizeof(char *));

		if (!n)
			return -1;
		t->cells = n;
		t->cap = ncap;
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = cells[i] ? mcg_escape_dup(cells[i]) : strdup("-");
	t->nrows++;
	return 0;
}

void table_print(const struct table *t, FILE *f)
{
	size_t *w = calloc(t->ncols, sizeof(size_t)), r;
	unsigned i;

	if (!w)
		return;
	for (i = 0; i < t->ncols; i++)
		w[i] = strlen(t->headers[i]);
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncols; i++) {
			size_t l = strlen(t->cells[r * t->ncols + i]);

			if (l > w[i])
				w[i] = l;
		}
	for (r = 0; r <= t->nrows; r++) {
		for (i = 0; i < t->ncols; i++) {
			const char *c = r == 0 ? t->headers[i] : t->cells[(r - 1) * t->ncols + i];
			bool last = i + 1 == t->ncols;

			if (t->align[i] == COL_RIGHT)
				fprintf(f, "%*s", (int)w[i], c);
			else if (last)
				fputs(c, f);
			else
				fprintf(f, "%-*s", (int)w[i], c);
			if (!last)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
	free(w);
}

void table_free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	if (t->headers)
		for (i = 0; i < t->ncols; i++)
			free(t->headers[i]);
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->headers);
	free(t->align);
	free(t);
}
