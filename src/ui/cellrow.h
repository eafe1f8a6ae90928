/*
 * cellrow: one screen row as cells (a character and its role), laid out
 * before anything reaches curses (htop's RichString, tmux's grid cells).
 * Width and clipping are decided here, once, and can be tested without a
 * terminal; term_put_cells() copies a finished row to the screen.
 */
#ifndef XT_CELLROW_H
#define XT_CELLROW_H

#include <stddef.h>
#include <stdint.h>

#define CELL_BOLD 1u

struct cell {
	char ch[4];     /* one UTF-8 character (len bytes); len 0 = a blank */
	uint8_t len;
	uint8_t role;   /* enum term_role */
	uint8_t flags;  /* CELL_* */
};

struct cellrow {
	struct cell *c; /* w cells; owned */
	int w;
};

/* A row of w blank cells (role 0). Free with cellrow_fini(). */
void cellrow_init(struct cellrow *r, int w);
void cellrow_fini(struct cellrow *r);
/* Blanks cells [x, x + w) with role and flags. */
void cellrow_fill(struct cellrow *r, int x, int w, int role, unsigned flags);
/* Writes s into cells [x, x + w) with role and flags, one cell per UTF-8
 * character, clipped to w and to the row; control and broken bytes become
 * '?'. Returns the cells written. */
int cellrow_put(struct cellrow *r, int x, int w, int role, unsigned flags, const char *s);
/* The row's characters as text (for tests and dumps). Returns buf. */
char *cellrow_text(const struct cellrow *r, char *buf, size_t n);

#endif
