/*
 * test_memory: the memory analysis of docs/analyses.md ("Memory") on
 * hand-built profiles, and the analyses the sink makes while lines are
 * decoded against those made from the decoded lines (whole, in chunks, and
 * by analysis_run). Expected numbers are worked out in the comments (times
 * in ps). Split from test_analysis.c, which holds the devices, ops, steps
 * and kernels.
 */
#include "testutil.h"

#include "model/analysis_int.h" /* memory_split_events */

/* ---- memory ---- */

/* An allocator known by its index only is named by the index in decimal,
 * whatever its size or sign (an_memory.c writes it without printf). */
static void test_memory_index_names(void **state)
{
	static const int64_t idx[] = { 0, -7, 1234567890123LL, INT64_MIN, INT64_MAX };
	static const char *const want[] = { "-7", "-9223372036854775808", "0", "1234567890123",
					    "9223372036854775807" };
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(h, 1, "t", 0);
	struct xt_analysis *a;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		tu_event *e = tu_mem_ev(h, l, 1, (int64_t)i + 1, NULL, 0x10 + (int64_t)i, 64, 0, 64, 0,
					-1, NULL, NULL);

		TU_SI(h, e, "index_on_host", idx[i]);
	}
	a = tu_load_space(s, NULL);
	assert_int_equal(a->nmemory, 5);
	for (i = 0; i < 5; i++) /* sorted by allocator */
		assert_string_equal(a->memory[i].allocator, want[i]);
}

/* A memory event with the allocator stats (NULL/negative: left out). */
static void test_memory(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(h, 1, "tf_Compute", 1); /* base 1000 ps */
	tu_line *l2 = tu_line_add(h, 2, "other", 0);
	tu_plane *other;
	tu_event *e;
	struct xt_analysis *a;
	const struct xt_memory_row *m;

	(void)state;
	/* GPU_0_bfc, in use = reserved + allocated:
	 *   t=10 alloc   0x100 1000 B (op/A)  500 + 1000 = 1500
	 *   t=20 alloc   0x200 3000 B (op/B)  500 + 4000 = 4500  avail 6000
	 *   t=30 free    0x100                500 + 3000 = 3500
	 *   t=40 alloc   0x300 1000 B (op/C)  500 + 4000 = 4500  avail 5500  <- peak (tie: later)
	 *   t=50 free    0x200                500 + 1000 = 1500  peak_bytes_in_use 7777
	 * peak 4500 at 1000 + 40; capacity 500 + 4000 + 5500 = 10000; lifetime 7777;
	 * live at the peak: 0x200 (3000, op/B) and 0x300 (1000, op/C), 0x100 freed.
	 * Written out of time order. */
	tu_mem_ev(h, l, 0, 50, "GPU_0_bfc", 0x200, -1, 500, 1000, 8000, 7777, NULL, NULL);
	tu_mem_ev(h, l, 1, 10, "GPU_0_bfc", 0x100, 1000, 500, 1000, 9000, 1500, "op/A", "[10]");
	tu_mem_ev(h, l, 1, 20, "GPU_0_bfc", 0x200, 3000, 500, 4000, 6000, 4500, "op/B", "[30]");
	tu_mem_ev(h, l, 0, 30, "GPU_0_bfc", 0x100, 1000, 500, 3000, 7000, 4500, NULL, NULL);
	/* requested_bytes stands in for a missing allocation_bytes. */
	e = tu_mem_ev(h, l, 1, 40, "GPU_0_bfc", 0x300, -1, 500, 4000, 5500, 4500, "op/C", "[10,10]");
	TU_SI(h, e, "requested_bytes", 1000);
	/* Allocator "1" from index_on_host / device_ordinal (the last one on
	 * the event wins):
	 *   t=5 alloc 0x10 64 B: in use 64 (peak), avail 0 -> capacity 64
	 *   t=6 free  0x10:      in use 0, no peak_bytes_in_use -> lifetime 0 */
	e = tu_mem_ev(h, l2, 1, 5, NULL, 0x10, 64, 0, 64, 0, -1, "op/x", "[16]");
	TU_SI(h, e, "index_on_host", 1);
	e = tu_mem_ev(h, l2, 0, 6, NULL, 0x10, 64, 0, 0, 0, -1, NULL, NULL);
	TU_SI(h, e, "index_on_host", 3);
	TU_SI(h, e, "device_ordinal", 1);
	/* No allocator at all: skipped. */
	tu_mem_ev(h, l2, 1, 7, NULL, 0x20, 1 << 30, 0, 1 << 30, 0, -1, NULL, NULL);
	/* Memory events off /host:CPU are not memory events. */
	other = tu_plane_add(s, 2, "/host:other");
	tu_mem_ev(other, tu_line_add(other, 1, "t", 0), 1, 60, "GPU_0_bfc", 0x400, 1 << 30, 0,
	       1 << 30, 0, -1, NULL, NULL);

	a = tu_load_space(s, NULL);
	assert_int_equal(a->nmemory, 2);
	assert_string_equal(a->memory[0].allocator, "1"); /* sorted by allocator */
	m = tu_find_mem(a, NULL, "GPU_0_bfc");
	assert_ptr_equal(m, &a->memory[1]);
	assert_int_equal(m->events, 5);
	assert_int_equal(m->peak_bytes, 4500);
	assert_int_equal(m->peak_time_ps, 1040);
	assert_int_equal(m->capacity_bytes, 10000);
	assert_int_equal(m->lifetime_peak_bytes, 7777);
	assert_int_equal(m->allocator_lifetime_peak, 7777);
	assert_string_equal(m->name, "GPU:0 HBM");
	/* The peak adds up: 3000 + 1000 live, 500 reserved, nothing else. */
	assert_int_equal(m->reserved_bytes, 500);
	assert_int_equal(m->live_other_bytes, 0);
	assert_int_equal(m->unattributed_bytes, 500);
	assert_int_equal(m->nlive_total, 2);
	assert_int_equal(m->nlive, 2);
	assert_int_equal(m->live[0].bytes, 3000);
	assert_string_equal(m->live[0].op, "op/B");
	assert_string_equal(m->live[0].shape, "[30]");
	assert_int_equal(m->live[0].time_ps, 1020);
	assert_int_equal(m->live[1].bytes, 1000);
	assert_string_equal(m->live[1].op, "op/C");
	assert_string_equal(m->live[1].shape, "[10,10]");
	m = &a->memory[0];
	assert_int_equal(m->events, 2);
	assert_int_equal(m->peak_bytes, 64);
	assert_int_equal(m->peak_time_ps, 5);
	assert_int_equal(m->capacity_bytes, 64);
	/* The allocator reported no lifetime peak: the profile's own is the
	 * least its lifetime reached. */
	assert_int_equal(m->allocator_lifetime_peak, 0);
	assert_int_equal(m->lifetime_peak_bytes, 64);
	assert_string_equal(m->name, "device 1");
	assert_int_equal(m->unattributed_bytes, 0);
	assert_int_equal(m->nlive, 1);
	assert_int_equal(m->live[0].bytes, 64);
	assert_string_equal(m->live[0].op, "op/x");
}

static void assert_memory_same(const struct xt_analysis *a, const struct xt_analysis *b)
{
	size_t i, k;

	assert_int_equal(a->nmemory, b->nmemory);
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *x = &a->memory[i], *y = &b->memory[i];

		assert_string_equal(x->allocator, y->allocator);
		assert_int_equal(x->events, y->events);
		assert_int_equal(x->peak_bytes, y->peak_bytes);
		assert_int_equal(x->peak_time_ps, y->peak_time_ps);
		assert_int_equal(x->reserved_bytes, y->reserved_bytes);
		assert_int_equal(x->capacity_bytes, y->capacity_bytes);
		assert_int_equal(x->lifetime_peak_bytes, y->lifetime_peak_bytes);
		assert_int_equal(x->allocator_lifetime_peak, y->allocator_lifetime_peak);
		assert_int_equal(x->unattributed_bytes, y->unattributed_bytes);
		assert_int_equal(x->live_other_bytes, y->live_other_bytes);
		assert_int_equal(x->nlive_total, y->nlive_total);
		assert_int_equal(x->nlive, y->nlive);
		for (k = 0; k < x->nlive; k++) {
			assert_int_equal(x->live[k].bytes, y->live[k].bytes);
			assert_int_equal(x->live[k].time_ps, y->live[k].time_ps);
			assert_string_equal(x->live[k].op, y->live[k].op);
			assert_string_equal(x->live[k].shape, y->live[k].shape);
		}
		assert_int_equal(x->first_ps, y->first_ps);
		assert_int_equal(x->last_ps, y->last_ps);
		for (k = 0; k < XT_MEM_SERIES; k++)
			assert_int_equal(x->series[k], y->series[k]);
	}
}

/* A long line's memory events read in two halves (memory_line) give what
 * one pass gives: records in order, allocators first seen in either half
 * (one only in the second) merged, lifetime peaks from both. */
static void test_memory_halves(void **state)
{
	struct xt_analysis *a[2];
	size_t saved = memory_split_events, i;
	int run;

	(void)state;
	for (run = 0; run < 2; run++) {
		tu_space *s = tu_space_new();
		tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
		tu_line *l = tu_line_add(h, 1, "python", 0);
		uint64_t rs = 9;
		int64_t used[3] = { 0, 0, 0 };
		static const char *const alloc[3] = { "GPU_0_bfc", "GPU_1_bfc", "late_bfc" };

		for (i = 0; i < 3000; i++) {
			size_t w = i < 1500 ? i % 2 : i % 3; /* late_bfc from the middle on */
			int64_t b = tu_rand_range(&rs, 1, 1000);
			int al = used[w] < b || tu_rand_range(&rs, 0, 1);

			tu_ev(h, l, "work", (int64_t)i * 100, 50);
			used[w] += al ? b : -b;
			tu_mem_ev(h, l, al, (int64_t)i * 100 + 60, alloc[w], (int64_t)(0x1000 + i), b, 10,
			       used[w], 100000, i == 2900 ? 999999 : -1, al ? "op" : NULL, NULL);
		}
		memory_split_events = run ? 1000 : SIZE_MAX;
		a[run] = tu_load_space(s, NULL);
	}
	memory_split_events = saved;
	assert_int_equal(a[0]->nmemory, 3);
	assert_memory_same(a[0], a[1]);
	/* The peak in use reported in the second half (event 2900) counts. */
	assert_int_equal(tu_find_mem(a[1], NULL, "late_bfc")->allocator_lifetime_peak, 999999);
}

/* A memory event's numbers read the same whatever the stat's type: int64
 * and uint64 (read straight, without decoding the stat) as text or a
 * double (decoded, then converted); with stat ids of one byte and of two
 * (past 127, as TF's), an allocator named and one known by its index,
 * requested_bytes standing in for allocation_bytes, negative values. */
static void test_memory_stat_kinds(void **state)
{
	static const char *const names[] = { "allocator_name",	  "addr",
					     "allocation_bytes",  "requested_bytes",
					     "bytes_reserved",	  "bytes_allocated",
					     "bytes_available",	  "peak_bytes_in_use",
					     "tf_op",		  "index_on_host" };
	struct xt_analysis *a[4];
	size_t i, k;
	int run;

	(void)state;
	for (run = 0; run < 4; run++) {
		tu_space *s = tu_space_new();
		tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
		tu_line *l = tu_line_add(h, 1, "python", 0);
		int64_t used[2] = { 0, 0 };
		int text = run & 1;

		if (run & 2)
			for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
				tu_smeta_id(h, 300 + (int64_t)k, names[k]);
		for (i = 0; i < 60; i++) {
			int al = i % 4 != 3, w = i % 3 == 0;
			int64_t b = 100 + (int64_t)i * 10, t = (int64_t)i * 100;
			tu_event *e = tu_ev(h, l, al ? "MemoryAllocation" : "MemoryDeallocation", t, 0);
			const char *size = i % 5 == 1 ? "requested_bytes" : "allocation_bytes";
			char num[32];

			used[w] += al ? b : -b;
			if (w && text)
				TU_SD(h, e, "index_on_host", 2.0);
			else if (w)
				TU_SI(h, e, "index_on_host", 2);
			else
				TU_SS(h, e, "allocator_name", "GPU_0_bfc");
			if (text) {
				snprintf(num, sizeof(num), "%d", 0x1000 + (int)i);
				TU_SS(h, e, "addr", num);
				TU_SD(h, e, size, (double)b);
				TU_SS(h, e, "bytes_reserved", "10");
				snprintf(num, sizeof(num), "%lld", (long long)used[w]);
				TU_SS(h, e, "bytes_allocated", num);
				TU_SD(h, e, "bytes_available", (double)(1000 - used[w]));
				TU_SS(h, e, "peak_bytes_in_use", "5000");
			} else {
				TU_SU(h, e, "addr", 0x1000 + (uint64_t)i);
				TU_SI(h, e, size, b);
				TU_SU(h, e, "bytes_reserved", 10);
				TU_SI(h, e, "bytes_allocated", used[w]);
				TU_SI(h, e, "bytes_available", 1000 - used[w]); /* negative after a few */
				TU_SU(h, e, "peak_bytes_in_use", 5000);
			}
			if (al)
				TU_SS(h, e, "tf_op", "op");
		}
		a[run] = tu_load_space(s, NULL);
	}
	assert_int_equal(a[0]->nmemory, 2);
	assert_int_equal(a[0]->memory[0].events + a[0]->memory[1].events, 60);
	for (run = 1; run < 4; run++)
		assert_memory_same(a[0], a[run]);
}

/* The analyses of path three ways: [0] walking the decoded lines
 * (analysis_run, no sink), [1] with the sink on lines read whole, [2] on
 * lines read in chunks of split / 3 bytes (the first line must be split). */
static void analyses_three(const char *path, uint64_t split, struct xt_analysis *a[3])
{
	size_t run;

	for (run = 0; run < 3; run++) {
		struct xt_trace *t;
		struct analysis_ctx *ac = analysis_new();
		struct xplane_load_opts o = { .threads = 2, .split_bytes = run == 2 ? split : 0 };
		struct xt_error err = { "" };

		if (run) {
			/* The analyses' hooks, and with them the sink. */
			t = trace_new();
			analysis_attach(ac, &o);
			assert_int_equal(xplane_load(t, path, "host", &o, &err), 0);
			a[run] = analysis_finish(ac, t);
			TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, a[run] }));
		} else {
			t = tu_read(path); /* freed at teardown */
			analysis_run(ac, t);
			a[run] = analysis_finish(ac, t);
			TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ NULL, a[run] }));
		}
		if (run == 2)
			assert_true(t->hosts[0].planes[0].lines[0].raw_len > 8 * split / 3);
	}
}

/* Memory events read by the sink while lines are decoded (whole, and in
 * chunks by both threads) give what reading them from the decoded lines
 * gives (analysis_run), on a line written out of order with events that
 * start together (the last of equal uses is the peak: order matters). */
static void test_memory_sink(void **state)
{
	enum { N = 4000 };
	static const char *const alloc[3] = { "GPU_0_bfc", "GPU_1_bfc", "late_bfc" };
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *py = tu_line_add(h, 1, "python", 0), *main_l = tu_line_add(h, 2, "main", 7);
	size_t *order, i, j;
	int64_t used[3] = { 0, 0, 0 }, *bytes = tu_xcalloc(N, sizeof(int64_t));
	int *al = tu_xcalloc(N, sizeof(int));
	uint64_t rs = 21;
	struct xt_analysis *a[3];

	(void)state;
	for (i = 0; i < N; i++) {
		size_t w = i < N / 2 ? (i / 2) % 2 : (i / 2) % 3;

		bytes[i] = tu_rand_range(&rs, 1, 1000);
		al[i] = used[w] < bytes[i] || tu_rand_range(&rs, 0, 1);
		used[w] += al[i] ? bytes[i] : -bytes[i];
		bytes[i] = used[w] * 1000 + bytes[i]; /* the use, then the size */
	}
	order = tu_shuffled(N, &rs);
	for (j = 0; j < N; j++) {
		size_t k = order[j], w = k < N / 2 ? (k / 2) % 2 : (k / 2) % 3;
		/* Two by two at one time, both of one allocator, so that their
		 * order in the replay decides what is live at the peak; equal
		 * uses now and then. */
		int64_t t = (int64_t)(k / 2) * 100, use = (bytes[k] / 1000) / 4 * 4;
		tu_event *e;

		tu_ev(h, py, "work", t, 90);
		e = tu_mem_ev(h, py, al[k], t + 10, alloc[w], (int64_t)(0x1000 + k), bytes[k] % 1000, 10,
			   use, 100000, k == N - 7 ? 999999 : -1, al[k] ? "op" : NULL,
			   k % 5 ? "[2]" : NULL);
		/* At one start the longer sorts first, whatever the file's order. */
		e->duration_ps = k % 2 ? 5 : 0;
		if (k % 9 == 0)
			tu_mem_ev(h, main_l, 1, t, alloc[w], (int64_t)(0x900000 + k), 5, 0,
			       (int64_t)k, 1000, -1, "main", NULL);
	}
	analyses_three(tu_write(s, 0), 32768, a);
	assert_int_equal(a[0]->nmemory, 3);
	assert_true(a[0]->memory[0].events > N / 4);
	assert_memory_same(a[0], a[1]);
	assert_memory_same(a[0], a[2]);
	free(order);
	free(bytes);
	free(al);
}

/* A memory row's events are replayed in time order even when a line's
 * times wrap past INT64_MAX (a hostile file): that line's records are not
 * in time order, so they are sorted rather than merged as runs. */
/* A memory row's use over time against the rule worked out directly: n
 * events in replay order, slice floor((t - first) (S - 1) / span) in 128
 * bits, each slice its events' highest use (from -1), an empty one the use
 * of the last event before it. */
static void assert_series(const struct xt_memory_row *m, const int64_t *t, const int64_t *use,
			  size_t n)
{
	int64_t want[XT_MEM_SERIES], end[XT_MEM_SERIES], last = -1;
	uint64_t span = (uint64_t)t[n - 1] - (uint64_t)t[0];
	size_t i, k;

	for (k = 0; k < XT_MEM_SERIES; k++)
		want[k] = -1;
	for (i = 0; i < n; i++) {
		k = span ? (size_t)(((__int128)t[i] - t[0]) * (XT_MEM_SERIES - 1) / (__int128)span)
			 : 0;
		if (use[i] > want[k])
			want[k] = use[i];
		end[k] = use[i];
	}
	for (k = 0; k < XT_MEM_SERIES; k++) {
		if (want[k] >= 0)
			last = end[k];
		else
			want[k] = last;
		assert_int_equal(m->series[k], want[k]);
	}
}

/* The use over time on a line with bursts and quiet stretches (empty
 * slices), events right at slice bounds, and uses below zero (a
 * reservation stat gone negative in a broken profile). */
static void test_memory_series(void **state)
{
	enum { N = 1400, SPAN = 1788 };
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(h, 1, "tf_Compute", 0);
	int64_t t[N], use[N], at = 0;
	const struct xt_memory_row *m;
	struct xt_analysis *a;
	uint64_t rs = 77;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		int64_t reserved = tu_rand_range(&rs, 0, 9) ? 0 : -5000, allocated;

		/* An event every picosecond, so that every slice bound is hit
		 * (slices of 1788 / 255 = 7.01 ps, about seven events each,
		 * so one in the wrong slice changes its highest use), with a
		 * quiet stretch of three slices every 150 events and none
		 * after about 1550 ps; the last event sets the span. */
		at += i % 150 == 149 ? 20 : 1;
		if (i == N - 1) {
			assert_true(at < SPAN);
			at = SPAN;
		}
		allocated = tu_rand_range(&rs, 0, 4000);
		t[i] = at;
		use[i] = reserved + allocated;
		/* Odd events allocate; every fourth frees the allocation
		 * 201 events before it (made before the replay's map last
		 * grew, often), the others free what was never seen. */
		tu_mem_ev(h, l, (int)(i & 1), at, "GPU_0_bfc",
		       i & 1			   ? 0x100 + (int64_t)i
		       : i % 4 == 0 && i >= 201 ? 0x100 + (int64_t)i - 201
						: 0x100000 + (int64_t)i,
		       8, reserved, allocated, 0, -1, NULL, NULL);
	}
	a = tu_load_space(s, NULL);
	m = tu_find_mem(a, NULL, "GPU_0_bfc");
	assert_non_null(m);
	assert_int_equal(m->events, N);
	assert_series(m, t, use, N);
	{
		/* What is live at the peak (the last event at the highest use):
		 * hundreds of addresses through the replay's map as it grows. */
		size_t peak = 0, live = 0;

		for (i = 0; i < N; i++)
			if (use[i] >= use[peak])
				peak = i;
		for (i = 1; i <= peak; i += 2)
			if (!((i + 201) % 4 == 0 && i + 201 <= peak))
				live++;
		assert_true(live > 300);
		assert_int_equal(m->peak_time_ps, t[peak]);
		assert_int_equal(m->nlive_total, live);
	}
}

static void test_memory_time_wrap(void **state)
{
	enum { N = 10 };
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *a0 = tu_line_add(h, 1, "early", 0);
	tu_line *b = tu_line_add(h, 2, "late", 9000000000000000LL); /* 9e18 ps */
	int64_t t[N], lo = INT64_MAX, hi = INT64_MIN;
	const struct xt_memory_row *m;
	struct xt_analysis *a;
	size_t i;

	(void)state;
	tu_mem_ev(h, a0, 1, 5, "GPU_0_bfc", 0x10, 1, 0, 1, 0, -1, NULL, NULL);
	for (i = 0; i < N; i++) {
		/* From the fourth on, the start wraps below zero. */
		t[i] = (int64_t)(UINT64_C(9000000000000000000) + (uint64_t)i * 100000000000000000ULL);
		tu_mem_ev(h, b, 1, (int64_t)i * 100000000000000000LL, "GPU_0_bfc",
		       (int64_t)(0x100 + i), 1, 0, (int64_t)(i + 1) * 100, 0, -1, NULL, NULL);
		lo = t[i] < lo ? t[i] : lo;
		hi = t[i] > hi ? t[i] : hi;
	}
	a = tu_load_space(s, NULL);
	m = tu_find_mem(a, NULL, "GPU_0_bfc");
	assert_non_null(m);
	assert_int_equal(m->events, N + 1);
	assert_true(lo < 0);
	assert_int_equal(m->first_ps, lo);
	assert_int_equal(m->last_ps, hi);
	assert_int_equal(m->peak_bytes, N * 100);
	assert_int_equal(m->peak_time_ps, t[N - 1]);
	{
		/* In replay order: the wrapped starts first, then the early
		 * line's event, then the rest; slices over a span past 2^63. */
		int64_t rt[N + 1], ru[N + 1];
		size_t n = 0, j;

		for (i = 0; i < N; i++)
			if (t[i] < 0) {
				rt[n] = t[i];
				ru[n++] = (int64_t)(i + 1) * 100;
			}
		rt[n] = 5;
		ru[n++] = 1;
		for (i = 0; i < N; i++)
			if (t[i] >= 0) {
				rt[n] = t[i];
				ru[n++] = (int64_t)(i + 1) * 100;
			}
		for (j = 1; j < n; j++)
			assert_true(rt[j] > rt[j - 1]);
		assert_true((uint64_t)rt[n - 1] - (uint64_t)rt[0] > (uint64_t)INT64_MAX);
		assert_series(m, rt, ru, n);
	}
}

/* Host step markers and compilations found by the sink while lines are
 * decoded (whole, and in chunks by both threads) give what walking the
 * decoded lines gives (analysis_run): markers by TraceMe name and by
 * event stat (flagged by the reader), compilations nested and apart, on a
 * Python tracer line and a thread line, both written out of order (the
 * thread line's work leaves its markers out by their place). */
static void test_host_sink_same(void **state)
{
	enum { N = 3000 };
	struct spec {
		const char *name;
		int64_t off, dur, step;
	} *v = tu_xcalloc(N, sizeof(*v));
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_line *py = tu_line_add(h, 1, "python", 0), *main_l = tu_line_add(h, 2, "main", 3);
	static const char *const names[4] = { "f", "g", "h", "k" };
	char buf[64][32];
	size_t *order, i, run, k;
	uint64_t rs = 41;
	struct xt_analysis *a[3];

	(void)state;
	for (i = 0; i < 64; i++)
		snprintf(buf[i], sizeof(buf[i]), "train#step_num=%zu#", i);
	for (i = 0; i < N; i++) {
		/* Blocks of 50: a marker spanning the block (by name or by
		 * stat), a compilation with one nested, and calls. */
		int64_t base = (int64_t)(i / 50) * 100000, at = (int64_t)(i % 50);

		v[i] = (struct spec){ names[i % 4], base + 100 + at * 1000,
				      (int64_t)tu_rand_range(&rs, 1, 900), -1 };
		if (at == 0)
			v[i] = (struct spec){ (i / 50) % 2 ? buf[(i / 50) % 64] : "step", base, 99000,
					      (i / 50) % 2 ? -1 : (int64_t)(i / 50) };
		else if (at == 1 || at == 2)
			v[i] = (struct spec){ "jit_f::Compile", base + 100 + at * 10, 3000 - at * 100,
					      -1 };
	}
	order = tu_shuffled(N, &rs);
	for (i = 0; i < N; i++) {
		const struct spec *x = &v[order[i]];
		tu_event *e = tu_ev(h, py, x->name, x->off, x->dur);

		if (x->step >= 0)
			TU_SI(h, e, "step_num", x->step);
		if (order[i] % 3 == 0) { /* a third of them, on the thread line too */
			e = tu_ev(h, main_l, x->name, x->off, x->dur);
			if (x->step >= 0)
				TU_SI(h, e, "step_num", x->step + 1000);
		}
	}
	analyses_three(tu_write(s, 0), 8192, a);
	assert_true(a[0]->nsteps > N / 50);
	assert_true(a[0]->overview.compiles >= N / 50);
	for (run = 1; run < 3; run++) {
		assert_int_equal(a[run]->nsteps, a[0]->nsteps);
		for (i = 0; i < a[0]->nsteps; i++) {
			const struct xt_step_row *x = &a[0]->steps[i], *y = &a[run]->steps[i];

			assert_int_equal(x->id, y->id);
			assert_int_equal(x->start_ps, y->start_ps);
			assert_int_equal(x->duration_ps, y->duration_ps);
			assert_int_equal(x->idle_ps, y->idle_ps);
			for (k = 0; k < XT_CAT_COUNT; k++)
				assert_int_equal(x->cat_ps[k], y->cat_ps[k]);
		}
		assert_int_equal(a[run]->overview.compiles, a[0]->overview.compiles);
		assert_int_equal(a[run]->overview.compile_ps, a[0]->overview.compile_ps);
	}
	free(order);
	free(v);
}

/* analysis_run() over a loaded trace (its line analyses shared out among
 * threads) gives what the analyses run while loading give. */
static void test_run_same_as_load(void **state)
{
	tu_space *s = tu_sample_space();
	const char *path = tu_write(s, 0);
	struct xt_trace *t;
	struct xt_analysis *a = tu_load(path, NULL), *b;
	size_t i;

	(void)state;
	t = tu_read(path);
	b = analysis_finish(analysis_new(), t);
	assert_int_equal(b->nops, 0); /* nothing ran: the hooks were not attached */
	analysis_free(b);
	{
		struct analysis_ctx *ac = analysis_new();

		analysis_run(ac, t);
		b = analysis_finish(ac, t);
	}
	assert_int_equal(a->nops, b->nops);
	assert_true(a->nops > 0);
	for (i = 0; i < a->nops; i++) {
		assert_string_equal(a->ops[i].name, b->ops[i].name);
		assert_int_equal(a->ops[i].occurrences, b->ops[i].occurrences);
		assert_int_equal(a->ops[i].self_ps, b->ops[i].self_ps);
		assert_int_equal(a->ops[i].total_ps, b->ops[i].total_ps);
	}
	assert_int_equal(a->ndevices, b->ndevices);
	for (i = 0; i < a->ndevices; i++)
		assert_int_equal(a->devices[i].busy_ps, b->devices[i].busy_ps);
	assert_int_equal(a->nkernels, b->nkernels);
	for (i = 0; i < a->nkernels; i++)
		assert_int_equal(a->kernels[i].total_ps, b->kernels[i].total_ps);
	assert_int_equal(a->nmemory, b->nmemory);
	assert_true(a->nmemory > 0);
	for (i = 0; i < a->nmemory; i++)
		assert_int_equal(a->memory[i].peak_bytes, b->memory[i].peak_bytes);
	assert_int_equal(a->nsteps, b->nsteps);
	assert_int_equal(a->busy_ps, b->busy_ps);
	analysis_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_memory),
		TU_TEST(test_memory_index_names),
		TU_TEST(test_memory_halves),
		TU_TEST(test_memory_stat_kinds),
		TU_TEST(test_memory_sink),
		TU_TEST(test_memory_time_wrap),
		TU_TEST(test_memory_series),
		TU_TEST(test_host_sink_same),
		TU_TEST(test_run_same_as_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
