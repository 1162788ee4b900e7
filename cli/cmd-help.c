/* cmd-help.c: "memcgctl help [COMMAND]" and the hidden "__complete" the completions ask. */
#include "memcgctl.h"

#include <stdlib.h>
#include <string.h>

static int help_run(struct cli *cli, int argc, char **argv)
{
	const struct mcg_cmd *cmd;
	char name[64];

	(void)cli;
	if (argc < 2) {
		const struct mcg_cmd *const *c;

		printf("Usage: memcgctl [OPTION...] COMMAND [ARGS...]\n\nCommands:\n");
		for (c = cli_commands(); *c; c++)
			if (!(*c)->hidden)
				printf("  %-15s %s\n", (*c)->name, (*c)->summary);
		printf("\nRun 'memcgctl help COMMAND' for a command's options.\n");
		return 0;
	}
	if (argc > 2) {
		cli_err("help takes one command name");
		return EXIT_USAGE;
	}
	cmd = cli_find_command(argv[1]);
	if (!cmd || cmd->hidden) {
		cli_err("unknown command '%s'; run 'memcgctl help' for the list", argv[1]);
		return EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "memcgctl %s", cmd->name);
	argp_help(cmd->argp, stdout, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK, name);
	return 0;
}

static const struct argp help_argp = {NULL, NULL, "[COMMAND]", "Show help for memcgctl or one command.",
				      NULL, NULL, NULL};

const struct mcg_cmd cmd_help = {
	.name = "help",
	.summary = "Show help for a command",
	.argp = &help_argp,
	.run = help_run,
};

/* Print the long options of ARGP (and, if CHILDREN, of its children). */
static void print_options(const struct argp *argp, bool children)
{
	const struct argp_option *o;
	const struct argp_child *c;

	for (o = argp->options; o && (o->name || o->key || o->doc); o++) {
		if (!o->name || (o->flags & OPTION_HIDDEN))
			continue;
		printf("--%s%s\n", o->name, o->arg && !(o->flags & OPTION_ARG_OPTIONAL) ? "=" : "");
	}
	if (children)
		for (c = argp->children; c && c->argp; c++)
			print_options(c->argp, true);
}

/*
 * Each path NUL-terminated: a cgroup name may hold any byte but '/' and NUL, a
 * newline included, so no line-based list can carry it. The completions split
 * on NUL (bash mapfile -d '', zsh ${(0)...}, fish string split0) and quote
 * what they insert; they never evaluate a name.
 */
static int print_cgroup(const char *path, int depth, void *userdata)
{
	(void)depth;
	(void)userdata;
	fputs(path, stdout);
	fputc('\0', stdout);
	return 0;
}

static int complete_run(struct cli *cli, int argc, char **argv)
{
	const struct mcg_cmd *const *c, *cmd;

	if (argc < 2)
		return EXIT_USAGE;
	if (!strcmp(argv[1], "commands")) {
		for (c = cli_commands(); *c; c++)
			if (!(*c)->hidden)
				printf("%s\n", (*c)->name);
		return 0;
	}
	if (!strcmp(argv[1], "options") || !strcmp(argv[1], "own-options")) {
		bool own = !strcmp(argv[1], "own-options");

		if (argc < 3) {
			print_options(&cli_common_argp, false);
			printf("--help\n--version\n");
			return 0;
		}
		cmd = cli_find_command(argv[2]);
		if (!cmd)
			return EXIT_USAGE;
		print_options(cmd->argp, !own);
		if (!own)
			printf("--help\n");
		return 0;
	}
	if (!strcmp(argv[1], "words")) {
		const char *const *w;

		cmd = argc >= 3 ? cli_find_command(argv[2]) : NULL;
		if (!cmd)
			return EXIT_USAGE;
		for (w = cmd->words; w && *w; w++)
			printf("%s\n", *w);
		return 0;
	}
	if (!strcmp(argv[1], "cgroups")) {
		struct mcg_ctx *ctx;

		/* completion must stay quiet: no error text */
		if (!freopen("/dev/null", "w", stderr))
			return EXIT_FAILURE;
		ctx = cli_ctx(cli);
		if (!ctx)
			return EXIT_FAILURE;
		return mcg_walk(ctx, "/", 6, print_cgroup, NULL) < 0 ? EXIT_FAILURE : 0;
	}
	return EXIT_USAGE;
}

static const struct argp complete_argp = {NULL, NULL, "commands|options [CMD]|own-options CMD|words CMD|cgroups",
					  "Completion helper (cgroups: NUL-terminated paths).", NULL, NULL, NULL};

const struct mcg_cmd cmd_complete = {
	.name = "__complete",
	.summary = "Completion helper",
	.argp = &complete_argp,
	.run = complete_run,
	.hidden = true,
};
