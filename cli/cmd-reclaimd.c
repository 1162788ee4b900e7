/* cmd-reclaimd.c: "memcgctl reclaimd": the daemon that serves every cgroup with async reclaim on. */
#include "memcgctl.h"
#include "../daemon/reclaimd.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Shared with cmd-async-reclaim.c. */
int cli_async_statedir(struct cli *cli, const char *opt, char *buf, size_t len);
int cli_reclaimd_start(struct cli *cli, const char *statedir, pid_t *ret_pid);
bool cli_async_untrusted(const char *statedir, int err);

struct reclaimd_args {
	const char *statedir;
	bool foreground, keep;
};

enum { OPT_STATE_DIR = 0x200, OPT_KEEP };

static const struct argp_option reclaimd_options[] = {
	{"foreground", 'f', NULL, 0, "Run in the foreground (for a service manager); log to stderr", 0},
	{"state-dir", OPT_STATE_DIR, "DIR", 0,
	 "Enabled cgroups and statistics under DIR (default RUNDIR/async-reclaim)", 0},
	{"keep", OPT_KEEP, NULL, 0, "Keep running when no cgroup is enabled", 0},
	{0},
};

static error_t reclaimd_parse(int key, char *arg, struct argp_state *state)
{
	struct reclaimd_args *a = state->input;

	switch (key) {
	case 'f':
		a->foreground = true;
		break;
	case OPT_STATE_DIR:
		a->statedir = arg;
		break;
	case OPT_KEEP:
		a->keep = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "too many arguments: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp reclaimd_argp = {
	reclaimd_options, reclaimd_parse, "",
	"Serve every cgroup that has async reclaim enabled: wake when usage crosses the high "
	"watermark, reclaim down to the low one within a CPU budget. 'memcgctl async-reclaim "
	"enable' starts it when needed; it exits when nothing is enabled (unless --keep) and on "
	"SIGTERM or SIGINT; SIGHUP re-reads the state directory.",
	cli_common_children, NULL, NULL,
};

int cli_async_statedir(struct cli *cli, const char *opt, char *buf, size_t len)
{
	struct mcg_ctx *ctx;
	int r;

	if (opt) {
		if (opt[0] != '/') {
			/* the daemon runs from / */
			char cwd[4096];

			if (!getcwd(cwd, sizeof(cwd)))
				return -errno;
			if ((size_t)snprintf(buf, len, "%s/%s", cwd, opt) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
		if ((size_t)snprintf(buf, len, "%s", opt) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	ctx = cli_ctx(cli);
	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	r = mcg_async_statedir(ctx, buf, len);
	if (r < 0)
		cli_err("cannot name the state directory: %s", mcg_strerror(r));
	return r;
}

/* An untrusted state directory: say which and why (true if ERR was that). */
bool cli_async_untrusted(const char *statedir, int err)
{
	char *d;

	if (err != -MCG_E_UNTRUSTED)
		return false;
	d = mcg_escape_dup(statedir);
	cli_err("cannot use state directory '%s': %s", d ? d : "?", mcg_strerror(err));
	free(d);
	return true;
}

static const char *absolute(const char *p, char *buf, size_t len)
{
	char cwd[4096];

	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return p;
	snprintf(buf, len, "%s/%s", cwd, p);
	return buf;
}

/* The unit that runs the daemon for the default state directory on a systemd host. */
#define RECLAIMD_UNIT "memcgctl-reclaimd.service"
/*
 * How long a start may take until the pid file is held: a detached child 10 s (a
 * start after a crash-injection kill timed out at 3 s in 1 of 7 runs on the loaded 2-core
 * machine, sanitizer build); the
 * unit 30 s, its ExecStartPre (memcgctl recover) included, which took 3 s in the
 * QEMU/TCG guest with a sanitizer build (a host is faster).
 */
#define CHILD_START_TENTHS 100
#define UNIT_START_TENTHS 300
/* argv[0] of the daemon (ps -f, the unit's ExecStart=@) */
#define RECLAIMD_NAME "memcgctl-reclaimd"
/*
 * Its comm (ps, top, pidof, the journal's _COMM): the kernel keeps 15 bytes, which
 * cut RECLAIMD_NAME to "memcgctl-reclai"; this fits whole.
 */
#define RECLAIMD_COMM "memcg-reclaimd"

/* Wait until the daemon for STATEDIR holds its pid file (TENTHS tenths of a second). */
static int wait_pidfile(const char *statedir, int tenths, pid_t *ret_pid)
{
	struct mcg_reclaimd_info info;
	int i;

	for (i = 0; i < tenths * 10; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		if (mcg_reclaimd_info(statedir, &info) == 0 && info.pid > 0) {
			*ret_pid = info.pid;
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/*
 * On a systemd host the daemon for the default state directory is the unit's
 * (which runs 'reclaimd --foreground --keep' with the defaults): started with
 * StartUnit, it runs in its own cgroup and sandbox, not as its caller's child.
 * 1 when started so, 0 when this run is not the unit's (--root, --run-dir,
 * --state-dir, no systemd, the unit not installed), -errno with the reason said.
 */
static int start_unit(struct cli *cli, const char *statedir, pid_t *ret_pid)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	char def[4200], why[256];
	int r;

	if (!ctx || cli->root || cli->procfs || !mcg_unit_systemd_running() ||
	    strcmp(mcg_ctx_rundir(ctx), "/run/memcgctl") ||
	    mcg_async_statedir(ctx, def, sizeof(def)) < 0 || strcmp(def, statedir))
		return 0;
	r = mcg_unit_start(RECLAIMD_UNIT, why, sizeof(why));
	if (r == -ENOENT)
		return 0; /* not installed: a detached child as elsewhere */
	if (r < 0) {
		cli_err("cannot start %s: %s", RECLAIMD_UNIT, why);
		return r;
	}
	/* the unit runs 'memcgctl recover' first: its start job takes longer than a fork */
	r = wait_pidfile(statedir, UNIT_START_TENTHS, ret_pid);
	if (r < 0) {
		cli_err("cannot start %s: it holds no pid file in %s (see journalctl -u %s)",
			RECLAIMD_UNIT, statedir, RECLAIMD_UNIT);
		return r;
	}
	return 1;
}

/* Start a detached daemon for STATEDIR with this run's global options. */
int cli_reclaimd_start(struct cli *cli, const char *statedir, pid_t *ret_pid)
{
	char rootbuf[4200], procbuf[4200], runbuf[4200], ver[4];
	const char *argv[24];
	struct mcg_ctx *ctx = cli_ctx(cli);
	int n = 0, status, i, logfd, r;
	pid_t pid;

	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	r = start_unit(cli, statedir, ret_pid);
	if (r != 0)
		return r < 0 ? r : 0;
	argv[n++] = RECLAIMD_NAME; /* ps shows it; /proc/self/exe is run */
	if (cli->root) {
		argv[n++] = "--root";
		argv[n++] = absolute(cli->root, rootbuf, sizeof(rootbuf));
		snprintf(ver, sizeof(ver), "%d", mcg_ctx_version(ctx));
		argv[n++] = "--cgroup-version";
		argv[n++] = ver;
	}
	if (cli->procfs) {
		argv[n++] = "--proc";
		argv[n++] = absolute(cli->procfs, procbuf, sizeof(procbuf));
	}
	argv[n++] = "--run-dir";
	argv[n++] = absolute(mcg_ctx_rundir(ctx), runbuf, sizeof(runbuf));
	for (i = 0; i < cli->verbose && i < 2; i++)
		argv[n++] = "-v";
	argv[n++] = "reclaimd";
	argv[n++] = "--foreground";
	argv[n++] = "--state-dir";
	argv[n++] = statedir;
	argv[n] = NULL;
	/* in the trusted state directory, never through a link (O_CLOEXEC: dup2'd below) */
	logfd = mcg_async_log_open(statedir);
	if (logfd < 0)
		return logfd;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(logfd);
		return e;
	}
	if (pid == 0) {
		int fd;

		/* a new session, then fork again so that the daemon is nobody's child */
		if (setsid() < 0)
			_exit(1);
		pid = fork();
		if (pid != 0)
			_exit(pid < 0 ? 1 : 0);
		if (chdir("/") < 0)
			_exit(1);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
		dup2(logfd, 1);
		dup2(logfd, 2);
		if (logfd > 2)
			close(logfd);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	close(logfd);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	/* wait until it holds its pid file (or gave up: nothing to serve, or failed) */
	return wait_pidfile(statedir, CHILD_START_TENTHS, ret_pid);
}

static int reclaimd_run(struct cli *cli, int argc, char **argv)
{
	struct reclaimd_args a = {0};
	struct mcg_reclaimd_info info;
	char statedir[4200];
	struct mcg_ctx *ctx;
	pid_t pid;
	int r;

	r = cli_parse(&reclaimd_argp, argc, argv, &a);
	if (r)
		return r;
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_FAILURE;
	if (cli_async_statedir(cli, a.statedir, statedir, sizeof(statedir)) < 0)
		return EXIT_FAILURE;
	if (!a.foreground) {
		struct mcg_async_conf *confs;
		size_t n = 0;

		r = mcg_reclaimd_info(statedir, &info);
		if (r == 0 && info.pid > 0) {
			printf("reclaimd is already running (pid %d)\n", (int)info.pid);
			return 0;
		}
		if (r == 0)
			r = mcg_async_list(statedir, &confs, &n);
		if (r < 0) {
			if (!cli_async_untrusted(statedir, r))
				cli_err("cannot read the state directory %s: %s", statedir,
					mcg_strerror(r));
			return EXIT_FAILURE;
		}
		free(confs);
		if (n == 0 && !a.keep) {
			printf("nothing is enabled in %s: reclaimd not started\n", statedir);
			return 0;
		}
		if (a.keep) {
			cli_err("--keep needs --foreground");
			return EXIT_USAGE;
		}
		r = cli_reclaimd_start(cli, statedir, &pid);
		if (r < 0 && cli_async_untrusted(statedir, r))
			return EXIT_FAILURE;
		if (r < 0) {
			cli_err("cannot start reclaimd for %s: %s", statedir,
				r == -ETIMEDOUT ? "it did not start (nothing enabled? see reclaimd.log)"
						: mcg_strerror(r));
			return EXIT_FAILURE;
		}
		printf("reclaimd started (pid %d)\n", (int)pid);
		return 0;
	}
	/* "exe" in ps otherwise (started as /proc/self/exe): the kernel keeps 15 bytes */
	prctl(PR_SET_NAME, RECLAIMD_COMM, 0, 0, 0);
	/* a daemon says what it does: INFO at least */
	r = reclaimd_main(ctx, statedir, a.keep ? RECLAIMD_KEEP : 0,
			  cli->verbose < 1 ? 1 : cli->verbose);
	if (cli_async_untrusted(statedir, r))
		return EXIT_FAILURE;
	if (r == -MCG_E_LOCKED) {
		if (mcg_reclaimd_info(statedir, &info) == 0 && info.pid > 0)
			cli_err("cannot start reclaimd for %s: already running (pid %d)", statedir,
				(int)info.pid);
		else
			cli_err("cannot start reclaimd for %s: already running", statedir);
		return EXIT_FAILURE;
	}
	if (r < 0) {
		cli_err("reclaimd for %s failed: %s", statedir, mcg_strerror(r));
		return EXIT_FAILURE;
	}
	return 0;
}

const struct mcg_cmd cmd_reclaimd = {
	.name = "reclaimd",
	.summary = "Run the async reclaim daemon (started by async-reclaim enable)",
	.argp = &reclaimd_argp,
	.run = reclaimd_run,
};
