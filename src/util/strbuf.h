/*
 * strbuf: a growable NUL-terminated string, used by the report and JSON
 * writers, or a buffer in front of a FILE (strbuf_set_sink). The buffer is
 * owned by the strbuf; strbuf_fini() frees it.
 */
#ifndef XT_STRBUF_H
#define XT_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct strbuf {
	char *buf;  /* always NUL-terminated once initialised */
	size_t len;
	size_t cap;
	FILE *sink; /* when set, what does not fit is written out first */
};

void strbuf_init(struct strbuf *sb);
/* From now on, text that would not fit in the buffer pushes the text
 * before it out to f (a report of any size in 256 KiB); strbuf_flush()
 * writes the rest. Only for writers that never read the buffer back. */
void strbuf_set_sink(struct strbuf *sb, FILE *f);
/* Writes the buffer to the sink and empties it. */
void strbuf_flush(struct strbuf *sb);
void strbuf_fini(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* Makes room for extra more bytes and the NUL (strbuf_grow's slow path). */
void strbuf_grow_slow(struct strbuf *sb, size_t extra);

/* Room for extra more bytes and the NUL. */
static inline void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->cap)
		strbuf_grow_slow(sb, extra);
}

/* Inline: the JSON report appends tens of millions of short pieces. */
static inline void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	strbuf_grow(sb, n);
	if (n) /* s may be NULL then (an empty name's bytes): memcpy's is not */
		memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Appends a string literal without measuring it. */
#define strbuf_lit(sb, lit) strbuf_add((sb), "" lit, sizeof(lit) - 1)
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends v in decimal: what "%" PRId64 prints, without printf (the JSON
 * report writes millions of numbers). */
void strbuf_add_i64(struct strbuf *sb, int64_t v);
/* Bytes any int64 takes in decimal, with its sign and the terminator. */
#define STRBUF_I64_MAX 21
/* v in decimal into b (STRBUF_I64_MAX bytes at least, terminated), as
 * "%" PRId64 writes it, without printf; returns its length. */
size_t strbuf_fmt_i64(char *b, int64_t v);
/* Appends s[0..n) as a JSON string literal, quotes included. */
void strbuf_json_str(struct strbuf *sb, const char *s, size_t n);

#endif
