/*
 * term: the terminal under curses — start and stop, colours (256, 8 or
 * none with NO_COLOR or a mono terminal), glyphs (UTF-8 or ASCII), and the
 * promise that the terminal is restored on exit, on error and on signals.
 * Only src/ui includes curses.
 */
#ifndef XT_TERM_H
#define XT_TERM_H

#include <curses.h>

/* Colour roles; term_attr() maps each to an attribute for this terminal. */
enum term_role {
	ROLE_TEXT = 0,
	ROLE_TITLE,      /* status bar */
	ROLE_HINT_KEY,   /* hint bar key */
	ROLE_HINT,       /* hint bar label */
	ROLE_HEADER,     /* table headers, group rows */
	ROLE_SELECT,     /* selected row / event */
	ROLE_DIM,        /* rulers, secondary text */
	ROLE_ERROR,      /* status line errors */
	ROLE_DENSE,      /* summarised dense columns */
	ROLE_MATCH,      /* search matches */
	ROLE_EV0,        /* event palette: ROLE_EV0 .. ROLE_EV0 + TERM_NEV - 1 */
};
#define TERM_NEV 8
/* Step breakdown and memory chart colours reuse the palette. */

struct term_glyphs {
	const char *dense[3];  /* light, medium, heavy shade */
	const char *fold_open, *fold_closed;
	const char *hline, *vline, *tick;
	const char *bar;       /* full block for charts */
	const char *peak;      /* memory peak marker */
};

struct term {
	int colors;            /* 0 none, 8 or 256 */
	int ascii;             /* 1: ASCII glyphs only */
	struct term_glyphs g;
};

extern struct term term;

/* Starts curses on the controlling terminal. ascii forces ASCII glyphs.
 * Returns 0, or -1 with a message on stderr. */
int term_init(int ascii);
/* Starts curses on no terminal at all (output to /dev/null), rows x cols:
 * for benchmarks and tests that drive the drawing code. Returns 0 or -1. */
int term_init_headless(int rows, int cols);
/* Restores the terminal; safe to call twice and from signal handlers. */
void term_fini(void);
int term_attr(enum term_role r);
/* Attribute of the event palette entry for a name (stable per name). */
int term_event_attr(const char *name);

#endif
