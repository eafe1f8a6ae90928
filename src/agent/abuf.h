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

/* The length of the valid UTF-8 sequence at s (n bytes left), else 0:
 * overlong forms, surrogates and code points above U+10FFFF are invalid,
 * as protobuf's parsers hold them. */
static inline size_t abuf_u8_seq(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xbf;
	size_t k, len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return len;
}

/*
 * s[0..n) as valid UTF-8 into out (room for n + 1 bytes; out may be s):
 * a sequence cut short by the end is dropped (a name cut at a length
 * limit, a thread name the kernel keeps 15 bytes of), and every other byte
 * that starts no valid sequence becomes '?'. Returns the bytes written;
 * out is NUL-terminated.
 */
static inline size_t abuf_u8_fix(char *out, const char *s, size_t n)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t i = 0, o = 0;

	while (i < n) {
		size_t k = abuf_u8_seq(u + i, n - i);

		if (k) {
			memmove(out + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		/* A lead byte whose sequence only lacks bytes past the end. */
		if (u[i] >= 0xc2 && u[i] <= 0xf4) {
			size_t j = i + 1;

			while (j < n && u[j] >= 0x80 && u[j] <= 0xbf)
				j++;
			if (j == n && j - i < (u[i] >= 0xf0 ? 4u : u[i] >= 0xe0 ? 3u : 2u))
				break;
		}
		out[o++] = '?';
		i++;
	}
	out[o] = '\0';
	return o;
}

/* A string field: protobuf's parsers (TensorBoard's, XProf's) reject a
 * whole XSpace over one string that is not valid UTF-8, so s is mended
 * first when it needs to be (abuf_u8_fix). */
static inline void abuf_text(struct abuf *b, uint32_t field, const char *s, size_t n)
{
	size_t i = 0;
	char *t;

	while (i < n && abuf_u8_seq((const uint8_t *)s + i, n - i))
		i += abuf_u8_seq((const uint8_t *)s + i, n - i);
	if (i == n) {
		abuf_bytes(b, field, s, n);
		return;
	}
	t = malloc(n + 1);
	if (!t) {
		b->oom = 1;
		return;
	}
	abuf_bytes(b, field, t, abuf_u8_fix(t, s, n));
	free(t);
}

static inline void abuf_double(struct abuf *b, uint32_t field, double v)
{
	uint8_t c[8];

	memcpy(c, &v, 8); /* little-endian hosts only, as everywhere PJRT runs */
	abuf_tag(b, field, 1);
	abuf_put(b, c, 8);
}

#endif
