/*
 * capture_ui: live capture inside the viewer. A capture runs in a worker
 * thread (capture_run, then loading the saved run), which wakes the UI loop
 * through a pipe when done; only the UI thread touches curses and swaps the
 * new profile in. The previous profiles stay reachable.
 */
#ifndef XT_CAPTURE_UI_H
#define XT_CAPTURE_UI_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "../capture/capture.h"
#include "../model/analysis.h"
#include "../model/trace.h"

struct cap_ui {
	char **addrs;                 /* owned */
	size_t naddrs;
	char target[256];             /* as the user gave it */
	struct capture_opts opts;     /* opts.logdir borrowed from argv */
	int running;
	pthread_t tid;                /* the worker, while running */
	volatile sig_atomic_t stop;   /* asks the servers to stop early */
	atomic_int done;
	int wake[2];                  /* [0] polled by the UI loop */
	struct timespec t0;
	/* results, read by the UI thread after done */
	int rc;
	struct xt_error err;
	struct capture_result res;
	struct xt_trace *t;
	struct xt_analysis *an;
	char summary[512];
};

/* Prepares capture from target (HOST:PORT list or PID). Returns 0, or a
 * negative XT_E* with err (then the viewer should not start). */
int cap_ui_init(struct cap_ui *c, const char *target, const struct capture_opts *o,
		struct xt_error *err);
void cap_ui_fini(struct cap_ui *c);
/* Starts a capture; returns 0, or -1 if one is running. */
int cap_ui_start(struct cap_ui *c);
/* Asks a running capture to stop early (the data is still saved). */
void cap_ui_stop(struct cap_ui *c);
/* After the wake fd fired: joins the worker; returns 1 when a new profile
 * (c->t, c->an, ownership passes to the caller) is ready, 0 otherwise; the
 * summary line says what happened either way. */
int cap_ui_collect(struct cap_ui *c);
/* Seconds since the capture started. */
double cap_ui_elapsed(const struct cap_ui *c);

#endif
