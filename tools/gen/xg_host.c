/*
 * xg_host.c - the host side of xtop-gen's profile: host event names, the
 * python and runtime-task lines, and memory allocations whose running
 * totals are part of the output (see xg_host.h).
 */
#include "xg_host.h"

#include <string.h>

#include "pbwrite.h"
#include "xg_calls.h"
#include "xg_expect.h"
#include "xg_meta.h"
#include "xg_plan.h"
#include "xg_space.h"

const char *const xg_host_names[H_COUNT] = {
	"train", "PjitFunction(train_step)", "PjRtCApiLoadedExecutable::Execute",
	"PjitFunction(init_params)", "tpu::System::Execute", "cuLaunchKernel",
	"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "MemoryAllocation",
	"MemoryDeallocation"
};
const char *const xg_host_mem_tf_ops[MEM_BUFS] = {
	"jit(train_step)/jit(main)/dot_general", "jit(train_step)/jit(main)/tanh",
	"jit(train_step)/jit(main)/while/body/dot_general",
	"jit(train_step)/jit(main)/psum", "jit(train_step)/jit(main)/transpose",
	"jit(train_step)/jit(main)/reduce_sum"
};
const char *const xg_host_mem_shapes[MEM_BUFS] = {
	"f32[1024,1024]", "bf16[128,1024]", "f32[128,1024]", "f32[1024,1024]",
	"f32[1024,1024]", "f32[128]"
};
/* the GPU allocator names, written as ref_value and str_value */
const char *const xg_host_gpu_allocators[2] = { "GPU_0_bfc", "xla_gpu_host_bfc" };
/* per kind (TPU, GPU) and allocator */
static const uint64_t xg_host_mem_capacity[2][2] = { { 16ull << 30, 16ull << 30 },
						     { 80ull << 30, 32ull << 30 } };
static const uint64_t xg_host_mem_reserved[2] = { 0, 48ull << 20 };
const uint64_t xg_host_mem_base[2] = { 2ull << 30, 1ull << 30 };
/* allocator 0 had a higher peak before the profile started */
static const uint64_t xg_host_mem_prepeak[2][2] = { { 12ull << 30, 0 },
						    { 60ull << 30, 0 } };

/* host step marker [hs, he) of step k */
static uint64_t xg_host_start(const struct xg_plan *p, int k)
{
	return xg_plan_step_base(p, k) - HOST_LEAD;
}

/* end of the host step marker of step k */
static uint64_t xg_host_end(const struct xg_plan *p, int k)
{
	return xg_host_start(p, k) + p->period - 5 * US;
}

void xg_host_event(struct xg_space_ctx *c, int h, uint64_t start, uint64_t dur,
		   uint64_t corr, int k)
{
	struct xg_space_sv sv[2] = { SV_U(S_CORRELATION_ID, corr),
				     SV_I(S_GROUP_ID, STEP_ID0 + k) };
	xg_space_event(c, (uint64_t)h + 1, start, dur, corr ? sv : sv + 1, (corr != 0) + (k >= 0));
}

/* size and address of buffer i of step k of allocator a */
static uint64_t xg_host_mem_size(const struct xg_plan *p, int a, int k, int i)
{
	return (1 + xg_plan_hash(p, HD_MEM, (uint64_t)(a * MEM_BUFS + i), (uint64_t)k) % 2048)
	       << 18;
}

static uint64_t xg_host_mem_addr(int a, int k, int i)
{
	return (a ? 0x7e0000000000ull : 0x7f0000000000ull) +
	       ((uint64_t)k * MEM_BUFS + (uint64_t)i) * (1ull << 29);
}

/* One MemoryAllocation/MemoryDeallocation event of allocator a; buffer i of
 * step bk. Updates the running state and, when collecting, the peak. */
static void xg_host_mem_event(struct xg_space_ctx *c, int a, int alloc, int k, int bk, int i,
			      uint64_t t)
{
	const struct xg_plan *p = c->p;
	int gpu = p->cfg.kind == KIND_GPU;
	struct xg_host_mem *m = &c->mem[a];
	uint64_t sz = xg_host_mem_size(p, a, bk, i), addr = xg_host_mem_addr(a, bk, i);
	if (alloc) {
		m->allocated += sz;
		m->live[m->nlive++] = (struct xg_host_buf){ addr, sz, i };
	} else {
		m->allocated -= sz;
		for (int l = 0; l < m->nlive; l++)
			if (m->live[l].addr == addr)
				m->live[l] = m->live[--m->nlive];
	}
	uint64_t res = xg_host_mem_reserved[a], use = res + m->allocated;
	uint64_t cap = xg_host_mem_capacity[gpu][a], avail = cap - use;
	if (m->maxuse < use)
		m->maxuse = use;
	uint64_t prepeak = xg_host_mem_prepeak[gpu][a];
	uint64_t peak_in_use = m->maxuse > prepeak ? m->maxuse : prepeak;
	double frag = (double)(xg_plan_hash(p, HD_FRAG, (uint64_t)a, c->nev) % 1000) / 1000.0;
	uint64_t fbits;
	memcpy(&fbits, &frag, sizeof fbits);
	struct xg_space_sv sv[15] = {
		gpu ? (a ? (struct xg_space_sv)SV_S(S_ALLOCATOR_NAME, xg_host_gpu_allocators[1])
			 : (struct xg_space_sv)SV_R(S_ALLOCATOR_NAME, p->h_alloc_ref))
		    : (struct xg_space_sv)SV_I(S_INDEX_ON_HOST, a),
		SV_I(S_BYTES_RESERVED, res), SV_I(S_BYTES_ALLOCATED, m->allocated),
		SV_I(S_BYTES_AVAILABLE, avail), { S_FRAGMENTATION, PB_STAT_DOUBLE, fbits, NULL },
		SV_I(S_PEAK_IN_USE, peak_in_use), SV_I(S_ALLOC_BYTES, sz), SV_I(S_ADDR, addr),
		SV_I(S_GROUP_ID, STEP_ID0 + k), SV_I(S_REQUESTED, sz - (sz >> 6) * (uint64_t)(i & 1)),
		SV_R(S_TF_OP, p->h_tfop_ref[i]), SV_S(S_SHAPE, xg_host_mem_shapes[i]),
		SV_S(S_REGION_TYPE, i == 0 ? "output" : "temp"), SV_I(S_DATA_TYPE, 1 + i % 3),
	};
	/* deallocations carry no request, op or shape: upstream joins them by addr */
	xg_space_event(c, (uint64_t)(alloc ? H_ALLOC : H_FREE) + 1, t, 0, sv, alloc ? 14 : 9);
	if (!c->ex)
		return;
	struct xg_expect_mem *acc = &c->ex->mem[a];
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
void xg_host_unit(struct xg_space_ctx *c, int kind, uint64_t u)
{
	const struct xg_plan *p = c->p;
	if (u == 0) {
		if (kind == L_HOST_PY)
			xg_host_event(c, H_PJIT_INIT, T_INIT - 30 * US, 20 * US, 0, -1);
		return;
	}
	int k = (int)((u - 1) / (uint64_t)p->M);
	if ((u - 1) % (uint64_t)p->M != 0) {
		if (kind == L_HOST_PY)
			xg_calls_py_unit(c, u);
		return;
	}
	uint64_t hs = xg_host_start(p, k), he = xg_host_end(p, k);
	if (kind == L_HOST_PY) {
		struct xg_space_sv sv[3] = { SV_I(S_STEP_NUM, STEP_ID0 + k), SV_I(S_ROOT, 1),
					     SV_I(S_GROUP_ID, STEP_ID0 + k) };
		xg_space_event(c, H_TRAIN + 1, hs, he - hs, sv, 3);
		xg_host_event(c, H_PJIT, hs + US, 30 * US, 0, k);
		xg_host_event(c, H_EXEC, hs + 2 * US, 27 * US, 0, k);
		xg_calls_py_unit(c, u);
	} else if (kind == L_HOST_TASKS) {
		for (int d = 0; d < p->D; d++)
			xg_host_event(c, H_TPU_EXEC, hs + 40 * US + (uint64_t)d * US, 500000, 0, k);
	} else if (kind == L_HOST_MEM) {
		/* allocate MEM_BUFS buffers; free last step's buffer 0 and this
		 * step's others, so buffer 0 lives across a step boundary */
		uint64_t t = hs + 3 * US;
		for (int i = 0; i < MEM_BUFS; i++)
			for (int a = 0; a < p->A; a++, t += US / 2)
				xg_host_mem_event(c, a, 1, k, k, i, t);
		int nf = MEM_BUFS - 1 + (k > 0);
		t = he - 3 * US - (uint64_t)(nf * p->A) * (US / 2);
		for (int f = 0; f < nf; f++)
			for (int a = 0; a < p->A; a++, t += US / 2)
				xg_host_mem_event(c, a, 0, k, k > 0 && f == 0 ? k - 1 : k,
						  k > 0 ? (f == 0 ? 0 : f) : f + 1, t);
	}
}
