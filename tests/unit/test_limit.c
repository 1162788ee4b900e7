/* test_limit.c: set-limit's preflight floor, the ordered plan on v1 and v2, apply and rollback on a
 * fake tree. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "ops/ops.h"
#include "fx-files.h"
#include "fx-tmp.h"

#define MiB (1024ULL * 1024)

struct fx {
	char dir[256];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
};

static void putu(const char *dir, const char *name, unsigned long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu\n", v);
	put(dir, name, b);
}

static unsigned long long getu(const struct fx *fx, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(mcg_knob_read_u64(fx->g, name, &v), 0);
	return (unsigned long long)v;
}

/* A fake hierarchy: root/, root/app (the cgroup), proc/meminfo with SWAP kB free. */
static void fx_make(struct fx *fx, int version, const char *stat, unsigned long long usage,
		    unsigned long long swap_kb)
{
	char d[512], proc[512], run[512], mi[256];

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_limit.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(d, sizeof(d), "%s/root", fx->dir);
	mkdir(d, 0755);
	snprintf(proc, sizeof(proc), "%s/proc", fx->dir);
	mkdir(proc, 0755);
	snprintf(mi, sizeof(mi),
		 "MemTotal:       16777216 kB\nSwapTotal: %llu kB\nSwapFree:       %llu kB\n",
		 swap_kb, swap_kb);
	put(proc, "meminfo", mi);
	if (version == 2) {
		put(d, "cgroup.controllers", "memory\n");
		put(d, "memory.stat", "anon 0\n");
	} else {
		put(d, "memory.limit_in_bytes", "9223372036854771712\n");
		put(d, "memory.usage_in_bytes", "0\n");
		put(d, "memory.stat", "hierarchical_memory_limit 9223372036854771712\n");
	}
	strcat(d, "/app");
	mkdir(d, 0755);
	put(d, "memory.stat", stat);
	put(d, "cgroup.procs", "");
	if (version == 2) {
		put(d, "cgroup.controllers", "memory\n");
		putu(d, "memory.current", usage);
		put(d, "memory.max", "max\n");
		put(d, "memory.high", "max\n");
		put(d, "memory.low", "0\n");
		put(d, "memory.min", "0\n");
		put(d, "memory.swap.max", "max\n");
		put(d, "memory.swap.current", "0\n");
		put(d, "memory.reclaim", "");
	} else {
		putu(d, "memory.usage_in_bytes", usage);
		put(d, "memory.limit_in_bytes", "9223372036854771712\n");
		put(d, "memory.memsw.limit_in_bytes", "9223372036854771712\n");
		putu(d, "memory.memsw.usage_in_bytes", usage);
		put(d, "memory.soft_limit_in_bytes", "9223372036854771712\n");
	}
	snprintf(d, sizeof(d), "%s/root", fx->dir);
	assert_int_equal(mcg_ctx_new_root(d, version, NULL, NULL, &fx->ctx), 0);
	assert_int_equal(mcg_ctx_set_procfs(fx->ctx, proc), 0);
	snprintf(run, sizeof(run), "%s/run", fx->dir);
	assert_int_equal(mcg_ctx_set_rundir(fx->ctx, run), 0);
	assert_int_equal(mcg_group_open(fx->ctx, "/app", &fx->g), 0);
}

static void fx_free(struct fx *fx)
{
	mcg_group_close(fx->g);
	mcg_ctx_free(fx->ctx);
	assert_int_equal(fx_rmtree(fx->dir), 0);
}

static void app_put(struct fx *fx, const char *name, unsigned long long v)
{
	char d[512];

	snprintf(d, sizeof(d), "%s/root/app", fx->dir);
	putu(d, name, v);
}

static const char V2_STAT[] = "anon 41943040\nfile 104857600\nkernel 8388608\nshmem 4194304\n"
			      "file_dirty 1048576\nfile_writeback 0\nunevictable 0\n"
			      "slab_reclaimable 6291456\n";
static const char V1_STAT[] = "total_cache 104857600\ntotal_rss 41943040\ntotal_shmem 4194304\n"
			      "total_dirty 2097152\ntotal_writeback 0\ntotal_unevictable 0\n"
			      "hierarchical_memory_limit 9223372036854771712\n";

/* v1, limit 512M, memsw 768M: 256M of swap allowed. */
static void fx_make_v1_512(struct fx *fx)
{
	fx_make(fx, 1, V1_STAT, 150 * MiB, 0);
	app_put(fx, "memory.limit_in_bytes", 512 * MiB);
	app_put(fx, "memory.memsw.limit_in_bytes", 768 * MiB);
}

/* Preflight and plan REQ on G: both succeed, and the plan has N writes. */
static void plan_ok(struct mcg_group *g, const struct mcg_limit_req *req, struct mcg_limit_pre *pre,
		    struct mcg_limit_plan *pl, size_t n)
{
	assert_int_equal(mcg_limit_preflight(g, req, pre), 0);
	assert_int_equal(mcg_limit_plan(g, req, pre, pl), 0);
	assert_int_equal(pl->n, n);
}

/* The plan's write I sets KNOB to VALUE. */
static void write_is(const struct mcg_limit_plan *pl, size_t i, const char *knob, uint64_t value)
{
	assert_string_equal(pl->w[i].knob, knob);
	assert_int_equal(pl->w[i].value, value);
}

static void test_supported(void **state)
{
	struct fx v1, v2;
	char why[160];

	(void)state;
	fx_make(&v1, 1, V1_STAT, 150 * MiB, 0);
	fx_make(&v2, 2, V2_STAT, 150 * MiB, 0);
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_MAX, why, sizeof(why)), 0);
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_SOFT, why, sizeof(why)), 0);
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_SWAP, why, sizeof(why)), 0);
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_HIGH, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "memory.high exists only on cgroup v2"));
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_MIN, why, sizeof(why)), -EOPNOTSUPP);
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_SOFT, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "only on cgroup v1"));
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_LOW, why, sizeof(why)), 0);
	/* no swap accounting: --swap refused with the reason */
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/root/app/memory.memsw.limit_in_bytes", v1.dir);
		unlink(p);
		assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_SWAP, why, sizeof(why)),
				 -EOPNOTSUPP);
		assert_non_null(strstr(why, "swapaccount=1"));
	}
	fx_free(&v1);
	fx_free(&v2);
}

/* memory.swap.high and memory.zswap.max: set where the kernel has them, refused with the reason. */
static void test_swap_high_zswap(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct fx v1, v2;
	char why[160];

	(void)state;
	fx_make(&v1, 1, V1_STAT, 150 * MiB, 0);
	fx_make(&v2, 2, V2_STAT, 150 * MiB, 0);
	assert_int_equal(mcg_limit_supported(v1.g, MCG_LK_SWAP_HIGH, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "memory.swap.high exists only on cgroup v2"));
	/* the fixture has neither file: the kernel's reasons */
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_SWAP_HIGH, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "memory.swap.high is missing"));
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_ZSWAP_MAX, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "CONFIG_ZSWAP"));
	app_put(&v2, "memory.swap.high", 0);
	app_put(&v2, "memory.zswap.max", 0);
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_SWAP_HIGH, why, sizeof(why)), 0);
	assert_int_equal(mcg_limit_supported(v2.g, MCG_LK_ZSWAP_MAX, why, sizeof(why)), 0);
	/* plain writes after the rest; systemd's names: none for swap.high */
	mcg_limit_req_init(&req);
	req.v[MCG_LK_SWAP_HIGH] = 64 * MiB;
	req.v[MCG_LK_ZSWAP_MAX] = 32 * MiB;
	plan_ok(v2.g, &req, &pre, &pl, 2);
	write_is(&pl, 0, "memory.swap.high", 64 * MiB);
	assert_string_equal(pl.w[1].knob, "memory.zswap.max");
	assert_null(mcg_limit_systemd_property(MCG_LK_SWAP_HIGH));
	assert_string_equal(mcg_limit_systemd_property(MCG_LK_ZSWAP_MAX), "MemoryZSwapMax");
	assert_string_equal(mcg_limit_systemd_property(MCG_LK_MAX), "MemoryMax");
	fx_free(&v1);
	fx_free(&v2);
}

static void test_preflight_floor_v2(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct fx fx;

	(void)state;
	fx_make(&fx, 2, V2_STAT, 150 * MiB, 0);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 100 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	/* no swap: anon 40 + shmem 4 + kernel (8 - 6 reclaimable slab) = 46 MiB */
	assert_int_equal(pre.floor, 46 * MiB);
	assert_int_equal(pre.kernel, 2 * MiB);
	assert_int_equal(pre.swap_headroom, 0);
	assert_int_equal(pre.reclaim, 50 * MiB);
	assert_int_equal(pre.verdict, MCG_LV_RECLAIM);
	assert_int_equal(pre.dirty, 1 * MiB);
	assert_true(pre.parent_limit == MCG_MAX);

	req.v[MCG_LK_MAX] = 40 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.verdict, MCG_LV_BELOW_FLOOR);
	req.flags = MCG_LIMIT_ALLOW_OOM;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.verdict, MCG_LV_FORCED);

	req.v[MCG_LK_MAX] = 200 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.verdict, MCG_LV_OK);
	assert_int_equal(pre.reclaim, 0);
	fx_free(&fx);

	/* 1 GiB of free swap, swap.max 30 MiB: 30 MiB of anon/shmem can go, 14 stay */
	fx_make(&fx, 2, V2_STAT, 150 * MiB, 1024 * 1024);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 100 * MiB;
	req.v[MCG_LK_SWAP] = 30 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.swap_headroom, 30 * MiB);
	assert_int_equal(pre.floor, (44 - 30 + 2) * MiB);
	fx_free(&fx);
}

static void test_preflight_unevictable(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct fx fx;

	(void)state;
	/* mlocked file pages: unevictable beyond anon counts */
	fx_make(&fx, 2,
		"anon 1048576\nfile 104857600\nkernel 0\nshmem 0\nunevictable 67108864\n"
		"slab_reclaimable 0\n",
		110 * MiB, 0);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 32 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.floor, 64 * MiB);
	assert_int_equal(pre.verdict, MCG_LV_BELOW_FLOOR);
	fx_free(&fx);
}

static void test_preflight_v1(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct fx fx;

	(void)state;
	fx_make(&fx, 1, V1_STAT, 150 * MiB, 0);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 100 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	/* v1 does not say which kernel memory is reclaimable: not in the floor */
	assert_int_equal(pre.floor, 44 * MiB);
	assert_int_equal(pre.verdict, MCG_LV_RECLAIM);
	assert_int_equal(pre.dirty, 2 * MiB);
	req.v[MCG_LK_MAX] = 8 * MiB;
	req.flags = MCG_LIMIT_FORCE;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(pre.verdict, MCG_LV_FORCED);
	fx_free(&fx);
}

static void test_plan_v2_shrink(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct fx fx;

	(void)state;
	fx_make(&fx, 2, V2_STAT, 150 * MiB, 0);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 100 * MiB;
	req.v[MCG_LK_LOW] = 10 * MiB;
	plan_ok(fx.g, &req, &pre, &pl, 5);
	/* throttle, reclaim, then memory.max once usage fits, then high back */
	assert_int_equal(pl.w[0].op, MCG_LW_TEMP);
	write_is(&pl, 0, "memory.high", 100 * MiB);
	assert_int_equal(pl.w[1].op, MCG_LW_RECLAIM);
	assert_int_equal(pl.w[1].value, 100 * MiB);
	assert_int_equal(pl.w[2].op, MCG_LW_SET);
	assert_string_equal(pl.w[2].knob, "memory.max");
	assert_string_equal(pl.w[3].knob, "memory.high");
	assert_true(pl.w[3].value == MCG_MAX);
	assert_string_equal(pl.w[4].knob, "memory.low");

	/* a grow: one write */
	req.v[MCG_LK_MAX] = 1024 * MiB;
	req.v[MCG_LK_LOW] = MCG_KEEP;
	plan_ok(fx.g, &req, &pre, &pl, 1);
	assert_string_equal(pl.w[0].knob, "memory.max");
	fx_free(&fx);
}

static void test_plan_v1_memsw_order(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct fx fx;

	(void)state;
	fx_make_v1_512(&fx);
	mcg_limit_req_init(&req);

	/* grow past memsw: memsw first, keeping the allowance */
	req.v[MCG_LK_MAX] = 1024 * MiB;
	plan_ok(fx.g, &req, &pre, &pl, 2);
	write_is(&pl, 0, "memory.memsw.limit_in_bytes", 1280 * MiB);
	write_is(&pl, 1, "memory.limit_in_bytes", 1024 * MiB);

	/* shrink below usage, swap 0: limit first (a reclaiming shrink), then memsw */
	req.v[MCG_LK_MAX] = 100 * MiB;
	req.v[MCG_LK_SWAP] = 0;
	plan_ok(fx.g, &req, &pre, &pl, 2);
	assert_string_equal(pl.w[0].knob, "memory.limit_in_bytes");
	assert_int_equal(pl.w[0].op, MCG_LW_SHRINK);
	write_is(&pl, 1, "memory.memsw.limit_in_bytes", 100 * MiB);

	/* a shrink that stays above the old limit's memsw: memsw 600M >= limit 512M first */
	req.v[MCG_LK_MAX] = 400 * MiB;
	req.v[MCG_LK_SWAP] = 200 * MiB;
	plan_ok(fx.g, &req, &pre, &pl, 2);
	write_is(&pl, 0, "memory.memsw.limit_in_bytes", 600 * MiB);
	assert_int_equal(pl.w[1].op, MCG_LW_SET);

	/* max: memsw to max first */
	req.v[MCG_LK_MAX] = MCG_MAX;
	req.v[MCG_LK_SWAP] = MCG_KEEP;
	plan_ok(fx.g, &req, &pre, &pl, 2);
	assert_string_equal(pl.w[0].knob, "memory.memsw.limit_in_bytes");
	assert_true(pl.w[0].value == MCG_MAX);
	fx_free(&fx);
}

/* The caller's signal handler, simulated: the flag is set during the second shrink step. */
static volatile sig_atomic_t test_flag;
static void interrupt_at_second_step(void *u, const struct mcg_limit_progress *p)
{
	(void)u;
	if (p->steps == 1)
		test_flag = SIGINT;
}

static void test_apply_and_rollback(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct mcg_limit_failure fail;
	struct mcg_txn *t;
	struct fx fx;
	char p[512];

	(void)state;
	fx_make_v1_512(&fx);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 1024 * MiB;
	req.v[MCG_LK_SOFT] = 256 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(mcg_limit_plan(fx.g, &req, &pre, &pl), 0);
	assert_int_equal(mcg_txn_begin(fx.g, 0, "set-limit", &t), 0);
	assert_int_equal(mcg__limit_apply_plan(t, &req, &pl, NULL, NULL, &fail), 0);
	mcg_txn_free(t);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 1024 * MiB);
	assert_int_equal(getu(&fx, "memory.memsw.limit_in_bytes"), 1280 * MiB);
	assert_int_equal(getu(&fx, "memory.soft_limit_in_bytes"), 256 * MiB);
	assert_int_equal(pl.w[pl.n - 1].after, 1024 * MiB);
	assert_true(pl.w[pl.n - 1].done);
	snprintf(p, sizeof(p), "%s/run/journal", fx.dir);
	assert_int_equal(mcg_recover(fx.ctx, NULL, true, NULL, NULL), 0);

	/* the limit cannot even be read for the journal: nothing is written at all */
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 2048 * MiB;
	req.v[MCG_LK_SOFT] = 128 * MiB;
	plan_ok(fx.g, &req, &pre, &pl, 3); /* soft, memsw, limit */
	snprintf(p, sizeof(p), "%s/root/app/memory.limit_in_bytes", fx.dir);
	unlink(p);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(mcg_txn_begin(fx.g, 0, "set-limit", &t), 0);
	assert_true(mcg__limit_apply_plan(t, &req, &pl, NULL, NULL, &fail) < 0);
	mcg_txn_free(t);
	assert_int_equal(fail.index, 2);
	assert_true(fail.rolled_back);
	assert_int_equal(getu(&fx, "memory.soft_limit_in_bytes"), 256 * MiB);
	assert_int_equal(getu(&fx, "memory.memsw.limit_in_bytes"), 1280 * MiB);
	assert_int_equal(mcg_recover(fx.ctx, NULL, true, NULL, NULL), 0);
	rmdir(p);
	app_put(&fx, "memory.limit_in_bytes", 1024 * MiB);

	/*
	 * interrupted during a stepped shrink, after the soft limit and two steps: all of it
	 * goes back (soft, limit), no journal left
	 */
	{
		struct mcg_cancel c = {0, &test_flag};
		struct mcg_limit_ops ops = {interrupt_at_second_step, NULL, NULL, NULL};

		app_put(&fx, "memory.memsw.limit_in_bytes", 1280 * MiB);
		mcg_limit_req_init(&req);
		req.v[MCG_LK_MAX] = 64 * MiB;
		req.v[MCG_LK_SOFT] = 32 * MiB;
		req.step = 16 * MiB;
		req.flags = MCG_LIMIT_FORCE;
		assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
		assert_int_equal(mcg_limit_plan(fx.g, &req, &pre, &pl), 0);
		assert_int_equal(pl.n, 3); /* soft, limit (shrink), memsw */
		assert_int_equal(pl.w[1].op, MCG_LW_SHRINK);
		test_flag = 0;
		assert_int_equal(mcg_txn_begin(fx.g, 0, "set-limit", &t), 0);
		assert_int_equal(mcg__limit_apply_plan(t, &req, &pl, &c, &ops, &fail), -EINTR);
		mcg_txn_free(t);
		assert_int_equal(fail.index, 1);
		assert_true(fail.rolled_back);
		assert_true(pl.w[0].done && !pl.w[1].done && !pl.w[2].done);
		assert_int_equal(getu(&fx, "memory.soft_limit_in_bytes"), 256 * MiB);
		assert_int_equal(getu(&fx, "memory.memsw.limit_in_bytes"), 1280 * MiB);
		assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 1024 * MiB);
		assert_int_equal(mcg_recover(fx.ctx, NULL, true, NULL, NULL), 0);
	}
	fx_free(&fx);
}

/*
 * During the second step another process writes the limit, and the file then holds
 * set-limit's value again, as when the kernel completing set-limit's v1 step installs it over
 * theirs.
 */
static pid_t test_writer;
static void overwrite_at_second_step(void *u, const struct mcg_limit_progress *p)
{
	struct fx *fx = u;
	uint64_t ours;
	int st;

	if (p->steps != 1 || test_writer)
		return;
	assert_int_equal(mcg_knob_read_u64(fx->g, "memory.limit_in_bytes", &ours), 0);
	test_writer = fork();
	assert_true(test_writer >= 0);
	if (test_writer == 0) {
		app_put(fx, "memory.limit_in_bytes", 1800 * MiB);
		_exit(0);
	}
	assert_int_equal(waitpid(test_writer, &st, 0), test_writer);
	app_put(fx, "memory.limit_in_bytes", ours);
}

static void test_apply_overwritten_writer(void **state)
{
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct mcg_limit_failure fail;
	struct mcg_limit_ops ops = {overwrite_at_second_step, NULL, NULL, NULL};
	struct mcg_txn *t;
	unsigned long long soft0;
	struct fx fx;
	int fd, w;

	(void)state;
	fx_make_v1_512(&fx);
	soft0 = getu(&fx, "memory.soft_limit_in_bytes");
	fd = mcg_knob_open(fx.g, "memory.limit_in_bytes", O_RDONLY);
	assert_true(fd >= 0);
	w = mcg__watch_open(fd);
	close(fd);
	if (w < 0) {
		fx_free(&fx);
		skip(); /* no fanotify here (needs CAP_SYS_ADMIN) */
	}
	close(w);
	ops.userdata = &fx;
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 64 * MiB;
	req.v[MCG_LK_SOFT] = 32 * MiB;
	req.step = 16 * MiB;
	req.flags = MCG_LIMIT_FORCE;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(mcg_limit_plan(fx.g, &req, &pre, &pl), 0);
	test_writer = 0;
	assert_int_equal(mcg_txn_begin(fx.g, 0, "set-limit", &t), 0);
	assert_int_equal(mcg__limit_apply_plan(t, &req, &pl, NULL, &ops, &fail), -MCG_E_CONFLICT);
	mcg_txn_free(t);
	/* stopped at the next step, everything put back: never the lowered limit */
	assert_true(fail.conflict && fail.rolled_back);
	assert_true(fail.writer.seen && fail.writer.overwritten && fail.writer.left_ok);
	assert_int_equal(fail.writer.pid, test_writer);
	assert_string_equal(fail.writer.knob, "memory.limit_in_bytes");
	assert_int_equal(fail.writer.left, 512 * MiB);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 512 * MiB);
	assert_int_equal(getu(&fx, "memory.soft_limit_in_bytes"), soft0);
	assert_int_equal(mcg_recover(fx.ctx, NULL, true, NULL, NULL), 0);
	fx_free(&fx);
}

static void test_apply_cancelled(void **state)
{
	static volatile sig_atomic_t flag = SIGTERM;
	struct mcg_cancel c = {0, &flag};
	struct mcg_limit_req req;
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	struct mcg_limit_failure fail;
	struct mcg_txn *t;
	struct fx fx;

	(void)state;
	fx_make(&fx, 2, V2_STAT, 150 * MiB, 0);
	app_put(&fx, "memory.max", 512 * MiB);
	mcg_limit_req_init(&req);
	req.v[MCG_LK_MAX] = 100 * MiB;
	assert_int_equal(mcg_limit_preflight(fx.g, &req, &pre), 0);
	assert_int_equal(mcg_limit_plan(fx.g, &req, &pre, &pl), 0);
	assert_int_equal(mcg_txn_begin(fx.g, 0, "set-limit", &t), 0);
	assert_int_equal(mcg__limit_apply_plan(t, &req, &pl, &c, NULL, &fail), -EINTR);
	mcg_txn_free(t);
	assert_true(fail.rolled_back);
	assert_int_equal(getu(&fx, "memory.max"), 512 * MiB);
	assert_true(getu(&fx, "memory.high") == MCG_MAX);
	fx_free(&fx);
}

static void test_systemd_unit(void **state)
{
	struct fx fx;
	struct mcg_group *g;
	char d[512];

	(void)state;
	fx_make(&fx, 2, V2_STAT, 0, 0);
	assert_null(mcg_limit_systemd_unit(fx.g));
	snprintf(d, sizeof(d), "%s/root/app/web.service", fx.dir);
	mkdir(d, 0755);
	put(d, "cgroup.controllers", "memory\n");
	put(d, "memory.max", "max\n");
	assert_int_equal(mcg_group_open(fx.ctx, "/app/web.service", &g), 0);
	assert_string_equal(mcg_limit_systemd_unit(g), "web.service");
	mcg_group_close(g);
	fx_free(&fx);
}

/* ---- resolving a request: table-driven ---- */

#define GiB (1024 * MiB)
#define UNSET 0 /* want[] entry not checked */

struct rcase {
	const char *what;
	int version;
	const char *v[MCG_LK__COUNT];
	const char *step;
	unsigned flags;
	int ret;		      /* 0 or the -errno */
	enum mcg_limit_bad bad;	      /* with ret < 0 */
	int knob;		      /* with ret < 0: the knob blamed, -1 none */
	const char *why;	      /* with ret < 0: a part of the reason */
	uint64_t want[MCG_LK__COUNT]; /* each value given, resolved */
	uint64_t want_step;
	uint64_t memsw; /* v1, UNSET: not checked; MCG_KEEP: the plan leaves memsw */
};

/*
 * v1: limit 512M, memsw 768M (256M of swap), soft max; v2: every knob at its
 * default (max, low/min 0). No parent limit: NN% is of MemTotal, 16 GiB.
 */
static const struct rcase rcases[] = {
	{"absolute", 1, {[MCG_LK_MAX] = "512M"}, .want = {[MCG_LK_MAX] = 512 * MiB},
	 .memsw = MCG_KEEP},
	{"relative up keeps the swap allowance", 1, {[MCG_LK_MAX] = "+256M"},
	 .want = {[MCG_LK_MAX] = 768 * MiB}, .memsw = 1024 * MiB},
	{"relative down", 1, {[MCG_LK_MAX] = "-256M"}, .want = {[MCG_LK_MAX] = 256 * MiB},
	 .memsw = 512 * MiB},
	{"relative below zero", 1, {[MCG_LK_MAX] = "-1G"}, .ret = -ERANGE, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_MAX, .why = "the result would be negative"},
	{"percent of RAM", 1, {[MCG_LK_MAX] = "50%"}, .want = {[MCG_LK_MAX] = 8 * GiB}},
	{"fractional percent", 1, {[MCG_LK_MAX] = "12.5%"}, .want = {[MCG_LK_MAX] = 2 * GiB}},
	{"percent above 100", 1, {[MCG_LK_MAX] = "150%"}, .ret = -ERANGE, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_MAX, .why = "percentage above 100%"},
	{"max raises memsw to max first", 1, {[MCG_LK_MAX] = "max"},
	 .want = {[MCG_LK_MAX] = MCG_MAX}, .memsw = MCG_MAX},
	{"-1 is max", 1, {[MCG_LK_MAX] = "-1"}, .want = {[MCG_LK_MAX] = MCG_MAX}},
	{"unknown suffix", 1, {[MCG_LK_MAX] = "12X"}, .ret = -EINVAL, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_MAX, .why = "unknown suffix 'X'"},
	{"below a page", 1, {[MCG_LK_MAX] = "512"}, .ret = -EINVAL, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_MAX, .why = "less than one page"},
	{"zero as written", 1, {[MCG_LK_MAX] = "0"}, .want = {[MCG_LK_MAX] = 0}},
	{"swap 0: memsw = limit", 1, {[MCG_LK_MAX] = "256M", [MCG_LK_SWAP] = "0"},
	 .want = {[MCG_LK_MAX] = 256 * MiB, [MCG_LK_SWAP] = 0}, .memsw = 256 * MiB},
	{"v1 swap relative to memsw - limit", 1, {[MCG_LK_SWAP] = "+64M"},
	 .want = {[MCG_LK_SWAP] = 320 * MiB}, .memsw = 832 * MiB},
	{"v1 swap below zero", 1, {[MCG_LK_SWAP] = "-512M"}, .ret = -ERANGE,
	 .bad = MCG_LB_SIZE, .knob = MCG_LK_SWAP, .why = "negative"},
	{"relative to max", 1, {[MCG_LK_SOFT] = "+1M"}, .ret = -EINVAL, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_SOFT, .why = "needs a current limit, which is max"},
	{"high on v1", 1, {[MCG_LK_MAX] = "1G", [MCG_LK_HIGH] = "1G"}, .ret = -EOPNOTSUPP,
	 .bad = MCG_LB_UNSUPPORTED, .knob = MCG_LK_HIGH,
	 .why = "memory.high exists only on cgroup v2"},
	{"allow-oom on v1", 1, {[MCG_LK_MAX] = "1G"}, .flags = MCG_LIMIT_ALLOW_OOM,
	 .ret = -EOPNOTSUPP, .bad = MCG_LB_ALLOW_OOM, .knob = -1, .why = "never OOM-kill"},
	{"step 0", 1, {[MCG_LK_MAX] = "1G"}, .step = "0", .ret = -EINVAL, .bad = MCG_LB_STEP,
	 .knob = -1, .why = "at least one page"},
	{"step garbage", 1, {[MCG_LK_MAX] = "1G"}, .step = "x", .ret = -EINVAL,
	 .bad = MCG_LB_STEP, .knob = -1, .why = "not a number"},
	{"step negative", 1, {[MCG_LK_MAX] = "1G"}, .step = "-4M", .ret = -EINVAL,
	 .bad = MCG_LB_STEP, .knob = -1, .why = "negative"},
	{"step", 1, {[MCG_LK_MAX] = "1G"}, .step = "4M", .want = {[MCG_LK_MAX] = GiB},
	 .want_step = 4 * MiB},
	{"nothing asked", 1, {NULL}, .ret = -EINVAL, .bad = MCG_LB_NOTHING, .knob = -1,
	 .why = "no value"},
	{"v2 relative to max", 2, {[MCG_LK_MAX] = "+1G"}, .ret = -EINVAL, .bad = MCG_LB_SIZE,
	 .knob = MCG_LK_MAX, .why = "which is max"},
	{"v2 high percent", 2, {[MCG_LK_HIGH] = "50%"}, .want = {[MCG_LK_HIGH] = 8 * GiB}},
	{"v2 low relative to 0", 2, {[MCG_LK_LOW] = "+1M"}, .want = {[MCG_LK_LOW] = MiB}},
	{"soft on v2", 2, {[MCG_LK_SOFT] = "1G"}, .ret = -EOPNOTSUPP, .bad = MCG_LB_UNSUPPORTED,
	 .knob = MCG_LK_SOFT, .why = "only on cgroup v1"},
	{"v2 allow-oom, swap max", 2, {[MCG_LK_MAX] = "1G", [MCG_LK_SWAP] = "max"},
	 .flags = MCG_LIMIT_ALLOW_OOM | MCG_LIMIT_FORCE,
	 .want = {[MCG_LK_MAX] = GiB, [MCG_LK_SWAP] = MCG_MAX}},
};

/* The memsw value the plan writes, MCG_KEEP when none. */
static uint64_t planned_memsw(const struct fx *fx, const struct mcg_limit_req *req)
{
	struct mcg_limit_pre pre;
	struct mcg_limit_plan pl;
	size_t i;

	assert_int_equal(mcg_limit_preflight(fx->g, req, &pre), 0);
	assert_int_equal(mcg_limit_plan(fx->g, req, &pre, &pl), 0);
	for (i = 0; i < pl.n; i++)
		if (!strcmp(pl.w[i].knob, "memory.memsw.limit_in_bytes"))
			return pl.w[i].value;
	return MCG_KEEP;
}

static void test_resolve_table(void **state)
{
	struct fx v1, v2;
	size_t i, k;

	(void)state;
	fx_make_v1_512(&v1);
	fx_make(&v2, 2, V2_STAT, 150 * MiB, 0);
	for (i = 0; i < MCG_ARRAY_SIZE(rcases); i++) {
		const struct rcase *c = &rcases[i];
		const struct fx *fx = c->version == 1 ? &v1 : &v2;
		struct mcg_limit_spec spec = {.step = c->step, .flags = c->flags};
		struct mcg_limit_error e;
		struct mcg_limit_req req;
		int r;

		memcpy(spec.v, c->v, sizeof(spec.v));
		r = mcg_limit_resolve(fx->g, &spec, &req, &e);
		if (r != c->ret)
			fail_msg("%s: returned %d (%s), want %d", c->what, r, e.why, c->ret);
		if (r < 0) {
			if (e.bad != c->bad || e.knob != c->knob || !strstr(e.why, c->why))
				fail_msg("%s: bad %d knob %d why '%s', want %d %d '%s'", c->what,
					 e.bad, e.knob, e.why, c->bad, c->knob, c->why);
			continue;
		}
		for (k = 0; k < MCG_LK__COUNT; k++) {
			uint64_t want = c->v[k] ? c->want[k] : MCG_KEEP;

			if (req.v[k] != want)
				fail_msg("%s: %s = %llu, want %llu", c->what, mcg_limit_knob_name(k),
					 (unsigned long long)req.v[k], (unsigned long long)want);
		}
		assert_int_equal(req.step, c->want_step);
		assert_int_equal(req.flags, c->flags & (MCG_LIMIT_ALLOW_OOM | MCG_LIMIT_FORCE));
		if (c->memsw != UNSET && planned_memsw(fx, &req) != c->memsw)
			fail_msg("%s: memsw %llu, want %llu", c->what,
				 (unsigned long long)planned_memsw(fx, &req),
				 (unsigned long long)c->memsw);
	}
	fx_free(&v1);
	fx_free(&v2);
}

/* Cases the table cannot hold: the root, a parent's limit, a value that cannot be read. */
static void test_resolve_context(void **state)
{
	struct mcg_limit_spec spec = {.step = NULL};
	struct mcg_limit_error e;
	struct mcg_limit_req req;
	struct mcg_group *g;
	char d[512];
	struct fx fx;

	(void)state;
	fx_make(&fx, 2, V2_STAT, 150 * MiB, 0);
	spec.v[MCG_LK_MAX] = "50%";
	assert_int_equal(mcg_group_open(fx.ctx, "/", &g), 0);
	assert_int_equal(mcg_limit_resolve(g, &spec, &req, &e), -EINVAL);
	assert_int_equal(e.bad, MCG_LB_ROOT);
	assert_string_equal(e.why, "the kernel has none there");
	mcg_group_close(g);

	/* NN% of the smallest limit above: app 512M */
	app_put(&fx, "memory.max", 512 * MiB);
	snprintf(d, sizeof(d), "%s/root/app/child", fx.dir);
	mkdir(d, 0755);
	put(d, "cgroup.controllers", "memory\n");
	put(d, "memory.max", "max\n");
	assert_int_equal(mcg_group_open(fx.ctx, "/app/child", &g), 0);
	assert_int_equal(mcg_limit_resolve(g, &spec, &req, &e), 0);
	assert_int_equal(req.v[MCG_LK_MAX], 256 * MiB);
	mcg_group_close(g);

	/* +N needs the current value: unreadable, a read error, not a usage error */
	snprintf(d, sizeof(d), "%s/root/app/memory.low", fx.dir);
	unlink(d);
	mkdir(d, 0755);
	spec.v[MCG_LK_MAX] = NULL;
	spec.v[MCG_LK_LOW] = "+1M";
	assert_true(mcg_limit_resolve(fx.g, &spec, &req, &e) < 0);
	assert_int_equal(e.bad, MCG_LB_READ);
	assert_int_equal(e.knob, MCG_LK_LOW);
	fx_free(&fx);
}

/* ---- the whole operation, in-process ---- */

static int journal_files(const struct fx *fx)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/run/journal' 2>/dev/null)\"", fx->dir);
	return system(cmd) == 0 ? 0 : 1;
}

static int planned_calls;
static void count_planned(void *u, const struct mcg_limit_result *res)
{
	(void)u;
	assert_true(res->plan.n > 0);
	planned_calls++;
}

static void test_apply_in_process(void **state)
{
	struct mcg_limit_ops ops = {NULL, count_planned, NULL, NULL};
	struct mcg_limit_spec spec = {.step = NULL};
	struct mcg_limit_result res;
	char run[512];
	struct stat st;
	struct fx fx;

	(void)state;
	fx_make_v1_512(&fx);
	snprintf(run, sizeof(run), "%s/run", fx.dir);

	/* a request wrong whatever the values: refused before the run directory is made */
	spec.v[MCG_LK_MAX] = "12X";
	assert_int_equal(mcg_limit_apply(fx.g, &spec, NULL, &ops, &res), -EINVAL);
	assert_int_equal(res.stage, MCG_LS_REQUEST);
	assert_int_equal(res.error.bad, MCG_LB_SIZE);
	assert_int_equal(stat(run, &st), -1);

	/* a dry run plans and writes nothing */
	spec.v[MCG_LK_MAX] = "+256M";
	spec.flags = MCG_LIMIT_DRY_RUN;
	planned_calls = 0;
	assert_int_equal(mcg_limit_apply(fx.g, &spec, NULL, &ops, &res), 0);
	assert_int_equal(res.stage, MCG_LS_DONE);
	assert_int_equal(planned_calls, 1);
	assert_int_equal(res.plan.n, 2);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 512 * MiB);

	/* the real one: resolved under the lock, written, read back */
	spec.flags = 0;
	assert_int_equal(mcg_limit_apply(fx.g, &spec, NULL, &ops, &res), 0);
	assert_int_equal(res.stage, MCG_LS_DONE);
	assert_int_equal(planned_calls, 2);
	assert_int_equal(res.req.v[MCG_LK_MAX], 768 * MiB);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 768 * MiB);
	assert_int_equal(getu(&fx, "memory.memsw.limit_in_bytes"), 1024 * MiB);
	assert_int_equal(res.plan.w[1].after, 768 * MiB);
	assert_int_equal(journal_files(&fx), 0);

	/* relative to what is there under the lock: -1G of 768M is refused then */
	spec.v[MCG_LK_MAX] = "-1G";
	assert_int_equal(mcg_limit_apply(fx.g, &spec, NULL, &ops, &res), -ERANGE);
	assert_int_equal(res.stage, MCG_LS_REQUEST);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 768 * MiB);

	/* below the floor (44 MiB of anon and shmem, no swap): refused, nothing written */
	spec.v[MCG_LK_MAX] = "8M";
	assert_int_equal(mcg_limit_apply(fx.g, &spec, NULL, &ops, &res), -ERANGE);
	assert_int_equal(res.stage, MCG_LS_FLOOR);
	assert_int_equal(res.pre.verdict, MCG_LV_BELOW_FLOOR);
	assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 768 * MiB);
	assert_int_equal(journal_files(&fx), 0);
	fx_free(&fx);
}

/* ---- the cancel shape ---- */

static void test_cancel_check(void **state)
{
	static volatile sig_atomic_t flag;
	struct mcg_cancel c;

	(void)state;
	assert_int_equal(mcg_cancel_check(NULL), 0);
	mcg_cancel_init(&c, 0, NULL);
	assert_int_equal(c.deadline_ns, 0);
	assert_int_equal(mcg_cancel_check(&c), 0);
	mcg_cancel_init(&c, 3600 * 1000, &flag);
	assert_true(c.deadline_ns > mcg_monotonic_ns());
	assert_int_equal(mcg_cancel_check(&c), 0);
	flag = SIGINT;
	assert_int_equal(mcg_cancel_check(&c), -EINTR);
	c.deadline_ns = 1; /* long past */
	assert_int_equal(mcg_cancel_check(&c), -EINTR); /* an interrupt wins over a timeout */
	flag = 0;
	assert_int_equal(mcg_cancel_check(&c), -ETIMEDOUT);
}

/* A deadline already past: a timeout, before any write (no journal either), read back. */
static void test_apply_deadline_past(void **state)
{
	static volatile sig_atomic_t flag;
	struct mcg_cancel c = {1, &flag};
	struct mcg_limit_spec spec = {.step = NULL};
	struct mcg_limit_result res;
	int v;

	(void)state;
	for (v = 1; v <= 2; v++) {
		struct fx fx;

		fx_make(&fx, v, v == 1 ? V1_STAT : V2_STAT, 150 * MiB, 0);
		app_put(&fx, v == 1 ? "memory.limit_in_bytes" : "memory.max", 512 * MiB);
		spec.v[MCG_LK_MAX] = "100M";
		spec.v[MCG_LK_SOFT] = v == 1 ? "64M" : NULL;
		spec.v[MCG_LK_LOW] = v == 2 ? "64M" : NULL;
		flag = 0;
		assert_int_equal(mcg_limit_apply(fx.g, &spec, &c, NULL, &res), -ETIMEDOUT);
		assert_int_equal(res.stage, MCG_LS_APPLY);
		assert_true(res.fail.rolled_back);
		assert_int_equal(res.fail.index, 0);
		assert_false(res.plan.w[0].done);
		if (v == 1) {
			assert_int_equal(getu(&fx, "memory.limit_in_bytes"), 512 * MiB);
			assert_true(getu(&fx, "memory.soft_limit_in_bytes") >= (1ULL << 62));
		} else {
			assert_int_equal(getu(&fx, "memory.max"), 512 * MiB);
			assert_true(getu(&fx, "memory.high") == MCG_MAX);
			assert_int_equal(getu(&fx, "memory.low"), 0);
		}
		assert_int_equal(journal_files(&fx), 0);
		/* the same with the flag: an interrupt, told apart */
		flag = SIGTERM;
		assert_int_equal(mcg_limit_apply(fx.g, &spec, &c, NULL, &res), -EINTR);
		assert_int_equal(res.stage, MCG_LS_APPLY);
		assert_int_equal(getu(&fx, v == 1 ? "memory.limit_in_bytes" : "memory.max"),
				 512 * MiB);
		fx_free(&fx);
	}
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_swap_high_zswap),
		cmocka_unit_test(test_preflight_floor_v2),
		cmocka_unit_test(test_preflight_unevictable),
		cmocka_unit_test(test_preflight_v1),
		cmocka_unit_test(test_plan_v2_shrink),
		cmocka_unit_test(test_plan_v1_memsw_order),
		cmocka_unit_test(test_apply_and_rollback),
		cmocka_unit_test(test_apply_cancelled),
		cmocka_unit_test(test_apply_overwritten_writer),
		cmocka_unit_test(test_systemd_unit),
		cmocka_unit_test(test_resolve_table),
		cmocka_unit_test(test_resolve_context),
		cmocka_unit_test(test_apply_in_process),
		cmocka_unit_test(test_cancel_check),
		cmocka_unit_test(test_apply_deadline_past),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
