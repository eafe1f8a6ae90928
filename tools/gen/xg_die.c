/*
 * xg_die.c - fatal error reporting of xtop-gen (see xg_die.h).
 */
#include "xg_die.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void xg_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("xtop-gen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}
