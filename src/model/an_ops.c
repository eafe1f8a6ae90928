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
	[XT_ATTR_KERNEL_ORDER] = "kernel_order",
	[XT_ATTR_UNRESOLVED] = "unresolved",
	[XT_ATTR_TF_OP] = "tf_op",
	[XT_ATTR_EVENT_NAME] = "event_name",
	[XT_ATTR_COPY_CALL] = "copy_call",
};

/*
 * Finds or adds the accumulator for an op key within one line. The key
 * includes the program id even where the row is named by module (GPU): two
 * programs of one module are different code with different costs.
 */
uint32_t op_slot_keyed(struct line_part *lp, struct bytes_ref name, struct bytes_ref cat,
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

/* HLO text [p, e) puts a value in host memory: memory space 5 (XLA's
 * kHostMemorySpace), written "S(5)" in a layout, before its end or the
 * optional SC(...), P(...) and M(...) parts. */
static int has_host_space(const char *p, const char *e)
{
	for (; (p = memmem(p, (size_t)(e - p), "S(5)", 4)) != NULL; p += 4)
		if (p + 4 < e && (p[4] == '}' || p[4] == 'S' || p[4] == 'P' || p[4] == 'M'))
			return 1;
	return 0;
}

/* The HLO text of an XLA Ops event (its metadata's name on TPU) puts an
 * operand or result in host memory. */
static uint8_t hlo_names_host_memory(const char *hlo)
{
	return (uint8_t)has_host_space(hlo, hlo + strlen(hlo));
}

/* The end of the shape or balanced group that starts at p, before e. */
static const char *hlo_skip(const char *p, const char *e)
{
	int depth = 0;

	for (; p < e; p++) {
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		else if (*p == ' ' && depth <= 0)
			break;
		if (depth < 0)
			break;
	}
	return p;
}

/* The way a host offload moves its bytes, from its HLO text "%x = SHAPE
 * opcode(OPERANDS), ...": EVC_D2H when the value lands in host memory,
 * EVC_H2D when it comes from there, 0 when neither or both (a computation
 * on the host) or the text does not parse. A copy-done's operand is its
 * start's (dest, src, ctx) tuple, which names host memory either way, so
 * only its result tells; a copy-start's result is that tuple, so only its
 * operand tells. A dynamic-update-slice into a host buffer (XLA's offload
 * of one slice a loop iteration) has the buffer as result and operand, so
 * its result tells too. The time the device spends in these ops is a wait
 * on the host link, which the step breakdown files as a transfer, not
 * compute. */
static uint8_t hlo_host_copy_class(const char *hlo)
{
	const char *e = hlo + strlen(hlo), *rs = strstr(hlo, " = "), *re, *op, *oe;
	int res, arg;

	if (!rs)
		return 0;
	rs += 3;
	re = hlo_skip(rs, e);
	if (re >= e)
		return 0;
	op = re + 1;
	oe = memchr(op, '(', (size_t)(e - op));
	if (!oe)
		return 0;
	res = has_host_space(rs, re);
	arg = has_host_space(oe, hlo_skip(oe, e));
	if ((size_t)(oe - op) == 10 && !memcmp(op, "copy-start", 10))
		return arg ? EVC_H2D : res ? EVC_D2H : 0;
	if (((size_t)(oe - op) == 9 && !memcmp(op, "copy-done", 9)) ||
	    ((size_t)(oe - op) == 20 && !memcmp(op, "dynamic-update-slice", 20)))
		return res ? EVC_D2H : arg ? EVC_H2D : 0;
	if (res != arg)
		return res ? EVC_D2H : EVC_H2D;
	return 0;
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
	a->total_ps = xt_sat_add(a->total_ps, o->dur);
	a->self_ps = xt_sat_add(a->self_ps, self);
	lp->self_sum_ps = xt_sat_add(lp->self_sum_ps, self);
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
			a->host_mem = hlo_names_host_memory(m->name);
			if (a->host_mem && a->cls == EVC_COMPUTE) {
				uint8_t c = hlo_host_copy_class(m->name);

				if (c)
					a->cls = c;
			}
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
		/* Saturated, not modulo: an end that wrapped would nest a
		 * child past INT64_MAX inside its parent, whose self time
		 * (dur - child) would go to -2^63. */
		o.end = xt_sat_add(xt_event_off(l, i), o.dur);
		/* Close every open op that does not contain this one. */
		while (sp && o.end > stack[sp - 1].end)
			xla_close(lp, &stack[--sp]);
		if (sp)
			stack[sp - 1].child = xt_sat_add(stack[sp - 1].child, o.dur);
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
		lp->async[*v].total_ps = xt_sat_add(lp->async[*v].total_ps, xt_event_dur(l, ev));
	}
}
