/* cli-common.h: argp pieces the commands share: the one CGROUP operand, whole-number options. */
#ifndef MEMCGCTL_CLI_COMMON_H
#define MEMCGCTL_CLI_COMMON_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

struct cli;
struct mcg_group;

/*
 * The default of the argp parser of a command that takes one CGROUP operand: for
 * ARGP_KEY_ARG the first operand is the cgroup, a second one is a usage error ("too
 * many arguments: 'x'"); any other key is ARGP_ERR_UNKNOWN.
 */
error_t cli_cgroup_operand(struct argp_state *state, int key, char *arg, const char **cgroup);

/* For ARGP_KEY_END: "missing CGROUP" unless one was given. */
void cli_need_cgroup(struct argp_state *state, const char *cgroup);

/*
 * A whole-number option from MIN to MAX; anything else is a usage error:
 * "invalid --count 'x': must be a whole number from 1" (" to MAX" when MAX is
 * below LONG_MAX).
 */
long cli_arg_long(struct argp_state *state, const char *option, const char *arg, long min,
		  long max);

/* A sampler's --interval: a duration (500ms, 5s) from 50ms to 1h, in ms. */
uint64_t cli_arg_interval(struct argp_state *state, const char *arg);

/*
 * --exec PROG (oom --watch, record): a path run as it is (no shell, no search), so one that
 * is not absolute or cannot run is a usage error now, not a failure at the first event.
 */
const char *cli_arg_exec(struct argp_state *state, const char *arg);

/*
 * A cgroup to size (size, reclaimd --size): SPEC opened as cli_open_group() does, the root
 * refused (it holds the whole system's memory). Returns 0 with *RET open, else the exit
 * status, the error printed.
 */
int cli_open_size_target(struct cli *cli, const char *spec, struct mcg_group **ret);

#endif
