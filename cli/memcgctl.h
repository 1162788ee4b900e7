/* memcgctl.h: what the command files share: the command table entry, global options, helpers. */
#ifndef MEMCGCTL_H
#define MEMCGCTL_H

#include <argp.h>
#include <signal.h>
#include <stdlib.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "memcg.h"

/*
 * The exit status of every command: one table, the same meaning everywhere
 * (memcgctl(8), EXIT STATUS). EXIT_SUCCESS and EXIT_FAILURE are stdlib.h's 0, 1.
 */
enum mcg_exit {
	EXIT_OK = 0,	      /* success */
	/* 1: EXIT_FAILURE: the operation failed (kernel refused, I/O error, corrupt state) */
	EXIT_PARTIAL = 2,     /* stopped by --timeout or an interrupt, cgroup consistent; or a
			       * target not fully reached */
	/*
	 * Another writer (systemd, kubelet, an administrator) changed a value memcgctl
	 * had set for the time being: memcgctl stopped and left their value in place.
	 */
	EXIT_CONFLICT = 3,
	EXIT_NOT_RESTORED = 4, /* failed and a value could not be put back: run recover */
	EXIT_USAGE = 64,       /* bad option, size, duration or cgroup name; no such cgroup */
	EXIT_BUSY = 75,	       /* another memcgctl holds the cgroup's lock (EX_TEMPFAIL) */
};

/* Global options; every command also accepts them after its name. */
struct cli {
	const char *root;   /* --root: a hierarchy root instead of discovery */
	const char *procfs; /* --proc: a procfs root (fixtures) */
	const char *rundir; /* --run-dir */
	int cgroup_version; /* --cgroup-version with --root */
	bool json, raw; /* raw: unaligned tables, and (for compatibility) exact bytes */
	bool bytes;     /* sizes as exact bytes (--bytes, --raw) */
	int verbose;
	struct mcg_ctx *ctx; /* made on first use by cli_ctx() */
	const struct mcg_cmd *const *commands; /* the command table, NULL-terminated (main() sets it) */
};

struct mcg_cmd {
	const char *name;
	const char *summary; /* one line for the command list */
	const struct argp *argp;
	/* argv[0] is the command name; returns the exit status. */
	int (*run)(struct cli *cli, int argc, char **argv);
	bool hidden;
	/* Fixed words the first argument may be (sub-commands), NULL-terminated. */
	const char *const *words;
};

extern struct cli cli_state;
extern const struct argp cli_common_argp;
/* argp children list with the global options, for a command's struct argp. */
extern const struct argp_child cli_common_children[];

/* The memory cgroup context for this run; prints the error and returns NULL. */
struct mcg_ctx *cli_ctx(struct cli *cli);
/* Open SPEC; on failure prints "cannot open cgroup 'SPEC': reason" and returns the error. */
int cli_open_group(struct cli *cli, const char *spec, struct mcg_group **ret);
/*
 * S as text (mcg_escape()): S itself when it needs no escape, else in a ring
 * of buffers, so that a few escaped names can be used in one printf.
 */
const char *out_esc(const char *s);
/* "memcgctl: " + message to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_notify(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a size argument or print "invalid size for OPT: 'S': why" and return -EINVAL. */
int cli_parse_size(const char *what, const char *s, unsigned flags, uint64_t ref, uint64_t base,
		   uint64_t *ret);
int cli_parse_duration(const char *what, const char *s, uint64_t *ret_ms);
/* What --max-cpu and --size-max-cpu take (mcg_cpu_percent_parse), for their messages. */
#define CLI_CPU_PERCENT_SYNTAX                                                                     \
	"a percentage of one CPU from 0.001 to 100 with at most three decimals, as 5, 0.25 or "    \
	"2.5%"
/* Parse a CPU budget or print "invalid OPT: 'S': why (syntax)" and return -EINVAL/-ERANGE. */
int cli_parse_cpu_percent(const char *what, const char *s, double *ret);
/* Parse the command's arguments with argp: stops with 64 on usage errors. */
int cli_parse(const struct argp *argp, int argc, char **argv, void *input);
/* Size for humans or raw bytes (--raw). */
const char *cli_size(uint64_t v, char *buf, size_t len);
/* Is stdout a terminal (for progress lines and colours)? */
bool cli_isatty(void);
/* Exit status for a library error: 1, or 64 when the user named something invalid. */
int cli_status(int err);

/* Interrupt handling for commands that change state: SIGINT/SIGTERM set a flag. */
void cli_trap_signals(void);
extern volatile sig_atomic_t cli_interrupted;

const struct mcg_cmd *cli_find_command(const char *name);
/* All commands, NULL-terminated (entries whose file is not linked are absent). */
const struct mcg_cmd *const *cli_commands(void);

#endif
