/* bars.c: one-line bars with marks for the terminal (dirty, async-reclaim status). */
#include "bars.h"

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

bool bars_utf8(void)
{
	char *old = setlocale(LC_CTYPE, NULL), *saved = old ? strdup(old) : NULL;
	bool utf8;

	/* the user's character set for this answer only, as out_table_print() does */
	setlocale(LC_CTYPE, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	setlocale(LC_CTYPE, saved ? saved : "C");
	free(saved);
	return utf8;
}

/* the cell of AT on a bar of CELLS cells for 0..SCALE */
static unsigned cell_of(uint64_t at, uint64_t scale, unsigned cells)
{
	unsigned __int128 c;

	if (!scale || at >= scale)
		return cells - 1;
	c = (unsigned __int128)at * cells / scale;
	return c >= cells ? cells - 1 : (unsigned)c;
}

/* the eighths of a block, U+258F (1/8) to U+2589 (7/8) */
static const char *const partial[8] = {
	"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589",
};
#define FULL  "\u2588"
#define EMPTY "\u00b7" /* a middle dot */

char *bar_render(char *buf, size_t len, unsigned cells, uint64_t value, uint64_t scale,
		 const struct bar_mark *marks, size_t n_marks, bool utf8)
{
	char mark[BAR_MAX_CELLS];
	unsigned i, eighths;
	size_t o = 0;
	bool full = false; /* a piece did not fit: nothing after it either */
	unsigned __int128 f;

	if (!len)
		return buf;
	if (cells < 1)
		cells = 1;
	if (cells > BAR_MAX_CELLS)
		cells = BAR_MAX_CELLS;
	memset(mark, 0, sizeof(mark));
	for (i = 0; i < n_marks; i++)
		mark[cell_of(marks[i].at, scale, cells)] = marks[i].ch;
	/* the filled part in eighths of a cell */
	if (!scale || value >= scale)
		f = (unsigned __int128)cells * 8;
	else
		f = (unsigned __int128)value * cells * 8 / scale;
	eighths = (unsigned)f;
#define PUT(s)                                                                                     \
	do {                                                                                       \
		size_t l_ = strlen(s);                                                             \
		if (!full && o + l_ < len) {                                                       \
			memcpy(buf + o, s, l_);                                                    \
			o += l_;                                                                   \
		} else {                                                                           \
			full = true;                                                               \
		}                                                                                  \
	} while (0)
	PUT("[");
	for (i = 0; i < cells; i++) {
		unsigned in = eighths > i * 8 ? eighths - i * 8 : 0;
		char one[2] = {mark[i], '\0'};

		if (mark[i])
			PUT(one);
		else if (in >= 8)
			PUT(utf8 ? FULL : "#");
		else if (in && utf8)
			PUT(partial[in]);
		else if (in >= 4)
			PUT("#"); /* ASCII: a cell at least half full counts */
		else
			PUT(utf8 ? EMPTY : ".");
	}
	PUT("]");
#undef PUT
	buf[o] = '\0';
	return buf;
}

char *bar_watermarks(char *buf, size_t len, unsigned cells, uint64_t usage, uint64_t low,
		     uint64_t high, uint64_t limit, bool utf8)
{
	struct bar_mark m[2];
	size_t n = 0;

	if (low && low != UINT64_MAX && low < limit)
		m[n++] = (struct bar_mark){low, 'l'};
	if (high && high != UINT64_MAX && high < limit)
		m[n++] = (struct bar_mark){high, 'h'};
	return bar_render(buf, len, cells, usage, limit, m, n, utf8);
}
