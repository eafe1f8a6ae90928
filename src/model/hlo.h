/*
 * hlo: the XLA programs a profile carries (`/host:metadata`, one
 * XEventMetadata per program with the serialized xla.HloProto in a bytes
 * stat "Hlo Proto", "HLO Proto" in older files), decoded just enough to
 * attribute GPU kernels to HLO instructions and to estimate each
 * instruction's FLOPs and bytes (docs/analyses.md, "FLOPs and bytes").
 *
 * Field numbers are upstream's (xla/service/hlo.proto, xla/xla_data.proto);
 * the decoder is the same bounds-checked wire cursor as the XSpace reader,
 * so a malformed proto only makes that program unavailable.
 *
 * Ownership: an hlo_set owns its modules and every string in them;
 * hlo_set_free() releases all. A set is read-only once built, so worker
 * threads may share it (every cost is computed when the module is parsed).
 */
#ifndef XT_HLO_H
#define XT_HLO_H

#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "../util/hmap.h"

#define XT_HLO_MAX_RANK 16

/* xla.PrimitiveType values used by the cost model. */
enum hlo_type {
	HLO_PRED = 1,
	HLO_TUPLE = 13,
	HLO_OPAQUE = 14,
	HLO_TOKEN = 17,
	HLO_BUFFER = 34,
};

struct hlo_shape {
	int32_t type;      /* xla.PrimitiveType; HLO_TUPLE for tuples */
	uint32_t rank;     /* array dimensions kept (at most XT_HLO_MAX_RANK) */
	int64_t dims[XT_HLO_MAX_RANK];
	double elements;   /* array: product of dims (1 for scalars); tuple: 0 */
	double bytes;      /* array: its size; tuple: the sum over its leaves */
	uint32_t child0;   /* tuple elements: shapes[child0 .. child0 + nchild) */
	uint32_t nchild;
	int32_t elem_bits; /* bits per element (layout's element_size_in_bits, else the type's) */
};

struct hlo_window_dim {
	int64_t size, stride, pad_lo, pad_hi, window_dil, base_dil;
};

/* An int64 list inside the module's pool. */
struct hlo_ints {
	uint32_t at, n;
};

struct hlo_inst {
	const char *name;     /* module arena */
	const char *opcode;
	int64_t id;
	uint32_t shape;       /* index into module->shapes */
	uint32_t comp;        /* index of its computation */
	struct hlo_ints operands;  /* operand instruction ids */
	struct hlo_ints called;    /* called computation ids */
	struct hlo_ints lhs_contract, lhs_batch; /* dot */
	/* convolution */
	int64_t feature_group_count, batch_group_count;
	int64_t in_batch_dim, in_feature_dim, out_feature_dim;
	struct hlo_ints in_spatial, kernel_spatial, out_spatial;
	uint32_t win0, nwin;  /* window dims in module->win */
	const char *custom_call_target; /* "" when none */
	const char *backend_config;     /* raw bytes as text ("" when none) */
	size_t backend_config_len;
	const char *fusion_kind;
	const char *op_name;  /* OpMetadata.op_name (the framework op) */
	/* Cost, computed once (hlo_module_parse): flops < 0 when the model has
	 * no answer (an opaque custom call), bytes likewise. */
	double flops, bytes;
	uint8_t cost_done;
	/* A hash of its output shape (element types and dimensions), never 0:
	 * two GEMMs of equal work, [2,512,2048] and [2,2048,512], tell apart
	 * by it (compare.c). */
	uint64_t shape_sig;
	uint32_t seq_pos;     /* place in a launch sequence, UINT32_MAX if none */
	uint32_t seq_comp;    /* the computation of that sequence (an async op's wrapped
			       * instruction sits in its caller's) */
};

struct hlo_comp {
	const char *name;
	int64_t id, root_id;
	uint32_t first, n;    /* instructions [first, first + n) of module->inst */
	uint8_t in_loop;      /* called (at any depth) by a while loop */
	uint32_t seq_first, seq_n; /* its launch sequence: module->seq[seq_first ..] */
};

struct hlo_module {
	const char *name;
	uint64_t program_id;
	int64_t entry_id;
	struct hlo_inst *inst;
	size_t ninst, capinst;
	struct hlo_comp *comp;
	size_t ncomp, capcomp;
	struct hlo_shape *shapes;
	size_t nshapes, capshapes;
	int64_t *ints;
	size_t nints, capints;
	struct hlo_window_dim *win;
	size_t nwin, capwin;
	/* Launch sequences: per computation with a schedule, the instructions
	 * that do work on the device (HloScheduleProto order, without
	 * parameters, constants, tuples, bitcasts, async dones and the like;
	 * an async-start stands for the instruction it wraps), as indexes into
	 * inst. */
	uint32_t *seq;
	size_t nseq;
	struct hlo_raw_seq { int64_t comp_id; struct hlo_ints ids; } *raw_seq; /* while parsing */
	size_t nraw_seq, capraw_seq;
	struct hmap by_name;   /* instruction name -> index */
	struct hmap by_kernel; /* kernel-style name (see hlo_find_kernel) -> index */
	struct hmap by_cid;    /* (computation index, instruction id) -> index */
	struct hmap comp_by_id;/* computation id -> index */
	struct arena arena;
};

struct hlo_set {
	struct hlo_module **mods;
	size_t n;
	struct hmap by_program; /* program id -> index into mods */
	size_t failed;          /* protos that did not decode */
};

void hlo_set_init(struct hlo_set *s);
void hlo_set_free(struct hlo_set *s);

/*
 * Decodes one serialized xla.HloProto (or a bare HloModuleProto) for
 * program_id and adds it to s. Returns 0, or -1 when the bytes are not a
 * valid proto (the set is unchanged and s->failed counts it).
 */
int hlo_set_add(struct hlo_set *s, uint64_t program_id, const uint8_t *b, size_t n);

/* The module of program_id, or NULL. */
const struct hlo_module *hlo_set_find(const struct hlo_set *s, uint64_t program_id);
/* The only module called name (NULL when none or several). */
const struct hlo_module *hlo_set_find_name(const struct hlo_set *s, const char *name, size_t n);

/* The instruction called name (n bytes), or NULL. */
const struct hlo_inst *hlo_find(const struct hlo_module *m, const char *name, size_t n);
/*
 * The instruction a GPU kernel name stands for: XLA names a fusion's
 * kernel after the instruction with every character outside [A-Za-z0-9_]
 * replaced by '_' ("loop_add_fusion.1" -> "loop_add_fusion_1"); ROCm
 * appends ".kd". NULL when no instruction (or more than one) matches.
 */
const struct hlo_inst *hlo_find_kernel(const struct hlo_module *m, const char *kernel, size_t n);

/* The launch sequence of computation index comp (*n = 0 when the module
 * has no schedule for it). */
static inline const uint32_t *hlo_launch_seq(const struct hlo_module *m, uint32_t comp, size_t *n)
{
	*n = m->comp[comp].seq_n;
	return m->seq ? m->seq + m->comp[comp].seq_first : NULL;
}
/* The computation index of the module's entry, or UINT32_MAX. */
uint32_t hlo_entry_comp(const struct hlo_module *m);

/* 1 when inst runs a command buffer (a CUDA graph): its name or the
 * computation it calls is named command_buffer... */
int hlo_is_command_buffer(const struct hlo_module *m, const struct hlo_inst *inst);

/* 1 when inst runs inside a while loop (its computation is a loop's body or
 * condition, or called from one): it runs many times per program run. */
static inline int hlo_in_loop(const struct hlo_module *m, const struct hlo_inst *inst)
{
	return m->comp[inst->comp].in_loop;
}

/* The shape of inst. */
static inline const struct hlo_shape *hlo_shape_of(const struct hlo_module *m,
						   const struct hlo_inst *inst)
{
	return &m->shapes[inst->shape];
}

#endif
