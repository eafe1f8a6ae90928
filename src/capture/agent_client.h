/*
 * agent_client: xtop's side of the agent protocol (src/agent/agent_proto.h):
 * finding a process's agent socket, connecting to it only when the peer is
 * that process and the same user, and one request/reply exchange with
 * timeouts. Nothing here can abort the process or raise SIGPIPE.
 */
#ifndef XT_AGENT_CLIENT_H
#define XT_AGENT_CLIENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/error.h"

/*
 * Finds the agent socket of local process pid (under the XDG_RUNTIME_DIR of
 * the process, or of xtop, or /tmp/xtop-UID) and checks what is there: it
 * must be a socket, in a directory closed to other users, served by pid
 * itself. Returns 0 with path set; XT_ENOENT when pid has no agent (no
 * socket, or a stale one nobody listens on); another negative XT_E* with a
 * one-line err when something else sits at that path (a foreign socket is
 * refused, never used). With cmdbuf, what the process's XLA_FLAGS say of
 * CUDA command buffers now, as its agent reads them (1 on, 0 off;
 * xla_flags_cmdbuf_on), or -1 from an agent that does not say.
 */
int agent_client_find(pid_t pid, char *path, size_t n, int *cmdbuf, struct xt_error *err);

/* Connects to path; when pid > 0 the peer must be pid, and it must run as
 * xtop's user. Returns a connected fd (close it), or a negative XT_E*. */
int agent_client_connect(const char *path, pid_t pid, struct xt_error *err);

struct agent_reply {
	uint16_t type;  /* AGENT_REP_* */
	uint8_t *data;  /* payload (malloc'd, NUL-terminated; free()); NULL when empty */
	size_t len;
};

/*
 * Sends one request and reads its reply, giving up after timeout_ms without
 * progress. Returns 0 with r filled (r->type may be AGENT_REP_ERROR: the
 * text is in r->data), or a negative XT_E* with err (the connection closed,
 * a timeout, a malformed reply).
 */
int agent_client_call(int fd, uint16_t type, const void *payload, size_t len, int timeout_ms,
		      struct agent_reply *r, struct xt_error *err);

/*
 * Waits ms milliseconds, or until *stop turns non-zero, watching fd: returns
 * 0 after the wait, 1 when stopped early, or -1 when the agent closed the
 * connection (its process is likely gone).
 */
int agent_client_wait(int fd, uint64_t ms, volatile sig_atomic_t *stop);

#endif
