/*
 * loading: the viewer while its profile loads. The load runs in a thread
 * (model/load.h, load_job); each loop turn shows the timeline of the lines
 * decoded so far, with a progress bar in the status line, and when the load
 * ends the analyses take the empty one's place (the op, step and memory
 * views are empty until then, and the status line says why). Only the UI
 * thread calls these; a->load is NULL once the load has ended.
 *
 * The loop holds the job's lock while it draws and while it handles a key
 * (loading_turn ... loading_drawn, loading_lock ... loading_unlock), never
 * while it waits, so the loader publishes lines between frames.
 */
#ifndef XT_LOADING_H
#define XT_LOADING_H

#include <stddef.h>

#include "app.h"

/* Starts loading path as the viewer's profile (added with app_add). */
void loading_start(struct app *a, const char *path, const char *run);
/* Before drawing: locks and brings the timeline up to date; when the load
 * has ended, swaps the analyses in (and unlocks for good). Returns 0, or
 * the exit status when the load failed: the terminal is restored, the
 * message printed, the profile left without a trace; the caller ends. */
int loading_turn(struct app *a);
/* After drawing: notes the frame (XTOP_FRAME_LOG) and unlocks. */
void loading_drawn(struct app *a);
/* Around handling a key. */
void loading_lock(struct app *a);
void loading_unlock(struct app *a);
/* A key acted on: from then on the view is the user's (the timeline
 * follows the lines chosen as more arrive, else it stays at the top; the
 * view asked for does not replace the one shown when the load ends). */
void loading_touch(struct app *a);
/* When the viewer quits: stops the load (the current line or chunk is
 * finished first) and frees it; the profile is left without a trace. */
void loading_stop(struct app *a);
/* The status line while loading: file, progress bar, events, time. */
void loading_status(const struct app *a, char *buf, size_t n);
/* Whether the current profile is the one loading. */
int loading_current(const struct app *a);
/* Whether what view v shows of the current profile is still to come: it
 * is not the timeline, and its analyses (or for the diff, its base's) are
 * not in yet. The view then says so instead of showing empty tables that
 * read as "no steps", "no ops", "findings: none". */
int loading_pending(const struct app *a, enum view_id v);
/* Whether the timeline holds no events yet, in the load's first second
 * (the progress tick then looks more often, so that the first lines show
 * as soon as they are in). */
int loading_before_events(const struct app *a);

#endif
