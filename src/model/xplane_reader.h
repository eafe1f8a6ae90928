/*
 * xplane_reader: decodes one XSpace file into a host of a struct xt_trace.
 *
 * Decoding runs in two passes. The first walks the XSpace and each XPlane,
 * reading metadata maps and plane stats and noting where each XLine's bytes
 * are (lines are skipped in O(1) thanks to their length prefix). The second
 * decodes lines in parallel worker threads: events into flat arrays, sorted,
 * with nesting depth and the window index; then an optional hook sees each
 * line (the analyses use it), and the line's pages are dropped from
 * resident memory. Events whose own bytes a hook needs (memory events'
 * stats) go to an optional sink as they are decoded (ev_sink.h), since a
 * big line's pages are given back before its hook runs.
 *
 * Bad input never aborts: every read is bounds-checked and the load fails
 * with one line naming the file and what was wrong.
 */
#ifndef XT_XPLANE_READER_H
#define XT_XPLANE_READER_H

#include <stdatomic.h>
#include <stdint.h>

#include "../util/error.h"
#include "ev_sink.h"
#include "trace.h"

struct xplane_load_opts {
	/* Called once per plane after its metadata is known, before any line
	 * is decoded; single-threaded. May be NULL. */
	void (*plane_hook)(void *ctx, struct xt_host *h, struct xt_plane *p);
	/* Called once per line after it is decoded, from a worker thread; hooks
	 * for different lines run concurrently, so a hook writes only to
	 * line->hook_data or to its own per-line storage. sunk: what the sink
	 * collected from the line (NULL without a sink). May be NULL. */
	void (*line_hook)(void *ctx, struct xt_host *h, struct xt_plane *p, struct xt_line *l,
			  struct xt_sunk *sunk);
	void *ctx;
	/* Sees the events of the metadata a plane hook marks in
	 * plane->sink_meta as they are decoded (ev_sink.h). May be NULL. */
	const struct xt_sink *sink;
	/* For a caller that reads nothing of a line's events once its hook
	 * has run (a report): what the line keeps of them, XT_KEEP_ALL or
	 * XT_KEEP_NONE[_RANGES] (ev_sink.h), asked before it is decoded,
	 * with the name it gives before its first event (n bytes; a line
	 * that gives none keeps them all). A line that keeps none is decoded
	 * range by range into a buffer each thread reuses, and keeps its
	 * count, depth and offsets (xt_line.kept_none). Needs the sink; not
	 * with live. May be NULL: every line keeps its events. */
	int (*line_keep)(void *ctx, const struct xt_host *h, const struct xt_plane *p,
			 const char *name, size_t n);
	int threads;        /* worker threads; 0 = number of online CPUs (max 8) */
	/* Optional progress counters, updated as lines are decoded (another
	 * thread may read them at any time). */
	_Atomic uint64_t *progress_bytes;
	_Atomic uint64_t *progress_events;
	int keep_resident;  /* 1: do not drop parsed pages (small files, tests) */
	/* 1: find each line's timestamp (needed before any line is decoded,
	 * to choose the time base) by reading all of the line. By default only
	 * the fields before its first event are read, as upstream writes the
	 * timestamp first; a file that proves otherwise is loaded again
	 * exactly, by xplane_load itself when no hook has seen a line yet, else
	 * by the caller on XT_ERETRY. */
	int exact_peek;
	/* Lines of this many bytes or more are decoded in chunks by all
	 * threads (line_decode.h); 0: LINE_SPLIT_MIN. Tests set it small. */
	uint64_t split_bytes;
	/* A viewer draws the trace while it loads (trace.h, struct xt_live):
	 * the host joins t as soon as its planes are read (t must have room:
	 * trace_reserve_hosts), its lines marked loading until each is
	 * decoded; on failure the host stays, every line marked loading, for
	 * trace_free(). NULL: the host joins t at the end. */
	struct xt_live *live;
	/* Set by another thread: stop at the next line or chunk and fail with
	 * XT_ECANCEL. NULL: never. */
	atomic_int *cancel;
};

/*
 * Loads the XSpace at path as a new host of t, labelled host_name.
 * Returns 0, or a negative XT_E* with err set; on failure t is unchanged
 * (the partial host is released). XT_ERETRY only with hooks and without
 * exact_peek: load again with exact_peek (the hooks' state included).
 */
int xplane_load(struct xt_trace *t, const char *path, const char *host_name,
		const struct xplane_load_opts *opts, struct xt_error *err);

/*
 * The same for an XSpace already in memory (a capture): data (size bytes
 * from malloc) is decoded in place, with the same bounds checks, and is
 * owned by the trace from then on, or freed when the load fails. label
 * stands for the file in the host and in messages (e.g. where the capture
 * is saved). Returns 0 or a negative XT_E* with err; t is unchanged on
 * failure.
 */
int xplane_load_mem(struct xt_trace *t, void *data, size_t size, const char *label,
		    const char *host_name, const struct xplane_load_opts *opts, struct xt_error *err);

/* A line's own fields read from its bytes, without decoding its events
 * (before the reader chose its time base, or while a live load decodes
 * it and nothing of the line may be read). */
struct xplane_line_head {
	int64_t ts;              /* timestamp_ns as written */
	int64_t id;              /* before its first event, else 0 */
	const char *name;        /* before its first event (n bytes in the file), else NULL */
	size_t nname;
	const char *display_name; /* likewise */
	size_t ndisplay;
};
/* Fills *hd; returns 1 when the line has at least one event. Upstream
 * writes the timestamp before the events, so this usually stops at the
 * first event (exact: reads on to a timestamp written after them). */
int xplane_line_peek(const struct xt_host *h, const struct xt_line *l, int exact,
		     struct xplane_line_head *hd);

#endif
