/*
 * ops_rows: the op profile's rows (view_ops.c): its ops in the order of
 * the sort column, flat or grouped by program then category with each
 * group's sums, the kernels of an op opened under it, and the folds that
 * say which are open. Rebuilt on every draw from the analysis; the folds
 * live in struct app (a->ops.folds).
 */
#ifndef XT_OPS_ROWS_H
#define XT_OPS_ROWS_H

#include <stddef.h>

#include "../model/analysis.h"

struct app;

enum row_kind { ROW_OP, ROW_PROGRAM, ROW_CATEGORY, ROW_KERNEL };

struct row {
	enum row_kind kind;
	long op;              /* ROW_OP, ROW_KERNEL: the op */
	long kernel;          /* ROW_KERNEL: index into the op's kernels */
	struct xt_op_row agg; /* group rows: sums of their ops */
};

/* Fold keys: kind 'G' with x a program and y a category (NULL: the
 * program's row), a folded group; 'K' with x a program and y an op, an op
 * whose kernels are shown. */
int ops_folded_key(struct app *a, char kind, const char *x, const char *y);
void ops_toggle_key(struct app *a, char kind, const char *x, const char *y);
/* The group of program prog (and category cat, or NULL) is folded. */
int ops_folded(struct app *a, const char *prog, const char *cat);
void ops_toggle_fold(struct app *a, const char *prog, const char *cat);
/* Room for every row the list could show. */
size_t ops_rows_cap(const struct app *a);
/* The rows shown, filtered and sorted, into rows (ops_rows_cap() of them);
 * returns their count. */
size_t ops_build_rows(struct app *a, struct row *rows);
/* The same, into a new array (the caller frees it), *n of them. */
struct row *ops_rows(struct app *a, size_t *n);
/* Whether op column name is blank on a group row: a group has no
 * average, category, program or name of its own. */
int ops_group_blank(const char *name);

#endif
