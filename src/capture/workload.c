/* workload: see workload.h. */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* From /proc/<pid>/stat: 0 running, 1 gone (status unknown), 2 a zombie with
 * its wait status in *status (the exit_code field, Linux 3.5+). */
static int proc_state(pid_t pid, int *status)
{
	char path[64], buf[2048], *p, *save = NULL, *tok;
	int fd, field;
	ssize_t k;
	char state;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return 1;
	buf[k] = '\0';
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

int workload_ended(pid_t pid, int wait_ms, char *desc, size_t n, int *crashed)
{
	int waited = 0;

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
			snprintf(desc, n, "exited");
			return 1;
		}
		if (waited >= wait_ms)
			return 0;
		usleep(20000);
		waited += 20;
	}
}
