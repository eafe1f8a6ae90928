/*
 * term: the terminal under curses — start and stop, colours (256, 8 or
 * none with NO_COLOR or a mono terminal), glyphs (UTF-8 or ASCII), and the
 * promise that the terminal is restored on exit, on error and on signals.
 * Only src/ui includes curses.
 */
#ifndef XT_TERM_H
#define XT_TERM_H

#include <curses.h>

#include "cellrow.h"
#include "roles.h"

struct term_glyphs {
	const char *dense[3];  /* light, medium, heavy shade */
	const char *fold_open, *fold_closed;
	const char *hline, *vline, *tick;
	const char *bar;       /* full block for charts */
	const char *peak;      /* memory peak marker */
	const char *ellipsis;  /* stands for the middle of a shortened name */
	const char *mark;      /* a jump target on the ruler */
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
/* fn runs when SIGINT, SIGTERM or SIGHUP ends the program on its screen,
 * after the terminal is given back (removing what it must not leave). */
void term_on_signal(void (*fn)(void));
/* Attribute of the event palette entry for a name (stable per name). */
int term_event_attr(const char *name);
/* Copies a row of cells to the screen at (y, x); cells beyond the screen
 * are dropped, non-ASCII ones shown as '?' on an ASCII terminal. */
void term_put_cells(int y, int x, const struct cellrow *r);

#endif
