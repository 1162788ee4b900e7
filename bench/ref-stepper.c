/* ref-stepper.c: the reference reclaimer of issue 17: a plain 1 ms usage poll that steps the v1 limit down. */
/*
 * What a user writes instead of async-reclaim: every 1 ms read usage (kept
 * descriptor); once it is within 4 MiB of the limit, write (usage - 256 pages)
 * to memory.limit_in_bytes and the limit back, again and again, until usage
 * is 8 MiB under the limit. No budget, no journal, no events. v1 only.
 * usage: ref-stepper CGROUP_DIR   (runs until SIGTERM/SIGINT; puts the limit back)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ULL * 1024)
#define TRIGGER (4 * MIB) /* start within this much of the limit */
#define TARGET (8 * MIB)  /* stop this far under it */
#define STEP_PAGES 256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t read_u64(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static int write_u64(int fd, uint64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);

	return pwrite(fd, buf, (size_t)n, 0) == n ? 0 : -errno;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct timespec ms = {0, 1000000};
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), limit, steps = 0, reclaimed = 0;
	char path[4096];
	int ufd, lfd;

	if (argc != 2) {
		fprintf(stderr, "usage: ref-stepper CGROUP_DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", argv[1]);
	ufd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", argv[1]);
	lfd = open(path, O_RDWR | O_CLOEXEC);
	if (ufd < 0 || lfd < 0) {
		perror(path);
		return 1;
	}
	limit = read_u64(lfd);
	if (limit < 4 * TARGET) {
		fprintf(stderr, "ref-stepper: limit %llu too small\n", (unsigned long long)limit);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		uint64_t usage = read_u64(ufd);

		if (usage + TRIGGER > limit) {
			while (!stop && usage + TARGET > limit) {
				uint64_t t = usage > STEP_PAGES * ps ? usage - STEP_PAGES * ps : 0;

				write_u64(lfd, t / ps * ps); /* EBUSY: no progress, try again */
				write_u64(lfd, limit);
				steps++;
				t = read_u64(ufd);
				if (t < usage)
					reclaimed += usage - t;
				usage = t;
			}
		}
		nanosleep(&ms, NULL);
	}
	write_u64(lfd, limit);
	/* usage before - after, summed over steps, as reclaimd's status counts it */
	printf("steps %llu reclaimed %llu\n", (unsigned long long)steps, (unsigned long long)reclaimed);
	return 0;
}
