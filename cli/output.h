/* output.h: one print path for text and JSON (after iproute2's json_print). */
#ifndef MEMCGCTL_OUTPUT_H
#define MEMCGCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <argp.h>

/* ---- JSON writer: keys may be NULL inside arrays ---- */
void jw_open_object(FILE *f, const char *key);
void jw_close_object(FILE *f);
void jw_open_array(FILE *f, const char *key);
void jw_close_array(FILE *f);
void jw_string(FILE *f, const char *key, const char *val);
void jw_u64(FILE *f, const char *key, uint64_t v);
void jw_i64(FILE *f, const char *key, int64_t v);
void jw_double(FILE *f, const char *key, double v);
void jw_bool(FILE *f, const char *key, bool v);
void jw_null(FILE *f, const char *key);
/*
 * A byte amount as memcgctl-json(7) says: left out when !valid (absent stays
 * absent), null for MCG_MAX (unlimited), else a number.
 */
void jw_bytes(FILE *f, const char *key, uint64_t v, bool valid);
/* "timestamp_ns": CLOCK_REALTIME now, in ns since the epoch. */
void jw_timestamp(FILE *f);
/* The members of top --json's "global" object (dump --json prints the same). */
struct mcg_sample_global;
void jw_sample_global(FILE *f, const struct mcg_sample_global *g);
uint64_t out_realtime_ns(void);
/* End of a top-level document: newline and state reset. */
void jw_end(FILE *f);


/*
 * ---- column tables (libsmartcols) -------------------------------------------
 * One column table per command (name, header, help, type, flags), as
 * util-linux's irq-common.c: text and --raw are printed by libsmartcols, fit
 * to the terminal (or $COLUMNS); --json rows come from the same cells through
 * the jw_* writer, so that absent values are left out and unlimited is null
 * (libsmartcols can do neither). -o/--output, --noheadings and --list-columns
 * come from out_table_children.
 */
enum out_type {
	OUT_STR,   /* JSON string */
	OUT_BYTES, /* JSON number; MCG_MAX: null; text: cli_size() */
	OUT_U64,   /* JSON number */
	OUT_NUM,   /* JSON number (double, shortest exact form); text %.2f */
	OUT_PCT,   /* JSON number; text %.1f%% */
	OUT_BOOL,  /* JSON true/false */
};
enum {
	OUT_RIGHT = 1 << 0, /* right-aligned (numbers) */
	OUT_TREE = 1 << 1,  /* tree art (the cgroup name column of a tree) */
	OUT_TRUNC = 1 << 2, /* may be cut to fit the terminal */
	OUT_EXTRA = 1 << 3, /* not in the default set: -o +COL adds it */
	OUT_V1 = 1 << 4,    /* only on cgroup v1 (default set) */
	OUT_V2 = 1 << 5,    /* only on cgroup v2 (default set) */
};
struct out_col {
	const char *name;   /* -o name (case-insensitive), also the header */
	const char *json;   /* JSON key (memcgctl-json(7)) */
	const char *help;   /* --list-columns and the man page's COLUMNS */
	enum out_type type;
	unsigned flags;
	double whint; /* libsmartcols width hint: <1 a fraction of the terminal, else columns */
};

/* What -o/--output, --noheadings and --list-columns asked for. */
struct out_opts {
	const char *output;
	bool noheadings, list_columns;
};
extern struct out_opts out_opts;
/* argp children: the global options and the table options, for table commands. */
extern const struct argp_child out_table_children[];

struct out_table;
struct out_row;
/*
 * A table over COLS for cgroup VERSION (the default set leaves out the other
 * version's columns); applies out_opts.output: an unknown column prints an
 * error naming the valid ones and returns NULL with *ret_status 64.
 */
struct out_table *out_table_new(const struct out_col *cols, size_t ncols, int version,
				int *ret_status);
void out_table_free(struct out_table *t);
/* Print "NAME  HELP" per column (--list-columns). */
void out_list_columns(const struct out_col *cols, size_t ncols, FILE *f);
/* Is column C selected (worth computing)? */
bool out_table_has(const struct out_table *t, size_t c);
/* A new row, a child of PARENT (NULL: top level) for tree tables. */
struct out_row *out_row_new(struct out_table *t, struct out_row *parent);
/* Cell values; a cell never set is absent: "-" in text, left out of JSON. */
void out_cell_str(struct out_row *r, size_t c, const char *s);
void out_cell_u64(struct out_row *r, size_t c, uint64_t v);
void out_cell_num(struct out_row *r, size_t c, double v);
void out_cell_bool(struct out_row *r, size_t c, bool v);
/* The text shown instead of the value's own (escaped; e.g. a tree's last path component). */
void out_cell_text(struct out_row *r, size_t c, const char *text);
/* Text (libsmartcols) on F. */
void out_table_print(struct out_table *t, FILE *f);
/* The rows as a JSON array under KEY (tree rows nest under "children"). */
void out_table_json(struct out_table *t, FILE *f, const char *key);
/* One row's cells as members of the JSON object open now. */
void out_row_json(const struct out_table *t, const struct out_row *r, FILE *f);
size_t out_table_nrows(const struct out_table *t);
/* Row I, in the order added (NULL past the end). */
const struct out_row *out_table_row(const struct out_table *t, size_t i);

#endif
