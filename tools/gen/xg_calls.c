/*
 * xg_calls.c - the host threads' call trees of xtop-gen (see xg_calls.h).
 * Names are those real JAX runs show (the Python tracer writes
 * "$file.py:line function"; the runtime names its scopes), and never
 * contain "#" (a TraceMe-encoded step marker) nor the runtime-task names
 * the tests search for.
 */
#include "xg_calls.h"

#include "xg_host.h"
#include "xg_meta.h"
#include "xg_plan.h"
#include "xg_space.h"

const char *const xg_calls_py_names[XG_PY_NAMES] = {
	/* the stack, outermost first */
	"$train.py:212 <module>", "$train.py:188 main", "$trainer.py:341 fit",
	"$trainer.py:297 train_epoch", "$trainer.py:254 train_step",
	"$traceback_util.py:177 reraise_with_filtered_traceback", "$pjit.py:337 cache_miss",
	"$pjit.py:195 _python_pjit_helper", "$core.py:2788 bind", "$core.py:425 bind_with_trace",
	"$pjit.py:1717 _pjit_call_impl", "$pjit.py:1660 call_impl_cache_miss",
	"$dispatch.py:88 apply_primitive", "$api_util.py:297 flatten_fun_nokwargs",
	"$linear_util.py:191 call_wrapped", "$array.py:377 __array__",
	"$xla_bridge.py:1032 devices", "$tree_util.py:77 tree_flatten",
	/* leaves */
	"$builtins isinstance", "$builtins hasattr", "$builtins len", "$util.py:175 <genexpr>",
	"$builtins getattr", "$abc.py:119 __instancecheck__",
};
#define XG_PY_STACK 18

const char *const xg_calls_rt_names[XG_RT_NAMES] = {
	"PjRtCApiLoadedExecutable::ExecuteSharded", "ParseArguments", "Handle inputs",
	"Wait for donation holds", "Acquire semaphore", "DoEnqueueProgram", "LoadProgram",
	"MapDmaBuffer", "DCE", "RecordUsage",
};
enum { RT_ROOT, RT_PARSE, RT_INPUTS, RT_DONATION, RT_SEM, RT_ENQUEUE, RT_LOAD, RT_DMA, RT_DCE,
       RT_USAGE };

/* How deep the Python stack goes: a JAX training loop on a TPU host is
 * about 10 frames deep where the runtime takes over; the GPU profiles of
 * the fixtures trace deeper (up to 21). */
static int xg_calls_py_depth(int gpu)
{
	return gpu ? XG_PY_STACK : 10;
}

/* Leaves called at stack level l before the next frame: 2 every third. */
static int xg_calls_py_leaves(int l)
{
	return l % 3 == 0 ? 2 : 1;
}

uint64_t xg_calls_py_events(int gpu)
{
	uint64_t n = 0;
	for (int l = 0; l < xg_calls_py_depth(gpu); l++)
		n += 1 + (uint64_t)xg_calls_py_leaves(l);
	return n;
}

int xg_calls_rt_lines(int gpu)
{
	return gpu ? XG_RT_LINES_GPU : XG_RT_LINES_TPU;
}

uint64_t xg_calls_rt_iters(uint64_t i0, uint64_t i1, int r, int R)
{
	/* #{i in [i0, i1): i % R == r} */
	uint64_t a = i0 + (uint64_t)((r - (int)(i0 % (uint64_t)R) + R) % R);
	return a < i1 ? (i1 - 1 - a) / (uint64_t)R + 1 : 0;
}

/* Iteration windows: iteration i of step k starts at the step's base plus
 * i device iterations; host work for it stays within the iteration. */
static uint64_t xg_calls_iter_len(const struct xg_plan *p)
{
	return p->cfg.kind == KIND_GPU ? p->gpu_iter : p->iter_slot;
}

static uint64_t xg_calls_iter_start(const struct xg_plan *p, int k, uint64_t i)
{
	return xg_plan_step_base(p, k) + i * xg_calls_iter_len(p);
}

static void xg_calls_unit_iters(const struct xg_plan *p, uint64_t u, int *k, uint64_t *i0,
				uint64_t *i1)
{
	uint64_t j = (u - 1) % (uint64_t)p->M;
	*k = (int)((u - 1) / (uint64_t)p->M);
	*i0 = j * p->B;
	*i1 = (j + 1) * p->B;
}

static uint64_t xg_calls_py_md(int f)
{
	return (uint64_t)H_COUNT + 1 + (uint64_t)f;
}

static uint64_t xg_calls_rt_md(int s)
{
	return (uint64_t)H_COUNT + 1 + XG_PY_NAMES + (uint64_t)s;
}

/* One Python tree in [s, s + len): frame l holds its leaves, then frame
 * l + 1, each a little inside its caller. */
static void xg_calls_py_tree(struct xg_space_ctx *c, int k, uint64_t i, uint64_t s, uint64_t len)
{
	const struct xg_plan *p = c->p;
	int depth = xg_calls_py_depth(p->cfg.kind == KIND_GPU);
	uint64_t t = s, end = s + len;
	for (int l = 0; l < depth; l++) {
		/* a frame ends before its caller; the leaves take 300-500 ns */
		xg_space_event(c, xg_calls_py_md(l < XG_PY_STACK ? l : XG_PY_STACK - 1), t,
			       end - t, NULL, 0);
		t += 100000;
		end -= 100000;
		for (int f = 0; f < xg_calls_py_leaves(l); f++) {
			uint64_t d = 300000 + xg_plan_hash(p, HD_CALLS, ((uint64_t)k << 32) | i,
							   (uint64_t)(l * 4 + f)) % 200000;
			xg_space_event(c, xg_calls_py_md(XG_PY_STACK + (l + f) % (XG_PY_NAMES - XG_PY_STACK)),
				       t, d, NULL, 0);
			t += d + 50000;
		}
	}
}

void xg_calls_py_unit(struct xg_space_ctx *c, uint64_t u)
{
	const struct xg_plan *p = c->p;
	int k;
	uint64_t i0, i1;
	xg_calls_unit_iters(p, u, &k, &i0, &i1);
	for (uint64_t i = i0; i < i1; i++)
		xg_calls_py_tree(c, k, i, xg_calls_iter_start(p, k, i) + 200000,
				 xg_calls_iter_len(p) * 3 / 4);
}

/* One runtime tree of device d in [s, s + len): execute, with its
 * argument parsing, input handling and enqueueing nested, and the flow
 * stats (_p/_pt from the caller's side, _c/_ct on the enqueue). */
static void xg_calls_rt_tree(struct xg_space_ctx *c, uint64_t flow, uint64_t s, uint64_t len)
{
	uint64_t q = len / 16, qid = flow % 3;
	struct xg_space_sv root[3] = { SV_U(S_FLOW_P, flow), SV_U(S_FLOW_PT, 1),
				       SV_U(S_QUEUE_ID, qid) };
	struct xg_space_sv one[1] = { SV_U(S_QUEUE_ID, qid) };
	struct xg_space_sv enq[3] = { SV_U(S_FLOW_C, flow), SV_U(S_FLOW_CT, 1),
				      SV_U(S_QUEUE_ID, qid) };
	xg_space_event(c, xg_calls_rt_md(RT_ROOT), s, 15 * q, root, 3);
	xg_space_event(c, xg_calls_rt_md(RT_PARSE), s + q / 2, q, one, 1);
	xg_space_event(c, xg_calls_rt_md(RT_INPUTS), s + 2 * q, 4 * q, one, 1);
	xg_space_event(c, xg_calls_rt_md(RT_DONATION), s + 2 * q + q / 2, q, one, 1);
	xg_space_event(c, xg_calls_rt_md(RT_SEM), s + 4 * q, q, NULL, 0);
	xg_space_event(c, xg_calls_rt_md(RT_ENQUEUE), s + 7 * q, 6 * q, enq, 3);
	xg_space_event(c, xg_calls_rt_md(RT_LOAD), s + 7 * q + q / 2, 2 * q, one, 1);
	xg_space_event(c, xg_calls_rt_md(RT_DMA), s + 10 * q, 2 * q, one, 1);
	xg_space_event(c, xg_calls_rt_md(RT_DCE), s + 10 * q + q / 2, q, NULL, 0);
	xg_space_event(c, xg_calls_rt_md(RT_USAGE), s + 13 * q + q / 2, q, one, 1);
}

void xg_calls_rt_unit(struct xg_space_ctx *c, int r, uint64_t u)
{
	const struct xg_plan *p = c->p;
	int k, R = xg_calls_rt_lines(p->cfg.kind == KIND_GPU);
	uint64_t i0, i1;
	if (u == 0)
		return;
	xg_calls_unit_iters(p, u, &k, &i0, &i1);
	/* the first of the unit's iterations that this line takes */
	for (uint64_t i = i0 + (uint64_t)((r - (int)(i0 % (uint64_t)R) + R) % R); i < i1;
	     i += (uint64_t)R) {
		uint64_t s = xg_calls_iter_start(p, k, i), w = xg_calls_iter_len(p) / (uint64_t)p->D;
		for (int d = 0; d < p->D; d++)
			xg_calls_rt_tree(c, ((uint64_t)(k + 1) << 32) + i * (uint64_t)p->D + (uint64_t)d,
					 s + (uint64_t)d * w + w / 8, w * 3 / 4);
	}
}
