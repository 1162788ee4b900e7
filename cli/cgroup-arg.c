/* cgroup-arg.c: a CGROUP argument that may name a systemd unit: the message when it does not resolve. */
#include "cgroup-arg.h"
#include "output.h"

#include <string.h>

int cli_open_cgroup(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	char why[256], *cg = NULL;
	int r, e;

	if (!ctx)
		return -MCG_E_NOCONTROLLER; /* cli_ctx() said why */
	if (!mcg_unit_spec(ctx, spec))
		return cli_open_group(cli, spec, ret);
	r = mcg_group_open(ctx, spec, ret);
	if (r == 0)
		return 0;
	/* the resolution again, for its reason (the library's call keeps none) */
	e = mcg_unit_resolve(ctx, spec, &cg, why, sizeof(why));
	if (e < 0) {
		cli_err("cannot resolve unit '%s': %s", out_esc(spec), why);
		return e == -EHOSTDOWN || e == -ENOENT || e == -ENOMEDIUM || e == -EINVAL ? -ENOENT
											  : e;
	}
	cli_err("cannot open cgroup '%s' of unit '%s': %s", out_esc(cg), out_esc(spec),
		r == -ENOENT ? "no such cgroup" : mcg_strerror(r));
	free(cg);
	return r;
}
