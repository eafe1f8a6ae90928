/*
 * report: the text form of `xtop report` and the command itself (options,
 * loading, --list). See report.h.
 */
#include "report.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../model/load.h"
#include "../model/op_columns.h"
#include "../model/profile_path.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "diff_cmd.h"
#include "options.h"
#include "texttab.h"

static void section(struct strbuf *o, const char *title)
{
	strbuf_addf(o, "\n%s\n", title);
}

/* Appends a line shortened to the width (in the middle). */
static void put_line(struct strbuf *o, int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_line(struct strbuf *o, int width, const char *fmt, ...)
{
	char line[4096], out[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	strbuf_puts(o, tt_elide(out, sizeof(out), line, width));
	strbuf_add(o, "\n", 1);
}

/* Appends "      FIGURE  TEXT": the figure whole, the text elided into what
 * the width leaves (left out when that is under four columns). A line
 * elided whole cut the figure: "3.74..rofile or without an event". */
static void put_fig(struct strbuf *o, int width, const char *fig, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put_fig(struct strbuf *o, int width, const char *fig, const char *fmt, ...)
{
	char text[4096], out[4096], head[64];
	int room;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(head, sizeof(head), "      %10s", fig);
	room = width ? width - tt_cols(head) - 2 : 0;
	strbuf_puts(o, head);
	if (!width || room >= 4) {
		strbuf_puts(o, "  ");
		strbuf_puts(o, tt_elide(out, sizeof(out), text, room));
	}
	strbuf_add(o, "\n", 1);
}

/* Appends a sentence wrapped at the width, its continuation lines indented
 * two past its own indent: prose with figures in it, which eliding would
 * cut ("1 host, 11 planes, ..ines"). */
static void put_text(struct strbuf *o, int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_text(struct strbuf *o, int width, const char *fmt, ...)
{
	char line[4096], prefix[64];
	size_t lead;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	lead = strspn(line, " ");
	if (lead >= sizeof(prefix))
		lead = sizeof(prefix) - 1;
	memcpy(prefix, line, lead);
	prefix[lead] = '\0';
	tt_wrap(o, prefix, line + lead, (int)lead + 2, width);
}

/* A device's name in the devices table (malloc'd): with its host's when
 * there are several, then its model in parentheses, which gives way first
 * (the device's own name, its index, is what tells the rows apart). */
static char *device_name(const struct texttab *tt, const struct xt_trace *t,
			 const struct xt_device_row *d)
{
	char name[512];

	if (t->nhosts > 1)
		snprintf(name, sizeof(name), "%s %s", d->host, d->name);
	else
		snprintf(name, sizeof(name), "%s", d->name);
	if (*d->model) {
		int fw = tt_flex_width(tt), room = fw - tt_cols(name) - 3;
		char m[256];

		if (!fw || tt_cols(name) + tt_cols(d->model) + 3 <= fw)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " (%s)", d->model);
		else if (room >= 6)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " (%s)",
				 tt_elide(m, sizeof(m), d->model, room));
	}
	return xstrdup(name);
}

static void report_devices(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
			   int width)
{
	static const struct tt_col cols[] = {
		{ "BUSY", 9, 1, 0 },	 { "SPAN", 9, 1, 0 },	    { "IDLE", 6, 1, 0 },
		{ "HOST-BND", 9, 1, 2 }, { "MAX GAP", 9, 1, 3 },   { "PEAK", 12, 1, 4 },
		{ "PEAK HBM", 10, 1, 5 }, { "KIND", 4, 0, 6 },	    { "DEVICE", 0, 0, 0 },
	};
	struct texttab tt;
	size_t i;
	char **names = xmalloc((a->ndevices ? a->ndevices : 1) * sizeof(*names)), **fit;
	const struct xt_device_row **shown = xmalloc((a->ndevices ? a->ndevices : 1) * sizeof(*shown));
	size_t n = 0, silent = 0, no_host = 0;

	section(o, "Devices");
	tt_init(&tt, cols, sizeof(cols) / sizeof(cols[0]), width, 2, 28);
	tt_head(&tt, o);
	/* The names of the rows shown first, fitted together: two hosts'
	 * devices of one index differ in the middle of the host's name. */
	for (i = 0; i < a->ndevices; i++) {
		const struct xt_device_row *d = &a->devices[i];

		/* A device that is not XLA's nor a GPU, with nothing in it. */
		if (d->kind == XT_DEV_OTHER && !d->span_ps)
			continue;
		shown[n] = d;
		names[n++] = device_name(&tt, t, d);
	}
	fit = tt_fit_flex(&tt, (const char *const *)names, n);
	for (i = 0; i < n; i++) {
		const struct xt_device_row *d = shown[i];
		static const char *const kinds[] = { "-", "xla", "gpu" };
		char busy[32], span[32], idle[16], hb[32], gap[32], pf[32], pb[32];
		const char *cells[9] = { busy, span, idle, hb, gap, pf, pb, kinds[d->kind], fit[i] };

		fmt_rate(pf, sizeof(pf), d->peak_flops, " ", "FLOP/s"); /* "918 TFLOP/s" */
		fmt_rate(pb, sizeof(pb), d->peak_hbm_bw, " ", "B/s");
		if (xt_device_silent(d)) {
			/* Nothing from it: idle, or not traced (the MI300X conv
			 * profile's GPU:1-6 ran programs, by their host threads
			 * and allocators, and have no events). Not "idle". */
			snprintf(busy, sizeof(busy), "-");
			snprintf(span, sizeof(span), "-");
			snprintf(idle, sizeof(idle), "-");
			snprintf(hb, sizeof(hb), "-");
			snprintf(gap, sizeof(gap), "-");
			silent++;
		} else {
			fmt_ps_known(hb, sizeof(hb), d->host_bound_ps, xt_device_host_bound_known(d));
			no_host += xt_device_has_gaps(d) && !d->host_known;
			fmt_ps_known(gap, sizeof(gap), d->longest_gap_ps, xt_device_has_gaps(d));
			fmt_ps(busy, sizeof(busy), d->busy_ps);
			fmt_ps(span, sizeof(span), d->span_ps);
			fmt_percent(idle, sizeof(idle), d->idle_percent);
		}
		tt_row(&tt, o, cells);
	}
	tt_fit_free(fit, n);
	tt_fit_free(names, n);
	free(shown);
	if (silent)
		put_text(o, width, "  %zu device%s without events (all '-'): idle, or not traced", silent,
			 silent == 1 ? "" : "s");
	if (no_host)
		put_text(o, width, "  HOST-BND '-' on %zu device%s: no activity of %s host in the "
				   "profile (its tracer off?)", no_host, no_host == 1 ? "" : "s",
			 no_host == 1 ? "its" : "their");
}

/* PROGRAM takes what the names leave spare (op_columns_program_width): at
 * its 14 it read "jit_..duce_max" with a hundred columns to spare at 200. */
static void widen_program(struct texttab *tt, struct tt_col *cols, const struct xt_op_row *ops,
			  size_t n)
{
	int pc = op_column_find("PROGRAM");

	if (pc >= 0 && tt->show[pc] && tt->width > 0)
		cols[pc].width = op_columns_program_width(ops, n, cols[pc].width, tt_flex_width(tt),
							  tt->flex_min);
}

static void report_ops(struct strbuf *o, const struct xt_analysis *a, size_t top, int width)
{
	struct tt_col cols[TT_MAX_COLS];
	size_t i, c, n = top && top < a->nops ? top : a->nops, nc = 0, by_kernel = 0, by_order = 0,
	       unres = 0;
	size_t nodash = 0;
	char cell[TT_MAX_COLS][512], parents[256] = "";
	const char *cells[TT_MAX_COLS];
	struct texttab tt;

	for (c = 0; c < op_ncolumns && c < TT_MAX_COLS; c++, nc++) {
		cols[c] = (struct tt_col){ op_columns[c].name, op_columns[c].width,
					   op_columns[c].right, op_columns[c].drop };
		cells[c] = cell[c];
	}
	section(o, "");
	o->len--; /* the title carries counts: */
	strbuf_addf(o, "Op profile: %zu ops by self time", a->nops);
	if (n < a->nops)
		strbuf_addf(o, " (top %zu; --top N for more)", n);
	strbuf_puts(o, "\n");
	tt_init(&tt, cols, nc, width, 1, 30);
	/* Columns no row has a value for give their room to the names. */
	op_columns_blank(tt.show, a->ops, n);
	if (width > 0)
		for (c = 0; c < nc; c++) {
			int used = 1, k2;

			for (k2 = 0; k2 < (int)nc; k2++)
				if (tt.show[k2] && cols[k2].width)
					used += cols[k2].width + 1;
			if (!tt.show[c] && cols[c].width && cols[c].drop &&
			    !op_column_blank(c, a->ops, n) && width - used - cols[c].width - 1 >= 30)
				tt.show[c] = 1;
		}
	widen_program(&tt, cols, a->ops, n);
	tt_head(&tt, o);
	{
		/* The names, fitted together: rows alike at both ends (a layer
		 * number in the middle) tell apart. */
		const char **names = xmalloc((n ? n : 1) * sizeof(*names));
		char **fit, **own = xcalloc(n ? n : 1, sizeof(*own));
		int pc = op_column_find("PROGRAM");

		/* Without the PROGRAM column, a name another program has too
		 * (one module compiled for several shapes) carries its own. */
		for (i = 0; i < n; i++) {
			const struct xt_op_row *r = &a->ops[i];

			names[i] = r->name;
			if (pc >= 0 && !tt.show[pc] && r->name_shared && r->program[0]) {
				size_t k = strlen(r->program) + strlen(r->name) + 2;

				own[i] = xmalloc(k);
				snprintf(own[i], k, "%s/%s", r->program, r->name);
				names[i] = own[i];
			}
		}
		fit = tt_fit_flex(&tt, names, n);
		for (i = 0; i < n; i++) {
			for (c = 0; c < nc; c++)
				if (cols[c].width)
					op_columns[c].format(&a->ops[i], cell[c], sizeof(cell[c]));
				else
					cells[c] = fit[i];
			tt_row(&tt, o, cells);
		}
		tt_fit_free(fit, n);
		tt_fit_free(own, n); /* NULL where the name is the op's own */
		free(names);
	}
	{
		/* What the table's abbreviations mean, from the column table. */
		char leg[512];
		int k2 = snprintf(leg, sizeof(leg), "columns:");

		for (c = 0; c < nc; c++)
			if (tt.show[c] && op_columns[c].legend && k2 > 0 && (size_t)k2 < sizeof(leg))
				k2 += snprintf(leg + k2, sizeof(leg) - (size_t)k2, "%s %s %s",
					       k2 > 9 ? ";" : "", op_columns[c].name, op_columns[c].help);
		if (k2 > 9)
			tt_wrap(o, "  ", leg, 4, width);
	}
	for (i = 0; i < a->nops; i++) {
		const struct xt_op_row *r = &a->ops[i];

		if (r->attr == XT_ATTR_KERNEL_NAME || r->attr == XT_ATTR_KERNEL_NAME_UNCHECKED ||
		    r->attr == XT_ATTR_KERNEL_ORDER)
			by_kernel++;
		if (r->attr == XT_ATTR_KERNEL_ORDER)
			by_order++;
		if (r->attr == XT_ATTR_UNRESOLVED)
			unres++;
		if (*r->parent && !strstr(parents, r->parent) &&
		    strlen(parents) + strlen(r->parent) + 3 < sizeof(parents))
			snprintf(parents + strlen(parents), sizeof(parents) - strlen(parents), "%s%s",
				 parents[0] ? ", " : "", r->parent);
		if (isnan(r->flops_per_s) || isnan(r->hbm_bytes_per_s))
			nodash++;
	}
	if (by_kernel)
		put_text(o, width, "  %zu op%s in command buffers (%s): named from the kernel names",
			 by_kernel, by_kernel == 1 ? "" : "s", parents[0] ? parents : "-");
	if (by_order)
		put_text(o, width, "    %zu of them by the kernel's place in the program's schedule",
			 by_order);
	if (unres)
		put_text(o, width, "  %zu kernel%s whose op is not in the program's HLO: listed by "
				   "kernel name", unres, unres == 1 ? "" : "s");
	if (nodash)
		put_text(o, width, "  - : unknown or impossible for that op (--json: rate_note says why)");
}

static void report_steps(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
			 int width)
{
	static const struct tt_col cols0[] = {
		{ "STEP", 7, 1, 0 },	  { "START", 9, 1, 1 },	      { "DURATION", 9, 1, 0 },
		{ "COMPUTE", 9, 1, 0 }, { "D2H", 9, 1, 0 },	      { "COLLECTIVE", 10, 1, 0 },
		{ "H2D", 9, 1, 0 },	  { "HOST", 9, 1, 0 },	      { "IDLE", 9, 1, 0 },
	};
	struct tt_col cols[sizeof(cols0) / sizeof(cols0[0])];
	char zero[96] = "";
	struct texttab tt;
	char b[11][32];
	const char *cells[11];
	int64_t sum[XT_CAT_COUNT + 2] = { 0 }, *rel, unit;
	size_t i, k;
	int host_known = analysis_host_active(a);
	int dec;

	for (k = 0; k < 11; k++)
		cells[k] = b[k];
	if (!a->nsteps) {
		section(o, "Steps: none (no step markers and no XLA module run twice)");
		put_text(o, width, "  mark steps: jax.profiler.StepTraceAnnotation(\"train\", step_num=i)");
		return;
	}
	section(o, "");
	o->len--;
	if (a->steps_source == XT_STEPS_INFERRED) {
		put_text(o, width, "Steps: %zu, inferred from the runs of %s (no step markers): each "
				   "from a run's start to the next run's",
			 a->nsteps, a->steps_module);
		/* An xtop run capture cannot see jaxlib's markers
		 * (docs/agent.md): saying only "mark steps" would send a
		 * user who has them to add them again. */
		put_text(o, width, "  mark steps: jax.profiler.StepTraceAnnotation(\"train\", step_num=i)");
		put_text(o, width, "  (a capture through the profiler server sees them; one through "
				   "xtop run cannot)");
	} else {
		put_text(o, width, "Steps: %zu (from %s)", a->nsteps,
			 a->steps_source == XT_STEPS_DEVICE ? "device Steps lines"
							    : "host step markers");
	}
	/* A category that is 0 in every step goes first when the table is
	 * too wide (said below it), before any that has time. */
	memcpy(cols, cols0, sizeof(cols));
	for (k = 0; k < XT_CAT_COUNT; k++) {
		for (i = 0; i < a->nsteps && !a->steps[i].cat_ps[k]; i++)
			;
		if (i == a->nsteps)
			cols[3 + k].drop = 2 + (int)k;
	}
	tt_init(&tt, cols, sizeof(cols) / sizeof(cols[0]), width, 1, 0);
	for (k = 0; k < XT_CAT_COUNT; k++)
		if (!tt.show[3 + k] && (host_known || k != XT_CAT_HOST_COMPUTE))
			snprintf(zero + strlen(zero), sizeof(zero) - strlen(zero), "%s%s",
				 zero[0] ? ", " : "", cols[3 + k].head);
	tt_head(&tt, o);
	/* Starts a few ms apart read alike in three digits: as many as tell
	 * them apart. */
	rel = xmalloc(a->nsteps * sizeof(*rel));
	for (i = 0; i < a->nsteps; i++)
		rel[i] = trace_rel_ps(t, a->steps[i].start_ps);
	timefmt_apart(rel, a->nsteps, cols[1].width, &unit, &dec);
	for (i = 0; i < a->nsteps; i++) {
		const struct xt_step_row *s = &a->steps[i];

		snprintf(b[0], sizeof(b[0]), "%" PRId64, s->id);
		fmt_ps_apart(b[1], sizeof(b[1]), rel[i], unit, dec);
		fmt_ps(b[2], sizeof(b[2]), s->duration_ps);
		sum[0] = xt_sat_add(sum[0], s->duration_ps);
		for (k = 0; k < XT_CAT_COUNT; k++) {
			fmt_ps(b[3 + k], sizeof(b[3 + k]), s->cat_ps[k]);
			sum[k + 1] = xt_sat_add(sum[k + 1], s->cat_ps[k]);
		}
		if (!host_known)
			snprintf(b[3 + XT_CAT_HOST_COMPUTE], sizeof(b[0]), "-");
		sum[XT_CAT_COUNT + 1] = xt_sat_add(sum[XT_CAT_COUNT + 1], s->idle_ps);
		fmt_ps(b[3 + XT_CAT_COUNT], sizeof(b[0]), s->idle_ps);
		tt_row(&tt, o, cells);
	}
	free(rel);
	snprintf(b[0], sizeof(b[0]), "average");
	snprintf(b[1], sizeof(b[1]), " ");
	for (k = 0; k < XT_CAT_COUNT + 2; k++)
		fmt_ps(b[2 + k], sizeof(b[2 + k]), sum[k] / (int64_t)a->nsteps);
	if (!host_known)
		snprintf(b[3 + XT_CAT_HOST_COMPUTE], sizeof(b[0]), "-");
	tt_row(&tt, o, cells);
	if (zero[0])
		put_text(o, width, "  %s: 0 in every step", zero);
	if (!host_known)
		put_text(o, width, "  HOST: unknown, the profile has no host activity (its tracer off?); "
				   "IDLE holds any host time");
}

static void report_memory(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
			  int width)
{
	static const struct tt_col cols[] = {
		{ "PEAK", 10, 1, 0 }, { "AT", 9, 1, 0 }, { "LIFETIME", 10, 1, 1 },
		{ "CAPACITY", 10, 1, 2 }, { "ALLOCATOR", 0, 0, 0 },
	};
	struct texttab tt;
	size_t i, k;
	char b[5][512], x1[32], x2[32], x3[32];
	const char *cells[5] = { b[0], b[1], b[2], b[3], b[4] };

	if (!a->nmemory) {
		section(o, "Memory: no MemoryAllocation events");
		return;
	}
	section(o, "Memory (per allocator; its parts add up to the peak)");
	tt_init(&tt, cols, sizeof(cols) / sizeof(cols[0]), width, 2, t->nhosts > 1 ? 42 : 24);
	tt_head(&tt, o);
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *m = &a->memory[i];
		int64_t listed = 0;

		fmt_bytes(b[0], sizeof(b[0]), (double)m->peak_bytes);
		fmt_ps(b[1], sizeof(b[1]), trace_rel_ps(t, m->peak_time_ps));
		fmt_bytes(b[2], sizeof(b[2]), (double)m->lifetime_peak_bytes);
		fmt_bytes(b[3], sizeof(b[3]), (double)m->capacity_bytes);
		if (t->nhosts > 1) {
			char hb[64];

			/* Hosts of one job differ in their tail (the port). */
			snprintf(b[4], sizeof(b[4]), "%s (%s) on %s", m->name, m->allocator,
				 tt_elide(hb, sizeof(hb), m->host, width ? 16 : 0));
		} else {
			snprintf(b[4], sizeof(b[4]), "%s (%s)", m->name, m->allocator);
		}
		tt_row(&tt, o, cells);
		/* The live allocations not shown below (past the third): a sum
		 * of the rest, not all less the shown (saturation would not
		 * undo). */
		for (k = 3; k < m->nlive; k++)
			listed = xt_sat_add(listed, m->live[k].bytes);
		for (k = 0; k < m->nlive && k < 3; k++) {
			const struct xt_live_alloc *la = &m->live[k];
			size_t len = strlen(la->op) + strlen(la->shape) + 16;
			char head[128], *what = xmalloc(len), *cut = xmalloc(len);
			int room;

			/* The figures whole; the op's name gives way. */
			snprintf(head, sizeof(head), "      %10s  live, allocated at %s: ",
				 fmt_bytes(x1, sizeof(x1), (double)la->bytes),
				 fmt_ps(x2, sizeof(x2), trace_rel_ps(t, la->time_ps)));
			/* An allocation event need not name its op (JAX's on
			 * ROCm name none): a bare '-' read as a figure. */
			snprintf(what, len, "%s%s%s", la->op[0] ? la->op : "(no op named)",
				 la->shape[0] ? " " : "", la->shape);
			room = width ? width - tt_cols(head) : 0;
			if (width && room <= 8) { /* too narrow: the figure and the op */
				put_fig(o, width, x1, "%s", what);
			} else {
				strbuf_puts(o, head);
				strbuf_puts(o, tt_elide(cut, len, what, room));
				strbuf_add(o, "\n", 1);
			}
			free(what);
			free(cut);
		}
		if (m->nlive_total > k)
			put_fig(o, width,
				fmt_bytes(x1, sizeof(x1), (double)xt_sat_add(listed, m->live_other_bytes)),
				"%zu other live allocation%s", m->nlive_total - k,
				m->nlive_total - k == 1 ? "" : "s");
		if (m->reserved_bytes)
			put_fig(o, width, fmt_bytes(x1, sizeof(x1), (double)m->reserved_bytes),
				"reserved (program stacks, not allocations)");
		if (m->unattributed_bytes != m->reserved_bytes)
			put_fig(o, width,
				fmt_bytes(x1, sizeof(x1),
					  (double)xt_sat_sub(m->unattributed_bytes, m->reserved_bytes)),
				"allocated before the profile or without an event");
		if (m->allocator_lifetime_peak < m->peak_bytes)
			put_text(o, width, "      lifetime >= this peak; the allocator's own (allocations "
					   "only): %s",
				 fmt_bytes(x3, sizeof(x3), (double)m->allocator_lifetime_peak));
	}
}

/* "registers, shared memory, occupancy", those of the three that are set. */
static void empty_list(char *b, size_t n, int regs, int shared, int occ)
{
	const char *w[3];
	size_t k = 0, i, o = 0;

	if (regs)
		w[k++] = "registers";
	if (shared)
		w[k++] = "shared memory";
	if (occ)
		w[k++] = "occupancy";
	b[0] = '\0';
	for (i = 0; i < k; i++)
		o += (size_t)snprintf(b + o, n - o, "%s%s", i ? ", " : "", w[i]);
}

static void report_kernels(struct strbuf *o, const struct xt_analysis *a, size_t top, int width)
{
	struct tt_col cols[] = { /* drop priorities change below */
		{ "TOTAL", 9, 1, 0 },  { "OCC", 7, 1, 0 },    { "AVG", 9, 1, 6 },
		{ "GRID", 12, 0, 3 },  { "BLOCK", 10, 0, 4 }, { "REGS", 4, 1, 5 },
		{ "SHARED", 9, 1, 2 }, { "OCC%", 4, 1, 1 },   { "KERNEL (OP)", 0, 0, 0 },
	};
	size_t i, n = top && top < a->nkernels ? top : a->nkernels, k;
	struct xt_kernel_cols kc;
	char b[9][1024], **fit, none[64] = "", bad[64] = "";
	unsigned part;
	const char *cells[9];
	struct texttab tt;

	if (!a->nkernels)
		return;
	/* A column the profile fills for no listed kernel would read '-' on
	 * every row: it is left out after the columns are chosen, its room
	 * going to the names, and said so below the table (ROCm profiles
	 * give no registers or occupancy). */
	analysis_kernel_cols(a, n, &kc);
	/* Such a column's values are absent from the details, or there and
	 * impossible (the MI300X conv's regs:2191500840, ROCm's occ_pct:0). */
	part = !kc.shared && !(kc.bad & XT_KD_BAD_SHARED) && (kc.bad & XT_KD_PART_SHARED);
	empty_list(none, sizeof(none), !kc.regs && !(kc.bad & XT_KD_BAD_REGS),
		   !kc.shared && !(kc.bad & XT_KD_BAD_SHARED) && !part,
		   !kc.occ && !(kc.bad & XT_KD_BAD_OCC));
	empty_list(bad, sizeof(bad), !kc.regs && (kc.bad & XT_KD_BAD_REGS),
		   !kc.shared && (kc.bad & XT_KD_BAD_SHARED), !kc.occ && (kc.bad & XT_KD_BAD_OCC));
	/* Rows of one kernel and op differ by their launch: then GRID (and
	 * BLOCK, where grids are alike too) stays longest, or the rows would
	 * read the same (five wrapped_broadcast rows of the MI300X gemm). */
	if (kc.grid_apart) {
		cols[3].drop = 1;
		cols[7].drop = 2;
		cols[6].drop = 3;
	}
	if (kc.block_apart)
		cols[4].drop = 1;
	for (k = 0; k < 9; k++)
		cells[k] = b[k];
	section(o, "");
	o->len--;
	strbuf_addf(o, "GPU kernels: %zu%s\n", a->nkernels, n < a->nkernels ? " (top)" : "");
	tt_init(&tt, cols, sizeof(cols) / sizeof(cols[0]), width, 2, 24);
	tt.show[5] &= kc.regs;
	tt.show[6] &= kc.shared;
	tt.show[7] &= kc.occ;
	tt_head(&tt, o);
	{
		/* "name (op)", then fitted together so that rows alike tell
		 * apart. An op short enough stays whole, "(" and all, the
		 * kernel's name giving way ("loop_ad..op_add_fusion.2)" read as
		 * a kernel's name); a long one is elided with the rest. An op
		 * whose name other programs' ops have too is "program: name
		 * (op)", the program at the head, which elision keeps (in the
		 * middle, as the viewer has it, it read "..ly/loop_convert_fusion)"). */
		char **full = xmalloc((n ? n : 1) * sizeof(*full));
		int fw = tt_flex_width(&tt);

		for (i = 0; i < n; i++) {
			const struct xt_kernel_row *kr = &a->kernels[i];
			const char *kn = kr->name, *op = kr->op;
			size_t len = strlen(kr->program) + strlen(kn) + strlen(op) + 6,
			       on = strlen(op) + 3;
			int room = fw - tt_cols(op) - 3;
			char *e = xmalloc(len);

			full[i] = xmalloc(len);
			if (kr->op_shared && *kr->program) {
				snprintf(full[i], len, "%s: %s (%s)", kr->program, kn, op);
				free(e);
				continue;
			}
			snprintf(full[i], len, "%s (%s)", kn, op);
			/* Only where the plain elision would cut into " (op)". */
			if (fw && room >= 8 &&
			    (strlen(tt_elide(e, len, full[i], fw)) < on ||
			     strcmp(e + strlen(e) - on, full[i] + strlen(full[i]) - on)))
				snprintf(full[i], len, "%s (%s)", tt_elide(e, len, kn, room), op);
			free(e);
		}
		fit = tt_fit_flex(&tt, (const char *const *)full, n);
		tt_fit_free(full, n);
	}
	for (i = 0; i < n; i++) {
		const struct xt_kernel_row *kr = &a->kernels[i];

		fmt_ps(b[0], sizeof(b[0]), kr->total_ps);
		fmt_count_fit(b[1], sizeof(b[1]), kr->occurrences, 7); /* OCC's width */
		fmt_ps(b[2], sizeof(b[2]), kr->total_ps / (int64_t)kr->occurrences);
		snprintf(b[3], sizeof(b[3]), "%u,%u,%u", kr->grid[0], kr->grid[1], kr->grid[2]);
		snprintf(b[4], sizeof(b[4]), "%u,%u,%u", kr->block[0], kr->block[1], kr->block[2]);
		if (kr->registers >= 0)
			snprintf(b[5], sizeof(b[5]), "%" PRId64, kr->registers);
		else
			snprintf(b[5], sizeof(b[5]), "-");
		if (kr->shared_bytes >= 0)
			fmt_bytes_fit(b[6], sizeof(b[6]), (double)kr->shared_bytes, 9); /* as the viewer */
		else
			snprintf(b[6], sizeof(b[6]), "-");
		if (isnan(kr->occupancy_percent))
			snprintf(b[7], sizeof(b[7]), "-");
		else
			snprintf(b[7], sizeof(b[7]), "%.0f", kr->occupancy_percent);
		cells[8] = fit[i];
		tt_row(&tt, o, cells);
	}
	tt_fit_free(fit, n);
	if (none[0])
		put_text(o, width, "  not in this profile's kernel details: %s", none);
	if (bad[0])
		put_text(o, width, "  impossible in this profile's kernel details, not shown: %s%s", bad,
			 " (--json: detail_note says which)");
	if (part)
		put_text(o, width, "  shared memory not shown: the kernel details give one part of it, "
				   "not the whole (TensorFlow's shm is the static part alone)");
}

/* With several hosts: where the host sits on the trace's clock and its
 * residual skew (docs/analyses.md, "Several hosts"). */
static void host_clock(struct strbuf *o, const struct xt_trace *t, const struct xt_host *h, int w)
{
	char b[256];

	put_text(o, w, "    clock: %s", clock_place_text(t, h, b, sizeof(b)));
	put_text(o, w, "    skew: %s", clock_skew_text(t, h, b, sizeof(b)));
}

void report_text(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *ro)
{
	size_t h, p, lines = 0, planes = 0;
	char b1[32], b2[32];
	int w = ro->width;

	for (h = 0; h < t->nhosts; h++) {
		planes += t->hosts[h].nplanes;
		for (p = 0; p < t->hosts[h].nplanes; p++)
			lines += t->hosts[h].planes[p].nlines;
	}
	put_line(o, w, "xtop report: %s", ro->path);
	if (ro->run_name)
		put_text(o, w, "run %s (%s of %zu; --list lists them, --run picks one)", ro->run_name,
			 ro->run_given ? "one" : "the newest", ro->nruns);
	/* No device with events: busy time unknown (idle, or not traced). */
	if (analysis_has_device_time(a))
		fmt_ps(b2, sizeof(b2), a->busy_ps);
	else
		snprintf(b2, sizeof(b2), "- (no device events)");
	put_text(o, w, "%zu host%s, %zu planes, %zu lines, %s events; device busy %s", t->nhosts,
		 t->nhosts == 1 ? "" : "s", planes, lines, fmt_count(b1, sizeof(b1), t->nev), b2);
	put_text(o, w, "times are from the %sprofile start", t->nhosts > 1 ? "earliest host's " : "");
	if (a->hlo_programs)
		put_text(o, w, "FLOPs and bytes from the programs' HLO where the profile has none");
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];

		char head[512], tail[128], path[4096], sz[80], b3[32];
		int room;

		snprintf(head, sizeof(head), "  host %s: ", host->name);
		/* A gzip'd file's size on disk first, as --list gives it, then
		 * the XSpace it holds. */
		fmt_bytes(b1, sizeof(b1), (double)host->src.file_xspace);
		if (host->src.gzipped)
			snprintf(sz, sizeof(sz), "%s gzip, %s XSpace",
				 fmt_bytes(b3, sizeof(b3), (double)host->src.file_size), b1);
		else
			snprintf(sz, sizeof(sz), "%s", b1);
		snprintf(tail, sizeof(tail), " (%s), %s event%s", sz,
			 fmt_count(b2, sizeof(b2), host->nev), host->nev == 1 ? "" : "s");
		/* The path gives way first: its file name is its tail; with less
		 * than a dozen columns for it, it goes, and the host's name (what
		 * tells the hosts apart) wraps whole. */
		room = w ? w - tt_cols(head) - tt_cols(tail) : 0;
		if (w && room < 12) {
			put_text(o, w, "  host %s%s", host->name, tail);
		} else {
			tt_elide(path, sizeof(path), host->path, room);
			put_line(o, w, "%s%s%s", head, path, tail);
		}
		for (p = 0; p < host->nerrors; p++)
			put_text(o, w, "    profiler error: %s", host->errors[p]);
		if (t->nhosts > 1)
			host_clock(o, t, host, w);
	}
	report_overview(o, t, a, w);
	report_devices(o, t, a, w);
	report_ops(o, a, ro->top, w);
	report_steps(o, t, a, w);
	report_memory(o, t, a, w);
	report_kernels(o, a, ro->top, w);
	if (ro->cmp) {
		section(o, "Compared with the baseline");
		diff_text(o, ro->cmp, ro->baseline, ro->path, ro->top, w);
	}
	if (ro->gate) {
		char pb[32];

		snprintf(pb, sizeof(pb), "%.1f%%", ro->fail_over);
		section(o, "Regression gate");
		if (ro->nreg)
			diff_gate_text(o, ro->reg, ro->nreg, ro->fail_over);
		else
			put_text(o, w, "passed: no step time, device time or top-%d op worse by more than %s",
				 DIFF_GATE_TOP, pb);
	}
}

/* ---- the command ---- */

enum { OPT_JSON = 1, OPT_TOP, OPT_RUN, OPT_LIST, OPT_THREADS, OPT_WIDE, OPT_BASELINE, OPT_FAIL_OVER,
       OPT_HELP };

static const struct xt_option report_options[] = {
	{ OPT_JSON, 0, "json", 0, NULL, "print one JSON object instead of text" },
	{ OPT_TOP, 'n', "top", 1, "N", "show the top N ops and kernels (default 20, with --json all; 0 = all)" },
	{ OPT_RUN, 'r', "run", 1, "NAME", "pick a run of a logdir (default: the newest)" },
	{ OPT_LIST, 'l', "list", 0, NULL, "list the runs and hosts under PATH and exit" },
	{ OPT_THREADS, 'j', "threads", 1, "N", "decode with N threads (default: all CPUs)" },
	{ OPT_WIDE, 'w', "wide", 0, NULL, "print names in full (default: fit $COLUMNS or the terminal, else 80)" },
	{ OPT_BASELINE, 'b', "baseline", 1, "BASE", "compare with the profile BASE (file, run directory or logdir)" },
	{ OPT_FAIL_OVER, 0, "fail-over", 1, "PCT",
	  "with --baseline: exit 3 when the step time (else device time) or a top-20 op's self time "
	  "is worse by more than PCT percent" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

/* --list --json: {"runs": [{"name", "newest", "mtime", "dir", "hosts":
 * [{"host", "bytes", "path"}]}]}, oldest first as the text. */
static void report_list_json(const struct profile_set *set)
{
	struct strbuf o;
	size_t r, f;

	strbuf_init(&o);
	strbuf_puts(&o, "{\"runs\":[");
	for (r = 0; r < set->nruns; r++) {
		const struct profile_run *run = &set->runs[r];

		strbuf_puts(&o, r ? ",{\"name\":" : "{\"name\":");
		strbuf_json_str(&o, run->name, strlen(run->name));
		strbuf_addf(&o, ",\"newest\":%s,\"mtime\":%lld,\"dir\":",
			    r + 1 == set->nruns ? "true" : "false", (long long)run->mtime);
		strbuf_json_str(&o, run->dir, strlen(run->dir));
		strbuf_puts(&o, ",\"hosts\":[");
		for (f = 0; f < run->nfiles; f++) {
			strbuf_puts(&o, f ? ",{\"host\":" : "{\"host\":");
			strbuf_json_str(&o, run->files[f].host, strlen(run->files[f].host));
			strbuf_addf(&o, ",\"bytes\":%" PRIu64 ",\"path\":", run->files[f].size);
			strbuf_json_str(&o, run->files[f].path, strlen(run->files[f].path));
			strbuf_puts(&o, "}");
		}
		strbuf_puts(&o, "]}");
	}
	strbuf_puts(&o, "]}\n");
	fwrite(o.buf, 1, o.len, stdout);
	strbuf_fini(&o);
}

static int report_list(const char *path, int json)
{
	struct profile_set set;
	struct xt_error err;
	size_t r, f;
	char b[32], tb[32];

	if (profile_scan(&set, path, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	if (json) {
		report_list_json(&set);
		profile_set_fini(&set);
		return options_stdout_done() < 0 ? 1 : 0;
	}
	for (r = 0; r < set.nruns; r++) {
		const struct profile_run *run = &set.runs[r];
		struct tm tm;

		localtime_r(&run->mtime, &tm);
		strftime(tb, sizeof(tb), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%s%s  %s  %zu host%s  %s\n", run->name, r + 1 == set.nruns ? " (newest)" : "",
		       tb, run->nfiles, run->nfiles == 1 ? "" : "s", run->dir);
		for (f = 0; f < run->nfiles; f++)
			printf("    %-40s %12s  %s\n", run->files[f].host,
			       fmt_bytes(b, sizeof(b), (double)run->files[f].size), run->files[f].path);
	}
	profile_set_fini(&set);
	return options_stdout_done() < 0 ? 1 : 0;
}

int report_main(int argc, char **argv)
{
	struct report_opts ro = { .top = 20 };
	struct load_opts lo = { 0 };
	int json = 0, list = 0, wide = 0, c, rc = 0;
	struct xt_trace *t, *bt = NULL;
	struct xt_analysis *a, *ba = NULL;
	struct xt_cmp *cmp = NULL;
	struct diff_regression reg[DIFF_GATE_MAX];
	struct xt_error err;
	struct strbuf out;
	struct load_picked picked = { 0 };
	struct option lopts[16];
	char sopts[64];
	unsigned long long v;

	options_build(report_options, lopts, sopts, sizeof(sopts));
	optind = 1;
	opterr = 0; /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(report_options, c)) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_TOP:
			if (options_number("--top", optarg, 0, SIZE_MAX, "a number of rows (0 = all)", &v))
				return 2;
			ro.top = (size_t)v;
			ro.top_given = 1;
			break;
		case OPT_RUN:
			lo.run = optarg;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case OPT_WIDE:
			wide = 1;
			break;
		case OPT_THREADS:
			if (options_number("--threads", optarg, 0, 1024, "a number of threads (0 = all CPUs)",
					   &v))
				return 2;
			lo.threads = (int)v;
			break;
		case OPT_BASELINE:
			ro.baseline = optarg;
			break;
		case OPT_FAIL_OVER: {
			char *end;

			ro.fail_over = strtod(optarg, &end);
			/* Decimal only: strtod also reads "0x10" and "1e1". */
			if (*end || !*optarg || !(ro.fail_over >= 0) || ro.fail_over > 1e9 ||
			    optarg[strspn(optarg, "0123456789.")]) {
				options_say("--fail-over needs a percentage of 0 or more, not '%s'",
					optarg);
				return 2;
			}
			ro.gate = 1;
			break;
		}
		case OPT_HELP:
			options_usage(stdout, "xtop report [options] PATH",
				      "Print the profile's overview, op profile, steps, memory and kernels.",
				      report_options);
			return 0;
		default:
			options_error(report_options, c, argv, "xtop report");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xtop: report needs exactly one PATH (see xtop report --help)\n");
		return 2;
	}
	if (ro.gate && !ro.baseline) {
		fprintf(stderr, "xtop: --fail-over needs --baseline BASE to compare with\n");
		return 2;
	}
	ro.path = argv[optind];
	ro.width = tt_output_width(wide);
	if (list && (ro.baseline || lo.run)) {
		/* A gate that silently did not run would pass a CI job. */
		fprintf(stderr, "xtop: --list lists the runs; it takes no %s\n",
			ro.baseline ? "--baseline or --fail-over" : "--run");
		return 2;
	}
	if (list)
		return report_list(ro.path, json);
	lo.analyses_only = 1;
	lo.picked = &picked;
	if (load_profile(ro.path, &lo, &t, &a, &err) < 0) {
		free(picked.run);
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	/* Which run of a logdir of several was read: the header says. */
	if (picked.run && picked.nruns > 1) {
		ro.run_name = picked.run;
		ro.nruns = picked.nruns;
		ro.run_given = lo.run != NULL;
	}
	if (ro.baseline) {
		struct load_opts blo = { 0 };

		blo.threads = lo.threads; /* --run names a run of PATH, not of BASE */
		blo.analyses_only = 1;
		if (load_profile(ro.baseline, &blo, &bt, &ba, &err) < 0) {
			fprintf(stderr, "xtop: baseline: %s\n", err.msg);
			analysis_free(a);
			trace_free(t);
			free(picked.run);
			return 2;
		}
		cmp = compare_new(ba, a);
		ro.cmp = cmp;
		if (ro.gate) {
			ro.nreg = diff_gate(cmp, ro.fail_over, reg);
			ro.reg = reg;
			rc = ro.nreg ? 3 : 0;
		}
	}
	strbuf_init(&out);
	if (json) {
		/* Written out as it goes; the text report edits what it
		 * wrote, so it goes out whole. */
		strbuf_set_sink(&out, stdout);
		report_json(&out, t, a, &ro);
	} else {
		report_text(&out, t, a, &ro);
	}
	fwrite(out.buf, 1, out.len, stdout); /* what the buffer still holds */
	strbuf_fini(&out);
	/* The verdict on stderr too, where CI logs show it beside stdout. */
	if (ro.gate && ro.nreg && json) {
		strbuf_init(&out);
		diff_gate_text(&out, ro.reg, ro.nreg, ro.fail_over);
		fwrite(out.buf, 1, out.len, stderr);
		strbuf_fini(&out);
	}
	compare_free(cmp);
	analysis_free(ba);
	trace_free(bt);
	analysis_free(a);
	trace_free(t);
	free(picked.run);
	return options_stdout_done() < 0 ? 1 : rc;
}
