/* reclaimd.c: the async-reclaim daemon: wakes on usage events, reclaims to the low watermark. */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NSEC 1000000000ULL
#define MSEC 1000000ULL
#define MIB (1024ULL * 1024)

/* A slow timer behind every event source: catches lost events and a changed limit. */
#define FALLBACK_NS (1 * NSEC)
#define NOLIMIT_RECHECK_NS (5 * NSEC)
#define LOCKED_RETRY_NS (100 * MSEC)
#define CLEAN_RECHECK_NS (20 * MSEC)
#define STATS_EVERY_NS (1 * NSEC)
/* The CPU budget may be saved up for this long (a burst after an idle period). */
#define BUDGET_BURST_NS (2 * NSEC)
/*
 * Thrashing: over a window of reclaim, file refaults (bytes) reached this
 * fraction of what we reclaimed: the workload reads back what we evict.
 */
#define THRASH_RATIO 1.0
#define THRASH_BACKOFF_MIN_NS (5 * NSEC)
#define THRASH_BACKOFF_MAX_NS (120 * NSEC)

struct cg {
	struct mcg_async_conf conf;
	struct mcg_group *g;
	int usage_fd, limit_fd;
	int efd;       /* v1: threshold eventfd */
	int psi_fd;    /* v2: memory.pressure trigger */
	int events_fd; /* v2: memory.events, POLLPRI on change */
	uint64_t registered_high;
	uint64_t limit, high, low;
	bool valid; /* watermarks resolved */
	struct mcg_async_stats st;
	double tokens_ns;
	uint64_t refill_ns;
	uint64_t next_ns; /* look again at this time */
	uint64_t backoff_until, backoff_ns;
	uint64_t win_reclaimed, win_refault_base;
	bool win_started;
	uint64_t last_usage, last_usage_ns; /* v2: growth rate for the adaptive timer */
	bool stats_dirty;
	uint64_t stats_written_ns;
	bool mark;
	char *ename; /* the path escaped for the log (mcg_escape) */
};

struct daemon {
	struct mcg_ctx *ctx;
	const char *statedir;
	struct mcg__async_dir dir; /* the trusted state directory, opened once */
	int epfd, ifd, sfd, pidfd;
	bool rescan_due;
	char **bad, **bad_new; /* corrupt files logged at the last rescan (logged once) */
	size_t nbad, nbad_new;
	struct cg **cgs;
	size_t n;
	uint64_t started_wall, wakeups, totals_written_ns;
	bool totals_dirty; /* a cgroup's stats were written since the totals */
	const sigset_t *stop;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_error(struct cg *c, int err)
{
	c->st.last_error = err;
	c->st.last_error_time = (int64_t)time(NULL);
	c->stats_dirty = true;
}

static void flush_stats(struct daemon *d, struct cg *c, bool force)
{
	uint64_t now = now_ns();

	if (!c->stats_dirty && !force)
		return;
	if (!force && now - c->stats_written_ns < STATS_EVERY_NS)
		return;
	c->st.updated = (int64_t)time(NULL);
	c->st.pid = getpid();
	c->st.dev = c->conf.dev;
	c->st.ino = c->conf.ino;
	if (mcg__async_stats_write_at(&d->dir, &c->st) < 0)
		mcg_log(d->ctx, MCG_LOG_WARNING, "cannot write the stats of '%s'", c->ename);
	d->totals_dirty = true;
	c->stats_dirty = false;
	c->stats_written_ns = now;
}

static void write_totals(struct daemon *d)
{
	struct mcg_reclaimd_info info = {.pid = getpid(),
					 .started = (int64_t)d->started_wall,
					 .cpu_ns = cpu_ns(),
					 .wakeups = d->wakeups};
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->cgs[i]->conf.max_cpu > info.max_cpu)
			info.max_cpu = d->cgs[i]->conf.max_cpu;
	mcg__reclaimd_totals_write(&d->dir, &info);
	d->totals_written_ns = now_ns();
	d->totals_dirty = false;
}

/* v1: a usage threshold at the high watermark, signalled through an eventfd. */
static int v1_register(struct daemon *d, struct cg *c)
{
	char buf[96];
	int r;

	close_fd(&c->efd); /* closing the eventfd unregisters the old threshold */
	c->registered_high = 0;
	c->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->efd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%d %d %llu", c->efd, c->usage_fd, (unsigned long long)c->high);
	r = mcg_knob_write(c->g, "cgroup.event_control", buf);
	if (r < 0) {
		close_fd(&c->efd);
		return r;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->efd, &ev) < 0) {
		r = -errno;
		close_fd(&c->efd);
		return r;
	}
	c->registered_high = c->high;
	return 0;
}

/* v2: a PSI trigger (some stall) and memory.events changes; the timer does the rest. */
static void v2_register(struct daemon *d, struct cg *c)
{
	struct epoll_event ev = {.events = EPOLLPRI, .data.ptr = c};
	static const char trig[] = "some 20000 1000000";

	if (c->psi_fd < 0) {
		c->psi_fd = mcg_knob_open(c->g, "memory.pressure", O_RDWR | O_NONBLOCK);
		if (c->psi_fd >= 0 && (write(c->psi_fd, trig, sizeof(trig)) < 0 ||
				       epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->psi_fd, &ev) < 0))
			close_fd(&c->psi_fd);
	}
	if (c->events_fd < 0) {
		char buf[512];

		c->events_fd = mcg_knob_open(c->g, "memory.events", O_RDONLY);
		if (c->events_fd >= 0) {
			mcg_fd_pread(c->events_fd, buf, sizeof(buf));
			if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->events_fd, &ev) < 0)
				close_fd(&c->events_fd);
		}
	}
	snprintf(c->st.event_source, sizeof(c->st.event_source), "%s%stimer",
		 c->psi_fd >= 0 ? "psi+" : "", c->events_fd >= 0 ? "events+" : "");
	c->registered_high = c->high;
}

/* Re-read the limit; resolve the watermarks; (re)arm the events. */
static int refresh_limit(struct daemon *d, struct cg *c)
{
	uint64_t limit, high, low;
	int r;

	r = mcg__fd_read_u64(c->limit_fd, &limit);
	if (r < 0)
		return r;
	if (limit == c->limit && c->valid && c->registered_high == c->high)
		return 0;
	c->limit = c->st.limit = limit;
	r = mcg_async_watermarks(&c->conf, limit, &high, &low);
	if (r < 0) {
		c->valid = false;
		c->st.state = r == -EDOM ? MCG_ASYNC_NOLIMIT : MCG_ASYNC_ERROR;
		if (r != -EDOM)
			set_error(c, r);
		c->stats_dirty = true;
		close_fd(&c->efd);
		c->registered_high = 0;
		return 0;
	}
	c->high = c->st.high = high;
	c->low = c->st.low = low;
	c->valid = true;
	if (c->st.state == MCG_ASYNC_NOLIMIT || c->st.state == MCG_ASYNC_ERROR)
		c->st.state = MCG_ASYNC_WAITING;
	c->stats_dirty = true;
	if (d->ctx->version == 1) {
		r = v1_register(d, c);
		if (r < 0) {
			mcg_log(d->ctx, MCG_LOG_WARNING,
				"cannot register a usage threshold on '%s': %s; polling every %llu ms",
				c->ename, mcg_strerror(r),
				(unsigned long long)(FALLBACK_NS / MSEC));
			snprintf(c->st.event_source, sizeof(c->st.event_source), "timer");
		} else {
			snprintf(c->st.event_source, sizeof(c->st.event_source), "eventfd");
		}
	} else {
		v2_register(d, c);
	}
	return 0;
}

static void cg_free(struct cg *c)
{
	if (!c)
		return;
	close_fd(&c->efd);
	close_fd(&c->psi_fd);
	close_fd(&c->events_fd);
	close_fd(&c->usage_fd);
	close_fd(&c->limit_fd);
	mcg_group_close(c->g);
	free(c->ename);
	free(c);
}

/*
 * Is the cgroup enabled gone? Removed, or removed and made again under the
 * same path: the directory there now is another cgroup (its identity is not
 * the enable file's), which only a new 'enable' brings in.
 */
static bool group_gone(struct daemon *d, struct cg *c)
{
	const char *p = c->conf.path;
	struct stat sb;

	if (fstatat(mcg_ctx_rootfd(d->ctx), p + 1, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	return (uint64_t)sb.st_dev != c->conf.dev || (uint64_t)sb.st_ino != c->conf.ino;
}

/*
 * The cgroup was removed while enabled: say so in its stats and remove its
 * enable file, unless that now names another cgroup (the path was made
 * again and enabled anew): that one is served at the next rescan.
 */
static void mark_gone(struct daemon *d, struct cg *c)
{
	if (mcg__async_conf_unlink_same(&d->dir, &c->conf) == -EEXIST) {
		mcg_log(d->ctx, MCG_LOG_INFO,
			"cgroup '%s' was removed and made again, and enabled anew: serving the new one",
			c->ename);
		d->rescan_due = true;
	} else {
		mcg_log(d->ctx, MCG_LOG_INFO, "cgroup '%s' was removed; no longer serving it",
			c->ename);
		c->st.state = MCG_ASYNC_GONE;
		flush_stats(d, c, true); /* kept for status */
	}
}

struct recover_probe {
	char op[32];
};

static void probe_cb(const struct mcg_recovery *r, void *userdata)
{
	struct recover_probe *p = userdata;

	snprintf(p->op, sizeof(p->op), "%s", r->op);
}

static void log_recovered(const struct mcg_recovery *r, void *userdata)
{
	struct daemon *d = userdata;
	char *p = mcg_escape_dup(r->path);

	if (r->error == -MCG_E_CONFLICT)
		mcg_log(d->ctx, MCG_LOG_WARNING,
			"'%s': another writer changed %s since a killed reclaim step (pid %d): "
			"found %llu, expected %llu; kept theirs",
			p ? p : "?", r->knob, (int)r->pid, (unsigned long long)r->found,
			(unsigned long long)r->expected);
	else if (r->error)
		mcg_log(d->ctx, MCG_LOG_WARNING, "cannot restore '%s' from the journal of pid %d: %s",
			p ? p : "?", (int)r->pid, mcg_strerror(r->error));
	else
		mcg_log(d->ctx, MCG_LOG_INFO,
			"restored %d value(s) of '%s' left by a killed reclaim step (pid %d)",
			r->restored, p ? p : "?", (int)r->pid);
	free(p);
}

/* Recover a journal left by a killed reclaimd (our own op only). 1 if recovered. */
static int recover_own(struct daemon *d, struct cg *c)
{
	struct recover_probe p = {""};
	int r;

	r = mcg_recover(d->ctx, c->conf.path, true, probe_cb, &p);
	if (r <= 0)
		return r;
	if (strcmp(p.op, "async-reclaim")) {
		mcg_log(d->ctx, MCG_LOG_WARNING,
			"'%s' has a journal left by a killed '%s'; run 'memcgctl recover'",
			c->ename, p.op);
		return -MCG_E_STALE_JOURNAL;
	}
	r = mcg_recover(d->ctx, c->conf.path, false, log_recovered, d);
	return r < 0 ? r : 1;
}

static struct cg *cg_new(struct daemon *d, const struct mcg_async_conf *conf)
{
	struct cg *c = calloc(1, sizeof(*c));
	const char *uk = d->ctx->version == 2 ? "memory.current" : "memory.usage_in_bytes";
	const char *lk = d->ctx->version == 2 ? "memory.max" : "memory.limit_in_bytes";
	uint64_t now = now_ns();
	int r;

	if (!c)
		return NULL;
	c->efd = c->psi_fd = c->events_fd = c->usage_fd = c->limit_fd = -1;
	c->conf = *conf;
	c->ename = mcg_escape_dup(conf->path);
	if (!c->ename) {
		free(c);
		return NULL;
	}
	snprintf(c->st.path, sizeof(c->st.path), "%s", conf->path);
	snprintf(c->st.root, sizeof(c->st.root), "%s", conf->root);
	c->st.enabled_time = (int64_t)time(NULL);
	/* keep counting across daemon restarts (the same cgroup only) */
	{
		struct mcg_async_stats old;

		if (mcg__async_stats_read_at(&d->dir, conf->root, conf->path, &old) == 0 &&
		    old.state != MCG_ASYNC_GONE && old.dev == conf->dev && old.ino == conf->ino) {
			c->st = old;
			c->st.state = MCG_ASYNC_WAITING;
		}
	}
	c->tokens_ns = (double)BUDGET_BURST_NS * conf->max_cpu / 100.0;
	c->refill_ns = now;
	c->next_ns = now;
	r = mcg_group_open(d->ctx, conf->path, &c->g);
	if (r == 0) {
		struct stat sb;

		/* the path names another cgroup than the one enabled: it was made again */
		if (fstat(mcg_group_dirfd(c->g), &sb) < 0)
			r = -errno;
		else if ((uint64_t)sb.st_dev != conf->dev || (uint64_t)sb.st_ino != conf->ino)
			r = -ENOENT;
	}
	if (r == 0) {
		c->usage_fd = mcg_knob_open(c->g, uk, O_RDONLY);
		c->limit_fd = mcg_knob_open(c->g, lk, O_RDONLY);
		if (c->usage_fd < 0 || c->limit_fd < 0)
			r = c->usage_fd < 0 ? c->usage_fd : c->limit_fd;
	}
	if (r < 0) {
		if (r == -ENOENT || group_gone(d, c)) {
			mark_gone(d, c);
		} else {
			mcg_log(d->ctx, MCG_LOG_WARNING, "cannot serve '%s': %s", c->ename,
				mcg_strerror(r));
			c->st.state = MCG_ASYNC_ERROR;
			set_error(c, r);
			flush_stats(d, c, true);
		}
		cg_free(c);
		return NULL;
	}
	recover_own(d, c);
	refresh_limit(d, c);
	c->stats_dirty = true;
	return c;
}

/*
 * Is the cgroup's page cache dirty enough that reclaiming it is slow? A
 * cgroup at its limit with clean cache reclaims it cheaply in the kernel;
 * reclaiming ahead then only shrinks the cache the workload reads from
 * (measured: reads x0.66 with 10% margins). Dirty or writeback pages make
 * the workload wait in direct reclaim: that is what async reclaim is for.
 */
#define DIRTY_SHARE 16 /* dirty + writeback >= file / 16, and at least high - low */
static bool cache_dirty(struct cg *c)
{
	struct mcg_stat st;
	char *text = NULL;
	size_t len;
	bool dirty = true; /* when in doubt, reclaim */

	if (mcg__read_file_at(mcg_group_dirfd(c->g), "memory.stat", &text, &len) < 0)
		return true;
	if (mcg_stat_parse(text, mcg_group_ctx(c->g)->version, &st) == 0) {
		if (mcg_stat_has(&st, MCG_S_FILE) && mcg_stat_has(&st, MCG_S_FILE_DIRTY)) {
			uint64_t d = st.v[MCG_S_FILE_DIRTY];

			if (mcg_stat_has(&st, MCG_S_FILE_WRITEBACK))
				d += st.v[MCG_S_FILE_WRITEBACK];
			/* a write in flight is not a dirty cache: the kernel finds
			 * clean pages at the limit unless a gap's worth is dirty */
			dirty = d * DIRTY_SHARE >= st.v[MCG_S_FILE] && d >= c->high - c->low;
		}
		mcg_stat_release(&st);
	}
	free(text);
	return dirty;
}

static uint64_t refault_bytes(struct cg *c, bool *ok)
{
	struct mcg_stat st;
	char *text = NULL;
	size_t len;
	uint64_t v = 0;

	*ok = false;
	if (mcg__read_file_at(mcg_group_dirfd(c->g), "memory.stat", &text, &len) < 0)
		return 0;
	if (mcg_stat_parse(text, mcg_group_ctx(c->g)->version, &st) == 0) {
		if (mcg_stat_has(&st, MCG_S_WORKINGSET_REFAULT_FILE)) {
			v = st.v[MCG_S_WORKINGSET_REFAULT_FILE] * (uint64_t)mcg_page_size();
			*ok = true;
		}
		mcg_stat_release(&st);
	}
	free(text);
	return v;
}

/* After reclaiming: does the workload read back what we evict? */
static void thrash_check(struct daemon *d, struct cg *c)
{
	uint64_t window = 8 * (c->high - c->low), now_refault;
	bool ok;

	if (window < 64 * MIB)
		window = 64 * MIB;
	if (!c->win_started) {
		c->win_refault_base = refault_bytes(c, &ok);
		c->win_started = ok;
		c->win_reclaimed = 0;
		return;
	}
	if (c->win_reclaimed < window)
		return;
	now_refault = refault_bytes(c, &ok);
	if (!ok)
		return;
	if (now_refault >= c->win_refault_base) {
		uint64_t delta = now_refault - c->win_refault_base;

		c->st.refaulted += delta;
		c->st.refault_ratio = (double)delta / (double)c->win_reclaimed;
	}
	c->win_refault_base = now_refault;
	c->win_reclaimed = 0;
	c->stats_dirty = true;
	if (c->st.refault_ratio >= THRASH_RATIO) {
		c->backoff_ns = c->backoff_ns ? c->backoff_ns * 2 : THRASH_BACKOFF_MIN_NS;
		if (c->backoff_ns > THRASH_BACKOFF_MAX_NS)
			c->backoff_ns = THRASH_BACKOFF_MAX_NS;
		c->backoff_until = now_ns() + c->backoff_ns;
		c->st.state = MCG_ASYNC_THRASHING;
		c->st.thrash_episodes++;
		mcg_log(d->ctx, MCG_LOG_INFO,
			"'%s' refaults %.0f%% of what we reclaim: backing off for %llu s",
			c->ename, 100 * c->st.refault_ratio,
			(unsigned long long)(c->backoff_ns / NSEC));
	} else {
		c->backoff_ns = 0;
	}
}

static void refill(struct cg *c, uint64_t now)
{
	double rate = c->conf.max_cpu / 100.0, cap = (double)BUDGET_BURST_NS * rate;

	c->tokens_ns += (double)(now - c->refill_ns) * rate;
	if (c->tokens_ns > cap)
		c->tokens_ns = cap;
	c->refill_ns = now;
}

static bool stop_pending(struct daemon *d)
{
	sigset_t pending;
	int s;

	if (sigpending(&pending) < 0)
		return false;
	for (s = 1; s < NSIG; s++)
		if (sigismember(d->stop, s) == 1 && sigismember(&pending, s) == 1)
			return true;
	return false;
}

/* Reclaim C down to its low watermark, in steps, within its CPU budget. */
static void reclaim(struct daemon *d, struct cg *c, uint64_t usage)
{
	uint64_t ps = (uint64_t)mcg_page_size(), now = now_ns(), cpu0, cost;
	struct mcg_reclaimer *rc = NULL;
	struct mcg_txn *t = NULL;
	int r;

	refill(c, now);
	if (now < c->backoff_until) {
		c->next_ns = c->backoff_until;
		return;
	}
	if (c->tokens_ns <= 0) {
		c->st.deferred++;
		if (c->st.state != MCG_ASYNC_THROTTLED)
			c->stats_dirty = true;
		c->st.state = MCG_ASYNC_THROTTLED;
		c->next_ns = now + (uint64_t)(-c->tokens_ns * 100.0 / c->conf.max_cpu) + MSEC;
		return;
	}
	cpu0 = cpu_ns();
	r = mcg_txn_begin(c->g, 0, "async-reclaim", &t);
	if (r == -MCG_E_STALE_JOURNAL && recover_own(d, c) > 0)
		r = mcg_txn_begin(c->g, 0, "async-reclaim", &t);
	if (r == -MCG_E_LOCKED) {
		/* another memcgctl is changing this cgroup: look again shortly */
		c->next_ns = now + LOCKED_RETRY_NS;
		return;
	}
	if (r < 0) {
		set_error(c, r);
		c->st.state = MCG_ASYNC_ERROR;
		c->next_ns = now + FALLBACK_NS;
		return;
	}
	c->st.state = MCG_ASYNC_RECLAIMING;
	/*
	 * One reclaimer per burst: the v1 limit is journalled once and the
	 * control files stay open, so a step is one write (and the write back of
	 * the limit on v1) and one read, not a journal and four opens.
	 */
	r = mcg_reclaimer_new(t, &rc);
	while (r == 0 && usage > c->low) {
		uint64_t want = (uint64_t)c->conf.batch * ps;
		struct mcg_step st;

		if (usage - c->low < want)
			want = (usage - c->low + ps - 1) / ps * ps;
		/* a workload charges meanwhile: the limit goes back after every step */
		r = mcg_reclaimer_step(rc, want, false, &st);
		if (r < 0)
			break;
		c->st.steps++;
		if (st.usage_after < st.usage_before) {
			c->st.reclaimed += st.usage_before - st.usage_after;
			c->win_reclaimed += st.usage_before - st.usage_after;
		}
		usage = st.usage_after;
		if (st.short_) {
			c->st.short_steps++;
			if (st.usage_after >= st.usage_before)
				break; /* no progress: nothing more to get now */
		}
		if (stop_pending(d))
			break;
		if ((double)(cpu_ns() - cpu0) >= c->tokens_ns)
			break; /* budget spent: the rest waits */
	}
	if (rc) {
		uint64_t found, expected;
		int r2 = mcg_reclaimer_restore(rc);

		if (r == 0 && r2 < 0)
			r = r2;
		if (mcg_reclaimer_conflict(rc, &found, &expected) == 0) {
			/*
			 * Someone else (systemd, kubelet, an administrator)
			 * wrote the limit while it was lowered: theirs stays,
			 * nothing was written over it, and the journal entry is
			 * gone. This burst ends; the next one starts from their
			 * limit (refresh_limit() re-reads it), so reclaimd never
			 * fights them.
			 */
			c->st.conflicts++;
			mcg_log(d->ctx, MCG_LOG_WARNING,
				"'%s': another writer changed the limit during reclaim: found %llu, "
				"expected %llu; left theirs, this burst stopped",
				c->ename, (unsigned long long)found, (unsigned long long)expected);
			r = -MCG_E_CONFLICT;
		}
		mcg_reclaimer_free(rc);
	}
	if (r == -MCG_E_CONFLICT) {
		mcg_txn_rollback(t); /* nothing saved is left: drops the journal */
		mcg_txn_free(t);
		cost = cpu_ns() - cpu0;
		c->tokens_ns -= (double)cost;
		c->st.cpu_ns += cost;
		c->st.usage = usage;
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
		c->valid = false; /* re-resolve the watermarks from the limit found */
		c->next_ns = now_ns() + FALLBACK_NS;
		return;
	}
	if (r < 0) {
		/* the step restored the limit already; roll back anything it could not */
		int r2 = mcg_txn_rollback(t);

		if (r != -EINTR) /* a signal (SIGSTOP, SIGTERM) ended the step: no failure */
			set_error(c, r);
		if (r2 < 0)
			mcg_log(d->ctx, MCG_LOG_ERR, "cannot restore the limit of '%s': %s",
				c->ename, mcg_strerror(r2));
		if (r == -ENODEV || r == -ENOENT) {
			mcg_txn_free(t);
			c->st.usage = usage;
			return; /* handled by the caller's gone check */
		}
		if (r != -EINTR)
			c->st.state = MCG_ASYNC_ERROR;
	} else {
		mcg_txn_commit(t);
	}
	mcg_txn_free(t);
	cost = cpu_ns() - cpu0;
	c->tokens_ns -= (double)cost;
	c->st.cpu_ns += cost;
	c->st.usage = usage;
	c->stats_dirty = true;
	if (r >= 0) {
		thrash_check(d, c);
		if (c->st.state == MCG_ASYNC_RECLAIMING)
			c->st.state = usage > c->low ? MCG_ASYNC_THROTTLED : MCG_ASYNC_WAITING;
		if (c->st.state == MCG_ASYNC_THROTTLED) {
			c->st.deferred++;
			c->next_ns = now_ns() +
				     (c->tokens_ns < 0
					      ? (uint64_t)(-c->tokens_ns * 100.0 / c->conf.max_cpu)
					      : 0) +
				     MSEC;
		}
	}
}

/* Look at one cgroup: an event fired, or its timer is due. */
static void check(struct daemon *d, struct cg *c, bool event)
{
	uint64_t usage, now = now_ns();
	int r;

	if (event && c->efd >= 0) {
		uint64_t n;

		if (read(c->efd, &n, sizeof(n)) < 0) { /* drain */
		}
	}
	if (event && c->events_fd >= 0) {
		char buf[512];

		mcg_fd_pread(c->events_fd, buf, sizeof(buf));
	}
	c->next_ns = now + (c->valid ? FALLBACK_NS : NOLIMIT_RECHECK_NS);
	r = refresh_limit(d, c);
	if (r == 0)
		r = mcg__fd_read_u64(c->usage_fd, &usage);
	if (r < 0) {
		if (group_gone(d, c) || r == -ENODEV || r == -ENOENT) {
			mark_gone(d, c);
			c->mark = false; /* drop it */
			return;
		}
		set_error(c, r);
		c->st.state = MCG_ASYNC_ERROR;
		return;
	}
	c->st.usage = usage;
	mcg_log(d->ctx, MCG_LOG_DEBUG, "%s: %s, usage %llu, high %llu", c->ename,
		event ? "event" : "timer", (unsigned long long)usage, (unsigned long long)c->high);
	if (!c->valid)
		return;
	if (c->st.state == MCG_ASYNC_THRASHING && now >= c->backoff_until) {
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
	}
	/* above high: start; still above low after a deferral: go on */
	if (usage > c->high || (c->st.state == MCG_ASYNC_THROTTLED && usage > c->low)) {
		c->st.wakeups++;
		if (!(c->conf.flags & MCG_ASYNC_CLEAN) && c->st.state != MCG_ASYNC_THROTTLED &&
		    !cache_dirty(c)) {
			if (c->st.state != MCG_ASYNC_CLEAN_SKIP)
				c->stats_dirty = true;
			c->st.state = MCG_ASYNC_CLEAN_SKIP;
			c->st.clean_skips++;
			/*
			 * Usage stays above high, so no threshold event comes when
			 * the cache turns dirty: look again soon (one memory.stat
			 * read, ~20 us), not at the 1 s fallback.
			 */
			c->next_ns = now + CLEAN_RECHECK_NS;
			return;
		}
		reclaim(d, c, usage);
		if (group_gone(d, c)) {
			mark_gone(d, c);
			c->mark = false;
			return;
		}
	} else if (c->st.state == MCG_ASYNC_THROTTLED || c->st.state == MCG_ASYNC_CLEAN_SKIP) {
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
	}
	if (d->ctx->version == 2 && c->valid && c->st.state == MCG_ASYNC_WAITING) {
		/* no usage threshold on v2: look again before usage can reach high */
		uint64_t dt = now - c->last_usage_ns, next = FALLBACK_NS;

		if (c->last_usage_ns && usage > c->last_usage && dt > 0 && c->high > usage) {
			double rate = (double)(usage - c->last_usage) / (double)dt;
			uint64_t eta = (uint64_t)((double)(c->high - usage) / rate / 2);

			next = eta < 10 * MSEC ? 10 * MSEC : eta < FALLBACK_NS ? eta : FALLBACK_NS;
		} else if (usage >= c->high) {
			next = 10 * MSEC;
		}
		c->next_ns = now + next;
	}
	c->last_usage = usage;
	c->last_usage_ns = now;
}

static struct cg *find_cg(struct daemon *d, const struct mcg_async_conf *conf)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->cgs[i]->conf.path, conf->path))
			return d->cgs[i];
	return NULL;
}

static bool bad_seen(char **v, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], key))
			return true;
	return false;
}

/* A corrupt file in the state directory: never served; logged once while it stays. */
static void log_bad(const char *file, const char *why, void *userdata)
{
	struct daemon *d = userdata;
	char key[1024], **nv;

	snprintf(key, sizeof(key), "%s\n%s", file, why);
	if (!bad_seen(d->bad, d->nbad, key)) {
		char *f = mcg_escape_dup(file);

		mcg_log(d->ctx, MCG_LOG_WARNING, "ignoring corrupt file '%s/%s': %s",
			d->statedir, f ? f : "?", why);
		free(f);
	}
	nv = realloc(d->bad_new, (d->nbad_new + 1) * sizeof(*nv));
	if (!nv)
		return;
	d->bad_new = nv;
	nv[d->nbad_new] = strdup(key);
	if (nv[d->nbad_new])
		d->nbad_new++;
}

static void bad_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* Bring the served set in line with the enable files. */
static int rescan(struct daemon *d)
{
	struct mcg_async_conf *confs;
	size_t n, i, j;
	int r;

	d->rescan_due = false;
	d->bad_new = NULL;
	d->nbad_new = 0;
	r = mcg__async_list_at(&d->dir, &confs, &n, log_bad, d);
	bad_free(d->bad, d->nbad);
	d->bad = d->bad_new;
	d->nbad = d->nbad_new;
	d->bad_new = NULL;
	if (r < 0)
		return r;
	for (i = 0; i < d->n; i++)
		d->cgs[i]->mark = false;
	for (i = 0; i < n; i++) {
		struct cg *c;

		if (strcmp(confs[i].root, mcg_ctx_root(d->ctx)))
			continue; /* another hierarchy's */
		c = find_cg(d, &confs[i]);
		if (c && (c->conf.dev != confs[i].dev || c->conf.ino != confs[i].ino)) {
			/*
			 * Enabled anew on a cgroup made again under the same
			 * path: the descriptors held are the removed cgroup's.
			 * Drop them (the file now names the new one) and serve
			 * the new cgroup from its own descriptors.
			 */
			size_t k;

			mcg_log(d->ctx, MCG_LOG_INFO, "'%s' is another cgroup now: serving the new one",
				c->ename);
			for (k = 0; k < d->n; k++)
				if (d->cgs[k] == c)
					d->cgs[k] = d->cgs[--d->n];
			cg_free(c);
			c = NULL;
		}
		if (c) {
			if (memcmp(&c->conf, &confs[i], sizeof(confs[i]))) {
				c->conf = confs[i];
				c->valid = false; /* re-resolve the watermarks */
				c->tokens_ns = (double)BUDGET_BURST_NS * c->conf.max_cpu / 100.0;
				check(d, c, false);
			}
			c->mark = true;
			continue;
		}
		c = cg_new(d, &confs[i]);
		if (!c)
			continue;
		{
			struct cg **nv = realloc(d->cgs, (d->n + 1) * sizeof(*nv));

			if (!nv) {
				cg_free(c);
				free(confs);
				return -ENOMEM;
			}
			d->cgs = nv;
		}
		c->mark = true;
		d->cgs[d->n++] = c;
		mcg_log(d->ctx, MCG_LOG_INFO, "serving '%s': high %llu, low %llu (limit %llu)",
			c->ename, (unsigned long long)c->high, (unsigned long long)c->low,
			(unsigned long long)c->limit);
		check(d, c, false);
	}
	free(confs);
	/* drop what was disabled (stats went with the enable file) */
	for (i = j = 0; i < d->n; i++) {
		if (d->cgs[i]->mark)
			d->cgs[j++] = d->cgs[i];
		else
			cg_free(d->cgs[i]);
	}
	d->n = j;
	return 0;
}

static int pidfile_lock(struct daemon *d)
{
	char buf[32];
	int fd = mcg__openat_file(d->dir.fd, "reclaimd.pid", O_RDWR | O_CREAT, 0644);

	if (fd == -MCG_E_UNTRUSTED && unlinkat(d->dir.fd, "reclaimd.pid", 0) == 0)
		/* a link where the pid file goes is no daemon's: replaced, never followed */
		fd = mcg__openat_file(d->dir.fd, "reclaimd.pid", O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		return e == EWOULDBLOCK ? -MCG_E_LOCKED : -e;
	}
	/* one fixed-size write: a reader never sees an empty file (no truncate) */
	snprintf(buf, sizeof(buf), "%-15d\n", (int)getpid());
	if (pwrite(fd, buf, strlen(buf), 0) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	d->pidfd = fd;
	return 0;
}

static void pidfile_unlock(struct daemon *d)
{
	if (d->pidfd < 0)
		return;
	unlinkat(d->dir.statsfd, "reclaimd", 0);
	unlinkat(d->dir.fd, "reclaimd.pid", 0);
	close_fd(&d->pidfd);
}

static void drop_gone(struct daemon *d)
{
	size_t i, j;

	for (i = j = 0; i < d->n; i++) {
		if (d->cgs[i]->mark)
			d->cgs[j++] = d->cgs[i];
		else
			cg_free(d->cgs[i]);
	}
	d->n = j;
}

int mcg_reclaimd_run(struct mcg_ctx *ctx, const char *statedir, const sigset_t *stop,
		     unsigned flags)
{
	struct daemon d = {.ctx = ctx, .statedir = statedir, .stop = stop};
	struct epoll_event ev;
	size_t i;
	int r;

	char watch[64];

	d.epfd = d.ifd = d.sfd = d.pidfd = -1;
	r = mcg__async_dir_open(statedir, true, &d.dir);
	if (r < 0)
		return r;
	r = pidfile_lock(&d);
	if (r < 0) {
		mcg__async_dir_close(&d.dir);
		return r;
	}
	d.started_wall = (uint64_t)time(NULL);
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	d.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	d.sfd = signalfd(-1, stop, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d.epfd < 0 || d.ifd < 0 || d.sfd < 0) {
		r = -errno;
		goto out;
	}
	/* the directory opened, whatever its path names now */
	snprintf(watch, sizeof(watch), "/proc/self/fd/%d", d.dir.fd);
	if (inotify_add_watch(d.ifd, watch,
			      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) < 0) {
		r = -errno;
		goto out;
	}
	ev = (struct epoll_event){.events = EPOLLIN, .data.ptr = &d.ifd};
	if (epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.ifd, &ev) < 0) {
		r = -errno;
		goto out;
	}
	ev = (struct epoll_event){.events = EPOLLIN, .data.ptr = &d.sfd};
	if (epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.sfd, &ev) < 0) {
		r = -errno;
		goto out;
	}
	r = rescan(&d);
	if (r < 0)
		goto out;
	mcg_log(ctx, MCG_LOG_INFO, "reclaimd %d serving %zu cgroup(s) from %s", (int)getpid(), d.n,
		statedir);
	write_totals(&d);
	for (;;) {
		struct epoll_event evs[16];
		uint64_t now = now_ns(), next = now + 60 * NSEC;
		bool need_rescan = false;
		int n, timeout;

		if (d.n == 0 && !(flags & MCG_RECLAIMD_KEEP)) {
			/* Release the pid file, then look once more: an enable that raced
			 * with us either sees no daemon (and starts one) or is seen here. */
			pidfile_unlock(&d);
			r = rescan(&d);
			if (r < 0 || d.n == 0)
				break;
			r = pidfile_lock(&d);
			if (r < 0) {
				r = r == -MCG_E_LOCKED ? 0 : r; /* a new daemon took over */
				break;
			}
		}
		for (i = 0; i < d.n; i++) {
			struct cg *c = d.cgs[i];

			if (c->next_ns < next)
				next = c->next_ns;
			if (c->stats_dirty && c->stats_written_ns + STATS_EVERY_NS < next)
				next = c->stats_written_ns + STATS_EVERY_NS;
		}
		timeout = next <= now ? 0 : (int)((next - now + MSEC - 1) / MSEC);
		n = epoll_wait(d.epfd, evs, 16, timeout);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		d.wakeups++;
		for (int k = 0; k < n; k++) {
			void *p = evs[k].data.ptr;

			if (p == &d.sfd) {
				struct signalfd_siginfo si;

				while (read(d.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo == SIGHUP) {
						need_rescan = true;
						continue;
					}
					mcg_log(ctx, MCG_LOG_INFO, "reclaimd %d: signal %u, exiting",
						(int)getpid(), si.ssi_signo);
					r = 0;
					goto out;
				}
			} else if (p == &d.ifd) {
				char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

				while (read(d.ifd, buf, sizeof(buf)) > 0)
					;
				need_rescan = true;
			} else {
				struct cg *c = p;

				for (i = 0; i < d.n; i++)
					if (d.cgs[i] == c) {
						c->mark = true;
						check(&d, c, true);
						break;
					}
			}
		}
		drop_gone(&d);
		if (need_rescan || d.rescan_due) {
			r = rescan(&d);
			if (r < 0)
				break;
		}
		now = now_ns();
		for (i = 0; i < d.n; i++) {
			struct cg *c = d.cgs[i];

			c->mark = true;
			if (c->next_ns <= now)
				check(&d, c, false);
		}
		drop_gone(&d);
		for (i = 0; i < d.n; i++)
			flush_stats(&d, d.cgs[i], false);
		/* an idle daemon rewrites its totals only every 10 s */
		if (now - d.totals_written_ns >= (d.totals_dirty ? STATS_EVERY_NS : 10 * NSEC))
			write_totals(&d);
	}
out:
	for (i = 0; i < d.n; i++) {
		flush_stats(&d, d.cgs[i], true);
		cg_free(d.cgs[i]);
	}
	free(d.cgs);
	pidfile_unlock(&d);
	close_fd(&d.sfd);
	close_fd(&d.ifd);
	close_fd(&d.epfd);
	bad_free(d.bad, d.nbad);
	mcg__async_dir_close(&d.dir);
	return r;
}
