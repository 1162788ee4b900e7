/* cmd-dirty.c: "memcgctl dirty": dirty and writeback memory per cgroup against the kernel's thresholds. */
#include "cli-common.h"
#include "memcgctl.h"
#include "output.h"
#include "bars.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dirty_args {
	char **cgroups;
	size_t n;
	bool watch;
	const char *interval; /* NULL: 1 s */
	uint64_t count;       /* samples in --watch; 0: until interrupted */
	bool interval_opt;    /* the interval came from -d/--interval */
};

enum { OPT_COUNT = 'n', OPT_WATCH = 'w', OPT_INTERVAL = 'd' };

static const struct argp_option dirty_options[] = {
	{"watch", OPT_WATCH, "INTERVAL", OPTION_ARG_OPTIONAL,
	 "Refresh every INTERVAL (default 1s): one line per sample per cgroup, with rates", 0},
	{"interval", OPT_INTERVAL, "INTERVAL", 0,
	 "With --watch, the time between samples (as top -d)", 0},
	{"count", OPT_COUNT, "N", 0, "With --watch, stop after N samples (as top -n)", 0},
	{0},
};

static bool looks_like_duration(const char *s)
{
	return (*s >= '0' && *s <= '9') || *s == '.' || (*s == '-' && s[1] >= '0' && s[1] <= '9');
}

static error_t dirty_parse(int key, char *arg, struct argp_state *state)
{
	struct dirty_args *a = state->input;

	switch (key) {
	case OPT_WATCH:
		a->watch = true;
		if (arg) {
			if (a->interval)
				argp_error(state, "give the interval once (--watch=INTERVAL or -d)");
			a->interval = arg;
		}
		break;
	case OPT_INTERVAL:
		if (a->interval)
			argp_error(state, "give the interval once (--watch=INTERVAL or -d)");
		a->interval = arg;
		a->interval_opt = true;
		break;
	case OPT_COUNT:
		a->count = (uint64_t)cli_arg_long(state, "--count", arg, 1, LONG_MAX);
		break;
	case ARGP_KEY_ARG:
		a->cgroups[a->n++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp dirty_argp = {
	dirty_options, dirty_parse, "[CGROUP...]",
	"Show dirty and writeback memory against the kernel's thresholds: the global ones from "
	"/proc/vmstat next to how they derive from vm.dirty_* and dirtyable memory, and per "
	"cgroup (each CGROUP given, or every cgroup holding dirty or writeback pages, largest "
	"first) its share of its limit and of its file pages, on cgroup v2 its memcg writeback "
	"domain, where it stands and a one-line verdict. --watch INTERVAL and --watch=INTERVAL "
	"both work.",
	out_table_children, NULL, NULL,
};

/* ---- one-shot --------------------------------------------------------- */

struct row {
	size_t idx; /* in the sampler */
	const char *path;
	struct mcg_dirty_cg c;
};

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = a->c.dirty + a->c.writeback, y = b->c.dirty + b->c.writeback;

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(a->path, b->path);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole && whole != MCG_MAX ? (double)part * 100 / (double)whole : -1;
}

static const char *pages(const struct mcg_dirty_global *g, uint64_t p, char *buf, size_t len)
{
	return cli_size(p * g->page_size, buf, len);
}

static void text_setting(const char *name, uint64_t ratio, uint64_t bytes)
{
	char b[48];

	if (bytes)
		printf("%s %s", name, cli_size(bytes, b, sizeof(b)));
	else
		printf("%s %llu%%", name, (unsigned long long)ratio);
}

/*
 * Cells of the global bar: with its 15-column indent and legend, 76 columns, so that an
 * 80-column terminal shows it on one line.
 */
#define DIRTY_BAR_CELLS 30

/*
 * dirty + writeback against the thresholds the state is decided by (the kernel's where
 * vmstat has them): b the background threshold, f freerun (writers are throttled above
 * it), t the threshold. The threshold sits at four fifths of the bar, unless more is dirty.
 * Not with --raw.
 */
static void text_global_bar(const struct mcg_dirty_global *g)
{
	uint64_t t = g->kernel_valid ? g->kernel_thresh : g->lim.thresh;
	uint64_t bg = g->kernel_valid ? g->kernel_bg_thresh : g->lim.bg_thresh;
	uint64_t fr = g->kernel_valid ? (t + bg) / 2 : g->lim.freerun;
	uint64_t v = g->nr_dirty + g->nr_writeback, scale = t + t / 4;
	struct bar_mark m[3] = {{bg, 'b'}, {fr, 'f'}, {t, 't'}};
	char buf[BAR_MAX_CELLS * 4 + 3];

	/* --raw is for scripts: numbers, no pictures */
	if (cli_state.raw)
		return;
	if (v > scale)
		scale = v;
	printf("  bar          %s b bg, f freerun, t threshold\n",
	       bar_render(buf, sizeof(buf), DIRTY_BAR_CELLS, v, scale, m, 3, bars_utf8()));
}

static void text_global(const struct mcg_dirty_global *g, int version)
{
	char a[48], b[48], c[48], d[48];
	int64_t dt = (int64_t)g->lim.thresh - (int64_t)g->kernel_thresh;
	int64_t db = (int64_t)g->lim.bg_thresh - (int64_t)g->kernel_bg_thresh;

	printf("global (cgroup v%d, page size %llu)\n", version, (unsigned long long)g->page_size);
	printf("  settings     ");
	text_setting(g->set.bytes ? "dirty_bytes" : "dirty_ratio", g->set.ratio, g->set.bytes);
	printf(", ");
	text_setting(g->set.bg_bytes ? "dirty_background_bytes" : "dirty_background_ratio",
		     g->set.bg_ratio, g->set.bg_bytes);
	printf(", dirty_expire %.2f s, dirty_writeback %.2f s\n", (double)g->set.expire_cs / 100,
	       (double)g->set.writeback_cs / 100);
	printf("  dirtyable    %s = free %s - reserve %s%s + file LRU %s\n",
	       pages(g, g->lim.avail, a, sizeof(a)), pages(g, g->free, b, sizeof(b)),
	       pages(g, g->reserve, c, sizeof(c)), g->reserve_valid ? "" : " (zoneinfo unreadable)",
	       pages(g, g->file, d, sizeof(d)));
	if (g->free != g->vmstat_free)
		printf("  note         free is MemFree (%s); vmstat nr_free_pages says %s\n",
		       pages(g, g->free, a, sizeof(a)), pages(g, g->vmstat_free, b, sizeof(b)));
	if (g->kernel_valid) {
		printf("  threshold    %s computed, kernel %s (%+lld pages)\n",
		       pages(g, g->lim.thresh, a, sizeof(a)), pages(g, g->kernel_thresh, b, sizeof(b)),
		       (long long)dt);
		printf("  background   %s computed, kernel %s (%+lld pages)\n",
		       pages(g, g->lim.bg_thresh, a, sizeof(a)),
		       pages(g, g->kernel_bg_thresh, b, sizeof(b)), (long long)db);
		printf("  freerun      %s\n",
		       pages(g, (g->kernel_thresh + g->kernel_bg_thresh) / 2, a, sizeof(a)));
	} else {
		printf("  threshold    %s computed (the kernel's is not in vmstat)\n",
		       pages(g, g->lim.thresh, a, sizeof(a)));
		printf("  background   %s computed\n", pages(g, g->lim.bg_thresh, a, sizeof(a)));
		printf("  freerun      %s\n", pages(g, g->lim.freerun, a, sizeof(a)));
	}
	printf("  dirty        %s, writeback %s\n", pages(g, g->nr_dirty, a, sizeof(a)),
	       pages(g, g->nr_writeback, b, sizeof(b)));
	text_global_bar(g);
	printf("  state        %s\n", mcg_dirty_state_name(mcg_dirty_global_state(g)));
	printf("  cgroup wb    %s\n",
	       g->cgwb > 0	  ? "yes: memory and io are on cgroup v2 (on ext2/4, btrfs, f2fs, xfs)"
	       : g->cgwb == 0 ? "no: memory or io is on a v1 hierarchy, only the global domain applies"
			      : "unknown (/proc/cgroups unreadable)");
}

/* The words of memcgctl-json(7) STATES for the state column and JSON (text lines keep the library's). */
static const char *state_word(enum mcg_dirty_state st)
{
	switch (st) {
	case MCG_DIRTY_BELOW_BG:
		return "below-background";
	case MCG_DIRTY_BACKGROUND:
		return "background";
	case MCG_DIRTY_THROTTLED:
		return "throttled";
	case MCG_DIRTY_AT_LIMIT:
		return "over";
	}
	return "unknown";
}

static const char *level_word(enum mcg_dirty_level l)
{
	switch (l) {
	case MCG_DIRTY_OK:
		return "ok";
	case MCG_DIRTY_NOTE:
		return "info";
	case MCG_DIRTY_WARN:
		return "warning";
	}
	return "unknown";
}

enum {
	D_CGROUP,
	D_DIRTY,
	D_WB,
	D_LIMPCT,
	D_LIMIT,
	D_FILEPCT,
	D_FILE,
	D_BG,
	D_FREERUN,
	D_THRESH,
	D_STATE,
	D_LEVEL,
	D__COUNT
};
/* Headers and JSON keys of the values: the names table's (mcg_value_names), set by dirty_cols_init(). */
static struct out_col dirty_cols[D__COUNT] = {
	[D_CGROUP] = {"CGROUP", "cgroup", "cgroup path", OUT_STR, OUT_TRUNC, 0},
	[D_DIRTY] = {NULL, NULL, "dirty page cache", OUT_BYTES, OUT_RIGHT, 0},
	[D_WB] = {NULL, NULL, "page cache under writeback", OUT_BYTES, OUT_RIGHT, 0},
	[D_LIMPCT] = {NULL, NULL, "dirty + writeback in percent of the limit", OUT_PCT, OUT_RIGHT,
		      0},
	[D_LIMIT] = {NULL, NULL, "hard limit (max: none; JSON null)", OUT_BYTES, OUT_RIGHT, 0},
	[D_FILEPCT] = {NULL, NULL, "dirty + writeback in percent of the page cache", OUT_PCT,
		       OUT_RIGHT, 0},
	[D_FILE] = {NULL, NULL, "page cache", OUT_BYTES, OUT_RIGHT, 0},
	[D_BG] = {NULL, NULL, "v2: the memcg domain's background threshold", OUT_BYTES,
		  OUT_RIGHT | OUT_V2, 0},
	[D_FREERUN] = {NULL, NULL, "v2: below it the memcg domain does not throttle", OUT_BYTES,
		       OUT_RIGHT | OUT_V2, 0},
	[D_THRESH] = {NULL, NULL, "v2: the memcg domain's threshold", OUT_BYTES, OUT_RIGHT | OUT_V2,
		      0},
	[D_STATE] = {"STATE", "state", "where it stands (memcgctl-json(7) dirty state)", OUT_STR, 0,
		     0},
	[D_LEVEL] = {"LEVEL", "level", "the verdict's level: ok, info, warning", OUT_STR, OUT_EXTRA,
		     0},
};
static const int dirty_id[D__COUNT] = {
	[D_CGROUP] = -1,
	[D_DIRTY] = MCG_K_DIRTY,
	[D_WB] = MCG_K_WRITEBACK,
	[D_LIMPCT] = MCG_F_DIRTY_LIMIT_PERCENT,
	[D_LIMIT] = MCG_K_LIMIT,
	[D_FILEPCT] = MCG_F_DIRTY_FILE_PERCENT,
	[D_FILE] = MCG_K_FILE,
	[D_BG] = MCG_F_DOMAIN_BG_THRESH,
	[D_FREERUN] = MCG_F_DOMAIN_FREERUN,
	[D_THRESH] = MCG_F_DOMAIN_THRESH,
	[D_STATE] = -1,
	[D_LEVEL] = -1,
};

static const struct out_col *dirty_cols_init(void)
{
	size_t c;

	for (c = 0; c < D__COUNT; c++)
		if (dirty_id[c] >= 0) {
			dirty_cols[c].name = mcg_header((unsigned)dirty_id[c]);
			dirty_cols[c].json = mcg_json_key((unsigned)dirty_id[c]);
		}
	return dirty_cols;
}

static struct out_row *dirty_fill_row(struct out_table *t, const struct row *w,
				      const struct mcg_dirty_global *g, int version)
{
	const struct mcg_dirty_cg *c = &w->c;
	struct out_row *r = out_row_new(t, NULL);
	double v;
	char why[512];

	if (r) {
		out_cell_str(r, D_CGROUP, w->path);
		out_cell_u64(r, D_DIRTY, c->dirty);
		out_cell_u64(r, D_WB, c->writeback);
		if ((v = share(c->dirty + c->writeback, c->limit)) >= 0)
			out_cell_num(r, D_LIMPCT, v);
		out_cell_u64(r, D_LIMIT, c->limit);
		if ((v = share(c->dirty + c->writeback, c->file)) >= 0)
			out_cell_num(r, D_FILEPCT, v);
		out_cell_u64(r, D_FILE, c->file);
		if (version == 2 && c->has_domain) {
			out_cell_u64(r, D_BG, c->dom.bg_thresh * g->page_size);
			out_cell_u64(r, D_FREERUN, c->dom.freerun * g->page_size);
			out_cell_u64(r, D_THRESH, c->dom.thresh * g->page_size);
		}
		out_cell_str(r, D_STATE, state_word(c->state));
		out_cell_str(r, D_LEVEL,
			     level_word(mcg_dirty_verdict(c, version, g, -1, why, sizeof(why))));
	}
	return r;
}

static void dirty_fill(struct out_table *t, const struct row *rows, size_t n,
		       const struct mcg_dirty_global *g, int version)
{
	size_t i;

	for (i = 0; i < n; i++)
		dirty_fill_row(t, &rows[i], g, version);
}

static void text_rows(struct out_table *t, const struct row *rows, size_t n,
		      const struct mcg_dirty_global *g, int version)
{
	char why[512];
	size_t i;

	dirty_fill(t, rows, n, g, version);
	out_table_print(t, stdout);
	for (i = 0; i < n; i++) {
		enum mcg_dirty_level l = mcg_dirty_verdict(&rows[i].c, version, g, -1, why, sizeof(why));

		printf("%s: %s: %s\n", out_esc(rows[i].path), mcg_dirty_level_name(l), out_esc(why));
	}
}

static void json_limits(const char *key, const struct mcg_dirty_limits *l, uint64_t ps)
{
	jw_open_object(stdout, key);
	jw_u64(stdout, "avail_bytes", l->avail * ps);
	jw_u64(stdout, "threshold_bytes", l->thresh * ps);
	jw_u64(stdout, "background_threshold_bytes", l->bg_thresh * ps);
	jw_u64(stdout, "freerun_bytes", l->freerun * ps);
	jw_close_object(stdout);
}

static void json_global(const struct mcg_dirty_global *g)
{
	uint64_t ps = g->page_size;

	jw_open_object(stdout, "global");
	jw_open_object(stdout, "settings");
	jw_u64(stdout, "dirty_ratio", g->set.ratio);
	jw_u64(stdout, "dirty_background_ratio", g->set.bg_ratio);
	jw_u64(stdout, "dirty_bytes", g->set.bytes);
	jw_u64(stdout, "dirty_background_bytes", g->set.bg_bytes);
	jw_u64(stdout, "dirty_expire_centisecs", g->set.expire_cs);
	jw_u64(stdout, "dirty_writeback_centisecs", g->set.writeback_cs);
	jw_close_object(stdout);
	jw_u64(stdout, "dirty_bytes", g->nr_dirty * ps);
	jw_u64(stdout, "writeback_bytes", g->nr_writeback * ps);
	jw_u64(stdout, "free_bytes", g->free * ps);
	jw_u64(stdout, "vmstat_free_bytes", g->vmstat_free * ps);
	jw_bytes(stdout, "reserve_bytes", g->reserve * ps, g->reserve_valid);
	jw_u64(stdout, "file_bytes", g->file * ps);
	json_limits("computed", &g->lim, ps);
	if (g->kernel_valid) {
		jw_open_object(stdout, "kernel");
		jw_u64(stdout, "threshold_bytes", g->kernel_thresh * ps);
		jw_u64(stdout, "background_threshold_bytes", g->kernel_bg_thresh * ps);
		jw_u64(stdout, "freerun_bytes", (g->kernel_thresh + g->kernel_bg_thresh) / 2 * ps);
		jw_close_object(stdout);
		jw_i64(stdout, "threshold_error_pages",
		       (int64_t)g->lim.thresh - (int64_t)g->kernel_thresh);
		jw_i64(stdout, "background_threshold_error_pages",
		       (int64_t)g->lim.bg_thresh - (int64_t)g->kernel_bg_thresh);
	}
	jw_string(stdout, "state", state_word(mcg_dirty_global_state(g)));
	if (g->cgwb >= 0)
		jw_bool(stdout, "cgroup_writeback", g->cgwb > 0);
	jw_close_object(stdout);
}

/* What JSON has beyond the table's columns: the memcg domain, the global state, the verdict. */
static void json_cg_more(const struct mcg_dirty_cg *c, const struct mcg_dirty_global *g,
			 int version, double stale_s, bool level)
{
	char why[512];
	enum mcg_dirty_level l;

	if (c->has_domain) {
		jw_open_object(stdout, "memcg_domain");
		jw_bytes(stdout, "headroom_bytes",
			 c->headroom == UINT64_MAX ? MCG_MAX : c->headroom * g->page_size, true);
		/* its thresholds are the columns domain_*_bytes */
		jw_u64(stdout, "avail_bytes", c->dom.avail * g->page_size);
		jw_string(stdout, "state", state_word(c->memcg_state));
		jw_close_object(stdout);
	}
	jw_string(stdout, "global_state", state_word(c->global_state));
	l = mcg_dirty_verdict(c, version, g, stale_s, why, sizeof(why));
	if (level)
		jw_string(stdout, "level", level_word(l));
	jw_string(stdout, "verdict", why);
}

/* One cgroup's JSON members: the table's columns (as -o selects), then the rest. */
static void json_cg(struct out_table *t, const struct row *w, const struct mcg_dirty_global *g,
		    int version, double stale_s)
{
	struct out_row *r = dirty_fill_row(t, w, g, version);

	if (r)
		out_row_json(t, r, stdout);
	/* the level of this sample (with --watch's staleness), once */
	json_cg_more(&w->c, g, version, stale_s, !out_table_has(t, D_LEVEL));
}

static int collect(struct mcg_dirty_sampler *s, const size_t *idx, size_t n,
		   const struct mcg_dirty_global *g, int version, bool explicit, struct row *rows,
		   size_t *ret_n)
{
	size_t i, k = 0;
	int r;

	for (i = 0; i < n; i++) {
		struct row *w = &rows[k];

		w->idx = idx[i];
		w->path = mcg_dirty_sampler_path(s, idx[i]);
		r = mcg_dirty_sampler_read(s, idx[i], &w->c);
		if (r < 0) {
			if (!explicit)
				continue; /* removed since the scan */
			cli_err("cannot read memory.stat of '%s': %s", out_esc(w->path), mcg_strerror(r));
			return r;
		}
		mcg_dirty_cg_eval(&w->c, version, g);
		k++;
	}
	*ret_n = k;
	return 0;
}

struct found {
	size_t *idx;
	size_t n, cap;
	int err;
};

static void on_found(size_t idx, void *userdata)
{
	struct found *f = userdata;

	if (mcg_grow(&f->idx, &f->cap, f->n, sizeof(*f->idx), 64) < 0) {
		f->err = -ENOMEM;
		return;
	}
	f->idx[f->n++] = idx;
}

/* The rows of one refresh: the explicit cgroups, or a scan for dirty ones. */
static int refresh(struct mcg_dirty_sampler *s, const struct dirty_args *a, const size_t *eidx,
		   struct found *f, const struct mcg_dirty_global *g, int version, struct row **rows,
		   size_t *nrows)
{
	const size_t *idx = eidx;
	size_t n = a->n;
	struct row *nr;
	int r;

	mcg_dirty_sampler_begin(s);
	if (!a->n) {
		f->n = 0;
		r = mcg_dirty_sampler_scan(s, on_found, f);
		if (r < 0 || f->err < 0) {
			cli_err("cannot scan for dirty cgroups: %s", mcg_strerror(r < 0 ? r : f->err));
			return r < 0 ? r : f->err;
		}
		idx = f->idx;
		n = f->n;
	}
	nr = realloc(*rows, (n ? n : 1) * sizeof(**rows));
	if (!nr)
		return -ENOMEM;
	*rows = nr;
	r = collect(s, idx, n, g, version, a->n > 0, nr, nrows);
	if (r < 0)
		return r;
	qsort(nr, *nrows, sizeof(*nr), row_cmp);
	return 0;
}

/* ---- --watch ---------------------------------------------------------- */

struct track {
	bool seen;
	uint64_t held;        /* dirty + writeback at the last sample */
	double t;             /* its time */
	double wb_since;      /* start of the current writeback episode, < 0: none */
	double progress;      /* last time the group was clean or writing back */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct rates {
	bool valid;
	double dirtied, written; /* bytes/s */
	double wb_for;           /* s since writeback began, < 0: not writing back */
	double stale;            /* s without progress while dirty, < 0: unknown */
};

static struct rates track_update(struct track *tr, uint64_t dirty, uint64_t writeback, double t)
{
	struct rates r = {false, 0, 0, -1, -1};
	uint64_t held = dirty + writeback;
	bool active;

	if (tr->seen && t > tr->t) {
		double net = ((double)held - (double)tr->held) / (t - tr->t);

		r.valid = true;
		/* memory.stat has gauges only: these are the net flows, lower bounds. */
		r.dirtied = net > 0 ? net : 0;
		r.written = net < 0 ? -net : 0;
	}
	active = writeback > 0 || (r.valid && r.written > 0);
	if (!tr->seen)
		tr->progress = t;
	if (active) {
		if (tr->wb_since < 0)
			tr->wb_since = t;
		r.wb_for = t - tr->wb_since;
	} else {
		tr->wb_since = -1;
	}
	if (active || !dirty)
		tr->progress = t;
	r.stale = dirty ? t - tr->progress : 0;
	tr->seen = true;
	tr->held = held;
	tr->t = t;
	return r;
}

static void stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

static void watch_text_line(const char *ts, const char *who, uint64_t dirty, uint64_t wb,
			    const struct rates *r, const char *state, const char *verdict)
{
	char a[48], b[48], c[48], d[48], f[32];

	if (r->wb_for >= 0)
		snprintf(f, sizeof(f), "%.1fs", r->wb_for);
	else
		snprintf(f, sizeof(f), "-");
	if (r->valid) {
		cli_size((uint64_t)r->dirtied, c, sizeof(c));
		cli_size((uint64_t)r->written, d, sizeof(d));
	} else {
		snprintf(c, sizeof(c), "-");
		snprintf(d, sizeof(d), "-");
	}
	printf("%s %s dirty %s wb %s dirtied/s %s written/s %s wb-for %s state %s%s%s\n", ts,
	       out_esc(who),
	       cli_size(dirty, a, sizeof(a)), cli_size(wb, b, sizeof(b)), c, d, f, state,
	       verdict ? ": " : "", verdict ? out_esc(verdict) : "");
}

/* Rates need two samples: absent on the first (left out, memcgctl-json(7)). */
static void json_rates(const struct rates *r)
{
	if (r->valid) {
		jw_double(stdout, "dirtied_bytes_per_s", r->dirtied);
		jw_double(stdout, "written_bytes_per_s", r->written);
	}
	if (r->wb_for >= 0)
		jw_u64(stdout, "writeback_for_ns", (uint64_t)(r->wb_for * 1e9));
}

static void json_sample_head(double elapsed_s, const char *scope)
{
	jw_open_object(stdout, NULL);
	jw_timestamp(stdout);
	jw_u64(stdout, "elapsed_ns", (uint64_t)(elapsed_s * 1e9));
	jw_string(stdout, "scope", scope);
}

static int sleep_until(double deadline)
{
	struct timespec ts;

	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	while (!cli_interrupted) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (r == 0)
			return 0;
		if (r != EINTR)
			return -r;
	}
	return -EINTR;
}

static int watch(struct cli *cli, struct mcg_dirty_sampler *s, const struct dirty_args *a,
		 const size_t *eidx, uint64_t interval_ms, int version)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	struct found f = {0};
	struct row *rows = NULL;
	struct track *tr = NULL, gtr = {0};
	size_t ntr = 0, nrows, i;
	uint64_t prev_dirtied = 0, prev_written = 0, samples = 0;
	double start = now_s(), prev_t = 0, next = start;
	int r = 0;

	gtr.wb_since = -1;
	cli_trap_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!cli_interrupted) {
		struct mcg_dirty_global g;
		struct out_table *t_out;
		struct rates gr;
		char ts[16], why[512];
		double t;
		int st;

		r = mcg_dirty_global_read(ctx, &g);
		if (r < 0) {
			cli_err("cannot read the global dirty state from %s: %s", mcg_ctx_procfs(ctx),
				mcg_strerror(r));
			break;
		}
		r = refresh(s, a, eidx, &f, &g, version, &rows, &nrows);
		if (r < 0)
			break;
		t = now_s();
		stamp(ts, sizeof(ts));
		if (mcg_dirty_sampler_count(s) > ntr) {
			size_t n = mcg_dirty_sampler_count(s);
			struct track *nt = realloc(tr, n * sizeof(*nt));

			if (!nt) {
				r = -ENOMEM;
				break;
			}
			for (i = ntr; i < n; i++) {
				memset(&nt[i], 0, sizeof(nt[i]));
				nt[i].wb_since = -1;
			}
			tr = nt;
			ntr = n;
		}
		/* Global rates are exact: vmstat has the nr_dirtied / nr_written counters. */
		gr = track_update(&gtr, g.nr_dirty * g.page_size, g.nr_writeback * g.page_size, t);
		if (samples && t > prev_t) {
			gr.dirtied = (double)(g.nr_dirtied - prev_dirtied) * (double)g.page_size / (t - prev_t);
			gr.written = (double)(g.nr_written - prev_written) * (double)g.page_size / (t - prev_t);
		}
		prev_dirtied = g.nr_dirtied;
		prev_written = g.nr_written;
		prev_t = t;
		/* a table per sample: the rows of this one only (-o checked before) */
		t_out = out_table_new(dirty_cols_init(), D__COUNT, version, &st);
		if (!t_out) {
			r = -ENOMEM;
			break;
		}
		if (cli->json) {
			json_sample_head(t - start, "global");
			jw_u64(stdout, "dirty_bytes", g.nr_dirty * g.page_size);
			jw_u64(stdout, "writeback_bytes", g.nr_writeback * g.page_size);
			json_rates(&gr);
			jw_u64(stdout, "threshold_bytes",
			       (g.kernel_valid ? g.kernel_thresh : g.lim.thresh) * g.page_size);
			jw_u64(stdout, "background_threshold_bytes",
			       (g.kernel_valid ? g.kernel_bg_thresh : g.lim.bg_thresh) * g.page_size);
			jw_string(stdout, "state", state_word(mcg_dirty_global_state(&g)));
			jw_close_object(stdout);
			jw_end(stdout);
		} else {
			watch_text_line(ts, "global", g.nr_dirty * g.page_size,
					g.nr_writeback * g.page_size, &gr,
					mcg_dirty_state_name(mcg_dirty_global_state(&g)), NULL);
		}
		for (i = 0; i < nrows; i++) {
			const struct mcg_dirty_cg *c = &rows[i].c;
			struct rates cr = track_update(&tr[rows[i].idx], c->dirty, c->writeback, t);

			if (cli->json) {
				json_sample_head(t - start, "cgroup");
				json_cg(t_out, &rows[i], &g, version, cr.stale);
				json_rates(&cr);
				jw_close_object(stdout);
				jw_end(stdout);
			} else {
				mcg_dirty_verdict(c, version, &g, cr.stale, why, sizeof(why));
				watch_text_line(ts, rows[i].path, c->dirty, c->writeback, &cr,
						mcg_dirty_state_name(c->state), why);
			}
		}
		out_table_free(t_out);
		fflush(stdout);
		if (a->count && ++samples >= a->count)
			break;
		if (!a->count)
			samples++;
		/* Absolute deadlines: no drift, and never a busy loop. */
		next += (double)interval_ms / 1000;
		if (next < now_s())
			next = now_s();
		if (sleep_until(next) < 0)
			break;
	}
	free(rows);
	free(tr);
	free(f.idx);
	return r < 0 ? EXIT_FAILURE : 0;
}

/*
 * "--watch 2s" as two words: argp's optional arguments need "--watch=2s". The
 * joined words are allocated into JOINED (freed by the caller).
 */
static char **join_watch(int argc, char **argv, int *ret_argc, char **joined)
{
	char **v = calloc((size_t)argc + 1, sizeof(char *));
	int i, n = 0, nj = 0;

	if (!v)
		return NULL;
	for (i = 0; i < argc; i++) {
		if ((!strcmp(argv[i], "--watch") || !strcmp(argv[i], "-w")) && i + 1 < argc &&
		    looks_like_duration(argv[i + 1])) {
			size_t len = strlen(argv[i + 1]) + 10;
			char *j = malloc(len);

			if (!j) {
				free(v);
				return NULL;
			}
			snprintf(j, len, "--watch=%s", argv[i + 1]);
			joined[nj++] = j;
			v[n++] = j;
			i++;
			continue;
		}
		v[n++] = argv[i];
	}
	*ret_argc = n;
	return v;
}

static int dirty_run(struct cli *cli, int argc, char **argv)
{
	struct dirty_args a = {0};
	struct mcg_dirty_sampler *s = NULL;
	struct mcg_dirty_global g;
	struct mcg_ctx *ctx;
	struct row *rows = NULL;
	struct out_table *table = NULL;
	struct found f = {0};
	uint64_t interval_ms = 1000;
	size_t *eidx = NULL, nrows = 0, i;
	char **v, **joined;
	int vc = 0, r, status = 0, version;

	joined = calloc((size_t)argc + 1, sizeof(char *));
	v = joined ? join_watch(argc, argv, &vc, joined) : NULL;
	a.cgroups = calloc((size_t)argc + 1, sizeof(char *));
	eidx = calloc((size_t)argc + 1, sizeof(size_t));
	if (!v || !a.cgroups || !eidx) {
		cli_err("out of memory");
		status = EXIT_FAILURE;
		goto out;
	}
	r = cli_parse(&dirty_argp, vc, v, &a);
	if (r) {
		status = r;
		goto out;
	}
	if (a.interval_opt && !a.watch) {
		cli_err("--interval needs --watch");
		status = EXIT_USAGE;
		goto out;
	}
	if (a.watch && a.interval) {
		if (cli_parse_duration(a.interval_opt ? "--interval" : "--watch", a.interval,
				       &interval_ms) < 0) {
			status = EXIT_USAGE;
			goto out;
		}
		if (!interval_ms) {
			cli_err("invalid duration for %s: '%s': must be at least 1ms",
				a.interval_opt ? "--interval" : "--watch", out_esc(a.interval));
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (a.count && !a.watch) {
		cli_err("--count needs --watch");
		status = EXIT_USAGE;
		goto out;
	}
	if (out_opts.list_columns) {
		out_list_columns(dirty_cols_init(), D__COUNT, stdout);
		goto out;
	}
	ctx = cli_ctx(cli);
	if (!ctx) {
		status = EXIT_FAILURE;
		goto out;
	}
	version = mcg_ctx_version(ctx);
	table = out_table_new(dirty_cols_init(), D__COUNT, version, &status);
	if (!table)
		goto out;
	r = mcg_dirty_sampler_new(ctx, a.watch ? 0 : MCG_SAMPLER_ONESHOT, &s);
	if (r < 0) {
		cli_err("cannot start: %s", mcg_strerror(r));
		status = EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < a.n; i++) {
		struct mcg_group *grp;

		r = cli_open_group(cli, a.cgroups[i], &grp);
		if (r < 0) {
			status = cli_status(r);
			goto out;
		}
		r = mcg_dirty_sampler_add(s, mcg_group_path(grp));
		mcg_group_close(grp);
		if (r < 0) {
			cli_err("cannot open memory.stat of '%s': %s", out_esc(a.cgroups[i]),
				mcg_strerror(r));
			status = EXIT_FAILURE;
			goto out;
		}
		eidx[i] = (size_t)r;
	}
	if (a.watch) {
		status = watch(cli, s, &a, eidx, interval_ms, version);
		goto out;
	}
	r = mcg_dirty_global_read(ctx, &g);
	if (r < 0) {
		cli_err("cannot read the global dirty state from %s: %s", mcg_ctx_procfs(ctx),
			mcg_strerror(r));
		status = EXIT_FAILURE;
		goto out;
	}
	r = refresh(s, &a, eidx, &f, &g, version, &rows, &nrows);
	if (r < 0) {
		status = EXIT_FAILURE;
		goto out;
	}
	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_u64(stdout, "version", (uint64_t)version);
		jw_u64(stdout, "page_size", g.page_size);
		json_global(&g);
		jw_open_array(stdout, "cgroups");
		for (i = 0; i < nrows; i++) {
			jw_open_object(stdout, NULL);
			json_cg(table, &rows[i], &g, version, -1);
			jw_close_object(stdout);
		}
		jw_close_array(stdout);
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		if (!out_opts.noheadings) {
			text_global(&g, version);
			printf("\n");
		}
		if (nrows)
			text_rows(table, rows, nrows, &g, version);
		else
			printf("no cgroup holds dirty or writeback pages\n");
	}
out:
	for (i = 0; joined && joined[i]; i++)
		free(joined[i]);
	free(joined);
	free(v);
	free(rows);
	free(f.idx);
	free(eidx);
	free(a.cgroups);
	mcg_dirty_sampler_free(s);
	out_table_free(table);
	return status;
}

const struct mcg_cmd cmd_dirty = {
	.name = "dirty",
	.summary = "Dirty and writeback memory per cgroup against the kernel's thresholds",
	.argp = &dirty_argp,
	.run = dirty_run,
};
