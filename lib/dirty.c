/* dirty.c: dirty and writeback memory against the kernel's global and memcg-domain thresholds. */
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t div_round_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

const char *mcg_dirty_state_name(enum mcg_dirty_state s)
{
	switch (s) {
	case MCG_DIRTY_BELOW_BG:
		return "below background";
	case MCG_DIRTY_BACKGROUND:
		return "background writeback";
	case MCG_DIRTY_THROTTLED:
		return "throttled";
	case MCG_DIRTY_AT_LIMIT:
		return "at the limit";
	}
	return "unknown";
}

/*
 * calculate_totalreserve_pages() (mm/page_alloc.c): for each zone, the largest
 * lowmem_reserve it keeps against allocations meant for higher zones plus its
 * high watermark, capped at its managed pages. zoneinfo prints the reserves
 * as "protection: (a, b, ...)" and the watermark as "high N".
 */
int mcg_dirty_reserve_parse(const char *text, uint64_t *ret)
{
	uint64_t total = 0, high = 0, managed = 0, prot = 0, v;
	bool in_zone = false, have_high = false, have_managed = false, any = false, end = false;
	const char *pos = text;
	struct mcg__kv kv;

	while (!end) {
		bool node;

		end = !mcg__kv_next(&pos, &kv);
		/* "Node 0, zone   Normal" starts a zone (unindented); the end closes the last */
		node = !end && kv.key == kv.line && mcg__kv_is(&kv, "Node", 4);
		if (end || node) {
			if (in_zone) {
				if (!have_high || !have_managed)
					return -EINVAL;
				total += min_u64(high + prot, managed);
				any = true;
			}
			if (end)
				break;
			in_zone = memmem(kv.val, (size_t)(kv.eol - kv.val), "zone", 4) != NULL;
			high = managed = prot = 0;
			have_high = have_managed = false;
			continue;
		}
		if (!in_zone)
			continue;
		/* "high N" is the watermark; the per-cpu pagesets' "high:  N" is not */
		if (mcg__kv_is(&kv, "high", 4) && kv.key[4] != ':' &&
		    mcg__kv_u64(kv.val, kv.eol, &v)) {
			high = v;
			have_high = true;
		} else if (mcg__kv_is(&kv, "managed", 7) && kv.key[7] != ':' &&
			   mcg__kv_u64(kv.val, kv.eol, &v)) {
			managed = v;
			have_managed = true;
		} else if (mcg__kv_is(&kv, "protection", 10) && kv.key[10] == ':') {
			const char *q = kv.val;

			prot = 0;
			while (q < kv.eol && *q != ')') {
				if (*q >= '0' && *q <= '9') {
					const char *d = q;

					while (d < kv.eol && *d >= '0' && *d <= '9')
						d++;
					if (mcg__kv_u64(q, d, &v) && v > prot)
						prot = v;
					q = d;
				} else {
					q++;
				}
			}
		}
	}
	if (!any)
		return -EINVAL;
	*ret = total;
	return 0;
}

uint64_t mcg_dirty_dirtyable(uint64_t free, uint64_t reserve, uint64_t file)
{
	/* No highmem on 64-bit: highmem_dirtyable_memory() is 0 there. */
	return free - min_u64(free, reserve) + file + 1;
}

void mcg_dirty_domain_limits(const struct mcg_dirty_settings *s, uint64_t avail,
			     uint64_t global_avail, uint64_t page_size, struct mcg_dirty_limits *ret)
{
	/* Ratios in 1/page_size units, for precision, as the kernel does. */
	uint64_t ratio = s->ratio * page_size / 100, bg_ratio = s->bg_ratio * page_size / 100;
	uint64_t bytes = s->bytes, bg_bytes = s->bg_bytes, thresh, bg_thresh;

	if (global_avail) {
		/* Byte settings become ratios of the globally dirtyable memory. */
		if (bytes)
			ratio = min_u64(div_round_up(bytes, global_avail), page_size);
		if (bg_bytes)
			bg_ratio = min_u64(div_round_up(bg_bytes, global_avail), page_size);
		bytes = bg_bytes = 0;
	}
	if (bytes)
		thresh = div_round_up(bytes, page_size);
	else
		thresh = ratio * avail / page_size;
	if (bg_bytes)
		bg_thresh = div_round_up(bg_bytes, page_size);
	else
		bg_thresh = bg_ratio * avail / page_size;
	if (thresh > UINT32_MAX)
		thresh = UINT32_MAX;
	if (bg_thresh >= thresh)
		bg_thresh = thresh / 2;
	ret->avail = avail;
	ret->thresh = thresh;
	ret->bg_thresh = bg_thresh;
	ret->freerun = (thresh + bg_thresh) / 2;
}

uint64_t mcg_dirty_memcg_avail(uint64_t filepages, uint64_t headroom, uint64_t dirty,
			       uint64_t global_avail, uint64_t global_dirty)
{
	uint64_t clean = filepages - min_u64(filepages, dirty);
	uint64_t global_clean = global_avail - min_u64(global_avail, global_dirty);
	uint64_t other_clean = global_clean - min_u64(global_clean, clean);

	return filepages + min_u64(headroom, other_clean);
}

enum mcg_dirty_state mcg_dirty_classify(const struct mcg_dirty_limits *l, uint64_t dirty,
					uint64_t writeback)
{
	if (dirty + writeback >= l->thresh && l->thresh)
		return MCG_DIRTY_AT_LIMIT;
	if (dirty + writeback > l->freerun)
		return MCG_DIRTY_THROTTLED;
	if (dirty > l->bg_thresh)
		return MCG_DIRTY_BACKGROUND;
	return MCG_DIRTY_BELOW_BG;
}

/* ---- reading /proc ---------------------------------------------------- */

static int read_setting(const struct mcg_ctx *ctx, const char *name, uint64_t *ret)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "sys/vm/%s", name);
	return mcg_proc_read_u64(ctx, rel, ret);
}

int mcg_dirty_global_read(const struct mcg_ctx *ctx, struct mcg_dirty_global *ret)
{
	struct mcg_dirty_global g = {0};
	char buf[16384], *zbuf;
	struct mcg__vmstat vm;
	struct mcg__meminfo mi;
	unsigned need;
	uint64_t v;
	ssize_t n;
	int r;

	g.page_size = (uint64_t)mcg_page_size();
	if ((r = read_setting(ctx, "dirty_ratio", &g.set.ratio)) < 0 ||
	    (r = read_setting(ctx, "dirty_background_ratio", &g.set.bg_ratio)) < 0 ||
	    (r = read_setting(ctx, "dirty_bytes", &g.set.bytes)) < 0 ||
	    (r = read_setting(ctx, "dirty_background_bytes", &g.set.bg_bytes)) < 0 ||
	    (r = read_setting(ctx, "dirty_expire_centisecs", &g.set.expire_cs)) < 0 ||
	    (r = read_setting(ctx, "dirty_writeback_centisecs", &g.set.writeback_cs)) < 0)
		return r;

	n = mcg_proc_read(ctx, "vmstat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	mcg__vmstat_parse(buf, &vm);
	need = 1u << MCG__VM_NR_DIRTY | 1u << MCG__VM_NR_WRITEBACK | 1u << MCG__VM_NR_INACTIVE_FILE |
	       1u << MCG__VM_NR_ACTIVE_FILE | 1u << MCG__VM_NR_FREE_PAGES;
	if ((vm.valid & need) != need)
		return -EINVAL;
	g.nr_dirty = vm.v[MCG__VM_NR_DIRTY];
	g.nr_writeback = vm.v[MCG__VM_NR_WRITEBACK];
	g.file = vm.v[MCG__VM_NR_INACTIVE_FILE] + vm.v[MCG__VM_NR_ACTIVE_FILE];
	g.vmstat_free = vm.v[MCG__VM_NR_FREE_PAGES];
	g.nr_dirtied = vm.v[MCG__VM_NR_DIRTIED];
	g.nr_written = vm.v[MCG__VM_NR_WRITTEN];
	g.kernel_valid = (vm.valid & 1u << MCG__VM_DIRTY_THRESH) && (vm.valid & 1u << MCG__VM_DIRTY_BG_THRESH);
	if (g.kernel_valid) {
		g.kernel_thresh = vm.v[MCG__VM_DIRTY_THRESH];
		g.kernel_bg_thresh = vm.v[MCG__VM_DIRTY_BG_THRESH];
	}

	/*
	 * MemFree is the sum the kernel's global_dirtyable_memory() reads. On
	 * stock kernels it equals nr_free_pages; where they differ (seen on this
	 * project's host) the kernel's thresholds follow MemFree.
	 */
	g.free = g.vmstat_free;
	if (mcg__meminfo_read(ctx, &mi) == 0 && (mi.valid & 1u << MCG__MI_FREE))
		g.free = mi.v[MCG__MI_FREE] / g.page_size;

	zbuf = malloc(1 << 20);
	if (!zbuf)
		return -ENOMEM;
	n = mcg_proc_read(ctx, "zoneinfo", zbuf, 1 << 20);
	if (n >= 0 && !mcg_dirty_reserve_parse(zbuf, &v)) {
		g.reserve = v;
		g.reserve_valid = true;
	}
	free(zbuf);

	g.cgwb = -1;
	n = mcg_proc_read(ctx, "cgroups", buf, sizeof(buf));
	if (n >= 0) {
		r = mcg_dirty_cgwb_parse(buf);
		if (r >= 0)
			g.cgwb = r;
	}

	mcg_dirty_domain_limits(&g.set, mcg_dirty_dirtyable(g.free, g.reserve, g.file), 0,
				g.page_size, &g.lim);
	*ret = g;
	return 0;
}

int mcg_dirty_cgwb_parse(const char *text)
{
	const char *p = text;
	int mem = -1, io = -1;

	while (*p) {
		char name[64];
		unsigned hier, num, enabled;

		if (sscanf(p, "%63s %u %u %u", name, &hier, &num, &enabled) == 4) {
			/* hierarchy 0: the subsystem is on the default (v2) hierarchy */
			if (!strcmp(name, "memory"))
				mem = hier == 0 && enabled;
			else if (!strcmp(name, "blkio") || !strcmp(name, "io"))
				io = hier == 0 && enabled;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (mem < 0 || io < 0)
		return -ENOENT;
	return mem && io;
}

enum mcg_dirty_state mcg_dirty_global_state(const struct mcg_dirty_global *g)
{
	struct mcg_dirty_limits l = g->lim;

	/* The kernel's own numbers decide where the system stands. */
	if (g->kernel_valid) {
		l.thresh = g->kernel_thresh;
		l.bg_thresh = g->kernel_bg_thresh;
		l.freerun = (l.thresh + l.bg_thresh) / 2;
	}
	return mcg_dirty_classify(&l, g->nr_dirty, g->nr_writeback);
}

/* ---- one cgroup ------------------------------------------------------- */

/* The counters 'dirty' reads (v1: the hierarchical total_ keys only, like v2's recursive ones). */
static struct mcg_keyset dirty_keys(int version)
{
	static const enum mcg_key common[] = {MCG_K_DIRTY, MCG_K_WRITEBACK, MCG_K_INACTIVE_FILE,
					      MCG_K_ACTIVE_FILE};
	struct mcg_keyset k = {{0}};
	size_t i;

	for (i = 0; i < MCG_ARRAY_SIZE(common); i++)
		mcg_keyset_add(&k, common[i]);
	/* v1: memory.stat's hierarchical_memory_limit; v2: the ancestors' max, high, current */
	if (version == 2) {
		mcg_keyset_add(&k, MCG_K_LIMIT);
		mcg_keyset_add(&k, MCG_K_HIGH);
		mcg_keyset_add(&k, MCG_K_USAGE);
	} else {
		mcg_keyset_add(&k, MCG_K_EFFECTIVE_LIMIT);
	}
	return k;
}

int mcg_dirty_cg_from_record(const struct mcg_record *r, int version, struct mcg_dirty_cg *ret)
{
	if (!mcg_record_has(r, MCG_K_DIRTY) || !mcg_record_has(r, MCG_K_WRITEBACK))
		return -ENOENT;
	ret->dirty = r->v[MCG_K_DIRTY];
	ret->writeback = r->v[MCG_K_WRITEBACK];
	ret->file = mcg_record_get(r, MCG_K_INACTIVE_FILE, 0) + mcg_record_get(r, MCG_K_ACTIVE_FILE, 0);
	if (version != 2)
		ret->limit = mcg_record_get(r, MCG_K_EFFECTIVE_LIMIT, MCG_MAX);
	return 0;
}

int mcg_dirty_stat_parse(const char *text, int version, struct mcg_dirty_cg *ret)
{
	struct mcg__plan p;
	struct mcg_record r;
	struct mcg_keyset want = dirty_keys(version);
	int e = mcg__plan_init(&p, version, &want, 0);

	if (e < 0)
		return e;
	memset(&r.valid, 0, sizeof(r.valid));
	mcg__plan_parse(&p, (unsigned)mcg__plan_slot(&p, MCG_K_DIRTY), text, &r);
	return mcg_dirty_cg_from_record(&r, version, ret);
}

void mcg_dirty_cg_eval(struct mcg_dirty_cg *c, int version, const struct mcg_dirty_global *g)
{
	uint64_t ps = g->page_size, gavail = g->lim.avail, dirty = c->dirty / ps,
		 wb = c->writeback / ps, file = c->file / ps;
	struct mcg_dirty_limits thr, bg;

	c->global_state = mcg_dirty_global_state(g);
	c->memcg_state = MCG_DIRTY_BELOW_BG;
	c->state = c->global_state;
	if (version != 2) {
		/* v1 has no memcg writeback domain: only the global one applies. */
		c->has_domain = false;
		return;
	}
	/*
	 * balance_dirty_pages() counts writeback for the throttle limits,
	 * wb_over_bg_thresh() does not for the background one: two avails.
	 */
	mcg_dirty_domain_limits(&g->set,
				mcg_dirty_memcg_avail(file, c->headroom, dirty + wb, gavail,
						      g->nr_dirty + g->nr_writeback),
				gavail, ps, &thr);
	mcg_dirty_domain_limits(&g->set,
				mcg_dirty_memcg_avail(file, c->headroom, dirty, gavail, g->nr_dirty),
				gavail, ps, &bg);
	c->dom = thr;
	c->dom.bg_thresh = bg.bg_thresh;
	c->has_domain = true;
	c->memcg_state = mcg_dirty_classify(&c->dom, dirty, wb);
	/* Without cgroup writeback the memcg domain is computed but not enforced. */
	if (c->memcg_state > c->state && g->cgwb != 0)
		c->state = c->memcg_state;
}

/* ---- the sampler ------------------------------------------------------ */

struct node {
	char *path;
	struct mcg_group *g;
	int fd[MCG__PLAN_FILES]; /* kept descriptors per plan slot; MCG__FD_ABSENT when not read */
	ssize_t parent;          /* v2: index of the parent node, -1 at the root */
	unsigned gen;            /* refresh that read max/high/cur */
	uint64_t max, high, cur; /* pages, UINT64_MAX for "max" */
};

struct mcg_dirty_sampler {
	struct mcg_ctx *ctx;
	int version;
	struct mcg__plan plan; /* the schema's reader, for the counters of dirty_keys() */
	int sl_stat, sl_max, sl_high, sl_cur;
	struct node *n;
	size_t nn, cap;
	unsigned gen;
};

int mcg_dirty_sampler_new(struct mcg_ctx *ctx, struct mcg_dirty_sampler **ret)
{
	struct mcg_dirty_sampler *s = calloc(1, sizeof(*s));
	struct mcg_keyset want;
	int r;

	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->version = mcg_ctx_version(ctx);
	s->gen = 1;
	want = dirty_keys(s->version);
	r = mcg__plan_init(&s->plan, s->version, &want, 0);
	if (r < 0) {
		free(s);
		return r;
	}
	s->sl_stat = mcg__plan_slot(&s->plan, MCG_K_DIRTY);
	s->sl_max = mcg__plan_slot(&s->plan, MCG_K_LIMIT);
	s->sl_high = mcg__plan_slot(&s->plan, MCG_K_HIGH);
	s->sl_cur = mcg__plan_slot(&s->plan, MCG_K_USAGE);
	*ret = s;
	return 0;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void mcg_dirty_sampler_free(struct mcg_dirty_sampler *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nn; i++) {
		size_t f;

		for (f = 0; f < MCG__PLAN_FILES; f++)
			close_fd(s->n[i].fd[f]);
		mcg_group_close(s->n[i].g);
		free(s->n[i].path);
	}
	free(s->n);
	free(s);
}

size_t mcg_dirty_sampler_count(const struct mcg_dirty_sampler *s)
{
	return s->nn;
}

const char *mcg_dirty_sampler_path(const struct mcg_dirty_sampler *s, size_t i)
{
	return i < s->nn ? s->n[i].path : NULL;
}

static ssize_t find_node(const struct mcg_dirty_sampler *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nn; i++)
		if (!strcmp(s->n[i].path, path))
			return (ssize_t)i;
	return -1;
}

static int add_group(struct mcg_dirty_sampler *s, struct mcg_group *g);

static int add_parent(struct mcg_dirty_sampler *s, const char *path, ssize_t *ret)
{
	char *parent, *slash;
	struct mcg_group *pg;
	ssize_t i;
	int r;

	slash = strrchr(path, '/');
	if (!slash || !strcmp(path, "/")) {
		*ret = -1;
		return 0;
	}
	parent = strdup(path); /* any length: a cut path would name another cgroup */
	if (!parent)
		return -ENOMEM;
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	i = find_node(s, parent);
	if (i >= 0) {
		free(parent);
		*ret = i;
		return 0;
	}
	r = mcg_group_open(s->ctx, parent, &pg);
	free(parent);
	if (r < 0)
		return r;
	r = add_group(s, pg);
	if (r < 0)
		return r;
	*ret = r;
	return 0;
}

/* Takes ownership of G. */
static int add_group(struct mcg_dirty_sampler *s, struct mcg_group *g)
{
	bool v2 = s->version == 2, root = mcg_group_is_root(g);
	ssize_t parent = -1, have = find_node(s, mcg_group_path(g));
	struct node *nd;
	int r;

	if (have >= 0) {
		mcg_group_close(g);
		return (int)have;
	}
	if (v2 && !root) {
		r = add_parent(s, mcg_group_path(g), &parent);
		if (r < 0) {
			mcg_group_close(g);
			return r;
		}
	}
	if (s->nn == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct node *nn = realloc(s->n, cap * sizeof(*nn));

		if (!nn) {
			mcg_group_close(g);
			return -ENOMEM;
		}
		s->n = nn;
		s->cap = cap;
	}
	nd = &s->n[s->nn];
	memset(nd, 0, sizeof(*nd));
	for (r = 0; r < MCG__PLAN_FILES; r++)
		nd->fd[r] = MCG__FD_ABSENT;
	nd->path = strdup(mcg_group_path(g));
	if (!nd->path) {
		mcg_group_close(g);
		return -ENOMEM;
	}
	nd->g = g;
	nd->parent = parent;
	r = mcg_knob_open(g, "memory.stat", O_RDONLY);
	if (r < 0) {
		free(nd->path);
		mcg_group_close(g);
		return r;
	}
	nd->fd[s->sl_stat] = r;
	if (v2 && !root) {
		/* For the headroom; missing files read as "no limit". */
		nd->fd[s->sl_max] = mcg__plan_open(&s->plan, (unsigned)s->sl_max, mcg_group_dirfd(g));
		nd->fd[s->sl_high] = mcg__plan_open(&s->plan, (unsigned)s->sl_high, mcg_group_dirfd(g));
		nd->fd[s->sl_cur] = mcg__plan_open(&s->plan, (unsigned)s->sl_cur, mcg_group_dirfd(g));
	}
	return (int)s->nn++;
}

int mcg_dirty_sampler_add(struct mcg_dirty_sampler *s, const char *spec)
{
	struct mcg_group *g;
	int r = mcg_group_open(s->ctx, spec, &g);

	if (r < 0)
		return r;
	return add_group(s, g);
}

static void read_ceiling(struct mcg_dirty_sampler *s, struct node *nd)
{
	uint64_t ps = (uint64_t)mcg_page_size();
	int dfd = mcg_group_dirfd(nd->g);
	struct mcg_record r;
	char buf[64];

	if (nd->gen == s->gen)
		return;
	memset(&r.valid, 0, sizeof(r.valid));
	mcg__plan_read(&s->plan, (unsigned)s->sl_max, &nd->fd[s->sl_max], dfd, buf, sizeof(buf), &r);
	mcg__plan_read(&s->plan, (unsigned)s->sl_high, &nd->fd[s->sl_high], dfd, buf, sizeof(buf), &r);
	mcg__plan_read(&s->plan, (unsigned)s->sl_cur, &nd->fd[s->sl_cur], dfd, buf, sizeof(buf), &r);
	nd->max = mcg_record_get(&r, MCG_K_LIMIT, MCG_MAX);
	nd->high = mcg_record_get(&r, MCG_K_HIGH, MCG_MAX);
	nd->cur = mcg_record_get(&r, MCG_K_USAGE, 0);
	if (nd->max != MCG_MAX)
		nd->max /= ps;
	if (nd->high != MCG_MAX)
		nd->high /= ps;
	nd->cur /= ps;
	nd->gen = s->gen;
}

int mcg_dirty_sampler_read(struct mcg_dirty_sampler *s, size_t i, struct mcg_dirty_cg *ret)
{
	struct mcg_dirty_cg c = {0};
	struct mcg_record rec;
	char buf[16384];
	ssize_t n, k;
	int r;

	if (i >= s->nn)
		return -EINVAL;
	memset(&rec.valid, 0, sizeof(rec.valid));
	n = mcg__plan_read(&s->plan, (unsigned)s->sl_stat, &s->n[i].fd[s->sl_stat],
			   mcg_group_dirfd(s->n[i].g), buf, sizeof(buf), &rec);
	if (n < 0)
		return (int)n;
	r = mcg_dirty_cg_from_record(&rec, s->version, &c);
	if (r < 0)
		return r;
	if (s->version == 2) {
		uint64_t ps = (uint64_t)mcg_page_size(), limit = MCG_MAX;

		/* mem_cgroup_wb_stats(): this group and its ancestors, not the root. */
		c.headroom = UINT64_MAX;
		for (k = (ssize_t)i; k >= 0 && s->n[k].parent >= 0; k = s->n[k].parent) {
			struct node *nd = &s->n[k];
			uint64_t ceiling;

			read_ceiling(s, nd);
			ceiling = min_u64(nd->max, nd->high);
			c.headroom = min_u64(c.headroom, ceiling - min_u64(ceiling, nd->cur));
			limit = min_u64(limit, nd->max);
		}
		c.limit = limit == MCG_MAX ? MCG_MAX : limit * ps;
	}
	*ret = c;
	return 0;
}

void mcg_dirty_sampler_begin(struct mcg_dirty_sampler *s)
{
	if (++s->gen == 0)
		s->gen = 1;
}

struct scan_state {
	struct mcg_dirty_sampler *s;
	void (*cb)(size_t, void *);
	void *userdata;
	int found;
};

/*
 * Children are found by name under the parent's descriptor; every directory is
 * a child cgroup, dot names too (a cgroup named ".x" holding 64 MiB dirty must
 * be seen). Paths are built at full length; the descent stops at
 * MCG_WALK_MAX_DEPTH with a warning.
 */
static int scan_rec(struct scan_state *st, size_t idx, int depth)
{
	struct mcg_dirty_sampler *s = st->s;
	struct mcg_dirty_cg c;
	struct dirent *de;
	DIR *d;
	int fd, r;

	r = mcg_dirty_sampler_read(s, idx, &c);
	if (r < 0)
		return 0; /* vanished or unreadable: nothing to report below it */
	if (!c.dirty && !c.writeback)
		return 0;
	if (!mcg_group_is_root(s->n[idx].g)) {
		st->found++;
		if (st->cb)
			st->cb(idx, st->userdata);
	}
	fd = openat(mcg_group_dirfd(s->n[idx].g), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		const char *path = s->n[idx].path;
		size_t plen = strcmp(path, "/") ? strlen(path) : 0;
		struct stat sb;
		char *child;
		ssize_t ci;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR &&
		    (de->d_type != DT_UNKNOWN ||
		     fstatat(fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode)))
			continue;
		if (depth >= MCG_WALK_MAX_DEPTH) {
			char *e = mcg_escape_dup(path);

			mcg_log(s->ctx, MCG_LOG_WARNING,
				"skipping the cgroups under '%s': deeper than %d levels", e ? e : "?",
				MCG_WALK_MAX_DEPTH);
			free(e);
			break;
		}
		child = malloc(plen + strlen(de->d_name) + 2);
		if (!child) {
			closedir(d);
			return -ENOMEM;
		}
		memcpy(child, path, plen);
		child[plen] = '/';
		strcpy(child + plen + 1, de->d_name);
		ci = find_node(s, child);
		if (ci < 0) {
			r = mcg_dirty_sampler_add(s, child);
			if (r == -ENOMEM) {
				free(child);
				closedir(d);
				return r;
			}
			if (r < 0) {
				free(child);
				continue; /* not a memory cgroup, or gone */
			}
			ci = r;
		}
		free(child);
		r = scan_rec(st, (size_t)ci, depth + 1);
		if (r < 0) {
			closedir(d);
			return r;
		}
	}
	closedir(d);
	return 0;
}

int mcg_dirty_sampler_scan(struct mcg_dirty_sampler *s, void (*cb)(size_t idx, void *userdata),
			   void *userdata)
{
	struct scan_state st = {s, cb, userdata, 0};
	int r = mcg_dirty_sampler_add(s, "/");

	if (r < 0)
		return r;
	mcg_dirty_sampler_begin(s);
	r = scan_rec(&st, (size_t)r, 0);
	return r < 0 ? r : st.found;
}

/* ---- verdicts --------------------------------------------------------- */

const char *mcg_dirty_level_name(enum mcg_dirty_level l)
{
	switch (l) {
	case MCG_DIRTY_OK:
		return "ok";
	case MCG_DIRTY_NOTE:
		return "note";
	case MCG_DIRTY_WARN:
		return "warn";
	}
	return "unknown";
}

static const char *pages_fmt(uint64_t pages, uint64_t ps, char *buf, size_t len)
{
	return mcg_size_format(pages * ps, buf, len);
}

enum mcg_dirty_level mcg_dirty_verdict(const struct mcg_dirty_cg *c, int version,
				       const struct mcg_dirty_global *g, double stale_s,
				       char *buf, size_t len)
{
	uint64_t ps = g->page_size, held = c->dirty + c->writeback;
	uint64_t gthresh = g->kernel_valid ? g->kernel_thresh : g->lim.thresh;
	uint64_t gbg = g->kernel_valid ? g->kernel_bg_thresh : g->lim.bg_thresh;
	double expire = (double)g->set.expire_cs / 100, period = (double)g->set.writeback_cs / 100;
	bool memcg = c->has_domain && g->cgwb != 0 && c->memcg_state >= c->global_state;
	char a[32], b[32];

	mcg_size_format(held, a, sizeof(a));
	if (c->state == MCG_DIRTY_AT_LIMIT) {
		if (memcg)
			snprintf(buf, len,
				 "writers are blocked: dirty+writeback %s reached the memcg domain limit %s",
				 a, pages_fmt(c->dom.thresh, ps, b, sizeof(b)));
		else
			snprintf(buf, len,
				 "writers are blocked: the system's dirty+writeback reached the global limit %s",
				 pages_fmt(gthresh, ps, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (c->state == MCG_DIRTY_THROTTLED) {
		if (memcg)
			snprintf(buf, len,
				 "writers are throttled: dirty+writeback %s is above the memcg domain's "
				 "free-run ceiling %s",
				 a, pages_fmt(c->dom.freerun, ps, b, sizeof(b)));
		else
			snprintf(buf, len,
				 "writers are throttled: the system's dirty+writeback is above the global "
				 "free-run ceiling %s",
				 pages_fmt((gthresh + gbg) / 2, ps, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (version != 2 && c->limit != MCG_MAX && c->limit &&
	    (double)held * 100 >= (double)c->limit * MCG_DIRTY_V1_SHARE_WARN) {
		snprintf(buf, len,
			 "reclaim will wait on writeback: dirty+writeback %s is %.0f%% of the %s limit and "
			 "v1 has no per-cgroup dirty throttling (at a 5M limit the 2012 report saw OOM)",
			 a, (double)held * 100 / (double)c->limit,
			 mcg_size_format(c->limit, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (c->dirty && stale_s >= 0 && stale_s > expire + period) {
		snprintf(buf, len,
			 "dirty pages older than dirty_expire (%.0f s) have not started writeback: "
			 "no progress for %.0f s",
			 expire, stale_s);
		return MCG_DIRTY_WARN;
	}
	if (version == 2 && g->cgwb == 0 && held) {
		snprintf(buf, len,
			 "no cgroup writeback (the io controller is not on cgroup v2): this cgroup's "
			 "memcg domain is not enforced, only the global thresholds apply");
		return MCG_DIRTY_NOTE;
	}
	if (c->state == MCG_DIRTY_BACKGROUND) {
		if (memcg)
			snprintf(buf, len,
				 "background writeback running: dirty is above the memcg domain's "
				 "background threshold %s",
				 pages_fmt(c->dom.bg_thresh, ps, b, sizeof(b)));
		else
			snprintf(buf, len,
				 "background writeback running: the system's dirty is above the global "
				 "background threshold %s",
				 pages_fmt(gbg, ps, b, sizeof(b)));
		return MCG_DIRTY_NOTE;
	}
	if (!held) {
		snprintf(buf, len, "no dirty or writeback pages");
		return MCG_DIRTY_OK;
	}
	if (version != 2) {
		if (c->limit == MCG_MAX)
			snprintf(buf, len,
				 "dirty+writeback %s, no limit; v1 has no per-cgroup dirty throttling, "
				 "only the global thresholds apply",
				 a);
		else
			snprintf(buf, len,
				 "dirty+writeback %s is %.1f%% of the %s limit; v1 has no per-cgroup dirty "
				 "throttling, only the global thresholds apply",
				 a, (double)held * 100 / (double)c->limit,
				 mcg_size_format(c->limit, b, sizeof(b)));
		return MCG_DIRTY_OK;
	}
	snprintf(buf, len, "below background: dirty %s, the memcg domain starts writeback above %s",
		 mcg_size_format(c->dirty, a, sizeof(a)), pages_fmt(c->dom.bg_thresh, ps, b, sizeof(b)));
	return MCG_DIRTY_OK;
}
