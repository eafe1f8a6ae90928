/* strbuf: see strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void strbuf_init(struct strbuf *sb)
{
	sb->cap = 256;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
	sb->len = 0;
	sb->sink = NULL;
}

#define SINK_BUF ((size_t)256 << 10)

void strbuf_set_sink(struct strbuf *sb, FILE *f)
{
	sb->sink = f;
	if (sb->cap < SINK_BUF) {
		sb->cap = SINK_BUF;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
}

void strbuf_flush(struct strbuf *sb)
{
	if (sb->sink && sb->len)
		fwrite(sb->buf, 1, sb->len, sb->sink);
	sb->len = 0;
	sb->buf[0] = '\0';
}

void strbuf_fini(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void strbuf_grow_slow(struct strbuf *sb, size_t extra)
{
	if (sb->sink) {
		strbuf_flush(sb);
		if (extra + 1 <= sb->cap)
			return;
	}
	while (sb->len + extra + 1 > sb->cap)
		sb->cap *= 2;
	sb->buf = xrealloc(sb->buf, sb->cap);
}

/* Two digits at a time: half the divisions of one at a time. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
				  "25262728293031323334353637383940414243444546474849"
				  "50515253545556575859606162636465666768697071727374"
				  "75767778798081828384858687888990919293949596979899";

/* v in decimal, written backwards to end (at least 20 bytes before it, not
 * terminated); returns where it starts. */
static char *i64_digits(char *end, int64_t v)
{
	char *p = end;
	/* The magnitude as unsigned, so INT64_MIN negates without overflow. */
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	while (u >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
	return p;
}

size_t strbuf_fmt_i64(char *b, int64_t v)
{
	char tmp[STRBUF_I64_MAX], *end = tmp + sizeof(tmp) - 1, *p = i64_digits(end, v);
	size_t n = (size_t)(end - p);

	memcpy(b, p, n);
	b[n] = '\0';
	return n;
}

/* Straight from the digits: the JSON writer's numbers are copied once. */
void strbuf_add_i64(struct strbuf *sb, int64_t v)
{
	char tmp[STRBUF_I64_MAX], *end = tmp + sizeof(tmp), *p = i64_digits(end, v);

	strbuf_add(sb, p, (size_t)(end - p));
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		strbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void strbuf_json_str(struct strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	strbuf_grow(sb, n + 2);
	sb->buf[sb->len++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			strbuf_add(sb, esc, 2);
		} else if (c == '\n') {
			strbuf_add(sb, "\\n", 2);
		} else if (c == '\t') {
			strbuf_add(sb, "\\t", 2);
		} else if (c >= 0x80) {
			/* Pass valid UTF-8 through; replace anything else so
			 * the output stays valid JSON. */
			size_t k = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			size_t j;

			for (j = 1; k && j < k; j++)
				if (i + j >= n || ((unsigned char)s[i + j] & 0xc0) != 0x80)
					k = 0;
			if (k) {
				strbuf_add(sb, s + i, k);
				i += k - 1;
			} else {
				strbuf_add(sb, "\\ufffd", 6);
			}
		} else if (c < 0x20 || c == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			strbuf_add(sb, esc, 6);
		} else {
			strbuf_grow(sb, 1);
			sb->buf[sb->len++] = (char)c;
		}
	}
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = '"';
	sb->buf[sb->len] = '\0';
}
