/* openmetrics.c: label value escaping for the Prometheus/OpenMetrics text exposition format. */
#include "model/model.h"

#include <memcg/openmetrics.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t mcg_om_escape(const char *s, char *buf, size_t len)
{
	size_t need = 0, out = 0;
	bool full = !len;

	for (; *s; s++) {
		const char *e;
		char one[2] = {*s, '\0'};
		size_t n;

		switch (*s) {
		case '\\':
			e = "\\\\";
			break;
		case '"':
			e = "\\\"";
			break;
		case '\n':
			e = "\\n";
			break;
		default:
			e = one;
			break;
		}
		n = strlen(e);
		need += n;
		if (!full && out + n < len) {
			memcpy(buf + out, e, n);
			out += n;
		} else {
			full = true; /* stop writing (never half an escape), keep counting */
		}
	}
	if (len)
		buf[out] = '\0';
	return need;
}

char *mcg_om_label_dup(const char *path)
{
	char *esc, *ret;
	size_t n;

	esc = mcg_escape_dup(path);
	if (!esc)
		return NULL;
	n = mcg_om_escape(esc, NULL, 0);
	ret = malloc(n + 1);
	if (ret)
		mcg_om_escape(esc, ret, n + 1);
	free(esc);
	return ret;
}

char *mcg_om_cgroup_labels(const char *path, bool unit)
{
	char *value, *ret, name[256];
	size_t n, m = 0;
	int u = 0;

	value = mcg_om_label_dup(path);
	if (!value)
		return NULL;
	if (unit)
		u = mcg_unit_from_path(path, name, sizeof(name));
	n = strlen(value) + sizeof("cgroup=\"\"");
	if (u > 0) {
		/* unit names are ASCII (mcg_unit_name_valid); \x2d escapes keep their backslash */
		m = mcg_om_escape(name, NULL, 0);
		n += sizeof(",unit=\"\"") - 1 + m;
	}
	ret = malloc(n);
	if (ret) {
		int w = snprintf(ret, n, "cgroup=\"%s\"", value);

		if (u > 0 && w > 0 && (size_t)w < n) {
			memcpy(ret + w, ",unit=\"", 7);
			mcg_om_escape(name, ret + w + 7, m + 1);
			memcpy(ret + w + 7 + m, "\"", 2);
		}
	}
	free(value);
	return ret;
}

void mcg_om_metric_name(enum mcg_key k, char *buf, size_t len)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);
	const char *unit = "";

	switch (d->unit) {
	case MCG_UNIT_BYTES:
		unit = "_bytes";
		break;
	case MCG_UNIT_PAGES:
		unit = "_pages";
		break;
	case MCG_UNIT_US:
	case MCG_UNIT_NS:
		unit = "_seconds";
		break;
	case MCG_UNIT_EVENTS:
	case MCG_UNIT_NUMBER:
		break;
	}
	snprintf(buf, len, "memcgctl_%s%s%s", d->name, unit,
		 d->kind == MCG_KIND_COUNTER ? "_total" : "");
}

int mcg_om_route(const char *method, const char *url)
{
	if (!method || !url)
		return MCG_OM_NOT_FOUND;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MCG_OM_BAD_METHOD;
	if (!strcmp(url, "/"))
		return MCG_OM_INDEX;
	if (!strcmp(url, "/metrics"))
		return MCG_OM_METRICS;
	return MCG_OM_NOT_FOUND;
}

/* N hex digits at *P (exactly N, then a non-hex byte or END), advancing *P. */
static bool hex_field(const char **p, const char *end, unsigned n, uint32_t *v)
{
	uint32_t x = 0;
	unsigned i;

	for (i = 0; i < n; i++, (*p)++) {
		int c = *p < end ? (unsigned char)**p : -1, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return false;
		x = x << 4 | (uint32_t)d;
	}
	*v = x;
	return true;
}

/* ADDR:PORT as the kernel prints it (tcp4_seq_show, tcp6_seq_show): WORDS 32-bit words. */
static bool tcp_endpoint(const char **p, const char *end, unsigned words, uint32_t *addr,
			 uint32_t *port)
{
	unsigned i;

	for (i = 0; i < words; i++)
		if (!hex_field(p, end, 8, &addr[i]))
			return false;
	if (*p >= end || **p != ':')
		return false;
	(*p)++;
	return hex_field(p, end, 4, port) && (*p >= end || **p == ' ');
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && **p == ' ')
		(*p)++;
}

/* the next space-separated field: its start, *P past it */
static const char *next_field(const char **p, const char *end)
{
	const char *s;

	skip_spaces(p, end);
	s = *p;
	while (*p < end && **p != ' ' && **p != '\n')
		(*p)++;
	return s;
}

int mcg_om_tcp_owner(const char *text, size_t len, const struct mcg_om_tcp_end *local,
		     const struct mcg_om_tcp_end *remote, uint32_t *uid)
{
	const char *p = text, *end = text + len;
	unsigned words = local->v6 ? 4 : 1, i;

	if (local->v6 != remote->v6)
		return -EINVAL;
	/* the first line is the header */
	while (p < end && *p != '\n')
		p++;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		uint32_t la[4], lp, ra[4], rp, u = 0;
		bool match = true;
		unsigned digits = 0;

		p++; /* the newline before the line */
		if (!eol)
			eol = end;
		if (p >= eol)
			continue;
		next_field(&p, eol); /* "sl:" */
		skip_spaces(&p, eol);
		if (!tcp_endpoint(&p, eol, words, la, &lp))
			goto next;
		skip_spaces(&p, eol);
		if (!tcp_endpoint(&p, eol, words, ra, &rp))
			goto next;
		for (i = 0; i < words; i++)
			match = match && la[i] == local->addr[i] && ra[i] == remote->addr[i];
		if (!match || lp != local->port || rp != remote->port)
			goto next;
		/* st, tx_queue:rx_queue, tr:tm->when, retrnsmt, then the uid */
		for (i = 0; i < 4; i++)
			next_field(&p, eol);
		skip_spaces(&p, eol);
		for (; p < eol && *p >= '0' && *p <= '9'; p++) {
			if (u > (UINT32_MAX - 9) / 10)
				return -EINVAL;
			u = u * 10 + (uint32_t)(*p - '0');
			digits++;
		}
		if (!digits || (p < eol && *p != ' '))
			return -EINVAL;
		*uid = u;
		return 0;
	next:
		p = eol;
	}
	return -ENOENT;
}

/* ---- content negotiation (export --listen): Accept and Accept-Encoding ---- */

static bool ows(char c)
{
	return c == ' ' || c == '\t';
}

/* [S, E) without the optional white space around it */
static void trim(const char **s, const char **e)
{
	while (*s < *e && ows(**s))
		(*s)++;
	while (*e > *s && ows((*e)[-1]))
		(*e)--;
}

static bool token_is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - s) == n && !strncasecmp(s, word, n);
}

/*
 * An RFC 9110 qvalue ("0", "0.5", "1.000") in thousandths, or -1 when it is
 * not one: such an element counts for nothing.
 */
static int qvalue(const char *s, const char *e)
{
	int q, i, scale = 100;

	if (s < e && *s == '"' && e - s >= 2 && e[-1] == '"') /* lenient: a quoted one */
		s++, e--;
	if (s >= e || (*s != '0' && *s != '1'))
		return -1;
	q = (*s - '0') * 1000;
	s++;
	if (s == e)
		return q;
	if (*s != '.')
		return -1;
	for (s++, i = 0; s < e; s++, i++, scale /= 10) {
		if (i == 3 || *s < '0' || *s > '9')
			return -1;
		q += (*s - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

/*
 * One element of a comma-separated header, [S, E): its first part (the media
 * range or the coding) in [*VS, *VE), its q (1000 unless given; -1 when
 * malformed) and, when VERSION is not NULL, whether a version parameter is
 * given and equal to VERSION (*VER_OK: absent or equal).
 */
static int element(const char *s, const char *e, const char **vs, const char **ve,
		   const char *version, bool *ver_ok)
{
	const char *semi = memchr(s, ';', (size_t)(e - s));
	int q = 1000;

	*vs = s;
	*ve = semi ? semi : e;
	trim(vs, ve);
	if (ver_ok)
		*ver_ok = true;
	while (semi) {
		const char *ps = semi + 1, *pe, *eq;

		semi = memchr(ps, ';', (size_t)(e - ps));
		pe = semi ? semi : e;
		eq = memchr(ps, '=', (size_t)(pe - ps));
		if (!eq)
			continue;
		{
			const char *ns = ps, *ne = eq, *xs = eq + 1, *xe = pe;

			trim(&ns, &ne);
			trim(&xs, &xe);
			if (token_is(ns, ne, "q")) {
				q = qvalue(xs, xe);
			} else if (version && token_is(ns, ne, "version")) {
				if (xe - xs >= 2 && *xs == '"' && xe[-1] == '"')
					xs++, xe--;
				*ver_ok = (size_t)(xe - xs) == strlen(version) &&
					  !strncmp(xs, version, (size_t)(xe - xs));
			}
		}
	}
	return q;
}

unsigned mcg_om_negotiate(const char *accept, const char *accept_encoding)
{
	int om = 0, text = 0, gzip = -1, star = 0;
	unsigned want = 0;
	const char *p, *end, *comma;

	for (p = accept; p && *p; p = comma ? comma + 1 : end) {
		const char *vs, *ve;
		bool ver;
		int q;

		end = p + strlen(p);
		comma = memchr(p, ',', (size_t)(end - p));
		q = element(p, comma ? comma : end, &vs, &ve, NULL, NULL);
		if (token_is(vs, ve, "application/openmetrics-text")) {
			element(p, comma ? comma : end, &vs, &ve, MCG_OM_OPENMETRICS_VERSION, &ver);
			if (ver && q > om)
				om = q;
		} else if (token_is(vs, ve, "text/plain")) {
			element(p, comma ? comma : end, &vs, &ve, "0.0.4", &ver);
			if (ver && q > text)
				text = q;
		} else if (token_is(vs, ve, "text/*") || token_is(vs, ve, "*/*")) {
			if (q > text)
				text = q;
		}
	}
	/* OpenMetrics only when preferred: on a tie the text format, which every client reads */
	if (om > 0 && om > text)
		want |= MCG_OM_WANT_OPENMETRICS;
	for (p = accept_encoding; p && *p; p = comma ? comma + 1 : end) {
		const char *vs, *ve;
		int q;

		end = p + strlen(p);
		comma = memchr(p, ',', (size_t)(end - p));
		q = element(p, comma ? comma : end, &vs, &ve, NULL, NULL);
		if (token_is(vs, ve, "gzip") || token_is(vs, ve, "x-gzip")) {
			if (q > gzip)
				gzip = q;
		} else if (token_is(vs, ve, "*")) {
			if (q > star)
				star = q;
		}
	}
	if (gzip > 0 || (gzip < 0 && star > 0))
		want |= MCG_OM_WANT_GZIP;
	return want;
}

/* ---- the OpenMetrics 1.0.0 text from the 0.0.4 text memcgctl renders ---- */

struct om_out {
	char *p;
	size_t n, cap;
	bool oom;
};

static void om_put(struct om_out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *np;

		while (cap < o->n + n)
			cap *= 2;
		np = realloc(o->p, cap);
		if (!np) {
			o->oom = true;
			return;
		}
		o->p = np;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void om_puts(struct om_out *o, const char *s)
{
	om_put(o, s, strlen(s));
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

/* "# WORD NAME REST": NAME and REST of line [S, E), or false */
static bool meta_line(const char *s, const char *e, const char *word, const char **name,
		      size_t *name_len, const char **rest)
{
	size_t w = strlen(word);
	const char *n;

	if ((size_t)(e - s) < 3 + w || memcmp(s, "# ", 2) || memcmp(s + 2, word, w) ||
	    s[2 + w] != ' ')
		return false;
	n = s + 3 + w;
	*name = n;
	while (n < e && *n != ' ')
		n++;
	*name_len = (size_t)(n - *name);
	*rest = n < e ? n + 1 : e;
	return *name_len > 0;
}

/* HELP text: 0.0.4 escapes \\ and \n; OpenMetrics also \" */
static void om_help_text(struct om_out *o, const char *s, const char *e)
{
	const char *run = s;

	for (; s < e; s++) {
		if (*s == '\\' && s + 1 < e) {
			s++;
			continue;
		}
		if (*s == '"' || *s == '\\') {
			om_put(o, run, (size_t)(s - run));
			om_puts(o, *s == '"' ? "\\\"" : "\\\\");
			run = s + 1;
		}
	}
	om_put(o, run, (size_t)(e - run));
}

static void om_family(struct om_out *o, const char *help, const char *help_end, const char *name,
		      size_t nl, const char *type, const char *type_end)
{
	bool counter = token_is(type, type_end, "counter");
	size_t fl = nl;
	const char *unit = NULL;

	if (counter) {
		if (has_suffix(name, nl, "_total"))
			fl = nl - 6;
		else
{
			/* no _total: not a counter OpenMetrics knows by its samples */
			type = "unknown";
			type_end = type + 7;
		}
	}
	if (has_suffix(name, fl, "_bytes"))
		unit = "bytes";
	else if (has_suffix(name, fl, "_seconds"))
		unit = "seconds";
	if (help) {
		om_puts(o, "# HELP ");
		om_put(o, name, fl);
		om_put(o, " ", 1);
		om_help_text(o, help, help_end);
		om_put(o, "\n", 1);
	}
	om_puts(o, "# TYPE ");
	om_put(o, name, fl);
	om_put(o, " ", 1);
	om_put(o, type, (size_t)(type_end - type));
	om_put(o, "\n", 1);
	if (unit) {
		om_puts(o, "# UNIT ");
		om_put(o, name, fl);
		om_put(o, " ", 1);
		om_puts(o, unit);
		om_put(o, "\n", 1);
	}
}

int mcg_om_to_openmetrics(const char *text, size_t len, char **ret, size_t *retlen)
{
	struct om_out o = {0};
	const char *p = text, *end = text + len;
	const char *help = NULL, *help_end = NULL, *hname = NULL;
	size_t hnl = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *name, *rest;
		size_t nl;

		if (!eol)
			eol = end;
		if (meta_line(p, eol, "TYPE", &name, &nl, &rest)) {
			bool same = help && hnl == nl && !memcmp(hname, name, nl);

			if (help && !same) /* a HELP of another family: its own, untyped */
				{
				static const char unknown[] = "unknown";

				om_family(&o, help, help_end, hname, hnl, unknown,
					  unknown + sizeof(unknown) - 1);
			}
			om_family(&o, same ? help : NULL, help_end, name, nl, rest, eol);
			help = NULL;
		} else {
			if (help) { /* a HELP no TYPE follows */
				om_put(&o, "# HELP ", 7);
				om_put(&o, hname, hnl);
				om_put(&o, " ", 1);
				om_help_text(&o, help, help_end);
				om_put(&o, "\n", 1);
				help = NULL;
			}
			if (meta_line(p, eol, "HELP", &name, &nl, &rest)) {
				help = rest;
				help_end = eol;
				hname = name;
				hnl = nl;
			} else if (p < eol && *p != '#') {
				/* a sample: the same in both formats (names, labels, values) */
				om_put(&o, p, (size_t)(eol - p));
				om_put(&o, "\n", 1);
			}
			/* other comments and empty lines: OpenMetrics has none */
		}
		p = eol + 1;
	}
	if (help) {
		om_put(&o, "# HELP ", 7);
		om_put(&o, hname, hnl);
		om_put(&o, " ", 1);
		om_help_text(&o, help, help_end);
		om_put(&o, "\n", 1);
	}
	om_puts(&o, "# EOF\n");
	if (o.oom) {
		free(o.p);
		return -ENOMEM;
	}
	*ret = o.p;
	*retlen = o.n;
	return 0;
}
