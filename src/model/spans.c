/* spans: see spans.h. */
#include "spans.h"

#include <stdlib.h>
#include <string.h>

#include "../util/sat.h"
#include "../util/xalloc.h"
#include "wire.h"

void spans_add(struct spans *sp, size_t line, int64_t s, int64_t e)
{
	if (!sp->nrun || sp->last_line != line) {
		if (sp->nrun == sp->caprun) {
			sp->caprun = sp->caprun ? sp->caprun * 2 : 16;
			sp->run = xreallocarray(sp->run, sp->caprun, sizeof(*sp->run));
		}
		sp->run[sp->nrun++] = sp->n;
		sp->last_line = line;
	} else if (s <= sp->v[sp->n - 1].e) {
		/* Same line, sorted by start: coalesce while appending. */
		if (e > sp->v[sp->n - 1].e)
			sp->v[sp->n - 1].e = e;
		return;
	}
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? sp->cap * 2 : 256;
		sp->v = xreallocarray(sp->v, sp->cap, sizeof(*sp->v));
	}
	sp->v[sp->n++] = (struct span){ s, e };
}

/* Union of two sorted disjoint lists into out (room for na + nb). */
size_t spans_union2(const struct span *a, size_t na, const struct span *b, size_t nb,
		     struct span *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na || j < nb) {
		struct span x = (j >= nb || (i < na && a[i].s <= b[j].s)) ? a[i++] : b[j++];

		if (n && x.s <= out[n - 1].e) {
			if (x.e > out[n - 1].e)
				out[n - 1].e = x.e;
		} else {
			out[n++] = x;
		}
	}
	return n;
}

/* Merges the runs of sp into one sorted disjoint list (in sp->v). */
void spans_union(struct spans *sp, struct span **tmp, size_t *tmpcap)
{
	while (sp->nrun > 1) {
		size_t r, nr = 0, o = 0;

		if (*tmpcap < sp->n) {
			*tmpcap = sp->n;
			*tmp = xreallocarray(*tmp, *tmpcap, sizeof(**tmp));
		}
		for (r = 0; r < sp->nrun; r += 2) {
			size_t a0 = sp->run[r];
			size_t a1 = r + 1 < sp->nrun ? sp->run[r + 1] : sp->n;
			size_t b1 = r + 2 < sp->nrun ? sp->run[r + 2] : sp->n;

			sp->run[nr++] = o;
			o += spans_union2(sp->v + a0, a1 - a0, sp->v + a1, b1 - a1, *tmp + o);
		}
		memcpy(sp->v, *tmp, o * sizeof(*sp->v));
		sp->n = o;
		sp->nrun = nr;
	}
}

struct span *spans_take(struct spans *sp, size_t *n)
{
	struct span *v = sp->v;

	*n = sp->n;
	free(sp->run);
	if (!sp->n) {
		free(v);
		v = NULL;
	} else {
		v = xreallocarray(v, sp->n, sizeof(*v));
	}
	memset(sp, 0, sizeof(*sp));
	return v;
}

/* ---- packed lists ---- */

static void pack_put(struct span_pack *sp, uint64_t v)
{
	if (sp->cap - sp->nb < 10) {
		sp->cap = sp->cap ? 2 * sp->cap : 256;
		sp->b = xrealloc(sp->b, sp->cap);
	}
	while (v >= 0x80) {
		sp->b[sp->nb++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	sp->b[sp->nb++] = (uint8_t)v;
}

/* The open span into the bytes: its gap from the last end, its length. */
static void pack_flush(struct span_pack *sp)
{
	if (!sp->has_open)
		return;
	pack_put(sp, (uint64_t)sp->open.s - (uint64_t)sp->last_e);
	pack_put(sp, (uint64_t)sp->open.e - (uint64_t)sp->open.s);
	sp->last_e = sp->open.e;
	sp->has_open = 0;
	sp->n++;
}

void span_pack_add(struct span_pack *sp, int64_t s, int64_t e)
{
	if (sp->has_open && s <= sp->open.e) {
		/* Sorted by start: coalesce while appending. */
		if (e > sp->open.e)
			sp->open.e = e;
		return;
	}
	pack_flush(sp);
	sp->open = (struct span){ s, e };
	sp->has_open = 1;
}

void span_pack_reserve(struct span_pack *sp, size_t more)
{
	size_t want = sp->nb + more + 256;

	/* At least doubled: a line's parts appended one by one each grew
	 * the buffer by their size alone, copying it every time. */
	if (sp->cap >= want)
		return;
	sp->cap = want > 2 * sp->cap ? want : 2 * sp->cap;
	sp->b = xrealloc(sp->b, sp->cap);
}

void span_pack_done(struct span_pack *sp)
{
	pack_flush(sp);
	if (!sp->nb) {
		free(sp->b);
		sp->b = NULL;
	} else if (sp->nb < sp->cap) {
		sp->b = xrealloc(sp->b, sp->nb);
	}
	sp->cap = sp->nb;
}

void span_pack_free(struct span_pack *sp)
{
	free(sp->b);
	memset(sp, 0, sizeof(*sp));
}

void span_rd_init(struct span_rd *r, const struct span_pack *sp)
{
	r->p = sp->b;
	r->end = sp->b ? sp->b + sp->nb : NULL; /* NULL + 0 is undefined */
	r->last_e = 0;
}

static uint64_t pack_get_slow(struct span_rd *r)
{
	uint64_t v = 0;
	unsigned sh = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << sh;
		if (b < 0x80 || (sh += 7) >= 64)
			break;
	}
	return v;
}

/* Gaps and lengths in ps take three to six bytes: eight at once where
 * they are readable. */
static inline __attribute__((always_inline)) uint64_t pack_get(struct span_rd *r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (r->end - r->p >= 8) {
		uint64_t x;
		unsigned len;

		memcpy(&x, r->p, 8);
		x = wire_varint8(x, &len);
		if (len) {
			r->p += len;
			return x;
		}
	}
#endif
	return pack_get_slow(r);
}

static inline __attribute__((always_inline)) int span_rd_step(struct span_rd *r, struct span *out)
{
	uint64_t s;

	if (r->p >= r->end)
		return 0;
	__builtin_prefetch(r->p + 256);
	s = (uint64_t)r->last_e + pack_get(r);
	out->s = (int64_t)s;
	out->e = (int64_t)(s + pack_get(r));
	r->last_e = out->e;
	return 1;
}

int span_rd_next(struct span_rd *r, struct span *out)
{
	return span_rd_step(r, out);
}

void span_pack_cat(struct span_pack *dst, const struct span_pack *src, int64_t shift)
{
	struct span_rd r;
	struct span x;
	size_t used = 0, rest;

	/* Spans that coalesce with dst's open one, until one does not: it
	 * and everything after it are apart from dst (src is disjoint). */
	span_rd_init(&r, src);
	while (span_rd_next(&r, &x)) {
		int64_t s = (int64_t)((uint64_t)x.s + (uint64_t)shift);
		int64_t e = (int64_t)((uint64_t)x.e + (uint64_t)shift);
		int apart = !dst->has_open || s > dst->open.e;

		used++;
		span_pack_add(dst, s, e);
		if (!apart)
			continue;
		/* The first span apart: packed again from dst's end, the rest
		 * copied (each is relative to the one before). */
		pack_flush(dst);
		rest = (size_t)(r.end - r.p);
		if (rest) {
			if (dst->cap - dst->nb < rest)
				span_pack_reserve(dst, rest);
			memcpy(dst->b + dst->nb, r.p, rest);
			dst->nb += rest;
			dst->n += src->n - used;
			dst->last_e = (int64_t)((uint64_t)src->last_e + (uint64_t)shift);
		}
		break;
	}
	if (src->has_open)
		span_pack_add(dst, (int64_t)((uint64_t)src->open.s + (uint64_t)shift),
			      (int64_t)((uint64_t)src->open.e + (uint64_t)shift));
}

/* A list being merged: its reader and its current span. */
struct span_cur {
	struct span_rd rd;
	struct span x;
};

/* Its place in the heap: its current start beside its index, so that a
 * sift moves 16 bytes and compares without leaving the heap. */
struct span_hk {
	int64_t s;
	size_t c;
};

static void span_hk_down(struct span_hk *hp, size_t n, size_t i)
{
	struct span_hk x = hp[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= n)
			break;
		if (k + 1 < n && hp[k + 1].s < hp[k].s)
			k++;
		if (hp[k].s >= x.s)
			break;
		hp[i] = hp[k];
		i = k;
	}
	hp[i] = x;
}

void span_merge_init(struct span_merge *m, const struct span_pack *const *packs, size_t k)
{
	size_t i;

	m->cur = xcalloc(k ? k : 1, sizeof(*m->cur));
	m->hp = xcalloc(k ? k : 1, sizeof(*m->hp));
	m->nh = 0;
	for (i = 0; i < k; i++) {
		struct span_cur *c = &m->cur[m->nh];

		span_rd_init(&c->rd, packs[i]);
		if (span_rd_step(&c->rd, &c->x)) {
			m->hp[m->nh] = (struct span_hk){ c->x.s, m->nh };
			m->nh++;
		}
	}
	for (i = m->nh; i-- > 0;)
		span_hk_down(m->hp, m->nh, i);
}

int span_merge_next(struct span_merge *m, struct span *out)
{
	struct span_hk *hp = m->hp;
	struct span x;

	if (!m->nh)
		return 0;
	x = m->cur[hp[0].c].x;
	for (;;) {
		struct span_cur *top = &m->cur[hp[0].c];

		/* The top list's spans that start before every other list's
		 * next one come without touching the heap. */
		while (span_rd_step(&top->rd, &top->x)) {
			int64_t s = top->x.s;

			if (m->nh > 1 && (hp[1].s < s || (m->nh > 2 && hp[2].s < s))) {
				hp[0].s = s;
				span_hk_down(hp, m->nh, 0);
				goto next;
			}
			if (s > x.e) {
				hp[0].s = s;
				*out = x;
				return 1;
			}
			if (top->x.e > x.e)
				x.e = top->x.e;
		}
		hp[0] = hp[--m->nh];
		if (!m->nh)
			break;
		span_hk_down(hp, m->nh, 0);
next:
		top = &m->cur[hp[0].c];
		if (top->x.s > x.e)
			break;
		if (top->x.e > x.e)
			x.e = top->x.e;
	}
	*out = x;
	return 1;
}

void span_merge_fini(struct span_merge *m)
{
	free(m->hp);
	free(m->cur);
	m->hp = NULL;
	m->cur = NULL;
	m->nh = 0;
}

size_t spans_union_packs(const struct span_pack *const *packs, size_t k, struct span **out)
{
	struct span_merge m;
	struct span *v, x;
	size_t nv = 0, cap = 0, i;

	/* Room for every span at once: pages are touched only as the union
	 * fills them, where doubling would copy it (fresh pages are dear). */
	for (i = 0; i < k; i++)
		cap += packs[i]->n;
	if (!cap) {
		*out = NULL;
		return 0;
	}
	v = xmalloc(cap * sizeof(*v));
	span_merge_init(&m, packs, k);
	while (span_merge_next(&m, &x))
		v[nv++] = x;
	span_merge_fini(&m);
	*out = v;
	return nv;
}

int64_t spans_len(const struct span *v, size_t n)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t = xt_sat_add(t, xt_sat_sub(v[i].e, v[i].s));
	return t;
}


int64_t spans_overlap(const struct span *a, size_t na, const struct span *b, size_t nb)
{
	size_t i = 0, j = 0;
	int64_t t = 0;

	while (i < na && j < nb) {
		int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
		int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;

		if (e > s)
			t = xt_sat_add(t, xt_sat_sub(e, s));
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}
