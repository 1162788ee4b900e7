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

/* ---- systemd over D-Bus ---------------------------------------------- */

/* Is systemd this host's service manager (sd_booted: /run/systemd/system)? */
MCG_EXPORT bool mcg_unit_systemd_running(void);
/*
 * Tell the service manager STATE ("READY=1", "STOPPING=1") as sd_notify(3) does, through
 * the dlopen()ed libsystemd: 0 when $NOTIFY_SOCKET is not set (nothing waits), > 0 sent,
 * -errno (-ENOSYS without libsystemd).
 */
MCG_EXPORT int mcg_unit_notify(const char *state);

/*
 * mcg_unit_from_path() for a cgroup of CTX's hierarchy, when systemd runs the
 * host: 0 for a --root tree or a host without systemd (its names are nobody's
 * units). No D-Bus: show and list call it for every cgroup.
 */
MCG_EXPORT int mcg_unit_of(const struct mcg_ctx *ctx, const char *path, char *buf, size_t len);

/*
 * Would mcg_group_open() take SPEC as a unit name? No '/', a valid unit name
 * (mcg_unit_name_valid), and no cgroup of that name right under the root.
 */
MCG_EXPORT bool mcg_unit_spec(const struct mcg_ctx *ctx, const char *spec);

/*
 * The cgroup of the loaded unit NAME as systemd reports it (GetUnit, then the
 * unit's ControlGroup property: "/system.slice/web.service"), malloc'd into
 * *RET. Errors, with WHY (may be NULL) saying it for a user:
 * -EHOSTDOWN systemd is not running; -ENOENT no such unit is loaded;
 * -ENOMEDIUM the unit has no cgroup (not running); -EINVAL not a unit name of
 * a type with a cgroup; else the D-Bus error (WHY: systemd's message).
 */
MCG_EXPORT int mcg_unit_cgroup(const char *name, char **ret, char *why, size_t whylen);
/* mcg_unit_cgroup() for CTX's hierarchy: -EHOSTDOWN for a --root tree (not the host's). */
MCG_EXPORT int mcg_unit_resolve(const struct mcg_ctx *ctx, const char *spec, char **ret,
				char *why, size_t whylen);
/*
 * The resolver (mcg_resolve_fn) of unit names: 0 unless mcg_unit_spec(); else
 * mcg_unit_resolve(), with "not running, not loaded, no cgroup" as -ENOENT (no
 * such cgroup, like a bad path: mcg_unit_resolve() again says which).
 */
MCG_EXPORT int mcg_unit_resolver(const struct mcg_ctx *ctx, const char *spec, char **ret,
				 void *userdata);

/*
 * Does a systemd unit own G's cgroup itself (the unit's ControlGroup is G's
 * path, not an ancestor of it)? 1 and its name in BUF; 0 when not, or when
 * systemd is not running or G's context is a --root tree; -errno (D-Bus).
 */
MCG_EXPORT int mcg_unit_owner(const struct mcg_group *g, char *buf, size_t len);

/* One unit property for mcg_unit_set_properties: a uint64 ("t"), or a boolean ("b"). */
struct mcg_unit_prop {
	const char *name; /* "MemoryMax", "MemoryHigh", ... */
	uint64_t value;   /* UINT64_MAX: infinity */
	bool is_bool;
};

/*
 * SetUnitProperties(UNIT, RUNTIME, PROPS) as 'systemctl set-property [--runtime]'
 * does: systemd checks every property before it applies any, writes them to
 * the unit's cgroup and, unless RUNTIME, keeps them in a drop-in under
 * /etc/systemd/system.control (RUNTIME: /run/systemd/system.control). 0, or
 * -errno with WHY saying systemd's reason.
 */
MCG_EXPORT int mcg_unit_set_properties(const char *unit, bool runtime,
				       const struct mcg_unit_prop *props, size_t n, char *why,
				       size_t whylen);
/* StartUnit(UNIT, "replace"): queue the start job; 0 or -errno with WHY. */
MCG_EXPORT int mcg_unit_start(const char *unit, char *why, size_t whylen);

#endif
