/* error: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message is one line: a control character a path or a name brought in
 * (a newline in a file name, an escape sequence) is shown escaped. */
static size_t escape(char *out, size_t n, const char *s)
{
	size_t k = 0;

	for (; *s && k + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			k += (size_t)snprintf(out + k, n - k, "\\n");
		else if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
		else
			out[k++] = (char)c;
	}
	out[k] = '\0';
	return k;
}

int xt_error_set(struct xt_error *err, int code, const char *fmt, ...)
{
	char raw[8192], esc[4 * sizeof(raw)];
	size_t n, room = sizeof(err->msg) - 1, head, tail;
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	n = escape(esc, sizeof(esc), raw);
	if (n <= room) {
		memcpy(err->msg, esc, n + 1);
		return code;
	}
	/* Too long (a path of thousands of bytes): its middle goes, so that
	 * the reason at the end ("File name too long") stays. */
	head = (room - 3) / 3;
	tail = room - 3 - head;
	while (head > 0 && ((unsigned char)esc[head] & 0xc0) == 0x80)
		head--; /* not inside a UTF-8 sequence */
	while (tail > 0 && ((unsigned char)esc[n - tail] & 0xc0) == 0x80)
		tail--;
	memcpy(err->msg, esc, head);
	memcpy(err->msg + head, "...", 3);
	memcpy(err->msg + head + 3, esc + n - tail, tail + 1);
	return code;
}
