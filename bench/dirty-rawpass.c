/* dirty-rawpass.c: the floor for bench/dirty.sh: N passes of open/read/close over the files a
 * 'dirty --watch' refresh reads (the /proc files and each cgroup's memory.stat). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	long passes, p;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: dirty-rawpass PASSES FILE...\n");
		return 64;
	}
	passes = strtol(argv[1], NULL, 10);
	for (p = 0; p < passes; p++) {
		for (i = 2; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
			ssize_t n;

			if (fd < 0) {
				perror(argv[i]);
				return 1;
			}
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				;
			close(fd);
		}
	}
	return 0;
}
