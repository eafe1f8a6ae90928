/*
 * pbwrite.c - growable message buffers and the streaming output sink of
 * xtop-gen's protobuf writer (see pbwrite.h for the design).
 */
#include "pbwrite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

/* 1 MiB: big enough that write(2)/gzwrite overhead is amortised, small
 * enough to stay cache-friendly in the counting pass. */
#define PB_SINK_CAP (1u << 20)

static _Noreturn void pb_oom(void)
{
	fputs("xtop-gen: out of memory\n", stderr);
	exit(2);
}

void pb_buf_free(struct pb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

uint8_t *pb_buf_reserve(struct pb_buf *b, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len < n)
			cap *= 2;
		uint8_t *d = realloc(b->data, cap);
		if (!d)
			pb_oom();
		b->data = d;
		b->cap = cap;
	}
	return b->data + b->len;
}

void pb_buf_varint_field(struct pb_buf *b, int field, uint64_t v)
{
	uint8_t *p = pb_buf_reserve(b, 11);
	*p++ = PB_TAG(field, PB_VARINT);
	p = pb_wvarint(p, v);
	b->len = (size_t)(p - b->data);
}

void pb_buf_bytes_field(struct pb_buf *b, int field, const void *d, size_t n)
{
	uint8_t *p = pb_buf_reserve(b, 11 + n);
	*p++ = PB_TAG(field, PB_LEN);
	p = pb_wvarint(p, n);
	if (n)
		memcpy(p, d, n);
	b->len = (size_t)(p + n - b->data);
}

void pb_buf_str_field(struct pb_buf *b, int field, const char *s)
{
	pb_buf_bytes_field(b, field, s, strlen(s));
}

void pb_buf_msg_field(struct pb_buf *b, int field, const struct pb_buf *m)
{
	pb_buf_bytes_field(b, field, m->data, m->len);
}

void pb_buf_stat(struct pb_buf *b, int field, uint64_t mid, int kind,
		 uint64_t v, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	/* tag + 2 length bytes worst case + id + value + string */
	uint8_t *p = pb_buf_reserve(b, 32 + n + 2 * pb_varint_len(n));
	p = pb_wstat(p, field, mid, kind, v, s, n);
	b->len = (size_t)(p - b->data);
}

int pb_sink_open(struct pb_sink *s, int mode, int fd, int gz_level)
{
	memset(s, 0, sizeof *s);
	s->mode = mode;
	s->fd = fd;
	s->cap = PB_SINK_CAP;
	s->buf = malloc(s->cap);
	if (!s->buf)
		pb_oom();
	if (mode == PB_SINK_GZ) {
		char gzmode[8];
		snprintf(gzmode, sizeof gzmode, "wb%d", gz_level);
		s->gz = gzdopen(fd, gzmode);
		if (!s->gz) {
			s->err = errno ? errno : ENOMEM;
			return -1;
		}
		/* zlib's own buffer in front of ours only adds a copy. */
		gzbuffer(s->gz, PB_SINK_CAP);
	}
	return 0;
}

static void pb_sink_put(struct pb_sink *s, const uint8_t *d, size_t n)
{
	if (s->err)
		return;
	if (s->mode == PB_SINK_FD) {
		while (n > 0) {
			ssize_t w = write(s->fd, d, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				s->err = w < 0 ? errno : EIO;
				return;
			}
			d += w;
			n -= (size_t)w;
		}
	} else if (s->mode == PB_SINK_GZ) {
		while (n > 0) {
			/* gzwrite takes an unsigned length */
			unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
			if (gzwrite(s->gz, d, chunk) != (int)chunk) {
				int zerr;
				gzerror(s->gz, &zerr);
				s->err = zerr == Z_ERRNO ? errno : EIO;
				return;
			}
			d += chunk;
			n -= chunk;
		}
	}
}

void pb_sink_flush(struct pb_sink *s)
{
	pb_sink_put(s, s->buf, s->len);
	s->flushed += s->len;
	s->len = 0;
}

void pb_sink_write(struct pb_sink *s, const void *d, size_t n)
{
	if (n <= s->cap - s->len) {
		memcpy(s->buf + s->len, d, n);
		s->len += n;
		return;
	}
	pb_sink_flush(s);
	pb_sink_put(s, d, n);
	s->flushed += n;
}

int pb_sink_close(struct pb_sink *s)
{
	pb_sink_flush(s);
	if (s->mode == PB_SINK_GZ && s->gz) {
		int rc = gzclose(s->gz);	/* also closes fd */
		if (rc != Z_OK && !s->err)
			s->err = rc == Z_ERRNO ? errno : EIO;
	} else if (s->mode == PB_SINK_FD) {
		if (close(s->fd) != 0 && !s->err)
			s->err = errno;
	}
	free(s->buf);
	s->buf = NULL;
	return s->err ? -1 : 0;
}
