/*
 * view_timeline: one track per line, grouped by host and plane (Space
 * folds a plane), nested events as depth rows, a time ruler, zoom and pan,
 * selection with a details pane. Each screen column is sampled from the
 * model (timeline_sample): one event is drawn as a bar with its name, a
 * column where several events meet is drawn as a dense shade, never skipped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/stats.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"

#define TL_MAX_DEPTH_ROWS 4 /* depth rows per track; deeper levels are summarised */
#define TL_DETAILS_ROWS 12

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

static int64_t nice_step(int64_t raw)
{
	int64_t p = 1;

	while (p * 10 <= raw)
		p *= 10;
	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}

static void draw_ruler(struct app *a, int y, int lw, int w)
{
	int64_t span = a->tls.v1 - a->tls.v0, step, t;
	char buf[48], b2[32];
	int x;

	snprintf(buf, sizeof(buf), " %s", fmt_ps(b2, sizeof(b2), span));
	ui_put(y, 0, lw, term_attr(ROLE_DIM), buf, 1);
	if (w <= 0)
		return;
	step = nice_step(span / (w / 12 > 0 ? w / 12 : 1) > 0 ? span / (w / 12 > 0 ? w / 12 : 1)
								: 1);
	t = ((a->tls.v0 - a->tl->t0) / step) * step + a->tl->t0;
	if (t < a->tls.v0)
		t += step;
	for (; t < a->tls.v1; t += step) {
		x = (int)((__int128)(t - a->tls.v0) * w / span);
		if (x < 0 || x >= w)
			continue;
		fmt_ps(buf, sizeof(buf), t - a->tl->t0);
		ui_put(y, lw + x, 1, term_attr(ROLE_DIM), term.g.vline, 0);
		if (x + 1 + (int)strlen(buf) < w)
			ui_put(y, lw + x + 1, w - x - 1, term_attr(ROLE_DIM), buf, 0);
	}
}

static void draw_track_row(struct app *a, long ti, unsigned d, int last, int y, int lw, int w,
			   struct tl_cell *cells)
{
	const struct tl_track *tr = &a->tl->tracks[ti];
	const struct xt_line *l = tr->l;
	int c = 0;

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
	while (c < w) {
		int c2 = c + 1;

		if (cells[c].count == 0) {
			c++;
			continue;
		}
		if (cells[c].count >= 2) {
			unsigned n = cells[c].count;

			ui_put(y, lw + c, 1, term_attr(ROLE_DENSE),
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

static void label_of(struct app *a, long ti, char *buf, size_t n)
{
	const struct xt_line *l = a->tl->tracks[ti].l;
	const char *nm = l->display_name[0] ? l->display_name : l->name;

	snprintf(buf, n, "  %s%s", nm[0] ? nm : "(unnamed)",
		 l->nev && l->max_depth + 1 > TL_MAX_DEPTH_ROWS ? " +" : "");
}

static void draw_details(struct app *a, int y, int h)
{
	const struct tl_track *tr;
	const struct xt_line *l;
	const struct xt_event *ev;
	const struct xt_event_meta *m;
	const struct xt_host *host;
	char line[1024], b1[32], b2[32], b3[32], b4[32];
	struct stat_iter it;
	struct xt_stat s;
	long op;
	int row = y, pass;

	for (row = y; row < y + h; row++) {
		move(row, 0);
		clrtoeol();
	}
	row = y;
	ui_put(row++, 0, a->cols, term_attr(ROLE_HEADER), " details", 1);
	if (a->tls.sel_track < 0 || a->tls.sel_ev < 0) {
		ui_put(row, 0, a->cols, term_attr(ROLE_DIM),
		       "  no event selected: '.' selects the next event on the cursor's track", 1);
		return;
	}
	tr = &a->tl->tracks[a->tls.sel_track];
	l = tr->l;
	ev = &l->ev[a->tls.sel_ev];
	m = xt_event_meta(tr->p, ev);
	host = &a->t->hosts[tr->host];
	snprintf(line, sizeof(line), "  %s   start %s   duration %s   self %s   depth %u   %s / %s",
		 trace_event_display_name(tr->p, ev),
		 fmt_ps(b1, sizeof(b1), xt_event_start(l, ev) - a->tl->t0),
		 fmt_ps(b2, sizeof(b2), xt_event_dur(l, ev)),
		 fmt_ps(b3, sizeof(b3), timeline_self_ps(a->tl, (size_t)a->tls.sel_track, a->tls.sel_ev)),
		 xt_event_depth(ev), tr->p->name, l->name);
	ui_put(row++, 0, a->cols, term_attr(ROLE_TEXT) | A_BOLD, line, 1);
	if (m->display_name[0] && strcmp(m->name, m->display_name) && row < y + h) {
		/* The full name (HLO text on TPU), wrapped over up to two rows. */
		size_t len = strlen(m->name), w = a->cols > 4 ? (size_t)a->cols - 4 : 1, off;
		int k;

		for (k = 0, off = 0; k < 2 && off < len && row < y + h; k++, off += w) {
			snprintf(line, sizeof(line), "  %.*s", (int)(w < sizeof(line) - 4 ? w : sizeof(line) - 4),
				 m->name + off);
			ui_put(row++, 0, a->cols, term_attr(ROLE_DIM), line, 1);
		}
	}
	op = app_op_row(a, tr->p, l, ev);
	if (op >= 0 && row < y + h) {
		const struct xt_op_row *r = &a->an->ops[op];

		snprintf(line, sizeof(line),
			 "  op profile: %s [%s] %s self %s (%.1f%%), total %s, %" PRIu64 " runs, avg %s",
			 r->name, r->category, r->program, fmt_ps(b1, sizeof(b1), r->self_ps), r->percent,
			 fmt_ps(b2, sizeof(b2), r->total_ps), r->occurrences,
			 fmt_ps(b4, sizeof(b4), r->occurrences ? r->total_ps / (int64_t)r->occurrences : 0));
		ui_put(row++, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
	}
	/* Every stat: the event's own, then its metadata's. */
	line[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			stat_iter_event(&it, host, tr->p, l, ev);
		else
			stat_iter_meta(&it, host, tr->p, m);
		while (stat_next(&it, &s) && row < y + h) {
			char val[160], item[256];

			stat_to_text(&s, val, sizeof(val));
			snprintf(item, sizeof(item), "%s=%s  ", s.meta ? s.meta->name : "?", val);
			if (strlen(line) + strlen(item) + 2 > (size_t)a->cols && line[0]) {
				ui_put(row++, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
				line[0] = '\0';
			}
			if (!line[0])
				strcpy(line, "  ");
			strncat(line, item, sizeof(line) - strlen(line) - 1);
		}
	}
	if (line[0] && row < y + h)
		ui_put(row++, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
	else if (line[0] || (pass == 2 && row >= y + h))
		/* Out of rows: say so rather than drop stats silently. */
		ui_put(y + h - 1, a->cols - 14, 14, term_attr(ROLE_DIM), " (more: zoom) ", 1);
}

static void tl_draw(struct app *a, int y, int h)
{
	size_t cap = a->tl->ntracks * 2 + 1, n, k;
	struct item *it = xmalloc(cap * sizeof(*it));
	int lw = a->cols >= 60 ? 22 : a->cols / 3, w = a->cols - lw, row, area;
	struct tl_cell *cells = xmalloc((size_t)(w > 0 ? w : 1) * sizeof(*cells));
	long cur;
	int dh = a->tls.details ? TL_DETAILS_ROWS : 0;

	if (dh > h / 2)
		dh = h / 2;
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
		label_of(a, it[k].track, label, sizeof(label));
		ui_put(row, 0, lw, is_cur ? term_attr(ROLE_SELECT) : term_attr(ROLE_TEXT), label, 1);
		{
			unsigned d;

			for (d = 0; d < (unsigned)it[k].rows && row < y + 1 + area; d++, row++)
				if (w > 0)
					draw_track_row(a, it[k].track, d, d + 1 == (unsigned)it[k].rows, row,
						       lw, w, cells);
		}
	}
	if (dh)
		draw_details(a, y + h - dh, dh);
	free(cells);
	free(it);
}

/* ---- actions ---- */

static void clamp_view(struct app *a)
{
	int64_t ext = a->tl->t1 - a->tl->t0, w = a->tls.v1 - a->tls.v0;

	if (w < 10)
		w = 10;
	if (w > ext * 2)
		w = ext * 2;
	if (a->tls.v0 < a->tl->t0 - ext / 2)
		a->tls.v0 = a->tl->t0 - ext / 2;
	if (a->tls.v0 + w > a->tl->t1 + ext / 2)
		a->tls.v0 = a->tl->t1 + ext / 2 - w;
	a->tls.v1 = a->tls.v0 + w;
}

static int sel_span(struct app *a, int64_t *s, int64_t *e)
{
	const struct xt_line *l;

	if (a->tls.sel_track < 0 || a->tls.sel_ev < 0)
		return 0;
	l = a->tl->tracks[a->tls.sel_track].l;
	*s = xt_event_start(l, &l->ev[a->tls.sel_ev]);
	*e = *s + xt_event_dur(l, &l->ev[a->tls.sel_ev]);
	return 1;
}

static void zoom(struct app *a, int in)
{
	int64_t s, e, c = a->tls.v0 + (a->tls.v1 - a->tls.v0) / 2, w = a->tls.v1 - a->tls.v0;
	double f;

	if (sel_span(a, &s, &e) && s < a->tls.v1 && e >= a->tls.v0)
		c = s + (e - s) / 2;
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
	if (s >= a->tls.v0 && s < a->tls.v1)
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
		if (e - s < 10)
			e = s + 10;
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
			/* Start from the view: the first event at or after its start. */
			size_t first, end = trace_line_window(l, a->tls.v0, a->tls.v1, &first), k;

			ev = -1;
			for (k = first; k < end; k++)
				if (xt_event_end(l, &l->ev[k]) >= a->tls.v0) {
					ev = (int64_t)k;
					break;
				}
			if (ev < 0)
				ev = timeline_step(a->tl, (size_t)cur, -1, act == ACT_EVENT_NEXT ? 1 : -1);
		}
		if (ev < 0)
			app_status(a, 1, "no %s event on this track",
				   act == ACT_EVENT_NEXT ? "next" : "previous");
		select_ev(a, cur, ev);
		break;
	case ACT_PARENT:
	case ACT_CHILD:
		if (!sel_span(a, &s, &e))
			break;
		l = a->tl->tracks[a->tls.sel_track].l;
		{
			unsigned d = xt_event_depth(&l->ev[a->tls.sel_ev]);

			if (act == ACT_PARENT && d == 0)
				break;
			ev = timeline_event_at(a->tl, (size_t)a->tls.sel_track,
					       act == ACT_PARENT ? d - 1 : d + 1, s);
			if (ev >= 0 && act == ACT_CHILD && xt_event_start(l, &l->ev[ev]) >= e && e > s)
				ev = -1;
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
	case ACT_ESCAPE:
		if (a->tls.sel_ev < 0)
			return 0;
		a->tls.sel_track = -1;
		a->tls.sel_ev = -1;
		break;
	default:
		return 0;
	}
	return UI_REDRAW;
}

const struct view view_timeline = { "timeline", SCOPE_TIMELINE, tl_draw, tl_act };
