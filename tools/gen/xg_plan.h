/*
 * xg_plan.h - the plan and timing model of xtop-gen: configuration, the
 * planes and lines to write, and the time slots every event sits in.
 *
 * Model: every timestamp and duration is a pure function of (seed, device,
 * step, iteration, op), and ops sit in fixed time slots, so a parent's
 * duration is known before its children are generated and any line can be
 * regenerated. A line is a range of units: unit 0 holds the init work and
 * every later unit one while loop (TPU) or kernel block (GPU) of B
 * iterations; a step is M units. Lines are capped near LINE_CAP bytes by
 * splitting a timeline into several lines with the same id, only between
 * units (top-level ops), so nesting and kernel merging never cross a split.
 */
#ifndef XTOP_GEN_XG_PLAN_H
#define XTOP_GEN_XG_PLAN_H

#include <stdint.h>

#include "xg_gpu.h"
#include "xg_host.h"
#include "xg_meta.h"
#include "xg_tpu.h"

/* ---- timing model, in picoseconds unless named _NS ---- */
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
#ifndef LINE_CAP			/* tests may build with a small cap */
#define LINE_CAP (64ull << 20)		/* target bytes per line */
#endif
#define HOST_TS_NS 500000		/* host lines start at 0.5 ms */
#define GPU_TS_NS 700000		/* GPU device lines start at 0.7 ms */

enum { KIND_TPU, KIND_GPU };			/* --kind */
enum { HD_DUR = 1, HD_WAIT, HD_MEM, HD_FRAG, HD_CALLS };	/* xg_plan_hash domains */

/* ---- plan ---- */
enum { P_TPU, P_GPU, P_META, P_HOST, P_TASKENV };	/* plane kinds */
/* line kinds: which writer produces a line's events */
enum {
	L_EMPTY, L_TPU_STEPS, L_TPU_MODULES, L_TPU_OPS, L_GPU_STEPS, L_GPU_H2D,
	L_GPU_KERNELS, L_GPU_NCCL, L_GPU_D2H, L_HOST_PY, L_HOST_TASKS,
	L_HOST_LAUNCH, L_HOST_NCCL, L_HOST_MEM, L_GPU_H2D2, L_HOST_RT, L_TPU_TRACEME
};

struct xg_cfg {
	int kind, devices, steps, gzip;
	uint64_t events, size, seed;
	const char *out, *expect;
	const char *scale_in;		/* --scale FILE K: the profile to scale */
	uint64_t scale_k;
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
	char kd[K_COUNT][112];		/* kernel_details strings */
};

/* SplitMix64 finaliser */
static inline uint64_t xg_plan_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* the seeded hash every pseudo-random choice of the model comes from */
static inline uint64_t xg_plan_hash(const struct xg_plan *p, uint64_t a, uint64_t b,
				    uint64_t c)
{
	return xg_plan_mix(xg_plan_mix(p->cfg.seed ^ (a * 0x9e3779b97f4a7c15ull)) +
			   b * 0xc2b2ae3d27d4eb4full + c);
}

/* duration of leaf `op` (TPU op or GPU kernel index) in its slot */
static inline uint64_t xg_plan_leaf_dur(const struct xg_plan *p, int d, int op, int k,
					uint64_t it, uint64_t base, uint64_t jit)
{
	return base + xg_plan_hash(p, ((uint64_t)HD_DUR << 40) | ((uint64_t)d << 8) |
				   (uint64_t)op, (uint64_t)(k + 1), it) % jit;
}

/* Builds the plan for about `target` events (frees a previous plan in p). */
void xg_plan_build(struct xg_plan *p, const struct xg_cfg *cfg, uint64_t target);
/* start of step k on device 0 */
uint64_t xg_plan_step_base(const struct xg_plan *p, int k);
/* start of step k on device d */
uint64_t xg_plan_dev_step_start(const struct xg_plan *p, int d, int k);
/* input wait of device d before the work of step k */
uint64_t xg_plan_step_wait(const struct xg_plan *p, int d, int k);

#endif
