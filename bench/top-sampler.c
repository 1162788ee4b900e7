/*
 * top-sampler: CPU of the library part of a top refresh alone (mcg_sampler_sample, rates
 * included), without the output, so two builds' samplers can be compared side by side.
 *   top-sampler K CGROUP   take 1 sample, then K more; print "first_ms per_refresh_ms"
 * Built against each tree's libmemcg.a by bench/top.sh (the sampler API is the same in both).
 */
#include <memcg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	struct mcg_ctx *ctx;
	struct mcg_sampler *s;
	struct mcg_snapshot *snap;
	double t0, t1;
	long k, i;

	if (argc != 3) {
		fprintf(stderr, "usage: top-sampler K CGROUP\n");
		return 64;
	}
	k = atol(argv[1]);
	if (mcg_ctx_new(NULL, NULL, &ctx) < 0 || mcg_sampler_new(ctx, argv[2], 0, &s) < 0) {
		fprintf(stderr, "top-sampler: cannot open '%s'\n", argv[2]);
		return 1;
	}
	t0 = cpu_ms();
	if (mcg_sampler_sample(s, &snap) < 0)
		return 1;
	mcg_snapshot_unref(snap);
	t1 = cpu_ms();
	for (i = 0; i < k; i++) {
		if (mcg_sampler_sample(s, &snap) < 0)
			return 1;
		mcg_snapshot_unref(snap);
	}
	printf("%.3f %.4f\n", t1 - t0, (cpu_ms() - t1) / (double)k);
	mcg_sampler_free(s);
	mcg_ctx_free(ctx);
	return 0;
}
