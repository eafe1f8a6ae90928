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

/* Decodes every line of r->h (their raw_off and raw_len set, the time
 * base chosen), running the hooks; 0 or a negative XT_E* with err. */
int xplane_read_lines(struct reader *r, struct xt_error *err);

#endif
