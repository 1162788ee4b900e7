/* cmd-empty.c: "memcgctl empty": reclaim a cgroup's memory in batches, with progress and residue. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "journal-report.h"

#include <string.h>
#include <unistd.h>

enum { OPT_BATCH = 0x200, OPT_TO, OPT_TIMEOUT, OPT_KERNEL, OPT_WAIT = 'w' };

struct empty_args {
	const char *cgroup;
	const char *batch, *to, *timeout;
	bool kernel, wait;
};

static const struct argp_option empty_options[] = {
	{"batch", OPT_BATCH, "N", 0,
	 "Pages per step (default 1024); a size with a suffix (4M) is bytes", 0},
	{"to", OPT_TO, "SIZE", 0, "Stop when usage is at or below SIZE (default: empty)", 0},
	{"timeout", OPT_TIMEOUT, "DURATION", 0, "Stop after DURATION (500ms, 10s, 2m)", 0},
	{"kernel", OPT_KERNEL, NULL, 0,
	 "v1: one write to memory.force_empty instead of steps (for comparison)", 0},
	{"wait", OPT_WAIT, NULL, 0,
	 "Wait for another memcgctl changing the cgroup instead of failing (within --timeout)", 0},
	{0},
};

static error_t empty_parse(int key, char *arg, struct argp_state *state)
{
	struct empty_args *a = state->input;

	switch (key) {
	case OPT_BATCH:
		a->batch = arg;
		break;
	case OPT_TO:
		a->to = arg;
		break;
	case OPT_TIMEOUT:
		a->timeout = arg;
		break;
	case OPT_KERNEL:
		a->kernel = true;
		break;
	case OPT_WAIT:
		a->wait = true;
		break;
	case ARGP_KEY_END:
		cli_need_cgroup(state, a->cgroup);
		if (a->kernel && (a->batch || a->to))
			argp_error(state, "--kernel takes no --%s: memory.force_empty reclaims "
					  "everything in fixed 32-page calls",
				   a->batch ? "batch" : "to");
		if (a->kernel && a->timeout)
			argp_error(state, "--kernel takes no --timeout: memory.force_empty is one "
					  "write that only a signal interrupts");
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp empty_argp = {
	empty_options, empty_parse, "CGROUP",
	"Reclaim CGROUP's memory in steps of --batch pages until usage reaches --to (default: "
	"as low as it goes), then say how much is left and why. cgroup v2 writes "
	"memory.reclaim; cgroup v1 lowers memory.limit_in_bytes below usage one step at a "
	"time and writes the original limit back (journalled first: 'memcgctl recover' "
	"restores it after a crash). The limit is written back only if it still holds empty's "
	"own value: if another writer changed it meanwhile, empty stops and keeps theirs. SIGINT "
	"stops within one step. Exit status (memcgctl(8)): 0 done, 1 failure, 2 timeout, 3 "
	"another writer changed the limit, 4 a limit not put back (run 'memcgctl recover'), "
	"64 usage error, 75 another memcgctl holds the lock, 130/143 interrupted.",
	cli_common_children, NULL, NULL,
};

struct progress {
	bool bar;           /* a terminal: redraw one line */
	bool lines;         /* not a terminal, -v: a plain line per second */
	uint64_t last_ns;
	bool drawn;
};

static void on_progress(const struct mcg_empty_progress *p, void *userdata)
{
	struct progress *pr = userdata;
	uint64_t now = mcg_monotonic_ns(), span = p->usage_start > p->target ? p->usage_start - p->target : 0;
	uint64_t left = p->usage > p->target ? p->usage - p->target : 0;
	char a[32], b[32], c[32];
	double rate = p->elapsed_ns ? (double)p->reclaimed * 1e9 / (double)p->elapsed_ns : 0;
	unsigned pct = span ? (unsigned)((span - (left < span ? left : span)) * 100 / span) : 100;

	if (pr->bar) {
		char bar[21];
		unsigned i, fill = pct / 5;

		if (now - pr->last_ns < 100000000ULL)
			return;
		for (i = 0; i < 20; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[20] = '\0';
		printf("\r[%s] %3u%%  reclaimed %s  %s/s  remaining %s  \033[K", bar, pct,
		       mcg_size_format(p->reclaimed, a, sizeof(a)),
		       mcg_size_format((uint64_t)rate, b, sizeof(b)),
		       mcg_size_format(left, c, sizeof(c)));
		fflush(stdout);
		pr->drawn = true;
	} else if (pr->lines) {
		if (now - pr->last_ns < 1000000000ULL)
			return;
		fprintf(stderr, "memcgctl: reclaimed %s (%s/s), %s to go, %u writes\n",
			mcg_size_format(p->reclaimed, a, sizeof(a)),
			mcg_size_format((uint64_t)rate, b, sizeof(b)),
			mcg_size_format(left, c, sizeof(c)), p->writes);
	} else {
		return;
	}
	pr->last_ns = now;
}

/* The reasons for a residue, each with its amount; NULL reason ends the list. */
struct reason {
	const char *key, *text;
	uint64_t bytes;
};

static size_t residue_reasons(const struct mcg_residue *r, struct reason *out, size_t max)
{
	size_t n = 0;
	uint64_t clean;

#define ADD(bit, k, t, v)                                                                    \
	do {                                                                                 \
		if ((r->valid & (bit)) && (v) > 0 && n < max)                                \
			out[n++] = (struct reason){k, t, v};                                 \
	} while (0)
	ADD(MCG_RESIDUE_UNEVICTABLE, "unevictable", "unevictable (mlocked) memory", r->unevictable);
	if (r->valid & MCG_RESIDUE_SWAP && r->swap_free == 0)
		ADD(MCG_RESIDUE_ANON, "anon", "anonymous memory, and no swap to put it in", r->anon);
	else
		ADD(MCG_RESIDUE_ANON, "anon", "anonymous memory (reclaimable only to swap)",
		    r->anon);
	ADD(MCG_RESIDUE_SHMEM, "shmem", "shared memory / tmpfs (reclaimable only to swap)",
	    r->shmem);
	ADD(MCG_RESIDUE_KERNEL, "kernel", "kernel memory (not reclaimed by memcg reclaim)",
	    r->kernel);
	ADD(MCG_RESIDUE_DIRTY, "dirty", "dirty page cache not yet written back",
	    r->file_dirty);
	ADD(MCG_RESIDUE_WRITEBACK, "writeback", "page cache under writeback",
	    r->file_writeback);
	clean = r->file;
	clean -= clean >= r->file_dirty ? r->file_dirty : clean;
	clean -= clean >= r->file_writeback ? r->file_writeback : clean;
	clean -= clean >= r->shmem ? r->shmem : clean;
	ADD(MCG_RESIDUE_FILE, "clean_file", "clean page cache still charged", clean);
	if (r->valid & MCG_RESIDUE_CHILDREN && r->nr_children && n < max)
		out[n++] = (struct reason){"children", "held by child cgroups", r->children};
#undef ADD
	return n;
}

static const char *stop_text(enum mcg_empty_stop s)
{
	switch (s) {
	case MCG_EMPTY_DONE:
		return "reached the target";
	case MCG_EMPTY_UNRECLAIMABLE:
		return "nothing reclaimable left above the target";
	case MCG_EMPTY_NO_PROGRESS:
		return "steps stopped making progress";
	case MCG_EMPTY_TIMEOUT:
		return "timed out";
	case MCG_EMPTY_INTERRUPTED:
		return "interrupted";
	case MCG_EMPTY_KERNEL:
		return "memory.force_empty returned";
	case MCG_EMPTY_CONFLICT:
		return "another writer changed the limit (a concurrent change)";
	}
	return "?";
}

/* The run's outcome in the words of memcgctl-json(7) STATES. */
static const char *result_name(const struct mcg_empty_result *res, int v, bool kernel)
{
	switch (res->stop) {
	case MCG_EMPTY_TIMEOUT:
		return "timeout";
	case MCG_EMPTY_INTERRUPTED:
		return "interrupted";
	case MCG_EMPTY_CONFLICT:
		return "conflict";
	default:
		break;
	}
	if (v == 1 && !kernel && res->limit_after != res->limit_before)
		return "failed";
	return "ok";
}

static void print_json(struct cli *cli, const struct mcg_group *g, const struct mcg_empty_result *res,
		       bool kernel, uint64_t timeout_ms)
{
	struct reason rs[12];
	size_t n = residue_reasons(&res->residue, rs, 12), i;
	const struct mcg_residue *r = &res->residue;
	int v = mcg_ctx_version(cli->ctx);

	jw_open_object(stdout, NULL);
	jw_timestamp(stdout);
	jw_string(stdout, "cgroup", mcg_group_path(g));
	jw_i64(stdout, "version", v);
	jw_string(stdout, "method",
		  kernel ? "memory.force_empty" : v == 2 ? "memory.reclaim" : "limit-steps");
	jw_bytes(stdout, "batch_bytes", res->batch, !kernel);
	jw_bytes(stdout, "target_bytes", res->target, true);
	jw_bytes(stdout, "usage_before_bytes", res->usage_before, true);
	jw_bytes(stdout, "usage_after_bytes", res->usage_after, true);
	jw_bytes(stdout, "reclaimed_bytes", res->reclaimed, true);
	jw_u64(stdout, "steps", res->steps);
	jw_u64(stdout, "writes", res->writes);
	jw_u64(stdout, "elapsed_ns", res->elapsed_ns);
	if (timeout_ms)
		jw_u64(stdout, "timeout_ns", timeout_ms * 1000000ULL);
	else
		jw_null(stdout, "timeout_ns"); /* no timeout: unlimited */
	jw_string(stdout, "result", result_name(res, v, kernel));
	jw_string(stdout, "stop", mcg_empty_stop_name(res->stop));
	if (res->last_err)
		jw_string(stdout, "last_kernel_error", strerror(res->last_err));
	else
		jw_null(stdout, "last_kernel_error");
	jw_bytes(stdout, "limit_before_bytes", res->limit_before, v == 1);
	jw_bytes(stdout, "limit_after_bytes", res->limit_after, v == 1);
	if (res->stop == MCG_EMPTY_CONFLICT) {
		jw_string(stdout, "knob", "memory.limit_in_bytes");
		jw_bytes(stdout, "found_bytes", res->conflict_found, true);
		jw_bytes(stdout, "expected_bytes", res->conflict_expected, true);
		/* another process's write that the kernel completing a step overwrote */
		jw_bool(stdout, "overwritten", res->writer.seen && res->writer.overwritten);
		if (res->writer.seen && res->writer.pid > 0)
			jw_i64(stdout, "writer_pid", res->writer.pid);
		else
			jw_null(stdout, "writer_pid");
	}
	jw_open_object(stdout, "residue");
	jw_bytes(stdout, "usage_bytes", r->usage, true);
	jw_bytes(stdout, "file_bytes", r->file, r->valid & MCG_RESIDUE_FILE);
	jw_bytes(stdout, "dirty_bytes", r->file_dirty, r->valid & MCG_RESIDUE_DIRTY);
	jw_bytes(stdout, "writeback_bytes", r->file_writeback, r->valid & MCG_RESIDUE_WRITEBACK);
	jw_bytes(stdout, "shmem_bytes", r->shmem, r->valid & MCG_RESIDUE_SHMEM);
	jw_bytes(stdout, "anon_bytes", r->anon, r->valid & MCG_RESIDUE_ANON);
	jw_bytes(stdout, "unevictable_bytes", r->unevictable, r->valid & MCG_RESIDUE_UNEVICTABLE);
	jw_bytes(stdout, "kernel_bytes", r->kernel, r->valid & MCG_RESIDUE_KERNEL);
	jw_bytes(stdout, "children_bytes", r->children, r->valid & MCG_RESIDUE_CHILDREN);
	jw_u64(stdout, "nr_children", r->nr_children);
	jw_bytes(stdout, "swap_free_bytes", r->swap_free, r->valid & MCG_RESIDUE_SWAP);
	jw_open_array(stdout, "reasons");
	for (i = 0; i < n; i++)
		jw_string(stdout, NULL, rs[i].key);
	jw_close_array(stdout);
	jw_close_object(stdout);
	jw_close_object(stdout);
	jw_end(stdout);
}

static void print_text(const struct mcg_group *g, const struct mcg_empty_result *res, bool kernel)
{
	struct reason rs[12];
	size_t n = residue_reasons(&res->residue, rs, 12), i;
	char a[32], b[32], c[32];
	int v = mcg_ctx_version(mcg_group_ctx(g));

	printf("%s: %s -> %s, reclaimed %s in %.3f s", out_esc(mcg_group_path(g)),
	       cli_size(res->usage_before, a, sizeof(a)), cli_size(res->usage_after, b, sizeof(b)),
	       cli_size(res->reclaimed, c, sizeof(c)), (double)res->elapsed_ns / 1e9);
	if (kernel)
		printf(" (memory.force_empty, 1 write)\n");
	else
		printf(" (%u writes of %s, batch %s)\n", res->writes,
		       v == 2 ? "memory.reclaim" : "memory.limit_in_bytes",
		       cli_size(res->batch, a, sizeof(a)));
	printf("stopped: %s\n", stop_text(res->stop));
	if (res->stop == MCG_EMPTY_CONFLICT && res->writer.seen && res->writer.overwritten)
		printf("limit: restored to %s (another process's value, written during a step, was "
		       "overwritten by the kernel and is unknown)\n",
		       cli_size(res->limit_after, a, sizeof(a)));
	else if (res->stop == MCG_EMPTY_CONFLICT)
		printf("limit: kept at %s, set by another writer (memcgctl expected %s)\n",
		       cli_size(res->conflict_found, a, sizeof(a)),
		       cli_size(res->conflict_expected, b, sizeof(b)));
	else if (v == 1 && !kernel && res->limit_changed)
		printf("limit: restored to %s\n", cli_size(res->limit_after, a, sizeof(a)));
	if (res->usage_after == 0 || !n)
		return;
	printf("left: %s\n", cli_size(res->usage_after, a, sizeof(a)));
	for (i = 0; i < n; i++) {
		if (!strcmp(rs[i].key, "children"))
			printf("  %-10s %s (%u child cgroup%s)\n", cli_size(rs[i].bytes, a, sizeof(a)),
			       rs[i].text, res->residue.nr_children,
			       res->residue.nr_children == 1 ? "" : "s");
		else
			printf("  %-10s %s\n", cli_size(rs[i].bytes, a, sizeof(a)), rs[i].text);
	}
}

struct procs_sum {
	struct mcg_ctx *ctx;
	unsigned n;
};

static int count_procs(const char *path, int depth, void *userdata)
{
	struct procs_sum *s = userdata;
	struct mcg_group *g;
	unsigned n;

	(void)depth;
	if (mcg_group_open(s->ctx, path, &g) < 0)
		return 0;
	if (mcg_group_nr_procs(g, &n) == 0)
		s->n += n;
	mcg_group_close(g);
	return 0;
}

static void recovered(const struct mcg_recovery *r, void *userdata)
{
	(void)userdata;
	cli_report_recovery(r, false, true);
}

/* The message for a run that could not start or failed; the exit status. */
static int empty_failed(struct cli *cli, const struct mcg_group *g, int r)
{
	const char *path = out_esc(mcg_group_path(g));

	if (cli_report_rundir(cli->ctx, r))
		;
	else if (r == -MCG_E_LOCKED)
		cli_err("cannot empty '%s': another memcgctl is changing it; use --wait to wait for it",
			path);
	else if (r == -ETIMEDOUT)
		cli_err("cannot empty '%s': timed out waiting for another memcgctl", path);
	else if (r == -EINTR)
		cli_err("cannot empty '%s': interrupted waiting for another memcgctl", path);
	else
		cli_err("cannot empty '%s': %s", path, mcg_strerror(r));
	if (cli_interrupted)
		return 128 + cli_interrupted;
	if (r == -MCG_E_LOCKED || r == -ETIMEDOUT)
		return EXIT_BUSY; /* as set-limit: the lock was never ours */
	if (r == -MCG_E_STALE_JOURNAL)
		return EXIT_NOT_RESTORED;
	return cli_status(r);
}

static int empty_run(struct cli *cli, int argc, char **argv)
{
	struct empty_args a = {0};
	struct mcg_empty_opts o = {0};
	struct mcg_empty_result res;
	struct mcg_cancel cancel;
	struct progress pr = {0};
	struct procs_sum ps = {0};
	struct mcg_group *g;
	uint64_t timeout_ms = 0;
	char why[128];
	int r;

	r = cli_parse(&empty_argp, argc, argv, &a);
	if (r)
		return r;
	if (a.batch && (r = mcg_empty_parse_batch(a.batch, &o.batch, why, sizeof(why))) < 0) {
		cli_err("invalid value for --batch: '%s': %s", out_esc(a.batch), why);
		return EXIT_USAGE;
	}
	if (a.to && cli_parse_size("--to", a.to, 0, 0, 0, &o.target) < 0)
		return EXIT_USAGE;
	if (a.timeout) {
		if (cli_parse_duration("--timeout", a.timeout, &timeout_ms) < 0)
			return EXIT_USAGE;
		if (timeout_ms == 0) {
			cli_err("invalid duration for --timeout: '%s': must be more than 0",
				out_esc(a.timeout));
			return EXIT_USAGE;
		}
	}
	o.kernel = a.kernel;
	r = cli_open_group(cli, a.cgroup, &g);
	if (r < 0)
		return cli_status(r);
	if (mcg_group_is_root(g)) {
		cli_err("cannot empty '%s': the root cgroup holds the whole system's memory",
			out_esc(mcg_group_path(g)));
		mcg_group_close(g);
		return EXIT_USAGE;
	}
	if (a.kernel && mcg_ctx_version(cli->ctx) != 1) {
		cli_err("cannot use --kernel on '%s': memory.force_empty exists only on cgroup v1 "
			"(v2 has memory.reclaim, which empty uses without --kernel)",
			out_esc(mcg_group_path(g)));
		mcg_group_close(g);
		return EXIT_USAGE;
	}
	ps.ctx = cli->ctx;
	if (mcg_walk(cli->ctx, mcg_group_path(g), -1, count_procs, &ps) == 0 && ps.n > 0)
		cli_warn("'%s' has %u live process%s: %s working set will be refaulted",
			 out_esc(mcg_group_path(g)), ps.n, ps.n == 1 ? "" : "es",
			 ps.n == 1 ? "its" : "their");
	pr.bar = !cli->json && cli_isatty();
	pr.lines = !pr.bar && cli->verbose > 0;
	o.progress = on_progress;
	o.recovered = recovered; /* a killed run left a limit lowered: put back first */
	o.userdata = &pr;
	o.wait = a.wait;
	cli_trap_signals(); /* no SA_RESTART: a blocked step returns EINTR */
	mcg_cancel_init(&cancel, timeout_ms, &cli_interrupted);
	r = mcg_empty_run(g, &o, &cancel, &res);
	if (pr.drawn) {
		printf("\r\033[K");
		fflush(stdout);
	}
	if (r < 0) {
		r = empty_failed(cli, g, r);
		mcg_group_close(g);
		return r;
	}
	if (cli->json)
		print_json(cli, g, &res, a.kernel, timeout_ms);
	else
		print_text(g, &res, a.kernel);
	if (res.stop == MCG_EMPTY_CONFLICT &&
	    cli_report_writer("empty of", mcg_group_path(g), &res.writer)) {
		mcg_group_close(g);
		return EXIT_CONFLICT;
	}
	if (res.stop == MCG_EMPTY_CONFLICT) {
		cli_report_conflict("empty of", mcg_group_path(g), "memory.limit_in_bytes",
				    res.conflict_found, res.conflict_expected);
		mcg_group_close(g);
		return EXIT_CONFLICT;
	}
	if (mcg_ctx_version(cli->ctx) == 1 && res.limit_after != res.limit_before) {
		/* someone else changed it meanwhile, or restoring failed: say so */
		cli_err("limit of '%s' reads %llu after the run, %llu before", out_esc(mcg_group_path(g)),
			(unsigned long long)res.limit_after, (unsigned long long)res.limit_before);
		mcg_group_close(g);
		return EXIT_FAILURE;
	}
	mcg_group_close(g);
	if (res.stop == MCG_EMPTY_INTERRUPTED)
		return 128 + (cli_interrupted ? cli_interrupted : SIGINT);
	if (res.stop == MCG_EMPTY_TIMEOUT)
		return EXIT_PARTIAL;
	return EXIT_OK;
}

const struct mcg_cmd cmd_empty = {
	.name = "empty",
	.summary = "Reclaim a cgroup's memory in batches and say what is left",
	.argp = &empty_argp,
	.run = empty_run,
};
