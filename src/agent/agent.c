/*
 * agent: libxtop-agent.so, preloaded into a workload by `xtop run`. It
 * serves the protocol of agent_proto.h on a Unix socket from one thread
 * that sleeps in poll() until a client connects.
 *
 * Rules that keep it from harming the workload:
 *  - At load, the constructor only copies two environment values and
 *    starts that thread (with every signal blocked, so no signal meant for
 *    the program lands on it). It takes no signal handler.
 *  - It links none of xtop's exit-on-error helpers; every failure is a
 *    reply, or no agent at all. It never writes to stdout or stderr.
 *  - Sockets are non-blocking or polled with timeouts, and written with
 *    MSG_NOSIGNAL (a client that vanishes must not raise SIGPIPE).
 *  - Memory is bounded: requests up to AGENT_MAX_REQUEST, a few
 *    connections, the C API's buffers under their budget, and the reply is
 *    sent from the plugins' own buffers (agent_space.c).
 *  - After fork() the child closes the agent's descriptors (it has no agent
 *    thread), so a client of the parent sees the parent's death.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent_capture.h"
#include "agent_proto.h"

enum {
	MAX_CONNS = 4,
	IDLE_MS = 120000,      /* a connection with no capture and no request */
	SEND_MS = 30000,       /* a client that stops reading a reply */
	GRACE_MS = 60000,      /* past the asked duration, a silent owner's capture stops */
	UNCOLLECTED_MS = 120000, /* a stopped capture nobody collects is dropped */
};

struct conn {
	int fd;
	uint8_t hdr[AGENT_HDR_SIZE];
	size_t got;          /* bytes of header + payload received */
	uint8_t *payload;    /* malloc'd once the header is in */
	size_t len;
	int64_t last_ms;     /* last activity */
};

static struct {
	pid_t pid;
	uid_t uid;
	char xdg[256];       /* XDG_RUNTIME_DIR at load */
	char path[108];      /* the socket, once listening */
	int lfd;
	struct conn conns[MAX_CONNS];
	int owner;           /* connection that owns the capture, -1 */
	int64_t started_ms, stopped_ms;
	struct agent_capture cap;
} A = { .lfd = -1, .owner = -1 };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the socket ---- */

/* dir must be ours and private; makes it so when it is ours. */
static int private_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != A.uid)
		return -1;
	if ((st.st_mode & 077) && chmod(dir, 0700) < 0)
		return -1;
	return 0;
}

static int listen_in(const char *xdg)
{
	char dir[256], path[256];
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	if (agent_socket_dir(dir, sizeof(dir), xdg, (unsigned)A.uid) < 0 || private_dir(dir) < 0 ||
	    agent_socket_path(path, sizeof(path), dir, (long)A.pid) < 0)
		return -1;
	/* A socket left by an earlier process with this PID (or by this
	 * process before an exec) is ours to replace; anything else is not. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || st.st_uid != A.uid || unlink(path) < 0)
			return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, 8) < 0) {
		close(fd);
		return -1;
	}
	snprintf(A.path, sizeof(A.path), "%s", path);
	A.lfd = fd;
	return 0;
}

/* ---- replies ---- */

/* Sends iov fully, waiting at most SEND_MS for each step. */
static int send_iov(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		struct msghdr m;
		struct pollfd pf = { fd, POLLOUT, 0 };
		ssize_t k;

		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = (size_t)(n > 64 ? 64 : n);
		k = sendmsg(fd, &m, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -1;
			if (poll(&pf, 1, SEND_MS) <= 0)
				return -1;
			continue;
		}
		while (n > 0 && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

static int reply(int fd, uint16_t type, const char *text)
{
	uint8_t hb[AGENT_HDR_SIZE];
	struct iovec iov[2];
	size_t n = text ? strlen(text) : 0;

	agent_hdr_pack(hb, type, n);
	iov[0] = (struct iovec){ hb, sizeof(hb) };
	iov[1] = (struct iovec){ (void *)text, n };
	return send_iov(fd, iov, n ? 2 : 1);
}

static int reply_space(int fd, const struct space_out *o)
{
	uint8_t hb[AGENT_HDR_SIZE];
	struct iovec *iov = malloc((o->n + 1) * sizeof(*iov));
	size_t i;
	int rc;

	if (!iov)
		return reply(fd, AGENT_REP_ERROR, "out of memory for the reply");
	agent_hdr_pack(hb, AGENT_REP_XSPACE, o->total);
	iov[0] = (struct iovec){ hb, sizeof(hb) };
	for (i = 0; i < o->n; i++)
		iov[i + 1] = (struct iovec){ (void *)o->v[i].p, o->v[i].n };
	rc = send_iov(fd, iov, (int)o->n + 1);
	free(iov);
	return rc;
}

/* ---- connections ---- */

static void capture_end(void)
{
	agent_capture_release(&A.cap);
	A.owner = -1;
}

static void conn_close(int i)
{
	struct conn *c = &A.conns[i];

	if (A.owner == i)
		capture_end(); /* its client is gone: nobody will collect */
	close(c->fd);
	free(c->payload);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/*
 * XLA_FLAGS as the process has them now, for xtop's command-buffer warning:
 * a script may set os.environ["XLA_FLAGS"] before importing JAX, which
 * /proc/PID/environ (the environment it started with) does not show. Read
 * with getenv on this thread, as the workload's own threads do; a line of
 * msg (of n bytes): xla_flags=VALUE, xla_flags_set=0 when unset, and
 * xla_flags_set=1 when the value does not fit or holds a newline.
 */
static void status_flags(char *msg, size_t n)
{
	const char *v = getenv("XLA_FLAGS");
	size_t k = strlen(msg);

	if (!v)
		snprintf(msg + k, n - k, "xla_flags_set=0\n");
	else if (strlen(v) < AGENT_FLAGS_MAX && !strchr(v, '\n') &&
		 k + strlen(v) + sizeof("xla_flags=\n") <= n)
		snprintf(msg + k, n - k, "xla_flags=%s\n", v);
	else /* set, but not sendable: the client reads it as unknown, never
	      * as the environment the process started with */
		snprintf(msg + k, n - k, "xla_flags_set=1\n");
}

/* Handles one complete request; returns -1 to close the connection. */
static int handle(int i, const struct agent_hdr *h, const uint8_t *p, size_t n)
{
	int fd = A.conns[i].fd;
	char msg[2048 + AGENT_FLAGS_MAX];

	switch (h->type) {
	case AGENT_REQ_STATUS: {
		int k = snprintf(msg, sizeof(msg), "version=%d\npid=%d\nuid=%u\n", AGENT_VERSION,
				 (int)A.pid, (unsigned)A.uid);

		agent_capture_status(&A.cap, msg + k, sizeof(msg) - (size_t)k);
		status_flags(msg, sizeof(msg));
		return reply(fd, AGENT_REP_OK, msg);
	}
	case AGENT_REQ_START:
		if (A.cap.state != AGENT_IDLE)
			return reply(fd, AGENT_REP_ERROR,
				     "it is already being captured (one capture at a time per process)");
		if (agent_capture_start(&A.cap, p, n, msg, sizeof(msg)) < 0)
			return reply(fd, AGENT_REP_ERROR, msg);
		A.owner = i;
		A.started_ms = now_ms();
		return reply(fd, AGENT_REP_OK, msg);
	case AGENT_REQ_STOP:
		if (A.owner != i)
			return reply(fd, AGENT_REP_ERROR, "no capture started on this connection");
		agent_capture_stop(&A.cap);
		A.stopped_ms = now_ms();
		return reply(fd, AGENT_REP_OK, "state=stopped\n");
	case AGENT_REQ_COLLECT: {
		int rc;

		if (A.owner != i)
			return reply(fd, AGENT_REP_ERROR, "no capture started on this connection");
		if (agent_capture_collect(&A.cap, msg, sizeof(msg)) < 0)
			rc = reply(fd, AGENT_REP_ERROR, msg);
		else
			rc = reply_space(fd, &A.cap.out);
		capture_end(); /* after sending: the plugins' buffers were in the reply */
		return rc;
	}
	default:
		snprintf(msg, sizeof(msg), "unknown request type %u", (unsigned)h->type);
		reply(fd, AGENT_REP_ERROR, msg);
		return -1;
	}
}

/* Reads what arrived; a complete request is handled. */
static void conn_read(int i)
{
	struct conn *c = &A.conns[i];
	struct agent_hdr h;

	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t k;

		if (c->got < AGENT_HDR_SIZE) {
			dst = c->hdr + c->got;
			want = AGENT_HDR_SIZE - c->got;
		} else {
			dst = c->payload + (c->got - AGENT_HDR_SIZE);
			want = c->len - (c->got - AGENT_HDR_SIZE);
		}
		if (want) {
			k = recv(c->fd, dst, want, MSG_DONTWAIT);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return;
			if (k <= 0) {
				conn_close(i); /* closed, maybe mid-request: nothing to undo but the capture */
				return;
			}
			c->got += (size_t)k;
			c->last_ms = now_ms();
		}
		if (c->got == AGENT_HDR_SIZE && !c->payload) {
			agent_hdr_unpack(c->hdr, &h);
			if (h.magic != AGENT_MAGIC || h.version != AGENT_VERSION ||
			    h.len > AGENT_MAX_REQUEST) {
				char msg[160];

				if (h.magic != AGENT_MAGIC)
					snprintf(msg, sizeof(msg), "not the xtop agent protocol");
				else if (h.version != AGENT_VERSION)
					snprintf(msg, sizeof(msg),
						 "protocol version %u is not supported (this agent speaks %d)",
						 (unsigned)h.version, AGENT_VERSION);
				else
					snprintf(msg, sizeof(msg), "request too large (at most %u bytes)",
						 AGENT_MAX_REQUEST);
				reply(c->fd, AGENT_REP_ERROR, msg);
				conn_close(i);
				return;
			}
			c->len = (size_t)h.len;
			c->payload = malloc(c->len ? c->len : 1);
			if (!c->payload) {
				reply(c->fd, AGENT_REP_ERROR, "out of memory");
				conn_close(i);
				return;
			}
		}
		if (c->got >= AGENT_HDR_SIZE && c->got == AGENT_HDR_SIZE + c->len) {
			int rc;

			agent_hdr_unpack(c->hdr, &h);
			rc = handle(i, &h, c->payload, c->len);
			free(c->payload);
			c->payload = NULL;
			c->got = 0;
			c->len = 0;
			if (rc < 0) {
				conn_close(i);
				return;
			}
		}
	}
}

static void conn_accept(void)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	int fd = accept4(A.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i;

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 || cr.uid != A.uid) {
		char msg[160];

		snprintf(msg, sizeof(msg), "refused: this agent serves only its own user (uid %u)",
			 (unsigned)A.uid);
		reply(fd, AGENT_REP_ERROR, msg);
		close(fd);
		return;
	}
	for (i = 0; i < MAX_CONNS; i++) {
		if (A.conns[i].fd < 0) {
			A.conns[i].fd = fd;
			A.conns[i].last_ms = now_ms();
			return;
		}
	}
	reply(fd, AGENT_REP_ERROR, "busy: too many xtop clients at once");
	close(fd);
}

/* Safety nets for clients that went silent. */
static void timers(void)
{
	int64_t t = now_ms();
	int i;

	if (A.cap.state == AGENT_RUNNING && A.cap.duration_ms &&
	    t - A.started_ms > (int64_t)A.cap.duration_ms + GRACE_MS) {
		agent_capture_stop(&A.cap);
		A.stopped_ms = t;
	}
	if (A.cap.state == AGENT_STOPPED && t - A.stopped_ms > UNCOLLECTED_MS)
		capture_end();
	for (i = 0; i < MAX_CONNS; i++)
		if (A.conns[i].fd >= 0 && A.owner != i && t - A.conns[i].last_ms > IDLE_MS)
			conn_close(i);
}

static void *agent_main(void *arg)
{
	int i;

	(void)arg;
	pthread_setname_np(pthread_self(), "xtop-agent");
	if ((!A.xdg[0] || listen_in(A.xdg) < 0) && listen_in(NULL) < 0)
		return NULL; /* no socket, no agent: the workload runs as if alone */
	for (;;) {
		struct pollfd pf[1 + MAX_CONNS];
		int who[1 + MAX_CONNS], n = 1, timeout = -1;

		pf[0] = (struct pollfd){ A.lfd, POLLIN, 0 };
		for (i = 0; i < MAX_CONNS; i++) {
			if (A.conns[i].fd < 0)
				continue;
			pf[n] = (struct pollfd){ A.conns[i].fd, POLLIN, 0 };
			who[n++] = i;
			timeout = 1000;
		}
		if (A.cap.state != AGENT_IDLE)
			timeout = 1000;
		if (poll(pf, (nfds_t)n, timeout) < 0 && errno != EINTR)
			continue;
		if (pf[0].revents & POLLIN)
			conn_accept();
		for (i = 1; i < n; i++)
			if (pf[i].revents && A.conns[who[i]].fd == pf[i].fd)
				conn_read(who[i]);
		timers();
	}
	return NULL;
}

/* ---- load, fork, exit ---- */

static void after_fork_child(void)
{
	int i;

	/* The child has no agent thread: it must not hold the parent's
	 * sockets open (a client would not see the parent die). */
	if (A.lfd >= 0)
		close(A.lfd);
	A.lfd = -1;
	for (i = 0; i < MAX_CONNS; i++)
		if (A.conns[i].fd >= 0)
			close(A.conns[i].fd);
	A.path[0] = '\0';
	/* Forked while the agent thread held the registries' lock: the child
	 * has no such thread to release it, and its libraries' destructors
	 * take it at exit. */
	agent_trace_after_fork();
}

__attribute__((constructor)) static void agent_load(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	sigset_t all, old;
	pthread_attr_t at;
	pthread_t t;
	int i;

	for (i = 0; i < MAX_CONNS; i++)
		A.conns[i].fd = -1;
	A.pid = getpid();
	A.uid = geteuid();
	if (xdg && strlen(xdg) < sizeof(A.xdg))
		snprintf(A.xdg, sizeof(A.xdg), "%s", xdg);
	pthread_atfork(NULL, NULL, after_fork_child);
	if (pthread_attr_init(&at) != 0)
		return;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&t, &at, agent_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
}

__attribute__((destructor)) static void agent_unload(void)
{
	if (A.path[0] && getpid() == A.pid)
		unlink(A.path);
}
