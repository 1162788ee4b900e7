/* cmd-record.c: "memcgctl record": the recorder daemon: every memory cgroup, every interval, into the history store. */
#include "memcgctl.h"
#include "cli-common.h"
#include "cgroup-arg.h"
#include "containers.h"
#include "oom-watch.h"
#include "output.h"
#include "size-field.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct record_args {
	const char *store, *cgroup, *exec;
	uint64_t interval_ms;
	uint64_t retain_age_ms, retain_bytes;
	long count;
	bool sync, no_oom;
};

enum { OPT_STORE = 0x300, OPT_RETAIN_AGE, OPT_RETAIN_SIZE, OPT_SYNC, OPT_NO_OOM, OPT_EXEC };

static const struct argp_option record_options[] = {
	{"interval", 'd', "INTERVAL", 0, "Time between samples: 5s, 500ms (default 5s, at least 50ms)",
	 0},
	{"store", OPT_STORE, "DIR", 0, "The history store (default /var/lib/memcgctl/history)", 0},
	{"retain-age", OPT_RETAIN_AGE, "DURATION", 0,
	 "Delete segments older than DURATION: 7d, 12h (default 7d; 0: keep)", 0},
	{"retain-size", OPT_RETAIN_SIZE, "SIZE", 0,
	 "Delete the oldest segments while the store is larger than SIZE (default 1G; 0: no bound)",
	 0},
	{"count", 'n', "COUNT", 0, "Stop after COUNT samples (default: until SIGTERM or SIGINT)", 0},
	{"sync", OPT_SYNC, NULL, 0, "fdatasync every frame (survives power loss, costs a disk flush)",
	 0},
	{"no-oom", OPT_NO_OOM, NULL, 0,
	 "Do not catch OOM kills (by default each kill is explained and stored at once: see "
	 "memcgctl-oom(8))",
	 0},
	{"exec", OPT_EXEC, "PROG", 0,
	 "Run PROG (an absolute path; no shell, no arguments) for each early warning and each OOM "
	 "kill stored, with MEMCGCTL_EVENT, MEMCGCTL_CGROUP and the numbers in its environment; "
	 "never waited for, killed after 10 s; its failure is logged, the recording goes on",
	 0},
	{0},
};

/* 7d, 12h, 90m, 30s, 0 */
static int parse_age(const char *s, uint64_t *ret_ms, char *why, size_t len)
{
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == 'd') {
		char *end;
		unsigned long long d = strtoull(s, &end, 10);

		if (end != s + n - 1 || d > 36500 || s[0] == '-') {
			snprintf(why, len, "days are a whole number up to 36500");
			return -EINVAL;
		}
		*ret_ms = d * 86400000ULL;
		return 0;
	}
	return mcg_duration_parse(s, ret_ms, why, len);
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_args *a = state->input;
	char why[128];

	switch (key) {
	case 'd':
		a->interval_ms = cli_arg_interval(state, arg);
		break;
	case OPT_STORE:
		a->store = arg;
		break;
	case OPT_RETAIN_AGE:
		if (parse_age(arg, &a->retain_age_ms, why, sizeof(why)) < 0)
			argp_error(state, "invalid --retain-age '%s': %s", arg, why);
		break;
	case OPT_RETAIN_SIZE:
		if (!strcmp(arg, "0"))
			a->retain_bytes = 0;
		else if (mcg_size_parse(arg, 0, 0, 0, &a->retain_bytes, why, sizeof(why)) < 0)
			argp_error(state, "invalid --retain-size '%s': %s", arg, why);
		break;
	case 'n':
		a->count = cli_arg_long(state, "--count", arg, 1, 100000000);
		break;
	case OPT_SYNC:
		a->sync = true;
		break;
	case OPT_NO_OOM:
		a->no_oom = true;
		break;
	case OPT_EXEC:
		a->exec = cli_arg_exec(state, arg);
		break;
	case ARGP_KEY_END:
		if (a->exec && a->no_oom)
			argp_error(state, "--exec runs for OOM warnings and kills: not with --no-oom");
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp record_argp = {
	record_options, record_parse, "[CGROUP]",
	"Record every memory cgroup's (or CGROUP's subtree's) counters at an interval into the history store, with the "
	"events between samples: cgroups created and removed, OOM kills, max and high events "
	"(v1: failcnt), dirty verdict changes and every change memcgctl made (set-limit, empty, "
	"async-reclaim). Runs in the foreground until SIGTERM or SIGINT (the last frame is "
	"flushed, exit 0). Read the store with 'memcgctl dump' and 'memcgctl top --replay'.",
	cli_common_children, NULL, NULL,
};

/*
 * The sampler keeps a descriptor per control file and takes every one left
 * (then reopens files name by name): with a few thousand cgroups it reaches
 * RLIMIT_NOFILE. The recorder's own files (the segment, the spool, /proc for
 * the dirty verdict) come from descriptors held back while it samples.
 */
#define RESERVE_FDS 16
/* samples failing in a row before the recorder gives up (a minute at 5 s) */
#define MAX_FAILURES 12
/* 14 files a cgroup with every counter (v1): room for 70000 cgroups */
#define RECORD_NOFILE (1 << 20)
/* descriptors left free for rescans: a directory and 14 files for each of ~70 new cgroups */
#define NOFILE_MARGIN 1024
static int reserve[RESERVE_FDS];

static void reserve_hold(void)
{
	int i;

	for (i = 0; i < RESERVE_FDS; i++)
		reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void reserve_release(void)
{
	int i;

	for (i = 0; i < RESERVE_FDS; i++)
		if (reserve[i] >= 0)
			close(reserve[i]);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- events between two snapshots ---- */

struct evlist {
	struct mcg_hist_event *ev;
	size_t n, cap;
	char **owned; /* detail strings made here */
	size_t nowned;
};

static struct mcg_hist_event *ev_add(struct evlist *l, int type, const char *cgroup, uint64_t t)
{
	struct mcg_hist_event *e;

	if (mcg_grow(&l->ev, &l->cap, l->n, sizeof(*l->ev), 32) < 0)
		return NULL;
	e = &l->ev[l->n++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->cgroup = cgroup;
	e->time_ns = t;
	e->uid = e->pid = e->loginuid = -1;
	return e;
}

static void ev_reset(struct evlist *l)
{
	mcg_strv_free(l->owned, l->nowned);
	l->owned = NULL;
	l->nowned = 0;
	l->n = 0;
}

static char *own(struct evlist *l, const char *s)
{
	char **p = realloc(l->owned, (l->nowned + 1) * sizeof(*p));
	char *d = strdup(s);

	if (!p || !d) {
		free(d);
		if (p)
			l->owned = p;
		return NULL;
	}
	l->owned = p;
	l->owned[l->nowned++] = d;
	return d;
}

/* The kernel's events that become history events: the counter and what it is called. */
static const struct {
	enum mcg_key k;
	int type;
} ev_counters[] = {
	{MCG_K_EV_OOM_KILL, MCG_HEV_OOM_KILL}, {MCG_K_EV_OOM, MCG_HEV_OOM},
	{MCG_K_EV_MAX, MCG_HEV_MAX},	       {MCG_K_EV_HIGH, MCG_HEV_HIGH},
	{MCG_K_FAILCNT, MCG_HEV_FAILCNT},
};

/* Dirty verdict levels by row id, from the last sample. */
struct dirty_seen {
	uint64_t id;
	int level;
};

struct recorder {
	struct cli *cli;
	struct mcg_ctx *ctx;
	int version;
	struct dirty_seen *dirty;
	size_t ndirty;
	bool dirty_ok; /* the global dirty picture is readable */
};

static int cmp_dirty(const void *a, const void *b)
{
	uint64_t x = ((const struct dirty_seen *)a)->id, y = ((const struct dirty_seen *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * Row I of S when it has ID: a tree that did not change has its rows where
 * the last sample had them, so most rows are found without a search.
 */
static bool same_row(const struct mcg_snapshot *s, size_t i, uint64_t id)
{
	return i < s->n_rows && s->rows[i].id == id;
}

static void diff(struct recorder *rc, const struct mcg_snapshot *prev,
		 const struct mcg_snapshot *cur, uint64_t t, struct evlist *l)
{
	const struct mcg_sample_row **pidx = NULL, **cidx = NULL;
	struct mcg_dirty_global g;
	struct dirty_seen *nd = NULL;
	size_t i, j, n = 0;

	if (prev) {
		pidx = mcg_snapshot_index(prev);
		cidx = mcg_snapshot_index(cur);
		if (!pidx || !cidx)
			goto out;
		for (i = 0; i < prev->n_rows; i++)
			if (!same_row(cur, i, prev->rows[i].id) &&
			    !mcg_snapshot_find(cur, cidx, prev->rows[i].id))
				ev_add(l, MCG_HEV_REMOVED, own(l, prev->rows[i].path), t);
	}
	rc->dirty_ok = mcg_dirty_global_read(rc->ctx, &g) == 0;
	nd = calloc(cur->n_rows ? cur->n_rows : 1, sizeof(*nd));
	for (i = 0; i < cur->n_rows; i++) {
		const struct mcg_sample_row *r = &cur->rows[i];
		const struct mcg_sample_row *p = !prev ? NULL
						 : same_row(prev, i, r->id)
							 ? &prev->rows[i]
							 : mcg_snapshot_find(prev, pidx, r->id);
		struct mcg_dirty_cg dc = {0};

		if (prev && !p)
			ev_add(l, MCG_HEV_CREATED, r->path, t);
		for (j = 0; p && j < sizeof(ev_counters) / sizeof(ev_counters[0]); j++) {
			enum mcg_key k = ev_counters[j].k;
			uint64_t now = mcg_sample_get(r, k, 0), was = mcg_sample_get(p, k, 0);
			struct mcg_hist_event *e;

			if (!mcg_sample_has(r, k) || !mcg_sample_has(p, k) || now <= was)
				continue;
			/* v1 failcnt of the root counts every charge that failed anywhere: only cgroups */
			e = ev_add(l, ev_counters[j].type, r->path, t);
			if (e)
				e->count = now - was;
		}
		/* the dirty verdict: a change of level (ok, note, warn) is an event */
		/* from the snapshot: v2's headroom and limit come from the row's lineage (fields.c) */
		if (nd && rc->dirty_ok && mcg_dirty_cg_from_snapshot(cur, i, rc->version, &dc) == 0) {
			char why[256];
			int level;
			struct dirty_seen key = {r->id, 0}, *was;

			mcg_dirty_cg_eval(&dc, rc->version, &g);
			/* the text only for a change: a thousand cgroups' verdicts are formatted otherwise */
			level = (int)mcg_dirty_verdict(&dc, rc->version, &g, -1, NULL, 0);
			was = rc->dirty ? bsearch(&key, rc->dirty, rc->ndirty, sizeof(key), cmp_dirty)
					: NULL;
			if (prev && (was ? was->level : MCG_DIRTY_OK) != level) {
				struct mcg_hist_event *e = ev_add(l, MCG_HEV_DIRTY, r->path, t);
				char d[320];

				if (e) {
					mcg_dirty_verdict(&dc, rc->version, &g, -1, why, sizeof(why));
					snprintf(d, sizeof(d), "%s -> %s: %s",
						 mcg_dirty_level_name(was ? was->level : MCG_DIRTY_OK),
						 mcg_dirty_level_name(level), why);
					e->count = (uint64_t)level;
					e->detail = own(l, d);
				}
			}
			if (level != MCG_DIRTY_OK) {
				nd[n].id = r->id;
				nd[n++].level = level;
			}
		}
	}
	if (nd)
		qsort(nd, n, sizeof(*nd), cmp_dirty);
	free(rc->dirty);
	rc->dirty = nd;
	rc->ndirty = n;
	nd = NULL;
out:
	free(nd);
	free(pidx);
	free(cidx);
}

/*
 * The name a cgroup is stored under, asked when the store first sees it: its
 * container as list's CONTAINER column says it ("docker:web"), else its pod
 * ("pod:shop/api", the CGROUP argument form), else its systemd unit.
 */
static size_t record_name(void *ud, const char *path, char *buf, size_t len)
{
	struct recorder *rc = ud;

	/* the container, the pod or the unit (cli/containers.c: what a replay tells apart) */
	return cli_record_name(rc->ctx, path, buf, len);
}

/* OOM autopsies are stored when caught, in a frame of their own (the last sample's values). */
struct oom_store {
	struct mcg_hist_writer *w;
	struct mcg_snapshot *const *prev;
	struct evlist *pending; /* before the first sample: with it */
	int err;
};

static int oom_store(void *ud, const struct mcg_hist_event *ev, size_t n)
{
	struct oom_store *o = ud;
	size_t i;

	if (!*o->prev || o->err) {
		for (i = 0; i < n; i++) {
			struct mcg_hist_event *e = ev_add(o->pending, ev[i].type, NULL, 0);

			if (e) {
				*e = ev[i];
				e->cgroup = own(o->pending, ev[i].cgroup);
				e->comm = ev[i].comm ? own(o->pending, ev[i].comm) : NULL;
				e->op = ev[i].op ? own(o->pending, ev[i].op) : NULL;
				e->detail = ev[i].detail ? own(o->pending, ev[i].detail) : NULL;
			}
		}
		return -EAGAIN; /* stored with the next sample: noted then */
	}
	o->err = mcg_hist_write_snapshot(o->w, realtime_ns(), *o->prev, ev, n);
	return o->err;
}

/*
 * Type=notify (memcgctl-record.service): READY=1 once the store is open and holds the first
 * frame, STATUS= what it records, STOPPING=1 on the way out. Without a service manager
 * ($NOTIFY_SOCKET unset) nothing is sent. Only numbers and the store's path (escaped) go
 * into a state: a cgroup's name could carry a newline and another assignment.
 */
/* "recording N cgroups every 5s into DIR" */
static void record_status(const struct record_args *a, const char *store,
			  const struct mcg_snapshot *snap, bool ready, size_t unreg)
{
	unsigned long long ms = (unsigned long long)a->interval_ms;
	char oom[80] = "";

	if (unreg)
		snprintf(oom, sizeof(oom), "; OOM notifications not registered for %zu cgroup%s",
			 unreg, unreg == 1 ? "" : "s");
	cli_notify("recorder", "%sSTATUS=recording %zu cgroup%s every %llu%s into %s%s",
		      ready ? "READY=1\n" : "", snap->n_rows, snap->n_rows == 1 ? "" : "s",
		      ms % 1000 ? ms : ms / 1000, ms % 1000 ? "ms" : "s", out_esc(store), oom);
}

static int run_record(struct cli *cli, int argc, char **argv)
{
	struct record_args a = {.interval_ms = 5000, .retain_age_ms = 7 * 86400000ULL,
				.retain_bytes = 1ULL << 30};
	struct mcg_hist_opts o = {0};
	struct mcg_hist_writer *w = NULL;
	struct mcg_sampler *s = NULL;
	struct mcg_snapshot *prev = NULL, *snap = NULL;
	struct mcg_hist_spool_batch batch = {0};
	struct evlist l = {0};
	struct recorder rc = {0};
	struct cli_oom_watch *oomw = NULL;
	struct cli_oom_hooks *hooks = NULL;
	struct oom_store os = {0};
	struct timespec next;
	struct rlimit rl;
	const char *store;
	char *cgroup_path = NULL; /* CGROUP resolved: the sampler and the OOM watch take its path */
	uint64_t last_retain = 0;
	long samples = 0;
	unsigned failures = 0;
	size_t unreg = 0; /* cgroups without their OOM notification, as STATUS= said */
	bool spool, took, lowered = false, ready = false, failing = false;
	int r, status = EXIT_OK;

	r = cli_parse(&record_argp, argc, argv, &a);
	if (r)
		return r;
	rc.cli = cli;
	rc.ctx = cli_ctx(cli);
	if (!rc.ctx)
		return EXIT_FAILURE;
	rc.version = mcg_ctx_version(rc.ctx);
	/* a CGROUP resolved once, before the store is made: a name that does not is a usage error */
	if (a.cgroup) {
		struct mcg_group *g;

		r = cli_open_cgroup(cli, a.cgroup, &g);
		if (r < 0)
			return cli_status(r);
		a.cgroup = cgroup_path = strdup(mcg_group_path(g));
		mcg_group_close(g);
		if (!cgroup_path) {
			cli_err("cannot record: %s", mcg_strerror(-ENOMEM));
			return EXIT_FAILURE;
		}
	}
	store = a.store ? a.store : MCG_HIST_DEFAULT_DIR;
	o.dir = store;
	o.retain_age_ns = a.retain_age_ms * 1000000ULL;
	o.retain_bytes = a.retain_bytes;
	o.sync = a.sync;
	r = mcg_hist_writer_open(&o, rc.version, mcg_ctx_root(rc.ctx), &w);
	if (r < 0) {
		cli_err("cannot open history store '%s': %s", out_esc(store), mcg_strerror(r));
		free(cgroup_path);
		return EXIT_FAILURE;
	}
	/* one kept descriptor per control file: 10-14 per cgroup with every counter */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		/*
		 * Root may go past the hard limit (to fs.nr_open): a sampler out of
		 * descriptors reopens files by name each time, slower, and cannot
		 * rescan a directory whose child went away (it takes it as gone).
		 */
		struct rlimit want = {RECORD_NOFILE, RECORD_NOFILE};

		if (rl.rlim_max >= RECORD_NOFILE || setrlimit(RLIMIT_NOFILE, &want) < 0) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
		/*
		 * The first sample opens every file it can keep: it does so under a
		 * lower limit, so that NOFILE_MARGIN descriptors stay free afterwards
		 * for the rescans and reopens of later samples.
		 */
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 2 * NOFILE_MARGIN) {
			struct rlimit low = {rl.rlim_cur - NOFILE_MARGIN, rl.rlim_max};

			setrlimit(RLIMIT_NOFILE, &low);
			lowered = true;
		}
	}
	reserve_hold();
	r = mcg_sampler_new(rc.ctx, a.cgroup ? a.cgroup : "/", 0, &s);
	if (r == 0)
		r = mcg_sampler_set_keys(s, NULL);
	reserve_release();
	if (r < 0) {
		cli_err("cannot sample cgroup '%s': %s", out_esc(a.cgroup ? a.cgroup : "/"),
			mcg_strerror(r));
		mcg_hist_writer_close(w);
		mcg_sampler_free(s);
		free(cgroup_path);
		return EXIT_FAILURE;
	}
	if (!a.no_oom && cli_oom_watch_start(rc.ctx, a.cgroup, true, &oomw) < 0)
		oomw = NULL;
	if (oomw && a.exec) {
		hooks = cli_oom_hooks_new(a.exec);
		cli_oom_watch_set_hooks(oomw, hooks);
	} else if (a.exec) {
		cli_warn("--exec '%s' is not run: OOM kills are not caught", out_esc(a.exec));
	}
	cli_oom_watch_resume(oomw, mcg_hist_writer_dirfd(w));
	mcg_hist_writer_set_namer(w, record_name, &rc);
	os.w = w;
	os.prev = &prev;
	os.pending = &l;
	r = mcg_hist_spool_create(rc.ctx);
	spool = r == 0;
	if (!spool)
		cli_warn("cannot make the event spool in '%s' (changes memcgctl makes are not "
			 "recorded): %s",
			 out_esc(mcg_ctx_rundir(rc.ctx)), mcg_strerror(r));
	cli_trap_signals();
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!cli_interrupted) {
		uint64_t t;

		/*
		 * The frame's time is when the sample started: its reads lie
		 * between it and the next frame's time (one sample at a time).
		 */
		t = realtime_ns();
		reserve_hold();
		r = mcg_sampler_sample(s, &snap);
		reserve_release();
		if (lowered) {
			/* files it could not keep had no descriptor to be read with: again */
			setrlimit(RLIMIT_NOFILE, &rl);
			lowered = false;
			if (r == 0) {
				mcg_snapshot_unref(snap);
				snap = NULL;
				t = realtime_ns();
				reserve_hold();
				r = mcg_sampler_sample(s, &snap);
				reserve_release();
			}
		}
		if (r < 0) {
			/* a sample can fail for a moment (out of memory, descriptors): try again */
			if (++failures >= MAX_FAILURES || r == -EINVAL) {
				cli_err("cannot sample the memory cgroups: %s", mcg_strerror(r));
				status = EXIT_FAILURE;
				break;
			}
			cli_warn("cannot sample the memory cgroups: %s (trying again)",
				 mcg_strerror(r));
			cli_notify("recorder", "STATUS=cannot sample the memory cgroups: %s (trying again)",
				      mcg_strerror(r));
			failing = true;
			goto next;
		}
		failures = 0;
		cli_oom_watch_feed(oomw, snap);
		/* kills caught before the first sample are stored with it */
		if (prev)
			ev_reset(&l);
		diff(&rc, prev, snap, t, &l);
		took = spool && mcg_hist_spool_take(rc.ctx, &batch) == 0;
		if (took) {
			size_t i;

			for (i = 0; i < batch.n; i++) {
				struct mcg_hist_event *e = ev_add(&l, MCG_HEV_CHANGE, NULL, 0);

				if (e)
					*e = batch.ev[i];
			}
		}
		{
			/* memcgctl size's answers kept since the last sample (cli/size-field.c) */
			const struct mcg_hist_event *se;
			size_t i, ns = cli_size_events(rc.ctx, snap, &se);

			for (i = 0; i < ns; i++) {
				struct mcg_hist_event *e = ev_add(&l, MCG_HEV_SIZE, NULL, 0);

				if (e)
					*e = se[i];
			}
		}
		r = mcg_hist_write_snapshot(w, t, snap, l.ev, l.n);
		if (r < 0 && mcg_hist_writer_retain(w, t) > 0) {
			/* a full store (or disk): retention may have made room */
			last_retain = t;
			r = mcg_hist_write_snapshot(w, t, snap, l.ev, l.n);
		}
		if (r < 0) {
			cli_err("cannot write to history store '%s': %s", out_esc(store),
				mcg_strerror(r));
			status = EXIT_FAILURE;
			break;
		}
		if (took) {
			mcg_hist_spool_done(rc.ctx);
			if (batch.bad)
				cli_warn("%u lines of the event spool were not memcgctl's: dropped",
					 batch.bad);
		}
		mcg_hist_spool_batch_free(&batch);
		mcg_snapshot_unref(prev);
		prev = snap;
		snap = NULL;
		/* ready: the store is open and holds a frame that dump and replay read */
		if (!ready || failing || cli_oom_watch_unregistered(oomw) != unreg) {
			unreg = cli_oom_watch_unregistered(oomw);
			record_status(&a, store, prev, !ready, unreg);
		}
		ready = true;
		failing = false;
		if (t - last_retain >= 60ULL * 1000000000ULL) {
			mcg_hist_writer_retain(w, t);
			last_retain = t;
		}
		if (a.count && ++samples >= a.count)
			break;
next:
		/* the next sample on the interval's grid, not interval after this one's end */
		next.tv_nsec += (long)(a.interval_ms % 1000) * 1000000L;
		next.tv_sec += (time_t)(a.interval_ms / 1000) + next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		{
			/* a sample longer than the interval: the grid starts again from now */
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > next.tv_sec ||
			    (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
				next = now;
		}
		cli_oom_watch_sleep(oomw, &next, oom_store, &os);
		if (os.err) {
			cli_err("cannot write to history store '%s': %s", out_esc(store),
				mcg_strerror(os.err));
			status = EXIT_FAILURE;
			break;
		}
	}
	cli_notify("recorder", "STOPPING=1\nSTATUS=%s", cli_interrupted ? "stopping (signal)"
				  : status == EXIT_OK ? "stopping (--count samples taken)"
						      : "stopping after an error (see the log)");
	cli_oom_watch_stop(oomw);
	cli_oom_hooks_finish(hooks);
	mcg_hist_spool_batch_free(&batch);
	ev_reset(&l);
	free(l.ev);
	free(rc.dirty);
	mcg_snapshot_unref(prev);
	mcg_snapshot_unref(snap);
	mcg_sampler_free(s);
	r = mcg_hist_writer_close(w);
	if (r < 0 && status == EXIT_OK) {
		cli_err("cannot flush history store '%s': %s", out_esc(store), mcg_strerror(r));
		status = EXIT_FAILURE;
	}
	free(cgroup_path);
	return status;
}

const struct mcg_cmd cmd_record = {
	.name = "record",
	.summary = "Record every memory cgroup into the history store (a daemon)",
	.argp = &record_argp,
	.run = run_record,
};
