/*
 * xg_die.h - fatal errors of xtop-gen.
 *
 * Every failure (bad arguments, I/O, out of memory, a plan that does not
 * match the bytes regenerated from it) ends the program with one line on
 * stderr and exit status 2.
 */
#ifndef XTOP_GEN_XG_DIE_H
#define XTOP_GEN_XG_DIE_H

/* Prints "xtop-gen: ", the formatted message and a newline to stderr, then
 * exits with status 2. */
_Noreturn void xg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
