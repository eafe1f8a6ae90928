/*
 * top_viewer: xtop top's Enter — the newest capture in the full viewer.
 * The viewer runs as a child xtop on the same terminal while top's screen
 * is suspended (curses left and resumed), so it is exactly the viewer of
 * `xtop PATH` with all its keys, and quitting it returns to top. A capture
 * not saved yet is written to a temporary run for it, removed afterwards.
 */
#ifndef XT_TOP_VIEWER_H
#define XT_TOP_VIEWER_H

#include <stddef.h>

struct watch;

/*
 * Runs the viewer on w's newest capture (w->t must be set) and waits for
 * it; the viewer's x saves under logdir, and w->saved then names that run
 * (x in top says where instead of saving it twice; the viewer of a saved
 * capture says so itself). Returns 0 when it ran and quit
 * normally, or -1 with why (one line) when it could not run or failed.
 * Leave curses' state alone around it: this suspends and resumes it.
 */
int top_viewer_open(struct watch *w, const char *logdir, int ascii, char *why, size_t n);

#endif
