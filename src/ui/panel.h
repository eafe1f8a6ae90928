/*
 * panel: the one scrolling list every list-like view is built on (perf's
 * ui_browser, tmux's mode-tree). The panel owns the selection, scrolling,
 * sorting by a column, a substring filter, folding of tree rows and layout
 * at any width; a view supplies its rows through callbacks and handles only
 * what is its own (Enter on a step jumps...).
 *
 * Rows are the view's, numbered 0..count-1 in the view's order. The panel
 * shows a permutation of them (filtered, sorted, folded) and remembers the
 * selected row by a stable key the view gives, not by its position: after a
 * refresh (new data, another sort, a filter) the same row stays selected if
 * it is still there.
 *
 * Tree rows: with ops->depth, rows come in pre-order (a row, then its
 * subtree) and the panel sorts siblings among themselves, keeps each
 * subtree under its row, indents the tree column and folds subtrees (the
 * folded rows' keys are remembered too).
 *
 * Pager mode (for text: help, messages, details) has no cursor: Up and
 * Down scroll.
 *
 * The panel never touches curses: it lays rows out as cell rows and hands
 * them to the caller (panel_render()), so it is tested without a terminal.
 *
 * Ownership: the panel owns its order, keys and fold set (panel_fini()); the
 * ops, columns and ctx are borrowed and must outlive it.
 */
#ifndef XT_PANEL_H
#define XT_PANEL_H

#include <stddef.h>
#include <stdint.h>

#include "cellrow.h"
#include "keymap.h"

/* A column of a table panel: the same table draws the header and the cells
 * and sorts (style rule 8). */
struct panel_column {
	const char *name;
	int width;  /* columns; 0 = the rest of the row (at least 8) */
	int right;  /* right-aligned */
	int drop;   /* 0: always shown; when narrow, the highest drop goes first */
	/* The cell's text for row. */
	void (*text)(void *ctx, size_t row, char *buf, size_t n);
	/* Instead of text: draws the cell itself (bars, charts); optional. */
	void (*cells)(void *ctx, size_t row, struct cellrow *r, int x, int w);
	/* Order of two rows by this column (< 0: a first); NULL = not sortable. */
	int (*cmp)(void *ctx, size_t a, size_t b);
	/* What the column means (help, and i beside the row's value); NULL:
	 * its header says it. */
	const char *help;
};

/* -1, 0 or 1 as x is below, at or above y: the column orders' building
 * block. */
static inline int panel_cmp64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

struct panel_ops {
	/* Rows in the view's order, for a panel width columns wide. */
	size_t (*count)(void *ctx, int width);
	/* The row's stable identity; NULL = its text (or number). */
	void (*key)(void *ctx, size_t row, char *buf, size_t n);
	/* Rows without columns: writes the row into r. */
	void (*row)(void *ctx, size_t row, struct cellrow *r);
	/* The row's text for the filter and panel_find(); NULL = the columns'
	 * texts. */
	void (*text)(void *ctx, size_t row, char *buf, size_t n);
	/* Tree depth of the row (0 = top level); NULL = a flat list. */
	unsigned (*depth)(void *ctx, size_t row);
	/* Role and CELL_* flags of the row's text; NULL = plain text. */
	void (*style)(void *ctx, size_t row, int *role, unsigned *flags);
};

struct panel {
	const struct panel_ops *ops;       /* borrowed */
	void *ctx;                         /* borrowed */
	const struct panel_column *cols;   /* borrowed; NULL: ops->row draws */
	size_t ncols;
	int sort;          /* sorted by cols[sort] (-1: the view's order) */
	int header;        /* draw a header row from the columns */
	int pager;         /* no cursor: Up/Down scroll */
	int tree_col;      /* the column indented by depth (tree panels) */
	int flex_min;      /* columns the flexible column keeps before others drop (0: 8) */
	unsigned long empty; /* bit c: cols[c] holds nothing (zero in every row):
			      * when narrow, a droppable one goes first; set by the view */
	int hide_empty;      /* 1: such a column is not shown at any width, unless
			      * it is the sort column (the view says which) */
	const int *drop_at;  /* NULL, or per column the drop order that replaces
			      * cols[c].drop (by what the rows hold); set by the view */
	/* NULL, or the flexible column's text chosen for w columns (which
	 * part gives way first), drawn instead of its text's; the text stays
	 * what filters and keys read, and one wider than w is elided as the
	 * text would be. Set by the view. */
	void (*fit_flex)(void *ctx, size_t row, char *buf, size_t n, int w);
	/* NULL, or the bytes at the end of the flexible column's text that
	 * stay whole when it is elided (the kernels' " (op)"), when they leave
	 * the rest 8 columns or more; rows of the same tail are told apart by
	 * the rest. Set by the view. */
	size_t (*flex_tail)(void *ctx, size_t row);
	const char *mark, *open, *closed; /* glyphs: elision, unfolded, folded */
	const char *up;                   /* glyph: rows above the screen */
	char filter[128];  /* only rows whose text contains it (any case) */
	/* state, kept by the panel */
	size_t *order;     /* shown rows, view row numbers in display order */
	size_t norder, cap;
	unsigned char *kids; /* [row] 1 when a tree row has children */
	size_t nkids;        /* rows kids covers */
	long sel, top;     /* positions in order */
	long found;        /* pager: the row the last find went to, -1 none */
	int height, width; /* of the last render (rows below the header) */
	char selkey[256];  /* key of the selected row */
	int has_key;
	char **folds;      /* keys of folded tree rows */
	size_t nfolds;
};

/* Sets p up (zeroed first); not sorted, no header, cursor mode. Can't fail. */
void panel_init(struct panel *p, const struct panel_ops *ops, void *ctx,
		const struct panel_column *cols, size_t ncols);
void panel_fini(struct panel *p);
/* Rebuilds the shown rows from the view (count, filter, sort, folds) for
 * width columns and puts the selection back on the row with its key (else
 * on the same position). Call when the view's data may have changed;
 * panel_render() and panel_act() call it. Can't fail. */
void panel_refresh(struct panel *p, int width);
/*
 * Handles a navigation action: Up/Down/PgUp/PgDn/Home/End move the
 * selection (scroll in pager mode), Sort next/previous change the sort
 * column. Returns UI_REDRAW, or 0 when the action is not the panel's.
 */
unsigned panel_act(struct panel *p, enum action act);
/* The view row under the selection, or -1 when nothing is shown. */
long panel_selected(const struct panel *p);
/* Selects the shown row whose key is key; returns 0, or -1 if none. */
int panel_select_key(struct panel *p, const char *key);
/* Shows only rows whose text contains text (case-insensitive); "" shows
 * all. The selection stays on its row when that row is still shown. */
void panel_set_filter(struct panel *p, const char *text);
/* Moves the selection (pager: the top row) to the next (dir > 0) or
 * previous shown row whose text contains text, wrapping around; returns 0,
 * or -1 when no row matches. */
int panel_find(struct panel *p, const char *text, int dir);
/* Folds or unfolds the selected tree row; returns 0, or -1 when it has no
 * children. */
int panel_toggle_fold(struct panel *p);
/* 1 when the tree row with this key is folded. */
int panel_folded(const struct panel *p, const char *key);

/* Lays out h rows (the header first when p->header) w columns wide and
 * passes each to emit(arg, i, row) for i in [0, h). Can't fail. */
void panel_render(struct panel *p, int h, int w,
		  void (*emit)(void *arg, int i, const struct cellrow *r), void *arg);
/* The header row alone, w columns wide, into r (initialised by the caller;
 * at least w cells). */
void panel_header(struct panel *p, struct cellrow *r, int w);
/* View row `row` laid out with the panel's columns into r, as in the list:
 * for a summary row drawn outside it (an average). The callbacks are asked
 * for that row, which may be one past the list's last. */
void panel_draw_row(struct panel *p, size_t row, struct cellrow *r, int w, int selected);
/* A figure too wide for its w columns, as the lists show it: '#' across
 * them (at most n - 1), never the figure cut ("5..200" would read as
 * another number). */
void panel_no_fit(char *buf, size_t n, int w);
/* Marks a header row r (w wide) with how many rows are above the screen
 * (none: nothing), at its right end where that is blank: after a re-sort
 * that keeps the selection, the first row shown is not the first of the
 * order. */
void panel_mark_above(struct cellrow *r, int w, long above, const char *up);
/* That mark's text (" ^ N above ", up the arrow, NULL for "^") into s;
 * its width in columns, 0 (and "") when nothing is above. For a view that
 * is not a panel (the op profile) to place it itself. */
int panel_above_text(char *s, size_t n, long above, const char *up);
/* A column's header in w columns: its name, and the sort column's a
 * trailing 'v', in place of the name's last letter where both do not fit
 * ("REGv"; eliding read "R…Sv"). Column names are ASCII. */
void panel_head_name(char *buf, size_t n, const char *name, int sorted, int w);

#endif
