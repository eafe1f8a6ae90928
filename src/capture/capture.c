/* capture: see capture.h. */
#include "capture.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../model/trace.h"
#include "../model/trace_json.h"
#include "../model/xplane_reader.h"
#include "../model/xplane_writer.h"
#include "../util/xalloc.h"
#include "attach.h"
#include "grpc_call.h"
#include "profiler_msgs.h"

static int valid_addr(const char *a)
{
	const char *colon = strrchr(a, ':');
	char *end;
	long port;

	if (!colon || colon == a || strchr(a, '/') || strchr(a, ' '))
		return 0;
	port = strtol(colon + 1, &end, 10);
	return *end == '\0' && end != colon + 1 && port > 0 && port < 65536;
}

int capture_targets(const char *spec, char ***addrs, size_t *n, struct xt_error *err)
{
	char *copy, *tok, *save = NULL;
	const char *p;

	*addrs = NULL;
	*n = 0;
	if (!spec || !*spec)
		return xt_error_set(err, XT_EUSAGE, "no capture target (give HOST:PORT or a PID)");
	for (p = spec; *p >= '0' && *p <= '9'; p++)
		;
	if (!*p) {
		char addr[64];
		long pid = strtol(spec, NULL, 10);
		int rc;

		if (pid <= 0 || pid > INT_MAX)
			return xt_error_set(err, XT_EUSAGE, "bad PID %s", spec);
		rc = attach_find((pid_t)pid, addr, sizeof(addr), err);
		if (rc < 0)
			return rc;
		*addrs = xcalloc(1, sizeof(char *));
		(*addrs)[(*n)++] = xstrdup(addr);
		return 0;
	}
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *a = tok;

		if (!strncmp(a, "grpc://", 7))
			a += 7;
		if (!valid_addr(a)) {
			size_t i;

			for (i = 0; i < *n; i++)
				free((*addrs)[i]);
			free(*addrs);
			*addrs = NULL;
			*n = 0;
			xt_error_set(err, XT_EUSAGE,
				     "bad address '%s' (expected HOST:PORT, e.g. localhost:9999, or a PID)",
				     tok);
			free(copy);
			return XT_EUSAGE;
		}
		*addrs = xreallocarray(*addrs, *n + 1, sizeof(char *));
		(*addrs)[(*n)++] = xstrdup(a);
	}
	free(copy);
	if (!*n)
		return xt_error_set(err, XT_EUSAGE, "no capture target in '%s'", spec);
	return 0;
}

static uint64_t wall_ns(void);

struct job {
	uint64_t start_ns;
	const char *addr;
	const struct capture_opts *o;
	const char *root, *session, *run_dir;
	volatile sig_atomic_t *stop;
	struct capture_host *out;
};

/* Asks the server to end the session early; its Profile call then returns
 * what it collected. */
static void send_terminate(void *arg)
{
	struct job *j = arg;
	struct grpc_reply r;
	size_t len;
	uint8_t *req = profiler_msgs_terminate_request(j->session, &len);

	grpc_call_unary(j->addr, "/tensorflow.ProfilerService/Terminate", req, len, 5000, NULL,
			NULL, NULL, &r);
	free(req);
	free(r.data);
}

static void explain(struct job *j, const struct grpc_reply *r, int64_t deadline_ms)
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
	snprintf(j->out->msg, sizeof(j->out->msg), "%.200s: %s (%s%s%.400s)", j->addr, why,
		 grpc_call_status_name(r->status), r->message[0] ? ": " : "", r->message);
	(void)deadline_ms;
}

/* Checks that what was saved is a readable profile; counts its events;
 * with trace_json, writes <host>.trace.json.gz beside it. */
static int verify(struct capture_host *h, int trace_json)
{
	struct xt_trace *t = trace_new();
	struct xt_error err;
	struct xplane_load_opts lo = { 0 };
	int rc;

	lo.threads = 1;
	lo.keep_resident = 1;
	rc = xplane_load(t, h->path, h->addr, &lo, &err);
	if (rc == 0) {
		h->events = t->nev;
		if (trace_json) {
			char json[4200];
			size_t k = strlen(h->path);

			/* x.xplane.pb -> x.trace.json.gz */
			snprintf(json, sizeof(json), "%.*s.trace.json.gz",
				 (int)(k > 10 ? k - 10 : k), h->path);
			if (trace_json_write(&t->hosts[0], json, &err) < 0)
				snprintf(h->msg, sizeof(h->msg), "%.200s: %.600s", h->addr, err.msg);
		}
	} else
		snprintf(h->msg, sizeof(h->msg), "%.200s: saved %.300s, but it does not read as a profile: %.400s",
			 h->addr, h->path, err.msg);
	trace_free(t);
	return rc;
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	struct profile_req q;
	struct grpc_reply r;
	struct profile_resp resp;
	uint8_t *req;
	size_t len;
	int64_t deadline = (int64_t)j->o->duration_ms * 2;
	char file[4096 + 300];
	struct stat st;

	if (deadline < 60000)
		deadline = 60000;
	if (j->o->deadline_ms)
		deadline = (int64_t)j->o->deadline_ms;
	memset(&q, 0, sizeof(q));
	q.duration_ms = j->o->duration_ms;
	q.host_tracer = j->o->host_tracer;
	q.device_tracer = j->o->device_tracer;
	q.python_tracer = j->o->python_tracer;
	q.repository_root = j->root;
	q.session_id = j->session;
	q.host_name = j->addr;
	req = profiler_msgs_profile_request(&q, &len);
	grpc_call_unary(j->addr, "/tensorflow.ProfilerService/Profile", req, len, deadline, j->stop,
			send_terminate, j, &r);
	free(req);
	xplane_host_file(file, sizeof(file), j->run_dir, j->addr, ".xplane.pb");
	if (r.status != 0) {
		explain(j, &r, deadline);
	} else if (profiler_msgs_parse_response(r.data, r.len, &resp) < 0) {
		snprintf(j->out->msg, sizeof(j->out->msg), "%s: malformed response", j->addr);
	} else if (resp.empty_trace) {
		snprintf(j->out->msg, sizeof(j->out->msg),
			 "%s: nothing was captured (empty trace): was the workload running during "
			 "the capture?",
			 j->addr);
	} else if (resp.xspace && resp.xspace_len) {
		struct xt_error err;

		/* XProf wants hostnames and a Task Environment plane; older
		 * servers and plugins may leave them out. */
		struct xplane_write_opts wo = { j->addr, j->start_ns, wall_ns() };

		if (xplane_write_bytes(file, resp.xspace, resp.xspace_len, &wo, &err) < 0)
			snprintf(j->out->msg, sizeof(j->out->msg), "%.200s: %.500s", j->addr, err.msg);
		else
			snprintf(j->out->path, sizeof(j->out->path), "%.4095s", file);
	} else if (stat(file, &st) == 0) {
		/* The server wrote it itself, into our run directory. */
		snprintf(j->out->path, sizeof(j->out->path), "%.4095s", file);
	} else {
		snprintf(j->out->msg, sizeof(j->out->msg),
			 "%.200s: the server saved the profile on its own machine as %.500s; it is not "
			 "readable here (capture from that machine, or copy the file)",
			 j->addr, file);
	}
	if (j->out->path[0]) {
		if (stat(j->out->path, &st) == 0)
			j->out->bytes = (uint64_t)st.st_size;
		if (verify(j->out, j->o->trace_json) < 0)
			j->out->path[0] = '\0';
	}
	free(r.data);
	return NULL;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int capture_run(char *const *addrs, size_t n, const struct capture_opts *o,
		volatile sig_atomic_t *stop, struct capture_result *r, struct xt_error *err)
{
	char logdir[4096], root[4200];
	struct job *jobs;
	pthread_t *tid;
	size_t i;
	unsigned missing;
	int rc;

	memset(r, 0, sizeof(*r));
	/* The server resolves repository_root on its side: make it absolute. */
	if (o->logdir[0] == '/') {
		snprintf(logdir, sizeof(logdir), "%s", o->logdir);
	} else {
		char cwd[2000];

		if (!getcwd(cwd, sizeof(cwd)))
			return xt_error_set(err, XT_EIO, "cannot get the current directory: %s",
					    strerror(errno));
		snprintf(logdir, sizeof(logdir), "%s/%s", cwd, o->logdir);
	}
	missing = xplane_missing_dirs(logdir);
	rc = xplane_new_run_dir(logdir, r->run_dir, sizeof(r->run_dir), r->session,
				sizeof(r->session), err);
	if (rc < 0) {
		xplane_remove_run_dir(logdir, NULL, missing);
		return rc;
	}
	snprintf(root, sizeof(root), "%s/plugins/profile", logdir);
	r->hosts = xcalloc(n, sizeof(*r->hosts));
	r->nhosts = n;
	jobs = xcalloc(n, sizeof(*jobs));
	tid = xcalloc(n, sizeof(*tid));
	grpc_call_init();
	r->start_ns = wall_ns();
	for (i = 0; i < n; i++) {
		snprintf(r->hosts[i].addr, sizeof(r->hosts[i].addr), "%s", addrs[i]);
		jobs[i] = (struct job){ r->start_ns, addrs[i], o, root, r->session, r->run_dir, stop,
					&r->hosts[i] };
		if (pthread_create(&tid[i], NULL, job_main, &jobs[i]) != 0)
			fatal("cannot create a thread");
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	r->stop_ns = wall_ns();
	grpc_call_shutdown();
	for (i = 0; i < n; i++)
		r->nsaved += r->hosts[i].path[0] != '\0';
	/* A run that saved nothing leaves nothing behind: not its run
	 * directory (it would only confuse TensorBoard), nor the logdir
	 * levels made for it. */
	if (!r->nsaved)
		xplane_remove_run_dir(logdir, r->run_dir, missing);
	free(jobs);
	free(tid);
	return 0;
}

void capture_result_fini(struct capture_result *r)
{
	free(r->hosts);
	memset(r, 0, sizeof(*r));
}
