/* cli.c: what every command shares at run time: the context made on first use, messages and the escaping of names in them, the global options, exit status and signals. */
#include "memcgctl.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli cli_state;
volatile sig_atomic_t cli_interrupted;

const struct mcg_cmd *const *cli_commands(void)
{
	return cli_state.commands;
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
	OPT_BYTES,
};

static const struct argp_option common_options[] = {
	{"json", 'j', NULL, 0, "Print JSON", 0},
	{"raw", OPT_RAW, NULL, 0, "Unaligned tables, and sizes as exact bytes (as --bytes)", 0},
	/* no -b: top's -b is --batch, as in top(1) */
	{"bytes", OPT_BYTES, NULL, 0, "Print sizes as exact bytes, tables aligned", 0},
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
		cli->bytes = true;
		break;
	case OPT_BYTES:
		cli->bytes = true;
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

/* What the container resolver reads: the host's state, or MEMCGCTL_STATE_ROOT's tree (tests). */
static struct mcg_container_resolver_opts cli_container_opts;

/* docker:, podman:, containerd: and pod: name containers (lib/sys/container-names.c), else a unit */
static int cli_resolve(const struct mcg_ctx *ctx, const char *spec, char **ret, void *userdata)
{
	if (mcg_container_spec(spec))
		return mcg_container_resolver(ctx, spec, ret, &cli_container_opts);
	return mcg_unit_resolver(ctx, spec, ret, userdata);
}

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
	/* a CGROUP may name a systemd unit or a container: the library's lower rooms know no names */
	cli_container_opts.state_root = getenv("MEMCGCTL_STATE_ROOT");
	cli_container_opts.crictl = "crictl";
	mcg_ctx_set_resolver(cli->ctx, cli_resolve, NULL);
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

int cli_parse_cpu_percent(const char *what, const char *s, double *ret)
{
	char why[128];
	int r = mcg_cpu_percent_parse(s, ret, why, sizeof(why));

	if (r < 0)
		cli_err("invalid %s: '%s': %s (%s)", what, out_esc(s), why, CLI_CPU_PERCENT_SYNTAX);
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
	if (cli_state.bytes) {
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

/*
 * S as text (mcg_escape()): S itself when it needs no escape, else in a ring
 * of buffers, so that a few escaped names can be used in one printf.
 */
const char *out_esc(const char *s)
{
	static char *ring[8];
	static unsigned next;
	char **slot = &ring[next++ % 8];
	size_t n;
	char *b;

	if (!s)
		return "-";
	if (mcg_escape_plain(s))
		return s;
	n = mcg_escape(s, NULL, 0);
	b = realloc(*slot, n + 1);
	if (!b)
		return "?";
	*slot = b;
	mcg_escape(s, b, n + 1);
	return b;
}

/*
 * Tell the service manager STATE (sd_notify(3) assignments, formatted): nothing
 * without $NOTIFY_SOCKET; a failure is warned about once per WHO ("recorder").
 */
void cli_notify(const char *who, const char *fmt, ...)
{
	static bool warned;
	char state[512];
	va_list ap;
	int r;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	va_start(ap, fmt);
	vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	r = mcg_unit_notify(state);
	if (r < 0 && !warned) {
		warned = true;
		cli_warn("cannot tell the service manager how the %s is: %s", who, mcg_strerror(r));
	}
}
