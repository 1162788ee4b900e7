/* loop.c: the live view's event loop (poll on the terminal, a timerfd and a signalfd) and its keys. */
#include "top/header.h"
#include "top/top.h"
#include "top/view.h"
#include "output.h"
#include "journal-report.h"
#include "containers.h"
#include "bars.h"
#include "async-reclaim.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { R_NONE = 0, R_REDRAW = 1, R_RESAMPLE = 2, R_QUIT = 4, R_RETIME = 8 };

enum input_mode { IN_NONE, IN_FILTER, IN_LIMIT, IN_CONFIRM, IN_GOTO };
enum confirm_what { CF_LIMIT, CF_EMPTY, CF_ASYNC, CF_DELAYACCT };

struct loop {
	struct cli *cli;
	struct top_opts *o;
	struct mcg_sampler *s;
	struct mcg_snapshot *snap;
	int *rows;
	size_t nrows, rows_cap;
	bool paused;
	unsigned rotate; /* off-screen rows read in full every ROTATE samples */
	enum input_mode input;
	enum confirm_what confirm;
	char text[128];   /* what is being typed */
	char pending[128]; /* the limit to confirm */
	char *target; /* the cgroup an action is about (its whole path: never cut) */
	bool target_async;
	char status[256];
	/* overlays: help or detail */
	const char *overlay_title;
	char **overlay;
	size_t noverlay, overlay_top;
	bool detail;
	bool quit; /* SIGTERM or SIGHUP while an action ran */
	/* --replay: the frame shown and its events marked on its rows */
	struct mcg_hist_frame *frame;
	unsigned char *mark;
	struct top_trend *trend; /* the live view's usage trends (model.c) */
	/* --replay's timeline: the store's span and the frames with events */
	uint64_t span_first, span_last;
	struct bar_mark *tl;
	size_t ntl;
	uint64_t tl_until; /* the last frame read for it */
	bool tl_pending;   /* frames after it still to read */
	/* per row of snap: the container or pod that owns it (cli/containers.c), or NULL */
	char **owner;
	size_t nowner;
	bool owner_any; /* a row has one: the CONTAINER column is shown */
	bool owner_off; /* C turned it off */
	/* per row of snap: memcgctl size's kept answer, needed bytes (UINT64_MAX: none) */
	uint64_t *need;
	bool need_any; /* a row has one: the NEED column is shown */
};

struct key {
	int key;
	const char *name;
	const char *help;
	int (*fn)(struct loop *l);
};

static void overlay_free(struct loop *l)
{
	mcg_strv_free(l->overlay, l->noverlay);
	l->overlay = NULL;
	l->noverlay = l->overlay_top = 0;
	l->overlay_title = NULL;
	l->detail = false;
}

__attribute__((format(printf, 2, 3))) static void overlay_add(struct loop *l, const char *fmt, ...)
{
	char **n = realloc(l->overlay, (l->noverlay + 1) * sizeof(*n));
	va_list ap;

	if (!n)
		return;
	l->overlay = n;
	va_start(ap, fmt);
	if (vasprintf(&n[l->noverlay], fmt, ap) >= 0)
		l->noverlay++;
	va_end(ap);
}

/* A recorded OOM kill in words (memcgctl oom's), not its stored fields; false if it does not parse. */
static bool overlay_oom(struct loop *l, const struct mcg_hist_event *e)
{
	struct mcg_oom_autopsy *a = malloc(sizeof(*a));
	bool ok = a && mcg_oom_autopsy_from_event(e, a) == 0;

	if (ok) {
		overlay_add(l, "OOM kill: pid %lld (%s), %s OOM in %s", (long long)a->pid, a->comm,
			    mcg_oom_scope_name(a->scope), a->oom_cgroup[0] ? a->oom_cgroup : "?");
		overlay_add(l, "  %s", a->why);
	}
	free(a);
	return ok;
}

static const struct mcg_sample_row *selected(struct loop *l)
{
	if (!l->snap || !l->nrows)
		return NULL;
	return &l->snap->rows[l->rows[top_model_selected_pos(&l->o->model, l->snap, l->rows, l->nrows)]];
}

static void rebuild(struct loop *l)
{
	if (!l->snap)
		return;
	if (l->rows_cap < l->snap->n_rows) {
		int *n = realloc(l->rows, l->snap->n_rows * sizeof(*n));

		if (!n)
			return;
		l->rows = n;
		l->rows_cap = l->snap->n_rows;
	}
	l->nrows = top_model_rows(&l->o->model, l->snap, l->rows);
	/* keep a valid selection when the selected cgroup vanished or was filtered out */
	if (l->nrows)
		l->o->model.selected =
			l->snap->rows[l->rows[top_model_selected_pos(&l->o->model, l->snap, l->rows,
								      l->nrows)]].id;
}

/*
 * Who owns each row of the snapshot: "docker:web" (its runtime's name, else 12
 * digits of its ID), or for a pod's own cgroup "pod:shop/api"; the names as
 * top -b's CONTAINER and POD columns have them. Not read while C has the
 * column off. A replay shows the names recorded with the frame, never the
 * node's names now (the container may be gone).
 */
static void owners_fill(struct loop *l)
{
	size_t i;

	mcg_strv_free(l->owner, l->nowner);
	l->owner = NULL;
	l->nowner = 0;
	l->owner_any = false;
	if (!l->snap || l->owner_off)
		return;
	l->owner = calloc(l->snap->n_rows ? l->snap->n_rows : 1, sizeof(*l->owner));
	if (!l->owner)
		return;
	l->nowner = l->snap->n_rows;
	for (i = 0; i < l->snap->n_rows; i++) {
		const char *path = l->snap->rows[i].path;
		const char *const *rec = l->frame ? (const char *const *)l->frame->names : NULL;
		bool c, p;
		char who[300], pod[300];

		if (l->o->hist) {
			c = cli_replay_container(l->snap, rec, i, who, sizeof(who));
			p = !c && cli_replay_pod(l->snap, rec, i, pod, sizeof(pod));
		} else {
			c = cli_container_of(path, who, sizeof(who));
			p = !c && cli_pod_of(path, pod, sizeof(pod));
		}
		if (c)
			l->owner[i] = strdup(who);
		else if (p && snprintf(who, sizeof(who), "pod:%s", pod) < (int)sizeof(who))
			l->owner[i] = strdup(who);
		if (l->owner[i])
			l->owner_any = true;
	}
}

/*
 * NEED: the answers memcgctl size (or reclaimd --size) kept, read for the rows of each
 * live sample as top -b reads them (the state directory opened once, an openat a row; a
 * cgroup without one costs that failed openat). The column is shown while a row has
 * one; a replay has none (the answer kept now says nothing of the past).
 */
static void needs_fill(struct loop *l)
{
	struct mcg_size_states *st;
	struct mcg_ctx *ctx;
	size_t i;

	free(l->need);
	l->need = NULL;
	l->need_any = false;
	if (!l->snap || l->o->hist || !(ctx = cli_ctx(l->cli)) || mcg_size_states_open(ctx, &st) < 0)
		return;
	l->need = malloc((l->snap->n_rows ? l->snap->n_rows : 1) * sizeof(*l->need));
	for (i = 0; l->need && i < l->snap->n_rows; i++) {
		struct mcg_size_state z;

		l->need[i] = mcg_size_states_get(st, l->snap->rows[i].path, &z) == 0 ? z.needed
										       : UINT64_MAX;
		if (l->need[i] != UINT64_MAX)
			l->need_any = true;
	}
	mcg_size_states_close(st);
}

/* ---- detail: everything 'show' prints, for the selected cgroup ---- */

static void detail_fill(struct loop *l)
{
	const struct mcg_sample_row *r = selected(l);
	struct mcg_group *g;
	struct mcg_info i;
	char b[48];
	unsigned k;
	size_t j;

	overlay_free(l);
	l->detail = true;
	l->overlay_title = " detail (Esc or d: back, arrows: scroll)";
	if (!r)
		return;
	if (l->o->hist) {
		/* replay: what was recorded, not the cgroup as it is now */
		overlay_add(l, "cgroup %s as recorded (cgroup v%d)", r->path, l->snap->version);
		mcg_keyset_foreach(k, &r->valid) {
			const struct mcg_key_desc *d = mcg_key_desc(k);

			if (d->kind == MCG_KIND_COUNTER)
				continue;
			if (d->unit == MCG_UNIT_BYTES)
				overlay_add(l, "  %-26s %s", d->name, mcg_sample_get(r, k, 0) == MCG_MAX ? "max"
								    : cli_size(mcg_sample_get(r, k, 0), b, sizeof(b)));
			else
				overlay_add(l, "  %-26s %llu", d->name, (unsigned long long)mcg_sample_get(r, k, 0));
		}
		overlay_add(l, "per second over the %.2fs before this sample / total:", l->snap->interval);
		mcg_keyset_foreach(k, &r->valid) {
			if (mcg_key_desc(k)->kind != MCG_KIND_COUNTER)
				continue;
			if (mcg_sample_rate_has(r, k))
				overlay_add(l, "  %-26s %12.1f/s %14llu", mcg_key_name(k), mcg_sample_rate(r, k),
					    (unsigned long long)mcg_sample_get(r, k, 0));
			else
				overlay_add(l, "  %-26s %14s %14llu", mcg_key_name(k), "-",
					    (unsigned long long)mcg_sample_get(r, k, 0));
		}
		for (j = 0; l->frame && j < l->frame->nev; j++) {
			const struct mcg_hist_event *e = &l->frame->ev[j];

			if (strcmp(e->cgroup, r->path))
				continue;
			if (e->type == MCG_HEV_OOM_AUTOPSY && overlay_oom(l, e))
				continue;
			overlay_add(l, "event %s %s%s%s", mcg_hist_event_name(e->type),
				    e->op ? e->op : "", e->detail ? ": " : "",
				    e->detail ? e->detail : "");
		}
		return;
	}
	if (mcg_group_open(cli_ctx(l->cli), r->path, &g) < 0 || mcg_group_info(g, &i) < 0) {
		overlay_add(l, "cgroup %s: cannot be read (removed?)", r->path);
		return;
	}
	mcg_group_close(g);
	overlay_add(l, "cgroup %s (cgroup v%d)", i.path, i.version);
	/* the record's levels and settings; memory.stat's keys come raw below */
	mcg_keyset_foreach(k, &i.rec.valid) {
		const struct mcg_key_desc *d = mcg_key_desc(k);

		if (d->kind == MCG_KIND_COUNTER ||
		    (d->file[i.version - 1] && !strcmp(d->file[i.version - 1], "memory.stat")))
			continue;
		if (d->unit == MCG_UNIT_BYTES)
			overlay_add(l, "  %-26s %s", d->name, i.rec.v[k] == MCG_MAX ? "max"
							    : cli_size(i.rec.v[k], b, sizeof(b)));
		else
			overlay_add(l, "  %-26s %llu", d->name, (unsigned long long)i.rec.v[k]);
	}
	overlay_add(l, "per second over the last %.2fs / since top started:", l->snap->interval);
	mcg_keyset_foreach(k, &r->valid) {
		if (mcg_key_desc(k)->kind != MCG_KIND_COUNTER)
			continue;
		if (mcg_sample_rate_has(r, k))
			overlay_add(l, "  %-26s %12.1f/s %14llu", mcg_key_name(k), mcg_sample_rate(r, k),
				    (unsigned long long)mcg_sample_since(r, k));
		else
			overlay_add(l, "  %-26s %14s %14llu", mcg_key_name(k), "-",
				    (unsigned long long)mcg_sample_since(r, k));
	}
	if (i.rec.psi.some_valid)
		overlay_add(l, "  pressure some avg10=%.2f avg60=%.2f avg300=%.2f", i.rec.psi.some.avg10,
			    i.rec.psi.some.avg60, i.rec.psi.some.avg300);
	if (i.rec.psi.full_valid)
		overlay_add(l, "  pressure full avg10=%.2f avg60=%.2f avg300=%.2f", i.rec.psi.full.avg10,
			    i.rec.psi.full.avg60, i.rec.psi.full.avg300);
	overlay_add(l, "memory.stat:");
	for (j = 0; j < i.stat.n_raw; j++)
		overlay_add(l, "  %-26s %llu", i.stat.raw[j].key, (unsigned long long)i.stat.raw[j].value);
	mcg_info_release(&i);
}

/* ---- set-limit, empty and async-reclaim in-process (the library, as the commands call it) ---- */

/* The screen handed to the action: the command it stands for, escaped. */
static void action_begin(const char *const *words)
{
	view_suspend();
	printf("\n$ memcgctl");
	for (; *words; words++)
		printf(" %s", out_esc(*words));
	printf("\n");
	fflush(stdout);
	/* SIGINT/SIGTERM stop the action (cli_interrupted), not top: unblocked meanwhile */
	cli_interrupted = 0;
	cli_trap_signals();
}

/* The action's signals are top's again (its signalfd); SIGTERM or SIGHUP meanwhile quits. */
static void action_block(struct loop *l)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (cli_interrupted == SIGTERM || cli_interrupted == SIGHUP)
		l->quit = true;
	cli_interrupted = 0;
}

static void action_end(struct loop *l, const char *cmd, int status)
{
	char line[8];

	action_block(l);
	snprintf(l->status, sizeof(l->status), "memcgctl %s: %s", cmd,
		 status == 0 ? "done" : "failed (see its output)");
	printf("[exit status %d] press Enter to return to top", status);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
	view_resume();
	view_resize();
}

static void action_unblock(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void action_recovered(const struct mcg_recovery *r, void *userdata)
{
	(void)userdata;
	cli_report_recovery(r, false, true);
}

/* L: mcg_limit_apply() on the target's hard limit. */
static void do_set_limit(struct loop *l)
{
	const char *words[] = {"set-limit", "--", l->target, l->pending, NULL};
	struct mcg_limit_spec spec = {0};
	struct mcg_limit_ops ops = {0};
	struct mcg_limit_result *res = calloc(1, sizeof(*res));
	struct mcg_cancel cancel;
	struct mcg_group *g = NULL;
	const char *name = out_esc(l->target);
	char a[48], b[48];
	int r, status;

	action_begin(words);
	if (!res) {
		cli_err("cannot set the limit of '%s': %s", name, strerror(ENOMEM));
		action_end(l, "set-limit", EXIT_FAILURE);
		return;
	}
	r = cli_open_group(l->cli, l->target, &g);
	if (r < 0) {
		free(res);
		action_end(l, "set-limit", cli_status(r));
		return;
	}
	spec.v[MCG_LK_MAX] = l->pending;
	ops.recovered = action_recovered;
	mcg_cancel_init(&cancel, 0, &cli_interrupted);
	action_unblock();
	r = mcg_limit_apply(g, &spec, &cancel, &ops, res);
	if (r == 0) {
		const struct mcg_limit_pre *p = &res->pre;

		printf("limit of '%s': %s -> %s\n", name, cli_size(p->limit, a, sizeof(a)),
		       cli_size(res->req.v[MCG_LK_MAX], b, sizeof(b)));
		status = 0;
	} else if (res->stage == MCG_LS_REQUEST) {
		cli_err("cannot set the limit of '%s' to '%s': %s", name, out_esc(l->pending),
			res->error.why[0] ? res->error.why : mcg_strerror(r));
		status = EXIT_USAGE;
	} else if (res->fail.conflict) {
		cli_report_conflict("set-limit of", mcg_group_path(g), res->fail.knob,
				    res->fail.found, res->fail.expected);
		status = EXIT_CONFLICT;
	} else {
		if (!cli_report_rundir(cli_ctx(l->cli), r))
			cli_err("cannot set the limit of '%s' to '%s': %s%s", name,
				out_esc(l->pending), mcg_strerror(r),
				res->stage == MCG_LS_APPLY && !res->fail.rolled_back
					? " (a value could not be put back: see 'memcgctl recover')"
					: "");
		status = res->stage == MCG_LS_APPLY && !res->fail.rolled_back ? EXIT_NOT_RESTORED
		       : r == -EINTR						     ? 128 + SIGINT
										     : cli_status(r);
	}
	mcg_group_close(g);
	free(res);
	action_end(l, "set-limit", status);
}

/* E: mcg_empty_run() on the target. */
static void do_empty(struct loop *l)
{
	const char *words[] = {"empty", "--", l->target, NULL};
	struct mcg_empty_opts o = {0};
	struct mcg_empty_result res;
	struct mcg_cancel cancel;
	struct mcg_group *g = NULL;
	const char *name = out_esc(l->target);
	char a[48], b[48], c[48];
	int r, status = 0;

	action_begin(words);
	r = cli_open_group(l->cli, l->target, &g);
	if (r < 0) {
		action_end(l, "empty", cli_status(r));
		return;
	}
	o.recovered = action_recovered;
	mcg_cancel_init(&cancel, 0, &cli_interrupted);
	action_unblock();
	r = mcg_empty_run(g, &o, &cancel, &res);
	if (r < 0) {
		if (!cli_report_rundir(cli_ctx(l->cli), r))
			cli_err("cannot empty '%s': %s", name,
				r == -MCG_E_LOCKED ? "another memcgctl is changing it" : mcg_strerror(r));
		status = cli_status(r);
	} else {
		printf("emptied '%s': usage %s -> %s, reclaimed %s in %u step(s): %s\n", name,
		       cli_size(res.usage_before, a, sizeof(a)), cli_size(res.usage_after, b, sizeof(b)),
		       cli_size(res.reclaimed, c, sizeof(c)), res.steps, mcg_empty_stop_name(res.stop));
		if (res.stop == MCG_EMPTY_CONFLICT) {
			cli_report_conflict("empty of", mcg_group_path(g), "memory.limit_in_bytes",
					    res.conflict_found, res.conflict_expected);
			status = EXIT_CONFLICT;
		} else if (res.stop == MCG_EMPTY_INTERRUPTED) {
			status = 128 + SIGINT;
		}
	}
	mcg_group_close(g);
	action_end(l, "empty", status);
}

/* As 'async-reclaim enable': how long A waits for a reclaim burst holding the cgroup's lock. */
#define ASYNC_LOCK_WAIT_MS 30000

/* A journal restored before the enable: counted for the status line (nothing printed over the view). */
static void async_recovered(const struct mcg_recovery *r, void *userdata)
{
	(void)r;
	(*(unsigned *)userdata)++;
}

static void draw(struct loop *l);

/*
 * A: mcg_async_enable_run() or mcg_async_disable_run() on the target, as
 * 'memcgctl async-reclaim enable|disable -- CGROUP' does (reclaimd started when
 * none runs, kept under /etc/memcgctl for the host's own state directory), the
 * view staying up: the outcome, in the command's words, on the status line.
 * SIGINT cuts the lock's wait short.
 */
static void do_async(struct loop *l)
{
	struct mcg_ctx *ctx = cli_ctx(l->cli);
	bool enable = !l->target_async;
	char statedir[4200], *msg = l->status, *name = mcg_escape_dup(l->target);
	size_t len = sizeof(l->status), n;
	unsigned restored = 0;
	int r;

	snprintf(l->status, sizeof(l->status), "%s async-reclaim on %s ...",
		 enable ? "enabling" : "disabling", name ? name : "?");
	draw(l);
	if (!name || !ctx || cli_async_statedir(l->cli, NULL, statedir, sizeof(statedir)) < 0) {
		snprintf(l->status, sizeof(l->status), "cannot %s async reclaim: %s",
			 enable ? "enable" : "disable",
			 !name ? strerror(ENOMEM) : "no state directory");
		free(name);
		view_resize();
		return;
	}
	cli_interrupted = 0;
	cli_trap_signals();
	action_unblock();
	if (enable) {
		struct mcg_async_enable_req req = {
			.persist = cli_async_persistable(l->cli, statedir),
			.start = cli_async_start,
			.start_data = l->cli,
			.recovered = async_recovered,
			.recovered_data = &restored,
		};
		struct mcg_async_enable_result res;
		struct mcg_cancel cancel;
		struct mcg_group *g;

		mcg_cancel_init(&cancel, ASYNC_LOCK_WAIT_MS, &cli_interrupted);
		req.cancel = &cancel;
		r = mcg_group_open(ctx, l->target, &g);
		if (r < 0) {
			snprintf(msg, len, "cannot open cgroup '%s': %s", name, mcg_strerror(r));
		} else {
			mcg_async_enable_run(g, statedir, &req, &res);
			cli_async_enable_msg(&req, &res, name, statedir, msg, len);
			mcg_group_close(g);
		}
	} else {
		struct mcg_async_disable_result res;

		r = mcg_async_disable_run(ctx, statedir, l->target,
					  cli_async_persistable(l->cli, statedir), &res);
		cli_async_disable_msg(r, &res, name, msg, len);
	}
	action_block(l);
	n = strlen(msg);
	if (restored)
		snprintf(msg + n, len - n, "; a journal left by an interrupted run was restored first");
	free(name);
	view_resize(); /* a warning the library or a start wrote to stderr is painted over */
}

/* ---- keys ---- */

static int k_quit(struct loop *l)
{
	(void)l;
	return R_QUIT;
}

static int k_help(struct loop *l);

static int k_pause(struct loop *l)
{
	l->paused = !l->paused;
	snprintf(l->status, sizeof(l->status), "%s", l->paused ? "paused" : "running");
	return R_REDRAW;
}

static int k_sort_next(struct loop *l)
{
	top_model_sort_next(&l->o->model, l->snap ? l->snap->version : 1, 1);
	return R_REDRAW;
}

static int k_sort_prev(struct loop *l)
{
	top_model_sort_next(&l->o->model, l->snap ? l->snap->version : 1, -1);
	return R_REDRAW;
}

static int k_reverse(struct loop *l)
{
	l->o->model.reverse = !l->o->model.reverse;
	return R_REDRAW;
}

static int k_tree(struct loop *l)
{
	l->o->model.flat = !l->o->model.flat;
	return R_REDRAW;
}

static int k_collapse(struct loop *l)
{
	const struct mcg_sample_row *r = selected(l);

	if (r)
		top_model_toggle_collapse(&l->o->model, r->id);
	return R_REDRAW;
}

static int k_filter(struct loop *l)
{
	l->input = IN_FILTER;
	snprintf(l->text, sizeof(l->text), "%s", l->o->model.filter);
	return R_REDRAW;
}

static int k_faster(struct loop *l)
{
	l->o->interval_ms = l->o->interval_ms > 200 ? l->o->interval_ms / 2 : 100;
	snprintf(l->status, sizeof(l->status), "interval %.2fs", (double)l->o->interval_ms / 1000);
	return R_RETIME | R_REDRAW;
}

static int k_slower(struct loop *l)
{
	l->o->interval_ms = l->o->interval_ms < 1800000 ? l->o->interval_ms * 2 : 3600000;
	snprintf(l->status, sizeof(l->status), "interval %.2fs", (double)l->o->interval_ms / 1000);
	return R_RETIME | R_REDRAW;
}

static int k_detail(struct loop *l)
{
	if (l->detail) {
		overlay_free(l);
		return R_REDRAW;
	}
	detail_fill(l);
	return R_REDRAW;
}

static int set_target(struct loop *l)
{
	const struct mcg_sample_row *r = selected(l);

	if (!r)
		return -1;
	{
		char *t = strdup(r->path);

		if (!t)
			return -1;
		free(l->target);
		l->target = t;
	}
	l->target_async = r->async == 1;
	return 0;
}

static int k_limit(struct loop *l)
{
	if (set_target(l) < 0)
		return R_NONE;
	l->input = IN_LIMIT;
	l->text[0] = '\0';
	return R_REDRAW;
}

static int k_empty(struct loop *l)
{
	if (set_target(l) < 0)
		return R_NONE;
	l->input = IN_CONFIRM;
	l->confirm = CF_EMPTY;
	return R_REDRAW;
}

static int k_async(struct loop *l)
{
	if (set_target(l) < 0)
		return R_NONE;
	l->input = IN_CONFIRM;
	l->confirm = CF_ASYNC;
	return R_REDRAW;
}

static int k_delayacct(struct loop *l)
{
	l->input = IN_CONFIRM;
	l->confirm = CF_DELAYACCT;
	return R_REDRAW;
}

static int k_owner(struct loop *l)
{
	if (!l->owner_off && !l->owner_any) {
		/* nothing to turn off: it comes by itself when a container does */
		snprintf(l->status, sizeof(l->status),
			 "no cgroup shown belongs to a container or a pod: no CONTAINER column");
		return R_REDRAW;
	}
	l->owner_off = !l->owner_off;
	owners_fill(l);
	snprintf(l->status, sizeof(l->status), "CONTAINER column %s",
		 l->owner_off ? "off (C: on)" : "on");
	return R_REDRAW;
}

static int k_refresh(struct loop *l)
{
	(void)l;
	return R_RESAMPLE;
}

/* ---- replay ---- */

/* Show frame F (taken): its snapshot, its events on the rows and in the status line. */
static void replay_show(struct loop *l, struct mcg_hist_frame *f)
{
	size_t i, j, o = 0;

	mcg_hist_frame_free(l->frame);
	l->frame = f;
	mcg_snapshot_unref(l->snap);
	l->snap = mcg_snapshot_ref(f->snap);
	free(l->mark);
	l->mark = calloc(f->snap->n_rows ? f->snap->n_rows : 1, 1);
	l->status[0] = '\0';
	owners_fill(l);
	for (i = 0; i < f->nev; i++) {
		const struct mcg_hist_event *e = &f->ev[i];

		for (j = 0; l->mark && j < f->snap->n_rows; j++)
			if (!strcmp(f->snap->rows[j].path, e->cgroup))
				l->mark[j] = 1;
		if (o + 1 < sizeof(l->status))
			o += (size_t)snprintf(l->status + o, sizeof(l->status) - o, "%s%s %s%s%s",
					      i ? "; " : "events: ", mcg_hist_event_name(e->type),
					      out_esc(e->cgroup), e->op ? " " : "", e->op ? e->op : "");
	}
	rebuild(l);
	if (l->detail) {
		size_t top = l->overlay_top;

		detail_fill(l);
		l->overlay_top = top < l->noverlay ? top : 0;
	}
}

/* A frame's events as one timeline mark: o an OOM, c memcgctl's change, e another; 0: none. */
static char timeline_mark(const struct mcg_hist_frame *f)
{
	char m = 0;
	size_t i;

	for (i = 0; i < f->nev; i++) {
		int t = f->ev[i].type;

		if (t == MCG_HEV_OOM_KILL || t == MCG_HEV_OOM || t == MCG_HEV_OOM_AUTOPSY)
			return 'o';
		m = t == MCG_HEV_CHANGE ? 'c' : m ? m : 'e';
	}
	return m;
}

/*
 * The store's span and its frames with events. The store keeps no index of
 * its events, so every frame is read, from the first on: TL_SLICE_MS at a time
 * (the first when the replay starts, the others while no key waits), the
 * reader put back at the frame shown after each; at most TL_MAX event frames.
 * Until it is through, the legend says up to when they are marked.
 */
#define TL_MAX 4096
#define TL_SLICE_MS 100

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Read on from l->tl_until for TL_SLICE_MS; true when something new is marked or it is through. */
static bool timeline_scan(struct loop *l)
{
	struct mcg_hist_frame *f;
	uint64_t t0 = mono_ms(), from;
	bool first = !l->tl, changed = false;
	int r;

	if (first) {
		if (mcg_hist_reader_span(l->o->hist, &l->span_first, &l->span_last) < 0)
			return false;
		l->tl = calloc(TL_MAX, sizeof(*l->tl));
		if (!l->tl)
			return false;
		l->tl_until = l->span_first;
		l->tl_pending = true;
	}
	if (!l->tl_pending)
		return false;
	from = first ? l->span_first : l->tl_until + 1;
	for (r = mcg_hist_seek(l->o->hist, from, &f); r == 0; r = mcg_hist_next(l->o->hist, &f)) {
		char c = timeline_mark(f);

		if (f->time_ns < from) { /* seek gave the last frame: nothing after */
			mcg_hist_frame_free(f);
			r = -ENOENT;
			break;
		}
		l->tl_until = f->time_ns;
		if (c && l->ntl == TL_MAX) {
			mcg_hist_frame_free(f);
			r = -ENOENT; /* as many as it marks */
			break;
		}
		if (c) {
			l->tl[l->ntl++] = (struct bar_mark){f->time_ns - l->span_first, c};
			changed = true;
		}
		mcg_hist_frame_free(f);
		if (mono_ms() - t0 >= TL_SLICE_MS)
			break;
	}
	if (r < 0 || l->tl_until >= l->span_last) {
		l->tl_pending = false;
		changed = true;
	}
	/* back to the frame shown */
	if (l->frame && mcg_hist_seek(l->o->hist, l->frame->time_ns, &f) == 0)
		mcg_hist_frame_free(f);
	return changed;
}

/* "05:50:01", or with the date when the span is longer than a day */
static void timeline_time(uint64_t ns, bool date, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, date ? "%m-%d %H:%M" : "%H:%M:%S", &tm);
}

/*
 * The header's timeline: the store from its first frame to its last, filled up
 * to the frame shown, its frames with events marked (o over c over e).
 */
static void timeline_line(struct loop *l, char *buf, size_t len)
{
	uint64_t span = l->span_last - l->span_first, at;
	bool date = span > 86400ULL * 1000000000ULL;
	char a[24], b[24], bar[BAR_MAX_CELLS * 4 + 3], part[64];
	const char *legend;
	struct bar_mark *m;
	int cells;
	size_t i, n = 0;

	buf[0] = '\0';
	if (!l->frame || !l->span_last)
		return;
	if (l->tl_pending) {
		char u[24];

		timeline_time(l->tl_until, date, u, sizeof(u));
		snprintf(part, sizeof(part), "  o OOM, c change, e event (up to %s)", u);
		legend = part;
	} else {
		legend = "  o OOM, c change, e event";
	}
	/* "timeline " and the spaces around the bar, and the last column kept free */
	cells = view_cols() - 2 * (int)strlen(date ? "12-31 23:59" : "23:59:59") - 9 - 2 - 2 - 1;
	if (cells - (int)strlen(legend) >= 20)
		cells -= (int)strlen(legend);
	else
		legend = "";
	if (cells > BAR_MAX_CELLS)
		cells = BAR_MAX_CELLS;
	if (cells < 10)
		return;
	m = malloc((l->ntl ? l->ntl : 1) * sizeof(*m));
	if (!m)
		return;
	/* later marks win their cell: e, then c, then o */
	for (i = 0; i < l->ntl; i++)
		if (l->tl[i].ch == 'e')
			m[n++] = l->tl[i];
	for (i = 0; i < l->ntl; i++)
		if (l->tl[i].ch == 'c')
			m[n++] = l->tl[i];
	for (i = 0; i < l->ntl; i++)
		if (l->tl[i].ch == 'o')
			m[n++] = l->tl[i];
	at = l->frame->time_ns > l->span_first ? l->frame->time_ns - l->span_first : 0;
	bar_render(bar, sizeof(bar), (unsigned)cells, at, span, m, n, bars_utf8());
	free(m);
	timeline_time(l->span_first, date, a, sizeof(a));
	timeline_time(l->span_last, date, b, sizeof(b));
	snprintf(buf, len, "timeline %s %s %s%s", a, bar, b, legend);
}

/* Move N frames (1, -1, larger steps), to the next/previous event (EV 1/-1), or say why not. */
static int replay_move(struct loop *l, long n, int ev)
{
	struct mcg_hist_frame *f;
	int r;

	if (ev)
		r = ev > 0 ? mcg_hist_next_event(l->o->hist, &f) : mcg_hist_prev_event(l->o->hist, &f);
	else
		r = mcg_hist_step(l->o->hist, n, &f);
	if (r < 0) {
		snprintf(l->status, sizeof(l->status), "%s", r == -ENOENT ? (n < 0 || ev < 0
			 ? "at the first recorded sample" : "at the last recorded sample")
			 : mcg_strerror(r));
		/* a search that ran to the end moved the reader: back to the frame shown */
		if (ev && l->frame && mcg_hist_seek(l->o->hist, l->frame->time_ns, &f) == 0) {
			replay_show(l, f);
			snprintf(l->status, sizeof(l->status), "no %s event",
				 ev > 0 ? "later" : "earlier");
		}
		return R_REDRAW;
	}
	replay_show(l, f);
	return R_REDRAW;
}

static int replay_key(struct loop *l, int k)
{
	switch (k) {
	case '.':
	case ' ':
		return replay_move(l, 1, 0);
	case ',':
		return replay_move(l, -1, 0);
	case ']':
		return replay_move(l, 12, 0);
	case '[':
		return replay_move(l, -12, 0);
	case '}':
		return replay_move(l, 720, 0);
	case '{':
		return replay_move(l, -720, 0);
	case 'n':
		return replay_move(l, 0, 1);
	case 'N':
		return replay_move(l, 0, -1);
	case 'g':
		l->input = IN_GOTO;
		l->text[0] = '\0';
		return R_REDRAW;
	case 'p':
	case '+':
	case '-':
	case 'L':
	case 'E':
	case 'A':
	case 'S':
		snprintf(l->status, sizeof(l->status), "replay: the recorded past cannot be changed");
		return R_REDRAW;
	}
	return -1;
}

static int replay_goto(struct loop *l)
{
	struct mcg_hist_frame *f;
	char why[96];
	uint64_t t;
	int r;

	l->input = IN_NONE;
	if (mcg_hist_time_parse(l->text, out_realtime_ns(), &t, why, sizeof(why)) < 0) {
		snprintf(l->status, sizeof(l->status), "invalid time: %s", why);
		return R_REDRAW;
	}
	r = mcg_hist_seek(l->o->hist, t, &f);
	if (r < 0) {
		snprintf(l->status, sizeof(l->status), "cannot go to '%s': %s", l->text,
			 mcg_strerror(r));
		return R_REDRAW;
	}
	replay_show(l, f);
	return R_REDRAW;
}

static const struct key keys[] = {
	{'q', "q", "quit", k_quit},
	{'h', "h ?", "this help", k_help},
	{'?', NULL, NULL, k_help},
	{'p', "p", "pause / resume sampling", k_pause},
	{' ', "space", "sample now", k_refresh},
	{'>', "> <", "sort by the next / previous column", k_sort_next},
	{'<', NULL, NULL, k_sort_prev},
	{'r', "r", "reverse the sort order", k_reverse},
	{'t', "t", "tree / flat list", k_tree},
	{'c', "c", "collapse / expand the selected cgroup", k_collapse},
	{'C', "C", "CONTAINER column on / off (on by itself when a cgroup has one)", k_owner},
	{'/', "/", "filter by name (empty: all)", k_filter},
	{'+', "+ -", "sample faster / slower (halve / double the interval)", k_faster},
	{'-', NULL, NULL, k_slower},
	{'d', "d Enter", "detail pane of the selected cgroup (everything 'show' prints)", k_detail},
	{VK_ENTER, NULL, NULL, k_detail},
	{'L', "L", "set the selected cgroup's limit (memcgctl set-limit, asks first)", k_limit},
	{'E', "E", "empty the selected cgroup (memcgctl empty, asks first)", k_empty},
	{'A', "A", "toggle async-reclaim (as memcgctl async-reclaim enable|disable, asks first)",
	 k_async},
	{'S', "S", "switch delay accounting on for stall times (kernel.task_delayacct, asks first)",
	 k_delayacct},
};

static int k_help(struct loop *l)
{
	size_t i;
	int c;

	overlay_free(l);
	l->overlay_title = " help (Esc, q or h: back)";
	overlay_add(l, "keys:");
	overlay_add(l, "  %-10s %s", "Up Down", "select; PgUp PgDn Home End");
	if (l->o->hist) {
		overlay_add(l, "replay (* marks a cgroup with an event in this sample):");
		overlay_add(l, "  %-10s %s", ". space ,", "next / previous sample");
		overlay_add(l, "  %-10s %s", "] [", "12 samples on / back (a minute at 5 s)");
		overlay_add(l, "  %-10s %s", "} {", "720 samples on / back (an hour at 5 s)");
		overlay_add(l, "  %-10s %s", "n N", "next / previous sample with an event");
		overlay_add(l, "  %-10s %s", "g", "go to a time: 03:12, -2h, yesterday 14:00, ISO 8601");
		overlay_add(l, "timeline: the store, filled to the sample shown; o OOM, c change, e event");
	}
	for (i = 0; i < (sizeof(keys) / sizeof(keys[0])); i++)
		if (keys[i].name)
			overlay_add(l, "  %-10s %s", keys[i].name, keys[i].help);
	overlay_add(l, "%s", "");
	overlay_add(l, "columns (- means the kernel does not provide the value; rates are per second):");
	for (c = 0; c < TOP_COL__COUNT; c++)
		if (!l->snap || top_col_on(c, l->snap->version))
			overlay_add(l, "  %-10s %s", top_col_header(c), top_cols[c].help);
	overlay_add(l, "  %-10s %s", "CONTAINER",
		    "the container (or, for a pod's own cgroup, the pod) that owns it; C");
	overlay_add(l, "  %-10s %s", mcg_header(MCG_F_NEEDED),
		    "memory the workload needs, as memcgctl size last found it (shown once one is kept)");
	return R_REDRAW;
}

/* ---- input lines ---- */

static int confirm_yes(struct loop *l)
{
	int r;

	l->input = IN_NONE;
	switch (l->confirm) {
	case CF_LIMIT:
		do_set_limit(l);
		return R_RESAMPLE;
	case CF_EMPTY:
		do_empty(l);
		return R_RESAMPLE;
	case CF_ASYNC:
		do_async(l);
		return R_RESAMPLE;
	case CF_DELAYACCT:
		r = mcg_delayacct_set(cli_ctx(l->cli), true);
		if (r < 0) {
			snprintf(l->status, sizeof(l->status),
				 "cannot set kernel.task_delayacct: %s", mcg_strerror(r));
		} else {
			snprintf(l->status, sizeof(l->status),
				 "delay accounting on: processes started from now on are measured");
			mcg_sampler_set_flags(l->s, MCG_SAMPLER_TASKSTATS);
			l->o->taskstats = true;
		}
		return R_RESAMPLE;
	}
	return R_REDRAW;
}

static int input_key(struct loop *l, int k)
{
	size_t len = strlen(l->text);

	if (l->input == IN_CONFIRM) {
		l->input = IN_NONE;
		if (k == 'y' || k == 'Y')
			return confirm_yes(l);
		snprintf(l->status, sizeof(l->status), "cancelled");
		return R_REDRAW;
	}
	if (k == VK_ESC) {
		l->input = IN_NONE;
		return R_REDRAW;
	}
	if (k == VK_BACKSPACE) {
		if (len)
			l->text[len - 1] = '\0';
	} else if (k == VK_ENTER) {
		if (l->input == IN_FILTER) {
			snprintf(l->o->model.filter, sizeof(l->o->model.filter), "%s", l->text);
			l->input = IN_NONE;
		} else if (l->input == IN_GOTO) {
			return replay_goto(l);
		} else if (l->input == IN_LIMIT) {
			if (!l->text[0]) {
				l->input = IN_NONE;
				return R_REDRAW;
			}
			snprintf(l->pending, sizeof(l->pending), "%s", l->text);
			l->input = IN_CONFIRM;
			l->confirm = CF_LIMIT;
		}
	} else if (k >= 32 && k < 127 && len + 1 < sizeof(l->text)) {
		l->text[len] = (char)k;
		l->text[len + 1] = '\0';
	}
	if (l->input == IN_FILTER) /* filter as you type */
		snprintf(l->o->model.filter, sizeof(l->o->model.filter), "%s", l->text);
	return R_REDRAW;
}

static int handle_key(struct loop *l, int k)
{
	size_t i, page = view_lines() > 10 ? (size_t)view_lines() - 10 : 1;

	if (l->input != IN_NONE)
		return input_key(l, k);
	if (l->overlay_title) {
		if (k == VK_UP && l->overlay_top)
			l->overlay_top--;
		else if (k == VK_DOWN && l->overlay_top + 1 < l->noverlay)
			l->overlay_top++;
		else if (k == VK_PGDN)
			l->overlay_top = l->overlay_top + page < l->noverlay ? l->overlay_top + page
									    : l->overlay_top;
		else if (k == VK_PGUP)
			l->overlay_top = l->overlay_top > page ? l->overlay_top - page : 0;
		else if (k == VK_ESC || k == 'q' || k == 'h' || k == '?' || k == 'd' || k == VK_ENTER)
			overlay_free(l);
		return R_REDRAW;
	}
	switch (k) {
	case VK_UP:
	case VK_DOWN:
	case VK_PGUP:
	case VK_PGDN:
	case VK_HOME:
	case VK_END:
		if (l->snap)
			top_model_move(&l->o->model, l->snap, l->rows, l->nrows,
				       k == VK_UP     ? -1
				       : k == VK_DOWN ? 1
				       : k == VK_PGUP ? -(long)page
				       : k == VK_PGDN ? (long)page
				       : k == VK_HOME ? -(long)l->nrows
						      : (long)l->nrows);
		return R_REDRAW;
	case VK_ESC:
		l->status[0] = '\0';
		return R_REDRAW;
	}
	if (l->o->hist) {
		int r = replay_key(l, k);

		if (r >= 0)
			return r;
	}
	for (i = 0; i < (sizeof(keys) / sizeof(keys[0])); i++)
		if (keys[i].key == k)
			return keys[i].fn(l);
	snprintf(l->status, sizeof(l->status), "unknown key: press h for help");
	return R_REDRAW;
}

/* ---- drawing ---- */

/*
 * Every counter is read for the rows on screen (and the selected one); the
 * others get usage and limits every sample and the rest in turn, about as
 * many per sample as there are rows on screen (at least ROTATE_MIN_ROWS), so
 * a refresh costs about the same at 100 or 10000 cgroups. The bound on their
 * age is in the header.
 */
#define ROTATE_MIN_ROWS 16

static void detail_for_screen(struct loop *l, size_t first, size_t shown)
{
	size_t i, n = 0, per, off;
	uint64_t *ids;
	const struct mcg_sample_row *sel = selected(l);

	if (!l->s)
		return; /* replay: nothing is read */
	ids = malloc((shown + 1) * sizeof(*ids));
	if (!ids)
		return;
	for (i = first; i < first + shown && i < l->nrows; i++)
		ids[n++] = l->snap->rows[l->rows[i]].id;
	if (sel)
		ids[n++] = sel->id;
	per = shown > ROTATE_MIN_ROWS ? shown : ROTATE_MIN_ROWS;
	off = l->snap->n_rows > n ? l->snap->n_rows - n : 0;
	l->rotate = (unsigned)((off + per - 1) / per);
	if (l->rotate < 1)
		l->rotate = 1;
	mcg_sampler_set_detail(l->s, ids, n, l->rotate);
	free(ids);
}

static void draw(struct loop *l)
{
	struct view_frame f = {0};
	size_t first, shown;
	struct top_header hh;
	char h0[512], prompt[8400];
	char stale[96], htl[BAR_MAX_CELLS * 4 + 128];
	int n = 0, i;

	if (!l->snap)
		return;
	if (l->rotate > 1)
		snprintf(stale, sizeof(stale), " (off screen: memory.stat every %u, <= %.0fs old)",
			 l->rotate, (double)l->rotate * (double)l->o->interval_ms / 1000);
	if (l->o->hist && l->frame) {
		char when[40];
		time_t t = (time_t)(l->frame->time_ns / 1000000000ULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
		snprintf(h0, sizeof(h0),
			 "memcgctl top --replay - %s - cgroup v%d - %zu cgroups - %.2fs since the sample before%s%s",
			 when, l->snap->version, l->snap->n_rows, l->snap->interval,
			 l->o->model.filter[0] ? " - filter: " : "", l->o->model.filter);
	} else {
		snprintf(h0, sizeof(h0), "memcgctl top - cgroup v%d - %zu cgroups - every %.2fs%s%s%s%s",
			 l->snap->version, l->snap->n_rows, (double)l->o->interval_ms / 1000,
			 l->rotate > 1 ? stale : "", l->paused ? " - PAUSED" : "",
			 l->o->model.filter[0] ? " - filter: " : "", l->o->model.filter);
	}
	f.header[n++] = h0;
	if (l->o->hist) {
		timeline_line(l, htl, sizeof(htl));
		if (htl[0])
			f.header[n++] = htl;
	}
	/* the host lines as top -b prints them (top/header.c), with the key that switches stall times on */
	top_header_host(l->snap, l->o->taskstats, " (S: on)", &hh);
	for (i = 0; i < hh.n; i++)
		f.header[n++] = hh.line[i];
	f.snap = l->snap;
	f.model = &l->o->model;
	f.rows = l->rows;
	f.nrows = l->nrows;
	f.sel = top_model_selected_pos(&l->o->model, l->snap, l->rows, l->nrows);
	f.mark = l->o->hist ? l->mark : NULL;
	f.trend = l->o->hist ? NULL : l->trend;
	f.owner = l->owner_any && !l->owner_off ? (const char *const *)l->owner : NULL;
	f.need = l->need_any ? l->need : NULL;
	f.status = l->status[0] ? l->status
		   : l->o->hist ? "h help  q quit  . , step  ] [ minute  } { hour  n N event  g go to  / filter  d detail"
				: "h help  q quit  < > sort  r reverse  / filter  t tree  d detail  L limit  E empty  A async";
	if (l->input == IN_FILTER) {
		snprintf(prompt, sizeof(prompt), "filter: %s", l->text);
		f.prompt = prompt;
	} else if (l->input == IN_GOTO) {
		snprintf(prompt, sizeof(prompt), "go to (03:12, -2h, yesterday 14:00; Esc cancels): %s",
			 l->text);
		f.prompt = prompt;
	} else if (l->input == IN_LIMIT) {
		snprintf(prompt, sizeof(prompt), "new limit for %s (512M, 80%%, max; Esc cancels): %s",
			 l->target, l->text);
		f.prompt = prompt;
	} else if (l->input == IN_CONFIRM) {
		switch (l->confirm) {
		case CF_LIMIT:
			snprintf(prompt, sizeof(prompt), "set the limit of %s to %s? (y/N)", l->target,
				 l->pending);
			break;
		case CF_EMPTY:
			snprintf(prompt, sizeof(prompt), "empty %s (reclaim all its memory)? (y/N)",
				 l->target);
			break;
		case CF_ASYNC:
			snprintf(prompt, sizeof(prompt), "%s async-reclaim on %s? (y/N)",
				 l->target_async ? "disable" : "enable", l->target);
			break;
		case CF_DELAYACCT:
			snprintf(prompt, sizeof(prompt),
				 "switch delay accounting on (sysctl kernel.task_delayacct=1, system-wide)? (y/N)");
			break;
		}
		f.prompt = prompt;
	}
	if (l->detail && !l->o->hist && l->trend) {
		const struct mcg_sample_row *r = selected(l);

		f.graph = r ? l->trend : NULL;
		f.graph_id = r ? r->id : 0;
	}
	if (l->overlay_title) {
		f.overlay_title = l->overlay_title;
		f.overlay = (const char *const *)l->overlay;
		f.noverlay = l->noverlay;
		f.overlay_top = l->overlay_top;
	}
	view_draw(&f, &first, &shown);
	detail_for_screen(l, first, shown);
}

static int sample(struct loop *l)
{
	struct mcg_snapshot *snap;
	int r;

	if (l->o->hist) {
		/* replay: frames move by keys only */
		if (l->o->first) {
			replay_show(l, l->o->first);
			timeline_scan(l);
			l->o->first = NULL;
		}
		return l->snap ? 0 : -ENOENT;
	}
	r = mcg_sampler_sample(l->s, &snap);

	if (r < 0) {
		snprintf(l->status, sizeof(l->status), "cannot sample: %s", mcg_strerror(r));
		return r;
	}
	mcg_snapshot_unref(l->snap);
	l->snap = snap;
	top_trend_push(&l->trend, snap); /* out of memory: the trend stops, the table goes on */
	owners_fill(l);
	needs_fill(l);
	rebuild(l);
	if (l->detail) {
		size_t top = l->overlay_top;

		detail_fill(l);
		l->overlay_top = top < l->noverlay ? top : 0;
	}
	return 0;
}

static void arm(int tfd, uint64_t ms)
{
	struct itimerspec it = {0};

	it.it_interval.tv_sec = (time_t)(ms / 1000);
	it.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
	it.it_value = it.it_interval;
	timerfd_settime(tfd, 0, &it, NULL);
}

int top_interactive(struct cli *cli, struct top_opts *o, struct mcg_sampler *s)
{
	struct loop l = {0};
	sigset_t mask, old;
	int tfd, sfd, r, status = 0;
	bool quit = false;

	l.cli = cli;
	l.o = o;
	l.s = s;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGWINCH);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0) {
		cli_err("cannot set up the event loop: %s", strerror(errno));
		status = EXIT_FAILURE;
		goto out;
	}
	if (sample(&l) < 0) {
		cli_err("cannot sample: %s", l.status);
		status = EXIT_FAILURE;
		goto out;
	}
	r = view_open();
	if (r < 0) {
		cli_err("cannot start the terminal view: %s (use -b for batch mode)", strerror(-r));
		status = EXIT_FAILURE;
		goto out;
	}
	if (!o->hist)
		arm(tfd, o->interval_ms);
	draw(&l);
	while (!quit) {
		struct pollfd p[3] = {{STDIN_FILENO, POLLIN, 0}, {tfd, POLLIN, 0}, {sfd, POLLIN, 0}};
		int todo = 0, k, n;

		/* --replay: the timeline's frames are read while no key waits */
		n = poll(p, 3, l.tl_pending ? 0 : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0) {
			if (timeline_scan(&l))
				draw(&l);
			continue;
		}
		if (p[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGWINCH) {
					view_resize();
					todo |= R_REDRAW;
				} else {
					quit = true;
				}
			}
		}
		if (p[1].revents & POLLIN) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) > 0 && !l.paused)
				todo |= R_RESAMPLE;
		}
		if (p[0].revents & (POLLHUP | POLLERR))
			quit = true;
		if (p[0].revents & POLLIN) {
			while ((k = view_getkey()) >= 0) {
				if (k == VK_RESIZE) {
					todo |= R_REDRAW;
					continue;
				}
				todo |= handle_key(&l, k);
				if (todo & R_QUIT)
					break;
			}
		}
		if ((todo & R_QUIT) || l.quit)
			break;
		if (todo & R_RETIME)
			arm(tfd, o->interval_ms);
		if (todo & R_RESAMPLE)
			sample(&l);
		else if (todo & R_REDRAW)
			rebuild(&l);
		if (todo)
			draw(&l);
	}
	view_close();
out:
	overlay_free(&l);
	free(l.target);
	mcg_hist_frame_free(l.frame);
	free(l.mark);
	free(l.tl);
	top_trend_free(l.trend);
	mcg_strv_free(l.owner, l.nowner);
	free(l.need);
	mcg_snapshot_unref(l.snap);
	free(l.rows);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}
