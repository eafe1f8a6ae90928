/*
 * view_lists: the steps view (one row per step with a stacked breakdown bar
 * and the averages), a panel (panel.c): sortable by its columns, filtered
 * with \\, and a step stays selected across refreshes (a new capture,
 * another sort). Enter takes the timeline to the step, marked there. The
 * memory view, a list too, is view_memory.c.
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

		out->duration_ps = xt_sat_add(out->duration_ps, s->duration_ps);
		for (c = 0; c < XT_CAT_COUNT; c++)
			out->cat_ps[c] = xt_sat_add(out->cat_ps[c], s->cat_ps[c]);
		out->idle_ps = xt_sat_add(out->idle_ps, s->idle_ps);
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

static int cmp_step(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)panel_cmp64(an->steps[x].id, an->steps[y].id);
}

static int cmp_start(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)panel_cmp64(an->steps[x].start_ps, an->steps[y].start_ps);
}

static int cmp_duration(void *ctx, size_t x, size_t y)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)panel_cmp64(an->steps[y].duration_ps, an->steps[x].duration_ps); /* longest first */
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
	/* No host activity in the profile: its host time is unknown, not 0. */
	if (c == XT_CAT_HOST_COMPUTE && !analysis_host_active(((struct app *)ctx)->an))
		snprintf(buf, n, "-");
	else
		fmt_ps(buf, n, cat_ps(&s, c));
}

static int cat_cmp(void *ctx, size_t x, size_t y, int c)
{
	const struct xt_analysis *an = ((struct app *)ctx)->an;

	return (int)panel_cmp64(cat_ps(&an->steps[y], c), cat_ps(&an->steps[x], c)); /* most first */
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
			tot[c] = xt_sat_add(tot[c], cat_ps(&an->steps[i], c));
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
		for (c = 0; c <= XT_CAT_COUNT; c++) {
			char ch[2] = { cat_letter[c], 0 };

			if ((empty >> (STEP_COL_CAT0 + c)) & 1)
				continue;
			if (x + 3 + (int)strlen(label[c]) > a->cols)
				break;
			x += ui_put(y, x, 1, band, " ", 0);
			x += ui_put(y, x, 1, cat_attr(c), term.colors == 256 ? " " : ch, 0);
			x += ui_put(y, x, 1, band, " ", 0);
			x += ui_put(y, x, a->cols - x, band, label[c], 0);
		}
		for (c = 0, none = 0; c <= XT_CAT_COUNT; c++) {
			const char *head = none ? ", " : "   0 in all: ";

			if (!((empty >> (STEP_COL_CAT0 + c)) & 1))
				continue;
			/* Unknown, not 0: the line under it says so. */
			if (c == XT_CAT_HOST_COMPUTE && !analysis_host_active(an))
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
		/* A step is then a run and the time until the next (the
		 * host's, the idle): the period a marker around the loop's
		 * body would give. */
		snprintf(line, sizeof(line), " inferred: runs of %s, each step from a run's start to "
					     "the next run's (no step markers; mark steps with "
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
	if (!analysis_host_active(an) && h > 6) {
		rows = ui_put_wrap(++y, a->cols, 2, term_attr(ROLE_DIM),
				   " host: unknown, the profile has no host activity (its tracer off?); "
				   "IDLE holds any host time", 3);
		y += rows - 1;
		h -= rows;
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
	if (p->filter[0] && !p->norder) /* no step to average */
		cellrow_fill(&r, 0, a->cols, ROLE_TEXT, 0);
	else
		panel_draw_row(p, an->nsteps, &r, a->cols, 0);
	for (x = 0; x < r.w; x++)
		if (r.c[x].role == ROLE_TEXT)
			r.c[x].flags |= CELL_BOLD;
	term_put_cells(y + 2, 0, &r);
	ui_panel(p, y + 3, 0, h - 4, a->cols);
	/* The header once the rows are placed: it says how many are above. */
	panel_header(p, &r, a->cols);
	panel_mark_above(&r, a->cols, p->top, p->up);
	term_put_cells(y + 1, 0, &r);
	cellrow_fini(&r);
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

static unsigned steps_act(struct app *a, enum action act)
{
	struct panel *p = steps_panel(a);
	long sel = panel_selected(p);

	if (act == ACT_ENTER && sel >= 0) {
		const struct xt_step_row *s = &a->an->steps[sel];
		int64_t ev = -1, t0 = s->start_ps, t1 = xt_sat_add(t0, s->duration_ps), pad;
		long tr = app_event_at(a, NULL, s->start_ps, NULL, &ev);

		/* The step with a little room on both sides; its start marked,
		 * on the track of the event that marks it. */
		timeline_clamp(a->tl, &t0, &t1);
		pad = (t1 - t0) / 20;
		app_jump(a, t0 - pad, t1 + pad, s->start_ps, tr, ev);
		app_status(a, 0, "step %" PRId64, s->id);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

void view_lists_fini(struct app *a)
{
	if (a->steps.ops)
		panel_fini(&a->steps);
}

const struct view view_steps = { "steps", SCOPE_STEPS, steps_draw, steps_act, step_columns,
				 STEP_NCOLS };
