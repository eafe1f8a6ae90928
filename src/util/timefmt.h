/*
 * timefmt: human-readable durations and sizes in fixed-width-friendly form.
 * All functions write into the caller's buffer and return it; they can't fail.
 */
#ifndef XT_TIMEFMT_H
#define XT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* 1234567 ps -> "1.23 us"; picks ps/ns/us/ms/s so 3 significant digits show. */
char *fmt_ps(char *buf, size_t n, int64_t ps);
/* 1536 -> "1.50 KiB". */
char *fmt_bytes(char *buf, size_t n, double bytes);
/* 1234567 -> "1,234,567". */
char *fmt_count(char *buf, size_t n, uint64_t v);
/* A rate per second: 1.5e12 -> "1.50 T"; unit is appended by the caller. */
char *fmt_rate(char *buf, size_t n, double per_s);

#endif
