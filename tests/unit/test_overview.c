/*
 * test_overview: the overview's facts and findings (docs/analyses.md,
 * "Overview") on hand-built profiles; every expected number is worked out in
 * the comments (1 us = 1,000,000 ps; lines start at 0).
 */
#include "testutil.h"

#include "model/spans.h"

#include <math.h>

#define US 1000000ll

static const struct xt_finding *finding(const struct xt_analysis *a, const char *id)
{
	size_t i;

	for (i = 0; i < a->overview.nfindings; i++)
		if (!strcmp(a->overview.findings[i].id, id))
			return &a->overview.findings[i];
	return NULL;
}

static double fval(const struct xt_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nnum; i++)
		if (!strcmp(f->num[i].key, key)) {
			assert_null(f->num[i].str);
			return f->num[i].value;
		}
	fail_msg("finding %s has no number %s", f->id, key);
	return NAN;
}

static const char *fstr(const struct xt_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nnum; i++)
		if (!strcmp(f->num[i].key, key)) {
			assert_non_null(f->num[i].str);
			return f->num[i].str;
		}
	fail_msg("finding %s has no string %s", f->id, key);
	return NULL;
}

/*
 * A GPU launching 200 kernels of 5 us, one every 10 us: [10i, 10i+5) us for
 * i = 0..199. Span [0, 1995) us, busy 1000 us, idle 49.87 %. A host-to-device
 * copy at [2, 4) us is busy time but not a kernel.
 * The host: thread "main" works [0, 100) us, compiles [500, 600) us
 * (backend_compile, with TfrtTpuCompiler::Compile at [510, 590) inside it)
 * and [1000, 1010) us (PjRtStreamExecutorClient::Compile); the Python
 * tracer's line covers [0, 2000) us and is not host work.
 * Host-bound = the gaps [10i+5, 10i+10) inside host work: i = 0..9 (50 us),
 * 50..59 (50 us) and 100 (5 us) = 105 us. Compiles: 2, 100 + 10 = 110 us.
 */
static void test_launch_bound_host_bound_compile(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_line *c = tu_line_add(g, 2, "Stream #2(MemcpyH2D)", 0);
	tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *main_ = tu_line_add(h, 1, "main", 0);
	tu_line *py = tu_line_add(h, 2, "python", 0);
	const struct xt_device_row *d;
	const struct xt_finding *f;
	struct xt_analysis *a;
	int i;

	(void)state;
	for (i = 0; i < 200; i++)
		tu_ev(g, k, "small_kernel", (int64_t)i * 10 * US, 5 * US);
	tu_ev(g, c, "MemcpyH2D", 2 * US, 2 * US);
	tu_ev(h, main_, "work", 0, 100 * US);
	tu_ev(h, main_, "backend_compile", 500 * US, 100 * US);
	tu_ev(h, main_, "TfrtTpuCompiler::Compile", 510 * US, 80 * US);
	tu_ev(h, main_, "PjRtStreamExecutorClient::Compile", 1000 * US, 10 * US);
	tu_ev(h, py, "$train.py:10 main", 0, 2000 * US);
	tu_plane_add(s, 3, "/device:GPU:1"); /* no events */
	a = tu_load_space(s, NULL);

	assert_int_equal(a->ndevices, 2);
	/* A GPU with no events has no kernel count, as no busy time. */
	assert_true(xt_device_silent(&a->devices[1]) && !a->devices[1].has_kernels);
	d = &a->devices[0];
	assert_true(d->has_overview && d->has_kernels);
	assert_int_equal(d->busy_ps, 1000 * US);
	assert_int_equal(d->span_ps, 1995 * US);
	assert_int_equal(d->kernels, 200);
	assert_int_equal(d->small_kernels, 200);
	assert_int_equal(d->small_kernel_ps, 1000 * US);
	assert_int_equal(d->longest_gap_ps, 5 * US);
	assert_int_equal(d->longest_gap_start_ps, 5 * US); /* the earliest of equal ones */
	assert_int_equal(d->gaps_over_1ms, 0);
	assert_int_equal(d->host_bound_ps, 105 * US);
	assert_int_equal(a->overview.host_bound_ps, 105 * US);
	assert_string_equal(a->overview.host_bound_device, "/device:GPU:0");
	assert_int_equal(a->overview.compiles, 2);
	assert_int_equal(a->overview.compile_ps, 110 * US);
	assert_false(a->overview.has_steps);
	assert_true(isnan(a->overview.h2d_in_steps_percent));

	/* launch_bound, idle_gaps, dominant_op (the one kernel is nearly all
	 * the device time) and compilation, in that order. */
	assert_int_equal(a->overview.nfindings, 4);
	assert_string_equal(a->overview.findings[0].id, "launch_bound");
	assert_string_equal(a->overview.findings[1].id, "idle_gaps");
	assert_string_equal(a->overview.findings[2].id, "dominant_op");
	assert_string_equal(a->overview.findings[3].id, "compilation");
	f = finding(a, "launch_bound");
	assert_string_equal(fstr(f, "device"), "/device:GPU:0");
	assert_true(fval(f, "kernels") == 200 && fval(f, "small_kernels") == 200);
	assert_true(fabs(fval(f, "idle_percent") - 100.0 * 995.0 / 1995.0) < 1e-9);
	assert_non_null(strstr(f->text, "under 10 us"));
	f = finding(a, "idle_gaps");
	assert_true(fval(f, "idle_ps") == 995.0 * US);
	assert_true(fval(f, "host_bound_ps") == 105.0 * US);
	f = finding(a, "compilation");
	assert_true(fval(f, "compiles") == 2 && fval(f, "compile_ps") == 110.0 * US);
}

/*
 * A TPU with two 100 us steps (Steps line) and XLA Ops:
 *   step 1 [0, 100):   all-reduce.1 [0, 60), fusion.1 [60, 80), CopyHostToDevice [80, 90)
 *   step 2 [100, 200): all-reduce.1 [100, 160), fusion.1 [160, 180)
 * Busy 60+20+10+60+20 = 170 us of a 200 us span: idle 15 %. Gaps [90, 100)
 * and [180, 200): the longest 20 us at 180 us. Collectives 120 us = 70.6 %
 * of busy; all-reduce.1 dominates at 70.6 %; host-to-device copies are
 * 10 us of 200 us of steps = 5 %. No host: nothing is host-bound.
 */
static void test_steps_collectives_dominant_h2d(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *st = tu_line_add(p, 1, "Steps", 0);
	tu_line *ops = tu_line_add(p, 2, "XLA Ops", 0);
	const struct xt_finding *f;
	struct xt_analysis *a;
	int k;

	(void)state;
	tu_ev(p, st, "1", 0, 100 * US);
	tu_ev(p, st, "2", 100 * US, 100 * US);
	for (k = 0; k < 2; k++) {
		tu_ev(p, ops, "all-reduce.1", k * 100 * US, 60 * US);
		tu_ev(p, ops, "fusion.1", (k * 100 + 60) * US, 20 * US);
	}
	tu_ev(p, ops, "CopyHostToDevice", 80 * US, 10 * US);
	a = tu_load_space(s, NULL);

	assert_int_equal(a->nsteps, 2);
	assert_true(a->overview.has_steps);
	assert_true(a->overview.step_mean_ps == 100.0 * US);
	assert_int_equal(a->overview.step_p50_ps, 100 * US);
	assert_int_equal(a->overview.step_p95_ps, 100 * US);
	assert_int_equal(a->devices[0].busy_ps, 170 * US);
	assert_int_equal(a->devices[0].longest_gap_ps, 20 * US);
	assert_int_equal(a->devices[0].longest_gap_start_ps, 180 * US);
	assert_false(a->devices[0].has_kernels);
	assert_int_equal(a->devices[0].host_bound_ps, 0);
	assert_null(a->overview.host_bound_device);
	assert_int_equal(a->overview.collective_ps, 120 * US);
	assert_true(fabs(a->overview.collective_percent - 100.0 * 120 / 170) < 1e-9);
	assert_int_equal(a->overview.h2d_in_steps_ps, 10 * US);
	assert_true(a->overview.h2d_in_steps_percent == 5.0);

	assert_int_equal(a->overview.nfindings, 4);
	assert_string_equal(a->overview.findings[0].id, "idle_gaps");
	assert_string_equal(a->overview.findings[1].id, "h2d_in_steps");
	assert_string_equal(a->overview.findings[2].id, "dominant_op");
	assert_string_equal(a->overview.findings[3].id, "collectives");
	f = finding(a, "dominant_op");
	assert_string_equal(fstr(f, "op"), "all-reduce.1");
	assert_true(fval(f, "self_ps") == 120.0 * US);
	f = finding(a, "collectives");
	assert_string_equal(fstr(f, "op"), "all-reduce.1");
	f = finding(a, "h2d_in_steps");
	assert_true(fval(f, "steps") == 2);
}

/*
 * A TPU's host offload (docs/analyses.md, "Rates"): the HLO text says which
 * way each op moves bytes, and the step breakdown files the device's wait
 * as that transfer. One step [0, 100) us, ops back to back:
 *   copy-start    [0, 1)    operand in host memory: to the device   H2D 1
 *   copy-start.1  [1, 2)    operand in HBM, result names S(5)       D2H 1
 *   copy-done     [10, 30)  result in HBM (operand tuple has S(5))  H2D 20
 *   copy-done.1   [30, 45)  result in host memory                   D2H 15
 *   fusion.2      [45, 50)  both sides in host memory: host compute C 5
 *   dynamic-update-slice.3 [50, 54) into a host buffer              D2H 4
 *   copy.4        [54, 60)  from host memory                        H2D 6
 *   fusion.5      [60, 80)  no host memory                          C 20
 *   weird         [80, 82)  names S(5) but no "x = SHAPE op(...)"   C 2
 * H2D 27, D2H 20, compute 27, idle 26 us. Both copy findings fire (>= 5 %):
 * to the device, the waits are copy-done and copy.4 (copy-done first by
 * self time; the copy-start only issues), to the host copy-done.1 and the
 * dynamic-update-slice.
 */
static void test_host_offload_steps(void **state)
{
	static const struct {
		const char *hlo, *name;
		int64_t at, dur;
		int way;
	} ev[] = {
		{ "%copy-start = (f32[4]{0}, f32[4]{0:S(5)}, u32[]{:S(2)}) copy-start(f32[4]{0:S(5)} "
		  "%p)", "copy-start", 0, 1, XT_HOST_COPY_IN },
		{ "%copy-start.1 = (f32[4]{0:S(5)}, f32[4]{0}, u32[]{:S(2)}) copy-start(f32[4]{0} %f)",
		  "copy-start.1", 1, 1, XT_HOST_COPY_OUT },
		{ "%copy-done = f32[4]{0} copy-done((f32[4]{0}, f32[4]{0:S(5)}, u32[]{:S(2)}) "
		  "%copy-start)", "copy-done", 10, 20, XT_HOST_COPY_IN },
		{ "%copy-done.1 = f32[4]{0:S(5)} copy-done((f32[4]{0:S(5)}, f32[4]{0}, u32[]{:S(2)}) "
		  "%copy-start.1)", "copy-done.1", 30, 15, XT_HOST_COPY_OUT },
		{ "%fusion.2 = f32[4]{0:S(5)} fusion(f32[4]{0:S(5)} %a), kind=kLoop, calls=%f2",
		  "fusion.2", 45, 5, XT_HOST_COPY_NONE },
		{ "%dynamic-update-slice.3 = f32[8]{0:S(5)} dynamic-update-slice(f32[8]{0:S(5)} %b, "
		  "f32[4]{0} %c, s32[] %i)", "dynamic-update-slice.3", 50, 4, XT_HOST_COPY_OUT },
		{ "%copy.4 = f32[4]{0} copy(f32[4]{0:S(5)} %x)", "copy.4", 54, 6, XT_HOST_COPY_IN },
		{ "%fusion.5 = f32[4]{0} fusion(f32[4]{0} %y), kind=kLoop", "fusion.5", 60, 20,
		  XT_HOST_COPY_NONE },
		{ "weird{0:S(5)}", "weird", 80, 2, XT_HOST_COPY_NONE },
	};
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *st = tu_line_add(p, 1, "Steps", 0);
	tu_line *ops = tu_line_add(p, 2, "XLA Ops", 0);
	const struct xt_step_row *r;
	const struct xt_finding *f;
	struct xt_analysis *a;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(ev) / sizeof(ev[0]); k++) {
		tu_emeta_t *m = tu_emeta_id(p, (int64_t)k + 10, ev[k].hlo, ev[k].name);

		TU_SI(p, m, "program_id", 1);
		tu_event_add(ops, (int64_t)k + 10, ev[k].at * US, ev[k].dur * US);
	}
	tu_ev(p, st, "1", 0, 100 * US);
	a = tu_load_space(s, NULL);

	for (k = 0; k < sizeof(ev) / sizeof(ev[0]); k++) {
		const struct xt_op_row *o = tu_find_op(a, ev[k].name, "1");

		if (o->host_copy != ev[k].way)
			fail_msg("%s: host_copy %d, not %d", ev[k].name, o->host_copy, ev[k].way);
		assert_int_equal(o->host_mem, strcmp(ev[k].name, "fusion.5") != 0);
	}
	assert_int_equal(a->nsteps, 1);
	r = &a->steps[0];
	assert_int_equal(r->cat_ps[XT_CAT_HOST_TO_DEVICE], 27 * US);
	assert_int_equal(r->cat_ps[XT_CAT_DEVICE_TO_HOST], 20 * US);
	assert_int_equal(r->cat_ps[XT_CAT_DEVICE_COMPUTE], 27 * US);
	assert_int_equal(r->idle_ps, 26 * US);
	assert_int_equal(a->overview.h2d_in_steps_ps, 27 * US);
	assert_int_equal(a->overview.d2h_in_steps_ps, 20 * US);
	assert_true(a->overview.d2h_in_steps_percent == 20.0);

	f = finding(a, "h2d_in_steps");
	assert_non_null(f);
	assert_true(fval(f, "host_offload_ops") == 2);
	assert_string_equal(fstr(f, "op"), "copy-done");
	assert_non_null(strstr(f->text, "host link"));
	f = finding(a, "d2h_in_steps");
	assert_non_null(f);
	assert_true(fval(f, "d2h_in_steps_percent") == 20.0);
	assert_true(fval(f, "host_offload_ops") == 2);
	assert_string_equal(fstr(f, "op"), "copy-done.1");
}

/* Below every threshold: a busy device whose largest op is 39.6 % of its
 * time, with no gap, finds nothing. */
static void test_quiet_profile(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_plane *o = tu_plane_add(s, 2, "/device:GPU:1"); /* no events: no overview */
	struct xt_analysis *a;

	(void)state;
	(void)o;
	tu_ev(g, k, "gemm", 0, 400 * US);
	tu_ev(g, k, "conv", 400 * US, 350 * US);
	tu_ev(g, k, "softmax", 750 * US, 260 * US);
	a = tu_load_space(s, NULL);
	assert_int_equal(a->overview.nfindings, 0);
	assert_int_equal(a->devices[0].longest_gap_ps, 0);
	assert_int_equal(a->devices[0].kernels, 3);
	assert_int_equal(a->devices[0].small_kernels, 0);
	assert_int_equal(a->overview.compiles, 0);
}

/* No host activity (the host tracer off): host-bound time is unknown, not
 * 0, and the idle finding says so. */
static void test_no_host_activity(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;

	(void)state;
	tu_ev(g, k, "gemm", 0, 100 * US);
	tu_ev(g, k, "conv", 600 * US, 100 * US); /* a 500 us gap: idle 71 % */
	a = tu_load_space(s, NULL);
	assert_true(xt_device_has_gaps(&a->devices[0]));
	assert_false(xt_device_host_bound_known(&a->devices[0]));
	assert_false(analysis_host_active(a));
	assert_true(a->overview.nfindings >= 1); /* and the dominant op */
	assert_string_equal(a->overview.findings[0].id, "idle_gaps");
	assert_non_null(strstr(a->overview.findings[0].text, "no host activity"));
	assert_null(a->overview.host_bound_device);
}

/* Thresholds hold exactly: 100 kernels, 50 of them small, idle 20 % of the
 * span to the picosecond (50 x 5 us + 50 x 15 us = 1000 us busy, one 250 us
 * gap: 250 / 1250), which as a double is 19.999999999999996 %. */
static void test_exact_thresholds(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;
	int64_t t = 0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		int64_t d = i % 2 ? 15 * US : 5 * US;

		if (i == 50)
			t += 250 * US;
		tu_ev(g, k, i % 2 ? "big" : "small", t, d);
		t += d;
	}
	a = tu_load_space(s, NULL);
	assert_int_equal(a->devices[0].span_ps, 1250 * US);
	assert_int_equal(a->devices[0].small_kernels, 50);
	assert_non_null(finding(a, "launch_bound"));
	assert_non_null(finding(a, "idle_gaps"));
	assert_int_equal(a->devices[0].gaps_over_1ms, 0);
	assert_int_equal(a->devices[0].longest_gap_ps, 250 * US);
}

/* spans_union_packs (a heap over packed lists) gives what spans_union (the
 * runs merged pairwise) gives, on random sorted lists; a packed list reads
 * back as the list spans_take hands over (shrunk to fit, or NULL), and
 * any values round-trip, the extremes of int64 included. */
static void test_spans_union_packs(void **state)
{
	enum { K = 9 };
	static const int64_t odd[][2] = { { INT64_MIN, INT64_MIN + 1 }, { -5, 7 },
					  { INT64_MAX - 3, INT64_MAX - 2 }, { INT64_MAX, INT64_MIN } };
	uint64_t rs = 17;
	struct span_pack packs[K], edge;
	const struct span_pack *cp[K];
	struct span *got, *tmp = NULL, x;
	struct span_rd rd;
	size_t ng, k, i, tmpcap = 0;
	struct spans all, one;

	(void)state;
	memset(&all, 0, sizeof(all));
	for (k = 0; k < K; k++) {
		int64_t t = tu_rand_range(&rs, 0, 50) - (k == 5 ? 100000000000000LL : 0);
		struct span *list;
		size_t n;

		memset(&one, 0, sizeof(one));
		memset(&packs[k], 0, sizeof(packs[k]));
		for (i = 0; i < (k == 3 ? 0 : 200); i++) { /* list 3 is empty */
			int64_t s = t + tu_rand_range(&rs, 0, 30), e = s + tu_rand_range(&rs, 1, 40);

			if (k == 7 && i % 50 == 0)
				s = t += 5000000000000LL; /* wide gaps: long varints */
			spans_add(&one, 0, s, e);
			spans_add(&all, k, s, e);
			span_pack_add(&packs[k], s, e);
			t = s;
		}
		span_pack_done(&packs[k]);
		cp[k] = &packs[k];
		list = spans_take(&one, &n);
		assert_true(k == 3 ? list == NULL && n == 0 : n > 0);
		assert_int_equal(packs[k].n, n);
		assert_true(k == 3 || k == 7 || packs[k].nb < n * sizeof(struct span) / 4);
		span_rd_init(&rd, &packs[k]);
		for (i = 0; i < n; i++) {
			assert_true(span_rd_next(&rd, &x));
			assert_int_equal(x.s, list[i].s);
			assert_int_equal(x.e, list[i].e);
			if (i)
				assert_true(list[i].s > list[i - 1].e); /* disjoint, sorted */
		}
		assert_false(span_rd_next(&rd, &x));
		free(list);
	}
	spans_union(&all, &tmp, &tmpcap);
	ng = spans_union_packs(cp, K, &got);
	assert_int_equal(ng, all.n);
	for (i = 0; i < ng; i++) {
		assert_int_equal(got[i].s, all.v[i].s);
		assert_int_equal(got[i].e, all.v[i].e);
	}
	free(got);
	assert_int_equal(spans_union_packs(cp, 0, &got), 0); /* no lists: nothing */
	assert_null(got);
	memset(&edge, 0, sizeof(edge));
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		span_pack_add(&edge, odd[i][0], odd[i][1]);
	span_pack_done(&edge);
	assert_int_equal(edge.n, 4);
	span_rd_init(&rd, &edge);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		assert_true(span_rd_next(&rd, &x));
		assert_int_equal(x.s, odd[i][0]);
		assert_int_equal(x.e, odd[i][1]);
	}
	span_pack_free(&edge);
	for (k = 0; k < K; k++)
		span_pack_free(&packs[k]);
	free(all.v);
	free(all.run);
	free(tmp);
}

/* span_merge, whose top list goes on without the heap while its spans
 * start first: lists that take turns in long stretches, touching and
 * overlapping each other at the turns and equal at some, against the
 * runs merged pairwise. */
static void test_span_merge_stretches(void **state)
{
	enum { K = 4, N = 3000 };
	uint64_t rs = 5;
	struct span_pack packs[K];
	const struct span_pack *cp[K];
	struct span_merge m;
	struct span *tmp = NULL, x;
	struct spans all;
	size_t k, i, n = 0, tmpcap = 0;
	int64_t t[K];

	(void)state;
	memset(&all, 0, sizeof(all));
	memset(packs, 0, sizeof(packs));
	for (k = 0; k < K; k++)
		t[k] = 0;
	for (i = 0; i < N; i++) {
		/* Stretches of 1 to 60 spans from one list, then another's. */
		size_t run = (size_t)tu_rand_range(&rs, 1, 60), j;
		int64_t from = 0;

		k = (size_t)tu_rand_range(&rs, 0, K - 1);
		for (j = 0; j < K; j++)
			if (t[j] > from)
				from = t[j];
		/* Start at, before or after the latest end so far. */
		from += tu_rand_range(&rs, -20, 20);
		if (from < t[k])
			from = t[k];
		for (j = 0; j < run; j++) {
			int64_t s = from + tu_rand_range(&rs, 0, 3), e = s + tu_rand_range(&rs, 0, 9);

			spans_add(&all, k, s, e);
			span_pack_add(&packs[k], s, e);
			from = e;
		}
		t[k] = from;
	}
	for (k = 0; k < K; k++) {
		span_pack_done(&packs[k]);
		cp[k] = &packs[k];
	}
	spans_union(&all, &tmp, &tmpcap);
	span_merge_init(&m, cp, K);
	while (span_merge_next(&m, &x)) {
		assert_true(n < all.n);
		assert_int_equal(x.s, all.v[n].s);
		assert_int_equal(x.e, all.v[n].e);
		n++;
	}
	assert_int_equal(n, all.n);
	assert_false(span_merge_next(&m, &x)); /* stays at the end */
	span_merge_fini(&m);
	span_merge_init(&m, cp, 1); /* one list: itself */
	for (n = 0; span_merge_next(&m, &x); n++)
		;
	assert_int_equal(n, packs[0].n);
	span_merge_fini(&m);
	for (k = 0; k < K; k++)
		span_pack_free(&packs[k]);
	free(all.v);
	free(all.run);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_launch_bound_host_bound_compile),
		TU_TEST(test_steps_collectives_dominant_h2d),
		TU_TEST(test_host_offload_steps),
		TU_TEST(test_quiet_profile),
		TU_TEST(test_no_host_activity),
		TU_TEST(test_exact_thresholds),
		TU_TEST(test_spans_union_packs),
		TU_TEST(test_span_merge_stretches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
