/* test_unit.c: systemd units as cgroup arguments: unit names, the owning unit of a path, which
 * arguments are taken as units, and that a --root tree never asks systemd. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "memcg.h"
#include "fx-tmp.h"

static bool valid(const char *s)
{
	return mcg_unit_name_valid(s, strlen(s));
}

static void test_name_valid(void **state)
{
	(void)state;
	assert_true(valid("web.service"));
	assert_true(valid("user.slice"));
	assert_true(valid("session-3.scope"));
	assert_true(valid("user@1000.service"));
	assert_true(valid("system-mcgtest\\x2dtpl.slice"));
	assert_true(valid("dev-sda2.swap"));
	assert_false(valid("web"));
	assert_false(valid(".service"));
	assert_false(valid("web.target")); /* no cgroup of its own */
	assert_false(valid("a b.service"));
	assert_false(valid("a/b.service"));
	assert_false(valid(""));
}

static void from(const char *path, const char *want)
{
	char buf[256];
	int r = mcg_unit_from_path(path, buf, sizeof(buf));

	if (!want) {
		assert_int_equal(r, 0);
		return;
	}
	assert_int_equal(r, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_from_path(void **state)
{
	char tiny[4];

	(void)state;
	from("/system.slice/web.service", "web.service");
	from("/system.slice/web.service/sub/x", "web.service"); /* a delegated subtree */
	from("/user.slice/user-1000.slice", "user-1000.slice");
	from("/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope", "user@1000.service");
	from("/", NULL);
	from("/web", NULL);
	from("/web/a.service", NULL); /* below a name systemd did not make */
	assert_int_equal(mcg_unit_from_path("/system.slice", tiny, sizeof(tiny)), -ENAMETOOLONG);
}

static char tmpl[] = "/tmp/mcg-unit-test-XXXXXX";

/* A v2 root with one cgroup named like a unit: /web.service. */
static void make_tree(void)
{
	char cmd[512];

	assert_non_null(mkdtemp(tmpl));
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && echo memory >cgroup.controllers && echo 'anon 0' >memory.stat && "
		 "mkdir web.service && cp cgroup.controllers web.service/ && "
		 "echo max >web.service/memory.max",
		 tmpl);
	assert_int_equal(system(cmd), 0);
}

/* A --root tree: which arguments are units, and none is resolved through systemd. */
static void test_spec_root(void **state)
{
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	char why[256], *cg = NULL;

	(void)state;
	make_tree();
	assert_int_equal(mcg_ctx_new_root(tmpl, 2, NULL, NULL, &ctx), 0);
	mcg_ctx_set_resolver(ctx, mcg_unit_resolver, NULL);

	/* a cgroup of that name under the root is what the user means */
	assert_false(mcg_unit_spec(ctx, "web.service"));
	assert_int_equal(mcg_group_open(ctx, "web.service", &g), 0);
	assert_string_equal(mcg_group_path(g), "/web.service");
	mcg_group_close(g);
	/* a path, pid:N, a name that is no unit: never units */
	assert_false(mcg_unit_spec(ctx, "/db.service"));
	assert_false(mcg_unit_spec(ctx, "system.slice/db.service"));
	assert_false(mcg_unit_spec(ctx, "pid:1"));
	assert_false(mcg_unit_spec(ctx, "db"));
	assert_true(mcg_unit_spec(ctx, "db.service"));
	/* a --root tree is not the host's: no D-Bus, a reason, and "no such cgroup" */
	assert_int_equal(mcg_unit_resolve(ctx, "db.service", &cg, why, sizeof(why)), -EHOSTDOWN);
	assert_null(cg);
	assert_non_null(strstr(why, "not with --root"));
	assert_int_equal(mcg_group_open(ctx, "db.service", &g), -ENOENT);
	/* and no owner, whatever the names look like */
	assert_int_equal(mcg_unit_of(ctx, "/system.slice/db.service", why, sizeof(why)), 0);
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(tmpl), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_from_path),
		cmocka_unit_test(test_spec_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
