/*
 * session: live capture inside the viewer, with no curses here. A capture
 * runs in a worker thread (capture_run, which also decodes the saved
 * profile from memory, then the analyses), which wakes the UI loop through
 * a pipe when done; the UI thread then takes the new profile (style rule
 * 15). A session may also own the workload it launched (`xtop --attach --
 * CMD`), whose exit it notices.
 */
#ifndef XT_SESSION_H
#define XT_SESSION_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "../model/analysis.h"
#include "../model/trace.h"
#include "capture.h"

struct capture_session {
	struct capture_targets tg;    /* owned */
	char target[256];             /* as the user gave it, or "PID n" */
	struct capture_opts opts;     /* opts.logdir borrowed */
	int running;
	pthread_t tid;                /* the worker, while running */
	volatile sig_atomic_t stop;   /* asks the workloads to stop early */
	atomic_int done;
	int wake[2];                  /* [0] polled by the UI loop */
	struct timespec t0;
	uint64_t took_ms;             /* from t0 to the worker's end (0 before it ends) */
	/* results, read by the UI thread after done */
	int rc;
	struct xt_error err;
	struct capture_result res;
	struct xt_trace *t;
	struct xt_analysis *an;
	char summary[1024];
	int summary_err;              /* the summary reports a failure */
	/* the workload this session launched (0 = none) */
	pid_t child;
	int child_ended;
	char child_log[4096];         /* where its output goes */
};

/* Prepares capture from target (HOST:PORT list or PID). Returns 0, or a
 * negative XT_E* with err (then the viewer should not start). */
int capture_session_init(struct capture_session *s, const char *target,
			 const struct capture_opts *o, struct xt_error *err);
/*
 * Launches argv with the xtop agent (output to a log file in o->logdir, no
 * terminal), waits for its agent to listen, and prepares capture from it.
 * Returns 0, or a negative XT_E* with err (the command does not run, exited
 * at once, or its agent never came up).
 */
int capture_session_launch(struct capture_session *s, char *const argv[],
			   const struct capture_opts *o, struct xt_error *err);
void capture_session_fini(struct capture_session *s);
/* Starts a capture; returns 0, or -1 if one is running. */
int capture_session_start(struct capture_session *s);
/* Asks a running capture to stop early (the data is still saved). */
void capture_session_stop(struct capture_session *s);
/* Asks a running capture to stop and waits up to wait_ms for its worker.
 * Returns 0 when none runs any more, -1 when it still does (blocked on a
 * server that answers nothing: the caller should leave without
 * capture_session_fini(), which would wait for it). */
int capture_session_quit(struct capture_session *s, int wait_ms);
/* After the wake fd fired: joins the worker; returns 1 when a new profile
 * (s->t, s->an: ownership passes to the caller) is ready, 0 otherwise; the
 * summary says what happened either way (summary_err for a failure). */
int capture_session_collect(struct capture_session *s);
/* Seconds since the capture started. */
double capture_session_elapsed(const struct capture_session *s);
/* For a launched workload: returns 1 once, when it has ended (the summary
 * says how); 0 otherwise. */
int capture_session_poll_child(struct capture_session *s);

#endif
