/* model.h: what the model room (schema, record, info, sample, dirty, async state, names) shares inside libmemcg. */
#ifndef MCG_MODEL_H
#define MCG_MODEL_H

#include "sys/sys.h"

/* The async-reclaim state directory and its stats/ below it (mode 0755). */
int mcg__async_mkdirs(const char *statedir);

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
/* The enable file of ROOT+PATH: 0, -ENOENT, -MCG_E_CORRUPT. */
int mcg__async_conf_read_at(const struct mcg_async_dir *d, const char *root, const char *path,
			    struct mcg_async_conf *ret);
/*
 * The reader of the schema (record.c): a plan says which files hold the
 * counters a reader wants on one version and which keys to pick from each;
 * a reader keeps one descriptor per file slot and fills a struct mcg_record
 * with one pread() and one scan per file. Used by mcg_group_info(), the top
 * sampler and the dirty sampler.
 */
#define MCG__PLAN_FILES 24
#define MCG__PLAN_KEYS 96
#define MCG__PLAN_SLOTS 512 /* a power of two, over 4 x MCG__PLAN_KEYS */
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
	/* the keys by (file, a hash of the key): index + 1, 0 empty (open addressing) */
	unsigned char slot[MCG__PLAN_SLOTS];
};
/* The plan for the ids of WANT on VERSION (NULL: every counter of the table). */
int mcg__plan_init(struct mcg__plan *p, int version, const struct mcg_keyset *want, unsigned flags);
/* The file slot holding K, or -1. */
int mcg__plan_slot(const struct mcg__plan *p, enum mcg_key k);
/* Parse the text of slot F into R (no allocation). */
void mcg__plan_parse(const struct mcg__plan *p, unsigned f, const char *text, struct mcg_record *r);
/* The same, and with ST every raw "key number" line of the text in that pass (0, -ENOMEM). */
int mcg__plan_parse_stat(const struct mcg__plan *p, unsigned f, const char *text,
			 struct mcg_record *r, struct mcg_stat *st);

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

#endif
