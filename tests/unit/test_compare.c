/*
 * Unit tests for model/compare (op matching across a recompile, per-step
 * normalisation, step percentiles, devices and memory) and the regression
 * gate of cli/diff_cmd, on analyses written out by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/diff_cmd.h"
#include "model/compare.h"

#define MS 1000000000ll /* ps */

static struct xt_op_row op(const char *prog, const char *name, const char *cat, int64_t self)
{
	struct xt_op_row r;

	memset(&r, 0, sizeof(r));
	r.program = prog;
	r.name = name;
	r.category = cat;
	r.self_ps = r.total_ps = self;
	r.occurrences = 1;
	return r;
}

static const struct xt_cmp_op *find(const struct xt_cmp *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nops; i++)
		if (!strcmp(c->ops[i].name, name))
			return &c->ops[i];
	return NULL;
}

/* Exact names first; a recompile renames program and fusions, which pair
 * by identity in order of self time; the rest is added or removed. */
static void test_matching(void **state)
{
	struct xt_op_row bo[] = {
		op("jit_step.3", "fusion.12", "loop fusion", 40 * MS),
		op("jit_step.3", "fusion.7", "loop fusion", 10 * MS),
		op("jit_step.3", "all-reduce.1", "all-reduce", 30 * MS),
		op("jit_step.3", "copy.4", "copy", 5 * MS),
		op("", "MemcpyH2D", "memcpy", 2 * MS),
	};
	struct xt_op_row no[] = {
		op("jit_step.9", "fusion.20", "loop fusion", 50 * MS),
		op("jit_step.9", "all-reduce.1", "all-reduce", 30 * MS),
		op("jit_step.9", "fusion.21", "loop fusion", 9 * MS),
		op("jit_step.9", "custom-call.2", "gemm", 8 * MS),
		op("", "MemcpyH2D", "memcpy", 3 * MS),
	};
	struct xt_analysis b, n;
	struct xt_cmp *c;
	const struct xt_cmp_op *r;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	b.ops = bo;
	b.nops = 5;
	n.ops = no;
	n.nops = 5;
	c = compare_new(&b, &n);
	assert_int_equal(c->per_step, 0);
	assert_int_equal(c->nops, 6);

	r = find(c, "fusion.20"); /* the bigger fusion pairs with the bigger one */
	assert_non_null(r);
	assert_int_equal(r->match, XT_MATCH_IDENTITY);
	assert_string_equal(r->base_name, "fusion.12");
	assert_int_equal(r->delta_ps, 10 * MS);
	assert_true(fabs(r->delta_percent - 25.0) < 1e-9);
	r = find(c, "fusion.21");
	assert_string_equal(r->base_name, "fusion.7");
	assert_true(fabs(r->delta_percent + 10.0) < 1e-9);
	/* Another program id: identity, even with the same op name. */
	assert_int_equal(find(c, "all-reduce.1")->match, XT_MATCH_IDENTITY);
	assert_int_equal(find(c, "MemcpyH2D")->match, XT_MATCH_EXACT);
	r = find(c, "custom-call.2");
	assert_int_equal(r->match, XT_MATCH_ADDED);
	assert_true(isnan(r->delta_percent));
	r = find(c, "copy.4");
	assert_int_equal(r->match, XT_MATCH_REMOVED);
	assert_int_equal(r->new_rank, SIZE_MAX);
	assert_int_equal(r->delta_ps, -5 * MS);

	/* Sorted by the size of the change, either way. */
	assert_string_equal(c->ops[0].name, "fusion.20");
	assert_string_equal(c->ops[1].name, "custom-call.2");
	assert_string_equal(c->ops[2].name, "copy.4");
	compare_free(c);
}

/* One module compiled for several shapes is several programs, "module(id)"
 * (analysis's split_progs); a recompile gives other ids. Each GEMM pairs
 * with the one of its work, not by the ids nor by order. */
static void test_matching_program_ids(void **state)
{
	struct xt_op_row bo[] = {
		op("jit_dot(49)", "custom-call.1", "gemm", 40 * MS),
		op("jit_dot(21)", "custom-call.1", "gemm", 1 * MS),
	};
	struct xt_op_row no[] = {
		op("jit_dot(7)", "custom-call.1", "gemm", 3 * MS),
		op("jit_dot(12)", "custom-call.1", "gemm", 2 * MS),
	};
	struct xt_analysis b, n;
	struct xt_cmp *c;
	size_t i;

	(void)state;
	/* 7 does 21's work (1 GFLOP), 12 does 49's (100 GFLOP). */
	bo[0].has_flops = bo[0].has_bytes = bo[1].has_flops = bo[1].has_bytes = 1;
	no[0].has_flops = no[0].has_bytes = no[1].has_flops = no[1].has_bytes = 1;
	bo[0].flops = no[1].flops = 1e11;
	bo[1].flops = no[0].flops = 1e9;
	bo[0].bytes_accessed = no[1].bytes_accessed = 1e8;
	bo[1].bytes_accessed = no[0].bytes_accessed = 1e7;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	b.ops = bo;
	b.nops = 2;
	n.ops = no;
	n.nops = 2;
	c = compare_new(&b, &n);
	assert_int_equal(c->nops, 2);
	for (i = 0; i < c->nops; i++) {
		const struct xt_cmp_op *r = &c->ops[i];

		assert_int_equal(r->match, XT_MATCH_IDENTITY);
		assert_int_equal(r->base_ps, !strcmp(r->program, "jit_dot(7)") ? 1 * MS : 40 * MS);
	}
	compare_free(c);
	/* A GEMM implemented another way (a custom call, then a fusion)
	 * pairs by its work across the ids too. */
	bo[0].name = "custom-call.1";
	no[1].name = "gemm_fusion_dot.3";
	no[1].category = "custom fusion";
	c = compare_new(&b, &n);
	assert_int_equal(c->nops, 2);
	for (i = 0; i < c->nops; i++)
		if (!strcmp(c->ops[i].name, "gemm_fusion_dot.3")) {
			assert_int_equal(c->ops[i].match, XT_MATCH_WORK);
			assert_int_equal(c->ops[i].base_ps, 40 * MS);
		}
	compare_free(c);
	/* Two fusions of other kinds that do equal work (an input fusion's
	 * reduce, a loop fusion's dynamic-update-slice) are not one op. */
	bo[0].name = "input_reduce_fusion";
	bo[0].category = "input fusion";
	no[1].name = "loop_dynamic_update_slice_fusion.1";
	no[1].category = "loop fusion";
	c = compare_new(&b, &n);
	assert_int_equal(c->nops, 3);
	assert_int_equal(find(c, "loop_dynamic_update_slice_fusion.1")->match, XT_MATCH_ADDED);
	compare_free(c);
}

/* Per step when both have steps; nearest-rank percentiles. */
static void test_steps(void **state)
{
	struct xt_step_row bs[4], ns[2];
	struct xt_op_row bo[] = { op("p", "dot.1", "gemm", 80 * MS) };
	struct xt_op_row no[] = { op("p", "dot.1", "gemm", 60 * MS) };
	struct xt_analysis b, n;
	struct xt_cmp *c;
	int64_t bd[4] = { 10 * MS, 40 * MS, 20 * MS, 30 * MS };
	size_t i;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	memset(bs, 0, sizeof(bs));
	memset(ns, 0, sizeof(ns));
	for (i = 0; i < 4; i++)
		bs[i].duration_ps = bd[i];
	ns[0].duration_ps = ns[1].duration_ps = 30 * MS;
	b.steps = bs;
	b.nsteps = 4;
	n.steps = ns;
	n.nsteps = 2;
	b.ops = bo;
	b.nops = 1;
	n.ops = no;
	n.nops = 1;
	b.busy_ps = 100 * MS;
	n.busy_ps = 70 * MS;
	assert_true(analysis_step_percentile(&b, 50) == 20 * MS);
	assert_true(analysis_step_percentile(&b, 95) == 40 * MS);
	assert_true(analysis_step_percentile(&b, 25) == 10 * MS);
	c = compare_new(&b, &n);
	assert_int_equal(c->per_step, 1);
	assert_true(c->step_mean.has);
	assert_true(c->step_mean.base == 25.0 * MS);
	assert_true(c->step_mean.new_ == 30.0 * MS);
	assert_true(fabs(c->step_mean.delta_percent - 20.0) < 1e-9);
	/* 80 ms over 4 steps against 60 ms over 2: 20 -> 30 ms a step. */
	assert_int_equal(c->ops[0].base_ps, 20 * MS);
	assert_int_equal(c->ops[0].new_ps, 30 * MS);
	assert_true(fabs(c->ops[0].delta_percent - 50.0) < 1e-9);
	assert_true(c->busy.base == 25.0 * MS && c->busy.new_ == 35.0 * MS);
	compare_free(c);

	/* One side without steps: per run, and no step numbers at all. */
	n.nsteps = 0;
	c = compare_new(&b, &n);
	assert_int_equal(c->per_step, 0);
	assert_false(c->step_mean.has);
	assert_int_equal(c->ops[0].base_ps, 80 * MS);
	compare_free(c);
}

static void test_devices_memory(void **state)
{
	struct xt_device_row bd[2], nd[2];
	struct xt_memory_row bm[1], nm[1];
	struct xt_analysis b, n;
	struct xt_cmp *c;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	memset(bd, 0, sizeof(bd));
	memset(nd, 0, sizeof(nd));
	memset(bm, 0, sizeof(bm));
	memset(nm, 0, sizeof(nm));
	bd[0].host = "a";
	bd[0].name = "/device:GPU:0";
	bd[0].busy_ps = 5;
	bd[0].op_events = 3;
	bd[0].span_ps = 9;
	bd[1].host = "a";
	bd[1].name = "/device:GPU:1";
	nd[0].host = "b"; /* another capture's host name: matched by device */
	nd[0].name = "/device:GPU:0";
	nd[0].busy_ps = 7;
	nd[0].op_events = 4;
	nd[0].span_ps = 9;
	nd[1].host = "b";
	nd[1].name = "/device:GPU:2";
	b.devices = bd;
	b.ndevices = 2;
	n.devices = nd;
	n.ndevices = 2;
	bm[0].host = nm[0].host = "a";
	bm[0].allocator = nm[0].allocator = "GPU_0_bfc";
	bm[0].name = nm[0].name = "GPU:0 HBM";
	bm[0].peak_bytes = 100;
	nm[0].peak_bytes = 150;
	b.memory = bm;
	b.nmemory = 1;
	n.memory = nm;
	n.nmemory = 1;
	c = compare_new(&b, &n);
	assert_int_equal(c->ndevs, 3);
	assert_true(c->devs[0].in_base && c->devs[0].in_new);
	assert_int_equal(c->devs[0].base_busy_ps, 5);
	assert_int_equal(c->devs[0].new_busy_ps, 7);
	assert_true(c->devs[0].base_known && c->devs[0].new_known);
	assert_true(!c->devs[1].in_base && c->devs[1].in_new);
	assert_true(c->devs[2].in_base && !c->devs[2].in_new);
	/* GPU:1 has no events: its busy time is unknown, not 0. */
	assert_false(c->devs[2].base_known);
	assert_int_equal(c->nmem, 1);
	assert_int_equal(c->mem[0].new_peak - c->mem[0].base_peak, 50);
	assert_true(c->busy.has);
	compare_free(c);
	/* NEW without device events (a failed device tracer): its busy time
	 * is not 0, so no change is shown, only BASE's. */
	nd[0].op_events = 0;
	nd[0].span_ps = 0;
	c = compare_new(&b, &n);
	assert_false(c->busy.has);
	assert_int_equal(c->busy.sides, 1);
	assert_false(c->devs[0].new_known);
	compare_free(c);
}

/* A pair that does other work is scaled to BASE's work by what bounds
 * NEW's op: bytes when it is memory-bound (a third of the FLOPs over the
 * same bytes takes as long), else FLOPs. */
static void test_work_ratio(void **state)
{
	struct xt_op_row bo[] = { op("p", "fusion.1", "loop fusion", 20 * MS) };
	struct xt_op_row no[] = { op("p", "fusion.1", "loop fusion", 38 * MS) };
	struct xt_analysis b, n;
	struct xt_cmp *c;

	(void)state;
	bo[0].has_flops = bo[0].has_bytes = no[0].has_flops = no[0].has_bytes = 1;
	bo[0].flops = 3e8;
	no[0].flops = 1e8;
	bo[0].bytes_accessed = no[0].bytes_accessed = 5e7;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	b.ops = bo;
	b.nops = 1;
	n.ops = no;
	n.nops = 1;
	no[0].bound_by = XT_BOUND_MEMORY;
	c = compare_new(&b, &n);
	assert_int_equal(c->nops, 1);
	assert_true(c->ops[0].work_differs);
	assert_true(fabs(c->ops[0].work_ratio - 1.0) < 1e-9);
	compare_free(c);
	no[0].bound_by = XT_BOUND_COMPUTE;
	c = compare_new(&b, &n);
	assert_true(fabs(c->ops[0].work_ratio - 1.0 / 3) < 1e-9);
	compare_free(c);
}

/* The gate: the step mean, the top 20 ops of NEW, and ops new among them. */
static void test_gate(void **state)
{
	struct xt_op_row bo[25], no[26];
	struct xt_device_row dev;
	char names[26][16];
	struct xt_analysis b, n;
	struct xt_cmp *c;
	struct diff_regression reg[DIFF_GATE_MAX];
	struct strbuf s;
	size_t i, k;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&n, 0, sizeof(n));
	/* A device with events on both sides: their busy times are known. */
	memset(&dev, 0, sizeof(dev));
	dev.host = "h";
	dev.name = "/device:GPU:0";
	dev.op_events = 1;
	dev.span_ps = 1;
	b.devices = n.devices = &dev;
	b.ndevices = n.ndevices = 1;
	for (i = 0; i < 25; i++) {
		snprintf(names[i], sizeof(names[i]), "op%zu", i);
		bo[i] = op("p", names[i], "c", (int64_t)(100 - i) * MS);
		no[i] = bo[i];
	}
	b.ops = bo;
	b.nops = 25;
	n.ops = no;
	n.nops = 25;
	c = compare_new(&b, &n);
	assert_int_equal(diff_gate(c, 0, reg), 0);
	compare_free(c);

	/* op3 +30 %: over 25, not over 35. op24 (rank 24) doubles: ignored. */
	no[3].self_ps = bo[3].self_ps * 13 / 10;
	no[24].self_ps = bo[24].self_ps * 2;
	c = compare_new(&b, &n);
	k = diff_gate(c, 25, reg);
	assert_int_equal(k, 1);
	assert_string_equal(reg[0].what, "op");
	assert_string_equal(reg[0].name, "op3");
	assert_true(fabs(reg[0].delta_percent - 30.0) < 1e-9);
	assert_int_equal(diff_gate(c, 35, reg), 0);
	strbuf_init(&s);
	diff_gate_text(&s, reg, k, 25);
	assert_non_null(strstr(s.buf, "op p/op3 self time"));
	strbuf_reset(&s);
	diff_gate_json(&s, reg, k, 25);
	assert_non_null(strstr(s.buf, "\"failed\":true"));
	strbuf_fini(&s);
	compare_free(c);

	/* A new op among the top 20 of NEW fails the gate at any limit. */
	no[3].self_ps = bo[3].self_ps;
	no[24].self_ps = bo[24].self_ps;
	snprintf(names[25], sizeof(names[25]), "newop");
	no[25] = op("p", names[25], "c", 1);
	memmove(&no[1], &no[0], 25 * sizeof(no[0]));
	no[0] = op("p", names[25], "c", 500 * MS);
	n.nops = 26;
	c = compare_new(&b, &n);
	k = diff_gate(c, 1000, reg);
	assert_int_equal(k, 1);
	assert_true(reg[0].added);
	compare_free(c);

	/* No steps: the summed device time is the whole. */
	b.busy_ps = 100 * MS;
	n.busy_ps = 111 * MS;
	n.ops = bo;
	n.nops = 25;
	c = compare_new(&b, &n);
	k = diff_gate(c, 10, reg);
	assert_int_equal(k, 1);
	assert_string_equal(reg[0].what, "busy");
	assert_int_equal(diff_gate(c, 11.5, reg), 0);
	compare_free(c);
}

/* Labels: the new name whole, the old one from where the two differ. */
static void test_op_label(void **state)
{
	static const struct {
		const char *program, *name, *base;
		enum xt_match match;
		const char *want;
	} c[] = {
		{ "jit_step", "fusion.20", "fusion.12", XT_MATCH_IDENTITY, "jit_step/fusion.20 (was .12)" },
		{ "jit_train_step", "gemm_fusion_dot.68", "gemm_fusion_dot.8", XT_MATCH_IDENTITY,
		  "jit_train_step/gemm_fusion_dot.68 (was .8)" },
		{ "", "jit_step.9", "jit_step.3", XT_MATCH_IDENTITY, "jit_step.9 (was .3)" },
		{ "p", "copy", "convert", XT_MATCH_IDENTITY, "p/copy (was convert)" },
		{ "p", "fusion.2", "fusion.2", XT_MATCH_IDENTITY, "p/fusion.2" },
		{ "p", "fusion.2", "fusion.2", XT_MATCH_EXACT, "p/fusion.2" },
		{ "", "MemcpyH2D", "", XT_MATCH_ADDED, "MemcpyH2D" },
	};
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct xt_cmp_op o = { .name = c[i].name, .base_name = c[i].base,
				       .program = c[i].program, .match = c[i].match };

		compare_op_label(&o, buf, sizeof(buf));
		assert_string_equal(buf, c[i].want);
	}
}

/* A label the buffer cut short, right after " (was " or inside OLD:
 * the fit read OLD's length as (size_t)-1 and copied that much. */
static void test_op_label_fit_cut(void **state)
{
	static char name[4096], base[4096];
	char buf[4096];
	size_t k;

	(void)state;
	for (k = 4080; k <= 4090; k++) {
		memset(name, 'a', k);
		memcpy(name + k - 2, ".1", 3);
		memcpy(base, name, k + 1);
		base[k - 1] = '2';
		{
			struct xt_cmp_op o = { .name = name, .base_name = base, .program = "p",
					       .match = XT_MATCH_IDENTITY };

			compare_op_label_fit(&o, buf, sizeof(buf), 60, "..", 1);
			assert_true(strlen(buf) < sizeof(buf));
			assert_null(strstr(buf, " (was "));
		}
	}
	{
		struct xt_cmp_op o = { .name = "fusion.20", .base_name = "fusion.12",
				       .program = "p", .match = XT_MATCH_IDENTITY };

		compare_op_label_fit(&o, buf, sizeof(buf), 0, "..", 0);
		assert_string_equal(buf, "fusion.20 (was .12)");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_matching_program_ids),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_devices_memory),
		cmocka_unit_test(test_work_ratio),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_op_label),
		cmocka_unit_test(test_op_label_fit_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
