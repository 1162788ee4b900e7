/*
 * mk-events.c: a history store of N set-limit events on N cgroups (/c0000, /c0001, ...), one
 * a millisecond from T0 (2025-11-30T10:53:20Z) in frames of 100, for the series limit of
 * export --families store (tests/cli/export-store/check.sh). Written with the library's writer.
 * usage: mk-events DIR N
 */
#include <memcg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000ULL
#define MS 1000000ULL
#define T0 (1764500000ULL * NS)
#define PER_FRAME 100

int main(int argc, char **argv)
{
	struct mcg_hist_opts o = {0};
	struct mcg_hist_writer *w;
	struct mcg_record rec;
	struct mcg_hist_cgroup cg = {"/", 1, &rec, NULL};
	static struct mcg_hist_event ev[PER_FRAME];
	static char names[PER_FRAME][32];
	long n, i, f;

	if (argc != 3 || (n = atol(argv[2])) < 0)
		return 2;
	o.dir = argv[1];
	memset(&rec, 0, sizeof(rec));
	mcg_record_set(&rec, MCG_K_USAGE, 1048576);
	if (mcg_hist_writer_open(&o, 1, "/sys/fs/cgroup/memory", &w) < 0)
		return 1;
	for (f = 0; f * PER_FRAME < n || f == 0; f++) {
		size_t nev = 0;

		for (i = f * PER_FRAME; i < n && i < (f + 1) * PER_FRAME; i++, nev++) {
			snprintf(names[nev], sizeof(names[nev]), "/c%04ld", i);
			ev[nev] = (struct mcg_hist_event){.time_ns = T0 + (uint64_t)i * MS,
							  .type = MCG_HEV_CHANGE, .cgroup = names[nev],
							  .uid = 0, .loginuid = -1, .pid = 1,
							  .comm = "memcgctl", .op = "set-limit",
							  .detail = "memory.limit_in_bytes max -> 1G"};
		}
		if (mcg_hist_write(w, T0 + (uint64_t)(f + 1) * PER_FRAME * MS, &cg, 1, ev, nev) < 0)
			return 1;
	}
	return mcg_hist_writer_close(w) < 0;
}
