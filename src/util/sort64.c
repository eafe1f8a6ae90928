/* sort64: see sort64.h. */
#include "sort64.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Below this, insertion sort: no scratch, no passes. */
#define SMALL 48

/* The key of element i of an array of size-byte elements (key first), as
 * an unsigned that sorts as the signed key does. */
static inline __attribute__((always_inline)) uint64_t key_at(const unsigned char *a, size_t size, size_t i)
{
	int64_t k;

	memcpy(&k, a + i * size, sizeof(k));
	return (uint64_t)k ^ 0x8000000000000000ull;
}

static inline __attribute__((always_inline)) void insertion(unsigned char *a, size_t size, size_t n)
{
	unsigned char x[sizeof(struct sort_kv)];
	size_t i, j;

	for (i = 1; i < n; i++) {
		uint64_t k = key_at(a, size, i);

		if (key_at(a, size, i - 1) <= k)
			continue;
		memcpy(x, a + i * size, size);
		for (j = i; j > 0 && key_at(a, size, j - 1) > k; j--)
			memcpy(a + j * size, a + (j - 1) * size, size);
		memcpy(a + j * size, x, size);
	}
}

static inline __attribute__((always_inline)) void radix(unsigned char *a, size_t size, size_t n)
{
	unsigned char *tmp, *src, *dst;
	uint64_t or_ = 0, and_ = ~0ull;
	size_t i, shift;

	if (n < SMALL) {
		insertion(a, size, n);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t k = key_at(a, size, i);

		or_ |= k;
		and_ &= k;
	}
	tmp = xmalloc(n * size);
	src = a;
	dst = tmp;
	for (shift = 0; shift < 64; shift += 8) {
		size_t count[256], pos = 0, b;

		if ((((or_ ^ and_) >> shift) & 0xff) == 0)
			continue; /* every key has this byte */
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(key_at(src, size, i) >> shift) & 0xff]++;
		for (b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			memcpy(dst + count[(key_at(src, size, i) >> shift) & 0xff]++ * size,
			       src + i * size, size);
		src = dst;
		dst = src == a ? tmp : a;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(tmp);
}

void sort_i64(int64_t *a, size_t n)
{
	radix((unsigned char *)a, sizeof(*a), n);
}

void sort_kv(struct sort_kv *a, size_t n)
{
	radix((unsigned char *)a, sizeof(*a), n);
}
