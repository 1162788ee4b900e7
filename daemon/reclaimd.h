/* reclaimd.h: the async-reclaim daemon (memcgctl reclaimd): its loop and its process concerns. */
#ifndef MCG_RECLAIMD_H
#define MCG_RECLAIMD_H

#include "memcg.h"

#include <signal.h>

enum {
	RECLAIMD_KEEP = 1 << 0, /* keep running with nothing enabled */
};

/*
 * Serve STATEDIR until SIGTERM or SIGINT, or until nothing is enabled
 * (unless RECLAIMD_KEEP); SIGHUP re-reads the state directory. Blocks those
 * signals and reads them through a signalfd, holds STATEDIR/reclaimd.pid, and
 * logs what it does to stderr (VERBOSE: 1 info, 2 debug), library messages
 * included. 0 on a clean exit, -MCG_E_LOCKED if another daemon serves
 * STATEDIR, -MCG_E_UNTRUSTED, -errno.
 */
struct reclaimd_side;
int reclaimd_main(struct mcg_ctx *ctx, const char *statedir, unsigned flags, int verbose,
		  struct reclaimd_side *side);

/*
 * Work of the caller's own in the daemon's loop (reclaimd --size): RUN is
 * called once NEXT_NS (rd_now_ns) has come and returns the next time, 0 when
 * it has nothing left. Its CPU is not the served cgroups' (it pays its own
 * budget); while it has work the daemon does not exit for want of enabled
 * cgroups. A stop signal is seen between two runs. END (may be NULL) runs
 * once the loop is over, while the daemon still logs as itself.
 */
struct reclaimd_side {
	uint64_t (*run)(void *userdata, uint64_t now_ns);
	void (*end)(void *userdata);
	void *userdata;
	uint64_t next_ns;
};

/* ---- process.c: what only a process may do (never the library) ---- */

/* CLOCK_MONOTONIC and this process's CPU time, in ns. */
uint64_t rd_now_ns(void);
uint64_t rd_cpu_ns(void);

/* The stop signals: block them and open a signalfd (the fd), or -errno. */
int rd_signals_open(sigset_t *ret_set);
/* Is one of SET pending (SIGHUP too: a rescan is due)? Polled between reclaim steps. */
bool rd_stop_pending(const sigset_t *set);

/* Lock and write DIRFD/reclaimd.pid (trusted state directory): the fd, -MCG_E_LOCKED. */
int rd_pidfile_lock(int dirfd);
/* Remove the pid file and drop the lock (FD closed, set to -1). */
void rd_pidfile_unlock(int dirfd, int *fd);

/*
 * Logging: one line per message on stderr (reclaimd.log for a detached daemon):
 * a timestamp, the pid and the level; under systemd (stderr is the journal
 * stream) a <N> priority prefix and no timestamp, journald keeps its own.
 * Library messages go the same way (the context's log callback).
 */
void rd_log_setup(struct mcg_ctx *ctx, int verbose);
/* sd_notify READY=1 when a service manager waits ($NOTIFY_SOCKET) */
void rd_notify_ready(struct mcg_ctx *ctx);
void rd_log_restore(struct mcg_ctx *ctx);

#endif
