/*
 * fuzz_spool.c: the event spool parser (mcg_hist_spool_parse), which record runs as
 * root on the lines any memcgctl appended to RUNDIR/history-events. The input is a
 * spool file, taken line by line as mcg_hist_spool_take() takes it: every line
 * accepted is one mcg_hist_spool_format() writes (written back, the same bytes),
 * and its strings lie in the store given, within the room the take loop allows.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), *store = malloc(size + 1), *out = malloc(8192);
	size_t i, o = 0;

	if (!buf || !store || !out)
		abort();
	memcpy(buf, data, size);
	for (i = 0; i < size;) {
		char *nl = memchr(buf + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : size - i;
		struct mcg_hist_event ev;
		const char *s[4];
		int k, r;

		r = mcg_hist_spool_parse(buf + i, n, &ev, store + o, size + 1 - o);
		FZ_CHECK(r == 0 || r == -MCG_E_CORRUPT, "mcg_hist_spool_parse returned %d", r);
		if (r == 0) {
			FZ_CHECK(ev.type == MCG_HEV_CHANGE, "type %d", ev.type);
			FZ_CHECK(ev.op && ev.cgroup && ev.cgroup[0] == '/', "no op or cgroup path");
			FZ_CHECK(ev.uid >= -1 && ev.loginuid >= -1 && ev.pid >= -1,
				 "an id below -1");
			s[0] = ev.comm;
			s[1] = ev.op;
			s[2] = ev.cgroup;
			s[3] = ev.detail;
			for (k = 0; k < 4; k++) {
				if (!s[k])
					continue;
				/* the take loop gives the next line the room past N + 1 */
				FZ_CHECK(s[k] >= store + o &&
						 s[k] + strlen(s[k]) < store + o + n + 1,
					 "field %d outside its line's room", k);
			}
			/* short lines fit every buffer of the formatter: exactly the line again */
			if (n < 120) {
				int m = mcg_hist_spool_format(&ev, out, 8192);

				FZ_CHECK(
					m == (int)n + 1 && !memcmp(out, buf + i, n) &&
						out[n] == '\n',
					"accepted a line the formatter writes otherwise:\n%.*s\n%s",
					(int)n, buf + i, m > 0 ? out : "(error)");
			}
			if (nl)
				o += n + 1;
		}
		i += n + 1;
	}
	free(out);
	free(store);
	free(buf);
	return 0;
}
