/*
 * fuzz_xplane: libFuzzer target for the XSpace reader and the analyses.
 * Each input is written to a temporary file (the reader maps files) and
 * loaded with the analysis hooks attached; any crash, leak, hang or
 * sanitizer report is a bug. Built by `make fuzz` (clang -fsanitize=fuzzer).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../src/model/analysis.h"
#include "../../src/model/xplane_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

/* The input's file goes when the run ends (libFuzzer exits through exit()
 * at -max_total_time and -runs). */
static void path_remove(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct xt_trace *t;
	struct analysis_ctx *ac;
	struct xplane_load_opts lo = { 0 };
	struct xt_error err;

	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/xtop-fuzz-%d.xplane.pb", (int)getpid());
		fd = 1;
		atexit(path_remove);
	}
	{
		FILE *f = fopen(path, "wb");

		if (!f)
			return 0;
		if (size)
			fwrite(data, 1, size, f);
		fclose(f);
	}
	t = trace_new();
	ac = analysis_new();
	analysis_attach(ac, &lo);
	if (size & 1) /* a report's load: host lines keep no events */
		analysis_keep_none(ac, &lo);
	lo.threads = 1;
	lo.keep_resident = 1;
	lo.split_bytes = 1024; /* big-line chunking on small inputs too */
	if (xplane_load(t, path, "fuzz", &lo, &err) == 0)
		analysis_free(analysis_finish(ac, t));
	else
		analysis_abort(ac, t);
	trace_free(t);
	return 0;
}
