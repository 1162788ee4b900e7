/* cmd-export.c: "memcgctl export": the counters of every memory cgroup as Prometheus text. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "internal.h"
#include "util.h"

#include <memcg/openmetrics.h>

#include <arpa/inet.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

/* cli/cmd-reclaimd.c: the async-reclaim state directory (--state-dir or the run dir's) */
int cli_async_statedir(struct cli *cli, const char *opt, char *buf, size_t len);

/*
 * The text exposition format 0.0.4 (what Prometheus scrapes and node_exporter's
 * textfile collector reads; promtool check metrics checks it). One family per
 * counter of the schema (MCG_SCHEMA): memcgctl_ + the base name + the unit in
 * base units (_bytes, _seconds) + _total for counters; one sample per cgroup
 * with the label cgroup="PATH" and, where systemd owns it, unit="NAME"
 * (mcg_om_cgroup_labels). An unlimited limit and a counter the kernel does not
 * provide have no sample. Besides the table: the dirty state of each cgroup
 * and the global dirty thresholds (lib/dirty.c's verdict over the record),
 * and reclaimd's per-cgroup counters (its stats files, lib/async.c).
 */

#define TEXTFILE_NAME "memcgctl.prom"
#define CONTENT_TYPE  "text/plain; version=0.0.4; charset=utf-8"

enum fam {
	FAM_USAGE,
	FAM_LIMITS,
	FAM_MEMORY,
	FAM_RECLAIM,
	FAM_EVENTS,
	FAM_PSI,
	FAM_TREE,
	FAM_DIRTY,
	FAM_RECLAIMD,
	FAM__COUNT
};
static const char *const fam_names[FAM__COUNT] = {
	"usage", "limits", "memory", "reclaim", "events", "psi", "tree", "dirty", "reclaimd",
};
#define FAM_LIST "usage, limits, memory, reclaim, events, psi, tree, dirty, reclaimd"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * The family of a counter of the table. The rows named here are the
 * exceptions; a row added to the table falls in by its file, unit and kind
 * (a memory.stat amount is "memory", its events "reclaim"; a single-value
 * setting or a file named _limit or _high is "limits", an amount "usage").
 */
static enum fam key_family(enum mcg_key k)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);
	const char *file = d->file[1] ? d->file[1] : d->file[0];

	switch (k) {
	case MCG_K_USAGE:
	case MCG_K_PEAK:
	case MCG_K_SWAP_USAGE:
	case MCG_K_MEMSW_USAGE:
	case MCG_K_KMEM_USAGE:
		return FAM_USAGE;
	case MCG_K_LIMIT:
	case MCG_K_HIGH:
	case MCG_K_LOW:
	case MCG_K_MIN:
	case MCG_K_EFFECTIVE_LIMIT:
		return FAM_LIMITS;
	case MCG_K_FAILCNT:
	case MCG_K_UNDER_OOM:
		return FAM_EVENTS;
	case MCG_K_SWAP: /* v1 memory.stat, v2 memory.swap.current */
		return FAM_MEMORY;
	case MCG_K_STALL: /* taskstats: the direct-reclaim delay, next to pressure */
		return FAM_PSI;
	case MCG_K_NR_PROCS:
	case MCG_K_NR_CHILDREN:
		return FAM_TREE;
	default:
		break;
	}
	if (!file) /* computed */
		return d->kind == MCG_KIND_COUNTER ? FAM_RECLAIM : FAM_TREE;
	if (!strcmp(file, "memory.events") || !strcmp(file, "memory.oom_control"))
		return d->kind == MCG_KIND_COUNTER ? FAM_EVENTS : FAM_LIMITS;
	if (!strcmp(file, "memory.pressure"))
		return FAM_PSI;
	if (!strcmp(file, "memory.stat"))
		return d->unit == MCG_UNIT_BYTES ? FAM_MEMORY : FAM_RECLAIM;
	if (d->kind == MCG_KIND_COUNTER)
		return FAM_EVENTS;
	if (d->unit != MCG_UNIT_BYTES || ends_with(d->name, "_limit") ||
	    ends_with(d->name, "_high") || ends_with(d->name, "_max"))
		return FAM_LIMITS;
	return FAM_USAGE;
}

/* ---- the output buffer: one per exporter, kept across scrapes ------------- */

struct obuf {
	char *p;
	size_t n, cap;
	bool oom; /* an allocation failed: the text is incomplete */
};

/* The exposition buffer's first size; it doubles (about 2.4 KB a cgroup with every family). */
#define OB_FIRST 65536

static bool ob_room(struct obuf *b, size_t more)
{
	char *np;
	size_t cap;

	if (b->oom)
		return false;
	if (b->n + more <= b->cap)
		return true;
	cap = b->cap ? b->cap : OB_FIRST;
	while (cap < b->n + more)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

static void ob_put(struct obuf *b, const char *s, size_t len)
{
	if (ob_room(b, len)) {
		memcpy(b->p + b->n, s, len);
		b->n += len;
	}
}

static void ob_puts(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s));
}

/* V in decimal, at least WIDTH digits (zero-padded) */
static void ob_u64(struct obuf *b, uint64_t v, int width)
{
	char d[24], *p = mcg__u64_digits(v, width, d + sizeof(d));

	ob_put(b, p, (size_t)(d + sizeof(d) - p));
}

static void ob_printf(struct obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ob_printf(struct obuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !ob_room(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static void help_source(struct obuf *f, const struct mcg_key_desc *d, int v)
{
	ob_printf(f, "v%d %s%s%s", v + 1, d->file[v], d->key[v] ? " " : "",
		d->key[v] ? d->key[v] : "");
}

/* Where a counter no kernel file holds comes from. */
static const char *computed_help(enum mcg_key k)
{
	switch (k) {
	case MCG_K_REFAULT:
		return "computed by memcgctl: workingset_refault_anon + workingset_refault_file of "
		       "memory.stat, or workingset_refault before Linux 5.9";
	case MCG_K_NR_PROCS:
		return "computed by memcgctl: processes in the cgroup itself, cgroup.procs";
	case MCG_K_NR_CHILDREN:
		return "computed by memcgctl: child cgroups";
	case MCG_K_STALL:
		return "computed by memcgctl: time its processes and those below spent in direct "
		       "reclaim, taskstats freepages_delay_total since export --listen first saw "
		       "them, while kernel.task_delayacct is 1";
	default:
		return "computed by memcgctl";
	}
}

static void print_help(struct obuf *f, enum mcg_key k, const char *name)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);

	ob_printf(f, "# HELP %s memory cgroup %s (", name, d->name);
	if (d->file[0])
		help_source(f, d, 0);
	if (d->file[0] && d->file[1])
		ob_puts(f, ", ");
	if (d->file[1])
		help_source(f, d, 1);
	if (!d->file[0] && !d->file[1])
		ob_puts(f, computed_help(k));
	ob_puts(f, d->unit == MCG_UNIT_US || d->unit == MCG_UNIT_NS ? "), seconds\n" : ")\n");
	ob_printf(f, "# TYPE %s %s\n", name, d->kind == MCG_KIND_COUNTER ? "counter" : "gauge");
}

/* A value and the line's end: microseconds and nanoseconds as seconds with all digits. */
static void print_value(struct obuf *f, const struct mcg_key_desc *d, uint64_t v)
{
	if (d->unit == MCG_UNIT_US || d->unit == MCG_UNIT_NS) {
		uint64_t one = d->unit == MCG_UNIT_US ? 1000000 : 1000000000;

		ob_u64(f, v / one, 1);
		ob_put(f, ".", 1);
		ob_u64(f, v % one, d->unit == MCG_UNIT_US ? 6 : 9);
	} else {
		ob_u64(f, v, 1);
	}
	ob_put(f, "\n", 1);
}

/* NAME{LABELS} V */
static void print_sample(struct obuf *f, const char *name, size_t name_len, const char *labels,
			 const struct mcg_key_desc *d, uint64_t v)
{
	ob_put(f, name, name_len);
	ob_put(f, "{", 1);
	ob_puts(f, labels);
	ob_put(f, "} ", 2);
	print_value(f, d, v);
}

/* ---- one scrape: a set of (labels, record) rows ---------------------------- */

/* reclaimd's per-cgroup counters (struct mcg_async_stats), one family each */
enum rd {
	RD_RECLAIMED,
	RD_WAKEUPS,
	RD_STEPS,
	RD_CPU,
	RD_DEFERRED,
	RD_THRASH,
	RD__COUNT
};
static const struct {
	const char *name, *help;
} rd_fams[RD__COUNT] = {
	[RD_RECLAIMED] = {"memcgctl_reclaimd_reclaimed_bytes_total",
			  "bytes reclaimd reclaimed from the cgroup (usage before - after, summed over "
			  "its steps)"},
	[RD_WAKEUPS] = {"memcgctl_reclaimd_wakeups_total",
			"reclaimd wake-ups that found the cgroup's usage above its high watermark"},
	[RD_STEPS] = {"memcgctl_reclaimd_steps_total", "reclaim steps reclaimd ran on the cgroup"},
	[RD_CPU] = {"memcgctl_reclaimd_cpu_seconds_total",
		    "CPU time reclaimd spent reclaiming from the cgroup, seconds"},
	[RD_DEFERRED] = {"memcgctl_reclaimd_deferred_total",
			 "times the CPU budget (--max-cpu) postponed reclaim of the cgroup: reclaimd "
			 "falls behind"},
	[RD_THRASH] = {"memcgctl_reclaimd_thrash_episodes_total",
		       "times reclaimd backed off from the cgroup because refaults kept pace with "
		       "reclaim"},
};

/* the dirty states as label values (the words of memcgctl-dirty(8)'s JSON) */
static const char *const dirty_words[] = {
	[MCG_DIRTY_BELOW_BG] = "below-background",
	[MCG_DIRTY_BACKGROUND] = "background",
	[MCG_DIRTY_THROTTLED] = "throttled",
	[MCG_DIRTY_AT_LIMIT] = "over",
};
#define DIRTY_STATES (sizeof(dirty_words) / sizeof(dirty_words[0]))

struct ex_row {
	char *path;   /* relative to the hierarchy root */
	char *labels; /* cgroup="..." [,unit="..."] (escaped) */
	int depth;
	ssize_t parent;    /* row index, -1 for the first row */
	uint64_t headroom; /* v2, pages: min over the rows up to the first of min(max, high) - usage */
	int dirty;         /* enum mcg_dirty_state, -1 when the record has no dirty/writeback */
	bool has_rd;
	uint64_t rd[RD__COUNT];
	/* the counters: the walk's (set->recs) or the sampler's snapshot row's (held while rendered) */
	const struct mcg_record *rec;
};

struct ex_set {
	struct ex_row *rows;
	size_t n, cap;
	size_t kept; /* rows [n, kept) hold the previous scrape's path and labels */
	struct mcg_record *recs; /* the walk's records, one per row */
	size_t recs_cap;
	int version;
	bool units; /* unit labels: systemd runs the host */
	bool dirty_valid;
	struct mcg_dirty_global dirty;
	ssize_t stack[MCG_WALK_MAX_DEPTH + 2]; /* the last row seen at each depth */
};

/*
 * Start a new scrape. The rows' path and labels stay allocated: a row added at
 * the same index with the same path keeps them (a served tree rarely changes
 * between scrapes), set_done() frees what was not reused.
 */
static void set_clear(struct ex_set *s)
{
	if (s->n > s->kept)
		s->kept = s->n;
	s->n = 0;
	s->dirty_valid = false;
}

/* End a scrape: free the rows of the previous one past the new end. */
static void set_done(struct ex_set *s)
{
	size_t i;

	for (i = s->n; i < s->kept; i++) {
		free(s->rows[i].labels);
		free(s->rows[i].path);
	}
	s->kept = s->n;
}

static void set_free(struct ex_set *s)
{
	set_clear(s);
	set_done(s);
	free(s->rows);
	s->rows = NULL;
	s->cap = 0;
	free(s->recs);
	s->recs = NULL;
	s->recs_cap = 0;
}

/* Add PATH at DEPTH (rows come in pre-order: the parent is the last row one level up). */
static struct ex_row *set_add(struct ex_set *s, const char *path, int depth)
{
	struct ex_row *r;
	char *labels = NULL, *p = NULL;

	if (mcg__grow(&s->rows, &s->cap, s->n, sizeof(*s->rows), 64) < 0)
		return NULL;
	r = &s->rows[s->n];
	if (s->n < s->kept) {
		if (!strcmp(r->path, path)) {
			labels = r->labels;
			p = r->path;
		} else {
			free(r->labels);
			free(r->path);
		}
	}
	memset(r, 0, sizeof(*r));
	if (!p) {
		labels = mcg_om_cgroup_labels(path, s->units);
		p = strdup(path);
		if (!labels || !p) {
			free(labels);
			free(p);
			/* this slot no longer holds a kept row: shift the kept ones down */
			if (s->n < s->kept) {
				s->rows[s->n] = s->rows[--s->kept];
			}
			return NULL;
		}
	}
	r->labels = labels;
	r->path = p;
	if (depth < 0 || depth > MCG_WALK_MAX_DEPTH)
		depth = 0;
	r->depth = depth;
	r->parent = s->n && depth > 0 && s->rows[s->n - 1].depth >= depth - 1 ? s->stack[depth - 1]
									       : -1;
	r->dirty = -1;
	s->stack[depth] = (ssize_t)s->n;
	s->n++;
	return r;
}

/* Is V of K "no limit"? Such a sample is left out (memcgctl-export(8)). */
static bool unlimited(enum mcg_key k, uint64_t v)
{
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES && v == MCG_MAX;
}

/* ---- what the record gives: the dirty state and the thresholds ------------ */

/*
 * The v2 headroom of every row (mm/page-writeback.c's mdtc: the least room
 * under max and high up the path, in pages), from the rows themselves: limits
 * above the first row are not counted.
 */
static uint64_t own_headroom(const struct mcg_record *r, uint64_t ps)
{
	uint64_t max = mcg_record_get(r, MCG_K_LIMIT, MCG_MAX),
		 high = mcg_record_get(r, MCG_K_HIGH, MCG_MAX), use, cur;

	use = max < high ? max : high;
	if (use == MCG_MAX || !mcg_record_has(r, MCG_K_USAGE))
		return UINT64_MAX;
	cur = r->v[MCG_K_USAGE];
	return use > cur ? (use - cur) / ps : 0;
}

/* The dirty state of every row (lib/dirty.c's verdict over the record). */
static void eval_dirty(struct mcg_ctx *ctx, struct ex_set *s)
{
	size_t i;

	s->dirty_valid = mcg_dirty_global_read(ctx, &s->dirty) == 0;
	if (!s->dirty_valid)
		return;
	for (i = 0; i < s->n; i++) {
		struct ex_row *row = &s->rows[i];
		struct mcg_dirty_cg c = {0};
		uint64_t h = own_headroom(row->rec, s->dirty.page_size);

		if (row->parent >= 0 && s->rows[row->parent].headroom < h)
			h = s->rows[row->parent].headroom;
		row->headroom = h;
		if (mcg_dirty_cg_from_record(row->rec, s->version, &c) < 0)
			continue;
		c.headroom = h;
		mcg_dirty_cg_eval(&c, s->version, &s->dirty);
		row->dirty = (int)c.state;
	}
}

/* ---- reclaimd's counters: the stats files it keeps ------------------------ */

static void read_reclaimd(const char *statedir, struct ex_set *s)
{
	struct mcg_async_stats *st = NULL;
	size_t n = 0, i, j;

	/* no state directory (async reclaim never used) is no sample; nor is a bad one */
	if (!statedir || mcg_async_stats_list(statedir, &st, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		if (st[i].state == MCG_ASYNC_GONE)
			continue;
		for (j = 0; j < s->n; j++) {
			struct ex_row *row = &s->rows[j];

			if (strcmp(row->path, st[i].path))
				continue;
			row->has_rd = true;
			row->rd[RD_RECLAIMED] = st[i].reclaimed;
			row->rd[RD_WAKEUPS] = st[i].wakeups;
			row->rd[RD_STEPS] = st[i].steps;
			row->rd[RD_CPU] = st[i].cpu_ns;
			row->rd[RD_DEFERRED] = st[i].deferred;
			row->rd[RD_THRASH] = st[i].thrash_episodes;
			break;
		}
	}
	free(st);
}

/* ---- the exposition ------------------------------------------------------ */

static void print_seconds_ns(struct obuf *f, uint64_t v)
{
	ob_u64(f, v / 1000000000, 1);
	ob_put(f, ".", 1);
	ob_u64(f, v % 1000000000, 9);
	ob_put(f, "\n", 1);
}

static void render_dirty(const struct ex_set *s, struct obuf *f)
{
	const struct mcg_dirty_global *g = &s->dirty;
	enum mcg_dirty_state gs;
	bool head = false;
	size_t i, k;

	if (!s->dirty_valid)
		return;
	ob_printf(f,
		  "# HELP memcgctl_dirty_threshold_bytes writers are throttled when dirty + "
		  "writeback reach it (/proc/vmstat nr_dirty_threshold)\n"
		  "# TYPE memcgctl_dirty_threshold_bytes gauge\n"
		  "memcgctl_dirty_threshold_bytes %llu\n",
		  (unsigned long long)((g->kernel_valid ? g->kernel_thresh : g->lim.thresh) *
				       g->page_size));
	ob_printf(f,
		  "# HELP memcgctl_dirty_background_threshold_bytes background writeback starts "
		  "above it (/proc/vmstat nr_dirty_background_threshold)\n"
		  "# TYPE memcgctl_dirty_background_threshold_bytes gauge\n"
		  "memcgctl_dirty_background_threshold_bytes %llu\n",
		  (unsigned long long)((g->kernel_valid ? g->kernel_bg_thresh : g->lim.bg_thresh) *
				       g->page_size));
	gs = mcg_dirty_global_state(g);
	ob_puts(f, "# HELP memcgctl_dirty_global_state where the system's dirty and writeback "
		   "pages stand against the thresholds: 1 for the current state, 0 for the others\n"
		   "# TYPE memcgctl_dirty_global_state gauge\n");
	for (k = 0; k < DIRTY_STATES; k++)
		ob_printf(f, "memcgctl_dirty_global_state{state=\"%s\"} %d\n", dirty_words[k],
			  (size_t)gs == k);
	/*
	 * One sample per cgroup, labelled with its current state: a cgroup
	 * that changes state ends one series and starts another, which
	 * Prometheus marks stale at once (memcgctl-export(8), DIRTY STATE).
	 */
	for (i = 0; i < s->n; i++) {
		const struct ex_row *row = &s->rows[i];

		if (row->dirty < 0)
			continue;
		if (!head) {
			ob_puts(f, "# HELP memcgctl_dirty_state where the cgroup's dirty page cache "
				   "stands (memcgctl dirty: the global domain, on v2 also the "
				   "cgroup's own): 1, labelled with the current state\n"
				   "# TYPE memcgctl_dirty_state gauge\n");
			head = true;
		}
		ob_put(f, "memcgctl_dirty_state{", 21);
		ob_puts(f, row->labels);
		ob_put(f, ",state=\"", 8);
		ob_puts(f, dirty_words[row->dirty]);
		ob_put(f, "\"} 1\n", 5);
	}
}

static void render_reclaimd(const struct ex_set *s, struct obuf *f)
{
	size_t i, k;

	for (k = 0; k < RD__COUNT; k++) {
		bool head = false;

		for (i = 0; i < s->n; i++) {
			const struct ex_row *row = &s->rows[i];

			if (!row->has_rd)
				continue;
			if (!head) {
				ob_printf(f, "# HELP %s %s\n# TYPE %s counter\n", rd_fams[k].name,
					  rd_fams[k].help, rd_fams[k].name);
				head = true;
			}
			ob_puts(f, rd_fams[k].name);
			ob_put(f, "{", 1);
			ob_puts(f, row->labels);
			ob_put(f, "} ", 2);
			if (k == RD_CPU) {
				print_seconds_ns(f, row->rd[k]);
			} else {
				ob_u64(f, row->rd[k], 1);
				ob_put(f, "\n", 1);
			}
		}
	}
}

/* The exposition of SET for the families in FAMS, appended to F. */
static void render(const struct ex_set *s, unsigned fams, struct obuf *f)
{
	char name[128];
	unsigned k;
	size_t i, nl;

	for (k = 0; k < MCG_K__COUNT; k++) {
		const struct mcg_key_desc *d = mcg_key_desc(k);
		bool head = false;

		if (!(fams & (1u << key_family(k))))
			continue;
		mcg_om_metric_name(k, name, sizeof(name));
		nl = strlen(name);
		for (i = 0; i < s->n; i++) {
			const struct mcg_record *r = s->rows[i].rec;

			if (!mcg_record_has(r, k) || unlimited(k, r->v[k]))
				continue;
			if (!head) {
				print_help(f, k, name);
				head = true;
			}
			print_sample(f, name, nl, s->rows[i].labels, d, r->v[k]);
		}
	}
	if (fams & (1u << FAM_DIRTY))
		render_dirty(s, f);
	if (fams & (1u << FAM_RECLAIMD))
		render_reclaimd(s, f);
}

/* ---- the rows by a walk: every counter of the record (stdout, --textfile) --- */

struct ex_walk {
	struct mcg_ctx *ctx;
	struct ex_set *set;
	int err;
};

static int visit(const char *path, int depth, void *userdata)
{
	struct ex_walk *w = userdata;
	struct mcg_group *g;
	struct mcg_record rec;
	struct ex_row *row;
	int r;

	r = mcg_group_open(w->ctx, path, &g);
	/*
	 * Removed during the walk. A directory the walk found that no longer
	 * holds the memory files is one the kernel is removing (every
	 * directory of the hierarchy is a cgroup), so it is skipped too.
	 */
	if (r == -ENOENT || r == -ENODEV || r == -MCG_E_NOTCGROUP)
		return 1;
	if (r < 0) {
		cli_warn("cannot open cgroup '%s': %s", out_esc(path), mcg_strerror(r));
		return 1;
	}
	r = mcg_group_read_record(g, &rec, NULL);
	mcg_group_close(g);
	if (r == -ENOENT || r == -ENODEV)
		return 1;
	if (r < 0) {
		cli_warn("cannot read cgroup '%s': %s", out_esc(path), mcg_strerror(r));
		return 0;
	}
	row = NULL;
	if (mcg__grow(&w->set->recs, &w->set->recs_cap, w->set->n, sizeof(*w->set->recs), 64) == 0)
		row = set_add(w->set, path, depth);
	if (!row) {
		w->err = -ENOMEM;
		return -ENOMEM;
	}
	w->set->recs[w->set->n - 1] = rec;
	return 0;
}

static int collect_walk(struct mcg_ctx *ctx, const char *path, int depth, struct ex_set *set)
{
	struct ex_walk w = {.ctx = ctx, .set = set};
	size_t i;
	int r;

	set_clear(set);
	r = mcg_walk(ctx, path, depth, visit, &w);
	set_done(set);
	for (i = 0; i < set->n; i++)
		set->rows[i].rec = &set->recs[i];
	return w.err ? w.err : r < 0 ? r : 0;
}

/* ---- the rows from the sampler's snapshot (--listen: kept descriptors) ---- */

/*
 * The counters the sampler reads for FAMS: those of the selected families (a
 * file no selected counter needs is never opened), and what the dirty state
 * is computed from.
 */
static void fams_keys(unsigned fams, struct mcg_keyset *ks)
{
	static const enum mcg_key dirty_keys[] = {
		MCG_K_DIRTY, MCG_K_WRITEBACK, MCG_K_INACTIVE_FILE, MCG_K_ACTIVE_FILE,
		MCG_K_EFFECTIVE_LIMIT, MCG_K_LIMIT, MCG_K_HIGH, MCG_K_USAGE,
	};
	unsigned k;
	size_t i;

	memset(ks, 0, sizeof(*ks));
	for (k = 0; k < MCG_K__COUNT; k++)
		if (fams & (1u << key_family(k)))
			mcg_keyset_add(ks, k);
	if (fams & (1u << FAM_DIRTY))
		for (i = 0; i < sizeof(dirty_keys) / sizeof(dirty_keys[0]); i++)
			mcg_keyset_add(ks, dirty_keys[i]);
}

static int collect_snapshot(const struct mcg_snapshot *snap, int depth, struct ex_set *set)
{
	size_t i;

	set_clear(set);
	set->version = snap->version;
	for (i = 0; i < snap->n_rows; i++) {
		const struct mcg_sample_row *sr = &snap->rows[i];
		struct ex_row *row;

		if (depth >= 0 && sr->depth > depth)
			continue;
		row = set_add(set, sr->path, sr->depth);
		if (!row) {
			set_done(set);
			return -ENOMEM;
		}
		row->rec = &sr->rec;
	}
	set_done(set);
	return 0;
}

/* ---- arguments --------------------------------------------------------- */

enum {
	OPT_DEPTH = 0x200,
	OPT_FAMILIES,
	OPT_TEXTFILE,
	OPT_LISTEN,
	OPT_STATE_DIR,
};

/* --listen systemd: the socket systemd passes (memcgctl-export.socket) */
#define LISTEN_SYSTEMD "systemd"

struct export_args {
	const char *cgroup;
	int depth;
	unsigned fams;
	const char *textfile;
	const char *listen;
	const char *statedir;
	uint64_t interval_ms;
	bool interval_set;
	long count; /* 0: until stopped */
	bool count_set;
};

static const struct argp_option export_options[] = {
	{"depth", OPT_DEPTH, "N", 0, "Export N levels below CGROUP (default: all)", 0},
	{"families", OPT_FAMILIES, "LIST", 0,
	 "Only these counter families, comma-separated: " FAM_LIST " (default: all)", 0},
	{"textfile", OPT_TEXTFILE, "DIR", 0,
	 "Write DIR/" TEXTFILE_NAME " atomically (for node_exporter's textfile collector)", 0},
	{"interval", 'd', "DURATION", 0, "With --textfile: write again every DURATION", 0},
	{"count", 'n', "N", 0, "With --textfile --interval: stop after N writes", 0},
	{"listen", OPT_LISTEN, "ADDR:PORT", 0,
	 "Serve /metrics over HTTP on ADDR:PORT (127.0.0.1:9756, [::1]:9756, :9756 for all), or "
	 "on the socket systemd passes with 'systemd' (memcgctl-export.socket)",
	 0},
	{"state-dir", OPT_STATE_DIR, "DIR", 0,
	 "reclaimd's counters from DIR (as async-reclaim --state-dir; default RUNDIR/async-reclaim)",
	 0},
	{0},
};

static int parse_families(const char *s, unsigned *ret)
{
	char *dup = strdup(s), *save = NULL, *tok;
	unsigned m = 0, f;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (f = 0; f < FAM__COUNT; f++)
			if (!strcmp(tok, fam_names[f]))
				break;
		if (f == FAM__COUNT) {
			free(dup);
			return -EINVAL;
		}
		m |= 1u << f;
	}
	free(dup);
	if (!m)
		return -EINVAL;
	*ret = m;
	return 0;
}

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;

	switch (key) {
	case OPT_DEPTH:
		a->depth = (int)cli_arg_long(state, "--depth", arg, 0, 1000);
		break;
	case OPT_FAMILIES:
		if (parse_families(arg, &a->fams) < 0)
			argp_error(state, "invalid --families '%s': a comma-separated list of " FAM_LIST,
				   arg);
		break;
	case OPT_TEXTFILE:
		a->textfile = arg;
		break;
	case OPT_LISTEN:
		a->listen = arg;
		break;
	case OPT_STATE_DIR:
		a->statedir = arg;
		break;
	case 'd':
		if (cli_parse_duration("--interval", arg, &a->interval_ms) < 0 || !a->interval_ms)
			argp_error(state, "invalid --interval '%s'", arg);
		a->interval_set = true;
		break;
	case 'n':
		a->count = cli_arg_long(state, "--count", arg, 1, LONG_MAX);
		a->count_set = true;
		break;
	case ARGP_KEY_END:
		if (a->textfile && a->listen)
			argp_error(state, "--textfile and --listen cannot be used together");
		if (a->interval_set && !a->textfile)
			argp_error(state, "--interval needs --textfile");
		if (a->count_set && !a->interval_set)
			argp_error(state, "--count needs --textfile and --interval");
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp export_argp = {
	export_options,
	export_parse,
	"[CGROUP]",
	"Print the counters of every memory cgroup under CGROUP (default: the whole hierarchy) "
	"in the Prometheus text exposition format: usage and limits, memory.stat amounts, reclaim "
	"and refault counters, events, failcnt and pressure, one family per counter with a "
	"cgroup label; the dirty state of each cgroup and the global dirty thresholds; reclaimd's "
	"counters. --textfile writes them for node_exporter, --listen serves them over HTTP.",
	cli_common_children,
	NULL,
	NULL,
};

/* ---- modes ------------------------------------------------------------- */

struct exporter {
	struct mcg_ctx *ctx;
	const struct export_args *a;
	const char *statedir; /* NULL: reclaimd's counters are not read */
	struct ex_set set;
	struct obuf out; /* the last exposition, its memory reused by the next */
};

/* What the rows' records give beyond the table: dirty states, reclaimd's counters. */
static void annotate(struct exporter *x)
{
	if (x->a->fams & (1u << FAM_DIRTY))
		eval_dirty(x->ctx, &x->set);
	if (x->a->fams & (1u << FAM_RECLAIMD))
		read_reclaimd(x->statedir, &x->set);
}

/* The exposition of the set into x->out. */
static int expose(struct exporter *x)
{
	annotate(x);
	x->out.n = 0;
	x->out.oom = false;
	render(&x->set, x->a->fams, &x->out);
	return x->out.oom ? -ENOMEM : 0;
}

/* The exposition of the tree by a walk, into x->out. */
static int scrape_walk(struct exporter *x, const char *path)
{
	int r;

	r = collect_walk(x->ctx, path, x->a->depth, &x->set);
	if (r < 0)
		return r;
	return expose(x);
}

struct server {
	struct exporter *x;
	struct mcg_sampler *sampler;
	unsigned flags; /* the sampler's: taskstats while delay accounting is on */
	unsigned long scrapes;
};

/*
 * The taskstats stall (MCG_K_STALL) is collected while kernel.task_delayacct
 * is 1 and the psi family is exported: the sampler follows the sysctl, seen
 * in each snapshot, from the next scrape on.
 */
static void follow_delayacct(struct server *s, const struct mcg_snapshot *snap)
{
	unsigned want = 0;

	if ((s->x->a->fams & (1u << FAM_PSI)) && snap->global.delayacct == 1)
		want = MCG_SAMPLER_TASKSTATS;
	if (want != s->flags && mcg_sampler_set_flags(s->sampler, want) == 0)
		s->flags = want;
}

/* The sampler of S for the exported families: kept descriptors across scrapes. */
static int sampler_open(struct server *s, const char *path)
{
	struct mcg_keyset keys;
	int r;

	if ((s->x->a->fams & (1u << FAM_PSI)) && mcg_delayacct_get(s->x->ctx) == 1)
		s->flags = MCG_SAMPLER_TASKSTATS;
	r = mcg_sampler_new(s->x->ctx, path, s->flags, &s->sampler);
	if (r < 0)
		return r;
	fams_keys(s->x->a->fams, &keys);
	r = mcg_sampler_set_keys(s->sampler, &keys);
	if (r < 0) {
		mcg_sampler_free(s->sampler);
		s->sampler = NULL;
	}
	return r;
}

/* The exposition of a new sample, into x->out. */
static int scrape_sampled(struct server *s)
{
	struct mcg_snapshot *snap;
	int r = mcg_sampler_sample(s->sampler, &snap);

	if (r < 0)
		return r;
	/* the rows point into the snapshot: held until rendered */
	r = collect_snapshot(snap, s->x->a->depth, &s->x->set);
	follow_delayacct(s, snap);
	if (r == 0)
		r = expose(s->x);
	s->x->set.n = 0;
	mcg_snapshot_unref(snap);
	return r;
}

static bool sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	while (!cli_interrupted && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return !cli_interrupted;
}

static int run_textfile(struct exporter *x, const char *path)
{
	const struct export_args *a = x->a;
	struct server s = {.x = x};
	long done = 0;
	int dfd, r;

	r = mcg__trusted_dir(a->textfile, 0755, false, &dfd);
	if (r < 0) {
		cli_err("cannot write to '%s': %s", out_esc(a->textfile), mcg_strerror(r));
		return EXIT_FAILURE;
	}
	/*
	 * Written again and again: the sampler's kept descriptors (at 1000 v1
	 * cgroups a write costs about an eighth of a walk's open, read and close
	 * of 13 files a cgroup). Once: the walk, which opens nothing it keeps.
	 */
	if (a->interval_set && a->count != 1) {
		r = sampler_open(&s, path);
		if (r < 0) {
			cli_err("cannot sample the memory cgroups: %s", mcg_strerror(r));
			close(dfd);
			return EXIT_FAILURE;
		}
	}
	cli_trap_signals();
	for (;;) {
		r = s.sampler ? scrape_sampled(&s) : scrape_walk(x, path);
		if (r < 0) {
			cli_err("cannot export the memory cgroups: %s", mcg_strerror(r));
			break;
		}
		r = mcg__write_atomic_at(dfd, TEXTFILE_NAME, x->out.p, x->out.n, 0644);
		if (r < 0) {
			cli_err("cannot write to '%s': %s", out_esc(a->textfile), mcg_strerror(r));
			break;
		}
		done++;
		if (!a->interval_set || (a->count_set && done >= a->count))
			break;
		if (!sleep_ms(a->interval_ms))
			break;
	}
	mcg_sampler_free(s.sampler);
	close(dfd);
	return r < 0 ? EXIT_FAILURE : EXIT_OK;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * The exposition goes out as a copy: the exporter's buffer is kept for the
 * next scrape (its 2 MiB at 1000 cgroups are not grown again every time), and
 * a response may still be in flight when the next scrape comes.
 */
static enum MHD_Result reply_metrics(struct server *s, struct MHD_Connection *c)
{
	char *body = malloc(s->x->out.n ? s->x->out.n : 1);

	if (!body)
		return MHD_NO;
	if (s->x->out.n)
		memcpy(body, s->x->out.p, s->x->out.n);
	return reply(c, MHD_HTTP_OK, body, s->x->out.n, CONTENT_TYPE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct server *s = cls;
	int r;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("method not allowed\n"), 19,
			     "text/plain");
	if (!strcmp(url, "/")) {
		static const char page[] = "memcgctl export: see /metrics\n";

		return reply(c, MHD_HTTP_OK, strdup(page), sizeof(page) - 1, "text/plain");
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, strdup("not found\n"), 10, "text/plain");
	r = scrape_sampled(s);
	if (r < 0) {
		char msg[160];
		int n = snprintf(msg, sizeof(msg), "cannot sample the memory cgroups: %s\n",
				 mcg_strerror(r));

		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, strdup(msg), (size_t)n,
			     "text/plain");
	}
	s->scrapes++;
	return reply_metrics(s, c);
}

/* Bind ADDR:PORT ("127.0.0.1:9756", "[::1]:9756", ":9756"): the listening socket or -errno. */
static int listen_on(const char *spec, char *why, size_t whylen)
{
	struct addrinfo hints = {0}, *ai = NULL;
	char host[256];
	const char *colon = strrchr(spec, ':'), *h = spec;
	size_t hl;
	int fd, on = 1, r;

	if (!colon || !colon[1]) {
		snprintf(why, whylen, "expected ADDR:PORT or '" LISTEN_SYSTEMD "'");
		return -EINVAL;
	}
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']')
		h = spec + 1, hl -= 2;
	if (hl >= sizeof(host)) {
		snprintf(why, whylen, "address too long");
		return -EINVAL;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	r = getaddrinfo(hl ? host : NULL, colon + 1, &hints, &ai);
	if (r != 0) {
		snprintf(why, whylen, "%s", gai_strerror(r));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		goto out;
	}
	r = fd;
out:
	if (r < 0)
		snprintf(why, whylen, "%s", strerror(-r));
	freeaddrinfo(ai);
	return r;
}

/*
 * --listen systemd: the one listening stream socket systemd passes
 * (LISTEN_FDS/LISTEN_PID, memcgctl-export.socket), or -errno with WHY.
 */
static int listen_systemd(char *why, size_t whylen)
{
	int n = sd_listen_fds(1), r;

	if (n < 0) {
		snprintf(why, whylen, "%s", strerror(-n));
		return n;
	}
	if (n != 1) {
		snprintf(why, whylen, "%s",
			 n ? "systemd passed more than one socket"
			   : "no socket from systemd (LISTEN_FDS; start it through "
			     "memcgctl-export.socket)");
		return -EBADF;
	}
	r = sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1);
	if (r <= 0) {
		snprintf(why, whylen, "%s",
			 r < 0 ? strerror(-r) : "the socket from systemd is not a listening stream");
		return r < 0 ? r : -ENOTSOCK;
	}
	return SD_LISTEN_FDS_START;
}

static int run_listen(struct exporter *x, const char *path)
{
	const struct export_args *a = x->a;
	struct server s = {.x = x};
	struct MHD_Daemon *d;
	char why[160];
	int fd, r;

	if (!strcmp(a->listen, LISTEN_SYSTEMD))
		fd = listen_systemd(why, sizeof(why));
	else
		fd = listen_on(a->listen, why, sizeof(why));
	if (fd < 0) {
		cli_err("cannot listen on '%s': %s", out_esc(a->listen), why);
		return fd == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
	}
	r = sampler_open(&s, path);
	if (r < 0) {
		cli_err("cannot sample the memory cgroups: %s", mcg_strerror(r));
		close(fd);
		return EXIT_FAILURE;
	}
	/*
	 * One thread: requests are answered by MHD_run_wait() below, one at a time.
	 * epoll, not select(): the sampler holds thousands of descriptors, so an
	 * accepted connection is often past FD_SETSIZE.
	 */
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | MHD_USE_EPOLL, 0, NULL, NULL, on_request, &s,
			     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
			     MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
	if (!d) {
		cli_err("cannot serve HTTP on '%s'", out_esc(a->listen));
		mcg_sampler_free(s.sampler);
		close(fd);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	while (!cli_interrupted)
		MHD_run_wait(d, 500);
	MHD_stop_daemon(d);
	close(fd);
	mcg_sampler_free(s.sampler);
	return EXIT_OK;
}

static int export_run(struct cli *cli, int argc, char **argv)
{
	struct export_args a = {.depth = -1, .fams = (1u << FAM__COUNT) - 1};
	struct exporter x = {.a = &a};
	struct mcg_group *g;
	char statedir[4096], *path;
	int r, ret;

	r = cli_parse(&export_argp, argc, argv, &a);
	if (r)
		return r;
	x.ctx = cli_ctx(cli);
	if (!x.ctx)
		return EXIT_FAILURE;
	r = cli_open_group(cli, a.cgroup ? a.cgroup : "/", &g);
	if (r < 0)
		return cli_status(r);
	path = strdup(mcg_group_path(g));
	mcg_group_close(g);
	if (!path)
		return EXIT_FAILURE;
	x.set.version = mcg_ctx_version(x.ctx);
	/* a unit label only where systemd names the cgroups (not for a --root tree) */
	x.set.units = sd_booted() > 0 && !cli->root;
	if ((a.fams & (1u << FAM_RECLAIMD)) &&
	    cli_async_statedir(cli, a.statedir, statedir, sizeof(statedir)) == 0)
		x.statedir = statedir;
	if (a.listen)
		ret = run_listen(&x, path);
	else if (a.textfile)
		ret = run_textfile(&x, path);
	else {
		r = scrape_walk(&x, path);
		if (r < 0) {
			cli_err("cannot export the memory cgroups: %s", mcg_strerror(r));
			ret = EXIT_FAILURE;
		} else {
			ret = fwrite(x.out.p, 1, x.out.n, stdout) == x.out.n && fflush(stdout) == 0
				      ? EXIT_OK
				      : EXIT_FAILURE;
		}
	}
	set_free(&x.set);
	free(x.out.p);
	free(path);
	return ret;
}

const struct mcg_cmd cmd_export = {
	.name = "export",
	.summary = "Print the counters of every cgroup for Prometheus (stdout, textfile, HTTP)",
	.argp = &export_argp,
	.run = export_run,
};
