/*
 * wire: a bounds-checked protobuf wire-format cursor.
 *
 * xtop decodes XSpace with this streaming reader rather than protobuf-c's
 * unpack: unpacking allocates per event and copies every string, which cannot
 * meet the memory target (peak RSS <= file size) on multi-GB profiles.
 * Every read checks the end of its buffer; a malformed message turns the
 * cursor's `bad` flag on and all later reads return zero, so callers check
 * once per message instead of after every field.
 */
#ifndef XT_WIRE_H
#define XT_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum wire_type {
	WIRE_VARINT = 0,
	WIRE_I64 = 1,
	WIRE_LEN = 2,
	WIRE_I32 = 5,
};

struct wire {
	const uint8_t *p;   /* next byte */
	const uint8_t *end; /* one past the last byte */
	int bad;            /* set on the first malformed read */
};

/* Bytes v takes as a varint (for writers: wire_put.h, the agent's abuf). */
static inline size_t wire_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline void wire_init(struct wire *w, const uint8_t *p, size_t n)
{
	static const uint8_t none[1];

	/* An empty message may come as NULL; NULL + 0 is undefined in C. */
	w->p = p ? p : none;
	w->end = p ? p + n : none;
	w->bad = 0;
}

static inline int wire_more(const struct wire *w)
{
	return !w->bad && w->p < w->end;
}

static inline uint64_t wire_varint_slow(struct wire *w)
{
	uint64_t v = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (w->p >= w->end)
			break;
		b = *w->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	w->bad = 1;
	w->p = w->end;
	return 0;
}

static inline uint64_t wire_varint(struct wire *w)
{
	const uint8_t *p = w->p;

	/* Fast path: with ten bytes in reach no byte needs its own bounds
	 * check (timestamps and durations take five to seven bytes). */
	if (w->end - p >= 10) {
		uint64_t v = p[0];
		int i;

		if (!(v & 0x80)) {
			w->p = p + 1;
			return v;
		}
		v &= 0x7f;
		for (i = 1; i < 10; i++) {
			uint64_t b = p[i];

			v |= (b & 0x7f) << (7 * i);
			if (!(b & 0x80)) {
				w->p = p + i + 1;
				return v;
			}
		}
		w->bad = 1;
		w->p = w->end;
		return 0;
	}
	return wire_varint_slow(w);
}

/* The varint that starts x (8 bytes read little-endian from the buffer):
 * its value, with its length in *len; 0 in *len when it runs past the 8
 * bytes. Finds the first byte without the continuation bit, then squeezes
 * out the 7-bit groups without a loop. */
static inline __attribute__((always_inline)) uint64_t wire_varint8(uint64_t x, unsigned *len)
{
	uint64_t stop = ~x & 0x8080808080808080ull;

	if (!stop) {
		*len = 0;
		return 0;
	}
	*len = (unsigned)__builtin_ctzll(stop) / 8 + 1;
	if (*len < 8)
		x &= (1ull << (8 * *len)) - 1;
	x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
	x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
	return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

static inline uint64_t wire_fixed64(struct wire *w)
{
	uint64_t v = 0;
	int i;

	if (w->end - w->p < 8) {
		w->bad = 1;
		w->p = w->end;
		return 0;
	}
	for (i = 7; i >= 0; i--)
		v = (v << 8) | w->p[i];
	w->p += 8;
	return v;
}

/* Reads a length prefix and returns the payload start; *n gets its size. */
static inline const uint8_t *wire_bytes(struct wire *w, size_t *n)
{
	uint64_t len = wire_varint(w);
	const uint8_t *p = w->p;

	if (w->bad || len > (uint64_t)(w->end - w->p)) {
		w->bad = 1;
		w->p = w->end;
		*n = 0;
		return p;
	}
	w->p += len;
	*n = (size_t)len;
	return p;
}

/* Skips a field of the given wire type (groups are rejected as malformed). */
static inline void wire_skip(struct wire *w, unsigned type)
{
	size_t n;

	switch (type) {
	case WIRE_VARINT:
		(void)wire_varint(w);
		break;
	case WIRE_I64:
		if (w->end - w->p < 8) {
			w->bad = 1;
			w->p = w->end;
		} else {
			w->p += 8;
		}
		break;
	case WIRE_LEN:
		(void)wire_bytes(w, &n);
		break;
	case WIRE_I32:
		if (w->end - w->p < 4) {
			w->bad = 1;
			w->p = w->end;
		} else {
			w->p += 4;
		}
		break;
	default:
		w->bad = 1;
		w->p = w->end;
	}
}

/* Reads a tag: *field gets the field number, returns the wire type. A field
 * number of 0, or above protobuf's largest (2^29 - 1), is malformed: cut to
 * 32 bits, a larger one would read as another field. */
static inline unsigned wire_tag(struct wire *w, uint32_t *field)
{
	uint64_t t = wire_varint(w);

	*field = (uint32_t)(t >> 3);
	if (!w->bad && (t >> 3) - 1 >= (1u << 29) - 1) {
		w->bad = 1;
		w->p = w->end;
	}
	return (unsigned)(t & 7);
}

/* The next stat of a message whose stats are its field 4, other fields
 * skipped: 1 with its bytes in *sb, *sn; 0 at the end, or when the rest is
 * malformed. Upstream's shape, a one-byte tag and length, is read without
 * the general tag reader. */
static inline int wire_next_stat(struct wire *w, const uint8_t **sb, size_t *sn)
{
	while (wire_more(w)) {
		uint32_t f;
		unsigned t;

		if (w->end - w->p >= 2 && w->p[0] == 0x22 && w->p[1] < 0x80) {
			*sn = w->p[1];
			*sb = w->p + 2;
			if (*sn > (size_t)(w->end - *sb)) {
				w->bad = 1;
				w->p = w->end;
				return 0;
			}
			w->p = *sb + *sn;
			return 1;
		}
		t = wire_tag(w, &f);
		if (f != 4 || t != WIRE_LEN) {
			wire_skip(w, t);
			continue;
		}
		*sb = wire_bytes(w, sn);
		return !w->bad;
	}
	return 0;
}

/*
 * An XStat as upstream writes it (sb: its n bytes, after its tag and length):
 * metadata_id first, in one or two varint bytes (ids below 16384), then the
 * value. Sets *id and *v (the value's tag); returns -1 for any other shape.
 */
static inline int wire_stat_head(const uint8_t *sb, size_t n, unsigned *id, const uint8_t **v)
{
	if (n < 2 || sb[0] != 0x08)
		return -1;
	if (sb[1] < 0x80) {
		*id = sb[1];
		*v = sb + 2;
		return 0;
	}
	if (n >= 3 && sb[2] < 0x80) {
		*id = (sb[1] & 0x7fu) | (unsigned)sb[2] << 7;
		*v = sb + 3;
		return 0;
	}
	return -1;
}

/* The integer value (int64 or uint64, the varint filling the rest) at v, up
 * to end, as an int64; -1 when the value is anything else. */
static inline int wire_stat_int(const uint8_t *v, const uint8_t *end, int64_t *out)
{
	struct wire w;
	uint64_t x;

	if (end - v < 2 || (v[0] != 0x18 && v[0] != 0x20))
		return -1;
	wire_init(&w, v + 1, (size_t)(end - v - 1));
	x = wire_varint(&w);
	if (w.bad || w.p != w.end)
		return -1;
	*out = (int64_t)x;
	return 0;
}

#endif
