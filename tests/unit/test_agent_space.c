/*
 * test_agent_space: the agent's XSpace assembly (agent_space.c, agent_host.c)
 * checked by decoding its output with xtop's own reader: a plugin buffer's
 * trailing NUL, line times made relative to the capture, the C API's lines
 * merged into the plugin's /host:CPU plane with metadata ids above its own,
 * TraceMe metadata typed as upstream types it, steps, open spans, the Task
 * Environment plane, errors and warnings, several plugins, and malformed
 * input.
 */
#include "testutil.h"

#include "agent/agent_host.h"
#include "agent/agent_space.h"
#include "model/stats.h"

#define T0 1700000000000000000ll /* a date, in ns */

/* The pieces of o as one buffer (malloc'd). */
static uint8_t *flatten(const struct space_out *o, size_t *n)
{
	uint8_t *b = malloc(o->total ? o->total : 1);
	size_t i, k = 0;

	assert_non_null(b);
	assert_false(o->oom);
	for (i = 0; i < o->n; i++) {
		memcpy(b + k, o->v[i].p, o->v[i].n);
		k += o->v[i].n;
	}
	assert_int_equal(k, o->total);
	*n = k;
	return b;
}

static struct xt_trace *decode(const struct space_out *o)
{
	struct xt_trace *t = trace_new();
	struct xt_error err = { "" };
	size_t n;
	uint8_t *b = flatten(o, &n);
	int rc = xplane_load_mem(t, b, n, "assembled", "host", NULL, &err);

	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
	return t;
}

static const struct xt_plane *plane(const struct xt_trace *t, const char *name)
{
	size_t p;

	for (p = 0; p < t->hosts[0].nplanes; p++)
		if (!strcmp(t->hosts[0].planes[p].name, name))
			return &t->hosts[0].planes[p];
	return NULL;
}

static const struct xt_line *line(const struct xt_plane *p, const char *name)
{
	size_t l;

	for (l = 0; l < p->nlines; l++)
		if (!strcmp(p->lines[l].name, name))
			return &p->lines[l];
	return NULL;
}

/* A plugin's XSpace: a GPU plane and a host plane, both dated. */
static uint8_t *plugin_space(size_t *n, int with_host)
{
	tu_space *s = tu_space_new();
	tu_plane *g = tu_plane_add(s, 1, "/device:GPU:0");
	tu_line *gl = tu_line_add(g, 7, "Stream #7(Kernel)", T0 + 1000);
	tu_event *e = tu_ev(g, gl, "fusion.1", 5000, 2000);

	TU_SI(g, e, "correlation_id", 11);
	if (with_host) {
		tu_plane *h = tu_plane_add(s, 2, "/host:CPU");
		tu_line *hl = tu_line_add(h, 42, "python", T0 + 500);

		tu_ev(h, hl, "ExecuteOnDevice", 0, 9000);
		TU_SI(h, h->lines[0]->events[0], "group_id", 3);
	}
	return tu_pack(s, n);
}

static void test_trim(void **state)
{
	size_t n;
	uint8_t *b = plugin_space(&n, 1), *nul = malloc(n + 1);
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 0, "x");
	uint8_t *z;
	size_t zn;
	struct space_scan sc;

	(void)state;
	memcpy(nul, b, n);
	nul[n] = 0;
	assert_int_equal(space_trim(nul, n + 1), n); /* XLA's plugin: one NUL more */
	assert_int_equal(space_trim(b, n), n);
	assert_int_equal(space_scan(nul, n + 1, &sc), -1);
	assert_int_equal(space_scan(b, n, &sc), 0);
	assert_int_equal(sc.nplanes, 2);
	assert_int_equal(sc.host_plane, 1);
	/* A last byte 0 that belongs to the XSpace is kept: a plane whose
	 * last field is a varint 0. */
	(void)p;
	z = tu_pack(s, &zn);
	z = realloc(z, zn + 2);
	z[zn] = 1 << 3; /* XPlane.id = 0, written explicitly */
	z[zn + 1] = 0;
	z[1] += 2; /* the plane's length */
	assert_int_equal(space_scan(z, zn + 2, &sc), 0);
	assert_int_equal(space_trim(z, zn + 2), zn + 2);
	free(z);
	free(b);
	free(nul);
}

static void test_malformed(void **state)
{
	static const uint8_t junk[] = { 0x0a, 0x05, 0x1a, 0x09, 0x01, 0x02 }; /* line overruns plane */
	struct space_scan sc;

	(void)state;
	assert_int_equal(space_scan(junk, sizeof(junk), &sc), -1);
	assert_int_equal(space_scan((const uint8_t *)"\xff\xff", 2, &sc), -1);
	assert_int_equal(space_scan(NULL, 0, &sc), 0);
	assert_int_equal(sc.nplanes, 0);
}

/* Text mended into UTF-8 as protobuf's parsers require: a sequence cut by
 * the end is dropped, other bytes of no character read '?'. */
static void test_utf8_fix(void **state)
{
	static const struct {
		const char *in, *out;
	} c[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "prefetch-queue\xc3", "prefetch-queue" },
		{ "ab\xe2\x82", "ab" },
		{ "bad\xff\xfename", "bad??name" },
		{ "\xe2\x82x", "??x" },
		{ "\xed\xa0\x80", "???" },           /* a surrogate */
		{ "\xc0\xaf", "??" },                 /* overlong */
		{ "\xf4\x90\x80\x80", "????" },     /* above U+10FFFF */
		{ "\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!" },
		{ "", "" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = abuf_u8_fix(buf, c[i].in, strlen(c[i].in));

		assert_int_equal(n, strlen(c[i].out));
		assert_string_equal(buf, c[i].out);
	}
	/* in place */
	snprintf(buf, sizeof(buf), "x\xffy\xc3");
	abuf_u8_fix(buf, buf, strlen(buf));
	assert_string_equal(buf, "x?y");
}

/* Drops on many threads: the first eight named, the rest counted, and the
 * events of threads that got no buffer (tid 0, no events) said too. */
static void test_drop_warnings(void **state)
{
	struct host_enc h;
	struct xtop_trace_thread th = { 0, "w", 0, 2 };
	uint64_t k;

	(void)state;
	host_enc_init(&h, T0, T0 + 1000, 0, 0);
	for (k = 1; k <= 10; k++) {
		th.tid = 100 + k;
		host_enc_thread(&h, &th);
	}
	th.tid = 0;
	th.name = "";
	th.dropped = 5;
	host_enc_thread(&h, &th);
	assert_int_equal(host_enc_finish(&h), 0);
	assert_int_equal(h.dropped, 20);
	assert_int_equal(h.lost, 5);
	/* The totals first: a message cut short keeps them. */
	assert_true(!strncmp(h.warnings, "xtop trace: 20 events dropped by 10 threads (past the "
					 "library's bounds: memory, or spans nested over 128 deep); "
					 "xtop trace: 5 events of threads that got no buffer", 150));
	assert_non_null(strstr(h.warnings, "\nxtop trace: thread 108 (w) dropped 2\n"));
	assert_null(strstr(h.warnings, "thread 109"));
	assert_non_null(strstr(h.warnings, "\nxtop trace: ..."));
	host_enc_fini(&h);
}

/* Two copies of libxtop-trace recorded on one thread (a static copy in the
 * program, another in a library it loaded): one line, their events in
 * start order, the library's span nested in the program's. */
static void test_two_copies_one_thread(void **state)
{
	uint64_t base = T0, stop = T0 + 20000;
	struct xtop_trace_thread th = { 77, "app", 1, 0 };
	struct xtop_trace_event e;
	struct space_out o;
	struct host_enc h;
	struct xt_trace *t;
	const struct xt_plane *hp;
	const struct xt_line *l;
	size_t k;

	(void)state;
	host_enc_init(&h, base, stop, 0, 0);
	memset(&e, 0, sizeof(e));
	e.kind = XTOP_TRACE_SPAN;
	host_enc_thread(&h, &th); /* the program's copy */
	e.name = "app_outer";
	e.name_len = 9;
	e.start_ns = base + 1000;
	e.end_ns = base + 9000;
	host_enc_event(&h, &e);
	e.name = "app_late";
	e.name_len = 8;
	e.start_ns = base + 10000;
	e.end_ns = base + 11000;
	host_enc_event(&h, &e);
	th.name = "app";
	host_enc_thread(&h, &th); /* the library's copy */
	e.name = "lib_inner";
	e.name_len = 9;
	e.start_ns = base + 2000;
	e.end_ns = base + 3000;
	host_enc_event(&h, &e);
	assert_int_equal(host_enc_finish(&h), 0);
	space_out_init(&o);
	space_emit_plane(&o, "/host:CPU", h.fields.p, h.fields.n);
	space_emit_task_env(&o, base, stop);
	t = decode(&o);
	hp = plane(t, "/host:CPU");
	assert_int_equal(hp->nlines, 1);
	l = line(hp, "app");
	assert_int_equal(l->id, 77);
	assert_int_equal(l->nev, 3);
	for (k = 0; k < 3; k++) {
		static const char *const want[3] = { "app_outer", "lib_inner", "app_late" };

		assert_string_equal(trace_event_display_name(hp, &l->ev[k]), want[k]);
	}
	assert_int_equal(xt_event_depth(&l->ev[1]), 1);
	host_enc_fini(&h);
	space_out_fini(&o);
}

/* Feeds the encoder what a registry's collect() would. */
static void feed(struct host_enc *h, uint64_t base, int with_open)
{
	struct xtop_trace_thread th = { 1234, "trainer", 4, 3 };
	struct xtop_trace_event e;
	static const char nm[] = "load#batch=32, lr = 0.5,tag=fwd,big=18446744073709551615,neg=-7,"
				 "shape=[1,2],empty=,=x#";

	host_enc_thread(h, &th);
	memset(&e, 0, sizeof(e));
	e.kind = XTOP_TRACE_STEP;
	e.step = 5;
	e.start_ns = base + 1000;
	e.end_ns = base + 9000;
	host_enc_event(h, &e);
	e.kind = XTOP_TRACE_SPAN;
	e.name = nm;
	e.name_len = sizeof(nm) - 1;
	e.start_ns = base + 2000;
	e.end_ns = base + 3000;
	host_enc_event(h, &e);
	e.kind = XTOP_TRACE_INSTANT;
	e.name = "plain#not metadata";
	e.name_len = 18;
	e.start_ns = e.end_ns = base + 2500;
	host_enc_event(h, &e);
	e.kind = XTOP_TRACE_SPAN;
	e.name = "open";
	e.name_len = 4;
	e.start_ns = base + 4000;
	e.end_ns = with_open ? 0 : base + 4100;
	host_enc_event(h, &e);
}

/* The stats of event ev of line l, as "name=value" joined by spaces. */
static const char *stats_of(const struct xt_host *host, const struct xt_plane *p,
			    const struct xt_line *l, size_t ev)
{
	static char out[512];
	struct stat_iter it;
	struct xt_stat s;
	size_t k = 0;

	out[0] = '\0';
	stat_iter_event(&it, host, p, l, &l->ev[ev]);
	while (stat_next(&it, &s) && k < sizeof(out) - 64) {
		const char *name = s.meta ? s.meta->name : "?";

		if (s.kind == XT_STAT_INT)
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s=i%lld", k ? " " : "", name,
					      (long long)s.i);
		else if (s.kind == XT_STAT_UINT)
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s=u%llu", k ? " " : "", name,
					      (unsigned long long)s.u);
		else if (s.kind == XT_STAT_DOUBLE)
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s=d%g", k ? " " : "", name, s.d);
		else if (s.kind == XT_STAT_STR)
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s=s%.*s", k ? " " : "", name,
					      (int)s.n, s.s);
	}
	return out;
}

/* One plugin with a host plane: the C API's line joins it; times become
 * relative to the capture's start. */
static void test_merge_and_normalize(void **state)
{
	uint64_t base = T0 + 100, stop = T0 + 20000;
	struct space_out o;
	struct space_scan sc;
	struct host_enc h;
	struct xt_trace *t;
	const struct xt_plane *hp, *gp, *env;
	const struct xt_line *ml, *pl, *gl;
	size_t n;
	uint8_t *b = plugin_space(&n, 1);

	(void)state;
	assert_int_equal(space_scan(b, n, &sc), 0);
	assert_true(sc.max_emeta >= 1 && sc.max_smeta >= 1);
	host_enc_init(&h, base, stop, sc.max_emeta, sc.max_smeta);
	feed(&h, base, 1);
	assert_int_equal(host_enc_finish(&h), 0);
	assert_int_equal(h.nev, 4);
	assert_int_equal(h.dropped, 3);
	assert_non_null(strstr(h.warnings, "thread 1234 (trainer) dropped 3"));
	space_out_init(&o);
	space_emit(&o, b, n, base, sc.host_plane, h.fields.p, h.fields.n);
	space_emit_task_env(&o, base, stop);
	space_emit_string(&o, 2, "plugin X: its profiler failed to start");
	space_emit_string(&o, 3, h.warnings);
	t = decode(&o);
	assert_int_equal(t->hosts[0].nplanes, 3);
	hp = plane(t, "/host:CPU");
	gp = plane(t, "/device:GPU:0");
	env = plane(t, "Task Environment");
	assert_non_null(hp);
	assert_non_null(gp);
	assert_non_null(env);
	assert_int_equal(t->hosts[0].nerrors, 1);
	assert_int_equal(t->hosts[0].nwarnings, 1);
	/* Dated line times are now since the capture's start. */
	gl = line(gp, "Stream #7(Kernel)");
	assert_int_equal(gl->timestamp_ns, 1000 - 100);
	assert_int_equal(xt_event_start(gl, &gl->ev[0]), (1000 - 100) * 1000 + 5000);
	pl = line(hp, "python");
	assert_int_equal(pl->timestamp_ns, 500 - 100);
	assert_string_equal(trace_event_display_name(hp, &pl->ev[0]), "ExecuteOnDevice");
	assert_string_equal(stats_of(&t->hosts[0], hp, pl, 0), "group_id=i3");
	/* The C API's line, beside the plugin's, in the same plane. */
	ml = line(hp, "trainer");
	assert_non_null(ml);
	assert_int_equal(ml->id, 1234);
	assert_int_equal(ml->nev, 4);
	assert_string_equal(trace_event_display_name(hp, &ml->ev[0]), "train");
	assert_int_equal(xt_event_start(ml, &ml->ev[0]), 1000 * 1000);
	assert_int_equal(xt_event_dur(ml, &ml->ev[0]), 8000 * 1000);
	assert_string_equal(stats_of(&t->hosts[0], hp, ml, 0), "step_num=i5 _r=i1");
	assert_string_equal(trace_event_display_name(hp, &ml->ev[1]), "load");
	assert_string_equal(stats_of(&t->hosts[0], hp, ml, 1),
			    "batch=i32 lr=d0.5 tag=sfwd big=u18446744073709551615 neg=i-7 "
			    "shape=s[1,2]");
	/* Not the TraceMe encoding (no trailing '#'): the name as given. */
	assert_string_equal(trace_event_display_name(hp, &ml->ev[2]), "plain#not metadata");
	assert_int_equal(xt_event_dur(ml, &ml->ev[2]), 0);
	/* Open at the end of the capture: ends there. */
	assert_string_equal(trace_event_display_name(hp, &ml->ev[3]), "open");
	assert_int_equal(xt_event_end(ml, &ml->ev[3]), (int64_t)(stop - base) * 1000);
	assert_int_equal(t->nev, 1 + 1 + 4);
	host_enc_fini(&h);
	space_out_fini(&o);
	free(b);
}

/* Two plugins without host planes: the C API's lines get their own plane,
 * and a plugin's own Task Environment gives way to the capture's. */
static void test_own_plane_two_plugins(void **state)
{
	uint64_t base = T0, stop = T0 + 50000;
	tu_space *s2 = tu_space_new();
	tu_plane *tp = tu_plane_add(s2, 5, "/device:TPU:0");
	tu_line *tl = tu_line_add(tp, 1, "XLA Ops", 0); /* relative already: kept */
	tu_plane *te = tu_plane_add(s2, 6, "Task Environment");
	struct space_out o;
	struct host_enc h;
	struct xt_trace *t;
	const struct xt_plane *hp;
	size_t n1, n2, p, envs = 0;
	uint8_t *a, *b;

	(void)state;
	tu_ev(tp, tl, "convolution.2", 100, 50);
	TU_SU(te, te, "profile_start_time", 1);
	a = plugin_space(&n1, 0);
	b = tu_pack(s2, &n2);
	host_enc_init(&h, base, stop, 0, 0);
	feed(&h, base, 0);
	assert_int_equal(host_enc_finish(&h), 0);
	space_out_init(&o);
	space_emit(&o, a, n1, base, -1, NULL, 0);
	space_emit(&o, b, n2, base, -1, NULL, 0);
	space_emit_plane(&o, "/host:CPU", h.fields.p, h.fields.n);
	space_emit_task_env(&o, base, stop);
	t = decode(&o);
	assert_non_null(plane(t, "/device:GPU:0"));
	assert_non_null(plane(t, "/device:TPU:0"));
	assert_int_equal(line(plane(t, "/device:TPU:0"), "XLA Ops")->timestamp_ns, 0);
	hp = plane(t, "/host:CPU");
	assert_non_null(hp);
	assert_int_equal(line(hp, "trainer")->nev, 4);
	for (p = 0; p < t->hosts[0].nplanes; p++)
		envs += !strcmp(t->hosts[0].planes[p].name, "Task Environment");
	assert_int_equal(envs, 1);
	assert_int_equal(t->nev, 1 + 1 + 4);
	host_enc_fini(&h);
	space_out_fini(&o);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_trim),
		TU_TEST(test_utf8_fix),
		TU_TEST(test_drop_warnings),
		TU_TEST(test_two_copies_one_thread),
		TU_TEST(test_malformed),
		TU_TEST(test_merge_and_normalize),
		TU_TEST(test_own_plane_two_plugins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
