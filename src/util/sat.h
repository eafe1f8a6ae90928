/*
 * sat: 64-bit sums that cannot overflow. A hostile file's many long
 * events, or its byte counts, add up past INT64_MAX, where signed
 * arithmetic is undefined; a total stuck at the top stays above its parts.
 * Times of day are sums modulo 2^64 instead (trace.h, xt_ps_add). A leaf:
 * inline functions only.
 */
#ifndef XT_SAT_H
#define XT_SAT_H

#include <stdint.h>

/* a + b and a - b, saturated at INT64_MIN and INT64_MAX. */
static inline int64_t xt_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static inline int64_t xt_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b > 0 ? INT64_MIN : INT64_MAX;
	return r;
}

/* |a|, INT64_MIN's taken as INT64_MAX (it has no int64 negation). */
static inline int64_t xt_sat_abs(int64_t a)
{
	return a == INT64_MIN ? INT64_MAX : a < 0 ? -a : a;
}

/* A time held as a double (a mean, a difference of sums) as ps, rounded:
 * one past int64 (a hostile file's) saturates, NaN reads 0. */
static inline int64_t xt_ps_of(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

#endif
