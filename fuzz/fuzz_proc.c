/*
 * fuzz_proc.c: the /proc files of the dirty-page model and the memory total, read
 * from a fixture procfs: mcg_mem_total (meminfo), mcg_dirty_global_read (sys/vm,
 * vmstat, meminfo, zoneinfo, cgroups), then one cgroup's memory.stat evaluated and
 * explained against that global picture (mcg_dirty_cg_eval, mcg_dirty_verdict).
 * The input holds, separated by NUL bytes (fuzz/README.md):
 *   /proc/meminfo, /proc/vmstat, /proc/zoneinfo, /proc/cgroups,
 *   sys/vm values (one a line: dirty_ratio, dirty_background_ratio, dirty_bytes,
 *   dirty_background_bytes, dirty_expire_centisecs, dirty_writeback_centisecs),
 *   a cgroup's memory.stat
 * A missing section is a missing file.
 */
#include "fuzz.h"

#include "memcg/dirty.h"

enum { S_MEMINFO, S_VMSTAT, S_ZONEINFO, S_CGROUPS, S_SYSVM, S_STAT, S__COUNT };

static const char *const vm_names[] = {
	"dirty_ratio",		  "dirty_background_ratio",  "dirty_bytes",
	"dirty_background_bytes", "dirty_expire_centisecs", "dirty_writeback_centisecs",
};
static const char *const vm_defaults[] = {"20\n", "10\n", "0\n", "0\n", "3000\n", "500\n"};

static struct mcg_ctx *ctx;
static char procdir[4096], vmdir[4096];

static void quiet(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)level;
	(void)fmt;
	(void)ap;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char root[4096];

	(void)argc;
	(void)argv;
	fz_mkdir("proc/sys/vm", vmdir, sizeof(vmdir));
	fz_mkdir("proc", procdir, sizeof(procdir));
	fz_mkdir("cg", root, sizeof(root));
	fz_put_str(root, "memory.usage_in_bytes", "0\n");
	if (mcg_ctx_new_root(root, 1, quiet, NULL, &ctx) < 0 || mcg_ctx_set_procfs(ctx, procdir) < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcg_dirty_global g;
	char *sec[S__COUNT], *line;
	size_t len[S__COUNT], i;
	uint64_t total = 3;
	int r, v;

	if (size > 1 << 18)
		return -1;
	fz_sections(data, size, sec, len, S__COUNT);
	fz_put(procdir, "meminfo", sec[S_MEMINFO], len[S_MEMINFO]);
	fz_put(procdir, "vmstat", sec[S_VMSTAT], len[S_VMSTAT]);
	fz_put(procdir, "zoneinfo", sec[S_ZONEINFO], len[S_ZONEINFO]);
	fz_put(procdir, "cgroups", sec[S_CGROUPS], len[S_CGROUPS]);
	line = sec[S_SYSVM];
	for (i = 0; i < MCG_ARRAY_SIZE(vm_names); i++) {
		char *eol = line ? strchr(line, '\n') : NULL;

		if (line && *line)
			fz_put(vmdir, vm_names[i], line, eol ? (size_t)(eol - line + 1) : strlen(line));
		else
			fz_put_str(vmdir, vm_names[i], vm_defaults[i]);
		line = eol ? eol + 1 : NULL;
	}

	r = mcg_mem_total(ctx, &total);
	if (r < 0)
		FZ_CHECK(total == 3, "mcg_mem_total wrote its result on failure");

	memset(&g, 0, sizeof(g));
	r = mcg_dirty_global_read(ctx, &g);
	if (r == 0) {
		mcg_dirty_global_state(&g);
		for (v = 1; v <= 2; v++) {
			struct mcg_dirty_cg cg;
			char why[512];

			memset(&cg, 0, sizeof(cg));
			cg.headroom = UINT64_MAX;
			cg.limit = MCG_MAX;
			if (!sec[S_STAT] || mcg_dirty_stat_parse(sec[S_STAT], v, &cg) < 0)
				continue;
			mcg_dirty_cg_eval(&cg, v, &g);
			why[0] = '\0';
			mcg_dirty_verdict(&cg, v, &g, 1.0, why, sizeof(why));
			FZ_CHECK(memchr(why, '\0', sizeof(why)), "verdict not NUL-terminated");
		}
	}
	fz_free_sections(sec, S__COUNT);
	return 0;
}
