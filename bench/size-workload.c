/* size-workload.c: the workloads of bench/size.sh: page cache hot/cold, skewed and scanned, anon heap hot/cold, a batch job, a phase change; progress as "ms ops" lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024L * 1024)
#define BLOCK (64 * 1024)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * A line every 100 ms: the monotonic time, the operations done so far and the CPU time
 * used: on a shared machine operations per CPU second are what compares (wall-clock
 * rates of identical 3 s windows varied by +-25% at load 16 on 2 CPUs).
 */
static uint64_t ops, last_ms;
static void tick(void)
{
	uint64_t t;

	ops++;
	if ((ops & 15) == 0 && (t = now_ms()) >= last_ms + 100) {
		printf("%llu %llu %llu\n", (unsigned long long)t, (unsigned long long)ops,
		       (unsigned long long)cpu_us());
		fflush(stdout);
		last_ms = t;
	}
}

static int make_file(const char *path, long mib)
{
	char *buf = malloc(MIB);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long i;

	if (!buf || fd < 0)
		return -1;
	memset(buf, 'x', MIB);
	for (i = 0; i < mib; i++)
		if (write(fd, buf, MIB) != MIB)
			return -1;
	fsync(fd);
	close(fd);
	free(buf);
	return 0;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* one random 64 KiB block of FD (a file of MIB MiB), touched: one operation */
static void read_block(int fd, long mib, char *buf)
{
	off_t off = (off_t)(xr() % (uint64_t)(mib * MIB / BLOCK)) * BLOCK;

	if (pread(fd, buf, BLOCK, off) < 0)
		exit(1);
	tick();
}

static int run_pagecache(const char *dir, long hot, long cold, long hot2, long switch_s)
{
	char a[4096], b[4096], c[4096], buf[BLOCK];
	int fa, fb = -1;
	uint64_t t0;

	snprintf(a, sizeof(a), "%s/hot", dir);
	snprintf(b, sizeof(b), "%s/hot2", dir);
	snprintf(c, sizeof(c), "%s/cold", dir);
	if (make_file(a, hot) || make_file(c, cold) || (hot2 && make_file(b, hot2)))
		return 1;
	fa = open(a, O_RDONLY);
	if (hot2)
		fb = open(b, O_RDONLY);
	printf("ready\n");
	fflush(stdout);
	t0 = now_ms();
	for (;;) {
		if (hot2 && now_ms() - t0 >= (uint64_t)switch_s * 1000)
			read_block(fb, hot2, buf); /* the phase change: another, larger set */
		else
			read_block(fa, hot, buf);
	}
}

/*
 * A skewed reader (a cache in front of a service): PCT% of the reads at random over a
 * HOT MiB file, the rest over a WARM MiB one, beside COLD MiB written once. The need has
 * no sharp edge: below HOT + WARM the warm reads start to miss, below HOT the hot ones.
 */
static int run_skew(const char *dir, long hot, long warm, long cold, long pct)
{
	char a[4096], b[4096], c[4096], buf[BLOCK];
	int fa, fb;

	snprintf(a, sizeof(a), "%s/hot", dir);
	snprintf(b, sizeof(b), "%s/warm", dir);
	snprintf(c, sizeof(c), "%s/cold", dir);
	if (make_file(a, hot) || make_file(b, warm) || make_file(c, cold))
		return 1;
	fa = open(a, O_RDONLY);
	fb = open(b, O_RDONLY);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if ((long)(xr() % 100) < pct)
			read_block(fa, hot, buf);
		else
			read_block(fb, warm, buf);
	}
}

/*
 * A scanner: HOT MiB read from start to end in 64 KiB blocks, over and over, beside COLD
 * MiB written once: LRU's worst case, every block is gone by the time it comes round again
 * under any limit below the file, so the knee is sharp.
 */
static int run_scan(const char *dir, long hot, long cold)
{
	char a[4096], c[4096], buf[BLOCK];
	off_t off = 0, end = (off_t)hot * MIB;
	int fa;

	snprintf(a, sizeof(a), "%s/hot", dir);
	snprintf(c, sizeof(c), "%s/cold", dir);
	if (make_file(a, hot) || make_file(c, cold))
		return 1;
	fa = open(a, O_RDONLY);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (pread(fa, buf, BLOCK, off) < 0)
			return 1;
		off = off + BLOCK >= end ? 0 : off + BLOCK;
		tick();
	}
}

static int run_anon(long hot, long cold)
{
	size_t hb = (size_t)hot * MIB, cb = (size_t)cold * MIB, i;
	char *h = mmap(NULL, hb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *c = mmap(NULL, cb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (h == MAP_FAILED || c == MAP_FAILED)
		return 1;
	memset(h, 1, hb);
	memset(c, 2, cb); /* the cold part: written once, never again */
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		/* a request: 16 random pages of the hot part */
		for (i = 0; i < 16; i++)
			h[(xr() % (hb / 4096)) * 4096 + (xr() & 4095)]++;
		tick();
	}
}

/*
 * A batch job shaped like a build: PASSES passes over SRC MiB of sources (each 1 MiB
 * "file" read and hashed, an object of a quarter written; OBJS objects, rebuilt in
 * turn), then a link reading every object. Prints the run time and CPU time in ms.
 */
#define OBJS 4
static int run_batch(const char *dir, long src, long passes)
{
	char path[4096], *buf = malloc(MIB);
	uint64_t t0, h = 0;
	long p, i, j;
	int fd, o;

	if (!buf)
		return 1;
	snprintf(path, sizeof(path), "%s/src", dir);
	if (access(path, R_OK) != 0 && make_file(path, src))
		return 1;
	/* the last run's objects go before the clock starts (dropping their cache costs CPU) */
	for (p = 0; p < OBJS; p++) {
		snprintf(path, sizeof(path), "%s/obj%ld", dir, p);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/src", dir);
	printf("ready\n");
	fflush(stdout);
	t0 = now_ms();
	fd = open(path, O_RDONLY);
	for (p = 0; p < passes; p++) {
		snprintf(path, sizeof(path), "%s/obj%ld", dir, p % OBJS);
		if (p >= OBJS)
			unlink(path); /* rebuilt: the old object is replaced */
		o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		for (i = 0; i < src; i++) {
			if (pread(fd, buf, MIB, (off_t)i * MIB) != MIB)
				return 1;
			for (j = 0; j < MIB; j += 64)
				h = h * 31 + (unsigned char)buf[j];
			if (write(o, buf, MIB / 4) != MIB / 4)
				return 1;
			tick();
		}
		close(o);
	}
	for (p = 0; p < OBJS && p < passes; p++) { /* the link */
		snprintf(path, sizeof(path), "%s/obj%ld", dir, p);
		o = open(path, O_RDONLY);
		while (read(o, buf, MIB) > 0)
			tick();
		close(o);
	}
	printf("done %llu %llu %llu\n", (unsigned long long)(now_ms() - t0),
	       (unsigned long long)(cpu_us() / 1000), (unsigned long long)(h & 1));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 5 && !strcmp(argv[1], "pagecache"))
		return run_pagecache(argv[2], atol(argv[3]), atol(argv[4]), 0, 0);
	if (argc >= 7 && !strcmp(argv[1], "phase"))
		return run_pagecache(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]), atol(argv[6]));
	if (argc >= 7 && !strcmp(argv[1], "skew"))
		return run_skew(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]), atol(argv[6]));
	if (argc >= 5 && !strcmp(argv[1], "scan"))
		return run_scan(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "anon"))
		return run_anon(atol(argv[2]), atol(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "batch"))
		return run_batch(argv[2], atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: size-workload pagecache DIR HOT COLD | phase DIR HOT COLD HOT2 SECS |"
			" skew DIR HOT WARM COLD PCT | scan DIR HOT COLD | anon HOT COLD | batch DIR SRC PASSES"
			" (MiB)\n");
	return 2;
}
