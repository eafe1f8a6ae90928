/* spans: see spans.h. */
#include "spans.h"

#include <string.h>

#include "../util/xalloc.h"

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

int64_t spans_len(const struct span *v, size_t n)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += v[i].e - v[i].s;
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
			t += e - s;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}
