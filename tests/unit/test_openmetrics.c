/* test_openmetrics.c: label value escaping of the text exposition format (export). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ops/ops.h"
#include <memcg/openmetrics.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

struct esc {
	const char *in, *want;
};

static const struct esc om_cases[] = {
	{"", ""},
	{"/", "/"},
	{"/system.slice/a b", "/system.slice/a b"},
	{"/a\"b", "/a\\\"b"},
	{"/a\\b", "/a\\\\b"},
	{"/a\nb", "/a\\nb"},
	{"\"\\\n", "\\\"\\\\\\n"},
	{"/caf\xc3\xa9", "/caf\xc3\xa9"}, /* valid UTF-8 is copied */
	{"/\xff", "/\xff"},		  /* this layer copies bytes; the label layer fixes them */
	{"/tab\there", "/tab\there"},	  /* the format escapes only \\ \" \n */
};

static void test_escape(void **state)
{
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(om_cases) / sizeof(om_cases[0]); i++) {
		size_t n = mcg_om_escape(om_cases[i].in, buf, sizeof(buf));

		assert_string_equal(buf, om_cases[i].want);
		assert_int_equal(n, strlen(om_cases[i].want));
		assert_int_equal(mcg_om_escape(om_cases[i].in, NULL, 0), n);
	}
}

/* Truncation: NUL-terminated, never half an escape, the full length returned. */
static void test_truncate(void **state)
{
	char buf[4];

	(void)state;
	assert_int_equal(mcg_om_escape("ab\"c", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "ab");
	assert_int_equal(mcg_om_escape("abc\\", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "abc");
	assert_int_equal(mcg_om_escape("abcdef", buf, 1), 6);
	assert_string_equal(buf, "");
}

static const struct esc label_cases[] = {
	{"/", "/"},
	{"/web/app-1", "/web/app-1"},
	/* a quote: only the format's escape */
	{"/a\"b", "/a\\\"b"},
	/* a backslash: memcgctl's \\, then the format doubles both */
	{"/a\\b", "/a\\\\\\\\b"},
	/* a newline: memcgctl's \n (two characters), whose backslash the format doubles */
	{"/a\nb", "/a\\\\nb"},
	/* invalid UTF-8: memcgctl's \xHH, so the value is valid UTF-8 */
	{"/\xff\xfe", "/\\\\xff\\\\xfe"},
	{"/caf\xc3\xa9", "/caf\xc3\xa9"},
	/* a control byte */
	{"/\x01", "/\\\\x01"},
};

/* Does S hold only valid UTF-8 and no raw newline? (what the format requires of a value) */
static int valid_value(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80	      ? 0
			: (*p & 0xe0) == 0xc0 ? 1
			: (*p & 0xf0) == 0xe0 ? 2
			: (*p & 0xf8) == 0xf0 ? 3
					      : -1;
		if (n < 0 || *p == '\n')
			return 0;
		p++;
		while (n--)
			if ((*p++ & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

static void test_label(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(label_cases) / sizeof(label_cases[0]); i++) {
		char *v = mcg_om_label_dup(label_cases[i].in);

		assert_non_null(v);
		assert_string_equal(v, label_cases[i].want);
		assert_true(valid_value(v));
		free(v);
	}
}

/* Different names never give one label value (the escapes are reversible). */
static void test_label_distinct(void **state)
{
	static const char *const names[] = {"/a\\nb", "/a\nb", "/a\\\\nb", "/\xff",
					    "/\\xff", "/a\"b", "/a\\\"b"};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (j = i + 1; j < sizeof(names) / sizeof(names[0]); j++) {
			char *a = mcg_om_label_dup(names[i]), *b = mcg_om_label_dup(names[j]);

			assert_non_null(a);
			assert_non_null(b);
			assert_string_not_equal(a, b);
			free(a);
			free(b);
		}
}

/* The label set: cgroup always, unit only when asked for and the path names one. */
static const struct {
	const char *path;
	bool unit;
	const char *want;
} labels_cases[] = {
	{"/", true, "cgroup=\"/\""},
	{"/system.slice/web.service", false, "cgroup=\"/system.slice/web.service\""},
	{"/system.slice/web.service", true,
	 "cgroup=\"/system.slice/web.service\",unit=\"web.service\""},
	/* a service's delegated subtree belongs to the service */
	{"/system.slice/web.service/worker", true,
	 "cgroup=\"/system.slice/web.service/worker\",unit=\"web.service\""},
	/* a slice alone: the innermost slice */
	{"/user.slice/user-1000.slice", true,
	 "cgroup=\"/user.slice/user-1000.slice\",unit=\"user-1000.slice\""},
	{"/user.slice/user-1000.slice/user@1000.service/app.slice", true,
	 "cgroup=\"/user.slice/user-1000.slice/user@1000.service/app.slice\","
	 "unit=\"user@1000.service\""},
	/* outside systemd's naming: no unit */
	{"/memcgctl-test/a", true, "cgroup=\"/memcgctl-test/a\""},
	{"/docker/0123abcd", true, "cgroup=\"/docker/0123abcd\""},
	/*
	 * systemd's \x2d escape: the cgroup value is memcgctl's escaped name
	 * (backslash doubled, then doubled again by the format); the unit value
	 * is the unit's name as systemctl prints it (one backslash, doubled by
	 * the format only)
	 */
	{"/system.slice/systemd-fsck@dev-disk-by\\x2dlabel-root.service", true,
	 "cgroup=\"/system.slice/systemd-fsck@dev-disk-by\\\\\\\\x2dlabel-root.service\","
	 "unit=\"systemd-fsck@dev-disk-by\\\\x2dlabel-root.service\""},
	/* a hostile name below a unit: escaped in cgroup, the unit is still the service */
	{"/system.slice/web.service/a\"b\nc", true,
	 "cgroup=\"/system.slice/web.service/a\\\"b\\\\nc\",unit=\"web.service\""},
};

static void test_cgroup_labels(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(labels_cases) / sizeof(labels_cases[0]); i++) {
		char *v = mcg_om_cgroup_labels(labels_cases[i].path, labels_cases[i].unit);

		assert_non_null(v);
		assert_string_equal(v, labels_cases[i].want);
		assert_true(valid_value(v));
		free(v);
	}
}

/* Metric names from the counter table: base units, _total for counters. */
static void test_metric_name(void **state)
{
	char b[128];

	(void)state;
	mcg_om_metric_name(MCG_K_USAGE, b, sizeof(b));
	assert_string_equal(b, "memcgctl_usage_bytes");
	mcg_om_metric_name(MCG_K_PGSCAN, b, sizeof(b));
	assert_string_equal(b, "memcgctl_pgscan_total");
	mcg_om_metric_name(MCG_K_PSI_SOME, b, sizeof(b));
	assert_string_equal(b, "memcgctl_psi_some_seconds_total");
	mcg_om_metric_name(MCG_K_OOM_GROUP, b, sizeof(b));
	assert_string_equal(b, "memcgctl_oom_group");
}

/* Only GET or HEAD of / and /metrics are served. */
static void test_route(void **state)
{
	(void)state;
	assert_int_equal(mcg_om_route("GET", "/metrics"), MCG_OM_METRICS);
	assert_int_equal(mcg_om_route("HEAD", "/metrics"), MCG_OM_METRICS);
	assert_int_equal(mcg_om_route("GET", "/"), MCG_OM_INDEX);
	assert_int_equal(mcg_om_route("GET", "/metrics/"), MCG_OM_NOT_FOUND);
	assert_int_equal(mcg_om_route("GET", "/../metrics"), MCG_OM_NOT_FOUND);
	assert_int_equal(mcg_om_route("POST", "/metrics"), MCG_OM_BAD_METHOD);
	assert_int_equal(mcg_om_route("get", "/metrics"), MCG_OM_BAD_METHOD);
	assert_int_equal(mcg_om_route(NULL, "/metrics"), MCG_OM_NOT_FOUND);
}

static void end_of(const struct sockaddr_in *a, struct mcg_om_tcp_end *e)
{
	memset(e, 0, sizeof(*e));
	e->addr[0] = a->sin_addr.s_addr;
	e->port = ntohs(a->sin_port);
}

static size_t slurp(const char *file, char *buf, size_t len)
{
	int fd = open(file, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	assert_true(fd >= 0);
	while (n < len && (r = read(fd, buf + n, len - n)) > 0)
		n += (size_t)r;
	close(fd);
	return n;
}

/* A real loopback connection: its client end in the kernel's /proc/net/tcp is ours. */
static void test_tcp_owner_real(void **state)
{
	struct sockaddr_in srv = {.sin_family = AF_INET}, cli, acc;
	socklen_t l = sizeof(srv);
	struct mcg_om_tcp_end ce, se;
	static char buf[8 << 20];
	uint32_t uid = 12345;
	int ls, cs, as;
	size_t n;

	(void)state;
	srv.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(ls >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&srv, sizeof(srv)), 0);
	assert_int_equal(listen(ls, 1), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&srv, &l), 0);
	cs = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(cs, (struct sockaddr *)&srv, sizeof(srv)), 0);
	as = accept(ls, NULL, NULL);
	assert_true(as >= 0);
	l = sizeof(cli);
	assert_int_equal(getsockname(cs, (struct sockaddr *)&cli, &l), 0);
	l = sizeof(acc);
	assert_int_equal(getsockname(as, (struct sockaddr *)&acc, &l), 0);
	end_of(&cli, &ce);
	end_of(&acc, &se);
	n = slurp("/proc/net/tcp", buf, sizeof(buf));
	assert_true(n < sizeof(buf));
	assert_int_equal(mcg_om_tcp_owner(buf, n, &ce, &se, &uid), 0);
	assert_int_equal(uid, getuid());
	/* the server's end is not the client's: ends swapped find the accepted socket */
	uid = 12345;
	assert_int_equal(mcg_om_tcp_owner(buf, n, &se, &ce, &uid), 0);
	/* another port: none */
	ce.port ^= 1;
	uid = 12345;
	assert_int_equal(mcg_om_tcp_owner(buf, n, &ce, &se, &uid), -ENOENT);
	assert_int_equal(uid, 12345);
	close(as);
	close(cs);
	close(ls);
}

/* Lines the kernel would not print: skipped, or -EINVAL for a matching one without a uid. */
static void test_tcp_owner_bad(void **state)
{
	static const char hdr[] = "  sl  local_address rem_address   st tx_queue rx_queue tr "
				  "tm->when retrnsmt   uid  timeout inode\n";
	struct mcg_om_tcp_end l = {.addr = {0x0100007F}, .port = 0xD2F0},
			      r = {.addr = {0x0100007F}, .port = 0x2610};
	char buf[1024];
	uint32_t uid = 7;

	(void)state;
	snprintf(buf, sizeof(buf),
		 "%s   1: 0100007F:D2F0 0100007F:2610 01 00000000:00000000 00:00000000 00000000 "
		 "99999999999        0 1\n",
		 hdr);
	assert_int_equal(mcg_om_tcp_owner(buf, strlen(buf), &l, &r, &uid), -EINVAL);
	snprintf(
		buf, sizeof(buf),
		"%s   1: 0100007F:D2F 0100007F:2610 01 0:0 0:0 0 5 0 1\n"
		"   2: 0100007F:D2F0 0100007F:2610 01 00000000:00000000 00:00000000 00000000  1000 "
		"0 1\n",
		hdr);
	assert_int_equal(mcg_om_tcp_owner(buf, strlen(buf), &l, &r, &uid), 0);
	assert_int_equal(uid, 1000);
	/* the header is never a line of the table */
	snprintf(buf, sizeof(buf), "   2: 0100007F:D2F0 0100007F:2610 01 0:0 0:0 0  1000 0 1\n");
	assert_int_equal(mcg_om_tcp_owner(buf, strlen(buf), &l, &r, &uid), -ENOENT);
}

/* What clients send: Prometheus 2.x and 3.x, curl, a browser, and the malformed. */
static void test_negotiate(void **state)
{
	static const struct {
		const char *accept, *enc;
		unsigned want;
	} cases[] = {
		/* Prometheus 2.42's scrape: OpenMetrics preferred, gzip */
		{"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		 "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		 "gzip", MCG_OM_WANT_OPENMETRICS | MCG_OM_WANT_GZIP},
		/* Prometheus with scrape_protocols [PrometheusText0.0.4] */
		{"text/plain;version=0.0.4;q=1,*/*;q=0.1", "gzip", MCG_OM_WANT_GZIP},
		{NULL, NULL, 0},
		{"*/*", NULL, 0},
		{"", "", 0},
		{"application/openmetrics-text", NULL, MCG_OM_WANT_OPENMETRICS},
		{"APPLICATION/OpenMetrics-Text ; Version=\"1.0.0\"", NULL, MCG_OM_WANT_OPENMETRICS},
		/* a version memcgctl does not write: not that */
		{"application/openmetrics-text;version=2.0.0", NULL, 0},
		{"application/openmetrics-text;version=1.0.0;q=0", NULL, 0},
		/* preferred less than the text format, or as much: the text format */
		{"application/openmetrics-text;q=0.5,text/plain", NULL, 0},
		{"application/openmetrics-text;q=0.5,*/*;q=0.5", NULL, 0},
		{"text/plain;q=0.4, application/openmetrics-text;q=0.5", NULL, MCG_OM_WANT_OPENMETRICS},
		/* a malformed q counts for nothing */
		{"application/openmetrics-text;q=2", NULL, 0},
		{"application/openmetrics-text;q=0.1234", NULL, 0},
		{"application/openmetrics-text;q=1.5", NULL, 0},
		{"application/openmetrics-text;q=", NULL, 0},
		{"application/openmetrics-text;q=0.001", NULL, MCG_OM_WANT_OPENMETRICS},
		{",,;;=,application/openmetrics-text;;q=1;", NULL, MCG_OM_WANT_OPENMETRICS},
		/* Accept-Encoding */
		{NULL, "gzip, deflate, br", MCG_OM_WANT_GZIP},
		{NULL, "deflate, br", 0},
		{NULL, "GZIP;q=0.5", MCG_OM_WANT_GZIP},
		{NULL, "x-gzip", MCG_OM_WANT_GZIP},
		{NULL, "gzip;q=0", 0},
		{NULL, "gzip;q=0, *", 0},
		{NULL, "*", MCG_OM_WANT_GZIP},
		{NULL, "*;q=0", 0},
		{NULL, "identity", 0},
		{NULL, "gzipx, xgzip", 0},
		{NULL, " gzip ; q=0.000", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = mcg_om_negotiate(cases[i].accept, cases[i].enc);

		if (got != cases[i].want)
			fail_msg("case %zu: Accept '%s' Accept-Encoding '%s': %u, want %u", i,
				 cases[i].accept ? cases[i].accept : "(none)",
				 cases[i].enc ? cases[i].enc : "(none)", got, cases[i].want);
	}
}

static void expect_om(const char *in, const char *want)
{
	char *out = NULL;
	size_t n = 0;

	assert_int_equal(mcg_om_to_openmetrics(in, strlen(in), &out, &n), 0);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	free(out);
}

static void test_to_openmetrics(void **state)
{
	(void)state;
	/* a counter: the family without _total, the samples with it; units; the end */
	expect_om("# HELP memcgctl_pgscan_total memory cgroup pgscan (v1 memory.stat pgscan)\n"
		  "# TYPE memcgctl_pgscan_total counter\n"
		  "memcgctl_pgscan_total{cgroup=\"a\"} 5\n"
		  "# HELP memcgctl_usage_bytes memory cgroup usage\n"
		  "# TYPE memcgctl_usage_bytes gauge\n"
		  "memcgctl_usage_bytes{cgroup=\"a\\\"b\"} 4096\n"
		  "# HELP memcgctl_psi_some_seconds_total a \"quoted\" word, a \\\\ and a \\n\n"
		  "# TYPE memcgctl_psi_some_seconds_total counter\n"
		  "memcgctl_psi_some_seconds_total{cgroup=\"a\"} 1.000000\n",
		  "# HELP memcgctl_pgscan memory cgroup pgscan (v1 memory.stat pgscan)\n"
		  "# TYPE memcgctl_pgscan counter\n"
		  "memcgctl_pgscan_total{cgroup=\"a\"} 5\n"
		  "# HELP memcgctl_usage_bytes memory cgroup usage\n"
		  "# TYPE memcgctl_usage_bytes gauge\n"
		  "# UNIT memcgctl_usage_bytes bytes\n"
		  "memcgctl_usage_bytes{cgroup=\"a\\\"b\"} 4096\n"
		  "# HELP memcgctl_psi_some_seconds a \\\"quoted\\\" word, a \\\\ and a \\n\n"
		  "# TYPE memcgctl_psi_some_seconds counter\n"
		  "# UNIT memcgctl_psi_some_seconds seconds\n"
		  "memcgctl_psi_some_seconds_total{cgroup=\"a\"} 1.000000\n"
		  "# EOF\n");
	/* a counter not named _total is unknown; comments and blank lines go; a lone HELP stays */
	expect_om("# a comment\n\n# TYPE odd counter\nodd 1\n# HELP lone text\nx 1",
		  "# TYPE odd unknown\nodd 1\n# HELP lone text\nx 1\n# EOF\n");
	expect_om("", "# EOF\n");
	/* a HELP, then the TYPE of another family */
	expect_om("# HELP a one\n# TYPE b gauge\nb 1\n",
		  "# HELP a one\n# TYPE a unknown\n# TYPE b gauge\nb 1\n# EOF\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),	      cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_label),	      cmocka_unit_test(test_label_distinct),
		cmocka_unit_test(test_cgroup_labels), cmocka_unit_test(test_metric_name),
		cmocka_unit_test(test_route),	      cmocka_unit_test(test_tcp_owner_real),
		cmocka_unit_test(test_tcp_owner_bad), cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_to_openmetrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
