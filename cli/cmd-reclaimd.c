/* cmd-reclaimd.c: "memcgctl reclaimd": the daemon that serves every cgroup with async reclaim on. */
#include "memcgctl.h"
#include "cli-common.h"
#include "../daemon/reclaimd.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Shared with cmd-async-reclaim.c. */
int cli_async_statedir(struct cli *cli, const char *opt, char *buf, size_t len);
int cli_reclaimd_start(struct cli *cli, const char *statedir, pid_t *ret_pid);
bool cli_async_untrusted(const char *statedir, int err);

/* The background size probe (--size): at most this many cgroups. */
#define SIZE_MAX_JOBS 16
/* One tick per 5 s by default: slowly, beside the workload (size's own default is 1 s). */
#define SIZE_DEFAULT_INTERVAL_MS 5000
/* 1% of a CPU by default: a probe tick reads a few files, its steps reclaim little. */
#define SIZE_DEFAULT_MAX_CPU 1.0
/* A probe that stopped (the floor, the cgroup's own limit events, a conflict, an error) starts anew after this. */
#define SIZE_RESTART_NS (60 * 1000000000ULL)
/*
 * The CPU a step costs per byte asked, assumed until one has been measured: 1 s a GiB,
 * above what the kernel's reclaim of page cache takes (v1 limit steps: 0.1-0.3 s a GiB).
 */
#define SIZE_NS_PER_BYTE0 1.0

struct reclaimd_args {
	const char *statedir;
	bool foreground, keep;
	const char *size[SIZE_MAX_JOBS];
	size_t n_size;
	uint64_t size_interval_ms;
	const char *size_max_cpu;
};

enum { OPT_STATE_DIR = 0x200, OPT_KEEP, OPT_SIZE, OPT_SIZE_INTERVAL, OPT_SIZE_MAX_CPU };

static const struct argp_option reclaimd_options[] = {
	{"foreground", 'f', NULL, 0, "Run in the foreground (for a service manager); log to stderr", 0},
	{"state-dir", OPT_STATE_DIR, "DIR", 0,
	 "Enabled cgroups and statistics under DIR (default RUNDIR/async-reclaim)", 0},
	{"keep", OPT_KEEP, NULL, 0, "Keep running when no cgroup is enabled", 0},
	{"size", OPT_SIZE, "CGROUP", 0,
	 "Also probe how much memory CGROUP needs, slowly, in the background (memcgctl size "
	 "--watch's probe; repeatable): the answer is kept for show, top, export and record",
	 1},
	{"size-interval", OPT_SIZE_INTERVAL, "DURATION", 0,
	 "One probe step per DURATION and cgroup (default 5s)", 1},
	{"size-max-cpu", OPT_SIZE_MAX_CPU, "PCT", 0,
	 "CPU budget of each --size probe, in percent of one CPU, 0.001 to 100, at most three "
	 "decimals, '%' optional (default 1)", 1},
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
	case OPT_SIZE:
		if (a->n_size == SIZE_MAX_JOBS)
			argp_error(state, "--size: at most %d cgroups", SIZE_MAX_JOBS);
		a->size[a->n_size++] = arg;
		break;
	case OPT_SIZE_INTERVAL:
		a->size_interval_ms = cli_arg_interval(state, arg);
		break;
	case OPT_SIZE_MAX_CPU:
		a->size_max_cpu = arg;
		break;
	case ARGP_KEY_END:
		if ((a->size_interval_ms || a->size_max_cpu) && !a->n_size)
			argp_error(state, "--size-interval and --size-max-cpu need --size");
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
	"enable' starts it when needed; it exits when nothing is enabled (unless --keep or --size) "
	"and on SIGTERM or SIGINT; SIGHUP re-reads the state directory. With --size it also runs "
	"the probe of 'memcgctl size' for CGROUP within its own CPU budget, and keeps the answer "
	"as the cgroup's needed and cold bytes.",
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

/*
 * Start a detached daemon for STATEDIR with this run's global options and the
 * N_EXTRA arguments EXTRA of its own (--size: never the unit's, which has none).
 */
static int reclaimd_spawn(struct cli *cli, const char *statedir, const char *const *extra,
			  size_t n_extra, pid_t *ret_pid)
{
	char rootbuf[4200], procbuf[4200], runbuf[4200], ver[4];
	const char *argv[24 + 2 * SIZE_MAX_JOBS + 4];
	struct mcg_ctx *ctx = cli_ctx(cli);
	int n = 0, status, i, logfd, r;
	size_t k;
	pid_t pid;

	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	if (n_extra > 2 * SIZE_MAX_JOBS + 4)
		return -E2BIG;
	r = n_extra ? 0 : start_unit(cli, statedir, ret_pid);
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
	for (k = 0; k < n_extra; k++)
		argv[n++] = extra[k];
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

int cli_reclaimd_start(struct cli *cli, const char *statedir, pid_t *ret_pid)
{
	return reclaimd_spawn(cli, statedir, NULL, 0, ret_pid);
}

/* ---- --size: the probe of 'memcgctl size --watch' in the daemon's loop ---- */

struct size_job {
	struct mcg_ctx *ctx;
	char *path;  /* the cgroup, relative to the hierarchy root */
	char *ename; /* escaped for the log */
	struct mcg_group *g;
	struct mcg_size_probe *p;
	struct mcg_policy_budget budget;
	uint64_t next_ns;    /* its next tick (or start) */
	double ns_per_byte;  /* CPU per byte asked, measured over its steps */
	uint64_t look_ns;    /* CPU of a tick without a step (its reads) */
	uint64_t min_step;   /* the controller's smallest step (mcg_size_params.step_min_bytes) */
	uint64_t cpu_ns, ticks, deferred;
};

struct sizer {
	struct mcg_ctx *ctx;
	struct size_job jobs[SIZE_MAX_JOBS];
	size_t n;
	uint64_t interval_ns;
	double max_cpu;
	struct reclaimd_side side;
};

static void size_recovered(const struct mcg_recovery *r, void *userdata)
{
	struct size_job *j = userdata;

	/* a killed run's journal, restored under this step's lock before the step */
	mcg_log(j->ctx, r->error ? MCG_LOG_WARNING : MCG_LOG_INFO,
		"size %s: a journal left by a killed run (op %s): %s", j->ename, r->op,
		r->error ? mcg_strerror(r->error) : "restored");
}

static void size_log_answer(struct sizer *s, struct size_job *j, const struct mcg_size_result *res)
{
	mcg_log(s->ctx, MCG_LOG_INFO,
		"size %s: needs %llu bytes (band %llu..%llu over %u adjustments), cold %llu, "
		"stopped: %s, %s, %s; %llu steps, %llu ticks, %llu deferred by the budget, "
		"%.1f ms CPU",
		j->ename, (unsigned long long)res->ans.needed, (unsigned long long)res->ans.band_lo,
		(unsigned long long)res->ans.band_hi, res->ans.band_n,
		(unsigned long long)res->ans.cold, mcg_size_stop_name(res->stop),
		mcg_size_signal_name(res->sig), res->method, (unsigned long long)res->steps,
		(unsigned long long)j->ticks, (unsigned long long)j->deferred, (double)j->cpu_ns / 1e6);
}

/* End J's probe (STOP: why, if it had not stopped itself): what it changed is back already. */
static void size_job_end(struct sizer *s, struct size_job *j, enum mcg_size_stop stop)
{
	struct mcg_size_result res;
	int r;

	if (!j->p)
		return;
	r = mcg_size_probe_end(j->p, stop, &res);
	if (r < 0)
		mcg_log(s->ctx, MCG_LOG_ERR, "size %s: %s", j->ename, mcg_strerror(r));
	else
		size_log_answer(s, j, &res);
	if (r == 0 && res.state_err < 0)
		mcg_log(s->ctx, MCG_LOG_WARNING, "size %s: cannot keep the answer: %s", j->ename,
			mcg_strerror(res.state_err));
	mcg_size_probe_free(j->p);
	j->p = NULL;
}

static int size_job_start(struct sizer *s, struct size_job *j, uint64_t now)
{
	struct mcg_size_opts o = {0};
	int r;

	if (!j->g && (r = mcg_group_open(s->ctx, j->path, &j->g)) < 0)
		return r;
	mcg_size_params_init(&o.p, (uint64_t)mcg_page_size());
	o.p.watch = true; /* follow the workload: the answer is kept each time it settles */
	o.interval_ms = s->interval_ns / 1000000ULL;
	o.recovered = size_recovered;
	o.userdata = j;
	j->min_step = o.p.step_min_bytes;
	r = mcg_size_probe_new(j->g, &o, MCG_SIZE_PROBE_STEP_LOCK, NULL, &j->p);
	if (r < 0)
		return r;
	mcg_policy_budget_init(&j->budget, s->max_cpu, now);
	if (!j->ns_per_byte)
		j->ns_per_byte = SIZE_NS_PER_BYTE0;
	mcg_log(s->ctx, MCG_LOG_INFO, "size %s: probing every %llu ms within %.3f%% of a CPU",
		j->ename, (unsigned long long)(s->interval_ns / 1000000ULL), s->max_cpu);
	return 0;
}

/* One tick of J at NOW, within its budget; sets J->next_ns. */
static void size_job_tick(struct sizer *s, struct size_job *j, uint64_t now)
{
	struct mcg_size_tick tk;
	uint64_t cpu0, cost, max_step;
	int r;

	if (!j->p) {
		r = size_job_start(s, j, now);
		if (r < 0) {
			mcg_log(s->ctx, MCG_LOG_WARNING, "size %s: cannot probe: %s (again in %llu s)",
				j->ename, mcg_strerror(r),
				(unsigned long long)(SIZE_RESTART_NS / 1000000000ULL));
			if (j->g && r == -ENOENT) {
				mcg_group_close(j->g); /* gone: opened anew next time */
				j->g = NULL;
			}
			j->next_ns = now + SIZE_RESTART_NS;
			return;
		}
		j->next_ns = now + s->interval_ns; /* the first tick is a whole interval's */
		return;
	}
	mcg_policy_budget_refill(&j->budget, now);
	if (j->budget.tokens_ns <= 0) {
		/* spent: the tick waits (the controller takes a longer tick as it comes) */
		j->deferred++;
		j->next_ns = now + mcg_policy_budget_wait(&j->budget);
		return;
	}
	/*
	 * A step no larger than what the budget has left pays for, at the CPU a byte
	 * costs, but never below the controller's smallest step: with a bucket smaller
	 * than a tick's reads (a small --size-max-cpu, a slow machine) it would never
	 * step at all. What the tick overspends is owed (the bucket goes negative) and
	 * the next tick waits for it, so the average stays within the budget.
	 */
	max_step = j->budget.tokens_ns > (double)j->look_ns
			   ? (uint64_t)((j->budget.tokens_ns - (double)j->look_ns) / j->ns_per_byte)
			   : 0;
	if (max_step < j->min_step)
		max_step = j->min_step;
	cpu0 = rd_cpu_ns();
	r = mcg_size_probe_tick(j->p, max_step, NULL, &tk);
	cost = rd_cpu_ns() - cpu0;
	mcg_policy_budget_spend(&j->budget, cost);
	j->cpu_ns += cost;
	j->ticks++;
	if (r < 0) {
		mcg_log(s->ctx, MCG_LOG_WARNING, "size %s: %s: probe stopped (again in %llu s)",
			j->ename, mcg_strerror(r), (unsigned long long)(SIZE_RESTART_NS / 1000000000ULL));
		mcg_size_probe_free(j->p); /* this step's lock is gone already: nothing held */
		j->p = NULL;
		if (r == -ENOENT) {
			mcg_group_close(j->g);
			j->g = NULL;
		}
		j->next_ns = now + SIZE_RESTART_NS;
		return;
	}
	if (!tk.asked)
		j->look_ns = j->look_ns ? (j->look_ns + cost) / 2 : cost;
	if (tk.asked) {
		double est = (double)(cost > j->look_ns ? cost - j->look_ns : 0) / (double)tk.asked;

		j->ns_per_byte = (j->ns_per_byte + est) / 2; /* the last steps weigh most */
		if (j->ns_per_byte < 0.001)
			j->ns_per_byte = 0.001;
	}
	if (tk.kept)
		mcg_log(s->ctx, MCG_LOG_DEBUG, "size %s: answer kept", j->ename);
	if (tk.stop != MCG_SIZE_RUNNING) {
		size_job_end(s, j, MCG_SIZE_RUNNING);
		j->next_ns = now + SIZE_RESTART_NS;
		return;
	}
	j->next_ns = now + s->interval_ns;
}

static uint64_t sizer_run(void *userdata, uint64_t now)
{
	struct sizer *s = userdata;
	uint64_t next = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct size_job *j = &s->jobs[i];

		if (j->next_ns <= now)
			size_job_tick(s, j, now);
		if (!next || j->next_ns < next)
			next = j->next_ns;
	}
	return next;
}

/* The daemon stops (a signal): each probe ends as size does when interrupted. */
static void sizer_end(void *userdata)
{
	struct sizer *s = userdata;
	size_t i;

	for (i = 0; i < s->n; i++)
		size_job_end(s, &s->jobs[i], MCG_SIZE_INTERRUPTED);
}

static void sizer_free(struct sizer *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		mcg_size_probe_free(s->jobs[i].p);
		mcg_group_close(s->jobs[i].g);
		free(s->jobs[i].path);
		free(s->jobs[i].ename);
	}
	s->n = 0;
}

/* The cgroups of --size, resolved now (names as every command takes them). */
static int sizer_setup(struct cli *cli, const struct reclaimd_args *a, struct sizer *s)
{
	size_t i;
	int r;

	s->ctx = cli->ctx;
	s->interval_ns = (a->size_interval_ms ? a->size_interval_ms : SIZE_DEFAULT_INTERVAL_MS) *
			 1000000ULL;
	s->max_cpu = SIZE_DEFAULT_MAX_CPU;
	if (a->size_max_cpu &&
	    cli_parse_cpu_percent("--size-max-cpu", a->size_max_cpu, &s->max_cpu) < 0)
		return EXIT_USAGE;
	for (i = 0; i < a->n_size; i++) {
		struct size_job *j = &s->jobs[s->n];
		struct mcg_group *g;

		r = cli_open_size_target(cli, a->size[i], &g);
		if (r)
			return r;
		j->path = strdup(mcg_group_path(g));
		j->ename = mcg_escape_dup(mcg_group_path(g));
		j->ctx = cli->ctx;
		j->g = g;
		s->n++;
		if (!j->path || !j->ename) {
			cli_err("cannot size '%s': %s", out_esc(a->size[i]), strerror(ENOMEM));
			return EXIT_FAILURE;
		}
	}
	s->side.run = sizer_run;
	s->side.end = sizer_end;
	s->side.userdata = s;
	s->side.next_ns = s->n ? rd_now_ns() : 0;
	return 0;
}

static int reclaimd_run(struct cli *cli, int argc, char **argv)
{
	struct reclaimd_args a = {0};
	struct mcg_reclaimd_info info;
	char statedir[4200], ival[32];
	const char *extra[2 * SIZE_MAX_JOBS + 4];
	static struct sizer sz; /* the daemon's whole life */
	size_t n_extra = 0, k;
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
	r = sizer_setup(cli, &a, &sz); /* the cgroups named now, as a command names them */
	if (r) {
		sizer_free(&sz);
		return r;
	}
	if (!a.foreground && sz.n && a.keep) {
		cli_err("--keep needs --foreground");
		sizer_free(&sz);
		return EXIT_USAGE;
	}
	if (!a.foreground && sz.n) {
		/* a daemon of its own: one already running serves without these probes */
		r = mcg_reclaimd_info(statedir, &info);
		if (r == 0 && info.pid > 0) {
			cli_err("reclaimd already runs for %s (pid %d): --size needs a daemon of its "
				"own (stop that one, or use another --state-dir)",
				statedir, (int)info.pid);
			sizer_free(&sz);
			return EXIT_FAILURE;
		}
		for (k = 0; k < sz.n; k++) {
			extra[n_extra++] = "--size";
			extra[n_extra++] = sz.jobs[k].path;
		}
		snprintf(ival, sizeof(ival), "%llums", (unsigned long long)(sz.interval_ns / 1000000ULL));
		extra[n_extra++] = "--size-interval";
		extra[n_extra++] = ival;
		extra[n_extra++] = "--size-max-cpu";
		extra[n_extra++] = a.size_max_cpu ? a.size_max_cpu : "1";
		r = reclaimd_spawn(cli, statedir, extra, n_extra, &pid);
		sizer_free(&sz);
		if (r < 0 && cli_async_untrusted(statedir, r))
			return EXIT_FAILURE;
		if (r < 0) {
			cli_err("cannot start reclaimd for %s: %s", statedir,
				r == -ETIMEDOUT ? "it did not start (see reclaimd.log)"
						: mcg_strerror(r));
			return EXIT_FAILURE;
		}
		printf("reclaimd started (pid %d)\n", (int)pid);
		return 0;
	}
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
			  cli->verbose < 1 ? 1 : cli->verbose, sz.n ? &sz.side : NULL);
	sizer_free(&sz);
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
