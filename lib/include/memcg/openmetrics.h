/* memcg/openmetrics.h: text exposition helpers for Prometheus/OpenMetrics (export). */
#ifndef MEMCG_OPENMETRICS_H
#define MEMCG_OPENMETRICS_H

#ifndef MEMCG_H
#error "include <memcg.h> before <memcg/openmetrics.h>"
#endif

/*
 * Escape S as a label value of the text exposition format: a backslash
 * becomes "\\", a double quote "\"", a newline "\n"; every other byte is
 * copied. The result is NUL-terminated and truncated to fit LEN (never in the
 * middle of an escape). Returns the length the whole escaped string needs,
 * not counting the NUL, as snprintf does.
 */
MCG_EXPORT size_t mcg_om_escape(const char *s, char *buf, size_t len);

/*
 * The label value of a cgroup path: the path as memcgctl prints it anywhere
 * (mcg_escape: controls as \n \t \xHH, invalid UTF-8 bytes as \xHH, a
 * backslash as \\), which is valid UTF-8 without a newline, then escaped for
 * the exposition format (mcg_om_escape). A label value read back by a
 * Prometheus server is therefore exactly memcgctl's escaped name, and two
 * different cgroups never share one. malloc'd; NULL on allocation failure.
 */
MCG_EXPORT char *mcg_om_label_dup(const char *path);

/*
 * The label set of a cgroup's samples, without the braces:
 * cgroup="VALUE" (mcg_om_label_dup) and, when UNIT is true and PATH is named
 * after a systemd unit (mcg_unit_from_path: the service or scope that owns
 * it, else the innermost slice), ,unit="NAME" (escaped by mcg_om_escape).
 * Pure: the caller decides UNIT (the host runs systemd: sd_booted()).
 * malloc'd; NULL on allocation failure.
 */
MCG_EXPORT char *mcg_om_cgroup_labels(const char *path, bool unit);

/*
 * The metric name of counter K into BUF: memcgctl_ + its base name + the
 * base unit (_bytes, _pages; microseconds and nanoseconds as _seconds) +
 * _total for a counter: memcgctl_pgscan_total, memcgctl_psi_some_seconds_total.
 */
MCG_EXPORT void mcg_om_metric_name(enum mcg_key k, char *buf, size_t len);

/* What an HTTP request to the exporter asks for (export --listen). */
enum {
	MCG_OM_METRICS,	   /* GET or HEAD /metrics: the exposition */
	MCG_OM_INDEX,	   /* GET or HEAD /: a line pointing to /metrics */
	MCG_OM_NOT_FOUND,  /* another path: 404 */
	MCG_OM_BAD_METHOD, /* another method: 405 */
};
MCG_EXPORT int mcg_om_route(const char *method, const char *url);

/*
 * One end of a TCP connection as /proc/net/tcp and /proc/net/tcp6 print it:
 * the address's 32-bit words as they lie in memory (struct in_addr's s_addr,
 * in6_addr's s6_addr32[]) and the port in host order.
 */
struct mcg_om_tcp_end {
	bool v6;
	uint32_t addr[4];
	uint32_t port;
};

/*
 * The uid owning the socket whose local end is LOCAL and remote end REMOTE
 * in TEXT, LEN bytes of /proc/net/tcp (or tcp6 with v6 ends). The exporter
 * asks it for the client's end of a loopback connection: the client's uid,
 * which the kernel knows and the client cannot choose. 0 and *UID, -ENOENT
 * when no line matches, -EINVAL for a matching line without a uid.
 */
MCG_EXPORT int mcg_om_tcp_owner(const char *text, size_t len, const struct mcg_om_tcp_end *local,
				const struct mcg_om_tcp_end *remote, uint32_t *uid);

/* The OpenMetrics text format memcgctl serves when asked (export --listen). */
#define MCG_OM_OPENMETRICS_VERSION "1.0.0"
#define MCG_OM_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define MCG_OM_CONTENT_TYPE_OPENMETRICS                                                            \
	"application/openmetrics-text; version=" MCG_OM_OPENMETRICS_VERSION "; charset=utf-8"

/* What a scrape's request headers ask for (mcg_om_negotiate). */
enum {
	MCG_OM_WANT_OPENMETRICS = 1, /* the OpenMetrics text (else the text format 0.0.4) */
	MCG_OM_WANT_GZIP = 2,	     /* the body gzip-compressed */
};

/*
 * The answer a request wants, from its Accept and Accept-Encoding headers
 * (either NULL when absent; as libmicrohttpd hands them over, any bytes but
 * NUL): MCG_OM_WANT_OPENMETRICS when application/openmetrics-text (no version
 * or version=1.0.0) has a higher q than text/plain (no version or 0.0.4),
 * text/ * and * / *; MCG_OM_WANT_GZIP when gzip (or x-gzip) has a q above 0,
 * or is not named and * has one. A malformed q counts as 0. Pure.
 */
MCG_EXPORT unsigned mcg_om_negotiate(const char *accept, const char *accept_encoding);

/*
 * The OpenMetrics 1.0.0 text of TEXT, LEN bytes of the text format 0.0.4 as
 * memcgctl renders it: a counter's family is named without its _total (its
 * samples keep it), a family named _bytes or _seconds gets its # UNIT, HELP
 * escapes a double quote, other comments and empty lines are dropped, and
 * "# EOF" ends it. malloc'd into *RET, *RETLEN; 0, or -ENOMEM.
 */
MCG_EXPORT int mcg_om_to_openmetrics(const char *text, size_t len, char **ret, size_t *retlen);

#endif
