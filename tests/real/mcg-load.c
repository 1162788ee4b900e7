/* mcg-load.c: a test workload: page cache (clean or dirty), anon and mlocked memory, on demand. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: mcg-load write FILE MIB [--sync] [--bs KIB] [--hold]\n"
			"       mcg-load read FILE [--hold]\n"
			"       mcg-load anon MIB [--hold]\n"
			"       mcg-load mlock MIB [--hold]\n"
			"       mcg-load hold\n"
			"       mcg-load loop FILE MS (read FILE every MS ms, ready after the first pass)\n"
			"       mcg-load grow FILE MORE MS (loop FILE; after SIGUSR1 MORE too, 'grown')\n"
			"       mcg-load fill FILE (append to FILE for ever, every page of its own locked)\n"
			"       mcg-load exec-as UID GID CMD [ARGS...]\n");
	exit(2);
}

static long arg_mib(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0)
		usage();
	return v;
}

static int do_write(const char *file, long mib, int sync_it, long bs_kib)
{
	size_t bs = (size_t)bs_kib * 1024;
	char *buf = malloc(bs);
	long long total = (long long)mib << 20, done = 0;
	int fd;

	if (!buf)
		return 1;
	memset(buf, 'x', bs);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	while (done < total) {
		size_t n = (size_t)(total - done < (long long)bs ? total - done : (long long)bs);
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			perror("write");
			return 1;
		}
		done += w;
	}
	if (sync_it && fsync(fd) < 0) {
		perror("fsync");
		return 1;
	}
	close(fd);
	free(buf);
	return 0;
}

static int do_read(const char *file)
{
	char buf[1 << 16];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(file);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0;
}

static int do_anon(long mib, int lock)
{
	size_t len = (size_t)mib << 20;
	char *p;

	if (!len)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (lock && mlock(p, len) < 0) {
		perror("mlock");
		return 1;
	}
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	return 0; /* kept mapped on purpose */
}

/* A working set of known size: FILE's page cache, touched every MS ms (size tests). */
static int do_loop(const char *file, long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	if (do_read(file))
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (do_read(file))
			return 1;
		nanosleep(&ts, NULL);
	}
}

/*
 * A working set that grows on demand (size --watch): FILE's page cache touched every MS
 * ms as loop does; after SIGUSR1, MORE's as well, "grown" printed after its first pass.
 */
static volatile sig_atomic_t grow_now;

static void on_usr1(int sig)
{
	(void)sig;
	grow_now = 1;
}

static int do_grow(const char *file, const char *more, long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	struct sigaction sa = {0};
	int grown = 0;

	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 1;
	}
	if (do_read(file))
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (do_read(file))
			return 1;
		if (grow_now) {
			if (do_read(more))
				return 1;
			if (!grown) {
				grown = 1;
				printf("grown\n");
				fflush(stdout);
			}
		}
		nanosleep(&ts, NULL);
	}
}

/*
 * Charges that fail without an OOM: append to FILE (tmpfs: pages reclaim cannot free) for
 * ever, a write that fails at the limit tried again. Every page of this process is faulted
 * in and locked first (MCL_FUTURE: also the next ones), so no fault of its own waits in the
 * memcg OOM path when the limit is reached with the OOM killer disabled (v1 oom_control).
 */
static int do_fill(const char *file)
{
	static char buf[65536];
	int fd;

	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		perror("mlockall");
		return 1;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		if (write(fd, buf, sizeof(buf)) < 0 && errno != ENOMEM && errno != ENOSPC && errno != EINTR) {
			perror("write");
			return 1;
		}
}

int main(int argc, char **argv)
{
	int hold = 0, sync_it = 0, r = 0, i;
	long bs = 1024;

	if (argc < 2)
		usage();
	/* drop to an unprivileged user and run CMD (busybox's setpriv has no --reuid) */
	if (!strcmp(argv[1], "exec-as") && argc >= 5) {
		gid_t gid = (gid_t)arg_mib(argv[3]);

		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid((uid_t)arg_mib(argv[2])) < 0) {
			perror("exec-as");
			return 126;
		}
		execvp(argv[4], argv + 4);
		perror(argv[4]);
		return 127;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--hold"))
			hold = 1;
		else if (!strcmp(argv[i], "--sync"))
			sync_it = 1;
		else if (!strcmp(argv[i], "--bs") && i + 1 < argc)
			bs = arg_mib(argv[++i]);
	}
	if (!strcmp(argv[1], "write") && argc >= 4)
		r = do_write(argv[2], arg_mib(argv[3]), sync_it, bs > 0 ? bs : 1024);
	else if (!strcmp(argv[1], "read") && argc >= 3)
		r = do_read(argv[2]);
	else if (!strcmp(argv[1], "anon") && argc >= 3)
		r = do_anon(arg_mib(argv[2]), 0);
	else if (!strcmp(argv[1], "mlock") && argc >= 3)
		r = do_anon(arg_mib(argv[2]), 1);
	else if (!strcmp(argv[1], "hold"))
		hold = 1;
	else if (!strcmp(argv[1], "loop") && argc >= 4)
		return do_loop(argv[2], arg_mib(argv[3]));
	else if (!strcmp(argv[1], "grow") && argc >= 5)
		return do_grow(argv[2], argv[3], arg_mib(argv[4]));
	else if (!strcmp(argv[1], "fill") && argc >= 3)
		return do_fill(argv[2]);
	else
		usage();
	if (r)
		return r;
	printf("ready\n");
	fflush(stdout);
	if (hold)
		for (;;)
			pause();
	return 0;
}
