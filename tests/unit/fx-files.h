/* fx-files.h: writing the files of a fake cgroup tree, for the unit tests that make one. */
#ifndef MCG_TEST_FX_FILES_H
#define MCG_TEST_FX_FILES_H

#include <stdio.h>

/* DIR/NAME := VAL, or the test fails (include <cmocka.h> first). */
static inline void put(const char *dir, const char *name, const char *val)
{
	char p[512];
	FILE *f;

	assert_true((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) < sizeof(p));
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

#endif
