/* load: see load.h. */
#include "load.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "profile_path.h"
#include "xplane_reader.h"

int load_profile(const char *path, const struct load_opts *o, struct xt_trace **out_t,
		 struct xt_analysis **out_a, struct xt_error *err)
{
	struct profile_set set;
	const struct profile_run *run;
	struct xt_trace *t;
	struct analysis_ctx *ac;
	struct xplane_load_opts lo = { 0 };
	struct timespec ts0, ts1;
	size_t i;
	int rc;

	*out_t = NULL;
	*out_a = NULL;
	rc = profile_scan(&set, path, err);
	if (rc < 0)
		return rc;
	run = profile_pick(&set, o ? o->run : NULL, path, err);
	if (!run) {
		profile_set_fini(&set);
		return XT_ENOENT;
	}
again:
	t = trace_new();
	ac = analysis_new();
	analysis_attach(ac, &lo);
	lo.threads = o ? o->threads : 0;
	lo.keep_resident = o ? o->keep_resident : 0;
	if (o) {
		lo.progress_bytes = o->bytes_done;
		lo.progress_events = o->events;
	}
	if (o && o->bytes_total) {
		uint64_t total = 0;

		for (i = 0; i < run->nfiles; i++)
			total += run->files[i].size;
		atomic_store(o->bytes_total, total);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	for (i = 0; i < run->nfiles; i++) {
		rc = xplane_load(t, run->files[i].path, run->files[i].host, &lo, err);
		if (rc < 0) {
			analysis_abort(ac, t);
			trace_free(t);
			if (rc == XT_ERETRY && !lo.exact_peek) {
				/* A file wrote a line's timestamp after its events:
				 * everything again, reading each line to its end to
				 * choose the time base (xplane_load_opts). */
				lo.exact_peek = 1;
				if (o && o->bytes_done)
					atomic_store(o->bytes_done, 0);
				if (o && o->events)
					atomic_store(o->events, 0);
				goto again;
			}
			profile_set_fini(&set);
			return rc;
		}
	}
	profile_set_fini(&set);
	if (getenv("XTOP_TIMING")) {
		clock_gettime(CLOCK_MONOTONIC, &ts1);
		fprintf(stderr, "xtop: decode + line analyses: %.3f s\n",
			(double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9);
	}
	*out_a = analysis_finish(ac, t);
	*out_t = t;
	return 0;
}
