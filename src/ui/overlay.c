/* overlay: see overlay.h. */
#include "overlay.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../model/op_columns.h"
#include "app.h"
#include "prompt.h"
#include "rowinfo.h"
#include "term.h"

/* The help: the key table's bindings grouped by where they apply, in the
 * order the table first names each group, then the prompt's keys. */
static void help_fill(struct textview *tv)
{
	unsigned scopes[32], i, k, ns = 0;
	char name[80];

	textview_clear(tv);
	for (i = 0; i < key_nbindings; i++) {
		const struct key_binding *kb = &key_bindings[i];

		if (!kb->help)
			continue;
		for (k = 0; k < ns && scopes[k] != kb->scope; k++)
			;
		if (k == ns && ns < 32)
			scopes[ns++] = kb->scope;
	}
	for (k = 0; k < ns; k++) {
		textview_add(tv, ROLE_DIM, 0, 0, "%s", keymap_scope_name(scopes[k], name, sizeof(name)));
		for (i = 0; i < key_nbindings; i++) {
			const struct key_binding *kb = &key_bindings[i];

			if (kb->help && kb->scope == scopes[k]) {
				/* The keys that do the same where it applies
				 * ("w W + =", "Up k"): each one the table has. */
				char keys[64];
				size_t j;

				snprintf(keys, sizeof(keys), "%s", kb->keyname);
				for (j = 0; j < key_nbindings; j++) {
					const struct key_binding *al = &key_bindings[j];

					if (j == i || al->help || al->action != kb->action ||
					    !(al->scope & kb->scope) || !strcmp(al->keyname, kb->keyname) ||
					    strlen(keys) + strlen(al->keyname) + 2 > sizeof(keys))
						continue;
					strcat(keys, " ");
					strcat(keys, al->keyname);
				}
				textview_add(tv, ROLE_TEXT, 0, 10, "  %-7s %s", keys, kb->help);
			}
		}
	}
	textview_add(tv, ROLE_DIM, 0, 0, "in the search, filter and find prompts");
	for (i = 0; i < prompt_nkeys; i++)
		if (prompt_keys[i].keyname)
			textview_add(tv, ROLE_TEXT, 0, 10, "  %-7s %s", prompt_keys[i].keyname,
				     prompt_keys[i].help);
	textview_add(tv, ROLE_DIM, 0, 0, "timeline marks");
	textview_add(tv, ROLE_TEXT, 0, 10,
		     "  %s %s %s   several events in one column: 2-9, 10-99, 100 or more",
		     term.g.dense[0], term.g.dense[1], term.g.dense[2]);
	textview_add(tv, ROLE_TEXT, 0, 10,
		     "  +       after a track's name: its deeper levels drawn on its last row");
	textview_add(tv, ROLE_DIM, 0, 0, "op profile columns");
	for (i = 0; i < op_ncolumns; i++)
		textview_add(tv, ROLE_TEXT, 0, 11, "  %-8s %s", op_columns[i].name, op_columns[i].help);
	/* The other lists' columns, from their tables (HOST-BND, LIFETIME
	 * and SMALL/KERN were explained nowhere in the viewer). */
	{
		static const struct view *const lists[] = { &view_steps, &view_memory, &view_kernels,
							     &view_devices, &view_diff };

		for (k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
			textview_add(tv, ROLE_DIM, 0, 0, "%s columns", lists[k]->name);
			for (i = 0; i < lists[k]->ncols; i++)
				if (lists[k]->cols[i].help)
					textview_add(tv, ROLE_TEXT, 0, 14, "  %-11s %s",
						     lists[k]->cols[i].name, lists[k]->cols[i].help);
		}
	}
	{
		const char *mark[4], *help[4];
		size_t m, n = view_ops_marks(mark, help, 4);

		textview_add(tv, ROLE_DIM, 0, 0, "op profile name marks");
		for (m = 0; m < n; m++)
			textview_add(tv, ROLE_TEXT, 0, 11, "  %s        %s", mark[m], help[m]);
	}
}

static void messages_fill(struct textview *tv, const struct msglog *log)
{
	size_t i;

	textview_clear(tv);
	if (!log->n)
		textview_add(tv, ROLE_DIM, 0, 0, "  no messages yet");
	for (i = 0; i < log->n; i++) {
		const struct msglog_entry *e = msglog_get(log, i);
		struct tm tm;
		char when[16], times[32] = "";

		localtime_r(&e->when, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		if (e->times > 1)
			snprintf(times, sizeof(times), " (%u times)", e->times);
		textview_add(tv, e->err ? ROLE_ERROR : ROLE_TEXT, 0, 17, "  %s %s %s%s", when,
			     e->err ? "error" : "     ", e->text, times);
	}
}

/* Each kind: the action that opens and closes it, its key as the title's
 * hint says it, what it is called ("not in the ..."), and its title
 * (OVERLAY_ROW's is the row's, a->ov.title). */
static const struct {
	enum action act;
	const char *key, *name, *title;
} kinds[] = {
	[OVERLAY_HELP] = { ACT_HELP, "?", "help", " xtop keys" },
	[OVERLAY_MESSAGES] = { ACT_MESSAGES, "m", "messages", " messages, newest last" },
	[OVERLAY_ROW] = { ACT_ROW, "i", "row", NULL },
};

enum overlay_kind overlay_kind_of(enum action act)
{
	size_t k;

	for (k = 1; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (kinds[k].act == act)
			return (enum overlay_kind)k;
	return OVERLAY_NONE;
}

void overlay_open(struct app *a, enum overlay_kind kind)
{
	struct panel *p = textview_panel(&a->ov.tv);

	if (kind == OVERLAY_ROW) {
		if (rowinfo_fill(a, &a->ov.tv) < 0) {
			app_status(a, 1, "no row is selected");
			return;
		}
		a->ov.kind = kind;
		return;
	}
	a->ov.kind = kind;
	if (kind == OVERLAY_HELP) {
		help_fill(&a->ov.tv);
	} else {
		messages_fill(&a->ov.tv, &a->log);
		p->top = 1L << 30; /* the newest messages in view (the draw clamps) */
	}
}

void overlay_draw(struct app *a, int y, int h)
{
	struct panel *p = textview_panel(&a->ov.tv);
	static const char *const hints[] = { "  (%s or Esc closes, Up/Down/PgUp/PgDn scroll, / finds)",
					     "  (%s or Esc closes, / finds)", "" };
	const char *what = a->ov.kind == OVERLAY_ROW ? a->ov.title : kinds[a->ov.kind].title;
	char title[512], hint[128], where[64] = "";
	size_t rows = textview_rows(&a->ov.tv, a->cols), k;
	int body = h - 1, len = 0;

	if (h < 2)
		return;
	ui_panel(p, y + 1, 0, body, a->cols);
	/* Where we are, when there is more than a screen; then the longest
	 * hint that fits beside it. */
	if (rows > (size_t)body)
		len = snprintf(where, sizeof(where), " %ld-%ld of %zu ", p->top + 1,
			       p->top + body < (long)rows ? p->top + body : (long)rows, rows);
	for (k = 0; k < sizeof(hints) / sizeof(hints[0]); k++) {
		snprintf(hint, sizeof(hint), hints[k], kinds[a->ov.kind].key);
		snprintf(title, sizeof(title), "%s%s", what, hint);
		if ((int)strlen(title) + len < a->cols)
			break;
	}
	ui_put(y, 0, a->cols, term_attr(ROLE_HEADER), title, 1);
	if (len)
		ui_put(y, a->cols - len, len, term_attr(ROLE_HEADER), where, 0);
}

void overlay_find(struct app *a, const char *text, int dir)
{
	struct panel *p = textview_panel(&a->ov.tv);

	/* n and N search again for the text kept here: copying it onto
	 * itself would be undefined. */
	if (text != a->ov.find)
		snprintf(a->ov.find, sizeof(a->ov.find), "%s", text);
	if (!text[0])
		return;
	if (panel_find(p, text, dir) < 0)
		app_status(a, 1, "'%s' is not in the %s", text, kinds[a->ov.kind].name);
}

unsigned overlay_act(struct app *a, enum action act)
{
	struct panel *p = textview_panel(&a->ov.tv);

	switch (act) {
	case ACT_QUIT:
		return UI_QUIT;
	case ACT_HELP:
	case ACT_MESSAGES:
	case ACT_ROW: {
		enum overlay_kind k = overlay_kind_of(act);

		if (a->ov.kind == k)
			a->ov.kind = OVERLAY_NONE;
		else
			overlay_open(a, k);
		return UI_REDRAW;
	}
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
	case ACT_HOME:
	case ACT_END:
		return panel_act(p, act);
	case ACT_SEARCH:
		prompt_open(&a->prompt, PROMPT_FIND);
		return UI_REDRAW;
	case ACT_MATCH_NEXT:
	case ACT_MATCH_PREV:
		overlay_find(a, a->ov.find, act == ACT_MATCH_NEXT ? 1 : -1);
		return UI_REDRAW;
	default:
		a->ov.kind = OVERLAY_NONE;
		return UI_REDRAW;
	}
}

void overlay_fini(struct overlay *o)
{
	textview_fini(&o->tv);
	o->kind = OVERLAY_NONE;
}
