/*
 * mk-store.c: a history store at fixed times for tests/cli/dump/check.sh, written with the
 * library's own writer: six frames 5 s apart from T0 (2025-11-30T10:53:20Z) of "/", "/a"
 * (no limit), "/a/b" (named docker:web, removed after the fourth frame) and a cgroup with
 * a hostile name; events out of order within a frame and a change event with hostile text.
 * usage: mk-store DIR
 */
#include <memcg.h>

#include <stdio.h>
#include <string.h>

#define NS 1000000000ULL
#define T0 (1764500000ULL * NS)

int main(int argc, char **argv)
{
	struct mcg_hist_opts o = {.key_every = 3};
	struct mcg_hist_writer *w;
	struct mcg_record rec[4];
	struct mcg_hist_cgroup cg[4] = {{"/", 1, &rec[0], NULL},
					{"/a", 2, &rec[1], NULL},
					{"/a/b", 3, &rec[2], "docker:web"},
					{"/x,y\"z\n", 4, &rec[3], "pod:ns/p,q"}};
	struct mcg_hist_event ev[3];
	int f, c;

	if (argc != 2)
		return 2;
	o.dir = argv[1];
	if (mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w) < 0)
		return 1;
	for (f = 0; f < 6; f++) {
		uint64_t t = T0 + (uint64_t)f * 5 * NS;
		size_t nev = 0, n = f >= 4 ? 2 : 4;

		for (c = 0; c < 4; c++) {
			memset(&rec[c], 0, sizeof(rec[c]));
			mcg_record_set(&rec[c], MCG_K_USAGE, (uint64_t)(c + 1) * 1048576 + (uint64_t)f * 4096);
			mcg_record_set(&rec[c], MCG_K_LIMIT, c == 1 ? MCG_MAX : 1ULL << 30);
			mcg_record_set(&rec[c], MCG_K_SWAPPINESS, 60);
			mcg_record_set(&rec[c], MCG_K_PGFAULT, (uint64_t)f * 100 * (uint64_t)(c + 1));
			mcg_record_set(&rec[c], MCG_K_NR_CHILDREN, 1);
		}
		memset(ev, 0, sizeof(ev));
		if (f == 3) {
			/* stored out of time order: an OOM kill at the sample, a change before it */
			ev[0] = (struct mcg_hist_event){.time_ns = t, .type = MCG_HEV_OOM_KILL,
							.cgroup = "/a/b", .count = 1, .uid = -1,
							.loginuid = -1, .pid = -1};
			ev[1] = (struct mcg_hist_event){.time_ns = t - 2 * NS, .type = MCG_HEV_CHANGE,
							.cgroup = "/a/b", .uid = 0, .loginuid = 1000,
							.pid = 42, .comm = "memcgctl",
							.op = "set-limit",
							.detail = "memory.max 1G -> 512M, \"now\""};
			nev = 2;
		} else if (f == 4) {
			ev[0] = (struct mcg_hist_event){.time_ns = t, .type = MCG_HEV_REMOVED,
							.cgroup = "/a/b", .uid = -1, .loginuid = -1,
							.pid = -1};
			ev[1] = (struct mcg_hist_event){.time_ns = t, .type = MCG_HEV_REMOVED,
							.cgroup = "/x,y\"z\n", .uid = -1, .loginuid = -1,
							.pid = -1};
			nev = 2;
		}
		if (mcg_hist_write(w, t, cg, n, ev, nev) < 0)
			return 1;
	}
	return mcg_hist_writer_close(w) < 0;
}
