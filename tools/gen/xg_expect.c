/*
 * xg_expect.c - the --expect JSON writer of xtop-gen: op, device, step,
 * memory and kernel results computed from the accumulators of the writing
 * pass rather than by re-reading the profile (see xg_expect.h).
 */
#include "xg_expect.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "xg_die.h"
#include "xg_meta.h"
#include "xg_plan.h"

/* one row of "ops" */
struct xg_expect_row {
	const char *name, *program;
	char category[32];
	uint64_t occ, self, total, flops, bytes;
};

static int xg_expect_row_cmp(const void *a, const void *b)
{
	const struct xg_expect_row *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->program, y->program);
}

static int xg_expect_live_cmp(const void *a, const void *b)
{
	const struct xg_host_buf *x = a, *y = b;
	return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1) : (x->addr > y->addr) - (x->addr < y->addr);
}

/* docs/analyses.md: the HLO name without a trailing .N / _N suffix */
static void xg_expect_category(const char *name, char *out, size_t n)
{
	size_t len = strlen(name), e = len;
	while (e > 0 && name[e - 1] >= '0' && name[e - 1] <= '9')
		e--;
	if (e < len && e > 1 && (name[e - 1] == '.' || name[e - 1] == '_'))
		len = e - 1;
	snprintf(out, n, "%.*s", (int)len, name);
}

static void xg_expect_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void xg_expect_write(const struct xg_plan *p, struct xg_expect *ex, FILE *f)
{
	int gpu = p->cfg.kind == KIND_GPU;
	fprintf(f, "{\n  \"kind\": \"%s\", \"seed\": %" PRIu64 ", \"events\": %" PRIu64
		   ", \"bytes\": %" PRIu64 ",\n  \"programs\": [", gpu ? "gpu" : "tpu",
		p->cfg.seed, p->events, p->bytes);
	for (int g = 0; g < PROG_COUNT; g++)
		fprintf(f, "%s{\"id\": %" PRIu64 ", \"name\": \"%s\"}", g ? ", " : "",
			gpu ? xg_meta_prog_gpu_id[g] : xg_meta_prog_tpu_id[g],
			xg_meta_prog_names[g]);
	fputs("],\n  \"planes\": [", f);
	for (int i = 0; i < p->nplanes; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		xg_expect_json_str(f, p->planes[i].name);
		fprintf(f, ", \"lines\": %d, \"events\": %" PRIu64 "}", p->planes[i].nlines,
			p->planes[i].events);
	}
	struct xg_expect_row rows[T_COUNT + G_COUNT];
	int n = 0;
	for (int o = 0; o < T_COUNT + G_COUNT; o++) {
		if (!ex->occ[o])
			continue;
		struct xg_expect_row *r = &rows[n++];
		int t = o < T_COUNT, g = o - T_COUNT;
		int prog = t ? xg_tpu_ops[o].prog : xg_gpu_ops[g].prog;
		r->name = t ? xg_tpu_ops[o].name : xg_gpu_ops[g].name;
		r->program = prog >= 0 ? xg_meta_prog_names[prog] : "";
		if (t && xg_tpu_ops[o].category)
			snprintf(r->category, sizeof r->category, "%s", xg_tpu_ops[o].category);
		else if (!t && prog < 0)
			snprintf(r->category, sizeof r->category, "memcpy");
		else
			xg_expect_category(r->name, r->category, sizeof r->category);
		r->occ = ex->occ[o];
		r->self = ex->self[o];
		r->total = ex->total[o];
		r->flops = t ? (uint64_t)xg_tpu_ops[o].flops * r->occ : 0;
		r->bytes = t ? (uint64_t)xg_tpu_ops[o].bytes * r->occ : 0;
	}
	qsort(rows, (size_t)n, sizeof rows[0], xg_expect_row_cmp);
	fputs("\n  ],\n  \"ops\": [", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		xg_expect_json_str(f, rows[i].name);
		fputs(", \"program\": ", f);
		xg_expect_json_str(f, rows[i].program);
		fputs(", \"category\": ", f);
		xg_expect_json_str(f, rows[i].category);
		fprintf(f, ", \"occurrences\": %" PRIu64 ", \"self_ps\": %" PRIu64
			   ", \"total_ps\": %" PRIu64 ", \"flops\": %" PRIu64
			   ", \"bytes_accessed\": %" PRIu64 "}",
			rows[i].occ, rows[i].self, rows[i].total, rows[i].flops, rows[i].bytes);
	}
	fputs("\n  ],\n  \"devices\": [", f);
	int first = 1;
	for (int i = 0; i < p->nplanes; i++) {
		const struct xg_plane *pl = &p->planes[i];
		if (pl->kind != P_TPU && pl->kind != P_GPU)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"busy_ps\": %" PRIu64 ", \"span_ps\": %" PRIu64 "}",
			first ? "" : ",", pl->name, ex->busy[pl->dev],
			ex->last[pl->dev] - ex->first[pl->dev]);
		first = 0;
	}
	fputs("\n  ],\n  \"steps\": [", f);
	for (int k = 0; k < p->S; k++)	/* step starts increase with k */
		fprintf(f, "%s\n    {\"id\": %d, \"start_ps\": %" PRIu64 ", \"duration_ps\": %" PRIu64 "}",
			k ? "," : "", STEP_ID0 + k, ex->sfirst[k], ex->slast[k] - ex->sfirst[k]);
	/* memory and kernels carry exactly the keys the brief fixed (checkers
	 * compare every key); the details go to memory_live and kernel_rows */
	fputs("\n  ],\n  \"memory\": [", f);
	for (int a = 0; a < p->A; a++) {
		const struct xg_expect_mem *m = &ex->mem[a];
		fprintf(f, "%s\n    {\"allocator\": \"%s\", \"peak_bytes\": %" PRIu64
			   ", \"peak_time_ps\": %" PRIu64 ", \"lifetime_peak_bytes\": %" PRIu64
			   ", \"capacity_bytes\": %" PRIu64 "}",
			a ? "," : "", gpu ? xg_host_gpu_allocators[a] : (a ? "1" : "0"), m->peak,
			m->peak_time, m->lifetime, m->capacity);
	}
	fputs("\n  ],\n  \"memory_live\": [", f);
	for (int a = 0; a < p->A; a++) {
		struct xg_expect_mem *m = &ex->mem[a];
		fprintf(f, "%s\n    {\"allocator\": \"%s\", \"live_at_peak\": [", a ? "," : "",
			gpu ? xg_host_gpu_allocators[a] : (a ? "1" : "0"));
		qsort(m->live, (size_t)m->nlive, sizeof m->live[0], xg_expect_live_cmp);
		for (int l = 0; l < m->nlive; l++)
			fprintf(f, "%s\n      {\"addr\": %" PRIu64 ", \"bytes\": %" PRIu64
				   ", \"tf_op\": \"%s\", \"shape\": \"%s\"}",
				l ? "," : "", m->live[l].addr, m->live[l].bytes,
				xg_host_mem_tf_ops[m->live[l].buf],
				xg_host_mem_shapes[m->live[l].buf]);
		fputs("]}", f);
	}
	int order[KR_COUNT], nk = 0;
	for (int r = 0; r < KR_COUNT; r++)
		if (ex->kocc[r])
			order[nk++] = r;
	for (int i = 1; i < nk; i++)	/* insertion sort by total, descending */
		for (int j = i; j > 0 && ex->ktot[order[j]] > ex->ktot[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* kernels: one row per kernel name (the nccl kernel serves two ops) */
	uint64_t kn_occ[K_COUNT] = { 0 }, kn_tot[K_COUNT] = { 0 };
	int kn[K_COUNT], nn = 0;
	for (int r = 0; r < KR_COUNT; r++) {
		kn_occ[xg_gpu_krow_k[r]] += ex->kocc[r];
		kn_tot[xg_gpu_krow_k[r]] += ex->ktot[r];
	}
	for (int k = 0; k < K_COUNT; k++)
		if (kn_occ[k])
			kn[nn++] = k;
	for (int i = 1; i < nn; i++)
		for (int j = i; j > 0 && kn_tot[kn[j]] > kn_tot[kn[j - 1]]; j--) {
			int t = kn[j];
			kn[j] = kn[j - 1];
			kn[j - 1] = t;
		}
	fputs("\n  ],\n  \"kernels\": [", f);
	for (int i = 0; i < nn; i++)
		fprintf(f, "%s\n    {\"name\": \"%s\", \"occurrences\": %" PRIu64
			   ", \"total_ps\": %" PRIu64 "}",
			i ? "," : "", xg_gpu_kernels[kn[i]].name, kn_occ[kn[i]], kn_tot[kn[i]]);
	fputs("\n  ],\n  \"kernel_rows\": [", f);
	for (int i = 0; i < nk; i++) {
		int r = order[i];
		const struct xg_gpu_kernel *k = &xg_gpu_kernels[xg_gpu_krow_k[r]];
		fprintf(f, "%s\n    {\"name\": \"%s\", \"op\": \"%s\", \"grid\": \"%d,%d,%d\", "
			   "\"block\": \"%d,%d,%d\", \"registers\": %d, \"shared_bytes\": %d, "
			   "\"occurrences\": %" PRIu64 ", \"total_ps\": %" PRIu64
			   ", \"min_ps\": %" PRIu64 ", \"max_ps\": %" PRIu64 "}",
			i ? "," : "", k->name, xg_gpu_ops[xg_gpu_krow_op[r]].name, k->grid[0],
			k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->regs,
			k->sshared + k->dshared, ex->kocc[r], ex->ktot[r], ex->kmin[r], ex->kmax[r]);
	}
	fputs("\n  ]\n}\n", f);
}

void xg_expect_init(struct xg_expect *ex, int D, int S)
{
	size_t nd = (size_t)D, ns = (size_t)S;
	memset(ex, 0, sizeof *ex);
	ex->busy = calloc(nd, sizeof *ex->busy);
	ex->first = malloc(nd * sizeof *ex->first);
	ex->last = calloc(nd, sizeof *ex->last);
	ex->sfirst = malloc(ns * sizeof *ex->sfirst);
	ex->slast = calloc(ns, sizeof *ex->slast);
	if (!ex->busy || !ex->first || !ex->last || !ex->sfirst || !ex->slast)
		xg_die("out of memory");
	memset(ex->first, 0xff, nd * sizeof *ex->first);
	memset(ex->sfirst, 0xff, ns * sizeof *ex->sfirst);
	memset(ex->kmin, 0xff, sizeof ex->kmin);
}

void xg_expect_free(struct xg_expect *ex)
{
	free(ex->busy);
	free(ex->first);
	free(ex->last);
	free(ex->sfirst);
	free(ex->slast);
}
