/* sample.c: the 'top' sampler: kept descriptors, pread, inotify for the tree, immutable snapshots. */
#include "model/model.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/*
 * A row's files are the slots of the schema's plan (lib/model/record.c) for the
 * counters the sampler reads (mcg_sampler_set_keys); cgroup.procs (taskstats)
 * is one more slot of the sampler's own after them. A slot's descriptor is
 * opened at its first read and kept; -1 when absent.
 */
#define F_PROCS MCG__PLAN_FILES
#define F_MAX (MCG__PLAN_FILES + 1)
/* fd values besides real descriptors */
#define FD_ABSENT MCG__FD_ABSENT /* the kernel has no such file here */
#define FD_REOPEN MCG__FD_REOPEN /* out of descriptors: open/read/close each time */
#define FD_UNSET MCG__FD_UNSET   /* not tried yet (cgroup.procs until taskstats is asked for) */
#define CACHE_REFRESH 16
_Static_assert(F_MAX <= 32, "node->cache_has is a 32-bit mask of slots");

struct tgid_ent {
	pid_t tgid;
	uint64_t delay_ns;
};

struct node {
	uint64_t id;
	char *path; /* "/" or "/a/b" */
	const char *name;
	ino_t ino;
	int depth;
	int wd; /* inotify watch, -1 if none */
	int dfd; /* O_PATH descriptor of the directory; -1: reopened from the parent's */
	int fd[F_MAX];
	uint32_t cache_has; /* bit f: slot f had its value (see cached below) */
	bool last_usage_ok; /* last_usage below was read */
	bool rescan;
	bool nofd; /* its last opening or listing failed for want of descriptors */
	bool gone;
	/*
	 * opened: its directory was opened (node_open()): a node is made when its
	 * parent is listed, but opened, watched and listed (listed) only when it is
	 * first read: a lazy tree (dirty's pruned or named rows) lists a parent of
	 * a thousand cgroups and opens the one it needs.
	 */
	bool opened;
	bool listed;
	/*
	 * Limits change only by write(2), which inotify reports (IN_MODIFY on the
	 * directory watch): they are read again only then, and every CACHE_REFRESH samples.
	 */
	uint64_t cached; /* bit f (settings, failcnt): the cache holds slot f's value (or its absence) */
	/*
	 * The values of the slots that may be cached, at s->cache_col[f] (only
	 * those: a node per cgroup, and most of a row's 25 slots are never
	 * cached); allocated at the first one, with the plan's s->ncache.
	 */
	uint64_t *cache;
	/*
	 * The counters of the detail files (memory.stat, memory.events,
	 * memory.pressure: all but the single-value ones) at their last read, by
	 * rank in the sampler's det_ids (memory.stat's first): reused for an empty
	 * cgroup's memory.stat, and for a row off the live view's screen between
	 * its turns (mcg_sampler_set_detail).
	 */
	uint64_t *det_v;
	struct mcg_keyset det_valid;
	/* memory.pressure at that read; NULL when it had none (v1: 72 bytes a node less) */
	struct mcg_psi *det_psi;
	uint64_t det_ns;  /* CLOCK_MONOTONIC of that read */
	uint64_t det_seq; /* the sample that read them */
	uint64_t last_usage;
	uint64_t procs; /* cgroup.procs' lines at its last read (procs_ok), for an idle cgroup */
	uint64_t procs_ns; /* CLOCK_MONOTONIC of that read */
	bool procs_ok;
	struct node *parent;
	struct node **kids;
	size_t nkids, capkids;
	uint64_t stall_acc; /* taskstats deltas summed since the start (own tasks) */
	uint64_t stall_tree;
	/*
	 * Where the node stands to the kept paths (mcg_sampler_set_keep), worked
	 * out once per set of paths (keep_gen): a parent of 1000 cgroups of which
	 * 100 are named would search the paths for every child on every sample.
	 */
	uint64_t keep_gen;
	bool keep_under; /* a kept path lies below it */
	bool keep_exact; /* one of the kept paths */
	/* kid_on[i]: kids[i] kept or on the way, for keep_gen kid_on_gen; 0 after the kids change */
	unsigned char *kid_on;
	uint64_t kid_on_gen;
};

struct mcg_sampler {
	struct mcg_ctx *ctx;
	unsigned flags;
	int version;
	struct mcg__plan plan;
	int sl_usage, sl_limit, sl_high, sl_failcnt, sl_stat; /* plan slots, -1: none */
	struct mcg_keyset keys;        /* what the caller asked for */
	/* the columns of a row: the asked counters this hierarchy's files (or derivation) give */
	struct mcg_sample_cols cols;
	struct mcg_record rec; /* the row being read, whole: the plan parses by counter */
	uint64_t settings;             /* bit f: slot f is a single-value setting (cached) */
	uint64_t empty_carry;          /* bit f: slot f is carried while the cgroup stays empty */
	unsigned char slot_key[F_MAX]; /* the counter of a single-value slot */
	uint64_t slot_one;             /* bit f: slot f's value is that one counter's only */
	unsigned char cache_col[F_MAX]; /* a slot that may be cached: its column in node->cache */
	unsigned ncache;
	unsigned char det_ids[MCG_K__COUNT]; /* the detail files' counters, memory.stat's first */
	unsigned nstat, ndet;
	struct mcg_keyset det_keys;
	/*
	 * Once (MCG_SAMPLER_ONCE): memory.stat's planned keys are all amounts
	 * charged to usage (stat_amounts), so a cgroup whose usage reads 0 has
	 * them at 0 and its memory.stat is not read; stat_seen: the keys the
	 * kernel's memory.stat has (the same in every memory cgroup), from the
	 * first one read (stat_seen_ok).
	 */
	bool stat_amounts, stat_seen_ok;
	struct mcg_keyset stat_seen;
	uint64_t *detail_ids; /* rows read in full every sample (sorted), the rest in turn */
	size_t ndetail;
	unsigned rotate;      /* 0: every row in full every sample */
	unsigned idle_every;  /* an idle cgroup's other files every this many samples (0, 1: each) */
	uint64_t now_ns;      /* CLOCK_MONOTONIC of the sample being taken */
	struct node *top;
	uint64_t next_id;
	size_t nnodes;
	size_t path_total; /* the nodes' path bytes with their NULs: a snapshot's strings */
	int ifd; /* inotify, -1 when unavailable: rescan every sample */
	bool rescan_all;
	bool marked; /* some listed node has rescan set: rescan_marked() has work */
	uint64_t seq;
	struct mcg_snapshot *prev; /* for the rates */
	struct mcg_snapshot *spare; /* a let-go snapshot's memory, for the next (release_prev()) */
	char *buf;
	size_t buflen;
	struct mcg_taskstats *ts;
	int ts_err;
	struct tgid_ent *tg; /* sorted by tgid: last delay per task group */
	size_t ntg;
	char **async; /* sorted escaped names in <rundir>/async, NULL: no state dir */
	size_t nasync;
	int topfd;        /* the sampled group's directory (O_PATH), kept */
	/*
	 * v1_kernfs: the tree is the kernel's cgroup v1 hierarchy (not a --root
	 * copy), where every cgroup but the root has the same files (the
	 * controller's cftypes; v2 hides memory.pressure where cgroup.pressure
	 * is 0, so not there). absent: bit f, slot f's file was missing from a
	 * cgroup below the root that is there: missing from all, not opened again.
	 */
	bool v1_kernfs;
	uint64_t absent;
	bool warned_deep; /* the MCG_WALK_MAX_DEPTH warning was given */
	size_t kept, fd_budget; /* file descriptors kept, and how many may be */
	size_t kept_dirs;       /* of KEPT, the nodes' directories */
	struct mcg_keyset prune; /* below a row where all of these read 0, nothing is read */
	bool creating;           /* in mcg_sampler_new(): the top's children only */
	char **keep;             /* paths read whatever the pruning (sorted) */
	size_t nkeep;
	uint64_t keep_gen;       /* counts the sets of kept paths from 1 (a new node's 0 is stale) */
	bool keep_only;          /* and nothing off the way to them */
	int max_depth;           /* rows at most this far below the top; -1: all */
};

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

/*
 * N's directory opened for reading (readdir): a duplicate of its kept
 * descriptor rewound (one syscall), or opened name by name after EMFILE.
 */
static int open_dir(struct mcg_sampler *s, const struct node *n)
{
	int pfd, fd;

	if (n->dfd >= 0) {
		fd = fcntl(n->dfd, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) {
			close(fd);
			return -1;
		}
		return fd;
	}
	pfd = node_path_fd(s, n);
	if (pfd < 0)
		return -1;
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	return fd;
}

static void node_close_files(struct mcg_sampler *s, struct node *n)
{
	unsigned i;

	for (i = 0; i < F_MAX; i++) {
		if (n->fd[i] >= 0) {
			close(n->fd[i]);
			s->kept--;
		}
		n->fd[i] = FD_ABSENT;
	}
}

/* Close N's kept directory descriptor, counting it out of the budget. */
static void node_close_dir(struct mcg_sampler *s, struct node *n)
{
	if (n->dfd >= 0) {
		close(n->dfd);
		s->kept--;
		s->kept_dirs--;
	}
	n->dfd = -1;
}

static void node_free(struct mcg_sampler *s, struct node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(s, n->kids[i]);
	free(n->kids);
	free(n->kid_on);
	if (n->wd >= 0 && s->ifd >= 0)
		inotify_rm_watch(s->ifd, n->wd);
	node_close_files(s, n);
	node_close_dir(s, n);
	free(n->det_v);
	free(n->det_psi);
	free(n->cache);
	s->path_total -= strlen(n->path) + 1;
	free(n->path);
	free(n);
	s->nnodes--;
}

static const char *slot_name(const struct mcg_sampler *s, unsigned f)
{
	if (f == F_PROCS)
		return "cgroup.procs";
	return f < s->plan.nf ? s->plan.f[f].name : NULL;
}

/*
 * Slot F's file under DFD, kept; FD_REOPEN (opened at each read) once the
 * sampler keeps fd_budget descriptors, which leaves the process room for the
 * rest of its work (the history store, sockets, a child's pipes).
 */
static int open_one(struct mcg_sampler *s, int dfd, unsigned f)
{
	int fd;

	/*
	 * A directory for every cgroup first (a cgroup without one is opened
	 * through its ancestors, a walk per read): files are kept only in what
	 * the budget has left after one directory per node.
	 */
	if (s->kept + (s->nnodes - s->kept_dirs) >= s->fd_budget)
		return FD_REOPEN;
	if (f < s->plan.nf) {
		fd = mcg__plan_open(&s->plan, f, dfd);
	} else if (f != F_PROCS) {
		return FD_ABSENT;
	} else {
		fd = openat(dfd, slot_name(s, f), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return errno == EMFILE || errno == ENFILE ? FD_REOPEN : FD_ABSENT;
	}
	if (fd >= 0)
		s->kept++;
	return fd;
}

/* A watch on the directory DFD: through /proc/self/fd, which names it at any depth. */
static int add_watch(struct mcg_sampler *s, int dfd, const char *path)
{
	const uint32_t mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY |
			      IN_ONLYDIR;
	const char *root = mcg_ctx_root(s->ctx);
	char link[64], *full;
	size_t rlen, plen;
	int wd;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	wd = inotify_add_watch(s->ifd, link, mask);
	if (wd >= 0 || errno != ENOENT)
		return wd;
	/* no /proc: the path, if the kernel can take it */
	if (strlen(root) + strlen(path) + 1 >= PATH_MAX)
		return -1;
	rlen = strlen(root);
	plen = strcmp(path, "/") ? strlen(path) : 0;
	full = malloc(rlen + plen + 1);
	if (!full)
		return -1;
	memcpy(full, root, rlen);
	memcpy(full + rlen, path, plen);
	full[rlen + plen] = '\0';
	wd = inotify_add_watch(s->ifd, full, mask | IN_DONT_FOLLOW);
	free(full);
	return wd;
}

static void node_open(struct mcg_sampler *s, struct node *n);

/*
 * A node for PARENT's child NAME (or, without PARENT, the sampled group at
 * PATH, opened at once); a child is opened by node_open() when first needed.
 */
static struct node *node_new(struct mcg_sampler *s, struct node *parent, const char *name)
{
	struct node *n = calloc(1, sizeof(*n));
	unsigned i;

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
	for (i = 0; i < F_MAX; i++)
		n->fd[i] = FD_ABSENT;
	s->nnodes++;
	s->path_total += strlen(n->path) + 1;
	n->rescan = true;
	if (!parent)
		node_open(s, n);
	return n;
}

/*
 * Open N's directory, note its identity and watch it: at its first read or
 * listing. A failure marks it gone (or, out of descriptors, to be looked at again).
 */
static void node_open(struct mcg_sampler *s, struct node *n)
{
	struct node *parent = n->parent;
	const char *name = n->name;
	struct stat st;
	unsigned i;
	int dfd;

	if (n->opened)
		return;
	n->opened = true;
	/*
	 * One descriptor per directory, opened for reading and kept: files are
	 * opened under it, readdir reads a duplicate, inotify watches it through
	 * /proc/self/fd. -1 here (EMFILE): reopened name by name from an ancestor.
	 */
	if (parent && parent->dfd >= 0)
		dfd = openat(parent->dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	else if (!parent)
		dfd = openat(s->topfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		dfd = open_dir(s, n);
	if (dfd < 0 && (errno == EMFILE || errno == ENFILE))
		dfd = open_dir(s, n); /* no kept descriptor: through the ancestors each time */
	else if (dfd >= 0 && (!parent || s->kept < s->fd_budget)) {
		/*
		 * Kept, and counted with the files: a directory kept past the budget
		 * took the descriptors the rest of the tree needed to be opened at
		 * all (12,000 cgroups and RLIMIT_NOFILE 20,000: every cgroup after
		 * the first few thousand lost its counters and its children). Past
		 * the budget the directory is opened through its ancestors when used.
		 */
		n->dfd = dfd;
		s->kept++;
		s->kept_dirs++;
	}
	if (dfd < 0) {
		/* out of descriptors even for a moment: a node to look at again, not a gone one */
		if (errno == EMFILE || errno == ENFILE) {
			for (i = 0; i < F_MAX; i++)
				n->fd[i] = FD_UNSET;
			n->rescan = s->marked = n->nofd = true;
			return;
		}
		n->gone = true;
		return;
	}
	/*
	 * Once: no next sample to tell a new cgroup of the same name by its
	 * inode; a directory that is not a memory cgroup is no row (v2: the
	 * memory controller is not enabled for it), nor is what lies below it.
	 */
	if (s->flags & MCG_SAMPLER_ONCE) {
		if (parent && mcg__cgroup_dir_check(s->ctx, dfd, false) < 0)
			n->gone = true;
	} else if (fstat(dfd, &st) == 0) {
		n->ino = st.st_ino;
	}
	for (i = 0; i < F_MAX; i++)
		n->fd[i] = FD_UNSET; /* opened at the first read (a one-shot opens only what it reads) */
	if (s->ifd >= 0) {
		n->wd = add_watch(s, dfd, n->path);
		if (n->wd < 0)
			s->rescan_all = true; /* out of watches: fall back to rescanning */
	}
	if (dfd != n->dfd)
		close(dfd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_kid(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static bool lazy_tree(const struct mcg_sampler *s)
{
	return s->creating || !mcg_keyset_empty(&s->prune) || s->keep_only ||
	       (s->flags & MCG_SAMPLER_ONCE);
}

/*
 * The names of the directories in DFD, listed from its start with getdents64
 * on DFD itself (lseek to 0: a kept descriptor is listed again when inotify
 * says the directory changed): no duplicate, no DIR stream (fcntl, lseek,
 * fstat and two fcntls, close: 5 of the 20 calls a cgroup cost). Its own frame
 * for the buffer: node_rescan() recurses. 0, or -ENOMEM, or -errno of the listing.
 */
static int list_dirs(int dfd, char ***names, size_t *nn, size_t *cap)
{
	char buf[16384];
	ssize_t got;

	if (lseek(dfd, 0, SEEK_SET) < 0)
		return -errno;
	while ((got = getdents64(dfd, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off < got) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			/* dot names are cgroups too: a ".x" holding 64 MiB must be seen */
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (de->d_type != DT_DIR) {
				struct stat st;

				if (de->d_type != DT_UNKNOWN ||
				    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
				    !S_ISDIR(st.st_mode))
					continue;
			}
			if (mcg_grow(names, cap, *nn, sizeof(**names), 16) < 0)
				return -ENOMEM;
			(*names)[*nn] = strdup(de->d_name);
			if (!(*names)[*nn])
				return -ENOMEM;
			(*nn)++;
		}
	}
	return got < 0 ? -errno : 0;
}

/* Bring N's children in line with the directory: new ones added (and scanned), gone ones freed. */
static int node_rescan(struct mcg_sampler *s, struct node *n)
{
	char **names = NULL;
	size_t nn = 0, cap = 0, i, k;
	struct node **kids = NULL;
	size_t nk = 0;
	int dfd, r;

	node_open(s, n);
	if (n->gone)
		return 0;
	n->rescan = false;
	n->listed = true;
	/* its kept descriptor as it is (list_dirs() rewinds it), else one opened for this */
	dfd = n->dfd >= 0 ? n->dfd : open_dir(s, n);
	if (dfd < 0) {
		/* out of descriptors is not a removed cgroup: listed again at the next sample */
		if (errno == EMFILE || errno == ENFILE)
			n->rescan = s->marked = n->nofd = true;
		else
			n->gone = true;
		return 0;
	}
	n->nofd = false;
	r = list_dirs(dfd, &names, &nn, &cap);
	if (r == -ENOMEM)
		goto oom;
	/* a listing cut short (the directory removed meanwhile): what was listed */
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

			/* never opened, so never read: nothing to tell apart */
			if (!old->opened) {
				kids[nk++] = old;
				i++;
				continue;
			}
			/*
			 * The same name but a new directory: a new cgroup. A node opened out
			 * of descriptors (EMFILE) never learned its inode: nothing to tell it
			 * apart by, so it is the same cgroup, which learns its inode now (it
			 * was taken for removed and created again, seen with 10,000 cgroups).
			 */
			if (!fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) &&
			    (st.st_ino == old->ino || !old->ino) && !old->gone) {
				old->ino = st.st_ino;
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
	n->kid_on_gen = 0;
	n->capkids = nn;
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (dfd != n->dfd)
		close(dfd);
	/*
	 * New children scan their own subtrees; unless the tree is read lazily
	 * (pruning, or mcg_sampler_new()): then fill_rows() scans a directory
	 * when it descends into it, and a pruned subtree is never listed.
	 */
	if (!lazy_tree(s))
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
	n->kid_on_gen = 0;
	qsort(n->kids, nk, sizeof(*kids), cmp_kid);
	kids = NULL;
oom:
	free(kids);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (dfd != n->dfd)
		close(dfd);
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

					for (f = 0; f < s->plan.nf; f++)
						if (ev->len && !strcmp(ev->name, slot_name(s, f)))
							n->cached &= ~(1ULL << f);
				} else if (n && !(ev->mask & IN_MODIFY)) {
					n->rescan = s->marked = true;
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
		/* a lazy tree lists a node when fill_rows() first descends into it */
		if (n->listed || !lazy_tree(s))
			node_rescan(s, n); /* scans new kids too */
		return;
	}
	for (i = 0; i < n->nkids; i++)
		rescan_marked(s, n->kids[i]);
}

/* ---- sampler ----------------------------------------------------------- */

void mcg_sampler_default_keys(struct mcg_keyset *keys)
{
	static const enum mcg_key top[] = {
		MCG_K_USAGE,          MCG_K_LIMIT,          MCG_K_HIGH,           MCG_K_ANON,
		MCG_K_FILE,           MCG_K_DIRTY,          MCG_K_WRITEBACK,      MCG_K_PGSCAN,
		MCG_K_PGSTEAL,        MCG_K_PGSCAN_KSWAPD,  MCG_K_PGSCAN_DIRECT,  MCG_K_PGSTEAL_KSWAPD,
		MCG_K_PGSTEAL_DIRECT, MCG_K_PGPGOUT,        MCG_K_REFAULT,        MCG_K_EV_HIGH,
		MCG_K_EV_MAX,         MCG_K_EV_OOM,         MCG_K_EV_OOM_KILL,    MCG_K_FAILCNT,
		MCG_K_PSI_SOME,       MCG_K_PSI_FULL,       MCG_K_STALL,
	};
	size_t i;

	memset(keys, 0, sizeof(*keys));
	for (i = 0; i < MCG_ARRAY_SIZE(top); i++)
		mcg_keyset_add(keys, top[i]);
}

static void add_det(struct mcg_sampler *s, unsigned k)
{
	if (!mcg_keyset_has(&s->det_keys, k)) {
		mcg_keyset_add(&s->det_keys, k);
		s->det_ids[s->ndet++] = (unsigned char)k;
	}
}

/*
 * A row's columns: the asked counters that the plan's files hold or that are
 * derived from them (mcg_record_derive() on every counter the plan can
 * read), and the ones the sampler counts itself. v1 top asks for 22
 * counters and gets 14 columns (no reclaim counters, pressure or high).
 */
/* COLS for the counters of KEYS: a cell each, in id order, mapped both ways. */
static void cols_init(struct mcg_sample_cols *cols, const struct mcg_keyset *keys)
{
	unsigned k;

	memset(cols, 0, sizeof(*cols));
	cols->keys = *keys;
	memset(cols->col, MCG_SAMPLE_NOCOL, sizeof(cols->col));
	mcg_keyset_foreach(k, &cols->keys) {
		cols->key[cols->n] = (unsigned char)k;
		cols->col[k] = (unsigned char)cols->n++;
	}
}

static void sampler_cols(struct mcg_sampler *s)
{
	struct mcg_record probe, root;
	struct mcg_keyset keys;
	unsigned f, c, k, w;

	memset(&probe, 0, sizeof(probe));
	for (f = 0; f < s->plan.nf; f++) {
		const struct mcg__plan_file *pf = &s->plan.f[f];

		for (c = 0; c < pf->nk; c++)
			mcg_record_set(&probe, s->plan.k[pf->k0 + c].id, 1);
		mcg_keyset_foreach(k, &pf->single)
			mcg_record_set(&probe, k, 1);
	}
	mcg_record_set(&probe, MCG_K_NR_CHILDREN, 1);
	mcg_record_set(&probe, MCG_K_NR_PROCS, 1);
	mcg_record_set(&probe, MCG_K_STALL, 1);
	root = probe;
	mcg_record_derive(&probe, s->version, false);
	mcg_record_derive(&root, s->version, true);
	for (w = 0; w < MCG_KEYSET_WORDS; w++)
		keys.w[w] = s->keys.w[w] & (probe.valid.w[w] | root.valid.w[w]);
	cols_init(&s->cols, &keys);
}

/* The plan for the counters of s->keys, and the slots the sampler treats apart. */
static int sampler_plan(struct mcg_sampler *s)
{
	struct mcg_keyset want = s->keys;
	unsigned c, k, f, pass;
	int r;

	/* the sources of the derived counters */
	if (mcg_keyset_has(&want, MCG_K_REFAULT)) {
		mcg_keyset_add(&want, MCG_K_WORKINGSET_REFAULT_ANON);
		mcg_keyset_add(&want, MCG_K_WORKINGSET_REFAULT_FILE);
		mcg_keyset_add(&want, MCG_K_WORKINGSET_REFAULT);
	}
	if (s->version == 1 && mcg_keyset_has(&want, MCG_K_SWAP_USAGE)) {
		mcg_keyset_add(&want, MCG_K_MEMSW_USAGE);
		mcg_keyset_add(&want, MCG_K_USAGE);
	}
	/* once, as mcg_group_read_record() reads: a v1 local key for a missing total_ one */
	r = mcg__plan_init(&s->plan, s->version, &want,
			   s->flags & MCG_SAMPLER_ONCE ? MCG__PLAN_V1_LOCAL : 0);
	if (r < 0)
		return r;
	s->sl_usage = mcg__plan_slot(&s->plan, MCG_K_USAGE);
	s->sl_limit = mcg__plan_slot(&s->plan, MCG_K_LIMIT);
	s->sl_high = mcg__plan_slot(&s->plan, MCG_K_HIGH);
	s->sl_failcnt = mcg__plan_slot(&s->plan, MCG_K_FAILCNT);
	s->sl_stat = -1;
	for (c = 0; c < s->plan.nf; c++)
		if (!strcmp(s->plan.f[c].name, "memory.stat"))
			s->sl_stat = (int)c;
	if (s->plan.nf > F_PROCS)
		return -ENOSPC;
	/*
	 * Settings (limits, knobs: MCG_KIND_SETTING) change only when written,
	 * which inotify reports: read again only then (and every CACHE_REFRESH
	 * samples), like limit and high.
	 */
	s->settings = 0;
	for (f = 0; f < s->plan.nf; f++) {
		k = mcg_keyset_next(&s->plan.f[f].single, 0);
		if (k < MCG_K__COUNT && mcg_key_kinds[k] == MCG_KIND_SETTING)
			s->settings |= 1ULL << f;
	}
	/*
	 * An empty cgroup's peak and v1 kmem usage (charged to usage too) are
	 * carried as memory.stat's counters are (read_detail()): a peak reached
	 * and released between two samples waits for usage to move or for the
	 * full read every CACHE_REFRESH samples, as memory.stat's counters do.
	 */
	s->empty_carry = 0;
	for (f = 0; f < s->plan.nf; f++) {
		bool carry = !mcg_keyset_empty(&s->plan.f[f].single);

		mcg_keyset_foreach(k, &s->plan.f[f].single)
			carry = carry && (k == MCG_K_PEAK || (s->version == 1 && (k == MCG_K_KERNEL ||
								      k == MCG_K_KMEM_USAGE)));
		if (carry && (int)f != s->sl_usage && !((s->settings >> f) & 1))
			s->empty_carry |= 1ULL << f;
	}
	s->nstat = s->ndet = 0;
	memset(&s->det_keys, 0, sizeof(s->det_keys));
	/* memory.stat's counters first (the empty-cgroup shortcut), then the other detail files' */
	for (pass = 0; pass < 2; pass++) {
		for (f = 0; f < s->plan.nf; f++) {
			const struct mcg__plan_file *pf = &s->plan.f[f];

			if ((int)f == s->sl_usage || ((s->settings >> f) & 1) ||
			    (int)f == s->sl_failcnt || ((int)f == s->sl_stat) != (pass == 0))
				continue;
			for (c = 0; c < pf->nk; c++)
				add_det(s, s->plan.k[pf->k0 + c].id);
			mcg_keyset_foreach(k, &pf->single)
				add_det(s, k);
		}
		if (pass == 0)
			s->nstat = s->ndet;
	}
	/*
	 * Amounts charged to usage (the page counter, hierarchical on v1 and v2:
	 * v1's total_ keys and the local ones are of the cgroup and its
	 * descendants, whose charges its usage holds): 0 when usage is 0. Not
	 * event counters (pgfault, workingset_*: they stay where an emptied
	 * cgroup left them), not v1's hierarchical_memory_limit (a setting) nor
	 * its swap (charged to memsw, not to usage).
	 */
	s->stat_amounts = s->sl_stat >= 0 && s->nstat > 0;
	for (c = 0; c < s->nstat; c++) {
		k = s->det_ids[c];
		if (mcg_key_kinds[k] != MCG_KIND_GAUGE || k == MCG_K_EFFECTIVE_LIMIT ||
		    k == MCG_K_SWAP)
			s->stat_amounts = false;
	}
	s->stat_seen_ok = false;
	memset(&s->stat_seen, 0, sizeof(s->stat_seen));
	s->absent = 0;
	s->slot_one = 0;
	for (c = 0; c < s->plan.nf; c++) {
		k = mcg_keyset_next(&s->plan.f[c].single, 0);
		s->slot_key[c] = (unsigned char)(k < MCG_K__COUNT ? k : 0);
		if (k < MCG_K__COUNT && mcg_keyset_next(&s->plan.f[c].single, k + 1) >= MCG_K__COUNT)
			s->slot_one |= 1ULL << c;
	}
	sampler_cols(s);
	/* the slots cache_slot() keeps: settings, the carried ones, failcnt */
	s->ncache = 0;
	memset(s->cache_col, 0xff, sizeof(s->cache_col));
	for (f = 0; f < s->plan.nf; f++)
		if ((((s->settings | s->empty_carry) >> f) & 1) || (int)f == s->sl_failcnt)
			s->cache_col[f] = (unsigned char)s->ncache++;
	return 0;
}

static void node_replan(struct mcg_sampler *s, struct node *n)
{
	size_t i;

	node_close_files(s, n);
	for (i = 0; i < F_MAX; i++)
		n->fd[i] = FD_UNSET;
	n->cached = 0;
	n->cache_has = 0;
	free(n->cache); /* the plan's columns changed */
	n->cache = NULL;
	free(n->det_v);
	n->det_v = NULL;
	free(n->det_psi);
	n->det_psi = NULL;
	for (i = 0; i < n->nkids; i++)
		node_replan(s, n->kids[i]);
}

int mcg_sampler_set_keys(struct mcg_sampler *s, const struct mcg_keyset *keys)
{
	struct mcg_keyset old = s->keys;
	int r;

	if (keys)
		s->keys = *keys;
	else
		mcg_keyset_all(&s->keys);
	r = sampler_plan(s);
	if (r < 0) {
		s->keys = old;
		sampler_plan(s);
		return r;
	}
	if (s->top)
		node_replan(s, s->top);
	return 0;
}

/*
 * How many file descriptors the sampler may keep, its cgroups' directories
 * and files together: RLIMIT_NOFILE less FD_HEADROOM for everything else the
 * process opens. Past it, files are opened at each read and directories
 * through their nearest kept ancestor.
 */
#define FD_HEADROOM 1024

static size_t fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	return rl.rlim_cur > 2 * FD_HEADROOM ? (size_t)(rl.rlim_cur - FD_HEADROOM)
					       : (size_t)rl.rlim_cur / 2;
}

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
	s->fd_budget = fd_budget();
	s->keep_gen = 1;
	s->max_depth = -1;
	s->idle_every = MCG_SAMPLER_IDLE_EVERY;
	s->flags = flags;
	s->version = mcg_ctx_version(ctx);
	mcg_sampler_default_keys(&s->keys);
	/* v1's oom_kill count lives in memory.oom_control, of which top shows nothing else */
	if (s->version == 1)
		mcg_keyset_del(&s->keys, MCG_K_EV_OOM_KILL);
	r = sampler_plan(s);
	if (r < 0) {
		mcg_group_close(g);
		mcg_sampler_free(s);
		return r;
	}
	s->buflen = MCG__READ_BUF;
	s->buf = malloc(s->buflen);
	/* one sample: watching the tree would cost a watch per cgroup for nothing */
	s->ifd = flags & (MCG_SAMPLER_ONESHOT | MCG_SAMPLER_ONCE) ? -1
								  : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
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
	{
		struct statfs sf;

		/* CGROUP_SUPER_MAGIC: a cgroup v1 mount (not cgroup2's, nor a copy on tmpfs) */
		s->v1_kernfs = s->version == 1 && fstatfs(s->topfd, &sf) == 0 &&
			       (unsigned long)sf.f_type == 0x27e0ebUL;
	}
	s->top = node_new(s, NULL, mcg_group_path(g));
	mcg_group_close(g);
	if (!s->top) {
		mcg_sampler_free(s);
		return -ENOMEM;
	}
	if (s->flags & MCG_SAMPLER_TASKSTATS)
		s->ts_err = mcg_taskstats_open(&s->ts);
	/*
	 * The top's children only: the first sample walks the rest (pruned, if
	 * asked). Once, the sample lists the top too (it may be the only row).
	 */
	s->creating = true;
	r = flags & MCG_SAMPLER_ONCE ? 0 : node_rescan(s, s->top);
	s->creating = false;
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

static void free_keep(struct mcg_sampler *s)
{
	mcg_strv_free(s->keep, s->nkeep);
	s->keep = NULL;
	s->nkeep = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mcg_sampler_set_detail(struct mcg_sampler *s, const uint64_t *ids, size_t n, unsigned rotate)
{
	uint64_t *d = NULL;

	if (rotate && n) {
		d = malloc(n * sizeof(*d));
		if (!d)
			return -ENOMEM;
		memcpy(d, ids, n * sizeof(*d));
		qsort(d, n, sizeof(*d), cmp_u64);
	}
	free(s->detail_ids);
	s->detail_ids = d;
	s->ndetail = rotate ? n : 0;
	s->rotate = rotate;
	return 0;
}

void mcg_sampler_set_idle(struct mcg_sampler *s, unsigned every)
{
	s->idle_every = every;
}

int mcg_sampler_set_prune(struct mcg_sampler *s, const struct mcg_keyset *zero)
{
	if (zero)
		s->prune = *zero;
	else
		memset(&s->prune, 0, sizeof(s->prune));
	return 0;
}

int mcg_sampler_set_depth(struct mcg_sampler *s, int depth)
{
	s->max_depth = depth < 0 ? -1 : depth;
	return 0;
}

int mcg_sampler_set_keep(struct mcg_sampler *s, const char *const *paths, size_t n, bool only)
{
	char **k = n ? calloc(n, sizeof(*k)) : NULL;
	size_t i;

	if (n && !k)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		k[i] = strdup(paths[i]);
		if (!k[i]) {
			while (i--)
				free(k[i]);
			free(k);
			return -ENOMEM;
		}
	}
	free_keep(s);
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_str);
	s->keep = k;
	s->nkeep = n;
	s->keep_only = only && n;
	s->keep_gen++;
	return 0;
}

void mcg_sampler_free(struct mcg_sampler *s)
{
	if (!s)
		return;
	free_keep(s);
	free(s->detail_ids);
	/* closing the inotify descriptor first drops every watch at once */
	if (s->ifd >= 0)
		close(s->ifd);
	s->ifd = -1;
	node_free(s, s->top);
	mcg_snapshot_unref(s->prev);
	mcg_snapshot_unref(s->spare);
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

	for (i = 0; i < F_MAX; i++)
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

/* Read file F of N into s->buf; -ENOENT when absent; -ENODEV etc. when the cgroup went away. */
static ssize_t node_read(struct mcg_sampler *s, struct node *n, unsigned f)
{
	ssize_t r;

	if ((s->absent >> f) & 1)
		return -ENOENT;
	if (n->fd[f] == FD_UNSET) {
		/* openat() takes the kept O_PATH directory descriptor as it is */
		int dfd = n->dfd >= 0 ? n->dfd : node_path_fd(s, n), open_err;

		/* no directory now because of EMFILE: open and close at each read instead */
		n->fd[f] = dfd >= 0			      ? open_one(s, dfd, f)
			   : errno == EMFILE || errno == ENFILE ? FD_REOPEN
								: FD_ABSENT;
		open_err = errno; /* ENOENT: not there (EACCES in one cgroup says nothing of others) */

		/*
		 * Missing from a v1 cgroup below the root, which is still there (a
		 * removed directory has no files at all): missing from every one
		 * (memory.pressure on v1: 1,006 of a one-shot export's 14,058 openat at
		 * 1,000 cgroups).
		 */
		if (n->fd[f] == FD_ABSENT && dfd >= 0 && open_err == ENOENT && s->v1_kernfs &&
		    strcmp(n->path, "/") && faccessat(dfd, "cgroup.procs", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			s->absent |= 1ULL << f;
		if (dfd >= 0 && dfd != n->dfd)
			close(dfd);
	}
	if (n->fd[f] == FD_ABSENT)
		return -ENOENT;
	if (n->fd[f] == FD_REOPEN) {
		/* under its kept directory as it is; else the directory through its ancestors */
		int dfd = n->dfd >= 0 ? n->dfd : node_path_fd(s, n), fd;

		if (dfd < 0)
			return -errno;
		fd = openat(dfd, slot_name(s, f), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (dfd != n->dfd)
			close(dfd);
		if (fd < 0)
			return -errno;
		r = mcg__pread_once(fd, s->buf, s->buflen);
		close(fd);
		return r;
	}
	return mcg__pread_once(n->fd[f], s->buf, s->buflen);
}

/* Read slot F into REC (a cached single value when the slot's bit is set); ERR: a failure. */
static void read_slot(struct mcg_sampler *s, struct node *n, int f, struct mcg_record *rec,
		      int *err)
{
	ssize_t r;
	unsigned k;

	if (f < 0)
		return;
	if ((n->cached >> f) & 1) {
		/* a single-value file: the same value for each of its counters */
		if (!((n->cache_has >> f) & 1))
			return;
		if ((s->slot_one >> f) & 1) /* the usual case: one counter, no set to walk */
			mcg_record_set(rec, s->slot_key[f], n->cache[s->cache_col[f]]);
		else
			mcg_keyset_foreach(k, &s->plan.f[f].single)
				mcg_record_set(rec, k, n->cache[s->cache_col[f]]);
		return;
	}
	r = node_read(s, n, (unsigned)f);
	if (r < 0) {
		if (r != -ENOENT && err)
			*err = (int)r;
		return;
	}
	mcg__plan_parse(&s->plan, (unsigned)f, s->buf, rec);
}

/* Remember the single value of slot F (or its absence) until inotify says it changed. */
static void cache_slot(const struct mcg_sampler *s, struct node *n, int f,
		       const struct mcg_record *rec, bool set_bit)
{
	unsigned k;

	if (f < 0 || s->cache_col[f] == 0xff || (s->flags & MCG_SAMPLER_ONCE))
		return;
	if (!n->cache && !(n->cache = calloc(s->ncache, sizeof(*n->cache)))) {
		n->cached &= ~(1ULL << f); /* read again each time */
		return;
	}
	k = s->slot_key[f];
	if (mcg_record_has(rec, k))
		n->cache_has |= 1U << f;
	else
		n->cache_has &= ~(1U << f);
	n->cache[s->cache_col[f]] = rec->v[k];
	if (set_bit)
		n->cached |= 1ULL << f;
}

/* Is N read in full this sample (mcg_sampler_set_detail)? */
static bool detail_turn(const struct mcg_sampler *s, const struct node *n)
{
	size_t lo = 0, hi = s->ndetail;

	if (!s->rotate || !n->det_v)
		return true;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->detail_ids[mid] == n->id)
			return true;
		if (s->detail_ids[mid] < n->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the others in turn: each once every ROTATE samples, spread over them */
	return (n->id + s->seq) % s->rotate == 0;
}

/*
 * The detail files of N (memory.stat, memory.events, memory.pressure, the
 * other single-value files) into REC: read, or carried from their last read
 * when it is not N's turn (ROW->stale says how old). An empty cgroup (usage 0
 * now and at the last read) has nothing memory.stat could report moving: its
 * last parse is reused instead of formatting the file.
 */
/*
 * Is N idle and not in its turn (mcg_sampler_set_idle())? Usage 0 now and at
 * the last read: nothing charged, so nothing of memory.stat's amounts, memsw
 * (memory + swap: swap grows only by swapping out charged pages), peak or
 * kmem can have moved without usage moving in between; what can (cgroup.procs,
 * an OOM kill, freed swap) waits for the turn, every idle_every samples.
 */
static bool idle_carry(const struct mcg_sampler *s, const struct node *n,
		       const struct mcg_record *rec, bool want_procs)
{
	if (s->idle_every < 2 || (s->flags & MCG_SAMPLER_ONCE) || (!n->det_v && s->ndet) ||
	    (want_procs && !n->procs_ok) || !n->last_usage_ok || n->last_usage ||
	    !mcg_record_has(rec, MCG_K_USAGE) || rec->v[MCG_K_USAGE])
		return false;
	/* spread: each idle cgroup once every idle_every samples, 1/idle_every of them each sample */
	return (n->id + s->seq) % s->idle_every != 0;
}

static bool read_detail(struct mcg_sampler *s, struct node *n, struct mcg_record *rec, bool full,
			struct mcg_sample_row *row, int *err)
{
	unsigned i, k, from = 0;
	bool empty = false, idle;
	int f, ferr = 0;

	idle = idle_carry(s, n, rec, mcg_keyset_has(&s->keys, MCG_K_NR_PROCS));
	if (idle || !detail_turn(s, n)) {
		for (i = 0; i < s->ndet; i++)
			if (mcg_keyset_has(&n->det_valid, s->det_ids[i]))
				mcg_record_set(rec, s->det_ids[i], n->det_v[i]);
		if (n->det_psi)
			rec->psi = *n->det_psi;
		else
			memset(&rec->psi, 0, sizeof(rec->psi));
		/*
		 * Idle: taken as unchanged since that read (their rates 0), as the
		 * empty cgroup's memory.stat below is; off-screen: as old as they are.
		 */
		row->stale = idle ? 0 : (unsigned)(s->seq + 1 - n->det_seq);
		row->detail_ns = idle ? s->now_ns : n->det_ns;
		return idle;
	}
	if (!full && n->det_v && n->last_usage_ok && !n->last_usage &&
	    mcg_record_has(rec, MCG_K_USAGE) && !rec->v[MCG_K_USAGE]) {
		for (i = 0; i < s->nstat; i++)
			if (mcg_keyset_has(&n->det_valid, s->det_ids[i]))
				mcg_record_set(rec, s->det_ids[i], n->det_v[i]);
		from = s->nstat; /* the rest of the cache is refreshed below */
		empty = true;
	} else if ((s->flags & MCG_SAMPLER_ONCE) && s->stat_amounts && s->stat_seen_ok &&
		   mcg_record_has(rec, MCG_K_USAGE) && !rec->v[MCG_K_USAGE]) {
		/* once, nothing charged: memory.stat's amounts are 0 (sampler_plan()) */
		mcg_keyset_foreach(k, &s->stat_seen)
			mcg_record_set(rec, k, 0);
	} else if (s->sl_stat >= 0) {
		ssize_t r = node_read(s, n, (unsigned)s->sl_stat);

		if (r >= 0) {
			mcg__plan_parse(&s->plan, (unsigned)s->sl_stat, s->buf, rec);
			if (!s->stat_seen_ok && s->stat_amounts) {
				for (i = 0; i < s->nstat; i++)
					if (mcg_record_has(rec, s->det_ids[i]))
						mcg_keyset_add(&s->stat_seen, s->det_ids[i]);
				s->stat_seen_ok = true;
			}
		} else if (r != -ENOENT) {
			*err = (int)r;
		}
	}
	/* the rest (memory.events, memory.pressure, ...): absence is no error */
	for (f = 0; f < (int)s->plan.nf; f++) {
		bool carry = (s->empty_carry >> f) & 1;

		if (f == s->sl_usage || ((s->settings >> f) & 1) || f == s->sl_failcnt ||
		    f == s->sl_stat)
			continue;
		if (carry && !empty)
			n->cached &= ~(1ULL << f);
		read_slot(s, n, f, rec, carry ? &ferr : NULL);
		if (carry && !((n->cached >> f) & 1))
			cache_slot(s, n, f, rec, !ferr);
		ferr = 0;
	}
	/* once: no next sample carries them */
	if (!n->det_v && s->ndet && !(s->flags & MCG_SAMPLER_ONCE))
		n->det_v = calloc(s->ndet, sizeof(*n->det_v));
	if (n->det_v) {
		for (i = from; i < s->ndet; i++) {
			k = s->det_ids[i];
			if (mcg_record_has(rec, k))
				mcg_keyset_add(&n->det_valid, k);
			else
				mcg_keyset_del(&n->det_valid, k);
			n->det_v[i] = rec->v[k];
		}
		if (rec->psi.some_valid || rec->psi.full_valid) {
			if (!n->det_psi)
				n->det_psi = malloc(sizeof(*n->det_psi));
			if (n->det_psi) /* else carried as absent */
				*n->det_psi = rec->psi;
		} else {
			free(n->det_psi);
			n->det_psi = NULL;
		}
		n->det_ns = s->now_ns;
		n->det_seq = s->seq + 1;
	}
	row->stale = 0;
	row->detail_ns = s->now_ns;
	return false;
}

/*
 * The lines of cgroup.procs, GOT bytes of which node_read() left in s->buf,
 * and of the rest where the file did not fit (thousands of processes).
 */
static uint64_t count_lines(struct mcg_sampler *s, const struct node *n, ssize_t got)
{
	uint64_t lines = 0;
	off_t off = 0;
	const char *p;

	for (;;) {
		for (p = s->buf; (p = memchr(p, '\n', (size_t)(s->buf + got - p))); p++)
			lines++;
		/* reopened at each read (out of descriptors): its first buffer only */
		if ((size_t)got < s->buflen - 1 || n->fd[F_PROCS] < 0)
			return lines;
		off += got;
		do
			got = pread(n->fd[F_PROCS], s->buf, s->buflen - 1, off);
		while (got < 0 && errno == EINTR);
		if (got <= 0)
			return lines;
	}
}

/*
 * v1's cgroup.procs, read again through the descriptor that read it less
 * than a second ago, gives the list of that read: the kernel keeps the list
 * it built for an open file and lets it go a second (CGROUP_PIDLIST_DESTROY_DELAY,
 * kernel/cgroup/cgroup-v1.c) after its last read, so one read faster than
 * that never sees a task come or go (seen here: a kept descriptor read every
 * 0.3 s for 1.5 s after a move still read the list from before it). Such a
 * read goes through a new descriptor, whose first read builds the list
 * afresh; at record's 5 s the kept one is read as it is.
 */
#define PIDLIST_LINGER_NS 2000000000ULL

static void procs_fresh(struct mcg_sampler *s, struct node *n)
{
	if (s->version != 1 || n->fd[F_PROCS] < 0 || s->now_ns - n->procs_ns >= PIDLIST_LINGER_NS)
		return;
	close(n->fd[F_PROCS]);
	s->kept--;
	n->fd[F_PROCS] = FD_UNSET;
}

/*
 * Read N's files into s->rec (and ROW's stale, detail_ns, err); false when
 * the cgroup vanished under us. PASSING: a row only on the way to kept paths,
 * which gets the single-value files.
 */
static bool sample_node(struct mcg_sampler *s, struct node *n, struct mcg_sample_row *row,
			bool passing)
{
	bool full = s->ifd < 0 || n->wd < 0 || s->seq % CACHE_REFRESH == 0, idle = false;
	struct mcg_record *rec = &s->rec;
	int err = 0, f;
	ssize_t got;
	unsigned i;

	if (n->gone)
		return false;
	memset(&rec->valid, 0, sizeof(rec->valid));
	memset(&rec->psi, 0, sizeof(rec->psi));
	read_slot(s, n, s->sl_usage, rec, &err);
	if (full)
		n->cached = 0;
	for (f = 0; f < (int)s->plan.nf; f++)
		if ((s->settings >> f) & 1)
			read_slot(s, n, f, rec, &err);
	/* kept once read; a value that came from the cache is there already */
	if (!err)
		for (f = 0; f < (int)s->plan.nf; f++)
			if (((s->settings & ~n->cached) >> f) & 1)
				cache_slot(s, n, f, rec, true);
	/*
	 * failcnt counts charges that hit this cgroup's own limit (page_counter_try_charge,
	 * mm/page_counter.c); without a limit it can only change by a write, which inotify
	 * reports. So it is re-read only where there is a limit to hit.
	 */
	if (s->sl_failcnt >= 0) {
		if (!mcg_record_has(rec, MCG_K_LIMIT) || rec->v[MCG_K_LIMIT] != MCG_MAX)
			n->cached &= ~(1ULL << s->sl_failcnt);
		read_slot(s, n, s->sl_failcnt, rec, &err);
		if (!((n->cached >> s->sl_failcnt) & 1))
			cache_slot(s, n, s->sl_failcnt, rec, !err);
	}
	if (passing) {
		row->stale = 0;
		row->detail_ns = s->now_ns;
	} else {
		idle = read_detail(s, n, rec, full, row, &err);
	}
	n->last_usage_ok = mcg_record_has(rec, MCG_K_USAGE);
	n->last_usage = rec->v[MCG_K_USAGE];
	mcg_record_derive(rec, s->version, !strcmp(n->path, "/"));
	if (mcg_keyset_has(&s->keys, MCG_K_NR_CHILDREN))
		mcg_record_set(rec, MCG_K_NR_CHILDREN, n->nkids);
	/* processes in the group itself: the lines of cgroup.procs (asked for: export) */
	if (mcg_keyset_has(&s->keys, MCG_K_NR_PROCS)) {
		if (idle) {
			mcg_record_set(rec, MCG_K_NR_PROCS, n->procs); /* idle_carry(): procs_ok */
		} else if (procs_fresh(s, n), (got = node_read(s, n, F_PROCS)) >= 0) {
			n->procs = count_lines(s, n, got);
			n->procs_ns = s->now_ns;
			n->procs_ok = true;
			mcg_record_set(rec, MCG_K_NR_PROCS, n->procs);
		} else {
			n->procs_ok = false;
		}
	}
	/* the row holds what was asked for, not the sources read for the derived counters */
	for (i = 0; i < MCG_KEYSET_WORDS; i++)
		rec->valid.w[i] &= s->cols.keys.w[i];
	/* once: no descriptor kept for a next sample (which would open them again) */
	if (s->flags & MCG_SAMPLER_ONCE) {
		for (f = 0; f < F_MAX; f++) {
			if (n->fd[f] >= 0) {
				close(n->fd[f]);
				s->kept--;
			}
			n->fd[f] = FD_UNSET;
		}
	}
	/* the cgroup was removed after we opened its files */
	if (err == -ENODEV || err == -ENOENT || err == -ESTALE) {
		n->gone = true;
		if (n->parent)
			n->parent->rescan = s->marked = true;
		return false;
	}
	row->err = err;
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
			if (mcg_grow(&now->v, &now->cap, now->n, sizeof(*now->v), 64) < 0)
				break;
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

/* Every row of MCG_HOST, from the one reader: absent rows stay absent. */
static void sample_global(struct mcg_sampler *s, struct mcg_sample_global *g)
{
	int d;

	mcg__host_read(s->ctx, MCG_HS_ALL, s->buf, s->buflen, &g->host);
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
	size_t cap_rows, cap_str; /* a lazy tree grows while it is filled */
	bool oom;
};

/* Rows, cells and pressure for CAP rows (realloc: rows point at their cells once filled). */
static bool snap_rows_room(struct mcg_snapshot *snap, size_t cap)
{
	struct mcg_sample_row *r = realloc(snap->rows, cap * sizeof(*r));
	struct mcg_sample_cell *c;

	if (!r)
		return false;
	snap->rows = r;
	c = realloc(snap->cells, (cap && snap->cols.n ? cap * snap->cols.n : 1) * sizeof(*c));
	if (!c)
		return false;
	snap->cells = c;
	/* pressure's averages once a row had some (store_row()): never on most v1 hosts */
	if (snap->psis) {
		struct mcg_psi *p = realloc(snap->psis, cap * sizeof(*p));

		if (!p)
			return false;
		snap->psis = p;
	}
	return true;
}

/*
 * Room for one more row and LEN bytes of path (paths are offsets until the
 * fill ends); for as many rows as there are nodes (AHEAD: a lazy tree has
 * just listed a directory, whose children are rows to come), so that a
 * parent of a thousand cgroups grows the rows once, not ten times over.
 */
static bool fill_room(struct fill *f, size_t len, bool ahead)
{
	size_t want = ahead && f->s->nnodes > f->snap->n_rows ? f->s->nnodes : f->snap->n_rows + 1;

	if (want > f->cap_rows) {
		size_t cap = f->cap_rows + f->cap_rows / 2 + 16 > want ? f->cap_rows + f->cap_rows / 2 + 16
									: want;

		if (!snap_rows_room(f->snap, cap))
			return false;
		f->cap_rows = cap;
	}
	if (ahead && f->s->path_total > f->nstr + len)
		len = f->s->path_total - f->nstr;
	if (f->nstr + len > f->cap_str) {
		size_t cap = (f->nstr + len) * 2;
		char *str = realloc(f->snap->strings, cap);

		if (!str)
			return false;
		f->snap->strings = str;
		f->cap_str = cap;
	}
	return true;
}

/* Do the prune counters of R all read 0 (hierarchical: nothing below can have any)? */
static bool pruned(const struct mcg_sampler *s, const struct mcg_record *r)
{
	unsigned k;

	if (mcg_keyset_empty(&s->prune))
		return false;
	mcg_keyset_foreach(k, &s->prune)
		if (!mcg_record_has(r, k) || r->v[k])
			return false; /* unknown is not zero */
	return true;
}

/*
 * The first kept path not sorting before PATH + "/" (the keep list is
 * sorted): the one to look at for "is a kept path below PATH".
 */
static size_t keep_lower_bound(const struct mcg_sampler *s, const char *path, size_t len)
{
	size_t lo = 0, hi = s->nkeep;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(s->keep[mid], path, len);

		if (c == 0)
			c = (unsigned char)s->keep[mid][len] < '/' ? -1 : 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is a kept path strictly below PATH? */
static bool keep_below(const struct mcg_sampler *s, const char *path)
{
	size_t len = strcmp(path, "/") ? strlen(path) : 0, i;

	if (!s->nkeep)
		return false;
	i = keep_lower_bound(s, path, len);
	/* the paths under PATH sort together from PATH + "/" on */
	for (; i < s->nkeep && !strncmp(s->keep[i], path, len); i++) {
		if (s->keep[i][len] == '/' && s->keep[i][len + 1])
			return true;
		if ((unsigned char)s->keep[i][len] > '/')
			break;
	}
	return false;
}

/* Is PATH one of the kept paths? */
static bool keep_exact(const struct mcg_sampler *s, const char *path)
{
	size_t lo = 0, hi = s->nkeep;

	while (lo < hi) { /* an exact match */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->keep[mid], path);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* N's place relative to the kept paths, from the cache when the paths did not change. */
static const struct node *node_keep(const struct mcg_sampler *s, struct node *n)
{
	if (n->keep_gen != s->keep_gen) {
		n->keep_under = keep_below(s, n->path);
		n->keep_exact = keep_exact(s, n->path);
		n->keep_gen = s->keep_gen;
	}
	return n;
}

/* N is kept, or on the way to a kept path. */
static bool keep_on(const struct mcg_sampler *s, struct node *n)
{
	return node_keep(s, n)->keep_under || n->keep_exact;
}

/*
 * Which of N's kids are kept or on the way to a kept path, as one byte each:
 * looking at a thousand kids' nodes every sample to find the few named ones
 * costs a cache miss each. NULL without memory (the caller asks each node).
 */
static const unsigned char *kids_on_keep(const struct mcg_sampler *s, struct node *n)
{
	size_t i;

	if (n->kid_on_gen == s->keep_gen)
		return n->kid_on;
	free(n->kid_on);
	n->kid_on = malloc(n->nkids ? n->nkids : 1);
	if (!n->kid_on)
		return NULL;
	for (i = 0; i < n->nkids; i++)
		n->kid_on[i] = keep_on(s, n->kids[i]);
	n->kid_on_gen = s->keep_gen;
	return n->kid_on;
}

/* Row I's counter K (a column of the snapshot's) while the rows may still move. */
static void cell_set(struct mcg_snapshot *snap, size_t i, enum mcg_key k, uint64_t v)
{
	unsigned c = snap->cols.col[k];

	if (c == MCG_SAMPLE_NOCOL)
		return;
	snap->cells[i * snap->cols.n + c].v = v;
	mcg_keyset_add(&snap->rows[i].valid, k);
}

/* Row I's counters from REC: the snapshot's columns only. */
static void store_row(struct fill *f, size_t i, const struct mcg_record *rec)
{
	bool psi = rec->psi.some_valid || rec->psi.full_valid;

	struct mcg_snapshot *snap = f->snap;
	struct mcg_sample_cell *cell = snap->cells + i * snap->cols.n;
	struct mcg_sample_row *row = &snap->rows[i];
	unsigned c, w;

	for (w = 0; w < MCG_KEYSET_WORDS; w++)
		row->valid.w[w] = rec->valid.w[w] & snap->cols.keys.w[w];
	/* every column (an invalid one's value is never read): no walk of the keyset */
	for (c = 0; c < snap->cols.n; c++)
		cell[c].v = rec->v[snap->cols.key[c]];
	if (psi && !snap->psis && !(snap->psis = calloc(f->cap_rows, sizeof(*snap->psis))))
		f->oom = true;
	else if (snap->psis)
		snap->psis[i] = rec->psi;
}

static void fill_rows(struct fill *f, struct node *n, int parent)
{
	bool children = mcg_keyset_has(&f->s->keys, MCG_K_NR_CHILDREN), deep;
	const unsigned char *on;
	struct mcg_sample_row *row;
	size_t i, len;
	int idx;

	len = strlen(n->path) + 1;
	if (f->oom || !fill_room(f, len, false)) {
		f->oom = true;
		return;
	}
	row = &f->snap->rows[f->snap->n_rows];
	node_open(f->s, n);
	/* not the whole row: sample_node sets the record's validity; rates come after */
	if (!sample_node(f->s, n, row, f->s->keep_only && !node_keep(f->s, n)->keep_exact))
		goto done; /* vanished: neither it nor its subtree is shown */
	/* out of descriptors at its opening or listing (node_open, node_rescan): not all there */
	if (n->nofd)
		f->snap->incomplete++;
	idx = (int)f->snap->n_rows++;
	memcpy(f->snap->strings + f->nstr, n->path, len);
	/* offsets while the strings may move; pointers once the fill is done */
	row->path = (const char *)(uintptr_t)f->nstr;
	row->name = (const char *)(uintptr_t)(f->nstr + (size_t)(n->name - n->path));
	f->nstr += len;
	row->depth = n->depth;
	row->parent = parent;
	row->id = n->id;
	row->async = async_state(f->s, n->path);
	if (f->snap->taskstats && mcg_keyset_has(&f->s->cols.keys, MCG_K_STALL))
		mcg_record_set(&f->s->rec, MCG_K_STALL, n->stall_tree);
	store_row(f, (size_t)idx, &f->s->rec);
	if (pruned(f->s, &f->s->rec) && !node_keep(f->s, n)->keep_under)
		goto done;
	if (f->s->keep_only && !node_keep(f->s, n)->keep_under)
		goto done;
	deep = f->s->max_depth >= 0 && n->depth >= f->s->max_depth;
	/* a lazy tree: listed when first descended into (at the depth, to count its children) */
	if (n->rescan && (!deep || children)) {
		node_rescan(f->s, n);
		if (!fill_room(f, 0, true)) {
			f->oom = true;
			goto done;
		}
	}
	/* counted once listed (a lazy tree's node is sampled before its listing) */
	if (children && n->listed)
		cell_set(f->snap, (size_t)idx, MCG_K_NR_CHILDREN, n->nkids);
	if (deep)
		goto done;
	on = f->s->keep_only ? kids_on_keep(f->s, n) : NULL;
	for (i = 0; i < n->nkids; i++)
		if (!f->s->keep_only || (on ? on[i] : keep_on(f->s, n->kids[i])))
			fill_rows(f, n->kids[i], idx);
done:
	/* once: the directory is held while its subtree is read, no longer */
	if (f->s->flags & MCG_SAMPLER_ONCE)
		node_close_dir(f->s, n);
}

/*
 * The rates of row R against its previous sample P (NULL: first seen), the
 * cells of each through their snapshot's columns.
 */
static void row_rates(struct mcg_sample_row *r, const struct mcg_sample_row *p, double dt,
		      const struct mcg_keyset *detail_keys)
{
	struct mcg_keyset both = {{0}};
	size_t w;
	unsigned c;

	memset(&r->rate_valid, 0, sizeof(r->rate_valid));
	/* only counters seen in both samples move; the others have no rate (first seen, gone) */
	for (w = 0; p && w < MCG_KEYSET_WORDS; w++)
		both.w[w] = r->valid.w[w] & p->valid.w[w];
	/* what counted before the first sample is not "since" it */
	mcg_keyset_foreach(c, &r->valid)
		r->cell[r->cols->col[c]].since = 0;
	mcg_keyset_foreach(c, &both)
	{
		struct mcg_sample_cell *now = &r->cell[r->cols->col[c]];
		const struct mcg_sample_cell *was = &p->cell[p->cols->col[c]];
		double kdt = dt;

		if (mcg_keyset_has(detail_keys, c)) {
			/* carried between reads: the rate of the last two reads */
			if (r->detail_ns == p->detail_ns) {
				now->since = was->since;
				if (mcg_keyset_has(&p->rate_valid, c)) {
					now->rate = was->rate;
					mcg_keyset_add(&r->rate_valid, c);
				}
				continue;
			}
			kdt = r->detail_ns > p->detail_ns ? (double)(r->detail_ns - p->detail_ns) / 1e9
							  : 0;
		}
		if (mcg_key_kinds[c] != MCG_KIND_COUNTER) {
			/* amounts: the change per second (usage falling under reclaim on v1) */
			if (kdt > 0 && now->v != MCG_MAX && was->v != MCG_MAX) {
				now->rate = ((double)now->v - (double)was->v) / kdt;
				mcg_keyset_add(&r->rate_valid, c);
			}
			continue;
		}
		if (now->v >= was->v) {
			now->since = was->since + (now->v - was->v);
			if (kdt > 0) {
				now->rate = (double)(now->v - was->v) / kdt;
				mcg_keyset_add(&r->rate_valid, c);
			}
		} else {
			/* went back: a reset; what counted since the reset is new */
			now->since = was->since + now->v;
		}
	}
}

static void global_rates(const struct mcg_sample_global *prev, double dt,
			 struct mcg_sample_global *cur)
{
	unsigned c;

	cur->rate_valid = 0;
	for (c = 0; c < MCG_G__COUNT; c++) {
		cur->rate[c] = 0;
		if (mcg_host_desc(c)->rate && prev && dt > 0 &&
		    ((cur->host.valid & prev->host.valid) >> c & 1) &&
		    cur->host.v[c] >= prev->host.v[c]) {
			cur->rate[c] = (double)(cur->host.v[c] - prev->host.v[c]) / dt;
			cur->rate_valid |= 1ULL << c;
		}
	}
}

/* The rows' pointers once the fill is done: strings, cells, pressure. */
static void snap_wire(struct mcg_snapshot *snap, bool offsets)
{
	size_t i;

	for (i = 0; i < snap->n_rows; i++) {
		struct mcg_sample_row *r = &snap->rows[i];

		if (offsets) {
			r->path = snap->strings + (uintptr_t)r->path;
			r->name = snap->strings + (uintptr_t)r->name;
		}
		r->cols = &snap->cols;
		r->cell = snap->cells + i * snap->cols.n;
		r->psi = snap->psis && (snap->psis[i].some_valid || snap->psis[i].full_valid)
				 ? &snap->psis[i]
				 : NULL;
	}
}

/*
 * Let the sampler's previous snapshot go: when nobody else holds it (top -b,
 * --json, export --listen: each snapshot let go once shown), its memory is
 * kept for the next sample's rows (at 10,000 cgroups, 4.5 MB that malloc()
 * would otherwise map and fault in again, or leave as a hole the table fills).
 */
static void release_prev(struct mcg_sampler *s)
{
	struct mcg_snapshot *p = s->prev, *sp;

	s->prev = NULL;
	if (!p)
		return;
	if (p->refs != 1) {
		mcg_snapshot_unref(p);
		return;
	}
	sp = s->spare;
	mcg_snapshot_unref(sp);
	p->n_rows = 0;
	s->spare = p;
}

int mcg_sampler_sample(struct mcg_sampler *s, struct mcg_snapshot **ret)
{
	struct mcg_snapshot *snap;
	struct timespec ts;
	struct fill f;
	size_t want;

	/* the first sample reads the tree mcg_sampler_new() just walked */
	if (s->seq)
		drain_inotify(s);
	if (s->rescan_all) {
		s->rescan_all = false;
		mark_all(s->top);
		s->marked = true;
		if (s->ifd < 0)
			s->rescan_all = true; /* no inotify: every sample rescans */
	}
	/* a walk of every node otherwise: at 1000 cgroups, a cache miss each, every sample */
	if (s->marked) {
		s->marked = false;
		rescan_marked(s, s->top);
	}
	if (s->top->gone)
		return -ENOENT;

	/*
	 * As many rows as the last sample had (a pruned or kept sample reads far
	 * fewer cgroups than the tree holds); fill_room() grows them.
	 */
	want = s->prev ? s->prev->n_rows + 16 : s->nnodes ? s->nnodes : 1;
	snap = s->spare;
	s->spare = NULL;
	if (snap && snap->cols.n != s->cols.n) { /* other keys since: other cells */
		free(snap->cells);
		snap->cells = NULL;
		snap->cap_rows = 0;
	}
	if (snap) {
		struct mcg_snapshot keep = *snap;

		memset(snap, 0, sizeof(*snap));
		snap->rows = keep.rows;
		snap->cells = keep.cells;
		snap->psis = keep.psis;
		snap->strings = keep.strings;
		snap->cap_rows = keep.cap_rows;
		snap->cap_str = keep.cap_str;
	} else {
		snap = calloc(1, sizeof(*snap));
		if (!snap)
			return -ENOMEM;
	}
	snap->refs = 1;
	snap->version = s->version;
	snap->page_size = (uint64_t)mcg_page_size();
	snap->cols = s->cols;
	f.cap_rows = snap->cap_rows;
	if (f.cap_rows < want || !snap->cells) {
		f.cap_rows = want > f.cap_rows ? want : f.cap_rows;
		if (!snap_rows_room(snap, f.cap_rows)) {
			mcg_snapshot_unref(snap);
			return -ENOMEM;
		}
	}
	/* not a walk of the tree: a cache miss a node */
	f.cap_str = snap->cap_str;
	if (f.cap_str < s->path_total || !snap->strings) {
		char *str = realloc(snap->strings, s->path_total ? s->path_total : 1);

		if (!str) {
			mcg_snapshot_unref(snap);
			return -ENOMEM;
		}
		snap->strings = str;
		f.cap_str = s->path_total ? s->path_total : 1;
	}
	if (!(s->flags & MCG_SAMPLER_CGROUPS_ONLY)) {
		sample_global(s, &snap->global);
		read_async(s);
	}
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
	s->now_ns = snap->mono_ns;
	/* rates of these are taken between the rows' reads (detail_ns), which a live view spaces out */
	snap->detail_keys = s->det_keys;
	f.s = s;
	f.snap = snap;
	f.nstr = 0;
	f.oom = false;
	fill_rows(&f, s->top, -1);
	snap->cap_rows = f.cap_rows;
	snap->cap_str = f.cap_str;
	if (f.oom) {
		mcg_snapshot_unref(snap);
		return -ENOMEM;
	}
	snap_wire(snap, true);
	snap->seq = ++s->seq;
	mcg_snapshot_rates(s->prev, snap);
	release_prev(s);
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
	free(snap->cells);
	free(snap->psis);
	free(snap->strings);
	free(snap);
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct mcg_sample_row *const *)a)[0]->id;
	uint64_t y = ((const struct mcg_sample_row *const *)b)[0]->id;

	return x < y ? -1 : x > y;
}

const struct mcg_sample_row **mcg_snapshot_index(const struct mcg_snapshot *snap)
{
	const struct mcg_sample_row **idx = malloc((snap->n_rows ? snap->n_rows : 1) * sizeof(*idx));
	bool sorted = true;
	size_t i;

	if (!idx)
		return NULL;
	for (i = 0; i < snap->n_rows; i++) {
		idx[i] = &snap->rows[i];
		if (i && idx[i]->id < idx[i - 1]->id)
			sorted = false;
	}
	/* a sampler's rows are in pre-order, which is id order unless a cgroup was made again */
	if (!sorted)
		qsort(idx, snap->n_rows, sizeof(*idx), cmp_id);
	return idx;
}

const struct mcg_sample_row *mcg_snapshot_find(const struct mcg_snapshot *snap,
					       const struct mcg_sample_row *const *idx, uint64_t id)
{
	size_t lo = 0, hi = snap->n_rows;

	while (idx && lo < hi) {
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

	if (prev && cur->mono_ns > prev->mono_ns)
		dt = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
	cur->interval = dt;
	if (prev && prev->n_rows)
		idx = mcg_snapshot_index(prev);
	for (i = 0; i < cur->n_rows; i++) {
		struct mcg_sample_row *r = &cur->rows[i];

		row_rates(r, idx ? mcg_snapshot_find(prev, idx, r->id) : NULL, dt, &cur->detail_keys);
	}
	free(idx);
	global_rates(prev ? &prev->global : NULL, dt, &cur->global);
}

/* ---- rows' counters ------------------------------------------------------ */

int mcg_snapshot_new(const struct mcg_keyset *keys, size_t n_rows, struct mcg_snapshot **ret)
{
	struct mcg_snapshot *snap = calloc(1, sizeof(*snap));
	struct mcg_keyset all;

	if (!snap)
		return -ENOMEM;
	snap->refs = 1;
	if (keys)
		all = *keys;
	else
		mcg_keyset_all(&all);
	cols_init(&snap->cols, &all);
	snap->rows = calloc(n_rows ? n_rows : 1, sizeof(*snap->rows));
	snap->cells = calloc((n_rows ? n_rows : 1) * (snap->cols.n ? snap->cols.n : 1),
			     sizeof(*snap->cells));
	snap->psis = calloc(n_rows ? n_rows : 1, sizeof(*snap->psis));
	if (!snap->rows || !snap->cells || !snap->psis) {
		mcg_snapshot_unref(snap);
		return -ENOMEM;
	}
	snap->n_rows = snap->cap_rows = n_rows;
	snap_wire(snap, false);
	/* a row built by hand points at its pressure slot; it says which of it is valid */
	for (size_t i = 0; i < n_rows; i++)
		snap->rows[i].psi = &snap->psis[i];
	*ret = snap;
	return 0;
}

void mcg_sample_record(const struct mcg_sample_row *row, struct mcg_record *ret)
{
	unsigned c;

	memset(ret, 0, sizeof(*ret));
	ret->valid = row->valid;
	for (c = 0; c < row->cols->n; c++)
		if (mcg_keyset_has(&row->valid, row->cols->key[c]))
			ret->v[row->cols->key[c]] = row->cell[c].v;
	if (row->psi)
		ret->psi = *row->psi;
}

static struct mcg_sample_cell *row_cell(struct mcg_sample_row *row, enum mcg_key k)
{
	unsigned c = (unsigned)k < MCG_K__COUNT && row->cols ? row->cols->col[k] : MCG_SAMPLE_NOCOL;

	return c == MCG_SAMPLE_NOCOL ? NULL : &row->cell[c];
}

bool mcg_sample_set(struct mcg_sample_row *row, enum mcg_key k, uint64_t v)
{
	struct mcg_sample_cell *c = row_cell(row, k);

	if (!c)
		return false;
	c->v = v;
	mcg_keyset_add(&row->valid, k);
	return true;
}

bool mcg_sample_set_rate(struct mcg_sample_row *row, enum mcg_key k, double rate)
{
	struct mcg_sample_cell *c = row_cell(row, k);

	if (!c)
		return false;
	c->rate = rate;
	mcg_keyset_add(&row->rate_valid, k);
	return true;
}

bool mcg_sample_set_since(struct mcg_sample_row *row, enum mcg_key k, uint64_t since)
{
	struct mcg_sample_cell *c = row_cell(row, k);

	if (!c)
		return false;
	c->since = since;
	return true;
}
