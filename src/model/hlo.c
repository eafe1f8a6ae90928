/*
 * hlo: decoding of xla.HloProto (see hlo.h). The cost model lives in
 * hlo_cost.c; this file only turns bytes into modules and indexes them.
 */
#include "hlo.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "wire.h"

/* Tuples nest; deeper shapes than this are treated as malformed. */
#define HLO_SHAPE_DEPTH 32

void hlo_cost_module(struct hlo_module *m);      /* hlo_cost.c */
void hlo_module_sequences(struct hlo_module *m); /* hlo_seq.c */

#define GROW(arr, n, cap)                                                         \
	do {                                                                      \
		if ((n) == (cap)) {                                               \
			(cap) = (cap) ? (cap) * 2 : 16;                           \
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr)));      \
		}                                                                 \
	} while (0)

void hlo_set_init(struct hlo_set *s)
{
	memset(s, 0, sizeof(*s));
	hmap_init(&s->by_program);
}

static void module_free(struct hlo_module *m)
{
	free(m->inst);
	free(m->comp);
	free(m->shapes);
	free(m->ints);
	free(m->win);
	free(m->seq);
	free(m->raw_seq);
	hmap_fini(&m->by_name);
	hmap_fini(&m->by_kernel);
	hmap_fini(&m->by_cid);
	hmap_fini(&m->comp_by_id);
	arena_fini(&m->arena);
	free(m);
}

void hlo_set_free(struct hlo_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		module_free(s->mods[i]);
	free(s->mods);
	hmap_fini(&s->by_program);
	memset(s, 0, sizeof(*s));
}

static const char *astr(struct hlo_module *m, const uint8_t *s, size_t n)
{
	return arena_strndup(&m->arena, (const char *)s, n);
}

/* Appends a repeated int64 field (packed or not) to the pool. */
static void ints_take(struct hlo_module *m, struct hlo_ints *l, struct wire *w, unsigned t)
{
	if (l->n == 0)
		l->at = (uint32_t)m->nints;
	if (l->at + l->n != m->nints) {
		/* The field is interleaved with another list: copy it to the end
		 * (rare; upstream writes each packed list once). */
		uint32_t k, at = (uint32_t)m->nints;

		for (k = 0; k < l->n; k++) {
			GROW(m->ints, m->nints, m->capints);
			m->ints[m->nints++] = m->ints[l->at + k];
		}
		l->at = at;
	}
	if (t == WIRE_VARINT) {
		GROW(m->ints, m->nints, m->capints);
		m->ints[m->nints++] = (int64_t)wire_varint(w);
		l->n++;
	} else if (t == WIRE_LEN) {
		size_t n;
		const uint8_t *p = wire_bytes(w, &n);
		struct wire e;

		wire_init(&e, p, n);
		while (wire_more(&e)) {
			int64_t v = (int64_t)wire_varint(&e);

			if (e.bad)
				break;
			GROW(m->ints, m->nints, m->capints);
			m->ints[m->nints++] = v;
			l->n++;
		}
		if (e.bad)
			w->bad = 1;
	} else {
		wire_skip(w, t);
	}
}

static int type_bits(int32_t t)
{
	switch (t) {
	case 30: case 31: /* S1 U1 */
		return 1;
	case 26: case 27: /* S2 U2 */
		return 2;
	case 21: case 22: case 32: /* S4 U4 F4E2M1FN: one byte each unless packed */
		return 8;
	case 1: case 2: case 6: /* PRED S8 U8 */
	case 19: case 20: case 23: case 24: case 25: case 28: case 29: case 33: /* F8 types */
		return 8;
	case 3: case 7: case 10: case 16: /* S16 U16 F16 BF16 */
		return 16;
	case 4: case 8: case 11: /* S32 U32 F32 */
		return 32;
	case 5: case 9: case 12: case 15: /* S64 U64 F64 C64 */
		return 64;
	case 18: /* C128 */
		return 128;
	default:
		return 0; /* tuple, token, opaque, invalid */
	}
}

/* Decodes a ShapeProto into m->shapes; returns its index or -1. */
static long shape_read(struct hlo_module *m, const uint8_t *b, size_t n, int depth)
{
	struct wire w;
	struct hlo_shape s;
	uint32_t kids[64];
	size_t nk = 0, at, k;
	uint32_t *more = NULL;
	size_t nmore = 0, capmore = 0;
	int layout_bits = 0;

	if (depth > HLO_SHAPE_DEPTH)
		return -1;
	memset(&s, 0, sizeof(s));
	s.elements = 1;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 2 && t == WIRE_VARINT) {
			s.type = (int32_t)wire_varint(&w);
		} else if (f == 3) {
			struct hlo_ints l = { 0, 0 };
			size_t mark = m->nints;
			uint32_t i;

			ints_take(m, &l, &w, t);
			for (i = 0; i < l.n; i++) {
				int64_t d = m->ints[l.at + i];

				if (s.rank < XT_HLO_MAX_RANK)
					s.dims[s.rank] = d;
				s.rank++;
				s.elements *= d > 0 ? (double)d : 0.0;
			}
			m->nints = mark; /* dims live in the shape itself */
		} else if (f == 4 && t == WIRE_LEN) {
			size_t cn;
			const uint8_t *c = wire_bytes(&w, &cn);
			long ci;

			if (w.bad)
				break;
			ci = shape_read(m, c, cn, depth + 1);
			if (ci < 0) {
				free(more);
				return -1;
			}
			if (nk < 64) {
				kids[nk++] = (uint32_t)ci;
			} else {
				GROW(more, nmore, capmore);
				more[nmore++] = (uint32_t)ci;
			}
		} else if (f == 5 && t == WIRE_LEN) {
			size_t ln;
			const uint8_t *lb = wire_bytes(&w, &ln);
			struct wire lw;

			wire_init(&lw, lb, ln);
			while (wire_more(&lw)) {
				uint32_t lf;
				unsigned lt = wire_tag(&lw, &lf);

				if (lf == 7 && lt == WIRE_VARINT)
					layout_bits = (int)wire_varint(&lw);
				else
					wire_skip(&lw, lt);
			}
			if (lw.bad)
				w.bad = 1;
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad) {
		free(more);
		return -1;
	}
	if (s.rank > XT_HLO_MAX_RANK)
		s.rank = XT_HLO_MAX_RANK;
	s.elem_bits = layout_bits > 0 && layout_bits <= 128 ? layout_bits : type_bits(s.type);
	if (s.type == HLO_TUPLE || s.type == HLO_BUFFER || nk > 0) {
		/* Children are written contiguously after this point. */
		s.child0 = (uint32_t)m->nshapes;
		s.nchild = (uint32_t)(nk + nmore);
		s.elements = 0;
	} else {
		s.bytes = s.elem_bits >= 8 ? s.elements * (double)(s.elem_bits / 8)
					   : (s.elements * s.elem_bits + 7) / 8;
		if (s.type == HLO_TOKEN || s.type == HLO_OPAQUE || s.elem_bits == 0) {
			s.elements = 0;
			s.bytes = 0;
		}
	}
	/* Copy the children next to each other so that a tuple is a range. */
	for (k = 0; k < nk + nmore; k++) {
		struct hlo_shape c = m->shapes[k < nk ? kids[k] : more[k - nk]];

		GROW(m->shapes, m->nshapes, m->capshapes);
		m->shapes[m->nshapes++] = c;
		s.bytes += c.bytes;
	}
	free(more);
	if (s.type == HLO_BUFFER && s.nchild) {
		/* A buffer shape wraps its array: behave as that array. */
		struct hlo_shape c = m->shapes[s.child0];

		s = c;
	}
	at = m->nshapes;
	GROW(m->shapes, m->nshapes, m->capshapes);
	m->shapes[m->nshapes++] = s;
	return (long)at;
}

static void window_read(struct hlo_module *m, struct hlo_inst *in, const uint8_t *b, size_t n,
			struct wire *outer)
{
	struct wire w;

	wire_init(&w, b, n);
	in->win0 = (uint32_t)m->nwin;
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_LEN) {
			size_t dn;
			const uint8_t *d = wire_bytes(&w, &dn);
			struct hlo_window_dim wd = { 0, 1, 0, 0, 1, 1 };
			struct wire dw;

			wire_init(&dw, d, dn);
			while (wire_more(&dw)) {
				uint32_t df;
				unsigned dt = wire_tag(&dw, &df);
				int64_t v;

				if (dt != WIRE_VARINT) {
					wire_skip(&dw, dt);
					continue;
				}
				v = (int64_t)wire_varint(&dw);
				switch (df) {
				case 1: wd.size = v; break;
				case 2: wd.stride = v ? v : 1; break;
				case 3: wd.pad_lo = v; break;
				case 4: wd.pad_hi = v; break;
				case 5: wd.window_dil = v ? v : 1; break;
				case 6: wd.base_dil = v ? v : 1; break;
				default: break;
				}
			}
			if (dw.bad)
				w.bad = 1;
			GROW(m->win, m->nwin, m->capwin);
			m->win[m->nwin++] = wd;
			in->nwin++;
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		outer->bad = 1;
}

static void conv_dims_read(struct hlo_module *m, struct hlo_inst *in, const uint8_t *b, size_t n,
			   struct wire *outer)
{
	struct wire w;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (t == WIRE_VARINT && (f == 7 || f == 8 || f == 10)) {
			int64_t v = (int64_t)wire_varint(&w);

			if (f == 7)
				in->in_batch_dim = v;
			else if (f == 8)
				in->in_feature_dim = v;
			else
				in->out_feature_dim = v;
		} else if (f == 11) {
			ints_take(m, &in->in_spatial, &w, t);
		} else if (f == 6) {
			ints_take(m, &in->kernel_spatial, &w, t);
		} else if (f == 12) {
			ints_take(m, &in->out_spatial, &w, t);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		outer->bad = 1;
}

static void dot_dims_read(struct hlo_module *m, struct hlo_inst *in, const uint8_t *b, size_t n,
			  struct wire *outer)
{
	struct wire w;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1)
			ints_take(m, &in->lhs_contract, &w, t);
		else if (f == 3)
			ints_take(m, &in->lhs_batch, &w, t);
		else
			wire_skip(&w, t);
	}
	if (w.bad)
		outer->bad = 1;
}

static int inst_read(struct hlo_module *m, uint32_t comp, const uint8_t *b, size_t n)
{
	struct wire w;
	struct hlo_inst in;
	long sh = -1;

	memset(&in, 0, sizeof(in));
	in.name = in.opcode = in.custom_call_target = in.backend_config = in.fusion_kind =
		in.op_name = "";
	in.feature_group_count = in.batch_group_count = 1;
	in.comp = comp;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		const uint8_t *s;
		size_t sn;

		if (t == WIRE_LEN && (f == 1 || f == 2 || f == 11 || f == 28 || f == 43)) {
			s = wire_bytes(&w, &sn);
			if (w.bad)
				break;
			if (f == 1)
				in.name = astr(m, s, sn);
			else if (f == 2)
				in.opcode = astr(m, s, sn);
			else if (f == 11)
				in.fusion_kind = astr(m, s, sn);
			else if (f == 28)
				in.custom_call_target = astr(m, s, sn);
			else {
				in.backend_config = astr(m, s, sn);
				in.backend_config_len = sn;
			}
		} else if (f == 3 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (w.bad || (sh = shape_read(m, s, sn, 0)) < 0)
				return -1;
		} else if (f == 7 && t == WIRE_LEN) {
			struct wire mw;

			s = wire_bytes(&w, &sn);
			wire_init(&mw, s, sn);
			while (wire_more(&mw)) {
				uint32_t mf;
				unsigned mt = wire_tag(&mw, &mf);

				if (mf == 2 && mt == WIRE_LEN) {
					size_t on;
					const uint8_t *o = wire_bytes(&mw, &on);

					if (!mw.bad)
						in.op_name = astr(m, o, on);
				} else {
					wire_skip(&mw, mt);
				}
			}
			if (mw.bad)
				w.bad = 1;
		} else if (f == 15 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad)
				window_read(m, &in, s, sn, &w);
		} else if (f == 16 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad)
				conv_dims_read(m, &in, s, sn, &w);
		} else if (f == 30 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad)
				dot_dims_read(m, &in, s, sn, &w);
		} else if (t == WIRE_VARINT && (f == 35 || f == 50 || f == 58)) {
			int64_t v = (int64_t)wire_varint(&w);

			if (f == 35)
				in.id = v;
			else if (f == 50)
				in.feature_group_count = v > 0 ? v : 1;
			else
				in.batch_group_count = v > 0 ? v : 1;
		} else if (f == 36) {
			ints_take(m, &in.operands, &w, t);
		} else if (f == 38) {
			ints_take(m, &in.called, &w, t);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		return -1;
	if (sh < 0) {
		/* No shape: an empty tuple. */
		struct hlo_shape e;

		memset(&e, 0, sizeof(e));
		e.type = HLO_TUPLE;
		GROW(m->shapes, m->nshapes, m->capshapes);
		sh = (long)m->nshapes;
		m->shapes[m->nshapes++] = e;
	}
	in.shape = (uint32_t)sh;
	GROW(m->inst, m->ninst, m->capinst);
	m->inst[m->ninst++] = in;
	return 0;
}

static int comp_read(struct hlo_module *m, const uint8_t *b, size_t n)
{
	struct wire w;
	struct hlo_comp c;

	memset(&c, 0, sizeof(c));
	c.name = "";

	c.first = (uint32_t)m->ninst;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_LEN) {
			size_t sn;
			const uint8_t *s = wire_bytes(&w, &sn);

			if (!w.bad)
				c.name = astr(m, s, sn);
		} else if (f == 2 && t == WIRE_LEN) {
			size_t sn;
			const uint8_t *s = wire_bytes(&w, &sn);

			if (w.bad || inst_read(m, (uint32_t)m->ncomp, s, sn) < 0)
				return -1;
		} else if (f == 5 && t == WIRE_VARINT) {
			c.id = (int64_t)wire_varint(&w);
		} else if (f == 6 && t == WIRE_VARINT) {
			c.root_id = (int64_t)wire_varint(&w);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		return -1;
	c.n = (uint32_t)(m->ninst - c.first);
	GROW(m->comp, m->ncomp, m->capcomp);
	m->comp[m->ncomp++] = c;
	return 0;
}

/* HloScheduleProto { map<int64, InstructionSequence> sequences = 1; } with
 * InstructionSequence { repeated int64 instruction_ids = 1; }: kept raw
 * until the computations are indexed (module_sequences). */
static int schedule_read(struct hlo_module *m, const uint8_t *b, size_t n)
{
	struct wire w;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		struct hlo_raw_seq rs = { 0, { 0, 0 } };
		struct wire e;
		size_t en;
		const uint8_t *ep;

		if (f != 1 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		ep = wire_bytes(&w, &en);
		if (w.bad)
			break;
		wire_init(&e, ep, en);
		while (wire_more(&e)) {
			uint32_t ef;
			unsigned et = wire_tag(&e, &ef);

			if (ef == 1 && et == WIRE_VARINT) {
				rs.comp_id = (int64_t)wire_varint(&e);
			} else if (ef == 2 && et == WIRE_LEN) {
				size_t sn;
				const uint8_t *sp = wire_bytes(&e, &sn);
				struct wire q;

				if (e.bad)
					break;
				wire_init(&q, sp, sn);
				while (wire_more(&q)) {
					uint32_t qf;
					unsigned qt = wire_tag(&q, &qf);

					if (qf == 1)
						ints_take(m, &rs.ids, &q, qt);
					else
						wire_skip(&q, qt);
				}
				if (q.bad)
					e.bad = 1;
			} else {
				wire_skip(&e, et);
			}
		}
		if (e.bad)
			return -1;
		GROW(m->raw_seq, m->nraw_seq, m->capraw_seq);
		m->raw_seq[m->nraw_seq++] = rs;
	}
	return w.bad ? -1 : 0;
}

static int module_read(struct hlo_module *m, const uint8_t *b, size_t n)
{
	struct wire w;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_LEN) {
			size_t sn;
			const uint8_t *s = wire_bytes(&w, &sn);

			if (!w.bad)
				m->name = astr(m, s, sn);
		} else if (f == 3 && t == WIRE_LEN) {
			size_t sn;
			const uint8_t *s = wire_bytes(&w, &sn);

			if (w.bad || comp_read(m, s, sn) < 0)
				return -1;
		} else if (f == 6 && t == WIRE_VARINT) {
			m->entry_id = (int64_t)wire_varint(&w);
		} else if (f == 7 && t == WIRE_LEN) {
			size_t sn;
			const uint8_t *s = wire_bytes(&w, &sn);

			/* A schedule that does not decode only costs the
			 * order-based attribution (an_cmdbuf.c). */
			if (!w.bad && schedule_read(m, s, sn) < 0)
				m->nraw_seq = 0;
		} else {
			wire_skip(&w, t);
		}
	}
	return w.bad ? -1 : 0;
}

/* Kernel-style spelling of an instruction name (see hlo_find_kernel). */
static size_t kernel_key(const char *s, size_t n, char *out, size_t cap)
{
	size_t i, k = 0;

	if (n >= 3 && !memcmp(s + n - 3, ".kd", 3))
		n -= 3;
	for (i = 0; i < n && k < cap; i++) {
		char c = s[i];

		out[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9') || c == '_'
			   ? c
			   : '_';
	}
	return k;
}

/* Marks computation c and everything it calls as running in a loop. */
static void mark_loop(struct hlo_module *m, uint32_t c, int depth)
{
	uint32_t i, k;

	if (m->comp[c].in_loop || depth > 64)
		return;
	m->comp[c].in_loop = 1;
	for (i = 0; i < m->comp[c].n; i++) {
		const struct hlo_inst *in = &m->inst[m->comp[c].first + i];

		for (k = 0; k < in->called.n; k++) {
			const uint32_t *v = hmap_find(&m->comp_by_id, &m->ints[in->called.at + k],
						      sizeof(int64_t));

			if (v)
				mark_loop(m, *v, depth + 1);
		}
	}
}

static void module_loops(struct hlo_module *m)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < m->ninst; i++) {
		const struct hlo_inst *in = &m->inst[i];

		if (strcmp(in->opcode, "while"))
			continue;
		for (k = 0; k < in->called.n; k++) {
			const uint32_t *v = hmap_find(&m->comp_by_id, &m->ints[in->called.at + k],
						      sizeof(int64_t));

			if (v)
				mark_loop(m, *v, 0);
		}
	}
}

static void module_index(struct hlo_module *m)
{
	size_t i;
	char buf[512];

	hmap_init(&m->by_name);
	hmap_init(&m->by_kernel);
	hmap_init(&m->by_cid);
	hmap_init(&m->comp_by_id);
	for (i = 0; i < m->ncomp; i++) {
		int ins;

		*hmap_get(&m->comp_by_id, &m->comp[i].id, sizeof(int64_t), (uint32_t)i, &ins) =
			(uint32_t)i;
	}
	for (i = 0; i < m->ninst; i++) {
		const struct hlo_inst *in = &m->inst[i];
		int64_t key[2] = { (int64_t)in->comp, in->id };
		size_t kn = kernel_key(in->name, strlen(in->name), buf, sizeof(buf));
		uint32_t *v;
		int ins;

		*hmap_get(&m->by_cid, key, sizeof(key), (uint32_t)i, &ins) = (uint32_t)i;
		(void)hmap_get(&m->by_name, in->name, strlen(in->name), (uint32_t)i, &ins);
		v = hmap_get(&m->by_kernel, buf, kn, (uint32_t)i, &ins);
		if (!ins && *v != i)
			*v = UINT32_MAX; /* two names spell the same kernel */
	}
}

int hlo_set_add(struct hlo_set *s, uint64_t program_id, const uint8_t *b, size_t n)
{
	struct hlo_module *m = xcalloc(1, sizeof(*m));
	struct wire w;
	const uint8_t *mod = NULL;
	size_t modn = 0;
	int ins;

	arena_init(&m->arena);
	m->name = "";
	m->program_id = program_id;
	/* HloProto { HloModuleProto hlo_module = 1; ... } */
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_LEN)
			mod = wire_bytes(&w, &modn);
		else
			wire_skip(&w, t);
	}
	if (w.bad || !mod || module_read(m, mod, modn) < 0) {
		module_free(m);
		s->failed++;
		return -1;
	}
	module_index(m);
	hlo_module_sequences(m);
	module_loops(m);
	hlo_cost_module(m);
	(void)hmap_get(&s->by_program, &program_id, sizeof(program_id), (uint32_t)s->n, &ins);
	if (!ins) {
		/* A program listed twice: keep the first. */
		module_free(m);
		return 0;
	}
	s->mods = xreallocarray(s->mods, s->n + 1, sizeof(*s->mods));
	s->mods[s->n++] = m;
	return 0;
}

const struct hlo_module *hlo_set_find(const struct hlo_set *s, uint64_t program_id)
{
	const uint32_t *v = hmap_find(&s->by_program, &program_id, sizeof(program_id));

	return v ? s->mods[*v] : NULL;
}

const struct hlo_module *hlo_set_find_name(const struct hlo_set *s, const char *name, size_t n)
{
	const struct hlo_module *found = NULL;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strlen(s->mods[i]->name) != n || memcmp(s->mods[i]->name, name, n))
			continue;
		if (found)
			return NULL;
		found = s->mods[i];
	}
	return found;
}

const struct hlo_inst *hlo_find(const struct hlo_module *m, const char *name, size_t n)
{
	const uint32_t *v = hmap_find(&m->by_name, name, n);

	return v ? &m->inst[*v] : NULL;
}

const struct hlo_inst *hlo_find_kernel(const struct hlo_module *m, const char *kernel, size_t n)
{
	char buf[512];
	size_t kn = kernel_key(kernel, n, buf, sizeof(buf));
	const uint32_t *v;

	if (n > sizeof(buf))
		return NULL;
	v = hmap_find(&m->by_kernel, buf, kn);
	return v && *v != UINT32_MAX ? &m->inst[*v] : NULL;
}

int hlo_is_command_buffer(const struct hlo_module *m, const struct hlo_inst *inst)
{
	uint32_t i;

	if (!strncmp(inst->name, "command_buffer", 14))
		return 1;
	for (i = 0; i < inst->called.n; i++) {
		const uint32_t *c = hmap_find(&m->comp_by_id, &m->ints[inst->called.at + i],
					      sizeof(int64_t));

		if (c && !strncmp(m->comp[*c].name, "command_buffer", 14))
			return 1;
	}
	return 0;
}
