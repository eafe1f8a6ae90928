/*
 * line_int: what line_decode.c, line_split.c, line_finish.c, line_grow.c
 * and line_order.c share, and
 * nothing else includes: the arrays a line is decoded into (struct grow),
 * the per-block start bases (trace.h, struct xt_block) built while events
 * are decoded, and the order of events on a line.
 *
 * A grow or blk_build belongs to whoever decodes a range of a line (a
 * whole line, or the split line whose chunks hold views of it);
 * line_complete() hands the arrays to the line, which owns them from then
 * on.
 */
#ifndef XT_LINE_INT_H
#define XT_LINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "line_decode.h"
#include "line_event.h"
#include "source.h"
#include "trace.h"
#include "wire.h"

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

/* A growing array: from bigmem for big lines (reserved once for the most
 * elements the line can hold, made resident step by step), else malloc.
 * A view is a chunk's part of a split line's array: it never moves, and
 * it is not its own to free. */
struct grow {
	void *p;
	size_t esz, cap;        /* element size; elements that fit now */
	size_t reserved, committed; /* bigmem bytes (reserved 0: malloc) */
	size_t step;            /* bytes made resident at a time */
	int huge;               /* reserved with bigmem_reserve(), not _sparse() */
	int fixed;              /* a chunk's part of a split line's array: never grows */
	int view;               /* a chunk's part of a line's reservation: not its own */
};

/* Arrays written in scattered parts (long durations, wide blocks, a
 * split line's blocks) are made resident this much at a time: most lines
 * have few, and each chunk writes its own part. */
#define LNG_STEP ((size_t)32 << 10)

/* Room for `most` elements at most: reserved whole (huge pages) when big,
 * else malloc'd for `guess` and grown. */
void grow_init(struct grow *g, size_t esz, size_t most, int big, size_t guess);
/* The same on ordinary pages made resident LNG_STEP at a time when big,
 * else malloc'd for one element and grown. */
void grow_init_sparse(struct grow *g, size_t esz, size_t most, int big);
/* A view of n elements of g from element `first` on (g reserved: made
 * resident as it is written; else g holds them already). */
struct grow grow_view(const struct grow *g, size_t first, size_t n);
/* Room for more elements (g->cap grows); a view that is full is a bug. */
void grow_more(struct grow *g);
/* Keeps the first n elements; returns the array (NULL when n is 0) and in
 * *map the bytes bigmem still maps (0 for malloc). */
void *grow_done(struct grow *g, size_t n, size_t *map);
void grow_free(struct grow *g);

/* The offsets of every XT_BLOCK-th event's tag from the line's start. */
struct blkv {
	uint32_t *v;
	size_t n, cap;
};
void blk_push(struct blkv *b, uint32_t off);

/* The events a range's decoder put at another index than the file's
 * (struct xt_line.raw_at), ascending by index. */
struct rawat {
	struct xt_raw_at *v;
	size_t n, cap;
};
void rawat_push(struct rawat *r, uint32_t ev, uint32_t raw);

/* The start bases of a range's blocks (struct xt_block), the range's
 * first event starting a block. A range of a split line writes its parts
 * where its first block is in the line's arrays: its blocks there, and
 * its wide parts from the same index on (a range has no more wide blocks
 * than blocks), so nothing is copied or renumbered when the line is
 * finished. */
struct blk_build {
	struct grow blk;        /* struct xt_block each */
	struct grow w16;        /* XT_BLOCK high halfwords per wide block */
	struct grow w32;        /* XT_BLOCK high words per wide block */
	size_t nblk, n16, n32;   /* used */
	size_t base;            /* the range's first block on the line */
};

/* A line's (most: the events it can hold; big: reserve), or its part for
 * the chunk of n events from `first` (a multiple of XT_BLOCK). */
void blk_init(struct blk_build *b, size_t most, int big);
/* 1 when blk_init() reserved every array (big, and bigmem in use). */
int blk_reserved(const struct blk_build *b);
/* A split line's without a reservation: malloc'd for its n events
 * whole, so that each chunk's view holds its part already. */
void blk_init_exact(struct blk_build *b, size_t n);
void blk_view(struct blk_build *b, const struct blk_build *line, size_t first, size_t n);
/* Opens a block whose first start is off. */
void blk_open(struct blk_build *b, int64_t off);
/* Gives place j of the open block the high bits hi, widening it. */
void blk_hi(struct blk_build *b, size_t j, uint32_t hi);

/* Place j of wide block k (of this range) takes the high bits hi. */
static inline void blk_set_hi(struct blk_build *b, const struct xt_block *k, size_t j, uint32_t hi)
{
	size_t at = ((k->wide & ~XT_WIDE32) - 1 - b->base) * XT_BLOCK + j;

	if (k->wide & XT_WIDE32)
		((uint32_t *)b->w32.p)[at] = hi;
	else
		((uint16_t *)b->w16.p)[at] = (uint16_t)hi;
}

/* The ev.off of a start at place j of the open block (0 opens one). */
static inline uint32_t blk_put(struct blk_build *b, size_t j, int64_t off)
{
	const struct xt_block *k;
	uint64_t d;
	uint32_t hi;

	if (!j) {
		blk_open(b, off);
		return 0;
	}
	k = (const struct xt_block *)b->blk.p + b->nblk - 1;
	d = (uint64_t)off - (uint64_t)k->base;
	hi = (uint32_t)(d >> 32);
	if ((k->wide & XT_WIDE32) || (k->wide && hi <= UINT16_MAX))
		blk_set_hi(b, k, j, hi);
	else if (hi)
		blk_hi(b, j, hi);
	return (uint32_t)d;
}

/* Start of event i of a line whose blocks b holds whole (base 0). */
static inline int64_t blk_start(const struct blk_build *b, const struct xt_event *ev, size_t i)
{
	return xt_block_start((const struct xt_block *)b->blk.p + i / XT_BLOCK, b->w16.p, b->w32.p,
			      ev[i].off, i % XT_BLOCK);
}

void blk_free(struct blk_build *b);
/* Gives b's first n16 / n32 wide parts and its blocks to l. */
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
 * long durations and b move with them, b rebuilt for the new order. With
 * moved, *moved gets where each event went ([file index] = new index). */
void line_sort(struct xt_line *l, uint32_t *raw, struct long_pair **lng, size_t *nlng,
	       struct blk_build *b, uint32_t **moved);

/* The depth pass's state (line_finish.c): the open events' ends (a
 * stack), the max end so far, the deepest depth. */
struct fin {
	int64_t stack[128];
	unsigned sp;
	int64_t maxend;
	uint32_t max_depth;
};

static inline void fin_init(struct fin *f)
{
	f->sp = 0;
	f->maxend = INT64_MIN;
	f->max_depth = 0;
}

/*
 * The depth of an event (not aggregated) starting at off, lasting dur, the
 * next of its line in order. Its parent is the innermost open event
 * containing it (sorted by start, so only the ends matter): partial
 * overlaps are siblings, as for self time, and an instant belongs inside
 * [start, end) only, so one at a parent's very end is drawn beside it.
 * Instants parent nothing.
 */
/* Closes the open events that do not contain an event at off lasting dur
 * ending at end; fin_step's rule, also for fixing a range's depths up. */
static inline void fin_pop(struct fin *f, int64_t off, int64_t dur, int64_t end)
{
	while (f->sp && (f->stack[f->sp - 1] < end || (dur == 0 && f->stack[f->sp - 1] == off)))
		f->sp--;
}

static inline unsigned fin_step(struct fin *f, int64_t off, int64_t dur)
{
	int64_t end = (int64_t)((uint64_t)off + (uint64_t)dur);
	unsigned d;

	fin_pop(f, off, dur, end);
	d = f->sp;
	if (d > f->max_depth)
		f->max_depth = d;
	if (f->sp < 128 && dur > 0)
		f->stack[f->sp++] = end;
	if (end > f->maxend)
		f->maxend = end;
	return d;
}

static inline void fin_set_depth(struct xt_event *e, unsigned d)
{
	e->meta = (e->meta & ~(XT_EV_DEPTH_MAX << XT_EV_META_BITS)) |
		  (uint32_t)(d < XT_EV_DEPTH_MAX ? d : XT_EV_DEPTH_MAX) << XT_EV_META_BITS;
}

/*
 * What a range of a line (starting a block) works out while it is decoded,
 * so that a line in order needs no pass over its events after: depths
 * with a stack started empty (in the events), and per block of the range
 * the max end within the range so far and the long durations' index
 * (bit mask; where the block's long durations start in the line's list).
 */
struct fin_out {
	struct fin f;
	int64_t *bmax;
	uint64_t *lmask;
	uint32_t *lfirst;
	size_t cap;             /* blocks there is room for */
	/* A range that keeps no events: its tops, built while it is decoded
	 * (fin_tops_begin .. fin_tops_end); else NULL. */
	struct fin_tops *tops;
};

/*
 * What fixing up a range's depths needs of its events, for a range that
 * keeps none (xt_line.ev NULL): its tops, the events its own stack left at
 * depth 0, with what each does to the stack the ranges before it left (s,
 * whose ends only fall from bottom to top). A top starting at off, lasting
 * dur, pops the open events ending before its end (an instant: at or
 * before its start): an entry of s survives it when its end is at least
 * m, its end (an instant: off + 1). So after a run of tops an entry
 * survives when its end is at least the largest m so far (a running max,
 * x), and an event of the range at depth d lies at d + that many. Per
 * value of x only the deepest event counts, and only when deeper than
 * every event before it, so a range is summed up by at most
 * XT_EV_DEPTH_MAX + 1 steps (x ascending, d ascending).
 */
struct fin_step_max {
	int64_t x;              /* an entry survives when its end >= x */
	int x_inf;              /* none survives (an instant at INT64_MAX) */
	unsigned d;             /* the deepest depth of the range's own under it */
};
struct fin_tops {
	struct fin_step_max st[XT_EV_DEPTH_MAX + 2];
	size_t n;
	struct fin_step_max last; /* x after the range's last top */
	int any;                /* the range has a top */
	/* while they are built, event by event (fin_top_event) */
	struct fin_step_max x;  /* the running max */
	unsigned gmax;          /* the deepest under the current top */
};
/* Room for nblk blocks (0: the range keeps nothing, a line finished
 * after). */
void fin_out_init(struct fin_out *fo, size_t nblk);
void fin_out_free(struct fin_out *fo);
/* A range's tops, built event by event in its order: fin_tops_begin(),
 * then fin_top_event() for each event not aggregated (its depth as
 * stored: capped), then fin_tops_end(). */
void fin_tops_begin(struct fin_out *fo);
void fin_top_push(struct fin_tops *t, int64_t off, int64_t dur);
static inline void fin_top_event(struct fin_tops *t, unsigned d, int64_t off, int64_t dur)
{
	if (d == 0)
		fin_top_push(t, off, dur);
	else if (d > t->gmax)
		t->gmax = d;
}
/* fo->tops complete: the run under the last top pushed. */
void fin_tops_end(struct fin_out *fo);
/*
 * Finishes l (in order) from what its ranges worked out: fo[k] for the
 * range from event first[k] on (first[0] 0, ascending, multiples of
 * XT_BLOCK). Each range's depths are fixed up with the open events the
 * ranges before it left. Returns -1 when that cannot be done (a depth at
 * the cap, a range that kept nothing): then call line_finish().
 */
int line_finish_ranges(struct xt_line *l, struct fin_out *const *fo, const size_t *first, size_t n);
/* l->max_depth of a line in order that keeps no events, from its ranges'
 * own stacks and tops (fo[k]->tops); -1 when a depth reaches the cap,
 * as line_finish_ranges() says: the line must be decoded keeping them. */
int line_finish_tops(struct xt_line *l, struct fin_out *const *fo, size_t n);

/* Depths, the prefix max end per block and the long durations' index of
 * a decoded line in its order (line_finish.c). l->long_ps holds the long
 * durations in event order, except that the events from seg[s] on (every
 * XT_BLOCK-th event or none, ascending; NULL: none) start again at
 * long_ps[seg[s]]. */
void line_finish(struct xt_line *l, const size_t *seg, size_t nseg);

/* ---- shared by line_decode.c and line_split.c ---- */

/* Internal: a line decoded without keeping its events must be decoded
 * again keeping them (line_in.keep). */
#define LINE_EKEEP (-4)

/* What line_field has seen of a line's own fields. */
enum { SEEN_TS = 1, SEEN_RENAMED = 2 };

/* Lines at least this long get their arrays from bigmem, and their file
 * pages are made resident and given back window by window. */
#define XT_BIG_LINE ((uint64_t)8 << 20)
#define XT_WINDOW ((uint64_t)16 << 20)

struct line_in;
struct wire;
struct xt_sunk;

/* Events a decoder holds back to put a device's ops in order as it goes
 * (line_decode.c, dec_range's reorder). */
#define DEC_HOLD 16

/* What decoding a range of a line yields. */
struct dec_out {
	size_t n;                     /* events */
	struct blk_build blk;         /* their starts' bases */
	struct grow *lng;             /* where its long durations go, in order */
	size_t nlng;
	int sorted;                   /* in ev_key order within the range */
	struct ev_key first, last;    /* of its first and last event */
	void *part;                   /* the sink's, for the range; NULL: none */
	struct fin_out fo;            /* its depths and blocks, while in order */
	int renamed;                  /* with headers: a name after an event (line_in.keep) */
	struct rawat rawat;           /* its events not at their file index */
	/* Set by the caller (line_none_begin) for a range that keeps no
	 * events: none is stored, nor its blocks, long durations or depth
	 * arrays; each sets the range's stack and tops (fo.f, fo.tops), and the
	 * sink's range() sees them as they are decoded. */
	int none;
};

/* The sink's part for a range of in->l, or NULL when it wants nothing. */
void *line_sink_part(const struct line_in *in);
/* One of the line's own fields (not an event) at w; returns LINE_ERETRY
 * for a timestamp that comes after events when the time base assumed none
 * (xplane_line_peek), else 0. */
int line_field(const struct line_in *in, struct wire *w, uint32_t f, unsigned t,
	       size_t events_before, unsigned *seen);
/* The line's next field at *qp, before `to` (`safe`: the line's end, for
 * the varint reader): 1 for an event, its bytes in *eb, *en; 0 for one of
 * the line's own fields, read with line_field() (nev events before it)
 * when headers, else skipped; LINE_EBAD when malformed, or line_field()'s
 * LINE_ERETRY. *qp moves past the field. Inlined by force: the decoder's
 * loop and the walk that cuts big lines run it once per event. */
static inline __attribute__((always_inline)) int
line_next_field(const struct line_in *in, const uint8_t **qp, const uint8_t *to,
		const uint8_t *safe, int headers, size_t nev, unsigned *seen, const uint8_t **eb,
		uint64_t *en)
{
	const uint8_t *q = *qp;
	struct wire w;
	uint32_t f;
	unsigned t;
	int bad = 0, rc = 0;

	if (*q == 0x22) {
		/* An event with a one-byte tag, as upstream writes them. */
		q++;
		*en = rd_varint(&q, to, safe, &bad);
		if (bad || *en > (uint64_t)(to - q))
			return LINE_EBAD;
		*eb = q;
		*qp = q + *en;
		return 1;
	}
	w = (struct wire){ q, to, 0 };
	t = wire_tag(&w, &f);
	if (f == 4 && t == WIRE_LEN) {
		size_t sn;

		*eb = wire_bytes(&w, &sn);
		*en = sn;
		rc = 1;
	} else if (headers) {
		rc = line_field(in, &w, f, t, nev, seen);
	} else {
		wire_skip(&w, t);
	}
	*qp = w.p;
	if (rc < 0)
		return rc;
	return w.bad ? LINE_EBAD : rc;
}
/* Decodes the events of [from, to) (line_decode.c says how). */
int line_dec_range(const struct line_in *in, const uint8_t *from, const uint8_t *to, int headers,
		   struct grow *ge, struct blkv *bk, size_t first, struct dec_out *o);
/* A new line's place among the loaded ones. */
void line_start(struct xt_line *l);
/* Hands the decoded arrays to the line (line_decode.c says how). */
void line_complete(const struct source *src, struct xt_line *l, struct grow *ge, size_t n,
		   int sorted, struct grow *lg, size_t nlng, size_t used, const size_t *seg,
		   size_t nseg, struct blkv *bk, struct rawat *ra, struct blk_build *blk,
		   struct xt_sunk *sunk, struct fin_out *const *fo, size_t nfo);
/* line_decode() keeping the line's events. */
int line_decode_keep(const struct line_in *in, struct xt_sunk *sunk);
/* o made ready for a range that keeps no events (dec_out.none). */
void line_none_begin(struct dec_out *o);
/* The line's, once its ranges were decoded without keeping events: its
 * count, depth and offsets; bk's offsets go to it. */
void line_keep_none(struct xt_line *l, size_t n, struct blkv *bk);

#endif
