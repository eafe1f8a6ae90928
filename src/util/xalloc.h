/*
 * xalloc: allocation that cannot fail from the caller's point of view.
 *
 * Out-of-memory on internal allocations is a programmer-level failure for a
 * viewer (style rule 12a): these wrappers print one line and exit(3) rather
 * than returning NULL into code that would have to unwind. Bad *input* never
 * comes through here; it is reported through struct xt_error.
 */
#ifndef XT_XALLOC_H
#define XT_XALLOC_H

#include <stddef.h>

/* Each returns memory owned by the caller (free with free()); never NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Called by fatal() first, when set: the viewer restores the terminal. */
extern void (*xt_fatal_hook)(void);

/* Prints "xtop: " + the message to stderr and exits with status 3. */
void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
