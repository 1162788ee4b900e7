/* history-read.c: the history store's reader: checks every frame, decodes from key frames, hands out snapshots. */
#include "store/store.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/*
 * A planted or damaged segment is not trusted data: every length is checked
 * against what is left, no count is believed beyond the bytes that could hold
 * it, and anything the writer would not write (a cgroup id out of sequence, a
 * value marked moved that is not valid, trailing bytes) makes the frame
 * corrupt. A corrupt frame is reported once, by segment and frame number, and
 * reading goes on from the next key frame.
 */

struct rframe {
	uint64_t off;
	uint32_t plen, rawlen, pcrc;
	uint64_t time_ns;
	uint8_t type, flags;
	bool bad, reported;
	bool gap; /* bytes were skipped before it: a delta frame cannot follow on */
};

struct rseg {
	char name[64];
	uint64_t start;
	int fd;
	bool scanned, dead, torn_reported, waited;
	uint64_t scanned_to, size; /* size: as last scanned */
	struct rframe *f;
	size_t nf, cap;
	/* from the segment header frame */
	int format, version;
	unsigned nkeys;
	int *map; /* stored key index -> MCG_K_ id, -1 unknown */
	uint64_t page_size;
};

struct rslot {
	char *path;
	char *name; /* NULL: none */
	bool live;
	uint64_t rowid;
	uint8_t *valid;
	uint64_t *v;
};

struct mcg_hist_reader {
	int dirfd;
	mcg_hist_bad_fn bad;
	void *ud;
	struct rseg *seg;
	size_t nseg;
	/* the decode state: the values after frame (st_seg, st_frame) */
	bool st_ok;
	size_t st_seg, st_frame;
	struct rslot *slot;
	size_t nslot, cap;
	uint64_t slot_bytes; /* what the slots hold, against MCG__HIST_MEM_BUDGET */
	uint64_t next_rowid;
	/* the current frame, and its snapshot (for the next one's rates) */
	bool have_cur;
	size_t cur_seg, cur_frame;
	struct mcg_snapshot *last;
	/* the last decoded frame's events */
	struct mcg_hist_event *ev;
	size_t nev;
	char *evstr;
	ZSTD_DCtx *dctx;
	struct mcg__hist_buf in, raw;
	const char **names; /* the last built snapshot's, per row (one allocation) */
	struct mcg_sample_global global; /* the last decoded frame's */
};

static void report(struct mcg_hist_reader *r, struct rseg *s, size_t i, uint64_t off,
		   const char *why)
{
	if (i < s->nf) {
		if (s->f[i].reported)
			return;
		s->f[i].reported = true;
	}
	if (r->bad)
		r->bad(r->ud, s->name, (unsigned)i, off, why);
}

/* ---- scanning a segment's headers ---- */

static int add_frame(struct rseg *s, const struct mcg__hist_fhdr *h, uint64_t off)
{
	struct rframe *f;

	if (mcg_grow(&s->f, &s->cap, s->nf, sizeof(*s->f), 256) < 0)
		return -ENOMEM;
	f = &s->f[s->nf++];
	memset(f, 0, sizeof(*f));
	f->off = off;
	f->plen = h->plen;
	f->rawlen = h->rawlen;
	f->pcrc = h->pcrc;
	f->time_ns = h->time_ns;
	f->type = h->type;
	f->flags = h->flags;
	return 0;
}

/* How much of a damaged segment resync() reads at a time. */
#define RESYNC_CHUNK 65536

/* The next offset from OFF on holding a frame header that checks, or SIZE. */
static uint64_t resync(struct rseg *s, uint64_t off, uint64_t size)
{
	uint8_t buf[RESYNC_CHUNK + MCG__HIST_FHDR];

	while (off + MCG__HIST_FHDR <= size) {
		ssize_t n = pread(s->fd, buf, sizeof(buf), (off_t)off);
		size_t i;

		if (n < MCG__HIST_FHDR)
			break;
		for (i = 0; i + MCG__HIST_FHDR <= (size_t)n; i++) {
			struct mcg__hist_fhdr h;
			const char *why;

			if (buf[i] == 'M' && !memcmp(buf + i, MCG__HIST_FRAME_MAGIC, 4) &&
			    mcg__hist_header_get(buf + i, &h, &why) == 0)
				return off + i;
		}
		off += (size_t)n - MCG__HIST_FHDR + 1;
	}
	return size;
}

static int load_payload(struct mcg_hist_reader *r, struct rseg *s, size_t i, const char **why);
static int parse_seghdr(struct mcg_hist_reader *r, struct rseg *s, const char **why);

static int scan(struct mcg_hist_reader *r, struct rseg *s)
{
	static const char magic[8] = MCG__HIST_SEG_MAGIC;
	uint8_t h[MCG__HIST_FHDR];
	struct stat st;
	uint64_t off, size;
	const char *why;
	bool gap;
	int rc;

	if (s->dead)
		return 0;
	if (s->fd < 0) {
		s->fd = mcg__open_regular(r->dirfd, s->name, O_RDONLY | O_NOFOLLOW, 0, &st);
		if (s->fd >= 0 && st.st_uid != 0 && st.st_uid != geteuid()) {
			close(s->fd);
			s->fd = -MCG_E_UNTRUSTED;
		}
		if (s->fd < 0) {
			if (r->bad)
				r->bad(r->ud, s->name, 0, 0,
				       s->fd == -MCG_E_UNTRUSTED || s->fd == -ELOOP
					       ? "not a regular file owned by root"
				       : s->fd == -EACCES ? "cannot open: permission denied"
							  : "cannot open");
			s->dead = true;
			return 0;
		}
		if (fstat(s->fd, &st) == 0 && st.st_size == 0) {
			/* a recorder killed before its first write: nothing, and nothing wrong */
			close(s->fd);
			s->fd = -1;
			s->scanned = true;
			return 0;
		}
		if (pread(s->fd, h, 8, 0) != 8 || memcmp(h, magic, 8)) {
			if (r->bad)
				r->bad(r->ud, s->name, 0, 0, "not a history segment (no magic)");
			s->dead = true;
			return 0;
		}
		s->scanned_to = 8;
	}
	if (fstat(s->fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	s->size = size;
	off = s->scanned_to;
	gap = false;
	while (off + MCG__HIST_FHDR <= size) {
		struct mcg__hist_fhdr fh;

		if (pread(s->fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h))
			return -EIO;
		if (mcg__hist_header_get(h, &fh, &why) < 0) {
			uint64_t next = resync(s, off + 1, size);
			char msg[160];

			snprintf(msg, sizeof(msg), "%s; %llu bytes skipped", why,
				 (unsigned long long)(next - off));
			if (r->bad)
				r->bad(r->ud, s->name, (unsigned)s->nf, off, msg);
			off = next;
			gap = true;
			continue;
		}
		if (off + MCG__HIST_FHDR + fh.plen > size && !s->waited &&
		    s == &r->seg[r->nseg - 1]) {
			/*
			 * a recorder may be writing it now (one write): look once
			 * more; only the newest segment is written to
			 */
			s->waited = true;
			usleep(20000);
			if (fstat(s->fd, &st) == 0 && (uint64_t)st.st_size > size) {
				size = s->size = (uint64_t)st.st_size;
				continue;
			}
		}
		if (off + MCG__HIST_FHDR + fh.plen > size) {
			/* torn by a kill or power loss: the last one */
			if (!s->torn_reported && r->bad) {
				char msg[160];

				snprintf(msg, sizeof(msg),
					 MCG_HIST_WHY_TORN ": %llu of %u payload bytes",
					 (unsigned long long)(size - off - MCG__HIST_FHDR),
					 fh.plen);
				r->bad(r->ud, s->name, (unsigned)s->nf, off, msg);
			}
			s->torn_reported = true;
			break;
		}
		if ((fh.type == MCG__HIST_SEGHDR) != (s->nf == 0)) {
			if (r->bad)
				r->bad(r->ud, s->name, (unsigned)s->nf, off,
				       s->nf ? "a second segment header" : "no segment header");
			if (s->nf == 0) {
				s->dead = true;
				return 0;
			}
			off += MCG__HIST_FHDR + fh.plen;
			continue;
		}
		rc = add_frame(s, &fh, off);
		if (rc < 0)
			return rc;
		s->f[s->nf - 1].gap = gap;
		gap = false;
		s->waited = false;
		if (s->nf == 1) {
			if ((rc = load_payload(r, s, 0, &why)) < 0 ||
			    (rc = parse_seghdr(r, s, &why)) < 0) {
				if (rc == -ENOMEM) {
					/* not the segment's fault: scanned again next time */
					s->nf = 0;
					return rc;
				}
				if (r->bad)
					r->bad(r->ud, s->name, 0, off, why);
				s->dead = true;
				return 0;
			}
		}
		off += MCG__HIST_FHDR + fh.plen;
	}
	s->scanned_to = off;
	s->scanned = true;
	return 0;
}

/* ---- payloads ---- */

/* Read frame I's payload, check it and decompress it into r->raw. */
static int load_payload(struct mcg_hist_reader *r, struct rseg *s, size_t i, const char **why)
{
	struct rframe *f = &s->f[i];
	int rc;

	r->in.len = 0;
	if ((rc = mcg__hist_buf_reserve(&r->in, f->plen + 1)) < 0 ||
	    (rc = mcg__hist_buf_reserve(&r->raw, (size_t)f->rawlen + 1)) < 0) {
		*why = "out of memory";
		return rc;
	}
	if (pread(s->fd, r->in.p, f->plen, (off_t)(f->off + MCG__HIST_FHDR)) != (ssize_t)f->plen) {
		*why = "cannot read the payload";
		return -EIO;
	}
	if (mcg_hist_crc32c(0, r->in.p, f->plen) != f->pcrc) {
		*why = "payload checksum mismatch";
		return -MCG_E_CORRUPT;
	}
	if (f->flags & MCG__HIST_ZSTD) {
		unsigned long long cs = ZSTD_getFrameContentSize(r->in.p, f->plen);
		size_t n;

		if (cs != f->rawlen) {
			*why = "compressed size does not match the header";
			return -MCG_E_CORRUPT;
		}
		n = ZSTD_decompressDCtx(r->dctx, r->raw.p, f->rawlen, r->in.p, f->plen);
		if (ZSTD_isError(n) || n != f->rawlen) {
			*why = "zstd cannot decompress the payload";
			return -MCG_E_CORRUPT;
		}
	} else {
		memcpy(r->raw.p, r->in.p, f->plen);
	}
	r->raw.len = f->rawlen;
	return 0;
}

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get_var(struct cur *c)
{
	uint64_t v = 0;
	size_t n;

	if (c->bad)
		return 0;
	n = mcg_hist_varint_get(c->p, (size_t)(c->end - c->p), &v);
	if (!n) {
		c->bad = true;
		return 0;
	}
	c->p += n;
	return v;
}

/* A string (length, bytes): a pointer into the payload and its length; no NUL inside. */
static const char *get_str(struct cur *c, size_t *ret_len)
{
	uint64_t n = get_var(c);
	const char *s = (const char *)c->p;

	if (c->bad || n > MCG__HIST_MAX_STR || n > (uint64_t)(c->end - c->p) ||
	    memchr(s, 0, (size_t)n)) {
		c->bad = true;
		*ret_len = 0;
		return "";
	}
	c->p += n;
	*ret_len = (size_t)n;
	return s;
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static int parse_seghdr(struct mcg_hist_reader *r, struct rseg *s, const char **why)
{
	struct cur c = {r->raw.p, r->raw.p + r->raw.len, false};
	uint64_t fmt, ver, nk, i;
	size_t n;

	fmt = get_var(&c);
	ver = get_var(&c);
	get_str(&c, &n); /* root */
	s->page_size = get_var(&c);
	get_var(&c); /* key_every */
	nk = get_var(&c);
	if (c.bad || (fmt != MCG__HIST_FORMAT && fmt != MCG__HIST_FORMAT_NONAMES) ||
	    (ver != 1 && ver != 2) || nk == 0 || nk > MCG__HIST_MAX_KEYS ||
	    nk > (uint64_t)(c.end - c.p)) {
		*why = fmt != MCG__HIST_FORMAT && fmt != MCG__HIST_FORMAT_NONAMES && !c.bad
			       ? "unknown format version"
			       : "bad segment header";
		return -MCG_E_CORRUPT;
	}
	s->map = malloc(nk * sizeof(*s->map));
	if (!s->map) {
		*why = "out of memory";
		return -ENOMEM;
	}
	for (i = 0; i < nk; i++) {
		const char *name = get_str(&c, &n);
		char buf[64];

		s->map[i] = -1;
		if (c.bad || n == 0 || n >= sizeof(buf))
			continue;
		memcpy(buf, name, n);
		buf[n] = '\0';
		s->map[i] = mcg_key_lookup(buf);
		if (s->map[i] < 0)
			s->map[i] = -1;
	}
	if (c.bad || c.p != c.end) {
		*why = "bad segment header";
		free(s->map);
		s->map = NULL;
		return -MCG_E_CORRUPT;
	}
	s->format = (int)fmt;
	s->version = (int)ver;
	s->nkeys = (unsigned)nk;
	return 0;
}

/* ---- the decode state ---- */

static void state_clear(struct mcg_hist_reader *r)
{
	size_t i;

	for (i = 0; i < r->nslot; i++) {
		free(r->slot[i].path);
		free(r->slot[i].name);
		r->slot[i].name = NULL;
		free(r->slot[i].valid);
		free(r->slot[i].v);
	}
	r->nslot = 0;
	r->slot_bytes = 0;
	r->st_ok = false;
}

static void events_clear(struct mcg_hist_reader *r)
{
	free(r->ev);
	free(r->evstr);
	r->ev = NULL;
	r->evstr = NULL;
	r->nev = 0;
}

struct pathid {
	const char *path;
	uint64_t rowid;
};

static int cmp_pathid(const void *a, const void *b)
{
	return strcmp(((const struct pathid *)a)->path, ((const struct pathid *)b)->path);
}

/* The events of a frame; ROOM: the bytes they may take (-MCG_E_CORRUPT past it). */
static int parse_events(struct mcg_hist_reader *r, struct cur *c, uint64_t time_ns, uint64_t room)
{
	uint64_t n = get_var(c), i;
	size_t total = 0, o = 0, j;
	const uint8_t *start;
	struct cur c2;

	/* every event takes at least 10 bytes: never believe a count beyond that */
	if (c->bad || n > (uint64_t)(c->end - c->p) / 10)
		return -MCG_E_CORRUPT;
	if (!n)
		return 0;
	start = c->p;
	/* pass 1: check and size; pass 2: copy */
	for (i = 0; i < n; i++) {
		uint64_t type = get_var(c);
		size_t l, k;

		get_var(c);
		get_str(c, &l);
		total += l + 1;
		for (k = 0; k < 4; k++)
			get_var(c);
		for (k = 0; k < 3; k++) {
			get_str(c, &l);
			total += l + 1;
		}
		if (c->bad || type == 0 || type > MCG_HEV_TYPE_MAX)
			return -MCG_E_CORRUPT;
	}
	if (n * sizeof(*r->ev) + total > room)
		return -E2BIG;
	r->ev = calloc(n, sizeof(*r->ev));
	r->evstr = malloc(total);
	if (!r->ev || !r->evstr)
		return -ENOMEM;
	c2 = (struct cur){start, c->p, false};
	for (i = 0, j = 0; i < n; i++) {
		struct mcg_hist_event *e = &r->ev[j];
		const char *s;
		char **dst[4];
		size_t l, k;

		e->type = (int)get_var(&c2);
		e->time_ns = time_ns + (uint64_t)mcg_hist_unzigzag(get_var(&c2));
		s = get_str(&c2, &l);
		memcpy(r->evstr + o, s, l);
		r->evstr[o + l] = '\0';
		e->cgroup = r->evstr + o;
		o += l + 1;
		e->count = get_var(&c2);
		e->uid = (int64_t)get_var(&c2) - 1;
		e->loginuid = (int64_t)get_var(&c2) - 1;
		e->pid = (int64_t)get_var(&c2) - 1;
		dst[0] = (char **)&e->comm;
		dst[1] = (char **)&e->op;
		dst[2] = (char **)&e->detail;
		for (k = 0; k < 3; k++) {
			s = get_str(&c2, &l);
			memcpy(r->evstr + o, s, l);
			r->evstr[o + l] = '\0';
			*dst[k] = l ? r->evstr + o : NULL;
			o += l + 1;
		}
		/* a newer writer's kind of event: skipped, the frame is good */
		if (e->type < MCG_HEV__COUNT)
			j++;
		else
			memset(e, 0, sizeof(*e));
	}
	r->nev = j;
	return 0;
}

/*
 * Decode frame I of segment SI into the state. A delta frame needs the state
 * at the frame before it; a key frame starts afresh (CARRY: keep the row ids
 * of the paths the state had, so rates go on across it).
 */
static int decode(struct mcg_hist_reader *r, size_t si, size_t i, bool carry, const char **why)
{
	struct rseg *s = &r->seg[si];
	struct rframe *f = &s->f[i];
	struct pathid *old = NULL;
	size_t nold = 0, j, nlive = 0, nkb = (s->nkeys + 7) / 8;
	uint64_t n, k, budget = MCG__HIST_MEM_BUDGET(s->size);
	/* what one cgroup's slot takes but its path */
	uint64_t per_slot =
		sizeof(struct rslot) + 1 + (nkb ? nkb : 1) + s->nkeys * sizeof(uint64_t);
	bool oom = false, big = false;
	struct cur c;
	int rc;

	events_clear(r);
	if (f->bad) {
		*why = "corrupt";
		return -MCG_E_CORRUPT;
	}
	if (f->type == MCG__HIST_DELTA &&
	    (f->gap || !r->st_ok || r->st_seg != si || r->st_frame + 1 != i)) {
		*why = "follows a frame that could not be read (no key frame since)";
		return -ENOKEY;
	}
	rc = load_payload(r, s, i, why);
	if (rc < 0)
		goto corrupt;
	c = (struct cur){r->raw.p, r->raw.p + r->raw.len, false};
	if (f->type == MCG__HIST_KEY) {
		if (carry && r->st_ok && r->nslot) {
			old = malloc(r->nslot * sizeof(*old));
			if (!old) {
				*why = "out of memory";
				rc = -ENOMEM;
				goto corrupt;
			}
			for (j = 0; j < r->nslot; j++)
				if (r->slot[j].live) {
					old[nold].path = r->slot[j].path;
					old[nold++].rowid = r->slot[j].rowid;
				}
			qsort(old, nold, sizeof(*old), cmp_pathid);
		}
		/* the old paths stay allocated until the new table is built */
		for (j = 0; j < r->nslot; j++) {
			free(r->slot[j].valid);
			free(r->slot[j].v);
			r->slot[j].valid = NULL;
			r->slot[j].v = NULL;
		}
	}
	r->st_ok = false;
	{
		struct rslot *oldslot = f->type == MCG__HIST_KEY ? r->slot : NULL;
		size_t oldn = r->nslot;

		if (oldslot) {
			r->slot = NULL;
			r->nslot = r->cap = 0;
			r->slot_bytes = 0;
		}
		n = get_var(&c);
		/* an added cgroup takes at least 3 bytes (id, length, '/') */
		if (c.bad || n > (uint64_t)(c.end - c.p) / 3 || r->nslot + n > MCG__HIST_MAX_SLOTS)
			c.bad = true;
		else if (r->slot_bytes + n * (per_slot + 1) > budget)
			c.bad = big = true;
		for (k = 0; !c.bad && k < n; k++) {
			uint64_t sid = get_var(&c);
			size_t l, nl = 0;
			const char *p = get_str(&c, &l), *nm = NULL;
			struct rslot *sl;

			if (s->format >= MCG__HIST_FORMAT)
				nm = get_str(&c, &nl);
			/* a name only as the writer writes one (bounded, printable) */
			if (c.bad || sid != r->nslot || l == 0 || p[0] != '/' ||
			    (nl && !mcg_hist_name_valid(nm, nl))) {
				c.bad = true;
				break;
			}
			if (r->slot_bytes + per_slot + l + nl > budget) {
				c.bad = big = true;
				break;
			}
			if (mcg_grow(&r->slot, &r->cap, r->nslot, sizeof(*r->slot), 256) < 0) {
				c.bad = oom = true;
				break;
			}
			sl = &r->slot[r->nslot];
			memset(sl, 0, sizeof(*sl));
			sl->path = dup_n(p, l);
			sl->name = nl ? dup_n(nm, nl) : NULL;
			sl->valid = calloc(nkb ? nkb : 1, 1);
			sl->v = calloc(s->nkeys, sizeof(*sl->v));
			if (!sl->path || !sl->valid || !sl->v || (nl && !sl->name)) {
				free(sl->path);
				free(sl->name);
				free(sl->valid);
				free(sl->v);
				c.bad = oom = true;
				break;
			}
			r->slot_bytes += per_slot + l + nl;
			sl->live = true;
			sl->rowid = 0;
			if (old) {
				struct pathid key = {sl->path, 0}, *hit;

				hit = bsearch(&key, old, nold, sizeof(*old), cmp_pathid);
				if (hit)
					sl->rowid = hit->rowid;
			}
			if (!sl->rowid)
				sl->rowid = ++r->next_rowid;
			r->nslot++;
		}
		if (oldslot) {
			for (j = 0; j < oldn; j++) {
				free(oldslot[j].path);
				free(oldslot[j].name);
			}
			free(oldslot);
		}
		free(old);
	}
	n = get_var(&c);
	if (c.bad || n > (uint64_t)(c.end - c.p))
		c.bad = true;
	for (k = 0; !c.bad && k < n; k++) {
		uint64_t sid = get_var(&c);

		if (c.bad || sid >= r->nslot || !r->slot[sid].live) {
			c.bad = true;
			break;
		}
		r->slot[sid].live = false;
	}
	for (j = 0; j < r->nslot; j++)
		nlive += r->slot[j].live;
	n = get_var(&c);
	if (c.bad || n != nlive)
		c.bad = true;
	for (j = 0; !c.bad && j < r->nslot; j++) {
		struct rslot *sl = &r->slot[j];
		uint8_t flags, *mask;
		unsigned b;

		if (!sl->live)
			continue;
		if (c.p >= c.end) {
			c.bad = true;
			break;
		}
		flags = *c.p++;
		if (flags > 3) {
			c.bad = true;
			break;
		}
		if (flags & 1) {
			if ((size_t)(c.end - c.p) < nkb) {
				c.bad = true;
				break;
			}
			memcpy(sl->valid, c.p, nkb);
			c.p += nkb;
			/* bits past the last key are never set */
			if (s->nkeys % 8 && sl->valid[nkb - 1] >> (s->nkeys % 8)) {
				c.bad = true;
				break;
			}
		}
		if (!(flags & 2))
			continue;
		if ((size_t)(c.end - c.p) < nkb) {
			c.bad = true;
			break;
		}
		mask = (uint8_t *)c.p;
		c.p += nkb;
		for (b = 0; b < nkb; b++)
			if (mask[b] & ~sl->valid[b])
				c.bad = true; /* a value moved that is not there */
		for (b = 0; !c.bad && b < nkb; b++) {
			unsigned m = mask[b];

			while (m) {
				unsigned bit = (unsigned)__builtin_ctz(m);

				m &= m - 1;
				sl->v[b * 8 + bit] += (uint64_t)mcg_hist_unzigzag(get_var(&c));
			}
		}
	}
	if (!c.bad) {
		rc = parse_events(r, &c, f->time_ns,
				  budget > r->slot_bytes ? budget - r->slot_bytes : 0);
		if (rc == -ENOMEM)
			oom = true;
		if (rc == -E2BIG)
			big = true;
		if (rc < 0)
			c.bad = true;
	}
	if (!c.bad) {
		uint64_t valid = get_var(&c), x;
		unsigned g;

		memset(&r->global, 0, sizeof(r->global));
		r->global.delayacct = -1;
		/* the rows of MCG_HOST_RECORDED, then PSI's two in hundredths + 1 */
		if (valid >> MCG_G__RECORDED)
			c.bad = true;
		r->global.host.valid = c.bad ? 0 : valid;
		for (g = 0; !c.bad && g < MCG_G__RECORDED; g++)
			if (valid >> g & 1)
				r->global.host.v[g] = get_var(&c);
		x = get_var(&c);
		if (x) {
			r->global.host.v[MCG_G_PSI_SOME_AVG10] = x - 1;
			r->global.host.valid |= 1ULL << MCG_G_PSI_SOME_AVG10;
		}
		x = get_var(&c);
		if (x) {
			r->global.host.v[MCG_G_PSI_FULL_AVG10] = x - 1;
			r->global.host.valid |= 1ULL << MCG_G_PSI_FULL_AVG10;
		}
		x = get_var(&c);
		if (x > 2)
			c.bad = true;
		r->global.delayacct = (int)x - 1;
	}
	if (oom) {
		/* not the frame's fault: it is not marked bad, and the caller hears ENOMEM */
		*why = "out of memory";
		rc = -ENOMEM;
		goto corrupt;
	}
	if (c.bad || c.p != c.end) {
		*why = big     ? "claims more memory than a segment of its size could need"
		       : c.bad ? "malformed payload"
			       : "trailing bytes after the payload";
		rc = -MCG_E_CORRUPT;
		goto corrupt;
	}
	r->st_ok = true;
	r->st_seg = si;
	r->st_frame = i;
	return 0;
corrupt:
	events_clear(r);
	r->st_ok = false;
	if (rc != -ENOMEM && rc != -EIO)
		f->bad = true;
	return rc;
}

/* ---- snapshots from the state ---- */

/* Tree pre-order: '/' sorts before every other byte (the order of a frame's rows). */
int mcg_hist_path_cmp(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	if (*a == *b)
		return 0;
	if (!*a)
		return -1;
	if (!*b)
		return 1;
	if (*a == '/')
		return -1;
	if (*b == '/')
		return 1;
	return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
}

static int cmp_slotp(const void *a, const void *b)
{
	const struct rslot *x = *(const struct rslot *const *)a, *y = *(const struct rslot *const *)b;

	return mcg_hist_path_cmp(x->path, y->path);
}

static bool is_parent(const char *p, const char *c)
{
	size_t l = strlen(p);

	if (!strcmp(p, "/"))
		return strcmp(c, "/") != 0;
	return !strncmp(p, c, l) && c[l] == '/';
}

/*
 * The snapshot of the state (rates against PREV); with NAMES, the rows' names
 * too, in r->names (for the frame to take).
 */
static struct mcg_snapshot *build(struct mcg_hist_reader *r, const struct mcg_snapshot *prev,
				  bool names)
{
	struct rseg *s = &r->seg[r->st_seg];
	struct rframe *f = &s->f[r->st_frame];
	struct mcg_snapshot *snap = NULL;
	struct rslot **order = NULL;
	size_t n = 0, j, bytes = 0, o = 0;
	int stack[MCG_WALK_MAX_DEPTH + 2];
	struct mcg_keyset keys = {{0}};

	for (j = 0; j < MCG_ARRAY_SIZE(stack); j++)
		stack[j] = -1;
	for (j = 0; j < r->nslot; j++)
		if (r->slot[j].live)
			n++;
	/* the rows' columns: the counters the segment stores */
	for (j = 0; j < s->nkeys; j++)
		if (s->map[j] >= 0)
			mcg_keyset_add(&keys, (enum mcg_key)s->map[j]);
	if (mcg_snapshot_new(&keys, n, &snap) < 0)
		return NULL;
	n = 0;
	snap->version = s->version;
	snap->page_size = s->page_size;
	snap->mono_ns = f->time_ns;
	snap->global = r->global;
	snap->seq = r->st_frame; /* the frame's number in its segment */
	for (j = 0; j < r->nslot; j++)
		if (r->slot[j].live) {
			n++;
			bytes += strlen(r->slot[j].path) + 1;
		}
	snap->strings = malloc(bytes ? bytes : 1);
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!snap->strings || !order) {
		free(order);
		mcg_snapshot_unref(snap);
		return NULL;
	}
	for (j = 0, n = 0; j < r->nslot; j++)
		if (r->slot[j].live)
			order[n++] = &r->slot[j];
	qsort(order, n, sizeof(*order), cmp_slotp);
	free(r->names);
	r->names = NULL;
	if (names) {
		size_t nb = 0, no;
		char *p;

		for (j = 0; j < n; j++)
			nb += order[j]->name ? strlen(order[j]->name) + 1 : 0;
		r->names = calloc(1, (n ? n : 1) * sizeof(*r->names) + nb);
		if (!r->names) {
			free(order);
			mcg_snapshot_unref(snap);
			return NULL;
		}
		p = (char *)(r->names + (n ? n : 1));
		for (j = 0, no = 0; j < n; j++)
			if (order[j]->name) {
				size_t l = strlen(order[j]->name) + 1;

				memcpy(p + no, order[j]->name, l);
				r->names[j] = p + no;
				no += l;
			}
	}
	for (j = 0; j < n; j++) {
		struct mcg_sample_row *row = &snap->rows[j];
		struct rslot *sl = order[j];
		size_t l = strlen(sl->path), d = 0, x;
		unsigned b;

		memcpy(snap->strings + o, sl->path, l + 1);
		row->path = snap->strings + o;
		o += l + 1;
		row->name = strcmp(row->path, "/") ? strrchr(row->path, '/') + 1 : row->path;
		if (!*row->name)
			row->name = row->path;
		for (x = 0; x < l; x++)
			d += sl->path[x] == '/';
		if (!strcmp(row->path, "/"))
			d = 0;
		if (d > MCG_WALK_MAX_DEPTH)
			d = MCG_WALK_MAX_DEPTH;
		row->depth = (int)d;
		row->parent = -1;
		/* the nearest row above whose path is a parent of this one (pre-order) */
		for (x = d; x-- > 0;) {
			int p = stack[x];

			if (p >= 0 && is_parent(snap->rows[p].path, row->path)) {
				row->parent = p;
				break;
			}
		}
		stack[d] = (int)j;
		row->id = sl->rowid;
		row->async = -1;
		for (b = 0; b < s->nkeys; b++)
			if ((sl->valid[b / 8] >> (b % 8) & 1) && s->map[b] >= 0)
				mcg_sample_set(row, (enum mcg_key)s->map[b], sl->v[b]);
	}
	snap->n_rows = n;
	/* a subtree's recording starts at depth 0, as the live sampler's walk does */
	if (n) {
		int min = snap->rows[0].depth;

		for (j = 1; j < n; j++)
			if (snap->rows[j].depth < min)
				min = snap->rows[j].depth;
		for (j = 0; j < n; j++)
			snap->rows[j].depth -= min;
	}
	free(order);
	mcg_snapshot_rates(prev, snap);
	return snap;
}

/* ---- navigation ---- */

static int refresh(struct mcg_hist_reader *r)
{
	struct mcg__hist_seglist l;
	size_t i;
	int rc = mcg__hist_list(r->dirfd, &l);

	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		struct rseg *s;

		if (r->nseg && l.seg[i].start <= r->seg[r->nseg - 1].start)
			continue;
		s = realloc(r->seg, (r->nseg + 1) * sizeof(*s));
		if (!s) {
			free(l.seg);
			return -ENOMEM;
		}
		r->seg = s;
		s = &r->seg[r->nseg++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", l.seg[i].name);
		s->start = l.seg[i].start;
		s->fd = -1;
	}
	free(l.seg);
	/* the newest segment may have grown */
	if (r->nseg && r->seg[r->nseg - 1].scanned)
		scan(r, &r->seg[r->nseg - 1]);
	return 0;
}

static int ensure(struct mcg_hist_reader *r, size_t si)
{
	return r->seg[si].scanned || r->seg[si].dead ? 0 : scan(r, &r->seg[si]);
}

/* The data frame after (SI, I) in reading order; false at the end. I = 0: the first of SI. */
static bool pos_next(struct mcg_hist_reader *r, size_t *si, size_t *i)
{
	size_t s = *si, j = *i + 1;

	for (; s < r->nseg; s++, j = 1) {
		if (ensure(r, s) < 0)
			return false;
		if (r->seg[s].dead)
			continue;
		if (j < 1)
			j = 1;
		if (j < r->seg[s].nf) {
			*si = s;
			*i = j;
			return true;
		}
	}
	return false;
}

static bool pos_prev(struct mcg_hist_reader *r, size_t *si, size_t *i)
{
	size_t s = *si;

	if (*i > 1) {
		(*i)--;
		return true;
	}
	while (s-- > 0) {
		if (ensure(r, s) < 0)
			return false;
		if (!r->seg[s].dead && r->seg[s].nf > 1) {
			*si = s;
			*i = r->seg[s].nf - 1;
			return true;
		}
	}
	return false;
}

/* The frame of SNAP (a reference taken over: dropped when there is no room for the frame). */
static struct mcg_hist_frame *make_frame(struct mcg_hist_reader *r, struct mcg_snapshot *snap)
{
	struct mcg_hist_frame *fr = calloc(1, sizeof(*fr));
	struct rseg *s = &r->seg[r->st_seg];

	if (!fr) {
		mcg_snapshot_unref(snap);
		return NULL;
	}
	fr->snap = mcg_snapshot_ref(snap);
	fr->time_ns = s->f[r->st_frame].time_ns;
	fr->ev = r->ev;
	fr->nev = r->nev;
	fr->strings = r->evstr;
	r->ev = NULL;
	r->evstr = NULL;
	r->nev = 0;
	fr->segment = s->name;
	fr->index = (unsigned)r->st_frame;
	fr->names = r->names;
	r->names = NULL;
	mcg_snapshot_unref(r->last);
	r->last = snap;
	r->have_cur = true;
	r->cur_seg = r->st_seg;
	r->cur_frame = r->st_frame;
	return fr;
}

/*
 * Decode (SI, I) from the key frame before it, with the frame before it too
 * when it is in the same segment (for its rates). -ENOKEY when no key frame
 * before it can be read.
 */
static int decode_at(struct mcg_hist_reader *r, size_t si, size_t i, struct mcg_hist_frame **ret)
{
	struct rseg *s = &r->seg[si];
	struct mcg_snapshot *prev = NULL, *snap;
	const char *why;
	size_t k, j, from = i > 1 ? i - 1 : i;
	int rc;

	for (k = from; k >= 1; k--)
		if (s->f[k].type == MCG__HIST_KEY && !s->f[k].bad)
			break;
	if (k < 1)
		return -ENOKEY;
	r->st_ok = false;
	for (j = k; j <= i; j++) {
		rc = decode(r, si, j, j > k, &why);
		if (rc == -ENOMEM) {
			mcg_snapshot_unref(prev);
			return rc;
		}
		if (rc < 0) {
			if (rc != -ENOKEY)
				report(r, s, j, s->f[j].off, why);
			mcg_snapshot_unref(prev);
			prev = NULL;
			if (j == i)
				return -ENOKEY;
			continue;
		}
		if (j + 1 == i) {
			prev = build(r, NULL, false);
			if (!prev)
				return -ENOMEM;
		}
	}
	snap = build(r, prev, true);
	mcg_snapshot_unref(prev);
	if (!snap)
		return -ENOMEM;
	*ret = make_frame(r, snap);
	return *ret ? 0 : -ENOMEM;
}

/* From (SI, I) on, the first frame that decodes. */
static int decode_from(struct mcg_hist_reader *r, size_t si, size_t i, bool forward,
		       struct mcg_hist_frame **ret)
{
	for (;;) {
		int rc = decode_at(r, si, i, ret);

		if (rc != -ENOKEY)
			return rc;
		if (!(forward ? pos_next(r, &si, &i) : pos_prev(r, &si, &i)))
			return -ENOENT;
	}
}

int mcg_hist_reader_open(const char *dir, mcg_hist_bad_fn bad, void *userdata,
			 struct mcg_hist_reader **ret)
{
	struct mcg_hist_reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->bad = bad;
	r->ud = userdata;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		free(r);
		return -ENOMEM;
	}
	/* a reader that is not root (of the history group) trusts root's store */
	rc = mcg__trusted_dir_ro(dir ? dir : MCG_HIST_DEFAULT_DIR, &r->dirfd);
	if (rc < 0) {
		ZSTD_freeDCtx(r->dctx);
		free(r);
		return rc;
	}
	rc = refresh(r);
	if (rc < 0) {
		mcg_hist_reader_free(r);
		return rc;
	}
	*ret = r;
	return 0;
}

void mcg_hist_reader_free(struct mcg_hist_reader *r)
{
	size_t i;

	if (!r)
		return;
	state_clear(r);
	free(r->slot);
	events_clear(r);
	for (i = 0; i < r->nseg; i++) {
		if (r->seg[i].fd >= 0)
			close(r->seg[i].fd);
		free(r->seg[i].f);
		free(r->seg[i].map);
	}
	free(r->seg);
	mcg_snapshot_unref(r->last);
	free(r->names);
	free(r->in.p);
	free(r->raw.p);
	ZSTD_freeDCtx(r->dctx);
	close(r->dirfd);
	free(r);
}

void mcg_hist_frame_free(struct mcg_hist_frame *f)
{
	if (!f)
		return;
	mcg_snapshot_unref(f->snap);
	free(f->names);
	free(f->ev);
	free(f->strings);
	free(f);
}

int mcg_hist_reader_span(struct mcg_hist_reader *r, uint64_t *ret_first, uint64_t *ret_last)
{
	size_t si = 0, i = 0, sl, il;

	if (!r->nseg || !pos_next(r, &si, &i))
		return -ENOENT;
	sl = r->nseg - 1;
	ensure(r, sl);
	il = r->seg[sl].nf;
	if (r->seg[sl].dead || il <= 1) {
		il = 1;
		if (!pos_prev(r, &sl, &il))
			return -ENOENT;
	} else {
		il--;
	}
	if (ret_first)
		*ret_first = r->seg[si].f[i].time_ns;
	if (ret_last)
		*ret_last = r->seg[sl].f[il].time_ns;
	return 0;
}

int mcg_hist_seek(struct mcg_hist_reader *r, uint64_t t_ns, struct mcg_hist_frame **ret)
{
	size_t si = 0, i, s;

	if (!r->nseg)
		return -ENOENT;
	/* the last segment started at or before T */
	for (s = 0; s < r->nseg; s++)
		if (r->seg[s].start <= t_ns)
			si = s;
	for (;;) {
		int rc = ensure(r, si);

		if (rc < 0)
			return rc;
		for (i = 1; !r->seg[si].dead && i < r->seg[si].nf; i++)
			if (r->seg[si].f[i].time_ns >= t_ns)
				return decode_from(r, si, i, true, ret);
		if (si + 1 >= r->nseg)
			break;
		si++;
	}
	/* past the end: the last frame */
	si = r->nseg - 1;
	i = r->seg[si].dead ? 1 : r->seg[si].nf;
	if (!pos_prev(r, &si, &i))
		return -ENOENT;
	return decode_from(r, si, i, false, ret);
}

int mcg_hist_next(struct mcg_hist_reader *r, struct mcg_hist_frame **ret)
{
	size_t si, i;
	const char *why;
	struct mcg_snapshot *snap;
	int rc;

	if (!r->have_cur)
		return mcg_hist_seek(r, 0, ret);
	si = r->cur_seg;
	i = r->cur_frame;
	if (!pos_next(r, &si, &i)) {
		refresh(r);
		si = r->cur_seg;
		i = r->cur_frame;
		if (!pos_next(r, &si, &i))
			return -ENOENT;
	}
	/* the state is at the current frame: one more frame on top of it */
	if (r->st_ok && r->st_seg == r->cur_seg && r->st_frame == r->cur_frame) {
		rc = decode(r, si, i, true, &why);
		if (rc == 0) {
			snap = build(r, r->last, true);
			if (!snap)
				return -ENOMEM;
			*ret = make_frame(r, snap);
			return *ret ? 0 : -ENOMEM;
		}
		if (rc == -ENOMEM)
			return rc;
		if (rc != -ENOKEY)
			report(r, &r->seg[si], i, r->seg[si].f[i].off, why);
	}
	return decode_from(r, si, i, true, ret);
}

int mcg_hist_prev(struct mcg_hist_reader *r, struct mcg_hist_frame **ret)
{
	size_t si, i;

	if (!r->have_cur)
		return -ENOENT;
	si = r->cur_seg;
	i = r->cur_frame;
	if (!pos_prev(r, &si, &i))
		return -ENOENT;
	return decode_from(r, si, i, false, ret);
}

/* The nearest frame with events that STEP (mcg_hist_next or mcg_hist_prev) goes to. */
static int step_to_event(struct mcg_hist_reader *r,
			 int (*step)(struct mcg_hist_reader *, struct mcg_hist_frame **),
			 struct mcg_hist_frame **ret)
{
	for (;;) {
		struct mcg_hist_frame *f;
		int rc = step(r, &f);

		if (rc < 0)
			return rc;
		if (f->nev) {
			*ret = f;
			return 0;
		}
		mcg_hist_frame_free(f);
	}
}

int mcg_hist_next_event(struct mcg_hist_reader *r, struct mcg_hist_frame **ret)
{
	return step_to_event(r, mcg_hist_next, ret);
}

int mcg_hist_prev_event(struct mcg_hist_reader *r, struct mcg_hist_frame **ret)
{
	return step_to_event(r, mcg_hist_prev, ret);
}

int mcg_hist_step(struct mcg_hist_reader *r, long n, struct mcg_hist_frame **ret)
{
	struct mcg_hist_frame *f;
	long i;
	int rc;

	if (!r->have_cur || n == 0)
		return n ? -ENOENT : -EINVAL;
	if (n == 1)
		return mcg_hist_next(r, ret);
	if (n == -1)
		return mcg_hist_prev(r, ret);
	/*
	 * Far steps: walk the frames' headers (already scanned) and decode only
	 * the target, from its key frame.
	 */
	{
		size_t si = r->cur_seg, fi = r->cur_frame;
		bool moved = false;

		for (i = 0; i < (n > 0 ? n : -n); i++) {
			if (!(n > 0 ? pos_next(r, &si, &fi) : pos_prev(r, &si, &fi)))
				break;
			moved = true;
		}
		if (!moved)
			return -ENOENT;
		rc = decode_from(r, si, fi, n > 0, &f);
		if (rc < 0)
			return rc;
	}
	*ret = f;
	return 0;
}
