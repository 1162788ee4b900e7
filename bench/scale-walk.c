/* scale-walk.c: the kernel-pace baseline for bench/scale.sh: walk a cgroup tree and read one file
 * per cgroup (what systemd-cgtop's one-shot reads for memory), nothing else.
 *
 *   scale-walk DIR FILE [ROUNDS]   walk DIR's subtree ROUNDS times (default 1), read DIR/.../FILE
 * Prints "cgroups N" (per walk) on standard output.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *file;
static long seen;

static void walk(int dfd)
{
	static char buf[4096];
	struct dirent *de;
	DIR *d;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) > 0)
			seen++;
		close(fd);
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int cfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0)
			walk(cfd);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	long rounds = argc > 3 ? atol(argv[3]) : 1, r;

	if (argc < 3) {
		fprintf(stderr, "usage: scale-walk DIR FILE [ROUNDS]\n");
		return 64;
	}
	file = argv[2];
	for (r = 0; r < rounds; r++) {
		int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		seen = 0;
		walk(fd);
	}
	printf("cgroups %ld\n", seen);
	return 0;
}
