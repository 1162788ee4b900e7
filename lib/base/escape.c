/* escape.c: the one escaper for names printed as text (cgroup names are chosen by whoever can mkdir). */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

size_t mcg_utf8_seq(const unsigned char *s, uint32_t *ret_cp)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (ret_cp)
		*ret_cp = cp;
	return n;
}

size_t mcg_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t need = 0, used = 0;
	bool full = len == 0;

	while (*p) {
		char tmp[8];
		const char *piece = tmp;
		uint32_t cp = 0;
		size_t n;

		if (*p == '\\') {
			piece = "\\\\";
			n = 2;
			p++;
		} else if (*p >= 0x20 && *p < 0x7f) {
			tmp[0] = (char)*p++;
			n = 1;
		} else if (*p >= 0x80 && (n = mcg_utf8_seq(p, &cp)) > 0 && !mcg_cp_escaped(cp)) {
			/* printable UTF-8 as is; C1 and bidi controls escaped, byte by byte */
			piece = (const char *)p;
			p += n;
		} else {
			static const char named[] = "\a\b\t\n\v\f\r\033";
			static const char letter[] = "abtnvfre";
			const char *q = *p ? strchr(named, *p) : NULL;

			if (q) {
				tmp[0] = '\\';
				tmp[1] = letter[q - named];
				n = 2;
			} else {
				static const char hex[] = "0123456789abcdef";

				tmp[0] = '\\';
				tmp[1] = 'x';
				tmp[2] = hex[*p >> 4];
				tmp[3] = hex[*p & 15];
				n = 4;
			}
			p++;
		}
		need += n;
		if (!full && used + n < len) {
			memcpy(buf + used, piece, n);
			used += n;
		} else {
			full = true;
		}
	}
	if (len)
		buf[used] = '\0';
	return need;
}

char *mcg_escape_dup(const char *s)
{
	size_t n = mcg_escape(s, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		mcg_escape(s, buf, n + 1);
	return buf;
}

/*
 * Fields of memcgctl's own state files (journals, async-reclaim enable and
 * stats files): %XX with upper-case hex for the bytes that would end a field
 * or a line, and for '%' itself; every other byte as it is.
 */
bool mcg__field_encode(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	if (!len)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '%') {
			if (o + 3 >= len)
				break;
			buf[o++] = '%';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		} else {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return *s == '\0';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Only what mcg__field_encode() writes: the exact escapes, nothing else escaped or raw. */
bool mcg__field_decode(const char *s, size_t n, char *buf, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o + 1 >= len)
			return false;
		if (c == '%') {
			int h, l;
			unsigned char x;

			if (i + 2 >= n)
				return false;
			h = hexval(s[i + 1]);
			l = hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return false;
			x = (unsigned char)(h * 16 + l);
			if (x == 0 || (x > ' ' && x < 0x7f && x != '%'))
				return false;
			buf[o++] = (char)x;
			i += 2;
		} else if (c <= ' ' || c >= 0x7f) {
			return false;
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return true;
}

bool mcg_escape_plain(const char *s)
{
	while (*s >= 0x20 && *s < 0x7f && *s != '\\')
		s++;
	return !*s;
}
