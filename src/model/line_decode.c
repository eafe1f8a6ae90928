/*
 * line_decode: see line_decode.h. Field numbers are those of
 * proto/xplane.proto: XLine 1 id, 2 name, 3 timestamp_ns, 4 events,
 * 9 duration_ps, 10 display_id, 11 display_name; XEvent 1 metadata_id,
 * 2 offset_ps, 3 duration_ps, 4 stats, 5 num_occurrences.
 */
#include "line_decode.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../util/bigmem.h"
#include "../util/xalloc.h"
#include "line_event.h"
#include "line_int.h"
#include "wire.h"

/* What line_finish would work out for event n of a range (x, decoded as
 * d), while it is at hand: valid while the range is in order. The range's
 * long durations before it start at index lfirst of the line's list.
 * Inlined by force: it runs once per event, in the decoder's hot loop. */
static inline __attribute__((always_inline)) void
fin_event(struct fin_out *fo, struct xt_event *x, size_t n, size_t lfirst, uint64_t off, uint64_t dur,
	  int agg)
{
	size_t b = n / XT_BLOCK;

	if (!(n % XT_BLOCK)) {
		if (b >= fo->cap) {
			fin_out_free(fo); /* the range keeps nothing: one pass after */
			return;
		}
		fo->lfirst[b] = (uint32_t)lfirst;
		fo->lmask[b] = 0;
	}
	if (dur >= XT_DUR_LONG)
		fo->lmask[b] |= UINT64_C(1) << (n % XT_BLOCK);
	if (!agg)
		fin_set_depth(x, fin_step(&fo->f, (int64_t)off, (int64_t)dur));
	if ((n + 1) % XT_BLOCK == 0)
		fo->bmax[b] = fo->f.maxend;
}

static _Atomic uint64_t line_gen;

/* The sink's part for a range of in->l, or NULL when it wants nothing. */
void *line_sink_part(const struct line_in *in)
{
	if (!in->sink || !in->p->sink_meta)
		return NULL;
	return in->sink->part_new(in->sink->ctx, in->h, in->p);
}

void line_sunk_free(const struct xt_sink *sink, struct xt_sunk *k)
{
	size_t i;

	for (i = 0; i < k->nparts; i++)
		if (k->parts[i])
			sink->part_free(k->parts[i]);
	free(k->parts);
	free((void *)k->moved);
	memset(k, 0, sizeof(*k));
}

/* One of the line's own fields (not an event) at w; returns LINE_ERETRY
 * for a timestamp that comes after events when the time base assumed none
 * (xplane_line_peek), else 0. */
int line_field(const struct line_in *in, struct wire *w, uint32_t f, unsigned t,
	       size_t events_before, unsigned *seen)
{
	struct xt_line *l = in->l;

	if (t == WIRE_VARINT && (f == 1 || f == 3 || f == 9 || f == 10)) {
		int64_t *dst = f == 1 ? &l->id : f == 3 ? &l->timestamp_ns
					  : f == 9 ? &l->duration_ps : &l->display_id;
		int64_t v = (int64_t)wire_varint(w);

		if (f == 3 && !(*seen & SEEN_TS) && events_before && v && !in->exact_peek)
			return LINE_ERETRY;
		if (f == 3)
			*seen |= SEEN_TS;
		*dst = v;
	} else if (t == WIRE_LEN && (f == 2 || f == 11)) {
		size_t sn;
		const uint8_t *sb = wire_bytes(w, &sn);
		const char *c = arena_strndup(in->a, (const char *)sb, sn);

		if (f == 2) {
			/* Whether the line keeps its events was decided by the
			 * name it gave before its first one. */
			if (events_before && in->keep)
				*seen |= SEEN_RENAMED;
			l->name = c;
		} else
			l->display_name = c;
	} else {
		wire_skip(w, t);
	}
	return 0;
}

/* A range's running state while its events go out in order (dec_put). */
struct dec_run {
	const struct line_in *in;
	struct grow *ge;
	size_t first;           /* the range's first event on the line */
	struct dec_out *o;
	size_t n;               /* events put out */
	struct ev_key prev;     /* the last one's */
	struct xt_sink_rev *v;  /* none: timed events for the sink's range() */
	size_t nv;
	int ranges;
};

/*
 * Event d (key its ev_key, its bytes [eb, eb + en)) out as the range's
 * next: stored (unless none), handed to the sink, its depth set. -1: more
 * events than the walk found. Inlined by force: once per event.
 */
static inline __attribute__((always_inline)) int
dec_put(struct dec_run *r, const struct xt_plane *p, struct dec_ev *d, const struct ev_key *key,
	const uint8_t *eb, uint64_t en, const int none)
{
	struct dec_out *o = r->o;
	const size_t first = r->first;
	struct grow *ge = r->ge;
	size_t n = r->n;
	struct xt_event *x = NULL;
	uint32_t mi;

	if (!none) {
		if (n == ge->cap) {
			if (ge->fixed)
				return -1; /* more events than the walk found */
			grow_more(ge);
		}
		x = (struct xt_event *)ge->p + n;
		x->off = blk_put(&o->blk, (first + n) & (XT_BLOCK - 1), (int64_t)d->off);
	}
	mi = trace_emeta_lookup(p, (int64_t)d->mid);
	if (o->part && ((p->sink_meta[mi] & ~XT_SINK_NO_RANGE) || d->watched) && !d->agg) {
		struct xt_sink_ev se = { first + n,	 mi,	  d->watched, (int64_t)d->off,
					 (int64_t)d->dur, eb,	  en,	      d->key,
					 d->kn < 0 ? -1 : 4 + d->kn, d->corr };

		memcpy(d->key, &mi, 4);
		r->in->sink->event(o->part, &se);
	}
	if (none) {
		if (!d->agg) {
			unsigned dp = fin_step(&o->fo.f, (int64_t)d->off, (int64_t)d->dur);

			fin_top_event(o->fo.tops, dp < XT_EV_DEPTH_MAX ? dp : XT_EV_DEPTH_MAX,
				      (int64_t)d->off, (int64_t)d->dur);
			if (r->ranges && (int64_t)d->dur > 0 && !(p->sink_meta[mi] & XT_SINK_NO_RANGE)) {
				r->v[r->nv++] = (struct xt_sink_rev){ first + n, mi, (int64_t)d->off,
								      (int64_t)d->dur };
				if (r->nv == 256) {
					r->in->sink->range(o->part, r->v, r->nv);
					r->nv = 0;
				}
			}
		}
	} else {
		x->meta = mi | (d->agg ? XT_EV_AGGREGATED << XT_EV_META_BITS : 0) |
			  (d->watched ? XT_EV_WATCHED << XT_EV_META_BITS : 0);
		if (o->fo.bmax)
			fin_event(&o->fo, x, n, first + o->nlng, d->off, d->dur, d->agg);
		if (d->dur < XT_DUR_LONG) {
			x->dur = (uint32_t)d->dur;
		} else {
			x->dur = XT_DUR_LONG;
			if (o->nlng == o->lng->cap)
				grow_more(o->lng);
			((int64_t *)o->lng->p)[o->nlng++] = (int64_t)d->dur;
		}
	}
	if (!n)
		o->first = *key;
	else if (o->sorted && ev_key_cmp(key, &r->prev) < 0)
		o->sorted = 0;
	r->prev = *key;
	r->n = n + 1;
	return 0;
}

/*
 * The events a range holds back (reorder) to put a device's ops in order
 * as it decodes them: a TPU's ops by the device's clock stand a place
 * from where the file has them (1 to 3 % of them on the real profiles),
 * which sent each such line through the sort after (line_order.c), alone
 * on one thread. DEC_HOLD events wait, the least going out as one more
 * comes; one that should go before an event already out leaves the range
 * out of order, sorted after as before. An event put at another index
 * than the file's has its offset kept (dec_out.rawat). DEC_HOLD is in
 * line_int.h: the walk that cuts a line in chunks reads it too.
 */
struct dec_held {
	struct dec_ev d;
	struct ev_key key;
	const uint8_t *eb;
	uint64_t en;
	size_t fidx; /* its index in the file's order, in the range */
};

/* The least held event out (ord: the held slots in order, nh of them);
 * returns its slot, free again, or -1 as dec_put(). */
static inline __attribute__((always_inline)) int
dec_release(struct dec_run *r, const struct xt_plane *p, struct dec_held *held, unsigned char *ord,
	    unsigned *nh)
{
	unsigned s = ord[0];
	struct dec_held *e = &held[s];

	/* A constant length, inlined: what lies past nh is not read. */
	memmove(ord, ord + 1, DEC_HOLD);
	--*nh;
	if (e->fidx != r->n)
		rawat_push(&r->o->rawat, (uint32_t)(r->first + r->n), e->key.raw);
	return dec_put(r, p, &e->d, &e->key, e->eb, e->en, 0) < 0 ? -1 : (int)s;
}

/*
 * Decodes the events of [from, to), a part of the line that starts at one
 * of its fields; with headers, the line's own fields too (else they are
 * skipped: the walk took them). Event k of the range goes to index k of ge
 * and is first + k on the line (reorder: in the order dec_held says); with
 * bk, the offset of every XT_BLOCK-th event in the file's order is
 * appended to it (else the walk records them).
 *
 * A range that keeps no events (none, a constant where it is inlined; ge
 * unused) stores none of them: it sets each one's depth on the range's
 * stack and tops, and hands the timed ones to the sink's range() as it
 * goes (with XT_KEEP_RANGES_BIT), 256 at a time.
 */
static inline __attribute__((always_inline)) int
dec_range(const struct line_in *in, const uint8_t *from, const uint8_t *to, int headers,
	  struct grow *ge, struct blkv *bk, size_t first, struct dec_out *o, const int none,
	  const int reorder)
{
	const struct source *src = in->src;
	const struct xt_line *l = in->l;
	const struct xt_plane *p = in->p;
	const uint8_t *lb = src->data + l->raw_off, *le = lb + l->raw_len, *q = from;
	uint64_t len = (uint64_t)(to - from), mark = XT_WINDOW, released = 0;
	/* A split line's chunk (no headers) was made resident by the walk
	 * that found it, and line_split_chunk() gives its pages back. */
	int bad = 0, windows = headers && len >= XT_BIG_LINE;
	unsigned seen = 0, nh = 0, fs = 0;
	size_t nd = 0; /* events decoded */
	struct xt_sink_rev v[none ? 256 : 1];
	struct dec_held held[reorder ? DEC_HOLD + 1 : 1];
	unsigned char ord[DEC_HOLD + 1] = { 0 };
	struct dec_run r = { in, ge, first, o, 0, { 0, 0, 0, 0 }, v, 0,
			     none && (in->keep & XT_KEEP_RANGES_BIT) && o->part && in->sink->range };

	o->sorted = 1;
	if (headers)
		source_prefetch(src, (uint64_t)(from - src->data), windows ? XT_WINDOW : len);
	while (q < to && !bad) {
		__builtin_prefetch(q + 512);
		const uint8_t *tagp = q, *eb = NULL;
		uint64_t en = 0;
		int rc = line_next_field(in, &q, to, le, headers, nd, &seen, &eb, &en);

		if (rc == LINE_ERETRY)
			return LINE_ERETRY;
		if (rc < 0) {
			bad = 1;
			break;
		}
		if (!rc)
			continue;
		{
			struct dec_ev dl, *d = reorder ? &held[fs].d : &dl;
			struct ev_key key;

			if ((p->key_ids ? dec_event(p, eb, eb + en, le, d, 1)
					: dec_event(p, eb, eb + en, le, d, 0)) < 0) {
				bad = 1;
				break;
			}
			if (p->dev_time)
				dec_dev_retime(l, d);
			if (bk && !((first + nd) & (XT_BLOCK - 1)))
				blk_push(bk, (uint32_t)(tagp - lb));
			key = (struct ev_key){ d->agg, (int64_t)d->off, (int64_t)d->dur,
					       (uint32_t)(tagp - lb) };
			if (!reorder) {
				if (dec_put(&r, p, d, &key, eb, en, none) < 0)
					bad = 1;
			} else {
				unsigned j = nh;

				held[fs].key = key;
				held[fs].eb = eb;
				held[fs].en = en;
				held[fs].fidx = nd;
				while (j > 0 && ev_key_cmp(&key, &held[ord[j - 1]].key) < 0) {
					ord[j] = ord[j - 1];
					j--;
				}
				ord[j] = (unsigned char)fs;
				if (++nh <= DEC_HOLD) {
					fs = nh; /* filling: slots [0, nh) are held */
				} else {
					int s = dec_release(&r, p, held, ord, &nh);

					if (s < 0)
						bad = 1;
					else
						fs = (unsigned)s;
				}
			}
			nd++;
		}
		if (windows && (uint64_t)(q - from) >= mark) {
			/* The next window in, the decoded ones out. */
			if (mark < len)
				source_prefetch(src, (uint64_t)(from - src->data) + mark,
						len - mark < XT_WINDOW ? len - mark : XT_WINDOW);
			source_release(src, (uint64_t)(from - src->data) + released,
				       (uint64_t)(q - from) - released);
			released = (uint64_t)(q - from) & ~(uint64_t)4095;
			mark += XT_WINDOW;
		}
	}
	while (reorder && nh && !bad)
		if (dec_release(&r, p, held, ord, &nh) < 0)
			bad = 1;
	if (r.nv && !bad)
		in->sink->range(o->part, v, r.nv);
	o->n = r.n;
	o->last = r.prev;
	o->renamed = !!(seen & SEEN_RENAMED);
	if (!none && o->fo.bmax && r.n % XT_BLOCK)
		o->fo.bmax[r.n / XT_BLOCK] = o->fo.f.maxend;
	return bad ? LINE_EBAD : 0;
}

int line_dec_range(const struct line_in *in, const uint8_t *from, const uint8_t *to, int headers,
		   struct grow *ge, struct blkv *bk, size_t first, struct dec_out *o)
{
	if (o->none)
		return dec_range(in, from, to, headers, ge, bk, first, o, 1, 0);
	if (in->p->dev_time)
		return dec_range(in, from, to, headers, ge, bk, first, o, 0, 1);
	return dec_range(in, from, to, headers, ge, bk, first, o, 0, 0);
}

void line_start(struct xt_line *l)
{
	l->raw_base = l->raw_off;
	l->gen = atomic_fetch_add(&line_gen, 1) + 1;
}

/* The offset of every XT_BLOCK-th event of a line in order (of its n)
 * from bk to l->blk_raw; bk is emptied. */
static void line_take_offsets(struct xt_line *l, size_t n, struct blkv *bk)
{
	if (n)
		l->blk_raw = xreallocarray(bk->v, bk->n ? bk->n : 1, sizeof(uint32_t));
	else
		free(bk->v);
	bk->v = NULL;
}

/* A whole line's sunk: its one part (none when the sink wants nothing). */
static void sunk_whole(struct xt_sunk *sunk, void *part)
{
	memset(sunk, 0, sizeof(*sunk));
	if (part) {
		sunk->parts = xmalloc(sizeof(*sunk->parts));
		sunk->parts[0] = part;
		sunk->nparts = 1;
	}
}

/*
 * Hands the decoded arrays to the line: sorted when they are not in
 * order (every offset kept), an offset per block when they are, then
 * depths and the long durations' index. ra (emptied) holds the events
 * the decoders put at another index than the file's. lg holds nlng long
 * durations, laid out as line_finish() reads them (seg), within its first
 * `used`; sunk the sink's parts, and where the sort moved events when it
 * did; fo what each range (the line's chunks, from event seg[k] on; else
 * the whole line) worked out while decoded.
 */
void line_complete(const struct source *src, struct xt_line *l, struct grow *ge, size_t n,
		   int sorted, struct grow *lg, size_t nlng, size_t used, const size_t *seg,
		   size_t nseg, struct blkv *bk, struct rawat *ra, struct blk_build *blk,
		   struct xt_sunk *sunk, struct fin_out *const *fo, size_t nfo)
{
	static const size_t whole = 0; /* one range, the whole line, from event 0 */
	int in_order = sorted || n <= 1;

	size_t map;

	l->ev = grow_done(ge, n, &map);
	l->ev_map = map;
	l->nev = n;
	l->nlong_dur = nlng;
	if (!sorted && n > 1) {
		/* Out of order (rare): the durations as pairs, permuted with the
		 * events, then one list again. */
		struct long_pair *pr = long_pairs(l, lg->p, nlng, seg, nseg);
		size_t k;

		grow_free(lg);
		/* The offsets in the file's order, then those the decoders
		 * put elsewhere where they put them. */
		l->raw = line_offsets(src, l, n);
		for (k = 0; k < ra->n; k++)
			if (ra->v[k].ev < n)
				l->raw[ra->v[k].ev] = ra->v[k].raw;
		free(ra->v);
		line_sort(l, l->raw, &pr, &nlng, blk,
			  sunk->nparts ? (uint32_t **)&sunk->moved : NULL);
		free(bk->v);
		if (nlng) {
			l->long_ps = xmalloc(nlng * sizeof(*l->long_ps));
			for (k = 0; k < nlng; k++)
				l->long_ps[k] = pr[k].dur_ps;
		}
		free(pr);
		seg = NULL;
		nseg = 0;
	} else {
		line_take_offsets(l, n, bk);
		if (ra->n) {
			l->raw_at = xreallocarray(ra->v, ra->n, sizeof(*ra->v));
			l->nraw_at = ra->n;
		} else {
			free(ra->v);
		}
		if (nlng) {
			l->long_ps = grow_done(lg, used, &map);
			l->long_map = map;
		} else {
			grow_free(lg);
		}
	}
	bk->v = NULL;
	memset(ra, 0, sizeof(*ra));
	blk_give(blk, l);
	if (!in_order || line_finish_ranges(l, fo, nseg ? seg : &whole, nfo) < 0)
		line_finish(l, seg, nseg);
}

/* A whole line's decoding begun: o with its long durations in lg, room
 * for `most` events (every event takes at least 2 bytes). */
static size_t whole_begin(const struct line_in *in, struct dec_out *o, struct grow *lg)
{
	struct xt_line *l = in->l;
	size_t most = l->raw_len / 2 + 1;
	int big = l->raw_len >= XT_BIG_LINE;

	line_start(l);
	grow_init_sparse(lg, sizeof(int64_t), most, big);
	memset(o, 0, sizeof(*o));
	blk_init(&o->blk, most, big);
	o->lng = lg;
	o->part = line_sink_part(in);
	fin_out_init(&o->fo, most / XT_BLOCK + 1);
	return most;
}

int line_decode_keep(const struct line_in *in, struct xt_sunk *sunk)
{
	struct xt_line *l = in->l;
	const uint8_t *lb = in->src->data + l->raw_off;
	size_t most;
	int rc;
	struct grow ge, lg;
	struct blkv bk = { NULL, 0, 0 };
	struct dec_out o;

	if (l->raw_len > UINT32_MAX)
		return LINE_EBIG;
	most = whole_begin(in, &o, &lg);
	grow_init(&ge, sizeof(struct xt_event), most, l->raw_len >= XT_BIG_LINE,
		  l->raw_len / 16 + 16);
	rc = line_dec_range(in, lb, lb + l->raw_len, 1, &ge, &bk, 0, &o);
	if (rc < 0) {
		grow_free(&ge);
		grow_free(&lg);
		free(bk.v);
		free(o.rawat.v);
		blk_free(&o.blk);
		fin_out_free(&o.fo);
		if (o.part)
			in->sink->part_free(o.part);
		return rc;
	}
	sunk_whole(sunk, o.part);
	{
		struct fin_out *fo = &o.fo;

		line_complete(in->src, l, &ge, o.n, o.sorted, &lg, o.nlng, o.nlng, NULL, 0, &bk,
			      &o.rawat, &o.blk, sunk, &fo, 1);
	}
	fin_out_free(&o.fo);
	return 0;
}

void line_none_begin(struct dec_out *o)
{
	memset(o, 0, sizeof(*o));
	fin_init(&o->fo.f);
	fin_tops_begin(&o->fo);
	o->none = 1;
}

/* The line's, once its ranges were decoded without keeping events: its
 * count, depth and offsets; bk's offsets go to it. */
void line_keep_none(struct xt_line *l, size_t n, struct blkv *bk)
{
	l->ev = NULL;
	l->ev_map = 0;
	l->nev = n;
	l->nlong_dur = 0;
	l->kept_none = 1;
	line_take_offsets(l, n, bk);
}

/* line_decode for in->keep: returns LINE_EKEEP when the line must be
 * decoded keeping its events (nothing of this attempt is left). */
static int line_decode_none(const struct line_in *in, struct xt_sunk *sunk)
{
	struct xt_line *l = in->l;
	const uint8_t *lb = in->src->data + l->raw_off;
	int rc;
	struct blkv bk = { NULL, 0, 0 };
	struct dec_out o;
	struct fin_out *fo;

	if (l->raw_len > UINT32_MAX)
		return LINE_EBIG;
	line_start(l);
	line_none_begin(&o);
	o.part = line_sink_part(in);
	rc = line_dec_range(in, lb, lb + l->raw_len, 1, NULL, &bk, 0, &o);
	if (!rc && (o.renamed || !(o.sorted || o.n <= 1)))
		rc = LINE_EKEEP;
	fin_tops_end(&o.fo);
	fo = &o.fo;
	if (!rc && line_finish_tops(l, &fo, 1) < 0)
		rc = LINE_EKEEP;
	fin_out_free(&o.fo);
	if (rc < 0) {
		free(bk.v);
		if (o.part)
			in->sink->part_free(o.part);
		return rc;
	}
	line_keep_none(l, o.n, &bk);
	sunk_whole(sunk, o.part);
	return 0;
}

int line_decode(const struct line_in *in, struct xt_sunk *sunk)
{
	struct line_in k = *in;
	int rc;

	if (in->keep && in->sink) {
		rc = line_decode_none(in, sunk);
		if (rc != LINE_EKEEP)
			return rc;
	}
	k.keep = XT_KEEP_ALL;
	return line_decode_keep(&k, sunk);
}
