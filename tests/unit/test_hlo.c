/*
 * test_hlo: decoding the programs' HLO and xtop's cost model over it
 * (docs/analyses.md, "FLOPs and bytes"), GPU op attribution inside CUDA
 * command buffers, async and impossible rates, device peaks and the time
 * base. HLO protos are built with protobuf-c from proto/hlo_subset.proto,
 * independently of xtop's own wire decoder; every expected number below is
 * worked out by hand in the comment beside it.
 */
#include "testutil.h"

#include <math.h>
#include <unistd.h>

#include "hlo_subset.pb-c.h"
#include "model/an_stream.h"
#include "model/hlo.h"

/* Equal to a relative 1e-9 (sums of doubles). */
#define assert_near(a, b)                                                                 \
	assert_true(fabs((double)(a) - (double)(b)) <=                                    \
		    1e-9 * fmax(1.0, fmax(fabs((double)(a)), fabs((double)(b)))))

enum { PRED = 1, S8 = 2, S32 = 4, F32 = 11, BF16 = 16, TUPLE = 13 };

/* A message owned by the test (freed at teardown). */
static void *hb_new(size_t n)
{
	void *p = tu_xcalloc(1, n);

	TU_PUSH(tu_reg.strs, tu_reg.nstrs, p);
	return p;
}

#define HB_MAX 64 /* computations per module, instructions per computation */

struct hb {
	XlaSubset__HloProto proto;
	XlaSubset__HloModuleProto mod;
	int64_t next_id;
};

static void hb_init(struct hb *b, const char *name)
{
	xla_subset__hlo_proto__init(&b->proto);
	xla_subset__hlo_module_proto__init(&b->mod);
	b->mod.name = (char *)name;
	b->proto.hlo_module = &b->mod;
	b->next_id = 1;
}

static XlaSubset__ShapeProto *hb_shape(int type, int n, const int64_t *dims)
{
	XlaSubset__ShapeProto *s = hb_new(sizeof(*s));

	xla_subset__shape_proto__init(s);
	s->element_type = type;
	s->n_dimensions = (size_t)n;
	s->dimensions = hb_new(sizeof(int64_t) * (size_t)(n ? n : 1));
	memcpy(s->dimensions, dims, sizeof(int64_t) * (size_t)n);
	return s;
}

static XlaSubset__HloComputationProto *hb_comp(struct hb *b, const char *name)
{
	XlaSubset__HloComputationProto *c = hb_new(sizeof(*c));

	xla_subset__hlo_computation_proto__init(c);
	c->name = (char *)name;
	c->id = b->next_id++;
	c->instructions = hb_new(HB_MAX * sizeof(*c->instructions));
	if (!b->mod.computations)
		b->mod.computations = hb_new(HB_MAX * sizeof(*b->mod.computations));
	assert_true(b->mod.n_computations < HB_MAX);
	b->mod.computations[b->mod.n_computations++] = c;
	return c;
}

#define D(...) ((const int64_t[]){ __VA_ARGS__ })
#define ND(...) ((int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))

/* An instruction of shape type[dims] (n dims) with operands ops[0..nops). */
static XlaSubset__HloInstructionProto *hb_inst(struct hb *b, XlaSubset__HloComputationProto *c,
					       const char *name, const char *opcode, int type,
					       int n, const int64_t *dims,
					       XlaSubset__HloInstructionProto *const *ops,
					       size_t nops)
{
	XlaSubset__HloInstructionProto *in = hb_new(sizeof(*in));
	size_t k;

	xla_subset__hlo_instruction_proto__init(in);
	in->name = (char *)name;
	in->opcode = (char *)opcode;
	in->id = b->next_id++;
	in->shape = hb_shape(type, n, dims);
	in->n_operand_ids = nops;
	in->operand_ids = hb_new(sizeof(int64_t) * (nops ? nops : 1));
	for (k = 0; k < nops; k++)
		in->operand_ids[k] = ops[k]->id;
	assert_true(c->n_instructions < HB_MAX);
	c->instructions[c->n_instructions++] = in;
	c->root_id = in->id;
	return in;
}

#define OPS(...) ((XlaSubset__HloInstructionProto *const[]){ __VA_ARGS__ }), \
		 (sizeof((XlaSubset__HloInstructionProto *const[]){ __VA_ARGS__ }) / sizeof(void *))
#define NOOPS NULL, 0

static void hb_calls(XlaSubset__HloInstructionProto *in, const XlaSubset__HloComputationProto *c)
{
	in->called_computation_ids = hb_new(sizeof(int64_t) * (in->n_called_computation_ids + 1));
	in->called_computation_ids[in->n_called_computation_ids++] = c->id;
}

/* Makes the shape of in a tuple of its array and a second array. */
static void hb_tuple2(XlaSubset__HloInstructionProto *in, XlaSubset__ShapeProto *second)
{
	XlaSubset__ShapeProto *t = hb_new(sizeof(*t));

	xla_subset__shape_proto__init(t);
	t->element_type = TUPLE;
	t->tuple_shapes = hb_new(2 * sizeof(*t->tuple_shapes));
	t->tuple_shapes[0] = in->shape;
	t->tuple_shapes[1] = second;
	t->n_tuple_shapes = 2;
	in->shape = t;
}

static uint8_t *hb_pack(struct hb *b, size_t *n)
{
	uint8_t *buf;

	*n = xla_subset__hlo_proto__get_packed_size(&b->proto);
	buf = hb_new(*n ? *n : 1);
	xla_subset__hlo_proto__pack(&b->proto, buf);
	return buf;
}

/* The module of b as the bytes stat "Hlo Proto" of program metadata md. */
static void hb_attach(struct hb *b, tu_plane *meta, tu_emeta_t *md)
{
	size_t n;
	uint8_t *buf = hb_pack(b, &n);
	tu_stat *st = tu_stat_push(&md->n_stats, &md->stats, tu_smeta(meta, "Hlo Proto"));

	st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE;
	st->bytes_value.data = malloc(n); /* the space frees it */
	assert_non_null(st->bytes_value.data);
	memcpy(st->bytes_value.data, buf, n);
	st->bytes_value.len = n;
}

static const struct hlo_inst *inst(const struct hlo_module *m, const char *name)
{
	const struct hlo_inst *i = hlo_find(m, name, strlen(name));

	assert_non_null(i);
	return i;
}

static void test_hlo_cost_model(void **state)
{
	struct hb b;
	XlaSubset__HloComputationProto *red, *fused, *sl, *bsl, *dus, *dus2, *body, *main_c, *loop_body;
	XlaSubset__HloInstructionProto *x, *y, *lhs, *rhs, *dot, *in4, *ker, *conv, *a, *bb, *add,
		*ex, *rd, *c0, *f0, *f1, *mul, *fadd, *fus, *big, *slice, *sfus, *bfus, *bc, *g0, *g1, *gemm,
		*opaque, *w0, *wadd, *wh, *call, *upd, *idx, *dbuf, *dupd, *didx, *dfus, *big2, *d1,
		*d2, *tup, *dbuf2, *dfus2;
	XlaSubset__WindowDimension wd[2], *wdp[2];
	XlaSubset__Window win;
	XlaSubset__ConvolutionDimensionNumbers cd;
	XlaSubset__DotDimensionNumbers dd;
	struct hlo_set set;
	const struct hlo_module *m;
	size_t n;
	uint8_t *buf;
	int i;

	(void)state;
	hb_init(&b, "jit_costs");
	red = hb_comp(&b, "add_reducer");
	x = hb_inst(&b, red, "x", "parameter", F32, 0, D(0), NOOPS);
	y = hb_inst(&b, red, "y", "parameter", F32, 0, D(0), NOOPS);
	hb_inst(&b, red, "add.r", "add", F32, 0, D(0), OPS(x, y));

	fused = hb_comp(&b, "fused_mul_add");
	f0 = hb_inst(&b, fused, "param_0", "parameter", F32, 2, D(10, 10), NOOPS);
	f1 = hb_inst(&b, fused, "param_1", "parameter", F32, 2, D(10, 10), NOOPS);
	mul = hb_inst(&b, fused, "multiply.1", "multiply", F32, 2, D(10, 10), OPS(f0, f1));
	fadd = hb_inst(&b, fused, "add.2", "add", F32, 2, D(10, 10), OPS(mul, f0));
	(void)fadd;

	sl = hb_comp(&b, "fused_slice");
	big = hb_inst(&b, sl, "param_0.1", "parameter", F32, 1, D(100), NOOPS);
	slice = hb_inst(&b, sl, "slice.1", "slice", F32, 1, D(10), OPS(big));
	hb_inst(&b, sl, "negate.1", "negate", F32, 1, D(10), OPS(slice));
	/* the same through a bitcast (the H100 transformer's
	 * input_transpose_fusion): a bitcast moves nothing, so the parameter
	 * is read as the slice takes it */
	bsl = hb_comp(&b, "fused_bitcast_slice");
	big = hb_inst(&b, bsl, "param_0.9", "parameter", F32, 2, D(10, 10), NOOPS);
	bc = hb_inst(&b, bsl, "bitcast.9", "bitcast", F32, 1, D(100), OPS(big));
	slice = hb_inst(&b, bsl, "slice.9", "slice", F32, 1, D(10), OPS(bc));
	hb_inst(&b, bsl, "negate.9", "negate", F32, 1, D(10), OPS(slice));

	/* a scan's carry updated in place: the root writes its update into
	 * param_0, which is its output, not read */
	dus = hb_comp(&b, "fused_dus");
	big = hb_inst(&b, dus, "param_0.2", "parameter", F32, 1, D(1000), NOOPS);
	upd = hb_inst(&b, dus, "param_1.2", "parameter", F32, 1, D(100), NOOPS);
	idx = hb_inst(&b, dus, "param_2.2", "parameter", S32, 0, D(0), NOOPS);
	hb_inst(&b, dus, "dynamic-update-slice.1", "dynamic-update-slice", F32, 1, D(1000),
		OPS(big, upd, idx));
	/* two carries in one fusion, its root a tuple of the updates */
	dus2 = hb_comp(&b, "fused_dus2");
	big = hb_inst(&b, dus2, "param_0.3", "parameter", F32, 1, D(1000), NOOPS);
	big2 = hb_inst(&b, dus2, "param_1.3", "parameter", F32, 1, D(1000), NOOPS);
	upd = hb_inst(&b, dus2, "param_2.3", "parameter", F32, 1, D(100), NOOPS);
	idx = hb_inst(&b, dus2, "param_3.3", "parameter", S32, 0, D(0), NOOPS);
	d1 = hb_inst(&b, dus2, "dynamic-update-slice.2", "dynamic-update-slice", F32, 1, D(1000),
		     OPS(big, upd, idx));
	d2 = hb_inst(&b, dus2, "dynamic-update-slice.3", "dynamic-update-slice", F32, 1, D(1000),
		     OPS(big2, upd, idx));
	tup = hb_inst(&b, dus2, "tuple.1", "tuple", F32, 1, D(1000), OPS(d1, d2));
	hb_tuple2(tup, hb_shape(F32, 1, D(1000)));

	loop_body = hb_comp(&b, "while_body");
	w0 = hb_inst(&b, loop_body, "p", "parameter", F32, 1, D(4), NOOPS);
	wadd = hb_inst(&b, loop_body, "add.w", "add", F32, 1, D(4), OPS(w0, w0));
	(void)wadd;

	body = hb_comp(&b, "command_buffer");
	lhs = hb_inst(&b, body, "lhs", "parameter", F32, 2, D(8, 16), NOOPS);
	rhs = hb_inst(&b, body, "rhs", "parameter", F32, 2, D(16, 4), NOOPS);
	/* dot [8,16] x [16,4] contracting 16: 2 x 32 outputs x 16 = 1024 FLOPs;
	 * bytes (32 + 128 + 64) x 4 = 896. */
	dot = hb_inst(&b, body, "dot.1", "dot", F32, 2, D(8, 4), OPS(lhs, rhs));
	xla_subset__dot_dimension_numbers__init(&dd);
	dd.n_lhs_contracting_dimensions = 1;
	dd.lhs_contracting_dimensions = (int64_t[]){ 1 };
	dot->dot_dimension_numbers = &dd;
	/* conv NHWC [1,8,8,3] * HWIO [3,3,3,4] -> [1,8,8,4], 3x3, pad 1: each
	 * spatial dim has 7 + 8 + 7 = 22 valid (kernel, output) pairs, so
	 * 3 x 4 x 1 x 22 x 22 = 5808 multiply-adds = 11616 FLOPs. */
	in4 = hb_inst(&b, body, "in4", "parameter", F32, 4, D(1, 8, 8, 3), NOOPS);
	ker = hb_inst(&b, body, "ker", "parameter", F32, 4, D(3, 3, 3, 4), NOOPS);
	conv = hb_inst(&b, body, "convolution.1", "convolution", F32, 4, D(1, 8, 8, 4), OPS(in4, ker));
	for (i = 0; i < 2; i++) {
		xla_subset__window_dimension__init(&wd[i]);
		wd[i].size = 3;
		wd[i].stride = 1;
		wd[i].padding_low = wd[i].padding_high = 1;
		wd[i].window_dilation = wd[i].base_dilation = 1;
		wdp[i] = &wd[i];
	}
	xla_subset__window__init(&win);
	win.n_dimensions = 2;
	win.dimensions = wdp;
	conv->window = &win;
	xla_subset__convolution_dimension_numbers__init(&cd);
	cd.input_batch_dimension = 0;
	cd.input_feature_dimension = 3;
	cd.n_input_spatial_dimensions = 2;
	cd.input_spatial_dimensions = (int64_t[]){ 1, 2 };
	cd.kernel_input_feature_dimension = 2;
	cd.kernel_output_feature_dimension = 3;
	cd.n_kernel_spatial_dimensions = 2;
	cd.kernel_spatial_dimensions = (int64_t[]){ 0, 1 };
	cd.output_batch_dimension = 0;
	cd.output_feature_dimension = 3;
	cd.n_output_spatial_dimensions = 2;
	cd.output_spatial_dimensions = (int64_t[]){ 1, 2 };
	conv->convolution_dimension_numbers = &cd;
	a = hb_inst(&b, body, "a", "parameter", F32, 2, D(10, 10), NOOPS);
	bb = hb_inst(&b, body, "b", "parameter", F32, 2, D(10, 10), NOOPS);
	/* elementwise: one FLOP an output element; transcendentals none */
	add = hb_inst(&b, body, "add.1", "add", F32, 2, D(10, 10), OPS(a, bb));
	ex = hb_inst(&b, body, "exponential.1", "exponential", F32, 2, D(10, 10), OPS(add));
	/* reduce [10,10] -> [10] with add: (100 - 10) x 1 = 90 FLOPs */
	c0 = hb_inst(&b, body, "zero", "constant", F32, 0, D(0), NOOPS);
	rd = hb_inst(&b, body, "reduce.1", "reduce", F32, 1, D(10), OPS(ex, c0));
	hb_calls(rd, red);
	/* fusion: multiply + add = 200 FLOPs; bytes 400 out + 400 + 400 in */
	fus = hb_inst(&b, body, "loop_multiply_fusion", "fusion", F32, 2, D(10, 10), OPS(a, bb));
	fus->fusion_kind = "kLoop";
	hb_calls(fus, fused);
	/* a parameter read only through a slice costs the slice: 40 in, 40 out */
	sfus = hb_inst(&b, body, "slice_fusion.1", "fusion", F32, 1, D(10), OPS(add));
	sfus->fusion_kind = "kLoop";
	hb_calls(sfus, sl);
	/* and through a bitcast: 40 in, 40 out, not 400 in */
	bfus = hb_inst(&b, body, "slice_fusion.2", "fusion", F32, 1, D(10), OPS(add));
	bfus->fusion_kind = "kLoop";
	hb_calls(bfus, bsl);
	/* cuBLAS: bf16 [64,128] x [128,32] (dims from backend_config):
	 * 2 x 2048 x 128 = 524288 FLOPs; bytes 4096 + 16384 + 8192 = 28672 */
	g0 = hb_inst(&b, body, "g0", "parameter", BF16, 2, D(64, 128), NOOPS);
	g1 = hb_inst(&b, body, "g1", "parameter", BF16, 2, D(128, 32), NOOPS);
	gemm = hb_inst(&b, body, "custom-call.2", "custom-call", BF16, 2, D(64, 32), OPS(g0, g1));
	hb_tuple2(gemm, hb_shape(S8, 1, D(1024)));
	gemm->custom_call_target = "__cublas$lt$matmul";
	gemm->backend_config.data =
		(uint8_t *)"{\"gemm_backend_config\":{\"dot_dimension_numbers\":"
			   "{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"]}}}";
	gemm->backend_config.len = strlen((const char *)gemm->backend_config.data);
	/* a custom call the model cannot know: no estimate */
	opaque = hb_inst(&b, body, "custom-call.3", "custom-call", F32, 1, D(10), OPS(a));
	opaque->custom_call_target = "my_kernel";
	/* the update: 400 B written, 400 + 4 read; not the 4000 B carry */
	dbuf = hb_inst(&b, body, "carry", "parameter", F32, 1, D(1000), NOOPS);
	dupd = hb_inst(&b, body, "update", "parameter", F32, 1, D(100), NOOPS);
	didx = hb_inst(&b, body, "index", "parameter", S32, 0, D(0), NOOPS);
	dfus = hb_inst(&b, body, "loop_dynamic_update_slice_fusion", "fusion", F32, 1, D(1000),
		       OPS(dbuf, dupd, didx));
	dfus->fusion_kind = "kLoop";
	hb_calls(dfus, dus);
	/* 400 + 400 written, 400 + 4 read: not the two 4000 B carries */
	dbuf2 = hb_inst(&b, body, "carry2", "parameter", F32, 1, D(1000), NOOPS);
	dfus2 = hb_inst(&b, body, "loop_dynamic_update_slice_fusion.2", "fusion", F32, 1, D(1000),
			OPS(dbuf, dbuf2, dupd, didx));
	hb_tuple2(dfus2, hb_shape(F32, 1, D(1000)));
	dfus2->fusion_kind = "kLoop";
	hb_calls(dfus2, dus2);
	wh = hb_inst(&b, body, "while.1", "while", F32, 1, D(4), NOOPS);
	hb_calls(wh, loop_body);

	main_c = hb_comp(&b, "main");
	call = hb_inst(&b, main_c, "call.4", "call", F32, 0, D(0), NOOPS);
	hb_calls(call, body);
	b.mod.entry_computation_id = main_c->id;
	buf = hb_pack(&b, &n);

	hlo_set_init(&set);
	assert_int_equal(hlo_set_add(&set, 42, buf, n), 0);
	m = hlo_set_find(&set, 42);
	assert_non_null(m);
	assert_string_equal(m->name, "jit_costs");
	assert_near(inst(m, "dot.1")->flops, 1024);
	assert_near(inst(m, "dot.1")->bytes, 896);
	assert_near(inst(m, "convolution.1")->flops, 11616);
	assert_near(inst(m, "add.1")->flops, 100);
	assert_near(inst(m, "exponential.1")->flops, 0);
	assert_near(inst(m, "reduce.1")->flops, 90);
	assert_near(inst(m, "loop_multiply_fusion")->flops, 200);
	assert_near(inst(m, "loop_multiply_fusion")->bytes, 1200);
	assert_near(inst(m, "slice_fusion.1")->flops, 10);
	assert_near(inst(m, "slice_fusion.1")->bytes, 80);
	assert_near(inst(m, "slice_fusion.2")->bytes, 80);
	assert_near(inst(m, "loop_dynamic_update_slice_fusion")->bytes, 804);
	assert_near(inst(m, "loop_dynamic_update_slice_fusion.2")->bytes, 1204);
	assert_near(inst(m, "custom-call.2")->flops, 524288);
	assert_near(inst(m, "custom-call.2")->bytes, 28672);
	assert_true(inst(m, "custom-call.3")->flops < 0);
	assert_true(inst(m, "custom-call.3")->bytes < 0);
	assert_near(inst(m, "zero")->bytes, 0); /* constants move no data */
	/* loops, command buffers and kernel names */
	assert_true(hlo_in_loop(m, inst(m, "add.w")));
	assert_false(hlo_in_loop(m, inst(m, "dot.1")));
	assert_true(hlo_is_command_buffer(m, inst(m, "call.4")));
	assert_false(hlo_is_command_buffer(m, inst(m, "dot.1")));
	assert_ptr_equal(hlo_find_kernel(m, "slice_fusion_1", 14), inst(m, "slice_fusion.1"));
	assert_ptr_equal(hlo_find_kernel(m, "custom_call_2.kd", 16), inst(m, "custom-call.2"));
	assert_null(hlo_find_kernel(m, "nothing_like_it", 15));
	/* by module name: unique */
	assert_ptr_equal(hlo_set_find_name(&set, "jit_costs", 9), m);
	hlo_set_free(&set);
}

static void test_hlo_malformed(void **state)
{
	struct hlo_set set;
	struct hb b;
	XlaSubset__HloComputationProto *c;
	XlaSubset__HloInstructionProto *p, *call;
	uint8_t junk[64];
	uint8_t *buf;
	size_t n, cut;
	uint64_t seed = 7;

	(void)state;
	hlo_set_init(&set);
	for (n = 0; n < sizeof(junk); n++)
		junk[n] = (uint8_t)tu_rand(&seed);
	junk[0] = 0x0a; /* field 1, length-delimited... */
	junk[1] = 0x7f; /* ...longer than what follows */
	assert_int_equal(hlo_set_add(&set, 1, junk, sizeof(junk)), -1);
	assert_int_equal(set.failed, 1);
	assert_int_equal(set.n, 0);
	/* A computation that calls itself (corrupt): costed without hanging,
	 * with no estimate. Every truncation of it fails cleanly. */
	hb_init(&b, "cyclic");
	c = hb_comp(&b, "loop_forever");
	p = hb_inst(&b, c, "p", "parameter", F32, 1, D(4), NOOPS);
	call = hb_inst(&b, c, "call.1", "call", F32, 1, D(4), OPS(p));
	hb_calls(call, c);
	buf = hb_pack(&b, &n);
	assert_int_equal(hlo_set_add(&set, 2, buf, n), 0);
	assert_true(hlo_find(hlo_set_find(&set, 2), "call.1", 6)->flops < 0);
	for (cut = 1; cut < n; cut++)
		(void)hlo_set_add(&set, 100 + cut, buf, cut);
	hlo_set_free(&set);
}

/* ---- attribution on a GPU plane ---- */

static tu_event *kernel(tu_plane *g, tu_line *l, const char *name, int64_t t, int64_t d,
			const char *hlo_op)
{
	tu_event *e = tu_ev(g, l, name, t, d);

	TU_SS(g, e, "hlo_op", hlo_op);
	TU_SS(g, e, "hlo_module", "jit_step");
	TU_SU(g, e, "program_id", 9);
	return e;
}

static void test_command_buffer_attribution(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_plane *meta;
	tu_line *l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	tu_emeta_t *md;
	struct hb b;
	XlaSubset__HloComputationProto *body, *main_c;
	XlaSubset__HloInstructionProto *a, *bb, *call;
	struct xt_analysis *an;
	const struct xt_op_row *op;
	int run;

	(void)state;
	hb_init(&b, "jit_step");
	body = hb_comp(&b, "command_buffer");
	a = hb_inst(&b, body, "a", "parameter", F32, 1, D(1000), NOOPS);
	bb = hb_inst(&b, body, "b", "parameter", F32, 1, D(1000), NOOPS);
	hb_inst(&b, body, "wrapped_add.1", "add", F32, 1, D(1000), OPS(a, bb));
	main_c = hb_comp(&b, "main");
	call = hb_inst(&b, main_c, "call.4", "call", F32, 1, D(1000), NOOPS);
	hb_calls(call, body);
	b.mod.entry_computation_id = main_c->id;
	meta = tu_plane_add(s, 0, "/host:metadata");
	md = tu_emeta_id(meta, 9, "jit_step(9)", "");
	hb_attach(&b, meta, md);
	/* Two runs of a graph: its kernels all carry the graph launch's
	 * hlo_op; one is an instruction by its kernel name, one (cuBLAS's) is
	 * not. A kernel whose hlo_op is no instruction at all is listed by
	 * its kernel name too. */
	for (run = 0; run < 2; run++) {
		int64_t t = run * 1000;

		kernel(g, l, "wrapped_add_1", t, 100, "command_buffer_1");
		kernel(g, l, "sm90_xmma_gemm_kernel", t + 200, 300, "command_buffer_1");
	}
	kernel(g, l, "stray_kernel", 5000, 10, "no_such_op.7");
	an = tu_load_space(s, NULL);
	assert_int_equal(an->hlo_programs, 1);
	op = tu_find_op(an, "wrapped_add.1", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_KERNEL_NAME);
	assert_string_equal(op->parent, "command_buffer_1");
	assert_int_equal(op->occurrences, 2);
	assert_string_equal(op->category, "add");
	/* 1000 FLOPs and 12000 bytes a run, from the HLO */
	assert_near(op->flops, 2000);
	assert_near(op->bytes_accessed, 24000);
	assert_int_equal(op->cost_src, XT_COST_HLO);
	assert_int_equal(op->nkernels, 1);
	assert_string_equal(op->kernels[0].name, "wrapped_add_1");
	op = tu_find_op(an, "sm90_xmma_gemm_kernel", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_UNRESOLVED);
	assert_string_equal(op->parent, "command_buffer_1");
	assert_int_equal(op->occurrences, 2);
	assert_false(op->has_flops);
	assert_true(isnan(op->flops_per_s));
	op = tu_find_op(an, "stray_kernel", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_UNRESOLVED);
	assert_string_equal(op->parent, "no_such_op.7");
	assert_int_equal(an->nops, 3);
	/* Steps: the two runs of jit_step, one step from the first to the
	 * second (the last run is no step). */
	assert_int_equal(an->steps_source, XT_STEPS_INFERRED);
	assert_string_equal(an->steps_module, "jit_step");
	assert_int_equal(an->nsteps, 1);
	assert_int_equal(an->steps[0].start_ps, 0);
	assert_int_equal(an->steps[0].duration_ps, 1000);
}

/* The entry's schedule: the instructions of c in the order given. */
static void hb_schedule(struct hb *b, const XlaSubset__HloComputationProto *c,
			XlaSubset__HloInstructionProto *const *order, size_t n)
{
	XlaSubset__HloScheduleProto *sch = hb_new(sizeof(*sch));
	XlaSubset__HloScheduleProto__SequencesEntry *e = hb_new(sizeof(*e));
	XlaSubset__HloScheduleProto__InstructionSequence *q = hb_new(sizeof(*q));
	size_t k;

	xla_subset__hlo_schedule_proto__init(sch);
	xla_subset__hlo_schedule_proto__sequences_entry__init(e);
	xla_subset__hlo_schedule_proto__instruction_sequence__init(q);
	q->instruction_ids = hb_new(n * sizeof(int64_t));
	for (k = 0; k < n; k++)
		q->instruction_ids[k] = order[k]->id;
	q->n_instruction_ids = n;
	e->key = c->id;
	e->value = q;
	sch->sequences = hb_new(sizeof(*sch->sequences));
	sch->sequences[0] = e;
	sch->n_sequences = 1;
	b->mod.schedule = sch;
}

/* The same op profile, kernels and steps, whole or cut in two pieces. */
static void same_analysis(const struct xt_analysis *a, const struct xt_analysis *b)
{
	size_t i, k;

	assert_int_equal(a->nops, b->nops);
	for (i = 0; i < a->nops; i++) {
		const struct xt_op_row *x = &a->ops[i], *y = &b->ops[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->attr, y->attr);
		assert_int_equal(x->occurrences, y->occurrences);
		assert_int_equal(x->self_ps, y->self_ps);
		assert_near(x->flops, y->flops);
		assert_int_equal(x->nkernels, y->nkernels);
		for (k = 0; k < x->nkernels; k++) {
			assert_string_equal(x->kernels[k].name, y->kernels[k].name);
			assert_int_equal(x->kernels[k].occurrences, y->kernels[k].occurrences);
		}
	}
	assert_int_equal(a->nkernels, b->nkernels);
	for (i = 0; i < a->nkernels; i++) {
		assert_string_equal(a->kernels[i].name, b->kernels[i].name);
		assert_string_equal(a->kernels[i].op, b->kernels[i].op);
		assert_int_equal(a->kernels[i].occurrences, b->kernels[i].occurrences);
		assert_int_equal(a->kernels[i].total_ps, b->kernels[i].total_ps);
	}
	assert_int_equal(a->nsteps, b->nsteps);
	for (i = 0; i < a->nsteps; i++) {
		assert_int_equal(a->steps[i].start_ps, b->steps[i].start_ps);
		assert_int_equal(a->steps[i].duration_ps, b->steps[i].duration_ps);
	}
}

/* What the viewer asks of each launch (analysis_op_name: Enter on an op,
 * the details pane) names the op rows that counted it: each op's launches
 * are as many as its kernels' occurrences. */
static void names_agree(const struct xt_analysis *an, const struct xt_trace *t)
{
	size_t i, h, p, l, e, n;
	char buf[256];

	for (i = 0; i < an->nops; i++) {
		const struct xt_op_row *op = &an->ops[i];
		uint64_t want = 0;

		for (n = 0; n < op->nkernels; n++)
			want += op->kernels[n].occurrences;
		for (n = 0, h = 0; h < t->nhosts; h++)
			for (p = 0; p < t->hosts[h].nplanes; p++) {
				const struct xt_plane *pl = &t->hosts[h].planes[p];

				if (strncmp(pl->name, "/device:GPU:", 12))
					continue;
				for (l = 0; l < pl->nlines; l++)
					for (e = 0; e < pl->lines[l].nev; e++)
						n += !strcmp(analysis_op_name(an, t, h, pl, &pl->lines[l],
									      &pl->lines[l].ev[e], buf,
									      sizeof(buf)),
							     op->name);
			}
		if (n != want)
			fail_msg("%s: %zu launches named so, %llu counted", op->name, n,
				 (unsigned long long)want);
	}
}

/* A kernel of the graph launch with correlation id corr. */
static void cb_kernel(tu_plane *g, tu_line *l, const char *name, int64_t t, int64_t corr)
{
	tu_event *e = kernel(g, l, name, t, 10, "command_buffer_1");

	TU_SI(g, e, "correlation_id", corr);
}

/*
 * Command buffer runs read against the schedule (docs/analyses.md, "Op
 * profile"): XLA launches fusion.1's kernel for the identical fusion.2,
 * and cuBLAS calls run kernels (some after a memset) that name nothing.
 */
static void test_command_buffer_order(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_plane *meta = tu_plane_add(s, 0, "/host:metadata");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	tu_emeta_t *md = tu_emeta_id(meta, 9, "jit_step(9)", "");
	XlaSubset__HloInstructionProto *p, *f1, *c1, *f2, *c2, *c3, *f3, *t;
	XlaSubset__HloComputationProto *main_c;
	static const char *const run[] = { "fusion_1", "Memset 0", "nvjet_a", "fusion_1",
					   "Memset 0", "nvjet_b", "nvjet_c", "fusion_3" };
	struct xt_analysis *an, *an2;
	struct xt_trace *tr, *t2;
	const struct xt_op_row *op;
	struct hb b;
	size_t k;
	int r;

	(void)state;
	hb_init(&b, "jit_step");
	main_c = hb_comp(&b, "main");
	p = hb_inst(&b, main_c, "p", "parameter", F32, 1, D(1000), NOOPS);
	f1 = hb_inst(&b, main_c, "fusion.1", "fusion", F32, 1, D(1000), OPS(p));
	c1 = hb_inst(&b, main_c, "custom-call.1", "custom-call", F32, 1, D(1000), OPS(f1));
	f2 = hb_inst(&b, main_c, "fusion.2", "fusion", F32, 1, D(1000), OPS(c1));
	t = hb_inst(&b, main_c, "gte", "get-tuple-element", F32, 1, D(1000), OPS(f2));
	c2 = hb_inst(&b, main_c, "custom-call.2", "custom-call", F32, 1, D(1000), OPS(t));
	c3 = hb_inst(&b, main_c, "custom-call.3", "custom-call", F32, 1, D(1000), OPS(c2));
	f3 = hb_inst(&b, main_c, "fusion.3", "fusion", F32, 1, D(1000), OPS(c3));
	c1->custom_call_target = c2->custom_call_target = c3->custom_call_target =
		"__cublas$lt$matmul";
	b.mod.entry_computation_id = main_c->id;
	hb_schedule(&b, main_c, OPS(p, f1, c1, f2, t, c2, c3, f3));
	hb_attach(&b, meta, md);
	/* Two runs of the graph, then one whose middle does not parse: two
	 * library kernels where a call, a fusion and two calls are due. */
	for (r = 0; r < 2; r++)
		for (k = 0; k < sizeof(run) / sizeof(run[0]); k++)
			cb_kernel(g, l, run[k], r * 1000 + (int64_t)k * 20, 100 + r);
	cb_kernel(g, l, "fusion_1", 5000, 200);
	cb_kernel(g, l, "nvjet_x", 5020, 200);
	cb_kernel(g, l, "nvjet_y", 5040, 200);
	cb_kernel(g, l, "fusion_3", 5060, 200);
	an = tu_load_space(s, &tr);
	op = tu_find_op(an, "fusion.1", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_KERNEL_NAME);
	assert_int_equal(op->occurrences, 3);
	op = tu_find_op(an, "fusion.2", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_KERNEL_ORDER);
	assert_string_equal(op->parent, "command_buffer_1");
	assert_string_equal(op->category, "fusion");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->nkernels, 1);
	assert_string_equal(op->kernels[0].name, "fusion_1");
	/* A memset goes with the call after it; two calls split the run. */
	op = tu_find_op(an, "custom-call.1", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_KERNEL_ORDER);
	assert_string_equal(op->category, "gemm");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->nkernels, 2);
	op = tu_find_op(an, "custom-call.2", "jit_step");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->nkernels, 2);
	op = tu_find_op(an, "custom-call.3", "jit_step");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->nkernels, 1);
	assert_string_equal(op->kernels[0].name, "nvjet_c");
	op = tu_find_op(an, "fusion.3", "jit_step");
	assert_int_equal(op->occurrences, 3);
	/* The third run keeps the name rule where it does not parse. */
	op = tu_find_op(an, "nvjet_x", "jit_step");
	assert_int_equal(op->attr, XT_ATTR_UNRESOLVED);
	assert_int_equal(op->occurrences, 1);
	assert_int_equal(an->nops, 8);
	names_agree(an, tr);
	/* A long line is analysed in two pieces at once, cut between two
	 * graph launches: the same answer. */
	stream_split_min = 2;
	an2 = tu_load_space(s, &t2);
	same_analysis(an, an2);
	names_agree(an2, t2);
	stream_split_min = 400000;
}

/* Steps inferred from a program with a while loop whose copies run on a
 * side stream (seen on an H100: lax.scan's dynamic slices): that stream's
 * kernels are all in the loop, never restart a run, and must not join the
 * main stream's runs into one. */
static void test_loop_side_stream_steps(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_plane *meta = tu_plane_add(s, 0, "/host:metadata");
	tu_line *main_l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	tu_line *side = tu_line_add(g, 2, "Stream #2(MemcpyD2D)", 0);
	tu_emeta_t *md = tu_emeta_id(meta, 9, "jit_step(9)", "");
	XlaSubset__HloComputationProto *body, *main_c;
	XlaSubset__HloInstructionProto *p, *w;
	struct xt_analysis *an;
	struct hb b;
	int k;

	(void)state;
	hb_init(&b, "jit_step");
	body = hb_comp(&b, "body");
	hb_inst(&b, body, "fusion.b", "fusion", F32, 1, D(1000), NOOPS);
	main_c = hb_comp(&b, "main");
	p = hb_inst(&b, main_c, "p", "parameter", F32, 1, D(1000), NOOPS);
	hb_inst(&b, main_c, "fusion.a", "fusion", F32, 1, D(1000), OPS(p));
	w = hb_inst(&b, main_c, "while.1", "while", F32, 1, D(1000), OPS(p));
	hb_calls(w, body);
	b.mod.entry_computation_id = main_c->id;
	hb_attach(&b, meta, md);
	for (k = 0; k < 3; k++) {
		int64_t t = k * 1000;

		kernel(g, main_l, "fusion_a", t, 100, "fusion.a");
		kernel(g, main_l, "fusion_b", t + 200, 100, "fusion.b");
		kernel(g, main_l, "fusion_b", t + 500, 100, "fusion.b");
		kernel(g, side, "MemcpyD2D", t + 350, 50, "fusion.b");
	}
	an = tu_load_space(s, NULL);
	assert_int_equal(an->steps_source, XT_STEPS_INFERRED);
	/* three runs, 1000 ps apart: two steps (the last run is none) */
	assert_int_equal(an->nsteps, 2);
	assert_int_equal(an->steps[1].start_ps, 1000);
	assert_int_equal(an->steps[1].duration_ps, 1000);
}

/* A jitted matmul called in a loop: a program of one op, its runs back to
 * back. Its first kernel coming again opens a run (it has no other op to
 * run in between); an op of two kernels (a gemm and its split-K reduction)
 * is one run, not two. Seen on an MI300X (jit_dot, three calls a shape). */
static void test_one_op_program_steps(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_plane *meta = tu_plane_add(s, 0, "/host:metadata");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_emeta_t *md = tu_emeta_id(meta, 9, "jit_step(9)", "");
	XlaSubset__HloComputationProto *main_c;
	XlaSubset__HloInstructionProto *p;
	struct xt_analysis *an;
	struct hb b;
	int k;

	(void)state;
	hb_init(&b, "jit_step");
	main_c = hb_comp(&b, "main");
	p = hb_inst(&b, main_c, "p", "parameter", F32, 1, D(1000), NOOPS);
	hb_inst(&b, main_c, "custom-call.1", "custom-call", F32, 1, D(1000), OPS(p));
	b.mod.entry_computation_id = main_c->id;
	hb_attach(&b, meta, md);
	for (k = 0; k < 3; k++) {
		kernel(g, l, "gemm_k", k * 1000, 100, "custom-call.1");
		kernel(g, l, "reduce_k", k * 1000 + 150, 100, "custom-call.1");
	}
	an = tu_load_space(s, NULL);
	assert_int_equal(an->steps_source, XT_STEPS_INFERRED);
	/* three runs (not six): two steps, run start to run start */
	assert_int_equal(an->nsteps, 2);
	assert_int_equal(an->steps[0].start_ps, 0);
	assert_int_equal(an->steps[1].start_ps, 1000);
	assert_int_equal(an->steps[1].duration_ps, 1000);
	/* cut anywhere along the line: the same */
	stream_split_min = 2;
	same_analysis(an, tu_load_space(s, NULL));
	stream_split_min = 400000;
}

/* A program whose first op launches one kernel twice (a sort's passes)
 * before its other op: the kernel coming again within a run is no new
 * run. A side stream that runs one op of it a run keeps its runs apart:
 * as one stretch over all of them it would join the main stream's runs
 * into one. */
static void test_first_op_twice_steps(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_plane *meta = tu_plane_add(s, 0, "/host:metadata");
	tu_line *main_l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	tu_line *side = tu_line_add(g, 2, "Stream #2(Compute)", 0);
	tu_emeta_t *md = tu_emeta_id(meta, 9, "jit_step(9)", "");
	XlaSubset__HloComputationProto *main_c;
	XlaSubset__HloInstructionProto *p;
	struct xt_analysis *an;
	struct hb b;
	int k;

	(void)state;
	hb_init(&b, "jit_step");
	main_c = hb_comp(&b, "main");
	p = hb_inst(&b, main_c, "p", "parameter", F32, 1, D(1000), NOOPS);
	hb_inst(&b, main_c, "sort.1", "sort", F32, 1, D(1000), OPS(p));
	hb_inst(&b, main_c, "fusion.c", "fusion", F32, 1, D(1000), OPS(p));
	hb_inst(&b, main_c, "fusion.d", "fusion", F32, 1, D(1000), OPS(p));
	b.mod.entry_computation_id = main_c->id;
	hb_attach(&b, meta, md);
	for (k = 0; k < 3; k++) {
		int64_t t = k * 1000;

		kernel(g, main_l, "sort_k", t, 100, "sort.1");
		kernel(g, main_l, "sort_k", t + 100, 100, "sort.1");
		kernel(g, main_l, "fusion_c", t + 300, 100, "fusion.c");
		kernel(g, side, "fusion_d", t + 50, 30, "fusion.d");
	}
	an = tu_load_space(s, NULL);
	assert_int_equal(an->steps_source, XT_STEPS_INFERRED);
	assert_int_equal(an->nsteps, 2);
	for (k = 0; k < 2; k++) {
		assert_int_equal(an->steps[k].start_ps, k * 1000);
		assert_int_equal(an->steps[k].duration_ps, 1000);
	}
	stream_split_min = 2;
	same_analysis(an, tu_load_space(s, NULL));
	stream_split_min = 400000;
}

/* The real GPU profiles of tests/fixtures (JAX on an H100 and an H200,
 * with and without command buffers, an agent's capture among them). */
static const char *const real_gpu[] = {
	"h100/jax-h100-mlp-cb",	     "h100/jax-h100-mlp-nocb",	  "h100/jax-h100-tfm-cb",
	"h100/jax-h100-tfm-nocb",    "h100/jax-h100-scan-cb",	  "h100/jax-h100-scan-nocb",
	"h200/jax-h200-tfm-nocb",    "h200/jax-h200-sort-nocb",	  "h200/agent-h200-mlp-cb",
};

/* The real GPU profiles, each line with graph launches cut in two: the
 * same analysis as in one pass. */
static void test_real_profiles_cut(void **state)
{
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(real_gpu) / sizeof(real_gpu[0]); i++) {
		struct xt_analysis *whole;
		unsigned pc;

		snprintf(path, sizeof(path), "tests/fixtures/%s.xplane.pb.gz", real_gpu[i]);
		if (access(path, R_OK) != 0)
			skip(); /* run from the repository root */
		whole = tu_load(path, NULL);
		/* Cuts all along the line: the join must not depend on where
		 * the first piece's tables happen to be full. */
		stream_split_min = 2;
		for (pc = 2; pc < 100; pc += 7) {
			stream_cut_percent = pc;
			same_analysis(whole, tu_load(path, NULL));
		}
		stream_split_min = 400000;
		stream_cut_percent = 50;
	}
}

/* The real GPU profiles read three ways give one analysis: [0] walking
 * the decoded lines (analysis_run: each launch's stats read from its
 * bytes), [1] with the sink reading the launches' keys as lines are
 * decoded whole, [2] as they are decoded in 2 KiB chunks by both threads,
 * each stream line then also cut in two pieces (the pieces start and end
 * inside chunks). */
static void test_real_profiles_sink(void **state)
{
	char path[256];
	size_t i, run;

	(void)state;
	for (i = 0; i < sizeof(real_gpu) / sizeof(real_gpu[0]); i++) {
		struct xt_analysis *a[3];
		struct xt_trace *t = NULL;

		snprintf(path, sizeof(path), "tests/fixtures/%s.xplane.pb.gz", real_gpu[i]);
		if (access(path, R_OK) != 0)
			skip(); /* run from the repository root */
		for (run = 0; run < 3; run++) {
			struct analysis_ctx *ac = analysis_new();
			struct xplane_load_opts o = { .threads = 2,
						      .split_bytes = run == 2 ? 3 * 2048 : 0 };
			struct xt_error err = { "" };

			if (run) {
				t = trace_new();
				analysis_attach(ac, &o);
				stream_split_min = run == 2 ? 2 : 400000;
				assert_int_equal(xplane_load(t, path, "host", &o, &err), 0);
				stream_split_min = 400000;
				a[run] = analysis_finish(ac, t);
				TU_PUSH(tu_reg.loaded, tu_reg.nloaded,
					((struct tu_loaded){ t, a[run] }));
			} else {
				t = tu_read(path); /* freed at teardown */
				analysis_run(ac, t);
				a[run] = analysis_finish(ac, t);
				TU_PUSH(tu_reg.loaded, tu_reg.nloaded,
					((struct tu_loaded){ NULL, a[run] }));
			}
		}
		/* The GPU's busiest line was read in several chunks. */
		{
			const struct xt_plane *g = NULL;
			size_t p, l, most = 0;

			for (p = 0; p < t->hosts[0].nplanes; p++)
				if (!strncmp(t->hosts[0].planes[p].name, "/device:GPU:", 12))
					g = &t->hosts[0].planes[p];
			assert_non_null(g);
			for (l = 0; l < g->nlines; l++)
				if (g->lines[l].raw_len > most)
					most = g->lines[l].raw_len;
			assert_true(most > 4 * 2048);
		}
		same_analysis(a[0], a[1]);
		same_analysis(a[0], a[2]);
	}
}

/* The analysis of path read with the sink (launch keys from the reader)
 * and without it (keys from each launch's bytes). */
static void sink_and_bytes(const char *path, struct xt_analysis *a[2])
{
	struct analysis_ctx *ac = analysis_new();
	struct xt_trace *t = tu_read(path); /* freed at teardown */

	a[0] = tu_load(path, NULL);
	analysis_run(ac, t);
	a[1] = analysis_finish(ac, t);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ NULL, a[1] }));
}

/* What the stream pass keeps of a launch by its stats' bytes is what
 * decoding each launch gives: (1) a kernel that names no op takes its
 * slot's attribution as it stands at each launch, not as its first launch
 * found it; (2) a plane whose correlation id is also the id of a stat the
 * pass reads (two names for one id) is read launch by launch. */
static void test_launch_keys_exact(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	static const char seq[] = "ABBC";
	struct xt_analysis *a[2];
	size_t i, k;

	(void)state;
	/* kA and kC name op foo; kernel foo names none: the op foo by its
	 * name, an XLA op once kA made it one. */
	for (i = 0; seq[i]; i++) {
		const char *name = seq[i] == 'A' ? "kA" : seq[i] == 'B' ? "foo" : "kC";
		tu_event *e = tu_ev(g, l, name, (int64_t)i * 2000, 1000);

		if (seq[i] != 'B')
			TU_SS(g, e, "hlo_op", "foo");
		TU_SU(g, e, "correlation_id", 100 + i);
	}
	sink_and_bytes(tu_write(s, 0), a);
	for (k = 0; k < 2; k++)
		assert_int_equal(tu_find_op(a[k], "foo", "")->occurrences, 3);

	/* Stat id 5 is both program_id and correlation_id. */
	s = tu_space_new();
	g = tu_plane_add(s, 0, "/device:GPU:0");
	l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	tu_smeta_id(g, 5, "program_id");
	tu_smeta_id(g, 5, "correlation_id");
	for (i = 0; i < 5; i++) {
		static const uint64_t prog[5] = { 1, 2, 1, 2, 3 };
		tu_event *e = tu_ev(g, l, "k1", (int64_t)i * 2000, 1000);

		tu_stat_uint(&e->n_stats, &e->stats, 5, prog[i]);
		TU_SS(g, e, "hlo_op", "op");
	}
	sink_and_bytes(tu_write(s, 0), a);
	for (k = 0; k < 2; k++) {
		assert_int_equal(a[k]->nops, 3);
		assert_int_equal(tu_find_op(a[k], "op", "1")->occurrences, 2);
		assert_int_equal(tu_find_op(a[k], "op", "3")->occurrences, 1);
	}
}

/* A line whose launches' keys never repeat stops keying them, and keys
 * them again once they repeat: 4096 launches of an op each (as
 * TensorFlow's per-launch `level 0` refers to a stat metadata of its own),
 * then 8192 of ten ops on four kernels, none its kernel's last key. Read
 * either way, one analysis. */
static void test_launch_keys_unkeyed(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	static const char *const kn[4] = { "k0", "k1", "k2", "k3" };
	struct xt_analysis *a[2];
	size_t i, before, skipped;
	char op[32];

	(void)state;
	for (i = 0; i < 4096 + 8192; i++) {
		tu_event *e = tu_ev(g, l, kn[i % 4], (int64_t)i * 2000, 1000);

		if (i < 4096)
			snprintf(op, sizeof(op), "u%zu", i);
		else
			snprintf(op, sizeof(op), "r%zu", i % 10);
		TU_SS(g, e, "hlo_op", op);
		TU_SU(g, e, "correlation_id", 100 + i);
	}
	before = atomic_load(&kern_unkeyed);
	sink_and_bytes(tu_write(s, 0), a);
	skipped = atomic_load(&kern_unkeyed) - before;
	/* Windows of 1024: the first two keyed (a part's first keys are all
	 * new), the next two not, the repeats' first not either (decided by
	 * the window before), then keyed again: not the repeats' 8192. */
	assert_int_equal(skipped, 2 * 1024 + 1024);
	same_analysis(a[0], a[1]);
	assert_int_equal(a[0]->nops, 4096 + 10);
	assert_int_equal(tu_find_op(a[0], "r3", "")->occurrences, 8192 / 10 + (3 < 8192 % 10));

	/* A line shorter than a window is keyed, new keys or not; and so are
	 * launches that repeat their kernel's last key, however many. */
	s = tu_space_new();
	g = tu_plane_add(s, 0, "/device:GPU:0");
	l = tu_line_add(g, 1, "Stream #1(Compute)", 0);
	for (i = 0; i < 1000 + 5000; i++) {
		tu_event *e = tu_ev(g, l, i < 1000 ? kn[i % 4] : "k9", (int64_t)i * 2000, 1000);

		snprintf(op, sizeof(op), "u%zu", i < 1000 ? i : 1000);
		TU_SS(g, e, "hlo_op", op);
		TU_SU(g, e, "correlation_id", 100 + i);
	}
	before = atomic_load(&kern_unkeyed);
	sink_and_bytes(tu_write(s, 0), a);
	assert_int_equal(atomic_load(&kern_unkeyed) - before, 0);
	same_analysis(a[0], a[1]);
	assert_int_equal(tu_find_op(a[0], "u1000", "")->occurrences, 5000);
}

/* ---- async ops, impossible rates and peaks on an XLA device ---- */

/* The event metadata (name, display), added with the next free id if new. */
static tu_emeta_t *emeta2(tu_plane *p, const char *name, const char *display)
{
	int64_t next = 1;
	size_t i;

	for (i = 0; i < p->n_event_metadata; i++) {
		const tu_emeta_t *v = p->event_metadata[i]->value;

		if (!strcmp(v->name, name) && !strcmp(v->display_name, display))
			return p->event_metadata[i]->value;
		if (p->event_metadata[i]->key >= next)
			next = p->event_metadata[i]->key + 1;
	}
	return tu_emeta_id(p, next, name, display);
}

static tu_event *xla_op(tu_plane *d, tu_line *l, const char *hlo, const char *disp, int64_t t,
			int64_t dur, const char *cat, int64_t flops, int64_t bytes)
{
	tu_emeta_t *m = emeta2(d, hlo, disp);
	tu_event *e;

	if (m->n_stats == 0) {
		TU_SS(d, m, "hlo_category", cat);
		TU_SU(d, m, "program_id", 5);
		TU_SI(d, m, "flops", flops);
		TU_SI(d, m, "bytes_accessed", bytes);
	}
	e = tu_event_add(l, m->id, t, dur);
	return e;
}

static void test_async_and_impossible_rates(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *d = tu_plane_add(s, 0, "/device:TPU:0");
	tu_line *ops = tu_line_add(d, 3, "XLA Ops", 0);
	tu_line *async = tu_line_add(d, 4, "Async XLA Ops", 0);
	tu_plane *te = tu_plane_add(s, 9, "Task Environment");
	struct xt_analysis *an;
	const struct xt_op_row *op;
	int i;

	(void)state;
	TU_SD(d, d, "peak_teraflops_per_second", 100.0);          /* 1e14 FLOP/s */
	TU_SD(d, d, "peak_hbm_bw_gigabytes_per_second", 1000.0);  /* 1e12 B/s */
	TU_SU(te, te, "profile_start_time", 1000);
	TU_SU(te, te, "profile_stop_time", 2000000);
	for (i = 0; i < 3; i++) {
		int64_t t = i * 1000000000ll; /* every ms */

		/* A copy of 1e9 bytes: its start returns after 5 ns; the
		 * transfer (Async XLA Ops) takes 2 ms: 3e9 bytes over 6 ms is
		 * 5e11 B/s, half the 1e12 peak. */
		xla_op(d, ops, "%copy-start.1 = (f32[], f32[]) copy-start(f32[] %p)", "copy-start.1", t,
		       5000, "copy-start", 0, 1000000000);
		{
			tu_emeta_t *m = emeta2(d, "%copy-start.1 = (f32[], f32[]) copy-start(f32[] %p)",
					       "async-copy");
			if (m->n_stats == 0)
				TU_SU(d, m, "program_id", 5);
			tu_event_add(async, m->id, t, 2000000000ll); /* 2 ms */
		}
		xla_op(d, ops, "%copy-done.1 = f32[] copy-done(%copy-start.1)", "copy-done.1",
		       t + 10000, 90000, "copy-done", 0, 1000000000);
		/* 1e8 FLOPs and 1e6 bytes in 10 us: 1e13 FLOP/s (10%), 1e11 B/s */
		xla_op(d, ops, "%fusion.1 = f32[] fusion()", "fusion.1", t + 200000, 10000000,
		       "loop fusion", 100000000, 1000000);
		/* 1e12 bytes in 1 ns: impossible */
		xla_op(d, ops, "%fusion.2 = f32[] fusion()", "fusion.2", t + 20000000, 1000,
		       "loop fusion", 0, 1000000000000ll);
	}
	an = tu_load_space(s, NULL);
	op = tu_find_op(an, "copy-start.1", "5");
	assert_int_equal(op->async, 1);
	assert_int_equal(op->rate_ps, 6000000000ll);
	assert_near(op->bytes_per_s, 3e9 / 6e-3); /* 5e11 B/s */
	assert_near(op->hbm_bw_utilization, 0.5);
	assert_int_equal(op->bound_by, XT_BOUND_MEMORY);
	op = tu_find_op(an, "copy-done.1", "5");
	assert_int_equal(op->async, 2);
	assert_true(isnan(op->bytes_per_s));
	assert_true(*op->rate_note);
	op = tu_find_op(an, "fusion.1", "5");
	assert_near(op->flops_per_s, 1e13);
	assert_near(op->flops_utilization, 0.1);
	assert_near(op->hbm_bw_utilization, 0.1);
	assert_near(op->intensity, 100);
	assert_int_equal(op->bound_by, XT_BOUND_COMPUTE);
	op = tu_find_op(an, "fusion.2", "5");
	assert_true(isnan(op->bytes_per_s));
	assert_true(isnan(op->hbm_bytes_per_s));
	assert_true(isnan(op->hbm_bw_utilization));
	/* its share of HBM's roof, above 1, is the larger: memory-bound */
	assert_int_equal(op->bound_by, XT_BOUND_MEMORY);
	assert_non_null(strstr(op->rate_note, "peak"));
	/* The device's peaks from its plane stats. */
	assert_near(an->devices[0].peak_flops, 1e14);
	assert_near(an->devices[0].peak_hbm_bw, 1e12);
	assert_string_equal(an->devices[0].peak_source, "profile");
}

static void test_gpu_peaks_tables(void **state)
{
	static const struct {
		int major, minor, cores;
		double clock_khz;
		const char *vendor;
		double expect, bw_x; /* bw_x: HBM3's doubling of memory_bandwidth */
	} cases[] = {
		{ 7, 0, 80, 1530000, "Nvidia", 1024.0 * 80 * 1.53e9, 1 },   /* V100 */
		{ 9, 0, 132, 1980000, "Nvidia", 4096.0 * 132 * 1.98e9, 1 }, /* H100 */
		{ 12, 0, 100, 2000000, "Nvidia", 8192.0 * 100 * 2e9, 1 },   /* newer: backs off */
		{ 9, 4, 304, 2100000, "AMD", 2048.0 * 304 * 2.1e9, 2 },	    /* MI300X, HBM3 */
		{ 9, 0, 220, 1700000, "AMD", 1024.0 * 220 * 1.7e9, 1 },	    /* MI250X, HBM2e */
		{ 8, 0, 304, 2100000, "AMD", NAN, 1 },			    /* unknown AMD */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tu_space *s = tu_space_new();
		tu_plane *g = tu_plane_add(s, 0, "/device:GPU:0");
		struct xt_analysis *an;

		TU_SU(g, g, "clock_rate", (uint64_t)cases[i].clock_khz);
		TU_SU(g, g, "core_count", (uint64_t)cases[i].cores);
		TU_SU(g, g, "compute_cap_major", (uint64_t)cases[i].major);
		TU_SU(g, g, "compute_cap_minor", (uint64_t)cases[i].minor);
		TU_SU(g, g, "memory_bandwidth", 2000000000000ull);
		TU_SS(g, g, "device_vendor", cases[i].vendor);
		tu_line_add(g, 1, "Stream #1(Compute)", 0);
		an = tu_load_space(s, NULL);
		if (isnan(cases[i].expect))
			assert_true(isnan(an->devices[0].peak_flops));
		else
			assert_true(fabs(an->devices[0].peak_flops - cases[i].expect) < 1);
		assert_near(an->devices[0].peak_hbm_bw, 2e12 * cases[i].bw_x);
		assert_true(!strncmp(an->devices[0].peak_hbm_source, "profile", 7));
	}
}

/* ---- time base ---- */

static void test_time_base(void **state)
{
	/* An absolute epoch clock (picoseconds overflow int64 unless rebased),
	 * with Task Environment's start 2 ms before the first line. */
	const int64_t epoch = 1763900000000000000ll;
	tu_space *s = tu_space_new();
	tu_plane *d = tu_plane_add(s, 0, "/device:GPU:0");
	tu_line *l = tu_line_add(d, 1, "Stream #1(Compute)", epoch);
	tu_plane *te = tu_plane_add(s, 9, "Task Environment");
	struct xt_trace *t;
	struct xt_analysis *an;
	const struct xt_line *ln;

	(void)state;
	tu_ev(d, l, "k", 3000, 500);
	TU_SU(te, te, "profile_start_time", (uint64_t)(epoch - 2000000));
	TU_SU(te, te, "profile_stop_time", (uint64_t)(epoch + 9000000));
	an = tu_load_space(s, &t);
	assert_int_equal(t->hosts[0].origin_kind, XT_ORIGIN_TASK_ENV);
	ln = tu_find_line(tu_find_plane(&t->hosts[0], "/device:GPU:0"), "Stream #1(Compute)");
	/* 2 ms + 3 ns after the profile start */
	assert_int_equal(trace_rel_ps(t, xt_event_start(ln, &ln->ev[0])), 2000003000ll);
	assert_int_equal(an->devices[0].span_ps, 500);

	/* A raw monotonic clock (a PJRT plugin's XSpace): no Task Environment;
	 * the first line is the start. */
	s = tu_space_new();
	d = tu_plane_add(s, 0, "/device:GPU:0");
	l = tu_line_add(d, 1, "Stream #1(Compute)", 6083479400000000ll);
	tu_ev(d, l, "k", 7000, 500);
	l = tu_line_add(d, 2, "Stream #2(Compute)", 6083479400001000ll);
	tu_ev(d, l, "k", 0, 500);
	tu_load_space(s, &t);
	assert_int_equal(t->hosts[0].origin_kind, XT_ORIGIN_FIRST_LINE);
	ln = tu_find_line(tu_find_plane(&t->hosts[0], "/device:GPU:0"), "Stream #2(Compute)");
	assert_int_equal(trace_rel_ps(t, xt_event_start(ln, &ln->ev[0])), 1000000);

	/* Normalized timestamps (upstream's): times count from 0. */
	s = tu_space_new();
	d = tu_plane_add(s, 0, "/device:GPU:0");
	l = tu_line_add(d, 1, "Stream #1(Compute)", 212990);
	tu_ev(d, l, "k", 7000, 500);
	te = tu_plane_add(s, 9, "Task Environment");
	TU_SU(te, te, "profile_start_time", (uint64_t)epoch);
	TU_SU(te, te, "profile_stop_time", (uint64_t)(epoch + 9000000000ll));
	tu_load_space(s, &t);
	assert_int_equal(t->hosts[0].origin_kind, XT_ORIGIN_NORMALIZED);
	assert_int_equal(t->origin_ps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_hlo_cost_model),
		TU_TEST(test_hlo_malformed),
		TU_TEST(test_command_buffer_attribution),
		TU_TEST(test_command_buffer_order),
		TU_TEST(test_loop_side_stream_steps),
		TU_TEST(test_one_op_program_steps),
		TU_TEST(test_first_op_twice_steps),
		TU_TEST(test_real_profiles_cut),
		TU_TEST(test_real_profiles_sink),
		TU_TEST(test_launch_keys_exact),
		TU_TEST(test_launch_keys_unkeyed),
		TU_TEST(test_async_and_impossible_rates),
		TU_TEST(test_gpu_peaks_tables),
		TU_TEST(test_time_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
