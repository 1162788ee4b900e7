/*
 * mhd-dl.c: libmicrohttpd, loaded when `export --listen` first calls it.
 *
 * libmicrohttpd brings GnuTLS, nettle, p11-kit and a dozen more libraries
 * whose constructors run at start-up: linked, they cost every memcgctl run
 * about 3 MiB of RSS and a millisecond of relocations, although only
 * `export --listen` serves HTTP. So memcgctl is not linked against it: the
 * few MHD_* functions cmd-export.c calls are defined here and forward to the
 * library opened with dlopen() at the first call (the way systemd loads its
 * optional dependencies). Without the library, MHD_start_daemon() fails with
 * a message naming it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#include <microhttpd.h>

/* The SONAME of the ABI built against (Debian 12: libmicrohttpd12, 0.9.75). */
#define MHD_SONAME "libmicrohttpd.so.12"

static struct {
	void *dl;
	bool tried;
	struct MHD_Daemon *(*start_va)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
				       MHD_AccessHandlerCallback, void *, va_list);
	void (*stop)(struct MHD_Daemon *);
	enum MHD_Result (*run_wait)(struct MHD_Daemon *, int32_t);
	struct MHD_Response *(*from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	void (*destroy)(struct MHD_Response *);
	enum MHD_Result (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	enum MHD_Result (*header)(struct MHD_Response *, const char *, const char *);
	const union MHD_ConnectionInfo *(*conn_info)(struct MHD_Connection *,
						     enum MHD_ConnectionInfoType, ...);
	const char *(*lookup)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
} mhd;

#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&mhd.field = dlsym(mhd.dl, name);                                        \
		if (!mhd.field)                                                                    \
			goto fail;                                                                 \
	} while (0)

static bool load(void)
{
	if (mhd.tried)
		return mhd.dl != NULL;
	mhd.tried = true;
	mhd.dl = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!mhd.dl)
		goto fail;
	SYM(start_va, "MHD_start_daemon_va");
	SYM(stop, "MHD_stop_daemon");
	SYM(run_wait, "MHD_run_wait");
	SYM(from_buffer, "MHD_create_response_from_buffer");
	SYM(destroy, "MHD_destroy_response");
	SYM(queue, "MHD_queue_response");
	SYM(header, "MHD_add_response_header");
	SYM(conn_info, "MHD_get_connection_info");
	SYM(lookup, "MHD_lookup_connection_value");
	return true;
fail:
	fprintf(stderr, "memcgctl: cannot load %s (package libmicrohttpd12): %s\n", MHD_SONAME,
		dlerror());
	if (mhd.dl)
		dlclose(mhd.dl);
	mhd.dl = NULL;
	return false;
}

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
				    void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	struct MHD_Daemon *d;
	va_list ap;

	if (!load()) {
		errno = ELIBACC;
		return NULL;
	}
	va_start(ap, dh_cls);
	d = mhd.start_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

/* The others are reached only through a daemon MHD_start_daemon() returned: loaded. */
void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	mhd.stop(daemon);
}

enum MHD_Result MHD_run_wait(struct MHD_Daemon *daemon, int32_t millisec)
{
	return mhd.run_wait(daemon, millisec);
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer,
						     enum MHD_ResponseMemoryMode mode)
{
	return mhd.from_buffer(size, buffer, mode);
}

void MHD_destroy_response(struct MHD_Response *response)
{
	mhd.destroy(response);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
				   struct MHD_Response *response)
{
	return mhd.queue(connection, status_code, response);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header,
					const char *content)
{
	return mhd.header(response, header, content);
}

/* Only the kinds that take no further argument are asked for (the fd, the socket context). */
const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection,
							enum MHD_ConnectionInfoType info_type, ...)
{
	return mhd.conn_info(connection, info_type);
}

/* A request header (Accept, Accept-Encoding: the answer's format and coding). */
const char *MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind,
					const char *key)
{
	return mhd.lookup(connection, kind, key);
}
