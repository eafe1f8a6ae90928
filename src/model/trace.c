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
			if (pl->lines[l].ev_map)
				bigmem_free(pl->lines[l].ev, pl->lines[l].ev_map);
			else
				free(pl->lines[l].ev);
			free(pl->lines[l].blk_maxend);
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
	int64_t base = l->timestamp_ns * 1000;
	int64_t r0 = t0 - base, r1 = t1 - base;
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

		if (!xt_event_aggregated(&l->ev[mid]) && l->ev[mid].off_ps < r1)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	*first = b;
	return end;
}

const uint8_t *trace_event_bytes(const struct xt_host *h, const struct xt_line *l,
				 const struct xt_event *ev, size_t *n)
{
	struct wire w;
	uint64_t off = l->raw_base + ev->raw;

	wire_init(&w, h->src.data + off, h->src.size - off);
	(void)wire_varint(&w); /* the tag */
	return wire_bytes(&w, n);
}
