/*
 * options: command-line options as one table (style rule 19) from which both
 * getopt_long's arrays and the --help text are generated.
 */
#ifndef XT_OPTIONS_H
#define XT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
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

#endif
