/*
 * xg_tpu.h - the TPU-like device planes of xtop-gen: the HLO ops of the
 * workload and the events of the "Steps", "XLA Modules" and "XLA Ops"
 * lines.
 */
#ifndef XTOP_GEN_XG_TPU_H
#define XTOP_GEN_XG_TPU_H

#include <stdint.h>

struct xg_plan;
struct xg_space_ctx;

/* ---- TPU ops. Per step: copy.1 fusion.2 convolution.3, M x while.4
 * {B x [fusion.10 convolution.11 call.12{fusion.20 reduce.21}
 * all-reduce.13 fusion.14]}, all-reduce.5 fusion.6 copy.7. The init module
 * runs broadcast.1 and copy.1 once before the first step. ---- */
enum {
	T_BCAST1, T_COPY1I, T_COPY1, T_FUSION2, T_CONV3, T_WHILE4, T_FUSION10,
	T_CONV11, T_CALL12, T_FUSION20, T_REDUCE21, T_AR13, T_FUSION14, T_AR5,
	T_FUSION6, T_COPY7, T_COUNT
};
struct xg_tpu_op {
	const char *text, *name, *category, *tf_op;	/* category NULL: none */
	int prog;
	int64_t flops, bytes;
	uint64_t base, jit;				/* leaf durations, ps */
};
#define TPU_ITER_EVENTS 7		/* events per while iteration on "XLA Ops" */

extern const struct xg_tpu_op xg_tpu_ops[T_COUNT];

/* "XLA Ops" unit u of device d: the init ops (u == 0), or one while loop
 * of a step with the step's prologue and epilogue ops around it. */
void xg_tpu_ops_unit(struct xg_space_ctx *c, int d, uint64_t u);
/* Event metadata id of the "XLA TraceMe" line's event (after the steps'). */
int64_t xg_tpu_traceme_md(const struct xg_plan *p);
/* "XLA TraceMe" unit u of device d: one event per step, on its first unit. */
void xg_tpu_traceme_unit(struct xg_space_ctx *c, int d, uint64_t u);
/* "Steps" or "XLA Modules" (kind L_TPU_STEPS / L_TPU_MODULES) unit u of
 * device d: a step or module marker on the first unit of each step. */
void xg_tpu_marker_unit(struct xg_space_ctx *c, int kind, int d, uint64_t u);

#endif
