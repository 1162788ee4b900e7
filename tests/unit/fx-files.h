/* fx-files.h: writing the files of a fake cgroup tree, for the unit tests that make one. */
#ifndef MCG_TEST_FX_FILES_H
#define MCG_TEST_FX_FILES_H

#include <stdarg.h>
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

/* DIR/NAME := the printf of FMT, or the test fails. */
static inline void putf(const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void putf(const char *dir, const char *name, const char *fmt, ...)
{
	char p[512];
	FILE *f;
	va_list ap;

	assert_true((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) < sizeof(p));
	f = fopen(p, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

#endif
