/* test_txn.c: the journal and lock: save/rollback/commit, one writer per cgroup, recovery after a
 * killed run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ops/ops.h"
#include "fx-files.h"
#include "fx-tmp.h"

struct fx {
	char dir[256], app[600];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
};

static const char *get(struct fx *fx, const char *knob)
{
	static char buf[128];

	assert_true(mcg_knob_read(fx->g, knob, buf, sizeof(buf)) >= 0);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* How many files of the journal directory have SUFFIX in their names. */
static int count_journal_files(struct fx *fx, const char *suffix)
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
		n += strstr(de->d_name, suffix) != NULL;
	closedir(dir);
	return n;
}

static int journals(struct fx *fx)
{
	return count_journal_files(fx, ".journal");
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

	mcg_group_close(fx->g);
	mcg_ctx_free(fx->ctx);
	assert_int_equal(fx_rmtree(fx->dir), 0);
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

	killed_run(fx);
	/* the cgroup disappeared meanwhile: the journal is dropped, nothing to restore */
	assert_int_equal(fx_rmtree(fx->app), 0);
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

/* ---- issue 12/18: the journal parser, identity, compare-and-restore ---- */

static const char *good_journal =
	"memcgctl-journal 2\nop set-limit\npid 42\nversion 1\nboot 1111-aaaa\ndev 5\nino 77\n"
	"root /sys/fs/cgroup/memory\npath /a%20b/c\n"
	"knob memory.limit_in_bytes 536870912 00000000000536870912 00000000000268435456\n"
	"knob memory.memsw.limit_in_bytes 9223372036854771712 18446744073709551615 "
	"18446744073709551615\n";

static void test_journal_parse_good(void **state)
{
	struct mcg__journal j;

	(void)state;
	assert_int_equal(mcg__journal_parse(good_journal, strlen(good_journal), &j), 0);
	assert_string_equal(j.op, "set-limit");
	assert_int_equal(j.pid, 42);
	assert_int_equal(j.version, 1);
	assert_string_equal(j.path, "/a b/c");
	assert_int_equal(j.dev, 5);
	assert_int_equal(j.ino, 77);
	assert_int_equal(j.n, 2);
	assert_string_equal(j.k[0].orig, "536870912");
	assert_int_equal(j.k[0].b, 268435456);
	assert_true(j.k[1].orig_v == MCG_MAX);
}

/* Replace the first occurrence of FROM in the good journal with TO. */
static char *mutate(const char *from, const char *to)
{
	static char buf[4096];
	const char *p = strstr(good_journal, from);

	assert_non_null(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good_journal), good_journal, to,
		 p + strlen(from));
	return buf;
}

static void test_journal_parse_corrupt(void **state)
{
	static const struct {
		const char *from, *to, *why;
	} cases[] = {
		{"knob memory.limit_in_bytes", "knob cgroup.procs", "knob memcgctl does not write"},
		{"knob memory.limit_in_bytes", "knob release_agent", "knob memcgctl does not write"},
		{"knob memory.limit_in_bytes", "knob notify_on_release", "knob memcgctl does not write"},
		{"knob memory.limit_in_bytes", "knob memory.swappiness", "knob memcgctl does not write"},
		{"knob memory.limit_in_bytes", "knob memory.max", "knob memcgctl does not write"},
		{"knob memory.limit_in_bytes", "knob ../x", "knob name"},
		{"536870912 0000", "5368x0912 0000", "not max, -1 or a number"},
		{"536870912 0000", "max 0000", "not max, -1 or a number"}, /* v1 prints numbers */
		{"536870912 0000", " 0000", "not max, -1 or a number"},
		{" 00000000000268435456\n", "\n", "NAME ORIG A B"},
		{"00000000000268435456", "268435456", "20-digit"},
		{"path /a%20b/c", "path /", "root cgroup"},
		{"path /a%20b/c", "path /a/../b", "bad cgroup path"},
		{"path /a%20b/c", "path a", "bad cgroup path"},
		{"path /a%20b/c", "path /a%00", "bad cgroup path"},
		{"version 1", "version 3", "version"},
		{"pid 42", "pid x", "pid"},
		{"dev 5\n", "", "missing"},
		{"ino 77\n", "ino 77\nino 78\n", "repeated"},
		{"op set-limit", "op rm -rf /;", "op"},
		{"memcgctl-journal 2", "memcgctl-journal 1", "version"},
		{"memcgctl-journal 2", "garbage", "not a memcgctl journal"},
		{"boot 1111-aaaa", "boot XYZ", "boot"},
		{"root /sys", "hello /sys", "unknown line"},
	};
	struct mcg__journal j;
	const char *why;
	size_t i;
	char *b;

	(void)state;
	for (i = 0; i < MCG_ARRAY_SIZE(cases); i++) {
		b = mutate(cases[i].from, cases[i].to);
		why = "";
		if (mcg__journal_parse_why(b, strlen(b), &j, &why) != -MCG_E_CORRUPT ||
		    !strstr(why, cases[i].why)) {
			print_error("case %zu: '%s' -> '%s': got '%s'\n", i, cases[i].from, cases[i].to,
				    why);
			fail();
		}
		assert_int_equal(mcg__journal_parse(b, strlen(b), &j), -MCG_E_CORRUPT);
	}
	assert_int_equal(mcg__journal_parse("", 0, &j), -MCG_E_CORRUPT);
	assert_int_equal(mcg__journal_parse("\x01\x02garbage", 9, &j), -MCG_E_CORRUPT);
	assert_int_equal(mcg__journal_parse(good_journal, strlen(good_journal) - 1, &j),
			 -MCG_E_CORRUPT); /* truncated */
	b = mutate("knob memory.memsw", "knob memory.limit_in_bytes 1 00000000000000000001 "
					"00000000000000000001\nknob memory.memsw");
	assert_int_equal(mcg__journal_parse(b, strlen(b), &j), -MCG_E_CORRUPT); /* repeated knob */
}

static void jpath(struct fx *fx, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s/run/journal/%s", fx->dir, file);
}

/* The journal file of /app, whatever its escaped name. */
static void app_journal(struct fx *fx, char *buf, size_t len)
{
	char name[256];

	mcg__cgroup_file_name(mcg_ctx_root(fx->ctx), "/app", name, sizeof(name));
	snprintf(buf, len, "%s/run/journal/%s.journal", fx->dir, name);
}

static int corrupt_seen;
static char corrupt_reason[128];
static void corrupt_cb(const struct mcg_recovery *r, void *u)
{
	(void)u;
	last_err = r->error;
	if (r->error == -MCG_E_CORRUPT) {
		corrupt_seen++;
		snprintf(corrupt_reason, sizeof(corrupt_reason), "%s", r->reason);
		assert_true(strstr(r->journal, "/journal/") != NULL);
	}
}

static int corrupt_files(struct fx *fx)
{
	return count_journal_files(fx, ".corrupt-");
}

static void test_corrupt_moved_aside(void **state)
{
	struct fx *fx = *state;
	char jp[1024], bad[2048];
	struct mcg_txn *t;

	killed_run(fx);
	app_journal(fx, jp, sizeof(jp));
	/* garbage: reported, moved aside, not restored, and the cgroup is free again */
	put(fx->dir, "run/journal/x", "");
	unlink(jp);
	{
		FILE *f = fopen(jp, "w");

		assert_non_null(f);
		fputs("garbage\n", f);
		fclose(f);
	}
	assert_int_equal(mcg_txn_begin(fx->g, 0, "next", &t), -MCG_E_STALE_JOURNAL);
	corrupt_seen = 0;
	assert_int_equal(mcg_recover(fx->ctx, NULL, true, corrupt_cb, NULL), 1);
	assert_int_equal(corrupt_seen, 1);
	assert_int_equal(corrupt_files(fx), 0); /* a dry run moves nothing */
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, corrupt_cb, NULL), 1);
	assert_int_equal(corrupt_seen, 2);
	assert_string_equal(corrupt_reason, "not a memcgctl journal");
	assert_int_equal(journals(fx), 1); /* the .corrupt- file, kept */
	assert_int_equal(corrupt_files(fx), 1);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "268435456"); /* untouched */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "next", &t), 0);
	mcg_txn_free(t);

	/* a valid journal under another cgroup's name: corrupt, nothing written */
	snprintf(bad, sizeof(bad), "%s", good_journal);
	jpath(fx, "other.journal", jp, sizeof(jp));
	{
		FILE *f = fopen(jp, "w");

		assert_non_null(f);
		fprintf(f,
			"memcgctl-journal 2\nop set-limit\npid 42\nversion 1\ndev 1\nino 1\n"
			"root %s\npath /app\nknob memory.limit_in_bytes 4096 00000000000000004096 "
			"00000000000000004096\n",
			mcg_ctx_root(fx->ctx));
		fclose(f);
	}
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, corrupt_cb, NULL), 1);
	assert_string_equal(corrupt_reason, "its name does not match the cgroup it names");
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "134217728");
	assert_int_equal(corrupt_files(fx), 2);

	/* a symlink where a journal should be: never followed */
	jpath(fx, "link.journal", jp, sizeof(jp));
	assert_int_equal(symlink("/etc/passwd", jp), 0);
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, corrupt_cb, NULL), 1);
	assert_string_equal(corrupt_reason, "a symbolic link");
	assert_int_equal(corrupt_files(fx), 3);
}

static void test_recreated_cgroup_dropped(void **state)
{
	struct fx *fx = *state;
	char cmd[4000];

	killed_run(fx);
	/* rmdir + mkdir: another directory (inode) under the same path */
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s.old' && mkdir '%s' && cp '%s.old'/* '%s'/",
		 fx->app, fx->app, fx->app, fx->app, fx->app);
	assert_int_equal(system(cmd), 0);
	put(fx->app, "memory.memsw.limit_in_bytes", "999997440\n");
	last_err = 0;
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, err_cb, NULL), 1);
	assert_int_equal(last_err, -EIDRM);
	assert_int_equal(journals(fx), 0);
	{
		/* fx->g still holds the old directory: read the new one's file */
		char buf[64] = "", p[700];
		FILE *f;

		snprintf(p, sizeof(p), "%s/memory.memsw.limit_in_bytes", fx->app);
		f = fopen(p, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "999997440\n");
	}
	snprintf(cmd, sizeof(cmd), "%s.old", fx->app);
	assert_int_equal(fx_rmtree(cmd), 0);
}

static struct mcg_recovery last_rep;
static void rep_cb(const struct mcg_recovery *r, void *u)
{
	(void)u;
	last_rep = *r;
}

static void test_recover_keeps_other_writer(void **state)
{
	struct fx *fx = *state;

	killed_run(fx);
	/* someone sets memsw after the kill: theirs stays; the limit (ours) goes back */
	put(fx->app, "memory.memsw.limit_in_bytes", "1887436800\n");
	memset(&last_rep, 0, sizeof(last_rep));
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, rep_cb, NULL), 1);
	assert_int_equal(last_rep.error, -MCG_E_CONFLICT);
	assert_string_equal(last_rep.knob, "memory.memsw.limit_in_bytes");
	assert_int_equal(last_rep.found, 1887436800);
	assert_int_equal(last_rep.expected, 268435456);
	assert_int_equal(last_rep.conflicts, 1);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "1887436800");
	assert_int_equal(journals(fx), 0);
}

static void test_rollback_keeps_other_writer(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t;
	const char *k;
	uint64_t found, exp;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.soft_limit_in_bytes", "1048576"), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	put(fx->app, "memory.limit_in_bytes", "1887436800\n"); /* an administrator */
	/* the next write on it sees theirs and stops */
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "134217728"), -MCG_E_CONFLICT);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1887436800");
	assert_int_equal(mcg_txn_conflict(t, &k, &found, &exp), 0);
	assert_string_equal(k, "memory.limit_in_bytes");
	assert_int_equal(found, 1887436800);
	assert_int_equal(exp, 268435456);
	/* the rollback restores the rest and leaves theirs; the journal goes */
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1887436800");
	assert_string_equal(get(fx, "memory.soft_limit_in_bytes"), "9223372036854771712");
	assert_int_equal(journals(fx), 0);

	/* changed after the last write, found by the rollback itself */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	put(fx->app, "memory.limit_in_bytes", "-1\n");
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	assert_int_equal(mcg_txn_conflict(t, &k, &found, &exp), 0);
	assert_true(found == MCG_MAX);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "-1");
	assert_int_equal(journals(fx), 0);
}

static void test_reclaimer_conflict(void **state)
{
	struct fx *fx = *state;
	struct mcg_reclaimer *rc;
	struct mcg_txn *t;
	struct mcg_step st;
	uint64_t found, exp;

	put(fx->app, "memory.usage_in_bytes", "104857600\n");
	assert_int_equal(mcg_txn_begin(fx->g, 0, "empty", &t), 0);
	assert_int_equal(mcg_reclaimer_new(t, &rc), 0);
	assert_int_equal(mcg_reclaimer_conflict(rc, NULL, NULL), -ENOENT);
	assert_int_equal(mcg_reclaimer_step(rc, 4 * 1048576, true, &st), 0);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "100663296"); /* 100M - 4M */
	/* the journal names both the original and the lowered value */
	{
		char jp[1024], *buf;
		size_t len;
		struct mcg__journal j;
		FILE *f;

		app_journal(fx, jp, sizeof(jp));
		f = fopen(jp, "r");
		assert_non_null(f);
		buf = calloc(1, 8192);
		len = fread(buf, 1, 8191, f);
		fclose(f);
		assert_int_equal(mcg__journal_parse(buf, len, &j), 0);
		free(buf);
		assert_int_equal(j.k[0].orig_v, 536870912);
		assert_int_equal(j.k[0].b, 100663296);
	}
	put(fx->app, "memory.limit_in_bytes", "1887436800\n");
	assert_int_equal(mcg_reclaimer_step(rc, 4 * 1048576, true, &st), -MCG_E_CONFLICT);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1887436800"); /* nothing written */
	assert_int_equal(mcg_reclaimer_conflict(rc, &found, &exp), 0);
	assert_int_equal(found, 1887436800);
	assert_int_equal(exp, 100663296);
	assert_int_equal(mcg_reclaimer_restore(rc), 0); /* forgotten: writes nothing */
	mcg_reclaimer_free(rc);
	assert_int_equal(journals(fx), 0);
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1887436800");

	/* a restore finds someone else's value: writes nothing */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "empty", &t), 0);
	assert_int_equal(mcg_reclaimer_new(t, &rc), 0);
	assert_int_equal(mcg_reclaimer_step(rc, 4 * 1048576, true, &st), 0);
	put(fx->app, "memory.limit_in_bytes", "2147483648\n");
	assert_int_equal(mcg_reclaimer_restore(rc), -MCG_E_CONFLICT);
	mcg_reclaimer_free(rc);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "2147483648");
	assert_int_equal(journals(fx), 0);
}

/*
 * Another process writes (fanotify names it) and the file ends up holding memcgctl's value
 * again, as when the kernel completing memcgctl's v1 step installs it over theirs.
 */
static void other_writes_then_ours(struct fx *fx, const char *theirs, const char *ours, pid_t *ret)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		put(fx->app, "memory.limit_in_bytes", theirs);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (ours)
		put(fx->app, "memory.limit_in_bytes", ours);
	*ret = pid;
}

static bool can_watch(struct fx *fx)
{
	int fd = mcg_knob_open(fx->g, "memory.limit_in_bytes", O_RDONLY), w;

	assert_true(fd >= 0);
	w = mcg__watch_open(fd);
	close(fd);
	if (w < 0)
		return false;
	close(w);
	return true;
}

static void test_overwritten_writer_seen(void **state)
{
	struct fx *fx = *state;
	struct mcg_writer_seen w;
	struct mcg_txn *t;
	pid_t pid;

	if (!can_watch(fx))
		skip(); /* no fanotify here (needs CAP_SYS_ADMIN) */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	assert_int_equal(mcg_txn_writer_seen(t, NULL), -ENOENT);
	other_writes_then_ours(fx, "1887436800\n", "268435456\n", &pid);
	/* the next step sees the other process, though the file holds our value */
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "134217728"), -MCG_E_CONFLICT);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "268435456"); /* not written */
	assert_int_equal(mcg_txn_writer_seen(t, &w), 0);
	assert_true(w.seen && w.overwritten);
	assert_int_equal(w.pid, pid);
	assert_string_equal(w.knob, "memory.limit_in_bytes");
	/* no further step, and the rollback puts the original over our lowered value */
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "67108864"), -MCG_E_CONFLICT);
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	assert_int_equal(mcg_txn_writer_seen(t, &w), 0);
	assert_true(w.left_ok);
	assert_int_equal(w.left, 536870912);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "536870912");
	assert_int_equal(journals(fx), 0);

	/* seen by the rollback itself: the original back, the conflict reported */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	other_writes_then_ours(fx, "1887436800\n", "268435456\n", &pid);
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	assert_int_equal(mcg_txn_writer_seen(t, &w), 0);
	assert_true(w.overwritten && w.left_ok);
	assert_int_equal(w.pid, pid);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "536870912");

	/* their value still there: kept, as before, and the writer named */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	other_writes_then_ours(fx, "1887436800\n", NULL, &pid);
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "1887436800");
	assert_int_equal(journals(fx), 0);
}

static void test_reclaimer_overwritten(void **state)
{
	struct fx *fx = *state;
	struct mcg_writer_seen w;
	struct mcg_reclaimer *rc;
	struct mcg_txn *t;
	struct mcg_step st;
	pid_t pid;

	if (!can_watch(fx))
		skip();
	put(fx->app, "memory.usage_in_bytes", "104857600\n");
	assert_int_equal(mcg_txn_begin(fx->g, 0, "empty", &t), 0);
	assert_int_equal(mcg_reclaimer_new(t, &rc), 0);
	assert_int_equal(mcg_reclaimer_step(rc, 4 * 1048576, true, &st), 0);
	other_writes_then_ours(fx, "1887436800\n", "100663296\n", &pid);
	assert_int_equal(mcg_reclaimer_step(rc, 4 * 1048576, true, &st), -MCG_E_CONFLICT);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "100663296"); /* nothing written */
	assert_int_equal(mcg_reclaimer_conflict(rc, NULL, NULL), 0);
	assert_int_equal(mcg_reclaimer_restore(rc), 0); /* stopped: the rollback restores */
	mcg_reclaimer_free(rc);
	assert_int_equal(mcg_txn_rollback(t), -MCG_E_CONFLICT);
	assert_int_equal(mcg_txn_writer_seen(t, &w), 0);
	assert_true(w.overwritten && w.left_ok);
	assert_int_equal(w.pid, pid);
	assert_int_equal(w.left, 536870912);
	mcg_txn_free(t);
	assert_string_equal(get(fx, "memory.limit_in_bytes"), "536870912");
	assert_int_equal(journals(fx), 0);
}

static void test_untrusted_rundir(void **state)
{
	struct fx *fx = *state;
	char d[600], link[700];
	struct mcg_txn *t;

	snprintf(d, sizeof(d), "%s/run", fx->dir);
	assert_int_equal(mkdir(d, 0777), 0);
	assert_int_equal(chmod(d, 0777), 0); /* world-writable */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), -MCG_E_UNTRUSTED);
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, NULL, NULL), -MCG_E_UNTRUSTED);
	assert_int_equal(rmdir(d), 0);
	/* a symlink as the run dir */
	snprintf(link, sizeof(link), "%s/real", fx->dir);
	assert_int_equal(mkdir(link, 0700), 0);
	assert_int_equal(symlink(link, d), 0);
	assert_int_equal(mcg_ctx_set_rundir(fx->ctx, d), 0);
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), -MCG_E_UNTRUSTED);
	unlink(d);
	/* no run dir: recover finds nothing and makes none */
	assert_int_equal(mcg_ctx_set_rundir(fx->ctx, d), 0);
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, NULL, NULL), 0);
	assert_int_equal(access(d, F_OK), -1);
}

static void test_stale_tmp_removed(void **state)
{
	struct fx *fx = *state;
	char jp[1024], tmp[1100], target[600];
	struct mcg_txn *t;

	/* make the dirs, then plant what a kill before the first rename leaves */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	mcg_txn_free(t);
	app_journal(fx, jp, sizeof(jp));
	snprintf(tmp, sizeof(tmp), "%s.tmp", jp);
	put(fx->dir, "victim", "precious\n");
	snprintf(target, sizeof(target), "%s/victim", fx->dir);
	assert_int_equal(symlink(target, tmp), 0);
	/* a journal write replaces the link, never writes through it */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0);
	assert_int_equal(access(tmp, F_OK), -1); /* the run removed the stale .tmp */
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(mcg_txn_write(t, "memory.limit_in_bytes", "268435456"), 0);
	assert_int_equal(mcg_txn_rollback(t), 0);
	mcg_txn_free(t);
	{
		char buf[64] = "";
		FILE *f = fopen(target, "r");

		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "precious\n");
	}
	/* recover removes a stale .tmp whose lock is free */
	put(fx->dir, "run/journal/x.journal.tmp", "half\n");
	assert_int_equal(mcg_recover(fx->ctx, NULL, false, NULL, NULL), 0);
	snprintf(tmp, sizeof(tmp), "%s/run/journal/x.journal.tmp", fx->dir);
	assert_int_equal(access(tmp, F_OK), -1);
}

/*
 * recover removes a .lock that no run holds and that has no journal (a kill
 * between the journal's unlink and the lock's leaves one); a held one stays,
 * and a dry run removes nothing.
 */
static void test_orphan_lock_removed(void **state)
{
	struct fx *fx = *state;
	char orphan[1100], held[1400];
	struct mcg_txn *t;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "test", &t), 0); /* makes the dirs */
	mcg_txn_free(t);
	put(fx->dir, "run/locks/gone.lock", "");
	snprintf(orphan, sizeof(orphan), "%s/run/locks/gone.lock", fx->dir);
	/* a live run: its lock is held, and stays */
	assert_int_equal(mcg_txn_begin(fx->g, 0, "live", &t), 0);
	{
		DIR *d;
		struct dirent *de;
		char dir[1100];

		snprintf(dir, sizeof(dir), "%s/run/locks", fx->dir);
		held[0] = '\0';
		d = opendir(dir);
		assert_non_null(d);
		while ((de = readdir(d)))
			if (strcmp(de->d_name, "gone.lock") && de->d_name[0] != '.')
				snprintf(held, sizeof(held), "%s/%s", dir, de->d_name);
		closedir(d);
	}
	assert_true(held[0] != '\0');
	/* a dry run removes nothing */
	mcg_recover(fx->ctx, NULL, true, NULL, NULL);
	assert_int_equal(access(orphan, F_OK), 0);
	mcg_recover(fx->ctx, NULL, false, NULL, NULL);
	assert_int_equal(access(orphan, F_OK), -1);
	assert_int_equal(access(held, F_OK), 0);
	mcg_txn_free(t);
	assert_int_equal(access(held, F_OK), -1); /* the run's own unlock removed it */
	/* only CGROUP's lock with a path */
	put(fx->dir, "run/locks/gone.lock", "");
	assert_int_equal(mcg_recover(fx->ctx, "/app", false, NULL, NULL), 0);
	assert_int_equal(access(orphan, F_OK), 0);
}

/* The next writer restores a killed run's journal under the lock it just took, and goes on. */
static void test_begin_recovering(void **state)
{
	struct fx *fx = *state;
	struct mcg_txn *t = NULL;
	char p[700], aside[700];

	killed_run(fx);
	/* reclaimd's way: only its own operation's journal; a set-limit one is left */
	last_err = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, MCG_TXN_RECOVER_OWN, "async-reclaim",
						  NULL, err_cb, NULL, &t),
			 -MCG_E_STALE_JOURNAL);
	assert_null(t);
	assert_int_equal(last_err, -MCG_E_STALE_JOURNAL);
	assert_int_equal(journals(fx), 1);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "268435456");

	/* a journal that cannot be restored (the limit unreadable): kept, the begin refused */
	snprintf(p, sizeof(p), "%s/memory.memsw.limit_in_bytes", fx->app);
	snprintf(aside, sizeof(aside), "%s/memsw.aside", fx->dir);
	assert_int_equal(rename(p, aside), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	last_err = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, 0, "empty", NULL, err_cb, NULL, &t),
			 -MCG_E_STALE_JOURNAL);
	assert_true(last_err < 0);
	assert_int_equal(journals(fx), 1);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rename(aside, p), 0);

	/* restored under the lock, reported once, and the lock is ours */
	seen = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, 0, "empty", NULL, count_cb, NULL, &t), 0);
	assert_int_equal(seen, 1);
	assert_int_equal(journals(fx), 0);
	assert_string_equal(get(fx, "memory.memsw.limit_in_bytes"), "805306368");
	assert_int_equal(mcg_txn_begin(fx->g, 0, "other", &(struct mcg_txn *){NULL}),
			 -MCG_E_LOCKED);
	mcg_txn_free(t);

	/* nothing to recover: a plain begin, the callback not called */
	seen = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, 0, "empty", NULL, count_cb, NULL, &t), 0);
	assert_int_equal(seen, 0);
	mcg_txn_free(t);
}

/* A wait for the lock ends at the cancel's deadline or on its flag, told apart. */
static void test_begin_wait_cancelled(void **state)
{
	static volatile sig_atomic_t flag;
	struct fx *fx = *state;
	struct mcg_cancel c = {0, &flag};
	struct mcg_txn *held, *t = NULL;

	assert_int_equal(mcg_txn_begin(fx->g, 0, "holder", &held), 0);
	mcg_cancel_init(&c, 30, &flag);
	assert_int_equal(mcg_txn_begin_recovering(fx->g, MCG_TXN_WAIT, "waiter", &c, NULL, NULL, &t),
			 -ETIMEDOUT);
	assert_true(mcg_monotonic_ns() >= c.deadline_ns);
	flag = SIGINT;
	c.deadline_ns = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, MCG_TXN_WAIT, "waiter", &c, NULL, NULL, &t),
			 -EINTR);
	assert_null(t);
	mcg_txn_free(held);
	flag = 0;
	assert_int_equal(mcg_txn_begin_recovering(fx->g, MCG_TXN_WAIT, "waiter", &c, NULL, NULL, &t),
			 0);
	mcg_txn_free(t);
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
		cmocka_unit_test(test_journal_parse_good),
		cmocka_unit_test(test_journal_parse_corrupt),
		cmocka_unit_test_setup_teardown(test_corrupt_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recreated_cgroup_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_keeps_other_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback_keeps_other_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaimer_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overwritten_writer_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaimer_overwritten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_rundir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tmp_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_orphan_lock_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_recovering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_wait_cancelled, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
