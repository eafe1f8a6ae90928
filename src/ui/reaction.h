/*
 * reaction: what a key handler asks of the loop (htop's Htop_Reaction).
 * Handlers change state and return these bits; only the loop acts on them
 * (draws once, or quits).
 */
#ifndef XT_REACTION_H
#define XT_REACTION_H

enum ui_reaction {
	UI_HANDLED = 1 << 0,
	UI_REDRAW = 1 << 1,
	UI_QUIT = 1 << 2,
};

#endif
