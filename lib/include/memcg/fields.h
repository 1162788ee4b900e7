/* memcg/fields.h: the values derived from counters, computed once for every command: the effective limit, the v2 writeback headroom, usage in percent of the limit, what holds the memory (included by memcg.h). */
#ifndef MEMCG_FIELDS_H
#define MEMCG_FIELDS_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/fields.h>"
#endif

/*
 * A cgroup's record and its ancestors', nearest first: what a derived value
 * is computed from. REC[0] is the cgroup, REC[i + 1] the parent of REC[i];
 * ROOT says REC[N - 1] is the hierarchy's root (which has no limits), else the
 * lineage stops below it (a snapshot of a subtree: the values above its top
 * row are not counted, and the result says so by being no lower than theirs).
 */
struct mcg_sample_row;
struct mcg_lineage {
	const struct mcg_record *const *rec;
	size_t n; /* at least 1 */
	bool root;
	/*
	 * Or a snapshot's compact rows, read through mcg_sample_has/get: ROW[i],
	 * where ROW is not NULL and ROW[i] is not, stands for REC[i] (REC may then
	 * be NULL). A sampler's lineage needs no struct mcg_record per ancestor.
	 */
	const struct mcg_sample_row *const *row;
};

/*
 * The limit that binds the cgroup: the least memory.max of the cgroup and its
 * ancestors below the root on v2 (the kernel charges up the path); on v1 the
 * kernel's own hierarchical_memory_limit of REC[0] when it was read, else the
 * least limit_in_bytes up the lineage. MCG_MAX: nothing limits it. False when
 * no value the answer depends on was read (left out, not "unlimited").
 */
MCG_EXPORT bool mcg_field_effective_limit(int version, const struct mcg_lineage *l,
					  uint64_t *ret);
/*
 * v2: the writeback domain's headroom in pages, as mm/memcontrol.c's
 * mem_cgroup_wb_stats() computes it: the least of min(max, high) - usage over
 * the cgroup and its ancestors below the root (a row without usage counts as
 * unlimited). UINT64_MAX: no ceiling anywhere on the path.
 */
MCG_EXPORT uint64_t mcg_field_wb_headroom(const struct mcg_lineage *l, uint64_t page_size);
/*
 * Usage in percent of the cgroup's own limit (memory.max, limit_in_bytes):
 * false when either is missing or there is no limit.
 */
MCG_EXPORT bool mcg_field_usage_percent(const struct mcg_record *r, double *ret);
/*
 * The working set as cAdvisor and the kubelet count it (what Kubernetes
 * evicts and OOM-kills by): usage minus the inactive file LRU (v1's
 * hierarchical total_inactive_file, v2's inactive_file), 0 when that is the
 * larger. False when either is missing. It still counts all active page cache,
 * which `memcgctl size` (NEED) does not; the two side by side show what the
 * kubelet's number overstates.
 */
MCG_EXPORT bool mcg_field_working_set(const struct mcg_record *r, uint64_t *ret);
/* The counters mcg_field_working_set() reads, added to KS. */
MCG_EXPORT void mcg_field_working_set_keys(struct mcg_keyset *ks);

/*
 * Row I of ROWS, a table of cgroups in which each row names its parent's
 * index: its parent (*PARENT, < 0 for none), its path, and its counters: a
 * struct mcg_record (*RET_REC) or a snapshot's compact row (*RET_ROW), the
 * other left NULL.
 */
typedef void (*mcg_lineage_row_fn)(const void *rows, size_t i, long *parent, const char **path,
				   const struct mcg_record **ret_rec,
				   const struct mcg_sample_row **ret_row);
/*
 * ROW's lineage in ROWS (N_ROWS of them, read by FN): its counters and its
 * parents' up to the row without a parent, into RECS and SROWS (room for MAX
 * each: MCG_WALK_MAX_DEPTH + 1 always does; RECS may be NULL when FN gives
 * rows only, SROWS when it gives records only); ROOT when that row is the
 * hierarchy's root ("/"). Nothing is copied: the lineage points into ROWS.
 */
MCG_EXPORT void mcg_lineage_of_rows(const void *rows, size_t n_rows, size_t row,
				    mcg_lineage_row_fn fn, const struct mcg_record **recs,
				    const struct mcg_sample_row **srows, size_t max,
				    struct mcg_lineage *ret);

/*
 * ROW's lineage in the snapshot S: its row and its ancestors', through their
 * parent indices, into BUF (room for MAX), read through the accessors.
 */
struct mcg_snapshot;
MCG_EXPORT void mcg_snapshot_lineage(const struct mcg_snapshot *s, size_t row,
				     const struct mcg_sample_row **buf, size_t max,
				     struct mcg_lineage *ret);

/*
 * The kernel memory reclaim cannot take from the cgroup of R, in bytes: v2's
 * memory.stat kernel minus slab_reclaimable; 0 on v1, which does not split it.
 */
MCG_EXPORT uint64_t mcg_field_kernel_floor(const struct mcg_record *r, int version);
/*
 * A lower bound of what reclaim cannot take from the cgroup of R, in bytes:
 * kernel memory that is not reclaimable slab (v2; 0 on v1, which does not
 * split it), plus the larger of the mlocked/unevictable pages and the anon and
 * shmem that cannot go to swap (SWAP_HEADROOM: the swap the cgroup may still
 * use). set-limit's preflight floor and empty's residue explanation.
 */
MCG_EXPORT uint64_t mcg_floor_from_record(const struct mcg_record *r, int version,
					  uint64_t swap_headroom);
/* What reclaim can still take without swap: the file LRUs (or file - shmem); plus anon with SWAP. */
MCG_EXPORT uint64_t mcg_reclaimable_from_record(const struct mcg_record *r, bool swap);

/*
 * The lineage of G read from the kernel: G's own single-value files of KEYS
 * and each ancestor's below the root; the root's record is there, empty (its
 * values never count, and it is not opened). A key the kernel has no file for on this
 * version, or one in a multi-value file, is left out. Free with
 * mcg_lineage_free(); -errno when an ancestor cannot be opened.
 */
struct mcg_lineage_buf {
	struct mcg_lineage l;
	struct mcg_record *recs;
	const struct mcg_record **ptrs;
};
MCG_EXPORT int mcg_lineage_read(const struct mcg_group *g, const enum mcg_key *keys, size_t nkeys,
				struct mcg_lineage_buf *ret);
MCG_EXPORT void mcg_lineage_free(struct mcg_lineage_buf *b);

/*
 * G's effective limit read from the kernel (mcg_field_effective_limit over
 * the limits of G's lineage): with SELF (not NULL), G's own record stands for
 * G's limit file; with ABOVE, G is left out (the parent's effective limit).
 * 1 with *RET set, 0 when nothing on the path limits (or ABOVE for the root),
 * -errno as mcg_lineage_read.
 */
MCG_EXPORT int mcg_group_effective_limit(const struct mcg_group *g, const struct mcg_record *self,
					 bool above, uint64_t *ret);

/* ---- names: one per value, the same in every command ------------------- */

/*
 * The derived values the commands print, numbered on after the counters of
 * MCG_SCHEMA: one id (an enum mcg_key, or an enum mcg_field) names either, and
 * mcg_value_names() gives its names. Each row: the id (MCG_F_<ID>), the JSON key
 * (also the CSV column and a name -o takes) and the text column header.
 * memcgctl-json(7) NAMES states the rule (the header is the key without its
 * unit in capitals, a rate's KEY_per_s) and lists the headers that are short
 * for top's columns.
 */
#define MCG_FIELDS(X)                                                                              \
	X(USAGE_PERCENT, "usage_percent", "%LIM")                                                   \
	X(RECLAIM_RATE, "reclaim_bytes_per_s", "RECL/s")                                            \
	X(RECLAIM_DIRECT_RATE, "reclaim_direct_bytes_per_s", "DRCL/s")                              \
	X(SCAN_RATE, "scan_bytes_per_s", "SCAN/s")                                                  \
	X(EFFICIENCY, "efficiency_percent", "EFF%")                                                 \
	X(USAGE_FALL_RATE, "usage_fall_bytes_per_s", "FALL/s")                                      \
	X(REFAULT_RATE, "refault_per_s", "RFLT/s")                                                  \
	X(EVENTS_HIGH_SINCE, "events_high_since_start", "EVHIGH")                                   \
	X(EVENTS_MAX_SINCE, "events_max_since_start", "EVMAX")                                      \
	X(EVENTS_OOM_SINCE, "events_oom_since_start", "OOM")                                        \
	X(EVENTS_OOM_KILL_SINCE, "events_oom_kill_since_start", "KILL")                             \
	X(FAILCNT_RATE, "failcnt_per_s", "FAIL/s")                                                  \
	X(PSI_SOME_AVG10, "psi_some_percent", "SOME")                                               \
	X(PSI_FULL_AVG10, "psi_full_percent", "FULL")                                               \
	X(STALL_RATE, "stall_ns_per_s", "STALL")                                                    \
	X(ASYNC, "async", "ASYNC")                                                                  \
	X(NEEDED, "needed_bytes", "NEED")                                                           \
	X(WORKING_SET, "working_set_bytes", "WORKING_SET")                                          \
	/* dirty: dirty + writeback in percent of the limit and of the page cache */               \
	X(DIRTY_LIMIT_PERCENT, "limit_percent", "%LIMIT")                                           \
	X(DIRTY_FILE_PERCENT, "file_percent", "%FILE")                                              \
	/* dirty, v2: the memcg writeback domain's thresholds */                                    \
	X(DOMAIN_BG_THRESH, "domain_background_threshold_bytes", "BG")                              \
	X(DOMAIN_FREERUN, "domain_freerun_bytes", "FREERUN")                                        \
	X(DOMAIN_THRESH, "domain_threshold_bytes", "THRESH")

enum mcg_field {
	MCG_F__BEFORE = MCG_K__COUNT - 1,
#define MCG__FIELD_ENUM(id, json, header) MCG_F_##id,
	MCG_FIELDS(MCG__FIELD_ENUM)
#undef MCG__FIELD_ENUM
	MCG_F__END /* ids: 0 .. MCG_F__END - 1 */
};

/* The names of a value: a counter (MCG_K_*) or a derived value (MCG_F_*). */
struct mcg_value_names {
	const char *json;   /* JSON key, CSV column, -o name: "writeback_bytes", "psi_some_total_ns" */
	const char *header; /* text column header: "WBACK", "%LIM" */
	/*
	 * Show's text label: the JSON key without its unit ("writeback", "swap").
	 * Derived values: the JSON key.
	 */
	const char *label;
	/*
	 * export's OpenMetrics family (mcg_om_metric_name: memcgctl_writeback_bytes,
	 * memcgctl_psi_some_seconds_total); NULL: not exported by that name.
	 */
	const char *om;
	/* the printed value is the record's times SCALE (PSI totals: us read, ns printed) */
	uint64_t scale;
};
/* ID's names; NULL for an unknown id. */
MCG_EXPORT const struct mcg_value_names *mcg_value_names(unsigned id);
/* ID's JSON key (mcg_value_names(ID)->json), "" for an unknown id. */
MCG_EXPORT const char *mcg_json_key(unsigned id);
/* ID's text column header, "" for an unknown id. */
MCG_EXPORT const char *mcg_header(unsigned id);

#endif
