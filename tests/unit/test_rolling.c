/*
 * test_rolling: xtop top's aggregate over the last N captures
 * (src/model/rolling.c): latest, rolling average and change per op, ops
 * appearing and disappearing, the ring's bound on memory over many
 * captures, the columns' texts and sort orders, and a real profile's op
 * profile folded in over and over.
 */
#include "testutil.h"

#include <math.h>

#include "model/rolling.h"

static struct xt_op_row row(const char *program, const char *name, int64_t self_ps, uint64_t occ)
{
	struct xt_op_row r;

	memset(&r, 0, sizeof(r));
	r.program = program;
	r.name = name;
	r.category = "cat";
	r.self_ps = self_ps;
	r.occurrences = occ;
	return r;
}

/* The op with key "program/name", or -1. */
static long find(const struct rolling *r, const char *key)
{
	char k[512];
	size_t i;

	for (i = 0; i < r->nops; i++) {
		rolling_key(r, i, k, sizeof(k));
		if (!strcmp(k, key))
			return (long)i;
	}
	return -1;
}

static const char *cell(const struct rolling *r, int c, long i)
{
	static char buf[128];

	assert_true(i >= 0);
	rolling_columns[c].text((void *)r, (size_t)i, buf, sizeof(buf));
	return buf;
}

/* Latest, average and change over a ring of three, as ops come and go. */
static void test_average_and_change(void **state)
{
	struct rolling *r = rolling_new(3);
	struct xt_op_row c1[] = { row("p", "a", 10, 1), row("p", "b", 20, 2) };
	struct xt_op_row c2[] = { row("p", "a", 30, 1) };
	struct xt_op_row c3[] = { row("p", "a", 50, 1), row("p", "c", 6, 3) };
	struct xt_op_row c4[] = { row("p", "a", 10, 1) };
	double d, pct;
	long a, b, c;

	(void)state;
	rolling_add(r, c1, 2, 100);
	a = find(r, "p/a");
	assert_int_equal(r->nops, 2);
	assert_int_equal(rolling_latest_ps(r, (size_t)a), 10);
	assert_true(rolling_avg_ps(r, (size_t)a) == 10.0);
	/* One capture: nothing to compare with. */
	assert_int_equal(rolling_change(r, (size_t)a, &d, &pct), 0);
	assert_string_equal(cell(r, ROLLING_COL_CHANGE, a), "-");
	assert_string_equal(cell(r, ROLLING_COL_CHANGE_PCT, a), "-");
	assert_true(fabs(rolling_share(r, (size_t)a) - 10.0) < 1e-9);

	rolling_add(r, c2, 1, 60);
	a = find(r, "p/a");
	b = find(r, "p/b");
	assert_int_equal(rolling_latest_ps(r, (size_t)a), 30);
	assert_true(rolling_avg_ps(r, (size_t)a) == 20.0);
	assert_int_equal(rolling_change(r, (size_t)a, &d, &pct), 1);
	assert_true(d == 10.0 && pct == 50.0);
	assert_string_equal(cell(r, ROLLING_COL_CHANGE_PCT, a), "+50.0%");
	assert_true(fabs(rolling_share(r, (size_t)a) - 50.0) < 1e-9);
	/* b did not run in the newest capture: 0 there, half its time on average. */
	assert_int_equal(rolling_ran_latest(r, (size_t)b), 0);
	assert_int_equal(rolling_latest_ps(r, (size_t)b), 0);
	assert_int_equal(rolling_latest_occ(r, (size_t)b), 0);
	assert_true(rolling_avg_ps(r, (size_t)b) == 10.0);
	rolling_change(r, (size_t)b, &d, &pct);
	assert_true(d == -10.0 && pct == -100.0);
	assert_string_equal(cell(r, ROLLING_COL_LATEST, b), "0");
	assert_string_equal(cell(r, ROLLING_COL_CHANGE_PCT, b), "-100.0%");
	assert_string_equal(cell(r, ROLLING_COL_SEEN, b), "1/2");

	rolling_add(r, c3, 2, 100);
	a = find(r, "p/a");
	c = find(r, "p/c");
	assert_true(rolling_avg_ps(r, (size_t)a) == 30.0);
	/* c appears: new, and its average counts the captures it missed. */
	assert_int_equal(rolling_is_new(r, (size_t)c), 1);
	assert_string_equal(cell(r, ROLLING_COL_CHANGE_PCT, c), "new");
	assert_true(rolling_avg_ps(r, (size_t)c) == 2.0);
	assert_string_equal(cell(r, ROLLING_COL_OCC, c), "3");
	assert_int_equal(r->nops, 3);

	/* The ring is full: the first capture leaves, and b (only in it) with it. */
	rolling_add(r, c4, 1, 50);
	assert_int_equal(find(r, "p/b"), -1);
	assert_int_equal(r->nops, 2);
	a = find(r, "p/a");
	c = find(r, "p/c");
	assert_true(rolling_avg_ps(r, (size_t)a) == 30.0); /* (30 + 50 + 10) / 3 */
	assert_int_equal(rolling_is_new(r, (size_t)c), 0);
	assert_true(rolling_avg_ps(r, (size_t)c) == 2.0);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->added, 4);
	/* The index still finds the kept ops after the drop. */
	rolling_add(r, c4, 1, 50);
	assert_int_equal(find(r, "p/a"), a);
	assert_int_equal(rolling_latest_ps(r, (size_t)a), 10);
	rolling_add(r, c4, 1, 50);
	assert_int_equal(find(r, "p/c"), -1); /* c's capture has left the ring */
	assert_int_equal(r->nops, 1);
	rolling_free(r);
}

/* Rows with the same program and name are one op; programs keep ops with
 * the same name apart; a capture with no device time has no share. */
static void test_keys(void **state)
{
	struct rolling *r = rolling_new(10);
	struct xt_op_row c1[] = { row("p", "a", 10, 1), row("p", "a", 5, 2), row("q", "a", 7, 1),
				  row("", "a", 1, 1) };
	char key[64];
	long a;

	(void)state;
	rolling_add(r, c1, 4, 0);
	assert_int_equal(r->nops, 3);
	a = find(r, "p/a");
	assert_int_equal(rolling_latest_ps(r, (size_t)a), 15);
	assert_int_equal(rolling_latest_occ(r, (size_t)a), 3);
	assert_int_equal(rolling_latest_ps(r, (size_t)find(r, "q/a")), 7);
	rolling_key(r, (size_t)find(r, "a"), key, sizeof(key));
	assert_string_equal(key, "a");
	assert_true(isnan(rolling_share(r, (size_t)a)));
	assert_string_equal(cell(r, ROLLING_COL_SHARE, a), "-");
	rolling_free(r);
}

/* Sort orders: largest first; the change by its size either way; new ops
 * first by change %. */
static void test_sort(void **state)
{
	struct rolling *r = rolling_new(4);
	struct xt_op_row c1[] = { row("p", "up", 100, 1), row("p", "down", 400, 1),
				  row("p", "flat", 200, 1) };
	struct xt_op_row c2[] = { row("p", "up", 300, 1), row("p", "down", 100, 1),
				  row("p", "flat", 200, 1), row("p", "fresh", 50, 1) };
	size_t order[4];
	char k[64];

	(void)state;
	rolling_add(r, c1, 3, 1000);
	rolling_add(r, c2, 4, 1000);
	rolling_sorted(r, ROLLING_COL_LATEST, order);
	rolling_key(r, order[0], k, sizeof(k));
	assert_string_equal(k, "p/up");
	rolling_key(r, order[3], k, sizeof(k));
	assert_string_equal(k, "p/fresh");
	/* down moved by -150, up by +100, fresh by +25, flat by 0. */
	rolling_sorted(r, ROLLING_COL_CHANGE, order);
	rolling_key(r, order[0], k, sizeof(k));
	assert_string_equal(k, "p/down");
	rolling_key(r, order[1], k, sizeof(k));
	assert_string_equal(k, "p/up");
	rolling_key(r, order[3], k, sizeof(k));
	assert_string_equal(k, "p/flat");
	rolling_sorted(r, ROLLING_COL_CHANGE_PCT, order);
	rolling_key(r, order[0], k, sizeof(k));
	assert_string_equal(k, "p/fresh");
	rolling_sorted(r, ROLLING_COL_NAME, order);
	rolling_key(r, order[0], k, sizeof(k));
	assert_string_equal(k, "p/down");
	assert_int_equal(rolling_column_find("chg%"), ROLLING_COL_CHANGE_PCT);
	assert_int_equal(rolling_column_find("latest"), ROLLING_COL_LATEST);
	assert_int_equal(rolling_column_find("op"), ROLLING_COL_NAME);
	assert_int_equal(rolling_column_find("nope"), -1);
	rolling_free(r);
}

/* 50 captures, each with 100 ops never seen before: the aggregate keeps
 * the ops of the last 10 captures only, and its memory stops growing once
 * the ring is full. */
static void test_bounded(void **state)
{
	struct rolling *r = rolling_new(10);
	struct xt_op_row rows[100];
	static char names[100][32];
	size_t cap, k, bytes_full = 0;
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		for (k = 0; k < 100; k++) {
			snprintf(names[k], sizeof(names[k]), "op_%04d_%03zu", i, k);
			rows[k] = row("prog", names[k], (int64_t)(k + 1) * 1000, 1);
		}
		rolling_add(r, rows, 100, 1000000);
		assert_int_equal(r->n, i < 10 ? i + 1 : 10);
		assert_int_equal(r->nops, (size_t)(i < 10 ? i + 1 : 10) * 100);
		if (i == 9)
			bytes_full = rolling_bytes(r);
		if (i >= 9)
			assert_int_equal(rolling_bytes(r), bytes_full);
	}
	cap = r->cap;
	assert_int_equal(r->added, 50);
	assert_true(cap <= 2048);
	/* The newest capture's ops are all there, the oldest kept ones too. */
	assert_true(find(r, "prog/op_0049_000") >= 0);
	assert_true(find(r, "prog/op_0040_099") >= 0);
	assert_int_equal(find(r, "prog/op_0039_099"), -1);
	/* A workload that settles on few ops: the table shrinks again. */
	for (i = 0; i < 10; i++)
		rolling_add(r, rows, 1, 1000);
	assert_int_equal(r->nops, 1);
	assert_true(r->cap < cap);
	assert_true(rolling_bytes(r) < bytes_full / 4);
	rolling_free(r);
}

/* A window of one: the average is the latest capture. */
static void test_window_one(void **state)
{
	struct rolling *r = rolling_new(1);
	struct xt_op_row c1[] = { row("p", "a", 10, 1) };
	struct xt_op_row c2[] = { row("p", "b", 20, 1) };

	(void)state;
	rolling_add(r, c1, 1, 10);
	rolling_add(r, c2, 1, 20);
	assert_int_equal(r->nops, 1);
	assert_true(rolling_avg_ps(r, 0) == 20.0);
	assert_int_equal(rolling_latest_ps(r, 0), 20);
	rolling_free(r);
	r = rolling_new(0); /* clamped to 1 */
	assert_int_equal(r->window, 1);
	rolling_free(r);
}

/* A real profile folded in 50 times (what top sees from a server that
 * returns the same profile): every op's latest and average equal its self
 * time in the op profile, the change is 0, the share is its percent, and
 * memory is the same after the first capture and the fiftieth. */
static void test_fixture_repeated(void **state)
{
	struct xt_trace *t;
	struct xt_analysis *a;
	struct rolling *r;
	size_t i, bytes1 = 0;
	int k;

	(void)state;
	if (!tu_have_fixtures())
		return;
	a = tu_load(tu_fixture("jax-rocm-mi300x-jax08_attention/tw003.xplane.pb"), &t);
	assert_true(a->nops > 3);
	r = rolling_new(10);
	for (k = 0; k < 50; k++) {
		rolling_add(r, a->ops, a->nops, a->busy_ps);
		if (k == 0)
			bytes1 = rolling_bytes(r);
		assert_int_equal(rolling_bytes(r), bytes1);
	}
	assert_int_equal(r->n, 10);
	for (i = 0; i < a->nops; i++) {
		char key[1024];
		long o;
		double d, pct;

		snprintf(key, sizeof(key), "%s%s%s", a->ops[i].program, a->ops[i].program[0] ? "/" : "",
			 a->ops[i].name);
		o = find(r, key);
		assert_true(o >= 0);
		/* Ops may repeat a (program, name) under another category. */
		assert_true(rolling_latest_ps(r, (size_t)o) >= a->ops[i].self_ps);
		assert_true(rolling_avg_ps(r, (size_t)o) == (double)rolling_latest_ps(r, (size_t)o));
		assert_int_equal(rolling_change(r, (size_t)o, &d, &pct), 1);
		assert_true(d == 0.0);
		assert_string_equal(cell(r, ROLLING_COL_CHANGE, o), "0");
		assert_string_equal(cell(r, ROLLING_COL_SEEN, o), "10/10");
		if (rolling_latest_ps(r, (size_t)o) == a->ops[i].self_ps)
			assert_true(fabs(rolling_share(r, (size_t)o) - a->ops[i].percent) < 1e-6);
	}
	rolling_free(r);
}

/* A window of `window` captures where op b ran 10 ps until the newest,
 * 1e6 ps in 1,234,567 occurrences there: every cell of b's within its
 * column's width, SEEN and CHG% as given. */
static void check_fit(size_t window, const char *seen, const char *pct)
{
	struct rolling *r = rolling_new(window);
	struct xt_op_row c1[] = { row("p", "a", 1000, 1), row("p", "b", 10, 1) };
	struct xt_op_row c2[] = { row("p", "a", 1000, 1), row("p", "b", 1000000, 1234567) };
	size_t k;
	long b;
	int c;

	for (k = 0; k + 1 < window; k++)
		rolling_add(r, c1, 2, 2000);
	rolling_add(r, c2, 2, 2000000);
	b = find(r, "p/b");
	assert_string_equal(cell(r, ROLLING_COL_SEEN, b), seen);
	assert_string_equal(cell(r, ROLLING_COL_OCC, b), "1.23M");
	assert_string_equal(cell(r, ROLLING_COL_CHANGE_PCT, b), pct);
	for (c = 0; c < ROLLING_NCOLS; c++)
		if (rolling_columns[c].width)
			assert_true((int)strlen(cell(r, c, b)) <= rolling_columns[c].width);
	rolling_free(r);
}

/* Every cell within its column's width: a spike, a million occurrences, a
 * hundred or a thousand captures kept ("100/100" once ran past SEEN's five
 * columns, "+9890.1%" past CHG%'s seven). 1e6 against an average of
 * 10009.9 is +9890 %; against 1009.99, +98911 % (at most +99900 % with a
 * thousand kept). */
static void test_cells_fit(void **state)
{
	(void)state;
	check_fit(100, "100/100", "+9890%");
	check_fit(1000, "1000/1k", "+98911%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_average_and_change),
		TU_TEST(test_keys),
		TU_TEST(test_sort),
		TU_TEST(test_bounded),
		TU_TEST(test_window_one),
		TU_TEST(test_fixture_repeated),
		TU_TEST(test_cells_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
