/*
 * Host lines that keep no events (analysis_keep_none, a report's load):
 * every analysis and every line's count and depth come out as when the
 * lines keep them, read whole and in chunks by both threads; a line that
 * cannot do without its events (out of order, nested past the depth cap
 * across chunks) keeps them.
 */
#include "testutil.h"

#include "model/spans.h"

#define US 1000000LL /* ps */

/* Events to write on a line, put in the line's order (by start, the
 * longer first) before they are written, as upstream writes them. */
struct evs {
	struct ev1 {
		const char *name;
		int64_t off, dur;
		size_t seq;
	} *v;
	size_t n, cap;
};

static void evs_add(struct evs *e, const char *name, int64_t off, int64_t dur)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		assert_non_null(e->v);
	}
	e->v[e->n] = (struct ev1){ name, off, dur, e->n };
	e->n++;
}

static int ev1_cmp(const void *x, const void *y)
{
	const struct ev1 *a = x, *b = y;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Writes e's events to l in order, and empties e. */
static void evs_write(struct evs *e, tu_plane *h, tu_line *l)
{
	size_t i;

	qsort(e->v, e->n, sizeof(*e->v), ev1_cmp);
	for (i = 0; i < e->n; i++)
		tu_ev(h, l, e->v[i].name, e->v[i].off, e->v[i].dur);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* Events of one call tree under [at, at + span): nested calls to depth
 * `depth`, siblings side by side or touching, instants inside and at a
 * parent's very end (beside it, not in it). */
static void calls(struct evs *e, uint64_t *rs, int64_t at, int64_t span, int depth,
		  int max_depth)
{
	static const char *const names[] = { "f", "g", "h", "k" };
	int64_t t = at, k = depth >= max_depth || span < 40 ? 0 : tu_rand_range(rs, 0, 4), j;

	evs_add(e, names[depth % 4], at, span);
	for (j = 0; j < k && at + span - t >= 10; j++) {
		int64_t len = tu_rand_range(rs, 1, (at + span - t) / (k - j));

		if (tu_rand_range(rs, 0, 5) == 0)
			evs_add(e, "tick", t, 0);
		calls(e, rs, t, len, depth + 1, max_depth);
		t += len + tu_rand_range(rs, 0, 3);
	}
	if (tu_rand_range(rs, 0, 3) == 0)
		evs_add(e, "tick", at + span, 0);
}

/* A host with a Python tracer line (calls, allocations, compilations), a
 * thread line (calls, step markers by name and by stat, aggregated events,
 * durations and gaps past 32 bits), a line nested 80 deep around all of
 * its events, a line written out of order, one named again after its
 * events; and a GPU whose gaps the host work explains. */
static const char *profile(void)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *k = tu_line_add(g, 1, "Stream #1(Kernel)", 0);
	tu_line *py = tu_line_add(h, 1, "python", 0), *main_l = tu_line_add(h, 2, "main", 3);
	tu_line *deep = tu_line_add(h, 3, "deep", 0), *mixed = tu_line_add(h, 4, "mixed", 0);
	uint64_t rs = 7;
	int64_t used = 0, t;
	size_t *order, i;
	char buf[2][40];
	struct evs ev = { NULL, 0, 0 };

	for (i = 0; i < 400; i++)
		tu_ev(g, k, "kernel", (int64_t)i * 25 * US, 10 * US);
	for (t = 0, i = 0; i < 120; i++) {
		int64_t span = tu_rand_range(&rs, 50, 4000) * 1000;
		int64_t b = tu_rand_range(&rs, 1, 4096);
		int al = used < b || tu_rand_range(&rs, 0, 1);

		calls(&ev, &rs, t, span, 0, (int)(i % 6) + 1);
		evs_write(&ev, h, py);
		used += al ? b : -b;
		tu_mem_ev(h, py, al, t + span + 1, i % 3 ? "GPU_0_bfc" : "cpu",
			  (int64_t)(0x1000 + i), b, 10, used, 1 << 20, -1, al ? "op" : NULL, NULL);
		if (i % 10 == 0)
			tu_ev(h, py, "jit_f::Compile", t + span + 2, 500);
		t += span + tu_rand_range(&rs, 1, 300) * 1000;
	}
	for (t = 0, i = 0; i < 90; i++) {
		/* A step (by name or by its stat) around calls, then a gap
		 * past 2^32 ps now and then. */
		int64_t span = tu_rand_range(&rs, 100, 6000) * 1000;
		tu_event *e;

		snprintf(buf[i % 2], sizeof(buf[0]), "train#step_num=%zu#", i);
		e = tu_ev(h, main_l, i % 2 ? buf[i % 2] : "step", t, span);
		if (!(i % 2))
			TU_SI(h, e, "step_num", (int64_t)i);
		calls(&ev, &rs, t + 1, span - 2, 1, (int)(i % 5) + 1);
		evs_write(&ev, h, main_l);
		t += span + (i % 11 == 0 ? (int64_t)6 * 1000 * US : tu_rand_range(&rs, 1, 9) * US);
	}
	for (i = 0; i < 10; i++) /* aggregated ones come last */
		tu_event_agg(main_l, tu_emeta(h, "agg")->id, 5, 100);
	for (i = 0; i < 80; i++) /* 80 deep, all of the line inside */
		tu_ev(h, deep, "outer", (int64_t)i, 10000 * US - 2 * (int64_t)i);
	for (i = 0; i < 3000; i++)
		tu_ev(h, deep, "leaf", 1000 + (int64_t)i * 100, 50);
	for (i = 0; i < 3000; i++)
		tu_ev(h, mixed, "m", (int64_t)i * 100, 50 + (int64_t)(i % 7) * 30);
	{
		/* A line named again after its events ("python": not a
		 * thread's work after all). */
		tu_line *re = tu_line_add(h, 5, "worker", 0);
		ProtobufCMessageUnknownField *u = tu_xcalloc(1, sizeof(*u));

		calls(&ev, &rs, 0, 50 * US, 0, 6);
		evs_write(&ev, h, re);
		u->tag = 2;
		u->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
		u->len = 7;
		u->data = tu_xcalloc(1, 7);
		memcpy(u->data, "\x06python", 7);
		re->base.n_unknown_fields = 1;
		re->base.unknown_fields = u;
	}
	order = tu_shuffled(mixed->n_events, &rs);
	{
		tu_event **v = tu_xcalloc(mixed->n_events, sizeof(*v));

		for (i = 0; i < mixed->n_events; i++)
			v[i] = mixed->events[order[i]];
		memcpy(mixed->events, v, mixed->n_events * sizeof(*v));
		free(v);
	}
	free(order);
	return tu_write(s, 0);
}

/* The trace and analyses of path, with host lines keeping their events or
 * not, lines of split bytes or more read in chunks (0: whole). */
static struct xt_analysis *load(const char *path, int none, uint64_t split, struct xt_trace **t)
{
	struct analysis_ctx *ac = analysis_new();
	struct xplane_load_opts o = { .threads = 2, .split_bytes = split };
	struct xt_error err = { "" };
	struct xt_analysis *a;

	*t = trace_new();
	analysis_attach(ac, &o);
	if (none)
		analysis_keep_none(ac, &o);
	assert_int_equal(xplane_load(*t, path, "host", &o, &err), 0);
	a = analysis_finish(ac, *t);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ *t, a }));
	return a;
}

static const struct xt_line *line_named(const struct xt_trace *t, const char *name)
{
	size_t p, l;

	for (p = 0; p < t->hosts[0].nplanes; p++)
		for (l = 0; l < t->hosts[0].planes[p].nlines; l++)
			if (!strcmp(t->hosts[0].planes[p].lines[l].name, name))
				return &t->hosts[0].planes[p].lines[l];
	fail_msg("no line %s", name);
	return NULL;
}

static void assert_same(const struct xt_trace *t0, const struct xt_analysis *a0,
			const struct xt_trace *t1, const struct xt_analysis *a1)
{
	size_t p, l, i, j;

	for (p = 0; p < t0->hosts[0].nplanes; p++)
		for (l = 0; l < t0->hosts[0].planes[p].nlines; l++) {
			const struct xt_line *x = &t0->hosts[0].planes[p].lines[l];
			const struct xt_line *y = &t1->hosts[0].planes[p].lines[l];

			assert_string_equal(x->name, y->name);
			assert_int_equal(x->nev, y->nev);
			assert_int_equal(x->max_depth, y->max_depth);
		}
	assert_int_equal(a0->nsteps, a1->nsteps);
	for (i = 0; i < a0->nsteps; i++) {
		assert_int_equal(a0->steps[i].id, a1->steps[i].id);
		assert_int_equal(a0->steps[i].start_ps, a1->steps[i].start_ps);
		assert_int_equal(a0->steps[i].duration_ps, a1->steps[i].duration_ps);
		assert_int_equal(a0->steps[i].idle_ps, a1->steps[i].idle_ps);
		for (j = 0; j < XT_CAT_COUNT; j++)
			assert_int_equal(a0->steps[i].cat_ps[j], a1->steps[i].cat_ps[j]);
	}
	assert_int_equal(a0->overview.compiles, a1->overview.compiles);
	assert_int_equal(a0->overview.compile_ps, a1->overview.compile_ps);
	assert_int_equal(a0->overview.host_bound_ps, a1->overview.host_bound_ps);
	assert_int_equal(a0->ndevices, a1->ndevices);
	for (i = 0; i < a0->ndevices; i++) {
		assert_int_equal(a0->devices[i].busy_ps, a1->devices[i].busy_ps);
		assert_int_equal(a0->devices[i].host_bound_ps, a1->devices[i].host_bound_ps);
		assert_int_equal(a0->devices[i].longest_gap_ps, a1->devices[i].longest_gap_ps);
		assert_int_equal(a0->devices[i].gaps_over_1ms, a1->devices[i].gaps_over_1ms);
	}
	assert_int_equal(a0->nmemory, a1->nmemory);
	for (i = 0; i < a0->nmemory; i++) {
		const struct xt_memory_row *x = &a0->memory[i], *y = &a1->memory[i];

		assert_string_equal(x->allocator, y->allocator);
		assert_int_equal(x->peak_bytes, y->peak_bytes);
		assert_int_equal(x->peak_time_ps, y->peak_time_ps);
		assert_int_equal(x->events, y->events);
		assert_int_equal(x->nlive, y->nlive);
		for (j = 0; j < x->nlive; j++) {
			assert_int_equal(x->live[j].bytes, y->live[j].bytes);
			assert_int_equal(x->live[j].time_ps, y->live[j].time_ps);
			assert_string_equal(x->live[j].op ? x->live[j].op : "",
					    y->live[j].op ? y->live[j].op : "");
		}
		for (j = 0; j < XT_MEM_SERIES; j++)
			assert_int_equal(x->series[j], y->series[j]);
	}
}

static void test_keep_none_same(void **state)
{
	const char *path = profile();
	static const uint64_t splits[] = { 0, 4096, 1536 };
	size_t r;

	(void)state;
	for (r = 0; r < sizeof(splits) / sizeof(splits[0]); r++) {
		struct xt_trace *t0, *t1;
		struct xt_analysis *a0 = load(path, 0, splits[r], &t0);
		struct xt_analysis *a1 = load(path, 1, splits[r], &t1);

		assert_same(t0, a0, t1, a1);
		if (getenv("TU_COUNTS"))
			print_message("events %zu python %zu main %zu\n", t0->nev,
				      line_named(t0, "python")->nev, line_named(t0, "main")->nev);
		/* The answers are not empty ones. */
		assert_true(a0->nsteps >= 80);
		assert_true(a0->overview.compiles >= 12);
		assert_true(a0->nmemory >= 2);
		assert_true(a0->devices[0].host_bound_ps > 0);
		assert_true(line_named(t0, "deep")->max_depth >= 80);
		/* The lines in order kept nothing; the one out of order did. */
		assert_true(line_named(t1, "python")->kept_none);
		assert_null(line_named(t1, "python")->ev);
		assert_true(line_named(t1, "main")->kept_none);
		assert_false(line_named(t1, "mixed")->kept_none);
		assert_non_null(line_named(t1, "mixed")->ev);
		assert_false(line_named(t1, "Stream #1(Kernel)")->kept_none);
		assert_string_equal(t1->hosts[0].planes[1].lines[4].name, "python");
		assert_false(t1->hosts[0].planes[1].lines[4].kept_none);
		assert_false(line_named(t0, "python")->kept_none);
		/* In chunks, the deep line's later chunks start 80 deep: past
		 * the depth a fix-up can give, so it kept its events. */
		if (splits[r])
			assert_false(line_named(t1, "deep")->kept_none);
		else
			assert_true(line_named(t1, "deep")->kept_none);
	}
	/* Lines were split: the Python line is far longer than a chunk. */
	{
		struct xt_trace *t;

		(void)load(path, 1, 1536, &t);
		assert_true(line_named(t, "python")->raw_len > 20 * 1536);
	}
}

/* Depths over many random call trees cut into chunks of every size: the
 * tops each chunk leaves give the depth the events give. */
static void test_keep_none_depths(void **state)
{
	uint64_t rs = 99;
	size_t round;

	(void)state;
	for (round = 0; round < 12; round++) {
		tu_space *s = tu_space_new();
		tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
		tu_line *l = tu_line_add(h, 1, round % 2 ? "python" : "worker", 0);
		struct xt_trace *t0, *t1;
		int64_t t = 0;
		size_t i;
		const char *path;
		struct evs ev = { NULL, 0, 0 };

		for (i = 0; i < 40; i++) {
			int64_t span = tu_rand_range(&rs, 10, 3000) * 1000;

			calls(&ev, &rs, t, span, 0, (int)tu_rand_range(&rs, 1, 12));
			t += span + (round % 3 ? tu_rand_range(&rs, 0, 2) : 0);
		}
		evs_write(&ev, h, l);
		path = tu_write(s, 0);
		(void)load(path, 0, 0, &t0);
		(void)load(path, 1, (uint64_t)tu_rand_range(&rs, 200, 3000), &t1);
		assert_int_equal(t1->hosts[0].planes[0].lines[0].nev,
				 t0->hosts[0].planes[0].lines[0].nev);
		assert_int_equal(t1->hosts[0].planes[0].lines[0].max_depth,
				 t0->hosts[0].planes[0].lines[0].max_depth);
		assert_true(t1->hosts[0].planes[0].lines[0].kept_none);
	}
}

/* A list cut anywhere into parts, each packed from its own start and
 * joined with span_pack_cat, is the list packed in one go: touching and
 * overlapping spans across the cuts, parts that fall inside one span,
 * empty parts. */
static void test_span_pack_cat(void **state)
{
	uint64_t rs = 5;
	size_t round;

	(void)state;
	for (round = 0; round < 200; round++) {
		enum { N = 300 };
		struct span v[N];
		struct span_pack one, joined, part;
		struct span_rd ra, rb;
		struct span x, y;
		int64_t shift = round % 7 ? tu_rand_range(&rs, -1000000, 1000000)
					  : INT64_MAX / 2; /* far, without wrapping */
		int64_t t = tu_rand_range(&rs, -5000, 5000);
		size_t i;

		memset(&one, 0, sizeof(one));
		memset(&joined, 0, sizeof(joined));
		memset(&part, 0, sizeof(part));
		for (i = 0; i < N; i++) {
			t += tu_rand_range(&rs, 0, 40);
			v[i] = (struct span){ t, t + tu_rand_range(&rs, 0, round % 2 ? 500 : 60) };
			span_pack_add(&one, (int64_t)((uint64_t)v[i].s + (uint64_t)shift),
				      (int64_t)((uint64_t)v[i].e + (uint64_t)shift));
		}
		for (i = 0; i < N; i++) {
			if (tu_rand_range(&rs, 0, round % 3 ? 20 : 2) == 0) {
				span_pack_cat(&joined, &part, shift);
				span_pack_free(&part);
			}
			span_pack_add(&part, v[i].s, v[i].e);
		}
		span_pack_cat(&joined, &part, shift);
		span_pack_free(&part);
		span_pack_done(&one);
		span_pack_done(&joined);
		assert_int_equal(joined.n, one.n);
		span_rd_init(&ra, &one);
		span_rd_init(&rb, &joined);
		while (span_rd_next(&ra, &x)) {
			assert_true(span_rd_next(&rb, &y));
			assert_int_equal(x.s, y.s);
			assert_int_equal(x.e, y.e);
		}
		assert_false(span_rd_next(&rb, &y));
		span_pack_free(&one);
		span_pack_free(&joined);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_keep_none_same),
		TU_TEST(test_keep_none_depths),
		TU_TEST(test_span_pack_cat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
