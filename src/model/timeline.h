/*
 * timeline: what the timeline view asks of the model, with no terminal in
 * sight. Tracks are the lines of every plane of every host, in file order.
 * For each track a per-depth index (built on first use, 4 bytes an event)
 * lists the events of one nesting level in start order; events of one level
 * do not overlap, so a screen column's events at a level are found with two
 * binary searches whatever the zoom, and dense columns are counted, never
 * skipped.
 *
 * Lines still loading (xt_line.loading) are left out: a viewer builds a
 * new timeline as a live load finishes more lines.
 *
 * Ownership: struct timeline borrows the trace (which must outlive it) and
 * owns its track list, labels and indexes; timeline_free() releases them.
 */
#ifndef XT_TIMELINE_H
#define XT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct tl_depth {
	uint32_t *idx;    /* event indices of each depth, concatenated */
	size_t *start;    /* [d] = first position of depth d in idx; [ndepth] = total */
	int64_t *key;     /* [j] = start offset of event idx[j * TL_KEY_STEP]: searches
			     touch this small array, then one stretch of idx */
	unsigned ndepth;
};
#define TL_KEY_STEP 32

struct tl_track {
	size_t host, plane, line;
	struct xt_line *l;          /* borrowed */
	const struct xt_plane *p;   /* borrowed */
	struct tl_depth *depth;     /* NULL until timeline_depth() builds it */
	/* The track's name, unique within its plane: the line's display name
	 * (else its name, else "(unnamed)"), with " [ID]" (the line id, a
	 * thread id on host planes) when several lines share it. Owned. */
	char *label;
};

struct timeline {
	struct xt_trace *t;         /* borrowed */
	struct tl_track *tracks;
	size_t ntracks;
	/* Extent of all timed events, absolute ps, within +-TIMELINE_FAR. */
	int64_t t0, t1;
	/* The devices' busy span: the first start to the last end of the
	 * timed events on /device: planes (absolute ps); has_dev 0 when there
	 * are none (then dev_t0, dev_t1 are t0, t1). */
	int64_t dev_t0, dev_t1;
	int has_dev;
};

/* A hostile file's times lie anywhere in int64. The extent stays within
 * +-2^60 ps of the trace's base (13 days; real profiles span seconds to
 * hours), so that the view's widths, margins and zooms stay in range;
 * events past it are off the axis. */
#define TIMELINE_FAR (INT64_C(1) << 60)

/* A new timeline over t; never NULL. Free with timeline_free(). */
struct timeline *timeline_new(struct xt_trace *t);
void timeline_free(struct timeline *tl);
/* Moves to tl the per-depth indexes old built for lines tl shows too (both
 * over one trace: a live load's newer timeline). Can't fail. */
void timeline_adopt(struct timeline *tl, struct timeline *old);
/* The per-depth index of track i, built on first call. Never NULL. */
const struct tl_depth *timeline_depth(struct timeline *tl, size_t i);

/* One screen column of one depth row. */
struct tl_cell {
	uint32_t count;  /* events of this depth overlapping the column */
	int64_t ev;      /* the event when count is 1; the first of them when
			    more (a dense column is drawn as dense); else -1 */
};

/* Samples depth d of track i over [t0, t1) into ncols cells. */
void timeline_sample(struct timeline *tl, size_t i, unsigned d, int64_t t0, int64_t t1,
		     unsigned ncols, struct tl_cell *out);

/* The event of track i at depth d covering time t (or the nearest one
 * starting after t when none covers it if forward, before when backward);
 * -1 when none. */
int64_t timeline_event_at(struct timeline *tl, size_t i, unsigned d, int64_t t);
/* [*s, *e] moved within the extent, *e never before *s. */
void timeline_clamp(const struct timeline *tl, int64_t *s, int64_t *e);
/* Event ev of line l as the view places it: its start and end (the end
 * saturated) within the extent (timeline_clamp). */
void timeline_event_span(const struct timeline *tl, const struct xt_line *l,
			 const struct xt_event *ev, int64_t *s, int64_t *e);
/* Next (dir > 0) or previous (dir < 0) event of track i after / before
 * event ev in start order at any depth; -1 at the end. */
int64_t timeline_step(struct timeline *tl, size_t i, int64_t ev, int dir);
/* Self time of event ev on track i: duration minus its direct children. */
int64_t timeline_self_ps(struct timeline *tl, size_t i, int64_t ev);
/* The first event one level below event ev of track i that lies within it
 * (starts at or after it and ends by its end); -1 when none. */
int64_t timeline_first_child(struct timeline *tl, size_t i, int64_t ev);
/* With nothing selected on track i, events folded into summaries aside:
 * dir > 0, the first event on screen in [v0, v1) (one begun before v0 that
 * reaches into it included), else the first after v1; dir < 0, the last
 * that starts before v1; -1 when none. */
int64_t timeline_from_view(struct timeline *tl, size_t i, int64_t v0, int64_t v1, int dir);
/* Track index of (host, plane, line), or -1. */
long timeline_track_of(const struct timeline *tl, const struct xt_line *l);

#endif
