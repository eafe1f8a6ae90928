/*
 * loading: see loading.h. XTOP_FRAME_LOG=FILE appends when the first
 * frame was drawn, the first frame with events, the end of decoding and
 * the analyses' arrival, in seconds since the process started (make
 * bench reads it).
 */
#include "loading.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/load.h"
#include "../model/profile_path.h"
#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "app.h"
#include "term.h"

struct loading {
	struct load_job *job;
	size_t prof;            /* index of the profile it fills */
	struct xt_trace *t;     /* the trace shown */
	unsigned version;
	int locked;
	double t0;              /* CLOCK_MONOTONIC at the start */
	double age0;            /* the process's age then, s */
	int frames, events_shown, decoded;
	int has_events;         /* the timeline made last holds events */
	double rebuilt;         /* when the timeline was last made anew */
	int touched;            /* a key was handled: the view is the user's */
	/* The view asked for, when it needs the analyses: the timeline shows
	 * until they are in, then this one, unless a key was pressed
	 * (VIEW_TIMELINE: none). */
	enum view_id then;
	const char *logged_view; /* the last view the frame log named */
	FILE *log;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds since this process started (to the kernel's clock tick). */
static double process_age(void)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	struct timespec up;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	int field;

	if (f)
		fclose(f);
	buf[n] = '\0';
	/* Field 22, counted after the command name's closing parenthesis. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	clock_gettime(CLOCK_BOOTTIME, &up);
	if (!start || sysconf(_SC_CLK_TCK) <= 0)
		return 0;
	return (double)up.tv_sec + (double)up.tv_nsec * 1e-9 -
	       (double)start / (double)sysconf(_SC_CLK_TCK);
}

static void note(struct loading *ld, const char *what)
{
	if (ld->log) {
		fprintf(ld->log, "%s %.3f\n", what, ld->age0 + now_s() - ld->t0);
		fflush(ld->log);
	}
}

static struct xt_analysis *empty_analysis(void)
{
	struct xt_trace *t = trace_new();
	struct xt_analysis *an = analysis_finish(analysis_new(), t);

	trace_free(t);
	return an;
}

void loading_start(struct app *a, const char *path, const char *run)
{
	struct loading *ld = xcalloc(1, sizeof(*ld));
	struct load_opts lo = { 0 };
	const char *log = getenv("XTOP_FRAME_LOG");

	ld->t0 = now_s();
	ld->age0 = process_age();
	if (log && *log)
		ld->log = fopen(log, "a");
	lo.run = run;
	ld->job = load_job_start(path, &lo);
	load_job_lock(ld->job);
	ld->t = load_job_trace(ld->job, &ld->version);
	ld->prof = a->nprofs;
	ld->then = VIEW_TIMELINE;
	app_add(a, ld->t, empty_analysis(), path);
	load_job_unlock(ld->job);
	a->load = ld;
	if (a->view != VIEW_TIMELINE && a->cur == ld->prof) {
		/* Nothing but the timeline has anything to show yet. */
		ld->then = a->view;
		a->view = VIEW_TIMELINE;
		app_status(a, 0, "loading %s: the lines as they come; the %s when it is done", path,
			   app_view_name(ld->then));
	} else {
		app_status(a, 0, "loading %s: the op profile, steps and memory come when it is done",
			   path);
	}
}

int loading_current(const struct app *a)
{
	return a->load && a->cur == a->load->prof;
}

int loading_pending(const struct app *a, enum view_id v)
{
	const struct loading *ld = a->load;

	if (!ld || v == VIEW_TIMELINE)
		return 0;
	return loading_current(a) ||
	       (v == VIEW_DIFF && a->diff.base >= 0 && (size_t)a->diff.base == ld->prof);
}

/* A new timeline for profile ld->prof over t; the view keeps its place
 * and selection when the trace is the same one, grown. */
static int tl_has_events(const struct timeline *tl)
{
	size_t i;

	for (i = 0; tl && i < tl->ntracks; i++)
		if (tl->tracks[i].l->nev)
			return 1;
	return 0;
}

/* Whether new lines should join the timeline at once: until it holds
 * events, in the first second (then four times a second at most). */
static int loading_eager(const struct loading *ld)
{
	return !ld->has_events && now_s() - ld->t0 < 1.0;
}

static void retimeline(struct app *a, struct loading *ld, struct xt_trace *t)
{
	struct prof *p = &a->profs[ld->prof];
	int here = a->cur == ld->prof, same = t == ld->t;
	const struct xt_line *sel = NULL, *cur = NULL;
	int whole = 0;

	if (here && p->tl) {
		whole = a->tls.v0 == p->tl->t0 && a->tls.v1 == p->tl->t1;
		if (a->tls.sel_track >= 0 && (size_t)a->tls.sel_track < p->tl->ntracks)
			sel = p->tl->tracks[a->tls.sel_track].l;
		if (a->tls.cur >= 0 && (size_t)a->tls.cur < p->tl->ntracks)
			cur = p->tl->tracks[a->tls.cur].l;
	}
	{
		struct timeline *old = p->tl;

		p->tl = t ? timeline_new(t) : NULL;
		if (old && p->tl && same)
			timeline_adopt(p->tl, old); /* indexes already built stay */
		timeline_free(old);
	}
	ld->has_events = tl_has_events(p->tl);
	free(p->folded);
	p->t = t;
	p->folded = xcalloc(p->tl && p->tl->ntracks ? p->tl->ntracks : 1, 1);
	if (!here)
		return;
	a->t = t;
	a->tl = p->tl;
	a->tls.folded = p->folded;
	if (!a->tl)
		return;
	/* Track numbers change as lines arrive: follow the lines the user
	 * chose; an untouched view stays at the top. */
	a->tls.sel_track = same && sel ? timeline_track_of(a->tl, sel) : -1;
	if (a->tls.sel_track < 0)
		a->tls.sel_ev = -1;
	a->tls.cur = same && cur && ld->touched ? timeline_track_of(a->tl, cur) : 0;
	if (a->tls.cur < 0)
		a->tls.cur = 0;
	if (!ld->touched) {
		a->tls.top = 0;
		a->tls.cur_header = 0;
	}
	/* An untouched view fits the devices' busy span as it grows; one the
	 * user set to the whole profile keeps showing all of it. */
	if (!ld->touched || !same) {
		app_first_window(a);
	} else if (whole) {
		a->tls.v0 = a->tl->t0;
		a->tls.v1 = a->tl->t1;
	}
	search_free(a->search);
	a->search = NULL;
	a->match = -1;
}

/* The load has ended: the analyses in, or the failure out. */
static int loading_end(struct app *a, struct loading *ld)
{
	struct prof *p = &a->profs[ld->prof];
	struct xt_trace *t;
	struct xt_analysis *an;
	struct xt_error err;
	int rc;

	unsigned v;

	/* A trace the viewer shows is freed with the job unless it is the
	 * result: no timeline over it then. */
	load_job_lock(ld->job);
	if (load_job_trace(ld->job, &v) != ld->t) {
		retimeline(a, ld, NULL);
		ld->t = NULL;
	}
	load_job_unlock(ld->job);
	rc = load_job_finish(ld->job, &t, &an, &err);
	if (rc < 0) {
		note(ld, "failed");
		if (ld->log)
			fclose(ld->log);
		retimeline(a, ld, NULL);
		a->load = NULL;
		free(ld);
		term_fini();
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	retimeline(a, ld, t);
	analysis_free(p->an);
	p->an = an;
	if (!p->saved)
		p->saved = app_saved_run(a, t);
	if (a->cur == ld->prof) {
		a->an = an;
		/* The view asked for, unless the user took the timeline over. */
		if (ld->then != VIEW_TIMELINE && !ld->touched && a->view == VIEW_TIMELINE)
			a->view = ld->then;
	}
	note(ld, "ready");
	if (ld->log)
		fclose(ld->log);
	app_log_clocks(a, t);
	{
		double took = now_s() - ld->t0;
		char b[48] = "", tail[160], path[1024];
		int room;

		if (took >= 0.5)
			snprintf(b, sizeof(b), " (loaded in %.1f s)", took);
		snprintf(tail, sizeof(tail), ": ? for help, Tab switches views%s%s",
			 t->nhosts > 1 ? ", m shows the hosts' clocks" : "", b);
		/* The hint is the point (the title names the file): a long
		 * path gives way in its middle, down to a dozen columns. */
		room = a->cols - utf8_width(tail);
		utf8_elide(path, sizeof(path), a->profs[ld->prof].path, room > 12 ? room : 12,
			   term.g.ellipsis);
		app_status(a, 0, "%s%s", path, tail);
	}
	a->load = NULL;
	free(ld);
	return 0;
}

int loading_turn(struct app *a)
{
	struct loading *ld = a->load;
	struct xt_trace *t;
	unsigned v;
	int phase;
	uint64_t ev;

	if (!ld)
		return 0;
	if (load_job_done(ld->job))
		return loading_end(a, ld);
	(void)load_job_progress(ld->job, &phase, &ev);
	if (phase && !ld->decoded) {
		ld->decoded = 1;
		note(ld, "decoded");
	}
	load_job_lock(ld->job);
	ld->locked = 1;
	t = load_job_trace(ld->job, &v);
	/* New lines join the timeline four times a second at most, but the
	 * first ones at once (else they waited up to a quarter second more). */
	if (t != ld->t || (v != ld->version &&
			   (loading_eager(ld) || now_s() - ld->rebuilt >= 0.25))) {
		retimeline(a, ld, t);
		ld->t = t;
		ld->version = v;
		ld->rebuilt = now_s();
	}
	return 0;
}

void loading_stop(struct app *a)
{
	struct loading *ld = a->load;
	struct xt_trace *t;
	struct xt_analysis *an;
	struct xt_error err;

	if (!ld)
		return;
	loading_unlock(a);
	load_job_cancel(ld->job);
	load_job_lock(ld->job);
	retimeline(a, ld, NULL); /* the job frees what it shows */
	load_job_unlock(ld->job);
	if (load_job_finish(ld->job, &t, &an, &err) == 0) {
		/* It had ended by itself meanwhile. */
		analysis_free(an);
		trace_free(t);
	}
	if (ld->log)
		fclose(ld->log);
	a->load = NULL;
	free(ld);
}

void loading_drawn(struct app *a)
{
	struct loading *ld = a->load;

	if (!ld)
		return;
	if (!ld->frames++)
		note(ld, "first_frame");
	if (ld->log && app_view_name(a->view) != ld->logged_view) {
		/* Which view the frames show, and whether it waits (tests). */
		ld->logged_view = app_view_name(a->view);
		fprintf(ld->log, "view %s%s\n", ld->logged_view,
			loading_pending(a, a->view) ? " pending" : "");
		fflush(ld->log);
	}
	if (!ld->events_shown && a->cur == ld->prof && tl_has_events(a->tl)) {
		ld->events_shown = 1;
		note(ld, "first_events");
	}
	loading_unlock(a);
}

void loading_touch(struct app *a)
{
	if (a->load)
		a->load->touched = 1;
}

void loading_lock(struct app *a)
{
	if (a->load && !a->load->locked) {
		load_job_lock(a->load->job);
		a->load->locked = 1;
	}
}

void loading_unlock(struct app *a)
{
	if (a->load && a->load->locked) {
		a->load->locked = 0;
		load_job_unlock(a->load->job);
	}
}

int loading_before_events(const struct app *a)
{
	return a->load && loading_eager(a->load);
}

void loading_status(const struct app *a, char *buf, size_t n)
{
	const struct loading *ld = a->load;
	char bar[64], b1[32], shown[256];
	int phase, i, w = 20, full;
	uint64_t ev;
	double f = load_job_progress(ld->job, &phase, &ev);

	full = phase ? w : (int)(f * w);
	bar[0] = '\0';
	for (i = 0; i < w; i++)
		strcat(bar, i < full ? (term.ascii ? "#" : "\xe2\x96\x88")
				     : (term.ascii ? "." : "\xe2\x96\x91"));
	snprintf(buf, n, " xtop  %s  %s %s %3.0f%%  %s events  %.1f s",
		 profile_show_name(a->profs[ld->prof].path, shown, sizeof(shown)),
		 phase ? "analysing" : "loading", bar,
		 phase ? 100.0 : f * 100.0, fmt_count(b1, sizeof(b1), ev), now_s() - ld->t0);
}
