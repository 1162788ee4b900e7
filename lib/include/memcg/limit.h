/* memcg/limit.h: libmemcg's public interface for 'set-limit' (included by memcg.h). */
#ifndef MEMCG_LIMIT_H
#define MEMCG_LIMIT_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/limit.h>"
#endif

#include <memcg/unit.h> /* struct mcg_unit_prop */

/* The values a limit change can set; MCG_KEEP in a request leaves one as it is. */
enum mcg_limit_knob {
	MCG_LK_MAX,  /* v2 memory.max, v1 memory.limit_in_bytes */
	MCG_LK_HIGH, /* v2 memory.high */
	MCG_LK_LOW,  /* v2 memory.low */
	MCG_LK_MIN,  /* v2 memory.min */
	MCG_LK_SOFT, /* v1 memory.soft_limit_in_bytes */
	MCG_LK_SWAP, /* v2 memory.swap.max; v1 memsw.limit - limit */
	MCG_LK_SWAP_HIGH, /* v2 memory.swap.high (Linux 5.8): swap-out throttled above it */
	MCG_LK_ZSWAP_MAX, /* v2 memory.zswap.max (Linux 5.19, CONFIG_ZSWAP) */
	MCG_LK__COUNT
};

enum {
	MCG_LIMIT_ALLOW_OOM = 1 << 0, /* v2: a shrink may end in the kernel's OOM killer */
	MCG_LIMIT_FORCE = 1 << 1,     /* try even below the unreclaimable floor */
	MCG_LIMIT_DRY_RUN = 1 << 2,   /* mcg_limit_apply: resolve, preflight, plan; no lock, no write */
	MCG_LIMIT_WAIT = 1 << 3,      /* mcg_limit_apply: wait for another memcgctl's lock */
	/*
	 * mcg_limit_apply on a systemd unit's own cgroup (v2, systemd running): the
	 * final values are not handed to systemd (SetUnitProperties); the kernel only.
	 */
	MCG_LIMIT_NO_SYSTEMD = 1 << 4,
	MCG_LIMIT_RUNTIME = 1 << 5, /* SetUnitProperties with runtime=true (until reboot) */
};

/* A request resolved against the cgroup: bytes. */
struct mcg_limit_req {
	uint64_t v[MCG_LK__COUNT]; /* MCG_KEEP: leave as is */
	uint64_t step;		   /* shrink in steps of this many bytes (0: one go) */
	unsigned flags;		   /* MCG_LIMIT_ALLOW_OOM, MCG_LIMIT_FORCE */
};

/*
 * A request as the user wrote it, not yet read against the cgroup. Each value:
 * 512M, 1.5G, 4096, max, NN% (of the parent's effective limit, else RAM), +N or
 * -N (relative to the knob's current value; for v1 swap, to memsw - limit).
 */
struct mcg_limit_spec {
	const char *v[MCG_LK__COUNT]; /* NULL: leave as is */
	const char *step;	      /* NULL: shrink in one go */
	unsigned flags;		      /* MCG_LIMIT_* */
};

/* What is wrong with a request (mcg_limit_resolve, mcg_limit_apply). */
enum mcg_limit_bad {
	MCG_LB_NONE,
	MCG_LB_ROOT,	    /* the root cgroup has no limits */
	MCG_LB_NOTHING,	    /* no value to change */
	MCG_LB_UNSUPPORTED, /* KNOB does not exist here (cgroup version, swap accounting) */
	MCG_LB_ALLOW_OOM,   /* MCG_LIMIT_ALLOW_OOM on cgroup v1 */
	MCG_LB_STEP,	    /* the step is not a size of at least one page */
	MCG_LB_SIZE,	    /* KNOB's value is not a valid size here */
	MCG_LB_READ_REF,    /* the parent's limit (for NN%) could not be read: ERR */
	MCG_LB_READ,	    /* KNOB's current value (for +N/-N) could not be read: ERR */
};
struct mcg_limit_error {
	enum mcg_limit_bad bad;
	int knob;     /* the enum mcg_limit_knob concerned, -1 for none */
	int err;      /* -EINVAL, -ERANGE, -EOPNOTSUPP: the request; else -errno of a read */
	char why[160]; /* "unknown suffix 'X'", "memory.high exists only on cgroup v2 ..." */
};
/*
 * Resolve and validate SPEC against G as it is now: every value parsed against
 * the knob's current value and the parent's effective limit, the step, the
 * flags against the cgroup version. 0, or -errno with ERR saying what and why
 * (ERR->bad MCG_LB_READ_REF / MCG_LB_READ: a read failed; the others: the
 * request is wrong). mcg_limit_apply() calls it under the cgroup's lock.
 */
MCG_EXPORT int mcg_limit_resolve(const struct mcg_group *g, const struct mcg_limit_spec *spec,
				 struct mcg_limit_req *ret, struct mcg_limit_error *err);

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

struct mcg_limit_result;
/* Callbacks of mcg_limit_apply(); any may be NULL. */
struct mcg_limit_ops {
	/* During a shrink, before each step. */
	void (*progress)(void *userdata, const struct mcg_limit_progress *p);
	/* The plan is made (RES: req, pre, plan), nothing written yet: for warnings. */
	void (*planned)(void *userdata, const struct mcg_limit_result *res);
	/* A journal a killed run left on the cgroup: what was restored (a dry run: would be). */
	mcg_recover_fn recovered;
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
	/* another process's write seen (fanotify); WRITER.overwritten: theirs was lost */
	struct mcg_writer_seen writer;
};

/* Where mcg_limit_apply() stopped. */
enum mcg_limit_stage {
	MCG_LS_REQUEST,	  /* the request: RESULT.error says what and why */
	MCG_LS_ACCESS,	  /* no write permission on the file of RESULT.error.knob: ERR */
	MCG_LS_LOCK,	  /* the lock: -MCG_E_LOCKED, -MCG_E_STALE_JOURNAL (a killed run's
			   * journal could not be restored), -MCG_E_UNTRUSTED, -ETIMEDOUT,
			   * -EINTR, -errno */
	MCG_LS_PREFLIGHT, /* reading the cgroup's state */
	MCG_LS_PLAN,
	MCG_LS_FLOOR,	  /* refused, nothing written: the target is below the floor (-ERANGE) */
	MCG_LS_APPLY,	  /* the writes: RESULT.fail says which, and what was put back */
	MCG_LS_SYSTEMD,	  /* systemd: finding the unit failed (nothing written), or it refused
			   * SetUnitProperties after the writes (RESULT.systemd.why; the
			   * kernel's values put back as after a failed write: RESULT.fail) */
	MCG_LS_DONE,	  /* success (a dry run: planned; see pre.verdict) */
};

/*
 * A systemd unit owns the cgroup itself (v2, systemd running, no
 * MCG_LIMIT_NO_SYSTEMD): once the writes are done and read back, the final
 * values go to systemd as 'systemctl set-property' would send them, so that
 * systemd's view and the kernel's agree and a daemon-reload keeps them.
 */
struct mcg_limit_systemd {
	bool used;		/* the values go (a dry run: would go) through systemd */
	bool runtime;		/* runtime=true: /run/systemd/system.control, until reboot */
	bool done;		/* systemd accepted them */
	char unit[256];
	size_t n;
	struct mcg_unit_prop props[MCG_LK__COUNT]; /* MemoryMax=..., in the request's order */
	char why[256];		/* MCG_LS_SYSTEMD: systemd's reason */
};
/* The systemd property of knob K on cgroup v2 ("MemoryMax"), NULL if none. */
MCG_EXPORT const char *mcg_limit_systemd_property(enum mcg_limit_knob k);

struct mcg_limit_result {
	enum mcg_limit_stage stage;
	int err;			/* the return value */
	struct mcg_limit_error error;	/* MCG_LS_REQUEST, MCG_LS_ACCESS */
	struct mcg_limit_req req;	/* resolved (under the lock, unless a dry run) */
	struct mcg_limit_pre pre;	/* from MCG_LS_PLAN on */
	struct mcg_limit_plan plan;	/* from MCG_LS_FLOOR on; after MCG_LS_APPLY: after, done */
	struct mcg_limit_failure fail;	/* MCG_LS_APPLY */
	char journal[4400];		/* the journal file (kept when !fail.rolled_back) */
	struct mcg_limit_systemd systemd; /* from MCG_LS_LOCK on */
};

/*
 * Change G's limits as SPEC asks, in-process (what 'memcgctl set-limit' does):
 * validate SPEC, take G's lock (MCG_LIMIT_WAIT: wait for it) restoring a
 * journal a killed run left (OPS->recovered hears of it), resolve SPEC under the
 * lock (mcg_limit_resolve), preflight, plan (OPS->planned), refuse a target
 * below the floor unless forced, then journal every value the plan touches and
 * write, reading each back. On a failure, CANCEL's deadline (-ETIMEDOUT) or its
 * flag (-EINTR), every saved value is put back (rollback). Every write and
 * every restore first reads the file and goes on only if it holds what
 * set-limit wrote last: otherwise -MCG_E_CONFLICT, RESULT.fail names the value
 * found, and it is left. On a systemd unit's own cgroup (struct
 * mcg_limit_systemd) the final values then go to systemd; if it refuses them,
 * the kernel's values are put back and the stage is MCG_LS_SYSTEMD.
 * MCG_LIMIT_DRY_RUN: resolve, preflight and plan only
 * (a stale journal reported as what would be restored). 0 on success;
 * RESULT (never NULL) says where it stopped and why. Prints nothing.
 */
MCG_EXPORT int mcg_limit_apply(struct mcg_group *g, const struct mcg_limit_spec *spec,
			       const struct mcg_cancel *cancel, const struct mcg_limit_ops *ops,
			       struct mcg_limit_result *result);
/* A systemd unit name if the cgroup's last component is one (.service .scope .slice). */
MCG_EXPORT const char *mcg_limit_systemd_unit(const struct mcg_group *g);

#endif
