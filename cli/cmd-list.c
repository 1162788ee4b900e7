/* cmd-list.c: "memcgctl list": the memory cgroup tree with usage, limit and the main counters. */
#include "memcgctl.h"
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct list_args {
	const char *cgroup;
	int depth;
};

static const struct argp_option list_options[] = {
	{"depth", 'd', "N", 0, "Show N levels below CGROUP (default: all)", 0},
	{0},
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	struct list_args *a = state->input;
	char *end;
	long v;

	switch (key) {
	case 'd':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > 1000)
			argp_error(state, "invalid --depth '%s': must be a whole number from 0 to 1000",
				   arg);
		a->depth = (int)v;
		break;
	case ARGP_KEY_ARG:
		if (a->cgroup)
			argp_error(state, "too many arguments: '%s'", arg);
		a->cgroup = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp list_argp = {
	list_options, list_parse, "[CGROUP]",
	"Show the memory cgroup tree under CGROUP (default: the whole hierarchy) with usage, "
	"limit, percent of limit, anon, file, dirty and writeback.",
	cli_common_children, NULL, NULL,
};

struct walk_state {
	struct cli *cli;
	struct table *t;
	bool first;
	int err;
};

static double percent(const struct mcg_info *i)
{
	if (!mcg_info_has(i, MCG_F_USAGE) || !mcg_info_has(i, MCG_F_LIMIT) ||
	    i->f[MCG_F_LIMIT] == MCG_MAX || i->f[MCG_F_LIMIT] == 0)
		return -1;
	return 100.0 * (double)i->f[MCG_F_USAGE] / (double)i->f[MCG_F_LIMIT];
}

static const enum mcg_stat_id cols[] = {MCG_S_ANON, MCG_S_FILE, MCG_S_FILE_DIRTY,
					MCG_S_FILE_WRITEBACK};

static void row_json(const struct mcg_info *i, int depth)
{
	double pct = percent(i);
	size_t k;

	jw_open_object(stdout, NULL);
	jw_string(stdout, "path", i->path);
	jw_u64(stdout, "depth", (uint64_t)depth);
	jw_size(stdout, "usage", i->f[MCG_F_USAGE], mcg_info_has(i, MCG_F_USAGE));
	jw_size(stdout, "limit", i->f[MCG_F_LIMIT], mcg_info_has(i, MCG_F_LIMIT));
	if (i->version == 2)
		jw_size(stdout, "high", i->f[MCG_F_HIGH], mcg_info_has(i, MCG_F_HIGH));
	if (pct >= 0)
		jw_double(stdout, "percent", pct);
	else
		jw_null(stdout, "percent");
	for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
		jw_size(stdout, mcg_stat_name(cols[k]), i->stat.v[cols[k]],
			mcg_stat_has(&i->stat, cols[k]));
	jw_close_object(stdout);
}

static void row_text(struct table *t, const struct mcg_info *i)
{
	char b[8][48];
	const char *cells[8];
	double pct = percent(i);
	size_t k;

	cells[0] = i->path;
	cells[1] = mcg_info_has(i, MCG_F_USAGE) ? cli_size(i->f[MCG_F_USAGE], b[1], 48) : "-";
	cells[2] = mcg_info_has(i, MCG_F_LIMIT) ? cli_size(i->f[MCG_F_LIMIT], b[2], 48) : "-";
	if (pct >= 0)
		snprintf(b[3], 48, "%.1f%%", pct);
	cells[3] = pct >= 0 ? b[3] : "-";
	for (k = 0; k < 4; k++)
		cells[4 + k] = mcg_stat_has(&i->stat, cols[k]) ? cli_size(i->stat.v[cols[k]], b[4 + k], 48)
							      : "-";
	table_add(t, cells);
}

static int visit(const char *path, int depth, void *userdata)
{
	struct walk_state *w = userdata;
	struct mcg_group *g;
	struct mcg_info info;
	int r;

	r = mcg_group_open(cli_ctx(w->cli), path, &g);
	if (r == -ENOENT)
		return 1; /* removed while we walked */
	if (r < 0) {
		/* a v2 child without +memory in its parent's subtree_control */
		return r == -MCG_E_NOTCGROUP ? 1 : r;
	}
	r = mcg_group_info(g, &info);
	mcg_group_close(g);
	if (r < 0)
		return r == -ENOENT ? 1 : r;
	if (w->cli->json)
		row_json(&info, depth);
	else
		row_text(w->t, &info);
	mcg_info_release(&info);
	return 0;
}

static int list_run(struct cli *cli, int argc, char **argv)
{
	static const char *const headers[] = {"CGROUP", "USAGE", "LIMIT", "%LIMIT",
					      "ANON",   "FILE",  "DIRTY", "WRITEBACK"};
	static const enum col_align align[] = {COL_LEFT,  COL_RIGHT, COL_RIGHT, COL_RIGHT,
					       COL_RIGHT, COL_RIGHT, COL_RIGHT, COL_RIGHT};
	struct list_args a = {.depth = -1};
	struct walk_state w = {.cli = cli};
	struct mcg_group *g;
	int r;

	r = cli_parse(&list_argp, argc, argv, &a);
	if (r)
		return r;
	r = cli_open_group(cli, a.cgroup ? a.cgroup : "/", &g);
	if (r < 0)
		return cli_status(r);
	if (cli->json)
		jw_open_array(stdout, NULL);
	else
		w.t = table_new(8, headers, align);
	r = mcg_walk(cli_ctx(cli), mcg_group_path(g), a.depth, visit, &w);
	mcg_group_close(g);
	if (cli->json) {
		jw_close_array(stdout);
		jw_end(stdout);
	} else {
		table_print(w.t, stdout);
		table_free(w.t);
	}
	if (r < 0) {
		cli_err("cannot read cgroup tree under '%s': %s", a.cgroup ? a.cgroup : "/",
			mcg_strerror(r));
		return EXIT_FAILURE;
	}
	return 0;
}

const struct mcg_cmd cmd_list = {
	.name = "list",
	.summary = "Show the memory cgroup tree (the default view)",
	.argp = &list_argp,
	.run = list_run,
};
