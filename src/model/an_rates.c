/*
 * an_rates: device peaks and the rates of each op (docs/analyses.md, "FLOP
 * rate, bandwidth and roofline"): FLOP/s and bytes/s over the op's time,
 * the fraction of the device's peak they reach, the arithmetic intensity
 * and the roof that bounds the op. A rate that no device can reach is not
 * shown (rate_note says why): it means the time or the counts are wrong for
 * that op (an async start measured as its few-nanosecond issue, say).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

const char *const xt_bound_names[3] = { "unknown", "compute", "memory" };

/* Where no peak is known, rates above these are impossible on any device
 * made so far (issue of physically impossible figures). */
#define XT_MAX_FLOPS 5e15 /* FLOP/s */
#define XT_MAX_BW 50e12   /* bytes/s */

/* FLOP per SM per cycle: the most of FP32/FP16 on CUDA and tensor cores,
 * as XProf's GetFlopMaxThroughputPerCore takes from NVIDIA's whitepapers
 * (xprof/utils/cuda_type_utils.cc). Keys are major * 1000 + minor * 10. */
static const struct {
	int cap;
	double flops;
} nvidia_sm[] = {
	{ 2000, 64 },  { 3000, 384 },  { 5000, 256 },  { 6000, 256 },  { 6010, 256 },
	{ 7000, 1024 }, { 7050, 1024 }, { 8000, 2048 }, { 8060, 1024 }, { 8090, 1024 },
	{ 9000, 4096 }, { 10000, 8192 },
};

/* FLOP per CU per cycle (dense FP16/BF16 matrix cores) from AMD's published
 * peaks: MI300X 1307.4 TFLOP/s on 304 CUs at 2.1 GHz is 2048; MI250X 383
 * TFLOP/s on 220 CUs at 1.7 GHz is 1024; MI355X 2.5 PFLOP/s on 256 CUs at
 * 2.4 GHz is 4096. xtop's own table: XProf has none for AMD. */
/* hbm_x: what ROCm's memory_bandwidth stat (memory clock x bus width x 2
 * transfers / 8) misses: HBM3 and HBM3E move 4 bits per pin per memory
 * clock, so on gfx942 (MI300X: 1.3 GHz x 8192 bits -> 2.66 TB/s in the
 * profile, 5.3 TB/s on the data sheet) and gfx950 the true peak is twice
 * the stat. HBM2e (gfx90a) is double data rate: the stat is right. */
static const struct {
	int major, minor;
	double flops;
	const char *arch;
	double hbm_x;
} amd_cu[] = {
	{ 9, 0, 1024, "gfx90a/gfx908", 1 },
	{ 9, 4, 2048, "gfx942", 2 },
	{ 9, 5, 4096, "gfx950", 2 },
};

struct caps {
	double peak_tflops, peak_hbm_gbps, clock_khz, cores, mem_bw;
	int cap_major, cap_minor;
	int has_tflops, has_hbm, has_clock, has_cores, has_mem_bw, has_cap;
	char vendor[16];
	char model[64];
};

static void read_caps(struct caps *c, const struct xt_host *h, const struct xt_plane *p)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < p->nstats; i++) {
		struct xt_stat s;
		const char *n;

		if (!stat_decode_one(p, h->src.data + p->stat_off[i], p->stat_len[i], &s) || !s.meta)
			continue;
		n = s.meta->name;
		if (!strcmp(n, "peak_teraflops_per_second")) {
			c->peak_tflops = stat_as_double(&s);
			c->has_tflops = c->peak_tflops > 0;
		} else if (!strcmp(n, "peak_hbm_bw_gigabytes_per_second")) {
			c->peak_hbm_gbps = stat_as_double(&s);
			c->has_hbm = c->peak_hbm_gbps > 0;
		} else if (!strcmp(n, "clock_rate")) {
			c->clock_khz = stat_as_double(&s);
			c->has_clock = c->clock_khz > 0;
		} else if (!strcmp(n, "core_count")) {
			c->cores = stat_as_double(&s);
			c->has_cores = c->cores > 0;
		} else if (!strcmp(n, "memory_bandwidth")) {
			c->mem_bw = stat_as_double(&s);
			c->has_mem_bw = c->mem_bw > 0;
		} else if (!strcmp(n, "compute_cap_major")) {
			c->cap_major = (int)stat_as_int(&s);
			c->has_cap |= 1;
		} else if (!strcmp(n, "compute_cap_minor")) {
			c->cap_minor = (int)stat_as_int(&s);
			c->has_cap |= 2;
		} else if (!strcmp(n, "device_vendor") &&
			   (s.kind == XT_STAT_STR || s.kind == XT_STAT_REF)) {
			snprintf(c->vendor, sizeof(c->vendor), "%.*s", (int)s.n, s.s);
		} else if ((!strcmp(n, "device_type_string") || !strcmp(n, "gpu_device_name")) &&
			   (s.kind == XT_STAT_STR || s.kind == XT_STAT_REF)) {
			snprintf(c->model, sizeof(c->model), "%.*s", (int)s.n, s.s);
		}
	}
}

void device_peaks(struct xt_device_row *d, const struct xt_host *h, const struct xt_plane *p,
		  struct arena *arena)
{
	struct caps c;

	read_caps(&c, h, p);
	d->peak_flops = NAN;
	d->peak_hbm_bw = NAN;
	d->peak_source = "";
	d->peak_hbm_source = "";
	d->model = arena_strndup(arena, c.model, strlen(c.model));
	if (c.has_hbm) {
		d->peak_hbm_bw = c.peak_hbm_gbps * 1e9;
		d->peak_hbm_source = "profile";
	} else if (c.has_mem_bw) {
		size_t i;

		d->peak_hbm_bw = c.mem_bw;
		d->peak_hbm_source = "profile";
		for (i = 0; i < sizeof(amd_cu) / sizeof(amd_cu[0]) && !strcmp(c.vendor, "AMD"); i++)
			if (c.has_cap == 3 && amd_cu[i].major == c.cap_major &&
			    amd_cu[i].minor == c.cap_minor && amd_cu[i].hbm_x != 1) {
				d->peak_hbm_bw = c.mem_bw * amd_cu[i].hbm_x;
				d->peak_hbm_source = "profile x2 (HBM3: ROCm's figure counts 2 transfers "
						     "per clock, not 4)";
			}
	}
	if (c.has_tflops) {
		d->peak_flops = c.peak_tflops * 1e12;
		d->peak_source = "profile";
	} else if (c.has_clock && c.has_cores && c.has_cap == 3) {
		if (!strcmp(c.vendor, "AMD")) {
			size_t i;

			for (i = 0; i < sizeof(amd_cu) / sizeof(amd_cu[0]); i++)
				if (amd_cu[i].major == c.cap_major && amd_cu[i].minor == c.cap_minor) {
					d->peak_flops = amd_cu[i].flops * c.cores * c.clock_khz * 1e3;
					d->peak_source = amd_cu[i].arch;
				}
		} else {
			int64_t key = (int64_t)c.cap_major * 1000 + (int64_t)c.cap_minor * 10;
			size_t i, best = 0;

			/* The highest known capability not above the device's
			 * (the oldest one when it is older than all), as XProf
			 * backs off. */
			for (i = 0; i < sizeof(nvidia_sm) / sizeof(nvidia_sm[0]); i++)
				if (nvidia_sm[i].cap <= key)
					best = i;
			d->peak_flops = nvidia_sm[best].flops * c.cores * c.clock_khz * 1e3;
			d->peak_source = "sm table";
		}
	}
}

/* The Async XLA Ops spans of (program, name) on a device, or NULL. */
static const struct async_acc *async_find(const struct line_part *async, const struct op_acc *o)
{
	char key[520];
	const uint32_t *v;

	if (!async || o->name.n > 500)
		return NULL;
	memcpy(key, &o->program_id, 8);
	if (o->name.n) /* an empty name may have no pointer */
		memcpy(key + 8, o->name.p, o->name.n);
	v = hmap_find(&async->async_index, key, 8 + o->name.n);
	return v ? &async->async[*v] : NULL;
}

void rate_add(struct rate_acc *ra, const struct op_acc *o, const struct xt_device_row *d,
	      const struct line_part *async)
{
	int64_t ps;

	if (!o->occurrences)
		return;
	if (o->async == 2) {
		/* A done only waits: the transfer is timed on its start. */
		ra->unmeasured = 1;
		return;
	}
	if (o->async == 1) {
		const struct async_acc *x = async_find(async, o);

		if (!x || x->count != o->occurrences) {
			ra->unmeasured = 1;
			return;
		}
		ps = x->total_ps;
	} else {
		ps = o->total_ps;
	}
	ra->ps = xt_sat_add(ra->ps, ps);
	ra->occ += o->occurrences;
	if (o->n_flops == o->occurrences)
		ra->flops += o->flops;
	else
		ra->flops_unknown = 1;
	if (o->n_bytes == o->occurrences && o->n_hbm == o->occurrences) {
		ra->bytes += o->bytes;
		ra->hbm += o->hbm_bytes;
	} else {
		ra->bytes_unknown = 1;
	}
	if (d && !isnan(d->peak_flops)) {
		ra->fpeak += (double)ps * d->peak_flops;
		ra->fpeak_ps = xt_sat_add(ra->fpeak_ps, ps);
	}
	if (d && !isnan(d->peak_hbm_bw)) {
		ra->bpeak += (double)ps * d->peak_hbm_bw;
		ra->bpeak_ps = xt_sat_add(ra->bpeak_ps, ps);
	}
}

static void rates_measure(struct xt_op_row *r, const struct rate_acc *ra)
{
	double s = (double)ra->ps * 1e-12, fu, bu;
	int has_f = r->has_flops && !ra->flops_unknown, has_b = r->has_bytes && !ra->bytes_unknown;

	r->rate_ps = ra->ps;
	r->rate_occurrences = ra->ps > 0 ? ra->occ : 0;
	r->flops_per_s = r->bytes_per_s = r->hbm_bytes_per_s = NAN;
	r->flops_utilization = r->hbm_bw_utilization = r->intensity = NAN;
	r->bound_by = XT_BOUND_UNKNOWN;
	r->rate_note = "";
	/* No HBM intensity for a host offload (below), timed or not: a
	 * copy-done's 0 FLOPs over its bytes read as "AI 0.00". */
	if (r->has_flops && r->has_bytes && r->flops >= 0 && r->hbm_bytes > 0 && !r->host_mem)
		r->intensity = r->flops / r->hbm_bytes;
	/* A negative count (a broken or hostile stat) gives no rate, and no
	 * share of a peak: "-609.8 %" of HBM's. */
	if ((has_f && ra->flops < 0) || (has_b && (ra->bytes < 0 || ra->hbm < 0))) {
		r->rate_note = has_f && ra->flops < 0 ? "a negative FLOP count in the profile"
						      : "a negative byte count in the profile";
		r->intensity = NAN;
		return;
	}
	if (ra->ps <= 0) {
		if (r->async == 2)
			r->rate_note = "async done: it waits for a transfer timed on its start";
		else if (ra->unmeasured)
			r->rate_note = "async start: no start-to-done span in the profile";
		else if (has_f || has_b)
			r->rate_note = "no duration";
		return;
	}
	if (has_f) {
		r->flops_per_s = ra->flops / s;
		if (ra->fpeak_ps == ra->ps && ra->fpeak > 0)
			r->flops_utilization = ra->flops / (ra->fpeak * 1e-12);
	}
	if (has_b) {
		r->bytes_per_s = ra->bytes / s;
		r->hbm_bytes_per_s = ra->hbm / s;
		if (ra->bpeak_ps == ra->ps && ra->bpeak > 0)
			r->hbm_bw_utilization = ra->hbm / (ra->bpeak * 1e-12);
	}
	/* The bound is the larger share of its roof (XProf's
	 * SetRooflineMetrics), a ratio of the counts where the time cancels
	 * out: it stands when a share is above 1 and dropped below (an op at
	 * 100.02 % of HBM's roof and 0.1 % of the FLOPs' is memory-bound). */
	fu = r->flops_utilization;
	bu = r->hbm_bw_utilization;
	/* Impossible figures are absent, not shown. */
	if (!isnan(r->flops_per_s) &&
	    (isnan(r->flops_utilization) ? r->flops_per_s > XT_MAX_FLOPS : r->flops_utilization > 1)) {
		r->flops_per_s = r->flops_utilization = NAN;
		r->rate_note = "FLOP rate above the device's peak: the op's time is too short "
			       "or its FLOPs are wrong";
	}
	if (!isnan(r->hbm_bytes_per_s) &&
	    (isnan(r->hbm_bw_utilization) ? r->hbm_bytes_per_s > XT_MAX_BW
					  : r->hbm_bw_utilization > 1)) {
		r->hbm_bytes_per_s = r->hbm_bw_utilization = NAN;
		/* Bytes are the HLO's operands and outputs: on a GPU with a
		 * large L2 (50 MB on an H100) some never reach HBM. */
		r->rate_note = *r->rate_note
				       ? "FLOP rate and bandwidth above the device's peak: the op's "
					 "time is too short, or its FLOPs or bytes are wrong"
				       : "bandwidth above the device's peak: some of its bytes came "
					 "from a cache, its time is too short (an async op?) or its "
					 "bytes are wrong";
	}
	/* FLOPs over HBM bytes stays when a rate is dropped: the time is
	 * not in it, and it is the HLO's count, as XProf's (where an L2
	 * served some bytes, the HBM's own intensity is higher). */
	/* All bytes (on-chip memories included) can outrun HBM; only a rate
	 * no memory reaches is dropped. With no HBM share known, all bytes
	 * are HBM bytes and the HBM check above applies to them. */
	if (!isnan(r->bytes_per_s) &&
	    (r->bytes_per_s > XT_MAX_BW ||
	     (r->hbm_bytes == r->bytes_accessed && isnan(r->hbm_bytes_per_s)))) {
		r->bytes_per_s = NAN;
		if (!*r->rate_note)
			r->rate_note = "bandwidth above what any memory delivers: the op's time is "
				       "too short or its bytes are wrong";
	}
	if (!isnan(fu) && !isnan(bu) && !r->host_mem)
		r->bound_by = fu >= bu ? XT_BOUND_COMPUTE : XT_BOUND_MEMORY;
	if (r->host_mem && !isnan(r->hbm_bytes_per_s)) {
		/* A host offload (the TPU's 5 GiB copies at 9-30 GB/s read as
		 * 0.5-1.9 % of HBM, "memory bound"): the rate is the link's. */
		r->hbm_bytes_per_s = r->hbm_bw_utilization = r->intensity = NAN;
		if (!*r->rate_note)
			r->rate_note = "to or from host memory (S(5) in its HLO): its bytes cross the "
				       "host link, which no HBM roof measures (bytes/s is the link's)";
	}
}

/* Why a rate or share is absent that no check above explained: the counts
 * it is made of (by how the op was found), then the peak it is a share of. */
enum why_counts {
	WHY_NONE,        /* the counts are known */
	WHY_COPY,
	WHY_TF,
	WHY_XLA,         /* an XLA Ops event without counts */
	WHY_NO_HLO,
	WHY_NOT_INST,
	WHY_COST_MODEL,
	WHY_SOME,        /* some occurrences had them: a sum would understate */
	WHY_NO_BYTES,
	WHY_NO_FLOPS,
	WHY_COUNT
};

#define NO_PEAK "the device's peak is unknown: no share of it"
static const char *const why_text[WHY_COUNT][2] = {
#define WHY(k, t) [k] = { t, t "; " NO_PEAK }
	[WHY_NONE] = { "", NO_PEAK },
	WHY(WHY_COPY, "a copy: no FLOPs, and its bytes (memcpy_details) cross a bus, which no "
		      "HBM roof measures"),
	WHY(WHY_TF, "no FLOPs or bytes: the profile counts none for TensorFlow ops"),
	WHY(WHY_XLA, "no FLOPs or bytes: the profile counts none for this op"),
	WHY(WHY_NO_HLO, "no FLOPs or bytes: the profile counts none for it and holds no HLO to "
			"count them"),
	WHY(WHY_NOT_INST, "no FLOPs or bytes: it is no instruction of the program's HLO"),
	WHY(WHY_COST_MODEL, "no FLOPs or bytes: the profile counts none for it, and the HLO "
			    "cost model does not count this instruction"),
	WHY(WHY_SOME, "FLOPs or bytes for some occurrences only: their sum would understate it"),
	WHY(WHY_NO_BYTES, "no bytes for every occurrence: no bandwidth"),
	WHY(WHY_NO_FLOPS, "no FLOPs for every occurrence: no FLOP rate"),
#undef WHY
};

static enum why_counts why_counts(const struct xt_op_row *r, int has_f, int has_b, int some)
{
	if (has_f && has_b)
		return WHY_NONE;
	if (has_f)
		return WHY_NO_BYTES;
	if (has_b)
		return WHY_NO_FLOPS;
	if (!strcmp(r->category, "memcpy"))
		return WHY_COPY;
	if (some)
		return WHY_SOME;
	switch (r->attr) {
	case XT_ATTR_TF_OP:
		return WHY_TF;
	case XT_ATTR_XLA_OP:
		return WHY_XLA;
	case XT_ATTR_HLO_OP_UNCHECKED:
	case XT_ATTR_KERNEL_NAME_UNCHECKED:
		return WHY_NO_HLO;
	case XT_ATTR_UNRESOLVED:
	case XT_ATTR_EVENT_NAME:
	case XT_ATTR_COPY_CALL:
		return WHY_NOT_INST;
	default:
		return WHY_COST_MODEL;
	}
}

void op_rates(struct xt_op_row *r, const struct rate_acc *ra, int some_counts)
{
	int has_f = r->has_flops && !ra->flops_unknown, has_b = r->has_bytes && !ra->bytes_unknown;
	enum why_counts w;
	int no_peak;

	rates_measure(r, ra);
	/* Every absent figure says why (docs/analyses.md): a check above, or
	 * its counts, and its peak where a rate has none. */
	if (*r->rate_note)
		return;
	w = why_counts(r, has_f, has_b, some_counts);
	no_peak = (!isnan(r->flops_per_s) && isnan(r->flops_utilization)) ||
		  (!isnan(r->hbm_bytes_per_s) && isnan(r->hbm_bw_utilization));
	if (isnan(r->flops_per_s) || isnan(r->bytes_per_s) || isnan(r->hbm_bytes_per_s) ||
	    isnan(r->flops_utilization) || isnan(r->hbm_bw_utilization))
		r->rate_note = why_text[w][no_peak];
}
