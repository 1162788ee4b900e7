/* dirty.c: dirty and writeback memory against the kernel's global and memcg-domain thresholds. */
#include "model/model.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
				total += mcg__min_u64(high + prot, managed);
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
	return free - mcg__min_u64(free, reserve) + file + 1;
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
			ratio = mcg__min_u64(div_round_up(bytes, global_avail), page_size);
		if (bg_bytes)
			bg_ratio = mcg__min_u64(div_round_up(bg_bytes, global_avail), page_size);
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
	uint64_t clean = filepages - mcg__min_u64(filepages, dirty);
	uint64_t global_clean = global_avail - mcg__min_u64(global_avail, global_dirty);
	uint64_t other_clean = global_clean - mcg__min_u64(global_clean, clean);

	return filepages + mcg__min_u64(headroom, other_clean);
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

/* A PAGES row of H back in pages (the reader keeps bytes: page_size * pages, exact). */
#define PAGES(id) (mcg_host_get(&h, (id)) / g.page_size)

int mcg_dirty_global_read(const struct mcg_ctx *ctx, struct mcg_dirty_global *ret)
{
	struct mcg_dirty_global g = {0};
	struct mcg_host h = {0};
	char buf[16384], *zbuf;
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

	/* the one reader (MCG_HOST): vmstat's pages come in bytes, counters as printed */
	r = mcg__host_read(ctx, 1u << MCG_HS_VMSTAT, buf, sizeof(buf), &h);
	if (r < 0)
		return r;
	if (!mcg_host_has(&h, MCG_G_DIRTY) || !mcg_host_has(&h, MCG_G_WRITEBACK) ||
	    !mcg_host_has(&h, MCG_G_NR_INACTIVE_FILE) || !mcg_host_has(&h, MCG_G_NR_ACTIVE_FILE) ||
	    !mcg_host_has(&h, MCG_G_NR_FREE_PAGES))
		return -EINVAL;
	g.nr_dirty = PAGES(MCG_G_DIRTY);
	g.nr_writeback = PAGES(MCG_G_WRITEBACK);
	g.file = PAGES(MCG_G_NR_INACTIVE_FILE) + PAGES(MCG_G_NR_ACTIVE_FILE);
	g.vmstat_free = PAGES(MCG_G_NR_FREE_PAGES);
	g.nr_dirtied = mcg_host_get(&h, MCG_G_NR_DIRTIED); /* absent: 0, as before */
	g.nr_written = mcg_host_get(&h, MCG_G_NR_WRITTEN);
	g.kernel_valid = mcg_host_has(&h, MCG_G_DIRTY_THRESH) && mcg_host_has(&h, MCG_G_DIRTY_BG_THRESH);
	if (g.kernel_valid) {
		g.kernel_thresh = PAGES(MCG_G_DIRTY_THRESH);
		g.kernel_bg_thresh = PAGES(MCG_G_DIRTY_BG_THRESH);
	}

	/*
	 * MemFree is the sum the kernel's global_dirtyable_memory() reads. On
	 * stock kernels it equals nr_free_pages; where they differ (seen on this
	 * project's host) the kernel's thresholds follow MemFree.
	 */
	g.free = g.vmstat_free;
	if (mcg__host_read(ctx, 1u << MCG_HS_MEMINFO, buf, sizeof(buf), &h) == 0 &&
	    mcg_host_has(&h, MCG_G_MEM_FREE))
		g.free = mcg_host_get(&h, MCG_G_MEM_FREE) / g.page_size;

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
#undef PAGES

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
void mcg_dirty_keys(int version, struct mcg_keyset *ks)
{
	static const enum mcg_key common[] = {MCG_K_DIRTY, MCG_K_WRITEBACK, MCG_K_INACTIVE_FILE,
					      MCG_K_ACTIVE_FILE};
	size_t i;

	for (i = 0; i < MCG_ARRAY_SIZE(common); i++)
		mcg_keyset_add(ks, common[i]);
	/* v1: memory.stat's hierarchical_memory_limit; v2: the ancestors' max, high, current */
	if (version == 2) {
		mcg_keyset_add(ks, MCG_K_LIMIT);
		mcg_keyset_add(ks, MCG_K_HIGH);
		mcg_keyset_add(ks, MCG_K_USAGE);
	} else {
		mcg_keyset_add(ks, MCG_K_EFFECTIVE_LIMIT);
	}
}

static struct mcg_keyset dirty_keys(int version)
{
	struct mcg_keyset k = {{0}};

	mcg_dirty_keys(version, &k);
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

int mcg_dirty_cg_from_row(const struct mcg_sample_row *r, int version, struct mcg_dirty_cg *ret)
{
	/* mcg_dirty_cg_from_record()'s counters, read in the row's cells: no record filled */
	if (!mcg_sample_has(r, MCG_K_DIRTY) || !mcg_sample_has(r, MCG_K_WRITEBACK))
		return -ENOENT;
	ret->dirty = mcg_sample_get(r, MCG_K_DIRTY, 0);
	ret->writeback = mcg_sample_get(r, MCG_K_WRITEBACK, 0);
	ret->file =
		mcg_sample_get(r, MCG_K_INACTIVE_FILE, 0) + mcg_sample_get(r, MCG_K_ACTIVE_FILE, 0);
	if (version != 2)
		ret->limit = mcg_sample_get(r, MCG_K_EFFECTIVE_LIMIT, MCG_MAX);
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

/* ---- the sampler: the one sampler (lib/model/sample.c), pruned at clean cgroups ---- */

struct dnode {
	char *path;
	uint64_t id;  /* the sampler's row id when last found (a re-created cgroup: another) */
	ssize_t row;  /* its row in the current snapshot, -1: not there */
	bool explicit;
};

struct mcg_dirty_sampler {
	struct mcg_ctx *ctx;
	int version;
	struct mcg_sampler *smp;
	struct mcg_snapshot *snap;
	struct dnode *n;
	size_t nn, cap;
	bool keep_changed; /* explicit paths added since the last sample */
};

int mcg_dirty_sampler_new(struct mcg_ctx *ctx, unsigned flags, struct mcg_dirty_sampler **ret)
{
	struct mcg_dirty_sampler *s = calloc(1, sizeof(*s));
	struct mcg_keyset want, zero = {{0}};
	int r;

	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->version = mcg_ctx_version(ctx);
	r = mcg_sampler_new(ctx, "/", flags | MCG_SAMPLER_CGROUPS_ONLY, &s->smp);
	if (r < 0) {
		free(s);
		return r;
	}
	want = dirty_keys(s->version);
	/* dirty and writeback are hierarchical: below a clean cgroup, nothing to find */
	mcg_keyset_add(&zero, MCG_K_DIRTY);
	mcg_keyset_add(&zero, MCG_K_WRITEBACK);
	r = mcg_sampler_set_keys(s->smp, &want);
	if (r == 0)
		r = mcg_sampler_set_prune(s->smp, &zero);
	if (r < 0) {
		mcg_dirty_sampler_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void mcg_dirty_sampler_free(struct mcg_dirty_sampler *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nn; i++)
		free(s->n[i].path);
	free(s->n);
	mcg_snapshot_unref(s->snap);
	mcg_sampler_free(s->smp);
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

/* The node of PATH (a named one), or of the row with ID (a found one); -1. */
static ssize_t find_node(const struct mcg_dirty_sampler *s, const char *path, uint64_t id)
{
	size_t i;

	for (i = 0; i < s->nn; i++)
		if (path ? s->n[i].explicit && !strcmp(s->n[i].path, path) : s->n[i].id == id)
			return (ssize_t)i;
	return -1;
}

static ssize_t add_node(struct mcg_dirty_sampler *s, const char *path, uint64_t id, bool explicit)
{
	struct dnode *nd;

	if (mcg_grow(&s->n, &s->cap, s->nn, sizeof(*s->n), 16) < 0)
		return -ENOMEM;
	nd = &s->n[s->nn];
	nd->path = strdup(path);
	if (!nd->path)
		return -ENOMEM;
	nd->id = id;
	nd->row = -1;
	nd->explicit = explicit;
	return (ssize_t)s->nn++;
}

int mcg_dirty_sampler_add(struct mcg_dirty_sampler *s, const char *spec)
{
	struct mcg_group *g;
	ssize_t i;
	int r = mcg_group_open(s->ctx, spec, &g);

	if (r < 0)
		return r;
	/* memory.stat is what 'dirty' reads: a cgroup without it is refused here */
	r = mcg_knob_open(g, "memory.stat", O_RDONLY);
	if (r < 0) {
		mcg_group_close(g);
		return r;
	}
	close(r);
	i = find_node(s, mcg_group_path(g), 0);
	if (i < 0) {
		i = add_node(s, mcg_group_path(g), 0, true);
		s->keep_changed = true;
	}
	mcg_group_close(g);
	return (int)i;
}

/* The sampler reads the explicit cgroups (and their ancestors) whatever the pruning. */
static int set_keep(struct mcg_dirty_sampler *s)
{
	const char **paths;
	size_t i, n = 0;
	int r;

	paths = calloc(s->nn + 1, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (i = 0; i < s->nn; i++)
		if (s->n[i].explicit)
			paths[n++] = s->n[i].path;
	/* named cgroups: only they (and their ancestors) are read, not their clean siblings */
	r = mcg_sampler_set_keep(s->smp, paths, n, true);
	free(paths);
	if (r == 0)
		s->keep_changed = false;
	return r;
}

static int sample(struct mcg_dirty_sampler *s)
{
	const struct mcg_sample_row **by_id, *row;
	struct mcg_snapshot *snap;
	size_t i, r;
	int e;

	if (s->keep_changed && (e = set_keep(s)) < 0)
		return e;
	e = mcg_sampler_sample(s->smp, &snap);
	if (e < 0)
		return e;
	mcg_snapshot_unref(s->snap);
	s->snap = snap;
	/* the rows of the nodes by the sampler's id (stable while the cgroup lives) */
	by_id = mcg_snapshot_index(snap);
	if (!by_id)
		return -ENOMEM;
	for (i = 0; i < s->nn; i++) {
		struct dnode *n = &s->n[i];

		row = n->id ? mcg_snapshot_find(snap, by_id, n->id) : NULL;
		n->row = row ? row - snap->rows : -1;
		if (n->row >= 0 || !n->explicit)
			continue;
		/* a named cgroup first seen, or re-created (a new id): by its path */
		for (r = 0; r < snap->n_rows; r++) {
			if (!strcmp(snap->rows[r].path, n->path)) {
				n->row = (ssize_t)r;
				n->id = snap->rows[r].id;
				break;
			}
		}
	}
	free(by_id);
	return 0;
}

void mcg_dirty_sampler_begin(struct mcg_dirty_sampler *s)
{
	/* an error leaves the rows unfound: reads say -ENOENT */
	if (sample(s) < 0)
		for (size_t i = 0; i < s->nn; i++)
			s->n[i].row = -1;
}

int mcg_dirty_cg_from_snapshot(const struct mcg_snapshot *snap, size_t row, int version,
			       struct mcg_dirty_cg *ret)
{
	struct mcg_dirty_cg c = {0};
	int r;

	if (row >= snap->n_rows)
		return -EINVAL;
	r = mcg_dirty_cg_from_row(&snap->rows[row], version, &c);
	if (r < 0)
		return r;
	if (version == 2) {
		const struct mcg_sample_row *lin[MCG_WALK_MAX_DEPTH + 1];
		struct mcg_lineage l;

		/* the row and its ancestors in the snapshot, by their parent indices: no records */
		/* mem_cgroup_wb_stats(): this group and its ancestors, not the root */
		mcg_snapshot_lineage(snap, row, lin, MCG_ARRAY_SIZE(lin), &l);
		c.headroom = mcg_field_wb_headroom(&l, snap->page_size);
		if (!mcg_field_effective_limit(2, &l, &c.limit))
			c.limit = MCG_MAX;
	}
	*ret = c;
	return 0;
}

int mcg_dirty_sampler_read(struct mcg_dirty_sampler *s, size_t i, struct mcg_dirty_cg *ret)
{
	if (i >= s->nn)
		return -EINVAL;
	if (!s->snap)
		mcg_dirty_sampler_begin(s);
	if (s->n[i].row < 0)
		return -ENOENT; /* removed, or no longer a memory cgroup */
	return mcg_dirty_cg_from_snapshot(s->snap, (size_t)s->n[i].row, s->version, ret);
}

int mcg_dirty_sampler_scan(struct mcg_dirty_sampler *s, void (*cb)(size_t idx, void *userdata),
			   void *userdata)
{
	const struct mcg_snapshot *snap;
	size_t r;
	int found = 0;

	if (!s->snap)
		mcg_dirty_sampler_begin(s);
	snap = s->snap;
	if (!snap)
		return -ENOENT;
	for (r = 1; r < snap->n_rows; r++) { /* row 0 is the root */
		const struct mcg_sample_row *row = &snap->rows[r];
		ssize_t i;

		if (!mcg_sample_get(row, MCG_K_DIRTY, 0) && !mcg_sample_get(row, MCG_K_WRITEBACK, 0))
			continue;
		i = find_node(s, NULL, row->id);
		if (i < 0) {
			i = add_node(s, row->path, row->id, false);
			if (i < 0)
				return (int)i;
		}
		s->n[i].row = (ssize_t)r;
		found++;
		if (cb)
			cb((size_t)i, userdata);
	}
	return found;
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

/* The verdict's text, when asked for: the level alone costs no formatting. */
#define SAY(...)                                                                                   \
	do {                                                                                       \
		if (buf && len)                                                                    \
			snprintf(buf, len, __VA_ARGS__);                                           \
	} while (0)

enum mcg_dirty_level mcg_dirty_verdict(const struct mcg_dirty_cg *c, int version,
				       const struct mcg_dirty_global *g, double stale_s, char *buf,
				       size_t len)
{
	uint64_t ps = g->page_size, held = c->dirty + c->writeback;
	uint64_t gthresh = g->kernel_valid ? g->kernel_thresh : g->lim.thresh;
	uint64_t gbg = g->kernel_valid ? g->kernel_bg_thresh : g->lim.bg_thresh;
	double expire = (double)g->set.expire_cs / 100, period = (double)g->set.writeback_cs / 100;
	bool memcg = c->has_domain && g->cgwb != 0 && c->memcg_state >= c->global_state;
	char a[32] = "", b[32];

	if (buf && len)
		mcg_size_format(held, a, sizeof(a));
	if (c->state == MCG_DIRTY_AT_LIMIT) {
		if (memcg)
			SAY("writers are blocked: dirty+writeback %s reached the memcg domain "
			    "limit %s",
			    a, pages_fmt(c->dom.thresh, ps, b, sizeof(b)));
		else
			SAY("writers are blocked: the system's dirty+writeback reached the global "
			    "limit %s",
			    pages_fmt(gthresh, ps, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (c->state == MCG_DIRTY_THROTTLED) {
		if (memcg)
			SAY("writers are throttled: dirty+writeback %s is above the memcg domain's "
			    "free-run ceiling %s",
			    a, pages_fmt(c->dom.freerun, ps, b, sizeof(b)));
		else
			SAY("writers are throttled: the system's dirty+writeback is above the "
			    "global "
			    "free-run ceiling %s",
			    pages_fmt((gthresh + gbg) / 2, ps, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (version != 2 && c->limit != MCG_MAX && c->limit &&
	    (double)held * 100 >= (double)c->limit * MCG_DIRTY_V1_SHARE_WARN) {
		SAY("reclaim will wait on writeback: dirty+writeback %s is %.0f%% of the %s limit "
		    "and "
		    "v1 has no per-cgroup dirty throttling (at a 5M limit the 2012 report saw OOM)",
		    a, (double)held * 100 / (double)c->limit,
		    mcg_size_format(c->limit, b, sizeof(b)));
		return MCG_DIRTY_WARN;
	}
	if (c->dirty && stale_s >= 0 && stale_s > expire + period) {
		SAY("dirty pages older than dirty_expire (%.0f s) have not started writeback: "
		    "no progress for %.0f s",
		    expire, stale_s);
		return MCG_DIRTY_WARN;
	}
	if (version == 2 && g->cgwb == 0 && held) {
		SAY("no cgroup writeback (the io controller is not on cgroup v2): this cgroup's "
		    "memcg domain is not enforced, only the global thresholds apply");
		return MCG_DIRTY_NOTE;
	}
	if (c->state == MCG_DIRTY_BACKGROUND) {
		if (memcg)
			SAY("background writeback running: dirty is above the memcg domain's "
			    "background threshold %s",
			    pages_fmt(c->dom.bg_thresh, ps, b, sizeof(b)));
		else
			SAY("background writeback running: the system's dirty is above the global "
			    "background threshold %s",
			    pages_fmt(gbg, ps, b, sizeof(b)));
		return MCG_DIRTY_NOTE;
	}
	if (!held) {
		SAY("no dirty or writeback pages");
		return MCG_DIRTY_OK;
	}
	if (version != 2) {
		if (c->limit == MCG_MAX)
			SAY("dirty+writeback %s, no limit; v1 has no per-cgroup dirty throttling, "
			    "only the global thresholds apply",
			    a);
		else
			SAY("dirty+writeback %s is %.1f%% of the %s limit; v1 has no per-cgroup "
			    "dirty "
			    "throttling, only the global thresholds apply",
			    a, (double)held * 100 / (double)c->limit,
			    mcg_size_format(c->limit, b, sizeof(b)));
		return MCG_DIRTY_OK;
	}
	SAY("below background: dirty %s, the memcg domain starts writeback above %s",
	    mcg_size_format(c->dirty, a, sizeof(a)), pages_fmt(c->dom.bg_thresh, ps, b, sizeof(b)));
	return MCG_DIRTY_OK;
}

#undef SAY
