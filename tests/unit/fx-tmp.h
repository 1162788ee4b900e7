/* fx-tmp.h: removing a unit test's own temporary tree. */
#ifndef MCG_TEST_FX_TMP_H
#define MCG_TEST_FX_TMP_H

#include <stdio.h>
#include <stdlib.h>

/* rm -rf DIR (a tree the test made): 0, or -1 when that failed. */
static inline int fx_rmtree(const char *dir)
{
	char cmd[8400];

	if ((size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

#endif
