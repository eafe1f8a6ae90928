/*
 * Several hosts on one clock (src/model/clock.c; docs/analyses.md, "Time
 * base" and "Several hosts"): run directories of hosts whose Task
 * Environment starts differ by known amounts, hosts on a shared absolute
 * clock, a host with no start time, and the skew estimated from the same
 * collectives or steps with a known injected offset.
 */
#include "testutil.h"

#include "model/clock.h"

#define S0 1741722099081044120LL /* a profile_start_time (wall ns) */
#define MS 1000000LL             /* ns */

/* A host as upstream writes it: lines relative to its own start, which is
 * `start` ns on the wall clock (0: no Task Environment). */
static tu_space *host_space(int64_t start)
{
	tu_space *s = tu_space_new();

	if (start) {
		tu_plane *te = tu_plane_add(s, 99, "Task Environment");

		TU_SU(te, te, "profile_start_time", (uint64_t)start);
		TU_SU(te, te, "profile_stop_time", (uint64_t)start + (uint64_t)(60000 * MS));
	}
	return s;
}

/* An XLA Ops line on a new TPU plane; line timestamp 0. */
static tu_line *tpu_ops(tu_space *s, const char *plane, tu_plane **pp)
{
	*pp = tu_plane_add(s, (int64_t)s->n_planes + 1, plane);
	return tu_line_add(*pp, 3, "XLA Ops", 0);
}

/* An event named name that happens at wall time `at` (ns) on a host that
 * started at `start`: normalized offset at - start. */
static void at_wall(tu_plane *p, tu_line *l, const char *name, int64_t start, int64_t at_ns,
		    int64_t dur_ps)
{
	tu_ev(p, l, name, (at_ns - start) * 1000, dur_ps);
}

static const char *write_run(const char *dir, const char *host, const tu_space *s)
{
	return tu_write_at(s, tu_fmt("%s/%s.xplane.pb", dir, host), 0);
}

/* The start of the first event of the plane's line, as shown (ps after the
 * trace's origin). */
static int64_t shown_start(const struct xt_trace *t, size_t h, const char *plane, const char *line)
{
	const struct xt_line *l = tu_find_line(tu_find_plane(&t->hosts[h], plane), line);

	assert_true(l->nev > 0);
	return trace_rel_ps(t, xt_event_start(l, &l->ev[0]));
}

/* Three hosts that started 5 ms and 2 ms apart run one op at the same wall
 * instant: after alignment it shows at the same time on all three, and
 * every analysis agrees (devices' first event). */
static void test_task_env_starts(void **state)
{
	const int64_t starts[3] = { S0, S0 + 5 * MS, S0 - 2 * MS };
	const int64_t at = S0 + 10 * MS;
	const char *dir = tu_mkdtemp();
	struct xt_trace *t;
	struct xt_analysis *a;
	size_t h;

	(void)state;
	for (h = 0; h < 3; h++) {
		tu_space *s = host_space(starts[h]);
		tu_plane *p;
		tu_line *l = tpu_ops(s, "/device:TPU:0", &p);

		at_wall(p, l, "fusion.1", starts[h], at, 400000);
		write_run(dir, tu_fmt("h%zu", h), s);
	}
	a = tu_load(dir, &t);
	assert_int_equal(t->nhosts, 3);
	/* h2 started first: it is the origin; the others sit at their start. */
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[2]), 0);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[0]), 2 * MS * 1000);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[1]), 7 * MS * 1000);
	for (h = 0; h < 3; h++) {
		assert_int_equal(t->hosts[h].aligned_by, XT_ALIGN_TASK_ENV);
		assert_int_equal(t->hosts[h].origin_kind, XT_ORIGIN_NORMALIZED);
		assert_int_equal(shown_start(t, h, "/device:TPU:0", "XLA Ops"), 12 * MS * 1000);
	}
	assert_int_equal(a->ndevices, 3);
	for (h = 0; h < 3; h++)
		assert_int_equal(a->devices[h].first_ps - a->origin_ps, 12 * MS * 1000);
}

/* Hosts on an absolute epoch clock share it, and a normalized host with a
 * start joins them on it: one instant shows as one time. */
static void test_shared_clock(void **state)
{
	const int64_t at = S0 + 40 * MS;
	const char *dir = tu_mkdtemp();
	struct xt_trace *t;
	size_t h;

	(void)state;
	for (h = 0; h < 2; h++) {
		/* A raw XSpace (as a PJRT plugin returns it): absolute line
		 * timestamps, no Task Environment; h1's first line 1 ms later. */
		tu_space *s = tu_space_new();
		tu_plane *p = tu_plane_add(s, 1, "/device:GPU:0");
		tu_line *l = tu_line_add(p, 1, "Stream #1(Compute)", S0 + (int64_t)h * MS);

		tu_ev(p, l, "k", (at - (S0 + (int64_t)h * MS)) * 1000, 500);
		write_run(dir, tu_fmt("h%zu", h), s);
	}
	{
		tu_space *s = host_space(S0 + 30 * MS);
		tu_plane *p;
		tu_line *l = tpu_ops(s, "/device:TPU:0", &p);

		at_wall(p, l, "fusion.1", S0 + 30 * MS, at, 500);
		write_run(dir, "h2", s);
	}
	tu_load(dir, &t);
	assert_int_equal(t->hosts[0].aligned_by, XT_ALIGN_SHARED_CLOCK);
	assert_int_equal(t->hosts[1].aligned_by, XT_ALIGN_SHARED_CLOCK);
	assert_int_equal(t->hosts[2].aligned_by, XT_ALIGN_TASK_ENV);
	assert_int_equal(t->hosts[0].origin_kind, XT_ORIGIN_FIRST_LINE);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[0]), 0);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[1]), MS * 1000);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[2]), 30 * MS * 1000);
	assert_int_equal(shown_start(t, 0, "/device:GPU:0", "Stream #1(Compute)"), 40 * MS * 1000);
	assert_int_equal(shown_start(t, 1, "/device:GPU:0", "Stream #1(Compute)"), 40 * MS * 1000);
	assert_int_equal(shown_start(t, 2, "/device:TPU:0", "XLA Ops"), 40 * MS * 1000);
}

/* A host without a start time cannot be aligned: it says so, and its own
 * zero stays at the trace clock's base (the first host with a start). */
static void test_no_start_time(void **state)
{
	const char *dir = tu_mkdtemp();
	const int64_t starts[3] = { S0, 0, S0 - 5 * MS };
	struct xt_trace *t;
	struct xt_analysis *a;
	struct xt_error err;
	size_t h;

	(void)state;
	for (h = 0; h < 3; h++) {
		tu_space *s = host_space(starts[h]);
		tu_plane *p;
		tu_line *l = tpu_ops(s, "/device:TPU:0", &p);

		tu_ev(p, l, "fusion.1", 1000000, 500);
		write_run(dir, tu_fmt("h%zu", h), s);
	}
	tu_load(dir, &t);
	assert_int_equal(t->hosts[0].aligned_by, XT_ALIGN_TASK_ENV);
	assert_int_equal(t->hosts[1].aligned_by, XT_ALIGN_NONE);
	assert_int_equal(t->hosts[2].aligned_by, XT_ALIGN_TASK_ENV);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[2]), 0);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[0]), 5 * MS * 1000);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[1]), 5 * MS * 1000);
	/* Nothing to match: no skew. */
	for (h = 0; h < 3; h++)
		assert_true(t->hosts[h].skew_method == XT_SKEW_NONE ||
			    t->hosts[h].skew_method == XT_SKEW_REFERENCE);

	/* One host: nothing is shifted, no skew; without a start: none. */
	assert_int_equal(tu_load_rc(tu_fmt("%s/h1.xplane.pb", dir), NULL, &t, &a, &err), 0);
	assert_int_equal(t->hosts[0].aligned_by, XT_ALIGN_NONE);
	assert_int_equal(t->hosts[0].skew_method, XT_SKEW_NONE);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[0]), 0);
}

/*
 * Hosts whose collectives end together, but whose wall clock reads `skew`
 * ns ahead on host 1: its Task Environment start reads later, so after the
 * placement its events show `skew` late. Each all-reduce end gets a little
 * noise (up to `jitter` ps either way). n collectives per device, one every
 * period_ps, two devices per host; a third host has no collective at all.
 */
static struct xt_trace *skewed_run(int64_t skew, int64_t jitter, int n, int third,
				   int64_t period_ps, struct xt_analysis **a)
{
	const char *dir = tu_mkdtemp();
	uint64_t rs = 7;
	struct xt_trace *t;
	struct xt_analysis *an;
	int h, d, i;

	for (h = 0; h < 2 + third; h++) {
		int64_t start = S0 + (h == 1 ? skew : 0);
		tu_space *s = host_space(start);

		for (d = 0; d < 2; d++) {
			tu_plane *p;
			tu_line *l = tpu_ops(s, tu_fmt("/device:TPU:%d", d), &p);
			tu_emeta_t *m = tu_emeta_id(p, 50, "%all-reduce.7 = f32[] all-reduce()",
						    "all-reduce.7");

			TU_SI(p, m, "program_id", 12);
			for (i = 0; i < n; i++) {
				/* Normalized: the same on every host (clocks differ,
				 * not the run); the noise is per host and device. */
				int64_t off = (int64_t)i * period_ps;
				int64_t noise = jitter ? tu_rand_range(&rs, -jitter, jitter) : 0;

				tu_ev(p, l, "fusion.1", off, period_ps / 4);
				if (h < 2)
					tu_event_add(l, 50, off + period_ps * 3 / 10,
						     period_ps / 10 + noise);
			}
		}
		write_run(dir, tu_fmt("h%d", h), s);
	}
	an = tu_load(dir, &t);
	if (a)
		*a = an;
	return t;
}

/* Host 1's start relative to host 0's, as shown. */
static int64_t rel_start(const struct xt_trace *t, size_t h)
{
	return clock_host_offset_ps(t, &t->hosts[h]) - clock_host_offset_ps(t, &t->hosts[0]);
}

static void test_skew_from_collectives(void **state)
{
	struct xt_trace *t;
	struct xt_analysis *a;
	const int64_t skew = 250000; /* 250 us */
	int64_t moved;
	size_t d;

	(void)state;
	/* Robust: 40 matched ends, within 1 us of each other. */
	t = skewed_run(skew, 1000000, 20, 1, 20 * MS * 1000, &a);
	assert_int_equal(t->hosts[0].skew_method, XT_SKEW_REFERENCE);
	assert_int_equal(t->hosts[1].skew_method, XT_SKEW_COLLECTIVES);
	assert_int_equal(t->hosts[1].skew_matches, 40);
	assert_true(llabs(t->hosts[1].skew_ps - skew * 1000) <= 2000000);
	assert_true(t->hosts[1].skew_spread_ps <= 2000000);
	assert_int_equal(t->hosts[1].skew_corrected, 1);
	/* Moved back by the estimate (to the ns): its fusions line up with
	 * the reference's again. */
	moved = ((t->hosts[1].skew_ps + 500) / 1000) * 1000;
	assert_int_equal(rel_start(t, 1), skew * 1000 - moved);
	assert_true(llabs(rel_start(t, 1)) <= 2000000);
	/* The host with nothing to match has no estimate (JSON null). */
	assert_int_equal(t->hosts[2].skew_method, XT_SKEW_NONE);
	assert_int_equal(t->hosts[2].skew_corrected, 0);
	/* The analyses ran on the moved lines: every device's first event
	 * (a fusion at the same normalized time on every host) lines up. */
	assert_int_equal(a->ndevices, 6);
	for (d = 0; d < a->ndevices; d++)
		assert_true(llabs(a->devices[d].first_ps - a->devices[0].first_ps) <= 2000000);

	/* The same offsets, but they disagree (noise 200 us around a 100 us
	 * skew): reported, not corrected. */
	t = skewed_run(100000, 200000000, 20, 0, 20 * MS * 1000, NULL);
	assert_int_equal(t->hosts[1].skew_method, XT_SKEW_COLLECTIVES);
	assert_true(t->hosts[1].skew_spread_ps * 4 > llabs(t->hosts[1].skew_ps));
	assert_int_equal(t->hosts[1].skew_corrected, 0);
	assert_int_equal(rel_start(t, 1), 100000 * 1000);

	/* Too few matches (3 per device): reported, not corrected. */
	t = skewed_run(skew, 0, 3, 0, 20 * MS * 1000, NULL);
	assert_int_equal(t->hosts[1].skew_matches, 6);
	assert_int_equal(t->hosts[1].skew_ps, skew * 1000);
	assert_int_equal(t->hosts[1].skew_spread_ps, 0);
	assert_int_equal(t->hosts[1].skew_corrected, 0);
	assert_int_equal(rel_start(t, 1), skew * 1000);

	/* No skew: nothing moves. */
	t = skewed_run(0, 0, 20, 0, 20 * MS * 1000, NULL);
	assert_int_equal(t->hosts[1].skew_ps, 0);
	assert_int_equal(t->hosts[1].skew_corrected, 0);

	/* A collective that repeats every 1 ms (inside a loop) can only be
	 * matched up to its period: a 1.3 ms skew would read as 0.3 ms. Such
	 * repeats never decide: no estimate, nothing moves. */
	t = skewed_run(1300000, 0, 40, 0, MS * 1000, NULL);
	assert_int_equal(t->hosts[1].skew_method, XT_SKEW_NONE);
	assert_int_equal(t->hosts[1].skew_corrected, 0);
	assert_int_equal(rel_start(t, 1), 1300000 * 1000);
	/* Repeats 20 ms apart, a skew of 15 ms: the nearest end is 5 ms away,
	 * the next 15 ms: ambiguous, left out. */
	t = skewed_run(15 * MS, 0, 20, 0, 20 * MS * 1000, NULL);
	assert_int_equal(t->hosts[1].skew_method, XT_SKEW_NONE);
	assert_int_equal(t->hosts[1].skew_corrected, 0);
}

/* Device Steps lines: the same step id on two hosts, host 1's clock 3 ms
 * ahead. Steps give an estimate but never move a host. An id that numbers
 * a different step on each host (no overlap) is no match. */
static void test_skew_from_steps(void **state)
{
	const char *dir = tu_mkdtemp();
	struct xt_trace *t;
	int h, i;

	(void)state;
	for (h = 0; h < 2; h++) {
		int64_t start = S0 + (h ? 3 * MS : 0);
		tu_space *s = host_space(start);
		tu_plane *p = tu_plane_add(s, 1, "/device:GPU:0");
		tu_line *l = tu_line_add(p, 1, "Steps", 0);
		tu_line *k = tu_line_add(p, 2, "Stream #1(Compute)", 0);

		for (i = 0; i < 10; i++) {
			tu_event *e = tu_ev(p, l, "train", (int64_t)i * 50 * MS * 1000,
					    40 * MS * 1000);

			TU_SI(p, e, "group_id", i);
			tu_ev(p, k, "gemm", (int64_t)i * 50 * MS * 1000, 30 * MS * 1000);
		}
		/* A step numbered 99 on each host, 500 ms apart. */
		{
			tu_event *e = tu_ev(p, l, "train", (h ? 1000 : 500) * MS * 1000, MS * 1000);

			TU_SI(p, e, "group_id", 99);
		}
		write_run(dir, tu_fmt("h%d", h), s);
	}
	tu_load(dir, &t);
	assert_int_equal(t->hosts[0].skew_method, XT_SKEW_REFERENCE);
	assert_int_equal(t->hosts[1].skew_method, XT_SKEW_DEVICE_STEPS);
	assert_int_equal(t->hosts[1].skew_matches, 10);
	assert_int_equal(t->hosts[1].skew_ps, 3 * MS * 1000);
	assert_int_equal(t->hosts[1].skew_corrected, 0);
	assert_int_equal(clock_host_offset_ps(t, &t->hosts[1]), 3 * MS * 1000);
}

/* Clocks at the edges of what the model stores (corrupt or odd input):
 * hosts far apart are not aligned, nothing overflows (the suite also runs
 * this under UBSan), and every host keeps its events. */
static void test_extreme_clocks(void **state)
{
	const char *dir = tu_mkdtemp();
	const int64_t lines[3] = { 0, -8000000000000000LL, 0 };
	const int64_t starts[3] = { INT64_MAX, 0, 1 };
	struct xt_trace *t;
	int h, i;

	(void)state;
	for (h = 0; h < 3; h++) {
		tu_space *s = host_space(starts[h]);
		tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
		tu_line *l = tu_line_add(p, 3, "XLA Ops", lines[h]);
		tu_line *l2 = tu_line_add(p, 4, "Steps", lines[h]);

		for (i = 0; i < 10; i++) {
			tu_event *e = tu_ev(p, l2, "step", (int64_t)i * 1000000, 1000000);

			TU_SI(p, e, "group_id", i);
			tu_ev(p, l, "all-reduce.1", (int64_t)i * 1000000, 1000);
		}
		write_run(dir, tu_fmt("h%d", h), s);
	}
	tu_load(dir, &t);
	assert_int_equal(t->nhosts, 3);
	assert_int_equal(t->hosts[0].aligned_by, XT_ALIGN_TASK_ENV);
	assert_int_equal(t->hosts[1].aligned_by, XT_ALIGN_NONE);
	assert_int_equal(t->hosts[2].aligned_by, XT_ALIGN_NONE);
	for (h = 0; h < 3; h++) {
		assert_int_equal(t->hosts[h].nev, 20);
		assert_int_equal(t->hosts[h].skew_corrected, 0);
	}
}

static void test_sync_collective_names(void **state)
{
	static const struct {
		const char *name;
		int want;
	} cases[] = {
		{ "all-reduce.3", 1 },
		{ "all-reduce", 1 },
		{ "all-reduce-done.1", 1 },
		{ "all-reduce-start.1", 0 },
		{ "all-gather-start", 0 },
		{ "all-gather.2", 1 },
		{ "reduce-scatter.2", 1 },
		{ "all-to-all", 1 },
		{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1 },
		{ "ncclKernel_AllGather_RING_LL_Sum_int8_t", 1 },
		{ "ncclDevKernel_SendRecv", 0 },
		{ "collective-permute.1", 0 },
		{ "fusion.1", 0 },
		{ "", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (clock_sync_collective(cases[i].name) != cases[i].want)
			fail_msg("%s: want %d", cases[i].name, cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_task_env_starts),
		TU_TEST(test_shared_clock),
		TU_TEST(test_no_start_time),
		TU_TEST(test_skew_from_collectives),
		TU_TEST(test_skew_from_steps),
		TU_TEST(test_extreme_clocks),
		TU_TEST(test_sync_collective_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
