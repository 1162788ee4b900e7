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

#endif
