/* cmd-async-reclaim.c: "memcgctl async-reclaim": turn background watermark reclaim on and off. */
#include "memcgctl.h"
#include "output.h"
#include "cgroup-arg.h"
#include <memcg/async-persist.h>
#include "journal-report.h"
#include "bars.h"
#include "async-reclaim.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/* cmd-reclaimd.c */
int cli_reclaimd_start(struct cli *cli, const char *statedir, pid_t *ret_pid);
bool cli_async_untrusted(const char *statedir, int err);

static const char *const words[] = {"enable", "disable", "status", NULL};

struct ar_args {
	const char *sub, *cgroup;
	const char *high, *high_margin, *low, *low_margin, *batch, *max_cpu;
	const char *statedir;
	bool force, no_start, clean, runtime;
};

enum {
	OPT_HIGH = 0x200,
	OPT_HIGH_MARGIN,
	OPT_LOW,
	OPT_LOW_MARGIN,
	OPT_BATCH,
	OPT_MAX_CPU,
	OPT_FORCE,
	OPT_STATE_DIR,
	OPT_NO_START,
	OPT_CLEAN,
	OPT_RUNTIME,
};

static const struct argp_option ar_options[] = {
	{NULL, 0, NULL, 0, "enable:", 1},
	{"high", OPT_HIGH, "SIZE", 0, "Start reclaiming above SIZE (or NN% of the limit)", 1},
	{"high-margin", OPT_HIGH_MARGIN, "SIZE", 0,
	 "Start reclaiming SIZE below the limit (default limit/40, 4 MiB..1 GiB)", 1},
	{"low", OPT_LOW, "SIZE", 0, "Reclaim down to SIZE (or NN% of the limit)", 1},
	{"low-margin", OPT_LOW_MARGIN, "SIZE", 0,
	 "Reclaim down to SIZE below the limit (default three times the high margin)", 1},
	{"batch", OPT_BATCH, "SIZE", 0,
	 "Per reclaim step: a size (4M) or a bare number of pages (default 1024 pages), as empty",
	 1},
	{"max-cpu", OPT_MAX_CPU, "PCT", 0,
	 "CPU budget in percent of one CPU, 0.001 to 100, at most three decimals, '%' optional "
	 "(default 5)", 1},
	{"force", OPT_FORCE, NULL, 0, "Enable even on a single-CPU machine", 1},
	{"clean", OPT_CLEAN, NULL, 0,
	 "Reclaim ahead even when the page cache is clean (by default only when dirty)", 1},
	{"no-start", OPT_NO_START, NULL, 0,
	 "Do not start reclaimd (a service manager runs it)", 1},
	{"runtime", OPT_RUNTIME, NULL, 0,
	 "Until reboot only: do not keep the configuration under /etc/memcgctl", 1},
	{NULL, 0, NULL, 0, "Every sub-command:", 2},
	{"state-dir", OPT_STATE_DIR, "DIR", 0,
	 "Enabled cgroups and statistics under DIR (default RUNDIR/async-reclaim)", 2},
	{0},
};

static error_t ar_parse(int key, char *arg, struct argp_state *state)
{
	struct ar_args *a = state->input;

	switch (key) {
	case OPT_HIGH:
		a->high = arg;
		break;
	case OPT_HIGH_MARGIN:
		a->high_margin = arg;
		break;
	case OPT_LOW:
		a->low = arg;
		break;
	case OPT_LOW_MARGIN:
		a->low_margin = arg;
		break;
	case OPT_BATCH:
		a->batch = arg;
		break;
	case OPT_MAX_CPU:
		a->max_cpu = arg;
		break;
	case OPT_FORCE:
		a->force = true;
		break;
	case OPT_NO_START:
		a->no_start = true;
		break;
	case OPT_CLEAN:
		a->clean = true;
		break;
	case OPT_RUNTIME:
		a->runtime = true;
		break;
	case OPT_STATE_DIR:
		a->statedir = arg;
		break;
	case ARGP_KEY_ARG:
		if (!a->sub) {
			const char *const *w;

			for (w = words; *w; w++)
				if (!strcmp(*w, arg))
					break;
			if (!*w)
				argp_error(state, "unknown sub-command '%s' (enable, disable, status)",
					   arg);
			a->sub = arg;
		} else if (!a->cgroup) {
			a->cgroup = arg;
		} else {
			argp_error(state, "too many arguments: '%s'", arg);
		}
		break;
	case ARGP_KEY_END:
		if (out_opts.list_columns)
			break; /* status's columns: no sub-command needed */
		if (!a->sub)
			argp_error(state, "missing sub-command (enable, disable, status)");
		if (strcmp(a->sub, "status") && !a->cgroup)
			argp_error(state, "%s: missing CGROUP", a->sub);
		if (strcmp(a->sub, "enable") &&
		    (a->high || a->high_margin || a->low || a->low_margin || a->batch ||
		     a->max_cpu || a->force || a->no_start || a->clean ||
		     (a->runtime && strcmp(a->sub, "disable"))))
			argp_error(state, "%s: watermark, --batch, --max-cpu, --clean, --force "
					  "and --no-start options apply to enable only (--runtime "
					  "to enable and disable)",
				   a->sub);
		if (a->high && a->high_margin)
			argp_error(state, "--high and --high-margin exclude each other");
		if (a->low && a->low_margin)
			argp_error(state, "--low and --low-margin exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp ar_argp = {
	ar_options, ar_parse,
	"enable CGROUP [OPTIONS]\ndisable CGROUP\nstatus [CGROUP]",
	"Background reclaim for a memory cgroup: when usage comes within the high watermark of "
	"the limit, reclaimd reclaims down to the low watermark in bounded steps, so that the "
	"workload does not stall in direct reclaim at the limit. Helps with dirty and "
	"expensive-to-reclaim page cache; does not help with clean page cache.",
	out_table_children, NULL, NULL,
};

static uint64_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

static int read_limit(const struct mcg_group *g, uint64_t *ret)
{
	return mcg_knob_read_u64(g,
				 mcg_ctx_version(mcg_group_ctx(g)) == 2 ? "memory.max"
									: "memory.limit_in_bytes",
				 ret);
}

/* A message of enable or disable: an escaped path (4 bytes a byte at most) and the state directory. */
#define AR_MSG_MAX (4 * 4096 + 4200 + 512)

/* How long enable waits for a reclaim burst (or another memcgctl) holding the cgroup's lock. */
#define ENABLE_LOCK_WAIT_MS 30000

static void enable_recovered(const struct mcg_recovery *r, void *userdata)
{
	(void)userdata;
	cli_report_recovery(r, false, true);
}

/*
 * Is the configuration of this run kept under /etc/memcgctl? For the host's own
 * hierarchy and the default state directory, the one memcgctl-reclaimd.service
 * serves (memcg/async-persist.h).
 */
bool cli_async_persistable(const struct cli *cli, const char *statedir)
{
	return !cli->root && !cli->procfs && !strcmp(statedir, MCG_ASYNC_DEFAULT_STATEDIR);
}

/* mcg_async_enable_run's start hook: reclaimd as this run starts it (USERDATA: the cli). */
int cli_async_start(const char *statedir, pid_t *ret_pid, void *userdata)
{
	return cli_reclaimd_start(userdata, statedir, ret_pid);
}

/* The watermarks an enable asked for, in words, for the message that they do not fit. */
static int bad_marks(const struct mcg_async_enable_result *res, const char *name, char *buf,
		     size_t len)
{
	const struct mcg_async_conf *c = &res->conf;
	uint64_t limit = res->limit, dh, dl;
	char b1[32], b2[32], b3[32];

	mcg_async_default_margins(limit, &dh, &dl);
	snprintf(buf, len, "invalid watermarks for '%s': need 0 < low < high < limit %s; got high %s, "
		 "low %s",
		 name, cli_size(limit, b1, sizeof(b1)),
		 !(c->flags & MCG_ASYNC_HIGH_SET) ? cli_size(limit - dh, b2, sizeof(b2))
		 : (c->flags & MCG_ASYNC_HIGH_MARGIN)
			 ? (c->high >= limit ? "0" : cli_size(limit - c->high, b2, sizeof(b2)))
			 : cli_size(c->high, b2, sizeof(b2)),
		 !(c->flags & MCG_ASYNC_LOW_SET) ? "(default)"
		 : (c->flags & MCG_ASYNC_LOW_MARGIN)
			 ? (c->low >= limit ? "0" : cli_size(limit - c->low, b3, sizeof(b3)))
			 : cli_size(c->low, b3, sizeof(b3)));
	return EXIT_USAGE;
}

/*
 * What an enable did (RES of mcg_async_enable_run for the cgroup NAME, escaped),
 * in the words 'async-reclaim enable' prints: its line on success, its error
 * (without "memcgctl: ") on failure. Returns the exit status. Shared with top's A.
 */
int cli_async_enable_msg(const struct mcg_async_enable_req *req,
			 const struct mcg_async_enable_result *res, const char *name,
			 const char *statedir, char *buf, size_t len)
{
	const char *n = name ? name : "?";
	char b1[32], b2[32], b3[32];
	int r = res->error, o;

	switch (res->stage) {
	case MCG_AE_DONE:
		o = snprintf(buf, len, "async reclaim enabled on '%s': high %s, low %s (limit %s)", n,
			     cli_size(res->high, b1, sizeof(b1)), cli_size(res->low, b2, sizeof(b2)),
			     cli_size(res->limit, b3, sizeof(b3)));
		if (o >= 0 && (size_t)o < len && res->pid > 0)
			o += snprintf(buf + o, len - (size_t)o, "; reclaimd pid %d", (int)res->pid);
		else if (o >= 0 && (size_t)o < len && !req->start)
			o += snprintf(buf + o, len - (size_t)o, "; reclaimd not started (--no-start)");
		if (o >= 0 && (size_t)o < len && res->persistent)
			snprintf(buf + o, len - (size_t)o, "; kept in %s", MCG_ASYNC_PERSIST_DIR);
		return 0;
	case MCG_AE_INIT:
		snprintf(buf, len, "cannot enable async reclaim on '%s': %s", n, mcg_strerror(r));
		return EXIT_FAILURE;
	case MCG_AE_ROOT:
		snprintf(buf, len, "cannot enable async reclaim on the root cgroup: it has no limit");
		return EXIT_USAGE;
	case MCG_AE_BATCH:
		snprintf(buf, len, "invalid value for --batch: '%s': %s", out_esc(req->batch), res->why);
		return EXIT_USAGE;
	case MCG_AE_MAX_CPU:
		snprintf(buf, len, "invalid --max-cpu: '%s': %s (%s)", out_esc(req->max_cpu),
			 res->why, CLI_CPU_PERCENT_SYNTAX);
		return EXIT_USAGE;
	case MCG_AE_LOCK:
		if (r == -MCG_E_STALE_JOURNAL)
			snprintf(buf, len, "cannot enable async reclaim on '%s': a journal left by an "
				 "interrupted run could not be restored (see 'memcgctl recover')",
				 n);
		else if (r == -ETIMEDOUT || r == -MCG_E_LOCKED)
			snprintf(buf, len, "cannot enable async reclaim on '%s': another memcgctl is "
				 "changing it",
				 n);
		else
			snprintf(buf, len, "cannot enable async reclaim on '%s': %s", n, mcg_strerror(r));
		if (cli_interrupted)
			return 128 + cli_interrupted;
		return r == -ETIMEDOUT ? EXIT_BUSY : cli_status(r);
	case MCG_AE_LIMIT:
		snprintf(buf, len, "cannot read the limit of '%s': %s", n, mcg_strerror(r));
		return EXIT_FAILURE;
	case MCG_AE_NO_LIMIT:
		snprintf(buf, len, "cannot enable async reclaim on '%s': it has no memory limit to stay "
			 "under",
			 n);
		return EXIT_FAILURE;
	case MCG_AE_HIGH:
		snprintf(buf, len, "invalid size for %s: '%s': %s",
			 req->high ? "--high" : "--high-margin", req->high ? req->high : req->high_margin,
			 res->why);
		return EXIT_USAGE;
	case MCG_AE_LOW:
		snprintf(buf, len, "invalid size for %s: '%s': %s", req->low ? "--low" : "--low-margin",
			 req->low ? req->low : req->low_margin, res->why);
		return EXIT_USAGE;
	case MCG_AE_WATERMARKS:
		return bad_marks(res, n, buf, len);
	case MCG_AE_ONE_CPU:
		snprintf(buf, len, "cannot enable async reclaim on '%s': only one CPU, where a reclaim "
			 "thread competes with the workload (--force to enable anyway)",
			 n);
		return EXIT_FAILURE;
	case MCG_AE_WRITE:
		snprintf(buf, len, "cannot enable async reclaim on '%s': cannot write to %s: %s", n,
			 statedir, mcg_strerror(r));
		return EXIT_FAILURE;
	case MCG_AE_INFO:
		snprintf(buf, len, "cannot enable async reclaim on '%s': cannot tell whether reclaimd "
			 "runs: %s",
			 n, mcg_strerror(r));
		return EXIT_FAILURE;
	case MCG_AE_START:
		snprintf(buf, len, "cannot enable async reclaim on '%s': cannot start reclaimd: %s (see "
			 "%s/reclaimd.log)",
			 n, mcg_strerror(r), statedir);
		return EXIT_FAILURE;
	case MCG_AE_PERSIST:
		snprintf(buf, len, "cannot enable async reclaim on '%s': cannot keep it in %s: %s "
			 "(--runtime: until reboot only)",
			 n, MCG_ASYNC_PERSIST_DIR, mcg_strerror(r));
		return EXIT_FAILURE;
	}
	snprintf(buf, len, "cannot enable async reclaim on '%s': %s", n, mcg_strerror(r));
	return EXIT_FAILURE;
}

static int do_enable(struct cli *cli, struct ar_args *a, const char *statedir)
{
	struct mcg_async_enable_req req = {
		.high = a->high,
		.high_margin = a->high_margin,
		.low = a->low,
		.low_margin = a->low_margin,
		.batch = a->batch,
		.max_cpu = a->max_cpu,
		.clean = a->clean,
		.force = a->force,
		.persist = cli_async_persistable(cli, statedir) && !a->runtime,
		.start = a->no_start ? NULL : cli_async_start,
		.start_data = cli,
		.recovered = enable_recovered,
	};
	struct mcg_async_enable_result res;
	struct mcg_cancel cancel;
	struct mcg_group *g;
	char msg[AR_MSG_MAX], *name = NULL;
	int r, status;

	r = cli_open_cgroup(cli, a->cgroup, &g);
	if (r < 0)
		return cli_status(r);
	name = mcg_escape_dup(mcg_group_path(g));
	if (!name) {
		cli_err("cannot enable async reclaim on '%s': %s", "?", mcg_strerror(-ENOMEM));
		mcg_group_close(g);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	mcg_cancel_init(&cancel, ENABLE_LOCK_WAIT_MS, &cli_interrupted);
	req.cancel = &cancel;
	r = mcg_async_enable_run(g, statedir, &req, &res);
	status = cli_async_enable_msg(&req, &res, name, statedir, msg, sizeof(msg));
	if (r < 0) {
		/* the run and state directories' own messages say which and why */
		if (res.stage == MCG_AE_LOCK && cli_report_rundir(mcg_group_ctx(g), r))
			status = EXIT_FAILURE;
		else if (!(res.stage == MCG_AE_WRITE && cli_async_untrusted(statedir, r)))
			cli_err("%s", msg);
	} else if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_string(stdout, "cgroup", mcg_group_path(g));
		jw_bool(stdout, "enabled", true);
		jw_bytes(stdout, "limit_bytes", res.limit, true);
		jw_bytes(stdout, "high_bytes", res.high, true);
		jw_bytes(stdout, "low_bytes", res.low, true);
		jw_u64(stdout, "batch_bytes", (uint64_t)res.conf.batch * page_size());
		jw_double(stdout, "max_cpu_percent", res.conf.max_cpu);
		jw_bool(stdout, "clean", a->clean);
		jw_bool(stdout, "persistent", res.persistent);
		if (res.pid > 0) /* left out: not started (--no-start) */
			jw_i64(stdout, "reclaimd_pid", res.pid);
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		printf("%s\n", msg);
	}
	free(name);
	mcg_group_close(g);
	return status;
}

/*
 * What a disable did (R and RES of mcg_async_disable_run for the cgroup NAME,
 * escaped), in the words 'async-reclaim disable' prints: its line, or its error
 * (without "memcgctl: "). Returns the exit status. Shared with top's A.
 */
int cli_async_disable_msg(int r, const struct mcg_async_disable_result *res, const char *name,
			  char *buf, size_t len)
{
	const char *n = name ? name : "?";

	if (r < 0 && res->unpersist_failed) {
		snprintf(buf, len, "cannot disable async reclaim on '%s': cannot remove it from %s: %s",
			 n, MCG_ASYNC_PERSIST_DIR, mcg_strerror(r));
		return EXIT_FAILURE;
	}
	if (r < 0) {
		snprintf(buf, len, "cannot disable async reclaim on '%s': %s", n, mcg_strerror(r));
		return EXIT_FAILURE;
	}
	if (!res->changed)
		/* as systemctl disable: the state asked for is the state there, exit 0 */
		snprintf(buf, len, "async reclaim was not enabled on '%s': nothing to disable", n);
	else
		snprintf(buf, len, "async reclaim disabled on '%s'", n);
	return 0;
}

static int do_disable(struct cli *cli, struct ar_args *a, const char *statedir)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	struct mcg_async_disable_result res;
	struct mcg_group *g;
	char path[4200], msg[AR_MSG_MAX], *name;
	int r, status;

	if (!ctx)
		return EXIT_FAILURE;
	/* a removed cgroup can still be disabled by its path */
	r = mcg_group_open(ctx, a->cgroup, &g);
	if (r == 0) {
		snprintf(path, sizeof(path), "%s", mcg_group_path(g));
		mcg_group_close(g);
	} else if (r == -ENOENT && strncmp(a->cgroup, "pid:", 4) && !strstr(a->cgroup, "..")) {
		const char *p = a->cgroup;
		size_t rl = strlen(mcg_ctx_root(ctx));

		if (!strncmp(p, mcg_ctx_root(ctx), rl) && p[rl] == '/')
			p += rl;
		snprintf(path, sizeof(path), "%s%s", p[0] == '/' ? "" : "/", p);
		while (strlen(path) > 1 && path[strlen(path) - 1] == '/')
			path[strlen(path) - 1] = '\0';
	} else {
		return cli_status(cli_open_cgroup(cli, a->cgroup, &g));
	}
	r = mcg_async_disable_run(ctx, statedir, path, cli_async_persistable(cli, statedir), &res);
	name = mcg_escape_dup(path);
	status = cli_async_disable_msg(r, &res, name, msg, sizeof(msg));
	if (r < 0) {
		if (res.unpersist_failed || !cli_async_untrusted(statedir, r))
			cli_err("%s", msg);
	} else if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_string(stdout, "cgroup", path);
		jw_bool(stdout, "enabled", false);
		jw_bool(stdout, "changed", res.changed);
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		printf("%s\n", msg);
	}
	free(name);
	return status;
}

/* One row of status: an enable file, its stats, or stats alone (a removed cgroup). */
struct row {
	const struct mcg_async_conf *conf;
	const struct mcg_async_stats *st;
	uint64_t limit, high, low;
	uint64_t usage; /* now, for the bar */
	bool marks_valid, usage_valid;
	/* the watermarks against the limit now: ok, invalid, no-limit, unknown; and why */
	const char *marks;
	char marks_why[160];
};

/* W's watermarks against W->limit: valid, or why not (invalid, no-limit). */
static void marks_state(struct row *w, const struct mcg_async_conf *c)
{
	char b1[32], b2[32], b3[32];
	int r = mcg_async_watermarks(c, w->limit, &w->high, &w->low);

	w->marks_why[0] = '\0';
	if (r == 0) {
		w->marks_valid = true;
		w->marks = "ok";
	} else if (r == -EDOM) {
		w->marks = "no-limit";
		snprintf(w->marks_why, sizeof(w->marks_why), "the cgroup has no limit");
	} else {
		w->marks = "invalid";
		snprintf(w->marks_why, sizeof(w->marks_why),
			 "%s %s, %s %s do not fit below the limit %s",
			 c->flags & MCG_ASYNC_HIGH_MARGIN ? "high margin" : "high",
			 cli_size(c->high, b1, sizeof(b1)),
			 c->flags & MCG_ASYNC_LOW_MARGIN ? "low margin" : "low",
			 cli_size(c->low, b2, sizeof(b2)), cli_size(w->limit, b3, sizeof(b3)));
	}
}

/* A row has its enable file, its daemon stats, or both. */
static const char *row_path(const struct row *r)
{
	if (r->conf)
		return r->conf->path;
	return r->st ? r->st->path : "?";
}

enum {
	A_CGROUP,
	A_ENABLED,
	A_STATE,
	A_LIMIT,
	A_HIGH,
	A_LOW,
	A_USAGE,
	A_RECLAIMED,
	A_STEPS,
	A_CPU,
	A_ERROR,
	A_THRASHING,
	A_SOURCE,
	A_BATCH,
	A_MAXCPU,
	A_CLEAN,
	A_WAKEUPS,
	A_SHORT,
	A_DEFERRED,
	A_REFAULTED,
	A_REFAULTPCT,
	A_THRASH,
	A_SKIPS,
	A_CONFLICTS,
	A_ERRTIME,
	A_UPDATED,
	A_MARKS,
	A_MARKSWHY,
	A__COUNT
};
static const struct out_col ar_cols[A__COUNT] = {
	[A_CGROUP] = {"CGROUP", "cgroup", "cgroup path", OUT_STR, OUT_TRUNC, 0},
	[A_ENABLED] = {"ENABLED", "enabled", "an enable file is there", OUT_BOOL, 0, 0},
	[A_STATE] = {"STATE", "state", "reclaimd's state for it (memcgctl-json(7) STATES)", OUT_STR,
		     0, 0},
	[A_LIMIT] = {"LIMIT", "limit_bytes", "the limit now", OUT_BYTES, OUT_RIGHT, 0},
	[A_HIGH] = {"HIGH", "high_bytes", "high watermark: reclaim starts above it", OUT_BYTES,
		    OUT_RIGHT, 0},
	[A_LOW] = {"LOW", "low_bytes", "low watermark: reclaim stops at it", OUT_BYTES, OUT_RIGHT,
		   0},
	[A_USAGE] = {"USAGE", "usage_bytes", "usage at reclaimd's last report", OUT_BYTES,
		     OUT_RIGHT, 0},
	[A_RECLAIMED] = {"RECLAIMED", "reclaimed_bytes", "reclaimed since enabled", OUT_BYTES,
			 OUT_RIGHT, 0},
	[A_STEPS] = {"STEPS", "steps", "reclaim steps", OUT_U64, OUT_RIGHT, 0},
	[A_CPU] = {"CPU", "cpu_ns", "CPU time spent on it (text: seconds)", OUT_U64, OUT_RIGHT, 0},
	[A_ERROR] = {"ERROR", "last_error", "the last error", OUT_STR, OUT_TRUNC, 0},
	[A_THRASHING] = {"THRASHING", "thrashing", "backing off: refaults", OUT_BOOL, OUT_EXTRA, 0},
	[A_SOURCE] = {"SOURCE", "event_source", "what wakes reclaimd", OUT_STR, OUT_EXTRA, 0},
	[A_BATCH] = {"BATCH", "batch_bytes", "per reclaim step", OUT_BYTES, OUT_RIGHT | OUT_EXTRA,
		     0},
	[A_MAXCPU] = {"MAXCPU", "max_cpu_percent", "CPU budget in percent of one CPU", OUT_NUM,
		      OUT_RIGHT | OUT_EXTRA, 0},
	[A_CLEAN] = {"CLEAN", "clean", "reclaims clean page cache too (--clean)", OUT_BOOL,
		     OUT_EXTRA, 0},
	[A_WAKEUPS] = {"WAKEUPS", "wakeups", "wake-ups", OUT_U64, OUT_RIGHT | OUT_EXTRA, 0},
	[A_SHORT] = {"SHORT", "short_steps", "steps that reclaimed less than asked", OUT_U64,
		     OUT_RIGHT | OUT_EXTRA, 0},
	[A_DEFERRED] = {"DEFERRED", "deferred", "times deferred by the CPU budget", OUT_U64,
			OUT_RIGHT | OUT_EXTRA, 0},
	[A_REFAULTED] = {"REFAULTED", "refaulted_bytes", "file refaults seen while enabled",
			 OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[A_REFAULTPCT] = {"REFAULT%", "refault_percent",
			  "refaults in percent of reclaimed, last window", OUT_PCT,
			  OUT_RIGHT | OUT_EXTRA, 0},
	[A_THRASH] = {"BACKOFFS", "thrash_episodes", "thrash back-offs", OUT_U64,
		      OUT_RIGHT | OUT_EXTRA, 0},
	[A_SKIPS] = {"SKIPS", "clean_skips", "wake-ups left to the kernel: clean cache", OUT_U64,
		     OUT_RIGHT | OUT_EXTRA, 0},
	[A_CONFLICTS] = {"CONFLICTS", "conflicts", "bursts stopped by another writer's limit",
			 OUT_U64, OUT_RIGHT | OUT_EXTRA, 0},
	[A_ERRTIME] = {"ERRTIME", "last_error_time", "the last error's time, seconds since the epoch",
		       OUT_U64, OUT_RIGHT | OUT_EXTRA, 0},
	[A_UPDATED] = {"UPDATED", "updated", "reclaimd's last report, seconds since the epoch",
		       OUT_U64, OUT_RIGHT | OUT_EXTRA, 0},
	[A_MARKS] = {"MARKS", "watermarks",
		     "the watermarks against the limit now: ok, invalid, no-limit, unknown", OUT_STR,
		     OUT_EXTRA, 0},
	[A_MARKSWHY] = {"MARKSWHY", "watermarks_reason", "why they are not ok", OUT_STR,
			OUT_EXTRA | OUT_TRUNC, 0},
};

static void fill_row(struct out_table *t, const struct row *w)
{
	const struct mcg_async_stats *s = w->st;
	struct out_row *r = out_row_new(t, NULL);
	char b[64];

	if (!r)
		return;
	out_cell_str(r, A_CGROUP, row_path(w));
	out_cell_bool(r, A_ENABLED, w->conf != NULL);
	out_cell_str(r, A_STATE, s ? mcg_async_state_name(s->state) : "pending");
	if (w->marks_valid || (s && s->limit))
		out_cell_u64(r, A_LIMIT, w->limit);
	if (w->marks_valid) {
		out_cell_u64(r, A_HIGH, w->high);
		out_cell_u64(r, A_LOW, w->low);
	}
	if (w->marks)
		out_cell_str(r, A_MARKS, w->marks);
	if (w->marks_why[0])
		out_cell_str(r, A_MARKSWHY, w->marks_why);
	if (w->conf) {
		out_cell_u64(r, A_BATCH, (uint64_t)w->conf->batch * page_size());
		out_cell_num(r, A_MAXCPU, w->conf->max_cpu);
		out_cell_bool(r, A_CLEAN, w->conf->flags & MCG_ASYNC_CLEAN);
	}
	if (!s)
		return; /* reclaimd has not reported: its counters are absent */
	out_cell_bool(r, A_THRASHING, s->state == MCG_ASYNC_THRASHING);
	out_cell_str(r, A_SOURCE, s->event_source);
	out_cell_u64(r, A_USAGE, s->usage);
	out_cell_u64(r, A_RECLAIMED, s->reclaimed);
	out_cell_u64(r, A_STEPS, s->steps);
	out_cell_u64(r, A_CPU, s->cpu_ns);
	snprintf(b, sizeof(b), "%.3f", (double)s->cpu_ns / 1e9);
	out_cell_text(r, A_CPU, b);
	if (s->last_error) {
		out_cell_str(r, A_ERROR, mcg_strerror(s->last_error));
		out_cell_u64(r, A_ERRTIME, (uint64_t)s->last_error_time);
	}
	out_cell_u64(r, A_WAKEUPS, s->wakeups);
	out_cell_u64(r, A_SHORT, s->short_steps);
	out_cell_u64(r, A_DEFERRED, s->deferred);
	out_cell_u64(r, A_REFAULTED, s->refaulted);
	out_cell_num(r, A_REFAULTPCT, 100 * s->refault_ratio);
	out_cell_u64(r, A_THRASH, s->thrash_episodes);
	out_cell_u64(r, A_SKIPS, s->clean_skips);
	out_cell_u64(r, A_CONFLICTS, s->conflicts);
	out_cell_u64(r, A_UPDATED, (uint64_t)s->updated);
}

/*
 * The cgroups' bars under the table: usage now against the limit (the bar's end)
 * with the watermarks marked, l low and h high; block characters in a UTF-8
 * locale, '#' and '.' in the C locale; no colour. Not with --raw or
 * --noheadings (for scripts), nor for a cgroup without a limit.
 */
#define AR_BAR_CELLS 32

static void print_bars(const struct row *rows, size_t n)
{
	char bar[AR_BAR_CELLS * 4 + 3], u[48], lim[48];
	bool utf8 = bars_utf8(), any = false;
	size_t i;

	if (cli_state.raw || out_opts.noheadings)
		return;
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		char *name;

		if (!w->conf || !w->usage_valid || !w->limit || w->limit == MCG_MAX)
			continue;
		if (!any)
			printf("usage now against the limit (the bar's end; l low, h high):\n");
		any = true;
		bar_watermarks(bar, sizeof(bar), AR_BAR_CELLS, w->usage,
			       w->marks_valid ? w->low : 0, w->marks_valid ? w->high : 0, w->limit,
			       utf8);
		name = mcg_escape_dup(row_path(w));
		printf("  %s %s of %s  %s", bar, cli_size(w->usage, u, sizeof(u)),
		       cli_size(w->limit, lim, sizeof(lim)), name ? name : "?");
		if (!w->marks_valid)
			printf("  (watermarks %s: not marked)", w->marks ? w->marks : "unknown");
		putchar('\n');
		free(name);
	}
}

/* JSON holds every column unless -o chose: the document scripts read. */
static struct out_table *status_table(struct cli *cli, int version, int *ret_status)
{
	char spec[1024] = "";
	const char *saved = out_opts.output;
	struct out_table *t;
	size_t i;

	if (cli->json && !out_opts.output) {
		for (i = 0; i < A__COUNT; i++)
			snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec), "%s%s", i ? "," : "",
				 ar_cols[i].json);
		out_opts.output = spec;
	}
	t = out_table_new(ar_cols, A__COUNT, version, ret_status);
	out_opts.output = saved;
	return t;
}

static int do_status(struct cli *cli, struct ar_args *a, const char *statedir)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	struct mcg_async_conf *confs = NULL;
	struct mcg_async_stats *stats = NULL;
	struct mcg_async_corrupt *bad = NULL;
	struct mcg_reclaimd_info info;
	struct row *rows = NULL;
	struct out_table *table = NULL;
	size_t nc = 0, ns = 0, nr = 0, nb = 0, i, j;
	char want[4200] = "";
	bool removed = false;
	int r, status = 0;

	if (!ctx)
		return EXIT_FAILURE;
	if (a->cgroup) {
		struct mcg_group *g;

		r = mcg_group_open(ctx, a->cgroup, &g);
		if (r == 0) {
			snprintf(want, sizeof(want), "%s", mcg_group_path(g));
			mcg_group_close(g);
		} else if (r == -ENOENT && a->cgroup[0] == '/') {
			snprintf(want, sizeof(want), "%s", a->cgroup); /* removed: its stats */
			removed = true;
		} else {
			return cli_status(cli_open_cgroup(cli, a->cgroup, &g));
		}
	}
	r = mcg_async_list(statedir, &confs, &nc);
	if (r == 0)
		r = mcg_async_stats_list(statedir, &stats, &ns);
	if (r == 0)
		r = mcg_async_corrupt_list(statedir, &bad, &nb);
	if (r == 0)
		r = mcg_reclaimd_info(statedir, &info);
	if (r < 0) {
		if (!cli_async_untrusted(statedir, r))
			cli_err("cannot read the async reclaim state in %s: %s", statedir,
				mcg_strerror(r));
		free(confs);
		free(stats);
		free(bad);
		return EXIT_FAILURE;
	}
	rows = calloc(nc + ns + 1, sizeof(*rows));
	if (!rows) {
		free(confs);
		free(stats);
		free(bad);
		return EXIT_FAILURE;
	}
	for (i = 0; i < nc; i++) {
		struct row *w;
		struct mcg_group *g;

		if (strcmp(confs[i].root, mcg_ctx_root(ctx)) || (want[0] && strcmp(want, confs[i].path)))
			continue;
		w = &rows[nr++];
		w->conf = &confs[i];
		for (j = 0; j < ns; j++)
			if (!strcmp(stats[j].root, confs[i].root) && !strcmp(stats[j].path, confs[i].path))
				w->st = &stats[j];
		/* the watermarks against the limit as it is now: a state and a reason, not null */
		w->marks = "unknown";
		snprintf(w->marks_why, sizeof(w->marks_why), "the cgroup cannot be read");
		if (mcg_group_open(ctx, confs[i].path, &g) == 0) {
			if (read_limit(g, &w->limit) == 0)
				marks_state(w, &confs[i]);
			w->usage_valid = mcg_knob_read_u64(g, mcg_ctx_version(ctx) == 2
								      ? "memory.current"
								      : "memory.usage_in_bytes",
							   &w->usage) == 0;
			mcg_group_close(g);
		}
	}
	for (j = 0; j < ns; j++) {
		bool has_conf = false;

		if (strcmp(stats[j].root, mcg_ctx_root(ctx)) || (want[0] && strcmp(want, stats[j].path)))
			continue;
		for (i = 0; i < nc; i++)
			if (!strcmp(stats[j].path, confs[i].path) && !strcmp(stats[j].root, confs[i].root))
				has_conf = true;
		if (has_conf || stats[j].state != MCG_ASYNC_GONE)
			continue;
		rows[nr].st = &stats[j];
		rows[nr].limit = stats[j].limit;
		nr++;
	}
	table = status_table(cli, mcg_ctx_version(ctx), &status);
	if (!table)
		goto out;
	for (i = 0; i < nr; i++)
		fill_row(table, &rows[i]);
	if (removed && nr == 0) {
		/* neither a cgroup nor the record of one that was enabled */
		char *w = mcg_escape_dup(want);

		cli_err("cannot open cgroup '%s': no such cgroup under %s", w ? w : "?",
			mcg_ctx_root(ctx));
		free(w);
		status = EXIT_USAGE;
		goto out;
	}
	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_open_object(stdout, "reclaimd");
		jw_bool(stdout, "running", info.pid != 0);
		if (info.pid > 0)
			jw_i64(stdout, "pid", info.pid);
		if (info.pid) {
			jw_i64(stdout, "started", info.started);
			jw_u64(stdout, "cpu_ns", info.cpu_ns);
			jw_u64(stdout, "wakeups", info.wakeups);
		}
		jw_close_object(stdout);
		jw_string(stdout, "dir", statedir);
		jw_open_array(stdout, "cgroups");
		for (i = 0; i < out_table_nrows(table); i++) {
			jw_open_object(stdout, NULL);
			if (!out_table_has(table, A_CGROUP))
				jw_string(stdout, "cgroup", row_path(&rows[i]));
			out_row_json(table, out_table_row(table, i), stdout);
			jw_close_object(stdout);
		}
		if (want[0] && nr == 0) {
			jw_open_object(stdout, NULL);
			jw_string(stdout, "cgroup", want);
			jw_bool(stdout, "enabled", false);
			jw_close_object(stdout);
		}
		jw_close_array(stdout);
		jw_open_array(stdout, "corrupt");
		for (i = 0; i < nb; i++) {
			char file[4600];

			snprintf(file, sizeof(file), "%s/%s", statedir, bad[i].file);
			jw_open_object(stdout, NULL);
			jw_string(stdout, "file", file);
			jw_string(stdout, "reason", bad[i].why);
			jw_close_object(stdout);
		}
		jw_close_array(stdout);
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		if (info.pid && !out_opts.noheadings) {
			long up = (long)time(NULL) - (long)info.started;

			printf("reclaimd: running, pid %d, CPU %.3f s", (int)info.pid,
			       (double)info.cpu_ns / 1e9);
			if (up > 0)
				printf(" (%.2f%% of one CPU over %ld s)",
				       (double)info.cpu_ns / 1e7 / (double)up, up);
			putchar('\n');
		} else if (!out_opts.noheadings) {
			printf("reclaimd: not running\n");
		}
		if (nr) {
			out_table_print(table, stdout);
			print_bars(rows, nr);
		}
		if (want[0] && nr == 0) {
			char *w = mcg_escape_dup(want);

			printf("%s: async reclaim is disabled\n", w ? w : "?");
			free(w);
		} else if (nr == 0) {
			printf("no cgroup has async reclaim enabled\n");
		}
		for (i = 0; i < nb; i++) {
			char file[4600], *f;

			snprintf(file, sizeof(file), "%s/%s", statedir, bad[i].file);
			f = mcg_escape_dup(file);
			printf("corrupt: %s: %s (ignored, not served)\n", f ? f : "?", bad[i].why);
			free(f);
		}
	}
out:
	out_table_free(table);
	free(rows);
	free(confs);
	free(stats);
	free(bad);
	return status;
}

static int ar_run(struct cli *cli, int argc, char **argv)
{
	struct ar_args a = {0};
	char statedir[4200];
	int r;

	r = cli_parse(&ar_argp, argc, argv, &a);
	if (r)
		return r;
	if (out_opts.list_columns) {
		out_list_columns(ar_cols, A__COUNT, stdout);
		return 0;
	}
	if (!cli_ctx(cli))
		return EXIT_FAILURE;
	if (cli_async_statedir(cli, a.statedir, statedir, sizeof(statedir)) < 0)
		return EXIT_FAILURE;
	if (!strcmp(a.sub, "enable"))
		return do_enable(cli, &a, statedir);
	if (!strcmp(a.sub, "disable"))
		return do_disable(cli, &a, statedir);
	return do_status(cli, &a, statedir);
}

const struct mcg_cmd cmd_async_reclaim = {
	.name = "async-reclaim",
	.summary = "Background reclaim below the limit: enable, disable, status",
	.argp = &ar_argp,
	.run = ar_run,
	.words = words,
};
