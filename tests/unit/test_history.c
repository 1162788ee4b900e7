/* test_history.c: the history store: varints, checksums, the writer and reader round trip, corrupt and truncated frames, the spool, TIME. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "history-internal.h"
#include "fx-tmp.h"

#define NS 1000000000ULL
#define T0 (1764500000ULL * NS)

static void test_varint(void **state)
{
	static const uint64_t vals[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX - 1,
					UINT64_MAX};
	uint8_t b[16];
	uint64_t v;
	size_t i, n;

	(void)state;
	for (i = 0; i < MCG_ARRAY_SIZE(vals); i++) {
		n = mcg_hist_varint_put(b, sizeof(b), vals[i]);
		assert_true(n >= 1 && n <= 10);
		assert_int_equal(mcg_hist_varint_get(b, n, &v), n);
		assert_true(v == vals[i]);
		/* one byte short: truncated */
		assert_int_equal(mcg_hist_varint_get(b, n - 1, &v), 0);
	}
	assert_int_equal(mcg_hist_varint_put(b, sizeof(b), UINT64_MAX), 10);
	assert_int_equal(mcg_hist_varint_put(b, 9, UINT64_MAX), 0);
	/* over-long forms the writer never makes */
	b[0] = 0x80, b[1] = 0x00;
	assert_int_equal(mcg_hist_varint_get(b, 2, &v), 0);
	memset(b, 0xff, 11);
	assert_int_equal(mcg_hist_varint_get(b, 11, &v), 0);
	memset(b, 0xff, 9);
	b[9] = 0x02; /* bit 64 */
	assert_int_equal(mcg_hist_varint_get(b, 10, &v), 0);
	assert_true(mcg_hist_unzigzag(mcg_hist_zigzag(INT64_MIN)) == INT64_MIN);
	assert_true(mcg_hist_unzigzag(mcg_hist_zigzag(INT64_MAX)) == INT64_MAX);
	assert_true(mcg_hist_zigzag(-1) == 1 && mcg_hist_zigzag(1) == 2 && mcg_hist_zigzag(0) == 0);
	/* the standard CRC-32C check value */
	assert_true(mcg_hist_crc32c(0, "123456789", 9) == 0xe3069283u);
}

/* ---- a store in a temporary directory ---- */

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mcg-hist-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fx_rmtree(dir);
}

#define NCG 5
#define NFR 23
static const char *const paths[NCG + 1] = {"/", "/a", "/a/b", "/c", "/d e\n", "/late"};

/* The record of cgroup C at frame F: deterministic, some invalid, some MCG_MAX, some going back. */
static void rec_at(int c, int f, struct mcg_record *r)
{
	unsigned k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < MCG_K__COUNT; k++) {
		uint64_t v;

		if ((k + (unsigned)c) % 7 == 0)
			continue; /* absent */
		if (k == MCG_K_LIMIT)
			v = f < 10 ? MCG_MAX : (uint64_t)(512 << 20);
		else if (k == MCG_K_USAGE)
			v = (uint64_t)(f % 5) * 4096 * (uint64_t)(c + 1) + (f == 7 ? UINT64_MAX / 3 : 0);
		else if (mcg_key_desc(k)->kind == MCG_KIND_COUNTER)
			v = (uint64_t)f * (k + 1) * 1000;
		else
			v = k * 100 + (uint64_t)c;
		mcg_record_set(r, k, v);
	}
	/* a validity change half way */
	if (f >= 12 && c == 1)
		mcg_record_unset(r, MCG_K_ANON);
}

/* cgroup C lives in frame F? /c goes away at 8, /late comes at 15. */
static bool alive(int c, int f)
{
	if (c == 3)
		return f < 8;
	if (c == 5)
		return f >= 15;
	return true;
}

static void write_store(unsigned key_every)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = key_every};
	struct mcg_hist_writer *w;
	struct mcg_record recs[NCG + 1];
	struct mcg_hist_cgroup cg[NCG + 1];
	struct mcg_hist_event ev = {.type = MCG_HEV_CHANGE, .cgroup = "/a", .uid = 0,
				    .loginuid = 1000, .pid = 42, .comm = "memcgctl",
				    .op = "set-limit", .detail = "memory.max max -> 536870912"};
	int f, c, n;

	assert_int_equal(mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w), 0);
	for (f = 0; f < NFR; f++) {
		for (c = 0, n = 0; c <= NCG; c++) {
			if (!alive(c, f))
				continue;
			rec_at(c, f, &recs[n]);
			cg[n].path = paths[c];
			cg[n].id = (uint64_t)c + 100;
			cg[n].rec = &recs[n];
			n++;
		}
		ev.time_ns = T0 + (uint64_t)f * 5 * NS - NS;
		{
			struct mcg_sample_global g = {0};

			g.valid = 1u << MCG_G_MEM_TOTAL | 1u << MCG_G_PGSCAN_KSWAPD;
			g.v[MCG_G_MEM_TOTAL] = 8ULL << 30;
			g.v[MCG_G_PGSCAN_KSWAPD] = (uint64_t)f * 500;
			g.psi_some_valid = true;
			g.psi_some_avg10 = 1.25;
			g.delayacct = 1;
			mcg_hist_writer_set_global(w, &g);
		}
		assert_int_equal(mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, cg, (size_t)n, &ev,
						f == 10 ? 1 : 0),
				 0);
	}
	assert_int_equal(mcg_hist_writer_close(w), 0);
}

static int path_index(const char *p)
{
	int c;

	for (c = 0; c <= NCG; c++)
		if (!strcmp(paths[c], p))
			return c;
	return -1;
}

/* Frame F as read back is exactly what was written. */
static void check_frame(const struct mcg_hist_frame *fr, int f)
{
	size_t i, n = 0;
	int c;

	assert_true(fr->time_ns == T0 + (uint64_t)f * 5 * NS);
	for (c = 0; c <= NCG; c++)
		n += alive(c, f);
	assert_int_equal(fr->snap->n_rows, n);
	assert_int_equal(fr->snap->version, 2);
	for (i = 0; i < fr->snap->n_rows; i++) {
		const struct mcg_sample_row *row = &fr->snap->rows[i];
		struct mcg_record want;
		unsigned k;

		c = path_index(row->path);
		assert_true(c >= 0);
		rec_at(c, f, &want);
		for (k = 0; k < MCG_K__COUNT; k++) {
			assert_int_equal(mcg_record_has(&row->rec, k), mcg_record_has(&want, k));
			if (mcg_record_has(&want, k))
				assert_true(row->rec.v[k] == want.v[k]);
		}
	}
	/* the system-wide values, and their rates as live */
	assert_true(fr->snap->global.valid == (1u << MCG_G_MEM_TOTAL | 1u << MCG_G_PGSCAN_KSWAPD));
	assert_true(fr->snap->global.v[MCG_G_MEM_TOTAL] == 8ULL << 30);
	assert_true(fr->snap->global.v[MCG_G_PGSCAN_KSWAPD] == (uint64_t)f * 500);
	assert_true(fr->snap->global.psi_some_valid && !fr->snap->global.psi_full_valid);
	assert_true(fr->snap->global.psi_some_avg10 == 1.25);
	assert_int_equal(fr->snap->global.delayacct, 1);
	if (fr->snap->global.rate_valid)
		assert_true(fr->snap->global.rate[MCG_G_PGSCAN_KSWAPD] == 100.0);
	/* tree pre-order with parents */
	assert_string_equal(fr->snap->rows[0].path, "/");
	assert_string_equal(fr->snap->rows[1].path, "/a");
	assert_string_equal(fr->snap->rows[2].path, "/a/b");
	assert_int_equal(fr->snap->rows[2].parent, 1);
	assert_int_equal(fr->snap->rows[2].depth, 2);
	assert_int_equal(fr->nev, f == 10 ? 1 : 0);
	if (f == 10) {
		assert_int_equal(fr->ev[0].type, MCG_HEV_CHANGE);
		assert_string_equal(fr->ev[0].op, "set-limit");
		assert_string_equal(fr->ev[0].cgroup, "/a");
		assert_string_equal(fr->ev[0].detail, "memory.max max -> 536870912");
		assert_int_equal(fr->ev[0].loginuid, 1000);
		assert_int_equal(fr->ev[0].pid, 42);
		assert_true(fr->ev[0].time_ns == T0 + 10 * 5 * NS - NS);
	}
}

struct bad {
	int n;
	char seg[64];
	unsigned frame[8];
	char why[8][160];
};

static void on_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	struct bad *b = ud;

	(void)off;
	if (b->n < 8) {
		snprintf(b->seg, sizeof(b->seg), "%s", segment);
		b->frame[b->n] = frame;
		snprintf(b->why[b->n], sizeof(b->why[0]), "%s", why);
	}
	b->n++;
}

static void test_round_trip(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b = {0};
	uint64_t first, last;
	int f;

	(void)state;
	write_store(4);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	assert_int_equal(mcg_hist_reader_span(r, &first, &last), 0);
	assert_true(first == T0 && last == T0 + (NFR - 1) * 5 * NS);
	for (f = 0; f < NFR; f++) {
		assert_int_equal(f ? mcg_hist_next(r, &fr) : mcg_hist_seek(r, 0, &fr), 0);
		check_frame(fr, f);
		/* rates as live: usage moves, counters count */
		if (f > 0 && f != 8) {
			const struct mcg_sample_row *row = &fr->snap->rows[1];

			unsigned k = MCG_K_PGFAULT + (mcg_record_has(&row->rec, MCG_K_PGFAULT) ? 0 : 1);

			assert_true(mcg_key_desc(k)->kind == MCG_KIND_COUNTER);
			assert_true(mcg_sample_rate_has(row, k));
			assert_true(row->rate[k] == (k + 1) * 1000 / 5.0);
		}
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(mcg_hist_next(r, &fr), -ENOENT);
	/* seek into the middle (between key frames), step back and forth */
	assert_int_equal(mcg_hist_seek(r, T0 + 14 * 5 * NS - 1, &fr), 0);
	check_frame(fr, 14);
	assert_true(mcg_sample_rate_has(&fr->snap->rows[1], MCG_K_PGFAULT + 1));
	mcg_hist_frame_free(fr);
	for (f = 13; f >= 0; f--) {
		assert_int_equal(mcg_hist_prev(r, &fr), 0);
		check_frame(fr, f);
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(mcg_hist_prev(r, &fr), -ENOENT);
	/* the next event from the start */
	assert_int_equal(mcg_hist_seek(r, 0, &fr), 0);
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_next_event(r, &fr), 0);
	check_frame(fr, 10);
	mcg_hist_frame_free(fr);
	/* larger steps and the event before */
	assert_int_equal(mcg_hist_seek(r, 0, &fr), 0);
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_step(r, 13, &fr), 0);
	check_frame(fr, 13);
	assert_true(mcg_sample_rate_has(&fr->snap->rows[1], MCG_K_PGFAULT + 1));
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_step(r, -5, &fr), 0);
	check_frame(fr, 8);
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_step(r, 1000, &fr), 0);
	check_frame(fr, NFR - 1);
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_step(r, 1, &fr), -ENOENT);
	assert_int_equal(mcg_hist_prev_event(r, &fr), 0);
	check_frame(fr, 10);
	mcg_hist_frame_free(fr);
	assert_int_equal(mcg_hist_prev_event(r, &fr), -ENOENT);
	/* past the end: the last frame */
	assert_int_equal(mcg_hist_seek(r, T0 + 1000 * NS, &fr), 0);
	check_frame(fr, NFR - 1);
	mcg_hist_frame_free(fr);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 0);
}

static char *segment_path(void)
{
	static char p[256];
	struct mcg__hist_seglist l;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	assert_true(fd >= 0);
	assert_int_equal(mcg__hist_list(fd, &l), 0);
	assert_int_equal(l.n, 1);
	snprintf(p, sizeof(p), "%s/%s", dir, l.seg[0].name);
	free(l.seg);
	close(fd);
	return p;
}

/* The offset of frame I (0: the segment header) in the segment file. */
static uint64_t frame_off(int fd, unsigned i)
{
	uint64_t off = 8;
	uint8_t h[32];

	while (i--) {
		assert_int_equal(pread(fd, h, 32, (off_t)off), 32);
		off += 32 + mcg__hist_get32(h + 8);
	}
	return off;
}

static void test_corrupt_frame(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b = {0};
	char *seg;
	uint64_t off;
	uint8_t x;
	int fd, f, seen = 0;

	(void)state;
	write_store(4);
	seg = segment_path();
	fd = open(seg, O_RDWR);
	/* a payload byte of data frame 6 (file frame 7): delta frames 6 and 7 are lost, key 8 reads */
	off = frame_off(fd, 7) + 32 + 3;
	assert_int_equal(pread(fd, &x, 1, (off_t)off), 1);
	x ^= 0x40;
	assert_int_equal(pwrite(fd, &x, 1, (off_t)off), 1);
	/* the header of data frame 13 (file frame 14): its length is garbage now */
	off = frame_off(fd, 14) + 9;
	assert_int_equal(pread(fd, &x, 1, (off_t)off), 1);
	x ^= 0x11;
	assert_int_equal(pwrite(fd, &x, 1, (off_t)off), 1);
	close(fd);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = 0; f < NFR; f++) {
		if (f == 6 || f == 7 || (f >= 13 && f < 16))
			continue;
		assert_int_equal(seen ? mcg_hist_next(r, &fr) : mcg_hist_seek(r, 0, &fr), 0);
		seen++;
		check_frame(fr, f);
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(mcg_hist_next(r, &fr), -ENOENT);
	mcg_hist_reader_free(r);
	/* named: the segment, the frame, the reason; each bad frame once */
	assert_true(b.n >= 2);
	assert_non_null(strstr(seg, b.seg));
	{
		int i, hdr = 0, payload = 0;

		for (i = 0; i < b.n && i < 8; i++) {
			if (b.frame[i] == 14 && strstr(b.why[i], "header checksum"))
				hdr++;
			if (b.frame[i] == 7 && strstr(b.why[i], "payload checksum"))
				payload++;
		}
		assert_int_equal(hdr, 1);
		assert_int_equal(payload, 1);
	}
}

static void test_truncated(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b = {0};
	char *seg;
	uint64_t off;
	int fd, f;

	(void)state;
	write_store(4);
	seg = segment_path();
	fd = open(seg, O_RDWR);
	off = frame_off(fd, NFR); /* the last frame's start */
	assert_int_equal(ftruncate(fd, (off_t)off + 40), 0);
	close(fd);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = 0; f < NFR - 1; f++) {
		assert_int_equal(f ? mcg_hist_next(r, &fr) : mcg_hist_seek(r, 0, &fr), 0);
		check_frame(fr, f);
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(mcg_hist_next(r, &fr), -ENOENT);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.frame[0], NFR);
	assert_non_null(strstr(b.why[0], "truncated"));
}

static void test_planted(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b = {0};
	char p[256];
	int fd, f;
	static const uint8_t junk[64] = "MCGHIST\1MCHF\0\0\0\0\xff\xff\xff\xff";

	(void)state;
	write_store(60);
	/* a planted segment before the real one: magic, then a header claiming 4 GiB */
	snprintf(p, sizeof(p), "%s/history-%020llu.seg", dir, 1ULL);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	/* and a file that is not a segment name: ignored */
	snprintf(p, sizeof(p), "%s/history-1.seg", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	close(fd);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = 0; f < NFR; f++) {
		assert_int_equal(f ? mcg_hist_next(r, &fr) : mcg_hist_seek(r, 0, &fr), 0);
		check_frame(fr, f);
		mcg_hist_frame_free(fr);
	}
	mcg_hist_reader_free(r);
	assert_true(b.n >= 1);
	assert_non_null(strstr(b.seg, "history-00000000000000000001.seg"));
}

static int count_segments(void)
{
	struct mcg__hist_seglist l;
	int fd = open(dir, O_RDONLY | O_DIRECTORY), n;

	assert_true(fd >= 0);
	assert_int_equal(mcg__hist_list(fd, &l), 0);
	n = (int)l.n;
	free(l.seg);
	close(fd);
	return n;
}

/* Segments roll by time; retention deletes whole old segments by age, then by size, never the open one. */
static void test_retention(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .segment_ns = 60 * NS, .key_every = 6};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct mcg_record rec;
	struct mcg_hist_cgroup cg = {"/a", 1, &rec};
	uint64_t first;
	int f;

	(void)state;
	rec_at(1, 0, &rec);
	assert_int_equal(mcg_hist_writer_open(&o, 1, "/m", &w), 0);
	/* 10 minutes at 5 s: a segment a minute */
	for (f = 0; f < 120; f++)
		assert_int_equal(mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, &cg, 1, NULL, 0), 0);
	assert_int_equal(count_segments(), 10);
	/* by age: what is older than 3.5 minutes before the last sample goes (whole segments) */
	o.retain_age_ns = 210 * NS;
	mcg_hist_writer_close(w);
	assert_int_equal(mcg_hist_writer_open(&o, 1, "/m", &w), 0);
	assert_int_equal(mcg_hist_write(w, T0 + 600 * NS, &cg, 1, NULL, 0), 0);
	assert_int_equal(count_segments(), 11);
	assert_int_equal(mcg_hist_writer_retain(w, T0 + 600 * NS), 6);
	assert_int_equal(count_segments(), 5);
	/* the oldest sample left is at most the age plus a segment old */
	assert_int_equal(mcg_hist_reader_open(dir, NULL, NULL, &r), 0);
	assert_int_equal(mcg_hist_reader_span(r, &first, NULL), 0);
	assert_true(first >= T0 + (600 - 210 - 60) * NS && first <= T0 + (600 - 210) * NS);
	assert_int_equal(mcg_hist_seek(r, 0, &fr), 0);
	assert_true(fr->time_ns == first);
	mcg_hist_frame_free(fr);
	mcg_hist_reader_free(r);
	/* by size: one byte allowed keeps only the open segment */
	mcg_hist_writer_close(w);
	o.retain_age_ns = 0;
	o.retain_bytes = 1;
	assert_int_equal(mcg_hist_writer_open(&o, 1, "/m", &w), 0);
	assert_int_equal(mcg_hist_write(w, T0 + 700 * NS, &cg, 1, NULL, 0), 0);
	assert_int_equal(mcg_hist_writer_retain(w, T0 + 700 * NS), 5);
	assert_int_equal(count_segments(), 1);
	mcg_hist_writer_close(w);
}

/* Damage at random (bytes flipped, lengths changed, cut): the reader never reads out of bounds (ASan), ends, and reads what is intact. */
static void test_mutations(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b;
	char *seg;
	uint8_t *orig, *buf;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct stat st;
	int fd, it, f, fwd, rc;

	(void)state;
	write_store(4);
	seg = segment_path();
	fd = open(seg, O_RDONLY);
	assert_int_equal(fstat(fd, &st), 0);
	orig = malloc((size_t)st.st_size);
	buf = malloc((size_t)st.st_size);
	assert_int_equal(read(fd, orig, (size_t)st.st_size), st.st_size);
	close(fd);
	for (it = 0; it < 300; it++) {
		size_t len = (size_t)st.st_size, k, n;

		memcpy(buf, orig, len);
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		n = 1 + seed % 4;
		for (k = 0; k < n; k++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			buf[seed % len] ^= (uint8_t)(1u << (seed >> 32) % 8);
		}
		if (it % 5 == 0)
			len = 8 + (seed >> 20) % (len - 8);
		fd = open(seg, O_WRONLY | O_TRUNC);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		close(fd);
		memset(&b, 0, sizeof(b));
		assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
		for (f = 0, rc = mcg_hist_seek(r, 0, &fr); rc == 0 && f < 2 * NFR;
		     rc = mcg_hist_next(r, &fr), f++)
			mcg_hist_frame_free(fr);
		assert_int_equal(rc, -ENOENT);
		fwd = f;
		for (f = 0, rc = mcg_hist_prev(r, &fr); rc == 0 && f < 2 * NFR;
		     rc = mcg_hist_prev(r, &fr), f++)
			mcg_hist_frame_free(fr);
		assert_int_equal(rc, -ENOENT);
		assert_true(fwd <= NFR && f < fwd + 1);
		mcg_hist_reader_free(r);
		/* a frame lost to damage is reported (a cut between two frames is not damage) */
		if (fwd < NFR && it % 5)
			assert_true(b.n > 0);
	}
	free(orig);
	free(buf);
}

static void test_untrusted_dir(void **state)
{
	struct mcg_hist_reader *r;

	(void)state;
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(mcg_hist_reader_open(dir, NULL, NULL, &r), -MCG_E_UNTRUSTED);
	assert_int_equal(chmod(dir, 0700), 0);
}

static void test_spool(void **state)
{
	struct mcg_hist_event ev = {.time_ns = 17, .type = MCG_HEV_CHANGE, .cgroup = "/web a%b\n",
				    .uid = 0, .loginuid = -1, .pid = 99, .comm = "memcgctl",
				    .op = "set-limit", .detail = "memory.max 1073741824 -> 536870912"};
	struct mcg_hist_event out;
	char line[1024], store[1024];
	int n;

	(void)state;
	n = mcg_hist_spool_format(&ev, line, sizeof(line));
	assert_true(n > 0 && line[n - 1] == '\n');
	assert_string_equal(line, "memcgctl-event 1 17 0 -1 99 memcgctl set-limit /web%20a%25b%0A "
				  "memory.max%201073741824%20->%20536870912\n");
	assert_int_equal(mcg_hist_spool_parse(line, (size_t)n - 1, &out, store, sizeof(store)), 0);
	assert_string_equal(out.cgroup, "/web a%b\n");
	assert_string_equal(out.op, "set-limit");
	assert_string_equal(out.detail, ev.detail);
	assert_int_equal(out.loginuid, -1);
	assert_int_equal(out.pid, 99);
	/* what the library never writes */
	static const char *const bad[] = {
		"memcgctl-event 1 17 0 -1 99 memcgctl set-limit /web",
		"memcgctl-event 1 17 0 -1 99 memcgctl set-limit /web - -",
		"memcgctl-event 2 17 0 -1 99 memcgctl set-limit /web - x",
		"memcgctl-event 1 17 0 -1 99 memcgctl set-limit web -",
		"memcgctl-event 1 17 0 -1 99 memcgctl set-limit /w%41 -",
		"memcgctl-event 1 017 0 -1 99 memcgctl set-limit /web -",
		"memcgctl-event 1 17 0 -2 99 memcgctl set-limit /web -",
		"memcgctl-event 1 17  0 -1 99 memcgctl set-limit /web -",
		"memcgctl-event 1 17 0 -1 99 memcgctl set-limit /web - ",
		"memcgctl-event 1 17 0 -1 99 memcgctl - /web -",
	};
	size_t i;

	for (i = 0; i < MCG_ARRAY_SIZE(bad); i++)
		assert_int_equal(mcg_hist_spool_parse(bad[i], strlen(bad[i]), &out, store,
						      sizeof(store)),
				 -MCG_E_CORRUPT);
}

static void test_time(void **state)
{
	/* 2026-11-30 21:56:17 UTC */
	uint64_t now = 1796075777ULL * NS, t;
	char why[128];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(mcg_hist_time_parse("now", now, &t, why, sizeof(why)), 0);
	assert_true(t == now);
	assert_int_equal(mcg_hist_time_parse("-2h", now, &t, why, sizeof(why)), 0);
	assert_true(t == now - 7200 * NS);
	assert_int_equal(mcg_hist_time_parse("-1h30m", now, &t, why, sizeof(why)), 0);
	assert_true(t == now - 5400 * NS);
	assert_int_equal(mcg_hist_time_parse("03:12", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 3 * 3600 + 12 * 60) * NS);
	/* still to come today: yesterday's */
	assert_int_equal(mcg_hist_time_parse("23:00", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 - 3600) * NS);
	assert_int_equal(mcg_hist_time_parse("yesterday 14:00", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 - 10 * 3600) * NS);
	assert_int_equal(mcg_hist_time_parse("today 00:00:01", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 16) * NS);
	assert_int_equal(mcg_hist_time_parse("2026-11-30T14:00:05Z", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 14 * 3600 + 5) * NS);
	assert_int_equal(mcg_hist_time_parse("2026-11-30T15:00:05+01:00", now, &t, why, sizeof(why)),
			 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 14 * 3600 + 5) * NS);
	assert_int_equal(mcg_hist_time_parse("2026-11-30 14:00:05.250", now, &t, why, sizeof(why)),
			 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 14 * 3600 + 5) * NS +
				 250000000ULL);
	assert_int_equal(mcg_hist_time_parse("2026-11-30", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17) * NS);
	assert_int_equal(mcg_hist_time_parse("@1796075777", now, &t, why, sizeof(why)), 0);
	assert_true(t == now);
	static const char *const bad[] = {"", "-", "-2", "-2x", "25:00", "3:12", "03:61",
					  "tomorrow", "yesterday 1400", "2026-13-01", "2026-11-30T",
					  "2026-11-30T14:00Zjunk", "@", "@12x", "-99999999999d"};
	size_t i;

	for (i = 0; i < MCG_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(mcg_hist_time_parse(bad[i], now, &t, why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retention, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
