/* sizing.c: 'size': the probe's controller (pure) and its run against the kernel (reclaimer steps, pressure, refaults, delays). */
#include "ops/ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *mcg_size_signal_name(enum mcg_size_signal s)
{
	switch (s) {
	case MCG_SIZE_SIG_PSI:
		return "psi";
	case MCG_SIZE_SIG_DELAYS:
		return "delays";
	case MCG_SIZE_SIG_REFAULTS:
		return "refaults";
	}
	return "?";
}

const char *mcg_size_stop_name(enum mcg_size_stop s)
{
	switch (s) {
	case MCG_SIZE_RUNNING:
		return "running";
	case MCG_SIZE_CONVERGED:
		return "converged";
	case MCG_SIZE_FLOOR:
		return "floor";
	case MCG_SIZE_EVENTS:
		return "events";
	case MCG_SIZE_TIMEOUT:
		return "timeout";
	case MCG_SIZE_INTERRUPTED:
		return "interrupted";
	case MCG_SIZE_CONFLICT:
		return "conflict";
	}
	return "?";
}

/* ---- the controller ---------------------------------------------------- */

/*
 * The margin above the unreclaimable floor: what a workload may charge while a
 * v1 limit stands lowered inside one step, where nothing reclaimable would mean
 * the memcg OOM killer (KERNEL.md). 8 MiB is 2048 pages: more than a step of the
 * smallest workloads in the tests, and 5% covers a heap growing during a second.
 */
#define SIZE_MARGIN_MIN (8ULL << 20)
#define SIZE_MARGIN_FRAC 0.05
/* A back-off holds this many ticks: refaults of a step show up one tick late. */
#define SIZE_HOLD_TICKS 2
/* Refaults only: what was taken and what came back decay by half per tick. */
#define SIZE_WINDOW_DECAY 0.5

void mcg_size_params_init(struct mcg_size_params *p, uint64_t page)
{
	memset(p, 0, sizeof(*p));
	p->target = MCG_SIZE_DEFAULT_TARGET;
	p->refault_target = MCG_SIZE_DEFAULT_REFAULT_TARGET;
	p->page = page ? page : 4096;
	p->step_start = 0.01;
	p->step_max = 0.08;
	p->step_min = 0.0025;
	p->step_min_bytes = 256 * p->page;
	p->warmup = 2;
	p->band_n = MCG_SIZE_BAND_N;
	p->band_frac = MCG_SIZE_BAND_FRAC;
}

void mcg_size_ctl_init(struct mcg_size_ctl *c, const struct mcg_size_params *p,
		       enum mcg_size_signal sig)
{
	memset(c, 0, sizeof(*c));
	c->p = *p;
	if (c->p.band_n == 0)
		c->p.band_n = 1;
	if (c->p.band_n > MCG_SIZE_HISTORY)
		c->p.band_n = MCG_SIZE_HISTORY;
	if (c->p.page == 0)
		c->p.page = 4096;
	c->sig = sig;
	c->step = c->p.step_start;
}

static uint64_t margin(const struct mcg_size_ctl *c, uint64_t usage)
{
	uint64_t m;

	if (c->p.margin)
		return c->p.margin;
	m = (uint64_t)((double)usage * SIZE_MARGIN_FRAC);
	return m > SIZE_MARGIN_MIN ? m : SIZE_MARGIN_MIN;
}

/* Where probing stops: the unreclaimable floor plus the margin, or the user's floor. */
static uint64_t probe_floor(const struct mcg_size_ctl *c)
{
	uint64_t f = c->floor + margin(c, c->usage);

	return f > c->p.floor ? f : c->p.floor;
}

/* The band over the last band_n adjustments; false without any. */
static bool band(const struct mcg_size_ctl *c, uint64_t *lo, uint64_t *hi, unsigned *n)
{
	size_t k = c->n_adj < c->p.band_n ? c->n_adj : c->p.band_n, i;

	if (!k)
		return false;
	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < k; i++) {
		const struct mcg_size_adj *a = &c->adj[(c->n_adj - 1 - i) % MCG_SIZE_HISTORY];

		if (a->level < *lo)
			*lo = a->level;
		if (a->level > *hi)
			*hi = a->level;
	}
	*n = (unsigned)k;
	return true;
}

static double cost_of(struct mcg_size_ctl *c, const struct mcg_size_obs *o)
{
	if (c->sig != MCG_SIZE_SIG_REFAULTS) {
		c->cost_raw = o->stall_valid && o->dt_ns ? (double)o->stall_ns / (double)o->dt_ns : 0;
		return c->p.target > 0 ? c->cost_raw / c->p.target : 0;
	}
	/*
	 * Refaults: the share of what the probe took lately that came back. A
	 * page of cold data never comes back; a page of the working set comes
	 * back within the workload's cycle. The denominator is at least one
	 * smallest step, so that refaults with nothing taken still count.
	 */
	c->win_reclaimed = (uint64_t)((double)c->win_reclaimed * SIZE_WINDOW_DECAY) + o->reclaimed;
	c->win_refault = (uint64_t)((double)c->win_refault * SIZE_WINDOW_DECAY) +
			 (o->refault_valid ? o->refault_bytes : 0);
	c->cost_raw = (double)c->win_refault /
		      (double)(c->win_reclaimed > c->p.step_min_bytes ? c->win_reclaimed
								       : c->p.step_min_bytes);
	return c->p.refault_target > 0 ? c->cost_raw / c->p.refault_target : 0;
}

static void shift_pre(struct mcg_size_ctl *c, uint64_t v)
{
	c->pre_step[1] = c->pre_step[0];
	c->pre_step[0] = v;
}

uint64_t mcg_size_ctl_tick(struct mcg_size_ctl *c, const struct mcg_size_obs *o)
{
	uint64_t lo, hi, lim, ask, page = c->p.page;
	unsigned n;
	double cost;

	if (c->stop != MCG_SIZE_RUNNING)
		return 0;
	if (c->ticks++ == 0) {
		c->usage_start = c->usage_min = o->usage;
		c->file_start = o->file;
		c->anon_start = o->anon;
	}
	c->usage = o->usage;
	c->file = o->file;
	c->anon = o->anon;
	c->floor = o->floor;
	if (o->usage < c->usage_min)
		c->usage_min = o->usage;
	c->ev_max += o->ev_max;
	c->ev_high += o->ev_high;
	c->ev_oom_kill += o->ev_oom_kill;
	cost = cost_of(c, o);
	c->cost = cost;
	/* The cgroup at its own limit, or an OOM kill: no step may make it worse. */
	if (o->ev_max || o->ev_high || o->ev_oom_kill) {
		c->stop = MCG_SIZE_EVENTS;
		return 0;
	}
	if (c->ticks <= c->p.warmup) {
		c->base_ns += o->dt_ns;
		c->base_stall_ns += o->stall_valid ? o->stall_ns : 0;
		c->base_refault += o->refault_valid ? o->refault_bytes : 0;
		return 0;
	}
	c->probe_ns += o->dt_ns;
	c->probe_stall_ns += o->stall_valid ? o->stall_ns : 0;
	c->probe_refault += o->refault_valid ? o->refault_bytes : 0;
	c->reclaimed += o->reclaimed;

	if (cost > 1.0) {
		uint64_t level = c->pre_step[0] > c->pre_step[1] ? c->pre_step[0] : c->pre_step[1];

		/* a new back-off after a step of ours: the workload missed what it took */
		if (c->hold == 0 && level) {
			struct mcg_size_adj *a = &c->adj[c->n_adj % MCG_SIZE_HISTORY];

			a->level = level;
			a->usage = o->usage;
			a->cost = c->cost_raw;
			c->n_adj++;
			c->backoffs++;
		}
		c->step /= 2;
		if (c->step < c->p.step_min)
			c->step = c->p.step_min;
		c->hold = SIZE_HOLD_TICKS;
		c->quiet = 0;
		shift_pre(c, 0);
		return 0;
	}
	if (band(c, &lo, &hi, &n) && n >= c->p.band_n &&
	    (double)(hi - lo) <= c->p.band_frac * (double)hi) {
		c->converged = true;
		if (!c->p.watch) {
			c->stop = MCG_SIZE_CONVERGED;
			return 0;
		}
	}
	if (c->hold) {
		c->hold--;
		shift_pre(c, 0);
		return 0;
	}
	c->quiet++;
	/* grow fast while nothing has cost yet (cold memory), carefully after */
	if (c->quiet >= 2) {
		c->step *= c->n_adj ? 1.25 : 2.0;
		if (c->step > c->p.step_max)
			c->step = c->p.step_max;
	}
	lim = probe_floor(c);
	if (o->usage <= lim + c->p.step_min_bytes) {
		if (!c->p.watch || !c->n_adj) {
			c->stop = MCG_SIZE_FLOOR;
			return 0;
		}
		shift_pre(c, 0);
		return 0;
	}
	/* near the target, smaller steps (Senpai: in proportion to the room left) */
	ask = (uint64_t)((double)o->usage * c->step * (1.0 - (cost > 0 ? cost : 0)));
	if (ask < c->p.step_min_bytes)
		ask = c->p.step_min_bytes;
	if (ask > o->usage - lim)
		ask = o->usage - lim;
	ask = ask / page * page;
	if (!ask) {
		shift_pre(c, 0);
		return 0;
	}
	shift_pre(c, o->usage);
	c->last_ask = ask;
	c->steps++;
	return ask;
}

void mcg_size_ctl_answer(const struct mcg_size_ctl *c, struct mcg_size_answer *ret)
{
	struct mcg_size_answer a = {0};
	uint64_t lo, hi;
	unsigned n;

	if (band(c, &lo, &hi, &n)) {
		a.needed = hi;
		a.band_lo = lo;
		a.band_hi = hi;
		a.band_n = n;
	} else {
		/*
		 * Nothing cost yet: what is left is an upper bound. At the floor it is
		 * the answer (what reclaim cannot free, and the margin kept above it).
		 */
		a.needed = c->usage;
		a.band_lo = c->floor < c->usage ? c->floor : c->usage;
		a.band_hi = c->usage;
		a.floor_is_answer = c->stop == MCG_SIZE_FLOOR;
	}
	a.cold = mcg__sat_sub(c->usage_start, a.needed);
	/* anon that left went to swap (cold anon); the rest of what is cold is file */
	a.cold_anon = mcg__sat_sub(c->anon_start, c->anon);
	if (a.cold_anon > a.cold)
		a.cold_anon = a.cold;
	a.cold_file = a.cold - a.cold_anon;
	a.split_valid = c->file_start || c->anon_start;
	*ret = a;
}

/* ---- the last answer, kept for show ------------------------------------- */

#define SIZE_STATE_DIR "size"
#define SIZE_STATE_MAGIC "memcgctl-size 1\n"
/* what the writer writes fits in this many bytes (10 numbers of at most 20 digits) */
#define SIZE_STATE_MAX 512
/* the prefix of an answer on its way in (mcg_size_state_write) */
#define SIZE_STATE_NEW ".new-"

static const char *const size_methods[] = {"memory.reclaim", "limit-steps", "memory.high"};

static int state_dir(struct mcg_group *g, bool create, int *ret_fd)
{
	int rfd, r;

	r = mcg__rundir_fd(g->ctx, create, &rfd);
	if (r < 0)
		return r;
	return mcg__trusted_subdir(rfd, SIZE_STATE_DIR, 0755, create, ret_fd);
}

int mcg_size_state_write(struct mcg_group *g, const struct mcg_size_state *s)
{
	char name[256], tmp[256 + sizeof(SIZE_STATE_NEW)], proc[64], buf[SIZE_STATE_MAX];
	int dfd, fd, n, r, tries;

	if (s->stop < MCG_SIZE_RUNNING || s->stop > MCG_SIZE_CONFLICT ||
	    s->sig < MCG_SIZE_SIG_PSI || s->sig > MCG_SIZE_SIG_REFAULTS)
		return -EINVAL;
	n = snprintf(buf, sizeof(buf),
		     SIZE_STATE_MAGIC "needed %llu\ncold %llu\ncold_file %llu\ncold_anon %llu\n"
				      "split %d\ntime_ns %llu\nstop %s\nsignal %s\nmethod %s\n",
		     (unsigned long long)s->needed, (unsigned long long)s->cold,
		     (unsigned long long)s->cold_file, (unsigned long long)s->cold_anon,
		     s->split_valid ? 1 : 0, (unsigned long long)s->time_ns,
		     mcg_size_stop_name(s->stop), mcg_size_signal_name(s->sig), s->method);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	r = state_dir(g, true, &dfd);
	if (r < 0)
		return r;
	mcg__cgroup_file_name(g->ctx->root, g->path, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), SIZE_STATE_NEW "%s", name);
	/*
	 * An unnamed file (O_TMPFILE), written whole, linked under a name of its own
	 * (".new-" and the cgroup's: no cgroup's file name starts with a dot), then
	 * renamed over the old answer. A reader finds the old answer or the new one,
	 * never none (a reclaimd --size watch keeps answers while show and export read
	 * them); a kill leaves the old answer and at most the one ".new-" file, which
	 * the next write for the cgroup takes away. Two writers for one cgroup: the
	 * later link fails with EEXIST and tries again; either whole answer is kept.
	 */
	fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	r = write(fd, buf, (size_t)n) == n ? 0 : -EIO;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; r == 0; tries++) {
		if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT) {
			r = -errno;
			break;
		}
		if (linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		if (errno != EEXIST || tries == 2)
			r = -errno;
	}
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		unlinkat(dfd, tmp, 0);
	}
	close(fd);
	close(dfd);
	return r;
}

/* "KEY VALUE\n" at *POS: VALUE (NUL-terminated in BUF) and *POS past the line. */
static bool state_line(const char **pos, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = *pos, *nl;

	if (strncmp(p, key, kl) || p[kl] != ' ')
		return false;
	p += kl + 1;
	nl = strchr(p, '\n');
	if (!nl || nl == p || (size_t)(nl - p) >= len)
		return false;
	memcpy(buf, p, (size_t)(nl - p));
	buf[nl - p] = '\0';
	*pos = nl + 1;
	return true;
}

/* digits only, no sign, no overflow */
static bool state_u64(const char **pos, const char *key, uint64_t *ret)
{
	char buf[32], *end;
	unsigned long long v;

	if (!state_line(pos, key, buf, sizeof(buf)) || buf[strspn(buf, "0123456789")] != '\0' ||
	    (buf[0] == '0' && buf[1]))
		return false;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

static int state_parse(const char *text, struct mcg_size_state *ret)
{
	struct mcg_size_state s = {0};
	const char *p = text;
	char buf[32];
	uint64_t split;
	int k;
	size_t i;

	if (strncmp(p, SIZE_STATE_MAGIC, strlen(SIZE_STATE_MAGIC)))
		return -EBADMSG;
	p += strlen(SIZE_STATE_MAGIC);
	if (!state_u64(&p, "needed", &s.needed) || !state_u64(&p, "cold", &s.cold) ||
	    !state_u64(&p, "cold_file", &s.cold_file) || !state_u64(&p, "cold_anon", &s.cold_anon) ||
	    !state_u64(&p, "split", &split) || split > 1 || !state_u64(&p, "time_ns", &s.time_ns))
		return -EBADMSG;
	s.split_valid = split;
	if (s.cold_file > s.cold || s.cold_anon != s.cold - s.cold_file)
		return -EBADMSG;
	if (!state_line(&p, "stop", buf, sizeof(buf)))
		return -EBADMSG;
	for (k = MCG_SIZE_RUNNING; k <= MCG_SIZE_CONFLICT; k++)
		if (!strcmp(buf, mcg_size_stop_name((enum mcg_size_stop)k)))
			break;
	if (k > MCG_SIZE_CONFLICT)
		return -EBADMSG;
	s.stop = (enum mcg_size_stop)k;
	if (!state_line(&p, "signal", buf, sizeof(buf)))
		return -EBADMSG;
	for (k = MCG_SIZE_SIG_PSI; k <= MCG_SIZE_SIG_REFAULTS; k++)
		if (!strcmp(buf, mcg_size_signal_name((enum mcg_size_signal)k)))
			break;
	if (k > MCG_SIZE_SIG_REFAULTS)
		return -EBADMSG;
	s.sig = (enum mcg_size_signal)k;
	if (!state_line(&p, "method", s.method, sizeof(s.method)))
		return -EBADMSG;
	for (i = 0; i < MCG_ARRAY_SIZE(size_methods); i++)
		if (!strcmp(s.method, size_methods[i]))
			break;
	if (i == MCG_ARRAY_SIZE(size_methods) || *p)
		return -EBADMSG;
	*ret = s;
	return 0;
}

/* The answer kept in the state directory DFD under NAME (mcg_size_state_read). */
static int state_read_at(int dfd, const char *name, struct mcg_size_state *ret)
{
	char buf[SIZE_STATE_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd;

	/* a cgroup without an answer costs this one failed openat */
	fd = mcg__open_regular(dfd, name, O_RDONLY | O_NOFOLLOW, 0, &st);
	if (fd == -ELOOP)
		return -MCG_E_UNTRUSTED; /* a symlink */
	if (fd < 0)
		return fd;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	n = mcg_fd_pread(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= SIZE_STATE_MAX || strlen(buf) != (size_t)n)
		return -EBADMSG;
	return state_parse(buf, ret);
}

int mcg_size_state_read(struct mcg_group *g, struct mcg_size_state *ret)
{
	char name[256];
	int dfd, r;

	r = state_dir(g, false, &dfd);
	if (r < 0)
		return r;
	mcg__cgroup_file_name(g->ctx->root, g->path, name, sizeof(name));
	r = state_read_at(dfd, name, ret);
	close(dfd);
	return r;
}

/* the length up to which a file name is the escaped path, not a hash (mcg__cgroup_file_name) */
#define SIZE_NAME_PLAIN 200

struct mcg_size_states {
	struct mcg_ctx *ctx;
	int dfd;
	char name[256]; /* the root's part of every name, then the path's (mcg__cgroup_file_name) */
	size_t root_len;
};

int mcg_size_states_open(struct mcg_ctx *ctx, struct mcg_size_states **ret)
{
	struct mcg_size_states *s;
	int rfd, dfd, r;

	r = mcg__rundir_fd(ctx, false, &rfd);
	if (r < 0)
		return r;
	r = mcg__trusted_subdir(rfd, SIZE_STATE_DIR, 0755, false, &dfd);
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(dfd);
		return -ENOMEM;
	}
	s->ctx = ctx;
	s->dfd = dfd;
	mcg__cgroup_file_name(ctx->root, "/", s->name, sizeof(s->name));
	s->root_len = strlen(s->name);
	*ret = s;
	return 0;
}

int mcg_size_states_get(struct mcg_size_states *s, const char *path, struct mcg_size_state *ret)
{
	char hashed[256];
	size_t o;
	const char *p;

	if (!s)
		return -ENOENT;
	/*
	 * The name mcg__cgroup_file_name gives, made here from the root's part
	 * (once) and the path's, escaped as it escapes ('/' and '%' as %XX): a
	 * thousand rows cost a tenth of its snprintf per character. A name past
	 * the plain length is its hash: that one is asked for.
	 */
	o = s->root_len;
	for (p = strcmp(path, "/") ? path : ""; *p && o <= SIZE_NAME_PLAIN; p++) {
		if (*p == '/' || *p == '%') {
			s->name[o++] = '%';
			s->name[o++] = '2';
			s->name[o++] = *p == '/' ? 'f' : '5';
		} else {
			s->name[o++] = *p;
		}
	}
	s->name[o] = '\0';
	if (o > SIZE_NAME_PLAIN) {
		mcg__cgroup_file_name(s->ctx->root, path, hashed, sizeof(hashed));
		return state_read_at(s->dfd, hashed, ret);
	}
	return state_read_at(s->dfd, s->name, ret);
}

void mcg_size_states_close(struct mcg_size_states *s)
{
	if (!s)
		return;
	close(s->dfd);
	free(s);
}

/* ---- the kept answer as a history event --------------------------------- */

/*
 * detail: "v1 cold=N cold_file=N cold_anon=N split=0|1 signal=S method=M";
 * count the needed bytes, op the stop, time the answer's.
 */
int mcg_size_state_to_event(const struct mcg_size_state *s, const char *cgroup,
			    struct mcg_hist_event *ev, char *buf, size_t len)
{
	int n;

	if (!cgroup || cgroup[0] != '/')
		return -EINVAL;
	n = snprintf(buf, len, "v1 cold=%llu cold_file=%llu cold_anon=%llu split=%d signal=%s method=%s",
		     (unsigned long long)s->cold, (unsigned long long)s->cold_file,
		     (unsigned long long)s->cold_anon, s->split_valid ? 1 : 0,
		     mcg_size_signal_name(s->sig), s->method);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	memset(ev, 0, sizeof(*ev));
	ev->type = MCG_HEV_SIZE;
	ev->time_ns = s->time_ns;
	ev->cgroup = cgroup;
	ev->count = s->needed;
	ev->uid = ev->loginuid = ev->pid = -1;
	ev->op = mcg_size_stop_name(s->stop);
	ev->detail = buf;
	return 0;
}

/* " KEY=" at *P: the value up to the next blank, into BUF */
static bool ev_word(const char **p, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), n;
	const char *q = *p;

	if (*q != ' ' || strncmp(q + 1, key, kl) || q[1 + kl] != '=')
		return false;
	q += kl + 2;
	n = strcspn(q, " ");
	if (!n || n >= len)
		return false;
	memcpy(buf, q, n);
	buf[n] = '\0';
	*p = q + n;
	return true;
}

static bool ev_u64(const char **p, const char *key, uint64_t *ret)
{
	char buf[24], *end;

	if (!ev_word(p, key, buf, sizeof(buf)) || buf[strspn(buf, "0123456789")] ||
	    (buf[0] == '0' && buf[1]))
		return false;
	errno = 0;
	*ret = strtoull(buf, &end, 10);
	return !errno && !*end;
}

int mcg_size_state_from_event(const struct mcg_hist_event *ev, struct mcg_size_state *ret)
{
	struct mcg_size_state s = {0};
	const char *p;
	char buf[32];
	uint64_t split;
	size_t i;
	int k;

	if (!ev || ev->type != MCG_HEV_SIZE || !ev->detail || !ev->op || strncmp(ev->detail, "v1", 2))
		return -MCG_E_CORRUPT;
	s.needed = ev->count;
	s.time_ns = ev->time_ns;
	for (k = MCG_SIZE_RUNNING; k <= MCG_SIZE_CONFLICT; k++)
		if (!strcmp(ev->op, mcg_size_stop_name((enum mcg_size_stop)k)))
			break;
	if (k > MCG_SIZE_CONFLICT)
		return -MCG_E_CORRUPT;
	s.stop = (enum mcg_size_stop)k;
	p = ev->detail + 2;
	if (!ev_u64(&p, "cold", &s.cold) || !ev_u64(&p, "cold_file", &s.cold_file) ||
	    !ev_u64(&p, "cold_anon", &s.cold_anon) || !ev_u64(&p, "split", &split) || split > 1 ||
	    !ev_word(&p, "signal", buf, sizeof(buf)))
		return -MCG_E_CORRUPT;
	s.split_valid = split;
	for (k = MCG_SIZE_SIG_PSI; k <= MCG_SIZE_SIG_REFAULTS; k++)
		if (!strcmp(buf, mcg_size_signal_name((enum mcg_size_signal)k)))
			break;
	if (k > MCG_SIZE_SIG_REFAULTS)
		return -MCG_E_CORRUPT;
	s.sig = (enum mcg_size_signal)k;
	if (!ev_word(&p, "method", s.method, sizeof(s.method)))
		return -MCG_E_CORRUPT;
	for (i = 0; i < MCG_ARRAY_SIZE(size_methods); i++)
		if (!strcmp(s.method, size_methods[i]))
			break;
	/* a later version's keys after these are skipped */
	if (i == MCG_ARRAY_SIZE(size_methods) || (*p && *p != ' '))
		return -MCG_E_CORRUPT;
	*ret = s;
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

/* The tasks' delays: the last totals per task group, for deltas. */
struct task_seen {
	pid_t pid;
	uint64_t ns;
};
struct delays {
	struct mcg_taskstats *ts;
	struct task_seen *prev, *cur;
	size_t n_prev, n_cur, cap;
	uint64_t sum; /* delta over the tick */
	int err;
};

static int add_task(struct delays *d, pid_t pid)
{
	struct mcg_task_delays td;
	size_t i;

	if (mcg_taskstats_tgid_delays(d->ts, pid, &td) < 0)
		return 0; /* gone meanwhile */
	if (d->n_cur == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct task_seen *p = realloc(d->cur, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->cur = p;
		d->cap = cap;
	}
	d->cur[d->n_cur].pid = pid;
	d->cur[d->n_cur].ns = td.freepages_ns + td.thrashing_ns;
	/* a task seen for the first time gives its baseline, not a delta */
	for (i = 0; i < d->n_prev; i++)
		if (d->prev[i].pid == pid) {
			d->sum += mcg__sat_sub(d->cur[d->n_cur].ns, d->prev[i].ns);
			break;
		}
	d->n_cur++;
	return 0;
}

struct walk_ud {
	struct mcg_ctx *ctx;
	struct delays *d;
	int err;
};

static int walk_tasks(const char *path, int depth, void *userdata)
{
	struct walk_ud *w = userdata;
	struct mcg_group *g;
	char *text = NULL, *p, *end;
	size_t len;
	int r;

	(void)depth;
	if (mcg_group_open(w->ctx, path, &g) < 0)
		return 0;
	r = mcg_read_file_at(mcg_group_dirfd(g), "cgroup.procs", &text, &len);
	mcg_group_close(g);
	if (r < 0)
		return 0;
	for (p = text; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && (r = add_task(w->d, (pid_t)pid)) < 0) {
			w->err = r;
			free(text);
			return r;
		}
		while (*end == '\n')
			end++;
	}
	free(text);
	return 0;
}

static int delays_read(struct delays *d, struct mcg_group *g)
{
	struct walk_ud w = {.ctx = g->ctx, .d = d};
	int r;

	d->sum = 0;
	d->n_cur = 0;
	r = mcg_walk(g->ctx, g->path, -1, walk_tasks, &w);
	if (w.err)
		r = w.err;
	if (r < 0)
		return r;
	/* this tick's totals are the next one's baseline */
	free(d->prev);
	d->prev = d->cur;
	d->n_prev = d->n_cur;
	d->cur = NULL;
	d->n_cur = d->cap = 0;
	return 0;
}

/* What one tick reads; deltas are taken between two of these. */
struct reading {
	struct mcg_record rec;
	struct mcg_limit_pre pre;
};

static int read_state(struct mcg_group *g, struct reading *rd)
{
	struct mcg_limit_req keep;
	int r;

	mcg_limit_req_init(&keep);
	r = mcg_group_read_record(g, &rd->rec, NULL);
	if (r < 0)
		return r;
	/* the floor as set-limit computes it: swap headroom, kernel memory, mlocked */
	return mcg_limit_preflight(g, &keep, &rd->pre);
}

static uint64_t delta(const struct mcg_record *a, const struct mcg_record *b, enum mcg_key k,
		      bool *valid)
{
	bool v = mcg_record_has(a, k) && mcg_record_has(b, k);

	if (valid)
		*valid = v;
	return v ? mcg__sat_sub(b->v[k], a->v[k]) : 0;
}

/* Sleep MS in slices, so that the cancel flag is seen within 100 ms. */
static int nap(uint64_t ms, const struct mcg_cancel *cancel)
{
	uint64_t end = mcg_monotonic_ns() + ms * 1000000ULL, now;
	int r;

	while ((now = mcg_monotonic_ns()) < end) {
		uint64_t left = end - now;
		struct timespec ts;

		if ((r = mcg_cancel_check(cancel)) < 0)
			return r;
		if (left > 100000000ULL)
			left = 100000000ULL;
		ts.tv_sec = (time_t)(left / 1000000000ULL);
		ts.tv_nsec = (long)(left % 1000000000ULL);
		nanosleep(&ts, NULL);
	}
	return mcg_cancel_check(cancel);
}

/* memory.events "high" now; false when it cannot be read (the window is then not counted). */
static bool events_high(struct mcg_group *g, uint64_t *ret)
{
	char buf[256];

	return mcg_knob_read(g, "memory.events", buf, sizeof(buf)) > 0 &&
	       mcg__kv_find(buf, "high", ret) == 0;
}

/*
 * v2 without memory.reclaim (before 5.19): a temporary memory.high at usage - BYTES.
 *
 * While it stands, every charge the workload makes above it raises "high" in
 * memory.events (reclaim_high, on the task's way back to user space, counts an
 * event for each cgroup whose usage is above its high): those events are the
 * probe's own doing, not the cgroup at a limit of its own, and read as a stop
 * signal they ended the probe after its first step. So the counter is read
 * before our high is written and after the original is back, and what rose in
 * between is returned in RET_OWN, for the run to take out of the tick's delta.
 * A task that passed the check against our high just before the restore and
 * counts its event after our second read is missed (a rare event counted as
 * the cgroup's); once the original high is back, reclaim_high compares with it
 * and raises nothing of ours.
 */
static int high_step(struct mcg_txn *t, struct mcg_group *g, uint64_t bytes, uint64_t *ret_freed,
		     uint64_t *ret_own)
{
	uint64_t before, after, orig, ev0 = 0, ev1 = 0, page = (uint64_t)mcg_page_size();
	bool ev_ok;
	int r, r2;

	r = mcg_group_usage(g, &before);
	if (r < 0)
		return r;
	r = mcg_txn_save(t, "memory.high");
	if (r < 0)
		return r;
	r = mcg__txn_saved_u64(t, "memory.high", &orig);
	if (r < 0)
		return r;
	ev_ok = events_high(g, &ev0);
	/* memory.high reclaims synchronously and never OOM-kills (KERNEL.md) */
	r = mcg__txn_set(t, "memory.high", mcg__sat_sub(before, bytes) / page * page);
	r2 = mcg__txn_set(t, "memory.high", orig);
	if (ev_ok && events_high(g, &ev1))
		*ret_own += mcg__sat_sub(ev1, ev0);
	if (r == 0)
		r = r2;
	if (r < 0)
		return r;
	r = mcg_group_usage(g, &after);
	if (r < 0)
		return r;
	*ret_freed = mcg__sat_sub(before, after);
	return 0;
}

/* Keep answer A for show, export, top and record (mcg_size_state_write). */
static int keep_answer(struct mcg_group *g, const struct mcg_size_answer *a, enum mcg_size_stop stop,
		       enum mcg_size_signal sig, const char *method)
{
	struct mcg_size_state st = {
		.needed = a->needed,
		.cold = a->cold,
		.cold_file = a->cold_file,
		.cold_anon = a->cold_anon,
		.split_valid = a->split_valid,
		.time_ns = mcg__realtime_ns(),
		.stop = stop,
		.sig = sig,
	};

	snprintf(st.method, sizeof(st.method), "%s", method);
	return mcg_size_state_write(g, &st);
}

/* The band of the last adjustments is narrow enough now (the controller's test). */
static bool band_narrow(const struct mcg_size_ctl *c)
{
	uint64_t lo, hi;
	unsigned n;

	return band(c, &lo, &hi, &n) && n >= c->p.band_n &&
	       (double)(hi - lo) <= c->p.band_frac * (double)hi;
}

/* The probe between ticks: what mcg_size_run's loop keeps, for a caller's own loop too. */
struct mcg_size_probe {
	struct mcg_group *g;
	struct mcg_size_opts o;
	unsigned flags;
	struct mcg_size_result res;
	struct mcg_size_ctl c;
	struct mcg_txn *t;	   /* the run's (none with MCG_SIZE_PROBE_STEP_LOCK) */
	struct mcg_reclaimer *rc;
	struct delays d;
	struct reading *prev, *cur;
	const char *limit_knob;
	uint64_t t0, tick0, freed, last_needed, own_high, writes;
	size_t kept_adj; /* watch: the adjustments the last kept answer rests on */
	bool v1, use_high;
};

void mcg_size_probe_free(struct mcg_size_probe *p)
{
	if (!p)
		return;
	if (p->rc)
		mcg_reclaimer_free(p->rc);
	mcg_txn_free(p->t);
	mcg_taskstats_close(p->d.ts);
	free(p->d.prev);
	free(p->d.cur);
	free(p->prev);
	free(p->cur);
	free(p);
}

int mcg_size_probe_new(struct mcg_group *g, const struct mcg_size_opts *o, unsigned flags,
		       const struct mcg_cancel *cancel, struct mcg_size_probe **ret)
{
	struct mcg_size_probe *p;
	int r, e = 0;
	bool psi_ok;

	if (mcg_group_is_root(g))
		return -EPERM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->g = g;
	p->o = *o;
	p->flags = flags;
	p->v1 = g->ctx->version == 1;
	p->limit_knob = mcg_knob_file(1, MCG_K_LIMIT);
	p->t0 = mcg_monotonic_ns();
	p->prev = calloc(1, sizeof(*p->prev));
	p->cur = calloc(1, sizeof(*p->cur));
	if (!p->prev || !p->cur) {
		r = -ENOMEM;
		goto fail;
	}
	r = read_state(g, p->prev);
	if (r < 0)
		goto fail;

	/* Which signal: the cgroup's own PSI, else the tasks' delays, else refaults. */
	p->res.delayacct = mcg_delayacct_get(g->ctx);
	psi_ok = mcg_record_has(&p->prev->rec, MCG_K_PSI_SOME);
	if (psi_ok) {
		p->res.sig = MCG_SIZE_SIG_PSI;
	} else if (p->v1 && p->res.delayacct == 1 && (e = mcg_taskstats_open(&p->d.ts)) == 0) {
		p->res.sig = MCG_SIZE_SIG_DELAYS;
		(void)delays_read(&p->d, g); /* the first totals */
	} else {
		if (p->v1)
			p->res.taskstats_err = p->res.delayacct == 1 ? e : -ENOTSUP;
		p->res.sig = MCG_SIZE_SIG_REFAULTS;
	}
	p->res.stall_valid = p->res.sig != MCG_SIZE_SIG_REFAULTS;
	mcg_size_ctl_init(&p->c, &o->p, p->res.sig);
	if (p->v1) {
		r = mcg_knob_read_u64(g, p->limit_knob, &p->res.limit_before);
		if (r < 0)
			goto fail;
	}
	p->use_high = !o->dry_run && !p->v1 && !mcg_knob_exists(g, "memory.reclaim");
	if (o->dry_run)
		snprintf(p->res.method, sizeof(p->res.method), "dry-run");
	else
		snprintf(p->res.method, sizeof(p->res.method), "%s",
			 p->use_high ? "memory.high" : p->v1 ? "limit-steps" : "memory.reclaim");
	if (!o->dry_run && !(flags & MCG_SIZE_PROBE_STEP_LOCK)) {
		/* the lock and the journal for the whole run (v1 saves the limit first) */
		r = mcg_txn_begin_recovering(g, 0, "size", cancel, o->recovered, o->userdata, &p->t);
		if (r < 0)
			goto fail;
		if (!p->use_high) {
			r = mcg_reclaimer_new(p->t, &p->rc);
			if (r < 0)
				goto fail;
		}
		if (p->v1) /* the value the journal saved is the one restored and compared with */
			(void)mcg__txn_saved_u64(p->t, p->limit_knob, &p->res.limit_before);
	}
	p->tick0 = mcg_monotonic_ns();
	*ret = p;
	return 0;
fail:
	mcg_size_probe_free(p);
	return r;
}

/*
 * One step of ASK bytes. With the run's transaction, through its reclaimer;
 * with MCG_SIZE_PROBE_STEP_LOCK, under a lock and journal of this step alone,
 * which end with it (the v1 limit back, the journal dropped): -MCG_E_LOCKED
 * when another memcgctl holds the cgroup (no step).
 */
static int probe_step(struct mcg_size_probe *p, uint64_t ask, const struct mcg_cancel *cancel)
{
	struct mcg_txn *t = p->t;
	struct mcg_reclaimer *rc = p->rc;
	struct mcg_step st;
	int r, r2;

	if (!t) {
		r = mcg_txn_begin_recovering(p->g, 0, "size", cancel, p->o.recovered,
					     p->o.userdata, &t);
		if (r < 0)
			return r;
		if (!p->use_high && (r = mcg_reclaimer_new(t, &rc)) < 0) {
			mcg_txn_free(t);
			return r;
		}
	}
	if (p->use_high) {
		r = high_step(t, p->g, ask, &p->freed, &p->own_high);
	} else {
		r = mcg_reclaimer_step(rc, ask, false, &st);
		if (r == 0)
			p->freed = mcg__sat_sub(st.usage_before, st.usage_after);
	}
	if (r == -MCG_E_CONFLICT) {
		if (rc)
			mcg_reclaimer_conflict(rc, &p->res.conflict_found, &p->res.conflict_expected);
		else
			mcg_txn_conflict(t, NULL, &p->res.conflict_found, &p->res.conflict_expected);
	}
	if (t == p->t)
		return r;
	/* this step's own lock: the limit back (if still ours), the journal dropped */
	if (rc) {
		p->writes += mcg_reclaimer_writes(rc);
		mcg_reclaimer_free(rc);
	}
	r2 = mcg_txn_rollback(t);
	if (r2 == -MCG_E_CONFLICT && r != -MCG_E_CONFLICT) {
		mcg_txn_conflict(t, NULL, &p->res.conflict_found, &p->res.conflict_expected);
		r = r2;
	} else if (r == 0 && r2 < 0) {
		r = r2;
	}
	mcg_txn_free(t);
	return r;
}

int mcg_size_probe_tick(struct mcg_size_probe *p, uint64_t max_step,
			const struct mcg_cancel *cancel, struct mcg_size_tick *ret)
{
	struct mcg_size_ctl *c = &p->c;
	struct mcg_size_result *res = &p->res;
	struct mcg_group *g = p->g;
	const struct mcg_size_opts *o = &p->o;
	struct mcg_size_obs ob = {0};
	struct mcg_size_progress pr = {0};
	struct mcg_size_tick tk = {0};
	struct reading *tmp;
	uint64_t ask, now, page = (uint64_t)mcg_page_size();
	bool valid;
	int r, r2;

	if (c->stop != MCG_SIZE_RUNNING)
		goto done;
	r = read_state(g, p->cur);
	if (r < 0)
		return r;
	now = mcg_monotonic_ns();
	ob.dt_ns = now - p->tick0;
	p->tick0 = now;
	ob.usage = p->cur->pre.usage;
	ob.file = p->cur->pre.file;
	ob.anon = p->cur->pre.anon;
	ob.floor = p->cur->pre.floor;
	ob.reclaimed = p->freed;
	p->freed = 0;
	if (res->sig == MCG_SIZE_SIG_PSI) {
		ob.stall_ns = delta(&p->prev->rec, &p->cur->rec, MCG_K_PSI_SOME, &ob.stall_valid) * 1000;
	} else if (res->sig == MCG_SIZE_SIG_DELAYS) {
		ob.stall_valid = delays_read(&p->d, g) == 0;
		ob.stall_ns = ob.stall_valid ? p->d.sum : 0;
	}
	ob.refault_bytes = delta(&p->prev->rec, &p->cur->rec, MCG_K_REFAULT, &ob.refault_valid) * page;
	ob.ev_max = delta(&p->prev->rec, &p->cur->rec, MCG_K_EV_MAX, NULL);
	/* the high events our own memory.high steps raised are no signal (high_step) */
	ob.ev_high = delta(&p->prev->rec, &p->cur->rec, MCG_K_EV_HIGH, NULL);
	if (p->own_high) {
		uint64_t own = p->own_high < ob.ev_high ? p->own_high : ob.ev_high;

		ob.ev_high -= own;
		res->ev_high_probe += own;
		p->own_high = 0;
	}
	ob.ev_oom_kill = delta(&p->prev->rec, &p->cur->rec, MCG_K_EV_OOM_KILL, &valid);
	tmp = p->prev;
	p->prev = p->cur;
	p->cur = tmp;

	ask = mcg_size_ctl_tick(c, &ob);
	/* the caller's bound (a CPU budget): a smaller step, in whole pages, or none */
	if (ask && max_step && ask > max_step) {
		ask = max_step / page * page;
		if (!ask)
			c->steps--; /* not taken: not one of the steps */
	}
	if (o->progress) {
		struct mcg_size_answer a;

		mcg_size_ctl_answer(c, &a);
		pr.usage = ob.usage;
		pr.needed = a.needed;
		pr.step = ask;
		pr.elapsed_ns = now - p->t0;
		pr.cost_raw = c->cost_raw;
		pr.sig = res->sig;
		pr.adjustments = (unsigned)c->n_adj;
		pr.converged = c->converged;
		o->progress(o->userdata, &pr);
	}
	if (c->converged && o->answer) {
		struct mcg_size_answer a;

		mcg_size_ctl_answer(c, &a);
		if (a.needed != p->last_needed) {
			p->last_needed = a.needed;
			o->answer(o->userdata, &a);
		}
	}
	/*
	 * Watch: each time the band is narrow again on a new adjustment, the
	 * answer is kept anew (its time too): export, top and record follow
	 * a number that stays fresh while the watch runs.
	 */
	if (c->p.watch && !o->dry_run && c->n_adj != p->kept_adj && band_narrow(c)) {
		struct mcg_size_answer a;

		mcg_size_ctl_answer(c, &a);
		p->kept_adj = c->n_adj;
		r2 = keep_answer(g, &a, MCG_SIZE_CONVERGED, res->sig, res->method);
		res->state_err = r2 < 0 ? r2 : 0;
		tk.kept = r2 == 0;
	}
	if (c->stop != MCG_SIZE_RUNNING)
		goto done;
	if (o->dry_run) {
		/* what it would do: the baseline, the floor and the first step */
		if (c->ticks > c->p.warmup) {
			res->first_step = ask;
			tk.stop = MCG_SIZE_RUNNING;
			tk.dry_run_done = true;
			*ret = tk;
			return 0;
		}
		goto done;
	}
	if (!ask)
		goto done;
	if ((r = mcg_cancel_check(cancel)) < 0) {
		/* the step the controller chose was never taken: not one of the steps */
		c->steps--;
		c->stop = r == -EINTR ? MCG_SIZE_INTERRUPTED : MCG_SIZE_TIMEOUT;
		goto done;
	}
	r = probe_step(p, ask, cancel);
	if (r == -MCG_E_LOCKED && !p->t) {
		/* another memcgctl holds the cgroup for now: no step this tick */
		c->steps--;
		tk.locked = true;
		goto done;
	}
	if (r == -EINTR || r == -ETIMEDOUT) {
		c->stop = r == -EINTR ? MCG_SIZE_INTERRUPTED : MCG_SIZE_TIMEOUT;
		goto done;
	}
	if (r == -MCG_E_CONFLICT) {
		c->stop = MCG_SIZE_CONFLICT;
		goto done;
	}
	if (r < 0)
		return r;
	tk.asked = ask;
	tk.freed = p->freed;
done:
	tk.stop = c->stop;
	*ret = tk;
	return 0;
}

int mcg_size_probe_end(struct mcg_size_probe *p, enum mcg_size_stop stop,
		       struct mcg_size_result *ret)
{
	struct mcg_size_result res = p->res;
	struct mcg_size_ctl *c = &p->c;
	struct mcg_group *g = p->g;
	const struct mcg_size_opts *o = &p->o;
	int r = 0, r2;

	if (c->stop == MCG_SIZE_RUNNING)
		c->stop = stop; /* the caller's reason: a deadline, a signal (RUNNING: none) */
	/* the last step's own events, which no tick observed after it */
	res.ev_high_probe += p->own_high;
	p->own_high = 0;
	res.writes = p->writes;
	if (p->rc) {
		res.writes += mcg_reclaimer_writes(p->rc);
		/* the v1 limit back first, whatever happened (if it is still ours) */
		mcg_reclaimer_free(p->rc);
		p->rc = NULL;
	}
	if (p->t) {
		r2 = mcg_txn_rollback(p->t);
		if (r2 == -MCG_E_CONFLICT) {
			if (c->stop != MCG_SIZE_CONFLICT)
				mcg_txn_conflict(p->t, NULL, &res.conflict_found,
						 &res.conflict_expected);
			c->stop = MCG_SIZE_CONFLICT;
			r2 = 0;
		}
		mcg_txn_free(p->t);
		p->t = NULL;
		if (r2 < 0)
			return r2;
	}
	if (c->stop == MCG_SIZE_CONFLICT)
		snprintf(res.conflict_knob, sizeof(res.conflict_knob), "%s",
			 p->use_high ? "memory.high" : p->limit_knob);
	if (p->v1) {
		r = mcg_knob_read_u64(g, p->limit_knob, &res.limit_after);
		if (r < 0)
			return r;
	}
	r = mcg_group_usage(g, &res.usage_end);
	if (r < 0)
		return r;
	res.stop = c->stop;
	mcg_size_ctl_answer(c, &res.ans);
	res.usage_start = c->usage_start;
	res.file_start = c->file_start;
	res.anon_start = c->anon_start;
	res.floor = c->floor;
	res.elapsed_ns = mcg_monotonic_ns() - p->t0;
	res.probe_ns = c->probe_ns;
	res.base_ns = c->base_ns;
	res.base_stall_ns = c->base_stall_ns;
	res.probe_stall_ns = c->probe_stall_ns;
	res.base_refault = c->base_refault;
	res.probe_refault = c->probe_refault;
	if (res.stall_valid) {
		res.pressure = c->probe_ns ? (double)c->probe_stall_ns / (double)c->probe_ns : 0;
		res.base_pressure = c->base_ns ? (double)c->base_stall_ns / (double)c->base_ns : 0;
		res.added_stall_ns = mcg__sat_sub(c->probe_stall_ns,
					     (uint64_t)(res.base_pressure * (double)c->probe_ns));
	} else {
		res.pressure = c->reclaimed ? (double)c->probe_refault / (double)c->reclaimed : 0;
	}
	if (!o->dry_run)
		res.steps = c->steps;
	res.reclaimed = c->reclaimed;
	res.backoffs = c->backoffs;
	res.ev_max = c->ev_max;
	res.ev_high = c->ev_high;
	res.ev_oom_kill = c->ev_oom_kill;
	/* an answer that rests on something (not a bare upper bound) is kept for show */
	if (!o->dry_run && res.stop != MCG_SIZE_CONFLICT &&
	    (res.ans.band_n || res.ans.floor_is_answer)) {
		r2 = keep_answer(g, &res.ans, res.stop, res.sig, res.method);
		if (r2 < 0)
			res.state_err = r2;
	}
	if (!o->dry_run)
		mcg_hist_note(g->ctx, "size", g->path, "needed %llu bytes (band %llu..%llu), %s, %s",
			      (unsigned long long)res.ans.needed, (unsigned long long)res.ans.band_lo,
			      (unsigned long long)res.ans.band_hi, mcg_size_stop_name(res.stop),
			      mcg_size_signal_name(res.sig));
	*ret = res;
	return 0;
}

int mcg_size_run(struct mcg_group *g, const struct mcg_size_opts *o,
		 const struct mcg_cancel *cancel, struct mcg_size_result *ret)
{
	struct mcg_size_probe *p;
	struct mcg_size_tick tk;
	enum mcg_size_stop stop = MCG_SIZE_RUNNING;
	uint64_t interval = o->interval_ms ? o->interval_ms : MCG_SIZE_DEFAULT_INTERVAL_MS;
	int r;

	r = mcg_size_probe_new(g, o, 0, cancel, &p);
	if (r < 0)
		return r;
	for (;;) {
		r = nap(interval, cancel);
		if (r < 0) {
			stop = r == -EINTR ? MCG_SIZE_INTERRUPTED : MCG_SIZE_TIMEOUT;
			break;
		}
		r = mcg_size_probe_tick(p, 0, cancel, &tk);
		if (r < 0) {
			mcg_size_probe_free(p); /* the reclaimer and the rollback put back */
			return r;
		}
		if (tk.stop != MCG_SIZE_RUNNING || tk.dry_run_done)
			break;
	}
	r = mcg_size_probe_end(p, stop, ret);
	mcg_size_probe_free(p);
	return r;
}
