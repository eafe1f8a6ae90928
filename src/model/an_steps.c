/*
 * an_steps: step markers and the per-step breakdown (docs/analyses.md,
 * "Steps"). Markers are found while lines load; the breakdown runs after
 * the load over the in-memory event arrays, using the activity class that
 * the op pass stored per event (so no stats are decoded twice).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"
#include "spans.h"

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

/* The module of an XLA Modules event: its name without "(program id)". */
static struct bytes_ref module_of(const char *name)
{
	const char *open = strrchr(name, '(');
	size_t n = strlen(name);

	if (open && open > name && n > 2 && name[n - 1] == ')')
		n = (size_t)(open - name);
	return bref(name, n);
}

/*
 * A GPU kernel of (module, program), op `slot`, on this line. Back-to-back
 * runs of one program leave no gap in the module sequence, so a run also
 * ends when the op that opened it comes again after others ran (XLA runs a
 * program's thunks in order); `restarts` is 0 for ops the HLO places inside
 * a loop or other called computation, whose repeats are not new runs.
 */
void steps_run_add(struct line_part *lp, struct bytes_ref module, int64_t program, uint32_t slot,
		   int restarts, int64_t s, int64_t e)
{
	struct mod_run *r = lp->nruns ? &lp->runs[lp->nruns - 1] : NULL;

	if (r && r->program_id == program && r->module.n == module.n &&
	    (r->module.p == module.p || !memcmp(r->module.p, module.p, module.n)) &&
	    !(restarts && slot == r->first_slot && r->seen_other)) {
		if (e > r->end_ps)
			r->end_ps = e;
		if (slot != r->first_slot)
			r->seen_other = 1;
		return;
	}
	if (lp->nruns == lp->capruns) {
		lp->capruns = lp->capruns ? lp->capruns * 2 : 16;
		lp->runs = xreallocarray(lp->runs, lp->capruns, sizeof(*lp->runs));
	}
	lp->runs[lp->nruns++] = (struct mod_run){ module, program, s, e, slot, 0 };
}

void steps_line_modules(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
			const struct xt_line *l)
{
	size_t i;

	(void)h;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];

		if (xt_event_aggregated(ev))
			continue;
		if (lp->nruns == lp->capruns) {
			lp->capruns = lp->capruns ? lp->capruns * 2 : 16;
			lp->runs = xreallocarray(lp->runs, lp->capruns, sizeof(*lp->runs));
		}
		/* Every event is one run, even of the same module back to back. */
		lp->runs[lp->nruns++] = (struct mod_run){ module_of(xt_event_meta(p, ev)->name), 0,
							  xt_event_start(l, ev), xt_event_end(l, ev),
							  0, 0 };
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
		n2 = spans_union2(sc->h, nh, sp->v, sp->n, sc->h2);
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

const char *const xt_steps_source_names[4] = { "none", "device", "host", "inferred" };

static int run_cmp(const void *x, const void *y)
{
	const struct mod_run *a = x, *b = y;

	return (a->start_ps > b->start_ps) - (a->start_ps < b->start_ps);
}

static int same_module(struct bytes_ref a, struct bytes_ref b)
{
	return a.n == b.n && (a.p == b.p || !memcmp(a.p, b.p, a.n));
}

/* The program runs of one device, in start order: XLA Modules events as
 * they are; GPU kernels' stretches merged across streams. */
static size_t device_runs(const struct xt_plane *pl, struct mod_run **out)
{
	const struct plane_ctx *pc = pl->hook_data;
	struct mod_run *v = NULL;
	size_t n = 0, l, i, k = 0;

	for (l = 0; l < pl->nlines; l++) {
		const struct line_part *lp = pl->lines[l].hook_data;

		if (!lp || !lp->nruns ||
		    (pc->kind == XT_DEV_XLA ? lp->role != LROLE_MODULES : lp->role != LROLE_STREAM))
			continue;
		v = xreallocarray(v, n + lp->nruns, sizeof(*v));
		memcpy(v + n, lp->runs, lp->nruns * sizeof(*v));
		n += lp->nruns;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), run_cmp);
	if (pc->kind == XT_DEV_GPU) {
		/* Overlapping stretches of one program on several streams are
		 * one run. */
		for (i = 0; i < n; i++) {
			if (k && v[k - 1].program_id == v[i].program_id &&
			    same_module(v[k - 1].module, v[i].module) && v[i].start_ps < v[k - 1].end_ps) {
				if (v[i].end_ps > v[k - 1].end_ps)
					v[k - 1].end_ps = v[i].end_ps;
			} else {
				v[k++] = v[i];
			}
		}
		n = k;
	}
	*out = v;
	return n;
}

/*
 * Without step markers, steps are the runs of the module run most often
 * (at least twice on some device) with the most device time: the k-th run
 * of it on each device is step k (docs/analyses.md, "Steps").
 */
static void infer_steps(struct xt_analysis *a, struct xt_trace *t)
{
	struct mod_run **runs = NULL;
	size_t *nruns = NULL, ndev = 0, h, p, d, i, k;
	struct bytes_ref best = { NULL, 0 };
	int64_t best_time = -1;
	size_t best_count = 0;

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			const struct plane_ctx *pc = pl->hook_data;

			if (!pc || pc->role != ROLE_DEVICE || pc->kind == XT_DEV_OTHER)
				continue;
			runs = xreallocarray(runs, ndev + 1, sizeof(*runs));
			nruns = xreallocarray(nruns, ndev + 1, sizeof(*nruns));
			nruns[ndev] = device_runs(pl, &runs[ndev]);
			ndev++;
		}
	/* Candidates: every module seen; a quadratic scan over distinct names
	 * is fine (programs are few). */
	for (d = 0; d < ndev; d++) {
		for (i = 0; i < nruns[d]; i++) {
			struct bytes_ref m = runs[d][i].module;
			int64_t time = 0;
			size_t most = 0, d2, j;

			if (!m.n || (best.p && same_module(best, m)))
				continue;
			for (d2 = 0; d2 < ndev; d2++) {
				size_t c = 0;

				for (j = 0; j < nruns[d2]; j++)
					if (same_module(runs[d2][j].module, m)) {
						c++;
						time += runs[d2][j].end_ps - runs[d2][j].start_ps;
					}
				most = c > most ? c : most;
			}
			if (most >= 2 && (time > best_time ||
					  (time == best_time && best.p &&
					   (m.n < best.n || (m.n == best.n &&
							     memcmp(m.p, best.p, m.n) < 0))))) {
				best = m;
				best_time = time;
				best_count = most;
			}
		}
	}
	if (best.p) {
		a->steps = xcalloc(best_count, sizeof(*a->steps));
		for (k = 0; k < best_count; k++) {
			struct xt_step_row *st = &a->steps[k];
			int64_t s = INT64_MAX, e = INT64_MIN;

			st->id = (int64_t)k;
			for (d = 0; d < ndev; d++) {
				size_t c = 0;

				for (i = 0; i < nruns[d]; i++) {
					if (!same_module(runs[d][i].module, best))
						continue;
					if (c++ != k)
						continue;
					s = runs[d][i].start_ps < s ? runs[d][i].start_ps : s;
					e = runs[d][i].end_ps > e ? runs[d][i].end_ps : e;
					break;
				}
			}
			st->start_ps = s;
			st->duration_ps = e - s;
		}
		a->nsteps = best_count;
		a->steps_source = XT_STEPS_INFERRED;
		/* Not in a->arena: this runs beside the other merges. */
		snprintf(a->steps_module, sizeof(a->steps_module), "%.*s", (int)best.n, best.p);
	}
	for (d = 0; d < ndev; d++)
		free(runs[d]);
	free(runs);
	free(nruns);
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
	a->steps_source = a->nsteps ? (device ? XT_STEPS_DEVICE : XT_STEPS_HOST) : XT_STEPS_NONE;
	a->steps_module[0] = '\0';
	if (!a->nsteps)
		infer_steps(a, t);
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
