/* cli-common.c: argp pieces the commands share (cli-common.h). */
#include "cli-common.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memcg.h"
#include "memcgctl.h"

error_t cli_cgroup_operand(struct argp_state *state, int key, char *arg, const char **cgroup)
{
	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	if (*cgroup)
		argp_error(state, "too many arguments: '%s'", arg);
	*cgroup = arg;
	return 0;
}

void cli_need_cgroup(struct argp_state *state, const char *cgroup)
{
	if (!cgroup)
		argp_error(state, "missing CGROUP");
}

long cli_arg_long(struct argp_state *state, const char *option, const char *arg, long min,
		  long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < min || v > max) {
		if (max == LONG_MAX)
			argp_error(state, "invalid %s '%s': must be a whole number from %ld", option,
				   arg, min);
		else
			argp_error(state, "invalid %s '%s': must be a whole number from %ld to %ld",
				   option, arg, min, max);
	}
	return v;
}

uint64_t cli_arg_interval(struct argp_state *state, const char *arg)
{
	char why[128];
	uint64_t ms;

	if (mcg_duration_parse(arg, &ms, why, sizeof(why)) < 0)
		argp_error(state, "invalid --interval '%s': %s", arg, why);
	if (ms < 50 || ms > 3600 * 1000)
		argp_error(state, "invalid --interval '%s': must be from 50ms to 1h", arg);
	return ms;
}

const char *cli_arg_exec(struct argp_state *state, const char *arg)
{
	if (arg[0] != '/')
		argp_error(state, "invalid --exec '%s': an absolute path to a program", out_esc(arg));
	if (access(arg, X_OK) < 0)
		argp_error(state, "invalid --exec '%s': %s", out_esc(arg), strerror(errno));
	return arg;
}

int cli_open_size_target(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_group *g;
	int r = cli_open_group(cli, spec, &g);

	if (r < 0)
		return cli_status(r);
	if (mcg_group_is_root(g)) {
		cli_err("cannot size '%s': the root cgroup holds the whole system's memory",
			out_esc(mcg_group_path(g)));
		mcg_group_close(g);
		return EXIT_USAGE;
	}
	*ret = g;
	return 0;
}
