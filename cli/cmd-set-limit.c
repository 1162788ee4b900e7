/* cmd-set-limit.c: "memcgctl set-limit": change limits safely, with preflight, plan and rollback.
 */
#include "memcgctl.h"
#include "output.h"
#include "journal-report.h"

#include <fcntl.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* 3 is EXIT_CONFLICT (memcgctl.h) */
#define EXIT_NOT_RESTORED 4
#define EXIT_LOCKED	  75

enum {
	OPT_HIGH = 0x200,
	OPT_LOW,
	OPT_MIN,
	OPT_SOFT,
	OPT_SWAP,
	OPT_STEP,
	OPT_TIMEOUT,
	OPT_ALLOW_OOM,
};

struct sl_args {
	const char *cgroup, *size;
	const char *val[MCG_LK__COUNT]; /* strings of the value options, [MCG_LK_MAX] = SIZE */
	const char *step, *timeout;
	bool dry_run, allow_oom, force, wait;
};

static const struct argp_option sl_options[] = {
	{"high", OPT_HIGH, "SIZE", 0, "Also set memory.high, the throttle limit (v2)", 0},
	{"low", OPT_LOW, "SIZE", 0, "Also set memory.low, best-effort protection (v2)", 0},
	{"min", OPT_MIN, "SIZE", 0, "Also set memory.min, hard protection (v2)", 0},
	{"soft", OPT_SOFT, "SIZE", 0, "Also set memory.soft_limit_in_bytes (v1)", 0},
	{"swap", OPT_SWAP, "SIZE", 0,
	 "Swap allowed on top of the limit: v2 memory.swap.max, v1 memsw = limit + SIZE", 0},
	{"dry-run", 'n', NULL, 0,
	 "Print the preflight and the plan (each write in order), change nothing", 0},
	{"step", OPT_STEP, "SIZE", 0, "Shrink gradually, SIZE at a time", 0},
	{"timeout", OPT_TIMEOUT, "DURATION", 0,
	 "Give up and restore the original values after DURATION (500ms, 10s, 2m)", 0},
	{"allow-oom", OPT_ALLOW_OOM, NULL, 0,
	 "v2: let a shrink end in the kernel's OOM killer when reclaim cannot reach the target", 0},
	{"force", 'f', NULL, 0, "Try even when the target is below what cannot be reclaimed", 0},
	{"wait", 'w', NULL, 0, "Wait for another memcgctl changing the cgroup instead of failing",
	 0},
	{0},
};

static error_t sl_parse(int key, char *arg, struct argp_state *state)
{
	struct sl_args *a = state->input;

	switch (key) {
	case OPT_HIGH:
		a->val[MCG_LK_HIGH] = arg;
		break;
	case OPT_LOW:
		a->val[MCG_LK_LOW] = arg;
		break;
	case OPT_MIN:
		a->val[MCG_LK_MIN] = arg;
		break;
	case OPT_SOFT:
		a->val[MCG_LK_SOFT] = arg;
		break;
	case OPT_SWAP:
		a->val[MCG_LK_SWAP] = arg;
		break;
	case OPT_STEP:
		a->step = arg;
		break;
	case OPT_TIMEOUT:
		a->timeout = arg;
		break;
	case OPT_ALLOW_OOM:
		a->allow_oom = true;
		break;
	case 'n':
		a->dry_run = true;
		break;
	case 'f':
		a->force = true;
		break;
	case 'w':
		a->wait = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->cgroup)
			a->cgroup = arg;
		else if (!a->size)
			a->size = a->val[MCG_LK_MAX] = arg;
		else
			argp_error(state, "too many arguments: '%s'", arg);
		break;
	case ARGP_KEY_END: {
		size_t k;
		bool any = false;

		if (!a->cgroup)
			argp_error(state, "missing CGROUP");
		for (k = 0; k < MCG_LK__COUNT; k++)
			any |= a->val[k] != NULL;
		if (!any)
			argp_error(state,
				   "missing SIZE (or one of --high --low --min --soft --swap)");
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp sl_argp = {
	sl_options,
	sl_parse,
	"CGROUP SIZE",
	"Change the memory limit of CGROUP to SIZE safely: preflight, then the writes in the order "
	"the kernel needs, reclaiming before a shrink, every original value journalled and "
	"restored "
	"on failure, timeout or interrupt.\v"
	"SIZE: 512M, 1.5G, 80% (of the parent's effective limit, else RAM), max, +256M or -256M "
	"(relative to the current value; -256M needs no '--').",
	cli_common_children,
	NULL,
	NULL,
};

/* Options that take a separate argument, so that "-256M" after them is their value. */
static bool takes_value(const char *arg)
{
	static const char *const longs[] = {"--high", "--low",	   "--min",	      "--soft",
					    "--swap", "--step",	   "--timeout",	      "--root",
					    "--proc", "--run-dir", "--cgroup-version"};
	size_t i, n = strlen(arg);

	if (strncmp(arg, "--", 2) || strchr(arg, '=') || n < 3)
		return false;
	for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		if (!strncmp(longs[i], arg, n))
			return true;
	return false;
}

/* Move positional "-256M" after a "--" so that argp does not read it as options. */
static char **fix_negative(int argc, char **argv, int *ret_n)
{
	char **v = calloc((size_t)argc + 2, sizeof(char *)), *neg = NULL;
	int i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (i > 0 && !strcmp(s, "--")) {
			for (; i < argc; i++)
				v[n++] = argv[i];
			break;
		}
		if (i > 0 && !neg && s[0] == '-' && (s[1] == '.' || (s[1] >= '0' && s[1] <= '9'))) {
			neg = argv[i];
			continue;
		}
		v[n++] = argv[i];
		if (i > 0 && takes_value(s) && i + 1 < argc)
			v[n++] = argv[++i];
	}
	if (neg) {
		v[n++] = (char *)"--";
		v[n++] = neg;
	}
	v[n] = NULL;
	*ret_n = n;
	return v;
}

/* ---- signals and the timeout ---- */

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void arm_timeout(uint64_t ms)
{
	struct sigaction sa = {0};
	struct itimerval it = {0};

	if (!ms)
		return;
	sa.sa_handler = on_alarm; /* no SA_RESTART: a blocked limit write returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_value.tv_sec = (time_t)(ms / 1000);
	it.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm_timeout(void)
{
	struct itimerval it = {0};

	setitimer(ITIMER_REAL, &it, NULL);
}

struct sl_state {
	struct cli *cli;
	struct mcg_group *g;
	bool progress_shown;
};

static int sl_cancelled(void *userdata)
{
	(void)userdata;
	if (cli_interrupted)
		return -EINTR;
	if (timed_out)
		return -ETIMEDOUT;
	return 0;
}

static void sl_progress(void *userdata, const struct mcg_limit_progress *p)
{
	struct sl_state *s = userdata;
	char a[32], b[32];

	if (s->cli->json || !cli_isatty())
		return;
	printf("\r\033[K%s: usage %s, target %s, %u step(s), %.1fs", mcg_group_path(s->g),
	       cli_size(p->usage, a, sizeof(a)), cli_size(p->target, b, sizeof(b)), p->steps,
	       (double)p->elapsed_ms / 1000);
	fflush(stdout);
	s->progress_shown = true;
}

static void clear_progress(struct sl_state *s)
{
	if (s->progress_shown) {
		printf("\r\033[K");
		fflush(stdout);
		s->progress_shown = false;
	}
}

/* ---- sizes ---- */

static const char *const opt_names[MCG_LK__COUNT] = {
	[MCG_LK_MAX] = "SIZE",	[MCG_LK_HIGH] = "--high", [MCG_LK_LOW] = "--low",
	[MCG_LK_MIN] = "--min", [MCG_LK_SOFT] = "--soft", [MCG_LK_SWAP] = "--swap",
};

/* Parse every value against the cgroup's current values: 0 or an exit status. */
static int parse_values(struct mcg_group *g, const struct sl_args *a, struct mcg_limit_req *req)
{
	uint64_t ref = 0;
	bool percent = false;
	size_t k;
	int r;

	for (k = 0; k < MCG_LK__COUNT; k++)
		percent |= a->val[k] && strchr(a->val[k], '%');
	/* The parent's effective limit costs a walk: only for a percentage. */
	if (percent && (r = mcg_limit_percent_ref(g, &ref)) < 0) {
		cli_err("cannot read the parent's limit of '%s': %s", mcg_group_path(g),
			mcg_strerror(r));
		return EXIT_FAILURE;
	}
	for (k = 0; k < MCG_LK__COUNT; k++) {
		uint64_t base;

		if (!a->val[k])
			continue;
		r = mcg_limit_current(g, k, &base);
		if (r < 0) {
			cli_err("cannot read the current %s of '%s': %s", mcg_limit_knob_name(k),
				mcg_group_path(g), mcg_strerror(r));
			return EXIT_FAILURE;
		}
		if (cli_parse_size(opt_names[k], a->val[k],
				   MCG_SIZE_MAX_OK | MCG_SIZE_PERCENT_OK | MCG_SIZE_RELATIVE_OK,
				   ref, base, &req->v[k]) < 0)
			return EXIT_USAGE;
	}
	return 0;
}

/* ---- output ---- */

static const char *op_name(enum mcg_limit_op op)
{
	switch (op) {
	case MCG_LW_SET:
		return "set";
	case MCG_LW_TEMP:
		return "temporary";
	case MCG_LW_RECLAIM:
		return "reclaim";
	case MCG_LW_SHRINK:
		return "shrink";
	}
	return "?";
}

static void describe_write(const struct mcg_limit_write *w, const struct mcg_limit_req *req,
			   char *buf, size_t len)
{
	char a[32], b[32], s[32];

	switch (w->op) {
	case MCG_LW_RECLAIM:
		snprintf(buf, len, "write memory.reclaim until usage <= %s (now %s)%s%s",
			 cli_size(w->value, a, sizeof(a)), cli_size(w->before, b, sizeof(b)),
			 req->step ? ", steps of " : "",
			 req->step ? cli_size(req->step, s, sizeof(s)) : "");
		break;
	case MCG_LW_TEMP:
		snprintf(buf, len,
			 "%s = %s (was %s; temporary, throttles the cgroup while it shrinks)",
			 w->knob, cli_size(w->value, a, sizeof(a)),
			 cli_size(w->before, b, sizeof(b)));
		break;
	case MCG_LW_SHRINK:
		snprintf(buf, len, "%s = %s (was %s; the kernel reclaims first%s%s, EBUSY retried)",
			 w->knob, cli_size(w->value, a, sizeof(a)),
			 cli_size(w->before, b, sizeof(b)), req->step ? ", steps of " : "",
			 req->step ? cli_size(req->step, s, sizeof(s)) : "");
		break;
	case MCG_LW_SET:
		snprintf(buf, len, "%s = %s (was %s)", w->knob, cli_size(w->value, a, sizeof(a)),
			 cli_size(w->before, b, sizeof(b)));
		break;
	}
}

static void json_pre(const struct mcg_limit_pre *p)
{
	jw_open_object(stdout, "preflight");
	jw_size(stdout, "usage", p->usage, true);
	jw_size(stdout, "limit", p->limit, true);
	jw_size(stdout, "target", p->target, true);
	jw_size(stdout, "anon", p->anon, true);
	jw_size(stdout, "file", p->file, true);
	jw_size(stdout, "shmem", p->shmem, true);
	jw_size(stdout, "kernel", p->kernel, true);
	jw_size(stdout, "unevictable", p->unevictable, true);
	jw_size(stdout, "dirty", p->dirty, true);
	jw_size(stdout, "writeback", p->writeback, true);
	jw_size(stdout, "swap_headroom", p->swap_headroom, true);
	jw_size(stdout, "floor", p->floor, true);
	jw_size(stdout, "reclaim", p->reclaim, true);
	jw_size(stdout, "parent_limit", p->parent_limit, true);
	jw_string(stdout, "verdict", mcg_limit_verdict_name(p->verdict));
	jw_close_object(stdout);
}

static void json_plan(const struct mcg_limit_plan *pl, bool done)
{
	size_t i;

	jw_open_array(stdout, "plan");
	for (i = 0; i < pl->n; i++) {
		const struct mcg_limit_write *w = &pl->w[i];

		jw_open_object(stdout, NULL);
		jw_string(stdout, "op", op_name(w->op));
		jw_string(stdout, "knob", w->knob);
		jw_size(stdout, "before", w->before, true);
		jw_size(stdout, "value", w->value, true);
		jw_size(stdout, "after", w->after, done && w->done);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
}

static void text_pre(const struct mcg_group *g, const struct mcg_limit_pre *p)
{
	char u[32], l[32], t[32], an[32], fi[32], sh[32], ke[32], ue[32], di[32], wb[32], sw[32],
		fl[32], pa[32];

	printf("cgroup %s (cgroup v%d)\n", mcg_group_path(g), p->version);
	printf("preflight: usage %s, limit %s -> %s, parent's effective limit %s\n",
	       cli_size(p->usage, u, sizeof(u)), cli_size(p->limit, l, sizeof(l)),
	       cli_size(p->target, t, sizeof(t)), cli_size(p->parent_limit, pa, sizeof(pa)));
	printf("  anon %s, file %s (dirty %s, writeback %s), shmem %s, kernel %s, unevictable %s\n",
	       cli_size(p->anon, an, sizeof(an)), cli_size(p->file, fi, sizeof(fi)),
	       cli_size(p->dirty, di, sizeof(di)), cli_size(p->writeback, wb, sizeof(wb)),
	       cli_size(p->shmem, sh, sizeof(sh)), cli_size(p->kernel, ke, sizeof(ke)),
	       cli_size(p->unevictable, ue, sizeof(ue)));
	printf("  swap headroom %s, unreclaimable floor %s\n",
	       cli_size(p->swap_headroom, sw, sizeof(sw)), cli_size(p->floor, fl, sizeof(fl)));
}

static void text_verdict(const struct mcg_limit_pre *p, bool oom_ok)
{
	char a[32], b[32];

	switch (p->verdict) {
	case MCG_LV_OK:
		printf("verdict: ok, no reclaim needed\n");
		break;
	case MCG_LV_RECLAIM:
		printf("verdict: ok, %s to reclaim first%s\n", cli_size(p->reclaim, a, sizeof(a)),
		       p->dirty + p->writeback ? " (dirty pages wait for writeback)" : "");
		break;
	case MCG_LV_BELOW_FLOOR:
		printf("verdict: refused, target %s is below the unreclaimable floor %s\n",
		       cli_size(p->target, a, sizeof(a)), cli_size(p->floor, b, sizeof(b)));
		break;
	case MCG_LV_FORCED:
		printf("verdict: forced, target %s is below the unreclaimable floor %s%s\n",
		       cli_size(p->target, a, sizeof(a)), cli_size(p->floor, b, sizeof(b)),
		       oom_ok ? "; the kernel may OOM-kill"
			      : "; the change is rolled back if reclaim "
				"cannot reach it");
		break;
	}
}

/* What holds the memory, from memory.stat: for failure messages. */
static void holders(const struct mcg_group *g, char *buf, size_t len)
{
	struct mcg_info i;
	char u[32], an[32], fi[32], di[32], wb[32], sh[32], ke[32], ue[32];
	unsigned kids = 0;

	if (mcg_group_info(g, &i) < 0) {
		snprintf(buf, len, "memory.stat unreadable");
		return;
	}
#define ST(id) (mcg_stat_has(&i.stat, id) ? i.stat.v[id] : 0)
	if (mcg_info_has(&i, MCG_F_NR_CHILDREN))
		kids = (unsigned)i.f[MCG_F_NR_CHILDREN];
	snprintf(buf, len,
		 "usage %s: anon %s, file %s (dirty %s, writeback %s), shmem %s, kernel %s, "
		 "unevictable %s; %u child cgroup(s)",
		 cli_size(mcg_info_has(&i, MCG_F_USAGE) ? i.f[MCG_F_USAGE] : 0, u, sizeof(u)),
		 cli_size(ST(MCG_S_ANON), an, sizeof(an)), cli_size(ST(MCG_S_FILE), fi, sizeof(fi)),
		 cli_size(ST(MCG_S_FILE_DIRTY), di, sizeof(di)),
		 cli_size(ST(MCG_S_FILE_WRITEBACK), wb, sizeof(wb)),
		 cli_size(ST(MCG_S_SHMEM), sh, sizeof(sh)),
		 cli_size(ST(MCG_S_KERNEL), ke, sizeof(ke)),
		 cli_size(ST(MCG_S_UNEVICTABLE), ue, sizeof(ue)), kids);
#undef ST
	mcg_info_release(&i);
}

static void systemd_hint(const struct mcg_group *g, const struct mcg_limit_req *req,
			 const struct sl_args *a)
{
	static const char *const v2prop[MCG_LK__COUNT] = {
		[MCG_LK_MAX] = "MemoryMax",	 [MCG_LK_HIGH] = "MemoryHigh",
		[MCG_LK_LOW] = "MemoryLow",	 [MCG_LK_MIN] = "MemoryMin",
		[MCG_LK_SWAP] = "MemorySwapMax",
	};
	const char *unit = mcg_limit_systemd_unit(g);
	char props[512] = "";
	size_t k, o = 0;

	if (!unit)
		return;
	for (k = 0; k < MCG_LK__COUNT; k++) {
		const char *prop = mcg_ctx_version(mcg_group_ctx(g)) == 2 ? v2prop[k]
				   : k == MCG_LK_MAX			  ? "MemoryLimit"
									  : NULL;

		if (!a->val[k] || !prop || o >= sizeof(props))
			continue;
		if (req->v[k] == MCG_MAX)
			o += (size_t)snprintf(props + o, sizeof(props) - o, " %s=infinity", prop);
		else
			o += (size_t)snprintf(props + o, sizeof(props) - o, " %s=%llu", prop,
					      (unsigned long long)req->v[k]);
	}
	cli_warn("'%s' belongs to systemd unit %s, which may revert this change; the persistent "
		 "way is: systemctl set-property %s%s",
		 mcg_group_path(g), unit, unit, props);
}

/* Write permission on every file the request touches, before taking any lock. */
static int check_access(const struct mcg_group *g, const struct sl_args *a)
{
	int version = mcg_ctx_version(mcg_group_ctx(g));
	size_t k;

	for (k = 0; k < MCG_LK__COUNT; k++) {
		const char *f = mcg_limit_knob_file(version, (enum mcg_limit_knob)k);

		if (!a->val[k] || !f)
			continue;
		if (faccessat(mcg_group_dirfd(g), f, W_OK, AT_EACCESS) < 0) {
			int e = errno;

			cli_err("cannot set %s of '%s': %s", f, mcg_group_path(g), strerror(e));
			return EXIT_FAILURE;
		}
	}
	return 0;
}

static void stale_report(const struct mcg_recovery *r, void *userdata)
{
	bool *dry = userdata;

	if (*dry && r->error == 0)
		cli_warn("'%s' has a journal left by an interrupted '%s' (pid %d); a real run "
			 "restores its %d saved value(s) first (or run 'memcgctl recover %s')",
			 r->path, r->op, (int)r->pid, r->restored, r->path);
	else
		cli_report_recovery(r, *dry, true);
}

/* Take the cgroup's lock, restoring a journal left by a killed run first. */
static int begin(struct cli *cli, struct mcg_group *g, bool wait, struct mcg_txn **t)
{
	int r, tries;

	for (tries = 0; tries < 3; tries++) {
		bool dry = false;

		r = mcg_txn_begin(g, wait ? MCG_TXN_WAIT : 0, "set-limit", t);
		if (r != -MCG_E_STALE_JOURNAL)
			break;
		r = mcg_recover(cli->ctx, mcg_group_path(g), false, stale_report, &dry);
		if (r < 0 && cli_report_rundir(cli->ctx, r))
			return EXIT_FAILURE;
		if (r < 0) {
			cli_err("cannot recover '%s' from a journal of an interrupted run: %s; run "
				"'memcgctl recover %s'",
				mcg_group_path(g), mcg_strerror(r), mcg_group_path(g));
			return EXIT_NOT_RESTORED;
		}
		r = -MCG_E_STALE_JOURNAL;
	}
	if (r == -MCG_E_LOCKED) {
		cli_err("cannot change '%s': another memcgctl is changing it; use --wait to wait "
			"for it",
			mcg_group_path(g));
		return EXIT_LOCKED;
	}
	if (r == -MCG_E_STALE_JOURNAL) {
		cli_err("cannot change '%s': a journal of an interrupted run could not be "
			"restored; run "
			"'memcgctl recover %s'",
			mcg_group_path(g), mcg_group_path(g));
		return EXIT_NOT_RESTORED;
	}
	if (r < 0 && cli_report_rundir(cli->ctx, r))
		return EXIT_FAILURE;
	if (r < 0) {
		cli_err("cannot lock '%s' under %s: %s", mcg_group_path(g),
			mcg_ctx_rundir(mcg_group_ctx(g)), mcg_strerror(r));
		return EXIT_FAILURE;
	}
	return 0;
}

static void print_result(struct cli *cli, const struct mcg_group *g,
			 const struct mcg_limit_req *req, const struct mcg_limit_pre *pre,
			 const struct mcg_limit_plan *pl, const char *status, const char *error,
			 bool restored, bool dry_run)
{
	uint64_t usage = 0;
	bool have_usage = mcg_group_usage(g, &usage) == 0;
	size_t i;

	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_string(stdout, "cgroup", mcg_group_path(g));
		jw_i64(stdout, "version", pre->version);
		jw_bool(stdout, "dry_run", dry_run);
		jw_string(stdout, "status", status);
		if (error)
			jw_string(stdout, "error", error);
		else
			jw_null(stdout, "error");
		jw_bool(stdout, "restored", restored);
		jw_size(stdout, "step", req->step, req->step != 0);
		if (req->timeout_ms)
			jw_u64(stdout, "timeout_ms", req->timeout_ms);
		else
			jw_null(stdout, "timeout_ms");
		json_pre(pre);
		json_plan(pl, !dry_run && !strcmp(status, "ok"));
		jw_size(stdout, "usage_after", usage, have_usage && !dry_run);
		jw_close_object(stdout);
		jw_end(stdout);
		return;
	}
	if (strcmp(status, "ok"))
		return; /* the error message said it */
	for (i = 0; i < pl->n; i++) {
		const struct mcg_limit_write *w = &pl->w[i];
		char a[32], b[32], c[32];

		uint64_t before = w->before;
		size_t j;

		if (w->op == MCG_LW_RECLAIM || w->op == MCG_LW_TEMP)
			continue;
		/* a knob set temporarily during the shrink: report against its original value */
		for (j = 0; j < i; j++)
			if (pl->w[j].op == MCG_LW_TEMP && !strcmp(pl->w[j].knob, w->knob))
				before = pl->w[j].before;
		if (before == w->after && w->after == w->value)
			continue; /* put back as it was */
		printf("%s: %s %s -> %s", mcg_group_path(g), w->knob,
		       cli_size(before, a, sizeof(a)), cli_size(w->after, b, sizeof(b)));
		if (w->after != w->value)
			printf(" (asked %s, the kernel set %s)", cli_size(w->value, c, sizeof(c)),
			       cli_size(w->after, b, sizeof(b)));
		putchar('\n');
	}
	if (!pl->n)
		printf("%s: nothing to change\n", mcg_group_path(g));
	if (have_usage) {
		char u[32];

		printf("%s: usage %s\n", mcg_group_path(g), cli_size(usage, u, sizeof(u)));
	}
}

static int sl_run(struct cli *cli, int argc, char **argv)
{
	struct sl_args a = {0};
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan plan;
	struct mcg_limit_failure fail = {0};
	struct sl_state st = {.cli = cli};
	struct mcg_limit_ops ops = {sl_cancelled, sl_progress, &st};
	struct mcg_txn *t = NULL;
	struct mcg_group *g = NULL;
	char **v, why[160], msg[1024], hold[512];
	int r, vn, status = EXIT_FAILURE;
	size_t k;

	v = fix_negative(argc, argv, &vn);
	if (!v)
		return EXIT_FAILURE;
	r = cli_parse(&sl_argp, vn, v, &a);
	free(v);
	if (r)
		return r;
	mcg_limit_req_init(&req);
	if (a.allow_oom)
		req.flags |= MCG_LIMIT_ALLOW_OOM;
	if (a.force)
		req.flags |= MCG_LIMIT_FORCE;
	if (a.step && (cli_parse_size("--step", a.step, 0, 0, 0, &req.step) < 0))
		return EXIT_USAGE;
	if (a.step && !req.step) {
		cli_err("invalid size for --step: '%s': must be at least one page", a.step);
		return EXIT_USAGE;
	}
	if (a.timeout && cli_parse_duration("--timeout", a.timeout, &req.timeout_ms) < 0)
		return EXIT_USAGE;
	if (a.timeout && !req.timeout_ms) {
		cli_err("invalid duration for --timeout: '%s': must be more than 0", a.timeout);
		return EXIT_USAGE;
	}
	r = cli_open_group(cli, a.cgroup, &g);
	if (r < 0)
		return cli_status(r);
	st.g = g;
	if (mcg_group_is_root(g)) {
		cli_err("cannot set limits of the root cgroup '%s': the kernel has none there",
			a.cgroup);
		status = EXIT_USAGE;
		goto out;
	}
	for (k = 0; k < MCG_LK__COUNT; k++) {
		if (a.val[k] && mcg_limit_supported(g, k, why, sizeof(why)) < 0) {
			cli_err("cannot set %s on '%s': %s", opt_names[k], mcg_group_path(g), why);
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (a.allow_oom && mcg_ctx_version(cli->ctx) == 1) {
		cli_err("cannot use --allow-oom on '%s': cgroup v1 limit writes never OOM-kill "
			"(they "
			"fail with EBUSY); use --force to try below the floor",
			mcg_group_path(g));
		status = EXIT_USAGE;
		goto out;
	}
	status = parse_values(g, &a, &req);
	if (status)
		goto out;
	systemd_hint(g, &req, &a);

	if (a.dry_run) {
		bool dry = true;

		mcg_recover(cli->ctx, mcg_group_path(g), true, stale_report, &dry);
	} else {
		status = check_access(g, &a);
		if (status)
			goto out;
		status = begin(cli, g, a.wait, &t);
		if (status)
			goto out;
		cli_trap_signals();
		/* The lock is ours: read the values again (another run may have just changed them).
		 */
		mcg_limit_req_init(&req);
		req.flags =
			(a.allow_oom ? MCG_LIMIT_ALLOW_OOM : 0) | (a.force ? MCG_LIMIT_FORCE : 0);
		if (a.step)
			cli_parse_size("--step", a.step, 0, 0, 0, &req.step);
		if (a.timeout)
			cli_parse_duration("--timeout", a.timeout, &req.timeout_ms);
		status = parse_values(g, &a, &req);
		if (status)
			goto out;
	}
	status = EXIT_FAILURE;
	r = mcg_limit_preflight(g, &req, &pre);
	if (r < 0) {
		cli_err("cannot read the state of '%s': %s", mcg_group_path(g), mcg_strerror(r));
		goto out;
	}
	r = mcg_limit_plan(g, &req, &pre, &plan);
	if (r < 0) {
		cli_err("cannot plan the change of '%s': %s", mcg_group_path(g), mcg_strerror(r));
		goto out;
	}
	if (pre.target != MCG_MAX && pre.parent_limit != MCG_MAX && pre.target > pre.parent_limit) {
		char a1[32], b1[32];

		cli_warn("the parent's effective limit %s is below %s: '%s' stays bound by it",
			 cli_size(pre.parent_limit, a1, sizeof(a1)),
			 cli_size(pre.target, b1, sizeof(b1)), mcg_group_path(g));
	}
	if (a.dry_run) {
		if (cli->json) {
			print_result(cli, g, &req, &pre, &plan,
				     pre.verdict == MCG_LV_BELOW_FLOOR ? "refused" : "planned",
				     NULL, false, true);
		} else {
			text_pre(g, &pre);
			printf("plan:\n");
			for (k = 0; k < plan.n; k++) {
				describe_write(&plan.w[k], &req, msg, sizeof(msg));
				printf("  %zu. %s\n", k + 1, msg);
			}
			if (!plan.n)
				printf("  nothing to change\n");
			text_verdict(&pre, a.allow_oom);
		}
		status = pre.verdict == MCG_LV_BELOW_FLOOR ? EXIT_FAILURE : 0;
		goto out;
	}
	if (pre.verdict == MCG_LV_BELOW_FLOOR) {
		char ta[32], fa[32];

		holders(g, hold, sizeof(hold));
		cli_err("refusing to set the limit of '%s' to %s: below what cannot be reclaimed "
			"(floor %s; %s); %s",
			mcg_group_path(g), cli_size(pre.target, ta, sizeof(ta)),
			cli_size(pre.floor, fa, sizeof(fa)), hold,
			pre.version == 2 ? "--allow-oom lets the kernel OOM-kill, --force tries "
					   "reclaim anyway"
					 : "--force tries anyway (the kernel answers EBUSY)");
		print_result(cli, g, &req, &pre, &plan, "refused", "below the unreclaimable floor",
			     false, false);
		goto out;
	}
	arm_timeout(req.timeout_ms);
	r = mcg_limit_apply(t, &req, &plan, &ops, &fail);
	disarm_timeout();
	clear_progress(&st);
	if (r == 0) {
		status = 0;
		print_result(cli, g, &req, &pre, &plan, "ok", NULL, false, false);
		goto out;
	}
	/* Failed: say what, what holds the memory, and whether the originals are back. */
	{
		const struct mcg_limit_write *w = &plan.w[fail.index < plan.n ? fail.index : 0];
		char ta[32], ua[32];
		const char *what, *st_name;

		holders(g, hold, sizeof(hold));
		if (r == -EINTR && cli_interrupted) {
			what = strsignal(cli_interrupted);
			st_name = "interrupted";
		} else if (r == -ETIMEDOUT || (r == -EINTR && timed_out)) {
			what = "timed out";
			st_name = "timeout";
		} else {
			what = mcg_strerror(r);
			st_name = "failed";
		}
		if (!plan.n)
			snprintf(msg, sizeof(msg), "cannot change '%s': %s", mcg_group_path(g),
				 what);
		else if (w->op == MCG_LW_RECLAIM)
			snprintf(msg, sizeof(msg),
				 "cannot shrink '%s' to %s: %s; reclaim stopped at %s (%s)%s",
				 mcg_group_path(g), cli_size(w->value, ta, sizeof(ta)),
				 r == -EBUSY ? "reclaim makes no progress" : what,
				 cli_size(fail.usage, ua, sizeof(ua)), hold,
				 r == -EBUSY ? "; memory.max was not written, it would OOM-kill "
					       "(--allow-oom allows that)"
					     : "");
		else
			snprintf(msg, sizeof(msg), "cannot set %s of '%s' to %s: %s (%s)", w->knob,
				 mcg_group_path(g), cli_size(w->value, ta, sizeof(ta)), what, hold);
		if (fail.conflict) {
			cli_report_conflict("set-limit of", mcg_group_path(g), fail.knob,
					    fail.found, fail.expected);
			if (!fail.rolled_back)
				cli_err("and could not restore the other original values: %s; the "
					"journal %s is kept: run 'memcgctl recover %s'",
					mcg_strerror(fail.rollback_err), mcg_txn_journal_path(t),
					mcg_group_path(g));
		} else if (fail.rolled_back) {
			cli_err("%s; restored the original values", msg);
		} else {
			cli_err("%s; and could not restore the original values: %s; the journal %s "
				"is kept: run 'memcgctl recover %s'",
				msg, mcg_strerror(fail.rollback_err), mcg_txn_journal_path(t),
				mcg_group_path(g));
		}
		if (fail.conflict)
			st_name = "conflict";
		print_result(cli, g, &req, &pre, &plan, st_name, what, fail.rolled_back, false);
		if (!fail.rolled_back)
			status = EXIT_NOT_RESTORED;
		else if (fail.conflict)
			status = EXIT_CONFLICT;
		else if (r == -EINTR && cli_interrupted)
			status = 128 + cli_interrupted;
		else
			status = EXIT_FAILURE;
	}
out:
	mcg_txn_free(t);
	mcg_group_close(g);
	return status;
}

const struct mcg_cmd cmd_set_limit = {
	.name = "set-limit",
	.summary = "Change memory limits safely (preflight, ordered writes, rollback)",
	.argp = &sl_argp,
	.run = sl_run,
};
