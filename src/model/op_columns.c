/* op_columns: see op_columns.h. */
#include "op_columns.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"

#define OCC_COLS 6 /* the OCC column's width: counts past it take a suffix */

/* Compact rates for narrow columns: "164G", "1.31T", "0"; three figures
 * from 1000, so at most five columns (fmt_rate: 99.96T is "100T"). Past
 * 999P, or negative (a hostile stat): "-". */
static void short_rate(char *b, size_t n, double v)
{
	if (v >= 0 && v < 999.5)
		snprintf(b, n, "%.0f", v);
	else
		fmt_rate(b, n, v, "", "");
}

static void pct(char *b, size_t n, double frac)
{
	if (isnan(frac))
		snprintf(b, n, "-");
	else if (frac > 0 && frac < 0.001)
		snprintf(b, n, "<0.1%%");
	else if (frac < 1 && frac >= 0.995)
		/* Under the peak, never "100%": 99.69 % of the H100's HBM read
		 * as at the roof. Rounded down, to a tenth. */
		snprintf(b, n, "%.1f%%", floor(1000 * frac) / 10);
	else
		snprintf(b, n, "%.*f%%", frac < 0.1 ? 1 : 0, 100 * frac);
}

static void f_self(const struct xt_op_row *r, char *b, size_t n)
{
	fmt_ps(b, n, r->self_ps);
}
char *op_percent_text(char *b, size_t n, double percent)
{
	if (percent > 0 && percent < 0.05)
		snprintf(b, n, "<0.1%%");
	else
		/* "100.0%" would not fit the column: one op with all the time. */
		snprintf(b, n, percent >= 99.95 ? "%.0f%%" : "%.1f%%", percent);
	return b;
}

static void f_pct(const struct xt_op_row *r, char *b, size_t n)
{
	op_percent_text(b, n, r->percent);
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
	fmt_count_fit(b, n, r->occurrences, OCC_COLS);
}
static void f_flops(const struct xt_op_row *r, char *b, size_t n)
{
	short_rate(b, n, r->flops_per_s);
}
static void f_fpeak(const struct xt_op_row *r, char *b, size_t n)
{
	pct(b, n, r->flops_utilization);
}
static void f_bw(const struct xt_op_row *r, char *b, size_t n)
{
	short_rate(b, n, r->hbm_bytes_per_s);
}
static void f_bpeak(const struct xt_op_row *r, char *b, size_t n)
{
	pct(b, n, r->hbm_bw_utilization);
}
static void f_ai(const struct xt_op_row *r, char *b, size_t n)
{
	if (isnan(r->intensity) || r->intensity < 0)
		snprintf(b, n, "-");
	else if (r->intensity >= 99999.5)
		short_rate(b, n, r->intensity); /* "123K": five columns at most */
	else
		snprintf(b, n, "%.*f", r->intensity >= 100 ? 0 : r->intensity >= 1 ? 1 : 2,
			 r->intensity);
}
static void f_bound(const struct xt_op_row *r, char *b, size_t n)
{
	snprintf(b, n, "%s", r->bound_by == XT_BOUND_COMPUTE  ? "compute"
			     : r->bound_by == XT_BOUND_MEMORY ? "memory"
			     : r->async			      ? "async"
							      : "-");
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
/* Absent values sort last in either order. */
static int desc_nan(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return DESC(x, y);
}
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
	return desc_nan(a->flops_per_s, b->flops_per_s);
}
static int c_fpeak(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return desc_nan(a->flops_utilization, b->flops_utilization);
}
static int c_bw(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return desc_nan(a->hbm_bytes_per_s, b->hbm_bytes_per_s);
}
static int c_bpeak(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return desc_nan(a->hbm_bw_utilization, b->hbm_bw_utilization);
}
static int c_ai(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return desc_nan(a->intensity, b->intensity);
}
static int c_bound(const struct xt_op_row *a, const struct xt_op_row *b)
{
	return DESC((int)a->bound_by, (int)b->bound_by);
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

/* Widths fit the roofline columns beside a 22-column name in 100 columns;
 * at 80 the least useful ones go (drop order: highest first). The shares
 * of the peaks outlast the rates: with one share gone, "835T 584G 11%
 * compute" put the HBM share beside a compute-bound op. */
const struct op_column op_columns[] = {
	{ "SELF", 9, 1, 0, f_self, c_self, "self time: total minus direct children", 0 },
	{ "%DEV", 5, 1, 2, f_pct, c_self, "self time as a share of all ops' self time", 0 },
	{ "TOTAL", 9, 1, 11, f_total, c_total, "time including children", 0 },
	{ "AVG", 9, 1, 9, f_avg, c_avg, "total time per occurrence", 0 },
	{ "OCC", OCC_COLS, 1, 7, f_occ, c_occ, "occurrences", 1 },
	{ "FLOP/s", 6, 1, 5, f_flops, c_flops, "FLOPs over the op's time", 0 },
	{ "%PKF", 5, 1, 3, f_fpeak, c_fpeak, "FLOP rate as a share of the device's peak", 1 },
	{ "HBM/s", 6, 1, 6, f_bw, c_bw, "HBM bytes per second over the op's time", 0 },
	{ "%PKB", 5, 1, 4, f_bpeak, c_bpeak, "HBM bandwidth as a share of the device's peak", 1 },
	{ "AI", 5, 1, 8, f_ai, c_ai, "arithmetic intensity: FLOPs per HBM byte", 1 },
	{ "BOUND", 7, 0, 1, f_bound, c_bound, "its roof: compute or memory; async for a transfer", 0 },
	{ "CATEGORY", 14, 0, 10, f_cat, c_cat, "HLO category, TF op type or kernel kind", 0 },
	{ "PROGRAM", 14, 0, 12, f_prog, c_prog, "XLA module (program)", 0 },
	{ "NAME", 0, 0, 0, f_name, c_name, "op name", 0 },
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

int op_columns_program_width(const struct xt_op_row *rows, size_t n, int have, int flex,
			     int name_min)
{
	int want = 0, name = name_min, room;
	size_t i;

	for (i = 0; i < n; i++) {
		int p = utf8_width(rows[i].program), m = utf8_width(rows[i].name);

		want = p > want ? p : want;
		name = m > name ? m : name;
	}
	want = want < 40 ? want : 40;
	room = flex - name;
	if (want <= have || room <= 0)
		return have;
	return have + (want - have < room ? want - have : room);
}

void op_columns_fit(int width, int name_min, int *show)
{
	size_t i;
	int used = 0, drop, most = 0;

	for (i = 0; i < op_ncolumns; i++) {
		show[i] = 1;
		used += op_columns[i].width ? op_columns[i].width + 1 : 0;
		most = op_columns[i].drop > most ? op_columns[i].drop : most;
	}
	/* Drop the least useful columns until NAME has room. */
	for (drop = most; drop >= 1 && width - used < name_min; drop--)
		for (i = 0; i < op_ncolumns; i++)
			if (op_columns[i].drop == drop && show[i]) {
				show[i] = 0;
				used -= op_columns[i].width + 1;
			}
}

int op_column_blank(size_t c, const struct xt_op_row *rows, size_t n)
{
	char buf[64];
	size_t i;

	if (c >= op_ncolumns || !op_columns[c].drop)
		return 0;
	for (i = 0; i < n; i++) {
		op_columns[c].format(&rows[i], buf, sizeof(buf));
		if (strcmp(buf, "-") && buf[0])
			return 0;
	}
	return n > 0;
}

void op_columns_blank(int *show, const struct xt_op_row *rows, size_t n)
{
	size_t c;

	for (c = 0; c < op_ncolumns; c++)
		if (op_column_blank(c, rows, n))
			show[c] = 0;
}
