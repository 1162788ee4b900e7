/* output.h: one print path for text and JSON (after iproute2's json_print). */
#ifndef MEMCGCTL_OUTPUT_H
#define MEMCGCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
/* A byte value: null when !valid, the string "max" for MCG_MAX, else a number. */
void jw_size(FILE *f, const char *key, uint64_t v, bool valid);
/* End of a top-level document: newline and state reset. */
void jw_end(FILE *f);

/*
 * S escaped with mcg_escape() for text output (a cgroup name or path: whoever
 * can mkdir chose its bytes). Valid until 8 more calls; "-" for NULL.
 */
const char *out_esc(const char *s);

/* ---- aligned text tables: every cell is escaped with mcg_escape() ---- */
enum col_align { COL_LEFT, COL_RIGHT };
struct table;
struct table *table_new(unsigned ncols, const char *const *headers, const enum col_align *align);
/* Append a row of NCOLS strings (copied). */
int table_add(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
