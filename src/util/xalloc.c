/*
 * xalloc: see xalloc.h. fatal() is the single exit path for internal
 * failures; a UI registers nothing here yet, so the terminal restore hook is
 * a function pointer that the UI layer may set (it keeps util free of curses).
 */
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*xt_fatal_hook)(void);

void fatal(const char *fmt, ...)
{
	va_list ap;

	if (xt_fatal_hook)
		xt_fatal_hook();
	fputs("xtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		fatal("allocation overflow (%zu x %zu)", nmemb, size);
	return xrealloc(p, nmemb * size);
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}
