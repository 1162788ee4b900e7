/*
 * fuzz_history.c: the history segment reader (lib/history-read.c), which dump and
 * top --replay run on every segment of a store. The first byte picks the mode:
 *
 *   bit 0 clear: the rest is a segment file as it is (the checks on headers);
 *   bit 0 set:   the rest is a list of frames, each a type byte, a 16-bit
 *                little-endian length and that many payload bytes, made into a
 *                segment with the magic, times and both CRCs right, so that the
 *                fuzzer reaches the payload decoder;
 *   bit 1 set:   (with bit 0) each payload zstd-compressed, as the writer does.
 *
 * Properties: the reader returns 0, -ENOENT or -ENOMEM, never crashes or leaks;
 * every frame it hands out has rows with absolute paths in tree order (parents
 * before children) and names only as the writer writes them (format 2; the
 * corpus keeps format-1 seeds, v1-*), events with a known type and a cgroup path (an
 * oom_warning's fields read back or refused), and every
 * report names a segment and a reason.
 */
#include "fuzz.h"
#include "store/store.h"

#include <zstd.h>

static char segdir[4096];
static const char segname[] = "history-00000000000000000001.seg";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_mkdir("store", segdir, sizeof(segdir));
	return 0;
}

static void on_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	(void)ud;
	(void)frame;
	(void)off;
	FZ_CHECK(segment && !strcmp(segment, segname), "a report without the segment");
	FZ_CHECK(why && why[0], "a report without a reason");
}

/* The framed input (mode bit 0) as a segment in OUT (malloc'd); its length. */
static size_t build(const uint8_t *p, size_t n, bool zstd, uint8_t **out)
{
	static const char magic[8] = MCG__HIST_SEG_MAGIC;
	size_t cap = 8 + n * 2 + 4096, len = 8, i = 0;
	uint8_t *b = malloc(cap);
	unsigned k = 0;

	if (!b)
		abort();
	memcpy(b, magic, 8);
	while (i + 3 <= n) {
		struct mcg__hist_fhdr h = {0};
		size_t pl = (size_t)p[i + 1] | (size_t)p[i + 2] << 8, need;
		const uint8_t *pay = p + i + 3;

		h.type = p[i] % 3;
		i += 3;
		if (pl > n - i)
			pl = n - i;
		i += pl;
		need = MCG__HIST_FHDR + ZSTD_compressBound(pl);
		if (len + need > cap) {
			cap = (len + need) * 2;
			b = realloc(b, cap);
			if (!b)
				abort();
		}
		h.rawlen = (uint32_t)pl;
		h.plen = (uint32_t)pl;
		if (zstd && pl) {
			size_t c = ZSTD_compress(b + len + MCG__HIST_FHDR, need - MCG__HIST_FHDR,
						 pay, pl, 1);

			FZ_CHECK(!ZSTD_isError(c), "zstd: %s", ZSTD_getErrorName(c));
			h.flags = MCG__HIST_ZSTD;
			h.plen = (uint32_t)c;
		} else if (pl) {
			memcpy(b + len + MCG__HIST_FHDR, pay, pl);
		}
		h.time_ns = 1000000000ULL * (1 + 5 * k++);
		h.pcrc = mcg_hist_crc32c(0, b + len + MCG__HIST_FHDR, h.plen);
		mcg__hist_header_put(b + len, &h);
		len += MCG__HIST_FHDR + h.plen;
	}
	*out = b;
	return len;
}

static void check_frame(const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	size_t i;

	FZ_CHECK(s, "a frame without a snapshot");
	for (i = 0; i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];

		FZ_CHECK(r->path && r->path[0] == '/', "row %zu: path not absolute", i);
		FZ_CHECK(r->parent < (int)i, "row %zu: parent %d after it", i, r->parent);
		FZ_CHECK(r->depth >= 0 && r->depth <= MCG_WALK_MAX_DEPTH, "row %zu: depth %d", i,
			 r->depth);
		/* a name only as the writer writes one: bounded, printable ASCII */
		FZ_CHECK(!f->names || !f->names[i] ||
				 mcg_hist_name_valid(f->names[i], strlen(f->names[i])),
			 "row %zu: a name the writer never writes", i);
	}
	for (i = 0; i < f->nev; i++) {
		FZ_CHECK(mcg_hist_event_name(f->ev[i].type), "event %zu: type %d", i,
			 f->ev[i].type);
		FZ_CHECK(f->ev[i].cgroup, "event %zu: no cgroup", i);
		/* an early warning's fields, as dump reads them: bounded, or refused */
		if (f->ev[i].type == MCG_HEV_OOM_WARNING) {
			struct mcg_oom_warning wn;
			int rc = mcg_oom_warning_from_event(&f->ev[i], &wn);

			FZ_CHECK(rc == 0 || rc == -MCG_E_CORRUPT, "warning_from_event: %d", rc);
			FZ_CHECK(rc || (wn.cgroup[0] == '/' && memchr(wn.why, 0, sizeof(wn.why)) &&
					memchr(wn.unit, 0, sizeof(wn.unit))),
				 "event %zu: a warning read back unbounded", i);
		}
	}
}

static void ok(int rc, const char *what)
{
	FZ_CHECK(rc == 0 || rc == -ENOENT || rc == -ENOMEM, "%s returned %d", what, rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	uint8_t *seg = NULL;
	size_t len;
	int rc, n;

	if (!size)
		return 0;
	if (data[0] & 1) {
		len = build(data + 1, size - 1, data[0] & 2, &seg);
	} else {
		len = size - 1;
		seg = malloc(len ? len : 1);
		if (!seg)
			abort();
		memcpy(seg, data + 1, len);
	}
	fz_put(segdir, segname, (const char *)seg, len);
	free(seg);

	rc = mcg_hist_reader_open(segdir, on_bad, NULL, &r);
	FZ_CHECK(rc == 0, "the reader cannot open the store: %d", rc);
	/* forwards through every frame */
	for (n = 0, rc = mcg_hist_seek(r, 0, &f); rc == 0 && n < 4096;
	     rc = mcg_hist_next(r, &f), n++) {
		check_frame(f);
		mcg_hist_frame_free(f);
	}
	ok(rc, "seek/next");
	/* backwards from the end, a far step, and the events */
	rc = mcg_hist_seek(r, UINT64_MAX, &f);
	ok(rc, "seek to the end");
	if (rc == 0) {
		check_frame(f);
		mcg_hist_frame_free(f);
		for (n = 0; n < 64 && (rc = mcg_hist_prev(r, &f)) == 0; n++) {
			check_frame(f);
			mcg_hist_frame_free(f);
		}
		ok(rc, "prev");
		rc = mcg_hist_seek(r, 0, &f);
		if (rc == 0) {
			mcg_hist_frame_free(f);
			rc = mcg_hist_step(r, 7, &f);
			ok(rc, "step");
			if (rc == 0)
				mcg_hist_frame_free(f);
			rc = mcg_hist_next_event(r, &f);
			ok(rc, "next_event");
			if (rc == 0) {
				check_frame(f);
				mcg_hist_frame_free(f);
			}
		}
	}
	mcg_hist_reader_span(r, NULL, NULL);
	mcg_hist_reader_free(r);
	return 0;
}
