/*
 * sort64: sorting by a signed 64-bit key in linear time (an LSD radix
 * sort, a byte at a time, skipping the bytes every key shares), for the
 * per-step arrays that reach hundreds of thousands of entries, where
 * qsort's calls through a comparator cost milliseconds. A leaf: the
 * caller owns the arrays; the scratch is allocated and freed inside.
 */
#ifndef XT_SORT64_H
#define XT_SORT64_H

#include <stddef.h>
#include <stdint.h>

/* A key and what travels with it. */
struct sort_kv {
	int64_t k;
	uint64_t v;
};

/* Ascending; the order of equal keys is kept (stable). */
void sort_i64(int64_t *a, size_t n);
void sort_kv(struct sort_kv *a, size_t n);

#endif
