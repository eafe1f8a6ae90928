/* run_cmd: see run_cmd.h. */
#include "run_cmd.h"

#include <stdio.h>
#include <string.h>

#include "../capture/launch.h"
#include "options.h"

enum { OPT_QUIET = 1, OPT_CMDBUF, OPT_HELP };

static const struct xt_option run_options[] = {
	{ OPT_QUIET, 'q', "quiet", 0, NULL, "do not print the PID line on stderr" },
	{ OPT_CMDBUF, 0, "command-buffers", 0, NULL,
	  "leave XLA's CUDA command buffers on (by default XLA_FLAGS turns them off: a GPU "
	  "capture with them can crash the workload)" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

static void usage(FILE *f)
{
	options_usage(f, "xtop run [options] -- CMD [ARGS...]",
		      "Run CMD with the xtop agent (libxtop-agent.so) preloaded, so that\n"
		      "`xtop capture PID` and `xtop --attach PID` can profile it without a profiler\n"
		      "server: the agent drives the profiler of every PJRT plugin CMD loads (JAX's\n"
		      "GPU and TPU plugins) and collects what CMD records with libxtop-trace.\n"
		      "xtop run waits for CMD, passes on the signals meant for it, and ends as it\n"
		      "ends (its exit status or signal), which xtop capture then reports. When CMD\n"
		      "cannot start: 127 (not found), 126 (not executable), 125 (no agent).\n"
		      "CMD gets XLA_FLAGS with --xla_gpu_enable_command_buffer= appended (unless its\n"
		      "XLA_FLAGS name that flag): XLA's CUDA command buffers with a GPU capture can\n"
		      "crash it (README, Known issues).",
		      run_options);
}

int run_main(int argc, char **argv)
{
	struct xt_error err;
	int i, quiet = 0, cmdbuf = 0;

	/* Options stop at "--" or at the first word that is not one: the rest
	 * is the command, whose own options must never be read as ours. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--command-buffers")) {
			cmdbuf = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else {
			options_say("unknown option '%s' (see xtop run --help)", a);
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "xtop: run needs a command: xtop run -- CMD [ARGS...]\n");
		return 2;
	}
	i = launch_run(argv + i, quiet, cmdbuf, &err);
	if (i < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		/* As a shell, and as env(1) and timeout(1) for their own failures. */
		return i == LAUNCH_NOCMD ? 127 : i == LAUNCH_NOEXEC ? 126 : 125;
	}
	return i;
}
