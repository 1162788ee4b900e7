/* async-workload.c: the 2011 async-reclaim latency test: 128 KiB requests at normally distributed files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILE_KIB 160
#define REQ_KIB 128

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* xorshift64* and Box-Muller: deterministic per seed */
static uint64_t rng_state;
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
static double normal(double mean, double sd)
{
	double u1 = uniform(), u2 = uniform();

	if (u1 < 1e-300)
		u1 = 1e-300;
	return mean + sd * sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: async-workload setup DIR NFILES\n"
			"       async-workload drop DIR NFILES      (fsync + drop the files' cache)\n"
			"       async-workload run DIR NFILES read|write WARMUP_S SECONDS SEED\n");
	exit(2);
}

static void path_of(char *buf, size_t len, const char *dir, int i)
{
	snprintf(buf, len, "%s/%d", dir, i);
}

int main(int argc, char **argv)
{
	static char buf[FILE_KIB * 1024];
	char path[4096];
	int nfiles, i;

	if (argc < 4)
		usage();
	nfiles = atoi(argv[3]);
	if (nfiles <= 0)
		usage();
	memset(buf, 'a', sizeof(buf));
	if (!strcmp(argv[1], "setup") || !strcmp(argv[1], "drop")) {
		int setup = !strcmp(argv[1], "setup");

		for (i = 0; i < nfiles; i++) {
			int fd;

			path_of(path, sizeof(path), argv[2], i);
			fd = open(path, setup ? O_WRONLY | O_CREAT | O_TRUNC : O_RDWR, 0600);
			if (fd < 0 || (setup && write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))) {
				perror(path);
				return 1;
			}
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
		return 0;
	}
	if (!strcmp(argv[1], "run") && argc == 8) {
		int write_mode = !strcmp(argv[4], "write");
		double warm = atof(argv[5]), secs = atof(argv[6]);
		uint64_t t0, t_meas, t_end, n = 0, cap = 1 << 20;
		uint64_t *lat = malloc(cap * sizeof(*lat));

		if (!lat || (!write_mode && strcmp(argv[4], "read")))
			usage();
		rng_state = strtoull(argv[7], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
		printf("ready\n");
		fflush(stdout);
		t0 = now_ns();
		t_meas = t0 + (uint64_t)(warm * 1e9);
		t_end = t_meas + (uint64_t)(secs * 1e9);
		for (;;) {
			uint64_t a = now_ns(), b;
			long idx = lround(normal(0.5, 0.1) * nfiles);
			ssize_t r;
			int fd;

			if (a >= t_end)
				break;
			if (idx < 0)
				idx = 0;
			if (idx >= nfiles)
				idx = nfiles - 1;
			path_of(path, sizeof(path), argv[2], (int)idx);
			fd = open(path, write_mode ? O_WRONLY : O_RDONLY);
			if (fd < 0) {
				perror(path);
				return 1;
			}
			if (write_mode)
				r = pwrite(fd, buf, REQ_KIB * 1024, 0);
			else
				r = pread(fd, buf, REQ_KIB * 1024, 0);
			if (r != REQ_KIB * 1024) {
				fprintf(stderr, "short request on %s: %zd (%s)\n", path, r, strerror(errno));
				return 1;
			}
			close(fd);
			b = now_ns();
			if (a < t_meas)
				continue;
			if (n == cap) {
				cap *= 2;
				lat = realloc(lat, cap * sizeof(*lat));
				if (!lat)
					return 1;
			}
			lat[n++] = b - a;
		}
		if (!n)
			return 1;
		qsort(lat, n, sizeof(*lat), cmp_u64);
#define PCT(p) (lat[(size_t)((double)(n - 1) * (p))] / 1e6)
		printf("reqs %llu rps %.1f p50 %.4f p90 %.4f p99 %.4f p999 %.4f max %.4f\n",
		       (unsigned long long)n, n / secs, PCT(0.50), PCT(0.90), PCT(0.99), PCT(0.999),
		       lat[n - 1] / 1e6);
		return 0;
	}
	usage();
	return 2;
}
