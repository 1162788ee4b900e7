/*
 * fuzz_journal.c: the journal parser (mcg__journal_parse), which recover runs as
 * root on files under the run directory. Whatever it accepts must be a journal
 * memcgctl could have written: the properties below, and writing the parsed
 * journal back out in the writer's format parses to the same journal.
 */
#include "fuzz.h"

/* The writer's encoding (txn.c): %XX for bytes <= ' ', >= 0x7f and '%'. */
static size_t encode(const char *s, char *buf)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '%')
			o += (size_t)sprintf(buf + o, "%%%02X", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return o;
}

static size_t format(const struct mcg__journal *j, char *buf)
{
	char *esc = malloc(3 * 4096 + 1);
	size_t o = 0, i;

	if (!esc)
		abort();
	o += (size_t)sprintf(buf + o, "memcgctl-journal 2\nop %s\npid %d\nversion %d\n", j->op,
			     j->pid, j->version);
	if (j->boot[0])
		o += (size_t)sprintf(buf + o, "boot %s\n", j->boot);
	o += (size_t)sprintf(buf + o, "dev %llu\nino %llu\n", (unsigned long long)j->dev,
			     (unsigned long long)j->ino);
	encode(j->root, esc);
	o += (size_t)sprintf(buf + o, "root %s\n", esc);
	encode(j->path, esc);
	o += (size_t)sprintf(buf + o, "path %s\n", esc);
	for (i = 0; i < j->n; i++)
		o += (size_t)sprintf(buf + o, "knob %s %s %020llu %020llu\n", j->k[i].knob, j->k[i].orig,
				     (unsigned long long)j->k[i].a, (unsigned long long)j->k[i].b);
	free(esc);
	return o;
}

static void check(const struct mcg__journal *j)
{
	size_t i, k;

	FZ_CHECK(j->op[0] && memchr(j->op, '\0', sizeof(j->op)), "op empty or unterminated");
	FZ_CHECK(j->pid > 0, "pid %d", j->pid);
	FZ_CHECK(j->version == 1 || j->version == 2, "version %d", j->version);
	FZ_CHECK(memchr(j->boot, '\0', sizeof(j->boot)), "boot id unterminated");
	FZ_CHECK(memchr(j->root, '\0', sizeof(j->root)) && j->root[0] == '/', "root '%.40s'", j->root);
	FZ_CHECK(memchr(j->path, '\0', sizeof(j->path)), "path unterminated");
	FZ_CHECK(fz_path_clean(j->path), "accepted the cgroup path '%s'", j->path);
	FZ_CHECK(j->n >= 1 && j->n <= MCG__JOURNAL_MAX_KNOBS, "%zu knobs", j->n);
	for (i = 0; i < j->n; i++) {
		const struct mcg__journal_knob *kn = &j->k[i];
		uint64_t v;

		FZ_CHECK(memchr(kn->knob, '\0', sizeof(kn->knob)) && !strncmp(kn->knob, "memory.", 7),
			 "accepted the knob '%.48s'", kn->knob);
		FZ_CHECK(!strchr(kn->knob, '/'), "a knob name with a slash");
		FZ_CHECK(memchr(kn->orig, '\0', sizeof(kn->orig)), "orig unterminated");
		FZ_CHECK(mcg__limit_parse(kn->orig, &v) == 0 && v == kn->orig_v,
			 "orig '%s' does not parse to %llu", kn->orig, (unsigned long long)kn->orig_v);
		for (k = 0; k < i; k++)
			FZ_CHECK(strcmp(kn->knob, j->k[k].knob), "knob %s twice", kn->knob);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcg__journal *j = malloc(sizeof(*j)), *j2 = malloc(sizeof(*j2));
	/* exactly SIZE bytes, no terminating NUL: the parser takes a length */
	char *buf = malloc(size ? size : 1), *out;
	const char *why = NULL;
	size_t n;
	int r;

	if (!j || !j2 || !buf)
		abort();
	memcpy(buf, data, size);
	r = mcg__journal_parse_why(buf, size, j, &why);
	if (!fz_parsed("mcg__journal_parse", r, why))
		goto done;
	FZ_CHECK(mcg__journal_parse(buf, size, j2) == 0, "parse and parse_why disagree");
	check(j);

	/* write it back as txn.c writes it: the same journal again */
	out = malloc(2 * 3 * 4096 + 4096);
	if (!out)
		abort();
	n = format(j, out);
	if (n <= MCG__JOURNAL_MAX_SIZE) {
		r = mcg__journal_parse_why(out, n, j2, &why);
		FZ_CHECK(r == 0, "the journal written back is refused (%s):\n%s", why, out);
		FZ_CHECK(!strcmp(j->op, j2->op) && j->pid == j2->pid && j->version == j2->version &&
				 !strcmp(j->boot, j2->boot) && j->dev == j2->dev && j->ino == j2->ino &&
				 !strcmp(j->root, j2->root) && !strcmp(j->path, j2->path) && j->n == j2->n,
			 "the journal written back parses differently");
		for (n = 0; n < j->n; n++)
			FZ_CHECK(!memcmp(&j->k[n], &j2->k[n], sizeof(j->k[n])),
				 "knob %zu written back parses differently", n);
	}
	free(out);
done:
	free(buf);
	free(j2);
	free(j);
	return 0;
}
