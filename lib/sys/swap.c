/* swap.c: the swap left on the machine (SwapFree of the context's meminfo), the one reader of it. */
#include "sys/sys.h"

#include <errno.h>

int mcg__swap_free(const struct mcg_ctx *ctx, uint64_t *ret)
{
	struct mcg__meminfo m;
	int r = mcg__meminfo_read(ctx, &m);

	/* no line, or no number on it: unknown (a kernel without swap support has none) */
	if (r == 0 && !(m.valid & 1u << MCG__MI_SWAP_FREE))
		r = -ENOENT;
	if (r == 0)
		*ret = m.v[MCG__MI_SWAP_FREE];
	return r;
}
