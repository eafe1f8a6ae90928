/*
 * xplane_reader: see xplane_reader.h. Field numbers are those of
 * proto/xplane.proto (upstream xplane.proto).
 */
#include "xplane_reader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/bigmem.h"
#include "../util/xalloc.h"
#include "stats.h"
#include "wire.h"

static const char *const known_names[XS_COUNT] = {
	[XS_HLO_OP] = "hlo_op",
	[XS_HLO_MODULE] = "hlo_module",
	[XS_HLO_CATEGORY] = "hlo_category",
	[XS_PROGRAM_ID] = "program_id",
	[XS_GROUP_ID] = "group_id",
	[XS_STEP_NUM] = "step_num",
	[XS_ITER_NUM] = "iter_num",
	[XS_IS_ROOT] = "_r",
	[XS_TF_OP] = "tf_op",
	[XS_FLOPS] = "flops",
	[XS_BYTES_ACCESSED] = "bytes_accessed",
	[XS_KERNEL_DETAILS] = "kernel_details",
	[XS_CORRELATION_ID] = "correlation_id",
	[XS_ALLOCATOR_NAME] = "allocator_name",
	[XS_INDEX_ON_HOST] = "index_on_host",
	[XS_DEVICE_ORDINAL] = "device_ordinal",
	[XS_BYTES_RESERVED] = "bytes_reserved",
	[XS_BYTES_ALLOCATED] = "bytes_allocated",
	[XS_BYTES_AVAILABLE] = "bytes_available",
	[XS_PEAK_BYTES_IN_USE] = "peak_bytes_in_use",
	[XS_REQUESTED_BYTES] = "requested_bytes",
	[XS_ALLOCATION_BYTES] = "allocation_bytes",
	[XS_ADDR] = "addr",
	[XS_SHAPE] = "shape",
	[XS_PROFILE_START_TIME] = "profile_start_time",
	[XS_PROFILE_STOP_TIME] = "profile_stop_time",
	[XS_LEVEL0] = "level 0",
	[XS_MEM_BREAKDOWN] = "memory_access_breakdown",
	[XS_RUN_ID] = "run_id",
};

/* Growable array helper: ensures room for one more element. */
#define VEC_PUSH(arr, n, cap)                                                    \
	do {                                                                     \
		if ((n) == (cap)) {                                              \
			(cap) = (cap) ? (cap) * 2 : 8;                           \
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr)));     \
		}                                                                \
	} while (0)

struct reader {
	struct xt_trace *t;
	struct xt_host *h;
	const struct xplane_load_opts *opts;
	const char *path;
};

static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

/* Builds the direct id tables when ids are small enough (they are 1..N in
 * everything upstream writes); the hash tables stay for the others. */
static void plane_direct(struct xt_plane *p)
{
	int64_t emax = -1, smax = -1;
	int eneg = 0, sneg = 0;
	size_t i;

	for (i = 1; i < p->nemeta; i++) {
		if (p->emeta[i].id < 0)
			eneg = 1;
		else if (p->emeta[i].id > emax)
			emax = p->emeta[i].id;
	}
	for (i = 0; i < p->nsmeta; i++) {
		if (p->smeta[i].id < 0)
			sneg = 1;
		else if (p->smeta[i].id > smax)
			smax = p->smeta[i].id;
	}
	if (emax >= 0 && (uint64_t)emax < 4 * (uint64_t)p->nemeta + 4096) {
		p->emeta_ndirect = (size_t)emax + 1;
		p->emeta_direct = xcalloc(p->emeta_ndirect, sizeof(uint32_t));
		for (i = 1; i < p->nemeta; i++) /* later duplicates win */
			if (p->emeta[i].id >= 0)
				p->emeta_direct[p->emeta[i].id] = (uint32_t)i;
		p->emeta_direct_only = !eneg;
	}
	if (smax >= 0 && (uint64_t)smax < 4 * (uint64_t)p->nsmeta + 4096) {
		p->smeta_ndirect = (size_t)smax + 1;
		p->smeta_direct = xcalloc(p->smeta_ndirect, sizeof(uint32_t));
		for (i = 0; i < p->nsmeta; i++)
			if (p->smeta[i].id >= 0)
				p->smeta_direct[p->smeta[i].id] = (uint32_t)(i + 1);
		p->smeta_direct_only = !sneg;
	}
}

static void plane_index(struct xt_plane *p)
{
	size_t i, mask;

	/* Load factor <= 1/2. Later duplicates of a key replace earlier ones,
	 * as protobuf map parsing does. */
	p->emeta_hcap = pow2_at_least(p->nemeta * 2);
	p->emeta_hash = xcalloc(p->emeta_hcap, sizeof(uint32_t));
	mask = p->emeta_hcap - 1;
	for (i = 1; i < p->nemeta; i++) {
		size_t s = trace_hash_id(p->emeta[i].id) & mask;

		while (p->emeta_hash[s] && p->emeta[p->emeta_hash[s]].id != p->emeta[i].id)
			s = (s + 1) & mask;
		p->emeta_hash[s] = (uint32_t)i;
	}
	p->smeta_hcap = pow2_at_least(p->nsmeta * 2);
	p->smeta_hash = xcalloc(p->smeta_hcap, sizeof(uint32_t));
	mask = p->smeta_hcap - 1;
	plane_direct(p);
	for (i = 0; i < p->nsmeta; i++) {
		size_t s = trace_hash_id(p->smeta[i].id) & mask;
		size_t k;

		while (p->smeta_hash[s] && p->smeta[p->smeta_hash[s] - 1].id != p->smeta[i].id)
			s = (s + 1) & mask;
		p->smeta_hash[s] = (uint32_t)(i + 1);
		for (k = 1; k < XS_COUNT; k++) {
			if (!strcmp(p->smeta[i].name, known_names[k])) {
				p->smeta[i].known = (uint8_t)k;
				p->known_id[k] = p->smeta[i].id;
				p->has_known[k] = 1;
				break;
			}
		}
	}
}

/* Decodes a map<int64, XEventMetadata> entry. */
static int read_emeta_entry(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
			    size_t *cap)
{
	struct wire w;
	struct xt_event_meta m = { .name = "", .display_name = "" };
	const uint8_t *val = NULL;
	size_t vn = 0;
	int64_t key = 0;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_VARINT)
			key = (int64_t)wire_varint(&w);
		else if (f == 2 && t == WIRE_LEN)
			val = wire_bytes(&w, &vn);
		else
			wire_skip(&w, t);
	}
	if (w.bad)
		return -1;
	m.id = key;
	if (val) {
		wire_init(&w, val, vn);
		m.raw_off = (uint64_t)(val - r->h->src.data);
		m.raw_len = (uint32_t)vn;
		if (vn > UINT32_MAX)
			return -2;
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);
			const uint8_t *s;
			size_t sn;

			if (f == 2 && t == WIRE_LEN) {
				s = wire_bytes(&w, &sn);
				m.name = arena_strndup(&r->t->arena, (const char *)s, sn);
			} else if (f == 4 && t == WIRE_LEN) {
				s = wire_bytes(&w, &sn);
				m.display_name = arena_strndup(&r->t->arena, (const char *)s, sn);
			} else {
				wire_skip(&w, t);
			}
		}
		if (w.bad)
			return -1;
	}
	if (p->nemeta >= XT_EV_META_MASK)
		return -2;
	VEC_PUSH(p->emeta, p->nemeta, *cap);
	p->emeta[p->nemeta++] = m;
	return 0;
}

/* Decodes a map<int64, XStatMetadata> entry. */
static int read_smeta_entry(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
			    size_t *cap)
{
	struct wire w;
	struct xt_stat_meta m = { .name = "" };
	const uint8_t *val = NULL;
	size_t vn = 0;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_VARINT)
			m.id = (int64_t)wire_varint(&w);
		else if (f == 2 && t == WIRE_LEN)
			val = wire_bytes(&w, &vn);
		else
			wire_skip(&w, t);
	}
	if (w.bad)
		return -1;
	if (val) {
		m.raw_off = (uint64_t)(val - r->h->src.data);
		m.raw_len = (uint32_t)vn;
		wire_init(&w, val, vn);
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);

			if (f == 2 && t == WIRE_LEN) {
				size_t sn;
				const uint8_t *s = wire_bytes(&w, &sn);

				m.name = arena_strndup(&r->t->arena, (const char *)s, sn);
				m.name_len = (uint32_t)strlen(m.name);
			} else {
				wire_skip(&w, t);
			}
		}
		if (w.bad)
			return -1;
	}
	VEC_PUSH(p->smeta, p->nsmeta, *cap);
	p->smeta[p->nsmeta++] = m;
	return 0;
}

/* Pass 1 over one XPlane: everything but the line contents. */
static int read_plane(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
		      struct xt_error *err)
{
	struct wire w;
	size_t lcap = 0, ecap = 0, scap = 0, stcap = 0;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->name = "";
	p->raw_off = (uint64_t)(b - r->h->src.data);
	p->raw_len = n;
	/* Slot 0: events whose metadata id is unknown resolve to a nameless
	 * entry, as upstream's visitor does. */
	VEC_PUSH(p->emeta, p->nemeta, ecap);
	p->emeta[p->nemeta++] = (struct xt_event_meta){ .name = "", .display_name = "" };
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		const uint8_t *s;
		size_t sn;

		if (f == 1 && t == WIRE_VARINT) {
			p->id = (int64_t)wire_varint(&w);
		} else if (f == 2 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			p->name = arena_strndup(&r->t->arena, (const char *)s, sn);
		} else if (f == 3 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			VEC_PUSH(p->lines, p->nlines, lcap);
			memset(&p->lines[p->nlines], 0, sizeof(p->lines[0]));
			p->lines[p->nlines].raw_off = (uint64_t)(s - r->h->src.data);
			p->lines[p->nlines].raw_len = sn;
			p->lines[p->nlines].name = "";
			p->lines[p->nlines].display_name = "";
			p->nlines++;
		} else if (f == 4 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad && (rc = read_emeta_entry(r, p, s, sn, &ecap)) < 0)
				break;
		} else if (f == 5 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad && (rc = read_smeta_entry(r, p, s, sn, &scap)) < 0)
				break;
		} else if (f == 6 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (stcap == p->nstats) {
				stcap = stcap ? stcap * 2 : 8;
				p->stat_off = xreallocarray(p->stat_off, stcap, sizeof(uint64_t));
				p->stat_len = xreallocarray(p->stat_len, stcap, sizeof(uint32_t));
			}
			p->stat_off[p->nstats] = (uint64_t)(s - r->h->src.data);
			p->stat_len[p->nstats++] = (uint32_t)sn;
		} else {
			wire_skip(&w, t);
		}
	}
	if (rc == -2)
		return xt_error_set(err, XT_ELIMIT, "%s: plane '%s' has more than %u event metadata",
				    r->path, p->name, XT_EV_META_MASK - 1);
	if (w.bad || rc < 0)
		return xt_error_set(err, XT_EFORMAT,
				    "%s: not a valid XSpace (malformed plane '%s' at byte %llu)",
				    r->path, p->name, (unsigned long long)p->raw_off);
	plane_index(p);
	return 0;
}

/* ---- pass 2: lines, in worker threads ---- */

struct line_job {
	struct xt_plane *plane;
	struct xt_line *line;
};

struct pool {
	struct reader *r;
	struct line_job *jobs;
	size_t njobs;
	atomic_size_t next;
	atomic_int failed;
	atomic_int retry;       /* a line proved the time base needs exact_peek */
	char msg[512];
	pthread_mutex_t msg_lock;
	struct arena *arenas; /* one per worker */
};

/* The order of events on a line: timed ones by start, the longer
 * (enclosing) first at equal starts, then file order; aggregated ones last
 * in file order. */
struct ev_key {
	int agg;
	int64_t off, dur;
	uint32_t raw;
};

static int ev_key_cmp(const struct ev_key *x, const struct ev_key *y)
{
	if (x->agg != y->agg)
		return x->agg - y->agg;
	if (!x->agg && x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (!x->agg && x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->raw < y->raw ? -1 : x->raw > y->raw;
}

/* The duration of event i while decoding: *k walks the long durations,
 * which are listed by increasing event index (callers go in order). */
static inline int64_t dec_dur(const struct xt_event *e, size_t i, const struct xt_long_dur *lng,
			      size_t nlng, size_t *k)
{
	if (e->dur != XT_DUR_LONG)
		return e->dur;
	while (*k < nlng && lng[*k].ev < i)
		(*k)++;
	return *k < nlng && lng[*k].ev == i ? lng[*k].dur_ps : (int64_t)XT_DUR_LONG;
}

/* Depth by a stack of open ends, and the prefix max end per block. */
static void line_finish(struct xt_line *l)
{
	int64_t stack[128];
	unsigned sp = 0;
	size_t i, k = 0, nblk = (l->nev + XT_BLOCK - 1) / XT_BLOCK;
	int64_t maxend = INT64_MIN;

	l->blk_maxend = nblk ? xmalloc(nblk * sizeof(int64_t)) : NULL;
	for (i = 0; i < l->nev; i++) {
		struct xt_event *e = &l->ev[i];
		int64_t end, dur;

		if (!xt_event_aggregated(e)) {
			dur = dec_dur(e, i, l->long_dur, l->nlong_dur, &k);
			end = e->off_ps + dur;
			/* The parent is the innermost open event containing this
			 * one (sorted by start, so only the ends matter): partial
			 * overlaps are siblings, as for self time, and an instant
			 * belongs inside [start, end) only, so one at a parent's
			 * very end is drawn beside it. Instants parent nothing. */
			while (sp && (stack[sp - 1] < end ||
				      (dur == 0 && stack[sp - 1] == e->off_ps)))
				sp--;
			e->meta |= (uint32_t)(sp < XT_EV_DEPTH_MAX ? sp : XT_EV_DEPTH_MAX)
				   << XT_EV_META_BITS;
			if (sp > l->max_depth)
				l->max_depth = sp;
			if (sp < 128 && dur > 0)
				stack[sp++] = end;
			if (end > maxend)
				maxend = end;
		}
		if ((i + 1) % XT_BLOCK == 0 || i + 1 == l->nev)
			l->blk_maxend[i / XT_BLOCK] = maxend;
	}
}

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

/* Lines at least this long get their arrays from bigmem, and their file
 * pages are made resident and given back window by window. */
#define XT_BIG_LINE ((uint64_t)8 << 20)
#define XT_WINDOW ((uint64_t)16 << 20)

/* Timestamps further than this from the clock's base (about 104 days)
 * would overflow int64 picoseconds: such lines are clamped (corrupt input). */
#define XT_TS_LIMIT_NS 9000000000000000LL

static int64_t rebase_ns(int64_t ts, int64_t base)
{
	int64_t d;

	if (__builtin_sub_overflow(ts, base, &d))
		d = ts < base ? -XT_TS_LIMIT_NS : XT_TS_LIMIT_NS;
	return d < -XT_TS_LIMIT_NS ? -XT_TS_LIMIT_NS : d > XT_TS_LIMIT_NS ? XT_TS_LIMIT_NS : d;
}

/* 1 when ts lies within XT_TS_LIMIT_NS of base. */
static int near_ns(int64_t ts, int64_t base)
{
	int64_t d;

	return !__builtin_sub_overflow(ts, base, &d) && d > -XT_TS_LIMIT_NS && d < XT_TS_LIMIT_NS;
}

/* A growing array: from bigmem for big lines (reserved once for the most
 * elements the line can hold, made resident step by step), else malloc. */
struct grow {
	void *p;
	size_t esz, cap;        /* element size; elements that fit now */
	size_t reserved, committed; /* bigmem bytes (reserved 0: malloc) */
};

static void grow_init(struct grow *g, size_t esz, size_t most, int big, size_t guess)
{
	memset(g, 0, sizeof(*g));
	g->esz = esz;
	if (big) {
		g->reserved = most * esz;
		g->p = bigmem_reserve(g->reserved);
		if (g->p)
			return;
		g->reserved = 0;
	}
	g->cap = guess < most ? guess : most;
	g->p = xmalloc((g->cap ? g->cap : 1) * esz);
}

static void grow_more(struct grow *g)
{
	if (g->reserved) {
		size_t step = g->reserved - g->committed < BIGMEM_STEP ? g->reserved - g->committed
								       : BIGMEM_STEP;

		if (!step)
			fatal("internal error: a line holds more events than its bytes allow");
		bigmem_commit(g->p, g->committed, step);
		g->committed += step;
		g->cap = g->committed / g->esz;
	} else {
		g->cap = g->cap + g->cap / 2 + 16;
		g->p = xreallocarray(g->p, g->cap, g->esz);
	}
}

/* Keeps the first n elements; returns the array (NULL when n is 0) and in
 * *map the bytes bigmem still maps (0 for malloc). */
static void *grow_done(struct grow *g, size_t n, size_t *map)
{
	*map = 0;
	if (g->reserved) {
		*map = bigmem_trim(g->p, g->reserved, n * g->esz);
		return n ? g->p : NULL;
	}
	if (!n) {
		free(g->p);
		return NULL;
	}
	return xreallocarray(g->p, n, g->esz);
}

static void grow_free(struct grow *g)
{
	if (g->reserved)
		bigmem_free(g->p, bigmem_trim(g->p, g->reserved, g->reserved));
	else
		free(g->p);
}

/* A varint of [*pp, end), *bad set when malformed: the decoder's own, as
 * every event has four or five, and offsets in ps take 6 to 9 bytes. With
 * 8 readable bytes (up to `safe`, the end of the line, which may lie past
 * `end`) it decodes them at once: find the first byte without the
 * continuation bit, then squeeze out the 7-bit groups. */
static inline uint64_t rd_varint(const uint8_t **pp, const uint8_t *end, const uint8_t *safe,
				 int *bad)
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
		uint64_t x, stop;

		memcpy(&x, p, 8);
		stop = ~x & 0x8080808080808080ull;
		if (stop) {
			unsigned len = (unsigned)__builtin_ctzll(stop) / 8 + 1;

			if (len > (size_t)(end - p))
				goto bad;
			if (len < 8)
				x &= (1ull << (8 * len)) - 1;
			x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
			x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
			x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
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
 * in order (metadata_id, offset_ps, duration_ps, stats), which the switch
 * takes directly; anything else goes through the general tag reader. */
struct dec_ev {
	uint64_t mid, off, dur;
	int agg, watched;
};

static inline int dec_event(const struct xt_plane *p, const uint8_t *q, const uint8_t *e,
			    const uint8_t *safe, struct dec_ev *d)
{
	int bad = 0;

	d->mid = d->off = d->dur = 0;
	d->agg = d->watched = 0;
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
		case 0x22: {
			uint64_t sn;

			q++;
			sn = rd_varint(&q, e, safe, &bad);
			if (sn > (uint64_t)(e - q)) {
				bad = 1;
			} else {
				if (p->watch_on && !d->watched)
					d->watched = stat_watched(p, q, sn);
				q += sn;
			}
			continue;
		}
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
	return bad ? -1 : 0;
}

static _Atomic uint64_t line_gen;

/* A permutation of a line's events into their order (ev_key). */
struct sort_ctx {
	const struct xt_event *ev;
	const uint32_t *raw;
	const struct xt_long_dur *lng;
	size_t nlng;
};

static int64_t sort_dur(const struct sort_ctx *c, uint32_t i)
{
	size_t lo = 0, hi = c->nlng;

	if (c->ev[i].dur != XT_DUR_LONG)
		return c->ev[i].dur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->lng[mid].ev < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->lng[lo].dur_ps;
}

static int perm_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	struct ev_key x = { xt_event_aggregated(&c->ev[i]) != 0, c->ev[i].off_ps, 0, c->raw[i] };
	struct ev_key y = { xt_event_aggregated(&c->ev[j]) != 0, c->ev[j].off_ps, 0, c->raw[j] };

	if (!x.agg && !y.agg && x.off == y.off) {
		x.dur = sort_dur(c, i);
		y.dur = sort_dur(c, j);
	}
	return ev_key_cmp(&x, &y);
}

/* Sorts a line decoded out of order: events, their offsets and the long
 * durations move together (a permutation, applied in place). */
static void line_sort(struct xt_line *l, uint32_t *raw, struct xt_long_dur **lng, size_t *nlng)
{
	struct sort_ctx c = { l->ev, raw, *lng, *nlng };
	size_t n = l->nev, i, k = 0;
	uint32_t *perm = xmalloc(n * sizeof(uint32_t));
	struct xt_long_dur *nl = NULL;

	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, n, sizeof(uint32_t), perm_cmp, &c);
	if (*nlng) {
		nl = xmalloc(*nlng * sizeof(*nl));
		for (i = 0; i < n; i++)
			if (l->ev[perm[i]].dur == XT_DUR_LONG)
				nl[k++] = (struct xt_long_dur){ i, sort_dur(&c, perm[i]) };
	}
	free(*lng);
	*lng = nl;
	*nlng = k;
	/* Position i takes element perm[i]: follow each cycle once (bit 31
	 * marks done; a line holds fewer than 2^31 events). */
	for (i = 0; i < n; i++) {
		size_t j = i;
		struct xt_event te;
		uint32_t tr;

		if (perm[i] & 0x80000000u)
			continue;
		te = l->ev[i];
		tr = raw[i];
		while ((perm[j] & 0x7fffffffu) != i) {
			size_t from = perm[j] & 0x7fffffffu;

			l->ev[j] = l->ev[from];
			raw[j] = raw[from];
			perm[j] |= 0x80000000u;
			j = from;
		}
		l->ev[j] = te;
		raw[j] = tr;
		perm[j] |= 0x80000000u;
	}
	free(perm);
}

static int read_line(struct reader *r, struct arena *a, struct xt_plane *p, struct xt_line *l)
{
	const struct source *src = &r->h->src;
	const uint8_t *lb = src->data + l->raw_off, *le = lb + l->raw_len, *q = lb;
	uint64_t mark = XT_WINDOW, released = 0;
	struct grow ge, gr;
	struct xt_long_dur *lng = NULL;
	size_t n = 0, nlng = 0, caplng = 0, most = l->raw_len / 2 + 1, map;
	int sorted = 1, bad = 0, big = l->raw_len >= XT_BIG_LINE, ts_seen = 0;
	int exact = r->opts && r->opts->exact_peek;
	struct ev_key prev = { 0, 0, 0, 0 };
	struct xt_event *ev;
	uint32_t *raw;

	if (l->raw_len > UINT32_MAX)
		return -2;
	l->raw_base = l->raw_off;
	l->gen = atomic_fetch_add(&line_gen, 1) + 1;
	/* Every event takes at least 2 bytes: `most` bounds the arrays. */
	grow_init(&ge, sizeof(struct xt_event), most, big, l->raw_len / 16 + 16);
	grow_init(&gr, sizeof(uint32_t), most, big, l->raw_len / 16 + 16);
	source_prefetch(src, l->raw_off, big ? XT_WINDOW : l->raw_len);
	while (q < le && !bad) {
		const uint8_t *tagp = q;
		const uint8_t *eb = NULL;
		uint64_t en = 0;

		if (*q == 0x22) {
			q++;
			en = rd_varint(&q, le, le, &bad);
			if (bad || en > (uint64_t)(le - q)) {
				bad = 1;
				break;
			}
			eb = q;
			q += en;
		} else {
			struct wire w = { q, le, 0 };
			uint32_t f;
			unsigned t = wire_tag(&w, &f);

			if (f == 4 && t == WIRE_LEN) {
				size_t sn;

				eb = wire_bytes(&w, &sn);
				en = sn;
			} else if (t == WIRE_VARINT && (f == 1 || f == 3 || f == 9 || f == 10)) {
				int64_t *dst = f == 1 ? &l->id : f == 3 ? &l->timestamp_ns
							  : f == 9 ? &l->duration_ps : &l->display_id;
				int64_t v = (int64_t)wire_varint(&w);

				/* The time base took 0 for a line with no timestamp
				 * before its first event (line_peek). */
				if (f == 3 && !ts_seen && n && v && !exact) {
					grow_free(&ge);
					grow_free(&gr);
					free(lng);
					return -3;
				}
				if (f == 3)
					ts_seen = 1;
				*dst = v;
			} else if (t == WIRE_LEN && (f == 2 || f == 11)) {
				size_t sn;
				const uint8_t *sb = wire_bytes(&w, &sn);
				const char *c = arena_strndup(a, (const char *)sb, sn);

				if (f == 2)
					l->name = c;
				else
					l->display_name = c;
			} else {
				wire_skip(&w, t);
			}
			q = w.p;
			bad |= w.bad;
			if (!eb || bad)
				continue;
		}
		{
			struct dec_ev d;
			struct ev_key cur;
			struct xt_event *x;

			if (dec_event(p, eb, eb + en, le, &d) < 0) {
				bad = 1;
				break;
			}
			if (n == ge.cap)
				grow_more(&ge);
			if (n == gr.cap)
				grow_more(&gr);
			x = (struct xt_event *)ge.p + n;
			x->off_ps = (int64_t)d.off;
			x->meta = trace_emeta_lookup(p, (int64_t)d.mid) |
				  (d.agg ? XT_EV_AGGREGATED << XT_EV_META_BITS : 0) |
				  (d.watched ? XT_EV_WATCHED << XT_EV_META_BITS : 0);
			if (d.dur < XT_DUR_LONG) {
				x->dur = (uint32_t)d.dur;
			} else {
				x->dur = XT_DUR_LONG;
				if (nlng == caplng) {
					caplng = caplng ? 2 * caplng : 64;
					lng = xreallocarray(lng, caplng, sizeof(*lng));
				}
				lng[nlng++] = (struct xt_long_dur){ n, (int64_t)d.dur };
			}
			((uint32_t *)gr.p)[n] = (uint32_t)(tagp - lb);
			cur = (struct ev_key){ d.agg, (int64_t)d.off, (int64_t)d.dur,
					       (uint32_t)(tagp - lb) };
			if (n && sorted && ev_key_cmp(&cur, &prev) < 0)
				sorted = 0;
			prev = cur;
			n++;
		}
		if (big && (uint64_t)(q - lb) >= mark) {
			/* The next window in, the decoded ones out. */
			if (mark < l->raw_len)
				source_prefetch(src, l->raw_off + mark,
						l->raw_len - mark < XT_WINDOW ? l->raw_len - mark
									      : XT_WINDOW);
			source_release(src, l->raw_off + released, (uint64_t)(q - lb) - released);
			released = (uint64_t)(q - lb) & ~(uint64_t)4095;
			mark += XT_WINDOW;
		}
	}
	if (bad) {
		grow_free(&ge);
		grow_free(&gr);
		free(lng);
		return -1;
	}
	l->timestamp_ns = rebase_ns(l->timestamp_ns, r->h->ts_base_ns);
	ev = grow_done(&ge, n, &map);
	l->ev = ev;
	l->ev_map = map;
	l->nev = n;
	raw = gr.p;
	if (!sorted && n > 1) {
		line_sort(l, raw, &lng, &nlng);
		l->raw = grow_done(&gr, n, &map);
		l->raw_map = map;
	} else if (n) {
		size_t b, nblk = (n + XT_BLOCK - 1) / XT_BLOCK;

		l->blk_raw = xmalloc(nblk * sizeof(uint32_t));
		for (b = 0; b < nblk; b++)
			l->blk_raw[b] = raw[b * XT_BLOCK];
		grow_free(&gr);
	} else {
		grow_free(&gr);
	}
	l->long_dur = nlng ? xreallocarray(lng, nlng, sizeof(*lng)) : (free(lng), NULL);
	l->nlong_dur = nlng;
	line_finish(l);
	return 0;
}

static void pool_fail(struct pool *pl, const char *fmt, const char *a, const char *b)
{
	pthread_mutex_lock(&pl->msg_lock);
	if (!atomic_load(&pl->failed)) {
		snprintf(pl->msg, sizeof(pl->msg), fmt, pl->r->path, a, b);
		atomic_store(&pl->failed, 1);
	}
	pthread_mutex_unlock(&pl->msg_lock);
}

struct worker_arg {
	struct pool *pool;
	struct arena *arena;
};

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pl = wa->pool;
	struct reader *r = pl->r;

	for (;;) {
		size_t i = atomic_fetch_add(&pl->next, 1);
		struct line_job *j;
		int rc;

		if (i >= pl->njobs || atomic_load(&pl->failed))
			break;
		j = &pl->jobs[i];
		rc = read_line(r, wa->arena, j->plane, j->line);
		if (rc == -3) {
			atomic_store(&pl->retry, 1);
			pool_fail(pl, "%s: a line of plane '%s' has its timestamp after its events%s",
				  j->plane->name, "");
			break;
		}
		if (rc == -2) {
			pool_fail(pl, "%s: a line of plane '%s' holds more than 4 GiB of events%s",
				  j->plane->name, " (not supported)");
			break;
		}
		if (rc < 0) {
			pool_fail(pl, "%s: not a valid XSpace (malformed line in plane '%s')%s",
				  j->plane->name, "");
			break;
		}
		if (r->opts && r->opts->line_hook)
			r->opts->line_hook(r->opts->ctx, r->h, j->plane, j->line);
		if (r->opts && r->opts->progress_bytes)
			atomic_fetch_add(r->opts->progress_bytes, j->line->raw_len);
		if (r->opts && r->opts->progress_events)
			atomic_fetch_add(r->opts->progress_events, j->line->nev);
		source_release(&r->h->src, j->line->raw_off, j->line->raw_len);
	}
	return NULL;
}

static int job_cmp(const void *a, const void *b)
{
	const struct line_job *x = a, *y = b;

	/* Largest lines first, so the last worker to finish has a small tail. */
	if (x->line->raw_len != y->line->raw_len)
		return x->line->raw_len > y->line->raw_len ? -1 : 1;
	return 0;
}

static int read_lines(struct reader *r, struct xt_error *err)
{
	struct pool pl;
	size_t p, l, i, total = 0;
	int nthreads = r->opts && r->opts->threads ? r->opts->threads : 0;
	pthread_t tid[8];
	struct worker_arg wa[8];
	struct arena arenas[8];

	if (nthreads <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		nthreads = c > 0 ? (int)c : 1;
	}
	if (nthreads > 8)
		nthreads = 8;
	memset(&pl, 0, sizeof(pl));
	pl.r = r;
	for (p = 0; p < r->h->nplanes; p++)
		total += r->h->planes[p].nlines;
	pl.jobs = xcalloc(total ? total : 1, sizeof(*pl.jobs));
	for (p = 0; p < r->h->nplanes; p++)
		for (l = 0; l < r->h->planes[p].nlines; l++)
			pl.jobs[pl.njobs++] = (struct line_job){ &r->h->planes[p],
								 &r->h->planes[p].lines[l] };
	if (pl.njobs > 1)
		qsort(pl.jobs, pl.njobs, sizeof(*pl.jobs), job_cmp);
	if ((size_t)nthreads > pl.njobs)
		nthreads = pl.njobs ? (int)pl.njobs : 1;
	atomic_init(&pl.next, 0);
	atomic_init(&pl.failed, 0);
	atomic_init(&pl.retry, 0);
	pthread_mutex_init(&pl.msg_lock, NULL);
	for (i = 0; i < (size_t)nthreads; i++) {
		arena_init(&arenas[i]);
		wa[i] = (struct worker_arg){ &pl, &arenas[i] };
	}
	/* The calling thread is worker 0. */
	for (i = 1; i < (size_t)nthreads; i++)
		if (pthread_create(&tid[i], NULL, worker, &wa[i]) != 0)
			fatal("cannot create a thread");
	worker(&wa[0]);
	for (i = 1; i < (size_t)nthreads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < (size_t)nthreads; i++)
		arena_adopt(&r->t->arena, &arenas[i]);
	pthread_mutex_destroy(&pl.msg_lock);
	free(pl.jobs);
	if (atomic_load(&pl.failed))
		return xt_error_set(err, atomic_load(&pl.retry) ? XT_ERETRY : XT_EFORMAT, "%s",
				    pl.msg);
	return 0;
}

/* The line's timestamp_ns as written, without decoding its events;
 * returns 1 when the line has at least one event. Upstream writes the
 * timestamp before the events, so this usually stops at the first event. */
static int line_peek(const struct xt_host *h, const struct xt_line *l, int exact, int64_t *ts)
{
	struct wire w;
	int has_ts = 0, has_ev = 0;

	*ts = 0;
	wire_init(&w, h->src.data + l->raw_off, l->raw_len);
	/* Not exact: a line without a timestamp before its first event has
	 * none (read_line checks that no other one follows). */
	while (wire_more(&w) && !(has_ts && has_ev) && !(has_ev && !exact)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 3 && t == WIRE_VARINT) {
			*ts = (int64_t)wire_varint(&w);
			has_ts = 1;
		} else {
			if (f == 4 && t == WIRE_LEN)
				has_ev = 1;
			wire_skip(&w, t);
		}
	}
	return has_ev;
}

/* The Task Environment plane's profile_start_time / profile_stop_time. */
static void task_env(struct xt_host *h)
{
	size_t p, i;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strcmp(pl->name, "Task Environment"))
			continue;
		for (i = 0; i < pl->nstats; i++) {
			struct xt_stat st;

			if (!stat_decode_one(pl, h->src.data + pl->stat_off[i], pl->stat_len[i], &st))
				continue;
			if (stat_known(&st) == XS_PROFILE_START_TIME)
				h->profile_start_ns = (uint64_t)stat_as_int(&st);
			else if (stat_known(&st) == XS_PROFILE_STOP_TIME)
				h->profile_stop_ns = (uint64_t)stat_as_int(&st);
		}
	}
}

/*
 * Decides the host's time base before any line is decoded (docs/analyses.md,
 * "Time base"): timestamps within XT_TS_LIMIT_NS of zero are kept (upstream
 * normalizes them to the profile start); otherwise they are an absolute
 * clock and are rebased on the trace's base, or on this host's first line.
 * The profile start is Task Environment's profile_start_time when it lies
 * on the same clock as the lines, else the rebased zero.
 */
static void host_time_base(struct reader *r)
{
	struct xt_host *h = r->h;
	struct xt_trace *t = r->t;
	int64_t lo = INT64_MAX, hi = INT64_MIN, ts;
	size_t p, l;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++)
			if (line_peek(h, &h->planes[p].lines[l], r->opts && r->opts->exact_peek,
				      &ts)) {
				lo = ts < lo ? ts : lo;
				hi = ts > hi ? ts : hi;
			}
	task_env(h);
	h->ts_base_ns = 0;
	if (lo != INT64_MAX && (lo < -XT_TS_LIMIT_NS || hi > XT_TS_LIMIT_NS)) {
		if (t->has_ts_base && near_ns(lo, t->ts_base_ns) && near_ns(hi, t->ts_base_ns)) {
			h->ts_base_ns = t->ts_base_ns;
		} else {
			h->ts_base_ns = lo;
			if (!t->has_ts_base) {
				t->ts_base_ns = lo;
				t->has_ts_base = 1;
			}
		}
	}
	h->origin_ps = 0;
	h->origin_kind = XT_ORIGIN_NORMALIZED;
	if (lo == INT64_MAX)
		return;
	/* Normalized timestamps count from the profile start, so they are
	 * small: within the profile's length (when Task Environment says it)
	 * plus an hour. Anything larger is a raw clock. */
	{
		int64_t window = 3600000000000LL;
		uint64_t s = h->profile_start_ns, e = h->profile_stop_ns;

		if (s && e > s && e - s < (uint64_t)XT_TS_LIMIT_NS)
			window += (int64_t)(e - s);
		if (lo >= -window && hi <= window)
			return;
	}
	h->origin_kind = XT_ORIGIN_FIRST_LINE;
	h->origin_ps = rebase_ns(lo, h->ts_base_ns) * 1000;
	if (h->profile_start_ns && h->profile_start_ns <= (uint64_t)INT64_MAX) {
		/* On the lines' clock when it is at most an hour before the
		 * first line and not after it. */
		int64_t s = (int64_t)h->profile_start_ns;

		if (s <= lo && near_ns(lo, s) && lo - s <= 3600000000000LL) {
			h->origin_ps = rebase_ns(s, h->ts_base_ns) * 1000;
			h->origin_kind = XT_ORIGIN_TASK_ENV;
		}
	}
}

static const char **push_str(struct reader *r, const char **arr, size_t *n, const uint8_t *s,
			     size_t sn)
{
	arr = xreallocarray(arr, *n + 1, sizeof(*arr));
	arr[(*n)++] = arena_strndup(&r->t->arena, (const char *)s, sn);
	return arr;
}

static int load_host(struct xt_trace *t, const char *path, const char *host_name,
		     const struct xplane_load_opts *opts, struct xt_error *err)
{
	struct reader r = { .t = t, .opts = opts, .path = path };
	struct xt_host h;
	struct wire w;
	size_t pcap = 0, p, l, field_at = 0;
	int rc;

	memset(&h, 0, sizeof(h));
	r.h = &h;
	rc = source_open(&h.src, path, err);
	if (rc < 0)
		return rc;
	h.src.keep_resident = opts && opts->keep_resident;
	if (h.src.size == 0) {
		source_close(&h.src);
		return xt_error_set(err, XT_EFORMAT, "%s: empty file, not an XSpace profile", path);
	}
	wire_init(&w, h.src.data, h.src.size);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned ty;

		field_at = (size_t)(w.p - h.src.data);
		ty = wire_tag(&w, &f);
		const uint8_t *s;
		size_t sn;

		if (ty != WIRE_LEN || f < 1 || f > 4) {
			wire_skip(&w, ty);
			continue;
		}
		s = wire_bytes(&w, &sn);
		if (w.bad)
			break;
		if (f == 1) {
			VEC_PUSH(h.planes, h.nplanes, pcap);
			rc = read_plane(&r, &h.planes[h.nplanes], s, sn, err);
			h.nplanes++;
			if (rc < 0)
				goto fail;
		} else if (f == 2) {
			h.errors = push_str(&r, h.errors, &h.nerrors, s, sn);
		} else if (f == 3) {
			h.warnings = push_str(&r, h.warnings, &h.nwarnings, s, sn);
		} else {
			h.hostnames = push_str(&r, h.hostnames, &h.nhostnames, s, sn);
		}
	}
	if (w.bad) {
		rc = xt_error_set(err, XT_EFORMAT,
				  "%s: not a valid XSpace profile (malformed protobuf in the field at "
				  "byte %zu of %zu; truncated or corrupted file?)",
				  path, field_at, h.src.size);
		goto fail;
	}
	if (h.nplanes == 0 && h.nhostnames == 0 && h.nerrors == 0 && h.nwarnings == 0) {
		rc = xt_error_set(err, XT_EFORMAT, "%s: not an XSpace profile (no planes)", path);
		goto fail;
	}
	h.name = arena_strndup(&t->arena, host_name, strlen(host_name));
	h.path = arena_strndup(&t->arena, path, strlen(path));
	host_time_base(&r);
	if (opts && opts->plane_hook)
		for (p = 0; p < h.nplanes; p++)
			opts->plane_hook(opts->ctx, &h, &h.planes[p]);
	rc = read_lines(&r, err);
	if (rc < 0)
		goto fail;
	for (p = 0; p < h.nplanes; p++) {
		for (l = 0; l < h.planes[p].nlines; l++)
			h.planes[p].nev += h.planes[p].lines[l].nev;
		h.nev += h.planes[p].nev;
	}
	t->hosts = xreallocarray(t->hosts, t->nhosts + 1, sizeof(*t->hosts));
	t->hosts[t->nhosts++] = h;
	t->nev += h.nev;
	trace_set_origin(t);
	return 0;
fail:
	trace_host_fini(&h);
	return rc;
}

int xplane_load(struct xt_trace *t, const char *path, const char *host_name,
		const struct xplane_load_opts *opts, struct xt_error *err)
{
	struct xplane_load_opts exact = { 0 };
	int rc = load_host(t, path, host_name, opts, err);

	/* Hooks have seen lines of the failed attempt: the caller starts over. */
	if (rc != XT_ERETRY || (opts && (opts->line_hook || opts->plane_hook)))
		return rc;
	if (opts)
		exact = *opts;
	exact.exact_peek = 1;
	return load_host(t, path, host_name, &exact, err);
}
