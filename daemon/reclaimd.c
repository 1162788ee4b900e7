/* reclaimd.c: the async-reclaim daemon's loop: wakes on usage events, reclaims to the low watermark. */
#include "reclaimd.h"
#include "memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NSEC MCG_POLICY_NSEC
#define MSEC MCG_POLICY_MSEC

/* The timers; the policy's own (fallback, budget, back-off, adaptive) are in memcg/async.h. */
#define FALLBACK_NS MCG_POLICY_FALLBACK_NS
/* No limit to stay under (or watermarks that do not resolve): a limit set later is seen within 5 s. */
#define NOLIMIT_RECHECK_NS (5 * NSEC)
/* Another memcgctl holds the cgroup's lock: a set-limit or empty is short, look again soon. */
#define LOCKED_RETRY_NS (100 * MSEC)
/* A cgroup's stats file is rewritten at most once a second (status reads it). */
#define STATS_EVERY_NS (1 * NSEC)
/* The daemon's totals while nothing changes: every 10 s (its CPU time and wake-ups). */
#define TOTALS_IDLE_NS (10 * NSEC)
/* The longest sleep with nothing due: the cgroups' own timers are shorter. */
#define IDLE_WAIT_NS (60 * NSEC)
/*
 * v2: a PSI trigger: wake when tasks of the cgroup stalled on memory for
 * 20 ms within a 1 s window (some). 20 ms is well above the noise of an
 * idle cgroup and well below a stall a user notices; the kernel refuses a
 * window under 500 ms for unprivileged triggers and caps it at 10 s.
 */
#define PSI_TRIGGER "some 20000 1000000"
/* memory.events and memory.stat are short: one read of this size holds them. */
#define EVENTS_BUF 512

/* What an epoll event came from: the cgroup, and whether it was its PSI trigger. */
struct cg;
struct cg_src {
	struct cg *c;
	bool psi;
};

struct cg {
	struct mcg_async_conf conf;
	struct mcg_group *g;
	int usage_fd, limit_fd;
	int efd;       /* v1: threshold eventfd */
	int psi_fd;    /* v2: memory.pressure trigger */
	int events_fd; /* v2: memory.events, POLLPRI on change */
	int failcnt_fd; /* v1: memory.failcnt (limit hits) */
	struct cg_src src, psi_src; /* epoll data of efd/events_fd, and of psi_fd */
	uint64_t registered_high;
	uint64_t limit, high, low; /* high and low as configured (status shows these) */
	bool valid; /* watermarks resolved */
	/*
	 * Keeping up (memcg/async.h): the watermarks and the step in force,
	 * derived from the measured charge rate, the daemon's own reaction time
	 * and the limit hits seen; the limit hit counter at the last look.
	 */
	uint64_t eff_high, eff_low, step;
	struct mcg_policy_rate rate;
	struct mcg_policy_cost cost;
	struct mcg_policy_miss miss;
	uint64_t hits;
	bool hits_known, stalled;
	/*
	 * Skipped for a clean cache while above high: no threshold event comes
	 * when the cache turns dirty, so look again soon (mcg_policy_clean_wait).
	 */
	uint64_t clean_wait;
	struct mcg_async_stats st;
	struct mcg_policy_budget budget;
	struct mcg_policy_thrash thrash;
	struct mcg_policy_aside aside; /* writeback-bound: standing aside */
	uint64_t next_ns; /* look again at this time */
	bool stats_dirty;
	uint64_t stats_written_ns;
	bool mark;
	bool looked; /* checked in this loop iteration: pays a share of its CPU */
	char *ename; /* the path escaped for the log (mcg_escape) */
};

struct daemon {
	struct mcg_ctx *ctx;
	const char *statedir;
	struct mcg_async_dir dir; /* the trusted state directory, opened once */
	int epfd, ifd, sfd, pidfd;
	sigset_t stop; /* read through sfd */
	bool rescan_due;
	/*
	 * Kept configurations (/etc/memcgctl) whose cgroups do not exist yet
	 * (units started after the daemon at boot): the state directory is
	 * listed again every KEPT_RESCAN_NS while there are any.
	 */
	int kept_waiting;
	uint64_t kept_next_ns;
	char **bad, **bad_new; /* corrupt files logged at the last rescan (logged once) */
	size_t nbad, nbad_new;
	struct cg **cgs;
	size_t n;
	uint64_t started_wall, wakeups, totals_written_ns;
	uint64_t iter_reclaim_ns; /* CPU of the bursts of this loop iteration */
	bool totals_dirty; /* a cgroup's stats were written since the totals */
	struct reclaimd_side *side; /* the caller's own work (reclaimd_side), or NULL */
};

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
	uint64_t now = rd_now_ns();

	if (!c->stats_dirty && !force)
		return;
	if (!force && now - c->stats_written_ns < STATS_EVERY_NS)
		return;
	c->st.updated = (int64_t)time(NULL);
	c->st.pid = getpid();
	c->st.dev = c->conf.dev;
	c->st.ino = c->conf.ino;
	if (mcg_async_stats_write_at(&d->dir, &c->st) < 0)
		mcg_log(d->ctx, MCG_LOG_WARNING, "cannot write the stats of '%s'", c->ename);
	d->totals_dirty = true;
	c->stats_dirty = false;
	c->stats_written_ns = now;
}

static void write_totals(struct daemon *d)
{
	struct mcg_reclaimd_info info = {.pid = getpid(),
					 .started = (int64_t)d->started_wall,
					 .cpu_ns = rd_cpu_ns(),
					 .wakeups = d->wakeups};
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->cgs[i]->conf.max_cpu > info.max_cpu)
			info.max_cpu = d->cgs[i]->conf.max_cpu;
	mcg_reclaimd_totals_write(&d->dir, &info);
	d->totals_written_ns = rd_now_ns();
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
	snprintf(buf, sizeof(buf), "%d %d %llu", c->efd, c->usage_fd,
		 (unsigned long long)c->eff_high);
	r = mcg_knob_write(c->g, "cgroup.event_control", buf);
	if (r < 0) {
		close_fd(&c->efd);
		return r;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &c->src};

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->efd, &ev) < 0) {
		r = -errno;
		close_fd(&c->efd);
		return r;
	}
	c->registered_high = c->eff_high;
	return 0;
}

/* v2: a PSI trigger (some stall) and memory.events changes; the timer does the rest. */
static void v2_register(struct daemon *d, struct cg *c)
{
	struct epoll_event ev = {.events = EPOLLPRI, .data.ptr = &c->src};
	struct epoll_event pev = {.events = EPOLLPRI, .data.ptr = &c->psi_src};
	static const char trig[] = PSI_TRIGGER;

	if (c->psi_fd < 0) {
		c->psi_fd = mcg_knob_open(c->g, "memory.pressure", O_RDWR | O_NONBLOCK);
		if (c->psi_fd >= 0 && (write(c->psi_fd, trig, sizeof(trig)) < 0 ||
				       epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->psi_fd, &pev) < 0))
			close_fd(&c->psi_fd);
	}
	if (c->events_fd < 0) {
		char buf[EVENTS_BUF];

		c->events_fd = mcg_knob_open(c->g, "memory.events", O_RDONLY);
		if (c->events_fd >= 0) {
			mcg_fd_pread(c->events_fd, buf, sizeof(buf));
			if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->events_fd, &ev) < 0)
				close_fd(&c->events_fd);
		}
	}
	snprintf(c->st.event_source, sizeof(c->st.event_source), "%s%stimer",
		 c->psi_fd >= 0 ? "psi+" : "", c->events_fd >= 0 ? "events+" : "");
	c->registered_high = c->eff_high;
}

/*
 * Move the v1 usage threshold to the high watermark in force? Only when it
 * moved by more than a quarter of its margin: a registration is a write to
 * cgroup.event_control and a new eventfd, and the poll timer covers the
 * difference meanwhile.
 */
static bool rearm_due(const struct cg *c)
{
	uint64_t diff;

	if (c->registered_high == 0)
		return true;
	if (c->efd < 0)
		return false; /* v2, or v1 polling only: nothing armed to move */
	diff = c->registered_high > c->eff_high ? c->registered_high - c->eff_high
						: c->eff_high - c->registered_high;
	return c->eff_high < c->limit && diff > (c->limit - c->eff_high) / 4;
}

/* Re-read the limit; resolve the watermarks; (re)arm the events. */
static int refresh_limit(struct daemon *d, struct cg *c)
{
	uint64_t limit, high, low;
	bool changed, said;
	int r;

	r = mcg_fd_read_u64(c->limit_fd, &limit);
	if (r < 0)
		return r;
	if (limit == c->limit && c->valid && !rearm_due(c))
		return 0;
	changed = limit != c->limit || !c->valid;
	/* a limit that leaves no room is said once: when it comes, not at each look after */
	said = limit == c->limit && !c->valid;
	c->limit = c->st.limit = limit;
	r = mcg_async_watermarks(&c->conf, limit, &high, &low);
	if (r < 0) {
		if (!said)
			mcg_log(d->ctx, MCG_LOG_WARNING,
				"'%s': %s (limit %llu): not reclaiming until the watermarks fit "
				"again",
				c->ename, r == -EDOM ? "no limit" : "the watermarks do not fit below the limit",
				(unsigned long long)limit);
		c->valid = false;
		c->st.state = r == -EDOM ? MCG_ASYNC_NOLIMIT : MCG_ASYNC_ERROR;
		if (r != -EDOM)
			set_error(c, r);
		c->stats_dirty = true;
		close_fd(&c->efd);
		c->registered_high = 0;
		return 0;
	}
	if (changed || high != c->high || low != c->low) {
		/* new watermarks: widened again from what is measured (next look) */
		c->eff_high = high;
		c->eff_low = low;
	}
	c->high = c->st.high = high;
	c->low = c->st.low = low;
	c->valid = true;
	if (c->st.state == MCG_ASYNC_NOLIMIT || c->st.state == MCG_ASYNC_ERROR) {
		mcg_log(d->ctx, MCG_LOG_INFO, "'%s': serving again: high %llu, low %llu (limit %llu)",
			c->ename, (unsigned long long)high, (unsigned long long)low,
			(unsigned long long)limit);
		c->st.state = MCG_ASYNC_WAITING;
	}
	c->stats_dirty = true;
	if (mcg_ctx_version(d->ctx) == 1) {
		r = v1_register(d, c);
		if (r < 0) {
			mcg_log(d->ctx, MCG_LOG_WARNING,
				"cannot register a usage threshold on '%s': %s; polling every %llu ms",
				c->ename, mcg_strerror(r),
				(unsigned long long)(FALLBACK_NS / MSEC));
			snprintf(c->st.event_source, sizeof(c->st.event_source), "timer");
			c->registered_high = c->eff_high; /* tried: not again until the limit changes */
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
	close_fd(&c->failcnt_fd);
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
	if (mcg_async_conf_unlink_same(&d->dir, &c->conf) == -EEXIST) {
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
	else if (r->error == -MCG_E_STALE_JOURNAL)
		mcg_log(d->ctx, MCG_LOG_WARNING,
			"'%s' has a journal left by a killed '%s'; run 'memcgctl recover'",
			p ? p : "?", r->op[0] ? r->op : "?");
	else if (r->error)
		mcg_log(d->ctx, MCG_LOG_WARNING, "cannot restore '%s' from the journal of pid %d: %s",
			p ? p : "?", (int)r->pid, mcg_strerror(r->error));
	else
		mcg_log(d->ctx, MCG_LOG_INFO,
			"restored %d value(s) of '%s' left by a killed reclaim step (pid %d)",
			r->restored, p ? p : "?", (int)r->pid);
	free(p);
}

/*
 * Take the cgroup's lock for a burst; a journal a killed reclaimd left is
 * restored first (compare and restore), another command's is left to
 * 'memcgctl recover' (-MCG_E_STALE_JOURNAL, logged).
 */
static int begin(struct daemon *d, struct cg *c, struct mcg_txn **ret)
{
	return mcg_txn_begin_recovering(c->g, MCG_TXN_RECOVER_OWN, "async-reclaim", NULL,
					log_recovered, d, ret);
}

static struct cg *cg_new(struct daemon *d, const struct mcg_async_conf *conf)
{
	struct cg *c = calloc(1, sizeof(*c));
	const char *uk = mcg_knob_file(mcg_ctx_version(d->ctx), MCG_K_USAGE);
	const char *lk = mcg_knob_file(mcg_ctx_version(d->ctx), MCG_K_LIMIT);
	uint64_t now = rd_now_ns();
	int r;

	if (!c)
		return NULL;
	c->efd = c->psi_fd = c->events_fd = c->failcnt_fd = c->usage_fd = c->limit_fd = -1;
	c->conf = *conf;
	c->src.c = c->psi_src.c = c;
	c->psi_src.psi = true;
	c->cost = (struct mcg_policy_cost)MCG_POLICY_COST_INIT;
	mcg_policy_miss_init(&c->miss, now);
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

		if (mcg_async_stats_read_at(&d->dir, conf->root, conf->path, &old) == 0 &&
		    old.state != MCG_ASYNC_GONE && old.dev == conf->dev && old.ino == conf->ino) {
			c->st = old;
			c->st.state = MCG_ASYNC_WAITING;
		}
	}
	mcg_policy_budget_init(&c->budget, conf->max_cpu, now);
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
		/* limit hits without it: the rates and the usage still decide */
		if (r == 0 && mcg_ctx_version(d->ctx) == 1)
			c->failcnt_fd = mcg_knob_open(c->g, "memory.failcnt", O_RDONLY);
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
	{
		/* the limit a killed daemon left lowered goes back before it is read */
		struct mcg_txn *t;

		if (begin(d, c, &t) == 0)
			mcg_txn_free(t); /* nothing saved: nothing to roll back */
	}
	refresh_limit(d, c);
	c->stats_dirty = true;
	return c;
}

/* The counters of memory.stat the policy wants, in bytes; "known" bits for each. */
struct cache {
	bool has_dirty, has_refault, has_lru, has_pgpgin;
	uint64_t file, dirty, writeback, refault, inactive, active, pgpgin;
};

/*
 * One read of memory.stat into the record: false if it cannot be read or
 * parsed. Refaults: the file ones only (workingset_refault_file; on v1 the
 * hierarchical total_ key, the local one where the kernel has no total_),
 * not MCG_K_REFAULT, which adds anon; pages, turned into bytes here.
 */
static bool cache_read(struct cg *c, struct cache *ret)
{
	struct mcg_record r = {0};
	char *text = NULL;
	size_t len;
	bool ok = false;

	memset(ret, 0, sizeof(*ret));
	if (mcg_read_file_at(mcg_group_dirfd(c->g), "memory.stat", &text, &len) < 0)
		return false;
	if (mcg_record_parse(&r, mcg_ctx_version(mcg_group_ctx(c->g)), "memory.stat", text) == 0) {
		ret->has_dirty = mcg_record_has(&r, MCG_K_FILE) && mcg_record_has(&r, MCG_K_DIRTY);
		if (ret->has_dirty) {
			ret->file = r.v[MCG_K_FILE];
			ret->dirty = r.v[MCG_K_DIRTY];
			ret->writeback = mcg_record_get(&r, MCG_K_WRITEBACK, 0);
		}
		ret->has_lru = ret->has_dirty && mcg_record_has(&r, MCG_K_INACTIVE_FILE) &&
			       mcg_record_has(&r, MCG_K_ACTIVE_FILE);
		if (ret->has_lru) {
			ret->inactive = r.v[MCG_K_INACTIVE_FILE];
			ret->active = r.v[MCG_K_ACTIVE_FILE];
		}
		ret->has_pgpgin = mcg_record_has(&r, MCG_K_PGPGIN);
		if (ret->has_pgpgin)
			ret->pgpgin = r.v[MCG_K_PGPGIN];
		ret->has_refault = mcg_record_has(&r, MCG_K_WORKINGSET_REFAULT_FILE);
		if (ret->has_refault)
			ret->refault =
				r.v[MCG_K_WORKINGSET_REFAULT_FILE] * (uint64_t)mcg_page_size();
		ok = true;
	}
	free(text);
	return ok;
}

/* Above high: leave it to the kernel (clean cache)? When in doubt, reclaim. */
static bool skip_clean(struct cg *c)
{
	struct cache k;

	if (!cache_read(c, &k) || !k.has_dirty)
		return false;
	return mcg_policy_skip_clean(k.file, k.dirty, k.writeback, c->high - c->low);
}

/*
 * Writeback-bound (memcg/async.h): a clean sample of the file LRU when one is
 * due, into the window with the limit hits; says in the log when the daemon
 * starts or stops standing aside.
 */
static void aside_look(struct daemon *d, struct cg *c, uint64_t now)
{
	struct mcg_policy_aside_sample smp = {0};
	struct cache k;
	uint64_t gap = c->limit > c->eff_low ? c->limit - c->eff_low : 0;
	uint64_t s0 = c->aside.start_ns;
	bool sampled = false;
	enum mcg_policy_aside_verdict v;

	if (c->hits_known && mcg_policy_aside_wants_sample(&c->aside, now) && cache_read(c, &k) &&
	    k.has_lru && k.has_pgpgin) {
		smp.known = true;
		smp.hits = c->hits;
		smp.charges = k.pgpgin;
		smp.clean = mcg_policy_clean_file(k.inactive, k.active, k.dirty, k.writeback);
		sampled = true;
	}
	v = mcg_policy_aside_look(&c->aside, sampled ? &smp : NULL, gap, now);
	if (c->aside.start_ns != s0)
		mcg_log(d->ctx, MCG_LOG_DEBUG, "'%s': window: clean %llu KiB (mean), burst %llu KiB",
			c->ename, (unsigned long long)(c->aside.last_clean / 1024),
			(unsigned long long)(gap / 1024));
	switch (v) {
	case MCG_POLICY_ASIDE_NONE:
		break;
	case MCG_POLICY_ASIDE_ENTERED:
		mcg_log(d->ctx, MCG_LOG_INFO,
			"'%s': every charge meets the limit and %llu KiB of the file cache is "
			"clean: writeback-bound, standing aside for %llu s",
			c->ename, (unsigned long long)(c->aside.last_clean / 1024),
			(unsigned long long)(c->aside.period_ns / NSEC));
		break;
	case MCG_POLICY_ASIDE_PROBING:
		mcg_log(d->ctx, MCG_LOG_DEBUG, "'%s': writeback-bound still; stepping for a window",
			c->ename);
		break;
	case MCG_POLICY_ASIDE_RESUMED:
		mcg_log(d->ctx, MCG_LOG_INFO,
			"'%s': clean cache again (%llu KiB) or off the limit: stepping", c->ename,
			(unsigned long long)(c->aside.last_clean / 1024));
		break;
	}
}

/* After reclaiming: does the workload read back what we evict? */
static void thrash_check(struct daemon *d, struct cg *c)
{
	struct cache k = {0};
	uint64_t refaulted = 0;
	bool known;

	if (!mcg_policy_thrash_wants_sample(&c->thrash, c->high, c->low))
		return;
	known = cache_read(c, &k) && k.has_refault;
	switch (mcg_policy_thrash_sample(&c->thrash, c->high, c->low, known, k.refault,
					 rd_now_ns(), &refaulted)) {
	case MCG_POLICY_THRASH_OPEN:
		return;
	case MCG_POLICY_THRASH_BACKOFF:
		c->st.state = MCG_ASYNC_THRASHING;
		c->st.thrash_episodes++;
		mcg_log(d->ctx, MCG_LOG_INFO,
			"'%s' refaults %.0f%% of what we reclaim: backing off for %llu s",
			c->ename, 100 * c->thrash.ratio,
			(unsigned long long)(c->thrash.backoff_ns / NSEC));
		break;
	case MCG_POLICY_THRASH_CALM:
		break;
	}
	c->st.refaulted += refaulted;
	c->st.refault_ratio = c->thrash.ratio;
	c->stats_dirty = true;
}

/*
 * The step timer. A v1 limit write reclaims until usage fits under the
 * lowered value (a v2 memory.reclaim write until it freed what it was
 * asked), and a writer that charges as fast as it frees keeps that going:
 * measured here, a streaming writer held single 1-4 MiB steps for tens of
 * milliseconds at several seconds of CPU per GiB reclaimed. A timer armed
 * for what the budget has left ends the step with SIGALRM (no SA_RESTART:
 * the write returns EINTR, and both kernels' reclaim loops check for a
 * pending signal between rounds); the reclaimer puts the limit back as after
 * any EINTR. A monotonic timer, not one on the process's CPU clock: CPU
 * timers expire on the way back to user space (task work), so one never
 * ended a step (seen here: a single step ran 939 ms of CPU against a 0.25 ms
 * budget); a step's kernel reclaim is CPU-bound, so its wall time is at
 * least its CPU time and the bound errs on the side of the budget.
 */
/* Never shorter: a step must be able to reclaim something (a 32-page round). */
#define STEP_TIMER_MIN_NS (200 * 1000)
static volatile sig_atomic_t step_timer_fired;
static timer_t step_timer;
static bool step_timer_ok;

static void on_step_timer(int sig)
{
	(void)sig;
	step_timer_fired = 1;
}

static void step_timer_setup(struct daemon *d)
{
	struct sigaction sa = {.sa_handler = on_step_timer};
	struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};

	if (step_timer_ok)
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    timer_create(CLOCK_MONOTONIC, &sev, &step_timer) < 0) {
		mcg_log(d->ctx, MCG_LOG_WARNING,
			"no step timer (%s): a step may overrun the CPU budget", strerror(errno));
		return;
	}
	step_timer_ok = true;
}

/* Arm for NS (0: disarm). */
static void step_timer_arm(uint64_t ns)
{
	struct itimerspec its = {0};

	if (!step_timer_ok)
		return;
	if (ns) {
		if (ns < STEP_TIMER_MIN_NS)
			ns = STEP_TIMER_MIN_NS;
		its.it_value.tv_sec = (time_t)(ns / NSEC);
		its.it_value.tv_nsec = (long)(ns % NSEC);
		step_timer_fired = 0; /* disarming keeps it: the caller asks after */
	}
	timer_settime(step_timer, 0, &its, NULL);
}

/* Account a burst's CPU cost. */
static void spend(struct daemon *d, struct cg *c, uint64_t cpu0)
{
	uint64_t cost = rd_cpu_ns() - cpu0;

	mcg_policy_budget_spend(&c->budget, cost);
	c->st.cpu_ns += cost;
	d->iter_reclaim_ns += cost;
}

/* Reclaim C down to its low watermark, in steps, within its CPU budget. */
static void reclaim(struct daemon *d, struct cg *c, uint64_t usage)
{
	uint64_t ps = (uint64_t)mcg_page_size(), now = rd_now_ns(), cpu0, wait;
	uint64_t reclaimed0 = c->st.reclaimed, usage0 = usage;
	struct mcg_reclaimer *rc = NULL;
	struct mcg_txn *t = NULL;
	int r;

	mcg_policy_budget_refill(&c->budget, now);
	if (mcg_policy_thrash_backing_off(&c->thrash, now)) {
		c->next_ns = c->thrash.until_ns;
		return;
	}
	wait = mcg_policy_budget_wait(&c->budget);
	if (wait) {
		c->st.deferred++;
		if (c->st.state != MCG_ASYNC_THROTTLED)
			c->stats_dirty = true;
		c->st.state = MCG_ASYNC_THROTTLED;
		c->next_ns = now + wait;
		return;
	}
	cpu0 = rd_cpu_ns();
	r = begin(d, c, &t);
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
	while (r == 0 && usage > c->eff_low) {
		uint64_t want = c->step, t0 = rd_now_ns(), t1;
		struct mcg_step st;

		if (usage - c->eff_low < want)
			want = (usage - c->eff_low + ps - 1) / ps * ps;
		/* what the budget has left, as CPU time: the step ends there */
		{
			double left = c->budget.tokens_ns - (double)(rd_cpu_ns() - cpu0);

			step_timer_arm(left > STEP_TIMER_MIN_NS ? (uint64_t)left : STEP_TIMER_MIN_NS);
		}
		/* a workload charges meanwhile: the limit goes back after every step */
		r = mcg_reclaimer_step(rc, want, false, &st);
		step_timer_arm(0);
		if (r == -EINTR && step_timer_fired) {
			/* cut short at the budget: a step like any other, and the burst ends */
			st.usage_before = usage;
			r = mcg_fd_read_u64(c->usage_fd, &st.usage_after);
			if (r < 0)
				break;
			st.short_ = true;
			c->st.short_steps++;
			c->st.steps++;
			if (st.usage_after < st.usage_before) {
				c->st.reclaimed += st.usage_before - st.usage_after;
				mcg_policy_thrash_reclaimed(&c->thrash,
							    st.usage_before - st.usage_after);
			}
			usage = st.usage_after;
			mcg_policy_cost_step(&c->cost, rd_now_ns() - t0);
			break;
		}
		if (r < 0)
			break;
		t1 = rd_now_ns();
		mcg_policy_cost_step(&c->cost, t1 - t0);
		c->st.steps++;
		if (st.usage_after < st.usage_before) {
			c->st.reclaimed += st.usage_before - st.usage_after;
			mcg_policy_thrash_reclaimed(&c->thrash, st.usage_before - st.usage_after);
		}
		usage = st.usage_after;
		mcg_policy_rate_update(&c->rate, usage + c->st.reclaimed, t1);
		if (st.short_) {
			c->st.short_steps++;
			if (st.usage_after >= st.usage_before)
				break; /* no progress: nothing more to get now */
		}
		if (rd_stop_pending(&d->stop))
			break;
		if (mcg_policy_budget_exhausted(&c->budget, rd_cpu_ns() - cpu0))
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
			struct mcg_writer_seen w;

			c->st.conflicts++;
			/* theirs overwritten by our step: said once the original is back, below */
			if (mcg_txn_writer_seen(t, &w) < 0 || !w.overwritten)
				mcg_log(d->ctx, MCG_LOG_WARNING,
					"'%s': another writer changed the limit during reclaim: found "
					"%llu, expected %llu; left theirs, this burst stopped",
					c->ename, (unsigned long long)found,
					(unsigned long long)expected);
			r = -MCG_E_CONFLICT;
		}
		mcg_reclaimer_free(rc);
	}
	if (r == -MCG_E_CONFLICT) {
		struct mcg_writer_seen w;
		uint64_t lim_now = 0;

		/*
		 * Nothing saved is left (drops the journal), unless the other
		 * write was overwritten by the kernel completing our step: then
		 * the original goes back over our lowered value.
		 */
		mcg_txn_rollback(t);
		if (mcg_txn_writer_seen(t, &w) == 0 && w.overwritten) {
			char *comm = mcg_escape_dup(w.comm);

			(void)mcg_knob_read_u64(mcg_txn_group(t), "memory.limit_in_bytes", &lim_now);
			mcg_log(d->ctx, MCG_LOG_WARNING,
				"'%s': another process %d ('%s') wrote %s while reclaimd's step of "
				"%llu was in the kernel, which then overwrote their value; put back "
				"the original: %s reads %llu",
				c->ename, (int)w.pid, comm ? comm : "?", w.knob,
				(unsigned long long)w.step_value, w.knob, (unsigned long long)lim_now);
			free(comm);
		}
		mcg_txn_free(t);
		spend(d, c, cpu0);
		c->st.usage = usage;
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
		c->valid = false; /* re-resolve the watermarks from the limit found */
		c->next_ns = rd_now_ns() + FALLBACK_NS;
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
	spend(d, c, cpu0);
	c->st.usage = usage;
	c->stats_dirty = true;
	/* for the recorder (memcgctl record): what this burst did */
	if (c->st.reclaimed > reclaimed0)
		mcg_hist_note(d->ctx, "reclaimd", c->conf.path, "burst: reclaimed %llu bytes, usage %llu -> %llu",
			      (unsigned long long)(c->st.reclaimed - reclaimed0),
			      (unsigned long long)usage0, (unsigned long long)usage);
	if (r >= 0) {
		thrash_check(d, c);
		if (c->st.state == MCG_ASYNC_RECLAIMING)
			c->st.state = usage > c->eff_low ? MCG_ASYNC_THROTTLED : MCG_ASYNC_WAITING;
		if (c->st.state == MCG_ASYNC_THROTTLED) {
			c->st.deferred++;
			/* out of budget, or stopped short of low: never at once */
			wait = mcg_policy_budget_wait(&c->budget);
			c->next_ns = rd_now_ns() + (wait ? wait : MCG_POLICY_BUDGET_SLACK_NS);
		}
	}
}

/* Limit hits so far: v1 memory.failcnt, v2 the max line of memory.events. */
static bool read_hits(struct cg *c, uint64_t *ret)
{
	char buf[EVENTS_BUF];
	const char *p;

	if (c->failcnt_fd >= 0)
		return mcg_fd_read_u64(c->failcnt_fd, ret) == 0;
	if (c->events_fd < 0 || mcg_fd_pread(c->events_fd, buf, sizeof(buf)) <= 0)
		return false;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "max ", 4))
		{
			char *end;

			errno = 0;
			*ret = strtoull(p + 4, &end, 10);
			return errno == 0 && end != p + 4;
		}
	return false;
}

/*
 * The watermarks, step and poll floor in force from what was measured: the
 * charge rate (usage growth plus what was reclaimed), the misses, the
 * daemon's reaction time (memcg/async.h, "keeping up").
 */
static uint64_t plan(struct cg *c, uint64_t usage, bool hits_rose, uint64_t now)
{
	uint64_t ps = (uint64_t)mcg_page_size();
	uint64_t floor = mcg_policy_poll_floor(c->cost.look_ns, c->conf.max_cpu);
	uint64_t react = mcg_policy_react_ns(floor, &c->cost);

	mcg_policy_rate_update(&c->rate, usage + c->st.reclaimed, now);
	/* a hit while the budget or the clean skip held reclaim back is no margin's miss */
	mcg_policy_miss_update(&c->miss,
			       hits_rose && c->st.state != MCG_ASYNC_THROTTLED &&
				       c->st.state != MCG_ASYNC_CLEAN_SKIP,
			       now);
	mcg_policy_watermarks(c->limit, c->high, c->low, c->rate.bps, react, c->miss.boost,
			      &c->eff_high, &c->eff_low);
	c->step = mcg_policy_step(c->rate.bps, react, (uint64_t)c->conf.batch * ps, ps);
	return floor;
}

/* Look at one cgroup: an event fired, or its timer is due. */
static void check(struct daemon *d, struct cg *c, bool event)
{
	uint64_t usage, hits, now = rd_now_ns(), floor;
	bool hits_rose = false, stalled = c->stalled, behind;
	int r;

	c->looked = true;
	c->stalled = false;
	if (event && c->efd >= 0) {
		uint64_t n;

		if (read(c->efd, &n, sizeof(n)) < 0) { /* drain */
		}
	}
	/* a timed look: how late it came is part of the reaction time */
	if (!event && c->valid && now >= c->next_ns)
		mcg_policy_cost_late(&c->cost, now - c->next_ns);
	c->next_ns = now + (c->valid ? FALLBACK_NS : NOLIMIT_RECHECK_NS);
	r = refresh_limit(d, c);
	if (r == 0)
		r = mcg_fd_read_u64(c->usage_fd, &usage);
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
	/* v2: also clears the POLLPRI of memory.events */
	if (read_hits(c, &hits)) {
		hits_rose = c->hits_known && hits > c->hits;
		c->hits = hits;
		c->hits_known = true;
	}
	if (!c->valid)
		return;
	floor = plan(c, usage, hits_rose, now);
	behind = mcg_policy_behind(usage, c->limit, c->step, hits_rose, stalled);
	aside_look(d, c, now);
	if (mcg_policy_aside_holds(&c->aside)) {
		/* no steps; look again when the next clean sample is due */
		if (c->st.state != MCG_ASYNC_WRITEBACK)
			c->stats_dirty = true;
		c->st.state = MCG_ASYNC_WRITEBACK;
		c->clean_wait = 0;
		c->next_ns = now + MCG_POLICY_ASIDE_SAMPLE_NS;
		return;
	}
	if (c->st.state == MCG_ASYNC_WRITEBACK) {
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
	}
	mcg_log(d->ctx, MCG_LOG_DEBUG,
		"%s: %s, usage %llu, high %llu low %llu step %llu, %.0f MiB/s, boost %.1f%s",
		c->ename, event ? "event" : "timer", (unsigned long long)usage,
		(unsigned long long)c->eff_high, (unsigned long long)c->eff_low,
		(unsigned long long)c->step, c->rate.bps / 1048576, c->miss.boost,
		behind ? ", behind" : "");
	mcg_policy_budget_refill(&c->budget, now);
	if (c->st.state == MCG_ASYNC_THRASHING && !mcg_policy_thrash_backing_off(&c->thrash, now)) {
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
	}
	/* above high, or behind: start; still above low after a deferral: go on */
	if (usage > c->eff_high || (behind && usage > c->eff_low) ||
	    (c->st.state == MCG_ASYNC_THROTTLED && usage > c->eff_low)) {
		c->st.wakeups++;
		if (!(c->conf.flags & MCG_ASYNC_CLEAN) && c->st.state != MCG_ASYNC_THROTTLED &&
		    skip_clean(c)) {
			if (c->st.state != MCG_ASYNC_CLEAN_SKIP)
				c->stats_dirty = true;
			c->st.state = MCG_ASYNC_CLEAN_SKIP;
			c->st.clean_skips++;
			c->clean_wait = mcg_policy_clean_wait(c->clean_wait);
			c->next_ns = now + c->clean_wait;
			return;
		}
		c->clean_wait = 0;
		reclaim(d, c, usage);
		if (group_gone(d, c)) {
			mark_gone(d, c);
			c->mark = false;
			return;
		}
	} else if (c->st.state == MCG_ASYNC_THROTTLED || c->st.state == MCG_ASYNC_CLEAN_SKIP) {
		c->clean_wait = 0;
		c->st.state = MCG_ASYNC_WAITING;
		c->stats_dirty = true;
	}
	if (c->st.state == MCG_ASYNC_WAITING) {
		/*
		 * Look again before usage can reach high at the measured rate
		 * (v1's usage threshold is a backstop: it fires only at the
		 * crossing and is moved lazily, see rearm_due()).
		 */
		now = rd_now_ns();
		c->next_ns = now + mcg_policy_poll(c->st.usage, c->eff_high, c->rate.bps, floor);
	}
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

/* Bring the served set in line with the enable files. */
#define KEPT_RESCAN_NS NSEC

static int rescan(struct daemon *d)
{
	struct mcg_async_conf *confs;
	size_t n, i;
	int r;

	d->rescan_due = false;
	/* only the default state directory serves the kept configurations */
	d->kept_waiting = !strcmp(d->statedir, MCG_ASYNC_DEFAULT_STATEDIR)
				  ? mcg_async_kept_waiting(NULL)
				  : 0;
	d->kept_next_ns = rd_now_ns() + KEPT_RESCAN_NS;
	d->bad_new = NULL;
	d->nbad_new = 0;
	r = mcg_async_list_at(&d->dir, &confs, &n, log_bad, d);
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
				mcg_policy_budget_init(&c->budget, c->conf.max_cpu, rd_now_ns());
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
	drop_gone(d); /* what was disabled (stats went with the enable file) */
	return 0;
}

/*
 * The CPU of this loop iteration (the wait's own system time included) less
 * the bursts', shared by the cgroups looked at: what a look costs, measured,
 * and paid from their budgets (the poll floor follows from it). LOOKED_CPU
 * ends the looks; what follows it (the stats and totals writes) is paid too
 * but is no look's cost. An iteration that looked at no cgroup (a signal, a
 * rescan, a stats write) is paid by all of them: every CPU nanosecond the
 * daemon spends comes out of some budget, or --max-cpu is not what it uses.
 */
static void account_looks(struct daemon *d, uint64_t cpu0, uint64_t looked_cpu)
{
	uint64_t end = rd_cpu_ns(), n = 0, look, paid;
	size_t i;

	look = looked_cpu - cpu0;
	look = look > d->iter_reclaim_ns ? look - d->iter_reclaim_ns : 0;
	paid = look + (end > looked_cpu ? end - looked_cpu : 0);
	d->iter_reclaim_ns = 0;
	for (i = 0; i < d->n; i++)
		n += d->cgs[i]->looked;
	for (i = 0; i < d->n; i++) {
		struct cg *c = d->cgs[i];

		if (n && !c->looked)
			continue;
		if (c->looked)
			mcg_policy_cost_look(&c->cost, look / n);
		c->looked = false;
		mcg_policy_budget_spend(&c->budget, paid / (n ? n : d->n));
		c->st.cpu_ns += paid / (n ? n : d->n);
	}
}

static int pidfile_lock(struct daemon *d)
{
	int fd = rd_pidfile_lock(d->dir.fd);

	if (fd < 0)
		return fd;
	d->pidfd = fd;
	return 0;
}

/* No longer the daemon of this directory: the totals go with the pid file. */
static void pidfile_unlock(struct daemon *d)
{
	if (d->pidfd < 0)
		return;
	unlinkat(d->dir.statsfd, "reclaimd", 0);
	rd_pidfile_unlock(d->dir.fd, &d->pidfd);
}

static int serve(struct daemon *d, unsigned flags);

int reclaimd_main(struct mcg_ctx *ctx, const char *statedir, unsigned flags, int verbose,
		  struct reclaimd_side *side)
{
	struct daemon d = {.ctx = ctx, .statedir = statedir, .side = side};
	int r;

	d.epfd = d.ifd = d.pidfd = -1;
	d.sfd = rd_signals_open(&d.stop);
	if (d.sfd < 0)
		return d.sfd;
	rd_log_setup(ctx, verbose);
	r = mcg_async_dir_open(statedir, true, &d.dir);
	if (r == 0) {
		r = pidfile_lock(&d);
		if (r == 0)
			r = serve(&d, flags);
		pidfile_unlock(&d);
		mcg_async_dir_close(&d.dir);
	}
	if (side && side->end)
		side->end(side->userdata);
	mcg_log(ctx, r < 0 ? MCG_LOG_ERR : MCG_LOG_INFO, "reclaimd %d exits: %s", (int)getpid(),
		r < 0 ? mcg_strerror(r) : "done");
	rd_log_restore(ctx);
	close_fd(&d.sfd);
	return r;
}

/* The loop, with the state directory and the pid file held-> */
static int serve(struct daemon *d, unsigned flags)
{
	struct epoll_event ev;
	size_t i;
	int r;

	char watch[64];

	d->started_wall = (uint64_t)time(NULL);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->epfd < 0 || d->ifd < 0) {
		r = -errno;
		goto out;
	}
	/* the directory opened, whatever its path names now */
	snprintf(watch, sizeof(watch), "/proc/self/fd/%d", d->dir.fd);
	if (inotify_add_watch(d->ifd, watch,
			      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) < 0) {
		r = -errno;
		goto out;
	}
	ev = (struct epoll_event){.events = EPOLLIN, .data.ptr = &d->ifd};
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->ifd, &ev) < 0) {
		r = -errno;
		goto out;
	}
	ev = (struct epoll_event){.events = EPOLLIN, .data.ptr = &d->sfd};
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->sfd, &ev) < 0) {
		r = -errno;
		goto out;
	}
	step_timer_setup(d);
	r = rescan(d);
	if (r < 0)
		goto out;
	mcg_log(d->ctx, MCG_LOG_INFO, "reclaimd %d serving %zu cgroup(s) from %s", (int)getpid(), d->n,
		d->statedir);
	write_totals(d);
	rd_notify_ready(d->ctx);
	for (;;) {
		struct epoll_event evs[16];
		uint64_t now = rd_now_ns(), next = now + IDLE_WAIT_NS, cpu0, looked_cpu;
		bool need_rescan = false;
		struct timespec ts;
		int n;

		if (d->n == 0 && !(flags & RECLAIMD_KEEP) && !(d->side && d->side->next_ns)) {
			/* Release the pid file, then look once more: an enable that raced
			 * with us either sees no daemon (and starts one) or is seen here. */
			pidfile_unlock(d);
			r = rescan(d);
			if (r < 0 || d->n == 0)
				break;
			r = pidfile_lock(d);
			if (r < 0) {
				r = r == -MCG_E_LOCKED ? 0 : r; /* a new daemon took over */
				break;
			}
		}
		for (i = 0; i < d->n; i++) {
			struct cg *c = d->cgs[i];

			if (c->next_ns < next)
				next = c->next_ns;
			if (c->stats_dirty && c->stats_written_ns + STATS_EVERY_NS < next)
				next = c->stats_written_ns + STATS_EVERY_NS;
		}
		if (d->kept_waiting > 0 && d->kept_next_ns < next)
			next = d->kept_next_ns;
		if (d->side && d->side->next_ns && d->side->next_ns < next)
			next = d->side->next_ns;
		/* nanoseconds: the poll timer may be 1 ms, a millisecond timeout would double it */
		ts.tv_sec = next <= now ? 0 : (time_t)((next - now) / NSEC);
		ts.tv_nsec = next <= now ? 0 : (long)((next - now) % NSEC);
		cpu0 = rd_cpu_ns();
		n = epoll_pwait2(d->epfd, evs, 16, &ts, NULL);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		d->wakeups++;
		for (int k = 0; k < n; k++) {
			void *p = evs[k].data.ptr;

			if (p == &d->sfd) {
				struct signalfd_siginfo si;

				while (read(d->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo == SIGHUP) {
						need_rescan = true;
						continue;
					}
					mcg_log(d->ctx, MCG_LOG_INFO, "reclaimd %d: signal %u, exiting",
						(int)getpid(), si.ssi_signo);
					r = 0;
					goto out;
				}
			} else if (p == &d->ifd) {
				char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

				while (read(d->ifd, buf, sizeof(buf)) > 0)
					;
				need_rescan = true;
			} else {
				/* compared before use: the cgroup may have gone meanwhile */
				for (i = 0; i < d->n; i++) {
					struct cg *c = d->cgs[i];

					if (p != &c->src && p != &c->psi_src)
						continue;
					c->mark = true;
					if (p == &c->psi_src)
						c->stalled = true;
					check(d, c, true);
					break;
				}
			}
		}
		drop_gone(d);
		if (d->kept_waiting > 0 && rd_now_ns() >= d->kept_next_ns)
			need_rescan = true; /* a kept cgroup may have appeared (a unit started) */
		if (need_rescan || d->rescan_due) {
			r = rescan(d);
			if (r < 0)
				break;
		}
		now = rd_now_ns();
		for (i = 0; i < d->n; i++) {
			struct cg *c = d->cgs[i];

			c->mark = true;
			if (c->next_ns <= now)
				check(d, c, false);
		}
		drop_gone(d);
		if (d->side && d->side->next_ns && rd_now_ns() >= d->side->next_ns) {
			uint64_t c0 = rd_cpu_ns();

			d->side->next_ns = d->side->run(d->side->userdata, rd_now_ns());
			d->iter_reclaim_ns += rd_cpu_ns() - c0; /* paid from its own budget */
		}
		looked_cpu = rd_cpu_ns();
		for (i = 0; i < d->n; i++)
			flush_stats(d, d->cgs[i], false);
		if (now - d->totals_written_ns >= (d->totals_dirty ? STATS_EVERY_NS : TOTALS_IDLE_NS))
			write_totals(d);
		account_looks(d, cpu0, looked_cpu);
	}
out:
	for (i = 0; i < d->n; i++) {
		flush_stats(d, d->cgs[i], true);
		cg_free(d->cgs[i]);
	}
	free(d->cgs);
	close_fd(&d->ifd);
	close_fd(&d->epfd);
	bad_free(d->bad, d->nbad);
	return r;
}
