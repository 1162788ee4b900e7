/*
 * util-linux-mbsalign-check.c: the patch next to it changes no result of
 * mbs_nwidth() and mbs_safe_nwidth(), and how much faster a cell is measured.
 *
 * Build lib/mbsalign.c of util-linux twice, before and after the patch, as
 * old.o and new.o, with -Dmbs_nwidth=mbs_nwidth_old (and _new) for the four
 * mbs_*width names, and rename the other globals of old.o (objcopy
 * --redefine-sym NAME=NAME_old); then: cc -O2 this.c old.o new.o && ./a.out
 * It prints the time per 30-character ASCII cell and the number of
 * differences (0), and exits 1 when there are any.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
size_t mbs_nwidth_old(const char *, size_t), mbs_nwidth_new(const char *, size_t);
size_t mbs_safe_nwidth_old(const char *, size_t, size_t *), mbs_safe_nwidth_new(const char *, size_t, size_t *);
static const char *pieces[] = {"a", "Z", " ", "\\", "x", "\\x", "\033[1m", "\033(B", "\033", "\t", "\x7f",
	"m", "[", "1", "(", /* ASCII above, UTF-8 below */
	"\xc3\xa9", "\xe4\xb8\xad", "\xcc\x81", "\xe2\x94\x9c", "\xf0\x9f\x98\x80"};
int main(int argc, char **argv)
{
	const char *locs[] = {"C.UTF-8", "C"};
	unsigned seed = 1, bad = 0;
	for (int l = 0; l < 2; l++) {
		if (!setlocale(LC_ALL, locs[l])) return 2;
		for (int i = 0; i < 1000000; i++) {
			char s[128] = "";
			int n = rand_r(&seed) % 12;
			for (int k = 0; k < n; k++) strcat(s, pieces[rand_r(&seed) % (l ? 15 : sizeof(pieces)/sizeof(*pieces))]);
			size_t len = strlen(s), cut = len ? 1 + rand_r(&seed) % len : 0;
			size_t b1 = 0, b2 = 0;
			const char *e = s;
			while ((e = strstr(e, "\033(")) && !(e[2] && (unsigned char)e[2] >= 0x80))
				e++;
			/* "\e(" skips the next byte too: into a multibyte character, mbrtowc()
			 * fails and the old code reads an unset wc (its own bug): not compared */
			if (e && e[2] && (unsigned char)e[2] >= 0x80)
				continue;
			if (mbs_nwidth_old(s, cut) != mbs_nwidth_new(s, cut) ||
			    mbs_safe_nwidth_old(s, cut, &b1) != mbs_safe_nwidth_new(s, cut, &b2) || b1 != b2) {
				if (bad++ < 5) { printf("differ: %s cut %zu:", locs[l], cut); for (size_t q = 0; q < len; q++) printf(" %02x", (unsigned char)s[q]); printf(" | %zu %zu %zu %zu b %zu %zu\n", mbs_nwidth_old(s, cut), mbs_nwidth_new(s, cut), mbs_safe_nwidth_old(s, cut, &b1), mbs_safe_nwidth_new(s, cut, &b2), b1, b2); }
			}
		}
	}
	/* speed: a 30-character ASCII cell */
	const char *cell = "/system.slice/web-42.service  ";
	for (int v = 0; v < 2; v++) {
		struct timespec a, b; volatile size_t w = 0;
		setlocale(LC_ALL, "C.UTF-8");
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 1000000; i++) w += v ? mbs_nwidth_new(cell, 30) : mbs_nwidth_old(cell, 30);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%s: %.1f ns per cell\n", v ? "new" : "old", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e6);
	}
	printf("%u differences\n", bad);
	return bad != 0;
}
