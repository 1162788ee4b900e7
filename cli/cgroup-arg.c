/* cgroup-arg.c: a CGROUP argument that may name a systemd unit: the message when it does not resolve. */
#include "cgroup-arg.h"
#include "containers.h"
#include "output.h"

#include <string.h>

int cli_open_cgroup(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	char why[256], *cg = NULL;
	int r, e;

	if (!ctx)
		return -MCG_E_NOCONTROLLER; /* cli_ctx() said why */
	if (mcg_container_spec(spec))
		return cli_open_container(cli, spec, ret);
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

int cli_open_group(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_ctx *ctx = cli_ctx(cli);
	int r;

	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	/* a container or pod ("docker:web"): its message when it does not resolve */
	if (mcg_container_spec(spec))
		return cli_open_container(cli, spec, ret);
	/* a systemd unit ("web.service"): its message when it does not resolve */
	if (mcg_unit_spec(ctx, spec))
		return cli_open_cgroup(cli, spec, ret);
	r = mcg_group_open(ctx, spec, ret);
	/* SPEC is printed escaped: it may be a name pasted from anywhere */
	if (r == -ENOENT)
		cli_err("cannot open cgroup '%s': no such cgroup under %s", out_esc(spec),
			out_esc(mcg_ctx_root(ctx)));
	else if (r == -ESRCH)
		cli_err("cannot open cgroup '%s': no such process", out_esc(spec));
	else if (r == -EINVAL && !strncmp(spec, "pid:", 4))
		cli_err("cannot open cgroup '%s': not a process id", out_esc(spec));
	else if (r == -ENAMETOOLONG) {
		char head[72]; /* the start of it: mcg_escape never cuts a character */

		mcg_escape(spec, head, sizeof(head));
		cli_err("cannot open cgroup '%s...': name too long (a name over %d bytes or a "
			"path over %d)",
			head, NAME_MAX, MCG_PATH_MAX);
	}
	else if (r < 0)
		cli_err("cannot open cgroup '%s': %s", out_esc(spec), mcg_strerror(r));
	return r;
}
