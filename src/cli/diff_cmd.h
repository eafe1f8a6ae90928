/*
 * diff_cmd: `xtop diff BASE NEW` — two profiles compared (model/compare.h)
 * as text or one JSON object — and the regression gate of
 * `xtop report NEW --baseline BASE --fail-over PCT`, which shares the
 * comparison and its printing.
 */
#ifndef XT_DIFF_CMD_H
#define XT_DIFF_CMD_H

#include "../model/compare.h"
#include "../util/strbuf.h"

/* Appends the comparison as text fitted to width (0 = no limit), the top
 * `top` ops (0 = all). Can't fail. */
void diff_text(struct strbuf *o, const struct xt_cmp *c, const char *base, const char *new_,
	       size_t top, int width);
/* Appends the comparison as a JSON object (no trailing newline). */
void diff_json(struct strbuf *o, const struct xt_cmp *c, size_t top);

#define DIFF_GATE_TOP 20		     /* ops of NEW the gate looks at */
#define DIFF_GATE_MAX (DIFF_GATE_TOP + 2) /* regressions it can find */

/* One thing that got worse. Strings point into the comparison. */
struct diff_regression {
	/* "step_mean", "busy", "op", or what NEW lost: "no_steps" or
	 * "no_device_time" (new_ps 0). */
	const char *what;
	const char *program; /* "" unless an op */
	const char *name;
	const char *base_name; /* an op: its match in BASE ("" when added) */
	double base_ps, new_ps; /* NAN for no_steps */
	double delta_percent; /* NAN for an added op and what NEW lost */
	int added;            /* an op only in NEW, among its top 20 */
	size_t base_steps;    /* no_steps: BASE's step count */
};

/*
 * The regression gate: where NEW is worse than BASE by more than pct
 * percent: its step time (mean; the summed device busy time when either
 * has no steps), the self time of any of NEW's top 20 ops, or an op new
 * among them; and NEW without the steps or the device time BASE has.
 * Fills out[DIFF_GATE_MAX]; returns how many.
 */
size_t diff_gate(const struct xt_cmp *c, double pct, struct diff_regression *out);
/* One line per regression. */
void diff_gate_text(struct strbuf *o, const struct diff_regression *r, size_t n, double pct);
/* {"fail_over_percent", "failed", "regressions": [...]}. */
void diff_gate_json(struct strbuf *o, const struct diff_regression *r, size_t n, double pct);

/* `xtop diff [options] BASE NEW`: returns the process exit status. */
int diff_main(int argc, char **argv);

#endif
