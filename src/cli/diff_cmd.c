/* diff_cmd: see diff_cmd.h. */
#include "diff_cmd.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/load.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "options.h"
#include "texttab.h"

/* "+12.3%", "-4.0%", "new" (base 0, new not), "-" (none, or 0 on both sides) */
static void pct_cell(char *b, size_t n, double pct, int has, double new_)
{
	if (!has)
		snprintf(b, n, "-");
	else
		fmt_pct_change_or_new(b, n, pct, new_);
}

static void delta_cell(char *b, size_t n, int64_t d)
{
	fmt_ps_change(b, n, d);
}

/* A device's busy time per step when the comparison is per step. */
static int64_t per_step(const struct xt_cmp *c, int64_t ps, size_t steps)
{
	return c->per_step && steps ? ps / (int64_t)steps : ps;
}

static void num_line(struct strbuf *o, const char *what, const struct xt_cmp_num *v)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (!v->has && !v->sides) {
		strbuf_addf(o, "  %-10s -\n", what);
		return;
	}
	/* One side alone known (the other has no device events): its value,
	 * '-' for the other and the change. */
	snprintf(b1, sizeof(b1), "-");
	snprintf(b2, sizeof(b2), "-");
	snprintf(b3, sizeof(b3), "-");
	snprintf(b4, sizeof(b4), "-");
	if (v->has || (v->sides & 1))
		fmt_ps(b1, sizeof(b1), xt_ps_of(v->base));
	if (v->has || (v->sides & 2))
		fmt_ps(b2, sizeof(b2), xt_ps_of(v->new_));
	if (v->has) {
		delta_cell(b3, sizeof(b3), xt_ps_of(v->delta));
		pct_cell(b4, sizeof(b4), v->delta_percent, 1, v->new_);
	}
	strbuf_addf(o, "  %-10s %10s -> %10s  %11s %8s\n", what, b1, b2, b3, b4);
}

static void diff_devices(struct strbuf *o, const struct xt_cmp *c, int width)
{
	static const struct tt_col cols[] = {
		{ "BASE BUSY", 10, 1, 0 }, { "NEW BUSY", 10, 1, 0 }, { "DELTA", 11, 1, 2 },
		{ "IDLE", 6, 1, 0 },	   { "NEW IDLE", 8, 1, 0 },  { "DEVICE", 0, 0, 0 },
	};
	struct texttab tt;
	char b[5][64], **name, **fit;
	const char *cells[6];
	size_t i, k, shown = 0;

	int multi = 0, only = 0, silent = 0;

	for (k = 0; k < 5; k++)
		cells[k] = b[k];
	for (i = 0; i < c->ndevs; i++) {
		shown += c->devs[i].base_busy_ps || c->devs[i].new_busy_ps;
		multi |= strcmp(c->devs[i].host, c->devs[0].host) != 0;
	}
	if (!shown)
		return;
	strbuf_addf(o, "\nDevices: busy and idle time%s (devices with no activity left out)\n",
		    c->per_step ? " per step" : "");
	tt_init(&tt, cols, 6, width, 1, 16);
	tt_head(&tt, o);
	/* The names first, fitted together: two hosts' GPU:1 read apart. */
	name = xcalloc(shown, sizeof(*name));
	for (i = 0, k = 0; i < c->ndevs; i++) {
		const struct xt_cmp_dev *d = &c->devs[i];
		size_t len = strlen(d->host) + strlen(d->name) + 20;

		if (!d->base_busy_ps && !d->new_busy_ps)
			continue;
		/* Only in one profile: its other busy column says "-" (a
		 * suffix here would take the room that tells hosts apart). */
		name[k] = xmalloc(len);
		snprintf(name[k++], len, "%s%s%s", multi ? d->host : "", multi ? ":" : "", d->name);
		only |= !d->in_base || !d->in_new;
	}
	fit = tt_fit_flex(&tt, (const char *const *)name, shown);
	for (i = 0, k = 0; i < c->ndevs; i++) {
		const struct xt_cmp_dev *d = &c->devs[i];

		if (!d->base_busy_ps && !d->new_busy_ps)
			continue;
		snprintf(b[0], sizeof(b[0]), "-");
		snprintf(b[1], sizeof(b[1]), "-");
		snprintf(b[2], sizeof(b[2]), "-");
		fmt_percent(b[3], sizeof(b[3]), d->in_base ? d->base_idle_percent : NAN);
		fmt_percent(b[4], sizeof(b[4]), d->in_new ? d->new_idle_percent : NAN);
		if (d->in_base && d->base_known)
			fmt_ps(b[0], sizeof(b[0]), per_step(c, d->base_busy_ps, c->base_units));
		if (d->in_new && d->new_known)
			fmt_ps(b[1], sizeof(b[1]), per_step(c, d->new_busy_ps, c->new_units));
		silent |= (d->in_base && !d->base_known) || (d->in_new && !d->new_known);
		/* Steps of two kinds: two captures' busy times, each of its
		 * own length, which the summary says are not compared. */
		if (d->in_base && d->base_known && d->in_new && d->new_known && !c->per_occurrence)
			delta_cell(b[2], sizeof(b[2]),
				   xt_sat_sub(per_step(c, d->new_busy_ps, c->new_units),
					      per_step(c, d->base_busy_ps, c->base_units)));
		cells[5] = fit[k++];
		tt_row(&tt, o, cells);
	}
	tt_fit_free(fit, shown);
	tt_fit_free(name, shown);
	if (only)
		strbuf_puts(o, "  - as BUSY: the device is not in that profile\n");
	if (silent)
		strbuf_puts(o, "  - as BUSY: no events from the device in that profile: idle, or not "
			       "traced\n");
	if (c->per_occurrence)
		strbuf_puts(o, "  - as DELTA: busy time is not compared (steps of two kinds, above)\n");
}

static void diff_memory(struct strbuf *o, const struct xt_cmp *c, int width)
{
	static const struct tt_col cols[] = {
		{ "BASE PEAK", 11, 1, 0 }, { "NEW PEAK", 11, 1, 0 }, { "DELTA", 11, 1, 2 },
		{ "%", 8, 1, 1 },	   { "MEMORY", 0, 0, 0 },
	};
	struct texttab tt;
	char b[4][64], **name, **fit;
	const char *cells[5];
	size_t i, k;

	int multi = 0, only = 0;

	if (!c->nmem)
		return;
	for (k = 0; k < 4; k++)
		cells[k] = b[k];
	for (i = 0; i < c->nmem; i++)
		multi |= strcmp(c->mem[i].host, c->mem[0].host) != 0;
	strbuf_addf(o, "\nMemory peaks\n");
	tt_init(&tt, cols, 5, width, 1, 16);
	tt_head(&tt, o);
	name = xcalloc(c->nmem, sizeof(*name));
	for (i = 0; i < c->nmem; i++) {
		const struct xt_cmp_mem *m = &c->mem[i];
		size_t len = strlen(m->host) + strlen(m->name) + 20;

		name[i] = xmalloc(len);
		snprintf(name[i], len, "%s%s%s", multi ? m->host : "", multi ? ":" : "", m->name);
		only |= !m->in_base || !m->in_new;
	}
	fit = tt_fit_flex(&tt, (const char *const *)name, c->nmem);
	for (i = 0; i < c->nmem; i++) {
		const struct xt_cmp_mem *m = &c->mem[i];
		int64_t d = xt_sat_sub(m->new_peak, m->base_peak);

		snprintf(b[0], sizeof(b[0]), "-");
		snprintf(b[1], sizeof(b[1]), "-");
		snprintf(b[2], sizeof(b[2]), "-");
		snprintf(b[3], sizeof(b[3]), "-");
		if (m->in_base)
			fmt_bytes(b[0], sizeof(b[0]), (double)m->base_peak);
		if (m->in_new)
			fmt_bytes(b[1], sizeof(b[1]), (double)m->new_peak);
		if (m->in_base && m->in_new) {
			char t[32];

			fmt_bytes(t, sizeof(t), (double)xt_sat_abs(d));
			snprintf(b[2], sizeof(b[2]), "%s%s", d ? d < 0 ? "-" : "+" : "", d ? t : "0");
			pct_cell(b[3], sizeof(b[3]),
				 m->base_peak ? 100.0 * (double)d / (double)m->base_peak : NAN, 1,
				 (double)m->new_peak);
		}
		cells[4] = fit[i];
		tt_row(&tt, o, cells);
	}
	tt_fit_free(fit, c->nmem);
	tt_fit_free(name, c->nmem);
	if (only)
		strbuf_puts(o, "  - as PEAK: the memory is not in that profile\n");
}

/* One op's row of the diff table, its name cell already fitted. */
static void diff_op_row(struct texttab *tt, struct strbuf *o, const struct xt_cmp_op *r,
			const char *name)
{
	char b[5][64];
	const char *cells[6] = { b[0], b[1], b[2], b[3], b[4], name };

	if (r->match == XT_MATCH_ADDED)
		snprintf(b[0], sizeof(b[0]), "-");
	else
		fmt_ps(b[0], sizeof(b[0]), r->base_ps);
	if (r->match == XT_MATCH_REMOVED)
		snprintf(b[1], sizeof(b[1]), "-");
	else
		fmt_ps(b[1], sizeof(b[1]), r->new_ps);
	delta_cell(b[2], sizeof(b[2]), r->delta_ps);
	pct_cell(b[3], sizeof(b[3]), r->delta_percent, r->match <= XT_MATCH_WORK,
		 (double)r->new_ps);
	snprintf(b[4], sizeof(b[4]), "%s%s", xt_match_names[r->match], r->work_differs ? "*" : "");
	tt_row(tt, o, cells);
}

void diff_text(struct strbuf *o, const struct xt_cmp *c, const char *base, const char *new_,
	       size_t top, int width)
{
	/* Narrow, MATCH goes first, then BASE (NEW less DELTA): at 60
	 * columns the names had 17 and read "gemm..ion_dot.14". */
	static const struct tt_col cols[] = {
		{ "BASE", 10, 1, 1 }, { "NEW", 10, 1, 0 },   { "DELTA", 11, 1, 0 },
		{ "%", 8, 1, 0 },     { "MATCH", 9, 0, 2 }, { "PROGRAM/OP", 0, 0, 0 },
	};
	/* Ops all in one program: it is named once, above them. */
	static const struct tt_col cols_one[] = {
		{ "BASE", 10, 1, 1 }, { "NEW", 10, 1, 0 },   { "DELTA", 11, 1, 0 },
		{ "%", 8, 1, 0 },     { "MATCH", 9, 0, 2 }, { "OP", 0, 0, 0 },
	};
	struct texttab tt;
	size_t i, k, n = top && top < c->nops ? top : c->nops;

	strbuf_addf(o, "xtop diff\n  base %s\n  new  %s\n", base, new_);
	strbuf_addf(o, "\nStep time (%zu step%s -> %zu)%s\n", c->base_steps, c->base_steps == 1 ? "" : "s",
		    c->new_steps,
		    c->per_step || c->per_occurrence ? "" : ": not both profiles have steps");
	if (c->per_occurrence) {
		char kb[192], kn[192];

		strbuf_addf(o, "  step times not compared: what a step is differs, not how fast it"
			       " ran\n    BASE: %s\n    NEW:  %s\n  so busy time is not compared, "
			       "and ops compare per occurrence\n",
			    compare_steps_kind(kb, sizeof(kb), c->base_source, c->base_module),
			    compare_steps_kind(kn, sizeof(kn), c->new_source, c->new_module));
	}
	num_line(o, "mean", &c->step_mean);
	num_line(o, "p50", &c->step_p50);
	num_line(o, "p95", &c->step_p95);
	num_line(o, c->per_step ? "busy/step" : "busy", &c->busy);
	{
		char sum[96];

		if (*compare_busy_summed(c, sum, sizeof(sum)))
			strbuf_addf(o, "  %-10s %s\n", "", sum);
	}

	strbuf_addf(o, "\nOps%s%s: self time %s, by the size of the change%s\n",
		    c->program ? " of " : "", c->program ? c->program : "",
		    c->per_step         ? "per step"
		    : c->per_occurrence ? "per occurrence (steps of two kinds)"
					: "per run (not both profiles have steps)",
		    n < c->nops ? " (top; --top N for more)" : "");
	tt_init(&tt, c->program ? cols_one : cols, 6, width, 1, 24);
	tt_head(&tt, o);
	{
		/* The names, fitted together: rows alike at both ends (a layer
		 * number in the middle) read apart, as in the report. */
		char **full = xmalloc((n ? n : 1) * sizeof(*full)), **fit;
		int fw = tt_flex_width(&tt);

		for (i = 0; i < n; i++) {
			const struct xt_cmp_op *r = &c->ops[i];
			size_t len = strlen(r->program) + strlen(r->name) + strlen(r->base_name) + 12;

			full[i] = xmalloc(len);
			/* The program first, where there are several: one op
			 * name is often in several. */
			compare_op_label_fit(r, full[i], len, fw, "..", !c->program);
		}
		fit = tt_fit_flex(&tt, (const char *const *)full, n);
		for (i = 0, k = 0; i < n; i++) {
			diff_op_row(&tt, o, &c->ops[i], fit[i]);
			k += (size_t)c->ops[i].work_differs;
		}
		tt_fit_free(fit, n);
		if (k)
			strbuf_addf(o, "  * does other work in NEW: FLOPs or bytes a run differ by more "
				       "than 1%% (another\n    instruction under the name, or new "
				       "shapes); gated on its time for BASE's work\n");
		tt_fit_free(full, n);
	}
	diff_devices(o, c, width);
	diff_memory(o, c, width);
}

static void jnum(struct strbuf *o, double v)
{
	if (isnan(v) || isinf(v))
		strbuf_puts(o, "null");
	else
		strbuf_addf(o, "%.17g", v);
}

/* ,"key":v, or null when !has. */
static void jint(struct strbuf *o, const char *k, int64_t v, int has)
{
	strbuf_addf(o, ",\"%s\":", k);
	if (has)
		strbuf_addf(o, "%" PRId64, v);
	else
		strbuf_puts(o, "null");
}

static void jstats(struct strbuf *o, const char *k, const struct xt_cmp_num *v, int comma)
{
	strbuf_addf(o, "%s\"%s\":", comma ? "," : "", k);
	if (!v->has && !v->sides) {
		strbuf_puts(o, "null");
		return;
	}
	strbuf_puts(o, "{\"base_ps\":");
	jnum(o, v->has || (v->sides & 1) ? v->base : NAN);
	strbuf_puts(o, ",\"new_ps\":");
	jnum(o, v->has || (v->sides & 2) ? v->new_ : NAN);
	strbuf_puts(o, ",\"delta_ps\":");
	jnum(o, v->has ? v->delta : NAN);
	strbuf_puts(o, ",\"delta_percent\":");
	jnum(o, v->has ? v->delta_percent : NAN);
	strbuf_puts(o, "}");
}

static void jstr(struct strbuf *o, const char *s)
{
	strbuf_json_str(o, s, strlen(s));
}

void diff_json(struct strbuf *o, const struct xt_cmp *c, size_t top)
{
	size_t i, n = top && top < c->nops ? top : c->nops;

	strbuf_addf(o, "{\"per_step\":%s,\"per_occurrence\":%s,\"ops_total\":%zu,\"ops\":[",
		    c->per_step ? "true" : "false", c->per_occurrence ? "true" : "false",
		    c->nops);
	for (i = 0; i < n; i++) {
		const struct xt_cmp_op *r = &c->ops[i];

		strbuf_puts(o, i ? ",{\"name\":" : "{\"name\":");
		jstr(o, r->name);
		strbuf_puts(o, ",\"base_name\":");
		jstr(o, r->base_name);
		strbuf_puts(o, ",\"program\":");
		jstr(o, r->program);
		strbuf_puts(o, ",\"category\":");
		jstr(o, r->category);
		strbuf_puts(o, ",\"base_ps\":");
		if (r->match == XT_MATCH_ADDED)
			strbuf_puts(o, "null");
		else
			strbuf_addf(o, "%" PRId64, r->base_ps);
		strbuf_puts(o, ",\"new_ps\":");
		if (r->match == XT_MATCH_REMOVED)
			strbuf_puts(o, "null");
		else
			strbuf_addf(o, "%" PRId64, r->new_ps);
		strbuf_addf(o, ",\"delta_ps\":%" PRId64 ",\"delta_percent\":", r->delta_ps);
		jnum(o, r->match <= XT_MATCH_WORK ? r->delta_percent : NAN);
		strbuf_addf(o, ",\"match\":\"%s\",\"work_differs\":%s}", xt_match_names[r->match],
			    r->work_differs ? "true" : "false");
	}
	strbuf_addf(o, "],\"steps\":{\"base_count\":%zu,\"new_count\":%zu", c->base_steps,
		    c->new_steps);
	strbuf_addf(o, ",\"base_source\":\"%s\",\"new_source\":\"%s\",\"compared\":%s",
		    xt_steps_source_names[c->base_source], xt_steps_source_names[c->new_source],
		    c->per_step ? "true" : "false");
	jstats(o, "mean", &c->step_mean, 1);
	jstats(o, "p50", &c->step_p50, 1);
	jstats(o, "p95", &c->step_p95, 1);
	strbuf_puts(o, "}");
	jstats(o, "busy", &c->busy, 1);
	strbuf_puts(o, ",\"devices\":[");
	for (i = 0; i < c->ndevs; i++) {
		const struct xt_cmp_dev *d = &c->devs[i];

		strbuf_puts(o, i ? ",{\"host\":" : "{\"host\":");
		jstr(o, d->host);
		strbuf_puts(o, ",\"name\":");
		jstr(o, d->name);
		/* In each profile or not; then its busy time, null where it
		 * is not, or has no events there (idle, or not traced). Per
		 * step when the ops and busy are, as the text shows them. */
		strbuf_addf(o, ",\"in_base\":%s,\"in_new\":%s", d->in_base ? "true" : "false",
			    d->in_new ? "true" : "false");
		jint(o, "base_busy_ps", per_step(c, d->base_busy_ps, c->base_units),
		     d->in_base && d->base_known);
		jint(o, "new_busy_ps", per_step(c, d->new_busy_ps, c->new_units),
		     d->in_new && d->new_known);
		strbuf_puts(o, ",\"base_idle_percent\":");
		jnum(o, d->in_base ? d->base_idle_percent : NAN);
		strbuf_puts(o, ",\"new_idle_percent\":");
		jnum(o, d->in_new ? d->new_idle_percent : NAN);
		strbuf_puts(o, "}");
	}
	strbuf_puts(o, "],\"memory\":[");
	for (i = 0; i < c->nmem; i++) {
		const struct xt_cmp_mem *m = &c->mem[i];

		strbuf_puts(o, i ? ",{\"host\":" : "{\"host\":");
		jstr(o, m->host);
		strbuf_puts(o, ",\"allocator\":");
		jstr(o, m->allocator);
		strbuf_puts(o, ",\"name\":");
		jstr(o, m->name);
		jint(o, "base_peak_bytes", m->base_peak, m->in_base);
		jint(o, "new_peak_bytes", m->new_peak, m->in_new);
		jint(o, "delta_bytes", xt_sat_sub(m->new_peak, m->base_peak), m->in_base && m->in_new);
		strbuf_puts(o, "}");
	}
	strbuf_puts(o, "]}");
}

/* Regression n of out, its kind and numbers set. */
static struct diff_regression *regression(struct diff_regression *out, size_t *n, const char *what,
					  const char *program, const char *name, double base_ps,
					  double new_ps, double delta_percent)
{
	struct diff_regression *r = &out[(*n)++];

	*r = (struct diff_regression){ what, program, name, "", base_ps, new_ps, delta_percent, 0, 0 };
	return r;
}

size_t diff_gate(const struct xt_cmp *c, double pct, struct diff_regression *out)
{
	size_t i, n = 0;
	/* Step time when both have steps, else all device time. */
	const struct xt_cmp_num *whole = c->step_mean.has ? &c->step_mean : &c->busy;

	/* What NEW lost is not an improvement: with no steps, or no device
	 * time, it cannot be shown not to be worse (a crashed workload, a
	 * capture whose device tracer failed), so it does not pass. */
	if (c->base_steps && !c->new_steps)
		regression(out, &n, "no_steps", "", "steps", NAN, NAN, NAN)->base_steps =
			c->base_steps;
	/* Even where busy times are not compared (steps of two kinds). */
	if (c->busy.base > 0 && c->busy.new_ <= 0) {
		regression(out, &n, "no_device_time", "", "device busy time", c->busy.base, 0, NAN);
		return n; /* every op is gone: nothing more to say */
	}
	if (whole->has && whole->base > 0 && whole->delta_percent > pct)
		regression(out, &n, c->step_mean.has ? "step_mean" : "busy", "",
			   c->step_mean.has ? "mean step time" : "device busy time", whole->base,
			   whole->new_, whole->delta_percent);
	for (i = 0; i < c->nops && n < DIFF_GATE_MAX; i++) {
		const struct xt_cmp_op *o = &c->ops[i];
		int added = o->match == XT_MATCH_ADDED;

		if (o->new_rank >= DIFF_GATE_TOP)
			continue;
		/* A new op among the top 20 is all regression; a matched one
		 * regresses when it grew by more than pct. */
		/* An op that does other work than its match is gated on its
		 * time for BASE's work (its time over the work ratio). */
		double new_ps = (double)o->new_ps, delta = o->delta_percent;
		struct diff_regression *r;

		if (o->work_differs && o->work_ratio > 0) {
			new_ps /= o->work_ratio;
			delta = o->base_ps ? 100.0 * (new_ps - (double)o->base_ps) / (double)o->base_ps
					   : NAN;
		}
		if (!(added && o->new_ps > 0) &&
		    !(o->match <= XT_MATCH_WORK && o->base_ps > 0 && delta > pct))
			continue;
		r = regression(out, &n, o->work_differs && o->work_ratio > 0 ? "op_work" : "op",
			       o->program, o->name, (double)o->base_ps, new_ps, added ? NAN : delta);
		r->added = added;
		r->base_name = o->base_name;
	}
	return n;
}

void diff_gate_text(struct strbuf *o, const struct diff_regression *r, size_t n, double pct)
{
	char b1[32], b2[32];
	size_t i;

	for (i = 0; i < n; i++, r++) {
		/* " (was NAME)" where BASE's op is named otherwise: a pair the
		 * user can check. */
		int renamed = *r->base_name && strcmp(r->base_name, r->name);
		const char *w0 = renamed ? " (was " : "", *w1 = renamed ? r->base_name : "",
			   *w2 = renamed ? ")" : "";

		/* no_steps has no times (NAN): no cast of them. */
		fmt_ps(b1, sizeof(b1), isnan(r->base_ps) ? 0 : (int64_t)r->base_ps);
		fmt_ps(b2, sizeof(b2), isnan(r->new_ps) ? 0 : (int64_t)r->new_ps);
		if (!strcmp(r->what, "no_steps"))
			strbuf_addf(o, "regression: NEW has no steps (BASE has %zu): its step time "
				       "cannot be compared\n", r->base_steps);
		else if (!strcmp(r->what, "no_device_time"))
			strbuf_addf(o, "regression: NEW has no device time (BASE: %s busy): nothing "
				       "ran on its devices, or their tracer failed\n", b1);
		else if (!strcmp(r->what, "op_work"))
			strbuf_addf(o, "regression: op %s%s%s%s%s%s self time for BASE's work %s -> %s "
				       "(%+.1f%%, over %.1f%%; it does other work in NEW)\n",
				    r->program, *r->program ? "/" : "", r->name, w0, w1, w2, b1, b2,
				    r->delta_percent, pct);
		else if (strcmp(r->what, "op"))
			strbuf_addf(o, "regression: %s %s -> %s (%+.1f%%, over %.1f%%)\n", r->name, b1,
				    b2, r->delta_percent, pct);
		else if (r->added)
			strbuf_addf(o, "regression: op %s%s%s is new among the top %d (%s)\n",
				    r->program, *r->program ? "/" : "", r->name, DIFF_GATE_TOP, b2);
		else
			strbuf_addf(o, "regression: op %s%s%s%s%s%s self time %s -> %s (%+.1f%%, over "
				       "%.1f%%)\n",
				    r->program, *r->program ? "/" : "", r->name, w0, w1, w2, b1, b2,
				    r->delta_percent, pct);
	}
}

void diff_gate_json(struct strbuf *o, const struct diff_regression *r, size_t n, double pct)
{
	size_t i;

	strbuf_puts(o, "{\"fail_over_percent\":");
	jnum(o, pct);
	strbuf_addf(o, ",\"failed\":%s,\"regressions\":[", n ? "true" : "false");
	for (i = 0; i < n; i++, r++) {
		strbuf_addf(o, "%s{\"what\":\"%s\",\"program\":", i ? "," : "", r->what);
		jstr(o, r->program);
		strbuf_puts(o, ",\"name\":");
		jstr(o, r->name);
		if (!strcmp(r->what, "op") || !strcmp(r->what, "op_work")) {
			strbuf_puts(o, ",\"base_name\":");
			if (r->added)
				strbuf_puts(o, "null");
			else
				jstr(o, r->base_name);
		}
		if (!strcmp(r->what, "no_steps"))
			strbuf_addf(o, ",\"base_steps\":%zu", r->base_steps);
		strbuf_puts(o, ",\"base_ps\":");
		jnum(o, r->added ? NAN : r->base_ps);
		strbuf_puts(o, ",\"new_ps\":");
		jnum(o, r->new_ps);
		strbuf_puts(o, ",\"delta_percent\":");
		jnum(o, r->delta_percent);
		strbuf_addf(o, ",\"added\":%s}", r->added ? "true" : "false");
	}
	strbuf_puts(o, "]}");
}

/* ---- the command ---- */

enum { OPT_JSON = 1, OPT_TOP, OPT_WIDE, OPT_HELP };

static const struct xt_option diff_options[] = {
	{ OPT_JSON, 0, "json", 0, NULL, "print one JSON object instead of text" },
	{ OPT_TOP, 'n', "top", 1, "N", "show the N ops that changed most (default 30, with --json all; 0 = all)" },
	{ OPT_WIDE, 'w', "wide", 0, NULL, "print names in full" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

static int load(const char *path, struct xt_trace **t, struct xt_analysis **a)
{
	struct load_opts lo = { .analyses_only = 1 };
	struct xt_error err;

	if (load_profile(path, &lo, t, a, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int diff_main(int argc, char **argv)
{
	struct option lopts[8];
	char sopts[32];
	unsigned long long v;
	int c, json = 0, wide = 0, top_set = 0;
	size_t top = 30;
	struct xt_trace *tb = NULL, *tn = NULL;
	struct xt_analysis *ab = NULL, *an = NULL;
	struct xt_cmp *cmp;
	struct strbuf out;

	options_build(diff_options, lopts, sopts, sizeof(sopts));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(diff_options, c)) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_WIDE:
			wide = 1;
			break;
		case OPT_TOP:
			if (options_number("--top", optarg, 0, SIZE_MAX, "a number of ops (0 = all)", &v))
				return 2;
			top = (size_t)v;
			top_set = 1;
			break;
		case OPT_HELP:
			options_usage(stdout, "xtop diff [options] BASE NEW",
				      "Compare two profiles (files, run directories or logdirs): the ops\n"
				      "that changed most, step time, device idle and memory peaks.",
				      diff_options);
			return 0;
		default:
			options_error(diff_options, c, argv, "xtop diff");
			return 2;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "xtop: diff needs two profiles, BASE and NEW (see xtop diff --help)\n");
		return 2;
	}
	if (load(argv[optind], &tb, &ab) < 0)
		return 2;
	if (load(argv[optind + 1], &tn, &an) < 0) {
		analysis_free(ab);
		trace_free(tb);
		return 2;
	}
	cmp = compare_new(ab, an);
	strbuf_init(&out);
	if (json) {
		/* A script gets every op unless it asks for fewer. */
		diff_json(&out, cmp, top_set ? top : 0);
		strbuf_puts(&out, "\n");
	} else {
		diff_text(&out, cmp, argv[optind], argv[optind + 1], top, tt_output_width(wide));
	}
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_fini(&out);
	compare_free(cmp);
	analysis_free(ab);
	analysis_free(an);
	trace_free(tb);
	trace_free(tn);
	return options_stdout_done() < 0 ? 1 : 0;
}
