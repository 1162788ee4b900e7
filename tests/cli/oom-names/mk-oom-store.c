/*
 * mk-oom-store.c: a history store for tests/cli/oom-names/check.sh, written with the
 * library's writer: three frames 5 s apart from T0 (2025-11-30T10:53:20Z) of "/" and
 * "/docker/0123abcd" (named docker:gone, removed after the second frame), a set-limit change
 * on it 10 s before an OOM kill in it (stored as its autopsy), an early warning 5 s before,
 * and one more autopsy whose cgroup is "/other".
 * usage: mk-oom-store DIR
 */
#include <memcg.h>

#include <stdio.h>
#include <string.h>

#define NS 1000000000ULL
#define T0 (1764500000ULL * NS)

static struct mcg_oom_autopsy au[2];
static struct mcg_oom_warning wn;
static char text[3][16384];

int main(int argc, char **argv)
{
	struct mcg_hist_opts o = {.key_every = 3};
	struct mcg_hist_writer *w;
	struct mcg_record rec[2];
	struct mcg_hist_cgroup cg[2] = {{"/", 1, &rec[0], NULL},
					{"/docker/0123abcd", 2, &rec[1], "docker:gone"}};
	struct mcg_hist_event ev[3];
	int f, c, i;

	if (argc != 2)
		return 2;
	o.dir = argv[1];
	for (i = 0; i < 2; i++) {
		struct mcg_oom_autopsy *a = &au[i];

		a->time_ns = T0 + 10 * NS + (uint64_t)i;
		a->scope = MCG_OOM_SCOPE_MEMCG;
		snprintf(a->oom_cgroup, sizeof(a->oom_cgroup), "%s", i ? "/other" : "/docker/0123abcd");
		snprintf(a->victim_cgroup, sizeof(a->victim_cgroup), "%s", i ? "/other" : "/docker/0123abcd");
		a->pid = 4242 + i;
		a->uid = 0;
		snprintf(a->comm, sizeof(a->comm), "%s", i ? "other" : "hog");
		a->anon_rss = 32ULL << 20;
		a->limit = a->swap_limit = MCG_MAX;
		snprintf(a->why, sizeof(a->why), "test autopsy %d", i);
	}
	if (mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w) < 0)
		return 1;
	for (f = 0; f < 3; f++) {
		uint64_t t = T0 + (uint64_t)f * 5 * NS;
		size_t nev = 0, n = f >= 2 ? 1 : 2;

		for (c = 0; c < 2; c++) {
			memset(&rec[c], 0, sizeof(rec[c]));
			mcg_record_set(&rec[c], MCG_K_USAGE, (uint64_t)(c + 1) * 1048576);
		}
		memset(ev, 0, sizeof(ev));
		if (f == 0) {
			ev[0] = (struct mcg_hist_event){.time_ns = t, .type = MCG_HEV_CHANGE,
							.cgroup = "/docker/0123abcd", .uid = 0,
							.loginuid = 1000, .pid = 42, .comm = "memcgctl",
							.op = "set-limit",
							.detail = "memory.max max -> 32M"};
			nev = 1;
		} else if (f == 1) {
			/* the early warning before the kill */
			wn.time_ns = t;
			snprintf(wn.cgroup, sizeof(wn.cgroup), "/docker/0123abcd");
			wn.usage = wn.limit = 32ULL << 20;
			wn.limit_name = "memory.max";
			wn.signal = "max";
			wn.events = 12;
			wn.interval_us = 100000;
			snprintf(wn.why, sizeof(wn.why), "test warning");
			if (mcg_oom_warning_to_event(&wn, &ev[0], text[2], sizeof(text[2])) < 0)
				return 1;
			nev = 1;
		} else if (f == 2) {
			for (i = 0; i < 2; i++)
				if (mcg_oom_autopsy_to_event(&au[i], &ev[i], text[i], sizeof(text[i])) < 0)
					return 1;
			nev = 2;
		}
		if (mcg_hist_write(w, t, cg, n, ev, nev) < 0)
			return 1;
	}
	return mcg_hist_writer_close(w) < 0;
}
