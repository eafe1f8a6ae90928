/*
 * an_ops: the op profile (docs/analyses.md, "Op profile"). Each op line is
 * reduced to a small table of per-op accumulators while its bytes are hot;
 * ops_merge() then joins the tables of all lines, devices and hosts by
 * (program, name), with the kernels each op launched and the inputs of its
 * rates (an_rates.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

const char *const xt_op_attr_names[XT_ATTR_COUNT] = {
	[XT_ATTR_XLA_OP] = "xla_op",
	[XT_ATTR_HLO_OP] = "hlo_op",
	[XT_ATTR_HLO_OP_UNCHECKED] = "hlo_op_unchecked",
	[XT_ATTR_KERNEL_NAME] = "kernel_name",
	[XT_ATTR_KERNEL_NAME_UNCHECKED] = "kernel_name_unchecked",
	[XT_ATTR_UNRESOLVED] = "unresolved",
	[XT_ATTR_TF_OP] = "tf_op",
	[XT_ATTR_EVENT_NAME] = "event_name",
};

/*
 * Finds or adds the accumulator for an op key within one line. The key
 * includes the program id even where the row is named by module (GPU): two
 * programs of one module are different code with different costs.
 */
static uint32_t op_slot_keyed(struct line_part *lp, struct bytes_ref name, struct bytes_ref cat,
			      struct bytes_ref module, int has_prog, int64_t prog, int key_has,
			      int64_t key_prog)
{
	char stackbuf[512];
	size_t n = 2 + 16 + module.n + 1 + name.n + 1 + cat.n;
	char *k = n <= sizeof(stackbuf) ? stackbuf : xmalloc(n);
	size_t o = 0;
	uint32_t *v;
	int inserted;

	k[o++] = has_prog ? 'P' : '-';
	memcpy(k + o, &prog, 8);
	o += 8;
	k[o++] = key_has ? 'K' : '-';
	memcpy(k + o, &key_prog, 8);
	o += 8;
	if (module.n)
		memcpy(k + o, module.p, module.n);
	o += module.n;
	k[o++] = '\0';
	if (name.n)
		memcpy(k + o, name.p, name.n);
	o += name.n;
	k[o++] = '\0';
	if (cat.n)
		memcpy(k + o, cat.p, cat.n);
	o += cat.n;
	v = hmap_get(&lp->op_index, k, o, (uint32_t)lp->nops, &inserted);
	if (k != stackbuf)
		free(k);
	if (inserted) {
		struct op_acc *a;

		if (lp->nops == lp->capops) {
			lp->capops = lp->capops ? lp->capops * 2 : 32;
			lp->ops = xreallocarray(lp->ops, lp->capops, sizeof(*lp->ops));
		}
		a = &lp->ops[lp->nops++];
		memset(a, 0, sizeof(*a));
		a->name = name;
		a->category = cat;
		a->module = module;
		a->parent = bref("", 0);
		a->program_id = prog;
		a->has_program = (uint8_t)has_prog;
		a->hlo_flops = a->hlo_bytes = -1;
		a->name_flags = (uint8_t)op_name_flags(name);
		a->cat_flags = (uint8_t)op_name_flags(cat);
	}
	return *v;
}

static uint32_t op_slot(struct line_part *lp, struct bytes_ref name, struct bytes_ref cat,
			struct bytes_ref module, int has_prog, int64_t prog)
{
	return op_slot_keyed(lp, name, cat, module, has_prog, prog, has_prog, prog);
}

/* An async op of XLA's scheduler: its start returns at once and its done
 * waits; the transfer between them is on the Async XLA Ops line. */
static uint8_t async_kind(struct bytes_ref name, struct bytes_ref cat)
{
	struct bytes_ref b = category_from_name(name);

	if ((b.n > 6 && !memcmp(b.p + b.n - 6, "-start", 6)) ||
	    (cat.n > 6 && !memcmp(cat.p + cat.n - 6, "-start", 6)))
		return 1;
	if ((b.n > 5 && !memcmp(b.p + b.n - 5, "-done", 5)) ||
	    (cat.n > 5 && !memcmp(cat.p + cat.n - 5, "-done", 5)))
		return 2;
	return 0;
}

struct xla_open {
	int64_t end, dur, child;
	uint32_t slot;
	double flops, bytes, hbm;
	uint8_t has_flops, has_bytes, has_hbm;
};

static void xla_close(struct line_part *lp, const struct xla_open *o)
{
	struct op_acc *a = &lp->ops[o->slot];
	int64_t self = o->dur - o->child;

	a->occurrences++;
	a->total_ps += o->dur;
	a->self_ps += self;
	lp->self_sum_ps += self;
	if (o->has_flops) {
		a->flops += o->flops;
		a->n_flops++;
	}
	if (o->has_bytes) {
		a->bytes += o->bytes;
		a->n_bytes++;
		a->hbm_bytes += o->has_hbm ? o->hbm : o->bytes;
		a->n_hbm++;
	}
	if (o->has_flops || o->has_bytes)
		a->cost_src |= XT_COST_PROFILE;
}

void ops_line_xla(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		  const struct xt_line *l)
{
	uint64_t released = 0; /* source bytes given back (trace_release_before) */
	const struct plane_ctx *pc = p->hook_data;
	struct xla_open *stack = NULL;
	size_t sp = 0, cap = 0, i;
	const uint64_t want = 1ull << XS_PROGRAM_ID | 1ull << XS_HLO_CATEGORY |
			      1ull << XS_HLO_MODULE | 1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED |
			      1ull << XS_MEM_BREAKDOWN;
	struct stat_want sw;

	stat_want_init(&sw, p, want);
	lp->slot_of_meta = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(uint32_t));
	lp->cls = xcalloc(l->nev ? l->nev : 1, 1);
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		uint32_t mi = xt_event_meta_index(ev);
		const struct emeta_info *in = &pc->info[mi];
		const struct xt_event_meta *m = &p->emeta[mi];
		struct xla_open o = { 0 };
		uint64_t found = 0;
		struct xt_stat ov[XS_COUNT];

		if (!(i & 4095))
			trace_release_before(h, l, i, &released);
		if (xt_event_aggregated(ev))
			continue;
		/* Event stats override the metadata's (upstream lookup order). */
		/* Flagged by the reader when the plane is watched (loading with
		 * hooks); analysis_run over a loaded trace scans every event. */
		if (sw.n && (!p->watch_on || xt_event_watched(ev)))
			stat_scan_event(h, p, l, ev, &sw, ov, &found);
		if (!(found & (1ull << XS_PROGRAM_ID | 1ull << XS_HLO_CATEGORY |
			       1ull << XS_HLO_MODULE))) {
			if (!lp->slot_of_meta[mi]) {
				struct bytes_ref name = bref_str(m->display_name[0] ? m->display_name
										   : m->name);
				struct bytes_ref cat = in->category.n ? in->category
								      : category_from_name(name);

				lp->slot_of_meta[mi] = 1 + op_slot(lp, name, cat, in->module,
								    in->has_program, in->program_id);
			}
			o.slot = lp->slot_of_meta[mi] - 1;
		} else {
			struct bytes_ref name = bref_str(m->display_name[0] ? m->display_name : m->name);
			struct bytes_ref cat = (found >> XS_HLO_CATEGORY) & 1
						       ? bref(ov[XS_HLO_CATEGORY].s, ov[XS_HLO_CATEGORY].n)
						       : in->category;
			struct bytes_ref mod = (found >> XS_HLO_MODULE) & 1
						       ? bref(ov[XS_HLO_MODULE].s, ov[XS_HLO_MODULE].n)
						       : in->module;
			int hp = (found >> XS_PROGRAM_ID) & 1 ? 1 : in->has_program;
			int64_t pid = (found >> XS_PROGRAM_ID) & 1 ? stat_as_int(&ov[XS_PROGRAM_ID])
								    : in->program_id;

			if (!cat.n)
				cat = category_from_name(name);
			o.slot = op_slot(lp, name, cat, mod, hp, pid);
		}
		if (lp->ops[o.slot].occurrences == 0 && !lp->ops[o.slot].cls) {
			int memcpy_op;
			struct op_acc *a = &lp->ops[o.slot];

			a->cls = (uint8_t)op_classify(a->name, a->category, bref_str(m->name),
						      bref_str(l->name), &memcpy_op);
			a->async = async_kind(a->name, a->category);
			a->attr = XT_ATTR_XLA_OP;
		}
		lp->cls[i] = lp->ops[o.slot].cls;
		o.has_flops = in->has_flops;
		o.flops = in->flops;
		if ((found >> XS_FLOPS) & 1) {
			o.has_flops = 1;
			o.flops = stat_as_double(&ov[XS_FLOPS]);
		}
		o.has_bytes = in->has_bytes;
		o.bytes = in->bytes;
		if ((found >> XS_BYTES_ACCESSED) & 1) {
			o.has_bytes = 1;
			o.bytes = stat_as_double(&ov[XS_BYTES_ACCESSED]);
		}
		o.has_hbm = in->has_hbm;
		o.hbm = in->hbm_bytes;
		if ((found >> XS_MEM_BREAKDOWN) & 1) {
			double hb = attr_hbm_bytes((const uint8_t *)ov[XS_MEM_BREAKDOWN].s,
						   ov[XS_MEM_BREAKDOWN].n);

			o.has_hbm = hb >= 0;
			o.hbm = hb;
		}
		o.dur = xt_event_dur(l, ev);
		o.end = xt_event_off(l, i) + o.dur;
		/* Close every open op that does not contain this one. */
		while (sp && o.end > stack[sp - 1].end)
			xla_close(lp, &stack[--sp]);
		if (sp)
			stack[sp - 1].child += o.dur;
		if (sp == cap) {
			cap = cap ? cap * 2 : 16;
			stack = xreallocarray(stack, cap, sizeof(*stack));
		}
		stack[sp++] = o;
		lp->op_events++;
	}
	while (sp)
		xla_close(lp, &stack[--sp]);
	free(stack);
}

/* The instruction name of an HLO text "%copy-start = (...) copy-start(...)". */
static struct bytes_ref hlo_text_name(const char *s)
{
	const char *e;

	if (*s == '%')
		s++;
	for (e = s; *e && *e != ' ' && *e != '='; e++)
		;
	return bref(s, (size_t)(e - s));
}

void ops_line_async(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		    const struct xt_line *l)
{
	const struct plane_ctx *pc = p->hook_data;
	size_t i;

	(void)h;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		uint32_t mi = xt_event_meta_index(ev);
		const struct emeta_info *in = &pc->info[mi];
		struct bytes_ref name = hlo_text_name(p->emeta[mi].name);
		char key[520];
		uint32_t *v;
		int ins;

		if (xt_event_aggregated(ev) || !name.n || name.n > 500)
			continue;
		memcpy(key, &in->program_id, 8);
		memcpy(key + 8, name.p, name.n);
		v = hmap_get(&lp->async_index, key, 8 + name.n, (uint32_t)lp->nasync, &ins);
		if (ins) {
			lp->async = xreallocarray(lp->async, lp->nasync + 1, sizeof(*lp->async));
			lp->async[lp->nasync++] = (struct async_acc){ 0, 0 };
		}
		lp->async[*v].count++;
		lp->async[*v].total_ps += xt_event_dur(l, ev);
	}
}

/* ---- GPU stream lines ---- */

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

		stat_collect(&ks, h, p, l, ev,
			     1ull << XS_HLO_OP | 1ull << XS_TF_OP | 1ull << XS_LEVEL0 |
				     1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID |
				     1ull << XS_HLO_CATEGORY);
		attr_gpu(&ga, host < a->nhlo ? &a->hlo[host] : NULL, p,
			 op_name_flags(bref_str(l->name)), ev, &ks);
		r = ga.name;
	}
	snprintf(buf, n, "%.*s", (int)r.n, r.p);
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
			    int *from_hlo, struct bytes_ref *name)
{
	struct gpu_attr ga;
	uint32_t slot;
	struct op_acc *a;

	attr_gpu(&ga, &pc->hc->hlo, p, line_flags, ev, ks);
	*name = ga.name;
	*from_hlo = ga.attr >= XT_ATTR_HLO_OP && ga.attr <= XT_ATTR_KERNEL_NAME_UNCHECKED;
	slot = op_slot_keyed(lp, ga.name, ga.category, ga.module, ga.has_program, ga.program_id,
			     ga.has_program_key, ga.program_id);
	a = &lp->ops[slot];
	if (a->occurrences == 0 && !a->attr) {
		a->attr = (uint8_t)ga.attr;
		a->parent = ga.parent;
		a->in_entry = (uint8_t)ga.in_entry;
		if (ga.attr == XT_ATTR_TF_OP || ga.attr == XT_ATTR_EVENT_NAME)
			a->in_entry = 0; /* not an XLA op: it never opens a run */
		if (ga.inst) {
			a->hlo_flops = ga.inst->flops;
			a->hlo_bytes = ga.inst->bytes;
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

/* Counts a launch of kernel metadata mi for op slot (kernels per op). */
static void op_kernel_add(struct line_part *lp, uint32_t *last, uint32_t slot, uint32_t mi,
			  int64_t dur)
{
	struct op_kernel *k;

	/* last[mi]: the entry of this kernel's previous launch (+1). */
	if (last[mi] && lp->opk[last[mi] - 1].slot == slot) {
		k = &lp->opk[last[mi] - 1];
	} else {
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
		last[mi] = *v + 1;
		k = &lp->opk[*v];
	}
	k->occurrences++;
	k->total_ps += dur;
}

void ops_line_stream(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l)
{
	uint64_t released = 0; /* source bytes given back (trace_release_before) */
	const struct plane_ctx *pc = p->hook_data;
	const uint64_t ident = 1ull << XS_HLO_OP | 1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID |
			       1ull << XS_TF_OP | 1ull << XS_HLO_CATEGORY | 1ull << XS_LEVEL0;
	const uint64_t want = ident | 1ull << XS_GROUP_ID | 1ull << XS_FLOPS |
			      1ull << XS_BYTES_ACCESSED | 1ull << XS_KERNEL_DETAILS;
	uint32_t prev_slot = UINT32_MAX, *last_k, occ_first = 0;
	unsigned line_flags = op_name_flags(bref_str(l->name));
	uint8_t *meta_flags;
	int64_t prev_group = 0;
	struct stat_want sw;
	struct ident *last;
	/* Every (kernel, event-level ident) seen -> its slot | from_hlo << 31:
	 * one kernel often runs for a dozen ops in turn (one per module in a
	 * JAX program), which the one-entry last[] misses every time. */
	struct hmap seen;
	size_t i;

	hmap_init(&seen);
	stat_want_init(&sw, p, want);
	lp->cls = xcalloc(l->nev ? l->nev : 1, 1);
	lp->meta_ks = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*lp->meta_ks));
	lp->slot_of_meta = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(uint32_t));
	/* The class depends on the op, the kernel name and the line name:
	 * each name is searched once (op_name_flags, 0x80 = known). */
	meta_flags = xcalloc(p->nemeta ? p->nemeta : 1, 1);
	last = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*last));
	last_k = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(uint32_t));
	lp->nmeta_ks = p->nemeta;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		uint32_t mi = xt_event_meta_index(ev);
		const struct xt_known_stats *mks = meta_stats(lp, h, p, mi, want);
		struct xt_known_stats ks;
		uint64_t found = 0;
		struct bytes_ref name;
		int64_t group = INT64_MIN, dur;
		int from_hlo, cont, memcpy_op;
		uint32_t slot;
		struct op_acc *a;
		unsigned k;

		if (!(i & 4095))
			trace_release_before(h, l, i, &released);
		if (xt_event_aggregated(ev))
			continue;
		if (sw.n)
			stat_scan_event(h, p, l, ev, &sw, ks.v, &found);
		ks.have = found;
		for (k = 1; k < XS_COUNT; k++)
			if (((mks->have & ~found) >> k) & 1) {
				ks.v[k] = mks->v[k];
				ks.have |= 1ull << k;
			}
		if (!(found & ident) && lp->slot_of_meta[mi]) {
			/* The op is fixed by the metadata alone: reuse its slot. */
			slot = lp->slot_of_meta[mi] - 1;
			from_hlo = lp->ops[slot].attr >= XT_ATTR_HLO_OP &&
				   lp->ops[slot].attr <= XT_ATTR_KERNEL_NAME_UNCHECKED;
			name = lp->ops[slot].name;
		} else if ((found & ident) && ident_same(&last[mi], &ks, found & ident)) {
			/* Same event-level identity as this kernel's last launch. */
			slot = last[mi].slot;
			from_hlo = last[mi].from_hlo;
			name = lp->ops[slot].name;
		} else {
			uint8_t kb[256];
			size_t kn = (found & ident) ? ident_key(kb, sizeof(kb), mi, &ks, found & ident) : 0;
			uint32_t *v = NULL;
			int ins = 1;

			if (kn)
				v = hmap_get(&seen, kb, kn, 0, &ins);
			if (!ins) {
				slot = *v & 0x7fffffffu;
				from_hlo = (int)(*v >> 31);
				name = lp->ops[slot].name;
			} else {
				slot = stream_slot(lp, pc, p, line_flags, ev, &ks, &from_hlo, &name);
				if (v)
					*v = slot | (uint32_t)(from_hlo ? 1u << 31 : 0);
			}
			if (!(found & ident)) {
				lp->slot_of_meta[mi] = slot + 1;
			} else {
				ident_keep(&last[mi], &ks, found & ident);
				last[mi].slot = slot;
				last[mi].from_hlo = (uint8_t)from_hlo;
			}
		}
		if (!meta_flags[mi])
			meta_flags[mi] = (uint8_t)(0x80 | op_name_flags(bref_str(p->emeta[mi].name)));
		/* name is the op's own name whichever way the slot was found */
		lp->cls[i] = (uint8_t)op_classify_flags(lp->ops[slot].name_flags,
							lp->ops[slot].cat_flags,
							meta_flags[mi] & 0x7f, line_flags, &memcpy_op);
		if (stat_has(&ks, XS_GROUP_ID))
			group = stat_as_int(&ks.v[XS_GROUP_ID]);
		a = &lp->ops[slot];
		/* Consecutive kernels of one XLA op in one step are one
		 * occurrence (a fusion launched as several kernels), unless the
		 * op's first kernel comes again (the op ran again); TF ops and
		 * plain kernels count every launch, as XProf does. */
		cont = from_hlo && slot == prev_slot && group == prev_group &&
		       strcmp(p->emeta[mi].name, p->emeta[occ_first].name);
		if (!cont)
			occ_first = mi;
		prev_slot = from_hlo ? slot : UINT32_MAX;
		prev_group = group;
		dur = xt_event_dur(l, ev);
		a->total_ps += dur;
		a->self_ps += dur;
		/* FLOPs and bytes are per occurrence: a fusion's later kernels
		 * repeat its first kernel's numbers. The event's own stats win
		 * over the cost model. */
		if (!cont) {
			a->occurrences++;
			if (stat_has(&ks, XS_FLOPS)) {
				a->flops += stat_as_double(&ks.v[XS_FLOPS]);
				a->n_flops++;
				a->cost_src |= XT_COST_PROFILE;
			} else if (a->hlo_flops >= 0) {
				a->flops += a->hlo_flops;
				a->n_flops++;
				a->cost_src |= XT_COST_HLO;
			}
			if (stat_has(&ks, XS_BYTES_ACCESSED)) {
				double b = stat_as_double(&ks.v[XS_BYTES_ACCESSED]);

				a->bytes += b;
				a->hbm_bytes += b;
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
		op_kernel_add(lp, last_k, slot, mi, dur);
		if (a->module.n || a->has_program)
			steps_run_add(lp, a->module, a->has_program ? a->program_id : 0, slot,
				      a->in_entry, xt_event_start(l, ev),
				      xt_event_end(l, ev));
		lp->op_events++;
		if (dur > 0 && stat_has(&ks, XS_KERNEL_DETAILS))
			kernels_event(lp, p, ev, dur, name, &ks.v[XS_KERNEL_DETAILS]);
	}
	hmap_fini(&seen);
	free(meta_flags);
	free(last);
	free(last_k);
}
