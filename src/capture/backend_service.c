/*
 * backend_service: the standard profiler gRPC service (what
 * jax.profiler.start_server(port), TensorFlow's profiler server, TensorBoard's
 * "Capture Profile" and `python -m jax.collect_profile` use). One Profile
 * RPC per capture; an early stop sends Terminate, after which the server
 * returns what it collected.
 *
 * The server either returns the XSpace (emit_xspace) or writes it itself
 * under the repository_root we give, which is the new run directory; for a
 * local workload both end with <logdir>/plugins/profile/<run>/<host>.xplane.pb.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../model/xplane_writer.h"
#include "attach.h"
#include "backend.h"
#include "grpc_call.h"
#include "profiler_msgs.h"

static int service_find(pid_t pid, struct capture_target *t, struct xt_error *err)
{
	return attach_find(pid, t->addr, sizeof(t->addr), err);
}

/* Asks the server to end the session early; its Profile call then returns
 * what it collected. */
static void send_terminate(void *arg)
{
	struct capture_job *j = arg;
	struct grpc_reply r;
	size_t len;
	uint8_t *req = profiler_msgs_terminate_request(j->session, &len);

	grpc_call_unary(j->tg->addr, "/tensorflow.ProfilerService/Terminate", req, len, 5000, NULL,
			NULL, NULL, &r);
	free(req);
	free(r.data);
}

static void explain(struct capture_job *j, const struct grpc_reply *r)
{
	const char *why;

	switch (r->status) {
	case 14: /* UNAVAILABLE */
		why = "cannot reach it or lost it (nothing listening, connection refused, or the "
		      "workload exited during the capture)";
		break;
	case 4: /* DEADLINE_EXCEEDED */
		why = "no answer before the deadline (the server is stuck, or the capture takes "
		      "longer than expected)";
		break;
	case 12: /* UNIMPLEMENTED */
		why = "it is a gRPC server but not a profiler service";
		break;
	case 13: /* INTERNAL */
	case 6:  /* ALREADY_EXISTS */
		why = strstr(r->message, "nother") || strstr(r->message, "session") || r->status == 6
			      ? "it is already profiling (one session at a time per process)"
			      : "the server failed";
		break;
	case 1:
		why = "the capture was cancelled";
		break;
	default:
		why = "the call failed";
	}
	snprintf(j->msg, sizeof(j->msg), "%.200s: %s (%s%s%.400s)", j->tg->label, why,
		 grpc_call_status_name(r->status), r->message[0] ? ": " : "", r->message);
}

static int service_capture(struct capture_job *j)
{
	struct profile_req q;
	struct grpc_reply r;
	struct profile_resp resp;
	uint8_t *req;
	size_t len;
	int64_t deadline = (int64_t)j->o->duration_ms * 2;
	char run_dir[4400], file[4800];
	struct stat st;
	int rc = -1;

	if (grpc_call_init() < 0) {
		snprintf(j->msg, sizeof(j->msg), "%.200s: %.400s", j->tg->label,
			 grpc_call_load_error());
		return -1;
	}
	if (deadline < 60000)
		deadline = 60000;
	if (j->o->deadline_ms)
		deadline = (int64_t)j->o->deadline_ms;
	memset(&q, 0, sizeof(q));
	q.duration_ms = j->o->duration_ms;
	q.host_tracer = j->o->host_tracer;
	q.device_tracer = j->o->device_tracer;
	q.python_tracer = j->o->python_tracer;
	q.repository_root = j->repository_root;
	q.session_id = j->session;
	q.host_name = j->tg->host;
	req = profiler_msgs_profile_request(&q, &len);
	grpc_call_unary(j->tg->addr, "/tensorflow.ProfilerService/Profile", req, len, deadline,
			j->stop, send_terminate, j, &r);
	grpc_call_shutdown();
	free(req);
	snprintf(run_dir, sizeof(run_dir), "%s/%s", j->repository_root, j->session);
	xplane_host_file(file, sizeof(file), run_dir, j->tg->host, ".xplane.pb");
	if (r.status != 0) {
		explain(j, &r);
	} else if (profiler_msgs_parse_response(r.data, r.len, &resp) < 0) {
		snprintf(j->msg, sizeof(j->msg), "%s: malformed response", j->tg->label);
	} else if (resp.empty_trace) {
		/* The XSpace of an empty trace may still say why (errors). */
		j->empty = 1;
		rc = 0;
		if (resp.xspace && resp.xspace_len && (j->data = malloc(resp.xspace_len))) {
			memcpy(j->data, resp.xspace, resp.xspace_len);
			j->len = resp.xspace_len;
		}
	} else if (resp.xspace && resp.xspace_len) {
		/* Keep the response's buffer: move the XSpace to its start. */
		memmove(r.data, resp.xspace, resp.xspace_len);
		j->data = r.data;
		j->len = resp.xspace_len;
		r.data = NULL;
		rc = 0;
	} else if (stat(file, &st) == 0) {
		/* The server wrote it itself, into our run directory. */
		j->server_wrote = 1;
		rc = 0;
	} else {
		snprintf(j->msg, sizeof(j->msg),
			 "%.200s: the server saved the profile on its own machine as %.500s; it is not "
			 "readable here (capture from that machine, or copy the file)",
			 j->tg->label, file);
	}
	free(r.data);
	return rc;
}

const struct capture_backend capture_backend_service = {
	.name = "profiler service",
	.find = service_find,
	.capture = service_capture,
	.prepare = grpc_call_preload,
};
