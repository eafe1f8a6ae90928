/*
 * ev_sink: events handed to a load hook while the reader decodes them.
 *
 * An analysis that needs the stats of a few kinds of event (memory
 * allocations) would otherwise find each one's bytes again after the line
 * is decoded, when the reader has given its pages back: on a 1 GB profile
 * that re-reading was a sixth of the load. Instead a plane hook marks the
 * event metadata it wants (xt_plane.sink_meta), and the reader calls
 * event() for each such event, and for each event carrying a watched stat
 * (xt_plane.watch_lo), with its bytes, while they are in cache.
 *
 * Each decoded range of a line (the whole line, or a chunk of a big one,
 * decoded by any thread) fills a part of its own: the reader makes it with
 * part_new(), and after the line is complete hands the line hook all of
 * its parts in file order (struct xt_sunk); the reader frees them with
 * part_free() after the hook, or when the load fails. The sink owns what
 * is in a part; the hook may take it.
 */
#ifndef XT_EV_SINK_H
#define XT_EV_SINK_H

#include <stddef.h>
#include <stdint.h>

struct xt_host;
struct xt_plane;

/* An event handed to the sink: event i of the line (file order), not
 * aggregated. */
struct xt_sink_ev {
	size_t i;
	uint32_t meta;          /* its metadata index */
	int watched;            /* it carries a watched stat */
	int64_t off_ps, dur_ps; /* as written (before the line's timestamp is rebased) */
	const uint8_t *b;       /* its XEvent encoding, n bytes */
	size_t n;
	/* Where the plane has key_ids: its metadata index (4 bytes) then the
	 * event's XT_KEY_STAT stats, each as its length byte and bytes, in
	 * order (kn bytes in all; kn < 0: a stat is framed otherwise than
	 * upstream writes them, or they do not fit), and its first
	 * XT_KEY_CORR stat's integer (INT64_MIN: none). */
	const uint8_t *key;
	int kn;
	int64_t corr;
};

/* What a line keeps of its events (xplane_load_opts.line_keep). */
enum {
	XT_KEEP_ALL = 0,
	XT_KEEP_NONE = 1,        /* none: counts, depths and offsets only */
	XT_KEEP_NONE_RANGES = 3, /* none, and the sink's range() sees them */
};
#define XT_KEEP_RANGES_BIT 2
/* A bit of xt_plane.sink_meta: range() does not see these events (the
 * Python tracer's frames, tens of millions on a line: filtered as they are
 * decoded, not by a call each); the other bits say whether event() does. */
#define XT_SINK_NO_RANGE 0x80

/* A timed event of a range (not aggregated, lasting), for range(). */
struct xt_sink_rev {
	size_t i;               /* event i of the line */
	uint32_t meta;          /* its metadata index */
	int64_t off_ps, dur_ps; /* as written (before the line's timestamp is rebased) */
};

struct xt_sink {
	void *(*part_new)(void *ctx, const struct xt_host *h, const struct xt_plane *p);
	void (*event)(void *part, const struct xt_sink_ev *e);
	void (*part_free)(void *part);
	/* For a line whose events are not kept (xplane_load_opts.line_keep
	 * says XT_KEEP_NONE_RANGES): the timed events of the part's range, in
	 * order, n at a time, after the range is decoded and before its
	 * events are dropped. May be NULL otherwise. */
	void (*range)(void *part, const struct xt_sink_rev *v, size_t n);
	void *ctx;
};

/* A line's parts, for its line hook. moved: the events were not in order
 * in the file and the line sorted them, so event i of the file is event
 * moved[i] of the line; NULL when every event kept its place. */
struct xt_sunk {
	void **parts;
	size_t nparts;
	const uint32_t *moved;
};

#endif
