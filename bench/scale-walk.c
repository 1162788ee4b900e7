/* scale-walk.c: the kernel-pace baseline for bench/scale.sh: walk a cgroup tree and read one file
 * per cgroup (what systemd-cgtop's one-shot reads for memory), nothing else; or the files list
 * reads, with or without the other system calls memcgctl's one-shot sampler makes per cgroup.
 *
 *   scale-walk DIR FILES [ROUNDS [SAMPLER]]   walk DIR's subtree ROUNDS times (default 1), read
 *                                             each of FILES (comma-separated) of every cgroup
 * SAMPLER=1 makes the sampler's calls around them (strace of `memcgctl list`, branch h29s,
 * 2026-12-04): an fstatat of the first file before it is opened, O_NONBLOCK opens whose
 * descriptors stay open until the cgroup's files are read, and the children listed with
 * getdents64 on the directory's own descriptor after an lseek to 0 (before h29s: through a
 * duplicate of it, dup, lseek, fdopendir's fstat and fcntls; SAMPLER=2 makes those).
 * Prints "cgroups N" (per walk) on standard output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 16
static const char *files[MAX_FILES];
static int nfiles, sampler;
static long seen;

static void walk(int dfd)
{
	static char buf[16384];
	int fds[MAX_FILES], i, lfd = dfd;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (sampler)
		fstatat(dfd, files[0], &st, AT_SYMLINK_NOFOLLOW);
	for (i = 0; i < nfiles; i++) {
		fds[i] = openat(dfd, files[i], O_RDONLY | O_CLOEXEC | (sampler ? O_NONBLOCK | O_NOFOLLOW : 0));
		if (fds[i] >= 0) {
			if (pread(fds[i], buf, sizeof(buf) - 1, 0) > 0 && i == 0)
				seen++;
			if (!sampler)
				close(fds[i]);
		}
	}
	for (i = 0; sampler && i < nfiles; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (sampler == 1) {
		char lbuf[16384];
		ssize_t got;

		lseek(dfd, 0, SEEK_SET);
		while ((got = getdents64(dfd, lbuf, sizeof(lbuf))) > 0) {
			ssize_t off = 0;

			while (off < got) {
				struct dirent64 *e = (struct dirent64 *)(lbuf + off);
				int cfd;

				off += e->d_reclen;
				if (e->d_type != DT_DIR || e->d_name[0] == '.')
					continue;
				cfd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (cfd >= 0)
					walk(cfd);
			}
		}
		close(dfd);
		return;
	}
	if (sampler) {
		lfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
		if (lfd < 0) {
			close(dfd);
			return;
		}
		lseek(lfd, 0, SEEK_SET);
	}
	d = fdopendir(lfd);
	if (!d) {
		close(lfd);
		if (lfd != dfd)
			close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int cfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		cfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0)
			walk(cfd);
	}
	closedir(d);
	if (lfd != dfd)
		close(dfd);
}

int main(int argc, char **argv)
{
	long rounds = argc > 3 ? atol(argv[3]) : 1, r;
	char *list, *f;

	if (argc < 3) {
		fprintf(stderr, "usage: scale-walk DIR FILES [ROUNDS [SAMPLER]]\n");
		return 64;
	}
	sampler = argc > 4 && atoi(argv[4]);
	list = strdup(argv[2]);
	for (f = strtok(list, ","); f && nfiles < MAX_FILES; f = strtok(NULL, ","))
		files[nfiles++] = f;
	if (!nfiles) {
		fprintf(stderr, "scale-walk: no file\n");
		return 64;
	}
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
	free(list);
	return 0;
}
