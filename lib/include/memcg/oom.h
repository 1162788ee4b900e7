/* memcg/oom.h: OOM kills: the kernel's report read from /dev/kmsg (pure parser), the watcher that catches each kill, the autopsy kept in the history store. */
#ifndef MEMCG_OOM_H
#define MEMCG_OOM_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/oom.h>"
#endif

/* ---- /dev/kmsg records (pure) ------------------------------------------ */

/*
 * One read() of /dev/kmsg is one record: "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n"
 * then dictionary lines " KEY=VALUE\n". The kernel escapes every byte of TEXT
 * below ' ', from 0x7f and the backslash as \xHH (so a message of several
 * lines, such as 6.1's memory.stat dump, arrives as one record with \x0a).
 * FLAGS: '-' a whole record; on kernels before 4.9 'c' opens a continued
 * line and '+' continues it.
 */
struct mcg_kmsg {
	int level;     /* PRIO & 7 */
	int facility;  /* PRIO >> 3 */
	uint64_t seq;
	uint64_t usec; /* local_clock() at the message: microseconds since boot (CLOCK_MONOTONIC) */
	char flags;
	size_t len;    /* of the unescaped text written to the caller's buffer */
};
/*
 * Parse the record BUF (N bytes) and unescape its text into TEXT (LEN bytes,
 * NUL-terminated, cut short to fit: *RET's len says what was kept). Embedded
 * newlines stay '\n'; a \x00 ends the text. -EINVAL for what is no record.
 */
MCG_EXPORT int mcg_kmsg_parse(const char *buf, size_t n, struct mcg_kmsg *ret, char *text,
			      size_t len);

/* ---- the kernel's OOM report (pure) ------------------------------------ */

/* TASK_COMM_LEN 16, each byte possibly escaped (\xHH): 4 bytes each */
#define MCG_OOM_COMM_MAX 68
/* a cgroup path in a report; longer ones are cut (the kernel cuts its line at 1 KiB anyway) */
#define MCG_OOM_PATH_MAX 1024
/* the memory.stat dump of the OOM cgroup, as "key value\n" lines */
#define MCG_OOM_STAT_MAX 4096
/* the largest tasks of the report's task table that are kept, by rss */
#define MCG_OOM_TASKS 8

enum mcg_oom_scope {
	MCG_OOM_SCOPE_UNKNOWN = 0,
	MCG_OOM_SCOPE_MEMCG,  /* "Memory cgroup out of memory": a cgroup's limit */
	MCG_OOM_SCOPE_GLOBAL, /* "Out of memory": the whole machine (or a cpuset, a mempolicy) */
};

/* One "memory: usage N kB, limit N kB, failcnt N" line of the report. */
struct mcg_oom_counter {
	bool valid;
	uint64_t usage_kb, limit_kb, failcnt;
};

/* One row of the report's task table (memory values in pages). */
struct mcg_oom_task {
	int64_t pid, uid, tgid;
	uint64_t total_vm, rss;
	int oom_score_adj;
	char name[MCG_OOM_COMM_MAX];
};

/*
 * One process the kernel killed, with what its report said. The "Killed
 * process" line is printed for every kill; the rest of the report
 * (dump_header: the invoker, the counters, the memory.stat dump, the task
 * table and the oom-kill: summary) is rate limited by the kernel (10 per 5 s),
 * so in a burst most kills come without it: the has_ flags say what came.
 */
struct mcg_oom_kill {
	uint64_t seq, usec; /* of the Killed line */
	int scope;          /* enum mcg_oom_scope, from the Killed line's message */
	bool allocating;    /* "Out of memory (oom_kill_allocating_task)" */
	int64_t pid, uid;   /* uid -1: not printed (before 5.x) */
	char comm[MCG_OOM_COMM_MAX];
	uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb, pgtables_kb;
	bool has_rss, has_pgtables, has_adj;
	int oom_score_adj;
	unsigned group_member; /* 0: the chosen victim; N: the Nth killed with it (memory.oom.group) */

	/* the oom-kill: summary line (since 4.19) */
	bool has_summary, summary_cut; /* cut: a line shorter than the kernel prints (truncated) */
	char constraint[32];           /* CONSTRAINT_MEMCG, CONSTRAINT_NONE, ... */
	bool global_oom;               /* ",global_oom" instead of ",oom_memcg=" */
	char oom_memcg[MCG_OOM_PATH_MAX];  /* the cgroup whose limit was hit; "" unknown */
	char task_memcg[MCG_OOM_PATH_MAX]; /* the victim's cgroup; "" unknown */

	/* the header: "COMM invoked oom-killer: gfp_mask=..., order=N, oom_score_adj=N" */
	bool has_header;
	char invoker[MCG_OOM_COMM_MAX];
	uint64_t gfp_mask;
	int order;
	uint64_t header_usec;
	/* the memcg's counters as the kernel saw them (memcg OOMs) */
	struct mcg_oom_counter mem, swap, memsw, kmem;
	/* "Memory cgroup stats for PATH:" and its "key value" lines (bytes, as memory.stat) */
	char stat_memcg[MCG_OOM_PATH_MAX];
	char stat[MCG_OOM_STAT_MAX];
	size_t stat_len;
	/* the task table: the largest MCG_OOM_TASKS by rss, largest first, of NTASKS_SEEN */
	struct mcg_oom_task tasks[MCG_OOM_TASKS];
	size_t ntasks;
	unsigned ntasks_seen;
};

/*
 * Line parsers, each for one kind of line (without the newline); 0 when LINE
 * is of that kind, -EINVAL when not. Exported for tests and fuzzing.
 */
/* "MSG: Killed process PID (COMM) total-vm:NkB, anon-rss:NkB, ... oom_score_adj:N" */
MCG_EXPORT int mcg_oom_parse_killed(const char *line, size_t n, struct mcg_oom_kill *k);
/* "oom-kill:constraint=...,oom_memcg=...,task_memcg=...,task=COMM,pid=N,uid=N" */
MCG_EXPORT int mcg_oom_parse_summary(const char *line, size_t n, struct mcg_oom_kill *k);

/*
 * The report assembler: lines in kernel order, other messages interleaved
 * between them (they are skipped). It never allocates after creation.
 */
struct mcg_oom_parser;
MCG_EXPORT int mcg_oom_parser_new(struct mcg_oom_parser **ret);
MCG_EXPORT void mcg_oom_parser_free(struct mcg_oom_parser *p);
/* One line of text (no newline) of record SEQ at USEC. 1: a kill is ready (mcg_oom_parser_take). */
MCG_EXPORT int mcg_oom_parser_line(struct mcg_oom_parser *p, uint64_t seq, uint64_t usec,
				   const char *line, size_t n);
/*
 * One /dev/kmsg record as read (mcg_kmsg_parse, continued lines joined, the
 * text split at its newlines). 1: a kill is ready; 0; -EINVAL: no record.
 */
MCG_EXPORT int mcg_oom_parser_record(struct mcg_oom_parser *p, const char *buf, size_t n);
/* The kill the last call made ready (copied into *RET); -ENOENT when none is. */
MCG_EXPORT int mcg_oom_parser_take(struct mcg_oom_parser *p, struct mcg_oom_kill *ret);

/* ---- the autopsy ------------------------------------------------------- */

/*
 * What memcgctl keeps of one kill: the kernel's report joined with the last
 * record the watcher read of the cgroup (read on the events just before the
 * kill, or the kernel's own memory.stat dump when it printed one), the limit
 * that was hit and a sentence saying why reclaim could not help.
 */
struct mcg_oom_autopsy {
	uint64_t time_ns;      /* CLOCK_REALTIME of the kill (from the kernel's timestamp) */
	uint64_t kmsg_seq;     /* of the Killed line; 0 unknown */
	int scope;             /* enum mcg_oom_scope */
	char oom_cgroup[MCG_OOM_PATH_MAX];    /* whose limit was hit ("" unknown, "/" for a global OOM) */
	char victim_cgroup[MCG_OOM_PATH_MAX]; /* the victim's cgroup ("" unknown) */
	char unit[256];        /* the systemd unit of victim_cgroup, "" none */
	int64_t pid, uid;
	char comm[MCG_OOM_COMM_MAX];
	uint64_t anon_rss, file_rss, shmem_rss, total_vm, pgtables; /* bytes, the kernel's */
	int oom_score_adj;
	/* the breakdown (MCG_K_ counters of oom_cgroup's record; absent stays absent) */
	struct mcg_record rec;
	int breakdown;         /* enum mcg_oom_breakdown: where REC came from */
	uint64_t age_us;       /* how old REC was at the kill (0 for the kernel's dump) */
	uint64_t limit, swap_limit; /* the limit that was hit and the swap allowed; MCG_MAX none */
	const char *limit_name;     /* "memory.max", "memory.limit_in_bytes", ... (static) */
	uint64_t usage;             /* at the kill (the kernel's when printed) */
	char why[512];              /* the explanation in words */
	/*
	 * The usage growth before the kill (mcg_oom_autopsy_growth): bytes per
	 * second from the earliest usage read within MCG_OOM_GROWTH_WINDOW_NS
	 * to the usage at the kill (the kernel's, else the latest read), over
	 * GROWTH_US; negative: usage fell.
	 */
	bool has_growth;
	int64_t growth_bps;
	uint64_t growth_us;
	/* the OOM cgroup's largest processes, from the kernel's task table (when it printed one) */
	struct mcg_oom_proc {
		int64_t pid, uid;
		uint64_t rss; /* bytes */
		char name[MCG_OOM_COMM_MAX];
	} procs[MCG_OOM_TASKS];
	size_t nprocs;
};
enum mcg_oom_breakdown {
	MCG_OOM_BD_NONE = 0,
	MCG_OOM_BD_KERNEL,  /* the kernel's report (memory.stat dump and counters) */
	MCG_OOM_BD_SAMPLE,  /* the watcher's last read of the cgroup */
};
/* "none", "kernel", "sample" */
MCG_EXPORT const char *mcg_oom_breakdown_name(int b);
/* "memcg", "global", "unknown" */
MCG_EXPORT const char *mcg_oom_scope_name(int scope);

/*
 * Build the autopsy of K for a VERSION (1, 2) hierarchy: SAMPLE (may be NULL)
 * is the watcher's last record of the OOM cgroup, read AGE_US before the kill.
 * BOOT_NS maps the kernel's timestamps to CLOCK_REALTIME: CLOCK_REALTIME -
 * CLOCK_MONOTONIC, plus CLOCK_MONOTONIC - the log's clock where that is known
 * (the watcher estimates it from the records it reads).
 * Pure but for nothing: the unit comes from the path alone.
 */
MCG_EXPORT void mcg_oom_autopsy_build(const struct mcg_oom_kill *k, int version,
				      const struct mcg_record *sample, uint64_t age_us,
				      uint64_t boot_ns, struct mcg_oom_autopsy *ret);
/* One usage read of a cgroup: CLOCK_MONOTONIC ns (the kernel log's clock) and bytes. */
struct mcg_oom_point {
	uint64_t ns, usage;
};
/* how far back before a kill a usage read counts for its growth */
#define MCG_OOM_GROWTH_WINDOW_NS (60ULL * 1000000000ULL)
/*
 * The growth of the OOM cgroup's usage before the kill at KILL_NS
 * (CLOCK_MONOTONIC) from the reads P (N of them, any order), into A's
 * growth fields, and A->why again (pure). The end is the kernel's usage at
 * the kill when A's breakdown is the kernel's, else the latest read up to
 * the kill (within the window); the start the earliest read within MCG_OOM_GROWTH_WINDOW_NS
 * before the end, at least 1 ms before it. No such pair: no growth.
 */
MCG_EXPORT void mcg_oom_autopsy_growth(struct mcg_oom_autopsy *a, int version,
				       const struct mcg_oom_point *p, size_t n, uint64_t kill_ns);
/* The sentence of A->why from A's numbers (pure; mcg_oom_autopsy_build calls it). */
MCG_EXPORT void mcg_oom_explain(struct mcg_oom_autopsy *a, int version);

/*
 * The autopsy as a history event (MCG_HEV_OOM_AUTOPSY): cgroup the victim's
 * cgroup, pid, uid, comm the victim, count its rss in bytes, op the scope,
 * detail "v1 KEY=VALUE ..." (values %XX-escaped) holding the rest. The event's
 * strings point into BUF (LEN bytes). -ENOSPC when BUF is too small.
 */
MCG_EXPORT int mcg_oom_autopsy_to_event(const struct mcg_oom_autopsy *a,
					struct mcg_hist_event *ev, char *buf, size_t len);
/* Back from a stored event; -MCG_E_CORRUPT for what mcg_oom_autopsy_to_event does not write. */
MCG_EXPORT int mcg_oom_autopsy_from_event(const struct mcg_hist_event *ev,
					  struct mcg_oom_autopsy *ret);

/* ---- the early warning ---------------------------------------------- */

/*
 * An OOM about to happen: the cgroup's usage sits at its limit, the kernel
 * keeps failing charges there (v1 failcnt, v2 memory.events max or high
 * rising, or v1 under_oom) and nothing is left to reclaim. One per episode.
 */
struct mcg_oom_warning {
	uint64_t time_ns; /* CLOCK_REALTIME of the read that decided */
	char cgroup[MCG_OOM_PATH_MAX];
	char unit[256];   /* the systemd unit of cgroup, "" none */
	uint64_t usage, limit;
	const char *limit_name; /* static */
	uint64_t reclaimable;   /* what reclaim could still take (bytes) */
	const char *signal;     /* "failcnt", "max", "high", "under_oom" (static) */
	uint64_t events;        /* how much SIGNAL rose between the reads (0 for under_oom) */
	uint64_t interval_us;   /* between the two reads */
	bool has_psi_full;
	uint64_t psi_full_us;   /* memory.pressure full total's rise between the reads */
	char why[384];
};
/*
 * Is CUR (read INTERVAL_US after PREV, both of one cgroup of a VERSION
 * hierarchy) an OOM about to happen? SWAP_FREE: the machine has swap left
 * (anon counts as reclaimable then, where the cgroup may swap). Fills *RET
 * (but for time_ns, cgroup and unit) and returns true when it is. Pure.
 */
MCG_EXPORT bool mcg_oom_warn_eval(const struct mcg_record *prev, const struct mcg_record *cur,
				  uint64_t interval_us, int version, bool swap_free,
				  struct mcg_oom_warning *ret);
/*
 * The warning as a history event (MCG_HEV_OOM_WARNING): cgroup, count the
 * signal's rise, op the signal, detail "v1 KEY=VALUE ..." (values
 * %XX-escaped) holding the rest; uid, loginuid and pid -1, no comm. The
 * event's strings point into BUF (LEN bytes). -ENOSPC when BUF is too small.
 */
MCG_EXPORT int mcg_oom_warning_to_event(const struct mcg_oom_warning *wn,
					struct mcg_hist_event *ev, char *buf, size_t len);
/*
 * Back from a stored event; -MCG_E_CORRUPT for what mcg_oom_warning_to_event
 * does not write (keys it does not know are skipped: a later version's).
 */
MCG_EXPORT int mcg_oom_warning_from_event(const struct mcg_hist_event *ev,
					  struct mcg_oom_warning *ret);
/*
 * Usage within this of the limit is "at the limit": 1/32 of it, at least
 * 512 KiB, at most a quarter of it.
 */
MCG_EXPORT uint64_t mcg_oom_warn_margin(uint64_t limit);

/* ---- the watcher ------------------------------------------------------- */

/*
 * Catches each kill as it happens, without polling: /dev/kmsg read from its
 * end, and per cgroup under the watched path v1 memory.oom_control through
 * cgroup.event_control (an eventfd) or v2 memory.events (inotify IN_MODIFY),
 * on which the cgroup's record is read again: the breakdown an autopsy takes
 * is the one read at the OOM notification (v1: before the kill) or at the
 * last max event (v2). Directories are followed with inotify. One descriptor
 * (an epoll) to poll; the v1 usage thresholds are registered by a thread of
 * the watcher's own (each registration waits for an RCU grace period in the
 * kernel, 10-20 ms: never in the loop that reads the kills).
 */
struct mcg_oom_watch;
enum {
	MCG_OOM_WATCH_FROM_START = 1 << 0, /* read the kernel log from its oldest record */
	MCG_OOM_WATCH_NO_CGROUPS = 1 << 1, /* the kernel log only */
};
MCG_EXPORT int mcg_oom_watch_new(struct mcg_ctx *ctx, const char *path, unsigned flags,
				 struct mcg_oom_watch **ret);
MCG_EXPORT void mcg_oom_watch_free(struct mcg_oom_watch *w);
/* The descriptor to poll for POLLIN. */
MCG_EXPORT int mcg_oom_watch_fd(const struct mcg_oom_watch *w);
/*
 * A restart: read the kernel log again from the oldest record it still holds,
 * skipping records up to SEQ (the last kill stored before): a kill made while
 * no watcher ran is told once, none twice.
 */
MCG_EXPORT int mcg_oom_watch_resume(struct mcg_oom_watch *w, uint64_t seq);
/* The boot's identity (/proc/sys/kernel/random/boot_id, 36 characters and a NUL): kmsg seqs are per boot. */
MCG_EXPORT int mcg_oom_boot_id(char *buf, size_t len);
/*
 * Handle what is ready (never blocks). Returns the number of autopsies now
 * waiting (mcg_oom_watch_next), or -errno.
 */
MCG_EXPORT int mcg_oom_watch_process(struct mcg_oom_watch *w);
/* The next autopsy (copied into *RET); -ENOENT when none waits. */
MCG_EXPORT int mcg_oom_watch_next(struct mcg_oom_watch *w, struct mcg_oom_autopsy *ret);
/* The next early warning (copied into *RET); -ENOENT when none waits. */
MCG_EXPORT int mcg_oom_watch_next_warning(struct mcg_oom_watch *w, struct mcg_oom_warning *ret);
/*
 * How long the caller may sleep before calling mcg_oom_watch_process again
 * even without an event (ms; -1: until the descriptor is ready): a cgroup at
 * its limit is read every 100 ms until it leaves it (v1 has no event for a
 * failed charge); after an OOM notification the kernel log is read every
 * 1 ms until the kill's line is (at most 200 ms): the kernel wakes a
 * /dev/kmsg reader only at its next tick, the line is readable at once.
 */
MCG_EXPORT int mcg_oom_watch_timeout(const struct mcg_oom_watch *w);
/*
 * Cgroups watched now, and what the watcher costs: wakeups and records read.
 * v1: REGISTER_FAILURES, eventfd registrations (oom_control, usage
 * thresholds) cgroup.event_control refused, each logged at most once a
 * minute; UNREGISTERED, cgroups watched now without their OOM notification
 * (their kills come from the kernel log alone, with no read before them).
 */
struct mcg_oom_watch_stats {
	size_t cgroups, unregistered;
	uint64_t wakeups, reads, kmsg_records, kills, lost_records, warnings, register_failures;
};
MCG_EXPORT void mcg_oom_watch_stats(const struct mcg_oom_watch *w, struct mcg_oom_watch_stats *ret);
/*
 * The usage of the rows of SNAP (a sampler's, just taken) as reads of the
 * watched cgroups: the growth an autopsy tells comes from them and from the
 * watcher's own reads.
 */
MCG_EXPORT void mcg_oom_watch_feed(struct mcg_oom_watch *w, const struct mcg_snapshot *snap);

#endif
