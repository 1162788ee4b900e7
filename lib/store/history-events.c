/* history-events.c: the event spool: the library notes each change memcgctl makes, the recorder drains it. */
#include "store/store.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SPOOL_LINE_MAX 8192

static void field(const char *s, char *buf, size_t len)
{
	if (!s || !*s || !mcg__field_encode(s, buf, len)) {
		if (s && *s && len > 4)
			return; /* encode cut it short: keep what fits */
		snprintf(buf, len, "-");
	}
}

int mcg_hist_spool_format(const struct mcg_hist_event *ev, char *buf, size_t len)
{
	char comm[128], op[128], cg[4096], detail[1024];
	int n;

	field(ev->comm, comm, sizeof(comm));
	field(ev->op, op, sizeof(op));
	field(ev->cgroup, cg, sizeof(cg));
	field(ev->detail, detail, sizeof(detail));
	n = snprintf(buf, len, "memcgctl-event 1 %llu %lld %lld %lld %s %s %s %s\n",
		     (unsigned long long)ev->time_ns, (long long)ev->uid, (long long)ev->loginuid,
		     (long long)ev->pid, comm, op, cg, detail);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

/*
 * A decimal the formatter writes: no sign, no leading zero, at most MAX; with SIGN, also
 * "-1" (an id the writer did not know). Nineteen digits can pass INT64_MAX, so every
 * field has its own bound: a time fits int64, an id fits uid_t/pid_t below (uid_t)-1.
 */
#define ID_MAX 4294967294ULL
static bool num(const char *s, size_t n, bool sign, uint64_t max, int64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	if (sign && n == 2 && s[0] == '-' && s[1] == '1') {
		*ret = -1;
		return true;
	}
	if (!n || n > 19)
		return false;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if ((n > 1 && s[0] == '0') || v > max)
		return false;
	*ret = (int64_t)v;
	return true;
}

int mcg_hist_spool_parse(const char *line, size_t n, struct mcg_hist_event *ev, char *store,
			 size_t len)
{
	const char *tok[11];
	size_t tl[11], k = 0, i = 0, o = 0;
	const char **dst[4];
	int64_t t, uid, luid, pid;

	while (i < n && k < 11) {
		size_t j = i;

		while (j < n && line[j] != ' ')
			j++;
		tok[k] = line + i;
		tl[k++] = j - i;
		if (j == i)
			return -MCG_E_CORRUPT; /* two blanks */
		i = j < n ? j + 1 : j;
		if (j < n && i == n)
			return -MCG_E_CORRUPT; /* a trailing blank */
	}
	if (k != 10 || i != n || tl[0] != 14 || memcmp(tok[0], "memcgctl-event", 14) ||
	    tl[1] != 1 || tok[1][0] != '1')
		return -MCG_E_CORRUPT;
	if (!num(tok[2], tl[2], false, INT64_MAX, &t) || !num(tok[3], tl[3], true, ID_MAX, &uid) ||
	    !num(tok[4], tl[4], true, ID_MAX, &luid) || !num(tok[5], tl[5], true, ID_MAX, &pid))
		return -MCG_E_CORRUPT;
	memset(ev, 0, sizeof(*ev));
	ev->type = MCG_HEV_CHANGE;
	ev->time_ns = (uint64_t)t;
	ev->uid = uid;
	ev->loginuid = luid;
	ev->pid = pid;
	dst[0] = &ev->comm;
	dst[1] = &ev->op;
	dst[2] = &ev->cgroup;
	dst[3] = &ev->detail;
	for (k = 0; k < 4; k++) {
		const char *s = tok[6 + k];
		size_t l = tl[6 + k];

		if (l == 1 && s[0] == '-') {
			*dst[k] = NULL;
			continue;
		}
		if (o >= len || !mcg__field_decode(s, l, store + o, len - o))
			return -MCG_E_CORRUPT;
		*dst[k] = store + o;
		o += strlen(store + o) + 1;
	}
	if (!ev->op || !ev->cgroup || ev->cgroup[0] != '/')
		return -MCG_E_CORRUPT;
	return 0;
}

static int64_t read_id(const char *file)
{
	char buf[32];
	ssize_t n;
	int64_t v;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	v = strtoll(buf, NULL, 10);
	/* (uid_t)-1: no login uid */
	return v < 0 || v >= 4294967295LL ? -1 : v;
}

int mcg_hist_note(struct mcg_ctx *ctx, const char *op, const char *cgroup, const char *fmt, ...)
{
	struct mcg_hist_event ev = {0};
	char detail[1024], comm[64] = "", line[SPOOL_LINE_MAX];
	struct timespec ts;
	struct stat st, st2;
	int dirfd, fd, n, r, tries;
	va_list ap;

	if (!ctx || mcg__rundir_fd(ctx, false, &dirfd) < 0)
		return 0; /* no run directory: no recorder */
	/* no spool: no recorder, and nothing more to do (one system call per change) */
	if (fstatat(dirfd, MCG_HIST_SPOOL, &st2, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t k = read(fd, comm, sizeof(comm) - 1);

		comm[k > 0 ? k : 0] = '\0';
		if (k > 0 && comm[k - 1] == '\n')
			comm[k - 1] = '\0';
		close(fd);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ev.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ev.uid = (int64_t)getuid();
	ev.loginuid = read_id("/proc/self/loginuid");
	ev.pid = (int64_t)getpid();
	ev.comm = comm;
	ev.op = op;
	ev.cgroup = cgroup;
	ev.detail = detail;
	n = mcg_hist_spool_format(&ev, line, sizeof(line));
	if (n < 0)
		return 0;
	/*
	 * The recorder drains by renaming the spool and making a new one: a
	 * line written under the lock into a file that still has the spool's
	 * name is drained, one that was renamed meanwhile is retried.
	 */
	for (tries = 0; tries < 3; tries++) {
		fd = mcg_openat_file(dirfd, MCG_HIST_SPOOL, O_WRONLY | O_APPEND, 0);
		if (fd < 0)
			return 0; /* no spool: no recorder */
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
			close(fd);
			return 0;
		}
		if (fstatat(dirfd, MCG_HIST_SPOOL, &st2, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
			close(fd);
			continue;
		}
		r = 0;
		if (st.st_size + n <= MCG_HIST_SPOOL_MAX)
			r = write(fd, line, (size_t)n) == n ? 0 : -EIO;
		close(fd);
		if (r < 0)
			mcg_log(ctx, MCG_LOG_DEBUG, "cannot write the history spool: %s",
				mcg_strerror(r));
		return 0;
	}
	return 0;
}

#define SPOOL_TAKEN MCG_HIST_SPOOL ".taken"

int mcg_hist_spool_create(struct mcg_ctx *ctx)
{
	int dirfd, fd, r;

	r = mcg__rundir_fd(ctx, true, &dirfd);
	if (r < 0)
		return r;
	/* who changed what, with their uid and pid: for root (record) alone */
	fd = mcg_openat_file(dirfd, MCG_HIST_SPOOL, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd < 0)
		return fd;
	/* one an earlier memcgctl made 0644 too */
	r = fchmod(fd, 0600) < 0 ? -errno : 0;
	close(fd);
	return r;
}

void mcg_hist_spool_batch_free(struct mcg_hist_spool_batch *b)
{
	free(b->ev);
	free(b->strings);
	memset(b, 0, sizeof(*b));
}

int mcg_hist_spool_take(struct mcg_ctx *ctx, struct mcg_hist_spool_batch *ret)
{
	struct mcg_hist_spool_batch b = {0};
	struct stat st;
	size_t len, i, cap = 0, o = 0;
	char *buf = NULL;
	int dirfd, fd, r;

	r = mcg__rundir_fd(ctx, false, &dirfd);
	if (r < 0)
		return r;
	/* a batch a killed recorder took and did not store comes first */
	if (fstatat(dirfd, SPOOL_TAKEN, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (renameat(dirfd, MCG_HIST_SPOOL, dirfd, SPOOL_TAKEN) < 0)
			return errno == ENOENT ? mcg_hist_spool_create(ctx) : -errno;
		r = mcg_hist_spool_create(ctx);
		if (r < 0)
			return r;
	}
	fd = mcg_openat_file(dirfd, SPOOL_TAKEN, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	/* a writer that opened it before the rename finishes its line first */
	flock(fd, LOCK_EX);
	close(fd);
	r = mcg__read_at(dirfd, SPOOL_TAKEN, MCG_HIST_SPOOL_MAX + SPOOL_LINE_MAX, &buf, &len);
	if (r < 0)
		return r;
	b.strings = malloc(len + 1);
	if (!b.strings) {
		free(buf);
		return -ENOMEM;
	}
	for (i = 0; i < len;) {
		char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
		struct mcg_hist_event ev;

		/* a line cut short (no newline) or not ours is dropped */
		if (nl && mcg_hist_spool_parse(buf + i, n, &ev, b.strings + o, len + 1 - o) == 0) {
			if (mcg_grow(&b.ev, &cap, b.n, sizeof(*b.ev), 16) < 0) {
				free(buf);
				mcg_hist_spool_batch_free(&b);
				return -ENOMEM;
			}
			b.ev[b.n++] = ev;
			o += n + 1;
		} else {
			b.bad++;
		}
		i += n + 1;
	}
	free(buf);
	*ret = b;
	return 0;
}

int mcg_hist_spool_done(struct mcg_ctx *ctx)
{
	int dirfd, r = mcg__rundir_fd(ctx, false, &dirfd);

	if (r < 0)
		return r;
	if (unlinkat(dirfd, SPOOL_TAKEN, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
