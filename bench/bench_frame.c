/*
 * bench_frame: time to draw one timeline frame with the viewer's own
 * drawing code (curses writing to /dev/null), on a loaded profile, at zoom
 * levels from the whole profile down to a millionth of it, with and without
 * the details pane. The target is 16 ms per frame.
 *   build/bench_frame FILE [ROWSxCOLS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/model/load.h"
#include "../src/ui/app.h"
#include "../src/ui/term.h"
#include "../src/util/xalloc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct app a;
	struct load_opts lo = { 0 };
	struct xt_error err;
	int rows = 50, cols = 200, z, det;
	double t0;
	static const double fr[] = { 1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6 };

	if (argc < 2) {
		fprintf(stderr, "usage: bench_frame FILE [ROWSxCOLS]\n");
		return 2;
	}
	if (argc > 2 && sscanf(argv[2], "%dx%d", &rows, &cols) != 2) {
		fprintf(stderr, "bench_frame: size is ROWSxCOLS\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.path = argv[1];
	t0 = now_s();
	if (load_profile(argv[1], &lo, &a.t, &a.an, &err) < 0) {
		fprintf(stderr, "bench_frame: %s\n", err.msg);
		return 2;
	}
	printf("load + analyses: %.3f s, %zu events\n", now_s() - t0, a.t->nev);
	a.tl = timeline_new(a.t);
	a.tls.folded = xcalloc(a.tl->ntracks ? a.tl->ntracks : 1, 1);
	a.tls.sel_track = -1;
	a.tls.sel_ev = -1;
	a.match = -1;
	if (term_init_headless(rows, cols) < 0) {
		fprintf(stderr, "bench_frame: cannot start curses\n");
		return 2;
	}
	a.rows = rows;
	a.cols = cols;
	/* The first frame builds the per-depth indexes of visible tracks. */
	a.tls.v0 = a.tl->t0;
	a.tls.v1 = a.tl->t1;
	t0 = now_s();
	erase();
	view_timeline.draw(&a, 1, rows - 2);
	refresh();
	fprintf(stderr, "%dx%d screen, first frame (builds indexes): %.1f ms\n", rows, cols,
		(now_s() - t0) * 1e3);
	printf("%-12s %-8s %10s %10s %10s %10s\n", "ZOOM", "DETAILS", "FRAMES", "MS_MEAN", "MS_MAX",
	       "OVER_16MS");
	for (det = 0; det < 2; det++) {
		for (z = 0; z < (int)(sizeof(fr) / sizeof(fr[0])); z++) {
			int64_t span = (int64_t)((double)(a.tl->t1 - a.tl->t0) * fr[z]);
			double s = now_s(), mx = 0, e;
			int n = 0, over = 0;
			unsigned seed = 7;

			if (span < 10)
				span = 10;
			a.tls.details = det;
			do {
				double f0 = now_s(), f1;

				/* A random place each frame: panning and zooming. */
				a.tls.v0 = a.tl->t0 + (int64_t)((double)rand_r(&seed) / RAND_MAX *
								 (double)(a.tl->t1 - a.tl->t0 - span));
				a.tls.v1 = a.tls.v0 + span;
				if (det) {
					a.tls.sel_track = (long)(a.tl->ntracks / 2);
					a.tls.sel_ev = a.tl->tracks[a.tls.sel_track].l->nev / 2;
					if (!a.tl->tracks[a.tls.sel_track].l->nev)
						a.tls.sel_ev = -1;
				}
				erase();
				view_timeline.draw(&a, 1, rows - 2);
				refresh();
				f1 = now_s();
				if (f1 - f0 > mx)
					mx = f1 - f0;
				over += f1 - f0 > 0.016;
				n++;
				e = now_s();
			} while (e - s < 1.0 && n < 2000);
			printf("%-12g %-8s %10d %10.3f %10.3f %10d\n", fr[z], det ? "yes" : "no", n,
			       (e - s) / n * 1e3, mx * 1e3, over);
		}
	}
	term_fini();
	return 0;
}
