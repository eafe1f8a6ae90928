/*
 * app: the viewer's state and the contract between the loop and the views.
 *
 * Handlers never draw: they change state and return reaction bits; the loop
 * draws once per turn when something is dirty (htop's Htop_Reaction, tmux's
 * redraw flags). Views are tables of functions (struct view) chosen by
 * enum view_id. Every number shown comes from the model (struct
 * xt_analysis), the same as `xtop report` prints.
 */
#ifndef XT_APP_H
#define XT_APP_H

#include <stddef.h>
#include <stdint.h>

#include "../model/analysis.h"
#include "../model/search.h"
#include "../model/timeline.h"
#include "keymap.h"

enum ui_reaction {
	UI_HANDLED = 1 << 0,
	UI_REDRAW = 1 << 1,
	UI_QUIT = 1 << 2,
};

enum view_id { VIEW_TIMELINE, VIEW_OPS, VIEW_STEPS, VIEW_MEMORY, VIEW_COUNT };

struct app;

struct view {
	const char *name;
	unsigned scope; /* SCOPE_* of its key bindings */
	/* Draws rows [y, y + h) of the screen. */
	void (*draw)(struct app *a, int y, int h);
	/* Handles an action; returns enum ui_reaction bits (0 = not handled). */
	unsigned (*act)(struct app *a, enum action act);
};

/* Timeline state (view_timeline.c). */
struct tl_state {
	int64_t v0, v1;        /* visible window, absolute ps */
	long cur;              /* cursor track */
	int cur_header;        /* 1: the cursor is on that track's plane header */
	long sel_track;        /* selected event: track (-1 none) */
	int64_t sel_ev;        /*   and its index on the line */
	long top;              /* first visible row (see tl rows) */
	uint8_t *folded;       /* per track: 1 when its plane group is folded */
	int details;           /* details pane shown */
};

struct ops_state {
	int sort;              /* op_columns index */
	int grouped;           /* program -> category -> op tree */
	char filter[128];
	long sel, top;
	char **folds;          /* folded groups: "program\1category" keys */
	size_t nfold;
};

struct list_state {
	long sel, top;
};

/* A loaded profile; the viewer keeps every one it opened or captured. */
struct prof {
	struct xt_trace *t;
	struct xt_analysis *an;
	struct timeline *tl;
	uint8_t *folded;
	char *path;            /* owned */
};

struct cap_ui;

struct app {
	struct xt_trace *t;    /* the current profile (profs[cur]) */
	struct xt_analysis *an;
	struct timeline *tl;
	const char *path;
	struct prof *profs;
	size_t nprofs, cur;
	struct cap_ui *cap;    /* NULL unless attached to a workload */
	struct loading *load;  /* while the profile loads (loading.h) */
	const char *logdir;    /* where x saves */
	enum view_id view;
	int help;              /* help overlay shown */
	int rows, cols;
	char status[256];
	int status_err;
	/* search */
	struct search_result *search;
	char query[128];
	long match;            /* current match index, -1 none */
	/* one-line prompt (search or filter) */
	int prompt;            /* 0 none, '/' search, '\\' filter */
	char pbuf[128];
	size_t plen;
	struct tl_state tls;
	struct ops_state ops;
	struct list_state steps, mem;
};

extern const struct view view_timeline, view_ops, view_steps, view_memory;

struct app_opts {
	const char *path;      /* profile to open; NULL with attach */
	const char *run;
	int ascii;
	const char *attach;    /* HOST:PORT[,...] or PID; NULL = not attached */
	uint64_t duration_ms;  /* capture length */
	const char *logdir;    /* captures and saves go here */
};

/* Runs the viewer; returns the process exit status. */
int app_main(const struct app_opts *o);

/* Shared drawing helpers (app.c). */
void app_status(struct app *a, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes s clipped to w columns at (y, x) with attr; pads with spaces to w
 * when pad is set. Counts UTF-8 sequences as one column. Returns columns. */
int ui_put(int y, int x, int w, int attr, const char *s, int pad);
/* Moves the timeline to show [t0, t1) and selects (track, ev) if ev >= 0. */
void app_goto(struct app *a, int64_t t0, int64_t t1, long track, int64_t ev);
/* Adds a profile (owning t and an) and makes it the current one. */
void app_add(struct app *a, struct xt_trace *t, struct xt_analysis *an, const char *path);
/* Index of the op row of the event, or -1. */
long app_op_row(const struct app *a, const struct xt_plane *p, const struct xt_line *l,
		const struct xt_event *ev);

#endif
