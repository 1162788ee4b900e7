/* test_swap.c: the one SwapFree reader (sys/swap.c) on captured and broken meminfo files, and its callers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "sys/sys.h"
#include "fx-files.h"
#include "fx-tmp.h"

struct fx {
	char dir[64];
	struct mcg_ctx *ctx;
};

/* A context whose procfs is DIR/proc, with meminfo copied from tests/unit/data/NAME (NULL: none). */
static void fx_open(struct fx *f, const char *name)
{
	char d[256], cmd[1024];

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_swap.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(d, sizeof(d), "%s/root", f->dir);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, &f->ctx), 0);
	snprintf(d, sizeof(d), "%s/proc", f->dir);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(mcg_ctx_set_procfs(f->ctx, d), 0);
	if (name) {
		snprintf(cmd, sizeof(cmd), "cp '%s/%s' '%s/meminfo'", MCG_TEST_DATA, name, d);
		assert_int_equal(system(cmd), 0);
	}
}

static void fx_close(struct fx *f)
{
	mcg_ctx_free(f->ctx);
	assert_int_equal(fx_rmtree(f->dir), 0);
}

static void test_swap_free_cases(void **state)
{
	static const struct {
		const char *file;
		int ret;
		uint64_t bytes;
	} cases[] = {
		/* captured on this host (6.18, no swap device): a SwapFree line of 0 */
		{"meminfo-6.18", 0, 0},
		/* the same with a swap device's lines: kB to bytes */
		{"meminfo-swap", 0, 3145728ULL * 1024},
		/* a kernel without CONFIG_SWAP prints no Swap lines: unknown, not 0 */
		{"meminfo-noswap", -ENOENT, 0},
		/* a SwapFree line without a number */
		{"meminfo-malformed", -ENOENT, 0},
		/* more kB than 2^64 bytes: no value, never a wrapped one */
		{"meminfo-overflow", -ENOENT, 0},
		/* no line of meminfo at all */
		{"meminfo-garbage", -EINVAL, 0},
		/* no meminfo file */
		{NULL, -ENOENT, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx f;
		uint64_t v = 12345;
		int r;

		fx_open(&f, cases[i].file);
		r = mcg__swap_free(f.ctx, &v);
		if (r != cases[i].ret)
			fail_msg("%s: %d, want %d", cases[i].file ? cases[i].file : "(none)", r,
				 cases[i].ret);
		/* written on success only */
		assert_int_equal(v, r == 0 ? cases[i].bytes : 12345);
		fx_close(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_free_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
