/*
 * xg_calls.h - the call trees on xtop-gen's host threads, which make most
 * of a real profile's events (docs/performance.md, "Shape"): the Python
 * tracer's frames on the python line, nested as deep as a training loop's
 * stack, and the runtime's scopes (TraceMe) on its worker threads, with the
 * flow stats real runtimes attach.
 *
 * Each iteration of a step gets one Python tree and, per device, one
 * runtime tree, of fixed sizes (so the plan can count them), inside the
 * iteration's time window. None of them is a step marker, an allocation or
 * an op: they add to host compute only.
 */
#ifndef XTOP_GEN_XG_CALLS_H
#define XTOP_GEN_XG_CALLS_H

#include <stdint.h>

struct xg_plan;
struct xg_space_ctx;

#define XG_PY_NAMES 24          /* Python frame names */
#define XG_RT_NAMES 10          /* runtime scope names */
#define XG_RT_EVENTS 10         /* events of one runtime tree */
#define XG_RT_LINES_TPU 32      /* runtime worker threads */
#define XG_RT_LINES_GPU 4

extern const char *const xg_calls_py_names[XG_PY_NAMES];
extern const char *const xg_calls_rt_names[XG_RT_NAMES];

/* Events of one iteration's Python tree on a profile of this kind. */
uint64_t xg_calls_py_events(int gpu);
/* Runtime lines of a profile of this kind. */
int xg_calls_rt_lines(int gpu);
/* Iterations in [i0, i1) that runtime line r of R takes (i % R == r). */
uint64_t xg_calls_rt_iters(uint64_t i0, uint64_t i1, int r, int R);
/* The Python trees of the iterations of unit u (after the step's own
 * events on the first unit of a step). */
void xg_calls_py_unit(struct xg_space_ctx *c, uint64_t u);
/* The runtime trees of unit u on runtime line r. */
void xg_calls_rt_unit(struct xg_space_ctx *c, int r, uint64_t u);

#endif
