/* cmd-export.c: "memcgctl export": the counters of every memory cgroup as Prometheus text. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "containers.h"
#include "memcg.h"

#include <memcg/openmetrics.h>

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

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
 * and the global dirty thresholds (lib/model/dirty.c's verdict over the record),
 * and reclaimd's per-cgroup counters (its stats files, lib/model/async.c).
 */

#define TEXTFILE_NAME "memcgctl.prom"

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
	FAM_OOM,
	FAM_SIZE,  /* memcgctl size's kept answers (memcgctl-size(8)) */
	FAM_STORE, /* opt-in: the history store's events (not in the default set) */
	FAM__COUNT
};
static const char *const fam_names[FAM__COUNT] = {
	"usage", "limits", "memory", "reclaim", "events", "psi", "tree", "dirty", "reclaimd", "oom", "size",
	"store",
};
#define FAM_LIST "usage, limits, memory, reclaim, events, psi, tree, dirty, reclaimd, oom, size, store"
/* the families exported when --families is not given: all but store (it reads the history) */
#define FAM_DEFAULT (((1u << FAM__COUNT) - 1) & ~(1u << FAM_STORE))

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
	/*
	 * The one-shot's standard output: the text is written out whenever the
	 * buffer would grow past OB_FIRST, so it holds one chunk, not the whole
	 * exposition (33.6 MB at 10,000 cgroups with every family). A server
	 * needs the whole text (its length, gzip), and has no sink.
	 */
	FILE *sink;
	int err; /* -errno: writing to the sink failed (the text is incomplete) */
};

/* The exposition buffer's first size; it doubles (about 2.4 KB a cgroup with every family). */
#define OB_FIRST 65536

/* Write what B holds to its sink; false (and B->err) when that fails. */
static bool ob_drain(struct obuf *b)
{
	if (b->n && fwrite(b->p, 1, b->n, b->sink) != b->n) {
		b->err = errno ? -errno : -EIO;
		return false;
	}
	b->n = 0;
	return true;
}

static bool ob_room(struct obuf *b, size_t more)
{
	char *np;
	size_t cap;

	if (b->oom || b->err)
		return false;
	/* a one-shot's text goes out before the buffer would grow */
	if (b->sink && b->n + more > b->cap && !ob_drain(b))
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
	char d[24], *p = mcg_u64_digits(v, width, d + sizeof(d));

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
	RD_HIGH, /* the watermarks: gauges, only while they mean something (has_wm) */
	RD_LOW,
	RD__COUNT
};
static const struct {
	const char *name, *help;
} rd_fams[RD__COUNT] = {
	[RD_HIGH] = {"memcgctl_reclaimd_high_watermark_bytes",
		     "usage above which reclaimd starts reclaiming from the cgroup, as it last "
		     "resolved it"},
	[RD_LOW] = {"memcgctl_reclaimd_low_watermark_bytes",
		    "usage reclaimd reclaims the cgroup down to, as it last resolved it"},
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
	uint64_t headroom; /* v2, pages: mcg_field_wb_headroom() over the rows up to the first */
	uint64_t eff;      /* v2 --listen: the effective limit from the rows (the record has none) */
	bool has_eff;
	int dirty;         /* enum mcg_dirty_state, -1 when the record has no dirty/writeback */
	bool has_rd;
	bool has_wm; /* reclaimd's watermarks hold: not in error, not without a limit */
	uint64_t rd[RD__COUNT];
	bool has_size; /* memcgctl size kept an answer for it (mcg_size_states_get) */
	struct mcg_size_state size;
	/* the counters: the sampler's snapshot row (held while rendered) */
	const struct mcg_sample_row *sr;
};

struct ex_set {
	struct ex_row *rows;
	size_t n, cap;
	size_t kept; /* rows [n, kept) hold the previous scrape's path and labels */
	int version;
	bool units; /* unit labels: systemd runs the host */
	bool dirty_valid;
	size_t skipped; /* cgroups of the tree the scrape could not read (not removed ones) */
	struct mcg_dirty_global dirty;
	uint64_t size_now_ns; /* CLOCK_REALTIME when the kept answers were read (their age) */
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
}

/* Add PATH at DEPTH (rows come in pre-order: the parent is the last row one level up). */
static struct ex_row *set_add(struct ex_set *s, const char *path, int depth)
{
	struct ex_row *r;
	char *labels = NULL, *p = NULL;

	if (mcg_grow(&s->rows, &s->cap, s->n, sizeof(*s->rows), 64) < 0)
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
		/* container, pod, namespace: one value per cgroup, no series of their own */
		labels = cli_om_container_labels(labels, path);
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

/* Row I of the set's rows, for mcg_lineage_of_rows(): its snapshot row, no record. */
static void row_lineage(const void *rows, size_t i, long *parent, const char **path,
			const struct mcg_record **ret_rec, const struct mcg_sample_row **ret_row)
{
	const struct ex_row *r = &((const struct ex_row *)rows)[i];

	*parent = (long)r->parent;
	*path = r->path;
	*ret_rec = NULL;
	*ret_row = r->sr;
}

/*
 * What the rows give beyond their records, from lib/model/fields.c: the v2
 * writeback headroom (for the dirty verdict) and, where the record has none
 * (the sampler's rows on v2), the effective limit. A subtree's limits count
 * those of its top's ancestors (read here, once a scrape), as the kernel
 * charges up the whole path; the headroom is the served tree's. The lineages
 * point into the snapshot's rows (read through their accessors) and at the
 * top's ancestors' records: no record is filled per row or ancestor.
 */
static void derive_rows(struct mcg_ctx *ctx, struct ex_set *s, uint64_t page_size)
{
	static const enum mcg_key limit[] = {MCG_K_LIMIT};
	const size_t max = MCG_WALK_MAX_DEPTH + 2;
	struct mcg_lineage_buf above = {0};
	const struct mcg_sample_row **srows;
	const struct mcg_record **lin;
	struct mcg_group *g;
	struct mcg_lineage l;
	size_t i, j, na = 0;

	if (!s->n)
		return;
	if (strcmp(s->rows[0].path, "/") && mcg_group_open(ctx, s->rows[0].path, &g) == 0) {
		if (mcg_lineage_read(g, limit, sizeof(limit) / sizeof(limit[0]), &above) == 0)
			na = above.l.n - 1; /* the ancestors, without the top itself */
		mcg_group_close(g);
	}
	lin = malloc((max + na) * sizeof(*lin));
	srows = malloc((max + na) * sizeof(*srows));
	if (!lin || !srows) {
		free(lin);
		free(srows);
		mcg_lineage_free(&above);
		return;
	}
	for (i = 0; i < s->n; i++) {
		struct ex_row *row = &s->rows[i];

		mcg_lineage_of_rows(s->rows, s->n, i, row_lineage, lin, srows, max, &l);
		row->headroom = mcg_field_wb_headroom(&l, page_size);
		/* the rows up to the top, then the top's ancestors (records: no row) */
		for (j = 0; j < na && !l.root; j++) {
			lin[l.n + j] = above.l.rec[j + 1];
			srows[l.n + j] = NULL;
		}
		if (na && !l.root) {
			l.n += na;
			l.root = above.l.root;
		}
		row->has_eff = s->version == 2 && !mcg_sample_has(row->sr, MCG_K_EFFECTIVE_LIMIT) &&
			       mcg_field_effective_limit(2, &l, &row->eff);
	}
	free(lin);
	free(srows);
	mcg_lineage_free(&above);
}

/* The dirty state of every row (lib/model/dirty.c's verdict over the row's counters). */
static void eval_dirty(struct mcg_ctx *ctx, struct ex_set *s)
{
	size_t i;

	s->dirty_valid = mcg_dirty_global_read(ctx, &s->dirty) == 0;
	if (!s->dirty_valid)
		return;
	for (i = 0; i < s->n; i++) {
		struct ex_row *row = &s->rows[i];
		struct mcg_dirty_cg c = {0};

		if (mcg_dirty_cg_from_row(row->sr, s->version, &c) < 0)
			continue;
		c.headroom = row->headroom;
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
			/*
			 * Watermarks that reclaimd could not resolve (an error, no
			 * limit, never resolved) have no sample: absent, never a 0
			 * a graph would draw as a line at the bottom.
			 */
			row->has_wm = st[i].state != MCG_ASYNC_ERROR && st[i].state != MCG_ASYNC_NOLIMIT &&
				      st[i].high && st[i].high != MCG_MAX && st[i].low <= st[i].high;
			row->rd[RD_HIGH] = st[i].high;
			row->rd[RD_LOW] = st[i].low;
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

/* ---- memcgctl size's kept answers: one small file per cgroup that has one ---- */

/*
 * Read with the trusted reader (mcg_size_states_get: a regular file of root or
 * ours under the trusted run directory, exactly what size writes); a cgroup
 * without one costs one failed openat, and no directory at all costs nothing
 * per cgroup.
 */
static void read_sizes(struct mcg_ctx *ctx, struct ex_set *s)
{
	struct mcg_size_states *st;
	size_t i;

	if (mcg_size_states_open(ctx, &st) < 0)
		return;
	for (i = 0; i < s->n; i++)
		s->rows[i].has_size = mcg_size_states_get(st, s->rows[i].path, &s->rows[i].size) == 0;
	mcg_size_states_close(st);
	s->size_now_ns = out_realtime_ns();
}

static const struct {
	const char *name, *help;
} size_fams[] = {
	{NULL, /* the names table's: mcg_value_names(MCG_F_NEEDED)->om */
	 "memory the cgroup's workload needs, as memcgctl size last found it (memcgctl-size(8)): "
	 "the usage below which reclaim began to cost it more than the target"},
	{"memcgctl_cold_bytes",
	 "memory the workload did not miss when memcgctl size last probed it: usage at the "
	 "probe's start minus the needed bytes"},
	{"memcgctl_cold_file_bytes", "the page cache part of memcgctl_cold_bytes"},
	{"memcgctl_cold_anon_bytes", "the anonymous part of memcgctl_cold_bytes (gone to swap)"},
	{"memcgctl_needed_age_seconds",
	 "seconds since memcgctl size found memcgctl_needed_bytes (a watch keeps it fresh)"},
};

/* One gauge family a kept answer's field, one sample per cgroup that has an answer. */
static void render_size(const struct ex_set *s, struct obuf *f)
{
	size_t i, k;

	for (k = 0; k < sizeof(size_fams) / sizeof(size_fams[0]); k++) {
		bool head = false, split = k == 2 || k == 3;
		const char *name = size_fams[k].name ? size_fams[k].name
						     : mcg_value_names(MCG_F_NEEDED)->om;

		for (i = 0; i < s->n; i++) {
			const struct ex_row *row = &s->rows[i];
			const struct mcg_size_state *z = &row->size;
			uint64_t v;

			if (!row->has_size || (split && !z->split_valid))
				continue;
			if (!head) {
				ob_printf(f, "# HELP %s %s\n# TYPE %s gauge\n", name,
					  size_fams[k].help, name);
				head = true;
			}
			ob_puts(f, name);
			ob_put(f, "{", 1);
			ob_puts(f, row->labels);
			ob_put(f, "} ", 2);
			if (k == 4) {
				/* a time ahead of ours (a clock stepped back) is age 0 */
				print_seconds_ns(f, s->size_now_ns > z->time_ns ? s->size_now_ns - z->time_ns : 0);
				continue;
			}
			v = k == 0 ? z->needed : k == 1 ? z->cold : k == 2 ? z->cold_file : z->cold_anon;
			ob_u64(f, v, 1);
			ob_put(f, "\n", 1);
		}
	}
}

static void render_dirty(const struct ex_set *s, struct obuf *f)
{
	const struct mcg_dirty_global *g = &s->dirty;
	const struct mcg_host_desc *th, *bg;
	enum mcg_dirty_state gs;
	bool head = false;
	size_t i, k;

	if (!s->dirty_valid)
		return;
	/* the families and the keys in their help from MCG_HOST (memcg/host.h) */
	th = mcg_host_desc(MCG_G_DIRTY_THRESH);
	bg = mcg_host_desc(MCG_G_DIRTY_BG_THRESH);
	ob_printf(f,
		  "# HELP %s writers are throttled when dirty + writeback reach it (/proc/vmstat %s)\n"
		  "# TYPE %s gauge\n"
		  "%s %llu\n",
		  th->om, th->key, th->om, th->om,
		  (unsigned long long)((g->kernel_valid ? g->kernel_thresh : g->lim.thresh) *
				       g->page_size));
	ob_printf(f,
		  "# HELP %s background writeback starts above it (/proc/vmstat %s)\n"
		  "# TYPE %s gauge\n"
		  "%s %llu\n",
		  bg->om, bg->key, bg->om, bg->om,
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

/*
 * memcgctl_oom_kills_total: the kernel's own count of OOM kills, one sample
 * per cgroup that has the counter (memcgctl-oom(8) tells each kill). Not the
 * autopsies the recorder stored: a kill it did not see still counts here.
 */
static void render_oom(const struct ex_set *s, struct obuf *f)
{
	static const char name[] = "memcgctl_oom_kills_total";
	bool head = false;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct mcg_sample_row *r = s->rows[i].sr;

		if (!mcg_sample_has(r, MCG_K_EV_OOM_KILL))
			continue;
		if (!head) {
			ob_puts(f, "# HELP memcgctl_oom_kills_total processes the kernel's OOM killer "
				   "killed in the cgroup (v1 memory.oom_control oom_kill: its own "
				   "processes; v2 memory.events oom_kill: its own and those of the "
				   "cgroups below it)\n"
				   "# TYPE memcgctl_oom_kills_total counter\n");
			head = true;
		}
		ob_put(f, name, sizeof(name) - 1);
		ob_put(f, "{", 1);
		ob_puts(f, s->rows[i].labels);
		ob_put(f, "} ", 2);
		ob_u64(f, mcg_sample_get(r, MCG_K_EV_OOM_KILL, 0), 1);
		ob_put(f, "\n", 1);
	}
}

static void render_reclaimd(const struct ex_set *s, struct obuf *f)
{
	size_t i, k;

	for (k = 0; k < RD__COUNT; k++) {
		bool head = false, wm = k == RD_HIGH || k == RD_LOW;

		for (i = 0; i < s->n; i++) {
			const struct ex_row *row = &s->rows[i];

			if (!row->has_rd || (wm && !row->has_wm))
				continue;
			if (!head) {
				ob_printf(f, "# HELP %s %s\n# TYPE %s %s\n", rd_fams[k].name,
					  rd_fams[k].help, rd_fams[k].name, wm ? "gauge" : "counter");
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
	unsigned k;
	size_t i, nl;

	for (k = 0; k < MCG_K__COUNT; k++) {
		const struct mcg_key_desc *d = mcg_key_desc(k);
		const char *name = mcg_value_names(k)->om; /* the names table's family */
		bool head = false;

		if (!(fams & (1u << key_family(k))))
			continue;
		nl = strlen(name);
		for (i = 0; i < s->n; i++) {
			const struct mcg_sample_row *r = s->rows[i].sr;
			uint64_t v;

			if (mcg_sample_has(r, k))
				v = mcg_sample_get(r, k, 0);
			else if (k == MCG_K_EFFECTIVE_LIMIT && s->rows[i].has_eff)
				v = s->rows[i].eff; /* derived from the rows (fields.c) */
			else
				continue;
			if (unlimited(k, v))
				continue;
			if (!head) {
				print_help(f, k, name);
				head = true;
			}
			print_sample(f, name, nl, s->rows[i].labels, d, v);
		}
	}
	if (fams & (1u << FAM_DIRTY))
		render_dirty(s, f);
	if (fams & (1u << FAM_RECLAIMD))
		render_reclaimd(s, f);
	if (fams & (1u << FAM_OOM))
		render_oom(s, f);
	if (fams & (1u << FAM_SIZE))
		render_size(s, f);
}

/* ---- the rows from the sampler's snapshot ---------------------------------- */

/*
 * The counters the sampler reads for FAMS: those of the selected families (a
 * file no selected counter needs is never opened), and what the dirty state
 * is computed from.
 */
static void fams_keys(int version, unsigned fams, struct mcg_keyset *ks)
{
	unsigned k;

	memset(ks, 0, sizeof(*ks));
	for (k = 0; k < MCG_K__COUNT; k++)
		if (fams & (1u << key_family(k)))
			mcg_keyset_add(ks, k);
	if (fams & (1u << FAM_DIRTY))
		mcg_dirty_keys(version, ks);
	if (fams & (1u << FAM_OOM))
		mcg_keyset_add(ks, MCG_K_EV_OOM_KILL);
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
		row->sr = sr;
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
	OPT_STORE,
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
	const char *store;
	uint64_t interval_ms;
	bool interval_set;
	long count; /* 0: until stopped */
	bool count_set;
};

static const struct argp_option export_options[] = {
	{"depth", OPT_DEPTH, "N", 0, "Export N levels below CGROUP (default: all)", 0},
	{"families", OPT_FAMILIES, "LIST", 0,
	 "Only these counter families, comma-separated: " FAM_LIST " (default: all but store)", 0},
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
	{"store", OPT_STORE, "DIR", 0,
	 "With --families store: the history store's events from DIR (default " MCG_HIST_DEFAULT_DIR
	 ")",
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
	case OPT_STORE:
		a->store = arg;
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
		if (a->store && !(a->fams & (1u << FAM_STORE)))
			argp_error(state, "--store needs --families with store");
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

static uint64_t mono_ns(void);

/* ---- the history store's events (family store, opt-in) -------------------- */

/*
 * memcgctl_store_events_total{cgroup,type} and
 * memcgctl_store_last_event_timestamp_seconds: the events `memcgctl record`
 * stored, as `dump --events` reads them (the store's own reader: every frame
 * checked, a torn or corrupt one not counted), one series per cgroup and event
 * type, the type by its name (a type the store gains is counted as it comes).
 * They cover what the store holds, which its retention bounds: when record's
 * retention removes a segment, the counts drop (a counter reset to Prometheus),
 * while the timestamp of a series' last event moves only with a new event,
 * which is why the dashboard's annotations follow the timestamp.
 */

/*
 * Series (cgroup, type) exported at most: at 1000, about 200 KB of text. Past it
 * the series whose last event is the oldest makes room (the annotations want the
 * recent ones); what was left out is counted in memcgctl_store_dropped_series and
 * memcgctl_store_dropped_events.
 */
#define STORE_SERIES_MAX 1000
/* A type label's bytes at most (an op name from the spool is a command's name). */
#define STORE_TYPE_MAX 48
/*
 * --listen and --textfile --interval: the time a scrape spends reading the store at
 * most; the rest is read at the next scrapes (a whole pass counts before it is shown).
 * A frame of 1000 cgroups decodes in well under a millisecond (bench/history.sh).
 */
#define STORE_BUDGET_NS (250ULL * 1000000)

struct sev {
	char *path; /* the event's cgroup, as stored */
	char type[STORE_TYPE_MAX];
	uint64_t n, last_ns;
	int next; /* the next of its hash bucket, -1 */
};

/* the hash buckets of the series: a power of two, twice the most series */
#define SEV_BUCKETS 2048

struct sev_tab {
	struct sev *s;
	size_t n, cap;
	int *head; /* SEV_BUCKETS heads, -1: empty; NULL until the first series */
	uint64_t dropped_series, dropped_events;
	uint64_t frames, corrupt;
	uint64_t first_ns, last_ns; /* the frames read */
};

enum store_state {
	STORE_READ,      /* read to its end: the counts are whole */
	STORE_READING,   /* a pass not yet at the end (--listen's budget): counts of a prefix */
	STORE_ABSENT,    /* no store at the path */
	STORE_DENIED,    /* not readable by this user */
	STORE_UNTRUSTED, /* not root's, or writable by others: not read (as dump) */
	STORE_ERROR,     /* anything else */
	STORE__COUNT
};
static const char *const store_states[STORE__COUNT] = {
	"read", "reading", "absent", "denied", "untrusted", "error",
};

struct store_pass {
	struct mcg_hist_reader *r;
	struct sev_tab t;
	bool done;	     /* reached the end of the store once */
	char first_seg[64]; /* the segment of its first frame (retention removes it first) */
};

struct store {
	const char *dir;
	const char *under; /* the exported CGROUP */
	int depth;
	bool units;
	struct store_pass *cur;	 /* shown once done; follows the store as it grows */
	struct store_pass *next; /* a new pass after retention removed cur's first segment */
	int state;
	int err;
	bool warned;
};

static void sev_tab_free(struct sev_tab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i].path);
	free(t->s);
	free(t->head);
	memset(t, 0, sizeof(*t));
}

static void pass_free(struct store_pass **pp)
{
	struct store_pass *p = *pp;

	if (!p)
		return;
	mcg_hist_reader_free(p->r);
	sev_tab_free(&p->t);
	free(p);
	*pp = NULL;
}

/*
 * The type label of E: its name, a change by its op, lower case with each run of
 * other bytes as one _ ("set-limit" is set_limit, "empty --kernel" empty_kernel).
 */
static void sev_type(const struct mcg_hist_event *e, char *buf, size_t len)
{
	const char *name = e->type == MCG_HEV_CHANGE && e->op ? e->op : mcg_hist_event_name(e->type);
	size_t o = 0;
	bool gap = false;

	if (!name) {
		snprintf(buf, len, "type_%d", e->type);
		return;
	}
	for (; *name && o + 2 < len; name++) {
		char c = *name;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (gap && o)
				buf[o++] = '_';
			buf[o++] = c;
			gap = false;
		} else {
			gap = true;
		}
	}
	if (!o)
		buf[o++] = '_';
	buf[o] = '\0';
}

/* Is PATH the exported CGROUP or below it, within --depth? */
static bool sev_wanted(const struct store *st, const char *path)
{
	const char *u = st->under, *p;
	size_t l;
	int d = 0;

	if (!path || path[0] != '/')
		return false;
	while (*u == '/')
		u++;
	l = strlen(u);
	while (l && u[l - 1] == '/')
		l--;
	if (l && (strncmp(path + 1, u, l) || (path[1 + l] && path[1 + l] != '/')))
		return false;
	if (st->depth < 0)
		return true;
	for (p = path + 1 + l; *p; p++)
		if (*p == '/' && p[1])
			d++;
	if (!l && path[1])
		d++;
	return d <= st->depth;
}

/* FNV-1a of PATH and TYPE: the bucket of a series */
static unsigned sev_hash(const char *path, const char *type)
{
	uint32_t h = 2166136261u;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 16777619u;
	h = (h ^ 0xffu) * 16777619u; /* no path and type run together */
	for (; *type; type++)
		h = (h ^ (unsigned char)*type) * 16777619u;
	return h & (SEV_BUCKETS - 1);
}

static void sev_unlink(struct sev_tab *t, int i)
{
	int *pp = &t->head[sev_hash(t->s[i].path, t->s[i].type)];

	while (*pp >= 0 && *pp != i)
		pp = &t->s[*pp].next;
	if (*pp == i)
		*pp = t->s[i].next;
}

static void sev_add(struct store *st, struct sev_tab *t, const struct mcg_hist_event *e)
{
	char type[STORE_TYPE_MAX];
	unsigned h;
	size_t i, old;
	struct sev *s;
	int k;

	if (!sev_wanted(st, e->cgroup))
		return;
	sev_type(e, type, sizeof(type));
	if (!t->head) {
		t->head = malloc(SEV_BUCKETS * sizeof(*t->head));
		if (!t->head) {
			t->dropped_events++;
			return;
		}
		memset(t->head, 0xff, SEV_BUCKETS * sizeof(*t->head)); /* every head -1 */
	}
	h = sev_hash(e->cgroup, type);
	for (k = t->head[h]; k >= 0; k = t->s[k].next) {
		s = &t->s[k];
		if (!strcmp(s->type, type) && !strcmp(s->path, e->cgroup)) {
			s->n++;
			if (e->time_ns > s->last_ns)
				s->last_ns = e->time_ns;
			return;
		}
	}
	if (t->n >= STORE_SERIES_MAX) {
		/* the series whose last event is the oldest makes room, unless this one is older */
		for (old = 0, i = 1; i < t->n; i++)
			if (t->s[i].last_ns < t->s[old].last_ns)
				old = i;
		s = &t->s[old];
		t->dropped_series++;
		if (s->last_ns > e->time_ns) {
			t->dropped_events++;
			return;
		}
		t->dropped_events += s->n;
		sev_unlink(t, (int)old);
		free(s->path);
		s->path = NULL;
	} else {
		if (mcg_grow(&t->s, &t->cap, t->n, sizeof(*t->s), 64) < 0) {
			t->dropped_events++;
			return;
		}
		s = &t->s[t->n++];
	}
	s->path = strdup(e->cgroup);
	if (!s->path) {
		/* no room for its name: the slot goes (the last one moves into it) */
		size_t at = (size_t)(s - t->s), last = --t->n;

		t->dropped_events++;
		if (at != last) {
			sev_unlink(t, (int)last);
			t->s[at] = t->s[last];
			t->s[at].next = t->head[sev_hash(t->s[at].path, t->s[at].type)];
			t->head[sev_hash(t->s[at].path, t->s[at].type)] = (int)at;
		}
		return;
	}
	snprintf(s->type, sizeof(s->type), "%s", type);
	s->n = 1;
	s->last_ns = e->time_ns;
	k = (int)(s - t->s);
	s->next = t->head[h];
	t->head[h] = k;
}

/* the reader's report of a frame it cannot use: a torn last one is a recorder writing */
static void store_bad(void *userdata, const char *segment, unsigned frame, uint64_t offset,
		      const char *why)
{
	struct store_pass *p = userdata;

	(void)segment;
	(void)frame;
	(void)offset;
	if (strncmp(why, MCG_HIST_WHY_TORN, strlen(MCG_HIST_WHY_TORN)))
		p->t.corrupt++;
}

static int store_state_of(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		return STORE_ABSENT;
	case -EACCES:
	case -EPERM:
		return STORE_DENIED;
	case -MCG_E_UNTRUSTED:
	case -ELOOP:
		return STORE_UNTRUSTED;
	default:
		return STORE_ERROR;
	}
}

/*
 * Read P on from where it stopped, until the store's end (0) or BUDGET_NS of
 * CLOCK_MONOTONIC (0: none) have gone (1: not at the end), or -errno. Only
 * whole frames count: the reader checks each, and a frame a recorder is still
 * writing is read at the next call.
 */
static int pass_read(struct store *st, struct store_pass **pp, uint64_t budget_ns)
{
	uint64_t t0 = mono_ns();
	struct store_pass *p = *pp;
	struct mcg_hist_frame *f;
	int rc;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		rc = mcg_hist_reader_open(st->dir, store_bad, p, &p->r);
		if (rc < 0) {
			free(p);
			return rc;
		}
		*pp = p;
	}
	while ((rc = mcg_hist_next(p->r, &f)) == 0) {
		size_t i;

		if (!p->t.frames++) {
			p->t.first_ns = f->time_ns;
			snprintf(p->first_seg, sizeof(p->first_seg), "%s", f->segment);
		}
		p->t.last_ns = f->time_ns;
		for (i = 0; i < f->nev; i++)
			sev_add(st, &p->t, &f->ev[i]);
		mcg_hist_frame_free(f);
		if (budget_ns && mono_ns() - t0 > budget_ns)
			return 1;
	}
	if (rc != -ENOENT)
		return rc;
	p->done = true;
	return 0;
}

/* Is the segment of P's first frame still in the store? (retention removes the oldest first) */
static bool pass_current(const struct store *st, const struct store_pass *p)
{
	char name[4096 + 64];
	struct stat sb;

	if (!p->first_seg[0])
		return true;
	snprintf(name, sizeof(name), "%s/%s", st->dir, p->first_seg);
	return lstat(name, &sb) == 0;
}

/* Before a scrape renders: the store read on (BUDGET_NS: 0, to its end). */
static void store_scrape(struct store *st, uint64_t budget_ns)
{
	struct store_pass *np;
	int rc;

	if (st->cur && st->cur->done && !pass_current(st, st->cur)) {
		/* retention removed what cur counted: a new pass, cur shown until it is done */
		rc = pass_read(st, &st->next, budget_ns);
		if (rc == 0) {
			np = st->next;
			st->next = NULL;
			pass_free(&st->cur);
			st->cur = np;
		}
		if (rc >= 0) {
			st->state = STORE_READ;
			return;
		}
	} else {
		rc = pass_read(st, &st->cur, budget_ns);
		if (rc >= 0) {
			st->err = 0;
			st->state = rc == 0 ? STORE_READ : STORE_READING;
			return;
		}
	}
	/* gone or unreadable: no series, a new pass at the next scrape */
	pass_free(&st->cur);
	pass_free(&st->next);
	st->err = rc;
	st->state = store_state_of(rc);
}

static void store_free(struct store *st)
{
	pass_free(&st->cur);
	pass_free(&st->next);
}

static void render_store(const struct store *st, struct obuf *f)
{
	const struct sev_tab *t = st->cur ? &st->cur->t : NULL;
	bool shown = st->cur && st->cur->done;
	size_t i;
	int k;

	ob_puts(f, "# HELP memcgctl_store_state where export stands with the history store "
		   "(memcgctl record's, --store): 1 for the current state (read: to its end; "
		   "reading: not yet; absent, denied, untrusted, error: not read, no event series), "
		   "0 for the others\n"
		   "# TYPE memcgctl_store_state gauge\n");
	for (k = 0; k < STORE__COUNT; k++)
		ob_printf(f, "memcgctl_store_state{state=\"%s\"} %d\n", store_states[k], st->state == k);
	if (!shown)
		return;
	ob_puts(f, "# HELP memcgctl_store_events_total events the history store holds, by cgroup "
		   "and type (as memcgctl dump --events reads them; the store's retention bounds "
		   "them: a removed segment lowers the count)\n"
		   "# TYPE memcgctl_store_events_total counter\n");
	for (i = 0; i < t->n; i++) {
		char *l = mcg_om_cgroup_labels(t->s[i].path, st->units);

		if (!l)
			continue;
		ob_printf(f, "memcgctl_store_events_total{%s,type=\"%s\"} %llu\n", l, t->s[i].type,
			  (unsigned long long)t->s[i].n);
		free(l);
	}
	ob_puts(f, "# HELP memcgctl_store_last_event_timestamp_seconds time of the last event of "
		   "the type on the cgroup in the history store, seconds since the epoch\n"
		   "# TYPE memcgctl_store_last_event_timestamp_seconds gauge\n");
	for (i = 0; i < t->n; i++) {
		char *l = mcg_om_cgroup_labels(t->s[i].path, st->units);

		if (!l)
			continue;
		ob_printf(f, "memcgctl_store_last_event_timestamp_seconds{%s,type=\"%s\"} ", l,
			  t->s[i].type);
		print_seconds_ns(f, t->s[i].last_ns);
		free(l);
	}
	ob_printf(f,
		  "# HELP memcgctl_store_series_limit event series (cgroup, type) export shows at "
		  "most\n"
		  "# TYPE memcgctl_store_series_limit gauge\n"
		  "memcgctl_store_series_limit %d\n"
		  "# HELP memcgctl_store_dropped_series event series left out past the limit (those "
		  "whose last event is the oldest)\n"
		  "# TYPE memcgctl_store_dropped_series gauge\n"
		  "memcgctl_store_dropped_series %llu\n"
		  "# HELP memcgctl_store_dropped_events events of the series left out\n"
		  "# TYPE memcgctl_store_dropped_events gauge\n"
		  "memcgctl_store_dropped_events %llu\n"
		  "# HELP memcgctl_store_corrupt_frames frames of the store that could not be read "
		  "(not counted; a recorder's torn last frame is not one)\n"
		  "# TYPE memcgctl_store_corrupt_frames gauge\n"
		  "memcgctl_store_corrupt_frames %llu\n"
		  "# HELP memcgctl_store_frames frames (samples) of the store read\n"
		  "# TYPE memcgctl_store_frames gauge\n"
		  "memcgctl_store_frames %llu\n",
		  STORE_SERIES_MAX, (unsigned long long)t->dropped_series,
		  (unsigned long long)t->dropped_events, (unsigned long long)t->corrupt,
		  (unsigned long long)t->frames);
	if (t->frames) {
		ob_puts(f, "# HELP memcgctl_store_first_frame_timestamp_seconds time of the oldest "
			   "frame read: the events counted are since then\n"
			   "# TYPE memcgctl_store_first_frame_timestamp_seconds gauge\n"
			   "memcgctl_store_first_frame_timestamp_seconds ");
		print_seconds_ns(f, t->first_ns);
		ob_puts(f, "# HELP memcgctl_store_last_frame_timestamp_seconds time of the newest "
			   "frame read\n"
			   "# TYPE memcgctl_store_last_frame_timestamp_seconds gauge\n"
			   "memcgctl_store_last_frame_timestamp_seconds ");
		print_seconds_ns(f, t->last_ns);
	}
}

/* ---- modes ------------------------------------------------------------- */

struct exporter {
	struct mcg_ctx *ctx;
	const struct export_args *a;
	const char *statedir; /* NULL: reclaimd's counters are not read */
	struct ex_set set;
	struct obuf out; /* the last exposition, its memory reused by the next */
	bool scrape_meta; /* --listen: say whether the exposition is whole, and how long it took */
	bool build_info;  /* --listen, --textfile: memcgctl_build_info */
	struct store store;    /* --families store */
	uint64_t store_budget; /* ns a scrape reads the store at most; 0: to its end */
	uint64_t t0_ns;	  /* CLOCK_MONOTONIC: the scrape's start (memcgctl_scrape_duration_seconds) */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* What the rows' records give beyond the table: dirty states, reclaimd's counters. */
static void annotate(struct exporter *x)
{
	/* v1's records carry both (memory.stat's hierarchical limit; no writeback domain) */
	if (x->set.version == 2)
		derive_rows(x->ctx, &x->set, (uint64_t)mcg_page_size());
	if (x->a->fams & (1u << FAM_DIRTY))
		eval_dirty(x->ctx, &x->set);
	if (x->a->fams & (1u << FAM_RECLAIMD))
		read_reclaimd(x->statedir, &x->set);
	if (x->a->fams & (1u << FAM_SIZE))
		read_sizes(x->ctx, &x->set);
}

/* The exposition of the set into x->out. */
static int expose(struct exporter *x)
{
	annotate(x);
	x->out.n = 0;
	x->out.oom = false;
	x->out.err = 0;
	render(&x->set, x->a->fams, &x->out);
	if (x->a->fams & (1u << FAM_STORE)) {
		store_scrape(&x->store, x->store_budget);
		/* the other families go on: the reason is a sample, and said once */
		if (x->store.state >= STORE_ABSENT && !x->store.warned) {
			cli_warn("no events from the history store '%s': %s", out_esc(x->store.dir),
				 mcg_strerror(x->store.err));
			x->store.warned = true;
		} else if (x->store.state < STORE_ABSENT) {
			x->store.warned = false;
		}
		render_store(&x->store, &x->out);
	}
	/*
	 * A scrape that could not read every cgroup is served, marked: a 503
	 * would make Prometheus drop the cgroups it did read as well (up 0),
	 * a plain 200 would look healthy while most of them are missing.
	 */
	if (x->scrape_meta)
		ob_printf(
			&x->out,
			"# HELP memcgctl_scrape_complete 1 when this exposition holds every "
			"cgroup of the served tree, 0 when some could not be read\n"
			"# TYPE memcgctl_scrape_complete gauge\n"
			"memcgctl_scrape_complete %d\n"
			"# HELP memcgctl_scrape_skipped_cgroups cgroups this exposition leaves out "
			"or holds only in part, for a reason other than their removal (out of file "
			"descriptors)\n"
			"# TYPE memcgctl_scrape_skipped_cgroups gauge\n"
			"memcgctl_scrape_skipped_cgroups %zu\n",
			!x->set.skipped, x->set.skipped);
	if (x->build_info)
		ob_puts(&x->out, "# HELP memcgctl_build_info the memcgctl that wrote this exposition: "
				 "1, labelled with its version\n"
				 "# TYPE memcgctl_build_info gauge\n"
				 "memcgctl_build_info{version=\"" MEMCG_VERSION "\"} 1\n");
	/* the last: sampling and rendering, not compressing nor sending */
	if (x->scrape_meta) {
		ob_puts(&x->out, "# HELP memcgctl_scrape_duration_seconds time this scrape took to "
				 "sample the cgroups and render the exposition (not to compress or "
				 "send it)\n"
				 "# TYPE memcgctl_scrape_duration_seconds gauge\n"
				 "memcgctl_scrape_duration_seconds ");
		print_seconds_ns(&x->out, mono_ns() - x->t0_ns);
	}
	if (x->out.err)
		return x->out.err;
	return x->out.oom ? -ENOMEM : 0;
}

/*
 * The exposition of one sample, into x->out: the sampler once (the files of
 * the exported families' counters, opened, read and closed; nothing kept).
 */
static int scrape_once(struct exporter *x, const char *path)
{
	struct mcg_snapshot *snap = NULL;
	struct mcg_sampler *sm;
	struct mcg_keyset keys;
	int r;

	x->t0_ns = mono_ns();
	r = mcg_sampler_new(x->ctx, path, MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &sm);
	if (r < 0)
		return r;
	fams_keys(mcg_ctx_version(x->ctx), x->a->fams, &keys);
	r = mcg_sampler_set_keys(sm, &keys);
	if (r == 0)
		r = mcg_sampler_set_depth(sm, x->a->depth);
	if (r == 0)
		r = mcg_sampler_sample(sm, &snap);
	mcg_sampler_free(sm);
	if (r < 0)
		return r;
	/* the rows point into the snapshot: held until rendered */
	r = collect_snapshot(snap, x->a->depth, &x->set);
	x->set.skipped = snap->incomplete;
	if (r == 0)
		r = expose(x);
	x->set.n = 0;
	mcg_snapshot_unref(snap);
	return r;
}

struct conn;

struct server {
	struct exporter *x;
	struct mcg_sampler *sampler;
	unsigned flags; /* the sampler's: taskstats while delay accounting is on */
	unsigned long scrapes;
	/* --listen's clients */
	struct conn *conns;
	size_t unread; /* bytes of answers queued and not yet sent */
	int diag;      /* NETLINK_SOCK_DIAG, for a peer's uid; -1 until needed */
	uint32_t diag_seq;
	char *tcp; /* /proc/net/tcp, read for a peer's uid without sock_diag */
	size_t tcp_cap;
	uint64_t log_window; /* s */
	unsigned log_n;
	unsigned long log_dropped;
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

/*
 * Descriptors held back while the sampler runs, so that what it keeps never takes
 * the last ones: after a sample that ran out (a low hard RLIMIT_NOFILE, a partial
 * scrape), the server can still accept its connections (MHD's limit is 64) and
 * answer. Without them, a primed sampler left accept(2) nothing but EMFILE and every
 * client waited in the backlog for ever.
 */
#define SAMPLE_RESERVE_FDS 72
static int sample_reserve[SAMPLE_RESERVE_FDS];

static int sample_held(struct mcg_sampler *sm, struct mcg_snapshot **snap)
{
	int i, r;

	for (i = 0; i < SAMPLE_RESERVE_FDS; i++)
		sample_reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	r = mcg_sampler_sample(sm, snap);
	for (i = 0; i < SAMPLE_RESERVE_FDS; i++)
		if (sample_reserve[i] >= 0)
			close(sample_reserve[i]);
	return r;
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
	fams_keys(mcg_ctx_version(s->x->ctx), s->x->a->fams, &keys);
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
	int r;

	s->x->t0_ns = mono_ns();
	r = sample_held(s->sampler, &snap);

	if (r < 0)
		return r;
	/* the rows point into the snapshot: held until rendered */
	r = collect_snapshot(snap, s->x->a->depth, &s->x->set);
	s->x->set.skipped = snap->incomplete;
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
	bool partial = false;
	long done = 0;
	int dfd, r;

	x->build_info = true;
	r = mcg_trusted_dir(a->textfile, 0755, false, &dfd);
	if (r < 0) {
		cli_err("cannot write to '%s': %s", out_esc(a->textfile), mcg_strerror(r));
		return EXIT_FAILURE;
	}
	/*
	 * Written again and again: the sampler's kept descriptors (at 1000 v1
	 * cgroups a write costs about an eighth of an open, read and close of
	 * 13 files a cgroup). Once: the sampler once, which keeps nothing.
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
		r = s.sampler ? scrape_sampled(&s) : scrape_once(x, path);
		if (r < 0) {
			cli_err("cannot export the memory cgroups: %s", mcg_strerror(r));
			break;
		}
		/* never a partial exposition in place of a whole one: the previous file stays */
		partial = x->set.skipped > 0;
		if (partial)
			cli_warn("not writing '%s/" TEXTFILE_NAME
				 "': %zu cgroup(s) could not be read; "
				 "the previous file is kept",
				 out_esc(a->textfile), x->set.skipped);
		else
			r = mcg_write_atomic_at(dfd, TEXTFILE_NAME, x->out.p, x->out.n, 0644);
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
	return r < 0 || partial ? EXIT_FAILURE : EXIT_OK;
}

/*
 * --listen bounds every client (memcgctl-export(8), LIMITS). A client is a
 * local uid when the peer is on this host (its end of the connection in
 * /proc/net/tcp, which the kernel fills and the client cannot choose: every
 * local user shares 127.0.0.1), else its address. Root is not limited per
 * client (it can stop the server anyway), only by CONN_MAX.
 */
#define CONN_MAX	  256	      /* connections at once, all clients */
#define CLIENT_CONN_MAX	  8	      /* connections at once of one client */
#define REQUEST_MS	  5000	      /* accept (or the previous answer's end) to a whole request */
#define ANSWER_MS	  10000	      /* a whole request to the last byte of its answer */
#define IDLE_S		  5u	      /* libmicrohttpd's per-connection idle timeout */
#define CONN_MEMORY	  (16u << 10) /* libmicrohttpd's buffer for one connection's request */
#define UNREAD_MAX	  (32u << 20) /* bytes of answers queued and not yet sent, all clients */
#define CLIENT_UNREAD_MAX (4u << 20)  /* of one client, beyond its first answer */
#define TCP_TABLE_MAX	  (64u << 20) /* /proc/net/tcp read for a peer's uid */
#define LOG_BURST	  10	      /* HTTP log lines per LOG_WINDOW_S; the rest are counted */
#define LOG_WINDOW_S	  60

struct conn {
	struct conn *next, **pprev;
	int fd;
	bool root;	/* the peer is a local root process */
	bool answering; /* its request is in, the answer queued */
	bool cut;	/* shut down: libmicrohttpd closes it */
	uint64_t since; /* ms: accepted, the last answer sent, or the request in */
	size_t unread;	/* bytes of its queued answer */
	char key[64];	/* the client: "uid N" or the address */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* At most LOG_BURST lines a LOG_WINDOW_S: a client sending garbage cannot flood the journal. */
static void vlog_limited(struct server *s, const char *fmt, va_list ap)
{
	uint64_t now = now_ms() / 1000;
	char line[512];
	size_t n;

	if (now - s->log_window >= LOG_WINDOW_S) {
		if (s->log_dropped)
			cli_warn("%lu more HTTP message(s) in %d s not logged", s->log_dropped,
				 LOG_WINDOW_S);
		s->log_window = now;
		s->log_n = 0;
		s->log_dropped = 0;
	}
	if (s->log_n >= LOG_BURST) {
		s->log_dropped++;
		return;
	}
	s->log_n++;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	cli_warn("%s", out_esc(line));
}

static void log_limited(struct server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void log_limited(struct server *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_limited(s, fmt, ap);
	va_end(ap);
}

/* libmicrohttpd's messages (malformed requests, out of memory) */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	vlog_limited(cls, fmt, ap);
}

static void tcp_end(const struct sockaddr_storage *ss, struct mcg_om_tcp_end *e)
{
	memset(e, 0, sizeof(*e));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		e->addr[0] = in->sin_addr.s_addr;
		e->port = ntohs(in->sin_port);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		e->v6 = true;
		memcpy(e->addr, &in6->sin6_addr, 16);
		e->port = ntohs(in6->sin6_port);
	}
}

/*
 * The uid owning the client's end of a local connection: the kernel's socket
 * table asked for that one socket by its addresses and ports (sock_diag, as
 * ss does; a lookup, not a dump, whatever the number of sockets). 0 and *UID,
 * or -errno (-ENOENT: not a socket of this host).
 */
static int diag_uid(struct server *s, const struct sockaddr_storage *peer,
		    const struct sockaddr_storage *me, uint32_t *uid)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = ++s->diag_seq},
		.r = {.sdiag_protocol = IPPROTO_TCP,
		      .idiag_states = ~0u,
		      .id = {.idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}},
	};
	union {
		struct nlmsghdr h;
		char b[8192];
	} ans;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	ssize_t n;

	if (peer->ss_family == AF_INET6) {
		const struct sockaddr_in6 *p = (const void *)peer, *m = (const void *)me;

		if (IN6_IS_ADDR_V4MAPPED(&p->sin6_addr)) {
			/* a v4 client of a dual-stack socket: its own socket is AF_INET */
			req.r.sdiag_family = AF_INET;
			memcpy(req.r.id.idiag_src, &p->sin6_addr.s6_addr[12], 4);
			memcpy(req.r.id.idiag_dst, &m->sin6_addr.s6_addr[12], 4);
		} else {
			req.r.sdiag_family = AF_INET6;
			memcpy(req.r.id.idiag_src, &p->sin6_addr, 16);
			memcpy(req.r.id.idiag_dst, &m->sin6_addr, 16);
		}
		req.r.id.idiag_sport = p->sin6_port;
		req.r.id.idiag_dport = m->sin6_port;
	} else {
		const struct sockaddr_in *p = (const void *)peer, *m = (const void *)me;

		req.r.sdiag_family = AF_INET;
		memcpy(req.r.id.idiag_src, &p->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &m->sin_addr, 4);
		req.r.id.idiag_sport = p->sin_port;
		req.r.id.idiag_dport = m->sin_port;
	}
	if (s->diag < 0) {
		s->diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		if (s->diag < 0)
			return -errno;
	}
	if (sendto(s->diag, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *h;

		n = recv(s->diag, &ans, sizeof(ans), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		for (h = &ans.h; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != s->diag_seq)
				continue; /* the answer to an earlier lookup */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error
					       ? e->error
					       : -ENOENT;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
				*uid = ((const struct inet_diag_msg *)NLMSG_DATA(h))->idiag_uid;
				return 0;
			}
		}
	}
}

/* FILE (/proc/net/tcp or tcp6) into s->tcp: its length, or -errno. */
static ssize_t read_tcp_table(struct server *s, const char *file)
{
	size_t n = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (n == s->tcp_cap) {
			size_t cap = s->tcp_cap ? s->tcp_cap * 2 : 65536;
			char *p = cap <= TCP_TABLE_MAX ? realloc(s->tcp, cap) : NULL;

			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			s->tcp = p;
			s->tcp_cap = cap;
		}
		got = read(fd, s->tcp + n, s->tcp_cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close(fd);
			return got < 0 ? -errno : (ssize_t)n;
		}
		n += (size_t)got;
	}
}

/*
 * The uid of a local peer of FD, or -errno: by sock_diag, else (no
 * NETLINK_SOCK_DIAG: an old kernel, a sandbox without AF_NETLINK) by the
 * client's line in /proc/net/tcp{,6}, read whole.
 */
static int peer_uid(struct server *s, int fd, uint32_t *uid)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	struct mcg_om_tcp_end l, r;
	ssize_t n;
	int e;

	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0)
		return -errno;
	if (me.ss_family != peer.ss_family ||
	    (peer.ss_family != AF_INET && peer.ss_family != AF_INET6))
		return -EAFNOSUPPORT;
	e = diag_uid(s, &peer, &me, uid);
	if (e != -EPROTONOSUPPORT && e != -EAFNOSUPPORT && e != -EPERM && e != -EACCES)
		return e;
	tcp_end(&peer, &l); /* the client's socket: its local end is our peer */
	tcp_end(&me, &r);
	if (l.v6 && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)l.addr)) {
		l.v6 = r.v6 = false;
		l.addr[0] = l.addr[3];
		r.addr[0] = r.addr[3];
	}
	n = read_tcp_table(s, l.v6 ? "/proc/net/tcp6" : "/proc/net/tcp");
	if (n < 0)
		return (int)n;
	return mcg_om_tcp_owner(s->tcp, (size_t)n, &l, &r, uid);
}

/* The client of connection FD: "uid N" for a local peer, else its address. */
static void client_key(struct server *s, struct conn *cn)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	char host[INET6_ADDRSTRLEN] = "?";
	uint32_t uid;

	if (peer_uid(s, cn->fd, &uid) == 0) {
		snprintf(cn->key, sizeof(cn->key), "uid %u", uid);
		cn->root = uid == 0;
		return;
	}
	if (getpeername(cn->fd, (struct sockaddr *)&peer, &pl) == 0)
		getnameinfo((struct sockaddr *)&peer, pl, host, sizeof(host), NULL, 0,
			    NI_NUMERICHOST);
	snprintf(cn->key, sizeof(cn->key), "%s", host);
}

/* Close CN: libmicrohttpd sees the end at its next read or write and closes the connection. */
static void cut(struct conn *cn)
{
	cn->cut = true;
	shutdown(cn->fd, SHUT_RDWR);
}

/* The connections and unread bytes of CN's client, CN not counted. */
static void client_load(struct server *s, const struct conn *cn, unsigned *conns, size_t *unread)
{
	const struct conn *o;

	*conns = 0;
	*unread = 0;
	for (o = s->conns; o; o = o->next)
		if (o != cn && !o->cut && !strcmp(o->key, cn->key)) {
			(*conns)++;
			*unread += o->unread;
		}
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct server *s = cls;
	struct conn *cn = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		unsigned conns;
		size_t unread;

		cn = calloc(1, sizeof(*cn));
		if (!cn || !ci) {
			/* untracked, it would escape the deadlines: closed */
			if (ci)
				shutdown(ci->connect_fd, SHUT_RDWR);
			free(cn);
			return;
		}
		cn->fd = ci->connect_fd;
		cn->since = now_ms();
		client_key(s, cn);
		cn->next = s->conns;
		if (s->conns)
			s->conns->pprev = &cn->next;
		cn->pprev = &s->conns;
		s->conns = cn;
		*socket_context = cn;
		client_load(s, cn, &conns, &unread);
		if (!cn->root && conns >= CLIENT_CONN_MAX) {
			log_limited(s, "closing a connection of %s: it has %u open already",
				    cn->key, conns);
			cut(cn);
		}
		return;
	}
	if (!cn) /* MHD_CONNECTION_NOTIFY_CLOSED of one never tracked */
		return;
	*cn->pprev = cn->next;
	if (cn->next)
		cn->next->pprev = cn->pprev;
	s->unread -= cn->unread;
	free(cn);
	*socket_context = NULL;
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* An answer sent (or given up): the connection waits for its next request, its bytes freed. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;
	struct conn *cn = conn_of(c);

	(void)req;
	(void)toe;
	if (!cn)
		return;
	s->unread -= cn->unread;
	cn->unread = 0;
	cn->answering = false;
	cn->since = now_ms();
}

/* Close every connection past its deadline (called between libmicrohttpd's rounds). */
static void sweep(struct server *s)
{
	uint64_t now = now_ms();
	struct conn *cn;

	for (cn = s->conns; cn; cn = cn->next) {
		uint64_t limit = cn->answering ? ANSWER_MS : REQUEST_MS;

		if (cn->cut || now - cn->since <= limit)
			continue;
		log_limited(s, "closing a connection of %s: no %s within %llu s", cn->key,
			    cn->answering ? "read of the answer" : "whole request",
			    (unsigned long long)limit / 1000);
		cut(cn);
	}
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

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	char *body = strdup(text);

	return body ? reply(c, status, body, strlen(text), "text/plain") : MHD_NO;
}

/*
 * Room for an answer of about N bytes not yet read: a client's first is
 * always let through (the probe of a busy server is answered), more only
 * within CLIENT_UNREAD_MAX, and all clients' within UNREAD_MAX.
 */
static bool unread_room(struct server *s, const struct conn *cn, size_t n)
{
	unsigned conns;
	size_t mine;

	if (!cn)
		return false;
	client_load(s, cn, &conns, &mine);
	if (mine && mine + n > CLIENT_UNREAD_MAX && !cn->root)
		return false;
	return !s->unread || s->unread + n <= UNREAD_MAX;
}

/*
 * The gzip level of an answer: zlib's default, 6, as the Go exporters'
 * gzip.DefaultCompression. At 1000 v1 cgroups (2.0 MB of text) zlib took
 * 14.0 ms at level 1 for 105 KB, 19.8 ms at 6 for 97 KB, 89 ms at 9 for 91 KB
 * (one run, side by side): 9 costs four times 6 for 6% less.
 */
#define GZIP_LEVEL Z_DEFAULT_COMPRESSION

/* IN, N bytes, as one gzip member into a new buffer (*OUTN bytes), or NULL. */
static char *gzip_body(const char *in, size_t n, size_t *outn)
{
	z_stream z;
	char *out = NULL;
	uLong bound;

	if (n > UINT_MAX)
		return NULL;
	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	bound = deflateBound(&z, (uLong)n);
	if (bound <= UINT_MAX)
		out = malloc(bound);
	if (out) {
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)n;
		z.next_out = (Bytef *)out;
		z.avail_out = (uInt)bound;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
			*outn = z.total_out;
		} else {
			free(out);
			out = NULL;
		}
	}
	deflateEnd(&z);
	return out;
}

/*
 * The exposition goes out as a copy: the exporter's buffer is kept for the
 * next scrape (its 2 MiB at 1000 cgroups are not grown again every time), and
 * a response may still be in flight when the next scrape comes. The copies
 * not yet sent are bounded (unread_room). The copy is in the format and the
 * coding the request asks for (Accept, Accept-Encoding: mcg_om_negotiate),
 * compressed once, here.
 */
static enum MHD_Result reply_metrics(struct server *s, struct conn *cn, struct MHD_Connection *c)
{
	unsigned want = mcg_om_negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	const char *type = MCG_OM_CONTENT_TYPE_TEXT;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	bool gz = false;
	char *body;
	size_t n;

	if (want & MCG_OM_WANT_OPENMETRICS) {
		if (mcg_om_to_openmetrics(s->x->out.p ? s->x->out.p : "", s->x->out.n, &body, &n) < 0)
			return MHD_NO;
		type = MCG_OM_CONTENT_TYPE_OPENMETRICS;
	} else if ((want & MCG_OM_WANT_GZIP) && s->x->out.n &&
		   (body = gzip_body(s->x->out.p, s->x->out.n, &n))) {
		/* compressed straight from the kept exposition: no plain copy */
		want &= ~(unsigned)MCG_OM_WANT_GZIP;
		gz = true;
	} else {
		n = s->x->out.n;
		body = malloc(n ? n : 1);
		if (!body)
			return MHD_NO;
		if (n)
			memcpy(body, s->x->out.p, n);
	}
	if (want & MCG_OM_WANT_GZIP) {
		size_t zn;
		char *z = gzip_body(body, n, &zn);

		/* zlib out of memory: the answer goes out as it is, which the client also reads */
		if (z) {
			free(body);
			body = z;
			n = zn;
			gz = true;
		}
	}
	resp = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* a cache between must not hand one client's format or coding to another */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	if (gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	if (ret == MHD_YES) {
		cn->unread = n;
		s->unread += cn->unread;
	}
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct server *s = cls;
	struct conn *cn = conn_of(c);
	int r;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (cn) {
		cn->answering = true;
		cn->since = now_ms();
	}
	switch (mcg_om_route(method, url)) {
	case MCG_OM_BAD_METHOD:
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	case MCG_OM_INDEX:
		return reply_text(c, MHD_HTTP_OK, "memcgctl export: see /metrics\n");
	case MCG_OM_NOT_FOUND:
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
	default:
		break;
	}
	/* by the last exposition's size: the scrape itself is not run for a refused one */
	if (!unread_room(s, cn, s->x->out.n)) {
		log_limited(s, "answering 503 to %s: too many answers not yet read",
			    cn ? cn->key : "?");
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "too many answers not yet read: try again\n");
	}
	r = scrape_sampled(s);
	if (r < 0) {
		char msg[160];

		snprintf(msg, sizeof(msg), "cannot sample the memory cgroups: %s\n",
			 mcg_strerror(r));
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
	}
	s->scrapes++;
	return reply_metrics(s, cn, c);
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
	{
		const char *q = colon + 1;
		unsigned long port = 0;

		size_t digits = strspn(q, "0123456789");

		/* the spec is echoed escaped by the caller: only digits here */
		if (q[digits] || !digits) {
			snprintf(why, whylen, "the port must be a number from 1 to 65535");
			return -EINVAL;
		}
		for (; *q && port <= 65535; q++)
			port = port * 10 + (unsigned long)(*q - '0');
		if (!port || port > 65535) {
			snprintf(why, whylen, "port %.*s is not in the range 1-65535",
				 digits > 20 ? 20 : (int)digits, colon + 1);
			return -EINVAL;
		}
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

/*
 * Type=notify (memcgctl-export.service): READY=1 once the socket listens and the sampler
 * has opened its files (the first scrape costs what every scrape does), STATUS= where it
 * serves, STOPPING=1 on SIGTERM. Nothing without $NOTIFY_SOCKET. Only numbers and the
 * address as given (escaped) go into a state: no cgroup name (cli_notify).
 * Where FD listens, "127.0.0.1:9756" or "[::1]:9756" (STATUS=): numbers, never a name.
 */
static void listen_where(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(buf, len, "a socket");
		return;
	}
	snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/* The first sample, before READY=1: it opens every file the scrapes read; the rows, or -errno. */
static ssize_t sampler_prime(struct server *s)
{
	struct mcg_snapshot *snap;
	ssize_t n;
	int r;

	r = sample_held(s->sampler, &snap);
	if (r < 0)
		return r;
	follow_delayacct(s, snap);
	n = (ssize_t)snap->n_rows;
	mcg_snapshot_unref(snap);
	return n;
}

static int run_listen(struct exporter *x, const char *path)
{
	const struct export_args *a = x->a;
	struct server s = {.x = x, .diag = -1};
	struct MHD_Daemon *d;
	char why[160], where[NI_MAXHOST + NI_MAXSERV + 4];
	ssize_t primed;
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
	x->scrape_meta = true;
	x->build_info = true;
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | MHD_USE_EPOLL, 0, NULL, NULL, on_request, &s,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &s, /* first: all messages */
			     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, IDLE_S,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_MAX,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, &s,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, &s, MHD_OPTION_END);
	if (!d) {
		cli_err("cannot serve HTTP on '%s'", out_esc(a->listen));
		mcg_sampler_free(s.sampler);
		close(fd);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	primed = sampler_prime(&s);
	listen_where(fd, where, sizeof(where));
	if (primed < 0) {
		/* it listens all the same: each scrape samples again, and says why it cannot */
		cli_warn("cannot sample the memory cgroups: %s (trying again at each scrape)",
			 mcg_strerror((int)primed));
		cli_notify("exporter", "READY=1\nSTATUS=serving /metrics on %s; cannot sample: %s", where,
			      mcg_strerror((int)primed));
	} else {
		cli_notify("exporter", "READY=1\nSTATUS=serving /metrics on %s (%zd cgroup%s)", where,
			      primed, primed == 1 ? "" : "s");
	}
	/* a quarter second between sweeps: the deadlines hold to that */
	while (!cli_interrupted) {
		MHD_run_wait(d, 250);
		sweep(&s);
	}
	cli_notify("exporter", "STOPPING=1\nSTATUS=stopping (signal)");
	MHD_stop_daemon(d);
	close(fd);
	mcg_sampler_free(s.sampler);
	free(s.tcp);
	if (s.diag >= 0)
		close(s.diag);
	return EXIT_OK;
}

/*
 * As top and record: --listen's sampler keeps a descriptor per file and
 * directory (about 6 a v1 cgroup), and a walk that runs out leaves cgroups out.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int export_run(struct cli *cli, int argc, char **argv)
{
	struct export_args a = {.depth = -1, .fams = FAM_DEFAULT};
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
	raise_nofile();
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
	x.store.dir = a.store ? a.store : MCG_HIST_DEFAULT_DIR;
	x.store.under = path;
	x.store.depth = a.depth;
	x.store.units = x.set.units;
	/* a server reads what it has not read yet, within a bound per scrape */
	if (a.listen || a.interval_set)
		x.store_budget = STORE_BUDGET_NS;
	if (a.listen)
		ret = run_listen(&x, path);
	else if (a.textfile)
		ret = run_textfile(&x, path);
	else {
		/* written out chunk by chunk as it is rendered (what is left, below) */
		x.out.sink = stdout;
		r = scrape_once(&x, path);
		if (r < 0) {
			cli_err("cannot export the memory cgroups%s: %s",
				x.out.err ? " (writing the exposition)" : "", mcg_strerror(r));
			ret = EXIT_FAILURE;
		} else {
			ret = EXIT_OK;
			if (!ob_drain(&x.out) || fflush(stdout) != 0) {
				cli_err("cannot write the exposition: %s",
					mcg_strerror(x.out.err ? x.out.err : -errno));
				ret = EXIT_FAILURE;
			}
			if (x.set.skipped) {
				cli_err("the exposition is incomplete: %zu cgroup(s) could not be "
					"read",
					x.set.skipped);
				ret = EXIT_FAILURE;
			}
		}
	}
	set_free(&x.set);
	store_free(&x.store);
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
