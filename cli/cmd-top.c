/* cmd-top.c: "memcgctl top": live memory and reclaim per cgroup; batch text/JSON without a terminal. */
#include "cli-common.h"
#include "containers.h"
#include "memcgctl.h"
#include "output.h"
#include "top/header.h"
#include "top/top.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { OPT_TASKSTATS = 0x100, OPT_NO_TASKSTATS, OPT_FLAT, OPT_REPLAY, OPT_AT, OPT_STORE };

static const struct argp_option top_options[] = {
	{"batch", 'b', NULL, 0, "Batch mode: print samples as text (or --json lines), no terminal", 0},
	{"count", 'n', "COUNT", 0, "Stop after COUNT samples (default: until interrupted)", 0},
	{"iterations", 'n', "COUNT", OPTION_ALIAS | OPTION_HIDDEN, NULL, 0},
	{"interval", 'd', "INTERVAL", 0, "Time between samples: 2s, 500ms (default 2s, at least 50ms)",
	 0},
	{"delay", 'd', "INTERVAL", OPTION_ALIAS | OPTION_HIDDEN, NULL, 0},
	{"sort", 's', "COLUMN", 0, "Sort by COLUMN (a key such as usage, reclaim, pct; see the man page)", 0},
	{"reverse", 'r', NULL, 0, "Reverse the sort order", 0},
	{"filter", 'f', "TEXT", 0, "Show cgroups whose path contains TEXT (and their parents)", 0},
	{"flat", OPT_FLAT, NULL, 0, "A flat list of paths instead of the tree", 0},
	{"taskstats", OPT_TASKSTATS, NULL, 0,
	 "Collect direct-reclaim stall time per cgroup (taskstats; on by default in the live view)", 0},
	{"no-taskstats", OPT_NO_TASKSTATS, NULL, 0, "Do not collect stall times", 0},
	{"replay", OPT_REPLAY, NULL, 0,
	 "Show what 'memcgctl record' stored instead of sampling (keys step through it; container "
	 "and pod names as recorded)", 0},
	{"at", OPT_AT, "TIME", 0,
	 "With --replay: start at TIME (03:12, -2h, 'yesterday 14:00', ISO 8601; default: the "
	 "oldest sample)", 0},
	{"store", OPT_STORE, "DIR", 0,
	 "With --replay: the history store (default /var/lib/memcgctl/history)", 0},
	{0},
};

/*
 * The JSON type of each column of top -b and top --json rows; headers and JSON
 * keys are the names table's (top_col_header, top_col_json), help model.c's.
 */
static const enum out_type top_json_type[TOP_COL__COUNT] = {
	[TOP_NAME] = OUT_STR,	   [TOP_USAGE] = OUT_BYTES, [TOP_LIMIT] = OUT_BYTES,
	[TOP_HIGH] = OUT_BYTES,	   [TOP_PCT] = OUT_PCT,	    [TOP_ANON] = OUT_BYTES,
	[TOP_FILE] = OUT_BYTES,	   [TOP_DIRTY] = OUT_BYTES, [TOP_WB] = OUT_BYTES,
	[TOP_RECL] = OUT_NUM,	   [TOP_DRECL] = OUT_NUM,   [TOP_SCAN] = OUT_NUM,
	[TOP_EFF] = OUT_PCT,	   [TOP_FALL] = OUT_NUM,    [TOP_RFLT] = OUT_NUM,
	[TOP_EVHIGH] = OUT_U64,	   [TOP_EVMAX] = OUT_U64,   [TOP_EVOOM] = OUT_U64,
	[TOP_EVKILL] = OUT_U64,	   [TOP_FAIL] = OUT_NUM,    [TOP_SOME] = OUT_NUM,
	[TOP_FULL] = OUT_NUM,	   [TOP_STALL] = OUT_NUM,   [TOP_ASYNC] = OUT_BOOL,
};

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	int c;

	switch (key) {
	case 'b':
		o->batch = true;
		break;
	case 'n':
		o->count = cli_arg_long(state, "--count", arg, 1, 100000000);
		break;
	case 'd':
		o->interval_ms = cli_arg_interval(state, arg);
		break;
	case 's':
		c = top_col_find(arg);
		if (c < 0) {
			char keys[512];
			size_t n = 0;
			int k;

			keys[0] = '\0';
			for (k = 0; k < TOP_COL__COUNT && n < sizeof(keys); k++)
				n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", k ? ", " : "",
						      top_cols[k].key);
			argp_error(state, "invalid --sort '%s': no such column (one of: %s)", out_esc(arg),
				   keys);
		}
		o->model.sort = c;
		break;
	case 'r':
		o->model.reverse = true;
		break;
	case 'f':
		snprintf(o->model.filter, sizeof(o->model.filter), "%s", arg);
		break;
	case OPT_FLAT:
		o->model.flat = true;
		break;
	case OPT_TASKSTATS:
		o->taskstats = true;
		o->no_taskstats = false;
		break;
	case OPT_REPLAY:
		o->replay = true;
		break;
	case OPT_AT:
		o->at = arg;
		break;
	case OPT_STORE:
		o->store = arg;
		break;
	case OPT_NO_TASKSTATS:
		o->no_taskstats = true;
		o->taskstats = false;
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &o->cgroup);
	}
	return 0;
}

static const struct argp top_argp = {
	top_options, top_parse, "[CGROUP]",
	"Show memory, limits and reclaim per cgroup under CGROUP (default: all), refreshed every "
	"interval: a live view on a terminal, batch text or JSON lines otherwise (-b, or stdout "
	"not a terminal). Press h in the live view for the keys.",
	out_table_children, NULL, NULL,
};

/* --replay -b: the recorded sample's time instead of now, and the names recorded with it */
static uint64_t replay_ts;
/* the context live samples are read with: NEED reads the kept size answers through it */
static struct mcg_ctx *top_ctx;
static const char *const *replay_names;

static void header_text(const struct mcg_snapshot *s, const struct top_opts *o)
{
	struct top_header h;
	int i;

	if (replay_ts) {
		char when[40];

		printf("memcgctl top --replay: %s, cgroup v%d, %zu cgroups, interval %.1fs\n",
		       mcg_hist_time_format(replay_ts, when, sizeof(when)), s->version, s->n_rows,
		       s->interval);
	} else {
		printf("memcgctl top: cgroup v%d, %zu cgroups, sample %llu, interval %.1fs\n",
		       s->version, s->n_rows, (unsigned long long)s->seq, s->interval);
	}
	top_header_host(s, o->taskstats, "", &h);
	for (i = 0; i < h.n; i++)
		printf("%s\n", h.line[i]);
}

/*
 * Columns of top -b and --json only, after the live view's: who owns the row
 * (cli/containers.c). The live view's columns are model.c's, which reads no
 * runtime state.
 */
enum { TOP_B_CONTAINER = TOP_COL__COUNT, TOP_B_POD, TOP_B_NEED, TOP_B__COUNT };
static struct out_col top_out[TOP_B__COUNT];

static const struct out_col *top_out_cols(void)
{
	unsigned c;

	if (top_out[0].name)
		return top_out;
	top_out[TOP_B_CONTAINER] = (struct out_col){
		"CONTAINER", "container", "the container that owns the cgroup (top -b, --json)",
		OUT_STR, OUT_EXTRA | OUT_TRUNC, 0};
	top_out[TOP_B_POD] = (struct out_col){
		"POD", "pod", "the Kubernetes pod that owns the cgroup (top -b, --json)", OUT_STR,
		OUT_EXTRA | OUT_TRUNC, 0};
	top_out[TOP_B_NEED] = (struct out_col){
		mcg_header(MCG_F_NEEDED), mcg_json_key(MCG_F_NEEDED),
		"memory the workload needs, as memcgctl size last found it (blank: none kept)",
		OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0};
	for (c = 0; c < TOP_COL__COUNT; c++) {
		top_out[c].name = top_col_header(c);
		top_out[c].json = top_col_json(c);
		top_out[c].help = top_cols[c].help;
		top_out[c].type = top_json_type[c];
		top_out[c].flags = top_cols[c].left ? OUT_TRUNC : OUT_RIGHT;
		if (top_cols[c].versions == TOP_V1)
			top_out[c].flags |= OUT_V1;
		else if (top_cols[c].versions == TOP_V2)
			top_out[c].flags |= OUT_V2;
	}
	return top_out;
}

/*
 * One row per cgroup shown, in the model's order: with TEXT the cells as the
 * live view shows them (for the text table), else their values (for JSON).
 */
static int *top_fill(struct out_table *t, const struct mcg_snapshot *s, const struct top_opts *o,
		     bool raw, bool text)
{
	int *rows = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*rows));
	struct mcg_size_states *sizes = NULL;
	size_t n, i;
	unsigned k;

	if (!rows)
		return NULL;
	n = top_model_rows(&o->model, s, rows);
	/* NEED: memcgctl size's kept answers (a cgroup without one: a failed openat), live only */
	if (out_table_has(t, TOP_B_NEED) && !replay_ts && mcg_size_states_open(top_ctx, &sizes) < 0)
		sizes = NULL;
	for (i = 0; i < n; i++) {
		const struct mcg_sample_row *r = &s->rows[rows[i]];
		struct out_row *row = out_row_new(t, NULL);

		if (!row)
			break;
		/* the whole path, never cut at a cell buffer (the table escapes it) */
		out_cell_str(row, TOP_NAME, r->path);
		if (out_table_has(t, TOP_B_CONTAINER) || out_table_has(t, TOP_B_POD)) {
			char who[300];

			/* a replay's from the store: the container may be gone, or another now */
			if (replay_ts ? cli_replay_container(s, replay_names, (size_t)rows[i], who,
							     sizeof(who))
				      : cli_container_of(r->path, who, sizeof(who)))
				out_cell_str(row, TOP_B_CONTAINER, who);
			if (replay_ts ? cli_replay_pod(s, replay_names, (size_t)rows[i], who, sizeof(who))
				      : cli_pod_of(r->path, who, sizeof(who)))
				out_cell_str(row, TOP_B_POD, who);
		}
		if (out_table_has(t, TOP_B_NEED)) {
			struct mcg_size_state z;
			char cell[32] = ""; /* blank: none kept */

			if (mcg_size_states_get(sizes, r->path, &z) == 0) {
				out_cell_u64(row, TOP_B_NEED, z.needed);
				if (raw)
					snprintf(cell, sizeof(cell), "%llu", (unsigned long long)z.needed);
				else
					top_fmt_size((double)z.needed, cell, sizeof(cell));
			}
			if (text)
				out_cell_text(row, TOP_B_NEED, cell);
		}
		for (k = TOP_NAME + 1; k < TOP_COL__COUNT; k++) {
			char cell[64];
			double v;

			if (!top_col_on(k, s->version) || !out_table_has(t, k))
				continue;
			if (text) {
				top_cell_format(s, r, k, raw, cell, sizeof(cell));
				out_cell_text(row, k, cell);
				continue;
			}
			if (k == TOP_ASYNC) {
				if (r->async >= 0)
					out_cell_bool(row, k, r->async == 1);
			} else if (top_cols[k].amount) {
				/* the exact counter, not top_cell_value()'s double */
				if (mcg_sample_has(r, top_cols[k].counter))
					out_cell_u64(row, k, mcg_sample_get(r, top_cols[k].counter, 0));
			} else if (top_cell_value(s, r, k, &v)) {
				if (top_json_type[k] == OUT_U64)
					out_cell_u64(row, k, v < 0 ? 0 : (uint64_t)v);
				else
					out_cell_num(row, k, k == TOP_STALL ? v * 1e6 : v);
			}
		}
	}
	mcg_size_states_close(sizes);
	return rows; /* the snapshot row of each table row, in order */
}

static int print_text(const struct mcg_snapshot *s, const struct top_opts *o, bool raw)
{
	struct out_table *t;
	int status;

	t = out_table_new(top_out_cols(), TOP_B__COUNT, s->version, &status);
	if (!t)
		return status;
	free(top_fill(t, s, o, raw, true));
	if (!out_opts.noheadings)
		header_text(s, o);
	out_table_print(t, stdout);
	out_table_free(t);
	printf("\n");
	return 0;
}

/* A counter's JSON key and its scale, from the names table (PSI totals: ns, memcgctl-json(7)). */
static const char *counter_key(enum mcg_key k)
{
	return mcg_json_key(k);
}

static double counter_scale(enum mcg_key k)
{
	return (double)mcg_value_names(k)->scale;
}

static bool is_event(const struct mcg_sample_row *r, unsigned k)
{
	return mcg_key_desc(k)->kind == MCG_KIND_COUNTER && mcg_sample_has(r, k);
}

/* The event counters (the amounts are the columns): totals, per second, since top started. */
static void json_counters(const struct mcg_sample_row *r)
{
	unsigned k;

	jw_open_object(stdout, "counters");
	mcg_keyset_foreach(k, &r->valid)
		if (is_event(r, k))
			jw_u64(stdout, counter_key(k),
			       mcg_sample_get(r, k, 0) * (uint64_t)counter_scale(k));
	jw_close_object(stdout);
	jw_open_object(stdout, "per_second");
	mcg_keyset_foreach(k, &r->rate_valid)
		if (is_event(r, k))
			jw_double(stdout, counter_key(k), mcg_sample_rate(r, k) * counter_scale(k));
	jw_close_object(stdout);
	jw_open_object(stdout, "since_start");
	mcg_keyset_foreach(k, &r->valid)
		if (is_event(r, k))
			jw_u64(stdout, counter_key(k),
			       mcg_sample_since(r, k) * (uint64_t)counter_scale(k));
	jw_close_object(stdout);
}

static int print_json(const struct mcg_snapshot *s, const struct top_opts *o)
{
	const struct mcg_sample_global *g = &s->global;
	struct out_table *t;
	size_t i;
	int status, *idx, lock;

	t = out_table_new(top_out_cols(), TOP_B__COUNT, s->version, &status);
	if (!t)
		return status;
	idx = top_fill(t, s, o, false, false);
	/* one thread: stdio's lock once for the document, not per character (see out_table_print) */
	lock = __fsetlocking(stdout, FSETLOCKING_BYCALLER);
	jw_open_object(stdout, NULL);
	if (replay_ts)
		jw_u64(stdout, "timestamp_ns", replay_ts);
	else
		jw_timestamp(stdout);
	jw_u64(stdout, "sample", s->seq);
	jw_u64(stdout, "version", (uint64_t)s->version);
	jw_u64(stdout, "interval_ns", (uint64_t)(s->interval * 1e9 + 0.5));
	/* cgroups the sample could not read for want of file descriptors (only when some) */
	if (s->incomplete)
		jw_u64(stdout, "incomplete", s->incomplete);
	jw_open_object(stdout, "global");
	jw_sample_global(stdout, g);
	if (g->delayacct >= 0)
		jw_bool(stdout, "delayacct", g->delayacct == 1);
	jw_bool(stdout, "stall_measured", s->taskstats);
	jw_close_object(stdout);
	jw_open_array(stdout, "cgroups");
	for (i = 0; i < out_table_nrows(t); i++) {
		const struct out_row *row = out_table_row(t, i);
		const struct mcg_sample_row *r = &s->rows[idx[i]];

		jw_open_object(stdout, NULL);
		if (!out_table_has(t, TOP_NAME))
			jw_string(stdout, "cgroup", r->path);
		out_row_json(t, row, stdout);
		jw_u64(stdout, "depth", (uint64_t)r->depth);
		json_counters(r);
		jw_close_object(stdout);
	}
	jw_close_array(stdout);
	jw_close_object(stdout);
	jw_end(stdout);
	__fsetlocking(stdout, lock);
	out_table_free(t);
	free(idx);
	return 0;
}

static int batch(struct cli *cli, struct top_opts *o, struct mcg_sampler *s)
{
	struct timespec next;
	size_t warned = 0;
	long done = 0;
	int r;

	cli_trap_signals();
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		struct mcg_snapshot *snap;
		int held[8];
		unsigned h;

		/*
		 * The sampler keeps a descriptor per file and takes every one left (a
		 * host of 10000 cgroups): a few held back while it samples stay free for
		 * what the rows read after it (NEED: the kept size answers).
		 */
		for (h = 0; h < 8; h++)
			held[h] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		r = mcg_sampler_sample(s, &snap);
		for (h = 0; h < 8; h++)
			if (held[h] >= 0)
				close(held[h]);
		if (r < 0) {
			cli_err("cannot sample cgroup '%s': %s", o->cgroup ? o->cgroup : "/",
				mcg_strerror(r));
			return EXIT_FAILURE;
		}
		/* as export says it: once, and again when the number changes */
		if (snap->incomplete && snap->incomplete != warned)
			cli_warn("sample %llu is incomplete: %zu cgroup(s) could not be read (out of "
				 "file descriptors)",
				 (unsigned long long)snap->seq, snap->incomplete);
		warned = snap->incomplete;
		if (cli->json)
			r = print_json(snap, o);
		else
			r = print_text(snap, o, cli->bytes);
		fflush(stdout);
		mcg_snapshot_unref(snap);
		if (r)
			return r;
		if (o->count && ++done >= o->count)
			break;
		/* one sample per interval, on an absolute schedule: never spin */
		next.tv_sec += (time_t)(o->interval_ms / 1000);
		next.tv_nsec += (long)(o->interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (!cli_interrupted &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		if (cli_interrupted)
			break;
	}
	return 0;
}

static void replay_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	struct top_opts *o = ud;

	/* a killed recorder's torn last frame: expected (see dump's on_bad) */
	if (!strncmp(why, MCG_HIST_WHY_TORN, strlen(MCG_HIST_WHY_TORN)))
		return;
	o->bad++;
	if (o->batch)
		cli_warn("history segment '%s' frame %u (offset %llu): %s; skipped", out_esc(segment),
			 frame, (unsigned long long)off, why);
}

/* --replay: frames from the store through the same printers and view as live samples. */
static int top_replay(struct cli *cli, struct top_opts *o)
{
	const char *store = o->store ? o->store : MCG_HIST_DEFAULT_DIR;
	struct mcg_hist_frame *f;
	uint64_t at = 0;
	char why[160];
	long done = 0;
	int r, status = EXIT_OK;

	if (o->cgroup) {
		cli_err("cannot replay one cgroup: --replay shows the recorded tree (use --filter)");
		return EXIT_USAGE;
	}
	if (o->at && mcg_hist_time_parse(o->at, out_realtime_ns(), &at, why, sizeof(why)) < 0) {
		cli_err("invalid --at '%s': %s", out_esc(o->at), why);
		return EXIT_USAGE;
	}
	r = mcg_hist_reader_open(store, replay_bad, o, &o->hist);
	if (r < 0) {
		cli_err("cannot open history store '%s': %s", out_esc(store), mcg_strerror(r));
		return r == -ENOENT ? EXIT_USAGE : EXIT_FAILURE;
	}
	r = mcg_hist_seek(o->hist, at, &f);
	if (r < 0) {
		cli_err("cannot replay history store '%s': %s", out_esc(store),
			r == -ENOENT ? "nothing recorded" : mcg_strerror(r));
		mcg_hist_reader_free(o->hist);
		return EXIT_FAILURE;
	}
	if (!o->batch) {
		o->first = f;
		status = top_interactive(cli, o, NULL);
		mcg_hist_frame_free(o->first);
		mcg_hist_reader_free(o->hist);
		return status;
	}
	/* batch: COUNT frames from TIME (all to the end without -n) */
	for (;;) {
		replay_ts = f->time_ns;
		replay_names = (const char *const *)f->names;
		if (cli->json)
			r = print_json(f->snap, o);
		else
			r = print_text(f->snap, o, cli->bytes);
		mcg_hist_frame_free(f);
		if (r) {
			status = r;
			break;
		}
		if (o->count && ++done >= o->count)
			break;
		r = mcg_hist_next(o->hist, &f);
		if (r < 0) {
			if (r != -ENOENT) {
				cli_err("cannot read history store '%s': %s", out_esc(store),
					mcg_strerror(r));
				status = EXIT_FAILURE;
			}
			break;
		}
	}
	replay_ts = 0;
	replay_names = NULL;
	fflush(stdout);
	mcg_hist_reader_free(o->hist);
	if (o->bad && status == EXIT_OK)
		status = EXIT_FAILURE;
	return status;
}

static int top_run(struct cli *cli, int argc, char **argv)
{
	struct top_opts o;
	struct mcg_sampler *s;
	struct mcg_ctx *ctx;
	struct rlimit rl;
	unsigned flags = 0;
	char *cgroup = NULL;
	int r;

	memset(&o, 0, sizeof(o));
	top_model_init(&o.model);
	o.interval_ms = 2000;
	r = cli_parse(&top_argp, argc, argv, &o);
	if (r)
		return r;
	if (out_opts.list_columns) {
		out_list_columns(top_out_cols(), TOP_B__COUNT, stdout);
		return 0;
	}
	if (!o.batch && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || cli->json))
		o.batch = true;
	if (o.replay)
		return top_replay(cli, &o);
	if (o.at || o.store) {
		cli_err("cannot use --at or --store without --replay");
		return EXIT_USAGE;
	}
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_FAILURE;
	top_ctx = ctx;
	/* one kept descriptor per control file: 4-6 per cgroup */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* stall times cost a netlink round trip per process: asked for in batch mode */
	if (o.taskstats || (!o.batch && !o.no_taskstats))
		flags |= MCG_SAMPLER_TASKSTATS;
	if (!o.batch)
		o.taskstats = !o.no_taskstats;
	/* `top -b -n 1`: one sample, nothing to watch */
	if (o.batch && o.count == 1)
		flags |= MCG_SAMPLER_ONESHOT;
	if (o.cgroup) {
		/* a path, pid:N or a systemd unit: resolved (and refused) as every command does */
		struct mcg_group *g;

		r = cli_open_group(cli, o.cgroup, &g);
		if (r < 0)
			return cli_status(r);
		cgroup = strdup(mcg_group_path(g));
		mcg_group_close(g);
		if (!cgroup) {
			cli_err("out of memory");
			return EXIT_FAILURE;
		}
	}
	r = mcg_sampler_new(ctx, cgroup ? cgroup : "/", flags, &s);
	if (r < 0) {
		cli_err("cannot open cgroup '%s': %s", out_esc(cgroup ? cgroup : "/"), mcg_strerror(r));
		free(cgroup);
		return cli_status(r);
	}
	free(cgroup);
	if (o.batch)
		r = batch(cli, &o, s);
	else
		r = top_interactive(cli, &o, s);
	mcg_sampler_free(s);
	return r;
}

const struct mcg_cmd cmd_top = {
	.name = "top",
	.summary = "Live memory, limits and reclaim per cgroup (batch text or JSON without a terminal)",
	.argp = &top_argp,
	.run = top_run,
};
