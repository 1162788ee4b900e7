/* base.h: what the base room (util, escape, safedir, size, numbers, cancellation) shares inside libmemcg. */
#ifndef MCG_BASE_H
#define MCG_BASE_H

#include "memcg.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <sys/types.h>

#define MCG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The v1 "unlimited" value: LONG_MAX rounded down to the page size. */
uint64_t mcg__v1_unlimited(void);

/* mkdir -p with mode 0700 for the run directory. */
int mcg__mkdir_p(const char *path, mode_t mode);

/*
 * Trusted directories (safedir.c). Run, state and history files are opened only
 * relative to a directory that is owned by the effective uid and writable by
 * nobody else, opened once with O_NOFOLLOW; -MCG_E_UNTRUSTED otherwise.
 */
/* The same for reading only: owned by root will do too (a reader that is not root). */
int mcg__trusted_dir_ro(const char *path, int *ret_fd);
/* The same for the single component NAME below the trusted DIRFD. */
int mcg__trusted_subdir(int dirfd, const char *name, mode_t mode, bool create, int *ret_fd);
struct stat;
/*
 * openat(DIRFD, NAME, FLAGS|O_CLOEXEC) without blocking on a FIFO:
 * the fd of a regular file (its stat in RET_ST if not NULL), -MCG_E_UNTRUSTED
 * for anything but a regular file. Any owner; NAME may be a path.
 */
int mcg__open_regular(int dirfd, const char *name, int flags, mode_t mode, struct stat *ret_st);
/* Read NAME under DIRFD (as mcg_openat_file) into a NUL-terminated buffer; -EFBIG past MAX bytes. */
int mcg__read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len);
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

/* %XX fields of memcgctl's state files (escape.c); false: did not fit, or not what encode writes. */
bool mcg__field_encode(const char *s, char *buf, size_t len);
bool mcg__field_decode(const char *s, size_t n, char *buf, size_t len);

/*
 * A strict JSON reader (json.c) for runtimes' state files: FN gets every string
 * value (MCG__JSON_STRING) and every end of an object (MCG__JSON_END), with the
 * keys from the top (KEYS[0..DEPTH), "[]" for an array's element; a key past
 * MCG__JSON_KEY_MAX bytes reads as ""). A non-zero return of FN stops the scan
 * and is returned. -EINVAL: not JSON (or nested past MCG__JSON_DEPTH_MAX).
 */
#define MCG__JSON_DEPTH_MAX 32
#define MCG__JSON_KEY_MAX 128
enum mcg__json_event { MCG__JSON_STRING, MCG__JSON_END };
typedef int (*mcg__json_fn)(enum mcg__json_event ev, const char *const *keys, size_t depth,
			    const char *val, size_t vlen, void *data);
int mcg__json_scan(const char *buf, size_t len, mcg__json_fn fn, void *data);

#endif
