/*
 * xg_plan.c - the plan of xtop-gen: solves the event target for the
 * iteration count, lays out the time slots, and lists the planes and lines
 * (split under LINE_CAP) with their event counts (see xg_plan.h).
 */
#include "xg_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xg_calls.h"
#include "xg_die.h"

/* worst-case encoded bytes per event, for splitting lines under LINE_CAP */
static const unsigned xg_plan_line_est_bytes[] = { 1, 64, 64, 44, 64, 96, 80, 80,
						   96, 40, 64, 48, 48, 256, 96, 48, 32 };

uint64_t xg_plan_step_base(const struct xg_plan *p, int k)
{
	return p->t_first + (uint64_t)k * p->period;
}

uint64_t xg_plan_dev_step_start(const struct xg_plan *p, int d, int k)
{
	return xg_plan_step_base(p, k) + (uint64_t)d * SKEW;
}

uint64_t xg_plan_step_wait(const struct xg_plan *p, int d, int k)
{
	return W_MIN + xg_plan_hash(p, HD_WAIT, (uint64_t)d, (uint64_t)k) % W_VAR;
}

/* events that unit u of a line of this kind holds; must match what the
 * writers emit for it (xg_space_unit) */
static uint64_t xg_plan_unit_events(const struct xg_plan *p, int kind, int dev, uint64_t u)
{
	int gpu = p->cfg.kind == KIND_GPU;
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
	case L_HOST_PY: return u == 0 ? 1 : 3 * (uint64_t)first + p->B * xg_calls_py_events(gpu);
	case L_HOST_RT:
		return u == 0 ? 0 : XG_RT_EVENTS * (uint64_t)p->D *
			xg_calls_rt_iters(j * p->B, (j + 1) * p->B, dev, xg_calls_rt_lines(gpu));
	case L_TPU_TRACEME: return first;
	case L_HOST_TASKS: return first ? (uint64_t)p->D : 0;
	case L_HOST_LAUNCH:
		return u == 0 ? 2 : 2 * (uint64_t)first + GPU_ITER_K * p->B + last;
	case L_HOST_MEM:
		return first ? (uint64_t)p->A * (2 * MEM_BUFS - 1 + (k > 0)) : 0;
	default: return 0;
	}
}

static int xg_plan_add_ref(struct xg_refs *r, const char *s)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->s[i], s))
			return i;
	r->s[r->n] = s;
	return r->n++;
}

static struct xg_plane *xg_plan_add_plane(struct xg_plan *p, int kind, int dev,
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

static void xg_plan_push_line(struct xg_plan *p, const struct xg_line *proto,
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
static void xg_plan_add_line(struct xg_plan *p, int kind, int dev, int64_t id,
			     int64_t ts_ns, const char *name)
{
	struct xg_line proto = { .plane = p->nplanes - 1, .kind = kind,
				 .dev = dev, .id = id, .ts_ns = ts_ns };
	snprintf(proto.name, sizeof proto.name, "%s", name);
	uint64_t cap = LINE_CAP / xg_plan_line_est_bytes[kind], u0 = 0, ev = 0;
	for (uint64_t u = 0; u < p->nunits; u++) {
		uint64_t e = xg_plan_unit_events(p, kind, dev, u);
		if (ev + e > cap && u > u0) {
			xg_plan_push_line(p, &proto, u0, u, ev);
			u0 = u;
			ev = 0;
		}
		ev += e;
	}
	xg_plan_push_line(p, &proto, u0, p->nunits, ev);
}

void xg_plan_build(struct xg_plan *p, const struct xg_cfg *cfg, uint64_t target)
{
	free(p->lines);
	memset(p, 0, sizeof *p);
	p->cfg = *cfg;
	int gpu = cfg->kind == KIND_GPU, D = p->D = cfg->devices, S = p->S = cfg->steps;
	p->A = gpu ? 2 : (D < 2 ? D : 2);
	/* events = fixed + I * per_iter; solve for I, then split I into M
	 * while loops / kernel blocks of B iterations that each fit a line */
	uint64_t per_iter = (uint64_t)S * ((uint64_t)D * ((gpu ? 16 : TPU_ITER_EVENTS) + XG_RT_EVENTS) +
					  xg_calls_py_events(gpu));
	uint64_t fixed = (uint64_t)S * ((uint64_t)D * 12 + 30);
	uint64_t I = target > fixed ? (target - fixed) / per_iter : 1;
	uint64_t bmax = gpu ? (LINE_CAP / xg_plan_line_est_bytes[L_GPU_KERNELS]) / GPU_ITER_K
			    : (LINE_CAP / xg_plan_line_est_bytes[L_TPU_OPS]) / TPU_ITER_EVENTS - 1;
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
		p->slot[o] = TPU_GAP + xg_tpu_ops[o].base + xg_tpu_ops[o].jit;
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
		p->kslot[k] = GPU_GAP + xg_gpu_kernels[k].base + xg_gpu_kernels[k].jit;
	for (int j = 0; j < GPU_ITER_K; j++) {
		p->koff[j] = p->gpu_iter;
		p->gpu_iter += p->kslot[xg_gpu_iter_k[j]];
	}
	uint64_t work = gpu ? 2 * p->kslot[K_H2D] + p->I * p->gpu_iter + p->kslot[K_D2H]
			    : p->module_dur;
	uint64_t init = gpu ? p->kslot[K_BCAST] + p->kslot[K_COPY] : p->init_dur;
	p->t_first = T_INIT + (uint64_t)(D - 1) * SKEW + init + 50 * US + HOST_LEAD;
	p->period = W_MIN + W_VAR + work + STEP_TAIL + (uint64_t)(D - 1) * SKEW +
		    30 * US + (uint64_t)D * US;

	/* stat_metadata ref strings */
	for (int g = 0; g < PROG_COUNT; g++)
		p->g_mod_ref[g] = xg_plan_add_ref(&p->gref, xg_meta_prog_names[g]);
	for (int g = 0; g < G_COUNT; g++)
		p->g_hlo_ref[g] = xg_gpu_ops[g].hlo_mode == HLO_REF
					  ? xg_plan_add_ref(&p->gref, xg_gpu_ops[g].hlo_op)
					  : -1;
	for (int k = 0; k < K_COUNT; k++) {
		const struct xg_gpu_kernel *gk = &xg_gpu_kernels[k];
		snprintf(p->kd[k], sizeof p->kd[k],
			 " regs:%d static_shared:%d dynamic_shared:%d grid:%d,%d,%d block:%d,%d,%d occ_pct:%d",
			 gk->regs, gk->sshared, gk->dshared, gk->grid[0], gk->grid[1], gk->grid[2],
			 gk->block[0], gk->block[1], gk->block[2], gk->occ);
		p->g_kd_ref[k] = gk->kd_mode == KD_REF ? xg_plan_add_ref(&p->gref, p->kd[k]) : -1;
	}
	p->h_alloc_ref = gpu ? xg_plan_add_ref(&p->href, xg_host_gpu_allocators[0]) : -1;
	for (int i = 0; i < MEM_BUFS; i++)
		p->h_tfop_ref[i] = xg_plan_add_ref(&p->href, xg_host_mem_tf_ops[i]);

	/* planes and lines, in the fixtures' order */
	char nm[48];
	if (gpu)
		xg_plan_add_plane(p, P_META, 0, 99, "/host:metadata", 0);
	for (int d = 0; d < D; d++) {
		snprintf(nm, sizeof nm, "/device:%s:%d", gpu ? "GPU" : "TPU", d);
		xg_plan_add_plane(p, gpu ? P_GPU : P_TPU, d, gpu ? d : 2 + d, nm, 0);
		if (gpu) {
			/* one input copy per stream and step, so no two
			 * consecutive memcpys on a line share a step */
			xg_plan_add_line(p, L_GPU_H2D, d, 13, GPU_TS_NS, "Stream #13(MemcpyH2D)");
			xg_plan_add_line(p, L_GPU_H2D2, d, 17, GPU_TS_NS, "Stream #17(MemcpyH2D)");
			xg_plan_add_line(p, L_GPU_KERNELS, d, 14, GPU_TS_NS, "Stream #14(Kernel)");
			xg_plan_add_line(p, L_GPU_NCCL, d, 15, GPU_TS_NS, "Stream #15(Kernel)");
			xg_plan_add_line(p, L_GPU_D2H, d, 16, GPU_TS_NS, "Stream #16(MemcpyD2H)");
			/* XProf's derived step line: 0xdeadbeef as a sign-extended int32 */
			xg_plan_add_line(p, L_GPU_STEPS, d, -559038737, GPU_TS_NS, "Steps");
		} else {
			xg_plan_add_line(p, L_TPU_STEPS, d, 1, 0, "Steps");
			xg_plan_add_line(p, L_TPU_MODULES, d, 2, 0, "XLA Modules");
			xg_plan_add_line(p, L_TPU_OPS, d, 3, 0, "XLA Ops");
			xg_plan_add_line(p, L_EMPTY, d, 7, 0, "Overlay");
			xg_plan_add_line(p, L_TPU_TRACEME, d, 8, 0, "XLA TraceMe");
		}
	}
	if (!gpu)
		xg_plan_add_plane(p, P_META, 0, 99, "/host:metadata", 0);
	xg_plan_add_plane(p, P_HOST, 0, 0, "/host:CPU", 100);
	xg_plan_add_line(p, L_HOST_PY, 0, 3116817, HOST_TS_NS, "python3");
	if (gpu) {
		for (int d = 0; d < D; d++) {
			snprintf(nm, sizeof nm, "Host Threads/%d", 21083 + d);
			xg_plan_add_line(p, L_HOST_LAUNCH, d, 21083 + d, HOST_TS_NS, nm);
			snprintf(nm, sizeof nm, "Host Threads/%d", 21565 + d);
			xg_plan_add_line(p, L_HOST_NCCL, d, 21565 + d, HOST_TS_NS, nm);
		}
	} else {
		xg_plan_add_line(p, L_HOST_TASKS, 0, -1606410758, HOST_TS_NS,
				 "pjrt-tpu-tasks/-1606410758");
	}
	/* the runtime's worker threads */
	for (int r = 0; r < xg_calls_rt_lines(gpu); r++) {
		snprintf(nm, sizeof nm, gpu ? "tf_pjrt_thread_pool/%d" : "switchto-default-SDomainT/%d",
			 3118760 + r);
		xg_plan_add_line(p, L_HOST_RT, r, 3118760 + r, HOST_TS_NS, nm);
	}
	/* a thread id >= 2^63: a negative int64 on the wire */
	uint64_t tid = gpu ? 0x8c3f21a755e01d43ull : 0x9c3f21a755e01d43ull;
	snprintf(nm, sizeof nm, "%s/%" PRIu64, gpu ? "py_xla_callback" : "py_xla_execute", tid);
	xg_plan_add_line(p, L_HOST_MEM, 0, (int64_t)tid, HOST_TS_NS, nm);
	xg_plan_add_plane(p, P_TASKENV, 0, 100, "Task Environment", 200);
}
