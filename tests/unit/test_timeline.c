/*
 * test_timeline: the model behind the viewer (model/timeline.c and
 * model/search.c): per-depth sampling of screen columns, dense columns,
 * event lookup, stepping, self time, and whole-profile search.
 */
#include "testutil.h"

#include "model/search.h"
#include "model/timeline.h"

/* One plane, two lines: "ops" with P [0,100) holding A [10,30) and
 * B [50,90); "other" with a run of 50 tiny events in [200,250). */
static struct xt_trace *build(void)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *l = tu_line_add(p, 3, "ops", 0);
	tu_line *o = tu_line_add(p, 4, "other", 0);
	int i;

	tu_ev(p, l, "P", 0, 100);
	tu_ev(p, l, "A", 10, 20);
	tu_ev(p, l, "B", 50, 40);
	for (i = 0; i < 50; i++)
		tu_ev(p, o, "tiny", 200 + i, 1);
	tu_ev(p, o, "needle_far", 5000, 10);
	return tu_read(tu_write(s, 0));
}

static void test_sample_columns(void **state)
{
	struct xt_trace *t = build();
	struct timeline *tl = timeline_new(t);
	struct tl_cell c[10];
	const struct tl_depth *d;

	(void)state;
	assert_int_equal(tl->ntracks, 2);
	assert_int_equal(tl->t0, 0);
	assert_int_equal(tl->t1, 5010);
	d = timeline_depth(tl, 0);
	assert_int_equal(d->ndepth, 2);
	/* Depth 0 over [0,100) in 10 columns: P everywhere. */
	timeline_sample(tl, 0, 0, 0, 100, 10, c);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(c[k].count, 1);
		assert_int_equal(c[k].ev, 0);
	}
	/* Depth 1: A in columns 1-2, B in 5-8, nothing elsewhere. */
	timeline_sample(tl, 0, 1, 0, 100, 10, c);
	assert_int_equal(c[0].count, 0);
	assert_int_equal(c[1].count, 1);
	assert_int_equal(c[2].count, 1);
	assert_int_equal(c[3].count, 0);
	assert_int_equal(c[5].count, 1);
	assert_int_equal(c[8].count, 1);
	assert_int_equal(c[9].count, 0);
	/* The dense run is counted, not skipped: one column over [200,250). */
	timeline_sample(tl, 1, 0, 200, 250, 1, c);
	assert_int_equal(c[0].count, 50);
	timeline_free(tl);
}

/* The sampler against a brute force, on a line long enough that its
 * searches go through the key index (TL_KEY_STEP) and its long durations
 * through their blocks: top-level events with gaps, some over 4.3 ms, a
 * child inside some; windows from the whole line to a few events. */
static void test_sample_brute_force(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *l = tu_line_add(p, 3, "ops", 0);
	enum { N = 5000, COLS = 37 };
	uint64_t rs = 3;
	int64_t t = 0, st[N], du[N];
	struct xt_trace *tr;
	struct timeline *tl;
	const struct xt_line *xl;
	struct tl_cell c[COLS];
	size_t i, k;
	int col;

	(void)state;
	for (i = 0; i < N; i++) {
		st[i] = t;
		du[i] = i % 5 == 0 ? 5000000000LL + tu_rand_range(&rs, 0, 1000) : tu_rand_range(&rs, 1, 900);
		tu_ev(p, l, "op", st[i], du[i]);
		if (du[i] > 10)
			tu_ev(p, l, "child", st[i] + 1, du[i] / 2);
		t += du[i] + tu_rand_range(&rs, 0, 3) * 400;
	}
	tr = tu_read(tu_write(s, 0));
	tl = timeline_new(tr);
	xl = tl->tracks[0].l;
	for (k = 0; k < 300; k++) {
		int64_t span = k < 5 ? t : tu_rand_range(&rs, 1, t / (1 + (int64_t)k));
		int64_t v0 = tu_rand_range(&rs, -100, t - span), v1 = v0 + span;

		timeline_sample(tl, 0, 0, v0, v1, COLS, c);
		for (col = 0; col < COLS; col++) {
			int64_t a = v0 + (int64_t)((__int128)span * col / COLS);
			int64_t b = v0 + (int64_t)((__int128)span * (col + 1) / COLS);
			uint32_t n = 0;
			int64_t only = -1;
			size_t j;

			if (b <= a)
				b = a + 1;
			/* Top-level events starting in [a, b), and the one before
			 * a when it still covers a. */
			for (j = 0; j < N; j++) {
				if ((st[j] >= a && st[j] < b) ||
				    (st[j] < a && (j + 1 == N || st[j + 1] >= a) && st[j] + du[j] > a)) {
					n++;
					only = (int64_t)j;
				}
			}
			assert_int_equal(c[col].count, n);
			if (n == 1) {
				int64_t idx = c[col].ev;

				assert_int_equal(xt_event_off(xl, idx), st[only]);
				assert_int_equal(xt_event_dur(xl, &xl->ev[idx]), du[only]);
			}
		}
	}
	timeline_free(tl);
}

static void test_lookup_step_self(void **state)
{
	struct xt_trace *t = build();
	struct timeline *tl = timeline_new(t);

	(void)state;
	/* At t=20 depth 1 is A (index 1); at t=40, nothing covers: next is B. */
	assert_int_equal(timeline_event_at(tl, 0, 1, 20), 1);
	assert_int_equal(timeline_event_at(tl, 0, 1, 40), 2);
	assert_int_equal(timeline_step(tl, 0, 0, 1), 1);
	assert_int_equal(timeline_step(tl, 0, 2, 1), -1);
	assert_int_equal(timeline_step(tl, 0, -1, -1), 2);
	/* Self time of P: 100 - 20 - 40. */
	assert_int_equal(timeline_self_ps(tl, 0, 0), 40);
	assert_int_equal(timeline_self_ps(tl, 0, 1), 20);
	assert_int_equal(timeline_track_of(tl, tl->tracks[1].l), 1);
	timeline_free(tl);
}

/* Children that overlap each other (a thunk and the TraceMe inside it
 * ending 100 ns apart, siblings on the H100 captures' host lines): the
 * parent's self time is less the time they cover, never below zero. */
static void test_self_overlapping_children(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 3, "python3", 0);
	struct xt_trace *t;
	struct timeline *tl;

	(void)state;
	tu_ev(p, l, "module", 0, 100);
	tu_ev(p, l, "thunk", 10, 50);   /* [10, 60) */
	tu_ev(p, l, "traceme", 20, 41); /* [20, 61): not inside the thunk */
	tu_ev(p, l, "late", 80, 10);    /* [80, 90) */
	t = tu_read(tu_write(s, 0));
	tl = timeline_new(t);
	assert_int_equal(xt_event_depth(&tl->tracks[0].l->ev[2]), 1);
	/* 100 - (61 - 10) - 10, not 100 - 50 - 41 - 10 */
	assert_int_equal(timeline_self_ps(tl, 0, 0), 39);
	timeline_free(tl);
}

/* Track labels are unique within a plane: a repeated name gets the line id
 * (a thread id on host planes), and a repeated id a running number too. */
static void test_track_labels(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_plane *q = tu_plane_add(s, 2, "/device:TPU:0");
	struct xt_trace *t;
	struct timeline *tl;
	const char *name0;

	(void)state;
	tu_line_add(p, 11, "EventFDAsyncWorker", 0);
	tu_line_add(p, 12, "EventFDAsyncWorker", 0);
	tu_line_add(p, 13, "python3", 0);
	tu_line_add(p, 14, "", 0);
	tu_line_add(p, 20, "w", 0);
	tu_line_add(p, 20, "w", 0);
	tu_line_add(q, 11, "EventFDAsyncWorker", 0); /* another plane: no suffix */
	t = tu_read(tu_write(s, 0));
	tl = timeline_new(t);
	assert_int_equal(tl->ntracks, 7);
	assert_string_equal(tl->tracks[0].label, "EventFDAsyncWorker [11]");
	assert_string_equal(tl->tracks[1].label, "EventFDAsyncWorker [12]");
	assert_string_equal(tl->tracks[2].label, "python3");
	assert_string_equal(tl->tracks[3].label, "(unnamed)");
	assert_string_equal(tl->tracks[4].label, "w [20 #1]");
	assert_string_equal(tl->tracks[5].label, "w [20 #2]");
	assert_string_equal(tl->tracks[6].label, "EventFDAsyncWorker");
	timeline_free(tl);
	/* During a live load, lines still decoding have no track: each track
	 * keeps its own line's label (it took the first lines' labels, and
	 * the skipped ones' leaked), and labels read as they will after. The
	 * decoding lines' names and ids are the decoder's meanwhile (another
	 * thread writes them): theirs are read from their bytes instead. */
	t->hosts[0].planes[0].lines[0].loading = 1;
	t->hosts[0].planes[0].lines[4].loading = 1;
	name0 = t->hosts[0].planes[0].lines[0].name;
	t->hosts[0].planes[0].lines[0].name = "half written";
	t->hosts[0].planes[0].lines[0].id = 99;
	t->hosts[0].planes[0].lines[4].name = "";
	t->hosts[0].planes[0].lines[4].id = 0;
	tl = timeline_new(t);
	assert_int_equal(tl->ntracks, 5);
	assert_int_equal(tl->tracks[0].line, 1);
	assert_string_equal(tl->tracks[0].label, "EventFDAsyncWorker [12]");
	assert_string_equal(tl->tracks[1].label, "python3");
	assert_string_equal(tl->tracks[2].label, "(unnamed)");
	assert_int_equal(tl->tracks[3].line, 5);
	assert_string_equal(tl->tracks[3].label, "w [20 #2]");
	assert_string_equal(tl->tracks[4].label, "EventFDAsyncWorker");
	timeline_free(tl);
	t->hosts[0].planes[0].lines[0].loading = 0;
	t->hosts[0].planes[0].lines[4].loading = 0;
	t->hosts[0].planes[0].lines[0].name = name0;
	t->hosts[0].planes[0].lines[0].id = 11;
	t->hosts[0].planes[0].lines[4].name = "w";
	t->hosts[0].planes[0].lines[4].id = 20;
}

/* The first window's span: device events only (first start to last end);
 * the whole profile when no device plane has events. */
static void test_device_span(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *h = tu_plane_add(s, 1, "/host:CPU");
	tu_plane *d = tu_plane_add(s, 2, "/device:GPU:0");
	tu_line *hl = tu_line_add(h, 1, "python", 0);
	tu_line *dl = tu_line_add(d, 2, "Stream #1", 1); /* timestamps in ns */
	struct timeline *tl;
	tu_space *s2;
	tu_plane *h2;

	(void)state;
	tu_ev(h, hl, "main", 0, 8000000);
	tu_ev(d, dl, "kernel", 5000, 100);     /* [6000, 6100) ps */
	tu_ev(d, dl, "kernel2", 900000, 2000); /* ends at 903000 ps */
	tl = timeline_new(tu_read(tu_write(s, 0)));
	assert_int_equal(tl->t0, 0);
	assert_int_equal(tl->t1, 8000000);
	assert_true(tl->has_dev);
	assert_int_equal(tl->dev_t0, 6000);
	assert_int_equal(tl->dev_t1, 903000);
	timeline_free(tl);

	s2 = tu_space_new();
	h2 = tu_plane_add(s2, 1, "/host:CPU");
	tu_ev(h2, tu_line_add(h2, 1, "python", 0), "main", 10, 90);
	tl = timeline_new(tu_read(tu_write(s2, 0)));
	assert_false(tl->has_dev);
	assert_int_equal(tl->dev_t0, tl->t0);
	assert_int_equal(tl->dev_t1, tl->t1);
	timeline_free(tl);
}

static void test_search_whole_profile(void **state)
{
	struct xt_trace *t = build();
	struct timeline *tl = timeline_new(t);
	struct search_result *r;
	long k;

	(void)state;
	/* Case-insensitive, every track, sorted by start. */
	r = search_run(tl, NULL, "TINY");
	assert_int_equal(r->n, 50);
	assert_int_equal(r->m[0].start, 200);
	assert_int_equal(r->m[49].start, 249);
	/* Next after t=210 on track 1 is the match at 211; wraps around. */
	k = search_next(r, 210, 1, 10, 1);
	assert_int_equal(r->m[k].start, 211);
	assert_int_equal(search_next(r, 249, 1, 49, 1), 0);
	assert_int_equal(search_next(r, 200, 1, 0, -1), 49);
	/* From a time with nothing selected: the first match at it or after. */
	k = search_next(r, 210, 0, -1, 1);
	assert_int_equal(r->m[k].start, 210);
	search_free(r);
	/* A match far outside any window is still found. */
	r = search_run(tl, NULL, "needle");
	assert_int_equal(r->n, 1);
	assert_int_equal(r->m[0].start, 5000);
	search_free(r);
	r = search_run(tl, NULL, "absent");
	assert_int_equal(r->n, 0);
	assert_int_equal(search_next(r, 0, 0, -1, 1), -1);
	search_free(r);
	timeline_free(tl);
}

/* '.' and ',' with nothing selected, on a line whose summaries (events
 * folded by num_occurrences) come last with small starts: the view's
 * events, never a summary, and an event that covers the view's start is
 * on screen. */
static void test_from_view(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 3, "python3", 0);
	struct timeline *tl;
	int i;

	(void)state;
	tu_ev(p, l, "long", 50, 500); /* [50, 550) */
	tu_ev(p, l, "a", 100, 10);
	tu_ev(p, l, "b", 200, 10);
	tu_ev(p, l, "c", 300, 10);
	for (i = 0; i < 20; i++)
		tu_event_agg(l, tu_emeta(p, "agg")->id, 3, 10);
	tl = timeline_new(tu_read(tu_write(s, 0)));
	assert_int_equal(timeline_from_view(tl, 0, 150, 350, 1), 0); /* long covers 150 */
	assert_int_equal(timeline_from_view(tl, 0, 600, 700, 1), -1);
	assert_int_equal(timeline_from_view(tl, 0, 0, 150, -1), 1);   /* a */
	assert_int_equal(timeline_from_view(tl, 0, 150, 250, -1), 2); /* b */
	assert_int_equal(timeline_from_view(tl, 0, 600, 700, -1), 3); /* c, before the view */
	assert_int_equal(timeline_from_view(tl, 0, 0, 40, -1), -1);
	timeline_free(tl);
}

/* Matches that start together on one track (nested name scopes, TPU
 * copy-start and copy-done): n and N visit each, in turn. */
static void test_search_same_start(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(p, 3, "TensorFlow Name Scope", 0);
	struct timeline *tl;
	struct search_result *r;
	long k;

	(void)state;
	tu_ev(p, l, "dropout_1", 100, 50);
	tu_ev(p, l, "dropout", 100, 20);
	tu_ev(p, l, "dropout_2", 300, 10);
	tl = timeline_new(tu_read(tu_write(s, 0)));
	r = search_run(tl, NULL, "dropout");
	assert_int_equal(r->n, 3);
	k = search_next(r, r->m[0].start, r->m[0].track, r->m[0].ev, 1);
	assert_int_equal(k, 1);
	k = search_next(r, r->m[1].start, r->m[1].track, r->m[1].ev, 1);
	assert_int_equal(k, 2);
	k = search_next(r, r->m[2].start, r->m[2].track, r->m[2].ev, -1);
	assert_int_equal(k, 1);
	k = search_next(r, r->m[1].start, r->m[1].track, r->m[1].ev, -1);
	assert_int_equal(k, 0);
	search_free(r);
	timeline_free(tl);
}

/* A device's kernels are found by the op they ran for (hlo_op, as a
 * reference or a string); a host's events by their names alone. */
static void test_search_kernel_by_op(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *k = tu_line_add(g, 1, "Stream #7(Compute)", 0);
	tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *t = tu_line_add(h, 1, "python", 0);
	struct timeline *tl;
	struct search_result *r;
	tu_event *e;

	(void)state;
	e = tu_ev(g, k, "nvjet_sm90_tst", 100, 10);
	TU_SREF(g, e, "hlo_op", "custom-call.10");
	e = tu_ev(g, k, "nvjet_sm90_tst", 200, 10);
	TU_SREF(g, e, "hlo_op", "custom-call.7");
	e = tu_ev(g, k, "Memset 3", 300, 10);
	TU_SS(g, e, "hlo_op", "custom-call.10");
	e = tu_ev(g, k, "fusion_2", 400, 10); /* no op */
	/* Its op on its metadata alone, which the op profile reads too. */
	{
		tu_emeta_t *m;

		tu_ev(g, k, "gemm_k", 500, 10);
		m = tu_emeta(g, "gemm_k");
		TU_SS(g, m, "hlo_op", "custom-call.10");
	}
	e = tu_ev(h, t, "thunk", 50, 10);
	TU_SS(h, e, "hlo_op", "custom-call.10"); /* a host's: by name only */
	tu_ev(h, t, "custom-call.10", 60, 10);
	tl = timeline_new(tu_read(tu_write(s, 0)));
	r = search_run(tl, NULL, "CUSTOM-CALL.10");
	assert_int_equal(r->n, 4);
	assert_true(r->m[0].start == 60 && r->m[1].start == 100 && r->m[2].start == 300 &&
		    r->m[3].start == 500);
	search_free(r);
	r = search_run(tl, NULL, "call.7");
	assert_int_equal(r->n, 1);
	assert_true(r->m[0].start == 200);
	search_free(r);
	r = search_run(tl, NULL, "nvjet");
	assert_int_equal(r->n, 2);
	search_free(r);
	timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_sample_columns),
		TU_TEST(test_sample_brute_force),
		TU_TEST(test_lookup_step_self),
		TU_TEST(test_self_overlapping_children),
		TU_TEST(test_track_labels),
		TU_TEST(test_device_span),
		TU_TEST(test_search_whole_profile),
		TU_TEST(test_search_same_start),
		TU_TEST(test_search_kernel_by_op),
		TU_TEST(test_from_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
