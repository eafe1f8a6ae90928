/*
 * an_stream: the op profile of GPU stream lines (docs/analyses.md, "Op
 * profile", GPU devices). One pass per line decides each kernel's op
 * (an_attr.c), counts its occurrences, FLOPs and bytes, the kernels each
 * op launched, the program runs behind inferred steps and the kernel
 * table; a command buffer's kernels are held until their run ends and
 * named by their places in it (an_cmdbuf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/parfor.h"
#include "../util/xalloc.h"
#include "an_stream.h"

/* The instruction a command buffer kernel's place in its run named, or NULL
 * (not such a kernel, or not one of the line's kept events). */
static const char *stream_named(const struct xt_analysis *a, const struct xt_line *l,
				const struct xt_event *ev)
{
	size_t k, lo = 0, hi;
	int64_t i;

	if (!l->ev || ev < l->ev || ev >= l->ev + l->nev)
		return NULL;
	for (k = 0; k < a->ncb_names && a->cb_names[k].l != l; k++)
		;
	if (k == a->ncb_names)
		return NULL;
	i = ev - l->ev;
	hi = a->cb_names[k].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->cb_names[k].v[mid].k < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->cb_names[k].n && a->cb_names[k].v[lo].k == i
		       ? (const char *)(uintptr_t)a->cb_names[k].v[lo].v
		       : NULL;
}

void stream_keep_names(struct xt_analysis *a, struct xt_trace *t)
{
	size_t h, p, l;

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				const struct xt_line *xl = &t->hosts[h].planes[p].lines[l];
				struct line_part *lp = xl->hook_data;

				if (!lp || lp->role != LROLE_STREAM || !lp->ncbn)
					continue;
				a->cb_names = xreallocarray(a->cb_names, a->ncb_names + 1,
							    sizeof(*a->cb_names));
				a->cb_names[a->ncb_names++] = (struct cb_names){ xl, lp->cbn, lp->ncbn };
				lp->cbn = NULL;
				lp->ncbn = lp->capcbn = 0;
			}
}

void stream_names_free(struct xt_analysis *a)
{
	size_t k;

	for (k = 0; k < a->ncb_names; k++)
		free(a->cb_names[k].v);
	free(a->cb_names);
}

const char *analysis_op_name(const struct xt_analysis *a, const struct xt_trace *t, size_t host,
			     const struct xt_plane *p, const struct xt_line *l,
			     const struct xt_event *ev, char *buf, size_t n)
{
	struct bytes_ref r = bref_str(trace_event_display_name(p, ev));

	/* The same rules as ops_line_stream(); XLA ops carry a tf_op too,
	 * but the profile names them by their display name. */
	if (!strncmp(p->name, "/device:GPU:", 12) && host < t->nhosts) {
		struct xt_known_stats ks;
		struct gpu_attr ga;
		const struct xt_host *h = &t->hosts[host];
		const char *by_order = stream_named(a, l, ev);

		if (by_order) {
			snprintf(buf, n, "%s", by_order);
			return buf;
		}

		stat_collect(&ks, h, p, l, ev,
			     1ull << XS_HLO_OP | 1ull << XS_TF_OP | 1ull << XS_LEVEL0 |
				     1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID |
				     1ull << XS_HLO_CATEGORY);
		attr_gpu(&ga, host < a->nhlo ? &a->hlo[host] : NULL, p,
			 op_line_flags(bref_str(l->name)), ev, &ks);
		r = ga.name;
		/* A blit copy that names no op: by its host call (an_copies.c). */
		if (copy_names_no_op(ga.attr, ga.module.n, ga.has_program_key) &&
		    copy_is_blit(xt_event_meta(p, ev)->name)) {
			int64_t corr = copy_event_corr(h, p, l, ev);
			unsigned c = corr != INT64_MIN ? copies_class(a, host, corr) : 0;

			if (c)
				r = copies_op_name(c);
		}
	}
	snprintf(buf, n, "%.*s", (int)r.n, r.p);
	return buf;
}

const char *analysis_op_program(const struct xt_analysis *a, const struct xt_trace *t,
				size_t host, const struct xt_plane *p, const struct xt_line *l,
				const struct xt_event *ev, char *buf, size_t n)
{
	struct xt_known_stats ks;
	struct gpu_attr ga;
	struct prog_names pn;

	buf[0] = '\0';
	if (host >= t->nhosts)
		return buf;
	if (strncmp(p->name, "/device:GPU:", 12)) {
		/* An XLA Ops event: its program_id and hlo_module, the event's
		 * over its metadata's, as ops_line_xla reads them. */
		int has;

		stat_collect(&ks, &t->hosts[host], p, l, ev,
			     1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID);
		has = stat_has(&ks, XS_PROGRAM_ID);
		prog_names_init(&pn, &t->hosts[host]);
		prog_label(a, &pn, has, has, has ? stat_as_int(&ks.v[XS_PROGRAM_ID]) : 0,
			   stat_has(&ks, XS_HLO_MODULE)
				   ? bref(ks.v[XS_HLO_MODULE].s, ks.v[XS_HLO_MODULE].n)
				   : bref("", 0),
			   buf, n);
		prog_names_fini(&pn);
		return buf;
	}
	stat_collect(&ks, &t->hosts[host], p, l, ev,
		     1ull << XS_HLO_OP | 1ull << XS_TF_OP | 1ull << XS_LEVEL0 | 1ull << XS_HLO_MODULE |
			     1ull << XS_PROGRAM_ID | 1ull << XS_HLO_CATEGORY);
	attr_gpu(&ga, host < a->nhlo ? &a->hlo[host] : NULL, p, op_line_flags(bref_str(l->name)), ev,
		 &ks);
	/* The names by id of the host's /host:metadata: a few, one a program. */
	prog_names_init(&pn, &t->hosts[host]);
	prog_label(a, &pn, ga.has_program, ga.has_program || ga.has_program_key, ga.program_id,
		   ga.module, buf, n);
	prog_names_fini(&pn);
	return buf;
}

/* The well-known stats of an event metadata, decoded once per line. */
static const struct xt_known_stats *meta_stats(struct line_part *lp, const struct xt_host *h,
					       const struct xt_plane *p, uint32_t mi, uint64_t want)
{
	struct xt_known_stats *ks = lp->meta_ks[mi];
	struct stat_iter it;
	struct xt_stat s;

	if (ks)
		return ks;
	ks = lp->meta_ks[mi] = xmalloc(sizeof(*ks));
	ks->have = 0;
	stat_iter_meta(&it, h, p, &p->emeta[mi]);
	while (stat_next(&it, &s)) {
		unsigned k = stat_known(&s);

		if (k && ((want >> k) & 1) && !((ks->have >> k) & 1)) {
			ks->v[k] = s;
			ks->have |= 1ull << k;
		}
	}
	return ks;
}

/* Op slot of a GPU event from its stats (event first, then metadata). */
static uint32_t stream_slot(struct line_part *lp, const struct plane_ctx *pc,
			    const struct xt_plane *p, unsigned line_flags,
			    const struct xt_event *ev, const struct xt_known_stats *ks,
			    int *from_hlo)
{
	struct gpu_attr ga;
	uint32_t slot;
	struct op_acc *a;

	attr_gpu(&ga, &pc->hc->hlo, p, line_flags, ev, ks);
	*from_hlo = ga.attr >= XT_ATTR_HLO_OP && ga.attr <= XT_ATTR_KERNEL_ORDER;
	slot = op_slot_keyed(lp, ga.name, ga.category, ga.module, ga.has_program, ga.program_id,
			     ga.has_program_key, ga.program_id);
	a = &lp->ops[slot];
	if (a->occurrences == 0 && !a->attr) {
		a->attr = (uint8_t)ga.attr;
		a->parent = ga.parent;
		a->in_cb = ga.in_cb;
		a->in_entry = (uint8_t)ga.in_entry;
		if (ga.attr == XT_ATTR_TF_OP || ga.attr == XT_ATTR_EVENT_NAME)
			a->in_entry = 0; /* not an XLA op: it never opens a run */
		a->once = (uint8_t)(ga.inst && a->in_entry);
		if (ga.inst) {
			a->hlo_flops = ga.inst->flops;
			a->hlo_bytes = ga.inst->bytes;
			a->shape_sig = ga.inst->shape_sig;
		}
		a->key_has = (uint8_t)ga.has_program_key;
		if (ga.cb_mod) {
			a->cb_mod = ga.cb_mod;
			a->cb_comp = ga.cb_comp;
		}
	}
	return slot;
}

/* The event-level stats that decide a GPU event's op, remembered per kernel
 * metadata: consecutive launches of one kernel nearly always name the same
 * op, so comparing a few short values replaces hashing and classifying. */
static const unsigned ident_stats[] = { XS_HLO_OP, XS_HLO_MODULE, XS_PROGRAM_ID, XS_TF_OP,
					XS_HLO_CATEGORY, XS_LEVEL0 };
#define NIDENT (sizeof(ident_stats) / sizeof(ident_stats[0]))

struct ident {
	uint64_t mask;  /* which ident stats the event carried (0: none kept) */
	struct xt_stat v[NIDENT];
	uint32_t slot;
	uint8_t from_hlo;
};

static int stat_same(const struct xt_stat *a, const struct xt_stat *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case XT_STAT_STR:
	case XT_STAT_BYTES:
	case XT_STAT_REF:
	case XT_STAT_COMPRESSED:
		return a->n == b->n && (a->s == b->s || !memcmp(a->s, b->s, a->n));
	case XT_STAT_DOUBLE:
		return a->d == b->d;
	default:
		return a->u == b->u;
	}
}

static int ident_same(const struct ident *c, const struct xt_known_stats *ks, uint64_t mask)
{
	size_t j;

	if (!c->mask || c->mask != mask)
		return 0;
	for (j = 0; j < NIDENT; j++)
		if (((mask >> ident_stats[j]) & 1) && !stat_same(&c->v[j], &ks->v[ident_stats[j]]))
			return 0;
	return 1;
}

static void ident_keep(struct ident *c, const struct xt_known_stats *ks, uint64_t mask)
{
	size_t j;

	c->mask = mask;
	for (j = 0; j < NIDENT; j++)
		if ((mask >> ident_stats[j]) & 1)
			c->v[j] = ks->v[ident_stats[j]];
}

/* A key for kernel metadata mi launched with the event-level ident stats
 * mask of ks: their kinds and values (a reference by its id, a string by
 * its bytes). Returns its length, 0 when it does not fit in n bytes. */
static size_t ident_key(uint8_t *kb, size_t n, uint32_t mi, const struct xt_known_stats *ks,
			uint64_t mask)
{
	size_t j, o = sizeof(mi);

	memcpy(kb, &mi, sizeof(mi));
	for (j = 0; j < NIDENT; j++) {
		const struct xt_stat *s = &ks->v[ident_stats[j]];

		if (!((mask >> ident_stats[j]) & 1))
			continue;
		if (o + 2 + 8 > n)
			return 0;
		kb[o++] = (uint8_t)j;
		kb[o++] = (uint8_t)s->kind;
		switch (s->kind) {
		case XT_STAT_STR:
		case XT_STAT_BYTES:
		case XT_STAT_COMPRESSED:
			if (s->n > n - o - 4)
				return 0;
			memcpy(kb + o, &(uint32_t){ (uint32_t)s->n }, 4);
			memcpy(kb + o + 4, s->s, s->n);
			o += 4 + s->n;
			break;
		case XT_STAT_DOUBLE:
			memcpy(kb + o, &s->d, 8);
			o += 8;
			break;
		default:
			memcpy(kb + o, &s->u, 8);
			o += 8;
		}
	}
	return o;
}

/* op_kernel_add()'s memory of recent (op, kernel) pairs, direct-mapped:
 * a kernel launched for several ops in turn (a fusion kernel XLA reuses,
 * a cuBLAS kernel of many calls) finds its entry without hashing. */
#define KC_SIZE 1024
struct kc_ent {
	uint32_t slot, mi, idx; /* idx: entry in lp->opk + 1 (0 = empty) */
};

/* Counts a launch of kernel metadata mi for op slot (kernels per op). */
static void op_kernel_add(struct line_part *lp, struct kc_ent *kc, uint32_t slot, uint32_t mi,
			  int64_t dur)
{
	struct kc_ent *c = &kc[(slot * 0x9E3779B1u ^ mi) & (KC_SIZE - 1)];
	struct op_kernel *k;

	if (c->idx && c->slot == slot && c->mi == mi) {
		k = &lp->opk[c->idx - 1];
	} else {
		uint32_t e = op_kernel_entry(lp, slot, mi);

		*c = (struct kc_ent){ slot, mi, e + 1 };
		k = &lp->opk[e];
	}
	k->occurrences++;
	k->total_ps = xt_sat_add(k->total_ps, dur);
}

/* One piece of a stream line's pass (ops_line_stream): events [first,
 * end), its own op tables in lp. */
struct stream_pass {
	struct line_part *lp;
	const struct xt_host *h;
	const struct xt_plane *p;
	const struct xt_line *l;
	size_t first, end;
	unsigned line_flags;
	uint8_t *meta_flags;    /* op_name_flags() of each kernel name, 0x80 = known */
	struct kc_ent *kc;      /* op_kernel_add()'s memory */
	const struct xt_sunk *sunk; /* the sink's parts of the line, or NULL */
	uint32_t *rec;          /* a second piece: per event from first its slot | from_hlo << 31 */
	struct stream_order ord; /* no rec: what the order-dependent count carries */
	struct stream_extra *ex; /* events with a group id, FLOPs or bytes, in order */
	size_t nex, capex;
	int held_pass;          /* stream_account_held(): the blit copies' slots are known */
};

static void acct_keep(struct acct_stats *as, const struct xt_known_stats *ks)
{
	as->have = ks->have & (1ull << XS_GROUP_ID | 1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED |
			       1ull << XS_KERNEL_DETAILS);
	as->group = (as->have >> XS_GROUP_ID) & 1 ? stat_as_int(&ks->v[XS_GROUP_ID]) : 0;
	as->flops = (as->have >> XS_FLOPS) & 1 ? stat_as_double(&ks->v[XS_FLOPS]) : 0;
	as->bytes = (as->have >> XS_BYTES_ACCESSED) & 1 ? stat_as_double(&ks->v[XS_BYTES_ACCESSED])
							: 0;
	/* Text only: a number in its place has no bytes (and no pointer). */
	as->kd = ((as->have >> XS_KERNEL_DETAILS) & 1) && ks->v[XS_KERNEL_DETAILS].s
			 ? bref(ks->v[XS_KERNEL_DETAILS].s, ks->v[XS_KERNEL_DETAILS].n)
			 : bref("", 0);
}

/*
 * Counts event i for op slot: its class, time, kernel and kernel-table row,
 * which do not depend on the events before it; then what does (the op's
 * occurrences and their FLOPs, the program runs): at once in a line's one
 * or first piece, later in a second (stream_ordered(), from rec and the
 * extras).
 */
static void stream_account(struct stream_pass *sp, size_t i, uint32_t slot, int from_hlo,
			   const struct acct_stats *as)
{
	struct line_part *lp = sp->lp;
	const struct xt_plane *p = sp->p;
	const struct xt_line *l = sp->l;
	const struct xt_event *ev = &l->ev[i];
	uint32_t mi = xt_event_meta_index(ev);
	int64_t dur;
	struct op_acc *a;
	struct stream_extra one, *x = NULL;
	int memcpy_op;

	if (!sp->meta_flags[mi])
		sp->meta_flags[mi] = (uint8_t)(0x80 | op_name_flags(bref_str(p->emeta[mi].name)));
	lp->cls[i] = (uint8_t)op_classify_flags(lp->ops[slot].name_flags, lp->ops[slot].cat_flags,
						sp->meta_flags[mi] & 0x7f, sp->line_flags,
						&memcpy_op);
	a = &lp->ops[slot];
	dur = xt_event_dur(l, ev);
	/* A command buffer's kernels are launched as one graph, not one by
	 * one: no launch overhead each (the launch_bound finding). */
	if (a->in_cb && dur > 0 && dur < SMALL_KERNEL_PS && lp->cls[i] <= EVC_COLLECTIVE &&
	    !plane_memset(p, mi))
		lp->small_kernels_cb++;
	/* A blit copy waiting for its direction: the op it counts under
	 * (its class may change, and with it the counts above). */
	if (lp->npend && !sp->held_pass && ((const struct plane_ctx *)p->hook_data)->info[mi].blit)
		copies_pend_slot(lp, i, slot);
	a->total_ps = xt_sat_add(a->total_ps, dur);
	a->self_ps = xt_sat_add(a->self_ps, dur);
	op_kernel_add(lp, sp->kc, slot, mi, dur);
	lp->op_events++;
	if (dur > 0 && ((as->have >> XS_KERNEL_DETAILS) & 1))
		kernels_event(lp, p, ev, dur, slot, as->kd);
	if (as->have & (1ull << XS_GROUP_ID | 1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED)) {
		x = &one;
		if (sp->rec) {
			if (sp->nex == sp->capex) {
				sp->capex = sp->capex ? sp->capex * 2 : 64;
				sp->ex = xreallocarray(sp->ex, sp->capex, sizeof(*sp->ex));
			}
			x = &sp->ex[sp->nex++];
		}
		x->i = i;
		x->has_group = (as->have >> XS_GROUP_ID) & 1;
		x->has_flops = (as->have >> XS_FLOPS) & 1;
		x->has_bytes = (as->have >> XS_BYTES_ACCESSED) & 1;
		x->group = as->group;
		x->flops = as->flops;
		x->bytes = as->bytes;
	}
	if (sp->rec)
		sp->rec[i - sp->first] = slot | (from_hlo ? 1u << 31 : 0);
	else
		stream_order_event(&sp->ord, lp, p, l, i, slot, from_hlo, x);
}

/* The pass's part of a HIP blit copy (an_copies.c): its class waits for
 * its host call, and one that names no op (held: as, its accounting
 * stats) waits whole, for the op its direction names. */
static void blit_hold(struct stream_pass *sp, size_t i, uint32_t slot, int64_t corr,
		      const struct acct_stats *as)
{
	copies_pend_add(sp->lp, i, corr, slot, as);
	if (!as)
		return;
	/* Counted later, in no order: it parts the kernels around it now. */
	if (sp->rec)
		sp->rec[i - sp->first] = REC_HELD;
	else
		sp->ord.prev_slot = UINT32_MAX;
}

void stream_account_held(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
			 const uint32_t *slots)
{
	struct stream_pass sp;
	size_t k;

	memset(&sp, 0, sizeof(sp));
	sp.lp = lp;
	sp.p = p;
	sp.l = l;
	sp.line_flags = op_line_flags(bref_str(l->name));
	sp.held_pass = 1;
	sp.meta_flags = xcalloc(p->nemeta ? p->nemeta : 1, 1);
	sp.kc = xcalloc(KC_SIZE, sizeof(*sp.kc));
	sp.ord = (struct stream_order){ UINT32_MAX, 0, 0 };
	for (k = 0; k < lp->npend; k++)
		if (slots[k] != UINT32_MAX)
			stream_account(&sp, lp->pend[k].i, slots[k], 0,
				       &lp->pend_as[lp->pend[k].held - 1]);
	free(sp.meta_flags);
	free(sp.kc);
}

/*
 * The kernels of one command buffer run (consecutive kernels of one graph
 * launch), held until the run ends so that an_cmdbuf.c can name each by
 * its place in the program's schedule. Runs of the same kernels resolve
 * the same way: the answer is kept by kernel sequence.
 */
struct cb_run {
	const struct hlo_module *mod;
	uint32_t comp;
	int64_t corr;           /* the graph launch's correlation id */
	struct bytes_ref parent; /* its hlo_op: the command buffer */
	struct bytes_ref raw_op; /* that stat as the last kernel had it */
	struct cb_ev {
		uint32_t i, slot;
		uint8_t from_hlo;
		struct acct_stats as;
	} *ev;
	size_t n, cap;
	struct hmap cache;      /* (module, computation, kernel metadata...) -> first in res */
	uint32_t *res;          /* per kernel: its instruction when order changed it, else UINT32_MAX */
	size_t nres, capres;
	/* Per program key (module, its name, program id: two program ids can
	 * share a module found by name) the op slot + 1 of each instruction;
	 * last: the one used last. */
	struct inst_slots {
		const struct hlo_module *mod;
		struct bytes_ref module;
		int64_t prog;
		uint8_t key_has;
		uint32_t *slot;
	} *is;
	size_t nis, last_is;
	uint8_t *last_key;      /* the last run's key and where its answer is */
	size_t last_n;
	uint32_t last_at;
};

static int is_match(const struct inst_slots *c, const struct hlo_module *mod,
		    const struct op_acc *f)
{
	return c->mod == mod && c->prog == f->program_id && c->key_has == f->key_has &&
	       bref_eq(c->module, f->module);
}

/* The op slot of instruction ix, found by its place in run r of the op in
 * slot from (same program, same command buffer). */
static uint32_t cb_inst_slot(struct line_part *lp, struct cb_run *r, uint32_t ix, uint32_t from)
{
	const struct hlo_inst *in = &r->mod->inst[ix];
	struct op_acc *a, *f;
	struct inst_slots *c;
	uint32_t slot;
	size_t k;

	f = &lp->ops[from];
	if (r->nis && is_match(&r->is[r->last_is], r->mod, f)) {
		k = r->last_is;
	} else {
		for (k = 0; k < r->nis && !is_match(&r->is[k], r->mod, f); k++)
			;
		if (k == r->nis) {
			r->is = xreallocarray(r->is, r->nis + 1, sizeof(*r->is));
			r->is[r->nis++] = (struct inst_slots){
				r->mod, f->module, f->program_id, f->key_has,
				xcalloc(r->mod->ninst ? r->mod->ninst : 1, sizeof(uint32_t))
			};
		}
		r->last_is = k;
	}
	c = &r->is[k];
	if (c->slot[ix])
		return c->slot[ix] - 1;
	slot = op_slot_keyed(lp, bref_str(in->name), attr_hlo_category(in), f->module,
			     f->has_program, f->program_id, f->key_has, f->program_id);
	f = &lp->ops[from]; /* ops may have moved */
	a = &lp->ops[slot];
	if (a->occurrences == 0 && !a->attr) {
		a->attr = XT_ATTR_KERNEL_ORDER;
		a->parent = r->parent.n ? r->parent : f->parent;
		a->in_cb = 1; /* resolved by its place in a command buffer run */
		a->in_entry = (uint8_t)!hlo_in_loop(r->mod, in);
		a->once = a->in_entry;
		a->hlo_flops = in->flops;
		a->hlo_bytes = in->bytes;
		a->shape_sig = in->shape_sig;
		a->cb_mod = r->mod;
		a->cb_comp = r->comp;
		a->key_has = f->key_has;
	}
	c->slot[ix] = slot + 1;
	return slot;
}

/* Resolves and counts the held run. */
static void cb_flush(struct stream_pass *sp, struct cb_run *r)
{
	const struct xt_plane *p = sp->p;
	size_t kn = 8 + 4 + 4 * r->n, k;
	uint8_t *key = xmalloc(kn);
	uint32_t *v;
	int ins;

	memcpy(key, &r->mod, 8 < sizeof(r->mod) ? 8 : sizeof(r->mod));
	memcpy(key + 8, &r->comp, 4);
	for (k = 0; k < r->n; k++) {
		uint32_t mi = xt_event_meta_index(&sp->l->ev[r->ev[k].i]);

		memcpy(key + 12 + 4 * k, &mi, 4);
	}
	/* A graph mostly runs the same kernels as last time. */
	if (r->last_key && r->last_n == kn && !memcmp(r->last_key, key, kn)) {
		free(key);
		v = &r->last_at;
		ins = 0;
	} else {
		v = hmap_get(&r->cache, key, kn, (uint32_t)r->nres, &ins);
		free(r->last_key);
		r->last_key = key;
		r->last_n = kn;
		r->last_at = *v;
	}
	if (ins) {
		struct bytes_ref *names = xmalloc(r->n * sizeof(*names));
		uint32_t *out = xmalloc(r->n * sizeof(*out));
		uint8_t *by_order = xmalloc(r->n);

		for (k = 0; k < r->n; k++)
			names[k] = attr_kernel_name(&p->emeta[xt_event_meta_index(
				&sp->l->ev[r->ev[k].i])]);
		cmdbuf_resolve(r->mod, r->comp, names, r->n, out, by_order);
		while (r->nres + r->n > r->capres) {
			r->capres = r->capres ? r->capres * 2 : 256;
			r->res = xreallocarray(r->res, r->capres, sizeof(*r->res));
		}
		for (k = 0; k < r->n; k++)
			r->res[r->nres + k] = by_order[k] ? out[k] : UINT32_MAX;
		r->nres += r->n;
		free(names);
		free(out);
		free(by_order);
	}
	for (k = 0; k < r->n; k++) {
		const struct cb_ev *e = &r->ev[k];
		uint32_t ix = r->res[*v + k];

		if (ix == UINT32_MAX) {
			stream_account(sp, e->i, e->slot, e->from_hlo, &e->as);
			continue;
		}
		stream_account(sp, e->i, cb_inst_slot(sp->lp, r, ix, e->slot), 1, &e->as);
		/* what the viewer asks of this event (analysis_op_name); a
		 * report asks nothing (46 MB of peak RSS by one reading, on a
		 * 1 GB H100 profile) */
		if (((const struct plane_ctx *)p->hook_data)->no_event_queries)
			continue;
		if (sp->lp->ncbn == sp->lp->capcbn) {
			sp->lp->capcbn = sp->lp->capcbn ? sp->lp->capcbn * 2 : 256;
			sp->lp->cbn = xreallocarray(sp->lp->cbn, sp->lp->capcbn, sizeof(*sp->lp->cbn));
		}
		sp->lp->cbn[sp->lp->ncbn++] =
			(struct sort_kv){ (int64_t)e->i, (uint64_t)(uintptr_t)r->mod->inst[ix].name };
	}
	r->n = 0;
}

/* The op slot of event ev of kernel metadata mi, whose stats are ks (found:
 * those on the event itself), through the pass's caches: the metadata's
 * slot when the event names no op, the kernel's last launch, then every
 * (kernel, ident) seen. */
static uint32_t stream_ident_slot(struct stream_pass *sp, const struct plane_ctx *pc,
				  struct ident *last, struct hmap *seen, uint32_t mi,
				  const struct xt_event *ev, const struct xt_known_stats *ks,
				  uint64_t found, int *from_hlo)
{
	struct line_part *lp = sp->lp;
	uint64_t id = found & STREAM_IDENT;
	uint8_t kb[256];
	size_t kn;
	uint32_t *v = NULL, slot;
	int ins = 1;

	if (!id && lp->slot_of_meta[mi]) {
		/* The op is fixed by the metadata alone: reuse its slot. */
		slot = lp->slot_of_meta[mi] - 1;
		*from_hlo = lp->ops[slot].attr >= XT_ATTR_HLO_OP &&
			    lp->ops[slot].attr <= XT_ATTR_KERNEL_ORDER;
		return slot;
	}
	if (id && ident_same(&last[mi], ks, id)) {
		/* Same event-level identity as this kernel's last launch. */
		*from_hlo = last[mi].from_hlo;
		return last[mi].slot;
	}
	kn = id ? ident_key(kb, sizeof(kb), mi, ks, id) : 0;
	if (kn)
		v = hmap_get(seen, kb, kn, 0, &ins);
	if (!ins) {
		slot = *v & 0x7fffffffu;
		*from_hlo = (int)(*v >> 31);
	} else {
		slot = stream_slot(lp, pc, sp->p, sp->line_flags, ev, ks, from_hlo);
		if (v)
			*v = slot | (uint32_t)(*from_hlo ? 1u << 31 : 0);
	}
	if (!id) {
		lp->slot_of_meta[mi] = slot + 1;
	} else {
		ident_keep(&last[mi], ks, id);
		last[mi].slot = slot;
		last[mi].from_hlo = (uint8_t)*from_hlo;
	}
	return slot;
}

/* The pass over one piece of the line: sp->lp gets its ops. */
static void stream_piece(struct stream_pass *sp)
{
	struct line_part *lp = sp->lp;
	const struct xt_host *h = sp->h;
	const struct xt_plane *p = sp->p;
	const struct xt_line *l = sp->l;
	/* Source bytes given back (trace_release_before): the piece's own,
	 * from the first whole page that is its alone. */
	uint64_t released = sp->first ? (trace_event_raw(h, l, sp->first) + 4095) & ~(uint64_t)4095
				      : 0;
	const struct plane_ctx *pc = p->hook_data;
	/* The stats the reader's launch keys hold (kern_key_ids()). */
	const uint64_t want = STREAM_WANT;
	struct stat_want sw;
	struct ident *last;
	struct launch_keys lk;
	struct cb_run run = { 0 };
	/* Every (kernel, event-level ident) seen -> its slot | from_hlo << 31:
	 * one kernel often runs for a dozen ops in turn (one per module in a
	 * JAX program), which the one-entry last[] misses every time. */
	struct hmap seen;
	size_t i;

	hmap_init(&seen);
	hmap_init(&run.cache);
	stat_want_init(&sw, p, want);
	launch_keys_init(&lk, h, p, l, &sw, sp->sunk);
	lp->meta_ks = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*lp->meta_ks));
	lp->slot_of_meta = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(uint32_t));
	/* The class depends on the op, the kernel name and the line name:
	 * each name is searched once (op_name_flags, 0x80 = known). */
	sp->meta_flags = xcalloc(p->nemeta ? p->nemeta : 1, 1);
	last = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*last));
	sp->kc = xcalloc(KC_SIZE, sizeof(*sp->kc));
	lp->nmeta_ks = p->nemeta;
	for (i = sp->first; i < sp->end; i++) {
		const struct xt_event *ev = &l->ev[i];
		uint32_t mi = xt_event_meta_index(ev);
		struct memo *m;
		int64_t corr;
		struct acct_stats as;
		struct bytes_ref raw;
		int from_hlo, corr_known;
		uint32_t slot;

		if (!(i & 4095))
			trace_release_before(h, l, run.n ? run.ev[0].i : i, &released);
		if (xt_event_aggregated(ev))
			continue;
		m = launch_memo(&lk, i, &corr, &corr_known);
		if (m && m->valid) {
			slot = m->slot;
			/* A launch that names no op takes its kernel's slot, and
			 * whether it counts as an XLA op from that slot's
			 * attribution, which a later launch may have set. */
			from_hlo = m->by_meta ? lp->ops[slot].attr >= XT_ATTR_HLO_OP &&
							lp->ops[slot].attr <= XT_ATTR_KERNEL_ORDER
					      : m->from_hlo;
			as = m->as;
			raw = m->op;
		} else {
			const struct xt_known_stats *mks = meta_stats(lp, h, p, mi, want);
			struct xt_known_stats ks;
			uint64_t found = 0, mb;
			unsigned k;

			if (sw.n)
				stat_scan_event(h, p, l, ev, &sw, ks.v, &found);
			ks.have = found;
			/* The metadata's stats where the event has none (most kernels
			 * carry theirs on the event: usually nothing to do). */
			for (mb = mks->have & ~found; mb; mb &= mb - 1) {
				k = (unsigned)__builtin_ctzll(mb);
				ks.v[k] = mks->v[k];
				ks.have |= 1ull << k;
			}
			slot = stream_ident_slot(sp, pc, last, &seen, mi, ev, &ks, found, &from_hlo);
			acct_keep(&as, &ks);
			raw = stat_has(&ks, XS_HLO_OP) ? bref(ks.v[XS_HLO_OP].s, ks.v[XS_HLO_OP].n)
						       : bref("", 0);
			if (m) {
				m->valid = 1;
				m->by_meta = !(found & STREAM_IDENT);
				m->slot = slot;
				m->from_hlo = (uint8_t)from_hlo;
				m->as = as;
				m->op = raw;
			}
		}
		if (pc->info && pc->info[mi].blit) {
			if (!corr_known)
				corr = copy_event_corr(h, p, l, ev);
			corr_known = 1;
			if (corr != INT64_MIN) {
				const struct op_acc *a = &lp->ops[slot];
				int held = copy_names_no_op(a->attr, a->module.n, a->key_has);

				if (held && run.n)
					cb_flush(sp, &run); /* it ends the run, as a kernel would */
				blit_hold(sp, i, slot, corr, held ? &as : NULL);
				if (held)
					continue;
			}
		}
		if (lp->ops[slot].cb_mod) {
			/* A command buffer's kernel: held until its run ends. */
			const struct hlo_module *mod = lp->ops[slot].cb_mod;
			uint32_t comp = lp->ops[slot].cb_comp;

			if (!corr_known)
				corr = copy_event_corr(h, p, l, ev);
			/* The same annotation as the run's (most often the very
			 * same bytes): the same command buffer. */
			struct bytes_ref parent =
				run.n && bref_eq(raw, run.raw_op) ? run.parent : attr_last_scope(raw);

			if (run.n && (run.mod != mod || run.comp != comp || run.corr != corr ||
				      !bref_eq(run.parent, parent)))
				cb_flush(sp, &run); /* may move lp->ops */
			run.parent = parent;
			run.raw_op = raw;
			run.mod = mod;
			run.comp = comp;
			run.corr = corr;
			if (run.n == run.cap) {
				run.cap = run.cap ? run.cap * 2 : 64;
				run.ev = xreallocarray(run.ev, run.cap, sizeof(*run.ev));
			}
			run.ev[run.n++] = (struct cb_ev){ (uint32_t)i, slot, (uint8_t)from_hlo, as };
			continue;
		}
		if (run.n)
			cb_flush(sp, &run);
		stream_account(sp, i, slot, from_hlo, &as);
	}
	if (run.n)
		cb_flush(sp, &run);
	hmap_fini(&seen);
	hmap_fini(&run.cache);
	free(run.ev);
	free(run.res);
	for (i = 0; i < run.nis; i++)
		free(run.is[i].slot);
	free(run.is);
	free(run.last_key);
	free(sp->meta_flags);
	free(last);
	launch_keys_fini(&lk);
	free(sp->kc);
}

/* Below this many events a line is one piece; above, two run at once
 * (a variable so that the unit tests can cut small lines). */
size_t stream_split_min = 400000;
unsigned stream_cut_percent = 50; /* where the search for the cut starts, % of the line */
#define SPLIT_SEARCH 65536

/* Where to cut the line in two: near its middle, between two events of
 * different graph launches (a command buffer run must not be cut), or 0. */
static size_t stream_cut(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l)
{
	struct xt_known_stats ks;
	int64_t prev = 0;
	size_t i, from;
	int have_prev = 0;

	if (l->nev < stream_split_min || l->nev < 2)
		return 0;
	from = (size_t)((double)l->nev * stream_cut_percent / 100);
	for (i = from ? from : 1; i < from + SPLIT_SEARCH && i < l->nev; i++) {
		int64_t corr;

		if (xt_event_aggregated(&l->ev[i]))
			continue; /* the pass skips them: they end no run */
		stat_collect(&ks, h, p, l, &l->ev[i], 1ull << XS_CORRELATION_ID);
		if (!stat_has(&ks, XS_CORRELATION_ID))
			return 0; /* no launches to tell apart: one piece */
		corr = stat_as_int(&ks.v[XS_CORRELATION_ID]);
		if (have_prev && corr != prev)
			return i;
		prev = corr;
		have_prev = 1;
	}
	return 0;
}

static void piece_job(void *arg, size_t i)
{
	stream_piece(&((struct stream_pass *)arg)[i]);
}

/* A long line's last steps, two at once: the pieces made one and the
 * second walked in order (they write the op tables), and the busy time
 * (overview_line_device: it reads the events and their classes, all set
 * by the pieces, and writes only its own fields of lp). */
struct stream_tail {
	struct line_part *lp;
	struct stream_pass *sp;
	const struct xt_plane *p;
	const struct xt_line *l;
	const uint32_t *rec;
	size_t cut;
};

static void tail_job(void *arg, size_t i)
{
	struct stream_tail *t = arg;
	uint32_t *map;

	if (i) {
		overview_line_device(t->lp, t->p, t->l);
		return;
	}
	map = stream_join(t->lp, t->sp[1].lp);
	/* the second piece's named kernels follow the first's */
	if (t->sp[1].lp->ncbn) {
		struct line_part *a = t->lp, *b = t->sp[1].lp;

		a->cbn = xreallocarray(a->cbn, a->ncbn + b->ncbn, sizeof(*a->cbn));
		memcpy(a->cbn + a->ncbn, b->cbn, b->ncbn * sizeof(*a->cbn));
		a->ncbn += b->ncbn;
		a->capcbn = a->ncbn;
	}
	t->sp[1].lp->cls = NULL;
	line_part_free(t->sp[1].lp);
	stream_ordered(t->lp, t->p, t->l, &t->sp[0].ord, t->rec, t->cut, map, t->sp[1].ex,
		       t->sp[1].nex);
	free(map);
}

void ops_line_stream(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l, const struct xt_sunk *sunk)
{
	size_t cut = stream_cut(h, p, l), np = cut ? 2 : 1, k;
	struct stream_pass sp[2];
	uint32_t *rec = NULL;

	if (np == 2) {
		/* The second piece's events, from the cut on (aggregated ones
		 * get no record): the first counts in order as it goes. */
		rec = xmalloc((l->nev - cut) * sizeof(*rec));
		memset(rec, 0xff, (l->nev - cut) * sizeof(*rec));
	}
	lp->cls = xcalloc(l->nev ? l->nev : 1, 1);
	memset(sp, 0, sizeof(sp));
	for (k = 0; k < np; k++) {
		sp[k].lp = k ? line_part_alone(LROLE_STREAM) : lp;
		sp[k].h = h;
		sp[k].p = p;
		sp[k].l = l;
		sp[k].first = k ? cut : 0;
		sp[k].end = np == 2 && !k ? cut : l->nev;
		sp[k].line_flags = op_line_flags(bref_str(l->name));
		sp[k].rec = k ? rec : NULL;
		sp[k].sunk = sunk;
		sp[k].ord = (struct stream_order){ UINT32_MAX, 0, 0 };
		sp[k].lp->cls = lp->cls;
	}
	if (np == 1) {
		stream_piece(&sp[0]);
		overview_line_device(lp, p, l);
	} else {
		struct stream_tail t = { lp, sp, p, l, rec, cut };

		par_for(2, 2, piece_job, sp);
		par_for(2, 2, tail_job, &t);
	}
	free(rec);
	free(sp[0].ex);
	free(sp[1].ex);
}
