/*
 * analysis: XProf's derived views computed over a trace (docs/analyses.md):
 * op profile, device busy/idle, steps with their breakdown, memory peaks
 * per allocator and GPU kernel stats.
 *
 * The analyses read stats straight from the mapped source, so they can run
 * while a file loads: analysis_attach() installs hooks that see each line
 * as soon as it is decoded (bytes still hot, in the loader's worker
 * threads). analysis_run() does the same over an already-loaded trace.
 * Either way analysis_finish() merges the partial results into a
 * struct xt_analysis, which owns all its rows and strings (one
 * analysis_free() releases it) and no longer needs the trace.
 */
#ifndef XT_ANALYSIS_H
#define XT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "trace.h"
#include "xplane_reader.h"

enum xt_device_kind {
	XT_DEV_OTHER = 0, /* a /device: plane with neither XLA Ops nor GPU streams */
	XT_DEV_XLA,       /* has XLA Ops lines (TPU and others) */
	XT_DEV_GPU,       /* /device:GPU:N, kernels on stream lines */
};

struct xt_op_row {
	const char *name;
	const char *program;  /* "" when unknown */
	const char *category;
	uint64_t occurrences;
	int64_t self_ps;
	int64_t total_ps;
	double flops;          /* summed over occurrences; valid when has_flops */
	double bytes_accessed; /* likewise, has_bytes */
	uint8_t has_flops, has_bytes;
	double percent;        /* self / summed device busy time, in % */
};

struct xt_device_row {
	const char *host;
	const char *name;
	enum xt_device_kind kind;
	int64_t busy_ps;
	int64_t span_ps;
	int64_t first_ps;      /* start of the span, absolute ps */
	double idle_percent;   /* 0 when span is 0 */
	uint64_t op_events;    /* events that fed the op profile */
};

/* Step breakdown columns, in priority order (earlier wins an overlap). */
enum xt_step_cat {
	XT_CAT_DEVICE_COMPUTE,
	XT_CAT_DEVICE_TO_HOST,
	XT_CAT_COLLECTIVES,
	XT_CAT_HOST_TO_DEVICE,
	XT_CAT_HOST_COMPUTE,
	XT_CAT_COUNT
};
extern const char *const xt_step_cat_names[XT_CAT_COUNT]; /* JSON keys minus "_ps" */

struct xt_step_row {
	int64_t id;
	int64_t start_ps;
	int64_t duration_ps;
	int64_t cat_ps[XT_CAT_COUNT];
	int64_t idle_ps;
};

struct xt_live_alloc {
	int64_t bytes;
	const char *op;
	const char *shape;
	int64_t time_ps; /* when it was allocated */
};

struct xt_memory_row {
	const char *host;
	const char *allocator;
	int64_t peak_bytes;
	int64_t peak_time_ps;
	int64_t lifetime_peak_bytes;
	int64_t capacity_bytes;
	uint64_t events;
	struct xt_live_alloc *live; /* largest first, at most XT_LIVE_MAX */
	size_t nlive;
	/* In use over time: [i] = the most in use during the i-th of
	 * XT_MEM_SERIES equal slices of [first_ps, last_ps]; -1 = no event. */
	int64_t *series;
	int64_t first_ps, last_ps;
};
#define XT_LIVE_MAX 10
#define XT_MEM_SERIES 256

struct xt_kernel_row {
	const char *name;
	const char *op;
	uint32_t grid[3], block[3];
	int64_t registers;
	int64_t shared_bytes;
	double occupancy_percent;
	uint64_t occurrences;
	int64_t total_ps, min_ps, max_ps;
};

struct xt_analysis {
	struct xt_op_row *ops;        /* sorted by self time, descending */
	size_t nops;
	struct xt_device_row *devices;/* hosts, then planes, in file order */
	size_t ndevices;
	struct xt_step_row *steps;    /* by start */
	size_t nsteps;
	int steps_from_device;        /* 1: device Steps lines, 0: host markers */
	struct xt_memory_row *memory; /* by host, then allocator */
	size_t nmemory;
	struct xt_kernel_row *kernels;/* by total time, descending */
	size_t nkernels;
	int64_t busy_ps;              /* summed device busy time */
	struct arena arena;           /* strings of all rows */
};

struct analysis_ctx;

/*
 * The op-profile name of event ev (as xt_op_row.name): on GPU planes the
 * last element of its hlo_op, else its tf_op, else its name; elsewhere its
 * display name. Writes it into buf (size n) and returns buf. Can't fail.
 */
const char *analysis_op_name(const struct xt_host *h, const struct xt_plane *p,
			     const struct xt_line *l, const struct xt_event *ev, char *buf, size_t n);

/* A new context; pass it to analysis_attach() or analysis_run(). */
struct analysis_ctx *analysis_new(void);
/* Fills opts' hooks so that xplane_load() feeds ctx while loading. */
void analysis_attach(struct analysis_ctx *ctx, struct xplane_load_opts *opts);
/* Feeds every plane and line of an already-loaded trace to ctx. */
void analysis_run(struct analysis_ctx *ctx, struct xt_trace *t);
/* Merges what ctx saw into a new analysis and frees ctx. The trace must be
 * the one that was loaded or run. Never NULL; free with analysis_free(). */
struct xt_analysis *analysis_finish(struct analysis_ctx *ctx, struct xt_trace *t);
void analysis_free(struct xt_analysis *a);
/* Discards ctx without results (e.g. after a failed load). */
void analysis_abort(struct analysis_ctx *ctx, struct xt_trace *t);

#endif
