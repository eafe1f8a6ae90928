/*
 * test_fixtures: the real profiles in ../shared/fixtures (relative to the
 * repository root, where the tests run), or in $XTOP_FIXTURES. Every expected number below was
 * derived independently by the oracle:
 *     /usr/bin/python3 tests/oracle/xspace_oracle.py FIXTURE
 * (xtop's `report --json` agrees with it on all of them). When the fixture
 * directory is absent every test is skipped.
 */
#include "testutil.h"

#include <math.h>

struct op_expect {
	const char *name; /* exact, or a prefix when name_len is set */
	size_t name_len;
	const char *program;
	uint64_t occurrences;
	int64_t self_ps;
};

struct mem_expect {
	const char *host; /* NULL: the only host */
	const char *allocator;
	int64_t peak, peak_time, lifetime_peak, capacity;
	int64_t live0; /* bytes of the largest live allocation at the peak */
};

struct fixture {
	const char *path; /* under the fixture directory */
	size_t nhosts;
	size_t events;
	size_t planes;    /* per host */
	size_t ndevices, nops, nkernels, nsteps;
	const char *busiest_host; /* NULL: any */
	const char *busiest;      /* the device with the most busy time */
	int64_t busy_ps, span_ps;
	struct op_expect ops[3];  /* the top three, in order */
	struct mem_expect mem;    /* the main allocator */
};

static const struct fixture fixtures[] = {
	{
		"tf-gpu-v100-2host", 2, 46256, 9, 16, 1332, 1330, 1,
		"34.83.195.179_6003", "/device:GPU:6", 15050451000, 490469870000,
		{
			{ "MemcpyH2D", 0, "", 404, 788794000 },
			{ "replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast",
			  0, "", 2, 493566000 },
			{ "replica_6/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast",
			  0, "", 2, 493566000 },
		},
		{ "34.83.195.180_6003", "GPU_6_bfc", 6210111488, 2587219516000, 6210111488,
		  15477102400, 62509056 },
	},
	{
		"tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb", 1, 23128, 9, 8, 1332, 1330, 1,
		NULL, "/device:GPU:6", 15050451000, 490469870000,
		{
			{ "MemcpyH2D", 0, "", 202, 394397000 },
			{ "replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast",
			  0, "", 1, 246783000 },
			{ "replica_6/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast",
			  0, "", 1, 246783000 },
		},
		{ NULL, "GPU_6_bfc", 6210111488, 2587219516000, 6210111488, 15477102400,
		  62509056 },
	},
	{
		"jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb", 1, 26723, 7, 4, 17, 0, 99,
		/* timed by the device's clock (device_offset_ps and
		 * device_duration_ps), as XProf times them */
		NULL, "/device:TPU:1", 78788304606250, 90428220550000,
		{
			{ "copy-done.4", 0, "jit_f", 400, 77773215731250 },
			{ "copy-done.2", 0, "jit_f", 400, 77642772818750 },
			{ "copy-done", 0, "jit_f", 400, 75671038513750 },
		},
		/* keyed by index_on_host, no allocator names */
		{ NULL, "0", 21492569216, 72829706942000, 21492569216, 33550237696, 821760 },
	},
	{
		/* jit_dot compiled for five shapes: five programs, each its
		 * own op row ("module(id)", as XProf keys them) */
		"jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb", 1, 3782, 11, 8, 17, 17, 17,
		NULL, "/device:GPU:0", 3475484000, 9456212000,
		{
			{ "custom-call.1", 0, "jit_dot(49)", 3, 1833003000 },
			{ "custom-call.1", 0, "jit_dot(79)", 3, 552961000 },
			{ "custom-call.1", 0, "jit_dot(34)", 3, 449280000 },
		},
		{ NULL, "GPU_0_bfc", 482345216, 6302359000, 738197504, 154606239744, 134217728 },
	},
	{
		/* 14 kernel rows: loop_convert_fusion of eight modules is nine
		 * ops (jit_add compiled for two shapes: 108 and 2.9 us a run,
		 * which one row averaged to 55.65 us) and nine rows */
		"jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb", 1, 4623, 11, 8, 14, 14, 4,
		NULL, "/device:GPU:0", 3880724000, 9977851000,
		{
			{ "loop_convert_fusion", 0, "jit_multiply", 5, 583400000 },
			{ "loop_convert_fusion", 0, "jit_add(11)", 5, 541761000 },
			{ "loop_convert_fusion", 0, "jit_sin", 5, 489521000 },
		},
		{ NULL, "GPU_0_bfc", 671286528, 7212859000, 671286528, 154606239744, 134217728 },
	},
	{
		"jax-rocm-mi300x-jax08_attention/tw003.xplane.pb", 1, 4380, 11, 8, 25, 25, 23,
		NULL, "/device:GPU:0", 3845562000, 32562841000,
		{
			{ "custom-call.1", 0, "jit_matmul(19)", 12, 468880000 },
			{ "custom-call.1", 0, "jit_matmul(73)", 3, 419080000 },
			{ "custom-call.1", 0, "jit_matmul(98)", 3, 414560000 },
		},
		{ NULL, "GPU_0_bfc", 452985344, 26372525000, 595591680, 154606239744, 251658240 },
	},
	{
		"jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", 1,
		6024, 11, 8, 5, 5, 4, NULL, "/device:GPU:7", 3586493000, 15761301000,
		{
			{ "input_transpose_fusion", 0, "jit_forward_3d_conv", 5, 1950960000 },
			{ "cudnn-conv.1.0", 0, "jit_forward_3d_conv", 5, 1539832000 },
			{ "CopyDeviceToDevice", 0, "", 53, 889028000 },
		},
		/* the kernels run on GPU 7 */
		{ NULL, "GPU_7_bfc", 1732169984, 1666331735000, 1739215104, 153800933376,
		  579072256 },
	},
};

static void check_fixture(const struct fixture *fx)
{
	const char *path = tu_fixture(fx->path);
	struct xt_trace *t;
	struct xt_analysis *a = tu_load(path, &t);
	const struct xt_device_row *best = NULL;
	const struct xt_memory_row *m;
	size_t i;

	assert_int_equal(t->nhosts, fx->nhosts);
	assert_int_equal(t->nev, fx->events);
	for (i = 0; i < t->nhosts; i++)
		assert_int_equal(t->hosts[i].nplanes, fx->planes);
	assert_int_equal(a->ndevices, fx->ndevices);
	assert_int_equal(a->nops, fx->nops);
	assert_int_equal(a->nkernels, fx->nkernels);
	assert_int_equal(a->nsteps, fx->nsteps);

	/* The busiest device (first one in file order on ties). */
	for (i = 0; i < a->ndevices; i++)
		if (!best || a->devices[i].busy_ps > best->busy_ps)
			best = &a->devices[i];
	assert_non_null(best);
	assert_string_equal(best->name, fx->busiest);
	if (fx->busiest_host)
		assert_string_equal(best->host, fx->busiest_host);
	assert_int_equal(best->busy_ps, fx->busy_ps);
	assert_int_equal(best->span_ps, fx->span_ps);
	assert_true(fabs(best->idle_percent -
			 100.0 * (1.0 - (double)fx->busy_ps / (double)fx->span_ps)) < 0.01);

	for (i = 0; i < 3; i++) {
		const struct op_expect *oe = &fx->ops[i];
		const struct xt_op_row *op = &a->ops[i];

		if (oe->name_len) {
			assert_int_equal(strlen(op->name), oe->name_len);
			assert_memory_equal(op->name, oe->name, strlen(oe->name));
		} else {
			assert_string_equal(op->name, oe->name);
		}
		assert_string_equal(op->program, oe->program);
		assert_int_equal(op->occurrences, oe->occurrences);
		assert_int_equal(op->self_ps, oe->self_ps);
	}

	m = tu_find_mem(a, fx->mem.host, fx->mem.allocator);
	assert_int_equal(m->peak_bytes, fx->mem.peak);
	assert_int_equal(m->peak_time_ps, fx->mem.peak_time);
	assert_int_equal(m->lifetime_peak_bytes, fx->mem.lifetime_peak);
	assert_int_equal(m->capacity_bytes, fx->mem.capacity);
	assert_true(m->nlive > 0);
	assert_int_equal(m->live[0].bytes, fx->mem.live0);
	/* Every allocator's peak adds up (issue: memory that adds up), and
	 * its lifetime peak is never below the profile's. */
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *r = &a->memory[i];
		int64_t sum = r->live_other_bytes + r->unattributed_bytes;
		size_t k;

		for (k = 0; k < r->nlive; k++)
			sum += r->live[k].bytes;
		assert_int_equal(sum, r->peak_bytes);
		assert_true(r->lifetime_peak_bytes >= r->peak_bytes);
		assert_true(r->unattributed_bytes >= r->reserved_bytes);
	}
	/* No rate above a device's peak, none above what any device does. */
	for (i = 0; i < a->nops; i++) {
		const struct xt_op_row *r = &a->ops[i];

		assert_true(isnan(r->flops_per_s) || r->flops_per_s <= 5e15);
		assert_true(isnan(r->hbm_bytes_per_s) || r->hbm_bytes_per_s <= 50e12);
		assert_true(isnan(r->bytes_per_s) || r->bytes_per_s <= 50e12);
		assert_true(isnan(r->flops_utilization) ||
			    (r->flops_utilization >= 0 && r->flops_utilization <= 1));
		assert_true(isnan(r->hbm_bw_utilization) ||
			    (r->hbm_bw_utilization >= 0 && r->hbm_bw_utilization <= 1));
	}
}

static void test_fixture_tf_2host(void **state)
{
	struct xt_trace *t;
	struct xt_analysis *a;
	const struct xt_step_row *st;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[0]);
	/* The run directory loads as its two hosts. */
	a = tu_load(tu_fixture("tf-gpu-v100-2host"), &t);
	assert_int_equal(t->nhosts, 2);
	assert_string_equal(t->hosts[0].name, "34.83.195.179_6003");
	assert_string_equal(t->hosts[1].name, "34.83.195.180_6003");
	assert_int_equal(t->hosts[0].nhostnames, 1);
	assert_string_equal(t->hosts[0].hostnames[0], "34.83.195.179:6003");
	/* One step (the two hosts' markers have the same id): the longest
	 * marker, GPU:6's 21.31 ms at 2.57 s (GPU:4's is 19.87 ms at 1.92 s;
	 * spanning both read 668.9 ms, 93 % idle). */
	assert_int_equal(a->steps_from_device, 1);
	assert_int_equal(a->nsteps, 1);
	st = &a->steps[0];
	assert_int_equal(st->id, 0);
	assert_int_equal(st->start_ps, 2568855601000);
	assert_int_equal(st->duration_ps, 21310352000);
	assert_int_equal(st->cat_ps[XT_CAT_DEVICE_COMPUTE], 14865363000);
	assert_int_equal(st->cat_ps[XT_CAT_COLLECTIVES], 0);
	assert_int_equal(st->cat_ps[XT_CAT_HOST_TO_DEVICE], 22432000);
	assert_int_equal(st->cat_ps[XT_CAT_DEVICE_TO_HOST], 12128000);
	assert_int_equal(st->cat_ps[XT_CAT_HOST_COMPUTE], 5931199000);
	assert_int_equal(st->idle_ps, 479230000);
}

static void test_fixture_tf_one_host(void **state)
{
	struct xt_trace *t;
	struct xt_analysis *a;
	const struct xt_plane *p;
	size_t i, negative = 0;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[1]);
	a = tu_load(tu_fixture("tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"), &t);
	/* Same step as the directory (both hosts are the same file). */
	assert_int_equal(a->nsteps, 1);
	assert_int_equal(a->steps[0].duration_ps, 21310352000);
	assert_int_equal(a->steps[0].idle_ps, 479230000);
	/* Derived lines of GPU:6 have negative ids (huge varints). */
	p = tu_find_plane(&t->hosts[0], "/device:GPU:6");
	for (i = 0; i < p->nlines; i++)
		negative += p->lines[i].id < 0;
	assert_true(negative > 0);
}

static void test_fixture_tpu(void **state)
{
	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[2]);
}

static void test_fixture_rocm_gemm(void **state)
{
	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[3]);
}

static void test_fixture_rocm_elementwise(void **state)
{
	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[4]);
}

static void test_fixture_rocm_attention(void **state)
{
	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[5]);
}

static void test_fixture_rocm_conv_legacy(void **state)
{
	struct xt_trace *t;
	size_t p, l, big = 0;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	check_fixture(&fixtures[6]);
	/* Its run directory also holds an .SSTABLE: skipped, one host. */
	tu_load(tu_fixture("jax-rocm-mi300x-conv-legacy"), &t);
	assert_int_equal(t->nhosts, 1);
	assert_int_equal(t->nev, 6024);
	assert_string_equal(t->hosts[0].name, "chi-mi300x-013.ord.vultr.cpe.ice.amd.com");
	/* Line ids >= 2^63 read back as negative int64. */
	for (p = 0; p < t->hosts[0].nplanes; p++)
		for (l = 0; l < t->hosts[0].planes[p].nlines; l++)
			big += (uint64_t)t->hosts[0].planes[p].lines[l].id >= (1ull << 63);
	assert_true(big > 0);
}

static void test_fixture_corrupt(void **state)
{
	const char *path = tu_fixture("corrupt/tpu_inference_2-utf8-mangled.xplane.pb");
	struct xt_trace *t;
	struct xt_analysis *a;
	struct xt_error err;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	assert_int_equal(tu_load_rc(path, NULL, &t, &a, &err), XT_EFORMAT);
	assert_null(t);
	assert_null(a);
	tu_assert_one_line(&err);
	assert_non_null(strstr(err.msg, "not a valid XSpace"));
	assert_int_equal(tu_read_rc(path, &err), XT_EFORMAT);
	assert_non_null(strstr(err.msg, "not a valid XSpace"));
}

static void test_fixture_sstable_alone(void **state)
{
	const char *path =
		tu_fixture("jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.SSTABLE");
	struct xt_trace *t;
	struct xt_analysis *a;
	struct xt_error err;
	int rc;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	rc = tu_load_rc(path, NULL, &t, &a, &err);
	assert_true(rc < 0);
	assert_int_equal(rc, XT_EFORMAT);
	assert_null(t);
	tu_assert_one_line(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_fixture_tf_2host),
		TU_TEST(test_fixture_tf_one_host),
		TU_TEST(test_fixture_tpu),
		TU_TEST(test_fixture_rocm_gemm),
		TU_TEST(test_fixture_rocm_elementwise),
		TU_TEST(test_fixture_rocm_attention),
		TU_TEST(test_fixture_rocm_conv_legacy),
		TU_TEST(test_fixture_corrupt),
		TU_TEST(test_fixture_sstable_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
