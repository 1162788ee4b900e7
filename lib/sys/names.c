/*
 * names.c: the names a cgroup goes by, from its path alone: the systemd unit
 * that owns it, by systemd's naming of cgroups after units (no D-Bus; a
 * unit's cgroup as systemd reports it is systemd/unit.c).
 */
#include "sys/sys.h"

#include <string.h>

static const char *const unit_suffixes[] = {".service", ".scope", ".slice", ".socket",
					    ".mount",   ".swap",  NULL};

bool mcg_unit_name_valid(const char *name, size_t len)
{
	size_t i, s;

	/* systemd's UNIT_NAME_MAX */
	if (len == 0 || len > 255 || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		/* unit_name_is_valid(): [A-Za-z0-9:_.\\@-] only */
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ':' || c == '-' || c == '_' || c == '.' || c == '\\' || c == '@'))
			return false;
	}
	for (s = 0; unit_suffixes[s]; s++) {
		size_t n = strlen(unit_suffixes[s]);

		if (len > n && !memcmp(name + len - n, unit_suffixes[s], n))
			return true;
	}
	return false;
}

static bool is_slice(const char *name, size_t len)
{
	return len > 6 && !memcmp(name + len - 6, ".slice", 6);
}

int mcg_unit_from_path(const char *path, char *buf, size_t len)
{
	const char *p = path, *slice = NULL, *unit = NULL;
	size_t slice_len = 0, unit_len = 0;

	while (*p && !unit) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n && mcg_unit_name_valid(p, n)) {
			if (is_slice(p, n)) {
				slice = p;
				slice_len = n;
			} else {
				unit = p;
				unit_len = n;
			}
		} else if (n) {
			/* below a non-unit component systemd's naming ends */
			break;
		}
		p = end;
	}
	if (!unit) {
		unit = slice;
		unit_len = slice_len;
	}
	if (!unit)
		return 0;
	if (unit_len >= len)
		return -ENAMETOOLONG;
	memcpy(buf, unit, unit_len);
	buf[unit_len] = '\0';
	return (int)unit_len;
}
