/* mcg-race.c: another writer at a random moment of a memcgctl restore (issue 23): runs CMD, writes THEIRS to KNOB a random 0-D us after CMD's compare read of it. */
/*
 * A restore is one read (the compare) and one write of the knob, a few tens of
 * microseconds apart; a shell cannot land a write there, nor say that it did. This
 * helper watches KNOB with fanotify for reads and writes (FAN_ACCESS | FAN_MODIFY,
 * each with the pid that made it), starts CMD, and takes as the trigger the read of
 * KNOB by CMD that the mode names:
 *
 *   (default)     CMD's first read (recover: its restore's compare)
 *   -s MS         after CMD's first write of KNOB (its first step is in the kernel),
 *                 a random 0-MS ms, then SIGINT to CMD; the trigger is CMD's next read
 *                 (the rollback's compare)
 *   -u FILE:MAX   CMD's first read once FILE (its usage) read at most MAX (empty's
 *                 last step is done: the read is its restore's compare)
 *
 * then sleeps a random 0-D us (-d, 100) and writes THEIRS once (-n: not at all, to
 * measure). fanotify queues events in the order of the writes' reports, so the order
 * of CMD's next write event and this helper's own says which write the kernel had
 * last: "theirs-first" (ours was in, then CMD's write replaced it: CMD must report it),
 * "ours-last" (CMD's write, if any, came before ours: ours must stand). The helper
 * runs at nice -20 and waits in poll(), so that it wakes within microseconds of CMD's
 * read.
 *
 * Report (-o FILE, one line of KEY=VALUE): trigger (1: seen), late (1: the trigger
 * event had CMD's write merged into it: seen only after its write), delay_us,
 * window_us (CMD's read to CMD's next write event, the restore's read-to-write gap as
 * seen here), write_us (this helper's write(2)), order, status (CMD's exit status,
 * 128+N for a signal). Exit: 0, or 2 on a usage or setup error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPIN_AFTER_SIGNAL_NS 50000000u /* 50 ms */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: mcg-race [-o REPORT] [-d MAX_US] [-s MAX_MS | -u FILE:MAX] [-n] "
			"KNOB THEIRS -- CMD [ARGS...]\n");
	exit(2);
}

static uint64_t rnd(uint64_t n)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		v = now_ns();
	if (fd >= 0)
		close(fd);
	return n ? v % (n + 1) : 0;
}

static int read_u64(const char *file, uint64_t *ret)
{
	char buf[64];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*ret = strtoull(buf, NULL, 10);
	return 0;
}

/* One pass over what is queued: calls EV for each event, stops early when it returns 1. */
struct ev {
	pid_t pid;
	uint64_t mask;
};

static int drain(int fd, struct ev *out, int max)
{
	char buf[8192];
	struct fanotify_event_metadata m;
	ssize_t n = read(fd, buf, sizeof(buf));
	int k = 0;
	size_t o;

	if (n <= 0)
		return 0;
	for (o = 0; o + sizeof(m) <= (size_t)n; o += m.event_len) {
		memcpy(&m, buf + o, sizeof(m));
		if (m.event_len < sizeof(m))
			break;
		if (m.fd >= 0)
			close(m.fd);
		if (k < max) {
			out[k].pid = m.pid;
			out[k].mask = m.mask;
			k++;
		}
	}
	return k;
}

/*
 * After our write, the queue's order of write events: CMD's before ours, or none of
 * CMD's after ours, leaves ours last ("ours-last"); one of CMD's after ours replaced
 * it ("theirs-first": CMD must report it).
 */
static void classify(const struct ev *e, pid_t child, bool wrote, bool *mine, const char **order)
{
	if (!wrote || !(e->mask & FAN_MODIFY) || !strcmp(*order, "theirs-first"))
		return;
	if (e->pid == getpid()) {
		*mine = true;
		if (!strcmp(*order, "none"))
			*order = "ours-last";
	} else if (e->pid == child && *mine) {
		*order = "theirs-first";
	} else if (e->pid == child && !strcmp(*order, "none")) {
		*order = "ours-last";
		*mine = false;
	}
}

int main(int argc, char **argv)
{
	const char *report = NULL, *ufile = NULL, *knob, *theirs;
	uint64_t max_us = 100, sig_ms = 0, umax = 0, t_start, t_trig = 0, t_cmod = 0, delay = 0,
		 w0 = 0, w1 = 0, spin_until = 0;
	bool sig = false, nowrite = false, trig = false, late = false, wrote = false,
	     sent = false, first_mod = false, mine = false, below = false;
	const char *order = "none";
	int opt, fan = -1, kfd, st = 0, status;
	struct ev evs[512];
	pid_t child;
	FILE *rf;

	while ((opt = getopt(argc, argv, "+o:d:s:u:n")) != -1) {
		switch (opt) {
		case 'o':
			report = optarg;
			break;
		case 'd':
			max_us = strtoull(optarg, NULL, 10);
			break;
		case 's':
			sig = true;
			sig_ms = strtoull(optarg, NULL, 10);
			break;
		case 'u': {
			char *c = strrchr(optarg, ':');

			if (!c)
				usage();
			*c = '\0';
			ufile = optarg;
			umax = strtoull(c + 1, NULL, 10);
			break;
		}
		case 'n':
			nowrite = true;
			break;

		default:
			usage();
		}
	}
	if (argc - optind < 4 || strcmp(argv[optind + 2], "--"))
		usage();
	knob = argv[optind];
	theirs = argv[optind + 1];
	argv += optind + 3;
	kfd = open(knob, O_RDWR | O_CLOEXEC);
	if (kfd < 0) {
		fprintf(stderr, "mcg-race: %s: %s\n", knob, strerror(errno));
		return 2;
	}
	/* file handles where kernfs has them (no descriptor per event), else plain */
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_FID, O_RDONLY);
	if (fan < 0 || fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, kfd, NULL) < 0) {
		if (fan >= 0)
			close(fan);
		fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
		if (fan < 0 || fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, kfd, NULL) < 0) {
			fprintf(stderr, "mcg-race: fanotify on %s: %s\n", knob, strerror(errno));
			return 2;
		}
	}
	t_start = now_ns();
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "mcg-race: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/*
	 * The spin must be on a CPU when CMD reads: on a busy host (load 13 on 2 CPUs) a
	 * nice-0 spinner saw most reads only after CMD's write. CMD keeps the nice it had.
	 */
	(void)setpriority(PRIO_PROCESS, 0, -20);
	(void)prctl(PR_SET_TIMERSLACK, 1UL); /* a 0-100 us sleep, not 50 us more */
	for (;;) {
		int n, i;
		pid_t w;
		uint64_t u;

		/*
		 * -u: usage at most MAX seen, then what was queued until then dropped (the
		 * last step's read, merged with its write): the next read is CMD's. A
		 * spinner here slowed empty tenfold and still came late: the woken helper
		 * reads usage at each of CMD's events.
		 */
		if (ufile && !below && read_u64(ufile, &u) == 0 && u <= umax) {
			below = true;
			while (drain(fan, evs, 512) > 0)
				;
		}
		n = drain(fan, evs, 512);
		w = waitpid(child, &st, WNOHANG);

		/*
		 * Wait in poll: a spinner at nice -20 slowed CMD tenfold on a busy host (2
		 * CPUs, load 8: recover took 1 s, not 50 ms), and a woken one saw CMD's
		 * read 40 us before its write, as a spinner did on a quiet one.
		 */
		if (n == 0 && w != child && !(sig && !sent && first_mod) && now_ns() >= spin_until) {
			struct pollfd pfd = {fan, POLLIN, 0};

			poll(&pfd, 1, 5);
			continue;
		}

		for (i = 0; i < n; i++) {
			if (evs[i].pid == child && (evs[i].mask & FAN_MODIFY))
				first_mod = true;
			if (!trig && evs[i].pid == child && (evs[i].mask & FAN_ACCESS)) {
				if (sig && !sent)
					continue;
				if (ufile && !below)
					continue;
				trig = true;
				t_trig = now_ns();
				late = evs[i].mask & FAN_MODIFY;
				if (late)
					t_cmod = t_trig;
				continue;
			}
			classify(&evs[i], child, wrote, &mine, &order);
			if (trig && !t_cmod && evs[i].pid == child && (evs[i].mask & FAN_MODIFY))
				t_cmod = now_ns();
		}
		if (w == child)
			break;
		if (sig && !sent && first_mod) {
			uint64_t us = rnd(sig_ms * 1000);
			struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};

			nanosleep(&ts, NULL);
			kill(child, SIGINT);
			sent = true;
			/* the steps' reads and writes meanwhile, merged into one event: not the trigger */
			while (drain(fan, evs, 512) > 0)
				;
			/*
			 * CMD rolls back within milliseconds of the signal: spin meanwhile (a
			 * poll()ing helper was woken only after CMD's read and write, 6 of 8).
			 */
			spin_until = now_ns() + SPIN_AFTER_SIGNAL_NS;
		}
		if (trig && !wrote) {
			uint64_t until;

			/*
			 * Sleep, not spin: CMD goes on meanwhile (this helper, woken at nice
			 * -20, may have taken its CPU), so the write lands before, inside or
			 * after its restore's read-to-write gap.
			 */
			delay = rnd(max_us);
			until = t_trig + delay * 1000;
			if (delay) {
				struct timespec ts = {(time_t)(until / 1000000000u),
						      (long)(until % 1000000000u)};

				while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
					;
			}
			if (!nowrite) {
				w0 = now_ns();
				if (pwrite(kfd, theirs, strlen(theirs), 0) < 0)
					fprintf(stderr, "mcg-race: write %s to %s: %s\n", theirs, knob,
						strerror(errno));
				w1 = now_ns();
			}
			wrote = true;
			if (nowrite)
				order = "no-write";
		}
	}
	/* what is still queued: CMD's last write or ours */
	for (;;) {
		int n = drain(fan, evs, 512), i;

		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			classify(&evs[i], child, wrote, &mine, &order);
			if (trig && !t_cmod && evs[i].pid == child && (evs[i].mask & FAN_MODIFY))
				t_cmod = now_ns();
		}
	}
	if (!wrote && !nowrite) {
		/* CMD ended first (without the read, or at once after it): write anyway, after it */
		if (pwrite(kfd, theirs, strlen(theirs), 0) < 0)
			fprintf(stderr, "mcg-race: write %s to %s: %s\n", theirs, knob, strerror(errno));
	}
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	rf = report ? fopen(report, "w") : stdout;
	if (!rf)
		return 2;
	fprintf(rf,
		"trigger=%d late=%d delay_us=%llu window_us=%.1f write_us=%.1f order=%s status=%d "
		"elapsed_ms=%.1f\n",
		trig, late, (unsigned long long)delay,
		trig && t_cmod >= t_trig ? (double)(t_cmod - t_trig) / 1e3 : -1.0,
		w1 > w0 ? (double)(w1 - w0) / 1e3 : -1.0, order, status,
		(double)(now_ns() - t_start) / 1e6);
	if (rf != stdout)
		fclose(rf);
	return 0;
}
