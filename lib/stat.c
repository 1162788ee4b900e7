/* stat.c: memory.stat, memory.events and PSI parsing; v1 and v2 keys normalised to one set. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stat_desc {
	const char *name;   /* our name, also the v2 key */
	const char *v1_key; /* the v1 hierarchical key, NULL if v1 has none */
	bool bytes;
};

static const struct stat_desc stats[MCG_S__COUNT] = {
	[MCG_S_ANON] = {"anon", "total_rss", true},
	[MCG_S_FILE] = {"file", "total_cache", true},
	[MCG_S_KERNEL] = {"kernel", NULL, true},
	[MCG_S_SHMEM] = {"shmem", "total_shmem", true},
	[MCG_S_FILE_MAPPED] = {"file_mapped", "total_mapped_file", true},
	[MCG_S_FILE_DIRTY] = {"file_dirty", "total_dirty", true},
	[MCG_S_FILE_WRITEBACK] = {"file_writeback", "total_writeback", true},
	[MCG_S_ANON_THP] = {"anon_thp", "total_rss_huge", true},
	[MCG_S_INACTIVE_ANON] = {"inactive_anon", "total_inactive_anon", true},
	[MCG_S_ACTIVE_ANON] = {"active_anon", "total_active_anon", true},
	[MCG_S_INACTIVE_FILE] = {"inactive_file", "total_inactive_file", true},
	[MCG_S_ACTIVE_FILE] = {"active_file", "total_active_file", true},
	[MCG_S_UNEVICTABLE] = {"unevictable", "total_unevictable", true},
	[MCG_S_SLAB] = {"slab", NULL, true},
	[MCG_S_SLAB_RECLAIMABLE] = {"slab_reclaimable", NULL, true},
	[MCG_S_SWAP] = {"swap", "total_swap", true},
	[MCG_S_WORKINGSET_REFAULT_ANON] = {"workingset_refault_anon", "total_workingset_refault_anon",
					   false},
	[MCG_S_WORKINGSET_REFAULT_FILE] = {"workingset_refault_file", "total_workingset_refault_file",
					   false},
	[MCG_S_WORKINGSET_ACTIVATE_FILE] = {"workingset_activate_file",
					    "total_workingset_activate_file", false},
	[MCG_S_PGFAULT] = {"pgfault", "total_pgfault", false},
	[MCG_S_PGMAJFAULT] = {"pgmajfault", "total_pgmajfault", false},
	[MCG_S_PGPGIN] = {"pgpgin", "total_pgpgin", false},
	[MCG_S_PGPGOUT] = {"pgpgout", "total_pgpgout", false},
	[MCG_S_PGSCAN] = {"pgscan", NULL, false},
	[MCG_S_PGSTEAL] = {"pgsteal", NULL, false},
	[MCG_S_PGSCAN_KSWAPD] = {"pgscan_kswapd", NULL, false},
	[MCG_S_PGSCAN_DIRECT] = {"pgscan_direct", NULL, false},
	[MCG_S_PGSTEAL_KSWAPD] = {"pgsteal_kswapd", NULL, false},
	[MCG_S_PGSTEAL_DIRECT] = {"pgsteal_direct", NULL, false},
	[MCG_S_PGREFILL] = {"pgrefill", NULL, false},
};

const char *mcg_stat_name(enum mcg_stat_id id)
{
	return (unsigned)id < MCG_S__COUNT ? stats[id].name : NULL;
}

bool mcg_stat_is_bytes(enum mcg_stat_id id)
{
	return (unsigned)id < MCG_S__COUNT && stats[id].bytes;
}

/* v2 only: a key absent on v1 and present under "swap" in v2 is not a stat key. */
static int lookup(const char *key, int version, bool *local_v1)
{
	unsigned i;

	*local_v1 = false;
	for (i = 0; i < MCG_S__COUNT; i++) {
		if (version == 2) {
			if (i != MCG_S_SWAP && !strcmp(key, stats[i].name))
				return (int)i;
		} else if (stats[i].v1_key) {
			if (!strcmp(key, stats[i].v1_key))
				return (int)i;
			/* the local key is the v1 key without "total_" */
			if (!strcmp(key, stats[i].v1_key + 6)) {
				*local_v1 = true;
				return (int)i;
			}
		}
	}
	return -1;
}

void mcg_stat_release(struct mcg_stat *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n_raw; i++)
		free(st->raw[i].key);
	free(st->raw);
	st->raw = NULL;
	st->n_raw = 0;
}

int mcg_stat_parse(const char *text, int version, struct mcg_stat *ret)
{
	struct mcg_stat st = {0};
	uint64_t from_total = 0;
	size_t cap = 0;
	const char *line = text;

	if (version != 1 && version != 2)
		return -EINVAL;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char key[128];
		unsigned long long v;
		char fmt_line[256];
		int id;
		bool local;

		if (len > 0 && len < sizeof(fmt_line)) {
			memcpy(fmt_line, line, len);
			fmt_line[len] = '\0';
			if (sscanf(fmt_line, "%127s %llu", key, &v) == 2) {
				if (st.n_raw == cap) {
					struct mcg_kv *n = realloc(st.raw, (cap = cap ? cap * 2 : 64) *
										   sizeof(*n));

					if (!n)
						goto oom;
					st.raw = n;
				}
				st.raw[st.n_raw].key = strdup(key);
				if (!st.raw[st.n_raw].key)
					goto oom;
				st.raw[st.n_raw++].value = v;
				id = lookup(key, version, &local);
				/* v1: the hierarchical total_* wins over the local key */
				if (id >= 0 && !(local && ((from_total >> id) & 1))) {
					st.v[id] = v;
					st.valid |= 1ULL << id;
					if (version == 1 && !local)
						from_total |= 1ULL << id;
				}
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	*ret = st;
	return 0;
oom:
	mcg_stat_release(&st);
	return -ENOMEM;
}

int mcg_keyed_get(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == '\t')) {
			unsigned long long v;

			if (sscanf(p + klen, "%llu", &v) != 1)
				return -EINVAL;
			*ret = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

static int psi_line(const char *p, struct mcg_psi_line *l)
{
	unsigned long long total;

	if (sscanf(p, "avg10=%lf avg60=%lf avg300=%lf total=%llu", &l->avg10, &l->avg60,
		   &l->avg300, &total) != 4)
		return -EINVAL;
	l->total_us = total;
	return 0;
}

int mcg_psi_parse(const char *text, struct mcg_psi *ret)
{
	struct mcg_psi psi = {0};
	const char *p;

	p = strstr(text, "some ");
	if (p && psi_line(p + 5, &psi.some) == 0)
		psi.some_valid = true;
	p = strstr(text, "full ");
	if (p && psi_line(p + 5, &psi.full) == 0)
		psi.full_valid = true;
	if (!psi.some_valid && !psi.full_valid)
		return -EINVAL;
	*ret = psi;
	return 0;
}
