/*
 * load: opens whatever a PATH names (profile_path) as one trace with its
 * analyses computed during the load. The single entry point for the report,
 * and later the viewer and capture.
 */
#ifndef XT_LOAD_H
#define XT_LOAD_H

#include <stdatomic.h>
#include <stdint.h>

#include "../util/error.h"
#include "analysis.h"
#include "trace.h"

struct load_opts {
	const char *run;   /* run name in a logdir; NULL = newest */
	int threads;       /* 0 = online CPUs */
	int keep_resident; /* do not drop parsed pages */
	/* Optional progress, readable from another thread while loading:
	 * bytes_total is set first, then bytes_done and events grow. */
	_Atomic uint64_t *bytes_total, *bytes_done, *events;
};

/*
 * Loads every host file of the chosen run into a new trace and computes its
 * analysis. On success returns 0 and sets *out_t (free with trace_free())
 * and *out_a (free with analysis_free()). On failure returns a negative
 * XT_E* with one line in err; nothing is left allocated.
 */
int load_profile(const char *path, const struct load_opts *o, struct xt_trace **out_t,
		 struct xt_analysis **out_a, struct xt_error *err);

#endif
