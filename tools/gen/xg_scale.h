/*
 * xg_scale.h - `xtop-gen --scale FILE K`: a real profile made K times
 * bigger with its shape kept, for benchmarks on real-shaped data.
 *
 * Every line's events are written K times; copy c is shifted by c times
 * the profile's span (the first start to the last end of the timed events
 * of every line), so each copy is the run again: copies follow each other,
 * nesting within a copy is unchanged, and what happens at once on two
 * lines (a launch and its kernel, a step marker and its ops) still does.
 * The stats that name one instance (group_id, step_num, iter_num,
 * correlation_id, run_id, as event stats with an integer value) move by c
 * times their range in the file, so each copy's steps, launches and runs
 * are its own; device_offset_ps (an op's start by the device's clock, in
 * absolute ps) moves by c spans, with its event. Everything else (planes,
 * metadata, other stats, line headers) is copied byte for byte; a line's
 * duration_ps, when set, grows by (K - 1) spans. Aggregated events (num_occurrences) are repeated as
 * they are.
 *
 * Like the generator it streams: the input is mapped (a gzip input is
 * first inflated to an unlinked temporary file), a survey finds the span
 * and the identifiers' ranges, a counting pass learns
 * every new line and plane length, and the writing pass emits them
 * through pb_sink, so memory stays bounded whatever K is.
 */
#ifndef XTOP_GEN_XG_SCALE_H
#define XTOP_GEN_XG_SCALE_H

#include <stdint.h>

struct pb_sink;
struct xg_scale;

struct xg_scale_stats {
	uint64_t planes, lines, events; /* in the output */
	uint64_t bytes;                 /* uncompressed output bytes */
};

/* Maps `in` and runs the counting pass for k (>= 1) copies, so that every
 * input error (unreadable, not an XSpace, a shifted time that would
 * overflow) ends the program (xg_die) before any output exists. Returns a
 * new scaler; free with xg_scale_free(). */
struct xg_scale *xg_scale_new(const char *in, uint64_t k);
/* Writes the scaled profile into s; *st gets what was written. */
void xg_scale_write(struct xg_scale *x, struct pb_sink *s, struct xg_scale_stats *st);
void xg_scale_free(struct xg_scale *x);

#endif
