/*
 * line_decode: one XLine's bytes into the trace's event arrays (trace.h
 * describes the 12-byte records, the per-block offsets and the long
 * durations), sorted, with depths and the window index.
 *
 * A line of ordinary size is decoded in one call (line_decode). A big one
 * is split so that both cores work on it (real profiles often have one
 * line, the Python tracer's, holding most of the file): line_split_walk()
 * reads the line's framing once (its own fields, and where each event
 * starts) and hands out chunks of about LINE_CHUNK bytes as it finds them;
 * any thread decodes a chunk (line_split_chunk); whoever completes the last
 * part (line_split_done) finishes the line (line_split_finish).
 *
 * A line that keeps no events (line_in.keep: a report's host lines) is
 * decoded range by range (the whole line, or each chunk) without storing
 * them: each range leaves what the line needs of them (its tops, for the
 * depth) and hands its timed events to the sink as they are decoded.
 *
 * Both release the line's source pages as they go (source_release), and
 * neither rebases the line's timestamp: the reader does that. Bad input
 * never aborts: every read is bounded, and a malformed line returns -1.
 */
#ifndef XT_LINE_DECODE_H
#define XT_LINE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"
#include "ev_sink.h"
#include "source.h"
#include "trace.h"

/* What decoding a line needs. l->raw_off and raw_len are set, and
 * l->timestamp_ns holds the value the time base was chosen with. */
struct line_in {
	const struct xt_host *h; /* the host being read (for the sink) */
	const struct source *src;
	const struct xt_plane *p;
	struct xt_line *l;
	struct arena *a;        /* for the line's names (the caller's thread's) */
	int exact_peek;         /* xplane_load_opts.exact_peek */
	uint64_t chunk;         /* split lines: bytes per chunk (0: LINE_CHUNK) */
	const struct xt_sink *sink; /* for the events p->sink_meta marks; NULL: none */
	/* XT_KEEP_ALL, or (with a sink) XT_KEEP_NONE[_RANGES]: the line keeps
	 * no events (xt_line.kept_none); its name was read before its first
	 * event (a line that names itself again after it is decoded once
	 * more, keeping them, as is one found out of order). */
	int keep;
};

/* What the sink collected from a complete line (no parts when the plane
 * marks nothing), handed to its line hook; line_sunk_free() after. */
void line_sunk_free(const struct xt_sink *sink, struct xt_sunk *k);

/* Results of line_decode() and line_split_walk(): 0, or */
enum {
	LINE_EBAD = -1,         /* malformed */
	LINE_EBIG = -2,         /* over 4 GiB */
	LINE_ERETRY = -3,       /* a timestamp after the events: see exact_peek */
};

/* Decodes a whole line, the sink's part into *sunk. Returns 0 or
 * LINE_E*; on failure nothing of the line is allocated. */
int line_decode(const struct line_in *in, struct xt_sunk *sunk);

/* Lines at least this long are split, in chunks of about LINE_CHUNK. */
#define LINE_SPLIT_MIN ((uint64_t)48 << 20)
#define LINE_CHUNK ((uint64_t)16 << 20)

struct line_split;
/* A new split of in->l (raw_len >= LINE_SPLIT_MIN); never NULL. */
struct line_split *line_split_new(const struct line_in *in);
/*
 * Reads the line's framing and its own fields, calling ready(arg, s, k)
 * for each chunk k that may be decoded from then on (as each is found
 * where the arrays could be reserved whole, else all after the walk).
 * Returns 0 or LINE_E*. Then call line_split_done() once, success or not.
 */
int line_split_walk(struct line_split *s, void (*ready)(void *arg, struct line_split *s, size_t k),
		    void *arg);
/* Decodes chunk k; returns 0 or LINE_EBAD. Then line_split_done(). */
int line_split_chunk(struct line_split *s, size_t k);
/* The bytes of the line that chunk k covers. */
uint64_t line_split_chunk_bytes(const struct line_split *s, size_t k);
/* The events of chunk k (known once the walk found it). */
uint64_t line_split_chunk_events(const struct line_split *s, size_t k);
/* Counts one part (the walk or a chunk) done; returns 1 for the caller
 * that completed the last part. Thread-safe. */
int line_split_done(struct line_split *s);
/* Completes the line (arrays, order, depths), the sink's parts into
 * *sunk, and frees s. A line that keeps no events but cannot do without
 * them (out of order, depths at the cap, named again) is decoded once
 * more, whole, keeping them (names in a, the calling thread's arena):
 * returns 0, or what line_decode() does then. */
int line_split_finish(struct line_split *s, struct xt_sunk *sunk, struct arena *a);
/* Frees s and everything it allocated, after a failure. */
void line_split_free(struct line_split *s);
/* The line a split is for. */
struct xt_line *line_split_line(const struct line_split *s);

#endif
