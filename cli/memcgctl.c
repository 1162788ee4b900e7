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

struct cli cli_state;
volatile sig_atomic_t cli_interrupted;

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
CMD(cmd_async_reclaim);
CMD(cmd_reclaimd);
CMD(cmd_dirty);
CMD(cmd_top);
CMD(cmd_export);
CMD(cmd_recover);
CMD(cmd_record);
CMD(cmd_dump);
CMD(cmd_help);
CMD(cmd_complete);
#undef CMD

static const struct mcg_cmd *const table[] = {
	&cmd_list, &cmd_show,  &cmd_set_limit, &cmd_empty, &cmd_async_reclaim, &cmd_reclaimd,
	&cmd_dirty, &cmd_top, &cmd_export, &cmd_recover, &cmd_record, &cmd_dump, &cmd_help,  &cmd_complete,
};
static const struct mcg_cmd *present[sizeof(table) / sizeof(table[0]) + 1];

const struct mcg_cmd *const *cli_commands(void)
{
	size_t i, n = 0;

	if (!present[0])
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (table[i])
				present[n++] = table[i];
	return present;
}

const struct mcg_cmd *cli_find_command(const char *name)
{
	const struct mcg_cmd *const *c;

	for (c = cli_commands(); *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("memcgctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("memcgctl: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void lib_log(void *userdata, int level, const char *fmt, va_list ap)
{
	struct cli *cli = userdata;

	if (level >= MCG_LOG_INFO && cli->verbose < (level == MCG_LOG_DEBUG ? 2 : 1))
		return;
	fputs(level == MCG_LOG_WARNING	 ? "memcgctl: warning: "
	      : level == MCG_LOG_DEBUG ? "memcgctl: debug: "
				       : "memcgctl: ",
	      stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

enum {
	OPT_ROOT = 0x100,
	OPT_PROC,
	OPT_RUNDIR,
	OPT_CGVER,
	OPT_RAW,
};

static const struct argp_option common_options[] = {
	{"json", 'j', NULL, 0, "Print JSON", 0},
	{"raw", OPT_RAW, NULL, 0, "Print sizes as raw bytes", 0},
	{"root", OPT_ROOT, "DIR", 0, "Use DIR as the memory cgroup hierarchy root", 0},
	{"proc", OPT_PROC, "DIR", 0, "Read /proc files from DIR (for captured trees)", 0},
	{"cgroup-version", OPT_CGVER, "1|2", 0, "The cgroup version of --root (default: detect)", 0},
	{"run-dir", OPT_RUNDIR, "DIR", 0, "Journals and locks under DIR (default /run/memcgctl)", 0},
	{"verbose", 'v', NULL, 0, "Say more (twice: debug)", 0},
	/* -h is --help everywhere (argp's own short form is -?) */
	{NULL, 'h', NULL, OPTION_HIDDEN, "Give this help list", 0},
	{0},
};

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct cli *cli = &cli_state;

	switch (key) {
	case 'j':
		cli->json = true;
		break;
	case OPT_RAW:
		cli->raw = true;
		break;
	case OPT_ROOT:
		cli->root = arg;
		break;
	case OPT_PROC:
		cli->procfs = arg;
		break;
	case OPT_RUNDIR:
		if (!*arg) {
			/* "" would put locks and journals under / */
			cli_err("invalid --run-dir '': empty path");
			exit(EXIT_USAGE);
		}
		cli->rundir = arg;
		break;
	case OPT_CGVER:
		if (strcmp(arg, "1") && strcmp(arg, "2"))
			argp_error(state, "invalid --cgroup-version '%s': must be 1 or 2", arg);
		cli->cgroup_version = atoi(arg);
		break;
	case 'v':
		cli->verbose++;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp cli_common_argp = {common_options, common_parse, NULL, NULL, NULL, NULL, NULL};
const struct argp_child cli_common_children[] = {
	{&cli_common_argp, 0, "Global options:", 1},
	{0},
};

struct mcg_ctx *cli_ctx(struct cli *cli)
{
	int r;

	if (cli->ctx)
		return cli->ctx;
	if (cli->root)
		r = mcg_ctx_new_root(cli->root, cli->cgroup_version, lib_log, cli, &cli->ctx);
	else
		r = mcg_ctx_new(lib_log, cli, &cli->ctx);
	if (r < 0) {
		if (cli->root)
			cli_err("cannot use '%s' as the cgroup root: %s", out_esc(cli->root),
				mcg_strerror(r));
		else
			cli_err("cannot find the memory cgroup controller: %s", mcg_strerror(r));
		cli->ctx = NULL;
		return NULL;
	}
	if (cli->procfs && (r = mcg_ctx_set_procfs(cli->ctx, cli->procfs)) < 0) {
		cli_err("invalid --proc '%s': %s", out_esc(cli->procfs), mcg_strerror(r));
		mcg_ctx_free(cli->ctx);
		cli->ctx = NULL;
		return NULL;
	}
	/* the environment is read here, never inside the library */
	if (!cli->rundir)
		cli->rundir = getenv("MEMCGCTL_RUNDIR");
	if (cli->rundir && (r = mcg_ctx_set_rundir(cli->ctx, cli->rundir)) < 0) {
		cli_err("invalid run directory '%s' (--run-dir or MEMCGCTL_RUNDIR): %s", out_esc(cli->rundir),
			r == -EINVAL && !*cli->rundir ? "empty path" : mcg_strerror(r));
		mcg_ctx_free(cli->ctx);
		cli->ctx = NULL;
		return NULL;
	}
	return cli->ctx;
}

int cli_status(int err)
{
	err = err < 0 ? -err : err;
	if (err == ENOENT || err == EINVAL || err == MCG_E_NOTCGROUP || err == MCG_E_ESCAPE ||
	    err == ESRCH || err == ERANGE || err == ENAMETOOLONG)
		return EXIT_USAGE;
	return EXIT_FAILURE;
}

int cli_open_group(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	int r;

	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	/* a systemd unit ("web.service"): its message when it does not resolve */
	if (mcg_unit_spec(ctx, spec))
		return cli_open_cgroup(cli, spec, ret);
	r = mcg_group_open(ctx, spec, ret);
	/* SPEC is printed escaped: it may be a name pasted from anywhere */
	if (r == -ENOENT)
		cli_err("cannot open cgroup '%s': no such cgroup under %s", out_esc(spec),
			out_esc(mcg_ctx_root(ctx)));
	else if (r == -ESRCH)
		cli_err("cannot open cgroup '%s': no such process", out_esc(spec));
	else if (r == -EINVAL && !strncmp(spec, "pid:", 4))
		cli_err("cannot open cgroup '%s': not a process id", out_esc(spec));
	else if (r == -ENAMETOOLONG) {
		char head[72]; /* the start of it: mcg_escape never cuts a character */

		mcg_escape(spec, head, sizeof(head));
		cli_err("cannot open cgroup '%s...': name too long (a name over %d bytes or a "
			"path over %d)",
			head, NAME_MAX, MCG_PATH_MAX);
	}
	else if (r < 0)
		cli_err("cannot open cgroup '%s': %s", out_esc(spec), mcg_strerror(r));
	return r;
}

int cli_parse_size(const char *what, const char *s, unsigned flags, uint64_t ref, uint64_t base,
		   uint64_t *ret)
{
	char why[128];
	int r = mcg_size_parse(s, flags, ref, base, ret, why, sizeof(why));

	if (r < 0)
		cli_err("invalid size for %s: '%s': %s", what, s, why);
	return r;
}

int cli_parse_duration(const char *what, const char *s, uint64_t *ret_ms)
{
	char why[128];
	int r = mcg_duration_parse(s, ret_ms, why, sizeof(why));

	if (r < 0)
		cli_err("invalid duration for %s: '%s': %s", what, s, why);
	return r;
}

int cli_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	char name[64], **v = calloc((size_t)argc + 1, sizeof(char *));
	error_t e;
	int idx;

	if (!v)
		return EXIT_FAILURE;
	/* "memcgctl CMD" in argp's usage and error lines */
	snprintf(name, sizeof(name), "memcgctl %s", argv[0]);
	v[0] = name;
	memcpy(v + 1, argv + 1, (size_t)(argc - 1) * sizeof(char *));
	e = argp_parse(argp, argc, v, 0, &idx, input);
	free(v);
	return e ? EXIT_USAGE : 0;
}

const char *cli_size(uint64_t v, char *buf, size_t len)
{
	if (cli_state.raw) {
		if (v == MCG_MAX)
			snprintf(buf, len, "max");
		else
			snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	return mcg_size_format(v, buf, len);
}

bool cli_isatty(void)
{
	return isatty(STDOUT_FILENO) == 1;
}

static void on_signal(int sig)
{
	cli_interrupted = sig;
}

void cli_trap_signals(void)
{
	struct sigaction sa = {0};

	/* No SA_RESTART: a blocking limit write returns EINTR and we roll back. */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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
