/* bars.h: one-line bars with marks for the terminal (dirty, async-reclaim status). */
#ifndef MEMCGCTL_BARS_H
#define MEMCGCTL_BARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A mark on a bar: the cell where AT falls is drawn as CH (a letter the legend explains). */
struct bar_mark {
	uint64_t at;
	char ch;
};

/* The most cells a bar may have (a row of a 300-column terminal). */
#define BAR_MAX_CELLS 256

/*
 * Is the user's character set UTF-8 (LC_ALL / LC_CTYPE / LANG)? The C locale is not: bars
 * are drawn in ASCII there.
 */
bool bars_utf8(void);

/*
 * "[" CELLS "]" into BUF (NUL-terminated, truncated to LEN): CELLS cells for 0..SCALE, the
 * first VALUE/SCALE of them filled (UTF-8: full and partial blocks; ASCII: '#', empty '.'),
 * then each mark's letter in its cell (later marks over earlier ones). A mark or a value
 * beyond SCALE is drawn in the last cell. Returns BUF.
 */
char *bar_render(char *buf, size_t len, unsigned cells, uint64_t value, uint64_t scale,
		 const struct bar_mark *marks, size_t n_marks, bool utf8);

/*
 * async-reclaim status's bar (for cli/cmd-async-reclaim.c): USAGE against LIMIT with the
 * watermarks, "l" LOW and "h" HIGH, over CELLS cells (the limit is the bar's end). A
 * watermark of 0, UINT64_MAX (unknown, unlimited) or at or above LIMIT is not marked.
 */
char *bar_watermarks(char *buf, size_t len, unsigned cells, uint64_t usage, uint64_t low,
		     uint64_t high, uint64_t limit, bool utf8);

#endif
