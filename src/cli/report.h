/*
 * report: `xtop report` — prints what the viewer shows, as text for people
 * or as one JSON object (--json) for scripts. The JSON field names are a
 * stable interface: fields are added, never renamed.
 */
#ifndef XT_REPORT_H
#define XT_REPORT_H

#include "../model/analysis.h"
#include "../model/compare.h"
#include "../model/trace.h"
#include "../util/strbuf.h"

struct diff_regression;

struct report_opts {
	size_t top;       /* op and kernel rows in the text report; 0 = all */
	int top_given;    /* --top given: the JSON lists as many too (else all) */
	const char *path; /* as given on the command line */
	/* The run read of a logdir of several (run_name NULL otherwise), of
	 * nruns; run_given: --run named it, else it is the newest. */
	const char *run_name;
	size_t nruns;
	int run_given;
	int width;        /* text: columns to fit; 0 = no limit (--wide) */
	/* --baseline: the comparison with BASE (NULL without one) and, with
	 * --fail-over, the gate's verdict (gate = 1). */
	const struct xt_cmp *cmp;
	const char *baseline;
	int gate;
	double fail_over;
	const struct diff_regression *reg;
	size_t nreg;
};

/* Append the report to out. Can't fail. */
void report_text(struct strbuf *out, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *o);
void report_json(struct strbuf *out, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *o);

/* The overview section (report_overview.c), and its bar per step: cols
 * columns of block characters (ASCII when !utf8). */
void report_overview(struct strbuf *out, const struct xt_trace *t, const struct xt_analysis *a,
		     int width);
void report_step_bars(struct strbuf *out, const struct xt_analysis *a, int cols, int utf8);

/* `xtop report [options] PATH`: returns the process exit status. */
int report_main(int argc, char **argv);

#endif
