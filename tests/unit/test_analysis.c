/*
 * test_analysis: the analyses of docs/analyses.md on hand-built profiles (the
 * memory analysis and the sink against the decoded lines: test_memory.c).
 * Every expected number is worked out by hand in the comments (all times in
 * ps; an event at offset o on a line with timestamp 0 starts at o).
 */
#include "testutil.h"

#include <math.h>

#include "model/analysis_int.h" /* kernel_details_parse */

#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6)

static void assert_step(const struct xt_step_row *st, int64_t id, int64_t start, int64_t dur,
			int64_t compute, int64_t d2h, int64_t coll, int64_t h2d, int64_t host,
			int64_t idle)
{
	assert_int_equal(st->id, id);
	assert_int_equal(st->start_ps, start);
	assert_int_equal(st->duration_ps, dur);
	assert_int_equal(st->cat_ps[XT_CAT_DEVICE_COMPUTE], compute);
	assert_int_equal(st->cat_ps[XT_CAT_DEVICE_TO_HOST], d2h);
	assert_int_equal(st->cat_ps[XT_CAT_COLLECTIVES], coll);
	assert_int_equal(st->cat_ps[XT_CAT_HOST_TO_DEVICE], h2d);
	assert_int_equal(st->cat_ps[XT_CAT_HOST_COMPUTE], host);
	assert_int_equal(st->idle_ps, idle);
}

/* An XLA op's event metadata: HLO text as name, short display name. */
static tu_emeta_t *xla_op(tu_plane *p, int64_t id, const char *name, const char *display,
			  int64_t program, const char *category)
{
	tu_emeta_t *m = tu_emeta_id(p, id, name, display);

	TU_SI(p, m, "program_id", program);
	if (category)
		TU_SS(p, m, "hlo_category", category);
	return m;
}

/* ---- XLA-ops devices ---- */

static void test_xla_ops_busy_steps(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *meta = tu_plane_add(s, 1, "/host:metadata");
	tu_plane *d0 = tu_plane_add(s, 2, "/device:TPU:0");
	tu_plane *d1 = tu_plane_add(s, 3, "/device:TPU:1");
	tu_line *ops0, *steps0, *mods0, *ops1, *steps1;
	tu_event *e;
	struct xt_analysis *a;
	const struct xt_device_row *dv;
	const struct xt_op_row *op;

	(void)state;
	tu_emeta_id(meta, 1, "jit_step(7)", NULL);
	tu_emeta_id(meta, 2, "other_module(8)", NULL);
	xla_op(d0, 10, "%fusion.3 = f32[8]{0} fusion(f32[8]{0} %p0), kind=kLoop", "fusion.3", 7,
	       "loop fusion");
	xla_op(d0, 11, "%convolution.1 = f32[8]{0} convolution(...)", "convolution.1", 7,
	       "convolution");
	xla_op(d0, 12, "copy.2", NULL, 7, NULL);
	xla_op(d0, 13, "%all-reduce.1 = f32[8]{0} all-reduce(...)", "all-reduce.1", 7,
	       "all-reduce");
	mods0 = tu_line_add(d0, 1, "XLA Modules", 0);
	ops0 = tu_line_add(d0, 2, "XLA Ops", 0);
	steps0 = tu_line_add(d0, 3, "Steps", 0);
	/* TPU:0 XLA Ops:
	 *   fusion.3      [0,100)   children 30 + 20 -> self 100 - 50 = 50
	 *     convolution.1 [10,40) self 30
	 *     copy.2        [50,70) self 20
	 *   all-reduce.1  [150,250) self 100
	 * busy = 50 + 30 + 20 + 100 = 200. */
	tu_event_add(ops0, 10, 0, 100);
	tu_event_add(ops0, 11, 10, 30);
	tu_event_add(ops0, 12, 50, 20);
	tu_event_add(ops0, 13, 150, 100);
	/* Steps: 42 [0,400), 43 [400,500). span = 500 - 0 (XLA Ops + Steps),
	 * idle = 100 * (1 - 200/500) = 60 %. The XLA Modules line is neither. */
	e = tu_ev(d0, steps0, "42", 0, 400);
	TU_SI(d0, e, "group_id", 42);
	e = tu_ev(d0, steps0, "43", 400, 100);
	TU_SU(d0, e, "group_id", 43);
	tu_ev(d0, mods0, "jit_step(7)", 0, 900);
	/* TPU:1: fusion.3 [200,300) self 100; its Steps marker for step 42
	 * is [50,420): span = 420 - 50 = 370, idle = 100 * (1 - 100/370). */
	xla_op(d1, 10, "%fusion.3 = f32[8]{0} fusion(f32[8]{0} %p0), kind=kLoop", "fusion.3", 7,
	       "loop fusion");
	ops1 = tu_line_add(d1, 2, "XLA Ops", 0);
	steps1 = tu_line_add(d1, 3, "Steps", 0);
	tu_event_add(ops1, 10, 200, 100);
	e = tu_ev(d1, steps1, "42", 50, 370);
	TU_SI(d1, e, "group_id", 42);

	a = tu_load_space(s, NULL);
	assert_int_equal(a->ndevices, 2); /* /host:metadata is not a device */
	dv = &a->devices[0];
	assert_string_equal(dv->name, "/device:TPU:0");
	assert_int_equal(dv->kind, XT_DEV_XLA);
	assert_int_equal(dv->busy_ps, 200);
	assert_int_equal(dv->span_ps, 500);
	assert_int_equal(dv->first_ps, 0);
	assert_near(dv->idle_percent, 60.0);
	assert_int_equal(dv->op_events, 4);
	dv = &a->devices[1];
	assert_string_equal(dv->name, "/device:TPU:1");
	assert_int_equal(dv->busy_ps, 100);
	assert_int_equal(dv->span_ps, 370);
	assert_int_equal(dv->first_ps, 50);
	assert_near(dv->idle_percent, 100.0 * (1.0 - 100.0 / 370.0));
	assert_int_equal(a->busy_ps, 300); /* 200 + 100 */

	/* Ops merged over both devices by (program, name); program_id 7 is
	 * "jit_step" through /host:metadata's "jit_step(7)". By self time:
	 *   fusion.3      occ 2, self 50 + 100 = 150, total 100 + 100 = 200
	 *   all-reduce.1  occ 1, self 100
	 *   convolution.1 occ 1, self 30
	 *   copy.2        occ 1, self 20 (category from the name: "copy") */
	assert_int_equal(a->nops, 4);
	op = &a->ops[0];
	assert_string_equal(op->name, "fusion.3");
	assert_string_equal(op->program, "jit_step");
	assert_string_equal(op->category, "loop fusion");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->self_ps, 150);
	assert_int_equal(op->total_ps, 200);
	assert_near(op->percent, 50.0); /* 150 / 300 */
	op = &a->ops[1];
	assert_string_equal(op->name, "all-reduce.1");
	assert_string_equal(op->category, "all-reduce");
	assert_int_equal(op->self_ps, 100);
	assert_int_equal(op->total_ps, 100);
	op = &a->ops[2];
	assert_string_equal(op->name, "convolution.1");
	assert_int_equal(op->self_ps, 30);
	op = &a->ops[3];
	assert_string_equal(op->name, "copy.2");
	assert_string_equal(op->program, "jit_step");
	assert_string_equal(op->category, "copy");
	assert_int_equal(op->self_ps, 20);
	assert_int_equal(op->occurrences, 1);

	/* Steps: 42 is its longest marker, [0,400) on TPU:0 (TPU:1's [50,420)
	 * is 370 long), as XProf times a step; spanning both read [0,420).
	 * Its breakdown is TPU:0's: depth-0 ops fusion.3 [0,100) compute and
	 * all-reduce.1 [150,250) collective; TPU:1's fusion.3 [200,300) is
	 * TPU:1's step, run out of phase, not this one's compute.
	 *   compute     = [0,100)    = 100
	 *   collectives = [150,250)  = 100
	 *   idle        = 400 - 200  = 200
	 * 43 = [400,500): nothing runs, idle 100. */
	assert_int_equal(a->steps_from_device, 1);
	assert_int_equal(a->nsteps, 2);
	assert_step(&a->steps[0], 42, 0, 400, 100, 0, 100, 0, 0, 200);
	assert_step(&a->steps[1], 43, 400, 100, 0, 0, 0, 0, 0, 100);
	assert_int_equal(a->steps[0].dev_host, 0);
	assert_int_equal(a->steps[0].dev_plane, 1); /* /host:metadata is plane 0 */
	assert_int_equal(a->steps[1].dev_plane, 1);
	assert_int_equal(a->nmemory, 0);
	assert_int_equal(a->nkernels, 0);
}

static void test_xla_program_and_category_fallbacks(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *meta = tu_plane_add(s, 1, "/host:metadata");
	tu_plane *d = tu_plane_add(s, 2, "/device:TPU:0");
	tu_line *l = tu_line_add(d, 1, "XLA Ops", 0);
	tu_emeta_t *m;
	tu_event *e;
	struct xt_analysis *a;

	(void)state;
	tu_emeta_id(meta, 1, "jit_other(5)", NULL);
	tu_emeta_id(meta, 2, "not a module", NULL);
	xla_op(d, 1, "a.1", NULL, 99, NULL); /* id not in /host:metadata: "99" */
	m = tu_emeta_id(d, 2, "b", NULL);
	TU_SS(d, m, "hlo_module", "mod_b"); /* no program_id: the module */
	tu_emeta_id(d, 3, "c", NULL);        /* nothing: "" */
	xla_op(d, 4, "d", NULL, -1, NULL);   /* unsigned 64-bit (C3) */
	m = xla_op(d, 5, "e", NULL, 5, NULL);
	TU_SS(d, m, "hlo_module", "mod_e"); /* module(program_id) comes first */
	xla_op(d, 6, "f.2", NULL, 5, "meta_cat");
	xla_op(d, 7, "cudnn-conv.1.0", NULL, 5, NULL); /* suffixes stripped repeatedly (C6) */
	tu_event_add(l, 1, 0, 10);
	tu_event_add(l, 2, 10, 10);
	tu_event_add(l, 3, 20, 10);
	tu_event_add(l, 4, 30, 10);
	tu_event_add(l, 5, 40, 10);
	e = tu_event_add(l, 6, 50, 10);
	TU_SS(d, e, "hlo_category", "ev_cat"); /* the event's stat wins */
	tu_event_add(l, 7, 60, 10);
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nops, 7);
	assert_string_equal(tu_find_op(a, "a.1", "99")->category, "a");
	assert_string_equal(tu_find_op(a, "b", "mod_b")->category, "b");
	assert_string_equal(tu_find_op(a, "c", "")->category, "c");
	tu_find_op(a, "d", "18446744073709551615");
	tu_find_op(a, "e", "jit_other");
	assert_string_equal(tu_find_op(a, "f.2", "jit_other")->category, "ev_cat");
	assert_string_equal(tu_find_op(a, "cudnn-conv.1.0", "jit_other")->category, "cudnn-conv");
	/* Ties on self and total time: by name. */
	assert_string_equal(a->ops[0].name, "a.1");
	assert_string_equal(a->ops[6].name, "f.2");
	assert_int_equal(a->devices[0].busy_ps, 70);
	assert_int_equal(a->devices[0].span_ps, 70);
}

/* BUG (reported): XLA Ops events that overlap without nesting. C5 makes an
 * event a child only when the other's span contains it, so both are
 * top-level ops for the step breakdown; the reader's depth calls the second
 * one depth 1 ("inside every open event that ends after it starts") and the
 * breakdown, which keeps depth-0 XLA events only, drops it. */
static void test_xla_partial_overlap_breakdown(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *d = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *l = tu_line_add(d, 1, "XLA Ops", 0);
	tu_line *st = tu_line_add(d, 2, "Steps", 0);
	tu_event *e;
	struct xt_analysis *a;

	(void)state;
	xla_op(d, 1, "fusion.1", NULL, 1, NULL);
	xla_op(d, 2, "all-reduce.2", NULL, 1, "all-reduce");
	/* fusion.1 [0,100) and all-reduce.2 [50,150): neither contains the
	 * other. Self times: 100 each (no children); busy 200. */
	tu_event_add(l, 1, 0, 100);
	tu_event_add(l, 2, 50, 100);
	e = tu_ev(d, st, "s", 0, 200);
	TU_SI(d, e, "group_id", 1);
	a = tu_load_space(s, NULL);
	assert_int_equal(tu_find_op(a, "fusion.1", "1")->self_ps, 100);
	assert_int_equal(tu_find_op(a, "all-reduce.2", "1")->self_ps, 100);
	assert_int_equal(a->devices[0].busy_ps, 200);
	/* Step [0,200): compute [0,100), collectives [100,150) = 50, idle 50. */
	assert_int_equal(a->nsteps, 1);
	assert_step(&a->steps[0], 1, 0, 200, 100, 0, 50, 0, 0, 50);
}

/* n device step markers on line st of d: step k (1..n) is [100 (k - 1),
 * 100 k), with group_id k. */
static void steps_of_100(tu_plane *d, tu_line *st, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char id[8];
		tu_event *e;

		snprintf(id, sizeof(id), "%d", i + 1);
		e = tu_ev(d, st, id, 100 * i, 100);
		TU_SI(d, e, "group_id", i + 1);
	}
}

/* What the breakdown tests share: a host's thread line, and TPU:0 with its
 * XLA Ops and Steps lines (planes 1 and 2; a test adds more after). */
struct bd_fix {
	tu_space *s;
	tu_plane *h, *d0;
	tu_line *th, *ops0, *st;
};

static void bd_fix_init(struct bd_fix *f)
{
	f->s = tu_space_new();
	f->h = tu_plane_add(f->s, 1, "/host:CPU");
	f->th = tu_line_add(f->h, 1, "worker", 0);
	f->d0 = tu_plane_add(f->s, 2, "/device:TPU:0");
	f->ops0 = tu_line_add(f->d0, 1, "XLA Ops", 0);
	f->st = tu_line_add(f->d0, 2, "Steps", 0);
}

/* Three steps of 100 on TPU:0, then the profile loaded; the three steps
 * are checked to be there. */
static struct xt_analysis *bd_fix_load(struct bd_fix *f)
{
	struct xt_analysis *a;

	steps_of_100(f->d0, f->st, 3);
	a = tu_load_space(f->s, NULL);
	assert_int_equal(a->nsteps, 3);
	return a;
}

/* The breakdown sweeps two pieces of time at once, split at the median step
 * bound (here 200): what crosses it is cut in two, each piece starts its
 * lines where their block max ends say, and the second piece's lengths are
 * shifted by the first's. The steps are host markers, so that both TPUs'
 * work counts (a device's marker counts its own device's only). */
static void test_breakdown_split(void **state)
{
	struct bd_fix f;
	tu_plane *d1;
	tu_line *ops1, *mk;
	struct xt_analysis *a;
	int i;

	(void)state;
	bd_fix_init(&f);
	mk = tu_line_add(f.h, 2, "main", 0);
	for (i = 0; i < 3; i++) {
		tu_event *e = tu_ev(f.h, mk, "step", 100 * i, 100);

		TU_SI(f.h, e, "step_num", i + 1);
	}
	d1 = tu_plane_add(f.s, 3, "/device:TPU:1");
	ops1 = tu_line_add(d1, 1, "XLA Ops", 0);
	xla_op(f.d0, 1, "fusion.1", NULL, 1, NULL);
	xla_op(f.d0, 2, "all-reduce.2", NULL, 1, "all-reduce");
	xla_op(d1, 1, "fusion.1", NULL, 1, NULL);
	/* TPU:0: fusion.1 [50,250) across the split, all-reduce.2 [260,280). */
	tu_event_add(f.ops0, 1, 50, 200);
	tu_event_add(f.ops0, 2, 260, 20);
	/* TPU:1: 130 ops of 1 ps over [0,130) (three blocks, all before the
	 * split: the second piece skips them), then one at [282,286). */
	for (i = 0; i < 130; i++)
		tu_event_add(ops1, 1, i, 1);
	tu_event_add(ops1, 1, 282, 4);
	/* Host work [10,30) and [150,290), across the split. */
	tu_ev(f.h, f.th, "a", 10, 20);
	tu_ev(f.h, f.th, "b", 150, 140);
	/* Steps [0,100), [100,200), [200,300): bounds 0 100 100 200 200 300. */
	a = tu_load_space(f.s, NULL);
	assert_int_equal(a->nsteps, 3);
	assert_int_equal(a->steps_source, XT_STEPS_HOST);
	assert_int_equal(a->steps[0].dev_host, -1);
	/* [0,100): TPU:1 computes throughout (host [10,30) under it). */
	assert_step(&a->steps[0], 1, 0, 100, 100, 0, 0, 0, 0, 0);
	/* [100,200): TPU:1 to 130, fusion.1 throughout. */
	assert_step(&a->steps[1], 2, 100, 100, 100, 0, 0, 0, 0, 0);
	/* [200,300): compute [200,250) + [282,286) = 54, collectives
	 * [260,280) = 20, host [250,260) + [280,282) + [286,290) = 16, idle
	 * [290,300) = 10. */
	assert_step(&a->steps[2], 3, 200, 100, 54, 0, 20, 0, 16, 10);
}

/* Only the classes that occur are swept: here collectives and host work,
 * no device compute, so the first class has no level of its own and the
 * ones between share the collectives' union. */
static void test_breakdown_levels(void **state)
{
	struct bd_fix f;
	struct xt_analysis *a;

	(void)state;
	bd_fix_init(&f);
	xla_op(f.d0, 2, "all-reduce.2", NULL, 1, "all-reduce");
	/* all-reduce.2 [0,40) and [150,160); host work [20,70) and [155,170). */
	tu_event_add(f.ops0, 2, 0, 40);
	tu_event_add(f.ops0, 2, 150, 10);
	tu_ev(f.h, f.th, "a", 20, 50);
	tu_ev(f.h, f.th, "b", 155, 15);
	a = bd_fix_load(&f);
	/* [0,100): collectives 40, host [40,70) = 30, idle 30. */
	assert_step(&a->steps[0], 1, 0, 100, 0, 0, 40, 0, 30, 30);
	/* [100,200): collectives 10, host [160,170) = 10, idle 80. */
	assert_step(&a->steps[1], 2, 100, 100, 0, 0, 10, 0, 10, 80);
	/* [200,300): nothing. */
	assert_step(&a->steps[2], 3, 200, 100, 0, 0, 0, 0, 0, 100);
}

/* A window's cursor on a line starts where the line's last window stopped
 * only when no event before that point ends inside the new window: eight
 * steps of 100 on TPU:0 (eight windows, four to a thread). fusion.1
 * [10,250) reaches into steps 1 and 2, so their windows must read it again;
 * from step 3 on, one 1-ps op a step, where each window starts where the
 * one before stopped. */
static void test_breakdown_resume(void **state)
{
	struct bd_fix f;
	struct xt_analysis *a;
	int i;

	(void)state;
	bd_fix_init(&f);
	xla_op(f.d0, 1, "fusion.1", NULL, 1, NULL);
	xla_op(f.d0, 2, "fusion.2", NULL, 1, NULL);
	tu_event_add(f.ops0, 1, 10, 240);
	tu_event_add(f.ops0, 2, 260, 10);
	for (i = 3; i < 8; i++)
		tu_event_add(f.ops0, 2, 100 * i + 10, 1);
	steps_of_100(f.d0, f.st, 8);
	a = tu_load_space(f.s, NULL);
	assert_int_equal(a->nsteps, 8);
	/* [0,100): [10,100) = 90. [100,200): fusion.1 throughout. */
	assert_step(&a->steps[0], 1, 0, 100, 90, 0, 0, 0, 0, 10);
	assert_step(&a->steps[1], 2, 100, 100, 100, 0, 0, 0, 0, 0);
	/* [200,300): [200,250) + [260,270) = 60. */
	assert_step(&a->steps[2], 3, 200, 100, 60, 0, 0, 0, 0, 40);
	for (i = 3; i < 8; i++)
		assert_step(&a->steps[i], i + 1, 100 * i, 100, 1, 0, 0, 0, 0, 99);
}

/* ---- GPU devices ---- */

#define KD_CUDA                                                                  \
	"regs:32\nstatic_shared:1024 dynamic_shared:2048\ngrid:10,2,1 block:256,1,1 " \
	"occ_pct:50.5"
#define KD_ROCM "grid:4096,1,1 block:256,1,1 private_mem:0 group_mem:16384 occ_pct:0"

/* A kernel on a stream line with hlo_op (as a string), module and group. */
static tu_event *kernel(tu_plane *p, tu_line *l, const char *name, int64_t off, int64_t dur,
			const char *hlo_op, int64_t group, const char *details)
{
	tu_event *e = tu_ev(p, l, name, off, dur);

	if (hlo_op)
		TU_SS(p, e, "hlo_op", hlo_op);
	TU_SS(p, e, "hlo_module", "jit_train");
	TU_SI(p, e, "group_id", group);
	if (details)
		TU_SS(p, e, "kernel_details", details);
	return e;
}

/* One kernel launched for three ops in turn (as JAX runs one fusion kernel
 * in a dozen modules): each launch's op comes from its own stats, however
 * often the same (kernel, op) came before. Launch n: [100n, 100n + d) with
 * d = 10, 20, 30 by op, each in its own group. */
static void test_gpu_kernel_many_ops(void **state)
{
	static const char *const op[3] = { "convert.1", "convert.1", "convert.2" };
	static const char *const mod[3] = { "jit_a", "jit_b", "jit_a" };
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;
	const struct xt_op_row *r;
	int i;

	(void)state;
	for (i = 0; i < 12; i++) {
		tu_event *e = tu_ev(g, k, "convert_kernel", 100 * i, 10 * (i % 3 + 1));

		TU_SREF(g, e, "hlo_op", op[i % 3]);
		TU_SREF(g, e, "hlo_module", mod[i % 3]);
		TU_SI(g, e, "group_id", i);
	}
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nops, 3);
	r = tu_find_op(a, "convert.1", "jit_a");
	assert_int_equal(r->occurrences, 4);
	assert_int_equal(r->self_ps, 40);
	r = tu_find_op(a, "convert.1", "jit_b");
	assert_int_equal(r->occurrences, 4);
	assert_int_equal(r->self_ps, 80);
	r = tu_find_op(a, "convert.2", "jit_a");
	assert_int_equal(r->occurrences, 4);
	assert_int_equal(r->self_ps, 120);
}

static void test_gpu_streams(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_line *h2d = tu_line_add(g, 2, "Stream #2(MemcpyH2D)", 0);
	tu_line *d2h = tu_line_add(g, 3, "Stream #3(MemcpyD2H)", 0);
	tu_line *tfops = tu_line_add(g, 4, "TensorFlow Ops", 0);
	tu_line *byid = tu_line_add(g, 0xdeadbeefLL + 5, "derived by id", 0);
	tu_line *steps = tu_line_add(g, 6, "Steps", 0);
	tu_event *e;
	struct xt_analysis *a;
	const struct xt_device_row *dv;
	const struct xt_op_row *op;
	const struct xt_kernel_row *kr;

	(void)state;
	/* Stream #1, by start:
	 *   k1 fusion_kernel_a [0,100)   hlo_op a::b::fusion.1  group 5
	 *   k2 fusion_kernel_b [100,150) hlo_op ref "fusion.1"  group 5  -> merged with k1
	 *   k3 gemm_kernel     [200,300) dot.2                  group 5
	 *   k4 fusion_kernel_a [300,350) fusion.1               group 6  -> new occurrence
	 *   k5 gemm_kernel     [350,380) dot.2                  group 6
	 *   k6 fusion_kernel_a [380,400) fusion.1               group 6  -> new (k5 between)
	 * Written out of order to show merging follows start order. */
	kernel(g, k, "fusion_kernel_a", 380, 20, "a::b::fusion.1", 6, KD_CUDA);
	kernel(g, k, "fusion_kernel_a", 0, 100, "a::b::fusion.1", 5, KD_CUDA);
	e = kernel(g, k, "fusion_kernel_b", 100, 50, NULL, 5, KD_ROCM);
	TU_SREF(g, e, "hlo_op", "fusion.1");
	kernel(g, k, "gemm_kernel", 200, 100, "dot.2", 5, NULL);
	kernel(g, k, "fusion_kernel_a", 300, 50, "a::b::fusion.1", 6, KD_CUDA);
	kernel(g, k, "gemm_kernel", 350, 30, "dot.2", 6, NULL);
	tu_ev(g, h2d, "MemcpyH2D", 120, 60); /* [120,180) */
	tu_ev(g, d2h, "MemcpyD2H", 170, 20); /* [170,190) */
	tu_ev(g, tfops, "model/op:Op", 0, 1000); /* derived lines: not streams */
	tu_ev(g, byid, "x", 500, 1500);
	e = tu_ev(g, steps, "1", 0, 400);
	TU_SI(g, e, "group_id", 1);

	a = tu_load_space(s, NULL);
	/* busy = |[0,150) u [120,180) u [170,190) u [200,400)| = 190 + 200 = 390
	 * (the kernel times sum to 420); span = 400 - 0; idle 2.5 %. */
	assert_int_equal(a->ndevices, 1);
	dv = &a->devices[0];
	assert_int_equal(dv->kind, XT_DEV_GPU);
	assert_int_equal(dv->busy_ps, 390);
	assert_int_equal(dv->span_ps, 400);
	assert_near(dv->idle_percent, 2.5);
	assert_int_equal(dv->op_events, 8);
	assert_int_equal(a->busy_ps, 390);

	/* Ops: fusion.1 occ 3 (k1+k2, k4, k6), self 100+50+50+20 = 220;
	 * dot.2 occ 2, 100+30 = 130; MemcpyH2D 60; MemcpyD2H 20. */
	assert_int_equal(a->nops, 4);
	op = &a->ops[0];
	assert_string_equal(op->name, "fusion.1");
	assert_string_equal(op->program, "jit_train");
	assert_string_equal(op->category, "fusion");
	assert_int_equal(op->occurrences, 3);
	assert_int_equal(op->self_ps, 220);
	assert_int_equal(op->total_ps, 220);
	/* Of all ops' self time (220 + 130 + 60 + 20 = 430), not of busy
	 * (390, which the copies overlapping the kernels make smaller). */
	assert_int_equal(a->ops_self_ps, 430);
	assert_near(op->percent, 100.0 * 220.0 / 430.0);
	op = &a->ops[1];
	assert_string_equal(op->name, "dot.2");
	assert_string_equal(op->category, "dot");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->self_ps, 130);
	op = &a->ops[2];
	assert_string_equal(op->name, "MemcpyH2D");
	assert_string_equal(op->program, "");
	assert_string_equal(op->category, "memcpy");
	assert_int_equal(op->self_ps, 60);
	op = &a->ops[3];
	assert_string_equal(op->name, "MemcpyD2H");
	assert_string_equal(op->category, "memcpy");
	assert_int_equal(op->self_ps, 20);

	/* Step 1 [0,400):
	 *   compute = [0,150) + [200,400)                 = 350
	 *   H2D [120,180): [120,150) is compute, [170,180) is D2H (D2H wins) -> [150,170) = 20
	 *   D2H [170,190)                                 = 20
	 *   idle = [190,200)                              = 10 */
	assert_int_equal(a->nsteps, 1);
	assert_step(&a->steps[0], 1, 0, 400, 350, 20, 0, 20, 0, 10);

	/* Kernels (events with kernel_details only):
	 *   fusion_kernel_a / fusion.1: k1 100, k4 50, k6 20 -> occ 3, total 170,
	 *     min 20, max 100; regs 32, shared 1024 + 2048, grid 10,2,1,
	 *     block 256,1,1, occupancy 50.5
	 *   fusion_kernel_b / fusion.1 (ROCm keys): occ 1, total 50, shared 16384 */
	assert_int_equal(a->nkernels, 2);
	kr = &a->kernels[0];
	assert_string_equal(kr->name, "fusion_kernel_a");
	assert_string_equal(kr->op, "fusion.1");
	assert_int_equal(kr->occurrences, 3);
	assert_int_equal(kr->total_ps, 170);
	assert_int_equal(kr->min_ps, 20);
	assert_int_equal(kr->max_ps, 100);
	assert_int_equal(kr->registers, 32);
	assert_int_equal(kr->shared_bytes, 3072);
	assert_int_equal(kr->grid[0], 10);
	assert_int_equal(kr->grid[1], 2);
	assert_int_equal(kr->grid[2], 1);
	assert_int_equal(kr->block[0], 256);
	assert_int_equal(kr->block[1], 1);
	assert_near(kr->occupancy_percent, 50.5);
	kr = &a->kernels[1];
	assert_string_equal(kr->name, "fusion_kernel_b");
	assert_string_equal(kr->op, "fusion.1");
	assert_int_equal(kr->occurrences, 1);
	assert_int_equal(kr->total_ps, 50);
	assert_int_equal(kr->registers, -1); /* absent: not 0 */
	assert_int_equal(kr->shared_bytes, 16384);
	assert_int_equal(kr->grid[0], 4096);
	assert_int_equal(kr->block[0], 256);
	assert_true(isnan(kr->occupancy_percent)); /* ROCm's occ_pct:0 is "none" */
}

static void test_gpu_tf_ops_and_plain_kernels(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:3");
	tu_plane *g1 = tu_plane_add(s, 2, "/device:GPU:1"); /* no events */
	tu_line *l = tu_line_add(g, 7, "Stream #7(Compute)", 0);
	tu_event *e;
	struct xt_analysis *a;
	const struct xt_op_row *op;
	int i;

	(void)state;
	(void)g1;
	/* Two back-to-back launches of one TF op and of one plain kernel, same
	 * group: each launch is an occurrence (only hlo_op names merge, C10). */
	for (i = 0; i < 2; i++) {
		e = tu_ev(g, l, "volta_sgemm", i * 10, 10);
		TU_SS(g, e, "tf_op", "model/dense/MatMul:MatMul");
		TU_SI(g, e, "group_id", 1);
		e = tu_ev(g, l, "memset_kernel_3", 20 + i * 5, 5);
		TU_SI(g, e, "group_id", 1);
	}
	e = tu_ev(g, l, "conv_kernel", 40, 10);
	TU_SS(g, e, "hlo_op", "cudnn-conv.1.0");
	TU_SU(g, e, "program_id", 77); /* no module, no /host:metadata: "77" */
	a = tu_load_space(s, NULL);
	assert_int_equal(a->ndevices, 2);
	assert_int_equal(tu_find_device(a, NULL, "/device:GPU:1")->busy_ps, 0);
	assert_int_equal(tu_find_device(a, NULL, "/device:GPU:1")->span_ps, 0);
	/* No span: its idle share is unknown, not 0 (which reads as busy). */
	assert_true(isnan(tu_find_device(a, NULL, "/device:GPU:1")->idle_percent));
	assert_int_equal(tu_find_device(a, NULL, "/device:GPU:3")->busy_ps, 40); /* [0,30)+[40,50) */
	assert_int_equal(tu_find_device(a, NULL, "/device:GPU:3")->span_ps, 50);
	/* A TF op is its name and its type, as XProf shows it. */
	op = tu_find_op(a, "model/dense/MatMul", "");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->self_ps, 20);
	assert_string_equal(op->category, "MatMul"); /* the TF op type */
	assert_int_equal(op->attr, XT_ATTR_TF_OP);
	/* No counts, no rates: and the reason is given. */
	assert_true(isnan(op->flops_per_s));
	assert_non_null(strstr(op->rate_note, "TensorFlow"));
	assert_int_equal(op->nkernels, 1);
	assert_string_equal(op->kernels[0].name, "volta_sgemm");
	assert_int_equal(op->kernels[0].occurrences, 2);
	assert_int_equal(op->kernels[0].total_ps, 20);
	op = tu_find_op(a, "memset_kernel_3", "");
	assert_int_equal(op->occurrences, 2);
	assert_int_equal(op->self_ps, 10);
	assert_string_equal(op->category, "memset_kernel");
	op = tu_find_op(a, "cudnn-conv.1.0", "77");
	assert_string_equal(op->category, "cudnn-conv");
	assert_int_equal(op->attr, XT_ATTR_HLO_OP_UNCHECKED); /* no HLO to check it */
	assert_non_null(strstr(op->rate_note, "no HLO"));
	assert_int_equal(a->nops, 3);
}

/* BUG (reported): C10 says the flops/bytes of a merged occurrence come from
 * its first event; xtop adds them up for every kernel of the run. */
static void test_gpu_merged_occurrence_flops(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_event *e;
	struct xt_analysis *a;
	const struct xt_op_row *op;
	int i;

	(void)state;
	/* One fusion launched as two kernels (same hlo_op and group), each
	 * carrying the op's flops 1000 and bytes 64. */
	for (i = 0; i < 2; i++) {
		e = kernel(g, l, i ? "fusion_k2" : "fusion_k1", i * 10, 10, "fusion.9", 3, NULL);
		TU_SD(g, e, "flops", 1000.0);
		TU_SI(g, e, "bytes_accessed", 64);
	}
	a = tu_load_space(s, NULL);
	op = tu_find_op(a, "fusion.9", "jit_train");
	assert_int_equal(op->occurrences, 1);
	assert_int_equal(op->self_ps, 20);
	assert_true(op->has_flops && op->has_bytes);
	assert_near(op->flops, 1000.0);
	assert_near(op->bytes_accessed, 64.0);
}

/* An op that launches its first kernel again within one run of its program
 * (CUB's radix sort: a memset, another, a histogram, then a memset before
 * each pass) runs once a run only where the HLO places it outside loops
 * (the H200 sort fixture, test_fidelity.sh). Here there is no HLO: the op
 * could be a loop's, so each repeat of its first kernel is an occurrence,
 * with its bytes (4 a call); the op that opens the run still opens one each
 * run, and a program of one op one with each repeat of its first kernel.
 * Raw JAX profiles have no group_id: one group throughout. */
static void test_gpu_op_repeats_first_kernel(void **state)
{
	static const char *const sort[] = { "memset", "memset", "hist", "memset", "pass", "memset",
					    "pass" };
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;
	const struct xt_op_row *op;
	tu_event *e;
	int64_t t = 0;
	int c;
	size_t k;

	(void)state;
	for (c = 0; c < 3; c++) {
		kernel(g, l, "loop_select_fusion", t, 10, "loop_select_fusion", 1, NULL);
		t += 10;
		for (k = 0; k < sizeof(sort) / sizeof(sort[0]); k++, t += 5) {
			e = kernel(g, l, sort[k], t, 5, "custom-call.1", 1, NULL);
			TU_SI(g, e, "bytes_accessed", 100);
		}
	}
	for (c = 0; c < 3; c++, t += 20) {
		e = tu_ev(g, l, "gemm", t, 20);
		TU_SS(g, e, "hlo_op", "custom-call.2");
		TU_SS(g, e, "hlo_module", "jit_dot");
		TU_SI(g, e, "group_id", 1);
	}
	a = tu_load_space(s, NULL);
	op = tu_find_op(a, "custom-call.1", "jit_train");
	assert_int_equal(op->occurrences, 12);
	assert_int_equal(op->self_ps, 3 * 35);
	assert_true(op->has_bytes);
	assert_near(op->bytes_accessed, 1200.0);
	assert_int_equal(tu_find_op(a, "loop_select_fusion", "jit_train")->occurrences, 3);
	assert_int_equal(tu_find_op(a, "custom-call.2", "jit_dot")->occurrences, 3);
	/* the runs of jit_train, the most device time: three runs, two steps
	 * (the last run has no next one to end its step) */
	assert_int_equal(a->nsteps, 2);
}

/* BUG (reported): docs/analyses.md groups kernel rows by (name, op, grid,
 * block, registers, shared memory); occupancy is not part of the key. */
static void test_kernel_rows_grouping_key(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;

	(void)state;
	kernel(g, l, "k", 0, 10, "fusion.1", 1, "regs:8 grid:2,1,1 block:64,1,1 occ_pct:50");
	kernel(g, l, "k", 20, 30, "fusion.1", 2, "regs:8 grid:2,1,1 block:64,1,1 occ_pct:25");
	/* Different grid: its own row. */
	kernel(g, l, "k", 60, 5, "fusion.1", 3, "regs:8 grid:4,1,1 block:64,1,1 occ_pct:50");
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nkernels, 2);
	assert_int_equal(a->kernels[0].occurrences, 2); /* 10 + 30 */
	assert_int_equal(a->kernels[0].total_ps, 40);
	assert_int_equal(a->kernels[0].min_ps, 10);
	assert_int_equal(a->kernels[0].max_ps, 30);
	assert_int_equal(a->kernels[1].grid[0], 4);
}

/* What tells kernel rows apart (analysis_kernel_cols), which the lists
 * keep longest: rows of one kernel and op that differ by their grid, or
 * with one grid by their block; rows of other kernels or ops count for
 * nothing, nor rows past the first n. */
static void test_kernel_rows_apart(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;
	struct xt_kernel_cols kc;

	(void)state;
	kernel(g, l, "k", 0, 50, "fusion.1", 1, "grid:2,1,1 block:64,1,1");
	kernel(g, l, "j", 100, 40, "fusion.1", 2, "grid:4,1,1 block:64,1,1");
	kernel(g, l, "k", 200, 30, "fusion.2", 3, "grid:8,1,1 block:64,1,1");
	kernel(g, l, "k", 300, 20, "fusion.1", 4, "grid:2,1,1 block:32,1,1");
	kernel(g, l, "k", 400, 10, "fusion.1", 5, "grid:16,1,1 block:64,1,1");
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nkernels, 5);
	analysis_kernel_cols(a, 3, &kc); /* k, j, k of another op */
	assert_false(kc.grid_apart);
	assert_false(kc.block_apart);
	analysis_kernel_cols(a, 4, &kc); /* k/fusion.1 by its block */
	assert_false(kc.grid_apart);
	assert_true(kc.block_apart);
	analysis_kernel_cols(a, 99, &kc); /* and by its grid */
	assert_true(kc.grid_apart);
	assert_true(kc.block_apart);
}

/* Times are sums modulo 2^64: a hostile file's kernel 9.2e18 ps after a
 * line at 1 us (a fuzzer's) loads and is analysed without a signed
 * overflow (the overview's ends, the device's span, the breakdown's
 * search; the UBSan build stops at one). */
static void test_times_past_int64(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 1);
	struct xt_analysis *a;

	(void)state;
	kernel(g, l, "k", 0, 50, "fusion.1", 1, "grid:2,1,1 block:64,1,1");
	kernel(g, l, "k", INT64_MAX - 1000000, INT64_MAX / 2, "fusion.1", 2,
	       "grid:2,1,1 block:64,1,1");
	a = tu_load_space(s, NULL);
	assert_true(a->ndevices >= 1);
	assert_true(a->devices[0].span_ps > 0);
}

/* Each analysis has its own serial, also one given a freed one's address:
 * the viewer's caches of an analysis's figures are keyed by it. */
static void test_analysis_serial(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	uint64_t seen[4];
	int i, j;
	const char *path;

	(void)state;
	kernel(g, l, "k", 0, 50, "fusion.1", 1, "grid:2,1,1 block:64,1,1");
	path = tu_write(s, 0);
	for (i = 0; i < 4; i++) {
		struct load_opts o = { 0 };
		struct xt_trace *t;
		struct xt_analysis *a;
		struct xt_error err;

		assert_int_equal(load_profile(path, &o, &t, &a, &err), 0);
		seen[i] = a->serial;
		assert_true(seen[i] != 0);
		for (j = 0; j < i; j++)
			assert_true(seen[j] != seen[i]);
		/* freed here, not at teardown: the next may get its address */
		analysis_free(a);
		trace_free(t);
	}
}

/* One kernel serving seven ops in turn, with three launch shapes in turn,
 * then three others (more than the parses a line keeps per kernel), then
 * the first three again: every (shape, op) pair is its own row with all
 * its launches, as a fresh lookup of each launch would give. */
static void test_kernel_rows_rotation(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	struct xt_analysis *a;
	char op[16], kd[96];
	int i, n[6][7] = { { 0 } }, rows = 0, r;
	int64_t t[6][7] = { { 0 } };

	(void)state;
	for (i = 0; i < 420; i++) {
		int sh = (i / 7) % 3 + (i >= 140 && i < 280 ? 3 : 0), o = i % 7;
		int64_t dur = 1 + i % 11;

		snprintf(op, sizeof(op), "fusion.%d", o);
		snprintf(kd, sizeof(kd), "regs:8 grid:%d,1,1 block:64,1,1 occ_pct:50", sh + 1);
		kernel(g, l, "k", 20 * i, dur, op, i, kd);
		rows += !n[sh][o]++;
		t[sh][o] += dur;
	}
	a = tu_load_space(s, NULL);
	assert_int_equal(rows, 42);
	assert_int_equal(a->nkernels, 42);
	for (r = 0; r < (int)a->nkernels; r++) {
		const struct xt_kernel_row *kr = &a->kernels[r];
		int sh = (int)kr->grid[0] - 1, o = atoi(kr->op + strlen("fusion."));

		assert_true(sh >= 0 && sh < 6 && o >= 0 && o < 7);
		assert_int_equal(kr->occurrences, n[sh][o]);
		assert_int_equal(kr->total_ps, t[sh][o]);
	}
}

/* BUG (reported): C2 — an event's own stats are looked up by their first
 * match in file order; stat_collect keeps the last one. */
static void test_event_stat_first_match(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_event *e;
	struct xt_analysis *a;

	(void)state;
	e = kernel(g, l, "k", 0, 10, "first.1", 1, NULL);
	TU_SS(g, e, "hlo_op", "second.2");
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nops, 1);
	assert_string_equal(a->ops[0].name, "first.1");
}

/* BUG (reported): C9 — an op whose category, with its numeric suffix
 * stripped, is send/recv/send-done/recv-done is a collective. */
static void test_collective_by_sendrecv_category(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *d = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *l = tu_line_add(d, 1, "XLA Ops", 0);
	tu_line *st = tu_line_add(d, 2, "Steps", 0);
	tu_event *e;
	struct xt_analysis *a;

	(void)state;
	xla_op(d, 1, "%x.3 = token[] send(...)", "x.3", 1, "send-done.1");
	tu_event_add(l, 1, 0, 40);
	e = tu_ev(d, st, "s", 0, 100);
	TU_SI(d, e, "group_id", 1);
	a = tu_load_space(s, NULL);
	/* Step [0,100): collectives [0,40), idle 60. */
	assert_int_equal(a->nsteps, 1);
	assert_step(&a->steps[0], 1, 0, 100, 0, 0, 40, 0, 0, 60);
}

static void test_kernel_details_parse(void **state)
{
	uint32_t grid[3], block[3];
	int64_t regs, shared;
	double occ;
	unsigned bad;
	const char *s;

	(void)state;
	s = KD_CUDA;
	assert_int_equal(kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad), 6);
	assert_int_equal(regs, 32);
	assert_int_equal(shared, 3072);
	assert_int_equal(grid[0], 10);
	assert_int_equal(grid[1], 2);
	assert_int_equal(grid[2], 1);
	assert_int_equal(block[0], 256);
	assert_near(occ, 50.5);
	assert_int_equal(bad, 0);
	s = KD_ROCM;
	assert_true(kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad) > 0);
	assert_int_equal(regs, -1);
	assert_true(isnan(occ));
	assert_int_equal(shared, 16384);
	assert_int_equal(grid[0], 4096);
	assert_int_equal(block[0], 256);
	/* Missing components are 1; static and dynamic win over group_mem,
	 * and a part alone gives way to it (the whole). */
	s = "grid:7 block:32,4 static_shared:8 dynamic_shared:1 group_mem:99";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(grid[0], 7);
	assert_int_equal(grid[1], 1);
	assert_int_equal(grid[2], 1);
	assert_int_equal(block[0], 32);
	assert_int_equal(block[1], 4);
	assert_int_equal(block[2], 1);
	assert_int_equal(shared, 9);
	s = "static_shared:8 group_mem:99";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(shared, 99);
	assert_int_equal(bad, 0);
	/* Nothing known: defaults, and absent values are absent. The string is
	 * not NUL-terminated at n. */
	s = "foo bar:baz regs:12";
	assert_int_equal(kernel_details_parse(s, 11, grid, block, &regs, &shared, &occ, &bad), 0);
	assert_int_equal(bad, 0); /* absent, not impossible */
	assert_int_equal(regs, -1);
	assert_int_equal(shared, -1);
	assert_int_equal(grid[0], 1);
	assert_int_equal(block[2], 1);
	assert_true(isnan(occ));
	/* Impossible values (seen in ROCm profiles) are absent too. */
	s = "regs:2191500840 occ_pct:0 grid:1280,1,1";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(regs, -1);
	assert_true(isnan(occ));
	assert_int_equal(grid[0], 1280);
	/* ... and said to be impossible, not missing (the JSON's detail_note). */
	assert_int_equal(bad, XT_KD_BAD_REGS | XT_KD_BAD_OCC);
	/* Garbage registers beside static shared memory: the two halves of a
	 * pointer (the MI300X conv profile's), so no shared memory either. */
	s = "regs:2191500840 static_shared:32462 dynamic_shared:0 grid:1280,1,1 block:256,1,1";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(regs, -1);
	assert_int_equal(shared, -1);
	assert_int_equal(block[0], 256);
	assert_int_equal(bad, XT_KD_BAD_REGS | XT_KD_BAD_SHARED);
	/* TensorFlow's "shm" is the static part alone (its tracer records no
	 * dynamic part): the block's total is unknown, and partial, not
	 * impossible. So is a dynamic part alone. */
	s = "regs:16 shm:7 grid:1,1,1 block:32,1,1";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(regs, 16);
	assert_int_equal(shared, -1);
	assert_int_equal(bad, XT_KD_PART_SHARED);
	s = "regs:16 dynamic_shared:0";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(shared, -1);
	assert_int_equal(bad, XT_KD_PART_SHARED);
	/* More than 1 MiB a block is impossible, a part or the sum; a run of
	 * digits past int64 too (it saturates). */
	s = "regs:16 static_shared:4294967297 dynamic_shared:0";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(shared, -1);
	assert_int_equal(bad, XT_KD_BAD_SHARED);
	s = "regs:99999999999999999999999 shm:99999999999999999999999";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(regs, -1);
	assert_int_equal(shared, -1);
	assert_int_equal(bad, XT_KD_BAD_REGS | XT_KD_BAD_SHARED);
	s = "regs:16 static_shared:4294967297";
	kernel_details_parse(s, strlen(s), grid, block, &regs, &shared, &occ, &bad);
	assert_int_equal(shared, -1);
	assert_int_equal(bad, XT_KD_BAD_SHARED);
	assert_int_equal(kernel_details_parse("", 0, grid, block, &regs, &shared, &occ, &bad), 0);
	assert_int_equal(shared, -1);
	/* An empty stat value may have no bytes at all (found by fuzzing). */
	assert_int_equal(kernel_details_parse(NULL, 0, grid, block, &regs, &shared, &occ, &bad), 0);
	assert_int_equal(grid[0], 1);
}

/* A kernel row's absent figures each say why: not given, or given as an
 * impossible value. */
static void test_kernel_note(void **state)
{
	struct xt_kernel_row k;
	char b[256];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.registers = 32;
	k.shared_bytes = 0;
	k.occupancy_percent = 50;
	assert_string_equal(analysis_kernel_note(&k, b, sizeof(b)), "");
	k.registers = -1;
	k.details_bad = XT_KD_BAD_REGS;
	k.occupancy_percent = NAN;
	analysis_kernel_note(&k, b, sizeof(b));
	assert_non_null(strstr(b, "registers: impossible in its kernel_details (above 512, or negative)"));
	assert_non_null(strstr(b, "occupancy: not in its kernel_details"));
	assert_null(strstr(b, "shared"));
	analysis_kernel_note(&k, b, 80); /* whole parts only, never overrun */
	assert_string_equal(b, "registers: impossible in its kernel_details (above 512, or negative)");
	analysis_kernel_note(&k, b, 20);
	assert_string_equal(b, "");
	/* Shared memory of one part (TensorFlow's shm) says so. */
	k.registers = 32;
	k.occupancy_percent = 50;
	k.shared_bytes = -1;
	k.details_bad = XT_KD_PART_SHARED;
	analysis_kernel_note(&k, b, sizeof(b));
	assert_non_null(strstr(b, "shared memory: one part of it in its kernel_details, not the "
				  "whole (TensorFlow's shm is the static part alone)"));
}

/* ---- host step markers ---- */

static void test_host_step_markers(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_plane *g = tu_plane_add(s, 2, "/device:GPU:0");
	tu_line *main_l = tu_line_add(h, 1, "main", 0);
	tu_line *py = tu_line_add(h, 2, "python", 0);
	tu_event *e;
	struct xt_analysis *a;

	(void)state;
	/* No device Steps line, so host markers are the steps:
	 *   "train#step_num=3,_r=1#" [0,100)    TraceMe-encoded: step 3
	 *   "step" step_num=4        [100,250)  step 4
	 *   "root" _r=1 group_id=11  [300,400)  step 11
	 * Host compute: "compute" [10,60), "work" [120,130); the markers
	 * themselves and the `python` line do not count. Device: one kernel
	 * [150,200).
	 *   step 3  [0,100):   host 50,              idle 100 - 50       = 50
	 *   step 4  [100,250): compute 50, host 10,  idle 150 - 60       = 90
	 *   step 11 [300,400): nothing,              idle 100 */
	tu_ev(h, main_l, "train#step_num=3,_r=1#", 0, 100);
	tu_ev(h, main_l, "compute", 10, 50);
	e = tu_ev(h, main_l, "step", 100, 150);
	TU_SI(h, e, "step_num", 4);
	tu_ev(h, main_l, "work", 120, 10);
	e = tu_ev(h, main_l, "root", 300, 100);
	TU_SI(h, e, "_r", 1);
	TU_SU(h, e, "group_id", 11);
	tu_ev(h, py, "$train.py:10 main", 0, 250);
	tu_ev(g, tu_line_add(g, 1, "Stream #1(Kernel)", 0), "k", 150, 50);
	a = tu_load_space(s, NULL);
	assert_int_equal(a->steps_from_device, 0);
	assert_int_equal(a->nsteps, 3);
	assert_step(&a->steps[0], 3, 0, 100, 0, 0, 0, 0, 50, 50);
	assert_step(&a->steps[1], 4, 100, 150, 50, 0, 0, 0, 10, 90);
	assert_step(&a->steps[2], 11, 300, 100, 0, 0, 0, 0, 0, 100);
}

/* BUG (reported): a TraceMe name carrying `_r` and `group_id` (no
 * step_num) is a host step marker (docs: "the encoded keys become stats";
 * oracle C2/host_marker), with id group_id. */
static void test_host_marker_traceme_root_group(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(h, 1, "main", 0);
	struct xt_analysis *a;

	(void)state;
	/* Step 9 [0,100) with host compute [20,50): host 30, idle 70. */
	tu_ev(h, l, "TrainStep#_r=1,group_id=9#", 0, 100);
	tu_ev(h, l, "compute", 20, 30);
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nsteps, 1);
	assert_step(&a->steps[0], 9, 0, 100, 0, 0, 0, 0, 30, 70);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_xla_ops_busy_steps),
		TU_TEST(test_xla_program_and_category_fallbacks),
		TU_TEST(test_xla_partial_overlap_breakdown),
		TU_TEST(test_breakdown_split),
		TU_TEST(test_breakdown_levels),
		TU_TEST(test_breakdown_resume),
		TU_TEST(test_gpu_kernel_many_ops),
		TU_TEST(test_gpu_streams),
		TU_TEST(test_gpu_tf_ops_and_plain_kernels),
		TU_TEST(test_gpu_merged_occurrence_flops),
		TU_TEST(test_gpu_op_repeats_first_kernel),
		TU_TEST(test_kernel_rows_grouping_key),
		TU_TEST(test_kernel_rows_rotation),
		TU_TEST(test_event_stat_first_match),
		TU_TEST(test_collective_by_sendrecv_category),
		TU_TEST(test_kernel_details_parse),
		TU_TEST(test_kernel_note),
		TU_TEST(test_kernel_rows_apart),
		TU_TEST(test_analysis_serial),
		TU_TEST(test_times_past_int64),
		TU_TEST(test_host_step_markers),
		TU_TEST(test_host_marker_traceme_root_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
