/*
 * report_json: the --json form of the report. Times are integer picoseconds
 * in the file's own time base; schema in README.md.
 */
#include <inttypes.h>
#include <string.h>

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

static void jnum(struct strbuf *o, double v)
{
	/* JSON has no NaN/Inf: such values print as null. */
	if (v != v || v > 1e308 || v < -1e308)
		strbuf_puts(o, "null");
	else
		strbuf_addf(o, "%.17g", v);
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
		strbuf_addf(o, ",\"bytes\":%zu,\"gzip\":%s,\"events\":%zu,\"hostnames\":[",
			    host->src.size, host->src.gzipped ? "true" : "false", host->nev);
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

void report_json(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *ro)
{
	size_t i, k;

	(void)ro;
	strbuf_addf(o, "{\"events\":%zu,", t->nev);
	hosts_json(o, t);
	strbuf_addf(o, ",\"busy_ps\":%" PRId64 ",\"ops\":[", a->busy_ps);
	for (i = 0; i < a->nops; i++) {
		const struct xt_op_row *r = &a->ops[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "name", r->name, 1);
		jfield(o, "program", r->program, 0);
		jfield(o, "category", r->category, 0);
		strbuf_addf(o, ",\"occurrences\":%" PRIu64 ",\"self_ps\":%" PRId64
			       ",\"total_ps\":%" PRId64 ",\"avg_ps\":%" PRId64 ",\"percent\":",
			    r->occurrences, r->self_ps, r->total_ps,
			    r->occurrences ? r->total_ps / (int64_t)r->occurrences : 0);
		jnum(o, r->percent);
		strbuf_puts(o, ",\"flops\":");
		if (r->has_flops)
			jnum(o, r->flops);
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"bytes_accessed\":");
		if (r->has_bytes)
			jnum(o, r->bytes_accessed);
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"flops_per_s\":");
		if (r->has_flops && r->total_ps > 0)
			jnum(o, r->flops / ((double)r->total_ps * 1e-12));
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, ",\"bytes_per_s\":");
		if (r->has_bytes && r->total_ps > 0)
			jnum(o, r->bytes_accessed / ((double)r->total_ps * 1e-12));
		else
			strbuf_puts(o, "null");
		strbuf_puts(o, "}");
	}
	strbuf_puts(o, "],\"devices\":[");
	for (i = 0; i < a->ndevices; i++) {
		const struct xt_device_row *d = &a->devices[i];
		static const char *const kinds[] = { "other", "xla", "gpu" };

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "host", d->host, 1);
		jfield(o, "name", d->name, 0);
		strbuf_addf(o, ",\"kind\":\"%s\",\"busy_ps\":%" PRId64 ",\"span_ps\":%" PRId64
			       ",\"start_ps\":%" PRId64 ",\"op_events\":%" PRIu64 ",\"idle_percent\":",
			    kinds[d->kind], d->busy_ps, d->span_ps, d->first_ps, d->op_events);
		jnum(o, d->idle_percent);
		strbuf_puts(o, "}");
	}
	strbuf_addf(o, "],\"steps_source\":\"%s\",\"steps\":[",
		    a->nsteps ? (a->steps_from_device ? "device" : "host") : "none");
	for (i = 0; i < a->nsteps; i++) {
		const struct xt_step_row *s = &a->steps[i];

		strbuf_addf(o, "%s{\"id\":%" PRId64 ",\"start_ps\":%" PRId64 ",\"duration_ps\":%" PRId64,
			    i ? "," : "", s->id, s->start_ps, s->duration_ps);
		for (k = 0; k < XT_CAT_COUNT; k++)
			strbuf_addf(o, ",\"%s_ps\":%" PRId64, xt_step_cat_names[k], s->cat_ps[k]);
		strbuf_addf(o, ",\"idle_ps\":%" PRId64 "}", s->idle_ps);
	}
	strbuf_puts(o, "],\"memory\":[");
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *m = &a->memory[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "host", m->host, 1);
		jfield(o, "allocator", m->allocator, 0);
		strbuf_addf(o, ",\"peak_bytes\":%" PRId64 ",\"peak_time_ps\":%" PRId64
			       ",\"lifetime_peak_bytes\":%" PRId64 ",\"capacity_bytes\":%" PRId64
			       ",\"events\":%" PRIu64 ",\"live_at_peak\":[",
			    m->peak_bytes, m->peak_time_ps, m->lifetime_peak_bytes, m->capacity_bytes,
			    m->events);
		for (k = 0; k < m->nlive; k++) {
			strbuf_addf(o, "%s{\"bytes\":%" PRId64 ",\"time_ps\":%" PRId64 ",", k ? "," : "",
				    m->live[k].bytes, m->live[k].time_ps);
			jfield(o, "op", m->live[k].op, 1);
			jfield(o, "shape", m->live[k].shape, 0);
			strbuf_puts(o, "}");
		}
		strbuf_puts(o, "]}");
	}
	strbuf_puts(o, "],\"kernels\":[");
	for (i = 0; i < a->nkernels; i++) {
		const struct xt_kernel_row *k2 = &a->kernels[i];

		strbuf_puts(o, i ? ",{" : "{");
		jfield(o, "name", k2->name, 1);
		jfield(o, "op", k2->op, 0);
		strbuf_addf(o, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"registers\":%" PRId64
			       ",\"shared_bytes\":%" PRId64 ",\"occupancy_percent\":",
			    k2->grid[0], k2->grid[1], k2->grid[2], k2->block[0], k2->block[1],
			    k2->block[2], k2->registers, k2->shared_bytes);
		jnum(o, k2->occupancy_percent);
		strbuf_addf(o, ",\"occurrences\":%" PRIu64 ",\"total_ps\":%" PRId64 ",\"min_ps\":%" PRId64
			       ",\"max_ps\":%" PRId64 "}",
			    k2->occurrences, k2->total_ps, k2->min_ps, k2->max_ps);
	}
	strbuf_puts(o, "]}\n");
}
