/* memcg/history.h: the history store: recording samples and events, reading them back (record, top --replay, dump). */
#ifndef MEMCG_HISTORY_H
#define MEMCG_HISTORY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/history.h>"
#endif

/*
 * The store is a trusted directory (root-owned, writable by nobody else,
 * opened with O_NOFOLLOW) of append-only segments, history-<START_NS>.seg,
 * each written by one recorder run (a restart opens a new segment, so a frame
 * torn by SIGKILL or power loss is only ever the last of its segment). A
 * segment is the 8-byte magic "MCGHIST\1" and frames; a frame is a 32-byte
 * header (magic "MCHF", type, lengths, CLOCK_REALTIME ns, sequence number,
 * CRC-32C of header and payload) and a payload compressed with zstd. The
 * first frame is the segment header (version, root, the names of the
 * counters in the order frames store them, so a store outlives changes of
 * MCG_SCHEMA). A key frame carries the cgroup table (paths) and every value;
 * the frames between key frames carry only what changed: cgroups that came
 * and went, and per cgroup a validity change and zigzag varint deltas of the
 * values that moved. Each frame also carries the events seen since the
 * previous one. MCG_HIST_DEFAULT_DIR is /var/lib/memcgctl/history.
 */
#define MCG_HIST_DEFAULT_DIR "/var/lib/memcgctl/history"
/*
 * History is read by root and the group MCG_HIST_GROUP (as the journal is):
 * the store is made (and kept) MCG_HIST_DIR_MODE, its segments
 * MCG_HIST_FILE_MODE, both of that group; the event spool is root's alone.
 */
#define MCG_HIST_GROUP "adm"
#define MCG_HIST_DIR_MODE 0750
#define MCG_HIST_FILE_MODE 0640

/* What happened between two samples (a cgroup's life, the kernel's events, memcgctl's changes). */
enum mcg_hist_event_type {
	MCG_HEV_CREATED = 1, /* a cgroup appeared */
	MCG_HEV_REMOVED,     /* a cgroup went away */
	MCG_HEV_OOM_KILL,    /* COUNT processes OOM-killed (v2 memory.events, v1 oom_control) */
	MCG_HEV_OOM,         /* the OOM killer was invoked COUNT times (v2 memory.events oom) */
	MCG_HEV_MAX,         /* COUNT times at memory.max (v2 memory.events max) */
	MCG_HEV_HIGH,        /* COUNT times over memory.high (v2 memory.events high) */
	MCG_HEV_FAILCNT,     /* COUNT charges failed at the limit (v1 memory.failcnt) */
	MCG_HEV_DIRTY,       /* the dirty verdict changed: COUNT the new level, DETAIL the verdict */
	MCG_HEV_CHANGE,      /* memcgctl changed the cgroup: OP, DETAIL, who (UID, PID, COMM) */
	MCG_HEV_OOM_AUTOPSY, /* one OOM kill explained: PID, UID, COMM the victim (memcg/oom.h) */
	MCG_HEV_OOM_WARNING, /* an OOM kill near: COUNT the signal's rise, OP the signal (memcg/oom.h) */
	MCG_HEV_SIZE,        /* a new answer of memcgctl size: COUNT the needed bytes (memcg/sizing.h) */
	MCG_HEV__COUNT
};
/*
 * A reader skips an event of a type it does not know (a newer writer's) and
 * keeps the rest of its frame; types up to this are believed, others make the
 * frame corrupt. Readers before oom_warning refused a frame with one.
 */
#define MCG_HEV_TYPE_MAX 127
/*
 * "created", "removed", "oom_kill", "oom", "max", "high", "failcnt", "dirty", "change",
 * "oom_autopsy", "oom_warning", "size_answer"; NULL.
 */
MCG_EXPORT const char *mcg_hist_event_name(int type);

struct mcg_hist_event {
	uint64_t time_ns; /* CLOCK_REALTIME */
	int type;         /* enum mcg_hist_event_type */
	const char *cgroup;
	uint64_t count;
	int64_t uid, pid;  /* -1: unknown */
	int64_t loginuid;  /* the login user behind UID (sudo), -1: unknown */
	const char *comm, *op, *detail; /* may be NULL */
};

/* ---- the event spool: changes memcgctl makes, for the recorder ---------- */

/*
 * RUNDIR/history-events: one line per change memcgctl makes, appended by the
 * library where the change happens and drained by the recorder into the
 * store. The recorder creates it; without a recorder there is no spool and
 * nothing is written. A line:
 *   memcgctl-event 1 TIME_NS UID LOGINUID PID COMM OP CGROUP DETAIL
 * COMM, OP, CGROUP, DETAIL %XX-escaped (bytes <= ' ', >= 0x7f, '%'), "-" when empty.
 */
#define MCG_HIST_SPOOL "history-events"
/* The spool stops growing here (a recorder that is not draining it). */
#define MCG_HIST_SPOOL_MAX (4u << 20)
/*
 * Note a change on CGROUP (OP: "set-limit", "empty", ...; DETAIL: what) in the
 * spool of CTX's run directory. 0 also when there is no spool (no recorder);
 * never fails the operation that calls it.
 */
MCG_EXPORT int mcg_hist_note(struct mcg_ctx *ctx, const char *op, const char *cgroup,
			     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The recorder: make the spool (RUNDIR/history-events, 0600) so that changes are noted. */
MCG_EXPORT int mcg_hist_spool_create(struct mcg_ctx *ctx);
struct mcg_hist_spool_batch {
	struct mcg_hist_event *ev;
	size_t n;
	unsigned bad; /* lines that were not memcgctl's (or cut short) */
	char *strings;
};
/*
 * Take the spool's events: it is renamed to history-events.taken and a new
 * spool made; the batch stays there until mcg_hist_spool_done() (a recorder
 * killed before storing it takes it again at its next start).
 */
MCG_EXPORT int mcg_hist_spool_take(struct mcg_ctx *ctx, struct mcg_hist_spool_batch *ret);
MCG_EXPORT void mcg_hist_spool_batch_free(struct mcg_hist_spool_batch *b);
/* The batch taken is stored: remove it. */
MCG_EXPORT int mcg_hist_spool_done(struct mcg_ctx *ctx);
/* Format one spool line for EV into BUF (with the newline); its length, or -ENOSPC. */
MCG_EXPORT int mcg_hist_spool_format(const struct mcg_hist_event *ev, char *buf, size_t len);
/*
 * Parse one spool line (without the newline) into EV; the strings point into
 * STORE (LEN bytes). -MCG_E_CORRUPT for anything mcg_hist_spool_format does not write.
 */
MCG_EXPORT int mcg_hist_spool_parse(const char *line, size_t n, struct mcg_hist_event *ev,
				    char *store, size_t len);

/* ---- time ------------------------------------------------------------- */

/*
 * Parse a point in time relative to NOW_NS (CLOCK_REALTIME) in local time
 * (TZ): "03:12" (today, or yesterday when that is still to come), "03:12:40",
 * "-2h", "-90m", "-1d" (a duration ago: s, m, h, d), "now", "today 14:00",
 * "yesterday 14:00", "2026-11-30", "2026-11-30 14:00", ISO 8601
 * "2026-11-30T14:00:05", with "Z" or "+01:00", and "@SECONDS" since the epoch.
 * Pure. -EINVAL with a reason in WHY.
 */
MCG_EXPORT int mcg_hist_time_parse(const char *s, uint64_t now_ns, uint64_t *ret_ns, char *why,
				   size_t whylen);
/* "2026-11-30T14:00:05.123Z" (UTC, milliseconds). */
MCG_EXPORT char *mcg_hist_time_format(uint64_t ns, char *buf, size_t len);
/* Compare two cgroup paths in the order of a frame's rows: tree pre-order, '/' first. */
MCG_EXPORT int mcg_hist_path_cmp(const char *a, const char *b);

/* ---- the encoding (pure; exported for tests and fuzzing) -------------- */

/* LEB128 varint: bytes written (at most 10), 0 if LEN is too small. */
MCG_EXPORT size_t mcg_hist_varint_put(uint8_t *p, size_t len, uint64_t v);
/* Bytes read, 0 on a truncated or over-long (> 10 bytes, > 64 bits) varint. */
MCG_EXPORT size_t mcg_hist_varint_get(const uint8_t *p, size_t len, uint64_t *ret);
static inline uint64_t mcg_hist_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t mcg_hist_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
/* CRC-32C (Castagnoli), continued from CRC (0 to start). */
MCG_EXPORT uint32_t mcg_hist_crc32c(uint32_t crc, const void *data, size_t len);

/* ---- the writer -------------------------------------------------------- */

struct mcg_hist_opts {
	const char *dir;          /* NULL: MCG_HIST_DEFAULT_DIR */
	uint64_t retain_age_ns;   /* 0: keep whatever age */
	uint64_t retain_bytes;    /* 0: any size */
	unsigned key_every;       /* a key frame every N frames; 0: MCG_HIST_KEY_EVERY */
	uint64_t segment_ns;      /* a new segment after this long; 0: MCG_HIST_SEGMENT_NS */
	uint64_t segment_bytes;   /* or this size; 0: MCG_HIST_SEGMENT_BYTES */
	int level;                /* zstd level; 0: MCG_HIST_ZSTD_LEVEL */
	bool sync;                /* fdatasync after every frame (power loss) */
};
/*
 * A key frame every 60 frames (5 minutes at the default 5 s): a reader starting
 * anywhere decodes at most 59 delta frames; at 1000 cgroups a key frame costs
 * about as much as 10 delta frames (bench/history.sh).
 */
#define MCG_HIST_KEY_EVERY 60
#define MCG_HIST_SEGMENT_NS (3600ULL * 1000000000ULL)
#define MCG_HIST_SEGMENT_BYTES (64ULL << 20)
#define MCG_HIST_ZSTD_LEVEL 3

/* One cgroup of a sample: its path, an identity (a cgroup made again gets a new one), its record. */
struct mcg_hist_cgroup {
	const char *path;
	uint64_t id;
	const struct mcg_record *rec;
	/*
	 * Its display name (a container, a pod, a unit), kept from the first
	 * frame that has it; NULL: none, or ask the writer's namer.
	 */
	const char *name;
};

/*
 * Display names in the store: a cgroup's name is stored with its path when
 * the writer first sees it (and at each key frame), so that dump and replay
 * show it after the container is gone. A name is 1 to MCG_HIST_NAME_MAX
 * bytes from ' ' to '~' (printable ASCII, as container, pod and unit names
 * are); anything else is not stored, and a reader refuses a frame that has it.
 */
#define MCG_HIST_NAME_MAX 255
/* Would the writer store NAME? Pure. */
MCG_EXPORT bool mcg_hist_name_valid(const char *name, size_t len);
/*
 * The writer's namer: the display name of the cgroup at PATH into BUF (LEN
 * bytes); its length, or 0 for none. Asked once for each cgroup the writer
 * sees (and again at a key frame while it has none).
 */
typedef size_t (*mcg_hist_name_fn)(void *userdata, const char *path, char *buf, size_t len);

struct mcg_hist_writer;
/*
 * Open the store (made and kept MCG_HIST_DIR_MODE of MCG_HIST_GROUP;
 * -MCG_E_UNTRUSTED if it or a parent is not trusted)
 * and start a new segment for samples of VERSION under ROOT.
 */
MCG_EXPORT int mcg_hist_writer_open(const struct mcg_hist_opts *o, int version, const char *root,
				    struct mcg_hist_writer **ret);
/* Append one frame: the N cgroups of a sample taken at TIME_NS and the events since the last. */
MCG_EXPORT int mcg_hist_write(struct mcg_hist_writer *w, uint64_t time_ns,
			      const struct mcg_hist_cgroup *cg, size_t n,
			      const struct mcg_hist_event *ev, size_t nev);
/* Ask FN (USERDATA) for the name of each cgroup written without one (NULL: none). */
MCG_EXPORT void mcg_hist_writer_set_namer(struct mcg_hist_writer *w, mcg_hist_name_fn fn,
					  void *userdata);
/* The system-wide values of the next frame (top's header); a frame without them has none. */
MCG_EXPORT void mcg_hist_writer_set_global(struct mcg_hist_writer *w,
					   const struct mcg_sample_global *g);
/* The same from a sampler snapshot (its rows and its global values). */
MCG_EXPORT int mcg_hist_write_snapshot(struct mcg_hist_writer *w, uint64_t time_ns,
				       const struct mcg_snapshot *snap,
				       const struct mcg_hist_event *ev, size_t nev);
/* Delete whole old segments by the writer's retention (the open one stays). Segments removed. */
MCG_EXPORT int mcg_hist_writer_retain(struct mcg_hist_writer *w, uint64_t now_ns);
/* fdatasync and close; 0 or the first error. */
MCG_EXPORT int mcg_hist_writer_close(struct mcg_hist_writer *w);
/* The store's descriptor (trusted), for the spool's neighbours and tests. */
MCG_EXPORT int mcg_hist_writer_dirfd(const struct mcg_hist_writer *w);

/* ---- the reader -------------------------------------------------------- */

/*
 * Told of every frame the reader cannot use: SEGMENT (file name), FRAME
 * (0-based), why. WHY begins with MCG_HIST_WHY_TORN for a segment's last frame
 * cut short, which a recorder killed while writing leaves: expected, not damage.
 */
typedef void (*mcg_hist_bad_fn)(void *userdata, const char *segment, unsigned frame,
				uint64_t offset, const char *why);
#define MCG_HIST_WHY_TORN "torn last frame"

/* One recorded sample: the snapshot (rates against the previous frame, as live) and its events. */
struct mcg_hist_frame {
	uint64_t time_ns;
	struct mcg_snapshot *snap; /* owned by the frame; mono_ns is time_ns */
	struct mcg_hist_event *ev;
	size_t nev;
	const char *segment; /* file name */
	unsigned index;      /* frame number in the segment */
	/*
	 * Per row of SNAP: the display name stored with the cgroup (a container,
	 * pod or unit; mcg_hist_name_valid), NULL for none and in a store written
	 * before names were (format 1).
	 */
	const char **names;
	char *strings;       /* private */
};
MCG_EXPORT void mcg_hist_frame_free(struct mcg_hist_frame *f);

struct mcg_hist_reader;
/*
 * Open the store DIR (NULL: the default) for reading. Each segment is checked
 * when first used; BAD (may be NULL) hears of every corrupt or truncated
 * frame, and reading goes on after it (from the next key frame).
 */
MCG_EXPORT int mcg_hist_reader_open(const char *dir, mcg_hist_bad_fn bad, void *userdata,
				    struct mcg_hist_reader **ret);
MCG_EXPORT void mcg_hist_reader_free(struct mcg_hist_reader *r);
/* The time of the first and last readable frames of the store; -ENOENT when empty. */
MCG_EXPORT int mcg_hist_reader_span(struct mcg_hist_reader *r, uint64_t *ret_first,
				    uint64_t *ret_last);
/*
 * Position at the first frame at or after T (the last one when T is past
 * the end) and return it. -ENOENT: nothing recorded.
 */
MCG_EXPORT int mcg_hist_seek(struct mcg_hist_reader *r, uint64_t t_ns,
			     struct mcg_hist_frame **ret);
/* The frame after (before) the current one; -ENOENT at the end (start). */
MCG_EXPORT int mcg_hist_next(struct mcg_hist_reader *r, struct mcg_hist_frame **ret);
MCG_EXPORT int mcg_hist_prev(struct mcg_hist_reader *r, struct mcg_hist_frame **ret);
/* The next (previous) frame after the current one with an event; -ENOENT. */
MCG_EXPORT int mcg_hist_next_event(struct mcg_hist_reader *r, struct mcg_hist_frame **ret);
MCG_EXPORT int mcg_hist_prev_event(struct mcg_hist_reader *r, struct mcg_hist_frame **ret);
/*
 * N frames on (back when N < 0), or as far as there are: replay's larger
 * steps. Only the target is decoded (from its key frame). -ENOENT when the
 * current frame is the last (first).
 */
MCG_EXPORT int mcg_hist_step(struct mcg_hist_reader *r, long n, struct mcg_hist_frame **ret);

#endif
