/* test_openmetrics.c: label value escaping of the text exposition format (export). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include <memcg/openmetrics.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_label_distinct),
		cmocka_unit_test(test_cgroup_labels),
		cmocka_unit_test(test_metric_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
