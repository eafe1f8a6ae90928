/* mplane: see mplane.h. */
#include "mplane.h"

#include <stdlib.h>
#include <string.h>

#include "../util/hmap.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "wire.h"
#include "wire_put.h"

/* ---- reading ---- */

static int src_md_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct src_md *)a)->key, y = ((const struct src_md *)b)->key;

	return (x > y) - (x < y);
}

/* A map<int64, X> entry's key and value; the value's name is field 2. */
static int rd_entry(struct bytes e, struct src_md *m)
{
	struct wire w;

	memset(m, 0, sizeof(*m));
	m->dst = -1;
	m->name.p = (const uint8_t *)""; /* no name: the name "" (hmap keys are never NULL) */
	wire_init(&w, e.p, e.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1)
			m->key = mplane_rd_int(&w, t);
		else if (f == 2)
			m->v = mplane_rd_len(&w, t);
		else
			wire_skip(&w, t);
	}
	wire_init(&w, m->v.p, m->v.n);
	while (!w.bad && wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 2)
			m->name = mplane_rd_len(&w, t);
		else
			wire_skip(&w, t);
	}
	return w.bad ? -1 : 0;
}

static struct src_md *src_find(struct src_md *v, size_t n, const int32_t *idx, size_t dense,
			       int64_t key)
{
	struct src_md k = { .key = key };

	if (key >= 0 && (uint64_t)key < dense)
		return idx[key] < 0 ? NULL : &v[idx[key]];
	return n ? bsearch(&k, v, n, sizeof(*v), src_md_cmp) : NULL;
}

#define SRC_EV(c, key) src_find((c)->ev, (c)->nev, (c)->ev_idx, (c)->ev_dense, (key))
#define SRC_ST(c, key) src_find((c)->st, (c)->nst, (c)->st_idx, (c)->st_dense, (key))

/* The dense index of sorted v, when its largest key is small. */
static int32_t *dense_index(const struct src_md *v, size_t n, size_t *dense)
{
	int32_t *idx;

	*dense = 0;
	if (!n || v[0].key < 0 || v[n - 1].key >= 1 << 20 || n > INT32_MAX)
		return NULL;
	*dense = (size_t)v[n - 1].key + 1;
	idx = xmalloc(*dense * sizeof(*idx));
	memset(idx, 0xff, *dense * sizeof(*idx));
	for (size_t i = n; i-- > 0;) /* the first of a key, as bsearch may not */
		idx[v[i].key] = (int32_t)i;
	return idx;
}

/* ---- the merged plane's metadata ---- */

static uint32_t st_get(struct mplane *d, struct bytes name)
{
	int ins;
	uint32_t *v = hmap_get(&d->st_by_name, name.p, name.n, (uint32_t)d->nst, &ins);

	if (ins) {
		if (d->nst == d->capst) {
			d->capst = d->capst ? 2 * d->capst : 64;
			d->st = xreallocarray(d->st, d->capst, sizeof(*d->st));
		}
		memset(&d->st[d->nst], 0, sizeof(d->st[0]));
		d->st[d->nst].id = ++d->last_st;
		d->st[d->nst].name = name;
		d->nst++;
	}
	return *v;
}

/* A source stat metadata id to the merged plane's, by name (an unknown id
 * reads as the name ""). */
static int64_t st_map(struct mplane *d, struct src_ctx *c, int64_t key)
{
	struct src_md *m;
	struct bytes none = { (const uint8_t *)"", 0 };
	uint32_t i;

	if (c->identity)
		return key;
	m = SRC_ST(c, key);
	if (!m) {
		i = st_get(d, none); /* before d->st is read: it may move */
		return d->st[i].id;
	}
	if (m->dst < 0)
		m->dst = (int32_t)st_get(d, m->name);
	return d->st[m->dst].id;
}

/* One XStat of source ctx as field `field` of out, for the merged plane:
 * its metadata id and a ref_value mapped by name (a ref to nothing leaves
 * no value), written at once (its size is known before). Returns the
 * merged metadata id. */
static int64_t put_stat(struct mplane *d, struct src_ctx *c, struct bytes s, uint32_t field,
			struct strbuf *out)
{
	struct wire w;
	int64_t md = 0, ref = -1, refid = -1;
	struct bytes val = { NULL, 0 };
	size_t n;

	if (c->identity) {
		wire_put_bytes(out, field, s.p, s.n);
		wire_init(&w, s.p, s.n);
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);

			if (f == 1)
				md = mplane_rd_int(&w, t);
			else
				wire_skip(&w, t);
		}
		return md;
	}
	wire_init(&w, s.p, s.n);
	while (wire_more(&w)) {
		uint32_t f;
		const uint8_t *at = w.p;
		unsigned t = wire_tag(&w, &f);

		if (f == 1) {
			md = mplane_rd_int(&w, t);
		} else if (f == 7 && t == WIRE_VARINT) {
			ref = (int64_t)wire_varint(&w);
			val.p = NULL;
		} else if (f >= 2 && f <= 8) {
			wire_skip(&w, t);
			val.p = at;
			val.n = (size_t)(w.p - at);
			ref = -1;
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad) {
		d->bad = 1;
		return 0;
	}
	md = st_map(d, c, md);
	if (ref >= 0) {
		struct src_md *m = SRC_ST(c, ref);

		if (m) {
			if (m->dst < 0)
				m->dst = (int32_t)st_get(d, m->name);
			refid = d->st[m->dst].id;
		}
	}
	n = 1 + wire_varint_len((uint64_t)md);
	if (refid >= 0)
		n += 1 + wire_varint_len((uint64_t)refid);
	else if (ref < 0 && val.p)
		n += val.n;
	wire_put_tag(out, field, WIRE_LEN);
	wire_put_varint(out, n);
	wire_put_uint(out, 1, (uint64_t)md);
	if (refid >= 0)
		wire_put_uint(out, 7, (uint64_t)refid);
	else if (ref < 0 && val.p)
		strbuf_add(out, (const char *)val.p, val.n);
	return md;
}

/* Every stat (fields `field`) of message m, re-encoded into out as fields
 * `field` too. */
void mplane_put_stats(struct mplane *d, struct src_ctx *c, struct bytes m, uint32_t field,
		      struct strbuf *out)
{
	struct wire w;

	wire_init(&w, m.p, m.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == field && t == WIRE_LEN) {
			struct bytes s;

			s.p = wire_bytes(&w, &s.n);
			put_stat(d, c, s, field, out);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		d->bad = 1;
}

static uint32_t ev_add(struct mplane *d, int64_t id, struct bytes name)
{
	if (d->nev == d->capev) {
		d->capev = d->capev ? 2 * d->capev : 64;
		d->ev = xreallocarray(d->ev, d->capev, sizeof(*d->ev));
	}
	memset(&d->ev[d->nev], 0, sizeof(d->ev[0]));
	d->ev[d->nev].id = id;
	d->ev[d->nev].name = name;
	strbuf_init(&d->ev[d->nev].stats);
	if (id > d->last_ev)
		d->last_ev = id;
	return (uint32_t)d->nev++;
}

/* CopyEventMetadata: fields the merged metadata lacks come from the source's. */
static void ev_fill(struct mplane *d, struct src_ctx *c, struct dst_ev_md *e, struct bytes v)
{
	struct bytes disp = { NULL, 0 }, meta = { NULL, 0 };
	struct wire w;
	int stats = 0;

	wire_init(&w, v.p, v.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 4)
			disp = mplane_rd_len(&w, t);
		else if (f == 3)
			meta = mplane_rd_len(&w, t);
		else {
			stats |= f == 5;
			wire_skip(&w, t);
		}
	}
	if (w.bad) {
		d->bad = 1;
		return;
	}
	if (!e->disp.n)
		e->disp = disp;
	if (!e->meta.n)
		e->meta = meta;
	if (stats && !e->stats.len)
		mplane_put_stats(d, c, v, 5, &e->stats);
}

/* The merged plane's metadata for a source event's metadata id: by name,
 * as GetOrCreateEventMetadata, filled from the source the first time. */
static int64_t ev_map(struct mplane *d, struct src_ctx *c, int64_t key)
{
	struct src_md *m;
	struct bytes none = { (const uint8_t *)"", 0 };
	struct bytes name;
	uint32_t idx;
	int ins;

	if (c->identity)
		return key;
	m = SRC_EV(c, key);
	name = m ? m->name : none;
	if (m && m->dst >= 0)
		return d->ev[m->dst].id;
	idx = *hmap_get(&d->ev_by_name, name.p, name.n, (uint32_t)d->nev, &ins);
	if (ins)
		idx = ev_add(d, d->last_ev + 1, name);
	if (m) {
		m->dst = (int32_t)idx;
		ev_fill(d, c, &d->ev[idx], m->v);
	}
	return d->ev[idx].id;
}

/* ---- lines ---- */

static struct dst_line *line_get(struct mplane *d, int64_t id)
{
	int ins;
	uint32_t *v = hmap_get(&d->line_by_id, &id, sizeof(id), (uint32_t)d->nlines, &ins);

	if (ins) {
		if (d->nlines == d->caplines) {
			d->caplines = d->caplines ? 2 * d->caplines : 16;
			d->lines = xreallocarray(d->lines, d->caplines, sizeof(*d->lines));
		}
		memset(&d->lines[d->nlines], 0, sizeof(d->lines[0]));
		d->lines[d->nlines].id = id;
		d->nlines++;
	}
	return &d->lines[*v];
}

/* RemoveEmptyLines, which each MergePlanes does first. */
static void lines_drop_empty(struct mplane *d)
{
	size_t i, k = 0;
	int ins;

	for (i = 0; i < d->nlines; i++) {
		if (d->lines[i].n)
			d->lines[k++] = d->lines[i];
		else
			free(d->lines[i].ev);
	}
	if (k == d->nlines)
		return;
	d->nlines = k;
	hmap_fini(&d->line_by_id);
	hmap_init(&d->line_by_id);
	for (i = 0; i < k; i++)
		*hmap_get(&d->line_by_id, &d->lines[i].id, sizeof(int64_t), (uint32_t)i, &ins) =
			(uint32_t)i;
}

/* One source line into d, its events after the ones d has (upstream's
 * MergePlanes: the earlier timestamp wins, the other's offsets move). The
 * seed's lines keep what MergePlanes does not copy (display id, duration). */
static void merge_line(struct mplane *d, uint16_t ci, struct bytes lb, const int64_t *id_over,
		       int seed)
{
	struct src_ctx *c = &d->ctx[ci];
	struct dst_line *l;
	struct bytes name = { NULL, 0 }, disp = { NULL, 0 };
	int64_t id = 0, ts = 0, display_id = 0, dur_ps = 0, shift = 0;
	struct wire w;

	wire_init(&w, lb.p, lb.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		switch (f) {
		case 1: id = mplane_rd_int(&w, t); break;
		case 2: name = mplane_rd_len(&w, t); break;
		case 3: ts = mplane_rd_int(&w, t); break;
		case 9: dur_ps = mplane_rd_int(&w, t); break;
		case 10: display_id = mplane_rd_int(&w, t); break;
		case 11: disp = mplane_rd_len(&w, t); break;
		default: wire_skip(&w, t);
		}
	}
	if (w.bad) {
		d->bad = 1;
		return;
	}
	if (id_over)
		id = *id_over;
	l = line_get(d, id);
	if (seed) {
		l->display_id = display_id;
		l->dur_ps = dur_ps;
	}
	if (!l->n) {
		l->ts = ts;
		l->name = name;
		if (!l->disp.n)
			l->disp = disp;
	} else {
		/* Times far apart enough to overflow are no profile. */
		if (ts <= l->ts) {
			int64_t up;

			if (__builtin_sub_overflow(l->ts, ts, &up) ||
			    __builtin_mul_overflow(up, 1000, &up)) {
				d->bad = 1;
				return;
			}
			for (size_t i = 0; i < l->n; i++)
				if (!l->ev[i].agg && __builtin_add_overflow(l->ev[i].t, up, &l->ev[i].t))
					d->bad = 1;
			l->ts = ts;
		} else if (__builtin_sub_overflow(ts, l->ts, &shift) ||
			   __builtin_mul_overflow(shift, 1000, &shift)) {
			d->bad = 1;
			return;
		}
		if (!l->name.n)
			l->name = name;
	}
	wire_init(&w, lb.p, lb.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		struct bytes eb;
		struct wire e;
		struct dst_event ev;
		int64_t md = 0;

		if (f != 4 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		eb.p = wire_bytes(&w, &eb.n);
		memset(&ev, 0, sizeof(ev));
		wire_init(&e, eb.p, eb.n);
		while (wire_more(&e)) {
			unsigned et = wire_tag(&e, &f);

			if (f == 1) {
				md = mplane_rd_int(&e, et);
			} else if (f == 2) {
				ev.t = mplane_rd_int(&e, et);
				ev.agg = 0;
			} else if (f == 5) {
				ev.t = mplane_rd_int(&e, et);
				ev.agg = 1;
			} else if (f == 3) {
				ev.dur = mplane_rd_int(&e, et);
			} else {
				wire_skip(&e, et);
			}
		}
		if (e.bad || eb.n > UINT32_MAX) {
			d->bad = 1;
			return;
		}
		if (!ev.agg && __builtin_add_overflow(ev.t, shift, &ev.t)) {
			d->bad = 1;
			return;
		}
		ev.md = ev_map(d, c, md);
		ev.p = eb.p;
		ev.n = (uint32_t)eb.n;
		ev.ctx = ci;
		l = line_get(d, id); /* ev_map may not move lines, but stay safe */
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->ev = xreallocarray(l->ev, l->cap, sizeof(*l->ev));
		}
		l->ev[l->n++] = ev;
	}
	if (w.bad)
		d->bad = 1;
}

/* ---- planes ---- */

static void push_md(struct src_md **v, size_t *n, size_t *cap, struct bytes e, int *bad)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	if (rd_entry(e, &(*v)[*n]) < 0)
		*bad = 1;
	else
		(*n)++;
}

/* The seed's own plane stats, as they are (its duplicates too); or a
 * source's, replacing one of the same metadata (SetOrAddStat). */
static void plane_stat(struct mplane *d, struct src_ctx *c, struct bytes s, int seed)
{
	struct strbuf one;
	int64_t md;
	size_t i = d->npst;

	strbuf_init(&one);
	md = put_stat(d, c, s, 6, &one);
	if (!seed)
		for (i = 0; i < d->npst && d->pst[i].md != md; i++)
			;
	if (i == d->npst) {
		d->pst = xreallocarray(d->pst, d->npst + 1, sizeof(*d->pst));
		d->pst[d->npst++].md = md;
	} else {
		strbuf_fini(&d->pst[i].bytes);
	}
	d->pst[i].bytes = one;
}

/* Merges plane bytes p into d (MergePlanes), or makes d of them (seed: its
 * ids, metadata and stats kept as they are). ids: the line ids to use
 * instead of the plane's, in line order, or NULL. */
void mplane_merge(struct mplane *d, struct bytes p, const int64_t *ids, int seed)
{
	struct src_ctx *c;
	size_t cev = 0, cst = 0, k = 0;
	uint16_t ci;
	struct wire w;

	if (d->nctx >= UINT16_MAX) {
		d->bad = 1;
		return;
	}
	if (!seed)
		lines_drop_empty(d);
	d->ctx = xreallocarray(d->ctx, d->nctx + 1, sizeof(*d->ctx));
	ci = (uint16_t)d->nctx++;
	c = &d->ctx[ci];
	memset(c, 0, sizeof(*c));
	c->identity = seed;
	wire_init(&w, p.p, p.n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if ((f == 4 || f == 5) && t == WIRE_LEN) {
			struct bytes e;

			e.p = wire_bytes(&w, &e.n);
			if (f == 4)
				push_md(&c->ev, &c->nev, &cev, e, &d->bad);
			else
				push_md(&c->st, &c->nst, &cst, e, &d->bad);
		} else if (f == 1 && seed) {
			d->id = mplane_rd_int(&w, t);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad || d->bad) {
		d->bad = 1;
		return;
	}
	if (c->nev)
		qsort(c->ev, c->nev, sizeof(*c->ev), src_md_cmp);
	if (c->nst)
		qsort(c->st, c->nst, sizeof(*c->st), src_md_cmp);
	c->ev_idx = dense_index(c->ev, c->nev, &c->ev_dense);
	c->st_idx = dense_index(c->st, c->nst, &c->st_dense);
	if (!seed) {
		/* Upstream copies only the metadata an event uses; every one is
		 * kept here, by name, so that an HLO program of a second
		 * /host:metadata plane (held by metadata alone) is not lost. */
		for (size_t i = 0; i < c->nev; i++)
			(void)ev_map(d, c, c->ev[i].key);
	} else {
		/* Its metadata stay, ids and all; by name, the first of a name. */
		for (size_t i = 0; i < c->nst; i++) {
			int ins;
			struct wire m;

			/* As XPlaneBuilder: only a name is found by name. */
			if (c->st[i].name.n)
				(void)hmap_get(&d->st_by_name, c->st[i].name.p, c->st[i].name.n,
					       (uint32_t)d->nst, &ins);

			if (d->nst == d->capst) {
				d->capst = d->capst ? 2 * d->capst : 64;
				d->st = xreallocarray(d->st, d->capst, sizeof(*d->st));
			}
			memset(&d->st[d->nst], 0, sizeof(d->st[0]));
			d->st[d->nst].id = c->st[i].key;
			d->st[d->nst].name = c->st[i].name;
			wire_init(&m, c->st[i].v.p, c->st[i].v.n);
			while (wire_more(&m)) {
				uint32_t f;
				unsigned t = wire_tag(&m, &f);

				if (f == 3)
					d->st[d->nst].desc = mplane_rd_len(&m, t);
				else
					wire_skip(&m, t);
			}
			if (c->st[i].key > d->last_st)
				d->last_st = c->st[i].key;
			d->nst++;
		}
		for (size_t i = 0; i < c->nev; i++) {
			int ins;
			uint32_t idx = ev_add(d, c->ev[i].key, c->ev[i].name);

			if (c->ev[i].name.n)
				(void)hmap_get(&d->ev_by_name, c->ev[i].name.p, c->ev[i].name.n, idx,
					       &ins);
			d->ev[idx].raw = c->ev[i].v;
			ev_fill(d, c, &d->ev[idx], c->ev[i].v);
		}
	}
	wire_init(&w, p.p, p.n);
	while (wire_more(&w) && !d->bad) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		struct bytes b;

		if (t != WIRE_LEN || (f != 3 && f != 6)) {
			wire_skip(&w, t);
			continue;
		}
		b.p = wire_bytes(&w, &b.n);
		if (f == 6)
			plane_stat(d, &d->ctx[ci], b, seed);
		else
			merge_line(d, ci, b, ids ? &ids[k++] : NULL, seed);
	}
	if (w.bad)
		d->bad = 1;
}

void mplane_init(struct mplane *d, struct bytes name)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	hmap_init(&d->line_by_id);
	hmap_init(&d->ev_by_name);
	hmap_init(&d->st_by_name);
}

void mplane_fini(struct mplane *d)
{
	size_t i;

	for (i = 0; i < d->nlines; i++)
		free(d->lines[i].ev);
	free(d->lines);
	for (i = 0; i < d->nev; i++)
		strbuf_fini(&d->ev[i].stats);
	free(d->ev);
	free(d->st);
	for (i = 0; i < d->npst; i++)
		strbuf_fini(&d->pst[i].bytes);
	free(d->pst);
	for (i = 0; i < d->nctx; i++) {
		free(d->ctx[i].ev);
		free(d->ctx[i].st);
		free(d->ctx[i].ev_idx);
		free(d->ctx[i].st_idx);
	}

	free(d->ctx);
	hmap_fini(&d->line_by_id);
	hmap_fini(&d->ev_by_name);
	hmap_fini(&d->st_by_name);
}
