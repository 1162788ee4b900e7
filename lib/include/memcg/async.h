/* memcg/async.h: libmemcg's public interface for 'async-reclaim' (included by memcg.h). */
#ifndef MEMCG_ASYNC_H
#define MEMCG_ASYNC_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/async.h>"
#endif

/*
 * Background watermark reclaim. A cgroup is enabled by a small file in the
 * state directory; one daemon (memcgctl reclaimd, daemon/ in the source tree)
 * serves every enabled cgroup:
 * when usage crosses the high watermark it reclaims down to the low one in
 * bounded steps (mcg_reclaim_step), within a CPU budget, and backs off from a
 * cgroup that refaults what it reclaims.
 */

enum {
	MCG_ASYNC_HIGH_MARGIN = 1 << 0, /* high is a margin below the limit */
	MCG_ASYNC_LOW_MARGIN = 1 << 1,  /* low is a margin below the limit */
	MCG_ASYNC_HIGH_SET = 1 << 2,    /* high given (else the default margin) */
	MCG_ASYNC_LOW_SET = 1 << 3,     /* low given (else the default margin) */
	MCG_ASYNC_CLEAN = 1 << 4,       /* reclaim ahead even when the cache is clean */
};

/* Defaults: --batch pages per step, --max-cpu percent of one CPU. */
#define MCG_ASYNC_DEFAULT_BATCH 1024
#define MCG_ASYNC_DEFAULT_MAX_CPU 5.0

struct mcg_async_conf {
	char path[4096]; /* cgroup path relative to the hierarchy root */
	char root[4096]; /* the hierarchy root it belongs to */
	/*
	 * The cgroup directory enabled (st_dev, st_ino; on v2 the inode number
	 * is the cgroup id): a cgroup removed and made again under the same
	 * path is another cgroup, not served under this file.
	 */
	uint64_t dev, ino;
	uint64_t high, low; /* bytes, absolute or margins per flags */
	unsigned flags;
	unsigned batch;  /* pages per reclaim step, 1..MCG_ASYNC_MAX_BATCH */
	double max_cpu;  /* percent of one CPU, 0.001..100 in steps of 0.001 */
};
#define MCG_ASYNC_MAX_BATCH (1U << 20)

/* The default margins below LIMIT: high = limit - *ret_high_margin, low likewise. */
MCG_EXPORT void mcg_async_default_margins(uint64_t limit, uint64_t *ret_high_margin,
					  uint64_t *ret_low_margin);
/*
 * Resolve the watermarks of C against LIMIT. -EDOM: no limit (MCG_MAX);
 * -ERANGE: a watermark is not below the limit, or low is not below high
 * (or a margin is larger than the limit).
 */
MCG_EXPORT int mcg_async_watermarks(const struct mcg_async_conf *c, uint64_t limit,
				    uint64_t *ret_high, uint64_t *ret_low);

/* The state directory: <run dir>/async-reclaim unless set. */
MCG_EXPORT int mcg_async_statedir(const struct mcg_ctx *ctx, char *buf, size_t len);
/*
 * The state directory and every file in it are trusted only as the run
 * directory is: the directory (and its stats/) must be owned by the
 * effective uid and writable by nobody else, and is never reached through a
 * symlink (-MCG_E_UNTRUSTED otherwise); files below it are opened with
 * O_NOFOLLOW and written as NAME.tmp (O_EXCL) renamed over NAME. A file that
 * is not exactly what memcgctl writes (magic line, known keys, values in
 * range, a file name that matches the cgroup it names, never the root
 * cgroup) is corrupt: listed by mcg_async_corrupt_list(), never served.
 */
/* C for the cgroup G with the defaults: path, root, identity, batch, max_cpu. */
MCG_EXPORT int mcg_async_conf_init(struct mcg_async_conf *c, const struct mcg_group *g);
/* Write (create or replace) the enable file for C->path. */
MCG_EXPORT int mcg_async_enable(const char *statedir, const struct mcg_async_conf *c);
/* Remove the enable file (and the stats) of PATH; -ENOENT if it was not enabled. */
MCG_EXPORT int mcg_async_disable(const char *statedir, const char *root, const char *path);
/* Read one enable file (-MCG_E_CORRUPT: not what memcgctl writes, or named for another cgroup). */
MCG_EXPORT int mcg_async_conf_read(const char *file, struct mcg_async_conf *ret);
/* Every valid enable file, sorted by path; free() the array. */
MCG_EXPORT int mcg_async_list(const char *statedir, struct mcg_async_conf **ret, size_t *ret_n);

/* A file of the state directory that memcgctl ignores because it did not write it so. */
struct mcg_async_corrupt {
	char file[300]; /* relative to the state directory: "NAME.conf" or "stats/NAME" */
	char why[96];   /* a short reason */
};
/* Every corrupt enable and stats file, sorted by name; free() the array. */
MCG_EXPORT int mcg_async_corrupt_list(const char *statedir, struct mcg_async_corrupt **ret,
				      size_t *ret_n);
/* Open (create) reclaimd.log in STATEDIR for appending, never through a link: the fd. */
MCG_EXPORT int mcg_async_log_open(const char *statedir);

/* What the daemon did for one cgroup, kept in <statedir>/stats/. */
enum mcg_async_state {
	MCG_ASYNC_WAITING = 0,  /* below the high watermark, waiting for an event */
	MCG_ASYNC_RECLAIMING,   /* between the watermarks, reclaiming */
	MCG_ASYNC_THROTTLED,    /* over its CPU budget, deferred */
	MCG_ASYNC_THRASHING,    /* refaults keep pace with reclaim: backing off */
	MCG_ASYNC_GONE,         /* the cgroup was removed while enabled */
	MCG_ASYNC_NOLIMIT,      /* the limit was removed: nothing to stay under */
	MCG_ASYNC_ERROR,        /* the last attempt failed (see last_error) */
	MCG_ASYNC_CLEAN_SKIP,   /* above high, but the cache is clean: left to the kernel */
};
MCG_EXPORT const char *mcg_async_state_name(enum mcg_async_state s);

struct mcg_async_stats {
	char path[4096];
	char root[4096];
	enum mcg_async_state state;
	pid_t pid;                 /* the daemon that wrote it */
	uint64_t limit, high, low; /* as last resolved */
	uint64_t usage;            /* at the last update */
	uint64_t reclaimed;        /* bytes, usage before - after, summed over steps */
	uint64_t wakeups;          /* events and timers that found usage above high */
	uint64_t steps;            /* reclaim steps */
	uint64_t short_steps;      /* steps the kernel ended short (EBUSY, EAGAIN) */
	uint64_t cpu_ns;           /* CPU time spent for this cgroup */
	uint64_t deferred;         /* times the CPU budget postponed reclaim */
	uint64_t refaulted;        /* file refault bytes seen while enabled */
	uint64_t thrash_episodes;  /* back-offs for thrashing */
	uint64_t clean_skips;      /* wake-ups left to the kernel: the cache was clean */
	/*
	 * v1 bursts stopped because another writer changed the limit while
	 * reclaimd had it lowered: their value is kept (never written over)
	 * and the next burst starts from it.
	 */
	uint64_t conflicts;
	uint64_t dev, ino;         /* the cgroup's identity, as in its enable file */
	double refault_ratio;      /* refaults / reclaimed over the last window */
	int last_error;            /* -errno of the last failure, 0 if none */
	int64_t last_error_time;   /* unix seconds */
	int64_t enabled_time;      /* unix seconds the daemon started serving it */
	int64_t updated;           /* unix seconds */
	char event_source[32];     /* "eventfd", "psi+events", "timer" */
};
MCG_EXPORT int mcg_async_stats_read(const char *statedir, const char *root, const char *path,
				    struct mcg_async_stats *ret);
/* Every stats file (also of cgroups no longer enabled, e.g. removed ones), sorted; free(). */
MCG_EXPORT int mcg_async_stats_list(const char *statedir, struct mcg_async_stats **ret,
				    size_t *ret_n);
MCG_EXPORT int mcg_async_stats_write(const char *statedir, const struct mcg_async_stats *s);

/* The daemon's own totals, kept in <statedir>/stats/reclaimd. */
struct mcg_reclaimd_info {
	pid_t pid;        /* 0 when no daemon runs */
	int64_t started;  /* unix seconds */
	uint64_t cpu_ns;  /* total CPU time of the daemon */
	uint64_t wakeups; /* epoll wake-ups of any kind */
	double max_cpu;   /* the largest budget of the cgroups it serves */
};
/* Is a daemon serving STATEDIR? Fills RET: pid 0 if none, -1 if one is starting. */
MCG_EXPORT int mcg_reclaimd_info(const char *statedir, struct mcg_reclaimd_info *ret);

/*
 * ---- policy: the daemon's decisions as pure functions ----------------------
 * No I/O and no clock: times are monotonic nanoseconds passed in (a clock
 * that goes backwards never refills, never expires a back-off and never
 * shortens a wait), counters are bytes. The daemon (memcgctl reclaimd) reads
 * the files and the clocks and acts on what these return.
 */
#define MCG_POLICY_NSEC 1000000000ULL
#define MCG_POLICY_MSEC 1000000ULL

/*
 * A slow timer behind every event source: catches a lost event and a limit
 * changed by someone else (v1 has no event for that) within a second, at one
 * read of two files per cgroup and second.
 */
#define MCG_POLICY_FALLBACK_NS (1 * MCG_POLICY_NSEC)

/*
 * CPU budget: a token bucket of CPU nanoseconds, refilled at max_cpu percent
 * of wall time and spent by the measured CPU cost of each burst. It may be
 * saved up for MCG_POLICY_BUDGET_BURST_NS of wall time (a burst after an idle
 * period), and goes negative by at most one step's overrun (a step is never
 * cut short).
 */
#define MCG_POLICY_BUDGET_BURST_NS (2 * MCG_POLICY_NSEC)
/* Look again this long after the bucket is back to zero: then it is positive. */
#define MCG_POLICY_BUDGET_SLACK_NS (1 * MCG_POLICY_MSEC)
/* The longest wait a decision returns: a wait is decided again by then, never overflows. */
#define MCG_POLICY_WAIT_MAX_NS (3600 * MCG_POLICY_NSEC)
struct mcg_policy_budget {
	double tokens_ns;   /* CPU nanoseconds that may be spent now (negative: owed) */
	uint64_t refill_ns; /* when it was last refilled */
	double max_cpu;     /* percent of one CPU */
};
/* A full bucket (a new cgroup, or a changed max_cpu) at NOW. */
MCG_EXPORT void mcg_policy_budget_init(struct mcg_policy_budget *b, double max_cpu, uint64_t now);
/* Add what NOW - refill_ns earns, up to the burst cap. */
MCG_EXPORT void mcg_policy_budget_refill(struct mcg_policy_budget *b, uint64_t now);
/* Take COST_NS (measured CPU time of a burst). */
MCG_EXPORT void mcg_policy_budget_spend(struct mcg_policy_budget *b, uint64_t cost_ns);
/* Is a burst that has used USED_NS so far out of budget (stop after this step)? */
MCG_EXPORT bool mcg_policy_budget_exhausted(const struct mcg_policy_budget *b, uint64_t used_ns);
/*
 * How long to wait before reclaiming again: 0 while tokens are left; else
 * until the refill brings the bucket back above zero (plus the slack), at
 * most MCG_POLICY_WAIT_MAX_NS (also when max_cpu is 0).
 */
MCG_EXPORT uint64_t mcg_policy_budget_wait(const struct mcg_policy_budget *b);

/*
 * Thrashing: over a window of reclaim (8 x the gap between the watermarks, at
 * least 64 MiB), file refaults reached MCG_POLICY_THRASH_RATIO of what was
 * reclaimed: the workload reads back what is evicted, so back off from the
 * cgroup for 5 s, doubled on each window that thrashes again (at most
 * 120 s), and forgotten after the first window that does not.
 */
#define MCG_POLICY_THRASH_RATIO 1.0
#define MCG_POLICY_THRASH_WINDOW_GAPS 8
#define MCG_POLICY_THRASH_WINDOW_MIN (64ULL * 1024 * 1024)
#define MCG_POLICY_THRASH_BACKOFF_MIN_NS (5 * MCG_POLICY_NSEC)
#define MCG_POLICY_THRASH_BACKOFF_MAX_NS (120 * MCG_POLICY_NSEC)
struct mcg_policy_thrash {
	bool started;       /* a refault base was taken */
	uint64_t base;      /* refault bytes at the window's start */
	uint64_t reclaimed; /* bytes reclaimed in this window */
	double ratio;       /* refaults / reclaimed of the last closed window */
	uint64_t backoff_ns, until_ns;
};
enum mcg_policy_thrash_verdict {
	MCG_POLICY_THRASH_OPEN = 0, /* nothing decided: the window is open (or just started) */
	MCG_POLICY_THRASH_CALM,     /* a window closed below the ratio: any back-off forgotten */
	MCG_POLICY_THRASH_BACKOFF,  /* a window closed at or above it: back off until until_ns */
};
/* The window for the watermarks HIGH > LOW, in bytes reclaimed. */
MCG_EXPORT uint64_t mcg_policy_thrash_window(uint64_t high, uint64_t low);
/* Count BYTES reclaimed into the window. */
MCG_EXPORT void mcg_policy_thrash_reclaimed(struct mcg_policy_thrash *t, uint64_t bytes);
/* After a burst: is the refault counter wanted (no base yet, or the window is full)? */
MCG_EXPORT bool mcg_policy_thrash_wants_sample(const struct mcg_policy_thrash *t, uint64_t high,
					       uint64_t low);
/*
 * After a burst, with the cgroup's file refault counter in bytes (KNOWN false:
 * it could not be read). The first sample takes the base and empties the
 * window. When the window is full, closes it: *RET_REFAULTED (may be NULL)
 * gets the refaults of the window (0 when the counter went back), ratio is
 * set and the verdict says what to do.
 */
MCG_EXPORT enum mcg_policy_thrash_verdict
mcg_policy_thrash_sample(struct mcg_policy_thrash *t, uint64_t high, uint64_t low, bool known,
			 uint64_t refault, uint64_t now, uint64_t *ret_refaulted);
/* Is the cgroup in a back-off at NOW? */
MCG_EXPORT bool mcg_policy_thrash_backing_off(const struct mcg_policy_thrash *t, uint64_t now);

/*
 * Clean-cache skip. A cgroup at its limit with clean page cache reclaims it
 * cheaply in the kernel; reclaiming ahead only shrinks the cache the workload
 * reads from (measured: reads x0.66 with 10% margins). Dirty or writeback
 * pages make the workload wait in direct reclaim: that is what async reclaim
 * is for. The cache counts as dirty when dirty + writeback is at least
 * 1/MCG_POLICY_DIRTY_SHARE of the file cache and at least the gap between the
 * watermarks (a write in flight is not a dirty cache).
 */
#define MCG_POLICY_DIRTY_SHARE 16
/* Leave this wake-up to the kernel? FILE, DIRTY, WRITEBACK in bytes; GAP = high - low. */
MCG_EXPORT bool mcg_policy_skip_clean(uint64_t file, uint64_t dirty, uint64_t writeback,
				      uint64_t gap);

/*
 * The adaptive timer (v2, where no usage threshold event exists): sleep half
 * the time usage would take to reach HIGH at the rate seen since the last
 * look (LAST_USAGE at LAST_NS; LAST_NS 0: none), at least
 * MCG_POLICY_ADAPTIVE_MIN_NS (a look costs one read of memory.current; this
 * bounds it to 100 per second and cgroup) and at most the fallback timer;
 * the fallback when usage is not growing; the minimum when usage is at or
 * above HIGH already.
 */
#define MCG_POLICY_ADAPTIVE_MIN_NS (10 * MCG_POLICY_MSEC)
MCG_EXPORT uint64_t mcg_policy_next_wakeup(uint64_t usage, uint64_t high, uint64_t last_usage,
					   uint64_t last_ns, uint64_t now);

#endif
