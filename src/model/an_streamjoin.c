/*
 * an_streamjoin: the two halves of a long stream line's op pass
 * (an_stream.c) made one, with the same result as one pass in line order.
 *
 * A piece counts what does not depend on the events before it (times,
 * kernels, kernel rows) in its own tables; stream_join() merges the second
 * piece's into the line's in the order it met them, which is the order one
 * pass would have added them in. What does depend on order
 * (stream_order_event(): an op's occurrences, where consecutive kernels of
 * one op are one and only an occurrence's first kernel adds FLOPs and
 * bytes, and the runs of programs behind inferred steps) the first piece,
 * like a line of one piece, counts as it goes; stream_ordered() then walks
 * the second piece's events once more, reading only each one's slot and
 * times, from where the first left off.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "an_stream.h"

uint32_t op_kernel_entry(struct line_part *lp, uint32_t slot, uint32_t mi)
{
	uint32_t key[2] = { slot, mi };
	int ins;
	uint32_t *v = hmap_get(&lp->kern_op_index, key, sizeof(key), (uint32_t)lp->nopk, &ins);

	if (ins) {
		if (lp->nopk == lp->capopk) {
			lp->capopk = lp->capopk ? lp->capopk * 2 : 32;
			lp->opk = xreallocarray(lp->opk, lp->capopk, sizeof(*lp->opk));
		}
		lp->opk[lp->nopk++] = (struct op_kernel){ slot, mi, 0, 0 };
	}
	return *v;
}

uint32_t *stream_join(struct line_part *lp, const struct line_part *second)
{
	uint32_t *map = xmalloc((second->nops ? second->nops : 1) * sizeof(*map));
	size_t s, k;

	for (s = 0; s < second->nops; s++) {
		const struct op_acc *o = &second->ops[s];
		size_t before = lp->nops;
		uint32_t slot = op_slot_keyed(lp, o->name, o->category, o->module, o->has_program,
					      o->program_id, o->key_has, o->program_id);
		struct op_acc *a = &lp->ops[slot];

		if (lp->nops > before) {
			/* New to the line: as the piece first set it up. */
			*a = *o;
			a->occurrences = a->n_flops = a->n_bytes = a->n_hbm = 0;
			a->flops = a->bytes = a->hbm_bytes = 0;
			a->total_ps = a->self_ps = 0;
		}
		a->total_ps = xt_sat_add(a->total_ps, o->total_ps);
		a->self_ps = xt_sat_add(a->self_ps, o->self_ps);
		map[s] = slot;
	}
	for (k = 0; k < second->nopk; k++) {
		const struct op_kernel *ok = &second->opk[k];
		uint32_t e = op_kernel_entry(lp, map[ok->slot], ok->meta); /* may move lp->opk */

		lp->opk[e].occurrences += ok->occurrences;
		lp->opk[e].total_ps = xt_sat_add(lp->opk[e].total_ps, ok->total_ps);
	}
	kernels_join(lp, second);
	for (k = 0; k < second->npend; k++) {
		const struct copy_pend *cp = &second->pend[k];

		copies_pend_add(lp, cp->i, cp->corr, map[cp->slot],
				cp->held ? &second->pend_as[cp->held - 1] : NULL);
	}
	lp->op_events += second->op_events;
	lp->small_kernels_cb += second->small_kernels_cb;
	return map;
}

void stream_order_event(struct stream_order *st, struct line_part *lp, const struct xt_plane *p,
			const struct xt_line *l, size_t i, uint32_t slot, int from_hlo,
			const struct stream_extra *x)
{
	const struct xt_event *ev = &l->ev[i];
	uint32_t mi = xt_event_meta_index(ev);
	int64_t group = x && x->has_group ? x->group : INT64_MIN;
	struct op_acc *a = &lp->ops[slot];
	int64_t program = a->has_program || a->key_has ? a->program_id : 0;
	int runs = a->module.n || a->has_program; /* its program's runs are known */
	int cont;

	/* Consecutive kernels of one XLA op in one step are one
	 * occurrence (a fusion launched as several kernels), unless the
	 * op's first kernel comes again (the op ran again); TF ops and
	 * plain kernels count every launch, as XProf does. An op the HLO
	 * places in the entry computation that did not open its program's
	 * run runs once in it, whatever its kernels repeat: CUB's radix sort
	 * (a custom call) sets memory before each of its passes. Without the
	 * HLO a loop's op could be that op: the first rule holds. */
	cont = from_hlo && slot == st->prev_slot && group == st->prev_group &&
	       (strcmp(p->emeta[mi].name, p->emeta[st->occ_first].name) ||
		(a->once && runs && steps_run_within(lp, a->module, program, slot)));
	if (!cont)
		st->occ_first = mi;
	st->prev_slot = from_hlo ? slot : UINT32_MAX;
	st->prev_group = group;
	/* FLOPs and bytes are per occurrence: a fusion's later kernels
	 * repeat its first kernel's numbers. The event's own stats win
	 * over the cost model. */
	if (!cont) {
		a->occurrences++;
		if (x && x->has_flops) {
			a->flops += x->flops;
			a->n_flops++;
			a->cost_src |= XT_COST_PROFILE;
		} else if (a->hlo_flops >= 0) {
			a->flops += a->hlo_flops;
			a->n_flops++;
			a->cost_src |= XT_COST_HLO;
		}
		if (x && x->has_bytes) {
			a->bytes += x->bytes;
			a->hbm_bytes += x->bytes;
			a->n_bytes++;
			a->n_hbm++;
			a->cost_src |= XT_COST_PROFILE;
		} else if (a->hlo_bytes >= 0) {
			a->bytes += a->hlo_bytes;
			a->hbm_bytes += a->hlo_bytes;
			a->n_bytes++;
			a->n_hbm++;
			a->cost_src |= XT_COST_HLO;
		}
	}
	/* A run is of one program: its module and, when the kernels say,
	 * its program id (one module compiled for several shapes is several
	 * programs, and back-to-back runs of two are two runs). */
	if (runs)
		steps_run_add(lp, a->module, program, slot, mi, a->in_entry, xt_event_start(l, ev),
			      xt_event_end(l, ev));
}

void stream_ordered(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
		    struct stream_order *st, const uint32_t *rec, size_t cut, const uint32_t *map,
		    const struct stream_extra *ex, size_t nex)
{
	size_t i, e = 0;

	for (i = cut; i < l->nev; i++) {
		const struct stream_extra *x = NULL;

		if (rec[i - cut] == UINT32_MAX)
			continue;
		if (rec[i - cut] == REC_HELD) {
			st->prev_slot = UINT32_MAX;
			continue;
		}
		if (e < nex && ex[e].i == i)
			x = &ex[e++];
		stream_order_event(st, lp, p, l, i, map[rec[i - cut] & 0x7fffffffu],
				   (int)(rec[i - cut] >> 31),
				   x);
	}
}
