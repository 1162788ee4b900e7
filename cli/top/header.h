/* header.h: the host lines of top's header, built once for top -b and the live view. */
#ifndef MEMCGCTL_TOP_HEADER_H
#define MEMCGCTL_TOP_HEADER_H

#include <stdbool.h>

#include "memcg.h"

#define TOP_HEADER_LINES 4
#define TOP_HEADER_WIDTH 256

struct top_header {
	char line[TOP_HEADER_LINES][TOP_HEADER_WIDTH];
	int n;
};

/*
 * The lines below the title: "memory: ..." (when MemTotal was read), "dirty:
 * ..." (when nr_dirty was), "reclaim/s: ...; psi ..." and, when stall times
 * are not measured, "stall: ...". Labels from MCG_HOST's header words; an
 * absent value is "-". TASKSTATS: stall times were asked for. KEY_HINT: the
 * live view's words after the delay accounting line ("" for top -b).
 */
void top_header_host(const struct mcg_snapshot *s, bool taskstats, const char *key_hint,
		     struct top_header *ret);

#endif
