/*
 * an_memory: memory peaks per allocator (docs/analyses.md, "Memory") from
 * MemoryAllocation / MemoryDeallocation events of /host:CPU.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

static void mem_take(struct mem_rec *r, const struct xt_stat *s, unsigned k, uint64_t *have,
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

void memory_line(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		 const struct xt_line *l)
{
	const struct plane_ctx *pc = p->hook_data;
	size_t i;

	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		const struct emeta_info *in = &pc->info[xt_event_meta_index(ev)];
		struct mem_rec r;
		struct stat_iter it;
		struct xt_stat s;
		uint64_t have = 0;

		if (!in->mem || xt_event_aggregated(ev))
			continue;
		memset(&r, 0, sizeof(r));
		r.is_alloc = in->mem == 1;
		r.time_ps = xt_event_start(l, ev);
		r.seq = i;
		stat_iter_event(&it, h, p, l, ev);
		while (stat_next(&it, &s))
			mem_take(&r, &s, stat_known(&s), &have, 0);
		stat_iter_meta(&it, h, p, xt_event_meta(p, ev));
		while (stat_next(&it, &s))
			mem_take(&r, &s, stat_known(&s), &have, 1);
		if (!((have >> XS_ALLOCATOR_NAME) & 1)) {
			if (!((have >> XS_INDEX_ON_HOST) & 1))
				continue; /* no allocator: nothing to attribute it to */
			r.allocator = bref(NULL, 0);
		}
		if (lp->nmem == lp->capmem) {
			lp->capmem = lp->capmem ? lp->capmem * 2 : 64;
			lp->mem = xreallocarray(lp->mem, lp->capmem, sizeof(*lp->mem));
		}
		lp->mem[lp->nmem++] = r;
	}
}

struct mem_item {
	size_t host, plane, line;
	const struct mem_rec *r;
	const char *alloc; /* allocator key text */
	size_t alloc_n;
};

static int mem_item_cmp(const void *x, const void *y)
{
	const struct mem_item *a = x, *b = y;
	size_t n = a->alloc_n < b->alloc_n ? a->alloc_n : b->alloc_n;
	int c;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	c = memcmp(a->alloc, b->alloc, n);
	if (c || a->alloc_n != b->alloc_n)
		return c ? c : (a->alloc_n < b->alloc_n ? -1 : 1);
	if (a->r->time_ps != b->r->time_ps)
		return a->r->time_ps < b->r->time_ps ? -1 : 1;
	if (a->plane != b->plane)
		return a->plane < b->plane ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->r->seq < b->r->seq ? -1 : a->r->seq > b->r->seq;
}

struct live {
	int64_t addr, bytes, time;
	size_t order;
	struct bytes_ref op, shape;
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
			 const struct mem_item *it, size_t upto)
{
	int64_t attributed = 0, listed = 0;
	struct hmap idx;
	struct live *lv = NULL;
	size_t n = 0, cap = 0, i, k = 0;

	hmap_init(&idx);
	for (i = 0; i <= upto; i++) {
		const struct mem_rec *r = it[i].r;
		uint32_t *v;
		int ins;

		if (!r->has_addr)
			continue;
		if (r->is_alloc) {
			v = hmap_get(&idx, &r->addr, sizeof(r->addr), (uint32_t)n, &ins);
			if (ins) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					lv = xreallocarray(lv, cap, sizeof(*lv));
				}
				n++;
			}
			lv[*v] = (struct live){ r->addr, r->bytes, r->time_ps, i, r->op, r->shape, 1 };
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
		row->live[i].bytes = lv[i].bytes;
		row->live[i].op = arena_bref(&a->arena, lv[i].op);
		row->live[i].shape = arena_bref(&a->arena, lv[i].shape);
		row->live[i].time_ps = lv[i].time;
	}
	free(lv);
	hmap_fini(&idx);
}

static void mem_series(struct xt_memory_row *row, const struct mem_item *it, size_t n)
{
	int64_t span;
	size_t k;

	row->series = xmalloc(XT_MEM_SERIES * sizeof(int64_t));
	for (k = 0; k < XT_MEM_SERIES; k++)
		row->series[k] = -1;
	row->first_ps = it[0].r->time_ps;
	row->last_ps = it[n - 1].r->time_ps;
	span = row->last_ps - row->first_ps;
	for (k = 0; k < n; k++) {
		const struct mem_rec *r = it[k].r;
		size_t b = span > 0 ? (size_t)((__int128)(r->time_ps - row->first_ps) *
					       (XT_MEM_SERIES - 1) / span)
				    : 0;
		int64_t use = r->reserved + r->allocated;

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
				while (j < n && (span > 0 ? (size_t)((__int128)(it[j].r->time_ps - row->first_ps) *
								    (XT_MEM_SERIES - 1) / span)
							  : 0) <= k) {
					last = it[j].r->reserved + it[j].r->allocated;
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

void memory_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct mem_item *items = NULL;
	size_t n = 0, cap = 0, h, p, l, i, start, rows = 0;

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				const struct line_part *lp = t->hosts[h].planes[p].lines[l].hook_data;

				for (i = 0; lp && i < lp->nmem; i++) {
					const struct mem_rec *r = &lp->mem[i];

					if (n == cap) {
						cap = cap ? cap * 2 : 256;
						items = xreallocarray(items, cap, sizeof(*items));
					}
					items[n].host = h;
					items[n].plane = p;
					items[n].line = l;
					items[n].r = r;
					items[n].alloc = r->allocator.p ? r->allocator.p : r->idx_buf;
					items[n].alloc_n = r->allocator.p ? r->allocator.n
									  : strlen(r->idx_buf);
					n++;
				}
			}
	if (n > 1)
		qsort(items, n, sizeof(*items), mem_item_cmp);
	for (start = 0; start < n; start = i) {
		struct xt_memory_row *row;
		size_t peak_i = start;
		int64_t peak = INT64_MIN;

		for (i = start; i < n && items[i].host == items[start].host &&
				items[i].alloc_n == items[start].alloc_n &&
				!memcmp(items[i].alloc, items[start].alloc, items[i].alloc_n);
		     i++) {
			const struct mem_rec *r = items[i].r;

			if (r->reserved + r->allocated >= peak) {
				peak = r->reserved + r->allocated;
				peak_i = i;
			}
		}
		a->memory = xreallocarray(a->memory, rows + 1, sizeof(*a->memory));
		row = &a->memory[rows++];
		memset(row, 0, sizeof(*row));
		row->host = arena_strndup(&a->arena, t->hosts[items[start].host].name,
					  strlen(t->hosts[items[start].host].name));
		row->allocator = arena_strndup(&a->arena, items[start].alloc, items[start].alloc_n);
		row->peak_bytes = peak;
		row->peak_time_ps = items[peak_i].r->time_ps;
		row->reserved_bytes = items[peak_i].r->reserved;
		row->name = allocator_name(a, &t->hosts[items[start].host], items[start].alloc,
					   items[start].alloc_n);
		row->capacity_bytes = items[peak_i].r->reserved + items[peak_i].r->allocated +
				      items[peak_i].r->available;
		{
			size_t j;

			/* The allocator's running peak, heap only: its own view
			 * over its whole life (before the profile too). */
			row->allocator_lifetime_peak = 0;
			for (j = start; j < i; j++)
				if (items[j].r->peak_in_use > row->allocator_lifetime_peak)
					row->allocator_lifetime_peak = items[j].r->peak_in_use;
			row->lifetime_peak_bytes = row->allocator_lifetime_peak > peak
							   ? row->allocator_lifetime_peak
							   : peak;
		}
		row->events = i - start;
		live_at_peak(a, row, items + start, peak_i - start);
		mem_series(row, items + start, i - start);
	}
	a->nmemory = rows;
	free(items);
}
