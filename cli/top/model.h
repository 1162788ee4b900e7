/* model.h: the pure part of 'top': columns, cell values, sort, filter, tree, selection. */
#ifndef MEMCGCTL_TOP_MODEL_H
#define MEMCGCTL_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memcg.h"

enum top_col {
	TOP_NAME,
	TOP_USAGE,
	TOP_LIMIT,
	TOP_HIGH,
	TOP_PCT,
	TOP_ANON,
	TOP_FILE,
	TOP_DIRTY,
	TOP_WB,
	TOP_RECL,  /* bytes/s: pgsteal (v2), pgpgout (v1) */
	TOP_DRECL, /* bytes/s: pgsteal_direct (v2) */
	TOP_SCAN,  /* bytes/s: pgscan (v2) */
	TOP_EFF,   /* % steal/scan over the interval (v2) */
	TOP_FALL,  /* bytes/s the usage fell (v1) */
	TOP_RFLT,  /* refaults/s */
	TOP_EVHIGH, /* v2 events since start */
	TOP_EVMAX,
	TOP_EVOOM,
	TOP_EVKILL,
	TOP_FAIL, /* v1 failcnt/s */
	TOP_SOME, /* PSI some avg10 */
	TOP_FULL,
	TOP_STALL, /* taskstats: ms of direct-reclaim stall per second */
	TOP_ASYNC,
	TOP_COL__COUNT
};

enum { TOP_V1 = 1 << 0, TOP_V2 = 1 << 1 };

/* The id of the name column (the cgroup), which is no value of the names table. */
#define TOP_NAME_ID MCG_F__END

struct top_col_desc {
	unsigned name;   /* the value's id (memcg/fields.h mcg_value_names): header and JSON key */
	const char *key; /* another name --sort and -o take (top's own before the names table) */
	int width;
	bool left;
	unsigned versions; /* TOP_V1 | TOP_V2: where the kernel has it */
	const char *help;
	/*
	 * An amount: the cell is counter COUNTER of the record, in bytes (a size in
	 * text, "max" for no limit, the exact number in JSON). Else the column
	 * has its case in top_cell_value().
	 */
	bool amount;
	enum mcg_key counter;
};
extern const struct top_col_desc top_cols[TOP_COL__COUNT];

/* Is the column shown on this cgroup version? */
bool top_col_on(enum top_col c, int version);
/* The column's header (text and curses) and JSON key, from the names table. */
const char *top_col_header(enum top_col c);
const char *top_col_json(enum top_col c);
/* Column by key, header or JSON key (case-insensitive), -1 if none. */
int top_col_find(const char *name);
/* The numeric value of a cell (for sorting, bars and JSON); false when absent. */
bool top_cell_value(const struct mcg_snapshot *s, const struct mcg_sample_row *r, enum top_col c,
		    double *ret);
/* The cell as text: sizes as "1.5G", rates as "12M", absent as "-". RAW: bytes as numbers. */
void top_cell_format(const struct mcg_snapshot *s, const struct mcg_sample_row *r, enum top_col c,
		     bool raw, char *buf, size_t len);
/* Compact size for a cell: 0, 512K, 1.5M, 12G. */
void top_fmt_size(double bytes, char *buf, size_t len);

#define TOP_MAX_COLLAPSED 256

struct top_model {
	enum top_col sort;
	bool reverse; /* default order: largest first (names: a to z) */
	bool flat;    /* flat list instead of the tree */
	char filter[128]; /* substring of the path, case-insensitive; empty: all */
	uint64_t collapsed[TOP_MAX_COLLAPSED]; /* row ids whose children are hidden */
	size_t ncollapsed;
	uint64_t selected; /* row id, 0: the first row */
};

void top_model_init(struct top_model *m);
/*
 * The rows to show, in order, as indexes into S->rows; returns the count.
 * Tree: siblings sorted by the sort column under their parent, a filter keeps
 * matching rows and their ancestors; flat: matching rows sorted.
 */
size_t top_model_rows(const struct top_model *m, const struct mcg_snapshot *s, int *out);
bool top_model_is_collapsed(const struct top_model *m, uint64_t id);
void top_model_toggle_collapse(struct top_model *m, uint64_t id);
/* Position of the selected row in OUT (0 if it vanished). */
size_t top_model_selected_pos(const struct top_model *m, const struct mcg_snapshot *s,
			      const int *rows, size_t n);
/* Move the selection by DELTA rows within OUT. */
void top_model_move(struct top_model *m, const struct mcg_snapshot *s, const int *rows, size_t n,
		    long delta);
/* Next / previous column shown on VERSION for sorting. */
void top_model_sort_next(struct top_model *m, int version, int dir);

/*
 * The usage trend of each row over the last TOP_TREND_N samples of the live view (a
 * sparkline after USAGE), kept by row id: a cgroup removed is dropped, one made again
 * starts over.
 */
#define TOP_TREND_N 8
struct top_trend;
/* Add the usage of every row of S (a new *T on the first call); -ENOMEM keeps the old. */
int top_trend_push(struct top_trend **t, const struct mcg_snapshot *s);
void top_trend_free(struct top_trend *t);
/*
 * Row ID's trend into BUF: TOP_TREND_N cells, oldest first, blank for samples not yet
 * taken; eight levels from the window's least to its most (UTF-8: the blocks U+2581 to
 * U+2588; ASCII: "_.,-=+*#"), a window that moves less than 1/64 of its most drawn level
 * in the middle.
 */
void top_trend_format(const struct top_trend *t, uint64_t id, bool utf8, char *buf, size_t len);

/*
 * The detail pane's graph of a row over the whole session, kept with the trend:
 * TOP_GRAPH_N points of usage (the most of the samples a point covers), limit
 * and high (the last); when the points run out, pairs merge and each point
 * covers twice as many samples.
 */
#define TOP_GRAPH_N 128
struct top_graph_info {
	unsigned points;  /* points kept (0: none) */
	unsigned per;     /* samples per point */
	uint64_t samples; /* samples taken */
	double seconds;   /* from the first sample to the last */
	double scale;     /* the graph's top, bytes */
};
/*
 * Row ID's graph into HEIGHT lines at BUF, BUF + STRIDE, ... (each NUL-terminated):
 * a 6-cell axis label and '|' ("512M" on the top line, "0" on the bottom), then
 * the last WIDTH points at most, oldest first, each a column filled from the
 * bottom to its usage (UTF-8: the blocks U+2581 to U+2588 in eighths of a cell;
 * ASCII: '#' for a cell at least half full), 'L' in the cell of the limit and
 * 'H' in that of high where they are set (the limit wins). The top is the most
 * of usage, limit and high over the points drawn. Returns what was drawn.
 */
struct top_graph_info top_graph_format(const struct top_trend *t, uint64_t id, unsigned width,
				       unsigned height, bool utf8, char *buf, size_t stride);
/*
 * Row ID's RECL/s over the same points as its graph, a sparkline into BUF: the
 * most rate (6 cells) and '|', then a cell per point in eight levels from 0 to
 * that most (UTF-8: U+2581 to U+2588; ASCII "_.,-=+*#"), blank where there was
 * no rate (the first sample). False (BUF empty) when no point has one.
 */
bool top_graph_rate_format(const struct top_trend *t, uint64_t id, unsigned width, bool utf8,
			   char *buf, size_t len);

#endif
