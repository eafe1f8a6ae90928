/*
 * app: the viewer on the one event loop (loop.c; see app.h). Handlers (keys,
 * the capture worker's wake pipe, a progress timer) change state and return
 * reaction bits; one place draws: app_draw() takes what the loading thread
 * has decoded, app_render() repaints the whole screen, then doupdate() once.
 * Loading runs in a thread while the screen shows progress, so a large file
 * never leaves the user looking at a frozen terminal, and an idle viewer
 * sleeps in poll() with no timer armed.
 */
#include "app.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../capture/session.h"
#include "../model/clock.h"
#include "../model/load.h"
#include "../model/profile_path.h"
#include "../model/stats.h"
#include "../util/strbuf.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "loading.h"
#include "term.h"

static const struct view *const views[VIEW_COUNT] = {
	[VIEW_OVERVIEW] = &view_overview,
	[VIEW_TIMELINE] = &view_timeline,
	[VIEW_OPS] = &view_ops,
	[VIEW_STEPS] = &view_steps,
	[VIEW_MEMORY] = &view_memory,
	[VIEW_KERNELS] = &view_kernels,
	[VIEW_DEVICES] = &view_devices,
	[VIEW_DIFF] = &view_diff,
};

void app_status(struct app *a, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	a->status_err = err;
	msglog_add(&a->log, err, a->status);
}

void app_progress(struct app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->status, sizeof(a->status), fmt, ap);
	va_end(ap);
	a->status_err = 0;
}

void ui_put_prompt(int y, int cols, const struct prompt *p)
{
	/* The label, then the line scrolled so the cursor shows. */
	const char *label = prompt_label(p);
	int lw = (int)strlen(label), room = cols - lw - 1, cx;
	size_t off = room > 0 && p->cur > (size_t)room ? p->cur - (size_t)room : 0;

	ui_put(y, 0, cols, term_attr(ROLE_TEXT), label, 1);
	/* No end mark (pad 0): the cursor may sit in the last column. */
	ui_put(y, lw, cols - lw, term_attr(ROLE_TEXT), p->buf + off, 0);
	curs_set(1);
	/* The cursor's column: letters, not bytes. */
	cx = lw + utf8_width_n(p->buf + off, p->cur - off);
	move(y, cx < cols ? cx : cols - 1);
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

		if (pad && col == w - 1 && w > 1 && s[utf8_len(s)]) {
			/* More than the cell holds: its last column says so (a
			 * line cut at "peak 20.02 GiB at 72." read as a figure). */
			addstr(term.g.ellipsis);
			col++;
			s += strlen(s);
			break;
		}
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

int ui_put_wrap(int y, int w, int rows, int attr, const char *s, int indent)
{
	int used = 0;

	while (used < rows && *s) {
		int x = used ? indent : 0, room = w - x, col = 0, brk_col = 0;
		const char *p = s, *brk = NULL;

		if (room <= 1)
			break;
		/* Break at a space, never between a figure and its unit. */
		while (*p && col < room) {
			if (*p == ' ' && p > s && !fmt_is_unit(p + 1)) {
				brk = p;
				brk_col = col;
			}
			p += utf8_len(p);
			col++;
		}
		if (!*p || used == rows - 1) {
			/* The rest fits, or this is the last row: cut with a mark. */
			if (*p) {
				ui_put(y + used, x, room - 1, attr, s, 0);
				ui_put(y + used, w - 1, 1, attr, term.g.ellipsis, 0);
			} else {
				ui_put(y + used, x, room, attr, s, 1);
			}
			used++;
			break;
		}
		if (*p == ' ' && !fmt_is_unit(p + 1)) {
			brk = p; /* the row ends exactly at a word's end */
			brk_col = col;
		}
		if (!brk) {
			brk = p; /* one word wider than the row: cut it there */
			brk_col = col;
		}
		/* The piece is drawn by its columns: ui_put stops there. */
		ui_put(y + used, x, brk_col, attr, s, 0);
		ui_put(y + used, x + brk_col, room - brk_col, attr, "", 1);
		used++;
		for (s = brk; *s == ' '; s++)
			;
	}
	return used;
}

void ui_host_label(const struct app *a, const char *h, char *buf, size_t n)
{
	size_t i, k, common = strlen(h);

	for (i = 0; i < a->t->nhosts && common; i++) {
		const char *o = a->t->hosts[i].name;

		for (k = 0; k < common && o[k] == h[k]; k++)
			;
		common = k;
	}
	while (common && !strchr("./-_:", h[common - 1]))
		common--;
	if (a->t->nhosts < 2 || !common || !h[common])
		snprintf(buf, n, "%s", h);
	else
		snprintf(buf, n, "%s%s", term.g.ellipsis, h + common);
}

static void emit_cells(void *arg, int i, const struct cellrow *r)
{
	const int *at = arg;

	term_put_cells(at[0] + i, at[1], r);
}

unsigned ui_list_act(struct app *a, struct panel *p, enum action act)
{
	if (act == ACT_ESCAPE && p->filter[0]) {
		panel_set_filter(p, "");
		app_status(a, 0, "filter cleared");
		return UI_REDRAW;
	}
	return panel_act(p, act);
}

void ui_panel(struct panel *p, int y, int x, int h, int w)
{
	int at[2] = { y, x };

	p->mark = term.g.ellipsis;
	p->up = term.g.peak;
	p->open = term.g.fold_open;
	p->closed = term.g.fold_closed;
	panel_render(p, h, w, emit_cells, at);
}

/* ---- status, hints, help ---- */

/* The title: the file name gives way first (its middle elided, down to 16
 * columns), then whole figures from the right, so a figure is shown with
 * its unit or not at all. The view's name counts at the longest view
 * name's width, so the title reads the same in every view (the TPU's name
 * lost ".xplane.pb" in some views and not in others). */
static void title_line(const struct app *a, char *line, size_t n)
{
	char parts[4][96], name[256], b1[32], b2[32], shown[256];
	const char *name0 = profile_show_name(a->path, shown, sizeof(shown));
	int keep, room, want = utf8_width(name0) < 16 ? utf8_width(name0) : 16, k, used;
	int vw = 0, pw[4];
	size_t v;

	for (v = 0; v < VIEW_COUNT; v++)
		if (utf8_width(views[v]->name) + 4 > vw)
			vw = utf8_width(views[v]->name) + 4;
	snprintf(parts[0], sizeof(parts[0]), "  [%s]", views[a->view]->name);
	snprintf(parts[1], sizeof(parts[1]), "  %s events", fmt_count(b1, sizeof(b1), a->t->nev));
	snprintf(parts[2], sizeof(parts[2]), "  %zu host%s", a->t->nhosts,
		 a->t->nhosts == 1 ? "" : "s");
	snprintf(parts[3], sizeof(parts[3]), "  busy %s",
		 analysis_has_device_time(a->an) ? fmt_ps(b2, sizeof(b2), a->an->busy_ps) : "-");
	for (k = 0; k < 4; k++)
		pw[k] = k ? utf8_width(parts[k]) : vw;
	for (keep = 4; keep > 1; keep--) {
		for (used = 7 + want, k = 0; k < keep; k++)
			used += pw[k];
		if (used <= a->cols)
			break;
	}
	for (room = a->cols - 7, k = 0; k < keep; k++)
		room -= pw[k];
	/* Every profile's file ends ".xplane.pb[.gz]": where the name must
	 * give way, that goes first ("jax-h10…cb.xplane.pb.gz" read alike for
	 * the -cb and -nocb twins). */
	if (utf8_width(name0) > room) {
		static const char *const sufs[] = { ".xplane.pb.gz", ".xplane.pb" };
		size_t l = strlen(name0), i;

		for (i = 0; i < 2; i++)
			if (l > strlen(sufs[i]) && !strcmp(name0 + l - strlen(sufs[i]), sufs[i])) {
				shown[l - strlen(sufs[i])] = '\0';
				break;
			}
	}
	utf8_elide(name, sizeof(name), name0, room > 1 ? room : 1, term.g.ellipsis);
	snprintf(line, n, " xtop  %s", name);
	for (k = 0; k < keep; k++)
		strncat(line, parts[k], n - strlen(line) - 1);
}

static void draw_status(struct app *a)
{
	char line[512];

	if (a->load)
		loading_status(a, line, sizeof(line));
	else
		title_line(a, line, sizeof(line));
	ui_put(0, 0, a->cols, term_attr(ROLE_TITLE), line, 1);
}

static void draw_hints(struct app *a)
{
	int y = a->rows - 1, x = 0;
	unsigned i, scope = views[a->view]->scope;

	move(y, 0);
	clrtoeol();
	if (a->prompt.kind) {
		ui_put_prompt(y, a->cols, &a->prompt);
		return;
	}
	curs_set(0);
	if (a->status[0]) {
		int role = a->status_err ? ROLE_ERROR : ROLE_TEXT;

		if (utf8_width(a->status) <= a->cols) {
			ui_put(y, 0, a->cols, term_attr(role), a->status, 1);
			return;
		}
		/* Cut: say where the rest is (m lists messages in full). */
		x = ui_put(y, 0, a->cols - 8, term_attr(role), a->status, 0);
		x += ui_put(y, x, 2, term_attr(role), term.g.ellipsis, 0);
		x += ui_put(y, x, 1, term_attr(ROLE_HINT), " ", 0);
		x += ui_put(y, x, 1, term_attr(ROLE_HINT_KEY), "m", 0);
		ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), " more", 1);
		return;
	}
	for (i = 0; i < key_nbindings && x < a->cols; i++) {
		const struct key_binding *k = &key_bindings[i];

		if (!k->hint || !(k->scope & scope))
			continue;
		/* Whole entries only: "p Gro" said nothing. */
		if (x + utf8_width(k->keyname) + 1 + utf8_width(k->hint) > a->cols)
			break;
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT_KEY), k->keyname, 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), " ", 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), k->hint, 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HINT), "  ", 0);
	}
}

const char *app_view_name(enum view_id v)
{
	return views[v]->name;
}

/* A view whose analyses are still to come: what it will show, and where
 * to look meanwhile (the status line has the progress). */
static void draw_pending(struct app *a, int y, int h)
{
	const char *key = keymap_key_for(ACT_VIEW_TIMELINE);
	char line[256];

	if (h < 3)
		return;
	snprintf(line, sizeof(line), "  The %s comes when the profile is read.",
		 views[a->view]->name);
	ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
	if (key) {
		snprintf(line, sizeof(line), "  %s shows its timeline meanwhile, the lines as they come.",
			 key);
		ui_put(y + 2, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	}
}

static void app_render(struct app *a)
{
	getmaxyx(stdscr, a->rows, a->cols);
	erase();
	draw_status(a);
	if (a->ov.kind)
		overlay_draw(a, 1, a->rows - 2);
	else if (a->rows > 3 && loading_pending(a, a->view))
		draw_pending(a, 1, a->rows - 2);
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
	timeline_event_span(a->tl, l, &l->ev[m->ev], &s, &e);
	/* Keep the zoom when the match fits; otherwise fit it. A match on
	 * screen already leaves the window where it is; else it comes in at a
	 * third of it, the window kept within the profile (as panning keeps
	 * it) rather than showing time before its start or after its end. */
	if (e - s > w || w <= 0) {
		app_goto(a, s - (e - s) / 10, e + (e - s) / 10 + 1, (long)m->track, m->ev);
	} else if (s >= a->tls.v0 && e <= a->tls.v1) {
		app_goto(a, a->tls.v0, a->tls.v1, (long)m->track, m->ev);
	} else {
		int64_t v0 = s - w / 3;

		if (w <= a->tl->t1 - a->tl->t0) {
			if (v0 < a->tl->t0)
				v0 = a->tl->t0;
			if (v0 + w > a->tl->t1)
				v0 = a->tl->t1 - w;
		}
		app_goto(a, v0, v0 + w, (long)m->track, m->ev);
	}
	app_status(a, 0, "match %ld of %zu for '%s'%s", k + 1, a->search->n, a->query,
		   a->search->limit_hit ? " (list capped)" : "");
}

static void search_step(struct app *a, int dir)
{
	int64_t t = a->tls.v0, ev = -1;
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
		ev = a->tls.sel_ev;
	}
	search_select(a, search_next(a->search, t, track, ev, dir));
}

struct panel *app_view_panel(struct app *a)
{
	return a->view == VIEW_STEPS    ? &a->steps
	       : a->view == VIEW_MEMORY ? &a->mem
	       : a->view == VIEW_DIFF   ? &a->diff.p
	       : a->view == VIEW_KERNELS ? &a->kern
	       : a->view == VIEW_DEVICES ? &a->devs
					: NULL;
}

static void run_search(struct app *a, const char *text)
{
	snprintf(a->query, sizeof(a->query), "%s", text);
	search_free(a->search);
	a->search = search_run(a->tl, a->an, a->query);
	a->match = -1;
	if (!a->search->n) {
		/* An op the analysis names (MemcpyH2D, from the host's copy
		 * calls) is no event's name: say where it is. */
		size_t i;

		for (i = 0; a->an && i < a->an->nops; i++)
			if (strcasestr(a->an->ops[i].name, a->query))
				break;
		if (a->an && i < a->an->nops)
			app_status(a, 1, "no event is named '%s': %s is an op (3, the op profile, "
					 "lists it; Enter there goes to its longest run)",
				   a->query, a->an->ops[i].name);
		else
			app_status(a, 1, "no event matches '%s' in the whole profile", a->query);
		return;
	}
	/* The first match in time; the zoom is kept when it fits. */
	search_select(a, 0);
}

static unsigned app_prompt_key(struct app *a, int c)
{
	enum prompt_kind kind = a->prompt.kind;
	const char *text = a->prompt.buf;
	struct panel *p;

	if (c == KEY_RESIZE || prompt_key(&a->prompt, c) != PROMPT_DONE)
		return UI_REDRAW;
	switch (kind) {
	case PROMPT_SEARCH:
		if (text[0])
			run_search(a, text);
		break;
	case PROMPT_FILTER:
		if ((p = app_view_panel(a))) {
			panel_set_filter(p, text);
		} else {
			view_ops_set_filter(a, text);
		}
		app_status(a, 0, text[0] ? "filter: %s" : "filter cleared%s", text);
		break;
	case PROMPT_FIND:
		overlay_find(a, text, 1);
		break;
	default:
		break;
	}
	return UI_REDRAW;
}

/* ---- dispatch ---- */

static unsigned app_capture_key(struct app *a, enum action act);

static unsigned app_key(struct app *a, int c)
{
	enum action act;
	unsigned r;

	if (a->prompt.kind)
		return app_prompt_key(a, c);
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
	if (a->ov.kind) {
		/* A view's key closes help and goes there (it closed help only). */
		if (act < ACT_VIEW_NEXT || act > ACT_VIEW_DIFF)
			return overlay_act(a, act);
		a->ov.kind = OVERLAY_NONE;
	}
	switch (act) {
	case ACT_QUIT:
		return UI_QUIT;
	case ACT_HELP:
	case ACT_MESSAGES:
	case ACT_ROW:
		overlay_open(a, overlay_kind_of(act));
		return UI_REDRAW;
	case ACT_VIEW_NEXT:
	case ACT_VIEW_PREV:
		a->view = (enum view_id)((a->view + (act == ACT_VIEW_NEXT ? 1 : VIEW_COUNT - 1)) %
					 VIEW_COUNT);
		return UI_REDRAW;
	case ACT_VIEW_OVERVIEW:
	case ACT_VIEW_TIMELINE:
	case ACT_VIEW_OPS:
	case ACT_VIEW_STEPS:
	case ACT_VIEW_MEMORY:
	case ACT_VIEW_KERNELS:
	case ACT_VIEW_DEVICES:
	case ACT_VIEW_DIFF:
		a->view = (enum view_id)(act - ACT_VIEW_OVERVIEW);
		return UI_REDRAW;
	case ACT_DIFF:
		return app_diff_key(a);
		return UI_REDRAW;
	case ACT_SEARCH:
	case ACT_FILTER:
		/* Empty: a new query is typed, not appended to the last (Up
		 * brings earlier ones back). */
		prompt_open(&a->prompt, act == ACT_SEARCH ? PROMPT_SEARCH : PROMPT_FILTER);
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

void app_first_window(struct app *a)
{
	/* The devices' busy span with a small margin (the work, not a host's
	 * long start-up), else the whole profile. */
	a->tls.v0 = a->tl->dev_t0 - (a->tl->dev_t1 - a->tl->dev_t0) / 50;
	a->tls.v1 = a->tl->dev_t1 + (a->tl->dev_t1 - a->tl->dev_t0) / 50 + 1;
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
	app_first_window(a);
	a->tls.sel_track = -1;
	a->tls.sel_ev = -1;
	a->tls.cur = 0;
	a->tls.cur_header = 0;
	a->tls.top = 0;
	a->tls.has_mark = 0;
	a->tls.det_cols = -1; /* the details are written again */
	a->ops.sel = a->ops.top = 0;
	a->ovs.sel = a->ovs.top = 0;
	/* The steps and memory lists keep their selection by key: the same
	 * step or allocator stays selected in the next capture. */
	search_free(a->search);
	a->search = NULL;
	a->match = -1;
}

/* With several hosts, the message log (m) says where each sits on the
 * trace's clock and its skew (docs/analyses.md, "Several hosts"). */
void app_log_clocks(struct app *a, const struct xt_trace *t)
{
	char place[256], skew[256], line[700];
	size_t h;

	for (h = 0; t->nhosts > 1 && h < t->nhosts; h++) {
		snprintf(line, sizeof(line), "host %.160s: %s; skew %s", t->hosts[h].name,
			 clock_place_text(t, &t->hosts[h], place, sizeof(place)),
			 clock_skew_text(t, &t->hosts[h], skew, sizeof(skew)));
		msglog_add(&a->log, 0, line);
	}
}

/* The run directory under a->logdir that file (a profile's file or run
 * directory) is in, or NULL. */
static char *saved_run_of(const struct app *a, const char *file)
{
	char run[PATH_MAX], want[2 * PATH_MAX + 32], lp[PATH_MAX], *r;
	struct stat st;

	if (!file || !a->logdir || !realpath(file, run) || stat(run, &st) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		if (!(r = strrchr(run, '/')))
			return NULL;
		*r = '\0'; /* the run directory */
	}
	if (!(r = strrchr(run, '/')))
		return NULL;
	*r = '\0'; /* its parent, which must be <logdir>/plugins/profile */
	snprintf(want, sizeof(want), "%s/plugins/profile", a->logdir);
	if (!realpath(want, lp) || strcmp(lp, run))
		return NULL;
	/* Named as x names the runs it writes (the logdir made absolute, no
	 * link resolved), so that top and the viewer say the same path. */
	if (profile_path_absolute(a->logdir, lp, sizeof(lp)) < 0)
		return NULL;
	snprintf(want, sizeof(want), "%s/plugins/profile/%s", lp, r + 1);
	return xstrdup(want);
}

/* app_saved_run: see app.h. */
char *app_saved_run(const struct app *a, const struct xt_trace *t)
{
	return t->nhosts ? saved_run_of(a, t->hosts[0].path) : NULL;
}

void app_add(struct app *a, struct xt_trace *t, struct xt_analysis *an, const char *path)
{
	struct prof *p;

	app_log_clocks(a, t);

	a->profs = xreallocarray(a->profs, a->nprofs + 1, sizeof(*a->profs));
	p = &a->profs[a->nprofs++];
	p->t = t;
	p->an = an;
	p->tl = timeline_new(t);
	p->folded = xcalloc(p->tl->ntracks ? p->tl->ntracks : 1, 1);
	p->path = xstrdup(path);
	/* A file or run directory (xtop top's viewer opens the run top saved);
	 * a logdir's run is known once loaded (loading.c). */
	p->saved = t->nhosts ? app_saved_run(a, t) : saved_run_of(a, path);
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
			capture_session_stop(a->cap);
			app_status(a, 0, "stopping the capture early (the data is still saved)");
		} else if (capture_session_start(a->cap) < 0) {
			app_status(a, 1, "cannot start a capture");
		}
		return UI_REDRAW;
	case ACT_SAVE:
		return app_save(a);
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

/* ---- the loop's handlers ---- */

/* The progress timer's period for the state now: while loading, 100 ms to
 * show what has arrived (20 ms until the first events are in, for a
 * second at most); while capturing, 250 ms for the elapsed time; with a
 * launched workload alive, a second to notice when it ends; else none (an
 * idle viewer wakes only for keys). */
static void app_arm_tick(struct app *a)
{
	int ms = a->load ? (loading_before_events(a) ? 20 : 100)
		 : a->cap && a->cap->running ? 250
		 : a->cap && a->cap->child && !a->cap->child_ended ? 1000 : -1;
	int64_t left = loop_timer_left(a->loop, a->tick);

	if (ms < 0)
		loop_timer_stop(a->loop, a->tick);
	else if (left < 0 || left > ms)
		loop_timer_set(a->loop, a->tick, (uint64_t)ms);
}

/* What the capture session has to say: progress, a finished capture, the
 * workload's end. */
static void app_capture_turn(struct app *a)
{
	if (!a->cap)
		return;
	if (a->cap->running && !a->prompt.kind)
		app_progress(a, "capturing from %s: %.1f s of %.1f s (c stops early)", a->cap->target,
			     capture_session_elapsed(a->cap), (double)a->cap->opts.duration_ms / 1000.0);
	if (capture_session_collect(a->cap)) {
		app_add(a, a->cap->t, a->cap->an, a->cap->res.run_dir);
		free(a->profs[a->nprofs - 1].saved);
		a->profs[a->nprofs - 1].saved = xstrdup(a->cap->res.run_dir);
		a->cap->t = NULL;
		a->cap->an = NULL;
		app_status(a, a->cap->summary_err, "%s ([ and ] switch profiles)", a->cap->summary);
		a->cap->summary[0] = '\0';
	} else if (capture_session_poll_child(a->cap)) {
		app_status(a, a->cap->summary_err, "%s", a->cap->summary);
		a->cap->summary[0] = '\0';
	} else if (a->cap->summary[0] && !a->cap->running) {
		app_status(a, 1, "%s", a->cap->summary);
		a->cap->summary[0] = '\0';
	}
}

/* One key, if curses has one: handled under the load's lock (the timeline
 * may show lines still being decoded). Then the next turn looks again at
 * once, so keys curses has already read (and poll() no longer sees) are
 * not left waiting, and each key's result is drawn before the next. */
static unsigned app_one_key(struct app *a)
{
	unsigned r;
	int c = getch();

	if (c == ERR)
		return 0;
	loading_lock(a);
	r = app_key(a, c);
	/* A resize, or a mouse event nothing acts on, is not the user's
	 * choice of what to see. */
	if (r && c != KEY_RESIZE)
		loading_touch(a);
	loading_unlock(a);
	if (r & UI_QUIT)
		return r;
	loop_timer_set(a->loop, a->more_keys, 0);
	return r | UI_REDRAW;
}

static unsigned on_keys(void *arg, int fd, unsigned events)
{
	struct app *a = arg;
	unsigned r = app_one_key(a);

	(void)fd;
	/* The terminal went away: nothing more to show anyone. */
	if (!r && (events & LOOP_HUP))
		return UI_QUIT;
	return r;
}

static unsigned on_more_keys(void *arg, long id)
{
	(void)id;
	return app_one_key(arg);
}

static unsigned on_tick(void *arg, long id)
{
	(void)id;
	app_capture_turn(arg);
	return UI_REDRAW;
}

static unsigned on_capture(void *arg, int fd, unsigned events)
{
	(void)fd;
	(void)events;
	app_capture_turn(arg);
	return UI_REDRAW;
}

static unsigned on_wake(void *arg)
{
	const struct app *a = arg;

	return a->exit_rc ? UI_QUIT : 0;
}

/* The one draw: the newest decoded lines and, once the load ends, its
 * analyses (under the load's lock, which the frame keeps until drawn),
 * then the screen. A load that failed ends the loop with its status. */
static void app_draw(void *arg)
{
	struct app *a = arg;
	int rc = loading_turn(a);

	if (rc) {
		a->exit_rc = rc;
		loop_wake(a->loop);
		return;
	}
	app_render(a);
	loading_drawn(a);
	/* Every handler that changes state asks for this draw: here the timer
	 * follows the state (a key started a capture or a load, a load ended). */
	app_arm_tick(a);
}

/* Loads path as a new profile and waits for its analyses, drawing its
 * timeline as it arrives (xtop --diff needs both profiles' analyses before
 * the first comparison). Returns 0, or the exit status of a failed load
 * (said on stderr, the terminal restored). */
static int app_load_wait(struct app *a, const char *path, const char *run)
{
	enum view_id v = a->view;
	int rc = 0;

	a->view = VIEW_TIMELINE;
	loading_start(a, path, run);
	while (a->load && (rc = loading_turn(a)) == 0 && a->load) {
		app_render(a);
		loading_drawn(a);
		napms(100);
	}
	a->view = v;
	return rc;
}

/* Releases everything the viewer holds (the terminal is already given back). */
static void app_fini(struct app *a)
{
	size_t i;

	if (a->cap)
		capture_session_fini(a->cap);
	search_free(a->search);
	prompt_fini(&a->prompt);
	overlay_fini(&a->ov);
	msglog_fini(&a->log);
	textview_fini(&a->tls.det);
	view_lists_fini(a);
	view_memory_fini(a);
	view_diff_fini(a);
	view_tables_fini(a);
	for (i = 0; i < a->ops.nfold; i++)
		free(a->ops.folds[i]);
	free(a->ops.folds);
	for (i = 0; i < a->nprofs; i++) {
		free(a->profs[i].folded);
		free(a->profs[i].path);
		free(a->profs[i].saved);
		timeline_free(a->profs[i].tl);
		analysis_free(a->profs[i].an);
		trace_free(a->profs[i].t);
	}
	free(a->profs);
	memset(a, 0, sizeof(*a));
}

int app_main(const struct app_opts *o)
{
	struct app a;
	struct capture_session cap;
	struct loop loop;
	struct xt_error lerr;
	int rc = 0;

	memset(&a, 0, sizeof(a));
	a.match = -1;
	a.logdir = o->capture.logdir;
	a.view = o->view;
	a.diff.base = -1;
	if (o->attach || o->launch) {
		struct capture_opts co = o->capture;
		struct xt_error err;

		/* Resolve the target before touching the terminal: a bad PID is a
		 * one-line error, not a screen. */
		if ((o->launch ? capture_session_launch(&cap, o->launch, &co, &err)
			       : capture_session_init(&cap, o->attach, &co, &err)) < 0) {
			fprintf(stderr, "xtop: %s\n", err.msg);
			capture_session_fini(&cap);
			return 2;
		}
		a.cap = &cap;
	}
	if (loop_init(&loop, &lerr) < 0) {
		fprintf(stderr, "xtop: %s\n", lerr.msg);
		if (a.cap)
			capture_session_fini(a.cap);
		return 2;
	}
	if (term_init(o->ascii) < 0) {
		if (a.cap)
			capture_session_fini(a.cap);
		loop_fini(&loop);
		return 2;
	}
	term_on_signal(capture_scratch_clean_signal);
	if (o->diff_base) {
		/* xtop --diff BASE NEW: BASE is profile 1, NEW the current. */
		rc = app_load_wait(&a, o->diff_base, o->run);
		if (rc) {
			app_fini(&a);
			loop_fini(&loop);
			return rc;
		}
		a.diff.base = 0;
	}
	if (o->path) {
		if (o->diff_base) {
			/* The comparison needs NEW's analyses at once. */
			rc = app_load_wait(&a, o->path, o->run);
			if (rc) {
				app_fini(&a);
				loop_fini(&loop);
				return rc;
			}
		} else {
			/* The timeline shows while the analyses finish. */
			loading_start(&a, o->path, o->run);
		}
	} else {
		char label[300];

		snprintf(label, sizeof(label), "attached to %s", a.cap->target);
		app_add_empty(&a, label);
		if (a.cap->tg.warning[0])
			app_status(&a, 1, "%s", a.cap->tg.warning);
		else
			app_status(&a, 0, "attached to %s (%s): c captures %.1f s, ? for help",
				   a.cap->target,
				   a.cap->child ? "started with the xtop agent" : a.cap->tg.v[0].addr,
				   (double)o->capture.duration_ms / 1000.0);
	}
	nodelay(stdscr, TRUE);
	a.loop = &loop;
	loop_add_fd(&loop, STDIN_FILENO, on_keys, &a);
	if (a.cap)
		loop_add_fd(&loop, a.cap->wake[0], on_capture, &a);
	/* Both timers start stopped: the first draw arms the tick. */
	a.tick = loop_add_timer(&loop, 0, 0, on_tick, &a);
	loop_timer_stop(&loop, a.tick);
	a.more_keys = loop_add_timer(&loop, 0, 0, on_more_keys, &a);
	loop_timer_stop(&loop, a.more_keys);
	loop_on_wake(&loop, on_wake, &a);
	loop_set_draw(&loop, app_draw, &a);
	loop_redraw(&loop);
	loop_run(&loop);
	rc = a.exit_rc;
	loading_stop(&a); /* quit while loading */
	term_fini();
	loop_fini(&loop);
	if (a.cap && a.cap->running) {
		/* Quit during a capture: it is ended now, and saved if it
		 * returns within a second; a server that answers nothing is
		 * left behind, without the exit handlers, which could wait for
		 * the gRPC call (as xtop top leaves). */
		if (capture_session_quit(a.cap, 1000) < 0) {
			fprintf(stderr, "xtop: left the capture from %s, which does not answer\n",
				a.cap->target);
			capture_scratch_clean();
			fflush(NULL);
			_exit(rc);
		}
		if (capture_session_collect(a.cap)) {
			trace_free(a.cap->t);
			analysis_free(a.cap->an);
			a.cap->t = NULL;
			a.cap->an = NULL;
		}
		if (a.cap->res.nsaved && a.cap->res.run_dir[0])
			fprintf(stderr, "xtop: the capture under way at quit was ended then, and saved "
					"in %s\n", a.cap->res.run_dir);
	}
	if (a.cap && a.cap->child && !a.cap->child_ended)
		fprintf(stderr, "xtop: PID %d still runs, its output going to %s (attach again with: xtop --attach %d)\n",
			(int)a.cap->child, a.cap->child_log, (int)a.cap->child);
	app_fini(&a);
	return rc;
}
