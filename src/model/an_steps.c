/*
 * an_steps: step markers and the per-step breakdown (docs/analyses.md,
 * "Steps"). Markers are found while lines load; the breakdown runs after
 * the load over the in-memory event arrays, using the activity class that
 * the op pass stored per event (so no stats are decoded twice).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"

static void marker_push(struct line_part *lp, int64_t id, int64_t s, int64_t e, size_t ev)
{
	if (lp->nmarkers == lp->capmarkers) {
		lp->capmarkers = lp->capmarkers ? lp->capmarkers * 2 : 16;
		lp->markers = xreallocarray(lp->markers, lp->capmarkers, sizeof(*lp->markers));
	}
	lp->markers[lp->nmarkers++] = (struct marker){ id, s, e, ev };
}

void steps_line_markers(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
			const struct xt_line *l)
{
	const struct plane_ctx *pc = p->hook_data;
	const uint64_t want = 1ull << XS_GROUP_ID | 1ull << XS_STEP_NUM;
	size_t i;

	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		const struct emeta_info *in = &pc->info[xt_event_meta_index(ev)];
		struct xt_known_stats ks;
		int64_t id;

		if (xt_event_aggregated(ev))
			continue;
		if (lp->role == LROLE_STEPS) {
			stat_collect(&ks, h, p, l, ev, want);
			id = stat_has(&ks, XS_GROUP_ID)   ? stat_as_int(&ks.v[XS_GROUP_ID])
			     : stat_has(&ks, XS_STEP_NUM) ? stat_as_int(&ks.v[XS_STEP_NUM])
							  : (int64_t)i;
			marker_push(lp, id, xt_event_start(l, ev), xt_event_end(l, ev), i);
			continue;
		}
		/* Host thread line: event stats first, then the TraceMe name and
		 * metadata stats (in->mk). Events the reader did not flag carry
		 * none of the marker stats themselves. */
		{
			struct marker_keys mk = { 0, 0, 0 };
			const struct marker_keys *fb = &in->mk;
			int scan = p->watch_on ? xt_event_watched(ev) : pc->has_marker_stats;

			if (!fb->has && !scan)
				continue;
			if (scan) {
				struct stat_iter it;
				struct xt_stat s;

				stat_iter_event(&it, h, p, l, ev);
				while (stat_next(&it, &s))
					marker_keys_take(&mk, &s);
			}
			if (!(mk.has & MK_STEP) && (fb->has & MK_STEP)) {
				mk.step = fb->step;
				mk.has |= MK_STEP;
			}
			if (!(mk.has & MK_GROUP) && (fb->has & MK_GROUP)) {
				mk.group = fb->group;
				mk.has |= MK_GROUP;
			}
			mk.has |= fb->has & MK_ROOT;
			if (mk.has & MK_STEP)
				id = mk.step;
			else if ((mk.has & (MK_ROOT | MK_GROUP)) == (MK_ROOT | MK_GROUP))
				id = mk.group;
			else
				continue;
		}
		marker_push(lp, id, xt_event_start(l, ev), xt_event_end(l, ev), i);
	}
}

struct ival {
	int64_t s, e;
	int cat;
};

struct edge {
	int64_t t;
	int cat;
	int delta;
};

static int edge_cmp(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->delta - b->delta;
}

/* Attributes [s, e) to the highest-priority class active at each instant. */
static void sweep(struct xt_step_row *st, const struct ival *iv, size_t n, struct edge *ed)
{
	int count[XT_CAT_COUNT] = { 0 };
	size_t i, k = 0;
	int64_t prev = 0, covered = 0;

	for (i = 0; i < n; i++) {
		ed[k++] = (struct edge){ iv[i].s, iv[i].cat, +1 };
		ed[k++] = (struct edge){ iv[i].e, iv[i].cat, -1 };
	}
	if (k > 1)
		qsort(ed, k, sizeof(*ed), edge_cmp);
	for (i = 0; i < k; i++) {
		int c;

		if (i > 0 && ed[i].t > prev) {
			for (c = 0; c < XT_CAT_COUNT; c++)
				if (count[c] > 0)
					break;
			if (c < XT_CAT_COUNT) {
				st->cat_ps[c] += ed[i].t - prev;
				covered += ed[i].t - prev;
			}
		}
		count[ed[i].cat] += ed[i].delta;
		prev = ed[i].t;
	}
	st->idle_ps = st->duration_ps - covered;
}

static int cat_of_class(int cls)
{
	switch (cls) {
	case EVC_COLLECTIVE:
		return XT_CAT_COLLECTIVES;
	case EVC_H2D:
		return XT_CAT_HOST_TO_DEVICE;
	case EVC_D2H:
		return XT_CAT_DEVICE_TO_HOST;
	default:
		return XT_CAT_DEVICE_COMPUTE;
	}
}

static int step_cmp(const void *x, const void *y)
{
	const struct xt_step_row *a = x, *b = y;

	if (a->start_ps != b->start_ps)
		return a->start_ps < b->start_ps ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void breakdown(struct xt_step_row *st, struct xt_trace *t, struct ival **iv,
		      size_t *cap, struct edge **ed, size_t *edcap)
{
	int64_t s0 = st->start_ps, s1 = st->start_ps + st->duration_ps;
	size_t n = 0, h, p, l;

	for (h = 0; h < t->nhosts; h++) {
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];

			for (l = 0; l < pl->nlines; l++) {
				const struct xt_line *ln = &pl->lines[l];
				const struct line_part *lp = ln->hook_data;
				size_t first, end, i, mk = 0;

				if (!lp || (lp->role != LROLE_XLA_OPS && lp->role != LROLE_STREAM &&
					    lp->role != LROLE_HOST))
					continue;
				end = trace_line_window(ln, s0, s1, &first);
				for (i = first; i < end; i++) {
					const struct xt_event *ev = &ln->ev[i];
					int64_t a = xt_event_start(ln, ev), b = a + ev->dur_ps;
					int cat;

					if (b <= s0 || a >= s1 || ev->dur_ps <= 0)
						continue;
					if (lp->role == LROLE_HOST) {
						while (mk < lp->nmarkers && lp->markers[mk].ev < i)
							mk++;
						if (mk < lp->nmarkers && lp->markers[mk].ev == i)
							continue;
						cat = XT_CAT_HOST_COMPUTE;
					} else {
						if (lp->role == LROLE_XLA_OPS && xt_event_depth(ev) != 0)
							continue;
						cat = cat_of_class(lp->cls ? lp->cls[i] : EVC_COMPUTE);
					}
					if (n == *cap) {
						*cap = *cap ? *cap * 2 : 1024;
						*iv = xreallocarray(*iv, *cap, sizeof(**iv));
					}
					(*iv)[n++] = (struct ival){ a < s0 ? s0 : a, b > s1 ? s1 : b, cat };
				}
			}
		}
	}
	if (2 * n > *edcap) {
		*edcap = 2 * n;
		*ed = xreallocarray(*ed, *edcap, sizeof(**ed));
	}
	sweep(st, *iv, n, *ed);
}

void steps_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct hmap ids;
	size_t h, p, l, i, cap = 0, ivcap = 0, edcap = 0;
	int device = 0;
	struct ival *iv = NULL;
	struct edge *ed = NULL;

	/* Device markers win when any host has them. */
	for (h = 0; h < t->nhosts && !device; h++)
		for (p = 0; p < t->hosts[h].nplanes && !device; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				const struct line_part *lp = t->hosts[h].planes[p].lines[l].hook_data;

				if (lp && lp->role == LROLE_STEPS && lp->nmarkers) {
					device = 1;
					break;
				}
			}
	a->steps_from_device = device;
	hmap_init(&ids);
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				const struct line_part *lp = t->hosts[h].planes[p].lines[l].hook_data;

				if (!lp || (device ? lp->role != LROLE_STEPS
					   : (lp->role != LROLE_HOST && lp->role != LROLE_HOST_PY)))
					continue;
				for (i = 0; i < lp->nmarkers; i++) {
					const struct marker *m = &lp->markers[i];
					struct xt_step_row *st;
					uint32_t *v;
					int ins;

					v = hmap_get(&ids, &m->id, sizeof(m->id), (uint32_t)a->nsteps, &ins);
					if (ins) {
						if (a->nsteps == cap) {
							cap = cap ? cap * 2 : 32;
							a->steps = xreallocarray(a->steps, cap,
										 sizeof(*a->steps));
						}
						st = &a->steps[a->nsteps++];
						memset(st, 0, sizeof(*st));
						st->id = m->id;
						st->start_ps = m->start_ps;
						st->duration_ps = m->end_ps - m->start_ps;
						continue;
					}
					st = &a->steps[*v];
					{
						int64_t s = st->start_ps < m->start_ps ? st->start_ps
										      : m->start_ps;
						int64_t e = st->start_ps + st->duration_ps;

						if (m->end_ps > e)
							e = m->end_ps;
						st->start_ps = s;
						st->duration_ps = e - s;
					}
				}
			}
	hmap_fini(&ids);
	if (a->nsteps > 1)
		qsort(a->steps, a->nsteps, sizeof(*a->steps), step_cmp);
	for (i = 0; i < a->nsteps; i++)
		breakdown(&a->steps[i], t, &iv, &ivcap, &ed, &edcap);
	free(iv);
	free(ed);
}
