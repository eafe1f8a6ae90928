/*
 * view_tables: the report's kernel and device tables as viewer views, on
 * the list panel (sorted by any column, filtered with \, the selection kept
 * by key across a new capture). Enter on a kernel shows its longest launch
 * on the timeline; on a device, its longest gap.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "app.h"
#include "term.h"

static int cmpd(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y); /* unknown last */
	return (x < y) - (x > y);          /* largest first */
}

/* ---- kernels ---- */

static const struct xt_kernel_row *kern(void *ctx, size_t row)
{
	return &((struct app *)ctx)->an->kernels[row];
}

static size_t kern_count(void *ctx, int width)
{
	(void)width;
	return ((struct app *)ctx)->an->nkernels;
}

static void kern_key(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_kernel_row *k = kern(ctx, row);

	snprintf(buf, n, "%s%c%s%c%s%c%u,%u,%u%c%u,%u,%u", k->name, 1, k->program, 1, k->op, 1,
		 k->grid[0], k->grid[1], k->grid[2], 1, k->block[0], k->block[1], k->block[2]);
}

static void k_total(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_ps(buf, n, kern(ctx, row)->total_ps);
}

static void k_count(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_count_fit(buf, n, kern(ctx, row)->occurrences, 7); /* COUNT's width */
}

static void k_avg(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_kernel_row *k = kern(ctx, row);

	fmt_ps(buf, n, k->occurrences ? k->total_ps / (int64_t)k->occurrences : 0);
}

static void k_max(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_ps(buf, n, kern(ctx, row)->max_ps);
}

static void k_grid(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_kernel_row *k = kern(ctx, row);

	snprintf(buf, n, "%u,%u,%u", k->grid[0], k->grid[1], k->grid[2]);
}

static void k_block(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_kernel_row *k = kern(ctx, row);

	snprintf(buf, n, "%u,%u,%u", k->block[0], k->block[1], k->block[2]);
}

static void k_regs(void *ctx, size_t row, char *buf, size_t n)
{
	int64_t r = kern(ctx, row)->registers;

	if (r < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%" PRId64, r);
}

static void k_shared(void *ctx, size_t row, char *buf, size_t n)
{
	int64_t b = kern(ctx, row)->shared_bytes;

	if (b < 0)
		snprintf(buf, n, "-");
	else
		fmt_bytes_fit(buf, n, (double)b, 9); /* SHARED's width */
}

static void k_occ(void *ctx, size_t row, char *buf, size_t n)
{
	double o = kern(ctx, row)->occupancy_percent;

	if (isnan(o))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.0f%%", o);
}

/* "name (op)" into n bytes. When both do not fit, the name loses its
 * middle, never the op at the end, which is the tail the column keeps. */
static void k_name(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_kernel_row *k = kern(ctx, row);
	char opb[512];
	const char *op = analysis_kernel_op(k, opb, sizeof(opb));
	size_t lo = strlen(op), used;

	if (strlen(k->name) + lo + 4 <= n) {
		snprintf(buf, n, "%s (%s)", k->name, op);
		return;
	}
	/* Four bytes a column at most: the elided name fits its share. */
	utf8_elide(buf, n, k->name, (int)((n > lo + 16 ? n - lo - 16 : 16) / 4), term.g.ellipsis);
	used = strlen(buf);
	snprintf(buf + used, n - used, " (%s)", op);
}

/* k_name's " (op)": kept whole when the row is elided (panel.flex_tail). */
static size_t k_name_tail(void *ctx, size_t row)
{
	char opb[512];

	return strlen(analysis_kernel_op(kern(ctx, row), opb, sizeof(opb))) + 3;
}

static int kc_total(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(kern(ctx, y)->total_ps, kern(ctx, x)->total_ps);
}

static int kc_count(void *ctx, size_t x, size_t y)
{
	return panel_cmp64((int64_t)kern(ctx, y)->occurrences, (int64_t)kern(ctx, x)->occurrences);
}

static int kc_avg(void *ctx, size_t x, size_t y)
{
	const struct xt_kernel_row *a = kern(ctx, x), *b = kern(ctx, y);

	return cmpd((double)a->total_ps / (double)(a->occurrences ? a->occurrences : 1),
		    (double)b->total_ps / (double)(b->occurrences ? b->occurrences : 1));
}

static int kc_max(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(kern(ctx, y)->max_ps, kern(ctx, x)->max_ps);
}

static int kc_regs(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(kern(ctx, y)->registers, kern(ctx, x)->registers);
}

static int kc_shared(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(kern(ctx, y)->shared_bytes, kern(ctx, x)->shared_bytes);
}

static int kc_occ(void *ctx, size_t x, size_t y)
{
	return cmpd(kern(ctx, x)->occupancy_percent, kern(ctx, y)->occupancy_percent);
}

static int kc_name(void *ctx, size_t x, size_t y)
{
	return strcmp(kern(ctx, x)->name, kern(ctx, y)->name);
}

static const struct panel_column kern_columns[] = {
	{ "TOTAL", 9, 1, 0, k_total, NULL, kc_total, "its launches' time, summed" },
	{ "COUNT", 7, 1, 0, k_count, NULL, kc_count, "launches" },
	{ "AVG", 9, 1, 3, k_avg, NULL, kc_avg, "time per launch" },
	{ "MAX", 9, 1, 5, k_max, NULL, kc_max, "the longest launch" },
	{ "GRID", 11, 0, 6, k_grid, NULL, NULL, "blocks per launch, x,y,z" },
	{ "BLOCK", 9, 0, 7, k_block, NULL, NULL, "threads per block, x,y,z" },
	{ "REGS", 4, 1, 4, k_regs, NULL, kc_regs, "registers per thread" },
	{ "SHARED", 9, 1, 2, k_shared, NULL, kc_shared,
	  "shared memory per block ('-': its NOTE in i says why)" },
	{ "OCC%", 4, 1, 1, k_occ, NULL, kc_occ, "occupancy the profile gives" },
	{ "KERNEL (OP)", 0, 0, 0, k_name, NULL, kc_name,
	  "the kernel, and the op it ran for (program/op where ops of several share it)" },
};
/* kern_fit() knows the columns by place. */
_Static_assert(sizeof(kern_columns) / sizeof(kern_columns[0]) == 10 &&
		       sizeof(((struct app *)0)->kern_fit.drop) == 10 * sizeof(int),
	       "kern_fit: GRID 4, BLOCK 5, REGS 6, SHARED 7, OCC% 8 of ten columns");
static const struct panel_ops kern_ops = { kern_count, kern_key, NULL, NULL, NULL, NULL };

static struct panel *kern_panel(struct app *a)
{
	if (!a->kern.ops) {
		panel_init(&a->kern, &kern_ops, a, kern_columns,
			   sizeof(kern_columns) / sizeof(kern_columns[0]));
		a->kern.header = 1;
		a->kern.sort = 0;
		a->kern.flex_min = 28; /* kernel names are long: keep their tails */
		a->kern.flex_tail = k_name_tail;
	}
	return &a->kern;
}

/*
 * Which kernel columns go first when the list is narrow: those no kernel
 * fills (ROCm gives no registers or occupancy: '-' on every row), and
 * last the launch shape where it is what tells rows of one kernel and op
 * apart (analysis_kernel_cols): at 80 columns the MI300X gemm's five
 * wrapped_broadcast rows read alike, their grids dropped first. Worked
 * out once per analysis: it sorts the rows.
 */
static void kern_fit(struct app *a, struct panel *p)
{
	const struct xt_analysis *an = a->an;
	struct xt_kernel_cols kc;
	int c;

	if (a->kern_fit.an != an->serial) {
		analysis_kernel_cols(an, an->nkernels, &kc);
		a->kern_fit.empty = (kc.regs ? 0 : 1ul << 6) | (kc.shared ? 0 : 1ul << 7) |
				    (kc.occ ? 0 : 1ul << 8);
		for (c = 0; c < 10; c++)
			a->kern_fit.drop[c] =
				kern_columns[c].drop +
				(kern_columns[c].drop && (kc.grid_apart || kc.block_apart) ? 2 : 0);
		if (kc.grid_apart)
			a->kern_fit.drop[4] = 1;
		if (kc.block_apart)
			a->kern_fit.drop[5] = kc.grid_apart ? 2 : 1;
		a->kern_fit.an = an->serial;
	}
	p->empty = a->kern_fit.empty;
	p->drop_at = a->kern_fit.drop;
}

static void kern_draw(struct app *a, int y, int h)
{
	struct panel *p = kern_panel(a);
	char line[1024];
	long sel;

	if (!a->an->nkernels) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT),
		       "  no GPU kernels in this profile (kernel stats come from GPU stream lines)", 1);
		return;
	}
	if (h < 3)
		return;
	kern_fit(a, p);
	ui_panel(p, y, 0, h - 1, a->cols);
	sel = panel_selected(p);
	if (sel >= 0) {
		const struct xt_kernel_row *k = &a->an->kernels[sel];
		char b1[32], b2[32];

		/* The figures before the name: kernel names run to hundreds of
		 * characters, and what does not fit is cut. The grid and block
		 * too: rows of one kernel and op differ only by them, and their
		 * columns are the first to go at 80 columns. */
		snprintf(line, sizeof(line), " min %s, max %s, grid %u,%u,%u, block %u,%u,%u: %s",
			 fmt_ps(b1, sizeof(b1), k->min_ps), fmt_ps(b2, sizeof(b2), k->max_ps),
			 k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
			 k->name);
		ui_put_wrap(y + h - 1, a->cols, 1, term_attr(ROLE_DIM), line, 0);
	} else {
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), " no kernel matches the filter", 1);
	}
}

/* A launch of kernel row arg: a GPU track's event of that name, launched
 * for the row's op (one kernel runs for several ops: XLA launches one
 * fusion's kernel for its identical twins) with the row's launch shape. */
static int is_launch(struct app *a, const struct tl_track *tr, const struct xt_event *ev,
		     const void *arg)
{
	const struct xt_kernel_row *k = arg;
	uint32_t grid[3], block[3];
	int64_t regs, shared;
	char op[512];

	if (strncmp(tr->p->name, "/device:GPU:", 12) || strcmp(xt_event_meta(tr->p, ev)->name, k->name))
		return 0;
	if (k->op[0] &&
	    strcmp(analysis_op_name(a->an, a->t, tr->host, tr->p, tr->l, ev, op, sizeof(op)), k->op))
		return 0;
	/* One op name in several programs is several rows. */
	if (k->op_shared &&
	    strcmp(analysis_op_program(a->an, a->t, tr->host, tr->p, tr->l, ev, op, sizeof(op)),
		   k->program))
		return 0;
	/* Rows of one kernel and op differ by their launch shape. */
	return analysis_launch_shape(a->t, tr->host, tr->p, tr->l, ev, grid, block, &regs,
				     &shared) &&
	       !memcmp(grid, k->grid, sizeof(grid)) && !memcmp(block, k->block, sizeof(block)) &&
	       regs == k->registers && shared == k->shared_bytes;
}

static void kern_jump(struct app *a, const struct xt_kernel_row *k)
{
	if (app_jump_longest(a, is_launch, k, "launch", k->name) < 0)
		app_status(a, 1, "no launch of %s on the GPU tracks", k->name);
}

static unsigned kern_act(struct app *a, enum action act)
{
	struct panel *p = kern_panel(a);
	long sel;

	if (act == ACT_ENTER) {
		if ((sel = panel_selected(p)) >= 0)
			kern_jump(a, &a->an->kernels[sel]);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

/* ---- devices ---- */

static const struct xt_device_row *dev(void *ctx, size_t row)
{
	return &((struct app *)ctx)->an->devices[row];
}

static size_t dev_count(void *ctx, int width)
{
	(void)width;
	return ((struct app *)ctx)->an->ndevices;
}

static void dev_key(void *ctx, size_t row, char *buf, size_t n)
{
	snprintf(buf, n, "%s%c%s", dev(ctx, row)->host, 1, dev(ctx, row)->name);
}

/* A time of a device the profile has something of, else "-". */
static void dtime(void *ctx, size_t row, int64_t v, int has, char *buf, size_t n)
{
	fmt_ps_known(buf, n, v, !xt_device_silent(dev(ctx, row)) && has);
}

static void d_busy(void *ctx, size_t row, char *buf, size_t n)
{
	dtime(ctx, row, dev(ctx, row)->busy_ps, 1, buf, n);
}

static void d_span(void *ctx, size_t row, char *buf, size_t n)
{
	dtime(ctx, row, dev(ctx, row)->span_ps, 1, buf, n);
}

/* "-" also for a device with no events: idle, or not traced (the footer
 * says so); "-" for one of instants only, which has no span. */
static void d_idle(void *ctx, size_t row, char *buf, size_t n)
{
	if (xt_device_silent(dev(ctx, row)))
		snprintf(buf, n, "-");
	else
		fmt_percent(buf, n, dev(ctx, row)->idle_percent);
}

static void d_hostb(void *ctx, size_t row, char *buf, size_t n)
{
	dtime(ctx, row, dev(ctx, row)->host_bound_ps, xt_device_host_bound_known(dev(ctx, row)), buf,
	      n);
}

static void d_gap(void *ctx, size_t row, char *buf, size_t n)
{
	dtime(ctx, row, dev(ctx, row)->longest_gap_ps, xt_device_has_gaps(dev(ctx, row)), buf, n);
}

#define KERN_COLS 11 /* SMALL/KERN's width */

static void d_kern(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_device_row *d = dev(ctx, row);

	if (!d->has_kernels || !d->op_events)
		snprintf(buf, n, "-");
	else {
		char s[32], k[32];

		/* Millions of kernels would not fit: then each count takes a
		 * suffix ("1.20M/4.00M"), never cut. */
		snprintf(buf, n, "%" PRIu64 "/%" PRIu64, d->small_kernels, d->kernels);
		if (strlen(buf) > KERN_COLS)
			snprintf(buf, n, "%s/%s", fmt_count_fit(s, sizeof(s), d->small_kernels, 3),
				 fmt_count_fit(k, sizeof(k), d->kernels, 3));
	}
}

static void d_pflops(void *ctx, size_t row, char *buf, size_t n)
{
	/* Three figures: a whole number would show a TPU v6e's 1.64 TB/s as
	 * 2TB/s. "1.64TB/s" fills the column. */
	fmt_rate(buf, n, dev(ctx, row)->peak_flops, "", "F/s");
}

static void d_pbw(void *ctx, size_t row, char *buf, size_t n)
{
	fmt_rate(buf, n, dev(ctx, row)->peak_hbm_bw, "", "B/s");
}

static void d_name(void *ctx, size_t row, char *buf, size_t n)
{
	const struct app *a = ctx;
	const struct xt_device_row *d = dev(ctx, row);
	char host[256] = "";

	/* With several hosts, the part of the host's name that differs: the
	 * column elides the middle of what does not fit, and a shared start
	 * ("34.83.195.179_6003", "34.83.195.180_6003") would fill it. */
	if (a->t->nhosts > 1)
		ui_host_label(a, d->host, host, sizeof(host));
	snprintf(buf, n, "%s%s%s", host, *host ? " " : "", d->name);
}

/* The device's model, in a column of its own: inside DEVICE, the column
 * elided the middle of "/device:TPU:0 (TPU v6 Lite)" to "/devic~ (TPU v6
 * Lite)", every row alike at 80 columns. It goes first when the row is
 * narrow; the footer names it for the selected device. */
static void d_model(void *ctx, size_t row, char *buf, size_t n)
{
	const struct xt_device_row *d = dev(ctx, row);

	snprintf(buf, n, "%s", *d->model ? d->model : "-");
}

static int dc_busy(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(dev(ctx, y)->busy_ps, dev(ctx, x)->busy_ps);
}

static int dc_span(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(dev(ctx, y)->span_ps, dev(ctx, x)->span_ps);
}

static int dc_idle(void *ctx, size_t x, size_t y)
{
	return cmpd(!xt_device_silent(dev(ctx, x)) ? dev(ctx, x)->idle_percent : NAN,
		    !xt_device_silent(dev(ctx, y)) ? dev(ctx, y)->idle_percent : NAN);
}

static int dc_hostb(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(dev(ctx, y)->host_bound_ps, dev(ctx, x)->host_bound_ps);
}

static int dc_gap(void *ctx, size_t x, size_t y)
{
	return panel_cmp64(dev(ctx, y)->longest_gap_ps, dev(ctx, x)->longest_gap_ps);
}

static int dc_name(void *ctx, size_t x, size_t y)
{
	int c = strcmp(dev(ctx, x)->host, dev(ctx, y)->host);

	return c ? c : strcmp(dev(ctx, x)->name, dev(ctx, y)->name);
}

static const struct panel_column dev_columns[] = {
	{ "BUSY", 9, 1, 0, d_busy, NULL, dc_busy, "time some op ran (the union of its lines)" },
	{ "SPAN", 9, 1, 3, d_span, NULL, dc_span, "its first op's start to its last op's end" },
	{ "IDLE", 6, 1, 0, d_idle, NULL, dc_idle, "the span's share with no op running" },
	{ "HOST-BND", 9, 1, 2, d_hostb, NULL, dc_hostb,
	  "host-bound: idle while its host worked ('-': no host activity)" },
	{ "MAX GAP", 9, 1, 4, d_gap, NULL, dc_gap, "its longest stretch with no op" },
	{ "SMALL/KERN", KERN_COLS, 1, 5, d_kern, NULL, NULL,
	  "its kernels shorter than 10 us, of all its kernels ('-': no GPU, or no events from it)" },
	{ "PEAK", 8, 1, 6, d_pflops, NULL, NULL, "its peak FLOP rate (the roofline's roof)" },
	{ "PEAK HBM", 8, 1, 7, d_pbw, NULL, NULL, "its peak HBM bandwidth" },
	{ "DEVICE", 0, 0, 0, d_name, NULL, dc_name, "the device (its host's name's differing part)" },
	/* Last: shown only when a device has a model (dev_draw), and its
	 * absence shifts no sortable column's index. */
	{ "MODEL", 21, 0, 8, d_model, NULL, NULL, "the device's model, as the profile names it" },
};
#define DEV_NCOLS (sizeof(dev_columns) / sizeof(dev_columns[0]))
static const struct panel_ops dev_ops = { dev_count, dev_key, NULL, NULL, NULL, NULL };

static struct panel *dev_panel(struct app *a)
{
	if (!a->devs.ops) {
		panel_init(&a->devs, &dev_ops, a, dev_columns, DEV_NCOLS);
		a->devs.header = 1;
		a->devs.flex_min = 20;
		a->devs.sort = -1; /* hosts, then planes, as in the file */
	}
	return &a->devs;
}

static void dev_draw(struct app *a, int y, int h)
{
	struct panel *p = dev_panel(a);
	long sel;
	size_t i;

	if (!a->an->ndevices) {
		ui_put(y + 1, 0, a->cols, term_attr(ROLE_TEXT), "  no device planes in this profile", 1);
		return;
	}
	if (h < 3)
		return;
	/* A column of "-" when no device names its model (the V100 and
	 * MI300X profiles): left out. Checked each draw, as a capture can
	 * bring a profile that has them. */
	p->ncols = DEV_NCOLS - 1;
	for (i = 0; i < a->an->ndevices; i++)
		if (*a->an->devices[i].model) {
			p->ncols = DEV_NCOLS;
			break;
		}
	ui_panel(p, y, 0, h - 1, a->cols);
	sel = panel_selected(p);
	if (sel >= 0) {
		const struct xt_device_row *d = &a->an->devices[sel];
		const char *why = xt_device_unknown_why(d);
		char line[1024];

		if (why)
			snprintf(line, sizeof(line), " %s: %s", d->name, why);
		else
			snprintf(line, sizeof(line), " %s%s%s%s: peak %s (%s); Enter: its longest gap",
				 d->name, *d->model ? " (" : "", d->model, *d->model ? ")" : "",
				 isnan(d->peak_flops) ? "unknown" : "known",
				 *d->peak_source ? d->peak_source : "no source in the profile");
		ui_put_wrap(y + h - 1, a->cols, 1, term_attr(ROLE_DIM), line, 0);
	} else {
		ui_put(y + h - 1, 0, a->cols, term_attr(ROLE_DIM), " no device matches the filter", 1);
	}
}

static unsigned dev_act(struct app *a, enum action act)
{
	struct panel *p = dev_panel(a);
	long sel;

	if (act == ACT_ENTER) {
		if ((sel = panel_selected(p)) >= 0)
			app_goto_gap(a, &a->an->devices[sel]);
		return UI_REDRAW;
	}
	return ui_list_act(a, p, act);
}

void view_tables_fini(struct app *a)
{
	if (a->kern.ops)
		panel_fini(&a->kern);
	if (a->devs.ops)
		panel_fini(&a->devs);
}

const struct view view_kernels = { "kernels", SCOPE_KERNELS, kern_draw, kern_act, kern_columns,
				   sizeof(kern_columns) / sizeof(kern_columns[0]) };
const struct view view_devices = { "devices", SCOPE_DEVICES, dev_draw, dev_act, dev_columns,
				   DEV_NCOLS };
