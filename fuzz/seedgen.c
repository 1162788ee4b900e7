/*
 * seedgen.c: seeds for the journal and async-reclaim targets, written by the
 * library's own writers on a fixture tree: a set-limit journal (v1: limit and
 * memsw; v2: memory.max and memory.high, hostile path bytes) and async-reclaim
 * conf files. Usage: seedgen CORPUSDIR (fuzz/mkcorpus.sh runs it).
 */
#include "fuzz.h"

#include "memcg/async.h"

#include <dirent.h>

static void quiet(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)level;
	(void)fmt;
	(void)ap;
}

/* Copy every file of DIR ending in SUFFIX to CORPUS/TARGET/PREFIX-N. */
static void collect(const char *dir, const char *suffix, const char *corpus, const char *target,
		    const char *prefix)
{
	char out[8192], in[8192], name[300], buf[65536];
	struct dirent *e;
	DIR *d = opendir(dir);
	int i = 0;

	if (!d) {
		perror(dir);
		exit(1);
	}
	snprintf(out, sizeof(out), "%s/%s", corpus, target);
	mkdir(out, 0755);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), k = strlen(suffix);
		FILE *f;

		if (e->d_type != DT_REG || n < k || strcmp(e->d_name + n - k, suffix))
			continue;
		snprintf(in, sizeof(in), "%s/%s", dir, e->d_name);
		f = fopen(in, "r");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		snprintf(name, sizeof(name), "%s-%d", prefix, ++i);
		fz_put(out, name, buf, n);
		printf("%s/%s\n", out, name);
	}
	closedir(d);
}

/* A journal left by a run that never finished: begin, save/write knobs, no commit. */
static void journal(int version, const char *path, const char *const *knobs, const char *corpus,
		    const char *prefix)
{
	char root[4096], run[4096], rel[128], jdir[4200], proc[4096];
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	struct mcg_txn *t;
	size_t i;

	snprintf(rel, sizeof(rel), "%s/v%d%s", prefix, version, path);
	fz_mkdir(rel, root, sizeof(root));
	snprintf(rel, sizeof(rel), "%s/v%d", prefix, version);
	fz_mkdir(rel, root, sizeof(root));
	snprintf(rel, sizeof(rel), "%s/run", prefix);
	fz_mkdir(rel, run, sizeof(run));
	snprintf(rel, sizeof(rel), "%s/proc/sys/kernel/random", prefix);
	fz_mkdir(rel, proc, sizeof(proc));
	fz_put_str(proc, "boot_id", "0d4c6a3e-5a1f-4b7e-9d55-0123456789ab\n");
	snprintf(rel, sizeof(rel), "%s/proc", prefix);
	fz_mkdir(rel, proc, sizeof(proc));
	{
		char cg[8192];

		snprintf(cg, sizeof(cg), "%s%s", root, path);
		if (version == 2) {
			fz_put_str(root, "cgroup.controllers", "memory\n");
			fz_put_str(root, "memory.stat", "anon 0\n");
			fz_put_str(cg, "cgroup.controllers", "memory\n");
			fz_put_str(cg, "memory.max", "max\n");
			fz_put_str(cg, "memory.high", "1073741824\n");
			fz_put_str(cg, "memory.current", "4096\n");
		} else {
			fz_put_str(root, "memory.usage_in_bytes", "0\n");
			fz_put_str(cg, "memory.usage_in_bytes", "4096\n");
			fz_put_str(cg, "memory.limit_in_bytes", "9223372036854771712\n");
			fz_put_str(cg, "memory.memsw.limit_in_bytes", "9223372036854771712\n");
		}
	}
	if (mcg_ctx_new_root(root, version, quiet, NULL, &ctx) < 0 ||
	    mcg_ctx_set_procfs(ctx, proc) < 0 || mcg_ctx_set_rundir(ctx, run) < 0 ||
	    mcg_group_open(ctx, path, &g) < 0 || mcg_txn_begin(g, 0, "set-limit", &t) < 0) {
		fprintf(stderr, "seedgen: cannot start a transaction on v%d %s\n", version, path);
		exit(1);
	}
	for (i = 0; knobs[i]; i += 2)
		if (mcg_txn_write(t, knobs[i], knobs[i + 1]) < 0) {
			fprintf(stderr, "seedgen: cannot write %s\n", knobs[i]);
			exit(1);
		}
	snprintf(jdir, sizeof(jdir), "%s/journal", run);
	collect(jdir, ".journal", corpus, "journal", prefix);
	/* the transaction is left open on purpose: its journal is the seed */
}

int main(int argc, char **argv)
{
	static const char *const v1[] = {"memory.limit_in_bytes", "536870912",
					 "memory.memsw.limit_in_bytes", "1073741824", NULL};
	static const char *const v2[] = {"memory.high", "268435456", "memory.max", "536870912", NULL};
	char state[4096];
	struct mcg_async_conf c;

	if (argc != 2) {
		fprintf(stderr, "usage: seedgen CORPUSDIR\n");
		return 64;
	}
	journal(1, "/web", v1, argv[1], "v1-set-limit");
	journal(2, "/a b/\033]0;x\a/caf\303\251", v2, argv[1], "v2-hostile-path");

	fz_mkdir("async", state, sizeof(state));
	memset(&c, 0, sizeof(c));
	snprintf(c.root, sizeof(c.root), "/sys/fs/cgroup/memory");
	snprintf(c.path, sizeof(c.path), "/web");
	c.dev = 40;
	c.ino = 1234;
	c.batch = 32;
	c.max_cpu = 10;
	if (mcg_async_enable(state, &c) < 0)
		return 1;
	snprintf(c.root, sizeof(c.root), "/sys/fs/cgroup");
	snprintf(c.path, sizeof(c.path), "/system.slice/db.service");
	c.ino = 8812; /* v2: the cgroup id */
	c.high = 64 << 20;
	c.low = 192 << 20;
	c.flags = MCG_ASYNC_HIGH_SET | MCG_ASYNC_HIGH_MARGIN | MCG_ASYNC_LOW_SET |
		  MCG_ASYNC_LOW_MARGIN | MCG_ASYNC_CLEAN;
	c.batch = 256;
	c.max_cpu = 2.5;
	if (mcg_async_enable(state, &c) < 0)
		return 1;
	snprintf(c.path, sizeof(c.path), "/abs");
	c.high = 900 << 20;
	c.low = 800 << 20;
	c.flags = MCG_ASYNC_HIGH_SET | MCG_ASYNC_LOW_SET;
	c.max_cpu = 100;
	c.ino = 8813;
	if (mcg_async_enable(state, &c) < 0)
		return 1;
	collect(state, ".conf", argv[1], "async_conf", "enable");
	{
		struct mcg_async_stats st;
		char stats[4200];

		memset(&st, 0, sizeof(st));
		snprintf(st.root, sizeof(st.root), "/sys/fs/cgroup");
		snprintf(st.path, sizeof(st.path), "/system.slice/db.service");
		st.state = MCG_ASYNC_WAITING;
		st.pid = 4242;
		st.limit = 512 << 20;
		st.high = 448 << 20;
		st.low = 320 << 20;
		st.usage = 300 << 20;
		st.reclaimed = 1 << 30;
		st.wakeups = 17;
		st.steps = 130;
		st.short_steps = 2;
		st.cpu_ns = 123456789;
		st.refaulted = 4 << 20;
		st.conflicts = 1;
		st.dev = 40;
		st.ino = 8812;
		st.refault_ratio = 0.125;
		st.last_error = -EBUSY;
		st.last_error_time = 1700000000;
		st.enabled_time = 1699990000;
		st.updated = 1700000100;
		snprintf(st.event_source, sizeof(st.event_source), "psi+events");
		if (mcg_async_stats_write(state, &st) < 0)
			return 1;
		snprintf(stats, sizeof(stats), "%s/stats", state);
		collect(stats, "", argv[1], "async_conf", "stats");
	}
	return 0;
}
