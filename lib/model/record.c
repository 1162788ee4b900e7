/*
 * record.c: the one reader of the schema. A plan (per version and wanted
 * counters) lists the files to read and the keys to pick from each; a reader
 * keeps one descriptor per file and fills a struct mcg_record with one
 * pread() and one scan (lib/sys/kv.c) per file, without allocating.
 */
#include "model/model.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int plan_file(struct mcg__plan *p, const char *name)
{
	unsigned f;

	for (f = 0; f < p->nf; f++)
		if (!strcmp(p->f[f].name, name))
			return (int)f;
	if (p->nf == MCG__PLAN_FILES)
		return -ENOSPC;
	memset(&p->f[p->nf], 0, sizeof(p->f[0]));
	p->f[p->nf].name = name;
	p->f[p->nf].psi = !strcmp(name, "memory.pressure");
	return (int)p->nf++;
}

/*
 * Where a key of file F starts its search in p->slot: its length and three
 * of its bytes (memory.stat's keys differ there: "total_" prefixes,
 * "_anon"/"_file" ends), the file. Never reads past KEY's LEN bytes.
 */
static unsigned plan_hash(unsigned f, const char *key, size_t len)
{
	const unsigned char *k = (const unsigned char *)key;
	unsigned h = (unsigned)len * 131u + f * 61u;

	h = h * 31u + k[0];
	h = h * 31u + k[len / 2];
	h = h * 31u + k[len - 1];
	return (h ^ (h >> 9)) & (MCG__PLAN_SLOTS - 1);
}

static int plan_key(struct mcg__plan *p, unsigned f, const char *key, unsigned id, bool local)
{
	struct mcg__plan_file *pf = &p->f[f];
	unsigned i, h;

	if (p->nk == MCG__PLAN_KEYS)
		return -ENOSPC;
	/* a file's keys are contiguous: files are filled one after the other below */
	if (!pf->nk)
		pf->k0 = (unsigned short)p->nk;
	i = p->nk++;
	p->k[i].key = key;
	p->k[i].len = (unsigned short)strlen(key);
	p->k[i].id = (unsigned char)id;
	p->k[i].local = local;
	p->k[i].bytes = p->version == 1 && mcg_key_desc(id)->unit == MCG_UNIT_BYTES;
	pf->nk++;
	/* in index order: a lookup meets an earlier key of the same text first */
	if (p->k[i].len) {
		for (h = plan_hash(f, key, p->k[i].len); p->slot[h]; h = (h + 1) & (MCG__PLAN_SLOTS - 1))
			;
		p->slot[h] = (unsigned char)(i + 1);
	}
	return 0;
}

int mcg__plan_init(struct mcg__plan *p, int version, const struct mcg_keyset *want, unsigned flags)
{
	unsigned k, pass;
	int f, r;

	if (version != 1 && version != 2)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->version = version;
	p->flags = flags;
	if (want)
		p->want = *want;
	else
		mcg_keyset_all(&p->want);
	p->v1_unlimited = mcg__v1_unlimited();
	/* pass 0 lists the files; pass 1 adds the keys file by file (contiguous per file) */
	for (pass = 0; pass < 2; pass++) {
		unsigned nf = p->nf;

		for (f = 0; f < (pass ? (int)nf : 1); f++) {
			for (k = 0; k < MCG_K__COUNT; k++) {
				const struct mcg_key_desc *d = mcg_key_desc(k);
				const char *file = d->file[version - 1], *key = d->key[version - 1];
				int slot;

				if (!mcg_keyset_has(&p->want, k) || !file)
					continue;
				if (!pass) {
					slot = plan_file(p, file);
					if (slot < 0)
						return slot;
					if (!key)
						mcg_keyset_add(&p->f[slot].single, k);
					continue;
				}
				if (!key || strcmp(file, p->f[f].name))
					continue;
				if ((r = plan_key(p, (unsigned)f, key, k, false)) < 0)
					return r;
				if (version == 1 && (flags & MCG__PLAN_V1_LOCAL) &&
				    !strncmp(key, "total_", 6) &&
				    (r = plan_key(p, (unsigned)f, key + 6, k, true)) < 0)
					return r;
			}
		}
	}
	return 0;
}

int mcg__plan_slot(const struct mcg__plan *p, enum mcg_key k)
{
	const char *file = mcg_knob_file(p->version, k);
	unsigned f;

	if (!file || !mcg_keyset_has(&p->want, k))
		return -1;
	for (f = 0; f < p->nf; f++)
		if (!strcmp(p->f[f].name, file))
			return (int)f;
	return -1;
}

/*
 * Parse slot F's TEXT into R; with ST, every "key number" line of it too, in
 * the same pass (memory.stat for show: one scan, one allocation).
 */
static int plan_parse(const struct mcg__plan *p, unsigned f, const char *text, struct mcg_record *r,
		      struct mcg_stat *st)
{
	const struct mcg__plan_file *pf = &p->f[f];
	const struct mcg__plan_key *keys = &p->k[pf->k0];
	uint64_t v, lens = 0, firsts[4] = {0};
	struct mcg_keyset from_total = {{0}};
	const char *pos = text;
	const unsigned slots = MCG__PLAN_SLOTS - 1;
	char *stkeys = NULL;
	struct mcg__kv kv;
	unsigned k, h;
	int err;

	if (!mcg_keyset_empty(&pf->single)) {
		/* "max", or a number (the v1 page-rounded LONG_MAX and above: no limit) */
		const char *e = text;

		while (*e == ' ')
			e++;
		if (!strncmp(e, "max", 3)) {
			v = MCG_MAX;
		} else {
			const char *d = e;

			while (*d >= '0' && *d <= '9')
				d++;
			if (!mcg__kv_u64(e, d, &v))
				return 0;
			if (v >= p->v1_unlimited)
				v = MCG_MAX;
		}
		mcg_keyset_foreach(k, &pf->single)
			mcg_record_set(r, k, v);
		return 0;
	}
	if (pf->psi) {
		/* the keys are the line names: "some", "full" (their total= in us) */
		if (mcg__psi_parse(text, &r->psi) < 0)
			return 0;
		for (k = 0; k < pf->nk; k++) {
			const struct mcg_psi_line *l = keys[k].key[0] == 's' ? &r->psi.some : &r->psi.full;

			if (keys[k].key[0] == 's' ? r->psi.some_valid : r->psi.full_valid)
				mcg_record_set(r, keys[k].id, l->total_us);
		}
		return 0;
	}
	if (st && (err = mcg__stat_reserve(text, st, &stkeys)) < 0)
		return err;
	/*
	 * Most lines of memory.stat are keys the plan does not want: a line is
	 * compared with the plan's keys only if some key has its length and first
	 * character (two masks over this file's keys, cheaper than the compares).
	 */
	for (k = 0; k < pf->nk; k++) {
		lens |= 1ULL << (keys[k].len < 63 ? keys[k].len : 63);
		firsts[(unsigned char)keys[k].key[0] >> 6] |= 1ULL << (keys[k].key[0] & 63);
	}
	for (;;) {
		unsigned char c0 = (unsigned char)*pos;

		/*
		 * A line that starts with a key character no key of the plan starts
		 * with is skipped whole (the scanner would only measure its key).
		 */
		if (!st && c0 > ' ' && c0 != ':' && !((firsts[c0 >> 6] >> (c0 & 63)) & 1)) {
			const char *nl = strchr(pos, '\n');

			if (!nl)
				break;
			pos = nl + 1;
			continue;
		}
		if (!mcg__kv_next(&pos, &kv))
			break;
		if (st)
			mcg__stat_add(st, &stkeys, &kv);
		c0 = (unsigned char)kv.key[0];
		if (!((lens >> (kv.klen < 63 ? kv.klen : 63)) & 1) || !((firsts[c0 >> 6] >> (c0 & 63)) & 1))
			continue;
		/* the first key of this file with the line's text: probe from its hash */
		for (h = plan_hash(f, kv.key, kv.klen); (k = p->slot[h]); h = (h + 1) & slots) {
			const struct mcg__plan_key *pk = &p->k[k - 1];

			if (pk->len != kv.klen || k - 1 < pf->k0 || k - 1 >= pf->k0 + (unsigned)pf->nk ||
			    memcmp(pk->key, kv.key, kv.klen))
				continue;
			if (!mcg__kv_u64(kv.val, kv.eol, &v))
				break;
			/* v1: the hierarchical total_ wins over the local key */
			if (pk->local && mcg_keyset_has(&from_total, pk->id))
				break;
			if (!pk->local)
				mcg_keyset_add(&from_total, pk->id);
			if (pk->bytes && v >= p->v1_unlimited)
				v = MCG_MAX;
			mcg_record_set(r, pk->id, v);
			break;
		}
	}
	if (st)
		mcg__stat_done(st);
	return 0;
}

void mcg__plan_parse(const struct mcg__plan *p, unsigned f, const char *text, struct mcg_record *r)
{
	plan_parse(p, f, text, r, NULL);
}

int mcg__plan_parse_stat(const struct mcg__plan *p, unsigned f, const char *text,
			 struct mcg_record *r, struct mcg_stat *st)
{
	return plan_parse(p, f, text, r, st);
}

int mcg__plan_open(const struct mcg__plan *p, unsigned f, int dirfd)
{
	/*
	 * O_NOFOLLOW: a symlink planted in a --root tree is not followed;
	 * O_NONBLOCK: nor is a FIFO waited on (a read of it finds nothing)
	 */
	int fd = openat(dirfd, p->f[f].name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == EMFILE || errno == ENFILE)
		return MCG__FD_REOPEN;
	return MCG__FD_ABSENT;
}

ssize_t mcg__pread_once(int fd, char *buf, size_t len)
{
	ssize_t n;

	do
		n = pread(fd, buf, len - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n == len - 1) /* did not fit: the slow path to EOF */
		return mcg_fd_pread(fd, buf, len);
	buf[n] = '\0';
	return n;
}

ssize_t mcg__plan_read(const struct mcg__plan *p, unsigned f, int *fd, int dirfd, char *buf,
		       size_t len, struct mcg_record *r)
{
	ssize_t n;

	if (*fd == MCG__FD_UNSET)
		*fd = dirfd >= 0 ? mcg__plan_open(p, f, dirfd) : MCG__FD_ABSENT;
	if (*fd == MCG__FD_ABSENT)
		return -ENOENT;
	if (*fd == MCG__FD_REOPEN) {
		int t;

		if (dirfd < 0)
			return -EBADF;
		t = openat(dirfd, p->f[f].name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (t < 0)
			return -errno;
		n = mcg__pread_once(t, buf, len);
		close(t);
	} else {
		n = mcg__pread_once(*fd, buf, len);
	}
	if (n >= 0 && r)
		mcg__plan_parse(p, f, buf, r);
	return n;
}

int mcg_record_parse(struct mcg_record *r, int version, const char *file, const char *text)
{
	struct mcg__plan p;
	unsigned f;
	int ret;

	ret = mcg__plan_init(&p, version, NULL, MCG__PLAN_V1_LOCAL);
	if (ret < 0)
		return ret;
	for (f = 0; f < p.nf; f++) {
		if (!strcmp(p.f[f].name, file)) {
			mcg__plan_parse(&p, f, text, r);
			return 0;
		}
	}
	return -ENOENT;
}
