/* memcg/empty.h: libmemcg's public interface for 'empty' (included by memcg.h). */
#ifndef MEMCG_EMPTY_H
#define MEMCG_EMPTY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/empty.h>"
#endif

/* Default step: 1024 pages, the batch the 2018 force_empty patch proposed. */
#define MCG_EMPTY_DEFAULT_PAGES 1024
/* Largest step accepted: one write must not block for seconds on dirty cache. */
#define MCG_EMPTY_MAX_BATCH (1ULL << 30)
/*
 * Steps in a row that free nothing before giving up. The kernel has already
 * retried inside each one (v1: a full reclaim pass per limit write before
 * EBUSY; v2: MAX_RECLAIM_RETRIES inside memory.reclaim before EAGAIN), and
 * dirty or writeback pages get their own wait; measured on v1, 16 such steps
 * at the unreclaimable floor cost more than the rest of a 1 GiB empty.
 */
#define MCG_EMPTY_PATIENCE 3
/*
 * A full empty (target 0) is done once less than this is left. The last pages
 * can be ones reclaim cannot take yet (dirty, under writeback, not yet on the
 * LRU lists); a step that finds nothing else can make the kernel throttle the
 * caller for 100 ms (measured on v1: one EBUSY step at 192 KiB took 103 ms of
 * a 230 ms empty of 4 GiB). force_empty itself leaves 100-400 KiB here.
 */
#define MCG_EMPTY_SLACK (256 * 1024)

/*
 * Parse a --batch value: a bare number counts pages, a size with a suffix ("4M")
 * counts bytes. Refuses 0, negative numbers, garbage and anything above
 * MCG_EMPTY_MAX_BATCH. The result is in bytes, a whole number of pages.
 */
MCG_EXPORT int mcg_empty_parse_batch(const char *s, uint64_t *ret_bytes, char *why, size_t whylen);

/*
 * The stepping plan, kept apart from the kernel so it can be tested alone.
 * On v1 each step lowers the limit below usage; a step is kept within the
 * memory that memory.stat says is reclaimable (the "budget"), so a workload
 * charging meanwhile never faces a limit it can only meet by OOM.
 */
struct mcg_empty_plan {
	uint64_t batch;    /* bytes per step */
	uint64_t target;   /* stop at or below this usage */
	uint64_t page;     /* page size */
	bool bounded;      /* steps bounded by budget (v1) */
	uint64_t budget;   /* reclaimable bytes believed left (bounded plans) */
	unsigned patience; /* steps without progress allowed in a row */
	unsigned idle;     /* steps without progress seen in a row */
};
MCG_EXPORT void mcg_empty_plan_init(struct mcg_empty_plan *p, uint64_t batch, uint64_t target,
				    uint64_t page, bool bounded, uint64_t budget);
/* Bytes to ask for at USAGE; 0 when usage is at the target or the budget is spent. */
MCG_EXPORT uint64_t mcg_empty_plan_next(const struct mcg_empty_plan *p, uint64_t usage);
/* Account one step. Returns false once PATIENCE steps in a row freed nothing. */
MCG_EXPORT bool mcg_empty_plan_account(struct mcg_empty_plan *p, uint64_t usage_before,
				       uint64_t usage_after);

/*
 * A reclaim loop on kept file descriptors (mcg_reclaimer_step is one step of it).
 * v1: the limit is journalled in the transaction when the reclaimer is made.
 * A step with KEEP_LOWERED leaves the v1 limit at usage - BYTES instead of
 * writing the original back at once (one write per step instead of two); only
 * use it when nothing in the cgroup charges meanwhile. mcg_reclaimer_restore()
 * and mcg_reclaimer_free() write the original back. On v2 KEEP_LOWERED changes
 * nothing. -EINTR and other errors return after the v1 limit is restored.
 *
 * Compare before write (v1): a step and a restore first read the limit (one
 * pread on the kept descriptor); unless it holds what the reclaimer last wrote
 * (the saved original before the first step and after a restore), another
 * writer changed it: nothing is written, the limit and its journal entry are
 * forgotten (mcg_reclaimer_free() and the transaction write nothing for it
 * either) and -MCG_E_CONFLICT is returned. cgroupfs has no compare-and-swap,
 * and a v1 lowering write installs its value over any written while it
 * reclaimed: the limit is also watched with fanotify (mcg__watch_open), read
 * before and after each write; another process's write seen while the file
 * holds ours stops the reclaimer too (-MCG_E_CONFLICT), the limit left saved
 * so that the transaction's rollback puts the original back
 * (mcg_txn_writer_seen says who and when). Before each lowering write the
 * journal is told the value there and the one about to be written, so that
 * recovery after a SIGKILL restores the original only over memcgctl's values.
 */
struct mcg_reclaimer;
MCG_EXPORT int mcg_reclaimer_new(struct mcg_txn *t, struct mcg_reclaimer **ret);
MCG_EXPORT int mcg_reclaimer_step(struct mcg_reclaimer *r, uint64_t bytes, bool keep_lowered,
				  struct mcg_step *ret);
MCG_EXPORT int mcg_reclaimer_restore(struct mcg_reclaimer *r);
/* Control-file writes made so far (v1: lowering and restoring writes). */
MCG_EXPORT unsigned mcg_reclaimer_writes(const struct mcg_reclaimer *r);
/* 0 if a conflict stopped the reclaimer: the limit found and the one expected; else -ENOENT. */
MCG_EXPORT int mcg_reclaimer_conflict(const struct mcg_reclaimer *r, uint64_t *ret_found,
				      uint64_t *ret_expected);
MCG_EXPORT void mcg_reclaimer_free(struct mcg_reclaimer *r);

/* Why memory is left after an empty: memory.stat (hierarchical) and the children. */
struct mcg_residue {
	uint64_t usage;       /* read back at the end */
	uint64_t file;        /* page cache still charged (includes dirty, writeback) */
	uint64_t file_dirty;  /* dirty page cache: reclaimable only after writeback */
	uint64_t file_writeback;
	uint64_t shmem;       /* tmpfs/shm: reclaimable only to swap */
	uint64_t anon;        /* anonymous memory: reclaimable only to swap */
	uint64_t unevictable; /* mlocked and other unevictable pages */
	uint64_t kernel;      /* kernel memory charged to the cgroup */
	uint64_t children;    /* usage of the child cgroups (included in usage) */
	unsigned nr_children;
	uint64_t swap_free;   /* SwapFree from meminfo; 0: anon cannot go anywhere */
	uint64_t valid;       /* bit MCG_RESIDUE_x set: the field was read */
};
enum {
	MCG_RESIDUE_FILE = 1 << 0,
	MCG_RESIDUE_DIRTY = 1 << 1,
	MCG_RESIDUE_WRITEBACK = 1 << 2,
	MCG_RESIDUE_SHMEM = 1 << 3,
	MCG_RESIDUE_ANON = 1 << 4,
	MCG_RESIDUE_UNEVICTABLE = 1 << 5,
	MCG_RESIDUE_KERNEL = 1 << 6,
	MCG_RESIDUE_CHILDREN = 1 << 7,
	MCG_RESIDUE_SWAP = 1 << 8,
};
MCG_EXPORT int mcg_residue_read(const struct mcg_group *g, struct mcg_residue *ret);

enum mcg_empty_stop {
	MCG_EMPTY_DONE,          /* usage is at or below the target */
	MCG_EMPTY_UNRECLAIMABLE, /* memory.stat shows nothing reclaimable above the target */
	MCG_EMPTY_NO_PROGRESS,   /* PATIENCE steps in a row freed nothing */
	MCG_EMPTY_TIMEOUT,
	MCG_EMPTY_INTERRUPTED,
	MCG_EMPTY_KERNEL,        /* memory.force_empty returned */
	MCG_EMPTY_CONFLICT,      /* v1: another writer changed the limit meanwhile; kept theirs */
};
MCG_EXPORT const char *mcg_empty_stop_name(enum mcg_empty_stop s);

struct mcg_empty_progress {
	uint64_t usage_start, usage, target, reclaimed;
	unsigned writes;
	uint64_t elapsed_ns;
};
typedef void (*mcg_empty_progress_fn)(const struct mcg_empty_progress *p, void *userdata);

struct mcg_empty_opts {
	uint64_t batch;      /* bytes per step; 0: MCG_EMPTY_DEFAULT_PAGES pages */
	uint64_t target;     /* stop at or below this usage (0: empty) */
	bool kernel;         /* v1: one write to memory.force_empty instead */
	mcg_empty_progress_fn progress; /* after every step (may be NULL) */
	/* A journal a killed run left on the cgroup: what was restored first (may be NULL). */
	mcg_recover_fn recovered;
	void *userdata;      /* for both */
	bool wait;           /* wait for another memcgctl's lock (bounded by the cancel) */
};

struct mcg_empty_result {
	uint64_t usage_before, usage_after, reclaimed, target, batch;
	unsigned writes;        /* writes to control files (v1: lowering and restoring) */
	unsigned steps;         /* reclaim steps */
	uint64_t elapsed_ns;
	enum mcg_empty_stop stop;
	int last_err;           /* the kernel's errno of the last short step, or 0 */
	bool limit_changed;     /* v1: the limit was stepped (and restored) */
	uint64_t limit_before, limit_after; /* v1: read before and after */
	/* MCG_EMPTY_CONFLICT: the limit found, and the value empty had written there */
	uint64_t conflict_found, conflict_expected;
	/* another process's write seen on the limit (fanotify); see mcg_txn_writer_seen */
	struct mcg_writer_seen writer;
	struct mcg_residue residue;
};

/*
 * Reclaim G's memory down to opts->target in steps of opts->batch, in-process
 * (what 'memcgctl empty' does): v2 writes memory.reclaim, v1 steps
 * memory.limit_in_bytes down and back (mcg_reclaimer_step) inside one
 * transaction, so the original limit is journalled before the first step and
 * restored on every return, but only over empty's own value: if another writer
 * changed the limit meanwhile, stepping stops (MCG_EMPTY_CONFLICT) and their
 * value stays. A journal a killed run left is restored first, under the same
 * lock (opts->recovered hears of it). CANCEL (may be NULL) is checked before
 * every step and ends the waits for writeback: MCG_EMPTY_TIMEOUT at its
 * deadline, MCG_EMPTY_INTERRUPTED on its flag (a step the flag's signal
 * interrupts is not redone). Usage is re-read after every step; the result says
 * why it stopped and what is left. -EOPNOTSUPP for opts->kernel on v2, -EPERM
 * for the root cgroup, -MCG_E_LOCKED, -MCG_E_STALE_JOURNAL (a killed run's
 * journal that could not be restored) from the transaction. Prints nothing.
 */
MCG_EXPORT int mcg_empty_run(struct mcg_group *g, const struct mcg_empty_opts *opts,
			     const struct mcg_cancel *cancel, struct mcg_empty_result *ret);

#endif
