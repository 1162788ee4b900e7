/* oom-watch.h: the OOM catcher as the recorder and 'oom --watch' run it: a watcher, its sleep, its events for the store. */
#ifndef MEMCGCTL_OOM_WATCH_H
#define MEMCGCTL_OOM_WATCH_H

#include <memcg.h>
#include <poll.h>
#include <time.h>

struct cli_oom_watch;

/* Watch CGROUP (NULL: everything) of CTX; prints why not (a warning with WARN) and returns -errno. */
int cli_oom_watch_start(struct mcg_ctx *ctx, const char *cgroup, bool warn,
			struct cli_oom_watch **ret);
void cli_oom_watch_stop(struct cli_oom_watch *w);
int cli_oom_watch_fd(const struct cli_oom_watch *w);
/* Handle what is ready; the number of autopsies waiting, or -errno (printed). */
int cli_oom_watch_run(struct cli_oom_watch *w);
/* A sample just taken: its usage reads give the growth before a kill (W NULL: nothing). */
void cli_oom_watch_feed(struct cli_oom_watch *w, const struct mcg_snapshot *snap);
/* The next autopsy waiting; -ENOENT. */
int cli_oom_watch_next(struct cli_oom_watch *w, struct mcg_oom_autopsy *ret);
/* The next early warning waiting; -ENOENT. */
int cli_oom_watch_next_warning(struct cli_oom_watch *w, struct mcg_oom_warning *ret);
/* v1: the cgroups watched without their OOM notification (cgroup.event_control refused); W NULL: 0. */
size_t cli_oom_watch_unregistered(const struct cli_oom_watch *w);
/* How long to poll at most before running the watcher again (ms; -1 until its fd is ready). */
int cli_oom_watch_timeout(const struct cli_oom_watch *w);

/*
 * Resume where the last run stopped: the store directory DIRFD (trusted)
 * keeps the kernel log position of the last kill stored (oom-last); kills of
 * the same boot after it are read again from the kernel log. Updated after
 * each batch STORE took.
 */
void cli_oom_watch_resume(struct cli_oom_watch *w, int dirfd);
/*
 * Told of each batch of early warnings (oom_warning) and autopsies as history events, when
 * they are caught, the warnings first: 0 stored, or -errno.
 */
typedef int (*cli_oom_store_fn)(void *userdata, const struct mcg_hist_event *ev, size_t n);
/*
 * Sleep until UNTIL (CLOCK_MONOTONIC) or a signal, catching warnings and kills
 * meanwhile and handing them to STORE at once. W NULL: a plain sleep.
 */
void cli_oom_watch_sleep(struct cli_oom_watch *w, const struct timespec *until,
			 cli_oom_store_fn store, void *userdata);

/*
 * --exec PROG (oom --watch, record): PROG (an absolute path) run without a shell and without
 * arguments for each early warning and each kill, with MEMCGCTL_EVENT, MEMCGCTL_CGROUP and the
 * numbers in its environment, in a process group of its own, never waited for: at most
 * CLI_OOM_HOOK_MAX at once (more are not started, said once), killed after 10 s; a failure is
 * warned about, nothing more.
 */
#define CLI_OOM_HOOK_MAX 4
struct cli_oom_hooks;
/* NULL without memory (said). */
struct cli_oom_hooks *cli_oom_hooks_new(const char *prog);
/* Run PROG for the autopsy AU or the warning WN (HS NULL: nothing). */
void cli_oom_hooks_run(struct cli_oom_hooks *hs, const struct mcg_oom_autopsy *au,
		       const struct mcg_oom_warning *wn);
/* Reap what exited, kill what is past its deadline (never blocks). */
void cli_oom_hooks_reap(struct cli_oom_hooks *hs);
/* ms until a hook is due a look (-1: none runs). */
int cli_oom_hooks_timeout(const struct cli_oom_hooks *hs);
/* The running hooks' pidfds to poll (readable when one exits), at most MAX; their number. */
size_t cli_oom_hooks_fds(const struct cli_oom_hooks *hs, struct pollfd *p, size_t max);
/* Wait for the running hooks (killed at their deadlines), then free HS. */
void cli_oom_hooks_finish(struct cli_oom_hooks *hs);
/* The watcher's sleep runs HS for each warning and kill it stores. */
void cli_oom_watch_set_hooks(struct cli_oom_watch *w, struct cli_oom_hooks *hs);

#endif
