/* oom-watch.c: the OOM catcher as the recorder and 'oom --watch' run it (lib/model/oomwatch.c does the catching). */
#include "memcgctl.h"
#include "oom-watch.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

struct cli_oom_watch {
	struct mcg_oom_watch *w;
	struct mcg_oom_autopsy au;
	/* one batch of events and the text they point into */
	struct mcg_hist_event *ev;
	char **text;
	size_t nev, cap;
	bool warned;
	int dirfd; /* the store, for oom-last; -1 none */
	uint64_t last_seq;
	char boot[40];
};

#define LAST_FILE "oom-last"
#define LAST_MAGIC "memcgctl-oom-last 1 "
/* "memcgctl-oom-last 1 BOOT_ID SEQ\n": 20 + 36 + 1 + 20 + 1 */
#define LAST_MAX 96

/* an autopsy's event text: a few hundred bytes of fields and every counter of the record */
#define EVENT_TEXT (16u << 10)

int cli_oom_watch_start(struct mcg_ctx *ctx, const char *cgroup, bool warn,
			struct cli_oom_watch **ret)
{
	struct cli_oom_watch *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		cli_err("cannot watch for OOM kills: %s", mcg_strerror(-ENOMEM));
		return -ENOMEM;
	}
	c->dirfd = -1;
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

static void last_save(struct cli_oom_watch *c)
{
	char line[LAST_MAX];
	int n;

	if (c->dirfd < 0 || !c->boot[0])
		return;
	n = snprintf(line, sizeof(line), LAST_MAGIC "%s %llu\n", c->boot,
		     (unsigned long long)c->last_seq);
	if (n > 0 && n < (int)sizeof(line) &&
	    mcg_write_atomic_at(c->dirfd, LAST_FILE, line, (size_t)n, 0644) < 0 && !c->warned) {
		cli_warn("cannot note the last OOM kill stored (a restart may tell it again)");
		c->warned = true;
	}
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
		struct pollfd p = {.fd = mcg_oom_watch_fd(c->w), .events = POLLIN};
		int ms = ms_until(until), tick = mcg_oom_watch_timeout(c->w), r;
		size_t kills;

		if (!ms)
			return;
		/* a cgroup at its limit is read again when due (the early warning) */
		if (tick >= 0 && tick < ms)
			ms = tick;
		r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == 0 && tick < 0))
			continue;
		/* the early warnings and the kills, each an event in the store */
		if (cli_oom_watch_run(c) >= 0 && batch(c, &kills) == 0 && c->nev &&
		    store(userdata, c->ev, c->nev) == 0 && kills)
			last_save(c);
	}
}
