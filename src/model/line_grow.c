/*
 * line_grow: the arrays a line is decoded into, and its events' start
 * bases by block (line_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/bigmem.h"
#include "../util/xalloc.h"
#include "line_int.h"

/* Starts g empty; reserves room for `most` elements when big (huge pages
 * or ordinary ones); returns 1 when it did. */
static int grow_reserve(struct grow *g, size_t esz, size_t most, int big, int huge, size_t step)
{
	memset(g, 0, sizeof(*g));
	g->esz = esz;
	g->step = step;
	if (!big)
		return 0;
	g->reserved = most * esz;
	g->p = huge ? bigmem_reserve(g->reserved) : bigmem_reserve_sparse(g->reserved);
	g->huge = huge;
	if (g->p)
		return 1;
	g->reserved = 0;
	return 0;
}

void grow_init(struct grow *g, size_t esz, size_t most, int big, size_t guess)
{
	if (grow_reserve(g, esz, most, big, 1, BIGMEM_STEP))
		return;
	g->cap = guess < most ? guess : most;
	g->p = xmalloc((g->cap ? g->cap : 1) * esz);
}

void grow_init_sparse(struct grow *g, size_t esz, size_t most, int big)
{
	if (!grow_reserve(g, esz, most, big, 0, LNG_STEP))
		g->p = xmalloc(esz);
}

struct grow grow_view(const struct grow *g, size_t first, size_t n)
{
	return (struct grow){ .p = (char *)g->p + first * g->esz, .esz = g->esz,
			      .cap = g->reserved ? 0 : n, .reserved = g->reserved ? n * g->esz : 0,
			      .step = LNG_STEP, .view = 1 };
}

void grow_more(struct grow *g)
{
	if (g->reserved) {
		size_t step = g->reserved - g->committed < g->step ? g->reserved - g->committed
								   : g->step;

		if (!step)
			fatal("internal error: a line holds more events than its bytes allow");
		bigmem_commit(g->p, g->committed, step, g->huge);
		g->committed += step;
		g->cap = g->committed / g->esz;
	} else if (g->view || g->fixed) {
		fatal("internal error: a chunk holds more events than the walk found");
	} else {
		g->cap = g->cap + g->cap / 2 + 16;
		g->p = xreallocarray(g->p, g->cap, g->esz);
	}
}

void *grow_done(struct grow *g, size_t n, size_t *map)
{
	*map = 0;
	if (g->reserved) {
		*map = bigmem_trim(g->p, g->reserved, n * g->esz);
		return n ? g->p : NULL;
	}
	if (!n) {
		free(g->p);
		return NULL;
	}
	return xreallocarray(g->p, n, g->esz);
}

void grow_free(struct grow *g)
{
	if (g->view)
		return;
	if (g->reserved)
		bigmem_free(g->p, bigmem_trim(g->p, g->reserved, g->reserved));
	else
		free(g->p);
}

void blk_init(struct blk_build *b, size_t most, int big)
{
	size_t nb = most / XT_BLOCK + 1;

	memset(b, 0, sizeof(*b));
	grow_init_sparse(&b->blk, sizeof(struct xt_block), nb, big);
	grow_init_sparse(&b->w16, XT_BLOCK * sizeof(uint16_t), nb, big);
	grow_init_sparse(&b->w32, XT_BLOCK * sizeof(uint32_t), nb, big);
}

int blk_reserved(const struct blk_build *b)
{
	return b->blk.reserved && b->w16.reserved && b->w32.reserved;
}

void blk_init_exact(struct blk_build *b, size_t n)
{
	size_t nb = (n + XT_BLOCK - 1) / XT_BLOCK;

	memset(b, 0, sizeof(*b));
	grow_init(&b->blk, sizeof(struct xt_block), nb, 0, nb);
	grow_init(&b->w16, XT_BLOCK * sizeof(uint16_t), nb, 0, nb);
	grow_init(&b->w32, XT_BLOCK * sizeof(uint32_t), nb, 0, nb);
}

void blk_view(struct blk_build *b, const struct blk_build *line, size_t first, size_t n)
{
	size_t nb = (n + XT_BLOCK - 1) / XT_BLOCK;

	memset(b, 0, sizeof(*b));
	b->base = first / XT_BLOCK;
	b->blk = grow_view(&line->blk, b->base, nb);
	b->w16 = grow_view(&line->w16, b->base, nb);
	b->w32 = grow_view(&line->w32, b->base, nb);
}

void blk_open(struct blk_build *b, int64_t off)
{
	if (b->nblk == b->blk.cap)
		grow_more(&b->blk);
	((struct xt_block *)b->blk.p)[b->nblk++] = (struct xt_block){ .base = off, .wide = 0 };
}

/* A new wide part of zeros in g (n used); returns its index there.
 * One taken back (blk_hi) was zeroed then. */
static size_t wide_new(struct grow *g, size_t *n)
{
	if (*n == g->cap)
		grow_more(g);
	if (!g->reserved) /* a reservation's fresh pages are zeros already */
		memset((char *)g->p + *n * g->esz, 0, g->esz);
	return (*n)++;
}

void blk_hi(struct blk_build *b, size_t j, uint32_t hi)
{
	struct xt_block *k = (struct xt_block *)b->blk.p + b->nblk - 1;
	uint16_t *w16;
	uint32_t *w32;
	size_t i, n;

	if (!k->wide && hi <= UINT16_MAX) {
		k->wide = (uint32_t)(b->base + wide_new(&b->w16, &b->n16) + 1);
	} else if (!(k->wide & XT_WIDE32) && hi > UINT16_MAX) {
		/* Four bytes each from now on: the two-byte ones so far move
		 * up, and their part (the last one made) is taken back. */
		n = wide_new(&b->w32, &b->n32);
		w32 = (uint32_t *)b->w32.p + n * XT_BLOCK;
		if (k->wide) {
			w16 = (uint16_t *)b->w16.p + (k->wide - 1 - b->base) * XT_BLOCK;
			for (i = 0; i < j; i++)
				w32[i] = w16[i];
			if (k->wide - 1 - b->base == b->n16 - 1) {
				memset(w16, 0, XT_BLOCK * sizeof(*w16));
				b->n16--;
			}
		}
		k->wide = (uint32_t)(b->base + n + 1) | XT_WIDE32;
	}
	blk_set_hi(b, k, j, hi);
}

void blk_free(struct blk_build *b)
{
	grow_free(&b->blk);
	grow_free(&b->w16);
	grow_free(&b->w32);
	memset(b, 0, sizeof(*b));
}

void blk_give(struct blk_build *b, struct xt_line *l)
{
	l->blk = grow_done(&b->blk, b->nblk, &l->blk_map);
	l->wide16 = grow_done(&b->w16, b->n16, &l->wide16_map);
	l->wide32 = grow_done(&b->w32, b->n32, &l->wide32_map);
	memset(b, 0, sizeof(*b));
}

void blk_push(struct blkv *b, uint32_t off)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	b->v[b->n++] = off;
}

void rawat_push(struct rawat *r, uint32_t ev, uint32_t raw)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	r->v[r->n++] = (struct xt_raw_at){ ev, raw };
}
