/* cmd-recover.c: "memcgctl recover": restore limits that a killed memcgctl run left changed. */
#include "memcgctl.h"
#include "output.h"

#include <string.h>

struct recover_args {
	const char *cgroup;
	bool dry_run;
};

static const struct argp_option recover_options[] = {
	{"dry-run", 'n', NULL, 0, "Say what would be restored, change nothing", 0},
	{0},
};

static error_t recover_parse(int key, char *arg, struct argp_state *state)
{
	struct recover_args *a = state->input;

	switch (key) {
	case 'n':
		a->dry_run = true;
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

static const struct argp recover_argp = {
	recover_options, recover_parse, "[CGROUP]",
	"Restore the values saved in journals left by memcgctl runs that were killed (SIGKILL, "
	"power loss) before they could roll back, for CGROUP or for every cgroup.",
	cli_common_children, NULL, NULL,
};

struct recover_state {
	struct cli *cli;
	bool dry_run;
	int failed;
};

static void report(const struct mcg_recovery *r, void *userdata)
{
	struct recover_state *s = userdata;

	if (r->error && r->error != -ENOENT && r->error != -ESTALE)
		s->failed++;
	if (s->cli->json) {
		jw_open_object(stdout, NULL);
		jw_string(stdout, "path", r->path);
		jw_string(stdout, "op", r->op);
		jw_i64(stdout, "pid", r->pid);
		jw_i64(stdout, "restored", r->restored);
		if (r->error)
			jw_string(stdout, "error", mcg_strerror(r->error));
		else
			jw_null(stdout, "error");
		jw_bool(stdout, "dry_run", s->dry_run);
		jw_close_object(stdout);
		return;
	}
	if (r->error == -ESTALE)
		printf("%s: %s the journal of '%s' (pid %d) from an earlier boot; its values did not "
		       "survive the reboot\n",
		       r->path, s->dry_run ? "would drop" : "dropped", r->op, (int)r->pid);
	else if (s->dry_run)
		printf("%s: would restore %d value(s) saved by '%s' (pid %d)\n", r->path, r->restored,
		       r->op, (int)r->pid);
	else if (r->error == -ENOENT)
		printf("%s: cgroup is gone; dropped the journal of '%s' (pid %d)\n", r->path, r->op,
		       (int)r->pid);
	else if (r->error)
		cli_err("cannot restore '%s' (journal of '%s', pid %d): %s", r->path, r->op,
			(int)r->pid, mcg_strerror(r->error));
	else
		printf("%s: restored %d value(s) saved by '%s' (pid %d)\n", r->path, r->restored,
		       r->op, (int)r->pid);
}

static int recover_run(struct cli *cli, int argc, char **argv)
{
	struct recover_args a = {0};
	struct recover_state s = {.cli = cli};
	struct mcg_ctx *ctx;
	int r;

	r = cli_parse(&recover_argp, argc, argv, &a);
	if (r)
		return r;
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_FAILURE;
	s.dry_run = a.dry_run;
	if (cli->json)
		jw_open_array(stdout, NULL);
	r = mcg_recover(ctx, a.cgroup, a.dry_run, report, &s);
	if (cli->json) {
		jw_close_array(stdout);
		jw_end(stdout);
	}
	if (r < 0) {
		if (a.cgroup)
			cli_err("cannot recover '%s': %s", a.cgroup, mcg_strerror(r));
		else
			cli_err("cannot recover: %s", mcg_strerror(r));
		return cli_status(r);
	}
	if (r == 0 && !cli->json)
		printf("nothing to recover\n");
	return s.failed ? EXIT_FAILURE : 0;
}

const struct mcg_cmd cmd_recover = {
	.name = "recover",
	.summary = "Restore limits left changed by a killed memcgctl run",
	.argp = &recover_argp,
	.run = recover_run,
};
