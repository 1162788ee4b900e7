/* stat.c: memory.stat's raw keys (show prints them), PSI, keyed lookups: all through kv.c. */
#include "sys/sys.h"

#include <stdlib.h>
#include <string.h>

void mcg_stat_release(struct mcg_stat *st)
{
	if (!st)
		return;
	free(st->raw); /* the keys live in the same block (mcg__stat_reserve) */
	st->raw = NULL;
	st->n_raw = 0;
}

int mcg__stat_reserve(const char *text, struct mcg_stat *st, char **keys)
{
	size_t lines = 1, len = strlen(text);
	const char *p;

	/*
	 * One block: an entry for every line, then every key with its NUL (a
	 * line's key and NUL take at most its bytes and newline: len + 1 in all).
	 */
	for (p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		lines++;
	st->n_raw = 0;
	st->raw = malloc(lines * sizeof(*st->raw) + len + 1);
	if (!st->raw)
		return -ENOMEM;
	*keys = (char *)(st->raw + lines);
	return 0;
}

void mcg__stat_add(struct mcg_stat *st, char **keys, const struct mcg__kv *kv)
{
	uint64_t v;

	if (kv->klen >= 128 || !mcg__kv_u64(kv->val, kv->eol, &v))
		return;
	memcpy(*keys, kv->key, kv->klen);
	(*keys)[kv->klen] = '\0';
	st->raw[st->n_raw].key = *keys;
	st->raw[st->n_raw++].value = v;
	*keys += kv->klen + 1;
}

void mcg__stat_done(struct mcg_stat *st)
{
	if (!st->n_raw) {
		free(st->raw);
		st->raw = NULL;
	}
}

/* Every "key number" line of memory.stat, in file order (show prints them). */
int mcg_stat_parse(const char *text, struct mcg_stat *ret)
{
	struct mcg_stat st;
	const char *pos = text;
	struct mcg__kv kv;
	char *keys;
	int e = mcg__stat_reserve(text, &st, &keys);

	if (e < 0)
		return e;
	while (mcg__kv_next(&pos, &kv))
		mcg__stat_add(&st, &keys, &kv);
	mcg__stat_done(&st);
	*ret = st;
	return 0;
}

int mcg_keyed_get(const char *text, const char *key, uint64_t *ret)
{
	return mcg__kv_find(text, key, ret);
}

int mcg_psi_parse(const char *text, struct mcg_psi *ret)
{
	return mcg__psi_parse(text, ret);
}
