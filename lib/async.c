/* async.c: async-reclaim's persistent state: watermarks, enable files, per-cgroup stats. */
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024ULL * 1024)
#define CONF_MAGIC "memcgctl-async-reclaim 1"
#define STATS_MAGIC "memcgctl-async-stats 1"

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The 2011 patch started reclaiming a little below the limit and stopped a
 * little lower. Scaled with the limit: wake limit/40 below it (4 MiB..1 GiB)
 * and reclaim to three times that below it. Measured side by side with
 * bench/async-reclaim (320 MiB limit, a writer dirtying its cache, 5 rounds):
 * margins of 8/24 MiB gave req/s x1.24 against the limit alone, 4/12 MiB
 * x1.20 and 32/64 MiB (limit/10, the earlier default) x1.13, all with p99.9
 * x0.07: the smaller the margins, the more of the limit stays usable as
 * cache, until the writer meets the limit between wake-ups. Small limits keep
 * the margins at most 1/8 and 1/4 of the limit.
 */
void mcg_async_default_margins(uint64_t limit, uint64_t *ret_high_margin, uint64_t *ret_low_margin)
{
	uint64_t ps = (uint64_t)mcg_page_size();
	uint64_t high = clamp_u64(limit / 40, 4 * MIB, 1024 * MIB), low;

	if (high > limit / 8)
		high = limit / 8;
	high = high / ps * ps;
	low = 3 * high;
	if (low > limit / 4) /* still at least twice high: high <= limit/8 */
		low = limit / 4 / ps * ps;
	*ret_high_margin = high;
	*ret_low_margin = low;
}

int mcg_async_watermarks(const struct mcg_async_conf *c, uint64_t limit, uint64_t *ret_high,
			 uint64_t *ret_low)
{
	uint64_t dh, dl, high, low;

	if (limit == MCG_MAX)
		return -EDOM;
	mcg_async_default_margins(limit, &dh, &dl);
	if (!(c->flags & MCG_ASYNC_HIGH_SET))
		high = limit - dh;
	else if (c->flags & MCG_ASYNC_HIGH_MARGIN)
		high = c->high >= limit ? 0 : limit - c->high;
	else
		high = c->high;
	if (!(c->flags & MCG_ASYNC_LOW_SET)) {
		/* keep the default gap below an explicit high */
		uint64_t gap = dl - dh;

		low = high > gap ? high - gap : 0;
	} else if (c->flags & MCG_ASYNC_LOW_MARGIN) {
		low = c->low >= limit ? 0 : limit - c->low;
	} else {
		low = c->low;
	}
	if (high == 0 || high >= limit || low == 0 || low >= high)
		return -ERANGE;
	*ret_high = high;
	*ret_low = low;
	return 0;
}

int mcg_async_statedir(const struct mcg_ctx *ctx, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/async-reclaim", ctx->rundir) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The file name for a cgroup: root and path, escaped into one name. */
int mcg__async_mkdirs(const char *statedir)
{
	char stats[8400];
	int r = mcg__mkdir_p(statedir, 0755);

	if (r < 0)
		return r;
	if ((size_t)snprintf(stats, sizeof(stats), "%s/stats", statedir) >= sizeof(stats))
		return -ENAMETOOLONG;
	return mcg__mkdir_p(stats, 0755);
}

static int file_for(const char *statedir, const char *sub, const char *root, const char *path,
		    const char *suffix, char *buf, size_t len)
{
	char esc[8200];

	mcg__cgroup_file_name(root, path, esc, sizeof(esc));
	if ((size_t)snprintf(buf, len, "%s%s%s/%s%s", statedir, sub ? "/" : "", sub ? sub : "",
			     esc, suffix) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Write TEXT to PATH atomically (temp file + rename). */
static int write_atomic(const char *path, const char *text)
{
	char tmp[4200];
	size_t len = strlen(text);
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		int e = errno ? -errno : -EIO;

		close(fd);
		unlink(tmp);
		return e;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		int e = -errno;

		unlink(tmp);
		return e;
	}
	return 0;
}

int mcg_async_enable(const char *statedir, const struct mcg_async_conf *c)
{
	char file[8400], text[9000];
	int r;

	if (!c->path[0] || c->path[0] != '/' || !c->root[0] || c->batch == 0 ||
	    !(c->max_cpu > 0 && c->max_cpu <= 100))
		return -EINVAL;
	r = mcg__async_mkdirs(statedir);
	if (r < 0)
		return r;
	r = file_for(statedir, NULL, c->root, c->path, ".conf", file, sizeof(file));
	if (r < 0)
		return r;
	snprintf(text, sizeof(text),
		 "%s\nroot %s\npath %s\nhigh %llu%s\nlow %llu%s\nbatch %u\nmax_cpu %.3f\nclean %d\n",
		 CONF_MAGIC, c->root, c->path, (unsigned long long)c->high,
		 !(c->flags & MCG_ASYNC_HIGH_SET)     ? " default"
		 : (c->flags & MCG_ASYNC_HIGH_MARGIN) ? " margin"
						      : "",
		 (unsigned long long)c->low,
		 !(c->flags & MCG_ASYNC_LOW_SET)     ? " default"
		 : (c->flags & MCG_ASYNC_LOW_MARGIN) ? " margin"
						     : "",
		 c->batch, c->max_cpu, !!(c->flags & MCG_ASYNC_CLEAN));
	return write_atomic(file, text);
}

int mcg_async_disable(const char *statedir, const char *root, const char *path)
{
	char file[8400];
	int r;

	bool had_stats;

	r = file_for(statedir, "stats", root, path, "", file, sizeof(file));
	if (r < 0)
		return r;
	had_stats = unlink(file) == 0;
	r = file_for(statedir, NULL, root, path, ".conf", file, sizeof(file));
	if (r < 0)
		return r;
	if (unlink(file) < 0)
		return errno == ENOENT && had_stats ? 0 : -errno;
	return 0;
}

static int parse_mark(const char *line, uint64_t *v, unsigned *flags, unsigned set, unsigned margin)
{
	char word[16] = "";
	unsigned long long x;
	int n = sscanf(line, "%llu %15s", &x, word);

	if (n < 1)
		return -EBADMSG;
	*v = x;
	if (n == 2 && !strcmp(word, "default"))
		return 0;
	*flags |= set;
	if (n == 2 && !strcmp(word, "margin"))
		*flags |= margin;
	else if (n == 2)
		return -EBADMSG;
	return 0;
}

int mcg_async_conf_read(const char *file, struct mcg_async_conf *ret)
{
	struct mcg_async_conf c;
	char line[4200];
	bool magic = false, high = false, low = false;
	int r = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	memset(&c, 0, sizeof(c));
	c.batch = MCG_ASYNC_DEFAULT_BATCH;
	c.max_cpu = MCG_ASYNC_DEFAULT_MAX_CPU;
	while (r == 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, CONF_MAGIC))
			magic = true;
		else if (!strncmp(line, "root ", 5))
			snprintf(c.root, sizeof(c.root), "%.4095s", line + 5);
		else if (!strncmp(line, "path ", 5))
			snprintf(c.path, sizeof(c.path), "%.4095s", line + 5);
		else if (!strncmp(line, "high ", 5))
			r = parse_mark(line + 5, &c.high, &c.flags, MCG_ASYNC_HIGH_SET,
				       MCG_ASYNC_HIGH_MARGIN),
			high = true;
		else if (!strncmp(line, "low ", 4))
			r = parse_mark(line + 4, &c.low, &c.flags, MCG_ASYNC_LOW_SET,
				       MCG_ASYNC_LOW_MARGIN),
			low = true;
		else if (!strncmp(line, "batch ", 6))
			c.batch = (unsigned)strtoul(line + 6, NULL, 10);
		else if (!strncmp(line, "max_cpu ", 8))
			c.max_cpu = strtod(line + 8, NULL);
		else if (!strcmp(line, "clean 1"))
			c.flags |= MCG_ASYNC_CLEAN;
	}
	fclose(f);
	if (r < 0)
		return r;
	if (!magic || !high || !low || c.path[0] != '/' || !c.root[0] || c.batch == 0 ||
	    !(c.max_cpu > 0 && c.max_cpu <= 100))
		return -EBADMSG;
	*ret = c;
	return 0;
}

/*
 * Read every file of DIR that ACCEPT takes into an array of SIZE-byte elements
 * (READ fills one; a file it refuses is skipped), sorted with CMP. A missing
 * directory is an empty list. free() the array.
 */
static int load_dir(const char *dir, size_t size, bool (*accept)(const char *name),
		    int (*read)(const char *file, void *elem), int (*cmp)(const void *, const void *),
		    void **ret, size_t *ret_n)
{
	char *v = NULL, file[8400];
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	while ((de = readdir(d))) {
		if (!accept(de->d_name))
			continue;
		if (n == cap) {
			char *nv;

			cap = cap ? cap * 2 : 4;
			nv = realloc(v, cap * size);
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		if (read(file, v + n * size) == 0)
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, size, cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int cmp_conf(const void *a, const void *b)
{
	const struct mcg_async_conf *x = a, *y = b;
	int r = strcmp(x->root, y->root);

	return r ? r : strcmp(x->path, y->path);
}

static bool is_conf(const char *name)
{
	size_t len = strlen(name);

	return len >= 6 && !strcmp(name + len - 5, ".conf");
}

static int read_conf(const char *file, void *elem)
{
	return mcg_async_conf_read(file, elem);
}

int mcg_async_list(const char *statedir, struct mcg_async_conf **ret, size_t *ret_n)
{
	return load_dir(statedir, sizeof(**ret), is_conf, read_conf, cmp_conf, (void **)ret, ret_n);
}

static const char *const state_names[] = {
	[MCG_ASYNC_WAITING] = "waiting",     [MCG_ASYNC_RECLAIMING] = "reclaiming",
	[MCG_ASYNC_THROTTLED] = "throttled", [MCG_ASYNC_THRASHING] = "thrashing",
	[MCG_ASYNC_GONE] = "gone",           [MCG_ASYNC_NOLIMIT] = "no-limit",
	[MCG_ASYNC_ERROR] = "error",         [MCG_ASYNC_CLEAN_SKIP] = "clean",
};

const char *mcg_async_state_name(enum mcg_async_state s)
{
	if ((unsigned)s >= MCG_ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[s];
}

int mcg_async_stats_write(const char *statedir, const struct mcg_async_stats *s)
{
	char file[8400], text[10000];
	int r;

	r = file_for(statedir, "stats", s->root, s->path, "", file, sizeof(file));
	if (r < 0)
		return r;
	snprintf(text, sizeof(text),
		 "%s\nroot %s\npath %s\nstate %s\npid %d\nlimit %llu\nhigh %llu\nlow %llu\n"
		 "usage %llu\nreclaimed %llu\nwakeups %llu\nsteps %llu\nshort_steps %llu\n"
		 "cpu_ns %llu\ndeferred %llu\nrefaulted %llu\nthrash_episodes %llu\n"
		 "refault_ratio %.4f\nclean_skips %llu\nlast_error %d\nlast_error_time %lld\nenabled_time %lld\n"
		 "updated %lld\nevent_source %s\n",
		 STATS_MAGIC, s->root, s->path, mcg_async_state_name(s->state), (int)s->pid,
		 (unsigned long long)s->limit, (unsigned long long)s->high,
		 (unsigned long long)s->low, (unsigned long long)s->usage,
		 (unsigned long long)s->reclaimed, (unsigned long long)s->wakeups,
		 (unsigned long long)s->steps, (unsigned long long)s->short_steps,
		 (unsigned long long)s->cpu_ns, (unsigned long long)s->deferred,
		 (unsigned long long)s->refaulted, (unsigned long long)s->thrash_episodes,
		 s->refault_ratio, (unsigned long long)s->clean_skips, s->last_error, (long long)s->last_error_time,
		 (long long)s->enabled_time, (long long)s->updated,
		 s->event_source[0] ? s->event_source : "none");
	return write_atomic(file, text);
}

static uint64_t u64_of(const char *s)
{
	return strtoull(s, NULL, 10);
}

static int read_stats_file(const char *file, struct mcg_async_stats *ret)
{
	struct mcg_async_stats s;
	char line[4200];
	bool magic = false;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	memset(&s, 0, sizeof(s));
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ' ');
		size_t i;

		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, STATS_MAGIC)) {
			magic = true;
			continue;
		}
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "root"))
			snprintf(s.root, sizeof(s.root), "%.4095s", v);
		else if (!strcmp(line, "path"))
			snprintf(s.path, sizeof(s.path), "%.4095s", v);
		else if (!strcmp(line, "state")) {
			for (i = 0; i < MCG_ARRAY_SIZE(state_names); i++)
				if (!strcmp(v, state_names[i]))
					s.state = (enum mcg_async_state)i;
		} else if (!strcmp(line, "pid"))
			s.pid = (pid_t)atoi(v);
		else if (!strcmp(line, "limit"))
			s.limit = u64_of(v);
		else if (!strcmp(line, "high"))
			s.high = u64_of(v);
		else if (!strcmp(line, "low"))
			s.low = u64_of(v);
		else if (!strcmp(line, "usage"))
			s.usage = u64_of(v);
		else if (!strcmp(line, "reclaimed"))
			s.reclaimed = u64_of(v);
		else if (!strcmp(line, "wakeups"))
			s.wakeups = u64_of(v);
		else if (!strcmp(line, "steps"))
			s.steps = u64_of(v);
		else if (!strcmp(line, "short_steps"))
			s.short_steps = u64_of(v);
		else if (!strcmp(line, "cpu_ns"))
			s.cpu_ns = u64_of(v);
		else if (!strcmp(line, "deferred"))
			s.deferred = u64_of(v);
		else if (!strcmp(line, "refaulted"))
			s.refaulted = u64_of(v);
		else if (!strcmp(line, "thrash_episodes"))
			s.thrash_episodes = u64_of(v);
		else if (!strcmp(line, "clean_skips"))
			s.clean_skips = u64_of(v);
		else if (!strcmp(line, "refault_ratio"))
			s.refault_ratio = strtod(v, NULL);
		else if (!strcmp(line, "last_error"))
			s.last_error = atoi(v);
		else if (!strcmp(line, "last_error_time"))
			s.last_error_time = strtoll(v, NULL, 10);
		else if (!strcmp(line, "enabled_time"))
			s.enabled_time = strtoll(v, NULL, 10);
		else if (!strcmp(line, "updated"))
			s.updated = strtoll(v, NULL, 10);
		else if (!strcmp(line, "event_source"))
			snprintf(s.event_source, sizeof(s.event_source), "%.31s", v);
	}
	fclose(f);
	if (!magic || !s.path[0])
		return -EBADMSG;
	*ret = s;
	return 0;
}

int mcg_async_stats_read(const char *statedir, const char *root, const char *path,
			 struct mcg_async_stats *ret)
{
	char file[8400];
	int r;

	r = file_for(statedir, "stats", root, path, "", file, sizeof(file));
	if (r < 0)
		return r;
	return read_stats_file(file, ret);
}

static int cmp_stats(const void *a, const void *b)
{
	const struct mcg_async_stats *x = a, *y = b;
	int r = strcmp(x->root, y->root);

	return r ? r : strcmp(x->path, y->path);
}

static bool is_stats(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && strcmp(name, "reclaimd") &&
	       !(len > 4 && !strcmp(name + len - 4, ".tmp"));
}

static int read_stats(const char *file, void *elem)
{
	return read_stats_file(file, elem);
}

int mcg_async_stats_list(const char *statedir, struct mcg_async_stats **ret, size_t *ret_n)
{
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/stats", statedir);
	return load_dir(dir, sizeof(**ret), is_stats, read_stats, cmp_stats, (void **)ret, ret_n);
}

int mcg_reclaimd_info(const char *statedir, struct mcg_reclaimd_info *ret)
{
	struct mcg_reclaimd_info info = {0};
	char file[4200], line[256];
	FILE *f;
	int fd;

	snprintf(file, sizeof(file), "%s/reclaimd.pid", statedir);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret = info;
		return 0;
	}
	/* The daemon holds an exclusive flock on its pid file while it runs. */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		*ret = info;
		return 0;
	}
	/* the pid file is the authority; the totals count only if the same daemon wrote them */
	{
		char buf[32];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		info.pid = -1;
		if (n > 0) {
			buf[n] = '\0';
			/* a new daemon may not have replaced its dead predecessor's pid yet */
			if (atoi(buf) > 0 && !(kill((pid_t)atoi(buf), 0) < 0 && errno == ESRCH))
				info.pid = (pid_t)atoi(buf);
		}
	}
	close(fd);
	snprintf(file, sizeof(file), "%s/stats/reclaimd", statedir);
	f = fopen(file, "re");
	if (f) {
		struct mcg_reclaimd_info t = {0};

		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ' ');

			if (!v)
				continue;
			*v++ = '\0';
			if (!strcmp(line, "pid"))
				t.pid = (pid_t)atoi(v);
			else if (!strcmp(line, "started"))
				t.started = strtoll(v, NULL, 10);
			else if (!strcmp(line, "cpu_ns"))
				t.cpu_ns = u64_of(v);
			else if (!strcmp(line, "wakeups"))
				t.wakeups = u64_of(v);
			else if (!strcmp(line, "max_cpu"))
				t.max_cpu = strtod(v, NULL);
		}
		fclose(f);
		if (t.pid == info.pid)
			info = t;
	}
	*ret = info;
	return 0;
}

/* For reclaimd.c: the enable file of a cgroup. */
int mcg__async_conf_file(const char *statedir, const char *root, const char *path, char *buf,
			 size_t len);
int mcg__async_conf_file(const char *statedir, const char *root, const char *path, char *buf,
			 size_t len)
{
	return file_for(statedir, NULL, root, path, ".conf", buf, len);
}
