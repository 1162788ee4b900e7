/* cmd-oom.c: "memcgctl oom": the OOM kills the recorder explained (from the history store), or caught live with --watch. */
#include "memcgctl.h"
#include "cli-common.h"
#include "oom-watch.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct oom_args {
	const char *store, *since, *cgroup, *exec;
	bool watch;
	long count;
};

enum { OPT_STORE = 0x300, OPT_SINCE, OPT_WATCH, OPT_EXEC };

static const struct argp_option oom_options[] = {
	{"since", OPT_SINCE, "TIME", 0,
	 "Kills from TIME on: 03:12, -2h, 'yesterday 14:00', 2026-11-30T03:12:00Z (default: all "
	 "the store holds)",
	 0},
	{"store", OPT_STORE, "DIR", 0, "The history store (default /var/lib/memcgctl/history)", 0},
	{"watch", OPT_WATCH, NULL, 0,
	 "Catch kills as they happen and print each (nothing is stored: 'memcgctl record' stores "
	 "them)",
	 0},
	{"count", 'n', "COUNT", 0, "With --watch: stop after COUNT kills", 0},
	{"exec", OPT_EXEC, "PROG", 0,
	 "With --watch: run PROG (an absolute path; no shell, no arguments) for each early warning "
	 "and each kill, with MEMCGCTL_EVENT, MEMCGCTL_CGROUP and the numbers in its environment; "
	 "killed after 10 s",
	 0},
	{0},
};

static error_t oom_parse(int key, char *arg, struct argp_state *state)
{
	struct oom_args *a = state->input;

	switch (key) {
	case OPT_SINCE:
		a->since = arg;
		break;
	case OPT_STORE:
		a->store = arg;
		break;
	case OPT_WATCH:
		a->watch = true;
		break;
	case 'n':
		a->count = cli_arg_long(state, "--count", arg, 1, 100000000);
		break;
	case OPT_EXEC:
		a->exec = cli_arg_exec(state, arg);
		break;
	case ARGP_KEY_END:
		if (a->count && !a->watch)
			argp_error(state, "--count needs --watch");
		if (a->exec && !a->watch)
			argp_error(state, "--exec needs --watch");
		if (a->watch && (a->since || a->store))
			argp_error(state, "--watch reads the kernel, not the store: no --since or --store");
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp oom_argp = {
	oom_options, oom_parse, "[CGROUP]",
	"Show each OOM kill 'memcgctl record' caught (of CGROUP and the cgroups below it, as the "
	"OOM cgroup or the victim's): when, which cgroup's limit was hit and which process died "
	"(pid, comm, uid, its RSS from the kernel's report), what the cgroup held just before "
	"(the kernel's own memory.stat dump when it printed one, else the recorder's read at the "
	"OOM notification), the limit and its distance, what memcgctl changed on the cgroup in the "
	"minute before, and why reclaim could not help. The cgroup may be gone: the autopsy does "
	"not need it. With --watch, catch kills live from /dev/kmsg and the cgroups' OOM "
	"notifications instead.",
	cli_common_children, NULL, NULL,
};

/* CGROUP (as typed, "/" or "web" or "/a/b") is P or an ancestor of it. */
static bool under(const char *cgroup, const char *p)
{
	size_t l;

	if (!cgroup)
		return true;
	if (cgroup[0] == '/')
		cgroup++;
	l = strlen(cgroup);
	while (l && cgroup[l - 1] == '/')
		l--;
	if (!l)
		return true;
	if (!p || p[0] != '/')
		return false;
	return !strncmp(p + 1, cgroup, l) && (p[1 + l] == '\0' || p[1 + l] == '/');
}

/* memcgctl's own changes in the minute before a kill: kept from the frames read so far */
#define CHANGE_WINDOW_NS (60ULL * 1000000000ULL)
#define CHANGES_KEPT 64

struct change {
	uint64_t time_ns;
	char *cgroup, *op, *detail;
};

struct oom_out {
	struct change ch[CHANGES_KEPT];
	size_t nch, next;
	unsigned shown;
};

static void change_keep(struct oom_out *o, const struct mcg_hist_event *e)
{
	struct change *c = &o->ch[o->next];

	free(c->cgroup);
	free(c->op);
	free(c->detail);
	c->time_ns = e->time_ns;
	c->cgroup = e->cgroup ? strdup(e->cgroup) : NULL;
	c->op = e->op ? strdup(e->op) : NULL;
	c->detail = e->detail ? strdup(e->detail) : NULL;
	o->next = (o->next + 1) % CHANGES_KEPT;
	if (o->nch < CHANGES_KEPT)
		o->nch++;
}

static void changes_free(struct oom_out *o)
{
	size_t i;

	for (i = 0; i < CHANGES_KEPT; i++) {
		free(o->ch[i].cgroup);
		free(o->ch[i].op);
		free(o->ch[i].detail);
	}
}

/* A change on the OOM cgroup, its ancestors or the victim's cgroup within the minute before. */
static bool change_relevant(const struct change *c, const struct mcg_oom_autopsy *a)
{
	if (!c->cgroup || c->time_ns > a->time_ns || a->time_ns - c->time_ns > CHANGE_WINDOW_NS)
		return false;
	return (a->oom_cgroup[0] && (under(c->cgroup, a->oom_cgroup))) ||
	       (a->victim_cgroup[0] && !strcmp(c->cgroup, a->victim_cgroup));
}

static void print_json(struct oom_out *o, const struct mcg_oom_autopsy *a)
{
	char t[40];
	unsigned k;
	size_t i;

	jw_open_object(stdout, NULL);
	jw_u64(stdout, "timestamp_ns", a->time_ns);
	jw_string(stdout, "time", mcg_hist_time_format(a->time_ns, t, sizeof(t)));
	jw_string(stdout, "scope", mcg_oom_scope_name(a->scope));
	if (a->oom_cgroup[0])
		jw_string(stdout, "oom_cgroup", a->oom_cgroup);
	if (a->victim_cgroup[0])
		jw_string(stdout, "victim_cgroup", a->victim_cgroup);
	if (a->unit[0])
		jw_string(stdout, "unit", a->unit);
	if (a->pid > 0)
		jw_i64(stdout, "pid", a->pid);
	if (a->uid >= 0)
		jw_i64(stdout, "uid", a->uid);
	jw_string(stdout, "comm", a->comm);
	jw_u64(stdout, "anon_rss_bytes", a->anon_rss);
	jw_u64(stdout, "file_rss_bytes", a->file_rss);
	jw_u64(stdout, "shmem_rss_bytes", a->shmem_rss);
	jw_u64(stdout, "total_vm_bytes", a->total_vm);
	jw_u64(stdout, "pgtables_bytes", a->pgtables);
	jw_i64(stdout, "oom_score_adj", a->oom_score_adj);
	if (a->limit_name)
		jw_string(stdout, "limit_name", a->limit_name);
	jw_bytes(stdout, "limit_bytes", a->limit, a->breakdown != MCG_OOM_BD_NONE);
	jw_bytes(stdout, "usage_bytes", a->usage, a->breakdown != MCG_OOM_BD_NONE);
	jw_bytes(stdout, "swap_limit_bytes", a->swap_limit, a->breakdown != MCG_OOM_BD_NONE);
	jw_string(stdout, "breakdown", mcg_oom_breakdown_name(a->breakdown));
	if (a->breakdown == MCG_OOM_BD_SAMPLE)
		jw_u64(stdout, "breakdown_age_us", a->age_us);
	if (a->has_growth) {
		jw_i64(stdout, "usage_growth_bytes_per_second", a->growth_bps);
		jw_u64(stdout, "usage_growth_window_us", a->growth_us);
	}
	if (a->kmsg_seq)
		jw_u64(stdout, "kmsg_seq", a->kmsg_seq);
	jw_string(stdout, "explanation", a->why);
	jw_open_object(stdout, "record");
	/* by the names table's keys (mcg_value_names), as dump's rows */
	mcg_keyset_foreach(k, &a->rec.valid)
		jw_u64(stdout, mcg_json_key(k), a->rec.v[k] * mcg_value_names(k)->scale);
	jw_close_object(stdout);
	jw_open_array(stdout, "processes");
	for (i = 0; i < a->nprocs; i++) {
		jw_open_object(stdout, NULL);
		jw_i64(stdout, "pid", a->procs[i].pid);
		if (a->procs[i].uid >= 0)
			jw_i64(stdout, "uid", a->procs[i].uid);
		jw_u64(stdout, "rss_bytes", a->procs[i].rss);
		jw_string(stdout, "comm", a->procs[i].name);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
	jw_open_array(stdout, "changes_before");
	for (i = 0; i < o->nch; i++) {
		const struct change *c = &o->ch[(o->next + CHANGES_KEPT - o->nch + i) % CHANGES_KEPT];

		if (!change_relevant(c, a))
			continue;
		jw_open_object(stdout, NULL);
		jw_u64(stdout, "timestamp_ns", c->time_ns);
		jw_string(stdout, "cgroup", c->cgroup);
		if (c->op)
			jw_string(stdout, "op", c->op);
		if (c->detail)
			jw_string(stdout, "detail", c->detail);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
	jw_close_object(stdout);
	jw_end(stdout);
}

static void print_text(struct oom_out *o, const struct mcg_oom_autopsy *a)
{
	char t[40], s1[32], s2[32], s3[32];
	size_t i;

	if (o->shown)
		putchar('\n');
	printf("%s  %s OOM kill", mcg_hist_time_format(a->time_ns, t, sizeof(t)),
	       mcg_oom_scope_name(a->scope));
	if (a->oom_cgroup[0])
		printf(" in %s", out_esc(a->oom_cgroup));
	putchar('\n');
	printf("  victim: pid %lld (%s)", (long long)a->pid, out_esc(a->comm));
	if (a->uid >= 0)
		printf(" uid %lld", (long long)a->uid);
	if (a->victim_cgroup[0])
		printf(" in %s", out_esc(a->victim_cgroup));
	if (a->unit[0])
		printf(" (unit %s)", out_esc(a->unit));
	putchar('\n');
	printf("  its rss: anon %s, file %s, shmem %s\n", mcg_size_format(a->anon_rss, s1, sizeof(s1)),
	       mcg_size_format(a->file_rss, s2, sizeof(s2)),
	       mcg_size_format(a->shmem_rss, s3, sizeof(s3)));
	if (a->breakdown != MCG_OOM_BD_NONE) {
		printf("  cgroup: usage %s", mcg_size_format(a->usage, s1, sizeof(s1)));
		if (a->limit != MCG_MAX)
			printf(" of %s %s", a->limit_name ? a->limit_name : "limit",
			       mcg_size_format(a->limit, s2, sizeof(s2)));
		if (mcg_record_has(&a->rec, MCG_K_ANON))
			printf(", anon %s", mcg_size_format(a->rec.v[MCG_K_ANON], s1, sizeof(s1)));
		if (mcg_record_has(&a->rec, MCG_K_FILE))
			printf(", file %s", mcg_size_format(a->rec.v[MCG_K_FILE], s1, sizeof(s1)));
		if (mcg_record_has(&a->rec, MCG_K_KERNEL))
			printf(", kernel %s", mcg_size_format(a->rec.v[MCG_K_KERNEL], s1, sizeof(s1)));
		if (mcg_record_has(&a->rec, MCG_K_SHMEM))
			printf(", shmem %s", mcg_size_format(a->rec.v[MCG_K_SHMEM], s1, sizeof(s1)));
		printf(" (%s", a->breakdown == MCG_OOM_BD_KERNEL ? "the kernel's report" : "read");
		if (a->breakdown == MCG_OOM_BD_SAMPLE)
			printf(" %llu ms before", (unsigned long long)(a->age_us / 1000));
		printf(")\n");
	}
	if (a->nprocs) {
		printf("  largest:");
		for (i = 0; i < a->nprocs && i < 3; i++)
			printf("%s %s (pid %lld) %s", i ? "," : "", out_esc(a->procs[i].name),
			       (long long)a->procs[i].pid,
			       mcg_size_format(a->procs[i].rss, s1, sizeof(s1)));
		if (a->nprocs > 3)
			printf(", ...");
		putchar('\n');
	}
	for (i = 0; i < o->nch; i++) {
		const struct change *c = &o->ch[(o->next + CHANGES_KEPT - o->nch + i) % CHANGES_KEPT];

		if (!change_relevant(c, a))
			continue;
		printf("  memcgctl before: %s %s %s (%llu s before)\n", c->op ? out_esc(c->op) : "-",
		       out_esc(c->cgroup), c->detail ? out_esc(c->detail) : "",
		       (unsigned long long)((a->time_ns - c->time_ns) / 1000000000ULL));
	}
	printf("  why: %s\n", out_esc(a->why));
}

static void show(struct cli *cli, struct oom_out *o, const struct mcg_oom_autopsy *a)
{
	if (cli->json)
		print_json(o, a);
	else
		print_text(o, a);
	o->shown++;
	fflush(stdout);
}

/* ---- the early warning, printed ---- */

static void print_warning(struct cli *cli, struct oom_out *o, const struct mcg_oom_warning *wn)
{
	char t[40];

	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_string(stdout, "event", "oom_warning");
		jw_u64(stdout, "timestamp_ns", wn->time_ns);
		jw_string(stdout, "time", mcg_hist_time_format(wn->time_ns, t, sizeof(t)));
		jw_string(stdout, "cgroup", wn->cgroup);
		if (wn->unit[0])
			jw_string(stdout, "unit", wn->unit);
		jw_u64(stdout, "usage_bytes", wn->usage);
		jw_u64(stdout, "limit_bytes", wn->limit);
		jw_string(stdout, "limit_name", wn->limit_name);
		jw_u64(stdout, "reclaimable_bytes", wn->reclaimable);
		jw_string(stdout, "signal", wn->signal);
		jw_u64(stdout, "signal_rise", wn->events);
		jw_u64(stdout, "interval_us", wn->interval_us);
		if (wn->has_psi_full)
			jw_u64(stdout, "psi_full_us", wn->psi_full_us);
		jw_string(stdout, "explanation", wn->why);
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		if (o->shown)
			putchar('\n');
		printf("%s  OOM warning in %s", mcg_hist_time_format(wn->time_ns, t, sizeof(t)),
		       out_esc(wn->cgroup));
		if (wn->unit[0])
			printf(" (unit %s)", out_esc(wn->unit));
		printf("\n  why: %s\n", out_esc(wn->why));
	}
	o->shown++;
	fflush(stdout);
}

static int run_watch(struct cli *cli, const struct oom_args *a)
{
	struct oom_out o = {0};
	struct cli_oom_watch *w;
	struct mcg_ctx *ctx = cli_ctx(cli);
	struct mcg_oom_autopsy *au;
	struct mcg_oom_warning wn;
	struct cli_oom_hooks *hs = NULL;
	long kills = 0;
	int r;

	if (!ctx)
		return EXIT_FAILURE;
	r = cli_oom_watch_start(ctx, a->cgroup, false, &w);
	if (r < 0)
		return EXIT_FAILURE;
	au = malloc(sizeof(*au));
	if (!au || (a->exec && !(hs = cli_oom_hooks_new(a->exec)))) {
		free(au);
		cli_oom_watch_stop(w);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	while (!cli_interrupted) {
		struct pollfd p[1 + CLI_OOM_HOOK_MAX] = {{.fd = cli_oom_watch_fd(w), .events = POLLIN}};
		int ms = cli_oom_watch_timeout(w), hm = cli_oom_hooks_timeout(hs);
		nfds_t np = 1 + cli_oom_hooks_fds(hs, p + 1, CLI_OOM_HOOK_MAX);

		if (hm >= 0 && (ms < 0 || hm < ms))
			ms = hm;
		if (poll(p, np, ms) < 0)
			continue;
		cli_oom_hooks_reap(hs);
		r = cli_oom_watch_run(w);
		if (r < 0)
			break;
		/* the watcher keeps to CGROUP's subtree (and global OOMs, everyone's) itself */
		while (cli_oom_watch_next_warning(w, &wn) == 0) {
			print_warning(cli, &o, &wn);
			cli_oom_hooks_run(hs, NULL, &wn);
		}
		while (cli_oom_watch_next(w, au) == 0) {
			show(cli, &o, au);
			cli_oom_hooks_run(hs, au, NULL);
			if (a->count && ++kills >= a->count)
				goto out;
		}
	}
out:
	cli_oom_hooks_finish(hs);
	free(au);
	cli_oom_watch_stop(w);
	return r < 0 ? EXIT_FAILURE : EXIT_OK;
}

static void on_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	unsigned *bad = ud;

	(*bad)++;
	cli_warn("history segment '%s' frame %u (offset %llu): %s; skipped", out_esc(segment), frame,
		 (unsigned long long)off, why);
}

static int run_oom(struct cli *cli, int argc, char **argv)
{
	struct oom_args a = {0};
	struct oom_out o = {0};
	struct mcg_hist_reader *r = NULL;
	struct mcg_hist_frame *f;
	struct mcg_oom_autopsy *au;
	uint64_t now = out_realtime_ns(), since = 0, from;
	unsigned bad = 0, corrupt = 0;
	char *cgroup_path = NULL, **named = NULL;
	size_t nnamed = 0, capnamed = 0, j;
	const char *store, *by_name = NULL;
	char why[160];
	int rc, status = EXIT_OK;

	rc = cli_parse(&oom_argp, argc, argv, &a);
	if (rc)
		return rc;
	if (a.watch)
		return run_watch(cli, &a);
	if (a.since && mcg_hist_time_parse(a.since, now, &since, why, sizeof(why)) < 0) {
		cli_err("invalid --since '%s': %s", out_esc(a.since), why);
		return EXIT_USAGE;
	}
	/*
	 * A name (web.service, docker:web, pid:N) is the path it resolves to
	 * now; one that does not resolve is looked for in the store (a
	 * container gone: the cgroups stored under that name), else it is a
	 * usage error. A relative path that is gone is taken as typed (its
	 * kills are still in the store).
	 */
	if (a.cgroup && a.cgroup[0] != '/') {
		struct mcg_ctx *ctx = cli_ctx(cli);
		struct mcg_group *g;

		if (!ctx)
			return EXIT_FAILURE;
		if (mcg_group_open(ctx, a.cgroup, &g) == 0) {
			cgroup_path = strdup(mcg_group_path(g));
			mcg_group_close(g);
			if (cgroup_path)
				a.cgroup = cgroup_path;
		} else if (mcg_container_spec(a.cgroup) || mcg_unit_spec(ctx, a.cgroup) ||
			   !strncmp(a.cgroup, "pid:", 4)) {
			by_name = a.cgroup;
		}
	}
	store = a.store ? a.store : MCG_HIST_DEFAULT_DIR;
	rc = mcg_hist_reader_open(store, on_bad, &bad, &r);
	if (rc < 0) {
		cli_err("cannot open history store '%s': %s", out_esc(store), mcg_strerror(rc));
		free(cgroup_path);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_FAILURE;
	}
	au = malloc(sizeof(*au));
	if (!au) {
		mcg_hist_reader_free(r);
		free(cgroup_path);
		cli_err("cannot read history store '%s': %s", out_esc(store), mcg_strerror(-ENOMEM));
		return EXIT_FAILURE;
	}
	/* from a minute earlier: memcgctl's changes before the first kill shown */
	from = since > CHANGE_WINDOW_NS ? since - CHANGE_WINDOW_NS : 0;
	/* by a name: every frame, for the cgroups stored under it (from the store's start) */
	for (rc = mcg_hist_seek(r, by_name ? 0 : from, &f); rc == 0;
	     rc = by_name ? mcg_hist_next(r, &f) : mcg_hist_next_event(r, &f)) {
		size_t i;

		for (i = 0; by_name && f->snap && f->names && i < f->snap->n_rows; i++) {
			const char *p = f->snap->rows[i].path;

			if (!f->names[i] || strcmp(f->names[i], by_name))
				continue;
			for (j = 0; j < nnamed && strcmp(named[j], p); j++)
				;
			if (j < nnamed || mcg_grow(&named, &capnamed, nnamed, sizeof(*named), 4) < 0 ||
			    !(named[nnamed] = strdup(p)))
				continue;
			nnamed++;
		}
		for (i = 0; i < f->nev; i++) {
			const struct mcg_hist_event *e = &f->ev[i];

			if (e->type == MCG_HEV_CHANGE) {
				change_keep(&o, e);
				continue;
			}
			if (e->type != MCG_HEV_OOM_AUTOPSY || e->time_ns < since)
				continue;
			if (mcg_oom_autopsy_from_event(e, au) < 0) {
				corrupt++;
				continue;
			}
			if (by_name) {
				bool hit = !strcmp(au->unit, by_name);

				for (j = 0; j < nnamed && !hit; j++)
					hit = under(named[j], au->oom_cgroup) ||
					      under(named[j], au->victim_cgroup);
				if (!hit)
					continue;
			} else if (!under(a.cgroup, au->oom_cgroup) &&
				   !under(a.cgroup, au->victim_cgroup)) {
				continue;
			}
			show(cli, &o, au);
		}
		mcg_hist_frame_free(f);
	}
	if (rc < 0 && rc != -ENOENT) {
		cli_err("cannot read history store '%s': %s", out_esc(store), mcg_strerror(rc));
		status = EXIT_FAILURE;
	}
	if (corrupt) {
		cli_warn("%u OOM events of the store were not memcgctl's: skipped", corrupt);
		status = EXIT_FAILURE;
	}
	if (by_name && !nnamed && !o.shown && status == EXIT_OK) {
		struct mcg_group *g;
		int e = cli_open_group(cli, by_name, &g); /* says why, as every command does */

		if (e == 0) {
			mcg_group_close(g); /* it appeared meanwhile: none of its kills recorded */
		} else {
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (!o.shown && !cli->json && status == EXIT_OK)
		printf("no OOM kill recorded%s\n", a.since ? " since then" : "");
out:
	for (j = 0; j < nnamed; j++)
		free(named[j]);
	free(named);
	free(au);
	free(cgroup_path);
	changes_free(&o);
	mcg_hist_reader_free(r);
	fflush(stdout);
	if (bad && status == EXIT_OK)
		status = EXIT_FAILURE;
	return status;
}

const struct mcg_cmd cmd_oom = {
	.name = "oom",
	.summary = "Show the OOM kills the recorder explained (or catch them live)",
	.argp = &oom_argp,
	.run = run_oom,
};
