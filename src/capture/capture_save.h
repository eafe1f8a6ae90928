/*
 * capture_save: the one path by which every backend's capture is saved and
 * verified, for xtop capture and the viewer alike.
 *
 * The XSpace a backend fetched gets what XProf wants and it lacks
 * (hostnames, a Task Environment plane with the capture's wall-clock
 * window), is written atomically as <run>/<host>.xplane.pb, and the very
 * same bytes are decoded from memory into the run's trace: that decoding
 * is the verification, and the trace is what the viewer shows, so nothing
 * is written to a temporary file or read back. A profile the server wrote
 * itself is decoded from its file. A capture with no events is not kept,
 * and when the profile says its device tracer failed, the message says so.
 * In memory (capture_opts.in_memory, xtop top) the same bytes are decoded
 * and nothing is written.
 */
#ifndef XT_CAPTURE_SAVE_H
#define XT_CAPTURE_SAVE_H

#include <stdint.h>

#include "backend.h"

/*
 * Saves and verifies what job j fetched (or reports why it has nothing) into
 * run_dir; on success the host is added to t and h->path, bytes and events
 * are set (h->warning too when something is off), else h->msg says why.
 * Takes j->data. Can't fail otherwise.
 */
void capture_save(struct xt_trace *t, struct capture_job *j, const char *run_dir,
		  uint64_t start_ns, uint64_t stop_ns, const struct capture_opts *o,
		  struct capture_host *h);

#endif
