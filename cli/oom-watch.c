/* oom-watch.c: the OOM catcher as the recorder and 'oom --watch' run it (lib/model/oomwatch.c does the catching). */
#include "memcgctl.h"
#include "oom-watch.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

extern char **environ;

struct cli_oom_watch {
	struct mcg_oom_watch *w;
	struct cli_oom_hooks *hooks; /* --exec: run for each warning and kill; NULL none */
	struct mcg_oom_autopsy au;
	/* one batch of events and the text they point into */
	struct mcg_hist_event *ev;
	char **text;
	size_t nev, cap;
	bool warned;
	int dirfd; /* the store, for oom-last; -1 none */
	int lastfd; /* oom-last as written last (overwritten in place); -1 none */
	uint64_t last_seq;
	char boot[40];
};

#define LAST_FILE "oom-last"
#define LAST_MAGIC "memcgctl-oom-last 1 "
/* "memcgctl-oom-last 1 BOOT_ID SEQ\n": 20 + 36 + 1 + 20 + 1 */
#define LAST_MAX 96

/* an autopsy's event text: a few hundred bytes of fields and every counter of the record */
#define EVENT_TEXT (16u << 10)

/* ---- --exec: a program run for each event, never waited for by the watcher ---- */

#define HOOK_MAX CLI_OOM_HOOK_MAX
#define HOOK_TIMEOUT_NS (10ULL * 1000000000ULL) /* then its process group is killed */
#define HOOK_ENV 12

struct hook {
	pid_t pid;
	int pidfd; /* readable once it exited; -1: reaped by the tick */
	uint64_t deadline;
	bool killed;
};

struct cli_oom_hooks {
	const char *prog;
	struct hook h[HOOK_MAX];
	size_t n;
	unsigned skipped;
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void hook_done(struct cli_oom_hooks *hs, size_t i, int status)
{
	struct hook *h = &hs->h[i];

	if (h->killed)
		cli_warn("--exec '%s' (pid %d) ran past 10 s: killed", out_esc(hs->prog), (int)h->pid);
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		cli_warn("--exec '%s' (pid %d) exited with status %d", out_esc(hs->prog), (int)h->pid,
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cli_warn("--exec '%s' (pid %d) killed by signal %d", out_esc(hs->prog), (int)h->pid,
			 WTERMSIG(status));
	if (h->pidfd >= 0)
		close(h->pidfd);
	hs->h[i] = hs->h[--hs->n];
}

/* Reap what exited, kill what is past its deadline (never blocks). */
void cli_oom_hooks_reap(struct cli_oom_hooks *hs)
{
	uint64_t now = mono_now();
	size_t i = 0;

	if (!hs)
		return;
	while (i < hs->n) {
		struct hook *h = &hs->h[i];
		int status;
		pid_t r = waitpid(h->pid, &status, WNOHANG);

		if (r == h->pid || (r < 0 && errno == ECHILD)) {
			hook_done(hs, i, r == h->pid ? status : 0);
			continue;
		}
		if (!h->killed && now >= h->deadline) {
			kill(-h->pid, SIGKILL); /* its own process group: what it started too */
			kill(h->pid, SIGKILL);
			h->killed = true;
		}
		i++;
	}
}

/* ms until the next hook deadline (or 100 ms to reap one without a pidfd); -1 none */
int cli_oom_hooks_timeout(const struct cli_oom_hooks *hs)
{
	uint64_t now = mono_now();
	int ms = -1;
	size_t i;

	if (!hs)
		return -1;
	for (i = 0; i < hs->n; i++) {
		int m = hs->h[i].killed || hs->h[i].pidfd < 0 ? 100
			: hs->h[i].deadline <= now ? 0
						   : (int)((hs->h[i].deadline - now) / 1000000 + 1);

		if (ms < 0 || m < ms)
			ms = m;
	}
	return ms;
}

/* KEY=VALUE into the environment being built (VALUE escaped as every printed name is) */
static void env_add(char **env, size_t *n, const char *key, const char *value)
{
	char *esc = mcg_escape_dup(value ? value : "");

	if (*n < HOOK_ENV && esc && asprintf(&env[*n], "%s=%s", key, esc) >= 0)
		(*n)++;
	free(esc);
}

static void env_u64(char **env, size_t *n, const char *key, uint64_t v)
{
	if (*n < HOOK_ENV && asprintf(&env[*n], "%s=%llu", key, (unsigned long long)v) >= 0)
		(*n)++;
}

/* Start PROG for one event; the watcher goes on at once. */
void cli_oom_hooks_run(struct cli_oom_hooks *hs, const struct mcg_oom_autopsy *au,
		       const struct mcg_oom_warning *wn)
{
	char *mine[HOOK_ENV] = {0}, **env, *argv[2];
	size_t n = 0, ne = 0, i;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	struct hook *h;
	pid_t pid;
	int r;

	if (!hs)
		return;
	cli_oom_hooks_reap(hs);
	if (hs->n >= HOOK_MAX) {
		if (!hs->skipped++)
			cli_warn("--exec '%s': %d still running, not started for this event (and "
				 "others while they run)",
				 out_esc(hs->prog), HOOK_MAX);
		return;
	}
	if (wn) {
		env_add(mine, &n, "MEMCGCTL_EVENT", "oom_warning");
		env_add(mine, &n, "MEMCGCTL_CGROUP", wn->cgroup);
		env_add(mine, &n, "MEMCGCTL_UNIT", wn->unit);
		env_u64(mine, &n, "MEMCGCTL_USAGE_BYTES", wn->usage);
		env_u64(mine, &n, "MEMCGCTL_LIMIT_BYTES", wn->limit);
		env_u64(mine, &n, "MEMCGCTL_RECLAIMABLE_BYTES", wn->reclaimable);
		env_add(mine, &n, "MEMCGCTL_EXPLANATION", wn->why);
	} else {
		env_add(mine, &n, "MEMCGCTL_EVENT", "oom_kill");
		env_add(mine, &n, "MEMCGCTL_CGROUP", au->oom_cgroup[0] ? au->oom_cgroup : au->victim_cgroup);
		env_add(mine, &n, "MEMCGCTL_VICTIM_CGROUP", au->victim_cgroup);
		env_add(mine, &n, "MEMCGCTL_UNIT", au->unit);
		env_u64(mine, &n, "MEMCGCTL_PID", au->pid > 0 ? (uint64_t)au->pid : 0);
		env_add(mine, &n, "MEMCGCTL_COMM", au->comm);
		if (au->limit != MCG_MAX)
			env_u64(mine, &n, "MEMCGCTL_LIMIT_BYTES", au->limit);
		env_u64(mine, &n, "MEMCGCTL_USAGE_BYTES", au->usage);
		env_add(mine, &n, "MEMCGCTL_EXPLANATION", au->why);
	}
	for (i = 0; environ && environ[i]; i++)
		;
	env = calloc(i + n + 1, sizeof(*env));
	if (!env)
		goto out;
	/* ours first, then the inherited ones not named MEMCGCTL_ (never a stale one) */
	for (i = 0; i < n; i++)
		env[ne++] = mine[i];
	for (i = 0; environ && environ[i]; i++)
		if (strncmp(environ[i], "MEMCGCTL_", 9))
			env[ne++] = environ[i];
	env[ne] = NULL;
	argv[0] = (char *)hs->prog;
	argv[1] = NULL;
	posix_spawn_file_actions_init(&fa);
	/* no terminal input; its output to our stderr, never into the events printed */
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	r = posix_spawn(&pid, hs->prog, &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	if (r) {
		cli_warn("cannot run --exec '%s': %s", out_esc(hs->prog), strerror(r));
		goto out;
	}
	h = &hs->h[hs->n++];
	h->pid = pid;
	h->killed = false;
	h->deadline = mono_now() + HOOK_TIMEOUT_NS;
	h->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	hs->skipped = 0;
out:
	for (i = 0; i < n; i++)
		free(mine[i]);
}

/* At the end: the hooks still running get until their deadline, then are killed. */
void cli_oom_hooks_finish(struct cli_oom_hooks *hs)
{
	if (!hs)
		return;
	while (hs->n) {
		int ms = cli_oom_hooks_timeout(hs);

		poll(NULL, 0, ms < 0 || ms > 100 ? 100 : ms);
		cli_oom_hooks_reap(hs);
	}
	free(hs);
}

struct cli_oom_hooks *cli_oom_hooks_new(const char *prog)
{
	struct cli_oom_hooks *hs = calloc(1, sizeof(*hs));

	if (!hs) {
		cli_err("cannot run --exec '%s': %s", out_esc(prog), mcg_strerror(-ENOMEM));
		return NULL;
	}
	hs->prog = prog;
	return hs;
}

size_t cli_oom_hooks_fds(const struct cli_oom_hooks *hs, struct pollfd *p, size_t max)
{
	size_t i, n = 0;

	for (i = 0; hs && i < hs->n && n < max; i++)
		if (hs->h[i].pidfd >= 0)
			p[n++] = (struct pollfd){.fd = hs->h[i].pidfd, .events = POLLIN};
	return n;
}

void cli_oom_watch_set_hooks(struct cli_oom_watch *c, struct cli_oom_hooks *hs)
{
	if (c)
		c->hooks = hs;
}

int cli_oom_watch_start(struct mcg_ctx *ctx, const char *cgroup, bool warn,
			struct cli_oom_watch **ret)
{
	struct cli_oom_watch *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		cli_err("cannot watch for OOM kills: %s", mcg_strerror(-ENOMEM));
		return -ENOMEM;
	}
	c->dirfd = c->lastfd = -1;
	r = mcg_oom_watch_new(ctx, cgroup, 0, &c->w);
	if (r < 0) {
		if (warn)
			cli_warn("cannot watch for OOM kills%s%s%s: %s (they are counted, not "
				 "explained)",
				 cgroup ? " in '" : "", cgroup ? out_esc(cgroup) : "", cgroup ? "'" : "",
				 mcg_strerror(r));
		else
			cli_err("cannot watch for OOM kills%s%s%s: %s", cgroup ? " in '" : "",
				cgroup ? out_esc(cgroup) : "", cgroup ? "'" : "", mcg_strerror(r));
		free(c);
		return r;
	}
	*ret = c;
	return 0;
}

static void batch_free(struct cli_oom_watch *c)
{
	size_t i;

	for (i = 0; i < c->nev; i++)
		free(c->text[i]);
	c->nev = 0;
}

void cli_oom_watch_stop(struct cli_oom_watch *c)
{
	if (!c)
		return;
	batch_free(c);
	free(c->ev);
	free(c->text);
	if (c->lastfd >= 0)
		close(c->lastfd);
	mcg_oom_watch_free(c->w);
	free(c);
}

int cli_oom_watch_fd(const struct cli_oom_watch *c)
{
	return mcg_oom_watch_fd(c->w);
}

int cli_oom_watch_run(struct cli_oom_watch *c)
{
	int r = mcg_oom_watch_process(c->w);

	if (r < 0 && !c->warned) {
		cli_warn("cannot read the kernel log for OOM kills: %s", mcg_strerror(r));
		c->warned = true;
	}
	return r;
}

void cli_oom_watch_feed(struct cli_oom_watch *c, const struct mcg_snapshot *snap)
{
	if (c)
		mcg_oom_watch_feed(c->w, snap);
}

int cli_oom_watch_next(struct cli_oom_watch *c, struct mcg_oom_autopsy *ret)
{
	return mcg_oom_watch_next(c->w, ret);
}

int cli_oom_watch_next_warning(struct cli_oom_watch *c, struct mcg_oom_warning *ret)
{
	return mcg_oom_watch_next_warning(c->w, ret);
}

size_t cli_oom_watch_unregistered(const struct cli_oom_watch *c)
{
	struct mcg_oom_watch_stats st;

	if (!c)
		return 0;
	mcg_oom_watch_stats(c->w, &st);
	return st.unregistered;
}

int cli_oom_watch_timeout(const struct cli_oom_watch *c)
{
	return mcg_oom_watch_timeout(c->w);
}

/* One slot more in the batch; its text (EVENT_TEXT bytes), NULL without memory. */
static char *batch_slot(struct cli_oom_watch *c)
{
	size_t cap = c->cap;

	if (mcg_grow(&c->ev, &cap, c->nev, sizeof(*c->ev), 8) < 0 ||
	    mcg_grow(&c->text, &c->cap, c->nev, sizeof(*c->text), 8) < 0)
		return NULL;
	return malloc(EVENT_TEXT);
}

/*
 * The waiting early warnings and autopsies as one batch of events, the
 * warnings first (a warning comes before the kill it foretold); *KILLS: how
 * many autopsies.
 */
static int batch(struct cli_oom_watch *c, size_t *kills)
{
	struct mcg_oom_warning wn;

	batch_free(c);
	*kills = 0;
	while (mcg_oom_watch_next_warning(c->w, &wn) == 0) {
		char *t = batch_slot(c);

		if (!t)
			return -ENOMEM;
		cli_oom_hooks_run(c->hooks, NULL, &wn);
		if (mcg_oom_warning_to_event(&wn, &c->ev[c->nev], t, EVENT_TEXT) < 0) {
			free(t);
			continue;
		}
		c->text[c->nev++] = t;
	}
	while (mcg_oom_watch_next(c->w, &c->au) == 0) {
		char *t = batch_slot(c);

		if (!t)
			return -ENOMEM;
		if (c->au.kmsg_seq > c->last_seq)
			c->last_seq = c->au.kmsg_seq;
		cli_oom_hooks_run(c->hooks, &c->au, NULL);
		if (mcg_oom_autopsy_to_event(&c->au, &c->ev[c->nev], t, EVENT_TEXT) < 0) {
			free(t);
			continue;
		}
		c->text[c->nev++] = t;
		(*kills)++;
	}
	return 0;
}

/* SEQ from an oom-last file memcgctl wrote for boot BOOT; false for anything else. */
static bool last_parse(const char *t, size_t n, const char *boot, uint64_t *seq)
{
	size_t ml = strlen(LAST_MAGIC), i;
	uint64_t v = 0;

	if (n < ml + 36 + 3 || n > LAST_MAX || memcmp(t, LAST_MAGIC, ml) ||
	    memcmp(t + ml, boot, 36) || t[ml + 36] != ' ' || t[n - 1] != '\n')
		return false;
	for (i = ml + 37; i < n - 1; i++) {
		if (t[i] < '0' || t[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(t[i] - '0');
	}
	if (i == ml + 37)
		return false;
	*seq = v;
	return true;
}

void cli_oom_watch_resume(struct cli_oom_watch *c, int dirfd)
{
	char *t = NULL;
	size_t n = 0;
	uint64_t seq;
	int fd;

	if (!c || mcg_oom_boot_id(c->boot, sizeof(c->boot)) < 0)
		return;
	c->dirfd = dirfd;
	fd = mcg_openat_file(dirfd, LAST_FILE, O_RDONLY, 0);
	if (fd < 0)
		return; /* a first run: from now on */
	close(fd);
	if (mcg_read_file_at(dirfd, LAST_FILE, &t, &n) == 0 && last_parse(t, n, c->boot, &seq)) {
		int r = mcg_oom_watch_resume(c->w, seq);

		if (r < 0)
			cli_warn("cannot read the kernel log again from kill %llu: %s",
				 (unsigned long long)seq, mcg_strerror(r));
		c->last_seq = seq;
	} else if (t) {
		/* another boot's, or not ours: this run starts from now */
	}
	free(t);
}

/*
 * The seq is written 20 digits wide, so the file keeps its length: after the
 * first (atomic) write it is overwritten in place. A rename over it for each
 * kill made ext4 (auto_da_alloc) start the new file's writeback in the
 * rename, and on this shared host the recorder stalled in it for up to 0.9 s
 * in a burst, the kills meanwhile lost (bench/README.md's OOM section).
 */
static void last_save(struct cli_oom_watch *c)
{
	char line[LAST_MAX];
	int n;

	if (c->dirfd < 0 || !c->boot[0])
		return;
	n = snprintf(line, sizeof(line), LAST_MAGIC "%s %020llu\n", c->boot,
		     (unsigned long long)c->last_seq);
	if (n <= 0 || n >= (int)sizeof(line))
		return;
	if (c->lastfd >= 0 && pwrite(c->lastfd, line, (size_t)n, 0) == n)
		return;
	if (c->lastfd >= 0)
		close(c->lastfd);
	c->lastfd = -1;
	if (mcg_write_atomic_at(c->dirfd, LAST_FILE, line, (size_t)n, 0644) < 0) {
		if (!c->warned) {
			cli_warn("cannot note the last OOM kill stored (a restart may tell it again)");
			c->warned = true;
		}
		return;
	}
	/* the file just written, for the next kill's seq (none: the next is atomic again) */
	n = mcg_openat_file(c->dirfd, LAST_FILE, O_WRONLY | O_CLOEXEC, 0);
	if (n >= 0)
		c->lastfd = n;
}

static int ms_until(const struct timespec *until)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(until->tv_sec - now.tv_sec) * 1000 + (until->tv_nsec - now.tv_nsec) / 1000000;
	/* the last part of a millisecond: poll's resolution, rounded up */
	if (ms <= 0 && (until->tv_sec > now.tv_sec ||
			(until->tv_sec == now.tv_sec && until->tv_nsec > now.tv_nsec)))
		ms = 1;
	return ms < 0 ? 0 : ms > 3600000 ? 3600000 : (int)ms;
}

void cli_oom_watch_sleep(struct cli_oom_watch *c, const struct timespec *until,
			 cli_oom_store_fn store, void *userdata)
{
	if (!c) {
		while (!cli_interrupted &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, until, NULL) == EINTR)
			;
		return;
	}
	while (!cli_interrupted) {
		struct pollfd p[1 + CLI_OOM_HOOK_MAX] = {{.fd = mcg_oom_watch_fd(c->w), .events = POLLIN}};
		int ms = ms_until(until), tick = mcg_oom_watch_timeout(c->w), r;
		int hm = cli_oom_hooks_timeout(c->hooks);
		nfds_t np = 1 + cli_oom_hooks_fds(c->hooks, p + 1, CLI_OOM_HOOK_MAX);
		size_t kills;

		if (!ms)
			return;
		/* a cgroup at its limit is read again when due (the early warning) */
		if (tick >= 0 && tick < ms)
			ms = tick;
		/* a hook that exited is reaped, one past its deadline killed */
		if (hm >= 0 && hm < ms)
			ms = hm;
		r = poll(p, np, ms);
		if (r < 0 && errno == EINTR)
			continue;
		cli_oom_hooks_reap(c->hooks);
		if (r < 0 || (r == 0 && tick < 0) || (r > 0 && !p[0].revents))
			continue;
		/* the early warnings and the kills, each an event in the store */
		if (cli_oom_watch_run(c) >= 0 && batch(c, &kills) == 0 && c->nev &&
		    store(userdata, c->ev, c->nev) == 0 && kills)
			last_save(c);
	}
}
