/* launch: see launch.h. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../model/profile_path.h"
#include "../util/xalloc.h"
#include "agent_client.h"
#include "workload.h"
#include "xla_flags.h"

extern char **environ;

#define AGENT_NAME "libxtop-agent.so"

int launch_agent_path(char *buf, size_t n, struct xt_error *err)
{
	const char *env = getenv("XTOP_AGENT");
	char exe[PATH_MAX], dir[PATH_MAX + 64], *slash;
	ssize_t k;

	if (env && *env) {
		if (!realpath(env, exe) || access(exe, R_OK) < 0)
			return xt_error_set(err, XT_ENOENT, "XTOP_AGENT=%s: %s", env, strerror(errno));
		snprintf(buf, n, "%s", exe);
		return 0;
	}
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k <= 0)
		return xt_error_set(err, XT_ENOENT, "cannot find xtop's own path to look for %s",
				    AGENT_NAME);
	exe[k] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/%s", exe, AGENT_NAME);
	if (access(dir, R_OK) == 0) {
		snprintf(buf, n, "%s", dir);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/../lib/xtop/%s", exe, AGENT_NAME);
	if (access(dir, R_OK) == 0 && realpath(dir, exe)) {
		snprintf(buf, n, "%s", exe);
		return 0;
	}
	return xt_error_set(err, XT_ENOENT,
			    "cannot find %s next to xtop or in ../lib/xtop (build it with make, or "
			    "set XTOP_AGENT to its path)",
			    AGENT_NAME);
}

char *launch_preload_value(const char *agent)
{
	const char *cur = getenv("LD_PRELOAD");
	size_t n;
	char *v;

	if (!cur || !*cur)
		return xstrdup(agent);
	/* Already there (a workload started from another `xtop run`). */
	n = strlen(agent);
	for (const char *p = strstr(cur, agent); p; p = strstr(p + 1, agent))
		if ((p == cur || p[-1] == ':' || p[-1] == ' ') && (!p[n] || p[n] == ':' || p[n] == ' '))
			return xstrdup(cur);
	n = strlen(cur) + strlen(agent) + 2;
	v = xmalloc(n);
	snprintf(v, n, "%s:%s", cur, agent);
	return v;
}

/*
 * LD_PRELOAD splits its list at spaces and colons: an agent whose path has
 * one ("/opt/my tools/xtop") would not load, and the workload would run
 * without it. Such a path is preloaded through a link to it in the user's
 * private socket directory instead (replaced atomically: a link named for
 * the target, renamed over). Fails when that directory's path has one too.
 */
static int preload_path(char *agent, size_t n, struct xt_error *err)
{
	char dir[PATH_MAX], link[PATH_MAX + 64], tmp[PATH_MAX + 96];
	struct stat st;

	if (!strpbrk(agent, " :"))
		return 0;
	if (agent_socket_dir(dir, sizeof(dir), getenv("XDG_RUNTIME_DIR"), (unsigned)geteuid()) < 0 ||
	    strpbrk(dir, " :"))
		return xt_error_set(err, XT_EUSAGE,
				    "the agent's path %s has a space or ':', which LD_PRELOAD cannot "
				    "hold (install xtop in a path without one, or set XTOP_AGENT)",
				    agent);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return xt_error_set(err, XT_EIO, "%s: %s", dir, strerror(errno));
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return xt_error_set(err, XT_EIO, "%s is not a private directory of this user", dir);
	{
		/* Named for its target: two installs at once keep their own. */
		uint32_t h = 2166136261u;
		const char *c;

		for (c = agent; *c; c++)
			h = (h ^ (unsigned char)*c) * 16777619u;
		snprintf(link, sizeof(link), "%s/libxtop-agent-%08x.so", dir, h);
	}
	snprintf(tmp, sizeof(tmp), "%s/.libxtop-agent.so.%ld", dir, (long)getpid());
	unlink(tmp);
	if (symlink(agent, tmp) < 0 || rename(tmp, link) < 0) {
		int e = errno;

		unlink(tmp);
		return xt_error_set(err, XT_EIO, "%s: %s", link, strerror(e));
	}
	if (strlen(link) >= n)
		return xt_error_set(err, XT_ELIMIT, "%s: path too long", link);
	memcpy(agent, link, strlen(link) + 1);
	return 0;
}

/* The workload's environment: xtop's own with LD_PRELOAD naming the agent
 * and, unless cmdbuf (--command-buffers) or the user's flags set them,
 * XLA_FLAGS turning CUDA command buffers off (*off 1; 2 when a flag file
 * xtop cannot read whole keeps them on, which the caller says too). Built apart,
 * so that xtop's own environment never changes: a thread of the viewer
 * may read it at any time. Freed with env_free(). */
struct child_env {
	char **envp;
	char *preload, *xla; /* the two entries, owned */
};

static void env_free(struct child_env *ce)
{
	free(ce->envp);
	free(ce->preload);
	free(ce->xla);
}

static char *env_entry(const char *name, const char *v)
{
	size_t n = strlen(name) + strlen(v) + 2;
	char *e = xmalloc(n);

	snprintf(e, n, "%s=%s", name, v);
	return e;
}

static int child_env(struct child_env *ce, int cmdbuf, int *off, struct xt_error *err)
{
	char agent[PATH_MAX];
	char *v;
	size_t n = 0, k = 0;
	int unread = 0;
	int rc = launch_agent_path(agent, sizeof(agent), err);

	memset(ce, 0, sizeof(*ce));
	*off = 0;
	if (rc < 0 || (rc = preload_path(agent, sizeof(agent), err)) < 0)
		return rc;
	v = launch_preload_value(agent);
	ce->preload = env_entry("LD_PRELOAD", v);
	free(v);
	v = cmdbuf ? NULL : xla_flags_cmdbuf_off(getenv("XLA_FLAGS"), LAUNCH_CMDBUF_OFF, &unread);
	if (v) {
		ce->xla = env_entry("XLA_FLAGS", v);
		free(v);
		*off = 1;
	} else if (!cmdbuf && unread) {
		*off = 2; /* they stay on: said, not hidden */
	}
	while (environ[n])
		n++;
	ce->envp = xcalloc(n + 3, sizeof(*ce->envp));
	for (n = 0; environ[n]; n++)
		if (strncmp(environ[n], "LD_PRELOAD=", 11) &&
		    (!ce->xla || strncmp(environ[n], "XLA_FLAGS=", 10)))
			ce->envp[k++] = environ[n];
	ce->envp[k++] = ce->preload;
	if (ce->xla)
		ce->envp[k++] = ce->xla;
	return 0;
}

#define CMDBUF_NOTE                                                                              \
	"xtop: CUDA command buffers are off in this workload (XLA_FLAGS gets "                  \
	LAUNCH_CMDBUF_OFF "): a GPU capture with them can crash it; --command-buffers keeps "   \
	"them\n"
#define CMDBUF_KEPT_NOTE                                                                         \
	"xtop: CUDA command buffers stay on in this workload: xtop cannot read whole the flag "  \
	"file XLA_FLAGS names, to turn them off (a GPU capture with them can crash it; put "      \
	LAUNCH_CMDBUF_OFF " in that file)\n"
/* The note for child_env's *off: 1 turned off, 2 left on, 0 nothing to say. */
static const char *cmdbuf_note(int off)
{
	return off == 1 ? CMDBUF_NOTE : off == 2 ? CMDBUF_KEPT_NOTE : "";
}

static volatile sig_atomic_t run_child;

static void pass_on(int sig)
{
	if (run_child > 0)
		kill((pid_t)run_child, sig);
}

/* Records how pid ended, where xtop capture looks when its socket closes. */
static void write_exit(pid_t pid, int status)
{
	char dir[256], path[320], tmp[340], line[64];
	int fd, k;

	if (workload_exit_dir(dir, sizeof(dir)) < 0)
		return;
	snprintf(path, sizeof(path), "%s/agent-%d.exit", dir, (int)pid);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	k = snprintf(line, sizeof(line), "%d\n", status);
	if (write(fd, line, (size_t)k) == k && close(fd) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

/* Whether an agent listens on the socket at path: the PID may be of
 * another PID namespace (a container sharing the directory) whose process
 * kill() cannot see. */
static int listening(const char *path)
{
	struct xt_error e;
	int fd = agent_client_connect(path, 0, &e);

	if (fd >= 0)
		close(fd);
	return fd != XT_ENOENT; /* refused: nobody listens */
}

/* The files agents and earlier runs left in the socket directory: sockets
 * of processes gone (a workload killed or crashed cannot remove its own),
 * and exit records past the two minutes anyone reads them within. */
static void sweep_stale(void)
{
	char dir[256], path[600];
	struct dirent *d;
	DIR *dp;

	if (workload_exit_dir(dir, sizeof(dir)) < 0 || !(dp = opendir(dir)))
		return;
	while ((d = readdir(dp))) {
		struct stat st;
		long pid;
		char kind[8];

		if (sscanf(d->d_name, "agent-%ld.%5s", &pid, kind) != 2 || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st) < 0 || st.st_uid != geteuid())
			continue;
		if (!strcmp(kind, "exit") && S_ISREG(st.st_mode) && time(NULL) - st.st_mtime > 120)
			unlink(path);
		else if (!strcmp(kind, "sock") && S_ISSOCK(st.st_mode) && kill((pid_t)pid, 0) < 0 &&
			 errno == ESRCH && !listening(path))
			unlink(path);
	}
	closedir(dp);
}

void launch_forget_socket(pid_t pid)
{
	char dir[256], path[320];
	struct stat st;

	if (workload_exit_dir(dir, sizeof(dir)) < 0 ||
	    agent_socket_path(path, sizeof(path), dir, (long)pid) < 0)
		return;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		unlink(path);
}

int launch_run(char *const argv[], int quiet, int cmdbuf, struct xt_error *err)
{
	static const int passed[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	int pfd[2], child_errno = 0, status = 0, rc, off, fork_errno;
	struct sigaction sa;
	pid_t pid;
	ssize_t k;
	size_t i;
	struct child_env ce;

	rc = child_env(&ce, cmdbuf, &off, err);
	if (rc < 0)
		return rc;
	sweep_stale();
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;

		env_free(&ce);
		return xt_error_set(err, XT_EIO, "cannot create a pipe: %s", strerror(e));
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		execvpe(argv[0], argv, ce.envp);
		child_errno = errno;
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	fork_errno = errno;
	env_free(&ce);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return xt_error_set(err, XT_EIO, "cannot fork: %s", strerror(fork_errno));
	}
	do
		k = read(pfd[0], &child_errno, sizeof(child_errno));
	while (k < 0 && errno == EINTR);
	close(pfd[0]);
	if (k == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		return xt_error_set(err, child_errno == ENOENT ? LAUNCH_NOCMD : LAUNCH_NOEXEC,
				    "cannot run %s: %s", argv[0], strerror(child_errno));
	}
	workload_forget_exit(pid);
	run_child = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		sigaction(passed[i], &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (!quiet)
		fprintf(stderr,
			"xtop: PID %d runs %s with the xtop agent (capture: xtop capture %d, view: "
			"xtop --attach %d)\n%s",
			(int)pid, argv[0], (int)pid, (int)pid, cmdbuf_note(off));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	write_exit(pid, status);
	launch_forget_socket(pid);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	/* End as the workload did, for the shell and scripts (no core of
	 * our own). */
	{
		struct rlimit no = { 0, 0 };
		int sig = WTERMSIG(status);
		sigset_t one;

		setrlimit(RLIMIT_CORE, &no);
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
		return 128 + sig;
	}
}

/* mkdir -p of dir; returns 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

pid_t launch_spawn(char *const argv[], const char *logdir_arg, int cmdbuf, char *log, size_t n,
		   struct xt_error *err)
{
	int pfd[2], child_errno = 0, rc, off, fork_errno;
	pid_t pid;
	ssize_t k;
	char logdir[PATH_MAX];
	struct child_env ce;

	/* Absolute, so that the messages that name the log are exact. */
	if (profile_path_absolute(logdir_arg, logdir, sizeof(logdir)) < 0)
		snprintf(logdir, sizeof(logdir), "%s", logdir_arg);
	if (make_dirs(logdir) < 0)
		return xt_error_set(err, XT_EIO, "cannot create %s: %s", logdir, strerror(errno));
	rc = child_env(&ce, cmdbuf, &off, err);
	if (rc < 0)
		return rc;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;

		env_free(&ce);
		return xt_error_set(err, XT_EIO, "cannot create a pipe: %s", strerror(e));
	}
	pid = fork();
	if (pid == 0) {
		char path[PATH_MAX + 64];
		int fd, in;
		sigset_t none;

		close(pfd[0]);
		setsid();
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		snprintf(path, sizeof(path), "%s/xtop-run-%d.log", logdir, (int)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
			child_errno = errno;
		} else {
			/* The log says what xtop changed in the workload. */
			const char *note = cmdbuf_note(off);

			if (*note && write(2, note, strlen(note)) < 0)
				(void)0;
			execvpe(argv[0], argv, ce.envp);
			child_errno = errno;
		}
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	fork_errno = errno;
	env_free(&ce);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return xt_error_set(err, XT_EIO, "cannot fork: %s", strerror(fork_errno));
	}
	/* The pipe closes on exec; a number on it is exec's errno. */
	do
		k = read(pfd[0], &child_errno, sizeof(child_errno));
	while (k < 0 && errno == EINTR);
	close(pfd[0]);
	if (k == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		return xt_error_set(err, child_errno == ENOENT ? LAUNCH_NOCMD : LAUNCH_NOEXEC,
				    "cannot run %s: %s", argv[0], strerror(child_errno));
	}
	workload_adopt(pid);
	snprintf(log, n, "%s/xtop-run-%d.log", logdir, (int)pid);
	return pid;
}
