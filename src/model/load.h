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
	/* The caller reads the analyses and the trace's hosts, planes and
	 * lines, never a host line's events (a report): a profile of one
	 * host file keeps none of them (analysis_keep_none). */
	int analyses_only;
	/* Optional progress, readable from another thread while loading:
	 * bytes_total is set first, then bytes_done and events grow. */
	_Atomic uint64_t *bytes_total, *bytes_done, *events;
	/* Optional, out: the run that was read, as the scan that chose it
	 * saw it (a second scan could see a run written since). */
	struct load_picked *picked;
};

struct load_picked {
	char *run;    /* owned (free()); the run's name, NULL on failure */
	size_t nruns; /* runs the path held */
};

/*
 * Loads every host file of the chosen run into a new trace and computes its
 * analysis. On success returns 0 and sets *out_t (free with trace_free())
 * and *out_a (free with analysis_free()). On failure returns a negative
 * XT_E* with one line in err; nothing is left allocated.
 */
int load_profile(const char *path, const struct load_opts *o, struct xt_trace **out_t,
		 struct xt_analysis **out_a, struct xt_error *err);

/*
 * The same in a thread, for a viewer that draws the timeline while the
 * profile loads: hosts and lines join the job's trace as they are decoded
 * (trace.h, struct xt_live), then the analyses are merged.
 */
struct load_job;
/* Starts loading path (o's progress pointers are the job's own). Never NULL. */
struct load_job *load_job_start(const char *path, const struct load_opts *o);
/* Until load_job_finish(), the job's trace may be read only while the job
 * is locked, and only its lines that are not marked loading. */
void load_job_lock(struct load_job *j);
void load_job_unlock(struct load_job *j);
/* Locked: the trace shown so far (another one when a load starts over),
 * and *version, which changes whenever the trace does. */
struct xt_trace *load_job_trace(struct load_job *j, unsigned *version);
/* Any time: the share of bytes decoded (0-1); *phase 0 while decoding,
 * 1 while the analyses are merged; *events decoded so far. */
double load_job_progress(const struct load_job *j, int *phase, uint64_t *events);
/* Any time: 1 once the load has ended, successfully or not. */
int load_job_done(const struct load_job *j);
/* Any time: asks the job to stop soon (it then ends with XT_ECANCEL, unless
 * it was merging the analyses already). */
void load_job_cancel(struct load_job *j);
/* Waits for the job and frees it; returns what load_profile() would,
 * with *t and *a. On failure the trace shown so far is freed too. */
int load_job_finish(struct load_job *j, struct xt_trace **t, struct xt_analysis **a,
		    struct xt_error *err);

#endif
