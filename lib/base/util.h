/* util.h: small helpers the library files (and memcgctl) share: a growing array, a directory fd's listing, reading a whole file. */
#ifndef MEMCG_UTIL_H
#define MEMCG_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A DIR stream over the directory DIRFD refers to, on a descriptor of its own
 * (DIRFD stays open and usable); closedir() it. 0 or -errno.
 */
int mcg__opendir_at(int dirfd, DIR **ret);

/*
 * FN for each entry of the directory DIRFD, in readdir() order, until it
 * returns a negative errno, which is returned. 0, or -errno of the opening.
 */
int mcg__dir_each(int dirfd, int (*fn)(int dirfd, const struct dirent *de, void *ud), void *ud);

/*
 * The entries of the directory DIRFD that TAKE keeps, in an array of SIZE-byte
 * elements to free(): TAKE fills ELEM from DE and returns 1 to keep it, 0 to
 * pass the entry over, or a negative errno to stop the listing. Then DROP (if
 * not NULL) frees what each kept element owns, and the error is returned.
 */
int mcg__dir_load(int dirfd, size_t size,
		  int (*take)(int dirfd, const struct dirent *de, void *elem, void *ud),
		  void (*drop)(void *elem), void *ud, void **ret, size_t *ret_n);

/* The smaller of A and B. */
static inline uint64_t mcg__min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A - B, or 0 where B is the larger (a headroom, a part of a sum never below 0). */
static inline uint64_t mcg__sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* An absolute path without empty, "." or ".." components ("/" is one). */
bool mcg__abs_path_ok(const char *p);

/*
 * All of FD, which is closed here, into a NUL-terminated buffer to free(): *RET, and
 * its length in *RET_LEN (if not NULL). -EFBIG when it holds more than MAX bytes
 * (SIZE_MAX: no bound), -ENOMEM, or the read's -errno.
 */
int mcg__read_fd(int fd, size_t max, char **ret, size_t *ret_len);

#endif
