/* memcg/schema.h: the one table of memory cgroup counters, their files, keys and units. */
#ifndef MEMCG_SCHEMA_H
#define MEMCG_SCHEMA_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/schema.h>"
#endif

/*
 * MCG_SCHEMA is the ONE table of the counters libmemcg reads from a memory
 * cgroup. Each row: the id (MCG_K_<ID>), the base name, the unit, the kind,
 * the v1 file and key, the v2 file and key. A NULL key means a single-value
 * file; a NULL file means the version has no such counter or the library
 * computes it (lib/model/schema.c says how: derived counters, walks, taskstats).
 *
 * Names: the base name is what JSON and column names are built from; the
 * output adds the unit's suffix (mcg_unit_suffix): "dirty" + BYTES is
 * "dirty_bytes", "pgscan" + EVENTS stays "pgscan" (kernel event counters keep
 * the kernel's names), "psi_some" + US is "psi_some_us".
 *
 * Adding a counter touches this table only (and a test): every reader (show's
 * mcg_group_info, top's sampler, dirty's sampler) picks the files and keys
 * from it, and the record (struct mcg_record) has a slot and a validity bit
 * for it (struct mcg_keyset grows with the table).
 */
#define MCG_SCHEMA(X)                                                                              \
	/* limits and usage: single-value files */                                                 \
	X(USAGE, "usage", BYTES, GAUGE, "memory.usage_in_bytes", NULL, "memory.current", NULL)      \
	X(PEAK, "peak", BYTES, GAUGE, "memory.max_usage_in_bytes", NULL, "memory.peak", NULL)       \
	X(LIMIT, "limit", BYTES, SETTING, "memory.limit_in_bytes", NULL, "memory.max", NULL)          \
	X(HIGH, "high", BYTES, SETTING, NULL, NULL, "memory.high", NULL)                              \
	X(LOW, "low", BYTES, SETTING, NULL, NULL, "memory.low", NULL)                                 \
	X(MIN, "min", BYTES, SETTING, NULL, NULL, "memory.min", NULL)                                 \
	X(SOFT_LIMIT, "soft_limit", BYTES, SETTING, "memory.soft_limit_in_bytes", NULL, NULL, NULL)   \
	/* v1: memsw usage - usage (derived) */                                                     \
	X(SWAP_USAGE, "swap", BYTES, GAUGE, NULL, NULL, "memory.swap.current", NULL)                \
	X(SWAP_LIMIT, "swap_limit", BYTES, SETTING, NULL, NULL, "memory.swap.max", NULL)              \
	X(SWAP_HIGH, "swap_high", BYTES, SETTING, NULL, NULL, "memory.swap.high", NULL)               \
	/* zswap (v2, 5.19 on; zswap.writeback 6.8 on: 1 or 0) */                                \
	X(ZSWAP, "zswap", BYTES, GAUGE, NULL, NULL, "memory.zswap.current", NULL)                   \
	X(ZSWAP_LIMIT, "zswap_limit", BYTES, SETTING, NULL, NULL, "memory.zswap.max", NULL)           \
	X(ZSWAP_WRITEBACK, "zswap_writeback", NUMBER, SETTING, NULL, NULL, "memory.zswap.writeback",  \
	  NULL)                                                                                     \
	/* v2: 1 when the OOM killer takes the whole cgroup */                                    \
	X(OOM_GROUP, "oom_group", NUMBER, SETTING, NULL, NULL, "memory.oom.group", NULL)              \
	X(MEMSW_USAGE, "memsw", BYTES, GAUGE, "memory.memsw.usage_in_bytes", NULL, NULL, NULL)      \
	X(MEMSW_LIMIT, "memsw_limit", BYTES, SETTING, "memory.memsw.limit_in_bytes", NULL, NULL,      \
	  NULL)                                                                                     \
	X(KMEM_USAGE, "kmem", BYTES, GAUGE, "memory.kmem.usage_in_bytes", NULL, NULL, NULL)         \
	X(FAILCNT, "failcnt", EVENTS, COUNTER, "memory.failcnt", NULL, NULL, NULL)                  \
	X(SWAPPINESS, "swappiness", NUMBER, SETTING, "memory.swappiness", NULL, NULL, NULL)           \
	/* v1 memory.stat; v2: the smallest memory.max up to the root (a walk) */                   \
	X(EFFECTIVE_LIMIT, "effective_limit", BYTES, GAUGE, "memory.stat",                          \
	  "hierarchical_memory_limit", NULL, NULL)                                                  \
	/* events */                                                                                \
	X(EV_LOW, "events_low", EVENTS, COUNTER, NULL, NULL, "memory.events", "low")                \
	X(EV_HIGH, "events_high", EVENTS, COUNTER, NULL, NULL, "memory.events", "high")             \
	X(EV_MAX, "events_max", EVENTS, COUNTER, NULL, NULL, "memory.events", "max")                \
	X(EV_OOM, "events_oom", EVENTS, COUNTER, NULL, NULL, "memory.events", "oom")                \
	X(EV_OOM_KILL, "events_oom_kill", EVENTS, COUNTER, "memory.oom_control", "oom_kill",        \
	  "memory.events", "oom_kill")                                                              \
	X(EV_OOM_GROUP_KILL, "events_oom_group_kill", EVENTS, COUNTER, NULL, NULL, "memory.events", \
	  "oom_group_kill")                                                                         \
	X(UNDER_OOM, "under_oom", NUMBER, GAUGE, "memory.oom_control", "under_oom", NULL, NULL)     \
	X(OOM_KILL_DISABLE, "oom_kill_disable", NUMBER, SETTING, "memory.oom_control",                \
	  "oom_kill_disable", NULL, NULL)                                                           \
	/* memory.stat amounts (v1: the hierarchical total_ keys; local ones as a fallback) */      \
	X(ANON, "anon", BYTES, GAUGE, "memory.stat", "total_rss", "memory.stat", "anon")            \
	X(FILE, "file", BYTES, GAUGE, "memory.stat", "total_cache", "memory.stat", "file")          \
	/* v1: the kmem counter */                                                                  \
	X(KERNEL, "kernel", BYTES, GAUGE, "memory.kmem.usage_in_bytes", NULL, "memory.stat",        \
	  "kernel")                                                                                 \
	X(SHMEM, "shmem", BYTES, GAUGE, "memory.stat", "total_shmem", "memory.stat", "shmem")       \
	X(FILE_MAPPED, "file_mapped", BYTES, GAUGE, "memory.stat", "total_mapped_file",             \
	  "memory.stat", "file_mapped")                                                             \
	X(DIRTY, "dirty", BYTES, GAUGE, "memory.stat", "total_dirty", "memory.stat", "file_dirty")  \
	X(WRITEBACK, "writeback", BYTES, GAUGE, "memory.stat", "total_writeback", "memory.stat",    \
	  "file_writeback")                                                                         \
	X(ANON_THP, "anon_thp", BYTES, GAUGE, "memory.stat", "total_rss_huge", "memory.stat",       \
	  "anon_thp")                                                                               \
	X(INACTIVE_ANON, "inactive_anon", BYTES, GAUGE, "memory.stat", "total_inactive_anon",       \
	  "memory.stat", "inactive_anon")                                                           \
	X(ACTIVE_ANON, "active_anon", BYTES, GAUGE, "memory.stat", "total_active_anon",             \
	  "memory.stat", "active_anon")                                                             \
	X(INACTIVE_FILE, "inactive_file", BYTES, GAUGE, "memory.stat", "total_inactive_file",       \
	  "memory.stat", "inactive_file")                                                           \
	X(ACTIVE_FILE, "active_file", BYTES, GAUGE, "memory.stat", "total_active_file",             \
	  "memory.stat", "active_file")                                                             \
	X(UNEVICTABLE, "unevictable", BYTES, GAUGE, "memory.stat", "total_unevictable",             \
	  "memory.stat", "unevictable")                                                             \
	X(SLAB, "slab", BYTES, GAUGE, NULL, NULL, "memory.stat", "slab")                            \
	X(SLAB_RECLAIMABLE, "slab_reclaimable", BYTES, GAUGE, NULL, NULL, "memory.stat",            \
	  "slab_reclaimable")                                                                       \
	/* v1 memory.stat's swap; v2 memory.swap.current */                                         \
	X(SWAP, "stat_swap", BYTES, GAUGE, "memory.stat", "total_swap", "memory.swap.current",      \
	  NULL)                                                                                     \
	/* memory.stat events */                                                                    \
	X(WORKINGSET_REFAULT_ANON, "workingset_refault_anon", EVENTS, COUNTER, "memory.stat",       \
	  "total_workingset_refault_anon", "memory.stat", "workingset_refault_anon")                \
	X(WORKINGSET_REFAULT_FILE, "workingset_refault_file", EVENTS, COUNTER, "memory.stat",       \
	  "total_workingset_refault_file", "memory.stat", "workingset_refault_file")                \
	/* before 5.9: one key for both */                                                          \
	X(WORKINGSET_REFAULT, "workingset_refault", EVENTS, COUNTER, "memory.stat",                 \
	  "total_workingset_refault", "memory.stat", "workingset_refault")                          \
	X(WORKINGSET_ACTIVATE_FILE, "workingset_activate_file", EVENTS, COUNTER, "memory.stat",     \
	  "total_workingset_activate_file", "memory.stat", "workingset_activate_file")              \
	X(PGFAULT, "pgfault", EVENTS, COUNTER, "memory.stat", "total_pgfault", "memory.stat",       \
	  "pgfault")                                                                                \
	X(PGMAJFAULT, "pgmajfault", EVENTS, COUNTER, "memory.stat", "total_pgmajfault",             \
	  "memory.stat", "pgmajfault")                                                              \
	X(PGPGIN, "pgpgin", EVENTS, COUNTER, "memory.stat", "total_pgpgin", NULL, NULL)             \
	X(PGPGOUT, "pgpgout", EVENTS, COUNTER, "memory.stat", "total_pgpgout", NULL, NULL)          \
	X(PGSCAN, "pgscan", EVENTS, COUNTER, NULL, NULL, "memory.stat", "pgscan")                   \
	X(PGSTEAL, "pgsteal", EVENTS, COUNTER, NULL, NULL, "memory.stat", "pgsteal")                \
	X(PGSCAN_KSWAPD, "pgscan_kswapd", EVENTS, COUNTER, NULL, NULL, "memory.stat",               \
	  "pgscan_kswapd")                                                                          \
	X(PGSCAN_DIRECT, "pgscan_direct", EVENTS, COUNTER, NULL, NULL, "memory.stat",               \
	  "pgscan_direct")                                                                          \
	X(PGSTEAL_KSWAPD, "pgsteal_kswapd", EVENTS, COUNTER, NULL, NULL, "memory.stat",             \
	  "pgsteal_kswapd")                                                                         \
	X(PGSTEAL_DIRECT, "pgsteal_direct", EVENTS, COUNTER, NULL, NULL, "memory.stat",             \
	  "pgsteal_direct")                                                                         \
	X(PGREFILL, "pgrefill", EVENTS, COUNTER, NULL, NULL, "memory.stat", "pgrefill")             \
	/* shadow entries reclaimed (v2, 5.9 on: memcg_vm_event_stat) */                             \
	X(WORKINGSET_NODERECLAIM, "workingset_nodereclaim", EVENTS, COUNTER, NULL, NULL,           \
	  "memory.stat", "workingset_nodereclaim")                                                  \
	/* derived: refault anon + file, else the pre-5.9 workingset_refault */                     \
	X(REFAULT, "refault", EVENTS, COUNTER, NULL, NULL, NULL, NULL)                              \
	/* PSI totals: the "total=" of memory.pressure's some/full lines */                         \
	X(PSI_SOME, "psi_some", US, COUNTER, "memory.pressure", "some", "memory.pressure", "some")  \
	X(PSI_FULL, "psi_full", US, COUNTER, "memory.pressure", "full", "memory.pressure", "full")  \
	/* computed: processes in the group itself, child cgroups, taskstats stall */               \
	X(NR_PROCS, "nr_procs", NUMBER, GAUGE, NULL, NULL, NULL, NULL)                              \
	X(NR_CHILDREN, "nr_children", NUMBER, GAUGE, NULL, NULL, NULL, NULL)                        \
	X(STALL, "stall", NS, COUNTER, NULL, NULL, NULL, NULL)

/* One id per row of MCG_SCHEMA. */
enum mcg_key {
#define MCG__SCHEMA_ENUM(id, name, unit, kind, f1, k1, f2, k2) MCG_K_##id,
	MCG_SCHEMA(MCG__SCHEMA_ENUM)
#undef MCG__SCHEMA_ENUM
	MCG_K__COUNT
};

enum mcg_unit {
	MCG_UNIT_BYTES,  /* suffix _bytes */
	MCG_UNIT_PAGES,  /* suffix _pages */
	MCG_UNIT_EVENTS, /* an event count: the kernel's name, no suffix */
	MCG_UNIT_NUMBER, /* a plain number (a setting, a count of things): no suffix */
	MCG_UNIT_US,     /* microseconds: _us */
	MCG_UNIT_NS,     /* nanoseconds: _ns */
};
enum mcg_kind {
	MCG_KIND_GAUGE,   /* a level: rates are changes per second */
	MCG_KIND_COUNTER, /* monotonic (resets aside): rates and since-start counts */
	MCG_KIND_SETTING, /* a gauge that changes only when written (limits, knobs): cacheable */
};

/* The description of a counter: its row of MCG_SCHEMA. */
struct mcg_key_desc {
	const char *name;
	enum mcg_unit unit;
	enum mcg_kind kind;
	const char *file[2]; /* [0] v1, [1] v2; NULL: none or computed */
	const char *key[2];  /* NULL: a single-value file */
};
MCG_EXPORT const struct mcg_key_desc *mcg_key_desc(enum mcg_key k);
/* The kind of every counter, by id (a table for loops over many rows). */
MCG_EXPORT extern const unsigned char mcg_key_kinds[MCG_K__COUNT];
/* The base name ("dirty"), NULL for an unknown id. */
MCG_EXPORT const char *mcg_key_name(enum mcg_key k);
/* The suffix the output adds to the base name for UNIT: "_bytes", "_pages", "_us", "_ns" or "". */
MCG_EXPORT const char *mcg_unit_suffix(enum mcg_unit u);
/* The id of a base name, -ENOENT. */
MCG_EXPORT int mcg_key_lookup(const char *name);
/*
 * The file that holds K on VERSION (1 or 2): "memory.current", "memory.max",
 * "memory.stat", ... NULL when the version has none (or it is computed). The
 * one place that decides which usage and limit file a version reads.
 */
MCG_EXPORT const char *mcg_knob_file(int version, enum mcg_key k);

/*
 * One sample of one cgroup: every counter of the table with a validity bit
 * (absent stays absent: a counter the kernel did not print has its bit clear,
 * never a 0). Filled by mcg_group_info() (show, list), the top sampler and
 * the dirty sampler, through one reader (lib/model/record.c).
 */
/*
 * A set of counters (a bit per MCG_K_ id): a record's validity, the counters
 * a sampler reads. Grows with the table.
 */
#define MCG_KEYSET_WORDS ((MCG_K__COUNT + 63) / 64)
struct mcg_keyset {
	uint64_t w[MCG_KEYSET_WORDS];
};
static inline bool mcg_keyset_has(const struct mcg_keyset *s, enum mcg_key k)
{
	return (unsigned)k < MCG_K__COUNT && (s->w[k / 64] >> (k % 64)) & 1;
}
static inline void mcg_keyset_add(struct mcg_keyset *s, enum mcg_key k)
{
	if ((unsigned)k < MCG_K__COUNT)
		s->w[k / 64] |= 1ULL << (k % 64);
}
static inline void mcg_keyset_del(struct mcg_keyset *s, enum mcg_key k)
{
	if ((unsigned)k < MCG_K__COUNT)
		s->w[k / 64] &= ~(1ULL << (k % 64));
}
/* Every counter of the table. */
MCG_EXPORT void mcg_keyset_all(struct mcg_keyset *s);
/* The next id in S from K on (K itself included), or MCG_K__COUNT: for (k = mcg_keyset_next(s, 0); ...) */
static inline unsigned mcg_keyset_next(const struct mcg_keyset *s, unsigned k)
{
	while (k < MCG_K__COUNT) {
		uint64_t w = s->w[k / 64] >> (k % 64);

		if (w) {
			k += (unsigned)__builtin_ctzll(w);
			return k < MCG_K__COUNT ? k : MCG_K__COUNT;
		}
		k = (k / 64 + 1) * 64;
	}
	return MCG_K__COUNT;
}
static inline bool mcg_keyset_empty(const struct mcg_keyset *s)
{
	unsigned i;

	for (i = 0; i < MCG_KEYSET_WORDS; i++)
		if (s->w[i])
			return false;
	return true;
}
#define mcg_keyset_foreach(k, s)                                                                   \
	for ((k) = mcg_keyset_next((s), 0); (k) < MCG_K__COUNT; (k) = mcg_keyset_next((s), (k) + 1))

struct mcg_record {
	struct mcg_keyset valid; /* k: v[k] came from the kernel (or was derived from what did) */
	uint64_t v[MCG_K__COUNT];
	struct mcg_psi psi; /* the averages of memory.pressure, with their own validity */
};
static inline bool mcg_record_has(const struct mcg_record *r, enum mcg_key k)
{
	return mcg_keyset_has(&r->valid, k);
}
/* V[K] if valid, else DFLT. */
static inline uint64_t mcg_record_get(const struct mcg_record *r, enum mcg_key k, uint64_t dflt)
{
	return mcg_record_has(r, k) ? r->v[k] : dflt;
}
/* Set V[K] and its validity. */
static inline void mcg_record_set(struct mcg_record *r, enum mcg_key k, uint64_t v)
{
	if ((unsigned)k < MCG_K__COUNT) {
		r->v[k] = v;
		mcg_keyset_add(&r->valid, k);
	}
}
static inline void mcg_record_unset(struct mcg_record *r, enum mcg_key k)
{
	mcg_keyset_del(&r->valid, k);
}

/*
 * Parse the text of FILE (a name from the table: "memory.stat",
 * "memory.events", "memory.current", ...) for VERSION into R: every counter of
 * the table held there is set (its bit too); others are left. No allocation.
 * -EINVAL for an unknown version, -ENOENT when no counter comes from FILE.
 */
MCG_EXPORT int mcg_record_parse(struct mcg_record *r, int version, const char *file,
				const char *text);
/* The counters computed from others (refault, v1 swap, v2 root limit); ROOT: the hierarchy root. */
MCG_EXPORT void mcg_record_derive(struct mcg_record *r, int version, bool root);

/* ---- verdicts: pure functions over a record --------------------------- */


#endif
