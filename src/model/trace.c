/*
 * trace: construction-independent parts of the model (see trace.h): freeing,
 * metadata lookups and window queries. Building a trace is xplane_reader's
 * job.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "../util/bigmem.h"
#include "../util/xalloc.h"
#include "wire.h"

struct xt_trace *trace_new(void)
{
	struct xt_trace *t = xcalloc(1, sizeof(*t));

	arena_init(&t->arena);
	return t;
}

void trace_host_fini(struct xt_host *h)
{
	size_t p, l;

	for (p = 0; p < h->nplanes; p++) {
		struct xt_plane *pl = &h->planes[p];

		for (l = 0; l < pl->nlines; l++) {
			bigmem_free(pl->lines[l].ev, pl->lines[l].ev_map);
			free(pl->lines[l].blk_maxend);
			free(pl->lines[l].blk_raw);
			bigmem_free(pl->lines[l].blk, pl->lines[l].blk_map);
			bigmem_free(pl->lines[l].wide16, pl->lines[l].wide16_map);
			bigmem_free(pl->lines[l].wide32, pl->lines[l].wide32_map);
			bigmem_free(pl->lines[l].long_ps, pl->lines[l].long_map);
			free(pl->lines[l].long_mask);
			free(pl->lines[l].long_first);
			free(pl->lines[l].raw);
			free(pl->lines[l].raw_at);
		}
		free(pl->lines);
		free(pl->emeta);
		free(pl->smeta);
		free(pl->stat_off);
		free(pl->stat_len);
		free(pl->emeta_hash);
		free(pl->smeta_hash);
		free(pl->emeta_direct);
		free(pl->smeta_direct);
	}
	free(h->planes);
	free(h->hostnames);
	free(h->errors);
	free(h->warnings);
	source_close(&h->src);
	memset(h, 0, sizeof(*h));
}

void trace_free(struct xt_trace *t)
{
	size_t h;

	if (!t)
		return;
	for (h = 0; h < t->nhosts; h++)
		trace_host_fini(&t->hosts[h]);
	free(t->hosts);
	arena_fini(&t->arena);
	free(t);
}

void trace_reserve_hosts(struct xt_trace *t, size_t n)
{
	if (n <= t->caphosts)
		return;
	t->hosts = xreallocarray(t->hosts, n, sizeof(*t->hosts));
	t->caphosts = n;
}

void trace_set_origin(struct xt_trace *t)
{
	size_t h;

	t->origin_ps = 0;
	for (h = 0; h < t->nhosts; h++)
		if (h == 0 || t->hosts[h].origin_ps < t->origin_ps)
			t->origin_ps = t->hosts[h].origin_ps;
}

const char *trace_event_display_name(const struct xt_plane *p, const struct xt_event *ev)
{
	const struct xt_event_meta *m = xt_event_meta(p, ev);

	return m->display_name[0] ? m->display_name : m->name;
}

uint32_t trace_emeta_lookup_slow(const struct xt_plane *p, int64_t id)
{
	size_t mask, i;

	if (!p->emeta_hcap || p->emeta_direct_only)
		return 0;
	mask = p->emeta_hcap - 1;
	for (i = trace_hash_id(id) & mask;; i = (i + 1) & mask) {
		uint32_t idx = p->emeta_hash[i];

		if (idx == 0)
			return 0;
		if (p->emeta[idx].id == id)
			return idx;
	}
}

const struct xt_stat_meta *trace_smeta_lookup_slow(const struct xt_plane *p, int64_t id)
{
	size_t mask, i;

	if (!p->smeta_hcap || p->smeta_direct_only)
		return NULL;
	mask = p->smeta_hcap - 1;
	for (i = trace_hash_id(id) & mask;; i = (i + 1) & mask) {
		uint32_t idx = p->smeta_hash[i];

		if (idx == 0)
			return NULL;
		if (p->smeta[idx - 1].id == id)
			return &p->smeta[idx - 1];
	}
}

size_t trace_line_window(const struct xt_line *l, int64_t t0, int64_t t1, size_t *first)
{
	int64_t base = xt_line_base(l);
	int64_t r0 = xt_ps_sub(t0, base), r1 = xt_ps_sub(t1, base);
	size_t nblk = (l->nev + XT_BLOCK - 1) / XT_BLOCK;
	size_t lo = 0, hi = nblk, b, end;

	/* First block whose prefix max end reaches t0: nothing before it can. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->blk_maxend[mid] < r0)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo * XT_BLOCK;
	if (b > l->nev)
		b = l->nev;
	/* One past the last event starting before t1. */
	lo = b;
	hi = l->nev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!xt_event_aggregated(&l->ev[mid]) && xt_event_off(l, mid) < r1)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	*first = b;
	return end;
}

/* Lookups usually walk a line in order: each thread remembers its last
 * answer (lines are told apart by their unique gen, never by address). */
static _Thread_local struct {
	uint64_t gen;
	size_t i;
	uint64_t off;
} raw_hint;
uint64_t trace_event_raw(const struct xt_host *h, const struct xt_line *l, size_t i)
{
	const uint8_t *base = h->src.data + l->raw_base;
	size_t k = i & ~(size_t)(XT_BLOCK - 1);
	uint64_t off;
	struct wire w;

	if (l->raw)
		return l->raw[i];
	if (l->nraw_at) {
		size_t lo = 0, hi = l->nraw_at;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (l->raw_at[mid].ev < i)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < l->nraw_at && l->raw_at[lo].ev == i)
			return l->raw_at[lo].raw;
	}
	off = l->blk_raw[i / XT_BLOCK];
	if (k == i)
		return off; /* a block's first event: no byte of the file is read */
	if (raw_hint.gen == l->gen && raw_hint.i <= i && raw_hint.i >= k) {
		k = raw_hint.i;
		off = raw_hint.off;
	}
	/* Skip k's encoding (and any non-event field) until event i. */
	wire_init(&w, base + off, l->raw_len - off);
	while (wire_more(&w)) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 4 && t == WIRE_LEN) {
			if (k == i) {
				off = (uint64_t)(at - base);
				break;
			}
			k++;
		}
		wire_skip(&w, t);
	}
	raw_hint.gen = l->gen;
	raw_hint.i = i;
	raw_hint.off = off;
	return off;
}

void trace_release_before(const struct xt_host *h, const struct xt_line *l, size_t i,
			  uint64_t *done)
{
	uint64_t off;

	if (l->raw_len < XT_RELEASE_STEP || h->src.keep_resident || i >= l->nev)
		return;
	off = trace_event_raw(h, l, i);
	if (off < *done + XT_RELEASE_STEP)
		return;
	source_release(&h->src, l->raw_base + *done, off - *done);
	*done = off & ~(uint64_t)4095;
}

const uint8_t *trace_event_bytes_at(const struct xt_host *h, const struct xt_line *l, size_t i,
				    size_t *n)
{
	struct wire w;
	uint64_t off = l->raw_base + trace_event_raw(h, l, i);

	wire_init(&w, h->src.data + off, h->src.size - off);
	(void)wire_varint(&w); /* the tag */
	return wire_bytes(&w, n);
}

const uint8_t *trace_event_bytes(const struct xt_host *h, const struct xt_line *l,
				 const struct xt_event *ev, size_t *n)
{
	return trace_event_bytes_at(h, l, (size_t)(ev - l->ev), n);
}
