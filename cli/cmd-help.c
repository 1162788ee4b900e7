/* cmd-help.c: "memcgctl help [COMMAND]" and the hidden "__complete" the completions ask. */
#include "memcgctl.h"
#include "containers.h"

#include <ctype.h>
#include <stdio.h>
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

/* Print the long options of ARGP (and, if CHILDREN, of its children); DOC: "\tHELP" too. */
static void print_options_doc(const struct argp *argp, bool children, bool doc)
{
	const struct argp_option *o;
	const struct argp_child *c;

	for (o = argp->options; o && (o->name || o->key || o->doc); o++) {
		if (!o->name || (o->flags & OPTION_HIDDEN))
			continue;
		printf("--%s%s", o->name, o->arg && !(o->flags & OPTION_ARG_OPTIONAL) ? "=" : "");
		if (doc && o->doc)
			printf("\t%s", o->doc);
		putchar('\n');
	}
	if (children)
		for (c = argp->children; c && c->argp; c++)
			print_options_doc(c->argp, true, doc);
}

static void print_options(const struct argp *argp, bool children)
{
	print_options_doc(argp, children, false);
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

static void print_spec(const char *spec, void *userdata)
{
	(void)userdata;
	fputs(spec, stdout);
	fputc('\0', stdout);
}

/* The option of ARGP (or its children) named NAME ("--sort", "-s", "--sort=x"), or NULL. */
static const struct argp_option *find_option(const struct argp *argp, const char *name)
{
	const struct argp_option *o, *f;
	const struct argp_child *c;
	size_t n = strcspn(name, "=");

	for (o = argp->options; o && (o->name || o->key || o->doc); o++) {
		if (name[0] == '-' && name[1] == '-' && o->name && strlen(o->name) == n - 2 &&
		    !strncmp(o->name, name + 2, n - 2))
			return o;
		if (name[0] == '-' && name[1] && name[1] != '-' && !name[2] && o->key == name[1] &&
		    isprint(o->key))
			return o;
	}
	for (c = argp->children; c && c->argp; c++)
		if ((f = find_option(c->argp, name)))
			return f;
	return NULL;
}

/*
 * CMD's own --list-columns ("NAME  key  help" lines), captured: the column tables live
 * in each command's file, and this is the one way they are printed.
 */
static char *list_columns(struct cli *cli, const struct mcg_cmd *cmd, const char *opt)
{
	char *argv[] = {(char *)cmd->name, (char *)opt, NULL}, *buf = NULL;
	FILE *mem, *old = stdout;
	size_t len = 0;

	fflush(stdout);
	mem = open_memstream(&buf, &len);
	if (!mem)
		return NULL;
	stdout = mem;
	cmd->run(cli, 2, argv);
	fflush(mem);
	stdout = old;
	fclose(mem);
	return buf;
}

/* "values CMD OPT"'s exit status when OPT's value is a cgroup (reclaimd --size CGROUP). */
#define COMPLETE_CGROUP_VALUE 2

/*
 * "values CMD OPT": OPT takes a value: print its candidates, "value<TAB>description" a
 * line (none for a time, a size, a number: but never cgroup paths), exit 0; 1 when OPT
 * takes no value (a CGROUP may follow); 2 (nothing printed) when its value is itself a
 * CGROUP (the option's argument is named so): the shells then offer what 'cgroups' gives.
 * Columns for -o and --sort from the command's own table; a comma-separated list its help
 * names ("..., comma-separated: a, b, c (...)").
 */
static int complete_values(struct cli *cli, const struct mcg_cmd *cmd, const char *opt)
{
	const struct argp_option *o = find_option(cmd->argp, opt);
	const char *l;

	if (!o || !o->arg || (o->flags & OPTION_ARG_OPTIONAL))
		return EXIT_FAILURE;
	if (!strcmp(o->arg, "CGROUP"))
		return COMPLETE_CGROUP_VALUE;
	if (!strcmp(o->name, "output") && find_option(cmd->argp, "--list-fields")) {
		/* dump: its fields, "NAME<TAB>help" already */
		char *f = list_columns(cli, cmd, "--list-fields");

		if (f)
			fputs(f, stdout);
		free(f);
		return 0;
	}
	if (!strcmp(o->name, "output") || !strcmp(o->name, "sort")) {
		char *cols = list_columns(cli, cmd, "--list-columns"), *line, *save = NULL;

		for (line = cols ? strtok_r(cols, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			char head[64], key[64]; /* key: read past, not offered */
			int n = 0;
			size_t i;

			if (sscanf(line, "%63s %63s %n", head, key, &n) < 2)
				continue;
			for (i = 0; head[i]; i++)
				head[i] = (char)tolower((unsigned char)head[i]);
			/* the heading, lower case: what -o and --sort take (the JSON key too) */
			printf("%s\t%s\n", head, line + n);
		}
		free(cols);
		return 0;
	}
	if (o->doc && (l = strstr(o->doc, "separated: "))) {
		char word[64];
		int n;

		for (l += strlen("separated: "); sscanf(l, " %63[a-z0-9_-]%n", word, &n) == 1; l += n) {
			printf("%s\n", word);
			if (*(l + n) != ',')
				break;
			n++;
		}
	}
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
	if (!strcmp(argv[1], "described-options")) {
		/* "--name[=]<TAB>help" a line, for zsh and fish */
		cmd = argc >= 3 ? cli_find_command(argv[2]) : NULL;
		if (argc >= 3 && !cmd)
			return EXIT_USAGE;
		print_options_doc(cmd ? cmd->argp : &cli_common_argp, cmd != NULL, true);
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
	if (!strcmp(argv[1], "values")) {
		cmd = argc >= 4 ? cli_find_command(argv[2]) : NULL;
		if (!cmd)
			return argc >= 4 && find_option(&cli_common_argp, argv[3]) ? 0 : EXIT_FAILURE;
		if (find_option(&cli_common_argp, argv[3]) &&
		    find_option(&cli_common_argp, argv[3])->arg)
			return 0; /* a global option's value: a directory or a version */
		return complete_values(cli, cmd, argv[3]);
	}
	if (!strcmp(argv[1], "cgroups")) {
		struct mcg_ctx *ctx;

		/* completion must stay quiet: no error text */
		if (!freopen("/dev/null", "w", stderr))
			return EXIT_FAILURE;
		ctx = cli_ctx(cli);
		if (!ctx)
			return EXIT_FAILURE;
		if (mcg_walk(ctx, "/", 6, print_cgroup, NULL) < 0)
			return EXIT_FAILURE;
		/*
		 * and the containers and pods the node's state names (docker:web, pod:shop/api):
		 * not the host's for another tree (--root), unless the state is given with it
		 */
		if (!cli->root || getenv("MEMCGCTL_STATE_ROOT"))
			cli_container_specs(print_spec, NULL);
		return 0;
	}
	return EXIT_USAGE;
}

static const struct argp complete_argp = {NULL, NULL, "commands|options [CMD]|own-options CMD|described-options [CMD]|words CMD|values CMD OPT|cgroups",
					  "Completion helper (cgroups: NUL-terminated paths, then container and pod names).", NULL, NULL, NULL};

const struct mcg_cmd cmd_complete = {
	.name = "__complete",
	.summary = "Completion helper",
	.argp = &complete_argp,
	.run = complete_run,
	.hidden = true,
};
