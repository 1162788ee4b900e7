/* memcg/host.h: the one table of host-wide counters (/proc/meminfo, /proc/vmstat, /proc/pressure/memory), their files, keys, units and names, and the struct their one reader fills (included by memcg.h). */
#ifndef MEMCG_HOST_H
#define MEMCG_HOST_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/host.h>"
#endif

/*
 * MCG_HOST is the ONE table of the counters libmemcg reads for the whole host,
 * in the shape of MCG_SCHEMA (cgroups' counters) and MCG_FIELDS (derived
 * values). Each row: the id (MCG_G_<ID>), the source file, the key in it, the
 * unit of the value kept, its JSON key, the word top's header prints before
 * it, its OpenMetrics family (NULL: not exported) and whether top shows its
 * rate (the reclaim events). A NULL JSON key: read for a verdict (dirty's),
 * not printed as a value of its own.
 *
 * Units: KB is meminfo's "N kB", kept in bytes; PAGES is a vmstat page count
 * kept in bytes (a value that would not fit is no value); EVENTS a vmstat
 * event or page counter as printed; PCT100 a PSI avg10 in hundredths of a
 * percent (the kernel prints two decimals: exact).
 *
 * The history store (lib/store/history.c) keeps the rows of
 * MCG_HOST_RECORDED, in this order, and nothing else: its frames are a valid
 * mask and the values of those rows, PSI and delay accounting apart. A row
 * added to MCG_HOST_RECORDED changes the on-disk format; add rows to
 * MCG_HOST_MORE (HACKING.md, "Add a host counter").
 */
#define MCG_HOST_RECORDED(X)                                                                       \
	X(MEM_TOTAL, MEMINFO, "MemTotal", KB, "mem_total_bytes", "total", NULL, false)             \
	X(MEM_AVAILABLE, MEMINFO, "MemAvailable", KB, "mem_available_bytes", "available", NULL,    \
	  false)                                                                                    \
	X(MEM_FREE, MEMINFO, "MemFree", KB, "mem_free_bytes", "free", NULL, false)                 \
	X(DIRTY, VMSTAT, "nr_dirty", PAGES, "dirty_bytes", "dirty", NULL, false)                   \
	X(WRITEBACK, VMSTAT, "nr_writeback", PAGES, "writeback_bytes", "writeback", NULL, false)   \
	X(DIRTY_THRESH, VMSTAT, "nr_dirty_threshold", PAGES, "dirty_threshold_bytes", "threshold", \
	  "memcgctl_dirty_threshold_bytes", false)                                                 \
	X(DIRTY_BG_THRESH, VMSTAT, "nr_dirty_background_threshold", PAGES,                         \
	  "dirty_background_threshold_bytes", "background",                                         \
	  "memcgctl_dirty_background_threshold_bytes", false)                                      \
	X(PGSCAN_KSWAPD, VMSTAT, "pgscan_kswapd", EVENTS, "pgscan_kswapd", "kswapd", NULL, true)   \
	X(PGSCAN_DIRECT, VMSTAT, "pgscan_direct", EVENTS, "pgscan_direct", "direct", NULL, true)   \
	X(PGSTEAL_KSWAPD, VMSTAT, "pgsteal_kswapd", EVENTS, "pgsteal_kswapd", "kswapd", NULL,      \
	  true)                                                                                     \
	X(PGSTEAL_DIRECT, VMSTAT, "pgsteal_direct", EVENTS, "pgsteal_direct", "direct", NULL, true)

#define MCG_HOST_MORE(X)                                                                           \
	/* /proc/pressure/memory's avg10 of the some and full lines (stored by history apart) */  \
	X(PSI_SOME_AVG10, PSI, "some", PCT100, "psi_some_percent", "some", NULL, false)            \
	X(PSI_FULL_AVG10, PSI, "full", PCT100, "psi_full_percent", "full", NULL, false)            \
	/* dirty's verdict: the page cache and free pages the kernel's thresholds follow */        \
	X(NR_INACTIVE_FILE, VMSTAT, "nr_inactive_file", PAGES, NULL, NULL, NULL, false)             \
	X(NR_ACTIVE_FILE, VMSTAT, "nr_active_file", PAGES, NULL, NULL, NULL, false)                 \
	X(NR_FREE_PAGES, VMSTAT, "nr_free_pages", PAGES, NULL, NULL, NULL, false)                   \
	X(NR_DIRTIED, VMSTAT, "nr_dirtied", EVENTS, NULL, NULL, NULL, false)                        \
	X(NR_WRITTEN, VMSTAT, "nr_written", EVENTS, NULL, NULL, NULL, false)                        \
	/* swap: mcg__swap_free (empty, set-limit, the OOM warning) */                             \
	X(SWAP_TOTAL, MEMINFO, "SwapTotal", KB, NULL, NULL, NULL, false)                            \
	X(SWAP_FREE, MEMINFO, "SwapFree", KB, NULL, NULL, NULL, false)                             \
	/* tmpfs and shared memory: page cache reclaim cannot drop without swap */                 \
	X(SHMEM, MEMINFO, "Shmem", KB, "shmem_bytes", "shmem", NULL, false)

#define MCG_HOST(X) MCG_HOST_RECORDED(X) MCG_HOST_MORE(X)

/* One id per row of MCG_HOST; the recorded rows first. */
enum mcg_global_id {
#define MCG__HOST_ENUM(id, src, key, unit, json, header, om, rate) MCG_G_##id,
	MCG_HOST_RECORDED(MCG__HOST_ENUM)
	/* the number of rows the history store keeps (its on-disk format) */
	MCG_G__RECORDED,
	MCG__G_MORE = MCG_G__RECORDED - 1,
	MCG_HOST_MORE(MCG__HOST_ENUM)
#undef MCG__HOST_ENUM
	MCG_G__COUNT
};

/* The source files of MCG_HOST, as bits for mcg__host_read's SOURCES. */
enum mcg_host_src {
	MCG_HS_MEMINFO, /* /proc/meminfo */
	MCG_HS_VMSTAT,  /* /proc/vmstat */
	MCG_HS_PSI,     /* /proc/pressure/memory */
	MCG_HS__COUNT
};
#define MCG_HS_ALL ((1u << MCG_HS__COUNT) - 1)

enum mcg_host_unit {
	MCG_HU_KB,     /* meminfo's kB, kept in bytes */
	MCG_HU_PAGES,  /* a vmstat page count, kept in bytes */
	MCG_HU_EVENTS, /* a vmstat counter as printed (events, pages) */
	MCG_HU_PCT100, /* hundredths of a percent */
};

/* The description of a host counter: its row of MCG_HOST. */
struct mcg_host_desc {
	enum mcg_host_src src;
	const char *key;    /* meminfo's and vmstat's key; PSI: the line ("some", "full") */
	enum mcg_host_unit unit;
	const char *json;   /* NULL: not printed */
	const char *header; /* the word before the value in top's header */
	const char *om;     /* the OpenMetrics family; NULL: not exported */
	bool rate;          /* top shows its rate per second */
};
MCG_EXPORT const struct mcg_host_desc *mcg_host_desc(enum mcg_global_id id);

/* What the one reader found: V[id] where bit id of VALID is set; absent stays absent. */
struct mcg_host {
	uint64_t valid;
	uint64_t v[MCG_G__COUNT];
};
static inline bool mcg_host_has(const struct mcg_host *h, enum mcg_global_id id)
{
	return (h->valid >> id) & 1;
}
/* V[ID]: bytes (KB, PAGES), the counter (EVENTS), hundredths of a percent (PCT100). */
static inline uint64_t mcg_host_get(const struct mcg_host *h, enum mcg_global_id id)
{
	return h->v[id];
}
/* A PCT100 row in percent. */
static inline double mcg_host_percent(const struct mcg_host *h, enum mcg_global_id id)
{
	return (double)h->v[id] / 100;
}

#endif
