/* oom-probe.c: for bench/oom.sh: the recorder's OOM path (watcher, autopsy, event, a frame written) timed per kill.
 *
 *   oom-probe STORE CGROUP   until SIGTERM: one line per kill,
 *     "pid PID comm COMM cgroup VICTIM breakdown BD age_us AGE caught_us C stored_us S"
 *   where C and S are the microseconds from the kill (the kernel's timestamp) to the autopsy
 *   caught and to its frame written in STORE (a store of its own: one event frame per kill).
 *   At exit: "idle_cpu_ms MS wakeups N reads N cgroups N" for the whole run.
 */
#include <memcg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
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

		if (poll(&p, 1, -1) <= 0)
			continue;
		if (mcg_oom_watch_process(w) < 0)
			break;
		while (mcg_oom_watch_next(w, &a) == 0) {
			struct mcg_hist_event ev;
			uint64_t caught = now_ns(), stored;

			if (mcg_oom_autopsy_to_event(&a, &ev, text, sizeof(text)) < 0 ||
			    mcg_hist_write(hw, caught, NULL, 0, &ev, 1) < 0)
				return 1;
			stored = now_ns();
			printf("pid %lld comm %s cgroup %s breakdown %s age_us %llu caught_us %lld "
			       "stored_us %lld\n",
			       (long long)a.pid, a.comm, a.victim_cgroup[0] ? a.victim_cgroup : "-",
			       mcg_oom_breakdown_name(a.breakdown), (unsigned long long)a.age_us,
			       (long long)(caught - a.time_ns) / 1000,
			       (long long)(stored - a.time_ns) / 1000);
			fflush(stdout);
		}
	}
	mcg_oom_watch_stats(w, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu_ms %.1f wakeups %llu reads %llu cgroups %zu\n",
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       (unsigned long long)st.wakeups, (unsigned long long)st.reads, st.cgroups);
	mcg_oom_watch_free(w);
	mcg_hist_writer_close(hw);
	mcg_ctx_free(ctx);
	return 0;
}
