/* fields.c: the values derived from counters, each computed here once: the effective limit, the v2 writeback headroom, usage in percent, what holds the memory. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* The rows of L below the root: the root has no limits and is not charged against. */
static size_t below_root(const struct mcg_lineage *l)
{
	return l->root && l->n > 0 ? l->n - 1 : l->n;
}

bool mcg_field_effective_limit(int version, const struct mcg_lineage *l, uint64_t *ret)
{
	uint64_t eff = MCG_MAX;
	bool any = false;
	size_t i, n;

	if (!l->n)
		return false;
	/* v1: the kernel folds the ancestors into memory.stat itself */
	if (version == 1 && mcg_record_has(l->rec[0], MCG_K_EFFECTIVE_LIMIT)) {
		*ret = l->rec[0]->v[MCG_K_EFFECTIVE_LIMIT];
		return true;
	}
	n = below_root(l);
	for (i = 0; i < n; i++) {
		if (!mcg_record_has(l->rec[i], MCG_K_LIMIT))
			continue;
		any = true;
		eff = mcg__min_u64(eff, l->rec[i]->v[MCG_K_LIMIT]);
	}
	/* the root cgroup itself: nothing limits it */
	if (!any && !(l->root && l->n == 1))
		return false;
	*ret = eff;
	return true;
}

uint64_t mcg_field_wb_headroom(const struct mcg_lineage *l, uint64_t page_size)
{
	uint64_t headroom = UINT64_MAX;
	size_t i, n = below_root(l);

	if (!page_size)
		page_size = (uint64_t)mcg_page_size();
	/* in pages, as the kernel's page counters hold them */
	for (i = 0; i < n; i++) {
		const struct mcg_record *r = l->rec[i];
		uint64_t max = mcg_record_get(r, MCG_K_LIMIT, MCG_MAX);
		uint64_t high = mcg_record_get(r, MCG_K_HIGH, MCG_MAX);
		uint64_t ceiling = mcg__min_u64(max, high);

		if (ceiling == MCG_MAX || !mcg_record_has(r, MCG_K_USAGE))
			continue;
		headroom = mcg__min_u64(headroom, mcg__sat_sub(ceiling / page_size,
						     r->v[MCG_K_USAGE] / page_size));
	}
	return headroom;
}

bool mcg_field_usage_percent(const struct mcg_record *r, double *ret)
{
	if (!mcg_record_has(r, MCG_K_USAGE) || !mcg_record_has(r, MCG_K_LIMIT) ||
	    r->v[MCG_K_LIMIT] == MCG_MAX || r->v[MCG_K_LIMIT] == 0)
		return false;
	*ret = 100.0 * (double)r->v[MCG_K_USAGE] / (double)r->v[MCG_K_LIMIT];
	return true;
}

uint64_t mcg_field_kernel_floor(const struct mcg_record *r, int version)
{
	/*
	 * v1 does not split kernel memory into reclaimable and not: a shrink that
	 * meets what is not gets EBUSY.
	 */
	if (version != 2)
		return 0;
	/* reclaimable slab goes with the shrinkers; the rest stays */
	return mcg__sat_sub(mcg_record_get(r, MCG_K_KERNEL, 0),
			    mcg_record_get(r, MCG_K_SLAB_RECLAIMABLE, 0));
}

uint64_t mcg_floor_from_record(const struct mcg_record *r, int version, uint64_t swap_headroom)
{
	uint64_t kernel = mcg_field_kernel_floor(r, version), swapbacked,
		 unevictable = mcg_record_get(r, MCG_K_UNEVICTABLE, 0);

	/* Mlocked pages are counted in anon/file and in unevictable: the larger of the two. */
	swapbacked = mcg__sat_sub(mcg_record_get(r, MCG_K_ANON, 0) + mcg_record_get(r, MCG_K_SHMEM, 0),
			     swap_headroom);
	return kernel + (swapbacked > unevictable ? swapbacked : unevictable);
}

uint64_t mcg_reclaimable_from_record(const struct mcg_record *r, bool swap)
{
	uint64_t b = 0;

	if (mcg_record_has(r, MCG_K_INACTIVE_FILE) && mcg_record_has(r, MCG_K_ACTIVE_FILE))
		b = r->v[MCG_K_INACTIVE_FILE] + r->v[MCG_K_ACTIVE_FILE];
	else if (mcg_record_has(r, MCG_K_FILE))
		b = r->v[MCG_K_FILE] - (mcg_record_has(r, MCG_K_SHMEM) &&
						r->v[MCG_K_SHMEM] < r->v[MCG_K_FILE]
					? r->v[MCG_K_SHMEM]
					: 0);
	if (swap && mcg_record_has(r, MCG_K_INACTIVE_ANON) && mcg_record_has(r, MCG_K_ACTIVE_ANON))
		b += r->v[MCG_K_INACTIVE_ANON] + r->v[MCG_K_ACTIVE_ANON];
	return b;
}

void mcg_lineage_of_rows(const void *rows, size_t n_rows, size_t row, mcg_lineage_row_fn fn,
			 const struct mcg_record **buf, size_t max, struct mcg_lineage *ret)
{
	long k = (long)row;
	size_t n = 0;

	ret->root = false;
	while (k >= 0 && (size_t)k < n_rows && n < max) {
		const char *path;
		long parent;

		buf[n++] = fn(rows, (size_t)k, &parent, &path);
		if (parent < 0)
			ret->root = !strcmp(path, "/");
		k = parent;
	}
	ret->rec = buf;
	ret->n = n;
}

static const struct mcg_record *snapshot_row(const void *rows, size_t i, long *parent,
					     const char **path)
{
	const struct mcg_sample_row *r = &((const struct mcg_sample_row *)rows)[i];

	*parent = r->parent;
	*path = r->path;
	return &r->rec;
}

void mcg_snapshot_lineage(const struct mcg_snapshot *s, size_t row, const struct mcg_record **buf,
			  size_t max, struct mcg_lineage *ret)
{
	mcg_lineage_of_rows(s->rows, s->n_rows, row, snapshot_row, buf, max, ret);
}

/* ---- reading a lineage ------------------------------------------------- */

void mcg_lineage_free(struct mcg_lineage_buf *b)
{
	free(b->recs);
	free(b->ptrs);
	memset(b, 0, sizeof(*b));
}

int mcg_group_effective_limit(const struct mcg_group *g, const struct mcg_record *self,
			      bool above, uint64_t *ret)
{
	static const enum mcg_key limit[] = {MCG_K_LIMIT};
	struct mcg_lineage_buf b;
	struct mcg_lineage l;
	int r = mcg_lineage_read(g, limit, MCG_ARRAY_SIZE(limit), &b);

	if (r < 0)
		return r;
	if (self)
		b.ptrs[0] = self; /* the record being read: every counter, not the limit alone */
	l = b.l;
	if (above) {
		l.rec++;
		l.n--;
	}
	r = l.n && mcg_field_effective_limit(g->ctx->version == 2 ? 2 : 1, &l, ret);
	mcg_lineage_free(&b);
	return r;
}

/* The single-value files of KEYS of the cgroup at PATH into R. */
static int read_one(struct mcg_ctx *ctx, const char *path, const enum mcg_key *keys, size_t nkeys,
		    struct mcg_record *r)
{
	struct mcg_group *g;
	size_t k;
	int ret = mcg_group_open(ctx, path, &g);

	if (ret < 0)
		return ret;
	for (k = 0; k < nkeys; k++) {
		const struct mcg_key_desc *d = mcg_key_desc(keys[k]);
		const char *file = mcg_knob_file(ctx->version, keys[k]);
		uint64_t v;

		if (!d || !file || d->key[ctx->version - 1])
			continue;
		if (mcg_knob_read_u64(g, file, &v) == 0)
			mcg_record_set(r, keys[k], v);
	}
	mcg_group_close(g);
	return 0;
}

int mcg_lineage_read(const struct mcg_group *g, const enum mcg_key *keys, size_t nkeys,
		     struct mcg_lineage_buf *ret)
{
	struct mcg_lineage_buf b = {0};
	char *path = strdup(g->path); /* any length: never a truncated, other cgroup's path */
	size_t depth = 1, i;
	const char *p;
	int r = 0;

	if (!path)
		return -ENOMEM;
	/* the root, and one per component */
	for (p = path; *p; p++)
		depth += *p == '/' && p[1];
	b.recs = calloc(depth, sizeof(*b.recs));
	b.ptrs = calloc(depth, sizeof(*b.ptrs));
	if (!b.recs || !b.ptrs) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < depth; i++) {
		char *slash;

		b.ptrs[i] = &b.recs[i];
		/* the root's values never count (it has no limits): its record stays empty, unread */
		if (!strcmp(path, "/"))
			break;
		r = read_one(g->ctx, path, keys, nkeys, &b.recs[i]);
		if (r < 0)
			goto out;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			strcpy(path, "/");
		else
			*slash = '\0';
	}
	b.l.rec = b.ptrs;
	b.l.n = i < depth ? i + 1 : depth;
	b.l.root = true;
	*ret = b;
	b.recs = NULL;
	b.ptrs = NULL;
out:
	free(path);
	mcg_lineage_free(&b);
	return r;
}
