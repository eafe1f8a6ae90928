/*
 * rolling: per-op self time over the last N captures, for xtop top.
 *
 * Each capture (its op profile, struct xt_op_row) goes into one slot of a
 * ring of N; the oldest slot is overwritten once the ring is full. An op
 * (keyed by program and name) keeps its self time and occurrences per slot
 * and running sums over the ring, so the latest window, the rolling
 * average and the change cost nothing to read and adding a capture costs
 * one pass over its ops. An op that ran in none of the N captures is
 * dropped: memory is bounded by N and the ops of N captures, however long
 * top runs (rolling_bytes() says how much it holds).
 *
 * What the numbers mean:
 *   latest   the op's self time in the newest capture (0 when it did not
 *            run in it)
 *   average  its self time summed over the captures in the ring, divided
 *            by their number (captures it did not run in count as 0)
 *   change   latest - average, and in % of the average; absent with one
 *            capture (nothing to compare) or an average of 0
 *   share    latest self time in % of the newest capture's summed op self
 *            time (what the op profile calls percent); absent when that
 *            is 0
 *
 * Columns are data here too (style rule 8): rolling_columns drives the
 * viewer's table, the text tables and the sort keys of `xtop top`. The op
 * column names the program too ("fusion.3 (jit_step)") when programs share
 * an op name, so rows never look alike when the program column is left
 * out on a narrow screen.
 *
 * Ownership: struct rolling owns its ops and strings; rolling_free()
 * releases everything. Strings returned point into it and live until the
 * op is dropped (the next rolling_add()) or rolling_free().
 */
#ifndef XT_ROLLING_H
#define XT_ROLLING_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "../util/hmap.h"

#define ROLLING_MAX_WINDOW 1000

struct rolling_op {
	char *program, *name, *category; /* one allocation, owned (program first) */
	int64_t *self_ps;    /* [window]: self time in each slot of the ring */
	uint64_t *occ;       /* [window]: occurrences in each slot */
	uint8_t *ran;        /* [window]: 1 when it was in that slot's capture */
	int64_t sum_self_ps; /* over the slots in the ring */
	uint64_t sum_occ;
	unsigned seen;       /* slots of the ring it ran in (> 0 while kept) */
	int same_name;       /* another kept op (another program) has its name */
};

struct rolling {
	size_t window;       /* N: captures averaged */
	size_t n;            /* captures in the ring (<= window) */
	size_t head;         /* slot of the newest capture */
	uint64_t added;      /* captures ever added */
	int64_t *self_ps;    /* [window]: summed op self time of each capture (share) */
	struct rolling_op *ops; /* in first-seen order; owned */
	size_t nops, cap;
	struct hmap index;   /* program \x1f name -> ops index */
	size_t bytes;        /* what the ops hold (see rolling_bytes) */
};

/* A new, empty aggregate over the last window captures (1 to
 * ROLLING_MAX_WINDOW; clamped). Free with rolling_free(). Can't fail. */
struct rolling *rolling_new(size_t window);
void rolling_free(struct rolling *r);

/* Adds one capture: its op profile rows[0..n) (ops with the same program
 * and name are summed) and its summed op self time. The oldest capture
 * leaves the ring when it is full, and ops that ran in none of the ring's
 * captures are dropped (op indexes change). Can't fail. */
void rolling_add(struct rolling *r, const struct xt_op_row *rows, size_t n, int64_t self_ps);

/* Derived values of op i (see the top of this file). */
int64_t rolling_latest_ps(const struct rolling *r, size_t i);
uint64_t rolling_latest_occ(const struct rolling *r, size_t i);
/* 1 when op i ran in the newest capture. */
int rolling_ran_latest(const struct rolling *r, size_t i);
double rolling_avg_ps(const struct rolling *r, size_t i);
/* Returns 1 with *delta_ps and *percent (NAN when the average is 0), or 0
 * when there is no change to speak of (fewer than two captures). */
int rolling_change(const struct rolling *r, size_t i, double *delta_ps, double *percent);
/* NAN when the newest capture has no op self time. */
double rolling_share(const struct rolling *r, size_t i);
/* 1 when op i ran only in the newest capture, after others without it. */
int rolling_is_new(const struct rolling *r, size_t i);
/* The newest capture's summed op self time. */
int64_t rolling_latest_self(const struct rolling *r);
/* The key the table keeps its selection by: "program/name" ("name" when
 * the program is unknown). */
void rolling_key(const struct rolling *r, size_t i, char *buf, size_t n);
/* Bytes the aggregate holds: its ring, its ops with their strings and
 * per-slot arrays, and its index. Bounded by the window and the ops of the
 * last window captures, never by how many were added. */
size_t rolling_bytes(const struct rolling *r);

/* A column of top's table. ctx is the struct rolling; row an op index. */
struct rolling_column {
	const char *name;
	int width;   /* 0: the flexible column (the op name) */
	int right;
	int drop;    /* dropped first when narrow: highest first; 0 never */
	void (*text)(void *ctx, size_t row, char *buf, size_t n);
	int (*cmp)(void *ctx, size_t a, size_t b); /* < 0: a first; largest first */
	const char *help;
};

enum {
	ROLLING_COL_LATEST,
	ROLLING_COL_AVG,
	ROLLING_COL_CHANGE,
	ROLLING_COL_CHANGE_PCT,
	ROLLING_COL_OCC,
	ROLLING_COL_SHARE,
	ROLLING_COL_SEEN,
	ROLLING_COL_PROGRAM,
	ROLLING_COL_NAME,
	ROLLING_NCOLS
};
extern const struct rolling_column rolling_columns[ROLLING_NCOLS];
/* The column named name (case-insensitive; "chg%" or "change%" for the
 * percentage), or -1. */
int rolling_column_find(const char *name);
/* Op indexes ordered by column c (ties: the view's order); out has nops
 * entries. Can't fail. */
void rolling_sorted(const struct rolling *r, int c, size_t *out);

#endif
