/* openmetrics.c: label value escaping for the Prometheus/OpenMetrics text exposition format. */
#include "internal.h"

#include <memcg/openmetrics.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t mcg_om_escape(const char *s, char *buf, size_t len)
{
	size_t need = 0, out = 0;
	bool full = !len;

	for (; *s; s++) {
		const char *e;
		char one[2] = {*s, '\0'};
		size_t n;

		switch (*s) {
		case '\\':
			e = "\\\\";
			break;
		case '"':
			e = "\\\"";
			break;
		case '\n':
			e = "\\n";
			break;
		default:
			e = one;
			break;
		}
		n = strlen(e);
		need += n;
		if (!full && out + n < len) {
			memcpy(buf + out, e, n);
			out += n;
		} else {
			full = true; /* stop writing (never half an escape), keep counting */
		}
	}
	if (len)
		buf[out] = '\0';
	return need;
}

char *mcg_om_label_dup(const char *path)
{
	char *esc, *ret;
	size_t n;

	esc = mcg_escape_dup(path);
	if (!esc)
		return NULL;
	n = mcg_om_escape(esc, NULL, 0);
	ret = malloc(n + 1);
	if (ret)
		mcg_om_escape(esc, ret, n + 1);
	free(esc);
	return ret;
}

char *mcg_om_cgroup_labels(const char *path, bool unit)
{
	char *value, *ret, name[256];
	size_t n, m = 0;
	int u = 0;

	value = mcg_om_label_dup(path);
	if (!value)
		return NULL;
	if (unit)
		u = mcg_unit_from_path(path, name, sizeof(name));
	n = strlen(value) + sizeof("cgroup=\"\"");
	if (u > 0) {
		/* unit names are ASCII (mcg_unit_name_valid); \x2d escapes keep their backslash */
		m = mcg_om_escape(name, NULL, 0);
		n += sizeof(",unit=\"\"") - 1 + m;
	}
	ret = malloc(n);
	if (ret) {
		int w = snprintf(ret, n, "cgroup=\"%s\"", value);

		if (u > 0 && w > 0 && (size_t)w < n) {
			memcpy(ret + w, ",unit=\"", 7);
			mcg_om_escape(name, ret + w + 7, m + 1);
			memcpy(ret + w + 7 + m, "\"", 2);
		}
	}
	free(value);
	return ret;
}

void mcg_om_metric_name(enum mcg_key k, char *buf, size_t len)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);
	const char *unit = "";

	switch (d->unit) {
	case MCG_UNIT_BYTES:
		unit = "_bytes";
		break;
	case MCG_UNIT_PAGES:
		unit = "_pages";
		break;
	case MCG_UNIT_US:
	case MCG_UNIT_NS:
		unit = "_seconds";
		break;
	case MCG_UNIT_EVENTS:
	case MCG_UNIT_NUMBER:
		break;
	}
	snprintf(buf, len, "memcgctl_%s%s%s", d->name, unit,
		 d->kind == MCG_KIND_COUNTER ? "_total" : "");
}
