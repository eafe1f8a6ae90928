/*
 * roles: what a piece of the screen is (a header, the selection, an
 * event...), not how it looks; term.c maps each role to colours or video
 * attributes for the terminal at hand. Code that only lays out text (the
 * cell rows, the list panel) uses roles and never includes curses.
 */
#ifndef XT_ROLES_H
#define XT_ROLES_H

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
	ROLE_MATCH,      /* search matches, jump marks */
	ROLE_BAR,        /* bar glyphs (block characters) in a colour of their own */
	ROLE_EV0,        /* event palette: ROLE_EV0 .. ROLE_EV0 + TERM_NEV - 1 */
};
#define TERM_NEV 8
/* Step breakdown and memory chart colours reuse the palette. */

#endif
