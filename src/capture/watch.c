/* watch: see watch.h. */
#include "watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/profile_path.h"
#include "../model/xplane_writer.h"
#include "../util/xalloc.h"
#include "backend.h"
#include "grpc_call.h"

int watch_init(struct watch *w, const char *target, const struct capture_opts *o,
	       uint64_t every_ms, size_t window, struct xt_error *err)
{
	struct capture_opts co = *o;
	size_t i;
	int rc;

	memset(w, 0, sizeof(*w));
	co.in_memory = 1;
	co.trace_json = 0;
	rc = capture_session_init(&w->cap, target, &co, err);
	if (rc < 0)
		return rc;
	w->roll = rolling_new(window);
	w->every_ms = every_ms ? every_ms : 1;
	/* With a profiler-service target, gRPC stays up between captures
	 * instead of starting and stopping its threads every few seconds.
	 * (When it cannot be loaded, that target says so at its capture.) */
	for (i = 0; i < w->cap.tg.n && !w->grpc_up; i++)
		if (w->cap.tg.v[i].be == &capture_backend_service)
			w->grpc_up = grpc_call_init() == 0;
	return 0;
}

void watch_fini(struct watch *w)
{
	int up = w->grpc_up;

	capture_session_fini(&w->cap);
	rolling_free(w->roll);
	trace_free(w->t);
	free(w->saved);
	if (up)
		grpc_call_shutdown();
	memset(w, 0, sizeof(*w));
}

int watch_wake_fd(const struct watch *w)
{
	return w->cap.wake[0];
}

int watch_running(const struct watch *w)
{
	return w->cap.running;
}

int watch_tick(struct watch *w, uint64_t now_ms)
{
	if (w->paused || w->cap.running || now_ms < w->next_ms)
		return 0;
	w->started_ms = now_ms;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		w->started_wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	/* Start to start; a capture longer than the period is followed at
	 * once by the next. */
	w->next_ms = now_ms + w->every_ms;
	if (capture_session_start(&w->cap) < 0) {
		w->refreshes++;
		w->failures++;
		w->last_failed = 1;
		w->reached = 0;
		w->wall_ns = w->started_wall_ns;
		snprintf(w->msg, sizeof(w->msg), "cannot start a capture (no thread)");
		return 0;
	}
	return 1;
}

int64_t watch_due_in(const struct watch *w, uint64_t now_ms)
{
	if (w->paused || w->cap.running)
		return -1;
	return w->next_ms > now_ms ? (int64_t)(w->next_ms - now_ms) : 0;
}

/* The hosts' reasons, joined (the first is usually enough, but with
 * several targets each may fail its own way). */
static void host_reasons(const struct capture_result *r, char *out, size_t n)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < r->nhosts && o + 3 < n; i++) {
		const struct capture_host *h = &r->hosts[i];
		const char *why = h->captured ? h->warning : h->msg;
		int k;

		if (!why[0])
			continue;
		k = snprintf(out + o, n - o, "%s%s", o ? "; " : "", why);
		if (k < 0)
			break;
		o += (size_t)k < n - o ? (size_t)k : n - o - 1;
	}
}

int watch_collect(struct watch *w, uint64_t now_ms)
{
	struct capture_session *s = &w->cap;
	const struct capture_result *r = &s->res;
	int was = s->running, got;
	size_t i;

	got = capture_session_collect(s);
	if (!was || s->running)
		return 0;
	w->refreshes++;
	/* The capture's own time, viewer or not in between. */
	w->took_ms = s->took_ms ? s->took_ms : now_ms - w->started_ms;
	/* A capture that failed before it began has no start of its own. */
	w->wall_ns = r->start_ns ? r->start_ns : w->started_wall_ns;
	w->hosts = r->nhosts;
	w->hosts_ok = r->nsaved;
	w->reached = 0;
	for (i = 0; i < r->nhosts; i++)
		w->reached |= r->hosts[i].captured || r->hosts[i].empty;
	w->msg[0] = '\0';
	/* A capture that lost a host, or whose device tracer failed (host
	 * events only), is no sample of the workload: averaged in, its
	 * missing time would read as a speed-up. It fails the refresh, and
	 * the averages keep to the whole captures. */
	if (got) {
		int partial = r->nsaved < r->nhosts;

		for (i = 0; i < r->nhosts; i++)
			partial |= r->hosts[i].captured && r->hosts[i].no_device;
		if (partial) {
			got = 0;
			if (r->nsaved < r->nhosts)
				snprintf(w->msg, sizeof(w->msg), "%zu of %zu hosts captured, not averaged: ",
					 r->nsaved, r->nhosts);
			else
				snprintf(w->msg, sizeof(w->msg), "not averaged: ");
			host_reasons(r, w->msg + strlen(w->msg), sizeof(w->msg) - strlen(w->msg));
		}
	}
	if (!got) {
		w->failures++;
		w->last_failed = 1;
		if (w->msg[0])
			; /* partial: said above */
		else if (s->rc < 0)
			snprintf(w->msg, sizeof(w->msg), "%s", s->err.msg);
		else
			host_reasons(r, w->msg, sizeof(w->msg));
		if (!w->msg[0])
			snprintf(w->msg, sizeof(w->msg), "%s", s->summary);
		trace_free(s->t);
		analysis_free(s->an);
		s->t = NULL;
		s->an = NULL;
		return 1;
	}
	w->last_failed = 0;
	host_reasons(r, w->msg, sizeof(w->msg));
	rolling_add(w->roll, s->an->ops, s->an->nops, s->an->ops_self_ps);
	w->ok_wall_ns = r->start_ns;
	w->ok_took_ms = w->took_ms;
	w->ok_busy_ps = s->an->busy_ps;
	w->ok_events = s->t->nev;
	/* Only the newest capture is kept; its analysis lives on in the
	 * aggregate. */
	analysis_free(s->an);
	s->an = NULL;
	trace_free(w->t);
	w->t = s->t;
	s->t = NULL;
	free(w->saved);
	w->saved = NULL;
	return 1;
}

int watch_stop(struct watch *w, int wait_ms)
{
	return capture_session_quit(&w->cap, wait_ms);
}

void watch_pause(struct watch *w, int paused, uint64_t now_ms)
{
	if (w->paused && !paused && w->next_ms > now_ms)
		w->next_ms = now_ms;
	w->paused = paused;
}

void watch_capture_now(struct watch *w, uint64_t now_ms)
{
	w->next_ms = now_ms;
}

int watch_save(struct watch *w, const char *logdir, struct xt_error *err)
{
	struct xplane_write_opts wo = { NULL, 0, 0, 1 };
	char abs[4096], run[4096];
	int rc;

	if (!w->t)
		return xt_error_set(err, XT_ENOENT, "nothing captured yet");
	if (w->saved)
		return 1;
	if (profile_path_absolute(logdir, abs, sizeof(abs)) < 0)
		return xt_error_set(err, XT_EIO, "cannot get the current directory: %s",
				    strerror(errno));
	/* The capture's bytes already carry its hostnames and the Task
	 * Environment plane with its wall-clock window (capture_save). */
	rc = xplane_save_run(w->t, abs, &wo, run, sizeof(run), err);
	if (rc < 0)
		return rc;
	w->saved = xstrdup(run);
	return 0;
}
