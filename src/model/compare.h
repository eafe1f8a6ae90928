/*
 * compare: two profiles side by side (`xtop diff`, the report's regression
 * gate): per op its self time in both (per step when both have steps, else
 * per run), the change, and how the op was matched across a recompile; the
 * step time's mean, p50 and p95; device busy and idle; memory peaks.
 *
 * Ops are matched by their exact (program, name) first, then by a stable
 * identity that survives a recompile: the program without its numeric
 * suffixes, the op name with its numeric suffixes removed, and its
 * category; several candidates of one identity pair up in order of self
 * time. (docs/analyses.md, "Comparing two profiles".)
 *
 * Ownership: a struct xt_cmp owns its rows and strings; compare_free()
 * releases it. It does not point into the analyses it came from.
 */
#ifndef XT_COMPARE_H
#define XT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "analysis.h"

enum xt_match {
	XT_MATCH_EXACT = 0,   /* the same (program, name) */
	XT_MATCH_IDENTITY,    /* the same identity after a recompile */
	XT_MATCH_WORK,        /* the same program and work a run, implemented another way */
	XT_MATCH_ADDED,       /* only in NEW */
	XT_MATCH_REMOVED,     /* only in BASE */
};
extern const char *const xt_match_names[5];

struct xt_cmp_op {
	const char *name;      /* NEW's name (BASE's when removed) */
	const char *base_name; /* BASE's name ("" when added) */
	const char *program, *category;
	int64_t base_ps, new_ps; /* self time, per step or per run (see xt_cmp.per_step) */
	int64_t delta_ps;        /* new - base */
	double delta_percent;    /* NAN when base_ps is 0 */
	enum xt_match match;
	/* matched, and the two do other work: their FLOPs or bytes a run
	 * differ by more than 1 % (another instruction under the name, or
	 * new shapes), so their times differ by more than speed */
	int work_differs;
	double work_ratio;       /* when it does: NEW's work a run / BASE's (bytes for
				  * an op NEW runs memory-bound, else FLOPs, else
				  * bytes); NAN when unknown */
	size_t new_rank;         /* rank by self time in NEW (0 = top); SIZE_MAX if removed */
};

/* A number in both profiles; has = 1 when both have it. */
struct xt_cmp_num {
	double base, new_, delta, delta_percent; /* delta_percent NAN when base is 0 */
	int has;   /* both sides known and compared */
	/* Without has: bit 0 base, bit 1 new is known alone (busy time where
	 * one profile has no device events); 0: nothing is shown. */
	int sides;
};

struct xt_cmp_dev {
	const char *host, *name;
	int in_base, in_new;
	/* Its busy time is known there: it has events (else '-', null:
	 * idle, or not traced; xt_device_silent). */
	int base_known, new_known;
	int64_t base_busy_ps, new_busy_ps;
	double base_idle_percent, new_idle_percent;
};

struct xt_cmp_mem {
	const char *host, *allocator, *name;
	int in_base, in_new;
	int64_t base_peak, new_peak;
};

struct xt_cmp {
	struct xt_cmp_op *ops;  /* by |delta_ps| descending */
	size_t nops;
	/* Both sides have steps of one kind: step times are compared, and op
	 * and busy times are per step. */
	int per_step;
	/* Steps on both sides, of two kinds: a step count is no common unit
	 * (3 host steps of 4 runs each against 12 inferred runs), so op times
	 * are per occurrence and busy is not compared. */
	int per_occurrence;
	size_t base_steps, new_steps;
	/* What a side's op and busy times are divided by, per step: its
	 * steps, and for inferred ones one more, the last run (no step, as
	 * none follows it) that its times hold too. */
	size_t base_units, new_units;
	/* Where each side's steps come from: step times are compared only
	 * when both have steps of one kind (and, inferred, of one module):
	 * a host marker's span against a run's period differ by what a step
	 * is, not only by how fast it ran (per_step 0). */
	enum xt_steps_source base_source, new_source;
	const char *base_module, *new_module; /* inferred steps' module ("" else) */
	struct xt_cmp_num step_mean, step_p50, step_p95; /* ps, when per_step */
	struct xt_cmp_num busy; /* summed device busy ps (per step when per_step) */
	struct xt_cmp_dev *devs;
	size_t ndevs;
	struct xt_cmp_mem *mem;
	size_t nmem;
	/* The program every op is in, NULL when they are in several (or
	 * none): a list can name it once and its rows the ops alone. */
	const char *program;
	struct arena arena;
};

/* What one side's steps are, in words ("host step markers", "inferred
 * runs of jit_step"), into buf; returns buf. */
const char *compare_steps_kind(char *buf, size_t n, enum xt_steps_source s, const char *module);
/* "summed over N devices -> M" into buf when the compared busy time adds
 * up more than one device's on a side (a step's busy time then exceeds the
 * step), else ""; returns buf. */
const char *compare_busy_summed(const struct xt_cmp *c, char *buf, size_t n);
/* Compares two analyses. Never NULL; free with compare_free(). */
struct xt_cmp *compare_new(const struct xt_analysis *base, const struct xt_analysis *new_);
void compare_free(struct xt_cmp *c);

/*
 * An op's label in a comparison, into buf (n bytes, always terminated):
 * PROGRAM/NAME, and for one matched by identity under another name the
 * base's name from where the two differ, cut at a separator ('.', '_',
 * '/', '-'): "jit_step/fusion.20 (was .12)", so that the new name, not the
 * old, is what a narrow column elided in its middle keeps. Can't fail.
 */
void compare_op_label(const struct xt_cmp_op *o, char *buf, size_t n);
/* The same in w columns (0: any), mark for what is left out, and without
 * the program unless with_program (a list whose ops are all in one,
 * xt_cmp.program, names it once). OLD gives way first, then the program;
 * NEW's name is never cut for OLD's tail: "custom-call.10 (was g..14)",
 * or the name alone (still wider than w then, for the column to elide). */
void compare_op_label_fit(const struct xt_cmp_op *o, char *buf, size_t n, int w,
			  const char *mark, int with_program);

#endif
