/*
 * capture: takes profiles from running workloads through the standard
 * profiler gRPC service (what TensorBoard's "Capture Profile" and
 * `python -m jax.collect_profile` use), one request per host of a job, all
 * in parallel, and saves them in TensorBoard's layout under a logdir.
 *
 * The server either returns the XSpace (emit_xspace) or writes it itself
 * under the repository_root we give, which is the new run directory; for a
 * local workload both end with <logdir>/plugins/profile/<run>/<host>.xplane.pb.
 */
#ifndef XT_CAPTURE_H
#define XT_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

struct capture_opts {
	uint64_t duration_ms;
	unsigned host_tracer, device_tracer, python_tracer; /* ProfileOptions levels */
	const char *logdir;
	uint64_t deadline_ms;  /* RPC deadline; 0 = max(60 s, 2 x duration) as upstream */
	int trace_json;        /* also write <host>.trace.json.gz for Perfetto */
};

struct capture_host {
	char addr[256];     /* host:port dialled */
	char path[4096];    /* file saved ("" when none) */
	char msg[1024];     /* why not, when path is "" */
	uint64_t bytes;
	uint64_t events;
};

struct capture_result {
	char run_dir[4096];
	char session[96];
	struct capture_host *hosts; /* owned; capture_result_fini() */
	size_t nhosts;
	size_t nsaved;
	uint64_t start_ns, stop_ns; /* wall clock of the capture */
};

/*
 * Parses a target: "HOST:PORT[,HOST:PORT...]" or a local PID (found through
 * /proc). On success *addrs holds *n malloc'd strings (free each and the
 * array). Returns 0 or a negative XT_E* with a one-line err.
 */
int capture_targets(const char *spec, char ***addrs, size_t *n, struct xt_error *err);

/*
 * Captures from every address at once. When *stop turns non-zero the
 * servers are told to stop early (Terminate) and what they collected is
 * still saved. Returns 0 when at least the run directory was made (then
 * check r->nsaved and each host's msg), or a negative XT_E* with err.
 */
int capture_run(char *const *addrs, size_t n, const struct capture_opts *o,
		volatile sig_atomic_t *stop, struct capture_result *r, struct xt_error *err);
void capture_result_fini(struct capture_result *r);

#endif
