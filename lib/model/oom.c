/* oom.c: the autopsy of an OOM kill: the kernel's report joined with the cgroup's record, the sentence, the history event (pure). */
#include "model/model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mcg_oom_breakdown_name(int b)
{
	return b == MCG_OOM_BD_KERNEL ? "kernel" : b == MCG_OOM_BD_SAMPLE ? "sample" : "none";
}

const char *mcg_oom_scope_name(int scope)
{
	return scope == MCG_OOM_SCOPE_MEMCG ? "memcg" : scope == MCG_OOM_SCOPE_GLOBAL ? "global"
										       : "unknown";
}

/*
 * The kernel prints an unlimited page counter as PAGE_COUNTER_MAX pages in
 * kB: 9007199254740988kB on 64-bit with 4 KiB pages (seen here). Anything
 * from 2^52 kB on is no limit.
 */
#define KB_UNLIMITED (1ULL << 52)

static uint64_t kb(uint64_t v)
{
	return v >= KB_UNLIMITED ? MCG_MAX : v * 1024;
}

static const char *const limit_names[] = {
	"memory.max", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.swap.max",
};

/* The kernel's counters and memory.stat dump into R (they are of the OOM cgroup). */
static bool kernel_breakdown(const struct mcg_oom_kill *k, int version, struct mcg_record *r)
{
	bool any = false;

	if (k->stat_len && mcg_record_parse(r, version, "memory.stat", k->stat) == 0)
		any = true;
	if (k->mem.valid) {
		mcg_record_set(r, MCG_K_USAGE, k->mem.usage_kb * 1024);
		mcg_record_set(r, MCG_K_LIMIT, kb(k->mem.limit_kb));
		if (version == 1)
			mcg_record_set(r, MCG_K_FAILCNT, k->mem.failcnt);
		any = true;
	}
	if (version == 2 && k->swap.valid) {
		mcg_record_set(r, MCG_K_SWAP_USAGE, k->swap.usage_kb * 1024);
		mcg_record_set(r, MCG_K_SWAP_LIMIT, kb(k->swap.limit_kb));
	}
	if (version == 1 && k->memsw.valid) {
		mcg_record_set(r, MCG_K_MEMSW_USAGE, k->memsw.usage_kb * 1024);
		mcg_record_set(r, MCG_K_MEMSW_LIMIT, kb(k->memsw.limit_kb));
	}
	if (version == 1 && k->kmem.valid) {
		mcg_record_set(r, MCG_K_KMEM_USAGE, k->kmem.usage_kb * 1024);
		mcg_record_set(r, MCG_K_KERNEL, k->kmem.usage_kb * 1024);
	}
	return any;
}

void mcg_oom_autopsy_build(const struct mcg_oom_kill *k, int version,
			   const struct mcg_record *sample, uint64_t age_us, uint64_t boot_ns,
			   struct mcg_oom_autopsy *ret)
{
	struct mcg_oom_autopsy *a = ret;
	struct mcg_record *r = &a->rec;
	bool same_stat;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->time_ns = boot_ns + k->usec * 1000ULL;
	a->kmsg_seq = k->seq;
	a->scope = k->scope;
	if (k->has_summary && k->global_oom)
		a->scope = MCG_OOM_SCOPE_GLOBAL;
	else if (k->has_summary && !strcmp(k->constraint, "CONSTRAINT_MEMCG"))
		a->scope = MCG_OOM_SCOPE_MEMCG;
	snprintf(a->oom_cgroup, sizeof(a->oom_cgroup), "%s", k->oom_memcg);
	if (a->scope == MCG_OOM_SCOPE_GLOBAL && !a->oom_cgroup[0])
		snprintf(a->oom_cgroup, sizeof(a->oom_cgroup), "/");
	snprintf(a->victim_cgroup, sizeof(a->victim_cgroup), "%s", k->task_memcg);
	if (a->victim_cgroup[0] && mcg_unit_from_path(a->victim_cgroup, a->unit, sizeof(a->unit)) < 0)
		a->unit[0] = '\0';
	a->pid = k->pid;
	a->uid = k->uid;
	snprintf(a->comm, sizeof(a->comm), "%s", k->comm);
	a->anon_rss = k->anon_rss_kb * 1024;
	a->file_rss = k->file_rss_kb * 1024;
	a->shmem_rss = k->shmem_rss_kb * 1024;
	a->total_vm = k->total_vm_kb * 1024;
	a->pgtables = k->pgtables_kb * 1024;
	a->oom_score_adj = k->oom_score_adj;
	a->limit = a->swap_limit = MCG_MAX;
	for (i = 0; i < k->ntasks && i < MCG_OOM_TASKS; i++) {
		a->procs[i].pid = k->tasks[i].pid;
		a->procs[i].uid = k->tasks[i].uid;
		a->procs[i].rss = k->tasks[i].rss * (uint64_t)mcg_page_size();
		snprintf(a->procs[i].name, sizeof(a->procs[i].name), "%s", k->tasks[i].name);
	}
	a->nprocs = i;
	if (sample) {
		*r = *sample;
		a->breakdown = MCG_OOM_BD_SAMPLE;
		a->age_us = age_us;
	}
	/* the kernel's dump is of the OOM cgroup at the kill: it wins over any sample */
	same_stat = !k->stat_memcg[0] || !a->oom_cgroup[0] || !strcmp(k->stat_memcg, a->oom_cgroup);
	if (a->scope == MCG_OOM_SCOPE_MEMCG && same_stat && kernel_breakdown(k, version, r)) {
		a->breakdown = MCG_OOM_BD_KERNEL;
		a->age_us = 0;
	}
	if (a->breakdown != MCG_OOM_BD_NONE) {
		a->usage = mcg_record_get(r, MCG_K_USAGE, 0);
		a->limit = mcg_record_get(r, MCG_K_LIMIT, MCG_MAX);
		a->limit_name = limit_names[version == 1 ? 1 : 0];
		if (version == 1) {
			uint64_t ml = mcg_record_get(r, MCG_K_MEMSW_LIMIT, MCG_MAX);
			uint64_t mu = mcg_record_get(r, MCG_K_MEMSW_USAGE, 0);

			a->swap_limit = ml == MCG_MAX || a->limit == MCG_MAX || ml < a->limit
						? ml
						: ml - a->limit;
			/* memory+swap at its limit first: that is the one that was hit */
			if (ml != MCG_MAX && (a->limit == MCG_MAX || ml <= a->limit || mu + 65536 >= ml)) {
				a->limit = ml;
				a->usage = mu;
				a->limit_name = limit_names[2];
			}
		} else {
			a->swap_limit = mcg_record_get(r, MCG_K_SWAP_LIMIT, MCG_MAX);
		}
	}
	mcg_oom_explain(a, version);
}

static size_t appendf(char *buf, size_t len, size_t o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t len, size_t o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o >= len)
		return o;
	va_start(ap, fmt);
	n = vsnprintf(buf + o, len - o, fmt, ap);
	va_end(ap);
	if (n < 0)
		return o;
	return o + (size_t)n >= len ? len - 1 : o + (size_t)n;
}

/* page cache below this is "nothing left": a few MiB the kernel keeps for the running code */
#define CACHE_LITTLE (8ULL << 20)

void mcg_oom_explain(struct mcg_oom_autopsy *a, int version)
{
	const struct mcg_record *r = &a->rec;
	char s1[32], s2[32], s3[32];
	size_t o = 0, len = sizeof(a->why);
	char *w = a->why;
	uint64_t anon, file, kern, shmem, swap;
	bool first = true;

	w[0] = '\0';
	if (a->scope == MCG_OOM_SCOPE_GLOBAL) {
		o = appendf(w, len, o, "the machine ran out of memory, not a cgroup limit");
		if (a->victim_cgroup[0])
			o = appendf(w, len, o, "; the kernel chose %s in %s", a->comm, a->victim_cgroup);
		o = appendf(w, len, o, " (anon-rss %s)", mcg_size_format(a->anon_rss, s1, sizeof(s1)));
		return;
	}
	if (a->breakdown == MCG_OOM_BD_NONE) {
		o = appendf(w, len, o,
			    "no breakdown: the kernel printed no report for this kill (rate limited) "
			    "and the cgroup was not read before it");
		o = appendf(w, len, o, "; the victim held anon-rss %s",
			    mcg_size_format(a->anon_rss, s1, sizeof(s1)));
		return;
	}
	anon = mcg_record_get(r, MCG_K_ANON, 0);
	file = mcg_record_get(r, MCG_K_FILE, 0);
	kern = mcg_record_get(r, MCG_K_KERNEL, 0);
	shmem = mcg_record_get(r, MCG_K_SHMEM, 0);
	if (mcg_record_has(r, MCG_K_ANON)) {
		o = appendf(w, len, o, "anon %s", mcg_size_format(anon, s1, sizeof(s1)));
		first = false;
	}
	if (mcg_record_has(r, MCG_K_KERNEL) && kern) {
		o = appendf(w, len, o, "%skernel %s", first ? "" : " + ",
			    mcg_size_format(kern, s1, sizeof(s1)));
		first = false;
	}
	if (shmem) {
		o = appendf(w, len, o, "%sshmem %s", first ? "" : " + ",
			    mcg_size_format(shmem, s1, sizeof(s1)));
		first = false;
	}
	if (first)
		o = appendf(w, len, o, "usage %s", mcg_size_format(a->usage, s1, sizeof(s1)));
	if (a->limit != MCG_MAX) {
		uint64_t gap = a->limit > a->usage ? a->limit - a->usage : 0;

		o = appendf(w, len, o, " reached %s %s", a->limit_name ? a->limit_name : "the limit",
			    mcg_size_format(a->limit, s2, sizeof(s2)));
		if (gap > 65536)
			o = appendf(w, len, o, " (%s below it when read)",
				    mcg_size_format(gap, s3, sizeof(s3)));
	} else {
		o = appendf(w, len, o, " in a cgroup with no limit of its own (an ancestor's was hit)");
	}
	swap = version == 1 ? mcg_record_get(r, MCG_K_SWAP, 0)
			    : mcg_record_get(r, MCG_K_SWAP_USAGE, 0);
	if (a->swap_limit == 0)
		o = appendf(w, len, o, "; no swap allowed");
	else if (swap)
		o = appendf(w, len, o, "; swap %s in use", mcg_size_format(swap, s1, sizeof(s1)));
	else
		o = appendf(w, len, o, "; no swap used");
	if (mcg_record_has(r, MCG_K_FILE)) {
		uint64_t rec = mcg_reclaimable_from_record(r, false);

		if (file <= CACHE_LITTLE || rec <= CACHE_LITTLE)
			o = appendf(w, len, o, "; page cache was already %s: nothing left to reclaim",
				    mcg_size_format(file, s1, sizeof(s1)));
		else
			o = appendf(w, len, o,
				    "; page cache %s (%s of it reclaimable) was not freed in time",
				    mcg_size_format(file, s1, sizeof(s1)),
				    mcg_size_format(rec, s2, sizeof(s2)));
	}
	if (a->breakdown == MCG_OOM_BD_SAMPLE)
		o = appendf(w, len, o, " (read %llu ms before the kill)",
			    (unsigned long long)(a->age_us / 1000));
	if (a->has_growth) {
		uint64_t mag = a->growth_bps < 0 ? (uint64_t)-(a->growth_bps + 1) + 1
						 : (uint64_t)a->growth_bps;
		char win[32];

		/* whole seconds from 10 s on, tenths below (at least 0.1 s: 1 ms counts) */
		if (a->growth_us >= 10000000)
			snprintf(win, sizeof(win), "%llu s", (unsigned long long)(a->growth_us / 1000000));
		else
			snprintf(win, sizeof(win), "%llu.%llu s",
				 (unsigned long long)(a->growth_us / 1000000),
				 (unsigned long long)(a->growth_us / 100000 % 10 +
						      (a->growth_us < 100000)));
		if (!a->growth_bps)
			o = appendf(w, len, o, "; usage did not grow over the last %s", win);
		else
			o = appendf(w, len, o, "; usage %s %s/s over the last %s",
				    a->growth_bps > 0 ? "grew" : "fell", mcg_size_format(mag, s1, sizeof(s1)),
				    win);
	}
}

void mcg_oom_autopsy_growth(struct mcg_oom_autopsy *a, int version, const struct mcg_oom_point *p,
			    size_t n, uint64_t kill_ns)
{
	uint64_t end_ns = 0, end_usage = 0, start_ns = 0, start_usage = 0, dt;
	bool have_end = false, have_start = false;
	__int128 d;
	size_t i;

	a->has_growth = false;
	a->growth_bps = 0;
	a->growth_us = 0;
	if (a->breakdown == MCG_OOM_BD_KERNEL && mcg_record_has(&a->rec, MCG_K_USAGE)) {
		/* the kernel's counters are of the moment of the kill */
		end_ns = kill_ns;
		end_usage = a->rec.v[MCG_K_USAGE];
		have_end = true;
	} else {
		for (i = 0; i < n; i++)
			if (p[i].ns <= kill_ns && kill_ns - p[i].ns <= MCG_OOM_GROWTH_WINDOW_NS &&
			    (!have_end || p[i].ns > end_ns)) {
				end_ns = p[i].ns;
				end_usage = p[i].usage;
				have_end = true;
			}
	}
	if (!have_end)
		goto out;
	for (i = 0; i < n; i++) {
		if (p[i].ns + 1000000 > end_ns || end_ns - p[i].ns > MCG_OOM_GROWTH_WINDOW_NS)
			continue;
		if (!have_start || p[i].ns < start_ns) {
			start_ns = p[i].ns;
			start_usage = p[i].usage;
			have_start = true;
		}
	}
	if (!have_start)
		goto out;
	dt = end_ns - start_ns;
	d = ((__int128)end_usage - (__int128)start_usage) * 1000000000 / (__int128)dt;
	a->growth_bps = d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
	a->growth_us = dt / 1000;
	a->has_growth = true;
out:
	mcg_oom_explain(a, version);
}

/* ---- the history event ---- */

struct out {
	char *buf;
	size_t len, o;
	bool full;
};

static void put(struct out *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->o, b->len - b->o, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->o) {
		b->full = true;
		return;
	}
	b->o += (size_t)n;
}

static void put_str(struct out *b, const char *key, const char *s)
{
	char enc[4 * MCG_OOM_PATH_MAX];

	if (!s || !*s)
		put(b, " %s=-", key);
	else if (!mcg__field_encode(s, enc, sizeof(enc)))
		b->full = true;
	else
		put(b, " %s=%s", key, enc);
}

/* the string starts the next field of the event's text in BUF */
static const char *dup_in(struct out *b, const char *s)
{
	const char *d = b->buf + b->o;
	size_t l = strlen(s) + 1;

	if (b->full || l > b->len - b->o) {
		b->full = true;
		return NULL;
	}
	memcpy(b->buf + b->o, s, l);
	b->o += l;
	return d;
}

static bool num(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

static bool str(const char *s, size_t n, char *dst, size_t cap)
{
	if (n == 1 && s[0] == '-') {
		dst[0] = '\0';
		return true;
	}
	return mcg__field_decode(s, n, dst, cap);
}

/*
 * The detail text of a stored autopsy or warning: "v1 KEY=VALUE ...", as the
 * *_to_event functions write it. detail_next gives the next pair (1: *key, *kl,
 * *eq at its '=', *vl), 0 at the end, -MCG_E_CORRUPT for what memcgctl does not
 * write (no "v1" first, a token without a key).
 */
struct detail_iter {
	const char *p, *end;
	bool seen_v;
};

static int detail_next(struct detail_iter *it, const char **key, size_t *kl, const char **eq,
		       size_t *vl)
{
	while (it->p < it->end) {
		const char *t = it->p, *e = memchr(t, ' ', (size_t)(it->end - t)), *q;

		if (!e)
			e = it->end;
		it->p = e + 1;
		if (!it->seen_v) {
			if (e - t != 2 || memcmp(t, "v1", 2))
				return -MCG_E_CORRUPT;
			it->seen_v = true;
			continue;
		}
		q = memchr(t, '=', (size_t)(e - t));
		if (!q || q == t)
			return -MCG_E_CORRUPT;
		*key = t;
		*kl = (size_t)(q - t);
		*eq = q;
		*vl = (size_t)(e - q - 1);
		return 1;
	}
	return 0;
}

/*
 * The keys of a stored event's detail, one table an event type: which field
 * of the struct each names and how its value is written. detail_put writes
 * them in the table's order; detail_parse reads them in any order (a later
 * key wins; a key not in the table, a later version's, is skipped). Each key
 * is named once.
 */
enum detail_kind {
	DK_U64,        /* uint64_t, decimal */
	DK_U64_LIMIT,  /* the same, left out when MCG_MAX (the decoder's default) */
	DK_S64,        /* int64_t, decimal, '-' first when negative */
	DK_ADJ,        /* int, an oom_score_adj: -1000 to 1000 */
	DK_STR,        /* char[size], mcg__field_encode'd, "-" when empty */
	DK_LIMIT_NAME, /* const char *, one of limit_names (static), as DK_STR */
	DK_BD,         /* int, enum mcg_oom_breakdown by its name */
	DK_REC,        /* struct mcg_record: KEY (a prefix) COUNTER=N for each valid counter */
	DK_PROCS,      /* struct mcg_oom_autopsy's procs: p=PID,UID,RSS,NAME each */
};

#define DK_ALWAYS SIZE_MAX
struct detail_key {
	const char *key;
	enum detail_kind kind;
	size_t off, size;
	size_t flag; /* a bool's offset: written only when true, set when read; or DK_ALWAYS */
};
#define DKEY(T, key, kind, m) {key, kind, offsetof(T, m), sizeof(((T *)0)->m), DK_ALWAYS}
#define DKEY_IF(T, key, kind, m, f)                                                                \
	{key, kind, offsetof(T, m), sizeof(((T *)0)->m), offsetof(T, f)}

/* a process: p=PID,UID,RSS,NAME (NAME escaped; UID -1 unknown) */
static void procs_put(struct out *b, const char *key, const struct mcg_oom_autopsy *a)
{
	size_t i;

	for (i = 0; i < a->nprocs && i < MCG_OOM_TASKS; i++) {
		char enc[4 * MCG_OOM_COMM_MAX];

		if (!a->procs[i].name[0])
			snprintf(enc, sizeof(enc), "-");
		else if (!mcg__field_encode(a->procs[i].name, enc, sizeof(enc))) {
			b->full = true;
			return;
		}
		put(b, " %s=%lld,%lld,%llu,%s", key, (long long)a->procs[i].pid,
		    (long long)a->procs[i].uid, (unsigned long long)a->procs[i].rss, enc);
	}
}

/*
 * EV's detail: "v1" and KEYS of OBJ at the start of B's buffer, and its NUL;
 * false when that buffer is too small.
 */
static bool detail_put(struct out *b, struct mcg_hist_event *ev, const struct detail_key *keys,
		       size_t n, const void *obj)
{
	const char *base = obj;
	size_t i;

	put(b, "v1");
	for (i = 0; i < n; i++) {
		const struct detail_key *d = &keys[i];
		const void *f = base + d->off;
		unsigned k;

		if (d->flag != DK_ALWAYS && !*(const bool *)(const void *)(base + d->flag))
			continue;
		switch (d->kind) {
		case DK_U64:
		case DK_U64_LIMIT:
			if (d->kind == DK_U64_LIMIT && *(const uint64_t *)f == MCG_MAX)
				break;
			put(b, " %s=%llu", d->key, (unsigned long long)*(const uint64_t *)f);
			break;
		case DK_S64:
			put(b, " %s=%lld", d->key, (long long)*(const int64_t *)f);
			break;
		case DK_ADJ:
			put(b, " %s=%d", d->key, *(const int *)f);
			break;
		case DK_STR:
			put_str(b, d->key, f);
			break;
		case DK_LIMIT_NAME:
			put_str(b, d->key, *(const char *const *)f);
			break;
		case DK_BD:
			put(b, " %s=%s", d->key, mcg_oom_breakdown_name(*(const int *)f));
			break;
		case DK_REC:
			mcg_keyset_foreach(k, &((const struct mcg_record *)f)->valid)
				put(b, " %s%s=%llu", d->key, mcg_key_name((enum mcg_key)k),
				    (unsigned long long)((const struct mcg_record *)f)->v[k]);
			break;
		case DK_PROCS:
			procs_put(b, d->key, obj);
			break;
		}
	}
	if (b->full)
		return false;
	b->o++; /* the NUL */
	ev->detail = b->buf;
	return true;
}

/* EV cleared for an event of TYPE at TIME_NS, when there is room (LEN) for its text */
static int event_start(struct mcg_hist_event *ev, int type, uint64_t time_ns, size_t len)
{
	if (!len)
		return -ENOSPC;
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->time_ns = time_ns;
	return 0;
}

/* a signed number no larger than MAX either way */
static bool snum(const char *s, size_t n, uint64_t max, int64_t *ret)
{
	bool neg = n && s[0] == '-';
	uint64_t v;

	if (!num(s + neg, n - neg, &v) || v > max)
		return false;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static bool proc_parse(const char *s, size_t n, struct mcg_oom_autopsy *a)
{
	struct mcg_oom_proc pr = {0};
	const char *f[4], *q = s, *e = s + n;
	size_t fl[4], j;
	uint64_t u;

	for (j = 0; j < 4; j++) {
		const char *c = j < 3 ? memchr(q, ',', (size_t)(e - q)) : e;

		if (!c)
			return false;
		f[j] = q;
		fl[j] = (size_t)(c - q);
		q = c + 1;
	}
	if (!num(f[0], fl[0], &u) || u > INT32_MAX)
		return false;
	pr.pid = (int64_t)u;
	if (fl[1] == 2 && !memcmp(f[1], "-1", 2))
		pr.uid = -1;
	else if (!num(f[1], fl[1], &u) || u > UINT32_MAX)
		return false;
	else
		pr.uid = (int64_t)u;
	if (!num(f[2], fl[2], &pr.rss) || !str(f[3], fl[3], pr.name, sizeof(pr.name)))
		return false;
	if (a->nprocs < MCG_OOM_TASKS)
		a->procs[a->nprocs++] = pr;
	return true;
}

/* one value S (N bytes) of D into OBJ; false: not what the encoder writes */
static bool detail_value(const struct detail_key *d, const char *name, size_t nl, const char *s,
			 size_t n, void *obj)
{
	char *f = (char *)obj + d->off, tmp[64];
	uint64_t v;
	int64_t sv;
	size_t i;

	switch (d->kind) {
	case DK_U64:
	case DK_U64_LIMIT:
		if (!num(s, n, &v))
			return false;
		*(uint64_t *)(void *)f = v;
		break;
	case DK_S64:
		if (!snum(s, n, INT64_MAX, &sv))
			return false;
		*(int64_t *)(void *)f = sv;
		break;
	case DK_ADJ:
		if (!snum(s, n, 1000, &sv))
			return false;
		*(int *)(void *)f = (int)sv;
		break;
	case DK_STR:
		return str(s, n, f, d->size);
	case DK_LIMIT_NAME:
		if (!str(s, n, tmp, sizeof(tmp)))
			return false;
		/* only the names memcgctl writes: the pointer is static */
		for (i = 0; i < MCG_ARRAY_SIZE(limit_names); i++)
			if (!strcmp(tmp, limit_names[i]))
				*(const char **)(void *)f = limit_names[i];
		break;
	case DK_BD:
		if (!str(s, n, tmp, sizeof(tmp)))
			return false;
		*(int *)(void *)f = !strcmp(tmp, "kernel")   ? MCG_OOM_BD_KERNEL
				    : !strcmp(tmp, "sample") ? MCG_OOM_BD_SAMPLE
							     : MCG_OOM_BD_NONE;
		break;
	case DK_REC: {
		int key;

		if (nl >= sizeof(tmp) || !num(s, n, &v))
			return false;
		memcpy(tmp, name, nl);
		tmp[nl] = '\0';
		/* a counter this build does not know (a newer table) is skipped */
		key = mcg_key_lookup(tmp);
		if (key >= 0)
			mcg_record_set((struct mcg_record *)(void *)f, (enum mcg_key)key, v);
		break;
	}
	case DK_PROCS:
		return proc_parse(s, n, obj);
	}
	return true;
}

/* DETAIL into OBJ (its defaults already set) by KEYS; -MCG_E_CORRUPT for what the encoder does not write */
static int detail_parse(const char *detail, const struct detail_key *keys, size_t n, void *obj)
{
	struct detail_iter it = {.p = detail, .end = detail + strlen(detail)};
	const char *t, *eq;
	size_t kl, vl, i;
	int r;

	while ((r = detail_next(&it, &t, &kl, &eq, &vl)) > 0) {
		for (i = 0; i < n; i++) {
			const struct detail_key *d = &keys[i];
			size_t l = strlen(d->key);

			if (d->kind == DK_REC ? kl > l && !memcmp(t, d->key, l)
					      : kl == l && !memcmp(t, d->key, l))
				break;
		}
		if (i == n)
			continue; /* a later version's key, skipped */
		if (!detail_value(&keys[i], t + strlen(keys[i].key), kl - strlen(keys[i].key), eq + 1,
				  vl, obj))
			return -MCG_E_CORRUPT;
		if (keys[i].flag != DK_ALWAYS)
			*(bool *)(void *)((char *)obj + keys[i].flag) = true;
	}
	if (r < 0 || !it.seen_v)
		return -MCG_E_CORRUPT;
	return 0;
}

/* each event's keys, in the order its encoder writes them */
#define AKEY(key, kind, m) DKEY(struct mcg_oom_autopsy, key, kind, m)
#define WKEY(key, kind, m) DKEY(struct mcg_oom_warning, key, kind, m)
static const struct detail_key autopsy_keys[] = {
	AKEY("seq", DK_U64, kmsg_seq),
	AKEY("bd", DK_BD, breakdown),
	AKEY("age_us", DK_U64, age_us),
	AKEY("oom", DK_STR, oom_cgroup),
	AKEY("victim", DK_STR, victim_cgroup),
	AKEY("unit", DK_STR, unit),
	AKEY("anon_rss", DK_U64, anon_rss),
	AKEY("file_rss", DK_U64, file_rss),
	AKEY("shmem_rss", DK_U64, shmem_rss),
	AKEY("total_vm", DK_U64, total_vm),
	AKEY("pgtables", DK_U64, pgtables),
	AKEY("adj", DK_ADJ, oom_score_adj),
	AKEY("limit_name", DK_LIMIT_NAME, limit_name),
	AKEY("limit", DK_U64_LIMIT, limit),
	AKEY("swap_limit", DK_U64_LIMIT, swap_limit),
	AKEY("usage", DK_U64, usage),
	DKEY_IF(struct mcg_oom_autopsy, "growth_bps", DK_S64, growth_bps, has_growth),
	DKEY_IF(struct mcg_oom_autopsy, "growth_us", DK_U64, growth_us, has_growth),
	AKEY("r.", DK_REC, rec),
	AKEY("p", DK_PROCS, procs),
	AKEY("why", DK_STR, why),
}, warning_keys[] = {
	WKEY("usage", DK_U64, usage),
	WKEY("limit", DK_U64, limit),
	WKEY("reclaimable", DK_U64, reclaimable),
	WKEY("interval_us", DK_U64, interval_us),
	DKEY_IF(struct mcg_oom_warning, "psi_full_us", DK_U64, psi_full_us, has_psi_full),
	WKEY("limit_name", DK_LIMIT_NAME, limit_name),
	WKEY("unit", DK_STR, unit),
	WKEY("why", DK_STR, why),
};
#undef AKEY
#undef WKEY

int mcg_oom_autopsy_to_event(const struct mcg_oom_autopsy *a, struct mcg_hist_event *ev,
			     char *buf, size_t len)
{
	struct out b = {buf, len, 0, false};

	if (event_start(ev, MCG_HEV_OOM_AUTOPSY, a->time_ns, len) < 0)
		return -ENOSPC;
	ev->pid = a->pid > 0 ? a->pid : -1;
	ev->uid = a->uid;
	ev->loginuid = -1;
	ev->count = a->anon_rss + a->file_rss + a->shmem_rss;
	if (!detail_put(&b, ev, autopsy_keys, MCG_ARRAY_SIZE(autopsy_keys), a))
		return -ENOSPC;
	ev->op = dup_in(&b, mcg_oom_scope_name(a->scope));
	ev->comm = a->comm[0] ? dup_in(&b, a->comm) : NULL;
	ev->cgroup = dup_in(&b, a->victim_cgroup[0] ? a->victim_cgroup
				: a->oom_cgroup[0]     ? a->oom_cgroup
						       : "/");
	return b.full ? -ENOSPC : 0;
}

int mcg_oom_autopsy_from_event(const struct mcg_hist_event *ev, struct mcg_oom_autopsy *ret)
{
	struct mcg_oom_autopsy a;
	int r;

	if (!ev || ev->type != MCG_HEV_OOM_AUTOPSY || !ev->detail)
		return -MCG_E_CORRUPT;
	memset(&a, 0, sizeof(a));
	a.limit = a.swap_limit = MCG_MAX;
	a.time_ns = ev->time_ns;
	a.pid = ev->pid;
	a.uid = ev->uid;
	if (ev->comm)
		snprintf(a.comm, sizeof(a.comm), "%s", ev->comm);
	a.scope = ev->op && !strcmp(ev->op, "memcg")    ? MCG_OOM_SCOPE_MEMCG
		  : ev->op && !strcmp(ev->op, "global") ? MCG_OOM_SCOPE_GLOBAL
							: MCG_OOM_SCOPE_UNKNOWN;
	r = detail_parse(ev->detail, autopsy_keys, MCG_ARRAY_SIZE(autopsy_keys), &a);
	if (r < 0)
		return r;
	*ret = a;
	return 0;
}

/* ---- the early warning ---- */

uint64_t mcg_oom_warn_margin(uint64_t limit)
{
	uint64_t m = limit / 32;

	if (m < 512 * 1024)
		m = 512 * 1024;
	if (m > limit / 4)
		m = limit / 4;
	return m;
}

static uint64_t rise(const struct mcg_record *prev, const struct mcg_record *cur, enum mcg_key k)
{
	if (!prev || !mcg_record_has(prev, k) || !mcg_record_has(cur, k) || cur->v[k] < prev->v[k])
		return 0;
	return cur->v[k] - prev->v[k];
}

bool mcg_oom_warn_eval(const struct mcg_record *prev, const struct mcg_record *cur,
		       uint64_t interval_us, int version, bool swap_free, struct mcg_oom_warning *ret)
{
	struct mcg_oom_warning wn;
	uint64_t limit, usage, margin, little, up;
	bool swap;
	char s1[32], s2[32], s3[32];
	size_t o = 0;

	if (!cur || !mcg_record_has(cur, MCG_K_USAGE))
		return false;
	memset(&wn, 0, sizeof(wn));
	limit = mcg_record_get(cur, MCG_K_LIMIT, MCG_MAX);
	usage = cur->v[MCG_K_USAGE];
	wn.limit_name = limit_names[version == 1 ? 1 : 0];
	if (version == 1) {
		uint64_t ml = mcg_record_get(cur, MCG_K_MEMSW_LIMIT, MCG_MAX);

		/* memory+swap at or below the memory limit: that is the one hit */
		if (ml != MCG_MAX && ml <= limit && mcg_record_has(cur, MCG_K_MEMSW_USAGE)) {
			limit = ml;
			usage = cur->v[MCG_K_MEMSW_USAGE];
			wn.limit_name = limit_names[2];
		}
		/* the cgroup may swap where its memsw limit leaves room (or there is none) */
		swap = swap_free && (ml == MCG_MAX || ml > limit + mcg_oom_warn_margin(limit));
	} else {
		uint64_t sl = mcg_record_get(cur, MCG_K_SWAP_LIMIT, MCG_MAX);

		swap = swap_free && sl > mcg_record_get(cur, MCG_K_SWAP_USAGE, 0);
	}
	if (limit == MCG_MAX || !limit)
		return false;
	margin = mcg_oom_warn_margin(limit);
	if (usage + margin < limit)
		return false;
	/* the kernel failing charges at the limit, between the two reads */
	if (version == 1 && mcg_record_get(cur, MCG_K_UNDER_OOM, 0)) {
		wn.signal = "under_oom";
	} else if (version == 1 && (up = rise(prev, cur, MCG_K_FAILCNT))) {
		wn.signal = "failcnt";
		wn.events = up;
	} else if (version == 2 && (up = rise(prev, cur, MCG_K_EV_MAX))) {
		wn.signal = "max";
		wn.events = up;
	} else if (version == 2 && (up = rise(prev, cur, MCG_K_EV_HIGH))) {
		wn.signal = "high";
		wn.events = up;
	} else {
		return false;
	}
	/* and nothing left for reclaim to take: page cache (and anon, with swap) this small */
	if (!mcg_record_has(cur, MCG_K_FILE))
		return false;
	little = limit / 8 < CACHE_LITTLE ? limit / 8 : CACHE_LITTLE;
	wn.reclaimable = mcg_reclaimable_from_record(cur, swap);
	if (wn.reclaimable > little)
		return false;
	wn.usage = usage;
	wn.limit = limit;
	wn.interval_us = prev ? interval_us : 0;
	if (prev && mcg_record_has(prev, MCG_K_PSI_FULL) && mcg_record_has(cur, MCG_K_PSI_FULL)) {
		wn.has_psi_full = true;
		wn.psi_full_us = rise(prev, cur, MCG_K_PSI_FULL);
	}
	o = appendf(wn.why, sizeof(wn.why), o, "usage %s at %s %s", mcg_size_format(usage, s1, sizeof(s1)),
		    wn.limit_name, mcg_size_format(limit, s2, sizeof(s2)));
	if (wn.events)
		o = appendf(wn.why, sizeof(wn.why), o, "; %s +%llu in %llu ms", wn.signal,
			    (unsigned long long)wn.events, (unsigned long long)(interval_us / 1000));
	else
		o = appendf(wn.why, sizeof(wn.why), o, "; under_oom: the OOM killer is waited for");
	o = appendf(wn.why, sizeof(wn.why), o, "; only %s reclaimable%s",
		    mcg_size_format(wn.reclaimable, s3, sizeof(s3)), swap ? "" : " (no swap)");
	if (wn.has_psi_full && wn.psi_full_us)
		o = appendf(wn.why, sizeof(wn.why), o, "; its tasks stalled %llu ms (psi full)",
			    (unsigned long long)(wn.psi_full_us / 1000));
	appendf(wn.why, sizeof(wn.why), o, ": an OOM kill is near");
	*ret = wn;
	return true;
}

/* ---- the early warning as a history event ---- */

static const char *const signal_names[] = {"failcnt", "max", "high", "under_oom"};

int mcg_oom_warning_to_event(const struct mcg_oom_warning *wn, struct mcg_hist_event *ev,
			     char *buf, size_t len)
{
	struct out b = {buf, len, 0, false};

	if (event_start(ev, MCG_HEV_OOM_WARNING, wn->time_ns, len) < 0)
		return -ENOSPC;
	ev->uid = ev->loginuid = ev->pid = -1;
	ev->count = wn->events;
	if (!detail_put(&b, ev, warning_keys, MCG_ARRAY_SIZE(warning_keys), wn))
		return -ENOSPC;
	ev->op = dup_in(&b, wn->signal ? wn->signal : "-");
	ev->cgroup = dup_in(&b, wn->cgroup[0] ? wn->cgroup : "/");
	return b.full ? -ENOSPC : 0;
}

int mcg_oom_warning_from_event(const struct mcg_hist_event *ev, struct mcg_oom_warning *ret)
{
	struct mcg_oom_warning wn;
	size_t i;
	int r;

	if (!ev || ev->type != MCG_HEV_OOM_WARNING || !ev->detail || !ev->cgroup ||
	    ev->cgroup[0] != '/' || strlen(ev->cgroup) >= sizeof(wn.cgroup))
		return -MCG_E_CORRUPT;
	memset(&wn, 0, sizeof(wn));
	wn.time_ns = ev->time_ns;
	wn.events = ev->count;
	memcpy(wn.cgroup, ev->cgroup, strlen(ev->cgroup) + 1);
	/* only the names memcgctl writes: the pointers are static */
	for (i = 0; ev->op && i < MCG_ARRAY_SIZE(signal_names); i++)
		if (!strcmp(ev->op, signal_names[i]))
			wn.signal = signal_names[i];
	r = detail_parse(ev->detail, warning_keys, MCG_ARRAY_SIZE(warning_keys), &wn);
	if (r < 0)
		return r;
	*ret = wn;
	return 0;
}
