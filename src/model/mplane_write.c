/* mplane_write: see mplane.h. Writes a merged plane as protobuf does. */
#include "mplane.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "wire.h"
#include "wire_put.h"

/* ---- writing ---- */

/* XEventsComparator: by start, the longer first; then as they came. */
static int event_cmp(const void *a, const void *b)
{
	const struct dst_event *x = a, *y = b;
	/* An aggregated event has no offset: 0, as upstream's OffsetPs(). */
	int64_t tx = x->agg ? 0 : x->t, ty = y->agg ? 0 : y->t;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

static struct bytes line_label(const struct dst_line *l)
{
	return l->disp.n ? l->disp : l->name;
}

/* XLinesComparatorByName: by display name, else name; stable. */
static int line_cmp(const void *a, const void *b)
{
	const struct dst_line *x = a, *y = b;
	struct bytes p = line_label(x), q = line_label(y);
	size_t n = p.n < q.n ? p.n : q.n;
	int r = n ? memcmp(p.p, q.p, n) : 0;

	if (r)
		return r;
	if (p.n != q.n)
		return p.n < q.n ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void put_event(struct mplane *d, const struct dst_event *e, struct strbuf *out)
{
	struct src_ctx *c = &d->ctx[e->ctx];
	struct bytes eb = { e->p, e->n };

	if (e->md)
		wire_put_uint(out, 1, (uint64_t)e->md);
	wire_put_uint(out, e->agg ? 5 : 2, (uint64_t)e->t);
	if (e->dur)
		wire_put_uint(out, 3, (uint64_t)e->dur);
	mplane_put_stats(d, c, eb, 4, out);
}

void mplane_write(struct mplane *d, int lines_by_name, struct strbuf *out)
{
	struct strbuf pl, lb, eb, mb;
	size_t i, j;

	strbuf_init(&pl);
	strbuf_init(&lb);
	strbuf_init(&eb);
	strbuf_init(&mb);
	for (i = 0; i < d->nlines; i++) {
		struct dst_line *l = &d->lines[i];

		/* the pointers make ties stable: events of one source in its order */
		if (l->n)
			qsort(l->ev, l->n, sizeof(*l->ev), event_cmp);
	}
	if (lines_by_name && d->nlines)
		qsort(d->lines, d->nlines, sizeof(*d->lines), line_cmp);
	if (d->id)
		wire_put_uint(&pl, 1, (uint64_t)d->id);
	wire_put_bytes(&pl, 2, d->name.p, d->name.n);
	for (i = 0; i < d->nlines && !d->bad; i++) {
		struct dst_line *l = &d->lines[i];

		strbuf_reset(&lb);
		if (l->id)
			wire_put_uint(&lb, 1, (uint64_t)l->id);
		if (l->display_id)
			wire_put_uint(&lb, 10, (uint64_t)l->display_id);
		if (l->name.n)
			wire_put_bytes(&lb, 2, l->name.p, l->name.n);
		if (l->disp.n)
			wire_put_bytes(&lb, 11, l->disp.p, l->disp.n);
		if (l->ts)
			wire_put_uint(&lb, 3, (uint64_t)l->ts);
		if (l->dur_ps)
			wire_put_uint(&lb, 9, (uint64_t)l->dur_ps);
		for (j = 0; j < l->n; j++) {
			strbuf_reset(&eb);
			put_event(d, &l->ev[j], &eb);
			wire_put_bytes(&lb, 4, eb.buf, eb.len);
		}
		wire_put_bytes(&pl, 3, lb.buf, lb.len);
	}
	for (i = 0; i < d->nev; i++) {
		struct dst_ev_md *m = &d->ev[i];

		strbuf_reset(&mb);
		if (m->id)
			wire_put_uint(&mb, 1, (uint64_t)m->id);
		if (m->name.n)
			wire_put_bytes(&mb, 2, m->name.p, m->name.n);
		if (m->meta.n)
			wire_put_bytes(&mb, 3, m->meta.p, m->meta.n);
		if (m->disp.n)
			wire_put_bytes(&mb, 4, m->disp.p, m->disp.n);
		strbuf_add(&mb, m->stats.buf ? m->stats.buf : "", m->stats.len);
		if (m->raw.p) { /* the seed's child ids */
			struct wire w;

			wire_init(&w, m->raw.p, m->raw.n);
			while (wire_more(&w)) {
				uint32_t f;
				const uint8_t *at = w.p;
				unsigned t = wire_tag(&w, &f);

				wire_skip(&w, t);
				if (f == 6)
					strbuf_add(&mb, (const char *)at, (size_t)(w.p - at));
			}
		}
		wire_put_entry(&pl, 4, m->id, mb.buf, mb.len);
	}
	for (i = 0; i < d->nst; i++) {
		struct dst_st_md *m = &d->st[i];

		strbuf_reset(&mb);
		if (m->id)
			wire_put_uint(&mb, 1, (uint64_t)m->id);
		if (m->name.n)
			wire_put_bytes(&mb, 2, m->name.p, m->name.n);
		if (m->desc.n)
			wire_put_bytes(&mb, 3, m->desc.p, m->desc.n);
		wire_put_entry(&pl, 5, m->id, mb.buf, mb.len);
	}
	for (i = 0; i < d->npst; i++)
		strbuf_add(&pl, d->pst[i].bytes.buf, d->pst[i].bytes.len);
	wire_put_bytes(out, 1, pl.buf, pl.len);
	strbuf_fini(&pl);
	strbuf_fini(&lb);
	strbuf_fini(&eb);
	strbuf_fini(&mb);
}
