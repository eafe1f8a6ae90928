/*
 * testutil: helpers shared by the unit tests.
 *
 * Building profiles: an XSpace is assembled in memory with the protobuf-c
 * structs generated from proto/xplane.proto (planes, lines, events, stats,
 * event/stat metadata maps), packed and written to a temporary file (plain
 * or gzip). Metadata can be referred to by name: tu_smeta()/tu_emeta() find
 * or add the entry with the next free id.
 *
 * Cleanup: everything a helper allocates (messages, paths, temp files and
 * directories, loaded traces and analyses) is recorded and released by
 * tu_teardown(), which every test registers as its teardown, so a failing
 * assertion (cmocka longjmps out of the test) leaks nothing and leaves no
 * files behind. With TU_KEEP=1 in the environment the written profiles are
 * kept (and listed on stderr), e.g. to run the oracle on them.
 */
#ifndef XT_TESTUTIL_H
#define XT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/analysis.h"
#include "model/load.h"
#include "model/stats.h"
#include "model/trace.h"
#include "model/xplane_reader.h"
#include "util/error.h"
#include "xplane.pb-c.h"

#define TU_FN static __attribute__((unused))

typedef Tensorflow__Profiler__XSpace tu_space;
typedef Tensorflow__Profiler__XPlane tu_plane;
typedef Tensorflow__Profiler__XLine tu_line;
typedef Tensorflow__Profiler__XEvent tu_event;
typedef Tensorflow__Profiler__XStat tu_stat;
typedef Tensorflow__Profiler__XEventMetadata tu_emeta_t;
typedef Tensorflow__Profiler__XStatMetadata tu_smeta_t;

/* ---- what teardown releases ---- */

struct tu_loaded {
	struct xt_trace *t;
	struct xt_analysis *a;
};

static struct {
	tu_space **spaces;
	size_t nspaces;
	char **files; /* unlinked, then freed */
	size_t nfiles;
	char **dirs;  /* removed recursively, then freed */
	size_t ndirs;
	char **strs;  /* only freed */
	size_t nstrs;
	struct tu_loaded *loaded;
	size_t nloaded;
} tu_reg;

/* Appends p to a registry array. */
#define TU_PUSH(arr, n, p)                                                     \
	do {                                                                   \
		(arr) = realloc((arr), ((n) + 1) * sizeof(*(arr)));            \
		assert_non_null(arr);                                          \
		(arr)[(n)++] = (p);                                            \
	} while (0)

TU_FN void *tu_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	assert_non_null(p);
	return p;
}

TU_FN char *tu_xstrdup(const char *s)
{
	char *p = strdup(s);

	assert_non_null(p);
	return p;
}

/* A malloc'd copy of printf output, freed at teardown. */
TU_FN char *tu_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
TU_FN char *tu_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	TU_PUSH(tu_reg.strs, tu_reg.nstrs, s);
	return s;
}

/* Appends a new message var (zeroed, then init'ed) to a protobuf-c repeated
 * field of pointers. */
#define TU_ADD(var, n, arr, init)                                              \
	do {                                                                   \
		(var) = tu_xcalloc(1, sizeof(*(var)));                         \
		init(var);                                                     \
		(arr) = realloc((arr), ((n) + 1) * sizeof(*(arr)));            \
		assert_non_null(arr);                                          \
		(arr)[(n)++] = (var);                                          \
	} while (0)

/* A small deterministic PRNG (xorshift64*). */
TU_FN uint64_t tu_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}
/* Uniform in [lo, hi]. */
TU_FN int64_t tu_rand_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(tu_rand(s) % (uint64_t)(hi - lo + 1));
}

/* v as a protobuf varint at b, for hand-made wire bytes (the generated
 * writer always puts fields in order); returns its length. */
TU_FN size_t tu_put_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

/* 0 .. n-1 in a random order (Fisher-Yates); the caller frees it. */
TU_FN size_t *tu_shuffled(size_t n, uint64_t *rs)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), i;

	assert_non_null(v);
	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = (size_t)(tu_rand(rs) % i), tmp = v[i - 1];

		v[i - 1] = v[j];
		v[j] = tmp;
	}
	return v;
}

/* ---- building ---- */

TU_FN tu_space *tu_space_new(void)
{
	tu_space *s = tu_xcalloc(1, sizeof(*s));

	tensorflow__profiler__xspace__init(s);
	TU_PUSH(tu_reg.spaces, tu_reg.nspaces, s);
	return s;
}

TU_FN void tu_strs_add(size_t *n, char ***arr, const char *v)
{
	*arr = realloc(*arr, (*n + 1) * sizeof(**arr));
	assert_non_null(*arr);
	(*arr)[(*n)++] = tu_xstrdup(v);
}

TU_FN void tu_hostname_add(tu_space *s, const char *v)
{
	tu_strs_add(&s->n_hostnames, &s->hostnames, v);
}
TU_FN void tu_error_add(tu_space *s, const char *v)
{
	tu_strs_add(&s->n_errors, &s->errors, v);
}
TU_FN void tu_warning_add(tu_space *s, const char *v)
{
	tu_strs_add(&s->n_warnings, &s->warnings, v);
}

TU_FN tu_plane *tu_plane_add(tu_space *s, int64_t id, const char *name)
{
	tu_plane *p;

	TU_ADD(p, s->n_planes, s->planes, tensorflow__profiler__xplane__init);

	p->id = id;
	p->name = tu_xstrdup(name);
	return p;
}

/* Adds stat metadata {id, name} to p. */
TU_FN int64_t tu_smeta_id(tu_plane *p, int64_t id, const char *name)
{
	Tensorflow__Profiler__XPlane__StatMetadataEntry *e;

	TU_ADD(e, p->n_stat_metadata, p->stat_metadata,
	       tensorflow__profiler__xplane__stat_metadata_entry__init);

	e->key = id;
	e->value = tu_xcalloc(1, sizeof(*e->value));
	tensorflow__profiler__xstat_metadata__init(e->value);
	e->value->id = id;
	e->value->name = tu_xstrdup(name);
	return id;
}

/* Id of the stat metadata called name, added with the next free id if new. */
TU_FN int64_t tu_smeta(tu_plane *p, const char *name)
{
	int64_t next = 1;
	size_t i;

	for (i = 0; i < p->n_stat_metadata; i++) {
		if (!strcmp(p->stat_metadata[i]->value->name, name))
			return p->stat_metadata[i]->key;
		if (p->stat_metadata[i]->key >= next)
			next = p->stat_metadata[i]->key + 1;
	}
	return tu_smeta_id(p, next, name);
}

/* Adds event metadata {id, name, display_name} to p (display may be NULL). */
TU_FN tu_emeta_t *tu_emeta_id(tu_plane *p, int64_t id, const char *name, const char *display)
{
	Tensorflow__Profiler__XPlane__EventMetadataEntry *e;

	TU_ADD(e, p->n_event_metadata, p->event_metadata,
	       tensorflow__profiler__xplane__event_metadata_entry__init);

	e->key = id;
	e->value = tu_xcalloc(1, sizeof(*e->value));
	tensorflow__profiler__xevent_metadata__init(e->value);
	e->value->id = id;
	e->value->name = tu_xstrdup(name);
	if (display)
		e->value->display_name = tu_xstrdup(display);
	return e->value;
}

/* The event metadata called name, added with the next free id if new. */
TU_FN tu_emeta_t *tu_emeta(tu_plane *p, const char *name)
{
	int64_t next = 1;
	size_t i;

	for (i = 0; i < p->n_event_metadata; i++) {
		if (!strcmp(p->event_metadata[i]->value->name, name))
			return p->event_metadata[i]->value;
		if (p->event_metadata[i]->key >= next)
			next = p->event_metadata[i]->key + 1;
	}
	return tu_emeta_id(p, next, name, NULL);
}

TU_FN tu_line *tu_line_add(tu_plane *p, int64_t id, const char *name, int64_t ts_ns)
{
	tu_line *l;

	TU_ADD(l, p->n_lines, p->lines, tensorflow__profiler__xline__init);

	l->id = id;
	l->display_id = id;
	l->name = tu_xstrdup(name);
	l->timestamp_ns = ts_ns;
	return l;
}

/* An event at offset off_ps (ps from the line's timestamp). */
TU_FN tu_event *tu_event_add(tu_line *l, int64_t meta_id, int64_t off_ps, int64_t dur_ps)
{
	tu_event *e;

	TU_ADD(e, l->n_events, l->events, tensorflow__profiler__xevent__init);

	e->metadata_id = meta_id;
	e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
	e->offset_ps = off_ps;
	e->duration_ps = dur_ps;
	return e;
}

/* An aggregated event (num_occurrences instead of an offset). */
TU_FN tu_event *tu_event_agg(tu_line *l, int64_t meta_id, int64_t nocc, int64_t dur_ps)
{
	tu_event *e;

	TU_ADD(e, l->n_events, l->events, tensorflow__profiler__xevent__init);

	e->metadata_id = meta_id;
	e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
	e->num_occurrences = nocc;
	e->duration_ps = dur_ps;
	return e;
}

/* An event whose metadata is the one called name on plane p. */
TU_FN tu_event *tu_ev(tu_plane *p, tu_line *l, const char *name, int64_t off_ps, int64_t dur_ps)
{
	return tu_event_add(l, tu_emeta(p, name)->id, off_ps, dur_ps);
}

/* Stats by metadata id, on anything with n_stats/stats (event, event
 * metadata, plane). */
TU_FN tu_stat *tu_stat_push(size_t *n, tu_stat ***arr, int64_t mid)
{
	tu_stat *s = tu_xcalloc(1, sizeof(*s));

	tensorflow__profiler__xstat__init(s);
	s->metadata_id = mid;
	*arr = realloc(*arr, (*n + 1) * sizeof(**arr));
	assert_non_null(*arr);
	(*arr)[(*n)++] = s;
	return s;
}
TU_FN void tu_stat_int(size_t *n, tu_stat ***arr, int64_t mid, int64_t v)
{
	tu_stat *s = tu_stat_push(n, arr, mid);

	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
	s->int64_value = v;
}
TU_FN void tu_stat_uint(size_t *n, tu_stat ***arr, int64_t mid, uint64_t v)
{
	tu_stat *s = tu_stat_push(n, arr, mid);

	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
	s->uint64_value = v;
}
TU_FN void tu_stat_double(size_t *n, tu_stat ***arr, int64_t mid, double v)
{
	tu_stat *s = tu_stat_push(n, arr, mid);

	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
	s->double_value = v;
}
TU_FN void tu_stat_str(size_t *n, tu_stat ***arr, int64_t mid, const char *v)
{
	tu_stat *s = tu_stat_push(n, arr, mid);

	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
	s->str_value = tu_xstrdup(v);
}
TU_FN void tu_stat_ref(size_t *n, tu_stat ***arr, int64_t mid, uint64_t ref)
{
	tu_stat *s = tu_stat_push(n, arr, mid);

	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
	s->ref_value = ref;
}

/* By stat name on plane p (the stat metadata is added when new). obj is an
 * event, an event metadata or the plane itself, and must be a plain variable:
 * the macros evaluate it twice. */
#define TU_SI(p, obj, name, v) tu_stat_int(&(obj)->n_stats, &(obj)->stats, tu_smeta(p, name), v)
#define TU_SU(p, obj, name, v) tu_stat_uint(&(obj)->n_stats, &(obj)->stats, tu_smeta(p, name), v)
#define TU_SD(p, obj, name, v) \
	tu_stat_double(&(obj)->n_stats, &(obj)->stats, tu_smeta(p, name), v)
#define TU_SS(p, obj, name, v) tu_stat_str(&(obj)->n_stats, &(obj)->stats, tu_smeta(p, name), v)
/* A ref_value stat whose string is the name of the stat metadata `target`. */
#define TU_SREF(p, obj, name, target)                                           \
	tu_stat_ref(&(obj)->n_stats, &(obj)->stats, tu_smeta(p, name),         \
		    (uint64_t)tu_smeta(p, target))

/* A MemoryAllocation (alloc) or MemoryDeallocation instant at t with the
 * stats the memory analysis reads (addr, bytes, peak < 0: left out;
 * allocator, op, shape NULL: left out). */
TU_FN tu_event *tu_mem_ev(tu_plane *p, tu_line *l, int alloc, int64_t t, const char *allocator,
			  int64_t addr, int64_t bytes, int64_t reserved, int64_t allocated,
			  int64_t available, int64_t peak, const char *op, const char *shape)
{
	tu_event *e = tu_ev(p, l, alloc ? "MemoryAllocation" : "MemoryDeallocation", t, 0);

	if (allocator)
		TU_SS(p, e, "allocator_name", allocator);
	if (addr >= 0)
		TU_SU(p, e, "addr", (uint64_t)addr);
	if (bytes >= 0)
		TU_SI(p, e, "allocation_bytes", bytes);
	TU_SI(p, e, "bytes_reserved", reserved);
	TU_SU(p, e, "bytes_allocated", (uint64_t)allocated);
	TU_SI(p, e, "bytes_available", available);
	if (peak >= 0)
		TU_SI(p, e, "peak_bytes_in_use", peak);
	if (op)
		TU_SS(p, e, "tf_op", op);
	if (shape)
		TU_SS(p, e, "shape", shape);
	return e;
}

/* A sample profile: a GPU plane with three stream lines of 400 kernels with
 * stats (str, int, double), and /host:CPU with 300 memory events (uint and
 * ref_value stats); 1500 events. */
TU_FN tu_space *tu_sample_space(void)
{
	tu_space *s = tu_space_new();
	tu_plane *p = tu_plane_add(s, 3, "/device:GPU:0");
	tu_plane *h = tu_plane_add(s, 4, "/host:CPU");
	uint64_t rs = 42;
	int i, k;

	tu_hostname_add(s, "h");
	for (k = 0; k < 3; k++) {
		tu_line *l = tu_line_add(p, k + 1, k ? "Stream #2(Kernel)" : "Stream #1(Kernel)", 100);

		for (i = 0; i < 400; i++) {
			tu_event *e = tu_ev(p, l, i % 3 ? "kernel_a" : "kernel_b",
					    tu_rand_range(&rs, 0, 100000), tu_rand_range(&rs, 0, 500));

			TU_SS(p, e, "hlo_op", i % 2 ? "a::b::fusion.1" : "dot.3");
			TU_SI(p, e, "group_id", i / 50);
			TU_SD(p, e, "flops", i * 1.5);
		}
	}
	for (i = 0; i < 300; i++) {
		tu_line *l = h->n_lines ? h->lines[0] : tu_line_add(h, 9, "thread", 7);
		tu_event *e = tu_ev(h, l, "MemoryAllocation", i * 10, 0);

		TU_SU(h, e, "bytes_allocated", (uint64_t)i * 100);
		TU_SREF(h, e, "allocator_name", "GPU_0_bfc");
	}
	return s;
}

/* ---- writing ---- */

/* The packed bytes of s; caller frees. */
TU_FN uint8_t *tu_pack(const tu_space *s, size_t *n)
{
	uint8_t *buf;

	*n = tensorflow__profiler__xspace__get_packed_size(s);
	buf = malloc(*n ? *n : 1);
	assert_non_null(buf);
	assert_int_equal(tensorflow__profiler__xspace__pack(s, buf), *n);
	return buf;
}

TU_FN const char *tu_tmpdir_base(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* Writes bytes to an open fd (gzip-compressed when gz); closes fd. */
TU_FN void tu_write_fd(int fd, const void *buf, size_t n, int gz)
{
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		assert_non_null(g);
		if (n)
			assert_int_equal(gzwrite(g, buf, (unsigned)n), (int)n);
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		size_t off = 0;

		while (off < n) {
			ssize_t w = write(fd, (const char *)buf + off, n - off);

			assert_true(w > 0);
			off += (size_t)w;
		}
		assert_int_equal(close(fd), 0);
	}
}

/* Writes bytes to path, or to a new temp file `<tmp>/xtop-test-XXXXXX<suffix>`
 * when path is NULL. Returns the path; the file is removed at teardown. */
TU_FN const char *tu_write_bytes(const char *path, const void *buf, size_t n, int gz,
				 const char *suffix)
{
	char *p;
	int fd;

	if (path) {
		p = tu_xstrdup(path);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	} else {
		if (!suffix)
			suffix = gz ? ".xplane.pb.gz" : ".xplane.pb";
		assert_true(asprintf(&p, "%s/xtop-test-XXXXXX%s", tu_tmpdir_base(), suffix) > 0);
		fd = mkstemps(p, (int)strlen(suffix));
	}
	assert_true(fd >= 0);
	TU_PUSH(tu_reg.files, tu_reg.nfiles, p);
	tu_write_fd(fd, buf, n, gz);
	return p;
}

/* Packs s into path (a new temp file when NULL), gzip'd when gz. */
TU_FN const char *tu_write_at(const tu_space *s, const char *path, int gz)
{
	size_t n;
	uint8_t *buf = tu_pack(s, &n);
	const char *p = tu_write_bytes(path, buf, n, gz, NULL);

	free(buf);
	return p;
}

TU_FN const char *tu_write(const tu_space *s, int gz)
{
	return tu_write_at(s, NULL, gz);
}

/* A new temp directory, removed with its contents at teardown. */
TU_FN const char *tu_mkdtemp(void)
{
	char *p;

	assert_true(asprintf(&p, "%s/xtop-test-XXXXXX", tu_tmpdir_base()) > 0);
	assert_non_null(mkdtemp(p));
	TU_PUSH(tu_reg.dirs, tu_reg.ndirs, p);
	return p;
}

/* mkdir -p of base/rel; returns the full path (freed at teardown). */
TU_FN const char *tu_mkdirs(const char *base, const char *rel)
{
	char *full = tu_fmt("%s/%s", base, rel);
	char *q;

	for (q = full + strlen(base) + 1; *q; q++) {
		if (*q == '/') {
			*q = '\0';
			assert_true(mkdir(full, 0700) == 0 || errno == EEXIST);
			*q = '/';
		}
	}
	assert_true(mkdir(full, 0700) == 0 || errno == EEXIST);
	return full;
}

/* ---- the real profiles ---- */

/* The fixture directory: $XTOP_FIXTURES, else ../shared/fixtures (relative
 * to the repository root, where the tests run). */
TU_FN const char *tu_fixtures_dir(void)
{
	const char *d = getenv("XTOP_FIXTURES");

	return d && *d ? d : "../shared/fixtures";
}

/* The path of rel under the fixture directory (freed at teardown). */
TU_FN const char *tu_fixture(const char *rel)
{
	return tu_fmt("%s/%s", tu_fixtures_dir(), rel);
}

/* 1 when the fixtures are there; else prints why the test skips (the suite
 * counts these reasons in its summary) and returns 0. */
TU_FN int tu_have_fixtures(void)
{
	struct stat st;

	if (stat(tu_fixtures_dir(), &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	print_message("skipped: fixtures not found (set XTOP_FIXTURES)\n");
	return 0;
}

/* ---- loading ---- */

/* Reads path as the only host of a new trace, without analyses; asserts
 * success. Freed at teardown. */
TU_FN struct xt_trace *tu_read_threads(const char *path, int threads)
{
	struct xplane_load_opts o = { .threads = threads, .keep_resident = 1 };
	struct xt_trace *t = trace_new();
	struct xt_error err = { "" };
	int rc = xplane_load(t, path, "host", &o, &err);

	if (rc != 0)
		print_error("xplane_load(%s): %d %s\n", path, rc, err.msg);
	TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ t, NULL }));
	assert_int_equal(rc, 0);
	return t;
}
TU_FN struct xt_trace *tu_read(const char *path)
{
	return tu_read_threads(path, 2);
}

/* Tries to read path; returns xplane_load's code (the trace is released). */
TU_FN int tu_read_rc(const char *path, struct xt_error *err)
{
	struct xplane_load_opts o = { .threads = 2 };
	struct xt_trace *t = trace_new();
	int rc;

	err->msg[0] = '\0';
	rc = xplane_load(t, path, "host", &o, err);
	trace_free(t);
	return rc;
}

/* load_profile(path) with run (may be NULL); results freed at teardown. */
TU_FN int tu_load_rc(const char *path, const char *run, struct xt_trace **t,
		     struct xt_analysis **a, struct xt_error *err)
{
	struct load_opts o = { .run = run, .threads = 0, .keep_resident = 0 };
	int rc;

	err->msg[0] = '\0';
	rc = load_profile(path, &o, t, a, err);
	if (rc == 0)
		TU_PUSH(tu_reg.loaded, tu_reg.nloaded, ((struct tu_loaded){ *t, *a }));
	return rc;
}

/* load_profile(path), asserting success; returns the analysis. */
TU_FN struct xt_analysis *tu_load(const char *path, struct xt_trace **t)
{
	struct xt_trace *tt;
	struct xt_analysis *a;
	struct xt_error err;
	int rc = tu_load_rc(path, NULL, &tt, &a, &err);

	if (rc != 0)
		print_error("load_profile(%s): %d %s\n", path, rc, err.msg);
	assert_int_equal(rc, 0);
	if (t)
		*t = tt;
	return a;
}

/* Writes s to a temp file and loads it with its analysis. */
TU_FN struct xt_analysis *tu_load_space(const tu_space *s, struct xt_trace **t)
{
	return tu_load(tu_write(s, 0), t);
}

/* An error message is one non-empty line. */
TU_FN void tu_assert_one_line(const struct xt_error *err)
{
	assert_true(strlen(err->msg) > 0);
	assert_null(strchr(err->msg, '\n'));
}

TU_FN void tu_expect_bad(const char *path, const char *what)
{
	struct xt_error err;
	int rc = tu_read_rc(path, &err);

	if (rc >= 0)
		fail_msg("%s: loaded (rc %d), expected an error", what, rc);
	tu_assert_one_line(&err);
}

TU_FN void tu_overwrite(const char *path, const void *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	tu_write_fd(fd, buf, n, 0);
}

/* Asserts that two traces hold the same model. */
TU_FN void tu_assert_same_trace(const struct xt_trace *a, const struct xt_trace *b)
{
	size_t p, l, e, i;

	assert_int_equal(a->nhosts, b->nhosts);
	assert_int_equal(a->nev, b->nev);
	for (p = 0; p < a->hosts[0].nplanes; p++) {
		const struct xt_plane *x = &a->hosts[0].planes[p], *y = &b->hosts[0].planes[p];

		assert_int_equal(x->id, y->id);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->nemeta, y->nemeta);
		for (i = 0; i < x->nemeta; i++)
			assert_string_equal(x->emeta[i].name, y->emeta[i].name);
		assert_int_equal(x->nsmeta, y->nsmeta);
		for (i = 0; i < x->nsmeta; i++)
			assert_string_equal(x->smeta[i].name, y->smeta[i].name);
		assert_int_equal(x->nlines, y->nlines);
		for (l = 0; l < x->nlines; l++) {
			const struct xt_line *lx = &x->lines[l], *ly = &y->lines[l];

			assert_int_equal(lx->id, ly->id);
			assert_string_equal(lx->name, ly->name);
			assert_int_equal(lx->timestamp_ns, ly->timestamp_ns);
			assert_int_equal(lx->nev, ly->nev);
			assert_int_equal(lx->max_depth, ly->max_depth);
			for (e = 0; e < lx->nev; e++) {
				struct stat_iter ix, iy;
				struct xt_stat sx, sy;
				char bx[64], by[64];

				assert_int_equal(xt_event_off(lx, e), xt_event_off(ly, e));
				assert_int_equal(xt_event_dur(lx, &lx->ev[e]), xt_event_dur(ly, &ly->ev[e]));
				assert_int_equal(lx->ev[e].meta, ly->ev[e].meta);
				stat_iter_event(&ix, &a->hosts[0], x, lx, &lx->ev[e]);
				stat_iter_event(&iy, &b->hosts[0], y, ly, &ly->ev[e]);
				for (;;) {
					int hx = stat_next(&ix, &sx), hy = stat_next(&iy, &sy);

					assert_int_equal(hx, hy);
					if (!hx)
						break;
					assert_int_equal(sx.kind, sy.kind);
					assert_int_equal(sx.meta_id, sy.meta_id);
					assert_string_equal(stat_to_text(&sx, bx, sizeof(bx)),
							    stat_to_text(&sy, by, sizeof(by)));
				}
			}
		}
	}
}

/* ---- lookups in results ---- */

TU_FN const struct xt_plane *tu_find_plane(const struct xt_host *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->nplanes; i++)
		if (!strcmp(h->planes[i].name, name))
			return &h->planes[i];
	fail_msg("no plane %s", name);
	return NULL;
}

TU_FN const struct xt_line *tu_find_line(const struct xt_plane *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nlines; i++)
		if (!strcmp(p->lines[i].name, name))
			return &p->lines[i];
	fail_msg("no line %s", name);
	return NULL;
}

TU_FN const struct xt_op_row *tu_find_op(const struct xt_analysis *a, const char *name,
					 const char *program)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		if (!strcmp(a->ops[i].name, name) && !strcmp(a->ops[i].program, program))
			return &a->ops[i];
	fail_msg("no op %s (program '%s')", name, program);
	return NULL;
}

TU_FN const struct xt_device_row *tu_find_device(const struct xt_analysis *a, const char *host,
						 const char *name)
{
	size_t i;

	for (i = 0; i < a->ndevices; i++)
		if ((!host || !strcmp(a->devices[i].host, host)) && !strcmp(a->devices[i].name, name))
			return &a->devices[i];
	fail_msg("no device %s", name);
	return NULL;
}

TU_FN const struct xt_memory_row *tu_find_mem(const struct xt_analysis *a, const char *host,
					      const char *allocator)
{
	size_t i;

	for (i = 0; i < a->nmemory; i++)
		if ((!host || !strcmp(a->memory[i].host, host)) &&
		    !strcmp(a->memory[i].allocator, allocator))
			return &a->memory[i];
	fail_msg("no allocator %s", allocator);
	return NULL;
}

/* ---- teardown ---- */

TU_FN int tu_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

TU_FN int tu_teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < tu_reg.nloaded; i++) {
		analysis_free(tu_reg.loaded[i].a);
		trace_free(tu_reg.loaded[i].t);
	}
	for (i = 0; i < tu_reg.nspaces; i++)
		tensorflow__profiler__xspace__free_unpacked(tu_reg.spaces[i], NULL);
	/* TU_KEEP=1 keeps the files (to feed them to the oracle by hand). */
	for (i = 0; i < tu_reg.nfiles; i++) {
		if (!getenv("TU_KEEP"))
			unlink(tu_reg.files[i]);
		else
			fprintf(stderr, "kept %s\n", tu_reg.files[i]);
		free(tu_reg.files[i]);
	}
	for (i = 0; i < tu_reg.ndirs; i++) {
		if (!getenv("TU_KEEP"))
			nftw(tu_reg.dirs[i], tu_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
		free(tu_reg.dirs[i]);
	}
	for (i = 0; i < tu_reg.nstrs; i++)
		free(tu_reg.strs[i]);
	free(tu_reg.loaded);
	free(tu_reg.spaces);
	free(tu_reg.files);
	free(tu_reg.dirs);
	free(tu_reg.strs);
	memset(&tu_reg, 0, sizeof(tu_reg));
	return 0;
}

#define TU_TEST(f) cmocka_unit_test_teardown(f, tu_teardown)

#endif
