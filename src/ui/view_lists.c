/*
 * view_lists: the steps view (one row per step with a stacked breakdown bar
 * and the averages) and the memory view (per allocator: peak, a usage chart
 * over time with the peak marked, the allocations live at the peak). Enter
 * takes the timeline to the step or to the peak.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"
#include "timeaxis.h"

/* Letters for mono terminals; colours come from the event palette. */
static const char cat_letter[XT_CAT_COUNT + 1] = { 'C', 'O', 'X', 'I', 'H', '.' };
static const char *const cat_label[XT_CAT_COUNT + 1] = { "compute", "dev->host", "collectives",
							 "host->dev", "host", "idle" };

static int cat_attr(int c)
{
	if (c == XT_CAT_COUNT)
		return term_attr(ROLE_DIM);
	return term_attr((enum term_role)(ROLE_EV0 + c));
}

static void list_clamp(struct list_state *ls, long n, int h)
{
	if (ls->sel >= n)
		ls->sel = n - 1;
	if (ls->sel < 0)
		ls->sel = 0;
	if (ls->sel < ls->top)
		ls->top = ls->sel;
	if (h > 0 && ls->sel >= ls->top + h)
		ls->top = ls->sel - h + 1;
}

static unsigned list_act(struct list_state *ls, struct app *a, enum action act)
{
	long page = a->rows > 6 ? a->rows - 6 : 1;

	switch (act) {
	case ACT_UP:
		ls->sel--;
		return UI_REDRAW;
	case ACT_DOWN:
		ls->sel++;
		return UI_REDRAW;
	case ACT_PAGE_UP:
		ls->sel -= page;
		return UI_REDRAW;
	case ACT_PAGE_DOWN:
		ls->sel += page;
		return UI_REDRAW;
	case ACT_HOME:
		ls->sel = 0;
		return UI_REDRAW;
	case ACT_END:
		ls->sel = 1L << 30;
		return UI_REDRAW;
	default:
		return 0;
	}
}

/* A stacked bar of the breakdown: each category gets its share of w. */
static void step_bar(int y, int x, int w, const int64_t *cat, int64_t idle, int64_t dur)
{
	int64_t v[XT_CAT_COUNT + 1];
	int c, used = 0;

	memcpy(v, cat, sizeof(int64_t) * XT_CAT_COUNT);
	v[XT_CAT_COUNT] = idle;
	for (c = 0; c <= XT_CAT_COUNT && dur > 0; c++) {
		int n = (int)((__int128)v[c] * w / dur), k;
		char ch[2] = { cat_letter[c], 0 };

		if (c == XT_CAT_COUNT)
			n = w - used;
		for (k = 0; k < n && used < w; k++, used++)
			ui_put(y, x + used, 1, cat_attr(c), term.colors ? " " : ch, 0);
	}
}

static void steps_draw(struct app *a, int y, int h)
{
	const struct xt_analysis *an = a->an;
	char line[512], b1[32], b2[32];
	int64_t sum[XT_CAT_COUNT + 2] = { 0 };
	int bar = a->cols - 36, row, c, x;
	size_t i;

	if (!an->nsteps) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT),
		       "  no steps: the profile has no device Steps lines and no host step markers", 1);
		ui_put(y + 2, 0, a->cols, term_attr(ROLE_DIM),
		       "  (jax.profiler.StepTraceAnnotation(\"train\", step_num=i) marks steps)", 1);
		return;
	}
	for (i = 0; i < an->nsteps; i++) {
		sum[0] += an->steps[i].duration_ps;
		for (c = 0; c < XT_CAT_COUNT; c++)
			sum[c + 1] += an->steps[i].cat_ps[c];
		sum[XT_CAT_COUNT + 1] += an->steps[i].idle_ps;
	}
	/* Legend, then the averages, then one row per step. */
	x = ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), " legend:", 0);
	for (c = 0; c <= XT_CAT_COUNT && x < a->cols; c++) {
		char ch[2] = { cat_letter[c], 0 };

		x += ui_put(y, x, 1, term_attr(ROLE_HEADER), " ", 0);
		x += ui_put(y, x, 1, cat_attr(c), term.colors ? " " : ch, 0);
		x += ui_put(y, x, 1, term_attr(ROLE_HEADER), " ", 0);
		x += ui_put(y, x, a->cols - x, term_attr(ROLE_HEADER), cat_label[c], 0);
	}
	ui_put(y, x, a->cols - x, term_attr(ROLE_HEADER), "", 1);
	snprintf(line, sizeof(line), " %-9s %11s %11s  %s", "STEP", "START", "DURATION",
		 an->steps_from_device ? "(device Steps lines)" : "(host step markers)");
	ui_put(y + 1, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	{
		int64_t avg[XT_CAT_COUNT];

		for (c = 0; c < XT_CAT_COUNT; c++)
			avg[c] = sum[c + 1] / (int64_t)an->nsteps;
		snprintf(line, sizeof(line), " %-9s %11s %11s ", "average", "",
			 fmt_ps(b2, sizeof(b2), sum[0] / (int64_t)an->nsteps));
		ui_put(y + 2, 0, 35, term_attr(ROLE_TEXT) | A_BOLD, line, 1);
		if (bar > 4)
			step_bar(y + 2, 35, bar, avg, sum[XT_CAT_COUNT + 1] / (int64_t)an->nsteps,
				 sum[0] / (int64_t)an->nsteps);
	}
	list_clamp(&a->steps, (long)an->nsteps, h - 5);
	for (i = (size_t)a->steps.top, row = y + 3; i < an->nsteps && row < y + h - 2; i++, row++) {
		const struct xt_step_row *s = &an->steps[i];
		int sel = (long)i == a->steps.sel;

		snprintf(line, sizeof(line), " %-9" PRId64 " %11s %11s ", s->id,
			 timeaxis_fmt(a, b1, sizeof(b1), s->start_ps),
			 fmt_ps(b2, sizeof(b2), s->duration_ps));
		ui_put(row, 0, 35, sel ? term_attr(ROLE_SELECT) : term_attr(ROLE_TEXT), line, 1);
		if (bar > 4)
			step_bar(row, 35, bar, s->cat_ps, s->idle_ps, s->duration_ps);
	}
	/* The selected step in numbers. */
	{
		const struct xt_step_row *s = &an->steps[a->steps.sel];
		int n = 0;

		n += snprintf(line + n, sizeof(line) - (size_t)n, " step %" PRId64 ":", s->id);
		for (c = 0; c < XT_CAT_COUNT && n < (int)sizeof(line) - 40; c++)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s %s", cat_label[c],
				      fmt_ps(b1, sizeof(b1), s->cat_ps[c]));
		snprintf(line + n, sizeof(line) - (size_t)n, " idle %s", fmt_ps(b1, sizeof(b1), s->idle_ps));
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	}
}

static unsigned steps_act(struct app *a, enum action act)
{
	if (act == ACT_ENTER && a->an->nsteps) {
		const struct xt_step_row *s = &a->an->steps[a->steps.sel];

		app_goto(a, s->start_ps, s->start_ps + s->duration_ps, -1, -1);
		app_status(a, 0, "step %" PRId64, s->id);
		return UI_REDRAW;
	}
	return list_act(&a->steps, a, act);
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

static void mem_draw(struct app *a, int y, int h)
{
	const struct xt_analysis *an = a->an;
	char line[512], b1[32], b2[32], b3[32], b4[32];
	const struct xt_memory_row *m;
	size_t i, k;
	int row, list_h, chart_h;

	if (!an->nmemory) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT),
		       "  no memory events (MemoryAllocation / MemoryDeallocation) in this profile", 1);
		return;
	}
	snprintf(line, sizeof(line), " %-16s %-22s %11s %13s %11s %11s", "HOST", "ALLOCATOR", "PEAK",
		 "AT", "LIFETIME", "CAPACITY");
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), line, 1);
	list_h = (int)an->nmemory < h / 3 ? (int)an->nmemory : h / 3;
	if (list_h < 1)
		list_h = 1;
	list_clamp(&a->mem, (long)an->nmemory, list_h);
	for (i = (size_t)a->mem.top, row = y + 1; i < an->nmemory && row < y + 1 + list_h; i++, row++) {
		m = &an->memory[i];
		snprintf(line, sizeof(line), " %-16.16s %-22.22s %11s %13s %11s %11s", m->host,
			 m->allocator, fmt_bytes(b1, sizeof(b1), (double)m->peak_bytes),
			 timeaxis_fmt(a, b2, sizeof(b2), m->peak_time_ps),
			 fmt_bytes(b3, sizeof(b3), (double)m->lifetime_peak_bytes),
			 fmt_bytes(b4, sizeof(b4), (double)m->capacity_bytes));
		ui_put(row, 0, a->cols, (long)i == a->mem.sel ? term_attr(ROLE_SELECT) : term_attr(ROLE_TEXT),
		       line, 1);
	}
	m = &an->memory[a->mem.sel];
	row = y + 1 + list_h;
	snprintf(line, sizeof(line), " in use over time (%s .. %s); peak %s at %s marked %s", 
		 timeaxis_fmt(a, b1, sizeof(b1), m->first_ps), timeaxis_fmt(a, b2, sizeof(b2), m->last_ps),
		 fmt_bytes(b3, sizeof(b3), (double)m->peak_bytes), timeaxis_fmt(a, b4, sizeof(b4), m->peak_time_ps),
		 term.g.peak);
	ui_put(row++, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	chart_h = (y + h - row) / 2;
	if (chart_h > 10)
		chart_h = 10;
	mem_chart(a, m, row, chart_h, a->cols);
	row += chart_h;
	snprintf(line, sizeof(line), " live at the peak (%zu largest):", m->nlive);
	ui_put(row++, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	for (k = 0; k < m->nlive && row < y + h; k++, row++) {
		snprintf(line, sizeof(line), "  %11s  %-40s %s", fmt_bytes(b1, sizeof(b1), (double)m->live[k].bytes),
			 m->live[k].op[0] ? m->live[k].op : "-", m->live[k].shape);
		ui_put(row, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
	}
}

static unsigned mem_act(struct app *a, enum action act)
{
	if (act == ACT_ENTER && a->an->nmemory) {
		const struct xt_memory_row *m = &a->an->memory[a->mem.sel];
		int64_t w = (a->tl->t1 - a->tl->t0) / 50 + 1;

		app_goto(a, m->peak_time_ps - w / 2, m->peak_time_ps + w / 2, -1, -1);
		app_status(a, 0, "%s peak at the middle of the view", m->allocator);
		return UI_REDRAW;
	}
	return list_act(&a->mem, a, act);
}

const struct view view_steps = { "steps", SCOPE_STEPS, steps_draw, steps_act };
const struct view view_memory = { "memory", SCOPE_MEMORY, mem_draw, mem_act };
