/* top-raw.c: the baselines for bench/top.sh: raw passes over the cgroups' files, a child's CPU and RSS,
 * and the cost of one taskstats query.
 *
 *   top-raw ocr   ROUNDS DIR...   open/read/close the 4 files of each DIR, ROUNDS times
 *   top-raw pread ROUNDS DIR...   open once, pread ROUNDS times
 *   top-raw run CMD...            run CMD, print its user+sys CPU (ms) and peak RSS (KiB)
 *   top-raw taskstats ROUNDS PID...  ROUNDS taskstats queries per PID through libmemcg
 * The passes print "ms_per_round" (CPU of this process, user+sys, setup excluded).
 */
#include <fcntl.h>
#include <memcg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const files[] = {"memory.usage_in_bytes", "memory.limit_in_bytes",
				     "memory.stat", "memory.failcnt"};
static const char *const files_v2[] = {"memory.current", "memory.max", "memory.stat",
					"memory.events"};

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static const char *const *pick(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/memory.current", dir);
	return access(p, F_OK) == 0 ? files_v2 : files;
}

int main(int argc, char **argv)
{
	static char buf[16384];
	long rounds, r;
	int i, k, ndirs;
	double t0;

	if (argc < 3) {
		fprintf(stderr, "usage: top-raw ocr|pread|taskstats ROUNDS ARGS... | run CMD...\n");
		return 64;
	}
	if (!strcmp(argv[1], "run")) {
		struct rusage ru;
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(pid, &st, 0, &ru) < 0)
			return 1;
		printf("cpu_ms %.3f maxrss_kib %ld status %d\n",
		       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
		       ru.ru_maxrss, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return 0;
	}
	rounds = atol(argv[2]);
	ndirs = argc - 3;
	if (!strcmp(argv[1], "taskstats")) {
		struct mcg_taskstats *ts;
		uint64_t d, c;
		int e = mcg_taskstats_open(&ts);

		if (e < 0) {
			fprintf(stderr, "taskstats: %s\n", mcg_strerror(e));
			return 1;
		}
		t0 = cpu_ms();
		for (r = 0; r < rounds; r++)
			for (i = 0; i < ndirs; i++)
				mcg_taskstats_tgid(ts, atoi(argv[3 + i]), &d, &c);
		printf("ms_per_round %.4f\n", (cpu_ms() - t0) / (double)rounds);
		mcg_taskstats_close(ts);
		return 0;
	}
	if (!strcmp(argv[1], "ocr")) {
		t0 = cpu_ms();
		for (r = 0; r < rounds; r++) {
			for (i = 0; i < ndirs; i++) {
				const char *const *f = pick(argv[3 + i]);

				for (k = 0; k < 4; k++) {
					char p[4096];
					int fd;

					snprintf(p, sizeof(p), "%s/%s", argv[3 + i], f[k]);
					fd = open(p, O_RDONLY);
					if (fd < 0)
						continue;
					if (read(fd, buf, sizeof(buf)) < 0)
						perror(p);
					close(fd);
				}
			}
		}
		printf("ms_per_round %.4f\n", (cpu_ms() - t0) / (double)rounds);
		return 0;
	}
	if (!strcmp(argv[1], "pread")) {
		int *fds = malloc(sizeof(int) * 4 * (size_t)ndirs);

		for (i = 0; i < ndirs; i++) {
			const char *const *f = pick(argv[3 + i]);

			for (k = 0; k < 4; k++) {
				char p[4096];

				snprintf(p, sizeof(p), "%s/%s", argv[3 + i], f[k]);
				fds[i * 4 + k] = open(p, O_RDONLY);
			}
		}
		t0 = cpu_ms();
		for (r = 0; r < rounds; r++)
			for (i = 0; i < ndirs * 4; i++)
				if (fds[i] >= 0 && pread(fds[i], buf, sizeof(buf), 0) < 0)
					perror("pread");
		printf("ms_per_round %.4f\n", (cpu_ms() - t0) / (double)rounds);
		free(fds);
		return 0;
	}
	fprintf(stderr, "top-raw: unknown mode '%s'\n", argv[1]);
	return 64;
}
