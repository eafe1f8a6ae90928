/*
 * an_ops: the op profile (docs/analyses.md, "Op profile"). Each op line is
 * reduced to a small table of per-op accumulators while its bytes are hot;
 * ops_merge() then joins the tables of all lines, devices and hosts by
 * (program, name).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

/* Finds or adds the accumulator for an op key within one line. */
static uint32_t op_slot(struct line_part *lp, struct bytes_ref name, struct bytes_ref cat,
			struct bytes_ref module, int has_prog, int64_t prog)
{
	char stackbuf[512];
	size_t n = 1 + 8 + module.n + 1 + name.n + 1 + cat.n;
	char *k = n <= sizeof(stackbuf) ? stackbuf : xmalloc(n);
	size_t o = 0;
	uint32_t *v;
	int inserted;

	k[o++] = has_prog ? 'P' : '-';
	memcpy(k + o, &prog, 8);
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
		a->program_id = prog;
		a->has_program = (uint8_t)has_prog;
	}
	return *v;
}

struct xla_open {
	int64_t end, dur, child;
	uint32_t slot;
	double flops, bytes;
	uint8_t has_flops, has_bytes;
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
		a->has_flops = 1;
	}
	if (o->has_bytes) {
		a->bytes += o->bytes;
		a->has_bytes = 1;
	}
}

void ops_line_xla(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		  const struct xt_line *l)
{
	const struct plane_ctx *pc = p->hook_data;
	struct xla_open *stack = NULL;
	size_t sp = 0, cap = 0, i;
	const uint64_t want = 1ull << XS_PROGRAM_ID | 1ull << XS_HLO_CATEGORY |
			      1ull << XS_HLO_MODULE | 1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED;
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
			const struct op_acc *a = &lp->ops[o.slot];

			lp->ops[o.slot].cls = (uint8_t)op_classify(a->name, a->category,
								   bref_str(m->name),
								   bref_str(l->name), &memcpy_op);
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
		o.dur = ev->dur_ps;
		o.end = ev->off_ps + ev->dur_ps;
		/* Close every open op that does not contain this one. */
		while (sp && o.end > stack[sp - 1].end)
			xla_close(lp, &stack[--sp]);
		if (sp)
			stack[sp - 1].child += ev->dur_ps;
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


/* Last element of a "::"-separated annotation stack. */
static struct bytes_ref last_scope(struct bytes_ref r)
{
	size_t i;

	for (i = r.n; i >= 2; i--)
		if (r.p[i - 1] == ':' && r.p[i - 2] == ':')
			return bref(r.p + i, r.n - i);
	return r;
}

const char *analysis_op_name(const struct xt_host *h, const struct xt_plane *p,
			     const struct xt_line *l, const struct xt_event *ev, char *buf, size_t n)
{
	struct xt_known_stats ks;
	struct bytes_ref r = bref_str(trace_event_display_name(p, ev));

	/* The same precedence as ops_line_stream(); XLA ops carry a tf_op
	 * too, but the profile names them by their display name. */
	if (!strncmp(p->name, "/device:GPU:", 12)) {
		stat_collect(&ks, h, p, l, ev, 1ull << XS_HLO_OP | 1ull << XS_TF_OP);
		if (stat_has(&ks, XS_HLO_OP) && ks.v[XS_HLO_OP].n)
			r = last_scope(bref(ks.v[XS_HLO_OP].s, ks.v[XS_HLO_OP].n));
		else if (stat_has(&ks, XS_TF_OP) && ks.v[XS_TF_OP].n)
			r = bref(ks.v[XS_TF_OP].s, ks.v[XS_TF_OP].n);
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

/* Op key of a GPU event from its stats (event first, then metadata). */
static uint32_t stream_slot(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
			    const struct xt_event *ev, const struct xt_known_stats *ks,
			    int *from_hlo, struct bytes_ref *name)
{
	const struct xt_event_meta *m = xt_event_meta(p, ev);
	struct bytes_ref cat, mod = { "", 0 };
	int64_t prog = 0;
	int has_prog = 0, memcpy_op, tf = 0;

	*from_hlo = 0;
	if (stat_has(ks, XS_HLO_OP) && ks->v[XS_HLO_OP].n) {
		*name = last_scope(bref(ks->v[XS_HLO_OP].s, ks->v[XS_HLO_OP].n));
		*from_hlo = 1;
	} else if (stat_has(ks, XS_TF_OP) && ks->v[XS_TF_OP].n) {
		*name = bref(ks->v[XS_TF_OP].s, ks->v[XS_TF_OP].n);
		tf = 1;
	} else {
		*name = bref_str(trace_event_display_name(p, ev));
	}
	/* Category: hlo_category, else memcpy, else the TF op type, else the
	 * name without its numeric suffix. */
	(void)op_classify(*name, bref(NULL, 0), bref_str(m->name), bref_str(l->name), &memcpy_op);
	if (stat_has(ks, XS_HLO_CATEGORY) && ks->v[XS_HLO_CATEGORY].n) {
		cat = bref(ks->v[XS_HLO_CATEGORY].s, ks->v[XS_HLO_CATEGORY].n);
	} else if (memcpy_op) {
		cat = bref("memcpy", 6);
	} else if (tf) {
		const char *c = memrchr(name->p, ':', name->n);

		cat = c && c + 1 < name->p + name->n
			      ? bref(c + 1, name->n - (size_t)(c + 1 - name->p))
			      : category_from_name(*name);
	} else {
		cat = category_from_name(*name);
	}
	if (stat_has(ks, XS_HLO_MODULE))
		mod = bref(ks->v[XS_HLO_MODULE].s, ks->v[XS_HLO_MODULE].n);
	/* GPUs name the program by hlo_module first (one module may be
	 * compiled under several program ids). */
	if (stat_has(ks, XS_PROGRAM_ID) && !mod.n) {
		has_prog = 1;
		prog = stat_as_int(&ks->v[XS_PROGRAM_ID]);
	}
	return op_slot(lp, *name, cat, mod, has_prog, prog);
}

/* The event-level stats that decide a GPU event's op, remembered per kernel
 * metadata: consecutive launches of one kernel nearly always name the same
 * op, so comparing a few short values replaces hashing and classifying. */
static const unsigned ident_stats[] = { XS_HLO_OP, XS_HLO_MODULE, XS_PROGRAM_ID, XS_TF_OP,
					XS_HLO_CATEGORY };
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

void ops_line_stream(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l)
{
	const uint64_t ident = 1ull << XS_HLO_OP | 1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID |
			       1ull << XS_TF_OP | 1ull << XS_HLO_CATEGORY;
	const uint64_t want = ident | 1ull << XS_GROUP_ID | 1ull << XS_FLOPS |
			      1ull << XS_BYTES_ACCESSED | 1ull << XS_KERNEL_DETAILS;
	uint32_t prev_slot = UINT32_MAX, *meta_cls;
	int64_t prev_group = 0;
	struct stat_want sw;
	struct ident *last;
	size_t i;

	stat_want_init(&sw, p, want);
	lp->cls = xcalloc(l->nev ? l->nev : 1, 1);
	lp->meta_ks = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*lp->meta_ks));
	lp->slot_of_meta = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(uint32_t));
	/* Last (slot + 1, class) per metadata: the class depends on the op and
	 * the kernel name, and one kernel nearly always serves one op. */
	meta_cls = xcalloc(p->nemeta ? 2 * p->nemeta : 2, sizeof(uint32_t));
	last = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*last));
	lp->nmeta_ks = p->nemeta;
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		uint32_t mi = xt_event_meta_index(ev);
		const struct xt_known_stats *mks = meta_stats(lp, h, p, mi, want);
		struct xt_known_stats ks;
		uint64_t found = 0;
		struct bytes_ref name;
		int64_t group = INT64_MIN;
		int from_hlo, cont, memcpy_op;
		uint32_t slot;
		struct op_acc *a;
		unsigned k;

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
			from_hlo = stat_has(&ks, XS_HLO_OP) && ks.v[XS_HLO_OP].n;
			name = lp->ops[slot].name;
		} else if ((found & ident) && ident_same(&last[mi], &ks, found & ident)) {
			/* Same event-level identity as this kernel's last launch. */
			slot = last[mi].slot;
			from_hlo = last[mi].from_hlo;
			name = lp->ops[slot].name;
		} else {
			slot = stream_slot(lp, p, l, ev, &ks, &from_hlo, &name);
			if (!(found & ident)) {
				lp->slot_of_meta[mi] = slot + 1;
			} else {
				ident_keep(&last[mi], &ks, found & ident);
				last[mi].slot = slot;
				last[mi].from_hlo = (uint8_t)from_hlo;
			}
		}
		if (meta_cls[2 * mi] != slot + 1) {
			meta_cls[2 * mi] = slot + 1;
			meta_cls[2 * mi + 1] = (uint32_t)op_classify(
				name, lp->ops[slot].category, bref_str(p->emeta[mi].name),
				bref_str(l->name), &memcpy_op);
		}
		lp->cls[i] = (uint8_t)meta_cls[2 * mi + 1];
		if (stat_has(&ks, XS_GROUP_ID))
			group = stat_as_int(&ks.v[XS_GROUP_ID]);
		a = &lp->ops[slot];
		/* Consecutive kernels of one XLA op in one step are one
		 * occurrence (a fusion launched as several kernels); TF ops and
		 * plain kernels count every launch, as XProf does. */
		cont = from_hlo && slot == prev_slot && group == prev_group;
		if (!cont)
			a->occurrences++;
		prev_slot = from_hlo ? slot : UINT32_MAX;
		prev_group = group;
		a->total_ps += ev->dur_ps;
		a->self_ps += ev->dur_ps;
		/* FLOPs and bytes are per occurrence: a fusion's later kernels
		 * repeat its first kernel's numbers. */
		if (!cont && stat_has(&ks, XS_FLOPS)) {
			a->flops += stat_as_double(&ks.v[XS_FLOPS]);
			a->has_flops = 1;
		}
		if (!cont && stat_has(&ks, XS_BYTES_ACCESSED)) {
			a->bytes += stat_as_double(&ks.v[XS_BYTES_ACCESSED]);
			a->has_bytes = 1;
		}
		lp->op_events++;
		if (ev->dur_ps > 0 && stat_has(&ks, XS_KERNEL_DETAILS))
			kernels_event(lp, p, ev, name, &ks.v[XS_KERNEL_DETAILS]);
	}
	free(meta_cls);
	free(last);
}

/* program_id -> module name, from /host:metadata names "module(id)". */
static void program_names(struct hmap *m, const struct xt_host *h)
{
	size_t p, i;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strcmp(pl->name, "/host:metadata"))
			continue;
		for (i = 1; i < pl->nemeta; i++) {
			const char *n = pl->emeta[i].name, *open;
			size_t len = strlen(n);
			char *end;
			int64_t id;
			int ins;

			if (len < 3 || n[len - 1] != ')' || !(open = strrchr(n, '(')) ||
			    open[1] < '0' || open[1] > '9')
				continue;
			/* Program ids are unsigned 64-bit fingerprints. */
			id = (int64_t)strtoull(open + 1, &end, 10);
			if (end != n + len - 1 || end == open + 1)
				continue;
			*hmap_get(m, &id, sizeof(id), i, &ins) = (uint32_t)i;
			(void)ins;
		}
		return;
	}
}

static const char *program_string(struct xt_analysis *a, const struct hmap *pmap,
				  const struct xt_plane *meta_plane, const struct op_acc *o)
{
	char buf[32];

	if (o->has_program && meta_plane) {
		int64_t id = o->program_id;
		const uint32_t *v = hmap_find(pmap, &id, sizeof(id));

		if (v) {
			const char *n = meta_plane->emeta[*v].name;

			return arena_strndup(&a->arena, n, (size_t)(strrchr(n, '(') - n));
		}
	}
	if (o->module.n)
		return arena_bref(&a->arena, o->module);
	if (o->has_program) {
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)o->program_id);
		return arena_strndup(&a->arena, buf, strlen(buf));
	}
	return "";
}

static int op_row_cmp(const void *x, const void *y)
{
	const struct xt_op_row *a = x, *b = y;
	int c;

	if (a->self_ps != b->self_ps)
		return a->self_ps > b->self_ps ? -1 : 1;
	if (a->total_ps != b->total_ps)
		return a->total_ps > b->total_ps ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->program, b->program);
}

void ops_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct hmap rows;
	struct strbuf key;
	size_t cap = 0, h, p, l, i;

	hmap_init(&rows);
	strbuf_init(&key);
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];
		const struct xt_plane *meta = NULL;
		struct hmap pmap;

		hmap_init(&pmap);
		program_names(&pmap, host);
		for (p = 0; p < host->nplanes; p++)
			if (!strcmp(host->planes[p].name, "/host:metadata"))
				meta = &host->planes[p];
		for (p = 0; p < host->nplanes; p++) {
			const struct xt_plane *pl = &host->planes[p];

			for (l = 0; l < pl->nlines; l++) {
				const struct line_part *lp = pl->lines[l].hook_data;

				if (!lp || (lp->role != LROLE_XLA_OPS && lp->role != LROLE_STREAM))
					continue;
				for (i = 0; i < lp->nops; i++) {
					const struct op_acc *o = &lp->ops[i];
					const char *prog = program_string(a, &pmap, meta, o);
					struct xt_op_row *r;
					uint32_t *v;
					int ins;

					strbuf_reset(&key);
					strbuf_puts(&key, prog);
					strbuf_add(&key, "", 1);
					strbuf_add(&key, o->name.p, o->name.n);
					v = hmap_get(&rows, key.buf, key.len, (uint32_t)a->nops, &ins);
					if (ins) {
						if (a->nops == cap) {
							cap = cap ? cap * 2 : 64;
							a->ops = xreallocarray(a->ops, cap, sizeof(*a->ops));
						}
						r = &a->ops[a->nops++];
						memset(r, 0, sizeof(*r));
						r->name = arena_bref(&a->arena, o->name);
						r->program = prog;
						r->category = arena_bref(&a->arena, o->category);
					}
					r = &a->ops[*v];
					r->occurrences += o->occurrences;
					r->self_ps += o->self_ps;
					r->total_ps += o->total_ps;
					r->flops += o->flops;
					r->bytes_accessed += o->bytes;
					r->has_flops |= o->has_flops;
					r->has_bytes |= o->has_bytes;
				}
			}
		}
		hmap_fini(&pmap);
	}
	for (i = 0; i < a->nops; i++)
		a->ops[i].percent = a->busy_ps > 0 ? 100.0 * (double)a->ops[i].self_ps /
							     (double)a->busy_ps
						   : 0.0;
	if (a->nops > 1)
		qsort(a->ops, a->nops, sizeof(*a->ops), op_row_cmp);
	strbuf_fini(&key);
	hmap_fini(&rows);
}
