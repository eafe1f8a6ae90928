/*
 * an_memory: memory peaks per allocator (docs/analyses.md, "Memory") from
 * MemoryAllocation / MemoryDeallocation events of /host:CPU.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

/* Everything a memory event says (decoded in full only where needed). */
struct mem_full {
	struct bytes_ref allocator; /* p NULL: the key is idx_buf */
	char idx_buf[24];
	int64_t reserved, allocated, available, peak_in_use;
	int64_t addr, bytes;
	struct bytes_ref op, shape;
	uint8_t has_addr;
};

static void mem_take(struct mem_full *r, const struct xt_stat *s, unsigned k, uint64_t *have,
		     int from_meta)
{
	/* Event stats win over metadata stats; within one message the last
	 * allocator key (name or index) wins, as upstream's loop does. */
	if (from_meta && ((*have >> k) & 1))
		return;
	switch (k) {
	case XS_ALLOCATOR_NAME:
		r->allocator = bref(s->s, s->n);
		*have |= 1ull << XS_ALLOCATOR_NAME;
		return;
	case XS_INDEX_ON_HOST:
	case XS_DEVICE_ORDINAL:
		if (from_meta && ((*have >> XS_INDEX_ON_HOST) & 1))
			return;
		snprintf(r->idx_buf, sizeof(r->idx_buf), "%" PRId64, stat_as_int(s));
		*have |= 1ull << XS_INDEX_ON_HOST;
		return;
	case XS_BYTES_RESERVED:
		r->reserved = stat_as_int(s);
		break;
	case XS_BYTES_ALLOCATED:
		r->allocated = stat_as_int(s);
		break;
	case XS_BYTES_AVAILABLE:
		r->available = stat_as_int(s);
		break;
	case XS_PEAK_BYTES_IN_USE:
		r->peak_in_use = stat_as_int(s);
		break;
	case XS_ALLOCATION_BYTES:
		r->bytes = stat_as_int(s);
		break;
	case XS_REQUESTED_BYTES:
		if (!((*have >> XS_ALLOCATION_BYTES) & 1))
			r->bytes = stat_as_int(s);
		*have |= 1ull << XS_REQUESTED_BYTES;
		return;
	case XS_ADDR:
		r->addr = stat_as_int(s);
		r->has_addr = 1;
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

	memset(r, 0, sizeof(*r));
	while (stat_next(it, &s))
		mem_take(r, &s, stat_known(&s), &have, 0);
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

/* The same for event ev of line l. */
static int mem_decode(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		      const struct xt_event *ev, struct mem_full *r)
{
	struct stat_iter it;

	stat_iter_event(&it, h, p, l, ev);
	return mem_decode_from(h, p, xt_event_meta_index(ev), &it, r);
}

static struct bytes_ref mem_key_bytes(const struct mem_key *k)
{
	return k->name.p ? k->name : bref(k->idx, strlen(k->idx));
}

/* The part's key index of key k's allocator, k copied in when new;
 * UINT32_MAX when the part holds as many keys as it can. */
static uint32_t mem_key_add(struct mem_part *mp, const struct mem_key *k)
{
	struct bytes_ref want = mem_key_bytes(k);
	size_t i;

	for (i = 0; i < mp->nkeys; i++) {
		struct bytes_ref have = mem_key_bytes(&mp->keys[i]);

		if (have.n == want.n && (have.p == want.p || !memcmp(have.p, want.p, have.n)))
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

/* Memory event r, event i of its line, at time_ps, into mp's records
 * (kind: emeta_info.mem). */
static void mem_add(struct mem_part *mp, const struct mem_full *r, size_t i, int64_t time_ps,
		    unsigned kind)
{
	struct mem_rec *m;
	uint32_t k = mem_key_of(mp, r);

	if (k == UINT32_MAX)
		return; /* more allocators on one line than anyone has */
	if (r->peak_in_use > mp->keys[k].lifetime_peak)
		mp->keys[k].lifetime_peak = r->peak_in_use;
	if (mp->nrec == mp->caprec) {
		mp->caprec = mp->caprec ? mp->caprec * 2 : 64;
		mp->rec = xreallocarray(mp->rec, mp->caprec, sizeof(*mp->rec));
	}
	m = &mp->rec[mp->nrec++];
	m->time_ps = time_ps;
	m->use = r->reserved + r->allocated;
	m->addr = r->addr;
	m->bytes = r->bytes;
	m->ev = (uint32_t)i;
	m->key = k | (kind == 1 ? MEM_ALLOC : 0) | (r->has_addr ? MEM_ADDR : 0);
}

static void *mem_part_new(void *ctx, const struct xt_host *h, const struct xt_plane *p)
{
	struct mem_part *mp = xcalloc(1, sizeof(*mp));

	(void)ctx;
	mp->h = h;
	mp->p = p;
	return mp;
}

static void mem_part_free(void *part)
{
	struct mem_part *mp = part;

	if (!mp)
		return;
	free(mp->rec);
	free(mp->keys);
	free(mp);
}

/* ---- the sink: a decoded range's memory events ---- */

/* The time is the offset as written until memory_line adds the line's
 * rebased timestamp. */
static void mem_part_event(void *part, size_t i, uint32_t meta, int64_t off_ps, const uint8_t *b,
			   size_t n)
{
	struct mem_part *mp = part;
	const struct plane_ctx *pc = mp->p->hook_data;
	struct stat_iter it;
	struct mem_full r;

	stat_iter_event_bytes(&it, mp->p, b, n);
	if (mem_decode_from(mp->h, mp->p, meta, &it, &r))
		mem_add(mp, &r, i, off_ps, pc->info[meta].mem);
}

const struct xt_sink memory_sink = { mem_part_new, mem_part_event, mem_part_free, NULL };

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
		if (!in->mem || xt_event_aggregated(ev) || !mem_decode(h, p, l, ev, &r))
			continue;
		mem_add(mp, &r, i, xt_event_start(l, ev), in->mem);
	}
}

/* mp as the line's next part (freed when it has no records). */
static void mem_keep(struct line_part *lp, struct mem_part *mp)
{
	if (!mp->nrec) {
		mem_part_free(mp);
		return;
	}
	lp->mem = xreallocarray(lp->mem, lp->nmem + 1, sizeof(*lp->mem));
	lp->mem[lp->nmem++] = mp;
}

void memory_free(struct line_part *lp)
{
	size_t i;

	for (i = 0; i < lp->nmem; i++)
		mem_part_free(lp->mem[i]);
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
		j = map[i] = mem_key_add(a, &k);
		if (j != UINT32_MAX && b->keys[i].lifetime_peak > a->keys[j].lifetime_peak)
			a->keys[j].lifetime_peak = b->keys[i].lifetime_peak;
	}
	for (i = 0; i < b->nrec; i++) {
		struct mem_rec m = b->rec[i];

		if (map[m.key & MEM_KEY_MASK] == UINT32_MAX)
			continue;
		m.key = map[m.key & MEM_KEY_MASK] | (m.key & ~MEM_KEY_MASK);
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

/* The sink's parts, in file order, become the line's, at the line's times.
 * They stay apart (copying millions of records into one array would touch
 * as much fresh memory again) unless the line was sorted: then they are
 * joined, and the records follow their events into the line's order. */
static void memory_take(struct line_part *lp, const struct xt_line *l, struct xt_sunk *sunk)
{
	uint64_t base = (uint64_t)l->timestamp_ns * 1000;
	size_t i, k, total = 0;

	if (sunk->moved) {
		struct mem_part *a = sunk->parts[0];

		for (i = 0; i < sunk->nparts; i++)
			total += ((struct mem_part *)sunk->parts[i])->nrec;
		if (total > a->caprec) {
			a->caprec = total;
			a->rec = xreallocarray(a->rec, a->caprec, sizeof(*a->rec));
		}
		for (i = 1; i < sunk->nparts; i++)
			mem_join(a, sunk->parts[i]);
		for (i = 0; i < a->nrec; i++)
			a->rec[i].ev = sunk->moved[a->rec[i].ev];
		qsort(a->rec, a->nrec, sizeof(*a->rec), rec_ev_cmp);
	}
	for (k = 0; k < sunk->nparts; k++) {
		struct mem_part *mp = sunk->parts[k];

		sunk->parts[k] = NULL;
		for (i = 0; i < mp->nrec; i++)
			mp->rec[i].time_ps = (int64_t)(base + (uint64_t)mp->rec[i].time_ps);
		mem_keep(lp, mp);
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
		memory_take(lp, l, sunk);
		return;
	}
	if (!pc->has_mem)
		return; /* no memory event metadata on the plane: no event to look at */
	memset(&mh, 0, sizeof(mh));
	mh.mp = mem_part_new(NULL, h, p);
	mh.l = l;
	mh.to = l->nev;
	if (l->nev >= memory_split_events && l->nev >= 2) {
		struct mem_part *first = mem_part_new(NULL, h, p);

		mh.from = l->nev / 2;
		if (pthread_create(&tid, NULL, mem_half_run, &mh) == 0) {
			memory_range(first, l, 0, mh.from);
			pthread_join(tid, NULL);
			mem_keep(lp, first);
			mem_keep(lp, mh.mp);
			return;
		}
		mem_part_free(first);
		mh.from = 0;
	}
	memory_range(mh.mp, l, 0, l->nev);
	mem_keep(lp, mh.mp);
}

/* A part of a line with memory events, and the merge's group of each of
 * its keys. */
struct mem_line {
	size_t host;
	const struct xt_host *h;
	const struct xt_plane *p;
	const struct xt_line *l;
	const struct mem_part *mp;
	uint32_t *group; /* [key] */
};

/* One event of a group, in the order they are replayed: by time, then
 * plane and line, then place on the line. */
struct mem_item {
	int64_t time;
	uint32_t ml;   /* index into the mem_lines (parts follow their line's order) */
	uint32_t rec;  /* index into that part's records */
};

static int mem_item_cmp(const void *x, const void *y)
{
	const struct mem_item *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->ml != b->ml)
		return a->ml < b->ml ? -1 : 1;
	return (a->rec > b->rec) - (a->rec < b->rec);
}

/* The event behind an item, decoded in full. */
static void item_full(const struct mem_line *mls, const struct mem_item *it, struct mem_full *r)
{
	const struct mem_line *ml = &mls[it->ml];

	mem_decode(ml->h, ml->p, ml->l, &ml->l->ev[ml->mp->rec[it->rec].ev], r);
}

static const struct mem_rec *item_rec(const struct mem_line *mls, const struct mem_item *it)
{
	return &mls[it->ml].mp->rec[it->rec];
}

struct live {
	int64_t addr, bytes, time;
	size_t order;
	int used;
};

static int live_cmp(const void *x, const void *y)
{
	const struct live *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Replays items [0, upto] and fills row->live with the largest survivors,
 * and the split of the peak (docs/analyses.md, "Memory"). */
static void live_at_peak(struct xt_analysis *a, struct xt_memory_row *row,
			 const struct mem_line *mls, const struct mem_item *it, size_t upto)
{
	int64_t attributed = 0, listed = 0;
	struct hmap idx;
	struct live *lv = NULL;
	size_t n = 0, cap = 0, i, k = 0;

	hmap_init(&idx);
	for (i = 0; i <= upto; i++) {
		const struct mem_rec *r = item_rec(mls, &it[i]);
		uint32_t *v;
		int ins;

		if (!(r->key & MEM_ADDR))
			continue;
		if (r->key & MEM_ALLOC) {
			v = hmap_get(&idx, &r->addr, sizeof(r->addr), (uint32_t)n, &ins);
			if (ins) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					lv = xreallocarray(lv, cap, sizeof(*lv));
				}
				n++;
			}
			lv[*v] = (struct live){ r->addr, r->bytes, r->time_ps, i, 1 };
		} else {
			const uint32_t *f = hmap_find(&idx, &r->addr, sizeof(r->addr));

			if (f)
				lv[*f].used = 0;
		}
	}
	for (i = 0; i < n; i++)
		if (lv[i].used) {
			attributed += lv[i].bytes;
			lv[k++] = lv[i];
		}
	if (k > 1)
		qsort(lv, k, sizeof(*lv), live_cmp);
	row->nlive_total = k;
	row->nlive = k < XT_LIVE_MAX ? k : XT_LIVE_MAX;
	for (i = 0; i < row->nlive; i++)
		listed += lv[i].bytes;
	/* In use but never seen allocated: memory allocated before the
	 * profile began, events without an address, and the reserved bytes
	 * (program stacks on TPU) that no allocation event describes. When the
	 * replay claims more than the allocator reports (events lost), the
	 * allocator's own count wins and the excess comes off the unlisted
	 * allocations, so the parts still add up to the peak. */
	if (attributed > row->peak_bytes) {
		int64_t over = attributed - row->peak_bytes;

		row->live_other_bytes = attributed - listed > over ? attributed - listed - over : 0;
		row->unattributed_bytes = row->peak_bytes - listed - row->live_other_bytes;
		if (row->unattributed_bytes < 0)
			row->unattributed_bytes = 0;
	} else {
		row->live_other_bytes = attributed - listed;
		row->unattributed_bytes = row->peak_bytes - attributed;
	}
	row->live = xcalloc(row->nlive ? row->nlive : 1, sizeof(*row->live));
	for (i = 0; i < row->nlive; i++) {
		struct mem_full f;

		/* Op and shape only for the listed few. */
		item_full(mls, &it[lv[i].order], &f);
		row->live[i].bytes = lv[i].bytes;
		row->live[i].op = arena_bref(&a->arena, f.op);
		row->live[i].shape = arena_bref(&a->arena, f.shape);
		row->live[i].time_ps = lv[i].time;
	}
	free(lv);
	hmap_fini(&idx);
}

static size_t series_slot(int64_t t, int64_t first, int64_t span)
{
	return span > 0 ? (size_t)((__int128)(t - first) * (XT_MEM_SERIES - 1) / span) : 0;
}

static void mem_series(struct xt_memory_row *row, const struct mem_line *mls,
		       const struct mem_item *it, size_t n)
{
	int64_t span;
	size_t k;

	row->series = xmalloc(XT_MEM_SERIES * sizeof(int64_t));
	for (k = 0; k < XT_MEM_SERIES; k++)
		row->series[k] = -1;
	row->first_ps = it[0].time;
	row->last_ps = it[n - 1].time;
	span = row->last_ps - row->first_ps;
	for (k = 0; k < n; k++) {
		size_t b = series_slot(it[k].time, row->first_ps, span);
		int64_t use = item_rec(mls, &it[k])->use;

		if (use > row->series[b])
			row->series[b] = use;
	}
	/* Memory stays in use between events: a slice without events holds
	 * the level the previous one ended at. */
	{
		int64_t last = -1;
		size_t j = 0;

		for (k = 0; k < XT_MEM_SERIES; k++) {
			if (row->series[k] >= 0) {
				/* The level at the end of this slice: its last event. */
				while (j < n && series_slot(it[j].time, row->first_ps, span) <= k) {
					last = item_rec(mls, &it[j])->use;
					j++;
				}
			} else {
				row->series[k] = last;
			}
		}
	}
}

/* A readable allocator name: its device and memory space. */
static const char *allocator_name(struct xt_analysis *a, const struct xt_host *h, const char *k,
				  size_t n)
{
	char buf[128], key[96];
	size_t i;

	snprintf(key, sizeof(key), "%.*s", (int)(n < 95 ? n : 95), k);
	if (n && strspn(key, "0123456789") == strlen(key)) {
		/* A device index (index_on_host / device_ordinal): the device
		 * plane of that ordinal. */
		static const char *const kinds[] = { "TPU", "GPU" };
		size_t p, j;

		snprintf(buf, sizeof(buf), "device %s", key);
		for (j = 0; j < 2; j++)
			for (p = 0; p < h->nplanes; p++) {
				char want[64];

				snprintf(want, sizeof(want), "/device:%s:%s", kinds[j], key);
				if (!strcmp(h->planes[p].name, want)) {
					snprintf(buf, sizeof(buf), "%s:%s HBM", kinds[j], key);
					return arena_strndup(&a->arena, buf, strlen(buf));
				}
			}
		return arena_strndup(&a->arena, buf, strlen(buf));
	}
	if (!strncmp(key, "GPU_", 4) && key[4] >= '0' && key[4] <= '9') {
		i = 4 + strspn(key + 4, "0123456789");
		if (!strcmp(key + i, "_bfc")) {
			snprintf(buf, sizeof(buf), "GPU:%.*s HBM", (int)(i - 4), key + 4);
			return arena_strndup(&a->arena, buf, strlen(buf));
		}
	}
	if (strstr(key, "host_bfc") || !strcmp(key, "cuda_host_bfc"))
		return arena_strndup(&a->arena, "host pinned", 11);
	return arena_strndup(&a->arena, key, strlen(key));
}

/* A group of the merge: one allocator of one host. */
struct mem_group {
	size_t host;
	struct bytes_ref key;
	size_t n, at;           /* items, and where they start */
	int64_t lifetime_peak;
};

static int group_cmp(const void *x, const void *y)
{
	const struct mem_group *a = x, *b = y;
	size_t n = a->key.n < b->key.n ? a->key.n : b->key.n;
	int c;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	c = n ? memcmp(a->key.p, b->key.p, n) : 0;
	if (c || a->key.n != b->key.n)
		return c ? c : (a->key.n < b->key.n ? -1 : 1);
	return 0;
}

static void memory_row(struct xt_analysis *a, struct xt_trace *t, const struct mem_group *g,
		       const struct mem_line *mls, struct mem_item *items)
{
	struct xt_memory_row *row;
	struct mem_full pk;
	size_t i, peak_i = 0;
	int64_t peak = INT64_MIN;

	qsort(items, g->n, sizeof(*items), mem_item_cmp);
	for (i = 0; i < g->n; i++) {
		const struct mem_rec *r = item_rec(mls, &items[i]);

		if (r->use >= peak) {
			peak = r->use;
			peak_i = i;
		}
	}
	item_full(mls, &items[peak_i], &pk);
	a->memory = xreallocarray(a->memory, a->nmemory + 1, sizeof(*a->memory));
	row = &a->memory[a->nmemory++];
	memset(row, 0, sizeof(*row));
	row->host = arena_strndup(&a->arena, t->hosts[g->host].name, strlen(t->hosts[g->host].name));
	row->allocator = arena_strndup(&a->arena, g->key.p, g->key.n);
	row->peak_bytes = peak;
	row->peak_time_ps = items[peak_i].time;
	row->reserved_bytes = pk.reserved;
	row->name = allocator_name(a, &t->hosts[g->host], g->key.p, g->key.n);
	row->capacity_bytes = pk.reserved + pk.allocated + pk.available;
	/* The allocator's running peak, heap only: its own view over its
	 * whole life (before the profile too). */
	row->allocator_lifetime_peak = g->lifetime_peak;
	row->lifetime_peak_bytes = g->lifetime_peak > peak ? g->lifetime_peak : peak;
	row->events = g->n;
	live_at_peak(a, row, mls, items, peak_i);
	mem_series(row, mls, items, g->n);
}

/* The parts of every line, their keys grouped by (host, allocator). */
struct mem_set {
	struct mem_line *mls;
	size_t nml;
	struct mem_group *groups;
	size_t ng;
	struct hmap gidx;
	size_t total;           /* records */
};

static void mem_set_add(struct mem_set *ms, struct xt_trace *t, size_t h, size_t p,
			const struct xt_line *ln, const struct mem_part *mp)
{
	struct mem_line *ml;
	size_t i, k;

	ms->mls = xreallocarray(ms->mls, ms->nml + 1, sizeof(*ms->mls));
	ml = &ms->mls[ms->nml++];
	*ml = (struct mem_line){ h, &t->hosts[h], &t->hosts[h].planes[p], ln, mp,
				 xcalloc(mp->nkeys ? mp->nkeys : 1, sizeof(uint32_t)) };
	for (k = 0; k < mp->nkeys; k++) {
		struct bytes_ref kb = mem_key_bytes(&mp->keys[k]);
		char key[512];
		size_t kn = kb.n < sizeof(key) - 8 ? kb.n : sizeof(key) - 8;
		uint32_t *v;
		int ins;

		memcpy(key, &h, 8);
		memcpy(key + 8, kb.p, kn);
		v = hmap_get(&ms->gidx, key, 8 + kn, (uint32_t)ms->ng, &ins);
		if (ins) {
			ms->groups = xreallocarray(ms->groups, ms->ng + 1, sizeof(*ms->groups));
			ms->groups[ms->ng++] = (struct mem_group){ h, kb, 0, 0, 0 };
		}
		ml->group[k] = *v;
		if (mp->keys[k].lifetime_peak > ms->groups[*v].lifetime_peak)
			ms->groups[*v].lifetime_peak = mp->keys[k].lifetime_peak;
	}
	for (i = 0; i < mp->nrec; i++)
		ms->groups[ml->group[mp->rec[i].key & MEM_KEY_MASK]].n++;
	ms->total += mp->nrec;
}

void memory_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct mem_set ms;
	struct mem_group *groups;
	struct mem_line *mls;
	struct mem_item *items;
	size_t h, p, l, i, k;
	size_t *order;

	memset(&ms, 0, sizeof(ms));
	hmap_init(&ms.gidx);
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				const struct xt_line *ln = &t->hosts[h].planes[p].lines[l];
				const struct line_part *lp = ln->hook_data;

				for (k = 0; lp && k < lp->nmem; k++)
					mem_set_add(&ms, t, h, p, ln, lp->mem[k]);
			}
	hmap_fini(&ms.gidx);
	groups = ms.groups;
	mls = ms.mls;
	/* Every group's items in one array, group after group. */
	items = xmalloc((ms.total ? ms.total : 1) * sizeof(*items));
	for (i = 0, k = 0; i < ms.ng; i++) {
		groups[i].at = k;
		k += groups[i].n;
		groups[i].n = 0;
	}
	for (i = 0; i < ms.nml; i++)
		for (k = 0; k < mls[i].mp->nrec; k++) {
			const struct mem_rec *r = &mls[i].mp->rec[k];
			struct mem_group *g = &groups[mls[i].group[r->key & MEM_KEY_MASK]];

			items[g->at + g->n++] = (struct mem_item){ r->time_ps, (uint32_t)i, (uint32_t)k };
		}
	/* Rows by host, then allocator key. */
	order = xmalloc((ms.ng ? ms.ng : 1) * sizeof(*order));
	for (i = 0; i < ms.ng; i++)
		order[i] = i;
	for (i = 1; i < ms.ng; i++)
		for (k = i; k > 0 && group_cmp(&groups[order[k]], &groups[order[k - 1]]) < 0; k--) {
			size_t x = order[k];

			order[k] = order[k - 1];
			order[k - 1] = x;
		}
	for (i = 0; i < ms.ng; i++)
		memory_row(a, t, &groups[order[i]], mls, items + groups[order[i]].at);
	free(order);
	free(items);
	for (i = 0; i < ms.nml; i++)
		free(mls[i].group);
	free(mls);
	free(groups);
}
