/*
 * an_steps: step markers and the per-step breakdown (docs/analyses.md,
 * "Steps"). Markers are found while lines load; the breakdown runs after
 * the load over the in-memory event arrays, using the activity class that
 * the op pass stored per event (so no stats are decoded twice).
 */
#include <pthread.h>
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

			if (!(fb->has & (MK_STEP | MK_ROOT)) && !scan)
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

/*
 * The breakdown attributes each instant of a step to the highest-priority
 * class active then. Rather than sorting every interval's edges (tens of
 * millions on a big GPU profile), it builds per class the union of its
 * intervals: each line yields a sorted run already (events are sorted by
 * start), runs are merged pairwise, and the classes are then folded in
 * priority order: class c gets |H u U_c| - |H|, H being the union of the
 * classes above it.
 */
struct span {
	int64_t s, e;
};

struct spans {
	struct span *v;
	size_t n, cap;
	size_t *run;   /* start index of each sorted run */
	size_t nrun, caprun;
	size_t last_line; /* line of the last append, to detect a new run */
};

static void spans_add(struct spans *sp, size_t line, int64_t s, int64_t e)
{
	if (!sp->nrun || sp->last_line != line) {
		if (sp->nrun == sp->caprun) {
			sp->caprun = sp->caprun ? sp->caprun * 2 : 16;
			sp->run = xreallocarray(sp->run, sp->caprun, sizeof(*sp->run));
		}
		sp->run[sp->nrun++] = sp->n;
		sp->last_line = line;
	} else if (s <= sp->v[sp->n - 1].e) {
		/* Same line, sorted by start: coalesce while appending. */
		if (e > sp->v[sp->n - 1].e)
			sp->v[sp->n - 1].e = e;
		return;
	}
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? sp->cap * 2 : 256;
		sp->v = xreallocarray(sp->v, sp->cap, sizeof(*sp->v));
	}
	sp->v[sp->n++] = (struct span){ s, e };
}

/* Union of two sorted disjoint lists into out (room for na + nb). */
static size_t union2(const struct span *a, size_t na, const struct span *b, size_t nb,
		     struct span *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na || j < nb) {
		struct span x = (j >= nb || (i < na && a[i].s <= b[j].s)) ? a[i++] : b[j++];

		if (n && x.s <= out[n - 1].e) {
			if (x.e > out[n - 1].e)
				out[n - 1].e = x.e;
		} else {
			out[n++] = x;
		}
	}
	return n;
}

/* Merges the runs of sp into one sorted disjoint list (in sp->v). */
static void spans_union(struct spans *sp, struct span **tmp, size_t *tmpcap)
{
	while (sp->nrun > 1) {
		size_t r, nr = 0, o = 0;

		if (*tmpcap < sp->n) {
			*tmpcap = sp->n;
			*tmp = xreallocarray(*tmp, *tmpcap, sizeof(**tmp));
		}
		for (r = 0; r < sp->nrun; r += 2) {
			size_t a0 = sp->run[r];
			size_t a1 = r + 1 < sp->nrun ? sp->run[r + 1] : sp->n;
			size_t b1 = r + 2 < sp->nrun ? sp->run[r + 2] : sp->n;

			sp->run[nr++] = o;
			o += union2(sp->v + a0, a1 - a0, sp->v + a1, b1 - a1, *tmp + o);
		}
		memcpy(sp->v, *tmp, o * sizeof(*sp->v));
		sp->n = o;
		sp->nrun = nr;
	}
}

static int64_t spans_len(const struct span *v, size_t n)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += v[i].e - v[i].s;
	return t;
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

struct scratch {
	struct spans cat[XT_CAT_COUNT];
	struct span *tmp, *h, *h2;
	size_t tmpcap, hcap;
};

static void breakdown(struct xt_step_row *st, struct xt_trace *t, struct scratch *sc)
{
	int64_t s0 = st->start_ps, s1 = st->start_ps + st->duration_ps;
	size_t h, p, l, c, nh = 0, line_no = 0;

	for (c = 0; c < XT_CAT_COUNT; c++) {
		sc->cat[c].n = 0;
		sc->cat[c].nrun = 0;
	}
	for (h = 0; h < t->nhosts; h++) {
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];

			for (l = 0; l < pl->nlines; l++, line_no++) {
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
					spans_add(&sc->cat[cat], line_no, a < s0 ? s0 : a, b > s1 ? s1 : b);
				}
			}
		}
	}
	/* Fold the classes in priority order. */
	for (c = 0; c < XT_CAT_COUNT; c++) {
		struct spans *sp = &sc->cat[c];
		size_t n2;
		struct span *sw;
		int64_t before = spans_len(sc->h, nh);

		spans_union(sp, &sc->tmp, &sc->tmpcap);
		if (sc->hcap < nh + sp->n) {
			sc->hcap = nh + sp->n;
			sc->h = xreallocarray(sc->h, sc->hcap, sizeof(*sc->h));
			sc->h2 = xreallocarray(sc->h2, sc->hcap, sizeof(*sc->h2));
		}
		n2 = union2(sc->h, nh, sp->v, sp->n, sc->h2);
		sw = sc->h;
		sc->h = sc->h2;
		sc->h2 = sw;
		nh = n2;
		st->cat_ps[c] = spans_len(sc->h, nh) - before;
	}
	st->idle_ps = st->duration_ps - spans_len(sc->h, nh);
}

struct bd_job {
	struct xt_analysis *a;
	struct xt_trace *t;
	size_t first;  /* first step; then every `stride`-th */
	size_t stride;
};

static void *bd_worker(void *arg)
{
	struct bd_job *j = arg;
	struct scratch sc;
	size_t i, stride = j->stride;

	memset(&sc, 0, sizeof(sc));
	for (i = j->first; i < j->a->nsteps; i += stride)
		breakdown(&j->a->steps[i], j->t, &sc);
	for (i = 0; i < XT_CAT_COUNT; i++) {
		free(sc.cat[i].v);
		free(sc.cat[i].run);
	}
	free(sc.tmp);
	free(sc.h);
	free(sc.h2);
	return NULL;
}

void steps_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct hmap ids;
	size_t h, p, l, i, cap = 0;
	int device = 0;

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
	/* Steps are independent: two threads take alternate steps. */
	{
		struct bd_job jobs[2] = { { a, t, 0, 2 }, { a, t, 1, 2 } };
		pthread_t tid;
		int threaded = a->nsteps > 1 && pthread_create(&tid, NULL, bd_worker, &jobs[1]) == 0;

		if (!threaded)
			jobs[0].stride = 1;
		bd_worker(&jobs[0]);
		if (threaded)
			pthread_join(tid, NULL);
	}
}
