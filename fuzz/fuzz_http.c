/*
 * fuzz_http.c: export --listen's request path: a request's route, its Accept and
 * Accept-Encoding, a peer's uid in /proc/net/tcp, the OpenMetrics text of an exposition.
 */
#include "fuzz.h"

#include <errno.h>
#include <memcg/openmetrics.h>

/*
 * The input: 37 bytes of connection ends (a flag byte, bit 0 for IPv6, then
 * the client's address (16) and port (2), then the server's), then three
 * NUL-separated sections: the method, the URL (as libmicrohttpd hands them to
 * the access handler: any bytes but NUL), the text of /proc/net/tcp{,6}, the
 * Accept and the Accept-Encoding headers, and an exposition in the text format
 * 0.0.4 to turn into OpenMetrics.
 */
#define ENDS 37

static void ends_from(const uint8_t *d, struct mcg_om_tcp_end *l, struct mcg_om_tcp_end *r)
{
	memset(l, 0, sizeof(*l));
	memset(r, 0, sizeof(*r));
	l->v6 = r->v6 = d[0] & 1;
	memcpy(l->addr, d + 1, l->v6 ? 16 : 4);
	l->port = (uint32_t)d[17] << 8 | d[18];
	memcpy(r->addr, d + 19, r->v6 ? 16 : 4);
	r->port = (uint32_t)d[35] << 8 | d[36];
}

/* One line as the kernel prints it (net/ipv4/tcp_ipv4.c get_tcp4_sock, tcp_ipv6.c get_tcp6_sock).
 */
static int kernel_line(char *buf, size_t len, const struct mcg_om_tcp_end *l,
		       const struct mcg_om_tcp_end *r, unsigned uid)
{
	if (!l->v6)
		return snprintf(
			buf, len,
			"%4d: %08X:%04X %08X:%04X %02X %08X:%08X %02X:%08lX %08X %5u %8d %lu %d "
			"0000000000000000 %lu %lu %u %u %d\n",
			3, l->addr[0], l->port, r->addr[0], r->port, 1, 0, 0, 0, 0UL, 0, uid, 0,
			12345UL, 1, 20UL, 4UL, 30U, 10U, -1);
	return snprintf(
		buf, len,
		"%4d: %08X%08X%08X%08X:%04X %08X%08X%08X%08X:%04X %02X %08X:%08X %02X:%08lX "
		"%08X %5u %8d %lu\n",
		3, l->addr[0], l->addr[1], l->addr[2], l->addr[3], l->port, r->addr[0], r->addr[1],
		r->addr[2], r->addr[3], r->port, 1, 0, 0, 0, 0UL, 0, uid, 0, 12345UL);
}

/* the lines of [P, P+N) that are samples (neither empty nor a comment), each after the last */
static const char *next_sample(const char *p, const char *end, size_t *n)
{
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		if (p < eol && *p != '#') {
			*n = (size_t)(eol - p);
			return p;
		}
		p = eol + 1;
	}
	return NULL;
}

/*
 * OpenMetrics from TEXT: "# EOF" ends it and nothing else is a comment but
 * HELP, TYPE and UNIT; no empty line; the samples are TEXT's, in order.
 */
static void check_openmetrics(const char *text, size_t len)
{
	const char *a = text, *b, *aend = text + len, *bend, *sa, *sb, *p;
	char *out = NULL;
	size_t n, na, nb;

	FZ_CHECK(mcg_om_to_openmetrics(text, len, &out, &n) == 0, "mcg_om_to_openmetrics");
	FZ_CHECK(n >= 6 && !memcmp(out + n - 6, "# EOF\n", 6), "no # EOF at the end");
	bend = out + n - 6;
	for (p = out; p < bend;) {
		const char *eol = memchr(p, '\n', (size_t)(bend - p));

		FZ_CHECK(eol && eol > p, "an empty or unterminated line at %zu", (size_t)(p - out));
		if (*p == '#')
			FZ_CHECK(!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7) ||
					 !strncmp(p, "# UNIT ", 7),
				 "comment '%.*s'", (int)(eol - p), p);
		p = eol + 1;
	}
	b = out;
	for (;;) {
		sa = next_sample(a, aend, &na);
		sb = next_sample(b, bend, &nb);
		FZ_CHECK(!sa == !sb, "a sample %s", sa ? "lost" : "added");
		if (!sa)
			break;
		FZ_CHECK(na == nb && !memcmp(sa, sb, na), "sample '%.*s' became '%.*s'", (int)na, sa,
			 (int)nb, sb);
		a = sa + na;
		b = sb + nb;
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcg_om_tcp_end l, r;
	char *sec[6], line[512], *both;
	size_t len[6];
	unsigned want;
	uint32_t uid = 777;
	int route, e, n;

	if (size < ENDS || size > (1 << 16))
		return -1;
	ends_from(data, &l, &r);
	fz_sections(data + ENDS, size - ENDS, sec, len, 6);

	route = mcg_om_route(sec[0], sec[1]);
	FZ_CHECK(route >= MCG_OM_METRICS && route <= MCG_OM_BAD_METHOD, "route %d", route);
	if (route == MCG_OM_METRICS || route == MCG_OM_INDEX)
		FZ_CHECK(sec[0] && sec[1] && (!strcmp(sec[0], "GET") || !strcmp(sec[0], "HEAD")) &&
				 !strcmp(sec[1], route == MCG_OM_METRICS ? "/metrics" : "/"),
			 "route %d for '%s' '%s'", route, sec[0], sec[1]);

	want = mcg_om_negotiate(sec[3], sec[4]);
	FZ_CHECK(!(want & ~(unsigned)(MCG_OM_WANT_OPENMETRICS | MCG_OM_WANT_GZIP)), "want %u", want);
	/* no Accept-Encoding at all is never gzip; no Accept never OpenMetrics */
	FZ_CHECK(!(mcg_om_negotiate(sec[3], NULL) & MCG_OM_WANT_GZIP), "gzip without asking");
	FZ_CHECK(!(mcg_om_negotiate(NULL, sec[4]) & MCG_OM_WANT_OPENMETRICS), "OM without asking");
	/* the format does not depend on the coding, nor the coding on the format */
	FZ_CHECK((mcg_om_negotiate(sec[3], NULL) | (mcg_om_negotiate(NULL, sec[4]))) == want,
		 "Accept and Accept-Encoding mixed");
	if (sec[5])
		check_openmetrics(sec[5], len[5]);

	if (!sec[2])
		goto out;
	e = mcg_om_tcp_owner(sec[2], len[2], &l, &r, &uid);
	FZ_CHECK(e == 0 || e == -ENOENT || e == -EINVAL, "mcg_om_tcp_owner: %d", e);
	if (e)
		FZ_CHECK(uid == 777, "mcg_om_tcp_owner wrote a uid on failure (%d)", e);
	/* a table without the socket, and the kernel's line for it after: found, its uid */
	if (e == -ENOENT) {
		n = kernel_line(line, sizeof(line), &l, &r, 4242);
		FZ_CHECK(n > 0 && (size_t)n < sizeof(line), "kernel_line");
		both = malloc(len[2] + 1 + (size_t)n);
		if (!both)
			abort();
		memcpy(both, sec[2], len[2]);
		both[len[2]] = '\n';
		memcpy(both + len[2] + 1, line, (size_t)n);
		uid = 0;
		e = mcg_om_tcp_owner(both, len[2] + 1 + (size_t)n, &l, &r, &uid);
		FZ_CHECK(e == 0 && uid == 4242, "the kernel's line after the table: %d, uid %u", e,
			 uid);
		free(both);
	}
out:
	fz_free_sections(sec, 6);
	return 0;
}
