/*
 * bench_window: how fast the model answers the timeline's question "which
 * events of this line overlap [t0, t1)?" on a loaded profile. Reports load
 * time and, per window width, the mean time of one query and of one full
 * frame (a query on every line), which must stay far below 16 ms.
 *   build/bench_window FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/model/trace.h"
#include "../src/model/xplane_reader.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct xt_trace *t = trace_new();
	struct xt_error err;
	struct xplane_load_opts lo = { 0 };
	double t0, t1;
	int64_t lo_ps = INT64_MAX, hi_ps = INT64_MIN;
	size_t p, l, nlines = 0;
	static const double fracs[] = { 1.0, 1e-2, 1e-4, 1e-6 };
	size_t f;
	unsigned seed = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_window FILE\n");
		return 2;
	}
	t0 = now_s();
	if (xplane_load(t, argv[1], "bench", &lo, &err) < 0) {
		fprintf(stderr, "bench_window: %s\n", err.msg);
		return 2;
	}
	t1 = now_s();
	for (p = 0; p < t->hosts[0].nplanes; p++) {
		const struct xt_plane *pl = &t->hosts[0].planes[p];

		for (l = 0; l < pl->nlines; l++) {
			const struct xt_line *ln = &pl->lines[l];

			if (!ln->nev || xt_event_aggregated(&ln->ev[0]))
				continue;
			nlines++;
			if (xt_event_start(ln, &ln->ev[0]) < lo_ps)
				lo_ps = xt_event_start(ln, &ln->ev[0]);
			if (ln->timestamp_ns * 1000 + ln->blk_maxend[(ln->nev - 1) / XT_BLOCK] > hi_ps)
				hi_ps = ln->timestamp_ns * 1000 + ln->blk_maxend[(ln->nev - 1) / XT_BLOCK];
		}
	}
	printf("load (model only, no analyses): %.3f s, %zu events, %zu lines with events\n",
	       t1 - t0, t->nev, nlines);
	printf("%-14s %14s %16s %16s\n", "WINDOW", "QUERIES", "US_PER_QUERY", "MS_PER_FRAME");
	for (f = 0; f < sizeof(fracs) / sizeof(fracs[0]); f++) {
		int64_t width = (int64_t)((double)(hi_ps - lo_ps) * fracs[f]);
		size_t q = 0, frames = 0, hits = 0;
		double s = now_s(), e;

		if (width < 1)
			width = 1;
		do {
			/* One frame: a window at a random place, asked of every line. */
			int64_t a = lo_ps + (int64_t)((double)rand_r(&seed) / RAND_MAX *
						      (double)(hi_ps - lo_ps - width));

			for (p = 0; p < t->hosts[0].nplanes; p++) {
				const struct xt_plane *pl = &t->hosts[0].planes[p];

				for (l = 0; l < pl->nlines; l++) {
					size_t first, end = trace_line_window(&pl->lines[l], a, a + width,
									      &first);

					hits += end - first > 0;
					q++;
				}
			}
			frames++;
			e = now_s();
		} while (e - s < 0.5);
		printf("%-13gx %14zu %16.3f %16.4f\n", fracs[f], q, (e - s) / (double)q * 1e6,
		       (e - s) / (double)frames * 1e3);
		(void)hits;
	}
	trace_free(t);
	return 0;
}
