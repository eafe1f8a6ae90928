/*
 * bench_shape: the shape of profiles side by side, to check that what
 * xtop-gen writes looks like what real runtimes write (docs/performance.md,
 * "Shape"). For each file: planes and lines, where the events are (device
 * planes, the host plane), stats per event, bytes per event, name lengths,
 * nesting depth and lines per plane. Reads each file with the model's own
 * reader (no analyses).
 *   build/bench_shape FILE [FILE...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/stats.h"
#include "../src/model/trace.h"
#include "../src/model/xplane_reader.h"

enum { PART_DEVICE, PART_HOST, PART_OTHER, NPART };

struct part {
	uint64_t planes, lines, events, nested, stats, ev_bytes, name_len, disp_len;
	uint64_t stat_str, stat_ref, stat_num;
	uint64_t depth_sum, depth_max;
	uint64_t busy_lines; /* lines with events */
	uint64_t long_dur;   /* durations of 2^32 ps (4.3 ms) or more */
};

struct shape {
	const char *path;
	uint64_t size, planes, lines, events, emeta, meta_bytes;
	struct part part[NPART];
};

static int part_of(const char *plane)
{
	if (!strncmp(plane, "/device:", 8))
		return PART_DEVICE;
	if (!strcmp(plane, "/host:CPU"))
		return PART_HOST;
	return PART_OTHER;
}

static int shape_of(const char *path, struct shape *sh)
{
	struct xt_trace *t = trace_new();
	struct xplane_load_opts lo = { 0 };
	struct xt_error err;
	size_t h, p, l, i;

	memset(sh, 0, sizeof(*sh));
	sh->path = path;
	lo.keep_resident = 1;
	if (xplane_load(t, path, "shape", &lo, &err) < 0) {
		fprintf(stderr, "bench_shape: %s\n", err.msg);
		trace_free(t);
		return -1;
	}
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];

		sh->size += host->src.size;
		for (p = 0; p < host->nplanes; p++) {
			const struct xt_plane *pl = &host->planes[p];
			struct part *pt = &sh->part[part_of(pl->name)];
			uint64_t line_bytes = 0;

			sh->planes++;
			sh->emeta += pl->nemeta - 1;
			pt->planes++;
			pt->lines += pl->nlines;
			for (l = 0; l < pl->nlines; l++) {
				const struct xt_line *ln = &pl->lines[l];

				line_bytes += ln->raw_len;
				sh->lines++;
				pt->busy_lines += ln->nev > 0;
				for (i = 0; i < ln->nev; i++) {
					const struct xt_event *ev = &ln->ev[i];
					const struct xt_event_meta *m = xt_event_meta(pl, ev);
					struct stat_iter it;
					struct xt_stat s;
					size_t n;
					unsigned d = xt_event_depth(ev);

					(void)trace_event_bytes(host, ln, ev, &n);
					pt->events++;
					pt->ev_bytes += n;
					pt->name_len += strlen(m->name);
					pt->disp_len += strlen(trace_event_display_name(pl, ev));
					pt->nested += d > 0;
					pt->long_dur += ev->dur == XT_DUR_LONG;
					pt->depth_sum += d;
					if (d > pt->depth_max)
						pt->depth_max = d;
					stat_iter_event(&it, host, pl, ln, ev);
					while (stat_next(&it, &s)) {
						pt->stats++;
						if (s.kind == XT_STAT_STR || s.kind == XT_STAT_BYTES)
							pt->stat_str++;
						else if (s.kind == XT_STAT_REF)
							pt->stat_ref++;
						else
							pt->stat_num++;
					}
				}
			}
			/* What the plane holds besides its lines: metadata, stats. */
			sh->meta_bytes += pl->raw_len - line_bytes;
		}
	}
	sh->events = t->nev;
	trace_free(t);
	return 0;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void row(const char *name, const struct shape *v, size_t n,
		double (*f)(const struct shape *, int), int part, const char *fmt)
{
	size_t i;

	printf("%-34s", name);
	for (i = 0; i < n; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), fmt, f(&v[i], part));
		printf(" %14s", buf);
	}
	printf("\n");
}

static double f_size(const struct shape *s, int p) { (void)p; return (double)s->size / 1e6; }
static double f_planes(const struct shape *s, int p) { (void)p; return (double)s->planes; }
static double f_events(const struct shape *s, int p) { (void)p; return (double)s->events; }
static double f_meta(const struct shape *s, int p) { (void)p; return 100.0 * ratio(s->meta_bytes, s->size); }
static double f_emeta(const struct shape *s, int p) { (void)p; return (double)s->emeta; }
static double f_share(const struct shape *s, int p) { return 100.0 * ratio(s->part[p].events, s->events); }
static double f_pplanes(const struct shape *s, int p) { return (double)s->part[p].planes; }
static double f_lpp(const struct shape *s, int p) { return ratio(s->part[p].lines, s->part[p].planes); }
static double f_busy(const struct shape *s, int p) { return (double)s->part[p].busy_lines; }
static double f_spe(const struct shape *s, int p) { return ratio(s->part[p].stats, s->part[p].events); }
static double f_strs(const struct shape *s, int p) { return 100.0 * ratio(s->part[p].stat_str, s->part[p].stats); }
static double f_refs(const struct shape *s, int p) { return 100.0 * ratio(s->part[p].stat_ref, s->part[p].stats); }
static double f_bpe(const struct shape *s, int p) { return ratio(s->part[p].ev_bytes, s->part[p].events); }
static double f_name(const struct shape *s, int p) { return ratio(s->part[p].name_len, s->part[p].events); }
static double f_disp(const struct shape *s, int p) { return ratio(s->part[p].disp_len, s->part[p].events); }
static double f_nested(const struct shape *s, int p) { return 100.0 * ratio(s->part[p].nested, s->part[p].events); }
static double f_long(const struct shape *s, int p) { return 100.0 * ratio(s->part[p].long_dur, s->part[p].events); }
static double f_depth(const struct shape *s, int p) { return ratio(s->part[p].depth_sum, s->part[p].events); }
static double f_dmax(const struct shape *s, int p) { return (double)s->part[p].depth_max; }

int main(int argc, char **argv)
{
	static const char *const parts[NPART] = { "device planes", "host plane (/host:CPU)",
						  "other planes" };
	struct shape *v;
	int i, n = argc - 1, p;

	if (n < 1) {
		fprintf(stderr, "usage: bench_shape FILE [FILE...]\n");
		return 2;
	}
	v = calloc((size_t)n, sizeof(*v));
	for (i = 0; i < n; i++)
		if (shape_of(argv[i + 1], &v[i]) < 0)
			return 2;
	printf("%-34s", "");
	for (i = 0; i < n; i++) {
		const char *b = strrchr(v[i].path, '/');

		printf(" %14.14s", b ? b + 1 : v[i].path);
	}
	printf("\n");
	row("size, MB", v, (size_t)n, f_size, 0, "%.1f");
	row("planes", v, (size_t)n, f_planes, 0, "%.0f");
	row("events", v, (size_t)n, f_events, 0, "%.0f");
	row("event metadata entries", v, (size_t)n, f_emeta, 0, "%.0f");
	row("bytes outside lines, %", v, (size_t)n, f_meta, 0, "%.1f");
	for (p = 0; p < NPART; p++) {
		printf("%s\n", parts[p]);
		row("  planes", v, (size_t)n, f_pplanes, p, "%.0f");
		row("  lines per plane", v, (size_t)n, f_lpp, p, "%.1f");
		row("  lines with events", v, (size_t)n, f_busy, p, "%.0f");
		row("  share of events, %", v, (size_t)n, f_share, p, "%.1f");
		row("  stats per event", v, (size_t)n, f_spe, p, "%.2f");
		row("  strings among stats, %", v, (size_t)n, f_strs, p, "%.1f");
		row("  refs among stats, %", v, (size_t)n, f_refs, p, "%.1f");
		row("  bytes per event", v, (size_t)n, f_bpe, p, "%.1f");
		row("  name length (per event)", v, (size_t)n, f_name, p, "%.1f");
		row("  display name length", v, (size_t)n, f_disp, p, "%.1f");
		row("  nested events, %", v, (size_t)n, f_nested, p, "%.1f");
		row("  durations >= 4.3 ms, %", v, (size_t)n, f_long, p, "%.2f");
		row("  mean depth", v, (size_t)n, f_depth, p, "%.2f");
		row("  max depth", v, (size_t)n, f_dmax, p, "%.0f");
	}
	free(v);
	return 0;
}
