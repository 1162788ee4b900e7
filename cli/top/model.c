/* model.c: the pure part of 'top': cell values and text, sort, filter, tree and selection. */
#include "top/model.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct top_col_desc top_cols[TOP_COL__COUNT] = {
	[TOP_NAME] = {"CGROUP", "name", 24, true, TOP_V1 | TOP_V2, "cgroup name (tree) or path (flat)"},
	[TOP_USAGE] = {"USAGE", "usage", 6, false, TOP_V1 | TOP_V2, "memory charged"},
	[TOP_LIMIT] = {"LIMIT", "limit", 6, false, TOP_V1 | TOP_V2, "hard limit"},
	[TOP_HIGH] = {"HIGH", "high", 6, false, TOP_V2, "memory.high throttle limit"},
	[TOP_PCT] = {"%LIM", "pct", 5, false, TOP_V1 | TOP_V2, "usage in % of the limit"},
	[TOP_ANON] = {"ANON", "anon", 6, false, TOP_V1 | TOP_V2, "anonymous memory"},
	[TOP_FILE] = {"FILE", "file", 6, false, TOP_V1 | TOP_V2, "page cache"},
	[TOP_DIRTY] = {"DIRTY", "dirty", 6, false, TOP_V1 | TOP_V2, "dirty page cache"},
	[TOP_WB] = {"WBACK", "writeback", 6, false, TOP_V1 | TOP_V2, "page cache under writeback"},
	[TOP_RECL] = {"RECL/s", "reclaim", 6, false, TOP_V1 | TOP_V2,
		      "reclaimed bytes/s (v2 pgsteal, v1 pgpgout)"},
	[TOP_DRECL] = {"DRCL/s", "reclaim_direct", 6, false, TOP_V2,
		       "bytes/s reclaimed by direct reclaim (pgsteal_direct)"},
	[TOP_SCAN] = {"SCAN/s", "scan", 6, false, TOP_V2, "scanned bytes/s (pgscan)"},
	[TOP_EFF] = {"EFF%", "efficiency", 4, false, TOP_V2, "pgsteal/pgscan over the interval"},
	[TOP_FALL] = {"FALL/s", "usage_fall", 6, false, TOP_V1, "bytes/s the usage fell"},
	[TOP_RFLT] = {"RFLT/s", "refault", 6, false, TOP_V1 | TOP_V2, "workingset refaults/s"},
	[TOP_EVHIGH] = {"EVHIGH", "events_high", 6, false, TOP_V2, "memory.events high since start"},
	[TOP_EVMAX] = {"EVMAX", "events_max", 6, false, TOP_V2, "memory.events max since start"},
	[TOP_EVOOM] = {"OOM", "events_oom", 4, false, TOP_V2, "memory.events oom since start"},
	[TOP_EVKILL] = {"KILL", "events_oom_kill", 4, false, TOP_V2,
			"memory.events oom_kill since start"},
	[TOP_FAIL] = {"FAIL/s", "failcnt", 6, false, TOP_V1, "memory.failcnt increase/s"},
	[TOP_SOME] = {"SOME", "psi_some", 5, false, TOP_V1 | TOP_V2, "PSI memory some avg10 %"},
	[TOP_FULL] = {"FULL", "psi_full", 5, false, TOP_V1 | TOP_V2, "PSI memory full avg10 %"},
	[TOP_STALL] = {"STALL", "stall", 5, false, TOP_V1 | TOP_V2,
		       "ms/s in direct reclaim (taskstats)"},
	[TOP_ASYNC] = {"ASYNC", "async", 5, false, TOP_V1 | TOP_V2, "async-reclaim on/off"},
};

bool top_col_on(enum top_col c, int version)
{
	return (unsigned)c < TOP_COL__COUNT && (top_cols[c].versions & (version == 2 ? TOP_V2 : TOP_V1));
}

int top_col_find(const char *name)
{
	int c;

	for (c = 0; c < TOP_COL__COUNT; c++)
		if (!strcasecmp(name, top_cols[c].key) || !strcasecmp(name, top_cols[c].header))
			return c;
	return -1;
}

static bool has(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_record_has(&r->rec, c);
}

static bool has_rate(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_sample_rate_has(r, c);
}

static bool amount(const struct mcg_sample_row *r, enum mcg_key c, double *ret)
{
	if (!has(r, c))
		return false;
	*ret = (double)r->rec.v[c];
	return true;
}

static bool rate(const struct mcg_sample_row *r, enum mcg_key c, double scale, double *ret)
{
	if (!has_rate(r, c))
		return false;
	*ret = r->rate[c] * scale;
	return true;
}

bool top_cell_value(const struct mcg_snapshot *s, const struct mcg_sample_row *r, enum top_col c,
		    double *ret)
{
	double ps = (double)s->page_size, a, b;

	switch (c) {
	case TOP_NAME:
		return false;
	case TOP_USAGE:
		return amount(r, MCG_K_USAGE, ret);
	case TOP_LIMIT:
		return amount(r, MCG_K_LIMIT, ret);
	case TOP_HIGH:
		return amount(r, MCG_K_HIGH, ret);
	case TOP_PCT:
		if (!has(r, MCG_K_USAGE) || !has(r, MCG_K_LIMIT) || r->rec.v[MCG_K_LIMIT] == MCG_MAX ||
		    !r->rec.v[MCG_K_LIMIT])
			return false;
		*ret = 100.0 * (double)r->rec.v[MCG_K_USAGE] / (double)r->rec.v[MCG_K_LIMIT];
		return true;
	case TOP_ANON:
		return amount(r, MCG_K_ANON, ret);
	case TOP_FILE:
		return amount(r, MCG_K_FILE, ret);
	case TOP_DIRTY:
		return amount(r, MCG_K_DIRTY, ret);
	case TOP_WB:
		return amount(r, MCG_K_WRITEBACK, ret);
	case TOP_RECL:
		return rate(r, s->version == 2 ? MCG_K_PGSTEAL : MCG_K_PGPGOUT, ps, ret);
	case TOP_DRECL:
		return rate(r, MCG_K_PGSTEAL_DIRECT, ps, ret);
	case TOP_SCAN:
		return rate(r, MCG_K_PGSCAN, ps, ret);
	case TOP_EFF:
		if (!rate(r, MCG_K_PGSTEAL, 1, &a) || !rate(r, MCG_K_PGSCAN, 1, &b) || b <= 0)
			return false;
		*ret = 100.0 * a / b;
		return true;
	case TOP_FALL:
		if (!has_rate(r, MCG_K_USAGE))
			return false;
		*ret = r->rate[MCG_K_USAGE] < 0 ? -r->rate[MCG_K_USAGE] : 0;
		return true;
	case TOP_RFLT:
		return rate(r, MCG_K_REFAULT, 1, ret);
	case TOP_EVHIGH:
	case TOP_EVMAX:
	case TOP_EVOOM:
	case TOP_EVKILL: {
		static const enum mcg_key ev[] = {MCG_K_EV_HIGH, MCG_K_EV_MAX, MCG_K_EV_OOM,
						      MCG_K_EV_OOM_KILL};
		enum mcg_key k = ev[c - TOP_EVHIGH];

		if (!has(r, k))
			return false;
		*ret = (double)r->since[k];
		return true;
	}
	case TOP_FAIL:
		return rate(r, MCG_K_FAILCNT, 1, ret);
	case TOP_SOME:
		*ret = r->rec.psi.some.avg10;
		return r->rec.psi.some_valid;
	case TOP_FULL:
		*ret = r->rec.psi.full.avg10;
		return r->rec.psi.full_valid;
	case TOP_STALL:
		return rate(r, MCG_K_STALL, 1e-6, ret); /* ns/s -> ms/s */
	case TOP_ASYNC:
		if (r->async < 0)
			return false;
		*ret = r->async;
		return true;
	case TOP_COL__COUNT:
		break;
	}
	return false;
}

/* S into BUF of LEN, cut if need be (snprintf("%s") without its cost) */
static void put(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
}

/*
 * "%.0f" of V followed by SUFFIX (0: none), as snprintf() would print it but
 * without its floating-point formatting, which was a tenth of top -b's CPU at
 * 1000 cgroups: llrint() rounds the exact value to nearest, ties to even, as
 * printf does.
 */
static void fmt_int(double v, char suffix, char *buf, size_t len)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	unsigned long long u;
	long long n;
	bool neg;

	if (!(v > -9e18 && v < 9e18)) { /* NaN, or beyond long long */
		snprintf(buf, len, suffix ? "%.0f%c" : "%.0f", v, suffix);
		return;
	}
	n = llrint(v);
	neg = n < 0 || (n == 0 && signbit(v)); /* printf says "-0" of -0.4 */
	u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
	*--p = 0;
	if (suffix)
		*--p = suffix;
	p = mcg__u64_digits(u, 0, p);
	if (neg)
		*--p = '-';
	put(buf, len, p);
}

void top_fmt_size(double v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	if (v < 0)
		v = 0;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		fmt_int(v, 0, buf, len);
	else if (v < 10 && v != (double)(long)v)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		fmt_int(v, units[u], buf, len);
}

void top_cell_format(const struct mcg_snapshot *s, const struct mcg_sample_row *r, enum top_col c,
		     bool raw, char *buf, size_t len)
{
	double v;

	if (c == TOP_NAME) {
		put(buf, len, r->path);
		return;
	}
	if (!top_cell_value(s, r, c, &v)) {
		put(buf, len, "-");
		return;
	}
	switch (c) {
	case TOP_USAGE:
	case TOP_LIMIT:
	case TOP_HIGH:
	case TOP_ANON:
	case TOP_FILE:
	case TOP_DIRTY:
	case TOP_WB:
		if (v >= (double)MCG_MAX)
			put(buf, len, "max");
		else if (raw)
			fmt_int(v, 0, buf, len);
		else
			top_fmt_size(v, buf, len);
		break;
	case TOP_RECL:
	case TOP_DRECL:
	case TOP_SCAN:
	case TOP_FALL:
		if (raw)
			fmt_int(v, 0, buf, len);
		else
			top_fmt_size(v, buf, len);
		break;
	case TOP_PCT:
	case TOP_EFF:
		fmt_int(v, 0, buf, len);
		break;
	case TOP_SOME:
	case TOP_FULL:
	case TOP_STALL:
		snprintf(buf, len, "%.1f", v);
		break;
	case TOP_ASYNC:
		put(buf, len, v ? "on" : "off");
		break;
	default:
		fmt_int(v, 0, buf, len);
		break;
	}
}

void top_model_init(struct top_model *m)
{
	memset(m, 0, sizeof(*m));
	m->sort = TOP_NAME;
}

bool top_model_is_collapsed(const struct top_model *m, uint64_t id)
{
	size_t i;

	for (i = 0; i < m->ncollapsed; i++)
		if (m->collapsed[i] == id)
			return true;
	return false;
}

void top_model_toggle_collapse(struct top_model *m, uint64_t id)
{
	size_t i;

	for (i = 0; i < m->ncollapsed; i++) {
		if (m->collapsed[i] == id) {
			m->collapsed[i] = m->collapsed[--m->ncollapsed];
			return;
		}
	}
	if (m->ncollapsed < TOP_MAX_COLLAPSED)
		m->collapsed[m->ncollapsed++] = id;
}

struct sort_ctx {
	const struct top_model *m;
	const struct mcg_snapshot *s;
};

/* Largest first for numbers (absent last), names a to z; reverse flips both. Ties by path. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct mcg_sample_row *x = &c->s->rows[*(const int *)a];
	const struct mcg_sample_row *y = &c->s->rows[*(const int *)b];
	int r = 0;

	if (c->m->sort == TOP_NAME) {
		r = strcmp(c->m->flat ? x->path : x->name, c->m->flat ? y->path : y->name);
	} else {
		double vx, vy;
		bool hx = top_cell_value(c->s, x, c->m->sort, &vx);
		bool hy = top_cell_value(c->s, y, c->m->sort, &vy);

		if (hx != hy)
			return hx ? -1 : 1; /* absent values stay at the end either way */
		if (hx && vx != vy)
			r = vx > vy ? -1 : 1;
	}
	if (c->m->reverse)
		r = -r;
	return r ? r : strcmp(x->path, y->path);
}

static bool matches(const struct top_model *m, const struct mcg_sample_row *r)
{
	return !m->filter[0] || strcasestr(r->path, m->filter);
}

static void emit(const struct top_model *m, const struct mcg_snapshot *s, int idx, int **kids,
		 const size_t *nkids, const bool *keep, int *out, size_t *n)
{
	size_t i;

	if (!keep[idx])
		return;
	out[(*n)++] = idx;
	if (top_model_is_collapsed(m, s->rows[idx].id))
		return;
	for (i = 0; i < nkids[idx]; i++)
		emit(m, s, kids[idx][i], kids, nkids, keep, out, n);
}

size_t top_model_rows(const struct top_model *m, const struct mcg_snapshot *s, int *out)
{
	struct sort_ctx sc = {m, s};
	size_t n = 0, i, nr = s->n_rows;
	int **kids = NULL, *pool = NULL;
	size_t *nkids = NULL;
	bool *keep = NULL;

	if (!nr)
		return 0;
	if (m->flat) {
		for (i = 0; i < nr; i++)
			if (matches(m, &s->rows[i]))
				out[n++] = (int)i;
		qsort_r(out, n, sizeof(*out), cmp_rows, &sc);
		return n;
	}
	kids = calloc(nr, sizeof(*kids));
	nkids = calloc(nr, sizeof(*nkids));
	keep = calloc(nr, sizeof(*keep));
	pool = malloc(nr * sizeof(*pool));
	if (!kids || !nkids || !keep || !pool)
		goto out;
	/* children lists in one pool: rows are in pre-order, so counts first */
	for (i = 0; i < nr; i++)
		if (s->rows[i].parent >= 0)
			nkids[s->rows[i].parent]++;
	{
		size_t off = 0;

		for (i = 0; i < nr; i++) {
			kids[i] = pool + off;
			off += nkids[i];
			nkids[i] = 0;
		}
	}
	for (i = 0; i < nr; i++) {
		int p = s->rows[i].parent;

		if (p >= 0)
			kids[p][nkids[p]++] = (int)i;
	}
	for (i = 0; i < nr; i++)
		if (nkids[i] > 1)
			qsort_r(kids[i], nkids[i], sizeof(int), cmp_rows, &sc);
	/* a match keeps its ancestors, so the tree still reads */
	for (i = nr; i-- > 0;) {
		if (matches(m, &s->rows[i]))
			keep[i] = true;
		if (keep[i] && s->rows[i].parent >= 0)
			keep[s->rows[i].parent] = true;
	}
	for (i = 0; i < nr; i++)
		if (s->rows[i].parent < 0)
			emit(m, s, (int)i, kids, nkids, keep, out, &n);
out:
	free(kids);
	free(nkids);
	free(keep);
	free(pool);
	return n;
}

size_t top_model_selected_pos(const struct top_model *m, const struct mcg_snapshot *s,
			      const int *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s->rows[rows[i]].id == m->selected)
			return i;
	return 0;
}

void top_model_move(struct top_model *m, const struct mcg_snapshot *s, const int *rows, size_t n,
		    long delta)
{
	long pos;

	if (!n)
		return;
	pos = (long)top_model_selected_pos(m, s, rows, n) + delta;
	if (pos < 0)
		pos = 0;
	if (pos >= (long)n)
		pos = (long)n - 1;
	m->selected = s->rows[rows[pos]].id;
}

void top_model_sort_next(struct top_model *m, int version, int dir)
{
	int c = (int)m->sort, i;

	for (i = 0; i < TOP_COL__COUNT; i++) {
		c = (c + dir + TOP_COL__COUNT) % TOP_COL__COUNT;
		if (top_col_on(c, version))
			break;
	}
	m->sort = c;
}
