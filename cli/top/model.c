/* model.c: the pure part of 'top': cell values and text, sort, filter, tree and selection. */
#include "top/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Headers and JSON keys: the names table (mcg_value_names, memcg/fields.h), by each column's id. */
const struct top_col_desc top_cols[TOP_COL__COUNT] = {
	[TOP_NAME] = {TOP_NAME_ID, "name", 24, true, TOP_V1 | TOP_V2, "cgroup name (tree) or path (flat)"},
	[TOP_USAGE] = {MCG_K_USAGE, "usage", 6, false, TOP_V1 | TOP_V2, "memory charged", true,
		       MCG_K_USAGE},
	[TOP_LIMIT] = {MCG_K_LIMIT, "limit", 6, false, TOP_V1 | TOP_V2, "hard limit", true,
		       MCG_K_LIMIT},
	[TOP_HIGH] = {MCG_K_HIGH, "high", 6, false, TOP_V2, "memory.high throttle limit", true,
		      MCG_K_HIGH},
	[TOP_PCT] = {MCG_F_USAGE_PERCENT, "pct", 5, false, TOP_V1 | TOP_V2,
		     "usage in % of the limit"},
	[TOP_ANON] = {MCG_K_ANON, "anon", 6, false, TOP_V1 | TOP_V2, "anonymous memory", true,
		      MCG_K_ANON},
	[TOP_FILE] = {MCG_K_FILE, "file", 6, false, TOP_V1 | TOP_V2, "page cache", true, MCG_K_FILE},
	[TOP_DIRTY] = {MCG_K_DIRTY, "dirty", 6, false, TOP_V1 | TOP_V2, "dirty page cache", true,
		       MCG_K_DIRTY},
	[TOP_WB] = {MCG_K_WRITEBACK, "writeback", 6, false, TOP_V1 | TOP_V2,
		    "page cache under writeback", true, MCG_K_WRITEBACK},
	[TOP_RECL] = {MCG_F_RECLAIM_RATE, "reclaim", 6, false, TOP_V1 | TOP_V2,
		      "reclaimed bytes/s (v2 pgsteal, v1 pgpgout)"},
	[TOP_DRECL] = {MCG_F_RECLAIM_DIRECT_RATE, "reclaim_direct", 6, false, TOP_V2,
		       "bytes/s reclaimed by direct reclaim (pgsteal_direct)"},
	[TOP_SCAN] = {MCG_F_SCAN_RATE, "scan", 6, false, TOP_V2, "scanned bytes/s (pgscan)"},
	[TOP_EFF] = {MCG_F_EFFICIENCY, "efficiency", 4, false, TOP_V2,
		     "pgsteal/pgscan over the interval"},
	[TOP_FALL] = {MCG_F_USAGE_FALL_RATE, "usage_fall", 6, false, TOP_V1,
		      "bytes/s the usage fell"},
	[TOP_RFLT] = {MCG_F_REFAULT_RATE, "refault", 6, false, TOP_V1 | TOP_V2,
		      "workingset refaults/s"},
	[TOP_EVHIGH] = {MCG_F_EVENTS_HIGH_SINCE, "events_high", 6, false, TOP_V2,
			"memory.events high since start"},
	[TOP_EVMAX] = {MCG_F_EVENTS_MAX_SINCE, "events_max", 6, false, TOP_V2,
		       "memory.events max since start"},
	[TOP_EVOOM] = {MCG_F_EVENTS_OOM_SINCE, "events_oom", 4, false, TOP_V2,
		       "memory.events oom since start"},
	[TOP_EVKILL] = {MCG_F_EVENTS_OOM_KILL_SINCE, "events_oom_kill", 4, false, TOP_V2,
			"memory.events oom_kill since start"},
	[TOP_FAIL] = {MCG_F_FAILCNT_RATE, "failcnt", 6, false, TOP_V1,
		      "memory.failcnt increase/s"},
	[TOP_SOME] = {MCG_F_PSI_SOME_AVG10, "psi_some", 5, false, TOP_V1 | TOP_V2,
		      "PSI memory some avg10 %"},
	[TOP_FULL] = {MCG_F_PSI_FULL_AVG10, "psi_full", 5, false, TOP_V1 | TOP_V2,
		      "PSI memory full avg10 %"},
	[TOP_STALL] = {MCG_F_STALL_RATE, "stall", 5, false, TOP_V1 | TOP_V2,
		       "ms/s in direct reclaim (taskstats)"},
	[TOP_ASYNC] = {MCG_F_ASYNC, "async", 5, false, TOP_V1 | TOP_V2, "async-reclaim on/off"},
};

const char *top_col_header(enum top_col c)
{
	if ((unsigned)c >= TOP_COL__COUNT)
		return "";
	return top_cols[c].name == TOP_NAME_ID ? "CGROUP" : mcg_header(top_cols[c].name);
}

const char *top_col_json(enum top_col c)
{
	if ((unsigned)c >= TOP_COL__COUNT)
		return "";
	return top_cols[c].name == TOP_NAME_ID ? "cgroup" : mcg_json_key(top_cols[c].name);
}

bool top_col_on(enum top_col c, int version)
{
	return (unsigned)c < TOP_COL__COUNT && (top_cols[c].versions & (version == 2 ? TOP_V2 : TOP_V1));
}

int top_col_find(const char *name)
{
	int c;

	for (c = 0; c < TOP_COL__COUNT; c++)
		if (!strcasecmp(name, top_cols[c].key) || !strcasecmp(name, top_col_header(c)) ||
		    !strcasecmp(name, top_col_json(c)))
			return c;
	return -1;
}

static bool has(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_sample_has(r, c);
}

static bool has_rate(const struct mcg_sample_row *r, enum mcg_key c)
{
	return mcg_sample_rate_has(r, c);
}

static bool amount(const struct mcg_sample_row *r, enum mcg_key c, double *ret)
{
	if (!has(r, c))
		return false;
	*ret = (double)mcg_sample_get(r, c, 0);
	return true;
}

static bool rate(const struct mcg_sample_row *r, enum mcg_key c, double scale, double *ret)
{
	if (!has_rate(r, c))
		return false;
	*ret = mcg_sample_rate(r, c) * scale;
	return true;
}

bool top_cell_value(const struct mcg_snapshot *s, const struct mcg_sample_row *r, enum top_col c,
		    double *ret)
{
	double ps = (double)s->page_size, a, b;

	if ((unsigned)c < TOP_COL__COUNT && top_cols[c].amount)
		return amount(r, top_cols[c].counter, ret);
	switch (c) {
	case TOP_NAME:
		return false;
	case TOP_PCT: {
		/* the two counters it reads, not a whole record a cell */
		struct mcg_record u;

		memset(&u.valid, 0, sizeof(u.valid));
		if (mcg_sample_has(r, MCG_K_USAGE))
			mcg_record_set(&u, MCG_K_USAGE, mcg_sample_get(r, MCG_K_USAGE, 0));
		if (mcg_sample_has(r, MCG_K_LIMIT))
			mcg_record_set(&u, MCG_K_LIMIT, mcg_sample_get(r, MCG_K_LIMIT, 0));
		return mcg_field_usage_percent(&u, ret);
	}
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
		*ret = mcg_sample_rate(r, MCG_K_USAGE) < 0 ? -mcg_sample_rate(r, MCG_K_USAGE) : 0;
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
		*ret = (double)mcg_sample_since(r, k);
		return true;
	}
	case TOP_FAIL:
		return rate(r, MCG_K_FAILCNT, 1, ret);
	case TOP_SOME:
		*ret = mcg_sample_psi(r)->some.avg10;
		return mcg_sample_psi(r)->some_valid;
	case TOP_FULL:
		*ret = mcg_sample_psi(r)->full.avg10;
		return mcg_sample_psi(r)->full_valid;
	case TOP_STALL:
		return rate(r, MCG_K_STALL, 1e-6, ret); /* ns/s -> ms/s */
	case TOP_ASYNC:
		if (r->async < 0)
			return false;
		*ret = r->async;
		return true;
	default: /* the amounts (top_cols[].counter, above) */
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
	p = mcg_u64_digits(u, 0, p);
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
	if (top_cols[c].amount) {
		if (v >= (double)MCG_MAX)
			put(buf, len, "max");
		else if (raw)
			fmt_int(v, 0, buf, len);
		else
			top_fmt_size(v, buf, len);
		return;
	}
	switch (c) {
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

/* ---- the usage trend (a sparkline after USAGE) ---- */

/* a row's session graph (top_graph_format): points oldest first, NAN where absent */
struct graph {
	unsigned n, per, acc; /* points kept, samples per point, samples in the last one */
	uint64_t samples;
	uint64_t first_ns, last_ns;
	float usage[TOP_GRAPH_N], limit[TOP_GRAPH_N], high[TOP_GRAPH_N];
	float recl[TOP_GRAPH_N]; /* RECL/s, the most of the point's samples */
};

struct trend_row {
	uint64_t id;
	unsigned n;		/* values kept, at most TOP_TREND_N */
	double v[TOP_TREND_N];	/* oldest first; NAN: no usage in that sample */
	struct graph *g;	/* moved from snapshot to snapshot, never copied */
	bool kept;		/* (the old rows, during a push) moved to the new */
};

struct top_trend {
	struct trend_row *rows; /* sorted by id */
	size_t n;
};

static int trend_cmp(const void *a, const void *b)
{
	const struct trend_row *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct trend_row *trend_find(const struct top_trend *t, uint64_t id)
{
	struct trend_row key = {.id = id};

	return t && t->n ? bsearch(&key, t->rows, t->n, sizeof(*t->rows), trend_cmp) : NULL;
}

static float value_or_nan(const struct mcg_sample_row *r, enum mcg_key k)
{
	return has(r, k) ? (float)mcg_sample_get(r, k, 0) : NAN;
}

/* the most of two usages (NAN: absent) */
static float fmax_nan(float a, float b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

static void graph_push(struct graph *g, const struct mcg_snapshot *s, const struct mcg_sample_row *r)
{
	float u = value_or_nan(r, MCG_K_USAGE), l = value_or_nan(r, MCG_K_LIMIT);
	float h = value_or_nan(r, MCG_K_HIGH), rc = NAN;
	double v;
	unsigned i;

	if (top_cell_value(s, r, TOP_RECL, &v))
		rc = (float)v;
	if (!g->samples)
		g->first_ns = s->mono_ns;
	g->last_ns = s->mono_ns;
	g->samples++;
	if (!g->per)
		g->per = 1;
	if (g->n && g->acc < g->per) {
		/* the last point covers this sample too */
		g->usage[g->n - 1] = fmax_nan(g->usage[g->n - 1], u);
		g->recl[g->n - 1] = fmax_nan(g->recl[g->n - 1], rc);
		g->limit[g->n - 1] = l;
		g->high[g->n - 1] = h;
		g->acc++;
		return;
	}
	if (g->n == TOP_GRAPH_N) {
		/* full: pairs merge, each point twice as long */
		for (i = 0; i < TOP_GRAPH_N / 2; i++) {
			g->usage[i] = fmax_nan(g->usage[2 * i], g->usage[2 * i + 1]);
			g->recl[i] = fmax_nan(g->recl[2 * i], g->recl[2 * i + 1]);
			g->limit[i] = g->limit[2 * i + 1];
			g->high[i] = g->high[2 * i + 1];
		}
		g->n = TOP_GRAPH_N / 2;
		g->per *= 2;
	}
	g->usage[g->n] = u;
	g->recl[g->n] = rc;
	g->limit[g->n] = l;
	g->high[g->n] = h;
	g->n++;
	g->acc = 1;
}

int top_trend_push(struct top_trend **tp, const struct mcg_snapshot *s)
{
	struct top_trend *t = *tp;
	struct trend_row *nr;
	size_t i;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		*tp = t;
	}
	nr = calloc(s->n_rows ? s->n_rows : 1, sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		t->rows[i].kept = false;
	for (i = 0; i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];
		struct trend_row *old = trend_find(t, r->id);
		struct trend_row *w = &nr[i];

		if (old && !old->kept) {
			*w = *old;
			old->kept = true;
		}
		w->id = r->id;
		if (!w->g)
			w->g = calloc(1, sizeof(*w->g)); /* out of memory: no graph for it */
		if (w->g)
			graph_push(w->g, s, r);
		if (w->n == TOP_TREND_N) {
			memmove(w->v, w->v + 1, (TOP_TREND_N - 1) * sizeof(w->v[0]));
			w->n--;
		}
		w->v[w->n++] = has(r, MCG_K_USAGE) ? (double)mcg_sample_get(r, MCG_K_USAGE, 0) : NAN;
	}
	qsort(nr, s->n_rows, sizeof(*nr), trend_cmp);
	for (i = 0; i < t->n; i++)
		if (!t->rows[i].kept)
			free(t->rows[i].g); /* a cgroup gone */
	free(t->rows);
	t->rows = nr;
	t->n = s->n_rows;
	return 0;
}

void top_trend_free(struct top_trend *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->rows[i].g);
	free(t->rows);
	free(t);
}

void top_trend_format(const struct top_trend *t, uint64_t id, bool utf8, char *buf, size_t len)
{
	static const char *const blocks[8] = {
		"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[8] = {'_', '.', ',', '-', '=', '+', '*', '#'};
	const struct trend_row *r = trend_find(t, id);
	double lo = INFINITY, hi = -INFINITY;
	size_t o = 0;
	unsigned i, pad = r ? TOP_TREND_N - r->n : TOP_TREND_N;

	if (!len)
		return;
	for (i = 0; r && i < r->n; i++)
		if (!isnan(r->v[i])) {
			lo = r->v[i] < lo ? r->v[i] : lo;
			hi = r->v[i] > hi ? r->v[i] : hi;
		}
	for (i = 0; i < TOP_TREND_N; i++) {
		double v = i < pad ? NAN : r->v[i - pad];
		int lvl = 3; /* flat: the middle */
		const char *c;
		char one[2] = {0};
		size_t l;

		if (!isnan(v) && hi - lo > hi / 64)
			lvl = (int)((v - lo) / (hi - lo) * 7 + 0.5);
		if (isnan(v)) {
			c = " ";
		} else if (utf8) {
			c = blocks[lvl];
		} else {
			one[0] = ascii[lvl];
			c = one;
		}
		l = strlen(c);
		if (o + l >= len)
			break;
		memcpy(buf + o, c, l);
		o += l;
	}
	buf[o] = '\0';
}

/* a limit or high that is set: "max" (and v1's 2^63 - 4096) is none */
static bool set_limit(float v)
{
	return !isnan(v) && v < 4.6e18f;
}

/* the line (0: the bottom) of the cell V falls in on a graph of HEIGHT lines for 0..TOP, -1: none */
static long graph_line(float v, double top, unsigned height)
{
	long r;

	if (!set_limit(v))
		return -1;
	r = (long)((double)v / top * height);
	return r >= (long)height ? (long)height - 1 : r;
}

struct top_graph_info top_graph_format(const struct top_trend *t, uint64_t id, unsigned width,
				       unsigned height, bool utf8, char *buf, size_t stride)
{
	static const char *const eighth[9] = {
		" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
	};
	const struct trend_row *r = trend_find(t, id);
	const struct graph *g = r ? r->g : NULL;
	struct top_graph_info info = {0};
	unsigned first, i, y;
	double top = 0;

	for (y = 0; y < height; y++)
		if (stride)
			buf[y * stride] = '\0';
	if (!g || !g->n || !height || stride < 8)
		return info;
	first = width < g->n ? g->n - width : 0;
	for (i = first; i < g->n; i++) {
		if (!isnan(g->usage[i]) && g->usage[i] > top)
			top = g->usage[i];
		if (set_limit(g->limit[i]) && g->limit[i] > top)
			top = g->limit[i];
		if (set_limit(g->high[i]) && g->high[i] > top)
			top = g->high[i];
	}
	if (top <= 0)
		top = 1;
	info.points = g->n - first;
	info.per = g->per;
	info.samples = g->samples;
	info.seconds = (double)(g->last_ns - g->first_ns) / 1e9;
	info.scale = top;
	for (y = 0; y < height; y++) {
		unsigned row = height - 1 - y; /* 0: the bottom line */
		char *l = buf + (size_t)y * stride, label[16];
		size_t o;

		if (y == 0)
			top_fmt_size(top, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%s", row == 0 ? "0" : "");
		o = (size_t)snprintf(l, stride, "%6.6s|", label);
		for (i = first; i < g->n && o < stride; i++) {
			char one[2] = {0};
			const char *c = " ";
			size_t cl;
			/* the cells the limit and high fall in: the top line holds the top */
			long lr = graph_line(g->limit[i], top, height);
			long hr = graph_line(g->high[i], top, height);

			if (lr == (long)row) {
				c = "L";
			} else if (hr == (long)row) {
				c = "H";
			} else if (!isnan(g->usage[i])) {
				double e = (double)g->usage[i] / top * height * 8 - (double)row * 8;
				int in = e >= 8 ? 8 : e <= 0 ? 0 : (int)(e + 0.5);

				if (utf8) {
					c = eighth[in];
				} else if (in >= 4) {
					one[0] = '#';
					c = one;
				}
			}
			cl = strlen(c);
			if (o + cl >= stride)
				break;
			memcpy(l + o, c, cl);
			o += cl;
		}
		l[o < stride ? o : stride - 1] = '\0';
	}
	return info;
}

bool top_graph_rate_format(const struct top_trend *t, uint64_t id, unsigned width, bool utf8,
			   char *buf, size_t len)
{
	static const char *const blocks[8] = {
		"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[8] = {'_', '.', ',', '-', '=', '+', '*', '#'};
	const struct trend_row *r = trend_find(t, id);
	const struct graph *g = r ? r->g : NULL;
	unsigned first, i;
	double top = 0;
	char label[16];
	size_t o;
	bool any = false;

	if (len)
		buf[0] = '\0';
	if (!g || !g->n || len < 8)
		return false;
	first = width < g->n ? g->n - width : 0;
	for (i = first; i < g->n; i++)
		if (!isnan(g->recl[i])) {
			any = true;
			top = g->recl[i] > top ? g->recl[i] : top;
		}
	if (!any)
		return false;
	top_fmt_size(top, label, sizeof(label));
	o = (size_t)snprintf(buf, len, "%6.6s|", label);
	for (i = first; i < g->n && o < len; i++) {
		char one[2] = {0};
		const char *c = " ";
		size_t cl;

		if (!isnan(g->recl[i])) {
			/* nothing reclaimed is the lowest level, the most the highest */
			int lvl = top > 0 ? (int)((double)g->recl[i] / top * 7 + 0.5) : 0;

			if (utf8) {
				c = blocks[lvl];
			} else {
				one[0] = ascii[lvl];
				c = one;
			}
		}
		cl = strlen(c);
		if (o + cl >= len)
			break;
		memcpy(buf + o, c, cl);
		o += cl;
	}
	buf[o] = '\0';
	return true;
}
