/* test_txn.c: the journal and lock: save/rollback/commit, one writer per cgroup, recovery after a
 * killed run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

struct fx {
	char dir[256], app[600];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
};

static void put(const char *dir, const char *name, const char *val)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static const char *get(struct fx *fx, const char *knob)
{
	static char buf[128];

	assert_true(mcg_knob_read(fx->g, knob, buf, sizeof(buf)) >= 0);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int journals(struct fx *fx)
{
	char d[512];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(d, sizeof(d), "%s/run/journal", fx->dir);
	dir = opendir(d);
	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		n += strstr(de->d_name, ".journal") != NULL;
	closedir(dir);
	return n;
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char d[512];

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_txn.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(d, sizeof(d), "%s/root", fx->dir);
	mkdir(d, 0755);
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	put(d, "memory.usage_in_bytes", "0\n");
	snprintf(fx->app, sizeof(fx->app), "%s/app", d);
	mkdir(fx->app, 0755);
	put(fx->app, "memory.usage_in_bytes", "1048576\n");
	put(fx->app, "memory.limit_in_bytes", "536870912\n");
	put(fx->app, "memory.memsw.limit_in_bytes", "805306368\n");
	put(fx->app, "memory.soft_limit_in_bytes", "9223372036854771712\n");
	assert_int_equal(mcg_ctx_new_root(d, 1, NULL, NULL, &fx->ctx), 0);
	snprintf(d, sizeof(d), "%s/run", fx->dir);
	assert_int_equal(mcg_ctx_set_rundir(fx->ctx, d), 0);
	assert_int_equal(mcg_group_open(fx->ctx, "/app", &fx->g), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[600];

	mcg_group_close(fx->g);
	mcg_ctx_free(fx->ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static void test_rollback_restores(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.soft_limit_in_bytes", "1048576"), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "1073741824"), 0);
	assert_int_equal(journals(fx), 1);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1073741824");
	assert_int_equal(mcg_txn_rollback(t), 0);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "536870912");
	assert_string_equal(get(fx, "memory.soft_limit_in_bytes"),
			    "9223372036854771712"); /* as saved */
	assert_int_equal(journals(fx), 0);
}

static void test_free_rolls_back_commit_keeps(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "4096"), 0);
	mcg_txn_free(t); /* neither commit nor rollback: rolled back */
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "536870912");

	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "4096"), 0);
	assert_int_equal(mcg_txn_commit(t), 0);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "4096");
	assert_int_equal(journals(fx), 0);
}

static void test_one_writer(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t, *t2 = NULL;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "first", &t), 0);
	assert_int_equal(mcg_txn_begin(fx->g, 0, "second", &t2), -MCG_E_LOCKED);
	assert_null(t2);
	mcg_txn_free(t);
	assert_int_equal(mcg_txn_begin(fx->g, 0, "second", &t2), 0);
	mcg_txn_free(t2);
}

/* A child that changes the limit and dies without rolling back, like SIGKILL. */
static void killed_run(struct fx *fx)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct mcg_txn *t;

		if (mcg_txn_begin(fx->g, 0, "set-limit", &t) < 0 ||
		    mcg_txn_write(t, "memory.memsw.limit_in_bytes", "268435456") < 0)
			_exit(1);
		/* the v1 order: memsw is below the old limit, the limit goes first */
		put(fx->app, "memory.limit_in_bytes", "134217728\n");
		if (mcg_txn_save(t, "memory.limit_in_bytes") == 0)
			_exit(2); /* already written: the journal must hold the value before */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
}

static int seen;
static void count_cb(const struct mcg_recovery *r, void *u)
{
	(void)u;
	assert_string_equal(r->path, "/app");
	assert_string_equal(r->op, "set-limit");
	seen++;
}

static void test_recover_after_kill(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t;

	killed_run(fx);
	assert_int_equal(journals(fx), 1);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "268435456");
	/* the next writer finds the journal */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "next", &t), -MCG_E_STALE_JOURNAL);
	seen = 0;
	assert_int_equal(mcg_recover(fx->ctx, "/app", true, count_cb, NULL), 1);
	assert_int_equal(seen, 1);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "268435456");
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, count_cb, NULL), 1);
	assert_int_equal(seen, 2);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "805306368");
	assert_int_equal(journals(fx), 0);
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, count_cb, NULL), 0);
	assert_int_equal(mcg_txn_begin(fx->g, 0, "next", &t), 0);
	mcg_txn_free(t);
}

static void test_recover_gone_cgroup(void **state)
{
	struct fx *fx = *state;
	char p[700];

	killed_run(fx);
	/* the cgroup disappeared meanwhile: the journal is dropped, nothing to restore */
	snprintf(p, sizeof(p), "rm -rf '%s'", fx->app);
	assert_int_equal(system(p), 0);
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, NULL, NULL), 1);
	assert_int_equal(journals(fx), 0);
}

static int last_err;
static void err_cb(const struct mcg_recovery *r, void *u)
{
	(void)u;
	last_err = r->error;
}

static void test_journal_from_earlier_boot(void **state)
{
	struct fx *fx = *state;
	char proc[512], d[600];

	snprintf(proc, sizeof(proc), "%s/proc", fx->dir);
	snprintf(d, sizeof(d), "mkdir -p '%s/sys/kernel/random'", proc);
	assert_int_equal(system(d), 0);
	snprintf(d, sizeof(d), "%s/sys/kernel/random", proc);
	put(d, "boot_id", "11111111-aaaa\n");
	assert_int_equal(mcg_ctx_set_procfs(fx->ctx, proc), 0);
	killed_run(fx);
	assert_int_equal(journals(fx), 1);
	put(d, "boot_id", "22222222-bbbb\n"); /* rebooted */
	last_err = 0;
	assert_int_equal(mcg_recover(fx->ctx, NULL, true, err_cb, NULL), 1);
	assert_int_equal(last_err, -ESTALE);
	assert_int_equal(journals(fx), 1); /* dry run keeps it */
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, err_cb, NULL), 1);
	assert_int_equal(last_err, -ESTALE);
	assert_int_equal(journals(fx), 0);
	/* not restored: those values belonged to the previous boot */
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "268435456");
}

static void test_v1_set_limits_order(void **state)
{
	struct fx *fx = *state;

	/* grow past memsw: memsw first, else the kernel would say EINVAL */
	assert_int_equal(mcg_v1_set_limits(fx->g, 1073741824, 1342177280), 0);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1073741824");
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "1342177280");
	assert_int_equal(mcg_v1_set_limits(fx->g, 2048, 1024), -EINVAL);
	assert_int_equal(mcg_v1_set_limits(fx->g, MCG_MAX, MCG_MAX), 0);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "-1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rollback_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_rolls_back_commit_keeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_after_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_gone_cgroup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_from_earlier_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_set_limits_order, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
