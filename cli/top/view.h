/* view.h: the curses screen of 'top' (view.c is the only file that calls ncurses). */
#ifndef MEMCGCTL_TOP_VIEW_H
#define MEMCGCTL_TOP_VIEW_H

#include "top/model.h"

enum {
	VK_UP = 0x1000,
	VK_DOWN,
	VK_PGUP,
	VK_PGDN,
	VK_HOME,
	VK_END,
	VK_ENTER,
	VK_ESC,
	VK_BACKSPACE,
	VK_RESIZE,
};

struct view_frame {
	const struct mcg_snapshot *snap;
	const struct top_model *model;
	const int *rows;
	size_t nrows;
	const unsigned char *mark; /* per row of snap (NULL: none): '*' before the name (replay: an event) */
	size_t sel;            /* position of the selected row in rows */
	const char *header[7]; /* NULL-terminated lines above the table */
	const char *status;    /* bottom line: keys, messages */
	const char *prompt;    /* input line (with the text typed so far), or NULL */
	const char *overlay_title; /* help or detail: shown instead of the table */
	const char *const *overlay;
	size_t noverlay;
	size_t overlay_top; /* first overlay line shown */
	const struct top_trend *trend; /* usage trends after USAGE (NULL: none; wide terminals) */
	/*
	 * per row of snap: who owns it ("docker:web", "pod:shop/api"; NULL: nobody), shown
	 * (escaped) in a CONTAINER column after the name; NULL: no such column
	 */
	const char *const *owner;
	/*
	 * per row of snap: memcgctl size's kept answer, needed bytes (UINT64_MAX: none), shown
	 * in a NEED column after the name (and CONTAINER); NULL: no such column
	 */
	const uint64_t *need;
	/* the detail pane's graph above its lines: row GRAPH_ID's (NULL: none) */
	const struct top_trend *graph;
	uint64_t graph_id;
};

/* Start curses on the terminal with newterm(); -ENOTTY when it cannot. */
int view_open(void);
void view_close(void);
/* Take the new terminal size (after SIGWINCH). */
void view_resize(void);
/* One key without waiting, or -1. Arrows and the like as VK_*. */
int view_getkey(void);
/* Leave curses for a child command and come back. */
void view_suspend(void);
void view_resume(void);
/* Draw F; *RET_FIRST and *RET_N: the rows of the table on screen (positions in f->rows). */
void view_draw(const struct view_frame *f, size_t *ret_first, size_t *ret_n);
int view_lines(void);
int view_cols(void);

#endif
