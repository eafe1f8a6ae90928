/*
 * trace: xtop's in-memory profile model.
 *
 * A trace holds one or more hosts (one XSpace file each). Everything the
 * file says is kept: planes, lines, every event, all metadata, all stats.
 * Event times and metadata references live in flat arrays; stats and opaque
 * metadata bytes stay in the mapped source and are decoded on demand
 * (stat_iter), so the model costs 12 bytes per event (14 to 16 in a block
 * whose events lie far apart: see struct xt_event) and the source's
 * pages can leave resident memory once parsed. (Real profiles take 22 to 30
 * bytes per event on disk, so 24-byte records alone would bring the model
 * near the file's size: docs/performance.md.)
 *
 * Ownership: struct trace owns everything reachable from it (an arena for
 * names and tables, per-line event arrays, the mapped sources); trace_free()
 * releases it all. Strings returned by accessors point into the trace and
 * are valid until trace_free().
 *
 * Invariants after loading: the events of each line are sorted by start
 * (stable, so equal starts keep file order with enclosing events first),
 * each event's depth is its nesting level on its line, and blk_maxend allows
 * window queries in O(log n + k).
 */
#ifndef XT_TRACE_H
#define XT_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "../util/sat.h"
#include "source.h"

/* Well-known stat names, resolved once per plane (stat_meta.known). */
enum xt_known_stat {
	XS_NONE = 0,
	XS_HLO_OP,
	XS_HLO_MODULE,
	XS_HLO_CATEGORY,
	XS_PROGRAM_ID,
	XS_GROUP_ID,
	XS_STEP_NUM,
	XS_ITER_NUM,
	XS_IS_ROOT, /* "_r" */
	XS_TF_OP,
	XS_FLOPS,
	XS_BYTES_ACCESSED,
	XS_KERNEL_DETAILS,
	XS_CORRELATION_ID,
	XS_ALLOCATOR_NAME,
	XS_INDEX_ON_HOST,
	XS_DEVICE_ORDINAL,
	XS_BYTES_RESERVED,
	XS_BYTES_ALLOCATED,
	XS_BYTES_AVAILABLE,
	XS_PEAK_BYTES_IN_USE,
	XS_REQUESTED_BYTES,
	XS_ALLOCATION_BYTES,
	XS_ADDR,
	XS_SHAPE,
	XS_PROFILE_START_TIME,
	XS_PROFILE_STOP_TIME,
	XS_LEVEL0,          /* "level 0": the TF op of a kernel (older TensorFlow) */
	XS_MEM_BREAKDOWN,   /* memory_access_breakdown (TPU) */
	XS_RUN_ID,
	XS_DEVICE_OFFSET_PS,   /* an op's start by the device's own clock (TPU) */
	XS_DEVICE_DURATION_PS, /* and its duration */
	XS_COUNT
};

struct xt_stat_meta {
	int64_t id;       /* XStatMetadata.id (the map key) */
	const char *name; /* in the trace arena */
	uint32_t name_len;
	uint64_t raw_off; /* encoded XStatMetadata in the source */
	uint32_t raw_len;
	uint8_t known;    /* enum xt_known_stat */
};

struct xt_event_meta {
	int64_t id;               /* XEventMetadata.id (the map key) */
	const char *name;         /* in the arena; "" when absent */
	const char *display_name; /* in the arena; "" when absent */
	uint64_t raw_off;         /* encoded XEventMetadata (stats, HLO proto bytes) */
	uint32_t raw_len;
};

/* The high byte of xt_event.meta: bit 7 marks an aggregated event
 * (num_occurrences), bit 6 an event carrying a watched stat (see
 * xt_plane.watch_lo), bits 0-5 the nesting depth (deeper events are drawn
 * at depth 63; self times do not use it). */
#define XT_EV_AGGREGATED 0x80u
#define XT_EV_WATCHED 0x40u
#define XT_EV_DEPTH_MAX 63u
#define XT_EV_META_BITS 24
#define XT_EV_META_MASK ((1u << XT_EV_META_BITS) - 1)

/*
 * One event in 12 bytes. The start takes 32 bits, after a base kept per
 * block of XT_BLOCK events (struct xt_block): a sorted line's neighbours
 * start within 4.3 ms of each other nearly always; a block whose events do
 * not (sparse lines, aggregated events, hostile offsets) keeps the high
 * bits of their distances from the base beside them, two bytes each when
 * they fit (within 281 s), else four. xt_event_off() reads either.
 * The duration takes 32 bits: XT_DUR_LONG (4.3 ms and more, or negative)
 * sends xt_event_dur() to the line's long durations. Where the event's
 * bytes are is not stored per event: events are nearly always in file
 * order, so the line keeps the offset of every XT_BLOCK-th event (blk_raw)
 * and trace_event_bytes() skips forward from it; a line whose events had
 * to be sorted keeps every offset (raw), one whose decoder put a few in
 * order as it went (a TPU's ops by the device's clock) keeps theirs
 * (raw_at).
 */
struct xt_event {
	uint32_t off;     /* start - its block's base, low 32 bits: see xt_event_off() */
	uint32_t dur;     /* duration, ps (0 for instants); XT_DUR_LONG: see xt_event_dur() */
	uint32_t meta;    /* low 24 bits: index into plane->emeta; high 8: depth | AGGREGATED */
};

/* The starts of a block of events: event j of the block starts at base +
 * (hi << 32 | ev.off), modulo 2^64, hi 0 when wide is 0, else
 * wide16[(wide - 1) * XT_BLOCK + j], or with XT_WIDE32 set in wide,
 * wide32[((wide & ~XT_WIDE32) - 1) * XT_BLOCK + j]. */
struct xt_block {
	int64_t base;
	uint32_t wide;
};
#define XT_WIDE32 0x80000000u
#define XT_DUR_LONG UINT32_MAX

#define XT_BLOCK 64 /* events per blk_maxend / blk_raw / blk entry */
#define XT_WATCH_MAX 8

/* Event ev of a line, not the file's ev-th: its tag's offset. */
struct xt_raw_at {
	uint32_t ev, raw;
};

struct xt_line {
	int64_t id;               /* XLine.id (may be negative or >= 2^63 as uint64) */
	int64_t display_id;
	const char *name;         /* in the arena */
	const char *display_name;
	int64_t timestamp_ns;     /* line start, ns in the file's time base */
	/* The timestamp as the file writes it, read before any event is
	 * decoded (host_time_base): what device_offset_ps is taken against. */
	int64_t peek_ts_ns;
	int64_t duration_ps;
	uint64_t raw_base;        /* source offset that event offsets are relative to */
	uint64_t raw_off;         /* encoded XLine in the source */
	uint64_t raw_len;
	/* nev events sorted by start; owned by the trace. NULL with nev > 0
	 * when the load kept none (kept_none: a report's host lines, whose
	 * analyses read them while loading): then only nev, max_depth and
	 * blk_raw (raw when sorted) are set. */
	struct xt_event *ev;
	size_t nev;
	size_t ev_map;            /* bytes of ev mapped by bigmem (0: ev is malloc'd) */
	/* Durations ev[].dur cannot hold, in event order, found without a
	 * search (xt_event_dur): bit j of long_mask[b] marks event
	 * b * XT_BLOCK + j as long, and block b's first is long_ps[long_first[b]].
	 * A line decoded in pieces keeps each piece's durations where the piece
	 * wrote them (at its first event's index), so long_ps may have gaps. */
	int64_t *long_ps;
	size_t nlong_dur;
	size_t long_map;          /* bytes of long_ps mapped by bigmem (0: malloc'd) */
	uint64_t *long_mask;
	uint32_t *long_first;
	/* Starts (ps since the line's timestamp; num_occurrences for an
	 * aggregated event) by block: see struct xt_block, xt_event_off(). */
	struct xt_block *blk;
	uint16_t *wide16;
	uint32_t *wide32;
	size_t blk_map, wide16_map, wide32_map; /* bytes mapped by bigmem (0: malloc'd) */
	uint32_t *blk_raw;        /* [b] = offset of event b*XT_BLOCK's tag (events in file order) */
	uint32_t *raw;            /* [i] = offset of event i's tag, when not in file order; else NULL */
	/* A line nearly in file order (a device's clock puts an op a place
	 * or two from where the file has it): the events not at their file
	 * index, ascending by index; every other event i is the file's i-th. */
	struct xt_raw_at *raw_at;
	size_t nraw_at;
	uint64_t gen;             /* unique among loaded lines (for lookup caches) */
	int64_t *blk_maxend;      /* [i] = max end offset over events [0, (i+1)*XT_BLOCK) */
	uint32_t max_depth;
	uint8_t loading;          /* 1 while a live load decodes it: nothing above is ready */
	uint8_t kept_none;        /* its events were decoded but not kept (ev) */
	void *hook_data;          /* per-line slot for a load hook's partial results */
};

struct xt_plane {
	int64_t id;
	const char *name;
	struct xt_line *lines;
	size_t nlines;
	struct xt_event_meta *emeta; /* [0] is a synthetic empty entry for unknown ids */
	size_t nemeta;
	struct xt_stat_meta *smeta;
	size_t nsmeta;
	uint64_t *stat_off;          /* plane-level XStat encodings in the source */
	uint32_t *stat_len;
	size_t nstats;
	/* id -> index hash tables (open addressing, power-of-two sizes). */
	uint32_t *emeta_hash;
	size_t emeta_hcap;
	uint32_t *smeta_hash;
	size_t smeta_hcap;
	/* Upstream ids are small and dense, so most lookups are one array
	 * index: [id] = emeta index / smeta index + 1, 0 when unknown. */
	uint32_t *emeta_direct;
	size_t emeta_ndirect;
	uint32_t *smeta_direct;
	size_t smeta_ndirect;
	uint8_t emeta_direct_only; /* every id is in the direct table */
	uint8_t smeta_direct_only;
	int64_t known_id[XS_COUNT];  /* stat metadata id of each well-known name */
	uint8_t has_known[XS_COUNT];
	uint64_t raw_off, raw_len;   /* encoded XPlane in the source */
	size_t nev;                  /* events on all lines */
	void *hook_data;             /* per-plane slot for a load hook's context */
	/* Stat metadata ids a plane hook asks the reader to watch for: bit i
	 * of watch_lo for id i < 64, the others listed in watch_ids. The
	 * reader marks events carrying one XT_EV_WATCHED, so analyses skip the
	 * stats of every other event without decoding them. */
	uint64_t watch_lo;
	int64_t watch_ids[XT_WATCH_MAX];
	uint8_t nwatch_ids;
	uint8_t watch_on;            /* 0: nothing watched, events are never marked */
	/* A /device: plane whose stats include device_offset_ps and
	 * device_duration_ps: an event carrying both is timed by them, the
	 * device's own clock, as XProf times a TPU's ops
	 * (GetDeviceEventTimespan): docs/analyses.md, "Device time". */
	uint8_t dev_time;
	/* [emeta index] nonzero but for XT_SINK_NO_RANGE: the load's event
	 * sink (ev_sink.h) sees these events (and those carrying a watched
	 * stat) as they are decoded. Set and owned by a plane hook; NULL: none. */
	const uint8_t *sink_meta;
	/* [stat metadata id < XT_KEY_IDS] XT_KEY_STAT: the reader copies the stat
	 * into the event's key for the sink (xt_sink_ev.key), XT_KEY_CORR: it
	 * reads it as the event's correlation. Set and owned by a plane hook;
	 * NULL: no keys. */
	const uint8_t *key_ids;
};
enum { XT_KEY_STAT = 1, XT_KEY_CORR = 2 };
#define XT_KEY_MAX 64    /* bytes of a key, at most */
#define XT_KEY_IDS 16384 /* ids in one or two varint bytes */

struct xt_host {
	const char *name;   /* host label: file name minus .xplane.pb(.gz) */
	const char *path;   /* file it came from */
	struct source src;
	struct xt_plane *planes;
	size_t nplanes;
	const char **hostnames; /* XSpace.hostnames */
	size_t nhostnames;
	const char **errors;    /* XSpace.errors */
	size_t nerrors;
	const char **warnings;  /* XSpace.warnings */
	size_t nwarnings;
	size_t nev;
	/* Time base. Upstream writes line timestamps relative to the profile
	 * start; a raw XSpace (e.g. from a PJRT plugin) uses an absolute clock
	 * whose picoseconds overflow int64. Every host's timestamps are stored
	 * minus ts_base_ns (xt_line.timestamp_ns), which puts the hosts of a
	 * trace on one clock: an absolute clock is rebased on the trace's
	 * base, a normalized host is shifted by its start (ts_base_ns is then
	 * the trace's base minus its start). origin_ps is the profile start on
	 * that clock. */
	int64_t ts_base_ns;
	uint64_t profile_start_ns, profile_stop_ns; /* Task Environment (0: absent) */
	int64_t origin_ps;
	uint8_t origin_kind;    /* enum xt_origin_kind */
	/* Several hosts on one clock (clock.h; docs/analyses.md, "Several
	 * hosts"): how the host was placed, and its residual clock skew
	 * against the reference host, measured after the placement. */
	uint8_t aligned_by;     /* enum xt_align */
	uint8_t skew_method;    /* enum xt_skew_method; XT_SKEW_NONE: no estimate */
	uint8_t skew_corrected; /* 1: the lines were moved back by skew_ps (to the ns) */
	int64_t skew_ps;        /* median of the matched offsets (this host - reference), ps */
	int64_t skew_spread_ps; /* their interquartile range, ps; -1: one offset, none */
	uint32_t skew_matches;  /* offsets the estimate rests on */
};

/* How a host was put on the trace's clock (clock.h). */
enum xt_align {
	XT_ALIGN_NONE = 0,     /* no start time, or a clock unrelated to the trace's: its own
				* zero is put at the trace clock's base, and it is not aligned */
	XT_ALIGN_TASK_ENV,     /* normalized timestamps, shifted by Task Environment's start */
	XT_ALIGN_SHARED_CLOCK, /* timestamps on an absolute clock that the trace shares */
	XT_ALIGN_COUNT
};

/* What a host's skew estimate rests on (clock.h). */
enum xt_skew_method {
	XT_SKEW_NONE = 0,      /* nothing matched: unknown */
	XT_SKEW_REFERENCE,     /* the reference host itself (skew 0) */
	XT_SKEW_COLLECTIVES,   /* the ends of the same collectives */
	XT_SKEW_DEVICE_STEPS,  /* the starts of the same steps on device Steps lines */
	XT_SKEW_COUNT
};

/* Timestamps further than this from their clock's base (about 104 days)
 * would overflow int64 picoseconds: such lines are clamped (corrupt input). */
#define XT_TS_LIMIT_NS 9000000000000000LL

/* Where a host's profile start comes from (docs/analyses.md, "Time base"). */
enum xt_origin_kind {
	XT_ORIGIN_NORMALIZED = 0, /* timestamps are relative to the start already */
	XT_ORIGIN_TASK_ENV,       /* Task Environment's profile_start_time */
	XT_ORIGIN_FIRST_LINE,     /* an absolute clock with no usable start: the first line */
};

struct xt_trace {
	struct xt_host *hosts;
	size_t nhosts;
	size_t caphosts;     /* room in hosts (trace_reserve_hosts) */
	size_t nev;          /* events in all hosts */
	struct arena arena;  /* names and tables */
	/* The trace's clock: the absolute time (ns) that a stored timestamp
	 * of 0 stands for, set by the first host that has a known clock (its
	 * Task Environment start, or the first line of an absolute clock).
	 * Every host on it is placed relative to it (clock_host_base()). */
	int64_t ts_base_ns;
	int has_ts_base;
	/* The profile start every time is shown relative to: the earliest
	 * host origin (trace_set_origin()). */
	int64_t origin_ps;
};

/*
 * A trace shown while it loads (xplane_load_opts.live): the loader adds
 * hosts and finishes lines under lock, and whoever reads the trace
 * meanwhile holds it too; a line marked loading must not be read at all.
 * version grows (under lock) with every change.
 */
struct xt_live {
	pthread_mutex_t lock;
	unsigned version;
};

/* Creates an empty trace; free with trace_free(). Never NULL. */
struct xt_trace *trace_new(void);
/* Makes room for n hosts in all, so that adding them never moves the
 * hosts already there (live loads). Can't fail. */
void trace_reserve_hosts(struct xt_trace *t, size_t n);
/* Releases the trace and everything it owns. NULL is allowed. */
void trace_free(struct xt_trace *t);
/* Releases what one host owns (not its arena strings) and zeroes it. */
void trace_host_fini(struct xt_host *h);

/* Sets t->origin_ps from the hosts' origins; called once all hosts are
 * loaded (load_profile and every other loader). Can't fail. */
void trace_set_origin(struct xt_trace *t);
/* An absolute time of the trace (ps) as shown: relative to the profile start. */
static inline int64_t trace_rel_ps(const struct xt_trace *t, int64_t abs_ps)
{
	return (int64_t)((uint64_t)abs_ps - (uint64_t)t->origin_ps); /* modulo 2^64 */
}

/* Index of the event metadata of ev, its depth, and whether it is aggregated. */
static inline uint32_t xt_event_meta_index(const struct xt_event *ev)
{
	return ev->meta & XT_EV_META_MASK;
}
static inline unsigned xt_event_depth(const struct xt_event *ev)
{
	return (ev->meta >> XT_EV_META_BITS) & XT_EV_DEPTH_MAX;
}
/* 1 when the event's own stats include one of its plane's watched ids. */
static inline int xt_event_watched(const struct xt_event *ev)
{
	return (ev->meta >> XT_EV_META_BITS) & XT_EV_WATCHED;
}
static inline int xt_event_aggregated(const struct xt_event *ev)
{
	return (ev->meta >> XT_EV_META_BITS) & XT_EV_AGGREGATED;
}

/* Bits set in x. Written out because the portable x86-64 baseline has no
 * popcnt instruction: __builtin_popcountll() there is a call into libgcc,
 * on the path of every long duration read. */
static inline unsigned xt_popcount64(uint64_t x)
{
	x -= (x >> 1) & UINT64_C(0x5555555555555555);
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The long duration of event i (ev[i].dur is XT_DUR_LONG): its rank among
 * its block's long events picks it, so any access order costs the same
 * (a few cache lines, no search). */
static inline int64_t xt_event_long_dur(const struct xt_line *l, size_t i)
{
	size_t b = i / XT_BLOCK;
	uint64_t below = l->long_mask[b] & ((UINT64_C(1) << (i % XT_BLOCK)) - 1);

	return l->long_ps[l->long_first[b] + xt_popcount64(below)];
}

/* Duration of event ev of line l, ps. */
static inline int64_t xt_event_dur(const struct xt_line *l, const struct xt_event *ev)
{
	return ev->dur != XT_DUR_LONG ? (int64_t)ev->dur : xt_event_long_dur(l, (size_t)(ev - l->ev));
}

/* Start of the event at place j of block b whose ev.off is off (the line's
 * or, while it is decoded, its builder's wide16 / wide32). */
static inline int64_t xt_block_start(const struct xt_block *b, const uint16_t *wide16,
				     const uint32_t *wide32, uint32_t off, size_t j)
{
	uint64_t v = (uint64_t)b->base + off;

	if (__builtin_expect(b->wide != 0, 0)) {
		size_t k = (size_t)((b->wide & ~XT_WIDE32) - 1) * XT_BLOCK + j;

		v += (uint64_t)(b->wide & XT_WIDE32 ? wide32[k] : wide16[k]) << 32;
	}
	return (int64_t)v;
}
/* Start of event i of line l, ps since the line's timestamp
 * (num_occurrences for an aggregated event). */
static inline int64_t xt_event_off(const struct xt_line *l, size_t i)
{
	return xt_block_start(&l->blk[i / XT_BLOCK], l->wide16, l->wide32, l->ev[i].off,
			      i % XT_BLOCK);
}

/* Absolute start/end of ev on line, ps in the file's time base. */
/* Times are sums modulo 2^64 (a hostile file's timestamp or offset can
 * run past INT64_MAX, where signed arithmetic is undefined): the line's
 * timestamp in ps, and a time plus a span. */
static inline int64_t xt_line_base(const struct xt_line *l)
{
	return (int64_t)((uint64_t)l->timestamp_ns * 1000u);
}
static inline int64_t xt_ps_add(int64_t t, int64_t d)
{
	return (int64_t)((uint64_t)t + (uint64_t)d);
}
static inline int64_t xt_ps_sub(int64_t t, int64_t u)
{
	return (int64_t)((uint64_t)t - (uint64_t)u);
}
static inline int64_t xt_event_start(const struct xt_line *l, const struct xt_event *ev)
{
	return xt_ps_add(xt_line_base(l), xt_event_off(l, (size_t)(ev - l->ev)));
}
static inline int64_t xt_event_end(const struct xt_line *l, const struct xt_event *ev)
{
	return xt_ps_add(xt_event_start(l, ev), xt_event_dur(l, ev));
}

/* Metadata of ev (the synthetic empty entry when the id was unknown). */
static inline const struct xt_event_meta *xt_event_meta(const struct xt_plane *p,
							const struct xt_event *ev)
{
	return &p->emeta[xt_event_meta_index(ev)];
}

/* Name shown for an event: display_name when set, else name. */
const char *trace_event_display_name(const struct xt_plane *p, const struct xt_event *ev);

/* The hash of metadata ids in the plane's tables (shared by the reader
 * that builds them and the lookups), and of any 64-bit key a file writes
 * (the memory replay's addresses). */
static inline size_t trace_hash_id(int64_t id)
{
	/* A full mix (splitmix64's finaliser), so that its low bits, which
	 * index the tables, depend on every bit of the id: ids a hostile file
	 * spaces by a power of two (i << 48) would otherwise fall on a few
	 * slots, and the tables fill in quadratic time. */
	uint64_t x = (uint64_t)id;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(x ^ (x >> 31));
}

/* Returns the index into plane->emeta for metadata id, or 0 when unknown. */
uint32_t trace_emeta_lookup_slow(const struct xt_plane *p, int64_t id);
static inline uint32_t trace_emeta_lookup(const struct xt_plane *p, int64_t id)
{
	if (id >= 0 && (uint64_t)id < p->emeta_ndirect)
		return p->emeta_direct[id];
	return trace_emeta_lookup_slow(p, id);
}
/* Returns the stat metadata with id, or NULL. */
const struct xt_stat_meta *trace_smeta_lookup_slow(const struct xt_plane *p, int64_t id);
static inline const struct xt_stat_meta *trace_smeta_lookup(const struct xt_plane *p, int64_t id)
{
	if (id >= 0 && (uint64_t)id < p->smeta_ndirect) {
		uint32_t i = p->smeta_direct[id];

		return i ? &p->smeta[i - 1] : NULL;
	}
	return trace_smeta_lookup_slow(p, id);
}

/*
 * Window query: the events of line l overlapping [t0, t1) (absolute ps;
 * an instant at t counts when t0 <= t < t1). Sets *first to the index of the
 * first candidate and returns one past the last; callers still test each
 * event in [*first, ret) for overlap (nested events make the candidate range
 * a superset). O(log n) plus the range.
 */
size_t trace_line_window(const struct xt_line *l, int64_t t0, int64_t t1, size_t *first);

/* Offset of event i's encoding (its tag) from l->raw_base. Sequential
 * calls on one line cost one step each (a per-thread cursor). */
uint64_t trace_event_raw(const struct xt_host *h, const struct xt_line *l, size_t i);
/* For passes that read a big line's event bytes in order: gives back the
 * line's source pages before event i once it has moved XT_RELEASE_STEP
 * past *done (0 at the start), as the reader does while decoding. */
#define XT_RELEASE_STEP ((uint64_t)16 << 20)
void trace_release_before(const struct xt_host *h, const struct xt_line *l, size_t i,
			  uint64_t *done);
/* Source bytes of the encoded XEvent ev on line l (tag excluded). */
const uint8_t *trace_event_bytes(const struct xt_host *h, const struct xt_line *l,
				 const struct xt_event *ev, size_t *n);
/* The same for event i, also of a line that kept no events (kept_none). */
const uint8_t *trace_event_bytes_at(const struct xt_host *h, const struct xt_line *l, size_t i,
				    size_t *n);

#endif
