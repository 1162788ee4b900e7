/* memcg/limit.h: libmemcg's public interface for 'set-limit' (included by memcg.h). */
#ifndef MEMCG_LIMIT_H
#define MEMCG_LIMIT_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/limit.h>"
#endif

/* The values a limit change can set; MCG_KEEP in a request leaves one as it is. */
enum mcg_limit_knob {
	MCG_LK_MAX,  /* v2 memory.max, v1 memory.limit_in_bytes */
	MCG_LK_HIGH, /* v2 memory.high */
	MCG_LK_LOW,  /* v2 memory.low */
	MCG_LK_MIN,  /* v2 memory.min */
	MCG_LK_SOFT, /* v1 memory.soft_limit_in_bytes */
	MCG_LK_SWAP, /* v2 memory.swap.max; v1 memsw.limit - limit */
	MCG_LK__COUNT
};

enum {
	MCG_LIMIT_ALLOW_OOM = 1 << 0, /* v2: a shrink may end in the kernel's OOM killer */
	MCG_LIMIT_FORCE = 1 << 1,     /* try even below the unreclaimable floor */
};

struct mcg_limit_req {
	uint64_t v[MCG_LK__COUNT]; /* MCG_KEEP: leave as is */
	uint64_t step;		   /* shrink in steps of this many bytes (0: one go) */
	uint64_t timeout_ms;	   /* give up and roll back after this long (0: never) */
	unsigned flags;
};

/* A request with every value MCG_KEEP. */
MCG_EXPORT void mcg_limit_req_init(struct mcg_limit_req *req);
MCG_EXPORT const char *mcg_limit_knob_name(enum mcg_limit_knob k);
/* The file that holds knob K on cgroup VERSION (v1 swap: the memsw limit), NULL if none. */
MCG_EXPORT const char *mcg_limit_knob_file(int version, enum mcg_limit_knob k);
/*
 * Can knob K be set on G's cgroup version? 0, or -EOPNOTSUPP with WHY set to
 * the reason ("memory.high exists only on cgroup v2", ...).
 */
MCG_EXPORT int mcg_limit_supported(const struct mcg_group *g, enum mcg_limit_knob k, char *why,
				   size_t whylen);
/* The current value of knob K (v1 swap: memsw limit - limit; MCG_MAX when unlimited). */
MCG_EXPORT int mcg_limit_current(const struct mcg_group *g, enum mcg_limit_knob k, uint64_t *ret);
/* What percentages refer to: the parent's effective limit, else RAM. */
MCG_EXPORT int mcg_limit_percent_ref(const struct mcg_group *g, uint64_t *ret);

enum mcg_limit_verdict {
	MCG_LV_OK,	    /* no shrink below usage */
	MCG_LV_RECLAIM,	    /* usage above the target: reclaim first */
	MCG_LV_BELOW_FLOOR, /* target below what cannot be reclaimed: refused */
	MCG_LV_FORCED,	    /* below the floor, tried anyway (--force / --allow-oom) */
};

/* What the cgroup holds before the change (bytes; MCG_MAX for unlimited). */
struct mcg_limit_pre {
	int version;
	uint64_t usage, limit, target; /* target: the new limit, or the current one if kept */
	uint64_t anon, file, shmem, kernel, unevictable, dirty, writeback;
	uint64_t swap_headroom; /* swap the cgroup may still use (0 without swap) */
	uint64_t floor;		/* a lower bound of what reclaim cannot free */
	uint64_t reclaim;	/* usage - target when shrinking below usage, else 0 */
	uint64_t parent_limit;	/* the parent's effective limit */
	enum mcg_limit_verdict verdict;
};

MCG_EXPORT int mcg_limit_preflight(const struct mcg_group *g, const struct mcg_limit_req *req,
				   struct mcg_limit_pre *ret);
MCG_EXPORT const char *mcg_limit_verdict_name(enum mcg_limit_verdict v);

enum mcg_limit_op {
	MCG_LW_SET,	/* write VALUE to KNOB */
	MCG_LW_TEMP,	/* write VALUE to KNOB for the duration of the shrink */
	MCG_LW_RECLAIM, /* v2: memory.reclaim until usage <= VALUE */
	MCG_LW_SHRINK,	/* v1: lower the limit to VALUE, stepwise, retrying EBUSY */
};

struct mcg_limit_write {
	enum mcg_limit_op op;
	char knob[48];
	uint64_t before; /* value when planned */
	uint64_t value;	 /* value asked for */
	uint64_t after;	 /* what the kernel reports after the write */
	uint64_t memsw;	 /* v1 MCG_LW_SHRINK/SET of the limit: memsw to set with it, or MCG_KEEP */
	bool done;
};

#define MCG_LIMIT_MAX_WRITES 12
struct mcg_limit_plan {
	size_t n;
	struct mcg_limit_write w[MCG_LIMIT_MAX_WRITES];
};

/* The writes, in order, that REQ needs on G (given PRE from the preflight). */
MCG_EXPORT int mcg_limit_plan(const struct mcg_group *g, const struct mcg_limit_req *req,
			      const struct mcg_limit_pre *pre, struct mcg_limit_plan *ret);

struct mcg_limit_progress {
	uint64_t usage, target, current_limit, elapsed_ms;
	unsigned steps;
};

/* Callbacks: cancelled() returns 0 to go on, or -EINTR / -ETIMEDOUT to stop. */
struct mcg_limit_ops {
	int (*cancelled)(void *userdata);
	void (*progress)(void *userdata, const struct mcg_limit_progress *p);
	void *userdata;
};

/* Why an apply failed, for the caller's message. */
struct mcg_limit_failure {
	int err;	  /* -errno of the failure */
	size_t index;	  /* the plan entry that failed */
	uint64_t usage;	  /* usage at the failure */
	bool rolled_back; /* the saved values are back (but a conflicting one) */
	int rollback_err; /* when not: why (the journal is kept for recover) */
	/*
	 * Another writer changed KNOB while set-limit held it (found FOUND where
	 * it had written EXPECTED): set-limit stopped (err or rollback_err
	 * -MCG_E_CONFLICT) and left their value.
	 */
	bool conflict;
	char knob[48];
	uint64_t found, expected;
};

/*
 * Apply PLAN inside transaction T (lock held): save every knob the plan touches
 * in the journal before the first write, run the writes, read each value back
 * into the plan's `after`, and commit. On failure, timeout or cancel, restore
 * the saved values (rollback) and fill FAIL. Each write (each --step, each
 * EBUSY retry, the temporary memory.high and what replaces it) first reads the
 * file and goes on only if it holds what set-limit wrote last: otherwise
 * -MCG_E_CONFLICT, FAIL names the value found, and the rollback leaves it.
 */
MCG_EXPORT int mcg_limit_apply(struct mcg_txn *t, const struct mcg_limit_req *req,
			       struct mcg_limit_plan *plan, const struct mcg_limit_ops *ops,
			       struct mcg_limit_failure *fail);
/* A systemd unit name if the cgroup's last component is one (.service .scope .slice). */
MCG_EXPORT const char *mcg_limit_systemd_unit(const struct mcg_group *g);

#endif
