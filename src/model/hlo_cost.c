/*
 * hlo_cost: FLOPs and bytes of each HLO instruction, estimated from shapes
 * the way XLA's HloCostAnalysis does (docs/analyses.md, "FLOPs and bytes"):
 * a dot is 2 x output elements x the contracted size, a convolution 2 x the
 * multiply-adds of its valid window positions, an elementwise op one FLOP
 * per output element (transcendentals are not FLOPs, as upstream counts
 * them), a reduction one application of its reducer per reduced element, a
 * fusion the sum of what it fuses; bytes are what an instruction reads and
 * writes (a fusion: its parameters and outputs only). cuBLAS and cuDNN
 * custom calls are costed as the dot or convolution they run; other custom
 * calls and a few rare ops have no estimate (flops < 0).
 *
 * Runs once per module when it is decoded (hlo_set_add), single-threaded.
 */
#include <math.h>
#include <string.h>

#include "hlo.h"

void hlo_cost_module(struct hlo_module *m);

#define UNKNOWN (-1.0)

static int op_is(const struct hlo_inst *in, const char *op)
{
	return !strcmp(in->opcode, op);
}

static int op_in(const struct hlo_inst *in, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(in->opcode, *list))
			return 1;
	return 0;
}

static const char *const transcendental[] = {
	"exponential", "log", "logistic", "power", "sqrt", "cbrt", "rsqrt", "tanh", "sine",
	"cosine", "exponential-minus-one", "log-plus-one", "atan2", "tan", "erf", NULL,
};

static const char *const elementwise[] = {
	"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "negate",
	"abs", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even", "clamp",
	"select", "compare", "and", "or", "xor", "not", "shift-left", "shift-right-arithmetic",
	"shift-right-logical", "convert", "is-finite", "real", "imag", "complex", "popcnt",
	"count-leading-zeros", "reduce-precision", "stochastic-convert", NULL,
};

/* Instructions that move no data (pointers, ordering, metadata). */
static const char *const free_ops[] = {
	"parameter", "constant", "get-tuple-element", "bitcast", "after-all", "add-dependency",
	"domain", "opt-barrier", "partition-id", "replica-id", NULL,
};

/* Ops the model has no estimate for. */
static const char *const unmodelled[] = {
	"triangular-solve", "cholesky", "batch-norm-training", "batch-norm-inference",
	"batch-norm-grad", "fft", NULL,
};

static const char *const gemm_targets[] = {
	"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8", "__cublas$lt$matmul$mx",
	NULL,
};

static const char *const conv_targets[] = {
	"__cudnn$convForward", "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter",
	"__cudnn$convBiasActivationForward", "__cudnn$convForwardGraph", NULL,
};

static int target_in(const struct hlo_inst *in, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(in->custom_call_target, *list))
			return 1;
	return 0;
}

static const struct hlo_inst *operand(const struct hlo_module *m, const struct hlo_inst *in,
				      uint32_t k)
{
	int64_t key[2];
	const uint32_t *v;

	if (k >= in->operands.n)
		return NULL;
	key[0] = (int64_t)in->comp;
	key[1] = m->ints[in->operands.at + k];
	v = hmap_find(&m->by_cid, key, sizeof(key));
	return v ? &m->inst[*v] : NULL;
}

static const struct hlo_comp *called(const struct hlo_module *m, const struct hlo_inst *in,
				     uint32_t k)
{
	const uint32_t *v;

	if (k >= in->called.n)
		return NULL;
	v = hmap_find(&m->comp_by_id, &m->ints[in->called.at + k], sizeof(int64_t));
	return v ? &m->comp[*v] : NULL;
}

static const struct hlo_shape *shape(const struct hlo_module *m, const struct hlo_inst *in)
{
	return &m->shapes[in->shape];
}

/* The first array of a shape (a tuple's element 0, recursively). */
static const struct hlo_shape *first_array(const struct hlo_module *m, const struct hlo_shape *s)
{
	int guard = 0;

	while (s->type == HLO_TUPLE && s->nchild && guard++ < 64)
		s = &m->shapes[s->child0];
	return s;
}

/* XLA's shape size: an array's bytes; a tuple is its table of pointers. */
static double shape_size(const struct hlo_shape *s)
{
	return s->type == HLO_TUPLE ? 8.0 * s->nchild : s->bytes;
}

static double dim(const struct hlo_shape *s, int64_t d)
{
	return d >= 0 && (uint64_t)d < s->rank ? (double)s->dims[d] : 0.0;
}

static void inst_cost(struct hlo_module *m, struct hlo_inst *in, int depth);

/* Sums the costs of a computation; *unknown when any part has none. */
static void comp_cost(struct hlo_module *m, const struct hlo_comp *c, int depth, double *flops,
		      double *bytes, int *unknown)
{
	uint32_t i;

	*flops = *bytes = 0;
	*unknown = 0;
	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		struct hlo_inst *x = &m->inst[c->first + i];

		inst_cost(m, x, depth + 1);
		if (x->flops < 0)
			*unknown = 1;
		else
			*flops += x->flops;
		if (x->bytes > 0)
			*bytes += x->bytes;
	}
}

static double reducer_flops(struct hlo_module *m, const struct hlo_inst *in, uint32_t k,
			    int depth)
{
	double f, b;
	int unk;

	comp_cost(m, called(m, in, k), depth, &f, &b, &unk);
	return unk ? UNKNOWN : f;
}

static double default_bytes(const struct hlo_module *m, const struct hlo_inst *in)
{
	double b = shape_size(shape(m, in));
	uint32_t k;

	for (k = 0; k < in->operands.n; k++) {
		const struct hlo_inst *o = operand(m, in, k);

		if (o)
			b += shape_size(shape(m, o));
	}
	return b;
}

static double dot_flops(const struct hlo_module *m, const struct hlo_shape *lhs,
			const struct hlo_shape *out, const int64_t *contract, uint32_t n)
{
	double w = 1;
	uint32_t k;

	(void)m;
	for (k = 0; k < n; k++)
		w *= dim(lhs, contract[k]);
	return 2.0 * out->elements * w;
}

/* The lhs contracting dimensions of a cuBLAS custom call, from its
 * backend_config JSON ("lhs_contracting_dimensions":["1"]). */
static uint32_t gemm_contract(const struct hlo_inst *in, int64_t *out, uint32_t cap)
{
	const char *p = strstr(in->backend_config, "\"lhs_contracting_dimensions\"");
	uint32_t n = 0;

	if (!p || !(p = strchr(p, '[')))
		return 0;
	for (p++; *p && *p != ']' && n < cap; p++) {
		if (*p >= '0' && *p <= '9') {
			int64_t v = 0;

			while (*p >= '0' && *p <= '9')
				v = v * 10 + (*p++ - '0');
			out[n++] = v;
			p--;
		}
	}
	return n;
}

/* HloCostAnalysis::GetConvolutionFlops with shapes lhs, rhs, out. */
static double conv_flops(const struct hlo_module *m, const struct hlo_inst *in,
			 const struct hlo_shape *lhs, const struct hlo_shape *rhs,
			 const struct hlo_shape *out)
{
	double positions = 1, fma;
	uint32_t s;

	for (s = 0; s < in->nwin; s++) {
		const struct hlo_window_dim *w = &m->win[in->win0 + s];
		int64_t kl, ol, il, valid = 0, k, o;

		if (s >= in->kernel_spatial.n || s >= in->out_spatial.n || s >= in->in_spatial.n)
			return UNKNOWN;
		kl = (int64_t)dim(rhs, m->ints[in->kernel_spatial.at + s]);
		ol = (int64_t)dim(out, m->ints[in->out_spatial.at + s]);
		il = (int64_t)dim(lhs, m->ints[in->in_spatial.at + s]);
		if ((double)kl * (double)ol > 1e8)
			return UNKNOWN; /* absurd sizes: no estimate rather than a long loop */
		for (k = 0; k < kl; k++) {
			for (o = 0; o < ol; o++) {
				int64_t u = o * w->stride - w->pad_lo + k * w->window_dil;
				int64_t li = w->base_dil > 1 ? u / w->base_dil : u;

				if (u != li * w->base_dil || li < 0 || li >= il)
					continue;
				valid++;
			}
		}
		positions *= (double)valid;
	}
	fma = floor(dim(lhs, in->in_feature_dim) / (double)in->feature_group_count) *
	      dim(out, in->out_feature_dim) *
	      floor(dim(lhs, in->in_batch_dim) / (double)in->batch_group_count) * positions;
	return 2.0 * fma;
}

/* What the fused computation c reads of instruction `of` (a parameter,
 * or a bitcast of one) through its users, into *part and *whole (see
 * param_read_bytes). */
static void uses_read(const struct hlo_module *m, const struct hlo_comp *c, int64_t of, int depth,
		      double *part, int *whole)
{
	uint32_t i, k;
	int users = 0;

	for (i = 0; i < c->n; i++) {
		const struct hlo_inst *u = &m->inst[c->first + i];

		for (k = 0; k < u->operands.n; k++) {
			if (m->ints[u->operands.at + k] != of)
				continue;
			if (op_is(u, "slice") ||
			    ((op_is(u, "dynamic-slice") || op_is(u, "gather")) && k == 0))
				*part += shape_size(shape(m, u));
			else if (op_is(u, "bitcast") && depth < 8)
				uses_read(m, c, u->id, depth + 1, part, whole);
			else if (!(op_is(u, "dynamic-update-slice") && k == 0))
				*whole = 1;
			users++;
			break;
		}
	}
	/* A bitcast nothing in the computation reads (the root): its bytes
	 * leave whole. */
	if (!users && depth)
		*whole = 1;
}

/*
 * FusionParameterReadBytes: what a fused computation reads of a parameter.
 * A slice, or a dynamic slice or gather of it, reads what it takes; a
 * dynamic-update-slice into it reads nothing (operand 0 is the output,
 * updated in place: a scan's carry of 32 MiB takes a 4 MiB update, not
 * 40); any other use reads it whole, once however many there are. A
 * bitcast moves nothing: its uses are the parameter's, as in the GPU cost
 * model's utilizations, which pass through it (the H100 transformer's
 * input_transpose_fusion slices a third of a bf16[4096,1536] through a
 * bitcast: 8.4 MB a run, not 16.8).
 */
static double param_read_bytes(const struct hlo_module *m, const struct hlo_comp *c,
			       const struct hlo_inst *param)
{
	double part = 0;
	int whole = 0;

	uses_read(m, c, param->id, 0, &part, &whole);
	return part + (whole ? shape_size(shape(m, param)) : 0);
}

/* What a fused output in writes: a dynamic-update-slice only its update
 * (operand 0 is updated in place), anything else whole bytes. */
static double written_bytes(const struct hlo_module *m, const struct hlo_inst *in, double whole)
{
	const struct hlo_inst *upd = op_is(in, "dynamic-update-slice") ? operand(m, in, 1) : NULL;

	return upd ? shape_size(shape(m, upd)) : whole;
}

static void fusion_cost(struct hlo_module *m, struct hlo_inst *in, int depth)
{
	const struct hlo_comp *c = called(m, in, 0);
	const struct hlo_shape *s = shape(m, in);
	double f, b, bytes = 0;
	int unk;
	uint32_t i;

	comp_cost(m, c, depth, &f, &b, &unk);
	in->flops = unk ? UNKNOWN : f;
	if (!c) {
		in->bytes = default_bytes(m, in);
		return;
	}
	/* Outputs: every array leaf; a dynamic-update-slice writes only its
	 * update, as the root or as an element of a tuple root (a scan with
	 * several carries updates each in place), as upstream counts them. */
	{
		int64_t key[2] = { (int64_t)(c - m->comp), c->root_id };
		const uint32_t *rv = hmap_find(&m->by_cid, key, sizeof(key));
		const struct hlo_inst *root = rv ? &m->inst[*rv] : NULL;

		if (root && op_is(root, "tuple")) {
			for (i = 0; i < root->operands.n; i++) {
				const struct hlo_inst *el = operand(m, root, i);

				if (el)
					bytes += written_bytes(m, el, shape(m, el)->bytes);
			}
		} else {
			/* a tuple's bytes are its leaves' */
			bytes += root ? written_bytes(m, root, s->bytes) : s->bytes;
		}
	}
	for (i = 0; i < c->n; i++) {
		const struct hlo_inst *p = &m->inst[c->first + i];

		if (op_is(p, "parameter"))
			bytes += param_read_bytes(m, c, p);
	}
	in->bytes = bytes;
}

static void inst_cost(struct hlo_module *m, struct hlo_inst *in, int depth)
{
	const struct hlo_shape *out = shape(m, in);
	const struct hlo_inst *o0 = operand(m, in, 0), *o1 = operand(m, in, 1);

	if (in->cost_done == 1)
		return;
	/* Computations call each other in a DAG; a cycle or absurd depth
	 * (corrupt input) ends as "no estimate". */
	if (in->cost_done == 2 || depth > 64) {
		in->flops = in->bytes = UNKNOWN;
		return;
	}
	in->cost_done = 2;
	in->flops = 0;
	in->bytes = default_bytes(m, in);
	if (op_in(in, free_ops)) {
		in->bytes = 0;
	} else if (op_is(in, "tuple")) {
		in->bytes = shape_size(out);
	} else if (op_in(in, transcendental)) {
		in->flops = 0;
	} else if (op_in(in, elementwise)) {
		in->flops = out->elements;
	} else if (op_is(in, "dot") && o0) {
		in->flops = dot_flops(m, shape(m, o0), out, &m->ints[in->lhs_contract.at],
				      in->lhs_contract.n);
	} else if (op_is(in, "convolution") && o0 && o1) {
		in->flops = conv_flops(m, in, shape(m, o0), shape(m, o1), out);
	} else if (op_is(in, "reduce") && o0) {
		double r = reducer_flops(m, in, 0, depth);
		double red = first_array(m, shape(m, o0))->elements - first_array(m, out)->elements;

		in->flops = r < 0 ? UNKNOWN : r * (red > 0 ? red : 0);
	} else if (op_is(in, "reduce-window")) {
		double r = reducer_flops(m, in, 0, depth), win = 1;
		uint32_t k;

		for (k = 0; k < in->nwin; k++)
			win *= (double)m->win[in->win0 + k].size;
		in->flops = r < 0 ? UNKNOWN : r * (win - 1) * first_array(m, out)->elements;
	} else if (op_is(in, "map")) {
		double r = reducer_flops(m, in, 0, depth);

		in->flops = r < 0 ? UNKNOWN : r * out->elements;
	} else if (op_is(in, "fusion")) {
		fusion_cost(m, in, depth);
	} else if (op_is(in, "call") || op_is(in, "async-start")) {
		double f, b;
		int unk;

		comp_cost(m, called(m, in, 0), depth, &f, &b, &unk);
		in->flops = unk ? UNKNOWN : f;
		in->bytes = b;
	} else if (op_is(in, "while")) {
		double f1 = 0, b1 = 0, f2 = 0, b2 = 0;
		int u1 = 0, u2 = 0;
		uint32_t k;

		/* One iteration of body and condition (the trip count is
		 * not known statically), as upstream does. */
		for (k = 0; k < in->called.n && k < 2; k++) {
			if (k == 0)
				comp_cost(m, called(m, in, k), depth, &f1, &b1, &u1);
			else
				comp_cost(m, called(m, in, k), depth, &f2, &b2, &u2);
		}
		in->flops = u1 || u2 ? UNKNOWN : f1 + f2;
		in->bytes = b1 + b2;
	} else if (op_is(in, "conditional")) {
		uint32_t k;
		int any_unknown = 0;

		in->flops = in->bytes = 0;
		for (k = 0; k < in->called.n; k++) {
			double f, b;
			int unk;

			comp_cost(m, called(m, in, k), depth, &f, &b, &unk);
			any_unknown |= unk;
			in->flops = f > in->flops ? f : in->flops;
			in->bytes = b > in->bytes ? b : in->bytes;
		}
		if (any_unknown)
			in->flops = UNKNOWN;
	} else if (op_is(in, "slice")) {
		in->bytes = 2 * shape_size(out);
	} else if (op_is(in, "dynamic-slice")) {
		in->bytes = 2 * shape_size(out) + (o1 ? shape_size(shape(m, o1)) : 0);
	} else if (op_is(in, "dynamic-update-slice")) {
		const struct hlo_inst *o2 = operand(m, in, 2);

		in->bytes = (o1 ? 2 * shape_size(shape(m, o1)) : 0) +
			    (o2 ? shape_size(shape(m, o2)) : 0);
	} else if (op_is(in, "gather")) {
		in->bytes = 2 * shape_size(out) + (o1 ? shape_size(shape(m, o1)) : 0);
	} else if (op_is(in, "scatter")) {
		const struct hlo_inst *upd = operand(m, in, in->operands.n ? in->operands.n - 1 : 0);
		double r = reducer_flops(m, in, 0, depth);
		double ue = upd ? first_array(m, shape(m, upd))->elements : 0;

		in->bytes = (upd ? 3 * shape_size(shape(m, upd)) : 0) +
			    (o1 ? shape_size(shape(m, o1)) : 0);
		in->flops = r < 0 ? UNKNOWN : r * ue;
	} else if (op_is(in, "all-reduce") || op_is(in, "all-reduce-start")) {
		/* One addition per output element, as upstream assumes. */
		in->flops = out->type == HLO_TUPLE ? 0 : out->elements;
		if (out->type == HLO_TUPLE) {
			uint32_t k;

			for (k = 0; k < out->nchild; k++)
				in->flops += m->shapes[out->child0 + k].elements;
		}
		in->bytes = out->bytes;
		{
			uint32_t k;

			for (k = 0; k < in->operands.n; k++)
				if (operand(m, in, k))
					in->bytes += shape_size(shape(m, operand(m, in, k)));
		}
	} else if (op_is(in, "sort") && o0) {
		double n = first_array(m, shape(m, o0))->elements;

		in->flops = n > 1 ? n * ceil(log2(n)) : 0;
	} else if (op_is(in, "custom-call")) {
		const struct hlo_shape *res = first_array(m, out);

		if (target_in(in, gemm_targets) && o0) {
			int64_t c[XT_HLO_MAX_RANK];
			uint32_t n = in->lhs_contract.n;

			if (n)
				memcpy(c, &m->ints[in->lhs_contract.at],
				       (n < XT_HLO_MAX_RANK ? n : XT_HLO_MAX_RANK) * sizeof(int64_t));
			else
				n = gemm_contract(in, c, XT_HLO_MAX_RANK);
			in->flops = n ? dot_flops(m, shape(m, o0), res, c, n) : UNKNOWN;
			in->bytes = res->bytes + (o0 ? shape_size(shape(m, o0)) : 0) +
				    (o1 ? shape_size(shape(m, o1)) : 0);
		} else if (target_in(in, conv_targets) && o0 && o1) {
			in->flops = conv_flops(m, in, shape(m, o0), shape(m, o1), res);
			in->bytes = res->bytes + shape_size(shape(m, o0)) + shape_size(shape(m, o1));
		} else {
			in->flops = in->bytes = UNKNOWN;
		}
	} else if (op_in(in, unmodelled)) {
		in->flops = UNKNOWN;
	}
	in->cost_done = 1;
}

/* FNV-1a over a shape's element types and dimensions, leaves of tuples
 * in order (a few levels deep); never 0. */
static uint64_t sig_of(const struct hlo_module *m, const struct hlo_shape *s, uint64_t h, int depth)
{
	uint32_t k;

#define SIG_MIX(v) (h = (h ^ (uint64_t)(v)) * 0x100000001b3ull)
	SIG_MIX(s->type);
	SIG_MIX(s->rank);
	for (k = 0; k < s->rank; k++)
		SIG_MIX(s->dims[k]);
	if (s->type == HLO_TUPLE && depth < 4)
		for (k = 0; k < s->nchild; k++)
			h = sig_of(m, &m->shapes[s->child0 + k], h, depth + 1);
#undef SIG_MIX
	return h;
}

void hlo_cost_module(struct hlo_module *m)
{
	size_t i;

	for (i = 0; i < m->ninst; i++) {
		inst_cost(m, &m->inst[i], 0);
		m->inst[i].shape_sig = sig_of(m, shape(m, &m->inst[i]), 0xcbf29ce484222325ull, 0) | 1;
	}
}
