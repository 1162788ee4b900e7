/* cmd-size.c: "memcgctl size": how much memory a workload needs, probed online with pressure feedback. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "journal-report.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { OPT_PRESSURE = 0x200, OPT_REFAULTS, OPT_FLOOR, OPT_TIMEOUT, OPT_INTERVAL, OPT_WATCH };

/* A steady service is sized within 15 minutes (the bench's goal); a budget by default. */
#define SIZE_DEFAULT_TIMEOUT_MS (15 * 60 * 1000ULL)

struct size_args {
	const char *cgroup;
	const char *pressure, *refaults, *floor, *timeout;
	uint64_t interval_ms;
	bool dry_run, watch;
};

static const struct argp_option size_options[] = {
	{"pressure", OPT_PRESSURE, "PCT", 0,
	 "Target: the share of wall time stalled on memory the probe may cause (default 0.1%)", 0},
	{"refaults", OPT_REFAULTS, "PCT", 0,
	 "Target where only refaults are seen: the share of reclaimed memory that may come back "
	 "(default 10%)",
	 0},
	{"floor", OPT_FLOOR, "SIZE", 0, "Never probe below SIZE", 0},
	{"timeout", OPT_TIMEOUT, "DURATION", 0,
	 "Time budget (default 15m; none with --watch): then restore and print the answer so far",
	 0},
	{"interval", OPT_INTERVAL, "DURATION", 0, "One step per DURATION (default 1s)", 0},
	{"dry-run", 'n', NULL, 0,
	 "Measure the baseline, the signal and the floor, print the first step; change nothing", 0},
	{"watch", OPT_WATCH, NULL, 0,
	 "Keep probing after the answer is found and print it each time it moves", 0},
	{0},
};

static error_t size_parse(int key, char *arg, struct argp_state *state)
{
	struct size_args *a = state->input;

	switch (key) {
	case OPT_PRESSURE:
		a->pressure = arg;
		break;
	case OPT_REFAULTS:
		a->refaults = arg;
		break;
	case OPT_FLOOR:
		a->floor = arg;
		break;
	case OPT_TIMEOUT:
		a->timeout = arg;
		break;
	case OPT_INTERVAL:
		a->interval_ms = cli_arg_interval(state, arg);
		break;
	case 'n':
		a->dry_run = true;
		break;
	case OPT_WATCH:
		a->watch = true;
		break;
	case ARGP_KEY_END:
		cli_need_cgroup(state, a->cgroup);
		if (a->dry_run && a->watch)
			argp_error(state, "--dry-run takes no --watch: a dry run does not probe");
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp size_argp = {
	size_options, size_parse, "CGROUP",
	"Find how much memory CGROUP's running workload needs: reclaim a little at a time "
	"(cgroup v2: memory.reclaim; v1: the limit lowered below usage for one step and written "
	"back, journalled first), watch what it costs (v2: the cgroup's memory.pressure; v1: the "
	"tasks' reclaim and thrashing delays when kernel.task_delayacct is on, else refaults), back "
	"off when the cost passes the target, and print the size at which taking more costs, "
	"what is cold, and the limit to set. Never probes below what reclaim cannot free (anon "
	"without swap, unevictable, kernel memory). SIGINT/SIGTERM stop within a step and restore "
	"everything; after SIGKILL 'memcgctl recover' (or the next command) restores the journal. "
	"Another writer's change is kept. Exit status (memcgctl(8)): 0 answer found, 1 failure, 2 "
	"stopped early (time budget, the cgroup's own limit events, an OOM kill) with the answer "
	"so far, 3 another writer changed the limit, 4 a value not put back (run 'memcgctl "
	"recover'), 64 usage error, 75 another memcgctl holds the lock, 130/143 interrupted.",
	cli_common_children, NULL, NULL,
};

/* A percentage "0.1%", "0.1" (both 0.1%) -> fraction; -1 on bad input. */
static double parse_pct(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || !(v > 0) || v >= 100 || !isfinite(v))
		return -1;
	return v / 100.0;
}

struct progress {
	bool bar;   /* a terminal: redraw one line */
	bool lines; /* not a terminal, -v: a plain line per tick */
	bool drawn;
	bool raw;
	const char *path;
};

static void on_progress(void *userdata, const struct mcg_size_progress *p)
{
	struct progress *pr = userdata;
	char a[32], b[32], c[32];

	if (!pr->bar && !pr->lines)
		return;
	mcg_size_format(p->usage, a, sizeof(a));
	mcg_size_format(p->needed, b, sizeof(b));
	mcg_size_format(p->step, c, sizeof(c));
	if (pr->bar) {
		printf("\rsize: usage %s  needed %s  %s %.3f%s  step %s  %u adj  %.0f s\033[K", a, b,
		       mcg_size_signal_name(p->sig), p->cost_raw * 100, "%", c, p->adjustments,
		       (double)p->elapsed_ns / 1e9);
		fflush(stdout);
		pr->drawn = true;
	} else {
		fprintf(stderr, "memcgctl: size: usage %s, needed %s, %s %.3f%%, step %s, %u adjustments\n",
			a, b, mcg_size_signal_name(p->sig), p->cost_raw * 100, c, p->adjustments);
	}
}

static void clear_bar(struct progress *pr)
{
	if (pr->drawn) {
		printf("\r\033[K");
		fflush(stdout);
		pr->drawn = false;
	}
}

/* Watch mode: one line each time the answer moves. */
static void on_answer(void *userdata, const struct mcg_size_answer *a)
{
	struct progress *pr = userdata;
	char n[32], lo[32], hi[32], ts[32];
	time_t now = time(NULL);
	struct tm tm;

	clear_bar(pr);
	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	printf("%s %s: needs %s (band %s .. %s)\n", ts, out_esc(pr->path),
	       cli_size(a->needed, n, sizeof(n)), cli_size(a->band_lo, lo, sizeof(lo)),
	       cli_size(a->band_hi, hi, sizeof(hi)));
	fflush(stdout);
}

static void recovered(const struct mcg_recovery *r, void *userdata)
{
	(void)userdata;
	cli_report_recovery(r, false, true);
}

/* The size to set: the band's top, in whole MiB up (requests and MemoryHigh= take Mi/M). */
static uint64_t advice_mib(const struct mcg_size_result *res)
{
	uint64_t mib = 1024 * 1024;

	return (res->ans.needed + mib - 1) / mib;
}

static const char *signal_why(const struct mcg_size_result *res, int version, char *buf, size_t len)
{
	switch (res->sig) {
	case MCG_SIZE_SIG_PSI:
		return "the cgroup's memory.pressure (some)";
	case MCG_SIZE_SIG_DELAYS:
		return "the tasks' reclaim and thrashing delays (taskstats), summed over the cgroup";
	case MCG_SIZE_SIG_REFAULTS:
		break;
	}
	if (version == 2)
		snprintf(buf, len, "refaults only (memory.pressure cannot be read)");
	else if (res->delayacct == 0)
		snprintf(buf, len, "refaults only (cgroup v1 has no per-cgroup PSI and delay "
				   "accounting is off: kernel.task_delayacct=0)");
	else if (res->delayacct < 0)
		snprintf(buf, len, "refaults only (cgroup v1 has no per-cgroup PSI; "
				   "kernel.task_delayacct: %s)", strerror(-res->delayacct));
	else
		snprintf(buf, len, "refaults only (cgroup v1 has no per-cgroup PSI; taskstats: %s)",
			 mcg_strerror(res->taskstats_err));
	return buf;
}

static const char *stop_text(const struct mcg_size_result *res)
{
	switch (res->stop) {
	case MCG_SIZE_RUNNING:
		return "dry run: nothing probed";
	case MCG_SIZE_CONVERGED:
		return "converged";
	case MCG_SIZE_FLOOR:
		return "reached the floor without a cost: the floor is the answer";
	case MCG_SIZE_EVENTS:
		return res->ev_oom_kill ? "an OOM kill in the cgroup: stopped at once"
					: "the cgroup reached its own limit (memory.events max/high): "
					  "stopped at once";
	case MCG_SIZE_TIMEOUT:
		return res->ans.band_n ? "time budget spent: the answer so far"
				       : "time budget spent before any cost: an upper bound";
	case MCG_SIZE_INTERRUPTED:
		return "interrupted: the answer so far";
	case MCG_SIZE_CONFLICT:
		return "another writer changed the limit (a concurrent change): kept";
	}
	return "?";
}

/*
 * A cgroup path as a shell word for the advice line: as is when it holds only
 * characters no shell treats specially, else in single quotes (a quote as
 * '"'"': no backslash, which the JSON writer would double). For text, escaped
 * for the terminal first (out_esc); JSON's writer escapes the raw name itself.
 */
static const char *shell_word(const char *s, bool json, char *buf, size_t len)
{
	const char *e = json ? s : out_esc(s), *p;
	size_t n = 0;

	if (strspn(e, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-:@+,") ==
	    strlen(e))
		return e;
	if (len < 3)
		return e;
	buf[n++] = '\'';
	for (p = e; *p && n + 7 < len; p++) {
		if (*p == '\'') {
			memcpy(buf + n, "'\"'\"'", 5);
			n += 5;
		} else {
			buf[n++] = *p;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

static void advice_lines(struct cli *cli, const struct mcg_group *g, const struct mcg_size_result *res,
			 bool json)
{
	char unit[256], cmd[8400], sd[640], k8s[32], word[8192];
	uint64_t mib = advice_mib(res);
	int v = mcg_ctx_version(cli->ctx);
	bool has_unit = mcg_unit_of(cli->ctx, mcg_group_path(g), unit, sizeof(unit)) > 0;

	/*
	 * v2: memory.high throttles without OOM ("+0" leaves memory.max as it is);
	 * v1 has only the hard limit
	 */
	if (v == 2)
		snprintf(cmd, sizeof(cmd), "memcgctl set-limit %s +0 --high %lluM",
			 shell_word(mcg_group_path(g), json, word, sizeof(word)), (unsigned long long)mib);
	else
		snprintf(cmd, sizeof(cmd), "memcgctl set-limit %s %lluM",
			 shell_word(mcg_group_path(g), json, word, sizeof(word)), (unsigned long long)mib);
	if (has_unit)
		snprintf(sd, sizeof(sd), "systemctl set-property %s MemoryHigh=%lluM",
			 json ? unit : out_esc(unit), (unsigned long long)mib);
	snprintf(k8s, sizeof(k8s), "%lluMi", (unsigned long long)mib);
	if (!res->ans.needed)
		return; /* nothing charged: no limit to advise */
	if (json) {
		jw_open_object(stdout, "advice");
		jw_string(stdout, "set_limit", cmd);
		if (has_unit)
			jw_string(stdout, "systemctl", sd);
		else
			jw_null(stdout, "systemctl");
		jw_string(stdout, "kubernetes_requests_memory", k8s);
		jw_close_object(stdout);
		return;
	}
	printf("apply:\n  %s\n", cmd);
	if (has_unit)
		printf("  %s\n", sd);
	printf("  kubernetes: resources.requests.memory: %s\n", k8s);
}

static void print_text(struct cli *cli, const struct mcg_group *g, const struct mcg_size_result *res,
		       const struct mcg_size_opts *o)
{
	const struct mcg_size_answer *a = &res->ans;
	char s1[32], s2[32], s3[32], why[256];
	int v = mcg_ctx_version(cli->ctx);
	const char *path = out_esc(mcg_group_path(g));

	if (res->stop == MCG_SIZE_RUNNING) {
		printf("%s: dry run, nothing written\n", path);
		printf("  usage %s, floor %s (what reclaim cannot free)\n",
		       cli_size(res->usage_start, s1, sizeof(s1)), cli_size(res->floor, s2, sizeof(s2)));
		printf("  signal: %s\n", signal_why(res, v, why, sizeof(why)));
		if (res->stall_valid)
			printf("  pressure now: %.3f%% of wall time stalled (target %.3f%%)\n",
			       res->base_pressure * 100, o->p.target * 100);
		else
			printf("  refaults before the first step: %s (target: %.1f%% of what is "
			       "reclaimed coming back)\n",
			       cli_size(res->base_refault, s1, sizeof(s1)), o->p.refault_target * 100);
		printf("  would reclaim %s with %s first, one step every %llu ms\n",
		       cli_size(res->first_step, s1, sizeof(s1)),
		       v == 2 ? "memory.reclaim" : "a limit step (journalled)",
		       (unsigned long long)(o->interval_ms ? o->interval_ms
							   : MCG_SIZE_DEFAULT_INTERVAL_MS));
		return;
	}
	printf("%s: needs %s", path, cli_size(a->needed, s1, sizeof(s1)));
	if (a->band_n)
		printf(" (band %s .. %s over the last %u adjustments)\n",
		       cli_size(a->band_lo, s2, sizeof(s2)), cli_size(a->band_hi, s3, sizeof(s3)),
		       a->band_n);
	else if (a->floor_is_answer)
		printf(" (the floor: %s cannot be reclaimed, plus the margin kept above it)\n",
		       cli_size(res->floor, s2, sizeof(s2)));
	else
		printf(" (an upper bound: nothing cost yet)\n");
	printf("  cold: %s of %s at the start", cli_size(a->cold, s1, sizeof(s1)),
	       cli_size(res->usage_start, s2, sizeof(s2)));
	if (a->split_valid)
		printf(" (file %s, anon %s)", cli_size(a->cold_file, s1, sizeof(s1)),
		       cli_size(a->cold_anon, s2, sizeof(s2)));
	printf("\n  signal: %s\n", signal_why(res, v, why, sizeof(why)));
	printf("  took %.1f s: %llu steps, %llu back-offs, reclaimed %s (%s)\n",
	       (double)res->elapsed_ns / 1e9, (unsigned long long)res->steps,
	       (unsigned long long)res->backoffs, cli_size(res->reclaimed, s1, sizeof(s1)),
	       res->method);
	if (res->stall_valid)
		printf("  pressure: %.3f%% stalled during the probe, %.3f%% before (target %.3f%%); "
		       "the probe added %.1f ms of stall\n",
		       res->pressure * 100, res->base_pressure * 100, o->p.target * 100,
		       (double)res->added_stall_ns / 1e6);
	printf("  refaults: %s during the probe (%.1f%% of what it reclaimed), %s before\n",
	       cli_size(res->probe_refault, s1, sizeof(s1)),
	       res->reclaimed ? (double)res->probe_refault * 100 / (double)res->reclaimed : 0.0,
	       cli_size(res->base_refault, s2, sizeof(s2)));
	if (res->ev_max || res->ev_high || res->ev_oom_kill)
		printf("  events: max %llu, high %llu, oom_kill %llu\n", (unsigned long long)res->ev_max,
		       (unsigned long long)res->ev_high, (unsigned long long)res->ev_oom_kill);
	if (res->ev_high_probe)
		printf("  high events in its own memory.high steps: %llu (the workload charging "
		       "above the probe's temporary high; no stop)\n",
		       (unsigned long long)res->ev_high_probe);
	printf("  stopped: %s\n", stop_text(res));
	if (res->stop == MCG_SIZE_CONFLICT)
		printf("  %s: kept at %s, set by another writer (memcgctl expected %s)\n",
		       res->conflict_knob, cli_size(res->conflict_found, s1, sizeof(s1)),
		       cli_size(res->conflict_expected, s2, sizeof(s2)));
	else if (v == 1)
		printf("  limit: %s (as before)\n", cli_size(res->limit_after, s1, sizeof(s1)));
	advice_lines(cli, g, res, false);
}

/* The run's outcome in the words of memcgctl-json(7) STATES. */
static const char *result_name(const struct mcg_size_result *res)
{
	switch (res->stop) {
	case MCG_SIZE_RUNNING:
		return "planned"; /* a dry run */
	case MCG_SIZE_CONVERGED:
	case MCG_SIZE_FLOOR:
		return "ok";
	case MCG_SIZE_EVENTS:
		return "partial";
	case MCG_SIZE_TIMEOUT:
		return "timeout";
	case MCG_SIZE_INTERRUPTED:
		return "interrupted";
	case MCG_SIZE_CONFLICT:
		return "conflict";
	}
	return "failed";
}

static void print_json(struct cli *cli, const struct mcg_group *g, const struct mcg_size_result *res,
		       const struct mcg_size_opts *o, uint64_t timeout_ms)
{
	const struct mcg_size_answer *a = &res->ans;
	int v = mcg_ctx_version(cli->ctx);
	char why[256];

	jw_open_object(stdout, NULL);
	jw_timestamp(stdout);
	jw_string(stdout, "cgroup", mcg_group_path(g));
	jw_i64(stdout, "version", v);
	jw_string(stdout, "method", res->method);
	jw_string(stdout, "signal", mcg_size_signal_name(res->sig));
	jw_string(stdout, "signal_text", signal_why(res, v, why, sizeof(why)));
	jw_double(stdout, "target_pressure", o->p.target);
	jw_double(stdout, "target_refaults", o->p.refault_target);
	jw_u64(stdout, "interval_ns",
	       (o->interval_ms ? o->interval_ms : MCG_SIZE_DEFAULT_INTERVAL_MS) * 1000000ULL);
	if (timeout_ms)
		jw_u64(stdout, "timeout_ns", timeout_ms * 1000000ULL);
	else
		jw_null(stdout, "timeout_ns");
	jw_string(stdout, "result", result_name(res));
	if (!o->dry_run)
		jw_string(stdout, "stop", mcg_size_stop_name(res->stop));
	jw_bool(stdout, "dry_run", o->dry_run);
	if (o->dry_run) {
		jw_bytes(stdout, "first_step_bytes", res->first_step, true);
	} else {
		jw_bytes(stdout, "needed_bytes", a->needed, true);
		jw_bytes(stdout, "band_low_bytes", a->band_lo, true);
		jw_bytes(stdout, "band_high_bytes", a->band_hi, true);
		jw_u64(stdout, "band_adjustments", a->band_n);
		jw_bool(stdout, "floor_is_answer", a->floor_is_answer);
		jw_bytes(stdout, "cold_bytes", a->cold, true);
		jw_bytes(stdout, "cold_file_bytes", a->cold_file, a->split_valid);
		jw_bytes(stdout, "cold_anon_bytes", a->cold_anon, a->split_valid);
	}
	jw_bytes(stdout, "floor_bytes", res->floor, true);
	jw_bytes(stdout, "usage_start_bytes", res->usage_start, true);
	jw_bytes(stdout, "usage_end_bytes", res->usage_end, true);
	jw_u64(stdout, "elapsed_ns", res->elapsed_ns);
	jw_u64(stdout, "probe_ns", res->probe_ns);
	jw_u64(stdout, "baseline_ns", res->base_ns);
	jw_u64(stdout, "steps", res->steps);
	jw_u64(stdout, "backoffs", res->backoffs);
	jw_u64(stdout, "writes", res->writes);
	jw_bytes(stdout, "reclaimed_bytes", res->reclaimed, true);
	if (res->stall_valid) {
		jw_double(stdout, "pressure", res->pressure);
		jw_double(stdout, "baseline_pressure", res->base_pressure);
		jw_u64(stdout, "stall_ns", res->probe_stall_ns);
		jw_u64(stdout, "added_stall_ns", res->added_stall_ns);
	} /* refaults only: no stall to give, the keys are left out */
	jw_bytes(stdout, "refaulted_bytes", res->probe_refault, true);
	jw_bytes(stdout, "baseline_refaulted_bytes", res->base_refault, true);
	jw_open_object(stdout, "events");
	jw_u64(stdout, "max", res->ev_max);
	jw_u64(stdout, "high", res->ev_high);
	jw_u64(stdout, "high_probe", res->ev_high_probe);
	jw_u64(stdout, "oom_kill", res->ev_oom_kill);
	jw_close_object(stdout);
	jw_bytes(stdout, "limit_before_bytes", res->limit_before, v == 1);
	jw_bytes(stdout, "limit_after_bytes", res->limit_after, v == 1);
	if (res->stop == MCG_SIZE_CONFLICT) {
		jw_string(stdout, "knob", res->conflict_knob);
		jw_bytes(stdout, "found_bytes", res->conflict_found, true);
		jw_bytes(stdout, "expected_bytes", res->conflict_expected, true);
	}
	if (!o->dry_run)
		advice_lines(cli, g, res, true);
	jw_close_object(stdout);
	jw_end(stdout);
}

static int size_failed(struct cli *cli, const struct mcg_group *g, int r)
{
	const char *path = out_esc(mcg_group_path(g));

	if (cli_report_rundir(cli->ctx, r))
		;
	else if (r == -MCG_E_LOCKED)
		cli_err("cannot size '%s': another memcgctl is changing it", path);
	else
		cli_err("cannot size '%s': %s", path, mcg_strerror(r));
	if (cli_interrupted)
		return 128 + cli_interrupted;
	if (r == -MCG_E_LOCKED)
		return EXIT_BUSY;
	if (r == -MCG_E_STALE_JOURNAL)
		return EXIT_NOT_RESTORED;
	return cli_status(r);
}

static int size_run(struct cli *cli, int argc, char **argv)
{
	struct size_args a = {0};
	struct mcg_size_opts o = {0};
	struct mcg_size_result res;
	struct mcg_cancel cancel;
	struct progress pr = {0};
	struct mcg_group *g;
	uint64_t timeout_ms = 0;
	int r, v;

	r = cli_parse(&size_argp, argc, argv, &a);
	if (r)
		return r;
	mcg_size_params_init(&o.p, (uint64_t)mcg_page_size());
	if (a.pressure && (o.p.target = parse_pct(a.pressure)) < 0) {
		cli_err("invalid value for --pressure: '%s': a percentage above 0 and below 100 "
			"(0.1%%)", out_esc(a.pressure));
		return EXIT_USAGE;
	}
	if (a.refaults && (o.p.refault_target = parse_pct(a.refaults)) < 0) {
		cli_err("invalid value for --refaults: '%s': a percentage above 0 and below 100 "
			"(10%%)", out_esc(a.refaults));
		return EXIT_USAGE;
	}
	if (a.floor && cli_parse_size("--floor", a.floor, 0, 0, 0, &o.p.floor) < 0)
		return EXIT_USAGE;
	if (!a.watch)
		timeout_ms = SIZE_DEFAULT_TIMEOUT_MS; /* watch: until stopped, unless told */
	if (a.timeout) {
		if (cli_parse_duration("--timeout", a.timeout, &timeout_ms) < 0)
			return EXIT_USAGE;
		if (timeout_ms == 0) {
			cli_err("invalid duration for --timeout: '%s': must be more than 0",
				out_esc(a.timeout));
			return EXIT_USAGE;
		}
	}
	o.interval_ms = a.interval_ms;
	o.dry_run = a.dry_run;
	o.p.watch = a.watch;
	r = cli_open_size_target(cli, a.cgroup, &g);
	if (r)
		return r;
	pr.bar = !cli->json && cli_isatty();
	pr.lines = !pr.bar && cli->verbose > 0;
	pr.raw = cli->raw;
	pr.path = mcg_group_path(g);
	o.progress = on_progress;
	o.answer = a.watch && !cli->json ? on_answer : NULL;
	o.recovered = recovered; /* a killed run left a limit lowered: put back first */
	o.userdata = &pr;
	cli_trap_signals(); /* no SA_RESTART: a blocked step returns EINTR */
	mcg_cancel_init(&cancel, timeout_ms, &cli_interrupted);
	r = mcg_size_run(g, &o, &cancel, &res);
	clear_bar(&pr);
	if (r < 0) {
		r = size_failed(cli, g, r);
		mcg_group_close(g);
		return r;
	}
	if (res.state_err < 0)
		cli_warn("cannot keep the answer of '%s' for show: %s", out_esc(mcg_group_path(g)),
			 mcg_strerror(res.state_err));
	if (cli->json)
		print_json(cli, g, &res, &o, timeout_ms);
	else
		print_text(cli, g, &res, &o);
	v = mcg_ctx_version(cli->ctx);
	if (res.stop == MCG_SIZE_CONFLICT) {
		cli_report_conflict("size of", mcg_group_path(g), res.conflict_knob,
				    res.conflict_found, res.conflict_expected);
		mcg_group_close(g);
		return EXIT_CONFLICT;
	}
	if (v == 1 && !a.dry_run && res.limit_after != res.limit_before) {
		cli_err("limit of '%s' reads %llu after the run, %llu before", out_esc(mcg_group_path(g)),
			(unsigned long long)res.limit_after, (unsigned long long)res.limit_before);
		mcg_group_close(g);
		return EXIT_FAILURE;
	}
	mcg_group_close(g);
	if (res.stop == MCG_SIZE_INTERRUPTED)
		return 128 + (cli_interrupted ? cli_interrupted : SIGINT);
	if (res.stop == MCG_SIZE_TIMEOUT || res.stop == MCG_SIZE_EVENTS)
		return EXIT_PARTIAL;
	return EXIT_OK;
}

const struct mcg_cmd cmd_size = {
	.name = "size",
	.summary = "Find how much memory a workload needs, by probing with pressure feedback",
	.argp = &size_argp,
	.run = size_run,
};
