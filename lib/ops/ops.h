/* ops.h: what the ops room (txn, reclaim, limit, empty, policy) shares inside libmemcg. */
#ifndef MCG_OPS_H
#define MCG_OPS_H

#include "model/model.h"

/* The value saved for KNOB in the transaction, or -ENOENT. */
int mcg__txn_saved(struct mcg_txn *t, const char *knob, const char **ret);

/*
 * Journals (txn.c). One file per cgroup under RUNDIR/journal, named
 * mcg__cgroup_file_name(root, path) + ".journal":
 *   memcgctl-journal 2
 *   op OP / pid N / version 1|2 / boot ID (optional) / dev N / ino N
 *   root ROOT / path PATH        (bytes <= ' ', >= 0x7f and '%' as %XX)
 *   knob NAME ORIG A B           (one per saved knob; A, B: 20 digits)
 * ORIG is the value to restore as the kernel printed it; A is the value
 * memcgctl believed present and B the one it was writing when it last
 * touched NAME (rewritten in place before every temporary write), so
 * recovery restores ORIG only over ORIG, A or B. dev/ino identify the cgroup
 * directory (on v2 the inode number is the cgroup id).
 */
#define MCG__JOURNAL_MAX_KNOBS 8
#define MCG__JOURNAL_MAX_SIZE 16384
struct mcg__journal_knob {
	char knob[48];
	char orig[24];   /* "max", "-1" or a decimal number */
	uint64_t orig_v; /* normalised (mcg__limit_norm) */
	uint64_t a, b;   /* normalised; 18446744073709551615 is max */
};
struct mcg__journal {
	char op[32], boot[40];
	char root[4096], path[4096]; /* decoded */
	int pid, version;
	uint64_t dev, ino;
	size_t n;
	struct mcg__journal_knob k[MCG__JOURNAL_MAX_KNOBS];
};
/*
 * Parse a journal (no I/O): 0, or -MCG_E_CORRUPT for anything memcgctl does
 * not write (unknown knob or key, a value that is not max/-1/a number, the
 * root cgroup, a path with . or .. components, ...).
 */
int mcg__journal_parse(const char *buf, size_t len, struct mcg__journal *ret);
/* The same, with a short reason in *WHY on -MCG_E_CORRUPT. */
int mcg__journal_parse_why(const char *buf, size_t len, struct mcg__journal *ret, const char **why);
/* A limit as the kernel stores it: page-rounded down, the v1 sentinel and above as MCG_MAX. */
uint64_t mcg__limit_norm(uint64_t v);
/* Parse the first line of a limit ("max", "-1", a decimal number), normalised. */
int mcg__limit_parse(const char *s, uint64_t *ret);
/*
 * Compare-and-write a knob saved in T: read it, and unless it holds what
 * memcgctl last wrote there (the saved value before the first write), forget
 * the knob (journal entry removed), record the conflict (mcg_txn_conflict)
 * and return -MCG_E_CONFLICT without writing. Otherwise journal "A B" and
 * write V (MCG_MAX as max / -1). The knob is saved first if it is not yet.
 */
int mcg__txn_set(struct mcg_txn *t, const char *knob, uint64_t v);
/* Journal that KNOB (saved) holds BELIEVED and NEXT is about to be written. */
int mcg__txn_temp(struct mcg_txn *t, const char *knob, uint64_t believed, uint64_t next);
/* Forget KNOB after a conflict: FOUND was read where EXPECTED should have been. */
int mcg__txn_forget(struct mcg_txn *t, const char *knob, uint64_t found, uint64_t expected);
/* The saved (original) value of KNOB, normalised; -ENOENT if not saved. */
int mcg__txn_saved_u64(struct mcg_txn *t, const char *knob, uint64_t *ret);
/*
 * Another writer's trace (txn.c). A fanotify group on one knob: vfs_write()
 * reports each completed write with the writer's pid, even one whose value a
 * v1 limit write still in the kernel then overwrites. -errno where it cannot
 * (no CAP_SYS_ADMIN, no fanotify): then only the value compare is left.
 */
int mcg__watch_open(int knob_fd);
/* Drain WFD: 1 (and *RET_PID, 0 if unknown) if another process wrote, 0 if not. */
int mcg__watch_drain(int wfd, pid_t *ret_pid);
/*
 * After (or before) a step on KNOB that T saved: did another process write it?
 * OURS1/OURS2 are the values memcgctl may have left there. 0: nobody. Else
 * -MCG_E_CONFLICT with the writer recorded (mcg_txn_writer_seen): if the file
 * holds one of ours, their value was overwritten (the knob stays saved so that
 * the rollback puts the original back); if not, theirs is kept and the knob
 * forgotten. STEP_VALUE/STEP_NS describe memcgctl's write for the report.
 */
int mcg__txn_check_writer(struct mcg_txn *t, const char *knob, int knob_fd, uint64_t ours1,
			  uint64_t ours2, uint64_t step_value, uint64_t step_ns);
/* CLOCK_REALTIME in ns, for the reports of another writer. */
uint64_t mcg__realtime_ns(void);

/*
 * Apply PLAN inside transaction T (lock held): save every knob the plan touches
 * in the journal before the first write, run the writes, read each value back
 * into the plan's `after`, and commit. On failure, timeout or interrupt
 * (CANCEL: -ETIMEDOUT, -EINTR), restore the saved values (rollback) and fill
 * FAIL. Each write (each step, each EBUSY retry, the temporary memory.high and
 * what replaces it) first reads the file and goes on only if it holds what
 * set-limit wrote last: otherwise -MCG_E_CONFLICT, FAIL names the value found,
 * and the rollback leaves it. The step of mcg_limit_apply() that writes.
 */
int mcg__limit_apply_plan(struct mcg_txn *t, const struct mcg_limit_req *req,
			  struct mcg_limit_plan *plan, const struct mcg_cancel *cancel,
			  const struct mcg_limit_ops *ops, struct mcg_limit_failure *fail);

#endif
