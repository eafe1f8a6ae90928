/*
 * an_steps: step markers and the per-step breakdown (docs/analyses.md,
 * "Steps"). Markers are found while lines load; steps are merged or
 * inferred after the load, and their breakdown (an_breakdown.c) runs over
 * the in-memory event arrays, using the activity class that the op pass
 * stored per event (so no stats are decoded twice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"
#include "spans.h"

static void marker_add(struct marker **v, size_t *n, size_t *cap, struct marker m)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = m;
}

static void marker_push(struct line_part *lp, int64_t id, int64_t s, int64_t e, size_t ev)
{
	marker_add(&lp->markers, &lp->nmarkers, &lp->capmarkers, (struct marker){ id, s, e, ev });
}

/*
 * The step id of a host thread's event, into *id; 0 when it is no marker.
 * Event stats first (it, when the event may carry marker stats; else
 * NULL), then the TraceMe name and metadata stats (fb).
 */
static int host_marker(const struct marker_keys *fb, struct stat_iter *it, int64_t *id)
{
	struct marker_keys mk = { 0, 0, 0 };

	if (!(fb->has & (MK_STEP | MK_ROOT)) && !it)
		return 0;
	if (it) {
		struct xt_stat s;

		while (stat_next(it, &s))
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
		*id = mk.step;
	else if ((mk.has & (MK_ROOT | MK_GROUP)) == (MK_ROOT | MK_GROUP))
		*id = mk.group;
	else
		return 0;
	return 1;
}

void steps_line_markers(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
			const struct xt_line *l)
{
	uint64_t released = 0; /* source bytes given back (trace_release_before) */
	const struct plane_ctx *pc = p->hook_data;
	const uint64_t want = 1ull << XS_GROUP_ID | 1ull << XS_STEP_NUM;
	size_t i;

	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		struct xt_known_stats ks;
		struct stat_iter it;
		int64_t id;
		int scan;

		if (!(i & 4095))
			trace_release_before(h, l, i, &released);
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
		/* Host thread line. Events the reader did not flag carry none of
		 * the marker stats themselves. */
		scan = p->watch_on ? xt_event_watched(ev) : pc->has_marker_stats;
		if (scan)
			stat_iter_event(&it, h, p, l, ev);
		if (host_marker(&pc->info[xt_event_meta_index(ev)].mk, scan ? &it : NULL, &id))
			marker_push(lp, id, xt_event_start(l, ev), xt_event_end(l, ev), i);
	}
}

void steps_marker_event(struct host_part *hp, const struct xt_sink_ev *e)
{
	const struct plane_ctx *pc = hp->p->hook_data;
	struct stat_iter it;
	int64_t id;

	/* The sink finds markers only where the reader flags the events that
	 * carry marker stats (sink_markers). */
	if (e->watched)
		stat_iter_event_bytes(&it, hp->p, e->b, e->n);
	if (host_marker(&pc->info[e->meta].mk, e->watched ? &it : NULL, &id))
		marker_add(&hp->markers, &hp->nmarkers, &hp->capmarkers,
			   (struct marker){ id, e->off_ps,
					    (int64_t)((uint64_t)e->off_ps + (uint64_t)e->dur_ps),
					    e->i });
}

static int marker_ev_cmp(const void *x, const void *y)
{
	const struct marker *a = x, *b = y;

	return (a->ev > b->ev) - (a->ev < b->ev);
}

void steps_take_markers(struct line_part *lp, const struct xt_line *l, struct xt_sunk *sunk)
{
	uint64_t base = (uint64_t)xt_line_base(l);
	size_t k, i, n = 0;

	for (k = 0; k < sunk->nparts; k++)
		n += ((const struct host_part *)sunk->parts[k])->nmarkers;
	if (!n)
		return;
	lp->markers = xreallocarray(lp->markers, lp->nmarkers + n, sizeof(*lp->markers));
	lp->capmarkers = lp->nmarkers + n;
	for (k = 0; k < sunk->nparts; k++) {
		const struct host_part *hp = sunk->parts[k];

		for (i = 0; i < hp->nmarkers; i++) {
			struct marker m = hp->markers[i];

			m.start_ps = (int64_t)(base + (uint64_t)m.start_ps);
			m.end_ps = (int64_t)(base + (uint64_t)m.end_ps);
			if (sunk->moved)
				m.ev = sunk->moved[m.ev];
			lp->markers[lp->nmarkers++] = m;
		}
	}
	if (sunk->moved)
		qsort(lp->markers, lp->nmarkers, sizeof(*lp->markers), marker_ev_cmp);
}

static int same_module(struct bytes_ref a, struct bytes_ref b)
{
	return bref_eq(a, b);
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
 * A GPU kernel of (module, program), op `slot`, kernel `meta`, on this
 * line. Back-to-back runs of one program leave no gap in the module
 * sequence, so a run also ends when the op that opened it comes again
 * after others ran (XLA runs a program's thunks in order); `restarts` is 0
 * for ops the HLO places inside a loop or other called computation, whose
 * repeats are not new runs. A program of one op (a jitted matmul called in
 * a loop) never runs another: there its first kernel coming again opens a
 * run, marked `split` for steps_join_splits(), which undoes that where
 * the program turns out to run other ops (its first op launched that
 * kernel twice).
 */
void steps_run_add(struct line_part *lp, struct bytes_ref module, int64_t program, uint32_t slot,
		   uint32_t meta, int restarts, int64_t s, int64_t e)
{
	struct mod_run *r = lp->nruns ? &lp->runs[lp->nruns - 1] : NULL;
	uint8_t split = 0;

	if (r && r->program_id == program && same_module(r->module, module)) {
		int again = restarts && slot == r->first_slot;

		if (!(again && (r->seen_other || meta == r->first_meta))) {
			if (e > r->end_ps)
				r->end_ps = e;
			if (slot != r->first_slot)
				r->seen_other = 1;
			r->entry |= (uint8_t)!!restarts;
			return;
		}
		split = (uint8_t)!r->seen_other;
	}
	if (lp->nruns == lp->capruns) {
		lp->capruns = lp->capruns ? lp->capruns * 2 : 16;
		lp->runs = xreallocarray(lp->runs, lp->capruns, sizeof(*lp->runs));
	}
	lp->runs[lp->nruns++] = (struct mod_run){ module, program, s, e, slot, meta, 0,
						  (uint8_t)!!restarts, split };
}

int steps_run_within(const struct line_part *lp, struct bytes_ref module, int64_t program,
		     uint32_t slot)
{
	const struct mod_run *r = lp->nruns ? &lp->runs[lp->nruns - 1] : NULL;

	return r && r->first_slot != slot && r->program_id == program && same_module(r->module, module);
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
							  0, 0, 0, 1, 0 };
	}
}

const char *const xt_steps_source_names[4] = { "none", "device", "host", "inferred" };

static int run_cmp(const void *x, const void *y)
{
	const struct mod_run *a = x, *b = y;

	return (a->start_ps > b->start_ps) - (a->start_ps < b->start_ps);
}

/* Index of run r's program in *pr (added when new); *last is the answer
 * before, tried first (runs come in long stretches of one program). */
struct run_prog {
	struct bytes_ref module;
	int64_t program_id;
	uint8_t entry;
	uint8_t multi; /* a run of it on the line ran two ops */
};

static size_t run_prog_of(struct run_prog **pr, size_t *npr, size_t *last, const struct mod_run *r)
{
	size_t j;

	if (*last < *npr && (*pr)[*last].program_id == r->program_id &&
	    same_module((*pr)[*last].module, r->module))
		return *last;
	for (j = 0; j < *npr; j++)
		if ((*pr)[j].program_id == r->program_id && same_module((*pr)[j].module, r->module))
			break;
	if (j == *npr) {
		*pr = xreallocarray(*pr, *npr + 1, sizeof(**pr));
		(*pr)[(*npr)++] = (struct run_prog){ r->module, r->program_id, 0, 0 };
	}
	*last = j;
	return j;
}

/*
 * A stretch made only of ops inside while loops (a loop's dynamic slices
 * copied on side streams, seen on an H100) lies within a run of its
 * program on the main stream, and would join all of them into one: it
 * stands for runs only of a program that has no stretch with an op of its
 * entry computation. Returns the runs kept, in place.
 */
static size_t drop_loop_stretches(struct mod_run *v, size_t n)
{
	struct run_prog *pr = NULL;
	size_t npr = 0, last = SIZE_MAX, i, k = 0;

	for (i = 0; i < n; i++) {
		size_t j = run_prog_of(&pr, &npr, &last, &v[i]);

		pr[j].entry |= v[i].entry;
	}
	for (i = 0; i < n; i++) {
		size_t j = run_prog_of(&pr, &npr, &last, &v[i]);

		if (v[i].entry || !pr[j].entry)
			v[k++] = v[i];
	}
	free(pr);
	return k;
}

/*
 * One line's runs, in line order: a split run (steps_run_add) of a program
 * that ran another op in some run on this line joins the run before it,
 * which is of the same program (a split follows the run it came from).
 * Per line, not per device: a side stream that runs one op of a program
 * keeps its runs apart however many ops the main stream runs. Returns the
 * runs kept, in place.
 */
static size_t join_splits(struct mod_run *v, size_t n)
{
	struct run_prog *pr = NULL;
	size_t npr = 0, last = SIZE_MAX, i, k = 0;
	int any = 0;

	for (i = 0; i < n && !any; i++)
		any = v[i].split;
	if (!any)
		return n;
	for (i = 0; i < n; i++) {
		size_t j = run_prog_of(&pr, &npr, &last, &v[i]);

		pr[j].multi |= v[i].seen_other;
	}
	for (i = 0; i < n; i++) {
		if (v[i].split && k && pr[run_prog_of(&pr, &npr, &last, &v[i])].multi) {
			struct mod_run *p = &v[k - 1];

			if (v[i].end_ps > p->end_ps)
				p->end_ps = v[i].end_ps;
			p->seen_other |= v[i].seen_other;
			p->entry |= v[i].entry;
			continue;
		}
		v[k++] = v[i];
	}
	free(pr);
	return k;
}

/* The program runs of one device, in start order: XLA Modules events as
 * they are; GPU kernels' stretches merged across streams. The lines' runs
 * are read nowhere else: the first line's array becomes the device's (on
 * TPU, one XLA Modules line with a run per event: no copy of it). */
static size_t device_runs(const struct xt_plane *pl, struct mod_run **out)
{
	const struct plane_ctx *pc = pl->hook_data;
	struct mod_run *v = NULL;
	size_t n = 0, l, i, k = 0;

	for (l = 0; l < pl->nlines; l++) {
		struct line_part *lp = pl->lines[l].hook_data;

		if (!lp || !lp->nruns ||
		    (pc->kind == XT_DEV_XLA ? lp->role != LROLE_MODULES : lp->role != LROLE_STREAM))
			continue;
		if (pc->kind == XT_DEV_GPU)
			lp->nruns = join_splits(lp->runs, lp->nruns);
		if (!v) {
			v = lp->runs;
			n = lp->nruns;
			lp->runs = NULL;
			lp->nruns = lp->capruns = 0;
			continue;
		}
		v = xreallocarray(v, n + lp->nruns, sizeof(*v));
		memcpy(v + n, lp->runs, lp->nruns * sizeof(*v));
		n += lp->nruns;
	}
	if (pc->kind == XT_DEV_GPU)
		n = drop_loop_stretches(v, n);
	/* One XLA Modules line is in start order already: check, not sort. */
	for (i = 1; i < n && v[i - 1].start_ps <= v[i].start_ps; i++)
		;
	if (i < n)
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
 * Without step markers, steps come from the runs of the module run most
 * often (at least twice on some device) with the most device time: step k
 * on a device is its k-th run and the time until its next one, the
 * period a step marker around the loop's body would have (docs/analyses.md,
 * "Steps"). A device's last run has no next one to end its step, and is
 * often cut off by the capture's end: it is no step. Ties go to
 * the shorter name, then the smaller. One pass over the runs with a table
 * of the modules seen (a scaled or long profile has millions of runs).
 */
struct mod_stat {
	int64_t time;           /* summed run time on all devices */
	size_t most;            /* most runs on one device */
	size_t count, dev;      /* runs on device `dev`, the one being counted */
	struct bytes_ref name;
};

/* A marker (or a run) of step st, [s, e): the step is its longest one, as
 * XProf times a step by its longest device marker (the earliest on a tie).
 * Devices run a step's markers apart in time (two GPUs of one TF step 647
 * ms apart; four TPU chips up to 130 ms apart), and spanning them all
 * counted the time between as the step's, and made steps overlap. */
static void step_take(struct xt_step_row *st, int64_t s, int64_t e, int32_t h, int32_t p)
{
	int64_t d = xt_ps_sub(e, s); /* modulo 2^64, as times are */

	if (st->duration_ps < 0 || d > st->duration_ps ||
	    (d == st->duration_ps && s < st->start_ps)) {
		st->start_ps = s;
		st->duration_ps = d;
		st->dev_host = h;
		st->dev_plane = p;
	}
}

/* The program runs of every device (device_runs), in plane order. */
struct dev_runs {
	struct mod_run **runs;
	size_t *nruns, ndev;
	int32_t (*at)[2]; /* each device's host and plane */
};

/* The length of the union of runs in start order: the time the device's
 * programs ran, the idle within them included. */
static int64_t runs_union(const struct mod_run *v, size_t n)
{
	int64_t sum = 0, e = 0, s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i && v[i].start_ps < e) {
			if (v[i].end_ps > e)
				e = v[i].end_ps;
			continue;
		}
		if (i)
			sum = xt_sat_add(sum, xt_ps_sub(e, s));
		s = v[i].start_ps;
		e = v[i].end_ps;
	}
	return n ? xt_sat_add(sum, xt_ps_sub(e, s)) : 0;
}

/* Every device's runs, and the time they span into its plane_ctx's run_ps
 * (the launch_bound finding tells the idle within runs from the idle
 * between them). */
static void runs_collect(struct xt_trace *t, struct dev_runs *dr)
{
	size_t h, p;

	memset(dr, 0, sizeof(*dr));
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			struct plane_ctx *pc = pl->hook_data;
			size_t d = dr->ndev;

			if (!pc || pc->role != ROLE_DEVICE || pc->kind == XT_DEV_OTHER)
				continue;
			dr->runs = xreallocarray(dr->runs, d + 1, sizeof(*dr->runs));
			dr->nruns = xreallocarray(dr->nruns, d + 1, sizeof(*dr->nruns));
			dr->at = xreallocarray(dr->at, d + 1, sizeof(*dr->at));
			dr->at[d][0] = (int32_t)h;
			dr->at[d][1] = (int32_t)p;
			dr->nruns[d] = device_runs(pl, &dr->runs[d]);
			pc->run_ps = dr->nruns[d] ? runs_union(dr->runs[d], dr->nruns[d]) : -1;
			dr->ndev++;
		}
}

static void runs_free(struct dev_runs *dr)
{
	size_t d;

	for (d = 0; d < dr->ndev; d++)
		free(dr->runs[d]);
	free(dr->runs);
	free(dr->nruns);
	free(dr->at);
}

static void infer_steps(struct xt_analysis *a, const struct dev_runs *dr)
{
	struct mod_run **runs = dr->runs;
	const size_t *nruns = dr->nruns;
	size_t ndev = dr->ndev, d, i, nmod = 0, capmod = 0;
	int32_t (*at)[2] = dr->at;
	struct mod_stat *ms = NULL;
	const struct mod_stat *best = NULL;
	struct hmap idx;

	hmap_init(&idx);
	for (d = 0; d < ndev; d++) {
		/* Modules seen lately, by where their name is, tried first: a
		 * device runs a few modules in turn, and a run's name points
		 * into its metadata, the same bytes each time (no hashing). */
		struct {
			const char *p;
			size_t n, k;
		} seen[16] = { { NULL, 0, 0 } };

		for (i = 0; i < nruns[d]; i++) {
			struct bytes_ref m = runs[d][i].module;
			size_t c = ((uintptr_t)m.p >> 3 ^ (uintptr_t)m.p >> 7) & 15;
			struct mod_stat *x;
			uint32_t *v;
			int ins;

			if (!m.n)
				continue;
			if (m.p != seen[c].p || m.n != seen[c].n) {
				v = hmap_get(&idx, m.p, m.n, (uint32_t)nmod, &ins);
				if (ins) {
					if (nmod == capmod) {
						capmod = capmod ? 2 * capmod : 16;
						ms = xreallocarray(ms, capmod, sizeof(*ms));
					}
					ms[nmod++] = (struct mod_stat){ 0, 0, 0, d, m };
				}
				seen[c].p = m.p;
				seen[c].n = m.n;
				seen[c].k = *v;
			}
			x = &ms[seen[c].k];
			if (x->dev != d) {
				x->dev = d;
				x->count = 0;
			}
			x->count++;
			if (x->count > x->most)
				x->most = x->count;
			/* modulo 2^64, as times are; the sum saturates (a
			 * hostile file's run can last past INT64_MAX) */
			if (__builtin_add_overflow(x->time,
						   xt_ps_sub(runs[d][i].end_ps, runs[d][i].start_ps),
						   &x->time))
				x->time = INT64_MAX;
		}
	}
	hmap_fini(&idx);
	for (i = 0; i < nmod; i++) {
		const struct mod_stat *m = &ms[i];

		if (m->most < 2)
			continue;
		if (!best || m->time > best->time ||
		    (m->time == best->time &&
		     (m->name.n < best->name.n ||
		      (m->name.n == best->name.n && m->name.n &&
		       memcmp(m->name.p, best->name.p, m->name.n) < 0))))
			best = m;
	}
	if (best) {
		a->steps = xcalloc(best->most - 1, sizeof(*a->steps));
		for (i = 0; i + 1 < best->most; i++) {
			a->steps[i].id = (int64_t)i;
			a->steps[i].duration_ps = -1; /* no run yet */
		}
		for (d = 0; d < ndev; d++) {
			size_t k = 0, prev = SIZE_MAX;

			for (i = 0; i < nruns[d]; i++) {
				if (!same_module(runs[d][i].module, best->name))
					continue;
				if (prev != SIZE_MAX)
					step_take(&a->steps[k++], runs[d][prev].start_ps,
						  runs[d][i].start_ps, at[d][0], at[d][1]);
				prev = i;
			}
		}
		a->nsteps = best->most - 1;
		a->steps_source = XT_STEPS_INFERRED;
		/* Not in a->arena: this runs beside the other merges. */
		snprintf(a->steps_module, sizeof(a->steps_module), "%.*s", (int)best->name.n,
			 best->name.p);
	}
	free(ms);
}

static int step_cmp(const void *x, const void *y)
{
	const struct xt_step_row *a = x, *b = y;

	if (a->start_ps != b->start_ps)
		return a->start_ps < b->start_ps ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

void steps_merge(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha)
{
	struct dev_runs dr;
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
					   : lp->role != LROLE_HOST))
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
						st->duration_ps = -1; /* no marker yet */
					}
					step_take(&a->steps[*v], m->start_ps, m->end_ps,
						  device ? (int32_t)h : -1, device ? (int32_t)p : -1);
				}
			}
	hmap_fini(&ids);
	a->steps_source = a->nsteps ? (device ? XT_STEPS_DEVICE : XT_STEPS_HOST) : XT_STEPS_NONE;
	a->steps_module[0] = '\0';
	runs_collect(t, &dr);
	if (!a->nsteps)
		infer_steps(a, &dr);
	runs_free(&dr);
	for (i = 1; i < a->nsteps && step_cmp(&a->steps[i - 1], &a->steps[i]) <= 0; i++)
		;
	if (i < a->nsteps)
		qsort(a->steps, a->nsteps, sizeof(*a->steps), step_cmp);
	steps_breakdown(a, t, ha);
}
