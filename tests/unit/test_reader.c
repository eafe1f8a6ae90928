/*
 * test_reader: the model without analyses — xplane_reader (sorting, nesting
 * depth, window index, metadata, stats, odd ids, aggregated events, gzip,
 * bad input) and profile_path (run directories and logdirs).
 */
#include "testutil.h"

#include <utime.h>

#include "model/profile_path.h"
#include "util/bigmem.h"

/* ---- sorting and nesting ---- */

static void test_events_sorted_by_start(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 5);
	const struct xt_line *xl;
	struct xt_trace *t;

	(void)state;
	/* Written out of order; each event has its own metadata so that the
	 * names show the events moved with their data. */
	tu_ev(p, l, "c", 300, 10);
	tu_ev(p, l, "a", 100, 10);
	tu_ev(p, l, "b", 200, 10);
	t = tu_read(tu_write(s, 0));
	assert_int_equal(t->nhosts, 1);
	assert_int_equal(t->nev, 3);
	xl = &t->hosts[0].planes[0].lines[0];
	assert_int_equal(xl->nev, 3);
	assert_int_equal(xl->timestamp_ns, 5);
	assert_int_equal(xt_event_off(xl, 0), 100);
	assert_int_equal(xt_event_off(xl, 1), 200);
	assert_int_equal(xt_event_off(xl, 2), 300);
	assert_string_equal(trace_event_display_name(&t->hosts[0].planes[0], &xl->ev[0]), "a");
	assert_string_equal(trace_event_display_name(&t->hosts[0].planes[0], &xl->ev[1]), "b");
	assert_string_equal(trace_event_display_name(&t->hosts[0].planes[0], &xl->ev[2]), "c");
	/* Absolute times: 5 ns = 5000 ps base. */
	assert_int_equal(xt_event_start(xl, &xl->ev[0]), 5100);
	assert_int_equal(xt_event_end(xl, &xl->ev[2]), 5310);
}

static void test_nesting_depth(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	const struct xt_plane *xp;
	const struct xt_line *xl;
	struct xt_trace *t;
	static const struct {
		const char *name;
		unsigned depth;
	} want[] = {
		/* sorted by start, equal starts longer first */
		{ "P", 0 },      /* [0,100) */
		{ "B", 1 },      /* [10,40) child of P */
		{ "C", 1 },      /* [40,60) sibling of B (starts at B's end) */
		{ "D", 2 },      /* [45,55) child of C */
		{ "inst", 1 },   /* instant at 70 inside P */
		{ "Q", 0 },      /* [100,200) starts at P's end: sibling of P */
		{ "Qshort", 1 }, /* [100,150) same start as Q, shorter: child */
		{ "Pend", 0 },   /* instant at 200 = Q's end: outside Q */
		{ "E1", 0 },     /* [300,400) */
		{ "E2", 1 },     /* [300,400) equal span, later in file: child */
	};
	size_t i;

	(void)state;
	/* File order deliberately differs from the sorted order. */
	tu_ev(p, l, "Pend", 200, 0);
	tu_ev(p, l, "Qshort", 100, 50);
	tu_ev(p, l, "Q", 100, 100);
	tu_ev(p, l, "D", 45, 10);
	tu_ev(p, l, "C", 40, 20);
	tu_ev(p, l, "B", 10, 30);
	tu_ev(p, l, "P", 0, 100);
	tu_ev(p, l, "inst", 70, 0);
	tu_ev(p, l, "E1", 300, 100);
	tu_ev(p, l, "E2", 300, 100);
	t = tu_read(tu_write(s, 0));
	xp = &t->hosts[0].planes[0];
	xl = &xp->lines[0];
	assert_int_equal(xl->nev, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < xl->nev; i++) {
		const char *n = trace_event_display_name(xp, &xl->ev[i]);

		if (strcmp(n, want[i].name) || xt_event_depth(&xl->ev[i]) != want[i].depth)
			fail_msg("event %zu: got %s depth %u, want %s depth %u", i, n,
				 xt_event_depth(&xl->ev[i]), want[i].name, want[i].depth);
	}
	assert_int_equal(xl->max_depth, 2);
}

/* ---- window queries, by brute force ---- */

struct gen_ev {
	int64_t off, dur;
};

/* Fills [s, e) with properly nested children (gaps, instants, recursion). */
static void gen_nested(uint64_t *rs, struct gen_ev *out, size_t *n, size_t cap, int64_t s,
		       int64_t e, int depth)
{
	int64_t t = s;

	while (*n < cap) {
		int64_t gap = tu_rand_range(rs, 0, 20), dur, maxd;

		if (t + gap >= e)
			break;
		t += gap;
		if (tu_rand(rs) % 8 == 0) {
			out[(*n)++] = (struct gen_ev){ t, 0 }; /* instant, strictly inside */
			continue;
		}
		maxd = e - t;
		if (maxd > (4000 >> depth))
			maxd = 4000 >> depth;
		dur = tu_rand_range(rs, 1, maxd > 0 ? maxd : 1);
		if (t + dur > e)
			dur = e - t;
		out[(*n)++] = (struct gen_ev){ t, dur };
		if (depth < 6 && dur > 4)
			gen_nested(rs, out, n, cap, t, t + dur, depth + 1);
		t += dur;
	}
}

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_ev *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->dur < y->dur) - (x->dur > y->dur);
}

static void test_window_brute_force(void **state)
{
	enum { N = 5000, NAGG = 3, NWIN = 3000 };
	uint64_t rs = 0x9e3779b97f4a7c15ull;
	struct gen_ev *g = tu_xcalloc(N, sizeof(*g));
	size_t n = 0, i, j, hits = 0;
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *l = tu_line_add(p, 7, "XLA Ops", 1234);
	int64_t mid = tu_emeta(p, "op")->id, base = 1234 * 1000, maxend = 0;
	const struct xt_line *xl;
	struct xt_trace *t;
	unsigned maxdepth = 0;

	(void)state;
	gen_nested(&rs, g, &n, N, 0, INT64_MAX / 4, 0);
	assert_int_equal(n, N);
	/* Written in shuffled order, with a few aggregated events mixed in. */
	for (i = n; i > 1; i--) {
		struct gen_ev tmp;

		j = (size_t)(tu_rand(&rs) % i);
		tmp = g[i - 1];
		g[i - 1] = g[j];
		g[j] = tmp;
	}
	for (i = 0; i < n; i++) {
		tu_event_add(l, mid, g[i].off, g[i].dur);
		if (i % 1700 == 0)
			tu_event_agg(l, mid, 3, 10);
		if (g[i].off + g[i].dur > maxend)
			maxend = g[i].off + g[i].dur;
	}
	t = tu_read(tu_write(s, 0));
	xl = &t->hosts[0].planes[0].lines[0];
	assert_int_equal(xl->nev, N + NAGG);
	/* The non-aggregated events come first, sorted, and are the ones written. */
	qsort(g, n, sizeof(*g), gen_cmp);
	for (i = 0; i < n; i++) {
		assert_false(xt_event_aggregated(&xl->ev[i]));
		assert_int_equal(xt_event_off(xl, i), g[i].off);
		assert_int_equal(xt_event_dur(xl, &xl->ev[i]), g[i].dur);
	}
	for (i = n; i < xl->nev; i++)
		assert_true(xt_event_aggregated(&xl->ev[i]));
	/* Depth = number of earlier events (in the sorted order) whose span
	 * contains the event; an instant is inside [s, e) only. */
	for (i = 0; i < n; i++) {
		const struct xt_event *e = &xl->ev[i];
		unsigned d = 0;

		for (j = 0; j < i; j++) {
			const struct xt_event *f = &xl->ev[j];

			int64_t es = xt_event_off(xl, i), fs = xt_event_off(xl, j);

			if (xt_event_dur(xl, f) <= 0 || fs > es)
				continue;
			if (xt_event_dur(xl, e) > 0 ? es + xt_event_dur(xl, e) <= fs + xt_event_dur(xl, f)
					  : es < fs + xt_event_dur(xl, f))
				d++;
		}
		if (xt_event_depth(e) != d)
			fail_msg("event %zu [%lld,+%lld): depth %u, want %u", i, (long long)xt_event_off(xl, i),
				 (long long)xt_event_dur(xl, e), xt_event_depth(e), d);
		if (d > maxdepth)
			maxdepth = d;
	}
	assert_int_equal(xl->max_depth, maxdepth);
	assert_true(maxdepth >= 3);
	/* Random windows [t0, t1) in absolute ps, some empty, some outside. */
	for (i = 0; i < NWIN; i++) {
		int64_t t0 = base + tu_rand_range(&rs, -100, maxend + 100);
		int64_t t1 = t0 + (i % 10 == 0 ? 0 : tu_rand_range(&rs, 1, i % 3 ? 300 : 5000));
		size_t first = SIZE_MAX, end = trace_line_window(xl, t0, t1, &first);

		assert_true(first <= end);
		assert_true(end <= xl->nev);
		for (j = 0; j < xl->nev; j++) {
			const struct xt_event *e = &xl->ev[j];
			int64_t a = xt_event_start(xl, e), b = xt_event_end(xl, e);
			int overlap;

			if (xt_event_aggregated(e))
				continue;
			overlap = xt_event_dur(xl, e) > 0 ? (a < t1 && b > t0) : (t0 <= a && a < t1);
			if (!overlap)
				continue;
			hits++;
			if (j < first || j >= end)
				fail_msg("window [%lld,%lld): event %zu [%lld,%lld) outside [%zu,%zu)",
					 (long long)t0, (long long)t1, j, (long long)a, (long long)b,
					 first, end);
		}
	}
	assert_true(hits > (size_t)NWIN); /* the windows did find events */
	free(g);
}

/* ---- stats ---- */

/* The next stat of `it` into `st`, of the given kind. */
#define NEXT_STAT(k)                                                           \
	do {                                                                   \
		assert_true(stat_next(&it, &st));                              \
		assert_int_equal(st.kind, (k));                                \
	} while (0)

static void test_stats_kinds_ref_unknown(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	tu_emeta_t *m;
	tu_event *e;
	struct xt_trace *t;
	const struct xt_host *h;
	const struct xt_plane *xp;
	const struct xt_line *xl;
	struct stat_iter it;
	struct xt_stat st;
	char buf[64];

	(void)state;
	tu_smeta_id(p, 1, "group_id");
	tu_smeta_id(p, 2, "hlo_op");
	tu_smeta_id(p, 3, "fusion.7"); /* the target of a ref_value */
	tu_smeta_id(p, 4, "d");
	tu_smeta_id(p, 5, "u");
	tu_smeta_id(p, 6, "i");
	tu_smeta_id(p, 7, "s");
	tu_smeta_id(p, 8, "tf_op");
	tu_smeta_id(p, 9, "n");
	tu_smeta_id(p, 10, "profile_start_time");
	m = tu_emeta_id(p, 20, "kernel", "Kernel!");
	tu_stat_int(&m->n_stats, &m->stats, 1, 9);              /* group_id on metadata */
	tu_stat_str(&m->n_stats, &m->stats, 2, "from_meta");    /* hlo_op on metadata */
	tu_stat_str(&m->n_stats, &m->stats, 8, "scope/op:Type"); /* only on metadata */
	e = tu_event_add(l, 20, 10, 5);
	tu_stat_int(&e->n_stats, &e->stats, 1, 5);                     /* group_id */
	tu_stat_int(&e->n_stats, &e->stats, 999, 77);                  /* unknown id */
	tu_stat_double(&e->n_stats, &e->stats, 4, 2.5);
	tu_stat_uint(&e->n_stats, &e->stats, 5, 0x8000000000000001ull);
	tu_stat_int(&e->n_stats, &e->stats, 6, -42);
	tu_stat_str(&e->n_stats, &e->stats, 7, "hello");
	tu_stat_ref(&e->n_stats, &e->stats, 2, 3);                     /* hlo_op -> "fusion.7" */
	tu_stat_str(&e->n_stats, &e->stats, 9, "123");
	tu_stat_ref(&e->n_stats, &e->stats, 9, 4242);                  /* dangling ref */
	tu_stat_uint(&p->n_stats, &p->stats, 10, 123456789);           /* plane stat */
	t = tu_read(tu_write(s, 0));
	h = &t->hosts[0];
	xp = &h->planes[0];
	xl = &xp->lines[0];
	assert_int_equal(xp->nsmeta, 10);
	assert_string_equal(trace_smeta_lookup(xp, 3)->name, "fusion.7");
	assert_null(trace_smeta_lookup(xp, 999));
	assert_string_equal(trace_event_display_name(xp, &xl->ev[0]), "Kernel!");
	assert_string_equal(xt_event_meta(xp, &xl->ev[0])->name, "kernel");

	stat_iter_event(&it, h, xp, xl, &xl->ev[0]);
	NEXT_STAT(XT_STAT_INT);
	assert_int_equal(st.i, 5);
	assert_int_equal(stat_known(&st), XS_GROUP_ID);
	assert_true(stat_next(&it, &st)); /* unknown metadata id: no crash, no meta */
	assert_int_equal(st.meta_id, 999);
	assert_null(st.meta);
	assert_int_equal(stat_known(&st), XS_NONE);
	assert_int_equal(stat_as_int(&st), 77);
	NEXT_STAT(XT_STAT_DOUBLE);
	assert_true(st.d == 2.5);
	assert_string_equal(st.meta->name, "d");
	assert_int_equal(stat_as_int(&st), 2);
	NEXT_STAT(XT_STAT_UINT);
	assert_true(st.u == 0x8000000000000001ull);
	assert_string_equal(stat_to_text(&st, buf, sizeof(buf)), "9223372036854775809");
	NEXT_STAT(XT_STAT_INT);
	assert_int_equal(st.i, -42);
	assert_string_equal(stat_to_text(&st, buf, sizeof(buf)), "-42");
	NEXT_STAT(XT_STAT_STR);
	assert_int_equal(st.n, 5);
	assert_memory_equal(st.s, "hello", 5);
	NEXT_STAT(XT_STAT_REF);
	assert_int_equal(st.u, 3);
	assert_int_equal(stat_known(&st), XS_HLO_OP);
	assert_int_equal(st.n, 8);
	assert_memory_equal(st.s, "fusion.7", 8);
	NEXT_STAT(XT_STAT_STR);
	assert_int_equal(stat_as_int(&st), 123);
	NEXT_STAT(XT_STAT_REF); /* ref to an unknown id: empty string */
	assert_int_equal(st.n, 0);
	assert_false(stat_next(&it, &st));

	/* Plane stats. */
	assert_int_equal(xp->nstats, 1);
	stat_iter_plane(&it, h, xp, 0);
	assert_true(stat_next(&it, &st));
	assert_int_equal(stat_known(&st), XS_PROFILE_START_TIME);
	assert_int_equal(st.u, 123456789);
	assert_false(stat_next(&it, &st));

	/* Metadata stats. */
	stat_iter_meta(&it, h, xp, xt_event_meta(xp, &xl->ev[0]));
	assert_true(stat_next(&it, &st));
	assert_int_equal(stat_known(&st), XS_GROUP_ID);
	assert_int_equal(st.i, 9);
}

static void test_stat_collect_event_first(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	tu_emeta_t *m = tu_emeta(p, "k");
	tu_event *e;
	struct xt_trace *t;
	const struct xt_plane *xp;
	const struct xt_line *xl;
	struct xt_known_stats ks;
	const uint64_t want = 1ull << XS_GROUP_ID | 1ull << XS_HLO_OP | 1ull << XS_TF_OP |
			      1ull << XS_STEP_NUM;

	(void)state;
	TU_SI(p, m, "group_id", 9);
	TU_SS(p, m, "hlo_op", "meta_op");
	TU_SS(p, m, "tf_op", "meta_tf");
	e = tu_event_add(l, m->id, 0, 10);
	TU_SI(p, e, "group_id", 5);
	TU_SREF(p, e, "hlo_op", "fusion.7");
	tu_event_add(l, m->id, 20, 10); /* no event stats at all */
	t = tu_read(tu_write(s, 0));
	xp = &t->hosts[0].planes[0];
	xl = &xp->lines[0];

	stat_collect(&ks, &t->hosts[0], xp, xl, &xl->ev[0], want);
	assert_true(stat_has(&ks, XS_GROUP_ID));
	assert_int_equal(stat_as_int(&ks.v[XS_GROUP_ID]), 5); /* the event's, not 9 */
	assert_true(stat_has(&ks, XS_HLO_OP));
	assert_int_equal(ks.v[XS_HLO_OP].kind, XT_STAT_REF);
	assert_int_equal(ks.v[XS_HLO_OP].n, 8);
	assert_memory_equal(ks.v[XS_HLO_OP].s, "fusion.7", 8);
	assert_true(stat_has(&ks, XS_TF_OP)); /* from the metadata */
	assert_memory_equal(ks.v[XS_TF_OP].s, "meta_tf", 7);
	assert_false(stat_has(&ks, XS_STEP_NUM));

	stat_collect(&ks, &t->hosts[0], xp, xl, &xl->ev[1], want);
	assert_int_equal(stat_as_int(&ks.v[XS_GROUP_ID]), 9);
	assert_memory_equal(ks.v[XS_HLO_OP].s, "meta_op", 7);
}

/* The scan that collects an event's wanted stats reads upstream's usual
 * shapes in place: what it finds must be what the general decoder reads
 * from the same bytes, for every kind, long varints and strings, an id over
 * 127, a double, an empty string and a dangling reference. */
static void test_stat_scan_matches_decode(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(p, 1, "Stream #1(Kernel)", 0);
	tu_emeta_t *m = tu_emeta(p, "k");
	tu_event *e;
	struct xt_trace *t;
	const struct xt_host *h;
	const struct xt_plane *xp;
	const struct xt_line *xl;
	struct stat_want sw;
	struct stat_iter it;
	struct xt_known_stats ks;
	struct xt_stat st;
	char long_op[301];
	uint64_t found, seen = 0, mask = 0;
	unsigned k;

	(void)state;
	memset(long_op, 'x', 300);
	long_op[300] = '\0';
	tu_smeta_id(p, 1, "group_id");
	tu_smeta_id(p, 2, "hlo_op");
	tu_smeta_id(p, 3, "tf_op");
	tu_smeta_id(p, 4, "kernel_details");
	tu_smeta_id(p, 5, "program_id");
	tu_smeta_id(p, 200, "hlo_module");
	tu_smeta_id(p, 6, "flops");
	tu_smeta_id(p, 7, "bytes_accessed");
	tu_smeta_id(p, 8, "fusion.9");
	tu_smeta_id(p, 9, "hlo_category");
	e = tu_event_add(l, m->id, 0, 10);
	tu_stat_int(&e->n_stats, &e->stats, 1, -5);
	tu_stat_ref(&e->n_stats, &e->stats, 2, 8);
	tu_stat_str(&e->n_stats, &e->stats, 3, long_op);
	tu_stat_str(&e->n_stats, &e->stats, 4, "grid:1,1,1 block:32,1,1");
	tu_stat_uint(&e->n_stats, &e->stats, 5, UINT64_MAX);
	tu_stat_str(&e->n_stats, &e->stats, 200, "jit_x");
	tu_stat_double(&e->n_stats, &e->stats, 6, 1.5);
	tu_stat_ref(&e->n_stats, &e->stats, 7, 4242);
	tu_stat_str(&e->n_stats, &e->stats, 9, "");
	tu_stat_int(&e->n_stats, &e->stats, 1, 77); /* a second group_id: the first wins */
	t = tu_read(tu_write(s, 0));
	h = &t->hosts[0];
	xp = &h->planes[0];
	xl = &xp->lines[0];

	mask = 1ull << XS_GROUP_ID | 1ull << XS_HLO_OP | 1ull << XS_TF_OP |
	       1ull << XS_KERNEL_DETAILS | 1ull << XS_PROGRAM_ID | 1ull << XS_HLO_MODULE |
	       1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED | 1ull << XS_HLO_CATEGORY;
	stat_want_init(&sw, xp, mask);
	assert_int_equal(stat_scan_event(h, xp, xl, &xl->ev[0], &sw, ks.v, &found), 9);
	stat_iter_event(&it, h, xp, xl, &xl->ev[0]);
	while (stat_next(&it, &st)) {
		const struct xt_stat *o;

		k = stat_known(&st);
		if (!((mask >> k) & 1) || ((seen >> k) & 1))
			continue;
		seen |= 1ull << k;
		assert_true((found >> k) & 1);
		o = &ks.v[k];
		assert_int_equal(o->kind, st.kind);
		assert_ptr_equal(o->meta, st.meta);
		assert_int_equal(o->meta_id, st.meta_id);
		assert_true(o->u == st.u);
		assert_int_equal(o->i, st.i);
		assert_memory_equal(&o->d, &st.d, sizeof(st.d));
		assert_int_equal(o->n, st.n);
		if (st.n)
			assert_memory_equal(o->s, st.s, st.n);
	}
	assert_true(seen == found);
	assert_int_equal(ks.v[XS_GROUP_ID].i, -5);
	assert_int_equal(ks.v[XS_TF_OP].n, 300);
	assert_memory_equal(ks.v[XS_HLO_OP].s, "fusion.9", 8);
	assert_int_equal(ks.v[XS_BYTES_ACCESSED].n, 0);
	assert_memory_equal(ks.v[XS_HLO_MODULE].s, "jit_x", 5);
}

/* ---- ids, metadata, aggregated events, XSpace strings ---- */

static void test_line_ids_extreme(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, -3, "/device:GPU:0");
	static const int64_t ids[] = { -7, (int64_t)0x8000000000000005ull, INT64_MAX, INT64_MIN,
				       0xdeadbeefLL, (int64_t)(int32_t)0xdeadbeefu, 0 };
	const size_t n = sizeof(ids) / sizeof(ids[0]);
	struct xt_trace *t;
	const struct xt_plane *xp;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++) {
		/* int64 fields: negative values go on the wire as the 10-byte
		 * varint of the uint64 two's complement. */
		tu_line *l = tu_line_add(p, ids[i], "line", -(int64_t)i);

		l->display_id = ids[n - 1 - i];
		tu_ev(p, l, "k", 1, 1);
	}
	t = tu_read(tu_write(s, 0));
	xp = &t->hosts[0].planes[0];
	assert_int_equal(xp->id, -3);
	assert_int_equal(xp->nlines, n);
	for (i = 0; i < n; i++) {
		assert_true(xp->lines[i].id == ids[i]);
		assert_true(xp->lines[i].display_id == ids[n - 1 - i]);
		assert_true(xp->lines[i].timestamp_ns == -(int64_t)i);
		assert_int_equal(xp->lines[i].nev, 1);
	}
	assert_true((uint64_t)xp->lines[1].id == 0x8000000000000005ull);
}

static void test_unknown_event_metadata(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	struct xt_trace *t;
	const struct xt_plane *xp;
	const struct xt_line *xl;

	(void)state;
	tu_emeta_id(p, 5, "known", "");
	tu_emeta_id(p, -9, "negative id", "shown");
	tu_event_add(l, 12345, 0, 10); /* no such metadata */
	tu_event_add(l, 5, 20, 10);
	tu_event_add(l, -9, 40, 10);
	t = tu_read(tu_write(s, 0));
	xp = &t->hosts[0].planes[0];
	xl = &xp->lines[0];
	assert_int_equal(xp->nemeta, 3); /* [0] is the synthetic empty entry */
	assert_int_equal(xt_event_meta_index(&xl->ev[0]), 0);
	assert_string_equal(xt_event_meta(xp, &xl->ev[0])->name, "");
	assert_string_equal(trace_event_display_name(xp, &xl->ev[0]), "");
	assert_int_not_equal(xt_event_meta_index(&xl->ev[1]), 0);
	assert_string_equal(trace_event_display_name(xp, &xl->ev[1]), "known");
	assert_string_equal(trace_event_display_name(xp, &xl->ev[2]), "shown");
	assert_int_equal(trace_emeta_lookup(xp, 12345), 0);
	assert_string_equal(xp->emeta[trace_emeta_lookup(xp, -9)].name, "negative id");
}

/* An event added to l whose events array has room (reserve_events):
 * tu_event_add grows it one by one, which sanitizer builds make quadratic
 * on the big lines below. */
static void reserve_events(tu_line *l, size_t n)
{
	l->events = realloc(l->events, (l->n_events + n) * sizeof(*l->events));
	assert_non_null(l->events);
}

static tu_event *event_in_room(tu_line *l, int64_t meta_id, int64_t off_ps, int64_t dur_ps)
{
	tu_event *e = tu_xcalloc(1, sizeof(*e));

	tensorflow__profiler__xevent__init(e);
	e->metadata_id = meta_id;
	e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
	e->offset_ps = off_ps;
	e->duration_ps = dur_ps;
	l->events[l->n_events++] = e;
	return e;
}

/* Metadata ids that differ only in their high bits (i << 48, as a hostile
 * file may write them), each with an event: every event finds its own
 * metadata, and ids next to them find none. The tables hash every bit of
 * the id, so these spread over the slots as dense ids do (with the low
 * bits alone they all met in one slot, and the reader took 9 s for 400 000
 * of them). */
static void test_metadata_ids_high_bits(void **state)
{
	enum { N = 20000 };
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	struct xt_trace *t;
	const struct xt_plane *xp;
	const struct xt_line *xl;
	char name[32];
	size_t i;

	(void)state;
	reserve_events(l, N);
	for (i = 1; i <= N; i++) {
		snprintf(name, sizeof(name), "e%zu", i);
		tu_emeta_id(p, (int64_t)((uint64_t)i << 48), name, NULL);
		event_in_room(l, (int64_t)((uint64_t)i << 48), (int64_t)i * 10, 5);
	}
	t = tu_read(tu_write(s, 0));
	xp = &t->hosts[0].planes[0];
	xl = &xp->lines[0];
	assert_int_equal(xp->nemeta, N + 1);
	assert_int_equal(xl->nev, N);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "e%zu", i + 1);
		assert_string_equal(xt_event_meta(xp, &xl->ev[i])->name, name);
		assert_int_equal(trace_emeta_lookup(xp, (int64_t)(((uint64_t)i + 1) << 48) + 1), 0);
	}
}

/* The value of the int stat "i" on event ev of line 0 of plane 0. */
static int64_t ev_tag(const struct xt_trace *t, const struct xt_line *xl, size_t e)
{
	const struct xt_host *h = &t->hosts[0];
	struct stat_iter it;
	struct xt_stat st;

	stat_iter_event(&it, h, &h->planes[0], xl, &xl->ev[e]);
	assert_true(stat_next(&it, &st));
	return stat_as_int(&st);
}

/*
 * 12-byte events: durations that need the long list (2^32 - 1 ps and up;
 * one past INT64_MAX, negative as written, reads as an instant), events
 * that had to be sorted (every offset kept) and events in file order (an
 * offset per block, the rest found by skipping), read in order and at
 * random.
 */
static void test_event_records(void **state)
{
	static const int64_t durs[] = { 0, 1, 4294967294LL, 4294967295LL, 4294967296LL,
					1000000000000000LL, -5, 77 };
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l0 = tu_line_add(p, 1, "shuffled", 0), *l1 = tu_line_add(p, 2, "in order", 0);
	int64_t m = tu_emeta(p, "k")->id;
	int64_t want[8];
	uint64_t rs = 11;
	struct xt_trace *t;
	const struct xt_line *x0, *x1;
	enum { N = 700 };
	int64_t off[N];
	size_t i, k, nlong = 0;

	(void)state;
	for (i = 0; i < 8; i++)
		want[i] = durs[i] < 0 ? 0 : durs[i];
	/* Line 0: distinct starts in shuffled order; the stat says which. */
	for (i = 0; i < N; i++)
		off[i] = (int64_t)i * 1000;
	for (i = N - 1; i > 0; i--) {
		size_t j = (size_t)tu_rand_range(&rs, 0, (int64_t)i);
		int64_t x = off[i];

		off[i] = off[j];
		off[j] = x;
	}
	for (i = 0; i < N; i++) {
		tu_event *e = tu_event_add(l0, m, off[i], durs[off[i] / 1000 % 8]);

		TU_SI(p, e, "i", off[i] / 1000);
	}
	/* Line 1: in file order. */
	for (i = 0; i < N; i++) {
		tu_event *e = tu_event_add(l1, m, (int64_t)i * 10, durs[i % 8]);

		TU_SI(p, e, "i", (int64_t)i);
	}
	t = tu_read(tu_write(s, 0));
	x0 = &t->hosts[0].planes[0].lines[0];
	x1 = &t->hosts[0].planes[0].lines[1];
	assert_int_equal(x0->nev, N);
	assert_int_equal(x1->nev, N);
	assert_non_null(x0->raw);   /* sorted: every offset kept */
	assert_null(x1->raw);       /* file order: one per block */
	assert_non_null(x1->blk_raw);
	for (i = 0; i < N; i++) {
		assert_int_equal(xt_event_off(x0, i), (int64_t)i * 1000);
		assert_int_equal(xt_event_dur(x0, &x0->ev[i]), want[i % 8]);
		assert_int_equal(ev_tag(t, x0, i), (int64_t)i);
		assert_int_equal(xt_event_dur(x1, &x1->ev[i]), want[i % 8]);
		assert_int_equal(ev_tag(t, x1, i), (int64_t)i);
	}
	for (i = 0; i < N; i++)
		nlong += (uint64_t)want[i % 8] >= 0xffffffffu;
	assert_int_equal(x1->nlong_dur, nlong);
	/* At random, backwards, and across the two lines in turn. */
	for (k = 0; k < 3000; k++) {
		i = (size_t)tu_rand_range(&rs, 0, N - 1);
		assert_int_equal(ev_tag(t, k & 1 ? x0 : x1, i), (int64_t)i);
		assert_int_equal(xt_event_dur(k & 1 ? x1 : x0, &(k & 1 ? x1 : x0)->ev[i]),
				 want[i % 8]);
	}
	for (i = N; i-- > 0;)
		assert_int_equal(ev_tag(t, x1, i), (int64_t)i);
}

/* Long durations found by their rank in a block: a line where every
 * event is long (full masks, the 64th bit), one where only each block's
 * last is, read backwards and at random. */
static void test_long_durations(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l0 = tu_line_add(p, 1, "all long", 0), *l1 = tu_line_add(p, 2, "last long", 0);
	int64_t m = tu_emeta(p, "k")->id;
	uint64_t rs = 5;
	struct xt_trace *t;
	const struct xt_line *x0, *x1;
	enum { N = 1000 };
	size_t i, k;

	(void)state;
	for (i = 0; i < N; i++) {
		tu_event_add(l0, m, (int64_t)i * 10000000000LL, 5000000000LL + (int64_t)i);
		tu_event_add(l1, m, (int64_t)i * 10000000000LL,
			     i % XT_BLOCK == XT_BLOCK - 1 ? 6000000000LL + (int64_t)i : (int64_t)i);
	}
	t = tu_read(tu_write(s, 0));
	x0 = &t->hosts[0].planes[0].lines[0];
	x1 = &t->hosts[0].planes[0].lines[1];
	assert_int_equal(x0->nlong_dur, N);
	assert_int_equal(x1->nlong_dur, N / XT_BLOCK);
	for (i = N; i-- > 0;) {
		assert_int_equal(xt_event_dur(x0, &x0->ev[i]), 5000000000LL + (int64_t)i);
		assert_int_equal(xt_event_dur(x1, &x1->ev[i]),
				 i % XT_BLOCK == XT_BLOCK - 1 ? 6000000000LL + (int64_t)i : (int64_t)i);
	}
	for (k = 0; k < 2000; k++) {
		i = (size_t)tu_rand_range(&rs, 0, N - 1);
		assert_int_equal(xt_event_end(x0, &x0->ev[i]),
				 (int64_t)i * 10000000000LL + 5000000000LL + (int64_t)i);
	}
}

/* A line over 8 MiB: arrays from bigmem, its file pages given back window
 * by window while it is decoded; its stats still read afterwards. */
static void big_line(int huge)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "big", 0);
	int64_t m = tu_emeta(p, "k")->id;
	struct xplane_load_opts o = { .threads = 2, .keep_resident = 0 };
	struct xt_trace *t = trace_new();
	struct xt_error err = { "" };
	const struct xt_line *xl;
	enum { N = 450000 };
	size_t i;

	bigmem_set_huge(huge);
	reserve_events(l, N);
	for (i = 0; i < N; i++) {
		tu_event *e = event_in_room(l, m, (int64_t)i * 100, i % 1000 ? 50 : 5000000000LL);

		TU_SI(p, e, "i", (int64_t)i);
		TU_SS(p, e, "pad", "0123456789");
	}
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
	assert_int_equal(xplane_load(t, tu_write(s, 0), "host", &o, &err), 0);
	xl = &t->hosts[0].planes[0].lines[0];
	assert_true(xl->raw_len >= (8u << 20));
	assert_int_equal(xl->nev, N);
	assert_int_equal(xl->nlong_dur, N / 1000);
	for (i = 0; i < N; i += 997) {
		assert_int_equal(xt_event_off(xl, i), (int64_t)i * 100);
		assert_int_equal(xt_event_dur(xl, &xl->ev[i]), i % 1000 ? 50 : 5000000000LL);
		assert_int_equal(ev_tag(t, xl, i), (int64_t)i);
	}
	bigmem_set_huge(1);
}

/* With huge pages, and with them turned off as bigmem does where they
 * fill slowly (its later commits marked MADV_NOHUGEPAGE). */
static void test_big_line(void **state)
{
	(void)state;
	big_line(1);
	big_line(0);
}

/* Hand-made wire bytes (the generated writer always puts fields in order). */
static size_t put_len(uint8_t *b, unsigned field, const uint8_t *body, size_t n)
{
	size_t k = tu_put_varint(b, field << 3 | 2);

	k += tu_put_varint(b + k, n);
	memcpy(b + k, body, n);
	return k + n;
}

/* A line whose timestamp comes after its events: the first load chooses
 * the time base from the fields before the events, sees the late one and
 * loads again reading whole lines; the result is as if read exactly. */
static void test_timestamp_after_events(void **state)
{
	static const int64_t late[] = { 5000, 1700000000000000000LL };
	size_t c;

	(void)state;
	for (c = 0; c < 2; c++) {
		uint8_t ev[2][16], line[128], plane[256], space[300], md[32], mde[40];
		size_t ne[2], nl = 0, np = 0, ns, nm, nme, e;
		struct xt_trace *t, *tt;
		struct xt_analysis *a;
		const struct xt_line *xl;
		const char *path;

		for (e = 0; e < 2; e++) { /* metadata_id 1, offset, duration */
			ne[e] = 0;
			ev[e][ne[e]++] = 0x08;
			ne[e] += tu_put_varint(ev[e] + ne[e], 1);
			ev[e][ne[e]++] = 0x10;
			ne[e] += tu_put_varint(ev[e] + ne[e], 100 + 1000 * e);
			ev[e][ne[e]++] = 0x18;
			ne[e] += tu_put_varint(ev[e] + ne[e], 500);
		}
		nl += tu_put_varint(line + nl, 1 << 3);
		nl += tu_put_varint(line + nl, 7);
		nl += put_len(line + nl, 2, (const uint8_t *)"late", 4);
		for (e = 0; e < 2; e++)
			nl += put_len(line + nl, 4, ev[e], ne[e]);
		nl += tu_put_varint(line + nl, 3 << 3);
		nl += tu_put_varint(line + nl, (uint64_t)late[c]);
		/* event_metadata {1: {id 1, name "op"}} */
		nm = 0;
		md[nm++] = 0x08;
		nm += tu_put_varint(md + nm, 1);
		nm += put_len(md + nm, 2, (const uint8_t *)"op", 2);
		nme = 0;
		mde[nme++] = 0x08;
		nme += tu_put_varint(mde + nme, 1);
		nme += put_len(mde + nme, 2, md, nm);
		np += put_len(plane + np, 2, (const uint8_t *)"/host:CPU", 9);
		np += put_len(plane + np, 3, line, nl);
		np += put_len(plane + np, 4, mde, nme);
		ns = put_len(space, 1, plane, np);
		path = tu_write_bytes(NULL, space, ns, 0, NULL);
		t = tu_read(path);
		xl = &t->hosts[0].planes[0].lines[0];
		assert_int_equal(xl->nev, 2);
		if (c == 0) {
			assert_int_equal(xl->timestamp_ns, late[c]);
			assert_int_equal(xt_event_start(xl, &xl->ev[1]), late[c] * 1000 + 1100);
		} else {
			/* An absolute clock: rebased on the line's own start. */
			assert_int_equal(t->hosts[0].ts_base_ns, late[c]);
			assert_int_equal(xl->timestamp_ns, 0);
		}
		/* With the analyses' hooks (load_profile starts over). */
		a = tu_load(path, &tt);
		assert_int_equal(tt->hosts[0].ts_base_ns, t->hosts[0].ts_base_ns);
		assert_int_equal(tt->hosts[0].planes[0].lines[0].timestamp_ns, xl->timestamp_ns);
		assert_int_equal(tt->nev, 2);
		(void)a;
	}
}

/* At a line's hook, the events the progress counted so far (the line's
 * own chunks, for a big line: the count moves while it decodes). */
struct seen_progress {
	_Atomic uint64_t *events;
	_Atomic uint64_t at_hook[4];
};

static void progress_at_hook(void *ctx, struct xt_host *h, struct xt_plane *p, struct xt_line *l,
			     struct xt_sunk *sunk)
{
	struct seen_progress *sp = ctx;

	(void)h;
	(void)p;
	(void)sunk;
	if (l->id >= 1 && l->id <= 3)
		atomic_store(&sp->at_hook[l->id], atomic_load(sp->events));
}

/* Big lines are decoded in chunks by all threads: the same model as one
 * thread decoding each line whole, for lines in order and out of order,
 * with long durations (which each chunk writes where its events start)
 * and nesting. */
static void test_split_lines(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l0 = tu_line_add(p, 1, "in order", 100), *l1 = tu_line_add(p, 2, "shuffled", 200);
	tu_line *l2 = tu_line_add(p, 3, "small", 300);
	int64_t m = tu_emeta(p, "k")->id, m2 = tu_emeta(p, "MemoryAllocation")->id;
	uint64_t rs = 5;
	struct xplane_load_opts o = { .threads = 2, .keep_resident = 0, .split_bytes = 65536 };
	struct xt_trace *whole, *split = trace_new();
	struct xt_error err = { "" };
	_Atomic uint64_t bytes = 0, events = 0;
	struct seen_progress sp = { 0 };
	uint64_t line_bytes = 0;
	const char *path;
	size_t i;

	(void)state;
	reserve_events(l0, 20000);
	reserve_events(l1, 20000);
	for (i = 0; i < 20000; i++) {
		/* Calls nested three deep, some lasting more than 4.3 ms. */
		int64_t base = (int64_t)(i / 3) * 100000;
		tu_event *e = event_in_room(l0, i % 7 ? m : m2, base + (int64_t)(i % 3) * 10,
					    i % 3 == 0 ? (i % 11 ? 90000 : 5000000000LL) : 50);

		TU_SI(p, e, "i", (int64_t)i);
		e = event_in_room(l1, m, tu_rand_range(&rs, 0, 1000000000),
				  i % 13 ? tu_rand_range(&rs, 0, 9000) : 5000000000LL + (int64_t)i);
		TU_SI(p, e, "i", (int64_t)i);
	}
	tu_event_add(l2, m, 5, 5);
	path = tu_write(s, 0);
	whole = tu_read(path);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ split, NULL }));
	o.progress_bytes = &bytes;
	o.progress_events = &events;
	sp.events = &events;
	o.line_hook = progress_at_hook;
	o.ctx = &sp;
	assert_int_equal(xplane_load(split, path, "host", &o, &err), 0);
	assert_true(whole->hosts[0].planes[0].lines[0].raw_len > 4 * 65536);
	tu_assert_same_trace(whole, split);
	/* The progress counts each event and byte once: a big line's chunk
	 * by chunk as they decode, the rest when the line is done. */
	assert_int_equal(atomic_load(&events), 40001);
	assert_true(atomic_load(&sp.at_hook[1]) >= 20000);
	assert_true(atomic_load(&sp.at_hook[2]) >= 20000);
	for (i = 0; i < 3; i++)
		line_bytes += split->hosts[0].planes[0].lines[i].raw_len;
	assert_int_equal(atomic_load(&bytes), line_bytes);
	assert_int_equal(split->hosts[0].planes[0].lines[0].nlong_dur, 20000 / 33 + 1);
	assert_int_equal(split->hosts[0].planes[0].lines[1].nlong_dur, 20000 / 13 + 1);
	assert_non_null(split->hosts[0].planes[0].lines[1].raw); /* sorted */
	assert_null(split->hosts[0].planes[0].lines[0].raw);
}

/* A TPU's op is timed by the device's own clock when it carries both
 * device_offset_ps (absolute ps) and device_duration_ps, as XProf times
 * it; an op with one of them, one the device would start before its
 * line, and a host plane's event keep the times they were written with. */
static void test_device_time(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0"), *h = tu_plane_add(s, 2, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "XLA Ops", 1000), *hl = tu_line_add(h, 1, "t", 1000);
	int64_t m = tu_emeta(p, "fusion")->id, hm = tu_emeta(h, "call")->id;
	struct xt_trace *t;
	const struct xt_line *xl, *xh;
	tu_event *e;

	(void)state;
	/* line at 1000 ns = 1,000,000 ps; written at +5000, by the device at
	 * +4990 for 80 */
	e = tu_event_add(l, m, 5000, 100);
	TU_SU(p, e, "device_offset_ps", 1000000 + 4990);
	TU_SU(p, e, "device_duration_ps", 80);
	e = tu_event_add(l, m, 7000, 100); /* one of the two: as written */
	TU_SU(p, e, "device_duration_ps", 20);
	e = tu_event_add(l, m, 9000, 100); /* before the line: as written */
	TU_SU(p, e, "device_offset_ps", 500);
	TU_SU(p, e, "device_duration_ps", 20);
	e = tu_event_add(hl, hm, 5000, 100); /* a host's: as written */
	TU_SU(h, e, "device_offset_ps", 1000000 + 4990);
	TU_SU(h, e, "device_duration_ps", 80);
	t = tu_read(tu_write(s, 0));
	xl = &t->hosts[0].planes[0].lines[0];
	xh = &t->hosts[0].planes[1].lines[0];
	assert_int_equal(xl->nev, 3);
	assert_int_equal(xt_event_off(xl, 0), 4990);
	assert_int_equal(xt_event_dur(xl, &xl->ev[0]), 80);
	assert_int_equal(xt_event_off(xl, 1), 7000);
	assert_int_equal(xt_event_dur(xl, &xl->ev[1]), 100);
	assert_int_equal(xt_event_off(xl, 2), 9000);
	assert_int_equal(xt_event_dur(xl, &xl->ev[2]), 100);
	assert_int_equal(xt_event_off(xh, 0), 5000);
	assert_int_equal(xt_event_dur(xh, &xh->ev[0]), 100);
}

/* Stat "i" of event e of line l (plane p of t's host): the file index the
 * test gave it. */
static int64_t file_index(const struct xt_trace *t, const struct xt_plane *p,
			  const struct xt_line *l, size_t e)
{
	struct stat_iter it;
	struct xt_stat st;

	stat_iter_event(&it, &t->hosts[0], p, l, &l->ev[e]);
	while (stat_next(&it, &st))
		if (!strcmp(trace_smeta_lookup(p, st.meta_id)->name, "i"))
			return stat_as_int(&st);
	return -1;
}

/* A TPU's ops by the device's clock stand a place from the file's order
 * here and there: the decoders put them in order as they go, whole or in
 * chunks (a chunk does not start between two such events), and keep the
 * offsets of those they moved, so that each event still reads its own
 * stats. So too an event 35 places early, which a decoder holds until
 * its place comes (a chunk does not start while one is held). A line
 * with an event 40 places late is sorted after, as any other. */
static void test_device_order(void **state)
{
	enum { N = 12000 };
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:TPU:0");
	tu_line *near = tu_line_add(p, 1, "XLA Ops", 0), *far = tu_line_add(p, 2, "XLA Ops", 0);
	tu_line *early = tu_line_add(p, 3, "XLA Ops", 0);
	int64_t m = tu_emeta(p, "fusion")->id;
	struct xplane_load_opts o = { .threads = 2, .split_bytes = 65536 };
	struct xt_trace *whole, *split = trace_new(), *ts[2];
	struct xt_error err = { "" };
	int64_t want[N], want_early[N];
	char sw[N] = { 0 };
	size_t i, k, swaps = 0;
	const char *path;

	(void)state;
	reserve_events(near, N);
	reserve_events(far, N);
	reserve_events(early, N);
	/* Pairs swapped by the device's clock (sw[i]: i and i + 1): inside
	 * blocks, and across every other block's end (where a chunk may
	 * start). */
	for (i = 0; i + 1 < N; i++) {
		sw[i] = (i % 37 == 5 || (i % 64 == 63 && (i / 64) % 2 == 0)) && !(i && sw[i - 1]);
		swaps += sw[i];
	}
	for (i = 0; i < N; i++) {
		int64_t dev = sw[i] ? (int64_t)i * 1000 + 600
			      : i && sw[i - 1] ? (int64_t)(i - 1) * 1000 + 300 : (int64_t)i * 1000;
		tu_event *e = event_in_room(near, m, (int64_t)i * 1000, 100);

		TU_SI(p, e, "i", (int64_t)i);
		TU_SU(p, e, "device_offset_ps", dev);
		TU_SU(p, e, "device_duration_ps", 50);
		/* One event 40 places late: more than the decoders hold. */
		e = event_in_room(far, m, (int64_t)i * 1000, 100);
		TU_SI(p, e, "i", (int64_t)i);
		TU_SU(p, e, "device_offset_ps", i == 5000 ? 4960 * 1000 + 500 : (int64_t)i * 1000);
		TU_SU(p, e, "device_duration_ps", 50);
		/* Every 128th event 35 places early: across every other block's
		 * end. */
		e = event_in_room(early, m, (int64_t)i * 1000, 100);
		TU_SI(p, e, "i", (int64_t)i);
		TU_SU(p, e, "device_offset_ps",
		      i % 128 == 40 && i + 35 < N ? (int64_t)(i + 35) * 1000 + 500 : (int64_t)i * 1000);
		TU_SU(p, e, "device_duration_ps", 50);
		want_early[i] = i % 128 >= 40 && i % 128 < 75 && i - i % 128 + 75 < N ? (int64_t)i + 1
				: i % 128 == 75			      ? (int64_t)i - 35
								      : (int64_t)i;
	}
	for (i = 0; i < N; i++) /* the file index of the i-th event by start */
		want[i] = (int64_t)i;
	for (i = 0; i + 1 < N; i++)
		if (sw[i]) {
			want[i] = (int64_t)i + 1;
			want[i + 1] = (int64_t)i;
		}
	path = tu_write(s, 0);
	whole = tu_read(path);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ split, NULL }));
	assert_int_equal(xplane_load(split, path, "host", &o, &err), 0);
	ts[0] = whole;
	ts[1] = split;
	for (k = 0; k < 2; k++) {
		const struct xt_plane *xp = &ts[k]->hosts[0].planes[0];
		const struct xt_line *ln = &xp->lines[0], *lf = &xp->lines[1];

		assert_int_equal(ln->nev, N);
		for (i = 0; i < N; i++) {
			assert_int_equal(file_index(ts[k], xp, ln, i), want[i]);
			if (i)
				assert_true(xt_event_off(ln, i) > xt_event_off(ln, i - 1));
		}
		/* In order as decoded: no sort, the moved events' offsets kept. */
		assert_null(ln->raw);
		assert_int_equal(ln->nraw_at, 2 * swaps);
		/* 40 places: sorted after, every offset kept. */
		assert_non_null(lf->raw);
		assert_int_equal(file_index(ts[k], xp, lf, 4960), 4960);
		assert_int_equal(file_index(ts[k], xp, lf, 4961), 5000);
		assert_int_equal(file_index(ts[k], xp, lf, 4962), 4961);
		assert_int_equal(file_index(ts[k], xp, lf, 5000), 4999);
		assert_int_equal(file_index(ts[k], xp, lf, 5001), 5001);
		for (i = 0; i < N; i++)
			assert_int_equal(file_index(ts[k], xp, &xp->lines[2], i), want_early[i]);
		assert_null(xp->lines[2].raw);
	}
	assert_true(split->hosts[0].planes[0].lines[0].raw_len > 4 * 65536);
	tu_assert_same_trace(whole, split);
}

/* The order lines are done in, by id (threads = 1: one at a time). */
struct done_order {
	int64_t id[8];
	size_t n;
};

static void order_at_hook(void *ctx, struct xt_host *h, struct xt_plane *p, struct xt_line *l,
			  struct xt_sunk *sunk)
{
	struct done_order *d = ctx;

	(void)h;
	(void)p;
	(void)sunk;
	if (d->n < 8)
		d->id[d->n++] = l->id;
}

/* A report takes the largest line first (the last thread to finish has a
 * small tail); a viewer's load the lines shorter than a chunk first,
 * smallest first, so that they show at once, then the rest largest first. */
static void test_line_order(void **state)
{
	static const int nev[4] = { 15000, 5000, 1500, 5 }; /* ids 1-4, in the file's order */
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	int64_t m = tu_emeta(p, "k")->id;
	const char *path;
	int run;
	size_t k;
	int i;

	(void)state;
	for (k = 0; k < 4; k++) {
		tu_line *l = tu_line_add(p, (int64_t)k + 1, "t", 100);

		reserve_events(l, (size_t)nev[k]);
		for (i = 0; i < nev[k]; i++) {
			tu_event *e = event_in_room(l, m, (int64_t)i * 10, 5);

			TU_SI(p, e, "i", (int64_t)i); /* a macro: e once */
		}
	}
	path = tu_write(s, 0);
	for (run = 0; run < 2; run++) {
		/* Lines of 196608 bytes or more split, in chunks of 65536. */
		struct xplane_load_opts o = { .threads = 1, .split_bytes = 3 * 65536 };
		struct xt_live lv;
		struct xt_trace *t = trace_new();
		struct xt_error err = { "" };
		struct done_order d = { { 0 }, 0 };
		const struct xt_line *ls;

		pthread_mutex_init(&lv.lock, NULL);
		lv.version = 0;
		TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
		o.line_hook = order_at_hook;
		o.ctx = &d;
		if (run) {
			trace_reserve_hosts(t, 1);
			o.live = &lv;
		}
		assert_int_equal(xplane_load(t, path, "host", &o, &err), 0);
		ls = t->hosts[0].planes[0].lines;
		/* The premise: one line splits, one is neither, two are small. */
		assert_true(ls[0].raw_len >= 3 * 65536);
		assert_true(ls[1].raw_len >= 65536 && ls[1].raw_len < 3 * 65536);
		assert_true(ls[2].raw_len < 65536 && ls[2].raw_len > ls[3].raw_len);
		assert_int_equal(d.n, 4);
		if (!run) {
			assert_int_equal(d.id[0], 1);
			assert_int_equal(d.id[1], 2);
			assert_int_equal(d.id[2], 3);
			assert_int_equal(d.id[3], 4);
		} else {
			assert_int_equal(d.id[0], 4);
			assert_int_equal(d.id[1], 3);
			assert_int_equal(d.id[2], 1);
			assert_int_equal(d.id[3], 2);
		}
		pthread_mutex_destroy(&lv.lock);
	}
}

/* Depths and the window index are worked out as each range of a line is
 * decoded, each chunk of a big line starting with no open event and fixed
 * up after: the same as the one pass over a line that had to be sorted
 * (each line is written twice, in order and shuffled), read whole and in
 * chunks, for random nesting with instants and long durations, for a root
 * event open across the whole line (every chunk is fixed up to its end),
 * and for nesting deeper than the depth's cap across a chunk boundary
 * (done again as one pass). */
static void test_finish_ranges(void **state)
{
	enum { N = 30000 };
	struct gen_ev *g = tu_xcalloc(N, sizeof(*g)), *ev[3];
	size_t nev[3];
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	int64_t m = tu_emeta(p, "k")->id, t = 0;
	size_t n = 0, i, j, k, run;
	uint64_t rs = 77;
	struct xplane_load_opts o = { .threads = 2, .keep_resident = 0, .split_bytes = 65536 };
	struct xt_trace *tr[2];
	struct xt_error err = { "" };
	const char *path;

	(void)state;
	gen_nested(&rs, g, &n, N, 0, INT64_MAX / 4, 0);
	qsort(g, n, sizeof(*g), gen_cmp);
	for (k = 0; k < 3; k++)
		ev[k] = tu_xcalloc(N + 1, sizeof(*ev[k]));
	/* Random nesting, some lasting more than 4.3 ms (long durations);
	 * the same under a root event open across all of it. */
	ev[1][0] = (struct gen_ev){ 0, (int64_t)1 << 60 };
	for (i = 0; i < n; i++) {
		int64_t d = g[i].dur > 3000 ? g[i].dur * 5000000 : g[i].dur;

		ev[0][i] = (struct gen_ev){ g[i].off * 1000, d };
		ev[1][i + 1] = (struct gen_ev){ g[i].off * 1000 + 1, d };
	}
	nev[0] = n;
	nev[1] = n + 1;
	/* Siblings, and 2600 events nested in each other across the middle
	 * (past the stack's 128 entries). */
	for (i = 0; i < N; i++) {
		if (i >= N / 2 - 100 && i < N / 2 + 2500) {
			j = i - (N / 2 - 100);
			ev[2][i] = (struct gen_ev){ t + (int64_t)j, 100000000 - (int64_t)j * 10 };
			if (i + 1 == N / 2 + 2500)
				t += 100000000;
		} else {
			ev[2][i] = (struct gen_ev){ t, 500 };
			t += 1000;
		}
	}
	nev[2] = N;
	for (k = 0; k < 3; k++) {
		tu_line *in = tu_line_add(p, (int64_t)k + 1, "in order", 10 * (int64_t)k);
		tu_line *sh = tu_line_add(p, (int64_t)k + 4, "shuffled", 10 * (int64_t)k);
		size_t *order = tu_shuffled(nev[k], &rs);

		reserve_events(in, nev[k]);
		reserve_events(sh, nev[k]);
		for (i = 0; i < nev[k]; i++) {
			event_in_room(in, m, ev[k][i].off, ev[k][i].dur);
			event_in_room(sh, m, ev[k][order[i]].off, ev[k][order[i]].dur);
		}
		free(order);
	}
	path = tu_write(s, 0);
	tr[0] = tu_read(path);
	tr[1] = trace_new();
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ tr[1], NULL }));
	assert_int_equal(xplane_load(tr[1], path, "host", &o, &err), 0);
	tu_assert_same_trace(tr[0], tr[1]);
	for (run = 0; run < 2; run++)
		for (k = 0; k < 3; k++) {
			/* Lines 2k and 2k + 1: in order and shuffled (sorted). */
			const struct xt_line *x = &tr[run]->hosts[0].planes[0].lines[2 * k];
			const struct xt_line *y = &tr[run]->hosts[0].planes[0].lines[2 * k + 1];

			assert_true(x->raw_len > 4 * 65536);
			assert_null(x->raw);
			assert_non_null(y->raw);
			assert_int_equal(x->nev, y->nev);
			assert_int_equal(x->max_depth, y->max_depth);
			for (i = 0; i < x->nev; i++) {
				assert_int_equal(xt_event_off(x, i), xt_event_off(y, i));
				assert_int_equal(xt_event_dur(x, &x->ev[i]), xt_event_dur(y, &y->ev[i]));
				if (x->ev[i].meta != y->ev[i].meta)
					fail_msg("run %zu line %zu event %zu: depth %u, want %u", run, k,
						 i, xt_event_depth(&x->ev[i]), xt_event_depth(&y->ev[i]));
			}
			for (i = 0; i < (x->nev + XT_BLOCK - 1) / XT_BLOCK; i++)
				assert_int_equal(x->blk_maxend[i], y->blk_maxend[i]);
		}
	assert_int_equal(tr[0]->hosts[0].planes[0].lines[4].max_depth, 128);
	assert_true(tr[0]->hosts[0].planes[0].lines[2].max_depth >= 4);
	for (k = 0; k < 3; k++)
		free(ev[k]);
	free(g);
}

/* A line of siblings with one nest of 100 events starting `at`. */
static const char *deep_nest_file(size_t at)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *in = tu_line_add(p, 1, "in order", 5), *sh = tu_line_add(p, 2, "shuffled", 5);
	int64_t m = tu_emeta(p, "k")->id;
	struct gen_ev *v = tu_xcalloc(20000, sizeof(*v));
	size_t i, *order;
	uint64_t rs = 5;

	for (i = 0; i < 20000; i++)
		v[i] = i >= at && i < at + 100
			       ? (struct gen_ev){ (int64_t)at * 1000 + (int64_t)(i - at),
						  500000 - (int64_t)(i - at) }
			       : (struct gen_ev){ (int64_t)i * 1000 + (i > at ? 500000 : 0), 500 };
	order = tu_shuffled(20000, &rs);
	reserve_events(in, 20000);
	reserve_events(sh, 20000);
	for (i = 0; i < 20000; i++) {
		event_in_room(in, m, v[i].off, v[i].dur);
		event_in_room(sh, m, v[order[i]].off, v[order[i]].dur);
	}
	free(order);
	free(v);
	return tu_write(s, 0);
}

/* The deepest events of a line open across a chunk boundary with more
 * than the depth's cap of them after it: the line's max depth is still
 * exact (its ranges are done again as one pass). */
static void test_finish_deep_boundary(void **state)
{
	struct xplane_load_opts o = { .threads = 2, .keep_resident = 0, .split_bytes = 65536 };
	struct xt_trace *probe = tu_read(deep_nest_file(19000)), *t = trace_new();
	const struct xt_line *x, *y;
	struct xt_error err = { "" };
	size_t b = 0;

	(void)state;
	/* The first chunk boundary: the first block whose first event's tag
	 * is a chunk's bytes (a third of split_bytes) into the line. */
	x = &probe->hosts[0].planes[0].lines[0];
	while (b < x->nev / XT_BLOCK && x->blk_raw[b] < 65536 / 3)
		b++;
	assert_true(b > 1 && b < x->nev / XT_BLOCK);
	/* Ten of the nest before it, ninety after. */
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
	assert_int_equal(xplane_load(t, deep_nest_file(b * XT_BLOCK - 10), "host", &o, &err), 0);
	x = &t->hosts[0].planes[0].lines[0];
	y = &t->hosts[0].planes[0].lines[1];
	assert_null(x->raw);
	assert_non_null(y->raw);
	assert_int_equal(y->max_depth, 99);
	assert_int_equal(x->max_depth, 99);
}

/* Starts are 32 bits after a base per block of 64 events, with the
 * high bits kept beside a block whose events spread wider (two bytes each
 * up to 281 s from the base, else four, a block going from two to four
 * part way). Every start comes back exact, on a line written in order and
 * on one shuffled, each read whole and in chunks, negative (hostile)
 * offsets and aggregated events (num_occurrences) included. */
static void test_event_starts_wide(void **state)
{
	enum { N = 24000 };
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l0 = tu_line_add(p, 1, "in order", 100), *l1 = tu_line_add(p, 2, "shuffled", 200);
	int64_t m = tu_emeta(p, "k")->id, *want = tu_xcalloc(N, sizeof(int64_t)), t = -5000000000000LL;
	size_t *order, i, j, k;
	uint64_t rs = 11;
	struct xplane_load_opts o = { .threads = 2, .keep_resident = 0, .split_bytes = 65536 };
	struct xt_trace *tr[2];
	struct xt_error err = { "" };
	const char *path;

	(void)state;
	for (i = 0; i < N; i++) {
		size_t b = i / XT_BLOCK, at = i % XT_BLOCK;
		/* By block: 4.3 ms apart at most, up to 281 s, widening part way,
		 * far apart from the start, and neighbours with random gaps. */
		int64_t step = b % 5 == 0 ? 1000 : b % 5 == 1 ? 10000000000LL
			     : b % 5 == 2 ? (at < 30 ? 10000000000LL : 400000000000000LL)
			     : b % 5 == 3 ? 400000000000000LL : tu_rand_range(&rs, 0, 200000000);

		want[i] = t;
		t += step;
	}
	order = tu_shuffled(N, &rs);
	reserve_events(l0, N + 3);
	reserve_events(l1, N + 3);
	for (i = 0; i < N; i++) {
		event_in_room(l0, m, want[i], 7);
		event_in_room(l1, m, want[order[i]], 7);
	}
	for (i = 0; i < 3; i++) {
		tu_event_agg(l0, m, (int64_t)i + 1, 10);
		tu_event_agg(l1, m, (int64_t)i + 1, 10);
	}
	path = tu_write(s, 0);
	tr[0] = tu_read(path);
	tr[1] = trace_new();
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ tr[1], NULL }));
	assert_int_equal(xplane_load(tr[1], path, "host", &o, &err), 0);
	assert_true(tr[0]->hosts[0].planes[0].lines[0].raw_len > 4 * 65536);
	for (k = 0; k < 2; k++) {
		for (j = 0; j < 2; j++) {
			const struct xt_line *xl = &tr[k]->hosts[0].planes[0].lines[j];

			assert_int_equal(xl->nev, N + 3);
			assert_non_null(xl->wide16);
			assert_non_null(xl->wide32);
			for (i = 0; i < N; i++) {
				if (xt_event_off(xl, i) != want[i])
					fail_msg("trace %zu line %zu event %zu: start %lld, want %lld", k,
						 j, i, (long long)xt_event_off(xl, i),
						 (long long)want[i]);
				assert_int_equal(xt_event_start(xl, &xl->ev[i]),
						 xl->timestamp_ns * 1000 + want[i]);
			}
			for (i = 0; i < 3; i++) {
				assert_true(xt_event_aggregated(&xl->ev[N + i]));
				assert_int_equal(xt_event_off(xl, N + i), (int64_t)i + 1);
			}
		}
	}
	free(want);
	free(order);
}

/* ---- the event sink ---- */

/* What a test sink saw of one decoded range: each event's index, start as
 * written and "i" stat read from the bytes the reader handed over. */
struct sink_rec {
	size_t i;
	uint32_t meta;
	int watched;
	int64_t off, dur, stat;
};
struct sink_part {
	const struct xt_plane *p;
	struct sink_rec *v;
	size_t n, cap;
};
/* Per line, checked on the test's thread (hooks run on workers). */
struct sink_line {
	size_t seen, parts, bad;
	int moved;
};
struct sink_test {
	uint8_t *on;            /* the plane's sink_meta */
	int64_t mark;           /* the metadata id marked */
	struct sink_line line[3];
};

static int64_t first_stat_int(struct stat_iter *it)
{
	struct xt_stat st;

	return stat_next(it, &st) ? stat_as_int(&st) : -1;
}

static void *sink_part_new(void *ctx, const struct xt_host *h, const struct xt_plane *p)
{
	struct sink_part *sp = tu_xcalloc(1, sizeof(*sp));

	(void)ctx;
	(void)h;
	sp->p = p;
	return sp;
}

static void sink_event(void *part, const struct xt_sink_ev *e)
{
	struct sink_part *sp = part;
	struct stat_iter it;

	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 16;
		sp->v = realloc(sp->v, sp->cap * sizeof(*sp->v));
		if (!sp->v)
			abort();
	}
	stat_iter_event_bytes(&it, sp->p, e->b, e->n);
	sp->v[sp->n++] = (struct sink_rec){ e->i, e->meta, e->watched, e->off_ps, e->dur_ps,
					    first_stat_int(&it) };
}

static void sink_part_free(void *part)
{
	struct sink_part *sp = part;

	free(sp->v);
	free(sp);
}

static void sink_plane_hook(void *ctx, struct xt_host *h, struct xt_plane *p)
{
	struct sink_test *st = ctx;
	size_t i;

	(void)h;
	st->on = tu_xcalloc(p->nemeta, 1);
	st->on[trace_emeta_lookup(p, st->mark)] = 1;
	p->sink_meta = st->on;
	/* Events with a stat "w" are flagged watched: the sink sees them too. */
	for (i = 0; i < p->nsmeta; i++)
		if (!strcmp(p->smeta[i].name, "w") && p->smeta[i].id < 64) {
			p->watch_on = 1;
			p->watch_lo |= UINT64_C(1) << p->smeta[i].id;
		}
}

/* Every event the sink saw is, where `moved` puts it, a marked event of
 * the line with that start and stat; they come in file order. */
static void sink_line_hook(void *ctx, struct xt_host *h, struct xt_plane *p, struct xt_line *l,
			   struct xt_sunk *sunk)
{
	struct sink_test *st = ctx;
	struct sink_line *sl = &st->line[l->id - 1];
	size_t k, j, last = 0;

	sl->parts = sunk->nparts;
	sl->moved = sunk->moved != NULL;
	for (k = 0; k < sunk->nparts; k++) {
		const struct sink_part *sp = sunk->parts[k];

		for (j = 0; j < sp->n; j++) {
			const struct sink_rec *r = &sp->v[j];
			size_t at = sunk->moved ? sunk->moved[r->i] : r->i;
			struct stat_iter it;

			if ((sl->seen && r->i <= last) || at >= l->nev) {
				sl->bad++;
				continue;
			}
			last = r->i;
			sl->seen++;
			stat_iter_event(&it, h, p, l, &l->ev[at]);
			if ((xt_event_meta(p, &l->ev[at])->id != st->mark && !r->watched) ||
			    !r->watched != !xt_event_watched(&l->ev[at]) ||
			    xt_event_meta_index(&l->ev[at]) != r->meta ||
			    xt_event_aggregated(&l->ev[at]) || xt_event_off(l, at) != r->off ||
			    xt_event_dur(l, &l->ev[at]) != r->dur || first_stat_int(&it) != r->stat)
				sl->bad++;
		}
	}
}

/* The reader hands a sink each event of the marked metadata and each one
 * carrying a watched stat (aggregated ones left out), with its metadata,
 * start, duration (long ones too) and bytes, part by part in file order,
 * and says where the sort moved them: for lines in order and shuffled,
 * read whole and in chunks. */
static void test_event_sink(void **state)
{
	enum { N = 6000 };
	static const struct xt_sink sink = { sink_part_new, sink_event, sink_part_free, NULL, NULL };
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l0 = tu_line_add(p, 1, "in order", 100), *l1 = tu_line_add(p, 2, "shuffled", 200);
	tu_line *l2 = tu_line_add(p, 3, "small", 300);
	int64_t m = tu_emeta(p, "k")->id, mark = tu_emeta(p, "mark")->id;
	size_t *order, i, run, want = 0;
	uint64_t rs = 3;
	const char *path;

	(void)state;
	order = tu_shuffled(N, &rs);
	reserve_events(l0, N + 2);
	reserve_events(l1, N + 2);
	for (i = 0; i < N; i++) {
		/* Marked every 7th, watched every 11th, some lasting more than
		 * 4.3 ms; on the shuffled line, two by two starting together. */
		size_t k = order[i];
		tu_event *e = event_in_room(l0, i % 7 ? m : mark, (int64_t)i * 1000,
					    i % 5 ? 10 + (int64_t)(i % 3) : 5000000000LL + (int64_t)i);

		TU_SI(p, e, "i", (int64_t)i);
		if (i % 11 == 0)
			TU_SI(p, e, "w", 1);
		e = event_in_room(l1, k % 7 ? m : mark, (int64_t)(k / 2) * 1000,
				  k % 5 ? 10 + (int64_t)(k % 3) : 5000000000LL + (int64_t)k);
		TU_SI(p, e, "i", (int64_t)k);
		if (k % 11 == 0)
			TU_SI(p, e, "w", 1);
		want += !(i % 7) || !(i % 11);
	}
	tu_event_agg(l0, mark, 3, 10);
	tu_event_agg(l1, mark, 3, 10);
	{
		tu_event *e = tu_event_add(l2, mark, 5, 5);

		TU_SI(p, e, "i", 5);
	}
	path = tu_write(s, 0);
	for (run = 0; run < 2; run++) {
		struct sink_test st;
		struct xplane_load_opts o = { .threads = 2, .split_bytes = run ? 16384 : 0,
					      .plane_hook = sink_plane_hook,
					      .line_hook = sink_line_hook, .ctx = &st, .sink = &sink };
		struct xt_trace *t = trace_new();
		struct xt_error err = { "" };

		memset(&st, 0, sizeof(st));
		st.mark = mark;
		TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
		assert_int_equal(xplane_load(t, path, "host", &o, &err), 0);
		for (i = 0; i < 3; i++) {
			assert_int_equal(st.line[i].bad, 0);
			assert_int_equal(st.line[i].seen, i < 2 ? want : 1);
			assert_int_equal(st.line[i].moved, i == 1);
		}
		if (run) {
			assert_true(st.line[0].parts > 4); /* read in chunks */
			assert_true(st.line[1].parts > 4);
		} else {
			assert_int_equal(st.line[0].parts, 1);
		}
		t->hosts[0].planes[0].sink_meta = NULL;
		free(st.on);
	}
	free(order);
}

static void test_aggregated_events(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	int64_t m = tu_emeta(p, "k")->id;
	tu_event *noff;
	struct xt_trace *t;
	const struct xt_line *xl;
	size_t first, end;

	(void)state;
	tu_event_add(l, m, 100, 10);
	tu_event_agg(l, m, 7, 50);
	tu_event_add(l, m, 50, 10);
	noff = tu_event_add(l, m, 0, 5);
	noff->data_case = TENSORFLOW__PROFILER__XEVENT__DATA__NOT_SET; /* no offset on the wire */
	t = tu_read(tu_write(s, 0));
	xl = &t->hosts[0].planes[0].lines[0];
	assert_int_equal(t->nev, 4); /* aggregated events are kept and counted */
	assert_int_equal(t->hosts[0].planes[0].nev, 4);
	assert_int_equal(xl->nev, 4);
	/* The event without offset is an ordinary event at 0 (C1). */
	assert_int_equal(xt_event_off(xl, 0), 0);
	assert_int_equal(xt_event_dur(xl, &xl->ev[0]), 5);
	assert_false(xt_event_aggregated(&xl->ev[0]));
	assert_int_equal(xt_event_off(xl, 1), 50);
	assert_int_equal(xt_event_off(xl, 2), 100);
	assert_false(xt_event_aggregated(&xl->ev[1]));
	assert_false(xt_event_aggregated(&xl->ev[2]));
	/* Aggregated ones sort last; their start holds num_occurrences. */
	assert_true(xt_event_aggregated(&xl->ev[3]));
	assert_int_equal(xt_event_off(xl, 3), 7);
	assert_int_equal(xt_event_dur(xl, &xl->ev[3]), 50);
	assert_string_equal(trace_event_display_name(&t->hosts[0].planes[0], &xl->ev[3]), "k");
	/* A window query over everything offers the timed events. */
	end = trace_line_window(xl, 0, 1000000, &first);
	assert_int_equal(first, 0);
	assert_true(end >= 3);
}

static void test_space_strings(void **state)
{
	tu_space *s = tu_space_new();
	struct xt_trace *t;
	const struct xt_host *h;

	(void)state;
	tu_plane_add(s, 1, "/host:CPU");
	tu_hostname_add(s, "34.83.195.179:6003");
	tu_hostname_add(s, "second");
	tu_error_add(s, "profiler error");
	tu_warning_add(s, "w1");
	tu_warning_add(s, "w2");
	t = tu_read(tu_write(s, 0));
	h = &t->hosts[0];
	assert_int_equal(h->nplanes, 1);
	assert_int_equal(h->nhostnames, 2);
	assert_string_equal(h->hostnames[0], "34.83.195.179:6003");
	assert_string_equal(h->hostnames[1], "second");
	assert_int_equal(h->nerrors, 1);
	assert_string_equal(h->errors[0], "profiler error");
	assert_int_equal(h->nwarnings, 2);
	assert_string_equal(h->warnings[1], "w2");
	assert_string_equal(h->name, "host");
}

/* ---- gzip ---- */

static void test_gzip_same_as_plain(void **state)
{
	tu_space *s = tu_sample_space();
	struct xt_trace *plain, *gz, *one;

	(void)state;
	plain = tu_read_threads(tu_write(s, 0), 4);
	gz = tu_read_threads(tu_write(s, 1), 4);
	one = tu_read_threads(tu_write(s, 0), 1);
	assert_false(plain->hosts[0].src.gzipped);
	assert_true(gz->hosts[0].src.gzipped);
	assert_int_equal(plain->nev, 3 * 400 + 300);
	tu_assert_same_trace(plain, gz);
	tu_assert_same_trace(plain, one); /* one decoding thread or several */
	assert_int_equal(gz->hosts[0].nhostnames, 1);
}

/* A capture decoded from memory (xplane_load_mem) is the same model as the
 * same bytes read from a file; the trace owns the buffer. */
static void test_memory_same_as_file(void **state)
{
	tu_space *s = tu_sample_space();
	struct xplane_load_opts o = { .threads = 3 };
	struct xt_trace *file, *mem = trace_new();
	struct xt_error err = { "" };
	size_t n;
	uint8_t *buf = tu_pack(s, &n);

	(void)state;
	file = tu_read_threads(tu_write(s, 0), 2);
	/* Not keep_resident: dropping parsed pages must leave a heap buffer alone. */
	assert_int_equal(xplane_load_mem(mem, buf, n, "/where/it/goes.xplane.pb", "host", &o, &err),
			 0);
	assert_true(mem->hosts[0].src.heap);
	assert_string_equal(mem->hosts[0].path, "/where/it/goes.xplane.pb");
	tu_assert_same_trace(file, mem);
	trace_free(mem);
}

/* Every proper prefix of a capture in memory fails with one line and frees
 * the buffer (ASan checks the leak), leaving the trace as it was. */
static void test_memory_bad(void **state)
{
	tu_space *s = tu_sample_space();
	struct xt_trace *t = trace_new();
	struct xt_error err;
	size_t n, cut;
	uint8_t *buf = tu_pack(s, &n);

	(void)state;
	for (cut = 0; cut < n; cut += 1 + cut / 8) {
		uint8_t *part = malloc(cut ? cut : 1);

		assert_non_null(part);
		memcpy(part, buf, cut);
		err.msg[0] = '\0';
		assert_true(xplane_load_mem(t, part, cut, "capture", "host", NULL, &err) < 0);
		tu_assert_one_line(&err);
		assert_int_equal(t->nhosts, 0);
	}
	free(buf);
	trace_free(t);
}

/* ---- bad input ---- */

static void test_bad_empty_and_missing(void **state)
{
	struct xt_error err;
	const char *dir = tu_mkdtemp();

	(void)state;
	assert_int_equal(tu_read_rc(tu_write_bytes(NULL, "", 0, 0, NULL), &err), XT_EFORMAT);
	tu_assert_one_line(&err);
	tu_expect_bad(tu_write_bytes(NULL, "", 0, 1, NULL), "empty gzip stream");
	assert_int_equal(tu_read_rc(tu_fmt("%s/missing.xplane.pb", dir), &err), XT_ENOENT);
	tu_assert_one_line(&err);
}

static void test_bad_truncated(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *l = tu_line_add(p, 1, "Stream #1(Kernel)", 0);
	size_t n, gzn, cut;
	uint8_t *buf;
	const char *path, *gzpath;
	FILE *f;
	uint8_t *gzbuf;
	int i;

	(void)state;
	/* One plane and nothing else: every proper prefix cuts into it. */
	for (i = 0; i < 6; i++) {
		tu_event *e = tu_ev(p, l, i % 2 ? "k1" : "k2", i * 10, 5);

		TU_SS(p, e, "hlo_op", "fusion");
		TU_SI(p, e, "group_id", i);
	}
	buf = tu_pack(s, &n);
	assert_true(n > 100);
	path = tu_write_bytes(NULL, buf, n, 0, NULL);
	for (cut = 1; cut < n; cut++) {
		struct xt_error err;
		int rc;

		tu_overwrite(path, buf, cut);
		rc = tu_read_rc(path, &err);
		if (rc >= 0)
			fail_msg("cut at %zu of %zu: loaded", cut, n);
		assert_int_equal(rc, XT_EFORMAT);
		tu_assert_one_line(&err);
	}
	/* The same cuts of a gzip'd copy (inside the header, the deflate
	 * stream and the trailer). */
	gzpath = tu_write_bytes(NULL, buf, n, 1, NULL);
	f = fopen(gzpath, "rb");
	assert_non_null(f);
	gzbuf = malloc(4096);
	assert_non_null(gzbuf);
	gzn = fread(gzbuf, 1, 4096, f);
	fclose(f);
	assert_true(gzn > 20 && gzn < 4096);
	for (cut = 1; cut < gzn; cut++) {
		tu_overwrite(gzpath, gzbuf, cut);
		tu_expect_bad(gzpath, "truncated gzip");
	}
	free(gzbuf);
	free(buf);
}

static void test_bad_random_bytes(void **state)
{
	uint64_t rs = 12345;
	const char *path = tu_write_bytes(NULL, "x", 1, 0, NULL);
	uint8_t *buf = malloc(4096), *valid;
	size_t n, vn, i;
	int seed;

	(void)state;
	assert_non_null(buf);
	for (seed = 0; seed < 40; seed++) {
		n = (size_t)tu_rand_range(&rs, 1, 4096);
		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)tu_rand(&rs);
		tu_overwrite(path, buf, n);
		tu_expect_bad(path, "random bytes");
	}
	/* Random damage to a valid file: must never crash; it may still load. */
	valid = tu_pack(tu_sample_space(), &vn);
	for (seed = 0; seed < 30; seed++) {
		uint8_t *m = malloc(vn);
		struct xt_error err;
		int k;

		assert_non_null(m);
		memcpy(m, valid, vn);
		for (k = 0; k < 1 + seed % 8; k++)
			m[tu_rand(&rs) % vn] = (uint8_t)tu_rand(&rs);
		tu_overwrite(path, m, vn);
		if (tu_read_rc(path, &err) < 0)
			tu_assert_one_line(&err);
		free(m);
	}
	free(valid);
	free(buf);
}

static void test_bad_no_planes(void **state)
{
	/* Valid protobuf (an unknown varint field 5 = 1, then an unknown
	 * fixed32), but no planes: not an XSpace profile. */
	static const uint8_t bytes[] = { 0x28, 0x01, 0x35, 1, 2, 3, 4 };
	struct xt_error err;

	(void)state;
	assert_int_equal(tu_read_rc(tu_write_bytes(NULL, bytes, sizeof(bytes), 0, NULL), &err),
			 XT_EFORMAT);
	tu_assert_one_line(&err);
	assert_int_equal(tu_read_rc(tu_write_bytes(NULL, bytes, sizeof(bytes), 1, NULL), &err),
			 XT_EFORMAT);
	tu_assert_one_line(&err);
}

/* ---- profile_path ---- */

static tu_space *small_space(int nev)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "thread", 0);
	int i;

	for (i = 0; i < nev; i++)
		tu_ev(p, l, "e", i * 10, 5);
	return s;
}

static void test_scan_run_directory(void **state)
{
	const char *dir = tu_mkdtemp();
	struct profile_set set;
	struct xt_error err;
	struct xt_trace *t;
	struct xt_analysis *a;
	char *hn;

	(void)state;
	tu_write_at(small_space(1), tu_fmt("%s/b_host.xplane.pb", dir), 0);
	tu_write_at(small_space(2), tu_fmt("%s/a_host.xplane.pb", dir), 0);
	tu_write_bytes(tu_fmt("%s/a_host.SSTABLE", dir), "not an xspace", 13, 0, NULL);
	tu_write_bytes(tu_fmt("%s/a_host.trace.json.gz", dir), "{}", 2, 1, NULL);
	assert_int_equal(profile_scan(&set, dir, &err), 0);
	assert_int_equal(set.nruns, 1);
	assert_int_equal(set.runs[0].nfiles, 2);
	assert_string_equal(set.runs[0].files[0].host, "a_host");
	assert_string_equal(set.runs[0].files[1].host, "b_host");
	assert_ptr_equal(profile_pick(&set, NULL, dir, &err), &set.runs[0]);
	profile_set_fini(&set);

	assert_int_equal(tu_load_rc(dir, NULL, &t, &a, &err), 0);
	assert_int_equal(t->nhosts, 2);
	assert_string_equal(t->hosts[0].name, "a_host");
	assert_string_equal(t->hosts[1].name, "b_host");
	assert_int_equal(t->nev, 3);

	hn = profile_host_name("/x/y/10.0.0.1_6009.xplane.pb.gz");
	assert_string_equal(hn, "10.0.0.1_6009");
	free(hn);
	hn = profile_host_name("h.xplane.pb");
	assert_string_equal(hn, "h");
	free(hn);
	{
		/* The viewer's title: a directory given with its slash. */
		char b[64];

		assert_string_equal(profile_show_name("runs/conv-legacy/", b, sizeof(b)), "conv-legacy");
		assert_string_equal(profile_show_name("runs/conv-legacy", b, sizeof(b)), "conv-legacy");
		assert_string_equal(profile_show_name("a.pb", b, sizeof(b)), "a.pb");
		assert_string_equal(profile_show_name("/x//", b, sizeof(b)), "x");
		assert_string_equal(profile_show_name("/", b, sizeof(b)), "/");
	}
}

static void test_scan_logdir(void **state)
{
	const char *base = tu_mkdtemp();
	const char *r1 = tu_mkdirs(base, "plugins/profile/2024_01_01_00_00_00");
	const char *r2 = tu_mkdirs(base, "plugins/profile/2024_02_01_00_00_00");
	const char *f1;
	struct profile_set set;
	const struct profile_run *run;
	struct xt_error err;
	struct xt_trace *t;
	struct xt_analysis *a;
	struct utimbuf ut = { 2000000000, 2000000000 };

	(void)state;
	tu_write_at(small_space(2), tu_fmt("%s/host.xplane.pb", r2), 0);
	f1 = tu_write_at(small_space(1), tu_fmt("%s/host.xplane.pb", r1), 0);
	/* The older run's file is the most recently modified: names decide. */
	assert_int_equal(utime(f1, &ut), 0);

	assert_int_equal(profile_scan(&set, base, &err), 0);
	assert_int_equal(set.nruns, 2);
	run = profile_pick(&set, NULL, base, &err);
	assert_non_null(run);
	assert_string_equal(run->name, "2024_02_01_00_00_00");
	assert_int_equal(run->nfiles, 1);
	run = profile_pick(&set, "2024_01_01_00_00_00", base, &err);
	assert_non_null(run);
	assert_string_equal(run->name, "2024_01_01_00_00_00");
	assert_null(profile_pick(&set, "2023_nope", base, &err));
	tu_assert_one_line(&err);
	profile_set_fini(&set);

	/* The plugins/profile root itself lists the same runs. */
	assert_int_equal(profile_scan(&set, tu_fmt("%s/plugins/profile", base), &err), 0);
	assert_int_equal(set.nruns, 2);
	profile_set_fini(&set);

	assert_int_equal(tu_load_rc(base, NULL, &t, &a, &err), 0);
	assert_int_equal(t->nev, 2); /* the newest run */
	assert_int_equal(tu_load_rc(base, "2024_01_01_00_00_00", &t, &a, &err), 0);
	assert_int_equal(t->nev, 1);
	assert_int_equal(tu_load_rc(base, "2023_nope", &t, &a, &err), XT_ENOENT);
	tu_assert_one_line(&err);
}

static void test_scan_no_profiles(void **state)
{
	const char *dir = tu_mkdtemp();
	struct profile_set set;
	struct xt_error err;
	struct xt_trace *t;
	struct xt_analysis *a;

	(void)state;
	assert_int_equal(profile_scan(&set, dir, &err), XT_ENOENT);
	tu_assert_one_line(&err);
	profile_set_fini(&set);
	/* Only files that are not profiles. */
	tu_write_bytes(tu_fmt("%s/x.SSTABLE", dir), "junk", 4, 0, NULL);
	tu_mkdirs(dir, "plugins/profile/empty_run");
	assert_int_equal(profile_scan(&set, dir, &err), XT_ENOENT);
	tu_assert_one_line(&err);
	profile_set_fini(&set);
	assert_int_equal(tu_load_rc(dir, NULL, &t, &a, &err), XT_ENOENT);
	tu_assert_one_line(&err);
	assert_int_equal(tu_load_rc(tu_fmt("%s/nonexistent", dir), NULL, &t, &a, &err), XT_ENOENT);
	tu_assert_one_line(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_events_sorted_by_start),
		TU_TEST(test_nesting_depth),
		TU_TEST(test_window_brute_force),
		TU_TEST(test_stats_kinds_ref_unknown),
		TU_TEST(test_stat_collect_event_first),
		TU_TEST(test_stat_scan_matches_decode),
		TU_TEST(test_line_ids_extreme),
		TU_TEST(test_unknown_event_metadata),
		TU_TEST(test_metadata_ids_high_bits),
		TU_TEST(test_aggregated_events),
		TU_TEST(test_event_records),
		TU_TEST(test_long_durations),
		TU_TEST(test_big_line),
		TU_TEST(test_split_lines),
		TU_TEST(test_line_order),
		TU_TEST(test_device_time),
		TU_TEST(test_device_order),
		TU_TEST(test_event_starts_wide),
		TU_TEST(test_event_sink),
		TU_TEST(test_finish_ranges),
		TU_TEST(test_finish_deep_boundary),
		TU_TEST(test_timestamp_after_events),
		TU_TEST(test_space_strings),
		TU_TEST(test_gzip_same_as_plain),
		TU_TEST(test_memory_same_as_file),
		TU_TEST(test_memory_bad),
		TU_TEST(test_bad_empty_and_missing),
		TU_TEST(test_bad_truncated),
		TU_TEST(test_bad_random_bytes),
		TU_TEST(test_bad_no_planes),
		TU_TEST(test_scan_run_directory),
		TU_TEST(test_scan_logdir),
		TU_TEST(test_scan_no_profiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
