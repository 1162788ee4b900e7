/* txn.c: journalled, locked knob changes that are rolled back on failure or after a crash. */
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SAVED 8
#define JOURNAL_MAGIC "memcgctl-journal 1"

struct saved {
	char knob[64];
	char value[64];
};

struct mcg_txn {
	struct mcg_group *g;
	char boot[40];
	char op[32];
	char lock_path[4096];
	char journal_path[4096];
	int lockfd;
	bool journal_written, finished;
	size_t n_saved;
	struct saved saved[MAX_SAVED];
};

static void names_for(const struct mcg_ctx *ctx, const char *path, char *lock, char *journal,
		      size_t len)
{
	char name[256]; /* hashed past 200 characters */

	mcg__cgroup_file_name(ctx->root, path, name, sizeof(name));
	if (lock)
		snprintf(lock, len, "%s/locks/%s.lock", ctx->rundir, name);
	if (journal)
		snprintf(journal, len, "%s/journal/%s.journal", ctx->rundir, name);
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
	snprintf(buf, len, "%.39s", b);
}

static int ensure_dirs(const struct mcg_ctx *ctx)
{
	char d[4096];
	int r;

	snprintf(d, sizeof(d), "%s/locks", ctx->rundir);
	r = mcg__mkdir_p(d, 0700);
	if (r < 0)
		return r;
	snprintf(d, sizeof(d), "%s/journal", ctx->rundir);
	return mcg__mkdir_p(d, 0700);
}

/* flock a lock file, and make sure it is still the file at PATH (not unlinked meanwhile). */
static int lock_file(const char *path, bool wait, int *ret_fd)
{
	for (;;) {
		struct stat a, b;
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
			int e = errno;

			close(fd);
			return e == EWOULDBLOCK ? -MCG_E_LOCKED : -e;
		}
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			*ret_fd = fd;
			return 0;
		}
		close(fd);
	}
}

static void unlock_file(const char *path, int fd)
{
	unlink(path);
	close(fd);
}

int mcg_txn_begin(struct mcg_group *g, unsigned flags, const char *op, struct mcg_txn **ret)
{
	struct mcg_txn *t;
	int r;

	r = ensure_dirs(g->ctx);
	if (r < 0)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->g = g;
	t->lockfd = -1;
	snprintf(t->op, sizeof(t->op), "%s", op ? op : "change");
	boot_id(g->ctx, t->boot, sizeof(t->boot));
	names_for(g->ctx, g->path, t->lock_path, t->journal_path, sizeof(t->lock_path));
	r = lock_file(t->lock_path, flags & MCG_TXN_WAIT, &t->lockfd);
	if (r < 0) {
		free(t);
		return r;
	}
	if (access(t->journal_path, F_OK) == 0) {
		unlock_file(t->lock_path, t->lockfd);
		free(t);
		return -MCG_E_STALE_JOURNAL;
	}
	*ret = t;
	return 0;
}

struct mcg_group *mcg_txn_group(const struct mcg_txn *t)
{
	return t->g;
}

const char *mcg_txn_journal_path(const struct mcg_txn *t)
{
	return t->journal_path;
}

static int write_journal(struct mcg_txn *t)
{
	char tmp[4200];
	FILE *f;
	size_t i;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", t->journal_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fprintf(f, "%s\nop %s\npid %d\nroot %s\npath %s\nversion %d\n", JOURNAL_MAGIC, t->op,
		(int)getpid(), t->g->ctx->root, t->g->path, t->g->ctx->version);
	if (t->boot[0])
		fprintf(f, "boot %s\n", t->boot);
	for (i = 0; i < t->n_saved; i++)
		fprintf(f, "knob %s %s\n", t->saved[i].knob, t->saved[i].value);
	/*
	 * No fsync: the journal is for a run killed before it could roll back
	 * (the page cache outlives the process); after a power loss or reboot the
	 * cgroup's values are gone too, and such a journal is dropped (boot id).
	 * Writing a temporary file and renaming it keeps a SIGKILL from leaving a
	 * torn journal. An fsync here cost 2-12 ms per run, more during writeback.
	 */
	if (fflush(f) != 0) {
		int e = -errno;

		fclose(f);
		unlink(tmp);
		return e;
	}
	fclose(f);
	if (rename(tmp, t->journal_path) < 0) {
		int e = -errno;

		unlink(tmp);
		return e;
	}
	t->journal_written = true;
	return 0;
}

static struct saved *find_saved(struct mcg_txn *t, const char *knob)
{
	size_t i;

	for (i = 0; i < t->n_saved; i++)
		if (!strcmp(t->saved[i].knob, knob))
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
	if (t->n_saved == MAX_SAVED || strlen(knob) >= sizeof(s->knob))
		return -E2BIG;
	n = mcg_knob_read(t->g, knob, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	s = &t->saved[t->n_saved++];
	snprintf(s->knob, sizeof(s->knob), "%s", knob);
	snprintf(s->value, sizeof(s->value), "%s", buf);
	r = write_journal(t);
	if (r < 0)
		t->n_saved--;
	return r;
}

int mcg_txn_write(struct mcg_txn *t, const char *knob, const char *val)
{
	int r = mcg_txn_save(t, knob);

	if (r < 0)
		return r;
	return mcg_knob_write(t->g, knob, val);
}

int mcg__txn_saved(struct mcg_txn *t, const char *knob, const char **ret)
{
	struct saved *s = find_saved(t, knob);

	if (!s)
		return -ENOENT;
	*ret = s->value;
	return 0;
}

static int write_retry(const struct mcg_group *g, const char *knob, const char *val)
{
	int r, tries = 0;

	do {
		r = mcg_knob_write(g, knob, val);
	} while (r == -EINTR && ++tries < 100);
	return r;
}

/* Restore saved knobs on G: v1 limits through the ordering helper, the rest as saved. */
static int restore(const struct mcg_group *g, struct saved *saved, size_t n, int *ret_restored)
{
	const char *lim = NULL, *memsw = NULL;
	int first = 0, done = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(saved[i].knob, "memory.limit_in_bytes"))
			lim = saved[i].value;
		else if (!strcmp(saved[i].knob, "memory.memsw.limit_in_bytes"))
			memsw = saved[i].value;
	}
	if (lim || memsw) {
		uint64_t l = MCG_KEEP, m = MCG_KEEP;
		int r, tries = 0;

		if (lim && mcg_parse_u64(lim, &l) < 0)
			l = MCG_KEEP;
		if (memsw && mcg_parse_u64(memsw, &m) < 0)
			m = MCG_KEEP;
		do {
			r = mcg_v1_set_limits(g, l, m);
		} while (r == -EINTR && ++tries < 100);
		if (r < 0)
			first = r;
		else
			done += !!lim + !!memsw;
	}
	for (i = 0; i < n; i++) {
		int r;

		if (!strcmp(saved[i].knob, "memory.limit_in_bytes") ||
		    !strcmp(saved[i].knob, "memory.memsw.limit_in_bytes"))
			continue;
		r = write_retry(g, saved[i].knob, saved[i].value);
		if (r < 0 && !first)
			first = r;
		else if (r == 0)
			done++;
	}
	if (ret_restored)
		*ret_restored = done;
	return first;
}

int mcg_txn_rollback(struct mcg_txn *t)
{
	int r = restore(t->g, t->saved, t->n_saved, NULL);

	/* Keep the journal if restoring failed, so that recover can try again. */
	if (r == 0 && t->journal_written)
		unlink(t->journal_path);
	t->finished = true;
	return r;
}

int mcg_txn_commit(struct mcg_txn *t)
{
	if (t->journal_written && unlink(t->journal_path) < 0 && errno != ENOENT)
		return -errno;
	t->finished = true;
	return 0;
}

void mcg_txn_free(struct mcg_txn *t)
{
	if (!t)
		return;
	if (!t->finished)
		mcg_txn_rollback(t);
	unlock_file(t->lock_path, t->lockfd);
	free(t);
}

struct journal {
	char op[32], root[4096], path[4096], boot[40];
	int pid, version;
	size_t n;
	struct saved saved[MAX_SAVED];
};

static int parse_journal(const char *file, struct journal *j)
{
	FILE *f = fopen(file, "re");
	char line[4200];
	bool magic = false;

	if (!f)
		return -errno;
	memset(j, 0, sizeof(*j));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, JOURNAL_MAGIC))
			magic = true;
		else if (!strncmp(line, "op ", 3))
			snprintf(j->op, sizeof(j->op), "%.31s", line + 3);
		else if (!strncmp(line, "pid ", 4))
			j->pid = atoi(line + 4);
		else if (!strncmp(line, "root ", 5))
			snprintf(j->root, sizeof(j->root), "%.4095s", line + 5);
		else if (!strncmp(line, "path ", 5))
			snprintf(j->path, sizeof(j->path), "%.4095s", line + 5);
		else if (!strncmp(line, "boot ", 5))
			snprintf(j->boot, sizeof(j->boot), "%.39s", line + 5);
		else if (!strncmp(line, "version ", 8))
			j->version = atoi(line + 8);
		else if (!strncmp(line, "knob ", 5) && j->n < MAX_SAVED) {
			struct saved *s = &j->saved[j->n];

			if (sscanf(line + 5, "%63s %63s", s->knob, s->value) == 2)
				j->n++;
		}
	}
	fclose(f);
	return magic && j->path[0] && j->root[0] ? 0 : -EBADMSG;
}

static int recover_one(struct mcg_ctx *ctx, const char *file, bool dry_run, mcg_recover_fn cb,
		       void *userdata)
{
	struct mcg_recovery rep = {0};
	char lock[4096], jpath[4096];
	struct mcg_group *g = NULL;
	struct journal j;
	int lockfd, r;

	r = parse_journal(file, &j);
	if (r < 0)
		return r;
	if (strcmp(j.root, ctx->root))
		return 0; /* another hierarchy's journal */
	names_for(ctx, j.path, lock, jpath, sizeof(lock));
	r = lock_file(lock, false, &lockfd);
	if (r == -MCG_E_LOCKED)
		return 0; /* a live run owns it */
	if (r < 0)
		return r;
	snprintf(rep.path, sizeof(rep.path), "%s", j.path);
	snprintf(rep.op, sizeof(rep.op), "%s", j.op);
	rep.pid = j.pid;
	if (access(file, F_OK) < 0) { /* finished while we waited */
		unlock_file(lock, lockfd);
		return 0;
	}
	{
		char now[40];

		boot_id(ctx, now, sizeof(now));
		if (j.boot[0] && now[0] && strcmp(j.boot, now)) {
			/* from an earlier boot: those values died with it */
			rep.error = -ESTALE;
			if (!dry_run)
				unlink(file);
			unlock_file(lock, lockfd);
			if (cb)
				cb(&rep, userdata);
			return 1;
		}
	}
	if (dry_run) {
		rep.restored = (int)j.n;
	} else {
		r = mcg_group_open(ctx, j.path, &g);
		if (r == -ENOENT) {
			/* the cgroup is gone: nothing left to restore */
			rep.error = -ENOENT;
			unlink(file);
		} else if (r < 0) {
			rep.error = r;
		} else {
			rep.error = restore(g, j.saved, j.n, &rep.restored);
			if (rep.error == 0)
				unlink(file);
			mcg_group_close(g);
		}
	}
	unlock_file(lock, lockfd);
	if (cb)
		cb(&rep, userdata);
	return 1;
}

int mcg_recover(struct mcg_ctx *ctx, const char *path, bool dry_run, mcg_recover_fn cb,
		void *userdata)
{
	char dir[4096], file[8192];
	struct dirent *de;
	int count = 0, r;
	DIR *d;

	if (path) {
		struct mcg_group *g;

		r = mcg_group_open(ctx, path, &g);
		if (r < 0)
			return r;
		names_for(ctx, g->path, NULL, file, sizeof(file));
		mcg_group_close(g);
		if (access(file, F_OK) < 0)
			return 0;
		return recover_one(ctx, file, dry_run, cb, userdata);
	}
	snprintf(dir, sizeof(dir), "%s/journal", ctx->rundir);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 9 || strcmp(de->d_name + len - 8, ".journal"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		r = recover_one(ctx, file, dry_run, cb, userdata);
		if (r > 0)
			count += r;
	}
	closedir(d);
	return count;
}

static int write_limit(const struct mcg_group *g, const char *knob, uint64_t v)
{
	char buf[32];

	if (v == MCG_MAX)
		snprintf(buf, sizeof(buf), "-1");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return mcg_knob_write(g, knob, buf);
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
	r = mcg_knob_read_u64(g, "memory.limit_in_bytes", &cur_limit);
	if (r < 0)
		return r;
	r = mcg_knob_read_u64(g, "memory.memsw.limit_in_bytes", &cur_memsw);
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
