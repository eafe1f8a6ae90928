/*
 * capture: takes profiles from running workloads and saves them in
 * TensorBoard's layout under a logdir, for xtop capture and the viewer.
 *
 * A target is served by one backend (backend.h), chosen from a const table
 * at run time: the xtop agent inside a process started with `xtop run`
 * (a Unix socket, backend_agent.c), or the standard profiler gRPC service
 * that jax.profiler.start_server() runs (backend_service.c). A PID is
 * offered to each backend in turn; HOST:PORT always means the service.
 *
 * capture_run() asks every target at once (one thread each), then hands
 * each XSpace to the one save-and-verify path (capture_save.c): hostnames
 * and a Task Environment plane are added when missing, the bytes are
 * written atomically, and the same bytes in memory are decoded into a
 * trace, which verifies them and is what the viewer shows (no temporary
 * file, no second read). A server that wrote the profile itself is read
 * from its file instead.
 */
#ifndef XT_CAPTURE_H
#define XT_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../model/trace.h"
#include "../util/error.h"

struct capture_backend;

struct capture_opts {
	uint64_t duration_ms;
	unsigned host_tracer, device_tracer, python_tracer; /* ProfileOptions levels */
	const char *logdir;
	uint64_t deadline_ms;  /* RPC deadline; 0 = max(60 s, 2 x duration) as upstream */
	int trace_json;        /* also write <host>.trace.json.gz for Perfetto */
	/* 1: keep captures in memory only (xtop top captures every few seconds
	 * and must not fill the disk): no run directory under logdir, nothing
	 * written; a local server that insists on writing the profile itself
	 * writes it into a scratch directory that is removed once it is read.
	 * Use with keep_trace; logdir is not used. */
	int in_memory;
	/* xtop --attach -- CMD: leave XLA's CUDA command buffers on in the
	 * workload started (launch.h says why they are turned off). */
	int command_buffers;
};

/* One workload to capture from. */
struct capture_target {
	const struct capture_backend *be;
	char addr[256];  /* what the backend dials: HOST:PORT, or the agent's socket path */
	char label[128]; /* how messages name it: "localhost:9999", "PID 1234" */
	char host[128];  /* host name for the saved file and XSpace.hostnames */
	pid_t pid;       /* the workload's PID when known (a local target), else 0 */
	/* Whether its XLA_FLAGS leave CUDA command buffers on, read by its
	 * agent from its environment now (workload_cmdbuf_on); -1 unknown. */
	int cmdbuf_flags;
};

struct capture_targets {
	struct capture_target *v; /* owned; capture_targets_fini() */
	size_t n;
	/* For a PID whose captures can crash it (workload_cmdbuf_on), what to
	 * say before capturing; else "". */
	char warning[320];
};

struct capture_host {
	char addr[256];     /* the target's label */
	char path[4096];    /* file saved ("" when none, and always in memory) */
	int captured;       /* 1: its profile was captured and decoded (and saved) */
	int empty;          /* 1: it answered, but captured nothing (see msg) */
	char msg[1024];     /* why not, when !captured; else "" */
	char warning[1024]; /* saved, but something is wrong (e.g. no device events); else "" */
	int no_device;      /* 1: host events only, the device tracer having failed */
	char json[4096];    /* the trace JSON written beside path (--trace-json); else "" */
	char bad[4096];     /* bytes saved that do not read as a profile, kept aside; else "" */
	uint64_t bytes;
	uint64_t events;
};

struct capture_result {
	char run_dir[4096];         /* "" in memory */
	char session[96];
	struct capture_host *hosts; /* owned; capture_result_fini() */
	size_t nhosts;
	size_t nsaved;              /* hosts captured (saved, unless in memory) */
	uint64_t start_ns, stop_ns; /* wall clock of the capture */
	/* With capture_run(keep_trace): every saved host, decoded (owned: free
	 * with trace_free() or take it and set NULL); NULL when none. */
	struct xt_trace *t;
};


/*
 * Parses a target: "HOST:PORT[,HOST:PORT...]" or a local PID. A PID is
 * offered to each backend in turn (the xtop agent's socket first, then a
 * profiler server found through /proc); when none serves it, err says how
 * to make the workload capturable. Returns 0 with tg filled (release with
 * capture_targets_fini()), or a negative XT_E* with a one-line err.
 */
int capture_targets_parse(const char *spec, struct capture_targets *tg, struct xt_error *err);
void capture_targets_fini(struct capture_targets *tg);

/*
 * Captures from every target at once. When *stop turns non-zero the
 * workloads are told to stop early and what they collected is still saved.
 * Returns 0 when at least the run directory was made (then check r->nsaved
 * and each host's msg and warning), or a negative XT_E* with err. With
 * keep_trace, r->t holds the saved hosts decoded. With o->in_memory nothing
 * stays on disk and r->t holds the captured hosts.
 */
int capture_run(const struct capture_targets *tg, const struct capture_opts *o,
		volatile sig_atomic_t *stop, int keep_trace, struct capture_result *r,
		struct xt_error *err);
void capture_result_fini(struct capture_result *r);

/* Removes a scratch directory this process made, and what is in it (no
 * symbolic link is followed). Can't fail: what cannot be removed stays. */
void capture_remove_tree(const char *dir);
/* Removes the scratch directories of in-memory captures still under way
 * (at exit it runs by itself; call it before an _exit). */
void capture_scratch_clean(void);
/* The same from a signal handler (skipped when the list is being changed). */
void capture_scratch_clean_signal(void);
/* Lists dir as scratch (removed at exit), and removes it and takes it off. */
void capture_scratch_add(const char *dir);
void capture_scratch_remove(const char *dir);

#endif
