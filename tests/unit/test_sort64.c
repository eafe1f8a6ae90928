/*
 * test_sort64: the radix sorts (src/util/sort64.c) against qsort on
 * random keys of every shape the step passes meet (negative, the int64
 * extremes, all equal, sharing their high bytes, few and many), and the
 * order of equal keys kept for the pairs.
 */
#include "testutil.h"

#include "util/sort64.h"
#include "util/xalloc.h"

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Keys of shape `kind` into a[n]. */
static void fill(int64_t *a, size_t n, int kind, uint64_t *rs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case 0: /* anything */
			a[i] = (int64_t)tu_rand(rs);
			break;
		case 1: /* step times: large, close together */
			a[i] = 19500000000000LL + tu_rand_range(rs, 0, 1000000);
			break;
		case 2: /* few distinct, negatives among them */
			a[i] = tu_rand_range(rs, -3, 3);
			break;
		case 3: /* the extremes */
			a[i] = (tu_rand(rs) & 1) ? INT64_MIN + tu_rand_range(rs, 0, 2)
						  : INT64_MAX - tu_rand_range(rs, 0, 2);
			break;
		default: /* all equal */
			a[i] = 42;
			break;
		}
	}
}

/* Every size and shape: the keys sorted by sort_i64 as qsort sorts them,
 * and the same keys as pairs by sort_kv, equal keys in the order they went
 * in (each value is its index on the way in). */
static void test_sort_matches_qsort(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 47, 48, 49, 1000, 100000 };
	uint64_t rs = 3;
	size_t s, i;
	int kind;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (kind = 0; kind < 5; kind++) {
			size_t n = sizes[s];
			int64_t *a = xmalloc((n ? n : 1) * sizeof(*a));
			int64_t *b = xmalloc((n ? n : 1) * sizeof(*b));
			struct sort_kv *kv = xmalloc((n ? n : 1) * sizeof(*kv));

			fill(a, n, kind, &rs);
			memcpy(b, a, n * sizeof(*a));
			for (i = 0; i < n; i++)
				kv[i] = (struct sort_kv){ a[i], i };
			sort_i64(a, n);
			sort_kv(kv, n);
			qsort(b, n, sizeof(*b), i64_cmp);
			for (i = 0; i < n; i++) {
				assert_int_equal(a[i], b[i]);
				assert_int_equal(kv[i].k, b[i]);
				if (i && kv[i].k == kv[i - 1].k)
					assert_true(kv[i].v > kv[i - 1].v);
			}
			free(a);
			free(b);
			free(kv);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_sort_matches_qsort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
