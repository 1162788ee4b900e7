/* view.c: the curses screen of 'top': header, the table with a bar for % of limit, overlays. */
#include "top/view.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

static SCREEN *screen;
static bool colours;
static bool utf8; /* the terminal's character set (LC_CTYPE) is UTF-8: block characters */

/* The usage trend after USAGE: " " + TOP_TREND_N cells, from this many columns on. */
#define TREND_CELLS    (TOP_TREND_N + 1)
#define TREND_MIN_COLS 100

enum { C_HDR = 1, C_SEL, C_WARN, C_BAR_OK, C_BAR_HIGH, C_TITLE };

/* The %LIM bar after the number: " [" + BAR_FILL cells + "]". */
#define BAR_FILL 10
#define BAR_CELLS (BAR_FILL + 3)

int view_open(void)
{
	const char *term = getenv("TERM");

	/*
	 * ncursesw draws a multibyte character only in a locale of its character set:
	 * the user's (LC_ALL, LC_CTYPE, LANG), taken before newterm. The C locale
	 * stays ASCII (the trend's fallback).
	 */
	setlocale(LC_CTYPE, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* newterm, unlike initscr, returns NULL on an unknown TERM instead of exiting */
	screen = newterm(term && *term ? term : "dumb", stdout, stdin);
	if (!screen)
		return -ENOTTY;
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colours = has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR")); /* no-color.org */
	if (colours) {
		start_color();
		use_default_colors();
		init_pair(C_HDR, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_SEL, COLOR_BLACK, COLOR_YELLOW);
		init_pair(C_WARN, COLOR_RED, -1);
		init_pair(C_BAR_OK, COLOR_GREEN, -1);
		init_pair(C_BAR_HIGH, COLOR_RED, -1);
		init_pair(C_TITLE, COLOR_CYAN, -1);
	}
	return 0;
}

void view_close(void)
{
	if (!screen)
		return;
	endwin();
	delscreen(screen);
	screen = NULL;
}

void view_resize(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resize_term(ws.ws_row, ws.ws_col);
	clear();
}

int view_getkey(void)
{
	int c = getch();

	switch (c) {
	case ERR:
		return -1;
	case KEY_UP:
		return VK_UP;
	case KEY_DOWN:
		return VK_DOWN;
	case KEY_PPAGE:
		return VK_PGUP;
	case KEY_NPAGE:
		return VK_PGDN;
	case KEY_HOME:
		return VK_HOME;
	case KEY_END:
		return VK_END;
	case KEY_ENTER:
	case '\r':
	case '\n':
		return VK_ENTER;
	case 27:
		return VK_ESC;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return VK_BACKSPACE;
	case KEY_RESIZE:
		return VK_RESIZE;
	default:
		return c;
	}
}

void view_suspend(void)
{
	def_prog_mode();
	endwin();
}

void view_resume(void)
{
	reset_prog_mode();
	clear();
	refresh();
}

int view_lines(void)
{
	return LINES;
}

int view_cols(void)
{
	return COLS;
}

/* The bytes of S that fill at most CELLS cells (a multibyte character is one cell). */
static int fit_bytes(const char *s, int cells)
{
	mbstate_t st;
	size_t o = 0, len = strlen(s);

	memset(&st, 0, sizeof(st));
	while (o < len && cells > 0) {
		size_t l = mbrlen(s + o, len - o, &st);

		if (l == (size_t)-1 || l == (size_t)-2 || l == 0) {
			memset(&st, 0, sizeof(st));
			l = 1;
		}
		o += l;
		cells--;
	}
	return (int)o;
}

/*
 * Everything this view writes goes through mcg_escape(): the lines carry cgroup
 * names (prompts, the detail overlay, the action echo), and a name is whatever
 * bytes someone gave mkdir, OSC 52 or a clear-screen included.
 */
static void put_line(int y, const char *s, attr_t attr)
{
	char *e;

	if (y >= LINES)
		return;
	e = mcg_escape_dup(s);
	move(y, 0);
	clrtoeol();
	attron(attr);
	/* cut by cells, not bytes: the graph's blocks are three bytes each */
	addnstr(e ? e : "?", e ? fit_bytes(e, COLS) : 1);
	attroff(attr);
	free(e);
}

static bool trend_on(const struct view_frame *f)
{
	return f->trend && COLS >= TREND_MIN_COLS;
}

/* The CONTAINER column: as wide as the widest owner of a row (escaped), 9 to 24 cells. */
#define OWNER_MIN 9
#define OWNER_MAX 24

static int owner_width(const struct view_frame *f)
{
	int w = OWNER_MIN;
	size_t i;

	if (!f->owner)
		return 0;
	for (i = 0; i < f->nrows && w < OWNER_MAX; i++) {
		const char *o = f->owner[f->rows[i]];
		char esc[OWNER_MAX * 4 + 1];

		if (o) {
			size_t l = mcg_escape(o, esc, sizeof(esc));

			w = l > (size_t)w ? (l > OWNER_MAX ? OWNER_MAX : (int)l) : w;
		}
	}
	return w > OWNER_MAX ? OWNER_MAX : w;
}

/* The NEED column (view_frame.need): a size, as wide as USAGE. */
#define NEED_W 6

/* The columns that fit, in order; the name column takes what is left. */
static int fit_columns(const struct view_frame *f, int *cols, int *namew, int ownw)
{
	int n = 0, used = (ownw ? ownw + 1 : 0) + (f->need ? NEED_W + 1 : 0), c;

	for (c = TOP_USAGE; c < TOP_COL__COUNT; c++) {
		int w;

		if (!top_col_on(c, f->snap->version))
			continue;
		w = top_cols[c].width + 1 + (c == TOP_PCT ? BAR_CELLS : 0) +
		    (c == TOP_USAGE && trend_on(f) ? TREND_CELLS : 0);
		/*
		 * 22 for the name, and the last column kept free: a row that filled it
		 * would leave the cursor on its last cell, and the selected row's padding
		 * overwrote that cell.
		 */
		if (used + w + 22 + 1 > COLS)
			break;
		cols[n++] = c;
		used += w;
	}
	*namew = COLS - used - 1;
	if (*namew > 40)
		*namew = 40;
	if (*namew < 22)
		*namew = 22;
	return n;
}

/*
 * LEN bytes of S at the cursor, in the current attributes. ncursesw's
 * waddnstr() decodes every byte as a multibyte character (about a hundred
 * instructions each); a printable ASCII piece (numbers, sizes, most names)
 * goes in as cells instead, and the cursor is moved past it.
 */
static void put_piece(const char *s, size_t len)
{
	chtype cells[1024];
	attr_t a = getattrs(stdscr);
	int y, x;
	size_t i;

	if (len > sizeof(cells) / sizeof(cells[0]))
		len = sizeof(cells) / sizeof(cells[0]);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f) {
			addnstr(s, (int)len);
			return;
		}
		cells[i] = c | a;
	}
	getyx(stdscr, y, x);
	if (x + (int)len > COLS)
		len = (size_t)(COLS - x);
	waddchnstr(stdscr, cells, (int)len);
	move(y, x + (int)len < COLS ? x + (int)len : COLS - 1);
}

static void draw_bar(double pct)
{
	int fill = pct <= 0 ? 0 : pct >= 100 ? BAR_FILL : (int)(pct / (100.0 / BAR_FILL) + 0.5), i;
	int pair = pct >= 90 ? C_BAR_HIGH : C_BAR_OK;

	addch(' ');
	addch('[');
	if (colours)
		attron(COLOR_PAIR(pair));
	for (i = 0; i < BAR_FILL; i++)
		addch(i < fill ? '|' : ' ');
	if (colours)
		attroff(COLOR_PAIR(pair));
	addch(']');
}

/* The table; *FIRST and *N: the rows shown (positions in f->rows). */
static void draw_table(const struct view_frame *f, int y0, size_t *ret_first, size_t *ret_n)
{
	const struct mcg_snapshot *s = f->snap;
	int cols[TOP_COL__COUNT], ncols, namew, ownw, k, avail = LINES - y0 - 2, y;
	size_t first = 0, i, len;
	char cell[64], line[1024];

	ownw = owner_width(f);
	ncols = fit_columns(f, cols, &namew, ownw);
	/* the column header, the sort column marked */
	move(y0, 0);
	clrtoeol();
	if (colours)
		attron(COLOR_PAIR(C_HDR));
	else
		attron(A_REVERSE);
	snprintf(line, sizeof(line), "%-*.*s", namew, namew, top_col_header(TOP_NAME));
	if (f->model->sort == TOP_NAME)
		line[strlen(top_col_header(TOP_NAME))] = f->model->reverse ? '^' : 'v';
	addstr(line);
	if (ownw)
		printw(" %-*s", ownw, "CONTAINER");
	if (f->need)
		printw(" %*s", NEED_W, mcg_header(MCG_F_NEEDED));
	for (k = 0; k < ncols; k++) {
		const struct top_col_desc *d = &top_cols[cols[k]];
		char h[32];

		snprintf(h, sizeof(h), "%s%s", top_col_header(cols[k]),
			 f->model->sort == (enum top_col)cols[k] ? (f->model->reverse ? "^" : "v") : "");
		printw(" %*s", d->width, h);
		if (cols[k] == TOP_PCT)
			printw("%*s", BAR_CELLS, "");
		if (cols[k] == TOP_USAGE && trend_on(f))
			printw(" %-*s", TREND_CELLS - 1, "TREND");
	}
	for (k = getcurx(stdscr); k < COLS; k++)
		addch(' ');
	if (colours)
		attroff(COLOR_PAIR(C_HDR));
	else
		attroff(A_REVERSE);
	*ret_first = *ret_n = 0;
	if (avail < 1)
		return;
	if (f->sel >= (size_t)avail)
		first = f->sel - (size_t)avail + 1;
	*ret_first = first;
	*ret_n = first < f->nrows ? f->nrows - first : 0;
	if (*ret_n > (size_t)avail)
		*ret_n = (size_t)avail;
	for (i = first, y = y0 + 1; i < f->nrows && y < y0 + 1 + avail; i++, y++) {
		const struct mcg_sample_row *r = &s->rows[f->rows[i]];
		bool sel = i == f->sel;
		int indent = f->model->flat ? 0 : r->depth * 2;
		/* rows are in pre-order: a first child comes right after its parent */
		bool has_kids = (size_t)f->rows[i] + 1 < s->n_rows &&
				s->rows[f->rows[i] + 1].parent == f->rows[i];
		char name[320], esc[256];

		move(y, 0);
		clrtoeol();
		if (sel)
			attron(colours ? COLOR_PAIR(C_SEL) : A_REVERSE);
		mcg_escape(f->model->flat ? r->path : r->name, esc, sizeof(esc));
		if (f->model->flat)
			snprintf(name, sizeof(name), "%s%s",
				 f->mark && f->mark[f->rows[i]] ? "*" : "", esc);
		else
			snprintf(name, sizeof(name), "%s%*s%s%s",
				 f->mark && f->mark[f->rows[i]] ? "*" : "",
				 indent - (f->mark && f->mark[f->rows[i]] && indent ? 1 : 0), "",
				 has_kids ? (top_model_is_collapsed(f->model, r->id) ? "+ " : "- ") : "",
				 esc);
		/* the row as one string (a bar cuts it in two): one curses call per piece */
		len = (size_t)snprintf(line, sizeof(line), "%-*.*s", namew, namew, name);
		if (ownw) {
			const char *o = f->owner[f->rows[i]];

			/* cut by mcg_escape: never in the middle of an escape */
			mcg_escape(o ? o : "-", esc, (size_t)ownw + 1);
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %-*s", ownw, esc);
		}
		if (f->need) {
			uint64_t nb = f->need[f->rows[i]];

			if (nb == UINT64_MAX)
				snprintf(cell, sizeof(cell), "-");
			else
				top_fmt_size((double)nb, cell, sizeof(cell));
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %*s", NEED_W, cell);
		}
		for (k = 0; k < ncols; k++) {
			double v;

			top_cell_format(s, r, cols[k], false, cell, sizeof(cell));
			len += (size_t)snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
						" %*s", top_cols[cols[k]].width, cell);
			if (len >= sizeof(line))
				len = sizeof(line) - 1;
			if (cols[k] == TOP_USAGE && trend_on(f)) {
				char tr[TOP_TREND_N * 4 + 1];

				/* the blocks are multibyte: their own piece */
				put_piece(line, len);
				top_trend_format(f->trend, r->id, utf8, tr, sizeof(tr));
				addch(' ');
				addstr(tr);
				len = 0;
				line[0] = '\0';
			}
			if (cols[k] == TOP_PCT) {
				put_piece(line, len);
				len = 0;
				line[0] = '\0';
				if (top_cell_value(s, r, TOP_PCT, &v))
					draw_bar(v);
				else
					len = (size_t)snprintf(line, sizeof(line), "%*s", BAR_CELLS, "");
			}
		}
		if (len)
			put_piece(line, len);
		if (sel) {
			for (k = getcurx(stdscr); k < COLS; k++)
				addch(' ');
			attroff(colours ? COLOR_PAIR(C_SEL) : A_REVERSE);
		}
	}
	for (; y < y0 + 1 + avail; y++) {
		move(y, 0);
		clrtoeol();
	}
}

/*
 * The detail pane's graph: usage over the session against the limit (L) and
 * high (H), GRAPH_LINES lines high where the screen has room for the lines
 * under it too, as wide as the terminal; a line saying what a column is.
 */
#define GRAPH_LINES 8

static int draw_graph(const struct view_frame *f, int y)
{
	int h = (LINES - y - 4) / 2, w = COLS - 8, i;
	char *buf;
	size_t stride;
	struct top_graph_info gi;
	char line[256], span[32];

	if (h > GRAPH_LINES)
		h = GRAPH_LINES;
	if (h < 3 || w < 8)
		return y;
	if (w > TOP_GRAPH_N)
		w = TOP_GRAPH_N;
	stride = (size_t)w * 3 + 16;
	buf = calloc((size_t)h, stride);
	if (!buf)
		return y;
	gi = top_graph_format(f->graph, f->graph_id, (unsigned)w, (unsigned)h, utf8, buf, stride);
	if (!gi.points) {
		free(buf);
		return y;
	}
	for (i = 0; i < h; i++)
		put_line(y++, buf + (size_t)i * stride, colours ? COLOR_PAIR(C_BAR_OK) : 0);
	/* RECL/s under it, over the same columns */
	if (top_graph_rate_format(f->graph, f->graph_id, (unsigned)w, utf8, buf, stride))
		put_line(y++, buf, 0);
	free(buf);
	if (gi.seconds >= 120)
		snprintf(span, sizeof(span), "%ldm%02lds", (long)gi.seconds / 60, (long)gi.seconds % 60);
	else
		snprintf(span, sizeof(span), "%.0fs", gi.seconds);
	snprintf(line, sizeof(line),
		 "       usage: %llu samples over %s, %u a column (its most); L limit, H high; RECL/s",
		 (unsigned long long)gi.samples, span, gi.per);
	put_line(y++, line, 0);
	move(y, 0);
	clrtoeol();
	return y + 1;
}

static void draw_overlay(const struct view_frame *f, int y0)
{
	int y = y0, avail = LINES - y0 - 1;
	size_t i;

	put_line(y++, f->overlay_title, colours ? COLOR_PAIR(C_HDR) : A_REVERSE);
	if (f->graph)
		y = draw_graph(f, y);
	for (i = f->overlay_top; i < f->noverlay && y < y0 + avail; i++)
		put_line(y++, f->overlay[i], 0);
	for (; y < LINES - 1; y++) {
		move(y, 0);
		clrtoeol();
	}
}

void view_draw(const struct view_frame *f, size_t *ret_first, size_t *ret_n)
{
	int y = 0, i;

	*ret_first = *ret_n = 0;
	for (i = 0; i < 7 && f->header[i]; i++)
		put_line(y++, f->header[i],
			 i == 0 && colours ? COLOR_PAIR(C_TITLE) | A_BOLD
					   : (!strncmp(f->header[i], "stall: delay", 12) && colours
						      ? COLOR_PAIR(C_WARN)
						      : 0));
	if (f->overlay_title)
		draw_overlay(f, y);
	else
		draw_table(f, y, ret_first, ret_n);
	if (f->prompt) {
		put_line(LINES - 1, f->prompt, A_BOLD);
		curs_set(1);
	} else {
		put_line(LINES - 1, f->status ? f->status : "", A_DIM);
		curs_set(0);
	}
	refresh();
}
