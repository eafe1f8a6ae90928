/*
 * textview: text shown in a pager panel, wrapped at the panel's width, so
 * nothing is ever cut: the help, the message log and the details pane.
 * Lines are added with a role; a line too long for the width continues on
 * the next rows, indented by the line's indent (words are kept whole when
 * they can be). The panel scrolls it (panel_act) and finds text in it.
 *
 * Ownership: the textview owns its lines and its panel; textview_fini()
 * releases them. A zeroed struct textview is valid and empty.
 */
#ifndef XT_TEXTVIEW_H
#define XT_TEXTVIEW_H

#include <stddef.h>

#include "panel.h"

struct tv_line {
	int role;          /* enum term_role */
	unsigned flags;    /* CELL_* */
	int indent;        /* columns before continuation rows */
	char *text;        /* owned */
};

struct tv_row {
	size_t line;       /* index into lines */
	size_t off, len;   /* bytes of the line's text on this row */
	int cont;          /* a continuation row (indented) */
};

struct textview {
	struct tv_line *lines;
	size_t nlines, cap;
	struct tv_row *rows; /* the lines wrapped at wrapped_w */
	size_t nrows, rcap;
	int wrapped_w;       /* -1 (or 0 when zeroed): not wrapped yet */
	struct panel panel;  /* pager mode over the rows */
};

/* Drops every line and scrolls back to the top (the panel is set up on
 * first use). */
void textview_clear(struct textview *tv);
/* Appends a line (printf format). */
void textview_add(struct textview *tv, int role, unsigned flags, int indent, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Rows the text takes at width columns. */
size_t textview_rows(struct textview *tv, int width);
/* The textview's panel (set up on first use). */
struct panel *textview_panel(struct textview *tv);
void textview_fini(struct textview *tv);

#endif
