/* session: see session.h. */
#include "session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/clock.h"
#include "../util/xalloc.h"
#include "agent_client.h"
#include "backend.h"
#include "launch.h"
#include "workload.h"

static int session_prepare(struct capture_session *s, const struct capture_opts *o,
			   struct xt_error *err)
{
	size_t i;

	for (i = 0; i < s->tg.n; i++)
		if (s->tg.v[i].be->prepare)
			s->tg.v[i].be->prepare();
	s->opts = *o;
	if (pipe2(s->wake, O_CLOEXEC) < 0)
		return xt_error_set(err, XT_EIO, "cannot create a pipe");
	fcntl(s->wake[0], F_SETFL, O_NONBLOCK);
	return 0;
}

int capture_session_init(struct capture_session *s, const char *target,
			 const struct capture_opts *o, struct xt_error *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->wake[0] = s->wake[1] = -1;
	rc = capture_targets_parse(target, &s->tg, err);
	if (rc < 0)
		return rc;
	snprintf(s->target, sizeof(s->target), "%s", target);
	return session_prepare(s, o, err);
}

int capture_session_launch(struct capture_session *s, char *const argv[],
			   const struct capture_opts *o, struct xt_error *err)
{
	char pid[32], how[160];
	int rc, waited, crashed;
	struct xt_error e;

	memset(s, 0, sizeof(*s));
	s->wake[0] = s->wake[1] = -1;
	s->child = launch_spawn(argv, o->logdir, o->command_buffers, s->child_log,
				 sizeof(s->child_log), err);
	if (s->child < 0) {
		rc = (int)s->child;
		s->child = 0;
		return rc;
	}
	snprintf(pid, sizeof(pid), "%d", (int)s->child);
	snprintf(s->target, sizeof(s->target), "PID %d", (int)s->child);
	/* The agent listens within milliseconds of the exec; a program that
	 * ignores LD_PRELOAD (static, setuid) never gets one. */
	for (waited = 0;; waited += 20) {
		char path[256];

		if (workload_ended(s->child, 0, NULL, how, sizeof(how), &crashed)) {
			s->child_ended = 1;
			launch_forget_socket(s->child);
			return xt_error_set(err, XT_EIO, "%s ended before xtop could attach: %s (its output is in %s)",
					    argv[0], how, s->child_log);
		}
		if (agent_client_find(s->child, path, sizeof(path), NULL, &e) == 0)
			break;
		if (waited >= 10000)
			return xt_error_set(err, XT_EIO,
					    "%s (PID %d) has no xtop agent after 10 s (a static or "
					    "setuid program ignores LD_PRELOAD); it keeps running",
					    argv[0], (int)s->child);
		usleep(20000);
	}
	rc = capture_targets_parse(pid, &s->tg, err);
	if (rc < 0)
		return rc;
	return session_prepare(s, o, err);
}

void capture_session_fini(struct capture_session *s)
{
	if (s->running) {
		s->stop = 1;
		pthread_join(s->tid, NULL);
		s->running = 0;
		trace_free(s->t);
		analysis_free(s->an);
	}
	capture_result_fini(&s->res);
	capture_targets_fini(&s->tg);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	memset(s, 0, sizeof(*s));
}

static void *worker(void *arg)
{
	struct capture_session *s = arg;
	char one = 1;

	s->rc = capture_run(&s->tg, &s->opts, &s->stop, 1, &s->res, &s->err);
	if (s->rc == 0 && s->res.t) {
		/* Decoded from memory by capture_run; the analyses run here, off
		 * the UI thread. */
		struct analysis_ctx *ac = analysis_new();

		s->t = s->res.t;
		s->res.t = NULL;
		clock_settle(s->t);
		analysis_run(ac, s->t);
		s->an = analysis_finish(ac, s->t);
	}
	{
		/* Here, not when the UI collects it: xtop top may be in its
		 * viewer meanwhile. */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		s->took_ms = (uint64_t)((now.tv_sec - s->t0.tv_sec) * 1000 +
					(now.tv_nsec - s->t0.tv_nsec) / 1000000);
		if (!s->took_ms)
			s->took_ms = 1;
	}
	atomic_store(&s->done, 1);
	if (write(s->wake[1], &one, 1) < 0) {
		/* The UI also polls `done` on its timer. */
	}
	return NULL;
}

int capture_session_start(struct capture_session *s)
{
	if (s->running)
		return -1;
	capture_result_fini(&s->res);
	s->t = NULL;
	s->an = NULL;
	s->stop = 0;
	atomic_store(&s->done, 0);
	s->summary[0] = '\0';
	s->took_ms = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	if (pthread_create(&s->tid, NULL, worker, s) != 0)
		return -1;
	s->running = 1;
	return 0;
}

void capture_session_stop(struct capture_session *s)
{
	if (s->running)
		s->stop = 1;
}

int capture_session_quit(struct capture_session *s, int wait_ms)
{
	struct pollfd pf;
	struct timespec t0, now;
	long left = wait_ms;

	if (!s->running)
		return 0;
	s->stop = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pf.fd = s->wake[0];
	pf.events = POLLIN;
	while (!atomic_load(&s->done) && left > 0) {
		poll(&pf, 1, (int)left);
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = wait_ms - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
	}
	return atomic_load(&s->done) ? 0 : -1;
}

double capture_session_elapsed(const struct capture_session *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - s->t0.tv_sec) + (double)(now.tv_nsec - s->t0.tv_nsec) * 1e-9;
}

int capture_session_collect(struct capture_session *s)
{
	char buf[16];
	size_t i;

	if (!s->running || !atomic_load(&s->done))
		return 0;
	while (read(s->wake[0], buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
	pthread_join(s->tid, NULL);
	s->running = 0;
	s->summary_err = 1;
	if (s->rc < 0) {
		snprintf(s->summary, sizeof(s->summary), "capture failed: %.900s", s->err.msg);
		return 0;
	}
	if (!s->res.nsaved) {
		/* Say why, host by host (the first reason is usually enough). */
		for (i = 0; i < s->res.nhosts && !s->summary[0]; i++)
			if (s->res.hosts[i].msg[0])
				snprintf(s->summary, sizeof(s->summary), "capture failed: %.900s",
					 s->res.hosts[i].msg);
		if (!s->summary[0])
			snprintf(s->summary, sizeof(s->summary), "capture failed");
		return 0;
	}
	if (!s->t) {
		snprintf(s->summary, sizeof(s->summary), "captured, but nothing could be decoded");
		return 0;
	}
	s->summary_err = 0;
	snprintf(s->summary, sizeof(s->summary), "captured %zu of %zu host%s%s%.440s", s->res.nsaved,
		 s->res.nhosts, s->res.nhosts == 1 ? "" : "s", s->res.run_dir[0] ? " in " : "",
		 s->res.run_dir);
	for (i = 0; i < s->res.nhosts; i++) {
		if (s->res.hosts[i].warning[0]) {
			/* A warning matters more than the success line. */
			snprintf(s->summary, sizeof(s->summary), "%.1000s", s->res.hosts[i].warning);
			s->summary_err = 1;
			break;
		}
	}
	return 1;
}

int capture_session_poll_child(struct capture_session *s)
{
	char how[160];
	int crashed;

	if (!s->child || s->child_ended || !workload_ended(s->child, 0, NULL, how, sizeof(how), &crashed))
		return 0;
	s->child_ended = 1;
	launch_forget_socket(s->child);
	snprintf(s->summary, sizeof(s->summary), "the workload (PID %d) %s; its output is in %.700s",
		 (int)s->child, how, s->child_log);
	s->summary_err = crashed;
	return 1;
}
