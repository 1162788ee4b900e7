/* oomlog.c: the kernel's OOM report as /dev/kmsg gives it: records, the report's lines, one kill at a time (pure). */
#include "sys/sys.h"

#include <memcg/oom.h>

#include <stdlib.h>
#include <string.h>

/*
 * Formats, from mm/oom_kill.c and mm/memcontrol{,-v1}.c of 4.19 to 6.18 (the
 * host here runs 6.18, the v2 guest 6.1):
 *   COMM invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
 *   memory: usage 16384kB, limit 16384kB, failcnt 92        (swap:, memory+swap:, kmem:)
 *   Memory cgroup stats for /a:                               then "key value" lines (6.1 v2:
 *                                                             one record with embedded newlines)
 *   Tasks state (memory values in pages):
 *   [  pid  ]   uid  tgid total_vm      rss [rss_anon rss_file rss_shmem] pgtables_bytes swapents oom_score_adj name
 *   [  29638]     0 29638     4769     4457 ... tail
 *   oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,
 *            oom_memcg=/a,task_memcg=/a/b,task=tail,pid=29638,uid=0    (or ",global_oom,")
 *   Memory cgroup out of memory: Killed process 29638 (tail) total-vm:19076kB, anon-rss:16128kB,
 *            file-rss:1700kB, shmem-rss:0kB, UID:0 pgtables:80kB oom_score_adj:0
 *   Tasks in /a are going to be killed due to memory.oom.group set     (then more Killed lines)
 * Everything before the Killed line is dump_header(), which the kernel rate limits.
 */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int mcg_kmsg_parse(const char *buf, size_t n, struct mcg_kmsg *ret, char *text, size_t len)
{
	uint64_t f[3];
	size_t i = 0, o = 0, k;
	struct mcg_kmsg m = {0};

	if (!len)
		return -EINVAL;
	for (k = 0; k < 3; k++) {
		size_t s = i;
		uint64_t v = 0;

		while (i < n && buf[i] >= '0' && buf[i] <= '9') {
			if (v > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			v = v * 10 + (uint64_t)(buf[i++] - '0');
		}
		if (i == s || i >= n || buf[i] != ',')
			return -EINVAL;
		f[k] = v;
		i++;
	}
	if (i >= n || buf[i] == ';' || buf[i] == ',')
		return -EINVAL;
	m.flags = buf[i];
	while (i < n && buf[i] != ';' && buf[i] != '\n')
		i++;
	if (i >= n || buf[i] != ';')
		return -EINVAL;
	i++;
	if (f[0] > 0x7fffffff)
		return -EINVAL;
	m.level = (int)(f[0] & 7);
	m.facility = (int)(f[0] >> 3);
	m.seq = f[1];
	m.usec = f[2];
	for (; i < n && buf[i] != '\n'; i++) {
		char c = buf[i];

		if (c == '\\' && i + 3 < n && buf[i + 1] == 'x') {
			int hi = hexval(buf[i + 2]), lo = hexval(buf[i + 3]);

			if (hi >= 0 && lo >= 0) {
				c = (char)(hi << 4 | lo);
				i += 3;
				if (!c)
					break;
			}
		}
		if (o + 1 >= len)
			break;
		text[o++] = c;
	}
	text[o] = '\0';
	m.len = o;
	*ret = m;
	return 0;
}

static bool has_prefix(const char *s, size_t n, const char *p, size_t *plen)
{
	size_t l = strlen(p);

	if (n < l || memcmp(s, p, l))
		return false;
	if (plen)
		*plen = l;
	return true;
}

/* The first (LAST: last) occurrence of P in S[0..N), or NULL. */
static const char *find(const char *s, size_t n, const char *p, bool last)
{
	size_t l = strlen(p), i;
	const char *hit = NULL;

	if (l > n)
		return NULL;
	for (i = 0; i + l <= n; i++)
		if (s[i] == p[0] && !memcmp(s + i, p, l)) {
			hit = s + i;
			if (!last)
				break;
		}
	return hit;
}

/* Decimal digits at S (up to END), at least one; the end in *RET_END. */
static bool dec(const char *s, const char *end, uint64_t *ret, const char **ret_end)
{
	uint64_t v = 0;
	const char *p = s;

	while (p < end && *p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		p++;
	}
	if (p == s)
		return false;
	*ret = v;
	if (ret_end)
		*ret_end = p;
	return true;
}

static bool sdec(const char *s, const char *end, int64_t *ret, const char **ret_end)
{
	bool neg = s < end && *s == '-';
	uint64_t v;

	if (!dec(s + neg, end, &v, ret_end) || v > (uint64_t)INT64_MAX)
		return false;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

#define KILLED ": Killed process "

int mcg_oom_parse_killed(const char *line, size_t n, struct mcg_oom_kill *k)
{
	const char *end = line + n, *p = find(line, n, KILLED, false), *c, *q;
	size_t ml;
	uint64_t pid;

	if (!p)
		return -EINVAL;
	ml = (size_t)(p - line);
	p += strlen(KILLED);
	if (!dec(p, end, &pid, &q) || pid > INT32_MAX || q + 2 > end || q[0] != ' ' || q[1] != '(')
		return -EINVAL;
	q += 2;
	/* the comm may hold ") total-vm:" itself: the kernel's is the last */
	c = find(q, (size_t)(end - q), ") total-vm:", true);
	if (!c && end > q && end[-1] == ')')
		c = end - 1; /* a kernel that prints nothing after the comm */
	if (!c)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->pid = (int64_t)pid;
	k->uid = -1;
	copy(k->comm, sizeof(k->comm), q, (size_t)(c - q));
	if (ml >= 27 && !memcmp(line, "Memory cgroup out of memory", 27))
		k->scope = MCG_OOM_SCOPE_MEMCG;
	else if (ml >= 13 && !memcmp(line, "Out of memory", 13)) {
		k->scope = MCG_OOM_SCOPE_GLOBAL;
		k->allocating = find(line, ml, "oom_kill_allocating_task", false) != NULL;
	}
	/* "key:NkB," tokens; unknown keys (a later kernel's) are skipped */
	p = c + 1;
	while (p < end) {
		const char *t, *colon, *v;
		uint64_t u;
		int64_t s;

		while (p < end && (*p == ' ' || *p == ','))
			p++;
		t = p;
		while (p < end && *p != ' ')
			p++;
		colon = memchr(t, ':', (size_t)(p - t));
		if (!colon)
			continue;
		v = colon + 1;
#define KEY(name) ((size_t)(colon - t) == strlen(name) && !memcmp(t, name, strlen(name)))
		if (KEY("oom_score_adj")) {
			if (sdec(v, p, &s, NULL) && s >= -1000 && s <= 1000) {
				k->oom_score_adj = (int)s;
				k->has_adj = true;
			}
			continue;
		}
		if (!dec(v, p, &u, NULL))
			continue;
		if (KEY("total-vm"))
			k->total_vm_kb = u, k->has_rss = true;
		else if (KEY("anon-rss"))
			k->anon_rss_kb = u, k->has_rss = true;
		else if (KEY("file-rss"))
			k->file_rss_kb = u;
		else if (KEY("shmem-rss"))
			k->shmem_rss_kb = u;
		else if (KEY("UID") && u <= UINT32_MAX)
			k->uid = (int64_t)u;
		else if (KEY("pgtables"))
			k->pgtables_kb = u, k->has_pgtables = true;
#undef KEY
	}
	return 0;
}

/* Is A (a cgroup path) B or an ancestor of B? */
static bool ancestor_or_self(const char *a, size_t al, const char *b, size_t bl)
{
	if (al == 1 && a[0] == '/')
		return bl >= 1 && b[0] == '/';
	return al <= bl && !memcmp(a, b, al) && (al == bl || b[al] == '/');
}

int mcg_oom_parse_summary(const char *line, size_t n, struct mcg_oom_kill *k)
{
	const char *end = line + n, *p, *uid, *pid, *task, *tm = NULL, *om = NULL, *q;
	const char *body;
	size_t pl;
	uint64_t u;

	if (!has_prefix(line, n, "oom-kill:", &pl))
		return -EINVAL;
	body = line + pl;
	if (has_prefix(body, (size_t)(end - body), "constraint=", &pl)) {
		p = body + pl;
		q = memchr(p, ',', (size_t)(end - p));
		copy(k->constraint, sizeof(k->constraint), p, (size_t)((q ? q : end) - p));
	}
	k->has_summary = true;
	k->summary_cut = true;
	k->oom_memcg[0] = k->task_memcg[0] = '\0';
	/* from the right: ",uid=N" ends the line, ",pid=N" before it, ",task=COMM" before that */
	uid = find(body, (size_t)(end - body), ",uid=", true);
	pid = uid ? find(body, (size_t)(uid - body), ",pid=", true) : NULL;
	task = pid ? find(body, (size_t)(pid - body), ",task=", true) : NULL;
	if (task) {
		if (dec(uid + 5, end, &u, &q) && q == end && u <= UINT32_MAX)
			k->uid = (int64_t)u;
		if (dec(pid + 5, uid, &u, &q) && q == uid && u <= INT32_MAX) {
			k->pid = (int64_t)u;
			copy(k->comm, sizeof(k->comm), task + 6, (size_t)(pid - task - 6));
			k->summary_cut = false;
		}
	}
	q = task ? task : end;
	k->global_oom = find(body, (size_t)(q - body), ",global_oom", false) != NULL;
	/*
	 * Paths may hold commas and even ",task_memcg=": of every split, the one
	 * where the OOM cgroup is the victim's or an ancestor of it (as it always
	 * is) wins; the leftmost start, then the leftmost end.
	 */
	for (p = body; !k->global_oom && (p = find(p, (size_t)(q - p), ",oom_memcg=", false));
	     p++) {
		const char *e;

		for (e = p + 11; (e = find(e, (size_t)(q - e), ",task_memcg=", false)); e++) {
			const char *ts = e + 12;

			if (!om)
				om = p, tm = e; /* a fallback: the first of each */
			if (ancestor_or_self(p + 11, (size_t)(e - p - 11), ts, (size_t)(q - ts))) {
				om = p;
				tm = e;
				goto found;
			}
		}
		if (!om) {
			om = p; /* cut before task_memcg= */
			break;
		}
	}
found:
	if (om)
		copy(k->oom_memcg, sizeof(k->oom_memcg), om + 11,
		     (size_t)((tm ? tm : q) - (om + 11)));
	if (!tm)
		tm = find(body, (size_t)(q - body), ",task_memcg=", true);
	if (tm)
		copy(k->task_memcg, sizeof(k->task_memcg), tm + 12, (size_t)(q - (tm + 12)));
	if (k->global_oom && !k->oom_memcg[0])
		copy(k->oom_memcg, sizeof(k->oom_memcg), "/", 1);
	return 0;
}

/* ---- the assembler ---- */

enum section { SEC_NONE, SEC_STAT, SEC_TASKS };

#define TASK_COLS 16

struct mcg_oom_parser {
	struct mcg_oom_kill rep;  /* the report being read (its kill fields unset) */
	bool open;                /* a header was seen and its kill not yet taken */
	bool taken;               /* its chosen victim was killed: only oom.group members follow */
	bool group;               /* "Tasks in X are going to be killed due to memory.oom.group set" */
	enum section sec;
	int cols[TASK_COLS];      /* the task table's columns, by index */
	unsigned ncols;
	struct mcg_oom_kill out;
	bool ready;
	/* a continued line (kernels before 4.9: 'c' then '+' records) */
	char cont[1024];
	size_t cont_len;
	uint64_t cont_seq, cont_usec;
	bool cont_open;
	char text[8192];
};

int mcg_oom_parser_new(struct mcg_oom_parser **ret)
{
	struct mcg_oom_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

void mcg_oom_parser_free(struct mcg_oom_parser *p)
{
	free(p);
}

/* a report's header older than this at its Killed line is another OOM's (one without a kill) */
#define REPORT_MAX_US (30ULL * 1000000ULL)

enum col { C_PID, C_UID, C_TGID, C_TOTAL_VM, C_RSS, C_ADJ, C_OTHER };

static void tasks_header(struct mcg_oom_parser *p, const char *s, const char *end)
{
	const char *q = memchr(s, ']', (size_t)(end - s));

	p->ncols = 0;
	if (!q)
		return;
	for (q++; q < end && p->ncols < TASK_COLS;) {
		const char *t;
		size_t l;

		while (q < end && *q == ' ')
			q++;
		t = q;
		while (q < end && *q != ' ')
			q++;
		l = (size_t)(q - t);
		if (!l)
			break;
		if (l == 4 && !memcmp(t, "name", 4))
			break;
#define IS(w) (l == strlen(w) && !memcmp(t, w, l))
		p->cols[p->ncols++] = IS("uid")		 ? C_UID
				      : IS("tgid")	 ? C_TGID
				      : IS("total_vm")	 ? C_TOTAL_VM
				      : IS("rss")	 ? C_RSS
				      : IS("oom_score_adj") ? C_ADJ
							    : C_OTHER;
#undef IS
	}
}

static void tasks_row(struct mcg_oom_parser *p, const char *s, const char *end)
{
	struct mcg_oom_task t = {0};
	struct mcg_oom_kill *r = &p->rep;
	const char *q = s + 1;
	unsigned i;
	size_t j;
	uint64_t v;

	while (q < end && *q == ' ')
		q++;
	if (!sdec(q, end, &t.pid, &q) || q >= end || *q != ']')
		return;
	q++;
	for (i = 0; i < p->ncols; i++) {
		int64_t sv;

		while (q < end && *q == ' ')
			q++;
		if (!sdec(q, end, &sv, &q))
			return;
		v = (uint64_t)sv;
		switch (p->cols[i]) {
		case C_UID:
			t.uid = sv;
			break;
		case C_TGID:
			t.tgid = sv;
			break;
		case C_TOTAL_VM:
			t.total_vm = v;
			break;
		case C_RSS:
			t.rss = v;
			break;
		case C_ADJ:
			t.oom_score_adj = (int)(sv < -1000 ? -1000 : sv > 1000 ? 1000 : sv);
			break;
		default:
			break;
		}
	}
	if (q < end && *q == ' ')
		q++;
	copy(t.name, sizeof(t.name), q, (size_t)(end - q));
	r->ntasks_seen++;
	/* keep the largest, largest first */
	for (j = 0; j < r->ntasks && r->tasks[j].rss >= t.rss; j++)
		;
	if (j >= MCG_OOM_TASKS)
		return;
	memmove(&r->tasks[j + 1], &r->tasks[j],
		(r->ntasks - j - (r->ntasks == MCG_OOM_TASKS)) * sizeof(t));
	r->tasks[j] = t;
	if (r->ntasks < MCG_OOM_TASKS)
		r->ntasks++;
}

static bool counter_line(struct mcg_oom_kill *r, const char *s, size_t n)
{
	static const struct {
		const char *prefix;
		size_t off;
	} kinds[] = {
		{"memory: usage ", offsetof(struct mcg_oom_kill, mem)},
		{"swap: usage ", offsetof(struct mcg_oom_kill, swap)},
		{"memory+swap: usage ", offsetof(struct mcg_oom_kill, memsw)},
		{"kmem: usage ", offsetof(struct mcg_oom_kill, kmem)},
	};
	const char *end = s + n, *q;
	size_t i, pl;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct mcg_oom_counter c = {0};

		if (!has_prefix(s, n, kinds[i].prefix, &pl))
			continue;
		q = s + pl;
		if (!dec(q, end, &c.usage_kb, &q) || !has_prefix(q, (size_t)(end - q), "kB, limit ", &pl))
			return true;
		q += pl;
		if (!dec(q, end, &c.limit_kb, &q) ||
		    !has_prefix(q, (size_t)(end - q), "kB, failcnt ", &pl))
			return true;
		q += pl;
		if (!dec(q, end, &c.failcnt, &q))
			return true;
		c.valid = true;
		memcpy((char *)r + kinds[i].off, &c, sizeof(c));
		return true;
	}
	return false;
}

/* "key N": a line of the memory.stat dump */
static bool stat_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
		i++;
	if (!i || i + 1 >= n || s[i] != ' ')
		return false;
	for (i++; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void report_start(struct mcg_oom_parser *p, uint64_t usec)
{
	memset(&p->rep, 0, sizeof(p->rep));
	p->rep.uid = -1;
	p->rep.has_header = true;
	p->rep.header_usec = usec;
	p->open = true;
	p->taken = p->group = false;
	p->sec = SEC_NONE;
	p->ncols = 0;
}

/* The report's fields (not the kill's own) into K. */
static void report_merge(const struct mcg_oom_kill *r, struct mcg_oom_kill *k, bool summary)
{
	k->has_header = r->has_header;
	memcpy(k->invoker, r->invoker, sizeof(k->invoker));
	k->gfp_mask = r->gfp_mask;
	k->order = r->order;
	k->header_usec = r->header_usec;
	k->mem = r->mem;
	k->swap = r->swap;
	k->memsw = r->memsw;
	k->kmem = r->kmem;
	memcpy(k->stat_memcg, r->stat_memcg, sizeof(k->stat_memcg));
	memcpy(k->stat, r->stat, sizeof(k->stat));
	k->stat_len = r->stat_len;
	memcpy(k->tasks, r->tasks, sizeof(k->tasks));
	k->ntasks = r->ntasks;
	k->ntasks_seen = r->ntasks_seen;
	if (r->has_summary) {
		memcpy(k->constraint, r->constraint, sizeof(k->constraint));
		k->global_oom = r->global_oom;
		memcpy(k->oom_memcg, r->oom_memcg, sizeof(k->oom_memcg));
		if (summary) {
			k->has_summary = true;
			k->summary_cut = r->summary_cut;
			memcpy(k->task_memcg, r->task_memcg, sizeof(k->task_memcg));
		}
	}
}

int mcg_oom_parser_line(struct mcg_oom_parser *p, uint64_t seq, uint64_t usec, const char *s,
			size_t n)
{
	const char *end = s + n, *q;
	struct mcg_oom_kill *r = &p->rep;
	size_t pl;

	p->ready = false;
	/* printk's level and a trailing newline or CR are not part of the text */
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		end = s + --n;
	if ((q = find(s, n, " invoked oom-killer: ", false))) {
		const char *v;
		uint64_t u;
		int64_t sv;

		report_start(p, usec);
		copy(r->invoker, sizeof(r->invoker), s, (size_t)(q - s));
		if ((v = find(q, (size_t)(end - q), "gfp_mask=0x", false))) {
			u = 0;
			for (v += 11; v < end && hexval(*v) >= 0 && u >> 60 == 0; v++)
				u = u << 4 | (uint64_t)hexval(*v);
			r->gfp_mask = u;
		}
		if ((v = find(q, (size_t)(end - q), "order=", false)) && sdec(v + 6, end, &sv, NULL) &&
		    sv >= -1 && sv < 64)
			r->order = (int)sv;
		return 0;
	}
	if (find(s, n, KILLED, false)) {
		struct mcg_oom_kill *k = &p->out;

		if (mcg_oom_parse_killed(s, n, k) < 0)
			return 0;
		k->seq = seq;
		k->usec = usec;
		if (p->open && !p->taken && usec - r->header_usec <= REPORT_MAX_US &&
		    (!r->has_summary || r->summary_cut || r->pid == k->pid)) {
			report_merge(r, k, true);
			p->taken = true;
		} else if (p->open && p->taken && p->group && usec - r->header_usec <= REPORT_MAX_US) {
			/* killed with the victim (memory.oom.group): the same OOM, its own cgroup */
			report_merge(r, k, false);
			k->group_member = ++r->group_member;
		}
		if (k->uid < 0 && k->has_summary && r->uid >= 0)
			k->uid = r->uid;
		/* the report stays open for the members of an oom.group, announced after this kill */
		p->sec = SEC_NONE;
		p->ready = true;
		return 1;
	}
	if (!p->open)
		return 0;
	if (has_prefix(s, n, "oom-kill:", NULL)) {
		r->pid = 0;
		r->uid = -1;
		r->comm[0] = '\0';
		mcg_oom_parse_summary(s, n, r);
		p->sec = SEC_NONE;
		return 0;
	}
	if (has_prefix(s, n, "Memory cgroup stats for ", &pl)) {
		size_t l = n - pl;

		if (l && s[n - 1] == ':')
			l--;
		copy(r->stat_memcg, sizeof(r->stat_memcg), s + pl, l);
		r->stat_len = 0;
		r->stat[0] = '\0';
		p->sec = SEC_STAT;
		return 0;
	}
	if (has_prefix(s, n, "Tasks state ", NULL)) {
		p->sec = SEC_TASKS;
		p->ncols = 0;
		return 0;
	}
	if (has_prefix(s, n, "Tasks in ", NULL) &&
	    find(s, n, " are going to be killed due to memory.oom.group set", false)) {
		p->group = true;
		return 0;
	}
	if (counter_line(r, s, n))
		return 0;
	if (p->sec == SEC_STAT && stat_line(s, n)) {
		/* whole lines only: a dump cut at the buffer loses its tail, not a number's digits */
		if (r->stat_len + n + 2 <= sizeof(r->stat)) {
			memcpy(r->stat + r->stat_len, s, n);
			r->stat_len += n;
			r->stat[r->stat_len++] = '\n';
			r->stat[r->stat_len] = '\0';
		}
		return 0;
	}
	if (p->sec == SEC_TASKS && n && s[0] == '[') {
		if (has_prefix(s, n, "[  pid  ]", NULL))
			tasks_header(p, s, end);
		else if (p->ncols)
			tasks_row(p, s, end);
		return 0;
	}
	/* anything else is another message interleaved with the report: skipped */
	return 0;
}

#define RECORD_CUT 960

static int feed_text(struct mcg_oom_parser *p, uint64_t seq, uint64_t usec, const char *t,
		     size_t n)
{
	const char *end = t + n;
	int ready = 0;
	struct mcg_oom_kill k;

	/*
	 * printk cuts a record at about 1 KiB (LOG_LINE_MAX 992 on 6.1): the last
	 * line of a multi-line record that long may end in the middle of a number.
	 */
	bool cut = n >= RECORD_CUT && memchr(t, '\n', n);

	/*
	 * The one-line kinds carry a comm, which may hold a newline (\x0a in the
	 * record): they are read whole, or a process could hide its kill.
	 */
	if (find(t, n, KILLED, false) || has_prefix(t, n, "oom-kill:", NULL) ||
	    find(t, n, " invoked oom-killer: ", false))
		return mcg_oom_parser_line(p, seq, usec, t, n) == 1;

	while (t <= end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		const char *e = nl ? nl : end;

		if (!nl && cut && p->sec == SEC_STAT)
			break;
		if (e > t && mcg_oom_parser_line(p, seq, usec, t, (size_t)(e - t)) == 1) {
			/* two kills in one record cannot be: keep the first ready */
			if (!ready)
				k = p->out;
			ready = 1;
		}
		if (!nl)
			break;
		t = nl + 1;
	}
	if (ready) {
		p->out = k;
		p->ready = true;
	}
	return ready;
}

static int cont_flush(struct mcg_oom_parser *p)
{
	int r;

	if (!p->cont_open)
		return 0;
	p->cont_open = false;
	r = feed_text(p, p->cont_seq, p->cont_usec, p->cont, p->cont_len);
	p->cont_len = 0;
	return r;
}

int mcg_oom_parser_record(struct mcg_oom_parser *p, const char *buf, size_t n)
{
	struct mcg_kmsg m;
	int r, r2;

	r = mcg_kmsg_parse(buf, n, &m, p->text, sizeof(p->text));
	if (r < 0)
		return r;
	if (m.flags == '+' && p->cont_open) {
		size_t room = sizeof(p->cont) - p->cont_len;
		size_t l = m.len < room ? m.len : room;

		memcpy(p->cont + p->cont_len, p->text, l);
		p->cont_len += l;
		return 0;
	}
	/* a new record ends a continued line: that line first */
	r = cont_flush(p);
	if (m.flags == 'c') {
		size_t l = m.len < sizeof(p->cont) ? m.len : sizeof(p->cont);

		memcpy(p->cont, p->text, l);
		p->cont_len = l;
		p->cont_seq = m.seq;
		p->cont_usec = m.usec;
		p->cont_open = true;
		return r;
	}
	if (r == 1) {
		/* the flushed line finished a kill: it waits; this record is read next time */
		struct mcg_oom_kill k = p->out;

		r2 = feed_text(p, m.seq, m.usec, p->text, m.len);
		if (r2 == 1) {
			/* both: the earlier one is returned, the later one is lost (pre-4.9 kernels only) */
			p->out = k;
		}
		p->ready = true;
		return 1;
	}
	return feed_text(p, m.seq, m.usec, p->text, m.len);
}

int mcg_oom_parser_take(struct mcg_oom_parser *p, struct mcg_oom_kill *ret)
{
	if (!p->ready)
		return -ENOENT;
	*ret = p->out;
	p->ready = false;
	return 0;
}
