/*
 * pbwrite.h - a minimal protobuf wire-format writer for xtop-gen.
 *
 * Two layers:
 *  - pb_buf: a growable buffer for small messages (metadata maps, plane
 *    stats) that are built whole and then copied out;
 *  - pb_sink: a bounded output window that streams bytes to a file
 *    descriptor, to a gzip stream, or nowhere (counting mode). Counting mode
 *    lets the generator run a sizing pass that learns every nested message
 *    length before the real pass writes the length prefixes, so the output
 *    never has to be held in memory.
 * The per-event encoders are static inline and write through raw pointers
 * into space reserved with pb_sink_reserve(), because the generator emits
 * hundreds of millions of events and a function call per field would cost
 * more than the encoding itself.
 */
#ifndef XTOP_GEN_PBWRITE_H
#define XTOP_GEN_PBWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

/* One-byte tags are enough for every field number in xplane.proto but
 * XLine.display_id (10) and display_name (11), which xtop-gen never writes. */
#define PB_TAG(field, wire) ((uint8_t)(((field) << 3) | (wire)))

/* XStat value fields (the oneof in xplane.proto). */
enum pb_stat_kind {
	PB_STAT_DOUBLE = 2,
	PB_STAT_U64 = 3,
	PB_STAT_I64 = 4,
	PB_STAT_STR = 5,
	PB_STAT_REF = 7
};

static inline size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *pb_wvarint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *pb_wfixed64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* Closes a length-delimited field opened by leaving one byte for its length
 * at lenpos. Bodies under 128 bytes (nearly all) need no move; longer ones
 * are shifted right to make room for a longer varint. */
static inline uint8_t *pb_wclose(uint8_t *lenpos, uint8_t *end)
{
	size_t n = (size_t)(end - lenpos - 1);
	if (n < 0x80) {
		*lenpos = (uint8_t)n;
		return end;
	}
	size_t extra = pb_varint_len(n) - 1;
	memmove(lenpos + 1 + extra, lenpos + 1, n);
	pb_wvarint(lenpos, n);
	return end + extra;
}

/* Writes one XStat as field `field` of the enclosing message. For string
 * kinds `s` is the value (len bytes), otherwise `v` is (double bits for
 * PB_STAT_DOUBLE). The stat must stay under 128 bytes unless the caller
 * reserved room for pb_wclose() to grow it. */
static inline uint8_t *pb_wstat(uint8_t *p, int field, uint64_t mid, int kind,
				uint64_t v, const char *s, size_t len)
{
	*p++ = PB_TAG(field, PB_LEN);
	uint8_t *lp = p++;
	*p++ = PB_TAG(1, PB_VARINT);
	p = pb_wvarint(p, mid);
	if (kind == PB_STAT_DOUBLE) {
		*p++ = PB_TAG(PB_STAT_DOUBLE, PB_I64);
		p = pb_wfixed64(p, v);
	} else if (kind == PB_STAT_STR) {
		*p++ = PB_TAG(PB_STAT_STR, PB_LEN);
		p = pb_wvarint(p, len);
		memcpy(p, s, len);
		p += len;
	} else {
		*p++ = PB_TAG(kind, PB_VARINT);
		p = pb_wvarint(p, v);
	}
	return pb_wclose(lp, p);
}

/* ---- pb_buf: growable buffer for small whole messages ---- */

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
};

void pb_buf_free(struct pb_buf *b);
/* Returns a pointer to at least n free bytes (exits on out-of-memory). */
uint8_t *pb_buf_reserve(struct pb_buf *b, size_t n);
void pb_buf_varint_field(struct pb_buf *b, int field, uint64_t v);
void pb_buf_bytes_field(struct pb_buf *b, int field, const void *d, size_t n);
void pb_buf_str_field(struct pb_buf *b, int field, const char *s);
/* Appends field `field` holding message m (tag, length, bytes). */
void pb_buf_msg_field(struct pb_buf *b, int field, const struct pb_buf *m);
void pb_buf_stat(struct pb_buf *b, int field, uint64_t mid, int kind,
		 uint64_t v, const char *s);

/* ---- pb_sink: streaming output window ---- */

enum pb_sink_mode { PB_SINK_COUNT, PB_SINK_FD, PB_SINK_GZ };

struct pb_sink {
	uint8_t *buf;
	size_t len, cap;
	uint64_t flushed;	/* bytes handed on before buf[0] */
	int mode;
	int fd;
	void *gz;		/* gzFile when mode == PB_SINK_GZ */
	int err;		/* errno-style code of the first failure */
};

/* Opens a sink; for PB_SINK_GZ the fd is handed to zlib (gzdopen). Returns
 * 0, or -1 with err set. */
int pb_sink_open(struct pb_sink *s, int mode, int fd, int gz_level);
void pb_sink_flush(struct pb_sink *s);
/* Closes the sink (and the fd it owns); returns 0 or -1 if any write failed. */
int pb_sink_close(struct pb_sink *s);
void pb_sink_write(struct pb_sink *s, const void *d, size_t n);

/* Largest single reservation: the window (1 MiB) always has this much room
 * after a flush. Callers keep one encoded event or header below it. */
#define PB_SINK_MAX_RESERVE 4096

static inline uint8_t *pb_sink_reserve(struct pb_sink *s, size_t n)
{
	if (s->cap - s->len < n)
		pb_sink_flush(s);
	return s->buf + s->len;
}

static inline void pb_sink_commit(struct pb_sink *s, uint8_t *end)
{
	s->len = (size_t)(end - s->buf);
}

static inline uint64_t pb_sink_pos(const struct pb_sink *s)
{
	return s->flushed + s->len;
}

#endif
