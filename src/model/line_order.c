/*
 * line_order: the per-block start bases of a line's events, and the rare
 * line whose events are not in order in the file (line_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "line_int.h"
#include "wire.h"

void blk_open(struct blk_build *b, int64_t off)
{
	if (b->nblk == b->capblk) {
		b->capblk = b->capblk ? 2 * b->capblk : 16;
		b->blk = xreallocarray(b->blk, b->capblk, sizeof(*b->blk));
	}
	b->blk[b->nblk++] = (struct xt_block){ .base = off, .wide = 0 };
}

/* A new wide part of XT_BLOCK zeros in *v (n parts, room for *cap). */
static size_t wide_new(void **v, size_t *n, size_t *cap, size_t esz)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		*v = xreallocarray(*v, *cap, XT_BLOCK * esz);
	}
	memset((char *)*v + *n * XT_BLOCK * esz, 0, XT_BLOCK * esz);
	return (*n)++;
}

void blk_hi(struct blk_build *b, size_t j, uint32_t hi)
{
	struct xt_block *k = &b->blk[b->nblk - 1];
	size_t w;

	if (!k->wide && hi <= UINT8_MAX) {
		k->wide = (uint32_t)wide_new((void **)&b->w8, &b->n8, &b->cap8, 1) + 1;
	} else if (!(k->wide & XT_WIDE32) && hi > UINT8_MAX) {
		/* Four bytes each from now on: the bytes so far move up (their
		 * part stays behind, unused). */
		size_t n = wide_new((void **)&b->w32, &b->n32, &b->cap32, 4), i;

		if (k->wide)
			for (i = 0; i < j; i++)
				b->w32[n * XT_BLOCK + i] = b->w8[(k->wide - 1) * XT_BLOCK + i];
		k->wide = (uint32_t)(n + 1) | XT_WIDE32;
	}
	w = (size_t)((k->wide & ~XT_WIDE32) - 1) * XT_BLOCK + j;
	if (k->wide & XT_WIDE32)
		b->w32[w] = hi;
	else
		b->w8[w] = (uint8_t)hi;
}

void blk_free(struct blk_build *b)
{
	free(b->blk);
	free(b->w8);
	free(b->w32);
	memset(b, 0, sizeof(*b));
}

/* Appends n parts of XT_BLOCK elements of esz bytes from s to *d. */
static void wide_append(void **d, size_t *nd, size_t *capd, const void *s, size_t n, size_t esz)
{
	if (!n)
		return;
	*d = xreallocarray(*d, *nd + n, XT_BLOCK * esz);
	memcpy((char *)*d + *nd * XT_BLOCK * esz, s, n * XT_BLOCK * esz);
	*nd += n;
	*capd = *nd;
}

void blk_append(struct blk_build *dst, struct blk_build *src)
{
	size_t k;

	if (!dst->nblk) {
		blk_free(dst);
		*dst = *src;
		memset(src, 0, sizeof(*src));
		return;
	}
	if (src->nblk) {
		dst->blk = xreallocarray(dst->blk, dst->nblk + src->nblk, sizeof(*dst->blk));
		dst->capblk = dst->nblk + src->nblk;
		for (k = 0; k < src->nblk; k++) {
			struct xt_block v = src->blk[k];

			if (v.wide & XT_WIDE32)
				v.wide += (uint32_t)dst->n32;
			else if (v.wide)
				v.wide += (uint32_t)dst->n8;
			dst->blk[dst->nblk++] = v;
		}
	}
	wide_append((void **)&dst->w8, &dst->n8, &dst->cap8, src->w8, src->n8, 1);
	wide_append((void **)&dst->w32, &dst->n32, &dst->cap32, src->w32, src->n32, 4);
	blk_free(src);
}

/* Trims a's room to n parts of esz bytes (NULL for none). */
static void *trim(void *a, size_t n, size_t esz)
{
	if (!n) {
		free(a);
		return NULL;
	}
	return xreallocarray(a, n, esz);
}

void blk_give(struct blk_build *b, struct xt_line *l)
{
	l->blk = trim(b->blk, b->nblk, sizeof(*b->blk));
	l->wide8 = trim(b->w8, b->n8, XT_BLOCK);
	l->wide32 = trim(b->w32, b->n32, XT_BLOCK * sizeof(uint32_t));
	memset(b, 0, sizeof(*b));
}

uint32_t *line_offsets(const struct source *src, const struct xt_line *l, size_t n)
{
	const uint8_t *lb = src->data + l->raw_off;
	uint32_t *raw = xmalloc((n ? n : 1) * sizeof(uint32_t));
	size_t k = 0;
	struct wire w;

	wire_init(&w, lb, l->raw_len);
	while (wire_more(&w) && k < n) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 4 && t == WIRE_LEN)
			raw[k++] = (uint32_t)(at - lb);
		wire_skip(&w, t);
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
	size_t nlng;
};

static int64_t sort_dur(const struct sort_ctx *c, uint32_t i)
{
	size_t lo = 0, hi = c->nlng;

	if (c->ev[i].dur != XT_DUR_LONG)
		return c->ev[i].dur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->lng[mid].ev < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->lng[lo].dur_ps;
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

void line_sort(struct xt_line *l, uint32_t *raw, struct long_pair **lng, size_t *nlng,
	       struct blk_build *b)
{
	size_t n = l->nev, i, k = 0;
	int64_t *start = xmalloc((n ? n : 1) * sizeof(*start));
	uint32_t *perm = xmalloc((n ? n : 1) * sizeof(uint32_t));
	struct sort_ctx c = { l->ev, start, raw, *lng, *nlng };
	struct long_pair *nl = NULL;

	/* Every start whole while the events move. */
	for (i = 0; i < n; i++) {
		start[i] = blk_start(b, l->ev, i);
		perm[i] = (uint32_t)i;
	}
	qsort_r(perm, n, sizeof(uint32_t), perm_cmp, &c);
	if (*nlng) {
		nl = xmalloc(*nlng * sizeof(*nl));
		for (i = 0; i < n; i++)
			if (l->ev[perm[i]].dur == XT_DUR_LONG)
				nl[k++] = (struct long_pair){ i, sort_dur(&c, perm[i]) };
	}
	free(*lng);
	*lng = nl;
	*nlng = k;
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
	for (i = 0; i < n; i++)
		l->ev[i].off = blk_put(b, i % XT_BLOCK, start[i]);
	free(start);
}
