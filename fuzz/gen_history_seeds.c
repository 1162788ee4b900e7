/*
 * gen_history_seeds.c: writes the seed corpora of fuzz_history and fuzz_spool with the
 * library's own writers (a store of a few cgroups, events (a change, a kill, an early
 * warning) and key frames; spool lines).
 *
 *   cc -D_GNU_SOURCE -Ilib -Ilib/include fuzz/gen_history_seeds.c BUILD/libmemcg_static.a \
 *      $(pkg-config --libs libnl-genl-3.0 libzstd) -lm -o gen && ./gen fuzz/corpus
 */
#include "ops/ops.h"
#include "store/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define NS 1000000000ULL

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *b = malloc(1 << 22);

	if (!f || !b)
		exit(1);
	*len = fread(b, 1, 1 << 22, f);
	fclose(f);
	return b;
}

/* SEG as mode-1 input: each frame's type, length and raw (decompressed) payload. */
static size_t framed(const uint8_t *seg, size_t n, uint8_t mode, uint8_t *out)
{
	size_t off = 8, o = 1;

	out[0] = mode;
	while (off + 32 <= n) {
		struct mcg__hist_fhdr h;
		const char *why;
		uint8_t raw[65536];
		size_t rl;

		if (mcg__hist_header_get(seg + off, &h, &why) < 0)
			break;
		if (h.flags & MCG__HIST_ZSTD)
			rl = ZSTD_decompress(raw, sizeof(raw), seg + off + 32, h.plen);
		else
			memcpy(raw, seg + off + 32, rl = h.plen);
		if (ZSTD_isError(rl) || rl > 65535)
			break;
		out[o++] = h.type;
		out[o++] = (uint8_t)rl;
		out[o++] = (uint8_t)(rl >> 8);
		memcpy(out + o, raw, rl);
		o += rl;
		off += 32 + h.plen;
	}
	return o;
}

int main(int argc, char **argv)
{
	char store[] = "/tmp/mcg-seeds-XXXXXX", hd[4096], sd[4096], path[8192];
	static const char *const paths[] = {"/", "/a", "/a/b", "/web.slice", "/x y\n"};
	static const char *const names[] = {NULL, "docker:web", "pod:shop/api-7d9f", "web.slice", NULL};
	struct mcg_hist_opts o = {.key_every = 3};
	struct mcg_hist_writer *w;
	struct mcg_record rec[5];
	struct mcg_hist_cgroup cg[5];
	struct mcg_hist_event ev[3] = {
		{.type = MCG_HEV_CHANGE, .cgroup = "/a", .uid = 0, .loginuid = 1000, .pid = 42,
		 .comm = "memcgctl", .op = "set-limit", .detail = "memory.max max -> 536870912"},
		{.type = MCG_HEV_OOM_KILL, .cgroup = "/a/b", .count = 1, .uid = -1, .loginuid = -1,
		 .pid = -1},
		{0}, /* an early warning (oom_warning), made below */
	};
	struct mcg_oom_warning wn = {.cgroup = "/a/b", .usage = 32 << 20, .limit = 32 << 20,
				     .limit_name = "memory.limit_in_bytes", .reclaimable = 4096,
				     .signal = "failcnt", .events = 212, .interval_us = 100000,
				     .has_psi_full = true, .psi_full_us = 80000,
				     .why = "usage 32 MiB at memory.limit_in_bytes 32 MiB; failcnt +212 "
					    "in 100 ms: an OOM kill is near"};
	static char wtext[4096];
	struct dirent *de;
	uint8_t *seg, *buf = malloc(1 << 23);
	size_t n, m;
	DIR *d;
	int f, c, k;

	if (argc != 2 || !mkdtemp(store) || !buf)
		return 2;
	snprintf(hd, sizeof(hd), "%s/history", argv[1]);
	snprintf(sd, sizeof(sd), "%s/spool", argv[1]);
	mkdir(hd, 0755);
	mkdir(sd, 0755);
	o.dir = store;
	if (mcg_oom_warning_to_event(&wn, &ev[2], wtext, sizeof(wtext)) < 0)
		return 1;
	if (mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w) < 0)
		return 1;
	for (f = 0; f < 8; f++) {
		for (c = 0; c < 5; c++) {
			memset(&rec[c], 0, sizeof(rec[c]));
			for (k = 0; k < MCG_K__COUNT; k += 1 + c)
				mcg_record_set(&rec[c], (enum mcg_key)k, (uint64_t)(f * (k + 1) * 4096));
			cg[c].path = paths[c];
			cg[c].id = 100 + (uint64_t)c;
			cg[c].rec = &rec[c];
			cg[c].name = names[c];
		}
		ev[0].time_ns = ev[1].time_ns = 1764500000ULL * NS + (uint64_t)f * 5 * NS;
		ev[2].time_ns = ev[0].time_ns - NS;
		if (mcg_hist_write(w, 1764500000ULL * NS + (uint64_t)f * 5 * NS, cg, f == 5 ? 3 : 5,
				   ev, f == 4 ? 3 : 0) < 0)
			return 1;
	}
	mcg_hist_writer_close(w);
	d = opendir(store);
	while ((de = readdir(d)))
		if (de->d_name[0] == 'h')
			break;
	snprintf(path, sizeof(path), "%s/%s", store, de->d_name);
	seg = slurp(path, &n);
	closedir(d);
	buf[0] = 0;
	memcpy(buf + 1, seg, n);
	put(hd, "raw-segment", buf, n + 1);
	put(hd, "raw-torn", buf, n - 20);
	m = framed(seg, n, 1, buf);
	put(hd, "framed", buf, m);
	m = framed(seg, n, 3, buf);
	put(hd, "framed-zstd", buf, m);
	/* the segment header and one key frame only */
	m = framed(seg, n, 1, buf);
	{
		size_t off = 1, i;

		for (i = 0; i < 2 && off + 3 <= m; i++)
			off += 3 + (buf[off + 1] | (size_t)buf[off + 2] << 8);
		put(hd, "framed-key", buf, off);
	}
	free(seg);
	unlink(path);
	rmdir(store);

	/* spool lines as mcg_hist_note writes them */
	{
		char line[8192], all[16384];
		size_t a = 0;
		struct mcg_hist_event e = {.time_ns = 1764500000ULL * NS, .type = MCG_HEV_CHANGE,
					   .cgroup = "/web a%b\n", .uid = 0, .loginuid = -1,
					   .pid = 99, .comm = "memcgctl", .op = "set-limit",
					   .detail = "memory.max 1G -> 512M"};
		int l = mcg_hist_spool_format(&e, line, sizeof(line));

		memcpy(all + a, line, (size_t)l);
		a += (size_t)l;
		put(sd, "one", line, (size_t)l);
		e.comm = NULL;
		e.detail = NULL;
		e.cgroup = "/";
		e.uid = 1000;
		l = mcg_hist_spool_format(&e, line, sizeof(line));
		memcpy(all + a, line, (size_t)l);
		a += (size_t)l;
		memcpy(all + a, "garbage line\nmemcgctl-event 1 5 0 0 0 - op /x", 45);
		a += 45;
		put(sd, "mixed", all, a);
	}
	free(buf);
	return 0;
}
