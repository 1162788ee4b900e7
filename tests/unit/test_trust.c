/* test_trust.c: files memcgctl must not trust: FIFOs where a file is expected, links in the parents
 * of a store, bidi controls in names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/ops.h"
#include "fx-tmp.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mcg-test-trust.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* a hang is a failure: the default action of SIGALRM ends the test */
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	return fx_rmtree(dir);
}

static void test_fifo(void **state)
{
	char path[512], *buf = NULL;
	size_t len;
	int dfd, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	/* a journal, a lock, a spool or a segment that is a FIFO: refused at once, not waited on */
	assert_int_equal(mcg__read_at(dfd, "fifo", 4096, &buf, &len), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_openat_file(dfd, "fifo", O_RDONLY, 0), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_openat_file(dfd, "fifo", O_WRONLY | O_APPEND, 0), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_openat_file(dfd, "fifo", O_RDWR | O_CREAT, 0600), -MCG_E_UNTRUSTED);
	/* a knob in a --root tree */
	assert_int_equal(mcg_read_file_at(dfd, "fifo", &buf, &len), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg__open_regular(AT_FDCWD, path, O_RDONLY, 0, NULL), -MCG_E_UNTRUSTED);
	/* a regular file still opens, blocking as usual */
	fd = mcg_openat_file(dfd, "file", O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
	assert_int_equal(mcg__read_at(dfd, "file", 4096, &buf, &len), 0);
	assert_int_equal(len, 2);
	free(buf);
	close(dfd);
}

/* One character escaped byte by byte (\xHH each), or kept as it is. */
static void check_esc(const char *in, const char *want)
{
	char out[256];

	mcg_escape(in, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_escape_bidi(void **state)
{
	(void)state;
	/* "bidi\u202eexe.txt" would show as "biditxt.exe" */
	check_esc("bidi\xe2\x80\xae"
		  "exe.txt",
		  "bidi\\xe2\\x80\\xaeexe.txt");
	check_esc("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
		  "\\xe2\\x80\\xaa\\xe2\\x80\\xab\\xe2\\x80\\xac\\xe2\\x80\\xad");
	check_esc("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
		  "\\xe2\\x81\\xa6\\xe2\\x81\\xa7\\xe2\\x81\\xa8\\xe2\\x81\\xa9");
	check_esc("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c");
	/* their neighbours are printable and kept: U+2065 (unassigned), U+2070, U+200D (ZWJ),
	 * U+00E9 */
	check_esc("\xe2\x81\xa5\xe2\x81\xb0\xe2\x80\x8d\xc3\xa9",
		  "\xe2\x81\xa5\xe2\x81\xb0\xe2\x80\x8d\xc3\xa9");
	assert_true(mcg_cp_escaped(0x202e) && mcg_cp_escaped(0x9b) && !mcg_cp_escaped(0xa0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test(test_escape_bidi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
