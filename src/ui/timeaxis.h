/*
 * timeaxis: how the viewer shows a point in time. Events carry absolute
 * times (ps in the file's time base); the viewer shows them relative to the
 * profile's origin. Every such conversion goes through timeaxis_rel() (and
 * the formatters built on it), so the origin is decided in this one place.
 * Durations are not points in time and need no conversion.
 */
#ifndef XT_TIMEAXIS_H
#define XT_TIMEAXIS_H

#include <stddef.h>
#include <stdint.h>

struct app;

/* The absolute time shown as 0: the profile start (the trace's origin_ps),
 * the same 0 as the report's and its JSON's times. */
int64_t timeaxis_origin(const struct app *a);
/* abs_ps as shown: ps since the origin. */
int64_t timeaxis_rel(const struct app *a, int64_t abs_ps);
/* abs_ps as shown, 3 significant digits ("22.5 s"). Returns buf. */
char *timeaxis_fmt(const struct app *a, char *buf, size_t n, int64_t abs_ps);
/* abs_ps as shown, to the nanosecond ("22.550200013 s"), for details. */
char *timeaxis_fmt_exact(const struct app *a, char *buf, size_t n, int64_t abs_ps);

#endif
