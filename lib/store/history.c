/* history.c: the history store's encoding and writer: segments of checksummed, zstd-compressed, delta-encoded frames. */
#include "store/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* ---- pure pieces ---- */

static const char *const event_names[MCG_HEV__COUNT] = {
	[MCG_HEV_CREATED] = "created", [MCG_HEV_REMOVED] = "removed",
	[MCG_HEV_OOM_KILL] = "oom_kill", [MCG_HEV_OOM] = "oom",
	[MCG_HEV_MAX] = "max",	       [MCG_HEV_HIGH] = "high",
	[MCG_HEV_FAILCNT] = "failcnt", [MCG_HEV_DIRTY] = "dirty",
	[MCG_HEV_CHANGE] = "change",   [MCG_HEV_OOM_AUTOPSY] = "oom_autopsy",
	[MCG_HEV_OOM_WARNING] = "oom_warning", [MCG_HEV_SIZE] = "size_answer",
};

const char *mcg_hist_event_name(int type)
{
	return type > 0 && type < MCG_HEV__COUNT ? event_names[type] : NULL;
}

size_t mcg_hist_varint_put(uint8_t *p, size_t len, uint64_t v)
{
	size_t n = 0;

	do {
		if (n >= len)
			return 0;
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

size_t mcg_hist_varint_get(const uint8_t *p, size_t len, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && i < 10; i++) {
		uint64_t b = p[i] & 0x7f;

		/* the 10th byte holds bit 63 only; a zero last byte is never written (but 0 itself) */
		if (i == 9 && p[i] > 1)
			return 0;
		v |= b << (7 * i);
		if (!(p[i] & 0x80)) {
			if (i > 0 && p[i] == 0)
				return 0;
			*ret = v;
			return i + 1;
		}
	}
	return 0;
}

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE 4.2's crc32 instruction computes CRC-32C: 8 bytes a cycle or so, against 1 for the table */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	for (; len; len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#define HAVE_CRC_HW 1
#endif

uint32_t mcg_hist_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	crc = ~crc;
#ifdef HAVE_CRC_HW
	static int hw = -1;

	if (hw < 0)
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	if (hw)
		return ~crc_hw(crc, p, len);
#endif
	if (!crc_table[1])
		crc_init();
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void mcg__hist_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

uint32_t mcg__hist_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void mcg__hist_put64(uint8_t *p, uint64_t v)
{
	mcg__hist_put32(p, (uint32_t)v);
	mcg__hist_put32(p + 4, (uint32_t)(v >> 32));
}

uint64_t mcg__hist_get64(const uint8_t *p)
{
	return mcg__hist_get32(p) | (uint64_t)mcg__hist_get32(p + 4) << 32;
}

void mcg__hist_header_put(uint8_t *h, const struct mcg__hist_fhdr *f)
{
	memcpy(h, MCG__HIST_FRAME_MAGIC, 4);
	h[4] = f->type;
	h[5] = f->flags;
	h[6] = h[7] = 0;
	mcg__hist_put32(h + 8, f->plen);
	mcg__hist_put32(h + 12, f->rawlen);
	mcg__hist_put64(h + 16, f->time_ns);
	mcg__hist_put32(h + 24, f->pcrc);
	mcg__hist_put32(h + 28, mcg_hist_crc32c(0, h, 28));
}

int mcg__hist_header_get(const uint8_t *h, struct mcg__hist_fhdr *f, const char **why)
{
	if (memcmp(h, MCG__HIST_FRAME_MAGIC, 4)) {
		*why = "no frame magic";
		return -MCG_E_CORRUPT;
	}
	if (mcg__hist_get32(h + 28) != mcg_hist_crc32c(0, h, 28)) {
		*why = "header checksum mismatch";
		return -MCG_E_CORRUPT;
	}
	f->type = h[4];
	f->flags = h[5];
	f->plen = mcg__hist_get32(h + 8);
	f->rawlen = mcg__hist_get32(h + 12);
	f->time_ns = mcg__hist_get64(h + 16);
	f->pcrc = mcg__hist_get32(h + 24);
	if (f->type > MCG__HIST_DELTA || (f->flags & ~MCG__HIST_ZSTD) || h[6] || h[7]) {
		*why = "unknown frame type or flags";
		return -MCG_E_CORRUPT;
	}
	if (f->rawlen > MCG__HIST_MAX_RAW || f->plen > MCG__HIST_MAX_RAW ||
	    (!(f->flags & MCG__HIST_ZSTD) && f->plen != f->rawlen)) {
		*why = "frame length out of range";
		return -MCG_E_CORRUPT;
	}
	return 0;
}

/* ---- a growable byte buffer ---- */

int mcg__hist_buf_reserve(struct mcg__hist_buf *b, size_t more)
{
	size_t want = b->len + more, cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (want <= b->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int put_var(struct mcg__hist_buf *b, uint64_t v)
{
	int r = mcg__hist_buf_reserve(b, 10);

	if (r < 0)
		return r;
	b->len += mcg_hist_varint_put(b->p + b->len, 10, v);
	return 0;
}

static int put_bytes(struct mcg__hist_buf *b, const void *p, size_t n)
{
	int r = mcg__hist_buf_reserve(b, n);

	if (r < 0)
		return r;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_str(struct mcg__hist_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	int r;

	if (n > MCG__HIST_MAX_STR)
		n = MCG__HIST_MAX_STR;
	r = put_var(b, n);
	return r < 0 ? r : put_bytes(b, s, n);
}

static int put_events(struct mcg__hist_buf *b, uint64_t time_ns, const struct mcg_hist_event *ev,
		      size_t nev)
{
	size_t i;
	int r = put_var(b, nev);

	for (i = 0; r == 0 && i < nev; i++) {
		const struct mcg_hist_event *e = &ev[i];

		if ((r = put_var(b, (uint64_t)e->type)) < 0 ||
		    (r = put_var(b, mcg_hist_zigzag((int64_t)(e->time_ns - time_ns)))) < 0 ||
		    (r = put_str(b, e->cgroup)) < 0 || (r = put_var(b, e->count)) < 0 ||
		    (r = put_var(b, (uint64_t)(e->uid + 1))) < 0 ||
		    (r = put_var(b, (uint64_t)(e->loginuid + 1))) < 0 ||
		    (r = put_var(b, (uint64_t)(e->pid + 1))) < 0 || (r = put_str(b, e->comm)) < 0 ||
		    (r = put_str(b, e->op)) < 0 || (r = put_str(b, e->detail)) < 0)
			return r;
	}
	return r;
}

/*
 * The system-wide part of a sample (top's header): the valid mask, the valid
 * values whole (a dozen numbers a frame), the PSI averages in hundredths,
 * delay accounting + 1.
 */
static int put_global(struct mcg__hist_buf *b, const struct mcg_sample_global *g)
{
	/* the rows of MCG_HOST_RECORDED only: the format of the files already written */
	const struct mcg_host *h = g ? &g->host : NULL;
	unsigned i, valid = h ? (unsigned)(h->valid & ((1u << MCG_G__RECORDED) - 1)) : 0;
	int r = put_var(b, valid);

	for (i = 0; r == 0 && i < MCG_G__RECORDED; i++)
		if (valid >> i & 1)
			r = put_var(b, h->v[i]);
	if (r < 0)
		return r;
	/* the PSI rows keep hundredths already */
	if ((r = put_var(b, h && mcg_host_has(h, MCG_G_PSI_SOME_AVG10)
				    ? mcg_host_get(h, MCG_G_PSI_SOME_AVG10) + 1
				    : 0)) < 0 ||
	    (r = put_var(b, h && mcg_host_has(h, MCG_G_PSI_FULL_AVG10)
				    ? mcg_host_get(h, MCG_G_PSI_FULL_AVG10) + 1
				    : 0)) < 0)
		return r;
	return put_var(b, g && g->delayacct >= 0 ? (uint64_t)g->delayacct + 1 : 0);
}

/* ---- the writer ---- */

struct wslot {
	uint64_t ext; /* the caller's id */
	char *path;
	char *name; /* the display name, NULL: none (yet) */
	bool live, seen;
	const struct mcg_record *rec; /* this frame's */
	const struct mcg_sample_row *row; /* or its snapshot row's, when REC is NULL */
	uint8_t valid[MCG__HIST_VBYTES];
	uint64_t v[MCG_K__COUNT];
};

struct mcg_hist_writer {
	struct mcg_hist_opts o;
	int dirfd, fd;
	int version;
	gid_t gid;
	char *root;
	char seg[64];
	uint64_t seg_start, seg_bytes, frames;
	struct wslot *slot;
	size_t nslot, cap;
	uint32_t *hash; /* slot index + 1 by ext id; 0 empty */
	size_t hcap;
	struct mcg__hist_buf raw, out;
	bool torn; /* a partial frame could not be cut off: the next frame starts a segment */
	ZSTD_CCtx *cctx;
	bool have_global;
	struct mcg_sample_global global; /* for the next frame */
	mcg_hist_name_fn namer;
	void *namer_ud;
	/* the names of the cgroups of the last table, by id, while a new table is made */
	struct wname *carry;
	size_t ncarry;
};

struct wname {
	uint64_t ext;
	char *path, *name;
};

static int cmp_wname(const void *a, const void *b)
{
	uint64_t x = ((const struct wname *)a)->ext, y = ((const struct wname *)b)->ext;

	return x < y ? -1 : x > y;
}

bool mcg_hist_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!name || len == 0 || len > MCG_HIST_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (name[i] < ' ' || name[i] > '~')
			return false;
	return true;
}

static void carry_free(struct mcg_hist_writer *w)
{
	size_t i;

	for (i = 0; i < w->ncarry; i++) {
		free(w->carry[i].path);
		free(w->carry[i].name);
	}
	free(w->carry);
	w->carry = NULL;
	w->ncarry = 0;
}

static uint32_t hash_ext(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static int hash_rebuild(struct mcg_hist_writer *w, size_t need)
{
	size_t cap = 64, i;
	uint32_t *h;

	while (cap < need * 2)
		cap *= 2;
	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < w->nslot; i++) {
		size_t j;

		if (!w->slot[i].live)
			continue;
		for (j = hash_ext(w->slot[i].ext) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
			;
		h[j] = (uint32_t)i + 1;
	}
	free(w->hash);
	w->hash = h;
	w->hcap = cap;
	return 0;
}

static struct wslot *hash_find(struct mcg_hist_writer *w, uint64_t ext)
{
	size_t j;

	if (!w->hcap)
		return NULL;
	for (j = hash_ext(ext) & (w->hcap - 1); w->hash[j]; j = (j + 1) & (w->hcap - 1)) {
		struct wslot *s = &w->slot[w->hash[j] - 1];

		if (s->ext == ext && s->live)
			return s;
	}
	return NULL;
}

/*
 * A new table (a key frame, a segment): the live slots' names are carried
 * over to the slots made for the same cgroups (the namer is asked once per
 * cgroup); without memory for that, they are asked again.
 */
static void slots_clear(struct mcg_hist_writer *w)
{
	size_t i, n = 0;

	if (!w->nslot)
		goto out; /* a new segment's key frame: the carry stays */
	carry_free(w);
	for (i = 0; i < w->nslot; i++)
		n += w->slot[i].live && w->slot[i].name;
	if (n && (w->carry = malloc(n * sizeof(*w->carry))))
		for (i = 0; i < w->nslot; i++)
			if (w->slot[i].live && w->slot[i].name) {
				w->carry[w->ncarry].ext = w->slot[i].ext;
				w->carry[w->ncarry].path = w->slot[i].path;
				w->carry[w->ncarry++].name = w->slot[i].name;
				w->slot[i].path = w->slot[i].name = NULL;
			}
	if (w->ncarry)
		qsort(w->carry, w->ncarry, sizeof(*w->carry), cmp_wname);
	for (i = 0; i < w->nslot; i++) {
		free(w->slot[i].path);
		free(w->slot[i].name);
	}
	w->nslot = 0;
out:
	if (w->hash)
		memset(w->hash, 0, w->hcap * sizeof(*w->hash));
}

/* Append one frame (header + payload) with one write(): a kill leaves it whole or torn at the end. */
static int write_frame(struct mcg_hist_writer *w, uint8_t type, uint64_t time_ns)
{
	struct mcg__hist_fhdr f = {type, 0, 0, (uint32_t)w->raw.len, time_ns, 0};
	size_t bound = ZSTD_compressBound(w->raw.len), done = 0, n;
	int r;

	if (w->raw.len > MCG__HIST_MAX_RAW)
		return -EFBIG;
	static const char magic[8] = MCG__HIST_SEG_MAGIC;
	/* a new segment's magic goes with its header frame: a kill leaves it empty or readable */
	size_t pre = type == MCG__HIST_SEGHDR ? sizeof(magic) : 0;
	uint8_t *h;

	w->out.len = 0;
	r = mcg__hist_buf_reserve(&w->out, pre + MCG__HIST_FHDR + bound);
	if (r < 0)
		return r;
	memcpy(w->out.p, magic, pre);
	h = w->out.p + pre;
	n = ZSTD_compressCCtx(w->cctx, h + MCG__HIST_FHDR, bound, w->raw.p, w->raw.len,
			      w->o.level);
	if (ZSTD_isError(n) || n >= w->raw.len) {
		/* incompressible (or tiny): stored as is */
		memcpy(h + MCG__HIST_FHDR, w->raw.p, w->raw.len);
		n = w->raw.len;
	} else {
		f.flags = MCG__HIST_ZSTD;
	}
	f.plen = (uint32_t)n;
	f.pcrc = mcg_hist_crc32c(0, h + MCG__HIST_FHDR, n);
	mcg__hist_header_put(h, &f);
	w->out.len = pre + MCG__HIST_FHDR + n;
	while (done < w->out.len) {
		ssize_t k = write(w->fd, w->out.p + done, w->out.len - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = k < 0 ? -errno : -EIO;
			/*
			 * A full disk took part of it: cut it off, so the segment
			 * ends on a whole frame (a torn frame is only ever a kill's)
			 */
			if (done && ftruncate(w->fd, (off_t)w->seg_bytes) < 0)
				w->torn = true;
			return r;
		}
		done += (size_t)k;
	}
	if (w->o.sync && fdatasync(w->fd) < 0)
		return -errno;
	w->seg_bytes += w->out.len;
	return 0;
}

/*
 * Who may read history: seven days of cgroups long gone and, for each change,
 * the uid, loginuid, pid and command of who made it. Root, and the group
 * MCG_HIST_GROUP as for the system journal; nobody else. -1: no such group
 * (root alone).
 */
static gid_t hist_gid(void)
{
	struct group gr, *res = NULL;
	char buf[4096];

	if (getgrnam_r(MCG_HIST_GROUP, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return (gid_t)-1;
	return res->gr_gid;
}

/* FD (the store or a segment) to mode MODE and the history group; best effort past the mode. */
static int hist_restrict(int fd, mode_t mode, gid_t gid)
{
	if (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) < 0 && errno != EPERM)
		return -errno;
	return fchmod(fd, mode) < 0 ? -errno : 0;
}

static int open_segment(struct mcg_hist_writer *w, uint64_t start_ns)
{
	unsigned k;
	int fd, r, tries;

	for (tries = 0; tries < 100; tries++, start_ns++) {
		snprintf(w->seg, sizeof(w->seg), "history-%020llu.seg", (unsigned long long)start_ns);
		fd = mcg_openat_file(w->dirfd, w->seg, O_WRONLY | O_CREAT | O_EXCL | O_APPEND,
				      MCG_HIST_FILE_MODE);
		if (fd != -EEXIST)
			break;
	}
	if (fd < 0)
		return fd;
	r = hist_restrict(fd, MCG_HIST_FILE_MODE, w->gid);
	if (r < 0) {
		close(fd);
		unlinkat(w->dirfd, w->seg, 0);
		return r;
	}
	if (w->fd >= 0) {
		fdatasync(w->fd);
		close(w->fd);
	}
	w->fd = fd;
	w->seg_start = start_ns;
	w->seg_bytes = 0;
	w->frames = 0;
	slots_clear(w);
	w->raw.len = 0;
	if ((r = put_var(&w->raw, MCG__HIST_FORMAT)) < 0 ||
	    (r = put_var(&w->raw, (uint64_t)w->version)) < 0 || (r = put_str(&w->raw, w->root)) < 0 ||
	    (r = put_var(&w->raw, (uint64_t)mcg_page_size())) < 0 ||
	    (r = put_var(&w->raw, w->o.key_every)) < 0 || (r = put_var(&w->raw, MCG_K__COUNT)) < 0)
		return r;
	for (k = 0; k < MCG_K__COUNT; k++)
		if ((r = put_str(&w->raw, mcg_key_name(k))) < 0)
			return r;
	r = write_frame(w, MCG__HIST_SEGHDR, start_ns);
	if (r < 0 && w->seg_bytes == 0) {
		/*
		 * Not even its header fits (a full disk): no segment, rather than
		 * one more empty file at each restart of a recorder
		 */
		close(w->fd);
		w->fd = -1;
		unlinkat(w->dirfd, w->seg, 0);
		w->seg[0] = '\0';
	}
	return r;
}

int mcg_hist_writer_open(const struct mcg_hist_opts *o, int version, const char *root,
			 struct mcg_hist_writer **ret)
{
	struct mcg_hist_writer *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->o = *o;
	w->fd = w->dirfd = -1;
	if (!w->o.dir)
		w->o.dir = MCG_HIST_DEFAULT_DIR;
	if (!w->o.key_every)
		w->o.key_every = MCG_HIST_KEY_EVERY;
	if (!w->o.segment_ns)
		w->o.segment_ns = MCG_HIST_SEGMENT_NS;
	if (!w->o.segment_bytes)
		w->o.segment_bytes = MCG_HIST_SEGMENT_BYTES;
	if (!w->o.level)
		w->o.level = MCG_HIST_ZSTD_LEVEL;
	w->o.dir = NULL; /* not kept: the descriptor is */
	w->version = version;
	w->root = strdup(root ? root : "");
	w->cctx = ZSTD_createCCtx();
	if (!w->root || !w->cctx) {
		r = -ENOMEM;
		goto fail;
	}
	r = mcg_trusted_dir(o->dir ? o->dir : MCG_HIST_DEFAULT_DIR, MCG_HIST_DIR_MODE, true,
			     &w->dirfd);
	if (r < 0)
		goto fail;
	/* a store made 0755 by an earlier memcgctl is closed too: its segments are below it */
	w->gid = hist_gid();
	w->namer = NULL;
	r = hist_restrict(w->dirfd, MCG_HIST_DIR_MODE, w->gid);
	if (r < 0)
		goto fail;
	/* the segment is made at the first frame, named after its time */
	*ret = w;
	return 0;
fail:
	mcg_hist_writer_close(w);
	return r;
}

void mcg_hist_writer_set_namer(struct mcg_hist_writer *w, mcg_hist_name_fn fn, void *userdata)
{
	w->namer = fn;
	w->namer_ud = userdata;
}

void mcg_hist_writer_set_global(struct mcg_hist_writer *w, const struct mcg_sample_global *g)
{
	w->have_global = g != NULL;
	if (g)
		w->global = *g;
}

int mcg_hist_writer_dirfd(const struct mcg_hist_writer *w)
{
	return w->dirfd;
}

static void valid_bytes(const struct mcg_keyset *valid, uint8_t *vb)
{
	unsigned b;

	/* bit k of the set is bit k % 8 of byte k / 8: the words' bytes, low first */
	for (b = 0; b < MCG__HIST_VBYTES; b++)
		vb[b] = valid ? (uint8_t)(valid->w[b / 8] >> (b % 8 * 8)) : 0;
}

static struct wslot *slot_new(struct mcg_hist_writer *w, const struct mcg_hist_cgroup *c)
{
	struct wslot *s;

	if (mcg_grow(&w->slot, &w->cap, w->nslot, sizeof(*w->slot), 256) < 0)
		return NULL;
	s = &w->slot[w->nslot];
	memset(s, 0, sizeof(*s));
	s->path = strdup(c->path);
	if (!s->path)
		return NULL;
	/* the name first seen: the last table's for this cgroup, else the caller's or the namer's */
	if (w->ncarry) {
		struct wname key = {c->id, NULL, NULL}, *hit;

		hit = bsearch(&key, w->carry, w->ncarry, sizeof(key), cmp_wname);
		if (hit && hit->name && !strcmp(hit->path, c->path)) {
			s->name = hit->name;
			hit->name = NULL;
		}
	}
	if (!s->name && c->name && mcg_hist_name_valid(c->name, strlen(c->name)))
		s->name = strdup(c->name);
	if (!s->name && !c->name && w->namer) {
		char buf[MCG_HIST_NAME_MAX + 1];
		size_t n = w->namer(w->namer_ud, c->path, buf, sizeof(buf));

		if (n > 0 && n < sizeof(buf) && mcg_hist_name_valid(buf, n)) {
			buf[n] = '\0';
			s->name = strdup(buf);
		}
	}
	s->ext = c->id;
	s->live = true;
	w->nslot++;
	return s;
}

/* One cgroup's row: flags, the validity when it changed, the mask of moved values and their deltas. */
static int put_row(struct mcg_hist_writer *w, struct wslot *s)
{
	static const struct mcg_keyset none;
	/* a snapshot's row: its values in its cells, not a whole record */
	const struct mcg_keyset *valid = s->rec ? &s->rec->valid : s->row ? &s->row->valid : &none;
	const struct mcg_sample_cell *cell = !s->rec && s->row ? s->row->cell : NULL;
	const unsigned char *col = cell ? s->row->cols->col : NULL;
	uint8_t vb[MCG__HIST_VBYTES], mask[MCG__HIST_VBYTES] = {0};
	uint64_t d[MCG_K__COUNT];
	unsigned k, wi, nd = 0;
	uint8_t flags = 0;
	bool moved = false;
	int r;

	valid_bytes(valid, vb);
	if (memcmp(vb, s->valid, sizeof(vb)))
		flags |= 1;
	/*
	 * The valid counters only (42 of the table's on v1), in the order of
	 * their ids, word by word: what the reader expects, at a few
	 * instructions a counter (a frame of 1,000 rows is 42,000 of them).
	 */
	for (wi = 0; wi < MCG_KEYSET_WORDS; wi++) {
		uint64_t bits = valid->w[wi];

		for (; bits; bits &= bits - 1) {
			uint64_t v;

			k = wi * 64 + (unsigned)__builtin_ctzll(bits);
			if (k >= MCG_K__COUNT)
				break;
			v = cell ? cell[col[k]].v : s->rec->v[k];
			if (v != s->v[k]) {
				mask[k / 8] |= (uint8_t)(1u << (k % 8));
				d[nd++] = mcg_hist_zigzag((int64_t)(v - s->v[k]));
				s->v[k] = v;
				moved = true;
			}
		}
	}
	if (moved)
		flags |= 2;
	if ((r = put_bytes(&w->raw, &flags, 1)) < 0)
		return r;
	if ((flags & 1) && (r = put_bytes(&w->raw, vb, sizeof(vb))) < 0)
		return r;
	memcpy(s->valid, vb, sizeof(vb));
	if (!moved)
		return 0;
	if ((r = put_bytes(&w->raw, mask, sizeof(mask))) < 0)
		return r;
	for (k = 0; k < nd; k++)
		if ((r = put_var(&w->raw, d[k])) < 0)
			return r;
	return 0;
}

/* A sample of CG; with ROWS (a snapshot's), each cgroup's counters are its row's (rec NULL). */
static int write_sample(struct mcg_hist_writer *w, uint64_t time_ns,
			const struct mcg_hist_cgroup *cg, const struct mcg_sample_row *rows,
			size_t n, const struct mcg_hist_event *ev, size_t nev)
{
	bool key;
	size_t i, nadd = 0, ndel = 0, nlive = 0, start;
	int r;

	if (w->fd < 0 || w->torn ||
	    (w->frames && (time_ns - w->seg_start >= w->o.segment_ns || time_ns < w->seg_start ||
			   w->seg_bytes >= w->o.segment_bytes))) {
		w->torn = false;
		r = open_segment(w, time_ns);
		if (r < 0) {
			w->frames = 0;
			return r;
		}
	}
	key = w->frames % w->o.key_every == 0;
	if (key)
		slots_clear(w); /* a key frame: everything is new, against zeros */
	if (w->hcap < (w->nslot + n) * 2 && (r = hash_rebuild(w, w->nslot + n)) < 0)
		return r;
	for (i = 0; i < w->nslot; i++)
		w->slot[i].seen = false;
	start = w->nslot;
	for (i = 0; i < n; i++) {
		struct wslot *s = hash_find(w, cg[i].id);
		size_t j;

		if (s && strcmp(s->path, cg[i].path))
			s = NULL; /* the same id under another path: a new cgroup */
		if (!s || s->seen) {
			s = slot_new(w, &cg[i]);
			if (!s)
				return -ENOMEM;
			for (j = hash_ext(cg[i].id) & (w->hcap - 1); w->hash[j];
			     j = (j + 1) & (w->hcap - 1))
				;
			w->hash[j] = (uint32_t)(s - w->slot) + 1;
		}
		s->seen = true;
		s->rec = cg[i].rec;
		s->row = rows ? &rows[i] : NULL;
	}
	w->raw.len = 0;
	nadd = w->nslot - start;
	if ((r = put_var(&w->raw, nadd)) < 0)
		return r;
	carry_free(w); /* names not carried: cgroups gone */
	for (i = start; i < w->nslot; i++)
		if ((r = put_var(&w->raw, i)) < 0 || (r = put_str(&w->raw, w->slot[i].path)) < 0 ||
		    (r = put_str(&w->raw, w->slot[i].name)) < 0)
			return r;
	for (i = 0; i < start; i++)
		if (w->slot[i].live && !w->slot[i].seen)
			ndel++;
	if ((r = put_var(&w->raw, ndel)) < 0)
		return r;
	for (i = 0; i < start; i++)
		if (w->slot[i].live && !w->slot[i].seen) {
			w->slot[i].live = false;
			if ((r = put_var(&w->raw, i)) < 0)
				return r;
		}
	for (i = 0; i < w->nslot; i++)
		nlive += w->slot[i].live;
	if ((r = put_var(&w->raw, nlive)) < 0)
		return r;
	for (i = 0; i < w->nslot; i++)
		if (w->slot[i].live && (r = put_row(w, &w->slot[i])) < 0)
			return r;
	if ((r = put_events(&w->raw, time_ns, ev, nev)) < 0)
		return r;
	if ((r = put_global(&w->raw, w->have_global ? &w->global : NULL)) < 0)
		return r;
	w->have_global = false;
	r = write_frame(w, key ? MCG__HIST_KEY : MCG__HIST_DELTA, time_ns);
	if (r < 0) {
		/*
		 * The slots hold this frame's values, which are not on disk: the
		 * next frame is a key frame, against nothing
		 */
		w->frames = 0;
		return r;
	}
	w->frames++;
	/* dead slots are dropped at the next key frame; so is a hash grown full of them */
	if (w->nslot > 4 * (nlive + 64))
		w->frames = 0;
	return 0;
}

int mcg_hist_write(struct mcg_hist_writer *w, uint64_t time_ns, const struct mcg_hist_cgroup *cg,
		   size_t n, const struct mcg_hist_event *ev, size_t nev)
{
	return write_sample(w, time_ns, cg, NULL, n, ev, nev);
}

int mcg_hist_write_snapshot(struct mcg_hist_writer *w, uint64_t time_ns,
			    const struct mcg_snapshot *snap, const struct mcg_hist_event *ev,
			    size_t nev)
{
	struct mcg_hist_cgroup *cg = malloc((snap->n_rows ? snap->n_rows : 1) * sizeof(*cg));
	size_t i;
	int r;

	if (!cg)
		return -ENOMEM;
	for (i = 0; i < snap->n_rows; i++) {
		cg[i].path = snap->rows[i].path;
		cg[i].id = snap->rows[i].id;
		cg[i].rec = NULL;
		cg[i].name = NULL;
	}
	mcg_hist_writer_set_global(w, &snap->global);
	r = write_sample(w, time_ns, cg, snap->rows, snap->n_rows, ev, nev);
	free(cg);
	return r;
}

/* ---- retention ---- */

static int cmp_seg(const void *a, const void *b)
{
	const struct mcg__hist_segent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

bool mcg__hist_segname(const char *name, uint64_t *ret_start)
{
	uint64_t v = 0;
	size_t i;

	if (strlen(name) != 8 + 20 + 4 || strncmp(name, "history-", 8) || strcmp(name + 28, ".seg"))
		return false;
	for (i = 8; i < 28; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	*ret_start = v;
	return true;
}

static int take_segment(int dirfd, const struct dirent *de, void *elem, void *ud)
{
	struct mcg__hist_segent *s = elem;
	struct stat st;
	uint64_t start;

	(void)ud;
	if (!mcg__hist_segname(de->d_name, &start))
		return 0;
	if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	memcpy(s->name, de->d_name, 33); /* checked: 32 bytes and the NUL */
	s->start = start;
	s->size = (uint64_t)st.st_size;
	return 1;
}

int mcg__hist_list(int dirfd, struct mcg__hist_seglist *ret)
{
	void *v;
	size_t n;
	int r = mcg__dir_load(dirfd, sizeof(struct mcg__hist_segent), take_segment, NULL, NULL,
			      &v, &n);

	if (r < 0)
		return r;
	if (n)
		qsort(v, n, sizeof(struct mcg__hist_segent), cmp_seg);
	ret->n = n;
	ret->seg = v;
	return 0;
}

int mcg_hist_writer_retain(struct mcg_hist_writer *w, uint64_t now_ns)
{
	struct mcg__hist_seglist l;
	uint64_t total = 0;
	size_t i;
	int r, removed = 0;

	r = mcg__hist_list(w->dirfd, &l);
	if (r < 0)
		return r;
	for (i = 0; i < l.n; i++)
		total += l.seg[i].size;
	for (i = 0; i + 1 < l.n; i++) {
		struct mcg__hist_segent *s = &l.seg[i];
		/* everything in S is older than the next segment's start */
		bool old = w->o.retain_age_ns && l.seg[i + 1].start + w->o.retain_age_ns < now_ns;
		bool big = w->o.retain_bytes && total > w->o.retain_bytes;

		if (!old && !big)
			break;
		if (!strcmp(s->name, w->seg))
			break;
		if (unlinkat(w->dirfd, s->name, 0) == 0) {
			total -= s->size;
			removed++;
		}
	}
	free(l.seg);
	return removed;
}

int mcg_hist_writer_close(struct mcg_hist_writer *w)
{
	int r = 0;

	if (!w)
		return 0;
	if (w->fd >= 0) {
		if (fdatasync(w->fd) < 0)
			r = -errno;
		if (close(w->fd) < 0 && !r)
			r = -errno;
	}
	if (w->dirfd >= 0)
		close(w->dirfd);
	slots_clear(w);
	carry_free(w);
	free(w->slot);
	free(w->hash);
	free(w->raw.p);
	free(w->out.p);
	free(w->root);
	ZSTD_freeCCtx(w->cctx);
	free(w);
	return r;
}
