/*
 * view_timeline: one track per line, grouped by host and plane (Space
 * folds a plane), nested events as depth rows, a time ruler, zoom and pan,
 * selection with a details pane. Each screen column is sampled from the
 * model (timeline_sample): one event is drawn as a bar with its name, a
 * column where several events meet is drawn as a dense shade, never skipped.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "app.h"
#include "details.h"
#include "loading.h"
#include "term.h"
#include "timeaxis.h"

#define TL_MAX_DEPTH_ROWS 4 /* depth rows per track; deeper levels are summarised */

struct item {
	long track;   /* first track of the plane for a header */
	int header;   /* 1: a plane group row */
	int rows;     /* screen rows */
};

static int track_rows(struct app *a, long i)
{
	const struct xt_line *l = a->tl->tracks[i].l;
	int n = l->nev ? (int)l->max_depth + 1 : 1;

	return n > TL_MAX_DEPTH_ROWS ? TL_MAX_DEPTH_ROWS : n;
}

/* Rows of the track area: a header per plane, then its tracks unless folded. */
static size_t build_items(struct app *a, struct item *it)
{
	size_t n = 0, i;

	for (i = 0; i < a->tl->ntracks; i++) {
		const struct tl_track *tr = &a->tl->tracks[i];

		if (i == 0 || tr->p != a->tl->tracks[i - 1].p)
			it[n++] = (struct item){ (long)i, 1, 1 };
		if (!a->tls.folded[i])
			it[n++] = (struct item){ (long)i, 0, track_rows(a, (long)i) };
	}
	return n;
}

static long item_of_cursor(struct app *a, const struct item *it, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (it[k].track == a->tls.cur && it[k].header == a->tls.cur_header)
			return (long)k;
	/* The cursor's track is folded: stand on its plane's header. */
	for (k = n; k-- > 0;)
		if (it[k].header && it[k].track <= a->tls.cur)
			return (long)k;
	return 0;
}

/* The column of the jump mark in a track area w wide, or -1 (none, or
 * outside the window). */
static int mark_col(struct app *a, int w)
{
	int64_t span = a->tls.v1 - a->tls.v0;

	if (!a->tls.has_mark || a->tls.mark_ps < a->tls.v0 || a->tls.mark_ps >= a->tls.v1 || span <= 0)
		return -1;
	return (int)((__int128)(a->tls.mark_ps - a->tls.v0) * w / span);
}

/* The ruler: the window's width in the label column, then ticks whose
 * labels differ at every zoom (timefmt_ticks), in time since the origin. */
static void draw_ruler(struct app *a, int y, int lw, int w)
{
	struct timefmt_tick ticks[64];
	char buf[48], b2[32];
	size_t n, k;
	int mark;

	/* The window's width, said as one: a time alone at the ruler's left
	 * read as where the window starts ("16.01 ms" left of "│20 ms"). */
	snprintf(buf, sizeof(buf), " %s wide", fmt_ps(b2, sizeof(b2), a->tls.v1 - a->tls.v0));
	if ((int)strlen(buf) > lw)
		buf[strlen(buf) - 5] = '\0';
	ui_put(y, 0, lw, term_attr(ROLE_DIM), buf, 1);
	if (w <= 0)
		return;
	n = timefmt_ticks(timeaxis_rel(a, a->tls.v0), timeaxis_rel(a, a->tls.v1), w, ticks, 64);
	mark = mark_col(a, w);
	for (k = 0; k < n; k++) {
		int len = (int)strlen(ticks[k].label);

		/* The jump mark wins over a tick whose label it would cut. */
		if (mark >= ticks[k].x && mark <= ticks[k].x + len)
			continue;
		ui_put(y, lw + ticks[k].x, 1, term_attr(ROLE_DIM), term.g.vline, 0);
		ui_put(y, lw + ticks[k].x + 1, w - ticks[k].x - 1, term_attr(ROLE_DIM), ticks[k].label,
		       0);
	}
	if (mark >= 0)
		ui_put(y, lw + mark, 1, term_attr(ROLE_MATCH) | A_BOLD, term.g.mark, 0);
}

static void draw_track_row(struct app *a, long ti, unsigned d, int last, int y, int lw, int w,
			   struct tl_cell *cells)
{
	const struct tl_track *tr = &a->tl->tracks[ti];
	const struct xt_line *l = tr->l;
	int c = 0, sel_col = -1;

	timeline_sample(a->tl, (size_t)ti, d, a->tls.v0, a->tls.v1, (unsigned)w, cells);
	/* The last row of a deep track also shows deeper levels as dense. */
	if (last && d + 1 < l->max_depth + 1u) {
		int k;
		unsigned dd;
		struct tl_cell *more = xmalloc((size_t)w * sizeof(*more));

		for (dd = d + 1; dd <= l->max_depth; dd++) {
			timeline_sample(a->tl, (size_t)ti, dd, a->tls.v0, a->tls.v1, (unsigned)w, more);
			for (k = 0; k < w; k++)
				if (more[k].count && !cells[k].count)
					cells[k].count = 2;
		}
		free(more);
	}
	/* The selected event's column, where it falls among others (a dense
	 * cell): drawn selected there, or '.' and ',' moved the selection
	 * through a dense stretch with nothing on screen changing. */
	if (a->tls.sel_track == ti && a->tls.sel_ev >= 0 && (size_t)a->tls.sel_ev < l->nev &&
	    a->tls.v1 > a->tls.v0) {
		const struct xt_event *sev = &l->ev[a->tls.sel_ev];
		unsigned sd = xt_event_depth(sev);
		int64_t s = xt_event_start(l, sev);

		if ((sd == d || (last && sd > d)) && s >= a->tls.v0 && s < a->tls.v1)
			sel_col = (int)((__int128)(s - a->tls.v0) * w / (a->tls.v1 - a->tls.v0));
	}
	while (c < w) {
		int c2 = c + 1;

		if (cells[c].count == 0) {
			/* The jump mark runs down the tracks where they are empty. */
			if (c == mark_col(a, w))
				ui_put(y, lw + c, 1, term_attr(ROLE_MATCH), term.g.vline, 0);
			c++;
			continue;
		}
		if (cells[c].count >= 2) {
			unsigned n = cells[c].count;

			ui_put(y, lw + c, 1,
			       c == sel_col ? (int)(term_attr(ROLE_SELECT) | A_BOLD)
					    : term_attr(ROLE_DENSE),
			       term.g.dense[n < 10 ? 0 : n < 100 ? 1 : 2], 0);
			c++;
			continue;
		}
		while (c2 < w && cells[c2].count == 1 && cells[c2].ev == cells[c].ev)
			c2++;
		{
			const struct xt_event *ev = &l->ev[cells[c].ev];
			const char *name = trace_event_display_name(tr->p, ev);
			int sel = a->tls.sel_track == ti && a->tls.sel_ev == cells[c].ev;
			int attr = sel ? (int)(term_attr(ROLE_SELECT) | A_BOLD) : term_event_attr(name);

			ui_put(y, lw + c, c2 - c, attr, name, 1);
		}
		c = c2;
	}
}

/* The label column: as wide as the longest track label needs (indent,
 * label, " +", separator), between 16 columns and a quarter of the screen
 * (at least 22 from 60 columns up; a third of narrower screens). */
static int label_width(struct app *a)
{
	int longest = 0, cap, w;
	size_t i;

	if (a->cols < 60)
		return a->cols / 3;
	cap = a->cols / 4 < 22 ? 22 : a->cols / 4 > 48 ? 48 : a->cols / 4;
	for (i = 0; i < a->tl->ntracks; i++) {
		w = utf8_width(a->tl->tracks[i].label);
		if (w > longest)
			longest = w;
	}
	w = longest + 5;
	return w < 16 ? 16 : w > cap ? cap : w;
}

#define TRACK_NAME_MAX 200

static int track_deep(const struct app *a, size_t ti)
{
	const struct xt_line *l = a->tl->tracks[ti].l;

	return l->nev && l->max_depth + 1 > TL_MAX_DEPTH_ROWS;
}

/*
 * A CUPTI/ROCm stream line's name ("Stream #63(MemcpyH2D)") too wide for w
 * columns, in a shorter form of its own before any eliding: the device's
 * header above says it is a stream, so "#63 MemcpyH2D", "#63 H2D", "63 H2D",
 * then the kind's head ("#134 Comp…"). Elided, it read "Strea…#63(Mem…2D)",
 * where H2D and D2D look alike. Returns 0 when s is no such name or no
 * form fits.
 */
static int stream_short(char *out, size_t n, const char *s, int w)
{
	const char *num = s + 8, *kind, *end, *brief;
	int nn, nk, nb, room, at;

	if (strncmp(s, "Stream #", 8) || !isdigit((unsigned char)*num))
		return 0;
	for (kind = num; isdigit((unsigned char)*kind); kind++)
		;
	end = kind + strlen(kind);
	if (*kind != '(' || end - kind < 3 || end[-1] != ')')
		return 0;
	nn = (int)(kind - num);
	for (brief = kind + 1; brief < end - 1; brief++)
		if (!isprint((unsigned char)*brief)) /* cut by bytes below */
			return 0;
	kind++;
	nk = (int)(end - 1 - kind);
	brief = !strncmp(kind, "Memcpy", 6) && nk > 6 ? kind + 6 : kind;
	nb = (int)(end - 1 - brief);
	snprintf(out, n, "#%.*s %.*s", nn, num, nk, kind);
	if (utf8_width(out) <= w)
		return 1;
	snprintf(out, n, "#%.*s %.*s", nn, num, nb, brief);
	if (utf8_width(out) <= w)
		return 1;
	snprintf(out, n, "%.*s %.*s", nn, num, nb, brief);
	if (utf8_width(out) <= w)
		return 1;
	/* Its start says the most of a kind. */
	room = w - 2 - nn;
	if (room >= 3)
		at = snprintf(out, n, "#%.*s %.*s", nn, num, room - 1, kind);
	else if (room == 2) /* without the '#' */
		at = snprintf(out, n, "%.*s %.*s", nn, num, room, kind);
	else
		return 0;
	if (at > 0 && (size_t)at < n)
		snprintf(out + at, n - (size_t)at, "%s", term.g.ellipsis);
	return 1;
}

/*
 * Every track's name fitted to the label column (lw), TRACK_NAME_MAX bytes
 * each in one block: its unique name (model/timeline.c) shortened in the
 * middle so the distinguishing tail stays, and where two would still read
 * alike ("Stream…MemcpyOther)" for streams #7 to #10), told apart
 * (utf8_elide_apart) in the room of the narrower kind of row.
 */
static char *track_names(const struct app *a, int lw)
{
	size_t k = a->tl->ntracks, i;
	char *buf = xmalloc(k * TRACK_NAME_MAX + 1);
	char **out = xmalloc((k + 1) * sizeof(*out));
	const char **src = xmalloc((k + 1) * sizeof(*src));
	int room = lw - 1 - 2, narrow = room - 2 > 1 ? room - 2 : 1;

	for (i = 0; i < k; i++) {
		int w = room - (track_deep(a, i) ? 2 : 0);

		out[i] = buf + i * TRACK_NAME_MAX;
		src[i] = a->tl->tracks[i].label;
		if (utf8_width(src[i]) > w &&
		    stream_short(out[i], TRACK_NAME_MAX, src[i], w))
			src[i] = out[i]; /* told apart from its likes in this form */
		else
			utf8_elide(out[i], TRACK_NAME_MAX, src[i], w > 1 ? w : 1, term.g.ellipsis);
	}
	utf8_elide_apart(out, TRACK_NAME_MAX, src, k, narrow, term.g.ellipsis);
	free(out);
	free(src);
	return buf;
}

/* A track's label in lw - 1 columns: its name from track_names(), and
 * " +" when deeper levels are summarised on its last row. */
static void label_of(const struct app *a, long ti, const char *names, char *buf, size_t n)
{
	snprintf(buf, n, "  %s%s", names + (size_t)ti * TRACK_NAME_MAX,
		 track_deep(a, (size_t)ti) ? " +" : "");
}

static void tl_draw(struct app *a, int y, int h)
{
	size_t cap, n, k;
	struct item *it;
	int lw, w, row, area;
	struct tl_cell *cells;
	long cur;
	int dh;
	char *names;

	if (!a->tl->ntracks && loading_current(a)) {
		/* No line is in yet: a ruler over nothing would read "0 ps". */
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_DIM),
		       "  The lines come as they are read (a big line when it is whole).", 1);
		return;
	}
	cap = a->tl->ntracks * 2 + 1;
	it = xmalloc(cap * sizeof(*it));
	lw = label_width(a);
	w = a->cols - lw;
	cells = xmalloc((size_t)(w > 0 ? w : 1) * sizeof(*cells));
	dh = details_height(a, h);
	names = track_names(a, lw);

	n = build_items(a, it);
	cur = item_of_cursor(a, it, n);
	draw_ruler(a, y, lw, w);
	area = h - 1 - dh;
	/* Keep the cursor's item on screen. */
	{
		long first = a->tls.top, rows = 0;

		if (cur < first)
			first = cur;
		for (k = (size_t)first; k <= (size_t)cur && k < n; k++)
			rows += it[k].rows;
		while (rows > area && first < cur)
			rows -= it[first++].rows;
		a->tls.top = first;
	}
	row = y + 1;
	for (k = (size_t)a->tls.top; k < n && row < y + 1 + area; k++) {
		char label[256];
		int is_cur = (long)k == cur;

		if (it[k].header) {
			const struct tl_track *tr = &a->tl->tracks[it[k].track];
			char b1[32];

			snprintf(label, sizeof(label), "%s %s  (%s, %s events)",
				 a->tls.folded[it[k].track] ? term.g.fold_closed : term.g.fold_open,
				 tr->p->name, a->t->hosts[tr->host].name,
				 fmt_count(b1, sizeof(b1), tr->p->nev));
			ui_put(row++, 0, a->cols, is_cur ? term_attr(ROLE_SELECT) : term_attr(ROLE_HEADER),
			       label, 1);
			continue;
		}
		label_of(a, it[k].track, names, label, sizeof(label));
		ui_put(row, 0, lw - 1, is_cur ? term_attr(ROLE_SELECT) : term_attr(ROLE_TEXT), label, 1);
		{
			unsigned d;

			for (d = 0; d < (unsigned)it[k].rows && row < y + 1 + area; d++, row++) {
				/* The separator: labels never touch the events. */
				ui_put(row, lw - 1, 1, term_attr(ROLE_DIM), term.g.vline, 0);
				if (w > 0)
					draw_track_row(a, it[k].track, d, d + 1 == (unsigned)it[k].rows, row,
						       lw, w, cells);
			}
		}
	}
	if (dh)
		details_draw(a, y + h - dh, dh);
	free(names);
	free(cells);
	free(it);
}

/* ---- actions ---- */

/* The view stays on the profile, with the margin the first window has (a
 * fiftieth of it each side): half a profile of nothing each side let pan
 * and zoom out reach "-40 s" on an axis that starts at 0. */
static void clamp_view(struct app *a)
{
	int64_t ext = a->tl->t1 - a->tl->t0, m = ext / 50 + 1, w = a->tls.v1 - a->tls.v0;

	if (w < 10)
		w = 10;
	if (w > ext + 2 * m)
		w = ext + 2 * m;
	if (a->tls.v0 < a->tl->t0 - m)
		a->tls.v0 = a->tl->t0 - m;
	if (a->tls.v0 + w > a->tl->t1 + m)
		a->tls.v0 = a->tl->t1 + m - w;
	a->tls.v1 = a->tls.v0 + w;
}

static int sel_span(struct app *a, int64_t *s, int64_t *e)
{
	const struct xt_line *l;

	if (a->tls.sel_track < 0 || a->tls.sel_ev < 0)
		return 0;
	l = a->tl->tracks[a->tls.sel_track].l;
	timeline_event_span(a->tl, l, &l->ev[a->tls.sel_ev], s, e);
	return 1;
}

static void zoom(struct app *a, int in)
{
	int64_t s, e, c = a->tls.v0 + (a->tls.v1 - a->tls.v0) / 2, w = a->tls.v1 - a->tls.v0;
	double f;

	/* Around the selection's part in view: the middle of a long event
	 * that starts or ends off screen would move the view off what was
	 * shown, further at each step. */
	if (sel_span(a, &s, &e) && s < a->tls.v1 && e >= a->tls.v0) {
		if (s < a->tls.v0)
			s = a->tls.v0;
		if (e > a->tls.v1)
			e = a->tls.v1;
		c = s + (e - s) / 2;
	}
	/* Keep the zoom centre at the same screen position. */
	f = w > 0 ? (double)(c - a->tls.v0) / (double)w : 0.5;
	w = in ? w / 2 : w * 2;
	if (w < 10)
		w = 10;
	a->tls.v0 = c - (int64_t)(f * (double)w);
	a->tls.v1 = a->tls.v0 + w;
	clamp_view(a);
}

static void ensure_visible(struct app *a)
{
	int64_t s, e, w = a->tls.v1 - a->tls.v0;

	if (!sel_span(a, &s, &e))
		return;
	/* Some of it on screen: the view stays (a long event's start may be
	 * far off to the left). */
	if ((s >= a->tls.v0 && s < a->tls.v1) || (s < a->tls.v1 && e > a->tls.v0))
		return;
	a->tls.v0 = s - w / 3;
	a->tls.v1 = a->tls.v0 + w;
}

static void select_ev(struct app *a, long track, int64_t ev)
{
	if (ev < 0)
		return;
	a->tls.sel_track = track;
	a->tls.sel_ev = ev;
	a->tls.cur = track;
	a->tls.cur_header = 0;
	a->tls.folded[track] = 0;
	ensure_visible(a);
}

static void move_cursor(struct app *a, long delta)
{
	size_t cap = a->tl->ntracks * 2 + 1, n;
	struct item *it = xmalloc(cap * sizeof(*it));
	long k;

	n = build_items(a, it);
	k = item_of_cursor(a, it, n) + delta;
	if (k < 0)
		k = 0;
	if (k >= (long)n)
		k = (long)n - 1;
	if (n) {
		a->tls.cur = it[k].track;
		a->tls.cur_header = it[k].header;
	}
	free(it);
}

static void fold(struct app *a)
{
	const struct xt_plane *p = a->tl->tracks[a->tls.cur].p;
	long i, first = a->tls.cur;
	uint8_t v;

	while (first > 0 && a->tl->tracks[first - 1].p == p)
		first--;
	v = !a->tls.folded[first];
	for (i = first; i < (long)a->tl->ntracks && a->tl->tracks[i].p == p; i++)
		a->tls.folded[i] = v;
	a->tls.cur = first;
	a->tls.cur_header = 1;
}

static unsigned tl_act(struct app *a, enum action act)
{
	long cur = a->tls.cur;
	int64_t s, e, ev;
	const struct xt_line *l = a->tl->ntracks ? a->tl->tracks[cur].l : NULL;

	if (!a->tl->ntracks)
		return act == ACT_ESCAPE ? 0 : UI_REDRAW;
	switch (act) {
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT:
		zoom(a, act == ACT_ZOOM_IN);
		break;
	case ACT_PAN_LEFT:
	case ACT_PAN_RIGHT: {
		int64_t d = (a->tls.v1 - a->tls.v0) / 4;

		a->tls.v0 += act == ACT_PAN_LEFT ? -d : d;
		a->tls.v1 += act == ACT_PAN_LEFT ? -d : d;
		clamp_view(a);
		break;
	}
	case ACT_FIT:
		if (!sel_span(a, &s, &e)) {
			app_status(a, 1, "nothing selected: '.' selects an event");
			break;
		}
		if (e - s < 10) {
			/* An instant: a microsecond around it shows its neighbours. */
			a->tls.v0 = s - 500000;
			a->tls.v1 = s + 500000;
			break;
		}
		a->tls.v0 = s - (e - s) / 20;
		a->tls.v1 = e + (e - s) / 20 + 1;
		break;
	case ACT_SHOW_ALL:
		a->tls.v0 = a->tl->t0;
		a->tls.v1 = a->tl->t1;
		break;
	case ACT_EVENT_NEXT:
	case ACT_EVENT_PREV:
		if (a->tls.cur_header) {
			move_cursor(a, 1);
			cur = a->tls.cur;
			l = a->tl->tracks[cur].l;
		}
		if (a->tls.sel_track == cur && a->tls.sel_ev >= 0) {
			ev = timeline_step(a->tl, (size_t)cur, a->tls.sel_ev,
					   act == ACT_EVENT_NEXT ? 1 : -1);
		} else {
			/* Start from the view: "." takes the first event that
			 * starts in it or after it, "," the last that starts in
			 * it or before it. */
			ev = timeline_from_view(a->tl, (size_t)cur, a->tls.v0, a->tls.v1,
						act == ACT_EVENT_NEXT ? 1 : -1);
		}
		if (ev < 0)
			app_status(a, 1, "no %s event on this track",
				   act == ACT_EVENT_NEXT ? "next" : "previous");
		select_ev(a, cur, ev);
		if (ev >= 0 && !a->tls.details) {
			/* Said, as neighbours in one column (a dense cell) leave
			 * the screen as it was. */
			const struct xt_event *se = &l->ev[ev];
			char b1[32], b2[32];

			app_status(a, 0, "%s at %s, %s (Enter: details)",
				   trace_event_display_name(a->tl->tracks[cur].p, se),
				   fmt_ps(b1, sizeof(b1), timeaxis_rel(a, xt_event_start(l, se))),
				   fmt_ps(b2, sizeof(b2), xt_event_dur(l, se)));
		}
		break;
	case ACT_PARENT:
	case ACT_CHILD:
		if (!sel_span(a, &s, &e)) {
			app_status(a, 1, "no event selected: '.' selects the next on this track");
			break;
		}
		l = a->tl->tracks[a->tls.sel_track].l;
		{
			unsigned d = xt_event_depth(&l->ev[a->tls.sel_ev]);

			if (act == ACT_PARENT && d == 0) {
				app_status(a, 1, "no parent: a top-level event");
				break;
			}
			ev = act == ACT_PARENT ? timeline_event_at(a->tl, (size_t)a->tls.sel_track,
								   d - 1, s)
					       : timeline_first_child(a->tl, (size_t)a->tls.sel_track,
								      a->tls.sel_ev);
			if (ev < 0)
				app_status(a, 1, "no %s", act == ACT_PARENT ? "parent" : "child");
			else
				select_ev(a, a->tls.sel_track, ev);
		}
		break;
	case ACT_UP:
	case ACT_DOWN:
		move_cursor(a, act == ACT_UP ? -1 : 1);
		break;
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		move_cursor(a, (act == ACT_PAGE_UP ? -1 : 1) * (a->rows > 6 ? a->rows / 2 : 1));
		break;
	case ACT_HOME:
	case ACT_END:
		move_cursor(a, act == ACT_HOME ? -(long)a->tl->ntracks * 2 : (long)a->tl->ntracks * 2);
		break;
	case ACT_FOLD:
		fold(a);
		break;
	case ACT_DETAILS:
		a->tls.details = !a->tls.details;
		break;
	case ACT_DETAILS_UP:
	case ACT_DETAILS_DOWN:
	case ACT_DETAILS_PAGE_UP:
	case ACT_DETAILS_PAGE_DOWN:
		return details_act(a, act);
	case ACT_ESCAPE:
		if (a->tls.sel_ev < 0 && !a->tls.has_mark)
			return 0;
		a->tls.sel_track = -1;
		a->tls.sel_ev = -1;
		a->tls.has_mark = 0;
		break;
	default:
		return 0;
	}
	return UI_REDRAW;
}

const struct view view_timeline = { "timeline", SCOPE_TIMELINE, tl_draw, tl_act, NULL, 0 };
