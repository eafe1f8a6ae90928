/* workload: see workload.h. */
#include "workload.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../util/xalloc.h"
#include "xla_flags.h"

#define MAX_CHILDREN 8

static struct {
	pid_t pid;
	int reaped, status;
} children[MAX_CHILDREN];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void workload_adopt(pid_t pid)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i].pid || children[i].reaped) {
			children[i].pid = pid;
			children[i].reaped = 0;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

static void describe(int status, char *desc, size_t n, int *crashed)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *ab = sigabbrev_np(sig);

		snprintf(desc, n, "killed by signal %d (SIG%s)%s", sig, ab ? ab : "?",
			 WCOREDUMP(status) ? ", core dumped" : "");
		*crashed = sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGILL ||
			   sig == SIGFPE;
	} else {
		snprintf(desc, n, "exited with status %d", WEXITSTATUS(status));
		*crashed = WEXITSTATUS(status) != 0;
	}
}

/* 1 when pid is our child (then *ended and *status say what waitpid knows). */
static int child_state(pid_t pid, int *ended, int *status)
{
	int i, found = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CHILDREN; i++) {
		if (children[i].pid != pid)
			continue;
		found = 1;
		if (!children[i].reaped && waitpid(pid, &children[i].status, WNOHANG) == pid)
			children[i].reaped = 1;
		*ended = children[i].reaped;
		*status = children[i].status;
		break;
	}
	pthread_mutex_unlock(&lock);
	return found;
}

/* /proc/<pid>/<what> into buf (n - 1 bytes at most, then a NUL): the bytes
 * read, or -1 when it cannot be opened. */
static ssize_t proc_read(pid_t pid, const char *what, char *buf, size_t n)
{
	char path[64];
	size_t got = 0;
	ssize_t k;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < n - 1 && (k = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)k;
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* From /proc/<pid>/stat: 0 running, 1 gone (status unknown), 2 a zombie with
 * its wait status in *status (the exit_code field, Linux 3.5+). */
static int proc_state(pid_t pid, int *status)
{
	char buf[2048], *p, *save = NULL, *tok;
	int field;
	char state;

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return 1;
	p = strrchr(buf, ')');
	if (!p || !p[1])
		return 0;
	state = p[2];
	if (state != 'Z' && state != 'X')
		return 0;
	/* Fields after the command: 3 is the state, 52 the exit code. */
	for (field = 3, tok = strtok_r(p + 2, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 52) {
			*status = (int)strtol(tok, NULL, 10);
			return 2;
		}
	}
	return 1;
}

int workload_exit_dir(char *dir, size_t n)
{
	struct stat st;

	if (agent_socket_dir(dir, n, getenv("XDG_RUNTIME_DIR"), (unsigned)geteuid()) < 0)
		return -1;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return -1;
	return 0;
}

void workload_forget_exit(pid_t pid)
{
	char dir[256], path[320];

	if (workload_exit_dir(dir, sizeof(dir)) == 0) {
		snprintf(path, sizeof(path), "%s/agent-%d.exit", dir, (int)pid);
		unlink(path);
	}
}

/* The wait status xtop run recorded for pid in dir, if fresh and ours. */
static int exit_file(const char *dir, pid_t pid, int *status)
{
	char path[320], buf[32];
	struct stat st;
	int fd;
	ssize_t k;

	snprintf(path, sizeof(path), "%s/agent-%d.exit", dir, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	/* A record older than two minutes is of another process. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    time(NULL) - st.st_mtime > 120) {
		close(fd);
		return 0;
	}
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return 0;
	buf[k] = '\0';
	*status = (int)strtol(buf, NULL, 10);
	return 1;
}

static int recorded(pid_t pid, const char *hint, int *status)
{
	char dir[256];

	if (hint && exit_file(hint, pid, status))
		return 1;
	if (agent_socket_dir(dir, sizeof(dir), getenv("XDG_RUNTIME_DIR"), (unsigned)geteuid()) == 0 &&
	    exit_file(dir, pid, status))
		return 1;
	return agent_socket_dir(dir, sizeof(dir), NULL, (unsigned)geteuid()) == 0 &&
	       exit_file(dir, pid, status);
}

int workload_ended(pid_t pid, int wait_ms, const char *hint, char *desc, size_t n, int *crashed)
{
	int waited = 0, gone = -1;

	*crashed = 0;
	if (pid <= 0) {
		snprintf(desc, n, "unknown");
		return 0;
	}
	for (;;) {
		int ended = 0, status = 0, st;

		if (child_state(pid, &ended, &status)) {
			if (ended) {
				describe(status, desc, n, crashed);
				return 1;
			}
		} else if ((st = proc_state(pid, &status)) == 2) {
			describe(status, desc, n, crashed);
			return 1;
		} else if (st == 1) {
			/* Reaped: xtop run's record, which follows within moments. */
			if (recorded(pid, hint, &status)) {
				describe(status, desc, n, crashed);
				return 1;
			}
			if (gone < 0)
				gone = waited;
			if (waited - gone >= 1000 || waited >= wait_ms) {
				snprintf(desc, n, "exited");
				return 1;
			}
		}
		if (waited >= wait_ms && gone < 0)
			return 0;
		usleep(20000);
		waited += 20;
	}
}

int workload_env(pid_t pid, const char *name, char *out, size_t n)
{
	static char buf[1 << 17]; /* not on the stack: the viewer's threads have small ones */
	static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
	size_t i = 0, len = strlen(name), got;
	ssize_t k;
	int found = 0;

	out[0] = '\0';
	pthread_mutex_lock(&env_lock);
	k = proc_read(pid, "environ", buf, sizeof(buf));
	got = k > 0 ? (size_t)k : 0;
	while (i < got) {
		const char *e = buf + i;

		if (!strncmp(e, name, len) && e[len] == '=') {
			/* A value that runs to the end of a full buffer was cut
			 * there: too long, never a shorter one. */
			int cut = got == sizeof(buf) - 1 && i + strlen(e) >= got;

			found = !cut && (size_t)snprintf(out, n, "%s", e + len + 1) < n ? 1 : -1;
			if (found < 0)
				out[0] = '\0';
			break;
		}
		i += strlen(e) + 1;
	}
	pthread_mutex_unlock(&env_lock);
	return found;
}

int workload_cmdbuf_on(pid_t pid, int flags_on)
{
	char path[64], line[4096], *flags;
	FILE *f;
	int cuda = 0, on;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!cuda && fgets(line, sizeof(line), f))
		cuda = strstr(line, "xla_cuda_plugin") != NULL;
	fclose(f);
	if (!cuda)
		return 0;
	if (flags_on >= 0)
		return flags_on;
	/* Room for a flag file's content, which xtop run puts in its place. */
	flags = xmalloc(XLA_FLAGS_FILE_MAX + 256);
	switch (workload_env(pid, "XLA_FLAGS", flags, XLA_FLAGS_FILE_MAX + 256)) {
	case 1:
		on = xla_flags_cmdbuf_on(flags, pid);
		break;
	case 0:
		on = xla_flags_cmdbuf_on(NULL, pid);
		break;
	default:
		on = 1; /* too long to read here: XLA's default */
		break;
	}
	free(flags);
	return on;
}

int workload_identity(pid_t pid, char *out, size_t n)
{
	char st[2048], *p;
	unsigned long long start;
	ssize_t k;
	int w;

	/* field 22 (the start time), counted after the name's ')' (field 2) */
	if (proc_read(pid, "stat", st, sizeof(st)) <= 0 || !(p = strrchr(st, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
			  "%*d %llu", &start) != 1)
		return -1;
	w = snprintf(out, n, "%llu ", start);
	if (w < 0 || (size_t)w >= n)
		return -1;
	k = proc_read(pid, "cmdline", out + w, n - (size_t)w);
	if (k <= 0)
		return -1;
	for (ssize_t i = 0; i < k; i++)
		if (!out[w + i])
			out[w + i] = ' ';
	return 0;
}
