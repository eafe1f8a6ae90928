/*
 * line_order: the rare line whose events are not in order in the file
 * (line_int.h): every offset, the long durations with their events, and
 * the sort that moves them all.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "line_int.h"

uint32_t *line_offsets(const struct source *src, const struct xt_line *l, size_t n)
{
	const uint8_t *lb = src->data + l->raw_off, *le = lb + l->raw_len, *q = lb;
	uint32_t *raw = xmalloc((n ? n : 1) * sizeof(uint32_t));
	size_t k = 0;
	unsigned seen = 0;

	/* The walk's own step (line_next_field), a page ahead as it reads: a
	 * TPU's XLA Ops lines, out of order by their device times, come here
	 * with millions of events. */
	while (q < le && k < n) {
		const uint8_t *at = q, *eb;
		uint64_t en;
		int r;

		__builtin_prefetch(q + 4096);
		r = line_next_field(NULL, &q, le, le, 0, k, &seen, &eb, &en);
		if (r < 0)
			break;
		if (r)
			raw[k++] = (uint32_t)(at - lb);
	}
	return raw;
}

struct long_pair *long_pairs(const struct xt_line *l, const int64_t *v, size_t nlng,
			     const size_t *seg, size_t nseg)
{
	struct long_pair *pr = xmalloc((nlng ? nlng : 1) * sizeof(*pr));
	size_t i, cur = 0, s = 0, k = 0;

	for (i = 0; i < l->nev && k < nlng; i++) {
		while (s < nseg && seg[s] <= i)
			cur = seg[s++];
		if (l->ev[i].dur == XT_DUR_LONG)
			pr[k++] = (struct long_pair){ i, v[cur++] };
	}
	return pr;
}

/* A permutation of a line's events into their order (ev_key). */
struct sort_ctx {
	const struct xt_event *ev;
	const int64_t *start;
	const uint32_t *raw;
	const struct long_pair *lng;
	const uint32_t *lidx; /* [event] its index in lng, when its duration is long */
};

static int64_t sort_dur(const struct sort_ctx *c, uint32_t i)
{
	if (c->ev[i].dur != XT_DUR_LONG)
		return c->ev[i].dur;
	return c->lng[c->lidx[i]].dur_ps;
}

static int perm_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	struct ev_key x = { xt_event_aggregated(&c->ev[i]) != 0, c->start[i], 0, c->raw[i] };
	struct ev_key y = { xt_event_aggregated(&c->ev[j]) != 0, c->start[j], 0, c->raw[j] };

	if (!x.agg && !y.agg && x.off == y.off) {
		x.dur = sort_dur(c, i);
		y.dur = sort_dur(c, j);
	}
	return ev_key_cmp(&x, &y);
}

/* perm (the identity) put in the events' order (ev_key) by insertion: a
 * TPU's ops timed by its own clock are out of the file's order by a few
 * places (nanoseconds), where qsort's calls through perm_cmp were a sixth
 * of a 1 GB TPU profile's load. A line further out of order than a few
 * places an event on average goes to qsort. */
static void perm_sort(uint32_t *perm, size_t n, const struct sort_ctx *c)
{
	size_t i, moves = 0, budget = 8 * n + 1024;

	for (i = 1; i < n; i++) {
		uint32_t x = perm[i];
		size_t j = i;

		while (j > 0 && perm_cmp(&perm[j - 1], &x, (void *)c) > 0) {
			perm[j] = perm[j - 1];
			j--;
			if (++moves > budget) {
				perm[j] = x;
				qsort_r(perm, n, sizeof(uint32_t), perm_cmp, (void *)c);
				return;
			}
		}
		perm[j] = x;
	}
}

void line_sort(struct xt_line *l, uint32_t *raw, struct long_pair **lng, size_t *nlng,
	       struct blk_build *b, uint32_t **moved)
{
	size_t n = l->nev, i, k = 0;
	int64_t *start = xmalloc((n ? n : 1) * sizeof(*start));
	uint32_t *perm = xmalloc((n ? n : 1) * sizeof(uint32_t));
	struct sort_ctx c = { l->ev, start, raw, *lng, NULL };
	struct long_pair *nl = NULL;
	uint32_t *lidx = NULL;

	/* Every start whole while the events move. */
	for (i = 0; i < n; i++) {
		start[i] = blk_start(b, l->ev, i);
		perm[i] = (uint32_t)i;
	}
	if (*nlng) {
		/* Each long duration's place, found once (a search per
		 * comparison was a twentieth of a TPU profile's load). */
		lidx = xcalloc(n ? n : 1, sizeof(*lidx));
		for (i = 0; i < *nlng; i++)
			if ((*lng)[i].ev < n)
				lidx[(*lng)[i].ev] = (uint32_t)i;
		c.lidx = lidx;
	}
	perm_sort(perm, n, &c);
	if (*nlng) {
		nl = xmalloc(*nlng * sizeof(*nl));
		for (i = 0; i < n; i++)
			if (l->ev[perm[i]].dur == XT_DUR_LONG)
				nl[k++] = (struct long_pair){ i, sort_dur(&c, perm[i]) };
	}
	free(lidx);
	free(*lng);
	*lng = nl;
	*nlng = k;
	if (moved) {
		*moved = xmalloc((n ? n : 1) * sizeof(uint32_t));
		for (i = 0; i < n; i++)
			(*moved)[perm[i]] = (uint32_t)i;
	}
	/* Position i takes element perm[i]: follow each cycle once (bit 31
	 * marks done; a line holds fewer than 2^31 events). */
	for (i = 0; i < n; i++) {
		size_t j = i;
		struct xt_event te;
		uint32_t tr;
		int64_t ts;

		if (perm[i] & 0x80000000u)
			continue;
		te = l->ev[i];
		tr = raw[i];
		ts = start[i];
		while ((perm[j] & 0x7fffffffu) != i) {
			size_t from = perm[j] & 0x7fffffffu;

			l->ev[j] = l->ev[from];
			raw[j] = raw[from];
			start[j] = start[from];
			perm[j] |= 0x80000000u;
			j = from;
		}
		l->ev[j] = te;
		raw[j] = tr;
		start[j] = ts;
		perm[j] |= 0x80000000u;
	}
	free(perm);
	/* The bases again, for the events' new places. */
	blk_free(b);
	blk_init(b, n, 0);
	for (i = 0; i < n; i++)
		l->ev[i].off = blk_put(b, i % XT_BLOCK, start[i]);
	free(start);
}
