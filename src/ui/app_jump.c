/*
 * app_jump: the viewer's jumps to the timeline (app.h): to a window with a
 * mark, to an event (selected, its track unfolded), to the longest event
 * on the device planes that a view's row stands for, to the event that
 * stands for a time (a step's start, a memory peak); and the op profile's
 * row of an event, for the way back. Split from app.c, which owns the
 * event loop and the drawing; these only set the timeline's state and the
 * view, and the next frame draws it.
 */
#include "app.h"

#include <string.h>

#include "../util/timefmt.h"

void app_jump(struct app *a, int64_t t0, int64_t t1, int64_t at, long track, int64_t ev)
{
	if (t1 <= t0)
		t1 = t0 + 1;
	a->tls.v0 = t0;
	a->tls.v1 = t1;
	a->tls.has_mark = 1;
	a->tls.mark_ps = at;
	a->tls.mark_track = track;
	if (track >= 0) {
		a->tls.cur = track;
		a->tls.cur_header = 0;
		a->tls.sel_track = ev >= 0 ? track : -1;
		a->tls.sel_ev = ev;
		a->tls.folded[track] = 0;
	}
	a->view = VIEW_TIMELINE;
}

int app_jump_longest(struct app *a,
		     int (*match)(struct app *a, const struct tl_track *tr, const struct xt_event *ev,
				  const void *arg),
		     const void *arg, const char *what, const char *name)
{
	long best_t = -1;
	int64_t best_ev = -1, best_dur = -1, s, end, d;
	size_t i, e;
	char b[32];

	for (i = 0; i < a->tl->ntracks; i++) {
		const struct tl_track *tr = &a->tl->tracks[i];

		if (strncmp(tr->p->name, "/device:", 8))
			continue;
		for (e = 0; e < tr->l->nev; e++) {
			const struct xt_event *ev = &tr->l->ev[e];

			if (xt_event_aggregated(ev) || xt_event_dur(tr->l, ev) <= best_dur || !match(a, tr, ev, arg))
				continue;
			best_t = (long)i;
			best_ev = (int64_t)e;
			best_dur = xt_event_dur(tr->l, ev);
		}
	}
	if (best_t < 0)
		return -1;
	timeline_event_span(a->tl, a->tl->tracks[best_t].l, &a->tl->tracks[best_t].l->ev[best_ev],
			    &s, &end);
	d = end - s > 10 ? end - s : 10; /* as placed: within the extent */
	app_goto(a, s - d / 10, s + d + d / 10, best_t, best_ev);
	app_status(a, 0, "longest %s of %s: %s", what, name, fmt_ps(b, sizeof(b), best_dur));
	return 0;
}

void app_goto(struct app *a, int64_t t0, int64_t t1, long track, int64_t ev)
{
	if (track >= 0 && ev >= 0) {
		const struct xt_line *l = a->tl->tracks[track].l;

		app_jump(a, t0, t1, xt_event_start(l, &l->ev[ev]), track, ev);
		return;
	}
	app_jump(a, t0, t1, t0 + (t1 - t0) / 2, track, -1);
	a->tls.has_mark = 0;
}

long app_op_row(const struct app *a, const struct xt_plane *p, const struct xt_line *l,
		const struct xt_event *ev)
{
	char buf[512], prog[512];
	size_t h, i;

	for (h = 0; h < a->t->nhosts; h++) {
		const struct xt_host *host = &a->t->hosts[h];

		if (p < host->planes || p >= host->planes + host->nplanes)
			continue;
		analysis_op_name(a->an, a->t, h, p, l, ev, buf, sizeof(buf));
		prog[0] = '\0';
		for (i = 0; i < a->an->nops; i++) {
			const struct xt_op_row *o = &a->an->ops[i];

			if (strcmp(o->name, buf))
				continue;
			/* One op name in several programs is several rows
			 * (jit_dot(49), jit_dot(79)): the event's program's. */
			if (o->name_shared) {
				if (!prog[0])
					analysis_op_program(a->an, a->t, h, p, l, ev, prog,
							    sizeof(prog));
				if (strcmp(o->program, prog))
					continue;
			}
			return (long)i;
		}
		break;
	}
	return -1;
}

/* app_event_at: see app.h. */
long app_event_at(struct app *a, const char *host, int64_t t, const char *prefix, int64_t *ev)
{
	long best = -1;
	size_t i, e, first, end;
	int pass;

	for (pass = 0; pass < 2 && best < 0; pass++) {
		for (i = 0; i < a->tl->ntracks && best < 0; i++) {
			const struct tl_track *tr = &a->tl->tracks[i];
			int device = !strncmp(tr->p->name, "/device:", 8);

			if ((pass == 0) != device)
				continue;
			if (host && strcmp(a->t->hosts[tr->host].name, host))
				continue;
			end = trace_line_window(tr->l, t, t + 1, &first);
			for (e = first; e < end; e++) {
				const struct xt_event *x = &tr->l->ev[e];

				if (xt_event_aggregated(x) || xt_event_start(tr->l, x) != t)
					continue;
				if (prefix && strncmp(trace_event_display_name(tr->p, x), prefix,
						      strlen(prefix)))
					continue;
				best = (long)i;
				*ev = (int64_t)e;
				break;
			}
		}
	}
	return best;
}
