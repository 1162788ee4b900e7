/* internal.h: what the library's files share and do not export. */
#ifndef MCG_INTERNAL_H
#define MCG_INTERNAL_H

#include "memcg.h"

#include <errno.h>
#include <limits.h>

struct mcg_ctx {
	char *root;   /* memory hierarchy root, no trailing slash */
	int rootfd;   /* O_PATH|O_DIRECTORY of root */
	int version;  /* 1 or 2 */
	enum mcg_mode mode;
	char *procfs; /* "/proc" or a fixture's */
	char *rundir; /* journals and locks */
	int rundirfd; /* the checked run directory, opened on first use; -1 before */
	mcg_log_fn log;
	void *log_data;
	struct mcg__plan *record_plan; /* every counter, for mcg_group_read_record(): made once */
};

struct mcg_group {
	struct mcg_ctx *ctx;
	char *path; /* "/" or "/a/b" */
	int dirfd;  /* O_PATH|O_DIRECTORY */
};

#define MCG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The v1 "unlimited" value: LONG_MAX rounded down to the page size. */
uint64_t mcg__v1_unlimited(void);
/* Translate a libcgroup return code to -errno or -MCG_E_*, in one place. */
int mcg__cgroup_err(int code);
/* Read a whole file under DIRFD into a malloc'd NUL-terminated buffer. */
int mcg__read_file_at(int dirfd, const char *name, char **ret, size_t *ret_len);
/*
 * Read one number from a kept descriptor of a single-value file: one pread when
 * the value and its newline come back whole (a reclaim loop's per-step read),
 * the general read to EOF otherwise.
 */
int mcg__fd_read_u64(int fd, uint64_t *ret);
/* The async-reclaim state directory and its stats/ below it (mode 0755). */
int mcg__async_mkdirs(const char *statedir);
/* mkdir -p with mode 0700 for the run directory. */
int mcg__mkdir_p(const char *path, mode_t mode);
/* Escape a cgroup path into one file name ("/a/b" -> "a%2fb", "/" -> "%2f"). */
void mcg__path_to_name(const char *path, char *buf, size_t len);

/* One file name for the cgroup PATH of hierarchy ROOT (escaped; hashed when long). */
void mcg__cgroup_file_name(const char *root, const char *path, char *buf, size_t len);
/* The value saved for KNOB in the transaction, or -ENOENT. */
int mcg__txn_saved(struct mcg_txn *t, const char *knob, const char **ret);


/*
 * Trusted directories (safedir.c). Run, state and history files are opened only
 * relative to a directory that is owned by the effective uid and writable by
 * nobody else, opened once with O_NOFOLLOW; -MCG_E_UNTRUSTED otherwise.
 */
/* Open PATH (made with MODE, parents 0755, when CREATE and missing) as a trusted directory. */
int mcg__trusted_dir(const char *path, mode_t mode, bool create, int *ret_fd);
/* The same for the single component NAME below the trusted DIRFD. */
int mcg__trusted_subdir(int dirfd, const char *name, mode_t mode, bool create, int *ret_fd);
/* openat(DIRFD, NAME, FLAGS|O_NOFOLLOW|O_CLOEXEC): a regular file owned by the euid; the fd. */
int mcg__openat_file(int dirfd, const char *name, int flags, mode_t mode);
/* Read NAME under DIRFD (as mcg__openat_file) into a NUL-terminated buffer; -EFBIG past MAX bytes. */
int mcg__read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len);
/* Replace NAME under DIRFD with DATA: NAME.tmp made with O_EXCL, written, renamed over NAME. */
int mcg__write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode);
/* The context's run directory as a trusted directory (kept open in the context). */
int mcg__rundir_fd(struct mcg_ctx *ctx, bool create, int *ret_fd);


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
 * async-reclaim files (async.c). The state directory holds one enable file
 * per cgroup, mcg__cgroup_file_name(root, path) + ".conf":
 *   memcgctl-async-reclaim 2
 *   root ROOT / path PATH   (bytes <= ' ', >= 0x7f and '%' as %XX)
 *   dev N / ino N           (the cgroup directory; on v2 the inode is the cgroup id)
 *   high N [default|margin] / low N [default|margin]   (default: N is 0)
 *   batch N (1..2^20) / max_cpu D.DDD (0.001..100.000) / clean 0|1
 * and stats/<same name> ("memcgctl-async-stats 2", every key of struct
 * mcg_async_stats once). Each key exactly once, nothing else.
 */
#define MCG__ASYNC_FILE_MAX 16384
/*
 * Parse an enable file (no I/O): 0, or -MCG_E_CORRUPT for anything memcgctl
 * does not write (unknown or repeated key, a value out of range, the root
 * cgroup, a path with empty, . or .. components, ...). The file name check
 * (mcg__cgroup_file_name) is the caller's: the parser does not see it.
 */
int mcg__async_conf_parse(const char *buf, size_t len, struct mcg_async_conf *ret);
int mcg__async_conf_parse_why(const char *buf, size_t len, struct mcg_async_conf *ret,
			      const char **why);
/* The same for a stats file. */
int mcg__async_stats_parse(const char *buf, size_t len, struct mcg_async_stats *ret);
int mcg__async_stats_parse_why(const char *buf, size_t len, struct mcg_async_stats *ret,
			       const char **why);
/* The state directory and its stats/, opened once as trusted directories. */
struct mcg__async_dir {
	int fd, statsfd;
};
/* -ENOENT when missing and not CREATE; -MCG_E_UNTRUSTED. */
int mcg__async_dir_open(const char *statedir, bool create, struct mcg__async_dir *ret);
void mcg__async_dir_close(struct mcg__async_dir *d);
/* Called for each corrupt file: its name relative to the state dir and why. */
typedef void (*mcg__async_bad_fn)(const char *file, const char *why, void *userdata);
/* The valid enable files (sorted); BAD (may be NULL) hears of the others. */
int mcg__async_list_at(const struct mcg__async_dir *d, struct mcg_async_conf **ret, size_t *ret_n,
		       mcg__async_bad_fn bad, void *userdata);
/* The enable file of ROOT+PATH: 0, -ENOENT, -MCG_E_CORRUPT. */
int mcg__async_conf_read_at(const struct mcg__async_dir *d, const char *root, const char *path,
			    struct mcg_async_conf *ret);
/*
 * Remove the enable file of C's cgroup only if it still names the same
 * cgroup (identity): a new 'enable' on a re-created cgroup is kept.
 * 0 removed (or already gone), -EEXIST kept (another identity now).
 */
int mcg__async_conf_unlink_same(const struct mcg__async_dir *d, const struct mcg_async_conf *c);
int mcg__async_stats_read_at(const struct mcg__async_dir *d, const char *root, const char *path,
			     struct mcg_async_stats *ret);
int mcg__async_stats_write_at(const struct mcg__async_dir *d, const struct mcg_async_stats *s);
/* reclaimd's totals (stats/reclaimd). */
int mcg__reclaimd_totals_write(const struct mcg__async_dir *d, const struct mcg_reclaimd_info *i);

/*
 * Cancellation (txn.c; struct mcg_cancel in memcg.h). A nap of MS milliseconds
 * that ends at C's deadline (at once when past it) or on a signal.
 */
void mcg__cancel_nap(const struct mcg_cancel *c, unsigned ms);
bool mcg__cancel_has_deadline(const struct mcg_cancel *c);

/*
 * mcg_size_parse flag: the syntax alone, before the values it is relative to
 * are known (a percentage, +N/-N): what cannot be valid for any reference or
 * base is refused, the rest is left to the real parse. *RET is meaningless.
 */
#define MCG__SIZE_SYNTAX (1u << 30)

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

/*
 * The keyed-file scanner (kv.c), allocation-free. One line at a time: KEY is
 * the first token (up to a blank or ':'), VAL the text after the blanks (and
 * the ':') that follow it, EOL the end of the line.
 */
struct mcg__kv {
	const char *line; /* where the line starts (before any indent) */
	const char *key;
	size_t klen;
	const char *val, *eol;
};
/* The next non-empty line at *POS; false at the end. */
bool mcg__kv_next(const char **pos, struct mcg__kv *kv);
bool mcg__kv_is(const struct mcg__kv *kv, const char *key, size_t klen);
/* The decimal number at P (before END); false if none or it overflows. */
bool mcg__kv_u64(const char *p, const char *end, uint64_t *ret);
/* The number of the line KEY: 0, -ENOENT, -EINVAL (mcg_keyed_get). */
int mcg__kv_find(const char *text, const char *key, uint64_t *ret);
/* Every key of W (at most 32) in one pass: VALS[i] set where bit i of the result is. */
struct mcg__kv_want {
	const char *key;
};
unsigned mcg__kv_pick(const char *text, const struct mcg__kv_want *w, size_t n, uint64_t *vals);
/* PSI text (memory.pressure, /proc/pressure/memory): 0 or -EINVAL (neither line). */
int mcg__psi_parse(const char *text, struct mcg_psi *ret);
/* /proc/meminfo, in bytes. */
enum { MCG__MI_TOTAL, MCG__MI_FREE, MCG__MI_AVAILABLE, MCG__MI_SWAP_TOTAL, MCG__MI_SWAP_FREE,
       MCG__MI__COUNT };
struct mcg__meminfo {
	unsigned valid; /* bit MCG__MI_x */
	uint64_t v[MCG__MI__COUNT];
};
int mcg__meminfo_parse(const char *text, struct mcg__meminfo *ret);
int mcg__meminfo_read(const struct mcg_ctx *ctx, struct mcg__meminfo *ret);
/* /proc/vmstat, as printed (pages, events). */
enum { MCG__VM_NR_DIRTY, MCG__VM_NR_WRITEBACK, MCG__VM_NR_INACTIVE_FILE, MCG__VM_NR_ACTIVE_FILE,
       MCG__VM_NR_FREE_PAGES, MCG__VM_NR_DIRTIED, MCG__VM_NR_WRITTEN, MCG__VM_DIRTY_THRESH,
       MCG__VM_DIRTY_BG_THRESH, MCG__VM_PGSCAN_KSWAPD, MCG__VM_PGSCAN_DIRECT,
       MCG__VM_PGSTEAL_KSWAPD, MCG__VM_PGSTEAL_DIRECT, MCG__VM__COUNT };
struct mcg__vmstat {
	unsigned valid; /* bit MCG__VM_x */
	uint64_t v[MCG__VM__COUNT];
};
int mcg__vmstat_parse(const char *text, struct mcg__vmstat *ret);

/*
 * The reader of the schema (record.c): a plan says which files hold the
 * counters a reader wants on one version and which keys to pick from each;
 * a reader keeps one descriptor per file slot and fills a struct mcg_record
 * with one pread() and one scan per file. Used by mcg_group_info(), the top
 * sampler and the dirty sampler.
 */
#define MCG__PLAN_FILES 24
#define MCG__PLAN_KEYS 96
enum {
	MCG__PLAN_V1_LOCAL = 1 << 0, /* v1 memory.stat: a local key stands in for a missing total_ */
};
struct mcg__plan_key {
	const char *key;
	unsigned short len;
	unsigned char id;
	bool local; /* v1: the key without total_ */
	bool bytes; /* v1: the sentinel and above read as MCG_MAX */
};
struct mcg__plan_file {
	const char *name;
	struct mcg_keyset single; /* ids read from a single-value file (whole file) */
	bool psi;
	unsigned short k0, nk; /* keys[k0 .. k0 + nk) */
};
struct mcg__plan {
	int version;
	unsigned flags;
	struct mcg_keyset want;
	uint64_t v1_unlimited; /* mcg__v1_unlimited() */
	unsigned nf, nk;
	struct mcg__plan_file f[MCG__PLAN_FILES];
	struct mcg__plan_key k[MCG__PLAN_KEYS];
};
/* The plan for the ids of WANT on VERSION (NULL: every counter of the table). */
int mcg__plan_init(struct mcg__plan *p, int version, const struct mcg_keyset *want, unsigned flags);
/* The file slot holding K, or -1. */
int mcg__plan_slot(const struct mcg__plan *p, enum mcg_key k);
/* Parse the text of slot F into R (no allocation). */
void mcg__plan_parse(const struct mcg__plan *p, unsigned f, const char *text, struct mcg_record *r);

/* Kept descriptors of one cgroup's files, one per plan slot. */
#define MCG__FD_ABSENT (-1) /* the kernel has no such file here */
#define MCG__FD_REOPEN (-2) /* out of descriptors: open, read, close each time */
#define MCG__FD_UNSET (-3)  /* not opened yet */
/*
 * The buffer for one read of a cgroup file: v1's memory.stat, the largest,
 * is 1-3 KiB; a read that fills it goes on to EOF (mcg__pread_once()).
 */
#define MCG__READ_BUF 16384
/* Open slot F's file under DIRFD: a descriptor, MCG__FD_ABSENT or MCG__FD_REOPEN. */
int mcg__plan_open(const struct mcg__plan *p, unsigned f, int dirfd);
/*
 * One pread() of a kept descriptor into BUF (NUL-terminated): cgroup files are
 * seq_files filled whole in one call, so a short read is the whole file; a
 * read that fills BUF goes on to EOF. Bytes read or -errno.
 */
ssize_t mcg__pread_once(int fd, char *buf, size_t len);
/*
 * Read slot F through *FD (opened under DIRFD when MCG__FD_UNSET; reopened
 * each time when MCG__FD_REOPEN) into BUF and parse it into R. Bytes read,
 * -ENOENT when the file is absent, -errno (-ENODEV: the cgroup went away).
 */
ssize_t mcg__plan_read(const struct mcg__plan *p, unsigned f, int *fd, int dirfd, char *buf,
		       size_t len, struct mcg_record *r);

/* %XX fields of memcgctl's state files (escape.c); false: did not fit, or not what encode writes. */
bool mcg__field_encode(const char *s, char *buf, size_t len);
bool mcg__field_decode(const char *s, size_t n, char *buf, size_t len);

#endif
