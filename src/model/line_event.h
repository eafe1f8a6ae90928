/*
 * line_event: the reading of one XEvent, inlined into the decoder's loop
 * (line_decode.c and line_split.c include it): its metadata id, times
 * and aggregation, whether it carries a stat the plane watches, and for a
 * plane with key_ids the key and correlation the sink reads (ev_sink.h).
 * Its stats are skipped, not decoded: their bytes stay in the file.
 */
#ifndef XT_LINE_EVENT_H
#define XT_LINE_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"
#include "wire.h"

static inline int watched(const struct xt_plane *p, uint64_t id)
{
	unsigned i;

	if (id < 64)
		return (p->watch_lo >> id) & 1;
	for (i = 0; i < p->nwatch_ids; i++)
		if ((uint64_t)p->watch_ids[i] == id)
			return 1;
	return 0;
}

/* A varint of [*pp, end), *bad set when malformed: the decoder's own, as
 * every event has four or five, and offsets in ps take 6 to 9 bytes. With
 * 8 readable bytes (up to `safe`, the end of the line, which may lie past
 * `end`) it decodes them at once (wire_varint8). */
static inline __attribute__((always_inline)) uint64_t
rd_varint(const uint8_t **pp, const uint8_t *end, const uint8_t *safe, int *bad)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned sh;

	if (p < end && *p < 0x80) {
		*pp = p + 1;
		return *p;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (safe - p >= 8) {
		uint64_t x;
		unsigned len;

		memcpy(&x, p, 8);
		x = wire_varint8(x, &len);
		if (len) {
			if (len > (size_t)(end - p))
				goto bad;
			*pp = p + len;
			return x;
		}
	}
#else
	(void)safe;
#endif
	for (sh = 0; sh < 64 && p < end; sh += 7) {
		uint64_t b = *p++;

		v |= (b & 0x7f) << sh;
		if (b < 0x80) {
			*pp = p;
			return v;
		}
	}
bad:
	*bad = 1;
	*pp = end;
	return 0;
}

/* The watch test of one event stat, its bytes [sb, sb + sn). */
static inline int stat_watched(const struct xt_plane *p, const uint8_t *sb, uint64_t sn)
{
	/* metadata_id comes first in upstream's encoding; anything else is
	 * flagged, to be safe. */
	if (sn >= 2 && sb[0] == 0x08) {
		uint64_t id = sb[1];

		if (id & 0x80) {
			struct wire iw;

			wire_init(&iw, sb + 1, sn - 1);
			id = wire_varint(&iw);
		}
		return watched(p, id);
	}
	return sn != 0;
}

/* One XEvent's fields (its bytes [q, e)). Upstream writes one-byte tags
 * in order (metadata_id, offset_ps, duration_ps, stats), which dec_event
 * reads straight through; then a switch takes one-byte tags in any order,
 * and anything else goes through the general tag reader. */
struct dec_ev {
	uint64_t mid, off, dur;
	int agg, watched;
	int kn;          /* the key's length; < 0: none (xt_sink_ev) */
	int64_t corr;
	int corr_seen;
	/* device_offset_ps and device_duration_ps (xt_plane.dev_time), each
	 * the first one; bits 1 and 2 of dev_seen say which were found. */
	int64_t dev_off, dev_dur;
	unsigned dev_seen;
	uint8_t key[4 + XT_KEY_MAX]; /* the metadata index (dec_range's), then kn bytes */
};

/* Stat sb (sn bytes) when it is one of the device's own times (a plane
 * with dev_time): taken as an integer, as stat_decode_usual() reads it. */
static inline __attribute__((always_inline)) void
dec_dev_time(const struct xt_plane *p, const uint8_t *sb, uint64_t sn, struct dec_ev *d)
{
	const uint8_t *v;
	unsigned id, bit;
	int64_t x;

	if (wire_stat_head(sb, sn, &id, &v) < 0)
		return; /* framed otherwise: not as upstream writes these */
	bit = (int64_t)id == p->known_id[XS_DEVICE_OFFSET_PS]	? 1
	      : (int64_t)id == p->known_id[XS_DEVICE_DURATION_PS] ? 2
								  : 0;
	if (__builtin_expect(!bit, 1) || (d->dev_seen & bit) || wire_stat_int(v, sb + sn, &x) < 0)
		return;
	if (bit == 1)
		d->dev_off = x;
	else
		d->dev_dur = x;
	d->dev_seen |= bit;
}

/* A key stat (k, from the plane's key_ids) into the event's key. */
static void dec_key_take(const uint8_t *sb, uint64_t sn, const uint8_t *safe, struct dec_ev *d,
			 unsigned k, const uint8_t *v)
{
	if (k == XT_KEY_STAT) {
		uint8_t *o = d->key + 4 + d->kn;

		if ((size_t)d->kn + 1 + sn > XT_KEY_MAX) {
			d->kn = -1;
			return;
		}
		*o++ = (uint8_t)sn;
		if (sn <= 16 && (size_t)d->kn + 1 + 16 <= XT_KEY_MAX && safe - sb >= 16) {
			/* Most are a few bytes: sixteen copied at once (what lies
			 * past the stat is overwritten or beyond kn), no loop. */
			memcpy(o, sb, 16);
		} else if (sn <= 16) {
			for (k = 0; k < sn; k++)
				o[k] = sb[k];
		} else {
			memcpy(o, sb, sn);
		}
		d->kn += 1 + (int)sn;
	} else if (k == XT_KEY_CORR && !d->corr_seen) {
		/* The first wins, as an integer stat_decode_usual() reads. */
		d->corr_seen = 1;
		if (wire_stat_int(v, sb + sn, &d->corr) < 0)
			d->kn = -1;
	}
}

/* Stat sb (sn bytes, sn its one-byte length) into the event's key (the
 * plane's key_ids): read beside the skip, off the decoder's path. Inlined
 * by force up to the table lookup: a GPU kernel carries a dozen stats, of
 * which a few are keys. */
static inline __attribute__((always_inline)) void
dec_key(const struct xt_plane *p, const uint8_t *sb, uint64_t sn, const uint8_t *safe,
	struct dec_ev *d)
{
	const uint8_t *v;
	unsigned k, id;

	if (d->kn < 0)
		return;
	/* metadata_id first, in one or two bytes (TF planes number their
	 * stats past 127). */
	if (sn >= 0x80 || wire_stat_head(sb, sn, &id, &v) < 0) {
		d->kn = -1; /* framed otherwise: the sink decodes it */
		return;
	}
	k = p->key_ids[id];
	if (k)
		dec_key_take(sb, sn, safe, d, k, v);
}

/* One stat of an event, its length prefix at q (past the tag); returns
 * where the next field starts. */
static inline __attribute__((always_inline)) const uint8_t *
dec_stat(const struct xt_plane *p, const uint8_t *q, const uint8_t *e, const uint8_t *safe,
	 struct dec_ev *d, int *bad, const int keys)
{
	uint64_t sn = rd_varint(&q, e, safe, bad);

	if (sn > (uint64_t)(e - q)) {
		*bad = 1;
		return e;
	}
	if (p->watch_on && !d->watched)
		d->watched = stat_watched(p, q, sn);
	if (keys)
		dec_key(p, q, sn, safe, d);
	if (p->dev_time)
		dec_dev_time(p, q, sn, d);
	return q + sn;
}

/* keys: the plane has key_ids (a constant where it is inlined, so that a
 * plane without them pays nothing per stat). */
static inline __attribute__((always_inline)) int dec_event(const struct xt_plane *p,
							   const uint8_t *q, const uint8_t *e,
							   const uint8_t *safe, struct dec_ev *d,
							   const int keys)
{
	int bad = 0;

	d->mid = d->off = d->dur = 0;
	d->agg = d->watched = 0;
	d->kn = keys ? 0 : -1;
	d->corr = INT64_MIN;
	d->corr_seen = 0;
	d->dev_seen = 0;
	/* Upstream's order straight through, without a dispatch per field;
	 * whatever follows (or comes otherwise) goes through the loop. */
	if (q < e && *q == 0x08) {
		q++;
		d->mid = rd_varint(&q, e, safe, &bad);
	}
	if (q < e && (*q == 0x10 || *q == 0x28)) {
		d->agg = *q == 0x28;
		q++;
		d->off = rd_varint(&q, e, safe, &bad);
	}
	if (q < e && *q == 0x18) {
		q++;
		d->dur = rd_varint(&q, e, safe, &bad);
	}
	while (q < e && *q == 0x22 && !bad)
		q = dec_stat(p, q + 1, e, safe, d, &bad, keys);
	while (q < e && !bad) {
		uint32_t f;
		unsigned t;

		switch (*q) {
		case 0x08:
			q++;
			d->mid = rd_varint(&q, e, safe, &bad);
			continue;
		case 0x10:
			q++;
			d->off = rd_varint(&q, e, safe, &bad);
			d->agg = 0;
			continue;
		case 0x18:
			q++;
			d->dur = rd_varint(&q, e, safe, &bad);
			continue;
		case 0x28:
			q++;
			d->off = rd_varint(&q, e, safe, &bad);
			d->agg = 1;
			continue;
		case 0x22:
			q = dec_stat(p, q + 1, e, safe, d, &bad, keys);
			continue;
		default:
			break;
		}
		{
			struct wire w = { q, e, 0 };

			t = wire_tag(&w, &f);
			if (f == 4 && t == WIRE_LEN) {
				size_t sn;
				const uint8_t *sb = wire_bytes(&w, &sn);

				if (p->watch_on && !w.bad && !d->watched)
					d->watched = stat_watched(p, sb, sn);
				d->kn = -1; /* a stat framed otherwise */
			} else if (t == WIRE_VARINT && f <= 5 && f != 4) {
				uint64_t v = wire_varint(&w);

				if (f == 1)
					d->mid = v;
				else if (f == 2)
					d->off = v, d->agg = 0;
				else if (f == 3)
					d->dur = v;
				else if (f == 5)
					d->off = v, d->agg = 1;
			} else {
				wire_skip(&w, t);
			}
			q = w.p;
			bad |= w.bad;
		}
	}
	/* A duration past INT64_MAX (negative as written) is no span: the
	 * event is an instant, so every duration is >= 0 downstream. */
	if (__builtin_expect((int64_t)d->dur < 0, 0))
		d->dur = 0;
	return bad ? -1 : 0;
}

/* An event its device timed itself (dec_dev_time): its start and duration
 * by the device's clock, the start taken against the line's timestamp as
 * the file writes it. One that would start before the line keeps the
 * times it was written with (offsets are not negative). */
static inline void dec_dev_retime(const struct xt_line *l, struct dec_ev *d)
{
	int64_t base, off;

	if (d->dev_seen != 3 || d->agg || d->dev_dur < 0)
		return;
	if (__builtin_mul_overflow(l->peek_ts_ns, (int64_t)1000, &base) ||
	    __builtin_sub_overflow(d->dev_off, base, &off) || off < 0)
		return;
	d->off = (uint64_t)off;
	d->dur = (uint64_t)d->dev_dur;
}

#endif
