/*
 * options: command-line options as one table (style rule 19) from which both
 * getopt_long's arrays and the --help text are generated.
 */
#ifndef XT_OPTIONS_H
#define XT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct xt_option {
	int id;            /* returned by options_id(); 0 ends the table */
	char shortopt;     /* 0 = long only */
	const char *name;  /* long name */
	int has_arg;
	const char *arg;   /* argument name in help */
	const char *help;  /* lowercase, no full stop */
};

/* Fills lopts (at least n+1 entries) and sopts from table. */
void options_build(const struct xt_option *table, struct option *lopts, char *sopts,
		   size_t sopts_size);
/* Maps getopt_long's return value to the option's id (0 if unknown). */
int options_id(const struct xt_option *table, int c);
void options_usage(FILE *f, const char *usage, const char *about, const struct xt_option *table);

/* Every rejected option is one line on stderr that names the option and what
 * it accepts, and the command exits 2 (the callers return it). */

/* Parses v, the value of option opt ("--every"), as a whole number in
 * [min, max] (max OPTIONS_NO_MAX: no upper bound). On success stores it in
 * *out and returns 0; otherwise prints e.g. "xtop: --every needs a number of
 * seconds from 1 to 604800, not '0'" (what = "a number of seconds") and
 * returns -1. */
#define OPTIONS_NO_MAX (~0ull)
int options_number(const char *opt, const char *v, unsigned long long min, unsigned long long max,
		   const char *what, unsigned long long *out);
/* Prints the line for getopt_long's '?' (unknown option) or ':' (missing
 * value; the line then carries the option's help, which says what it
 * takes) for the command cmd ("xtop report"). Call right after getopt_long
 * returned c. */
void options_error(const struct xt_option *table, int c, char *const *argv, const char *cmd);

/* Parses v as seconds with decimals ("5", "0.5", "2.125"), from 0.1 to
 * max_s, into *ms (rounded to the millisecond): 0, or -1 (nothing
 * printed: the caller says what it is for). */
int options_seconds(const char *v, double max_s, uint64_t *ms);

/* Prints "xtop: " and the formatted line on stderr, the control
 * characters in it (from what the user typed) escaped: always one line. */
void options_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether everything written to stdout got there: flushes it, and on an
 * error (a full disk, a closed pipe) now or in an earlier write prints
 * "xtop: stdout: REASON" and returns -1; else 0. A command that printed
 * its answer exits 1 on -1, so that a script never takes a cut answer. */
int options_stdout_done(void);

#endif
