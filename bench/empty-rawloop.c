/*
 * empty-rawloop.c: the least a v1 stepping empty can do, for bench/empty.sh.
 *
 * usage: empty-rawloop CGROUP_DIR PAGES
 *
 * Kept descriptors, one write of "usage - PAGES pages" to memory.limit_in_bytes
 * and one read of memory.usage_in_bytes per step, stop at the first EBUSY or at
 * zero, the original limit written back. No journal, no lock, no memory.stat,
 * no signal handling: what any tool that steps the limit pays to the kernel.
 * Prints "SECONDS WRITES USAGE_AFTER" for the span from the first usage read
 * to the limit written back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long read_u64(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0) {
		perror("empty-rawloop: read usage");
		exit(1);
	}
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	unsigned long long usage, target, batch, page = (unsigned long long)sysconf(_SC_PAGESIZE);
	char path[4096], orig[64], buf[32];
	int lim, use, len, writes = 0;
	ssize_t n;
	double t0, t1;

	if (argc != 3 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: empty-rawloop CGROUP_DIR PAGES\n");
		return 64;
	}
	batch = (unsigned long long)atol(argv[2]) * page;
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", argv[1]);
	lim = open(path, O_RDWR | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", argv[1]);
	use = open(path, O_RDONLY | O_CLOEXEC);
	if (lim < 0 || use < 0) {
		perror("empty-rawloop: open");
		return 1;
	}
	n = pread(lim, orig, sizeof(orig) - 1, 0);
	if (n <= 0) {
		perror("empty-rawloop: read limit");
		return 1;
	}
	orig[n] = '\0';
	orig[strcspn(orig, "\n")] = '\0';

	t0 = now();
	usage = read_u64(use);
	while (usage > 0) {
		target = usage > batch ? (usage - batch) / page * page : 0;
		len = snprintf(buf, sizeof(buf), "%llu", target);
		writes++;
		if (pwrite(lim, buf, (size_t)len, 0) < 0) {
			if (errno != EBUSY)
				perror("empty-rawloop: write limit");
			break;
		}
		usage = read_u64(use);
	}
	writes++;
	if (pwrite(lim, orig, strlen(orig), 0) < 0) {
		perror("empty-rawloop: restore limit");
		return 1;
	}
	t1 = now();
	printf("%.6f %d %llu\n", t1 - t0, writes, read_u64(use));
	return 0;
}
