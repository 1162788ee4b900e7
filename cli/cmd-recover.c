/* cmd-recover.c: "memcgctl recover": restore limits that a killed memcgctl run left changed. */
#include "memcgctl.h"
#include "cli-common.h"
#include "cgroup-arg.h"
#include "output.h"
#include "journal-report.h"

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
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp recover_argp = {
	recover_options, recover_parse, "[CGROUP]",
	"Restore the values saved in journals left by memcgctl runs that were killed (SIGKILL, "
	"power loss) before they could roll back, for CGROUP or for every cgroup. A value is "
	"restored only where the file still holds a value memcgctl left there; one that another "
	"writer set since is kept and reported. Corrupt journals are reported and moved aside. "
	"Exit status: 0 done, 1 a corrupt journal or a failed restore, 3 another writer's value "
	"kept, 64 usage error.",
	cli_common_children, NULL, NULL,
};

struct recover_state {
	struct cli *cli;
	bool dry_run;
	int failed, conflicts;
};

static const char *outcome(int err)
{
	switch (err) {
	case 0:
		return "restored";
	case -ENOENT:
		return "gone";
	case -EIDRM:
		return "recreated";
	case -ESTALE:
		return "earlier-boot";
	case -MCG_E_CORRUPT:
		return "corrupt";
	case -MCG_E_LOCKED:
		return "in-use";
	case -MCG_E_CONFLICT:
		return "conflict";
	}
	return "failed";
}

static void report(const struct mcg_recovery *r, void *userdata)
{
	struct recover_state *s = userdata;
	int st;

	if (s->cli->json) {
		st = r->error == -MCG_E_CONFLICT				     ? EXIT_CONFLICT
		     : r->error && r->error != -ENOENT && r->error != -ESTALE &&
				       r->error != -EIDRM && r->error != -MCG_E_LOCKED ? EXIT_FAILURE
										     : 0;
		jw_open_object(stdout, NULL);
		jw_string(stdout, "cgroup", r->path);
		jw_string(stdout, "file", r->journal);
		jw_string(stdout, "op", r->op);
		jw_i64(stdout, "pid", r->pid);
		jw_string(stdout, "result", outcome(r->error));
		jw_i64(stdout, "restored_values", r->restored);
		if (r->error)
			jw_string(stdout, "error", mcg_strerror(r->error));
		else
			jw_null(stdout, "error");
		if (r->error == -MCG_E_CORRUPT) {
			jw_string(stdout, "reason", r->reason);
			if (r->moved_to[0])
				jw_string(stdout, "moved_to", r->moved_to);
		}
		if (r->error == -MCG_E_CONFLICT) {
			jw_string(stdout, "knob", r->knob);
			jw_bytes(stdout, "found_bytes", r->found, true);
			jw_bytes(stdout, "expected_bytes", r->expected, true);
		}
		jw_close_object(stdout);
	} else {
		st = cli_report_recovery(r, s->dry_run, false);
	}
	if (st == EXIT_CONFLICT)
		s->conflicts++;
	else if (st)
		s->failed++;
}

static int recover_run(struct cli *cli, int argc, char **argv)
{
	struct recover_args a = {0};
	struct recover_state s = {.cli = cli};
	struct mcg_ctx *ctx;
	char *path = NULL; /* CGROUP resolved */
	int r, st;

	r = cli_parse(&recover_argp, argc, argv, &a);
	if (r)
		return r;
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_FAILURE;
	/* CGROUP as every command takes it: a name that does not resolve says what was read (64) */
	if (a.cgroup) {
		struct mcg_group *g;

		r = cli_open_cgroup(cli, a.cgroup, &g);
		if (r < 0)
			return cli_status(r);
		path = strdup(mcg_group_path(g));
		mcg_group_close(g);
		if (!path) {
			cli_err("cannot recover: %s", mcg_strerror(-ENOMEM));
			return EXIT_FAILURE;
		}
		a.cgroup = path;
	}
	s.dry_run = a.dry_run;
	if (cli->json) {
		jw_open_object(stdout, NULL);
		jw_timestamp(stdout);
		jw_bool(stdout, "dry_run", a.dry_run);
		jw_open_array(stdout, "journals");
	}
	r = mcg_recover(ctx, a.cgroup, a.dry_run, report, &s);
	if (cli->json) {
		jw_close_array(stdout);
		jw_close_object(stdout);
		jw_end(stdout);
	}
	if (r < 0 && cli_report_rundir(ctx, r)) {
		st = EXIT_FAILURE;
	} else if (r < 0) {
		if (a.cgroup)
			cli_err("cannot recover '%s': %s", out_esc(a.cgroup), mcg_strerror(r));
		else
			cli_err("cannot recover: %s", mcg_strerror(r));
		st = cli_status(r);
	} else {
		if (r == 0 && !cli->json)
			printf("nothing to recover\n");
		st = s.failed ? EXIT_FAILURE : s.conflicts ? EXIT_CONFLICT : 0;
	}
	free(path);
	return st;
}

const struct mcg_cmd cmd_recover = {
	.name = "recover",
	.summary = "Restore limits left changed by a killed memcgctl run",
	.argp = &recover_argp,
	.run = recover_run,
};
