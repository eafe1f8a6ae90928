/*
 * test_xspace_merge: the host planes of a collected XSpace become one
 * /host:CPU plane as upstream's ProfilerSession saves them (MergePlanes'
 * rules: lines by id, the earlier timestamp, metadata by name, ref values
 * by name, events sorted, lines by name), other planes keep their bytes,
 * planes of one name merge, and bad bytes are refused, never read past.
 */
#include "testutil.h"

#include "model/xspace_merge.h"

static Tensorflow__Profiler__XSpace *unpack(const uint8_t *b, size_t n)
{
	Tensorflow__Profiler__XSpace *s = tensorflow__profiler__xspace__unpack(NULL, n, b);

	assert_non_null(s);
	return s;
}

static const Tensorflow__Profiler__XPlane *plane(const Tensorflow__Profiler__XSpace *s,
						  const char *name, size_t *count)
{
	const Tensorflow__Profiler__XPlane *p = NULL;

	*count = 0;
	for (size_t i = 0; i < s->n_planes; i++)
		if (!strcmp(s->planes[i]->name, name)) {
			if (!p)
				p = s->planes[i];
			(*count)++;
		}
	return p;
}

static const char *emeta_name(const Tensorflow__Profiler__XPlane *p, int64_t id)
{
	for (size_t i = 0; i < p->n_event_metadata; i++)
		if (p->event_metadata[i]->key == id)
			return p->event_metadata[i]->value->name;
	return NULL;
}

static const char *smeta_name(const Tensorflow__Profiler__XPlane *p, int64_t id)
{
	for (size_t i = 0; i < p->n_stat_metadata; i++)
		if (p->stat_metadata[i]->key == id)
			return p->stat_metadata[i]->value->name;
	return NULL;
}

static const Tensorflow__Profiler__XLine *line(const Tensorflow__Profiler__XPlane *p, int64_t id)
{
	for (size_t i = 0; i < p->n_lines; i++)
		if (p->lines[i]->id == id)
			return p->lines[i];
	return NULL;
}

/* An agent's XSpace: XLA's TraceMe plane, the CUPTI API plane with a line
 * of the same thread that starts earlier, an NVTX plane whose line id is
 * taken, a device plane between them. */
static tu_space *agent_space(void)
{
	tu_space *s = tu_space_new();
	tu_plane *cpu = tu_plane_add(s, 0, "/host:CPU");
	tu_plane *dev = tu_plane_add(s, 1, "/device:GPU:0");
	tu_plane *cupti = tu_plane_add(s, 0, "/host:CUPTI");
	tu_plane *nvtx = tu_plane_add(s, 0, "/host:NVTX-CUPTI");
	tu_line *l;
	tu_event *e;
	int64_t corr, kind, val;

	tu_hostname_add(s, "vm");
	l = tu_line_add(cpu, 77, "python3", 1000);
	e = tu_ev(cpu, l, "ThunkExecutor", 0, 50000);
	kind = tu_smeta(cpu, "kind");
	val = tu_smeta(cpu, "thunk");
	tu_stat_ref(&e->n_stats, &e->stats, kind, (uint64_t)val);
	tu_ev(cpu, l, "MemoryAllocation", 60000, 1000);
	l = tu_line_add(dev, 7, "Stream #7", 1000);
	tu_ev(dev, l, "gemm", 0, 40000);
	/* Same thread, 2 ns earlier: its events keep their place, the TraceMe
	 * events move 2000 ps later on the merged line. Metadata ids collide
	 * with /host:CPU's on purpose. */
	l = tu_line_add(cupti, 77, "Host Threads/77", 998);
	e = tu_ev(cupti, l, "cuLaunchKernel", 3000, 500);
	corr = tu_smeta(cupti, "correlation_id");
	tu_stat_uint(&e->n_stats, &e->stats, corr, 42);
	tu_ev(cupti, l, "MemoryAllocation", 0, 100); /* a name both planes have */
	l = tu_line_add(cupti, 9, "Host Threads/9", 998);
	tu_ev(cupti, l, "BUFFER_FLUSH", 0, 10);
	l = tu_line_add(nvtx, 9, "NVTX", 998);
	tu_ev(nvtx, l, "range", 0, 10);
	return s;
}

static void test_merge_agent_space(void **state)
{
	size_t n, on, c;
	uint8_t *in = tu_pack(agent_space(), &n), *out = NULL;
	Tensorflow__Profiler__XSpace *s;
	const Tensorflow__Profiler__XPlane *h, *d;
	const Tensorflow__Profiler__XLine *l;

	(void)state;
	assert_int_equal(xspace_merge(in, n, &out, &on), 1);
	s = unpack(out, on);
	assert_int_equal(s->n_planes, 2);
	assert_string_equal(s->planes[0]->name, "/device:GPU:0");
	assert_string_equal(s->planes[1]->name, "/host:CPU");
	assert_int_equal(s->n_hostnames, 1);
	d = plane(s, "/device:GPU:0", &c);
	assert_int_equal(d->n_lines, 1);
	h = plane(s, "/host:CPU", &c);
	assert_int_equal(c, 1);
	assert_null(plane(s, "/host:CUPTI", &c));
	assert_null(plane(s, "/host:NVTX-CUPTI", &c));

	/* Lines by name: "Host Threads/9", "NVTX", "python3". */
	assert_int_equal(h->n_lines, 3);
	assert_string_equal(h->lines[0]->name, "Host Threads/9");
	assert_string_equal(h->lines[1]->name, "NVTX");
	assert_int_equal(h->lines[1]->id, (int64_t)1 << 32);
	assert_string_equal(h->lines[2]->name, "python3");

	l = line(h, 77);
	assert_non_null(l);
	assert_int_equal(l->timestamp_ns, 998);
	assert_int_equal(l->n_events, 4);
	/* Sorted by start: MemoryAllocation (CUPTI, 0), ThunkExecutor (2000),
	 * cuLaunchKernel (3000), MemoryAllocation (62000). */
	assert_string_equal(emeta_name(h, l->events[0]->metadata_id), "MemoryAllocation");
	assert_int_equal(l->events[0]->offset_ps, 0);
	assert_string_equal(emeta_name(h, l->events[1]->metadata_id), "ThunkExecutor");
	assert_int_equal(l->events[1]->offset_ps, 2000);
	assert_int_equal(l->events[1]->duration_ps, 50000);
	assert_string_equal(emeta_name(h, l->events[2]->metadata_id), "cuLaunchKernel");
	assert_int_equal(l->events[2]->offset_ps, 3000);
	assert_string_equal(emeta_name(h, l->events[3]->metadata_id), "MemoryAllocation");
	assert_int_equal(l->events[3]->offset_ps, 62000);
	/* One metadata per name. */
	assert_int_equal(l->events[0]->metadata_id, l->events[3]->metadata_id);
	assert_int_equal(h->n_event_metadata, 5);

	/* Stats keep their names and values; a ref points at its name. */
	assert_int_equal(l->events[1]->n_stats, 1);
	assert_string_equal(smeta_name(h, l->events[1]->stats[0]->metadata_id), "kind");
	assert_int_equal(l->events[1]->stats[0]->value_case,
			 TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);
	assert_string_equal(smeta_name(h, (int64_t)l->events[1]->stats[0]->ref_value), "thunk");
	assert_int_equal(l->events[2]->n_stats, 1);
	assert_string_equal(smeta_name(h, l->events[2]->stats[0]->metadata_id),
			    "correlation_id");
	assert_int_equal(l->events[2]->stats[0]->uint64_value, 42);

	tensorflow__profiler__xspace__free_unpacked(s, NULL);
	free(out);
	free(in);
}

/* What the merged bytes give the model: the launch calls on the thread's
 * line of /host:CPU. */
static void test_merge_loads(void **state)
{
	size_t n, on;
	uint8_t *in = tu_pack(agent_space(), &n), *out = NULL;
	const char *path;
	struct xt_trace *t;
	const struct xt_host *host;
	size_t i, found = 0;

	(void)state;
	assert_int_equal(xspace_merge(in, n, &out, &on), 1);
	path = tu_write_bytes(NULL, out, on, 0, NULL);
	free(out);
	t = tu_read(path);
	host = &t->hosts[0];
	for (i = 0; i < host->nplanes; i++) {
		const struct xt_plane *p = &host->planes[i];

		assert_string_not_equal(p->name, "/host:CUPTI");
		if (!strcmp(p->name, "/host:CPU"))
			found += p->nlines;
	}
	assert_int_equal(found, 3);
	/* The raw file reads the same: the reader merges it too. */
	path = tu_write_bytes(NULL, in, n, 1, NULL);
	free(in);
	t = tu_read(path);
	/* the size said is the file's XSpace, not the merged copy's */
	assert_int_equal(t->hosts[0].src.file_xspace, n);
	assert_int_not_equal(t->hosts[0].src.size, n);
	found = 0;
	for (i = 0; i < t->hosts[0].nplanes; i++)
		if (!strcmp(t->hosts[0].planes[i].name, "/host:CPU"))
			found += t->hosts[0].planes[i].nlines;
	assert_int_equal(found, 3);
}

/* The line that starts later moves its events by the difference; an
 * aggregated event keeps its count and sorts at offset 0. */
static void test_merge_later_line(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *cpu = tu_plane_add(s, 0, "/host:CPU");
	tu_plane *cupti = tu_plane_add(s, 0, "/host:CUPTI");
	tu_line *l;
	size_t n, on, c;
	uint8_t *in, *out = NULL;
	Tensorflow__Profiler__XSpace *u;
	const Tensorflow__Profiler__XPlane *h;
	const Tensorflow__Profiler__XLine *m;

	(void)state;
	l = tu_line_add(cpu, 5, "main", 100);
	tu_ev(cpu, l, "a", 500, 10);
	tu_event_agg(l, tu_emeta(cpu, "agg")->id, 7, 70);
	l = tu_line_add(cupti, 5, "Host Threads/5", 103); /* 3 ns later */
	tu_ev(cupti, l, "launch", 0, 5);
	in = tu_pack(s, &n);
	assert_int_equal(xspace_merge(in, n, &out, &on), 1);
	u = unpack(out, on);
	h = plane(u, "/host:CPU", &c);
	m = line(h, 5);
	assert_int_equal(m->timestamp_ns, 100);
	assert_string_equal(m->name, "main");
	assert_int_equal(m->n_events, 3);
	assert_string_equal(emeta_name(h, m->events[0]->metadata_id), "agg");
	assert_int_equal(m->events[0]->data_case,
			 TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES);
	assert_int_equal(m->events[0]->num_occurrences, 7);
	assert_string_equal(emeta_name(h, m->events[1]->metadata_id), "a");
	assert_int_equal(m->events[1]->offset_ps, 500);
	assert_string_equal(emeta_name(h, m->events[2]->metadata_id), "launch");
	assert_int_equal(m->events[2]->offset_ps, 3000);
	tensorflow__profiler__xspace__free_unpacked(u, NULL);
	free(out);
	free(in);
}

/* Times that overflow int64 picoseconds are no profile: refused. */
static void test_merge_overflow(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *cpu = tu_plane_add(s, 0, "/host:CPU");
	tu_plane *cupti = tu_plane_add(s, 0, "/host:CUPTI");
	size_t n, on;
	uint8_t *in, *out = NULL;

	(void)state;
	tu_ev(cpu, tu_line_add(cpu, 5, "main", 1700000000000000000LL), "a", 0, 1);
	tu_ev(cupti, tu_line_add(cupti, 5, "t", 5), "b", 0, 1);
	in = tu_pack(s, &n);
	assert_int_equal(xspace_merge(in, n, &out, &on), -1);
	assert_null(out);
	free(in);
}

/* A profile a ProfilerSession saved needs nothing. */
static void test_merge_nothing(void **state)
{
	tu_space *s = tu_sample_space();
	size_t n, on = 7;
	uint8_t *in = tu_pack(s, &n), *out = (uint8_t *)"untouched";

	(void)state;
	assert_int_equal(xspace_merge(in, n, &out, &on), 0);
	assert_string_equal((const char *)out, "untouched");
	assert_int_equal(on, 7);
	assert_int_equal(xspace_merge(NULL, 0, &out, &on), 0);
	free(in);
}

/* Two planes of one name merge into the first, which keeps its ids. */
static void test_merge_same_name(void **state)
{
	tu_space *s = tu_space_new();
	tu_plane *a = tu_plane_add(s, 3, "/host:metadata");
	tu_plane *b = tu_plane_add(s, 4, "/host:metadata");
	tu_plane *dev = tu_plane_add(s, 1, "/device:GPU:0");
	size_t n, on, c;
	uint8_t *in, *out = NULL;
	Tensorflow__Profiler__XSpace *u;
	const Tensorflow__Profiler__XPlane *m;

	(void)state;
	tu_emeta_id(a, 10, "jit_f(1)", "");
	tu_emeta_id(b, 10, "jit_g(2)", "");
	tu_ev(dev, tu_line_add(dev, 1, "Stream #1", 0), "k", 0, 10);
	in = tu_pack(s, &n);
	assert_int_equal(xspace_merge(in, n, &out, &on), 1);
	u = unpack(out, on);
	m = plane(u, "/host:metadata", &c);
	assert_int_equal(c, 1);
	assert_int_equal(m->id, 3);
	assert_int_equal(m->n_event_metadata, 2);
	assert_string_equal(emeta_name(m, 10), "jit_f(1)");
	assert_string_equal(emeta_name(m, 11), "jit_g(2)");
	assert_int_equal(u->n_planes, 2);
	tensorflow__profiler__xspace__free_unpacked(u, NULL);
	free(out);
	free(in);
}

/* Cut anywhere or with a byte changed, the XSpace is merged or refused,
 * never read past its end (ASan watches). */
static void test_merge_damaged(void **state)
{
	size_t n, on, i;
	uint8_t *in = tu_pack(agent_space(), &n), *out, *cut;
	int rc;

	(void)state;
	for (i = 0; i < n; i++) {
		cut = malloc(i ? i : 1);
		assert_non_null(cut);
		memcpy(cut, in, i);
		out = NULL;
		rc = xspace_merge(cut, i, &out, &on);
		assert_true(rc >= -1 && rc <= 1);
		if (rc == 1) {
			/* what it writes is an XSpace protobuf parses */
			tensorflow__profiler__xspace__free_unpacked(unpack(out, on), NULL);
			free(out);
		}
		free(cut);
	}
	cut = malloc(n);
	assert_non_null(cut);
	for (i = 0; i < n; i++) {
		memcpy(cut, in, n);
		cut[i] ^= 0x5a;
		out = NULL;
		rc = xspace_merge(cut, n, &out, &on);
		if (rc == 1) {
			Tensorflow__Profiler__XSpace *u =
				tensorflow__profiler__xspace__unpack(NULL, on, out);

			/* A changed byte can make bytes protobuf rejects that the
			 * merge passed through unread (another plane's inside); a
			 * merged plane it made itself always parses. */
			if (u)
				tensorflow__profiler__xspace__free_unpacked(u, NULL);
			free(out);
		}
	}
	free(cut);
	cut = malloc(2);
	assert_non_null(cut);
	cut[0] = 0x0a; /* a plane longer than the bytes left */
	cut[1] = 0x7f;
	assert_int_equal(xspace_merge(cut, 2, &out, &on), -1);
	free(cut);
	free(in);
}

/* The real thing: an agent capture of a JAX program on an H100 (see
 * tests/fixtures/h100/README.md) keeps every event. */
static void test_merge_h100_capture(void **state)
{
	const char *path = "tests/fixtures/h100/agent-h100-mlp-cb.xplane.pb.gz";
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 22, n = 0, on, i, before = 0, after = 0, c;
	uint8_t *b = malloc(cap), *out = NULL;
	Tensorflow__Profiler__XSpace *s;
	int r;

	(void)state;
	assert_non_null(g);
	assert_non_null(b);
	while ((r = gzread(g, b + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			b = realloc(b, cap *= 2);
			assert_non_null(b);
		}
	}
	gzclose(g);
	s = unpack(b, n);
	for (i = 0; i < s->n_planes; i++)
		for (size_t l = 0; l < s->planes[i]->n_lines; l++)
			before += s->planes[i]->lines[l]->n_events;
	assert_non_null(plane(s, "/host:CUPTI", &c));
	tensorflow__profiler__xspace__free_unpacked(s, NULL);
	assert_int_equal(xspace_merge(b, n, &out, &on), 1);
	free(b);
	s = unpack(out, on);
	for (i = 0; i < s->n_planes; i++)
		for (size_t l = 0; l < s->planes[i]->n_lines; l++)
			after += s->planes[i]->lines[l]->n_events;
	assert_int_equal(before, after);
	assert_null(plane(s, "/host:CUPTI", &c));
	assert_non_null(plane(s, "/host:CPU", &c));
	assert_int_equal(c, 1);
	tensorflow__profiler__xspace__free_unpacked(s, NULL);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_merge_agent_space, tu_teardown),
		cmocka_unit_test_teardown(test_merge_loads, tu_teardown),
		cmocka_unit_test_teardown(test_merge_later_line, tu_teardown),
		cmocka_unit_test_teardown(test_merge_overflow, tu_teardown),
		cmocka_unit_test_teardown(test_merge_nothing, tu_teardown),
		cmocka_unit_test_teardown(test_merge_same_name, tu_teardown),
		cmocka_unit_test_teardown(test_merge_damaged, tu_teardown),
		cmocka_unit_test_teardown(test_merge_h100_capture, tu_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
