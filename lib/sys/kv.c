/*
 * kv.c: the one scanner of the kernel's keyed text files, allocation-free:
 * "key value" lines (memory.stat, memory.events, memory.oom_control,
 * /proc/vmstat), "Key:   N kB" lines (/proc/meminfo) and "name k=v k=v" lines
 * (PSI). Every parser of those files goes through it; PSI text is parsed in
 * one function here, /proc/meminfo and /proc/vmstat by host.c from MCG_HOST.
 */
#include "sys/sys.h"

#include <stdlib.h>
#include <string.h>

/* Blanks between and around a key and its value: what sscanf's %s would stop at, but a newline. */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Characters that end a key: a blank, ':', the end of the line or of the text. */
static const bool key_end[256] = {
	[' '] = true, ['\t'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
	[':'] = true, ['\n'] = true, ['\0'] = true,
};

bool mcg__kv_next(const char **pos, struct mcg__kv *kv)
{
	const char *p = *pos, *k, *eol;

	/* one pass over each line: the key, the blanks, then the value up to its newline */
	while (*p) {
		kv->line = p;
		k = p;
		while (blank(*k)) /* '\n' and '\0' are not blanks: bounded by the line */
			k++;
		kv->key = k;
		while (!key_end[(unsigned char)*k])
			k++;
		kv->klen = (size_t)(k - kv->key);
		if (*k == ':')
			k++;
		while (blank(*k))
			k++;
		kv->val = k;
		eol = strchr(k, '\n');
		if (!eol)
			eol = k + strlen(k);
		kv->eol = eol;
		*pos = *eol ? eol + 1 : eol;
		if (kv->klen)
			return true;
		p = *pos;
	}
	*pos = p;
	return false;
}

bool mcg__kv_is(const struct mcg__kv *kv, const char *key, size_t klen)
{
	return kv->klen == klen && !memcmp(kv->key, key, klen);
}

bool mcg__kv_u64(const char *p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		p++;
	}
	*ret = v;
	return true;
}

/* In the value part of KV ("avg10=0.00 avg60=... total=N"), the text after NAME=. */
static const char *kv_field(const struct mcg__kv *kv, const char *name)
{
	size_t n = strlen(name);
	const char *p = kv->val;

	while (p < kv->eol) {
		if ((size_t)(kv->eol - p) > n && !memcmp(p, name, n) && p[n] == '=')
			return p + n + 1;
		while (p < kv->eol && *p != ' ')
			p++;
		while (p < kv->eol && *p == ' ')
			p++;
	}
	return NULL;
}

int mcg__kv_find(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *pos = text;
	struct mcg__kv kv;

	while (mcg__kv_next(&pos, &kv)) {
		if (!mcg__kv_is(&kv, key, klen))
			continue;
		return mcg__kv_u64(kv.val, kv.eol, ret) ? 0 : -EINVAL;
	}
	return -ENOENT;
}

unsigned mcg__kv_pick(const char *text, const struct mcg__kv_want *w, size_t n, uint64_t *vals)
{
	const char *pos = text;
	struct mcg__kv kv;
	unsigned found = 0, all = n >= 32 ? ~0u : (1u << n) - 1;
	size_t len[32], i;

	/* each key's length once, not once per line of the file (vmstat: ~190 lines) */
	for (i = 0; i < n && i < 32; i++)
		len[i] = strlen(w[i].key);
	while (found != all && mcg__kv_next(&pos, &kv)) {
		for (i = 0; i < n && i < 32; i++) {
			uint64_t v;

			if ((found >> i) & 1 || !mcg__kv_is(&kv, w[i].key, len[i]))
				continue;
			if (mcg__kv_u64(kv.val, kv.eol, &v)) {
				vals[i] = v;
				found |= 1u << i;
			}
			break;
		}
	}
	return found;
}

/* ---- PSI: "some avg10=A avg60=B avg300=C total=T" and "full ..." ---- */

/* "12.34" as the kernel prints a PSI average (LOAD_INT.LOAD_FRAC): no strtod, no locale. */
static bool psi_avg(const char *p, const char *end, double *ret)
{
	uint64_t ip = 0, fp = 0, scale = 1;

	if (!p || p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9' && ip < UINT64_MAX / 100)
		ip = ip * 10 + (uint64_t)(*p++ - '0');
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9' && scale < 1000000000; p++) {
			fp = fp * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	*ret = (double)ip + (double)fp / (double)scale;
	return true;
}

static bool psi_line(const struct mcg__kv *kv, struct mcg_psi_line *l)
{
	const char *t = kv_field(kv, "total");
	struct mcg_psi_line x;

	if (!psi_avg(kv_field(kv, "avg10"), kv->eol, &x.avg10) ||
	    !psi_avg(kv_field(kv, "avg60"), kv->eol, &x.avg60) ||
	    !psi_avg(kv_field(kv, "avg300"), kv->eol, &x.avg300) || !t ||
	    !mcg__kv_u64(t, kv->eol, &x.total_us))
		return false;
	*l = x;
	return true;
}

int mcg__psi_parse(const char *text, struct mcg_psi *ret)
{
	struct mcg_psi psi = {0};
	const char *pos = text;
	struct mcg__kv kv;

	while (mcg__kv_next(&pos, &kv)) {
		/* "some " and "full ": the kernel's line names, then a space */
		if (kv.key[kv.klen] != ' ')
			continue;
		if (mcg__kv_is(&kv, "some", 4) && !psi.some_valid)
			psi.some_valid = psi_line(&kv, &psi.some);
		else if (mcg__kv_is(&kv, "full", 4) && !psi.full_valid)
			psi.full_valid = psi_line(&kv, &psi.full);
	}
	if (!psi.some_valid && !psi.full_valid)
		return -EINVAL;
	*ret = psi;
	return 0;
}
