/*
 * test_writer: saving writes a profile back without loss. Each test reads
 * the original and the written file with the real reader and compares every
 * plane, line, event, metadata and stat; it also checks the TensorBoard
 * layout and that nothing existing is ever overwritten.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "model/stats.h"
#include "model/xplane_writer.h"

static void assert_same_host(const struct xt_host *a, const struct xt_host *b, size_t nplanes)
{
	size_t p, l, e;

	assert_true(b->nplanes >= nplanes);
	for (p = 0; p < nplanes; p++) {
		const struct xt_plane *x = &a->planes[p], *y = &b->planes[p];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->id, y->id);
		assert_int_equal(x->nlines, y->nlines);
		assert_int_equal(x->nemeta, y->nemeta);
		assert_int_equal(x->nsmeta, y->nsmeta);
		assert_int_equal(x->nstats, y->nstats);
		for (e = 1; e < x->nemeta; e++) {
			assert_int_equal(x->emeta[e].id, y->emeta[e].id);
			assert_string_equal(x->emeta[e].name, y->emeta[e].name);
			assert_string_equal(x->emeta[e].display_name, y->emeta[e].display_name);
			assert_int_equal(x->emeta[e].raw_len, y->emeta[e].raw_len);
			assert_memory_equal(a->src.data + x->emeta[e].raw_off,
					    b->src.data + y->emeta[e].raw_off, x->emeta[e].raw_len);
		}
		for (l = 0; l < x->nlines; l++) {
			const struct xt_line *u = &x->lines[l], *v = &y->lines[l];

			assert_int_equal(u->id, v->id);
			assert_string_equal(u->name, v->name);
			assert_int_equal(u->timestamp_ns, v->timestamp_ns);
			assert_int_equal(u->nev, v->nev);
			for (e = 0; e < u->nev; e++) {
				size_t n1, n2;
				const uint8_t *r1 = trace_event_bytes(a, u, &u->ev[e], &n1);
				const uint8_t *r2 = trace_event_bytes(b, v, &v->ev[e], &n2);

				assert_int_equal(xt_event_off(u, e), xt_event_off(v, e));
				assert_int_equal(xt_event_dur(u, &u->ev[e]), xt_event_dur(v, &v->ev[e]));
				assert_int_equal(u->ev[e].meta, v->ev[e].meta);
				/* Every stat of the event, byte for byte. */
				assert_int_equal(n1, n2);
				assert_memory_equal(r1, r2, n1);
			}
		}
	}
}

static void test_roundtrip_generated(void **state)
{
	tu_space *s = tu_sample_space();
	const char *src = tu_write(s, 1); /* gzip in, plain out */
	const char *dir = tu_mkdtemp();
	const char *out = tu_fmt("%s/copy.xplane.pb", dir);
	struct xt_trace *a = tu_read(src), *b;
	struct xt_error err;

	(void)state;
	assert_int_equal(xplane_write(&a->hosts[0], out, NULL, &err), 0);
	b = tu_read(out);
	assert_int_equal(b->nev, a->nev);
	assert_int_equal(b->hosts[0].nplanes, a->hosts[0].nplanes);
	assert_same_host(&a->hosts[0], &b->hosts[0], a->hosts[0].nplanes);
	/* Writing again to the same path refuses, and the file is intact. */
	assert_int_equal(xplane_write(&a->hosts[0], out, NULL, &err), XT_EIO);
	assert_non_null(strstr(err.msg, "already exists"));
	assert_same_host(&a->hosts[0], &tu_read(out)->hosts[0], a->hosts[0].nplanes);
}

static void test_roundtrip_fixtures(void **state)
{
	static const char *const rel[] = {
		"jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb",
		"tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb",
		"jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
	};
	const char *files[sizeof(rel) / sizeof(rel[0])];
	const char *dir;
	size_t i;

	(void)state;
	if (!tu_have_fixtures()) {
		skip();
		return;
	}
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		files[i] = tu_fixture(rel[i]);
	dir = tu_mkdtemp();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct xt_trace *a = tu_read(files[i]), *b;
		const char *out = tu_fmt("%s/f%zu.xplane.pb", dir, i);
		struct xplane_write_opts o = { "saved-host", 1000, 2000, 0 };
		struct xt_error err;
		int had_env = 0;
		size_t p;

		for (p = 0; p < a->hosts[0].nplanes; p++)
			had_env |= !strcmp(a->hosts[0].planes[p].name, "Task Environment");
		assert_int_equal(xplane_write(&a->hosts[0], out, &o, &err), 0);
		b = tu_read(out);
		assert_same_host(&a->hosts[0], &b->hosts[0], a->hosts[0].nplanes);
		/* What XProf needs and the file lacked was added; nothing else. */
		assert_int_equal(b->hosts[0].nplanes, a->hosts[0].nplanes + !had_env);
		assert_true(b->hosts[0].nhostnames >= 1);
		if (!had_env) {
			const struct xt_plane *env = &b->hosts[0].planes[b->hosts[0].nplanes - 1];

			assert_string_equal(env->name, "Task Environment");
			assert_int_equal(env->nstats, 2);
		}
		assert_int_equal(b->nev, a->nev);
	}
}

static void test_save_run_layout(void **state)
{
	struct xt_trace *a = tu_read(tu_write(tu_sample_space(), 0));
	const char *logdir = tu_mkdtemp();
	char run1[4096], run2[4096];
	struct xt_error err;
	struct stat st;

	(void)state;
	assert_int_equal(xplane_save_run(a, logdir, NULL, run1, sizeof(run1), &err), 0);
	assert_int_equal(xplane_save_run(a, logdir, NULL, run2, sizeof(run2), &err), 0);
	/* Two saves in one second make two runs: nothing is replaced. */
	assert_string_not_equal(run1, run2);
	assert_non_null(strstr(run1, "/plugins/profile/"));
	assert_int_equal(stat(tu_fmt("%s/%s.xplane.pb", run1, a->hosts[0].name), &st), 0);
	assert_int_equal(stat(tu_fmt("%s/%s.xplane.pb", run2, a->hosts[0].name), &st), 0);
	/* An unwritable logdir is a clean error. */
	if (getuid() != 0) {
		chmod(logdir, 0500);
		assert_int_equal(xplane_save_run(a, tu_fmt("%s/sub", logdir), NULL, run1, sizeof(run1),
						 &err),
				 XT_EIO);
		chmod(logdir, 0700);
	}
	assert_int_equal(xplane_save_run(a, "/proc/self/nonexistent-dir", NULL, run1, sizeof(run1),
					 &err),
			 XT_EIO);
	assert_non_null(strstr(err.msg, "cannot create"));
	/* A host that cannot be written (here a second one of the same name:
	 * its file exists) leaves nothing: not the first host's file, which
	 * would open as the whole profile, nor the run or its levels. */
	{
		struct xt_trace two = *a;
		struct xt_host hs[2];
		const char *fresh = tu_fmt("%s/fresh", logdir);
		struct stat st2;

		hs[0] = hs[1] = a->hosts[0];
		two.hosts = hs;
		two.nhosts = 2;
		assert_int_equal(xplane_save_run(&two, fresh, NULL, run1, sizeof(run1), &err), XT_EIO);
		assert_string_equal(run1, "");
		assert_int_not_equal(stat(fresh, &st2), 0);
	}
}

/* A run that received nothing is undone with the directories made for it:
 * the logdir's levels and those above it that mkdir -p made, never one
 * that was there before or holds anything. */
static void test_remove_run_dir(void **state)
{
	const char *tmp = tu_mkdtemp();
	const char *logdir = tu_fmt("%s/a/b/logs", tmp);
	char run[4096];
	struct xt_error err;
	struct stat st;
	unsigned missing;
	struct xplane_trail t;
	FILE *f;

	(void)state;
	missing = xplane_missing_dirs(logdir);
	assert_int_equal(missing, 0x1fu); /* logs, plugins, profile, b, a */
	assert_int_equal(xplane_new_run_dir(logdir, run, sizeof(run), NULL, 0, &err), 0);
	xplane_remove_run_dir(logdir, run, missing);
	assert_int_not_equal(stat(tu_fmt("%s/a", tmp), &st), 0);
	assert_int_equal(stat(tmp, &st), 0);

	/* The same through a trail, as a signal handler removes it; a level
	 * that holds something else stays, and the ones above it. */
	missing = xplane_missing_dirs(logdir);
	assert_int_equal(xplane_new_run_dir(logdir, run, sizeof(run), NULL, 0, &err), 0);
	f = fopen(tu_fmt("%s/a/keep", tmp), "w");
	assert_non_null(f);
	fclose(f);
	xplane_run_trail(logdir, run, missing, &t);
	xplane_rmdir_trail(&t);
	assert_int_not_equal(stat(tu_fmt("%s/a/b", tmp), &st), 0);
	assert_int_equal(stat(tu_fmt("%s/a/keep", tmp), &st), 0);

	/* A logdir that existed: only the levels made inside it go. */
	missing = xplane_missing_dirs(tmp);
	assert_int_equal(missing, 0x6u);
	assert_int_equal(xplane_new_run_dir(tmp, run, sizeof(run), NULL, 0, &err), 0);
	xplane_remove_run_dir(tmp, run, missing);
	assert_int_not_equal(stat(tu_fmt("%s/plugins", tmp), &st), 0);
	assert_int_equal(stat(tmp, &st), 0);
	unlink(tu_fmt("%s/a/keep", tmp));
	rmdir(tu_fmt("%s/a", tmp));
}

/* The value of plane stat name of p, or 0. */
static uint64_t plane_stat(const struct xt_host *h, const struct xt_plane *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nstats; i++) {
		struct stat_iter it;
		struct xt_stat s;

		stat_iter_plane(&it, h, p, i);
		while (stat_next(&it, &s))
			if (s.meta && !strcmp(s.meta->name, name))
				return s.u;
	}
	return 0;
}

static const struct xt_plane *find_plane(const struct xt_host *h, const char *name)
{
	size_t p;

	for (p = 0; p < h->nplanes; p++)
		if (!strcmp(h->planes[p].name, name))
			return &h->planes[p];
	return NULL;
}

/* What the viewer's x asks for (from_trace): the host's own name, and a
 * Task Environment from the events' span when their times are dates;
 * times since the profile started say nothing about when it was taken. */
static void test_save_from_trace(void **state)
{
	tu_space *dated = tu_space_new(), *rel = tu_space_new();
	tu_plane *p = tu_plane_add(dated, 1, "/host:CPU");
	tu_line *l = tu_line_add(p, 1, "main", 1700000000000000000ll);
	tu_plane *q = tu_plane_add(rel, 1, "/host:CPU");
	tu_line *m = tu_line_add(q, 1, "main", 5);
	struct xplane_write_opts o = { NULL, 0, 0, 1 };
	const char *dir = tu_mkdtemp();
	struct xt_trace *a, *b;
	const struct xt_plane *env;
	struct xt_error err;
	uint64_t s, e;

	(void)state;
	tu_ev(p, l, "early", 2000, 3000);   /* [2 ns, 5 ns) after the line's start */
	tu_ev(p, l, "late", 40000, 10000);  /* ends 50 ns after it */
	tu_ev(q, m, "x", 0, 1000);
	a = tu_read(tu_write(dated, 0));
	assert_int_equal(xplane_host_window(&a->hosts[0], &s, &e), 1);
	assert_int_equal(s, 1700000000000000002ull);
	assert_int_equal(e, 1700000000000000050ull);
	assert_int_equal(xplane_write(&a->hosts[0], tu_fmt("%s/dated.xplane.pb", dir), &o, &err), 0);
	b = tu_read(tu_fmt("%s/dated.xplane.pb", dir));
	env = find_plane(&b->hosts[0], "Task Environment");
	assert_non_null(env);
	assert_int_equal(plane_stat(&b->hosts[0], env, "profile_start_time"), s);
	assert_int_equal(plane_stat(&b->hosts[0], env, "profile_stop_time"), e);
	assert_int_equal(b->hosts[0].nhostnames, 1);
	assert_string_equal(b->hosts[0].hostnames[0], a->hosts[0].name);
	assert_int_equal(xplane_host_window(&b->hosts[0], &s, &e), 2); /* has one now */

	a = tu_read(tu_write(rel, 0));
	assert_int_equal(xplane_host_window(&a->hosts[0], &s, &e), 0);
	assert_int_equal(xplane_write(&a->hosts[0], tu_fmt("%s/rel.xplane.pb", dir), &o, &err), 0);
	b = tu_read(tu_fmt("%s/rel.xplane.pb", dir));
	assert_null(find_plane(&b->hosts[0], "Task Environment"));
	assert_int_equal(b->hosts[0].nhostnames, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_roundtrip_generated),
		TU_TEST(test_roundtrip_fixtures),
		TU_TEST(test_save_run_layout),
		TU_TEST(test_remove_run_dir),
		TU_TEST(test_save_from_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
