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
#include "hlo.h"
#include "trace.h"
#include "xplane_reader.h"

enum xt_device_kind {
	XT_DEV_OTHER = 0, /* a /device: plane with neither XLA Ops nor GPU streams */
	XT_DEV_XLA,       /* has XLA Ops lines (TPU and others) */
	XT_DEV_GPU,       /* /device:GPU:N, kernels on stream lines */
};

/* How an op row's name was found (docs/analyses.md, "Op profile"). */
enum xt_op_attr {
	XT_ATTR_XLA_OP = 0,          /* an XLA Ops line event (TPU and others) */
	XT_ATTR_HLO_OP,              /* GPU: the kernel's hlo_op, an instruction of its HLO */
	XT_ATTR_HLO_OP_UNCHECKED,    /* GPU: the kernel's hlo_op; the profile has no HLO */
	XT_ATTR_KERNEL_NAME,         /* GPU, in a command buffer: by kernel name, found in the HLO */
	XT_ATTR_KERNEL_NAME_UNCHECKED, /* likewise, with no HLO to check it against */
	XT_ATTR_KERNEL_ORDER,        /* GPU, in a command buffer: by the kernel's place in the run */
	XT_ATTR_UNRESOLVED,          /* GPU: hlo_op names no instruction; listed by kernel name */
	XT_ATTR_TF_OP,               /* a TensorFlow op (stat tf_op or "level 0") */
	XT_ATTR_EVENT_NAME,          /* no op stats: the kernel or copy name itself */
	XT_ATTR_COPY_CALL,           /* GPU: a HIP blit copy, by its host call's direction */
	XT_ATTR_COUNT
};
extern const char *const xt_op_attr_names[XT_ATTR_COUNT]; /* JSON values */

/* Which roof bounds an op. */
enum xt_bound { XT_BOUND_UNKNOWN = 0, XT_BOUND_COMPUTE, XT_BOUND_MEMORY };
extern const char *const xt_bound_names[3];

/* Where an op's FLOPs and bytes came from (bits). */
#define XT_COST_PROFILE 1u  /* the events' flops / bytes_accessed stats */
#define XT_COST_HLO 2u      /* xtop's cost model over the program's HLO */

/* A kernel launched for an op (GPU). */
struct xt_op_kernel {
	const char *name;
	uint64_t occurrences;
	int64_t total_ps;
};

/* Which way a host offload's copy moves (xt_op_row.host_copy). */
enum { XT_HOST_COPY_NONE = 0, XT_HOST_COPY_IN, XT_HOST_COPY_OUT };

struct xt_op_row {
	const char *name;
	const char *program;  /* "" when unknown */
	const char *category;
	uint64_t occurrences;
	int64_t self_ps;
	int64_t total_ps;
	double flops;          /* summed over occurrences; valid when has_flops */
	double bytes_accessed; /* likewise, has_bytes */
	double hbm_bytes;      /* bytes to/from HBM (TPU breakdown; else all bytes), has_bytes */
	uint8_t has_flops, has_bytes;
	uint8_t cost_src;      /* XT_COST_* bits of what was used */
	uint64_t shape_sig;    /* its HLO output shape's hash (GPU); 0 unknown or several */
	double percent;        /* self / all ops' summed self time, in % (they add up to 100) */
	uint8_t name_shared;   /* an op of another program has this name too */
	enum xt_op_attr attr;
	const char *parent;    /* the command buffer that ran it, else "" */
	struct xt_op_kernel *kernels; /* by total time, descending (owned) */
	size_t nkernels;
	/*
	 * Rates (docs/analyses.md, "FLOP rate, bandwidth and roofline"); NAN
	 * when absent, with rate_note saying why. rate_ps is the time they are
	 * measured over: total time, or for an async start its start-to-done
	 * spans.
	 */
	uint8_t async;         /* 0, 1: an async start, 2: an async done */
	uint8_t host_mem;      /* its HLO text names host memory (S(5): a TPU host offload):
				* its bytes cross the host link, so no HBM figures */
	uint8_t host_copy;     /* XT_HOST_COPY_*: a host offload's transfer, by its HLO;
				* the step breakdown files its time as one */
	int64_t rate_ps;
	uint64_t rate_occurrences; /* the occurrences rate_ps is of (0 without it) */
	double flops_per_s, bytes_per_s, hbm_bytes_per_s;
	double flops_utilization, hbm_bw_utilization; /* 0-1 of the device's peak */
	double intensity;      /* FLOPs per HBM byte */
	enum xt_bound bound_by;
	const char *rate_note; /* "" or why a rate is absent */
};

struct xt_device_row {
	const char *host;
	const char *name;
	enum xt_device_kind kind;
	int64_t busy_ps;
	int64_t span_ps;
	int64_t first_ps;      /* start of the span, absolute ps */
	double idle_percent;   /* NAN when span is 0 */
	uint64_t op_events;    /* events that fed the op profile */
	/* Peaks (docs/analyses.md, "Device peaks"); NAN when unknown. */
	double peak_flops;     /* FLOP/s */
	double peak_hbm_bw;    /* bytes/s */
	const char *peak_source; /* how peak_flops was found ("" unknown) */
	const char *peak_hbm_source; /* how peak_hbm_bw was found ("" unknown) */
	const char *model;     /* device_type_string / gpu_device_name, else "" */
	/* Overview facts (docs/analyses.md, "Overview"): XLA and GPU devices
	 * only (has_overview); kernels for GPU devices with events
	 * (has_kernels). Times absolute like first_ps. */
	uint8_t has_overview, has_kernels;
	/* Its host has activity in the profile: without any (a host tracer
	 * left off) the time it sat idle while the host worked is unknown. */
	uint8_t host_known;
	int64_t host_bound_ps;        /* idle while the host worked */
	int64_t longest_gap_ps, longest_gap_start_ps;
	uint64_t gaps_over_1ms;
	uint64_t kernels, small_kernels; /* under 10 us */
	uint64_t small_kernels_cb;       /* of the small ones, those in command buffers */
	int64_t small_kernel_ps;
	/* The time its programs' runs span (docs/analyses.md, "Steps": runs),
	 * idle within them included; -1 when it has none (kernels without
	 * an XLA module: TensorFlow's). */
	int64_t run_ps;
};

/* Whether d's idle-time facts (host_bound_ps, the gaps) mean anything: an
 * XLA or GPU device (has_overview) with a span for idle time to lie in.
 * Else they are shown as '-' and null, never 0. */
static inline int xt_device_has_gaps(const struct xt_device_row *d)
{
	return d->has_overview && d->span_ps > 0;
}

/* Whether d's host-bound time is known: gaps to lie in, and a host whose
 * activity the profile has ('-', null otherwise, not 0). */
static inline int xt_device_host_bound_known(const struct xt_device_row *d)
{
	return xt_device_has_gaps(d) && d->host_known;
}

/* Whether the profile has nothing of d: no op event, no span (a TPU's
 * Steps line gives one without ops). Its busy time and span are unknown
 * then ('-', null: it was idle, or not traced), not 0. */
static inline int xt_device_silent(const struct xt_device_row *d)
{
	return !d->op_events && !d->span_ps;
}

/* Why d's figures read '-', where some do: it has no events, or its
 * host-bound time has no host activity to rest on; NULL otherwise. */
static inline const char *xt_device_unknown_why(const struct xt_device_row *d)
{
	if (xt_device_silent(d))
		return "no events from it in the profile: idle, or not traced";
	if (xt_device_has_gaps(d) && !d->host_known)
		return "HOST-BND '-': no host activity in the profile";
	return NULL;
}

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
	/* The device whose marker or run the step is (its longest), by its
	 * host's and plane's index in the trace; -1 for host markers. The
	 * breakdown is of that device's work and its host's. */
	int32_t dev_host, dev_plane;
};

struct xt_live_alloc {
	int64_t bytes;
	const char *op;
	const char *shape;
	int64_t time_ps; /* when it was allocated, absolute ps */
};

struct xt_memory_row {
	const char *host;
	const char *allocator; /* the profile's key (allocator_name or device index) */
	const char *name;      /* readable: device and memory space ("TPU:0 HBM") */
	int64_t peak_bytes;    /* reserved + allocated at the peak */
	int64_t peak_time_ps;
	/* The peak split so that the parts add up to peak_bytes:
	 * Σ live[].bytes + live_other_bytes + unattributed_bytes. */
	int64_t reserved_bytes;     /* bytes_reserved at the peak (part of unattributed) */
	int64_t live_other_bytes;   /* live allocations beyond the listed ones */
	int64_t unattributed_bytes; /* in use with no allocation event in the profile */
	size_t nlive_total;         /* live allocations at the peak */
	int64_t lifetime_peak_bytes;      /* max(allocator's own lifetime peak, peak_bytes) */
	int64_t allocator_lifetime_peak;  /* peak_bytes_in_use as the allocator reports it */
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

/* Where steps come from. */
enum xt_steps_source {
	XT_STEPS_NONE = 0,
	XT_STEPS_DEVICE,   /* device Steps lines */
	XT_STEPS_HOST,     /* host step markers */
	XT_STEPS_INFERRED, /* repeated runs of one XLA module (no markers) */
};
extern const char *const xt_steps_source_names[4];

struct xt_kernel_row {
	const char *name;
	const char *op;
	const char *program;   /* the op's program (module), "" when unknown */
	uint8_t op_shared;     /* a row of another program has this op name: label
				* it "program/op" (one fusion name in eight jit_ modules) */
	uint32_t grid[3], block[3];
	int64_t registers;     /* -1 when absent or impossible */
	int64_t shared_bytes;  /* -1 when absent or impossible */
	double occupancy_percent; /* NAN when absent or impossible */
	/* XT_KD_BAD_*: which of the three the kernel_details of some launch
	 * gave as an impossible value (else an absent one was not given) */
	uint8_t details_bad;
	uint64_t occurrences;
	int64_t total_ps, min_ps, max_ps;
};

/* One number a finding rests on: a value, or a string when str is set. */
struct xt_finding_num {
	const char *key;
	const char *str;
	double value;
};
#define XT_FINDING_NUMS 8
struct xt_finding {
	const char *id;   /* launch_bound, idle_gaps, h2d_in_steps, d2h_in_steps, dominant_op,
			   * compilation, collectives */
	const char *text; /* one sentence, with the numbers */
	struct xt_finding_num num[XT_FINDING_NUMS];
	size_t nnum;
};

/* The overview (docs/analyses.md, "Overview"). */
struct xt_overview {
	int has_steps;
	double step_mean_ps;
	int64_t step_p50_ps, step_p95_ps, step_min_ps, step_max_ps;
	int64_t host_bound_ps;        /* the largest of the devices' */
	const char *host_bound_device, *host_bound_host; /* NULL when none */
	int64_t compile_ps;
	uint64_t compiles;
	int64_t collective_ps;
	double collective_percent;    /* of device busy; NAN when there is none */
	int64_t h2d_in_steps_ps;      /* 0 and meaningless without steps */
	double h2d_in_steps_percent;  /* of step time; NAN without steps */
	int64_t d2h_in_steps_ps;
	double d2h_in_steps_percent;  /* likewise */
	struct xt_finding *findings;  /* owned */
	size_t nfindings;
};

struct xt_analysis {
	struct xt_op_row *ops;        /* sorted by self time, descending */
	size_t nops;
	struct xt_device_row *devices;/* hosts, then planes, in file order */
	size_t ndevices;
	struct xt_step_row *steps;    /* by start */
	size_t nsteps;
	int steps_from_device;        /* 1: device Steps lines, 0: host markers */
	enum xt_steps_source steps_source;
	char steps_module[128];       /* inferred steps: the module whose runs they are */
	struct xt_memory_row *memory; /* by host, then allocator */
	size_t nmemory;
	struct xt_kernel_row *kernels;/* by total time, descending */
	size_t nkernels;
	int64_t busy_ps;              /* summed device busy time */
	int64_t ops_self_ps;          /* summed self time of all ops (their percent's total) */
	int64_t origin_ps;            /* the profile start (the trace's origin_ps) */
	size_t hlo_programs;          /* HLO programs read: a GPU host's only (a TPU's
	                               * ops carry their FLOPs and bytes), so 0 says
	                               * none was needed, not none in the profile */
	struct hlo_set *hlo;          /* per host (GPU hosts' programs; owned) */
	size_t nhlo;
	/* per host (nhlo of them): its HIP copy calls by correlation id, which
	 * name the blit copies that name no op (an_copies.c; owned) */
	struct copy_calls *copies;
	/* GPU lines whose command buffer kernels their place in the run
	 * named (an_cmdbuf.c), for analysis_op_name (an_stream.c; owned) */
	struct cb_names *cb_names;
	size_t ncb_names;
	struct xt_overview overview;
	/* Module names whose ops ran under several program ids (one module
	 * compiled for several shapes: the MI300X jit_matmul, five): each
	 * program is its own, "module(id)" as XProf names it, so that one op
	 * row's average and rates are of one program. Sorted; in arena. */
	const char **split_progs;
	size_t nsplit_progs;
	struct arena arena;           /* strings of all rows */
	/* Unique in the process, never 0: what a cache of this analysis's
	 * figures is keyed by. Its address is not: a later analysis (a
	 * reload, a capture) may be given the address of a freed one. */
	uint64_t serial;
};

struct analysis_ctx;

/*
 * The op-profile name of event ev on plane p of host number `host` of t (as
 * xt_op_row.name; docs/analyses.md, "Op profile"): on GPU planes the op its
 * stats and kernel name attribute it to; elsewhere its display name.
 * Writes it into buf (size n) and returns buf. Can't fail.
 */
const char *analysis_op_name(const struct xt_analysis *a, const struct xt_trace *t, size_t host,
			     const struct xt_plane *p, const struct xt_line *l,
			     const struct xt_event *ev, char *buf, size_t n);

/* The program of the op a device event ran for (a GPU kernel's, an XLA
 * Ops event's), as the op and kernel rows name it ("" when none); into
 * buf, returned. */
const char *analysis_op_program(const struct xt_analysis *a, const struct xt_trace *t,
				size_t host, const struct xt_plane *p, const struct xt_line *l,
				const struct xt_event *ev, char *buf, size_t n);

/* A kernel row's op as its label shows it: "program/op" when an op of
 * another program has its name (op_shared), else the op. Into buf (n
 * bytes); returns buf. */
const char *analysis_kernel_op(const struct xt_kernel_row *k, char *buf, size_t n);

/* A kernel_details figure given as an impossible value: registers above
 * 512 or negative, shared memory above 1 MiB or beside such registers,
 * occupancy outside (0, 100] (docs/analyses.md, "Kernel stats"). */
#define XT_KD_BAD_REGS 1u
#define XT_KD_BAD_SHARED 2u
#define XT_KD_BAD_OCC 4u
/* Not impossible but partial: shared memory given as one part alone (the
 * static part, TensorFlow's `shm`), so the block's total is unknown. */
#define XT_KD_PART_SHARED 8u
/* Why row k's absent figures are absent ("registers: impossible ..."),
 * into b; "" when it has them all. Returns b. */
char *analysis_kernel_note(const struct xt_kernel_row *k, char *b, size_t n);
/* The same for a kernel_details text as an event carries it (len bytes):
 * only its figures that are impossible, or a part of the whole ("" when
 * none is). For the details pane, beside the raw text. */
char *analysis_kernel_details_note(const char *s, size_t len, char *b, size_t n);

/* What the kernel tables (the report's, the viewer's) choose their
 * columns by, over the first n rows. */
struct xt_kernel_cols {
	/* Some row has the figure: a column no row fills would read '-' on
	 * every row (ROCm gives no registers or occupancy). */
	int regs, shared, occ;
	unsigned bad; /* XT_KD_BAD_* of some row */
	/* What tells rows of one kernel, op and program apart (they differ by
	 * their launch): grid, when some differ by their grid; block, when
	 * some with one grid differ by their block. A table that drops those
	 * columns first would show such rows alike. */
	int grid_apart, block_apart;
};
void analysis_kernel_cols(const struct xt_analysis *a, size_t n, struct xt_kernel_cols *kc);

/* The launch shape of GPU event ev (its kernel_details: grid, block,
 * registers, shared memory), as the kernel rows are keyed: 1 when it has
 * one (a kernel row's launch), else 0. Can't fail. */
int analysis_launch_shape(const struct xt_trace *t, size_t host, const struct xt_plane *p,
			  const struct xt_line *l, const struct xt_event *ev, uint32_t grid[3],
			  uint32_t block[3], int64_t *regs, int64_t *shared);

/* The nearest-rank percentile p (0-100] of the step durations (ps): the
 * shortest step with at least p % of the steps at or below it; 0 without
 * steps. Can't fail. */
int64_t analysis_step_percentile(const struct xt_analysis *a, double p);
/* Whether a's device busy time (busy_ps) is known: some device has
 * events. With none (a capture whose device tracer failed, a host-only
 * profile) it is '-' and null, not 0: the devices were idle, or not
 * traced. */
int analysis_has_device_time(const struct xt_analysis *a);
/* Whether a device event's name is a memset's ("Memset …": CUPTI's own
 * activity, not a kernel): the kernel counts leave it out, as the kernels'
 * table does, having no kernel_details for it. */
int xt_name_memset(const char *name);
/* Whether an hlo_op (n bytes) names a CUDA graph (command_buffer,
 * command_buffer.3, command_buffer_12): its kernels' own ops are the ones
 * the analysis attributes them to (analysis_op_name). */
int xt_name_command_buffer(const char *s, size_t n);
/* Whether the profile has host activity beside its devices (1 when it has
 * no XLA or GPU device): without any (the host tracer left off) the steps'
 * host time is unknown ('-', null) and their idle time holds it. */
int analysis_host_active(const struct xt_analysis *a);

/* A new context; pass it to analysis_attach() or analysis_run(). */
struct analysis_ctx *analysis_new(void);
/* Fills opts' hooks so that xplane_load() feeds ctx while loading. */
void analysis_attach(struct analysis_ctx *ctx, struct xplane_load_opts *opts);
/* After analysis_attach(), for a caller that reads the analyses and the
 * trace's hosts, planes and lines (counts, depths), never a host line's
 * events (a report): host thread lines then keep none (xt_line.kept_none),
 * so that loading does not make them resident. Such a trace cannot be
 * given to analysis_run(). */
void analysis_keep_none(struct analysis_ctx *ctx, struct xplane_load_opts *opts);
/* Feeds every plane and line of an already-loaded trace to ctx. */
void analysis_run(struct analysis_ctx *ctx, struct xt_trace *t);
/* Merges what ctx saw into a new analysis and frees ctx. The trace must be
 * the one that was loaded or run. Never NULL; free with analysis_free(). */
struct xt_analysis *analysis_finish(struct analysis_ctx *ctx, struct xt_trace *t);
void analysis_free(struct xt_analysis *a);
/* Discards ctx without results (e.g. after a failed load). */
void analysis_abort(struct analysis_ctx *ctx, struct xt_trace *t);

#endif
