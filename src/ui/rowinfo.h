/*
 * rowinfo: the selected row of a list in full (i), for the overlay: every
 * column under its header's name, names and notes whole. The lists fit a
 * row to the screen: names elided in their middle, the op profile's note
 * cut at the edge, columns dropped at 80; here nothing is.
 */
#ifndef XT_ROWINFO_H
#define XT_ROWINFO_H

#include "textview.h"

struct app;

/* Fills tv with the current list view's selected row and a->ov.title
 * with whose row it is; 0, or -1 when the view has no row selected. */
int rowinfo_fill(struct app *a, struct textview *tv);

#endif
