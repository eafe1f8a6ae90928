/* ops_rows: see ops_rows.h. */
#include "ops_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/op_columns.h"
#include "../util/xalloc.h"
#include "app.h"

static struct app *sort_app;

static int op_cmp_sorted(const struct xt_op_row *a, const struct xt_op_row *b)
{
	const struct op_column *c = &op_columns[sort_app->ops.sort];
	int r = c->cmp(a, b);

	if (!r)
		r = op_columns[0].cmp(a, b);
	return r ? r : strcmp(a->name, b->name);
}

static int row_cmp(const void *x, const void *y)
{
	return op_cmp_sorted(&sort_app->an->ops[*(const long *)x],
			     &sort_app->an->ops[*(const long *)y]);
}

/* A fold's key: kind, x, byte 1, y. */
int ops_folded_key(struct app *a, char kind, const char *x, const char *y)
{
	char key[1024];
	size_t i;

	snprintf(key, sizeof(key), "%c%s%c%s", kind, x, 1, y ? y : "");
	for (i = 0; i < a->ops.nfold; i++)
		if (!strcmp(a->ops.folds[i], key))
			return 1;
	return 0;
}

void ops_toggle_key(struct app *a, char kind, const char *x, const char *y)
{
	char key[1024];
	size_t i;

	snprintf(key, sizeof(key), "%c%s%c%s", kind, x, 1, y ? y : "");
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

int ops_folded(struct app *a, const char *prog, const char *cat)
{
	return ops_folded_key(a, 'G', prog, cat);
}

void ops_toggle_fold(struct app *a, const char *prog, const char *cat)
{
	ops_toggle_key(a, 'G', prog, cat);
}

/* A group row's figures: sums of its ops; rates of a mix of ops would be
 * neither any op's nor meaningful, so they are absent. */
static void agg_init(struct xt_op_row *g)
{
	memset(g, 0, sizeof(*g));
	g->flops_per_s = g->bytes_per_s = g->hbm_bytes_per_s = NAN;
	g->flops_utilization = g->hbm_bw_utilization = g->intensity = NAN;
	/* said where a '-' is explained (i, the footer) */
	g->rate_note = "a group's rates and bound are absent: those of a mix of ops are no "
		       "op's (its ops have their own)";
	g->parent = "";
}

static void agg_add(struct xt_op_row *g, const struct xt_op_row *o)
{
	g->occurrences += o->occurrences;
	g->self_ps = xt_sat_add(g->self_ps, o->self_ps);
	g->total_ps = xt_sat_add(g->total_ps, o->total_ps);
	g->percent += o->percent;
	g->flops += o->flops;
	g->bytes_accessed += o->bytes_accessed;
	g->has_flops |= o->has_flops;
	g->has_bytes |= o->has_bytes;
}

struct group {
	const char *key;   /* program, or category within a program */
	struct xt_op_row agg;
	long *ops;
	size_t n;
};

static int group_cmp(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	return op_cmp_sorted(&a->agg, &b->agg);
}

/* Groups idx[0..k) by `program` (level 0) or `category` (level 1), each
 * group's ops sorted, the groups sorted by their sums on the same key. */
static struct group *group_by(struct app *a, const long *idx, size_t k, int level, size_t *ng)
{
	struct group *g = NULL;
	size_t n = 0, cap = 0, i, j;

	for (i = 0; i < k; i++) {
		const struct xt_op_row *o = &a->an->ops[idx[i]];
		const char *key = level ? o->category : o->program;

		for (j = 0; j < n; j++)
			if (!strcmp(g[j].key, key))
				break;
		if (j == n) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				g = xreallocarray(g, cap, sizeof(*g));
			}
			g[n].key = key;
			agg_init(&g[n].agg);
			g[n].agg.name = level ? o->category : (o->program[0] ? o->program : "(no program)");
			g[n].agg.program = o->program;
			g[n].agg.category = level ? o->category : "";
			g[n].ops = xmalloc(k * sizeof(long));
			g[n].n = 0;
			n++;
		}
		agg_add(&g[j].agg, o);
		g[j].ops[g[j].n++] = idx[i];
	}
	for (j = 0; j < n; j++)
		qsort(g[j].ops, g[j].n, sizeof(long), row_cmp);
	if (n > 1)
		qsort(g, n, sizeof(*g), group_cmp);
	*ng = n;
	return g;
}

static void groups_free(struct group *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(g[i].ops);
	free(g);
}

/* Appends op rows (and, when expanded, their kernels). */
static size_t push_op(struct app *a, struct row *rows, size_t n, long op)
{
	const struct xt_op_row *o = &a->an->ops[op];
	size_t k;

	rows[n++] = (struct row){ ROW_OP, op, -1, { 0 } };
	if (o->nkernels && ops_folded_key(a, 'K', o->program, o->name))
		for (k = 0; k < o->nkernels; k++)
			rows[n++] = (struct row){ ROW_KERNEL, op, (long)k, { 0 } };
	return n;
}

/* Room for every visible row. */
size_t ops_rows_cap(const struct app *a)
{
	size_t i, n = 1;

	for (i = 0; i < a->an->nops; i++)
		n += 3 + a->an->ops[i].nkernels;
	return n;
}

/* Whether op o matches the filter: the text of any of its columns, shown
 * at this width or not (at 80 columns PROGRAM and CATEGORY give way, yet
 * are what ops are most often found by; BOUND's "memory" matched no op). */
static int op_matches(const struct xt_op_row *o, const char *filter)
{
	char cell[1024];
	size_t c;

	for (c = 0; c < op_ncolumns; c++) {
		op_columns[c].format(o, cell, sizeof(cell));
		if (strcasestr(cell, filter))
			return 1;
	}
	return 0;
}

/* The visible rows, rebuilt on every draw (ops number in the thousands). */
size_t ops_build_rows(struct app *a, struct row *rows)
{
	long *idx = xmalloc((a->an->nops ? a->an->nops : 1) * sizeof(long));
	size_t n = 0, k = 0, i, np, nc, p, c, j;
	struct group *pg;

	for (i = 0; i < a->an->nops; i++) {
		const struct xt_op_row *o = &a->an->ops[i];

		if (a->ops.filter[0] && !op_matches(o, a->ops.filter))
			continue;
		idx[k++] = (long)i;
	}
	sort_app = a;
	if (!a->ops.grouped) {
		qsort(idx, k, sizeof(long), row_cmp);
		for (i = 0; i < k; i++)
			n = push_op(a, rows, n, idx[i]);
		free(idx);
		return n;
	}
	/* Programs, then categories within each, then ops: every level in
	 * the order of the sort column, as the footer says. */
	pg = group_by(a, idx, k, 0, &np);
	for (p = 0; p < np; p++) {
		struct group *cg;
		int pf = ops_folded(a, pg[p].agg.program, NULL);

		rows[n] = (struct row){ ROW_PROGRAM, pg[p].ops[0], -1, pg[p].agg };
		n++;
		if (pf)
			continue;
		cg = group_by(a, pg[p].ops, pg[p].n, 1, &nc);
		for (c = 0; c < nc; c++) {
			rows[n] = (struct row){ ROW_CATEGORY, cg[c].ops[0], -1, cg[c].agg };
			n++;
			if (ops_folded(a, pg[p].agg.program, cg[c].agg.category))
				continue;
			for (j = 0; j < cg[c].n; j++)
				n = push_op(a, rows, n, cg[c].ops[j]);
		}
		groups_free(cg, nc);
	}
	groups_free(pg, np);
	free(idx);
	return n;
}


struct row *ops_rows(struct app *a, size_t *n)
{
	struct row *rows = xmalloc(ops_rows_cap(a) * sizeof(*rows));

	*n = ops_build_rows(a, rows);
	return rows;
}

int ops_group_blank(const char *name)
{
	return !strcmp(name, "AVG") || !strcmp(name, "CATEGORY") || !strcmp(name, "PROGRAM") ||
	       !strcmp(name, "NAME");
}
