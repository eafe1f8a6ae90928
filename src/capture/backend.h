/*
 * backend: the seam between capture_run() and the ways xtop can reach a
 * workload (style rule 3: a const table of functions chosen at run time,
 * as tmux's window modes). Each backend lives in one file:
 *
 *   backend_agent.c    the xtop agent (libxtop-agent.so, `xtop run`) over
 *                      its Unix socket: docs/agent.md
 *   backend_service.c  the profiler gRPC service of jax.profiler.start_server
 *
 * A backend only fetches bytes; saving, verifying and decoding them is
 * capture_save.c's job, the same for every backend.
 */
#ifndef XT_BACKEND_H
#define XT_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture.h"

/* One capture from one target, run in its own thread. */
struct capture_job {
	const struct capture_target *tg;
	const struct capture_opts *o;
	const char *repository_root; /* absolute <logdir>/plugins/profile */
	const char *session;         /* the run's name, also the session id */
	volatile sig_atomic_t *stop; /* turns non-zero: end early, keep the data */
	/* results */
	uint8_t *data;               /* the XSpace (malloc'd; the caller frees it), or */
	size_t len;
	int server_wrote;            /* 1: the server saved <run>/<host>.xplane.pb itself */
	int empty;                   /* 1: the workload said it captured nothing */
	char msg[1024];              /* why it failed, when capture() returns -1 */
};

struct capture_backend {
	const char *name; /* "xtop agent", "profiler service" */
	/*
	 * Looks for this backend's endpoint in local process pid. Returns 0
	 * with t->addr set, XT_ENOENT when pid has none (the next backend is
	 * asked), or another negative XT_E* that ends the search, with err.
	 */
	int (*find)(pid_t pid, struct capture_target *t, struct xt_error *err);
	/*
	 * Captures for j->o->duration_ms, or until *j->stop, blocking. Returns
	 * 0 with j->data (or j->server_wrote, or j->empty), or -1 with j->msg:
	 * one line that starts with the target's label.
	 */
	int (*capture)(struct capture_job *j);
	/*
	 * Optional: a session that will capture from targets of this backend
	 * begins (the viewer's, xtop top's); called once per target. Work
	 * that would otherwise delay its first capture starts here, in the
	 * background; can't fail.
	 */
	void (*prepare)(void);
};

extern const struct capture_backend capture_backend_agent;
extern const struct capture_backend capture_backend_service;

#endif
