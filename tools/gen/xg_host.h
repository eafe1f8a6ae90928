/*
 * xg_host.h - the host side of xtop-gen's profile: the /host:CPU event
 * names, the python and runtime-task lines, and the memory allocator
 * events with their running state.
 */
#ifndef XTOP_GEN_XG_HOST_H
#define XTOP_GEN_XG_HOST_H

#include <stdint.h>

struct xg_space_ctx;

#define MEM_BUFS 6			/* allocations per step per allocator */

/* /host:CPU event names (event metadata id = enum + 1) */
enum { H_TRAIN, H_PJIT, H_EXEC, H_PJIT_INIT, H_TPU_EXEC, H_LAUNCH, H_MEMCPY_H2D,
	H_MEMCPY_D2H, H_ALLOC, H_FREE, H_COUNT };

/* one live buffer of an allocator */
struct xg_host_buf {
	uint64_t addr, bytes;
	int buf;		/* index into the xg_host_mem_* tables */
};

/* per-allocator running state; part of the output, so kept in both passes */
struct xg_host_mem {
	uint64_t allocated, maxuse;
	int nlive;
	struct xg_host_buf live[MEM_BUFS + 2];
};

extern const char *const xg_host_names[H_COUNT];
extern const char *const xg_host_mem_tf_ops[MEM_BUFS];
extern const char *const xg_host_mem_shapes[MEM_BUFS];
extern const char *const xg_host_gpu_allocators[2];
extern const uint64_t xg_host_mem_base[2];	/* bytes live before the profile began */

/* One host event of name h (k >= 0: of step k, which it carries as
 * group_id; corr != 0: a correlation id). */
void xg_host_event(struct xg_space_ctx *c, int h, uint64_t start, uint64_t dur,
		   uint64_t corr, int k);
/* Unit u of a host line of kind L_HOST_PY, L_HOST_TASKS or L_HOST_MEM. */
void xg_host_unit(struct xg_space_ctx *c, int kind, uint64_t u);

#endif
