/* swap.c: the swap left on the machine (SwapFree of the context's meminfo), the one reader of it. */
#include "sys/sys.h"

#include <errno.h>

int mcg__swap_free(const struct mcg_ctx *ctx, uint64_t *ret)
{
	struct mcg_host h = {0};
	char buf[8192];
	int r = mcg__host_read(ctx, 1u << MCG_HS_MEMINFO, buf, sizeof(buf), &h);

	if (r == 0 && !h.valid) /* no line of it parses */
		r = -EINVAL;
	/* no line, or no number on it: unknown (a kernel without swap support has none) */
	if (r == 0 && !mcg_host_has(&h, MCG_G_SWAP_FREE))
		r = -ENOENT;
	if (r == 0)
		*ret = mcg_host_get(&h, MCG_G_SWAP_FREE);
	return r;
}
