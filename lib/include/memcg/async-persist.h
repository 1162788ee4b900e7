/* memcg/async-persist.h: async-reclaim's configuration kept across reboots under /etc/memcgctl. */
#ifndef MEMCG_ASYNC_PERSIST_H
#define MEMCG_ASYNC_PERSIST_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/async-persist.h>"
#endif

/*
 * The administrator's choice lives in MCG_ASYNC_PERSIST_DIR, one enable file per
 * cgroup in the format of the state directory's (an enable file's identity is
 * the cgroup's when it was enabled); the default state directory
 * MCG_ASYNC_DEFAULT_STATEDIR (/run) keeps the runtime state. Whenever that
 * state directory is listed (the daemon's rescans, status), a persisted cgroup
 * that exists now under its path and has no runtime enable file naming it is
 * enabled again there with its current identity: after a reboot, and for a
 * cgroup made again (a restarted unit is a new cgroup), the configuration
 * applies to the new cgroup. Both directories are trusted directories
 * (owned by the euid, writable by nobody else, no symlinks).
 */
#define MCG_ASYNC_PERSIST_DIR "/etc/memcgctl/async-reclaim"
#define MCG_ASYNC_DEFAULT_STATEDIR "/run/memcgctl/async-reclaim"

/* Keep C (as mcg_async_enable writes it) under DIR (NULL: MCG_ASYNC_PERSIST_DIR). */
MCG_EXPORT int mcg_async_persist(const char *dir, const struct mcg_async_conf *c);
/* Forget ROOT+PATH under DIR (NULL: the default): 0, or -ENOENT if it was not kept. */
MCG_EXPORT int mcg_async_unpersist(const char *dir, const char *root, const char *path);
/*
 * Enable in STATEDIR every cgroup kept under DIR (NULL: the default) that
 * exists now and has no enable file there naming it: the number enabled again,
 * or -errno. mcg_async_list_at() does this for the default state directory.
 */
MCG_EXPORT int mcg_async_reapply(const char *dir, const char *statedir);
/*
 * How many cgroups kept under DIR (NULL: the default) do not exist now (units
 * not started yet, after a boot): while there are any, a daemon serving the
 * default state directory lists it again now and then (nothing else tells it
 * that a cgroup appeared). 0 also when nothing is kept; -errno.
 */
MCG_EXPORT int mcg_async_kept_waiting(const char *dir);

#endif
