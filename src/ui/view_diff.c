/*
 * view_diff: the current profile compared with another loaded one (model's
 * compare.h, the same numbers as `xtop diff`): step time and device time
 * base -> new, then the ops by the size of their change, with how each was
 * matched. `xtop --diff BASE NEW` opens on it; D compares the current
 * profile with the one before it (D again: with the next). The op list is a
 * panel: sorted by any column, filtered with \, the selected op kept across
 * a new capture; Enter shows the op in the op profile.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "app.h"
#include "term.h"

static uint64_t serial_of(const struct xt_analysis *an)
{
	return an ? an->serial : 0;
}

/* The comparison for the current pair, made again when either changed. */
static const struct xt_cmp *diff_cmp(struct app *a)
{
	struct diff_state *d = &a->diff;
	const struct xt_analysis *base;

	if (d->base < 0 || (size_t)d->base >= a->nprofs || (size_t)d->base == a->cur) {
		compare_free(d->cmp);
		d->cmp = NULL;
		d->with_base = d->with_new = 0;
		return NULL;
	}
	base = a->profs[d->base].an;
	if (!d->cmp || d->with_base != serial_of(base) || d->with_new != serial_of(a->an)) {
		compare_free(d->cmp);
		d->cmp = compare_new(base, a->an);
		d->with_base = serial_of(base);
		d->with_new = serial_of(a->an);
	}
	return d->cmp;
}

static size_t diff_count(void *ctx, int width)
{
	const struct xt_cmp *c = ((struct app *)ctx)->diff.cmp;

	(void)width;
	return c ? c->nops : 0;
}

static void diff_key(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_cmp_op *o = &((struct app *)ctx)->diff.cmp->ops[row];

	snprintf(buf, n, "%s%c%s%c%s", o->program, 1, o->name, 1, xt_match_names[o->match]);
}

static const struct xt_cmp_op *op_of(void *ctx, size_t row)
{
	return &((struct app *)ctx)->diff.cmp->ops[row];
}

static void col_base(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_cmp_op *o = op_of(ctx, row);

	if (o->match == XT_MATCH_ADDED)
		snprintf(buf, n, "-");
	else
		fmt_ps(buf, n, o->base_ps);
}

static void col_new(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_cmp_op *o = op_of(ctx, row);

	if (o->match == XT_MATCH_REMOVED)
		snprintf(buf, n, "-");
	else
		fmt_ps(buf, n, o->new_ps);
}

static void col_delta(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_ps_change(buf, n, op_of(ctx, row)->delta_ps);
}

static void col_pct(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_cmp_op *o = op_of(ctx, row);

	if (o->match > XT_MATCH_WORK || isnan(o->delta_percent))
		snprintf(buf, n, "-");
	else
		fmt_pct_change(buf, n, o->delta_percent);
}

static void col_match(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_cmp_op *o = op_of(ctx, row);

	snprintf(buf, n, "%s%s", xt_match_names[o->match], o->work_differs ? "*" : "");
}

static void col_op(void *ctx, size_t row, char *buf, size_t n)
{
	compare_op_label(op_of(ctx, row), buf, n);
}

/* Drawn: OLD's name gives way before NEW's ("prog/name (was OLD)" elided
 * plainly kept OLD's tail and cut NEW's name). */
static void fit_op(void *ctx, size_t row, char *buf, size_t n, int w)
{
	struct app *a = ctx;

	compare_op_label_fit(op_of(ctx, row), buf, n, w, term.g.ellipsis, !a->diff.cmp->program);
}

static int cmp_base(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(op_of(ctx, y)->base_ps, op_of(ctx, x)->base_ps);
}

static int cmp_new(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(op_of(ctx, y)->new_ps, op_of(ctx, x)->new_ps);
}

/* The size of the change, largest first (the comparison's own order). */
static int cmp_delta(void *ctx, size_t x, size_t y)
{
	int64_t a = op_of(ctx, x)->delta_ps, b = op_of(ctx, y)->delta_ps;

	return panel_cmp64(xt_sat_abs(b), xt_sat_abs(a));
}

static int cmp_pct(void *ctx, size_t x, size_t y)
{
	double a = op_of(ctx, x)->delta_percent, b = op_of(ctx, y)->delta_percent;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a < b) - (a > b);
}

static int cmp_match(void *ctx, size_t x, size_t y)
{
	return (int)op_of(ctx, x)->match - (int)op_of(ctx, y)->match;
}

static int cmp_op(void *ctx, size_t x, size_t y)
{
	return strcmp(op_of(ctx, x)->name, op_of(ctx, y)->name);
}

/* The figures' columns, the same with one program or several. */
#define DIFF_FIGURES                                                                  \
	{ "BASE", 10, 1, 0, col_base, NULL, cmp_base,                                  \
	  "self time in BASE (per step or occurrence, as the summary says)" },          \
	{ "NEW", 10, 1, 0, col_new, NULL, cmp_new, "self time in NEW, the same way" },  \
	{ "DELTA", 11, 1, 0, col_delta, NULL, cmp_delta, "NEW minus BASE" },            \
	{ "%", 8, 1, 0, col_pct, NULL, cmp_pct, "the change as a share of BASE" },      \
	{ "MATCH", 9, 0, 1, col_match, NULL, cmp_match,                                 \
	  "how the two were paired: exact name, identity, work; added, removed; "   \
	  "* does other work a run in NEW (FLOPs or bytes differ by over 1%)" }
#define DIFF_OP_HELP "the op (in NEW; was: its BASE name where it differs)"
static const struct panel_column diff_columns[] = {
	DIFF_FIGURES,
	{ "PROGRAM/OP", 0, 0, 0, col_op, NULL, cmp_op, DIFF_OP_HELP },
};
/* The same, for ops all in one program (the summary names it). */
static const struct panel_column diff_columns_one[] = {
	DIFF_FIGURES,
	{ "OP", 0, 0, 0, col_op, NULL, cmp_op, DIFF_OP_HELP },
};
static const struct panel_ops diff_ops = { diff_count, diff_key, NULL, NULL, NULL, NULL };

static struct panel *diff_panel(struct app *a)
{
	if (!a->diff.p.ops) {
		panel_init(&a->diff.p, &diff_ops, a, diff_columns,
			   sizeof(diff_columns) / sizeof(diff_columns[0]));
		a->diff.p.header = 1;
		a->diff.p.flex_min = 24;
		a->diff.p.sort = 2; /* by the size of the change */
		a->diff.p.fit_flex = fit_op;
	}
	a->diff.p.cols = a->diff.cmp && a->diff.cmp->program ? diff_columns_one : diff_columns;
	return &a->diff.p;
}

static void num_text(char *buf, size_t n, const char *what, const struct xt_cmp_num *v)
{
	char b1[32], b2[32], b3[32];

	if (!v->has) { /* one side alone known: it, and '-' for the other */
		if (v->sides)
			snprintf(buf, n, "%s %s -> %s", what,
				 v->sides & 1 ? fmt_ps(b1, sizeof(b1), xt_ps_of(v->base)) : "-",
				 v->sides & 2 ? fmt_ps(b2, sizeof(b2), xt_ps_of(v->new_)) : "-");
		else
			snprintf(buf, n, "%s -", what);
		return;
	}
	fmt_ps(b1, sizeof(b1), xt_ps_of(v->base));
	fmt_ps(b2, sizeof(b2), xt_ps_of(v->new_));
	fmt_pct_change_or_new(b3, sizeof(b3), v->delta_percent, v->new_);
	snprintf(buf, n, "%s %s -> %s (%s)", what, b1, b2, b3);
}

/* Rows flow() needs for all n parts in w columns. */
static int flow_rows(const char *const *part, size_t n, int w)
{
	size_t i;
	int rows = n ? 1 : 0, used = 0;

	for (i = 0; i < n; i++) {
		int pw = utf8_width(part[i]) + (used ? 3 : 1);

		if (used && used + pw > w) {
			rows++;
			used = 0;
			pw = utf8_width(part[i]) + 1;
		}
		used += pw;
	}
	return rows;
}

/* Parts of a summary laid out on rows lines from y, each whole, in order,
 * three spaces apart: a part that does not fit its line starts the next,
 * and what fits on none is left out (a figure is never cut from its
 * unit). */
static void flow(const char *const *part, size_t n, int y, int rows, int w, int attr)
{
	char line[1024];
	size_t i = 0;
	int r;

	for (r = 0; r < rows; r++) {
		int used = 0;

		line[0] = '\0';
		while (i < n) {
			int pw = utf8_width(part[i]) + (used ? 3 : 1);

			if (used && used + pw > w)
				break;
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
				 used ? "   " : " ", part[i]);
			used += pw;
			i++;
		}
		ui_put(y + r, 0, w, attr, line, 1);
	}
}

static void diff_draw(struct app *a, int y, int h)
{
	const struct xt_cmp *c = diff_cmp(a);
	struct panel *p = diff_panel(a);
	char line[1024], s0[64], s1[400], s2[256], s3[160];
	int srows = 2, brows = 1, top;
	long sel;

	if (!c) {
		ui_put_wrap(y + 1, a->cols, h > 4 ? 3 : h > 1 ? h - 1 : 0, term_attr(ROLE_TEXT),
			    a->nprofs < 2 ? "  nothing to compare: one profile is open (xtop --diff BASE "
					    "NEW, or capture another)"
					  : "  D compares this profile with the one before it (the first with the "
					    "last; [ ] switch)",
			    4);
		return;
	}
	snprintf(line, sizeof(line), " base %ld: %s", a->diff.base + 1, a->profs[a->diff.base].path);
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), line, 1);
	snprintf(line, sizeof(line), " new  %zu: %s", a->cur + 1, a->path);
	ui_put(y + 1, 0, a->cols, term_attr(ROLE_HEADER), line, 1);
	num_text(s1, sizeof(s1), "mean", &c->step_mean);
	num_text(s2, sizeof(s2), "p50", &c->step_p50);
	num_text(s3, sizeof(s3), "p95", &c->step_p95);
	if (c->per_occurrence) {
		/* Steps of different kinds: their times say what a step is. */
		char kb[160], kn[160];
		const char *parts[2] = { s0, s1 };

		snprintf(s0, sizeof(s0), "steps %zu -> %zu", c->base_steps, c->new_steps);
		snprintf(s1, sizeof(s1), "times not compared: %s -> %s",
			 compare_steps_kind(kb, sizeof(kb), c->base_source, c->base_module),
			 compare_steps_kind(kn, sizeof(kn), c->new_source, c->new_module));
		if (utf8_width(s1) + 2 > a->cols) /* narrow: the gist, whole */
			snprintf(s1, sizeof(s1), "times not compared: steps of two kinds");
		flow(parts, 2, y + 2, 2, a->cols, term_attr(ROLE_TEXT));
	} else if (c->per_step) {
		const char *parts[4] = { s0, s1, s2, s3 };

		snprintf(s0, sizeof(s0), "steps %zu -> %zu", c->base_steps, c->new_steps);
		/* Narrow: as many rows as the figures need (p95 fell off the
		 * second at 60 columns, the largest change), the list shorter. */
		srows = flow_rows(parts, 4, a->cols);
		if (srows > 4)
			srows = 4;
		flow(parts, 4, y + 2, srows, a->cols, term_attr(ROLE_TEXT));
	} else {
		snprintf(line, sizeof(line), " steps %zu -> %zu: not in both profiles, so times are per run",
			 c->base_steps, c->new_steps);
		ui_put(y + 2, 0, a->cols, term_attr(ROLE_TEXT), line, 1);
		srows = 1;
	}
	{
		/* Busy adds up every device's: the label says so, as xtop
		 * diff does. */
		char sum[96];
		size_t l;

		num_text(s1, sizeof(s1), c->per_step ? "device busy per step" : "device busy",
			 &c->busy);
		l = strlen(s1);
		if (*compare_busy_summed(c, sum, sizeof(sum)))
			snprintf(s1 + l, sizeof(s1) - l, ", %s", sum);
		if (c->per_occurrence) /* a '-' alone read as a minus sign */
			snprintf(s1, sizeof(s1), "device busy not compared (steps of two kinds)");
	}
	if (utf8_width(s1) + 1 > a->cols) { /* narrow: the short label, the figures whole */
		num_text(s1, sizeof(s1), c->per_step ? "busy/step" : "busy", &c->busy);
		if (c->per_occurrence)
			snprintf(s1, sizeof(s1), "busy not compared");
	}
	snprintf(s2, sizeof(s2), "ops' self time %s%s%.*s",
		 c->per_step ? "per step" : c->per_occurrence ? "per occurrence" : "per run",
		 c->program ? ", all in " : "", c->program ? 200 : 0, c->program ? c->program : "");
	{
		const char *parts[2] = { s1, s2 };

		brows = flow_rows(parts, 2, a->cols) > 1 && h >= 10 + srows ? 2 : 1;
		flow(parts, 2, y + 2 + srows, brows, a->cols, term_attr(ROLE_DIM));
	}
	top = y + 2 + srows + brows;
	if (h - (top - y) < 2)
		return;
	ui_panel(p, top, 0, h - (top - y) - 1, a->cols);
	sel = panel_selected(p);
	if (sel >= 0) {
		const struct xt_cmp_op *o = &c->ops[sel];

		/* BASE's op first, whole where it can be: the row's label gives
		 * it way when narrow (compare_op_label_fit). */
		switch (o->match) {
		case XT_MATCH_EXACT:
			snprintf(line, sizeof(line), " %s: the same op in BASE", o->name);
			break;
		case XT_MATCH_IDENTITY:
			snprintf(line, sizeof(line),
				 " %s: was %s in BASE (renumbered: the same program, name but for "
				 "its numbers, and category %s)",
				 o->name, o->base_name, o->category);
			break;
		case XT_MATCH_WORK:
			snprintf(line, sizeof(line),
				 " %s: was %s in BASE (implemented another way: the same program "
				 "and FLOPs and bytes a run)",
				 o->name, o->base_name);
			break;
		case XT_MATCH_ADDED:
			snprintf(line, sizeof(line), " %s: only in NEW", o->name);
			break;
		default:
			snprintf(line, sizeof(line), " %s: only in BASE", o->name);
			break;
		}
		if (o->work_differs) /* the gist first: the row's why */
			snprintf(line, sizeof(line), " %s%s%s: does other work (FLOPs or bytes a run "
				 "differ by more than 1%%): another instruction, or new shapes", o->name,
				 strcmp(o->name, o->base_name) ? ", was " : "",
				 strcmp(o->name, o->base_name) ? o->base_name : "");
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	} else {
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM),
		       p->filter[0] ? " no op matches the filter" : " no ops", 1);
	}
}

static unsigned diff_act(struct app *a, enum action act)
{
	const struct xt_cmp *c = diff_cmp(a);
	struct panel *p = diff_panel(a);
	long sel;

	if (!c)
		return 0;
	if (act == ACT_ENTER) {
		sel = panel_selected(p);
		if (sel < 0)
			return UI_REDRAW;
		if (c->ops[sel].match == XT_MATCH_REMOVED) {
			app_status(a, 0, "%s is only in the base profile", c->ops[sel].name);
			return UI_REDRAW;
		}
		view_ops_focus(a, (long)c->ops[sel].new_rank);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

unsigned app_diff_key(struct app *a)
{
	size_t k;

	if (a->nprofs < 2) {
		app_status(a, 1, "one profile is open: nothing to compare it with (xtop --diff BASE "
				 "NEW, or capture another)");
		return UI_REDRAW;
	}
	/* The one before the current; D again on the diff: the next other. */
	if (a->view == VIEW_DIFF && a->diff.base >= 0) {
		k = ((size_t)a->diff.base + 1) % a->nprofs;
		if (k == a->cur)
			k = (k + 1) % a->nprofs;
	} else {
		k = (a->cur + a->nprofs - 1) % a->nprofs;
	}
	a->diff.base = (long)k;
	a->view = VIEW_DIFF;
	app_status(a, 0, "comparing profile %zu with profile %zu (base)", a->cur + 1, k + 1);
	return UI_REDRAW;
}

void view_diff_fini(struct app *a)
{
	if (a->diff.p.ops)
		panel_fini(&a->diff.p);
	compare_free(a->diff.cmp);
	a->diff.cmp = NULL;
}

const struct view view_diff = { "diff", SCOPE_DIFF, diff_draw, diff_act, diff_columns,
				 sizeof(diff_columns) / sizeof(diff_columns[0]) };
