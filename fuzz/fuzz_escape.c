/* fuzz_escape.c: mcg_escape, the one escaper of printed names, against its promises. */
#include "fuzz.h"

/* Length of the well-formed UTF-8 sequence at S (RFC 3629), 0 if there is none. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		return 0; /* a C1 control: a terminal acts on it, so it must have been escaped */
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0; /* a bidi control: it reorders the line, so it must have been escaped */
	return n;
}

/* The output is printable, valid UTF-8 with no C0, DEL or C1 control. */
static void check_clean(const char *out, size_t n, const char *what)
{
	const unsigned char *p = (const unsigned char *)out;
	size_t i = 0;

	while (i < n) {
		size_t k;

		FZ_CHECK(p[i] >= 0x20 && p[i] != 0x7f, "%s: control byte 0x%02x at %zu", what, p[i], i);
		k = utf8_len(p + i, n - i);
		FZ_CHECK(k, "%s: invalid UTF-8 (or C1) at byte %zu (0x%02x)", what, i, p[i]);
		i += k;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Undo mcg_escape into BUF (at least N + 1 bytes); -1 on a malformed or cut escape. */
static ssize_t unescape(const char *s, size_t n, char *buf)
{
	static const char letter[] = "abtnvfre", named[] = "\a\b\t\n\v\f\r\033";
	size_t i = 0, o = 0;

	while (i < n) {
		if (s[i] != '\\') {
			buf[o++] = s[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		if (s[i + 1] == '\\') {
			buf[o++] = '\\';
			i += 2;
		} else if (s[i + 1] == 'x') {
			int hi, lo;

			if (i + 3 >= n)
				return -1;
			hi = hexval(s[i + 2]);
			lo = hexval(s[i + 3]);
			if (hi < 0 || lo < 0)
				return -1;
			buf[o++] = (char)(hi << 4 | lo);
			i += 4;
		} else {
			const char *q = memchr(letter, s[i + 1], sizeof(letter) - 1);

			if (!q)
				return -1;
			buf[o++] = named[q - letter];
			i += 2;
		}
	}
	buf[o] = '\0';
	return (ssize_t)o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *full, *dup, *back, *cut;
	size_t need, slen, len;
	ssize_t nb;

	if (size > 4096)
		return -1;
	s = fz_str(data, size);
	slen = strlen(s);

	need = mcg_escape(s, NULL, 0);
	FZ_CHECK(need >= slen && need <= 4 * slen, "need %zu for %zu input bytes", need, slen);
	full = malloc(need + 1);
	back = malloc(need + 1);
	cut = malloc(need + 2);
	if (!full || !back || !cut)
		abort();
	memset(full, 'Z', need + 1);
	FZ_CHECK(mcg_escape(s, full, need + 1) == need, "length differs with a buffer");
	FZ_CHECK(strlen(full) == need, "returned %zu, wrote %zu", need, strlen(full));
	check_clean(full, need, "escaped");
	nb = unescape(full, need, back);
	FZ_CHECK(nb >= 0, "escaped text does not unescape: '%s'", full);
	FZ_CHECK((size_t)nb == slen && !memcmp(back, s, slen), "unescaping does not give back the input");
	/* printable ASCII other than the backslash is kept as is */
	if (!strpbrk(s, "\\") && need == slen)
		FZ_CHECK(!strcmp(full, s), "a clean name was changed");

	dup = mcg_escape_dup(s);
	FZ_CHECK(dup && !strcmp(dup, full), "mcg_escape_dup differs from mcg_escape");
	free(dup);

	/* every truncation: a prefix of the whole, whole escapes and characters only */
	for (len = 1; len <= need + 1; len++) {
		size_t n, m;

		if (len > 48 && len + 48 < need && len % 61)
			continue; /* the middle of long names, sampled */
		memset(cut, 'Z', need + 2);
		m = mcg_escape(s, cut, len);
		FZ_CHECK(m == need, "returned %zu with %zu bytes, %zu with enough", m, len, need);
		n = strnlen(cut, len);
		FZ_CHECK(n < len, "no NUL within %zu bytes", len);
		FZ_CHECK(cut[len] == 'Z', "wrote past %zu bytes", len);
		FZ_CHECK(!memcmp(cut, full, n), "truncated at %zu: not a prefix of the whole", len);
		FZ_CHECK(len <= need || n == need, "room for all but it stopped at %zu", n);
		check_clean(cut, n, "truncated");
		nb = unescape(cut, n, back);
		FZ_CHECK(nb >= 0, "truncated at %zu: a cut escape: '%s'", len, cut);
		FZ_CHECK(!memcmp(back, s, (size_t)nb), "truncated at %zu: not a prefix of the input", len);
		/* nothing that would have fitted was left out: the next piece is longer than the room */
		if (n < need) {
			size_t piece = full[n] == '\\' ? (full[n + 1] == 'x' ? 4 : 2)
				     : utf8_len((const unsigned char *)full + n, need - n);

			FZ_CHECK(n + piece >= len, "stopped at %zu of %zu with room for the next %zu", n,
				 len, piece);
		}
	}
	free(cut);
	free(back);
	free(full);
	free(s);
	return 0;
}
