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

#include "../capture/capture.h"
#include "../model/analysis.h"
#include "../model/compare.h"
#include "../model/search.h"
#include "../model/timeline.h"
#include "keymap.h"
#include "loop.h"
#include "msglog.h"
#include "overlay.h"
#include "panel.h"
#include "prompt.h"
#include "reaction.h"
#include "textview.h"


enum view_id {
	VIEW_OVERVIEW,
	VIEW_TIMELINE,
	VIEW_OPS,
	VIEW_STEPS,
	VIEW_MEMORY,
	VIEW_KERNELS,
	VIEW_DEVICES,
	VIEW_DIFF,
	VIEW_COUNT
};

struct app;

struct view {
	const char *name;
	unsigned scope; /* SCOPE_* of its key bindings */
	/* Draws rows [y, y + h) of the screen. */
	void (*draw)(struct app *a, int y, int h);
	/* Handles an action; returns enum ui_reaction bits (0 = not handled). */
	unsigned (*act)(struct app *a, enum action act);
	/* Its list's columns (help explains them); NULL: none of its own. */
	const struct panel_column *cols;
	size_t ncols;
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
	struct textview det;   /* the details pane's text (wrapped, scrolled) */
	long det_track;        /* the event det was written for */
	int64_t det_ev;
	int det_cols;          /*   at this screen width */
	int has_mark;          /* a jump target is marked: */
	int64_t mark_ps;       /*   its time, absolute ps */
	long mark_track;       /*   its track (-1: none) */
};

struct ops_state {
	int sort;              /* op_columns index */
	int grouped;           /* program -> category -> op tree */
	char filter[128];
	long sel, top;
	char **folds;          /* folded groups: "program\1category" keys */
	size_t nfold;
};

/* The diff view (view_diff.c): profs[base] against the current profile. */
struct diff_state {
	long base;             /* profs index; -1: nothing compared */
	struct xt_cmp *cmp;    /* owned; made for with_base against with_new */
	uint64_t with_base, with_new; /* their analyses' serials (0: none) */
	struct panel p;
};

/* A loaded profile; the viewer keeps every one it opened or captured. */
struct prof {
	struct xt_trace *t;
	struct xt_analysis *an;
	struct timeline *tl;
	uint8_t *folded;
	char *path;            /* owned */
	char *saved;           /* owned: the run it is saved in (a capture, or x); NULL */
};

struct capture_session;

struct app {
	struct xt_trace *t;    /* the current profile (profs[cur]) */
	struct xt_analysis *an;
	struct timeline *tl;
	const char *path;
	struct prof *profs;
	size_t nprofs, cur;
	struct capture_session *cap; /* NULL unless attached to a workload */
	struct loading *load;  /* while the profile loads (loading.h) */
	const char *logdir;    /* where x saves */
	enum view_id view;
	struct overlay ov;     /* help or messages over the view */
	int rows, cols;
	char status[1024];     /* the status line (the log keeps it in full) */
	int status_err;
	struct msglog log;     /* every status message */
	/* search */
	struct search_result *search;
	char query[PROMPT_MAX];
	long match;            /* current match index, -1 none */
	struct prompt prompt;  /* the one-line editor (search, filter, find) */
	struct tl_state tls;
	struct ops_state ops;
	struct panel steps, mem; /* the steps and memory lists (view_lists.c) */
	int steps_drop[16];      /* the steps' column drop order (view_lists.c) */
	struct {
		uint64_t an;    /* the serial of the analysis they were worked out for */
		size_t n;
		int64_t origin; /* the time axis's (timeaxis_rel of 0) */
		int64_t unit;	/* 0: fmt_ps; else fmt_ps_unit (timefmt_apart) */
		int dec;
	} step_starts; /* how the steps' START column tells them apart */
	struct panel kern, devs; /* the kernel and device tables (view_tables.c) */
	struct {
		uint64_t an;          /* the serial of the analysis they were worked out for */
		int drop[10];         /* the kernel columns' drop order */
		unsigned long empty;  /* the columns no kernel fills */
	} kern_fit;
	struct {
		long sel, top;  /* selected item, first line (view_overview.c) */
	} ovs;
	struct diff_state diff;
	/* the one event loop (loop.c) while the viewer runs */
	struct loop *loop;
	long tick;             /* the progress timer (100, 250 or 1000 ms, or stopped) */
	long more_keys;        /* looks for keys curses already read (0 ms) */
	int exit_rc;           /* a failed load's exit status: the loop ends */
};

extern const struct view view_overview, view_timeline, view_ops, view_steps, view_memory,
	view_kernels, view_devices, view_diff;
/* Releases the kernel and device views' panels (view_tables.c). */
void view_tables_fini(struct app *a);
/* The timeline at device d's longest gap, marked (view_overview.c). */
void app_goto_gap(struct app *a, const struct xt_device_row *d);
/* D: compares the current profile with another loaded one (view_diff.c). */
unsigned app_diff_key(struct app *a);
void view_diff_fini(struct app *a);
/* Shows op number op (an->ops index) selected in the op profile, its
 * filter cleared (view_ops.c). */
void view_ops_focus(struct app *a, long op);
/* The op profile's name marks and what they mean, up to n (help). */
size_t view_ops_marks(const char **mark, const char **help, size_t n);
/* Filters the op profile by text ("" clears it), keeping the selected row
 * when it still shows (view_ops.c). */
void view_ops_set_filter(struct app *a, const char *text);
/* The panel of the current list view (it filters with \\), or NULL: the
 * op profile keeps its own rows, the timeline and overview have none. */
struct panel *app_view_panel(struct app *a);
/* The op profile's selected row, for rowinfo.c: *o its op (a kernel row's
 * op; a group row's sums, in *agg), *kernel the kernel's index on a
 * kernel row (else -1), *group 1 on a group row, and the footer's note
 * into note. 0, or -1 when no row is selected (view_ops.c). */
int view_ops_selected(struct app *a, struct xt_op_row *agg, const struct xt_op_row **o,
		      long *kernel, int *group, char *note, size_t n);
/* Releases the steps and memory views' panels (view_lists.c). */
void view_lists_fini(struct app *a);
void view_memory_fini(struct app *a);

struct app_opts {
	const char *path;      /* profile to open; NULL with attach */
	const char *run;
	int ascii;
	const char *attach;    /* HOST:PORT[,...] or PID; NULL = not attached */
	char *const *launch;   /* xtop --attach -- CMD: the command to start; NULL = none */
	struct capture_opts capture; /* how captures run; its logdir also takes saves */
	enum view_id view;     /* the first view */
	const char *diff_base; /* xtop --diff BASE NEW: BASE (path is NEW); NULL = none */
};

/* Runs the viewer; returns the process exit status. */
int app_main(const struct app_opts *o);

/* Shared drawing helpers (app.c). */
/* Shows a message in the status line and keeps it in the message log. */
void app_status(struct app *a, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Shows a passing state (a capture's elapsed time) without logging it. */
void app_progress(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes s clipped to w columns at (y, x) with attr; pads with spaces to w
 * when pad is set. Counts UTF-8 sequences as one column. Returns columns. */
int ui_put(int y, int x, int w, int attr, const char *s, int pad);
/* Writes s across full-width rows from y, at most `rows` of them, broken
 * between words (continuation rows indented by indent); what still does
 * not fit ends in an ellipsis. Returns the rows used. */
int ui_put_wrap(int y, int w, int rows, int attr, const char *s, int indent);
/* Prompt p on row y, cols wide: its label, then its line scrolled so the
 * cursor shows, the cursor on its letter (the viewer's and top's). */
void ui_put_prompt(int y, int cols, const struct prompt *p);
/* Host name h without the start every open host shares (back to a
 * separator), an ellipsis in its place: what tells the hosts apart, for
 * columns too narrow for the whole name. */
void ui_host_label(const struct app *a, const char *h, char *buf, size_t n);
/* Draws panel p into rows [y, y + h), columns [x, x + w). */
void ui_panel(struct panel *p, int y, int x, int h, int w);
/* A list view's keys after its own: Esc clears the filter when there is
 * one, the rest moves and sorts (panel_act). Returns reaction bits. */
unsigned ui_list_act(struct app *a, struct panel *p, enum action act);
/* Jumps: moves the timeline to show [t0, t1), marks the target time at
 * (absolute ps) on the ruler and the tracks, puts the cursor on track
 * (scrolled into view) and selects its event ev, when they are >= 0. */
void app_jump(struct app *a, int64_t t0, int64_t t1, int64_t at, long track, int64_t ev);
/* app_jump() to event ev of track (its start marked) or, with ev < 0, to
 * [t0, t1) with nothing marked. */
void app_goto(struct app *a, int64_t t0, int64_t t1, long track, int64_t ev);
/* The longest event of the device tracks for which match() holds: the timeline
 * zooms on it, selected and marked, and the status says "longest WHAT of
 * NAME: duration". Returns 0, or -1 when no event matches (nothing moves). */
int app_jump_longest(struct app *a,
		     int (*match)(struct app *a, const struct tl_track *tr, const struct xt_event *ev,
				  const void *arg),
		     const void *arg, const char *what, const char *name);
/* The run under the logdir whose file t was read from (malloc'd), or NULL:
 * x has nothing to add to such a profile (xtop top's viewer opens the run
 * top saved; so does `xtop LOGDIR`). */
char *app_saved_run(const struct app *a, const struct xt_trace *t);
/* x: saves the current profile in a new run under the logdir, once
 * (ui_save.c). Returns enum ui_reaction bits. */
unsigned app_save(struct app *a);
/* The timeline's first window: the devices' busy span (timeline.h). */
void app_first_window(struct app *a);
/* With several hosts, notes in the message log (m) where each sits on the
 * trace's clock and its skew (docs/analyses.md, "Several hosts"). */
void app_log_clocks(struct app *a, const struct xt_trace *t);
/* Adds a profile (owning t and an) and makes it the current one; logs its
 * hosts' clocks. */
void app_add(struct app *a, struct xt_trace *t, struct xt_analysis *an, const char *path);
/* A view's name as its title says it ("op profile"). */
const char *app_view_name(enum view_id v);
/* The track and event that stand for time t: an event starting at t on a
 * line of host `host` (NULL: any) whose name starts with `prefix` (NULL:
 * any), on a device plane first. Returns the track or -1. */
long app_event_at(struct app *a, const char *host, int64_t t, const char *prefix, int64_t *ev);
/* Index of the op row of the event, or -1. */
long app_op_row(const struct app *a, const struct xt_plane *p, const struct xt_line *l,
		const struct xt_event *ev);

#endif
