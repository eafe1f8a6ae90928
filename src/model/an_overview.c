/*
 * an_overview: the overview's facts and findings (docs/analyses.md,
 * "Overview"): per device its gaps, the time it sat idle while its host
 * worked and (GPU) how many of its kernels were small; overall the step
 * statistics, compilation inside the window, the collectives' share and
 * host-to-device copies inside steps; then the findings, each with the
 * numbers it rests on.
 *
 * Each host line's work and compilations are unions built while the line
 * loads (overview_line_host, on its decoding thread). At the end, in
 * analysis_finish(), while the line roles and per-event classes of the op
 * pass are still there: host_acts_run() merges a host's line unions into
 * one (a heap of lines, in two halves at once), which the step breakdown
 * reads too; overview_devices() walks each device's busy spans in start
 * order (on a GPU the union of its streams' busy lists, built while the
 * lines load and shared with the GPU busy time; on an XLA device its top
 * level ops), intersecting its gaps with the host's activity, beside the
 * steps merge; overview_build() then adds the step statistics and the
 * findings.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/parfor.h"
#include "../util/sort64.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

#include "spans.h"

#define GAP_COUNT_PS 1000000000ll  /* 1 ms */

struct dev_job {
	struct xt_device_row *d;
	const struct xt_plane *p;
	const struct host_act *ha;
};


/* A compilation event (the list in docs/analyses.md). */
int overview_is_compile(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "backend_compile") || !strcmp(s, "compile_or_get_cached") ||
	    strstr(s, "XlaCompile"))
		return 1;
	return (n >= 9 && !strcmp(s + n - 9, "::Compile")) ||
	       (n >= 12 && !strcmp(s + n - 12, "::RunBackend")) ||
	       (n >= 14 && !strcmp(s + n - 14, "::RunHloPasses"));
}

/*
 * A host line's work (every event that is not aggregated, empty, a step
 * marker or a Python tracer frame, "$file:line func", whose functions
 * cover every step; the JAX 0.8 profiles write those on the main thread's
 * line, "python", among its dispatch work) and its compilations (on every
 * host line), each as the union of the line's events. Runs on the loading thread that decoded the line, so
 * the millions of events of a busy host are walked once, in parallel with
 * the other lines, and the passes at the end see only these unions.
 */
void overview_line_host(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l)
{
	const struct plane_ctx *pc = p->hook_data;
	struct spans comp; /* one run: the line's events in start order */
	int64_t base = xt_line_base(l), comp_end = INT64_MIN;
	int want_work = lp->role == LROLE_HOST;
	size_t i, mk = 0;

	memset(&comp, 0, sizeof(comp));
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		int64_t s, e, d;

		if (xt_event_aggregated(ev))
			continue;
		d = xt_event_dur(l, ev);
		if (d <= 0)
			continue;
		s = xt_ps_add(base, xt_event_off(l, i));
		/* Ends saturate: a hostile duration (a fuzzer's 9.2e18 ps from
		 * 1 us) leaves a span that still holds its start. */
		e = xt_sat_add(s, d);
		if (pc->info[xt_event_meta_index(ev)].compile) {
			if (s >= comp_end) /* not inside another of the line */
				lp->compiles++;
			if (e > comp_end)
				comp_end = e;
			spans_add(&comp, 0, s, e);
		}
		if (!want_work)
			continue;
		if (marker_at(lp->markers, lp->nmarkers, &mk, i) ||
		    pc->info[xt_event_meta_index(ev)].py_frame)
			continue;
		span_pack_add(&lp->work, s, e);
	}
	span_pack_done(&lp->work);
	lp->comp = spans_take(&comp, &lp->ncomp);
}

static int comp_ev_cmp(const void *x, const void *y)
{
	const struct comp_ev *a = x, *b = y;

	return (a->ev > b->ev) - (a->ev < b->ev);
}

void overview_take_comp(struct line_part *lp, const struct xt_line *l, struct xt_sunk *sunk)
{
	uint64_t base = (uint64_t)xt_line_base(l);
	struct comp_ev *v = NULL;
	struct spans comp;
	int64_t comp_end = INT64_MIN;
	size_t k, i, n = 0;

	for (k = 0; k < sunk->nparts; k++)
		n += ((const struct host_part *)sunk->parts[k])->ncomp;
	if (!n)
		return;
	v = xmalloc(n * sizeof(*v));
	n = 0;
	for (k = 0; k < sunk->nparts; k++) {
		const struct host_part *hp = sunk->parts[k];

		for (i = 0; i < hp->ncomp; i++) {
			v[n] = hp->comp[i];
			if (sunk->moved)
				v[n].ev = sunk->moved[v[n].ev];
			n++;
		}
	}
	if (sunk->moved)
		qsort(v, n, sizeof(*v), comp_ev_cmp);
	/* As overview_line_host counts and joins them, in the line's order. */
	memset(&comp, 0, sizeof(comp));
	for (i = 0; i < n; i++) {
		int64_t s = (int64_t)(base + (uint64_t)v[i].s), e = (int64_t)(base + (uint64_t)v[i].e);

		if (s >= comp_end)
			lp->compiles++;
		if (e > comp_end)
			comp_end = e;
		spans_add(&comp, 0, s, e);
	}
	free(v);
	lp->comp = spans_take(&comp, &lp->ncomp);
}

void overview_take_work(struct line_part *lp, const struct xt_line *l, const struct xt_sunk *sunk)
{
	int64_t base = (int64_t)((uint64_t)xt_line_base(l));
	size_t k, nb = 0;

	for (k = 0; k < sunk->nparts; k++)
		nb += ((const struct host_part *)sunk->parts[k])->work.nb;
	span_pack_reserve(&lp->work, nb);
	for (k = 0; k < sunk->nparts; k++)
		span_pack_cat(&lp->work, &((const struct host_part *)sunk->parts[k])->work, base);
	span_pack_done(&lp->work);
}

/*
 * A stream line's busy time as the packed union of the events that count
 * (not aggregated, lasting), and the kernels among them: computed on the
 * decoding thread beside the line's other passes, so that the walks at the
 * end (GPU busy time, then gaps and host-bound time) merge a few packed
 * lists, not every event of every stream in a k-way scan, twice. (An XLA
 * Ops line is one per device and its top-level ops seldom touch: packing
 * them would cost more than the walk at the end saves.)
 */
void overview_line_device(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l)
{
	int64_t base = xt_line_base(l), first = INT64_MAX, last = INT64_MIN;
	int64_t small_ps = 0;
	uint64_t kernels = 0, small = 0;
	struct span_pack busy;
	size_t i;

	/* Counted apart and stored at the end: on a long stream this runs
	 * beside the op pass's last steps, which write lp's other fields. */
	memset(&busy, 0, sizeof(busy));
	for (i = 0; i < l->nev; i++) {
		const struct xt_event *ev = &l->ev[i];
		int64_t s, d;
		int cls;

		if (xt_event_aggregated(ev))
			continue;
		d = xt_event_dur(l, ev);
		s = xt_ps_add(base, xt_event_off(l, i));
		if (s < first)
			first = s;
		if (xt_sat_add(s, d) > last)
			last = xt_sat_add(s, d);
		if (d <= 0)
			continue;
		cls = lp->cls ? lp->cls[i] : EVC_COMPUTE;
		if ((cls == EVC_COMPUTE || cls == EVC_COLLECTIVE) &&
		    !plane_memset(p, xt_event_meta_index(ev))) {
			kernels++;
			if (d < SMALL_KERNEL_PS) {
				small++;
				small_ps += d;
			}
		}
		span_pack_add(&busy, s, xt_sat_add(s, d));
	}
	span_pack_done(&busy);
	span_pack_free(&lp->busy);
	lp->busy = busy;
	lp->kernels += kernels;
	lp->small_kernels += small;
	lp->small_kernel_ps += small_ps;
	lp->dev_first = first;
	lp->dev_last = last;
}

/* A device that computes: not a GPU that ran no kernel (copies only), which
 * the findings name only when no other qualifies. */
static int computes_on(const struct xt_device_row *d)
{
	return d->kind != XT_DEV_GPU || d->kernels > 0;
}

/* Half of a host's work lists, unioned by one job (host_acts_run). */
struct act_half {
	const struct span_pack **lists;
	size_t nl, spans;
	struct span *v;
	size_t n;
};

/* A host's compilations, and its work lists dealt into two halves of about
 * as many spans each. */
static void host_lists(struct host_act *ha, const struct xt_host *h, struct act_half *half)
{
	struct spans comp;
	struct span *tmp = NULL;
	size_t tmpcap = 0, p, l, k, line_no = 0;

	memset(&comp, 0, sizeof(comp));
	ha->h = h;
	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];
		const struct plane_ctx *pc = pl->hook_data;

		if (!pc || pc->role != ROLE_HOST)
			continue;
		for (l = 0; l < pl->nlines; l++, line_no++) {
			const struct line_part *lp = pl->lines[l].hook_data;
			struct act_half *hf;

			if (!lp || lp->role != LROLE_HOST)
				continue;
			ha->compiles += lp->compiles;
			for (k = 0; k < lp->ncomp; k++)
				spans_add(&comp, line_no, lp->comp[k].s, lp->comp[k].e);
			hf = &half[half[1].spans < half[0].spans];
			hf->lists = xreallocarray(hf->lists, hf->nl + 1, sizeof(*hf->lists));
			hf->lists[hf->nl++] = &lp->work;
			hf->spans += lp->work.n;
		}
	}
	spans_union(&comp, &tmp, &tmpcap);
	ha->compile_ps = spans_len(comp.v, comp.n);
	free(comp.v);
	free(comp.run);
	free(tmp);
}

struct host_acts_plan {
	const struct xt_trace *t;
	struct host_act *ha;
	struct act_half *half; /* two per host */
};

struct host_acts_plan *host_acts_plan(const struct xt_trace *t, size_t *njobs)
{
	size_t nh = t->nhosts, h;
	struct host_acts_plan *hp = xmalloc(sizeof(*hp));

	hp->t = t;
	hp->ha = xcalloc(nh ? nh : 1, sizeof(*hp->ha));
	hp->half = xcalloc(2 * (nh ? nh : 1), sizeof(*hp->half));
	for (h = 0; h < nh; h++)
		host_lists(&hp->ha[h], &t->hosts[h], &hp->half[2 * h]);
	*njobs = 2 * nh;
	return hp;
}

void host_acts_run(struct host_acts_plan *hp, size_t i)
{
	struct act_half *hf = &hp->half[i];

	hf->n = spans_union_packs(hf->lists, hf->nl, &hf->v);
}

struct host_act *host_acts_done(struct host_acts_plan *hp)
{
	struct host_act *ha = hp->ha;
	size_t h;

	for (h = 0; h < hp->t->nhosts; h++) {
		struct act_half *a = &hp->half[2 * h], *b = a + 1;

		ha[h].v = xmalloc((a->n + b->n ? a->n + b->n : 1) * sizeof(struct span));
		ha[h].n = spans_union2(a->v, a->n, b->v, b->n, ha[h].v);
		free(a->v);
		free(b->v);
		free(a->lists);
		free(b->lists);
	}
	free(hp->half);
	free(hp);
	return ha;
}

void host_acts_free(struct host_act *ha, size_t n)
{
	size_t h;

	for (h = 0; h < n; h++)
		free(ha[h].v);
	free(ha);
}

/* Host activity inside [s, e): *cur walks the sorted spans forward. */
static int64_t host_in(const struct host_act *ha, size_t *cur, int64_t s, int64_t e)
{
	size_t i;
	int64_t t = 0;

	while (*cur < ha->n && ha->v[*cur].e <= s)
		(*cur)++;
	for (i = *cur; i < ha->n && ha->v[i].s < e; i++) {
		int64_t a = ha->v[i].s > s ? ha->v[i].s : s, b = ha->v[i].e < e ? ha->v[i].e : e;

		if (b > a)
			t = xt_sat_add(t, xt_sat_sub(b, a));
	}
	return t;
}

static void gap(struct xt_device_row *d, const struct host_act *ha, size_t *hcur, int64_t s,
		int64_t e)
{
	if (e <= s)
		return;
	if (xt_sat_sub(e, s) > d->longest_gap_ps) {
		d->longest_gap_ps = xt_sat_sub(e, s);
		d->longest_gap_start_ps = s;
	}
	if (xt_sat_sub(e, s) >= GAP_COUNT_PS)
		d->gaps_over_1ms++;
	if (ha)
		d->host_bound_ps = xt_sat_add(d->host_bound_ps, host_in(ha, hcur, s, e));
}

/* Whether event i of an XLA Ops line is device activity: a top-level op,
 * lasting, not aggregated. */
static int xla_busy(const struct xt_line *l, size_t i)
{
	const struct xt_event *ev = &l->ev[i];

	return !xt_event_aggregated(ev) && xt_event_depth(ev) == 0 && xt_event_dur(l, ev) > 0;
}

/* A device's walk over its busy spans in start order: clipped to the
 * device span, runs of them coalesced, each gap before a run measured. */
struct busy_walk {
	struct xt_device_row *d;
	const struct host_act *ha;
	size_t hcur;
	int64_t span_s, span_e, run_e;
};

static void walk_busy(struct busy_walk *w, int64_t s, int64_t e)
{
	/* Clip to the device span (busy spans lie inside it). */
	if (s < w->span_s)
		s = w->span_s;
	if (e > w->span_e)
		e = w->span_e;
	if (e <= s)
		return;
	if (s > w->run_e)
		gap(w->d, w->ha, &w->hcur, w->run_e, s);
	if (e > w->run_e)
		w->run_e = e;
}

/* A GPU's busy spans: the union of its streams' busy lists. */
static void walk_gpu(struct busy_walk *w, const struct xt_plane *p)
{
	struct span_merge m;
	struct span x;
	size_t nl;
	const struct span_pack **packs = gpu_busy_lists(p, &nl, NULL, NULL);

	span_merge_init(&m, packs, nl);
	while (span_merge_next(&m, &x))
		walk_busy(w, x.s, x.e);
	span_merge_fini(&m);
	free(packs);
}

/* An XLA device's busy spans: the top-level ops of its XLA Ops lines (most
 * often one), lasting and not aggregated, in start order across them. */
static void walk_xla(struct busy_walk *w, const struct xt_plane *p)
{
	size_t *cur = xcalloc(p->nlines ? p->nlines : 1, sizeof(size_t));
	int64_t *head = xcalloc(p->nlines ? p->nlines : 1, sizeof(int64_t));
	size_t *lines = xcalloc(p->nlines ? p->nlines : 1, sizeof(size_t));
	size_t nl = 0, k;

	for (k = 0; k < p->nlines; k++) {
		const struct line_part *lp = p->lines[k].hook_data;

		if (lp && lp->role == LROLE_XLA_OPS && p->lines[k].nev)
			lines[nl++] = k;
	}
	/* Each line's next op and its start, INT64_MAX at its end. */
	for (k = 0; k < nl; k++) {
		const struct xt_line *l = &p->lines[lines[k]];
		size_t i = 0;

		while (i < l->nev && !xla_busy(l, i))
			i++;
		cur[k] = i;
		head[k] = i < l->nev ? xt_event_start(l, &l->ev[i]) : INT64_MAX;
	}
	for (;;) {
		size_t best = 0, i;
		const struct xt_line *l;
		int64_t s;

		for (k = 1; k < nl; k++)
			if (head[k] < head[best])
				best = k;
		if (!nl || head[best] == INT64_MAX)
			break;
		l = &p->lines[lines[best]];
		i = cur[best];
		s = head[best];
		walk_busy(w, s, xt_sat_add(s, xt_event_dur(l, &l->ev[i])));
		for (i++; i < l->nev && !xla_busy(l, i); i++)
			;
		cur[best] = i;
		head[best] = i < l->nev ? xt_event_start(l, &l->ev[i]) : INT64_MAX;
	}
	free(cur);
	free(head);
	free(lines);
}

static void device_walk(struct dev_job *j)
{
	struct xt_device_row *d = j->d;
	struct busy_walk w = { d, j->ha, 0, d->first_ps, xt_sat_add(d->first_ps, d->span_ps),
			       d->first_ps };

	if (d->kind == XT_DEV_GPU)
		walk_gpu(&w, j->p);
	else
		walk_xla(&w, j->p);
	gap(d, w.ha, &w.hcur, w.run_e, w.span_e);
}

static void dev_job_run(void *arg, size_t i)
{
	device_walk(&((struct dev_job *)arg)[i]);
}

/* ---- step statistics, shares ---- */

/* Nearest rank in sorted v: the smallest value with at least p % of them at
 * or below it. */
static int64_t rank(const int64_t *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100.0 * (double)n);

	k = k < 1 ? 1 : k > n ? n : k;
	return v[k - 1];
}

int analysis_has_device_time(const struct xt_analysis *a)
{
	size_t i;

	for (i = 0; i < a->ndevices; i++)
		if (!xt_device_silent(&a->devices[i]))
			return 1;
	return 0;
}

int xt_name_memset(const char *name)
{
	return name[0] == 'M' && !strncmp(name, "Memset", 6);
}

int analysis_host_active(const struct xt_analysis *a)
{
	size_t i;
	int devices = 0;

	for (i = 0; i < a->ndevices; i++) {
		devices |= a->devices[i].has_overview;
		if (a->devices[i].has_overview && a->devices[i].host_known)
			return 1;
	}
	return !devices;
}

int64_t analysis_step_percentile(const struct xt_analysis *a, double p)
{
	int64_t *d, v;
	size_t i;

	if (!a->nsteps)
		return 0;
	d = xmalloc(a->nsteps * sizeof(*d));
	for (i = 0; i < a->nsteps; i++)
		d[i] = a->steps[i].duration_ps;
	sort_i64(d, a->nsteps);
	v = rank(d, a->nsteps, p);
	free(d);
	return v;
}

static void step_stats(struct xt_overview *o, const struct xt_analysis *a)
{
	int64_t *d;
	double sum = 0;
	size_t i;

	if (!a->nsteps)
		return;
	d = xmalloc(a->nsteps * sizeof(*d));
	for (i = 0; i < a->nsteps; i++) {
		d[i] = a->steps[i].duration_ps;
		sum += (double)d[i];
		o->h2d_in_steps_ps = xt_sat_add(o->h2d_in_steps_ps,
						a->steps[i].cat_ps[XT_CAT_HOST_TO_DEVICE]);
		o->d2h_in_steps_ps = xt_sat_add(o->d2h_in_steps_ps,
						a->steps[i].cat_ps[XT_CAT_DEVICE_TO_HOST]);
	}
	sort_i64(d, a->nsteps);
	o->has_steps = 1;
	o->step_mean_ps = sum / (double)a->nsteps;
	o->step_p50_ps = rank(d, a->nsteps, 50);
	o->step_p95_ps = rank(d, a->nsteps, 95);
	o->step_min_ps = d[0];
	o->step_max_ps = d[a->nsteps - 1];
	if (sum > 0) {
		o->h2d_in_steps_percent = 100.0 * (double)o->h2d_in_steps_ps / sum;
		o->d2h_in_steps_percent = 100.0 * (double)o->d2h_in_steps_ps / sum;
	}
	free(d);
}

/* ---- findings ---- */

struct fctx {
	struct xt_analysis *a;
	struct xt_overview *o;
	const struct xt_op_row *top_coll;
};

static struct xt_finding *finding_new(struct fctx *f, const char *id)
{
	struct xt_overview *o = f->o;
	struct xt_finding *x;

	o->findings = xreallocarray(o->findings, o->nfindings + 1, sizeof(*o->findings));
	x = &o->findings[o->nfindings++];
	memset(x, 0, sizeof(*x));
	x->id = id;
	return x;
}

static void fnum(struct xt_finding *x, const char *key, double v)
{
	if (x->nnum < XT_FINDING_NUMS)
		x->num[x->nnum++] = (struct xt_finding_num){ key, NULL, v };
}

static void fstr(struct fctx *f, struct xt_finding *x, const char *key, const char *s)
{
	if (x->nnum < XT_FINDING_NUMS)
		x->num[x->nnum++] = (struct xt_finding_num){
			key, arena_strndup(&f->a->arena, s, strlen(s)), 0
		};
}

static void ftext(struct fctx *f, struct xt_finding *x, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ftext(struct fctx *f, struct xt_finding *x, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	x->text = arena_strndup(&f->a->arena, buf, strlen(buf));
}

/* A device as a finding's text names it: with its host where devices of
 * several hosts share names (two hosts' /device:GPU:6). */
static const char *dev_label(const struct xt_analysis *a, const struct xt_device_row *d, char *buf,
			     size_t n)
{
	size_t i;

	for (i = 0; i < a->ndevices; i++)
		if (!strcmp(a->devices[i].name, d->name) && strcmp(a->devices[i].host, d->host)) {
			snprintf(buf, n, "%s %s", d->host, d->name);
			return buf;
		}
	return d->name;
}

static void find_launch_bound(struct fctx *f)
{
	size_t i;

	for (i = 0; i < f->a->ndevices; i++) {
		const struct xt_device_row *d = &f->a->devices[i];
		/* Small kernels launched one by one: a command buffer launches
		 * its kernels as one graph. */
		uint64_t small = d->small_kernels - d->small_kernels_cb;
		struct xt_finding *x;
		char b1[32], cb[64] = "", lb[512], where[64];
		/* Launch overhead idles a device within its programs' runs: the
		 * time between runs is the host's loop (a block_until_ready, the
		 * next batch), which no fusing or command buffer shortens. On
		 * the H100 MLP without command buffers 77 % of the idle lay
		 * between steps. Without runs (kernels of no XLA module), the
		 * idle of the whole span. The busy time is the device's, all
		 * of it: what it did between runs (a copy between steps)
		 * counts against the idle within them, which reads that much
		 * low (1-2 % of the MI300X microbenchmarks' runs, where it
		 * goes below 0: none). */
		int64_t in = d->run_ps > 0 ? d->run_ps : d->span_ps;
		int64_t idle = xt_sat_sub(in, d->busy_ps);
		double pct;

		/* Thresholds in integers: idle >= 20 % exactly, not as rounded
		 * (in > 0: run_ps, else the span, checked first). */
		if (d->kind != XT_DEV_GPU || d->kernels < 100 || 2 * small < d->kernels ||
		    d->span_ps <= 0 || (__int128)5 * idle < in)
			continue;
		pct = 100.0 * (double)idle / (double)in;
		if (d->run_ps > 0)
			snprintf(where, sizeof(where), "%.1f%% of the time its programs run", pct);
		else
			snprintf(where, sizeof(where), "%.1f%% of the time", pct);
		if (d->small_kernels_cb)
			snprintf(cb, sizeof(cb), ", %llu of them in command buffers",
				 (unsigned long long)d->small_kernels_cb);
		x = finding_new(f, "launch_bound");
		fstr(f, x, "host", d->host);
		fstr(f, x, "device", d->name);
		fnum(x, "kernels", (double)d->kernels);
		fnum(x, "small_kernels", (double)d->small_kernels);
		fnum(x, "small_kernels_in_command_buffers", (double)d->small_kernels_cb);
		fnum(x, "small_kernel_ps", (double)d->small_kernel_ps);
		fnum(x, "idle_percent", d->idle_percent);
		if (d->run_ps > 0)
			fnum(x, "run_idle_percent", pct);
		ftext(f, x,
		      "many small kernels on %s: %.0f%% of %llu kernels run under 10 us and are "
		      "launched one by one (%llu under 10 us, %s in all%s) while the device is idle "
		      "%s: launch overhead, not the GPU, sets the pace (fuse ops, "
		      "%s, raise the batch size)",
		      dev_label(f->a, d, lb, sizeof(lb)), 100.0 * (double)small / (double)d->kernels,
		      (unsigned long long)d->kernels, (unsigned long long)d->small_kernels,
		      fmt_ps(b1, sizeof(b1), d->small_kernel_ps), cb, where,
		      d->small_kernels_cb ? "put more of the program in command buffers"
					  : "enable command buffers");
		return;
	}
}

static void find_idle_gaps(struct fctx *f)
{
	const struct xt_device_row *best = NULL;
	struct xt_finding *x;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[96], lb[512];
	size_t i;

	/* A GPU that ran no kernel (the MI300X conv profile's GPU:0 only
	 * copies, idle 96.8 %) is named only when no device that computes is
	 * idle enough: the user's question is why the compute waits. */
	for (i = 0; i < f->a->ndevices; i++) {
		const struct xt_device_row *d = &f->a->devices[i];
		int computes = computes_on(d), best_computes = best && computes_on(best);

		if (!xt_device_has_gaps(d) ||
		    10 * ((__int128)d->span_ps - d->busy_ps) < d->span_ps)
			continue;
		if (!best || computes > best_computes ||
		    (computes == best_computes &&
		     (__int128)d->span_ps - d->busy_ps > (__int128)best->span_ps - best->busy_ps))
			best = d;
	}
	if (!best)
		return;
	x = finding_new(f, "idle_gaps");
	fstr(f, x, "host", best->host);
	fstr(f, x, "device", best->name);
	fnum(x, "idle_ps", (double)xt_sat_sub(best->span_ps, best->busy_ps));
	fnum(x, "idle_percent", best->idle_percent);
	fnum(x, "longest_gap_ps", (double)best->longest_gap_ps);
	fnum(x, "longest_gap_start_ps", (double)xt_ps_sub(best->longest_gap_start_ps, f->a->origin_ps));
	fnum(x, "gaps_over_1ms", (double)best->gaps_over_1ms);
	fnum(x, "host_bound_ps", best->host_known ? (double)best->host_bound_ps : NAN);
	if (best->host_known)
		snprintf(b6, sizeof(b6), ", and the host was working during %s of the idle time",
			 fmt_ps(b4, sizeof(b4), best->host_bound_ps));
	else
		snprintf(b6, sizeof(b6), "; the profile has no host activity to compare");
	ftext(f, x,
	      "%s is idle %s, %.1f%% of its %s span; the longest gap is %s at %s, %llu gaps last "
	      "1 ms or more%s",
	      dev_label(f->a, best, lb, sizeof(lb)),
	      fmt_ps(b1, sizeof(b1), xt_sat_sub(best->span_ps, best->busy_ps)), best->idle_percent,
	      fmt_ps(b5, sizeof(b5), best->span_ps),
	      fmt_ps(b2, sizeof(b2), best->longest_gap_ps),
	      fmt_ps(b3, sizeof(b3), xt_ps_sub(best->longest_gap_start_ps, f->a->origin_ps)),
	      (unsigned long long)best->gaps_over_1ms, b6);
}

/* The host offloads (xt_op_row.host_copy) that move one way, counted by
 * the ops that wait for them (a copy-start only issues its copy), and the
 * first of them by self time: the step breakdown files their waits with
 * the copies of that way. */
static size_t host_copies(const struct xt_analysis *a, int way, const struct xt_op_row **first)
{
	size_t i, n = 0;

	*first = NULL;
	for (i = 0; i < a->nops; i++)
		if (a->ops[i].host_copy == way && a->ops[i].async != 1 && n++ == 0)
			*first = &a->ops[i];
	return n;
}

/* Copies one way that take >= 5 % of the step time. Where host offloads
 * move that way, the device waits on the host link for them, which the
 * usual advice (overlap the input copy) does not reach: they are already
 * async copies. */
static void find_copies_in_steps(struct fctx *f, int way)
{
	const struct xt_overview *o = f->o;
	int to_dev = way == XT_HOST_COPY_IN;
	int64_t ps = to_dev ? o->h2d_in_steps_ps : o->d2h_in_steps_ps;
	double pct = to_dev ? o->h2d_in_steps_percent : o->d2h_in_steps_percent;
	const char *id = to_dev ? "h2d_in_steps" : "d2h_in_steps";
	const struct xt_op_row *op;
	struct xt_finding *x;
	char b1[32];
	__int128 total = 0;
	size_t i, n = host_copies(f->a, way, &op);

	for (i = 0; i < f->a->nsteps; i++)
		total += f->a->steps[i].duration_ps;
	if (!o->has_steps || total <= 0 || (__int128)20 * ps < total)
		return;
	x = finding_new(f, id);
	fnum(x, to_dev ? "h2d_in_steps_ps" : "d2h_in_steps_ps", (double)ps);
	fnum(x, to_dev ? "h2d_in_steps_percent" : "d2h_in_steps_percent", pct);
	fnum(x, "steps", (double)f->a->nsteps);
	fnum(x, "host_offload_ops", (double)n);
	if (n)
		fstr(f, x, "op", op->name);
	fmt_ps(b1, sizeof(b1), ps);
	if (n)
		ftext(f, x,
		      "%s copies take %.1f%% of the step time (%s over %zu steps), the device "
		      "waiting on %zu %s%s %s host memory (host offload: %s%s): the host link "
		      "bounds them; keep more in device memory or overlap more work with each copy",
		      to_dev ? "host-to-device" : "device-to-host", pct, b1, f->a->nsteps, n,
		      to_dev ? "prefetch" : "offload", n == 1 ? "" : (to_dev ? "es" : "s"),
		      to_dev ? "from" : "to", op->name, n > 1 ? ", ..." : "");
	else if (to_dev)
		ftext(f, x,
		      "host-to-device copies take %.1f%% of the step time (%s over %zu steps): "
		      "prefetch the next batch to the device while this one runs",
		      pct, b1, f->a->nsteps);
	else
		ftext(f, x,
		      "device-to-host copies take %.1f%% of the step time (%s over %zu steps): "
		      "fetch results to the host less often, or asynchronously",
		      pct, b1, f->a->nsteps);
}

static void find_h2d(struct fctx *f)
{
	find_copies_in_steps(f, XT_HOST_COPY_IN);
}

static void find_d2h(struct fctx *f)
{
	find_copies_in_steps(f, XT_HOST_COPY_OUT);
}

static void find_dominant(struct fctx *f)
{
	const struct xt_op_row *op;
	struct xt_finding *x;
	char b1[32];

	if (!f->a->nops || f->a->ops_self_ps <= 0 ||
	    (__int128)2 * f->a->ops[0].self_ps < f->a->ops_self_ps)
		return;
	op = &f->a->ops[0];
	x = finding_new(f, "dominant_op");
	fstr(f, x, "op", op->name);
	fstr(f, x, "program", op->program);
	fnum(x, "self_ps", (double)op->self_ps);
	fnum(x, "percent", op->percent);
	fstr(f, x, "bound_by", xt_bound_names[op->bound_by]);
	ftext(f, x, "one op dominates: %s%s%s takes %.1f%% of the device time (%s)%s%s", op->program,
	      *op->program ? "/" : "", op->name, op->percent, fmt_ps(b1, sizeof(b1), op->self_ps),
	      op->bound_by != XT_BOUND_UNKNOWN ? ", bound by " : "",
	      op->bound_by != XT_BOUND_UNKNOWN ? xt_bound_names[op->bound_by] : "");
}

static void find_compile(struct fctx *f)
{
	struct xt_finding *x;
	char b1[32];

	if (f->o->compile_ps <= 0)
		return;
	x = finding_new(f, "compilation");
	fnum(x, "compile_ps", (double)f->o->compile_ps);
	fnum(x, "compiles", (double)f->o->compiles);
	ftext(f, x,
	      "XLA compiled %llu time%s inside the profile (%s): warm up before profiling, or "
	      "look for recompilation (changing shapes, new static arguments)",
	      (unsigned long long)f->o->compiles, f->o->compiles == 1 ? "" : "s",
	      fmt_ps(b1, sizeof(b1), f->o->compile_ps));
}

static void find_collectives(struct fctx *f)
{
	struct xt_finding *x;
	char b1[32];

	if (!f->top_coll || f->a->busy_ps <= 0 || (__int128)5 * f->o->collective_ps < f->a->busy_ps)
		return;
	x = finding_new(f, "collectives");
	fnum(x, "collective_ps", (double)f->o->collective_ps);
	fnum(x, "collective_percent", f->o->collective_percent);
	fstr(f, x, "op", f->top_coll->name);
	ftext(f, x,
	      "collectives take %.1f%% of the device time (%s; the largest is %s): overlap them "
	      "with compute, or communicate less",
	      f->o->collective_percent, fmt_ps(b1, sizeof(b1), f->o->collective_ps),
	      f->top_coll->name);
}

/* The findings, in the order they are listed. */
static void (*const finders[])(struct fctx *) = {
	find_launch_bound, find_idle_gaps, find_h2d, find_d2h, find_dominant, find_compile,
	find_collectives,
};

/* The device walks (gaps, host-bound time, small kernels): they need the
 * device rows but not the steps, so they run while the steps are merged. */
void overview_devices(struct xt_analysis *a, struct xt_trace *t, const struct host_act *ha)
{
	struct xt_overview *o = &a->overview;
	struct dev_job *jobs = xcalloc(a->ndevices ? a->ndevices : 1, sizeof(*jobs));
	size_t h, p, di = 0, njobs = 0;

	for (h = 0; h < t->nhosts; h++) {
		o->compile_ps = xt_sat_add(o->compile_ps, ha[h].compile_ps);
		o->compiles += ha[h].compiles;
	}
	/* Device rows are in host, plane order: the same walk finds them. */
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes && di < a->ndevices; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			struct xt_device_row *d;

			if (strncmp(pl->name, "/device:", 8))
				continue;
			d = &a->devices[di++];
			if (d->kind != XT_DEV_XLA && d->kind != XT_DEV_GPU)
				continue;
			d->has_overview = 1;
			/* A GPU the profile has nothing of has no kernel count:
			 * unknown, as its busy time is, not 0. */
			d->has_kernels = d->kind == XT_DEV_GPU && !xt_device_silent(d);
			d->host_known = ha[h].n > 0;
			jobs[njobs++] = (struct dev_job){ d, pl, &ha[h] };
		}
	par_for(njobs, 2, dev_job_run, jobs);
	free(jobs);
}

void overview_build(struct xt_analysis *a)
{
	struct xt_overview *o = &a->overview;
	struct fctx f = { a, o, NULL };
	size_t i;

	o->collective_percent = o->h2d_in_steps_percent = o->d2h_in_steps_percent = NAN;
	/* The device idle longest while its host worked; one that computes
	 * first, as for idle_gaps (the MI300X conv profile's GPU:0 only
	 * copies: 23.55 ms against GPU:7's 11.30 ms, where the convolutions
	 * run). */
	{
		int best_computes = 0;

		for (i = 0; i < a->ndevices; i++) {
			const struct xt_device_row *d = &a->devices[i];
			int computes = computes_on(d);

			if (!d->has_overview || d->host_bound_ps <= 0)
				continue;
			if (!o->host_bound_device || computes > best_computes ||
			    (computes == best_computes && d->host_bound_ps > o->host_bound_ps)) {
				o->host_bound_ps = d->host_bound_ps;
				o->host_bound_device = d->name;
				o->host_bound_host = d->host;
				best_computes = computes;
			}
		}
	}
	for (i = 0; i < a->nops; i++) {
		int memcpy_;

		if (op_classify(bref_str(a->ops[i].name), bref_str(a->ops[i].category), bref_str(""),
				bref_str(""), &memcpy_) != EVC_COLLECTIVE)
			continue;
		o->collective_ps = xt_sat_add(o->collective_ps, a->ops[i].self_ps);
		if (!f.top_coll)
			f.top_coll = &a->ops[i]; /* ops are sorted by self time */
	}
	if (a->busy_ps > 0)
		o->collective_percent = 100.0 * (double)o->collective_ps / (double)a->busy_ps;
	step_stats(o, a);
	for (i = 0; i < sizeof(finders) / sizeof(finders[0]); i++)
		finders[i](&f);
}
