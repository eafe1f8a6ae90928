/*
 * watch: the engine of `xtop top`. Short captures from the same targets on
 * a schedule (one every every_ms, start to start; never two at once: a
 * profiler serves one session at a time), each kept in memory only and
 * folded into a rolling aggregate of its op profile (model/rolling.h). Of
 * the captures themselves only the newest is kept, so that it can be saved
 * or opened in the viewer: memory stays bounded however long top runs, and
 * nothing reaches the disk unless the user saves.
 *
 * A capture runs in the capture session's worker thread (session.h), which
 * writes to watch_wake_fd() when it is done; the caller's loop then calls
 * watch_collect(). Nothing here blocks, draws or reads a clock: the caller
 * passes the time (monotonic ms), so the schedule is the caller's loop's.
 * A failed capture (the server died, or is busy) changes nothing but the
 * message; the next one is tried at its usual time, and a server that came
 * back is simply captured again.
 *
 * Ownership: struct watch owns the session, the aggregate, the newest
 * trace and the strings; watch_fini() stops a running capture (the
 * workload is told to end it early) and releases everything.
 */
#ifndef XT_WATCH_H
#define XT_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../model/rolling.h"
#include "../model/trace.h"
#include "capture.h"
#include "session.h"

struct watch {
	struct capture_session cap; /* the worker and its wake pipe */
	struct rolling *roll;       /* owned */
	struct xt_trace *t;         /* the newest capture, owned; NULL before the first */
	char *saved;                /* the run t was saved in (watch_save), owned; NULL */
	uint64_t every_ms;          /* from one capture's start to the next's */
	int paused;
	uint64_t next_ms;           /* when the next capture starts (monotonic ms) */
	uint64_t started_ms;        /* when the running or last capture started */
	uint64_t started_wall_ns;   /* the same, wall clock (for a capture that fails early) */
	/* The last finished capture. */
	unsigned long refreshes;    /* captures finished, failed ones included */
	unsigned long failures;
	int last_failed;            /* 1: it added nothing (msg says why) */
	int reached;                /* 1: some target answered (even with an empty capture) */
	uint64_t took_ms;           /* from its start to its result */
	uint64_t wall_ns;           /* when it started, wall clock (ns since 1970) */
	size_t hosts, hosts_ok;     /* targets asked, and those captured */
	char msg[1024];             /* why it failed, or what is wrong with it; "" */
	/* The newest capture that was folded in. */
	uint64_t ok_wall_ns, ok_took_ms;
	int64_t ok_busy_ps;
	uint64_t ok_events;
	int grpc_up;                /* gRPC started for the whole watch (a service target) */
};

/*
 * Prepares captures from target (HOST:PORT list or PID, as xtop capture)
 * with o's tracer levels and duration (o->in_memory is implied; logdir is
 * not used), every every_ms, averaging the last window captures. The first
 * capture is due at once. Returns 0, or a negative XT_E* with one line in
 * err (a bad target: then call nothing but watch_fini()).
 */
int watch_init(struct watch *w, const char *target, const struct capture_opts *o,
	       uint64_t every_ms, size_t window, struct xt_error *err);
void watch_fini(struct watch *w);
/* Readable when a capture has finished: poll it, then call watch_collect(). */
int watch_wake_fd(const struct watch *w);
/* Starts the capture that is due at now_ms (not while paused or while one
 * runs). Returns 1 when one started, 0 otherwise; a capture that cannot
 * start counts as failed (msg). */
int watch_tick(struct watch *w, uint64_t now_ms);
/* Milliseconds from now_ms until the next capture is due (0: now), or -1
 * when none is (paused, or one is running). */
int64_t watch_due_in(const struct watch *w, uint64_t now_ms);
/* 1 while a capture runs. */
int watch_running(const struct watch *w);
/* After the wake fd fired: returns 1 when a capture finished (then see
 * last_failed and msg; on success t, the aggregate and the ok_* fields are
 * the new capture's), 0 when none did. */
int watch_collect(struct watch *w, uint64_t now_ms);
/* Pauses or resumes the schedule; resuming captures at once. A running
 * capture finishes either way. */
void watch_pause(struct watch *w, int paused, uint64_t now_ms);
/* The next capture starts at once (or as soon as the running one ends). */
void watch_capture_now(struct watch *w, uint64_t now_ms);
/* Asks a running capture to end (the workload is told to stop early) and
 * waits at most wait_ms for it. Returns 0 when no capture runs any more
 * (watch_fini() will not block), -1 when it still does: a server that
 * answers neither the capture nor the request to end it holds the worker
 * until the capture's deadline. */
int watch_stop(struct watch *w, int wait_ms);
/*
 * Saves the newest capture in a new run under logdir (TensorBoard's
 * layout, atomically), once: returns 0 with w->saved set, 1 when it already
 * was (w->saved says where), or a negative XT_E* with err (nothing
 * captured yet, or the write failed).
 */
int watch_save(struct watch *w, const char *logdir, struct xt_error *err);

#endif
