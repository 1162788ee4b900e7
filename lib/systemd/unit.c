/*
 * unit.c: systemd units and the cgroups they own, over D-Bus (sd-bus): a unit's
 * cgroup, SetUnitProperties, StartUnit; and the resolver that lets a CGROUP
 * argument name a unit. Which unit a path belongs to by its name alone is
 * sys/names.c.
 */
#include "systemd/systemd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

/* ---- systemd over D-Bus (sd-bus) ---- */

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

bool mcg_unit_systemd_running(void)
{
	/* sd_booted(): /run/systemd/system exists, as systemctl and sd_notify check */
	return sd_booted() > 0;
}

/*
 * A connection to systemd: as root its private socket, which needs no D-Bus
 * daemon and is what systemctl uses; else (or if that fails) the system bus.
 */
static int bus_open(sd_bus **ret)
{
	sd_bus *bus = NULL;
	int r;

	if (!mcg_unit_systemd_running())
		return -EHOSTDOWN;
	if (geteuid() == 0 && sd_bus_new(&bus) >= 0) {
		if (sd_bus_set_address(bus, "unix:path=/run/systemd/private") >= 0 &&
		    sd_bus_start(bus) >= 0) {
			*ret = bus;
			return 0;
		}
		sd_bus_unref(bus);
		bus = NULL;
	}
	r = sd_bus_open_system(&bus);
	if (r < 0)
		return r;
	*ret = bus;
	return 0;
}

/* WHY: systemd's own message, else what R means here. */
static void set_msg(char *why, size_t len, const sd_bus_error *e, int r)
{
	if (!why || !len)
		return;
	if (r == -EHOSTDOWN)
		snprintf(why, len, "systemd is not running");
	else if (e && sd_bus_error_is_set(e) && e->message)
		snprintf(why, len, "%s", e->message);
	else
		snprintf(why, len, "%s", strerror(r < 0 ? -r : r));
}

/* The D-Bus interface that carries ControlGroup for NAME's unit type. */
static const char *unit_interface(const char *name)
{
	static const char *const map[][2] = {
		{".service", "org.freedesktop.systemd1.Service"},
		{".scope", "org.freedesktop.systemd1.Scope"},
		{".slice", "org.freedesktop.systemd1.Slice"},
		{".socket", "org.freedesktop.systemd1.Socket"},
		{".mount", "org.freedesktop.systemd1.Mount"},
		{".swap", "org.freedesktop.systemd1.Swap"},
	};
	size_t i, n = strlen(name);

	for (i = 0; i < MCG_ARRAY_SIZE(map); i++) {
		size_t s = strlen(map[i][0]);

		if (n > s && !strcmp(name + n - s, map[i][0]))
			return map[i][1];
	}
	return NULL;
}

static int unit_cgroup(sd_bus *bus, const char *name, char **ret, char *why, size_t whylen)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *iface = unit_interface(name), *obj;
	char *cg = NULL;
	int r;

	if (!iface || !mcg_unit_name_valid(name, strlen(name))) {
		set_msg(why, whylen, NULL, -EINVAL);
		return -EINVAL;
	}
	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", &e, &reply, "s",
			       name);
	if (r < 0) {
		/* not loaded: systemd forgets a unit nothing references once it stops */
		if (sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit")) {
			if (why && whylen)
				snprintf(why, whylen, "no such unit is loaded");
			r = -ENOENT;
		} else {
			set_msg(why, whylen, &e, r);
		}
		goto out;
	}
	r = sd_bus_message_read(reply, "o", &obj);
	if (r < 0) {
		set_msg(why, whylen, NULL, r);
		goto out;
	}
	r = sd_bus_get_property_string(bus, SD_DEST, obj, iface, "ControlGroup", &e, &cg);
	if (r < 0) {
		set_msg(why, whylen, &e, r);
		goto out;
	}
	if (!*cg) {
		free(cg);
		if (why && whylen)
			snprintf(why, whylen, "the unit has no cgroup (it is not running)");
		r = -ENOMEDIUM;
		goto out;
	}
	*ret = cg;
	r = 0;
out:
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r;
}

int mcg_unit_cgroup(const char *name, char **ret, char *why, size_t whylen)
{
	sd_bus *bus = NULL;
	int r = bus_open(&bus);

	if (r < 0) {
		set_msg(why, whylen, NULL, r);
		return r;
	}
	r = unit_cgroup(bus, name, ret, why, whylen);
	sd_bus_flush_close_unref(bus);
	return r;
}

bool mcg_unit_spec(const struct mcg_ctx *ctx, const char *spec)
{
	struct stat st;

	if (!spec || strchr(spec, '/') || !mcg_unit_name_valid(spec, strlen(spec)))
		return false;
	/* a cgroup of that name right under the root is what the user means */
	return fstatat(ctx->rootfd, spec, &st, AT_SYMLINK_NOFOLLOW) < 0;
}

int mcg_unit_resolve(const struct mcg_ctx *ctx, const char *spec, char **ret, char *why,
		     size_t whylen)
{
	if (ctx->mode == MCG_MODE_FIXTURE) {
		/* a --root tree is not the host's: its units are not systemd's */
		if (why && whylen)
			snprintf(why, whylen, "units are resolved only on the host's own hierarchy "
					      "(not with --root)");
		return -EHOSTDOWN;
	}
	return mcg_unit_cgroup(spec, ret, why, whylen);
}

int mcg_unit_resolver(const struct mcg_ctx *ctx, const char *spec, char **ret, void *userdata)
{
	int r;

	(void)userdata;
	if (!mcg_unit_spec(ctx, spec))
		return 0;
	r = mcg_unit_resolve(ctx, spec, ret, NULL, 0);
	if (r < 0)
		return r == -EHOSTDOWN || r == -ENOMEDIUM || r == -EINVAL ? -ENOENT : r;
	return 1;
}

int mcg_unit_owner(const struct mcg_group *g, char *buf, size_t len)
{
	char name[256], *cg = NULL;
	int r;

	if (g->ctx->mode == MCG_MODE_FIXTURE || !mcg_unit_systemd_running())
		return 0;
	r = mcg_unit_from_path(g->path, name, sizeof(name));
	if (r <= 0)
		return r;
	r = mcg_unit_cgroup(name, &cg, NULL, 0);
	if (r == -ENOENT || r == -ENOMEDIUM)
		return 0;
	if (r < 0)
		return r;
	/* the unit's own cgroup only: a delegated child is not what its properties set */
	r = !strcmp(cg, g->path);
	free(cg);
	if (!r)
		return 0;
	if (strlen(name) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, name);
	return 1;
}

int mcg_unit_set_properties(const char *unit, bool runtime, const struct mcg_unit_prop *props,
			    size_t n, char *why, size_t whylen)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	sd_bus *bus = NULL;
	size_t i;
	int r = bus_open(&bus);

	if (r < 0) {
		set_msg(why, whylen, NULL, r);
		return r;
	}
	r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
					   "SetUnitProperties");
	if (r >= 0)
		r = sd_bus_message_append(m, "sb", unit, (int)runtime);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(sv)");
	for (i = 0; r >= 0 && i < n; i++) {
		if (props[i].is_bool)
			r = sd_bus_message_append(m, "(sv)", props[i].name, "b", (int)!!props[i].value);
		else
			r = sd_bus_message_append(m, "(sv)", props[i].name, "t", props[i].value);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r < 0) {
		set_msg(why, whylen, NULL, r);
		goto out;
	}
	r = sd_bus_call(bus, m, 0, &e, &reply);
	if (r < 0)
		set_msg(why, whylen, &e, r);
out:
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? r : 0;
}

int mcg_unit_start(const char *unit, char *why, size_t whylen)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	int r = bus_open(&bus);

	if (r < 0) {
		set_msg(why, whylen, NULL, r);
		return r;
	}
	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "StartUnit", &e, &reply, "ss",
			       unit, "replace");
	if (r < 0)
		set_msg(why, whylen, &e, r);
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? r : 0;
}

int mcg_unit_of(const struct mcg_ctx *ctx, const char *path, char *buf, size_t len)
{
	/* systemd names the host's cgroups; a --root tree or a host without it has no units */
	if (ctx->mode == MCG_MODE_FIXTURE || !mcg_unit_systemd_running())
		return 0;
	return mcg_unit_from_path(path, buf, len);
}
