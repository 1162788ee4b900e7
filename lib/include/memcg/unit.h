/* memcg/unit.h: systemd units: resolving unit names to cgroups and back, setting unit properties over D-Bus (sd-bus). */
#ifndef MEMCG_UNIT_H
#define MEMCG_UNIT_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/unit.h>"
#endif

/*
 * Is NAME a systemd unit name of a kind that owns a cgroup: "web.service",
 * "session-3.scope", "user.slice", "user@1000.service", "a-b.mount",
 * "dev-sda2.swap", "x.socket"? Pure; NAME need not be NUL-terminated past LEN.
 */
MCG_EXPORT bool mcg_unit_name_valid(const char *name, size_t len);

/*
 * The unit that owns the cgroup at PATH (relative to the hierarchy's root,
 * "/system.slice/web.service/sub"), from the path alone, as systemd names
 * cgroups after units: the first component that is a unit but not a slice
 * (a service's or scope's delegated subtree belongs to it), else the last
 * slice ("/user.slice/user-1000.slice" is user-1000.slice). Writes the name
 * into BUF (LEN bytes) and returns its length, 0 when PATH has no unit
 * component (the root, a cgroup outside systemd's naming), -ENAMETOOLONG.
 * Pure: no D-Bus; a name that merely looks like a unit on a host without
 * systemd is reported too, so callers check the host runs systemd first.
 */
MCG_EXPORT int mcg_unit_from_path(const char *path, char *buf, size_t len);

#endif
