/*
 * view_ops: the op profile as a table whose columns are the report's
 * (model/op_columns.c), sortable by any column (< >), flat or grouped by
 * program and category (p; Enter folds a group; groups sort by the same
 * column as ops), filtered by substring (\). Enter on an op jumps to its
 * longest run in the timeline; Space shows the kernels it launched. A mark
 * before a name says it came from the kernel's own name (inside a CUDA
 * command buffer) or could not be found in the HLO; the line under the
 * table says how the selected op was found and why a rate is missing.
 * The rows themselves (order, groups, folds) are ops_rows.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/op_columns.h"
#include "../model/stats.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "app.h"
#include "ops_rows.h"
#include "term.h"

/* The NAME cell's marks of how the op was found, and what help says of
 * them. In ASCII "=", not "~": that is the ellipsis there. */
static const struct {
	const char *utf8, *ascii, *help;
} op_marks[] = {
	{ "\xe2\x89\x88", "=", "named from its kernel (in a command buffer); the note says how" },
	{ "?", "?", "not in the program's HLO: listed by its kernel's name" },
};

static const char *mark_glyph(size_t k)
{
	return term.ascii ? op_marks[k].ascii : op_marks[k].utf8;
}

static const char *attr_mark(const struct xt_op_row *o)
{
	int k;

	switch (o->attr) {
	case XT_ATTR_KERNEL_NAME:
	case XT_ATTR_KERNEL_NAME_UNCHECKED:
	case XT_ATTR_KERNEL_ORDER:
		k = 0;
		break;
	case XT_ATTR_UNRESOLVED:
		k = 1;
		break;
	default:
		return "";
	}
	return mark_glyph((size_t)k);
}

size_t view_ops_marks(const char **mark, const char **help, size_t n)
{
	size_t k;

	for (k = 0; k < n && k < sizeof(op_marks) / sizeof(op_marks[0]); k++) {
		mark[k] = mark_glyph(k);
		help[k] = op_marks[k].help;
	}
	return k;
}

/* What an op's device event is: a memset is CUPTI's own activity, not a
 * kernel (the kernel counts leave it out). Both words are six letters, so
 * the rows' names stay in one column. */
static const char *kernel_kind(const struct xt_op_kernel *k)
{
	return xt_name_memset(k->name) ? "memset" : "kernel";
}

/* The footer line about the selected row: how its op was found, where its
 * FLOPs came from, why a rate is missing. */
static void describe(const struct app *a, const struct row *r, char *buf, size_t n)
{
	const struct xt_op_row *o;
	char b1[32], b2[32];

	if (r->kind == ROW_PROGRAM || r->kind == ROW_CATEGORY) {
		snprintf(buf, n, " %s: %s of self time (Enter folds)", r->agg.name,
			 fmt_ps(b1, sizeof(b1), r->agg.self_ps));
		return;
	}
	o = &a->an->ops[r->op];
	if (r->kind == ROW_KERNEL) {
		const struct xt_op_kernel *k = &o->kernels[r->kernel];

		/* The figures before the name, which may not fit. */
		snprintf(buf, n, " %s launches, %s: %s %s", fmt_count(b1, sizeof(b1), k->occurrences),
			 fmt_ps(b2, sizeof(b2), k->total_ps), kernel_kind(k), k->name);
		return;
	}
	switch (o->attr) {
	case XT_ATTR_KERNEL_NAME:
		snprintf(buf, n, " in %s, named from its kernel (found in the HLO): %s", o->parent,
			 o->name);
		break;
	case XT_ATTR_KERNEL_NAME_UNCHECKED:
		snprintf(buf, n, " in %s, named from its kernel (no HLO to check): %s", o->parent,
			 o->name);
		break;
	case XT_ATTR_KERNEL_ORDER:
		snprintf(buf, n, " in %s, named by its kernel's place in the program's schedule: %s",
			 o->parent, o->name);
		break;
	case XT_ATTR_UNRESOLVED:
		snprintf(buf, n, " op %s is not in the HLO; listed by kernel name: %s", o->parent,
			 o->name);
		break;
	case XT_ATTR_TF_OP:
		snprintf(buf, n, " TensorFlow op %s of type %s", o->name, o->category);
		break;
	case XT_ATTR_COPY_CALL:
		snprintf(buf, n, " %s: HIP's copy kernels, moving what the host call of the same "
				 "correlation id says", o->name);
		break;
	default:
		snprintf(buf, n, " %s%s%s", o->name, o->program[0] ? " in " : "", o->program);
		break;
	}
	if (o->host_copy)
		snprintf(buf + strlen(buf), n - strlen(buf),
			 "; host offload %s host memory (%s in steps)",
			 o->host_copy == XT_HOST_COPY_IN ? "from" : "to",
			 o->host_copy == XT_HOST_COPY_IN ? "H2D" : "D2H");
	/* Rates over part of the runs (an async start timed on some devices
	 * only), said first: all its bytes over all its time would read
	 * otherwise. */
	if (o->rate_ps > 0 && o->rate_occurrences < o->occurrences)
		snprintf(buf + strlen(buf), n - strlen(buf),
			 "; rates of %" PRIu64 " of %" PRIu64 " runs (those timed start to done)%s",
			 o->rate_occurrences, o->occurrences, *o->rate_note ? ":" : "");
	else if (*o->rate_note)
		snprintf(buf + strlen(buf), n - strlen(buf), "; rates:");
	if (*o->rate_note)
		snprintf(buf + strlen(buf), n - strlen(buf), " %s", o->rate_note);
	if (o->cost_src)
		snprintf(buf + strlen(buf), n - strlen(buf), "; FLOPs from %s",
			 o->cost_src & XT_COST_PROFILE ? "the profile" : "the HLO cost model");
	if (o->nkernels)
		snprintf(buf + strlen(buf), n - strlen(buf), "; %zu kernel%s (Space)", o->nkernels,
			 o->nkernels == 1 ? "" : "s");
}

/* Row r's NAME cell, as two parts: its indent (the group's fold mark, the
 * attribution mark) and its name; with prog (the flat list without its
 * PROGRAM column), "program/name" for a name another program has too. */
static void name_cell(struct app *a, const struct row *r, const struct xt_op_row *o, int prog,
		      char *ind, size_t indn, char *name, size_t n)
{
	ind[0] = name[0] = '\0';
	if (r->kind == ROW_OP) {
		if (prog && o->name_shared && o->program[0])
			snprintf(name, n, "%s/%s", o->program, o->name);
		else
			snprintf(name, n, "%s", o->name);
		if (*attr_mark(o))
			snprintf(ind, indn, "%s%s ", a->ops.grouped ? "      " : "", attr_mark(o));
		else if (a->ops.grouped)
			snprintf(ind, indn, "      ");
	} else if (r->kind == ROW_PROGRAM || r->kind == ROW_CATEGORY) {
		int f = ops_folded(a, r->agg.program, r->kind == ROW_CATEGORY ? r->agg.category : NULL);

		snprintf(ind, indn, "%s%s ", r->kind == ROW_CATEGORY ? "  " : "",
			 f ? term.g.fold_closed : term.g.fold_open);
		snprintf(name, n, "%s", r->agg.name);
	}
}

/* The NAME cells of rows top.. (vis of them), w wide: each row's indent,
 * then its name with its middle elided to the room left; names that would
 * then read alike are told apart (utf8_elide_apart), among rows with the
 * same indent. fit[i] is row top + i's cell; for a kernel row, its
 * kernel's name in kw columns (the row after its figures), told apart
 * from the other kernels' likewise. Returns the buffer to free. */
static char *fit_names(struct app *a, const struct row *rows, size_t top, size_t vis, int w,
		       int kw, int prog, char **fit)
{
	enum { IND = 32, SRC = 4096 };
	size_t cap = (size_t)(w > kw ? w : kw) * 4 + 16; /* columns of up to four bytes */
	size_t each = IND + SRC + cap + IND + cap; /* indent, name, fitted, the cell */
	char *buf = xmalloc(vis * each), **src = xmalloc(vis * sizeof(*src));
	char **gout = xmalloc(vis * sizeof(*gout)), **name = xmalloc(vis * sizeof(*name));
	const char **gsrc = xmalloc(vis * sizeof(*gsrc));
	int *room = xmalloc(vis * sizeof(*room));
	size_t i, j, ng;

	for (i = 0; i < vis; i++) {
		const struct row *r = &rows[top + i];
		const struct xt_op_row *o = r->kind == ROW_OP ? &a->an->ops[r->op] : &r->agg;
		char *ind = buf + i * each;

		fit[i] = name[i] = NULL;
		src[i] = ind + IND;
		name[i] = src[i] + SRC;
		fit[i] = name[i] + cap;
		if (r->kind == ROW_KERNEL) {
			ind[0] = '\0';
			snprintf(src[i], SRC, "%s", a->an->ops[r->op].kernels[r->kernel].name);
			room[i] = kw > 1 ? kw : 1;
			utf8_elide(name[i], cap, src[i], room[i], term.g.ellipsis);
			continue;
		}
		name_cell(a, r, o, prog, ind, IND, src[i], SRC);
		room[i] = w - utf8_width(ind);
		if (room[i] < 1)
			room[i] = 1;
		utf8_elide(name[i], cap, src[i], room[i], term.g.ellipsis);
	}
	for (i = 0; i < vis; i++) {
		if (room[i] < 0)
			continue;
		for (j = i, ng = 0; j < vis; j++)
			if (room[j] == room[i] &&
			    (rows[top + j].kind == ROW_KERNEL) == (rows[top + i].kind == ROW_KERNEL)) {
				gout[ng] = name[j];
				gsrc[ng++] = src[j];
				if (j > i)
					room[j] = -2; /* done with this group */
			}
		utf8_elide_apart(gout, cap, gsrc, ng, room[i], term.g.ellipsis);
	}
	for (i = 0; i < vis; i++)
		if (fit[i])
			snprintf(fit[i], IND + cap, "%s%s", buf + i * each, name[i]);
	free(src);
	free(name);
	free(gout);
	free(gsrc);
	free(room);
	return buf;
}

/* A kernel row's figures and words before its name, into buf; returns
 * their width in columns (the same for every kernel; kr NULL: blank). */
static int kernel_prefix(const struct xt_op_kernel *kr, char *buf, size_t n)
{
	char b1[32] = "", b2[32] = "";

	if (kr) {
		fmt_ps(b1, sizeof(b1), kr->total_ps);
		fmt_count(b2, sizeof(b2), kr->occurrences);
	}
	snprintf(buf, n, "%*s %*s launches  %s %s ", op_columns[0].width, b1, 9, b2,
		 term.ascii ? "->" : "\xe2\x86\xb3", kr ? kernel_kind(kr) : "kernel");
	return utf8_width(buf);
}

/* PROGRAM takes the room the names leave, 24 kept for them
 * (op_columns_program_width): at its 14 it cut "jit__reduce_max" and
 * "jit__reduce_sum" to "jit__reduce_ma" and "jit__reduce_su" at any width. */
static void widen_program(const struct app *a, const int *show, int *cw)
{
	int pc = op_column_find("PROGRAM"), flex = a->cols;
	size_t c;

	if (pc < 0 || !show[pc])
		return;
	for (c = 0; c < op_ncolumns; c++)
		if (show[c] && cw[c])
			flex -= cw[c] + 1;
	cw[pc] = op_columns_program_width(a->an->ops, a->an->nops, cw[pc], flex, 24);
}

static void ops_draw(struct app *a, int y, int h)
{
	size_t n, c, k, nop, vis;
	struct row *rows = ops_rows(a, &n);
	char cell[512], line[1024], **fit, *fitbuf;
	int x, row, show[16], cw[16], hend = 0; /* hend: where the header's text ends */
	int name_min = 24;

	/* A flat list without its PROGRAM column names an op that several
	 * programs have "program/op" ("jit_dot(49)/custom-call.1"): such
	 * names take up to 32 columns before a figure column goes (cut in
	 * their middle, the rows of nine programs read alike). */
	for (k = 0; k < a->an->nops && name_min < 32 && !a->ops.grouped; k++) {
		const struct xt_op_row *o = &a->an->ops[k];
		int w;

		if (!o->name_shared || !o->program[0])
			continue;
		w = utf8_width(o->program) + 1 + utf8_width(o->name) + 2;
		if (w > name_min)
			name_min = w < 32 ? w : 32;
	}
	op_columns_fit(a->cols, name_min, show);
	/* Columns no op has a value for give their room to the names. */
	op_columns_blank(show, a->an->ops, a->an->nops);
	for (c = 0; c < op_ncolumns; c++) {
		int used = 0;
		size_t j;

		for (j = 0; j < op_ncolumns; j++)
			if (show[j] && op_columns[j].width)
				used += op_columns[j].width + 1;
		if (!show[c] && op_columns[c].width && op_columns[c].drop &&
		    !op_column_blank(c, a->an->ops, a->an->nops) &&
		    a->cols - used - op_columns[c].width - 1 >=
			    ((int)c == op_column_find("PROGRAM") ? 24 : name_min))
			show[c] = 1; /* with PROGRAM shown, names lose "program/" */
	}
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
	for (c = 0; c < op_ncolumns && c < 16; c++)
		cw[c] = op_columns[c].width;
	widen_program(a, show, cw);
	/* Header, generated from the column table; the sort column marked. */
	move(y, 0);
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), "", 1);
	for (c = 0, x = 0; c < op_ncolumns && x < a->cols; c++) {
		const struct op_column *col = &op_columns[c];
		int w = cw[c] ? cw[c] : a->cols - x;

		if (!show[c])
			continue;
		/* The sort column marked as the lists mark it ("FLOP/v":
		 * "FLOP/sv" in six columns read "FLOP/…"). */
		{
			char nm[32];

			panel_head_name(nm, sizeof(nm), col->name, (int)c == a->ops.sort, w);
			if (col->right)
				snprintf(cell, sizeof(cell), "%*s", w, nm);
			else
				snprintf(cell, sizeof(cell), "%s", nm);
			hend = x + (col->right ? w : (int)strlen(nm));
		}
		x += ui_put(y, x, w, term_attr(ROLE_HEADER), cell, 1);
		x += ui_put(y, x, 1, term_attr(ROLE_HEADER), " ", 1);
	}
	if (a->ops.sel >= (long)n)
		a->ops.sel = n ? (long)n - 1 : 0;
	if (a->ops.sel < a->ops.top)
		a->ops.top = a->ops.sel;
	if (a->ops.sel >= a->ops.top + (h - 2))
		a->ops.top = a->ops.sel - (h - 2) + 1;
	if (a->ops.sel >= a->ops.top + (h - 3))
		a->ops.top = a->ops.sel - (h - 3) + 1;
	/* A taller window (or fewer rows) shows the first ones again, not
	 * blank lines under the last: a list scrolled down reads as if its
	 * top rows were not there. */
	if (h > 3 && a->ops.top > 0 && (long)n - a->ops.top < h - 3)
		a->ops.top = (long)n > h - 3 ? (long)n - (h - 3) : 0;
	/* Rows above the screen (after a re-sort that kept the selection,
	 * the first shown is not the order's first): said in the header. */
	{
		char up[48];
		int len = panel_above_text(up, sizeof(up), a->ops.top, term.g.peak);

		if (len && hend + len <= a->cols)
			ui_put(y, a->cols - len, len, term_attr(ROLE_HEADER), up, 0);
	}
	{
		int wname = a->cols;

		for (c = 0; c < op_ncolumns; c++)
			if (show[c] && cw[c])
				wname -= cw[c] + 1;
		/* The rows drawn: from top, while row < y + h - 2. */
		vis = (size_t)a->ops.top < n ? n - (size_t)a->ops.top : 0;
		if (vis > (size_t)(h > 3 ? h - 3 : 0))
			vis = (size_t)(h > 3 ? h - 3 : 0);
		fit = xcalloc(vis ? vis : 1, sizeof(*fit));
		fitbuf = vis ? fit_names(a, rows, (size_t)a->ops.top, vis, wname > 1 ? wname : 1,
					 a->cols - kernel_prefix(NULL, line, sizeof(line)),
					 !a->ops.grouped && !show[op_column_find("PROGRAM")], fit)
			     : NULL;
	}
	for (k = (size_t)a->ops.top, row = y + 1; k < n && row < y + h - 2; k++, row++) {
		const struct xt_op_row *o = rows[k].kind == ROW_OP || rows[k].kind == ROW_KERNEL
						    ? &a->an->ops[rows[k].op]
						    : &rows[k].agg;
		int attr = (long)k == a->ops.sel ? term_attr(ROLE_SELECT)
			   : rows[k].kind == ROW_KERNEL ? term_attr(ROLE_DIM)
			   : rows[k].kind != ROW_OP ? (int)(term_attr(ROLE_TEXT) | A_BOLD)
						    : term_attr(ROLE_TEXT);

		if (rows[k].kind == ROW_KERNEL) {
			/* A kernel beneath its op: its launches and time. */
			int pw = kernel_prefix(&o->kernels[rows[k].kernel], line, sizeof(line));

			ui_put(row, 0, a->cols, attr, line, 0);
			ui_put(row, pw, a->cols - pw, attr, fit[k - (size_t)a->ops.top], 1);
			continue;
		}

		for (c = 0, x = 0; c < op_ncolumns && x < a->cols; c++) {
			const struct op_column *col = &op_columns[c];
			int w = cw[c] ? cw[c] : a->cols - x;

			if (!show[c])
				continue;
			if (rows[k].kind != ROW_OP && ops_group_blank(col->name)) {
				cell[0] = '\0';
			} else {
				col->format(o, cell, sizeof(cell));
			}
			if (!col->width) {
				const char *f = fit[k - (size_t)a->ops.top];

				x += ui_put(row, x, w, attr, f ? f : "", 1);
				continue;
			}
			if (col->right && utf8_width(cell) > w)
				panel_no_fit(line, sizeof(line), w);
			else if (col->right)
				snprintf(line, sizeof(line), "%*.*s", w, w, cell);
			else /* a name too long gives way in its middle, marked */
				utf8_elide(line, sizeof(line), cell, w, term.g.ellipsis);
			x += ui_put(row, x, w, attr, line, 1);
			x += ui_put(row, x, 1, attr, " ", 1);
		}
	}
	free(fit);
	free(fitbuf);
	if (a->ops.sel >= 0 && (size_t)a->ops.sel < n)
		describe(a, &rows[a->ops.sel], line, sizeof(line));
	else
		line[0] = '\0';
	if (line[0] && utf8_width(line) > a->cols && vis + 1 < (size_t)(h > 3 ? h - 3 : 0))
		/* A row left under the list: the note wraps over two. */
		ui_put_wrap(y + h - 3, a->cols, 2, term_attr(ROLE_TEXT), line, 1);
	else if (line[0] && utf8_width(line) > a->cols && a->cols > 40) {
		/* The list is full: cut, and say where it is whole. */
		static const char whole[] = "  i: whole";

		ui_put_wrap(y + h - 2, a->cols - (int)strlen(whole), 1, term_attr(ROLE_TEXT), line, 0);
		ui_put(y + h - 2, a->cols - (int)strlen(whole), (int)strlen(whole),
		       term_attr(ROLE_DIM), whole, 1);
	} else if (line[0])
		ui_put_wrap(y + h - 2, a->cols, 1, term_attr(ROLE_TEXT), line, 0);
	else
		ui_put(y + h - 2, 0, a->cols, term_attr(ROLE_TEXT), "", 1);
	/* Ops shown, not rows: kernel rows opened under an op do not count. */
	for (k = 0, nop = 0; k < n; k++)
		nop += rows[k].kind != ROW_KERNEL;
	/* Narrow: the key hint goes first, then the sort (its column's
	 * header says it); what still does not fit ends in a mark. */
	for (k = 0; k < 3; k++) {
		snprintf(line, sizeof(line), " %zu %s of %zu ops%s%s%s%s%s%s%s", nop,
			 a->ops.grouped ? "rows" : "shown", a->an->nops,
			 a->ops.filter[0] ? ", filter '" : "", a->ops.filter,
			 a->ops.filter[0] ? "'" : "", k < 2 ? "   sorted by " : "",
			 k < 2 ? op_columns[a->ops.sort].name : "", k < 1 ? "   " : "",
			 k >= 1			? (a->ops.grouped ? ", grouped" : "")
			 : a->ops.grouped ? "grouped by program, category (p: flat)"
					  : "(p: group)");
		if (utf8_width(line) <= a->cols)
			break;
	}
	ui_put_wrap(y + h - 1, a->cols, 1, term_attr(ROLE_DIM), line, 0);
	free(rows);
}

/* An event of op arg on a device track (XLA ops by display name, GPU
 * kernels by the op the profile attributes them to). */
static int is_op_event(struct app *a, const struct tl_track *tr, const struct xt_event *ev,
		       const void *arg)
{
	const struct xt_op_row *o = arg;
	char name[512];

	if (strncmp(tr->p->name, "/device:GPU:", 12)) {
		if (strcmp(trace_event_display_name(tr->p, ev), o->name))
			return 0;
	} else if (strcmp(analysis_op_name(a->an, a->t, tr->host, tr->p, tr->l, ev, name,
					   sizeof(name)),
			  o->name)) {
		return 0;
	}
	/* One op name in several programs is several rows: this one's. */
	return !o->name_shared ||
	       !strcmp(analysis_op_program(a->an, a->t, tr->host, tr->p, tr->l, ev, name,
					   sizeof(name)),
		       o->program);
}

static void jump_longest(struct app *a, const struct xt_op_row *o)
{
	if (app_jump_longest(a, is_op_event, o, "run", o->name) < 0)
		app_status(a, 1, "no run of %s found on the device tracks", o->name);
}

/* A launch of kernel k->name for op k->o (Enter on a kernel row). */
struct op_kernel {
	const struct xt_op_row *o;
	const char *name;
};

static int is_op_kernel(struct app *a, const struct tl_track *tr, const struct xt_event *ev,
			const void *arg)
{
	const struct op_kernel *k = arg;

	return !strncmp(tr->p->name, "/device:GPU:", 12) &&
	       !strcmp(xt_event_meta(tr->p, ev)->name, k->name) && is_op_event(a, tr, ev, k->o);
}

/* What the selected row is, to find it again after the rows are rebuilt
 * in another order or filtered (a row number would point at another op). */
struct sel_key {
	enum row_kind kind;
	long op, kernel;
	const char *program, *category;
	int valid;
};

static struct sel_key sel_key(struct app *a)
{
	size_t n;
	struct row *rows = ops_rows(a, &n);
	struct sel_key k = { ROW_OP, -1, -1, NULL, NULL, 0 };

	if (a->ops.sel >= 0 && (size_t)a->ops.sel < n) {
		const struct row *r = &rows[a->ops.sel];

		k = (struct sel_key){ r->kind, r->op, r->kernel, r->agg.program, r->agg.category, 1 };
	}
	free(rows);
	return k;
}

/* Selects the row k named, or the first row when it is gone (filtered
 * out, or a kernel row of an op now folded: its op then). */
static void sel_restore(struct app *a, const struct sel_key *k)
{
	size_t n, i, hit = SIZE_MAX, op_row = SIZE_MAX;
	struct row *rows = ops_rows(a, &n);

	for (i = 0; k->valid && i < n && hit == SIZE_MAX; i++) {
		const struct row *r = &rows[i];

		if (r->kind == ROW_OP && r->op == k->op)
			op_row = i;
		if (r->kind != k->kind)
			continue;
		if (r->kind == ROW_OP ? r->op == k->op
		    : r->kind == ROW_KERNEL
			    ? r->op == k->op && r->kernel == k->kernel
			    : !strcmp(r->agg.program, k->program) &&
				      (r->kind == ROW_PROGRAM || !strcmp(r->agg.category, k->category)))
			hit = i;
	}
	if (hit == SIZE_MAX)
		hit = op_row;
	/* Across a change of shape (p): an op folded away selects its group
	 * (its category, else its program); a group in the flat list, its
	 * first op. */
	if (k->valid && hit == SIZE_MAX && k->kind == ROW_OP) {
		const struct xt_op_row *want = &a->an->ops[k->op];

		for (i = 0; i < n; i++) {
			const struct row *r = &rows[i];

			if ((r->kind == ROW_PROGRAM || r->kind == ROW_CATEGORY) &&
			    !strcmp(r->agg.program, want->program) &&
			    (r->kind == ROW_PROGRAM || !strcmp(r->agg.category, want->category)))
				hit = i; /* its category row, after its program's, wins */
		}
	} else if (k->valid && hit == SIZE_MAX && k->kind != ROW_KERNEL) {
		for (i = 0; i < n && hit == SIZE_MAX; i++) {
			const struct row *r = &rows[i];

			if (r->kind == ROW_OP && !strcmp(a->an->ops[r->op].program, k->program) &&
			    (k->kind == ROW_PROGRAM || !strcmp(a->an->ops[r->op].category, k->category)))
				hit = i;
		}
	}
	a->ops.sel = hit == SIZE_MAX ? 0 : (long)hit;
	if (hit == SIZE_MAX)
		a->ops.top = 0;
	free(rows);
}

void view_ops_set_filter(struct app *a, const char *text)
{
	struct sel_key k = sel_key(a);

	snprintf(a->ops.filter, sizeof(a->ops.filter), "%.*s", (int)sizeof(a->ops.filter) - 1,
		 text);
	sel_restore(a, &k);
}

static unsigned ops_act(struct app *a, enum action act)
{
	struct sel_key k;

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
		a->ops.sel = (long)ops_rows_cap(a);
		break;
	case ACT_SORT_NEXT:
		k = sel_key(a);
		a->ops.sort = (a->ops.sort + 1) % (int)op_ncolumns;
		sel_restore(a, &k);
		break;
	case ACT_SORT_PREV:
		k = sel_key(a);
		a->ops.sort = (a->ops.sort + (int)op_ncolumns - 1) % (int)op_ncolumns;
		sel_restore(a, &k);
		break;
	case ACT_GROUP:
		/* Another shape of list, on the same op (or its group). */
		k = sel_key(a);
		a->ops.grouped = !a->ops.grouped;
		a->ops.top = 0;
		sel_restore(a, &k);
		break;
	case ACT_ENTER:
	case ACT_FOLD: {
		size_t n;
		struct row *rows = ops_rows(a, &n);

		if (a->ops.sel >= 0 && (size_t)a->ops.sel < n) {
			struct row *r = &rows[a->ops.sel];
			const struct xt_op_row *o = &a->an->ops[r->op];

			if (r->kind == ROW_PROGRAM || r->kind == ROW_CATEGORY)
				ops_toggle_fold(a, r->agg.program,
					    r->kind == ROW_CATEGORY ? r->agg.category : NULL);
			else if (act == ACT_ENTER && r->kind == ROW_OP)
				jump_longest(a, o);
			else if (act == ACT_ENTER && r->kind == ROW_KERNEL) {
				/* The kernel's own longest launch for this op (it
				 * folded the kernels away and went back to the op). */
				struct op_kernel ok = { o, o->kernels[r->kernel].name };

				if (app_jump_longest(a, is_op_kernel, &ok, "launch", ok.name) < 0)
					app_status(a, 1, "no launch of %s found on the GPU tracks", ok.name);
				free(rows);
				return UI_REDRAW;
			}
			else if (o->nkernels)
				/* Space on an op or one of its kernels: show or
				 * hide the kernels it launched. */
				ops_toggle_key(a, 'K', o->program, o->name);
			else
				app_status(a, 0, "%s launched no kernels (not a GPU op)", o->name);
			if (r->kind == ROW_KERNEL && !ops_folded_key(a, 'K', o->program, o->name)) {
				/* Hidden under the cursor: select the op. */
				a->ops.sel -= r->kernel + 1;
			}
		}
		free(rows);
		break;
	}
	case ACT_ESCAPE:
		if (!a->ops.filter[0])
			return 0;
		view_ops_set_filter(a, "");
		app_status(a, 0, "filter cleared");
		break;
	default:
		return 0;
	}
	return UI_REDRAW;
}

const struct view view_ops = { "op profile", SCOPE_OPS, ops_draw, ops_act, NULL, 0 };

int view_ops_selected(struct app *a, struct xt_op_row *agg, const struct xt_op_row **o,
		      long *kernel, int *group, char *note, size_t n)
{
	size_t nr;
	struct row *rows = ops_rows(a, &nr);
	const struct row *r = a->ops.sel >= 0 && (size_t)a->ops.sel < nr ? &rows[a->ops.sel] : NULL;

	if (r) {
		*group = r->kind == ROW_PROGRAM || r->kind == ROW_CATEGORY;
		*kernel = r->kind == ROW_KERNEL ? r->kernel : -1;
		if (*group)
			*agg = r->agg;
		*o = *group ? agg : &a->an->ops[r->op];
		describe(a, r, note, n);
	}
	free(rows);
	return r ? 0 : -1;
}

void view_ops_focus(struct app *a, long op)
{
	struct row *rows;
	size_t n, i;

	a->ops.filter[0] = '\0';
	a->view = VIEW_OPS;
	rows = ops_rows(a, &n);
	for (i = 0; i < n; i++)
		if (rows[i].kind == ROW_OP && rows[i].op == op) {
			a->ops.sel = (long)i;
			break;
		}
	app_status(a, 0, "op %s%s%s", a->an->ops[op].program, *a->an->ops[op].program ? "/" : "",
		   a->an->ops[op].name);
	if (i == n && a->ops.grouped) {
		/* Folded away: list flat, where every op has a row. */
		a->ops.grouped = 0;
		n = ops_build_rows(a, rows);
		for (i = 0; i < n; i++)
			if (rows[i].kind == ROW_OP && rows[i].op == op)
				a->ops.sel = (long)i;
	}
	free(rows);
}
