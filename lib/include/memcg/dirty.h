/* memcg/dirty.h: libmemcg's public interface for 'dirty' (included by memcg.h). */
#ifndef MEMCG_DIRTY_H
#define MEMCG_DIRTY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/dirty.h>"
#endif

/*
 * Dirty and writeback memory held against the kernel's thresholds. The
 * arithmetic follows mm/page-writeback.c (global_dirtyable_memory,
 * domain_dirty_limits, mdtc_calc_avail, dirty_freerun_ceiling) and
 * mem_cgroup_wb_stats() in mm/memcontrol.c. Amounts in pages unless named _bytes.
 */

/* The vm.dirty_* sysctls. A non-zero *_bytes overrides its ratio, as in the kernel. */
struct mcg_dirty_settings {
	uint64_t ratio, bg_ratio;   /* percent */
	uint64_t bytes, bg_bytes;   /* 0: the ratio applies */
	uint64_t expire_cs;         /* dirty_expire_centisecs */
	uint64_t writeback_cs;      /* dirty_writeback_centisecs */
};

/* Thresholds of one writeback domain (global or one memcg). */
struct mcg_dirty_limits {
	uint64_t avail;     /* dirtyable pages the ratios apply to */
	uint64_t thresh;    /* writers are stopped at dirty + writeback >= thresh */
	uint64_t bg_thresh; /* background writeback starts above it (dirty alone) */
	uint64_t freerun;   /* (thresh + bg_thresh) / 2: no throttling below */
};

/* Where a domain stands, in increasing order of trouble. */
enum mcg_dirty_state {
	MCG_DIRTY_BELOW_BG = 0, /* dirty <= bg_thresh */
	MCG_DIRTY_BACKGROUND,   /* dirty > bg_thresh: the flusher writes in the background */
	MCG_DIRTY_THROTTLED,    /* dirty + writeback > freerun: writers are paused */
	MCG_DIRTY_AT_LIMIT,     /* dirty + writeback >= thresh */
};
MCG_EXPORT const char *mcg_dirty_state_name(enum mcg_dirty_state s);

/* Pure arithmetic (unit-tested against worked examples). */
/* totalreserve_pages from /proc/zoneinfo: per zone min(managed, high + max lowmem_reserve). */
MCG_EXPORT int mcg_dirty_reserve_parse(const char *zoneinfo, uint64_t *ret);
/* global_dirtyable_memory(): free - min(free, reserve) + file LRU + 1. */
MCG_EXPORT uint64_t mcg_dirty_dirtyable(uint64_t free, uint64_t reserve, uint64_t file);
/*
 * domain_dirty_limits() for AVAIL pages. GLOBAL_AVAIL is 0 for the global
 * domain; for a memcg domain it is the global dirtyable memory, against which
 * the *_bytes settings are turned into ratios (as the kernel does).
 */
MCG_EXPORT void mcg_dirty_domain_limits(const struct mcg_dirty_settings *s, uint64_t avail,
					uint64_t global_avail, uint64_t page_size,
					struct mcg_dirty_limits *ret);
/* mdtc_calc_avail(): filepages + min(headroom, global clean not in this memcg). */
MCG_EXPORT uint64_t mcg_dirty_memcg_avail(uint64_t filepages, uint64_t headroom, uint64_t dirty,
					  uint64_t global_avail, uint64_t global_dirty);
/* Where DIRTY and WRITEBACK pages stand against L. */
MCG_EXPORT enum mcg_dirty_state mcg_dirty_classify(const struct mcg_dirty_limits *l, uint64_t dirty,
						    uint64_t writeback);

/* The global picture: settings, counters and both the kernel's and our thresholds. */
struct mcg_dirty_global {
	struct mcg_dirty_settings set;
	uint64_t page_size;
	uint64_t nr_dirty, nr_writeback;  /* /proc/vmstat, pages */
	uint64_t nr_dirtied, nr_written;  /* /proc/vmstat counters, pages */
	bool kernel_valid;                /* the two below were in /proc/vmstat */
	uint64_t kernel_thresh, kernel_bg_thresh;
	uint64_t free;         /* MemFree (what the kernel's NR_FREE_PAGES sum reads) */
	uint64_t vmstat_free;  /* nr_free_pages of /proc/vmstat */
	uint64_t file;         /* nr_inactive_file + nr_active_file */
	bool reserve_valid;    /* /proc/zoneinfo was readable */
	uint64_t reserve;      /* totalreserve_pages, from /proc/zoneinfo */
	struct mcg_dirty_limits lim; /* computed from the above */
	/*
	 * Cgroup writeback (inode_cgwb_enabled()): both memory and io on the v2
	 * hierarchy, from /proc/cgroups (hierarchy 0). 1 yes, 0 no, -1 unknown.
	 * Without it, dirty pages are written back by the root's wb and only
	 * the global domain applies, whatever the memcg domain says.
	 */
	int cgwb;
};
/* Parse /proc/cgroups into 1 (memory and blkio on the v2 hierarchy), 0, or -ENOENT. */
MCG_EXPORT int mcg_dirty_cgwb_parse(const char *proc_cgroups);
/* Read /proc/vmstat, meminfo, zoneinfo and sys/vm/dirty_* through the ctx's procfs. */
MCG_EXPORT int mcg_dirty_global_read(const struct mcg_ctx *ctx, struct mcg_dirty_global *ret);
/* Global state: dirty against bg, dirty + writeback against freerun and thresh. */
MCG_EXPORT enum mcg_dirty_state mcg_dirty_global_state(const struct mcg_dirty_global *g);

/* One cgroup. Byte amounts as memory.stat prints them (hierarchical). */
struct mcg_dirty_cg {
	uint64_t dirty, writeback, file; /* bytes; file = inactive_file + active_file */
	uint64_t limit;     /* effective limit in bytes (MCG_MAX: none) */
	bool has_domain;    /* v2: the memcg writeback domain below is valid */
	uint64_t headroom;  /* pages: min over the path of min(max, high) - current */
	struct mcg_dirty_limits dom;
	enum mcg_dirty_state global_state, memcg_state, state;
};
/* Fill the domain and the states of C from its counters and the global picture. */
MCG_EXPORT void mcg_dirty_cg_eval(struct mcg_dirty_cg *c, int version,
				  const struct mcg_dirty_global *g);

/* How bad a verdict is. */
enum mcg_dirty_level { MCG_DIRTY_OK = 0, MCG_DIRTY_NOTE, MCG_DIRTY_WARN };
MCG_EXPORT const char *mcg_dirty_level_name(enum mcg_dirty_level l);
/* Share of a v1 limit held by dirty + writeback from which reclaim is expected to stall. */
#define MCG_DIRTY_V1_SHARE_WARN 20
/*
 * One line saying where C stands and why, into BUF (NULL: the level only,
 * without formatting). STALE_S is how long (s) C has held dirty pages without
 * any writeback progress, or < 0 if unknown (one-shot mode). Returns the level.
 */
MCG_EXPORT enum mcg_dirty_level mcg_dirty_verdict(const struct mcg_dirty_cg *c, int version,
						  const struct mcg_dirty_global *g, double stale_s,
						  char *buf, size_t len);

/*
 * Add to KS the counters a cgroup's dirty state is computed from on VERSION
 * (v1 memory.stat's hierarchical limit; v2 the max, high and current the
 * headroom needs up the lineage): what every reader of dirty state asks for.
 */
MCG_EXPORT void mcg_dirty_keys(int version, struct mcg_keyset *ks);
/*
 * The counters of C from a record (struct mcg_record: memory.stat's dirty,
 * writeback, file LRUs; v1 the hierarchical limit): pure, -ENOENT without
 * dirty and writeback. The domain and states come from mcg_dirty_cg_eval().
 */
MCG_EXPORT int mcg_dirty_cg_from_record(const struct mcg_record *r, int version,
					struct mcg_dirty_cg *ret);
/* The same counters from a snapshot's compact row (through its accessors). */
struct mcg_sample_row;
MCG_EXPORT int mcg_dirty_cg_from_row(const struct mcg_sample_row *r, int version,
				     struct mcg_dirty_cg *ret);
/* Parse the keys 'dirty' needs out of memory.stat text (v1 total_*, v2 keys). */
MCG_EXPORT int mcg_dirty_stat_parse(const char *text, int version, struct mcg_dirty_cg *ret);

/*
 * The dirty view of row ROW of a snapshot of the sampler (lib/model/sample.c): its
 * counters and, on v2, the headroom and limit from the rows of its
 * ancestors (mem_cgroup_wb_stats(): max, high, current up to the root).
 * Pure; -ENOENT without dirty and writeback. Not evaluated: mcg_dirty_cg_eval().
 */
struct mcg_snapshot;
MCG_EXPORT int mcg_dirty_cg_from_snapshot(const struct mcg_snapshot *snap, size_t row, int version,
					  struct mcg_dirty_cg *ret);

/*
 * 'dirty' over the one sampler (memcg/sample.h) rooted at the hierarchy's
 * root: the counters dirty needs, pruned below every cgroup whose
 * hierarchical dirty and writeback are 0, so a refresh reads only the dirty
 * part of the tree (with kept descriptors). Cgroups are numbered in the
 * order they are added or found, stably across refreshes. FLAGS:
 * MCG_SAMPLER_ONESHOT for a single refresh.
 */
struct mcg_dirty_sampler;
MCG_EXPORT int mcg_dirty_sampler_new(struct mcg_ctx *ctx, unsigned flags,
				     struct mcg_dirty_sampler **ret);
MCG_EXPORT void mcg_dirty_sampler_free(struct mcg_dirty_sampler *s);
/* Add a cgroup (the caller's spec), read at every refresh dirty or not; returns its index. */
MCG_EXPORT int mcg_dirty_sampler_add(struct mcg_dirty_sampler *s, const char *spec);
MCG_EXPORT size_t mcg_dirty_sampler_count(const struct mcg_dirty_sampler *s);
MCG_EXPORT const char *mcg_dirty_sampler_path(const struct mcg_dirty_sampler *s, size_t i);
/* Start a refresh: one sample of the tree. */
MCG_EXPORT void mcg_dirty_sampler_begin(struct mcg_dirty_sampler *s);
/* Cgroup I's counters in this refresh into RET (not evaluated: call mcg_dirty_cg_eval). */
MCG_EXPORT int mcg_dirty_sampler_read(struct mcg_dirty_sampler *s, size_t i,
				      struct mcg_dirty_cg *ret);
/*
 * Every non-root cgroup with dirty or writeback pages in this refresh (a
 * cgroup first found is added). CB gets each found index. Returns the
 * number found.
 */
MCG_EXPORT int mcg_dirty_sampler_scan(struct mcg_dirty_sampler *s,
				      void (*cb)(size_t idx, void *userdata), void *userdata);

#endif
