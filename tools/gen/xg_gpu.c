/*
 * xg_gpu.c - the GPU-like device planes of xtop-gen: the kernel and op
 * tables, the stream events and the host launches that mirror them, with
 * their share of the expected results (see xg_gpu.h).
 */
#include "xg_gpu.h"

#include <stdio.h>

#include "xg_expect.h"
#include "xg_host.h"
#include "xg_meta.h"
#include "xg_plan.h"
#include "xg_space.h"

const struct xg_gpu_kernel xg_gpu_kernels[K_COUNT] = {
	{"wrapped_broadcast", 16, 0, 0, {4096, 1, 1}, {256, 1, 1}, 100, KD_REF, 30 * US, 3 * US},
	{"wrapped_copy", 18, 0, 0, {4096, 1, 1}, {256, 1, 1}, 100, KD_REF, 20 * US, 2 * US},
	{"loop_multiply_fusion", 32, 0, 0, {1024, 1, 1}, {128, 1, 1}, 100, KD_META, 6 * US, US},
	{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	 168, 0, 213504, {8, 16, 1}, {384, 1, 1}, 12, KD_REF, 40 * US, 6 * US},
	{"input_reduce_fusion", 64, 0, 49152, {16, 16, 1}, {256, 1, 1}, 50, KD_STR, 10 * US, 2 * US},
	{"input_reduce_fusion_1", 40, 4096, 0, {128, 1, 1}, {512, 1, 1}, 75, KD_REF, 4 * US, US},
	{"input_reduce_fusion_2", 24, 0, 0, {1, 1, 1}, {1024, 1, 1}, 50, KD_REF, 2 * US, 500000},
	{"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8",
	 128, 0, 81920, {32, 8, 1}, {128, 1, 1}, 25, KD_REF, 25 * US, 4 * US},
	{"ncclDevKernel_AllReduce_Sum_f32_RING_LL", 96, 0, 0, {2, 1, 1}, {544, 1, 1}, 6, KD_STR, 0, 0},
	{"MemcpyH2D", 0, 0, 0, {0}, {0}, 0, KD_NONE, 12 * US, 4 * US},
	{"MemcpyD2H", 0, 0, 0, {0}, {0}, 0, KD_NONE, 3 * US, US},
};
const struct xg_gpu_op xg_gpu_ops[G_COUNT] = {
	{"broadcast.1", "broadcast.1", PROG_INIT, HLO_STR, MOD_REF},
	{"copy.1", "copy.1", PROG_INIT, HLO_REF, MOD_REF},
	{"fusion.21", "fusion.21", PROG_TRAIN, HLO_STR, MOD_NONE},
	{"custom-call.4", "custom-call.4", PROG_TRAIN, HLO_REF, MOD_REF},
	{"while.3::fusion.22", "fusion.22", PROG_TRAIN, HLO_REF, MOD_STR},
	{"custom-call.8", "custom-call.8", PROG_TRAIN, HLO_STR, MOD_REF},
	{"all-reduce.13", "all-reduce.13", PROG_TRAIN, HLO_STR, MOD_REF},
	{"all-reduce.17", "all-reduce.17", PROG_TRAIN, HLO_REF, MOD_REF},
	{NULL, "MemcpyH2D", -1, HLO_NONE, MOD_NONE},
	{NULL, "MemcpyD2H", -1, HLO_NONE, MOD_NONE},
};
/* the kernels of one iteration on stream 14 and the ops they belong to */
static const int xg_gpu_iter_op[GPU_ITER_K] = { G_FUSION21, G_CC4, G_FUSION22,
						G_FUSION22, G_FUSION22, G_CC8 };
const int xg_gpu_iter_k[GPU_ITER_K] = { K_MUL, K_GEMM, K_RED0, K_RED1,
					K_RED2, K_CUTLASS };
/* kernel-stats rows: (op, kernel) pairs, init 0-1, iteration 2-7, nccl 8-9 */
const int xg_gpu_krow_op[KR_COUNT] = { G_BCAST1, G_COPY1, G_FUSION21, G_CC4,
	G_FUSION22, G_FUSION22, G_FUSION22, G_CC8, G_AR13, G_AR17 };
const int xg_gpu_krow_k[KR_COUNT] = { K_BCAST, K_COPY, K_MUL, K_GEMM, K_RED0,
	K_RED1, K_RED2, K_CUTLASS, K_NCCL, K_NCCL };

/* start of the compute slots of step k on device d, after the input copies */
static uint64_t xg_gpu_c0(const struct xg_plan *p, int d, int k)
{
	return xg_plan_dev_step_start(p, d, k) + xg_plan_step_wait(p, d, k) + 2 * p->kslot[K_H2D];
}

/* One GPU stream event (kernel or memcpy); busy_add is the part of it not
 * covered by other stream events, known by construction. */
static void xg_gpu_event(struct xg_space_ctx *c, int d, int op, int kern, int row,
			 uint64_t start, uint64_t dur, uint64_t corr, int k,
			 uint64_t busy_add)
{
	const struct xg_plan *p = c->p;
	const struct xg_gpu_op *g = &xg_gpu_ops[op];
	const struct xg_gpu_kernel *gk = &xg_gpu_kernels[kern];
	struct xg_space_sv sv[7] = { SV_U(S_CORRELATION_ID, corr) };
	int n = 1;
	if (gk->kd_mode == KD_REF)
		sv[n++] = (struct xg_space_sv)SV_R(S_KERNEL_DETAILS, p->g_kd_ref[kern]);
	else if (gk->kd_mode == KD_STR)
		sv[n++] = (struct xg_space_sv)SV_S(S_KERNEL_DETAILS, p->kd[kern]);
	else if (gk->kd_mode == KD_NONE)
		sv[n++] = (struct xg_space_sv)SV_S(S_MEMCPY_DETAILS, kern == K_H2D ?
			"kind:HtoD size:4194304 dest:0 async:1" : "kind:DtoH size:4096 dest:0 async:1");
	if (g->hlo_mode == HLO_REF)
		sv[n++] = (struct xg_space_sv)SV_R(S_HLO_OP, p->g_hlo_ref[op]);
	else if (g->hlo_mode == HLO_STR)
		sv[n++] = (struct xg_space_sv)SV_S(S_HLO_OP, g->hlo_op);
	if (g->mod_mode == MOD_REF)
		sv[n++] = (struct xg_space_sv)SV_R(S_HLO_MODULE, p->g_mod_ref[g->prog]);
	else if (g->mod_mode == MOD_STR)
		sv[n++] = (struct xg_space_sv)SV_S(S_HLO_MODULE, xg_meta_prog_names[g->prog]);
	if (g->prog >= 0)
		sv[n++] = (struct xg_space_sv)SV_I(S_PROGRAM_ID, xg_meta_prog_gpu_id[g->prog]);
	if (k >= 0)
		sv[n++] = (struct xg_space_sv)SV_I(S_GROUP_ID, STEP_ID0 + k);
	xg_space_event(c, (uint64_t)kern + 1, start, dur, sv, n);
	if (!c->ex)
		return;
	/* consecutive events of one op and step on a line are one occurrence */
	int64_t group = k >= 0 ? STEP_ID0 + k : -1;
	if (op != c->last_op || group != c->last_group)
		c->ex->occ[T_COUNT + op]++;
	c->last_op = op;
	c->last_group = group;
	c->ex->total[T_COUNT + op] += dur;
	c->ex->self[T_COUNT + op] += dur;
	c->ex->busy[d] += busy_add;
	xg_expect_dev_span(c->ex, d, start, start + dur);
	if (row >= 0) {
		c->ex->kocc[row]++;
		c->ex->ktot[row] += dur;
		if (c->ex->kmin[row] > dur)
			c->ex->kmin[row] = dur;
		if (c->ex->kmax[row] < dur)
			c->ex->kmax[row] = dur;
	}
}

/* correlation id of the seq-th stream event of step k (k < 0: init) on
 * device d, shared by the event and its host launch */
static uint64_t xg_gpu_corr_id(const struct xg_plan *p, int d, int k, uint64_t seq)
{
	uint64_t base = k < 0 ? 1 : 3 + (uint64_t)k * (8 * p->I + 3);
	return ((uint64_t)(d + 1) << 40) | (base + seq);
}

/* duration of kernel kern in iteration it of step k on device d */
static uint64_t xg_gpu_kdur(const struct xg_plan *p, int d, int kern, int k, uint64_t it)
{
	return xg_plan_leaf_dur(p, d, 32 + kern, k, it, xg_gpu_kernels[kern].base,
				xg_gpu_kernels[kern].jit);
}

/* the two all-reduce kernels of iteration i: [start, end) */
static void xg_gpu_nccl_times(const struct xg_plan *p, int d, int k, uint64_t i,
			      uint64_t out[4])
{
	uint64_t base = xg_gpu_c0(p, d, k) + i * p->gpu_iter;
	uint64_t xs = base + p->koff[1] + GPU_GAP, xd = xg_gpu_kdur(p, d, K_GEMM, k, i);
	uint64_t ys = base + p->koff[5] + GPU_GAP, yd = xg_gpu_kdur(p, d, K_CUTLASS, k, i);
	out[0] = xs + xd / 4;		/* overhangs custom-call.4 by GPU_GAP/2 */
	out[1] = xs + xd + GPU_GAP / 2;
	out[2] = ys + yd / 4;		/* entirely inside custom-call.8 */
	out[3] = ys + yd / 2;
}

/* GPU stream lines and the host lines that mirror them, one unit each */
void xg_gpu_unit(struct xg_space_ctx *c, int kind, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	int launch = kind == L_HOST_LAUNCH;
	if (u == 0) {
		uint64_t t = T_INIT + (uint64_t)d * SKEW;
		for (int n = 0; n < 2 && (kind == L_GPU_KERNELS || launch); n++) {
			int kern = n ? K_COPY : K_BCAST;
			uint64_t dur = xg_gpu_kdur(p, d, kern, -1, 0);
			if (launch)
				xg_host_event(c, H_LAUNCH, t - LAUNCH_LEAD, p->kslot[kern] / 2,
					      xg_gpu_corr_id(p, d, -1, (uint64_t)n), -1);
			else
				xg_gpu_event(c, d, n ? G_COPY1 : G_BCAST1, kern, KR_INIT + n,
					     t + GPU_GAP, dur, xg_gpu_corr_id(p, d, -1, (uint64_t)n),
					     -1, dur);
			t += p->kslot[kern];
		}
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M), j = (int)((u - 1) % (uint64_t)p->M);
	uint64_t s = xg_plan_dev_step_start(p, d, k), c0 = xg_gpu_c0(p, d, k);
	if (j == 0 && (kind == L_GPU_H2D || kind == L_GPU_H2D2 || launch)) {
		for (uint64_t n = kind == L_GPU_H2D2; n < (kind == L_GPU_H2D ? 1u : 2u); n++) {
			uint64_t t = s + xg_plan_step_wait(p, d, k) + n * p->kslot[K_H2D];
			uint64_t dur = xg_gpu_kdur(p, d, K_H2D, k, n);
			if (launch)
				xg_host_event(c, H_MEMCPY_H2D, t - LAUNCH_LEAD, p->kslot[K_H2D] / 2,
					      xg_gpu_corr_id(p, d, k, n), k);
			else
				xg_gpu_event(c, d, G_H2D, K_H2D, -1, t + GPU_GAP, dur,
					     xg_gpu_corr_id(p, d, k, n), k, dur);
		}
	}
	if (j == 0 && kind == L_GPU_STEPS) {
		char name[24];
		snprintf(name, sizeof name, "%d", STEP_ID0 + k);
		uint64_t end = c0 + p->I * p->gpu_iter + p->kslot[K_D2H] + STEP_TAIL;
		struct xg_space_sv sv[2] = { SV_I(S_GROUP_ID, STEP_ID0 + k),
					     SV_S(S_STEP_NAME, name) };
		xg_space_event(c, K_COUNT + 1 + (uint64_t)k, s, end - s, sv, 2);
		if (c->ex)
			xg_expect_step_span(c->ex, k, s, end);
	}
	int iters = launch || kind == L_GPU_KERNELS || kind == L_GPU_NCCL || kind == L_HOST_NCCL;
	for (uint64_t i = (uint64_t)j * p->B; iters && i < (uint64_t)(j + 1) * p->B; i++) {
		uint64_t it0 = c0 + i * p->gpu_iter;
		if (kind == L_GPU_KERNELS || launch) {
			for (int q = 0; q < GPU_ITER_K; q++) {
				uint64_t t = it0 + p->koff[q];
				uint64_t corr = xg_gpu_corr_id(p, d, k, 2 + i * 6 + (uint64_t)q);
				if (launch) {
					xg_host_event(c, H_LAUNCH, t - LAUNCH_LEAD,
						      p->kslot[xg_gpu_iter_k[q]] / 2, corr, k);
				} else {
					uint64_t dur = xg_gpu_kdur(p, d, xg_gpu_iter_k[q], k, i);
					xg_gpu_event(c, d, xg_gpu_iter_op[q], xg_gpu_iter_k[q],
						     KR_ITER + q, t + GPU_GAP, dur, corr, k, dur);
				}
			}
		} else if (kind == L_GPU_NCCL || kind == L_HOST_NCCL) {
			uint64_t tt[4];
			xg_gpu_nccl_times(p, d, k, i, tt);
			for (int a = 0; a < 2; a++) {
				uint64_t corr = xg_gpu_corr_id(p, d, k,
							       2 + 6 * p->I + 2 * i + (uint64_t)a);
				uint64_t st = tt[2 * a], dur = tt[2 * a + 1] - st;
				if (kind == L_HOST_NCCL)
					xg_host_event(c, H_LAUNCH, st - LAUNCH_LEAD, dur / 2, corr, k);
				else
					xg_gpu_event(c, d, a ? G_AR17 : G_AR13, K_NCCL, KR_NCCL + a,
						     st, dur, corr, k, a ? 0 : GPU_GAP / 2);
			}
		}
	}
	if (j == p->M - 1 && (kind == L_GPU_D2H || launch)) {
		uint64_t t = c0 + p->I * p->gpu_iter, corr = xg_gpu_corr_id(p, d, k, 2 + 8 * p->I);
		uint64_t dur = xg_gpu_kdur(p, d, K_D2H, k, 0);
		if (launch)
			xg_host_event(c, H_MEMCPY_D2H, t - LAUNCH_LEAD, p->kslot[K_D2H] / 2, corr, k);
		else
			xg_gpu_event(c, d, G_D2H, K_D2H, -1, t + GPU_GAP, dur, corr, k, dur);
	}
}
