/*
 * stats: decoding XStat values on demand from the mapped source.
 *
 * Upstream semantics (xplane_visitor.h): a stat's name comes from the
 * plane's stat_metadata; a ref_value stat's string is the name of the stat
 * metadata it points to; event stats are separate from metadata stats and a
 * lookup on an event reads the event's first, then its metadata's.
 * Strings returned point into the source or the trace arena: valid until
 * trace_free(), not NUL-terminated (use the length).
 */
#ifndef XT_STATS_H
#define XT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "wire.h"

enum xt_stat_kind {
	XT_STAT_NONE = 0,
	XT_STAT_DOUBLE,
	XT_STAT_UINT,
	XT_STAT_INT,
	XT_STAT_STR,
	XT_STAT_BYTES,
	XT_STAT_REF,        /* s/n hold the referenced stat metadata's name */
	XT_STAT_COMPRESSED, /* gzip'd string; s/n hold the compressed bytes */
};

struct xt_stat {
	int64_t meta_id;
	const struct xt_stat_meta *meta; /* NULL when the id is unknown */
	enum xt_stat_kind kind;
	double d;
	uint64_t u;  /* UINT, REF (the id) */
	int64_t i;
	const char *s;
	size_t n;
};

struct stat_iter {
	struct wire w;
	const struct xt_plane *plane;
	uint32_t field; /* the repeated XStat field of the enclosing message */
};

/* Iterates the stats of an event, of an event metadata, or of a plane's i-th
 * plane stat. Can't fail; malformed bytes simply end the iteration. */
void stat_iter_event(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l, const struct xt_event *ev);
/* The stats of an XEvent encoded in [b, b + n) (as the reader found it). */
void stat_iter_event_bytes(struct stat_iter *it, const struct xt_plane *p, const uint8_t *b,
			   size_t n);
void stat_iter_meta(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		    const struct xt_event_meta *m);
void stat_iter_plane(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		     size_t i);
/* Fills *out with the next stat; returns 0 at the end. */
int stat_next(struct stat_iter *it, struct xt_stat *out);

/* Decodes one encoded XStat of plane p into *out; returns 0 if malformed. */
int stat_decode_one(const struct xt_plane *p, const uint8_t *b, size_t n, struct xt_stat *out);

/* Stat [b, b + n) in upstream's usual shape for a loop that reads millions
 * (the event scan, the memory reader): a metadata id under 128, then one
 * varint, or a string under 128 bytes, nothing after. Into *out as
 * stat_decode_one() would decode it, with no call; 0 (out untouched) for
 * any other shape, which stat_decode_one() then reads. */
static inline __attribute__((always_inline)) int
stat_decode_usual(const struct xt_plane *plane, const uint8_t *b, size_t n, struct xt_stat *out)
{
	const uint8_t *v = b + 3, *e = b + n;
	struct xt_stat s = { 0 };

	if (n < 4 || b[0] != 0x08 || b[1] >= 0x80)
		return 0;
	s.meta_id = b[1];
	switch (b[2]) {
	case 0x18: /* uint64 */
	case 0x20: /* int64 */
	case 0x38: { /* ref */
		struct wire w;

		wire_init(&w, v, (size_t)(e - v));
		s.u = wire_varint(&w);
		if (w.bad || w.p != w.end)
			return 0;
		s.i = (int64_t)s.u;
		s.kind = b[2] == 0x18 ? XT_STAT_UINT : b[2] == 0x20 ? XT_STAT_INT : XT_STAT_REF;
		break;
	}
	case 0x2a: /* str */
	case 0x32: /* bytes */
	case 0x42: /* compressed str */
		if (v[0] >= 0x80 || (size_t)v[0] != n - 4)
			return 0;
		s.s = (const char *)v + 1;
		s.n = v[0];
		s.kind = b[2] == 0x2a ? XT_STAT_STR : b[2] == 0x32 ? XT_STAT_BYTES : XT_STAT_COMPRESSED;
		break;
	default:
		return 0;
	}
	s.meta = trace_smeta_lookup(plane, s.meta_id);
	if (s.kind == XT_STAT_REF) {
		const struct xt_stat_meta *r = trace_smeta_lookup(plane, (int64_t)s.u);

		s.s = r ? r->name : "";
		s.n = r ? r->name_len : 0;
	}
	*out = s;
	return 1;
}

/* A set of well-known stats to look for, resolved to the plane's ids once,
 * so that scanning an event compares integers instead of decoding every
 * stat (the hot path of the analyses). */
#define XT_WANT_MAX 16
struct stat_want {
	uint64_t mask; /* bits of enum xt_known_stat */
	int n;
	int64_t id[XT_WANT_MAX];
	uint8_t known[XT_WANT_MAX];
	uint8_t of_id[256]; /* for ids < 256: index into id[] + 1, 0 = not wanted */
};
void stat_want_init(struct stat_want *sw, const struct xt_plane *p, uint64_t mask);
/* Whether stat metadata id is one that sw asks for. */
int stat_want_has(const struct stat_want *sw, int64_t id);
/* Fills out[k] for each wanted stat k found among the event's own stats
 * (the first occurrence wins); *found gets their bits. Returns the count. */
int stat_scan_event(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		    const struct xt_event *ev, const struct stat_want *want, struct xt_stat *out,
		    uint64_t *found);

/* The stats of an event that want asks for, as raw bytes, for a caller that
 * keeps what it decoded from the same bytes before: each such stat's length
 * byte and bytes, in event order, go to key (at most cap bytes); the first
 * stat with id corr_id is read as an integer into *corr (INT64_MIN: none).
 * Returns the key's length, or -1 when a stat is framed otherwise than
 * upstream writes (tag, one-byte length, metadata_id first in one or two
 * bytes), the correlation is not an integer, or the key does not fit:
 * decode then. */
int stat_scan_raw(const struct xt_host *h, const struct xt_line *l, const struct xt_event *ev,
		  const struct stat_want *want, int64_t corr_id, uint8_t *key, size_t cap,
		  int64_t *corr);
/* Value as an integer (int, uint, double truncated, decimal string); 0 if none. */
int64_t stat_as_int(const struct xt_stat *s);
/* Value as a double (doubles kept exact, integers converted); 0 if none. */
double stat_as_double(const struct xt_stat *s);
/* Value as text into buf (numbers formatted); returns buf. */
const char *stat_to_text(const struct xt_stat *s, char *buf, size_t n);
/* The known-stat code of s (XS_NONE if not well known). */
static inline unsigned stat_known(const struct xt_stat *s)
{
	return s->meta ? s->meta->known : XS_NONE;
}

/* The well-known stats of an event: event stats first, then metadata stats. */
struct xt_known_stats {
	uint64_t have; /* bit k set when stat k (enum xt_known_stat) was found */
	struct xt_stat v[XS_COUNT];
};
void stat_collect(struct xt_known_stats *ks, const struct xt_host *h, const struct xt_plane *p,
		  const struct xt_line *l, const struct xt_event *ev, uint64_t want);
static inline int stat_has(const struct xt_known_stats *ks, unsigned k)
{
	return (ks->have >> k) & 1;
}

#endif
