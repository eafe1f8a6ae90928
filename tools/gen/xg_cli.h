/*
 * xg_cli.h - the command line of xtop-gen: options, their checks and the
 * help text.
 */
#ifndef XTOP_GEN_XG_CLI_H
#define XTOP_GEN_XG_CLI_H

struct xg_cfg;

/* Fills cfg from the arguments; prints help and exits 0 for -h/--help, and
 * exits 2 with a message on any bad argument. */
void xg_cli_parse(int argc, char **argv, struct xg_cfg *cfg);

#endif
