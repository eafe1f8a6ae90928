/*
 * strbuf: a growable NUL-terminated string, used by the report and JSON
 * writers. The buffer is owned by the strbuf; strbuf_fini() frees it.
 */
#ifndef XT_STRBUF_H
#define XT_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;  /* always NUL-terminated once initialised */
	size_t len;
	size_t cap;
};

void strbuf_init(struct strbuf *sb);
void strbuf_fini(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s[0..n) as a JSON string literal, quotes included. */
void strbuf_json_str(struct strbuf *sb, const char *s, size_t n);

#endif
