/* test_history.c: the history store: varints, checksums, the writer and reader round trip, corrupt and truncated frames, the spool, TIME. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ops/ops.h"
#include "store/store.h"
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

/* Frame F of the test store: mcg_hist_write()'s result. */
static int write_one(struct mcg_hist_writer *w, int f)
{
	struct mcg_record recs[NCG + 1];
	struct mcg_hist_cgroup cg[NCG + 1];
	struct mcg_hist_event ev = {.type = MCG_HEV_CHANGE, .cgroup = "/a", .uid = 0,
				    .loginuid = 1000, .pid = 42, .comm = "memcgctl",
				    .op = "set-limit", .detail = "memory.max max -> 536870912"};
	int c, n;

	{
		for (c = 0, n = 0; c <= NCG; c++) {
			if (!alive(c, f))
				continue;
			rec_at(c, f, &recs[n]);
			cg[n].path = paths[c];
			cg[n].id = (uint64_t)c + 100;
			cg[n].rec = &recs[n];
			cg[n].name = NULL;
			n++;
		}
		ev.time_ns = T0 + (uint64_t)f * 5 * NS - NS;
		{
			struct mcg_sample_global g = {0};

			g.host.valid = 1u << MCG_G_MEM_TOTAL | 1u << MCG_G_PGSCAN_KSWAPD |
				       1u << MCG_G_PSI_SOME_AVG10 | 1u << MCG_G_NR_DIRTIED;
			g.host.v[MCG_G_MEM_TOTAL] = 8ULL << 30;
			g.host.v[MCG_G_PGSCAN_KSWAPD] = (uint64_t)f * 500;
			g.host.v[MCG_G_PSI_SOME_AVG10] = 125; /* hundredths */
			/* a row past MCG_G__RECORDED: not stored (the format stays) */
			g.host.v[MCG_G_NR_DIRTIED] = 77;
			g.delayacct = 1;
			mcg_hist_writer_set_global(w, &g);
		}
		return mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, cg, (size_t)n, &ev, f == 10 ? 1 : 0);
	}
}

static void write_store(unsigned key_every)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = key_every};
	struct mcg_hist_writer *w;
	int f;

	assert_int_equal(mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w), 0);
	for (f = 0; f < NFR; f++)
		assert_int_equal(write_one(w, f), 0);
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
			assert_int_equal(mcg_sample_has(row, k), mcg_record_has(&want, k));
			if (mcg_record_has(&want, k))
				assert_true(mcg_sample_get(row, k, 0) == want.v[k]);
		}
	}
	/* the system-wide values, and their rates as live */
	assert_true(fr->snap->global.host.valid == (1u << MCG_G_MEM_TOTAL | 1u << MCG_G_PGSCAN_KSWAPD |
						    1u << MCG_G_PSI_SOME_AVG10));
	assert_true(fr->snap->global.host.v[MCG_G_MEM_TOTAL] == 8ULL << 30);
	assert_true(fr->snap->global.host.v[MCG_G_PGSCAN_KSWAPD] == (uint64_t)f * 500);
	assert_true(mcg_host_percent(&fr->snap->global.host, MCG_G_PSI_SOME_AVG10) == 1.25);
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

			unsigned k = MCG_K_PGFAULT + (mcg_sample_has(row, MCG_K_PGFAULT) ? 0 : 1);

			assert_true(mcg_key_desc(k)->kind == MCG_KIND_COUNTER);
			assert_true(mcg_sample_rate_has(row, k));
			assert_true(mcg_sample_rate(row, k) == (k + 1) * 1000 / 5.0);
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
	assert_non_null(strstr(b.why[0], MCG_HIST_WHY_TORN));
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

/* The namer: "name-of:PATH" for /a and /a/b, none for the others; counts its calls. */
static unsigned namer_calls;
static size_t namer(void *ud, const char *path, char *buf, size_t len)
{
	(void)ud;
	namer_calls++;
	if (strcmp(path, "/a") && strcmp(path, "/a/b"))
		return 0;
	return (size_t)snprintf(buf, len, "docker:n%s", path);
}

static const char *row_name(const struct mcg_hist_frame *fr, const char *path)
{
	size_t i;

	for (i = 0; i < fr->snap->n_rows; i++)
		if (!strcmp(fr->snap->rows[i].path, path))
			return fr->names[i];
	fail_msg("no row %s", path);
	return NULL;
}

/*
 * Names: stored when a cgroup is first seen (the namer asked once per cgroup,
 * across key frames), the caller's own name kept, a name the reader would not
 * take never written; every frame reads them back, past key frames.
 */
static void test_names(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = 3};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct mcg_record rec;
	struct bad b = {0};
	struct mcg_hist_cgroup cg[4] = {{"/", 1, &rec, NULL},
					{"/a", 2, &rec, NULL},
					{"/a/b", 3, &rec, NULL},
					{"/c", 4, &rec, "bad\nname"}};
	int f, n = 0;

	(void)state;
	rec_at(1, 0, &rec);
	namer_calls = 0;
	assert_int_equal(mcg_hist_writer_open(&o, 2, "/m", &w), 0);
	mcg_hist_writer_set_namer(w, namer, NULL);
	for (f = 0; f < 8; f++) {
		cg[2].name = f >= 4 ? "pod:shop/api" : NULL; /* the caller's own: taken when new */
		assert_int_equal(mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, cg, 4, NULL, 0), 0);
	}
	assert_int_equal(mcg_hist_writer_close(w), 0);
	/* the first frame asks for /, /a and /a/b (not /c: its own name, refused); each key
	 * frame again for / only (no name to carry) */
	assert_int_equal(namer_calls, 3 + 2);
	assert_false(mcg_hist_name_valid("bad\nname", 8));
	assert_false(mcg_hist_name_valid("", 0));
	assert_true(mcg_hist_name_valid("pod:shop/api", 12));

	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = mcg_hist_seek(r, 0, &fr); f == 0; f = mcg_hist_next(r, &fr), n++) {
		assert_non_null(fr->names);
		assert_null(row_name(fr, "/"));
		assert_string_equal(row_name(fr, "/a"), "docker:n/a");
		/* the first name seen stays: the name given later is not the cgroup's first */
		assert_string_equal(row_name(fr, "/a/b"), "docker:n/a/b");
		assert_null(row_name(fr, "/c"));
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(n, 8);
	/* from the middle (decoded from a key frame) */
	assert_int_equal(mcg_hist_seek(r, T0 + 20 * NS, &fr), 0);
	assert_string_equal(row_name(fr, "/a"), "docker:n/a");
	mcg_hist_frame_free(fr);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 0);
}

/* A format-2 frame with a name the writer never writes (a control byte, too long): corrupt. */
static void test_names_planted(void **state)
{
	static const char magic[8] = MCG__HIST_SEG_MAGIC;
	static const char *const bad_names[] = {"a\x1b[2Jb", NULL};
	char longname[MCG_HIST_NAME_MAX + 2], path[512], seg[64];
	int which;

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(seg, sizeof(seg), "history-%020llu.seg", (unsigned long long)T0);
	for (which = 0; which < 3; which++) {
		const char *nm = which == 0 ? bad_names[0] : which == 1 ? longname : "docker:ok";
		struct mcg__hist_buf p = {0}, fb = {0};
		struct mcg__hist_fhdr h = {0};
		struct mcg_hist_reader *r;
		struct mcg_hist_frame *fr;
		struct bad b = {0};
		size_t l = strlen(nm);
		int fd;

#define PV(v) (assert_int_equal(mcg__hist_buf_reserve(&p, 10), 0), \
	       p.len += mcg_hist_varint_put(p.p + p.len, 10, (v)))
#define PB(s, n) (assert_int_equal(mcg__hist_buf_reserve(&p, (n)), 0), \
		  memcpy(p.p + p.len, (s), (n)), p.len += (n))
#define FRAME(t)                                                                                   \
	do {                                                                                       \
		h.type = (t);                                                                      \
		h.plen = h.rawlen = (uint32_t)p.len;                                               \
		h.time_ns = T0;                                                                    \
		h.pcrc = mcg_hist_crc32c(0, p.p, p.len);                                           \
		assert_int_equal(mcg__hist_buf_reserve(&fb, MCG__HIST_FHDR + p.len), 0);           \
		mcg__hist_header_put(fb.p + fb.len, &h);                                           \
		memcpy(fb.p + fb.len + MCG__HIST_FHDR, p.p, p.len);                                \
		fb.len += MCG__HIST_FHDR + p.len;                                                  \
		p.len = 0;                                                                         \
	} while (0)
		assert_int_equal(mcg__hist_buf_reserve(&fb, 8), 0);
		memcpy(fb.p, magic, 8);
		fb.len = 8;
		PV(MCG__HIST_FORMAT);
		PV(2);
		PV(0);
		PV(4096);
		PV(60);
		PV(1);
		PV(5);
		PB("usage", 5);
		FRAME(MCG__HIST_SEGHDR);
		PV(1); /* one cgroup added: slot 0, "/x", the name */
		PV(0);
		PV(2);
		PB("/x", 2);
		PV(l);
		PB(nm, l);
		PV(0);
		PV(1);
		PB("", 1); /* flags 0 */
		PV(0);
		PV(0);
		PV(0);
		PV(0);
		PV(0);
		FRAME(MCG__HIST_KEY);
#undef PV
#undef PB
#undef FRAME
		fx_rmtree(dir);
		assert_int_equal(mkdir(dir, 0700), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, seg);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, fb.p, fb.len), (ssize_t)fb.len);
		close(fd);
		free(p.p);
		free(fb.p);
		assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
		if (which < 2) {
			assert_int_equal(mcg_hist_seek(r, 0, &fr), -ENOENT);
			assert_int_equal(b.n, 1);
			assert_non_null(strstr(b.why[0], "malformed"));
		} else {
			assert_int_equal(mcg_hist_seek(r, 0, &fr), 0);
			assert_string_equal(fr->names[0], "docker:ok");
			mcg_hist_frame_free(fr);
			assert_int_equal(b.n, 0);
		}
		mcg_hist_reader_free(r);
	}
}

/* Segments roll by time; retention deletes whole old segments by age, then by size, never the open one. */
static void test_retention(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .segment_ns = 60 * NS, .key_every = 6};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct mcg_record rec;
	struct mcg_hist_cgroup cg = {"/a", 1, &rec, NULL};
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

/* ---- allocation failures: --wrap=calloc,--wrap=malloc (tests/CMakeLists.txt) ---- */

void *__real_calloc(size_t n, size_t size);
void *__real_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_malloc(size_t size);
/* the allocation that fails: the Nth from now; 0 none */
static unsigned fail_in;

static bool alloc_fails(void)
{
	if (fail_in && --fail_in == 0) {
		errno = ENOMEM;
		return true;
	}
	return false;
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_malloc(size_t size)
{
	return alloc_fails() ? NULL : __real_malloc(size);
}

/*
 * Every allocation of a seek, one at a time, fails: the seek says ENOMEM (or
 * gets by), never reports a corrupt frame, and the same seek afterwards
 * decodes the frame exactly.
 */
static void test_oom(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	unsigned k, failed = 0;
	int rc;

	(void)state;
	write_store(4);
	for (k = 1; k < 10000; k++) {
		struct bad b = {0};

		assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
		/* frame 6: from the key frame 4, through 5 */
		fail_in = k;
		rc = mcg_hist_seek(r, T0 + 6 * 5 * NS, &fr);
		if (fail_in) {
			/* the seek made fewer than K allocations: every one has failed once */
			fail_in = 0;
			assert_int_equal(rc, 0);
			mcg_hist_frame_free(fr);
			mcg_hist_reader_free(r);
			break;
		}
		if (rc == 0) {
			check_frame(fr, 6);
			mcg_hist_frame_free(fr);
		} else {
			assert_int_equal(rc, -ENOMEM);
			failed++;
		}
		assert_int_equal(b.n, 0);
		assert_int_equal(mcg_hist_seek(r, T0 + 6 * 5 * NS, &fr), 0);
		check_frame(fr, 6);
		mcg_hist_frame_free(fr);
		assert_int_equal(mcg_hist_next(r, &fr), 0);
		check_frame(fr, 7);
		mcg_hist_frame_free(fr);
		mcg_hist_reader_free(r);
		assert_int_equal(b.n, 0);
	}
	assert_true(k > 5 && failed > 0);
}

/* A segment header naming NKEYS counters and a key frame adding NSLOT cgroups "/" with no values. */
static void plant_wide(const char *name, unsigned nkeys, unsigned nslot)
{
	static const char magic[8] = MCG__HIST_SEG_MAGIC;
	struct mcg__hist_buf p = {0}, f = {0};
	struct mcg__hist_fhdr h = {0};
	char path[512];
	unsigned i;
	int fd;

#define PV(v) (assert_int_equal(mcg__hist_buf_reserve(&p, 10), 0), \
	       p.len += mcg_hist_varint_put(p.p + p.len, 10, (v)))
#define FRAME(t)                                                                                   \
	do {                                                                                       \
		h.type = (t);                                                                      \
		h.plen = h.rawlen = (uint32_t)p.len;                                               \
		h.time_ns = T0;                                                                    \
		h.pcrc = mcg_hist_crc32c(0, p.p, p.len);                                           \
		assert_int_equal(mcg__hist_buf_reserve(&f, MCG__HIST_FHDR + p.len), 0);            \
		mcg__hist_header_put(f.p + f.len, &h);                                             \
		memcpy(f.p + f.len + MCG__HIST_FHDR, p.p, p.len);                                  \
		f.len += MCG__HIST_FHDR + p.len;                                                   \
		p.len = 0;                                                                         \
	} while (0)
	assert_int_equal(mcg__hist_buf_reserve(&f, 8), 0);
	memcpy(f.p, magic, 8);
	f.len = 8;
	PV(MCG__HIST_FORMAT_NONAMES); /* a store of before names: still read */
	PV(2);
	PV(0); /* root "" */
	PV(4096);
	PV(60);
	PV(nkeys);
	for (i = 0; i < nkeys; i++) {
		PV(1);
		p.p[p.len++] = 'x';
	}
	FRAME(MCG__HIST_SEGHDR);
	PV(nslot);
	for (i = 0; i < nslot; i++) {
		PV(i);
		PV(1);
		assert_int_equal(mcg__hist_buf_reserve(&p, 1), 0);
		p.p[p.len++] = '/';
	}
	PV(0);	   /* removed */
	PV(nslot); /* live: one flags byte each, nothing moved */
	assert_int_equal(mcg__hist_buf_reserve(&p, nslot), 0);
	memset(p.p + p.len, 0, nslot);
	p.len += nslot;
	PV(0); /* events */
	PV(0); /* global: none valid, no PSI, no delay accounting */
	PV(0);
	PV(0);
	PV(0);
	FRAME(MCG__HIST_KEY);
#undef PV
#undef FRAME
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, f.p, f.len), (ssize_t)f.len);
	close(fd);
	free(p.p);
	free(f.p);
}

/*
 * A key frame of ~100 KiB claiming 20000 cgroups of 1024 counters (160 MiB
 * of state): corrupt, as the segment's size cannot account for it; the same
 * cgroups with 8 counters read.
 */
static void test_amplify(void **state)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct bad b = {0};
	char seg[64];

	(void)state;
	snprintf(seg, sizeof(seg), "history-%020llu.seg", (unsigned long long)T0);
	plant_wide(seg, 1024, 20000);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	assert_int_equal(mcg_hist_seek(r, 0, &fr), -ENOENT);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.frame[0], 1);
	assert_non_null(strstr(b.why[0], "more memory than a segment of its size"));

	fx_rmtree(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	memset(&b, 0, sizeof(b));
	plant_wide(seg, 8, 20000);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	assert_int_equal(mcg_hist_seek(r, 0, &fr), 0);
	assert_int_equal(fr->snap->n_rows, 20000);
	mcg_hist_frame_free(fr);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 0);
}

/*
 * A full disk (RLIMIT_FSIZE here): a recorder restarted on it leaves no empty
 * segment; a frame cut short is cut back off, and the frame after it is a key
 * frame, so every frame written reads back exactly and nothing is corrupt.
 */
static void test_disk_full(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = 60};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct rlimit old, lim;
	struct bad b = {0};
	struct stat st;
	int f, i;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	/* five restarts with not even room for a segment header */
	lim = old;
	lim.rlim_cur = 20;
	for (i = 0; i < 5; i++) {
		assert_int_equal(mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w), 0);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
		assert_int_equal(write_one(w, 0), -EFBIG);
		assert_int_equal(write_one(w, 1), -EFBIG);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		mcg_hist_writer_close(w);
		assert_int_equal(count_segments(), 0);
	}
	/* frames 0-5 fit, 6 does in part, 7 not at all; 8-11 after room was made */
	assert_int_equal(mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w), 0);
	for (f = 0; f < 6; f++)
		assert_int_equal(write_one(w, f), 0);
	assert_int_equal(stat(segment_path(), &st), 0);
	lim.rlim_cur = (rlim_t)st.st_size + 40;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(write_one(w, 6), -EFBIG);
	assert_int_equal(write_one(w, 7), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	{
		struct stat st2;

		assert_int_equal(stat(segment_path(), &st2), 0);
		assert_true(st2.st_size == st.st_size);
	}
	for (f = 8; f < 12; f++)
		assert_int_equal(write_one(w, f), 0);
	assert_int_equal(mcg_hist_writer_close(w), 0);
	signal(SIGXFSZ, SIG_DFL);

	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = 0; f < 12; f++) {
		if (f == 6 || f == 7)
			continue;
		assert_int_equal(f ? mcg_hist_next(r, &fr) : mcg_hist_seek(r, 0, &fr), 0);
		check_frame(fr, f);
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(mcg_hist_next(r, &fr), -ENOENT);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 0);
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
		/* nineteen digits that pass INT64_MAX (once read back as a negative id) */
		"memcgctl-event 1 17 9999999999999999999 -1 99 memcgctl set-limit /web -",
		"memcgctl-event 1 17 0 -1 4294967295 memcgctl set-limit /web -",
		"memcgctl-event 1 9999999999999999999 0 -1 99 memcgctl set-limit /web -",
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
	/* the last second 64 bits of nanoseconds hold */
	assert_int_equal(mcg_hist_time_parse("2554-07-21T23:34:33Z", now, &t, why, sizeof(why)), 0);
	assert_true(t == 18446744073ULL * NS);
	static const char *const bad[] = {"", "-", "-2", "-2x", "25:00", "3:12", "03:61",
					  "tomorrow", "yesterday 1400", "2026-13-01", "2026-11-30T",
					  "2026-11-30T14:00Zjunk", "@", "@12x", "-99999999999d",
					  /* past 2^64 ns (2554-07-21T23:34:33Z): wrapped to 1970 and after */
					  "2600-01-01", "2600-01-01T00:00:00Z", "2554-07-21T23:34:34Z",
					  "2554-07-22", "9999-12-31T23:59:59+01:00", "2026-02-29",
					  "2026-04-31T10:00:00Z"};
	size_t i;

	for (i = 0; i < MCG_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(mcg_hist_time_parse(bad[i], now, &t, why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(mcg_hist_time_parse("2028-02-29", now, &t, why, sizeof(why)), 0);
	/* the one rule: a time without a zone is local (UTC+3 here), one with a zone is not */
	setenv("TZ", "XST-3", 1);
	tzset();
	assert_int_equal(mcg_hist_time_parse("2026-11-30 14:00:05", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 11 * 3600 + 5) * NS);
	assert_int_equal(mcg_hist_time_parse("2026-11-30T14:00:05Z", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 14 * 3600 + 5) * NS);
	/* 21:56:17Z is 00:56:17 local on Dec 1: "00:30" is today local, 21:30Z on Nov 30 */
	assert_int_equal(mcg_hist_time_parse("00:30", now, &t, why, sizeof(why)), 0);
	assert_true(t == (1796075777ULL - 21 * 3600 - 56 * 60 - 17 + 21 * 3600 + 30 * 60) * NS);
	{
		char buf[40];

		/* and every time printed is UTC */
		assert_string_equal(mcg_hist_time_format(now + 5000000, buf, sizeof(buf)),
				    "2026-11-30T21:56:17.005Z");
	}
	setenv("TZ", "UTC", 1);
	tzset();
}

/*
 * An early warning stored and read back with the kill events; an event of a
 * type this reader does not know (a newer writer's) is skipped and its frame
 * kept; a type past MCG_HEV_TYPE_MAX makes the frame corrupt.
 */
static void test_warning_event(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = 4};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct mcg_record rec;
	struct bad b = {0};
	struct mcg_hist_cgroup cg[2] = {{"/", 1, &rec, NULL}, {"/job", 2, &rec, NULL}};
	struct mcg_oom_warning wn = {0}, back;
	struct mcg_hist_event ev[3];
	static char text[4096], small[32];
	int f, n = 0;

	(void)state;
	rec_at(1, 0, &rec);
	wn.time_ns = T0 + 3 * NS;
	snprintf(wn.cgroup, sizeof(wn.cgroup), "/job");
	snprintf(wn.unit, sizeof(wn.unit), "job 1.service");
	wn.usage = 64ULL << 20;
	wn.limit = 64ULL << 20;
	wn.limit_name = "memory.limit_in_bytes";
	wn.reclaimable = 4096;
	wn.signal = "failcnt";
	wn.events = 17;
	wn.interval_us = 100000;
	wn.has_psi_full = true;
	wn.psi_full_us = 1234;
	snprintf(wn.why, sizeof(wn.why), "usage 64M at memory.limit_in_bytes 64M: an OOM kill is near");
	assert_int_equal(mcg_oom_warning_to_event(&wn, &ev[0], text, sizeof(text)), 0);
	assert_int_equal(ev[0].type, MCG_HEV_OOM_WARNING);
	assert_string_equal(mcg_hist_event_name(ev[0].type), "oom_warning");
	assert_int_equal(mcg_oom_warning_to_event(&wn, &ev[1], small, sizeof(small)), -ENOSPC);
	ev[1] = ev[0];
	ev[1].type = MCG_HEV_TYPE_MAX; /* a kind a later memcgctl may write */
	ev[2] = (struct mcg_hist_event){.type = MCG_HEV_OOM_KILL, .cgroup = "/job", .count = 1,
					.time_ns = T0 + 4 * NS, .uid = -1, .loginuid = -1,
					.pid = -1};
	assert_int_equal(mcg_hist_writer_open(&o, 1, "/m", &w), 0);
	for (f = 0; f < 6; f++)
		assert_int_equal(mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, cg, 2, ev,
						f == 1 ? 3 : 0),
				 0);
	assert_int_equal(mcg_hist_writer_close(w), 0);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = mcg_hist_seek(r, 0, &fr); f == 0; f = mcg_hist_next(r, &fr), n++) {
		if (n == 1) {
			assert_int_equal(fr->nev, 2);
			assert_int_equal(fr->ev[0].type, MCG_HEV_OOM_WARNING);
			assert_int_equal(fr->ev[1].type, MCG_HEV_OOM_KILL);
			assert_int_equal(mcg_oom_warning_from_event(&fr->ev[0], &back), 0);
			assert_int_equal(back.time_ns, wn.time_ns);
			assert_string_equal(back.cgroup, "/job");
			assert_string_equal(back.unit, "job 1.service");
			assert_int_equal(back.usage, wn.usage);
			assert_int_equal(back.limit, wn.limit);
			assert_string_equal(back.limit_name, "memory.limit_in_bytes");
			assert_int_equal(back.reclaimable, 4096);
			assert_string_equal(back.signal, "failcnt");
			assert_int_equal(back.events, 17);
			assert_int_equal(back.interval_us, 100000);
			assert_true(back.has_psi_full);
			assert_int_equal(back.psi_full_us, 1234);
			assert_string_equal(back.why, wn.why);
		} else {
			assert_int_equal(fr->nev, 0);
		}
		mcg_hist_frame_free(fr);
	}
	assert_int_equal(n, 6);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 0);

	/* what the writer does not write is refused */
	ev[1] = ev[0];
	ev[1].detail = "v2 usage=1";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
	ev[1].detail = "v1 usage=-1";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
	ev[1].detail = "v1 usage=99999999999999999999999";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
	ev[1].detail = "v1 why=%zz";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
	ev[1].detail = "v1 later=1 usage=5";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), 0);
	assert_int_equal(back.usage, 5);
	ev[1].cgroup = "job";
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
	ev[1].cgroup = "/job";
	ev[1].type = MCG_HEV_OOM_AUTOPSY;
	assert_int_equal(mcg_oom_warning_from_event(&ev[1], &back), -MCG_E_CORRUPT);
}

/* A type past MCG_HEV_TYPE_MAX: no writer's, the frame is corrupt. */
static void test_event_type_bound(void **state)
{
	struct mcg_hist_opts o = {.dir = dir, .key_every = 4};
	struct mcg_hist_writer *w;
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *fr;
	struct mcg_record rec;
	struct bad b = {0};
	struct mcg_hist_cgroup cg[1] = {{"/", 1, &rec, NULL}};
	struct mcg_hist_event ev = {.type = MCG_HEV_TYPE_MAX + 1, .cgroup = "/", .uid = -1,
				    .loginuid = -1, .pid = -1, .time_ns = T0};
	int f, n = 0;

	(void)state;
	rec_at(1, 0, &rec);
	assert_int_equal(mcg_hist_writer_open(&o, 1, "/m", &w), 0);
	for (f = 0; f < 3; f++)
		assert_int_equal(mcg_hist_write(w, T0 + (uint64_t)f * 5 * NS, cg, 1, &ev,
						f == 1 ? 1 : 0),
				 0);
	assert_int_equal(mcg_hist_writer_close(w), 0);
	assert_int_equal(mcg_hist_reader_open(dir, on_bad, &b, &r), 0);
	for (f = mcg_hist_seek(r, 0, &fr); f == 0; f = mcg_hist_next(r, &fr), n++)
		mcg_hist_frame_free(fr);
	mcg_hist_reader_free(r);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.frame[0], 2); /* the header frame is 0 */
	assert_int_equal(n, 1); /* frame 2 is a delta on the bad one: up to the next key frame */
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
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_planted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_amplify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warning_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_type_bound, setup, teardown),
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
