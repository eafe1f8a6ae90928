/* top: see top.h. */
#include "top.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../capture/watch.h"
#include "../model/rolling.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "app.h"
#include "keymap.h"
#include "loop.h"
#include "panel.h"
#include "prompt.h"
#include "reaction.h"
#include "term.h"
#include "textview.h"
#include "top_viewer.h"

/* How often the status line's clocks move (a capture's progress, the time
 * to the next one); a tick draws only when the line changed. */
#define TOP_TICK_MS 250

#define S 1u /* top's one scope */

static const struct key_binding top_keys[] = {
	{ 'q', S, ACT_QUIT, "q", "quit", "Quit" },
	{ '?', S, ACT_HELP, "?", "show or hide this help", "Help" },
	{ KEY_F(1), S, ACT_HELP, "F1", NULL, NULL },
	{ 'p', S, ACT_PAUSE, "p", "pause or resume the captures (the table stays as it is)", "Pause" },
	{ ' ', S, ACT_PAUSE, "Space", "pause or resume, as p", NULL },
	{ 'c', S, ACT_CAPTURE, "c", "capture now; the schedule goes on from there", NULL },
	{ 'x', S, ACT_SAVE, "x", "save the newest capture in the logdir (TensorBoard's layout)", "Save" },
	{ '\n', S, ACT_ENTER, "Enter",
	  "open the newest capture in the full viewer; quitting it comes back here", "Viewer" },
	{ KEY_ENTER, S, ACT_ENTER, "Enter", NULL, NULL },
	{ '\r', S, ACT_ENTER, "Enter", NULL, NULL },
	{ 'v', S, ACT_ENTER, "v", "open the newest capture in the viewer, as Enter", NULL },
	{ '>', S, ACT_SORT_NEXT, ">", "sort by the next column", "Sort" },
	{ '<', S, ACT_SORT_PREV, "<", "sort by the previous column", NULL },
	{ '\\', S, ACT_FILTER, "\\", "show only the ops whose text has a string (any case)", "Filter" },
	{ KEY_F(4), S, ACT_FILTER, "F4", NULL, NULL },
	{ 27, S, ACT_ESCAPE, "Esc", "close the help, or clear the filter", NULL },
	{ KEY_UP, S, ACT_UP, "Up", "move up (also k)", NULL },
	{ 'k', S, ACT_UP, "k", NULL, NULL },
	{ KEY_DOWN, S, ACT_DOWN, "Down", "move down (also j)", NULL },
	{ 'j', S, ACT_DOWN, "j", NULL, NULL },
	{ KEY_PPAGE, S, ACT_PAGE_UP, "PgUp", "page up", NULL },
	{ KEY_NPAGE, S, ACT_PAGE_DOWN, "PgDn", "page down", NULL },
	{ KEY_HOME, S, ACT_HOME, "Home", "first row (also g)", NULL },
	{ 'g', S, ACT_HOME, "g", NULL, NULL },
	{ KEY_END, S, ACT_END, "End", "last row (also G)", NULL },
	{ 'G', S, ACT_END, "G", NULL, NULL },
};
#define TOP_NKEYS (sizeof(top_keys) / sizeof(top_keys[0]))

struct top_ui {
	struct watch *w;
	const struct top_opts *o;
	struct loop l;
	long sched, tick;           /* timers: the next capture, the status clocks */
	struct panel panel;         /* the op table */
	struct panel_column cols[ROLLING_NCOLS];
	struct textview help;
	int help_open;
	struct prompt prompt;       /* the filter */
	char note[1024];            /* what the last key did (the bottom line) */
	int note_err;
	char shown[1024];           /* the status line as last drawn */
	int rc;
	char refused[1024];         /* why the targets refused the first capture */
};

static enum action top_lookup(int key)
{
	size_t i;

	for (i = 0; i < TOP_NKEYS; i++)
		if (top_keys[i].key == key)
			return top_keys[i].action;
	return ACT_NONE;
}

static void note(struct top_ui *u, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct top_ui *u, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->note, sizeof(u->note), fmt, ap);
	va_end(ap);
	u->note_err = err;
}

static void clock_text(char *buf, size_t n, uint64_t wall_ns)
{
	time_t s = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	localtime_r(&s, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

/* ---- the table (a panel over the aggregate) ---- */

static size_t t_count(void *ctx, int width)
{
	(void)width;
	return ((struct top_ui *)ctx)->w->roll->nops;
}

static void t_key(void *ctx, size_t row, char *buf, size_t n)
{
	rolling_key(((struct top_ui *)ctx)->w->roll, row, buf, n);
}

/* The panel's columns call the model's with the aggregate as their ctx:
 * one wrapper per column, made from the one table. */
#define COL(k)                                                                                     \
	static void text_##k(void *ctx, size_t row, char *buf, size_t n)                          \
	{                                                                                          \
		rolling_columns[k].text(((struct top_ui *)ctx)->w->roll, row, buf, n);             \
	}                                                                                          \
	static int cmp_##k(void *ctx, size_t a, size_t b)                                          \
	{                                                                                          \
		return rolling_columns[k].cmp(((struct top_ui *)ctx)->w->roll, a, b);              \
	}
COL(0)
COL(1)
COL(2)
COL(3)
COL(4)
COL(5)
COL(6)
COL(7)
COL(8)
static void (*const col_text[ROLLING_NCOLS])(void *, size_t, char *, size_t) = {
	text_0, text_1, text_2, text_3, text_4, text_5, text_6, text_7, text_8,
};
static int (*const col_cmp[ROLLING_NCOLS])(void *, size_t, size_t) = {
	cmp_0, cmp_1, cmp_2, cmp_3, cmp_4, cmp_5, cmp_6, cmp_7, cmp_8,
};
_Static_assert(ROLLING_NCOLS == 9, "one wrapper per rolling column");

static const struct panel_ops table_ops = { .count = t_count, .key = t_key };

static void table_init(struct top_ui *u)
{
	size_t k;

	for (k = 0; k < ROLLING_NCOLS; k++) {
		const struct rolling_column *rc = &rolling_columns[k];

		u->cols[k] = (struct panel_column){ rc->name, rc->width, rc->right, rc->drop,
						    col_text[k], NULL, col_cmp[k], NULL };
	}
	panel_init(&u->panel, &table_ops, u, u->cols, ROLLING_NCOLS);
	u->panel.header = 1;
	u->panel.sort = u->o->sort;
}

/* ---- the help (generated from the key table and the columns) ---- */

static void help_fill(struct top_ui *u)
{
	size_t i;

	textview_clear(&u->help);
	textview_add(&u->help, ROLE_DIM, 0, 0, "keys");
	for (i = 0; i < TOP_NKEYS; i++)
		if (top_keys[i].help)
			textview_add(&u->help, ROLE_TEXT, 0, 10, "  %-7s %s", top_keys[i].keyname,
				     top_keys[i].help);
	textview_add(&u->help, ROLE_DIM, 0, 0, "in the filter prompt");
	for (i = 0; i < prompt_nkeys; i++)
		if (prompt_keys[i].keyname)
			textview_add(&u->help, ROLE_TEXT, 0, 10, "  %-7s %s", prompt_keys[i].keyname,
				     prompt_keys[i].help);
	textview_add(&u->help, ROLE_DIM, 0, 0, "columns (the average is over the last %zu captures)",
		     u->w->roll->window);
	for (i = 0; i < ROLLING_NCOLS; i++)
		textview_add(&u->help, ROLE_TEXT, 0, 10, "  %-7s %s", rolling_columns[i].name,
			     rolling_columns[i].help);
}

/* ---- the schedule ---- */

static void rearm(struct top_ui *u)
{
	int64_t due = watch_due_in(u->w, loop_now(&u->l));

	if (due >= 0)
		loop_timer_set(&u->l, u->sched, (uint64_t)due);
	else
		loop_timer_stop(&u->l, u->sched);
}

static unsigned on_schedule(void *arg, long id)
{
	struct top_ui *u = arg;

	(void)id;
	watch_tick(u->w, loop_now(&u->l));
	rearm(u);
	return UI_REDRAW;
}

static unsigned on_capture(void *arg, int fd, unsigned events)
{
	struct top_ui *u = arg;
	struct watch *w = u->w;

	(void)fd;
	(void)events;
	if (!watch_collect(w, loop_now(&u->l)))
		return 0;
	if (w->refreshes == 1 && w->last_failed && !w->reached) {
		snprintf(u->refused, sizeof(u->refused), "%s", w->msg);
		u->rc = 2;
		return UI_QUIT;
	}
	rearm(u);
	return UI_REDRAW;
}

/* ---- drawing: the one place ---- */

static void status_text(struct top_ui *u, char *buf, size_t n, int *err)
{
	const struct watch *w = u->w;
	uint64_t now = loop_now(&u->l);
	int64_t due = watch_due_in(w, now);
	double run_s = (double)(now - w->started_ms) / 1000.0,
	       dur_s = (double)u->o->duration_ms / 1000.0;
	char when[16], next[64], busy[32];

	*err = 0;
	if (watch_running(w) && run_s <= dur_s)
		snprintf(next, sizeof(next), "capturing %.1f of %.1f s", run_s, dur_s);
	else if (watch_running(w)) /* recorded; the server has not answered yet */
		snprintf(next, sizeof(next), "waiting %.1f s for the %.1f s capture", run_s, dur_s);
	else if (w->paused)
		snprintf(next, sizeof(next), "paused (p resumes)");
	else
		snprintf(next, sizeof(next), "next in %lld s", (long long)((due + 999) / 1000));
	if (!w->refreshes) {
		snprintf(buf, n, "first capture from %s: %s", u->o->target, next);
		return;
	}
	clock_text(when, sizeof(when), w->wall_ns);
	if (w->last_failed) {
		*err = 1;
		if (watch_running(w))
			snprintf(buf, n, "capture failed at %s, retrying (%.1f s): %.900s", when, run_s,
				 w->msg);
		else if (w->paused)
			snprintf(buf, n, "capture failed at %s, paused: %.900s", when, w->msg);
		else
			snprintf(buf, n, "capture failed at %s, retry in %lld s: %.900s", when,
				 (long long)((due + 999) / 1000), w->msg);
		return;
	}
	fmt_ps(busy, sizeof(busy), w->ok_busy_ps);
	snprintf(buf, n, "%s took %.2f s, busy %s, %zu ops, avg of %zu/%zu; %s%s%.800s", when,
		 (double)w->ok_took_ms / 1000.0, busy, w->roll->nops, w->roll->n, w->roll->window, next,
		 w->msg[0] ? "; warning: " : "", w->msg);
	*err = w->msg[0] != '\0';
}

static unsigned on_tick(void *arg, long id)
{
	struct top_ui *u = arg;
	char line[1024];
	int err;

	(void)id;
	status_text(u, line, sizeof(line), &err);
	return strcmp(line, u->shown) ? UI_REDRAW : 0;
}

static void draw_bottom(struct top_ui *u, int y, int cols)
{
	int x = 0;
	size_t i;

	if (u->prompt.kind) {
		ui_put_prompt(y, cols, &u->prompt);
		return;
	}
	curs_set(0);
	if (u->note[0]) {
		ui_put(y, 0, cols, term_attr(u->note_err ? ROLE_ERROR : ROLE_TEXT), u->note, 1);
		return;
	}
	for (i = 0; i < TOP_NKEYS && x < cols; i++) {
		const struct key_binding *k = &top_keys[i];

		if (!k->hint)
			continue;
		x += ui_put(y, x, cols - x, term_attr(ROLE_HINT_KEY), k->keyname, 0);
		x += ui_put(y, x, cols - x, term_attr(ROLE_HINT), " ", 0);
		x += ui_put(y, x, cols - x, term_attr(ROLE_HINT), k->hint, 0);
		x += ui_put(y, x, cols - x, term_attr(ROLE_HINT), "  ", 0);
	}
}

static void top_draw(void *arg)
{
	struct top_ui *u = arg;
	char line[1024];
	int rows, cols, err, y = 2;

	getmaxyx(stdscr, rows, cols);
	erase();
	snprintf(line, sizeof(line), " xtop top  %s  every %.1f s, %.1f s captures, average of %zu%s",
		 u->o->target, (double)u->o->every_ms / 1000.0, (double)u->o->duration_ms / 1000.0,
		 u->w->roll->window, u->w->paused ? "  [paused]" : "");
	ui_put(0, 0, cols, term_attr(ROLE_TITLE), line, 1);
	status_text(u, u->shown, sizeof(u->shown), &err);
	if (err && utf8_width(u->shown) > cols && rows > 8) {
		/* An error is read whole: broken between words over up to
		 * six rows (fewer on a short screen), the table below them. */
		int most = (rows - 6) / 2 > 6 ? 6 : (rows - 6) / 2 < 2 ? 2 : (rows - 6) / 2;

		y = 1 + ui_put_wrap(1, cols, most, term_attr(ROLE_ERROR), u->shown, 2);
	} else {
		ui_put(1, 0, cols, term_attr(err ? ROLE_ERROR : ROLE_TEXT), u->shown, 1);
	}
	if (rows > y + 1 && u->help_open) {
		ui_put(y, 0, cols, term_attr(ROLE_HEADER),
		       " xtop top keys  (? or Esc closes, Up/Down/PgUp/PgDn scroll)", 1);
		ui_panel(textview_panel(&u->help), y + 1, 0, rows - y - 2, cols);
	} else if (rows > y + 1) {
		ui_panel(&u->panel, y, 0, rows - y - 1, cols);
		if (!u->w->roll->nops)
			ui_put(y + 1, 1, cols - 1, term_attr(ROLE_DIM),
			       u->w->refreshes ? "no device ops in the captures kept"
					       : "waiting for the first capture", 0);
		else if (!u->panel.norder)
			ui_put(y + 1, 1, cols - 1, term_attr(ROLE_DIM),
			       "no op matches the filter (Esc clears it)", 0);
	}
	draw_bottom(u, rows - 1, cols);
	refresh();
}

/* ---- keys ---- */

static unsigned act_save(struct top_ui *u)
{
	struct xt_error err;
	int rc = watch_save(u->w, u->o->logdir, &err);

	if (rc < 0)
		note(u, 1, "not saved: %s", err.msg);
	else if (rc == 1)
		note(u, 0, "already saved in %s", u->w->saved);
	else
		note(u, 0, "saved in %s", u->w->saved);
	return UI_REDRAW;
}

static unsigned act_viewer(struct top_ui *u)
{
	char why[1024];
	int rc;

	if (!u->w->t) {
		note(u, 1, "nothing captured yet");
		return UI_REDRAW;
	}
	rc = top_viewer_open(u->w, u->o->logdir, u->o->ascii, why, sizeof(why));
	/* The screen is redrawn from scratch: the viewer used all of it. */
	clearok(curscr, TRUE);
	if (rc < 0)
		note(u, 1, "%s", why);
	else
		note(u, 0, "back from the viewer");
	/* Captures due while the viewer was open start now. */
	watch_tick(u->w, loop_now(&u->l));
	rearm(u);
	return UI_REDRAW;
}

static unsigned top_act(struct top_ui *u, enum action act)
{
	struct watch *w = u->w;
	uint64_t now = loop_now(&u->l);

	switch (act) {
	case ACT_QUIT:
		return UI_QUIT;
	case ACT_HELP:
		u->help_open = 1;
		help_fill(u);
		return UI_REDRAW;
	case ACT_PAUSE:
		watch_pause(w, !w->paused, now);
		if (w->paused)
			note(u, 0, "paused: no more captures until p%s",
			     watch_running(w) ? " (the running one still finishes)" : "");
		else
			note(u, 0, "resumed");
		watch_tick(w, now);
		rearm(u);
		return UI_REDRAW;
	case ACT_CAPTURE:
		if (w->paused)
			watch_pause(w, 0, now);
		watch_capture_now(w, now);
		note(u, 0, watch_running(w) ? "a capture is running; the next starts when it ends"
					    : "capturing now");
		watch_tick(w, now);
		rearm(u);
		return UI_REDRAW;
	case ACT_SAVE:
		return act_save(u);
	case ACT_ENTER:
		return act_viewer(u);
	case ACT_FILTER:
		prompt_open(&u->prompt, PROMPT_FILTER);
		return UI_REDRAW;
	case ACT_ESCAPE:
		if (u->panel.filter[0]) {
			panel_set_filter(&u->panel, "");
			note(u, 0, "filter cleared");
		}
		return UI_REDRAW;
	default:
		return panel_act(&u->panel, act);
	}
}

static unsigned top_key(struct top_ui *u, int c)
{
	enum action act;

	if (u->prompt.kind) {
		if (c != KEY_RESIZE && prompt_key(&u->prompt, c) == PROMPT_DONE) {
			panel_set_filter(&u->panel, u->prompt.buf);
			note(u, 0, u->prompt.buf[0] ? "filter: %s (Esc clears it)" : "filter cleared%s",
			     u->prompt.buf);
		}
		return UI_REDRAW;
	}
	if (c == KEY_RESIZE)
		return UI_REDRAW;
	act = top_lookup(c);
	if (act == ACT_NONE)
		return 0;
	u->note[0] = '\0';
	if (u->help_open) {
		switch (act) {
		case ACT_QUIT:
			return UI_QUIT;
		case ACT_UP:
		case ACT_DOWN:
		case ACT_PAGE_UP:
		case ACT_PAGE_DOWN:
		case ACT_HOME:
		case ACT_END:
			return panel_act(textview_panel(&u->help), act);
		default:
			u->help_open = 0; /* ?, Esc and any other key close it */
			return UI_REDRAW;
		}
	}
	return top_act(u, act) | UI_REDRAW;
}

static unsigned on_input(void *arg, int fd, unsigned events)
{
	struct top_ui *u = arg;
	unsigned r = 0;
	int c;

	(void)fd;
	while (!(r & UI_QUIT) && (c = getch()) != ERR)
		r |= top_key(u, c);
	/* The terminal went away: nothing more to show anyone. */
	if (events & LOOP_HUP)
		r |= UI_QUIT;
	return r;
}

int top_tui(struct watch *w, const struct top_opts *o)
{
	struct top_ui u;
	struct xt_error err;

	memset(&u, 0, sizeof(u));
	u.w = w;
	u.o = o;
	if (loop_init(&u.l, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	if (term_init(o->ascii) < 0) {
		loop_fini(&u.l);
		return 2;
	}
	term_on_signal(capture_scratch_clean_signal);
	nodelay(stdscr, TRUE);
	table_init(&u);
	loop_add_fd(&u.l, STDIN_FILENO, on_input, &u);
	loop_add_fd(&u.l, watch_wake_fd(w), on_capture, &u);
	u.sched = loop_add_timer(&u.l, 0, 0, on_schedule, &u);
	u.tick = loop_add_timer(&u.l, TOP_TICK_MS, TOP_TICK_MS, on_tick, &u);
	loop_set_draw(&u.l, top_draw, &u);
	loop_redraw(&u.l);
	loop_run(&u.l);
	term_fini();
	if (u.refused[0])
		fprintf(stderr, "xtop: %s\n", u.refused);
	panel_fini(&u.panel);
	textview_fini(&u.help);
	prompt_fini(&u.prompt);
	loop_fini(&u.l);
	return u.rc;
}
