/*
 * agent_capture: one capture inside the workload, the role upstream's
 * ProfilerSession plays: start the profiler of every PJRT plugin and every
 * copy of libxtop-trace, stop them, and assemble one XSpace from what they
 * collected (agent_space.c): the plugins' planes with their times made
 * relative to the capture's start, the C API's host lines, a Task
 * Environment plane, and what failed as XSpace errors.
 */
#ifndef XT_AGENT_CAPTURE_H
#define XT_AGENT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "abuf.h"
#include "agent_host.h"
#include "agent_pjrt.h"
#include "agent_space.h"
#include "agent_trace.h"

enum agent_state { AGENT_IDLE, AGENT_RUNNING, AGENT_STOPPED };

struct agent_capture {
	enum agent_state state;
	uint64_t start_ns, stop_ns;  /* CLOCK_REALTIME */
	uint64_t duration_ms;        /* asked for in the ProfileOptions (0: until stopped) */
	struct agent_plugin plugins[AGENT_MAX_PLUGINS];
	int nplugins;
	const struct xtop_trace_registry *regs[AGENT_MAX_REGISTRIES];
	int nregs;
	struct abuf errors;          /* lines for XSpace.errors */
	struct abuf warnings;        /* lines for XSpace.warnings */
	struct host_enc host;
	int have_host;
	struct space_out out;        /* after collect: the XSpace to send */
};

/*
 * Starts a capture with the serialized ProfileOptions opts. Returns 0 with
 * msg ("key=value" lines: what was started), or -1 with msg (one line: why
 * not; nothing is left running).
 */
int agent_capture_start(struct agent_capture *c, const uint8_t *opts, size_t n, char *msg,
			size_t mn);
/* Stops a running capture; the data stays until collected. Can't fail. */
void agent_capture_stop(struct agent_capture *c);
/* Stops if needed and assembles c->out. Returns 0, or -1 with msg. */
int agent_capture_collect(struct agent_capture *c, char *msg, size_t mn);
/* Ends the capture, whatever its state: profilers destroyed, memory freed. */
void agent_capture_release(struct agent_capture *c);
/* "key=value" lines about the process: state, plugins, trace libraries. */
void agent_capture_status(const struct agent_capture *c, char *msg, size_t mn);

#endif
