/*
 * keymap: every key binding as data (style rule 7). A key maps to an action
 * in a scope (all views, or one view); the help screen and the hint bar are
 * generated from this one table, so they cannot drift from what the keys do.
 */
#ifndef XT_KEYMAP_H
#define XT_KEYMAP_H

#include <stddef.h>

enum action {
	ACT_NONE = 0,
	ACT_QUIT,
	ACT_HELP,
	ACT_VIEW_NEXT,
	ACT_VIEW_PREV,
	ACT_VIEW_OVERVIEW, /* ACT_VIEW_OVERVIEW + enum view_id: that view */
	ACT_VIEW_TIMELINE,
	ACT_VIEW_OPS,
	ACT_VIEW_STEPS,
	ACT_VIEW_MEMORY,
	ACT_VIEW_KERNELS,
	ACT_VIEW_DEVICES,
	ACT_VIEW_DIFF,
	ACT_DIFF,
	ACT_SEARCH,
	ACT_MATCH_NEXT,
	ACT_MATCH_PREV,
	ACT_ESCAPE,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_HOME,
	ACT_END,
	ACT_ENTER,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_PAN_LEFT,
	ACT_PAN_RIGHT,
	ACT_FIT,
	ACT_SHOW_ALL,
	ACT_EVENT_NEXT,
	ACT_EVENT_PREV,
	ACT_PARENT,
	ACT_CHILD,
	ACT_FOLD,
	ACT_DETAILS,
	ACT_SORT_NEXT,
	ACT_SORT_PREV,
	ACT_GROUP,
	ACT_FILTER,
	ACT_CAPTURE,
	ACT_SAVE,
	ACT_PROF_PREV,
	ACT_PROF_NEXT,
	ACT_MESSAGES,
	ACT_ROW,           /* the selected row of a list in full (rowinfo.c) */
	ACT_DETAILS_UP,
	ACT_DETAILS_DOWN,
	ACT_DETAILS_PAGE_UP,
	ACT_DETAILS_PAGE_DOWN,
	ACT_PAUSE,         /* xtop top: pause or resume the captures */
	ACT_COUNT
};

/* Views a binding applies to (bit mask). */
#define SCOPE_TIMELINE (1u << 0)
#define SCOPE_OPS (1u << 1)
#define SCOPE_STEPS (1u << 2)
#define SCOPE_MEMORY (1u << 3)
#define SCOPE_OVERVIEW (1u << 4)
#define SCOPE_DIFF (1u << 5)
#define SCOPE_KERNELS (1u << 6)
#define SCOPE_DEVICES (1u << 7)
#define SCOPE_ALL 0xffu

struct key_binding {
	int key;            /* curses key code or character */
	unsigned scope;     /* SCOPE_* */
	enum action action;
	const char *keyname;/* as shown in help ("w", "Tab", "PgDn") */
	const char *help;   /* lowercase, no full stop; NULL = alias not shown */
	const char *hint;   /* short label for the hint bar; NULL = not hinted */
};

extern const struct key_binding key_bindings[];
extern const unsigned key_nbindings;

/* The action of key in the view with scope bit `scope`; ACT_NONE if none. */
enum action keymap_lookup(int key, unsigned scope);
/* The name of act's first key ("2"), or NULL when it has none. */
const char *keymap_key_for(enum action act);
/* Where bindings of scope apply, in words ("everywhere", "steps, memory"),
 * for the help screen. Returns buf. */
const char *keymap_scope_name(unsigned scope, char *buf, size_t n);

#endif
