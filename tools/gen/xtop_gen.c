/*
 * xtop_gen.c - synthetic XSpace (*.xplane.pb) generator for xtop's tests:
 * the program's entry point.
 *
 * Writes a profile shaped like the real fixtures (TPU-like or GPU-like
 * device planes, /host:metadata, /host:CPU, Task Environment) of any size,
 * and optionally the analysis results that docs/analyses.md derives from it,
 * computed from the generator's own model rather than by re-reading the file.
 *
 * The parts: xg_cli (options), xg_plan (timing model, planes and lines),
 * xg_tpu / xg_gpu / xg_host (the events of each kind of line), xg_meta
 * (plane metadata), xg_space (the counting and writing passes), xg_expect
 * (--expect JSON), xg_file (atomic output files), pbwrite (wire format),
 * xg_scale (--scale: a real profile made bigger).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbwrite.h"
#include "xg_cli.h"
#include "xg_die.h"
#include "xg_expect.h"
#include "xg_file.h"
#include "xg_plan.h"
#include "xg_scale.h"
#include "xg_space.h"

/* Builds the plan for cfg and runs the counting pass on it, so that p
 * knows every line and plane length. With --size, searches the event
 * target whose output is at least that many bytes. */
static void xg_main_plan(struct xg_plan *p, const struct xg_cfg *cfg)
{
	if (!cfg->size) {
		xg_plan_build(p, cfg, cfg->events);
		xg_space_size_pass(p);
		return;
	}
	/* Bytes per event grow slowly with the timeline (longer offset
	 * varints), so calibrate on a small plan, then search event targets
	 * by counting passes: lo is too small, hi big enough; stop within
	 * 1 % above the requested size or after a few passes. */
	xg_plan_build(p, cfg, 200000);
	xg_space_size_pass(p);
	uint64_t lo = 0, hi = 0, step = (uint64_t)cfg->steps * (uint64_t)cfg->devices * 16;
	uint64_t target = (uint64_t)((double)cfg->size * (double)p->events / (double)p->bytes) + 1;
	for (int n = 0;; n++) {
		xg_plan_build(p, cfg, target);
		xg_space_size_pass(p);
		if (p->bytes >= cfg->size) {
			if (!hi || target < hi)
				hi = target;
			if (p->bytes - cfg->size <= cfg->size / 100)
				break;
		} else if (target > lo) {
			lo = target;
		}
		if (hi && n >= 6)
			break;
		uint64_t next = (uint64_t)((double)target * (double)cfg->size / (double)p->bytes * 1.003) + 1;
		if (!hi && next < lo + step)
			next = lo + step;
		if (hi && (next >= hi || next <= lo))
			next = lo + (hi - lo) / 2;
		if (next <= lo)
			break;	/* hi is the smallest target that is big enough */
		target = next;
	}
	if (target != hi) {
		xg_plan_build(p, cfg, hi);
		xg_space_size_pass(p);
	}
}

/* --scale: streams the scaled copy of a profile to cfg->out. */
static int xg_main_scale(const struct xg_cfg *cfg)
{
	struct xg_scale *x = xg_scale_new(cfg->scale_in, cfg->scale_k);
	char *tmp;
	int fd = xg_file_open_tmp(cfg->out, &tmp);
	struct pb_sink s;
	struct xg_scale_stats st;
	if (pb_sink_open(&s, cfg->gzip ? PB_SINK_GZ : PB_SINK_FD, fd, 1) != 0) {
		unlink(tmp);
		xg_die("cannot open gzip stream: %s", strerror(s.err));
	}
	xg_scale_write(x, &s, &st);
	xg_scale_free(x);
	int failed = pb_sink_close(&s) != 0;
	xg_file_commit_tmp(tmp, cfg->out, failed, s.err);
	printf("%s: %s x%" PRIu64 ", %" PRIu64 " planes, %" PRIu64 " lines, %" PRIu64
	       " events, %" PRIu64 " bytes%s\n",
	       cfg->out, cfg->scale_in, cfg->scale_k, st.planes, st.lines, st.events, st.bytes,
	       cfg->gzip ? " before gzip" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct xg_cfg cfg;
	struct xg_plan p = { 0 };
	xg_cli_parse(argc, argv, &cfg);
	if (cfg.scale_in)
		return xg_main_scale(&cfg);
	xg_main_plan(&p, &cfg);

	struct xg_expect ex;
	xg_expect_init(&ex, p.D, p.S);

	char *tmp;
	int fd = xg_file_open_tmp(cfg.out, &tmp);
	struct pb_sink s;
	if (pb_sink_open(&s, cfg.gzip ? PB_SINK_GZ : PB_SINK_FD, fd, 1) != 0) {
		unlink(tmp);
		xg_die("cannot open gzip stream: %s", strerror(s.err));
	}
	xg_space_emit(&p, &s, &ex, 0);
	int failed = pb_sink_close(&s) != 0;
	xg_file_commit_tmp(tmp, cfg.out, failed, s.err);

	if (cfg.expect) {
		fd = xg_file_open_tmp(cfg.expect, &tmp);
		FILE *f = fdopen(fd, "w");
		if (!f) {
			unlink(tmp);
			xg_die("cannot write %s: %s", cfg.expect, strerror(errno));
		}
		xg_expect_write(&p, &ex, f);
		int err = ferror(f) ? EIO : 0;
		if (fclose(f) != 0 && !err)
			err = errno;
		xg_file_commit_tmp(tmp, cfg.expect, err != 0, err);
	}
	printf("%s: %s, %d planes, %d lines, %" PRIu64 " events, %" PRIu64 " bytes%s\n",
	       cfg.out, cfg.kind == KIND_GPU ? "gpu" : "tpu", p.nplanes, p.nlines, p.events,
	       p.bytes, cfg.gzip ? " before gzip" : "");
	free(p.lines);
	xg_expect_free(&ex);
	return 0;
}
