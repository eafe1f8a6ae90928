/*
 * details: the timeline's details pane for the selected event: its name,
 * start, duration, self time, depth, plane and line, its full name (HLO
 * text on TPU), its op profile row and every stat (the event's, then its
 * metadata's). The text is wrapped to the screen and scrolls (J K, } {),
 * so nothing is cut; the pane takes the rows it needs, up to half of the
 * timeline's.
 */
#ifndef XT_DETAILS_H
#define XT_DETAILS_H

#include "keymap.h"

struct app;

/* Rows the pane takes out of h rows of timeline (0 when it is closed). */
int details_height(struct app *a, int h);
/* Draws the pane into rows [y, y + h). */
void details_draw(struct app *a, int y, int h);
/* Scrolls the pane (ACT_DETAILS_*); returns ui_reaction bits. */
unsigned details_act(struct app *a, enum action act);

#endif
