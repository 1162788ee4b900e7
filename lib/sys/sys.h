/* sys.h: what the sys room (context and discovery, procfs, the keyed scanner, group, taskstats) shares inside libmemcg. */
#ifndef MCG_SYS_H
#define MCG_SYS_H

#include "base/base.h"

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
	mcg_resolve_fn resolve; /* names for mcg_group_open(), installed by the caller */
	void *resolve_data;
	struct mcg__plan *record_plan; /* every counter, for mcg_group_read_record(): made once */
};

struct mcg_group {
	struct mcg_ctx *ctx;
	char *path; /* "/" or "/a/b" */
	int dirfd;  /* O_PATH|O_DIRECTORY */
};

/* Escape a cgroup path into one file name ("/a/b" -> "a%2fb", "/" -> "%2f"). */
void mcg__path_to_name(const char *path, char *buf, size_t len);

/* One file name for the cgroup PATH of hierarchy ROOT (escaped; hashed when long). */
void mcg__cgroup_file_name(const char *root, const char *path, char *buf, size_t len);

/* Is DIRFD a memory cgroup of the context's version? 0 or -MCG_E_NOTCGROUP. */
int mcg__cgroup_dir_check(const struct mcg_ctx *ctx, int dirfd, bool is_root);

/* The context's run directory as a trusted directory (kept open in the context). */
int mcg__rundir_fd(struct mcg_ctx *ctx, bool create, int *ret_fd);

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
/*
 * memory.stat's raw keys without an allocation per key (stat.c): reserve one
 * block for every line of TEXT, add a line's key and value (if it has a
 * number), done (no key: raw NULL). Release with mcg_stat_release().
 */
int mcg__stat_reserve(const char *text, struct mcg_stat *st, char **keys);
void mcg__stat_add(struct mcg_stat *st, char **keys, const struct mcg__kv *kv);
void mcg__stat_done(struct mcg_stat *st);
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
/*
 * host.c: the one reader of MCG_HOST's files. mcg__host_parse adds what TEXT
 * (the whole of SRC's file) holds of the table's rows to H: 0, or -EINVAL when
 * it held none. mcg__host_read reads each source of SOURCES (bits of enum
 * mcg_host_src) through the ctx's procfs into BUF and parses it into H (which
 * the caller zeroes): 0, or the -errno of the first file that could not be
 * read (the others are still read). Rows not found stay absent.
 */
int mcg__host_parse(enum mcg_host_src src, const char *text, uint64_t page_size,
		    struct mcg_host *h);
int mcg__host_read(const struct mcg_ctx *ctx, unsigned sources, char *buf, size_t len,
		   struct mcg_host *h);
/*
 * swap.c: SwapFree of the context's meminfo (/proc's, --proc's, a fixture's) in
 * bytes, the one reader of it (empty's residue and steps, set-limit's preflight,
 * the OOM warning): 0; -ENOENT when meminfo has no SwapFree line with a number
 * (no swap configured in the kernel, or malformed); -EINVAL when no line of it
 * parses; -errno of the read.
 */
int mcg__swap_free(const struct mcg_ctx *ctx, uint64_t *ret);

/*
 * crictl.c: the UID of pod NS/NAME from "CRICTL pods -o json" (crictl's own
 * output parsed by mcg__crictl_pods_parse: 1 found, 0 none, -EINVAL), run
 * without a shell in bounded time; WHY says what it answered when not 1.
 */
int mcg__crictl_pods_parse(const char *json, size_t len, const char *ns, const char *name,
			   char *uid, size_t uidlen);
int mcg__crictl_pod_uid(const char *crictl, const char *ns, const char *name, char *uid,
			size_t uidlen, char *why, size_t whylen);

#endif
