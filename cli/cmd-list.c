/* cmd-list.c: "memcgctl list": the memory cgroup tree with usage, limit and the main counters. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "cgroup-arg.h"
#include "containers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct list_args {
	const char *cgroup;
	int depth;
	bool flat;
};

enum { OPT_FLAT = 0x300, OPT_DEPTH };

/*
 * -d is the interval everywhere it exists (top, record, dirty, export --textfile, as
 * top(1)'s): list, which samples once, has no -d. Its depth is --depth alone, as export's;
 * a -d says so instead of being taken for another thing (issue 29).
 */
static const struct argp_option list_options[] = {
	{"depth", OPT_DEPTH, "N", 0, "Show N levels below CGROUP (default: all)", 0},
	{NULL, 'd', "N", OPTION_HIDDEN, NULL, 0},
	{"flat", OPT_FLAT, NULL, 0,
	 "A flat list of whole paths instead of the tree (JSON: one array, no children)", 0},
	{0},
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	struct list_args *a = state->input;

	switch (key) {
	case OPT_DEPTH:
		a->depth = (int)cli_arg_long(state, "--depth", arg, 0, 1000);
		break;
	case 'd':
		argp_error(state, "-d is the interval of top, record and dirty; list's depth is "
				  "--depth %s",
			   out_esc(arg));
		break;
	case OPT_FLAT:
		a->flat = true;
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp list_argp = {
	list_options, list_parse, "[CGROUP]",
	"Show the memory cgroup tree under CGROUP (default: the whole hierarchy) with usage, "
	"limit, percent of limit, anon, file, dirty and writeback: a tree on a terminal, fit to "
	"its width; -o picks the columns (--list-columns), --json prints the same tree.",
	out_table_children, NULL, NULL,
};

/*
 * The columns of list. A value's header and JSON key are the names table's
 * (mcg_value_names, memcg/fields.h), set by list_cols_init() from list_id; help here.
 */
enum {
	L_CGROUP,
	L_USAGE,
	L_LIMIT,
	L_PCT,
	L_ANON,
	L_FILE,
	L_DIRTY,
	L_WB,
	L_HIGH,
	L_LOW,
	L_MIN,
	L_PEAK,
	L_SWAP,
	L_SHMEM,
	L_WSET,
	L_PROCS,
	L_DEPTH,
	L_UNIT,
	L_CONTAINER,
	L_POD,
	L__COUNT
};
static struct out_col list_cols[L__COUNT] = {
	[L_CGROUP] = {"CGROUP", "cgroup", "cgroup path (text: the tree of names)", OUT_STR,
		      OUT_TREE | OUT_TRUNC, 0},
	[L_USAGE] = {NULL, NULL, "memory charged", OUT_BYTES, OUT_RIGHT, 0},
	[L_LIMIT] = {NULL, NULL, "hard limit (max: none; JSON null)", OUT_BYTES, OUT_RIGHT, 0},
	[L_PCT] = {NULL, NULL, "usage in percent of the limit", OUT_PCT, OUT_RIGHT, 0},
	[L_ANON] = {NULL, NULL, "anonymous memory", OUT_BYTES, OUT_RIGHT, 0},
	[L_FILE] = {NULL, NULL, "page cache", OUT_BYTES, OUT_RIGHT, 0},
	[L_DIRTY] = {NULL, NULL, "dirty page cache", OUT_BYTES, OUT_RIGHT, 0},
	[L_WB] = {NULL, NULL, "page cache under writeback", OUT_BYTES, OUT_RIGHT, 0},
	[L_HIGH] = {NULL, NULL, "v2 memory.high", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_LOW] = {NULL, NULL, "v2 memory.low", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_MIN] = {NULL, NULL, "v2 memory.min", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_PEAK] = {NULL, NULL, "highest usage recorded", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_SWAP] = {NULL, NULL, "swap used", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_SHMEM] = {NULL, NULL, "shared memory and tmpfs", OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_WSET] = {NULL, NULL, "working set as the kubelet counts it: usage - inactive file",
		    OUT_BYTES, OUT_RIGHT | OUT_EXTRA, 0},
	[L_PROCS] = {NULL, NULL, "processes in the cgroup", OUT_U64, OUT_RIGHT | OUT_EXTRA, 0},
	[L_DEPTH] = {"DEPTH", "depth", "levels below the CGROUP argument", OUT_U64,
		     OUT_RIGHT | OUT_EXTRA, 0},
	[L_UNIT] = {"UNIT", "unit", "the systemd unit that owns the cgroup (systemd hosts)", OUT_STR,
		    OUT_EXTRA, 0},
	[L_CONTAINER] = {"CONTAINER", "container",
			 "the container that owns the cgroup: RUNTIME:NAME, or RUNTIME:ID (12 digits)",
			 OUT_STR, OUT_EXTRA, 0},
	[L_POD] = {"POD", "pod", "the Kubernetes pod that owns the cgroup: NAMESPACE/NAME, or its UID",
		   OUT_STR, OUT_EXTRA, 0},
};

/* The value behind each column (-1: none): a counter of the one table, or a derived value. */
static const int list_id[L__COUNT] = {
	[L_CGROUP] = -1,	     [L_USAGE] = MCG_K_USAGE,	      [L_LIMIT] = MCG_K_LIMIT,
	[L_PCT] = MCG_F_USAGE_PERCENT, [L_ANON] = MCG_K_ANON,	      [L_FILE] = MCG_K_FILE,
	[L_DIRTY] = MCG_K_DIRTY,     [L_WB] = MCG_K_WRITEBACK,	      [L_HIGH] = MCG_K_HIGH,
	[L_LOW] = MCG_K_LOW,	     [L_MIN] = MCG_K_MIN,	      [L_PEAK] = MCG_K_PEAK,
	[L_SWAP] = MCG_K_SWAP_USAGE, [L_SHMEM] = MCG_K_SHMEM,	      [L_PROCS] = MCG_K_NR_PROCS,
	[L_WSET] = MCG_F_WORKING_SET,
	[L_DEPTH] = -1,		     [L_UNIT] = -1,		      [L_CONTAINER] = -1,
	[L_POD] = -1,
};

/* Is column C a counter of the record (its cell is the counter's value)? */
static bool list_counter(size_t c)
{
	return list_id[c] >= 0 && list_id[c] < MCG_K__COUNT;
}

static void list_cols_init(void)
{
	size_t c;

	for (c = 0; c < L__COUNT; c++) {
		if (list_id[c] < 0)
			continue;
		list_cols[c].name = mcg_header((unsigned)list_id[c]);
		list_cols[c].json = mcg_json_key((unsigned)list_id[c]);
	}
}

#define LIST_MAX_DEPTH 1024

struct list_state {
	struct cli *cli;
	struct out_table *t;
	struct out_row *stack[LIST_MAX_DEPTH + 1]; /* the last row at each depth */
	bool flat; /* --flat: every row at the top, named by its whole path */
};

static void fill(const struct list_state *w, struct out_row *r, const char *path,
		 const struct mcg_record *rec, int depth)
{
	const char *base = strrchr(path, '/');
	char unit[256];
	double pct;
	uint64_t ws;
	size_t c;

	out_cell_str(r, L_CGROUP, path);
	/* the tree shows each name under its parent; the top row its whole path */
	if (!w->flat && depth > 0 && base && base[1])
		out_cell_text(r, L_CGROUP, base + 1);
	for (c = 0; c < L__COUNT; c++)
		if (list_counter(c) && mcg_record_has(rec, (enum mcg_key)list_id[c]))
			out_cell_u64(r, c, rec->v[list_id[c]]);
	if (mcg_field_usage_percent(rec, &pct))
		out_cell_num(r, L_PCT, pct);
	if (mcg_field_working_set(rec, &ws))
		out_cell_u64(r, L_WSET, ws);
	out_cell_u64(r, L_DEPTH, (uint64_t)depth);
	/* from systemd's naming, no D-Bus per row; empty (JSON: absent) where none */
	if (out_table_has(w->t, L_UNIT) &&
	    mcg_unit_of(cli_ctx(w->cli), path, unit, sizeof(unit)) > 0)
		out_cell_str(r, L_UNIT, unit);
}

/* The counters the selected columns show (a file none of them needs is never read). */
static void list_keys(const struct out_table *t, struct mcg_keyset *ks)
{
	size_t c;

	memset(ks, 0, sizeof(*ks));
	for (c = 0; c < L__COUNT; c++)
		if (list_counter(c) && out_table_has(t, c))
			mcg_keyset_add(ks, (enum mcg_key)list_id[c]);
	if (out_table_has(t, L_PCT)) {
		mcg_keyset_add(ks, MCG_K_USAGE);
		mcg_keyset_add(ks, MCG_K_LIMIT);
	}
	if (out_table_has(t, L_WSET))
		mcg_field_working_set_keys(ks);
}

static void fill_container(struct out_row *r, const char *path)
{
	char buf[300];

	if (cli_container_of(path, buf, sizeof(buf)))
		out_cell_str(r, L_CONTAINER, buf);
	if (cli_pod_of(path, buf, sizeof(buf)))
		out_cell_str(r, L_POD, buf);
}

/*
 * The rows of one sample (the sampler once: the files of the shown columns,
 * nothing kept), in tree order. A row whose memory.stat or other file could
 * not be read ends the table there, as show fails on it.
 */
static int list_rows(struct list_state *w, const char *path, int depth)
{
	struct mcg_ctx *ctx = cli_ctx(w->cli);
	struct mcg_snapshot *snap = NULL;
	struct mcg_sampler *s;
	struct mcg_keyset keys;
	size_t i;
	int r;

	list_keys(w->t, &keys);
	r = mcg_sampler_new(ctx, path, MCG_SAMPLER_ONCE | MCG_SAMPLER_CGROUPS_ONLY, &s);
	if (r < 0)
		return r;
	r = mcg_sampler_set_keys(s, &keys);
	if (r == 0)
		r = mcg_sampler_set_depth(s, depth);
	if (r == 0)
		r = mcg_sampler_sample(s, &snap);
	/* its nodes are let go before the table is built */
	mcg_sampler_free(s);
	for (i = 0; r == 0 && i < snap->n_rows; i++) {
		const struct mcg_sample_row *sr = &snap->rows[i];
		int d = sr->depth > LIST_MAX_DEPTH ? LIST_MAX_DEPTH : sr->depth;
		struct mcg_record rec;
		struct out_row *row;

		if (sr->err < 0) {
			r = sr->err;
			break;
		}
		row = out_row_new(w->t, d > 0 && !w->flat ? w->stack[d - 1] : NULL);
		if (!row) {
			r = -ENOMEM;
			break;
		}
		w->stack[d] = row;
		mcg_sample_record(sr, &rec);
		fill(w, row, sr->path, &rec, d);
		/* the node's state is read only when a column asks for it */
		if (out_table_has(w->t, L_CONTAINER) || out_table_has(w->t, L_POD))
			fill_container(row, sr->path);
	}
	mcg_snapshot_unref(snap);
	return r;
}

static int list_run(struct cli *cli, int argc, char **argv)
{
	struct list_args a = {.depth = -1};
	struct list_state *w;
	struct mcg_group *g;
	struct mcg_ctx *ctx;
	uint64_t ts;
	int r, status;

	r = cli_parse(&list_argp, argc, argv, &a);
	if (r)
		return r;
	list_cols_init();
	if (out_opts.list_columns) {
		out_list_columns(list_cols, L__COUNT, stdout);
		return EXIT_OK;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return EXIT_FAILURE;
	w->cli = cli;
	w->flat = a.flat;
	r = cli_open_cgroup(cli, a.cgroup ? a.cgroup : "/", &g);
	if (r < 0) {
		free(w);
		return cli_status(r);
	}
	ctx = cli_ctx(cli);
	w->t = out_table_new(list_cols, L__COUNT, mcg_ctx_version(ctx), &status);
	if (!w->t) {
		mcg_group_close(g);
		free(w);
		return status;
	}
	ts = out_realtime_ns();
	r = list_rows(w, mcg_group_path(g), a.depth);
	mcg_group_close(g);
	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_u64(stdout, "timestamp_ns", ts);
		jw_u64(stdout, "version", (uint64_t)mcg_ctx_version(ctx));
		out_table_json(w->t, stdout, "cgroups");
		jw_close_object(stdout);
		jw_end(stdout);
	} else {
		out_table_print(w->t, stdout);
	}
	out_table_free(w->t);
	free(w);
	if (r < 0) {
		cli_err("cannot read cgroup tree under '%s': %s", out_esc(a.cgroup ? a.cgroup : "/"),
			mcg_strerror(r));
		return EXIT_FAILURE;
	}
	return EXIT_OK;
}

const struct mcg_cmd cmd_list = {
	.name = "list",
	.summary = "Show the memory cgroup tree (the default view)",
	.argp = &list_argp,
	.run = list_run,
};
