/*
 * view_memory: the memory view (per allocator: peak, a usage chart over
 * time with the peak marked, the allocations live at the peak), a panel
 * (panel.c): sortable by its columns, filtered with \\, and an allocator
 * stays selected across refreshes (a new capture, another sort). Enter
 * takes the timeline to the peak, marked there.
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
	return (int)panel_cmp64(MEM(y, x)->peak_bytes, MEM(x, y)->peak_bytes);
}
static int cmp_at(void *ctx, size_t x, size_t y)
{
	return (int)panel_cmp64(MEM(x, y)->peak_time_ps, MEM(y, x)->peak_time_ps);
}
static int cmp_lifetime(void *ctx, size_t x, size_t y)
{
	return (int)panel_cmp64(MEM(y, x)->lifetime_peak_bytes, MEM(x, y)->lifetime_peak_bytes);
}
static int cmp_capacity(void *ctx, size_t x, size_t y)
{
	return (int)panel_cmp64(MEM(y, x)->capacity_bytes, MEM(x, y)->capacity_bytes);
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
	  "most in use since the allocator began: its own peak, or PEAK if higher" },
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
		int slice = (int)(((__int128)m->peak_time_ps - m->first_ps) * (XT_MEM_SERIES - 1) /
				  ((__int128)m->last_ps - m->first_ps));

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
	/* The peak split so that it adds up (docs/analyses.md, "Memory"), the
	 * reserved stacks apart from the unattributed rest, as the report
	 * has them: the TPU's 20 GiB of program stacks read as allocated
	 * before the profile. */
	{
		int64_t listed = 0;
		char res[96] = "";

		for (k = 0; k < m->nlive; k++)
			listed = xt_sat_add(listed, m->live[k].bytes);
		if (m->reserved_bytes)
			snprintf(res, sizeof(res), " + reserved %s (program stacks)",
				 fmt_bytes(b5, sizeof(b5), (double)m->reserved_bytes));
		snprintf(line, sizeof(line), " peak %s = %zu largest live %s + %zu other live %s%s + "
					     "unattributed %s",
			 fmt_bytes(b1, sizeof(b1), (double)m->peak_bytes), m->nlive,
			 fmt_bytes(b2, sizeof(b2), (double)listed),
			 m->nlive_total > m->nlive ? m->nlive_total - m->nlive : 0,
			 fmt_bytes(b3, sizeof(b3), (double)m->live_other_bytes), res,
			 fmt_bytes(b4, sizeof(b4),
				   (double)xt_sat_sub(m->unattributed_bytes, m->reserved_bytes)));
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
		int64_t w = (a->tl->t1 - a->tl->t0) / 50 + 1, ev = -1, at = m->peak_time_ps, e = at;
		/* The allocation or deallocation that made the peak, on its host
		 * thread: the cursor goes there, the peak is marked. */
		long tr = app_event_at(a, m->host, m->peak_time_ps, "Memory", &ev);

		timeline_clamp(a->tl, &at, &e); /* a hostile file's peak can lie far off */
		app_jump(a, at - w / 2, at + w / 2, m->peak_time_ps, tr, ev);
		if (tr >= 0)
			app_status(a, 0, "%s peak at the mark, on %s", m->name,
				   a->tl->tracks[tr].label);
		else
			app_status(a, 0, "%s peak at the mark", m->name);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

void view_memory_fini(struct app *a)
{
	if (a->mem.ops)
		panel_fini(&a->mem);
}

const struct view view_memory = { "memory", SCOPE_MEMORY, mem_draw, mem_act, mem_columns,
				  sizeof(mem_columns) / sizeof(mem_columns[0]) };
