/*
 * an_devices: device rows (docs/analyses.md, "Device busy time and idle").
 * XLA devices sum their ops' self times (computed while lines loaded); GPU
 * devices take the union of their stream lines' busy lists (also built
 * while lines loaded), two planes at a time.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"


const struct span_pack **gpu_busy_lists(const struct xt_plane *p, size_t *n, int64_t *first,
					int64_t *last)
{
	const struct span_pack **packs = xcalloc(p->nlines ? p->nlines : 1, sizeof(*packs));
	size_t j;

	*n = 0;
	for (j = 0; j < p->nlines; j++) {
		const struct line_part *lp = p->lines[j].hook_data;

		if (!p->lines[j].nev || !lp || lp->role != LROLE_STREAM)
			continue;
		packs[(*n)++] = &lp->busy;
		if (first && lp->dev_first < *first)
			*first = lp->dev_first;
		if (last && lp->dev_last > *last)
			*last = lp->dev_last;
	}
	return packs;
}

/* Length of the union of a GPU plane's busy lists, and the first start and
 * latest end of their lines' events. */
static int64_t union_busy(const struct xt_plane *p, int64_t *first, int64_t *last)
{
	const struct span_pack **packs;
	struct span_merge m;
	struct span x;
	size_t nl;
	int64_t busy = 0;

	*first = INT64_MAX;
	*last = INT64_MIN;
	packs = gpu_busy_lists(p, &nl, first, last);
	span_merge_init(&m, packs, nl);
	while (span_merge_next(&m, &x))
		busy = xt_sat_add(busy, xt_sat_sub(x.e, x.s));
	span_merge_fini(&m);
	free(packs);
	return busy;
}

/* Widens [*first, *last] by the events of l (sorted; aggregated ones last). */
static void line_extent(const struct xt_line *l, int64_t *first, int64_t *last)
{
	size_t nblk = (l->nev + XT_BLOCK - 1) / XT_BLOCK;
	int64_t base = xt_line_base(l);

	if (!l->nev || xt_event_aggregated(&l->ev[0]))
		return;
	if (xt_ps_add(base, xt_event_off(l, 0)) < *first)
		*first = xt_ps_add(base, xt_event_off(l, 0));
	if (xt_ps_add(base, l->blk_maxend[nblk - 1]) > *last)
		*last = xt_ps_add(base, l->blk_maxend[nblk - 1]);
}

void gpu_busy_run(struct gpu_busy_set *gs, size_t i)
{
	gs->jobs[i].busy = union_busy(gs->jobs[i].p, &gs->jobs[i].first, &gs->jobs[i].last);
}

size_t gpu_busy_plan(struct gpu_busy_set *gs, struct xt_trace *t)
{
	size_t h, p;

	gs->jobs = NULL;
	gs->n = 0;
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			const struct plane_ctx *pc = pl->hook_data;
			struct gpu_busy *g;

			if (!pc || pc->role != ROLE_DEVICE || pc->kind != XT_DEV_GPU)
				continue;
			gs->jobs = xreallocarray(gs->jobs, gs->n + 1, sizeof(*gs->jobs));
			g = &gs->jobs[gs->n++];
			g->p = pl;
		}
	return gs->n;
}

static int64_t gpu_busy_take(const struct gpu_busy_set *gs, const struct xt_plane *p,
			     int64_t *first, int64_t *last)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (gs->jobs[i].p == p) {
			*first = gs->jobs[i].first;
			*last = gs->jobs[i].last;
			return gs->jobs[i].busy;
		}
	return union_busy(p, first, last);
}

void gpu_busy_free(struct gpu_busy_set *gs)
{
	free(gs->jobs);
}

void devices_build(struct xt_analysis *a, struct xt_trace *t, const struct gpu_busy_set *gs)
{
	size_t h, p, l, n = 0;

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			if (!strncmp(t->hosts[h].planes[p].name, "/device:", 8))
				n++;
	a->devices = xcalloc(n ? n : 1, sizeof(*a->devices));
	for (h = 0; h < t->nhosts; h++) {
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			const struct plane_ctx *pc = pl->hook_data;
			struct xt_device_row *d;
			uint8_t *use;
			int64_t first = INT64_MAX, last = INT64_MIN;

			if (strncmp(pl->name, "/device:", 8))
				continue;
			d = &a->devices[a->ndevices++];
			d->host = arena_strndup(&a->arena, t->hosts[h].name, strlen(t->hosts[h].name));
			d->name = arena_strndup(&a->arena, pl->name, strlen(pl->name));
			d->kind = pc ? pc->kind : XT_DEV_OTHER;
			d->idle_percent = NAN; /* no span, nothing it could be idle of */
			device_peaks(d, &t->hosts[h], pl, &a->arena);
			use = xcalloc(pl->nlines ? pl->nlines : 1, 1);
			for (l = 0; l < pl->nlines; l++) {
				const struct line_part *lp = pl->lines[l].hook_data;

				if (!lp)
					continue;
				if (lp->role == LROLE_XLA_OPS) {
					d->busy_ps = xt_sat_add(d->busy_ps, lp->self_sum_ps);
					d->op_events += lp->op_events;
					use[l] = 1;
				} else if (lp->role == LROLE_STEPS && d->kind == XT_DEV_XLA) {
					use[l] = 1;
				} else if (lp->role == LROLE_STREAM) {
					d->op_events += lp->op_events;
					use[l] = 1;
					if (d->kind == XT_DEV_GPU) {
						/* Counted as the line loaded
						 * (overview_line_device). */
						d->kernels += lp->kernels;
						d->small_kernels += lp->small_kernels;
						d->small_kernels_cb += lp->small_kernels_cb;
						d->small_kernel_ps += lp->small_kernel_ps;
					}
				}
			}
			if (d->kind == XT_DEV_GPU) {
				d->busy_ps = gpu_busy_take(gs, pl, &first, &last);
			} else if (d->kind == XT_DEV_XLA) {
				/* Busy is the sum of self times; the span needs only
				 * each line's extent. */
				for (l = 0; l < pl->nlines; l++)
					if (use[l])
						line_extent(&pl->lines[l], &first, &last);
			}
			free(use);
			if (last > first) {
				/* A hostile file's times can lie further apart than
				 * int64 holds: the span saturates. */
				d->span_ps = xt_sat_sub(last, first);
				d->first_ps = first;
				d->idle_percent = 100.0 * (1.0 - (double)d->busy_ps / (double)d->span_ps);
			}
			a->busy_ps = xt_sat_add(a->busy_ps, d->busy_ps);
		}
	}
}

