/*
 * xtop: a terminal viewer for XLA profiler (XSpace) profiles.
 * main only picks the mode: `xtop report ...`, or the viewer on PATH (which
 * prints the report instead when stdout is not a terminal).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "cli/capture_cmd.h"
#include "cli/config.h"
#include "cli/diff_cmd.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/run_cmd.h"
#include "cli/top_cmd.h"
#include "ui/app.h"

enum { OPT_ASCII = 1, OPT_RUN, OPT_ATTACH, OPT_DURATION, OPT_LOGDIR, OPT_VIEW, OPT_DIFF, OPT_CONFIG,
       OPT_CMDBUF, OPT_HELP };

static const struct xt_option main_options[] = {
	{ OPT_ASCII, 0, "ascii", 0, NULL, "draw with ASCII only (also when the locale is not UTF-8)" },
	{ OPT_RUN, 'r', "run", 1, "NAME", "pick a run of a logdir (default: the newest)" },
	{ OPT_ATTACH, 'a', "attach", 1, "TARGET",
	  "capture live from HOST:PORT[,HOST:PORT...] or a PID (c captures, x saves); "
	  "--attach -- CMD starts CMD with the xtop agent first" },
	{ OPT_CMDBUF, 0, "command-buffers", 0, NULL,
	  "with --attach -- CMD: leave XLA's CUDA command buffers on (off by default: a GPU "
	  "capture with them can crash the workload)" },
	{ OPT_DURATION, 'd', "duration", 1, "MS", "capture length (default: the duration setting, 2000)" },
	{ OPT_LOGDIR, 'o', "logdir", 1, "DIR",
	  "captures and saves go under DIR (default: the logdir setting, xtop-logdir)" },
	{ OPT_VIEW, 0, "view", 1, "VIEW", "open on a view: overview, timeline, ops, steps, memory, kernels, devices, diff" },
	{ OPT_DIFF, 0, "diff", 1, "BASE", "compare PATH with the profile BASE (opens on the diff view)" },
	{ OPT_CONFIG, 0, "config", 0, NULL,
	  "print the settings ($XTOP_*, ~/.config/xtop/config, defaults) and where each came from" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

static void usage(FILE *f)
{
	options_usage(f, "xtop [options] PATH\n       xtop --diff BASE [options] NEW\n"
			 "       xtop --attach HOST:PORT|PID [options] [PATH]\n"
			 "       xtop [options] --attach -- CMD [ARGS...]\n"
			 "       xtop report [--json] [--top N] [--run NAME] [--list] PATH\n"
			 "       xtop report [--json] --baseline BASE [--fail-over PCT] PATH\n"
			 "       xtop diff [--json] [--top N] BASE NEW\n"
			 "       xtop capture [--duration MS] [--logdir DIR] HOST:PORT[,...] | PID\n"
			 "       xtop top [--every S] [--duration MS] [--batch N] HOST:PORT[,...] | PID\n"
			 "       xtop run [--quiet] [--command-buffers] -- CMD [ARGS...]",
		      "Open an XLA profile in the terminal. PATH is a .xplane.pb file (plain or gzip),\n"
		      "a run directory with one file per host, or a TensorBoard logdir (the newest run\n"
		      "under plugins/profile/). When stdout is not a terminal, prints the report.\n"
		      "In the viewer, ? lists the keys. See also 'xtop report --help'.",
		      main_options);
}

int main(int argc, char **argv)
{
	struct option lopts[12];
	char sopts[48];
	struct app_opts ao;
	struct config cfg;
	struct xt_error err;
	int c, k, cfg_rc;
	int show_config = 0, view_given = 0, duration_given = 0, logdir_given = 0;

	if (argc >= 2 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "capture"))
		return capture_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);
	/* The viewer's settings. Report and diff need none, so a bad one is
	 * news only where it is used: not when the viewer prints the report. */
	cfg_rc = config_load(&cfg, &err);
	memset(&ao, 0, sizeof(ao));
	config_capture_opts(&cfg, &ao.capture);
	ao.view = (enum view_id)config_view(&cfg);
	/* xtop [options] --attach -- CMD [ARGS...]: what follows -- is the
	 * command, never options of xtop. */
	for (k = 2; k < argc; k++) {
		if (strcmp(argv[k], "--"))
			continue;
		if (!strcmp(argv[k - 1], "--attach") || !strcmp(argv[k - 1], "-a")) {
			if (k + 1 >= argc) {
				fprintf(stderr, "xtop: --attach -- needs a command to run\n");
				return 2;
			}
			ao.launch = argv + k + 1;
			argv[k - 1] = NULL;
			argc = k - 1;
		}
		break;
	}
	options_build(main_options, lopts, sopts, sizeof(sopts));
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(main_options, c)) {
		case OPT_ASCII:
			ao.ascii = 1;
			break;
		case OPT_RUN:
			ao.run = optarg;
			break;
		case OPT_ATTACH:
			ao.attach = optarg;
			break;
		case OPT_CMDBUF:
			ao.capture.command_buffers = 1;
			break;
		case OPT_DURATION: {
			unsigned long long v;

			if (options_number("--duration", optarg, 1, 24ull * 3600 * 1000, "milliseconds",
					   &v))
				return 2;
			ao.capture.duration_ms = v;
			duration_given = 1;
			break;
		}
		case OPT_LOGDIR:
			ao.capture.logdir = optarg;
			logdir_given = 1;
			break;
		case OPT_VIEW: {
			int v = config_view_named(optarg);

			if (v < 0) {
				options_say("--view needs one of overview, timeline, ops, steps, memory, "
					    "kernels, devices, diff, not '%s'",
					    optarg);
				return 2;
			}
			ao.view = (enum view_id)v;
			view_given = 1;
			break;
		}
		case OPT_DIFF:
			ao.diff_base = optarg;
			ao.view = VIEW_DIFF;
			view_given = 1;
			break;
		case OPT_CONFIG:
			show_config = 1; /* after the options, which it shows too */
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		default:
			options_error(main_options, c, argv, "xtop");
			return 2;
		}
	}
	if (show_config) {
		char b[32];

		if (cfg_rc < 0) {
			fprintf(stderr, "xtop: %s\n", err.msg);
			return 2;
		}
		if (optind < argc) {
			fprintf(stderr, "xtop: --config takes no PATH, not '%s'\n", argv[optind]);
			return 2;
		}
		if (logdir_given)
			config_set(&cfg, CFG_LOGDIR, ao.capture.logdir, "--logdir");
		if (duration_given) {
			snprintf(b, sizeof(b), "%llu", (unsigned long long)ao.capture.duration_ms);
			config_set(&cfg, CFG_DURATION, b, "--duration");
		}
		if (view_given)
			config_set(&cfg, CFG_VIEW, config_views[ao.view], ao.diff_base ? "--diff" : "--view");
		config_print(stdout, &cfg);
		return 0;
	}
	if (optind != argc - 1 && !((ao.attach || ao.launch) && optind == argc)) {
		if (ao.diff_base)
			fprintf(stderr, "xtop: --diff BASE compares one PATH with BASE: xtop --diff BASE "
					"PATH (see xtop --help)\n");
		else
			fprintf(stderr, "xtop: expected one PATH (see xtop --help)\n");
		return 2;
	}
	if (optind < argc)
		ao.path = argv[optind];
	if (ao.attach && ao.launch) {
		fprintf(stderr, "xtop: give --attach a TARGET or -- CMD, not both\n");
		return 2;
	}
	if (ao.capture.command_buffers && !ao.launch) {
		fprintf(stderr, "xtop: --command-buffers is for a workload xtop starts: "
				"xtop --command-buffers --attach -- CMD\n");
		return 2;
	}
	if (cfg_rc < 0 && (ao.attach || ao.launch || (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)))) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	if ((ao.attach || ao.launch) && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))) {
		fprintf(stderr, "xtop: --attach needs a terminal; use xtop run and xtop capture for scripts\n");
		return 2;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		/* Not a terminal: print what the viewer would show. */
		char *rargv[6];
		int n = 0;

		if (ao.diff_base) {
			rargv[n++] = "diff";
			rargv[n++] = (char *)ao.diff_base;
			rargv[n++] = argv[optind];
			rargv[n] = NULL;
			return diff_main(n, rargv);
		}
		rargv[n++] = "report";
		if (ao.run) {
			rargv[n++] = "--run";
			rargv[n++] = (char *)ao.run;
		}
		rargv[n++] = argv[optind];
		rargv[n] = NULL;
		return report_main(n, rargv);
	}
	return app_main(&ao);
}
