/* reclaim.c: one bounded reclaim step, memory.reclaim on v2 and a journalled limit step on v1. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

int mcg_group_usage(const struct mcg_group *g, uint64_t *ret)
{
	return mcg_knob_read_u64(g, g->ctx->version == 2 ? "memory.current" : "memory.usage_in_bytes",
				 ret);
}

static int v2_step(struct mcg_group *g, uint64_t bytes, struct mcg_step *st)
{
	char buf[32];
	int r;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	r = mcg_knob_write(g, "memory.reclaim", buf);
	if (r == -EAGAIN) {
		st->short_ = true;
		st->kernel_err = EAGAIN;
		r = 0;
	}
	return r;
}

static int v1_step(struct mcg_txn *t, uint64_t bytes, struct mcg_step *st)
{
	struct mcg_group *g = mcg_txn_group(t);
	uint64_t ps = (uint64_t)mcg_page_size(), target;
	const char *orig;
	char buf[32];
	int r, r2, tries = 0;

	r = mcg_txn_save(t, "memory.limit_in_bytes");
	if (r < 0)
		return r;
	r = mcg__txn_saved(t, "memory.limit_in_bytes", &orig);
	if (r < 0)
		return r;
	target = st->usage_before > bytes ? (st->usage_before - bytes) / ps * ps : 0;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)target);
	/* Lowering the limit alone keeps limit <= memsw; the kernel reclaims here. */
	r = mcg_knob_write(g, "memory.limit_in_bytes", buf);
	if (r == -EBUSY) {
		st->short_ = true;
		st->kernel_err = EBUSY;
		r = 0;
	}
	/* Always put the original limit back, even after EINTR. */
	do {
		r2 = mcg_knob_write(g, "memory.limit_in_bytes", orig);
	} while (r2 == -EINTR && ++tries < 100);
	return r < 0 ? r : r2;
}

int mcg_reclaim_step(struct mcg_txn *t, uint64_t bytes, struct mcg_step *ret)
{
	struct mcg_group *g = mcg_txn_group(t);
	struct mcg_step st = {.asked = bytes};
	int r;

	r = mcg_group_usage(g, &st.usage_before);
	if (r < 0)
		return r;
	if (g->ctx->version == 2)
		r = v2_step(g, bytes, &st);
	else
		r = v1_step(t, bytes, &st);
	if (r < 0)
		return r;
	r = mcg_group_usage(g, &st.usage_after);
	if (r < 0)
		return r;
	*ret = st;
	return 0;
}
