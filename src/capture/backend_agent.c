/*
 * backend_agent: captures through the xtop agent (libxtop-agent.so) inside
 * a workload started with `xtop run` or `xtop --attach -- CMD`. The agent
 * drives the profiler of every PJRT plugin the process loaded and collects
 * the events of libxtop-trace; this side only speaks the protocol of
 * src/agent/agent_proto.h: START with the ProfileOptions, wait, STOP,
 * COLLECT the XSpace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../model/xspace_merge.h"
#include "agent_client.h"
#include "backend.h"
#include "profiler_msgs.h"
#include "workload.h"

static int agent_find(pid_t pid, struct capture_target *t, struct xt_error *err)
{
	int rc = agent_client_find(pid, t->addr, sizeof(t->addr), &t->cmdbuf_flags, err);

	if (rc < 0)
		return rc;
	snprintf(t->label, sizeof(t->label), "PID %d", (int)pid);
	/* A local session is named after the machine, as upstream does. */
	if (gethostname(t->host, sizeof(t->host) - 1) < 0 || !t->host[0])
		snprintf(t->host, sizeof(t->host), "localhost");
	t->host[sizeof(t->host) - 1] = '\0';
	return 0;
}

/* One request; on failure j->msg says what went wrong, naming the step. */
static int call(struct capture_job *j, int fd, uint16_t type, const void *p, size_t n,
		int timeout_ms, const char *step, struct agent_reply *r)
{
	struct xt_error err;

	if (agent_client_call(fd, type, p, n, timeout_ms, r, &err) < 0) {
		snprintf(j->msg, sizeof(j->msg), "%.100s: %s: %.600s", j->tg->label, step, err.msg);
		return -1;
	}
	if (r->type == AGENT_REP_ERROR) {
		char *t = r->data ? (char *)r->data : NULL;
		size_t tn = t ? strlen(t) : 0;
		const char *hint = "";

		/* XLA's CUPTI errors end in ": " and CUPTI's own text, often
		 * empty ("CUPTI call error: "). */
		while (tn && (t[tn - 1] == ' ' || t[tn - 1] == ':' || t[tn - 1] == '\n'))
			t[--tn] = '\0';
		/* Seen on an H100: with command buffers on, a capture started
		 * right after another failed so; 5 s later one worked. */
		if (t && strstr(t, "CUPTI") && j->tg->pid &&
		    workload_cmdbuf_on(j->tg->pid, j->tg->cmdbuf_flags))
			hint = "; the workload runs CUDA command buffers, with which CUPTI can "
			       "refuse a capture that follows another closely, and a capture can "
			       "crash it: wait a few seconds, or start it with xtop run (README, "
			       "Known issues)";
		snprintf(j->msg, sizeof(j->msg), "%.100s: %s: %.600s%s", j->tg->label, step,
			 t && tn ? t : "error", hint);
		free(r->data);
		r->data = NULL;
		return -1;
	}
	return 0;
}

static int agent_capture(struct capture_job *j)
{
	struct profile_req q;
	struct agent_reply r;
	struct xt_error err;
	uint8_t *opts, *merged;
	size_t len, merged_n;
	int fd, w;
	char was[4096];

	was[0] = '\0';
	if (j->tg->pid && workload_identity(j->tg->pid, was, sizeof(was)) < 0)
		was[0] = '\0';
	fd = agent_client_connect(j->tg->addr, j->tg->pid, &err);
	if (fd < 0) {
		snprintf(j->msg, sizeof(j->msg), "%.100s: %.800s", j->tg->label, err.msg);
		return -1;
	}
	memset(&q, 0, sizeof(q));
	q.duration_ms = j->o->duration_ms;
	q.host_tracer = j->o->host_tracer;
	q.device_tracer = j->o->device_tracer;
	q.python_tracer = j->o->python_tracer;
	q.session_id = j->session;
	opts = profiler_msgs_profile_options(&q, &len);
	/* Starting a device tracer (CUPTI) can take seconds. */
	w = call(j, fd, AGENT_REQ_START, opts, len, 60000, "cannot start", &r);
	free(opts);
	if (w < 0)
		goto fail;
	free(r.data);
	w = agent_client_wait(fd, j->o->duration_ms, j->stop);
	if (w < 0) {
		char now[4096];

		/* exec keeps the PID and ends the agent with the old program;
		 * the new one gets an agent of its own (LD_PRELOAD is kept). */
		if (j->tg->pid && was[0] && workload_identity(j->tg->pid, now, sizeof(now)) >= 0 &&
		    strcmp(now, was) && !strncmp(now, was, strcspn(was, " ") + 1))
			snprintf(j->msg, sizeof(j->msg),
				 "%.100s: the process started another program (exec) during the "
				 "capture, which ended it: capture the new program again",
				 j->tg->label);
		else
			snprintf(j->msg, sizeof(j->msg),
				 "%.100s: the agent closed the connection during the capture",
				 j->tg->label);
		goto fail;
	}
	if (call(j, fd, AGENT_REQ_STOP, NULL, 0, 60000, "cannot stop", &r) < 0)
		goto fail;
	free(r.data);
	if (call(j, fd, AGENT_REQ_COLLECT, NULL, 0, 120000, "cannot collect", &r) < 0)
		goto fail;
	if (r.type != AGENT_REP_XSPACE) {
		snprintf(j->msg, sizeof(j->msg), "%.100s: the agent sent no profile", j->tg->label);
		free(r.data);
		goto fail;
	}
	close(fd);
	j->data = r.data;
	j->len = r.len;
	j->empty = r.len == 0;
	/* The agent sends the plugins' planes as they made them; upstream's
	 * ProfilerSession merges the host's planes before it saves a profile,
	 * so this side does (the CUPTI launch calls join /host:CPU). */
	if (r.len && xspace_merge(r.data, r.len, &merged, &merged_n) == 1) {
		free(r.data);
		j->data = merged;
		j->len = merged_n;
	}
	return 0;
fail:
	close(fd);
	return -1;
}

const struct capture_backend capture_backend_agent = {
	.name = "xtop agent",
	.find = agent_find,
	.capture = agent_capture,
};
