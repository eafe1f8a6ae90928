/*
 * an_breakdown: the per-step breakdown (docs/analyses.md, "Steps"): each
 * instant of a step goes to the highest-priority class active then, the
 * rest is idle.
 *
 * With H_c the union of the intervals of classes 0..c (in priority order),
 * a step S gets |H_c n S| - |H_{c-1} n S| for class c and
 * |S| - |H_last n S| idle. Each |H_c n [s0, s1)| is F_c(s1) - F_c(s0), with
 * F_c(t) the length of H_c before t. So one sweep over all events in start
 * order builds the runs of every H_c and reads each F_c at the step bounds
 * only: O(events log lines + steps log steps) time and O(lines + steps)
 * memory, however many steps there are and however they overlap. (Asking,
 * per step, which events overlap it costs steps x events when a few long
 * events or long steps overlap everything, as on real host lines.)
 *
 * The sweep is a k-way merge of the lines by event start. An event that an
 * earlier event of its own line already covers (same or higher priority,
 * starting no later and ending no earlier) adds nothing to any H_c, so it
 * never enters the merge: nested host calls and kernels cost one compare.
 *
 * The sweep runs in windows, each the union of overlapping steps of one
 * device (steps_breakdown), two threads taking half of them each: a window
 * clips what it merges to its range, starts its lines where their block
 * max ends say the range begins, and measures F_c from its own start.
 *
 * Only the classes that occur are swept (levels): with no event of class c,
 * H_c is H_{c-1}, and keeping its runs would only repeat them. On TPU and
 * most GPU profiles that is two levels (device compute, host) of five.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/parfor.h"
#include "../util/sort64.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

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

/* The classes that occur, in priority order: lv[c] is category c's level,
 * -1 when no event has it; n levels. */
struct bd_levels {
	int lv[XT_CAT_COUNT];
	int n;
};

/* One line's events, or a host's activity, in start order as (start, end,
 * level), clipped to [lo, hi). */
struct bd_cursor {
	const struct xt_line *l;
	const struct line_part *lp;
	const struct bd_levels *lv;
	size_t i, n;            /* next event, events to visit */
	int64_t base;           /* the line's start, ps */
	int64_t maxend[XT_CAT_COUNT]; /* [k]: latest end of earlier events of level <= k */
	int64_t a, b;           /* the current event */
	int cat;                /* its level */
	const struct span *work; /* a host's activity (host_acts_done): n spans */
	int64_t lo, hi;
	/* A line's: no event before i ends after seen, nor before the one
	 * line_next() last read after prev; where the cursor stopped. */
	int64_t seen, prev;
	struct bd_resume *stop;
};

/*
 * Where a line's cursor stopped in a window: at event i, no event before
 * it ending after before. The next window of the line that begins at or
 * after before starts there, not back at the start of its first block:
 * with many short steps over a sparse line (a GPU's streams, a step every
 * few kernels) each window read most of a block (64 events) for nothing.
 * The events it skips end before the window begins, so they would only
 * have been clipped away, and the ends they would have set in maxend are
 * below every end still compared with it: the same breakdown, to the byte
 * (docs/performance.md, "Windows that start where the last one stopped").
 */
struct bd_resume {
	const void *key;        /* the line, or the host activity's spans */
	int64_t lo;             /* the last window's start, */
	size_t from;            /* and its first block (span) ending after it */
	size_t i;               /* a line's: where it stopped, */
	int64_t before;         /* no event before i ending after this */
};

/* The line's next event that adds to some H, unclipped; 0 at the end. */
static int line_next(struct bd_cursor *c, int64_t *pa, int64_t *pb, int *pcat)
{
	const struct line_part *lp = c->lp;

	while (c->i < c->n) {
		size_t i = c->i++;
		const struct xt_event *ev = &c->l->ev[i];
		int64_t a, b, dur;
		int cat, k;

		if (xt_event_aggregated(ev) || (dur = xt_event_dur(c->l, ev)) <= 0)
			continue;
		if (lp->role == LROLE_XLA_OPS && xt_event_depth(ev) != 0)
			continue;
		cat = c->lv->lv[cat_of_class(lp->cls ? lp->cls[i] : EVC_COMPUTE)];
		a = xt_ps_add(c->base, xt_event_off(c->l, i));
		b = xt_sat_add(a, dur); /* a hostile duration: the span stays ordered */
		c->prev = c->seen;
		if (b > c->seen)
			c->seen = b;
		if (c->maxend[cat] >= b)
			continue; /* inside an earlier event of this line */
		/* maxend grows with the level (each level's events are its
		 * successors' too): the first that reaches b, and every one
		 * after it, stay. */
		for (k = cat; k < c->lv->n && b > c->maxend[k]; k++)
			c->maxend[k] = b;
		*pa = a;
		*pb = b;
		*pcat = cat;
		return 1;
	}
	return 0;
}

/* Moves c to its next event that adds to some H inside [lo, hi); returns 0
 * at the end. */
static int bd_next(struct bd_cursor *c)
{
	for (;;) {
		int64_t a, b;
		int cat;

		if (c->work) {
			/* The host's work, already one union. */
			if (c->i >= c->n)
				return 0;
			a = c->work[c->i].s;
			b = c->work[c->i++].e;
			cat = c->lv->lv[XT_CAT_HOST_COMPUTE];
		} else if (!line_next(c, &a, &b, &cat)) {
			c->stop->i = c->n;
			c->stop->before = c->seen;
			return 0;
		}
		if (a >= c->hi) {
			/* starts are in order: nothing more is inside */
			if (!c->work) {
				c->stop->i = c->i - 1;
				c->stop->before = c->prev;
			}
			return 0;
		}
		if (a < c->lo)
			a = c->lo;
		if (b > c->hi)
			b = c->hi;
		if (b > a) {
			c->a = a;
			c->b = b;
			c->cat = cat;
			return 1;
		}
	}
}

/* A min-heap of cursors by current start. */
static void heap_down(struct bd_cursor **h, size_t n, size_t i)
{
	struct bd_cursor *x = h[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= n)
			break;
		if (k + 1 < n && h[k + 1]->a < h[k]->a)
			k++;
		if (h[k]->a >= x->a)
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = x;
}


/* The H runs being built, one per level, and F read at the sorted query
 * times. */
struct bd_sweep {
	const struct sort_kv *q; /* the step bounds: times (k), slots (v) */
	size_t nq;
	int nlv;
	int64_t *f;             /* [slot * XT_CAT_COUNT + level] = F(t) */
	struct {
		int64_t s, e;   /* the open run */
		int open;
		int64_t done;   /* length of the runs before it */
		size_t next;    /* first query not answered yet */
	} h[XT_CAT_COUNT];
};

/* Closes H_c's open run: answers the queries up to its end. */
static void run_close(struct bd_sweep *sw, int c)
{
	int64_t s = sw->h[c].s, e = sw->h[c].e;
	size_t j = sw->h[c].next;

	for (; j < sw->nq && sw->q[j].k <= e; j++) {
		int64_t in = xt_sat_sub(sw->q[j].k, s);

		sw->f[sw->q[j].v * XT_CAT_COUNT + c] = xt_sat_add(sw->h[c].done, in > 0 ? in : 0);
	}
	sw->h[c].next = j;
	sw->h[c].done = xt_sat_add(sw->h[c].done, xt_sat_sub(e, s));
}

/* Each H_c holds its predecessors, so while H_c is open its successors
 * are, and end no earlier: an event inside H_c's open run changes none of
 * them. */
static void sweep_add(struct bd_sweep *sw, int64_t a, int64_t b, int cat)
{
	int c;

	for (c = cat; c < sw->nlv; c++) {
		if (sw->h[c].open && a <= sw->h[c].e) {
			if (b <= sw->h[c].e)
				break;
			sw->h[c].e = b;
			continue;
		}
		if (sw->h[c].open)
			run_close(sw, c);
		sw->h[c].s = a;
		sw->h[c].e = b;
		sw->h[c].open = 1;
	}
}

/* The first of n ends (each at stride bytes from the last, plus base) that
 * is after lo, the ends monotone (a prefix max, or disjoint spans): from
 * `from`, which no later end may precede, galloping then halving, so that
 * a line's next window, a little later, finds its start in a few steps.
 * The index a binary search over all n would find. */
static size_t first_after(const int64_t *ends, size_t stride, int64_t base, size_t n, size_t from,
			  int64_t lo)
{
	size_t b = from, e, step = 1, m;

#define END_AT(i) xt_ps_add(base, *(const int64_t *)((const char *)ends + (i) * stride))
	for (;;) {
		e = b + step - 1;
		if (e >= n) {
			e = n;
			break;
		}
		if (END_AT(e) > lo)
			break;
		b = e + 1;
		step *= 2;
	}
	while (b < e) {
		m = b + (e - b) / 2;
		if (END_AT(m) <= lo)
			b = m + 1;
		else
			e = m;
	}
#undef END_AT
	return b;
}

/* A cursor for line ln or, with work, for a host's n spans, clipped to
 * [lo, hi): it starts at the first span that ends after lo, or at the
 * first block of events whose max end (a running max) is after lo, or
 * where the line's last window stopped (r) when that is later and no
 * event before it ends after lo. r remembers the search for the next. */
static void cursor_add(struct bd_cursor *c, const struct bd_levels *lv, const struct xt_line *ln,
		       const struct span *work, size_t nw, int64_t lo, int64_t hi,
		       struct bd_resume *r)
{
	const void *key = work ? (const void *)work : (const void *)ln;
	size_t b, from = r->key == key && r->lo <= lo ? r->from : 0;
	int k;

	memset(c, 0, sizeof(*c));
	c->lv = lv;
	c->lo = lo;
	c->hi = hi;
	if (work) {
		c->work = work;
		c->n = nw;
		b = nw ? first_after(&work[0].e, sizeof(*work), 0, nw, from, lo) : 0;
		c->i = b;
	} else {
		c->l = ln;
		c->lp = ln->hook_data;
		c->n = ln->nev;
		c->base = xt_line_base(ln);
		c->seen = INT64_MIN;
		c->stop = r;
		b = 0;
		if (ln->blk_maxend) {
			b = first_after(ln->blk_maxend, sizeof(int64_t), c->base,
					(ln->nev + XT_BLOCK - 1) / XT_BLOCK, from, lo);
			c->i = b * XT_BLOCK < c->n ? b * XT_BLOCK : c->n;
			/* Every event of the blocks before ends by then. */
			if (b)
				c->seen = xt_ps_add(c->base, ln->blk_maxend[b - 1]);
		}
		if (r->key == key && r->i > c->i && r->before <= lo) {
			c->i = r->i;
			c->seen = r->before;
		}
	}
	r->key = key;
	r->lo = lo;
	r->from = b;
	for (k = 0; k < XT_CAT_COUNT; k++)
		c->maxend[k] = INT64_MIN;
}

/* What the sweep merges, in a fixed order: per host its activity (ln NULL;
 * when it has any) and its lines of device events. */
struct bd_src {
	const struct xt_line *ln;
	size_t host;
};

/* A window of time [lo, hi) swept on its own: the union of overlapping
 * steps of one group (a device's, or every device's), F_c at their bounds
 * measured from lo, into the shared f (slots of their own). Both bounds
 * of a step lie in one window, so no window's lengths shift another's. */
struct bd_win {
	int64_t lo, hi;
	size_t g;               /* its group */
	size_t q0, nq;          /* its queries in q, by time */
};

/* Steps of one device (or of host markers: every device) and what their
 * breakdown sweeps. */
struct bd_group {
	struct bd_src *src;
	size_t nsrc;
	struct bd_levels lv;
};

/* Windows [w0, w1) for one thread. */
struct bd_job {
	const struct bd_win *w;
	size_t w0, w1;
	const struct bd_group *g;
	const struct host_act *ha;
	const struct sort_kv *q;
	int64_t *f;
	size_t maxsrc;
};

static void win_run(const struct bd_win *w, const struct bd_group *g, const struct host_act *ha,
		    const struct sort_kv *q, int64_t *f, struct bd_cursor *cur,
		    struct bd_cursor **heap, struct bd_resume *res)
{
	struct bd_sweep sw;
	size_t i, n = g->nsrc, nh = 0;
	int c;

	for (i = 0; i < n; i++) {
		const struct bd_src *sr = &g->src[i];

		if (sr->ln)
			cursor_add(&cur[i], &g->lv, sr->ln, NULL, 0, w->lo, w->hi, &res[i]);
		else
			cursor_add(&cur[i], &g->lv, NULL, ha[sr->host].v, ha[sr->host].n, w->lo,
				   w->hi, &res[i]);
		if (bd_next(&cur[i]))
			heap[nh++] = &cur[i];
	}
	for (i = nh; i-- > 0;)
		heap_down(heap, nh, i);
	memset(&sw, 0, sizeof(sw));
	sw.q = q + w->q0;
	sw.nq = w->nq;
	sw.nlv = g->lv.n;
	sw.f = f;
	while (nh) {
		struct bd_cursor *x = heap[0];

		sweep_add(&sw, x->a, x->b, x->cat);
		if (!bd_next(x))
			heap[0] = heap[--nh];
		if (nh)
			heap_down(heap, nh, 0);
	}
	for (c = 0; c < sw.nlv; c++) {
		if (sw.h[c].open)
			run_close(&sw, c);
		for (i = sw.h[c].next; i < sw.nq; i++)
			sw.f[sw.q[i].v * XT_CAT_COUNT + c] = sw.h[c].done;
	}
}

static void job_run(void *arg, size_t k)
{
	const struct bd_job *jb = &((const struct bd_job *)arg)[k];
	struct bd_cursor *cur = xcalloc(jb->maxsrc ? jb->maxsrc : 1, sizeof(*cur));
	struct bd_cursor **heap = xcalloc(jb->maxsrc ? jb->maxsrc : 1, sizeof(*heap));
	/* Per source: where its line's cursor stopped in this thread's last
	 * window of it (the windows run in time order within a group). */
	struct bd_resume *res = xcalloc(jb->maxsrc ? jb->maxsrc : 1, sizeof(*res));
	size_t i;

	for (i = jb->w0; i < jb->w1; i++)
		win_run(&jb->w[i], &jb->g[jb->w[i].g], jb->ha, jb->q, jb->f, cur, heap, res);
	free(res);
	free(heap);
	free(cur);
}

/* Whether a line's classes are all device compute, else which of
 * categories occur (any event of the line, a superset of what it sweeps:
 * a level too many costs time, never a number). */
static unsigned line_cats(const struct line_part *lp, size_t n)
{
	uint8_t any = 0, seen[256] = { 0 };
	unsigned m = 0;
	size_t i;
	int v;

	if (!lp->cls)
		return 1u << XT_CAT_DEVICE_COMPUTE;
	for (i = 0; i < n; i++) /* EVC_COMPUTE is 0: vectorised */
		any |= lp->cls[i];
	if (!any)
		return 1u << XT_CAT_DEVICE_COMPUTE;
	for (i = 0; i < n; i++)
		seen[lp->cls[i]] = 1;
	for (v = 0; v < 256; v++)
		if (seen[v])
			m |= 1u << cat_of_class(v);
	return m;
}

static void src_push(struct bd_src **v, size_t *n, size_t *cap, const struct xt_line *ln, size_t h)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = (struct bd_src){ ln, h };
}

/* The sources of t, *n of them (the caller frees the array): all of them,
 * or with h >= 0 host h's activity and plane p's lines. */
static struct bd_src *sources_of(const struct xt_trace *t, const struct host_act *ha, int32_t hh,
				 int32_t pp, size_t *n)
{
	struct bd_src *v = NULL;
	size_t h, p, l, cap = 0;

	*n = 0;
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *ho = &t->hosts[h];

		if (hh >= 0 && h != (size_t)hh)
			continue;
		if (ha[h].n)
			src_push(&v, n, &cap, NULL, h);
		for (p = 0; p < ho->nplanes; p++) {
			if (pp >= 0 && p != (size_t)pp)
				continue;
			for (l = 0; l < ho->planes[p].nlines; l++) {
				const struct xt_line *ln = &ho->planes[p].lines[l];
				const struct line_part *lp = ln->hook_data;

				if (lp && ln->nev &&
				    (lp->role == LROLE_XLA_OPS || lp->role == LROLE_STREAM))
					src_push(&v, n, &cap, ln, h);
			}
		}
	}
	return v;
}

static void levels_find(struct bd_levels *lv, const struct bd_src *src, size_t n)
{
	unsigned m = 0;
	size_t i;
	int c;

	for (i = 0; i < n; i++)
		m |= src[i].ln ? line_cats(src[i].ln->hook_data, src[i].ln->nev)
			       : 1u << XT_CAT_HOST_COMPUTE;
	lv->n = 0;
	for (c = 0; c < XT_CAT_COUNT; c++)
		lv->lv[c] = (m >> c) & 1 ? lv->n++ : -1;
}

static int owner_cmp(const void *x, const void *y, void *arg)
{
	const struct xt_step_row *s = arg, *a = &s[*(const size_t *)x], *b = &s[*(const size_t *)y];

	if (a->dev_host != b->dev_host)
		return a->dev_host < b->dev_host ? -1 : 1;
	if (a->dev_plane != b->dev_plane)
		return a->dev_plane < b->dev_plane ? -1 : 1;
	if (a->start_ps != b->start_ps)
		return a->start_ps < b->start_ps ? -1 : 1;
	return 0;
}

static int same_owner(const struct xt_step_row *a, const struct xt_step_row *b)
{
	return a->dev_host == b->dev_host && a->dev_plane == b->dev_plane;
}

/* A step's breakdown from the F values at its start (f0) and end (f1). */
static void step_fill(struct xt_step_row *st, const struct bd_levels *lv, const int64_t *f0,
		      const int64_t *f1)
{
	int64_t prev = 0;
	int c, k;

	memset(st->cat_ps, 0, sizeof(st->cat_ps));
	if (st->duration_ps <= 0) {
		st->idle_ps = st->duration_ps;
		return;
	}
	for (c = 0, k = -1; c < XT_CAT_COUNT; c++) {
		/* A class that never occurs adds nothing to the union of the
		 * ones before it. */
		int64_t in;

		if (lv->lv[c] >= 0)
			k = lv->lv[c];
		in = k >= 0 ? xt_sat_sub(f1[k], f0[k]) : 0;
		st->cat_ps[c] = xt_sat_sub(in, prev);
		prev = in;
	}
	st->idle_ps = xt_sat_sub(st->duration_ps, prev);
}

/*
 * A step that is one device's marker or run is broken down over that
 * device's work and its host's: the TPU's four chips run a step out of
 * phase, and one chip's window swept over all four counted the others'
 * fusions as its compute and their offload waits over its prefetch waits
 * (56/36/8 % H2D/D2H/compute where each chip's own runs are 75/22/3 %).
 * XProf breaks a TPU step down per core too. Steps of host markers are of
 * every device's work.
 *
 * Each group's steps (a device's) are swept only where they are: in
 * windows, the unions of its overlapping steps, so that a host's activity
 * is swept about once however many devices own steps, and time between
 * steps not at all. The windows are shared out over two threads.
 */
void steps_breakdown(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha)
{
	struct bd_group *g = NULL;
	struct bd_win *w = NULL;
	struct sort_kv *q;
	struct bd_job jb[2];
	int64_t *f;
	size_t *sel, *gof, i, j, ng = 0, nw = 0, nq = 0, maxsrc = 0, k;

	if (!a->nsteps)
		return;
	sel = xmalloc(a->nsteps * sizeof(*sel));
	gof = xmalloc(a->nsteps * sizeof(*gof));
	for (i = 0; i < a->nsteps; i++)
		sel[i] = i;
	qsort_r(sel, a->nsteps, sizeof(*sel), owner_cmp, a->steps);
	q = xmalloc(2 * a->nsteps * sizeof(*q));
	w = xmalloc(a->nsteps * sizeof(*w));
	g = xmalloc(a->nsteps * sizeof(*g));
	for (i = 0; i < a->nsteps; i = j) {
		const struct xt_step_row *st = &a->steps[sel[i]];

		for (j = i + 1; j < a->nsteps && same_owner(st, &a->steps[sel[j]]); j++)
			;
		g[ng].src = sources_of(t, ha, st->dev_host, st->dev_host >= 0 ? st->dev_plane : -1,
				       &g[ng].nsrc);
		levels_find(&g[ng].lv, g[ng].src, g[ng].nsrc);
		if (g[ng].nsrc > maxsrc)
			maxsrc = g[ng].nsrc;
		/* Its windows: steps by start, overlapping ones merged. */
		for (k = i; k < j; k++) {
			const struct xt_step_row *s = &a->steps[sel[k]];
			int64_t e = xt_ps_add(s->start_ps, s->duration_ps > 0 ? s->duration_ps : 0);

			if (k == i || s->start_ps >= w[nw - 1].hi) {
				w[nw++] = (struct bd_win){ s->start_ps, e, ng, nq, 0 };
			} else if (e > w[nw - 1].hi) {
				w[nw - 1].hi = e;
			}
			gof[sel[k]] = ng;
			/* Slot 2m is step m's start, 2m + 1 its end. */
			q[nq++] = (struct sort_kv){ s->start_ps, 2 * sel[k] };
			q[nq++] = (struct sort_kv){ e, 2 * sel[k] + 1 };
			w[nw - 1].nq += 2;
		}
		ng++;
	}
	for (i = 0; i < nw; i++)
		sort_kv(q + w[i].q0, w[i].nq);
	f = xcalloc(2 * a->nsteps * XT_CAT_COUNT, sizeof(int64_t));
	for (k = 0; k < 2; k++)
		jb[k] = (struct bd_job){ w, k ? nw / 2 : 0, k ? nw : nw / 2, g, ha, q, f, maxsrc };
	par_for(2, 2, job_run, jb);
	for (i = 0; i < a->nsteps; i++)
		step_fill(&a->steps[i], &g[gof[i]].lv, &f[2 * i * XT_CAT_COUNT],
			  &f[(2 * i + 1) * XT_CAT_COUNT]);
	for (i = 0; i < ng; i++)
		free(g[i].src);
	free(g);
	free(w);
	free(f);
	free(q);
	free(gof);
	free(sel);
}
