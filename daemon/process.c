/* process.c: reclaimd's process concerns: clocks, stop signals, the pid file, the log. */
#include "reclaimd.h"
#include "memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIDFILE "reclaimd.pid"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * MCG_POLICY_NSEC + (uint64_t)ts.tv_nsec;
}

uint64_t rd_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t rd_cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int rd_signals_open(sigset_t *ret_set)
{
	int fd;

	sigemptyset(ret_set);
	sigaddset(ret_set, SIGTERM);
	sigaddset(ret_set, SIGINT);
	sigaddset(ret_set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, ret_set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, ret_set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool rd_stop_pending(const sigset_t *set)
{
	sigset_t pending;
	int s;

	if (sigpending(&pending) < 0)
		return false;
	for (s = 1; s < NSIG; s++)
		if (sigismember(set, s) == 1 && sigismember(&pending, s) == 1)
			return true;
	return false;
}

#define PIDFILE_RETRY_MS 200

int rd_pidfile_lock(int dirfd)
{
	char buf[32];
	int i;
	int fd = mcg_openat_file(dirfd, PIDFILE, O_RDWR | O_CREAT, 0644);

	if (fd == -MCG_E_UNTRUSTED && unlinkat(dirfd, PIDFILE, 0) == 0)
		/* a link where the pid file goes is no daemon's: replaced, never followed */
		fd = mcg_openat_file(dirfd, PIDFILE, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fd;
	/*
	 * Another daemon holds the lock for as long as it runs; 'async-reclaim
	 * status' and enable's wait for a starting daemon (mcg_reclaimd_info)
	 * hold it shared for a moment to see whether one does. So a refusal is
	 * tried again for PIDFILE_RETRY_MS before this daemon gives way: losing
	 * that race made enable wait for a daemon that had exited (seen under
	 * load, and in the TCG guest).
	 */
	for (i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		struct timespec ts = {0, 2 * 1000 * 1000};
		int e = errno;

		if (e != EWOULDBLOCK || i >= PIDFILE_RETRY_MS / 2) {
			close(fd);
			return e == EWOULDBLOCK ? -MCG_E_LOCKED : -e;
		}
		nanosleep(&ts, NULL);
	}
	/* one fixed-size write: a reader never sees an empty file (no truncate) */
	snprintf(buf, sizeof(buf), "%-15d\n", (int)getpid());
	if (pwrite(fd, buf, strlen(buf), 0) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

void rd_pidfile_unlock(int dirfd, int *fd)
{
	if (*fd < 0)
		return;
	unlinkat(dirfd, PIDFILE, 0);
	close(*fd);
	*fd = -1;
}

static struct {
	int verbose;
	bool journal; /* stderr is systemd's journal stream */
	mcg_log_fn saved;
	void *saved_data;
} logger;

/* JOURNAL_STREAM is "DEV:INO" of the stream systemd connected stderr to. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat sb;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &sb) < 0)
		return false;
	return (unsigned long long)sb.st_dev == dev && (unsigned long long)sb.st_ino == ino;
}

static void rd_log(void *userdata, int level, const char *fmt, va_list ap)
{
	const char *what = level <= MCG_LOG_ERR	      ? "error: "
			   : level == MCG_LOG_WARNING ? "warning: "
			   : level == MCG_LOG_DEBUG   ? "debug: "
						      : "";
	char line[2048];
	int n;

	(void)userdata;
	if (level >= MCG_LOG_INFO && logger.verbose < (level == MCG_LOG_DEBUG ? 2 : 1))
		return;
	if (logger.journal) {
		n = snprintf(line, sizeof(line), "<%d>reclaimd: %s", level, what);
	} else {
		struct timespec ts;
		struct tm tm;
		char when[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(line, sizeof(line), "%s.%03ld reclaimd[%d]: %s", when,
			     ts.tv_nsec / 1000000, (int)getpid(), what);
	}
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	/* one write per line: lines of a daemon and of its successor never mix */
	n = (int)strlen(line);
	if ((size_t)n == sizeof(line) - 1)
		n--; /* cut: the newline replaces the last byte */
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere left to say it */
	}
}

/*
 * Type=notify: the daemon is ready once it holds its pid file and serves what is enabled
 * (memcgctl-reclaimd.service waits for this, so that 'async-reclaim enable' started it
 * only when it serves). Without a service manager ($NOTIFY_SOCKET unset) nothing is sent.
 */
void rd_notify_ready(struct mcg_ctx *ctx)
{
	int r = mcg_unit_notify("READY=1");

	if (r < 0)
		mcg_log(ctx, MCG_LOG_WARNING, "cannot tell the service manager it is ready: %s",
			mcg_strerror(r));
}

void rd_log_setup(struct mcg_ctx *ctx, int verbose)
{
	logger.verbose = verbose;
	logger.journal = stderr_is_journal();
	mcg_ctx_get_log(ctx, &logger.saved, &logger.saved_data);
	mcg_ctx_set_log(ctx, rd_log, NULL);
}

void rd_log_restore(struct mcg_ctx *ctx)
{
	mcg_ctx_set_log(ctx, logger.saved, logger.saved_data);
}
