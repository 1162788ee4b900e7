/* cmd-set-limit.c: "memcgctl set-limit": change limits safely, with preflight, plan and rollback.
 */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "cgroup-arg.h"
#include "journal-report.h"
#include <memcg/async.h>

#include <string.h>

enum {
	OPT_HIGH = 0x200,
	OPT_LOW,
	OPT_MIN,
	OPT_SOFT,
	OPT_SWAP,
	OPT_STEP,
	OPT_TIMEOUT,
	OPT_ALLOW_OOM,
	OPT_RUNTIME,
	OPT_NO_SYSTEMD,
	OPT_SWAP_HIGH,
	OPT_ZSWAP_MAX,
};

struct sl_args {
	const char *cgroup, *size;
	const char *val[MCG_LK__COUNT]; /* strings of the value options, [MCG_LK_MAX] = SIZE */
	const char *step, *timeout;
	bool dry_run, allow_oom, force, wait, runtime, no_systemd;
};

static const struct argp_option sl_options[] = {
	{"high", OPT_HIGH, "SIZE", 0, "Also set memory.high, the throttle limit (v2)", 0},
	{"low", OPT_LOW, "SIZE", 0, "Also set memory.low, best-effort protection (v2)", 0},
	{"min", OPT_MIN, "SIZE", 0, "Also set memory.min, hard protection (v2)", 0},
	{"soft", OPT_SOFT, "SIZE", 0, "Also set memory.soft_limit_in_bytes (v1)", 0},
	{"swap", OPT_SWAP, "SIZE", 0,
	 "Swap allowed on top of the limit: v2 memory.swap.max, v1 memsw = limit + SIZE", 0},
	{"swap-high", OPT_SWAP_HIGH, "SIZE", 0,
	 "Also set memory.swap.high, where swap-out is throttled (v2, Linux 5.8)", 0},
	{"zswap-max", OPT_ZSWAP_MAX, "SIZE", 0,
	 "Also set memory.zswap.max, the compressed swap cache's limit (v2, Linux 5.19)", 0},
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
	{"runtime", OPT_RUNTIME, NULL, 0,
	 "A systemd unit's cgroup: set the unit's properties until reboot only (systemctl "
	 "set-property --runtime)",
	 0},
	{"no-systemd", OPT_NO_SYSTEMD, NULL, 0,
	 "A systemd unit's cgroup: write the kernel's files only, not the unit's properties "
	 "(systemd may revert the change)",
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
	case OPT_SWAP_HIGH:
		a->val[MCG_LK_SWAP_HIGH] = arg;
		break;
	case OPT_ZSWAP_MAX:
		a->val[MCG_LK_ZSWAP_MAX] = arg;
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
	case OPT_RUNTIME:
		a->runtime = true;
		break;
	case OPT_NO_SYSTEMD:
		a->no_systemd = true;
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

		cli_need_cgroup(state, a->cgroup);
		for (k = 0; k < MCG_LK__COUNT; k++)
			any |= a->val[k] != NULL;
		if (!any)
			argp_error(state,
				   "missing SIZE (or one of --high --low --min --soft --swap "
				   "--swap-high --zswap-max)");
		if (a->runtime && a->no_systemd)
			argp_error(state, "--runtime sets systemd's properties: not with --no-systemd");
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
	"(relative to the current value; -256M needs no '--').\n"
	"CGROUP may be a systemd unit (web.service). On cgroup v2 a unit's own cgroup gets the "
	"final values through systemd too (SetUnitProperties, as systemctl set-property), so a "
	"daemon-reload keeps them; --runtime for until reboot, --no-systemd for the kernel "
	"only.",
	cli_common_children,
	NULL,
	NULL,
};

/* Options that take a separate argument, so that "-256M" after them is their value. */
static bool takes_value(const char *arg)
{
	static const char *const longs[] = {"--high",	   "--low",	  "--min",     "--soft",
					    "--swap",	   "--swap-high", "--zswap-max", "--step",
					    "--timeout",   "--root",	  "--proc",    "--run-dir",
					    "--cgroup-version"};
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

struct sl_state {
	struct cli *cli;
	struct mcg_group *g;
	const struct mcg_limit_spec *spec;
	bool progress_shown;
};

static void sl_progress(void *userdata, const struct mcg_limit_progress *p)
{
	struct sl_state *s = userdata;
	char a[32], b[32];

	if (s->cli->json || !cli_isatty())
		return;
	printf("\r\033[K%s: usage %s, target %s, %u step(s), %.1fs", out_esc(mcg_group_path(s->g)),
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

static const char *const opt_names[MCG_LK__COUNT] = {
	[MCG_LK_MAX] = "SIZE",	[MCG_LK_HIGH] = "--high", [MCG_LK_LOW] = "--low",
	[MCG_LK_MIN] = "--min", [MCG_LK_SOFT] = "--soft", [MCG_LK_SWAP] = "--swap",
	[MCG_LK_SWAP_HIGH] = "--swap-high", [MCG_LK_ZSWAP_MAX] = "--zswap-max",
};

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
	jw_bytes(stdout, "usage_bytes", p->usage, true);
	jw_bytes(stdout, "limit_bytes", p->limit, true);
	jw_bytes(stdout, "target_bytes", p->target, true);
	jw_bytes(stdout, "anon_bytes", p->anon, true);
	jw_bytes(stdout, "file_bytes", p->file, true);
	jw_bytes(stdout, "shmem_bytes", p->shmem, true);
	jw_bytes(stdout, "kernel_bytes", p->kernel, true);
	jw_bytes(stdout, "unevictable_bytes", p->unevictable, true);
	jw_bytes(stdout, "dirty_bytes", p->dirty, true);
	jw_bytes(stdout, "writeback_bytes", p->writeback, true);
	jw_bytes(stdout, "swap_headroom_bytes", p->swap_headroom, true);
	jw_bytes(stdout, "floor_bytes", p->floor, true);
	jw_bytes(stdout, "reclaim_bytes", p->reclaim, true);
	jw_bytes(stdout, "parent_limit_bytes", p->parent_limit, true);
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
		jw_bytes(stdout, "before_bytes", w->before, true);
		jw_bytes(stdout, "value_bytes", w->value, true);
		/* as read back; left out when not written */
		jw_bytes(stdout, "after_bytes", w->after, done && w->done);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
}

static void text_pre(const struct mcg_group *g, const struct mcg_limit_pre *p)
{
	char u[32], l[32], t[32], an[32], fi[32], sh[32], ke[32], ue[32], di[32], wb[32], sw[32],
		fl[32], pa[32];

	printf("cgroup %s (cgroup v%d)\n", out_esc(mcg_group_path(g)), p->version);
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

/* What holds the memory, from the cgroup's record: for failure messages. */
static void holders(const struct mcg_group *g, char *buf, size_t len)
{
	struct mcg_record r;
	char u[32], an[32], fi[32], di[32], wb[32], sh[32], ke[32], ue[32];

	if (mcg_group_read_record(g, &r, NULL) < 0) {
		snprintf(buf, len, "memory.stat unreadable");
		return;
	}
#define ST(k) mcg_record_get(&r, MCG_K_##k, 0)
	snprintf(buf, len,
		 "usage %s: anon %s, file %s (dirty %s, writeback %s), shmem %s, kernel %s, "
		 "unevictable %s; %u child cgroup(s)",
		 cli_size(ST(USAGE), u, sizeof(u)), cli_size(ST(ANON), an, sizeof(an)),
		 cli_size(ST(FILE), fi, sizeof(fi)), cli_size(ST(DIRTY), di, sizeof(di)),
		 cli_size(ST(WRITEBACK), wb, sizeof(wb)), cli_size(ST(SHMEM), sh, sizeof(sh)),
		 cli_size(ST(KERNEL), ke, sizeof(ke)), cli_size(ST(UNEVICTABLE), ue, sizeof(ue)),
		 (unsigned)ST(NR_CHILDREN));
#undef ST
}

static void systemd_hint(const struct mcg_group *g, const struct mcg_limit_req *req,
			 const struct mcg_limit_spec *spec)
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

		if (!spec->v[k] || !prop || o >= sizeof(props))
			continue;
		if (req->v[k] == MCG_MAX)
			o += (size_t)snprintf(props + o, sizeof(props) - o, " %s=infinity", prop);
		else
			o += (size_t)snprintf(props + o, sizeof(props) - o, " %s=%llu", prop,
					      (unsigned long long)req->v[k]);
	}
	cli_warn("'%s' belongs to systemd unit %s, which may revert this change; the persistent "
		 "way is: systemctl set-property %s%s",
		 out_esc(mcg_group_path(g)), out_esc(unit), out_esc(unit), props);
}

/* The D-Bus call to systemd, as a busctl command line (the dry run prints it). */
static void busctl_line(const struct mcg_limit_systemd *sd, char *buf, size_t len)
{
	size_t o, i;

	o = (size_t)snprintf(buf, len,
			     "busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 "
			     "org.freedesktop.systemd1.Manager SetUnitProperties 'sba(sv)' %s %s %zu",
			     out_esc(sd->unit), sd->runtime ? "true" : "false", sd->n);
	for (i = 0; i < sd->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, " %s t %llu", sd->props[i].name,
				      (unsigned long long)sd->props[i].value);
}

/* MemoryMax=200M MemoryHigh=infinity, as systemctl set-property takes them. */
static void props_text(const struct mcg_limit_systemd *sd, char *buf, size_t len)
{
	size_t o = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sd->n && o < len; i++) {
		if (sd->props[i].value == MCG_MAX)
			o += (size_t)snprintf(buf + o, len - o, "%s%s=infinity", i ? " " : "",
					      sd->props[i].name);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s=%llu", i ? " " : "",
					      sd->props[i].name,
					      (unsigned long long)sd->props[i].value);
	}
}

static void json_systemd(const struct mcg_limit_systemd *sd, bool dry_run)
{
	size_t i;

	if (!sd->used)
		return;
	jw_open_object(stdout, "systemd");
	jw_string(stdout, "unit", sd->unit);
	jw_bool(stdout, "runtime", sd->runtime);
	jw_bool(stdout, "done", !dry_run && sd->done);
	jw_open_array(stdout, "properties");
	for (i = 0; i < sd->n; i++) {
		jw_open_object(stdout, NULL);
		jw_string(stdout, "name", sd->props[i].name);
		jw_bytes(stdout, "value_bytes", sd->props[i].value, true);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
	jw_close_object(stdout);
}

/* When mcg_limit_apply() started, for elapsed_ns. */
static uint64_t sl_start_ns;

static void print_result(struct cli *cli, const struct mcg_group *g,
			 const struct mcg_limit_result *res, uint64_t timeout_ms, const char *status,
			 const char *error, bool dry_run)
{
	const struct mcg_limit_req *req = &res->req;
	const struct mcg_limit_pre *pre = &res->pre;
	const struct mcg_limit_plan *pl = &res->plan;
	/* put back after a failed write, or after systemd refused the values */
	bool undone = res->stage == MCG_LS_APPLY ||
		      (res->stage == MCG_LS_SYSTEMD && res->systemd.used);
	bool restored = undone && res->fail.rolled_back;
	uint64_t usage = 0;
	bool have_usage = mcg_group_usage(g, &usage) == 0;
	size_t i;

	if (cli->json) {
		const struct mcg_limit_failure *f = &res->fail;

		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_string(stdout, "cgroup", mcg_group_path(g));
		jw_i64(stdout, "version", pre->version);
		jw_bool(stdout, "dry_run", dry_run);
		jw_string(stdout, "result", status);
		if (error)
			jw_string(stdout, "error", error);
		else
			jw_null(stdout, "error");
		jw_bool(stdout, "restored", restored);
		jw_bytes(stdout, "step_bytes", req->step, req->step != 0);
		if (timeout_ms)
			jw_u64(stdout, "timeout_ns", timeout_ms * 1000000ULL);
		else
			jw_null(stdout, "timeout_ns"); /* no timeout: unlimited */
		if (!dry_run) /* the time the change took: a dry run makes none */
			jw_u64(stdout, "elapsed_ns", mcg_monotonic_ns() - sl_start_ns);
		if (undone && f->conflict) {
			jw_string(stdout, "knob", f->knob);
			jw_bytes(stdout, "found_bytes", f->found, true);
			jw_bytes(stdout, "expected_bytes", f->expected, true);
		}
		json_pre(pre);
		json_plan(pl, !dry_run && !strcmp(status, "ok"));
		json_systemd(&res->systemd, dry_run);
		jw_bytes(stdout, "usage_bytes", usage, have_usage && !dry_run);
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
		printf("%s: %s %s -> %s", out_esc(mcg_group_path(g)), w->knob,
		       cli_size(before, a, sizeof(a)), cli_size(w->after, b, sizeof(b)));
		if (w->after != w->value)
			printf(" (asked %s, the kernel set %s)", cli_size(w->value, c, sizeof(c)),
			       cli_size(w->after, b, sizeof(b)));
		putchar('\n');
	}
	if (!pl->n)
		printf("%s: nothing to change\n", out_esc(mcg_group_path(g)));
	if (res->systemd.done) {
		char props[512];

		props_text(&res->systemd, props, sizeof(props));
		printf("%s: systemd unit %s: %s (%s)\n", out_esc(mcg_group_path(g)),
		       out_esc(res->systemd.unit), props,
		       res->systemd.runtime ? "runtime, until reboot" : "persistent");
	}
	if (have_usage) {
		char u[32];

		printf("%s: usage %s\n", out_esc(mcg_group_path(g)), cli_size(usage, u, sizeof(u)));
	}
}

static void sl_recovered(const struct mcg_recovery *r, void *userdata)
{
	struct sl_state *s = userdata;

	bool dry = s->spec->flags & MCG_LIMIT_DRY_RUN;

	if (dry && r->error == 0)
		cli_warn("'%s' has a journal left by an interrupted '%s' (pid %d); a real run "
			 "restores its %d saved value(s) first (or run 'memcgctl recover %s')",
			 out_esc(r->path), r->op, (int)r->pid, r->restored, out_esc(r->path));
	else
		cli_report_recovery(r, dry, true);
}

/* Warnings that do not stop the change, once it is planned. */
static void sl_planned(void *userdata, const struct mcg_limit_result *res)
{
	struct sl_state *s = userdata;
	const struct mcg_limit_pre *pre = &res->pre;

	/* the values go through systemd: nothing for it to revert */
	if (!res->systemd.used)
		systemd_hint(s->g, &res->req, s->spec);
	if (pre->target != MCG_MAX && pre->parent_limit != MCG_MAX &&
	    pre->target > pre->parent_limit) {
		char a[32], b[32];

		cli_warn("the parent's effective limit %s is below %s: '%s' stays bound by it",
			 cli_size(pre->parent_limit, a, sizeof(a)), cli_size(pre->target, b, sizeof(b)),
			 out_esc(mcg_group_path(s->g)));
	}
}

/* The request was wrong (64) or a value it needs could not be read (1). */
static int request_error(const struct mcg_group *g, const struct mcg_limit_spec *spec,
			 const struct mcg_limit_error *e)
{
	const char *path = out_esc(mcg_group_path(g));

	switch (e->bad) {
	case MCG_LB_ROOT:
		cli_err("cannot set limits of the root cgroup '%s': %s", path, e->why);
		break;
	case MCG_LB_UNSUPPORTED:
		cli_err("cannot set %s on '%s': %s", opt_names[e->knob], path, e->why);
		break;
	case MCG_LB_ALLOW_OOM:
		cli_err("cannot use --allow-oom on '%s': %s", path, e->why);
		break;
	case MCG_LB_STEP:
		cli_err("invalid size for --step: '%s': %s", out_esc(spec->step), e->why);
		break;
	case MCG_LB_SIZE:
		cli_err("invalid size for %s: '%s': %s", opt_names[e->knob], out_esc(spec->v[e->knob]),
			e->why);
		break;
	case MCG_LB_READ_REF:
		cli_err("cannot read the parent's limit of '%s': %s", path, e->why);
		return EXIT_FAILURE;
	case MCG_LB_READ:
		cli_err("cannot read the current %s of '%s': %s", mcg_limit_knob_name(e->knob), path,
			e->why);
		return EXIT_FAILURE;
	case MCG_LB_NOTHING:
	case MCG_LB_NONE:
		cli_err("cannot change '%s': %s", path, e->why);
		break;
	}
	return EXIT_USAGE;
}

static int lock_error(struct cli *cli, const struct mcg_group *g, int r)
{
	const char *path = out_esc(mcg_group_path(g));

	switch (r) {
	case -MCG_E_LOCKED:
		cli_err("cannot change '%s': another memcgctl is changing it; use --wait to wait "
			"for it",
			path);
		return EXIT_BUSY;
	case -MCG_E_STALE_JOURNAL:
		cli_err("cannot change '%s': a journal of an interrupted run could not be "
			"restored; run 'memcgctl recover %s'",
			path, path);
		return EXIT_NOT_RESTORED;
	case -ETIMEDOUT:
		cli_err("cannot change '%s': timed out waiting for another memcgctl", path);
		return EXIT_BUSY;
	case -EINTR:
		cli_err("cannot change '%s': interrupted waiting for another memcgctl", path);
		return 128 + (cli_interrupted ? cli_interrupted : SIGINT);
	}
	if (cli_report_rundir(cli->ctx, r))
		return EXIT_FAILURE;
	cli_err("cannot lock '%s' under %s: %s", path, out_esc(mcg_ctx_rundir(mcg_group_ctx(g))),
		mcg_strerror(r));
	return EXIT_FAILURE;
}

static int print_dry_run(struct cli *cli, const struct mcg_group *g,
			 const struct mcg_limit_result *res, uint64_t timeout_ms, bool oom_ok)
{
	bool refused = res->pre.verdict == MCG_LV_BELOW_FLOOR;
	char msg[1024];
	size_t k;

	if (cli->json) {
		print_result(cli, g, res, timeout_ms, refused ? "refused" : "planned", NULL, true);
	} else {
		text_pre(g, &res->pre);
		printf("plan:\n");
		for (k = 0; k < res->plan.n; k++) {
			describe_write(&res->plan.w[k], &res->req, msg, sizeof(msg));
			printf("  %zu. %s\n", k + 1, msg);
		}
		if (!res->plan.n)
			printf("  nothing to change\n");
		if (res->systemd.used) {
			busctl_line(&res->systemd, msg, sizeof(msg));
			printf("  %zu. systemd unit %s (%s): %s\n", k + 1, out_esc(res->systemd.unit),
			       res->systemd.runtime ? "runtime" : "persistent", msg);
		}
		text_verdict(&res->pre, oom_ok);
	}
	return refused ? EXIT_FAILURE : 0;
}

static int refused(struct cli *cli, const struct mcg_group *g, const struct mcg_limit_result *res,
		   uint64_t timeout_ms)
{
	const struct mcg_limit_pre *pre = &res->pre;
	char ta[32], fa[32], hold[512];

	holders(g, hold, sizeof(hold));
	cli_err("refusing to set the limit of '%s' to %s: below what cannot be reclaimed "
		"(floor %s; %s); %s",
		out_esc(mcg_group_path(g)), cli_size(pre->target, ta, sizeof(ta)),
		cli_size(pre->floor, fa, sizeof(fa)), hold,
		pre->version == 2 ? "--allow-oom lets the kernel OOM-kill, --force tries "
				    "reclaim anyway"
				  : "--force tries anyway (the kernel answers EBUSY)");
	print_result(cli, g, res, timeout_ms, "refused", "below the unreclaimable floor", false);
	return EXIT_FAILURE;
}

/* The writes failed: say what, what holds the memory, and whether the originals are back. */
static int apply_failed(struct cli *cli, const struct mcg_group *g,
			const struct mcg_limit_result *res, uint64_t timeout_ms)
{
	const struct mcg_limit_plan *plan = &res->plan;
	const struct mcg_limit_failure *fail = &res->fail;
	const struct mcg_limit_write *w = &plan->w[fail->index < plan->n ? fail->index : 0];
	const char *path = out_esc(mcg_group_path(g)), *what, *st_name;
	char ta[32], ua[32], msg[1024], hold[512];
	int r = res->err;

	holders(g, hold, sizeof(hold));
	if (r == -EINTR) {
		what = strsignal(cli_interrupted ? cli_interrupted : SIGINT);
		st_name = "interrupted";
	} else if (r == -ETIMEDOUT) {
		what = "timed out";
		st_name = "timeout";
	} else {
		what = mcg_strerror(r);
		st_name = "failed";
	}
	if (!plan->n)
		snprintf(msg, sizeof(msg), "cannot change '%s': %s", path, what);
	else if (w->op == MCG_LW_RECLAIM)
		snprintf(msg, sizeof(msg), "cannot shrink '%s' to %s: %s; reclaim stopped at %s (%s)%s",
			 path, cli_size(w->value, ta, sizeof(ta)),
			 r == -EBUSY ? "reclaim makes no progress" : what,
			 cli_size(fail->usage, ua, sizeof(ua)), hold,
			 r == -EBUSY ? "; memory.max was not written, it would OOM-kill "
				       "(--allow-oom allows that)"
				     : "");
	else
		snprintf(msg, sizeof(msg), "cannot set %s of '%s' to %s: %s (%s)", w->knob, path,
			 cli_size(w->value, ta, sizeof(ta)), what, hold);
	if (fail->conflict) {
		if (!cli_report_writer("set-limit of", mcg_group_path(g), &fail->writer))
			cli_report_conflict_from("set-limit of", mcg_group_path(g), fail->knob,
						 fail->found, fail->expected,
						 cli_limit_conflict_written(res));
		if (!fail->rolled_back)
			cli_err("and could not restore the other original values: %s; the journal %s "
				"is kept: run 'memcgctl recover %s'",
				mcg_strerror(fail->rollback_err), out_esc(res->journal), path);
		st_name = "conflict";
	} else if (fail->rolled_back) {
		cli_err("%s; restored the original values", msg);
	} else {
		cli_err("%s; and could not restore the original values: %s; the journal %s is kept: "
			"run 'memcgctl recover %s'",
			msg, mcg_strerror(fail->rollback_err), out_esc(res->journal), path);
	}
	if (!fail->rolled_back)
		st_name = "not_restored";
	print_result(cli, g, res, timeout_ms, st_name, what, false);
	if (!fail->rolled_back)
		return EXIT_NOT_RESTORED;
	if (fail->conflict)
		return EXIT_CONFLICT;
	if (r == -EINTR)
		return 128 + (cli_interrupted ? cli_interrupted : SIGINT);
	if (r == -ETIMEDOUT)
		return EXIT_PARTIAL; /* stopped by --timeout, the original values back */
	return EXIT_FAILURE;
}

/* systemd could not be asked, or refused the values: say why, and what was put back. */
static int systemd_failed(struct cli *cli, const struct mcg_group *g,
			  const struct mcg_limit_result *res, uint64_t timeout_ms)
{
	const struct mcg_limit_systemd *sd = &res->systemd;
	const struct mcg_limit_failure *fail = &res->fail;
	const char *path = out_esc(mcg_group_path(g));
	char props[512];

	if (!sd->used) {
		/* the unit lookup, before anything was written */
		cli_err("cannot change '%s': %s; nothing was changed (--no-systemd writes the "
			"kernel's files only)",
			path, sd->why);
		return EXIT_FAILURE;
	}
	props_text(sd, props, sizeof(props));
	if (fail->conflict) {
		cli_err("systemd refused %s for unit %s: %s", props, out_esc(sd->unit), sd->why);
		cli_report_conflict_from("set-limit of", mcg_group_path(g), fail->knob, fail->found,
					 fail->expected, cli_limit_conflict_written(res));
	} else if (fail->rolled_back) {
		cli_err("cannot set %s of unit %s through systemd: %s; restored the original values "
			"of '%s'",
			props, out_esc(sd->unit), sd->why, path);
	} else {
		cli_err("cannot set %s of unit %s through systemd: %s; and could not restore the "
			"original values of '%s': %s; the journal %s is kept: run 'memcgctl "
			"recover %s'",
			props, out_esc(sd->unit), sd->why, path, mcg_strerror(fail->rollback_err),
			out_esc(res->journal), path);
	}
	print_result(cli, g, res, timeout_ms,
		     !fail->rolled_back ? "not_restored"
		     : fail->conflict	? "conflict"
					: "failed",
		     sd->why, false);
	if (!fail->rolled_back)
		return EXIT_NOT_RESTORED;
	return fail->conflict ? EXIT_CONFLICT : EXIT_FAILURE;
}

/*
 * What mcg_limit_apply() said about SPEC, for the user: messages, output and
 * the exit status. Needs only the spec and the result: any caller of
 * mcg_limit_apply() in this binary (top's action) can report the same way.
 */
/*
 * async-reclaim's watermarks are checked against the limit when they are enabled; a new
 * limit at or below them leaves reclaimd nothing it can do for the cgroup (its state turns
 * to an error): say so here, where the limit changes, not only in reclaimd's status.
 */
static void warn_async_marks(struct cli *cli, const struct mcg_group *g, uint64_t limit,
			     bool dry_run)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	struct mcg_async_conf *confs = NULL;
	char statedir[4200], b1[32], b2[32], b3[32];
	uint64_t high, low;
	size_t n = 0, i;

	if (!ctx || limit == MCG_KEEP || mcg_async_statedir(ctx, statedir, sizeof(statedir)) < 0 ||
	    mcg_async_list(statedir, &confs, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		const struct mcg_async_conf *c = &confs[i];

		if (strcmp(c->path, mcg_group_path(g)) || strcmp(c->root, mcg_ctx_root(ctx)))
			continue;
		if (mcg_async_watermarks(c, limit, &high, &low) != -ERANGE)
			break;
		cli_warn("'%s': %s limit %s is not above async-reclaim's %s%s%s%s%s: reclaimd "
			 "cannot serve it until the watermarks are changed ('memcgctl async-reclaim "
			 "enable %s' with new ones) or it is disabled",
			 out_esc(c->path), dry_run ? "the" : "the new", cli_size(limit, b1, sizeof(b1)),
			 c->flags & MCG_ASYNC_HIGH_MARGIN ? "high margin " : "high ",
			 cli_size(c->high, b2, sizeof(b2)),
			 c->flags & MCG_ASYNC_LOW_MARGIN ? ", low margin " : ", low ",
			 cli_size(c->low, b3, sizeof(b3)),
			 c->flags & (MCG_ASYNC_HIGH_SET | MCG_ASYNC_LOW_SET) ? "" : " (the defaults)",
			 out_esc(c->path));
		break;
	}
	free(confs);
}

static int sl_report(struct cli *cli, const struct mcg_group *g, const struct mcg_limit_spec *spec,
		     const struct mcg_limit_result *res, uint64_t timeout_ms)
{
	const char *path = out_esc(mcg_group_path(g));

	switch (res->stage) {
	case MCG_LS_REQUEST:
		return request_error(g, spec, &res->error);
	case MCG_LS_ACCESS:
		cli_err("cannot set %s of '%s': %s",
			mcg_limit_knob_file(mcg_ctx_version(cli->ctx),
					    (enum mcg_limit_knob)res->error.knob),
			path, strerror(-res->err));
		return EXIT_FAILURE;
	case MCG_LS_LOCK:
		return lock_error(cli, g, res->err);
	case MCG_LS_PREFLIGHT:
		cli_err("cannot read the state of '%s': %s", path, mcg_strerror(res->err));
		return EXIT_FAILURE;
	case MCG_LS_PLAN:
		cli_err("cannot plan the change of '%s': %s", path, mcg_strerror(res->err));
		return EXIT_FAILURE;
	case MCG_LS_FLOOR:
		return refused(cli, g, res, timeout_ms);
	case MCG_LS_APPLY:
		return apply_failed(cli, g, res, timeout_ms);
	case MCG_LS_SYSTEMD:
		return systemd_failed(cli, g, res, timeout_ms);
	case MCG_LS_DONE:
		break;
	}
	if (spec->flags & MCG_LIMIT_DRY_RUN)
		return print_dry_run(cli, g, res, timeout_ms, spec->flags & MCG_LIMIT_ALLOW_OOM);
	print_result(cli, g, res, timeout_ms, "ok", NULL, false);
	return 0;
}

static int sl_run(struct cli *cli, int argc, char **argv)
{
	struct sl_args a = {0};
	struct mcg_limit_spec spec = {.step = NULL};
	struct mcg_limit_result res;
	struct mcg_cancel cancel;
	struct sl_state st = {.cli = cli, .spec = &spec};
	const struct mcg_limit_ops ops = {sl_progress, sl_planned, sl_recovered, &st};
	struct mcg_group *g = NULL;
	uint64_t timeout_ms = 0;
	char **v;
	int r, vn, status;

	v = fix_negative(argc, argv, &vn);
	if (!v)
		return EXIT_FAILURE;
	r = cli_parse(&sl_argp, vn, v, &a);
	free(v);
	if (r)
		return r;
	if (a.timeout && cli_parse_duration("--timeout", a.timeout, &timeout_ms) < 0)
		return EXIT_USAGE;
	if (a.timeout && !timeout_ms) {
		cli_err("invalid duration for --timeout: '%s': must be more than 0", out_esc(a.timeout));
		return EXIT_USAGE;
	}
	r = cli_open_cgroup(cli, a.cgroup, &g);
	if (r < 0)
		return cli_status(r);
	st.g = g;
	memcpy(spec.v, a.val, sizeof(spec.v));
	spec.step = a.step;
	spec.flags = (a.allow_oom ? MCG_LIMIT_ALLOW_OOM : 0) | (a.force ? MCG_LIMIT_FORCE : 0) |
		     (a.dry_run ? MCG_LIMIT_DRY_RUN : 0) | (a.wait ? MCG_LIMIT_WAIT : 0) |
		     (a.runtime ? MCG_LIMIT_RUNTIME : 0) | (a.no_systemd ? MCG_LIMIT_NO_SYSTEMD : 0);
	if (!a.dry_run)
		cli_trap_signals(); /* no SA_RESTART: a blocked limit write returns EINTR */
	/* the deadline counts from here: the wait for the lock is part of it */
	mcg_cancel_init(&cancel, timeout_ms, &cli_interrupted);
	sl_start_ns = mcg_monotonic_ns();
	mcg_limit_apply(g, &spec, &cancel, &ops, &res);
	clear_progress(&st);
	status = sl_report(cli, g, &spec, &res, timeout_ms);
	if (res.stage == MCG_LS_DONE)
		warn_async_marks(cli, g, res.req.v[MCG_LK_MAX], a.dry_run);
	mcg_group_close(g);
	return status;
}

const struct mcg_cmd cmd_set_limit = {
	.name = "set-limit",
	.summary = "Change memory limits safely (preflight, ordered writes, rollback)",
	.argp = &sl_argp,
	.run = sl_run,
};
