/* memcg.h: libmemcg, one interface to Linux memory cgroups on cgroup v1 and v2. */
#ifndef MEMCG_H
#define MEMCG_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * libmemcg is internal (linked statically into memcgctl, not installed; see
 * HACKING.md). MCG_EXPORT marks what the library offers its callers, as
 * against the mcg__ helpers of lib/internal.h.
 */
#define MCG_EXPORT __attribute__((visibility("default")))

/*
 * Conventions: every function returns 0 (or a count) on success and a negative
 * errno on failure; out parameters named ret* are written only on success.
 * The library never prints and never exits; it reports through the log callback.
 */

/* "max": no limit (v2 "max", v1 -1 / the page-rounded LONG_MAX sentinel). */
#define MCG_MAX UINT64_MAX
/* "leave this value as it is", where a setter takes several values. */
#define MCG_KEEP (UINT64_MAX - 1)

/* Library-specific error codes, returned negated; beyond the errno range. */
enum {
	MCG_E_BASE = 4096,
	MCG_E_NOCONTROLLER, /* no memory controller mounted */
	MCG_E_NOTCGROUP,    /* path is not a memory cgroup directory */
	MCG_E_ESCAPE,       /* path escapes the hierarchy */
	MCG_E_STALE_JOURNAL, /* a journal from an interrupted run exists */
	MCG_E_LOCKED,       /* another memcgctl holds the cgroup */
	MCG_E_LIBCGROUP,    /* unused (libcgroup is no longer linked); kept: the codes keep their values */
	MCG_E_UNTRUSTED,    /* a run/state directory or file memcgctl must not trust */
	MCG_E_CONFLICT,     /* another writer changed a value memcgctl had set */
	MCG_E_CORRUPT,      /* a journal or state file memcgctl did not write */
	MCG_E__END,
};
MCG_EXPORT const char *mcg_strerror(int err);

/*
 * Escape S for a terminal or a text file: printable ASCII and valid, printable
 * UTF-8 pass through; a backslash becomes "\\", C0/C1 controls and DEL become
 * \a \b \t \n \v \f \r \e or \xHH, and every byte of invalid UTF-8
 * becomes \xHH. The result is NUL-terminated and truncated to fit LEN (never
 * in the middle of an escape). Returns the length the whole escaped string
 * needs, not counting the NUL, as snprintf does.
 */
MCG_EXPORT size_t mcg_escape(const char *s, char *buf, size_t len);
/* The same, into a malloc'd string; NULL on allocation failure. */
MCG_EXPORT char *mcg_escape_dup(const char *s);
/* True when mcg_escape(S) is S itself: printable ASCII but the backslash (numbers, sizes, most names). */
MCG_EXPORT bool mcg_escape_plain(const char *s);
/*
 * Length of the valid UTF-8 sequence at S (2..4 bytes, its code point in
 * *RET_CP if not NULL), or 0: an ASCII byte, overlong forms, surrogates and
 * code points past U+10FFFF. C1 controls are valid UTF-8: callers that print
 * escape them.
 */
MCG_EXPORT size_t mcg_utf8_seq(const unsigned char *s, uint32_t *ret_cp);
/*
 * A code point a printer escapes although it is valid UTF-8: a C1 control,
 * which a terminal acts on, or a bidirectional control (LRM, RLM, ALM, the
 * embeddings, overrides and isolates), which reorders what follows it on the
 * line: "bidi\u202eexe.txt" shows as "biditxt.exe".
 */
static inline bool mcg_cp_escaped(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* ---- context ---------------------------------------------------------- */

enum mcg_mode {
	MCG_MODE_NONE = 0,
	MCG_MODE_V1 = 1,     /* legacy: memory on a v1 hierarchy, no cgroup2 mount */
	MCG_MODE_V2 = 2,     /* unified: memory in cgroup2's cgroup.controllers */
	MCG_MODE_HYBRID = 3, /* memory on v1, a cgroup2 mount without memory */
	MCG_MODE_FIXTURE = 4 /* an explicit root directory (tests, --root) */
};

enum mcg_log_level { MCG_LOG_ERR = 3, MCG_LOG_WARNING = 4, MCG_LOG_INFO = 6, MCG_LOG_DEBUG = 7 };
typedef void (*mcg_log_fn)(void *userdata, int level, const char *fmt, va_list ap);

/* A context, and the groups and samplers made from it, are used from one thread at a time. */
struct mcg_ctx;

/* Discover the memory controller (/proc/self/mountinfo). */
MCG_EXPORT int mcg_ctx_new(mcg_log_fn log, void *userdata, struct mcg_ctx **ret);
/*
 * Use ROOT as the memory hierarchy root. VERSION is 1 or 2, or 0 to detect it
 * from the files ROOT holds (cgroup.controllers: v2; memory.limit_in_bytes: v1).
 */
MCG_EXPORT int mcg_ctx_new_root(const char *root, int version, mcg_log_fn log, void *userdata,
				struct mcg_ctx **ret);
MCG_EXPORT void mcg_ctx_free(struct mcg_ctx *ctx);
MCG_EXPORT int mcg_ctx_version(const struct mcg_ctx *ctx);
MCG_EXPORT const char *mcg_ctx_root(const struct mcg_ctx *ctx);
MCG_EXPORT int mcg_ctx_rootfd(const struct mcg_ctx *ctx);
/* Where /proc lives ("/proc" by default; a fixture's proc/ for tests). */
MCG_EXPORT int mcg_ctx_set_procfs(struct mcg_ctx *ctx, const char *dir);
MCG_EXPORT const char *mcg_ctx_procfs(const struct mcg_ctx *ctx);
/* Runtime directory for journals and locks ("/run/memcgctl" by default). */
MCG_EXPORT int mcg_ctx_set_rundir(struct mcg_ctx *ctx, const char *dir);
MCG_EXPORT const char *mcg_ctx_rundir(const struct mcg_ctx *ctx);
/* The log callback of CTX, and replacing it (a daemon routes the library's messages to its log). */
MCG_EXPORT void mcg_ctx_get_log(const struct mcg_ctx *ctx, mcg_log_fn *ret_log, void **ret_userdata);
MCG_EXPORT void mcg_ctx_set_log(struct mcg_ctx *ctx, mcg_log_fn log, void *userdata);
MCG_EXPORT void mcg_log(const struct mcg_ctx *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Read a file under the context's procfs, e.g. "vmstat" or "sys/vm/dirty_ratio". */
MCG_EXPORT ssize_t mcg_proc_read(const struct mcg_ctx *ctx, const char *rel, char *buf, size_t len);
MCG_EXPORT int mcg_proc_read_u64(const struct mcg_ctx *ctx, const char *rel, uint64_t *ret);
MCG_EXPORT long mcg_page_size(void);

/* ---- groups ----------------------------------------------------------- */

struct mcg_group;

/* The deepest level below its start a walk (list, top, dirty) descends to. */
#define MCG_WALK_MAX_DEPTH 256
/* The longest cgroup path (relative to the root) memcgctl opens: a longer one is -ENAMETOOLONG. */
#define MCG_PATH_MAX 65536

/*
 * SPEC: a path relative to the hierarchy root as /proc/PID/cgroup prints it
 * ("/web", "web/a"), an absolute cgroupfs path under the root, "pid:N", or a
 * name the context's resolver takes (mcg_ctx_set_resolver: a systemd unit).
 * Refuses ".." components, symlinks and anything that is not a memory cgroup.
 */
MCG_EXPORT int mcg_group_open(struct mcg_ctx *ctx, const char *spec, struct mcg_group **ret);

/*
 * A resolver of names (a systemd unit, later a container) to cgroup paths, which
 * mcg_group_open() asks before it takes SPEC as a path: 0 when SPEC is not a
 * name it knows, 1 with the path (relative to the root, malloc'd) in *RET, or
 * -errno (-ENOENT: a name it knows that names no cgroup now). The rooms below
 * the one that resolves (systemd/) thus never call it: the caller installs it.
 */
typedef int (*mcg_resolve_fn)(const struct mcg_ctx *ctx, const char *spec, char **ret,
			      void *userdata);
MCG_EXPORT void mcg_ctx_set_resolver(struct mcg_ctx *ctx, mcg_resolve_fn fn, void *userdata);
MCG_EXPORT void mcg_group_close(struct mcg_group *g);
/* Canonical path relative to the root, "/" for the root itself. */
MCG_EXPORT const char *mcg_group_path(const struct mcg_group *g);
MCG_EXPORT int mcg_group_dirfd(const struct mcg_group *g);
MCG_EXPORT bool mcg_group_is_root(const struct mcg_group *g);
MCG_EXPORT struct mcg_ctx *mcg_group_ctx(const struct mcg_group *g);
/* The cgroup of pid N in the memory hierarchy, as a path relative to the root. */
MCG_EXPORT int mcg_pid_cgroup(struct mcg_ctx *ctx, pid_t pid, char *buf, size_t len);

/* Does the knob exist in this group? */
MCG_EXPORT bool mcg_knob_exists(const struct mcg_group *g, const char *knob);
/* Read a knob; NUL-terminates; returns bytes read or -errno. Trailing newline kept. */
MCG_EXPORT ssize_t mcg_knob_read(const struct mcg_group *g, const char *knob, char *buf, size_t len);
/* Read a single-number knob; "max" and the v1 sentinel read as MCG_MAX. */
MCG_EXPORT int mcg_knob_read_u64(const struct mcg_group *g, const char *knob, uint64_t *ret);
/* One write() of VAL; the kernel's errno comes back exactly (-EBUSY, -EINVAL, ...). */
MCG_EXPORT int mcg_knob_write(const struct mcg_group *g, const char *knob, const char *val);
/* Write a byte value (MCG_MAX as "max" on v2, "-1" on v1), then read it back. */
MCG_EXPORT int mcg_knob_write_u64(const struct mcg_group *g, const char *knob, uint64_t val,
				  uint64_t *ret_readback);
/* Open a knob under the group for repeated pread()/write() on hot paths. */
MCG_EXPORT int mcg_knob_open(const struct mcg_group *g, const char *knob, int flags);
MCG_EXPORT ssize_t mcg_fd_pread(int fd, char *buf, size_t len);
/* Parse one number as the kernel prints it ("max", v1 sentinel -> MCG_MAX). */
MCG_EXPORT int mcg_parse_u64(const char *s, uint64_t *ret);

/* Number of processes in the group itself (not descendants). */
MCG_EXPORT int mcg_group_nr_procs(const struct mcg_group *g, unsigned *ret);
/* Number of child cgroups. */
MCG_EXPORT int mcg_group_nr_children(const struct mcg_group *g, unsigned *ret);

/*
 * Walk the tree under G (G first, pre-order, children sorted by name). Every
 * child directory is a cgroup, names starting with "." included. Children are
 * opened from their parent's descriptor and paths have their full length (past
 * PATH_MAX); below MCG_WALK_MAX_DEPTH levels the walk stops with a warning.
 * CB returns 0 to go on, 1 to skip this group's children, <0 to stop.
 */
typedef int (*mcg_walk_fn)(const char *path, int depth, void *userdata);
MCG_EXPORT int mcg_walk(struct mcg_ctx *ctx, const char *path, int max_depth, mcg_walk_fn cb,
			void *userdata);

/* ---- sizes ------------------------------------------------------------ */

enum {
	MCG_SIZE_MAX_OK = 1 << 0,     /* accept max, infinity, -1 */
	MCG_SIZE_PERCENT_OK = 1 << 1, /* accept NN% of ref */
	MCG_SIZE_RELATIVE_OK = 1 << 2 /* accept +N / -N relative to base */
};
/*
 * Parse 4096, 512K, 512M, 1G, 1.5G (exact bytes), max, NN% (of ref), +N/-N
 * (of base). The result is rounded down to whole pages. On error WHY (if not
 * NULL) gets a short reason such as "unknown suffix 'X'".
 */
MCG_EXPORT int mcg_size_parse(const char *s, unsigned flags, uint64_t ref, uint64_t base,
			      uint64_t *ret, char *why, size_t whylen);
/* "1.5 GiB", "512 KiB", "4096 B", "max". */
MCG_EXPORT char *mcg_size_format(uint64_t bytes, char *buf, size_t len);
/* Parse a duration: 500ms, 10s, 2m, 1.5s, bare number = seconds. In ms. */
MCG_EXPORT int mcg_duration_parse(const char *s, uint64_t *ret_ms, char *why, size_t whylen);
/*
 * Parse a CPU budget in percent of one CPU (--max-cpu, --size-max-cpu): a decimal number
 * with at most three decimals and an optional '%' ("5", "0.25", "2.5%"), 0.001 to 100,
 * nothing else (no sign, exponent, hex, blanks). -EINVAL (bad syntax) or -ERANGE (outside
 * 0.001..100) with a short reason in WHY; *RET is exact thousandths.
 */
MCG_EXPORT int mcg_cpu_percent_parse(const char *s, double *ret, char *why, size_t whylen);
/* Bytes of RAM (MemTotal of the context's procfs). */
MCG_EXPORT int mcg_mem_total(const struct mcg_ctx *ctx, uint64_t *ret);

/* ---- the model: one memory cgroup on either version ------------------- */

/*
 * The counters are named once, by enum mcg_key (memcg/schema.h, the table
 * MCG_SCHEMA), and read into one record type, struct mcg_record.
 */

/* One memory.stat key as the kernel printed it. */
struct mcg_kv {
	char *key;
	uint64_t value;
};

/* Every "key number" line of memory.stat, in file order, known to the table or not. */
struct mcg_stat {
	size_t n_raw;
	struct mcg_kv *raw;
};

struct mcg_psi_line {
	double avg10, avg60, avg300;
	uint64_t total_us;
};
struct mcg_psi {
	bool some_valid, full_valid;
	struct mcg_psi_line some, full;
};

/* The one table of counters, struct mcg_record and the verdicts over it. */
#include <memcg/schema.h>
#include <memcg/fields.h>
/* The one table of host-wide counters and what their one reader fills. */
#include <memcg/host.h>

/* Everything about one group (show, list): its record and memory.stat's raw keys. */
struct mcg_info {
	int version;
	char *path; /* relative to the root */
	struct mcg_record rec;
	struct mcg_stat stat;
};

/* Read everything about one group. Release with mcg_info_release(). */
MCG_EXPORT int mcg_group_info(const struct mcg_group *g, struct mcg_info *ret);
MCG_EXPORT void mcg_info_release(struct mcg_info *info);
/*
 * Read every counter of the table that G's version has into REC (one read of
 * each file); with ST (may be NULL), also every raw key of memory.stat
 * (release with mcg_stat_release()).
 */
MCG_EXPORT int mcg_group_read_record(const struct mcg_group *g, struct mcg_record *rec,
				     struct mcg_stat *st);
/* Every "key number" line of memory.stat text (normalised values: mcg_record_parse). */
MCG_EXPORT int mcg_stat_parse(const char *text, struct mcg_stat *ret);
MCG_EXPORT void mcg_stat_release(struct mcg_stat *st);
MCG_EXPORT int mcg_psi_parse(const char *text, struct mcg_psi *ret);
/* Find KEY in a "key value" per line text; 0 or -ENOENT. */
MCG_EXPORT int mcg_keyed_get(const char *text, const char *key, uint64_t *ret);

/* ---- cancellation and timeout ----------------------------------------- */

/*
 * One shape for stopping an operation that changes a cgroup (mcg_limit_apply,
 * mcg_empty_run, mcg_txn_begin_recovering's wait for the lock). The operation
 * checks it before each write, each retry and each step, and cuts its waits
 * short at the deadline; it then puts back what it changed and says which it
 * was: -ETIMEDOUT (or a timeout stop) for the deadline, -EINTR (or an
 * interrupted stop) for the flag. A write the kernel is blocked in (a v1 limit
 * write reclaiming) ends early only on a signal: install the handler that sets
 * the flag without SA_RESTART, so the write returns EINTR.
 */
struct mcg_cancel {
	uint64_t deadline_ns;                     /* mcg_monotonic_ns() clock; 0: none */
	const volatile sig_atomic_t *interrupted; /* non-zero: stop; NULL: never */
};
/* CLOCK_MONOTONIC in nanoseconds: the clock of deadline_ns. */
MCG_EXPORT uint64_t mcg_monotonic_ns(void);
/* C with a deadline TIMEOUT_MS from now (0: none) and the flag INTERRUPTED (may be NULL). */
MCG_EXPORT void mcg_cancel_init(struct mcg_cancel *c, uint64_t timeout_ms,
				const volatile sig_atomic_t *interrupted);
/* 0 to go on; -EINTR when the flag is set (checked first); -ETIMEDOUT at the deadline. NULL: 0. */
MCG_EXPORT int mcg_cancel_check(const struct mcg_cancel *c);

/* ---- transactions: journalled, locked, restorable knob changes -------- */

struct mcg_txn;
struct mcg_recovery;
typedef void (*mcg_recover_fn)(const struct mcg_recovery *r, void *userdata);

enum {
	MCG_TXN_WAIT = 1 << 0,        /* wait for the lock instead of failing */
	MCG_TXN_RECOVER_OWN = 1 << 1, /* mcg_txn_begin_recovering: only a journal of the same OP */
};

/*
 * Take the per-cgroup lock under the run directory. If a journal left by a
 * killed run exists, fails with -MCG_E_STALE_JOURNAL (call mcg_recover()).
 */
MCG_EXPORT int mcg_txn_begin(struct mcg_group *g, unsigned flags, const char *op,
			     struct mcg_txn **ret);
/*
 * mcg_txn_begin(), and when a journal left by a killed run is found: restore it
 * under the lock just taken, exactly as mcg_recover() would for G (compare and
 * restore, a corrupt journal moved aside, a re-created cgroup's dropped), tell
 * CB (may be NULL) what was done, and go on holding the lock. With
 * MCG_TXN_RECOVER_OWN a journal written by another OP (or a corrupt one) is not
 * touched: CB hears of it with error -MCG_E_STALE_JOURNAL. -MCG_E_STALE_JOURNAL
 * when the journal is still there afterwards (kept for 'memcgctl recover').
 * CANCEL (may be NULL) bounds the wait of MCG_TXN_WAIT: -ETIMEDOUT, -EINTR.
 */
MCG_EXPORT int mcg_txn_begin_recovering(struct mcg_group *g, unsigned flags, const char *op,
					const struct mcg_cancel *cancel, mcg_recover_fn cb,
					void *userdata, struct mcg_txn **ret);
/* Record KNOB's current value in the journal (written atomically with a temporary
 * file and rename; carries the boot id) unless already saved. */
MCG_EXPORT int mcg_txn_save(struct mcg_txn *t, const char *knob);
/* Save (if needed) then write KNOB. */
MCG_EXPORT int mcg_txn_write(struct mcg_txn *t, const char *knob, const char *val);
/*
 * Restore every saved knob (v1 limit/memsw in a valid order) and drop the
 * journal; a knob is written back only if it still holds what the transaction
 * last wrote there (compared as the kernel stores values: whole pages, max).
 * One another writer changed is kept: -MCG_E_CONFLICT (see mcg_txn_conflict),
 * the rest restored, the journal dropped. Writes through mcg_txn_write() check
 * the same way before writing.
 */
MCG_EXPORT int mcg_txn_rollback(struct mcg_txn *t);
/* Keep the changes; drop the journal. */
MCG_EXPORT int mcg_txn_commit(struct mcg_txn *t);
/* Release the lock; rolls back if neither commit nor rollback ran. */
MCG_EXPORT void mcg_txn_free(struct mcg_txn *t);
MCG_EXPORT const char *mcg_txn_journal_path(const struct mcg_txn *t);

/*
 * After mcg_txn_rollback() (or a step) returned -MCG_E_CONFLICT: the first knob
 * found holding a value memcgctl did not write, that value and the one memcgctl
 * expected. The knob was left as found and forgotten. -ENOENT if none.
 */
MCG_EXPORT int mcg_txn_conflict(const struct mcg_txn *t, const char **ret_knob,
				uint64_t *ret_found, uint64_t *ret_expected);

/*
 * Another process's write seen on a knob memcgctl held (fanotify reports each
 * completed write with the writer's pid). OVERWRITTEN: the file still held
 * memcgctl's own value after it, so the kernel completing memcgctl's step (a
 * v1 limit write installs its value only once its reclaim is done) wrote over
 * theirs, which memcgctl cannot know; memcgctl then put back LEFT (the
 * original, never its own lowered value). Otherwise their value was kept.
 */
struct mcg_writer_seen {
	bool seen;
	bool overwritten;
	pid_t pid;		 /* 0: unknown (the event queue overflowed) */
	char comm[17];		 /* /proc/PID/comm when seen, raw (escape to print) */
	char knob[48];
	uint64_t step_value;	 /* the value memcgctl's step wrote */
	uint64_t step_start_ns;	 /* CLOCK_REALTIME: memcgctl's write began */
	uint64_t seen_ns;	 /* CLOCK_REALTIME: the other write was seen */
	uint64_t left;		 /* OVERWRITTEN: what memcgctl left there */
	bool left_ok;		 /* OVERWRITTEN: LEFT written and read back */
};
/* The first other writer seen by T (its steps, rollback); -ENOENT if none. */
MCG_EXPORT int mcg_txn_writer_seen(const struct mcg_txn *t, struct mcg_writer_seen *ret);

/*
 * What a journal said and what recovery did, for the caller to report.
 * Recovery writes a saved value back only over a value memcgctl itself left
 * (the original, or the temporary values the journal names); a value anyone
 * else wrote since is kept and reported (error -MCG_E_CONFLICT).
 */
struct mcg_recovery {
	char path[4096];
	char op[32];
	pid_t pid;
	int restored; /* knobs restored */
	/*
	 * 0, or: -ENOENT the cgroup is gone, -EIDRM it was removed and made again
	 * (another directory now), -ESTALE the journal is from an earlier boot
	 * (all three: journal dropped, nothing written); -MCG_E_CORRUPT the
	 * journal is not one memcgctl writes (moved aside to MOVED_TO, REASON
	 * says why); -MCG_E_CONFLICT another writer's value was kept (KNOB,
	 * FOUND, EXPECTED); -MCG_E_STALE_JOURNAL left alone: another
	 * operation's journal, or a corrupt one (mcg_txn_begin_recovering with
	 * MCG_TXN_RECOVER_OWN); or -errno of the first failure (journal kept).
	 */
	int error;
	char journal[4096];  /* the journal file */
	char moved_to[4096]; /* corrupt: where it is kept now ("" in a dry run) */
	char reason[128];    /* corrupt: why */
	int conflicts;       /* knobs left with another writer's value */
	char knob[48];       /* the first of them, */
	uint64_t found, expected; /* what it holds and what memcgctl had written */
	struct mcg_writer_seen writer; /* another process wrote during the restore */
};
/*
 * Restore from every stale journal (PATH NULL) or the one for PATH. Returns the
 * number of journals handled (restored, dropped, moved aside, conflicting).
 * Also removes journal .tmp files that a run killed before its first journal
 * write left (when their lock is free). Never creates the run directory.
 */
MCG_EXPORT int mcg_recover(struct mcg_ctx *ctx, const char *path, bool dry_run, mcg_recover_fn cb,
			   void *userdata);
/*
 * Set v1 limit and memsw limit (either may be MCG_KEEP) in the order that
 * keeps limit <= memsw at every step. -EBUSY etc. from the kernel as is.
 */
MCG_EXPORT int mcg_v1_set_limits(const struct mcg_group *g, uint64_t limit, uint64_t memsw);

/* ---- the reclaim step shared by empty and async-reclaim --------------- */

struct mcg_step {
	uint64_t asked;        /* bytes asked for */
	uint64_t usage_before; /* usage read before the step */
	uint64_t usage_after;  /* usage read after it */
	bool short_;           /* the kernel reclaimed less than asked (EAGAIN, EBUSY) */
	int kernel_err;        /* the kernel's errno for a short step, 0 otherwise */
};

MCG_EXPORT struct mcg_group *mcg_txn_group(const struct mcg_txn *t);
/* Read the cgroup's usage (memory.current or memory.usage_in_bytes). */
MCG_EXPORT int mcg_group_usage(const struct mcg_group *g, uint64_t *ret);

/* One header per command's library part. */
#include <memcg/limit.h>
#include <memcg/empty.h>
#include <memcg/async.h>
#include <memcg/async-persist.h>
#include <memcg/dirty.h>
#include <memcg/sample.h>
#include <memcg/unit.h>
#include <memcg/container.h>
#include <memcg/history.h>
#include <memcg/sizing.h>
#include <memcg/oom.h>
#include <memcg/util.h>

#ifdef __cplusplus
}
#endif
#endif
