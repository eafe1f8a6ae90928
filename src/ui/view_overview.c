/*
 * view_overview: the first view (model's struct xt_overview; the same
 * numbers as the top of `xtop report`): step time with a bar per step,
 * the devices' busy and idle time, the top ops and the findings. Devices,
 * ops and findings are rows that Enter follows: a device or a gap finding
 * to the timeline at its longest gap (marked), an op to its row in the op
 * profile, the step finding to the steps.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/op_columns.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"
#include "timeaxis.h"

enum ov_kind { OVL_TEXT, OVL_HEAD, OVL_BARS, OVL_DEVICE, OVL_OP, OVL_FINDING };

/* One screen line; selectable lines carry the item they belong to. */
struct ov_line {
	enum ov_kind kind;
	long idx;       /* device, op or finding index; bar row for OVL_BARS */
	long item;      /* selectable item number, -1 none */
	char text[512];
};

struct ov_lines {
	struct ov_line *v;
	size_t n, cap;
	long nitems;
};

static struct ov_line *add(struct ov_lines *L, enum ov_kind k, long idx, int new_item)
{
	struct ov_line *l;

	if (L->n == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 64;
		L->v = xreallocarray(L->v, L->cap, sizeof(*L->v));
	}
	l = &L->v[L->n++];
	l->kind = k;
	l->idx = idx;
	l->item = k >= OVL_DEVICE ? (new_item ? L->nitems++ : L->nitems - 1) : -1;
	l->text[0] = '\0';
	return l;
}

/* Appends bytes [p, e) to l's text, whole characters only; returns the
 * columns they take (utf8.h: a character is a column). */
static int put_word(struct ov_line *l, const char *p, const char *e)
{
	size_t at = strlen(l->text);
	int cols = 0;

	while (p < e) {
		size_t c = utf8_len(p);

		if (!c || at + c >= sizeof(l->text))
			break;
		memcpy(l->text + at, p, c);
		at += c;
		p += c;
		cols++;
	}
	l->text[at] = '\0';
	return cols;
}

/* Adds text wrapped to w columns (continuation lines indented). A word
 * is measured in columns, so a name with multibyte characters wraps where
 * it reaches the edge, not before. */
static void add_wrapped(struct ov_lines *L, enum ov_kind k, long idx, const char *prefix,
			const char *text, int w)
{
	struct ov_line *l = add(L, k, idx, 1);
	const char *p = text;
	int indent = utf8_width(prefix), col = indent;

	snprintf(l->text, sizeof(l->text), "%s", prefix);
	while (*p) {
		const char *e = fmt_word_end(p);
		int len = utf8_width_n(p, (size_t)(e - p));

		if (col > indent && col + 1 + len > w) {
			l = add(L, k, idx, 0);
			snprintf(l->text, sizeof(l->text), "%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			static const char space[] = " ";

			col += put_word(l, space, space + 1);
		}
		col += put_word(l, p, e);
		p = e;
		while (*p == ' ')
			p++;
	}
}

/* Appends head, sep and name to l's text, their middle elided to what is
 * left of w columns: two names that share a start ("replica_4/bert_…")
 * keep the tails that tell them apart, as in the other lists. Joined
 * whole first, however long: a cut before eliding would lose the tail. */
static void put_name(struct ov_line *l, const char *head, const char *sep, const char *name,
		     int w)
{
	size_t at = strlen(l->text), nh = strlen(head), ns = strlen(sep), nn = strlen(name);
	int room = w - utf8_width(l->text);
	char *all = xmalloc(nh + ns + nn + 1);

	memcpy(all, head, nh);
	memcpy(all + nh, sep, ns);
	memcpy(all + nh + ns, name, nn + 1);
	utf8_elide(l->text + at, sizeof(l->text) - at, all, room > 1 ? room : 1, term.g.ellipsis);
	free(all);
}

#define BAR_ROWS 2

static void build(struct app *a, struct ov_lines *L, int w)
{
	const struct xt_analysis *an = a->an;
	const struct xt_overview *v = &an->overview;
	char b1[32], b2[32], b3[32], b5[32], idle[16];
	struct ov_line *l;
	size_t i;
	int r, narrow;

	l = add(L, OVL_HEAD, 0, 0);
	snprintf(l->text, sizeof(l->text), " Steps");
	if (v->has_steps) {
		l = add(L, OVL_TEXT, 0, 0);
		snprintf(l->text, sizeof(l->text), "  %zu%s  mean %s  p50 %s  p95 %s  max %s",
			 an->nsteps, an->steps_source == XT_STEPS_INFERRED ? " (inferred)" : "",
			 fmt_ps(b1, sizeof(b1), (int64_t)llround(v->step_mean_ps)),
			 fmt_ps(b2, sizeof(b2), v->step_p50_ps), fmt_ps(b3, sizeof(b3), v->step_p95_ps),
			 fmt_ps(b5, sizeof(b5), v->step_max_ps));
		for (r = 0; r < BAR_ROWS; r++)
			add(L, OVL_BARS, r, 0);
	} else {
		l = add(L, OVL_TEXT, 0, 0);
		snprintf(l->text, sizeof(l->text),
			 "  none: no step markers, and no XLA module ran twice");
	}
	l = add(L, OVL_TEXT, 0, 0);
	l = add(L, OVL_HEAD, 0, 0);
	/* Narrow: the gap columns go, so that each row keeps its device's
	 * name (four rows of figures alone say nothing). */
	narrow = w < 42 + 16;
	/* Figures right-aligned, as in every other table ("1.53 ms" over
	 * "589.7 us"). */
	snprintf(l->text, sizeof(l->text), " %10s %6s", "BUSY", "IDLE");
	if (!narrow)
		snprintf(l->text + strlen(l->text), sizeof(l->text) - strlen(l->text), " %10s %10s",
			 "HOST-BND", "MAX GAP");
	/* The hint only where it fits whole ("DEVICE (Enter: its" at 60). */
	snprintf(l->text + strlen(l->text), sizeof(l->text) - strlen(l->text), "  %s",
		 utf8_width(l->text) + 33 > w ? "DEVICE" : "DEVICE (Enter: its longest gap)");
	for (i = 0; i < an->ndevices; i++) {
		const struct xt_device_row *d = &an->devices[i];

		if (!d->has_overview || !d->op_events)
			continue;
		l = add(L, OVL_DEVICE, (long)i, 1);
		/* No span (instants only): no idle share, no gaps. */
		snprintf(l->text, sizeof(l->text), " %10s %6s", fmt_ps(b1, sizeof(b1), d->busy_ps),
			 fmt_percent(idle, sizeof(idle), d->idle_percent));
		if (!narrow)
			snprintf(l->text + strlen(l->text), sizeof(l->text) - strlen(l->text),
				 " %10s %10s",
				 fmt_ps_known(b2, sizeof(b2), d->host_bound_ps, xt_device_host_bound_known(d)),
				 fmt_ps_known(b3, sizeof(b3), d->longest_gap_ps, xt_device_has_gaps(d)));
		strncat(l->text, "  ", sizeof(l->text) - strlen(l->text) - 1);
		if (a->t->nhosts < 2) {
			put_name(l, "", "", d->name, w);
		} else if (utf8_width(l->text) + utf8_width(d->host) + 1 + utf8_width(d->name) <= w) {
			put_name(l, d->host, " ", d->name, w);
		} else {
			/* What tells the hosts apart, as the devices view shows it. */
			char host[256];

			ui_host_label(a, d->host, host, sizeof(host));
			put_name(l, host, " ", d->name, w);
		}
	}
	l = add(L, OVL_TEXT, 0, 0);
	if (v->collective_ps)
		snprintf(b3, sizeof(b3), " (%.1f%%)", v->collective_percent);
	snprintf(l->text, sizeof(l->text), "  collectives %s%s   compilation %s",
		 v->collective_ps ? fmt_ps(b1, sizeof(b1), v->collective_ps) : "none on the devices",
		 v->collective_ps ? b3 : "", v->compile_ps ? fmt_ps(b2, sizeof(b2), v->compile_ps) : "none");
	l = add(L, OVL_TEXT, 0, 0);
	l = add(L, OVL_HEAD, 0, 0);
	snprintf(l->text, sizeof(l->text), " %10s %6s  %s", "SELF", "%DEV",
		 w >= 19 + 34 ? "TOP OPS (Enter: in the op profile)" : "TOP OPS");
	for (i = 0; i < an->nops && i < 5; i++) {
		l = add(L, OVL_OP, (long)i, 1);
		snprintf(l->text, sizeof(l->text), " %10s %6s  ",
			 fmt_ps(b1, sizeof(b1), an->ops[i].self_ps),
			 op_percent_text(b2, sizeof(b2), an->ops[i].percent));
		put_name(l, an->ops[i].program, *an->ops[i].program ? "/" : "", an->ops[i].name, w);
	}
	l = add(L, OVL_TEXT, 0, 0);
	l = add(L, OVL_HEAD, 0, 0);
	snprintf(l->text, sizeof(l->text), " Findings%s", v->nfindings ? "" : ": none");
	for (i = 0; i < v->nfindings; i++)
		add_wrapped(L, OVL_FINDING, (long)i, " ! ", v->findings[i].text, w - 1);
}

/* The bar chart's row r (0 = top): one column per step, or the longest of
 * each few, BAR_ROWS x 8 levels high. */
static void draw_bars(struct app *a, int y, int r, int w)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	/* ASCII's eighths, low to high: one '.' for every partial level
	 * flattened 785 ms and 982 ms steps into the same mark. */
	static const char *const ascii[8] = { "_", "_", ".", ".", "-", "=", "+", "#" };
	const struct xt_analysis *an = a->an;
	int64_t max = an->overview.step_max_ps;
	int cols = w - 4, c, x = 2, wide = 1;
	size_t n = an->nsteps;

	ui_put(y, 0, w, term_attr(ROLE_TEXT), "", 1);
	if (max <= 0 || cols <= 0)
		return;
	/* Few steps: each a bar up to 3 columns wide, a column apart. */
	if ((size_t)cols >= 2 * n) {
		wide = cols / (int)n - 1;
		wide = wide > 3 ? 3 : wide < 1 ? 1 : wide;
	}
	if ((size_t)cols > n)
		cols = (int)n;
	for (c = 0; c < cols; c++) {
		size_t s0 = (size_t)c * n / (size_t)cols, s1 = (size_t)(c + 1) * n / (size_t)cols, i;
		int64_t val = 0;
		int lvl, lo = (BAR_ROWS - 1 - r) * 8;
		const char *ch = " ";

		for (i = s0; i < s1; i++)
			if (an->steps[i].duration_ps > val)
				val = an->steps[i].duration_ps;
		lvl = (int)((__int128)val * (BAR_ROWS * 8) / max);
		if (lvl < 1 && val > 0)
			lvl = 1;
		if (lvl >= lo + 8)
			ch = term.ascii ? ascii[7] : blocks[7];
		else if (lvl > lo)
			ch = term.ascii ? ascii[lvl - lo - 1] : blocks[lvl - lo - 1];
		{
			int k;

			for (k = 0; k < wide; k++)
				ui_put(y, x + c * (wide > 1 ? wide + 1 : 1) + k, 1, term_attr(ROLE_BAR),
				       ch, 0);
		}
	}
}

static void lines_fini(struct ov_lines *L)
{
	free(L->v);
	memset(L, 0, sizeof(*L));
}

static void ov_draw(struct app *a, int y, int h)
{
	struct ov_lines L = { 0 };
	long first = -1, last = -1;
	size_t i;
	int row, full = h;

	build(a, &L, a->cols);
	/* More lines than rows: the last row says how many are below (the
	 * findings come last, and a header with nothing under it reads as
	 * none). */
	if ((long)L.n > h && h > 1)
		h--;
	if (a->ovs.sel >= L.nitems)
		a->ovs.sel = L.nitems - 1;
	if (a->ovs.sel < 0)
		a->ovs.sel = 0;
	/* Keep the selected item's lines on screen. */
	for (i = 0; i < L.n; i++)
		if (L.v[i].item == a->ovs.sel && L.nitems) {
			if (first < 0)
				first = (long)i;
			last = (long)i;
		}
	/* The last item selected: the lines after it ("Findings: none") come
	 * on screen too, as the hint below promised. */
	if (last >= 0 && a->ovs.sel == L.nitems - 1)
		last = (long)L.n - 1;
	if (first >= 0 && first < a->ovs.top)
		a->ovs.top = first;
	if (last >= 0 && last >= a->ovs.top + h)
		a->ovs.top = last - h + 1;
	if (a->ovs.top > (long)L.n - h)
		a->ovs.top = (long)L.n - h > 0 ? (long)L.n - h : 0;
	if (a->ovs.top < 0)
		a->ovs.top = 0;
	for (row = 0, i = (size_t)a->ovs.top; row < h; row++, i++) {
		int attr;

		if (i >= L.n) {
			ui_put(y + row, 0, a->cols, term_attr(ROLE_TEXT), "", 1);
			continue;
		}
		if (L.v[i].kind == OVL_BARS) {
			draw_bars(a, y + row, (int)L.v[i].idx, a->cols);
			continue;
		}
		attr = L.v[i].kind == OVL_HEAD ? term_attr(ROLE_HEADER) : term_attr(ROLE_TEXT);
		if (L.v[i].item >= 0 && L.v[i].item == a->ovs.sel)
			attr = term_attr(ROLE_SELECT);
		ui_put(y + row, 0, a->cols, attr, L.v[i].text, 1);
	}
	if (h < full) {
		char more[96];
		long below = (long)L.n - (a->ovs.top + h);

		if (below > 0)
			snprintf(more, sizeof(more), " %s %ld more line%s below (Down)", term.g.fold_open,
				 below, below == 1 ? "" : "s");
		else
			more[0] = '\0';
		ui_put(y + h, 0, a->cols, term_attr(ROLE_DIM), more, 1);
	}
	lines_fini(&L);
}

void app_goto_gap(struct app *a, const struct xt_device_row *d)
{
	int64_t s = d->longest_gap_start_ps, e = xt_sat_add(s, d->longest_gap_ps), pad;
	long track = -1;
	size_t i;
	char b1[32], b2[32];

	for (i = 0; i < a->tl->ntracks && track < 0; i++)
		if (!strcmp(a->tl->tracks[i].p->name, d->name) &&
		    !strcmp(a->t->hosts[a->tl->tracks[i].host].name, d->host))
			track = (long)i;
	if (d->longest_gap_ps <= 0) {
		/* Say which device of which host, and why there is none. */
		app_status(a, 0, "%s%s%s has no gap: %s", a->t->nhosts > 1 ? d->host : "",
			   a->t->nhosts > 1 ? " " : "", d->name,
			   !d->op_events      ? "no events"
			   : !d->span_ps      ? "only instants, no span"
			   : !xt_device_has_gaps(d) ? "its gaps are not measured"
						    : "busy throughout its span");
		return;
	}
	timeline_clamp(a->tl, &s, &e);
	pad = (e - s) / 4 + 1;
	app_jump(a, s - pad, e + pad, s, track, -1);
	app_status(a, 0, "%s: longest gap %s at %s", d->name, fmt_ps(b1, sizeof(b1), d->longest_gap_ps),
		   timeaxis_fmt(a, b2, sizeof(b2), d->longest_gap_start_ps));
}

static const struct xt_device_row *device_named(struct app *a, const struct xt_finding *f)
{
	const char *host = NULL, *dev = NULL;
	size_t i;

	for (i = 0; i < f->nnum; i++) {
		if (!strcmp(f->num[i].key, "host"))
			host = f->num[i].str;
		if (!strcmp(f->num[i].key, "device"))
			dev = f->num[i].str;
	}
	for (i = 0; dev && i < a->an->ndevices; i++)
		if (!strcmp(a->an->devices[i].name, dev) &&
		    (!host || !strcmp(a->an->devices[i].host, host)))
			return &a->an->devices[i];
	return NULL;
}

static long op_named(struct app *a, const struct xt_finding *f)
{
	const char *op = NULL, *prog = "";
	size_t i;

	for (i = 0; i < f->nnum; i++) {
		if (!strcmp(f->num[i].key, "op"))
			op = f->num[i].str;
		if (!strcmp(f->num[i].key, "program"))
			prog = f->num[i].str;
	}
	for (i = 0; op && i < a->an->nops; i++)
		if (!strcmp(a->an->ops[i].name, op) && (!*prog || !strcmp(a->an->ops[i].program, prog)))
			return (long)i;
	return -1;
}

static unsigned follow(struct app *a, const struct ov_line *l)
{
	const struct xt_finding *f;
	const struct xt_device_row *d;
	long op;

	switch (l->kind) {
	case OVL_DEVICE:
		app_goto_gap(a, &a->an->devices[l->idx]);
		return UI_REDRAW;
	case OVL_OP:
		view_ops_focus(a, l->idx);
		return UI_REDRAW;
	case OVL_FINDING:
		f = &a->an->overview.findings[l->idx];
		if ((d = device_named(a, f))) {
			app_goto_gap(a, d);
		} else if (!strcmp(f->id, "h2d_in_steps") || !strcmp(f->id, "d2h_in_steps")) {
			/* Their figures are the steps' (the op they may name is
			 * one of the host offloads behind them). */
			a->view = VIEW_STEPS;
		} else if ((op = op_named(a, f)) >= 0) {
			view_ops_focus(a, op);
		} else {
			app_status(a, 0, "%s: the numbers are in the finding (/ searches the timeline)",
				   f->id);
		}
		return UI_REDRAW;
	default:
		return 0;
	}
}

/* PgDn/PgUp: the screen scrolls a page, and the selection goes to the
 * item whose first line is the farthest within that page of its own (a
 * long finding moves it one item, not past it). */
static void page_by(struct app *a, const struct ov_lines *L, int down)
{
	long page = a->rows > 5 ? a->rows - 3 : 1, at = -1, want, best = -1;
	size_t i;

	for (i = 0; i < L->n && at < 0; i++)
		if (L->v[i].item == a->ovs.sel)
			at = (long)i;
	if (at < 0 || !L->nitems)
		return;
	want = down ? at + page : at - page;
	for (i = 0; i < L->n; i++) {
		long it = L->v[i].item;

		if (it < 0 || (i > 0 && L->v[i - 1].item == it))
			continue; /* not an item's first line */
		if (down && it > a->ovs.sel && (long)i <= want)
			best = it;
		if (!down && it < a->ovs.sel && (long)i >= want && best < 0)
			best = it;
	}
	if (best < 0) /* the next item is more than a page away */
		best = down ? (a->ovs.sel + 1 < L->nitems ? a->ovs.sel + 1 : a->ovs.sel)
			    : (a->ovs.sel > 0 ? a->ovs.sel - 1 : 0);
	a->ovs.sel = best;
	a->ovs.top += down ? page : -page;
}

static unsigned ov_act(struct app *a, enum action act)
{
	struct ov_lines L = { 0 };
	unsigned r = UI_REDRAW;
	size_t i;

	build(a, &L, a->cols);
	switch (act) {
	case ACT_UP:
		a->ovs.sel = a->ovs.sel > 0 ? a->ovs.sel - 1 : 0;
		break;
	case ACT_DOWN:
		a->ovs.sel = a->ovs.sel + 1 < L.nitems ? a->ovs.sel + 1 : a->ovs.sel;
		break;
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		page_by(a, &L, act == ACT_PAGE_DOWN);
		break;
	case ACT_HOME:
		a->ovs.sel = 0;
		a->ovs.top = 0;
		break;
	case ACT_END:
		a->ovs.sel = L.nitems ? L.nitems - 1 : 0;
		break;
	case ACT_ENTER:
		r = 0;
		for (i = 0; i < L.n; i++)
			if (L.v[i].item == a->ovs.sel) {
				r = follow(a, &L.v[i]);
				break;
			}
		break;
	default:
		r = 0;
	}
	lines_fini(&L);
	return r;
}

const struct view view_overview = { "overview", SCOPE_OVERVIEW, ov_draw, ov_act, NULL, 0 };
