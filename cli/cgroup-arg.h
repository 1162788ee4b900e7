/* cgroup-arg.h: a CGROUP argument that may name a systemd unit ("web.service"). */
#ifndef MEMCGCTL_CGROUP_ARG_H
#define MEMCGCTL_CGROUP_ARG_H

#include "memcgctl.h"

/*
 * cli_open_group(), and for a unit name that does not resolve the reason:
 * "cannot resolve unit 'web.service': systemd is not running" (or: no such
 * unit is loaded, the unit has no cgroup); those return -ENOENT (status 64,
 * as for a cgroup that does not exist).
 */
int cli_open_cgroup(struct cli *cli, const char *spec, struct mcg_group **ret);

#endif
