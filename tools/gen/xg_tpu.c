/*
 * xg_tpu.c - the TPU-like device planes of xtop-gen: the op table and the
 * events of the step, module and op lines, with their share of the
 * expected results (see xg_tpu.h).
 *
 * Ops sit in fixed time slots computed by the plan (xg_plan.c); a parent
 * (while.4, call.12) is written before its children, its duration being
 * known from the slots, and its self time is whatever its children leave.
 */
#include "xg_tpu.h"

#include <stddef.h>

#include "xg_expect.h"
#include "xg_meta.h"
#include "xg_plan.h"
#include "xg_space.h"

/* Durations keep every op's bandwidth under the 1640 GB/s HBM peak the
 * device planes state (a real profile never shows more). */
const struct xg_tpu_op xg_tpu_ops[T_COUNT] = {
	{"%broadcast.1 = f32[1024,1024]{1,0} broadcast(f32[] %constant.0), dimensions={}",
	 "broadcast.1", "broadcast", "jit(init_params)/broadcast_in_dim", PROG_INIT, 0, 4194304, 10 * US, US},
	{"%copy.1 = f32[1024,1024]{0,1} copy(f32[1024,1024]{1,0} %broadcast.1)",
	 "copy.1", "data formatting", "jit(init_params)/transpose", PROG_INIT, 0, 8388608, 12 * US, US},
	{"%copy.1 = bf16[128,1024]{0,1} copy(bf16[128,1024]{1,0} %Arg_0.1)",
	 "copy.1", "data formatting", "jit(train_step)/transpose", PROG_TRAIN, 0, 524288, 3 * US, 300000},
	{"%fusion.2 = bf16[128,1024]{1,0} fusion(bf16[128,1024]{1,0} %copy.1), kind=kLoop, calls=%fused_computation.2",
	 "fusion.2", "loop fusion", "jit(train_step)/mul", PROG_TRAIN, 131072, 524288, 5 * US, 500000},
	{"%convolution.3 = f32[128,1024]{1,0} convolution(bf16[128,1024]{1,0} %fusion.2, bf16[1024,1024]{1,0} %Arg_1.2), dim_labels=bf_io->bf",
	 "convolution.3", "convolution", "jit(train_step)/dot_general", PROG_TRAIN, 268435456, 2621440, 20 * US, 2 * US},
	{"%while.4 = (s32[], f32[128,1024]{1,0}, f32[1024,1024]{1,0}) while((s32[], f32[128,1024]{1,0}, f32[1024,1024]{1,0}) %tuple.3), condition=%region_1.cond, body=%region_0.body",
	 "while.4", "control flow", "jit(train_step)/while", PROG_TRAIN, 0, 0, 0, 0},
	{"%fusion.10 = f32[128,1024]{1,0} fusion(f32[128,1024]{1,0} %get-tuple-element.5), kind=kLoop, calls=%fused_computation.10",
	 "fusion.10", "loop fusion", "jit(train_step)/while/body/tanh", PROG_TRAIN, 131072, 1048576, 2 * US, 200000},
	{"%convolution.11 = f32[1024,1024]{1,0} convolution(f32[128,1024]{1,0} %fusion.10, f32[128,1024]{1,0} %get-tuple-element.6), dim_labels=fb_io->bf",
	 "convolution.11", "convolution", "jit(train_step)/while/body/dot_general", PROG_TRAIN, 268435456, 5242880, 8 * US, 800000},
	{"%call.12 = f32[128]{0} call(f32[128,1024]{1,0} %fusion.10), to_apply=%region_2.norm",
	 "call.12", "control flow", "jit(train_step)/while/body/norm", PROG_TRAIN, 0, 0, 0, 0},
	{"%fusion.20 = f32[128,1024]{1,0} fusion(f32[128,1024]{1,0} %param_0.7), kind=kOutput, calls=%fused_computation.20",
	 "fusion.20", "output fusion", "jit(train_step)/while/body/norm/square", PROG_TRAIN, 131072, 1048576, 1500000, 150000},
	{"%reduce.21 = f32[128]{0} reduce(f32[128,1024]{1,0} %fusion.20, f32[] %constant.5), dimensions={1}, to_apply=%region_3.add",
	 "reduce.21", NULL, "jit(train_step)/while/body/norm/reduce_sum", PROG_TRAIN, 131072, 524800, US, 100000},
	{"%all-reduce.13 = f32[1024,1024]{1,0} all-reduce(f32[1024,1024]{1,0} %convolution.11), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%region_4.sum",
	 "all-reduce.13", "all-reduce", "jit(train_step)/while/body/psum", PROG_TRAIN, 1048576, 4194304, 4 * US, 400000},
	{"%fusion.14 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %all-reduce.13, f32[1024,1024]{1,0} %get-tuple-element.6), kind=kLoop, calls=%fused_computation.14",
	 "fusion.14", "loop fusion", "jit(train_step)/while/body/sub", PROG_TRAIN, 1048576, 4194304, 3 * US, 200000},
	{"%all-reduce.5 = f32[1024,1024]{1,0} all-reduce(f32[1024,1024]{1,0} %get-tuple-element.9), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%region_5.sum",
	 "all-reduce.5", "all-reduce", "jit(train_step)/psum", PROG_TRAIN, 1048576, 8388608, 15 * US, 1500000},
	{"%fusion.6 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %all-reduce.5, f32[] %Arg_2.3), kind=kLoop, calls=%fused_computation.6",
	 "fusion.6", "loop fusion", "jit(train_step)/mul", PROG_TRAIN, 1048576, 8388608, 8 * US, 400000},
	{"%copy.7 = f32[1024,1024]{0,1} copy(f32[1024,1024]{1,0} %fusion.6)",
	 "copy.7", "data formatting", "jit(train_step)/transpose", PROG_TRAIN, 0, 8388608, 8 * US, 300000},
};

/* one op event; counts an occurrence of op and its total time */
static void xg_tpu_event(struct xg_space_ctx *c, int d, int op, uint64_t start, uint64_t dur)
{
	struct xg_space_sv sv[2] = { SV_U(S_DEV_OFFSET, start), SV_U(S_DEV_DURATION, dur) };
	xg_space_event(c, (uint64_t)op + 1, start, dur, sv, 2);
	if (c->ex) {
		c->ex->occ[op]++;
		c->ex->total[op] += dur;
		xg_expect_dev_span(c->ex, d, start, start + dur);
	}
}

/* adds self time of op on device d (the time it is busy) */
static void xg_tpu_self(struct xg_space_ctx *c, int d, int op, uint64_t self)
{
	if (c->ex) {
		c->ex->self[op] += self;
		c->ex->busy[d] += self;
	}
}

/* a childless op in the slot starting at slot0; returns its duration */
static uint64_t xg_tpu_leaf(struct xg_space_ctx *c, int d, int op, int k, uint64_t it,
			    uint64_t slot0)
{
	uint64_t dur = xg_plan_leaf_dur(c->p, d, op, k, it, xg_tpu_ops[op].base,
					xg_tpu_ops[op].jit);
	xg_tpu_event(c, d, op, slot0 + TPU_GAP, dur);
	xg_tpu_self(c, d, op, dur);
	return dur;
}

/* XLA Ops unit: the init ops, or one while loop of step k with the
 * prologue (first block) and epilogue (last block) around it */
void xg_tpu_ops_unit(struct xg_space_ctx *c, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		uint64_t t = T_INIT + (uint64_t)d * SKEW + MOD_PAD;
		xg_tpu_leaf(c, d, T_BCAST1, -1, 0, t);
		xg_tpu_leaf(c, d, T_COPY1I, -1, 0, t + p->slot[T_BCAST1]);
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M), j = (int)((u - 1) % (uint64_t)p->M);
	uint64_t t = xg_plan_dev_step_start(p, d, k) + xg_plan_step_wait(p, d, k) + MOD_PAD;
	if (j == 0) {
		for (int op = T_COPY1; op <= T_CONV3; op++) {
			xg_tpu_leaf(c, d, op, k, 0, t);
			t += p->slot[op];
		}
	} else {
		t += p->pro_slots + (uint64_t)j * p->slot[T_WHILE4];
	}
	uint64_t ws = t + TPU_GAP, ct = ws + TPU_PAD, csum = 0;
	xg_tpu_event(c, d, T_WHILE4, ws, p->while_dur);
	for (uint64_t it = (uint64_t)j * p->B; it < (uint64_t)(j + 1) * p->B; it++) {
		csum += xg_tpu_leaf(c, d, T_FUSION10, k, it, ct);
		ct += p->slot[T_FUSION10];
		csum += xg_tpu_leaf(c, d, T_CONV11, k, it, ct);
		ct += p->slot[T_CONV11];
		uint64_t cs = ct + TPU_GAP;
		xg_tpu_event(c, d, T_CALL12, cs, p->call_dur);
		uint64_t gsum = xg_tpu_leaf(c, d, T_FUSION20, k, it, cs + TPU_PAD);
		gsum += xg_tpu_leaf(c, d, T_REDUCE21, k, it, cs + TPU_PAD + p->slot[T_FUSION20]);
		xg_tpu_self(c, d, T_CALL12, p->call_dur - gsum);
		csum += p->call_dur;
		ct += p->slot[T_CALL12];
		csum += xg_tpu_leaf(c, d, T_AR13, k, it, ct);
		ct += p->slot[T_AR13];
		csum += xg_tpu_leaf(c, d, T_FUSION14, k, it, ct);
		ct += p->slot[T_FUSION14];
	}
	xg_tpu_self(c, d, T_WHILE4, p->while_dur - csum);
	if (j == p->M - 1) {
		t += p->slot[T_WHILE4];
		for (int op = T_AR5; op <= T_COPY7; op++) {
			xg_tpu_leaf(c, d, op, k, 0, t);
			t += p->slot[op];
		}
	}
}

int64_t xg_tpu_traceme_md(const struct xg_plan *p)
{
	return T_COUNT + 1 + PROG_COUNT + (int64_t)p->S;
}

/* the runtime's view of a step's program on the device ("XLA TraceMe") */
void xg_tpu_traceme_unit(struct xg_space_ctx *c, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0 || (u - 1) % (uint64_t)p->M != 0)
		return;
	int k = (int)((u - 1) / (uint64_t)p->M);
	uint64_t s = xg_plan_dev_step_start(p, d, k) + xg_plan_step_wait(p, d, k);
	xg_space_event(c, (uint64_t)xg_tpu_traceme_md(p), s, p->module_dur + 2 * MOD_PAD, NULL, 0);
}

/* step markers ("Steps") or module runs ("XLA Modules") */
void xg_tpu_marker_unit(struct xg_space_ctx *c, int kind, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		if (kind == L_TPU_MODULES) {
			struct xg_space_sv sv[1] = { SV_U(S_RUN_ID, 1) };
			xg_space_event(c, T_COUNT + 1 + PROG_INIT, T_INIT + (uint64_t)d * SKEW,
				       p->init_dur, sv, 1);
		}
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M);
	if ((u - 1) % (uint64_t)p->M != 0)
		return;
	uint64_t s = xg_plan_dev_step_start(p, d, k), w = xg_plan_step_wait(p, d, k);
	if (kind == L_TPU_MODULES) {
		struct xg_space_sv sv[2] = { SV_U(S_RUN_ID, 2 + k),
					     SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_space_event(c, T_COUNT + 1 + PROG_TRAIN, s + w, p->module_dur, sv, 2);
	} else {
		uint64_t dur = w + p->module_dur + STEP_TAIL;
		struct xg_space_sv sv[1] = { SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_space_event(c, T_COUNT + 1 + PROG_COUNT + (uint64_t)k, s, dur, sv, 1);
		if (c->ex) {
			xg_expect_step_span(c->ex, k, s, s + dur);
			xg_expect_dev_span(c->ex, d, s, s + dur);
		}
	}
}
