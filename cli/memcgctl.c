/* memcgctl.c: main, the global options, the command table, help and "did you mean". */
#include "memcgctl.h"
#include "cgroup-arg.h"
#include "output.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *argp_program_version = "memcgctl " MEMCG_VERSION;
const char *argp_program_bug_address = NULL;


/*
 * The command table. Each command lives in its own file and exports one
 * struct mcg_cmd; the weak references let the table name a command whose file
 * is not built in (its entry is then NULL and skipped).
 */
#define CMD(sym) extern const struct mcg_cmd sym __attribute__((weak))
CMD(cmd_list);
CMD(cmd_show);
CMD(cmd_set_limit);
CMD(cmd_empty);
CMD(cmd_size);
CMD(cmd_async_reclaim);
CMD(cmd_reclaimd);
CMD(cmd_dirty);
CMD(cmd_top);
CMD(cmd_export);
CMD(cmd_recover);
CMD(cmd_record);
CMD(cmd_dump);
CMD(cmd_oom);
CMD(cmd_help);
CMD(cmd_complete);
#undef CMD

static const struct mcg_cmd *const table[] = {
	&cmd_list, &cmd_show,  &cmd_set_limit, &cmd_empty, &cmd_size, &cmd_async_reclaim, &cmd_reclaimd,
	&cmd_dirty, &cmd_top, &cmd_export, &cmd_recover, &cmd_record, &cmd_dump, &cmd_oom, &cmd_help,  &cmd_complete,
};
static const struct mcg_cmd *present[sizeof(table) / sizeof(table[0]) + 1];

/* The commands linked in, NULL-terminated: what main() hands to cli_state. */
static const struct mcg_cmd *const *linked_commands(void)
{
	size_t i, n = 0;

	if (!present[0])
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (table[i])
				present[n++] = table[i];
	return present;
}



/* Levenshtein distance, for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(size_t) * (lb + 1));
	}
	return prev[lb];
}

static const char *suggest(const char *name)
{
	const struct mcg_cmd *const *c, *best = NULL;
	size_t bd = 3;

	for (c = cli_commands(); *c; c++) {
		size_t d;

		if ((*c)->hidden)
			continue;
		d = distance(name, (*c)->name);
		if (d < bd || (strlen(name) >= 3 && !strncmp((*c)->name, name, strlen(name)) && !best)) {
			bd = d < bd ? d : bd;
			best = *c;
		}
	}
	return best ? best->name : NULL;
}

static void list_commands(FILE *f)
{
	const struct mcg_cmd *const *c;

	fputs("Commands:\n", f);
	for (c = cli_commands(); *c; c++)
		if (!(*c)->hidden)
			fprintf(f, "  %-15s %s\n", (*c)->name, (*c)->summary);
	fputs("\nRun 'memcgctl help COMMAND' or 'memcgctl COMMAND --help' for a command's options.\n",
	      f);
}

struct global_args {
	int cmd_argc;
	char **cmd_argv;
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	struct global_args *g = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = NULL;
		break;
	case ARGP_KEY_ARG:
		/* The first non-option is the command: hand the rest to it. */
		g->cmd_argc = state->argc - state->next + 1;
		g->cmd_argv = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_HELP_PRE_DOC:
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char *global_help_filter(int key, const char *text, void *input)
{
	(void)input;
	if (key == ARGP_KEY_HELP_POST_DOC) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			return (char *)text;
		list_commands(f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	NULL,
	global_parse,
	"COMMAND [ARGS...]",
	"memcgctl: inspect and control Linux memory cgroups (cgroup v1 and v2).\n\n"
	"With no command, 'memcgctl' shows the memory cgroup tree ('list')."
	"\v",
	cli_common_children,
	global_help_filter,
	NULL,
};

int main(int argc, char **argv)
{
	struct global_args g = {0};
	const struct mcg_cmd *cmd;
	static char list_name[] = "list";
	char *default_argv[] = {list_name, NULL};
	int idx, status;

	/*
	 * top, export --listen, record and reclaimd allocate a snapshot (about a
	 * kilobyte per cgroup) every interval and free the one before. glibc
	 * raises its mmap threshold to the size of a freed mmapped block, after
	 * which those arrays come from the heap and stay resident: a fixed
	 * threshold keeps them mmapped and given back on free (RSS at 1000
	 * cgroups: about 3 MiB less).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/*
	 * getopt and argp name the program by argv[0] (and glibc's error() by
	 * program_invocation_name): as run from a build tree that is a path, and every
	 * message starts with "memcgctl:" instead.
	 */
	if (argc > 0)
		argv[0] = (char *)"memcgctl";
	program_invocation_name = program_invocation_short_name = (char *)"memcgctl";
	cli_state.commands = linked_commands();
	if (argp_parse(&global_argp, argc, argv, ARGP_IN_ORDER, &idx, &g))
		return EXIT_USAGE;
	if (!g.cmd_argc) {
		g.cmd_argc = 1;
		g.cmd_argv = default_argv;
	}
	cmd = cli_find_command(g.cmd_argv[0]);
	if (!cmd) {
		const char *s = suggest(g.cmd_argv[0]);

		if (s)
			cli_err("unknown command '%s'; did you mean '%s'?", out_esc(g.cmd_argv[0]), s);
		else
			cli_err("unknown command '%s'; run 'memcgctl --help' for the list",
				out_esc(g.cmd_argv[0]));
		return EXIT_USAGE;
	}
	status = cmd->run(&cli_state, g.cmd_argc, g.cmd_argv);
	if (fflush(stdout) != 0 && status == 0) {
		cli_err("cannot write output: %s", strerror(errno));
		status = EXIT_FAILURE;
	}
	mcg_ctx_free(cli_state.ctx);
	return status;
}
