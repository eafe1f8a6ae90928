/*
 * report_json: the --json form of the report. Times are integer picoseconds
 * from the trace's origin (the earliest host's profile start); schema in
 * README.md.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../model/clock.h"
#include "diff_cmd.h"
#include "report.h"

static void jstr(struct strbuf *o, const char *s)
{
	strbuf_json_str(o, s, strlen(s));
}

static void jkey(struct strbuf *o, const char *k)
{
	jstr(o, k);
	strbuf_add(o, ":", 1);
}

/* ,"key":"value" (the comma omitted for the first field of an object). */
static void jfield(struct strbuf *o, const char *k, const char *v, int first)
{
	if (!first)
		strbuf_puts(o, ",");
	jkey(o, k);
	jstr(o, v);
}

/* ,"key":"v", or null when v is empty (not in the profile). */
static void jfield_opt(struct strbuf *o, const char *k, const char *v, int first)
{
	if (v && *v) {
		jfield(o, k, v, first);
		return;
	}
	if (!first)
		strbuf_puts(o, ",");
	jkey(o, k);
	strbuf_puts(o, "null");
}

static void jnum(struct strbuf *o, double v)
{
	/* JSON has no NaN/Inf: such values print as null. */
	if (v != v || v > 1e308 || v < -1e308)
		strbuf_puts(o, "null");
	else
		strbuf_addf(o, "%.17g", v);
}

/* Where the host sits on the trace's clock and its skew (docs/analyses.md,
 * "Several hosts"); the skew fields are null when nothing matched. */
static void clock_json(struct strbuf *o, const struct xt_trace *t, const struct xt_host *h)
{
	int has = h->skew_method != XT_SKEW_NONE;

	strbuf_addf(o, ",\"clock_offset_ps\":%" PRId64 ",\"aligned_by\":\"%s\"",
		    clock_host_offset_ps(t, h), xt_align_names[h->aligned_by]);
	if (has) {
		strbuf_addf(o, ",\"skew_ps\":%" PRId64 ",\"skew_spread_ps\":", h->skew_ps);
		if (h->skew_spread_ps < 0)
			strbuf_puts(o, "null"); /* one offset: no spread */
		else
			strbuf_addf(o, "%" PRId64, h->skew_spread_ps);
		strbuf_puts(o, ",\"skew_method\":");
		jstr(o, xt_skew_method_names[h->skew_method]);
	} else {
		strbuf_puts(o, ",\"skew_ps\":null,\"skew_spread_ps\":null,\"skew_method\":null");
	}
	strbuf_addf(o, ",\"skew_matches\":%u,\"skew_corrected\":%s", (unsigned)h->skew_matches,
		    h->skew_corrected ? "true" : "false");
}

static void hosts_json(struct strbuf *o, const struct xt_trace *t)
{
	size_t h, p, l, k;

	strbuf_puts(o, "\"hosts\":[");
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];

		strbuf_puts(o, h ? ",{" : "{");
		jfield(o, "name", host->name, 1);
		jfield(o, "file", host->path, 0);
		strbuf_addf(o,
			    ",\"bytes\":%zu,\"file_bytes\":%zu,\"gzip\":%s,\"events\":%zu,"
			    "\"profile_start_ns\":",
			    host->src.file_xspace, host->src.file_size,
			    host->src.gzipped ? "true" : "false", host->nev);
		if (host->profile_start_ns)
			strbuf_addf(o, "%" PRIu64, host->profile_start_ns);
		else
			strbuf_puts(o, "null");
		strbuf_addf(o, ",\"time_origin\":\"%s\"",
			    host->origin_kind == XT_ORIGIN_TASK_ENV	 ? "task_environment"
			    : host->origin_kind == XT_ORIGIN_FIRST_LINE ? "first_line"
								    : "normalized");
		clock_json(o, t, host);
		strbuf_puts(o, ",\"hostnames\":[");
		for (k = 0; k < host->nhostnames; k++) {
			if (k)
				strbuf_puts(o, ",");
			jstr(o, host->hostnames[k]);
		}
		strbuf_puts(o, "],\"errors\":[");
		for (k = 0; k < host->nerrors; k++) {
			if (k)
				strbuf_puts(o, ",");
			jstr(o, host->errors[k]);
		}
		strbuf_puts(o, "],\"planes\":[");
		for (p = 0; p < host->nplanes; p++) {
			const struct xt_plane *pl = &host->planes[p];

			strbuf_puts(o, p ? ",{" : "{");
			jkey(o, "name");
			jstr(o, pl->name);
			strbuf_addf(o, ",\"id\":%" PRId64 ",\"lines\":%zu,\"events\":%zu,\"line_list\":[",
				    pl->id, pl->nlines, pl->nev);
			for (l = 0; l < pl->nlines; l++) {
				strbuf_puts(o, l ? ",{" : "{");
				jkey(o, "name");
				jstr(o, pl->lines[l].name);
				strbuf_addf(o, ",\"id\":%" PRId64 ",\"events\":%zu,\"max_depth\":%u}",
					    pl->lines[l].id, pl->lines[l].nev, pl->lines[l].max_depth);
			}
			strbuf_puts(o, "]}");
		}
		strbuf_puts(o, "]}");
	}
	strbuf_puts(o, "]");
}

/* A number, or null when absent (NAN). */
static void jopt(struct strbuf *o, const char *k, double v)
{
	strbuf_puts(o, ",");
	jkey(o, k);
	if (isnan(v))
		strbuf_puts(o, "null");
	else
		jnum(o, v);
}

/* ,"key":v, or null when !has. */
static void jint_opt(struct strbuf *o, const char *k, int64_t v, int has)
{
	strbuf_puts(o, ",");
	jkey(o, k);
	if (has)
		strbuf_addf(o, "%" PRId64, v);
	else
		strbuf_puts(o, "null");
}

/* Rows of n the JSON lists: all, unless --top asked for fewer. */
static size_t json_rows(const struct report_opts *ro, size_t n)
{
	return ro->top_given && ro->top && ro->top < n ? ro->top : n;
}

static void ops_json(struct strbuf *o, const struct xt_analysis *a, const struct report_opts *ro)
{
	static const char *const async_names[3] = { NULL, "start", "done" };
	size_t i, k, n = json_rows(ro, a->nops);

	strbuf_addf(o, ",\"ops_total\":%zu,\"ops\":[", a->nops);
	for (i = 0; i < n; i++) {
		const struct xt_op_row *r = &a->ops[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "name", r->name, 1);
		jfield(o, "program", r->program, 0);
		jfield(o, "category", r->category, 0);
		jfield(o, "attribution", xt_op_attr_names[r->attr], 0);
		jfield(o, "parent", r->parent, 0);
		strbuf_addf(o, ",\"occurrences\":%" PRIu64 ",\"self_ps\":%" PRId64
			       ",\"total_ps\":%" PRId64 ",\"avg_ps\":%" PRId64 ",\"percent\":",
			    r->occurrences, r->self_ps, r->total_ps,
			    r->occurrences ? r->total_ps / (int64_t)r->occurrences : 0);
		jnum(o, r->percent);
		jopt(o, "flops", r->has_flops ? r->flops : NAN);
		jopt(o, "bytes_accessed", r->has_bytes ? r->bytes_accessed : NAN);
		jopt(o, "hbm_bytes", r->has_bytes ? r->hbm_bytes : NAN);
		strbuf_puts(o, ",\"flops_source\":");
		if ((r->cost_src & (XT_COST_PROFILE | XT_COST_HLO)) == (XT_COST_PROFILE | XT_COST_HLO))
			jstr(o, "profile+hlo_cost_model");
		else if (r->cost_src & XT_COST_PROFILE)
			jstr(o, "profile");
		else if (r->cost_src & XT_COST_HLO)
			jstr(o, "hlo_cost_model");
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"async\":");
		if (r->async)
			jstr(o, async_names[r->async]);
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"host_copy\":");
		if (r->host_copy)
			jstr(o, r->host_copy == XT_HOST_COPY_IN ? "to_device" : "to_host");
		else
			strbuf_puts(o, "null");
		/* No time measured (an async done, a start without spans): null. */
		if (r->rate_ps > 0)
			strbuf_addf(o, ",\"rate_ps\":%" PRId64 ",\"rate_occurrences\":%" PRIu64,
				    r->rate_ps, r->rate_occurrences);
		else
			strbuf_puts(o, ",\"rate_ps\":null,\"rate_occurrences\":null");
		jopt(o, "flops_per_s", r->flops_per_s);
		jopt(o, "bytes_per_s", r->bytes_per_s);
		jopt(o, "hbm_bytes_per_s", r->hbm_bytes_per_s);
		jopt(o, "flops_utilization", r->flops_utilization);
		jopt(o, "hbm_bw_utilization", r->hbm_bw_utilization);
		jopt(o, "arithmetic_intensity", r->intensity);
		jfield(o, "bound_by", xt_bound_names[r->bound_by], 0);
		strbuf_puts(o, ",\"rate_note\":");
		if (*r->rate_note)
			jstr(o, r->rate_note);
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"kernels\":[");
		for (k = 0; k < r->nkernels; k++) {
			strbuf_puts(o, k ? ",{" : "{");
			jfield(o, "name", r->kernels[k].name, 1);
			strbuf_addf(o, ",\"occurrences\":%" PRIu64 ",\"total_ps\":%" PRId64 "}",
				    r->kernels[k].occurrences, r->kernels[k].total_ps);
		}
		strbuf_puts(o, "]}");
	}
	strbuf_puts(o, "]");
}

static void devices_json(struct strbuf *o, const struct xt_analysis *a, int64_t origin)
{
	static const char *const kinds[] = { "other", "xla", "gpu" };
	size_t i;

	strbuf_puts(o, ",\"devices\":[");
	for (i = 0; i < a->ndevices; i++) {
		const struct xt_device_row *d = &a->devices[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "host", d->host, 1);
		jfield(o, "name", d->name, 0);
		jfield_opt(o, "model", d->model, 0); /* null: the profile names none */
		/* A device with no span has no start and no idle share: null,
		 * not 0 (which would read as busy all the time). One with no
		 * events has no busy time or span either: it was idle, or not
		 * traced (busy_note), as the text's '-' says. */
		strbuf_addf(o, ",\"kind\":\"%s\"", kinds[d->kind]);
		jint_opt(o, "busy_ps", d->busy_ps, !xt_device_silent(d));
		jint_opt(o, "span_ps", d->span_ps, !xt_device_silent(d));
		jint_opt(o, "start_ps", xt_ps_sub(d->first_ps, origin), d->span_ps != 0);
		strbuf_addf(o, ",\"op_events\":%" PRIu64 ",\"idle_percent\":", d->op_events);
		jnum(o, d->idle_percent);
		jopt(o, "peak_flops_per_s", d->peak_flops);
		jopt(o, "peak_hbm_bytes_per_s", d->peak_hbm_bw);
		strbuf_puts(o, ",\"peak_source\":");
		if (*d->peak_source)
			jstr(o, d->peak_source);
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"peak_hbm_source\":");
		if (*d->peak_hbm_source)
			jstr(o, d->peak_hbm_source);
		else
			strbuf_puts(o, "null");
		/* The overview's facts; null where the device has none, or no
		 * span for its idle time to lie in, or (host-bound time) no
		 * host activity (the text says '-'). */
		jint_opt(o, "host_bound_ps", d->host_bound_ps, xt_device_host_bound_known(d));
		jint_opt(o, "longest_gap_ps", d->longest_gap_ps, xt_device_has_gaps(d));
		jint_opt(o, "longest_gap_start_ps", xt_ps_sub(d->longest_gap_start_ps, origin),
			 d->has_overview && d->longest_gap_ps > 0);
		jint_opt(o, "gaps_over_1ms", (int64_t)d->gaps_over_1ms, xt_device_has_gaps(d));
		jint_opt(o, "kernels", (int64_t)d->kernels, d->has_kernels);
		jint_opt(o, "small_kernels", (int64_t)d->small_kernels, d->has_kernels);
		jint_opt(o, "small_kernel_ps", d->small_kernel_ps, d->has_kernels);
		strbuf_puts(o, ",\"busy_note\":");
		if (xt_device_silent(d))
			jstr(o, "no events from this device in the profile: idle, or not traced");
		else if (!d->span_ps)
			jstr(o, "only instant events: no span, no idle share");
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, "}");
	}
	strbuf_puts(o, "]");
}

static void overview_json(struct strbuf *o, const struct xt_analysis *a)
{
	const struct xt_overview *v = &a->overview;
	size_t i, k;

	strbuf_puts(o, ",\"overview\":{\"steps\":");
	if (v->has_steps) {
		strbuf_addf(o, "{\"count\":%zu,\"mean_ps\":", a->nsteps);
		jnum(o, v->step_mean_ps);
		strbuf_addf(o, ",\"p50_ps\":%" PRId64 ",\"p95_ps\":%" PRId64 ",\"min_ps\":%" PRId64
			       ",\"max_ps\":%" PRId64 "}",
			    v->step_p50_ps, v->step_p95_ps, v->step_min_ps, v->step_max_ps);
	} else {
		strbuf_puts(o, "null");
	}
	/* Host-bound time needs an XLA or GPU device with a span for idle
	 * time to lie in, and its host's activity (xt_device_host_bound_known):
	 * with none (no device events, only instants, no host events), it is
	 * unknown, not 0. */
	for (k = 0; k < a->ndevices && !xt_device_host_bound_known(&a->devices[k]); k++)
		;
	jint_opt(o, "host_bound_ps", v->host_bound_ps, k < a->ndevices);
	strbuf_puts(o, ",\"host_bound_device\":");
	if (v->host_bound_device)
		jstr(o, v->host_bound_device);
	else
		strbuf_puts(o, "null");
	/* Its host: two hosts each have a /device:GPU:6. */
	strbuf_puts(o, ",\"host_bound_host\":");
	if (v->host_bound_device && v->host_bound_host)
		jstr(o, v->host_bound_host);
	else
		strbuf_puts(o, "null");
	strbuf_addf(o, ",\"compile_ps\":%" PRId64 ",\"compiles\":%" PRIu64
		       ",\"collective_ps\":%" PRId64,
		    v->compile_ps, v->compiles, v->collective_ps);
	jopt(o, "collective_percent", v->collective_percent);
	/* Without steps there is no step time to sum over: null, not 0. */
	jint_opt(o, "h2d_in_steps_ps", v->h2d_in_steps_ps, v->has_steps);
	jopt(o, "h2d_in_steps_percent", v->h2d_in_steps_percent);
	jint_opt(o, "d2h_in_steps_ps", v->d2h_in_steps_ps, v->has_steps);
	jopt(o, "d2h_in_steps_percent", v->d2h_in_steps_percent);
	strbuf_puts(o, ",\"top_ops\":[");
	for (i = 0; i < a->nops && i < 5; i++) {
		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "name", a->ops[i].name, 1);
		jfield(o, "program", a->ops[i].program, 0);
		strbuf_addf(o, ",\"self_ps\":%" PRId64 ",\"percent\":", a->ops[i].self_ps);
		jnum(o, a->ops[i].percent);
		strbuf_puts(o, "}");
	}
	strbuf_puts(o, "],\"findings\":[");
	for (i = 0; i < v->nfindings; i++) {
		const struct xt_finding *f = &v->findings[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "id", f->id, 1);
		jfield(o, "text", f->text, 0);
		strbuf_puts(o, ",\"numbers\":{");
		for (k = 0; k < f->nnum; k++) {
			if (f->num[k].str)
				jfield(o, f->num[k].key, f->num[k].str, k == 0);
			else {
				if (k)
					strbuf_puts(o, ",");
				jkey(o, f->num[k].key);
				jnum(o, f->num[k].value);
			}
		}
		strbuf_puts(o, "}}");
	}
	strbuf_puts(o, "]}");
}

static void steps_json(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		       int64_t origin)
{
	size_t i, k;
	int host_known = analysis_host_active(a);

	strbuf_addf(o, ",\"steps_source\":\"%s\",\"steps_module\":",
		    xt_steps_source_names[a->steps_source]);
	if (a->steps_module[0])
		jstr(o, a->steps_module);
	else
		strbuf_puts(o, "null");
	/* A profile can hold a hundred thousand steps: numbers without printf,
	 * keys without measuring them. */
	char ckey[XT_CAT_COUNT][40];
	size_t cn[XT_CAT_COUNT];

	for (k = 0; k < XT_CAT_COUNT; k++) {
		int w = snprintf(ckey[k], sizeof(ckey[k]), ",\"%s_ps\":", xt_step_cat_names[k]);

		cn[k] = w > 0 && (size_t)w < sizeof(ckey[k]) ? (size_t)w : 0;
	}
	strbuf_lit(o, ",\"steps\":[");
	for (i = 0; i < a->nsteps; i++) {
		const struct xt_step_row *s = &a->steps[i];

		if (i)
			strbuf_lit(o, ",");
		strbuf_lit(o, "{\"id\":");
		strbuf_add_i64(o, s->id);
		strbuf_lit(o, ",\"start_ps\":");
		strbuf_add_i64(o, xt_ps_sub(s->start_ps, origin));
		strbuf_lit(o, ",\"duration_ps\":");
		strbuf_add_i64(o, s->duration_ps);
		for (k = 0; k < XT_CAT_COUNT; k++) {
			strbuf_add(o, ckey[k], cn[k]);
			if (k == XT_CAT_HOST_COMPUTE && !host_known)
				strbuf_lit(o, "null"); /* no host activity: unknown */
			else
				strbuf_add_i64(o, s->cat_ps[k]);
		}
		strbuf_lit(o, ",\"idle_ps\":");
		strbuf_add_i64(o, s->idle_ps);
		/* The device whose marker or run it is (its breakdown's). */
		if (s->dev_host >= 0 && (size_t)s->dev_host < t->nhosts &&
		    (size_t)s->dev_plane < t->hosts[s->dev_host].nplanes) {
			const struct xt_host *h = &t->hosts[s->dev_host];

			jfield(o, "device", h->planes[s->dev_plane].name, 0);
			jfield(o, "device_host", h->name, 0);
		} else {
			strbuf_lit(o, ",\"device\":null,\"device_host\":null");
		}
		strbuf_lit(o, "}");
	}
	strbuf_lit(o, "]");
}

static void memory_json(struct strbuf *o, const struct xt_analysis *a, int64_t origin)
{
	size_t i, k;

	strbuf_puts(o, ",\"memory\":[");
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *m = &a->memory[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "host", m->host, 1);
		jfield(o, "allocator", m->allocator, 0);
		jfield(o, "name", m->name, 0);
		strbuf_addf(o, ",\"peak_bytes\":%" PRId64 ",\"peak_time_ps\":%" PRId64
			       ",\"reserved_bytes\":%" PRId64 ",\"live_other_bytes\":%" PRId64
			       ",\"unattributed_bytes\":%" PRId64 ",\"live_count\":%zu"
			       ",\"lifetime_peak_bytes\":%" PRId64
			       ",\"allocator_lifetime_peak_bytes\":%" PRId64 ",\"capacity_bytes\":%" PRId64
			       ",\"events\":%" PRIu64 ",\"live_at_peak\":[",
			    m->peak_bytes, xt_ps_sub(m->peak_time_ps, origin), m->reserved_bytes,
			    m->live_other_bytes, m->unattributed_bytes, m->nlive_total,
			    m->lifetime_peak_bytes, m->allocator_lifetime_peak, m->capacity_bytes,
			    m->events);
		for (k = 0; k < m->nlive; k++) {
			strbuf_addf(o, "%s{\"bytes\":%" PRId64 ",\"time_ps\":%" PRId64 ",", k ? "," : "",
				    m->live[k].bytes, xt_ps_sub(m->live[k].time_ps, origin));
			jfield_opt(o, "op", m->live[k].op, 1);
			jfield_opt(o, "shape", m->live[k].shape, 0);
			strbuf_puts(o, "}");
		}
		strbuf_puts(o, "]}");
	}
	strbuf_puts(o, "]");
}

static void kernels_json(struct strbuf *o, const struct xt_analysis *a,
			 const struct report_opts *ro)
{
	size_t i, n = json_rows(ro, a->nkernels);

	strbuf_addf(o, ",\"kernels_total\":%zu,\"kernels\":[", a->nkernels);
	for (i = 0; i < n; i++) {
		const struct xt_kernel_row *k2 = &a->kernels[i];
		char note[256];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "name", k2->name, 1);
		jfield(o, "op", k2->op, 0);
		jfield(o, "program", k2->program, 0);
		strbuf_addf(o, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", k2->grid[0], k2->grid[1],
			    k2->grid[2], k2->block[0], k2->block[1], k2->block[2]);
		jopt(o, "registers", k2->registers >= 0 ? (double)k2->registers : NAN);
		jint_opt(o, "shared_bytes", k2->shared_bytes, k2->shared_bytes >= 0);
		jopt(o, "occupancy_percent", k2->occupancy_percent);
		/* Every null says why (docs/analyses.md, "Kernel stats"). */
		jfield_opt(o, "detail_note", analysis_kernel_note(k2, note, sizeof(note)), 0);
		strbuf_addf(o, ",\"occurrences\":%" PRIu64 ",\"total_ps\":%" PRId64 ",\"min_ps\":%" PRId64
			       ",\"max_ps\":%" PRId64 "}",
			    k2->occurrences, k2->total_ps, k2->min_ps, k2->max_ps);
	}
	strbuf_puts(o, "]");
}

void report_json(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *ro)
{
	int64_t origin = a->origin_ps;

	strbuf_addf(o, "{\"events\":%zu,\"time_base\":\"profile_start\",", t->nev);
	hosts_json(o, t);
	/* The run read, where the path holds several (null otherwise). */
	strbuf_puts(o, ",\"run\":");
	if (ro->run_name)
		strbuf_json_str(o, ro->run_name, strlen(ro->run_name));
	else
		strbuf_puts(o, "null");
	jint_opt(o, "busy_ps", a->busy_ps, analysis_has_device_time(a));
	strbuf_addf(o, ",\"hlo_programs\":%zu", a->hlo_programs);
	overview_json(o, a);
	ops_json(o, a, ro);
	devices_json(o, a, origin);
	steps_json(o, t, a, origin);
	memory_json(o, a, origin);
	kernels_json(o, a, ro);
	if (ro->cmp) {
		strbuf_puts(o, ",\"baseline\":");
		strbuf_json_str(o, ro->baseline, strlen(ro->baseline));
		strbuf_puts(o, ",\"comparison\":");
		/* --top N cuts its op list as diff --json --top N does. */
		diff_json(o, ro->cmp, ro->top_given ? ro->top : 0);
	}
	if (ro->gate) {
		strbuf_puts(o, ",\"gate\":");
		diff_gate_json(o, ro->reg, ro->nreg, ro->fail_over);
	}
	strbuf_puts(o, "}\n");
}
