/*
 * panel_fit: the flexible column's names fitted with a kept tail
 * (panel.flex_tail), for panel.c's drawing. Owns nothing; writes only the
 * caller's out[].
 */
#ifndef XT_PANEL_FIT_H
#define XT_PANEL_FIT_H

#include <stddef.h>

#include "panel.h"

/*
 * The names of rows with a kept tail (p->flex_tail, " (TEXT)"): src[k], the
 * text of panel row row[k], fitted to w columns into out[k] (cap bytes),
 * each elided before its tail and told apart from the rows of the same
 * tail (rows of other tails read apart by it: "loo…fusion_2 (loop_add_
 * fusion.3)" beside "… (loop_add_fusion.2)", where the plain elision cut
 * the '(' and showed both ops as one). A tail that would leave the name
 * under 8 columns has its TEXT elided to fit, told apart from the other
 * such tails, and the name cut at its end. 0, with out[] as it was, when
 * the column is too narrow for that, or without memory.
 */
int panel_fit_heads(struct panel *p, char **out, size_t cap, char *const *src, const size_t *row,
		    int n, int w);

#endif
