/* size.c: parse and format byte sizes, percentages, relative sizes, durations and CPU budgets. */
#include "base/base.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/*
 * Parse "1.5" with up to 9 decimals into an exact fraction: integer part and
 * the decimal digits as numerator over a power of ten. Exact bytes, no float.
 */
static int parse_decimal(const char **sp, uint64_t *ip, uint64_t *num, uint64_t *den)
{
	const char *s = *sp;
	uint64_t i = 0, n = 0, d = 1;
	bool digits = false;

	while (isdigit((unsigned char)*s)) {
		unsigned c = (unsigned)(*s - '0');

		if (i > (UINT64_MAX - c) / 10)
			return -ERANGE;
		i = i * 10 + c;
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		while (isdigit((unsigned char)*s)) {
			if (d >= 1000000000ULL)
				return -EINVAL;
			n = n * 10 + (uint64_t)(*s - '0');
			d *= 10;
			s++;
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;
	*sp = s;
	*ip = i;
	*num = n;
	*den = d;
	return 0;
}

/* i + num/den times mult, exactly, rounded down; -ERANGE on overflow. */
static int scale(uint64_t i, uint64_t num, uint64_t den, uint64_t mult, uint64_t *ret)
{
	unsigned __int128 v = (unsigned __int128)i * mult + (unsigned __int128)num * mult / den;

	if (v > UINT64_MAX - 1)
		return -ERANGE;
	*ret = (uint64_t)v;
	return 0;
}

int mcg_size_parse(const char *s, unsigned flags, uint64_t ref, uint64_t base, uint64_t *ret,
		   char *why, size_t whylen)
{
	const char *p;
	uint64_t i, num, den, mult = 1, v, ps = (uint64_t)mcg_page_size();
	bool syntax = flags & MCG__SIZE_SYNTAX;
	int sign = 0, r;

	if (!s || !*s) {
		set_why(why, whylen, "empty size");
		return -EINVAL;
	}
	if (!strcmp(s, "max") || !strcmp(s, "infinity") || !strcmp(s, "-1")) {
		if (!(flags & MCG_SIZE_MAX_OK)) {
			set_why(why, whylen, "'%s' is not allowed here", s);
			return -EINVAL;
		}
		*ret = MCG_MAX;
		return 0;
	}
	p = s;
	if (*p == '+' || *p == '-') {
		if (!(flags & MCG_SIZE_RELATIVE_OK)) {
			set_why(why, whylen, "%s",
				*p == '-' ? "negative sizes are not allowed"
					  : "relative sizes are not allowed here");
			return -EINVAL;
		}
		if (base == MCG_MAX && !syntax) {
			set_why(why, whylen, "a relative size needs a current limit, which is max");
			return -EINVAL;
		}
		sign = *p == '-' ? -1 : 1;
		p++;
	}
	r = parse_decimal(&p, &i, &num, &den);
	if (r == -ERANGE) {
		set_why(why, whylen, "number too large");
		return -ERANGE;
	}
	if (r < 0) {
		set_why(why, whylen, "not a number");
		return -EINVAL;
	}
	if (*p == '%') {
		if (!(flags & MCG_SIZE_PERCENT_OK)) {
			set_why(why, whylen, "percentages are not allowed here");
			return -EINVAL;
		}
		if (p[1]) {
			set_why(why, whylen, "trailing characters '%s'", p + 1);
			return -EINVAL;
		}
		if (i > 100 || (i == 100 && num)) {
			set_why(why, whylen, "percentage above 100%%");
			return -ERANGE;
		}
		if (syntax) {
			*ret = 0;
			return 0;
		}
		if (ref == 0 || ref == MCG_MAX) {
			set_why(why, whylen, "no reference size for a percentage");
			return -EINVAL;
		}
		/* ref * (i + num/den) / 100 */
		v = (uint64_t)(((unsigned __int128)ref * (i * den + num)) / ((unsigned __int128)den * 100));
	} else {
		switch (toupper((unsigned char)*p)) {
		case '\0':
			mult = 1;
			break;
		case 'K':
			mult = 1ULL << 10;
			break;
		case 'M':
			mult = 1ULL << 20;
			break;
		case 'G':
			mult = 1ULL << 30;
			break;
		case 'T':
			mult = 1ULL << 40;
			break;
		case 'P':
			mult = 1ULL << 50;
			break;
		case 'E':
			mult = 1ULL << 60;
			break;
		case 'B':
			mult = 1;
			if (p[1]) {
				set_why(why, whylen, "trailing characters '%s'", p + 1);
				return -EINVAL;
			}
			break;
		default:
			set_why(why, whylen, "unknown suffix '%s'", p);
			return -EINVAL;
		}
		if (*p && toupper((unsigned char)*p) != 'B') {
			p++;
			/* K, KB, KiB, k, kiB all mean 1024 */
			if (*p == 'i' || *p == 'I')
				p++;
			if (*p == 'B' || *p == 'b')
				p++;
			if (*p) {
				set_why(why, whylen, "trailing characters '%s'", p);
				return -EINVAL;
			}
		}
		if (mult == 1 && num) {
			set_why(why, whylen, "fractional bytes");
			return -EINVAL;
		}
		r = scale(i, num, den, mult, &v);
		if (r < 0) {
			set_why(why, whylen, "size too large");
			return r;
		}
	}
	if (sign && syntax) {
		*ret = 0;
		return 0;
	}
	if (sign > 0) {
		if (v > MCG_MAX - 1 - base) {
			set_why(why, whylen, "size too large");
			return -ERANGE;
		}
		v = base + v;
	} else if (sign < 0) {
		if (v > base) {
			set_why(why, whylen, "the result would be negative");
			return -ERANGE;
		}
		v = base - v;
	}
	if (v > 0 && v < ps) {
		/* 512 would silently become 0 (no memory at all): only an explicit 0 means that */
		set_why(why, whylen, "less than one page (%llu bytes) rounds down to 0; write 0 if 0 is meant",
			(unsigned long long)ps);
		return -EINVAL;
	}
	*ret = v / ps * ps;
	return 0;
}

char *mcg_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned u = 0;
	double v = (double)bytes;

	if (bytes == MCG_MAX) {
		snprintf(buf, len, "max");
		return buf;
	}
	while (v >= 1024 && u < MCG_ARRAY_SIZE(units) - 1) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else if (v >= 100 || v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

int mcg_duration_parse(const char *s, uint64_t *ret_ms, char *why, size_t whylen)
{
	const char *p = s;
	uint64_t i, num, den, mult, v;
	int r;

	if (!s || !*s) {
		set_why(why, whylen, "empty duration");
		return -EINVAL;
	}
	if (*p == '-') {
		set_why(why, whylen, "negative duration");
		return -EINVAL;
	}
	r = parse_decimal(&p, &i, &num, &den);
	if (r < 0) {
		set_why(why, whylen, "%s", r == -ERANGE ? "number too large" : "not a number");
		return r;
	}
	if (!*p || !strcmp(p, "s"))
		mult = 1000;
	else if (!strcmp(p, "ms"))
		mult = 1;
	else if (!strcmp(p, "m") || !strcmp(p, "min"))
		mult = 60000;
	else if (!strcmp(p, "h"))
		mult = 3600000;
	else {
		set_why(why, whylen, "unknown unit '%s'", p);
		return -EINVAL;
	}
	r = scale(i, num, den, mult, &v);
	if (r < 0) {
		set_why(why, whylen, "duration too long");
		return r;
	}
	*ret_ms = v;
	return 0;
}

int mcg_parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "max", 3) && (s[3] == '\0' || isspace((unsigned char)s[3]))) {
		*ret = MCG_MAX;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*ret = v >= mcg__v1_unlimited() ? MCG_MAX : (uint64_t)v;
	return 0;
}

/*
 * A CPU budget in percent of one CPU: parse_decimal's digits with at most three decimals
 * (the async-reclaim enable file keeps thousandths, so what is accepted is what reclaimd
 * reads back), one optional '%', 0.001 to 100. The value is exact thousandths.
 */
int mcg_cpu_percent_parse(const char *s, double *ret, char *why, size_t whylen)
{
	const char *p = s, *dot;
	uint64_t i, num, den, milli;
	int r;

	if (!s || !*s) {
		set_why(why, whylen, "empty");
		return -EINVAL;
	}
	if (*p == '-') {
		set_why(why, whylen, "negative");
		return -EINVAL;
	}
	/* counted first: parse_decimal refuses more than nine decimals as "not a number" */
	for (dot = p; isdigit((unsigned char)*dot); dot++)
		;
	if (*dot == '.' && strspn(dot + 1, "0123456789") > 3) {
		set_why(why, whylen, "more than three decimals");
		return -EINVAL;
	}
	r = parse_decimal(&p, &i, &num, &den);
	if (r == -ERANGE) {
		set_why(why, whylen, "above 100");
		return -ERANGE;
	}
	if (r < 0) {
		set_why(why, whylen, "not a number");
		return -EINVAL;
	}
	if (*p == '%')
		p++;
	if (*p) {
		char e[64]; /* what was typed, escaped: the reason is printed */

		mcg_escape(p, e, sizeof(e));
		set_why(why, whylen, "trailing characters '%s'", e);
		return -EINVAL;
	}
	/* den is 1, 10, 100 or 1000 here */
	if (i > 100) {
		set_why(why, whylen, "above 100");
		return -ERANGE;
	}
	milli = i * 1000 + num * (1000 / den);
	if (milli > 100000) {
		set_why(why, whylen, "above 100");
		return -ERANGE;
	}
	if (milli == 0) {
		set_why(why, whylen, "below 0.001");
		return -ERANGE;
	}
	*ret = (double)milli / 1000.0;
	return 0;
}
