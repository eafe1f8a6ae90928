/*
 * view_lists: the steps view (one row per step with a stacked breakdown bar
 * and the averages) and the memory view (per allocator: peak, a usage chart
 * over time with the peak marked, the allocations live at the peak). Both
 * lists are panels (panel.c): sortable by their columns, filtered with \\,
 * and a step or an allocator stays selected across refreshes (a new
 * capture, another sort). Enter takes the timeline to the step or to the
 * peak, marked there.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"
#include "timeaxis.h"

/* Letters for terminals of 8 colours or none; colours come from the event
 * palette, whose 8-colour form has four hues for five categories (compute
 * and host would both be cyan), so there the letters stay. */
static const char cat_letter[XT_CAT_COUNT + 1] = { 'C', 'O', 'X', 'I', 'H', '.' };
static const char *const cat_label[XT_CAT_COUNT + 1] = { "compute", "dev->host", "collectives",
							 "host->dev", "host", "idle" };
/* The legend's words where the whole ones do not fit (60 columns). */
static const char *const cat_short[XT_CAT_COUNT + 1] = { "comp", "d2h", "coll", "h2d", "host",
							 "idle" };

static int cat_role(int c)
{
	return c == XT_CAT_COUNT ? ROLE_DIM : ROLE_EV0 + c;
}

static int cat_attr(int c)
{
	return term_attr((enum term_role)cat_role(c));
}

/* ---- steps ---- */

/* Row nsteps of the steps panel's callbacks is the average over the
 * steps shown (drawn above the list, never listed): with a filter, the
 * average of those it keeps, as their column sums would be. */
static void step_of(const struct app *a, size_t row, struct xt_step_row *out)
{
	const struct xt_analysis *an = a->an;
	const struct panel *p = &a->steps;
	size_t i, n = p->filter[0] ? p->norder : an->nsteps;
	int c;

	if (row < an->nsteps) {
		*out = an->steps[row];
		return;
	}
	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		const struct xt_step_row *s = &an->steps[p->filter[0] ? p->order[i] : i];

		out->duration_ps += s->duration_ps;
		for (c = 0; c < XT_CAT_COUNT; c++)
			out->cat_ps[c] += s->cat_ps[c];
		out->idle_ps += s->idle_ps;
	}
	if (n) {
		out->duration_ps /= (int64_t)n;
		for (c = 0; c < XT_CAT_COUNT; c++)
			out->cat_ps[c] /= (int64_t)n;
		out->idle_ps /= (int64_t)n;
	}
	out->start_ps = INT64_MIN;
}

static size_t steps_count(void *ctx, int width)
{
	return ((struct app *)ctx)->an->nsteps;
}

static void steps_key(void *ctx, size_t row, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRId64, ((struct app *)ctx)->an->steps[row].id);
}

static void col_step(void *ctx, size_t row, char *buf, size_t n)
{
	struct app *a = ctx;

	if (row == a->an->nsteps && !a->steps.filter[0])
		snprintf(buf, n, "average");
	else if (row == a->an->nsteps) /* the filter's: how many it averages */
		snprintf(buf, n, "avg %zu", a->steps.norder);
	else
		snprintf(buf, n, "%" PRId64, a->an->steps[row].id);
}

static void col_start(void *ctx, size_t row, char *buf, size_t n)
{
	struct app *a = ctx;
	struct xt_step_row s;

	step_of(a, row, &s);
	if (s.start_ps == INT64_MIN)
		buf[0] = '\0';
	else
		fmt_ps_apart(buf, n, timeaxis_rel(a, s.start_ps), a->step_starts.unit,
			     a->step_starts.dec);
}

/* Steps that start within a few ms of each other read alike in fmt_ps's
 * three digits ("1.64 s" three times): the START column's precision,
 * worked out once per analysis. */
static void step_starts_fit(struct app *a, int w)
{
	const struct xt_analysis *an = a->an;
	int64_t *v, origin = timeaxis_rel(a, 0);
	size_t i;

	if (a->step_starts.an == an->serial && a->step_starts.n == an->nsteps &&
	    a->step_starts.origin == origin)
		return;
	v = xmalloc((an->nsteps ? an->nsteps : 1) * sizeof(*v));
	for (i = 0; i < an->nsteps; i++)
		v[i] = timeaxis_rel(a, an->steps[i].start_ps);
	timefmt_apart(v, an->nsteps, w, &a->step_starts.unit, &a->step_starts.dec);
	free(v);
	a->step_starts.an = an->serial;
	a->step_starts.n = an->nsteps;
	a->step_starts.origin = origin;
}

static void col_duration(void *ctx, size_t row, char *buf, size_t n)
{
	struct xt_step_row s;

	step_of(ctx, row, &s);
	fmt_ps(buf, n, s.duration_ps);
}

/* The cells of each part of a bar w wide over total: each part's exact
 * share rounded down, then the cells left over to the parts with the
 * largest remainders. (Idle took them all before: a step of 9 % host and
 * 1 % idle drew no host and an idle cell in nine.) */
static void bar_cells(const int64_t *v, int n, int64_t total, int w, int *cells)
{
	__int128 rem[XT_CAT_COUNT + 1];
	int c, left = w;

	for (c = 0; c < n; c++) {
		__int128 x = (__int128)(v[c] > 0 ? v[c] : 0) * w;

		cells[c] = (int)(x / total);
		rem[c] = x % total;
		left -= cells[c];
	}
	while (left > 0) {
		int best = -1;

		for (c = 0; c < n; c++)
			if (rem[c] > 0 && (best < 0 || rem[c] > rem[best]))
				best = c;
		if (best < 0)
			break;
		cells[best]++;
		rem[best] = 0;
		left--;
	}
}

/* A stacked bar of the breakdown: each category gets its share of w. */
static void col_bar(void *ctx, size_t row, struct cellrow *r, int x, int w)
{
	struct xt_step_row s;
	int64_t v[XT_CAT_COUNT + 1];
	int cells[XT_CAT_COUNT + 1];
	int c, used = 0;

	step_of(ctx, row, &s);
	memcpy(v, s.cat_ps, sizeof(int64_t) * XT_CAT_COUNT);
	v[XT_CAT_COUNT] = s.idle_ps;
	cellrow_fill(r, x, w, ROLE_TEXT, 0);
	if (s.duration_ps <= 0 || w <= 0)
		return;
	bar_cells(v, XT_CAT_COUNT + 1, s.duration_ps, w, cells);
	for (c = 0; c <= XT_CAT_COUNT; c++) {
		char ch[2] = { cat_letter[c], 0 };
		int k;

		for (k = 0; k < cells[c] && used < w; k++, used++)
			cellrow_put(r, x + used, 1, cat_role(c), 0, term.colors == 256 ? " " : ch);
	}
}

static int64_t cmp64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

static int cmp_step(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)cmp64(an->steps[x].id, an->steps[y].id);
}

static int cmp_start(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)cmp64(an->steps[x].start_ps, an->steps[y].start_ps);
}

static int cmp_duration(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)cmp64(an->steps[y].duration_ps, an->steps[x].duration_ps); /* longest first */
}

/* The breakdown's categories as columns (c = XT_CAT_COUNT: idle). */
static int64_t cat_ps(const struct xt_step_row *s, int c)
{
	return c == XT_CAT_COUNT ? s->idle_ps : s->cat_ps[c];
}

static void cat_text(void *ctx, size_t row, int c, char *buf, size_t n)
{
	struct xt_step_row s;

	step_of(ctx, row, &s);
	fmt_ps(buf, n, cat_ps(&s, c));
}

static int cat_cmp(void *ctx, size_t x, size_t y, int c)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)cmp64(cat_ps(&an->steps[y], c), cat_ps(&an->steps[x], c)); /* most first */
}

#define CAT_COLUMN(c)                                                                  \
	static void col_cat##c(void *ctx, size_t row, char *buf, size_t n)             \
	{                                                                              \
		cat_text(ctx, row, c, buf, n);                                         \
	}                                                                              \
	static int cmp_cat##c(void *ctx, size_t x, size_t y)                           \
	{                                                                              \
		return cat_cmp(ctx, x, y, c);                                          \
	}
CAT_COLUMN(0)
CAT_COLUMN(1)
CAT_COLUMN(2)
CAT_COLUMN(3)
CAT_COLUMN(4)
CAT_COLUMN(5)

/* The categories as columns, the narrowest screens losing the rarest first
 * (and before them any that is 0 in every step: steps_empty); the bar takes
 * what is left. */
#define STEP_COL_CAT0 3 /* COMPUTE's column; the others follow in XT_CAT order */
static const struct panel_column step_columns[] = {
	{ "STEP", 8, 1, 0, col_step, NULL, cmp_step, "the step's number" },
	{ "START", 10, 1, 6, col_start, NULL, cmp_start, /* before a category that holds time */
	  "when it began, on the timeline's axis" },
	{ "DURATION", 10, 1, 0, col_duration, NULL, cmp_duration,
	  "its length: the columns after it add up to it" },
	{ "COMPUTE", 9, 1, 0, col_cat0, NULL, cmp_cat0, "device ops that compute" },
	{ "D2H", 9, 1, 5, col_cat1, NULL, cmp_cat1, "device-to-host copies and offloads" },
	{ "COLLECT", 9, 1, 3, col_cat2, NULL, cmp_cat2, "collectives (all-reduce, all-gather...)" },
	{ "H2D", 9, 1, 4, col_cat3, NULL, cmp_cat3, "host-to-device copies and prefetches" },
	{ "HOST", 9, 1, 2, col_cat4, NULL, cmp_cat4, "the host working, no device op running" },
	{ "IDLE", 9, 1, 1, col_cat5, NULL, cmp_cat5, "neither device nor host at work" },
	{ "BREAKDOWN", 0, 0, 0, NULL, col_bar, NULL, "the columns as a bar (legend above)" },
};
static const struct panel_ops steps_ops = { steps_count, steps_key, NULL, NULL, NULL, NULL };

static struct panel *steps_panel(struct app *a)
{
	if (!a->steps.ops) {
		panel_init(&a->steps, &steps_ops, a, step_columns,
			   sizeof(step_columns) / sizeof(step_columns[0]));
		a->steps.sort = 0;
	}
	return &a->steps;
}

/* The category columns that are 0 in every step (bits of step_columns):
 * when the screen is narrow they go before those that say something, as
 * in the report ("COLLECTIVE: 0 in every step"). */
static unsigned long steps_empty(const struct xt_analysis *an)
{
	unsigned long empty = 0;
	int c;

	for (c = 0; c <= XT_CAT_COUNT; c++) {
		size_t i;

		for (i = 0; i < an->nsteps && !cat_ps(&an->steps[i], c); i++)
			;
		if (i == an->nsteps)
			empty |= 1ul << (STEP_COL_CAT0 + c);
	}
	return empty;
}

/* The droppable category columns by what they hold: the least time over
 * all steps goes first (a fixed order hid the V100's 12.13 us of D2H and
 * kept its 22.43 us of H2D... and could hide more time than it kept). */
#define STEP_NCOLS (sizeof(step_columns) / sizeof(step_columns[0]))
_Static_assert(STEP_NCOLS <= sizeof(((struct app *)0)->steps_drop) / sizeof(int),
	       "app.steps_drop holds a drop rank per step column");

static void steps_drop_order(const struct xt_analysis *an, int *step_drop)
{
	int64_t tot[XT_CAT_COUNT + 1] = { 0 };
	size_t i;
	int c, k;

	for (c = 0; c < (int)STEP_NCOLS; c++)
		step_drop[c] = step_columns[c].drop;
	for (i = 0; i < an->nsteps; i++)
		for (c = 0; c <= XT_CAT_COUNT; c++)
			tot[c] += cat_ps(&an->steps[i], c);
	/* Among the droppable ones (all but COMPUTE), rank by total: the
	 * largest drops last (1), the smallest first. */
	for (c = 1; c <= XT_CAT_COUNT; c++) {
		int rank = 1;

		for (k = 1; k <= XT_CAT_COUNT; k++)
			if (k != c && (tot[k] > tot[c] || (tot[k] == tot[c] && k > c)))
				rank++;
		step_drop[STEP_COL_CAT0 + c] = rank;
	}
}

static void steps_draw(struct app *a, int y, int h)
{
	const struct xt_analysis *an = a->an;
	struct panel *p = steps_panel(a);
	struct cellrow r;
	char line[512], b1[32];
	long sel;
	int c, x, rows;
	unsigned long empty = an->nsteps ? steps_empty(an) : 0;
	/* The legend's band: with 8 colours the header's green is the
	 * dev->host swatch's, which vanished in it; the plain background then. */
	int band = term_attr(term.colors == 8 ? ROLE_TEXT : ROLE_HEADER);

	if (!an->nsteps) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT),
		       "  no steps: no step markers, and no XLA module ran twice", 1);
		ui_put(y + 2, 0, a->cols, term_attr(ROLE_DIM),
		       "  (jax.profiler.StepTraceAnnotation(\"train\", step_num=i) marks steps)", 1);
		return;
	}
	/* Legend, the header, the averages, one row per step, the selected
	 * step in numbers. A category 0 in every step has no colour in any
	 * bar nor a column (a column of "0 ps" took the bar's room): the
	 * legend names it apart, where it fits. */
	{
		/* Whole entries only: a swatch whose word is cut off says
		 * nothing. The short words when the long ones do not fit. */
		const char *const *label = cat_label;
		int need = 8, none = 0;

		for (c = 0; c <= XT_CAT_COUNT; c++)
			if (!((empty >> (STEP_COL_CAT0 + c)) & 1))
				need += 3 + (int)strlen(cat_label[c]);
			else
				need += (none++ ? 2 : 13) + (int)strlen(cat_label[c]);
		if (need > a->cols)
			label = cat_short;
		x = ui_put(y, 0, a->cols, band, " legend:", 0);
		for (c = 0; c <= XT_CAT_COUNT && x + 3 + (int)strlen(label[c]) <= a->cols; c++) {
			char ch[2] = { cat_letter[c], 0 };

			if ((empty >> (STEP_COL_CAT0 + c)) & 1)
				continue;
			x += ui_put(y, x, 1, band, " ", 0);
			x += ui_put(y, x, 1, cat_attr(c), term.colors == 256 ? " " : ch, 0);
			x += ui_put(y, x, 1, band, " ", 0);
			x += ui_put(y, x, a->cols - x, band, label[c], 0);
		}
		for (c = 0, none = 0; c <= XT_CAT_COUNT; c++) {
			const char *head = none ? ", " : "   0 in all: ";

			if (!((empty >> (STEP_COL_CAT0 + c)) & 1))
				continue;
			if (x + (int)strlen(head) + (int)strlen(label[c]) > a->cols)
				break;
			x += ui_put(y, x, a->cols - x, band, head, 0);
			x += ui_put(y, x, a->cols - x, band, label[c], 0);
			none++;
		}
	}
	ui_put(y, x, a->cols - x, band, "", 1);
	/* Where the steps come from: a line of its own when they are only
	 * inferred, since then the user should know how to mark them. */
	if (an->steps_source == XT_STEPS_INFERRED) {
		snprintf(line, sizeof(line), " inferred: runs of %s (no step markers; mark steps with "
					     "jax.profiler.StepTraceAnnotation)", an->steps_module);
		rows = ui_put_wrap(++y, a->cols, h > 2 ? 2 : 1, term_attr(ROLE_DIM), line, 3);
		y += rows - 1;
		h -= rows;
	} else {
		snprintf(line, sizeof(line), " steps from %s",
			 an->steps_from_device ? "device Steps lines" : "host step markers");
		if (a->cols - (int)strlen(line) - 1 > x)
			ui_put(y, a->cols - (int)strlen(line) - 1, (int)strlen(line) + 1,
			       band, line, 1);
	}
	if (h < 5)
		return;
	p->empty = empty;
	p->hide_empty = 1;
	steps_drop_order(an, a->steps_drop);
	p->drop_at = a->steps_drop;
	step_starts_fit(a, step_columns[1].width);
	panel_refresh(p, a->cols);
	cellrow_init(&r, a->cols);
	panel_header(p, &r, a->cols);
	term_put_cells(y + 1, 0, &r);
	if (p->filter[0] && !p->norder) /* no step to average */
		cellrow_fill(&r, 0, a->cols, ROLE_TEXT, 0);
	else
		panel_draw_row(p, an->nsteps, &r, a->cols, 0);
	for (x = 0; x < r.w; x++)
		if (r.c[x].role == ROLE_TEXT)
			r.c[x].flags |= CELL_BOLD;
	term_put_cells(y + 2, 0, &r);
	cellrow_fini(&r);
	ui_panel(p, y + 3, 0, h - 4, a->cols);
	sel = panel_selected(p);
	if (sel >= 0) {
		const struct xt_step_row *s = &an->steps[sel];
		int n = 0, keep[XT_CAT_COUNT + 1], width, k, least;
		char part[XT_CAT_COUNT + 1][48];

		/* The selected step's breakdown as shares: what is not zero, so
		 * that it fits the line (the columns have the times). Whole
		 * shares only: when they do not all fit, the smallest give way,
		 * and an ellipsis says so. */
		n += snprintf(line + n, sizeof(line) - (size_t)n, " step %" PRId64 ", %s:", s->id,
			      fmt_ps(b1, sizeof(b1), s->duration_ps));
		width = n;
		for (c = 0; c <= XT_CAT_COUNT; c++) {
			int64_t v = cat_ps(s, c);

			keep[c] = v > 0 && s->duration_ps > 0;
			part[c][0] = '\0';
			if (keep[c]) {
				snprintf(part[c], sizeof(part[c]), " %s %.1f%%", cat_label[c],
					 100.0 * (double)v / (double)s->duration_ps);
				width += (int)strlen(part[c]);
			}
		}
		for (k = 0; width > a->cols; k++) {
			/* Leave out the smallest share left, and room for the mark. */
			for (least = -1, c = 0; c <= XT_CAT_COUNT; c++)
				if (keep[c] && (least < 0 || cat_ps(s, c) < cat_ps(s, least)))
					least = c;
			if (least < 0)
				break;
			keep[least] = 0;
			width -= (int)strlen(part[least]) + (k ? 0 : -2);
		}
		for (c = 0; c <= XT_CAT_COUNT; c++)
			if (keep[c])
				n += snprintf(line + n, sizeof(line) - (size_t)n, "%s", part[c]);
		if (k)
			snprintf(line + n, sizeof(line) - (size_t)n, " %s", term.g.ellipsis);
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	} else {
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), " no step matches the filter", 1);
	}
}

/* The track and event that stand for time t: an event starting at t on a
 * line of host `host` (NULL: any) whose name starts with `prefix` (NULL:
 * any), on a device plane first. Returns the track or -1. */
static long event_at(struct app *a, const char *host, int64_t t, const char *prefix, int64_t *ev)
{
	long best = -1;
	size_t i, e, first, end;
	int pass;

	for (pass = 0; pass < 2 && best < 0; pass++) {
		for (i = 0; i < a->tl->ntracks && best < 0; i++) {
			const struct tl_track *tr = &a->tl->tracks[i];
			int device = !strncmp(tr->p->name, "/device:", 8);

			if ((pass == 0) != device)
				continue;
			if (host && strcmp(a->t->hosts[tr->host].name, host))
				continue;
			end = trace_line_window(tr->l, t, t + 1, &first);
			for (e = first; e < end; e++) {
				const struct xt_event *x = &tr->l->ev[e];

				if (xt_event_aggregated(x) || xt_event_start(tr->l, x) != t)
					continue;
				if (prefix && strncmp(trace_event_display_name(tr->p, x), prefix,
						      strlen(prefix)))
					continue;
				best = (long)i;
				*ev = (int64_t)e;
				break;
			}
		}
	}
	return best;
}

static unsigned steps_act(struct app *a, enum action act)
{
	struct panel *p = steps_panel(a);
	long sel = panel_selected(p);

	if (act == ACT_ENTER && sel >= 0) {
		const struct xt_step_row *s = &a->an->steps[sel];
		int64_t ev = -1, pad = s->duration_ps / 20;
		long tr = event_at(a, NULL, s->start_ps, NULL, &ev);

		/* The step with a little room on both sides; its start marked,
		 * on the track of the event that marks it. */
		app_jump(a, s->start_ps - pad, s->start_ps + s->duration_ps + pad, s->start_ps, tr, ev);
		app_status(a, 0, "step %" PRId64, s->id);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

/* ---- memory ---- */

static size_t mem_count(void *ctx, int width)
{
	return ((struct app *)ctx)->an->nmemory;
}

static void mem_key(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_memory_row *m = &((struct app *)ctx)->an->memory[row];

	snprintf(buf, n, "%s%c%s", m->host, 1, m->allocator);
}

static void col_host(void *ctx, size_t row, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ((struct app *)ctx)->an->memory[row].host);
}

/* Readable: device and memory space ("TPU:0 HBM"); the profile's own key
 * is in the line under the chart. */
static void col_alloc(void *ctx, size_t row, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ((struct app *)ctx)->an->memory[row].name);
}

static void col_peak(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_bytes(buf, n, (double)((struct app *)ctx)->an->memory[row].peak_bytes);
}

static void col_at(void *ctx, size_t row, char *buf, size_t n)
{
	struct app *a = ctx;

	timeaxis_fmt(a, buf, n, a->an->memory[row].peak_time_ps);
}

static void col_lifetime(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_bytes(buf, n, (double)((struct app *)ctx)->an->memory[row].lifetime_peak_bytes);
}

static void col_capacity(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_bytes(buf, n, (double)((struct app *)ctx)->an->memory[row].capacity_bytes);
}

#define MEM(x, y) (&((struct app *)ctx)->an->memory[x])
static int cmp_host(void *ctx, size_t x, size_t y)
{
	int r = strcmp(MEM(x, y)->host, MEM(y, x)->host);

	return r ? r : strcmp(MEM(x, y)->allocator, MEM(y, x)->allocator);
}
static int cmp_peak(void *ctx, size_t x, size_t y)
{
	return (int)cmp64(MEM(y, x)->peak_bytes, MEM(x, y)->peak_bytes);
}
static int cmp_at(void *ctx, size_t x, size_t y)
{
	return (int)cmp64(MEM(x, y)->peak_time_ps, MEM(y, x)->peak_time_ps);
}
static int cmp_lifetime(void *ctx, size_t x, size_t y)
{
	return (int)cmp64(MEM(y, x)->lifetime_peak_bytes, MEM(x, y)->lifetime_peak_bytes);
}
static int cmp_capacity(void *ctx, size_t x, size_t y)
{
	return (int)cmp64(MEM(y, x)->capacity_bytes, MEM(x, y)->capacity_bytes);
}
#undef MEM

static int cmp_name(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return strcmp(an->memory[x].name, an->memory[y].name);
}

static const struct panel_column mem_columns[] = {
	{ "HOST", 18, 0, 3, col_host, NULL, cmp_host, "the host the allocator is on" },
	{ "MEMORY", 0, 0, 0, col_alloc, NULL, cmp_name, "the allocator: its device and memory" },
	{ "PEAK", 11, 1, 0, col_peak, NULL, cmp_peak,
	  "most in use (reserved + allocated) in the profile" },
	{ "AT", 13, 1, 0, col_at, NULL, cmp_at, "when the peak was last reached" },
	{ "LIFETIME", 11, 1, 2, col_lifetime, NULL, cmp_lifetime,
	  "the allocator's own peak since it began, before the profile too" },
	{ "CAPACITY", 11, 1, 1, col_capacity, NULL, cmp_capacity,
	  "reserved + allocated + available at the peak" },
};
static const struct panel_ops mem_ops = { mem_count, mem_key, NULL, NULL, NULL, NULL };

static struct panel *mem_panel(struct app *a)
{
	if (!a->mem.ops) {
		panel_init(&a->mem, &mem_ops, a, mem_columns,
			   sizeof(mem_columns) / sizeof(mem_columns[0]));
		a->mem.sort = 0;
		a->mem.header = 1;
	}
	return &a->mem;
}

static void mem_chart(struct app *a, const struct xt_memory_row *m, int y, int h, int w)
{
	int64_t max = 0;
	int c, r, peak_col = -1;

	for (c = 0; c < XT_MEM_SERIES; c++)
		if (m->series[c] > max)
			max = m->series[c];
	if (max <= 0 || h < 2 || w < 4)
		return;
	/* The peak's series slice, mapped to a column as the bars are. */
	if (m->last_ps > m->first_ps) {
		int slice = (int)((__int128)(m->peak_time_ps - m->first_ps) * (XT_MEM_SERIES - 1) /
				  (m->last_ps - m->first_ps));

		for (peak_col = 0; peak_col + 1 < w; peak_col++)
			if (slice < (peak_col + 1) * XT_MEM_SERIES / w)
				break;
	} else {
		peak_col = 0;
	}
	for (c = 0; c < w; c++) {
		/* Each column takes the most in use of the series slices it covers. */
		int s0 = c * XT_MEM_SERIES / w, s1 = (c + 1) * XT_MEM_SERIES / w, s;
		int64_t v = -1;
		int height;

		if (s1 <= s0)
			s1 = s0 + 1;
		for (s = s0; s < s1 && s < XT_MEM_SERIES; s++)
			if (m->series[s] > v)
				v = m->series[s];
		height = v < 0 ? 0 : (int)((__int128)v * (h - 1) / max) + (v > 0);
		/* Colour: coloured blanks; mono: block glyphs in plain video (a
		 * reversed full block would be invisible). */
		for (r = 0; r < h - 1; r++)
			if (h - 1 - r <= height)
				ui_put(y + r, c, 1,
				       !term.colors ? (c == peak_col ? (int)A_BOLD : (int)A_NORMAL)
				       : c == peak_col ? term_attr(ROLE_SELECT)
						       : term_attr((enum term_role)ROLE_EV0),
				       term.colors ? " " : term.g.bar, 0);
	}
	if (peak_col >= 0)
		ui_put(y + h - 1, peak_col, 1, term_attr(ROLE_SELECT), term.g.peak, 0);
}

/* Rows a note below the chart may take: two, or what is left of the view. */
/* Rows for a wrapped line: up to most, as the panel has them. */
static int mem_rows_left(int y, int h, int row, int most)
{
	return y + h - row < most ? y + h - row : most;
}

static void mem_draw(struct app *a, int y, int h)
{
	const struct xt_analysis *an = a->an;
	struct panel *p = mem_panel(a);
	char line[512], b1[32], b2[32], b3[32], b4[32], b5[32];
	const struct xt_memory_row *m;
	size_t k;
	int row, list_h, chart_h;
	long sel;

	if (!an->nmemory) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT),
		       "  no memory events (MemoryAllocation / MemoryDeallocation) in this profile", 1);
		return;
	}
	/* A third of the view, or half when that shows every allocator: the
	 * V100's eight (two hosts) and the MI300X's hid their last at 80x24,
	 * the GPU that ran the kernels among them, with no sign of it. */
	list_h = (int)an->nmemory < h / 3 ? (int)an->nmemory : h / 3;
	if ((int)an->nmemory > list_h && (int)an->nmemory <= h / 2)
		list_h = (int)an->nmemory;
	if (list_h < 1)
		list_h = 1;
	ui_panel(p, y, 0, list_h + 1, a->cols);
	row = y + 1 + list_h;
	sel = panel_selected(p);
	if (sel < 0) {
		ui_put(row, 0, a->cols, term_attr(ROLE_DIM), " no allocator matches the filter", 1);
		return;
	}
	m = &an->memory[sel];
	{
		/* What fits whole: the chart's range gives way first, then the
		 * words; never a figure cut ("peak 20.02 GiB at 72."). Rows the
		 * list cannot show are counted first. */
		char more[64] = "", range[80], fit[512];
		int i;

		if (p->norder > (size_t)list_h)
			snprintf(more, sizeof(more), " %zu of %zu allocators shown (Up/Down);",
				 (size_t)list_h, p->norder);
		timeaxis_fmt(a, b1, sizeof(b1), m->first_ps);
		timeaxis_fmt(a, b2, sizeof(b2), m->last_ps);
		fmt_bytes(b3, sizeof(b3), (double)m->peak_bytes);
		timeaxis_fmt(a, b4, sizeof(b4), m->peak_time_ps);
		snprintf(range, sizeof(range), " (%s .. %s)", b1, b2);
		/* i: what gives way, in turn: the range, the words, the count. */
		for (i = 0; i < 4; i++) {
			snprintf(line, sizeof(line), "%s%s%s%s peak %s at %s %s%s", i < 3 ? more : "",
				 i < 2 ? " in use over time" : "", i == 0 ? range : "", i < 2 ? ";" : "",
				 b3, b4, i < 2 ? "marked " : "", term.g.peak);
			if (utf8_width(line) <= a->cols)
				break;
		}
		utf8_elide(fit, sizeof(fit), line, a->cols, term.g.ellipsis);
		ui_put(row++, 0, a->cols, term_attr(ROLE_DIM), fit, 1);
	}
	chart_h = (y + h - row) / 2;
	if (chart_h > 10)
		chart_h = 10;
	mem_chart(a, m, row, chart_h, a->cols);
	row += chart_h;
	/* The peak split so that it adds up (docs/analyses.md, "Memory"). */
	{
		int64_t listed = 0;

		for (k = 0; k < m->nlive; k++)
			listed += m->live[k].bytes;
		snprintf(line, sizeof(line), " peak %s = %zu largest live %s + %zu other live %s + "
					     "unattributed %s (reserved %s)",
			 fmt_bytes(b1, sizeof(b1), (double)m->peak_bytes), m->nlive,
			 fmt_bytes(b2, sizeof(b2), (double)listed),
			 m->nlive_total > m->nlive ? m->nlive_total - m->nlive : 0,
			 fmt_bytes(b3, sizeof(b3), (double)m->live_other_bytes),
			 fmt_bytes(b4, sizeof(b4), (double)m->unattributed_bytes),
			 fmt_bytes(b5, sizeof(b5), (double)m->reserved_bytes));
		/* Whole up to 40 columns: cut, its sum would not add up. */
		row += ui_put_wrap(row, a->cols, mem_rows_left(y, h, row, 4), term_attr(ROLE_TEXT),
				   line, 3);
	}
	snprintf(line, sizeof(line), " %s (allocator %s): live at the peak, largest first; "
				     "unattributed = in use with no allocation event in the profile",
		 m->name, m->allocator);
	row += ui_put_wrap(row, a->cols, mem_rows_left(y, h, row, 2), term_attr(ROLE_DIM), line, 3);
	for (k = 0; k < m->nlive && row < y + h; k++, row++) {
		if (row == y + h - 1 && k + 1 < m->nlive) {
			/* No room for the rest: say how many, not nothing. */
			snprintf(line, sizeof(line), "  %s %zu more live at the peak (a taller "
						     "terminal shows them)",
				 term.g.ellipsis, m->nlive - k);
			ui_put(row, 0, a->cols, term_attr(ROLE_DIM), line, 1);
			break;
		}
		/* The op's name gives way (its middle elided) to its shape:
		 * op names run long, and their tails tell them apart. */
		char op[256];
		int room = a->cols - 28 - 1 - utf8_width(m->live[k].shape);

		utf8_elide(op, sizeof(op), m->live[k].op[0] ? m->live[k].op : "(no op named)",
			   room < 16 ? 16 : room, term.g.ellipsis);
		snprintf(line, sizeof(line), "  %11s  %-11s %s%*s %s",
			 fmt_bytes(b1, sizeof(b1), (double)m->live[k].bytes),
			 timeaxis_fmt(a, b2, sizeof(b2), m->live[k].time_ps), op,
			 utf8_width(op) < 32 ? 32 - utf8_width(op) : 0, "", m->live[k].shape);
		ui_put(row, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
	}
}

static unsigned mem_act(struct app *a, enum action act)
{
	struct panel *p = mem_panel(a);
	long sel = panel_selected(p);

	if (act == ACT_ENTER && sel >= 0) {
		const struct xt_memory_row *m = &a->an->memory[sel];
		int64_t w = (a->tl->t1 - a->tl->t0) / 50 + 1, ev = -1;
		/* The allocation or deallocation that made the peak, on its host
		 * thread: the cursor goes there, the peak is marked. */
		long tr = event_at(a, m->host, m->peak_time_ps, "Memory", &ev);

		app_jump(a, m->peak_time_ps - w / 2, m->peak_time_ps + w / 2, m->peak_time_ps, tr, ev);
		if (tr >= 0)
			app_status(a, 0, "%s peak at the mark, on %s", m->name,
				   a->tl->tracks[tr].label);
		else
			app_status(a, 0, "%s peak at the mark", m->name);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

void view_lists_fini(struct app *a)
{
	if (a->steps.ops)
		panel_fini(&a->steps);
	if (a->mem.ops)
		panel_fini(&a->mem);
}

const struct view view_steps = { "steps", SCOPE_STEPS, steps_draw, steps_act, step_columns,
				 STEP_NCOLS };
const struct view view_memory = { "memory", SCOPE_MEMORY, mem_draw, mem_act, mem_columns,
				  sizeof(mem_columns) / sizeof(mem_columns[0]) };
