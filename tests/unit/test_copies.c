/*
 * test_copies: HIP's blit copies (docs/analyses.md, "HIP runs copies as
 * kernels"), named and classed by the host call of the same correlation
 * id, on hand-built profiles shaped like the MI300X ones: the device plane
 * first, the host's calls after it. Times in ps.
 */
#include "testutil.h"

#include "model/analysis_int.h"

#define BLIT "__amd_rocclr_copyBuffer.kd"

static tu_event *blit(tu_plane *g, tu_line *l, int64_t off, int64_t dur, int64_t corr,
		      const char *hlo_op)
{
	tu_event *e = tu_ev(g, l, BLIT, off, dur);

	if (corr >= 0)
		TU_SI(g, e, "correlation_id", corr);
	TU_SS(g, e, "kernel_details", " grid:1,1,1 block:512,1,1 private_mem:0 group_mem:0");
	if (hlo_op) {
		TU_SS(g, e, "hlo_op", hlo_op);
		TU_SS(g, e, "hlo_module", "jit_a");
	}
	return e;
}

static void call(tu_plane *h, tu_line *l, const char *name, int64_t off, int64_t corr)
{
	tu_event *e = tu_ev(h, l, name, off, 5);

	TU_SI(h, e, "correlation_id", corr);
	TU_SS(h, e, "memcpy_details", "kind:Unknown size:0 dest:512 async:1");
}

/* A device stream of a GEMM and a D2D copy XLA started (copy.1); a second
 * stream of copies naming no op: H2D (11), D2H (12), none on the host
 * (13), a call taking its kind as an argument (14), no correlation id, and
 * an id two calls of different kinds share (15). A step [0,400). The host
 * plane comes first when host_first. */
static tu_space *copies_space(int host_first)
{
	tu_space *s = tu_space_new();
	tu_plane *g, *h = NULL;
	tu_line *k, *c, *steps, *th;
	tu_event *e;

	if (host_first)
		h = tu_plane_add(s, 2, "/host:CPU");
	g = tu_plane_add(s, 1, "/device:GPU:0");
	if (!host_first)
		h = tu_plane_add(s, 2, "/host:CPU");
	k = tu_line_add(g, 16, "Stream #16(Kernel)", 0);
	c = tu_line_add(g, 17, "Stream #17(Kernel)", 0);
	steps = tu_line_add(g, 6, "Steps", 0);
	e = tu_ev(g, k, "Cijk_gemm.kd", 0, 100);
	TU_SI(g, e, "correlation_id", 21);
	TU_SS(g, e, "hlo_op", "dot.1");
	TU_SS(g, e, "hlo_module", "jit_a");
	blit(g, k, 100, 30, 22, "copy.1");
	blit(g, c, 150, 40, 11, NULL);
	blit(g, c, 200, 10, 12, NULL);
	blit(g, c, 220, 5, 13, NULL);
	blit(g, c, 230, 6, 14, NULL);
	blit(g, c, 240, 3, -1, NULL);
	blit(g, c, 250, 2, 15, NULL);
	e = tu_ev(g, steps, "1", 0, 400);
	TU_SI(g, e, "group_id", 1);
	th = tu_line_add(h, 1083, "Host Threads/1083", 0);
	call(h, th, "hipModuleLaunchKernel", 1000, 21);
	call(h, th, "hipMemcpyDtoDAsync", 1010, 22);
	call(h, th, "hipMemcpyHtoDAsync", 1020, 11);
	call(h, th, "hipMemcpyDtoHAsync", 1030, 12);
	call(h, th, "hipMemcpyAsync", 1040, 14);
	call(h, th, "hipMemcpyHtoD", 1050, 15);
	th = tu_line_add(h, 1565, "Host Threads/1565", 0);
	call(h, th, "hipMemcpyDtoH", 1060, 15);
	return s;
}

static void assert_copies(const struct xt_analysis *a)
{
	const struct xt_op_row *o;
	const struct xt_device_row *dv;
	size_t i;
	int seen = 0;

	/* dot.1 100; copy.1 30 (its hlo_op kept); MemcpyH2D 40, MemcpyD2H 10
	 * (copy_call); the four the host does not explain keep the kernel's
	 * name: 5 + 6 + 3 + 2. */
	assert_int_equal(a->nops, 5);
	o = tu_find_op(a, "MemcpyH2D", "");
	assert_int_equal(o->attr, XT_ATTR_COPY_CALL);
	assert_string_equal(o->category, "memcpy");
	assert_int_equal(o->occurrences, 1);
	assert_int_equal(o->self_ps, 40);
	assert_int_equal(o->nkernels, 1);
	assert_string_equal(o->kernels[0].name, BLIT);
	assert_non_null(strstr(o->rate_note, "copy")); /* why its rates are absent */
	o = tu_find_op(a, "MemcpyD2H", "");
	assert_int_equal(o->attr, XT_ATTR_COPY_CALL);
	assert_int_equal(o->self_ps, 10);
	o = tu_find_op(a, BLIT, "");
	assert_int_equal(o->attr, XT_ATTR_EVENT_NAME);
	assert_non_null(strstr(o->rate_note, "no instruction"));
	assert_int_equal(o->occurrences, 4);
	assert_int_equal(o->self_ps, 16);
	o = tu_find_op(a, "copy.1", "jit_a");
	assert_int_equal(o->attr, XT_ATTR_HLO_OP_UNCHECKED);
	assert_int_equal(o->self_ps, 30);
	assert_int_equal(tu_find_op(a, "dot.1", "jit_a")->self_ps, 100);
	/* The kernel table names each launch's op. */
	for (i = 0; i < a->nkernels; i++)
		if (!strcmp(a->kernels[i].name, BLIT) && !strcmp(a->kernels[i].op, "MemcpyH2D")) {
			assert_int_equal(a->kernels[i].occurrences, 1);
			assert_int_equal(a->kernels[i].total_ps, 40);
			seen = 1;
		}
	assert_true(seen);

	/* Copies are no kernels: the GEMM and the four left. */
	dv = tu_find_device(a, NULL, "/device:GPU:0");
	assert_int_equal(dv->kernels, 5);
	assert_int_equal(dv->small_kernels, 5);
	assert_int_equal(dv->busy_ps, 130 + 40 + 10 + 5 + 6 + 3 + 2);

	/* Step [0,400): compute [0,130) (the D2D copy is device work, as on
	 * CUDA) + 16; H2D [150,190); D2H [200,210); the rest idle. */
	assert_int_equal(a->nsteps, 1);
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_DEVICE_COMPUTE], 146);
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_HOST_TO_DEVICE], 40);
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_DEVICE_TO_HOST], 10);
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_HOST_COMPUTE], 0);
	assert_int_equal(a->steps[0].idle_ps, 400 - 146 - 40 - 10);
}

/* Every GPU stream event's name in the viewer (analysis_op_name) is an op
 * of the profile, and each name's events add up to its ops' total time. */
static void assert_viewer_agrees(const struct xt_trace *t, const struct xt_analysis *a)
{
	struct name_time {
		char name[256];
		int64_t ev_ps, op_ps;
	} *v = NULL;
	size_t n = 0, h, p, l, i, k;
	char buf[256];

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *g = &t->hosts[h].planes[p];

			if (strncmp(g->name, "/device:GPU:", 12))
				continue;
			for (l = 0; l < g->nlines; l++) {
				const struct xt_line *ln = &g->lines[l];

				if (strncmp(ln->name, "Stream #", 8))
					continue;
				for (i = 0; i < ln->nev; i++) {
					if (xt_event_aggregated(&ln->ev[i]))
						continue;
					analysis_op_name(a, t, h, g, ln, &ln->ev[i], buf, sizeof(buf));
					for (k = 0; k < n && strcmp(v[k].name, buf); k++)
						;
					if (k == n) {
						v = realloc(v, (n + 1) * sizeof(*v));
						assert_non_null(v);
						memset(&v[n], 0, sizeof(*v));
						snprintf(v[n++].name, sizeof(v->name), "%s", buf);
					}
					v[k].ev_ps += xt_event_dur(ln, &ln->ev[i]);
				}
			}
		}
	for (i = 0; i < a->nops; i++)
		for (k = 0; k < n; k++)
			if (!strcmp(v[k].name, a->ops[i].name))
				v[k].op_ps += a->ops[i].total_ps;
	for (k = 0; k < n; k++)
		if (v[k].ev_ps != v[k].op_ps)
			fail_msg("%s: its events %lld ps, its ops %lld ps", v[k].name,
				 (long long)v[k].ev_ps, (long long)v[k].op_ps);
	assert_true(n > 0);
	free(v);
}

static void test_copies_by_host_call(void **state)
{
	struct xt_trace *t;
	struct xt_analysis *a;
	const struct xt_plane *g;
	const struct xt_line *c;
	char buf[128];
	size_t i;
	static const char *const want[] = { "MemcpyH2D", "MemcpyD2H", BLIT, BLIT, BLIT, BLIT };

	(void)state;
	a = tu_load_space(copies_space(0), &t);
	assert_copies(a);
	assert_viewer_agrees(t, a);
	/* The viewer's name of each event is the op it was counted under. */
	g = tu_find_plane(&t->hosts[0], "/device:GPU:0");
	c = tu_find_line(g, "Stream #17(Kernel)");
	assert_int_equal(c->nev, 6);
	for (i = 0; i < c->nev; i++)
		assert_string_equal(analysis_op_name(a, t, 0, g, c, &c->ev[i], buf, sizeof(buf)),
				    want[i]);
	c = tu_find_line(g, "Stream #16(Kernel)");
	assert_string_equal(analysis_op_name(a, t, 0, g, c, &c->ev[1], buf, sizeof(buf)),
			    "copy.1");
	/* The host's plane first: the same. */
	assert_copies(tu_load_space(copies_space(1), NULL));
}

/* Without the sink (analysis_run over a loaded trace), and with host
 * lines keeping no events (a report's load): the same. */
static void test_copies_run_and_keep_none(void **state)
{
	const char *path = tu_write(copies_space(0), 0);
	struct xt_trace *t = tu_read(path);
	struct analysis_ctx *ac = analysis_new();
	struct xplane_load_opts o = { .threads = 2 };
	struct xt_error err = { "" };
	struct xt_analysis *a;

	(void)state;
	analysis_run(ac, t);
	a = analysis_finish(ac, t);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ NULL, a }));
	assert_copies(a);

	t = trace_new();
	ac = analysis_new();
	analysis_attach(ac, &o);
	analysis_keep_none(ac, &o);
	assert_int_equal(xplane_load(t, path, "host", &o, &err), 0);
	a = analysis_finish(ac, t);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, a }));
	assert_copies(a);
}

/* A stream long enough to be cut in two pieces (stream_split_min lowered):
 * held copies of the second piece join the line's, and part the kernels
 * around them there as in the first. Kernel launches of one op on both
 * sides of a copy are two occurrences. */
/* The real MI300X profiles: the viewer names every kernel as the op
 * profile counts it. */
static void test_copies_fixtures(void **state)
{
	static const char *const f[] = { "jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb",
					  "jax-rocm-mi300x-jax08_attention/tw003.xplane.pb",
					  "jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" };
	struct xt_trace *t;
	struct xt_analysis *a;
	size_t i;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		a = tu_load(tu_fixture(f[i]), &t);
		assert_viewer_agrees(t, a);
		tu_find_op(a, "MemcpyH2D", "");
	}
}

static void test_copies_split_line(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *k = tu_line_add(g, 16, "Stream #16(Kernel)", 0);
	tu_line *th = tu_line_add(h, 7, "Host Threads/7", 0);
	struct xt_analysis *a[2];
	const struct xt_op_row *o;
	size_t run, i;

	(void)state;
	/* 40 rounds: fusion.1 as two kernels (one occurrence), an H2D copy,
	 * then fusion.1 again split around a second copy. */
	for (i = 0; i < 40; i++) {
		int64_t t0 = (int64_t)i * 1000, corr = (int64_t)i * 10;
		tu_event *e;
		static const char *const kn[4] = { "fusion_a", "fusion_b", "fusion_a", "fusion_b" };
		static const int64_t at[4] = { 0, 100, 400, 600 }, id[4] = { 1, 2, 4, 6 };
		size_t j;

		for (j = 0; j < 4; j++) {
			e = tu_ev(g, k, kn[j], t0 + at[j], 50);
			TU_SI(g, e, "correlation_id", corr + id[j]);
			TU_SS(g, e, "hlo_op", "fusion.1");
			TU_SS(g, e, "hlo_module", "jit_a");
		}
		blit(g, k, t0 + 200, 20, corr + 3, NULL);
		blit(g, k, t0 + 500, 20, corr + 5, NULL);
		call(h, th, "hipMemcpyHtoDAsync", t0 + 190, corr + 3);
		call(h, th, "hipMemcpyDtoHAsync", t0 + 490, corr + 5);
	}
	for (run = 0; run < 2; run++) {
		stream_split_min = run ? 2 : 400000;
		a[run] = tu_load_space(s, NULL);
	}
	stream_split_min = 400000;
	for (run = 0; run < 2; run++) {
		assert_int_equal(a[run]->nops, 3);
		o = tu_find_op(a[run], "fusion.1", "jit_a");
		/* fusion_a+fusion_b, then fusion_a | copy | fusion_b: 3 a round */
		assert_int_equal(o->occurrences, 120);
		assert_int_equal(o->self_ps, 40 * 200);
		o = tu_find_op(a[run], "MemcpyH2D", "");
		assert_int_equal(o->occurrences, 40);
		assert_int_equal(o->self_ps, 40 * 20);
		assert_int_equal(tu_find_op(a[run], "MemcpyD2H", "")->self_ps, 40 * 20);
		assert_int_equal(a[run]->devices[0].kernels, 160);
	}
}

/* A copy-only stream (the tracer names a line by what ran on it): a copy
 * the host does not explain keeps the line's direction, as before. A copy
 * XLA ran inside a command buffer, which the host call names: not a small
 * kernel in a command buffer either. Correlation ids a launch does not carry
 * itself (on its metadata) or that read as the pass's "none" (-2^63) say
 * nothing, in the op profile and the viewer alike. */
static void test_copies_edges(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *c = tu_line_add(g, 5, "Stream #5(MemcpyH2D)", 0);
	tu_line *k = tu_line_add(g, 6, "Stream #6(Kernel)", 0);
	tu_line *steps = tu_line_add(g, 9, "Steps", 0);
	tu_line *th = tu_line_add(h, 3, "Host Threads/3", 0);
	tu_emeta_t *m;
	tu_event *e;
	struct xt_trace *t;
	struct xt_analysis *a;
	const struct xt_device_row *dv;

	(void)state;
	blit(g, c, 0, 20, 7, NULL);
	call(h, th, "hipMemcpyAsync", 1000, 7);
	e = tu_ev(g, k, "__amd_rocclr_copyBufferAligned", 30, 5);
	TU_SI(g, e, "correlation_id", 8);
	TU_SS(g, e, "hlo_op", "command_buffer.3");
	TU_SS(g, e, "hlo_module", "jit_a");
	call(h, th, "hipMemcpyHtoDAsync", 1010, 8);
	/* The id on the metadata, not the launch. */
	m = tu_emeta_id(g, 40, "__amd_rocclr_copyBufferRect.kd", NULL);
	TU_SI(g, m, "correlation_id", 9);
	tu_event_add(k, 40, 50, 4);
	call(h, th, "hipMemcpyDtoHAsync", 1020, 9);
	/* -2^63 on both sides. */
	e = tu_ev(g, k, BLIT, 60, 3);
	TU_SU(g, e, "correlation_id", 0x8000000000000000ull);
	call(h, th, "hipMemcpyDtoHAsync", 1030, INT64_MIN);
	e = tu_ev(g, steps, "1", 0, 100);
	TU_SI(g, e, "group_id", 1);

	a = tu_load_space(s, &t);
	assert_viewer_agrees(t, a);
	/* The unexplained copy on the H2D stream: host to device, no kernel. */
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_HOST_TO_DEVICE], 20 + 5);
	assert_int_equal(a->steps[0].cat_ps[XT_CAT_DEVICE_TO_HOST], 0);
	dv = tu_find_device(a, NULL, "/device:GPU:0");
	/* The last two stay kernels (no id to match); the command buffer's copy
	 * is H2D, not a kernel, and not a small kernel in a command buffer. */
	assert_int_equal(dv->kernels, 2);
	assert_int_equal(dv->small_kernels, 2);
	assert_int_equal(dv->small_kernels_cb, 0);
	assert_int_equal(tu_find_op(a, BLIT, "")->occurrences, 2);
	assert_int_equal(tu_find_op(a, "__amd_rocclr_copyBufferRect.kd", "")->occurrences, 1);
}

static void test_copy_call_class(void **state)
{
	(void)state;
	assert_int_equal(copy_call_class("hipMemcpyHtoDAsync"), EVC_H2D);
	assert_int_equal(copy_call_class("hipMemcpyHtoD"), EVC_H2D);
	assert_int_equal(copy_call_class("hipMemcpyDtoHAsync"), EVC_D2H);
	assert_int_equal(copy_call_class("hipMemcpyDtoD"), EVC_D2D);
	assert_int_equal(copy_call_class("hipMemcpyPeerAsync"), EVC_D2D);
	assert_int_equal(copy_call_class("hipMemcpyAsync"), 0);
	assert_int_equal(copy_call_class("hipMemcpy"), 0);
	assert_int_equal(copy_call_class("hipMemsetAsync"), 0);
	assert_int_equal(copy_call_class("cuMemcpyHtoDAsync_v2"), 0); /* CUDA says it itself */
	assert_true(copy_is_blit("__amd_rocclr_copyBuffer.kd"));
	assert_true(copy_is_blit("__amd_rocclr_copyBufferAligned"));
	assert_false(copy_is_blit("__amd_rocclr_fillBufferAligned.kd"));
	assert_false(copy_is_blit("copy_kernel"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_copies_by_host_call),
		TU_TEST(test_copies_run_and_keep_none),
		TU_TEST(test_copies_split_line),
		TU_TEST(test_copies_edges),
		TU_TEST(test_copies_fixtures),
		TU_TEST(test_copy_call_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
