/*
 * schema.c: the one table of counters (MCG_SCHEMA in memcg/schema.h) as
 * descriptors, the file per version of each counter (mcg_knob_file), the
 * record parser and the counters derived from others, and the pure verdicts
 * over a record.
 */
#include "model/model.h"

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


/* The file that holds knob K on G's version (v1 swap: the memsw limit). */
const char *mcg_limit_knob_file(int version, enum mcg_limit_knob k)
{
	static const unsigned char key[MCG_LK__COUNT] = {
		[MCG_LK_MAX] = MCG_K_LIMIT, [MCG_LK_HIGH] = MCG_K_HIGH,	     [MCG_LK_LOW] = MCG_K_LOW,
		[MCG_LK_MIN] = MCG_K_MIN,   [MCG_LK_SOFT] = MCG_K_SOFT_LIMIT, [MCG_LK_SWAP] = MCG_K_SWAP_LIMIT,
		[MCG_LK_SWAP_HIGH] = MCG_K_SWAP_HIGH, [MCG_LK_ZSWAP_MAX] = MCG_K_ZSWAP_LIMIT,
	};

	if ((unsigned)k >= MCG_LK__COUNT)
		return NULL;
	if (version != 2)
		version = 1;
	/* v1 limits swap through memory+swap */
	if (version == 1 && k == MCG_LK_SWAP)
		return mcg_knob_file(1, MCG_K_MEMSW_LIMIT);
	return mcg_knob_file(version, (enum mcg_key)key[k]);
}
