/* swap.c: the swap left on the machine (SwapFree of the context's meminfo), the one reader of it. */
#include "sys/sys.h"

#include <errno.h>

int mcg__swap_free(const struct mcg_ctx *ctx, uint64_t *ret)
{
	struct mcg__meminfo m;
	int r = mcg__meminfo_read(ctx, &m);

	if (r < 0)
		return r;
	if (!(m.valid & 1u << MCG__MI_SWAP_FREE))
		return -ENOENT;
	*ret = m.v[MCG__MI_SWAP_FREE];
	return 0;
}
