/*
 * test_trace_api: libxtop-trace (include/xtop/trace.h) driven through its
 * registry as the agent drives it: nothing recorded while no session runs,
 * spans, instants and steps with their times, nesting beyond the stack,
 * unmatched ends, names copied, several threads, threads that exit, the
 * memory budget, and sessions that do not leak into each other.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/registry.h"
#include "xtop/trace.h"

extern const struct xtop_trace_registry xtop_trace_registry_v1;
static const struct xtop_trace_registry *R = &xtop_trace_registry_v1;

struct ev {
	uint64_t tid, start, end;
	uint32_t kind;
	int64_t step;
	char name[1100];
};

static struct {
	struct ev *ev;
	size_t n, cap;
	size_t nthreads;
	uint64_t dropped;
	uint64_t tid;
	char tname[17];
} got;

static void on_thread(void *ctx, const struct xtop_trace_thread *t)
{
	(void)ctx;
	got.nthreads++;
	got.dropped += t->dropped;
	got.tid = t->tid;
	snprintf(got.tname, sizeof(got.tname), "%s", t->name);
}

static void on_event(void *ctx, const struct xtop_trace_event *e)
{
	struct ev *x;

	(void)ctx;
	if (got.n == got.cap) {
		got.cap = got.cap ? got.cap * 2 : 64;
		got.ev = realloc(got.ev, got.cap * sizeof(*got.ev));
		assert_non_null(got.ev);
	}
	x = &got.ev[got.n++];
	x->tid = got.tid;
	x->start = e->start_ns;
	x->end = e->end_ns;
	x->kind = e->kind;
	x->step = e->step;
	snprintf(x->name, sizeof(x->name), "%.*s", (int)e->name_len, e->name ? e->name : "");
}

static void collect(void)
{
	got.n = 0;
	got.nthreads = 0;
	got.dropped = 0;
	R->collect(NULL, on_thread, on_event);
}

static int teardown(void **state)
{
	(void)state;
	R->stop();
	free(got.ev);
	memset(&got, 0, sizeof(got));
	return 0;
}

static void test_registry_abi(void **state)
{
	(void)state;
	assert_int_equal(R->magic, XTOP_TRACE_REGISTRY_MAGIC);
	assert_int_equal(R->version, 1);
	assert_true(R->struct_size >= sizeof(struct xtop_trace_registry));
}

static void test_nothing_without_a_session(void **state)
{
	(void)state;
	assert_int_equal(xtop_trace_active(), 0);
	xtop_trace_begin("before");
	xtop_trace_instant("before");
	xtop_step_begin(1);
	xtop_step_end();
	xtop_trace_end();
	assert_int_equal(R->start(0), 0);
	assert_int_equal(xtop_trace_active(), 1);
	assert_int_equal(R->start(0), -1); /* one session at a time */
	R->stop();
	assert_int_equal(xtop_trace_active(), 0);
	collect();
	assert_int_equal(got.n, 0);
	assert_int_equal(got.nthreads, 0);
}

static void test_span_instant_step(void **state)
{
	char name[64];

	(void)state;
	assert_int_equal(R->start(0), 0);
	xtop_trace_end(); /* nothing open: ignored */
	snprintf(name, sizeof(name), "load#batch=%d#", 32);
	xtop_trace_begin(name);
	memset(name, 'x', sizeof(name) - 1); /* the library kept a copy */
	xtop_trace_instant("mark");
	xtop_trace_end();
	xtop_step_begin(7);
	xtop_trace_begin("open at stop");
	R->stop();
	xtop_trace_end(); /* after stop: ignored */
	xtop_step_end();
	collect();
	assert_int_equal(got.nthreads, 1);
	assert_int_equal(got.n, 4);
	assert_string_equal(got.ev[0].name, "load#batch=32#");
	assert_int_equal(got.ev[0].kind, XTOP_TRACE_SPAN);
	assert_true(got.ev[0].end >= got.ev[0].start && got.ev[0].end >= got.ev[1].start);
	assert_string_equal(got.ev[1].name, "mark");
	assert_int_equal(got.ev[1].kind, XTOP_TRACE_INSTANT);
	assert_int_equal(got.ev[1].end, got.ev[1].start);
	assert_true(got.ev[1].start >= got.ev[0].start);
	assert_int_equal(got.ev[2].kind, XTOP_TRACE_STEP);
	assert_int_equal(got.ev[2].step, 7);
	assert_int_equal(got.ev[2].end, 0); /* still open at stop */
	assert_string_equal(got.ev[3].name, "open at stop");
	assert_int_equal(got.ev[3].end, 0);
	assert_int_equal(got.dropped, 0);
	assert_true(got.tid > 0);
	assert_true(got.tname[0] != '\0');
}

/* Past the stack's depth spans are dropped, but every end still closes
 * its own begin. */
static void test_deep_nesting(void **state)
{
	int i;

	(void)state;
	assert_int_equal(R->start(0), 0);
	for (i = 0; i < 200; i++)
		xtop_trace_begin("deep");
	for (i = 0; i < 200; i++)
		xtop_trace_end();
	xtop_trace_begin("after");
	xtop_trace_end();
	R->stop();
	collect();
	assert_int_equal(got.n, 128 + 1);
	assert_int_equal(got.dropped, 72);
	for (i = 0; i < (int)got.n; i++)
		assert_true(got.ev[i].end >= got.ev[i].start && got.ev[i].end != 0);
	/* The outermost span closes last. */
	assert_true(got.ev[0].end >= got.ev[127].end);
	assert_string_equal(got.ev[128].name, "after");
}

static void test_long_name_cut(void **state)
{
	char *name = malloc(5000);

	(void)state;
	memset(name, 'n', 4999);
	name[4999] = '\0';
	assert_int_equal(R->start(0), 0);
	xtop_trace_instant(name);
	R->stop();
	collect();
	assert_int_equal(got.n, 1);
	assert_int_equal(strlen(got.ev[0].name), 1024);
	free(name);
}

enum { NTHREADS = 4, PER_THREAD = 10000 };

static void *recorder(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < PER_THREAD; i++) {
		xtop_trace_begin("work#i=1#");
		xtop_trace_end();
	}
	return NULL;
}

/* Threads that record, then exit before the session stops: their events
 * are still collected; a later session reuses their buffers. */
static void test_threads(void **state)
{
	pthread_t t[NTHREADS];
	uint64_t tids[NTHREADS];
	size_t i, k, n = 0;
	int round;

	(void)state;
	for (round = 0; round < 3; round++) {
		assert_int_equal(R->start(0), 0);
		for (i = 0; i < NTHREADS; i++)
			assert_int_equal(pthread_create(&t[i], NULL, recorder, NULL), 0);
		for (i = 0; i < NTHREADS; i++)
			pthread_join(t[i], NULL);
		R->stop();
		collect();
		assert_int_equal(got.nthreads, NTHREADS);
		assert_int_equal(got.n, NTHREADS * PER_THREAD);
		assert_int_equal(got.dropped, 0);
		/* Events of one thread come together, each thread once. */
		n = 0;
		for (i = 0; i < got.n; i++) {
			if (i && got.ev[i].tid == got.ev[i - 1].tid)
				continue;
			for (k = 0; k < n; k++)
				assert_true(tids[k] != got.ev[i].tid);
			assert_true(n < NTHREADS);
			tids[n++] = got.ev[i].tid;
		}
		assert_int_equal(n, NTHREADS);
	}
}

/* A small budget: what does not fit is dropped and counted. */
static void test_budget(void **state)
{
	int i;

	(void)state;
	assert_int_equal(R->start(256 * 1024), 0);
	for (i = 0; i < 20000; i++) {
		xtop_trace_begin("b");
		xtop_trace_end();
	}
	R->stop();
	collect();
	assert_true(got.n > 0);
	assert_true(got.n < 20000);
	assert_int_equal(got.n + got.dropped, 20000);
}

/* A span begun in one session and ended in the next is not mixed in. */
static void test_sessions_apart(void **state)
{
	(void)state;
	assert_int_equal(R->start(0), 0);
	xtop_trace_begin("first");
	R->stop();
	assert_int_equal(R->start(0), 0);
	xtop_trace_end(); /* belongs to the first session: ignored */
	xtop_trace_instant("second");
	R->stop();
	collect();
	assert_int_equal(got.n, 1);
	assert_string_equal(got.ev[0].name, "second");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_registry_abi, teardown),
		cmocka_unit_test_teardown(test_nothing_without_a_session, teardown),
		cmocka_unit_test_teardown(test_span_instant_step, teardown),
		cmocka_unit_test_teardown(test_deep_nesting, teardown),
		cmocka_unit_test_teardown(test_long_name_cut, teardown),
		cmocka_unit_test_teardown(test_threads, teardown),
		cmocka_unit_test_teardown(test_budget, teardown),
		cmocka_unit_test_teardown(test_sessions_apart, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
