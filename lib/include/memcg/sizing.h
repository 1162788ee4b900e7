/* memcg/sizing.h: libmemcg's public interface for 'size': how much memory a workload needs, probed online (included by memcg.h). */
#ifndef MEMCG_SIZING_H
#define MEMCG_SIZING_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/sizing.h>"
#endif

/*
 * The probe, in two halves. The controller (pure, no I/O: tests/unit/test_sizing.c
 * drives it with synthetic sequences) takes one observation per tick and says how
 * much to reclaim next: it grows its step while reclaiming costs nothing, halves it
 * and holds when the cost rises above the target, never asks for memory below the
 * floor that reclaim cannot free, and stops on an OOM kill or the cgroup's own
 * limit events. The run (mcg_size_run) takes the observations from the kernel and
 * reclaims through the reclaimer (v2 memory.reclaim, v1 the journalled limit step).
 *
 * What is "needed": each time the cost rose over the target after a step, the
 * usage before that step is a level below which the workload misses memory. The
 * band is the lowest and highest such level over the last adjustments; the answer
 * is the highest (the conservative end). Converged when the band of the last
 * MCG_SIZE_BAND_N adjustments is narrower than band_frac of the answer.
 */

/* What the cost rests on. */
enum mcg_size_signal {
	MCG_SIZE_SIG_PSI,      /* v2 memory.pressure "some total" deltas */
	MCG_SIZE_SIG_DELAYS,   /* v1 taskstats freepages + thrashing delays, summed over the tasks */
	MCG_SIZE_SIG_REFAULTS, /* memory.stat workingset_refault: refaulted / reclaimed */
};
MCG_EXPORT const char *mcg_size_signal_name(enum mcg_size_signal s);

/* Why the probe stopped. */
enum mcg_size_stop {
	MCG_SIZE_RUNNING,     /* not yet (the controller's state during a run) */
	MCG_SIZE_CONVERGED,   /* the band is narrow enough */
	MCG_SIZE_FLOOR,       /* reached the floor without a cost: the floor is the answer */
	MCG_SIZE_EVENTS,      /* memory.events max/high or an OOM kill rose: stopped at once */
	MCG_SIZE_TIMEOUT,     /* the time budget ran out first */
	MCG_SIZE_INTERRUPTED, /* SIGINT / SIGTERM */
	MCG_SIZE_CONFLICT,    /* another writer changed the v1 limit: kept, probe stopped */
};
MCG_EXPORT const char *mcg_size_stop_name(enum mcg_size_stop s);

/* Defaults. */
/* oomd's Senpai: 0.1% of wall time with a task stalled on memory is "free" */
#define MCG_SIZE_DEFAULT_TARGET 0.001
/*
 * Refaults only (no PSI, delay accounting off): a step whose pages come back
 * is cost; a tenth of what was taken coming back within the window is the
 * point a working set is being cut into (cold pages never come back at all).
 */
#define MCG_SIZE_DEFAULT_REFAULT_TARGET 0.10
#define MCG_SIZE_DEFAULT_INTERVAL_MS 1000
#define MCG_SIZE_BAND_N 4
#define MCG_SIZE_BAND_FRAC 0.10

struct mcg_size_params {
	double target;		/* stall fraction of wall time (PSI, delays) */
	double refault_target;	/* refaulted / reclaimed (refaults only) */
	uint64_t floor;		/* the user's floor (--floor): never probe below it */
	uint64_t page;		/* page size: steps are whole pages */
	double step_start;	/* first step, fraction of usage (default 0.01) */
	double step_max;	/* largest step, fraction of usage (default 0.08) */
	double step_min;	/* smallest step, fraction of usage (default 0.0025) */
	uint64_t step_min_bytes; /* and at least this (default 256 pages) */
	/*
	 * Kept above the unreclaimable floor for what the workload charges while
	 * a v1 limit stands lowered in the step (default: 8 MiB or 5% of usage).
	 */
	uint64_t margin;
	unsigned warmup;	/* ticks observed before the first step: the baseline (2) */
	unsigned band_n;	/* adjustments in the band (MCG_SIZE_BAND_N) */
	double band_frac;	/* converged below this width / answer (MCG_SIZE_BAND_FRAC) */
	bool watch;		/* keep probing after convergence (the band moves with the load) */
};
/* Defaults for SIGNAL with page size PAGE. */
MCG_EXPORT void mcg_size_params_init(struct mcg_size_params *p, uint64_t page);

/* One observation, taken after a tick of DT_NS. Counters are deltas over the tick. */
struct mcg_size_obs {
	uint64_t dt_ns;
	uint64_t usage;
	uint64_t file, anon;   /* memory.stat (hierarchical on v1) */
	uint64_t floor;	       /* what reclaim cannot free (mcg_floor_from_record) */
	bool stall_valid;
	uint64_t stall_ns;     /* PSI some, or the tasks' delays */
	bool refault_valid;
	uint64_t refault_bytes; /* workingset refaults * page */
	uint64_t reclaimed;    /* what the step of the last tick freed (usage drop) */
	uint64_t ev_max, ev_high, ev_oom_kill; /* deltas */
};

/* One adjustment: the cost rose over the target after a step. */
struct mcg_size_adj {
	uint64_t level; /* usage before the step(s) that cost */
	uint64_t usage; /* usage at the back-off */
	double cost;
};

#define MCG_SIZE_HISTORY 16
struct mcg_size_ctl {
	struct mcg_size_params p;
	enum mcg_size_signal sig;
	enum mcg_size_stop stop;
	unsigned ticks;
	double step;		/* fraction of usage */
	unsigned quiet;		/* ticks in a row at or below the target */
	unsigned hold;		/* ticks left to hold after a back-off */
	uint64_t pre_step[2];	/* usage before the steps of the last two ticks (0: none) */
	uint64_t last_ask;	/* bytes asked for in the last tick */
	/* refaults only: a window of what was taken and what came back */
	uint64_t win_reclaimed, win_refault;
	double cost;		/* last tick's cost, in units of its target (1.0 = at target) */
	double cost_raw;	/* last tick's cost: stall fraction, or refault ratio */
	/* baseline (warmup) and probe totals */
	uint64_t base_ns, base_stall_ns, base_refault;
	uint64_t probe_ns, probe_stall_ns, probe_refault;
	uint64_t reclaimed, steps, backoffs;
	uint64_t usage_start, usage_min, usage, floor;
	uint64_t file_start, anon_start, file, anon;
	uint64_t ev_max, ev_high, ev_oom_kill;
	size_t n_adj;		/* adjustments seen (the ring holds the last MCG_SIZE_HISTORY) */
	struct mcg_size_adj adj[MCG_SIZE_HISTORY];
	bool converged;		/* at least once (watch mode goes on) */
};

MCG_EXPORT void mcg_size_ctl_init(struct mcg_size_ctl *c, const struct mcg_size_params *p,
				  enum mcg_size_signal sig);
/*
 * Account observation O and return the bytes to reclaim now (0: hold). Sets
 * C->stop when the probe is to end (converged, floor, events); a caller that
 * stops for its own reasons (timeout, interrupt, conflict) sets it itself.
 */
MCG_EXPORT uint64_t mcg_size_ctl_tick(struct mcg_size_ctl *c, const struct mcg_size_obs *o);

/* The answer so far. */
struct mcg_size_answer {
	uint64_t needed, band_lo, band_hi;
	unsigned band_n;	/* adjustments the band rests on (0: none: an upper bound) */
	bool floor_is_answer;
	uint64_t cold, cold_file, cold_anon; /* usage at the start - needed, split */
	bool split_valid;
};
MCG_EXPORT void mcg_size_ctl_answer(const struct mcg_size_ctl *c, struct mcg_size_answer *ret);

/* ---- the run ---- */

struct mcg_size_progress {
	uint64_t usage, needed, step, elapsed_ns;
	double cost_raw;
	enum mcg_size_signal sig;
	unsigned adjustments;
	bool converged;
};

struct mcg_size_opts {
	struct mcg_size_params p;	/* mcg_size_params_init, then the caller's changes */
	uint64_t interval_ms;		/* tick (MCG_SIZE_DEFAULT_INTERVAL_MS) */
	bool dry_run;			/* read the signals and the floor; no lock, no write */
	/* each tick; and (watch mode) each time the answer moves */
	void (*progress)(void *userdata, const struct mcg_size_progress *p);
	void (*answer)(void *userdata, const struct mcg_size_answer *a);
	mcg_recover_fn recovered;	/* a journal a killed run left: what was restored */
	void *userdata;
};

struct mcg_size_result {
	enum mcg_size_stop stop;
	enum mcg_size_signal sig;
	int delayacct;			/* kernel.task_delayacct: 1, 0, -errno */
	int taskstats_err;		/* v1: why the tasks' delays were not read (0: they were) */
	struct mcg_size_answer ans;
	uint64_t usage_start, usage_end, file_start, anon_start, floor;
	uint64_t elapsed_ns, probe_ns, base_ns;
	/* stall: PSI some or delays (valid with stall_valid); refaults in bytes */
	bool stall_valid;
	uint64_t base_stall_ns, probe_stall_ns;
	uint64_t base_refault, probe_refault;
	double pressure;		/* stall fraction during the probe (or refault ratio) */
	double base_pressure;		/* the same, before the first step */
	uint64_t added_stall_ns;	/* probe stall - baseline rate * probe time (0 if below) */
	uint64_t reclaimed, steps, backoffs, writes;
	uint64_t first_step;		/* a dry run: the bytes the first step would ask for */
	uint64_t ev_max, ev_high, ev_oom_kill;
	/*
	 * v2 memory.high fallback: "high" events raised while the probe's own temporary
	 * memory.high stood (the workload charging over it). Not in ev_high, not a stop.
	 */
	uint64_t ev_high_probe;
	uint64_t limit_before, limit_after; /* v1 memory.limit_in_bytes */
	uint64_t conflict_found, conflict_expected;
	char conflict_knob[24];		/* the file another writer changed */
	char method[24];		/* "memory.reclaim", "limit-steps", "memory.high", "dry-run" */
	int state_err;			/* keeping the answer for show failed (mcg_size_state_write) */
};

/*
 * Probe G with O (mcg_size_params and the tick) until it converges, meets the
 * floor or an event, or CANCEL stops it (deadline: MCG_SIZE_TIMEOUT with the
 * answer so far; the flag: MCG_SIZE_INTERRUPTED). Holds G's lock and journal
 * ("size") for the whole run (v1 saves the limit before the first step); every
 * way out puts back what it changed, and a value another writer set meanwhile
 * is kept (MCG_SIZE_CONFLICT). 0 with RET filled, or -errno (-MCG_E_LOCKED,
 * -MCG_E_STALE_JOURNAL, -EPERM for the root cgroup, ...).
 */
MCG_EXPORT int mcg_size_run(struct mcg_group *g, const struct mcg_size_opts *o,
			    const struct mcg_cancel *cancel, struct mcg_size_result *ret);

/*
 * The same probe, tick by tick, for a caller with a loop of its own (reclaimd
 * --size): mcg_size_run is new, then a tick every interval, then end. With
 * MCG_SIZE_PROBE_STEP_LOCK the cgroup's lock and journal are held for each step
 * only, not for the whole run: between steps set-limit and the others run as
 * usual (a step while one holds the lock is skipped: tick.locked), a value set
 * meanwhile is simply the next step's original, and a kill leaves at most one
 * step's journal. Without it, new takes the lock and journal as mcg_size_run
 * does (-MCG_E_LOCKED, -MCG_E_STALE_JOURNAL, -EPERM for the root cgroup).
 */
enum { MCG_SIZE_PROBE_STEP_LOCK = 1 << 0 };
struct mcg_size_probe;
MCG_EXPORT int mcg_size_probe_new(struct mcg_group *g, const struct mcg_size_opts *o,
				  unsigned flags, const struct mcg_cancel *cancel,
				  struct mcg_size_probe **ret);
struct mcg_size_tick {
	enum mcg_size_stop stop; /* MCG_SIZE_RUNNING: tick again; else call end */
	uint64_t asked, freed;	 /* the step taken in this tick (0: none) and what it freed */
	bool locked;		 /* STEP_LOCK: another memcgctl held the cgroup: no step */
	bool kept;		 /* watch: the answer was kept anew (mcg_size_state_write) */
	bool dry_run_done;	 /* a dry run has its first step (res.first_step): end */
};
/*
 * Read the cgroup, account the tick in the controller and take the step it
 * asks for, at most MAX_STEP bytes (0: no bound; a caller's CPU budget). The
 * time since the last tick is the tick's length. CANCEL (may be NULL) is
 * checked before the step. 0 with RET filled, or -errno (the cgroup gone...):
 * then free, which puts back what the run changed.
 */
MCG_EXPORT int mcg_size_probe_tick(struct mcg_size_probe *p, uint64_t max_step,
				   const struct mcg_cancel *cancel, struct mcg_size_tick *ret);
/*
 * End the run (STOP: why, when the controller had not stopped it itself;
 * MCG_SIZE_RUNNING for none): restore what it changed, keep the answer where
 * it rests on something, and fill RET as mcg_size_run does. 0 or -errno.
 */
MCG_EXPORT int mcg_size_probe_end(struct mcg_size_probe *p, enum mcg_size_stop stop,
				  struct mcg_size_result *ret);
MCG_EXPORT void mcg_size_probe_free(struct mcg_size_probe *p);

/*
 * The last answer per cgroup, kept by mcg_size_run in the run directory's
 * "size" subdirectory (one file per cgroup, named as journals are) when it has
 * one (converged, the floor, or adjustments seen before a stop), for show.
 */
struct mcg_size_state {
	uint64_t needed, cold, cold_file, cold_anon;
	bool split_valid;
	uint64_t time_ns;		/* CLOCK_REALTIME when it was found */
	enum mcg_size_stop stop;	/* how it was found: why the probe stopped, */
	enum mcg_size_signal sig;	/* the signal, */
	char method[24];		/* and the method (mcg_size_result.method) */
};
/*
 * Write S for G's cgroup under the trusted run directory (created 0755 where
 * missing): an unnamed file (O_TMPFILE) written whole, then linked in place of
 * the old one, so a kill leaves no temporary file. 0 or -errno.
 */
MCG_EXPORT int mcg_size_state_write(struct mcg_group *g, const struct mcg_size_state *s);
/*
 * Read G's last answer: the file must be a regular file owned by root or the
 * effective uid below the trusted run directory, and exactly what
 * mcg_size_state_write writes. 0, -ENOENT (none), -MCG_E_UNTRUSTED, -EBADMSG.
 */
MCG_EXPORT int mcg_size_state_read(struct mcg_group *g, struct mcg_size_state *ret);

/*
 * The kept answers of many cgroups (export, top, record): the state directory
 * opened once, then one openat per cgroup (a cgroup without an answer costs
 * that failed openat, nothing more). Open: 0, -ENOENT (none kept at all),
 * -MCG_E_UNTRUSTED. Get: as mcg_size_state_read for the cgroup PATH (relative
 * to the hierarchy root); S may be NULL (-ENOENT).
 */
struct mcg_size_states;
MCG_EXPORT int mcg_size_states_open(struct mcg_ctx *ctx, struct mcg_size_states **ret);
MCG_EXPORT int mcg_size_states_get(struct mcg_size_states *s, const char *path,
				   struct mcg_size_state *ret);
MCG_EXPORT void mcg_size_states_close(struct mcg_size_states *s);

/*
 * The kept answer as a history event (MCG_HEV_SIZE, stored by the recorder
 * when it finds a new one): time the answer's, cgroup CGROUP, count the
 * needed bytes, op the stop ("converged", "floor", ...), detail
 * "v1 cold=N cold_file=N cold_anon=N split=0|1 signal=S method=M" in BUF
 * (LEN bytes); uid, loginuid and pid -1. -ENOSPC, -EINVAL.
 */
struct mcg_hist_event;
MCG_EXPORT int mcg_size_state_to_event(const struct mcg_size_state *s, const char *cgroup,
				       struct mcg_hist_event *ev, char *buf, size_t len);
/* Back from a stored event; -MCG_E_CORRUPT for what mcg_size_state_to_event does not write. */
MCG_EXPORT int mcg_size_state_from_event(const struct mcg_hist_event *ev,
					 struct mcg_size_state *ret);

#endif
