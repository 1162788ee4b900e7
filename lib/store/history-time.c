/* history-time.c: the TIME arguments of dump and top --replay ("03:12", "-2h", "yesterday 14:00", ISO 8601). */
#include "store/store.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS 1000000000ULL

static bool digits(const char **p, int n, int *ret)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*ret = v;
	return true;
}

/* "HH:MM" or "HH:MM:SS" with an optional ".fraction"; *P moves past it. */
static bool clock_time(const char **p, int *h, int *m, int *s, uint64_t *frac_ns)
{
	*s = 0;
	*frac_ns = 0;
	if (!digits(p, 2, h) || **p != ':')
		return false;
	(*p)++;
	if (!digits(p, 2, m))
		return false;
	if (**p == ':') {
		(*p)++;
		if (!digits(p, 2, s))
			return false;
		if (**p == '.' || **p == ',') {
			uint64_t scale = NS / 10;

			(*p)++;
			if (!isdigit((unsigned char)**p))
				return false;
			for (; isdigit((unsigned char)**p); (*p)++, scale /= 10)
				*frac_ns += (uint64_t)(**p - '0') * scale;
		}
	}
	return *h < 24 && *m < 60 && *s < 61;
}

static int fail(char *why, size_t len, const char *msg)
{
	if (why && len)
		snprintf(why, len, "%s", msg);
	return -EINVAL;
}

/* Local midnight of the day of NOW plus DAYS, as a struct tm to fill in. */
static void local_day(uint64_t now_ns, int days, struct tm *tm)
{
	time_t t = (time_t)(now_ns / NS);

	localtime_r(&t, tm);
	tm->tm_mday += days;
	tm->tm_hour = tm->tm_min = tm->tm_sec = 0;
	tm->tm_isdst = -1;
}

/* Nanoseconds since the epoch in 64 bits end in 2554: a later time would wrap to 1970 and after. */
static int secs_to_ns(long long t, uint64_t frac, uint64_t *ret, char *why, size_t len)
{
	if (t < 0)
		return fail(why, len, "not a time memcgctl can represent (before 1970)");
	if ((uint64_t)t > (UINT64_MAX - frac) / NS)
		return fail(why, len, "not a time memcgctl can represent (past 2554)");
	*ret = (uint64_t)t * NS + frac;
	return 0;
}

static int to_ns(struct tm *tm, uint64_t frac, uint64_t *ret, char *why, size_t len)
{
	time_t t = mktime(tm);

	if (t == (time_t)-1)
		return fail(why, len, "not a time memcgctl can represent");
	return secs_to_ns((long long)t, frac, ret, why, len);
}

static int relative(const char *s, uint64_t now_ns, uint64_t *ret, char *why, size_t len)
{
	uint64_t total = 0;

	if (!*s)
		return fail(why, len, "a duration after '-' (2h, 90m, 1d)");
	while (*s) {
		uint64_t v = 0, unit;

		if (!isdigit((unsigned char)*s))
			return fail(why, len, "a duration is a number and s, m, h or d (-2h, -1h30m)");
		for (; isdigit((unsigned char)*s); s++) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > 100000000ULL)
				return fail(why, len, "too far back");
		}
		switch (*s++) {
		case 's':
			unit = 1;
			break;
		case 'm':
			unit = 60;
			break;
		case 'h':
			unit = 3600;
			break;
		case 'd':
			unit = 86400;
			break;
		default:
			return fail(why, len, "a duration needs a unit: s, m, h or d (-2h)");
		}
		total += v * unit;
		if (total > 100ULL * 365 * 86400)
			return fail(why, len, "too far back");
	}
	if (total * NS > now_ns)
		return fail(why, len, "before 1970");
	*ret = now_ns - total * NS;
	return 0;
}

int mcg_hist_time_parse(const char *s, uint64_t now_ns, uint64_t *ret_ns, char *why, size_t whylen)
{
	struct tm tm;
	uint64_t frac;
	int h, m, sec, y, mo, d, r;
	const char *p = s;

	if (!s || !*s)
		return fail(why, whylen, "empty time");
	if (!strcmp(s, "now")) {
		*ret_ns = now_ns;
		return 0;
	}
	if (s[0] == '-')
		return relative(s + 1, now_ns, ret_ns, why, whylen);
	if (s[0] == '@') {
		uint64_t v = 0;

		for (p = s + 1; isdigit((unsigned char)*p) && v < 10000000000ULL; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (p == s + 1 || *p || v >= 10000000000ULL)
			return fail(why, whylen, "@ takes whole seconds since the epoch");
		*ret_ns = v * NS;
		return 0;
	}
	if (!strncmp(s, "today", 5) || !strncmp(s, "yesterday", 9)) {
		bool yest = s[0] == 'y';

		p = s + (yest ? 9 : 5);
		local_day(now_ns, yest ? -1 : 0, &tm);
		frac = 0;
		if (*p == ' ') {
			p++;
			if (!clock_time(&p, &h, &m, &sec, &frac) || *p)
				return fail(why, whylen, "expected HH:MM or HH:MM:SS after the day");
			tm.tm_hour = h;
			tm.tm_min = m;
			tm.tm_sec = sec;
		} else if (*p) {
			return fail(why, whylen, "expected 'today HH:MM' or 'yesterday HH:MM'");
		}
		return to_ns(&tm, frac, ret_ns, why, whylen);
	}
	if (isdigit((unsigned char)s[0]) && s[1] && s[2] == ':') {
		if (!clock_time(&p, &h, &m, &sec, &frac) || *p)
			return fail(why, whylen, "expected HH:MM or HH:MM:SS");
		local_day(now_ns, 0, &tm);
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = sec;
		r = to_ns(&tm, frac, ret_ns, why, whylen);
		if (r == 0 && *ret_ns > now_ns) {
			/* a clock time still to come today is the last one past: yesterday's */
			local_day(now_ns, -1, &tm);
			tm.tm_hour = h;
			tm.tm_min = m;
			tm.tm_sec = sec;
			r = to_ns(&tm, frac, ret_ns, why, whylen);
		}
		return r;
	}
	/* ISO 8601: YYYY-MM-DD[( |T)HH:MM[:SS[.f]][Z|(+|-)HH[:]MM]] */
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1970)
		return fail(why, whylen,
			    "not a time: use HH:MM, -2h, 'yesterday 14:00' or 2026-11-30T14:00:00Z");
	{
		/* a day the month has: 2026-02-31 is not March 3rd */
		static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

		if (d > mdays[mo - 1] + (mo == 2 && leap))
			return fail(why, whylen, "no such day in that month");
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_isdst = -1;
	frac = 0;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (!clock_time(&p, &h, &m, &sec, &frac))
			return fail(why, whylen, "expected HH:MM after the date");
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = sec;
	}
	if (*p == 'Z' || *p == '+' || *p == '-') {
		int oh = 0, om = 0, sign = *p == '-' ? -1 : 1;
		time_t t;
		long off;

		if (*p != 'Z') {
			p++;
			if (!digits(&p, 2, &oh))
				return fail(why, whylen, "a UTC offset is +HH:MM");
			if (*p == ':')
				p++;
			if (!digits(&p, 2, &om) || oh > 23 || om > 59)
				return fail(why, whylen, "a UTC offset is +HH:MM");
		} else {
			p++;
		}
		if (*p)
			return fail(why, whylen, "unexpected text after the time");
		t = timegm(&tm);
		off = sign * (oh * 3600L + om * 60L);
		if (t == (time_t)-1)
			return fail(why, whylen, "not a time memcgctl can represent");
		return secs_to_ns((long long)t - off, frac, ret_ns, why, whylen);
	}
	if (*p)
		return fail(why, whylen, "unexpected text after the time");
	return to_ns(&tm, frac, ret_ns, why, whylen);
}

char *mcg_hist_time_format(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / NS);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(ns % NS / 1000000));
	return buf;
}
