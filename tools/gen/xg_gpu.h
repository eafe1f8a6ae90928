/*
 * xg_gpu.h - the GPU-like device planes of xtop-gen: kernels, the HLO ops
 * that launch them, and the events of the stream lines (and of the host
 * lines that launch them, which mirror the stream lines unit by unit).
 */
#ifndef XTOP_GEN_XG_GPU_H
#define XTOP_GEN_XG_GPU_H

#include <stdint.h>

struct xg_space_ctx;

/* ---- GPU kernels and ops. Stream 14 runs per iteration fusion.21,
 * custom-call.4, fusion.22 (3 kernels), custom-call.8; stream 15 runs
 * all-reduce.13 (overhanging custom-call.4 by GPU_GAP/2) and all-reduce.17
 * (inside custom-call.8), both as the same nccl kernel. ---- */
enum {
	K_BCAST, K_COPY, K_MUL, K_GEMM, K_RED0, K_RED1, K_RED2, K_CUTLASS,
	K_NCCL, K_H2D, K_D2H, K_COUNT
};
enum { KD_REF, KD_STR, KD_META, KD_NONE };
struct xg_gpu_kernel {
	const char *name;
	int regs, sshared, dshared, grid[3], block[3], occ, kd_mode;
	uint64_t base, jit;
};
enum {
	G_BCAST1, G_COPY1, G_FUSION21, G_CC4, G_FUSION22, G_CC8, G_AR13,
	G_AR17, G_H2D, G_D2H, G_COUNT
};
enum { HLO_STR, HLO_REF, HLO_NONE };		/* how hlo_op is written */
enum { MOD_REF, MOD_STR, MOD_NONE };		/* how hlo_module is written */
struct xg_gpu_op {
	const char *hlo_op, *name;	/* name: last "::" element, else event name */
	int prog, hlo_mode, mod_mode;
};
#define GPU_ITER_K 6			/* kernels per iteration on stream 14 */
/* kernel-stats rows: (op, kernel) pairs, init 0-1, iteration 2-7, nccl 8-9 */
enum { KR_INIT = 0, KR_ITER = 2, KR_NCCL = 8, KR_COUNT = 10 };

extern const struct xg_gpu_kernel xg_gpu_kernels[K_COUNT];
extern const struct xg_gpu_op xg_gpu_ops[G_COUNT];
extern const int xg_gpu_iter_k[GPU_ITER_K];	/* kernels of one iteration */
extern const int xg_gpu_krow_op[KR_COUNT];	/* op of each kernel-stats row */
extern const int xg_gpu_krow_k[KR_COUNT];	/* kernel of each kernel-stats row */

/* Unit u of a GPU stream line of device d (kind L_GPU_*), or of the host
 * launch line mirroring it (L_HOST_LAUNCH, L_HOST_NCCL). */
void xg_gpu_unit(struct xg_space_ctx *c, int kind, int d, uint64_t u);

#endif
