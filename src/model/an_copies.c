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
 * calls (struct copy_call), and copies_resolve() settles each held kernel
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

static void call_add(struct copy_call **v, size_t *n, size_t *cap, int64_t corr, unsigned cls)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = (struct copy_call){ corr, (uint8_t)cls };
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
		/* What the sink read while the line was decoded. */
		for (k = 0; k < sunk->nparts; k++) {
			struct host_part *hp = sunk->parts[k];

			for (i = 0; i < hp->ncalls; i++)
				call_add(&lp->calls, &lp->ncalls, &lp->capcalls, hp->calls[i].corr,
					 hp->calls[i].cls);
		}
		return;
	}
	if (l->kept_none)
		return;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		unsigned cls = pc->info[xt_event_meta_index(ev)].copy_cls;
		struct xt_known_stats ks;

		if (!cls || xt_event_aggregated(ev))
			continue;
		stat_collect(&ks, h, p, l, ev, 1ull << XS_CORRELATION_ID);
		if (stat_has(&ks, XS_CORRELATION_ID))
			call_add(&lp->calls, &lp->ncalls, &lp->capcalls,
				 stat_as_int(&ks.v[XS_CORRELATION_ID]), cls);
	}
}

void copies_pend_add(struct line_part *lp, const struct copy_pend *cp)
{
	if (lp->npend == lp->cappend) {
		lp->cappend = lp->cappend ? lp->cappend * 2 : 16;
		lp->pend = xreallocarray(lp->pend, lp->cappend, sizeof(*lp->pend));
	}
	lp->pend[lp->npend++] = *cp;
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
 * compute; a copy is not one. */
static void kernel_uncount(struct line_part *lp, const struct xt_line *l, size_t i, int was)
{
	int64_t d = xt_event_dur(l, &l->ev[i]);

	if (d <= 0 || (was != EVC_COMPUTE && was != EVC_COLLECTIVE) ||
	    lp->cls[i] == EVC_COMPUTE || lp->cls[i] == EVC_COLLECTIVE)
		return;
	lp->kernels--;
	if (d < SMALL_KERNEL_PS) {
		lp->small_kernels--;
		lp->small_kernel_ps -= d;
	}
}

struct copy_calls {
	struct copy_call *v; /* by correlation id, one each (cls 0: calls disagree) */
	size_t n;
};

static int call_cmp(const void *x, const void *y)
{
	const struct copy_call *a = x, *b = y;

	return (a->corr > b->corr) - (a->corr < b->corr);
}

/* One host's copy calls, sorted; where two of one id disagree (two
 * processes in one file) the id says no direction. */
static void calls_index(struct copy_calls *cc, const struct xt_host *h)
{
	size_t p, l, k, cap = 0, o;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++) {
			const struct line_part *lp = h->planes[p].lines[l].hook_data;

			for (k = 0; lp && lp->role == LROLE_HOST && k < lp->ncalls; k++)
				call_add(&cc->v, &cc->n, &cap, lp->calls[k].corr, lp->calls[k].cls);
		}
	if (!cc->n)
		return;
	qsort(cc->v, cc->n, sizeof(*cc->v), call_cmp);
	for (k = 1, o = 0; k < cc->n; k++) {
		if (cc->v[k].corr != cc->v[o].corr)
			cc->v[++o] = cc->v[k];
		else if (cc->v[k].cls != cc->v[o].cls)
			cc->v[o].cls = 0;
	}
	cc->n = o + 1;
}

unsigned copies_class(const struct xt_analysis *a, size_t host, int64_t corr)
{
	const struct copy_calls *cc = a->copies && host < a->nhlo ? &a->copies[host] : NULL;
	struct copy_call key = { corr, 0 };
	const struct copy_call *c;

	if (!cc || !cc->n)
		return 0;
	c = bsearch(&key, cc->v, cc->n, sizeof(*cc->v), call_cmp);
	return c ? c->cls : 0;
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
	uint32_t *slots = xmalloc(lp->npend * sizeof(*slots));
	uint8_t *was = xmalloc(lp->npend);
	size_t k;

	for (k = 0; k < lp->npend; k++) {
		const struct copy_pend *cp = &lp->pend[k];
		unsigned c = copies_class(a, host, cp->corr);

		was[k] = lp->cls[cp->i];
		slots[k] = UINT32_MAX;
		if (cp->held)
			slots[k] = c ? copy_slot(lp, c) : cp->slot; /* may move lp->ops */
		else if (c)
			lp->cls[cp->i] = (uint8_t)c;
	}
	stream_account_held(lp, p, l, lp->pend, slots, lp->npend);
	for (k = 0; k < lp->npend; k++)
		kernel_uncount(lp, l, lp->pend[k].i, was[k]);
	free(slots);
	free(was);
	free(lp->pend);
	lp->pend = NULL;
	lp->npend = lp->cappend = 0;
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
