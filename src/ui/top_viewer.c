/* top_viewer: see top_viewer.h. */
#include "top_viewer.h"

#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../capture/watch.h"
#include "../model/xplane_writer.h"

/* Runs argv on the terminal and waits for it. While it runs, ^C and ^\ are
 * the child's (the terminal sends them to both): top ignores them, as
 * system() does, and the child gets the defaults back. */
static int run_child(char *const argv[], const char *env_add, int *status)
{
	extern char **environ;
	struct sigaction ign, old_int, old_quit;
	pid_t pid;
	int rc = 0;
	size_t ne = 0;
	char **envp;

	/* The child's environment: top's own and env_add, made here, so that
	 * top's environment never changes while its capture threads read it. */
	while (environ[ne])
		ne++;
	envp = calloc(ne + 2, sizeof(*envp));
	if (!envp)
		return -1;
	memcpy(envp, environ, ne * sizeof(*envp));
	if (env_add)
		envp[ne] = (char *)env_add;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	if (pid < 0) {
		rc = -1;
	} else {
		while (waitpid(pid, status, 0) < 0)
			if (errno != EINTR) {
				rc = -1;
				break;
			}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	free(envp);
	return rc;
}

int top_viewer_open(struct watch *w, const char *logdir, int ascii, char *why, size_t n)
{
	char tmp[4096] = "", path[4096], note[4200], env_note[4300] = "";
	char *argv[8];
	struct xt_error err;
	int status = 0, k = 0, rc;

	if (w->saved) {
		snprintf(path, sizeof(path), "%s", w->saved);
	} else {
		struct xplane_write_opts wo = { NULL, 0, 0, 1 };
		const char *td = getenv("TMPDIR");

		snprintf(tmp, sizeof(tmp), "%s/xtop-top.XXXXXX", td && *td ? td : "/tmp");
		if (!mkdtemp(tmp)) {
			snprintf(why, n, "cannot open the viewer: cannot make a directory in %s: %s",
				 td && *td ? td : "/tmp", strerror(errno));
			return -1;
		}
		/* Listed, so that an exit or a hangup meanwhile removes it. */
		capture_scratch_add(tmp);
		if (xplane_save_run(w->t, tmp, &wo, path, sizeof(path), &err) < 0) {
			snprintf(why, n, "cannot open the viewer: %s", err.msg);
			capture_scratch_remove(tmp);
			return -1;
		}
	}
	/* x in the viewer saves the copy: the file named here gets its run,
	 * so that x in top then says where, not saves it again. */
	if (tmp[0]) {
		snprintf(note, sizeof(note), "%s/saved-to", tmp);
		snprintf(env_note, sizeof(env_note), "XTOP_SAVED_TO=%s", note);
	}
	argv[k++] = "xtop";
	if (ascii)
		argv[k++] = "--ascii";
	argv[k++] = "--logdir";
	argv[k++] = (char *)logdir;
	argv[k++] = "--";
	argv[k++] = path;
	argv[k] = NULL;
	def_prog_mode();
	endwin();
	rc = run_child(argv, env_note[0] ? env_note : NULL, &status);
	reset_prog_mode();
	refresh();
	if (tmp[0]) {
		FILE *f = fopen(note, "r");
		char run[4096];

		if (f && fgets(run, sizeof(run), f) && run[0] == '/' && !w->saved)
			w->saved = strdup(run);
		if (f)
			fclose(f);
		capture_scratch_remove(tmp);
	}
	if (rc < 0) {
		snprintf(why, n, "cannot start the viewer: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		snprintf(why, n, "cannot run the viewer (/proc/self/exe)");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFSIGNALED(status))
			snprintf(why, n, "the viewer ended by signal %d", WTERMSIG(status));
		else
			snprintf(why, n, "the viewer ended with status %d", WEXITSTATUS(status));
		return -1;
	}
	return 0;
}
