/* error: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int xt_error_set(struct xt_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}
