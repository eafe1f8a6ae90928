/*
 * line_int: what line_decode.c and line_order.c share, and nothing else
 * includes: the order of events on a line, and the per-block start bases
 * (trace.h, xt_line.blk_off) built while events are decoded.
 *
 * A blk_build belongs to whoever decodes a range of a line (a whole line,
 * or one chunk of a split one); line_complete() hands its arrays to the
 * line, which owns them from then on.
 */
#ifndef XT_LINE_INT_H
#define XT_LINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "trace.h"

/* The order of events on a line: timed ones by start, the longer
 * (enclosing) first at equal starts, then file order; aggregated ones last
 * in file order. */
struct ev_key {
	int agg;
	int64_t off, dur;
	uint32_t raw;
};

static inline int ev_key_cmp(const struct ev_key *x, const struct ev_key *y)
{
	if (x->agg != y->agg)
		return x->agg - y->agg;
	if (!x->agg && x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (!x->agg && x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->raw < y->raw ? -1 : x->raw > y->raw;
}

/* The start bases of a range's blocks (struct xt_block), the range's
 * first event starting a block. */
struct blk_build {
	struct xt_block *blk;
	size_t nblk, capblk;
	uint8_t *w8;            /* XT_BLOCK high bytes per wide block */
	size_t n8, cap8;        /* in blocks */
	uint32_t *w32;
	size_t n32, cap32;
};

/* Opens a block whose first start is off. */
void blk_open(struct blk_build *b, int64_t off);
/* Gives place j of the open block the high bits hi, widening it. */
void blk_hi(struct blk_build *b, size_t j, uint32_t hi);

/* The ev.off of a start at place j of the open block (0 opens one). */
static inline uint32_t blk_put(struct blk_build *b, size_t j, int64_t off)
{
	uint64_t d;

	if (!j) {
		blk_open(b, off);
		return 0;
	}
	d = (uint64_t)off - (uint64_t)b->blk[b->nblk - 1].base;
	if ((d >> 32) || b->blk[b->nblk - 1].wide)
		blk_hi(b, j, (uint32_t)(d >> 32));
	return (uint32_t)d;
}

/* Start of event i of a range whose blocks b holds. */
static inline int64_t blk_start(const struct blk_build *b, const struct xt_event *ev, size_t i)
{
	return xt_block_start(&b->blk[i / XT_BLOCK], b->w8, b->w32, ev[i].off, i % XT_BLOCK);
}

void blk_free(struct blk_build *b);
/* Appends src's blocks to dst (their wide parts renumbered); src is
 * left empty. */
void blk_append(struct blk_build *dst, struct blk_build *src);
/* Gives b's arrays to l (b is left empty). */
void blk_give(struct blk_build *b, struct xt_line *l);

/* A long duration and its event, while a line out of order is sorted. */
struct long_pair {
	uint64_t ev;      /* event index on its line */
	int64_t dur_ps;
};

/* The offset of every event's tag, for a line that must be sorted. */
uint32_t *line_offsets(const struct source *src, const struct xt_line *l, size_t n);
/* The long durations of a line out of order, with their events: v holds
 * nlng of them in event order, except that the events from seg[s] on
 * start again at v[seg[s]]. */
struct long_pair *long_pairs(const struct xt_line *l, const int64_t *v, size_t nlng,
			     const size_t *seg, size_t nseg);
/* Sorts l's nev events (their starts in b) into ev_key order; raw, the
 * long durations and b move with them, b rebuilt for the new order. */
void line_sort(struct xt_line *l, uint32_t *raw, struct long_pair **lng, size_t *nlng,
	       struct blk_build *b);

#endif
