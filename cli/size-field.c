/* size-field.c: memcgctl size's kept answer as a field of the fleet views: the recorder's events. */
#include "size-field.h"

#include <stdlib.h>
#include <string.h>

/* The answers seen at the last sample, by path (sorted), and the events made of the new ones. */
struct seen {
	char *path;
	uint64_t time_ns;
};
static struct {
	struct seen *seen;
	size_t n;
	struct mcg_hist_event *ev;
	char (*detail)[160];
	size_t nev;
} sf;

static void sf_free(void)
{
	size_t i;

	for (i = 0; i < sf.n; i++)
		free(sf.seen[i].path);
	free(sf.seen);
	free(sf.ev);
	free(sf.detail);
	memset(&sf, 0, sizeof(sf));
}

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct seen *)a)->path, ((const struct seen *)b)->path);
}

size_t cli_size_events(struct mcg_ctx *ctx, const struct mcg_snapshot *snap,
		       const struct mcg_hist_event **ret)
{
	static bool registered;
	struct mcg_size_states *st = NULL;
	struct seen *now = NULL;
	size_t i, n = 0, cap = 0, evcap = 0;

	if (!registered) {
		atexit(sf_free);
		registered = true;
	}
	free(sf.ev);
	free(sf.detail);
	sf.ev = NULL;
	sf.detail = NULL;
	sf.nev = 0;
	*ret = NULL;
	/* none kept at all: nothing to read, and none seen from now on */
	if (mcg_size_states_open(ctx, &st) < 0) {
		for (i = 0; i < sf.n; i++)
			free(sf.seen[i].path);
		sf.n = 0;
		return 0;
	}
	for (i = 0; i < snap->n_rows; i++) {
		const char *path = snap->rows[i].path;
		struct mcg_size_state s;
		struct seen key = {(char *)path, 0}, *was;

		if (mcg_size_states_get(st, path, &s) < 0)
			continue;
		if (mcg_grow(&now, &cap, n, sizeof(*now), 16) < 0)
			break;
		now[n].path = strdup(path);
		if (!now[n].path)
			break;
		now[n++].time_ns = s.time_ns;
		was = sf.n ? bsearch(&key, sf.seen, sf.n, sizeof(key), cmp_seen) : NULL;
		if (was && was->time_ns == s.time_ns)
			continue;
		if (mcg_grow(&sf.ev, &evcap, sf.nev, sizeof(*sf.ev), 8) < 0)
			continue;
		/* the detail strings stay where they are: grown alongside, never moved after */
		{
			char(*d)[160] = realloc(sf.detail, evcap * sizeof(*d));

			if (!d)
				continue;
			sf.detail = d;
		}
		if (mcg_size_state_to_event(&s, path, &sf.ev[sf.nev], sf.detail[sf.nev],
					    sizeof(sf.detail[0])) == 0)
			sf.nev++;
	}
	mcg_size_states_close(st);
	/* the event's detail pointers into sf.detail: set now that it moves no more */
	for (i = 0; i < sf.nev; i++)
		sf.ev[i].detail = sf.detail[i];
	for (i = 0; i < sf.n; i++)
		free(sf.seen[i].path);
	free(sf.seen);
	qsort(now, n, sizeof(*now), cmp_seen);
	sf.seen = now;
	sf.n = n;
	*ret = sf.ev;
	return sf.nev;
}
