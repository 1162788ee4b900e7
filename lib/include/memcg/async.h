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
 * bounded steps (mcg_reclaimer_step), within a CPU budget, and backs off from a
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
	MCG_ASYNC_WRITEBACK,    /* nothing clean to take ahead of the writer: standing aside */
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
 * of wall time and spent by the measured CPU cost of each burst and of each
 * look. It may be saved up for MCG_POLICY_BUDGET_BURST_NS of wall time (a
 * burst after an idle period); the daemon cuts a step short when the bucket
 * is spent (a timer), so it goes negative by little more than a look. Half a second: with 2 s saved up, a
 * 3 s window of a writer that starts after an idle period measured 7.8% of a
 * CPU at --max-cpu 5; any window of T seconds sees at most max_cpu x (T + 0.5 s).
 */
#define MCG_POLICY_BUDGET_BURST_NS (MCG_POLICY_NSEC / 2)
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
 * Writeback-bound: standing aside from a writer that reclaim cannot get ahead of.
 * Reclaim frees page cache without I/O only where it is clean: dirty and
 * writeback folios at the inactive tail are skipped (v1 memcg reclaim never
 * writes them; it marks them for immediate reclaim, puts them on the active
 * list and throttles on writeback, mm/vmscan.c shrink_folio_list). When the
 * clean file LRU (inactive_file + active_file - dirty - writeback) is short
 * of what two bursts reclaim (2 x (limit - low): the daemon's burst and the
 * writer's next charges) and the writer's charges meet the limit as often
 * as it charges while the daemon steps, any reclaim, the daemon's or the
 * writer's own, frees memory only as fast as the flusher cleans it: a step
 * cannot get ahead of the writer, it takes the pages just cleaned before the
 * writer's reclaim does, and both wait. The steps then cost CPU and
 * contention and buy nothing (measured: a streaming writer at x0.92-0.96
 * req/s of the limit alone with the daemon at its budget).
 * Refaults cannot tell such a writer from one with a hot set: a write into an
 * evicted page never counts as a refault (filemap_add_folio skips
 * workingset_refault for __GFP_WRITE), and the active list holds the dirty
 * folios reclaim met as well as reused ones.
 * The charges: v1 memory.stat pgpgin (one per folio charged); the hits:
 * memory.failcnt (one per failed charge attempt, so a charge that meets the
 * limit counts at least once). v2 has no pgpgin: the rule is v1 only.
 * Evidence per window of MCG_POLICY_ASIDE_WINDOW_NS (the charge rate's fall
 * time), sampled every MCG_POLICY_ASIDE_SAMPLE_NS: a window is bound when
 * over its samples the hits were at least the charges (and some), and most
 * of its clean samples were below the threshold: 2 x (limit - low) while
 * stepping, twice that while standing aside or probing (hysteresis: the
 * flusher cleans in batches, and the writer's own reclaim keeps less clean
 * than the daemon's steps do). After MCG_POLICY_ASIDE_ENTER bound windows in
 * a row the daemon stands aside (no steps; it keeps sampling) for
 * MCG_POLICY_ASIDE_MIN_NS, then steps for one window (a probe); a probe that
 * is bound again doubles the period (at most MCG_POLICY_ASIDE_MAX_NS). Any
 * window that is not bound, while standing aside or probing, ends it:
 * stepping resumes and the evidence starts over.
 */
#define MCG_POLICY_ASIDE_WINDOW_NS (1 * MCG_POLICY_NSEC)
#define MCG_POLICY_ASIDE_SAMPLE_NS (125 * MCG_POLICY_MSEC)
#define MCG_POLICY_ASIDE_ENTER 3
#define MCG_POLICY_ASIDE_MIN_NS (2 * MCG_POLICY_NSEC)
#define MCG_POLICY_ASIDE_MAX_NS (32 * MCG_POLICY_NSEC)
enum mcg_policy_aside_mode {
	MCG_POLICY_ASIDE_STEP = 0, /* stepping as usual, collecting evidence */
	MCG_POLICY_ASIDE_HOLD,     /* standing aside until until_ns */
	MCG_POLICY_ASIDE_PROBE,    /* stepping for one window to see whether it still holds */
};
/* One look's counters (KNOWN false: memory.stat or the hit counter could not be read). */
struct mcg_policy_aside_sample {
	bool known;
	uint64_t hits;    /* limit hits so far (v1 memory.failcnt) */
	uint64_t charges; /* folios charged so far (v1 memory.stat pgpgin) */
	uint64_t clean;   /* clean file LRU bytes now (mcg_policy_clean_file) */
};
struct mcg_policy_aside {
	enum mcg_policy_aside_mode mode;
	bool open;                  /* a window is open */
	uint64_t start_ns;          /* the window's start */
	uint64_t sample_ns;         /* its last sample */
	struct mcg_policy_aside_sample first, last; /* its first and last samples */
	unsigned samples, low;      /* its samples, and those below the threshold */
	uint64_t clean_sum;         /* their sum, for the log */
	uint64_t last_clean;        /* the mean clean sample of the last closed window (the log) */
	unsigned bound;             /* bound windows in a row while stepping */
	uint64_t period_ns;         /* the current stand-aside period */
	uint64_t until_ns;          /* end of the stand-aside (HOLD) */
};
enum mcg_policy_aside_verdict {
	MCG_POLICY_ASIDE_NONE = 0, /* no change */
	MCG_POLICY_ASIDE_ENTERED,  /* started standing aside (or again, after a probe) */
	MCG_POLICY_ASIDE_PROBING,  /* the period ended: one window of steps */
	MCG_POLICY_ASIDE_RESUMED,  /* a window was not bound: stepping as usual */
};
/* Is a sample due at NOW (none yet in this window, or the last one is old)? */
MCG_EXPORT bool mcg_policy_aside_wants_sample(const struct mcg_policy_aside *a, uint64_t now);
/*
 * One look at NOW, with a sample S when one was taken (NULL: none); GAP =
 * limit - low in force. Closes the window when it is MCG_POLICY_ASIDE_WINDOW_NS
 * old and says what changed. A window with fewer than two known samples is
 * never bound; counters that went back start a new window.
 */
MCG_EXPORT enum mcg_policy_aside_verdict
mcg_policy_aside_look(struct mcg_policy_aside *a, const struct mcg_policy_aside_sample *s,
		      uint64_t gap, uint64_t now);
/* Standing aside (no steps)? */
MCG_EXPORT bool mcg_policy_aside_holds(const struct mcg_policy_aside *a);
/* Clean file LRU bytes: INACTIVE + ACTIVE - DIRTY - WRITEBACK, at least 0. */
MCG_EXPORT uint64_t mcg_policy_clean_file(uint64_t inactive, uint64_t active, uint64_t dirty,
					  uint64_t writeback);

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

/*
 * ---- keeping up with a fast writer (issue 17) ------------------------------
 * A writer that refills the margin in milliseconds outruns a daemon woken
 * only at the high watermark. The daemon measures three things and derives
 * its watermarks, step and poll interval from them, never from one workload:
 *   - the charge rate: what the cgroup charged per second (usage growth plus
 *     what the daemon reclaimed meanwhile), rising fast and falling slowly;
 *   - its reaction time: the poll interval, how late its wake-ups come
 *     (scheduling on a loaded machine) and how long one step takes;
 *   - misses: limit hits (v1 failcnt, v2 memory.events max) while it served
 *     the cgroup, evidence that the margin was too small whatever the rates said.
 * The high margin covers what the writer charges in two reaction times (the
 * rate may grow meanwhile), scaled by the miss boost; the poll interval is
 * half the time usage needs to reach high, at least what a quarter of the
 * CPU budget pays for, so a larger --max-cpu buys faster looks as well as
 * more reclaim.
 */
/* A rise shows within 10 ms of samples; a fall takes 1 s (a writer pauses between bursts). */
#define MCG_POLICY_RATE_RISE_NS (10 * MCG_POLICY_MSEC)
#define MCG_POLICY_RATE_FALL_NS (1 * MCG_POLICY_NSEC)
/* Samples closer than this are merged: usage moves in per-CPU charge batches (64 pages). */
#define MCG_POLICY_RATE_MIN_DT_NS (200 * 1000ULL)
struct mcg_policy_rate {
	bool started;
	uint64_t base;    /* charged bytes (usage + reclaimed total) at ns */
	uint64_t ns;
	double bps;       /* bytes per second */
};
/*
 * A look at NOW with CHARGED = usage + everything the daemon reclaimed so far
 * (bytes): the growth since the last look is what the cgroup charged (less
 * what the kernel or the workload freed, which only lowers the estimate).
 */
MCG_EXPORT void mcg_policy_rate_update(struct mcg_policy_rate *r, uint64_t charged, uint64_t now);

/* The daemon's own costs, measured (exponential averages over the last ~8 samples). */
struct mcg_policy_cost {
	double step_ns;  /* wall time of one reclaim step */
	double late_ns;  /* how much later than asked a timed look came */
	double look_ns;  /* CPU time of one look (a usage read and the decision) */
};
#define MCG_POLICY_COST_INIT {.step_ns = 1e6, .late_ns = 1e6, .look_ns = 20e3}
MCG_EXPORT void mcg_policy_cost_step(struct mcg_policy_cost *c, uint64_t wall_ns);
MCG_EXPORT void mcg_policy_cost_late(struct mcg_policy_cost *c, uint64_t late_ns);
MCG_EXPORT void mcg_policy_cost_look(struct mcg_policy_cost *c, uint64_t cpu_ns);

/*
 * Misses: a limit hit while served doubles the boost (at most
 * MCG_POLICY_MISS_BOOST_MAX); it halves every MCG_POLICY_MISS_HALF_NS without
 * one. Only hits the margin could have prevented count: not while the
 * budget held reclaim back (a wider margin then only costs cache) nor while
 * a clean cache was left to the kernel.
 */
#define MCG_POLICY_MISS_BOOST_MAX 8.0
#define MCG_POLICY_MISS_HALF_NS (2 * MCG_POLICY_NSEC)
struct mcg_policy_miss {
	double boost; /* >= 1 */
	uint64_t ns;  /* last update */
};
MCG_EXPORT void mcg_policy_miss_init(struct mcg_policy_miss *m, uint64_t now);
/* A look at NOW: HITS_ROSE when the limit was hit since the last look. */
MCG_EXPORT void mcg_policy_miss_update(struct mcg_policy_miss *m, bool hits_rose, uint64_t now);

/*
 * The fastest polling the budget allows: a look costs LOOK_NS of CPU and may
 * use at most 1/MCG_POLICY_POLL_SHARE of MAX_CPU; never under
 * MCG_POLICY_POLL_MIN_NS (the reference poller's 1 ms: a timer below that
 * costs more in wake-ups than a writer refills).
 */
#define MCG_POLICY_POLL_MIN_NS (1 * MCG_POLICY_MSEC)
#define MCG_POLICY_POLL_SHARE 4
MCG_EXPORT uint64_t mcg_policy_poll_floor(double look_ns, double max_cpu);
/* How long the writer runs unseen: the poll floor, the lateness and one step. */
MCG_EXPORT uint64_t mcg_policy_react_ns(uint64_t floor_ns, const struct mcg_policy_cost *c);

/*
 * The watermarks in force: HIGH and LOW as configured (resolved against
 * LIMIT), widened for a writer charging RATE_BPS with reaction time REACT_NS
 * and miss BOOST: high margin = BOOST x max(configured margin, 2 x rate x
 * react), the gap at least rate x react; the high margin at most
 * limit / MCG_POLICY_MARGIN_MAX_DIV, the low one at most twice that. Never
 * above the configured ones. The cap is low because margins cost cache: four
 * writers of the hot workload measured here charged 180 MiB/s with usage kept
 * within 8 MiB of the limit and 700 MiB/s with it kept 80-96 MiB under (a
 * limit/4 cap), the misses of the lost cache feeding the rate that widened
 * the margins; at limit/16 the cache lost stays within the cost of the 2011
 * default margins measured in bench/README.md (32/64 MiB: x1.13 against x1.24).
 */
#define MCG_POLICY_MARGIN_MAX_DIV 16
MCG_EXPORT void mcg_policy_watermarks(uint64_t limit, uint64_t high, uint64_t low, double rate_bps,
				      uint64_t react_ns, double boost, uint64_t *ret_high,
				      uint64_t *ret_low);

/*
 * One step's size in bytes: what the writer charges in one reaction time,
 * at least MCG_POLICY_STEP_MIN (1 MiB: measured here, 1 MiB steps gave
 * p99.9 x0.11-0.18 of the limit alone on the 2011 test against x0.51 with
 * 4 MiB ones, both at 3-4% of a CPU; below it a step's fixed cost, ~5
 * system calls and a journal write, grows past a tenth of the reclaim),
 * at most BATCH_BYTES (--batch), a multiple of PAGE.
 */
#define MCG_POLICY_STEP_MIN (1024ULL * 1024)
MCG_EXPORT uint64_t mcg_policy_step(double rate_bps, uint64_t react_ns, uint64_t batch_bytes,
				    uint64_t page);

/*
 * When to look again, below HIGH: half the time usage needs to reach HIGH at
 * RATE_BPS, between FLOOR_NS and the fallback timer; the fallback when
 * nothing is charged; FLOOR_NS at or above HIGH.
 */
MCG_EXPORT uint64_t mcg_policy_poll(uint64_t usage, uint64_t high, double rate_bps,
				    uint64_t floor_ns);

/*
 * Behind: the writer meets the limit before the daemon catches up: usage
 * within one step of LIMIT, or the limit was hit since the last look
 * (HITS_ROSE), or (v2) PSI reported a memory stall (STALLED). A cgroup
 * behind is reclaimed back to its low watermark in back-to-back steps even
 * when usage reads below high, until the budget is spent (the clean-cache
 * skip still applies: a hit on clean cache is cheap for the writer).
 */
MCG_EXPORT bool mcg_policy_behind(uint64_t usage, uint64_t limit, uint64_t step, bool hits_rose,
				  bool stalled);

/*
 * Above high with a clean cache (left to the kernel): look again after
 * MCG_POLICY_CLEAN_MIN_NS, doubled while it stays clean, at most
 * MCG_POLICY_CLEAN_MAX_NS (a reader of clean cache sits above high for
 * good: one memory.stat read every 20 ms cost it 0.4% of a CPU; a cache
 * turning dirty is still seen within 160 ms). PREV_NS: the last wait, 0 after
 * anything but a skip.
 */
#define MCG_POLICY_CLEAN_MIN_NS (20 * MCG_POLICY_MSEC)
#define MCG_POLICY_CLEAN_MAX_NS (160 * MCG_POLICY_MSEC)
MCG_EXPORT uint64_t mcg_policy_clean_wait(uint64_t prev_ns);

/*
 * The state directory opened once, for a daemon that reads and writes it on every
 * pass (reclaimd): the same files as the path-taking calls above.
 */
/* The state directory and its stats/, opened once as trusted directories. */
struct mcg_async_dir {
	int fd, statsfd;
};
/* -ENOENT when missing and not CREATE; -MCG_E_UNTRUSTED. */
MCG_EXPORT int mcg_async_dir_open(const char *statedir, bool create, struct mcg_async_dir *ret);
MCG_EXPORT void mcg_async_dir_close(struct mcg_async_dir *d);
/* Called for each corrupt file: its name relative to the state dir and why. */
typedef void (*mcg_async_bad_fn)(const char *file, const char *why, void *userdata);
/* The valid enable files (sorted); BAD (may be NULL) hears of the others. */
MCG_EXPORT int mcg_async_list_at(const struct mcg_async_dir *d, struct mcg_async_conf **ret, size_t *ret_n,
		       mcg_async_bad_fn bad, void *userdata);
/*
 * Remove the enable file of C's cgroup only if it still names the same
 * cgroup (identity): a new 'enable' on a re-created cgroup is kept.
 * 0 removed (or already gone), -EEXIST kept (another identity now).
 */
MCG_EXPORT int mcg_async_conf_unlink_same(const struct mcg_async_dir *d, const struct mcg_async_conf *c);
MCG_EXPORT int mcg_async_stats_read_at(const struct mcg_async_dir *d, const char *root, const char *path,
			     struct mcg_async_stats *ret);
MCG_EXPORT int mcg_async_stats_write_at(const struct mcg_async_dir *d, const struct mcg_async_stats *s);
/* reclaimd's totals (stats/reclaimd). */
MCG_EXPORT int mcg_reclaimd_totals_write(const struct mcg_async_dir *d, const struct mcg_reclaimd_info *i);

/*
 * ---- enable and disable as operations (ops/async-enable.c) ------------------
 * What 'memcgctl async-reclaim enable|disable' and top's A key do, one code
 * path for both. Nothing is printed: the result says where it stopped and why,
 * the caller words it.
 */
/* The daemon for STATEDIR is started by the caller's hook (a child, a unit): its pid. */
typedef int (*mcg_reclaimd_start_fn)(const char *statedir, pid_t *ret_pid, void *userdata);

struct mcg_async_enable_req {
	/* as typed, NULL for the default: sizes or NN% of the limit read under the lock */
	const char *high, *high_margin, *low, *low_margin;
	const char *batch;   /* a size or a bare number of pages (empty's --batch) */
	const char *max_cpu; /* percent of one CPU, 0.001 to 100, at most three decimals */
	bool clean;          /* MCG_ASYNC_CLEAN */
	bool force;          /* enable even with one CPU available */
	bool persist;        /* keep it under MCG_ASYNC_PERSIST_DIR too (async-persist.h) */
	/* start reclaimd when none serves the state directory (NULL: do not, --no-start) */
	mcg_reclaimd_start_fn start;
	void *start_data;
	/* the lock's wait (a reclaim burst or another memcgctl holds it), and journals restored */
	const struct mcg_cancel *cancel;
	mcg_recover_fn recovered;
	void *recovered_data;
};

/* Where an enable stopped (MCG_AE_DONE: enabled); each leaves the state directory as it was. */
enum mcg_async_enable_stage {
	MCG_AE_DONE = 0,
	MCG_AE_INIT,       /* mcg_async_conf_init failed (error) */
	MCG_AE_ROOT,       /* the root cgroup: it has no limit */
	MCG_AE_BATCH,      /* batch does not parse or is above MCG_ASYNC_MAX_BATCH pages (why) */
	MCG_AE_MAX_CPU,    /* max_cpu does not parse or is out of range */
	MCG_AE_LOCK,       /* the cgroup's lock or a journal left by a killed run (error) */
	MCG_AE_LIMIT,      /* the limit could not be read (error) */
	MCG_AE_NO_LIMIT,   /* no limit to stay under */
	MCG_AE_HIGH,       /* high or high_margin does not parse (why) */
	MCG_AE_LOW,        /* low or low_margin does not parse (why) */
	MCG_AE_WATERMARKS, /* they do not fit: 0 < low < high < limit (conf, limit) */
	MCG_AE_ONE_CPU,    /* one CPU available and not force */
	MCG_AE_WRITE,      /* the state directory could not be listed or written (error) */
	MCG_AE_INFO,       /* whether reclaimd runs could not be told (error) */
	MCG_AE_START,      /* the start hook failed (error) */
	MCG_AE_PERSIST,    /* it could not be kept under MCG_ASYNC_PERSIST_DIR (error) */
};

struct mcg_async_enable_result {
	enum mcg_async_enable_stage stage;
	int error;                /* -errno or -MCG_E_* where the stage has one */
	char why[128];            /* BATCH, HIGH, LOW: what is wrong with the value */
	struct mcg_async_conf conf; /* as written (from INIT on) */
	uint64_t limit;           /* from LIMIT on */
	uint64_t high, low;       /* resolved (DONE) */
	pid_t pid;                /* reclaimd's (DONE; 0: not started, no start hook) */
	bool persistent;          /* kept under MCG_ASYNC_PERSIST_DIR (DONE) */
};
/*
 * Enable async reclaim on G in STATEDIR: the configuration (watermarks
 * resolved against the limit read under the cgroup's lock, once a journal a
 * killed run left is restored), the enable file, reclaimd started when none
 * serves STATEDIR, the kept configuration, a note for the recorder. A failure
 * after the enable file was written puts back the one there before (or none).
 * 0 (RES->stage DONE) or the negative error (RES says where and why).
 */
MCG_EXPORT int mcg_async_enable_run(struct mcg_group *g, const char *statedir,
				    const struct mcg_async_enable_req *req,
				    struct mcg_async_enable_result *res);

struct mcg_async_disable_result {
	bool changed;  /* an enable file (or a kept configuration) was removed */
	bool unkept;   /* the kept configuration under MCG_ASYNC_PERSIST_DIR was removed */
	bool unpersist_failed; /* on error: removing the kept one failed (nothing else done) */
	int error;
};
/*
 * Disable async reclaim on ROOT-relative PATH in STATEDIR (a removed cgroup
 * too): with PERSIST its kept configuration first (removing the runtime file
 * wakes the daemon, whose listing would otherwise enable it again from it),
 * then the enable file and stats, and a note for the recorder. 0 also when it
 * was not enabled (RES->changed false, as systemctl disable), or the negative error.
 */
MCG_EXPORT int mcg_async_disable_run(struct mcg_ctx *ctx, const char *statedir, const char *path,
				     bool persist, struct mcg_async_disable_result *res);

#endif
