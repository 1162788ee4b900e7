/* txn.c: journalled, locked knob changes, put back on failure or after a crash only where memcgctl's own value still stands. */
#include "ops/ops.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAVED MCG__JOURNAL_MAX_KNOBS
#define JOURNAL_MAGIC "memcgctl-journal 2"
#define TEMP_WIDTH 41 /* "%020llu %020llu" */

struct saved {
	struct mcg__journal_knob k; /* as journalled: orig, A, B */
	uint64_t exp1, exp2;	    /* what the file may hold now: memcgctl's last value(s) */
	size_t off;		    /* offset of "A B" in the journal file */
	int wfd;		    /* fanotify on the knob (mcg__watch_open), or -1 */
};

struct mcg_txn {
	struct mcg_group *g;
	char boot[40];
	char op[32];
	char name[256];		 /* mcg__cgroup_file_name() of the cgroup */
	char journal_path[4400]; /* for messages */
	uint64_t dev, ino;	 /* the cgroup directory's identity */
	int locksfd, jdirfd, lockfd, jfd;
	bool journal_written, finished;
	size_t n_saved;
	struct saved saved[MAX_SAVED];
	bool conflict;
	char c_knob[48];
	uint64_t c_found, c_expected;
	bool stopped; /* another writer was seen: no further step */
	struct mcg_writer_seen seen;
};

/* ---- values ---- */

uint64_t mcg__limit_norm(uint64_t v)
{
	uint64_t ps = (uint64_t)mcg_page_size();

	if (v >= mcg__v1_unlimited())
		return MCG_MAX;
	return v / ps * ps;
}

/* Strictly decimal, 1-20 digits, no overflow; N bytes of S. */
static bool dec_n(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

int mcg__limit_parse(const char *s, uint64_t *ret)
{
	size_t n = strcspn(s, "\n");
	uint64_t v;

	if (n == 3 && !memcmp(s, "max", 3))
		v = MCG_MAX;
	else if (n == 2 && !memcmp(s, "-1", 2))
		v = MCG_MAX;
	else if (!dec_n(s, n, &v))
		return -EINVAL;
	*ret = mcg__limit_norm(v);
	return 0;
}

static int read_limit(const struct mcg_group *g, const char *knob, uint64_t *ret)
{
	char buf[64];
	ssize_t n = mcg_knob_read(g, knob, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return mcg__limit_parse(buf, ret);
}

static int write_limit(const struct mcg_group *g, const char *knob, uint64_t v)
{
	char buf[32];

	if (v == MCG_MAX)
		snprintf(buf, sizeof(buf), "%s", g->ctx->version == 2 ? "max" : "-1");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return mcg_knob_write(g, knob, buf);
}

/* ---- another writer's trace ---- */

uint64_t mcg__realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * cgroupfs has no compare-and-swap, and a v1 limit write that must reclaim
 * stays in the kernel until usage fits, then installs its value over any
 * written meanwhile (mem_cgroup_resize_max). The other write leaves a trace
 * that survives: vfs_write() reports it to fsnotify with the writer's pid once
 * it completes. inotify has no pid and coalesces identical events; the inode
 * mtime moves only on an O_TRUNC open (a shell's '>'), not on write(2).
 * File handles (FAN_REPORT_FID) where the filesystem has them: no descriptor
 * opened per event.
 */
int mcg__watch_open(int knob_fd)
{
	static const unsigned modes[] = {FAN_REPORT_FID, 0};
	int fd = -1, r = -EOPNOTSUPP;
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | modes[i],
				   O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			continue;
		}
		if (fanotify_mark(fd, FAN_MARK_ADD, FAN_MODIFY, knob_fd, NULL) == 0)
			return fd;
		r = -errno;
		close(fd);
	}
	return r;
}

int mcg__watch_drain(int wfd, pid_t *ret_pid)
{
	struct fanotify_event_metadata m;
	char buf[4096];
	pid_t self = getpid();
	bool other = false;
	pid_t pid = 0;
	ssize_t n;
	size_t o;

	for (;;) {
		n = read(wfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		/* FID records make event_len no multiple of 8: copy each header out */
		for (o = 0; o + sizeof(m) <= (size_t)n; o += m.event_len) {
			memcpy(&m, buf + o, sizeof(m));
			if (m.vers != FANOTIFY_METADATA_VERSION || m.event_len < sizeof(m) ||
			    m.event_len > (size_t)n - o)
				return -EPROTO;
			if (m.fd >= 0)
				close(m.fd);
			if (m.mask & FAN_Q_OVERFLOW) {
				other = true; /* writers unknown: assume one */
			} else if (m.pid != self && !other) {
				other = true;
				pid = m.pid;
			}
		}
	}
	if (other && ret_pid)
		*ret_pid = pid;
	return other;
}

static void seen_fill(struct mcg_writer_seen *w, const char *knob, pid_t pid, uint64_t step_value,
		      uint64_t step_ns)
{
	char p[64];
	ssize_t n;
	int fd;

	memset(w, 0, sizeof(*w));
	w->seen = true;
	w->pid = pid;
	snprintf(w->knob, sizeof(w->knob), "%s", knob);
	w->step_value = step_value;
	w->step_start_ns = step_ns;
	w->seen_ns = mcg__realtime_ns();
	if (pid <= 0)
		return;
	/* a name for the report; a short-lived writer ('echo' in a shell) may be gone */
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	n = read(fd, w->comm, sizeof(w->comm) - 1);
	close(fd);
	w->comm[n > 0 ? n : 0] = '\0';
	w->comm[strcspn(w->comm, "\n")] = '\0';
}

/* ---- the journal text ---- */

static bool knob_allowed(int version, const char *knob)
{
	size_t k;

	for (k = 0; k < MCG_LK__COUNT; k++) {
		const char *f = mcg_limit_knob_file(version, (enum mcg_limit_knob)k);

		if (f && !strcmp(f, knob))
			return true;
	}
	return false;
}

static bool chars_ok(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr(set, s[i]) || !s[i])
			return false;
	return true;
}

/* A journal's lines other than "knob", in the order of their bits in the parser's seen. */
static const char *const single_keys[] = {"op", "pid", "version", "boot", "dev", "ino", "root", "path"};

int mcg__journal_parse_why(const char *buf, size_t len, struct mcg__journal *ret, const char **why)
{
	struct mcg__journal *j;
	const char *p = buf, *end = buf + len;
	unsigned seen = 0;
	bool first = true;
	int r = -MCG_E_CORRUPT;
	size_t i, k;
	uint64_t v;

#define BAD(s)                                                                               \
	do {                                                                                 \
		*why = (s);                                                                  \
		goto out;                                                                    \
	} while (0)
	*why = "";
	if (len == 0) {
		*why = "empty file";
		return -MCG_E_CORRUPT;
	}
	if (len > MCG__JOURNAL_MAX_SIZE) {
		*why = "too large";
		return -MCG_E_CORRUPT;
	}
	if (memchr(buf, '\0', len)) {
		*why = "binary data";
		return -MCG_E_CORRUPT;
	}
	if (buf[len - 1] != '\n') {
		*why = "truncated (no final newline)";
		return -MCG_E_CORRUPT;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl - p), kl;
		const char *sp = memchr(p, ' ', n), *val;
		size_t vl;
		unsigned bit;

		if (first) {
			if (n != strlen(JOURNAL_MAGIC) || memcmp(p, JOURNAL_MAGIC, n))
				BAD(n > 17 && !memcmp(p, "memcgctl-journal ", 17)
					    ? "unknown journal version"
					    : "not a memcgctl journal");
			first = false;
			p = nl + 1;
			continue;
		}
		if (!sp)
			BAD("a line without a value");
		kl = (size_t)(sp - p);
		val = sp + 1;
		vl = n - kl - 1;
#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(p, s, kl))
		if (KEY("knob")) {
			struct mcg__journal_knob *kn;
			const char *f[4];
			size_t fl[4], nf = 0, o = 0;

			if (j->n == MCG__JOURNAL_MAX_KNOBS)
				BAD("too many knobs");
			while (nf < 4 && o <= vl) {
				const char *s2 = memchr(val + o, ' ', vl - o);
				size_t l2 = s2 ? (size_t)(s2 - (val + o)) : vl - o;

				f[nf] = val + o;
				fl[nf++] = l2;
				o += l2 + 1;
				if (!s2)
					break;
			}
			if (nf != 4 || o <= vl)
				BAD("a knob line without NAME ORIG A B");
			kn = &j->k[j->n];
			if (fl[0] >= sizeof(kn->knob) || !chars_ok(f[0], fl[0], "abcdefghijklmnopqrstuvwxyz._"))
				BAD("a knob name memcgctl does not write");
			memcpy(kn->knob, f[0], fl[0]);
			if (fl[1] >= sizeof(kn->orig))
				BAD("a saved value that is not max, -1 or a number");
			memcpy(kn->orig, f[1], fl[1]);
			if (mcg__limit_parse(kn->orig, &kn->orig_v) < 0)
				BAD("a saved value that is not max, -1 or a number");
			if (fl[2] != 20 || fl[3] != 20 || !dec_n(f[2], 20, &kn->a) ||
			    !dec_n(f[3], 20, &kn->b))
				BAD("a temporary value that is not a 20-digit number");
			j->n++;
			p = nl + 1;
			continue;
		}
#undef KEY
		/* the other lines, each at most once: bit 1 << (its index) */
		for (i = 0; i < MCG_ARRAY_SIZE(single_keys); i++)
			if (kl == strlen(single_keys[i]) && !memcmp(p, single_keys[i], kl))
				break;
		if (i == MCG_ARRAY_SIZE(single_keys))
			BAD("an unknown line");
		bit = 1u << i;
		if (seen & bit)
			BAD("a repeated line");
		seen |= bit;
		switch (bit) {
		case 1:
			if (vl == 0 || vl >= sizeof(j->op) ||
			    !chars_ok(val, vl, "abcdefghijklmnopqrstuvwxyz0123456789- "))
				BAD("a bad op");
			memcpy(j->op, val, vl);
			break;
		case 2:
			if (!dec_n(val, vl, &v) || v == 0 || v > 4194304)
				BAD("a bad pid");
			j->pid = (int)v;
			break;
		case 4:
			if (vl != 1 || (val[0] != '1' && val[0] != '2'))
				BAD("a bad cgroup version");
			j->version = val[0] - '0';
			break;
		case 8:
			if (vl == 0 || vl >= sizeof(j->boot) || !chars_ok(val, vl, "0123456789abcdef-"))
				BAD("a bad boot id");
			memcpy(j->boot, val, vl);
			break;
		case 16:
			if (!dec_n(val, vl, &j->dev))
				BAD("a bad device number");
			break;
		case 32:
			if (!dec_n(val, vl, &j->ino))
				BAD("a bad inode number");
			break;
		case 64:
			if (!mcg__field_decode(val, vl, j->root, sizeof(j->root)) || j->root[0] != '/')
				BAD("a bad hierarchy root");
			break;
		case 128:
			if (!mcg__field_decode(val, vl, j->path, sizeof(j->path)))
				BAD("a bad cgroup path");
			if (!strcmp(j->path, "/"))
				BAD("names the root cgroup");
			/* a cgroup path as memcgctl prints it: "/a/b", not "/" */
			if (!mcg__abs_path_ok(j->path) || !j->path[1])
				BAD("a bad cgroup path");
			break;
		}
		p = nl + 1;
	}
	if ((seen & (1 | 2 | 4 | 16 | 32 | 64 | 128)) != (1 | 2 | 4 | 16 | 32 | 64 | 128))
		BAD("a line is missing");
	if (j->n == 0)
		BAD("no saved knob");
	for (i = 0; i < j->n; i++) {
		if (!knob_allowed(j->version, j->k[i].knob))
			BAD("a knob memcgctl does not write");
		if (j->version == 1 && !strcmp(j->k[i].orig, "max"))
			BAD("a saved value that is not max, -1 or a number");
		for (k = 0; k < i; k++)
			if (!strcmp(j->k[i].knob, j->k[k].knob))
				BAD("a repeated knob");
	}
	*ret = *j;
	r = 0;
out:
	free(j);
	return r;
#undef BAD
}

int mcg__journal_parse(const char *buf, size_t len, struct mcg__journal *ret)
{
	const char *why;

	return mcg__journal_parse_why(buf, len, ret, &why);
}

/* The text of T's journal into BUF; the offset of each knob's "A B" into its saved entry. */
static int format_journal(struct mcg_txn *t, char *buf, size_t len)
{
	char esc[12400];
	size_t o = 0, i;
	int n;

#define OUT(...)                                                                             \
	do {                                                                                 \
		n = snprintf(buf + o, len - o, __VA_ARGS__);                                 \
		if (n < 0 || (size_t)n >= len - o)                                           \
			return -ENAMETOOLONG;                                                \
		o += (size_t)n;                                                              \
	} while (0)
	OUT("%s\nop %s\npid %d\nversion %d\n", JOURNAL_MAGIC, t->op, (int)getpid(),
	    t->g->ctx->version);
	if (t->boot[0])
		OUT("boot %s\n", t->boot);
	OUT("dev %llu\nino %llu\n", (unsigned long long)t->dev, (unsigned long long)t->ino);
	mcg__field_encode(t->g->ctx->root, esc, sizeof(esc));
	OUT("root %s\n", esc);
	mcg__field_encode(t->g->path, esc, sizeof(esc));
	OUT("path %s\n", esc);
	for (i = 0; i < t->n_saved; i++) {
		struct saved *s = &t->saved[i];

		OUT("knob %s %s ", s->k.knob, s->k.orig);
		s->off = o;
		OUT("%020llu %020llu\n", (unsigned long long)s->k.a, (unsigned long long)s->k.b);
	}
#undef OUT
	return (int)o;
}

/* ---- cancellation ---- */

uint64_t mcg_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void mcg_cancel_init(struct mcg_cancel *c, uint64_t timeout_ms,
		     const volatile sig_atomic_t *interrupted)
{
	c->deadline_ns = timeout_ms ? mcg_monotonic_ns() + timeout_ms * 1000000ULL : 0;
	c->interrupted = interrupted;
}

int mcg_cancel_check(const struct mcg_cancel *c)
{
	if (!c)
		return 0;
	if (c->interrupted && *c->interrupted)
		return -EINTR;
	if (c->deadline_ns && mcg_monotonic_ns() >= c->deadline_ns)
		return -ETIMEDOUT;
	return 0;
}

bool mcg__cancel_has_deadline(const struct mcg_cancel *c)
{
	return c && c->deadline_ns;
}

void mcg__cancel_nap(const struct mcg_cancel *c, unsigned ms)
{
	uint64_t ns = (uint64_t)ms * 1000000ULL, now;
	struct timespec ts;

	if (c && c->deadline_ns) {
		now = mcg_monotonic_ns();
		if (now >= c->deadline_ns)
			return;
		if (c->deadline_ns - now < ns)
			ns = c->deadline_ns - now;
	}
	ts.tv_sec = (time_t)(ns / 1000000000ULL);
	ts.tv_nsec = (long)(ns % 1000000000ULL);
	nanosleep(&ts, NULL); /* a signal ends it early: the caller checks C next */
}

/* ---- the run directory, locks ---- */

static int open_dirs(struct mcg_ctx *ctx, bool create, int *ret_locks, int *ret_journal)
{
	int rfd, r;

	r = mcg__rundir_fd(ctx, create, &rfd);
	if (r < 0)
		return r;
	if (ret_locks) {
		r = mcg__trusted_subdir(rfd, "locks", 0700, create, ret_locks);
		if (r < 0)
			return r;
	}
	if (ret_journal) {
		r = mcg__trusted_subdir(rfd, "journal", 0700, create, ret_journal);
		if (r < 0) {
			if (ret_locks)
				close(*ret_locks);
			return r;
		}
	}
	return 0;
}

/* flock NAME under DIRFD, and make sure it is still the file there (not unlinked meanwhile). */
static int lock_at(int dirfd, const char *name, bool wait, int *ret_fd)
{
	for (;;) {
		struct stat a, b;
		int fd = mcg_openat_file(dirfd, name, O_RDWR | O_CREAT, 0600);

		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
			int e = errno;

			close(fd);
			return e == EWOULDBLOCK ? -MCG_E_LOCKED : -e;
		}
		if (fstat(fd, &a) == 0 && fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			*ret_fd = fd;
			return 0;
		}
		close(fd);
	}
}

static void unlock_at(int dirfd, const char *name, int fd)
{
	unlinkat(dirfd, name, 0);
	close(fd);
}

/*
 * The kernel's boot id: cgroup values do not survive a reboot, so a journal from
 * an earlier boot describes a cgroup that no longer exists (even if one with the
 * same path was made since) and must not be restored. Empty when unknown.
 */
static void boot_id(const struct mcg_ctx *ctx, char *buf, size_t len)
{
	char b[64];
	ssize_t n = mcg_proc_read(ctx, "sys/kernel/random/boot_id", b, sizeof(b));

	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	b[strcspn(b, "\n")] = '\0';
	if (!b[0] || strspn(b, "0123456789abcdef-") != strlen(b)) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "%.39s", b);
}

/* NAME is at most 200 bytes (mcg__cgroup_file_name hashes longer ones): these fit LEN. */
static void names(const char *name, char *lock, char *journal, char *tmp, size_t len)
{
	if (lock && (size_t)snprintf(lock, len, "%s.lock", name) >= len)
		lock[0] = '\0';
	if (journal && (size_t)snprintf(journal, len, "%s.journal", name) >= len)
		journal[0] = '\0';
	if (tmp && (size_t)snprintf(tmp, len, "%s.journal.tmp", name) >= len)
		tmp[0] = '\0';
}

/* How often a wait for the lock bounded by a cancel looks again. */
#define LOCK_POLL_MS 10

/* lock_at(), with a wait that CANCEL can end (-EINTR, -ETIMEDOUT). */
static int lock_cancellable(int dirfd, const char *name, bool wait, const struct mcg_cancel *c,
			    int *ret_fd)
{
	int r;

	if (!wait || !c)
		return lock_at(dirfd, name, wait, ret_fd);
	for (;;) {
		r = lock_at(dirfd, name, false, ret_fd);
		if (r != -MCG_E_LOCKED)
			return r;
		r = mcg_cancel_check(c);
		if (r < 0)
			return r;
		mcg__cancel_nap(c, LOCK_POLL_MS);
	}
}

struct recover_run {
	struct mcg_ctx *ctx;
	int locksfd, jdirfd;
	bool dry_run;
	mcg_recover_fn cb;
	void *userdata;
	const char *only_op; /* MCG_TXN_RECOVER_OWN: leave other operations' journals */
};

static int recover_locked(struct recover_run *rr, const char *file, const char *name);

static void txn_close(struct mcg_txn *t)
{
	close(t->locksfd);
	close(t->jdirfd);
	free(t);
}

static int txn_begin(struct mcg_group *g, unsigned flags, const char *op,
		     const struct mcg_cancel *cancel, bool recover, mcg_recover_fn cb,
		     void *userdata, struct mcg_txn **ret)
{
	char lock[300], jn[300], tmp[300];
	struct mcg_txn *t;
	struct stat st;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->g = g;
	t->lockfd = t->jfd = t->locksfd = t->jdirfd = -1;
	if (fstat(g->dirfd, &st) < 0) {
		r = -errno;
		free(t);
		return r;
	}
	t->dev = (uint64_t)st.st_dev;
	t->ino = (uint64_t)st.st_ino;
	r = open_dirs(g->ctx, true, &t->locksfd, &t->jdirfd);
	if (r < 0) {
		free(t);
		return r;
	}
	snprintf(t->op, sizeof(t->op), "%s", op ? op : "change");
	for (r = 0; t->op[r]; r++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789- ", t->op[r]))
			t->op[r] = '-';
	boot_id(g->ctx, t->boot, sizeof(t->boot));
	mcg__cgroup_file_name(g->ctx->root, g->path, t->name, sizeof(t->name));
	names(t->name, lock, jn, tmp, sizeof(lock));
	snprintf(t->journal_path, sizeof(t->journal_path), "%s/journal/%s", g->ctx->rundir, jn);
	r = lock_cancellable(t->locksfd, lock, flags & MCG_TXN_WAIT, cancel, &t->lockfd);
	if (r < 0) {
		txn_close(t);
		return r;
	}
	if (recover && fstatat(t->jdirfd, jn, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* a killed run's journal: restore it while the lock is ours, then look again */
		struct recover_run rr = {g->ctx, t->locksfd, t->jdirfd, false, cb, userdata,
					 flags & MCG_TXN_RECOVER_OWN ? t->op : NULL};

		r = recover_locked(&rr, jn, t->name);
		if (r < 0)
			mcg_log(g->ctx, MCG_LOG_WARNING, "cannot recover from %s: %s",
				t->journal_path, mcg_strerror(r));
	}
	if (fstatat(t->jdirfd, jn, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		unlock_at(t->locksfd, lock, t->lockfd);
		txn_close(t);
		return -MCG_E_STALE_JOURNAL;
	}
	/* a run killed before its first journal write left this; the lock is ours */
	unlinkat(t->jdirfd, tmp, 0);
	*ret = t;
	return 0;
}

int mcg_txn_begin(struct mcg_group *g, unsigned flags, const char *op, struct mcg_txn **ret)
{
	return txn_begin(g, flags, op, NULL, false, NULL, NULL, ret);
}

int mcg_txn_begin_recovering(struct mcg_group *g, unsigned flags, const char *op,
			     const struct mcg_cancel *cancel, mcg_recover_fn cb, void *userdata,
			     struct mcg_txn **ret)
{
	return txn_begin(g, flags, op, cancel, true, cb, userdata, ret);
}

struct mcg_group *mcg_txn_group(const struct mcg_txn *t)
{
	return t->g;
}

const char *mcg_txn_journal_path(const struct mcg_txn *t)
{
	return t->journal_path;
}

int mcg_txn_conflict(const struct mcg_txn *t, const char **ret_knob, uint64_t *ret_found,
		     uint64_t *ret_expected)
{
	if (!t->conflict)
		return -ENOENT;
	if (ret_knob)
		*ret_knob = t->c_knob;
	if (ret_found)
		*ret_found = t->c_found;
	if (ret_expected)
		*ret_expected = t->c_expected;
	return 0;
}

int mcg_txn_writer_seen(const struct mcg_txn *t, struct mcg_writer_seen *ret)
{
	if (!t->seen.seen)
		return -ENOENT;
	if (ret)
		*ret = t->seen;
	return 0;
}

/*
 * Write the journal: NAME.journal.tmp made with O_EXCL (a stale one is ours to
 * remove: we hold the lock and the directory is trusted), renamed over
 * NAME.journal. The descriptor is kept to rewrite "A B" in place.
 */
static int write_journal(struct mcg_txn *t)
{
	char buf[MCG__JOURNAL_MAX_SIZE], jn[300], tmp[300];
	size_t done = 0;
	int n, fd, r;

	n = format_journal(t, buf, sizeof(buf));
	if (n < 0)
		return n;
	names(t->name, NULL, jn, tmp, sizeof(jn));
	fd = mcg_openat_file(t->jdirfd, tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd == -EEXIST) {
		if (unlinkat(t->jdirfd, tmp, 0) < 0 && errno != ENOENT)
			return -errno;
		fd = mcg_openat_file(t->jdirfd, tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
	}
	if (fd < 0)
		return fd;
	/*
	 * No fsync: the journal is for a run killed before it could roll back
	 * (the page cache outlives the process); after a power loss or reboot the
	 * cgroup's values are gone too, and such a journal is dropped (boot id).
	 * The rename keeps a SIGKILL from leaving a torn journal. An fsync here
	 * cost 2-12 ms per run, more during writeback.
	 */
	while (done < (size_t)n) {
		ssize_t w = write(fd, buf + done, (size_t)n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			goto fail;
		}
		done += (size_t)w;
	}
	if (renameat(t->jdirfd, tmp, t->jdirfd, jn) < 0) {
		r = -errno;
		goto fail;
	}
	if (t->jfd >= 0)
		close(t->jfd);
	t->jfd = fd;
	t->journal_written = true;
	return 0;
fail:
	close(fd);
	unlinkat(t->jdirfd, tmp, 0);
	return r;
}

static void drop_journal(struct mcg_txn *t)
{
	char jn[300];

	if (!t->journal_written)
		return;
	names(t->name, NULL, jn, NULL, sizeof(jn));
	unlinkat(t->jdirfd, jn, 0);
	if (t->jfd >= 0)
		close(t->jfd);
	t->jfd = -1;
	t->journal_written = false;
}

static struct saved *find_saved(struct mcg_txn *t, const char *knob)
{
	size_t i;

	for (i = 0; i < t->n_saved; i++)
		if (!strcmp(t->saved[i].k.knob, knob))
			return &t->saved[i];
	return NULL;
}

int mcg_txn_save(struct mcg_txn *t, const char *knob)
{
	char buf[64];
	struct saved *s;
	ssize_t n;
	int r;

	if (find_saved(t, knob))
		return 0;
	/* only what set-limit, empty and reclaimd change: recovery accepts nothing else */
	if (!knob_allowed(t->g->ctx->version, knob))
		return -EINVAL;
	if (t->n_saved == MAX_SAVED)
		return -E2BIG;
	n = mcg_knob_read(t->g, knob, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	s = &t->saved[t->n_saved];
	memset(s, 0, sizeof(*s));
	if (strlen(buf) >= sizeof(s->k.orig) || mcg__limit_parse(buf, &s->k.orig_v) < 0)
		return -EBADMSG;
	snprintf(s->k.knob, sizeof(s->k.knob), "%s", knob);
	memcpy(s->k.orig, buf, strlen(buf) + 1);
	s->k.a = s->k.b = s->exp1 = s->exp2 = s->k.orig_v;
	s->wfd = -1;
	/* watched from before the first step to the end of the rollback */
	r = mcg_knob_open(t->g, knob, O_RDONLY);
	if (r >= 0) {
		int fd = r;

		r = mcg__watch_open(fd);
		s->wfd = r >= 0 ? r : -1;
		close(fd);
		if (r < 0)
			mcg_log(t->g->ctx, MCG_LOG_INFO,
				"cannot watch %s for other writers (fanotify): %s; only the value "
				"compare is left",
				knob, strerror(-r));
	}
	t->n_saved++;
	r = write_journal(t);
	if (r < 0) {
		t->n_saved--;
		if (s->wfd >= 0)
			close(s->wfd);
	}
	return r;
}

static void close_watches(struct mcg_txn *t)
{
	size_t i;

	for (i = 0; i < t->n_saved; i++)
		if (t->saved[i].wfd >= 0) {
			close(t->saved[i].wfd);
			t->saved[i].wfd = -1;
		}
}

int mcg__txn_check_writer(struct mcg_txn *t, const char *knob, int knob_fd, uint64_t ours1,
			  uint64_t ours2, uint64_t step_value, uint64_t step_ns)
{
	struct saved *s = find_saved(t, knob);
	struct mcg_writer_seen w;
	char buf[64];
	uint64_t cur;
	pid_t pid = 0;
	ssize_t n;
	int r;

	if (!s || s->wfd < 0)
		return 0;
	r = mcg__watch_drain(s->wfd, &pid);
	if (r <= 0)
		return r;
	seen_fill(&w, knob, pid, mcg__limit_norm(step_value), step_ns);
	n = pread(knob_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (mcg__limit_parse(buf, &cur) < 0)
		return -EBADMSG;
	t->stopped = true;
	ours1 = mcg__limit_norm(ours1);
	ours2 = mcg__limit_norm(ours2);
	if (cur == ours1 || cur == ours2) {
		/*
		 * Their write completed, yet the file holds ours: the kernel
		 * finishing memcgctl's step wrote over it (or they wrote our very
		 * value). Theirs cannot be known; ours must not stay. The knob
		 * stays saved, so the rollback puts the original back over it.
		 */
		w.overwritten = true;
		s->exp1 = ours1;
		s->exp2 = ours2;
		if (!t->seen.seen)
			t->seen = w;
		if (!t->conflict) {
			t->conflict = true;
			snprintf(t->c_knob, sizeof(t->c_knob), "%s", knob);
			t->c_found = cur;
			t->c_expected = ours2;
		}
		return -MCG_E_CONFLICT;
	}
	if (!t->seen.seen)
		t->seen = w;
	mcg__txn_forget(t, knob, cur, ours2);
	return -MCG_E_CONFLICT;
}

int mcg__txn_saved(struct mcg_txn *t, const char *knob, const char **ret)
{
	struct saved *s = find_saved(t, knob);

	if (!s)
		return -ENOENT;
	*ret = s->k.orig;
	return 0;
}

int mcg__txn_saved_u64(struct mcg_txn *t, const char *knob, uint64_t *ret)
{
	struct saved *s = find_saved(t, knob);

	if (!s)
		return -ENOENT;
	*ret = s->k.orig_v;
	return 0;
}

int mcg__txn_temp(struct mcg_txn *t, const char *knob, uint64_t believed, uint64_t next)
{
	struct saved *s = find_saved(t, knob);
	char f[TEMP_WIDTH + 1];
	ssize_t n;

	if (!s)
		return -ENOENT;
	believed = mcg__limit_norm(believed);
	next = mcg__limit_norm(next);
	if (s->k.a == believed && s->k.b == next)
		return 0;
	/*
	 * One pwrite of a fixed-width field: a SIGKILL leaves the old or the
	 * new pair, and either names the value the limit may hold.
	 */
	snprintf(f, sizeof(f), "%020llu %020llu", (unsigned long long)believed,
		 (unsigned long long)next);
	n = pwrite(t->jfd, f, TEMP_WIDTH, (off_t)s->off);
	if (n < 0)
		return -errno;
	if (n != TEMP_WIDTH)
		return -EIO;
	s->k.a = believed;
	s->k.b = next;
	return 0;
}

int mcg__txn_forget(struct mcg_txn *t, const char *knob, uint64_t found, uint64_t expected)
{
	struct saved *s = find_saved(t, knob);
	size_t i;

	if (!t->conflict) {
		t->conflict = true;
		snprintf(t->c_knob, sizeof(t->c_knob), "%s", knob);
		t->c_found = found;
		t->c_expected = expected;
	}
	if (!s)
		return 0;
	if (s->wfd >= 0)
		close(s->wfd);
	i = (size_t)(s - t->saved);
	memmove(&t->saved[i], &t->saved[i + 1], (t->n_saved - i - 1) * sizeof(*s));
	t->n_saved--;
	if (t->n_saved == 0) {
		drop_journal(t);
		return 0;
	}
	return write_journal(t);
}

int mcg__txn_set(struct mcg_txn *t, const char *knob, uint64_t v)
{
	char buf[64];
	struct saved *s;
	uint64_t cur, step_ns;
	ssize_t n;
	int r, r2, fd;

	if (t->stopped)
		return -MCG_E_CONFLICT;
	r = mcg_txn_save(t, knob);
	if (r < 0)
		return r;
	s = find_saved(t, knob);
	if (!s)
		return -ENOENT;
	/*
	 * Journal first: B may never be written, but then the check below stops
	 * us. A is the value known to be there: after a failed write (v1 EBUSY,
	 * EINTR) the kernel kept the old one, which exp1 holds.
	 */
	r = mcg__txn_temp(t, knob, s->exp1, v);
	if (r < 0)
		return r;
	/*
	 * The check and the write: one pread and one write on the same
	 * descriptor. A writer landing after the check, or while our write
	 * reclaims in the kernel (v1 installs ours over theirs once usage fits),
	 * is seen by the watch after the write.
	 */
	fd = mcg_knob_open(t->g, knob, O_RDWR);
	if (fd < 0)
		return fd;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	buf[n] = '\0';
	if (mcg__limit_parse(buf, &cur) < 0) {
		close(fd);
		return -EBADMSG;
	}
	if (cur != s->exp1 && cur != s->exp2) {
		close(fd);
		mcg__watch_drain(s->wfd, NULL);
		t->stopped = true;
		mcg__txn_forget(t, knob, cur, s->exp2);
		return -MCG_E_CONFLICT;
	}
	/* a write since our last step whose value is gone (or is ours) */
	r = mcg__txn_check_writer(t, knob, fd, s->exp1, s->exp2, s->exp2, 0);
	if (r < 0) {
		close(fd);
		return r;
	}
	if (v == MCG_MAX)
		snprintf(buf, sizeof(buf), "%s", t->g->ctx->version == 2 ? "max" : "-1");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	/* a fixture tree (--root) is regular files: they need the truncation cgroupfs ignores */
	if (t->g->ctx->mode == MCG_MODE_FIXTURE && ftruncate(fd, 0) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	step_ns = mcg__realtime_ns();
	n = pwrite(fd, buf, strlen(buf), 0);
	r = n < 0 ? -errno : (size_t)n == strlen(buf) ? 0 : -EIO;
	/* a failed limit write (EBUSY, EINTR) may or may not have installed it */
	s->exp1 = r == 0 ? mcg__limit_norm(v) : cur;
	s->exp2 = mcg__limit_norm(v);
	/* a write that landed while ours was in the kernel (v1: reclaiming) */
	r2 = mcg__txn_check_writer(t, knob, fd, s->exp1, s->exp2, v, step_ns);
	close(fd);
	return r2 < 0 ? r2 : r;
}

int mcg_txn_write(struct mcg_txn *t, const char *knob, const char *val)
{
	uint64_t v;

	if (mcg__limit_parse(val, &v) < 0)
		return -EINVAL;
	return mcg__txn_set(t, knob, v);
}

/* ---- compare and restore ---- */

struct rest {
	const char *knob, *orig;
	uint64_t orig_v;
	uint64_t ok[3]; /* values memcgctl left there: restore over these only */
	uint64_t expected; /* the one memcgctl wrote last, for the message */
	uint64_t found;
	int state; /* 0 restored / was already back, -MCG_E_CONFLICT, -errno */
	int wfd;   /* fanotify over the restore, or -1 */
	bool other; /* another process wrote during the restore: */
	pid_t other_pid;
	uint64_t after; /* the value read back after it */
};

static int write_retry(const struct mcg_group *g, const char *knob, const char *val)
{
	int r, tries = 0;

	do {
		r = mcg_knob_write(g, knob, val);
	} while (r == -EINTR && ++tries < 100);
	return r;
}

/*
 * Restore each knob whose file still holds one of memcgctl's values. The check
 * and the write cannot be one atomic step in cgroupfs: a writer landing between
 * the read and the write is overwritten, and the watch over the restore says
 * so (rest.other).
 */
static int restore(const struct mcg_group *g, struct rest *rs, size_t n, int *ret_restored,
		   int *ret_conflicts)
{
	struct rest *lim = NULL, *memsw = NULL;
	int first = 0, done = 0, conflicts = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int fd = mcg_knob_open(g, rs[i].knob, O_RDONLY);

		rs[i].wfd = fd >= 0 ? mcg__watch_open(fd) : -1;
		rs[i].other = false;
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < n; i++) {
		struct rest *x = &rs[i];
		int r = read_limit(g, x->knob, &x->found);

		x->state = 0;
		if (r < 0) {
			x->state = r;
		} else if (x->found == x->orig_v) {
			x->state = 1; /* already back */
		} else if (x->found != x->ok[0] && x->found != x->ok[1] && x->found != x->ok[2]) {
			x->state = -MCG_E_CONFLICT;
		} else if (g->ctx->version == 1 && !strcmp(x->knob, "memory.limit_in_bytes")) {
			lim = x;
		} else if (g->ctx->version == 1 && !strcmp(x->knob, "memory.memsw.limit_in_bytes")) {
			memsw = x;
		} else {
			x->state = write_retry(g, x->knob, x->orig);
		}
	}
	if (lim || memsw) {
		int r, tries = 0;

		do {
			r = mcg_v1_set_limits(g, lim ? lim->orig_v : MCG_KEEP,
					      memsw ? memsw->orig_v : MCG_KEEP);
		} while (r == -EINTR && ++tries < 100);
		if (lim)
			lim->state = r;
		if (memsw)
			memsw->state = r;
	}
	for (i = 0; i < n; i++) {
		struct rest *x = &rs[i];

		/* a write that completed while ours did: kept if it is still there */
		if (x->wfd >= 0 && mcg__watch_drain(x->wfd, &x->other_pid) > 0 &&
		    read_limit(g, x->knob, &x->after) == 0)
			x->other = true;
		if (x->wfd >= 0)
			close(x->wfd);
		x->wfd = -1;
	}
	for (i = 0; i < n; i++) {
		if (rs[i].state >= 0)
			done++;
		else if (rs[i].state == -MCG_E_CONFLICT)
			conflicts++;
		else if (!first)
			first = rs[i].state;
	}
	if (ret_restored)
		*ret_restored = done;
	if (ret_conflicts)
		*ret_conflicts = conflicts;
	return first ? first : conflicts ? -MCG_E_CONFLICT : 0;
}

int mcg_txn_rollback(struct mcg_txn *t)
{
	struct rest rs[MAX_SAVED];
	size_t i, n = t->n_saved;
	int r, conflicts = 0;

	for (i = 0; i < n; i++) {
		struct saved *s = &t->saved[i];
		pid_t pid = 0;

		/* a write since the last step: ours over theirs, or theirs there */
		if (s->wfd >= 0 && mcg__watch_drain(s->wfd, &pid) > 0 && !t->seen.seen) {
			uint64_t cur;

			seen_fill(&t->seen, s->k.knob, pid, s->exp2, 0);
			if (read_limit(t->g, s->k.knob, &cur) == 0 && (cur == s->exp1 || cur == s->exp2))
				t->seen.overwritten = cur != s->k.orig_v;
			if (t->seen.overwritten && !t->conflict) {
				t->conflict = true;
				snprintf(t->c_knob, sizeof(t->c_knob), "%s", s->k.knob);
				t->c_found = cur;
				t->c_expected = s->exp2;
			}
		}
		rs[i] = (struct rest){s->k.knob, s->k.orig, s->k.orig_v,
				      {s->exp1, s->exp2, s->exp2}, s->exp2, 0, 0, -1, false, 0, 0};
	}
	close_watches(t);
	r = n ? restore(t->g, rs, n, NULL, &conflicts) : 0;
	for (i = 0; i < n; i++) {
		struct rest *x = &rs[i];

		if (t->seen.seen && t->seen.overwritten && !strcmp(t->seen.knob, x->knob)) {
			/* what memcgctl left in place of the value it could not know */
			t->seen.left_ok = read_limit(t->g, x->knob, &t->seen.left) == 0 &&
					  t->seen.left == x->orig_v;
		}
		if (x->other && !t->seen.seen) {
			seen_fill(&t->seen, x->knob, x->other_pid, x->orig_v, 0);
			t->seen.overwritten = x->after == x->orig_v && x->state >= 0 &&
					      x->found != x->orig_v;
			t->seen.left = x->after;
			t->seen.left_ok = true;
			if (t->seen.overwritten && !t->conflict) {
				t->conflict = true;
				snprintf(t->c_knob, sizeof(t->c_knob), "%s", x->knob);
				t->c_found = x->after;
				t->c_expected = x->orig_v;
			}
		}
	}
	for (i = 0; i < n && conflicts; i++)
		if (rs[i].state == -MCG_E_CONFLICT && !t->conflict) {
			t->conflict = true;
			snprintf(t->c_knob, sizeof(t->c_knob), "%s", rs[i].knob);
			t->c_found = rs[i].found;
			t->c_expected = rs[i].expected;
		}
	/* Keep the journal if restoring failed, so that recover can try again. */
	if (r == 0 || r == -MCG_E_CONFLICT) {
		drop_journal(t);
		t->n_saved = 0;
	}
	t->finished = true;
	if (r == 0 && t->conflict)
		r = -MCG_E_CONFLICT; /* a step already stopped on one */
	return r;
}

/* History: each knob the transaction leaves changed, for the recorder (mcg_hist_note). */
static void note_changes(struct mcg_txn *t)
{
	char detail[512], a[24], b[24];
	size_t i, o = 0;

	detail[0] = '\0';
	for (i = 0; i < t->n_saved && o < sizeof(detail); i++) {
		const struct saved *s = &t->saved[i];

		if (s->exp1 == s->k.orig_v)
			continue;
		if (s->k.orig_v == MCG_MAX)
			snprintf(a, sizeof(a), "max");
		else
			snprintf(a, sizeof(a), "%llu", (unsigned long long)s->k.orig_v);
		if (s->exp1 == MCG_MAX)
			snprintf(b, sizeof(b), "max");
		else
			snprintf(b, sizeof(b), "%llu", (unsigned long long)s->exp1);
		o += (size_t)snprintf(detail + o, sizeof(detail) - o, "%s%s %s -> %s", o ? ", " : "",
				      s->k.knob, a, b);
	}
	if (detail[0])
		mcg_hist_note(t->g->ctx, t->op, t->g->path, "%s", detail);
}

int mcg_txn_commit(struct mcg_txn *t)
{
	close_watches(t);
	drop_journal(t);
	note_changes(t); /* once the change is final */
	t->n_saved = 0;
	t->finished = true;
	return 0;
}

void mcg_txn_free(struct mcg_txn *t)
{
	char lock[300];

	if (!t)
		return;
	if (!t->finished)
		mcg_txn_rollback(t);
	close_watches(t);
	if (t->jfd >= 0)
		close(t->jfd);
	names(t->name, lock, NULL, NULL, sizeof(lock));
	unlock_at(t->locksfd, lock, t->lockfd);
	close(t->locksfd);
	close(t->jdirfd);
	free(t);
}

/* ---- recovery ---- */

/* Move a corrupt journal aside: kept for inspection, no longer in the way. */
static int move_aside(int jdirfd, const char *file, char *ret_name, size_t len)
{
	char to[400];
	int i;

	for (i = 0; i < 100; i++) {
		snprintf(to, sizeof(to), i ? "%s.corrupt-%lld-%d" : "%s.corrupt-%lld", file,
			 (long long)time(NULL), i);
		if (renameat2(jdirfd, file, jdirfd, to, RENAME_NOREPLACE) == 0) {
			snprintf(ret_name, len, "%s", to);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * FILE ("NAME.journal") under the journal directory, its lock held by the
 * caller. 1 if handled, 0 if not ours to touch.
 */
static int recover_locked(struct recover_run *rr, const char *file, const char *name)
{
	struct mcg_recovery *rep;
	struct mcg__journal *j = NULL;
	struct mcg_group *g = NULL;
	char expect[300], now[40], *buf = NULL;
	const char *why = "";
	size_t len = 0;
	int r, ret = 1;
	struct stat st;

	rep = calloc(1, sizeof(*rep));
	j = calloc(1, sizeof(*j));
	if (!rep || !j) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(rep->journal, sizeof(rep->journal), "%s/journal/%s", rr->ctx->rundir, file);
	if (fstatat(rr->jdirfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = 0; /* finished while we waited */
		goto out;
	}
	r = mcg__read_at(rr->jdirfd, file, MCG__JOURNAL_MAX_SIZE, &buf, &len);
	if (r == -EFBIG)
		why = "too large";
	else if (r == -MCG_E_UNTRUSTED)
		why = S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file of ours";
	else if (r < 0) {
		ret = r;
		goto out;
	} else if (mcg__journal_parse_why(buf, len, j, &why) == 0) {
		mcg__cgroup_file_name(j->root, j->path, expect, sizeof(expect));
		if (strcmp(expect, name))
			why = "its name does not match the cgroup it names";
		else if (strcmp(j->root, rr->ctx->root)) {
			ret = 0; /* another hierarchy's journal */
			goto out;
		} else if (j->version != rr->ctx->version)
			why = "the cgroup version does not match the hierarchy";
	}
	if (rr->only_op && (why[0] || strcmp(j->op, rr->only_op))) {
		/* another operation's journal (or not one at all): 'memcgctl recover' decides */
		rep->error = -MCG_E_STALE_JOURNAL;
		snprintf(rep->path, sizeof(rep->path), "%s", r == 0 && j->path[0] ? j->path : "?");
		snprintf(rep->op, sizeof(rep->op), "%s", r == 0 ? j->op : "");
		rep->pid = r == 0 ? j->pid : 0;
		goto report;
	}
	if (why[0]) {
		rep->error = -MCG_E_CORRUPT;
		snprintf(rep->reason, sizeof(rep->reason), "%s", why);
		snprintf(rep->path, sizeof(rep->path), "%s", r == 0 && j->path[0] ? j->path : "?");
		if (!rr->dry_run) {
			char to[400];

			r = move_aside(rr->jdirfd, file, to, sizeof(to));
			if (r < 0) {
				ret = r;
				goto out;
			}
			snprintf(rep->moved_to, sizeof(rep->moved_to), "%s/journal/%s",
				 rr->ctx->rundir, to);
		}
		goto report;
	}
	snprintf(rep->path, sizeof(rep->path), "%s", j->path);
	snprintf(rep->op, sizeof(rep->op), "%s", j->op);
	rep->pid = j->pid;
	boot_id(rr->ctx, now, sizeof(now));
	if (j->boot[0] && now[0] && strcmp(j->boot, now)) {
		/* from an earlier boot: those values died with it */
		rep->error = -ESTALE;
		if (!rr->dry_run)
			unlinkat(rr->jdirfd, file, 0);
		goto report;
	}
	r = mcg_group_open(rr->ctx, j->path, &g);
	if (r == 0 && fstat(g->dirfd, &st) < 0)
		r = -errno;
	if (r == -ENOENT || r == -MCG_E_NOTCGROUP) {
		rep->error = -ENOENT; /* the cgroup is gone: nothing left to restore */
	} else if (r < 0) {
		rep->error = r;
		goto report;
	} else if ((uint64_t)st.st_dev != j->dev || (uint64_t)st.st_ino != j->ino) {
		rep->error = -EIDRM; /* removed and made again: not the cgroup we changed */
	} else if (rr->dry_run) {
		rep->restored = (int)j->n;
		goto report;
	} else {
		struct rest rs[MCG__JOURNAL_MAX_KNOBS];
		size_t i;

		for (i = 0; i < j->n; i++) {
			struct mcg__journal_knob *k = &j->k[i];

			rs[i] = (struct rest){k->knob, k->orig, k->orig_v, {k->orig_v, k->a, k->b},
					      k->b, 0, 0, -1, false, 0, 0};
		}
		rep->error = restore(g, rs, j->n, &rep->restored, &rep->conflicts);
		for (i = 0; i < j->n; i++)
			if (rs[i].other) {
				struct mcg_writer_seen *w = &rep->writer;

				seen_fill(w, rs[i].knob, rs[i].other_pid, rs[i].orig_v, 0);
				w->overwritten = rs[i].after == rs[i].orig_v && rs[i].state >= 0 &&
						 rs[i].found != rs[i].orig_v;
				w->left = rs[i].after;
				w->left_ok = true;
				if (w->overwritten && rep->error == 0) {
					rep->error = -MCG_E_CONFLICT;
					rep->conflicts++;
					snprintf(rep->knob, sizeof(rep->knob), "%s", rs[i].knob);
					rep->found = rs[i].after;
					rep->expected = rs[i].orig_v;
				}
				break;
			}
		for (i = 0; i < j->n; i++)
			if (rs[i].state == -MCG_E_CONFLICT) {
				snprintf(rep->knob, sizeof(rep->knob), "%s", rs[i].knob);
				rep->found = rs[i].found;
				rep->expected = rs[i].expected;
				break;
			}
		/* a conflict is settled (their value stays); a failed write is retried later */
		if (rep->error == 0 || rep->error == -MCG_E_CONFLICT)
			unlinkat(rr->jdirfd, file, 0);
		goto report;
	}
	if (!rr->dry_run)
		unlinkat(rr->jdirfd, file, 0);
report:
	if (rr->cb)
		rr->cb(rep, rr->userdata);
out:
	mcg_group_close(g);
	free(buf);
	free(j);
	free(rep);
	return ret;
}

/* FILE ("NAME.journal") under the journal directory. 1 if handled, 0 if not ours to touch. */
/*
 * The pid holding the flock on LOCK (from /proc/locks: flock has no owner query), or 0.
 * A waiter's line ("->") is not the holder's.
 */
static pid_t lock_holder(struct recover_run *rr, const char *lock)
{
	char *text = NULL, *line, *save = NULL;
	struct stat st;
	pid_t pid = 0;
	int procfd;

	if (fstatat(rr->locksfd, lock, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	procfd = open(rr->ctx->procfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return 0;
	if (mcg_read_file_at(procfd, "locks", &text, NULL) < 0)
		text = NULL;
	close(procfd);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !pid;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned maj, min;
		unsigned long long ino;
		int p;

		if (strstr(line, "->") ||
		    sscanf(line, "%*d: FLOCK %*s WRITE %d %x:%x:%llu", &p, &maj, &min, &ino) != 4)
			continue;
		if (ino == (unsigned long long)st.st_ino && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && p > 0)
			pid = p;
	}
	free(text);
	return pid;
}

/*
 * FILE's lock is held: a live run owns the journal. Say whose (the holder's pid, the
 * journal's operation and cgroup) instead of passing it over in silence.
 */
static int report_live(struct recover_run *rr, const char *file, const char *lock)
{
	struct mcg_recovery *rep = calloc(1, sizeof(*rep));
	struct mcg__journal *j = calloc(1, sizeof(*j));
	char *buf = NULL;
	const char *why = "";
	size_t len = 0;

	if (!rep || !j) {
		free(rep);
		free(j);
		return -ENOMEM;
	}
	snprintf(rep->journal, sizeof(rep->journal), "%s/journal/%s", rr->ctx->rundir, file);
	snprintf(rep->path, sizeof(rep->path), "?");
	if (mcg__read_at(rr->jdirfd, file, MCG__JOURNAL_MAX_SIZE, &buf, &len) == 0 &&
	    mcg__journal_parse_why(buf, len, j, &why) == 0 && !why[0]) {
		snprintf(rep->path, sizeof(rep->path), "%s", j->path);
		snprintf(rep->op, sizeof(rep->op), "%s", j->op);
		rep->pid = j->pid;
	}
	rep->error = -MCG_E_LOCKED;
	rep->pid = lock_holder(rr, lock) ?: rep->pid;
	if (rr->cb)
		rr->cb(rep, rr->userdata);
	free(buf);
	free(j);
	free(rep);
	return 1;
}

static int recover_one(struct recover_run *rr, const char *file)
{
	char name[300], lock[300];
	size_t flen = strlen(file);
	int lockfd, r;

	if (flen <= 8 || flen - 8 >= sizeof(name))
		return 0;
	memcpy(name, file, flen - 8);
	name[flen - 8] = '\0';
	names(name, lock, NULL, NULL, sizeof(lock));
	r = lock_at(rr->locksfd, lock, false, &lockfd);
	if (r == -MCG_E_LOCKED)
		return report_live(rr, file, lock); /* a live run owns it */
	if (r < 0)
		return r;
	r = recover_locked(rr, file, name);
	unlock_at(rr->locksfd, lock, lockfd);
	return r;
}

/* Remove NAME.journal.tmp left by a run killed before its first journal write. */
static void clean_tmp(struct recover_run *rr, const char *file)
{
	char name[300], lock[300];
	size_t n = strlen(file);
	int fd;

	if (n <= 12 || n - 12 >= sizeof(name) || rr->dry_run)
		return;
	memcpy(name, file, n - 12);
	name[n - 12] = '\0';
	names(name, lock, NULL, NULL, sizeof(lock));
	if (lock_at(rr->locksfd, lock, false, &fd) < 0)
		return; /* a live run is writing it */
	unlinkat(rr->jdirfd, file, 0);
	unlock_at(rr->locksfd, lock, fd);
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

/*
 * Remove FILE ("NAME.lock") when no run holds it and NAME has no journal: a
 * kill between the journal's unlink and the lock's leaves one (harmless, but
 * clutter). The journal is looked for under the lock, so a run that starts
 * meanwhile either holds it (skipped) or finds the file gone (lock_at retries).
 */
static void clean_lock(struct recover_run *rr, const char *file)
{
	char name[300], journal[300], tmp[300];
	size_t n = strlen(file);
	struct stat st;
	int fd;

	if (n <= 5 || n - 5 >= sizeof(name) || rr->dry_run)
		return;
	memcpy(name, file, n - 5);
	name[n - 5] = '\0';
	names(name, NULL, journal, tmp, sizeof(journal));
	if (lock_at(rr->locksfd, file, false, &fd) < 0)
		return; /* a live run holds it */
	if (fstatat(rr->jdirfd, journal, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    fstatat(rr->jdirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		close(fd); /* a journal to recover: the lock file stays with it */
		return;
	}
	unlock_at(rr->locksfd, file, fd);
}

/* Every NAME.lock under the locks directory (or only NAME's, ONLY set): clean_lock(). */
static void clean_locks(struct recover_run *rr, const char *only)
{
	struct dirent *de;
	char file[300];
	DIR *d;

	if (rr->dry_run)
		return;
	if (only) {
		snprintf(file, sizeof(file), "%s.lock", only);
		clean_lock(rr, file);
		return;
	}
	if (mcg__opendir_at(rr->locksfd, &d) < 0)
		return;
	while ((de = readdir(d)))
		if (strlen(de->d_name) < sizeof(file) && ends_with(de->d_name, ".lock")) {
			snprintf(file, sizeof(file), "%s", de->d_name);
			clean_lock(rr, file);
		}
	closedir(d);
}

int mcg_recover(struct mcg_ctx *ctx, const char *path, bool dry_run, mcg_recover_fn cb,
		void *userdata)
{
	struct recover_run rr = {ctx, -1, -1, dry_run, cb, userdata, NULL};
	char file[300], name[256];
	struct dirent *de;
	int count = 0, r;
	DIR *d;

	if (path) {
		struct mcg_group *g;

		r = mcg_group_open(ctx, path, &g);
		if (r < 0)
			return r;
		mcg__cgroup_file_name(ctx->root, g->path, name, sizeof(name));
		mcg_group_close(g);
	}
	/* a missing run directory holds no journal: do not make one to find out */
	r = open_dirs(ctx, false, &rr.locksfd, &rr.jdirfd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (path) {
		struct stat st;

		snprintf(file, sizeof(file), "%s.journal.tmp", name);
		if (fstatat(rr.jdirfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0)
			clean_tmp(&rr, file);
		snprintf(file, sizeof(file), "%s.journal", name);
		r = fstatat(rr.jdirfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0 ? recover_one(&rr, file)
									   : 0;
		clean_locks(&rr, name);
		close(rr.locksfd);
		close(rr.jdirfd);
		return r;
	}
	r = mcg__opendir_at(rr.jdirfd, &d);
	if (r < 0) {
		close(rr.locksfd);
		close(rr.jdirfd);
		return r;
	}
	r = 0;
	while ((de = readdir(d))) {
		int x;

		if (strlen(de->d_name) >= sizeof(file))
			continue;
		snprintf(file, sizeof(file), "%s", de->d_name);
		if (ends_with(file, ".journal.tmp")) {
			clean_tmp(&rr, file);
			continue;
		}
		if (!ends_with(file, ".journal"))
			continue;
		x = recover_one(&rr, file);
		if (x > 0)
			count += x;
		else if (x < 0 && !r)
			r = x;
	}
	closedir(d);
	clean_locks(&rr, NULL);
	close(rr.locksfd);
	close(rr.jdirfd);
	return count ? count : r;
}

int mcg_v1_set_limits(const struct mcg_group *g, uint64_t limit, uint64_t memsw)
{
	uint64_t cur_limit, cur_memsw;
	bool has_memsw = mcg_knob_exists(g, "memory.memsw.limit_in_bytes");
	int r;

	if (g->ctx->version != 1)
		return -EOPNOTSUPP;
	if (memsw != MCG_KEEP && !has_memsw)
		return -EOPNOTSUPP;
	if (memsw == MCG_KEEP)
		return limit == MCG_KEEP ? 0 : write_limit(g, "memory.limit_in_bytes", limit);
	if (limit == MCG_KEEP)
		return write_limit(g, "memory.memsw.limit_in_bytes", memsw);
	if (limit > memsw)
		return -EINVAL;
	r = read_limit(g, "memory.limit_in_bytes", &cur_limit);
	if (r < 0)
		return r;
	r = read_limit(g, "memory.memsw.limit_in_bytes", &cur_memsw);
	if (r < 0)
		return r;
	/* limit <= memsw must hold after each write: grow memsw first, shrink limit first. */
	if (memsw >= cur_limit) {
		if (memsw != cur_memsw && (r = write_limit(g, "memory.memsw.limit_in_bytes", memsw)) < 0)
			return r;
		return limit == cur_limit ? 0 : write_limit(g, "memory.limit_in_bytes", limit);
	}
	if ((r = write_limit(g, "memory.limit_in_bytes", limit)) < 0)
		return r;
	return write_limit(g, "memory.memsw.limit_in_bytes", memsw);
}
