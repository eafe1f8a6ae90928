/*
 * mplane: one merged XPlane, built as upstream's MergePlanes builds one
 * (xla/tsl/profiler/utils/xplane_utils.cc: MergePlanes, CopyEvent,
 * CopyEventMetadata), for xspace_merge. Internal to src/model.
 *
 * A struct mplane owns its tables; the bytes they point into (names,
 * events, stats) are the caller's input XSpace, which must outlive it.
 * Each source plane merged keeps a context (how its ids map to the merged
 * plane's) until the plane is written: events are re-encoded then.
 */
#ifndef XT_MPLANE_H
#define XT_MPLANE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/hmap.h"
#include "../util/strbuf.h"
#include "wire.h"

struct bytes {
	const uint8_t *p;
	size_t n;
};

/* A source plane's metadata entry (map key, value bytes), sorted by key;
 * dst is the merged plane's index once an event used it, else -1. */
struct src_md {
	int64_t key;
	struct bytes v, name;
	int32_t dst;
};

/* How one merged source plane's ids map to the merged plane's. The seed
 * (the plane others merge into) keeps its ids: identity. */
struct src_ctx {
	struct src_md *ev, *st;
	size_t nev, nst;
	/* key -> index into ev / st, for keys below *_dense (ids are small
	 * in practice: a lookup per event and stat without a search) */
	int32_t *ev_idx, *st_idx;
	size_t ev_dense, st_dense;
	int identity;
};

struct dst_ev_md {
	int64_t id;
	struct bytes name, disp, meta;
	struct strbuf stats; /* encoded XStat fields (tag 5), remapped */
	struct bytes raw;    /* the seed's own entry: its child ids are kept */
};

struct dst_st_md {
	int64_t id;
	struct bytes name, desc;
};

struct dst_event {
	int64_t t; /* offset_ps, or num_occurrences when agg */
	int64_t dur;
	const uint8_t *p; /* the source XEvent */
	int64_t md; /* the merged plane's metadata id */
	uint32_t n;
	uint16_t ctx;
	uint8_t agg;
};

struct dst_line {
	int64_t id, display_id, ts, dur_ps;
	struct bytes name, disp;
	struct dst_event *ev;
	size_t n, cap;
};

struct plane_stat {
	int64_t md;          /* stat metadata id */
	struct strbuf bytes; /* the XPlane.stats field: tag, length, XStat */
};

struct mplane {
	int64_t id;
	struct bytes name;
	struct dst_line *lines;
	size_t nlines, caplines;
	struct hmap line_by_id;
	struct dst_ev_md *ev;
	size_t nev, capev;
	struct hmap ev_by_name;
	int64_t last_ev;
	struct dst_st_md *st;
	size_t nst, capst;
	struct hmap st_by_name;
	int64_t last_st;
	struct plane_stat *pst;
	size_t npst;
	struct src_ctx *ctx;
	size_t nctx;
	int bad;
};

/* A varint field's value, or a length-delimited field's bytes; a field of
 * another wire type is skipped and marks w bad. */
static inline int64_t mplane_rd_int(struct wire *w, unsigned t)
{
	if (t != WIRE_VARINT) {
		wire_skip(w, t);
		w->bad = 1;
		return 0;
	}
	return (int64_t)wire_varint(w);
}

static inline struct bytes mplane_rd_len(struct wire *w, unsigned t)
{
	struct bytes b = { NULL, 0 };

	if (t != WIRE_LEN) {
		wire_skip(w, t);
		w->bad = 1;
		return b;
	}
	b.p = wire_bytes(w, &b.n);
	return b;
}

/* An empty plane called name (borrowed). */
void mplane_init(struct mplane *d, struct bytes name);
void mplane_fini(struct mplane *d);
/* Merges the XPlane bytes p into d (MergePlanes), or, with seed, makes d
 * of them (their ids, metadata and stats kept: the plane others merge
 * into). ids: the line ids to use instead of the plane's, in line order,
 * or NULL. Malformed bytes set d->bad. */
void mplane_merge(struct mplane *d, struct bytes p, const int64_t *ids, int seed);
/* Appends d as an XSpace.planes field to out, its lines' events sorted
 * (XEventsComparator), the lines by name when lines_by_name. */
void mplane_write(struct mplane *d, int lines_by_name, struct strbuf *out);
/* Every XStat field `field` of message m from source c, re-encoded for d
 * into out (metadata ids and ref values mapped by name). */
void mplane_put_stats(struct mplane *d, struct src_ctx *c, struct bytes m, uint32_t field,
		      struct strbuf *out);

#endif
