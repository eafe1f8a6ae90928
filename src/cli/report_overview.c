/*
 * report_overview: the overview at the top of `xtop report` (model's
 * struct xt_overview; docs/analyses.md, "Overview"): step time with a bar
 * per step, where device time went and what the findings say.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../model/op_columns.h"
#include "../util/timefmt.h"
#include "report.h"
#include "texttab.h"

/* Whether the user's locale takes UTF-8 (the report never sets one). */
static int utf8_locale(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return 0;
}

void report_step_bars(struct strbuf *o, const struct xt_analysis *a, int cols, int utf8)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[8] = { '_', '.', '-', '=', '+', '*', '#', '@' };
	int64_t max = 0;
	size_t i, n = a->nsteps;
	int c;

	if (!n || cols <= 0)
		return;
	for (i = 0; i < n; i++)
		if (a->steps[i].duration_ps > max)
			max = a->steps[i].duration_ps;
	if (max <= 0)
		return;
	if ((size_t)cols > n)
		cols = (int)n;
	/* Each column shows the longest step of its share of the steps, so a
	 * slow step is never averaged away. */
	for (c = 0; c < cols; c++) {
		size_t s0 = (size_t)c * n / (size_t)cols, s1 = (size_t)(c + 1) * n / (size_t)cols;
		int64_t v = 0;
		int lvl;

		for (i = s0; i < s1; i++)
			if (a->steps[i].duration_ps > v)
				v = a->steps[i].duration_ps;
		lvl = (int)((__int128)v * 8 / ((__int128)max + 1));
		lvl = lvl > 7 ? 7 : lvl < 0 ? 0 : lvl;
		if (utf8)
			strbuf_puts(o, blocks[lvl]);
		else
			strbuf_add(o, &ascii[lvl], 1);
	}
}

void report_overview(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		     int width)
{
	const struct xt_overview *v = &a->overview;
	char b1[32], b2[32], b3[32], b4[32], b5[32], line[8192];
	size_t i;

	int bars = (width > 0 ? width : 80) - 6;

	strbuf_puts(o, "\nOverview\n");
	if (v->has_steps) {
		size_t per = (a->nsteps + (size_t)bars - 1) / (size_t)bars;

		snprintf(line, sizeof(line), "steps: %zu%s, mean %s, p50 %s, p95 %s (min %s, max %s); "
					     "%s",
			 a->nsteps, a->steps_source == XT_STEPS_INFERRED ? " (inferred)" : "",
			 fmt_ps(b1, sizeof(b1), (int64_t)llround(v->step_mean_ps)),
			 fmt_ps(b2, sizeof(b2), v->step_p50_ps), fmt_ps(b3, sizeof(b3), v->step_p95_ps),
			 fmt_ps(b4, sizeof(b4), v->step_min_ps), fmt_ps(b5, sizeof(b5), v->step_max_ps),
			 per > 1 ? "a bar for the longest of each few steps:" : "a bar per step:");
		tt_wrap(o, "  ", line, 4, width);
		strbuf_puts(o, "    ");
		report_step_bars(o, a, bars, utf8_locale());
		strbuf_puts(o, "\n");
	} else {
		strbuf_puts(o, "  steps: none (no step markers, and no XLA module ran twice)\n");
	}
	/* The devices in one line; the Devices table has each. */
	{
		size_t nd = 0, nspan = 0;
		double lo = 101, hi = -1;

		for (i = 0; i < a->ndevices; i++) {
			const struct xt_device_row *d = &a->devices[i];

			if (!d->has_overview || !d->op_events)
				continue;
			nd++;
			if (isnan(d->idle_percent))
				continue; /* no span (instants only): no idle share */
			nspan++;
			lo = d->idle_percent < lo ? d->idle_percent : lo;
			hi = d->idle_percent > hi ? d->idle_percent : hi;
		}
		if (nd) {
			int n = snprintf(line, sizeof(line), "devices: %zu, busy %s in all, idle ", nd,
					 fmt_ps(b1, sizeof(b1), a->busy_ps));

			if (!nspan)
				n += snprintf(line + n, sizeof(line) - (size_t)n, "-");
			else if (nspan == 1 || hi - lo < 0.05)
				n += snprintf(line + n, sizeof(line) - (size_t)n, "%.1f%%", hi);
			else
				n += snprintf(line + n, sizeof(line) - (size_t)n, "%.1f%% to %.1f%%", lo,
					      hi);
			if (v->host_bound_device)
				snprintf(line + n, sizeof(line) - (size_t)n,
					 "; idle while the host worked: %s on %s%s%s",
					 fmt_ps(b2, sizeof(b2), v->host_bound_ps),
					 t->nhosts > 1 ? v->host_bound_host : "", t->nhosts > 1 ? " " : "",
					 v->host_bound_device);
			tt_wrap(o, "  ", line, 4, width);
		} else {
			strbuf_puts(o, "  devices: no device activity\n");
		}
	}
	/* Compilation is the host's: said without device time too, as the
	 * viewer's overview does. Collectives are the devices' (NCCL kernels,
	 * XLA's all-reduces): a host's own (TensorFlow's CollectiveReduce on a
	 * CPU thread) are not counted, so "none" says where. */
	if (v->collective_ps)
		snprintf(b3, sizeof(b3), "%.1f%%", v->collective_percent);
	snprintf(line, sizeof(line), "collectives: %s%s%s%s; compilation: %s%s",
		 v->collective_ps ? fmt_ps(b1, sizeof(b1), v->collective_ps) : "none on the devices",
		 v->collective_ps ? " (" : "", v->collective_ps ? b3 : "",
		 v->collective_ps ? " of device time)" : "",
		 v->compile_ps ? fmt_ps(b2, sizeof(b2), v->compile_ps) : "none",
		 v->compile_ps ? " inside the profile" : "");
	tt_wrap(o, "  ", line, 4, width);
	if (a->nops) {
		int n = snprintf(line, sizeof(line), "top ops:");

		for (i = 0; i < a->nops && i < 5 && n < (int)sizeof(line) - 1100; i++) {
			char full[1024], name[1024], pb[16];
			int room = width - 16;

			snprintf(full, sizeof(full), "%s%s%s", a->ops[i].program,
				 *a->ops[i].program ? "/" : "", a->ops[i].name);
			/* --wide (width 0): whole, as everywhere else. */
			if (width > 0)
				tt_elide(name, sizeof(name), full, room < 16 ? 16 : room);
			else
				snprintf(name, sizeof(name), "%s", full);
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%s %s %s", i ? "," : "",
				      name, op_percent_text(pb, sizeof(pb), a->ops[i].percent));
		}
		tt_wrap(o, "  ", line, 4, width);
	}
	if (!v->nfindings) {
		strbuf_puts(o, "  findings: none\n");
		return;
	}
	strbuf_puts(o, "  findings:\n");
	for (i = 0; i < v->nfindings; i++)
		tt_wrap(o, "  ! ", v->findings[i].text, 4, width);
}
