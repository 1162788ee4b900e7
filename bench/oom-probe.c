/* oom-probe.c: for bench/oom.sh: the recorder's OOM path (watcher, autopsy, event, a frame written) timed per kill.
 *
 *   oom-probe STORE CGROUP   until SIGTERM: one line per kill,
 *     "pid PID comm COMM cgroup VICTIM breakdown BD age_us AGE caught_us C stored_us S
 *      woken_us W"
 *   where C and S are the microseconds from the kill (the kernel's timestamp) to the autopsy
 *   caught and to its frame written in STORE (a store of its own: one event frame per kill),
 *   W to the wakeup (poll returned) whose mcg_oom_watch_process caught it.
 *   At exit: "idle_cpu_ms MS wakeups N reads N cgroups N" for the whole run.
 *
 *   oom-probe --clock   CLOCK_MONOTONIC - the kernel log's clock, in microseconds, from a
 *     line written to /dev/kmsg and read back (the two clocks differ by an offset that moves).
 *
 *   oom-probe --frames STORE   the autopsies a recorder stored in STORE, one line each:
 *     "pid PID frame_us F frame_mono_us M" F the microseconds from the kill (as the
 *     autopsy tells its time) to the time of the frame that holds it (the recorder takes it
 *     when it starts storing the batch), M that frame's time on CLOCK_MONOTONIC.
 *   The kill lines also carry woken/caught/stored as CLOCK_MONOTONIC microseconds
 *   (woken_mono_us ...), for bench/oom.sh to time against the kernel's own stamp.
 */
#include <memcg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void);
static uint64_t mono_ns(void);

static int frames(const char *dir)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	uint64_t boot = now_ns() - mono_ns();
	int e;

	if (mcg_hist_reader_open(dir, NULL, NULL, &r) < 0)
		return 1;
	for (e = mcg_hist_seek(r, 0, &f); e == 0; e = mcg_hist_next_event(r, &f)) {
		size_t i;

		for (i = 0; i < f->nev; i++)
			if (f->ev[i].type == MCG_HEV_OOM_AUTOPSY)
				printf("pid %lld frame_us %lld frame_mono_us %lld\n",
				       (long long)f->ev[i].pid,
				       ((long long)f->time_ns - (long long)f->ev[i].time_ns) / 1000,
				       ((long long)f->time_ns - (long long)boot) / 1000);
		mcg_hist_frame_free(f);
	}
	mcg_hist_reader_free(r);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int clock_check(void)
{
	static const char line[] = "memcgctl bench/oom: clock check\n";
	char buf[8192];
	unsigned long long seq, usec;
	uint64_t t;
	int fd = open("/dev/kmsg", O_RDWR | O_CLOEXEC), prio;

	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0)
		return 1;
	t = mono_ns();
	if (write(fd, line, sizeof(line) - 1) < 0)
		return 1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n <= 0)
			return 1;
		buf[n] = '\0';
		if (strstr(buf, "bench/oom: clock check") &&
		    sscanf(buf, "%d,%llu,%llu", &prio, &seq, &usec) == 3)
			break;
	}
	close(fd);
	printf("%lld\n", ((long long)t - (long long)usec * 1000) / 1000);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static struct mcg_oom_autopsy a;
	static char text[1 << 16];
	struct mcg_hist_opts o = {0};
	struct mcg_hist_writer *hw;
	struct mcg_oom_watch *w;
	struct mcg_oom_watch_stats st;
	struct mcg_ctx *ctx;
	struct sigaction sa = {0};
	struct rusage ru;

	if (argc == 2 && !strcmp(argv[1], "--clock"))
		return clock_check();
	if (argc == 3 && !strcmp(argv[1], "--frames"))
		return frames(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: oom-probe STORE CGROUP\n");
		return 2;
	}
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (mcg_ctx_new(NULL, NULL, &ctx) < 0)
		return 1;
	o.dir = argv[1];
	if (mcg_hist_writer_open(&o, mcg_ctx_version(ctx), mcg_ctx_root(ctx), &hw) < 0 ||
	    mcg_oom_watch_new(ctx, argv[2], 0, &w) < 0) {
		fprintf(stderr, "oom-probe: cannot start\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		struct pollfd p = {.fd = mcg_oom_watch_fd(w), .events = POLLIN};
		int tick = mcg_oom_watch_timeout(w);
		uint64_t woken, woken_mono;

		/* as the recorder sleeps: a cgroup at its limit is read again when due */
		if (poll(&p, 1, tick) < 0)
			continue;
		woken = now_ns();
		woken_mono = mono_ns();
		if (mcg_oom_watch_process(w) < 0)
			break;
		while (mcg_oom_watch_next(w, &a) == 0) {
			struct mcg_hist_event ev;
			uint64_t caught = now_ns(), stored, caught_mono = mono_ns(), stored_mono;

			if (mcg_oom_autopsy_to_event(&a, &ev, text, sizeof(text)) < 0 ||
			    mcg_hist_write(hw, caught, NULL, 0, &ev, 1) < 0)
				return 1;
			stored = now_ns();
			stored_mono = mono_ns();
			printf("pid %lld comm %s cgroup %s breakdown %s age_us %llu caught_us %lld "
			       "stored_us %lld woken_us %lld woken_mono_us %lld caught_mono_us %lld "
			       "stored_mono_us %lld\n",
			       (long long)a.pid, a.comm, a.victim_cgroup[0] ? a.victim_cgroup : "-",
			       mcg_oom_breakdown_name(a.breakdown), (unsigned long long)a.age_us,
			       (long long)(caught - a.time_ns) / 1000,
			       (long long)(stored - a.time_ns) / 1000,
			       (long long)(woken - a.time_ns) / 1000, (long long)woken_mono / 1000,
			       (long long)caught_mono / 1000, (long long)stored_mono / 1000);
			fflush(stdout);
		}
	}
	mcg_oom_watch_stats(w, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu_ms %.1f wakeups %llu reads %llu cgroups %zu kmsg_records %llu lost_records %llu "
	       "kills %llu\n",
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       (unsigned long long)st.wakeups, (unsigned long long)st.reads, st.cgroups,
	       (unsigned long long)st.kmsg_records, (unsigned long long)st.lost_records,
	       (unsigned long long)st.kills);
	mcg_oom_watch_free(w);
	mcg_hist_writer_close(hw);
	mcg_ctx_free(ctx);
	return 0;
}
