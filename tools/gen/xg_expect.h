/*
 * xg_expect.h - the expected analysis results of xtop-gen (--expect): the
 * accumulators the writing pass fills from the generator's own model, and
 * the JSON writer for the results that docs/analyses.md derives.
 */
#ifndef XTOP_GEN_XG_EXPECT_H
#define XTOP_GEN_XG_EXPECT_H

#include <stdint.h>
#include <stdio.h>

#include "xg_gpu.h"
#include "xg_host.h"
#include "xg_tpu.h"

struct xg_plan;

/* expected memory results of one allocator */
struct xg_expect_mem {
	uint64_t peak, peak_time, capacity, lifetime;
	int nlive, seen;
	struct xg_host_buf live[MEM_BUFS + 2];
};
/* expectations, filled by the writing pass */
struct xg_expect {
	uint64_t occ[T_COUNT + G_COUNT], self[T_COUNT + G_COUNT],
	    total[T_COUNT + G_COUNT];
	uint64_t kocc[KR_COUNT], ktot[KR_COUNT], kmin[KR_COUNT], kmax[KR_COUNT];
	uint64_t *busy, *first, *last;		/* per device */
	uint64_t *sfirst, *slast;		/* per step */
	struct xg_expect_mem mem[2];
};

/* Allocates the per-device and per-step arrays of ex for D devices and S
 * steps, with every minimum and first time at its "none yet" value. */
void xg_expect_init(struct xg_expect *ex, int D, int S);
void xg_expect_free(struct xg_expect *ex);
/* Writes the results as JSON; sorts the live buffers of ex->mem in place. */
void xg_expect_write(const struct xg_plan *p, struct xg_expect *ex, FILE *f);

/* widens device d's activity span to cover [start, end) */
static inline void xg_expect_dev_span(struct xg_expect *ex, int d, uint64_t start, uint64_t end)
{
	if (ex->first[d] > start)
		ex->first[d] = start;
	if (ex->last[d] < end)
		ex->last[d] = end;
}

/* a device's marker [start, end) of step k: the step is its longest (the
 * earliest on a tie), as xtop and XProf time a step */
static inline void xg_expect_step_span(struct xg_expect *ex, int k, uint64_t start, uint64_t end)
{
	int none = ex->sfirst[k] > ex->slast[k];
	uint64_t d = end - start, cur = none ? 0 : ex->slast[k] - ex->sfirst[k];

	if (none || d > cur || (d == cur && start < ex->sfirst[k])) {
		ex->sfirst[k] = start;
		ex->slast[k] = end;
	}
}

#endif
