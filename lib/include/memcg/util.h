/* memcg/util.h: the helpers libmemcg offers memcgctl beside its model: a growing array, decimal digits, trusted files, whole and single-value reads (included by memcg.h). */
#ifndef MEMCG_UTIL_PUBLIC_H
#define MEMCG_UTIL_PUBLIC_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/util.h>"
#endif

/*
 * Room for one more element in the array *ARRP (a pointer to the array pointer)
 * holding N elements of ELEM bytes in *CAP allocated: the capacity doubles,
 * starting at FIRST. 0, or -ENOMEM with the array and *CAP as they were.
 */
MCG_EXPORT int mcg_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* free() the N strings of V, then V. */
MCG_EXPORT void mcg_strv_free(char **v, size_t n);

/*
 * V in decimal, at least WIDTH digits (zero-padded), ending just before END
 * (not NUL-terminated): its first character. Room: 20 bytes, or WIDTH.
 */
MCG_EXPORT char *mcg_u64_digits(uint64_t v, int width, char *end);

/* Open PATH (made with MODE, parents 0755, when CREATE and missing) as a trusted directory. */
MCG_EXPORT int mcg_trusted_dir(const char *path, mode_t mode, bool create, int *ret_fd);

/* mcg__open_regular() of one component NAME (O_NOFOLLOW, no blocking on a FIFO), and the file owned by the euid; the fd. */
MCG_EXPORT int mcg_openat_file(int dirfd, const char *name, int flags, mode_t mode);

/* Replace NAME under DIRFD with DATA: NAME.tmp made with O_EXCL, written, renamed over NAME. */
MCG_EXPORT int mcg_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* Read a whole file under DIRFD into a malloc'd NUL-terminated buffer. */
MCG_EXPORT int mcg_read_file_at(int dirfd, const char *name, char **ret, size_t *ret_len);

/*
 * Read one number from a kept descriptor of a single-value file: one pread when
 * the value and its newline come back whole (a reclaim loop's per-step read),
 * the general read to EOF otherwise.
 */
MCG_EXPORT int mcg_fd_read_u64(int fd, uint64_t *ret);

#endif
