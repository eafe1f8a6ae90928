/*
 * test_rates: op_rates() on hand-made rows — every rate or share it leaves
 * absent comes with the reason (docs/analyses.md, "FLOP rate, bandwidth
 * and roofline"), and one it gives has none.
 */
#include "testutil.h"

#include <math.h>

#include "model/analysis_int.h"

/* A row of op name n, attribution at, category cat, 10 occurrences over
 * 1 ms, with FLOPs and bytes as given (< 0: none), on a device whose peaks
 * are known when peak. */
static void rates(struct xt_op_row *r, enum xt_op_attr at, const char *cat, double flops,
		  double bytes, int peak, int some)
{
	struct rate_acc ra;

	memset(r, 0, sizeof(*r));
	memset(&ra, 0, sizeof(ra));
	r->name = "op";
	r->program = "p";
	r->category = cat;
	r->attr = at;
	r->occurrences = 10;
	r->self_ps = r->total_ps = 1000000000;
	r->has_flops = flops >= 0;
	r->has_bytes = bytes >= 0;
	r->flops = flops >= 0 ? flops : 0;
	r->bytes_accessed = r->hbm_bytes = bytes >= 0 ? bytes : 0;
	ra.ps = r->total_ps;
	ra.flops = r->flops;
	ra.bytes = ra.hbm = r->bytes_accessed;
	if (peak) {
		ra.fpeak = (double)ra.ps * 1e15;
		ra.fpeak_ps = ra.ps;
		ra.bpeak = (double)ra.ps * 1e12;
		ra.bpeak_ps = ra.ps;
	}
	op_rates(r, &ra, some);
}

static void expect(enum xt_op_attr at, const char *cat, double flops, double bytes, int peak,
		   int some, const char *why)
{
	struct xt_op_row r;

	rates(&r, at, cat, flops, bytes, peak, some);
	if (!why) {
		assert_string_equal(r.rate_note, "");
		return;
	}
	if (!strstr(r.rate_note, why))
		fail_msg("attr %d, %s: '%s' lacks '%s'", (int)at, cat, r.rate_note, why);
}

static void test_rate_notes(void **state)
{
	(void)state;
	/* Everything known: no note. */
	expect(XT_ATTR_HLO_OP, "fusion", 1e9, 1e9, 1, 0, NULL);
	/* Counts unknown, by how the op was found. */
	expect(XT_ATTR_EVENT_NAME, "memcpy", -1, -1, 1, 0, "a copy");
	expect(XT_ATTR_TF_OP, "MatMul", -1, -1, 1, 0, "TensorFlow");
	expect(XT_ATTR_XLA_OP, "fusion", -1, -1, 1, 0, "counts none for this op");
	expect(XT_ATTR_HLO_OP_UNCHECKED, "fusion", -1, -1, 1, 0, "no HLO");
	expect(XT_ATTR_UNRESOLVED, "x", -1, -1, 1, 0, "no instruction");
	expect(XT_ATTR_HLO_OP, "fusion", -1, -1, 1, 0, "cost model");
	/* Some occurrences had counts: not "none". */
	expect(XT_ATTR_TF_OP, "MatMul", -1, -1, 1, 1, "some occurrences only");
	/* One of the two. */
	expect(XT_ATTR_HLO_OP, "fusion", 1e9, -1, 1, 0, "no bytes");
	expect(XT_ATTR_HLO_OP, "fusion", -1, 1e9, 1, 0, "no FLOPs for every");
	/* Rates without a share, and both reasons at once. */
	expect(XT_ATTR_HLO_OP, "fusion", 1e9, 1e9, 0, 0, "peak is unknown");
	expect(XT_ATTR_HLO_OP, "fusion", 1e9, -1, 0, 0, "no bytes");
	expect(XT_ATTR_HLO_OP, "fusion", 1e9, -1, 0, 0, "peak is unknown");
	/* A check's reason stands. */
	expect(XT_ATTR_HLO_OP, "fusion", 1e30, 1e9, 1, 0, "above the device's peak");
	/* Both checks fail: both reasons, neither overwriting the other. */
	expect(XT_ATTR_HLO_OP, "fusion", 1e30, 1e12, 1, 0, "FLOP rate and bandwidth above");
}

/* Arithmetic intensity (FLOPs per HBM byte) and the bound are ratios of
 * the counts, where the time cancels out: they stand when a rate above
 * its peak is dropped (XProf's SetRooflineMetrics drops nothing). */
static void test_intensity_kept(void **state)
{
	struct xt_op_row r;

	(void)state;
	rates(&r, XT_ATTR_HLO_OP, "fusion", 1e9, 1e8, 1, 0);
	assert_true(fabs(r.intensity - 10.0) < 1e-9);
	rates(&r, XT_ATTR_HLO_OP, "fusion", 1e9, 1e12, 1, 0); /* 1000 TB/s */
	assert_true(isnan(r.hbm_bytes_per_s));
	assert_true(isnan(r.hbm_bw_utilization));
	assert_true(fabs(r.intensity - 1e-3) < 1e-12);
	assert_int_equal(r.bound_by, XT_BOUND_MEMORY);
	assert_non_null(strstr(r.rate_note, "bandwidth above"));
	rates(&r, XT_ATTR_HLO_OP, "fusion", 1e30, 1e8, 1, 0);
	assert_true(isnan(r.flops_per_s));
	assert_true(fabs(r.intensity - 1e22) < 1e10);
	assert_int_equal(r.bound_by, XT_BOUND_COMPUTE);
	/* No peak: no share, no bound. */
	rates(&r, XT_ATTR_HLO_OP, "fusion", 1e9, 1e12, 0, 0);
	assert_int_equal(r.bound_by, XT_BOUND_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_rate_notes),
		TU_TEST(test_intensity_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
