/* timeline: see timeline.h. */
#include "timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "xplane_reader.h"

static const char *line_name(const struct xt_line *l)
{
	if (l->display_name && l->display_name[0])
		return l->display_name;
	return l->name && l->name[0] ? l->name : "(unnamed)";
}

/* A line's name and id as its label reads them. */
struct lname {
	const char *name;
	char *own;              /* name, when read here */
	int64_t id;
};

/*
 * A line a live load still decodes is not to be read (trace.h: the
 * decoder writes its name and id meanwhile): its name and id are read
 * from its bytes instead, as far as its first event, where the decoder
 * finds them too (a name given after an event may change its label once
 * it is decoded).
 */
static void line_head(const struct xt_host *h, const struct xt_line *l, struct lname *o)
{
	struct xplane_line_head hd;

	(void)xplane_line_peek(h, l, 0, &hd);
	o->id = hd.id;
	if (hd.ndisplay)
		o->own = xstrndup(hd.display_name, hd.ndisplay);
	else if (hd.nname)
		o->own = xstrndup(hd.name, hd.nname);
	else
		o->own = xstrdup("(unnamed)");
	o->name = o->own;
}

static int line_cmp(const void *x, const void *y, void *names)
{
	const struct lname *v = names;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int r = strcmp(v[a].name, v[b].name);

	return r ? r : (a > b) - (a < b);
}

/* Labels for the n lines of plane p of host h (label[i] for line i, each
 * owned): names that repeat get the line id, and should ids repeat too, a
 * running number. */
static void label_plane(char **label, size_t n, const struct xt_host *h, const struct xt_plane *p)
{
	size_t *idx = xmalloc((n ? n : 1) * sizeof(size_t)), i, j, k, m;
	struct lname *v = xcalloc(n ? n : 1, sizeof(*v));

	for (i = 0; i < n; i++) {
		idx[i] = i;
		if (p->lines[i].loading) {
			line_head(h, &p->lines[i], &v[i]);
		} else {
			v[i].name = line_name(&p->lines[i]);
			v[i].id = p->lines[i].id;
		}
	}
	qsort_r(idx, n, sizeof(size_t), line_cmp, v);
	for (i = 0; i < n; i = j) {
		const char *name = v[idx[i]].name;

		for (j = i + 1; j < n && !strcmp(v[idx[j]].name, name); j++)
			;
		if (j - i == 1) {
			label[idx[i]] = xstrdup(name);
			continue;
		}
		for (k = i; k < j; k++) {
			int64_t id = v[idx[k]].id;
			int dup_id = 0;
			char buf[64];

			for (m = i; m < j; m++)
				dup_id |= m != k && v[idx[m]].id == id;
			if (dup_id)
				snprintf(buf, sizeof(buf), " [%" PRId64 " #%zu]", id, k - i + 1);
			else
				snprintf(buf, sizeof(buf), " [%" PRId64 "]", id);
			label[idx[k]] = xmalloc(strlen(name) + strlen(buf) + 1);
			strcpy(label[idx[k]], name);
			strcat(label[idx[k]], buf);
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].own);
	free(v);
	free(idx);
}

static int64_t far_clamp(int64_t v)
{
	return v < -TIMELINE_FAR ? -TIMELINE_FAR : v > TIMELINE_FAR - 1 ? TIMELINE_FAR - 1 : v;
}

struct timeline *timeline_new(struct xt_trace *t)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));
	size_t h, p, l, n = 0;

	tl->t = t;
	tl->t0 = INT64_MAX;
	tl->t1 = INT64_MIN;
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			n += t->hosts[h].planes[p].nlines;
	tl->tracks = xcalloc(n ? n : 1, sizeof(*tl->tracks));
	for (h = 0; h < t->nhosts; h++) {
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			struct xt_plane *pl = &t->hosts[h].planes[p];
			/* Labelled among all the plane's lines, so that a name
			 * reads the same before and after a live load ends. */
			char **label = xcalloc(pl->nlines ? pl->nlines : 1, sizeof(*label));

			label_plane(label, pl->nlines, &t->hosts[h], pl);
			for (l = 0; l < pl->nlines; l++) {
				struct xt_line *ln = &pl->lines[l];
				struct tl_track *tr;
				size_t nblk;

				if (ln->loading) {
					free(label[l]); /* not decoded yet (a live load) */
					continue;
				}
				tr = &tl->tracks[tl->ntracks++];
				tr->label = label[l];
				nblk = (ln->nev + XT_BLOCK - 1) / XT_BLOCK;

				tr->host = h;
				tr->plane = p;
				tr->line = l;
				tr->l = ln;
				tr->p = pl;
				int64_t s, e;

				if (!ln->nev || xt_event_aggregated(&ln->ev[0]))
					continue;
				s = xt_event_start(ln, &ln->ev[0]);
				e = xt_ps_add(xt_line_base(ln), ln->blk_maxend[nblk - 1]);
				if (s < tl->t0)
					tl->t0 = s;
				if (e > tl->t1)
					tl->t1 = e;
				if (strncmp(pl->name, "/device:", 8))
					continue;
				if (!tl->has_dev || s < tl->dev_t0)
					tl->dev_t0 = s;
				if (!tl->has_dev || e > tl->dev_t1)
					tl->dev_t1 = e;
				tl->has_dev = 1;
			}
			free(label);
		}
	}
	if (tl->t0 > tl->t1) {
		tl->t0 = 0;
		tl->t1 = 1;
	}
	tl->t0 = far_clamp(tl->t0);
	tl->t1 = far_clamp(tl->t1);
	if (tl->t1 == tl->t0)
		tl->t1 = tl->t0 + 1;
	if (!tl->has_dev) {
		tl->dev_t0 = tl->t0;
		tl->dev_t1 = tl->t1;
	}
	tl->dev_t0 = far_clamp(tl->dev_t0);
	tl->dev_t1 = far_clamp(tl->dev_t1);
	if (tl->dev_t1 <= tl->dev_t0) /* a wrapped end: the whole extent */
		tl->dev_t0 = tl->t0, tl->dev_t1 = tl->t1;
	return tl;
}

void timeline_clamp(const struct timeline *tl, int64_t *s, int64_t *e)
{
	*s = *s < tl->t0 ? tl->t0 : *s > tl->t1 ? tl->t1 : *s;
	*e = *e < *s ? *s : *e > tl->t1 ? tl->t1 : *e;
}

void timeline_event_span(const struct timeline *tl, const struct xt_line *l,
			 const struct xt_event *ev, int64_t *s, int64_t *e)
{
	*s = xt_event_start(l, ev);
	*e = xt_sat_add(*s, xt_event_dur(l, ev));
	timeline_clamp(tl, s, e);
}

void timeline_adopt(struct timeline *tl, struct timeline *old)
{
	size_t i, j = 0;

	/* Both list the trace's lines in the same order, tl a superset. */
	for (i = 0; i < tl->ntracks && j < old->ntracks; i++) {
		if (tl->tracks[i].l != old->tracks[j].l)
			continue;
		if (!tl->tracks[i].depth) {
			tl->tracks[i].depth = old->tracks[j].depth;
			old->tracks[j].depth = NULL;
		}
		j++;
	}
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->ntracks; i++) {
		free(tl->tracks[i].label);
		if (tl->tracks[i].depth) {
			free(tl->tracks[i].depth->idx);
			free(tl->tracks[i].depth->start);
			free(tl->tracks[i].depth->key);
			free(tl->tracks[i].depth);
		}
	}
	free(tl->tracks);
	free(tl);
}

const struct tl_depth *timeline_depth(struct timeline *tl, size_t i)
{
	struct tl_track *tr = &tl->tracks[i];
	const struct xt_line *l = tr->l;
	struct tl_depth *d;
	size_t *fill, e, nkey;
	unsigned k;

	if (tr->depth)
		return tr->depth;
	d = xcalloc(1, sizeof(*d));
	d->ndepth = l->nev ? l->max_depth + 1 : 0;
	d->start = xcalloc(d->ndepth + 1, sizeof(size_t));
	for (e = 0; e < l->nev; e++)
		if (!xt_event_aggregated(&l->ev[e]))
			d->start[xt_event_depth(&l->ev[e]) + 1]++;
	for (k = 0; k < d->ndepth; k++)
		d->start[k + 1] += d->start[k];
	d->idx = xmalloc((d->start[d->ndepth] ? d->start[d->ndepth] : 1) * sizeof(uint32_t));
	fill = xmalloc((d->ndepth ? d->ndepth : 1) * sizeof(size_t));
	for (k = 0; k < d->ndepth; k++)
		fill[k] = d->start[k];
	/* Events are sorted by start, so each level comes out sorted too. */
	for (e = 0; e < l->nev; e++)
		if (!xt_event_aggregated(&l->ev[e]))
			d->idx[fill[xt_event_depth(&l->ev[e])]++] = (uint32_t)e;
	free(fill);
	nkey = (d->start[d->ndepth] + TL_KEY_STEP - 1) / TL_KEY_STEP;
	d->key = xmalloc((nkey ? nkey : 1) * sizeof(int64_t));
	for (e = 0; e < nkey; e++)
		d->key[e] = xt_event_off(l, d->idx[e * TL_KEY_STEP]);
	tr->depth = d;
	return d;
}

/* First position in level [lo, hi) whose event starts at or after t: a
 * search over the keys (one cache line holds eight), then over the one
 * stretch of TL_KEY_STEP positions they leave, instead of two scattered
 * reads (idx, then the event) per step over the whole level. A frame at
 * the whole-profile zoom was 2 to 6 times slower with cold caches. */
static size_t level_lower(const struct xt_line *l, const struct tl_depth *dp, size_t lo,
			  size_t hi, int64_t t)
{
	int64_t r = xt_ps_sub(t, xt_line_base(l));
	size_t jlo = (lo + TL_KEY_STEP - 1) / TL_KEY_STEP, jhi = (hi + TL_KEY_STEP - 1) / TL_KEY_STEP;
	size_t j0 = jlo;

	/* Keys at positions j * TL_KEY_STEP inside [lo, hi): the first >= r,
	 * galloping from lo (the sampler's columns move forward a little at a
	 * time, so the reads stay near each other), then halving. */
	if (jlo < jhi && dp->key[jlo] < r) {
		size_t b = jlo, step = 1;

		while (b + step < jhi && dp->key[b + step] < r) {
			b += step;
			step *= 2;
		}
		jlo = b + 1;
		if (b + step < jhi)
			jhi = b + step;
	}
	while (jlo < jhi) {
		size_t mid = jlo + (jhi - jlo) / 2;

		if (dp->key[mid] < r)
			jlo = mid + 1;
		else
			jhi = mid;
	}
	if (jlo * TL_KEY_STEP < hi)
		hi = jlo * TL_KEY_STEP;
	if (jlo > j0 && (jlo - 1) * TL_KEY_STEP + 1 > lo)
		lo = (jlo - 1) * TL_KEY_STEP + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (xt_event_off(l, dp->idx[mid]) < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void timeline_sample(struct timeline *tl, size_t i, unsigned d, int64_t t0, int64_t t1,
		     unsigned ncols, struct tl_cell *out)
{
	const struct tl_depth *dp = timeline_depth(tl, i);
	const struct xt_line *l = tl->tracks[i].l;
	int64_t base = xt_line_base(l);
	size_t lo, hi, from;
	unsigned c;

	for (c = 0; c < ncols; c++) {
		out[c].count = 0;
		out[c].ev = -1;
	}
	if (d >= dp->ndepth || t1 <= t0 || !ncols)
		return;
	lo = dp->start[d];
	hi = dp->start[d + 1];
	from = lo; /* columns go forward: no search starts before the last */
	for (c = 0; c < ncols; c++) {
		/* Column c covers [a, b); integer maths keeps columns exact. */
		int64_t a = t0 + (int64_t)((__int128)(t1 - t0) * c / ncols);
		int64_t b = t0 + (int64_t)((__int128)(t1 - t0) * (c + 1) / ncols);
		size_t s = level_lower(l, dp, from, hi, a), e, k, best;
		int64_t bestcov = INT64_MIN;

		/* The event starting before a that may still cover it (one
		 * level never overlaps itself, so only the one just before). */
		if (s > lo) {
			const struct xt_event *pe = &l->ev[dp->idx[s - 1]];
			int64_t pd = xt_event_dur(l, pe), ps = xt_ps_add(base, xt_event_off(l, dp->idx[s - 1]));

			if (xt_sat_add(ps, pd) > a || (pd == 0 && ps == a))
				s--;
		}
		from = s; /* the next column's a is no earlier */
		if (b <= a)
			b = a + 1;
		e = level_lower(l, dp, s, hi, b);
		if (e <= s)
			continue;
		out[c].count = (uint32_t)(e - s > UINT32_MAX ? UINT32_MAX : e - s);
		if (e - s > 1) {
			/* Dense: drawn as such whatever it holds, so no event
			 * and its duration is read to pick one. */
			out[c].ev = dp->idx[s];
			continue;
		}
		/* Which event stands for the column: the one covering most of
		 * it, among at most a few candidates (a dense column shows as
		 * dense whatever is picked). */
		for (k = best = s; k < e && k < s + 8; k++) {
			const struct xt_event *ev = &l->ev[dp->idx[k]];
			int64_t es = xt_ps_add(base, xt_event_off(l, dp->idx[k])),
				ee = xt_ps_add(es, xt_event_dur(l, ev));
			int64_t cov = xt_sat_sub(ee < b ? ee : b, es > a ? es : a);

			if (cov > bestcov) {
				bestcov = cov;
				best = k;
			}
		}
		out[c].ev = dp->idx[best];
	}
}

int64_t timeline_event_at(struct timeline *tl, size_t i, unsigned d, int64_t t)
{
	const struct tl_depth *dp = timeline_depth(tl, i);
	const struct xt_line *l = tl->tracks[i].l;
	size_t lo, hi, s;

	if (d >= dp->ndepth)
		return -1;
	lo = dp->start[d];
	hi = dp->start[d + 1];
	if (lo == hi)
		return -1;
	s = level_lower(l, dp, lo, hi, t + 1); /* first starting after t */
	if (s > lo && xt_event_end(l, &l->ev[dp->idx[s - 1]]) > t)
		return dp->idx[s - 1];
	if (s < hi)
		return dp->idx[s];
	return dp->idx[hi - 1];
}

int64_t timeline_step(struct timeline *tl, size_t i, int64_t ev, int dir)
{
	const struct xt_line *l = tl->tracks[i].l;
	int64_t n = (int64_t)l->nev, k = ev + (dir > 0 ? 1 : -1);

	if (ev < 0)
		k = dir > 0 ? 0 : n - 1;
	for (; k >= 0 && k < n; k += dir > 0 ? 1 : -1)
		if (!xt_event_aggregated(&l->ev[k]))
			return k;
	return -1;
}

int64_t timeline_self_ps(struct timeline *tl, size_t i, int64_t ev)
{
	const struct tl_depth *dp = timeline_depth(tl, i);
	const struct xt_line *l = tl->tracks[i].l;
	const struct xt_event *e = &l->ev[ev];
	unsigned d = xt_event_depth(e) + 1;
	int64_t self = xt_event_dur(l, e), s = xt_event_start(l, e), end = xt_ps_add(s, self);
	int64_t covered = s; /* the children's time is counted up to here */
	size_t k;

	if (d >= dp->ndepth)
		return self;
	/* Direct children: the next level's events inside [s, end], in start
	 * order. Less the time they cover, not the sum of their durations:
	 * two of them may overlap (a thunk and the TraceMe inside it ending
	 * 100 ns apart are siblings on the H100 captures' host lines), and
	 * the overlap would count twice, down to a negative self time. */
	for (k = level_lower(l, dp, dp->start[d], dp->start[d + 1], s);
	     k < dp->start[d + 1]; k++) {
		const struct xt_event *c = &l->ev[dp->idx[k]];
		int64_t cs = xt_event_start(l, c), ce = xt_event_end(l, c);

		if (cs >= end && !(ce == cs && cs == end))
			break;
		if (ce > end)
			continue;
		if (cs < covered)
			cs = covered;
		if (ce > cs) {
			self = xt_sat_sub(self, xt_sat_sub(ce, cs));
			covered = ce;
		}
	}
	return self;
}

int64_t timeline_first_child(struct timeline *tl, size_t i, int64_t ev)
{
	const struct tl_depth *dp = timeline_depth(tl, i);
	const struct xt_line *l = tl->tracks[i].l;
	const struct xt_event *e = &l->ev[ev];
	unsigned d = xt_event_depth(e) + 1;
	int64_t s = xt_event_start(l, e), end = xt_event_end(l, e);
	size_t k;

	if (d >= dp->ndepth || end <= s)
		return -1;
	for (k = level_lower(l, dp, dp->start[d], dp->start[d + 1], s);
	     k < dp->start[d + 1]; k++) {
		const struct xt_event *c = &l->ev[dp->idx[k]];

		if (xt_event_start(l, c) >= end)
			break;
		if (xt_event_end(l, c) <= end)
			return dp->idx[k];
	}
	return -1;
}

int64_t timeline_from_view(struct timeline *tl, size_t i, int64_t v0, int64_t v1, int dir)
{
	const struct xt_line *l = tl->tracks[i].l;
	size_t first, end = trace_line_window(l, v0, v1, &first), k;

	/* [first, end) holds every event that starts before v1 and may reach
	 * v0, events folded into summaries (at the line's end) left out. */
	if (dir > 0) {
		/* The first on screen, one begun before it and covering its
		 * start included; else the first after it. */
		for (k = first; k < end; k++)
			if (!xt_event_aggregated(&l->ev[k]) &&
			    (xt_event_end(l, &l->ev[k]) > v0 || xt_event_start(l, &l->ev[k]) >= v0))
				return (int64_t)k;
		return end < l->nev && !xt_event_aggregated(&l->ev[end]) ? (int64_t)end : -1;
	}
	/* The last that starts before the view's end. */
	for (k = end; k-- > 0;)
		if (!xt_event_aggregated(&l->ev[k]))
			return (int64_t)k;
	return -1;
}

long timeline_track_of(const struct timeline *tl, const struct xt_line *l)
{
	size_t i;

	for (i = 0; i < tl->ntracks; i++)
		if (tl->tracks[i].l == l)
			return (long)i;
	return -1;
}
