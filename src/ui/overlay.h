/*
 * overlay: full-screen text over the views: the help (generated from the
 * key tables), the message log, and a list's selected row in full
 * (rowinfo.c). All are wrapped to the screen width and scroll, so nothing
 * in them is cut; / finds text in them, n / N again.
 */
#ifndef XT_OVERLAY_H
#define XT_OVERLAY_H

#include "keymap.h"
#include "textview.h"

struct app;

enum overlay_kind { OVERLAY_NONE = 0, OVERLAY_HELP, OVERLAY_MESSAGES, OVERLAY_ROW };

struct overlay {
	enum overlay_kind kind;
	struct textview tv;   /* owned */
	char find[256];       /* the last text looked for */
	char title[256];      /* OVERLAY_ROW's: whose row it is */
};

/* Shows the help, the message log (newest at the bottom, in view), or the
 * current list's selected row; a list with no row selected says so in the
 * status line and opens nothing. */
void overlay_open(struct app *a, enum overlay_kind kind);
/* The kind that action act opens (help ?, messages m, a row i); NONE. */
enum overlay_kind overlay_kind_of(enum action act);
/* Draws the open overlay into rows [y, y + h). */
void overlay_draw(struct app *a, int y, int h);
/* Handles an action while an overlay is open: scrolling, / n N, ? and m
 * switch or close, q quits; any other key closes it. Returns ui_reaction
 * bits. */
unsigned overlay_act(struct app *a, enum action act);
/* Finds text in the overlay (dir 1 forward, -1 back) from the top row. */
void overlay_find(struct app *a, const char *text, int dir);
void overlay_fini(struct overlay *o);

#endif
