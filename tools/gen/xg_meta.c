/*
 * xg_meta.c - plane metadata of xtop-gen: stat names, program identities,
 * and the event_metadata / stat_metadata maps and plane stats that close
 * every XPlane (see xg_meta.h).
 */
#include "xg_meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pbwrite.h"
#include "xg_calls.h"
#include "xg_gpu.h"
#include "xg_host.h"
#include "xg_plan.h"
#include "xg_tpu.h"

#define PROFILE_START_NS 1741722099081044120ull	/* Task Environment, ns */

/* stat names, indexed by enum xg_stat */
static const char *const xg_meta_stat_names[S_COUNT] = {
	"group_id", "step_num", "_r", "run_id", "device_offset_ps",
	"device_duration_ps", "hlo_category", "program_id", "flops",
	"bytes_accessed", "tf_op", "hlo_op", "hlo_module", "correlation_id",
	"kernel_details", "memcpy_details", "step_name", "device_vendor",
	"clock_rate", "core_count", "memory_bandwidth", "memory_size",
	"compute_cap_major", "compute_cap_minor", "peak_teraflops_per_second",
	"peak_hbm_bw_gigabytes_per_second", "allocator_name", "index_on_host",
	"bytes_reserved", "bytes_allocated", "bytes_available", "fragmentation",
	"peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr",
	"shape", "region_type", "data_type", "profile_start_time",
	"profile_stop_time", "_p", "_pt", "_c", "_ct", "queue_id"
};

const char *const xg_meta_prog_names[PROG_COUNT] = { "jit_train_step",
						     "jit_init_params" };
/* TPU ids are fingerprints (the train one >= 2^63, so its /host:metadata
 * key is negative); GPU ids are small unique ids, as on the real runtimes. */
const uint64_t xg_meta_prog_tpu_id[PROG_COUNT] = { 12190760917235803885ull,
						   2433868464432466958ull };
const uint64_t xg_meta_prog_gpu_id[PROG_COUNT] = { 7, 3 };

#define BIT(x) (1ull << (x))
/* the stats (enum xg_stat bits) whose names a plane of this kind declares */
static uint64_t xg_meta_stat_mask(int kind)
{
	switch (kind) {
	case P_TPU:
		return BIT(S_GROUP_ID) | BIT(S_RUN_ID) | BIT(S_DEV_OFFSET) |
		       BIT(S_DEV_DURATION) | BIT(S_HLO_CATEGORY) | BIT(S_PROGRAM_ID) |
		       BIT(S_FLOPS) | BIT(S_BYTES_ACCESSED) | BIT(S_TF_OP) |
		       BIT(S_PEAK_TFLOPS) | BIT(S_PEAK_HBM_BW);
	case P_GPU:
		return BIT(S_GROUP_ID) | BIT(S_PROGRAM_ID) | BIT(S_HLO_OP) |
		       BIT(S_HLO_MODULE) | BIT(S_CORRELATION_ID) | BIT(S_KERNEL_DETAILS) |
		       BIT(S_MEMCPY_DETAILS) | BIT(S_STEP_NAME) | BIT(S_DEVICE_VENDOR) |
		       BIT(S_CLOCK_RATE) | BIT(S_CORE_COUNT) | BIT(S_MEM_BW) |
		       BIT(S_MEM_SIZE) | BIT(S_CC_MAJOR) | BIT(S_CC_MINOR);
	case P_HOST:
		return BIT(S_GROUP_ID) | BIT(S_STEP_NUM) | BIT(S_ROOT) |
		       BIT(S_CORRELATION_ID) | BIT(S_TF_OP) | BIT(S_FLOW_P) | BIT(S_FLOW_PT) |
		       BIT(S_FLOW_C) | BIT(S_FLOW_CT) | BIT(S_QUEUE_ID) |
		       ((BIT(S_DATA_TYPE + 1) - 1) & ~(BIT(S_ALLOCATOR_NAME) - 1));
	case P_TASKENV: return BIT(S_PROFILE_START) | BIT(S_PROFILE_STOP);
	default: return 0;
	}
}

/* map<int64, XEventMetadata> entry; stats are already-encoded field-5 XStats */
static void xg_meta_md_entry(struct pb_buf *out, int64_t id, const char *name,
			     const char *display, const struct pb_buf *stats,
			     const int64_t *child, int nchild)
{
	struct pb_buf v = { 0 }, e = { 0 }, kids = { 0 };
	pb_buf_varint_field(&v, 1, (uint64_t)id);
	pb_buf_str_field(&v, 2, name);
	if (display)
		pb_buf_str_field(&v, 4, display);
	if (stats && stats->len) {
		memcpy(pb_buf_reserve(&v, stats->len), stats->data, stats->len);
		v.len += stats->len;
	}
	for (int i = 0; i < nchild; i++) {	/* repeated int64: packed in proto3 */
		uint8_t *q = pb_buf_reserve(&kids, 10);
		kids.len = (size_t)(pb_wvarint(q, (uint64_t)child[i]) - kids.data);
	}
	if (nchild)
		pb_buf_msg_field(&v, 6, &kids);
	pb_buf_varint_field(&e, 1, (uint64_t)id);
	pb_buf_msg_field(&e, 2, &v);
	pb_buf_msg_field(out, 4, &e);
	pb_buf_free(&v);
	pb_buf_free(&e);
	pb_buf_free(&kids);
}

/* map<int64, XStatMetadata> entry */
static void xg_meta_sm_entry(struct pb_buf *out, int64_t id, const char *name)
{
	struct pb_buf v = { 0 }, e = { 0 };
	pb_buf_varint_field(&v, 1, (uint64_t)id);
	pb_buf_str_field(&v, 2, name);
	pb_buf_varint_field(&e, 1, (uint64_t)id);
	pb_buf_msg_field(&e, 2, &v);
	pb_buf_msg_field(out, 5, &e);
	pb_buf_free(&v);
	pb_buf_free(&e);
}

void xg_meta_plane_tail(const struct xg_plan *p, const struct xg_plane *pl, struct pb_buf *out)
{
	static const int64_t wkids[] = { T_FUSION10 + 1, T_CONV11 + 1, T_CALL12 + 1,
					 T_AR13 + 1, T_FUSION14 + 1 };
	static const int64_t ckids[] = { T_FUSION20 + 1, T_REDUCE21 + 1 };
	struct pb_buf st = { 0 };
	char nm[64];
	int sb = pl->sbase, gpu = p->cfg.kind == KIND_GPU;
	if (pl->kind == P_TPU) {
		for (int o = 0; o < T_COUNT; o++) {
			const struct xg_tpu_op *t = &xg_tpu_ops[o];
			st.len = 0;
			if (t->category)
				pb_buf_stat(&st, 5, sb + S_HLO_CATEGORY + 1, PB_STAT_STR, 0, t->category);
			pb_buf_stat(&st, 5, sb + S_PROGRAM_ID + 1, PB_STAT_U64, xg_meta_prog_tpu_id[t->prog], NULL);
			if (t->flops)
				pb_buf_stat(&st, 5, sb + S_FLOPS + 1, PB_STAT_I64, (uint64_t)t->flops, NULL);
			if (t->bytes)
				pb_buf_stat(&st, 5, sb + S_BYTES_ACCESSED + 1, PB_STAT_I64, (uint64_t)t->bytes, NULL);
			pb_buf_stat(&st, 5, sb + S_TF_OP + 1, PB_STAT_STR, 0, t->tf_op);
			xg_meta_md_entry(out, o + 1, t->text, t->name, &st,
				 o == T_WHILE4 ? wkids : ckids, o == T_WHILE4 ? 5 : o == T_CALL12 ? 2 : 0);
		}
		for (int g = 0; g < PROG_COUNT; g++) {
			snprintf(nm, sizeof nm, "%s(%" PRIu64 ")", xg_meta_prog_names[g], xg_meta_prog_tpu_id[g]);
			xg_meta_md_entry(out, T_COUNT + 1 + g, nm, NULL, NULL, NULL, 0);
		}
	} else if (pl->kind == P_GPU) {
		for (int k = 0; k < K_COUNT; k++) {
			st.len = 0;
			if (xg_gpu_kernels[k].kd_mode == KD_META)
				pb_buf_stat(&st, 5, sb + S_KERNEL_DETAILS + 1, PB_STAT_STR, 0, p->kd[k]);
			xg_meta_md_entry(out, k + 1, xg_gpu_kernels[k].name, NULL, &st, NULL, 0);
		}
	} else if (pl->kind == P_META) {
		for (int g = 0; g < PROG_COUNT; g++) {
			uint64_t id = gpu ? xg_meta_prog_gpu_id[g] : xg_meta_prog_tpu_id[g];
			snprintf(nm, sizeof nm, "%s(%" PRIu64 ")", xg_meta_prog_names[g], id);
			xg_meta_md_entry(out, (int64_t)id, nm, NULL, NULL, NULL, 0);
		}
	} else if (pl->kind == P_HOST) {
		for (int h = 0; h < H_COUNT; h++)
			xg_meta_md_entry(out, h + 1, xg_host_names[h], NULL, NULL, NULL, 0);
		for (int f = 0; f < XG_PY_NAMES; f++)
			xg_meta_md_entry(out, H_COUNT + 1 + f, xg_calls_py_names[f], NULL, NULL, NULL, 0);
		for (int s = 0; s < XG_RT_NAMES; s++)
			xg_meta_md_entry(out, H_COUNT + 1 + XG_PY_NAMES + s, xg_calls_rt_names[s], NULL,
					 NULL, NULL, 0);
	}
	if (pl->kind == P_TPU || pl->kind == P_GPU) {	/* step markers */
		int64_t base = pl->kind == P_TPU ? T_COUNT + 1 + PROG_COUNT : K_COUNT + 1;
		for (int k = 0; k < p->S; k++) {
			snprintf(nm, sizeof nm, "%d", STEP_ID0 + k);
			xg_meta_md_entry(out, base + k, nm, NULL, NULL, NULL, 0);
		}
	}
	if (pl->kind == P_TPU)	/* the XLA TraceMe line's event */
		xg_meta_md_entry(out, xg_tpu_traceme_md(p), "ExecuteOnDevice", NULL, NULL, NULL, 0);
	uint64_t mask = xg_meta_stat_mask(pl->kind);
	for (int s = 0; s < S_COUNT; s++)
		if (mask & BIT(s))
			xg_meta_sm_entry(out, sb + s + 1, xg_meta_stat_names[s]);
	const struct xg_refs *r = pl->kind == P_GPU ? &p->gref : pl->kind == P_HOST ? &p->href : NULL;
	for (int i = 0; r && i < r->n; i++)
		xg_meta_sm_entry(out, sb + S_COUNT + 1 + i, r->s[i]);
	if (pl->kind == P_TPU) {
		double v[2] = { 918.0, 1640.0 };
		uint64_t bits[2];
		memcpy(bits, v, sizeof bits);
		pb_buf_stat(out, 6, sb + S_PEAK_TFLOPS + 1, PB_STAT_DOUBLE, bits[0], NULL);
		pb_buf_stat(out, 6, sb + S_PEAK_HBM_BW + 1, PB_STAT_DOUBLE, bits[1], NULL);
	} else if (pl->kind == P_GPU) {
		pb_buf_stat(out, 6, sb + S_DEVICE_VENDOR + 1, PB_STAT_STR, 0, "Nvidia");
		pb_buf_stat(out, 6, sb + S_CLOCK_RATE + 1, PB_STAT_I64, 1980000, NULL);
		pb_buf_stat(out, 6, sb + S_CORE_COUNT + 1, PB_STAT_I64, 132, NULL);
		pb_buf_stat(out, 6, sb + S_MEM_BW + 1, PB_STAT_U64, 3352000000000ull, NULL);
		pb_buf_stat(out, 6, sb + S_MEM_SIZE + 1, PB_STAT_U64, 80ull << 30, NULL);
		pb_buf_stat(out, 6, sb + S_CC_MAJOR + 1, PB_STAT_I64, 9, NULL);
		pb_buf_stat(out, 6, sb + S_CC_MINOR + 1, PB_STAT_I64, 0, NULL);
	} else if (pl->kind == P_TASKENV) {
		uint64_t stop = PROFILE_START_NS + xg_plan_step_base(p, p->S) / 1000 + 1000000;
		pb_buf_stat(out, 6, sb + S_PROFILE_START + 1, PB_STAT_U64, PROFILE_START_NS, NULL);
		pb_buf_stat(out, 6, sb + S_PROFILE_STOP + 1, PB_STAT_U64, stop, NULL);
	}
	pb_buf_free(&st);
}
