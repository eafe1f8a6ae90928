/* details: see details.h. */
#include "details.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../model/op_columns.h"
#include "../model/stats.h"
#include "../util/timefmt.h"
#include "app.h"
#include "term.h"
#include "timeaxis.h"

/* Writes the selected event's details into the pane's text, for a screen
 * cols wide (stats are packed into rows of that width). */
static void details_fill(struct app *a)
{
	struct textview *tv = &a->tls.det;
	const struct tl_track *tr;
	const struct xt_line *l;
	const struct xt_event *ev;
	const struct xt_event_meta *m;
	const struct xt_host *host;
	char line[4608], b1[48], b2[32], b3[32], b4[32], pb[16], kd[1024];
	struct stat_iter it;
	struct xt_stat s;
	long op;
	int pass;

	textview_clear(tv);
	a->tls.det_track = a->tls.sel_track;
	a->tls.det_ev = a->tls.sel_ev;
	a->tls.det_cols = a->cols;
	if (a->tls.sel_track < 0 || a->tls.sel_ev < 0) {
		textview_add(tv, ROLE_DIM, 0, 2,
			     "  no event selected: '.' selects the next event on the cursor's track");
		return;
	}
	tr = &a->tl->tracks[a->tls.sel_track];
	l = tr->l;
	ev = &l->ev[a->tls.sel_ev];
	m = xt_event_meta(tr->p, ev);
	host = &a->t->hosts[tr->host];
	textview_add(tv, ROLE_TEXT, CELL_BOLD, 4,
		     "  %s   start %s   duration %s   self %s   depth %u   %s%s%s / %s",
		     trace_event_display_name(tr->p, ev),
		     timeaxis_fmt_exact(a, b1, sizeof(b1), xt_event_start(l, ev)),
		     fmt_ps_exact(b2, sizeof(b2), xt_event_dur(l, ev)),
		     fmt_ps_exact(b3, sizeof(b3),
				  timeline_self_ps(a->tl, (size_t)a->tls.sel_track, a->tls.sel_ev)),
		     xt_event_depth(ev), a->t->nhosts > 1 ? host->name : "",
		     a->t->nhosts > 1 ? " " : "", tr->p->name, tr->label);
	/* The full name (HLO text on TPU), all of it. */
	if (m->display_name[0] && strcmp(m->name, m->display_name))
		textview_add(tv, ROLE_DIM, 0, 2, "  %s", m->name);
	op = app_op_row(a, tr->p, l, ev);
	if (op >= 0) {
		const struct xt_op_row *r = &a->an->ops[op];

		textview_add(tv, ROLE_TEXT, 0, 4,
			     "  op profile: %s [%s] %s self %s (%s), total %s, %" PRIu64
			     " runs, avg %s",
			     r->name, r->category, r->program, fmt_ps(b1, sizeof(b1), r->self_ps),
			     op_percent_text(pb, sizeof(pb), r->percent),
			     fmt_ps(b2, sizeof(b2), r->total_ps), r->occurrences,
			     fmt_ps(b4, sizeof(b4),
				    r->occurrences ? r->total_ps / (int64_t)r->occurrences : 0));
	}
	/* Every stat, the event's then its metadata's, packed into rows. */
	line[0] = '\0';
	kd[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			stat_iter_event(&it, host, tr->p, l, ev);
		else
			stat_iter_meta(&it, host, tr->p, m);
		while (stat_next(&it, &s)) {
			char val[4096], item[4352];
			const char *name = s.meta ? s.meta->name : "?";

			stat_to_text(&s, val, sizeof(val));
			if (!kd[0] && !strcmp(name, "kernel_details")) {
				size_t kl = strlen(val) < sizeof(kd) ? strlen(val) : sizeof(kd) - 1;

				memcpy(kd, val, kl);
				kd[kl] = '\0';
			}
			if (strchr(val, '\n')) {
				/* A text of several lines (source_stack: a frame a
				 * line), line by line: packed, each newline read '?'. */
				char *at = val, *nl;

				if (line[0])
					textview_add(tv, ROLE_TEXT, 0, 4, "%s", line);
				line[0] = '\0';
				textview_add(tv, ROLE_TEXT, 0, 4, "  %s=", name);
				for (; at && *at; at = nl ? nl + 1 : NULL) {
					nl = strchr(at, '\n');
					if (nl)
						*nl = '\0';
					if (*at)
						textview_add(tv, ROLE_TEXT, 0, 6, "    %s", at);
				}
				continue;
			}
			snprintf(item, sizeof(item), "%s=%s  ", name, val);
			if (line[0] && strlen(line) + strlen(item) > (size_t)a->cols) {
				textview_add(tv, ROLE_TEXT, 0, 4, "%s", line);
				line[0] = '\0';
			}
			if (!line[0])
				strcpy(line, "  ");
			strncat(line, item, sizeof(line) - strlen(line) - 1);
		}
	}
	if (line[0])
		textview_add(tv, ROLE_TEXT, 0, 4, "%s", line);
	/* The raw text read as it is ("shm:0" from TensorFlow, a heap
	 * address's halves as regs and shm from ROCm) says what xtop makes of
	 * it, as the kernels view does. */
	if (kd[0] && *analysis_kernel_details_note(kd, strlen(kd), line, sizeof(line)))
		textview_add(tv, ROLE_DIM, 0, 4, "  kernel_details: %s", line);
}

static void refresh_text(struct app *a)
{
	if (a->tls.det_track != a->tls.sel_track || a->tls.det_ev != a->tls.sel_ev ||
	    a->tls.det_cols != a->cols || !a->tls.det.nlines)
		details_fill(a);
}

int details_height(struct app *a, int h)
{
	int need;

	if (!a->tls.details)
		return 0;
	refresh_text(a);
	need = (int)textview_rows(&a->tls.det, a->cols) + 1;
	if (need > h / 2)
		need = h / 2;
	return need < 2 && h >= 4 ? 2 : need;
}

void details_draw(struct app *a, int y, int h)
{
	struct panel *p = textview_panel(&a->tls.det);
	size_t rows;
	char title[128];

	if (h < 1)
		return;
	refresh_text(a);
	rows = textview_rows(&a->tls.det, a->cols);
	ui_panel(p, y + 1, 0, h - 1, a->cols);
	/* When the text is longer than the pane, say where we are and how to
	 * see the rest. */
	if (rows > (size_t)(h - 1))
		snprintf(title, sizeof(title), " details  rows %ld-%ld of %zu  (J K scroll, } { by page)",
			 p->top + 1, p->top + h - 1 < (long)rows ? p->top + h - 1 : (long)rows, rows);
	else
		snprintf(title, sizeof(title), " details");
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), title, 1);
}

unsigned details_act(struct app *a, enum action act)
{
	static const enum action map[] = {
		[ACT_DETAILS_UP] = ACT_UP,
		[ACT_DETAILS_DOWN] = ACT_DOWN,
		[ACT_DETAILS_PAGE_UP] = ACT_PAGE_UP,
		[ACT_DETAILS_PAGE_DOWN] = ACT_PAGE_DOWN,
	};

	if (!a->tls.details) {
		app_status(a, 1, "no details pane: Enter opens it");
		return UI_REDRAW;
	}
	return panel_act(textview_panel(&a->tls.det), map[act]);
}
