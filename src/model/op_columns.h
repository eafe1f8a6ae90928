/*
 * op_columns: the op profile's columns as data (style rule 8). The same
 * table drives the report's header and cells and, later, the viewer's
 * table and its sort keys, so the two can never disagree on a number.
 */
#ifndef XT_OP_COLUMNS_H
#define XT_OP_COLUMNS_H

#include <stddef.h>

#include "analysis.h"

struct op_column {
	const char *name;  /* header text */
	int width;         /* preferred width; the last column takes the rest */
	int right;         /* 1: right-aligned (numbers) */
	int drop;          /* narrow screens drop columns with the highest value first (0 = never) */
	/* Formats row's cell into buf (NUL-terminated); can't fail. */
	void (*format)(const struct xt_op_row *row, char *buf, size_t n);
	/* Orders rows for this column, "largest first" for numbers. */
	int (*cmp)(const struct xt_op_row *a, const struct xt_op_row *b);
	const char *help;  /* what the column means (help and the report legend) */
	int legend;        /* 1: an abbreviation the report explains under the table */
};

extern const struct op_column op_columns[];
extern const size_t op_ncolumns;

/* Which columns fit in width (NAME keeping at least name_min): sets
 * show[i] for each column. Can't fail. */
void op_columns_fit(int width, int name_min, int *show);
/* 1 when column c shows "-" for every one of rows[0..n). */
int op_column_blank(size_t c, const struct xt_op_row *rows, size_t n);
/* Hides (show[c] = 0) every column blank for rows[0..n). */
void op_columns_blank(int *show, const struct xt_op_row *rows, size_t n);
/* An op's %DEV (xt_op_row.percent) as the report and the viewer write it,
 * at most 5 characters: "<0.1%" for a share too small for a tenth, never
 * "0.0%" for an op that took time. Returns b. */
char *op_percent_text(char *b, size_t n, double percent);
/* Index of the column named name (case-insensitive), or -1. */
int op_column_find(const char *name);
/* PROGRAM's width for rows[0..n): its width `have`, grown into the room
 * the names leave (flex columns for them now, name_min at least) up to
 * its longest label, 40 at most. The report and the viewer both. */
int op_columns_program_width(const struct xt_op_row *rows, size_t n, int have, int flex,
			     int name_min);

#endif
