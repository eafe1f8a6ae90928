/*
 * analysis_int: shared between the analysis files (analysis.c and the
 * an_*.c passes); not part of the model's API. The GPU stream pass's own
 * declarations are in an_stream.h.
 *
 * Per plane, analysis keeps a struct plane_ctx (plane->hook_data) with facts
 * derived once from the event metadata. Per line it keeps a struct line_part
 * (line->hook_data) with partial results written by exactly one worker
 * thread. The context owns every plane_ctx and line_part through `owned`, so
 * a load that fails half-way leaks nothing.
 */
#ifndef XT_ANALYSIS_INT_H
#define XT_ANALYSIS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "../util/hmap.h"
#include "../util/sort64.h"
#include "analysis.h"
#include "ev_sink.h"
#include "hlo.h"
#include "spans.h"
#include "stats.h"

enum plane_role {
	ROLE_NONE = 0,
	ROLE_DEVICE, /* a /device: plane (see xt_device_kind) */
	ROLE_HOST,   /* /host:CPU */
	ROLE_META,   /* /host:metadata */
};

enum line_role {
	LROLE_NONE = 0,
	LROLE_XLA_OPS,    /* "XLA Ops" on an XLA device */
	LROLE_STREAM,     /* a non-derived line of a GPU device */
	LROLE_STEPS,      /* "Steps" on a device */
	LROLE_HOST,       /* a thread line of /host:CPU */
	LROLE_ASYNC,      /* "Async XLA Ops" on an XLA device: start-to-done spans */
	LROLE_MODULES,    /* "XLA Modules" on an XLA device: program runs */
};

#define SMALL_KERNEL_PS 10000000ll /* 10 us: a small kernel (launch_bound) */

/* Activity class of an event metadata (for the step breakdown). */
enum ev_class {
	EVC_COMPUTE = 0,
	EVC_COLLECTIVE,
	EVC_H2D,
	EVC_D2H,
	EVC_D2D,
};

struct bytes_ref {
	const char *p;
	size_t n;
};

/* The stats that make a host event a step marker (docs/analyses.md). */
enum { MK_STEP = 1, MK_GROUP = 2, MK_ROOT = 4 };
struct marker_keys {
	int64_t step, group;
	unsigned has; /* MK_* bits */
};
/* Takes s into mk if it is a marker key mk does not have yet. */
void marker_keys_take(struct marker_keys *mk, const struct xt_stat *s);

/* Facts about one event metadata, from its name and its own stats. */
struct emeta_info {
	struct bytes_ref category;  /* hlo_category stat */
	struct bytes_ref module;    /* hlo_module stat */
	int64_t program_id;
	double flops, bytes;
	double hbm_bytes;           /* HBM part of memory_access_breakdown (has_hbm) */
	uint8_t has_program, has_flops, has_bytes, has_hbm;
	uint8_t mem;                /* 1 alloc, 2 dealloc */
	uint8_t compile;            /* host planes: a compilation (overview_is_compile) */
	uint8_t name_flags;         /* device planes: op_name_flags(name) */
	uint8_t blit;               /* device planes: a HIP blit copy kernel (an_copies.c) */
	uint8_t copy_cls;           /* host planes: the EVC_* a copy call moves, else 0 */
	uint8_t py_frame;           /* host planes: a Python tracer frame ("$file:line f") */
	struct marker_keys mk;      /* from a TraceMe-encoded name, then metadata stats */
};

/* Per host: the HLO programs of its /host:metadata plane (GPU hosts). */
struct host_ctx {
	const void *key;        /* the host's mapped source: identifies it during a load */
	struct hlo_set hlo;
};

struct plane_ctx {
	enum plane_role role;
	enum xt_device_kind kind;
	const char *host;       /* host label (trace arena) */
	struct host_ctx *hc;
	int has_marker_stats;   /* host plane defines step_num, or _r and group_id */
	int has_mem;            /* host plane defines MemoryAllocation or MemoryDeallocation */
	int sink_markers;       /* host plane: the sink finds its step markers */
	int has_copy_calls;     /* host plane: some event metadata is a copy call */
	int no_event_queries;   /* the caller never asks an event's op (analysis_keep_none:
				 * a report), so line_part.cbn is not kept */
	struct emeta_info *info;/* [plane->nemeta] */
	/* Device planes: 1 where the metadata is a memset, no kernel
	 * (xt_name_memset); NULL when none is. A byte each, apart from info:
	 * the kernel counts read it per event. */
	uint8_t *memset_meta;
	/* Device planes: the time its program runs span (their union), idle
	 * within them included; -1 without runs (steps_merge). */
	int64_t run_ps;
};

/* Whether metadata mi of device plane p is a memset (plane_ctx.memset_meta). */
static inline int plane_memset(const struct xt_plane *p, uint32_t mi)
{
	const uint8_t *m = ((const struct plane_ctx *)p->hook_data)->memset_meta;

	return m && m[mi];
}

struct op_acc {
	struct bytes_ref name, category, module;
	struct bytes_ref parent;   /* the command buffer of a kernel-name attribution */
	int64_t program_id;
	uint8_t has_program;
	uint8_t cls;            /* enum ev_class of the op (XLA lines) */
	uint8_t attr;           /* enum xt_op_attr */
	uint8_t async;          /* 1 async start, 2 async done (XLA lines) */
	uint8_t host_mem;       /* its HLO names host memory (XLA lines; xt_op_row) */
	uint8_t cost_src;       /* XT_COST_* */
	uint8_t name_flags, cat_flags; /* op_name_flags() of name and category */
	uint64_t occurrences;
	uint64_t n_flops, n_bytes, n_hbm; /* occurrences that had each */
	int64_t self_ps, total_ps;
	double flops, bytes, hbm_bytes;
	/* The HLO instruction's cost (GPU), per occurrence; < 0 unknown. */
	double hlo_flops, hlo_bytes;
	uint64_t shape_sig;     /* GPU: its instruction's (hlo_inst.shape_sig); 0 unknown */
	uint8_t in_entry;       /* GPU: its instruction is in the entry computation */
	uint8_t once;           /* GPU: and the HLO says so (in_entry is also 1 for an
				 * instruction not found): it runs once a run */
	uint8_t in_cb;          /* GPU: its kernels ran inside a command buffer */
	uint8_t key_has;        /* GPU: the program id is part of its key */
	/* GPU: a command buffer's kernels, resolved by their order in runs
	 * of this module's launch sequence cb_comp (an_cmdbuf.c); else NULL */
	const struct hlo_module *cb_mod;
	uint32_t cb_comp;
};

/* A kernel launched for an op of one line (GPU). */
struct op_kernel {
	uint32_t slot;          /* op index in the line's ops */
	uint32_t meta;          /* kernel event metadata index */
	uint64_t occurrences;
	int64_t total_ps;
};

/* A run of one XLA program on a device (docs/analyses.md, "Steps"). */
struct mod_run {
	struct bytes_ref module;
	int64_t program_id;
	int64_t start_ps, end_ps;
	uint32_t first_slot;    /* GPU: the op that opened the run */
	uint32_t first_meta;    /* GPU: the kernel that opened it */
	uint8_t seen_other;     /* GPU: another op ran since */
	uint8_t entry;          /* GPU: one of its ops is in the entry computation */
	uint8_t split;          /* GPU: opened by its first kernel coming again, no
				 * other op between (steps_join_splits) */
};

/* Start-to-done spans of one async op on one device (Async XLA Ops). */
struct async_acc {
	uint64_t count;
	int64_t total_ps;
};

struct marker {
	int64_t id;
	int64_t start_ps, end_ps;
	size_t ev;              /* index on its line */
};

/* Whether event i is one of the markers m[0..n) (in event order), asked
 * for events in order: *at is where the last question left off. */
static inline int marker_at(const struct marker *m, size_t n, size_t *at, size_t i)
{
	while (*at < n && m[*at].ev < i)
		(*at)++;
	return *at < n && m[*at].ev == i;
}

/* One memory event, as little as the merge needs of every one (a big host
 * line has millions); the rest (reserved and available bytes, op, shape)
 * is decoded again from the event for the few that need it. */
struct mem_rec {
	int64_t time_ps;
	int64_t use;            /* bytes_reserved + bytes_allocated */
	int64_t addr, bytes;
	uint32_t ev;            /* index on its line */
	uint32_t key;           /* index into the line's mem_keys | MEM_ALLOC | MEM_ADDR */
};
#define MEM_ALLOC 0x80000000u   /* an allocation (else a deallocation) */
#define MEM_ADDR 0x40000000u    /* addr is set */
#define MEM_KEY_MASK 0x3fffffffu

/* An allocator as a line names it: allocator_name, else the device
 * index as text. */
struct mem_key {
	struct bytes_ref name;  /* allocator_name (p NULL: the key is idx) */
	char idx[24];           /* the index as text, "" when none */
	int64_t lifetime_peak;  /* max peak_bytes_in_use in its part (>= 0) */
	size_t n;               /* its part's records of it */
};

/* Memory records of a stretch of one line, in its order, and the
 * allocators they name (their keys index this part's keys). */
struct mem_part {
	const struct xt_host *h;
	const struct xt_plane *p;
	struct mem_rec *rec;
	size_t nrec, caprec;
	struct mem_key *keys;
	size_t nkeys;
};

struct kern_acc {
	struct bytes_ref name, op;
	/* The op's program, as its op row names it (ops_program): ops of one
	 * name in several programs are several rows. */
	struct bytes_ref module;
	int64_t program_id;
	uint8_t has_program;
	uint8_t key_has;        /* its op's (op_acc.key_has) */
	uint32_t meta;          /* the kernel's metadata index on its plane */
	uint32_t grid[3], block[3];
	int64_t regs, shared;
	double occ;
	uint8_t bad;            /* XT_KD_BAD_* */
	uint64_t occurrences;
	int64_t total_ps, min_ps, max_ps;
};

#define KD_WAYS 4 /* texts remembered per kernel: launch shapes in turn */
struct kd_cache {
	const char *p;          /* the text parsed (NULL: none yet) */
	size_t n;
	uint32_t grid[3], block[3];
	int64_t regs, shared;
	double occ;
	unsigned bad;           /* XT_KD_BAD_* */
	uint32_t gen;           /* which parse of the line's (kern_memo) */
};

/* A launch's kernel row by where its op's name is (the op row's, fixed
 * for the line) and its kd_cache parse: a kernel may serve dozens of ops
 * in turn (TF's Eigen kernels), each a long key to hash. */
struct kern_memo {
	uint32_t gen;           /* the kd_cache parse it belongs to; 0: empty */
	uint32_t row;           /* kerns index */
	uint32_t slot;          /* the op's index in the line's ops */
};

struct line_part {
	enum line_role role;
	/* ops */
	struct hmap op_index;   /* key -> index into ops */
	struct op_acc *ops;
	size_t nops, capops;
	uint32_t *slot_of_meta; /* XLA: cached op index per metadata (+1; 0 = none) */
	uint8_t *cls;           /* per event: enum ev_class (op lines) */
	struct xt_known_stats **meta_ks; /* stream lines: metadata stats, lazily */
	size_t nmeta_ks;
	struct kd_cache *kd;    /* kernels: parsed kernel_details, KD_WAYS per metadata */
	struct kern_memo *kmemo; /* open addressing, kmemo_mask + 1 slots, made with kd */
	size_t kmemo_mask, kmemo_n;
	uint32_t kd_gen;        /* kd_cache parses so far */
	uint64_t op_events;
	uint64_t small_kernels_cb; /* GPU: small kernels in command buffers (stream_account) */
	int64_t self_sum_ps;    /* XLA: sum of self times (device busy) */
	/* steps */
	struct marker *markers;
	size_t nmarkers, capmarkers;
	/* host work (LROLE_HOST, packed: millions of spans on a busy host)
	 * and compilations (host lines), each the sorted disjoint union of
	 * the line's events (overview_line_host) */
	struct span_pack work;
	struct span *comp;
	size_t ncomp;
	uint64_t compiles;          /* compilations not inside another of the line */
	/* device busy (LROLE_STREAM): the union of the line's events that
	 * last, packed, and the kernels among them (overview_line_device);
	 * dev_first, dev_last: the first start and latest end of any event
	 * not aggregated, INT64_MAX / INT64_MIN when none */
	struct span_pack busy;
	int64_t dev_first, dev_last;
	uint64_t kernels, small_kernels;
	int64_t small_kernel_ps;
	/* command buffer kernels named by their place in the run: event
	 * index -> the instruction's name (a const char * of the module), in
	 * event order (cb_flush) */
	struct sort_kv *cbn;
	size_t ncbn, capcbn;
	/* memory: the line's records in parts (what the sink read from each
	 * decoded range, or each half of the line), in the line's order */
	struct mem_part **mem;
	size_t nmem;
	/* kernels */
	struct hmap kern_index;
	struct kern_acc *kerns;
	size_t nkerns, capkerns;
	/* kernels per op (stream lines) */
	struct hmap kern_op_index; /* (slot, metadata index) -> index into opk */
	struct op_kernel *opk;
	size_t nopk, capopk;
	/* async spans by (program id, instruction name) (LROLE_ASYNC) */
	struct hmap async_index;
	struct async_acc *async;
	size_t nasync;
	/* program runs: on XLA Modules lines one per event (LROLE_MODULES);
	 * on GPU stream lines the stretches of consecutive kernels of one
	 * program (for steps inferred from repeated runs) */
	struct mod_run *runs;
	size_t nruns, capruns;
	/* copies (an_copies.c): a host line's copy calls; a stream line's
	 * blit copies, until copies_resolve() */
	struct sort_kv *calls;  /* k: correlation id, v: EVC_* */
	size_t ncalls, capcalls;
	struct copy_pend *pend;
	size_t npend, cappend;
	struct acct_stats *pend_as;
	size_t npend_as, cappend_as;
};

/* A compilation on a host line, its times offsets from the line's start
 * until a line takes it. */
struct comp_ev {
	int64_t s, e;
	size_t ev;
};

/*
 * What the sink (an_sink.c) reads of a decoded range of a line while it is
 * decoded: of a host line its memory events, its step markers and its
 * compilations, in file order, times as offsets from the line's start; of
 * a GPU plane's line its kernel launches' keys (kern). The line's hook
 * takes them (memory_line, steps_take_markers, overview_take_comp,
 * ops_line_stream).
 */
struct host_part {
	const struct xt_host *h;
	const struct xt_plane *p;
	struct mem_part *mem;
	struct marker *markers;
	size_t nmarkers, capmarkers;
	struct comp_ev *comp;
	size_t ncomp, capcomp;
	struct kern_part *kern; /* a GPU plane's line: its launches' keys */
	/* A host line that keeps no events (XT_KEEP_NONE_RANGES): its
	 * range's work, as overview_line_host makes it of the whole line
	 * (times offsets from the line's start), and the next of its markers
	 * to leave out. */
	struct span_pack work;
	size_t work_mk;
	struct sort_kv *calls;  /* its copy calls (an_copies.c) */
	size_t ncalls, capcalls;
};
/* What a plane's sink_meta marks of an event metadata: on a host plane
 * memory events, step markers and compilations, on a GPU plane every
 * kernel launch. */
enum { SINK_MEM = 1, SINK_MARKER = 2, SINK_COMPILE = 4, SINK_KERNEL = 8, SINK_COPY = 16 };
extern const struct xt_sink analysis_sink;

struct analysis_ctx {
	pthread_mutex_t lock;   /* guards `owned` */
	struct host_ctx **hosts; /* one per host seen by the plane hook */
	size_t nhosts;
	void **owned;           /* plain allocations (plane_ctx, info tables) */
	size_t nowned, capowned;
	struct line_part **parts;
	size_t nparts, capparts;
	int loading;            /* hooks run inside xplane_load (reader watch flags valid) */
	int keep_none;          /* analysis_keep_none(): nothing asks about single events */
};

void *actx_own(struct analysis_ctx *c, void *p);
struct line_part *line_part_new(struct analysis_ctx *c, enum line_role role);
/* A part owned by its caller (not the context's): freed with line_part_free. */
struct line_part *line_part_alone(enum line_role role);
void line_part_free(struct line_part *lp);

/* GPU busy time (a union over streams) is the costly part of the device
 * rows: it is computed for all GPU planes up front, a job per plane beside
 * the host activity's (analysis_finish), and devices_build() then takes the
 * results in order. */
struct gpu_busy {
	const struct xt_plane *p;
	int64_t busy, first, last;
};

struct gpu_busy_set {
	struct gpu_busy *jobs;
	size_t n;
};

/* an_devices.c */
/* The GPU planes of t, a job each; returns how many. */
size_t gpu_busy_plan(struct gpu_busy_set *gs, struct xt_trace *t);
/* Job i (any two at once). */
void gpu_busy_run(struct gpu_busy_set *gs, size_t i);
void gpu_busy_free(struct gpu_busy_set *gs);
/* A GPU plane's stream lines' busy lists (overview_line_device), n of
 * them, in an array the caller frees; *first and *last (when not NULL)
 * widened by those lines' first start and latest end. */
const struct span_pack **gpu_busy_lists(const struct xt_plane *p, size_t *n, int64_t *first,
					int64_t *last);
void devices_build(struct xt_analysis *a, struct xt_trace *t, const struct gpu_busy_set *gs);
/* an_attr.c: GPU op attribution and the hosts' HLO programs */
struct host_ctx *host_ctx_for(struct analysis_ctx *c, const struct xt_host *h);
struct gpu_attr {
	struct bytes_ref name, category, module, parent;
	int64_t program_id;
	int has_program;      /* name the row by the program id (else by module) */
	int has_program_key;  /* the event had a program id (part of the op's key) */
	enum xt_op_attr attr;
	const struct hlo_inst *inst; /* the HLO instruction, when resolved */
	int in_entry;                /* inst runs once per program run, not in a loop (1 when
				      * unknown) */
	/* A command buffer's kernel whose module has a launch sequence for
	 * cb_comp: its run can be resolved by order (an_cmdbuf.c). */
	const struct hlo_module *cb_mod;
	uint32_t cb_comp;
	uint8_t in_cb;               /* it ran inside a command buffer (its hlo_op is one) */
};
/* Decides the op of a GPU event from its stats ks (event, then metadata)
 * and its kernel name (docs/analyses.md, "Op profile"); line_flags is
 * op_line_flags() of the line's name, worked out once per line. */
void attr_gpu(struct gpu_attr *ga, const struct hlo_set *hlo, const struct xt_plane *p,
	      unsigned line_flags, const struct xt_event *ev, const struct xt_known_stats *ks);
/* The last element of a "::"-separated annotation stack (an hlo_op). */
struct bytes_ref attr_last_scope(struct bytes_ref r);
/* The kernel name of metadata m (without ROCm's ".kd"). */
struct bytes_ref attr_kernel_name(const struct xt_event_meta *m);
/* The op category of an HLO instruction (fusion kind, gemm, ...). */
struct bytes_ref attr_hlo_category(const struct hlo_inst *in);
/* One GPU line's command buffer kernels named by their place in the run
 * (line_part.cbn, kept by the analysis). */
struct cb_names {
	const struct xt_line *l;
	struct sort_kv *v;
	size_t n;
};
/* an_stream.c: the lines' cbn lists into a->cb_names (after the stream
 * passes), and their release. */
void stream_keep_names(struct xt_analysis *a, struct xt_trace *t);
void stream_names_free(struct xt_analysis *a);
/* an_cmdbuf.c: the kernels of one command buffer run, kn[0..n) in start
 * order, matched with the launch sequence of computation comp of m: out[i]
 * gets kernel i's instruction index (UINT32_MAX: keep the name rule) and
 * by_order[i] 1 when that differs from what its name alone says. */
void cmdbuf_resolve(const struct hlo_module *m, uint32_t comp, const struct bytes_ref *kn,
		    size_t n, uint32_t *out, uint8_t *by_order);
/* HBM bytes of a serialized MemoryAccessBreakdown; -1 when it has no entry. */
double attr_hbm_bytes(const uint8_t *b, size_t n);

/* an_rates.c: device peaks and op rates */
void device_peaks(struct xt_device_row *d, const struct xt_host *h, const struct xt_plane *p,
		  struct arena *arena);
/* What an op's rates are computed from, summed over the lines it ran on. */
struct rate_acc {
	int64_t ps;              /* the time rates are measured over */
	uint64_t occ;            /* the occurrences that time is of */
	double flops, bytes, hbm;
	uint8_t flops_unknown, bytes_unknown, unmeasured;
	double fpeak;            /* Σ ps x peak FLOP/s over lines with a known peak */
	int64_t fpeak_ps;        /* the ps of those lines */
	double bpeak;            /* likewise for HBM bandwidth */
	int64_t bpeak_ps;
};
/* Adds one line's accumulator o, run on device d, to ra; async is the
 * line's Async XLA Ops part (NULL when none). */
void rate_add(struct rate_acc *ra, const struct op_acc *o, const struct xt_device_row *d,
	      const struct line_part *async);
/* Fills r's rates from ra; some_counts: some of its occurrences had FLOPs
 * or bytes (not all: the rates are then absent). */
void op_rates(struct xt_op_row *r, const struct rate_acc *ra, int some_counts);

/* an_ops.c */
/* The op accumulator of one line for a key: name, category, module, and
 * the program id (part of the key when key_has, even where the row is
 * named by module). Returns its index in lp->ops. */
uint32_t op_slot_keyed(struct line_part *lp, struct bytes_ref name, struct bytes_ref cat,
		       struct bytes_ref module, int has_prog, int64_t prog, int key_has,
		       int64_t key_prog);
void ops_line_async(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		    const struct xt_line *l);
void ops_line_xla(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		  const struct xt_line *l);
void ops_merge(struct xt_analysis *a, struct xt_trace *t);
/* an_stream.c: the op profile of a stream line, in two pieces at once
 * when it is long (an_streamjoin.c joins them; the pass's own
 * declarations are in an_stream.h) */
void ops_line_stream(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l, const struct xt_sunk *sunk);
extern size_t stream_split_min;    /* events from which a line is cut in two */
extern unsigned stream_cut_percent; /* where the cut is looked for (the tests move it) */
/* What stream_account() needs of an event's stats, converted once: a
 * command buffer's kernels are held in a run with theirs, so it is kept
 * small. */
struct acct_stats {
	uint64_t have; /* XS_GROUP_ID, XS_FLOPS, XS_BYTES_ACCESSED, XS_KERNEL_DETAILS bits */
	int64_t group;
	double flops, bytes;
	struct bytes_ref kd; /* the kernel_details text */
};
/* an_steps.c */
void steps_line_markers(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
			const struct xt_line *l);
void steps_line_modules(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
			const struct xt_line *l);
void steps_run_add(struct line_part *lp, struct bytes_ref module, int64_t program, uint32_t slot,
		   uint32_t meta, int restarts, int64_t s, int64_t e);
/* 1 when the line's current run is of (module, program) and another op
 * than `slot` opened it: an op of the entry computation runs once a run. */
int steps_run_within(const struct line_part *lp, struct bytes_ref module, int64_t program,
		     uint32_t slot);
struct host_act; /* an_overview.c, below */
void steps_merge(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha);
/* A host event the sink hands over that may be a step marker (its
 * metadata's keys say so, or it carries a watched stat), into hp. */
void steps_marker_event(struct host_part *hp, const struct xt_sink_ev *e);
/* The markers of the sink's parts become the line's. */
void steps_take_markers(struct line_part *lp, const struct xt_line *l, struct xt_sunk *sunk);
/* an_breakdown.c: fills every step's cat_ps and idle_ps; ha from
 * host_acts_done (its hosts' work is host compute). */
void steps_breakdown(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha);
/* an_memory.c */
/* Everything a memory event says (decoded in full only where needed). */
struct mem_full {
	struct bytes_ref allocator; /* p NULL: the key is idx_buf */
	char idx_buf[24];
	int64_t reserved, allocated, available, peak_in_use;
	int64_t addr, bytes;
	struct bytes_ref op, shape;
	uint8_t has_addr;
};
/* Decodes memory event ev of line l in full; returns 0 when it names no
 * allocator (nothing to attribute it to). */
int memory_decode(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		  const struct xt_event *ev, struct mem_full *r);
/* The same for event i of l, which may have kept no events. */
int memory_decode_at(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		     size_t i, struct mem_full *r);
/* The allocator a key names: its name, else the index as text. */
struct bytes_ref memory_key_bytes(const struct mem_key *k);
/* A host line's memory events into lp: from the parts memory_sink filled
 * while the line was decoded (sunk), else read from the line. */
void memory_line(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		 const struct xt_line *l, struct xt_sunk *sunk);
struct mem_part *memory_part_new(const struct xt_host *h, const struct xt_plane *p);
void memory_part_free(struct mem_part *mp);
/* A memory event the sink hands over, into mp (its time an offset). */
void memory_event(struct mem_part *mp, const struct xt_sink_ev *e);
void memory_merge(struct xt_analysis *a, struct xt_trace *t);
void memory_free(struct line_part *lp);
/* Lines of this many events or more have their memory events read in two
 * halves at once (a variable so that tests can lower it). */
extern size_t memory_split_events;
/* an_copies.c: HIP's blit copies, named and classed by the host call of
 * the same correlation id, once every line is analysed. */
struct copy_pend {
	size_t i;               /* the blit kernel's event in the line */
	int64_t corr;           /* its correlation id (never INT64_MIN: none) */
	uint32_t slot;          /* the op it was counted under (held: its kernel's) */
	uint32_t held;          /* named no op, counted once its direction is known:
				 * its accounting stats' index in pend_as + 1; else 0 */
};
int copy_is_blit(const char *kernel_name);
/* Whether a blit copy attributed so names no op (no stat names one, nor its
 * program): held, and named by its direction. */
int copy_names_no_op(enum xt_op_attr attr, size_t module_n, int program_key);
/* The correlation id of a GPU or host event, from its own stats (a launch
 * has its own; one on its metadata is not read): INT64_MIN when none. */
int64_t copy_event_corr(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
			const struct xt_event *ev);
/* The EVC_* a HIP copy call moves, by its name; 0 when not one or unsaid. */
unsigned copy_call_class(const char *name);
void copies_sink_event(struct host_part *hp, const struct xt_sink_ev *e);
/* A host line's copy calls into lp: from the sink's parts, else the line. */
void copies_line_host(struct line_part *lp, const struct xt_host *h, const struct xt_plane *p,
		      const struct xt_line *l, const struct xt_sunk *sunk);
/* A blit kernel of the stream pass, held (as: its accounting stats) or not
 * (as NULL); copies_pend_slot() says the op it was then counted under. */
void copies_pend_add(struct line_part *lp, size_t i, int64_t corr, uint32_t slot,
		     const struct acct_stats *as);
void copies_pend_slot(struct line_part *lp, size_t i, uint32_t slot);
/* Settles every held blit copy of t, before anything reads the line
 * parts; a keeps each host's copy calls (a->nhlo set). */
void copies_resolve(struct xt_analysis *a, struct xt_trace *t);
void copies_free(struct xt_analysis *a);
/* The EVC_* of host's copy call corr (0: none known), and its op name. */
unsigned copies_class(const struct xt_analysis *a, size_t host, int64_t corr);
struct bytes_ref copies_op_name(unsigned cls);
/* an_stream.c: counts each held event lp->pend[k] of a stream line for op
 * slots[k] (UINT32_MAX: not held), as the pass counts a kernel that names
 * no op. */
void stream_account_held(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
			 const uint32_t *slots);
/* an_kernels.c (kernel_details parsing also used by tests) */
/* Adds the kernel rows of src (another piece of the same line) to lp's. */
void kernels_join(struct line_part *lp, const struct line_part *src);
void kernels_event(struct line_part *lp, const struct xt_plane *p, const struct xt_event *ev,
		   int64_t dur, uint32_t slot, struct bytes_ref details);
void kernels_merge(struct xt_analysis *a, struct xt_trace *t);
/* an_opmerge.c: a host's program names by id (its /host:metadata names
 * "module(id)"), and an op's program as its op row names it: the name of
 * its id, else its module, else the id; "" when none. */
struct prog_names {
	struct hmap map;
	const struct xt_plane *meta;
};
void prog_names_init(struct prog_names *pn, const struct xt_host *h);
void prog_names_fini(struct prog_names *pn);
/* The program of an op (has_program, program_id, module) as its op row
 * names it: prog_ref's name, or "name(id)" for a name in a->split_progs
 * when the op's program id is known (id_known: GPU ops named by their
 * module keep it in op_acc.key_has); in a->arena. */
const char *prog_name(struct xt_analysis *a, const struct prog_names *pn, int has_program,
		      int id_known, int64_t program_id, struct bytes_ref module);
/* The same into buf (n bytes); returns buf. */
char *prog_label(const struct xt_analysis *a, const struct prog_names *pn, int has_program,
		 int id_known, int64_t program_id, struct bytes_ref module, char *buf, size_t n);
/* Fills a->split_progs from the ops of every line (before ops_merge). */
void prog_split_find(struct xt_analysis *a, const struct xt_trace *t);
/* The same, not copied: into the metadata plane's name, module, or idbuf. */
struct bytes_ref prog_ref(const struct prog_names *pn, int has_program, int64_t program_id,
			  struct bytes_ref module, char idbuf[32]);
/* Returns the keys read; *bad gets XT_KD_BAD_* for the values dropped as
 * impossible (absent ones set none). */
int kernel_details_parse(const char *s, size_t n, uint32_t grid[3], uint32_t block[3],
			 int64_t *regs, int64_t *shared, double *occ, unsigned *bad);

/* an_overview.c: the overview's facts and findings (after the other merges) */
/* Per host: its activity, the union of its lines' work (the overview's
 * host-bound time, the step breakdown's host compute), and compilations. */
struct host_act {
	const struct xt_host *h;
	struct span *v;
	size_t n;
	int64_t compile_ps;
	uint64_t compiles;
};
/* One per host of t, from the lines' unions (after the load), built by
 * jobs of their own: host_acts_plan() says how many, host_acts_run() runs
 * one (any two at once), host_acts_done() joins them. */
struct host_acts_plan;
struct host_acts_plan *host_acts_plan(const struct xt_trace *t, size_t *njobs);
void host_acts_run(struct host_acts_plan *hp, size_t i);
struct host_act *host_acts_done(struct host_acts_plan *hp);
void host_acts_free(struct host_act *ha, size_t n);
/* Before overview_build; ha from host_acts_done. */
void overview_devices(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha);
void overview_build(struct xt_analysis *a);
/* While loading, after steps_line_markers: a host line's work and
 * compilation unions (read by overview_build and steps_breakdown). */
void overview_line_host(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l);
/* A stream line's busy union and kernel counts (after its ops pass, which
 * classes its events), on its decoding thread. */
void overview_line_device(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l);
/* The same for the Python tracer's line (compilations only), from the
 * compilations the sink found. */
void overview_take_comp(struct line_part *lp, const struct xt_line *l, struct xt_sunk *sunk);
/* A host line that kept no events: its work from what the sink made of
 * each range (host_part.work), as overview_line_host would of the line. */
void overview_take_work(struct line_part *lp, const struct xt_line *l, const struct xt_sunk *sunk);
int overview_is_compile(const char *s);

/* helpers (analysis.c) */
static inline struct bytes_ref bref(const char *p, size_t n)
{
	struct bytes_ref r = { p, n };
	return r;
}
/* a and b hold the same bytes. Empty refs may have no pointer (NULL),
 * which memcmp must not get even for 0 bytes. */
static inline int bref_eq(struct bytes_ref a, struct bytes_ref b)
{
	return a.n == b.n && (!a.n || a.p == b.p || !memcmp(a.p, b.p, a.n));
}
static inline struct bytes_ref bref_str(const char *s);
int bref_contains(struct bytes_ref r, const char *needle);
int bref_starts(struct bytes_ref r, const char *prefix);
const char *arena_bref(struct arena *a, struct bytes_ref r);
struct bytes_ref category_from_name(struct bytes_ref name);
/* enum ev_class of an op from its name, category, event-metadata name and
 * line name; *is_memcpy tells whether it is a copy (docs/analyses.md). */
int op_classify(struct bytes_ref op, struct bytes_ref cat, struct bytes_ref meta,
		struct bytes_ref line, int *is_memcpy);
/* The same in two halves, so that hot loops classify each name once: what
 * op_classify looks for in one name (OPF_* bits), and the class from the
 * bits of the four names. */
enum {
	OPF_COLL = 1,      /* contains a collective's name */
	OPF_NCCL = 2,      /* starts with nccl or rccl */
	OPF_SENDRECV = 4,  /* send, recv or their -done, once .N suffixes go */
	OPF_MEMCPY = 8,    /* contains Memcpy */
	OPF_COPY_NAME = 16,/* is CopyHostToDevice, CopyDeviceToHost, ... */
	OPF_H2D = 32,      /* contains MemcpyH2D or CopyHostToDevice */
	OPF_D2H = 64,      /* contains MemcpyD2H or CopyDeviceToHost */
};
unsigned op_name_flags(struct bytes_ref s);
/* op_name_flags() of a line's name, without the copy flags when the line
 * lists other kinds of work than copies ("Stream #14(MemcpyD2D,Compute)"). */
unsigned op_line_flags(struct bytes_ref s);
int op_classify_flags(unsigned op, unsigned cat, unsigned meta, unsigned line, int *is_memcpy);

static inline struct bytes_ref bref_str(const char *s)
{
	return bref(s, strlen(s));
}

#endif
