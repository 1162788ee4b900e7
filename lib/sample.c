/* sample.c: the 'top' sampler: kept descriptors, pread, inotify for the tree, immutable snapshots. */
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The control files a row needs, per version; a slot is -1 when the file is absent. */
enum { F_USAGE, F_LIMIT, F_HIGH, F_STAT, F_EVENTS, F_PRESSURE, F_FAILCNT, F_PROCS, F__COUNT };
static const char *const v1_files[F__COUNT] = {
	[F_USAGE] = "memory.usage_in_bytes", [F_LIMIT] = "memory.limit_in_bytes",
	[F_STAT] = "memory.stat",	      [F_FAILCNT] = "memory.failcnt",
	[F_PRESSURE] = "memory.pressure",    [F_PROCS] = "cgroup.procs",
};
static const char *const v2_files[F__COUNT] = {
	[F_USAGE] = "memory.current",	[F_LIMIT] = "memory.max",
	[F_HIGH] = "memory.high",	[F_STAT] = "memory.stat",
	[F_EVENTS] = "memory.events",	[F_PRESSURE] = "memory.pressure",
	[F_PROCS] = "cgroup.procs",
};

/* fd values besides real descriptors */
#define FD_ABSENT (-1) /* the kernel has no such file here */
#define FD_REOPEN (-2) /* out of descriptors: open/read/close each time */
#define FD_UNSET (-3)  /* not tried yet (cgroup.procs until taskstats is asked for) */
#define CACHE_REFRESH 16

struct tgid_ent {
	pid_t tgid;
	uint64_t delay_ns;
};

struct node {
	uint64_t id;
	char *path; /* "/" or "/a/b" */
	const char *name;
	int depth;
	ino_t ino;
	int wd; /* inotify watch, -1 if none */
	int dfd; /* O_PATH descriptor of the directory; -1: reopened from the parent's */
	int fd[F__COUNT];
	bool rescan;
	bool gone;
	/*
	 * Limits change only by write(2), which inotify reports (IN_MODIFY on the
	 * directory watch): they are read again only then, and every CACHE_REFRESH samples.
	 */
	unsigned cached; /* bit F_LIMIT / F_HIGH: cache[] holds the value (or its absence) */
	bool cache_has[F__COUNT];
	uint64_t cache[F__COUNT];
	/*
	 * An empty cgroup (usage 0 now and at the last read) has nothing memory.stat
	 * could report moving: its last parse is reused instead of formatting the file.
	 */
	bool stat_cached;
	uint64_t stat_v[MCG_C__COUNT];
	uint64_t stat_valid;
	uint64_t last_usage;
	bool last_usage_ok;
	struct node *parent;
	struct node **kids;
	size_t nkids, capkids;
	uint64_t stall_acc; /* taskstats deltas summed since the start (own tasks) */
	uint64_t stall_tree;
};

struct mcg_sampler {
	struct mcg_ctx *ctx;
	unsigned flags;
	int version;
	const char *const *files;
	struct node *top;
	uint64_t next_id;
	size_t nnodes;
	int ifd; /* inotify, -1 when unavailable: rescan every sample */
	bool rescan_all;
	uint64_t seq;
	struct mcg_snapshot *prev;
	char *buf;
	size_t buflen;
	struct mcg_taskstats *ts;
	int ts_err;
	struct tgid_ent *tg; /* sorted by tgid: last delay per task group */
	size_t ntg;
	char **async; /* sorted escaped names in <rundir>/async, NULL: no state dir */
	size_t nasync;
	int topfd;        /* the sampled group's directory (O_PATH), kept */
	bool warned_deep; /* the MCG_WALK_MAX_DEPTH warning was given */
};

/* ---- counters ---------------------------------------------------------- */

static const struct {
	const char *name;
	bool event;
} counters[MCG_C__COUNT] = {
	[MCG_C_USAGE] = {"usage", false},
	[MCG_C_LIMIT] = {"limit", false},
	[MCG_C_HIGH] = {"high", false},
	[MCG_C_ANON] = {"anon", false},
	[MCG_C_FILE] = {"file", false},
	[MCG_C_DIRTY] = {"dirty", false},
	[MCG_C_WRITEBACK] = {"writeback", false},
	[MCG_C_PGSCAN] = {"pgscan", true},
	[MCG_C_PGSTEAL] = {"pgsteal", true},
	[MCG_C_PGSCAN_KSWAPD] = {"pgscan_kswapd", true},
	[MCG_C_PGSCAN_DIRECT] = {"pgscan_direct", true},
	[MCG_C_PGSTEAL_KSWAPD] = {"pgsteal_kswapd", true},
	[MCG_C_PGSTEAL_DIRECT] = {"pgsteal_direct", true},
	[MCG_C_PGPGOUT] = {"pgpgout", true},
	[MCG_C_REFAULT] = {"refault", true},
	[MCG_C_EV_HIGH] = {"events_high", true},
	[MCG_C_EV_MAX] = {"events_max", true},
	[MCG_C_EV_OOM] = {"events_oom", true},
	[MCG_C_EV_OOM_KILL] = {"events_oom_kill", true},
	[MCG_C_FAILCNT] = {"failcnt", true},
	[MCG_C_PSI_SOME_US] = {"psi_some_us", true},
	[MCG_C_PSI_FULL_US] = {"psi_full_us", true},
	[MCG_C_STALL_NS] = {"stall_ns", true},
};

bool mcg_counter_is_event(enum mcg_counter c)
{
	return (unsigned)c < MCG_C__COUNT && counters[c].event;
}

const char *mcg_counter_name(enum mcg_counter c)
{
	return (unsigned)c < MCG_C__COUNT ? counters[c].name : NULL;
}

/* ---- parsing (no allocation: this runs for every cgroup on every refresh) ---- */

static bool parse_num(const char **pp, uint64_t *ret)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*pp = p;
	*ret = v;
	return true;
}

struct keymap {
	const char *key;
	unsigned len;
	int counter;
	bool add; /* sum into the counter (refault anon + file) */
};
#define K(s, c, a) {s, sizeof(s) - 1, c, a}
static const struct keymap v1_keys[] = {
	/* the hierarchical totals (the local keys without total_ are ignored) */
	K("total_rss", MCG_C_ANON, false),
	K("total_cache", MCG_C_FILE, false),
	K("total_dirty", MCG_C_DIRTY, false),
	K("total_writeback", MCG_C_WRITEBACK, false),
	K("total_pgpgout", MCG_C_PGPGOUT, false),
	K("total_workingset_refault_anon", MCG_C_REFAULT, true),
	K("total_workingset_refault_file", MCG_C_REFAULT, true),
	K("total_workingset_refault", MCG_C_REFAULT, true),
};
static const struct keymap v2_keys[] = {
	K("anon", MCG_C_ANON, false),
	K("file", MCG_C_FILE, false),
	K("file_dirty", MCG_C_DIRTY, false),
	K("file_writeback", MCG_C_WRITEBACK, false),
	K("pgscan", MCG_C_PGSCAN, false),
	K("pgsteal", MCG_C_PGSTEAL, false),
	K("pgscan_kswapd", MCG_C_PGSCAN_KSWAPD, false),
	K("pgscan_direct", MCG_C_PGSCAN_DIRECT, false),
	K("pgsteal_kswapd", MCG_C_PGSTEAL_KSWAPD, false),
	K("pgsteal_direct", MCG_C_PGSTEAL_DIRECT, false),
	K("workingset_refault_anon", MCG_C_REFAULT, true),
	K("workingset_refault_file", MCG_C_REFAULT, true),
	K("workingset_refault", MCG_C_REFAULT, true), /* before 5.9 */
};
static const struct keymap v2_events[] = {
	K("high", MCG_C_EV_HIGH, false),
	K("max", MCG_C_EV_MAX, false),
	K("oom", MCG_C_EV_OOM, false),
	K("oom_kill", MCG_C_EV_OOM_KILL, false),
};
#undef K

/* "key value" lines: pick the keys of MAP into ROW. V1 lines not starting with "total_" are skipped. */
static void parse_keyed(const char *text, const struct keymap *map, size_t nmap, bool v1_totals,
			struct mcg_sample_row *row)
{
	const char *p = text;

	while (*p) {
		const char *sp = p;
		size_t klen, k;

		while (*sp && *sp != ' ' && *sp != '\n')
			sp++;
		klen = (size_t)(sp - p);
		if (*sp == ' ' && !(v1_totals && (klen < 6 || memcmp(p, "total_", 6)))) {
			for (k = 0; k < nmap; k++) {
				uint64_t v;
				const char *q = sp;
				int c;

				if (map[k].len != klen || memcmp(map[k].key, p, klen))
					continue;
				if (!parse_num(&q, &v))
					break;
				c = map[k].counter;
				if (map[k].add && ((row->valid >> c) & 1))
					row->v[c] += v;
				else
					row->v[c] = v;
				row->valid |= 1ULL << c;
				break;
			}
		}
		p = strchr(sp, '\n');
		if (!p)
			break;
		p++;
	}
}

/* PSI "some avg10=A avg60=B avg300=C total=T" / "full ...". */
static bool psi_parse_line(const char *p, double *avg10, uint64_t *total)
{
	const char *t;
	char *end;

	p = strstr(p, "avg10=");
	if (!p)
		return false;
	*avg10 = strtod(p + 6, &end);
	if (end == p + 6)
		return false;
	t = strstr(end, "total=");
	if (!t)
		return false;
	t += 6;
	return parse_num(&t, total);
}

static void parse_psi(const char *text, double *some10, bool *some_ok, double *full10,
		      bool *full_ok, uint64_t *some_us, uint64_t *full_us)
{
	const char *s = strstr(text, "some ");
	const char *f = strstr(text, "full ");

	*some_ok = s && psi_parse_line(s, some10, some_us);
	*full_ok = f && psi_parse_line(f, full10, full_us);
}

/* ---- the tree ---------------------------------------------------------- */

/*
 * N's directory as an O_PATH descriptor: its own kept one, or opened name by
 * name from the nearest ancestor holding one (after EMFILE). Never by a path
 * string: PATH_MAX would cut a deep one and name another directory.
 */
static int node_path_fd(struct mcg_sampler *s, const struct node *n)
{
	int pfd, fd;

	if (n->dfd >= 0)
		return openat(n->dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!n->parent)
		return openat(s->topfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pfd = node_path_fd(s, n->parent);
	if (pfd < 0)
		return -1;
	fd = openat(pfd, n->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	return fd;
}

/* N's directory opened for reading (readdir, openat of its files). */
static int open_dir(struct mcg_sampler *s, const struct node *n)
{
	int pfd = node_path_fd(s, n), fd;

	if (pfd < 0)
		return -1;
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	return fd;
}

static void node_close_files(struct node *n)
{
	unsigned i;

	for (i = 0; i < F__COUNT; i++) {
		if (n->fd[i] >= 0)
			close(n->fd[i]);
		n->fd[i] = FD_ABSENT;
	}
}

static void node_free(struct mcg_sampler *s, struct node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(s, n->kids[i]);
	free(n->kids);
	if (n->wd >= 0 && s->ifd >= 0)
		inotify_rm_watch(s->ifd, n->wd);
	node_close_files(n);
	if (n->dfd >= 0)
		close(n->dfd);
	free(n->path);
	free(n);
	s->nnodes--;
}

static int open_one(struct mcg_sampler *s, int dfd, unsigned f)
{
	int fd;

	if (!s->files[f])
		return FD_ABSENT;
	/* O_NOFOLLOW: a symlink planted in a --root tree is not followed */
	fd = openat(dfd, s->files[f], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == EMFILE || errno == ENFILE)
		return FD_REOPEN;
	return FD_ABSENT;
}

/* A watch on the directory DFD: through /proc/self/fd, which names it at any depth. */
static int add_watch(struct mcg_sampler *s, int dfd, const char *path)
{
	const uint32_t mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY |
			      IN_ONLYDIR;
	const char *root = mcg_ctx_root(s->ctx);
	char link[64], *full;
	int wd;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	wd = inotify_add_watch(s->ifd, link, mask);
	if (wd >= 0 || errno != ENOENT)
		return wd;
	/* no /proc: the path, if the kernel can take it */
	if (strlen(root) + strlen(path) + 1 >= PATH_MAX)
		return -1;
	full = malloc(strlen(root) + strlen(path) + 1);
	if (!full)
		return -1;
	sprintf(full, "%s%s", root, strcmp(path, "/") ? path : "");
	wd = inotify_add_watch(s->ifd, full, mask | IN_DONT_FOLLOW);
	free(full);
	return wd;
}

/* A node for PARENT's child NAME (or, without PARENT, the sampled group at PATH). */
static struct node *node_new(struct mcg_sampler *s, struct node *parent, const char *name)
{
	struct node *n = calloc(1, sizeof(*n));
	struct stat st;
	unsigned i;
	int dfd;

	if (!n)
		return NULL;
	if (parent) {
		size_t plen = strcmp(parent->path, "/") ? strlen(parent->path) : 0;

		n->path = malloc(plen + strlen(name) + 2);
		if (n->path) {
			memcpy(n->path, parent->path, plen);
			n->path[plen] = '/';
			strcpy(n->path + plen + 1, name);
		}
	} else {
		n->path = strdup(name);
	}
	if (!n->path) {
		free(n);
		return NULL;
	}
	n->name = strcmp(n->path, "/") ? strrchr(n->path, '/') + 1 : n->path;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	n->wd = -1;
	n->dfd = -1;
	n->id = ++s->next_id;
	for (i = 0; i < F__COUNT; i++)
		n->fd[i] = FD_ABSENT;
	s->nnodes++;
	n->dfd = node_path_fd(s, n); /* -1 here (EMFILE): reopened through the parent */
	dfd = open_dir(s, n);
	if (dfd < 0) {
		n->gone = true;
		return n;
	}
	if (fstat(dfd, &st) == 0)
		n->ino = st.st_ino;
	for (i = 0; i < F__COUNT; i++)
		n->fd[i] = i == F_PROCS && !(s->flags & MCG_SAMPLER_TASKSTATS) ? FD_UNSET
										: open_one(s, dfd, i);
	if (s->ifd >= 0) {
		n->wd = add_watch(s, dfd, n->path);
		if (n->wd < 0)
			s->rescan_all = true; /* out of watches: fall back to rescanning */
	}
	close(dfd);
	n->rescan = true;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_kid(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

/* Bring N's children in line with the directory: new ones added (and scanned), gone ones freed. */
static int node_rescan(struct mcg_sampler *s, struct node *n)
{
	char **names = NULL;
	size_t nn = 0, cap = 0, i, k;
	struct node **kids = NULL;
	size_t nk = 0;
	DIR *d;
	struct dirent *de;
	int dfd;

	n->rescan = false;
	dfd = open_dir(s, n);
	if (dfd < 0) {
		n->gone = true;
		return 0;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		/* dot names are cgroups too: a ".x" holding 64 MiB must be seen */
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR) {
			struct stat st;

			if (de->d_type != DT_UNKNOWN ||
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		if (nn == cap) {
			char **nb = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*nb));

			if (!nb)
				goto oom;
			names = nb;
		}
		names[nn] = strdup(de->d_name);
		if (!names[nn])
			goto oom;
		nn++;
	}
	if (nn && n->depth >= MCG_WALK_MAX_DEPTH) {
		/* bounded: the tree code recurses per level */
		if (!s->warned_deep) {
			char *e = mcg_escape_dup(n->path);

			mcg_log(s->ctx, MCG_LOG_WARNING,
				"skipping the cgroups under '%s': deeper than %d levels", e ? e : "?",
				MCG_WALK_MAX_DEPTH);
			free(e);
			s->warned_deep = true;
		}
		for (i = 0; i < nn; i++)
			free(names[i]);
		nn = 0;
	}
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	/* the kids are kept sorted by name: merge the two lists */
	kids = malloc((nn ? nn : 1) * sizeof(*kids));
	if (!kids)
		goto oom;
	i = k = 0;
	while (i < nn || k < n->nkids) {
		int c = i >= nn ? 1 : k >= n->nkids ? -1 : strcmp(names[i], n->kids[k]->name);

		if (c > 0) { /* vanished */
			node_free(s, n->kids[k++]);
			continue;
		}
		if (c == 0) {
			struct node *old = n->kids[k++];
			struct stat st;

			/* the same name but a new directory: a new cgroup */
			if (!fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) && st.st_ino == old->ino &&
			    !old->gone) {
				kids[nk++] = old;
				i++;
				continue;
			}
			node_free(s, old);
		}
		{
			struct node *nw = node_new(s, n, names[i]);

			if (!nw)
				goto oom_merge;
			kids[nk++] = nw;
		}
		i++;
	}
	free(n->kids);
	n->kids = kids;
	n->nkids = nk;
	n->capkids = nn;
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	closedir(d);
	/* new children scan their own subtrees */
	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->rescan || s->rescan_all)
			node_rescan(s, n->kids[i]);
	return 0;
oom_merge:
	/* keep what was merged; the rest of the old kids are still owned by n->kids */
	while (k < n->nkids)
		kids[nk++] = n->kids[k++];
	free(n->kids);
	n->kids = kids;
	n->nkids = nk;
	qsort(n->kids, nk, sizeof(*kids), cmp_kid);
	kids = NULL;
oom:
	free(kids);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return -ENOMEM;
}

static struct node *find_wd(struct node *n, int wd)
{
	size_t i;

	if (n->wd == wd)
		return n;
	for (i = 0; i < n->nkids; i++) {
		struct node *r = find_wd(n->kids[i], wd);

		if (r)
			return r;
	}
	return NULL;
}

static void mark_all(struct node *n)
{
	size_t i;

	n->rescan = true;
	for (i = 0; i < n->nkids; i++)
		mark_all(n->kids[i]);
}

static void drain_inotify(struct mcg_sampler *s)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	if (s->ifd < 0) {
		s->rescan_all = true;
		return;
	}
	while ((len = read(s->ifd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + len) {
			struct inotify_event *ev = (struct inotify_event *)(void *)p;

			if (ev->mask & IN_Q_OVERFLOW) {
				s->rescan_all = true;
			} else if (ev->wd >= 0) {
				struct node *n = find_wd(s->top, ev->wd);

				if (n && (ev->mask & IN_MODIFY)) {
					unsigned f;

					for (f = 0; f < F__COUNT; f++)
						if (ev->len && s->files[f] && !strcmp(ev->name, s->files[f]))
							n->cached &= ~(1u << f);
				} else if (n && !(ev->mask & IN_MODIFY)) {
					n->rescan = true;
				}
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void rescan_marked(struct mcg_sampler *s, struct node *n)
{
	size_t i;

	if (n->rescan) {
		node_rescan(s, n); /* scans new kids too */
		return;
	}
	for (i = 0; i < n->nkids; i++)
		rescan_marked(s, n->kids[i]);
}

/* ---- sampler ----------------------------------------------------------- */

int mcg_sampler_new(struct mcg_ctx *ctx, const char *path, unsigned flags, struct mcg_sampler **ret)
{
	struct mcg_sampler *s;
	struct mcg_group *g;
	int r;

	r = mcg_group_open(ctx, path ? path : "/", &g);
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s) {
		mcg_group_close(g);
		return -ENOMEM;
	}
	s->topfd = -1;
	s->ctx = ctx;
	s->flags = flags;
	s->version = mcg_ctx_version(ctx);
	s->files = s->version == 2 ? v2_files : v1_files;
	s->buflen = 16384;
	s->buf = malloc(s->buflen);
	s->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!s->buf) {
		mcg_group_close(g);
		mcg_sampler_free(s);
		return -ENOMEM;
	}
	s->topfd = openat(mcg_group_dirfd(g), ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->topfd < 0) {
		r = -errno;
		mcg_group_close(g);
		mcg_sampler_free(s);
		return r;
	}
	s->top = node_new(s, NULL, mcg_group_path(g));
	mcg_group_close(g);
	if (!s->top) {
		mcg_sampler_free(s);
		return -ENOMEM;
	}
	if (s->flags & MCG_SAMPLER_TASKSTATS)
		s->ts_err = mcg_taskstats_open(&s->ts);
	r = node_rescan(s, s->top);
	if (r < 0) {
		mcg_sampler_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

static void free_async(struct mcg_sampler *s)
{
	size_t i;

	for (i = 0; s->async && i < s->nasync; i++)
		free(s->async[i]);
	free(s->async);
	s->async = NULL;
	s->nasync = 0;
}

void mcg_sampler_free(struct mcg_sampler *s)
{
	if (!s)
		return;
	/* closing the inotify descriptor first drops every watch at once */
	if (s->ifd >= 0)
		close(s->ifd);
	s->ifd = -1;
	node_free(s, s->top);
	mcg_snapshot_unref(s->prev);
	mcg_taskstats_close(s->ts);
	free(s->tg);
	free_async(s);
	free(s->buf);
	if (s->topfd >= 0)
		close(s->topfd);
	free(s);
}

int mcg_sampler_set_flags(struct mcg_sampler *s, unsigned flags)
{
	if ((flags & MCG_SAMPLER_TASKSTATS) && !s->ts) {
		s->ts_err = mcg_taskstats_open(&s->ts);
	} else if (!(flags & MCG_SAMPLER_TASKSTATS) && s->ts) {
		mcg_taskstats_close(s->ts);
		s->ts = NULL;
		free(s->tg);
		s->tg = NULL;
		s->ntg = 0;
	}
	s->flags = flags;
	return 0;
}

static size_t count_fds(const struct node *n)
{
	size_t c = 0, i;

	for (i = 0; i < F__COUNT; i++)
		c += n->fd[i] >= 0;
	c += n->dfd >= 0;
	for (i = 0; i < n->nkids; i++)
		c += count_fds(n->kids[i]);
	return c;
}

size_t mcg_sampler_nfds(const struct mcg_sampler *s)
{
	return count_fds(s->top) + (s->ifd >= 0);
}

/*
 * One pread() per file: cgroup files are seq_files that fill the whole buffer in one call,
 * so a short read is the whole file. (Reading on to EOF costs a second pread, and the
 * kernel formats the file again for it: twice the CPU per refresh.)
 */
static ssize_t pread_once(struct mcg_sampler *s, int fd)
{
	ssize_t n;

	do
		n = pread(fd, s->buf, s->buflen - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n == s->buflen - 1) /* did not fit: the slow path to EOF */
		return mcg_fd_pread(fd, s->buf, s->buflen);
	s->buf[n] = '\0';
	return n;
}

/* Read file F of N into s->buf; -ENOENT when absent; -ENODEV etc. when the cgroup went away. */
static ssize_t node_read(struct mcg_sampler *s, struct node *n, unsigned f)
{
	ssize_t r;

	if (n->fd[f] == FD_UNSET) {
		int dfd = open_dir(s, n);

		n->fd[f] = dfd < 0 ? FD_ABSENT : open_one(s, dfd, f);
		if (dfd >= 0)
			close(dfd);
	}
	if (n->fd[f] == FD_ABSENT)
		return -ENOENT;
	if (n->fd[f] == FD_REOPEN) {
		int dfd = open_dir(s, n), fd;

		if (dfd < 0)
			return -errno;
		fd = openat(dfd, s->files[f], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		close(dfd);
		if (fd < 0)
			return -errno;
		r = pread_once(s, fd);
		close(fd);
		return r;
	}
	return pread_once(s, n->fd[f]);
}

static bool read_u64(struct mcg_sampler *s, struct node *n, unsigned f, uint64_t *v, int *err)
{
	const char *p = s->buf;
	ssize_t r;

	if ((n->cached >> f) & 1) {
		*v = n->cache[f];
		return n->cache_has[f];
	}
	r = node_read(s, n, f);
	if (r < 0) {
		if (r != -ENOENT)
			*err = (int)r;
		return false;
	}
	while (*p == ' ')
		p++;
	if (!strncmp(p, "max", 3)) {
		*v = MCG_MAX;
		return true;
	}
	if (!parse_num(&p, v))
		return false;
	if (s->version == 1 && *v >= mcg__v1_unlimited())
		*v = MCG_MAX;
	return true;
}

static void set_v(struct mcg_sample_row *row, int c, uint64_t v)
{
	row->v[c] = v;
	row->valid |= 1ULL << c;
}

/* Fill ROW from N's files; false when the cgroup vanished under us. */
static bool sample_node(struct mcg_sampler *s, struct node *n, struct mcg_sample_row *row)
{
	bool full = s->ifd < 0 || n->wd < 0 || s->seq % CACHE_REFRESH == 0;
	uint64_t v;
	int err = 0;
	ssize_t r;

	if (n->gone)
		return false;
	if (read_u64(s, n, F_USAGE, &v, &err))
		set_v(row, MCG_C_USAGE, v);
	if (full)
		n->cached = 0;
	if (read_u64(s, n, F_LIMIT, &v, &err))
		set_v(row, MCG_C_LIMIT, v);
	else if (s->version == 2 && !strcmp(n->path, "/"))
		set_v(row, MCG_C_LIMIT, MCG_MAX); /* the v2 root has no memory.max */
	if (read_u64(s, n, F_HIGH, &v, &err))
		set_v(row, MCG_C_HIGH, v);
	if (!err) {
		unsigned f;

		for (f = F_LIMIT; f <= F_HIGH; f++) {
			n->cache_has[f] = (row->valid >> (f == F_LIMIT ? MCG_C_LIMIT : MCG_C_HIGH)) & 1;
			n->cache[f] = row->v[f == F_LIMIT ? MCG_C_LIMIT : MCG_C_HIGH];
			n->cached |= 1u << f;
		}
	}
	/*
	 * failcnt counts charges that hit this cgroup's own limit (page_counter_try_charge,
	 * mm/page_counter.c); without a limit it can only change by a write, which inotify
	 * reports. So it is re-read only where there is a limit to hit.
	 */
	if (!((row->valid >> MCG_C_LIMIT) & 1) || row->v[MCG_C_LIMIT] != MCG_MAX)
		n->cached &= ~(1u << F_FAILCNT);
	if (read_u64(s, n, F_FAILCNT, &v, &err)) {
		set_v(row, MCG_C_FAILCNT, v);
		n->cache[F_FAILCNT] = v;
		n->cache_has[F_FAILCNT] = true;
	} else {
		n->cache_has[F_FAILCNT] = false;
	}
	if (!err && s->files[F_FAILCNT])
		n->cached |= 1u << F_FAILCNT;
	if (!full && n->stat_cached && n->last_usage_ok && !n->last_usage &&
	    ((row->valid >> MCG_C_USAGE) & 1) && !row->v[MCG_C_USAGE]) {
		unsigned c;

		for (c = 0; c < MCG_C__COUNT; c++)
			if ((n->stat_valid >> c) & 1)
				row->v[c] = n->stat_v[c];
		row->valid |= n->stat_valid;
	} else {
		uint64_t before = row->valid;
		unsigned c;

		r = node_read(s, n, F_STAT);
		if (r >= 0) {
			if (s->version == 2)
				parse_keyed(s->buf, v2_keys, MCG_ARRAY_SIZE(v2_keys), false, row);
			else
				parse_keyed(s->buf, v1_keys, MCG_ARRAY_SIZE(v1_keys), true, row);
		} else if (r != -ENOENT) {
			err = (int)r;
		}
		n->stat_valid = row->valid & ~before;
		for (c = 0; c < MCG_C__COUNT; c++)
			n->stat_v[c] = row->v[c];
		n->stat_cached = r >= 0;
	}
	n->last_usage_ok = (row->valid >> MCG_C_USAGE) & 1;
	n->last_usage = row->v[MCG_C_USAGE];
	if (node_read(s, n, F_EVENTS) >= 0)
		parse_keyed(s->buf, v2_events, MCG_ARRAY_SIZE(v2_events), false, row);
	if (node_read(s, n, F_PRESSURE) > 0) {
		uint64_t su = 0, fu = 0;

		parse_psi(s->buf, &row->psi_some_avg10, &row->psi_some_valid, &row->psi_full_avg10,
			  &row->psi_full_valid, &su, &fu);
		if (row->psi_some_valid)
			set_v(row, MCG_C_PSI_SOME_US, su);
		if (row->psi_full_valid)
			set_v(row, MCG_C_PSI_FULL_US, fu);
	}
	/* the cgroup was removed after we opened its files */
	if (err == -ENODEV || err == -ENOENT || err == -ESTALE) {
		n->gone = true;
		if (n->parent)
			n->parent->rescan = true;
		return false;
	}
	return true;
}

/* ---- taskstats: stall time per cgroup ---------------------------------- */

static int cmp_tg(const void *a, const void *b)
{
	const struct tgid_ent *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

struct tg_vec {
	struct tgid_ent *v;
	size_t n, cap;
};

static void stall_node(struct mcg_sampler *s, struct node *n, struct tg_vec *now)
{
	const char *p;
	size_t i;

	n->stall_tree = 0;
	if (!n->gone && node_read(s, n, F_PROCS) >= 0) {
		/* the read buffer is reused below: copy the pid list out first */
		char *list = strdup(s->buf);

		for (p = list; p && *p;) {
			uint64_t pid, delay, cnt;

			if (!parse_num(&p, &pid))
				break;
			while (*p == '\n')
				p++;
			if (mcg_taskstats_tgid(s->ts, (pid_t)pid, &delay, &cnt) < 0)
				continue;
			{
				struct tgid_ent key = {(pid_t)pid, 0}, *old;

				old = s->ntg ? bsearch(&key, s->tg, s->ntg, sizeof(*s->tg), cmp_tg) : NULL;
				if (old && delay >= old->delay_ns)
					n->stall_acc += delay - old->delay_ns;
			}
			if (now->n == now->cap) {
				struct tgid_ent *nv =
					realloc(now->v, (now->cap = now->cap ? now->cap * 2 : 64) * sizeof(*nv));

				if (!nv)
					break;
				now->v = nv;
			}
			now->v[now->n].tgid = (pid_t)pid;
			now->v[now->n++].delay_ns = delay;
		}
		free(list);
	}
	n->stall_tree = n->stall_acc;
	for (i = 0; i < n->nkids; i++) {
		stall_node(s, n->kids[i], now);
		n->stall_tree += n->kids[i]->stall_tree;
	}
}

static void sample_taskstats(struct mcg_sampler *s)
{
	struct tg_vec now = {0};

	stall_node(s, s->top, &now);
	if (now.n)
		qsort(now.v, now.n, sizeof(*now.v), cmp_tg);
	free(s->tg);
	s->tg = now.v;
	s->ntg = now.n;
}

/* ---- global ------------------------------------------------------------ */

static void sample_global(struct mcg_sampler *s, struct mcg_sample_global *g)
{
	static const struct {
		const char *key;
		int id;
		bool pages;
	} vm[] = {
		{"nr_dirty", MCG_G_DIRTY, true},
		{"nr_writeback", MCG_G_WRITEBACK, true},
		{"nr_dirty_threshold", MCG_G_DIRTY_THRESH, true},
		{"nr_dirty_background_threshold", MCG_G_DIRTY_BG_THRESH, true},
		{"pgscan_kswapd", MCG_G_PGSCAN_KSWAPD, false},
		{"pgscan_direct", MCG_G_PGSCAN_DIRECT, false},
		{"pgsteal_kswapd", MCG_G_PGSTEAL_KSWAPD, false},
		{"pgsteal_direct", MCG_G_PGSTEAL_DIRECT, false},
	};
	static const struct {
		const char *key;
		int id;
	} mi[] = {
		{"MemTotal:", MCG_G_MEM_TOTAL},
		{"MemAvailable:", MCG_G_MEM_AVAILABLE},
		{"MemFree:", MCG_G_MEM_FREE},
	};
	uint64_t ps = (uint64_t)mcg_page_size();
	size_t i;
	int d;

	if (mcg_proc_read(s->ctx, "meminfo", s->buf, s->buflen) > 0) {
		for (i = 0; i < MCG_ARRAY_SIZE(mi); i++) {
			const char *p = strstr(s->buf, mi[i].key);
			uint64_t v;

			if (p && (p == s->buf || p[-1] == '\n')) {
				p += strlen(mi[i].key);
				if (parse_num(&p, &v)) {
					g->v[mi[i].id] = v * 1024;
					g->valid |= 1ULL << mi[i].id;
				}
			}
		}
	}
	if (mcg_proc_read(s->ctx, "vmstat", s->buf, s->buflen) > 0) {
		for (i = 0; i < MCG_ARRAY_SIZE(vm); i++) {
			uint64_t v;

			if (mcg_keyed_get(s->buf, vm[i].key, &v) == 0) {
				g->v[vm[i].id] = vm[i].pages ? v * ps : v;
				g->valid |= 1ULL << vm[i].id;
			}
		}
	}
	if (mcg_proc_read(s->ctx, "pressure/memory", s->buf, s->buflen) > 0) {
		uint64_t a, b;

		parse_psi(s->buf, &g->psi_some_avg10, &g->psi_some_valid, &g->psi_full_avg10,
			  &g->psi_full_valid, &a, &b);
	}
	d = mcg_delayacct_get(s->ctx);
	g->delayacct = d < 0 ? -1 : d;
}

/* ---- async-reclaim state: the enable files of 'memcgctl async-reclaim' ---- */

static void read_async(struct mcg_sampler *s)
{
	struct mcg_async_conf *confs = NULL;
	char dir[PATH_MAX];
	size_t n = 0, i;
	struct stat st;

	free_async(s);
	if (mcg_async_statedir(s->ctx, dir, sizeof(dir)) < 0 || stat(dir, &st) < 0)
		return; /* never enabled here: unknown, shown as '-' */
	if (mcg_async_list(dir, &confs, &n) < 0)
		return;
	s->async = calloc(n + 1, sizeof(*s->async));
	for (i = 0; s->async && i < n; i++) {
		/* another hierarchy's entries (a fixture, a test root) are not ours */
		if (strcmp(confs[i].root, mcg_ctx_root(s->ctx)))
			continue;
		s->async[s->nasync] = strdup(confs[i].path);
		if (s->async[s->nasync])
			s->nasync++;
	}
	free(confs);
	if (s->async && s->nasync > 1)
		qsort(s->async, s->nasync, sizeof(*s->async), cmp_str);
}

static int async_state(const struct mcg_sampler *s, const char *path)
{
	if (!s->async)
		return -1;
	return bsearch(&path, s->async, s->nasync, sizeof(*s->async), cmp_str) != NULL;
}

/* ---- snapshots --------------------------------------------------------- */

struct fill {
	struct mcg_sampler *s;
	struct mcg_snapshot *snap;
	size_t nstr;
};

static void fill_rows(struct fill *f, struct node *n, int parent)
{
	struct mcg_sample_row *row;
	size_t i, len;
	int idx;

	if (f->snap->n_rows >= f->s->nnodes)
		return;
	row = &f->snap->rows[f->snap->n_rows];
	memset(row, 0, sizeof(*row));
	if (!sample_node(f->s, n, row))
		return; /* vanished: neither it nor its subtree is shown */
	idx = (int)f->snap->n_rows++;
	len = strlen(n->path) + 1;
	memcpy(f->snap->strings + f->nstr, n->path, len);
	row->path = f->snap->strings + f->nstr;
	row->name = row->path + (n->name - n->path);
	f->nstr += len;
	row->depth = n->depth;
	row->parent = parent;
	row->id = n->id;
	row->async = async_state(f->s, n->path);
	if (f->snap->taskstats)
		set_v(row, MCG_C_STALL_NS, n->stall_tree);
	for (i = 0; i < n->nkids; i++)
		fill_rows(f, n->kids[i], idx);
}

static size_t path_bytes(const struct node *n)
{
	size_t b = strlen(n->path) + 1, i;

	for (i = 0; i < n->nkids; i++)
		b += path_bytes(n->kids[i]);
	return b;
}

int mcg_sampler_sample(struct mcg_sampler *s, struct mcg_snapshot **ret)
{
	struct mcg_snapshot *snap;
	struct timespec ts;
	struct fill f;

	drain_inotify(s);
	if (s->rescan_all) {
		s->rescan_all = false;
		mark_all(s->top);
		if (s->ifd < 0)
			s->rescan_all = true; /* no inotify: every sample rescans */
	}
	rescan_marked(s, s->top);
	if (s->top->gone)
		return -ENOENT;

	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	snap->refs = 1;
	snap->version = s->version;
	snap->page_size = (uint64_t)mcg_page_size();
	snap->rows = malloc((s->nnodes ? s->nnodes : 1) * sizeof(*snap->rows));
	snap->strings = malloc(path_bytes(s->top));
	if (!snap->rows || !snap->strings) {
		mcg_snapshot_unref(snap);
		return -ENOMEM;
	}
	sample_global(s, &snap->global);
	read_async(s);
	if ((s->flags & MCG_SAMPLER_TASKSTATS)) {
		if (snap->global.delayacct == 0)
			snap->taskstats_err = -ENOTSUP;
		else if (!s->ts)
			snap->taskstats_err = s->ts_err ? s->ts_err : -ENOTSUP;
		if (!snap->taskstats_err) {
			sample_taskstats(s);
			snap->taskstats = true;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap->mono_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	f.s = s;
	f.snap = snap;
	f.nstr = 0;
	fill_rows(&f, s->top, -1);
	snap->seq = ++s->seq;
	mcg_snapshot_rates(s->prev, snap);
	mcg_snapshot_unref(s->prev);
	s->prev = mcg_snapshot_ref(snap);
	*ret = snap;
	return 0;
}

struct mcg_snapshot *mcg_snapshot_ref(struct mcg_snapshot *snap)
{
	if (snap)
		snap->refs++;
	return snap;
}

void mcg_snapshot_unref(struct mcg_snapshot *snap)
{
	if (!snap || --snap->refs > 0)
		return;
	free(snap->rows);
	free(snap->strings);
	free(snap);
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct mcg_sample_row *const *)a)[0]->id;
	uint64_t y = ((const struct mcg_sample_row *const *)b)[0]->id;

	return x < y ? -1 : x > y;
}

static const struct mcg_sample_row *find_prev(const struct mcg_sample_row *const *idx, size_t n,
					      uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (idx[mid]->id == id)
			return idx[mid];
		if (idx[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void mcg_snapshot_rates(const struct mcg_snapshot *prev, struct mcg_snapshot *cur)
{
	const struct mcg_sample_row **idx = NULL;
	double dt = 0;
	size_t i;
	unsigned c;
	bool sorted = true;

	if (prev && cur->mono_ns > prev->mono_ns)
		dt = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
	cur->interval = dt;
	if (prev && prev->n_rows) {
		idx = malloc(prev->n_rows * sizeof(*idx));
		for (i = 0; idx && i < prev->n_rows; i++) {
			idx[i] = &prev->rows[i];
			if (i && idx[i]->id < idx[i - 1]->id)
				sorted = false;
		}
		if (idx && !sorted)
			qsort(idx, prev->n_rows, sizeof(*idx), cmp_id);
	}
	for (i = 0; i < cur->n_rows; i++) {
		struct mcg_sample_row *r = &cur->rows[i];
		const struct mcg_sample_row *p = idx ? find_prev(idx, prev->n_rows, r->id) : NULL;

		r->rate_valid = 0;
		for (c = 0; c < MCG_C__COUNT; c++) {
			bool have = (r->valid >> c) & 1, had = p && ((p->valid >> c) & 1);

			r->rate[c] = 0;
			if (!counters[c].event) {
				r->since[c] = 0;
				/* amounts: the change per second (usage falling under reclaim on v1) */
				if (have && had && dt > 0 && r->v[c] != MCG_MAX && p->v[c] != MCG_MAX) {
					r->rate[c] = ((double)r->v[c] - (double)p->v[c]) / dt;
					r->rate_valid |= 1ULL << c;
				}
				continue;
			}
			if (!have) {
				r->since[c] = 0;
				continue;
			}
			if (!had) {
				r->since[c] = 0; /* first seen: counting starts here */
				continue;
			}
			if (r->v[c] >= p->v[c]) {
				r->since[c] = p->since[c] + (r->v[c] - p->v[c]);
				if (dt > 0) {
					r->rate[c] = (double)(r->v[c] - p->v[c]) / dt;
					r->rate_valid |= 1ULL << c;
				}
			} else {
				/* went back: a reset; what counted since the reset is new */
				r->since[c] = p->since[c] + r->v[c];
			}
		}
	}
	free(idx);
	cur->global.rate_valid = 0;
	for (c = MCG_G_PGSCAN_KSWAPD; c <= MCG_G_PGSTEAL_DIRECT; c++) {
		cur->global.rate[c] = 0;
		if (prev && dt > 0 && ((cur->global.valid & prev->global.valid) >> c & 1) &&
		    cur->global.v[c] >= prev->global.v[c]) {
			cur->global.rate[c] = (double)(cur->global.v[c] - prev->global.v[c]) / dt;
			cur->global.rate_valid |= 1ULL << c;
		}
	}
}
