/*
 * xtop_gen.c - synthetic XSpace (*.xplane.pb) generator for xtop's tests.
 *
 * Writes a profile shaped like the real fixtures (TPU-like or GPU-like
 * device planes, /host:metadata, /host:CPU, Task Environment) of any size,
 * and optionally the analysis results that docs/analyses.md derives from it,
 * computed from the generator's own model rather than by re-reading the file.
 *
 * Model: every timestamp and duration is a pure function of (seed, device,
 * step, iteration, op), and ops sit in fixed time slots, so a parent's
 * duration is known before its children are generated and any line can be
 * regenerated. That allows two passes over identical bytes: a counting pass
 * that learns every line and plane length, then a writing pass that emits
 * the length prefixes and streams the events through a 1 MiB window. Memory
 * stays bounded whatever the output size. Lines are capped near 64 MiB by
 * splitting a timeline into several lines with the same id, only between
 * top-level ops, so nesting and kernel merging never cross a split.
 */
#include "pbwrite.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define US 1000000ull			/* picoseconds per microsecond */
#define T_INIT (1000 * US)		/* first device activity: 1 ms */
#define SKEW US				/* step start offset per device */
#define W_MIN (20 * US)			/* input wait before a step's work */
#define W_VAR (60 * US)
#define STEP_TAIL (5 * US)
#define HOST_LEAD (40 * US)		/* host step marker starts this early */
#define LAUNCH_LEAD (25 * US)		/* kernel launch precedes the kernel */
#define TPU_GAP 2000ull			/* idle before every op in its slot */
#define TPU_PAD 1000ull			/* idle inside a parent around children */
#define MOD_PAD (5 * US)
#define GPU_GAP (2 * US)		/* even: all-reduce A overhangs by half */
#define STEP_ID0 100			/* group_id/step_num of the first step */
#define MEM_BUFS 6			/* allocations per step per allocator */
#ifndef LINE_CAP			/* tests may build with a small cap */
#define LINE_CAP (64ull << 20)		/* target bytes per line */
#endif
#define HOST_TS_NS 500000		/* host lines start at 0.5 ms */
#define GPU_TS_NS 700000		/* GPU device lines start at 0.7 ms */
#define PROFILE_START_NS 1741722099081044120ull

enum { KIND_TPU, KIND_GPU };
enum { HD_DUR = 1, HD_WAIT, HD_MEM, HD_FRAG };

/* ---- stat names: id on a plane = plane stat base + enum + 1 ---- */
enum xg_stat {
	S_GROUP_ID, S_STEP_NUM, S_ROOT, S_RUN_ID, S_DEV_OFFSET, S_DEV_DURATION,
	S_HLO_CATEGORY, S_PROGRAM_ID, S_FLOPS, S_BYTES_ACCESSED, S_TF_OP,
	S_HLO_OP, S_HLO_MODULE, S_CORRELATION_ID, S_KERNEL_DETAILS,
	S_MEMCPY_DETAILS, S_STEP_NAME, S_DEVICE_VENDOR, S_CLOCK_RATE,
	S_CORE_COUNT, S_MEM_BW, S_MEM_SIZE, S_CC_MAJOR, S_CC_MINOR,
	S_PEAK_TFLOPS, S_PEAK_HBM_BW, S_ALLOCATOR_NAME, S_INDEX_ON_HOST,
	S_BYTES_RESERVED, S_BYTES_ALLOCATED, S_BYTES_AVAILABLE,
	S_FRAGMENTATION, S_PEAK_IN_USE, S_REQUESTED, S_ALLOC_BYTES, S_ADDR,
	S_SHAPE, S_REGION_TYPE, S_DATA_TYPE, S_PROFILE_START, S_PROFILE_STOP,
	S_COUNT
};
static const char *const stat_names[S_COUNT] = {
	"group_id", "step_num", "_r", "run_id", "device_offset_ps",
	"device_duration_ps", "hlo_category", "program_id", "flops",
	"bytes_accessed", "tf_op", "hlo_op", "hlo_module", "correlation_id",
	"kernel_details", "memcpy_details", "step_name", "device_vendor",
	"clock_rate", "core_count", "memory_bandwidth", "memory_size",
	"compute_cap_major", "compute_cap_minor", "peak_teraflops_per_second",
	"peak_hbm_bw_gigabytes_per_second", "allocator_name", "index_on_host",
	"bytes_reserved", "bytes_allocated", "bytes_available", "fragmentation",
	"peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr",
	"shape", "region_type", "data_type", "profile_start_time",
	"profile_stop_time"
};

/* ---- programs (jit modules) ---- */
enum { PROG_TRAIN, PROG_INIT, PROG_COUNT };
static const char *const prog_names[PROG_COUNT] = { "jit_train_step",
						    "jit_init_params" };
/* TPU ids are fingerprints (the train one >= 2^63, so its /host:metadata
 * key is negative); GPU ids are small unique ids, as on the real runtimes. */
static const uint64_t prog_tpu_id[PROG_COUNT] = { 12190760917235803885ull,
						  2433868464432466958ull };
static const uint64_t prog_gpu_id[PROG_COUNT] = { 7, 3 };

/* ---- TPU ops. Per step: copy.1 fusion.2 convolution.3, M x while.4
 * {B x [fusion.10 convolution.11 call.12{fusion.20 reduce.21}
 * all-reduce.13 fusion.14]}, all-reduce.5 fusion.6 copy.7. The init module
 * runs broadcast.1 and copy.1 once before the first step. ---- */
enum {
	T_BCAST1, T_COPY1I, T_COPY1, T_FUSION2, T_CONV3, T_WHILE4, T_FUSION10,
	T_CONV11, T_CALL12, T_FUSION20, T_REDUCE21, T_AR13, T_FUSION14, T_AR5,
	T_FUSION6, T_COPY7, T_COUNT
};
struct tpu_op {
	const char *text, *name, *category, *tf_op;	/* category NULL: none */
	int prog;
	int64_t flops, bytes;
	uint64_t base, jit;				/* leaf durations, ps */
};
static const struct tpu_op tpu_ops[T_COUNT] = {
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
	 "all-reduce.13", "all-reduce", "jit(train_step)/while/body/psum", PROG_TRAIN, 1048576, 8388608, 4 * US, 400000},
	{"%fusion.14 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %all-reduce.13, f32[1024,1024]{1,0} %get-tuple-element.6), kind=kLoop, calls=%fused_computation.14",
	 "fusion.14", "loop fusion", "jit(train_step)/while/body/sub", PROG_TRAIN, 1048576, 12582912, 2 * US, 200000},
	{"%all-reduce.5 = f32[1024,1024]{1,0} all-reduce(f32[1024,1024]{1,0} %get-tuple-element.9), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%region_5.sum",
	 "all-reduce.5", "all-reduce", "jit(train_step)/psum", PROG_TRAIN, 1048576, 8388608, 15 * US, 1500000},
	{"%fusion.6 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %all-reduce.5, f32[] %Arg_2.3), kind=kLoop, calls=%fused_computation.6",
	 "fusion.6", "loop fusion", "jit(train_step)/mul", PROG_TRAIN, 1048576, 8388608, 4 * US, 400000},
	{"%copy.7 = f32[1024,1024]{0,1} copy(f32[1024,1024]{1,0} %fusion.6)",
	 "copy.7", "data formatting", "jit(train_step)/transpose", PROG_TRAIN, 0, 8388608, 3 * US, 300000},
};
#define TPU_ITER_EVENTS 7

/* ---- GPU kernels and ops. Stream 14 runs per iteration fusion.21,
 * custom-call.4, fusion.22 (3 kernels), custom-call.8; stream 15 runs
 * all-reduce.13 (overhanging custom-call.4 by GPU_GAP/2) and all-reduce.17
 * (inside custom-call.8), both as the same nccl kernel. ---- */
enum {
	K_BCAST, K_COPY, K_MUL, K_GEMM, K_RED0, K_RED1, K_RED2, K_CUTLASS,
	K_NCCL, K_H2D, K_D2H, K_COUNT
};
enum { KD_REF, KD_STR, KD_META, KD_NONE };
struct gpu_kernel {
	const char *name;
	int regs, sshared, dshared, grid[3], block[3], occ, kd_mode;
	uint64_t base, jit;
};
static const struct gpu_kernel gpu_kernels[K_COUNT] = {
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
enum {
	G_BCAST1, G_COPY1, G_FUSION21, G_CC4, G_FUSION22, G_CC8, G_AR13,
	G_AR17, G_H2D, G_D2H, G_COUNT
};
enum { HLO_STR, HLO_REF, HLO_NONE };		/* how hlo_op is written */
enum { MOD_REF, MOD_STR, MOD_NONE };		/* how hlo_module is written */
struct gpu_op {
	const char *hlo_op, *name;	/* name: last "::" element, else event name */
	int prog, hlo_mode, mod_mode;
};
static const struct gpu_op gpu_ops[G_COUNT] = {
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
#define GPU_ITER_K 6
static const int iter_op[GPU_ITER_K] = { G_FUSION21, G_CC4, G_FUSION22,
					 G_FUSION22, G_FUSION22, G_CC8 };
static const int iter_k[GPU_ITER_K] = { K_MUL, K_GEMM, K_RED0, K_RED1,
					K_RED2, K_CUTLASS };
/* kernel-stats rows: (op, kernel) pairs, init 0-1, iteration 2-7, nccl 8-9 */
enum { KR_INIT = 0, KR_ITER = 2, KR_NCCL = 8, KR_COUNT = 10 };
static const int krow_op[KR_COUNT] = { G_BCAST1, G_COPY1, G_FUSION21, G_CC4,
	G_FUSION22, G_FUSION22, G_FUSION22, G_CC8, G_AR13, G_AR17 };
static const int krow_k[KR_COUNT] = { K_BCAST, K_COPY, K_MUL, K_GEMM, K_RED0,
	K_RED1, K_RED2, K_CUTLASS, K_NCCL, K_NCCL };

/* ---- host plane ---- */
enum { H_TRAIN, H_PJIT, H_EXEC, H_PJIT_INIT, H_TPU_EXEC, H_LAUNCH, H_MEMCPY_H2D,
	H_MEMCPY_D2H, H_ALLOC, H_FREE, H_COUNT };
static const char *const host_names[H_COUNT] = {
	"train", "PjitFunction(train_step)", "PjRtCApiLoadedExecutable::Execute",
	"PjitFunction(init_params)", "tpu::System::Execute", "cuLaunchKernel",
	"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "MemoryAllocation",
	"MemoryDeallocation"
};
static const char *const mem_tf_ops[MEM_BUFS] = {
	"jit(train_step)/jit(main)/dot_general", "jit(train_step)/jit(main)/tanh",
	"jit(train_step)/jit(main)/while/body/dot_general",
	"jit(train_step)/jit(main)/psum", "jit(train_step)/jit(main)/transpose",
	"jit(train_step)/jit(main)/reduce_sum"
};
static const char *const mem_shapes[MEM_BUFS] = {
	"f32[1024,1024]", "bf16[128,1024]", "f32[128,1024]", "f32[1024,1024]",
	"f32[1024,1024]", "f32[128]"
};
/* the GPU allocator names, written as ref_value and str_value */
static const char *const gpu_allocators[2] = { "GPU_0_bfc", "xla_gpu_host_bfc" };
static const uint64_t mem_capacity[2][2] = { { 16ull << 30, 16ull << 30 },
					     { 80ull << 30, 32ull << 30 } };
static const uint64_t mem_reserved[2] = { 0, 48ull << 20 };
static const uint64_t mem_base[2] = { 2ull << 30, 1ull << 30 };
/* allocator 0 had a higher peak before the profile started */
static const uint64_t mem_prepeak[2][2] = { { 12ull << 30, 0 },
					    { 60ull << 30, 0 } };

/* ---- plan ---- */
enum { P_TPU, P_GPU, P_META, P_HOST, P_TASKENV };
enum {
	L_EMPTY, L_TPU_STEPS, L_TPU_MODULES, L_TPU_OPS, L_GPU_STEPS, L_GPU_H2D,
	L_GPU_KERNELS, L_GPU_NCCL, L_GPU_D2H, L_HOST_PY, L_HOST_TASKS,
	L_HOST_LAUNCH, L_HOST_NCCL, L_HOST_MEM, L_GPU_H2D2
};
/* worst-case encoded bytes per event, for splitting lines under LINE_CAP */
static const unsigned line_est_bytes[] = { 1, 64, 64, 44, 64, 96, 80, 80,
					   96, 64, 64, 48, 48, 256, 96 };

struct xg_cfg {
	int kind, devices, steps, gzip;
	uint64_t events, size, seed;
	const char *out, *expect;
};
struct xg_line {
	int plane, kind, dev;
	uint32_t u0, u1;		/* unit range: 0 = init, then step blocks */
	int64_t id, ts_ns;
	char name[48];
	uint64_t events, bytes;
};
struct xg_plane {
	int kind, dev, line0, nlines, sbase;
	int64_t id;
	char name[48];
	uint64_t events, bytes;
};
struct xg_refs {
	const char *s[32];
	int n;
};
struct xg_plan {
	struct xg_cfg cfg;
	int D, S, A, M;
	uint64_t B, I, nunits, events, bytes;
	uint64_t slot[T_COUNT], call_dur, iter_slot, while_dur, pro_slots,
	    module_dur, init_dur, t_first, period;
	uint64_t kslot[K_COUNT], koff[GPU_ITER_K], gpu_iter;
	struct xg_plane planes[300];
	int nplanes;
	struct xg_line *lines;
	int nlines, lines_cap;
	struct xg_refs gref, href;	/* ref_value strings per plane kind */
	int g_hlo_ref[G_COUNT], g_kd_ref[K_COUNT], g_mod_ref[PROG_COUNT];
	int h_alloc_ref, h_tfop_ref[MEM_BUFS];
	char kd[K_COUNT][112];
};

/* ---- expectations, filled by the writing pass ---- */
struct xg_live {
	uint64_t addr, bytes;
	int buf;
};
struct xg_mem_acc {
	uint64_t peak, peak_time, capacity, lifetime;
	int nlive, seen;
	struct xg_live live[MEM_BUFS + 2];
};
struct xg_expect {
	uint64_t occ[T_COUNT + G_COUNT], self[T_COUNT + G_COUNT],
	    total[T_COUNT + G_COUNT];
	uint64_t kocc[KR_COUNT], ktot[KR_COUNT], kmin[KR_COUNT], kmax[KR_COUNT];
	uint64_t *busy, *first, *last;		/* per device */
	uint64_t *sfirst, *slast;		/* per step */
	struct xg_mem_acc mem[2];
};

/* per-allocator running state; part of the output, so kept in both passes */
struct xg_mem_state {
	uint64_t allocated, maxuse;
	int nlive;
	struct xg_live live[MEM_BUFS + 2];
};
struct xg_ctx {
	const struct xg_plan *p;
	struct pb_sink *s;
	struct xg_expect *ex;		/* NULL in the counting pass */
	uint64_t base_ps, nev;
	int sbase, last_op;
	int64_t last_group;
	struct xg_mem_state mem[2];
};

static _Noreturn void xg_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("xtop-gen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static inline uint64_t xg_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t xg_hash(const struct xg_plan *p, uint64_t a, uint64_t b,
			       uint64_t c)
{
	return xg_mix(xg_mix(p->cfg.seed ^ (a * 0x9e3779b97f4a7c15ull)) +
		      b * 0xc2b2ae3d27d4eb4full + c);
}

/* duration of leaf `op` (TPU op or GPU kernel index) in its slot */
static inline uint64_t xg_leaf_dur(const struct xg_plan *p, int d, int op, int k,
				uint64_t it, uint64_t base, uint64_t jit)
{
	return base + xg_hash(p, ((uint64_t)HD_DUR << 40) | ((uint64_t)d << 8) |
			      (uint64_t)op, (uint64_t)(k + 1), it) % jit;
}

static uint64_t xg_step_base(const struct xg_plan *p, int k)
{
	return p->t_first + (uint64_t)k * p->period;
}

static uint64_t xg_dev_step_start(const struct xg_plan *p, int d, int k)
{
	return xg_step_base(p, k) + (uint64_t)d * SKEW;
}

static uint64_t xg_step_wait(const struct xg_plan *p, int d, int k)
{
	return W_MIN + xg_hash(p, HD_WAIT, (uint64_t)d, (uint64_t)k) % W_VAR;
}

/* host step marker [hs, he) of step k */
static uint64_t xg_host_start(const struct xg_plan *p, int k)
{
	return xg_step_base(p, k) - HOST_LEAD;
}

static uint64_t xg_host_end(const struct xg_plan *p, int k)
{
	return xg_host_start(p, k) + p->period - 5 * US;
}

static uint64_t xg_gpu_c0(const struct xg_plan *p, int d, int k)
{
	return xg_dev_step_start(p, d, k) + xg_step_wait(p, d, k) + 2 * p->kslot[K_H2D];
}

/* events that unit u of a line of this kind holds; must match emit_unit */
static uint64_t xg_unit_events(const struct xg_plan *p, int kind, uint64_t u)
{
	uint64_t j = u ? (u - 1) % (uint64_t)p->M : 0, k = u ? (u - 1) / (uint64_t)p->M : 0;
	int first = u && j == 0, last = u && j == (uint64_t)p->M - 1;
	switch (kind) {
	case L_TPU_STEPS: case L_GPU_STEPS: return first;
	case L_TPU_MODULES: return u == 0 || first;
	case L_TPU_OPS:
		return u == 0 ? 2 : 3 * (uint64_t)(first + last) + 1 + TPU_ITER_EVENTS * p->B;
	case L_GPU_H2D: case L_GPU_H2D2: return first;
	case L_GPU_KERNELS: return u == 0 ? 2 : GPU_ITER_K * p->B;
	case L_GPU_NCCL: case L_HOST_NCCL: return u == 0 ? 0 : 2 * p->B;
	case L_GPU_D2H: return last;
	case L_HOST_PY: return u == 0 ? 1 : 3 * (uint64_t)first;
	case L_HOST_TASKS: return first ? (uint64_t)p->D : 0;
	case L_HOST_LAUNCH:
		return u == 0 ? 2 : 2 * (uint64_t)first + GPU_ITER_K * p->B + last;
	case L_HOST_MEM:
		return first ? (uint64_t)p->A * (2 * MEM_BUFS - 1 + (k > 0)) : 0;
	default: return 0;
	}
}

static int xg_add_ref(struct xg_refs *r, const char *s)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->s[i], s))
			return i;
	r->s[r->n] = s;
	return r->n++;
}

static struct xg_plane *xg_add_plane(struct xg_plan *p, int kind, int dev,
				  int64_t id, const char *name, int sbase)
{
	struct xg_plane *pl = &p->planes[p->nplanes++];
	memset(pl, 0, sizeof *pl);
	pl->kind = kind;
	pl->dev = dev;
	pl->id = id;
	pl->sbase = sbase;
	pl->line0 = p->nlines;
	snprintf(pl->name, sizeof pl->name, "%s", name);
	return pl;
}

static void xg_push_line(struct xg_plan *p, const struct xg_line *proto,
		      uint64_t u0, uint64_t u1, uint64_t ev)
{
	if (p->nlines == p->lines_cap) {
		p->lines_cap = p->lines_cap ? 2 * p->lines_cap : 64;
		p->lines = realloc(p->lines, (size_t)p->lines_cap * sizeof *p->lines);
		if (!p->lines)
			xg_die("out of memory");
	}
	struct xg_line *ln = &p->lines[p->nlines++];
	*ln = *proto;
	ln->u0 = (uint32_t)u0;
	ln->u1 = (uint32_t)u1;
	ln->events = ev;
	p->planes[ln->plane].nlines++;
	p->planes[ln->plane].events += ev;
	p->events += ev;
}

/* Adds one timeline, split into several same-id lines between units when it
 * would exceed LINE_CAP (only the per-iteration lines ever are). */
static void xg_add_line(struct xg_plan *p, int kind, int dev, int64_t id,
		     int64_t ts_ns, const char *name)
{
	struct xg_line proto = { .plane = p->nplanes - 1, .kind = kind,
				 .dev = dev, .id = id, .ts_ns = ts_ns };
	snprintf(proto.name, sizeof proto.name, "%s", name);
	uint64_t cap = LINE_CAP / line_est_bytes[kind], u0 = 0, ev = 0;
	for (uint64_t u = 0; u < p->nunits; u++) {
		uint64_t e = xg_unit_events(p, kind, u);
		if (ev + e > cap && u > u0) {
			xg_push_line(p, &proto, u0, u, ev);
			u0 = u;
			ev = 0;
		}
		ev += e;
	}
	xg_push_line(p, &proto, u0, p->nunits, ev);
}

static void xg_plan_build(struct xg_plan *p, const struct xg_cfg *cfg, uint64_t target)
{
	free(p->lines);
	memset(p, 0, sizeof *p);
	p->cfg = *cfg;
	int gpu = cfg->kind == KIND_GPU, D = p->D = cfg->devices, S = p->S = cfg->steps;
	p->A = gpu ? 2 : (D < 2 ? D : 2);
	/* events = fixed + I * per_iter; solve for I, then split I into M
	 * while loops / kernel blocks of B iterations that each fit a line */
	uint64_t per_iter = (uint64_t)S * D * (gpu ? 16 : TPU_ITER_EVENTS);
	uint64_t fixed = (uint64_t)S * ((uint64_t)D * 12 + 30);
	uint64_t I = target > fixed ? (target - fixed) / per_iter : 1;
	uint64_t bmax = gpu ? (LINE_CAP / line_est_bytes[L_GPU_KERNELS]) / GPU_ITER_K
			    : (LINE_CAP / line_est_bytes[L_TPU_OPS]) / TPU_ITER_EVENTS - 1;
	if (I < 1)
		I = 1;
	p->M = (int)((I + bmax - 1) / bmax);
	p->B = (I + (uint64_t)p->M - 1) / (uint64_t)p->M;
	p->I = p->B * (uint64_t)p->M;
	p->nunits = 1 + (uint64_t)S * (uint64_t)p->M;
	if (p->nunits > UINT32_MAX)
		xg_die("too many steps for this many events");

	/* time slots (TPU) */
	for (int o = 0; o < T_COUNT; o++)
		p->slot[o] = TPU_GAP + tpu_ops[o].base + tpu_ops[o].jit;
	p->call_dur = 2 * TPU_PAD + p->slot[T_FUSION20] + p->slot[T_REDUCE21];
	p->slot[T_CALL12] = TPU_GAP + p->call_dur;
	p->iter_slot = p->slot[T_FUSION10] + p->slot[T_CONV11] + p->slot[T_CALL12] +
		       p->slot[T_AR13] + p->slot[T_FUSION14];
	p->while_dur = 2 * TPU_PAD + p->B * p->iter_slot;
	p->slot[T_WHILE4] = TPU_GAP + p->while_dur;
	p->pro_slots = p->slot[T_COPY1] + p->slot[T_FUSION2] + p->slot[T_CONV3];
	p->module_dur = 2 * MOD_PAD + p->pro_slots + (uint64_t)p->M * p->slot[T_WHILE4] +
			p->slot[T_AR5] + p->slot[T_FUSION6] + p->slot[T_COPY7];
	p->init_dur = 2 * MOD_PAD + p->slot[T_BCAST1] + p->slot[T_COPY1I];
	/* time slots (GPU) */
	for (int k = 0; k < K_COUNT; k++)
		p->kslot[k] = GPU_GAP + gpu_kernels[k].base + gpu_kernels[k].jit;
	for (int j = 0; j < GPU_ITER_K; j++) {
		p->koff[j] = p->gpu_iter;
		p->gpu_iter += p->kslot[iter_k[j]];
	}
	uint64_t work = gpu ? 2 * p->kslot[K_H2D] + p->I * p->gpu_iter + p->kslot[K_D2H]
			    : p->module_dur;
	uint64_t init = gpu ? p->kslot[K_BCAST] + p->kslot[K_COPY] : p->init_dur;
	p->t_first = T_INIT + (uint64_t)(D - 1) * SKEW + init + 50 * US + HOST_LEAD;
	p->period = W_MIN + W_VAR + work + STEP_TAIL + (uint64_t)(D - 1) * SKEW +
		    30 * US + (uint64_t)D * US;

	/* stat_metadata ref strings */
	for (int g = 0; g < PROG_COUNT; g++)
		p->g_mod_ref[g] = xg_add_ref(&p->gref, prog_names[g]);
	for (int g = 0; g < G_COUNT; g++)
		p->g_hlo_ref[g] = gpu_ops[g].hlo_mode == HLO_REF ? xg_add_ref(&p->gref, gpu_ops[g].hlo_op) : -1;
	for (int k = 0; k < K_COUNT; k++) {
		const struct gpu_kernel *gk = &gpu_kernels[k];
		snprintf(p->kd[k], sizeof p->kd[k],
			 " regs:%d static_shared:%d dynamic_shared:%d grid:%d,%d,%d block:%d,%d,%d occ_pct:%d",
			 gk->regs, gk->sshared, gk->dshared, gk->grid[0], gk->grid[1], gk->grid[2],
			 gk->block[0], gk->block[1], gk->block[2], gk->occ);
		p->g_kd_ref[k] = gk->kd_mode == KD_REF ? xg_add_ref(&p->gref, p->kd[k]) : -1;
	}
	p->h_alloc_ref = gpu ? xg_add_ref(&p->href, gpu_allocators[0]) : -1;
	for (int i = 0; i < MEM_BUFS; i++)
		p->h_tfop_ref[i] = xg_add_ref(&p->href, mem_tf_ops[i]);

	/* planes and lines, in the fixtures' order */
	char nm[48];
	if (gpu)
		xg_add_plane(p, P_META, 0, 99, "/host:metadata", 0);
	for (int d = 0; d < D; d++) {
		snprintf(nm, sizeof nm, "/device:%s:%d", gpu ? "GPU" : "TPU", d);
		xg_add_plane(p, gpu ? P_GPU : P_TPU, d, gpu ? d : 2 + d, nm, 0);
		if (gpu) {
			/* one input copy per stream and step, so no two
			 * consecutive memcpys on a line share a step */
			xg_add_line(p, L_GPU_H2D, d, 13, GPU_TS_NS, "Stream #13(MemcpyH2D)");
			xg_add_line(p, L_GPU_H2D2, d, 17, GPU_TS_NS, "Stream #17(MemcpyH2D)");
			xg_add_line(p, L_GPU_KERNELS, d, 14, GPU_TS_NS, "Stream #14(Kernel)");
			xg_add_line(p, L_GPU_NCCL, d, 15, GPU_TS_NS, "Stream #15(Kernel)");
			xg_add_line(p, L_GPU_D2H, d, 16, GPU_TS_NS, "Stream #16(MemcpyD2H)");
			/* XProf's derived step line: 0xdeadbeef as a sign-extended int32 */
			xg_add_line(p, L_GPU_STEPS, d, -559038737, GPU_TS_NS, "Steps");
		} else {
			xg_add_line(p, L_TPU_STEPS, d, 1, 0, "Steps");
			xg_add_line(p, L_TPU_MODULES, d, 2, 0, "XLA Modules");
			xg_add_line(p, L_TPU_OPS, d, 3, 0, "XLA Ops");
			xg_add_line(p, L_EMPTY, d, 7, 0, "Overlay");
		}
	}
	if (!gpu)
		xg_add_plane(p, P_META, 0, 99, "/host:metadata", 0);
	xg_add_plane(p, P_HOST, 0, 0, "/host:CPU", 100);
	xg_add_line(p, L_HOST_PY, 0, 3116817, HOST_TS_NS, "python3");
	if (gpu) {
		for (int d = 0; d < D; d++) {
			snprintf(nm, sizeof nm, "Host Threads/%d", 21083 + d);
			xg_add_line(p, L_HOST_LAUNCH, d, 21083 + d, HOST_TS_NS, nm);
			snprintf(nm, sizeof nm, "Host Threads/%d", 21565 + d);
			xg_add_line(p, L_HOST_NCCL, d, 21565 + d, HOST_TS_NS, nm);
		}
	} else {
		xg_add_line(p, L_HOST_TASKS, 0, -1606410758, HOST_TS_NS,
			 "pjrt-tpu-tasks/-1606410758");
	}
	/* a thread id >= 2^63: a negative int64 on the wire */
	uint64_t tid = gpu ? 0x8c3f21a755e01d43ull : 0x9c3f21a755e01d43ull;
	snprintf(nm, sizeof nm, "%s/%" PRIu64, gpu ? "py_xla_callback" : "py_xla_execute", tid);
	xg_add_line(p, L_HOST_MEM, 0, (int64_t)tid, HOST_TS_NS, nm);
	xg_add_plane(p, P_TASKENV, 0, 100, "Task Environment", 200);
}

/* ---- event emission ---- */

struct xg_sv {
	int id, kind;
	uint64_t v;
	const char *s;		/* PB_STAT_STR value */
};
#define SV_U(i, x) { (i), PB_STAT_U64, (uint64_t)(x), NULL }
#define SV_I(i, x) { (i), PB_STAT_I64, (uint64_t)(int64_t)(x), NULL }
#define SV_S(i, x) { (i), PB_STAT_STR, 0, (x) }
#define SV_R(i, x) { (i), PB_STAT_REF, (uint64_t)(x), NULL }

static void xg_put_event(struct xg_ctx *c, uint64_t md, uint64_t start, uint64_t dur,
		      const struct xg_sv *sv, int n)
{
	/* every event xtop-gen writes is well under 1 KiB: a few numeric stats
	 * and strings of at most ~130 bytes */
	uint8_t *p = pb_sink_reserve(c->s, PB_SINK_MAX_RESERVE), *lp;
	*p++ = PB_TAG(4, PB_LEN);
	lp = p++;
	*p++ = PB_TAG(1, PB_VARINT);
	p = pb_wvarint(p, md);
	*p++ = PB_TAG(2, PB_VARINT);
	p = pb_wvarint(p, start - c->base_ps);
	if (dur) {
		*p++ = PB_TAG(3, PB_VARINT);
		p = pb_wvarint(p, dur);
	}
	for (int i = 0; i < n; i++) {
		uint64_t v = sv[i].kind == PB_STAT_REF ? (uint64_t)c->sbase + S_COUNT + 1 + sv[i].v
						       : sv[i].v;
		p = pb_wstat(p, 4, (uint64_t)(c->sbase + sv[i].id + 1), sv[i].kind, v,
			     sv[i].s, sv[i].s ? strlen(sv[i].s) : 0);
	}
	pb_sink_commit(c->s, pb_wclose(lp, p));
	c->nev++;
}

static void xg_dev_span(struct xg_ctx *c, int d, uint64_t start, uint64_t end)
{
	if (c->ex->first[d] > start)
		c->ex->first[d] = start;
	if (c->ex->last[d] < end)
		c->ex->last[d] = end;
}

static void xg_step_span(struct xg_ctx *c, int k, uint64_t start, uint64_t end)
{
	if (c->ex->sfirst[k] > start)
		c->ex->sfirst[k] = start;
	if (c->ex->slast[k] < end)
		c->ex->slast[k] = end;
}

static void xg_tpu_event(struct xg_ctx *c, int d, int op, uint64_t start, uint64_t dur)
{
	struct xg_sv sv[2] = { SV_U(S_DEV_OFFSET, start), SV_U(S_DEV_DURATION, dur) };
	xg_put_event(c, (uint64_t)op + 1, start, dur, sv, 2);
	if (c->ex) {
		c->ex->occ[op]++;
		c->ex->total[op] += dur;
		xg_dev_span(c, d, start, start + dur);
	}
}

static void xg_tpu_self(struct xg_ctx *c, int d, int op, uint64_t self)
{
	if (c->ex) {
		c->ex->self[op] += self;
		c->ex->busy[d] += self;
	}
}

static uint64_t xg_tpu_leaf(struct xg_ctx *c, int d, int op, int k, uint64_t it,
			 uint64_t slot0)
{
	uint64_t dur = xg_leaf_dur(c->p, d, op, k, it, tpu_ops[op].base, tpu_ops[op].jit);
	xg_tpu_event(c, d, op, slot0 + TPU_GAP, dur);
	xg_tpu_self(c, d, op, dur);
	return dur;
}

/* XLA Ops unit: the init ops, or one while loop of step k with the
 * prologue (first block) and epilogue (last block) around it */
static void xg_tpu_ops_unit(struct xg_ctx *c, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		uint64_t t = T_INIT + (uint64_t)d * SKEW + MOD_PAD;
		xg_tpu_leaf(c, d, T_BCAST1, -1, 0, t);
		xg_tpu_leaf(c, d, T_COPY1I, -1, 0, t + p->slot[T_BCAST1]);
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M), j = (int)((u - 1) % (uint64_t)p->M);
	uint64_t t = xg_dev_step_start(p, d, k) + xg_step_wait(p, d, k) + MOD_PAD;
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

/* One GPU stream event (kernel or memcpy); busy_add is the part of it not
 * covered by other stream events, known by construction. */
static void xg_gpu_event(struct xg_ctx *c, int d, int op, int kern, int row,
		      uint64_t start, uint64_t dur, uint64_t corr, int k,
		      uint64_t busy_add)
{
	const struct xg_plan *p = c->p;
	const struct gpu_op *g = &gpu_ops[op];
	const struct gpu_kernel *gk = &gpu_kernels[kern];
	struct xg_sv sv[7] = { SV_U(S_CORRELATION_ID, corr) };
	int n = 1;
	if (gk->kd_mode == KD_REF)
		sv[n++] = (struct xg_sv)SV_R(S_KERNEL_DETAILS, p->g_kd_ref[kern]);
	else if (gk->kd_mode == KD_STR)
		sv[n++] = (struct xg_sv)SV_S(S_KERNEL_DETAILS, p->kd[kern]);
	else if (gk->kd_mode == KD_NONE)
		sv[n++] = (struct xg_sv)SV_S(S_MEMCPY_DETAILS, kern == K_H2D ?
			"kind:HtoD size:4194304 dest:0 async:1" : "kind:DtoH size:4096 dest:0 async:1");
	if (g->hlo_mode == HLO_REF)
		sv[n++] = (struct xg_sv)SV_R(S_HLO_OP, p->g_hlo_ref[op]);
	else if (g->hlo_mode == HLO_STR)
		sv[n++] = (struct xg_sv)SV_S(S_HLO_OP, g->hlo_op);
	if (g->mod_mode == MOD_REF)
		sv[n++] = (struct xg_sv)SV_R(S_HLO_MODULE, p->g_mod_ref[g->prog]);
	else if (g->mod_mode == MOD_STR)
		sv[n++] = (struct xg_sv)SV_S(S_HLO_MODULE, prog_names[g->prog]);
	if (g->prog >= 0)
		sv[n++] = (struct xg_sv)SV_I(S_PROGRAM_ID, prog_gpu_id[g->prog]);
	if (k >= 0)
		sv[n++] = (struct xg_sv)SV_I(S_GROUP_ID, STEP_ID0 + k);
	xg_put_event(c, (uint64_t)kern + 1, start, dur, sv, n);
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
	xg_dev_span(c, d, start, start + dur);
	if (row >= 0) {
		c->ex->kocc[row]++;
		c->ex->ktot[row] += dur;
		if (c->ex->kmin[row] > dur)
			c->ex->kmin[row] = dur;
		if (c->ex->kmax[row] < dur)
			c->ex->kmax[row] = dur;
	}
}

static uint64_t xg_corr_id(const struct xg_plan *p, int d, int k, uint64_t seq)
{
	uint64_t base = k < 0 ? 1 : 3 + (uint64_t)k * (8 * p->I + 3);
	return ((uint64_t)(d + 1) << 40) | (base + seq);
}

static uint64_t xg_gpu_kdur(const struct xg_plan *p, int d, int kern, int k, uint64_t it)
{
	return xg_leaf_dur(p, d, 32 + kern, k, it, gpu_kernels[kern].base, gpu_kernels[kern].jit);
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

static void xg_host_event(struct xg_ctx *c, int h, uint64_t start, uint64_t dur,
		       uint64_t corr, int k)
{
	struct xg_sv sv[2] = { SV_U(S_CORRELATION_ID, corr), SV_I(S_GROUP_ID, STEP_ID0 + k) };
	xg_put_event(c, (uint64_t)h + 1, start, dur, corr ? sv : sv + 1, (corr != 0) + (k >= 0));
}

/* GPU stream lines and the host lines that mirror them, one unit each */
static void xg_gpu_unit(struct xg_ctx *c, int kind, int d, uint64_t u)
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
					   xg_corr_id(p, d, -1, (uint64_t)n), -1);
			else
				xg_gpu_event(c, d, n ? G_COPY1 : G_BCAST1, kern, KR_INIT + n,
					  t + GPU_GAP, dur, xg_corr_id(p, d, -1, (uint64_t)n), -1, dur);
			t += p->kslot[kern];
		}
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M), j = (int)((u - 1) % (uint64_t)p->M);
	uint64_t s = xg_dev_step_start(p, d, k), c0 = xg_gpu_c0(p, d, k);
	if (j == 0 && (kind == L_GPU_H2D || kind == L_GPU_H2D2 || launch)) {
		for (uint64_t n = kind == L_GPU_H2D2; n < (kind == L_GPU_H2D ? 1u : 2u); n++) {
			uint64_t t = s + xg_step_wait(p, d, k) + n * p->kslot[K_H2D];
			uint64_t dur = xg_gpu_kdur(p, d, K_H2D, k, n);
			if (launch)
				xg_host_event(c, H_MEMCPY_H2D, t - LAUNCH_LEAD, p->kslot[K_H2D] / 2,
					   xg_corr_id(p, d, k, n), k);
			else
				xg_gpu_event(c, d, G_H2D, K_H2D, -1, t + GPU_GAP, dur,
					  xg_corr_id(p, d, k, n), k, dur);
		}
	}
	if (j == 0 && kind == L_GPU_STEPS) {
		char name[24];
		snprintf(name, sizeof name, "%d", STEP_ID0 + k);
		uint64_t end = c0 + p->I * p->gpu_iter + p->kslot[K_D2H] + STEP_TAIL;
		struct xg_sv sv[2] = { SV_I(S_GROUP_ID, STEP_ID0 + k), SV_S(S_STEP_NAME, name) };
		xg_put_event(c, K_COUNT + 1 + (uint64_t)k, s, end - s, sv, 2);
		if (c->ex)
			xg_step_span(c, k, s, end);
	}
	int iters = launch || kind == L_GPU_KERNELS || kind == L_GPU_NCCL || kind == L_HOST_NCCL;
	for (uint64_t i = (uint64_t)j * p->B; iters && i < (uint64_t)(j + 1) * p->B; i++) {
		uint64_t it0 = c0 + i * p->gpu_iter;
		if (kind == L_GPU_KERNELS || launch) {
			for (int q = 0; q < GPU_ITER_K; q++) {
				uint64_t t = it0 + p->koff[q], corr = xg_corr_id(p, d, k, 2 + i * 6 + (uint64_t)q);
				if (launch) {
					xg_host_event(c, H_LAUNCH, t - LAUNCH_LEAD,
						   p->kslot[iter_k[q]] / 2, corr, k);
				} else {
					uint64_t dur = xg_gpu_kdur(p, d, iter_k[q], k, i);
					xg_gpu_event(c, d, iter_op[q], iter_k[q], KR_ITER + q,
						  t + GPU_GAP, dur, corr, k, dur);
				}
			}
		} else if (kind == L_GPU_NCCL || kind == L_HOST_NCCL) {
			uint64_t tt[4];
			xg_gpu_nccl_times(p, d, k, i, tt);
			for (int a = 0; a < 2; a++) {
				uint64_t corr = xg_corr_id(p, d, k, 2 + 6 * p->I + 2 * i + (uint64_t)a);
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
		uint64_t t = c0 + p->I * p->gpu_iter, corr = xg_corr_id(p, d, k, 2 + 8 * p->I);
		uint64_t dur = xg_gpu_kdur(p, d, K_D2H, k, 0);
		if (launch)
			xg_host_event(c, H_MEMCPY_D2H, t - LAUNCH_LEAD, p->kslot[K_D2H] / 2, corr, k);
		else
			xg_gpu_event(c, d, G_D2H, K_D2H, -1, t + GPU_GAP, dur, corr, k, dur);
	}
}

static uint64_t xg_mem_size(const struct xg_plan *p, int a, int k, int i)
{
	return (1 + xg_hash(p, HD_MEM, (uint64_t)(a * MEM_BUFS + i), (uint64_t)k) % 2048) << 18;
}

static uint64_t xg_mem_addr(int a, int k, int i)
{
	return (a ? 0x7e0000000000ull : 0x7f0000000000ull) +
	       ((uint64_t)k * MEM_BUFS + (uint64_t)i) * (1ull << 29);
}

/* One MemoryAllocation/MemoryDeallocation event of allocator a; buffer i of
 * step bk. Updates the running state and, when collecting, the peak. */
static void xg_mem_event(struct xg_ctx *c, int a, int alloc, int k, int bk, int i, uint64_t t)
{
	const struct xg_plan *p = c->p;
	int gpu = p->cfg.kind == KIND_GPU;
	struct xg_mem_state *m = &c->mem[a];
	uint64_t sz = xg_mem_size(p, a, bk, i), addr = xg_mem_addr(a, bk, i);
	if (alloc) {
		m->allocated += sz;
		m->live[m->nlive++] = (struct xg_live){ addr, sz, i };
	} else {
		m->allocated -= sz;
		for (int l = 0; l < m->nlive; l++)
			if (m->live[l].addr == addr)
				m->live[l] = m->live[--m->nlive];
	}
	uint64_t res = mem_reserved[a], use = res + m->allocated;
	uint64_t cap = mem_capacity[gpu][a], avail = cap - use;
	if (m->maxuse < use)
		m->maxuse = use;
	uint64_t peak_in_use = m->maxuse > mem_prepeak[gpu][a] ? m->maxuse : mem_prepeak[gpu][a];
	double frag = (double)(xg_hash(p, HD_FRAG, (uint64_t)a, c->nev) % 1000) / 1000.0;
	uint64_t fbits;
	memcpy(&fbits, &frag, sizeof fbits);
	struct xg_sv sv[15] = {
		gpu ? (a ? (struct xg_sv)SV_S(S_ALLOCATOR_NAME, gpu_allocators[1])
			 : (struct xg_sv)SV_R(S_ALLOCATOR_NAME, p->h_alloc_ref))
		    : (struct xg_sv)SV_I(S_INDEX_ON_HOST, a),
		SV_I(S_BYTES_RESERVED, res), SV_I(S_BYTES_ALLOCATED, m->allocated),
		SV_I(S_BYTES_AVAILABLE, avail), { S_FRAGMENTATION, PB_STAT_DOUBLE, fbits, NULL },
		SV_I(S_PEAK_IN_USE, peak_in_use), SV_I(S_ALLOC_BYTES, sz), SV_I(S_ADDR, addr),
		SV_I(S_GROUP_ID, STEP_ID0 + k), SV_I(S_REQUESTED, sz - (sz >> 6) * (uint64_t)(i & 1)),
		SV_R(S_TF_OP, p->h_tfop_ref[i]), SV_S(S_SHAPE, mem_shapes[i]),
		SV_S(S_REGION_TYPE, i == 0 ? "output" : "temp"), SV_I(S_DATA_TYPE, 1 + i % 3),
	};
	/* deallocations carry no request, op or shape: upstream joins them by addr */
	xg_put_event(c, (uint64_t)(alloc ? H_ALLOC : H_FREE) + 1, t, 0, sv, alloc ? 14 : 9);
	if (!c->ex)
		return;
	struct xg_mem_acc *acc = &c->ex->mem[a];
	if (!acc->seen || use >= acc->peak) {
		acc->peak = use;
		acc->peak_time = t;
		acc->capacity = use + avail;
		acc->nlive = m->nlive;
		memcpy(acc->live, m->live, sizeof acc->live);
	}
	acc->seen = 1;
	acc->lifetime = peak_in_use;
}

/* host lines (python3, runtime tasks, memory) of step unit u */
static void xg_host_unit(struct xg_ctx *c, int kind, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		if (kind == L_HOST_PY)
			xg_host_event(c, H_PJIT_INIT, T_INIT - 30 * US, 20 * US, 0, -1);
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M);
	if ((u - 1) % (uint64_t)p->M != 0)
		return;
	uint64_t hs = xg_host_start(p, k), he = xg_host_end(p, k);
	if (kind == L_HOST_PY) {
		struct xg_sv sv[3] = { SV_I(S_STEP_NUM, STEP_ID0 + k), SV_I(S_ROOT, 1),
				       SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_put_event(c, H_TRAIN + 1, hs, he - hs, sv, 3);
		xg_host_event(c, H_PJIT, hs + US, 30 * US, 0, k);
		xg_host_event(c, H_EXEC, hs + 2 * US, 27 * US, 0, k);
	} else if (kind == L_HOST_TASKS) {
		for (int d = 0; d < p->D; d++)
			xg_host_event(c, H_TPU_EXEC, hs + 40 * US + (uint64_t)d * US, 500000, 0, k);
	} else if (kind == L_HOST_MEM) {
		/* allocate MEM_BUFS buffers; free last step's buffer 0 and this
		 * step's others, so buffer 0 lives across a step boundary */
		uint64_t t = hs + 3 * US;
		for (int i = 0; i < MEM_BUFS; i++)
			for (int a = 0; a < p->A; a++, t += US / 2)
				xg_mem_event(c, a, 1, k, k, i, t);
		int nf = MEM_BUFS - 1 + (k > 0);
		t = he - 3 * US - (uint64_t)(nf * p->A) * (US / 2);
		for (int f = 0; f < nf; f++)
			for (int a = 0; a < p->A; a++, t += US / 2)
				xg_mem_event(c, a, 0, k, k > 0 && f == 0 ? k - 1 : k,
					  k > 0 ? (f == 0 ? 0 : f) : f + 1, t);
	}
}

static void xg_tpu_marker_unit(struct xg_ctx *c, int kind, int d, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		if (kind == L_TPU_MODULES) {
			struct xg_sv sv[1] = { SV_U(S_RUN_ID, 1) };
			xg_put_event(c, T_COUNT + 1 + PROG_INIT, T_INIT + (uint64_t)d * SKEW,
				  p->init_dur, sv, 1);
		}
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M);
	if ((u - 1) % (uint64_t)p->M != 0)
		return;
	uint64_t s = xg_dev_step_start(p, d, k), w = xg_step_wait(p, d, k);
	if (kind == L_TPU_MODULES) {
		struct xg_sv sv[2] = { SV_U(S_RUN_ID, 2 + k), SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_put_event(c, T_COUNT + 1 + PROG_TRAIN, s + w, p->module_dur, sv, 2);
	} else {
		uint64_t dur = w + p->module_dur + STEP_TAIL;
		struct xg_sv sv[1] = { SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_put_event(c, T_COUNT + 1 + PROG_COUNT + (uint64_t)k, s, dur, sv, 1);
		if (c->ex) {
			xg_step_span(c, k, s, s + dur);
			xg_dev_span(c, d, s, s + dur);
		}
	}
}

static void xg_emit_unit(struct xg_ctx *c, const struct xg_line *ln, uint64_t u)
{
	switch (ln->kind) {
	case L_TPU_OPS: xg_tpu_ops_unit(c, ln->dev, u); break;
	case L_TPU_STEPS: case L_TPU_MODULES: xg_tpu_marker_unit(c, ln->kind, ln->dev, u); break;
	case L_HOST_PY: case L_HOST_TASKS: case L_HOST_MEM: xg_host_unit(c, ln->kind, u); break;
	case L_EMPTY: break;
	default: xg_gpu_unit(c, ln->kind, ln->dev, u); break;
	}
}

/* ---- plane metadata (event_metadata, stat_metadata) and plane stats ---- */

#define BIT(x) (1ull << (x))
static uint64_t xg_plane_stat_mask(int kind)
{
	switch (kind) {
	case P_TPU:
		return BIT(S_GROUP_ID) | BIT(S_RUN_ID) | BIT(S_DEV_OFFSET) |
		       BIT(S_DEV_DURATION) | BIT(S_HLO_CATEGORY) | BIT(S_PROGRAM_ID) |
		       BIT(S_FLOPS) | BIT(S_BYTES_ACCESSED) | BIT(S_TF_OP) |
		       BIT(S_PEAK_TFLOPS) | BIT(S_PEAK_HBM_BW);
	case P_GPU:
		return BIT(S_GROUP_ID) | BIT(S_PROGRAM_ID) | BIT(S_HLO_OP) |
		       BIT(S_HLO_MODULE) | BIT(S_CORRELATION_ID) | BIT(S_KERNEL_DETAILS) |
		       BIT(S_MEMCPY_DETAILS) | BIT(S_STEP_NAME) | BIT(S_DEVICE_VENDOR) |
		       BIT(S_CLOCK_RATE) | BIT(S_CORE_COUNT) | BIT(S_MEM_BW) |
		       BIT(S_MEM_SIZE) | BIT(S_CC_MAJOR) | BIT(S_CC_MINOR);
	case P_HOST:
		return BIT(S_GROUP_ID) | BIT(S_STEP_NUM) | BIT(S_ROOT) |
		       BIT(S_CORRELATION_ID) | BIT(S_TF_OP) |
		       ((BIT(S_DATA_TYPE + 1) - 1) & ~(BIT(S_ALLOCATOR_NAME) - 1));
	case P_TASKENV: return BIT(S_PROFILE_START) | BIT(S_PROFILE_STOP);
	default: return 0;
	}
}

/* map<int64, XEventMetadata> entry; stats are already-encoded field-5 XStats */
static void xg_md_entry(struct pb_buf *out, int64_t id, const char *name,
		     const char *display, const struct pb_buf *stats,
		     const int64_t *child, int nchild)
{
	struct pb_buf v = { 0 }, e = { 0 }, kids = { 0 };
	pb_buf_varint_field(&v, 1, (uint64_t)id);
	pb_buf_str_field(&v, 2, name);
	if (display)
		pb_buf_str_field(&v, 4, display);
	if (stats && stats->len) {
		memcpy(pb_buf_reserve(&v, stats->len), stats->data, stats->len);
		v.len += stats->len;
	}
	for (int i = 0; i < nchild; i++) {	/* repeated int64: packed in proto3 */
		uint8_t *q = pb_buf_reserve(&kids, 10);
		kids.len = (size_t)(pb_wvarint(q, (uint64_t)child[i]) - kids.data);
	}
	if (nchild)
		pb_buf_msg_field(&v, 6, &kids);
	pb_buf_varint_field(&e, 1, (uint64_t)id);
	pb_buf_msg_field(&e, 2, &v);
	pb_buf_msg_field(out, 4, &e);
	pb_buf_free(&v);
	pb_buf_free(&e);
	pb_buf_free(&kids);
}

static void xg_sm_entry(struct pb_buf *out, int64_t id, const char *name)
{
	struct pb_buf v = { 0 }, e = { 0 };
	pb_buf_varint_field(&v, 1, (uint64_t)id);
	pb_buf_str_field(&v, 2, name);
	pb_buf_varint_field(&e, 1, (uint64_t)id);
	pb_buf_msg_field(&e, 2, &v);
	pb_buf_msg_field(out, 5, &e);
	pb_buf_free(&v);
	pb_buf_free(&e);
}

static void xg_plane_tail(const struct xg_plan *p, const struct xg_plane *pl, struct pb_buf *out)
{
	static const int64_t wkids[] = { T_FUSION10 + 1, T_CONV11 + 1, T_CALL12 + 1,
					 T_AR13 + 1, T_FUSION14 + 1 };
	static const int64_t ckids[] = { T_FUSION20 + 1, T_REDUCE21 + 1 };
	struct pb_buf st = { 0 };
	char nm[64];
	int sb = pl->sbase, gpu = p->cfg.kind == KIND_GPU;
	if (pl->kind == P_TPU) {
		for (int o = 0; o < T_COUNT; o++) {
			const struct tpu_op *t = &tpu_ops[o];
			st.len = 0;
			if (t->category)
				pb_buf_stat(&st, 5, sb + S_HLO_CATEGORY + 1, PB_STAT_STR, 0, t->category);
			pb_buf_stat(&st, 5, sb + S_PROGRAM_ID + 1, PB_STAT_U64, prog_tpu_id[t->prog], NULL);
			if (t->flops)
				pb_buf_stat(&st, 5, sb + S_FLOPS + 1, PB_STAT_I64, (uint64_t)t->flops, NULL);
			if (t->bytes)
				pb_buf_stat(&st, 5, sb + S_BYTES_ACCESSED + 1, PB_STAT_I64, (uint64_t)t->bytes, NULL);
			pb_buf_stat(&st, 5, sb + S_TF_OP + 1, PB_STAT_STR, 0, t->tf_op);
			xg_md_entry(out, o + 1, t->text, t->name, &st,
				 o == T_WHILE4 ? wkids : ckids, o == T_WHILE4 ? 5 : o == T_CALL12 ? 2 : 0);
		}
		for (int g = 0; g < PROG_COUNT; g++) {
			snprintf(nm, sizeof nm, "%s(%" PRIu64 ")", prog_names[g], prog_tpu_id[g]);
			xg_md_entry(out, T_COUNT + 1 + g, nm, NULL, NULL, NULL, 0);
		}
	} else if (pl->kind == P_GPU) {
		for (int k = 0; k < K_COUNT; k++) {
			st.len = 0;
			if (gpu_kernels[k].kd_mode == KD_META)
				pb_buf_stat(&st, 5, sb + S_KERNEL_DETAILS + 1, PB_STAT_STR, 0, p->kd[k]);
			xg_md_entry(out, k + 1, gpu_kernels[k].name, NULL, &st, NULL, 0);
		}
	} else if (pl->kind == P_META) {
		for (int g = 0; g < PROG_COUNT; g++) {
			uint64_t id = gpu ? prog_gpu_id[g] : prog_tpu_id[g];
			snprintf(nm, sizeof nm, "%s(%" PRIu64 ")", prog_names[g], id);
			xg_md_entry(out, (int64_t)id, nm, NULL, NULL, NULL, 0);
		}
	} else if (pl->kind == P_HOST) {
		for (int h = 0; h < H_COUNT; h++)
			xg_md_entry(out, h + 1, host_names[h], NULL, NULL, NULL, 0);
	}
	if (pl->kind == P_TPU || pl->kind == P_GPU) {	/* step markers */
		int64_t base = pl->kind == P_TPU ? T_COUNT + 1 + PROG_COUNT : K_COUNT + 1;
		for (int k = 0; k < p->S; k++) {
			snprintf(nm, sizeof nm, "%d", STEP_ID0 + k);
			xg_md_entry(out, base + k, nm, NULL, NULL, NULL, 0);
		}
	}
	uint64_t mask = xg_plane_stat_mask(pl->kind);
	for (int s = 0; s < S_COUNT; s++)
		if (mask & BIT(s))
			xg_sm_entry(out, sb + s + 1, stat_names[s]);
	const struct xg_refs *r = pl->kind == P_GPU ? &p->gref : pl->kind == P_HOST ? &p->href : NULL;
	for (int i = 0; r && i < r->n; i++)
		xg_sm_entry(out, sb + S_COUNT + 1 + i, r->s[i]);
	if (pl->kind == P_TPU) {
		double v[2] = { 918.0, 1640.0 };
		uint64_t bits[2];
		memcpy(bits, v, sizeof bits);
		pb_buf_stat(out, 6, sb + S_PEAK_TFLOPS + 1, PB_STAT_DOUBLE, bits[0], NULL);
		pb_buf_stat(out, 6, sb + S_PEAK_HBM_BW + 1, PB_STAT_DOUBLE, bits[1], NULL);
	} else if (pl->kind == P_GPU) {
		pb_buf_stat(out, 6, sb + S_DEVICE_VENDOR + 1, PB_STAT_STR, 0, "Nvidia");
		pb_buf_stat(out, 6, sb + S_CLOCK_RATE + 1, PB_STAT_I64, 1980000, NULL);
		pb_buf_stat(out, 6, sb + S_CORE_COUNT + 1, PB_STAT_I64, 132, NULL);
		pb_buf_stat(out, 6, sb + S_MEM_BW + 1, PB_STAT_U64, 3352000000000ull, NULL);
		pb_buf_stat(out, 6, sb + S_MEM_SIZE + 1, PB_STAT_U64, 80ull << 30, NULL);
		pb_buf_stat(out, 6, sb + S_CC_MAJOR + 1, PB_STAT_I64, 9, NULL);
		pb_buf_stat(out, 6, sb + S_CC_MINOR + 1, PB_STAT_I64, 0, NULL);
	} else if (pl->kind == P_TASKENV) {
		uint64_t stop = PROFILE_START_NS + xg_step_base(p, p->S) / 1000 + 1000000;
		pb_buf_stat(out, 6, sb + S_PROFILE_START + 1, PB_STAT_U64, PROFILE_START_NS, NULL);
		pb_buf_stat(out, 6, sb + S_PROFILE_STOP + 1, PB_STAT_U64, stop, NULL);
	}
	pb_buf_free(&st);
}

/* ---- the two passes ---- */

static void xg_field_head(struct pb_sink *s, int field, uint64_t len)
{
	uint8_t *q = pb_sink_reserve(s, 16);
	*q++ = PB_TAG(field, PB_LEN);
	pb_sink_commit(s, pb_wvarint(q, len));
}

/* Emits the XSpace. The counting pass (sizing) records line and plane
 * lengths; the writing pass uses them as prefixes and checks that the
 * regenerated bytes have exactly those lengths. */
static void xg_emit_space(struct xg_plan *p, struct pb_sink *s, struct xg_expect *ex, int sizing)
{
	uint64_t total = 0;
	struct xg_ctx c;
	for (int pi = 0; pi < p->nplanes; pi++) {
		struct xg_plane *pl = &p->planes[pi];
		struct pb_buf tail = { 0 }, hdr = { 0 };
		xg_plane_tail(p, pl, &tail);
		if (pl->id)
			pb_buf_varint_field(&hdr, 1, (uint64_t)pl->id);
		pb_buf_str_field(&hdr, 2, pl->name);
		if (!sizing) {
			xg_field_head(s, 1, pl->bytes);
			pb_sink_write(s, hdr.data, hdr.len);
		}
		uint64_t pbytes = hdr.len + tail.len;
		for (int li = pl->line0; li < pl->line0 + pl->nlines; li++) {
			struct xg_line *ln = &p->lines[li];
			struct pb_buf lh = { 0 };
			if (ln->id)
				pb_buf_varint_field(&lh, 1, (uint64_t)ln->id);
			pb_buf_str_field(&lh, 2, ln->name);
			if (ln->ts_ns)
				pb_buf_varint_field(&lh, 3, (uint64_t)ln->ts_ns);
			if (!sizing) {
				xg_field_head(s, 3, ln->bytes);
				pb_sink_write(s, lh.data, lh.len);
			}
			memset(&c, 0, sizeof c);
			c.p = p;
			c.s = s;
			c.ex = ex;
			c.base_ps = (uint64_t)ln->ts_ns * 1000;
			c.sbase = pl->sbase;
			c.last_op = -1;
			for (int a = 0; a < 2; a++)	/* live before the profile began */
				c.mem[a].allocated = mem_base[a];
			uint64_t pos = pb_sink_pos(s);
			for (uint64_t u = ln->u0; u < ln->u1; u++)
				xg_emit_unit(&c, ln, u);
			uint64_t lbytes = lh.len + (pb_sink_pos(s) - pos);
			if (c.nev != ln->events || (!sizing && lbytes != ln->bytes))
				xg_die("internal error: line '%s' does not match its plan", ln->name);
			ln->bytes = lbytes;
			pbytes += 1 + pb_varint_len(lbytes) + lbytes;
			pb_buf_free(&lh);
			if (s->err)
				return;	/* the caller reports it; no point in going on */
		}
		if (!sizing) {
			pb_sink_write(s, tail.data, tail.len);
			if (pbytes != pl->bytes)
				xg_die("internal error: plane '%s' does not match its plan", pl->name);
		}
		pl->bytes = pbytes;
		total += 1 + pb_varint_len(pbytes) + pbytes;
		pb_buf_free(&tail);
		pb_buf_free(&hdr);
	}
	struct pb_buf hn = { 0 };
	pb_buf_str_field(&hn, 4, "gen-host");
	if (!sizing)
		pb_sink_write(s, hn.data, hn.len);
	p->bytes = total + hn.len;
	pb_buf_free(&hn);
}

static void xg_size_pass(struct xg_plan *p)
{
	struct pb_sink s;
	pb_sink_open(&s, PB_SINK_COUNT, -1, 0);
	xg_emit_space(p, &s, NULL, 1);
	pb_sink_close(&s);
}

/* ---- expected analysis results (JSON) ---- */

struct op_row {
	const char *name, *program;
	char category[32];
	uint64_t occ, self, total, flops, bytes;
};

static int xg_op_row_cmp(const void *a, const void *b)
{
	const struct op_row *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->program, y->program);
}

static int xg_live_cmp(const void *a, const void *b)
{
	const struct xg_live *x = a, *y = b;
	return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1) : (x->addr > y->addr) - (x->addr < y->addr);
}

/* docs/analyses.md: the HLO name without a trailing .N / _N suffix */
static void xg_derive_category(const char *name, char *out, size_t n)
{
	size_t len = strlen(name), e = len;
	while (e > 0 && name[e - 1] >= '0' && name[e - 1] <= '9')
		e--;
	if (e < len && e > 1 && (name[e - 1] == '.' || name[e - 1] == '_'))
		len = e - 1;
	snprintf(out, n, "%.*s", (int)len, name);
}

static void xg_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void xg_write_expect(const struct xg_plan *p, struct xg_expect *ex, FILE *f)
{
	int gpu = p->cfg.kind == KIND_GPU;
	fprintf(f, "{\n  \"kind\": \"%s\", \"seed\": %" PRIu64 ", \"events\": %" PRIu64
		   ", \"bytes\": %" PRIu64 ",\n  \"programs\": [", gpu ? "gpu" : "tpu",
		p->cfg.seed, p->events, p->bytes);
	for (int g = 0; g < PROG_COUNT; g++)
		fprintf(f, "%s{\"id\": %" PRIu64 ", \"name\": \"%s\"}", g ? ", " : "",
			gpu ? prog_gpu_id[g] : prog_tpu_id[g], prog_names[g]);
	fputs("],\n  \"planes\": [", f);
	for (int i = 0; i < p->nplanes; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		xg_json_str(f, p->planes[i].name);
		fprintf(f, ", \"lines\": %d, \"events\": %" PRIu64 "}", p->planes[i].nlines,
			p->planes[i].events);
	}
	struct op_row rows[T_COUNT + G_COUNT];
	int n = 0;
	for (int o = 0; o < T_COUNT + G_COUNT; o++) {
		if (!ex->occ[o])
			continue;
		struct op_row *r = &rows[n++];
		int t = o < T_COUNT, g = o - T_COUNT;
		int prog = t ? tpu_ops[o].prog : gpu_ops[g].prog;
		r->name = t ? tpu_ops[o].name : gpu_ops[g].name;
		r->program = prog >= 0 ? prog_names[prog] : "";
		if (t && tpu_ops[o].category)
			snprintf(r->category, sizeof r->category, "%s", tpu_ops[o].category);
		else if (!t && prog < 0)
			snprintf(r->category, sizeof r->category, "memcpy");
		else
			xg_derive_category(r->name, r->category, sizeof r->category);
		r->occ = ex->occ[o];
		r->self = ex->self[o];
		r->total = ex->total[o];
		r->flops = t ? (uint64_t)tpu_ops[o].flops * r->occ : 0;
		r->bytes = t ? (uint64_t)tpu_ops[o].bytes * r->occ : 0;
	}
	qsort(rows, (size_t)n, sizeof rows[0], xg_op_row_cmp);
	fputs("\n  ],\n  \"ops\": [", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		xg_json_str(f, rows[i].name);
		fputs(", \"program\": ", f);
		xg_json_str(f, rows[i].program);
		fputs(", \"category\": ", f);
		xg_json_str(f, rows[i].category);
		fprintf(f, ", \"occurrences\": %" PRIu64 ", \"self_ps\": %" PRIu64
			   ", \"total_ps\": %" PRIu64 ", \"flops\": %" PRIu64
			   ", \"bytes_accessed\": %" PRIu64 "}",
			rows[i].occ, rows[i].self, rows[i].total, rows[i].flops, rows[i].bytes);
	}
	fputs("\n  ],\n  \"devices\": [", f);
	int first = 1;
	for (int i = 0; i < p->nplanes; i++) {
		const struct xg_plane *pl = &p->planes[i];
		if (pl->kind != P_TPU && pl->kind != P_GPU)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"busy_ps\": %" PRIu64 ", \"span_ps\": %" PRIu64 "}",
			first ? "" : ",", pl->name, ex->busy[pl->dev],
			ex->last[pl->dev] - ex->first[pl->dev]);
		first = 0;
	}
	fputs("\n  ],\n  \"steps\": [", f);
	for (int k = 0; k < p->S; k++)	/* step starts increase with k */
		fprintf(f, "%s\n    {\"id\": %d, \"start_ps\": %" PRIu64 ", \"duration_ps\": %" PRIu64 "}",
			k ? "," : "", STEP_ID0 + k, ex->sfirst[k], ex->slast[k] - ex->sfirst[k]);
	/* memory and kernels carry exactly the keys the brief fixed (checkers
	 * compare every key); the details go to memory_live and kernel_rows */
	fputs("\n  ],\n  \"memory\": [", f);
	for (int a = 0; a < p->A; a++) {
		const struct xg_mem_acc *m = &ex->mem[a];
		fprintf(f, "%s\n    {\"allocator\": \"%s\", \"peak_bytes\": %" PRIu64
			   ", \"peak_time_ps\": %" PRIu64 ", \"lifetime_peak_bytes\": %" PRIu64
			   ", \"capacity_bytes\": %" PRIu64 "}",
			a ? "," : "", gpu ? gpu_allocators[a] : (a ? "1" : "0"), m->peak,
			m->peak_time, m->lifetime, m->capacity);
	}
	fputs("\n  ],\n  \"memory_live\": [", f);
	for (int a = 0; a < p->A; a++) {
		struct xg_mem_acc *m = &ex->mem[a];
		fprintf(f, "%s\n    {\"allocator\": \"%s\", \"live_at_peak\": [", a ? "," : "",
			gpu ? gpu_allocators[a] : (a ? "1" : "0"));
		qsort(m->live, (size_t)m->nlive, sizeof m->live[0], xg_live_cmp);
		for (int l = 0; l < m->nlive; l++)
			fprintf(f, "%s\n      {\"addr\": %" PRIu64 ", \"bytes\": %" PRIu64
				   ", \"tf_op\": \"%s\", \"shape\": \"%s\"}",
				l ? "," : "", m->live[l].addr, m->live[l].bytes,
				mem_tf_ops[m->live[l].buf], mem_shapes[m->live[l].buf]);
		fputs("]}", f);
	}
	int order[KR_COUNT], nk = 0;
	for (int r = 0; r < KR_COUNT; r++)
		if (ex->kocc[r])
			order[nk++] = r;
	for (int i = 1; i < nk; i++)	/* insertion sort by total, descending */
		for (int j = i; j > 0 && ex->ktot[order[j]] > ex->ktot[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* kernels: one row per kernel name (the nccl kernel serves two ops) */
	uint64_t kn_occ[K_COUNT] = { 0 }, kn_tot[K_COUNT] = { 0 };
	int kn[K_COUNT], nn = 0;
	for (int r = 0; r < KR_COUNT; r++) {
		kn_occ[krow_k[r]] += ex->kocc[r];
		kn_tot[krow_k[r]] += ex->ktot[r];
	}
	for (int k = 0; k < K_COUNT; k++)
		if (kn_occ[k])
			kn[nn++] = k;
	for (int i = 1; i < nn; i++)
		for (int j = i; j > 0 && kn_tot[kn[j]] > kn_tot[kn[j - 1]]; j--) {
			int t = kn[j];
			kn[j] = kn[j - 1];
			kn[j - 1] = t;
		}
	fputs("\n  ],\n  \"kernels\": [", f);
	for (int i = 0; i < nn; i++)
		fprintf(f, "%s\n    {\"name\": \"%s\", \"occurrences\": %" PRIu64
			   ", \"total_ps\": %" PRIu64 "}",
			i ? "," : "", gpu_kernels[kn[i]].name, kn_occ[kn[i]], kn_tot[kn[i]]);
	fputs("\n  ],\n  \"kernel_rows\": [", f);
	for (int i = 0; i < nk; i++) {
		int r = order[i];
		const struct gpu_kernel *k = &gpu_kernels[krow_k[r]];
		fprintf(f, "%s\n    {\"name\": \"%s\", \"op\": \"%s\", \"grid\": \"%d,%d,%d\", "
			   "\"block\": \"%d,%d,%d\", \"registers\": %d, \"shared_bytes\": %d, "
			   "\"occurrences\": %" PRIu64 ", \"total_ps\": %" PRIu64
			   ", \"min_ps\": %" PRIu64 ", \"max_ps\": %" PRIu64 "}",
			i ? "," : "", k->name, gpu_ops[krow_op[r]].name, k->grid[0], k->grid[1],
			k->grid[2], k->block[0], k->block[1], k->block[2], k->regs,
			k->sshared + k->dshared, ex->kocc[r], ex->ktot[r], ex->kmin[r], ex->kmax[r]);
	}
	fputs("\n  ]\n}\n", f);
}

/* ---- command line and output files ---- */

static void xg_usage(FILE *f)
{
	fputs("usage: xtop-gen [options] -o FILE\n"
	      "Writes a synthetic XSpace profile (*.xplane.pb) shaped like real XLA profiles.\n"
	      "  --kind tpu|gpu    device planes: TPU-like (default) or GPU-like\n"
	      "  --events N        approximate number of XEvents (default 20000; K/M/G = 10^3/6/9)\n"
	      "  --size BYTES      instead: generate at least this many bytes of XSpace\n"
	      "                    (uncompressed; K/M/G/T = 2^10/20/30/40)\n"
	      "  --devices D       device planes (default 4 for tpu, 2 for gpu; 1..256)\n"
	      "  --steps S         training steps (default 10; 1..100000)\n"
	      "  --seed X          PRNG seed (default 1); same arguments give identical bytes\n"
	      "  --gzip            write gzip-compressed output\n"
	      "  --expect FILE     also write the expected analysis results as JSON\n"
	      "  -o, --output FILE output file (written to a temporary file, then renamed)\n"
	      "  -h, --help        show this help\n", f);
}

static uint64_t xg_parse_num(const char *opt, const char *s, int binary)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		xg_die("%s: not a number: '%s'", opt, s);
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end) {
		const char *units = "KMGT", *u = strchr(units, *end & ~0x20);
		if (!u || !*u)
			xg_die("%s: bad suffix in '%s'", opt, s);
		for (long i = 0; i <= u - units; i++)
			mul *= binary ? 1024 : 1000;
		end++;
		if (binary && (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end += 2;
		else if (binary && (*end == 'B' || *end == 'b'))
			end++;
		if (*end)
			xg_die("%s: bad suffix in '%s'", opt, s);
	}
	if (errno || v > UINT64_MAX / mul)
		xg_die("%s: number too large: '%s'", opt, s);
	return (uint64_t)v * mul;
}

static void xg_parse_args(int argc, char **argv, struct xg_cfg *cfg)
{
	static const char *const with_value[] = { "--kind", "--events", "--size", "--devices",
						   "--steps", "--seed", "--expect", "-o", "--output" };
	int have_events = 0;
	memset(cfg, 0, sizeof *cfg);
	cfg->events = 20000;
	cfg->steps = 10;
	cfg->seed = 1;
	cfg->devices = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t nlen = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			xg_usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--gzip")) {
			cfg->gzip = 1;
			continue;
		}
		const char *opt = NULL, *val = NULL;
		for (size_t o = 0; o < sizeof with_value / sizeof *with_value; o++)
			if (strlen(with_value[o]) == nlen && !strncmp(a, with_value[o], nlen))
				opt = with_value[o];
		if (!opt)
			xg_die("unknown option '%s' (see --help)", a);
		if (nlen < strlen(a))
			val = a + nlen + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			xg_die("option %s needs a value", opt);
		if (!strcmp(opt, "--kind")) {
			if (!strcmp(val, "tpu"))
				cfg->kind = KIND_TPU;
			else if (!strcmp(val, "gpu"))
				cfg->kind = KIND_GPU;
			else
				xg_die("--kind: expected tpu or gpu, got '%s'", val);
		} else if (!strcmp(opt, "--events")) {
			cfg->events = xg_parse_num(opt, val, 0);
			have_events = 1;
			if (cfg->events < 1 || cfg->events > 1000000000000ull)
				xg_die("--events: must be between 1 and 10^12");
		} else if (!strcmp(opt, "--size")) {
			cfg->size = xg_parse_num(opt, val, 1);
			if (cfg->size < 1 || cfg->size > (64ull << 40))
				xg_die("--size: must be between 1 byte and 64 TiB");
		} else if (!strcmp(opt, "--devices")) {
			uint64_t v = xg_parse_num(opt, val, 0);
			if (v < 1 || v > 256)
				xg_die("--devices: must be between 1 and 256");
			cfg->devices = (int)v;
		} else if (!strcmp(opt, "--steps")) {
			uint64_t v = xg_parse_num(opt, val, 0);
			if (v < 1 || v > 100000)
				xg_die("--steps: must be between 1 and 100000");
			cfg->steps = (int)v;
		} else if (!strcmp(opt, "--seed")) {
			cfg->seed = xg_parse_num(opt, val, 0);
		} else if (!strcmp(opt, "--expect")) {
			cfg->expect = val;
		} else {
			cfg->out = val;
		}
	}
	if (!cfg->out)
		xg_die("no output file given (-o FILE)");
	if (have_events && cfg->size)
		xg_die("--events and --size are mutually exclusive");
	if (cfg->devices < 0)
		cfg->devices = cfg->kind == KIND_GPU ? 2 : 4;
}

/* Opens a temporary file beside path; the caller renames it into place, so
 * readers never see a partial file. */
static int xg_open_tmp(const char *path, char **tmp)
{
	size_t n = strlen(path) + 16;
	*tmp = malloc(n);
	if (!*tmp)
		xg_die("out of memory");
	snprintf(*tmp, n, "%s.tmpXXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0)
		xg_die("cannot create a temporary file beside %s: %s", path, strerror(errno));
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		unlink(*tmp);
		xg_die("cannot set permissions of %s: %s", *tmp, strerror(errno));
	}
	return fd;
}

static void xg_commit_tmp(char *tmp, const char *path, int failed, int err)
{
	if (failed || rename(tmp, path) != 0) {
		if (!failed)
			err = errno;
		unlink(tmp);
		xg_die("cannot write %s: %s", path, strerror(err));
	}
	free(tmp);
}

int main(int argc, char **argv)
{
	struct xg_cfg cfg;
	struct xg_plan p = { 0 };
	xg_parse_args(argc, argv, &cfg);
	if (cfg.size) {
		/* Bytes per event grow slowly with the timeline (longer offset
		 * varints), so calibrate on a small plan, then search event targets
		 * by counting passes: lo is too small, hi big enough; stop within
		 * 1 % above the requested size or after a few passes. */
		xg_plan_build(&p, &cfg, 200000);
		xg_size_pass(&p);
		uint64_t lo = 0, hi = 0, step = (uint64_t)cfg.steps * (uint64_t)cfg.devices * 16;
		uint64_t target = (uint64_t)((double)cfg.size * (double)p.events / (double)p.bytes) + 1;
		for (int n = 0;; n++) {
			xg_plan_build(&p, &cfg, target);
			xg_size_pass(&p);
			if (p.bytes >= cfg.size) {
				if (!hi || target < hi)
					hi = target;
				if (p.bytes - cfg.size <= cfg.size / 100)
					break;
			} else if (target > lo) {
				lo = target;
			}
			if (hi && n >= 6)
				break;
			uint64_t next = (uint64_t)((double)target * (double)cfg.size / (double)p.bytes * 1.003) + 1;
			if (!hi && next < lo + step)
				next = lo + step;
			if (hi && (next >= hi || next <= lo))
				next = lo + (hi - lo) / 2;
			if (next <= lo)
				break;	/* hi is the smallest target that is big enough */
			target = next;
		}
		if (target != hi) {
			xg_plan_build(&p, &cfg, hi);
			xg_size_pass(&p);
		}
	} else {
		xg_plan_build(&p, &cfg, cfg.events);
		xg_size_pass(&p);
	}

	struct xg_expect ex;
	memset(&ex, 0, sizeof ex);
	size_t D = (size_t)p.D, S = (size_t)p.S;
	ex.busy = calloc(D, sizeof *ex.busy);
	ex.first = malloc(D * sizeof *ex.first);
	ex.last = calloc(D, sizeof *ex.last);
	ex.sfirst = malloc(S * sizeof *ex.sfirst);
	ex.slast = calloc(S, sizeof *ex.slast);
	if (!ex.busy || !ex.first || !ex.last || !ex.sfirst || !ex.slast)
		xg_die("out of memory");
	memset(ex.first, 0xff, D * sizeof *ex.first);
	memset(ex.sfirst, 0xff, S * sizeof *ex.sfirst);
	memset(ex.kmin, 0xff, sizeof ex.kmin);

	char *tmp;
	int fd = xg_open_tmp(cfg.out, &tmp);
	struct pb_sink s;
	if (pb_sink_open(&s, cfg.gzip ? PB_SINK_GZ : PB_SINK_FD, fd, 1) != 0) {
		unlink(tmp);
		xg_die("cannot open gzip stream: %s", strerror(s.err));
	}
	xg_emit_space(&p, &s, &ex, 0);
	int failed = pb_sink_close(&s) != 0;
	xg_commit_tmp(tmp, cfg.out, failed, s.err);

	if (cfg.expect) {
		fd = xg_open_tmp(cfg.expect, &tmp);
		FILE *f = fdopen(fd, "w");
		if (!f) {
			unlink(tmp);
			xg_die("cannot write %s: %s", cfg.expect, strerror(errno));
		}
		xg_write_expect(&p, &ex, f);
		int err = ferror(f) ? EIO : 0;
		if (fclose(f) != 0 && !err)
			err = errno;
		xg_commit_tmp(tmp, cfg.expect, err != 0, err);
	}
	printf("%s: %s, %d planes, %d lines, %" PRIu64 " events, %" PRIu64 " bytes%s\n",
	       cfg.out, cfg.kind == KIND_GPU ? "gpu" : "tpu", p.nplanes, p.nlines, p.events,
	       p.bytes, cfg.gzip ? " before gzip" : "");
	free(p.lines);
	free(ex.busy);
	free(ex.first);
	free(ex.last);
	free(ex.sfirst);
	free(ex.slast);
	return 0;
}
