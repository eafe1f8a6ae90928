/*
 * clock: puts the hosts of one trace on one clock (docs/analyses.md,
 * "Time base" and "Several hosts").
 *
 * Two steps. When a host is read, clock_host_base() decides its time base
 * before any of its lines is decoded: upstream writes line timestamps
 * relative to each host's own profile start, so such a host is shifted by
 * its Task Environment start minus the trace's reference start; hosts on an
 * absolute clock share one rebasing. The shift goes into the host's
 * ts_base_ns, which the reader subtracts from every line timestamp, so
 * placing a host costs nothing per event.
 *
 * Once every host is read, clock_settle() estimates each host's residual
 * clock skew against a reference host from events that happen at the same
 * instant everywhere (the ends of one collective, the starts of one step),
 * and moves a host's lines by it when the estimate is robust. The caller
 * then (re)runs the analyses, which hold absolute times.
 */
#ifndef XT_CLOCK_H
#define XT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* JSON names of enum xt_align and enum xt_skew_method (NULL: none). */
extern const char *const xt_align_names[XT_ALIGN_COUNT];
extern const char *const xt_skew_method_names[XT_SKEW_COUNT];

/*
 * Decides host h's time base from the lowest and highest timestamp of its
 * lines with events (lo = INT64_MAX when it has none) and its Task
 * Environment start and stop (already in h): sets h->ts_base_ns,
 * origin_ps, origin_kind and aligned_by, and the trace's clock
 * (t->ts_base_ns) when h is the first host that has one. Must run before
 * the host's lines are decoded. Can't fail.
 */
void clock_host_base(struct xt_trace *t, struct xt_host *h, int64_t lo, int64_t hi);

/*
 * After every host is loaded: estimates each host's clock skew against the
 * reference host (skew_* fields) and moves the lines of the hosts whose
 * estimate is robust by it (skew_corrected), then resets the trace origin.
 * Returns the number of hosts moved: when it is not 0, analyses computed
 * before are stale and must run again. A trace of one host is left as it
 * is. Can't fail.
 */
size_t clock_settle(struct xt_trace *t);

/* Where host h's profile start lies on the trace's timeline: ps after the
 * trace's origin (the earliest host start). */
static inline int64_t clock_host_offset_ps(const struct xt_trace *t, const struct xt_host *h)
{
	return h->origin_ps - t->origin_ps;
}

/* One line each, as the report and the viewer say them (with several
 * hosts): where host h sits and how it was placed ("starts at +2.50 ms,
 * placed by its Task Environment start"), and its skew ("+3.00 ms, spread
 * 0 ps, from 12 collective ends; corrected", "the reference ...",
 * "unknown (...)"). Write into buf (size n) and return it. Can't fail. */
char *clock_place_text(const struct xt_trace *t, const struct xt_host *h, char *buf, size_t n);
char *clock_skew_text(const struct xt_trace *t, const struct xt_host *h, char *buf, size_t n);

/* 1 when an event called name (display name, else name) ends at nearly the
 * same instant on every participant: an all-reduce, all-gather,
 * reduce-scatter or all-to-all (HLO op or NCCL/RCCL kernel), not the start
 * half of an async one. Exposed for the tests. */
int clock_sync_collective(const char *name);

#endif
