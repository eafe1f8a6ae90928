/* rowinfo: see rowinfo.h. */
#include "rowinfo.h"

#include <stdio.h>
#include <string.h>

#include "../model/op_columns.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "app.h"
#include "ops_rows.h"
#include "term.h"

/* Header names line up in this many columns; a value too long for its
 * row continues under itself. */
enum { KEYW = 12 };

static void put(struct textview *tv, int role, const char *key, const char *value)
{
	textview_add(tv, role, 0, KEYW + 2, "  %-*s %s", KEYW - 1, key, value[0] ? value : "-");
}

/* A list panel's row: each column's text as the list reads it (its
 * filter too), drawn or not at this width, with what the column means
 * after a short figure (a name's own line is long enough). Columns that
 * draw themselves (bars) have no text to give. */
static void panel_cols(struct textview *tv, const struct panel *p, long row, size_t from,
		       size_t to)
{
	char buf[8192], v[8400];
	size_t c;

	for (c = from; c < to && c < p->ncols; c++) {
		if (!p->cols[c].text)
			continue;
		p->cols[c].text(p->ctx, (size_t)row, buf, sizeof(buf));
		if (p->cols[c].help && p->cols[c].width && utf8_width(buf) <= 10) {
			snprintf(v, sizeof(v), "%-10s %s", buf[0] ? buf : "-", p->cols[c].help);
			put(tv, ROLE_TEXT, p->cols[c].name, v);
		} else if (p->cols[c].help && p->cols[c].width && strlen(buf) <= 40) {
			/* A longer figure ("TPU v6 Lite") ran into its help. */
			put(tv, ROLE_TEXT, p->cols[c].name, buf);
			put(tv, ROLE_DIM, "", p->cols[c].help);
		} else {
			put(tv, ROLE_TEXT, p->cols[c].name, buf);
		}
	}
}

/* A kernel row's figures that have no column of their own. */
static void kernel_extra(struct textview *tv, const struct xt_kernel_row *k)
{
	char b[256];

	put(tv, ROLE_TEXT, "MIN", fmt_ps(b, sizeof(b), k->min_ps));
	if (k->program[0])
		put(tv, ROLE_TEXT, "PROGRAM", k->program);
	/* Why a '-' above is one: not given, or given and impossible. */
	if (*analysis_kernel_note(k, b, sizeof(b)))
		put(tv, ROLE_DIM, "NOTE", b);
}

/* The op columns of words, shown before the figures, in this order. */
static const char *const op_words[] = { "NAME", "PROGRAM", "CATEGORY" };

static int op_word(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(op_words) / sizeof(op_words[0]); k++)
		if (!strcmp(name, op_words[k]))
			return 1;
	return 0;
}

/* The op profile's row: an op's name, program and category, the note its
 * footer cuts, its figures by the op columns each with what it means, and
 * the kernels it launched; a group row, its name and sums; a kernel row,
 * the kernel and its op. */
static void op_row(struct textview *tv, const struct xt_op_row *o, long kernel, int group,
		   const char *note)
{
	char cell[4096];
	size_t c, k;

	if (kernel >= 0) {
		const struct xt_op_kernel *kr = &o->kernels[kernel];

		put(tv, ROLE_TEXT, xt_name_memset(kr->name) ? "MEMSET" : "KERNEL", kr->name);
		put(tv, ROLE_TEXT, "TOTAL", fmt_ps(cell, sizeof(cell), kr->total_ps));
		fmt_count(cell, sizeof(cell), kr->occurrences);
		put(tv, ROLE_TEXT, "LAUNCHES", cell);
		put(tv, ROLE_TEXT, "OP", o->name);
		if (o->program[0])
			put(tv, ROLE_TEXT, "PROGRAM", o->program);
		return;
	}
	if (group) {
		put(tv, ROLE_TEXT, "GROUP", o->name);
		if (o->rate_note && o->rate_note[0])
			put(tv, ROLE_DIM, "NOTE", o->rate_note);
	} else {
		for (k = 0; k < sizeof(op_words) / sizeof(op_words[0]); k++) {
			int ci = op_column_find(op_words[k]);

			if (ci < 0)
				continue;
			op_columns[ci].format(o, cell, sizeof(cell));
			put(tv, ROLE_TEXT, op_columns[ci].name, cell);
		}
		if (note[0])
			textview_add(tv, ROLE_TEXT, 0, 2, "  %s", note[0] == ' ' ? note + 1 : note);
	}
	textview_add(tv, ROLE_TEXT, 0, 0, "%s", "");
	for (c = 0; c < op_ncolumns; c++) {
		const struct op_column *col = &op_columns[c];
		char v[4200];

		if (op_word(col->name) || (group && ops_group_blank(col->name)))
			continue;
		col->format(o, cell, sizeof(cell));
		snprintf(v, sizeof(v), "%-10s %s", cell[0] ? cell : "-", col->help ? col->help : "");
		put(tv, ROLE_TEXT, col->name, v);
	}
	if (!group && o->nkernels) {
		textview_add(tv, ROLE_TEXT, 0, 0, "%s", "");
		size_t nm = 0;

		for (k = 0; k < o->nkernels; k++)
			nm += xt_name_memset(o->kernels[k].name);
		textview_add(tv, ROLE_HEADER, 0, 0, "  kernels it launched (%zu)%s", o->nkernels,
			     nm ? ", memsets among them" : "");
		for (k = 0; k < o->nkernels; k++) {
			char t[32], n[32];

			fmt_ps(t, sizeof(t), o->kernels[k].total_ps);
			fmt_count(n, sizeof(n), o->kernels[k].occurrences);
			textview_add(tv, ROLE_TEXT, 0, 4, "  %9s %9s x  %s", t, n, o->kernels[k].name);
		}
	}
}

int rowinfo_fill(struct app *a, struct textview *tv)
{
	struct panel *p = app_view_panel(a);
	const char *view = a->view == VIEW_OPS ? "op profile" : NULL;
	long row = -1;

	/* tv is the open overlay's (help, messages): it is cleared only once
	 * there is a row to show. */
	if (!a->an)
		return -1;
	if (p) {
		row = panel_selected(p);
		if (row < 0)
			return -1;
		textview_clear(tv);
		if (p == &a->kern && (size_t)row < a->an->nkernels && p->ncols) {
			/* The figures, then MIN and the NOTE on their '-', then
			 * the name: a C++ kernel's takes a dozen rows, and put
			 * the NOTE below the first screen at 80x24. */
			panel_cols(tv, p, row, 0, p->ncols - 1);
			kernel_extra(tv, &a->an->kernels[row]);
			panel_cols(tv, p, row, p->ncols - 1, p->ncols);
		} else {
			panel_cols(tv, p, row, 0, p->ncols);
		}
		/* DEVICE names the host by the part that differs; here whole. */
		if (p == &a->devs && (size_t)row < a->an->ndevices && a->t->nhosts > 1)
			put(tv, ROLE_TEXT, "HOST", a->an->devices[row].host);
		/* Why its '-' are, as the view's last line says. */
		if (p == &a->devs && (size_t)row < a->an->ndevices &&
		    xt_device_unknown_why(&a->an->devices[row]))
			put(tv, ROLE_DIM, "NOTE", xt_device_unknown_why(&a->an->devices[row]));
		view = p == &a->steps	? "steps"
		       : p == &a->mem	? "memory"
		       : p == &a->kern	? "kernels"
		       : p == &a->devs	? "devices"
					: "diff";
	} else if (a->view == VIEW_OPS) {
		struct xt_op_row agg;
		const struct xt_op_row *o;
		long kernel;
		int group;
		char note[4096];

		if (view_ops_selected(a, &agg, &o, &kernel, &group, note, sizeof(note)) < 0)
			return -1;
		textview_clear(tv);
		op_row(tv, o, kernel, group, note);
	} else {
		return -1;
	}
	snprintf(a->ov.title, sizeof(a->ov.title), " %s: the selected row in full", view);
	return 0;
}
