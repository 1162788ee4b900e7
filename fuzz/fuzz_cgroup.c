/*
 * fuzz_cgroup.c: a cgroup's files as the kernel could print them, read the two ways
 * memcgctl reads them: mcg_group_info (show, list) and the top sampler (kept
 * descriptors, pread, memory.stat/events/pressure parsing, rates between snapshots).
 * The input holds the files, separated by NUL bytes (fuzz/README.md):
 *   memory.stat, memory.events (v2) / memory.oom_control (v1), memory.pressure,
 *   usage, limit, high (v2) / failcnt (v1), cgroup.procs, /proc/meminfo,
 *   /proc/vmstat, /proc/pressure/memory
 * A missing section is an empty file. Each input is read on a v1 and a v2 tree,
 * at the root and in a child, and sampled between two samples of a fixed baseline.
 */
#include "fuzz.h"

#include "memcg/sample.h"

#include <math.h>

enum { S_STAT, S_EVENTS, S_PRESSURE, S_USAGE, S_LIMIT, S_HIGH, S_PROCS, S_MEMINFO, S_VMSTAT,
       S_PSI, S__COUNT };

static const char *const v1_names[S_PROCS + 1] = {
	"memory.stat", "memory.oom_control", "memory.pressure", "memory.usage_in_bytes",
	"memory.limit_in_bytes", "memory.failcnt", "cgroup.procs",
};
static const char *const v2_names[S_PROCS + 1] = {
	"memory.stat", "memory.events", "memory.pressure", "memory.current",
	"memory.max", "memory.high", "cgroup.procs",
};

/* a quiet cgroup, as read from a real kernel */
static const char *const baseline[S__COUNT] = {
	"anon 1048576\nfile 4194304\nfile_dirty 0\nfile_writeback 0\npgscan 10\npgsteal 9\n"
	"total_rss 1048576\ntotal_cache 4194304\ntotal_dirty 0\ntotal_pgpgout 3\n",
	"low 0\nhigh 1\nmax 2\noom 0\noom_kill 0\noom_group_kill 0\n",
	"some avg10=0.00 avg60=0.00 avg300=0.00 total=100\n"
	"full avg10=0.00 avg60=0.00 avg300=0.00 total=50\n",
	"5242880\n",
	"max\n",
	"max\n",
	"1\n2\n",
	"MemTotal:        8000000 kB\nMemFree:         4000000 kB\nMemAvailable:    6000000 kB\n",
	"nr_dirty 10\nnr_writeback 0\npgscan_kswapd 5\npgscan_direct 0\n",
	"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
};

static struct mcg_ctx *ctx[3];
static struct mcg_sampler *sampler[3];
static char dirs[3][2][4096], procdir[4096];

static void quiet(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)level;
	(void)fmt;
	(void)ap;
}

/*
 * Write the sections into both trees and the fixture's /proc. A missing section
 * is an empty file: the files stay (cgroupfs files do not come and go), so the
 * samplers' kept descriptors read each new text.
 */
static void put_all(char *const *sec, const size_t *len)
{
	char pressure[4200];
	int v, d;

	for (v = 1; v <= 2; v++) {
		for (d = 0; d < 2; d++) {
			const char *const *names = v == 2 ? v2_names : v1_names;
			int s;

			for (s = 0; s <= S_PROCS; s++)
				fz_put(dirs[v][d], names[s], sec[s] ? sec[s] : "", len[s]);
		}
	}
	fz_put(procdir, "meminfo", sec[S_MEMINFO] ? sec[S_MEMINFO] : "", len[S_MEMINFO]);
	fz_put(procdir, "vmstat", sec[S_VMSTAT] ? sec[S_VMSTAT] : "", len[S_VMSTAT]);
	snprintf(pressure, sizeof(pressure), "%s/pressure", procdir);
	fz_put(pressure, "memory", sec[S_PSI] ? sec[S_PSI] : "", len[S_PSI]);
}

static void put_baseline(void)
{
	size_t blen[S__COUNT], i;
	char *base[S__COUNT];

	for (i = 0; i < S__COUNT; i++) {
		base[i] = (char *)baseline[i];
		blen[i] = strlen(baseline[i]);
	}
	put_all(base, blen);
}

/* No bit past the table's last counter. */
static bool keyset_in_range(const struct mcg_keyset *ks)
{
	unsigned b;

	for (b = MCG_K__COUNT; b < MCG_KEYSET_WORDS * 64; b++)
		if ((ks->w[b / 64] >> (b % 64)) & 1)
			return false;
	return true;
}

static void check_snapshot(const struct mcg_snapshot *snap)
{
	size_t i;
	unsigned c;

	FZ_CHECK(snap->n_rows >= 1, "a snapshot without its root row");
	for (i = 0; i < snap->n_rows; i++) {
		const struct mcg_sample_row *r = &snap->rows[i];

		FZ_CHECK(r->path && r->name, "row %zu has no path", i);
		FZ_CHECK(r->parent < (int)i, "row %zu: parent %d after it", i, r->parent);
		FZ_CHECK(keyset_in_range(&r->valid), "row %zu: valid bits past the counters", i);
		mcg_keyset_foreach(c, &r->rate_valid) {
			FZ_CHECK(mcg_sample_has(r, c), "row %zu: a rate for absent counter %u", i, c);
			FZ_CHECK(!isnan(mcg_sample_rate(r, c)), "row %zu: rate %u is NaN", i, c);
		}
	}
}

static void sample(int v)
{
	struct mcg_snapshot *snap;

	if (mcg_sampler_sample(sampler[v], &snap) == 0) {
		check_snapshot(snap);
		mcg_snapshot_unref(snap);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char run[4096];
	int v;

	(void)argc;
	(void)argv;
	fz_mkdir("proc/pressure", procdir, sizeof(procdir));
	fz_mkdir("proc", procdir, sizeof(procdir));
	fz_mkdir("run", run, sizeof(run));
	for (v = 1; v <= 2; v++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "v%d", v);
		fz_mkdir(rel, dirs[v][0], sizeof(dirs[v][0]));
		snprintf(rel, sizeof(rel), "v%d/a", v);
		fz_mkdir(rel, dirs[v][1], sizeof(dirs[v][1]));
		if (v == 2) {
			fz_put_str(dirs[v][0], "cgroup.controllers", "cpu io memory pids\n");
			fz_put_str(dirs[v][1], "cgroup.controllers", "memory\n");
		}
	}
	put_baseline();
	/*
	 * One sampler per tree for the whole run (closing its inotify descriptor
	 * costs an RCU grace period, ~15 ms). Each input is sampled after a
	 * baseline sample and followed by one, so every input sees the same state.
	 */
	for (v = 1; v <= 2; v++) {
		if (mcg_ctx_new_root(dirs[v][0], v, quiet, NULL, &ctx[v]) < 0 ||
		    mcg_ctx_set_procfs(ctx[v], procdir) < 0 || mcg_ctx_set_rundir(ctx[v], run) < 0 ||
		    mcg_sampler_new(ctx[v], "/", 0, &sampler[v]) < 0)
			abort();
		sample(v);
	}
	return 0;
}

static void read_info(int v)
{
	struct mcg_group *g;
	int d;

	for (d = 0; d < 2; d++) {
		if (mcg_group_open(ctx[v], d ? "/a" : "/", &g) == 0) {
			struct mcg_info info;

			if (mcg_group_info(g, &info) == 0) {
				FZ_CHECK(keyset_in_range(&info.rec.valid), "info: valid bits past the counters");
				mcg_info_release(&info);
			}
			mcg_group_close(g);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sec[S__COUNT];
	size_t len[S__COUNT];
	int v;

	if (size > 65536)
		return -1;
	fz_sections(data, size, sec, len, S__COUNT);
	put_all(sec, len);
	for (v = 1; v <= 2; v++) {
		read_info(v);
		sample(v); /* rates: the input against the baseline */
	}
	put_baseline();
	for (v = 1; v <= 2; v++)
		sample(v); /* and back: counters that fall */
	fz_free_sections(sec, S__COUNT);
	return 0;
}
