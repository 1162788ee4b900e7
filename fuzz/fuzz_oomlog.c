/* fuzz_oomlog.c: /dev/kmsg records through the OOM report assembler, the line parsers, and the autopsy's event text back. */
#include "fuzz.h"

/*
 * The input is records separated by newlines (each fed as one read() of
 * /dev/kmsg would give it). Every kill the parser makes must have sane fields;
 * its autopsy written as a history event must parse back to the same; and
 * every input line is also fed to the event parser as an autopsy's detail.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mcg_oom_kill k, k2;
	static struct mcg_oom_autopsy a, b;
	static char evbuf[1 << 16];
	struct mcg_oom_parser *p;
	struct mcg_hist_event ev;
	const char *s, *end;
	char *text;

	if (size > 1 << 16)
		return -1;
	text = fz_str(data, size);
	FZ_CHECK(mcg_oom_parser_new(&p) == 0, "parser_new");
	end = text + strlen(text);
	for (s = text; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		int r = mcg_oom_parser_record(p, s, n);

		FZ_CHECK(r == 0 || r == 1 || r == -EINVAL, "parser_record: %d", r);
		if (r == 1) {
			FZ_CHECK(mcg_oom_parser_take(p, &k) == 0, "ready but nothing to take");
			FZ_CHECK(k.pid >= 0 && k.pid <= INT32_MAX, "pid %lld", (long long)k.pid);
			FZ_CHECK(k.uid >= -1 && k.uid <= UINT32_MAX, "uid %lld", (long long)k.uid);
			FZ_CHECK(strlen(k.comm) < sizeof(k.comm) &&
					 strlen(k.oom_memcg) < sizeof(k.oom_memcg) &&
					 strlen(k.task_memcg) < sizeof(k.task_memcg),
				 "unterminated string");
			FZ_CHECK(k.ntasks <= MCG_OOM_TASKS && k.stat_len < sizeof(k.stat) &&
					 strlen(k.stat) == k.stat_len,
				 "tasks %zu stat %zu", k.ntasks, k.stat_len);
			FZ_CHECK(k.oom_score_adj >= -1000 && k.oom_score_adj <= 1000, "adj");
			mcg_oom_autopsy_build(&k, 1 + (k.seq & 1), NULL, 0, 0, &a);
			if (mcg_oom_autopsy_to_event(&a, &ev, evbuf, sizeof(evbuf)) == 0) {
				FZ_CHECK(!strchr(ev.detail, '\n') && !strchr(ev.detail, '\t'),
					 "a control byte in the event text");
				FZ_CHECK(mcg_oom_autopsy_from_event(&ev, &b) == 0,
					 "the event written does not parse: %s", ev.detail);
				FZ_CHECK(!strcmp(a.oom_cgroup, b.oom_cgroup) &&
						 !strcmp(a.victim_cgroup, b.victim_cgroup) &&
						 !strcmp(a.why, b.why) && a.usage == b.usage &&
						 a.limit == b.limit && a.anon_rss == b.anon_rss &&
						 a.nprocs == b.nprocs &&
						 (!a.nprocs || (a.procs[0].pid == b.procs[0].pid &&
								!strcmp(a.procs[0].name, b.procs[0].name))),
					 "the event does not give the autopsy back");
			}
		}
		/* the line parsers alone, and the line as an event's text */
		memset(&k2, 0, sizeof(k2));
		mcg_oom_parse_killed(s, n, &k2);
		mcg_oom_parse_summary(s, n, &k2);
		{
			char *d = strndup(s, n);

			memset(&ev, 0, sizeof(ev));
			ev.type = MCG_HEV_OOM_AUTOPSY;
			ev.detail = d;
			if (d && mcg_oom_autopsy_from_event(&ev, &b) == 0)
				FZ_CHECK(strlen(b.why) < sizeof(b.why), "why unterminated");
			free(d);
		}
		s += n + 1;
	}
	mcg_oom_parser_free(p);
	free(text);
	return 0;
}
