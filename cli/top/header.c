/* header.c: the host lines of top's header (memory, dirty, reclaim and PSI, stall), the same for top -b and the live view, from MCG_HOST. */
#include "top/header.h"

#include <stdio.h>

#include "top/model.h"

/* LABEL and the value of ID, "-" when absent, appended to L at *AT. */
static void put(char *l, size_t *at, const char *sep, const struct mcg_host *h,
		enum mcg_global_id id)
{
	char v[16];
	int n;

	if (mcg_host_has(h, id))
		top_fmt_size((double)mcg_host_get(h, id), v, sizeof(v));
	n = snprintf(l + *at, TOP_HEADER_WIDTH - *at, "%s%s %s", sep, mcg_host_desc(id)->header,
		     mcg_host_has(h, id) ? v : "-");
	if (n > 0)
		*at += (size_t)n < TOP_HEADER_WIDTH - *at ? (size_t)n : TOP_HEADER_WIDTH - 1 - *at;
}

static void put_psi(char *l, size_t *at, const struct mcg_host *h, enum mcg_global_id id)
{
	int n;

	if (mcg_host_has(h, id))
		n = snprintf(l + *at, TOP_HEADER_WIDTH - *at, " %s %.2f", mcg_host_desc(id)->header,
			     mcg_host_percent(h, id));
	else
		n = snprintf(l + *at, TOP_HEADER_WIDTH - *at, " %s -", mcg_host_desc(id)->header);
	if (n > 0)
		*at += (size_t)n < TOP_HEADER_WIDTH - *at ? (size_t)n : TOP_HEADER_WIDTH - 1 - *at;
}

void top_header_host(const struct mcg_snapshot *s, bool taskstats, const char *key_hint,
		     struct top_header *ret)
{
	const struct mcg_sample_global *g = &s->global;
	const struct mcg_host *h = &g->host;
	char a[16], b[16], *l;
	size_t at;

	ret->n = 0;
	if (mcg_host_has(h, MCG_G_MEM_TOTAL)) {
		l = ret->line[ret->n++];
		at = (size_t)snprintf(l, TOP_HEADER_WIDTH, "memory:");
		put(l, &at, " ", h, MCG_G_MEM_TOTAL);
		put(l, &at, ", ", h, MCG_G_MEM_AVAILABLE);
		put(l, &at, ", ", h, MCG_G_MEM_FREE);
	}
	if (mcg_host_has(h, MCG_G_DIRTY)) {
		l = ret->line[ret->n++];
		top_fmt_size((double)mcg_host_get(h, MCG_G_DIRTY), a, sizeof(a));
		at = (size_t)snprintf(l, TOP_HEADER_WIDTH, "dirty: %s of", a);
		put(l, &at, " ", h, MCG_G_DIRTY_THRESH);
		put(l, &at, " (", h, MCG_G_DIRTY_BG_THRESH);
		put(l, &at, "), ", h, MCG_G_WRITEBACK);
	}
	/* the pages reclaim took per second: steal, by kswapd and directly */
	l = ret->line[ret->n++];
	if ((g->rate_valid >> MCG_G_PGSTEAL_KSWAPD) & 1) {
		top_fmt_size(g->rate[MCG_G_PGSTEAL_KSWAPD] * (double)s->page_size, a, sizeof(a));
		top_fmt_size(g->rate[MCG_G_PGSTEAL_DIRECT] * (double)s->page_size, b, sizeof(b));
	} else {
		snprintf(a, sizeof(a), "-");
		snprintf(b, sizeof(b), "-");
	}
	at = (size_t)snprintf(l, TOP_HEADER_WIDTH, "reclaim/s: %s %s, %s %s; psi",
			      mcg_host_desc(MCG_G_PGSTEAL_KSWAPD)->header, a,
			      mcg_host_desc(MCG_G_PGSTEAL_DIRECT)->header, b);
	put_psi(l, &at, h, MCG_G_PSI_SOME_AVG10);
	put_psi(l, &at, h, MCG_G_PSI_FULL_AVG10);
	if (g->delayacct == 0)
		snprintf(ret->line[ret->n++], TOP_HEADER_WIDTH,
			 "stall: delay accounting is off (kernel.task_delayacct=0): not measured%s",
			 key_hint);
	else if (taskstats && !s->taskstats)
		snprintf(ret->line[ret->n++], TOP_HEADER_WIDTH, "stall: not measured: %s",
			 mcg_strerror(s->taskstats_err));
}
