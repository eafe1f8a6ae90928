/*
 * an_memory: the MemoryAllocation / MemoryDeallocation events of
 * /host:CPU lines (docs/analyses.md, "Memory") as records per line part,
 * read by the sink while lines are decoded, else from the decoded lines;
 * an_memrows.c turns them into the memory rows.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"
#include "wire.h"

/* The stats mem_take() reads as integers (mem_take_int), and all it reads. */
#define MEM_INTS                                                                               \
	((1ull << XS_INDEX_ON_HOST) | (1ull << XS_DEVICE_ORDINAL) | (1ull << XS_BYTES_RESERVED) | \
	 (1ull << XS_BYTES_ALLOCATED) | (1ull << XS_BYTES_AVAILABLE) |                            \
	 (1ull << XS_PEAK_BYTES_IN_USE) | (1ull << XS_ALLOCATION_BYTES) |                         \
	 (1ull << XS_REQUESTED_BYTES) | (1ull << XS_ADDR))
#define MEM_KNOWN \
	(MEM_INTS | (1ull << XS_ALLOCATOR_NAME) | (1ull << XS_TF_OP) | (1ull << XS_SHAPE))

/* Integer stat k of MEM_INTS, its value v, into r (mem_take's rules). */
static void mem_take_int(struct mem_full *r, unsigned k, int64_t v, uint64_t *have, int from_meta)
{
	if (from_meta && ((*have >> k) & 1))
		return;
	switch (k) {
	case XS_INDEX_ON_HOST:
	case XS_DEVICE_ORDINAL:
		if (from_meta && ((*have >> XS_INDEX_ON_HOST) & 1))
			return;
		/* once per memory event on TPU profiles, where snprintf was
		 * 1 % of a report's time */
		strbuf_fmt_i64(r->idx_buf, v);
		*have |= 1ull << XS_INDEX_ON_HOST;
		return;
	case XS_BYTES_RESERVED:
		r->reserved = v;
		break;
	case XS_BYTES_ALLOCATED:
		r->allocated = v;
		break;
	case XS_BYTES_AVAILABLE:
		r->available = v;
		break;
	case XS_PEAK_BYTES_IN_USE:
		r->peak_in_use = v;
		break;
	case XS_ALLOCATION_BYTES:
		r->bytes = v;
		break;
	case XS_REQUESTED_BYTES:
		if (!((*have >> XS_ALLOCATION_BYTES) & 1))
			r->bytes = v;
		*have |= 1ull << XS_REQUESTED_BYTES;
		return;
	case XS_ADDR:
		r->addr = v;
		r->has_addr = 1;
		break;
	default:
		return;
	}
	*have |= 1ull << k;
}

static void mem_take(struct mem_full *r, const struct xt_stat *s, unsigned k, uint64_t *have,
		     int from_meta)
{
	/* Event stats win over metadata stats. The allocator is its name
	 * when the event has one, else its index (mem_decode_from;
	 * docs/analyses.md, "Memory"). */
	if ((MEM_INTS >> k) & 1) {
		mem_take_int(r, k, stat_as_int(s), have, from_meta);
		return;
	}
	if (from_meta && ((*have >> k) & 1))
		return;
	switch (k) {
	case XS_ALLOCATOR_NAME:
		r->allocator = bref(s->s, s->n);
		break;
	case XS_TF_OP:
		r->op = bref(s->s, s->n);
		break;
	case XS_SHAPE:
		r->shape = bref(s->s, s->n);
		break;
	default:
		return;
	}
	*have |= 1ull << k;
}

/* Decodes a memory event of metadata index meta, its stats from it, in
 * full; returns 0 when it names no allocator (nothing to attribute it to). */
static int mem_decode_from(const struct xt_host *h, const struct xt_plane *p, uint32_t meta,
			   struct stat_iter *it, struct mem_full *r)
{
	struct xt_stat s;
	uint64_t have = 0;
	const uint8_t *sb;
	size_t sn;

	memset(r, 0, sizeof(*r));
	/* The event's stats (the iterator's field 4), read here rather than
	 * through stat_next() for stat_decode_usual() inlined: eleven each. */
	while (wire_next_stat(&it->w, &sb, &sn)) {
		unsigned id;
		const uint8_t *v;

		/* metadata_id first, as upstream writes it (stat_want_scan peeks
		 * the same way): a stat no record reads is not decoded. */
		if (wire_stat_head(sb, sn, &id, &v) == 0) {
			const struct xt_stat_meta *m = trace_smeta_lookup(p, id);

			if (!m || !((MEM_KNOWN >> m->known) & 1))
				continue;
			/* An integer (int64 or uint64, the varint filling the
			 * rest, as stat_decode_usual() reads it), read here: most
			 * of a memory event's stats are. */
			if ((MEM_INTS >> m->known) & 1) {
				int64_t x;

				if (wire_stat_int(v, sb + sn, &x) == 0) {
					mem_take_int(r, m->known, x, &have, 0);
					continue;
				}
			}
		}
		if (stat_decode_usual(p, sb, sn, &s) || stat_decode_one(p, sb, sn, &s))
			mem_take(r, &s, stat_known(&s), &have, 0);
	}
	stat_iter_meta(it, h, p, &p->emeta[meta]);
	while (stat_next(it, &s))
		mem_take(r, &s, stat_known(&s), &have, 1);
	if (!((have >> XS_ALLOCATOR_NAME) & 1)) {
		if (!((have >> XS_INDEX_ON_HOST) & 1))
			return 0;
		r->allocator = bref(NULL, 0);
	}
	return 1;
}

int memory_decode(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		  const struct xt_event *ev, struct mem_full *r)
{
	struct stat_iter it;

	stat_iter_event(&it, h, p, l, ev);
	return mem_decode_from(h, p, xt_event_meta_index(ev), &it, r);
}

int memory_decode_at(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		     size_t i, struct mem_full *r)
{
	struct stat_iter it;
	struct wire w;
	const uint8_t *b;
	size_t n;
	uint64_t mid = 0;

	if (l->ev)
		return memory_decode(h, p, l, &l->ev[i], r);
	/* A line that kept no events (xt_line.kept_none): its metadata id
	 * from the event's bytes, as the reader took it (the last one). */
	b = trace_event_bytes_at(h, l, i, &n);
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_VARINT)
			mid = wire_varint(&w);
		else
			wire_skip(&w, t);
	}
	stat_iter_event_bytes(&it, p, b, n);
	return mem_decode_from(h, p, trace_emeta_lookup(p, (int64_t)mid), &it, r);
}

struct bytes_ref memory_key_bytes(const struct mem_key *k)
{
	return k->name.p ? k->name : bref(k->idx, strlen(k->idx));
}

/* The part's key index of key k's allocator, k copied in when new;
 * UINT32_MAX when the part holds as many keys as it can. */
static uint32_t mem_key_add(struct mem_part *mp, const struct mem_key *k)
{
	struct bytes_ref want = memory_key_bytes(k);
	size_t i;

	for (i = 0; i < mp->nkeys; i++) {
		struct bytes_ref have = memory_key_bytes(&mp->keys[i]);

		if (bref_eq(have, want))
			return (uint32_t)i;
	}
	if (mp->nkeys >= MEM_KEY_MASK)
		return UINT32_MAX;
	mp->keys = xreallocarray(mp->keys, mp->nkeys + 1, sizeof(*mp->keys));
	mp->keys[mp->nkeys] = *k;
	return (uint32_t)mp->nkeys++;
}

/* The part's key index of r's allocator, added when new. */
static uint32_t mem_key_of(struct mem_part *mp, const struct mem_full *r)
{
	struct mem_key k;

	memset(&k, 0, sizeof(k));
	if (r->allocator.p)
		k.name = r->allocator;
	else
		memcpy(k.idx, r->idx_buf, sizeof(r->idx_buf));
	return mem_key_add(mp, &k);
}

/* Memory event r, event i of its line, time_ps from the line's start, into
 * mp's records (kind: emeta_info.mem). */
static void mem_add(struct mem_part *mp, const struct mem_full *r, size_t i, int64_t time_ps,
		    unsigned kind)
{
	struct mem_rec *m;
	uint32_t k = mem_key_of(mp, r);

	if (k == UINT32_MAX)
		return; /* more allocators on one line than anyone has */
	if (r->peak_in_use > mp->keys[k].lifetime_peak)
		mp->keys[k].lifetime_peak = r->peak_in_use;
	mp->keys[k].n++;
	if (mp->nrec == mp->caprec) {
		mp->caprec = mp->caprec ? mp->caprec * 2 : 64;
		mp->rec = xreallocarray(mp->rec, mp->caprec, sizeof(*mp->rec));
	}
	m = &mp->rec[mp->nrec++];
	m->time_ps = time_ps;
	m->use = xt_sat_add(r->reserved, r->allocated);
	m->addr = r->addr;
	m->bytes = r->bytes;
	m->ev = (uint32_t)i;
	m->key = k | (kind == 1 ? MEM_ALLOC : 0) | (r->has_addr ? MEM_ADDR : 0);
}

struct mem_part *memory_part_new(const struct xt_host *h, const struct xt_plane *p)
{
	struct mem_part *mp = xcalloc(1, sizeof(*mp));

	mp->h = h;
	mp->p = p;
	return mp;
}

void memory_part_free(struct mem_part *mp)
{
	if (!mp)
		return;
	free(mp->rec);
	free(mp->keys);
	free(mp);
}

void memory_event(struct mem_part *mp, const struct xt_sink_ev *e)
{
	const struct plane_ctx *pc = mp->p->hook_data;
	struct stat_iter it;
	struct mem_full r;

	stat_iter_event_bytes(&it, mp->p, e->b, e->n);
	if (mem_decode_from(mp->h, mp->p, e->meta, &it, &r))
		mem_add(mp, &r, e->i, e->off_ps, pc->info[e->meta].mem);
}

/* ---- a line's parts ---- */

/* The memory events of events [from, to) of line l into mp. */
static void memory_range(struct mem_part *mp, const struct xt_line *l, size_t from, size_t to)
{
	const struct xt_host *h = mp->h;
	const struct xt_plane *p = mp->p;
	const struct plane_ctx *pc = p->hook_data;
	uint64_t released;
	size_t i;

	/* Source bytes given back (trace_release_before): from this range's
	 * own start, so a range never gives back what another still reads. */
	released = from ? trace_event_raw(h, l, from) & ~(uint64_t)4095 : 0;
	for (i = from; i < to; i++) {
		const struct xt_event *ev = &l->ev[i];
		const struct emeta_info *in = &pc->info[xt_event_meta_index(ev)];
		struct mem_full r;

		if (!(i & 4095))
			trace_release_before(h, l, i, &released);
		if (!in->mem || xt_event_aggregated(ev) || !memory_decode(h, p, l, ev, &r))
			continue;
		mem_add(mp, &r, i, xt_event_off(l, i), in->mem);
	}
}

/* mp as the line's next part (freed when it has no records). */
static void mem_keep(struct line_part *lp, struct mem_part *mp)
{
	if (!mp->nrec) {
		memory_part_free(mp);
		return;
	}
	lp->mem = xreallocarray(lp->mem, lp->nmem + 1, sizeof(*lp->mem));
	lp->mem[lp->nmem++] = mp;
}

void memory_free(struct line_part *lp)
{
	size_t i;

	for (i = 0; i < lp->nmem; i++)
		memory_part_free(lp->mem[i]);
	free(lp->mem);
}

/* The second half of a long line, on a thread of its own. */
struct mem_half {
	struct mem_part *mp;
	const struct xt_line *l;
	size_t from, to;
};

static void *mem_half_run(void *arg)
{
	struct mem_half *mh = arg;

	memory_range(mh->mp, mh->l, mh->from, mh->to);
	return NULL;
}

/* Appends b's records (a later part of the line) to a, b's keys mapped
 * onto a's (a record whose allocator finds no room is left out, as in
 * one pass), and empties b. a has room for them. */
static void mem_join(struct mem_part *a, struct mem_part *b)
{
	uint32_t *map = xmalloc((b->nkeys ? b->nkeys : 1) * sizeof(*map));
	size_t i;

	for (i = 0; i < b->nkeys; i++) {
		struct mem_key k = b->keys[i];
		uint32_t j;

		k.lifetime_peak = 0;
		k.n = 0;
		j = map[i] = mem_key_add(a, &k);
		if (j != UINT32_MAX && b->keys[i].lifetime_peak > a->keys[j].lifetime_peak)
			a->keys[j].lifetime_peak = b->keys[i].lifetime_peak;
	}
	for (i = 0; i < b->nrec; i++) {
		struct mem_rec m = b->rec[i];

		if (map[m.key & MEM_KEY_MASK] == UINT32_MAX)
			continue;
		m.key = map[m.key & MEM_KEY_MASK] | (m.key & ~MEM_KEY_MASK);
		a->keys[m.key & MEM_KEY_MASK].n++;
		a->rec[a->nrec++] = m;
	}
	free(map);
	free(b->rec);
	free(b->keys);
	b->rec = NULL;
	b->keys = NULL;
	b->nrec = b->caprec = b->nkeys = 0;
}

static int rec_ev_cmp(const void *x, const void *y)
{
	const struct mem_rec *a = x, *b = y;

	return (a->ev > b->ev) - (a->ev < b->ev);
}

static struct mem_part **part_mem(struct xt_sunk *sunk, size_t k)
{
	return &((struct host_part *)sunk->parts[k])->mem;
}

/* The sink's parts, in file order, become the line's (their times stay
 * offsets from the line's start). They stay apart (copying millions of
 * records into one array would touch as much fresh memory again) unless
 * the line was sorted: then they are joined, and the records follow their
 * events into the line's order. */
static void memory_take(struct line_part *lp, struct xt_sunk *sunk)
{
	size_t i, k, total = 0;

	if (sunk->moved) {
		struct mem_part *a = *part_mem(sunk, 0);

		for (i = 0; i < sunk->nparts; i++)
			total += (*part_mem(sunk, i))->nrec;
		if (total > a->caprec) {
			a->caprec = total;
			a->rec = xreallocarray(a->rec, a->caprec, sizeof(*a->rec));
		}
		for (i = 1; i < sunk->nparts; i++)
			mem_join(a, *part_mem(sunk, i));
		for (i = 0; i < a->nrec; i++)
			a->rec[i].ev = sunk->moved[a->rec[i].ev];
		if (a->nrec > 1)
			qsort(a->rec, a->nrec, sizeof(*a->rec), rec_ev_cmp);
	}
	for (k = 0; k < sunk->nparts; k++) {
		mem_keep(lp, *part_mem(sunk, k));
		*part_mem(sunk, k) = NULL;
	}
}

/* Without the sink (analysis_run), a host line's memory events are read
 * from the line, each one's stats decoded in full, so a line of tens of
 * millions of events (a Python tracer line that records allocations) takes
 * seconds: it is cut in two halves, one on a thread of its own. */
size_t memory_split_events = 4000000;

void memory_line(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		 const struct xt_line *l, struct xt_sunk *sunk)
{
	const struct plane_ctx *pc = p->hook_data;
	struct mem_half mh;
	pthread_t tid;

	if (sunk && sunk->nparts) {
		memory_take(lp, sunk);
		return;
	}
	if (!pc->has_mem)
		return; /* no memory event metadata on the plane: no event to look at */
	memset(&mh, 0, sizeof(mh));
	mh.mp = memory_part_new(h, p);
	mh.l = l;
	mh.to = l->nev;
	if (l->nev >= memory_split_events && l->nev >= 2) {
		struct mem_part *first = memory_part_new(h, p);

		mh.from = l->nev / 2;
		if (pthread_create(&tid, NULL, mem_half_run, &mh) == 0) {
			memory_range(first, l, 0, mh.from);
			pthread_join(tid, NULL);
			mem_keep(lp, first);
			mem_keep(lp, mh.mp);
			return;
		}
		memory_part_free(first);
		mh.from = 0;
	}
	memory_range(mh.mp, l, 0, l->nev);
	mem_keep(lp, mh.mp);
}
