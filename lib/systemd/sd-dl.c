/*
 * sd-dl.c: libsystemd, loaded with dlopen() at the first call that needs it.
 *
 * Linked, libsystemd brings libgcrypt, liblzma, liblz4, libcap and
 * libgpg-error into every memcgctl run: about 1.2 MiB of RSS and a millisecond
 * of relocations, although only a systemd unit argument, set-limit on a
 * systemd-owned cgroup, async-reclaim's StartUnit and export's socket
 * activation talk to systemd. So memcgctl is not linked against it (only its
 * headers are used): the sd_* functions it calls are defined here and forward
 * to the library, as systemd loads its own optional dependencies. Without the
 * library, sd_booted() says 0 (no systemd) and the rest fail with -ENOSYS.
 */
#include "systemd/systemd.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

/* The SONAME of the ABI built against (Debian 12: libsystemd0). */
#define SD_SONAME "libsystemd.so.0"

#define SD_FUNCS(X)                                                                                \
	X(int, bus_new, (sd_bus **))                                                               \
	X(int, bus_set_address, (sd_bus *, const char *))                                          \
	X(int, bus_start, (sd_bus *))                                                              \
	X(sd_bus *, bus_unref, (sd_bus *))                                                         \
	X(sd_bus *, bus_flush_close_unref, (sd_bus *))                                             \
	X(int, bus_open_system, (sd_bus **))                                                       \
	X(void, bus_error_free, (sd_bus_error *))                                                  \
	X(int, bus_call_methodv,                                                                   \
	  (sd_bus *, const char *, const char *, const char *, const char *, sd_bus_error *,       \
	   sd_bus_message **, const char *, va_list))                                              \
	X(int, bus_get_property_string,                                                            \
	  (sd_bus *, const char *, const char *, const char *, const char *, sd_bus_error *,       \
	   char **))                                                                               \
	X(int, bus_message_new_method_call,                                                        \
	  (sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *))   \
	X(int, bus_message_appendv, (sd_bus_message *, const char *, va_list))                     \
	X(int, bus_message_readv, (sd_bus_message *, const char *, va_list))                       \
	X(int, bus_message_open_container, (sd_bus_message *, char, const char *))                 \
	X(int, bus_message_close_container, (sd_bus_message *))                                    \
	X(sd_bus_message *, bus_message_unref, (sd_bus_message *))                                 \
	X(int, bus_call, (sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **)) \
	X(int, listen_fds, (int))                                                                  \
	X(int, notify, (int, const char *))                                                        \
	X(int, is_socket, (int, int, int, int))

static struct {
	bool tried;
	void *dl;
#define SD_FIELD(ret, name, args) ret(*name) args;
	SD_FUNCS(SD_FIELD)
#undef SD_FIELD
} sd;

/* Load the library and every symbol once; false (and nothing usable) if any is missing. */
static bool sd_load(void)
{
	if (sd.tried)
		return sd.dl != NULL;
	sd.tried = true;
	sd.dl = dlopen(SD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!sd.dl)
		return false;
#define SD_SYM(ret, name, args)                                                                    \
	*(void **)&sd.name = dlsym(sd.dl, "sd_" #name);                                            \
	if (!sd.name)                                                                              \
		goto fail;
	SD_FUNCS(SD_SYM)
#undef SD_SYM
	return true;
fail:
	dlclose(sd.dl);
	sd.dl = NULL;
	return false;
}

int sd_booted(void)
{
	struct stat st;

	/* what libsystemd checks: systemd creates this directory at boot */
	return lstat("/run/systemd/system/", &st) == 0 && S_ISDIR(st.st_mode);
}

int sd_bus_new(sd_bus **ret)
{
	return sd_load() ? sd.bus_new(ret) : -ENOSYS;
}

int sd_bus_open_system(sd_bus **ret)
{
	return sd_load() ? sd.bus_open_system(ret) : -ENOSYS;
}

int sd_listen_fds(int unset_environment)
{
	/* no $LISTEN_FDS: nothing passed, without loading anything */
	if (!getenv("LISTEN_FDS"))
		return 0;
	return sd_load() ? sd.listen_fds(unset_environment) : -ENOSYS;
}

int sd_notify(int unset_environment, const char *state)
{
	/* no $NOTIFY_SOCKET: no service manager waits for it, nothing to load */
	if (!getenv("NOTIFY_SOCKET"))
		return 0;
	return sd_load() ? sd.notify(unset_environment, state) : -ENOSYS;
}

int mcg_unit_notify(const char *state)
{
	return sd_notify(0, state);
}

int sd_is_socket(int fd, int family, int type, int listening)
{
	return sd_load() ? sd.is_socket(fd, family, type, listening) : -ENOSYS;
}

/* An sd_bus_error is a plain struct: these need no library (its own definitions). */
int sd_bus_error_is_set(const sd_bus_error *e)
{
	return e && e->name;
}

int sd_bus_error_has_name(const sd_bus_error *e, const char *name)
{
	return e && e->name && name && !strcmp(e->name, name);
}

void sd_bus_error_free(sd_bus_error *e)
{
	if (sd_load())
		sd.bus_error_free(e);
}

sd_bus_message *sd_bus_message_unref(sd_bus_message *m)
{
	return m && sd_load() ? sd.bus_message_unref(m) : NULL;
}

/* The rest are reached only with a bus or message the loaded library made. */
int sd_bus_set_address(sd_bus *bus, const char *address)
{
	return sd.bus_set_address(bus, address);
}

int sd_bus_start(sd_bus *bus)
{
	return sd.bus_start(bus);
}

sd_bus *sd_bus_unref(sd_bus *bus)
{
	return bus ? sd.bus_unref(bus) : NULL;
}

sd_bus *sd_bus_flush_close_unref(sd_bus *bus)
{
	return bus ? sd.bus_flush_close_unref(bus) : NULL;
}

int sd_bus_call_method(sd_bus *bus, const char *destination, const char *path,
		       const char *interface, const char *member, sd_bus_error *ret_error,
		       sd_bus_message **reply, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd.bus_call_methodv(bus, destination, path, interface, member, ret_error, reply, types,
				ap);
	va_end(ap);
	return r;
}

int sd_bus_get_property_string(sd_bus *bus, const char *destination, const char *path,
			       const char *interface, const char *member, sd_bus_error *ret_error,
			       char **ret)
{
	return sd.bus_get_property_string(bus, destination, path, interface, member, ret_error, ret);
}

int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination,
				   const char *path, const char *interface, const char *member)
{
	return sd.bus_message_new_method_call(bus, m, destination, path, interface, member);
}

int sd_bus_message_append(sd_bus_message *m, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd.bus_message_appendv(m, types, ap);
	va_end(ap);
	return r;
}

int sd_bus_message_read(sd_bus_message *m, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd.bus_message_readv(m, types, ap);
	va_end(ap);
	return r;
}

int sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents)
{
	return sd.bus_message_open_container(m, type, contents);
}

int sd_bus_message_close_container(sd_bus_message *m)
{
	return sd.bus_message_close_container(m);
}

int sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error,
		sd_bus_message **reply)
{
	return sd.bus_call(bus, m, usec, ret_error, reply);
}
