/*
 * schema.c: the one table of counters (MCG_SCHEMA in memcg/schema.h) as
 * descriptors, the file per version of each counter (mcg_knob_file), the
 * record parser and the counters derived from others, and the pure verdicts
 * over a record.
 */
#include "internal.h"

#include <string.h>

_Static_assert(MCG_K__COUNT <= 255, "struct mcg__plan_key holds a counter id in a byte");

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

const unsigned char mcg_key_kinds[MCG_K__COUNT] = {
#define MCG__SCHEMA_KIND(id, nm, u, k, f1, k1, f2, k2) [MCG_K_##id] = MCG_KIND_##k,
	MCG_SCHEMA(MCG__SCHEMA_KIND)
#undef MCG__SCHEMA_KIND
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

void mcg_keyset_all(struct mcg_keyset *s)
{
	unsigned k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < MCG_K__COUNT; k++)
		mcg_keyset_add(s, k);
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

	ret = mcg__plan_init(&p, version, NULL, MCG__PLAN_V1_LOCAL);
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

void mcg_record_derive(struct mcg_record *r, int version, bool root)
{
	/* refaults: anon + file (5.9 on), else the one key before */
	if (mcg_record_has(r, MCG_K_WORKINGSET_REFAULT_ANON) ||
	    mcg_record_has(r, MCG_K_WORKINGSET_REFAULT_FILE))
		mcg_record_set(r, MCG_K_REFAULT, mcg_record_get(r, MCG_K_WORKINGSET_REFAULT_ANON, 0) +
					      mcg_record_get(r, MCG_K_WORKINGSET_REFAULT_FILE, 0));
	else if (mcg_record_has(r, MCG_K_WORKINGSET_REFAULT))
		mcg_record_set(r, MCG_K_REFAULT, r->v[MCG_K_WORKINGSET_REFAULT]);
	if (version == 2) {
		/* the root has no memory.max: unlimited */
		if (root && !mcg_record_has(r, MCG_K_LIMIT))
			mcg_record_set(r, MCG_K_LIMIT, MCG_MAX);
	} else if (mcg_record_has(r, MCG_K_MEMSW_USAGE) && mcg_record_has(r, MCG_K_USAGE)) {
		mcg_record_set(r, MCG_K_SWAP_USAGE, r->v[MCG_K_MEMSW_USAGE] > r->v[MCG_K_USAGE]
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
