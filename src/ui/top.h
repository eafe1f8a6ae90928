/*
 * top: the screen of `xtop top` — a live table of device ops refreshed
 * from periodic short captures (capture/watch.h), on the one event loop
 * (loop.h): the terminal, the capture worker's wake pipe and two timers
 * (the capture schedule, and a tick for the clocks on the status line) are
 * its only sources; handlers return reaction bits and top_draw() is the one
 * place that draws. The table is the generic list panel, so the selected
 * op stays selected (by program and name) across refreshes, sorts and
 * filters. Keys are a table, and the help is generated from it.
 */
#ifndef XT_TOP_H
#define XT_TOP_H

#include <stddef.h>
#include <stdint.h>

struct watch;

struct top_opts {
	const char *target;   /* as the user gave it */
	const char *logdir;   /* where x saves */
	uint64_t every_ms, duration_ms;
	size_t window;        /* captures averaged */
	int sort;             /* rolling_columns index */
	int ascii;
};

/*
 * Runs the screen until q; w is prepared (watch_init) and its first capture
 * due. Returns the exit status: 0, or 2 when the targets refused the first
 * capture (one line on stderr after the terminal is restored) or the
 * terminal cannot be used.
 */
int top_tui(struct watch *w, const struct top_opts *o);

#endif
