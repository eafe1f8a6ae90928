/*
 * xg_meta.h - plane metadata of xtop-gen: the stat names every plane
 * declares, the programs (jit modules) the workload runs, and the trailing
 * part of each XPlane (event_metadata, stat_metadata and plane stats).
 *
 * The metadata is small and depends only on the plan, so it is built whole
 * in a pb_buf; the streaming passes (xg_space.c) copy it out after the
 * plane's lines.
 */
#ifndef XTOP_GEN_XG_META_H
#define XTOP_GEN_XG_META_H

#include <stdint.h>

struct pb_buf;
struct xg_plan;
struct xg_plane;

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
	S_FLOW_P, S_FLOW_PT, S_FLOW_C, S_FLOW_CT, S_QUEUE_ID,
	S_COUNT
};

/* ---- programs (jit modules) ---- */
enum { PROG_TRAIN, PROG_INIT, PROG_COUNT };
extern const char *const xg_meta_prog_names[PROG_COUNT];
/* TPU ids are fingerprints (the train one >= 2^63, so its /host:metadata
 * key is negative); GPU ids are small unique ids, as on the real runtimes. */
extern const uint64_t xg_meta_prog_tpu_id[PROG_COUNT];
extern const uint64_t xg_meta_prog_gpu_id[PROG_COUNT];

/* Appends the metadata maps and plane stats of plane pl to out. */
void xg_meta_plane_tail(const struct xg_plan *p, const struct xg_plane *pl, struct pb_buf *out);

#endif
