/* info.c: one model of a memory cgroup, filled from v1 or v2 files; absent stays absent. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct field_desc {
	const char *name;
	bool bytes;
};

static const struct field_desc fields[MCG_F__COUNT] = {
	[MCG_F_USAGE] = {"usage", true},
	[MCG_F_PEAK] = {"peak", true},
	[MCG_F_LIMIT] = {"limit", true},
	[MCG_F_HIGH] = {"high", true},
	[MCG_F_LOW] = {"low", true},
	[MCG_F_MIN] = {"min", true},
	[MCG_F_SOFT] = {"soft_limit", true},
	[MCG_F_SWAP_USAGE] = {"swap_usage", true},
	[MCG_F_SWAP_LIMIT] = {"swap_limit", true},
	[MCG_F_MEMSW_USAGE] = {"memsw_usage", true},
	[MCG_F_MEMSW_LIMIT] = {"memsw_limit", true},
	[MCG_F_KMEM_USAGE] = {"kmem_usage", true},
	[MCG_F_FAILCNT] = {"failcnt", false},
	[MCG_F_EV_LOW] = {"events_low", false},
	[MCG_F_EV_HIGH] = {"events_high", false},
	[MCG_F_EV_MAX] = {"events_max", false},
	[MCG_F_EV_OOM] = {"events_oom", false},
	[MCG_F_EV_OOM_KILL] = {"events_oom_kill", false},
	[MCG_F_EV_OOM_GROUP_KILL] = {"events_oom_group_kill", false},
	[MCG_F_UNDER_OOM] = {"under_oom", false},
	[MCG_F_OOM_KILL_DISABLE] = {"oom_kill_disable", false},
	[MCG_F_SWAPPINESS] = {"swappiness", false},
	[MCG_F_EFFECTIVE_LIMIT] = {"effective_limit", true},
	[MCG_F_NR_PROCS] = {"nr_procs", false},
	[MCG_F_NR_CHILDREN] = {"nr_children", false},
};

const char *mcg_field_name(enum mcg_field f)
{
	return (unsigned)f < MCG_F__COUNT ? fields[f].name : NULL;
}

bool mcg_field_is_bytes(enum mcg_field f)
{
	return (unsigned)f < MCG_F__COUNT && fields[f].bytes;
}

static void set(struct mcg_info *i, enum mcg_field f, uint64_t v)
{
	i->f[f] = v;
	i->fvalid |= 1ULL << f;
}

static void read_field(const struct mcg_group *g, struct mcg_info *i, enum mcg_field f,
		       const char *knob)
{
	uint64_t v;

	if (mcg_knob_read_u64(g, knob, &v) == 0)
		set(i, f, v);
}

/* Keyed file (memory.events, memory.oom_control): copy KEY into field F if present. */
static void read_keyed(const char *text, struct mcg_info *i, enum mcg_field f, const char *key)
{
	uint64_t v;

	if (text && mcg_keyed_get(text, key, &v) == 0)
		set(i, f, v);
}

/* v2: the smallest memory.max from this group up to the root. */
static void v2_effective_limit(const struct mcg_group *g, struct mcg_info *i)
{
	char *path = strdup(g->path); /* any length: never a truncated, other cgroup's path */
	uint64_t eff = MCG_MAX;
	bool any = false;

	if (!path)
		return;
	while (strcmp(path, "/") && path[0]) {
		struct mcg_group *p;
		uint64_t v;
		char *slash;

		if (mcg_group_open(g->ctx, path, &p) == 0) {
			if (mcg_knob_read_u64(p, "memory.max", &v) == 0) {
				any = true;
				if (v < eff)
					eff = v;
			}
			mcg_group_close(p);
		}
		slash = strrchr(path, '/');
		if (!slash)
			break;
		if (slash == path)
			path[1] = '\0';
		else
			*slash = '\0';
	}
	free(path);
	if (any || !strcmp(g->path, "/"))
		set(i, MCG_F_EFFECTIVE_LIMIT, eff);
}

int mcg_group_info(const struct mcg_group *g, struct mcg_info *ret)
{
	struct mcg_info i = {0};
	char *text = NULL;
	unsigned n;
	int r;

	i.version = g->ctx->version;
	i.path = strdup(g->path);
	if (!i.path)
		return -ENOMEM;

	r = mcg__read_file_at(g->dirfd, "memory.stat", &text, NULL);
	if (r == 0) {
		r = mcg_stat_parse(text, i.version, &i.stat);
		if (r == 0 && i.version == 1 &&
		    mcg_keyed_get(text, "hierarchical_memory_limit", &i.f[MCG_F_EFFECTIVE_LIMIT]) == 0) {
			uint64_t v = i.f[MCG_F_EFFECTIVE_LIMIT];

			set(&i, MCG_F_EFFECTIVE_LIMIT, v >= mcg__v1_unlimited() ? MCG_MAX : v);
		}
		free(text);
		text = NULL;
		if (r < 0)
			goto fail;
	} else if (r != -ENOENT) {
		goto fail;
	}

	if (i.version == 2) {
		read_field(g, &i, MCG_F_USAGE, "memory.current");
		read_field(g, &i, MCG_F_PEAK, "memory.peak");
		read_field(g, &i, MCG_F_LIMIT, "memory.max");
		read_field(g, &i, MCG_F_HIGH, "memory.high");
		read_field(g, &i, MCG_F_LOW, "memory.low");
		read_field(g, &i, MCG_F_MIN, "memory.min");
		read_field(g, &i, MCG_F_SWAP_USAGE, "memory.swap.current");
		read_field(g, &i, MCG_F_SWAP_LIMIT, "memory.swap.max");
		if (mcg__read_file_at(g->dirfd, "memory.events", &text, NULL) == 0) {
			read_keyed(text, &i, MCG_F_EV_LOW, "low");
			read_keyed(text, &i, MCG_F_EV_HIGH, "high");
			read_keyed(text, &i, MCG_F_EV_MAX, "max");
			read_keyed(text, &i, MCG_F_EV_OOM, "oom");
			read_keyed(text, &i, MCG_F_EV_OOM_KILL, "oom_kill");
			read_keyed(text, &i, MCG_F_EV_OOM_GROUP_KILL, "oom_group_kill");
			free(text);
			text = NULL;
		}
		if (mcg_group_is_root(g))
			set(&i, MCG_F_LIMIT, MCG_MAX); /* the root has no memory.max: unlimited */
		v2_effective_limit(g, &i);
		if (mcg_info_has(&i, MCG_F_SWAP_USAGE)) {
			i.stat.v[MCG_S_SWAP] = i.f[MCG_F_SWAP_USAGE];
			i.stat.valid |= 1ULL << MCG_S_SWAP;
		}
	} else {
		read_field(g, &i, MCG_F_USAGE, "memory.usage_in_bytes");
		read_field(g, &i, MCG_F_PEAK, "memory.max_usage_in_bytes");
		read_field(g, &i, MCG_F_LIMIT, "memory.limit_in_bytes");
		read_field(g, &i, MCG_F_SOFT, "memory.soft_limit_in_bytes");
		read_field(g, &i, MCG_F_MEMSW_USAGE, "memory.memsw.usage_in_bytes");
		read_field(g, &i, MCG_F_MEMSW_LIMIT, "memory.memsw.limit_in_bytes");
		read_field(g, &i, MCG_F_KMEM_USAGE, "memory.kmem.usage_in_bytes");
		read_field(g, &i, MCG_F_FAILCNT, "memory.failcnt");
		read_field(g, &i, MCG_F_SWAPPINESS, "memory.swappiness");
		if (mcg_info_has(&i, MCG_F_MEMSW_USAGE) && mcg_info_has(&i, MCG_F_USAGE))
			set(&i, MCG_F_SWAP_USAGE,
			    i.f[MCG_F_MEMSW_USAGE] > i.f[MCG_F_USAGE]
				    ? i.f[MCG_F_MEMSW_USAGE] - i.f[MCG_F_USAGE]
				    : 0);
		if (mcg__read_file_at(g->dirfd, "memory.oom_control", &text, NULL) == 0) {
			read_keyed(text, &i, MCG_F_OOM_KILL_DISABLE, "oom_kill_disable");
			read_keyed(text, &i, MCG_F_UNDER_OOM, "under_oom");
			read_keyed(text, &i, MCG_F_EV_OOM_KILL, "oom_kill");
			free(text);
			text = NULL;
		}
		if (mcg_info_has(&i, MCG_F_KMEM_USAGE)) {
			i.stat.v[MCG_S_KERNEL] = i.f[MCG_F_KMEM_USAGE];
			i.stat.valid |= 1ULL << MCG_S_KERNEL;
		}
	}
	/* PSI: v2, or v1 kernels booted with psi=1 and cgroup1 pressure files. */
	if (mcg__read_file_at(g->dirfd, "memory.pressure", &text, NULL) == 0) {
		mcg_psi_parse(text, &i.psi);
		free(text);
		text = NULL;
	}
	if (mcg_group_nr_procs(g, &n) == 0)
		set(&i, MCG_F_NR_PROCS, n);
	if (mcg_group_nr_children(g, &n) == 0)
		set(&i, MCG_F_NR_CHILDREN, n);
	*ret = i;
	return 0;
fail:
	mcg_info_release(&i);
	return r;
}

void mcg_info_release(struct mcg_info *info)
{
	if (!info)
		return;
	free(info->path);
	info->path = NULL;
	mcg_stat_release(&info->stat);
}
