/*
 * line_split: big lines in chunks (line_decode.h): the walk that finds
 * where each chunk starts, the chunks decoded by any thread into the
 * line's arrays (or, for a line that keeps no events, into what each
 * chunk leaves: line_decode.h), and the line finished from its chunks.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../util/bigmem.h"
#include "../util/xalloc.h"
#include "line_decode.h"
#include "line_event.h"
#include "line_int.h"
#include "wire.h"

/* A chunk starts at an event whose index is a multiple of XT_BLOCK, so
 * that no block of the long durations' index spans two chunks: a chunk
 * writes its long durations at its first event's index in the line's
 * list (it has no more than it has events), and line_finish() reads them
 * from there. */
struct chunk {
	const uint8_t *from, *to;
	size_t first, n;        /* its events: first index on the line, count */
	struct grow lv;         /* its part of the line's long durations */
	struct dec_out o;
};

struct line_split {
	struct line_in in;
	struct grow ge;         /* early: reserved whole by bigmem; else exact, after the walk */
	struct grow lng;        /* long durations, the same way (sparse) */
	struct blk_build blk;   /* start bases, the same way (sparse) */
	int early;
	struct blkv bk;         /* filled by the walk */
	struct chunk *ch;
	size_t nch, capch;
	size_t total;           /* events, once walked */
	pthread_mutex_t lock;
	size_t parts_done;
	int walked;
	int renamed;            /* the walk met a name after an event (in.keep) */
};

struct line_split *line_split_new(const struct line_in *in)
{
	struct line_split *s = xcalloc(1, sizeof(*s));
	size_t most = in->l->raw_len / 2 + 1;

	s->in = *in;
	if (!in->sink)
		s->in.keep = XT_KEEP_ALL;
	line_start(in->l);
	if (s->in.keep) {
		/* A line that keeps no events decodes each chunk as soon as
		 * it is found. */
		s->early = 1;
	} else {
		grow_init(&s->ge, sizeof(struct xt_event), most, 1, 0);
		grow_init_sparse(&s->lng, sizeof(int64_t), most, 1);
		blk_init(&s->blk, most, 1);
		s->early = s->ge.reserved && s->lng.reserved && blk_reserved(&s->blk);
		if (!s->early) {
			grow_free(&s->ge);
			grow_free(&s->lng);
			blk_free(&s->blk);
			memset(&s->ge, 0, sizeof(s->ge));
			memset(&s->lng, 0, sizeof(s->lng));
		}
	}
	s->capch = in->l->raw_len / (in->chunk ? in->chunk : LINE_CHUNK) + 2;
	s->ch = xcalloc(s->capch, sizeof(*s->ch));
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

struct xt_line *line_split_line(const struct line_split *s)
{
	return s->in.l;
}

/* The ev_key of the event whose tag is at tagp, its bytes read once more
 * (the walk only steps over them); -1 when malformed. */
static int walk_key(const struct line_in *in, const uint8_t *lb, const uint8_t *tagp,
		    const uint8_t *le, struct ev_key *k)
{
	const uint8_t *q = tagp, *eb;
	uint64_t en;
	unsigned seen = 0;
	struct dec_ev d;

	/* read only when dec_event saw both (gcc cannot tell) */
	d.dev_off = d.dev_dur = 0;
	if (line_next_field(in, &q, le, le, 0, 0, &seen, &eb, &en) != 1 ||
	    dec_event(in->p, eb, eb + en, le, &d, 0) < 0)
		return -1;
	dec_dev_retime(in->l, &d);
	*k = (struct ev_key){ d.agg, (int64_t)d.off, (int64_t)d.dur, (uint32_t)(tagp - lb) };
	return 0;
}

/*
 * Whether a chunk of a line whose decoders put its events in order as
 * they go (a device's clock: line_int.h, DEC_HOLD) may start at q: no
 * event of the next DEC_HOLD goes before any of the last WALK_BACK (ring,
 * their tags). Else the chunks would meet out of order and the whole line
 * be sorted after, on one thread: a TPU's ops stand a place from the
 * file's order at 1 to 3 % of its events, so at a tenth of the cuts of a
 * 1 GB profile one of its lines was. The look back is longer than the
 * look ahead: a decoder holds an event that belongs later for as long as
 * it takes (one 35 places early still met the next chunk out of order
 * with 16). Malformed bytes say yes: the decoder reports them.
 */
enum { WALK_BACK = 4 * DEC_HOLD, WALK_TRIES = 32 };

static int walk_cut_ok(const struct line_in *in, const uint8_t *lb,
		       const uint8_t *const *ring, const uint8_t *q, const uint8_t *le)
{
	struct ev_key hi = { 0, 0, 0, 0 }, k;
	unsigned i;

	for (i = 0; i < WALK_BACK; i++) {
		if (walk_key(in, lb, ring[i], le, &k) < 0)
			return 1;
		if (!i || ev_key_cmp(&k, &hi) > 0)
			hi = k;
	}
	for (i = 0; i < DEC_HOLD && q < le;) {
		const uint8_t *at = q, *eb;
		uint64_t en;
		unsigned seen = 0;
		int r = line_next_field(in, &q, le, le, 0, 0, &seen, &eb, &en);

		if (r < 0 || (r && walk_key(in, lb, at, le, &k) < 0))
			return 1;
		if (!r)
			continue;
		if (ev_key_cmp(&k, &hi) < 0)
			return 0;
		i++;
	}
	return 1;
}

int line_split_walk(struct line_split *s, void (*ready)(void *arg, struct line_split *s, size_t k),
		    void *arg)
{
	const struct line_in *in = &s->in;
	const struct source *src = in->src;
	struct xt_line *l = in->l;
	const uint8_t *lb = src->data + l->raw_off, *le = lb + l->raw_len, *q = lb, *cs = lb;
	uint64_t chunk = in->chunk ? in->chunk : LINE_CHUNK, cut = chunk;
	size_t count = 0, cfirst = 0, k;
	int bad = 0, rc = 0;
	unsigned seen = 0;
	/* The last events' tags, where the decoders put events in order, and
	 * the places tried for the next cut. */
	const int ro = in->p->dev_time && !in->keep;
	const uint8_t *ring[WALK_BACK];
	size_t nring = 0;
	unsigned tries = 0;

	if (l->raw_len > UINT32_MAX)
		return LINE_EBIG;
	source_prefetch(src, l->raw_off, XT_WINDOW);
	while (q < le && !bad) {
		/* Pointer chasing through the page cache: each field's place
		 * depends on the last one's length, so fetch ahead, a page
		 * ahead: the hardware's own prefetch stops at a page's end
		 * (512 bytes ahead was 2-3 % slower: docs/performance.md). */
		__builtin_prefetch(q + 4096);
		{
			const uint8_t *tagp = q, *eb;
			uint64_t en;
			int r = line_next_field(in, &q, le, le, 1, count, &seen, &eb, &en);

			if (r == LINE_ERETRY) {
				rc = r;
				break;
			}
			if (r < 0) {
				bad = 1;
				break;
			}
			if (r) {
				if (!(count & (XT_BLOCK - 1)))
					blk_push(&s->bk, (uint32_t)(tagp - lb));
				if (ro)
					ring[nring++ % WALK_BACK] = tagp;
				count++;
			}
		}
		/* Where the chunks must meet in order, a cut waits for a
		 * place where they do: WALK_TRIES places at most (a line out
		 * of order throughout has none, and each costs a decoding of
		 * 80 events), for a chunk's length at most. */
		if ((uint64_t)(q - lb) >= cut && q < le && !(count & (XT_BLOCK - 1)) &&
		    (!ro || (uint64_t)(q - lb) >= cut + chunk || tries >= WALK_TRIES ||
		     (nring >= WALK_BACK && (tries++, walk_cut_ok(in, lb, ring, q, le))))) {
			/* A chunk ends at a field boundary before an event whose
			 * index is a multiple of XT_BLOCK; the next window in. */
			s->ch[s->nch] = (struct chunk){ .from = cs, .to = q, .first = cfirst,
							.n = count - cfirst };
			if (s->early)
				ready(arg, s, s->nch);
			s->nch++;
			cs = q;
			cfirst = count;
			source_prefetch(src, (uint64_t)(q - src->data),
					(uint64_t)(le - q) < XT_WINDOW ? (uint64_t)(le - q) : XT_WINDOW);
			cut = (uint64_t)(q - lb) + chunk;
			tries = 0;
		}
	}
	if (!rc && bad)
		rc = LINE_EBAD;
	if (!rc) {
		s->ch[s->nch++] = (struct chunk){ .from = cs, .to = le, .first = cfirst,
						  .n = count - cfirst };
		if (s->early)
			ready(arg, s, s->nch - 1);
		s->total = count;
		if (!s->early) {
			/* Sanitizer builds: exact arrays, then the chunks. */
			grow_init(&s->ge, sizeof(struct xt_event), count, 0, count);
			grow_init(&s->lng, sizeof(int64_t), count, 0, count);
			blk_init_exact(&s->blk, count);
			for (k = 0; k < s->nch; k++)
				ready(arg, s, k);
		}
	}
	pthread_mutex_lock(&s->lock);
	s->walked = 1;
	s->renamed = !!(seen & SEEN_RENAMED);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int line_split_chunk(struct line_split *s, size_t k)
{
	struct chunk *c = &s->ch[k];
	const struct source *src = s->in.src;
	struct grow fe = { .p = NULL, .esz = sizeof(struct xt_event), .cap = c->n, .fixed = 1 };
	int rc;

	if (s->in.keep) {
		line_none_begin(&c->o);
	} else {
		fe.p = (struct xt_event *)s->ge.p + c->first;
		if (s->early && c->n)
			bigmem_commit(s->ge.p, c->first * sizeof(struct xt_event),
				      c->n * sizeof(struct xt_event), s->ge.huge);
		/* Without a reservation the line's list was sized after the walk. */
		c->lv = grow_view(&s->lng, c->first, c->n);
		c->o.lng = &c->lv;
		fin_out_init(&c->o.fo, (c->n + XT_BLOCK - 1) / XT_BLOCK);
		blk_view(&c->o.blk, &s->blk, c->first, c->n);
	}
	c->o.part = line_sink_part(&s->in);
	rc = line_dec_range(&s->in, c->from, c->to, 0, s->in.keep ? NULL : &fe, NULL, c->first,
			    &c->o);
	if (!rc && c->o.n != c->n)
		rc = LINE_EBAD;
	if (s->in.keep)
		fin_tops_end(&c->o.fo);
	source_release(src, (uint64_t)(c->from - src->data), (uint64_t)(c->to - c->from));
	return rc;
}

uint64_t line_split_chunk_bytes(const struct line_split *s, size_t k)
{
	return (uint64_t)(s->ch[k].to - s->ch[k].from);
}

uint64_t line_split_chunk_events(const struct line_split *s, size_t k)
{
	return s->ch[k].n;
}

int line_split_done(struct line_split *s)
{
	int last;

	pthread_mutex_lock(&s->lock);
	s->parts_done++;
	last = s->walked && s->parts_done == s->nch + 1;
	pthread_mutex_unlock(&s->lock);
	return last;
}

/* The end of a split line that keeps no events (sorted: in order within
 * and across its chunks); returns LINE_EKEEP when it must be decoded
 * again keeping them. */
static int split_finish_none(struct line_split *s, int sorted, struct fin_out *const *fo)
{
	struct xt_line *l = s->in.l;

	if (!sorted || s->renamed || line_finish_tops(l, fo, s->nch) < 0)
		return LINE_EKEEP;
	line_keep_none(l, s->total, &s->bk);
	return 0;
}

/* The events the chunks' decoders moved, the chunks' lists one after
 * the other (each ascending, at its chunk's indices). */
static struct rawat split_rawat(const struct line_split *s)
{
	struct rawat ra = { NULL, 0, 0 };
	size_t k, j;

	for (k = 0; k < s->nch; k++)
		for (j = 0; j < s->ch[k].o.rawat.n; j++)
			rawat_push(&ra, s->ch[k].o.rawat.v[j].ev, s->ch[k].o.rawat.v[j].raw);
	return ra;
}

int line_split_finish(struct line_split *s, struct xt_sunk *sunk, struct arena *a)
{
	size_t *seg = xmalloc((s->nch ? s->nch : 1) * sizeof(*seg));
	struct fin_out **fo = xmalloc((s->nch ? s->nch : 1) * sizeof(*fo));
	size_t k, nlng = 0, used = 0;
	int sorted = 1, rc = 0;
	const struct chunk *prev = NULL;

	memset(sunk, 0, sizeof(*sunk));
	if (s->nch && s->ch[0].o.part) {
		sunk->parts = xmalloc(s->nch * sizeof(*sunk->parts));
		for (k = 0; k < s->nch; k++) {
			sunk->parts[k] = s->ch[k].o.part;
			s->ch[k].o.part = NULL;
		}
		sunk->nparts = s->nch;
	}

	for (k = 0; k < s->nch; k++) {
		struct chunk *c = &s->ch[k];

		if (c->o.blk.n16)
			s->blk.n16 = c->o.blk.base + c->o.blk.n16;
		if (c->o.blk.n32)
			s->blk.n32 = c->o.blk.base + c->o.blk.n32;
		seg[k] = c->first;
		fo[k] = &c->o.fo;
		nlng += c->o.nlng;
		if (c->o.nlng)
			used = c->first + c->o.nlng;
		if (!c->n)
			continue;
		sorted &= c->o.sorted;
		if (prev && ev_key_cmp(&c->o.first, &prev->o.last) < 0)
			sorted = 0;
		prev = c;
	}
	s->blk.nblk = (s->total + XT_BLOCK - 1) / XT_BLOCK;
	if (s->in.keep) {
		rc = split_finish_none(s, sorted, fo);
		grow_free(&s->lng);
		blk_free(&s->blk);
		if (rc == LINE_EKEEP) {
			/* Once more, whole, keeping the events. The line's names
			 * go to this thread's arena: the one that walked it may
			 * be decoding another line into its own. */
			struct line_in in = s->in;

			line_sunk_free(s->in.sink, sunk);
			free(s->bk.v);
			s->bk.v = NULL;
			in.keep = XT_KEEP_ALL;
			in.a = a;
			rc = line_decode_keep(&in, sunk);
		}
	} else {
		struct rawat ra = split_rawat(s);

		if (s->early) {
			/* All chunks made their parts resident: what grow_done trims. */
			s->ge.committed = s->ge.reserved;
			s->lng.committed = s->lng.reserved;
		}
		line_complete(s->in.src, s->in.l, &s->ge, s->total, sorted, &s->lng, nlng, used,
			      seg, s->nch, &s->bk, &ra, &s->blk, sunk, fo, s->nch);
	}
	for (k = 0; k < s->nch; k++) {
		fin_out_free(&s->ch[k].o.fo);
		free(s->ch[k].o.rawat.v);
	}
	free(fo);
	free(seg);
	pthread_mutex_destroy(&s->lock);
	free(s->ch);
	free(s);
	return rc;
}

void line_split_free(struct line_split *s)
{
	size_t k;

	if (!s)
		return;
	for (k = 0; k < s->nch; k++) {
		if (s->ch[k].o.part)
			s->in.sink->part_free(s->ch[k].o.part);
		fin_out_free(&s->ch[k].o.fo);
		free(s->ch[k].o.rawat.v);
	}
	if (s->ge.p)
		grow_free(&s->ge);
	if (s->lng.p)
		grow_free(&s->lng);
	free(s->bk.v);
	blk_free(&s->blk);
	pthread_mutex_destroy(&s->lock);
	free(s->ch);
	free(s);
}
