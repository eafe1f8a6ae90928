/*
 * wire_put: the protobuf encoder's half of wire.h, onto a strbuf: the few
 * writers that make XSpace bytes (xplane_writer's additions, xspace_merge's
 * merged planes) share it.
 */
#ifndef XT_WIRE_PUT_H
#define XT_WIRE_PUT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "wire.h"

static inline void wire_put_varint(struct strbuf *b, uint64_t v)
{
	char c[10];
	size_t n = 0;

	do {
		c[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	strbuf_add(b, c, n);
}

static inline void wire_put_tag(struct strbuf *b, uint32_t field, unsigned type)
{
	wire_put_varint(b, (uint64_t)field << 3 | type);
}

/* A length-delimited field: bytes, a string or an embedded message. */
static inline void wire_put_bytes(struct strbuf *b, uint32_t field, const void *p, size_t n)
{
	wire_put_tag(b, field, 2);
	wire_put_varint(b, n);
	strbuf_add(b, p, n);
}

/* A varint field (int64 values as their two's complement, as protobuf). */
static inline void wire_put_uint(struct strbuf *b, uint32_t field, uint64_t v)
{
	wire_put_tag(b, field, 0);
	wire_put_varint(b, v);
}

/* A map<int64, message> entry as field `field`: {1: key (left out when 0,
 * as protobuf does), 2: the value's n bytes}, written at once (tags of
 * fields below 16 take a byte). */
static inline void wire_put_entry(struct strbuf *b, uint32_t field, int64_t key, const void *v,
				  size_t n)
{
	size_t len = 1 + wire_varint_len(n) + n;

	if (key)
		len += 1 + wire_varint_len((uint64_t)key);
	wire_put_tag(b, field, 2);
	wire_put_varint(b, len);
	if (key)
		wire_put_uint(b, 1, (uint64_t)key);
	wire_put_bytes(b, 2, v, n);
}

#endif
