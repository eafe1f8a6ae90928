/*
 * xplane_int: what xplane_reader.c (the file's framing, planes and their
 * metadata) and xplane_pool.c (the lines, in worker threads) share, and
 * nothing else includes. The reader owns the host being read; the pool
 * fills its lines.
 */
#ifndef XT_XPLANE_INT_H
#define XT_XPLANE_INT_H

#include "../util/error.h"
#include "trace.h"
#include "xplane_reader.h"

struct reader {
	struct xt_trace *t;
	struct xt_host *h;
	const struct xplane_load_opts *opts;
	const char *path;
};

/* The line's timestamp_ns as written, without decoding its events;
 * returns 1 when the line has at least one event. Upstream writes the
 * timestamp before the events, so this usually stops at the first event
 * (exact: reads on to a timestamp written after them). With name, the
 * line's name when it gives one before its first event (nname bytes at
 * *name, in the file), else NULL. */
int xplane_line_peek(const struct xt_host *h, const struct xt_line *l, int exact, int64_t *ts,
		     const char **name, size_t *nname);
/* Decodes every line of r->h (their raw_off and raw_len set, the time
 * base chosen), running the hooks; 0 or a negative XT_E* with err. */
int xplane_read_lines(struct reader *r, struct xt_error *err);

#endif
