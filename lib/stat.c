/* stat.c: memory.stat's raw keys (show prints them), PSI, keyed lookups: all through kv.c. */
#include "internal.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void mcg_stat_release(struct mcg_stat *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n_raw; i++)
		free(st->raw[i].key);
	free(st->raw);
	st->raw = NULL;
	st->n_raw = 0;
}

/* Every "key number" line of memory.stat, in file order (show prints them). */
static int stat_raw(const char *text, struct mcg_stat *st)
{
	const char *pos = text;
	struct mcg__kv kv;
	size_t cap = 0;

	while (mcg__kv_next(&pos, &kv)) {
		uint64_t v;
		char *key;

		if (kv.klen >= 128 || !mcg__kv_u64(kv.val, kv.eol, &v))
			continue;
		if (mcg__grow(&st->raw, &cap, st->n_raw, sizeof(*st->raw), 64) < 0)
			return -ENOMEM;
		key = strndup(kv.key, kv.klen);
		if (!key)
			return -ENOMEM;
		st->raw[st->n_raw].key = key;
		st->raw[st->n_raw++].value = v;
	}
	return 0;
}

int mcg_stat_parse(const char *text, struct mcg_stat *ret)
{
	struct mcg_stat st = {0};
	int e = stat_raw(text, &st);

	if (e < 0) {
		mcg_stat_release(&st);
		return e;
	}
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
