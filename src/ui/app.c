/*
 * app: the viewer's loop (see app.h). One place draws: app_render() repaints
 * the whole screen when a handler asked for it, then doupdate() once.
 * Loading runs in a thread while the screen shows progress, so a large file
 * never leaves the user looking at a frozen terminal.
 */
#include "app.h"

#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/load.h"
#include "../model/xplane_writer.h"
#include "../model/stats.h"
#include "../util/strbuf.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "capture_ui.h"
#include "loading.h"
#include "term.h"

static const struct view *const views[VIEW_COUNT] = {
	[VIEW_TIMELINE] = &view_timeline,
	[VIEW_OPS] = &view_ops,
	[VIEW_STEPS] = &view_steps,
	[VIEW_MEMORY] = &view_memory,
};

void app_status(struct app *a, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	a->status_err = err;
}

int ui_put(int y, int x, int w, int attr, const char *s, int pad)
{
	int col = 0;

	if (w <= 0 || y < 0 || y >= LINES)
		return 0;
	attron(attr);
	move(y, x);
	while (*s && col < w) {
		unsigned char c = (unsigned char)*s;
		int len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		int k;

		for (k = 1; k < len; k++)
			if (!s[k] || ((unsigned char)s[k] & 0xc0) != 0x80)
				len = 1;
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && len == 1) || (term.ascii && c >= 0x80))
			addch('?'); /* control or broken bytes never reach the tty */
		else
			addnstr(s, len);
		s += len;
		col++;
	}
	for (; pad && col < w; col++)
		addch(' ');
	attroff(attr);
	return col;
}

void app_goto(struct app *a, int64_t t0, int64_t t1, long track, int64_t ev)
{
	if (t1 <= t0)
		t1 = t0 + 1;
	a->tls.v0 = t0;
	a->tls.v1 = t1;
	if (track >= 0) {
		a->tls.cur = track;
		a->tls.sel_track = track;
		a->tls.sel_ev = ev;
		a->tls.folded[track] = 0;
	}
	a->view = VIEW_TIMELINE;
}

long app_op_row(const struct app *a, const struct xt_plane *p, const struct xt_line *l,
		const struct xt_event *ev)
{
	char buf[512];
	size_t h, i;

	for (h = 0; h < a->t->nhosts; h++) {
		const struct xt_host *host = &a->t->hosts[h];

		if (p < host->planes || p >= host->planes + host->nplanes)
			continue;
		analysis_op_name(a->an, a->t, h, p, l, ev, buf, sizeof(buf));
		for (i = 0; i < a->an->nops; i++)
			if (!strcmp(a->an->ops[i].name, buf))
				return (long)i;
		break;
	}
	return -1;
}

/* ---- status, hints, help ---- */

static void draw_status(struct app *a)
{
	char line[512], b1[32], b2[32];
	const char *base = strrchr(a->path, '/');

	if (a->load) {
		loading_status(a, line, sizeof(line));
		ui_put(0, 0, a->cols, term_attr(ROLE_TITLE), line, 1);
		return;
	}
	snprintf(line, sizeof(line), " xtop  %s  [%s]  %s events  %zu host%s  busy %s", base ? base + 1 : a->path,
		 views[a->view]->name, fmt_count(b1, sizeof(b1), a->t->nev), a->t->nhosts,
		 a->t->nhosts == 1 ? "" : "s", fmt_ps(b2, sizeof(b2), a->an->busy_ps));
	ui_put(0, 0, a->cols, term_attr(ROLE_TITLE), line, 1);
}

static void draw_hints(struct app *a)
{
	int y = a->rows - 1, x = 0;
	unsigned i, scope = views[a->view]->scope;

	move(y, 0);
	clrtoeol();
	if (a->prompt) {
		char line[256];

		snprintf(line, sizeof(line), "%s%s", a->prompt == '/' ? "search: " : "filter: ",
			 a->pbuf);
		ui_put(y, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
		curs_set(1);
		move(y, (int)strlen(line) < a->cols ? (int)strlen(line) : a->cols - 1);
		return;
	}
	curs_set(0);
	if (a->status[0]) {
		ui_put(y, 0, a->cols, term_attr(a->status_err ? ROLE_ERROR : ROLE_TEXT), a->status,
		       1);
		return;
	}
	for (i = 0; i < key_nbindings && x < a->cols; i++) {
		const struct key_binding *k = &key_bindings[i];

		if (!k->hint || !(k->scope & scope))
			continue;
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT_KEY), k->keyname, 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), " ", 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), k->hint, 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), "  ", 0);
	}
}

/* The help screen is generated from the key table, in two columns when one
 * does not fit. */
static void draw_help(struct app *a)
{
	static const char *const scopes[] = { "everywhere", "timeline", "op profile",
					      "op profile, steps, memory" };
	static const unsigned masks[] = { SCOPE_ALL, SCOPE_TIMELINE, SCOPE_OPS,
					  SCOPE_OPS | SCOPE_STEPS | SCOPE_MEMORY };
	char lines[128][160];
	int kinds[128];
	int n = 0, s, k, h = a->rows - 3, ncol, cw;
	unsigned i;

	for (s = 0; s < 4; s++) {
		int shown = 0;

		for (i = 0; i < key_nbindings && n < 127; i++) {
			const struct key_binding *kb = &key_bindings[i];

			if (!kb->help || kb->scope != masks[s])
				continue;
			if (!shown++) {
				snprintf(lines[n], sizeof(lines[n]), "%s", scopes[s]);
				kinds[n++] = 1;
			}
			snprintf(lines[n], sizeof(lines[n]), "  %-7s %s", kb->keyname, kb->help);
			kinds[n++] = 0;
		}
	}
	ui_put(1, 0, a->cols, term_attr(ROLE_HEADER), " xtop keys (? or Esc closes)", 1);
	ncol = h > 0 && n > h ? 2 : 1;
	cw = a->cols / ncol;
	for (k = 0; k < n && h > 0; k++) {
		int col = k / h, row = k % h;

		if (col >= ncol)
			break;
		ui_put(2 + row, col * cw, cw - 1, term_attr(kinds[k] ? ROLE_DIM : ROLE_TEXT), lines[k], 1);
	}
}

static void app_render(struct app *a)
{
	getmaxyx(stdscr, a->rows, a->cols);
	erase();
	draw_status(a);
	if (a->help)
		draw_help(a);
	else if (a->rows > 3)
		views[a->view]->draw(a, 1, a->rows - 2);
	draw_hints(a);
	refresh();
}

/* ---- search and prompt ---- */

static void search_select(struct app *a, long k)
{
	const struct search_match *m;
	int64_t w = a->tls.v1 - a->tls.v0, s, e;
	const struct xt_line *l;

	if (k < 0 || !a->search || (size_t)k >= a->search->n)
		return;
	a->match = k;
	m = &a->search->m[k];
	l = a->tl->tracks[m->track].l;
	s = xt_event_start(l, &l->ev[m->ev]);
	e = s + xt_event_dur(l, &l->ev[m->ev]);
	/* Keep the zoom when the match fits; otherwise fit it. */
	if (e - s > w || w <= 0)
		app_goto(a, s - (e - s) / 10, e + (e - s) / 10 + 1, (long)m->track, m->ev);
	else
		app_goto(a, s - w / 3, s - w / 3 + w, (long)m->track, m->ev);
	app_status(a, 0, "match %ld of %zu for '%s'%s", k + 1, a->search->n, a->query,
		   a->search->limit_hit ? " (list capped)" : "");
}

static void search_step(struct app *a, int dir)
{
	int64_t t = a->tls.v0;
	uint32_t track = 0;

	if (!a->search || !a->search->n) {
		app_status(a, 1, a->query[0] ? "no match for '%s'" : "no search (press /)%s",
			   a->query);
		return;
	}
	if (a->tls.sel_track >= 0 && a->tls.sel_ev >= 0) {
		const struct xt_line *l = a->tl->tracks[a->tls.sel_track].l;

		t = xt_event_start(l, &l->ev[a->tls.sel_ev]);
		track = (uint32_t)a->tls.sel_track;
	}
	search_select(a, search_next(a->search, t, track, dir));
}

static unsigned prompt_key(struct app *a, int c)
{
	if (c == 27) {
		a->prompt = 0;
		return UI_REDRAW;
	}
	if (c == '\n' || c == '\r' || c == KEY_ENTER) {
		int kind = a->prompt;

		a->prompt = 0;
		if (kind == '/') {
			snprintf(a->query, sizeof(a->query), "%s", a->pbuf);
			search_free(a->search);
			a->search = search_run(a->tl, a->query);
			a->match = -1;
			if (!a->search->n) {
				app_status(a, 1, "no event matches '%s' in the whole profile", a->query);
				return UI_REDRAW;
			}
			/* The first match in time; the zoom is kept when it fits. */
			search_select(a, 0);
		} else {
			snprintf(a->ops.filter, sizeof(a->ops.filter), "%s", a->pbuf);
			a->ops.sel = a->ops.top = 0;
			app_status(a, 0, a->pbuf[0] ? "filter: %s" : "filter cleared%s", a->pbuf);
		}
		return UI_REDRAW;
	}
	if (c == KEY_BACKSPACE || c == 127 || c == 8) {
		if (a->plen)
			a->pbuf[--a->plen] = '\0';
		return UI_REDRAW;
	}
	if (c >= 0x20 && c < 0x7f && a->plen + 1 < sizeof(a->pbuf)) {
		a->pbuf[a->plen++] = (char)c;
		a->pbuf[a->plen] = '\0';
	}
	return UI_REDRAW;
}

/* ---- dispatch ---- */

static unsigned app_capture_key(struct app *a, enum action act);

static unsigned app_key(struct app *a, int c)
{
	enum action act;
	unsigned r;

	if (a->prompt)
		return prompt_key(a, c);
	if (c == KEY_RESIZE)
		return UI_REDRAW;
	a->status[0] = '\0';
	act = keymap_lookup(c, views[a->view]->scope);
	if (c == KEY_MOUSE) {
		MEVENT me;

		if (getmouse(&me) != OK)
			return 0;
		if (me.bstate & BUTTON4_PRESSED)
			act = a->view == VIEW_TIMELINE ? ACT_ZOOM_IN : ACT_UP;
		else if (me.bstate & BUTTON5_PRESSED)
			act = a->view == VIEW_TIMELINE ? ACT_ZOOM_OUT : ACT_DOWN;
		else
			return 0;
	}
	if (a->help && act != ACT_QUIT) {
		a->help = 0;
		return UI_REDRAW;
	}
	switch (act) {
	case ACT_QUIT:
		return UI_QUIT;
	case ACT_HELP:
		a->help = 1;
		return UI_REDRAW;
	case ACT_VIEW_NEXT:
	case ACT_VIEW_PREV:
		a->view = (enum view_id)((a->view + (act == ACT_VIEW_NEXT ? 1 : VIEW_COUNT - 1)) %
					 VIEW_COUNT);
		return UI_REDRAW;
	case ACT_VIEW_TIMELINE:
	case ACT_VIEW_OPS:
	case ACT_VIEW_STEPS:
	case ACT_VIEW_MEMORY:
		a->view = (enum view_id)(act - ACT_VIEW_TIMELINE);
		return UI_REDRAW;
	case ACT_SEARCH:
	case ACT_FILTER:
		a->prompt = act == ACT_SEARCH ? '/' : '\\';
		snprintf(a->pbuf, sizeof(a->pbuf), "%s", act == ACT_SEARCH ? a->query : a->ops.filter);
		a->plen = strlen(a->pbuf);
		return UI_REDRAW;
	case ACT_MATCH_NEXT:
	case ACT_MATCH_PREV:
		search_step(a, act == ACT_MATCH_NEXT ? 1 : -1);
		return UI_REDRAW;
	case ACT_CAPTURE:
	case ACT_SAVE:
	case ACT_PROF_PREV:
	case ACT_PROF_NEXT:
		return app_capture_key(a, act);
	default:
		break;
	}
	r = views[a->view]->act(a, act);
	if (!r && act == ACT_ESCAPE && a->search) {
		search_free(a->search);
		a->search = NULL;
		a->query[0] = '\0';
		app_status(a, 0, "search cleared");
		return UI_REDRAW;
	}
	return r ? r : UI_REDRAW;
}

/* Makes profs[k] the current profile, with a fresh view of it. */
static void app_use(struct app *a, size_t k)
{
	struct prof *p = &a->profs[k];

	a->cur = k;
	a->t = p->t;
	a->an = p->an;
	a->tl = p->tl;
	a->path = p->path;
	a->tls.folded = p->folded;
	a->tls.v0 = a->tl->t0;
	a->tls.v1 = a->tl->t1;
	a->tls.sel_track = -1;
	a->tls.sel_ev = -1;
	a->tls.cur = 0;
	a->tls.cur_header = 0;
	a->tls.top = 0;
	a->ops.sel = a->ops.top = 0;
	a->steps.sel = a->steps.top = 0;
	a->mem.sel = a->mem.top = 0;
	search_free(a->search);
	a->search = NULL;
	a->match = -1;
}

void app_add(struct app *a, struct xt_trace *t, struct xt_analysis *an, const char *path)
{
	struct prof *p;

	a->profs = xreallocarray(a->profs, a->nprofs + 1, sizeof(*a->profs));
	p = &a->profs[a->nprofs++];
	p->t = t;
	p->an = an;
	p->tl = timeline_new(t);
	p->folded = xcalloc(p->tl->ntracks ? p->tl->ntracks : 1, 1);
	p->path = xstrdup(path);
	app_use(a, a->nprofs - 1);
}

/* An empty profile, so the viewer can start attached before any capture. */
static void app_add_empty(struct app *a, const char *label)
{
	struct xt_trace *t = trace_new();
	struct analysis_ctx *ac = analysis_new();

	app_add(a, t, analysis_finish(ac, t), label);
}

static unsigned app_capture_key(struct app *a, enum action act)
{
	switch (act) {
	case ACT_CAPTURE:
		if (!a->cap) {
			app_status(a, 1, "not attached: start xtop with --attach HOST:PORT or PID");
		} else if (a->cap->running) {
			cap_ui_stop(a->cap);
			app_status(a, 0, "stopping the capture early (the data is still saved)");
		} else if (cap_ui_start(a->cap) < 0) {
			app_status(a, 1, "cannot start a capture");
		}
		return UI_REDRAW;
	case ACT_SAVE: {
		char run[4096];
		struct xt_error err;
		struct xplane_write_opts wo = { NULL, 0, 0 };

		if (!a->t->nhosts) {
			app_status(a, 1, "nothing to save yet");
		} else if (xplane_save_run(a->t, a->logdir, &wo, run, sizeof(run), &err) < 0) {
			app_status(a, 1, "not saved: %s", err.msg);
		} else {
			app_status(a, 0, "saved in %s", run);
		}
		return UI_REDRAW;
	}
	case ACT_PROF_PREV:
	case ACT_PROF_NEXT:
		if (a->nprofs < 2) {
			app_status(a, 1, "only one profile is open");
			return UI_REDRAW;
		}
		app_use(a, (a->cur + (act == ACT_PROF_NEXT ? 1 : a->nprofs - 1)) % a->nprofs);
		app_status(a, 0, "profile %zu of %zu: %s", a->cur + 1, a->nprofs, a->path);
		return UI_REDRAW;
	default:
		return 0;
	}
}

/* Waits for a key or the capture worker; returns a key, or ERR. */
static int app_wait(struct app *a)
{
	struct pollfd pf[2];
	int n = 1, c;

	c = getch(); /* keys curses already buffered */
	if (c != ERR)
		return c;
	pf[0].fd = STDIN_FILENO;
	pf[0].events = POLLIN;
	if (a->cap) {
		pf[1].fd = a->cap->wake[0];
		pf[1].events = POLLIN;
		n = 2;
	}
	/* While capturing, wake every 250 ms to show the elapsed time; while
	 * loading, every 100 ms to show what has arrived. */
	if (poll(pf, (nfds_t)n, a->load ? 100 : a->cap && a->cap->running ? 250 : -1) < 0)
		return ERR;
	return getch();
}

int app_main(const struct app_opts *o)
{
	struct app a;
	struct cap_ui cap;
	int rc = 0;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.match = -1;
	a.logdir = o->logdir;
	if (o->attach) {
		struct capture_opts co = { o->duration_ms, 2, 1, 0, o->logdir, 0, 0 };
		struct xt_error err;

		/* Resolve the target before touching the terminal: a bad PID is a
		 * one-line error, not a screen. */
		if (cap_ui_init(&cap, o->attach, &co, &err) < 0) {
			fprintf(stderr, "xtop: %s\n", err.msg);
			return 2;
		}
		a.cap = &cap;
	}
	if (term_init(o->ascii) < 0) {
		if (a.cap)
			cap_ui_fini(a.cap);
		return 2;
	}
	if (o->path) {
		loading_start(&a, o->path, o->run);
	} else {
		char label[300];

		snprintf(label, sizeof(label), "attached to %s", a.cap->target);
		app_add_empty(&a, label);
		app_status(&a, 0, "attached to %s (%s): c captures %.1f s, ? for help", a.cap->target,
			   a.cap->addrs[0], (double)o->duration_ms / 1000.0);
	}
	nodelay(stdscr, TRUE);
	for (;;) {
		unsigned r;
		int c;

		if (a.cap && a.cap->running && !a.prompt)
			app_status(&a, 0, "capturing from %s: %.1f s of %.1f s (c stops early)",
				   a.cap->target, cap_ui_elapsed(a.cap),
				   (double)a.cap->opts.duration_ms / 1000.0);
		if (a.cap && cap_ui_collect(a.cap)) {
			app_add(&a, a.cap->t, a.cap->an, a.cap->res.run_dir);
			a.cap->t = NULL;
			a.cap->an = NULL;
			app_status(&a, 0, "%s ([ and ] switch profiles)", a.cap->summary);
			a.cap->summary[0] = '\0';
		} else if (a.cap && a.cap->summary[0] && !a.cap->running) {
			app_status(&a, 1, "%s", a.cap->summary);
			a.cap->summary[0] = '\0';
		}
		if ((rc = loading_turn(&a)) != 0)
			break; /* the load failed (and said why) */
		app_render(&a);
		loading_drawn(&a);
		c = app_wait(&a);
		if (c == ERR)
			continue;
		loading_lock(&a);
		r = app_key(&a, c);
		loading_unlock(&a);
		if (r & UI_QUIT)
			break;
	}
	loading_stop(&a); /* quit while loading */
	term_fini();
	if (a.cap)
		cap_ui_fini(a.cap);
	search_free(a.search);
	for (i = 0; i < a.ops.nfold; i++)
		free(a.ops.folds[i]);
	free(a.ops.folds);
	for (i = 0; i < a.nprofs; i++) {
		free(a.profs[i].folded);
		free(a.profs[i].path);
		timeline_free(a.profs[i].tl);
		analysis_free(a.profs[i].an);
		trace_free(a.profs[i].t);
	}
	free(a.profs);
	return rc;
}
