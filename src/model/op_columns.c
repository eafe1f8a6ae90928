/* op_columns: see op_columns.h. */
#include "op_columns.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/timefmt.h"

static void f_self(const struct xt_op_row *r, char *b, size_t n)
{
	fmt_ps(b, n, r->self_ps);
}
static void f_pct(const struct xt_op_row *r, char *b, size_t n)
{
	snprintf(b, n, "%.1f%%", r->percent);
}
static void f_total(const struct xt_op_row *r, char *b, size_t n)
{
	fmt_ps(b, n, r->total_ps);
}
static void f_avg(const struct xt_op_row *r, char *b, size_t n)
{
	fmt_ps(b, n, r->occurrences ? r->total_ps / (int64_t)r->occurrences : 0);
}
static void f_occ(const struct xt_op_row *r, char *b, size_t n)
{
	fmt_count(b, n, r->occurrences);
}
static void f_flops(const struct xt_op_row *r, char *b, size_t n)
{
	if (!r->has_flops || r->total_ps <= 0) {
		snprintf(b, n, "-");
		return;
	}
	fmt_rate(b, n, r->flops / ((double)r->total_ps * 1e-12));
	strncat(b, "FLOP/s", n - strlen(b) - 1);
}
static void f_bytes(const struct xt_op_row *r, char *b, size_t n)
{
	if (!r->has_bytes || r->total_ps <= 0) {
		snprintf(b, n, "-");
		return;
	}
	fmt_rate(b, n, r->bytes_accessed / ((double)r->total_ps * 1e-12));
	strncat(b, "B/s", n - strlen(b) - 1);
}
static void f_cat(const struct xt_op_row *r, char *b, size_t n)
{
	snprintf(b, n, "%s", r->category);
}
static void f_prog(const struct xt_op_row *r, char *b, size_t n)
{
	snprintf(b, n, "%s", r->program);
}
static void f_name(const struct xt_op_row *r, char *b, size_t n)
{
	snprintf(b, n, "%s", r->name);
}

#define DESC(a, b) ((a) > (b) ? -1 : (a) < (b))
static int c_self(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return DESC(a->self_ps, b->self_ps);
}
static int c_total(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return DESC(a->total_ps, b->total_ps);
}
static int c_avg(const struct xt_op_row *a, const struct xt_op_row *b)
{
	double x = a->occurrences ? (double)a->total_ps / (double)a->occurrences : 0;
	double y = b->occurrences ? (double)b->total_ps / (double)b->occurrences : 0;

	return DESC(x, y);
}
static int c_occ(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return DESC(a->occurrences, b->occurrences);
}
static int c_flops(const struct xt_op_row *a, const struct xt_op_row *b)
{
	double x = a->total_ps > 0 ? a->flops / (double)a->total_ps : 0;
	double y = b->total_ps > 0 ? b->flops / (double)b->total_ps : 0;

	return DESC(x, y);
}
static int c_bytes(const struct xt_op_row *a, const struct xt_op_row *b)
{
	double x = a->total_ps > 0 ? a->bytes_accessed / (double)a->total_ps : 0;
	double y = b->total_ps > 0 ? b->bytes_accessed / (double)b->total_ps : 0;

	return DESC(x, y);
}
static int c_cat(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return strcmp(a->category, b->category);
}
static int c_prog(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return strcmp(a->program, b->program);
}
static int c_name(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return strcmp(a->name, b->name);
}

const struct op_column op_columns[] = {
	{ "SELF", 10, 1, 0, f_self, c_self },
	{ "%DEV", 6, 1, 0, f_pct, c_self },
	{ "TOTAL", 10, 1, 3, f_total, c_total },
	{ "AVG", 10, 1, 4, f_avg, c_avg },
	{ "OCC", 8, 1, 2, f_occ, c_occ },
	{ "FLOP/s", 14, 1, 6, f_flops, c_flops },
	{ "BYTES/s", 12, 1, 7, f_bytes, c_bytes },
	{ "CATEGORY", 16, 0, 1, f_cat, c_cat },
	{ "PROGRAM", 16, 0, 5, f_prog, c_prog },
	{ "NAME", 0, 0, 0, f_name, c_name },
};
const size_t op_ncolumns = sizeof(op_columns) / sizeof(op_columns[0]);

int op_column_find(const char *name)
{
	size_t i;

	for (i = 0; i < op_ncolumns; i++)
		if (!strcasecmp(op_columns[i].name, name))
			return (int)i;
	return -1;
}

void op_columns_fit(int width, int name_min, int *show)
{
	size_t i;
	int used = 0, drop;

	for (i = 0; i < op_ncolumns; i++) {
		show[i] = 1;
		used += op_columns[i].width ? op_columns[i].width + 1 : 0;
	}
	/* Drop the least useful columns until NAME has room. */
	for (drop = 7; drop >= 1 && width - used < name_min; drop--)
		for (i = 0; i < op_ncolumns; i++)
			if (op_columns[i].drop == drop && show[i]) {
				show[i] = 0;
				used -= op_columns[i].width + 1;
			}
}
