/* fields.c: the values derived from counters, each computed here once: the effective limit, the v2 writeback headroom, usage in percent, what holds the memory. */
#include "model/model.h"
#include <memcg/openmetrics.h>

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The rows of L below the root: the root has no limits and is not charged against. */
static size_t below_root(const struct mcg_lineage *l)
{
	return l->root && l->n > 0 ? l->n - 1 : l->n;
}

/* K of L's I-th cgroup, from its compact row or its record (DFLT when absent). */
static bool lin_has(const struct mcg_lineage *l, size_t i, enum mcg_key k)
{
	if (l->row && l->row[i])
		return mcg_sample_has(l->row[i], k);
	return mcg_record_has(l->rec[i], k);
}

static uint64_t lin_get(const struct mcg_lineage *l, size_t i, enum mcg_key k, uint64_t dflt)
{
	if (l->row && l->row[i])
		return mcg_sample_get(l->row[i], k, dflt);
	return mcg_record_get(l->rec[i], k, dflt);
}

bool mcg_field_effective_limit(int version, const struct mcg_lineage *l, uint64_t *ret)
{
	uint64_t eff = MCG_MAX;
	bool any = false;
	size_t i, n;

	if (!l->n)
		return false;
	/* v1: the kernel folds the ancestors into memory.stat itself */
	if (version == 1 && lin_has(l, 0, MCG_K_EFFECTIVE_LIMIT)) {
		*ret = lin_get(l, 0, MCG_K_EFFECTIVE_LIMIT, 0);
		return true;
	}
	n = below_root(l);
	for (i = 0; i < n; i++) {
		if (!lin_has(l, i, MCG_K_LIMIT))
			continue;
		any = true;
		eff = mcg__min_u64(eff, lin_get(l, i, MCG_K_LIMIT, 0));
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
		uint64_t max = lin_get(l, i, MCG_K_LIMIT, MCG_MAX);
		uint64_t high = lin_get(l, i, MCG_K_HIGH, MCG_MAX);
		uint64_t ceiling = mcg__min_u64(max, high);

		if (ceiling == MCG_MAX || !lin_has(l, i, MCG_K_USAGE))
			continue;
		headroom = mcg__min_u64(headroom, mcg__sat_sub(ceiling / page_size,
						     lin_get(l, i, MCG_K_USAGE, 0) / page_size));
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

bool mcg_field_working_set(const struct mcg_record *r, uint64_t *ret)
{
	if (!mcg_record_has(r, MCG_K_USAGE) || !mcg_record_has(r, MCG_K_INACTIVE_FILE))
		return false;
	*ret = mcg__sat_sub(r->v[MCG_K_USAGE], r->v[MCG_K_INACTIVE_FILE]);
	return true;
}

void mcg_field_working_set_keys(struct mcg_keyset *ks)
{
	mcg_keyset_add(ks, MCG_K_USAGE);
	mcg_keyset_add(ks, MCG_K_INACTIVE_FILE);
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
			 const struct mcg_record **recs, const struct mcg_sample_row **srows,
			 size_t max, struct mcg_lineage *ret)
{
	long k = (long)row;
	size_t n = 0;

	ret->root = false;
	while (k >= 0 && (size_t)k < n_rows && n < max) {
		const struct mcg_record *rec = NULL;
		const struct mcg_sample_row *sr = NULL;
		const char *path;
		long parent;

		fn(rows, (size_t)k, &parent, &path, &rec, &sr);
		if (recs)
			recs[n] = rec;
		if (srows)
			srows[n] = sr;
		n++;
		if (parent < 0)
			ret->root = !strcmp(path, "/");
		k = parent;
	}
	ret->rec = recs;
	ret->row = srows;
	ret->n = n;
}

void mcg_snapshot_lineage(const struct mcg_snapshot *s, size_t row,
			  const struct mcg_sample_row **buf, size_t max, struct mcg_lineage *ret)
{
	long k = (long)row;
	size_t n = 0;

	/* the parent indices: no row function, no record, a pointer per ancestor */
	ret->root = false;
	while (k >= 0 && (size_t)k < s->n_rows && n < max) {
		const struct mcg_sample_row *r = &s->rows[k];

		buf[n++] = r;
		if (r->parent < 0)
			ret->root = !strcmp(r->path, "/");
		k = r->parent;
	}
	ret->rec = NULL;
	ret->row = buf;
	ret->n = n;
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

/* ---- names ------------------------------------------------------------- */

/* A counter's JSON key: its base name and its unit's suffix (mcg_unit_suffix), at compile time. */
#define MCG__SFX_BYTES	""  "_bytes"
#define MCG__SFX_PAGES	""  "_pages"
#define MCG__SFX_US	""  "_us"
#define MCG__SFX_NS	""  "_ns"
#define MCG__SFX_EVENTS ""
#define MCG__SFX_NUMBER ""
static const char *const key_json[MCG_K__COUNT] = {
#define MCG__KEY_JSON(id, nm, u, k, f1, k1, f2, k2) [MCG_K_##id] = nm MCG__SFX_##u,
	MCG_SCHEMA(MCG__KEY_JSON)
#undef MCG__KEY_JSON
};

/*
 * The counters whose names are not the rule's, each with its reason
 * (memcgctl-json(7) NAMES): NULL keeps the rule's.
 */
static const struct {
	unsigned char k;
	const char *json, *header;
	uint64_t scale;
} key_except[] = {
	/* PSI totals in ns, as show's pressure.*.total_ns and export's _seconds_total */
	{MCG_K_PSI_SOME, "psi_some_total_ns", NULL, 1000},
	{MCG_K_PSI_FULL, "psi_full_total_ns", NULL, 1000},
	/* top's column is 6 wide: the short header is the only one */
	{MCG_K_WRITEBACK, NULL, "WBACK", 1},
	{MCG_K_NR_PROCS, NULL, "PROCS", 1},
	/* the total, in ns (dump -o): top's STALL is its rate (stall_ns_per_s) */
	{MCG_K_STALL, NULL, "STALL_NS", 1},
};

#define NAME_MAX_LEN 48
static struct mcg_value_names names[MCG_F__END];
static char key_header[MCG_K__COUNT][NAME_MAX_LEN], key_label[MCG_K__COUNT][NAME_MAX_LEN];
static char key_om[MCG_K__COUNT][NAME_MAX_LEN + 32];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

/* S without the unit suffix it ends with (_bytes, _pages, _us, _ns) into BUF */
static void strip_unit(const char *s, char *buf)
{
	static const char *const sfx[] = {"_bytes", "_pages", "_us", "_ns"};
	size_t n = strlen(s), i;

	if (n >= NAME_MAX_LEN)
		n = NAME_MAX_LEN - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (i = 0; i < MCG_ARRAY_SIZE(sfx); i++) {
		size_t m = strlen(sfx[i]);

		if (n > m && !strcmp(buf + n - m, sfx[i])) {
			buf[n - m] = '\0';
			return;
		}
	}
}

static void names_init(void)
{
	static const struct {
		const char *json, *header;
	} derived[] = {
#define MCG__FIELD_NAMES(id, json, header) {json, header},
		MCG_FIELDS(MCG__FIELD_NAMES)
#undef MCG__FIELD_NAMES
	};
	unsigned k, i;
	char *c;

	for (k = 0; k < MCG_K__COUNT; k++) {
		mcg_om_metric_name(k, key_om[k], sizeof(key_om[k]));
		names[k] = (struct mcg_value_names){key_json[k], NULL, NULL, key_om[k], 1};
		for (i = 0; i < MCG_ARRAY_SIZE(key_except); i++) {
			if (key_except[i].k != k)
				continue;
			if (key_except[i].json)
				names[k].json = key_except[i].json;
			if (key_except[i].header)
				names[k].header = key_except[i].header;
			names[k].scale = key_except[i].scale;
		}
		/* the label: the key without its unit; the header: the label in capitals */
		strip_unit(names[k].json, key_label[k]);
		names[k].label = key_label[k];
		if (!names[k].header) {
			strcpy(key_header[k], key_label[k]);
			for (c = key_header[k]; *c; c++)
				*c = (char)toupper((unsigned char)*c);
			names[k].header = key_header[k];
		}
	}
	for (i = 0; i < MCG_ARRAY_SIZE(derived); i++)
		names[MCG_K__COUNT + i] = (struct mcg_value_names){
			derived[i].json, derived[i].header, derived[i].json, NULL, 1};
	/* the derived values export has a family of (cli/cmd-export.c) */
	names[MCG_F_NEEDED].om = "memcgctl_needed_bytes";
}

const struct mcg_value_names *mcg_value_names(unsigned id)
{
	if (id >= MCG_F__END)
		return NULL;
	pthread_once(&names_once, names_init);
	return &names[id];
}

const char *mcg_json_key(unsigned id)
{
	const struct mcg_value_names *n = mcg_value_names(id);

	return n ? n->json : "";
}

const char *mcg_header(unsigned id)
{
	const struct mcg_value_names *n = mcg_value_names(id);

	return n ? n->header : "";
}
