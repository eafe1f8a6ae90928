/*
 * abuf: the agent's growable byte buffer and protobuf encoder. Unlike
 * xtop's strbuf it never exits on a failed allocation (the agent lives in
 * someone else's process): the buffer turns `oom` on, ignores later
 * writes, and the caller reports the failure once. Header-only; the
 * buffer owns its bytes (abuf_fini()).
 */
#ifndef XT_ABUF_H
#define XT_ABUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct abuf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};

static inline void abuf_init(struct abuf *b)
{
	memset(b, 0, sizeof(*b));
}

static inline void abuf_fini(struct abuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static inline int abuf_reserve(struct abuf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return -1;
	if (b->n + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->n + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static inline void abuf_put(struct abuf *b, const void *p, size_t n)
{
	if (n && abuf_reserve(b, n) == 0) {
		memcpy(b->p + b->n, p, n);
		b->n += n;
	}
}

static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Encodes v into c (10 bytes at most); returns the length. */
static inline size_t pb_varint_encode(uint8_t *c, uint64_t v)
{
	size_t n = 0;

	do {
		c[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static inline void abuf_varint(struct abuf *b, uint64_t v)
{
	uint8_t c[10];

	abuf_put(b, c, pb_varint_encode(c, v));
}

static inline void abuf_tag(struct abuf *b, uint32_t field, unsigned type)
{
	abuf_varint(b, (uint64_t)field << 3 | type);
}

static inline void abuf_uint(struct abuf *b, uint32_t field, uint64_t v)
{
	abuf_tag(b, field, 0);
	abuf_varint(b, v);
}

static inline void abuf_bytes(struct abuf *b, uint32_t field, const void *p, size_t n)
{
	abuf_tag(b, field, 2);
	abuf_varint(b, n);
	abuf_put(b, p, n);
}

static inline void abuf_double(struct abuf *b, uint32_t field, double v)
{
	uint8_t c[8];

	memcpy(c, &v, 8); /* little-endian hosts only, as everywhere PJRT runs */
	abuf_tag(b, field, 1);
	abuf_put(b, c, 8);
}

#endif
