/* history-tool.c: bench/history.sh's helper: a synthetic store, per-frame sizes, replay timings. */
#include <memcg.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/*
 *   history-tool synth STORE HOURS NCG INTERVAL_S ACTIVE_PERCENT
 *       a store of HOURS ending now: NCG cgroups sampled every INTERVAL_S; ACTIVE_PERCENT of
 *       them move each sample (usage, LRUs, faults, scans), the rest are idle; one cgroup
 *       made and one removed an hour. Prints frames and bytes.
 *   history-tool frames STORE     one line per frame: on-disk bytes, cgroups, bytes/cgroup,
 *                                 bytes/cgroup before compression
 *   history-tool replay STORE     ms to the first frame at the store's middle, ms per step
 *                                 forward and back (medians and max of 100), peak RSS
 */

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int synth(const char *store, double hours, int ncg, double interval, int active)
{
	struct mcg_hist_opts o = {.dir = store};
	struct mcg_hist_writer *w;
	struct mcg_record *rec = calloc((size_t)ncg + 1, sizeof(*rec));
	struct mcg_hist_cgroup *cg = calloc((size_t)ncg + 1, sizeof(*cg));
	char (*path)[64] = calloc((size_t)ncg + 1, 64);
	uint64_t seed = 88172645463325252ULL, end = now_ns(CLOCK_REALTIME), t, frames, per_hour;
	uint64_t step = (uint64_t)(interval * 1e9), gen = 0;
	int i, r;
	unsigned k;

	if (!rec || !cg || !path)
		return 1;
	frames = (uint64_t)(hours * 3600 / interval);
	per_hour = (uint64_t)(3600 / interval);
	r = mcg_hist_writer_open(&o, 2, "/sys/fs/cgroup", &w);
	if (r < 0) {
		fprintf(stderr, "synth: %s\n", mcg_strerror(r));
		return 1;
	}
	for (i = 0; i < ncg; i++) {
		snprintf(path[i], 64, i ? "/system.slice/svc-%d.service" : "/", i);
		cg[i].path = path[i];
		cg[i].id = (uint64_t)i + 1;
		cg[i].rec = &rec[i];
		for (k = 0; k < MCG_K__COUNT; k++)
			if (mcg_key_desc(k)->file[1])
				mcg_record_set(&rec[i], k, rnd(&seed) % (1ULL << 30) / 4096 * 4096);
		mcg_record_set(&rec[i], MCG_K_LIMIT, i % 3 ? MCG_MAX : 1ULL << 30);
		mcg_record_set(&rec[i], MCG_K_HIGH, MCG_MAX);
	}
	for (t = end - frames * step; t < end; t += step, gen++) {
		/* one cgroup an hour is made again (removed, then a new one under the path) */
		if (gen % per_hour == per_hour / 2)
			cg[1 + gen / per_hour % (ncg - 1)].id = 100000 + gen;
		for (i = 0; i < ncg; i++) {
			struct mcg_record *x = &rec[i];

			if ((int)(rnd(&seed) % 100) >= active)
				continue;
			/* an active cgroup: usage and the LRUs move by pages, events count up */
			x->v[MCG_K_USAGE] += (rnd(&seed) % 64) * 4096 - 32 * 4096;
			x->v[MCG_K_ANON] += (rnd(&seed) % 16) * 4096 - 8 * 4096;
			x->v[MCG_K_FILE] += (rnd(&seed) % 48) * 4096 - 24 * 4096;
			x->v[MCG_K_ACTIVE_FILE] += (rnd(&seed) % 8) * 4096;
			x->v[MCG_K_INACTIVE_FILE] -= (rnd(&seed) % 8) * 4096;
			x->v[MCG_K_PGFAULT] += rnd(&seed) % 5000;
			x->v[MCG_K_PGMAJFAULT] += rnd(&seed) % 3;
			x->v[MCG_K_PGSCAN] += rnd(&seed) % 200;
			x->v[MCG_K_PGSTEAL] += rnd(&seed) % 150;
			x->v[MCG_K_WORKINGSET_REFAULT_FILE] += rnd(&seed) % 20;
			x->v[MCG_K_PSI_SOME] += rnd(&seed) % 3000;
			x->v[MCG_K_DIRTY] = (rnd(&seed) % 256) * 4096;
			x->v[MCG_K_KERNEL] += (rnd(&seed) % 4) * 4096 - 2 * 4096;
			x->v[MCG_K_SLAB] += (rnd(&seed) % 4) * 4096 - 2 * 4096;
		}
		r = mcg_hist_write(w, t, cg, (size_t)ncg, NULL, 0);
		if (r < 0) {
			fprintf(stderr, "synth: %s\n", mcg_strerror(r));
			return 1;
		}
	}
	mcg_hist_writer_close(w);
	printf("frames %llu cgroups %d\n", (unsigned long long)frames, ncg);
	free(rec);
	free(cg);
	free(path);
	return 0;
}

/* Per frame: on-disk bytes from the headers (the layout of lib/store/store.h). */
static int frames(const char *store)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	struct dirent **names;
	int n, i, rc;
	size_t *bytes = NULL, *raw = NULL, nb = 0, cap = 0, fi = 0;

	n = scandir(store, &names, NULL, alphasort);
	if (n < 0) {
		perror(store);
		return 1;
	}
	for (i = 0; i < n; i++) {
		char p[4096];
		unsigned char h[32];
		off_t off = 8;
		int fd;

		if (strncmp(names[i]->d_name, "history-", 8)) {
			free(names[i]);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s", store, names[i]->d_name);
		free(names[i]);
		fd = open(p, O_RDONLY);
		while (fd >= 0 && pread(fd, h, 32, off) == 32) {
			uint32_t plen = h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24;

			if (h[4] != 0) {
				if (nb == cap) {
					cap = cap ? cap * 2 : 1024;
					bytes = realloc(bytes, cap * sizeof(*bytes));
					raw = realloc(raw, cap * sizeof(*raw));
				}
				raw[nb] = 32 + (h[12] | h[13] << 8 | h[14] << 16 | (uint32_t)h[15] << 24);
				bytes[nb++] = 32 + plen;
			}
			off += 32 + plen;
		}
		if (fd >= 0)
			close(fd);
	}
	free(names);
	rc = mcg_hist_reader_open(store, NULL, NULL, &r);
	if (rc < 0) {
		fprintf(stderr, "frames: %s\n", mcg_strerror(rc));
		return 1;
	}
	for (rc = mcg_hist_seek(r, 0, &f); rc == 0 && fi < nb; rc = mcg_hist_next(r, &f), fi++) {
		printf("%zu %zu %.2f %.2f\n", bytes[fi], f->snap->n_rows,
		       f->snap->n_rows ? (double)bytes[fi] / (double)f->snap->n_rows : 0.0,
		       f->snap->n_rows ? (double)raw[fi] / (double)f->snap->n_rows : 0.0);
		mcg_hist_frame_free(f);
	}
	mcg_hist_reader_free(r);
	free(bytes);
	free(raw);
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* MS[0..99]: the milliseconds of each of 100 steps with STEP (mcg_hist_next or _prev). */
static int time_steps(struct mcg_hist_reader *r,
		      int (*step)(struct mcg_hist_reader *, struct mcg_hist_frame **), double *ms)
{
	struct mcg_hist_frame *f;
	uint64_t t0;
	int i;

	for (i = 0; i < 100; i++) {
		t0 = now_ns(CLOCK_MONOTONIC);
		if (step(r, &f) < 0)
			return -1;
		ms[i] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
		mcg_hist_frame_free(f);
	}
	return 0;
}

static int replay(const char *store)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	struct rusage ru;
	uint64_t first, last, t0;
	double fwd[100], back[100], ttf;
	int rc;

	t0 = now_ns(CLOCK_MONOTONIC);
	rc = mcg_hist_reader_open(store, NULL, NULL, &r);
	if (rc == 0)
		rc = mcg_hist_reader_span(r, &first, &last);
	if (rc < 0) {
		fprintf(stderr, "replay: %s\n", mcg_strerror(rc));
		return 1;
	}
	/* just before a key frame's successor: the most delta frames to decode */
	rc = mcg_hist_seek(r, first + (last - first) / 2, &f);
	ttf = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	if (rc < 0)
		return 1;
	mcg_hist_frame_free(f);
	if (time_steps(r, mcg_hist_next, fwd) < 0 || time_steps(r, mcg_hist_prev, back) < 0)
		return 1;
	mcg_hist_reader_free(r);
	qsort(fwd, 100, sizeof(double), cmp_d);
	qsort(back, 100, sizeof(double), cmp_d);
	getrusage(RUSAGE_SELF, &ru);
	printf("first_ms %.2f next_median_ms %.3f next_max_ms %.3f prev_median_ms %.3f "
	       "prev_max_ms %.3f maxrss_kib %ld\n",
	       ttf, fwd[50], fwd[99], back[50], back[99], ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "synth"))
		return synth(argv[2], atof(argv[3]), atoi(argv[4]), atof(argv[5]), atoi(argv[6]));
	if (argc == 3 && !strcmp(argv[1], "frames"))
		return frames(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "replay"))
		return replay(argv[2]);
	fprintf(stderr, "usage: history-tool synth STORE HOURS NCG INTERVAL_S ACTIVE_PERCENT | "
			"frames STORE | replay STORE\n");
	return 2;
}
