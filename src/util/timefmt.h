/*
 * timefmt: human-readable durations and sizes in fixed-width-friendly form.
 * All functions write into the caller's buffer and return it; they can't fail.
 */
#ifndef XT_TIMEFMT_H
#define XT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* 1234567 ps -> "1.23 us"; picks ps/ns/us/ms/s so 3 significant digits show.
 * At most 8 columns (9 when negative) for times under 11 days: "999.9 ms",
 * then "1.00 s"; whole seconds from 1000 s ("100993 s"). */
char *fmt_ps(char *buf, size_t n, int64_t ps);
/* fmt_ps, or "-" when the time is not known (a figure absent, never 0). */
char *fmt_ps_known(char *buf, size_t n, int64_t ps, int known);
/* pct as "12.3%", or "-" for NaN (no figure: e.g. a device with no span). */
char *fmt_percent(char *buf, size_t n, double pct);
/* ps in a fixed unit (XT_PS_* below) with dec decimals, exactly (integer
 * maths, truncating): (22550200000000, XT_PS_S, 4) -> "22.5502 s". */
#define XT_PS_NS 1000LL
#define XT_PS_US 1000000LL
#define XT_PS_MS 1000000000LL
#define XT_PS_S 1000000000000LL
char *fmt_ps_unit(char *buf, size_t n, int64_t ps, int64_t unit, int dec);
/* The unit for values up to maxabs ps (s, ms, us, ns or ps) and the decimals
 * that show every multiple of step exactly in it. */
void timefmt_unit(int64_t maxabs, int64_t step, int64_t *unit, int *dec);
/* For a column of times v[0..n) in order that fmt_ps shows alike side by
 * side ("1.64 s" for steps 3.7 ms apart): the unit and decimals for
 * fmt_ps_unit that tell every two neighbours apart ("1.639 s"), with fewer
 * decimals where w columns cannot hold them; *unit 0 when fmt_ps does
 * already (or nothing can). */
void timefmt_apart(const int64_t *v, size_t n, int w, int64_t *unit, int *dec);
/* One time of such a column: fmt_ps_unit in (unit, dec), fmt_ps when unit
 * is 0. */
char *fmt_ps_apart(char *buf, size_t n, int64_t ps, int64_t unit, int dec);
/* ps in its own unit, exact down to 1 ns (to the ps below 1 ns), as the
 * details pane shows a time so it can be checked against the raw event:
 * 1196759000 -> "1.196759 ms". */
char *fmt_ps_exact(char *buf, size_t n, int64_t ps);

/* Whether the word at s (up to a space, comma, semicolon or ')') is a unit
 * these functions write after a number ("ms", "GiB"): a line is never
 * broken between a figure and its unit. */
int fmt_is_unit(const char *s);
/* The end of the word at s, with the unit after a figure kept in it
 * ("2.03 ms"): where a line may break next. */
const char *fmt_word_end(const char *s);

/* One tick of a time ruler: its column and its label. */
struct timefmt_tick {
	int x;           /* column in [0, w) */
	char label[48];
};
/*
 * The ticks of a ruler w columns wide over [t0, t1) (ps, as displayed): a
 * round step (1, 2 or 5 times a power of ten) about every 12 columns, and
 * labels that differ from each other at every zoom. When full times fit
 * between ticks they are all full times in one unit ("22.5502 s"); when
 * they would not (deep zoom far from 0), the first tick shows the full time
 * and the others the offset from it ("+20 ns"). Labels never overlap and
 * are never cut: a tick whose label would run into the previous one or past
 * the right edge is left out. Returns the
 * number of ticks written (at most max). Can't fail.
 */
size_t timefmt_ticks(int64_t t0, int64_t t1, int w, struct timefmt_tick *out, size_t max);

/* 1536 -> "1.50 KiB"; at most 10 columns ("999.99 KiB"; a KiB or more
 * moves up a unit from 999.995, so never "1000.00 MiB"), 11 when negative. */
char *fmt_bytes(char *buf, size_t n, double bytes);
/* fmt_bytes when that takes at most w columns, else three figures:
 * 213236 -> "208 KiB" (fmt_bytes: "208.24 KiB"); at most 8 columns then. */
char *fmt_bytes_fit(char *buf, size_t n, double bytes, int w);
/* 1234567 -> "1,234,567". */
char *fmt_count(char *buf, size_t n, uint64_t v);
/* fmt_count when that takes at most w columns, else three figures and a
 * suffix (127300 -> "127K", 5092000 -> "5.09M": at most 5 columns). A
 * column's figure is never cut: "5..200" would read as another number. */
char *fmt_count_fit(char *buf, size_t n, uint64_t v, int w);
/* A rate or a peak in three figures with a decimal prefix, sep between
 * the figure and the prefix: 1.64e12, " ", "B/s" -> "1.64 TB/s"; 9.18e14,
 * "", "" -> "918T". "-" for a value no device has (not finite, negative,
 * or 999.5 P and up, which no column fits). */
char *fmt_rate(char *buf, size_t n, double v, const char *sep, const char *unit);

/* A change of a duration with its sign ("+1.23 ms", "-4 ns"), "0" for none.
 * Returns buf. */
char *fmt_ps_change(char *buf, size_t n, int64_t d);
/* A change in percent with its sign ("+12.3%", "-4.0%"); one that rounds
 * to nothing is "0.0%", never "-0.0%"; whole percents from 1000%, and
 * ">+1e6%" past a million. At most 8 columns. Returns buf. */
char *fmt_pct_change(char *buf, size_t n, double pct);
/* fmt_pct_change(), or where there is no percent (pct NAN: nothing to
 * compare with) "new" when the new value is not 0, "-" when it is (0 -> 0
 * is no change). Returns buf. */
char *fmt_pct_change_or_new(char *buf, size_t n, double pct, double new_);

#endif
