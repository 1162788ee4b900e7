/* size-field.h: memcgctl size's kept answer as a field of the fleet views (top -b, record). */
#ifndef MEMCGCTL_SIZE_FIELD_H
#define MEMCGCTL_SIZE_FIELD_H

#include "memcg.h"

/*
 * The recorder's hook (cli/cmd-record.c): the kept answers (mcg_size_states_get)
 * of the rows of SNAP whose time differs from the one seen at the last call (or
 * that were not seen yet: a recorder started after the probe stores it once),
 * as MCG_HEV_SIZE events in *RET, valid until the next call. Returns their
 * count. A row without an answer costs one failed openat.
 */
size_t cli_size_events(struct mcg_ctx *ctx, const struct mcg_snapshot *snap,
		       const struct mcg_hist_event **ret);

#endif
