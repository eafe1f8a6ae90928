/* stats: see stats.h. XStat fields: 1 metadata_id, 2 double, 3 uint64,
 * 4 int64, 5 str, 6 bytes, 7 ref, 8 compressed str. */
#include "stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void stat_iter_bytes(struct stat_iter *it, const struct xt_plane *p, const uint8_t *b,
			    size_t n, uint32_t field)
{
	wire_init(&it->w, b, n);
	it->plane = p;
	it->field = field;
}

void stat_iter_event_bytes(struct stat_iter *it, const struct xt_plane *p, const uint8_t *b,
			   size_t n)
{
	stat_iter_bytes(it, p, b, n, 4);
}

void stat_iter_event(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l, const struct xt_event *ev)
{
	size_t n;
	const uint8_t *b = trace_event_bytes(h, l, ev, &n);

	stat_iter_event_bytes(it, p, b, n);
}

void stat_iter_meta(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		    const struct xt_event_meta *m)
{
	stat_iter_bytes(it, p, m->raw_len ? h->src.data + m->raw_off : NULL, m->raw_len, 5);
}

void stat_iter_plane(struct stat_iter *it, const struct xt_host *h, const struct xt_plane *p,
		     size_t i)
{
	/* A plane stat is one XStat message: present it as a one-field list. */
	stat_iter_bytes(it, p, h->src.data + p->stat_off[i], p->stat_len[i], 0);
}

static int stat_decode(struct stat_iter *it, const uint8_t *b, size_t n, struct xt_stat *out)
{
	return stat_decode_one(it->plane, b, n, out);
}

int stat_decode_one(const struct xt_plane *plane, const uint8_t *b, size_t n, struct xt_stat *out)
{
	struct wire w;

	/* Fast path for upstream's encoding: metadata_id, then one value. */
	if (n >= 3 && b[0] == 0x08 && !(b[1] & 0x80)) {
		uint32_t f;
		unsigned t;

		wire_init(&w, b + 2, n - 2);
		t = wire_tag(&w, &f);
		if (!w.bad && f >= 2 && f <= 8) {
			memset(out, 0, sizeof(*out));
			out->meta_id = b[1];
			if (t == WIRE_VARINT && (f == 3 || f == 4 || f == 7)) {
				out->u = wire_varint(&w);
				out->i = (int64_t)out->u;
				out->kind = f == 3 ? XT_STAT_UINT : f == 4 ? XT_STAT_INT : XT_STAT_REF;
			} else if (t == WIRE_LEN && (f == 5 || f == 6 || f == 8)) {
				out->s = (const char *)wire_bytes(&w, &out->n);
				out->kind = f == 5 ? XT_STAT_STR : f == 6 ? XT_STAT_BYTES
									 : XT_STAT_COMPRESSED;
			} else if (t == WIRE_I64 && f == 2) {
				uint64_t u = wire_fixed64(&w);

				memcpy(&out->d, &u, sizeof(u));
				out->kind = XT_STAT_DOUBLE;
			} else {
				goto general;
			}
			if (!w.bad && w.p == w.end)
				goto resolve;
		}
	}
general:

	memset(out, 0, sizeof(*out));
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		switch (f) {
		case 1:
			if (t == WIRE_VARINT) {
				out->meta_id = (int64_t)wire_varint(&w);
				continue;
			}
			break;
		case 2:
			if (t == WIRE_I64) {
				uint64_t u = wire_fixed64(&w);

				memcpy(&out->d, &u, sizeof(u));
				out->kind = XT_STAT_DOUBLE;
				continue;
			}
			break;
		case 3:
		case 4:
		case 7:
			if (t == WIRE_VARINT) {
				out->u = wire_varint(&w);
				out->i = (int64_t)out->u;
				out->kind = f == 3 ? XT_STAT_UINT : f == 4 ? XT_STAT_INT : XT_STAT_REF;
				continue;
			}
			break;
		case 5:
		case 6:
		case 8:
			if (t == WIRE_LEN) {
				out->s = (const char *)wire_bytes(&w, &out->n);
				out->kind = f == 5 ? XT_STAT_STR : f == 6 ? XT_STAT_BYTES
									 : XT_STAT_COMPRESSED;
				continue;
			}
			break;
		}
		wire_skip(&w, t);
	}
	if (w.bad)
		return 0;
resolve:
	out->meta = trace_smeta_lookup(plane, out->meta_id);
	if (out->kind == XT_STAT_REF) {
		const struct xt_stat_meta *r = trace_smeta_lookup(plane, (int64_t)out->u);

		out->s = r ? r->name : "";
		out->n = r ? r->name_len : 0;
	}
	return 1;
}

int stat_next(struct stat_iter *it, struct xt_stat *out)
{
	while (wire_more(&it->w)) {
		uint32_t f;
		unsigned t;
		const uint8_t *b;
		size_t n;

		if (it->field == 0) {
			/* Plane stat: the whole buffer is the message. */
			b = it->w.p;
			n = (size_t)(it->w.end - it->w.p);
			it->w.p = it->w.end;
			return stat_decode(it, b, n, out);
		}
		t = wire_tag(&it->w, &f);
		if (f == it->field && t == WIRE_LEN) {
			b = wire_bytes(&it->w, &n);
			if (it->w.bad)
				return 0;
			return stat_decode(it, b, n, out);
		}
		wire_skip(&it->w, t);
	}
	return 0;
}

int64_t stat_as_int(const struct xt_stat *s)
{
	char buf[32];
	size_t n;

	switch (s->kind) {
	case XT_STAT_UINT:
	case XT_STAT_INT:
		return s->i;
	case XT_STAT_DOUBLE:
		return (int64_t)s->d;
	case XT_STAT_STR:
	case XT_STAT_REF:
		n = s->n < sizeof(buf) - 1 ? s->n : sizeof(buf) - 1;
		memcpy(buf, s->s, n);
		buf[n] = '\0';
		return strtoll(buf, NULL, 10);
	default:
		return 0;
	}
}

double stat_as_double(const struct xt_stat *s)
{
	return s->kind == XT_STAT_DOUBLE ? s->d : (double)stat_as_int(s);
}

const char *stat_to_text(const struct xt_stat *s, char *buf, size_t n)
{
	size_t k;

	switch (s->kind) {
	case XT_STAT_UINT:
		snprintf(buf, n, "%" PRIu64, s->u);
		break;
	case XT_STAT_INT:
		snprintf(buf, n, "%" PRId64, s->i);
		break;
	case XT_STAT_DOUBLE:
		snprintf(buf, n, "%.17g", s->d);
		break;
	case XT_STAT_STR:
	case XT_STAT_REF:
		k = s->n < n - 1 ? s->n : n - 1;
		memcpy(buf, s->s, k);
		buf[k] = '\0';
		break;
	case XT_STAT_BYTES:
	case XT_STAT_COMPRESSED:
		snprintf(buf, n, "<%zu bytes>", s->n);
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}

static void collect_from(struct xt_known_stats *ks, struct stat_iter *it, uint64_t want)
{
	struct xt_stat s;

	while (stat_next(it, &s)) {
		unsigned k = stat_known(&s);

		if (!k || !((want >> k) & 1) || ((ks->have >> k) & 1))
			continue;
		/* The first occurrence wins, as upstream's GetStat finds it. */
		ks->v[k] = s;
		ks->have |= 1ull << k;
	}
}

void stat_collect(struct xt_known_stats *ks, const struct xt_host *h, const struct xt_plane *p,
		  const struct xt_line *l, const struct xt_event *ev, uint64_t want)
{
	struct stat_iter it;

	ks->have = 0;
	stat_iter_event(&it, h, p, l, ev);
	collect_from(ks, &it, want);
	if ((ks->have & want) == want)
		return;
	stat_iter_meta(&it, h, p, xt_event_meta(p, ev));
	collect_from(ks, &it, want);
}

int stat_scan_event(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		    const struct xt_event *ev, const struct stat_want *want, struct xt_stat *out,
		    uint64_t *found)
{
	size_t n;
	const uint8_t *b = trace_event_bytes(h, l, ev, &n);
	struct wire w;
	int hits = 0;
	const uint8_t *sb;
	size_t sn;

	*found = 0;
	wire_init(&w, b, n);
	while (wire_next_stat(&w, &sb, &sn)) {
		int64_t id;
		int k;

		/* Upstream writes metadata_id first: peek at it and decode only
		 * the stats asked for. */
		if (sn < 2 || sb[0] != 0x08) {
			struct xt_stat s;

			if (stat_decode_one(p, sb, sn, &s) && stat_known(&s) &&
			    ((want->mask >> stat_known(&s)) & 1) && !((*found >> stat_known(&s)) & 1)) {
				out[stat_known(&s)] = s;
				*found |= 1ull << stat_known(&s);
				hits++;
			}
			continue;
		}
		if (sb[1] < 0x80) {
			id = sb[1];
		} else {
			struct wire iw;

			wire_init(&iw, sb + 1, sn - 1);
			id = (int64_t)wire_varint(&iw);
		}
		if (id >= 0 && id < 256) {
			k = want->of_id[id] - 1;
			if (k < 0)
				continue;
		} else {
			for (k = 0; k < want->n && want->id[k] != id; k++)
				;
		}
		for (; k < want->n; k++) {
			if (want->id[k] == id) {
				struct xt_stat *o = &out[want->known[k]], s;
				int ok;

				if ((*found >> want->known[k]) & 1)
					break;
				ok = stat_decode_usual(p, sb, sn, o);
				if (!ok && stat_decode_one(p, sb, sn, &s)) {
					*o = s;
					ok = 1;
				}
				if (ok) {
					*found |= 1ull << want->known[k];
					hits++;
				}
				break;
			}
		}
	}
	return hits;
}

int stat_want_has(const struct stat_want *want, int64_t id)
{
	int k;

	for (k = 0; k < want->n; k++)
		if (want->id[k] == id)
			return 1;
	return 0;
}

int stat_scan_raw(const struct xt_host *h, const struct xt_line *l, const struct xt_event *ev,
		  const struct stat_want *want, int64_t corr_id, uint8_t *key, size_t cap,
		  int64_t *corr)
{
	size_t n, kn = 0;
	const uint8_t *b = trace_event_bytes(h, l, ev, &n), *e = b + n, *v;
	unsigned id;
	int have_corr = 0;

	*corr = INT64_MIN;
	while (b < e) {
		size_t sn;

		if (*b == 0x08 || *b == 0x10 || *b == 0x18 || *b == 0x28) {
			/* The event's own integers: id, offset, duration, occurrences. */
			for (b++; b < e && (*b & 0x80); b++)
				;
			if (b++ >= e)
				return -1;
			continue;
		}
		/* Upstream's framing only: the stat's tag, a one-byte length,
		 * metadata_id first in one or two bytes; anything else is
		 * decoded. */
		if (e - b < 2 || b[0] != 0x22 || b[1] >= 0x80)
			return -1;
		sn = b[1];
		if (sn > (size_t)(e - b - 2))
			return -1;
		if (wire_stat_head(b + 2, sn, &id, &v) < 0)
			return -1;
		if (id == corr_id) {
			/* The first, as stat_decode_usual() reads an integer. */
			if (!have_corr && wire_stat_int(v, b + 2 + sn, corr) < 0)
				return -1;
			have_corr = 1;
		} else if (id < 256 ? want->of_id[id] != 0 : stat_want_has(want, id)) {
			if (kn + 1 + sn > cap)
				return -1;
			memcpy(key + kn, b + 1, 1 + sn);
			kn += 1 + sn;
		}
		b += 2 + sn;
	}
	return (int)kn;
}

void stat_want_init(struct stat_want *sw, const struct xt_plane *p, uint64_t mask)
{
	unsigned k;

	sw->n = 0;
	sw->mask = mask;
	memset(sw->of_id, 0, sizeof(sw->of_id));
	for (k = 1; k < XS_COUNT; k++)
		if (((mask >> k) & 1) && p->has_known[k] && sw->n < XT_WANT_MAX) {
			if (p->known_id[k] >= 0 && p->known_id[k] < 256)
				sw->of_id[p->known_id[k]] = (uint8_t)(sw->n + 1);
			sw->id[sw->n] = p->known_id[k];
			sw->known[sw->n++] = (uint8_t)k;
		}
}
