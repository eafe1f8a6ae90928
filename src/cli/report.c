/*
 * report: the text form of `xtop report` and the command itself (options,
 * loading, --list). See report.h.
 */
#include "report.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/load.h"
#include "../model/op_columns.h"
#include "../model/profile_path.h"
#include "../util/timefmt.h"
#include "options.h"

static void section(struct strbuf *o, const char *title)
{
	strbuf_addf(o, "\n%s\n", title);
}

static void report_devices(struct strbuf *o, const struct xt_analysis *a)
{
	size_t i;
	char b1[32], b2[32];

	section(o, "Devices");
	strbuf_addf(o, "  %-16s %-18s %-5s %12s %12s %7s\n", "HOST", "DEVICE", "KIND", "BUSY", "SPAN",
		    "IDLE");
	for (i = 0; i < a->ndevices; i++) {
		const struct xt_device_row *d = &a->devices[i];
		static const char *const kinds[] = { "-", "xla", "gpu" };

		if (d->kind == XT_DEV_OTHER && !d->span_ps)
			continue;
		if (!d->op_events) {
			strbuf_addf(o, "  %-16.16s %-18.18s %-5s %12s %12s %7s\n", d->host, d->name,
				    kinds[d->kind], "-", "-", "idle");
			continue;
		}
		strbuf_addf(o, "  %-16.16s %-18.18s %-5s %12s %12s %6.1f%%\n", d->host, d->name,
			    kinds[d->kind], fmt_ps(b1, sizeof(b1), d->busy_ps),
			    fmt_ps(b2, sizeof(b2), d->span_ps), d->idle_percent);
	}
}

static void report_ops(struct strbuf *o, const struct xt_analysis *a, size_t top)
{
	size_t i, c, n = top && top < a->nops ? top : a->nops;
	char cell[256];

	section(o, "");
	o->len--; /* the title carries counts: */
	strbuf_addf(o, "Op profile: %zu ops by self time", a->nops);
	if (n < a->nops)
		strbuf_addf(o, " (top %zu; --top N for more)", n);
	strbuf_puts(o, "\n ");
	for (c = 0; c < op_ncolumns; c++)
		strbuf_addf(o, op_columns[c].right ? " %*s" : " %-*s", op_columns[c].width,
			    op_columns[c].name);
	strbuf_puts(o, "\n");
	for (i = 0; i < n; i++) {
		strbuf_puts(o, " ");
		for (c = 0; c < op_ncolumns; c++) {
			const struct op_column *col = &op_columns[c];

			col->format(&a->ops[i], cell, sizeof(cell));
			if (col->width)
				strbuf_addf(o, col->right ? " %*.*s" : " %-*.*s", col->width,
					    col->width, cell);
			else
				strbuf_addf(o, " %s", cell);
		}
		strbuf_puts(o, "\n");
	}
}

static void report_steps(struct strbuf *o, const struct xt_analysis *a)
{
	size_t i, k;
	char b[32];
	int64_t sum[XT_CAT_COUNT + 2] = { 0 };
	static const char *const head[XT_CAT_COUNT] = { "COMPUTE", "D2H", "COLLECTIVE", "H2D",
							"HOST" };

	if (!a->nsteps) {
		section(o, "Steps: none (no device Steps lines and no host step markers)");
		return;
	}
	section(o, "");
	o->len--;
	strbuf_addf(o, "Steps: %zu (from %s)\n  %8s %11s", a->nsteps,
		    a->steps_from_device ? "device Steps lines" : "host step markers", "STEP",
		    "DURATION");
	for (k = 0; k < XT_CAT_COUNT; k++)
		strbuf_addf(o, " %11s", head[k]);
	strbuf_addf(o, " %11s\n", "IDLE");
	for (i = 0; i < a->nsteps; i++) {
		const struct xt_step_row *s = &a->steps[i];

		strbuf_addf(o, "  %8" PRId64 " %11s", s->id, fmt_ps(b, sizeof(b), s->duration_ps));
		sum[0] += s->duration_ps;
		for (k = 0; k < XT_CAT_COUNT; k++) {
			strbuf_addf(o, " %11s", fmt_ps(b, sizeof(b), s->cat_ps[k]));
			sum[k + 1] += s->cat_ps[k];
		}
		sum[XT_CAT_COUNT + 1] += s->idle_ps;
		strbuf_addf(o, " %11s\n", fmt_ps(b, sizeof(b), s->idle_ps));
	}
	strbuf_addf(o, "  %8s %11s", "average", fmt_ps(b, sizeof(b), sum[0] / (int64_t)a->nsteps));
	for (k = 1; k < XT_CAT_COUNT + 2; k++)
		strbuf_addf(o, " %11s", fmt_ps(b, sizeof(b), sum[k] / (int64_t)a->nsteps));
	strbuf_puts(o, "\n");
}

static void report_memory(struct strbuf *o, const struct xt_analysis *a)
{
	size_t i, k;
	char b1[32], b2[32], b3[32], b4[32];

	if (!a->nmemory) {
		section(o, "Memory: no MemoryAllocation events");
		return;
	}
	section(o, "Memory (per allocator)");
	strbuf_addf(o, "  %-16s %-20s %11s %13s %11s %11s\n", "HOST", "ALLOCATOR", "PEAK", "AT",
		    "LIFETIME", "CAPACITY");
	for (i = 0; i < a->nmemory; i++) {
		const struct xt_memory_row *m = &a->memory[i];

		strbuf_addf(o, "  %-16.16s %-20.20s %11s %13s %11s %11s\n", m->host, m->allocator,
			    fmt_bytes(b1, sizeof(b1), (double)m->peak_bytes),
			    fmt_ps(b2, sizeof(b2), m->peak_time_ps),
			    fmt_bytes(b3, sizeof(b3), (double)m->lifetime_peak_bytes),
			    fmt_bytes(b4, sizeof(b4), (double)m->capacity_bytes));
		for (k = 0; k < m->nlive && k < 3; k++)
			strbuf_addf(o, "      live at peak: %10s  %s %s\n",
				    fmt_bytes(b1, sizeof(b1), (double)m->live[k].bytes),
				    m->live[k].op[0] ? m->live[k].op : "-", m->live[k].shape);
	}
}

static void report_kernels(struct strbuf *o, const struct xt_analysis *a, size_t top)
{
	size_t i, n = top && top < a->nkernels ? top : a->nkernels;
	char b1[32], b2[32], nm[48];

	if (!a->nkernels)
		return;
	section(o, "");
	o->len--;
	strbuf_addf(o, "GPU kernels: %zu%s\n", a->nkernels, n < a->nkernels ? " (top)" : "");
	strbuf_addf(o, "  %11s %7s %11s %-14s %-12s %5s %8s %5s  %s\n", "TOTAL", "OCC", "AVG", "GRID",
		    "BLOCK", "REGS", "SHARED", "OCC%", "KERNEL (OP)");
	for (i = 0; i < n; i++) {
		const struct xt_kernel_row *k = &a->kernels[i];
		char g[32], bl[32];

		snprintf(g, sizeof(g), "%u,%u,%u", k->grid[0], k->grid[1], k->grid[2]);
		snprintf(bl, sizeof(bl), "%u,%u,%u", k->block[0], k->block[1], k->block[2]);
		snprintf(nm, sizeof(nm), "%s", k->name);
		strbuf_addf(o, "  %11s %7" PRIu64 " %11s %-14.14s %-12.12s %5" PRId64 " %8" PRId64
			       " %5.0f  %s (%s)\n",
			    fmt_ps(b1, sizeof(b1), k->total_ps), k->occurrences,
			    fmt_ps(b2, sizeof(b2), k->total_ps / (int64_t)k->occurrences), g, bl,
			    k->registers, k->shared_bytes, k->occupancy_percent, nm, k->op);
	}
}

void report_text(struct strbuf *o, const struct xt_trace *t, const struct xt_analysis *a,
		 const struct report_opts *ro)
{
	size_t h, p, lines = 0, planes = 0;
	char b1[32], b2[32];

	for (h = 0; h < t->nhosts; h++) {
		planes += t->hosts[h].nplanes;
		for (p = 0; p < t->hosts[h].nplanes; p++)
			lines += t->hosts[h].planes[p].nlines;
	}
	strbuf_addf(o, "xtop report: %s\n", ro->path);
	strbuf_addf(o, "%zu host%s, %zu planes, %zu lines, %s events; device busy %s\n", t->nhosts,
		    t->nhosts == 1 ? "" : "s", planes, lines, fmt_count(b1, sizeof(b1), t->nev),
		    fmt_ps(b2, sizeof(b2), a->busy_ps));
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];

		strbuf_addf(o, "  host %s: %s (%s%s), %s events\n", host->name, host->path,
			    fmt_bytes(b1, sizeof(b1), (double)host->src.size),
			    host->src.gzipped ? ", gzip" : "",
			    fmt_count(b2, sizeof(b2), host->nev));
		for (p = 0; p < host->nerrors; p++)
			strbuf_addf(o, "    profiler error: %s\n", host->errors[p]);
	}
	report_devices(o, a);
	report_ops(o, a, ro->top);
	report_steps(o, a);
	report_memory(o, a);
	report_kernels(o, a, ro->top);
}

/* ---- the command ---- */

enum { OPT_JSON = 1, OPT_TOP, OPT_RUN, OPT_LIST, OPT_THREADS, OPT_HELP };

static const struct xt_option report_options[] = {
	{ OPT_JSON, 0, "json", 0, NULL, "print one JSON object instead of text" },
	{ OPT_TOP, 'n', "top", 1, "N", "show the top N ops and kernels (default 20; 0 = all)" },
	{ OPT_RUN, 'r', "run", 1, "NAME", "pick a run of a logdir (default: the newest)" },
	{ OPT_LIST, 'l', "list", 0, NULL, "list the runs and hosts under PATH and exit" },
	{ OPT_THREADS, 'j', "threads", 1, "N", "decode with N threads (default: all CPUs)" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

static int report_list(const char *path)
{
	struct profile_set set;
	struct xt_error err;
	size_t r, f;
	char b[32], tb[32];

	if (profile_scan(&set, path, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	for (r = 0; r < set.nruns; r++) {
		const struct profile_run *run = &set.runs[r];
		struct tm tm;

		localtime_r(&run->mtime, &tm);
		strftime(tb, sizeof(tb), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%s%s  %s  %zu host%s  %s\n", run->name, r + 1 == set.nruns ? " (newest)" : "",
		       tb, run->nfiles, run->nfiles == 1 ? "" : "s", run->dir);
		for (f = 0; f < run->nfiles; f++)
			printf("    %-40s %12s  %s\n", run->files[f].host,
			       fmt_bytes(b, sizeof(b), (double)run->files[f].size), run->files[f].path);
	}
	profile_set_fini(&set);
	return 0;
}

int report_main(int argc, char **argv)
{
	struct report_opts ro = { .top = 20 };
	struct load_opts lo = { 0 };
	int json = 0, list = 0, c;
	struct xt_trace *t;
	struct xt_analysis *a;
	struct xt_error err;
	struct strbuf out;
	struct option lopts[16];
	char sopts[64];
	unsigned long long v;

	options_build(report_options, lopts, sopts, sizeof(sopts));
	optind = 1;
	opterr = 0; /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(report_options, c)) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_TOP:
			if (options_number("--top", optarg, 0, SIZE_MAX, "a number of rows (0 = all)", &v))
				return 2;
			ro.top = (size_t)v;
			break;
		case OPT_RUN:
			lo.run = optarg;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case OPT_THREADS:
			if (options_number("--threads", optarg, 0, 1024, "a number of threads (0 = all CPUs)",
					   &v))
				return 2;
			lo.threads = (int)v;
			break;
		case OPT_HELP:
			options_usage(stdout, "xtop report [options] PATH",
				      "Print the profile's overview, op profile, steps, memory and kernels.",
				      report_options);
			return 0;
		default:
			options_error(report_options, c, argv, "xtop report");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xtop: report needs exactly one PATH (see xtop report --help)\n");
		return 2;
	}
	ro.path = argv[optind];
	if (list)
		return report_list(ro.path);
	if (load_profile(ro.path, &lo, &t, &a, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	strbuf_init(&out);
	if (json)
		report_json(&out, t, a, &ro);
	else
		report_text(&out, t, a, &ro);
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_fini(&out);
	analysis_free(a);
	trace_free(t);
	if (fflush(stdout) != 0) {
		perror("xtop: stdout");
		return 1;
	}
	return 0;
}
