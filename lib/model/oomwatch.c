/* oomwatch.c: catching each OOM kill as it happens: /dev/kmsg, v1 oom_control eventfds, v2 memory.events.local inotify, the record read just before. */
#include "model/model.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

/* usage reads kept per cgroup: a recorder's 10 s samples over a minute, and the watcher's */
#define OOM_POINTS 8

/*
 * One watched cgroup; a removed one is kept a while (GONE_KEEP_NS): its kill
 * may be read late. It holds no descriptor but v1's eventfd: a recorder of a
 * thousand cgroups has its descriptors taken by the sampler already (14 a
 * cgroup), so files are opened by name when something happened.
 */
struct wcg {
	char *path;
	uint64_t hash;     /* of the path (mcg_oom_watch's index of the live cgroups) */
	struct wcg *hnext; /* the next live cgroup in its bucket */
	size_t idx;        /* its place in mcg_oom_watch.cg (reap_gone renumbers) */
	bool root;
	int wd;      /* inotify on the directory */
	int wd_ev;   /* v2: inotify on memory.events.local */
	int efd;     /* v1: the eventfd cgroup.event_control signals on an OOM (and on removal) */
	uint64_t oom, oom_kill, max; /* local counts, last read */
	struct mcg_record rec[2];    /* [cur]: the last read; the other the one before */
	uint64_t rec_ns[2];          /* CLOCK_MONOTONIC of each read; 0 none */
	int cur;
	uint64_t notify_ns; /* the last OOM (v1 notification, v2 local oom rising) */
	uint64_t added_ns;  /* made while watching: when (its kill may come before its notification) */
	uint64_t gone_ns;
	/* the latest usage reads (the watcher's and the sampler's fed in): the growth before a kill */
	struct mcg_oom_point pt[OOM_POINTS];
	unsigned npt, headpt;
	/* the early warning (mcg_oom_warn_eval) */
	int efd_thr;      /* v1: an eventfd on a usage threshold just below the limit */
	int wd_lim;       /* v1: inotify on memory.limit_in_bytes (a new limit moves the threshold) */
	uint64_t thr_lim; /* the limit the threshold was set below; 0 none */
	bool thr_pending; /* the threshold is still to be set (a few a wakeup: an RCU grace period each) */
	bool armed;       /* at the limit: read every TICK_NS */
	uint64_t tick_ns; /* WARN_TICK_NS, or WARN_SLOW_NS while much is reclaimable */
	bool episode;     /* warned; over when usage leaves the limit or a kill frees it */
	uint64_t warn_ns; /* CLOCK_MONOTONIC of the last warning */
};

/* a removed cgroup's record stays for a kill the kernel log tells of late */
#define GONE_KEEP_NS (10ULL * 1000000000ULL)
/* an OOM notification this close to a kill is that kill's (the report takes ~20 ms here) */
#define NOTIFY_WINDOW_NS (2ULL * 1000000000ULL)
/*
 * The kernel stamps its log with local_clock(), we read CLOCK_MONOTONIC: they
 * differ by an offset that moves with the boot and NTP (12.4 ms one evening
 * here, 0.4 ms another), estimated from the records read (clock_observe);
 * the estimate is late by at most the delay of a read, which this covers.
 */
#define CLOCK_SLACK_NS (20ULL * 1000000ULL)
/* the offset's estimate: the least (read time - log time) of this window and the one before */
#define CLOCK_WINDOW_NS (60ULL * 1000000000ULL)
/* OOMs notified at once that a kill is looked for under (v1 notifies a subtree: its top counts) */
#define NOTIFIED_MAX 64
/* the biggest /dev/kmsg record (the kernel's own limit is 1 KiB of text, escaped x4) */
#define KMSG_BUF 8192

enum { TAG_KMSG = 1, TAG_INOTIFY, TAG_EVENTFD, TAG_THRESH };

/*
 * A v1 usage threshold to register: the write to cgroup.event_control waits
 * for an RCU grace period (10-20 ms here), so it is made by a thread of its
 * own, never by the loop that reads the kills. It owns its descriptors: the
 * cgroup's event_control and usage files and a duplicate of the eventfd the
 * watcher polls (closing the watcher's copy cannot make the number name
 * another eventfd before the write).
 */
struct reg_job {
	int ecfd, ufd, efd, dfd; /* dfd: the cgroup's directory (is it still there after a failure?) */
	char arg[24];
	struct reg_job *next;
};

/* a cgroup at its limit with little to reclaim is read this often (v1 has no event for a failed charge) */
#define WARN_TICK_NS (100ULL * 1000000ULL)
/* ... and this often while a quarter of the limit is reclaimable (page cache filling it) */
#define WARN_SLOW_NS (5ULL * 1000000000ULL)
/* one warning a cgroup in this long at most, whatever its episodes */
#define WARN_MIN_NS (10ULL * 1000000000ULL)
/* a v1 limit at or above this is none (the page-rounded LONG_MAX) */
#define LIMIT_NONE (1ULL << 62)
/* a failed v1 registration is said at most once in this long (the count goes on) */
#define REG_WARN_NS (60ULL * 1000000000ULL)
/* usage thresholds set per wakeup (each waits for an RCU grace period in the kernel) */
#define THR_BATCH 4
/*
 * After an OOM notification the kill's line is looked for in the kernel log
 * this often, for this long, without waiting for the log to wake us: the
 * kernel wakes /dev/kmsg readers from a lazy irq_work, at the next tick,
 * while the line itself is readable at once; v1 notifies just before the
 * kill.
 */
#define EXPECT_TICK_MS 1
#define EXPECT_NS (200ULL * 1000000ULL)

struct mcg_oom_watch {
	struct mcg_ctx *ctx;
	int version;
	unsigned flags;
	char *top;
	int epfd, kfd, ifd;
	struct mcg_oom_parser *parser;
	uint64_t skip_seq;
	struct wcg **cg;
	size_t ncg, capcg;
	/*
	 * The live (not gone) cgroups by path: buckets of a power of two, chained
	 * through wcg.hnext. A linear search per cgroup added made the start-up
	 * at 1,000 cgroups quadratic (48 M instructions, callgrind).
	 */
	struct wcg **hb;
	size_t nhb, nlive;
	struct mcg_oom_autopsy *q;
	size_t nq, capq, headq;
	struct mcg_oom_warning *wq;
	size_t nwq, capwq, headwq;
	struct mcg_oom_watch_stats st;
	uint64_t reg_warn_ns; /* the last registration failure said */
	uint64_t expect_ns;   /* an OOM notified, its kill not read yet: when (0 none) */
	/* CLOCK_MONOTONIC - the log's clock, at most: this window's least and the last one's */
	int64_t clk_cur, clk_prev;
	bool clk_have_cur, clk_have_prev;
	uint64_t clk_win_ns;
	bool kmsg_live; /* read up to the log's end once: records read now are new, not a backlog */
	bool started; /* the first walk is done */
	/* the registration thread (started at the first threshold) */
	pthread_t reg_thread;
	bool reg_running, reg_quit;
	pthread_mutex_t reg_mu;
	pthread_cond_t reg_cv;
	struct reg_job *reg_head, **reg_tail;
	atomic_ulong reg_failed_async; /* registrations the thread could not make */
	atomic_int reg_errno;          /* the last one's error */
	unsigned long reg_failed_seen;
	struct mcg_oom_kill kill; /* scratch: too big for the stack of a daemon's loop */
	char buf[KMSG_BUF];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t boot_ns(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((uint64_t)r.tv_sec - (uint64_t)m.tv_sec) * 1000000000ULL + (uint64_t)r.tv_nsec -
	       (uint64_t)m.tv_nsec;
}

static void wcg_close(struct mcg_oom_watch *w, struct wcg *c)
{
	if (c->wd >= 0)
		inotify_rm_watch(w->ifd, c->wd);
	if (c->wd_ev >= 0)
		inotify_rm_watch(w->ifd, c->wd_ev);
	c->wd = c->wd_ev = -1;
	if (c->wd_lim >= 0)
		inotify_rm_watch(w->ifd, c->wd_lim);
	c->wd_lim = -1;
	if (c->efd >= 0)
		close(c->efd);
	c->efd = -1;
	if (c->efd_thr >= 0)
		close(c->efd_thr);
	c->efd_thr = -1;
}

static void wcg_free(struct mcg_oom_watch *w, struct wcg *c)
{
	wcg_close(w, c);
	free(c->path);
	free(c);
}

/* The local counters: v2 memory.events.local (oom, oom_kill, max), v1 memory.oom_control (oom_kill). */
static int read_counts(struct mcg_oom_watch *w, struct wcg *c, uint64_t *oom, uint64_t *kill,
		       uint64_t *max)
{
	struct mcg_group *g;
	char buf[512];
	ssize_t n;
	int fd, r;

	r = mcg_group_open(w->ctx, c->path, &g);
	if (r < 0)
		return r;
	fd = openat(mcg_group_dirfd(g), w->version == 2 ? "memory.events.local" : "memory.oom_control",
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	mcg_group_close(g);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	*oom = *max = 0;
	*kill = 0;
	if (w->version == 2) {
		mcg_keyed_get(buf, "oom", oom);
		mcg_keyed_get(buf, "max", max);
	} else {
		mcg_keyed_get(buf, "under_oom", oom);
	}
	mcg_keyed_get(buf, "oom_kill", kill);
	return 0;
}

static void push_point(struct wcg *c, uint64_t ns, uint64_t usage)
{
	/* a read as old as the last one kept adds nothing (a sample fed after the watcher's) */
	if (c->npt && c->pt[(c->headpt + OOM_POINTS - 1) % OOM_POINTS].ns >= ns)
		return;
	c->pt[c->headpt] = (struct mcg_oom_point){ns, usage};
	c->headpt = (c->headpt + 1) % OOM_POINTS;
	if (c->npt < OOM_POINTS)
		c->npt++;
}

static void read_record(struct mcg_oom_watch *w, struct wcg *c)
{
	int next = c->rec_ns[c->cur] ? !c->cur : c->cur;
	uint64_t t = mono_ns();
	struct mcg_group *g;
	int r;

	if (mcg_group_open(w->ctx, c->path, &g) < 0)
		return;
	r = mcg_group_read_record(g, &c->rec[next], NULL);
	mcg_group_close(g);
	if (r < 0)
		return;
	c->rec_ns[next] = t;
	c->cur = next;
	w->st.reads++;
	if (mcg_record_has(&c->rec[next], MCG_K_USAGE))
		push_point(c, t, c->rec[next].v[MCG_K_USAGE]);
}

/* FNV-1a, 64 bits */
static uint64_t path_hash(const char *p)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static struct wcg *find_path(struct mcg_oom_watch *w, const char *path)
{
	uint64_t h;
	struct wcg *c;

	if (!w->nhb)
		return NULL;
	h = path_hash(path);
	for (c = w->hb[h & (w->nhb - 1)]; c; c = c->hnext)
		if (c->hash == h && !strcmp(c->path, path))
			return c;
	return NULL;
}

/* C (live, its hash set) into the index; the buckets doubled at one a bucket. */
static int hash_add(struct mcg_oom_watch *w, struct wcg *c)
{
	if (w->nlive + 1 > w->nhb) {
		size_t n = w->nhb ? w->nhb * 2 : 64, i;
		struct wcg **hb = calloc(n, sizeof(*hb));

		if (!hb)
			return -ENOMEM;
		for (i = 0; i < w->nhb; i++) {
			struct wcg *e = w->hb[i], *next;

			for (; e; e = next) {
				next = e->hnext;
				e->hnext = hb[e->hash & (n - 1)];
				hb[e->hash & (n - 1)] = e;
			}
		}
		free(w->hb);
		w->hb = hb;
		w->nhb = n;
	}
	c->hnext = w->hb[c->hash & (w->nhb - 1)];
	w->hb[c->hash & (w->nhb - 1)] = c;
	w->nlive++;
	return 0;
}

/* C out of the index (marked gone: a cgroup made again at its path is another). */
static void hash_del(struct mcg_oom_watch *w, struct wcg *c)
{
	struct wcg **pp;

	if (!w->nhb)
		return;
	for (pp = &w->hb[c->hash & (w->nhb - 1)]; *pp; pp = &(*pp)->hnext)
		if (*pp == c) {
			*pp = c->hnext;
			c->hnext = NULL;
			w->nlive--;
			return;
		}
}

static int add_tree(struct mcg_oom_watch *w, const char *path, int depth);

/* A number file of C (v1 memory.limit_in_bytes, ...); -errno. */
static int read_u64(struct mcg_oom_watch *w, struct wcg *c, const char *name, uint64_t *v)
{
	struct mcg_group *g;
	char buf[64];
	ssize_t n;
	int fd, r;

	r = mcg_group_open(w->ctx, c->path, &g);
	if (r < 0)
		return r;
	fd = openat(mcg_group_dirfd(g), name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	mcg_group_close(g);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return mcg_parse_u64(buf, v) < 0 ? -EINVAL : 0;
}

/*
 * A v1 notification through cgroup.event_control (cgroup-v1/memory.rst, "Memory
 * thresholds" and "OOM Control"): a new eventfd registered on FILE of the cgroup at
 * DFD, with ARG after the two descriptors (a threshold; NULL for oom_control). The
 * kernel keeps what it needs of FILE's descriptor: only the eventfd stays open.
 * Returns it, or -errno (EROFS: the cgroup filesystem is mounted read-only here, as
 * systemd's ProtectControlGroups= mounts it).
 */
static int v1_event_register(int dfd, const char *file, const char *arg)
{
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int e = fd < 0 ? errno : 0;
	int ecfd = openat(dfd, "cgroup.event_control", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	int efd;
	char line[96];

	if (!e && ecfd < 0)
		e = errno;
	efd = !e ? eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) : -1;
	if (!e && efd < 0)
		e = errno;
	if (efd >= 0) {
		int n = snprintf(line, sizeof(line), "%d %d%s%s", efd, fd, arg ? " " : "",
				 arg ? arg : "");
		ssize_t w = n < 0 || (size_t)n >= sizeof(line) ? -1 : write(ecfd, line, (size_t)n);

		if (w != n) {
			e = w < 0 && n > 0 && (size_t)n < sizeof(line) ? errno : EINVAL;
			close(efd);
			efd = -e;
		}
	} else {
		efd = -e;
	}
	if (fd >= 0)
		close(fd);
	if (ecfd >= 0)
		close(ecfd);
	return efd;
}
/*
 * A v1 registration that failed: counted, and said at most once in
 * REG_WARN_NS (a thousand cgroups on a read-only cgroupfs fail together),
 * naming the cgroup and the error, with the failures since the last message.
 */
static void reg_failed(struct mcg_oom_watch *w, const struct wcg *c, const char *file, int err)
{
	uint64_t now = mono_ns();
	char *e;

	w->st.register_failures++;
	if (w->reg_warn_ns && now - w->reg_warn_ns < REG_WARN_NS)
		return;
	e = c ? mcg_escape_dup(c->path) : NULL;
	mcg_log(w->ctx, MCG_LOG_WARNING,
		"cannot register for %s of cgroup '%s' (cgroup.event_control): %s%s; OOM kills "
		"there are told from the kernel log alone, without a read before the kill, and "
		"without early warnings (%llu registration%s failed so far; memcgctl-oom(8))",
		file, e ? e : c ? "?" : "(one of them)", strerror(-err),
		err == -EROFS ? " (the cgroup filesystem is mounted read-only here, e.g. by "
				"systemd's ProtectControlGroups=)"
			      : "",
		(unsigned long long)w->st.register_failures,
		w->st.register_failures == 1 ? "" : "s");
	free(e);
	w->reg_warn_ns = now;
}

static void *reg_main(void *arg)
{
	struct mcg_oom_watch *w = arg;

	for (;;) {
		struct reg_job *j;
		char line[96];
		bool quit;
		int n;

		pthread_mutex_lock(&w->reg_mu);
		while (!w->reg_head && !w->reg_quit)
			pthread_cond_wait(&w->reg_cv, &w->reg_mu);
		j = w->reg_head;
		quit = w->reg_quit;
		if (j) {
			w->reg_head = j->next;
			if (!w->reg_head)
				w->reg_tail = &w->reg_head;
		}
		pthread_mutex_unlock(&w->reg_mu);
		if (!j)
			return NULL; /* quit, nothing left */
		n = snprintf(line, sizeof(line), "%d %d %s", j->efd, j->ufd, j->arg);
		/* at quit the jobs left are dropped: each write would wait a grace period */
		if (!quit && (n <= 0 || (size_t)n >= sizeof(line) ||
				     write(j->ecfd, line, (size_t)n) != n)) {
			int e = n > 0 && (size_t)n < sizeof(line) ? errno : EINVAL;

			/* a cgroup removed meanwhile refuses it (EINVAL): no failure */
			if (faccessat(j->dfd, "cgroup.event_control", F_OK, 0) == 0) {
				atomic_store(&w->reg_errno, e);
				atomic_fetch_add(&w->reg_failed_async, 1);
			}
		}
		close(j->dfd);
		close(j->ecfd);
		close(j->ufd);
		close(j->efd);
		free(j);
	}
}

/*
 * The registration of FILE of the cgroup at DFD with ARG, made by the
 * thread: the eventfd to poll at once, or -errno; -EAGAIN: no thread (made
 * here then). A failure of the write itself is counted later (reg_check).
 */
static int reg_async(struct mcg_oom_watch *w, int dfd, const char *file, const char *arg)
{
	struct reg_job *j;
	int efd, e;

	if (!w->reg_running) {
		if (pthread_mutex_init(&w->reg_mu, NULL))
			return -EAGAIN;
		if (pthread_cond_init(&w->reg_cv, NULL)) {
			pthread_mutex_destroy(&w->reg_mu);
			return -EAGAIN;
		}
		w->reg_tail = &w->reg_head;
		if (pthread_create(&w->reg_thread, NULL, reg_main, w)) {
			pthread_cond_destroy(&w->reg_cv);
			pthread_mutex_destroy(&w->reg_mu);
			return -EAGAIN;
		}
		w->reg_running = true;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->ecfd = j->ufd = j->efd = -1;
	snprintf(j->arg, sizeof(j->arg), "%s", arg);
	j->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (j->dfd < 0) {
		e = -errno;
		free(j);
		return e;
	}
	j->ufd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (j->ufd >= 0)
		j->ecfd = openat(dfd, "cgroup.event_control", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	efd = j->ecfd >= 0 ? eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) : -1;
	if (efd >= 0)
		j->efd = fcntl(efd, F_DUPFD_CLOEXEC, 0);
	if (j->efd < 0) {
		e = -errno;
		if (efd >= 0)
			close(efd);
		if (j->ecfd >= 0)
			close(j->ecfd);
		if (j->ufd >= 0)
			close(j->ufd);
		close(j->dfd);
		free(j);
		return e;
	}
	pthread_mutex_lock(&w->reg_mu);
	*w->reg_tail = j;
	w->reg_tail = &j->next;
	pthread_cond_signal(&w->reg_cv);
	pthread_mutex_unlock(&w->reg_mu);
	return efd;
}

static void reg_failed(struct mcg_oom_watch *w, const struct wcg *c, const char *file, int err);

/* Registrations the thread could not make since the last look: counted and said. */
static void reg_check(struct mcg_oom_watch *w)
{
	unsigned long n = atomic_load(&w->reg_failed_async);

	if (n == w->reg_failed_seen)
		return;
	w->st.register_failures += n - w->reg_failed_seen - 1;
	w->reg_failed_seen = n;
	reg_failed(w, NULL, "memory.usage_in_bytes", -atomic_load(&w->reg_errno));
}

static void reg_stop(struct mcg_oom_watch *w)
{
	if (!w->reg_running)
		return;
	pthread_mutex_lock(&w->reg_mu);
	w->reg_quit = true;
	pthread_cond_signal(&w->reg_cv);
	pthread_mutex_unlock(&w->reg_mu);
	pthread_join(w->reg_thread, NULL);
	pthread_cond_destroy(&w->reg_cv);
	pthread_mutex_destroy(&w->reg_mu);
	w->reg_running = false;
}

/*
 * v1: an eventfd on memory.usage_in_bytes crossing a threshold just below
 * the limit (cgroup.event_control), so that a cgroup nearing its limit is
 * noticed without reading it; a limit changed moves it (inotify). Closing
 * the eventfd unregisters the old one.
 */
static void set_threshold(struct mcg_oom_watch *w, struct wcg *c, size_t idx)
{
	struct epoll_event ee = {.events = EPOLLIN};
	struct mcg_group *g;
	uint64_t lim, usage, thr;
	char arg[24];

	if (w->version != 1 || c->root || c->gone_ns)
		return;
	if (c->efd_thr >= 0) {
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->efd_thr, NULL);
		close(c->efd_thr);
		c->efd_thr = -1;
	}
	c->thr_lim = 0;
	c->thr_pending = false;
	if (read_u64(w, c, "memory.limit_in_bytes", &lim) < 0 || lim >= LIMIT_NONE || !lim)
		return;
	thr = lim - mcg_oom_warn_margin(lim);
	if (mcg_group_open(w->ctx, c->path, &g) < 0)
		return;
	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)thr);
	c->efd_thr = reg_async(w, mcg_group_dirfd(g), "memory.usage_in_bytes", arg);
	if (c->efd_thr == -EAGAIN)
		c->efd_thr = v1_event_register(mcg_group_dirfd(g), "memory.usage_in_bytes", arg);
	mcg_group_close(g);
	if (c->efd_thr < 0) {
		reg_failed(w, c, "memory.usage_in_bytes", c->efd_thr);
		c->efd_thr = -1;
		/* tried for this limit: again when it changes, not at every read */
		c->thr_lim = lim;
		return;
	}
	ee.data.u64 = (uint64_t)TAG_THRESH << 32 | (uint64_t)idx;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->efd_thr, &ee) < 0) {
		close(c->efd_thr);
		c->efd_thr = -1;
		return;
	}
	c->thr_lim = lim;
	c->tick_ns = WARN_TICK_NS;
	/* a threshold signals crossings only: one already above it is at the limit now */
	if (read_u64(w, c, "memory.usage_in_bytes", &usage) == 0 && usage >= thr)
		c->armed = true;
}

/* Is there swap left on the machine (SwapFree of the context's meminfo: --proc's, a fixture's)? */
static bool swap_free(const struct mcg_ctx *ctx)
{
	uint64_t v;

	return mcg__swap_free(ctx, &v) == 0 && v > 0;
}

/*
 * Read C and decide: at its limit with charges failing and nothing to
 * reclaim is a warning, once an episode (and once in WARN_MIN_NS).
 */
static void check(struct mcg_oom_watch *w, struct wcg *c, size_t idx, uint64_t now, bool read)
{
	const struct mcg_record *cur, *prev = NULL;
	struct mcg_oom_warning wn;
	uint64_t limit, usage, margin, dt = 0;

	(void)idx; /* the threshold is set later, by the pending loop */

	if (read) {
		uint64_t before = c->rec_ns[c->cur];

		read_record(w, c);
		if (c->rec_ns[c->cur] == before) {
			c->armed = false; /* unreadable (being removed): no tick on it */
			return;
		}
	}
	if (!c->rec_ns[c->cur])
		return;
	cur = &c->rec[c->cur];
	if (c->rec_ns[!c->cur] && c->rec_ns[!c->cur] < c->rec_ns[c->cur]) {
		prev = &c->rec[!c->cur];
		dt = (c->rec_ns[c->cur] - c->rec_ns[!c->cur]) / 1000;
	}
	limit = mcg_record_get(cur, MCG_K_LIMIT, MCG_MAX);
	usage = mcg_record_get(cur, MCG_K_USAGE, 0);
	/* set at the end of the wakeup, when no kill waits (see set_threshold) */
	if (w->version == 1 && limit != MCG_MAX && limit < LIMIT_NONE && limit != c->thr_lim)
		c->thr_pending = true;
	if (limit == MCG_MAX || limit >= LIMIT_NONE) {
		c->armed = c->episode = false;
		return;
	}
	margin = mcg_oom_warn_margin(limit);
	/* memory+swap may be the limit hit: mcg_oom_warn_eval says; the threshold is memory's */
	c->armed = w->version == 1 && usage + margin >= limit;
	c->tick_ns = mcg_reclaimable_from_record(cur, false) > limit / 4 ? WARN_SLOW_NS : WARN_TICK_NS;
	if (usage + 2 * margin < limit)
		c->episode = false;
	if (c->episode || (c->warn_ns && now - c->warn_ns < WARN_MIN_NS))
		return;
	if (!mcg_oom_warn_eval(prev, cur, dt, w->version, swap_free(w->ctx), &wn))
		return;
	if (mcg_grow(&w->wq, &w->capwq, w->nwq, sizeof(*w->wq), 4) < 0)
		return;
	wn.time_ns = boot_ns() + c->rec_ns[c->cur];
	snprintf(wn.cgroup, sizeof(wn.cgroup), "%s", c->path);
	if (mcg_unit_from_path(c->path, wn.unit, sizeof(wn.unit)) <= 0)
		wn.unit[0] = '\0';
	w->wq[w->nwq++] = wn;
	w->st.warnings++;
	c->episode = true;
	c->warn_ns = now;
}

static int add_cgroup(struct mcg_oom_watch *w, const char *path, int depth)
{
	struct mcg_group *g;
	struct wcg *c;
	char link[64];
	int dfd, cfd, r;
	struct epoll_event ee = {.events = EPOLLIN};

	if (find_path(w, path))
		return 0;
	if (mcg_grow(&w->cg, &w->capcg, w->ncg, sizeof(*w->cg), 64) < 0)
		return -ENOMEM;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->wd = c->wd_ev = c->efd = c->efd_thr = c->wd_lim = -1;
	c->path = strdup(path);
	if (!c->path) {
		free(c);
		return -ENOMEM;
	}
	c->hash = path_hash(path);
	r = mcg_group_open(w->ctx, path, &g);
	if (r < 0) {
		free(c->path);
		free(c);
		return r;
	}
	c->root = mcg_group_is_root(g);
	dfd = mcg_group_dirfd(g);
	/* through the descriptor's /proc link (followed: it names the directory opened) */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	c->wd = inotify_add_watch(w->ifd, link, IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR);
	if (w->version == 2) {
		cfd = openat(dfd, "memory.events.local", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (cfd >= 0) {
			snprintf(link, sizeof(link), "/proc/self/fd/%d", cfd);
			c->wd_ev = inotify_add_watch(w->ifd, link, IN_MODIFY);
			close(cfd);
		}
	} else if (!c->root) {
		/* the root has no memory.oom_control events to register */
		c->efd = v1_event_register(dfd, "memory.oom_control", NULL);
		if (c->efd < 0) {
			reg_failed(w, c, "memory.oom_control", c->efd);
			c->efd = -1;
		} else {
			ee.data.u64 = (uint64_t)TAG_EVENTFD << 32 | (uint64_t)w->ncg;
			if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->efd, &ee) < 0) {
				close(c->efd);
				c->efd = -1;
			}
		}
	}
	if (w->version == 1 && !c->root) {
		cfd = openat(dfd, "memory.limit_in_bytes", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (cfd >= 0) {
			snprintf(link, sizeof(link), "/proc/self/fd/%d", cfd);
			c->wd_lim = inotify_add_watch(w->ifd, link, IN_MODIFY);
			close(cfd);
		}
	}
	mcg_group_close(g);
	read_counts(w, c, &c->oom, &c->oom_kill, &c->max);
	/*
	 * One made while watching started at zero: a kill counted at this first
	 * read is one to tell (made and filled at once, it may be killed before
	 * its OOM notification was registered).
	 */
	if (w->started) {
		c->oom = c->oom_kill = c->max = 0;
		c->added_ns = mono_ns();
	}
	/*
	 * The kernel waits for an RCU grace period in each registration (16 ms
	 * here): a thousand at once would hold the first sample back 16 s, so
	 * mcg_oom_watch_process sets them a few at a time.
	 */
	c->thr_pending = w->version == 1 && !c->root;
	if (hash_add(w, c) < 0) {
		wcg_free(w, c);
		return -ENOMEM;
	}
	c->idx = w->ncg;
	w->cg[w->ncg++] = c;
	/*
	 * A cgroup made while watching gets a first record: one made and filled
	 * at once may be killed before its OOM notification is read (then this
	 * is the last record before the kill, its age said). Not at start: a
	 * thousand reads would hold the recorder's first sample back.
	 */
	if (w->started)
		read_record(w, c);
	if (depth < MCG_WALK_MAX_DEPTH)
		add_tree(w, path, depth + 1);
	return 0;
}

/* The children of PATH, recursively (a subtree made before its parent's watch saw it). */
static int add_tree(struct mcg_oom_watch *w, const char *path, int depth)
{
	struct wcg *c = find_path(w, path);
	struct mcg_group *g;
	struct dirent *de;
	DIR *d;
	int fd;

	if (!c || mcg_group_open(w->ctx, path, &g) < 0)
		return -ENOENT;
	fd = openat(mcg_group_dirfd(g), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mcg_group_close(g);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char *child;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (asprintf(&child, "%s/%s", strcmp(path, "/") ? path : "", de->d_name) < 0)
			break;
		if (strlen(child) < MCG_PATH_MAX)
			add_cgroup(w, child, depth);
		free(child);
	}
	closedir(d);
	return 0;
}

int mcg_oom_watch_new(struct mcg_ctx *ctx, const char *path, unsigned flags,
		      struct mcg_oom_watch **ret)
{
	struct mcg_oom_watch *w = calloc(1, sizeof(*w));
	struct epoll_event ee = {.events = EPOLLIN};
	struct mcg_group *g = NULL;
	int r;

	if (!w)
		return -ENOMEM;
	w->ctx = ctx;
	w->version = mcg_ctx_version(ctx);
	w->flags = flags;
	w->kfd = w->ifd = -1;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		r = -errno;
		goto fail;
	}
	r = mcg_oom_parser_new(&w->parser);
	if (r < 0)
		goto fail;
	r = mcg_group_open(ctx, path ? path : "/", &g);
	if (r < 0)
		goto fail;
	w->top = strdup(mcg_group_path(g));
	mcg_group_close(g);
	if (!w->top) {
		r = -ENOMEM;
		goto fail;
	}
	w->kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->kfd < 0) {
		r = -errno;
		goto fail;
	}
	if (!(flags & MCG_OOM_WATCH_FROM_START) && lseek(w->kfd, 0, SEEK_END) < 0) {
		r = -errno;
		goto fail;
	}
	w->kmsg_live = !(flags & MCG_OOM_WATCH_FROM_START);
	ee.data.u64 = (uint64_t)TAG_KMSG << 32;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->kfd, &ee) < 0) {
		r = -errno;
		goto fail;
	}
	if (!(flags & MCG_OOM_WATCH_NO_CGROUPS)) {
		w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (w->ifd < 0) {
			r = -errno;
			goto fail;
		}
		ee.data.u64 = (uint64_t)TAG_INOTIFY << 32;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->ifd, &ee) < 0) {
			r = -errno;
			goto fail;
		}
		r = add_cgroup(w, w->top, 0);
		if (r < 0)
			goto fail;
	}
	w->started = true;
	*ret = w;
	return 0;
fail:
	mcg_oom_watch_free(w);
	return r;
}

void mcg_oom_watch_free(struct mcg_oom_watch *w)
{
	size_t i;

	if (!w)
		return;
	reg_stop(w);
	for (i = 0; i < w->ncg; i++)
		wcg_free(w, w->cg[i]);
	free(w->cg);
	free(w->hb);
	free(w->q);
	free(w->wq);
	mcg_oom_parser_free(w->parser);
	if (w->kfd >= 0)
		close(w->kfd);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->epfd >= 0)
		close(w->epfd);
	free(w->top);
	free(w);
}

int mcg_oom_watch_fd(const struct mcg_oom_watch *w)
{
	return w->epfd;
}

int mcg_oom_watch_resume(struct mcg_oom_watch *w, uint64_t seq)
{
	struct epoll_event ee = {.events = EPOLLIN};

	if (lseek(w->kfd, 0, SEEK_SET) < 0)
		return -errno;
	w->skip_seq = seq;
	w->kmsg_live = false;
	/* a seek wakes nobody: modifying the watch has epoll look at it again */
	ee.data.u64 = (uint64_t)TAG_KMSG << 32;
	if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, w->kfd, &ee) < 0)
		return -errno;
	return 0;
}

int mcg_oom_boot_id(char *buf, size_t len)
{
	char b[64];
	ssize_t n;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n < 36 || len < 37)
		return -EINVAL;
	memcpy(buf, b, 36);
	buf[36] = '\0';
	return 0;
}

void mcg_oom_watch_stats(const struct mcg_oom_watch *w, struct mcg_oom_watch_stats *ret)
{
	size_t i, n = 0, u = 0;

	*ret = w->st;
	for (i = 0; i < w->ncg; i++) {
		n += !w->cg[i]->gone_ns;
		u += w->version == 1 && !w->cg[i]->gone_ns && !w->cg[i]->root && w->cg[i]->efd < 0;
	}
	ret->cgroups = n;
	ret->unregistered = u;
}

static void mark_gone(struct mcg_oom_watch *w, struct wcg *c, uint64_t now)
{
	if (c->gone_ns)
		return;
	c->gone_ns = now;
	hash_del(w, c);
	if (c->efd >= 0)
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->efd, NULL);
	wcg_close(w, c);
}

static size_t idx_of(const struct mcg_oom_watch *w, const struct wcg *c)
{
	return c->idx < w->ncg && w->cg[c->idx] == c ? c->idx : 0;
}

/* C's last record had its usage at its limit. */
static bool was_at_limit(const struct wcg *c)
{
	const struct mcg_record *r = &c->rec[c->cur];
	uint64_t limit;

	if (!c->rec_ns[c->cur])
		return false;
	limit = mcg_record_get(r, MCG_K_LIMIT, MCG_MAX);
	return limit < LIMIT_NONE &&
	       mcg_record_get(r, MCG_K_USAGE, 0) + mcg_oom_warn_margin(limit) >= limit;
}

/*
 * The counters of C moved (SIGNALS: the eventfd's count, v1; 1 for v2): an
 * OOM starting is the moment to read the record (before the kill).
 */
static void on_counts(struct mcg_oom_watch *w, struct wcg *c, uint64_t now, uint64_t signals)
{
	uint64_t oom, kill, max;

	if (read_counts(w, c, &oom, &kill, &max) < 0) {
		/*
		 * v1 signals a removal too: gone with more than one signal, or
		 * last read at its limit, it was an OOM (killed, then removed
		 * before this read): the kill's line may name no cgroup.
		 */
		if (w->version == 1 && (signals > 1 || was_at_limit(c))) {
			c->notify_ns = now;
			w->expect_ns = now;
		}
		if (!c->root)
			mark_gone(w, c, now);
		return;
	}
	if (w->version == 1 || oom > c->oom)
		c->notify_ns = now;
	/* a kill is coming (or came): its line is read without waiting for the log's wakeup */
	if (w->version == 1 || oom > c->oom || kill > c->oom_kill)
		w->expect_ns = now;
	/*
	 * A read after the kill holds the state after it (the victim's memory
	 * freed): only max and oom rising with no new kill give a pre-kill record.
	 */
	if (kill == c->oom_kill && (w->version == 1 || oom > c->oom || max > c->max)) {
		read_record(w, c);
		check(w, c, idx_of(w, c), now, false);
	} else if (w->version == 2 && kill == c->oom_kill &&
		   now - c->rec_ns[c->cur] >= WARN_TICK_NS) {
		/* high rising (or low): the warning's signal too; read at most every 100 ms */
		check(w, c, idx_of(w, c), now, true);
	}
	c->oom = oom;
	c->max = max;
	/* oom_kill is left for attribution: the kill's own line moves it */
}

static void on_inotify(struct mcg_oom_watch *w, uint64_t now)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(w->ifd, buf, sizeof(buf))) > 0) {
		char *p;

		for (p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			size_t i;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				/* events lost: the tree again from the top */
				add_tree(w, w->top, 1);
				continue;
			}
			for (i = 0; i < w->ncg; i++) {
				struct wcg *c = w->cg[i];

				if (c->gone_ns)
					continue;
				if (c->wd_ev == ev->wd && (ev->mask & IN_MODIFY)) {
					on_counts(w, c, now, 1);
					break;
				}
				if (c->wd_lim == ev->wd && (ev->mask & IN_MODIFY)) {
					/* set by the next wakeup without a kill (an RCU grace period) */
					c->thr_pending = true;
					break;
				}
				if (c->wd != ev->wd)
					continue;
				if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR) && ev->len) {
					char *child;

					if (asprintf(&child, "%s/%s", strcmp(c->path, "/") ? c->path : "",
						     ev->name) >= 0) {
						add_cgroup(w, child, 1);
						free(child);
					}
				} else if (ev->mask & (IN_DELETE_SELF | IN_IGNORED)) {
					mark_gone(w, c, now);
				}
				break;
			}
		}
	}
}

static bool ancestor_or_self(const char *a, const char *b)
{
	size_t al = strlen(a);

	if (!strcmp(a, "/"))
		return b[0] == '/';
	return !strncmp(a, b, al) && (b[al] == '\0' || b[al] == '/');
}

static int depth_of(const char *p)
{
	int d = 0;

	if (!strcmp(p, "/"))
		return 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

static uint64_t kmsg_to_mono(const struct mcg_oom_watch *w, uint64_t usec);

/* Which watched cgroups this kill belongs to, when the kernel's summary did not say. */
static void attribute(struct mcg_oom_watch *w, struct mcg_oom_kill *k, uint64_t now)
{
	struct wcg *victim = NULL, *oom = NULL, *notified[NOTIFIED_MAX];
	/* the kill on CLOCK_MONOTONIC: a cgroup seen removed before it was not its OOM cgroup */
	uint64_t kill_ns = kmsg_to_mono(w, k->usec);
	bool victim_oom = false; /* v2: the victim's own local oom count rose with its kill */
	uint64_t victim_o = 0;
	size_t nn = 0;
	char path[MCG_OOM_PATH_MAX];
	size_t i;

	/*
	 * An exiting task is moved to the root: "/" is no answer for a memcg
	 * OOM (its victim is below the OOM cgroup, never the root).
	 */
	if (!k->task_memcg[0] && k->pid > 0 &&
	    mcg_pid_cgroup(w->ctx, (pid_t)k->pid, path, sizeof(path)) == 0 &&
	    (strcmp(path, "/") || k->scope == MCG_OOM_SCOPE_GLOBAL))
		snprintf(k->task_memcg, sizeof(k->task_memcg), "%s", path);
	/*
	 * The kill moved the victim's local oom_kill counter; the victim is below
	 * a cgroup notified of the OOM: only those subtrees are read (a thousand
	 * cgroups' files for every kill would cost more than the kill).
	 */
	for (i = 0; i < w->ncg && nn < NOTIFIED_MAX; i++)
		if (w->cg[i]->notify_ns && now - w->cg[i]->notify_ns <= NOTIFY_WINDOW_NS)
			notified[nn++] = w->cg[i];
	for (i = 0; i < w->ncg; i++) {
		struct wcg *c = w->cg[i];
		uint64_t o, kl, m;
		size_t j;
		bool near = false;

		/* and the cgroups made lately: one killed before its notification was registered */
		near = c->added_ns && now - c->added_ns <= NOTIFY_WINDOW_NS;
		for (j = 0; j < nn && !near; j++)
			near = ancestor_or_self(notified[j]->path, c->path);
		if (!near || c->gone_ns || read_counts(w, c, &o, &kl, &m) < 0)
			continue;
		if (kl > c->oom_kill) {
			if (!victim || depth_of(c->path) > depth_of(victim->path)) {
				victim = c;
				victim_oom = w->version == 2 && o > c->oom;
				victim_o = o;
			}
			c->oom_kill = kl;
		}
	}
	if (!k->task_memcg[0] && victim)
		snprintf(k->task_memcg, sizeof(k->task_memcg), "%s", victim->path);
	if (k->oom_memcg[0] || k->scope == MCG_OOM_SCOPE_GLOBAL)
		return;
	if (victim_oom) {
		/*
		 * v2: the victim's memory.events.local oom rose with its kill:
		 * the OOM was at its own limit, whatever notification is read
		 * or not yet; the count is taken, so that its notification,
		 * read later, is no other kill's
		 */
		snprintf(k->oom_memcg, sizeof(k->oom_memcg), "%s", victim->path);
		victim->notify_ns = 0;
		victim->oom = victim_o;
		return;
	}
	/*
	 * The OOM cgroup: v1 notifies it and its descendants, so the shallowest
	 * recently notified ancestor of the victim; v2's local oom counts only it.
	 */
	for (i = 0; i < w->ncg; i++) {
		struct wcg *c = w->cg[i];

		if (!c->notify_ns || now - c->notify_ns > NOTIFY_WINDOW_NS)
			continue;
		/*
		 * Removed before the kill (its removal seen before the kill's
		 * time, the clocks' slack taken): a late notification of an
		 * OOM that was killed already (v2 counts oom again for charges
		 * the dying victim still tries), not this kill's.
		 */
		if (c->gone_ns && c->gone_ns + CLOCK_SLACK_NS < kill_ns)
			continue;
		if (k->task_memcg[0] && !ancestor_or_self(c->path, k->task_memcg))
			continue;
		if (!oom || depth_of(c->path) < depth_of(oom->path) ||
		    (depth_of(c->path) == depth_of(oom->path) && c->notify_ns > oom->notify_ns))
			oom = c;
	}
	if (oom) {
		snprintf(k->oom_memcg, sizeof(k->oom_memcg), "%s", oom->path);
		oom->notify_ns = 0; /* one notification, one kill (an oom.group's come together) */
	} else if (victim && victim->rec_ns[victim->cur] &&
		   mcg_record_get(&victim->rec[victim->cur], MCG_K_LIMIT, MCG_MAX) < LIMIT_NONE) {
		/* no notification came (not registered yet): the victim's own limit, its only one read */
		snprintf(k->oom_memcg, sizeof(k->oom_memcg), "%s", victim->path);
	}
	/*
	 * The victim is in the OOM cgroup's subtree: when that has no cgroup
	 * below it, the victim was in it (its counters may be gone with it: a
	 * short-lived cgroup removed the moment its task died).
	 */
	if (!k->task_memcg[0] && oom) {
		bool leaf = true;

		for (i = 0; i < w->ncg && leaf; i++)
			if (w->cg[i] != oom && ancestor_or_self(oom->path, w->cg[i]->path))
				leaf = false;
		if (leaf)
			snprintf(k->task_memcg, sizeof(k->task_memcg), "%s", oom->path);
	}
}

/* The watched cgroup PATH, live or removed lately. */
static struct wcg *find_any(struct mcg_oom_watch *w, const char *path)
{
	struct wcg *best = NULL;
	size_t i;

	for (i = 0; i < w->ncg; i++)
		if (!strcmp(w->cg[i]->path, path) && (!best || !w->cg[i]->gone_ns ||
						      w->cg[i]->gone_ns > best->gone_ns))
			best = w->cg[i];
	return best;
}

static int on_kill(struct mcg_oom_watch *w, struct mcg_oom_kill *k, uint64_t now)
{
	const struct mcg_record *rec = NULL;
	/* the kill on CLOCK_MONOTONIC, the reads' clock */
	uint64_t kill_ns = kmsg_to_mono(w, k->usec), age = 0;
	struct mcg_oom_autopsy *a;
	struct wcg *c;

	if (!(w->flags & MCG_OOM_WATCH_NO_CGROUPS)) {
		/* cgroups made since the last wakeup: the victim's may be one */
		on_inotify(w, now);
		attribute(w, k, now);
	}
	/* outside the watched subtree: not ours to tell (a global OOM is everyone's) */
	if (k->scope != MCG_OOM_SCOPE_GLOBAL && strcmp(w->top, "/") &&
	    !(k->oom_memcg[0] && ancestor_or_self(w->top, k->oom_memcg)) &&
	    !(k->task_memcg[0] && ancestor_or_self(w->top, k->task_memcg)))
		return 0;
	c = k->oom_memcg[0] ? find_any(w, k->oom_memcg) : NULL;
	if (c) {
		/* the latest read before the kill; the kernel's clock is CLOCK_MONOTONIC's */
		int i = c->cur;

		if (c->rec_ns[i] && c->rec_ns[i] > kill_ns && c->rec_ns[!i] &&
		    c->rec_ns[!i] <= kill_ns)
			i = !i;
		/* a record read after the kill (a kill read late, at a restart) is not its breakdown */
		if (c->rec_ns[i] && c->rec_ns[i] <= kill_ns + CLOCK_SLACK_NS) {
			rec = &c->rec[i];
			age = kill_ns > c->rec_ns[i] ? (kill_ns - c->rec_ns[i]) / 1000 : 0;
		}
	}
	if (mcg_grow(&w->q, &w->capq, w->nq, sizeof(*w->q), 8) < 0)
		return -ENOMEM;
	a = &w->q[w->nq++];
	/* its time from the kill's CLOCK_MONOTONIC: the log's clock mapped by the offset */
	mcg_oom_autopsy_build(k, w->version, rec, age, boot_ns() + (kill_ns - k->usec * 1000ULL), a);
	if (c)
		c->episode = false; /* the kill freed memory: a next approach is a new episode */
	if (c && c->npt)
		mcg_oom_autopsy_growth(a, w->version, c->pt, c->npt,
				       a->breakdown == MCG_OOM_BD_KERNEL ? kill_ns
									 : kill_ns + CLOCK_SLACK_NS);
	w->st.kills++;
	return 1;
}

/*
 * A record stamped USEC (the log's clock) read at NOW (CLOCK_MONOTONIC): it
 * was printed no later than NOW, so NOW - USEC bounds the offset from above;
 * a record read at once (after an OOM notification) makes the bound tight.
 */
static void clock_observe(struct mcg_oom_watch *w, uint64_t now, uint64_t usec)
{
	int64_t o = (int64_t)now - (int64_t)(usec * 1000ULL);

	if (!w->clk_win_ns)
		w->clk_win_ns = now;
	if (now - w->clk_win_ns > CLOCK_WINDOW_NS) {
		/* an old bound may be too small for a clock that drifted since: windows */
		w->clk_prev = w->clk_cur;
		w->clk_have_prev = w->clk_have_cur;
		w->clk_have_cur = false;
		w->clk_win_ns = now;
	}
	if (!w->clk_have_cur || o < w->clk_cur) {
		w->clk_cur = o;
		w->clk_have_cur = true;
	}
}

/* The log's clock to CLOCK_MONOTONIC (ns): the offset's estimate added; none yet: as it is. */
static uint64_t kmsg_to_mono(const struct mcg_oom_watch *w, uint64_t usec)
{
	int64_t o = 0;

	if (w->clk_have_cur && w->clk_have_prev)
		o = w->clk_cur < w->clk_prev ? w->clk_cur : w->clk_prev;
	else if (w->clk_have_cur)
		o = w->clk_cur;
	else if (w->clk_have_prev)
		o = w->clk_prev;
	return (uint64_t)((int64_t)(usec * 1000ULL) + o);
}

static int on_kmsg(struct mcg_oom_watch *w, uint64_t now)
{
	int got = 0;

	for (;;) {
		ssize_t n = read(w->kfd, w->buf, sizeof(w->buf) - 1);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/* records overwritten before we read them: the next one is read next */
				w->st.lost_records++;
				continue;
			}
			if (errno == EAGAIN) {
				w->kmsg_live = true;
				break;
			}
			return -errno;
		}
		if (n == 0)
			break;
		w->st.kmsg_records++;
		{
			struct mcg_kmsg m;
			char t[2];

			if (mcg_kmsg_parse(w->buf, (size_t)n, &m, t, sizeof(t)) == 0) {
				/* a backlog (a restart's, from the start) tells nothing of the clocks */
				if (w->kmsg_live)
					clock_observe(w, mono_ns(), m.usec);
				if (w->skip_seq && m.seq <= w->skip_seq)
					continue;
			}
		}
		r = mcg_oom_parser_record(w->parser, w->buf, (size_t)n);
		if (r == 1 && mcg_oom_parser_take(w->parser, &w->kill) == 0) {
			r = on_kill(w, &w->kill, now);
			if (r < 0)
				return r;
			got += r;
		}
	}
	return got;
}

static void reap_gone(struct mcg_oom_watch *w, uint64_t now)
{
	size_t i, j = 0;

	for (i = 0; i < w->ncg; i++) {
		struct wcg *c = w->cg[i];

		if (c->gone_ns && now - c->gone_ns > GONE_KEEP_NS) {
			wcg_free(w, c);
			continue;
		}
		w->cg[j++] = c;
	}
	if (j != w->ncg) {
		/* the eventfds carry indexes: renumber them */
		w->ncg = j;
		for (i = 0; i < w->ncg; i++) {
			struct epoll_event ee = {.events = EPOLLIN};

			w->cg[i]->idx = i;
			if (w->cg[i]->efd >= 0) {
				ee.data.u64 = (uint64_t)TAG_EVENTFD << 32 | (uint64_t)i;
				epoll_ctl(w->epfd, EPOLL_CTL_MOD, w->cg[i]->efd, &ee);
			}
			if (w->cg[i]->efd_thr >= 0) {
				ee.data.u64 = (uint64_t)TAG_THRESH << 32 | (uint64_t)i;
				epoll_ctl(w->epfd, EPOLL_CTL_MOD, w->cg[i]->efd_thr, &ee);
			}
		}
	}
}

int mcg_oom_watch_process(struct mcg_oom_watch *w)
{
	struct epoll_event ev[64];
	bool kmsg = false, inotify = false;
	uint64_t now;
	int n, i, r, th;

	n = epoll_wait(w->epfd, ev, 64, 0);
	if (n < 0)
		return errno == EINTR ? (int)(w->nq - w->headq) : -errno;
	w->st.wakeups++;
	now = mono_ns();
	/*
	 * The cgroups first, the OOM notifications and the usage thresholds:
	 * their records are read before the kill's line is handled; the new
	 * cgroups (inotify) after it (a kill's handling reads them too).
	 */
	for (i = 0; i < n; i++) {
		uint32_t tag = (uint32_t)(ev[i].data.u64 >> 32);
		size_t idx = (size_t)(ev[i].data.u64 & 0xffffffffu);

		if (tag == TAG_KMSG) {
			kmsg = true;
		} else if (tag == TAG_INOTIFY) {
			inotify = true;
		} else if (tag == TAG_THRESH && idx < w->ncg && w->cg[idx]->efd_thr >= 0) {
			uint64_t v;

			if (read(w->cg[idx]->efd_thr, &v, sizeof(v)) == sizeof(v))
				check(w, w->cg[idx], idx, now, true);
		} else if (tag == TAG_EVENTFD && idx < w->ncg && w->cg[idx]->efd >= 0) {
			uint64_t v;

			if (read(w->cg[idx]->efd, &v, sizeof(v)) == sizeof(v))
				on_counts(w, w->cg[idx], now, v);
		}
	}
	/*
	 * The kernel log before anything that waits: a kill notified is read at
	 * once (its line is there before the log wakes us, see EXPECT_NS).
	 */
	if (kmsg || w->expect_ns) {
		r = on_kmsg(w, now);
		if (r < 0)
			return r;
		if (r > 0 || now - w->expect_ns > EXPECT_NS)
			w->expect_ns = 0;
	}
	if (inotify)
		on_inotify(w, now);
	reg_check(w);
	/* cgroups at their limit: read again when due (v1 tells no failed charge) */
	for (i = 0, th = 0; i < (int)w->ncg; i++) {
		struct wcg *c = w->cg[i];

		/* thresholds wait for an RCU grace period each: never before a kill is handed on */
		if (c->thr_pending && !c->gone_ns && th < THR_BATCH && w->nq == w->headq &&
		    !w->expect_ns) {
			set_threshold(w, c, (size_t)i);
			th++;
		}
		if (c->armed && !c->gone_ns && now - c->rec_ns[c->cur] >= c->tick_ns)
			check(w, c, (size_t)i, now, true);
	}
	reap_gone(w, now);
	return (int)(w->nq - w->headq);
}

int mcg_oom_watch_next(struct mcg_oom_watch *w, struct mcg_oom_autopsy *ret)
{
	if (w->headq >= w->nq)
		return -ENOENT;
	*ret = w->q[w->headq++];
	if (w->headq == w->nq)
		w->headq = w->nq = 0;
	return 0;
}

int mcg_oom_watch_next_warning(struct mcg_oom_watch *w, struct mcg_oom_warning *ret)
{
	if (w->headwq >= w->nwq)
		return -ENOENT;
	*ret = w->wq[w->headwq++];
	if (w->headwq == w->nwq)
		w->headwq = w->nwq = 0;
	return 0;
}

int mcg_oom_watch_timeout(const struct mcg_oom_watch *w)
{
	uint64_t now = mono_ns(), due = UINT64_MAX;
	size_t i;

	if (w->expect_ns)
		return EXPECT_TICK_MS; /* a kill notified: its line is looked for */
	for (i = 0; i < w->ncg; i++) {
		const struct wcg *c = w->cg[i];
		uint64_t d;

		if (c->thr_pending && !c->gone_ns)
			return 0; /* thresholds still to set: a few each call */
		if (!c->armed || c->gone_ns)
			continue;
		d = c->rec_ns[c->cur] + (c->tick_ns ? c->tick_ns : WARN_TICK_NS);
		if (d < due)
			due = d;
	}
	if (due == UINT64_MAX)
		return -1;
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

void mcg_oom_watch_feed(struct mcg_oom_watch *w, const struct mcg_snapshot *snap)
{
	uint64_t t = mono_ns();
	size_t i;

	if (!w || !snap || !w->ncg)
		return;
	/*
	 * The rows are looked up among the live watched cgroups in the index by
	 * path (find_path): the walk's order is not the watcher's (a linear
	 * search from a hint was 17.8 M instructions a sample at 1,000 cgroups,
	 * callgrind, most of record's sample).
	 */
	for (i = 0; i < snap->n_rows; i++) {
		const struct mcg_sample_row *r = &snap->rows[i];
		struct wcg *c;

		if (!mcg_sample_has(r, MCG_K_USAGE) || !(c = find_path(w, r->path)))
			continue;
		push_point(c, t, mcg_sample_get(r, MCG_K_USAGE, 0));
		/* a limit changed while no inotify event was seen (a queue overflow) */
		if (w->version == 1 && !c->thr_pending && mcg_sample_has(r, MCG_K_LIMIT) &&
		    mcg_sample_get(r, MCG_K_LIMIT, 0) < LIMIT_NONE &&
		    mcg_sample_get(r, MCG_K_LIMIT, 0) != c->thr_lim)
			c->thr_pending = true;
	}
}
