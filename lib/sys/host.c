/* host.c: the one reader of the host-wide counters of MCG_HOST (/proc/meminfo, /proc/vmstat, /proc/pressure/memory): each file read once, its keys picked in one pass. */
#include "sys/sys.h"

#include <errno.h>

/* mcg__kv_pick takes at most 32 keys of one file */
_Static_assert(MCG_G__COUNT <= 32, "more rows than mcg__kv_pick can pick");

static const struct mcg_host_desc descs[MCG_G__COUNT] = {
#define MCG__HOST_DESC(id, src, key, unit, json, header, om, rate)                                 \
	[MCG_G_##id] = {MCG_HS_##src, key, MCG_HU_##unit, json, header, om, rate},
	MCG_HOST(MCG__HOST_DESC)
#undef MCG__HOST_DESC
};

const struct mcg_host_desc *mcg_host_desc(enum mcg_global_id id)
{
	return (unsigned)id < MCG_G__COUNT ? &descs[id] : NULL;
}

static const char *const src_file[MCG_HS__COUNT] = {
	[MCG_HS_MEMINFO] = "meminfo",
	[MCG_HS_VMSTAT] = "vmstat",
	[MCG_HS_PSI] = "pressure/memory",
};

/* A value in the unit kept, false when it does not fit (no value, not a wrapped one). */
static bool keep(enum mcg_host_unit u, uint64_t raw, uint64_t page_size, uint64_t *ret)
{
	uint64_t m = u == MCG_HU_KB ? 1024 : u == MCG_HU_PAGES ? page_size : 1;

	if (m > 1 && raw > UINT64_MAX / m)
		return false;
	*ret = raw * m;
	return true;
}

/* PSI's avg10 in hundredths, as history has always rounded it. */
static void psi_rows(const char *text, struct mcg_host *h)
{
	struct mcg_psi psi;

	if (mcg__psi_parse(text, &psi) < 0)
		return;
	if (psi.some_valid) {
		h->v[MCG_G_PSI_SOME_AVG10] = (uint64_t)(psi.some.avg10 * 100 + 0.5);
		h->valid |= 1ULL << MCG_G_PSI_SOME_AVG10;
	}
	if (psi.full_valid) {
		h->v[MCG_G_PSI_FULL_AVG10] = (uint64_t)(psi.full.avg10 * 100 + 0.5);
		h->valid |= 1ULL << MCG_G_PSI_FULL_AVG10;
	}
}

int mcg__host_parse(enum mcg_host_src src, const char *text, uint64_t page_size, struct mcg_host *h)
{
	struct mcg__kv_want w[MCG_G__COUNT];
	unsigned char id[MCG_G__COUNT];
	uint64_t raw[MCG_G__COUNT], before = h->valid;
	unsigned found, i, n = 0;

	if (src == MCG_HS_PSI) {
		psi_rows(text, h);
	} else {
		for (i = 0; i < MCG_G__COUNT; i++) {
			if (descs[i].src != src)
				continue;
			w[n].key = descs[i].key;
			id[n++] = (unsigned char)i;
		}
		found = mcg__kv_pick(text, w, n, raw);
		for (i = 0; i < n; i++)
			if ((found >> i) & 1 &&
			    keep(descs[id[i]].unit, raw[i], page_size, &h->v[id[i]]))
				h->valid |= 1ULL << id[i];
	}
	return h->valid != before ? 0 : -EINVAL;
}

int mcg__host_read(const struct mcg_ctx *ctx, unsigned sources, char *buf, size_t len,
		   struct mcg_host *h)
{
	uint64_t ps = (uint64_t)mcg_page_size();
	int r = 0;
	unsigned s;

	for (s = 0; s < MCG_HS__COUNT; s++) {
		ssize_t n;

		if (!((sources >> s) & 1))
			continue;
		n = mcg_proc_read(ctx, src_file[s], buf, len);
		if (n < 0) {
			if (r == 0)
				r = (int)n;
			continue;
		}
		mcg__host_parse((enum mcg_host_src)s, buf, ps, h);
	}
	return r;
}

/* MemTotal of the context's meminfo (the size of a percent of the machine). */
int mcg_mem_total(const struct mcg_ctx *ctx, uint64_t *ret)
{
	struct mcg_host h = {0};
	char buf[8192];
	int r = mcg__host_read(ctx, 1u << MCG_HS_MEMINFO, buf, sizeof(buf), &h);

	if (r < 0)
		return r;
	if (!mcg_host_has(&h, MCG_G_MEM_TOTAL))
		return -EINVAL;
	*ret = mcg_host_get(&h, MCG_G_MEM_TOTAL);
	return 0;
}
