/*
 * view_ops: the op profile as a table whose columns are the report's
 * (model/op_columns.c), sortable by any column (< >), flat or grouped by
 * program and category (p; Enter folds a group), filtered by substring (\).
 * Enter on an op jumps to its longest run in the timeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/op_columns.h"
#include "../model/stats.h"
#include "../util/hmap.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"

enum row_kind { ROW_OP, ROW_PROGRAM, ROW_CATEGORY };

struct row {
	enum row_kind kind;
	long op;              /* ROW_OP */
	struct xt_op_row agg; /* group rows: sums of their ops */
};

static struct app *sort_app;

static int row_cmp(const void *x, const void *y)
{
	const struct xt_op_row *a = &sort_app->an->ops[*(const long *)x];
	const struct xt_op_row *b = &sort_app->an->ops[*(const long *)y];
	const struct op_column *c = &op_columns[sort_app->ops.sort];
	int r = c->cmp(a, b);

	if (!r)
		r = op_columns[0].cmp(a, b);
	return r ? r : strcmp(a->name, b->name);
}

static int group_cmp(const void *x, const void *y)
{
	const struct xt_op_row *a = &sort_app->an->ops[*(const long *)x];
	const struct xt_op_row *b = &sort_app->an->ops[*(const long *)y];
	int r = strcmp(a->program, b->program);

	if (!r)
		r = strcmp(a->category, b->category);
	return r ? r : row_cmp(x, y);
}

static int folded(struct app *a, const char *prog, const char *cat)
{
	char key[512];
	size_t i;

	snprintf(key, sizeof(key), "%s%c%s", prog, 1, cat ? cat : "");
	for (i = 0; i < a->ops.nfold; i++)
		if (!strcmp(a->ops.folds[i], key))
			return 1;
	return 0;
}

static void toggle_fold(struct app *a, const char *prog, const char *cat)
{
	char key[512];
	size_t i;

	snprintf(key, sizeof(key), "%s%c%s", prog, 1, cat ? cat : "");
	for (i = 0; i < a->ops.nfold; i++) {
		if (!strcmp(a->ops.folds[i], key)) {
			free(a->ops.folds[i]);
			a->ops.folds[i] = a->ops.folds[--a->ops.nfold];
			return;
		}
	}
	a->ops.folds = xreallocarray(a->ops.folds, a->ops.nfold + 1, sizeof(char *));
	a->ops.folds[a->ops.nfold++] = xstrdup(key);
}

static void agg_add(struct xt_op_row *g, const struct xt_op_row *o)
{
	g->occurrences += o->occurrences;
	g->self_ps += o->self_ps;
	g->total_ps += o->total_ps;
	g->percent += o->percent;
	g->flops += o->flops;
	g->bytes_accessed += o->bytes_accessed;
	g->has_flops |= o->has_flops;
	g->has_bytes |= o->has_bytes;
}

/* The visible rows, rebuilt on every draw (ops number in the thousands). */
static size_t build_rows(struct app *a, struct row *rows)
{
	long *idx = xmalloc((a->an->nops ? a->an->nops : 1) * sizeof(long));
	size_t n = 0, k = 0, i;

	for (i = 0; i < a->an->nops; i++) {
		const struct xt_op_row *o = &a->an->ops[i];

		if (a->ops.filter[0] && !strcasestr(o->name, a->ops.filter) &&
		    !strcasestr(o->category, a->ops.filter) && !strcasestr(o->program, a->ops.filter))
			continue;
		idx[k++] = (long)i;
	}
	sort_app = a;
	qsort(idx, k, sizeof(long), a->ops.grouped ? group_cmp : row_cmp);
	if (!a->ops.grouped) {
		for (i = 0; i < k; i++)
			rows[n++] = (struct row){ ROW_OP, idx[i], { 0 } };
		free(idx);
		return n;
	}
	for (i = 0; i < k;) {
		const struct xt_op_row *o = &a->an->ops[idx[i]];
		size_t pg = n, j = i;

		rows[n++] = (struct row){ ROW_PROGRAM, idx[i], { 0 } };
		rows[pg].agg.name = o->program[0] ? o->program : "(no program)";
		rows[pg].agg.program = o->program;
		while (j < k && !strcmp(a->an->ops[idx[j]].program, o->program)) {
			const struct xt_op_row *c = &a->an->ops[idx[j]];
			size_t cg = n, m = j;
			int pf = folded(a, o->program, NULL);

			if (!pf)
				n++;
			rows[cg] = (struct row){ ROW_CATEGORY, idx[j], { 0 } };
			rows[cg].agg.name = c->category;
			rows[cg].agg.program = c->program;
			rows[cg].agg.category = c->category;
			while (m < k && !strcmp(a->an->ops[idx[m]].program, o->program) &&
			       !strcmp(a->an->ops[idx[m]].category, c->category)) {
				agg_add(&rows[pg].agg, &a->an->ops[idx[m]]);
				if (!pf)
					agg_add(&rows[cg].agg, &a->an->ops[idx[m]]);
				if (!pf && !folded(a, c->program, c->category))
					rows[n++] = (struct row){ ROW_OP, idx[m], { 0 } };
				m++;
			}
			j = m;
		}
		i = j;
	}
	free(idx);
	return n;
}

static void ops_draw(struct app *a, int y, int h)
{
	struct row *rows = xmalloc((a->an->nops * 3 + 1) * sizeof(*rows));
	size_t n = build_rows(a, rows), c, k;
	char cell[512], line[1024];
	int x, row, show[16];

	op_columns_fit(a->cols, 24, show);
	if (!show[a->ops.sort]) {
		/* The sort column stays visible: it takes the place of the
		 * widest other optional column. */
		size_t j, best = op_ncolumns;

		for (j = 0; j < op_ncolumns; j++)
			if (show[j] && op_columns[j].drop &&
			    (best == op_ncolumns || op_columns[j].width > op_columns[best].width))
				best = j;
		if (best < op_ncolumns)
			show[best] = 0;
		show[a->ops.sort] = 1;
	}
	/* Header, generated from the column table; the sort column marked. */
	move(y, 0);
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), "", 1);
	for (c = 0, x = 0; c < op_ncolumns && x < a->cols; c++) {
		const struct op_column *col = &op_columns[c];
		int w = col->width ? col->width : a->cols - x;

		if (!show[c])
			continue;
		/* The sort column is marked with a trailing 'v'. */
		if (col->right)
			snprintf(cell, sizeof(cell), "%*s%s", (int)c == a->ops.sort ? w - 1 : w,
				 col->name, (int)c == a->ops.sort ? "v" : "");
		else
			snprintf(cell, sizeof(cell), "%s%s", col->name,
				 (int)c == a->ops.sort ? "v" : "");
		x += ui_put(y, x, w, term_attr(ROLE_HEADER), cell, 1);
		x += ui_put(y, x, 1, term_attr(ROLE_HEADER), " ", 1);
	}
	if (a->ops.sel >= (long)n)
		a->ops.sel = n ? (long)n - 1 : 0;
	if (a->ops.sel < a->ops.top)
		a->ops.top = a->ops.sel;
	if (a->ops.sel >= a->ops.top + (h - 2))
		a->ops.top = a->ops.sel - (h - 2) + 1;
	for (k = (size_t)a->ops.top, row = y + 1; k < n && row < y + h - 1; k++, row++) {
		const struct xt_op_row *o = rows[k].kind == ROW_OP ? &a->an->ops[rows[k].op]
								    : &rows[k].agg;
		int attr = (long)k == a->ops.sel ? term_attr(ROLE_SELECT)
			   : rows[k].kind != ROW_OP ? (int)(term_attr(ROLE_TEXT) | A_BOLD)
						    : term_attr(ROLE_TEXT);

		for (c = 0, x = 0; c < op_ncolumns && x < a->cols; c++) {
			const struct op_column *col = &op_columns[c];
			int w = col->width ? col->width : a->cols - x;

			if (!show[c])
				continue;
			if (rows[k].kind != ROW_OP && (!strcmp(col->name, "AVG") ||
						       !strcmp(col->name, "CATEGORY") ||
						       !strcmp(col->name, "PROGRAM") ||
						       !strcmp(col->name, "NAME"))) {
				cell[0] = '\0';
			} else {
				col->format(o, cell, sizeof(cell));
			}
			if (!col->width) {
				const char *ind = "";
				char fold[16];

				if (rows[k].kind == ROW_PROGRAM || rows[k].kind == ROW_CATEGORY) {
					int f = folded(a, rows[k].agg.program,
						       rows[k].kind == ROW_CATEGORY ? rows[k].agg.category
										     : NULL);

					snprintf(fold, sizeof(fold), "%s%s ",
						 rows[k].kind == ROW_CATEGORY ? "  " : "",
						 f ? term.g.fold_closed : term.g.fold_open);
					ind = fold;
					snprintf(cell, sizeof(cell), "%s", rows[k].agg.name);
				} else if (a->ops.grouped) {
					ind = "      ";
				}
				snprintf(line, sizeof(line), "%s%s", ind, cell);
				x += ui_put(row, x, w, attr, line, 1);
				continue;
			}
			if (col->right)
				snprintf(line, sizeof(line), "%*.*s", w, w, cell);
			else
				snprintf(line, sizeof(line), "%-*.*s", w, w, cell);
			x += ui_put(row, x, w, attr, line, 1);
			x += ui_put(row, x, 1, attr, " ", 1);
		}
	}
	snprintf(line, sizeof(line), " %zu %s of %zu ops%s%s%s   sorted by %s   %s", n,
		 a->ops.grouped ? "rows" : "shown", a->an->nops, a->ops.filter[0] ? ", filter '" : "",
		 a->ops.filter, a->ops.filter[0] ? "'" : "", op_columns[a->ops.sort].name,
		 a->ops.grouped ? "grouped by program, category (p: flat)" : "(p: group)");
	ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), line, 1);
	free(rows);
}

/* The longest event of op o on any device track (XLA ops by display name,
 * GPU kernels by their hlo_op, as the op profile names them). */
static void jump_longest(struct app *a, const struct xt_op_row *o)
{
	long best_t = -1;
	int64_t best_ev = -1, best_dur = -1;
	size_t i, e;
	char name[512];

	for (i = 0; i < a->tl->ntracks; i++) {
		const struct tl_track *tr = &a->tl->tracks[i];
		const struct xt_line *l = tr->l;
		int gpu = !strncmp(tr->p->name, "/device:GPU:", 12);

		if (strncmp(tr->p->name, "/device:", 8))
			continue;
		for (e = 0; e < l->nev; e++) {
			const struct xt_event *ev = &l->ev[e];

			if (xt_event_aggregated(ev) || ev->dur_ps <= best_dur)
				continue;
			if (!gpu && strcmp(trace_event_display_name(tr->p, ev), o->name))
				continue;
			if (gpu && strcmp(analysis_op_name(a->an, a->t, tr->host, tr->p, l, ev, name,
							   sizeof(name)),
					  o->name))
				continue;
			best_t = (long)i;
			best_ev = (int64_t)e;
			best_dur = ev->dur_ps;
		}
	}
	if (best_t < 0) {
		app_status(a, 1, "no run of %s found on the device tracks", o->name);
		return;
	}
	{
		const struct xt_line *l = a->tl->tracks[best_t].l;
		int64_t s = xt_event_start(l, &l->ev[best_ev]), d = best_dur > 10 ? best_dur : 10;
		char b[32];

		app_goto(a, s - d / 10, s + d + d / 10, best_t, best_ev);
		app_status(a, 0, "longest run of %s: %s", o->name, fmt_ps(b, sizeof(b), best_dur));
	}
}

static unsigned ops_act(struct app *a, enum action act)
{
	long page = a->rows > 6 ? a->rows - 5 : 1;

	switch (act) {
	case ACT_UP:
		a->ops.sel = a->ops.sel > 0 ? a->ops.sel - 1 : 0;
		break;
	case ACT_DOWN:
		a->ops.sel++;
		break;
	case ACT_PAGE_UP:
		a->ops.sel = a->ops.sel > page ? a->ops.sel - page : 0;
		break;
	case ACT_PAGE_DOWN:
		a->ops.sel += page;
		break;
	case ACT_HOME:
		a->ops.sel = 0;
		break;
	case ACT_END:
		a->ops.sel = (long)a->an->nops * 3;
		break;
	case ACT_SORT_NEXT:
		a->ops.sort = (a->ops.sort + 1) % (int)op_ncolumns;
		break;
	case ACT_SORT_PREV:
		a->ops.sort = (a->ops.sort + (int)op_ncolumns - 1) % (int)op_ncolumns;
		break;
	case ACT_GROUP:
		a->ops.grouped = !a->ops.grouped;
		a->ops.sel = a->ops.top = 0;
		break;
	case ACT_ENTER: {
		struct row *rows = xmalloc((a->an->nops * 3 + 1) * sizeof(*rows));
		size_t n = build_rows(a, rows);

		if (a->ops.sel >= 0 && (size_t)a->ops.sel < n) {
			struct row *r = &rows[a->ops.sel];

			if (r->kind == ROW_OP)
				jump_longest(a, &a->an->ops[r->op]);
			else
				toggle_fold(a, r->agg.program,
					    r->kind == ROW_CATEGORY ? r->agg.category : NULL);
		}
		free(rows);
		break;
	}
	case ACT_ESCAPE:
		if (!a->ops.filter[0])
			return 0;
		a->ops.filter[0] = '\0';
		app_status(a, 0, "filter cleared");
		break;
	default:
		return 0;
	}
	return UI_REDRAW;
}

const struct view view_ops = { "op profile", SCOPE_OPS, ops_draw, ops_act };
