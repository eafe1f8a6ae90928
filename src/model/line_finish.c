/*
 * line_finish: a decoded line's depths, the prefix max end per block and
 * the long durations' index (trace.h). A line in order has them worked
 * out by each range as it is decoded (struct fin_out), and is only fixed
 * up where a range began inside events opened before it: the pass over
 * every event after decoding read and wrote the whole event array again
 * (bound by memory bandwidth: two threads each doing half of it took as
 * long as one doing all). A sorted line, or one whose ranges cannot be
 * fixed up, gets that pass (line_finish). A line that keeps no events
 * (xt_line.kept_none) needs only its deepest depth: each range leaves its
 * tops (struct fin_tops) while its events are at hand, and the fix-up
 * reads those (line_finish_tops).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "line_int.h"

/*
 * Events [from, to) (from a multiple of XT_BLOCK, and 0 or one of seg when
 * there are long durations) with f's state. l->long_ps holds the long
 * durations in event order, except that the events from seg[s] on (every
 * XT_BLOCK-th event or none, ascending; NULL: none) start again at
 * long_ps[seg[s]].
 */
static void fin_range(struct xt_line *l, size_t from, size_t to, const size_t *seg, size_t nseg,
		      struct fin *f)
{
	size_t i, cur = 0, s = 0;

	for (i = from; i < to; i++) {
		struct xt_event *e = &l->ev[i];
		int64_t dur = e->dur;

		if (!(i % XT_BLOCK) && l->nlong_dur) {
			while (s < nseg && seg[s] <= i)
				cur = seg[s++];
			l->long_first[i / XT_BLOCK] = (uint32_t)cur;
		}
		if (e->dur == XT_DUR_LONG) {
			l->long_mask[i / XT_BLOCK] |= UINT64_C(1) << (i % XT_BLOCK);
			dur = l->long_ps[cur++];
		}
		if (!xt_event_aggregated(e))
			fin_set_depth(e, fin_step(f, xt_event_off(l, i), dur));
		if ((i + 1) % XT_BLOCK == 0 || i + 1 == l->nev)
			l->blk_maxend[i / XT_BLOCK] = f->maxend;
	}
}

static void fin_alloc(struct xt_line *l, size_t nblk)
{
	l->blk_maxend = nblk ? xmalloc(nblk * sizeof(int64_t)) : NULL;
	if (l->nlong_dur) {
		l->long_mask = xcalloc(nblk, sizeof(*l->long_mask));
		l->long_first = xmalloc(nblk * sizeof(*l->long_first));
	}
}

void line_finish(struct xt_line *l, const size_t *seg, size_t nseg)
{
	struct fin f;

	fin_alloc(l, (l->nev + XT_BLOCK - 1) / XT_BLOCK);
	fin_init(&f);
	fin_range(l, 0, l->nev, seg, nseg, &f);
	l->max_depth = f.max_depth;
}

void fin_out_init(struct fin_out *fo, size_t nblk)
{
	memset(fo, 0, sizeof(*fo));
	fin_init(&fo->f);
	if (!nblk)
		return;
	/* lmask too: each block's word is zeroed as the block opens. */
	fo->bmax = xmalloc(nblk * sizeof(*fo->bmax));
	fo->lmask = xmalloc(nblk * sizeof(*fo->lmask));
	fo->lfirst = xmalloc(nblk * sizeof(*fo->lfirst));
	fo->cap = nblk;
}

void fin_out_free(struct fin_out *fo)
{
	free(fo->bmax);
	free(fo->lmask);
	free(fo->lfirst);
	free(fo->tops);
	memset(fo, 0, sizeof(*fo));
}

static int step_max_lt(const struct fin_step_max *a, const struct fin_step_max *b)
{
	if (a->x_inf || b->x_inf)
		return !a->x_inf && b->x_inf;
	return a->x < b->x;
}

/* A run of the range's events under running max x, the deepest at d. */
static void tops_push(struct fin_tops *t, struct fin_step_max x, unsigned d)
{
	x.d = d;
	if (t->n && d <= t->st[t->n - 1].d)
		return; /* an earlier run is as deep with as many entries left */
	if (t->n && !step_max_lt(&t->st[t->n - 1], &x))
		t->st[t->n - 1] = x; /* the same x, deeper */
	else if (t->n < sizeof(t->st) / sizeof(t->st[0]))
		t->st[t->n++] = x;
}

void fin_tops_begin(struct fin_out *fo)
{
	fo->tops = xcalloc(1, sizeof(*fo->tops));
	fo->tops->x = (struct fin_step_max){ INT64_MIN, 0, 0 };
}

/* An event at depth 0: the tops so far get the run under the last one. */
void fin_top_push(struct fin_tops *t, int64_t off, int64_t dur)
{
	struct fin_step_max m = { 0, 0, 0 };

	if (t->any)
		tops_push(t, t->x, t->gmax);
	if (dur == 0) {
		m.x_inf = off == INT64_MAX;
		m.x = m.x_inf ? 0 : off + 1;
	} else {
		m.x = (int64_t)((uint64_t)off + (uint64_t)dur);
	}
	if (!t->any || step_max_lt(&t->x, &m))
		t->x = m;
	t->any = 1;
	t->gmax = 0;
}

void fin_tops_end(struct fin_out *fo)
{
	struct fin_tops *t = fo->tops;

	if (t->any)
		tops_push(t, t->x, t->gmax);
	t->last = t->x;
}

/* The stack after a range: what survived of s under the range's own
 * open events (own), which go on top; -1 when they do not fit. */
static int fin_carry(struct fin *s, const struct fin *own)
{
	if (s->sp + own->sp > 128)
		return -1;
	memcpy(s->stack + s->sp, own->stack, own->sp * sizeof(own->stack[0]));
	s->sp += own->sp;
	if (own->max_depth > s->max_depth)
		s->max_depth = own->max_depth;
	return 0;
}

/* How many entries of s survive x (a prefix from the bottom). */
static unsigned fin_survivors(const struct fin *s, const struct fin_step_max *x)
{
	unsigned sp = s->sp;

	while (sp && (x->x_inf || s->stack[sp - 1] < x->x))
		sp--;
	return sp;
}

int line_finish_tops(struct xt_line *l, struct fin_out *const *fo, size_t n)
{
	struct fin s;
	size_t k, j;

	fin_init(&s);
	for (k = 0; k < n; k++) {
		const struct fin *own = &fo[k]->f;
		const struct fin_tops *t = fo[k]->tops;

		if (!t)
			return -1;
		for (j = 0; j < t->n && s.sp; j++) {
			unsigned c = fin_survivors(&s, &t->st[j]), d;

			if (!c)
				break;
			d = t->st[j].d + c;
			if (d >= XT_EV_DEPTH_MAX)
				return -1;
			if (d > s.max_depth)
				s.max_depth = d;
		}
		if (t->any)
			s.sp = fin_survivors(&s, &t->last);
		if (fin_carry(&s, own) < 0)
			return -1;
	}
	l->max_depth = s.max_depth;
	return 0;
}

/*
 * Events [from, to) were given depths with an empty stack; s is the stack
 * the events before them left. An event the range's own stack left empty
 * pops s as it would have; until s is empty, every event is deeper by
 * what s holds. Returns -1 when a depth reaches the cap (the stack's
 * limit may have mattered: the line needs one pass).
 */
static int fin_fix(struct xt_line *l, size_t from, size_t to, struct fin *s)
{
	size_t i;

	for (i = from; i < to && s->sp; i++) {
		struct xt_event *e = &l->ev[i];
		unsigned d = xt_event_depth(e);

		if (xt_event_aggregated(e))
			continue;
		if (d == 0) {
			int64_t off = xt_event_off(l, i), dur = xt_event_dur(l, e);

			fin_pop(s, off, dur, (int64_t)((uint64_t)off + (uint64_t)dur));
		}
		if (d + s->sp >= XT_EV_DEPTH_MAX)
			return -1;
		fin_set_depth(e, d + s->sp);
		if (d + s->sp > s->max_depth)
			s->max_depth = d + s->sp;
	}
	return 0;
}

/* The ranges' block arrays into the line's, the max ends carried over
 * the ranges before; each range's own arrays are done with once copied. */
static void fin_join_blocks(struct xt_line *l, struct fin_out *const *fo, const size_t *first,
			    size_t n)
{
	int64_t carry = INT64_MIN;
	size_t k, b;

	for (k = 0; k < n; k++) {
		size_t end = k + 1 < n ? first[k + 1] : l->nev;
		size_t b0 = first[k] / XT_BLOCK, nb = (end - first[k] + XT_BLOCK - 1) / XT_BLOCK;

		for (b = 0; b < nb; b++)
			l->blk_maxend[b0 + b] = fo[k]->bmax[b] > carry ? fo[k]->bmax[b] : carry;
		if (l->nlong_dur && nb) {
			memcpy(l->long_mask + b0, fo[k]->lmask, nb * sizeof(*l->long_mask));
			memcpy(l->long_first + b0, fo[k]->lfirst, nb * sizeof(*l->long_first));
		}
		if (fo[k]->f.maxend > carry)
			carry = fo[k]->f.maxend;
		free(fo[k]->bmax);
		free(fo[k]->lmask);
		free(fo[k]->lfirst);
		fo[k]->bmax = NULL;
		fo[k]->lmask = NULL;
		fo[k]->lfirst = NULL;
	}
}

int line_finish_ranges(struct xt_line *l, struct fin_out *const *fo, const size_t *first, size_t n)
{
	size_t nblk = (l->nev + XT_BLOCK - 1) / XT_BLOCK, k;
	struct fin s; /* the open events at the start of range k */

	for (k = 0; k < n; k++) {
		size_t end = k + 1 < n ? first[k + 1] : l->nev;

		if ((end > first[k] && !fo[k]->bmax) ||
		    fo[k]->cap < (end - first[k] + XT_BLOCK - 1) / XT_BLOCK)
			return -1;
	}
	if (n == 1 && nblk) {
		/* One range: its arrays are the line's. */
		l->blk_maxend = xreallocarray(fo[0]->bmax, nblk, sizeof(*l->blk_maxend));
		fo[0]->bmax = NULL;
		if (l->nlong_dur) {
			l->long_mask = xreallocarray(fo[0]->lmask, nblk, sizeof(*l->long_mask));
			l->long_first = xreallocarray(fo[0]->lfirst, nblk, sizeof(*l->long_first));
			fo[0]->lmask = NULL;
			fo[0]->lfirst = NULL;
		}
	} else {
		fin_alloc(l, nblk);
		fin_join_blocks(l, fo, first, n);
	}
	/* Depths: each range from the stack the ones before it left, which
	 * is what survives of that stack under the range's own. */
	fin_init(&s);
	for (k = 0; k < n; k++) {
		size_t end = k + 1 < n ? first[k + 1] : l->nev;
		const struct fin *own = &fo[k]->f;

		if (fin_fix(l, first[k], end, &s) < 0 || fin_carry(&s, own) < 0)
			goto again;
	}
	l->max_depth = s.max_depth;
	return 0;
again:
	free(l->blk_maxend);
	free(l->long_mask);
	free(l->long_first);
	l->blk_maxend = NULL;
	l->long_mask = NULL;
	l->long_first = NULL;
	return -1;
}
