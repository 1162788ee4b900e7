/* async-workload.c: closed-loop file workloads for the async-reclaim benchmarks (the 2011 test and the set). */
/*
 * Every request is one 128 KiB pread or pwrite; its latency is recorded after
 * a warm-up. Modes (the file set is NFILES files of KIB KiB, 160 by default):
 *   write   the 2011 test: pwrite at offset 0 of a file drawn from N(0.5, 0.1) x NFILES
 *   read    the same as reads (a reader of clean cache once the files are synced)
 *   mixed   the same, each request a read or a write with probability 1/2
 *   hot     pwrite at a random page-aligned offset of a Gaussian-hot file (issue 17's workload)
 *   stream  a dd-like writer: 128 KiB pwrites through the files in order, wrapping around
 * PROCS > 1 runs that many processes of the mode (seeds differ) and merges their latencies.
 * The result line also has the processes' system time over the measured part (getrusage).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REQ (128 * 1024)
#define MAX_PROCS 16
#define LAT_CAP (4u << 20) /* latencies per process: 4 M requests */

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
	fprintf(stderr, "usage: async-workload setup DIR NFILES [KIB]\n"
			"       async-workload drop DIR NFILES      (fsync + drop the files' cache)\n"
			"       async-workload run DIR NFILES read|write|mixed|hot|stream WARMUP_S SECONDS SEED [KIB [PROCS]]\n");
	exit(2);
}

static void path_of(char *buf, size_t len, const char *dir, int i)
{
	snprintf(buf, len, "%s/%d", dir, i);
}

static double stime_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct shared {
	uint64_t n[MAX_PROCS];
	double stime[MAX_PROCS];
	uint64_t lat[]; /* MAX_PROCS x LAT_CAP */
};

/* One process's closed loop; latencies into LAT (at most LAT_CAP), returns their count. */
static uint64_t loop(const char *dir, int nfiles, long kib, const char *mode, double warm,
		     double secs, uint64_t *lat, double *ret_stime)
{
	static char buf[REQ];
	char path[4096];
	uint64_t t0 = now_ns(), t_meas = t0 + (uint64_t)(warm * 1e9),
		 t_end = t_meas + (uint64_t)(secs * 1e9), n = 0, seq = 0;
	uint64_t pages = (uint64_t)kib * 1024 / 4096, req_pages = REQ / 4096;
	double s0 = -1;

	memset(buf, 'a', sizeof(buf));
	for (;;) {
		uint64_t a = now_ns(), b;
		long idx = lround(normal(0.5, 0.1) * nfiles);
		off_t off = 0;
		int write_mode = 1;
		ssize_t r;
		int fd;

		if (a >= t_end)
			break;
		if (a >= t_meas && s0 < 0)
			s0 = stime_s();
		if (idx < 0)
			idx = 0;
		if (idx >= nfiles)
			idx = nfiles - 1;
		if (!strcmp(mode, "read")) {
			write_mode = 0;
		} else if (!strcmp(mode, "mixed")) {
			write_mode = uniform() < 0.5;
		} else if (!strcmp(mode, "hot")) {
			if (pages > req_pages)
				off = (off_t)((uint64_t)(uniform() * (double)(pages - req_pages + 1)) * 4096);
		} else if (!strcmp(mode, "stream")) {
			uint64_t per = (uint64_t)kib * 1024 / REQ;

			if (!per)
				per = 1;
			idx = (long)(seq / per % (uint64_t)nfiles);
			off = (off_t)(seq % per * REQ);
			seq++;
		}
		path_of(path, sizeof(path), dir, (int)idx);
		fd = open(path, write_mode ? O_WRONLY : O_RDONLY);
		if (fd < 0) {
			perror(path);
			exit(1);
		}
		if (write_mode)
			r = pwrite(fd, buf, REQ, off);
		else
			r = pread(fd, buf, REQ, off);
		if (r != REQ) {
			fprintf(stderr, "short request on %s: %zd (%s)\n", path, r, strerror(errno));
			exit(1);
		}
		close(fd);
		b = now_ns();
		if (a < t_meas || n == LAT_CAP)
			continue;
		lat[n++] = b - a;
	}
	*ret_stime = s0 < 0 ? 0 : stime_s() - s0;
	return n;
}

int main(int argc, char **argv)
{
	char path[4096];
	int nfiles, i;
	long kib = 160;

	if (argc < 4)
		usage();
	nfiles = atoi(argv[3]);
	if (nfiles <= 0)
		usage();
	if (!strcmp(argv[1], "setup") || !strcmp(argv[1], "drop")) {
		int setup = !strcmp(argv[1], "setup");
		char *fbuf;

		if (argc > 4)
			kib = atol(argv[4]);
		fbuf = malloc((size_t)kib * 1024);
		if (!fbuf || kib <= 0)
			usage();
		memset(fbuf, 'a', (size_t)kib * 1024);
		for (i = 0; i < nfiles; i++) {
			int fd;

			path_of(path, sizeof(path), argv[2], i);
			fd = open(path, setup ? O_WRONLY | O_CREAT | O_TRUNC : O_RDWR, 0600);
			if (fd < 0 ||
			    (setup && write(fd, fbuf, (size_t)kib * 1024) != (ssize_t)kib * 1024)) {
				perror(path);
				return 1;
			}
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
		free(fbuf);
		return 0;
	}
	if (!strcmp(argv[1], "run") && argc >= 8) {
		const char *mode = argv[4];
		double warm = atof(argv[5]), secs = atof(argv[6]), st = 0;
		uint64_t seed = strtoull(argv[7], NULL, 10), n = 0, *all;
		int procs = argc > 9 ? atoi(argv[9]) : 1;
		struct shared *sh;
		size_t shlen;

		if (argc > 8)
			kib = atol(argv[8]);
		if (strcmp(mode, "read") && strcmp(mode, "write") && strcmp(mode, "mixed") &&
		    strcmp(mode, "hot") && strcmp(mode, "stream"))
			usage();
		if (procs < 1 || procs > MAX_PROCS || kib < 128)
			usage();
		shlen = sizeof(*sh) + (size_t)procs * LAT_CAP * sizeof(uint64_t);
		sh = mmap(NULL, shlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED)
			return 1;
		printf("ready\n");
		fflush(stdout);
		for (i = 0; i < procs; i++) {
			pid_t p = procs == 1 ? 0 : fork();

			if (p < 0)
				return 1;
			if (p == 0) {
				rng_state = (seed * 131 + (uint64_t)i) * 0x9E3779B97F4A7C15ULL + 1;
				sh->n[i] = loop(argv[2], nfiles, kib, mode, warm, secs,
						sh->lat + (size_t)i * LAT_CAP, &sh->stime[i]);
				if (procs > 1)
					_exit(0);
			}
		}
		if (procs > 1) {
			int status, bad = 0;

			while (wait(&status) > 0)
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					bad = 1;
			if (bad)
				return 1;
		}
		/* gather the latencies in one run */
		all = sh->lat;
		for (i = 0; i < procs; i++) {
			memmove(all + n, sh->lat + (size_t)i * LAT_CAP, sh->n[i] * sizeof(uint64_t));
			n += sh->n[i];
			st += sh->stime[i];
		}
		if (!n)
			return 1;
		qsort(all, n, sizeof(*all), cmp_u64);
#define PCT(p) (all[(size_t)((double)(n - 1) * (p))] / 1e6)
		printf("reqs %llu rps %.1f p50 %.4f p90 %.4f p99 %.4f p999 %.4f max %.4f stime %.3f\n",
		       (unsigned long long)n, n / secs, PCT(0.50), PCT(0.90), PCT(0.99), PCT(0.999),
		       all[n - 1] / 1e6, st);
		return 0;
	}
	usage();
	return 2;
}
