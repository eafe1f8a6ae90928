/* agent_client: see agent_client.h. */
#include "agent_client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "workload.h"
#include "xla_flags.h"


int agent_client_connect(const char *path, pid_t pid, struct xt_error *err)
{
	struct sockaddr_un sa;
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return xt_error_set(err, XT_EUSAGE, "%s: path too long for a socket", path);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return xt_error_set(err, XT_EIO, "cannot create a socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		/* Nobody listening: a stale socket of a process that died. */
		return xt_error_set(err, e == ECONNREFUSED || e == ENOENT ? XT_ENOENT : XT_EIO,
				    "%s: %s", path, strerror(e));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0) {
		close(fd);
		return xt_error_set(err, XT_EIO, "%s: cannot identify its peer: %s", path,
				    strerror(errno));
	}
	if (pid > 0 && cr.pid != pid) {
		close(fd);
		return xt_error_set(err, XT_EIO,
				    "%s is served by PID %d, not by PID %d: refusing this foreign socket",
				    path, (int)cr.pid, (int)pid);
	}
	if (cr.uid != geteuid()) {
		close(fd);
		return xt_error_set(err, XT_EIO,
				    "%s is served by another user (uid %u): refusing it; run xtop as that user",
				    path, (unsigned)cr.uid);
	}
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends or receives exactly n bytes, waiting at most timeout_ms between two
 * pieces. Returns 0, or -1 with errno (EPIPE/ECONNRESET for a closed
 * connection, ETIMEDOUT). */
static int xfer(int fd, void *buf, size_t n, int out, int timeout_ms)
{
	uint8_t *p = buf;

	while (n) {
		struct pollfd pf = { fd, (short)(out ? POLLOUT : POLLIN), 0 };
		ssize_t k;
		int pr = poll(&pf, 1, timeout_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -1;
		if (pr == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = ECONNRESET;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int lost(struct xt_error *err, const char *what)
{
	if (errno == ETIMEDOUT)
		return xt_error_set(err, XT_EIO, "the agent did not answer in time (%s)", what);
	if (errno == ECONNRESET || errno == EPIPE)
		return xt_error_set(err, XT_EIO, "the agent closed the connection (%s)", what);
	return xt_error_set(err, XT_EIO, "%s: %s", what, strerror(errno));
}

int agent_client_call(int fd, uint16_t type, const void *payload, size_t len, int timeout_ms,
		      struct agent_reply *r, struct xt_error *err)
{
	uint8_t hb[AGENT_HDR_SIZE];
	struct agent_hdr h;

	memset(r, 0, sizeof(*r));
	agent_hdr_pack(hb, type, len);
	if (xfer(fd, hb, sizeof(hb), 1, timeout_ms) < 0 ||
	    (len && xfer(fd, (void *)payload, len, 1, timeout_ms) < 0))
		return lost(err, "sending a request");
	if (xfer(fd, hb, sizeof(hb), 0, timeout_ms) < 0)
		return lost(err, "waiting for its reply");
	agent_hdr_unpack(hb, &h);
	if (h.magic != AGENT_MAGIC)
		return xt_error_set(err, XT_EFORMAT, "the peer does not speak the xtop agent protocol");
	if (h.type != AGENT_REP_OK && h.type != AGENT_REP_ERROR && h.type != AGENT_REP_XSPACE)
		return xt_error_set(err, XT_EFORMAT, "the agent sent an unknown reply (type %u)",
				    (unsigned)h.type);
	/* Text replies are short; an XSpace is as large as the capture. */
	if (h.type != AGENT_REP_XSPACE && h.len > AGENT_MAX_REQUEST)
		return xt_error_set(err, XT_EFORMAT, "the agent sent a %llu-byte text reply",
				    (unsigned long long)h.len);
	if (h.len > ((uint64_t)1 << 40))
		return xt_error_set(err, XT_ELIMIT, "the agent announced a %llu-byte reply",
				    (unsigned long long)h.len);
	r->type = h.type;
	r->len = (size_t)h.len;
	r->data = malloc(r->len + 1);
	if (!r->data)
		return xt_error_set(err, XT_ELIMIT, "no memory for a %zu-byte capture", r->len);
	if (r->len && xfer(fd, r->data, r->len, 0, timeout_ms) < 0) {
		free(r->data);
		r->data = NULL;
		return lost(err, "reading its reply");
	}
	r->data[r->len] = '\0';
	return 0;
}

int agent_client_wait(int fd, uint64_t ms, volatile sig_atomic_t *stop)
{
	int64_t end = now_ms() + (int64_t)ms;

	for (;;) {
		int64_t left = end - now_ms();
		struct pollfd pf = { fd, POLLIN, 0 };
		int pr;

		if (stop && *stop)
			return 1;
		if (left <= 0)
			return 0;
		pr = poll(&pf, 1, left < 100 ? (int)left : 100);
		if (pr > 0) {
			char c;

			/* The agent sends nothing unasked: readable means closed. */
			if (recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
				return -1;
		}
	}
}

/* What sits at path, when it is not a usable socket of uid: a message. */
static int check_path(const char *path, uid_t uid, struct xt_error *err)
{
	char dir[256];
	struct stat st;
	char *slash;

	if (lstat(path, &st) < 0)
		return XT_ENOENT;
	if (!S_ISSOCK(st.st_mode))
		return xt_error_set(err, XT_EIO,
				    "%s is not a socket (something else sits at the agent's path): "
				    "refusing it",
				    path);
	if (st.st_uid != uid)
		return xt_error_set(err, XT_EIO,
				    "%s belongs to uid %u, not to the workload's user (uid %u): "
				    "refusing it",
				    path, (unsigned)st.st_uid, (unsigned)uid);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & 077))
		return xt_error_set(err, XT_EIO,
				    "%s: its directory is not private to the workload's user (it must "
				    "be a 0700 directory owned by uid %u): refusing it",
				    path, (unsigned)uid);
	return 0;
}

int agent_client_find(pid_t pid, char *path, size_t n, int *cmdbuf, struct xt_error *err)
{
	char xdg[4096], dirs[3][256], pidtxt[32], flags[AGENT_FLAGS_MAX + 1];
	const char *own = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int nd = 0, i, k, stale = 0;
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0)
		return xt_error_set(err, XT_ENOENT, "no process with PID %d", (int)pid);
	workload_env(pid, "XDG_RUNTIME_DIR", xdg, sizeof(xdg));
	if (xdg[0] && agent_socket_dir(dirs[nd], sizeof(dirs[nd]), xdg, st.st_uid) == 0)
		nd++;
	if (own && *own && st.st_uid == geteuid() &&
	    agent_socket_dir(dirs[nd], sizeof(dirs[nd]), own, st.st_uid) == 0)
		nd++;
	if (agent_socket_dir(dirs[nd], sizeof(dirs[nd]), NULL, st.st_uid) == 0)
		nd++;
	for (i = 0; i < nd; i++) {
		int fd, rc, dup = 0;
		struct agent_reply r;

		for (k = 0; k < i; k++)
			dup |= !strcmp(dirs[k], dirs[i]);
		if (dup || agent_socket_path(path, n, dirs[i], (long)pid) < 0)
			continue;
		rc = check_path(path, st.st_uid, err);
		if (rc == XT_ENOENT)
			continue;
		if (rc < 0)
			return rc;
		fd = agent_client_connect(path, pid, err);
		if (fd == XT_ENOENT) {
			stale = 1;
			continue;
		}
		if (fd < 0)
			return fd;
		rc = agent_client_call(fd, AGENT_REQ_STATUS, NULL, 0, 5000, &r, err);
		close(fd);
		if (rc < 0) {
			char how[128];
			int crashed;

			/* The process may have died as it answered: say so,
			 * rather than blame its agent. */
			if (workload_ended(pid, 1000, dirs[i], how, sizeof(how), &crashed))
				return xt_error_set(err, XT_EIO, "process %d has ended (%s)", (int)pid,
						    how);
			return xt_error_set(err, XT_EIO, "%s does not answer as an xtop agent (%.300s)",
					    path, err->msg);
		}
		snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
		if (r.type != AGENT_REP_OK ||
		    !agent_kv((const char *)r.data, r.len, "pid", xdg, sizeof(xdg)) ||
		    strcmp(xdg, pidtxt)) {
			rc = xt_error_set(err, XT_EIO, "%s does not answer as the xtop agent of PID %d%s%.300s",
					  path, (int)pid, r.type == AGENT_REP_ERROR ? ": " : "",
					  r.type == AGENT_REP_ERROR ? (const char *)r.data : "");
			free(r.data);
			return rc;
		}
		if (cmdbuf) {
			/* A value longer than an agent sends was cut: unknown. */
			if (agent_kv((const char *)r.data, r.len, "xla_flags", flags, sizeof(flags)))
				*cmdbuf = strlen(flags) < AGENT_FLAGS_MAX ? xla_flags_cmdbuf_on(flags, pid)
									 : -1;
			else if (agent_kv((const char *)r.data, r.len, "xla_flags_set", flags,
					  sizeof(flags)))
				/* 0: unset (XLA's default); 1: set to a value too
				 * long, or with a newline, to send: unknown, which
				 * errs towards the warning. */
				*cmdbuf = !strcmp(flags, "0") ? xla_flags_cmdbuf_on(NULL, pid) : 1;
			else
				*cmdbuf = -1; /* an older agent: the starting environment */
		}
		free(r.data);
		return 0;
	}
	path[0] = '\0';
	/* The caller words the "no agent" case; only a stale socket is news. */
	return xt_error_set(err, XT_ENOENT, "%s", stale ? "its socket is stale" : "");
}
