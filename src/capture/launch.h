/*
 * launch: starting a workload with the xtop agent preloaded, for `xtop run`
 * (the workload is its child, in the same terminal; xtop run waits for it,
 * passes on the signals meant for it, records how it ended for `xtop
 * capture` and ends the same way) and `xtop --attach -- CMD` (a child in its
 * own session, its output in a log file, since the viewer owns the
 * terminal).
 *
 * libxtop-agent.so is looked for in $XTOP_AGENT, next to the xtop binary
 * (the build directory), then in ../lib/xtop/ (an install under PREFIX). It
 * is appended to any LD_PRELOAD already set, so a preload that must come
 * first (a sanitizer runtime, a memory allocator) still does.
 */
#ifndef XT_LAUNCH_H
#define XT_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "../util/error.h"

/* Finds libxtop-agent.so; buf gets its absolute path. Returns 0, or
 * XT_ENOENT with err saying where it looked. */
int launch_agent_path(char *buf, size_t n, struct xt_error *err);

/* The LD_PRELOAD value for agent: the current one with agent appended
 * (unless already there). Returns a malloc'd string. Can't fail. */
char *launch_preload_value(const char *agent);

/*
 * CUDA command buffers (XLA's default on NVIDIA GPUs) with a GPU profiler
 * (CUPTI) can corrupt the workload's memory: XLA's own command_buffer_thunk
 * runs op by op while its profiler session is active, but a capture through
 * the agent is not such a session, nor is one through jaxlib's profiler
 * server. On an H100 (JAX 0.11.2) workloads died of CUDA_ERROR_LAUNCH_FAILED
 * or ILLEGAL_ADDRESS seconds after one capture, through the agent and the
 * server alike, and a second capture at once failed in CUPTI; with command
 * buffers off, none did. So the workloads xtop starts get them off (the
 * flag below first in XLA_FLAGS, before the user's flags or a flag file's:
 * xla_flags_cmdbuf_off), unless their XLA_FLAGS already set them or the
 * user asks to keep them (--command-buffers). Programs that are not XLA
 * ignore XLA_FLAGS.
 */
#define LAUNCH_CMDBUF_OFF "--xla_gpu_enable_command_buffer="

/*
 * Runs argv[0] (searched in PATH) with the agent as a child, says its PID on
 * stderr (unless quiet; and that command buffers are off, when they were
 * turned off: cmdbuf keeps them), and waits for it. SIGINT and SIGQUIT are left to
 * the child (the terminal sends them to both), SIGTERM, SIGHUP, SIGUSR1 and
 * SIGUSR2 are passed on. When it ends, how is written to
 * <socket dir>/agent-PID.exit (workload_ended() reads it), and the return
 * value is its exit status, or it dies of the same signal. Returns
 * LAUNCH_NOCMD or LAUNCH_NOEXEC with err when exec fails (as a shell's 127
 * and 126), or another negative XT_E* when xtop cannot start it (no agent).
 */
#define LAUNCH_NOCMD (-127)  /* no such command */
#define LAUNCH_NOEXEC (-126) /* there, but it cannot be run (not executable) */
int launch_run(char *const argv[], int quiet, int cmdbuf, struct xt_error *err);

/*
 * Starts argv with the agent as a child in a new session, stdin from
 * /dev/null, stdout and stderr appended to <logdir>/xtop-run-PID.log (log
 * gets that path). Returns the child's PID, or a negative XT_E* with err
 * (no agent, the command cannot be executed).
 */
pid_t launch_spawn(char *const argv[], const char *logdir, int cmdbuf, char *log, size_t n,
		   struct xt_error *err);

/* Removes the agent socket of pid, a workload that has ended (its agent
 * could not if it was killed). Can't fail. */
void launch_forget_socket(pid_t pid);

#endif
