/*
 * an_copies: ROCm's blit copies (docs/analyses.md, "A copy").
 *
 * The CUDA tracer records a copy as a copy (`MemcpyH2D`); HIP runs many
 * copies as kernels of its own (`__amd_rocclr_copyBuffer…`), which the
 * ROCm tracer records like any kernel, with no direction and, for a copy
 * XLA did not start for an op (an argument moved to the device), no op.
 * What the copy moved is said by the host call that launched it
 * (`hipMemcpyHtoDAsync`), on a host line with the same correlation id.
 *
 * Host lines are decoded after the device's in upstream's files, and beside
 * them while loading, so the join waits for the analyses' end: the stream
 * pass holds such kernels (struct copy_pend), host lines keep their copy
 * calls (correlation id, direction), and copies_resolve() settles each kernel
 * before anything reads the line parts: its class (the steps' H2D, D2H and
 * D2D time), and for one that names no op, the op it is counted under.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"

int copy_is_blit(const char *name)
{
	return !strncmp(name, "__amd_rocclr_copy", 17);
}

int copy_names_no_op(enum xt_op_attr attr, size_t module_n, int program_key)
{
	return attr == XT_ATTR_EVENT_NAME && !module_n && !program_key;
}

unsigned copy_call_class(const char *name)
{
	if (strncmp(name, "hipMemcpy", 9))
		return 0;
	name += 9;
	/* Named by direction: hipMemcpyHtoD, hipMemcpyDtoHAsync, … The calls
	 * that take a kind argument (hipMemcpy, hipMemcpyAsync, hipMemcpy2D…)
	 * do not say it: the tracer writes their kind as "Unknown". */
	if (strstr(name, "HtoD"))
		return EVC_H2D;
	if (strstr(name, "DtoH"))
		return EVC_D2H;
	if (strstr(name, "DtoD") || strstr(name, "Peer"))
		return EVC_D2D;
	return 0;
}

int64_t copy_event_corr(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
			const struct xt_event *ev)
{
	struct stat_want sw;
	struct xt_stat v[XS_COUNT];
	uint64_t found = 0;

	stat_want_init(&sw, p, 1ull << XS_CORRELATION_ID);
	if (sw.n)
		stat_scan_event(h, p, l, ev, &sw, v, &found);
	return found ? stat_as_int(&v[XS_CORRELATION_ID]) : INT64_MIN;
}

static void call_add(struct sort_kv **v, size_t *n, size_t *cap, int64_t corr, unsigned cls)
{
	if (corr == INT64_MIN)
		return; /* the stream pass's "none": no kernel can match it */
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = (struct sort_kv){ corr, cls };
}

void copies_sink_event(struct host_part *hp, const struct xt_sink_ev *e)
{
	const struct plane_ctx *pc = hp->p->hook_data;
	struct stat_iter it;
	struct xt_stat s;

	stat_iter_event_bytes(&it, hp->p, e->b, e->n);
	while (stat_next(&it, &s))
		if (stat_known(&s) == XS_CORRELATION_ID) {
			call_add(&hp->calls, &hp->ncalls, &hp->capcalls, stat_as_int(&s),
				 pc->info[e->meta].copy_cls);
			return;
		}
}

void copies_line_host(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		      const struct xt_line *l, const struct xt_sunk *sunk)
{
	const struct plane_ctx *pc = p->hook_data;
	size_t i, k;

	if (!pc->has_copy_calls)
		return;
	if (sunk && sunk->nparts) {
		/* What the sink read while the line was decoded: the first
		 * part's calls taken, the others' added. */
		for (k = 0; k < sunk->nparts; k++) {
			struct host_part *hp = sunk->parts[k];

			if (!lp->calls) {
				lp->calls = hp->calls;
				lp->ncalls = hp->ncalls;
				lp->capcalls = hp->capcalls;
				hp->calls = NULL;
				continue;
			}
			for (i = 0; i < hp->ncalls; i++)
				call_add(&lp->calls, &lp->ncalls, &lp->capcalls, hp->calls[i].k,
					 (unsigned)hp->calls[i].v);
		}
		return;
	}
	if (l->kept_none)
		return;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		unsigned cls = pc->info[xt_event_meta_index(ev)].copy_cls;

		if (cls && !xt_event_aggregated(ev))
			call_add(&lp->calls, &lp->ncalls, &lp->capcalls,
				 copy_event_corr(h, p, l, ev), cls);
	}
}

void copies_pend_add(struct line_part *lp, size_t i, int64_t corr, uint32_t slot,
		     const struct acct_stats *as)
{
	uint32_t held = 0;

	if (as) {
		if (lp->npend_as == lp->cappend_as) {
			lp->cappend_as = lp->cappend_as ? lp->cappend_as * 2 : 16;
			lp->pend_as = xreallocarray(lp->pend_as, lp->cappend_as,
						    sizeof(*lp->pend_as));
		}
		lp->pend_as[lp->npend_as++] = *as;
		held = (uint32_t)lp->npend_as;
	}
	if (lp->npend == lp->cappend) {
		lp->cappend = lp->cappend ? lp->cappend * 2 : 16;
		lp->pend = xreallocarray(lp->pend, lp->cappend, sizeof(*lp->pend));
	}
	lp->pend[lp->npend++] = (struct copy_pend){ i, corr, slot, held };
}

void copies_pend_slot(struct line_part *lp, size_t i, uint32_t slot)
{
	size_t lo = 0, hi = lp->npend;

	/* Most often the one just added; else (a command buffer's kernel,
	 * counted when its run ends) a search: they are added in line order. */
	if (hi && lp->pend[hi - 1].i == i) {
		lp->pend[hi - 1].slot = slot;
		return;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lp->pend[mid].i < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < lp->npend && lp->pend[lo].i == i)
		lp->pend[lo].slot = slot;
}

/* The op of a held copy whose direction is known. */
static uint32_t copy_slot(struct line_part *lp, unsigned cls)
{
	uint32_t slot = op_slot_keyed(lp, copies_op_name(cls), bref("memcpy", 6), bref("", 0), 0, 0,
				      0, 0);
	struct op_acc *a = &lp->ops[slot];

	if (a->occurrences == 0 && !a->attr) {
		a->attr = XT_ATTR_COPY_CALL;
		a->in_entry = 0; /* not an XLA op: it opens no run */
	}
	return slot;
}

/* overview_line_device counted event i as a kernel while its class was
 * compute, and stream_account as a small kernel in a command buffer when
 * its op (slot) ran in one; a copy is neither. */
static void kernel_uncount(struct line_part *lp, const struct xt_line *l, size_t i, int was,
			   uint32_t slot)
{
	int64_t d = xt_event_dur(l, &l->ev[i]);

	if (d <= 0 || (was != EVC_COMPUTE && was != EVC_COLLECTIVE) ||
	    lp->cls[i] == EVC_COMPUTE || lp->cls[i] == EVC_COLLECTIVE)
		return;
	lp->kernels--;
	if (d < SMALL_KERNEL_PS) {
		lp->small_kernels--;
		lp->small_kernel_ps -= d;
		if (lp->ops[slot].in_cb)
			lp->small_kernels_cb--;
	}
}

struct copy_calls {
	struct sort_kv *v; /* by correlation id, one each (v 0: calls disagree) */
	size_t n;
};

/* One host's copy calls, sorted; where two of one id disagree (two
 * processes in one file) the id says no direction. The lines' lists are
 * freed as they are taken. */
static void calls_index(struct copy_calls *cc, const struct xt_host *h)
{
	size_t p, l, k, n = 0, o;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++) {
			const struct line_part *lp = h->planes[p].lines[l].hook_data;

			if (lp && lp->role == LROLE_HOST)
				n += lp->ncalls;
		}
	if (!n)
		return;
	cc->v = xmalloc(n * sizeof(*cc->v));
	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++) {
			struct line_part *lp = h->planes[p].lines[l].hook_data;

			if (!lp || lp->role != LROLE_HOST)
				continue;
			if (lp->ncalls)
				memcpy(cc->v + cc->n, lp->calls, lp->ncalls * sizeof(*cc->v));
			cc->n += lp->ncalls;
			free(lp->calls);
			lp->calls = NULL;
			lp->ncalls = lp->capcalls = 0;
		}
	sort_kv(cc->v, cc->n);
	for (k = 1, o = 0; k < cc->n; k++) {
		if (cc->v[k].k != cc->v[o].k)
			cc->v[++o] = cc->v[k];
		else if (cc->v[k].v != cc->v[o].v)
			cc->v[o].v = 0;
	}
	cc->n = o + 1;
}

unsigned copies_class(const struct xt_analysis *a, size_t host, int64_t corr)
{
	const struct copy_calls *cc = a->copies && host < a->nhlo ? &a->copies[host] : NULL;
	size_t lo = 0, hi = cc ? cc->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cc->v[mid].k < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return cc && lo < cc->n && cc->v[lo].k == corr ? (unsigned)cc->v[lo].v : 0;
}

struct bytes_ref copies_op_name(unsigned cls)
{
	static const char *const names[] = { [EVC_H2D] = "MemcpyH2D", [EVC_D2H] = "MemcpyD2H",
					     [EVC_D2D] = "MemcpyD2D" };

	return bref_str(names[cls]);
}

static void resolve_line(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
			 const struct xt_analysis *a, size_t host)
{
	const struct copy_calls *cc = &a->copies[host];
	uint32_t *slots = xmalloc(lp->npend * sizeof(*slots));
	uint8_t *was = xmalloc(lp->npend), *cls = xmalloc(lp->npend);
	struct sort_kv *q = xmalloc(lp->npend * sizeof(*q));
	size_t k, j = 0;

	/* The kernels' ids sorted, walked beside the calls'. */
	for (k = 0; k < lp->npend; k++)
		q[k] = (struct sort_kv){ lp->pend[k].corr, k };
	sort_kv(q, lp->npend);
	for (k = 0; k < lp->npend; k++) {
		while (j < cc->n && cc->v[j].k < q[k].k)
			j++;
		cls[q[k].v] = (uint8_t)(j < cc->n && cc->v[j].k == q[k].k ? cc->v[j].v : 0);
	}
	free(q);
	for (k = 0; k < lp->npend; k++) {
		struct copy_pend *cp = &lp->pend[k];
		unsigned c = cls[k];

		was[k] = lp->cls[cp->i];
		slots[k] = UINT32_MAX;
		if (cp->held) {
			/* may move lp->ops */
			slots[k] = cp->slot = c ? copy_slot(lp, c) : cp->slot;
		} else if (c) {
			lp->cls[cp->i] = (uint8_t)c;
		}
	}
	stream_account_held(lp, p, l, slots);
	for (k = 0; k < lp->npend; k++)
		kernel_uncount(lp, l, lp->pend[k].i, was[k], lp->pend[k].slot);
	free(slots);
	free(was);
	free(cls);
	free(lp->pend);
	free(lp->pend_as);
	lp->pend = NULL;
	lp->pend_as = NULL;
	lp->npend = lp->cappend = lp->npend_as = lp->cappend_as = 0;
}

void copies_resolve(struct xt_analysis *a, struct xt_trace *t)
{
	size_t h, p, l;

	a->copies = xcalloc(t->nhosts ? t->nhosts : 1, sizeof(*a->copies));
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];

		calls_index(&a->copies[h], host);
		for (p = 0; p < host->nplanes; p++)
			for (l = 0; l < host->planes[p].nlines; l++) {
				struct line_part *lp = host->planes[p].lines[l].hook_data;

				if (lp && lp->role == LROLE_STREAM && lp->npend)
					resolve_line(lp, &host->planes[p], &host->planes[p].lines[l],
						     a, h);
			}
	}
}

void copies_free(struct xt_analysis *a)
{
	size_t h;

	for (h = 0; a->copies && h < a->nhlo; h++)
		free(a->copies[h].v);
	free(a->copies);
}
