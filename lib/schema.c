/*
 * schema.c: the one table of counters (MCG_SCHEMA in memcg/schema.h) as
 * descriptors, the file per version of each counter (mcg_knob_file), the
 * record parser and the counters derived from others, and the pure verdicts
 * over a record. The old per-command views (MCG_F_, MCG_S_, MCG_C_) are
 * mapped onto it at the end of this file (compat, to be removed).
 */
#include "internal.h"

#include <string.h>

_Static_assert(MCG_K__COUNT <= 64, "struct mcg_record's validity mask holds 64 counters");

static const struct mcg_key_desc keys[MCG_K__COUNT] = {
#define MCG__SCHEMA_DESC(id, nm, u, k, f1, k1, f2, k2)                                             \
	[MCG_K_##id] = {.name = nm,                                                                 \
			.unit = MCG_UNIT_##u,                                                       \
			.kind = MCG_KIND_##k,                                                       \
			.file = {f1, f2},                                                           \
			.key = {k1, k2}},
	MCG_SCHEMA(MCG__SCHEMA_DESC)
#undef MCG__SCHEMA_DESC
};

const struct mcg_key_desc *mcg_key_desc(enum mcg_key k)
{
	return (unsigned)k < MCG_K__COUNT ? &keys[k] : NULL;
}

const char *mcg_key_name(enum mcg_key k)
{
	return (unsigned)k < MCG_K__COUNT ? keys[k].name : NULL;
}

const char *mcg_unit_suffix(enum mcg_unit u)
{
	switch (u) {
	case MCG_UNIT_BYTES:
		return "_bytes";
	case MCG_UNIT_PAGES:
		return "_pages";
	case MCG_UNIT_US:
		return "_us";
	case MCG_UNIT_NS:
		return "_ns";
	case MCG_UNIT_EVENTS:
	case MCG_UNIT_NUMBER:
		break;
	}
	return "";
}

int mcg_key_lookup(const char *name)
{
	unsigned k;

	for (k = 0; k < MCG_K__COUNT; k++)
		if (!strcmp(keys[k].name, name))
			return (int)k;
	return -ENOENT;
}

const char *mcg_knob_file(int version, enum mcg_key k)
{
	if ((version != 1 && version != 2) || (unsigned)k >= MCG_K__COUNT)
		return NULL;
	return keys[k].file[version - 1];
}

int mcg_record_parse(struct mcg_record *r, int version, const char *file, const char *text)
{
	struct mcg__plan p;
	unsigned f;
	int ret;

	ret = mcg__plan_init(&p, version, ~0ULL, MCG__PLAN_V1_LOCAL);
	if (ret < 0)
		return ret;
	for (f = 0; f < p.nf; f++) {
		if (!strcmp(p.f[f].name, file)) {
			mcg__plan_parse(&p, f, text, r);
			return 0;
		}
	}
	return -ENOENT;
}

static void set(struct mcg_record *r, enum mcg_key k, uint64_t v)
{
	r->v[k] = v;
	r->valid |= 1ULL << k;
}

void mcg_record_derive(struct mcg_record *r, int version, bool root)
{
	/* refaults: anon + file (5.9 on), else the one key before */
	if (mcg_record_has(r, MCG_K_WORKINGSET_REFAULT_ANON) ||
	    mcg_record_has(r, MCG_K_WORKINGSET_REFAULT_FILE))
		set(r, MCG_K_REFAULT, mcg_record_get(r, MCG_K_WORKINGSET_REFAULT_ANON, 0) +
					      mcg_record_get(r, MCG_K_WORKINGSET_REFAULT_FILE, 0));
	else if (mcg_record_has(r, MCG_K_WORKINGSET_REFAULT))
		set(r, MCG_K_REFAULT, r->v[MCG_K_WORKINGSET_REFAULT]);
	if (version == 2) {
		/* the root has no memory.max: unlimited */
		if (root && !mcg_record_has(r, MCG_K_LIMIT))
			set(r, MCG_K_LIMIT, MCG_MAX);
	} else if (mcg_record_has(r, MCG_K_MEMSW_USAGE) && mcg_record_has(r, MCG_K_USAGE)) {
		set(r, MCG_K_SWAP_USAGE, r->v[MCG_K_MEMSW_USAGE] > r->v[MCG_K_USAGE]
						 ? r->v[MCG_K_MEMSW_USAGE] - r->v[MCG_K_USAGE]
						 : 0);
	}
}

/* ---- verdicts ---------------------------------------------------------- */

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

uint64_t mcg_floor_from_record(const struct mcg_record *r, int version, uint64_t swap_headroom)
{
	uint64_t kernel = 0, swapbacked, unevictable = mcg_record_get(r, MCG_K_UNEVICTABLE, 0);

	if (version == 2)
		/* reclaimable slab goes with the shrinkers; the rest stays */
		kernel = sat_sub(mcg_record_get(r, MCG_K_KERNEL, 0),
				 mcg_record_get(r, MCG_K_SLAB_RECLAIMABLE, 0));
	/*
	 * v1 does not split kernel memory into reclaimable and not: a shrink that
	 * meets what is not gets EBUSY. Mlocked pages are counted in anon/file
	 * and in unevictable: the larger of the two.
	 */
	swapbacked = sat_sub(mcg_record_get(r, MCG_K_ANON, 0) + mcg_record_get(r, MCG_K_SHMEM, 0),
			     swap_headroom);
	return kernel + (swapbacked > unevictable ? swapbacked : unevictable);
}

uint64_t mcg_reclaimable_from_record(const struct mcg_record *r, bool swap)
{
	uint64_t b = 0;

	if (mcg_record_has(r, MCG_K_INACTIVE_FILE) && mcg_record_has(r, MCG_K_ACTIVE_FILE))
		b = r->v[MCG_K_INACTIVE_FILE] + r->v[MCG_K_ACTIVE_FILE];
	else if (mcg_record_has(r, MCG_K_FILE))
		b = r->v[MCG_K_FILE] - (mcg_record_has(r, MCG_K_SHMEM) &&
						r->v[MCG_K_SHMEM] < r->v[MCG_K_FILE]
					? r->v[MCG_K_SHMEM]
					: 0);
	if (swap && mcg_record_has(r, MCG_K_INACTIVE_ANON) && mcg_record_has(r, MCG_K_ACTIVE_ANON))
		b += r->v[MCG_K_INACTIVE_ANON] + r->v[MCG_K_ACTIVE_ANON];
	return b;
}

/*
 * ---- compat views (remove when cli/ and lib/limit.c, empty.c, reclaimd.c
 * use enum mcg_key): the old enums index the old structs; each slot is a
 * counter of the table, under its old name where that differs. ----
 */
struct view {
	unsigned char k;
	const char *old_name; /* NULL: the base name */
};

static const struct view mcg__field_view[MCG_F__COUNT] = {
	[MCG_F_USAGE] = {MCG_K_USAGE, NULL},
	[MCG_F_PEAK] = {MCG_K_PEAK, NULL},
	[MCG_F_LIMIT] = {MCG_K_LIMIT, NULL},
	[MCG_F_HIGH] = {MCG_K_HIGH, NULL},
	[MCG_F_LOW] = {MCG_K_LOW, NULL},
	[MCG_F_MIN] = {MCG_K_MIN, NULL},
	[MCG_F_SOFT] = {MCG_K_SOFT_LIMIT, NULL},
	[MCG_F_SWAP_USAGE] = {MCG_K_SWAP_USAGE, "swap_usage"},
	[MCG_F_SWAP_LIMIT] = {MCG_K_SWAP_LIMIT, NULL},
	[MCG_F_MEMSW_USAGE] = {MCG_K_MEMSW_USAGE, "memsw_usage"},
	[MCG_F_MEMSW_LIMIT] = {MCG_K_MEMSW_LIMIT, NULL},
	[MCG_F_KMEM_USAGE] = {MCG_K_KMEM_USAGE, "kmem_usage"},
	[MCG_F_FAILCNT] = {MCG_K_FAILCNT, NULL},
	[MCG_F_EV_LOW] = {MCG_K_EV_LOW, NULL},
	[MCG_F_EV_HIGH] = {MCG_K_EV_HIGH, NULL},
	[MCG_F_EV_MAX] = {MCG_K_EV_MAX, NULL},
	[MCG_F_EV_OOM] = {MCG_K_EV_OOM, NULL},
	[MCG_F_EV_OOM_KILL] = {MCG_K_EV_OOM_KILL, NULL},
	[MCG_F_EV_OOM_GROUP_KILL] = {MCG_K_EV_OOM_GROUP_KILL, NULL},
	[MCG_F_UNDER_OOM] = {MCG_K_UNDER_OOM, NULL},
	[MCG_F_OOM_KILL_DISABLE] = {MCG_K_OOM_KILL_DISABLE, NULL},
	[MCG_F_SWAPPINESS] = {MCG_K_SWAPPINESS, NULL},
	[MCG_F_EFFECTIVE_LIMIT] = {MCG_K_EFFECTIVE_LIMIT, NULL},
	[MCG_F_NR_PROCS] = {MCG_K_NR_PROCS, NULL},
	[MCG_F_NR_CHILDREN] = {MCG_K_NR_CHILDREN, NULL},
};

static const struct view mcg__stat_view[MCG_S__COUNT] = {
	[MCG_S_ANON] = {MCG_K_ANON, NULL},
	[MCG_S_FILE] = {MCG_K_FILE, NULL},
	[MCG_S_KERNEL] = {MCG_K_KERNEL, NULL},
	[MCG_S_SHMEM] = {MCG_K_SHMEM, NULL},
	[MCG_S_FILE_MAPPED] = {MCG_K_FILE_MAPPED, NULL},
	[MCG_S_FILE_DIRTY] = {MCG_K_DIRTY, "file_dirty"},
	[MCG_S_FILE_WRITEBACK] = {MCG_K_WRITEBACK, "file_writeback"},
	[MCG_S_ANON_THP] = {MCG_K_ANON_THP, NULL},
	[MCG_S_INACTIVE_ANON] = {MCG_K_INACTIVE_ANON, NULL},
	[MCG_S_ACTIVE_ANON] = {MCG_K_ACTIVE_ANON, NULL},
	[MCG_S_INACTIVE_FILE] = {MCG_K_INACTIVE_FILE, NULL},
	[MCG_S_ACTIVE_FILE] = {MCG_K_ACTIVE_FILE, NULL},
	[MCG_S_UNEVICTABLE] = {MCG_K_UNEVICTABLE, NULL},
	[MCG_S_SLAB] = {MCG_K_SLAB, NULL},
	[MCG_S_SLAB_RECLAIMABLE] = {MCG_K_SLAB_RECLAIMABLE, NULL},
	[MCG_S_SWAP] = {MCG_K_SWAP, "swap"},
	[MCG_S_WORKINGSET_REFAULT_ANON] = {MCG_K_WORKINGSET_REFAULT_ANON, NULL},
	[MCG_S_WORKINGSET_REFAULT_FILE] = {MCG_K_WORKINGSET_REFAULT_FILE, NULL},
	[MCG_S_WORKINGSET_ACTIVATE_FILE] = {MCG_K_WORKINGSET_ACTIVATE_FILE, NULL},
	[MCG_S_PGFAULT] = {MCG_K_PGFAULT, NULL},
	[MCG_S_PGMAJFAULT] = {MCG_K_PGMAJFAULT, NULL},
	[MCG_S_PGPGIN] = {MCG_K_PGPGIN, NULL},
	[MCG_S_PGPGOUT] = {MCG_K_PGPGOUT, NULL},
	[MCG_S_PGSCAN] = {MCG_K_PGSCAN, NULL},
	[MCG_S_PGSTEAL] = {MCG_K_PGSTEAL, NULL},
	[MCG_S_PGSCAN_KSWAPD] = {MCG_K_PGSCAN_KSWAPD, NULL},
	[MCG_S_PGSCAN_DIRECT] = {MCG_K_PGSCAN_DIRECT, NULL},
	[MCG_S_PGSTEAL_KSWAPD] = {MCG_K_PGSTEAL_KSWAPD, NULL},
	[MCG_S_PGSTEAL_DIRECT] = {MCG_K_PGSTEAL_DIRECT, NULL},
	[MCG_S_PGREFILL] = {MCG_K_PGREFILL, NULL},
};

static const struct view mcg__counter_view[MCG_C__COUNT] = {
	[MCG_C_USAGE] = {MCG_K_USAGE, NULL},
	[MCG_C_LIMIT] = {MCG_K_LIMIT, NULL},
	[MCG_C_HIGH] = {MCG_K_HIGH, NULL},
	[MCG_C_ANON] = {MCG_K_ANON, NULL},
	[MCG_C_FILE] = {MCG_K_FILE, NULL},
	[MCG_C_DIRTY] = {MCG_K_DIRTY, NULL},
	[MCG_C_WRITEBACK] = {MCG_K_WRITEBACK, NULL},
	[MCG_C_PGSCAN] = {MCG_K_PGSCAN, NULL},
	[MCG_C_PGSTEAL] = {MCG_K_PGSTEAL, NULL},
	[MCG_C_PGSCAN_KSWAPD] = {MCG_K_PGSCAN_KSWAPD, NULL},
	[MCG_C_PGSCAN_DIRECT] = {MCG_K_PGSCAN_DIRECT, NULL},
	[MCG_C_PGSTEAL_KSWAPD] = {MCG_K_PGSTEAL_KSWAPD, NULL},
	[MCG_C_PGSTEAL_DIRECT] = {MCG_K_PGSTEAL_DIRECT, NULL},
	[MCG_C_PGPGOUT] = {MCG_K_PGPGOUT, NULL},
	[MCG_C_REFAULT] = {MCG_K_REFAULT, NULL},
	[MCG_C_EV_HIGH] = {MCG_K_EV_HIGH, NULL},
	[MCG_C_EV_MAX] = {MCG_K_EV_MAX, NULL},
	[MCG_C_EV_OOM] = {MCG_K_EV_OOM, NULL},
	[MCG_C_EV_OOM_KILL] = {MCG_K_EV_OOM_KILL, NULL},
	[MCG_C_FAILCNT] = {MCG_K_FAILCNT, NULL},
	[MCG_C_PSI_SOME_US] = {MCG_K_PSI_SOME, "psi_some_us"},
	[MCG_C_PSI_FULL_US] = {MCG_K_PSI_FULL, "psi_full_us"},
	[MCG_C_STALL_NS] = {MCG_K_STALL, "stall_ns"},
};

#define VIEW_NAME(v) ((v).old_name ? (v).old_name : keys[(v).k].name)

const char *mcg_field_name(enum mcg_field f)
{
	return (unsigned)f < MCG_F__COUNT ? VIEW_NAME(mcg__field_view[f]) : NULL;
}

bool mcg_field_is_bytes(enum mcg_field f)
{
	return (unsigned)f < MCG_F__COUNT && keys[mcg__field_view[f].k].unit == MCG_UNIT_BYTES;
}

const char *mcg_stat_name(enum mcg_stat_id id)
{
	return (unsigned)id < MCG_S__COUNT ? VIEW_NAME(mcg__stat_view[id]) : NULL;
}

bool mcg_stat_is_bytes(enum mcg_stat_id id)
{
	return (unsigned)id < MCG_S__COUNT && keys[mcg__stat_view[id].k].unit == MCG_UNIT_BYTES;
}

const char *mcg_counter_name(enum mcg_counter c)
{
	return (unsigned)c < MCG_C__COUNT ? VIEW_NAME(mcg__counter_view[c]) : NULL;
}

bool mcg_counter_is_event(enum mcg_counter c)
{
	return (unsigned)c < MCG_C__COUNT && keys[mcg__counter_view[c].k].kind == MCG_KIND_COUNTER;
}

enum mcg_key mcg__field_key(enum mcg_field f)
{
	return (enum mcg_key)mcg__field_view[f].k;
}

enum mcg_key mcg__stat_key(enum mcg_stat_id s)
{
	return (enum mcg_key)mcg__stat_view[s].k;
}

enum mcg_key mcg__counter_key(enum mcg_counter c)
{
	return (enum mcg_key)mcg__counter_view[c].k;
}
