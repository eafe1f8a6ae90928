/*
 * xtop: a terminal viewer for XLA profiler (XSpace) profiles.
 * main only picks the mode; each mode owns its options.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/report.h"

static void usage(FILE *f)
{
	fputs("usage: xtop report [--json] [--top N] [--run NAME] [--list] PATH\n"
	      "       xtop PATH            (prints the report when stdout is not a terminal)\n"
	      "\n"
	      "PATH is a .xplane.pb file (plain or gzip), a run directory with one file per\n"
	      "host, or a TensorBoard logdir (the newest run under plugins/profile/).\n"
	      "See 'xtop report --help'.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argv[1][0] != '-') {
		/* The interactive viewer is not built yet: print the report. */
		return report_main(argc, argv);
	}
	fprintf(stderr, "xtop: unknown option '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
