/*
 * bench_trace: the cost of libxtop-trace's calls (include/xtop/trace.h), in
 * ns per begin/end pair, as a program linked with the static library sees
 * it. Inactive: no capture runs (one relaxed load per call). Active: a
 * capture records (the registry is driven as the agent drives it; each
 * session is collected and reset outside the timed loop). Full: the
 * thread's buffer is full and events are counted as dropped.
 *
 *   bench_trace [PAIRS]   (default 2,000,000 per measurement, best of 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trace/registry.h"
#include "xtop/trace.h"

extern const struct xtop_trace_registry xtop_trace_registry_v1;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_thread(void *c, const struct xtop_trace_thread *t)
{
	(void)c;
	(void)t;
}

static void on_event(void *c, const struct xtop_trace_event *e)
{
	(void)e;
	++*(long *)c;
}

enum { PAIRS_PER_SESSION = 200000 }; /* fits a thread's buffer */

/* ns per pair of kind k over n pairs; sessions of PAIRS_PER_SESSION when
 * active. */
static double run(int k, long n, int active)
{
	const struct xtop_trace_registry *r = &xtop_trace_registry_v1;
	double best = 1e30;
	int rep;

	for (rep = 0; rep < 5; rep++) {
		double t = 0;
		long done = 0;

		while (done < n) {
			long m = active ? PAIRS_PER_SESSION : n, i, got = 0;
			double t0;

			if (active)
				r->start(0);
			t0 = now();
			for (i = 0; i < m; i++) {
				if (k == 0) {
					xtop_trace_begin("forward#layer=12,batch=64#");
					xtop_trace_end();
				} else if (k == 1) {
					xtop_step_begin(i);
					xtop_step_end();
				} else {
					xtop_trace_instant("mark");
				}
			}
			t += now() - t0;
			if (active) {
				r->stop();
				r->collect(&got, on_thread, on_event);
			}
			done += m;
		}
		if (t / (double)done < best)
			best = t / (double)done;
	}
	return best * 1e9;
}

/* The buffer full: every call is counted as dropped. */
static double run_full(long n)
{
	const struct xtop_trace_registry *r = &xtop_trace_registry_v1;
	double t0, t;
	long i, got = 0;

	r->start(1); /* a budget of one byte: nothing fits */
	t0 = now();
	for (i = 0; i < n; i++) {
		xtop_trace_begin("forward#layer=12,batch=64#");
		xtop_trace_end();
	}
	t = now() - t0;
	r->stop();
	r->collect(&got, on_thread, on_event);
	return t / (double)n * 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;

	if (n < PAIRS_PER_SESSION)
		n = PAIRS_PER_SESSION;
	printf("libxtop-trace, one thread, %ld calls per measurement (best of 5)\n", n);
	printf("%-44s %10s\n", "CALLS", "NS");
	printf("%-44s %10.2f\n", "begin/end pair, no capture (inactive)", run(0, n * 10, 0));
	printf("%-44s %10.2f\n", "step begin/end pair, no capture", run(1, n * 10, 0));
	printf("%-44s %10.2f\n", "begin/end pair, capturing (active)", run(0, n, 1));
	printf("%-44s %10.2f\n", "step begin/end pair, capturing", run(1, n, 1));
	printf("%-44s %10.2f\n", "instant, capturing", run(2, n, 1));
	printf("%-44s %10.2f\n", "begin/end pair, buffer full (dropped)", run_full(n));
	return 0;
}
