/* memcg/sample.h: libmemcg's public interface for 'top' (included by memcg.h). */
#ifndef MEMCG_SAMPLE_H
#define MEMCG_SAMPLE_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/sample.h>"
#endif

/*
 * The sampler walks the memory hierarchy once, keeps a descriptor open on each
 * control file it reads and rereads them with pread() on every sample. Children
 * appearing and vanishing are seen through inotify on the directories (a full
 * rescan when inotify is unavailable or overflows). Each sample returns an
 * immutable, reference-counted snapshot: rows in tree pre-order with a parent
 * index, raw counters with a validity bit each, and per-second rates against
 * the previous snapshot (valid only when both values exist and did not go back).
 */

/*
 * A row holds only the counters its snapshot has columns for (the counters
 * the sampler was asked for, mcg_sampler_set_keys(), that it can read on this
 * hierarchy): for each, one cell in the snapshot's block of cells.
 */
struct mcg_sample_cell {
	uint64_t v;     /* the value (valid when the row's valid has the key) */
	double rate;    /* per second over the last interval (when rate_valid has it) */
	uint64_t since; /* an event counter's count since the row was first seen */
};
#define MCG_SAMPLE_NOCOL 0xff
/* A snapshot's columns: counter -> its cell in each row. */
struct mcg_sample_cols {
	struct mcg_keyset keys; /* the counters a row may hold */
	unsigned n;
	unsigned char col[MCG_K__COUNT]; /* MCG_SAMPLE_NOCOL: no cell */
	unsigned char key[MCG_K__COUNT]; /* cell c holds counter key[c] (c < n) */
};

/*
 * One row: the counters of the snapshot's columns (absent stays absent), with
 * rates and since-start counts. Read them through the accessors below; a
 * consumer that needs a whole struct mcg_record fills one with
 * mcg_sample_record().
 */
struct mcg_sample_row {
	const char *path; /* relative to the root: "/", "/a", "/a/b" */
	const char *name; /* last component ("/" for the root) */
	int depth;        /* 0 for the root of the walk */
	int parent;       /* row index of the parent, -1 for the first row */
	uint64_t id;      /* identity across snapshots (a cgroup recreated gets a new id) */
	struct mcg_keyset valid; /* the counters with a value (within cols->keys) */
	/*
	 * Rates (an amount's change, an event counter's increase, per second
	 * over the last interval) that were computed: a counter seen in both
	 * samples that did not go back.
	 */
	struct mcg_keyset rate_valid;
	const struct mcg_sample_cols *cols; /* the snapshot's */
	struct mcg_sample_cell *cell;       /* cols->n cells */
	const struct mcg_psi *psi;          /* memory.pressure's averages; NULL: none */
	int async; /* async-reclaim: 1 on, 0 off, -1 unknown (no state directory) */
	/*
	 * -errno: one of its files that is there could not be read (not its
	 * absence, not the cgroup's removal); its counters are what could be.
	 */
	int err;
	/*
	 * With mcg_sampler_set_detail(): how many samples old the counters of
	 * the snapshot's detail_keys are (0: read in this one), and when
	 * (CLOCK_MONOTONIC) they were read. Rates of those counters are taken
	 * between their reads.
	 */
	unsigned stale;
	uint64_t detail_ns;
};
/* (valid and rate_valid hold only counters with a cell: the setters and the sampler see to it) */
static inline bool mcg_sample_has(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_keyset_has(&r->valid, k);
}
/* The value of K, DFLT when the row has none. */
static inline uint64_t mcg_sample_get(const struct mcg_sample_row *r, enum mcg_key k,
				      uint64_t dflt)
{
	return mcg_sample_has(r, k) ? r->cell[r->cols->col[k]].v : dflt;
}
static inline bool mcg_sample_rate_has(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_keyset_has(&r->rate_valid, k);
}
/* The rate of K, 0 when none was computed. */
static inline double mcg_sample_rate(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_sample_rate_has(r, k) ? r->cell[r->cols->col[k]].rate : 0;
}
/* The since-start count of event counter K (0 when the row has no value). */
static inline uint64_t mcg_sample_since(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_sample_has(r, k) ? r->cell[r->cols->col[k]].since : 0;
}
/* memory.pressure's averages, with their validity (none: both invalid). */
static inline const struct mcg_psi *mcg_sample_psi(const struct mcg_sample_row *r)
{
	static const struct mcg_psi none;

	return r->psi ? r->psi : &none;
}
/* ROW's counters and pressure as a whole record (for lineages, history frames, fields). */
MCG_EXPORT void mcg_sample_record(const struct mcg_sample_row *row, struct mcg_record *ret);
/*
 * For snapshots built by hand (mcg_snapshot_new()): set K's value, rate or
 * since-start count (and its validity); false when the row has no column for K.
 */
MCG_EXPORT bool mcg_sample_set(struct mcg_sample_row *row, enum mcg_key k, uint64_t v);
MCG_EXPORT bool mcg_sample_set_rate(struct mcg_sample_row *row, enum mcg_key k, double rate);
MCG_EXPORT bool mcg_sample_set_since(struct mcg_sample_row *row, enum mcg_key k, uint64_t since);

/*
 * The host-wide counters of a sample (MCG_HOST, memcg/host.h): the one
 * reader's struct, the rates of its rate rows, delay accounting.
 */
struct mcg_sample_global {
	struct mcg_host host;
	double rate[MCG_G__COUNT];
	uint64_t rate_valid; /* bit g: rate[g] known (rows whose desc says rate) */
	int delayacct; /* /proc/sys/kernel/task_delayacct: 1, 0, -1 unknown */
};

struct mcg_snapshot {
	int version;
	uint64_t seq;      /* 1 for the first snapshot of a sampler */
	double interval;   /* seconds since the previous snapshot, 0 for the first */
	uint64_t mono_ns;  /* CLOCK_MONOTONIC when taken */
	uint64_t page_size;
	/*
	 * The counters of the files a live view reads in turn (memory.stat,
	 * memory.events, ...: mcg_sampler_set_detail): a row may carry them from
	 * an earlier read (row->stale, row->detail_ns) and their rates are taken
	 * between reads. Empty in a snapshot built by hand: the interval counts.
	 */
	struct mcg_keyset detail_keys;
	struct mcg_sample_cols cols; /* the counters its rows may hold, and their cells */
	size_t n_rows;
	struct mcg_sample_row *rows;
	struct mcg_sample_global global;
	bool taskstats;     /* stall times were collected */
	int taskstats_err;  /* 0, or why they were not (-EPERM, -ENOTSUP for delayacct off) */
	/*
	 * Rows whose cgroup could not be opened or listed for want of file
	 * descriptors (EMFILE, ENFILE): their counters or children are missing
	 * from this snapshot (tried again at the next). 0 when it is whole.
	 */
	size_t incomplete;
	/* private */
	int refs;
	char *strings;
	struct mcg_sample_cell *cells; /* n_rows x cols.n */
	struct mcg_psi *psis;          /* one a row, when a row can have pressure; or NULL */
	size_t cap_rows, cap_str;      /* allocated (a sampler reuses them) */
};

struct mcg_sampler;

enum {
	MCG_SAMPLER_TASKSTATS = 1 << 0, /* collect per-cgroup direct-reclaim stall times */
	/*
	 * One sample (or few, far apart): no inotify watches; the tree is read
	 * again at each sample. For `top -b -n 1` and dirty.
	 */
	MCG_SAMPLER_ONESHOT = 1 << 1,
	/* the cgroups only: no host-wide counters (global) and no async-reclaim state */
	MCG_SAMPLER_CGROUPS_ONLY = 1 << 2,
	/*
	 * One sample, read as a one-shot command reads (list, one-shot export;
	 * given to mcg_sampler_new): nothing kept, neither descriptors (each file
	 * is opened, read and closed, a directory held only while its subtree is
	 * read) nor values for a next sample; a directory is listed when the
	 * sample reaches it (and with mcg_sampler_set_depth() not below the
	 * depth); a directory that is not a memory cgroup (v2: the memory
	 * controller not enabled for it) is left out with what lies below it;
	 * v1 memory.stat's local keys stand in for missing total_ ones, as
	 * mcg_group_read_record() reads them. Implies ONESHOT; no rates (a
	 * first snapshot has none).
	 */
	MCG_SAMPLER_ONCE = 1 << 3,
};

/* Sample the tree under PATH ("/" for everything), reading the counters top shows. */
MCG_EXPORT int mcg_sampler_new(struct mcg_ctx *ctx, const char *path, unsigned flags,
			       struct mcg_sampler **ret);
/*
 * Read the counters of KEYS from the next sample on (the derived ones bring
 * their sources; NULL: every counter of the table). Only the files they need
 * are opened. The default is mcg_sampler_default_keys().
 */
MCG_EXPORT int mcg_sampler_set_keys(struct mcg_sampler *s, const struct mcg_keyset *keys);
/* The counters top shows: usage, limits, anon/file/dirty/writeback, reclaim, events, PSI, stall. */
MCG_EXPORT void mcg_sampler_default_keys(struct mcg_keyset *keys);
/*
 * For a live view: read every counter only for the rows whose ids are in IDS
 * (those on screen). The others get the cheap counters every sample (the
 * single-value files: usage, limit, high, failcnt) and the rest (memory.stat,
 * memory.events, memory.pressure, ...) every ROTATE samples in turn, carried
 * in between: row->stale says how many samples old they are, at most
 * ROTATE - 1. ROTATE 0 (the default): every row in full every sample, as
 * batch and JSON output need.
 */
MCG_EXPORT int mcg_sampler_set_detail(struct mcg_sampler *s, const uint64_t *ids, size_t n,
				      unsigned rotate);
/*
 * An idle cgroup (usage 0 at this sample and at the one before) carries its
 * other files (memory.stat, memory.events, memory.pressure, v1 memsw usage
 * and memory.oom_control, peak, cgroup.procs' count) from its last read and
 * reads them again every EVERY samples, spread so that each sample reads
 * about 1/EVERY of the idle cgroups; in between they are taken as unchanged
 * (row->stale 0, their rates 0), as an empty cgroup's memory.stat always was.
 * What that misses for up to EVERY - 1 samples: a task moved into it that
 * has not allocated (nr_procs), an OOM kill of a task whose memory is charged
 * elsewhere, or one whose memory was freed before the next sample
 * (events_oom_kill, under_oom), swap freed while usage stays 0 (v1 memsw),
 * and event counters of charges made and freed between two samples. Usage,
 * and the limits through inotify, are read as before: a cgroup whose usage
 * moves is read in full at once. EVERY 0 or 1: every sample; the default is
 * MCG_SAMPLER_IDLE_EVERY. Not for one-shots (MCG_SAMPLER_ONCE), which read once.
 */
#define MCG_SAMPLER_IDLE_EVERY 10
MCG_EXPORT void mcg_sampler_set_idle(struct mcg_sampler *s, unsigned every);
/*
 * Below a cgroup whose counters of ZERO all read 0 (hierarchical counters,
 * such as dirty and writeback: nothing below can have any), nothing is read
 * and no row is given, except on the way to a path of mcg_sampler_set_keep().
 * The cgroup's own row is given. NULL: every cgroup is read.
 */
MCG_EXPORT int mcg_sampler_set_prune(struct mcg_sampler *s, const struct mcg_keyset *zero);
/*
 * PATHS (relative to the hierarchy root) and their ancestors are read
 * whatever the pruning; with ONLY, nothing else is (besides the top), and the
 * rows only on the way to them (ancestors and the top that are not in PATHS)
 * carry only the single-value files (usage, limits, failcnt): memory.stat
 * and the other detail files of a parent of a thousand cgroups cost far more
 * than the named cgroups' own, and nobody asked for them.
 */
MCG_EXPORT int mcg_sampler_set_keep(struct mcg_sampler *s, const char *const *paths, size_t n,
				    bool only);
/* Rows at most DEPTH levels below the top (0: the top alone; -1, the default: all). */
MCG_EXPORT int mcg_sampler_set_depth(struct mcg_sampler *s, int depth);
MCG_EXPORT void mcg_sampler_free(struct mcg_sampler *s);
MCG_EXPORT int mcg_sampler_set_flags(struct mcg_sampler *s, unsigned flags);
/* Take a snapshot (rates against the previous one). The caller owns one reference. */
MCG_EXPORT int mcg_sampler_sample(struct mcg_sampler *s, struct mcg_snapshot **ret);
/* Number of open descriptors the sampler keeps (for tests and the benchmark). */
MCG_EXPORT size_t mcg_sampler_nfds(const struct mcg_sampler *s);

/*
 * A snapshot of N_ROWS zeroed rows for counters KEYS (NULL: every counter),
 * one reference, to be filled by hand (the history reader, tests): rows get
 * their cells; strings are the caller's to set (freed with the snapshot).
 */
MCG_EXPORT int mcg_snapshot_new(const struct mcg_keyset *keys, size_t n_rows,
				struct mcg_snapshot **ret);
MCG_EXPORT struct mcg_snapshot *mcg_snapshot_ref(struct mcg_snapshot *snap);
MCG_EXPORT void mcg_snapshot_unref(struct mcg_snapshot *snap);

/*
 * Fill CUR's rates and since-start counts from PREV (NULL: first snapshot), matching
 * rows by id. A counter that went back (reset, cgroup recreated) has no rate for
 * that interval; its since-start count continues from the new value.
 */
MCG_EXPORT void mcg_snapshot_rates(const struct mcg_snapshot *prev, struct mcg_snapshot *cur);
/*
 * Rows of SNAP by identity: mcg_snapshot_index() orders them by id (free()
 * the array; NULL without memory), mcg_snapshot_find() finds the row with ID
 * through it, or NULL (also with a NULL index).
 */
MCG_EXPORT const struct mcg_sample_row **mcg_snapshot_index(const struct mcg_snapshot *snap);
MCG_EXPORT const struct mcg_sample_row *mcg_snapshot_find(const struct mcg_snapshot *snap,
							  const struct mcg_sample_row *const *idx,
							  uint64_t id);

/* ---- taskstats (generic netlink): direct-reclaim delay per task ---- */
struct mcg_taskstats;
/* -EPERM without CAP_NET_ADMIN, -ENOENT when the TASKSTATS family is missing. */
MCG_EXPORT int mcg_taskstats_open(struct mcg_taskstats **ret);
MCG_EXPORT void mcg_taskstats_close(struct mcg_taskstats *ts);
/* freepages_delay_total (ns) and freepages_count of TGID (all its threads). */
MCG_EXPORT int mcg_taskstats_tgid(struct mcg_taskstats *ts, pid_t tgid, uint64_t *ret_delay_ns,
				  uint64_t *ret_count);
/* Memory delays of one task group (ns; counts): direct reclaim and thrashing (refault waits). */
struct mcg_task_delays {
	uint64_t freepages_ns, freepages_count;
	uint64_t thrashing_ns, thrashing_count;
};
MCG_EXPORT int mcg_taskstats_tgid_delays(struct mcg_taskstats *ts, pid_t tgid,
					 struct mcg_task_delays *ret);
/* kernel.task_delayacct: 1, 0, or -errno. */
MCG_EXPORT int mcg_delayacct_get(const struct mcg_ctx *ctx);
MCG_EXPORT int mcg_delayacct_set(const struct mcg_ctx *ctx, bool on);

#endif
