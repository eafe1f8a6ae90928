/*
 * an_memrows: the memory rows (docs/analyses.md, "Memory"): the records
 * an_memory.c collected per line part, grouped by host and allocator,
 * replayed in time order for each allocator's peak, what is live at it,
 * and its use over time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"

/* A part of a line with memory events, and the merge's group of each of
 * its keys. */
struct mem_line {
	size_t host;
	const struct xt_host *h;
	const struct xt_plane *p;
	const struct xt_line *l;
	const struct mem_part *mp;
	uint32_t *group; /* [key] */
	uint64_t base;   /* the line's start: records hold offsets from it */
};

/* A record's time (sums modulo 2^64, as the events' starts). */
static int64_t rec_time(const struct mem_line *ml, const struct mem_rec *r)
{
	return (int64_t)(ml->base + (uint64_t)r->time_ps);
}

/* One event of a group, in the order they are replayed: by time, then
 * plane and line, then place on the line. */
struct mem_item {
	uint32_t ml;   /* index into the mem_lines (parts follow their line's order) */
	uint32_t rec;  /* index into that part's records */
};

static int mem_item_cmp(const void *x, const void *y, void *arg)
{
	const struct mem_item *a = x, *b = y;
	const struct mem_line *mls = arg;
	int64_t ta = rec_time(&mls[a->ml], &mls[a->ml].mp->rec[a->rec]);
	int64_t tb = rec_time(&mls[b->ml], &mls[b->ml].mp->rec[b->rec]);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (a->ml != b->ml)
		return a->ml < b->ml ? -1 : 1;
	return (a->rec > b->rec) - (a->rec < b->rec);
}

/* A part's records of one group, in their order: a cursor of the merge
 * that puts a group's items in order. */
struct mem_cur {
	const struct mem_rec *r, *end; /* the current record, the part's end */
	const struct mem_line *ml;
	int64_t t;                     /* the current record's time */
	uint32_t mli;                  /* index of ml */
};

/* Moves c to its first record from c->r on in group g; 0 at the end. */
static int cur_seek(struct mem_cur *c, uint32_t g)
{
	while (c->r < c->end && c->ml->group[c->r->key & MEM_KEY_MASK] != g)
		c->r++;
	if (c->r == c->end)
		return 0;
	c->t = rec_time(c->ml, c->r);
	return 1;
}

static int cur_before(const struct mem_cur *a, const struct mem_cur *b)
{
	return a->t < b->t || (a->t == b->t && a->mli < b->mli);
}

static void cur_down(struct mem_cur *h, size_t n, size_t i)
{
	struct mem_cur x = h[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= n)
			break;
		if (k + 1 < n && cur_before(&h[k + 1], &h[k]))
			k++;
		if (!cur_before(&h[k], &x))
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = x;
}

/*
 * The n items of group g in replay order, into out. A part's records come
 * in its line's order, which is by time, so the parts' runs are merged
 * through a heap (no sort of millions of items, no second array); should
 * a run not be in time order (times that wrap, in a hostile file), the
 * items are sorted instead.
 */
static void group_items(const struct mem_line *mls, size_t nml, uint32_t g, struct mem_item *out,
			size_t n)
{
	struct mem_cur *h = xmalloc((nml ? nml : 1) * sizeof(*h));
	size_t i, nh = 0, k = 0;
	int sorted = 1;

	for (i = 0; i < nml; i++) {
		const struct mem_part *mp = mls[i].mp;

		h[nh] = (struct mem_cur){ mp->rec, mp->rec + mp->nrec, &mls[i], 0, (uint32_t)i };
		if (cur_seek(&h[nh], g))
			nh++;
	}
	for (i = nh; i-- > 0;)
		cur_down(h, nh, i);
	while (nh && k < n) {
		struct mem_cur *c = &h[0];
		int64_t t = c->t;

		out[k++] = (struct mem_item){ c->mli, (uint32_t)(c->r - c->ml->mp->rec) };
		c->r++;
		if (!cur_seek(c, g))
			h[0] = h[--nh];
		else if (c->t < t)
			sorted = 0;
		if (nh)
			cur_down(h, nh, 0);
	}
	free(h);
	if (!sorted || k != n) {
		for (i = 0, k = 0; i < nml && k < n; i++) {
			const struct mem_part *mp = mls[i].mp;
			size_t r;

			for (r = 0; r < mp->nrec && k < n; r++)
				if (mls[i].group[mp->rec[r].key & MEM_KEY_MASK] == g)
					out[k++] = (struct mem_item){ (uint32_t)i, (uint32_t)r };
		}
		qsort_r(out, k, sizeof(*out), mem_item_cmp, (void *)mls);
	}
}

static int64_t item_time(const struct mem_line *mls, const struct mem_item *it)
{
	return rec_time(&mls[it->ml], &mls[it->ml].mp->rec[it->rec]);
}

/* The event behind an item, decoded in full. */
static void item_full(const struct mem_line *mls, const struct mem_item *it, struct mem_full *r)
{
	const struct mem_line *ml = &mls[it->ml];

	memory_decode_at(ml->h, ml->p, ml->l, ml->mp->rec[it->rec].ev, r);
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

/* Addresses to their entries in the replay's list: open addressing on the
 * 8-byte address (an hmap would copy and compare each key as bytes, and
 * the replay looks up every event up to the peak). */
struct addr_map {
	int64_t *key;
	uint32_t *val; /* UINT32_MAX: empty */
	size_t mask, n;
};

static void addr_map_init(struct addr_map *m, size_t cap)
{
	m->key = xmalloc(cap * sizeof(*m->key));
	m->val = xmalloc(cap * sizeof(*m->val));
	memset(m->val, 0xff, cap * sizeof(*m->val));
	m->mask = cap - 1;
	m->n = 0;
}

static size_t addr_slot(const struct addr_map *m, int64_t k)
{
	/* Mixed in full: addresses that differ only in their high bits, as a
	 * hostile file may write, still spread. */
	size_t i = trace_hash_id(k) & m->mask;

	while (m->val[i] != UINT32_MAX && m->key[i] != k)
		i = (i + 1) & m->mask;
	return i;
}

/* The entry of k, made with value v when there is none (*ins set). */
static uint32_t *addr_map_get(struct addr_map *m, int64_t k, uint32_t v, int *ins)
{
	size_t i = addr_slot(m, k);

	*ins = m->val[i] == UINT32_MAX;
	if (*ins) {
		if (2 * (m->n + 1) > m->mask + 1) {
			struct addr_map g;
			size_t j;

			addr_map_init(&g, 2 * (m->mask + 1));
			for (j = 0; j <= m->mask; j++)
				if (m->val[j] != UINT32_MAX) {
					size_t s = addr_slot(&g, m->key[j]);

					g.key[s] = m->key[j];
					g.val[s] = m->val[j];
				}
			g.n = m->n;
			free(m->key);
			free(m->val);
			*m = g;
			i = addr_slot(m, k);
		}
		m->key[i] = k;
		m->val[i] = v;
		m->n++;
	}
	return &m->val[i];
}

static const uint32_t *addr_map_find(const struct addr_map *m, int64_t k)
{
	size_t i = addr_slot(m, k);

	return m->val[i] == UINT32_MAX ? NULL : &m->val[i];
}

/* A stat's text as given, or empty: the MI300X conv profile writes the
 * literal "(null)" for an allocation's missing tf_op and region. */
static struct bytes_ref given(struct bytes_ref r)
{
	return r.n == 6 && !memcmp(r.p, "(null)", 6) ? bref("", 0) : r;
}

/* Replays items [0, upto] and fills row->live with the largest survivors,
 * and the split of the peak (docs/analyses.md, "Memory"). */
static void live_at_peak(struct xt_analysis *a, struct xt_memory_row *row,
			 const struct mem_line *mls, const struct mem_item *it, size_t upto)
{
	int64_t attributed = 0, listed = 0;
	struct addr_map idx;
	struct live *lv = NULL;
	size_t n = 0, cap = 0, i, k = 0;

	addr_map_init(&idx, 1024);
	for (i = 0; i <= upto; i++) {
		const struct mem_rec *r = item_rec(mls, &it[i]);
		uint32_t *v;
		int ins;

		if (!(r->key & MEM_ADDR))
			continue;
		if (r->key & MEM_ALLOC) {
			v = addr_map_get(&idx, r->addr, (uint32_t)n, &ins);
			if (ins) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					lv = xreallocarray(lv, cap, sizeof(*lv));
				}
				n++;
			}
			lv[*v] = (struct live){ r->addr, r->bytes, item_time(mls, &it[i]), i, 1 };
		} else {
			const uint32_t *f = addr_map_find(&idx, r->addr);

			if (f)
				lv[*f].used = 0;
		}
	}
	for (i = 0; i < n; i++)
		if (lv[i].used) {
			attributed = xt_sat_add(attributed, lv[i].bytes);
			lv[k++] = lv[i];
		}
	if (k > 1)
		qsort(lv, k, sizeof(*lv), live_cmp);
	row->nlive_total = k;
	row->nlive = k < XT_LIVE_MAX ? k : XT_LIVE_MAX;
	for (i = 0; i < row->nlive; i++)
		listed = xt_sat_add(listed, lv[i].bytes);
	/* In use but never seen allocated: memory allocated before the
	 * profile began, events without an address, and the reserved bytes
	 * (program stacks on TPU) that no allocation event describes. When the
	 * replay claims more than the allocator reports (events lost), the
	 * allocator's own count wins and the excess comes off the unlisted
	 * allocations, so the parts still add up to the peak. */
	if (attributed > row->peak_bytes) {
		int64_t over = xt_sat_sub(attributed, row->peak_bytes);
		int64_t other = xt_sat_sub(attributed, listed);

		row->live_other_bytes = other > over ? other - over : 0;
		row->unattributed_bytes =
			xt_sat_sub(xt_sat_sub(row->peak_bytes, listed), row->live_other_bytes);
		if (row->unattributed_bytes < 0)
			row->unattributed_bytes = 0;
	} else {
		row->live_other_bytes = xt_sat_sub(attributed, listed);
		row->unattributed_bytes = xt_sat_sub(row->peak_bytes, attributed);
	}
	row->live = xcalloc(row->nlive ? row->nlive : 1, sizeof(*row->live));
	for (i = 0; i < row->nlive; i++) {
		struct mem_full f;

		/* Op and shape only for the listed few. */
		item_full(mls, &it[lv[i].order], &f);
		row->live[i].bytes = lv[i].bytes;
		row->live[i].op = arena_bref(&a->arena, given(f.op));
		row->live[i].shape = arena_bref(&a->arena, given(f.shape));
		row->live[i].time_ps = lv[i].time;
	}
	free(lv);
	free(idx.key);
	free(idx.val);
}

/*
 * One pass over a group's n items in time order: the peak (the last item
 * at the highest use) and the use over time, XT_MEM_SERIES equal slices of
 * [first, last] each holding the highest use of its events, or, without
 * any, the level the slice before ended at (memory stays in use between
 * events). An item's slice is floor((t - first) (S - 1) / span); times
 * only grow, so each slice's start is worked out once (in 128 bits: the
 * span is up to 2^64 - 1 where times wrap in a hostile file) and the items
 * are compared with it, with no division per item.
 */
static void mem_scan(struct xt_memory_row *row, const struct mem_line *mls,
		     const struct mem_item *it, size_t n, int64_t *peak, size_t *peak_i)
{
	int64_t end_use[XT_MEM_SERIES], last = -1;
	unsigned __int128 next = 0; /* where slice b + 1 starts, from first */
	uint64_t span;
	size_t k, b = 0;

	row->series = xmalloc(XT_MEM_SERIES * sizeof(int64_t));
	for (k = 0; k < XT_MEM_SERIES; k++)
		row->series[k] = -1;
	row->first_ps = item_time(mls, &it[0]);
	row->last_ps = item_time(mls, &it[n - 1]);
	span = (uint64_t)row->last_ps - (uint64_t)row->first_ps; /* last >= first */
	if (span)
		next = ((unsigned __int128)span + (XT_MEM_SERIES - 2)) / (XT_MEM_SERIES - 1);
	*peak = INT64_MIN;
	*peak_i = 0;
	for (k = 0; k < n; k++) {
		const struct mem_rec *r = item_rec(mls, &it[k]);
		uint64_t off = (uint64_t)rec_time(&mls[it[k].ml], r) - (uint64_t)row->first_ps;

		if (r->use >= *peak) {
			*peak = r->use;
			*peak_i = k;
		}
		while (span && b + 1 < XT_MEM_SERIES && off >= next) {
			b++;
			next = ((unsigned __int128)(b + 1) * span + (XT_MEM_SERIES - 2)) /
			       (XT_MEM_SERIES - 1);
		}
		if (r->use > row->series[b])
			row->series[b] = r->use;
		end_use[b] = r->use;
	}
	for (k = 0; k < XT_MEM_SERIES; k++) {
		if (row->series[k] >= 0)
			last = end_use[k]; /* the level at the end of this slice */
		else
			row->series[k] = last;
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
	size_t n;               /* items */
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
		       const struct mem_line *mls, size_t nml, uint32_t gi, struct mem_item *items)
{
	struct xt_memory_row *row;
	struct mem_full pk;
	size_t peak_i;
	int64_t peak;

	group_items(mls, nml, gi, items, g->n);
	a->memory = xreallocarray(a->memory, a->nmemory + 1, sizeof(*a->memory));
	row = &a->memory[a->nmemory++];
	memset(row, 0, sizeof(*row));
	mem_scan(row, mls, items, g->n, &peak, &peak_i);
	item_full(mls, &items[peak_i], &pk);
	row->host = arena_strndup(&a->arena, t->hosts[g->host].name, strlen(t->hosts[g->host].name));
	row->allocator = arena_strndup(&a->arena, g->key.p, g->key.n);
	row->peak_bytes = peak;
	row->peak_time_ps = item_time(mls, &items[peak_i]);
	row->reserved_bytes = pk.reserved;
	row->name = allocator_name(a, &t->hosts[g->host], g->key.p, g->key.n);
	row->capacity_bytes = xt_sat_add(xt_sat_add(pk.reserved, pk.allocated), pk.available);
	/* The allocator's running peak, heap only: its own view over its
	 * whole life (before the profile too). */
	row->allocator_lifetime_peak = g->lifetime_peak;
	row->lifetime_peak_bytes = g->lifetime_peak > peak ? g->lifetime_peak : peak;
	row->events = g->n;
	live_at_peak(a, row, mls, items, peak_i);
}

/* The parts of every line, their keys grouped by (host, allocator). */
struct mem_set {
	struct mem_line *mls;
	size_t nml;
	struct mem_group *groups;
	size_t ng;
	struct hmap gidx;
};

static void mem_set_add(struct mem_set *ms, struct xt_trace *t, size_t h, size_t p,
			const struct xt_line *ln, const struct mem_part *mp)
{
	struct mem_line *ml;
	size_t k;

	ms->mls = xreallocarray(ms->mls, ms->nml + 1, sizeof(*ms->mls));
	ml = &ms->mls[ms->nml++];
	*ml = (struct mem_line){ h, &t->hosts[h], &t->hosts[h].planes[p], ln, mp,
				 xcalloc(mp->nkeys ? mp->nkeys : 1, sizeof(uint32_t)),
				 (uint64_t)xt_line_base(ln) };
	for (k = 0; k < mp->nkeys; k++) {
		struct bytes_ref kb = memory_key_bytes(&mp->keys[k]);
		char key[512];
		size_t kn = kb.n < sizeof(key) - 8 ? kb.n : sizeof(key) - 8;
		uint32_t *v;
		int ins;

		memcpy(key, &h, 8);
		memcpy(key + 8, kb.p, kn);
		v = hmap_get(&ms->gidx, key, 8 + kn, (uint32_t)ms->ng, &ins);
		if (ins) {
			ms->groups = xreallocarray(ms->groups, ms->ng + 1, sizeof(*ms->groups));
			ms->groups[ms->ng++] = (struct mem_group){ h, kb, 0, 0 };
		}
		ml->group[k] = *v;
		if (mp->keys[k].lifetime_peak > ms->groups[*v].lifetime_peak)
			ms->groups[*v].lifetime_peak = mp->keys[k].lifetime_peak;
		ms->groups[*v].n += mp->keys[k].n;
	}
}

void memory_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct mem_set ms;
	struct mem_group *groups;
	struct mem_line *mls;
	struct mem_item *items;
	size_t h, p, l, i, k, most = 1;
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
	/* One group's items at a time. */
	for (i = 0; i < ms.ng; i++)
		if (groups[i].n > most)
			most = groups[i].n;
	items = xmalloc(most * sizeof(*items));
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
		memory_row(a, t, &groups[order[i]], mls, ms.nml, (uint32_t)order[i], items);
	free(order);
	free(items);
	for (i = 0; i < ms.nml; i++)
		free(mls[i].group);
	free(mls);
	free(groups);
}
