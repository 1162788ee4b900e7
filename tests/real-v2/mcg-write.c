/* mcg-write.c: write a value to a kernel file with one write(2) and name the errno. */
/*
 * Shells cannot see why a write to a cgroup file failed (busybox ash and dash report every
 * failure as "I/O error"), so the real-kernel scenarios use this to check EAGAIN, EINVAL,
 * EBUSY and friends.
 *
 *   mcg-write [--nonblock] FILE VALUE
 *
 * Prints "ok" on success or the errno name (e.g. "EAGAIN") on failure, on stdout, and
 * exits 0 on success, 1 when the write failed, 2 when FILE cannot be opened or on usage
 * errors. VALUE is written as given, without a trailing newline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

int main(int argc, char **argv)
{
	int flags = O_WRONLY | O_CLOEXEC;
	int argi = 1;

	if (argc > 1 && strcmp(argv[1], "--nonblock") == 0) {
		flags |= O_NONBLOCK;
		argi++;
	}
	if (argc - argi != 2) {
		fprintf(stderr, "usage: mcg-write [--nonblock] FILE VALUE\n");
		return 2;
	}

	const char *path = argv[argi];
	const char *value = argv[argi + 1];
	int fd = open(path, flags);

	if (fd < 0) {
		int err = errno;

		printf("%s\n", errname(err));
		fprintf(stderr, "mcg-write: cannot open '%s': %s\n", path, strerror(err));
		return 2;
	}

	size_t len = strlen(value);
	ssize_t n = write(fd, value, len);
	int err = errno;

	close(fd);
	if (n < 0) {
		printf("%s\n", errname(err));
		return 1;
	}
	if ((size_t)n != len) {
		printf("short\n");
		fprintf(stderr, "mcg-write: short write to '%s': %zd of %zu bytes\n", path, n, len);
		return 1;
	}
	printf("ok\n");
	return 0;
}
