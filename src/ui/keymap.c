/*
 * keymap: see keymap.h. Bindings follow what users already know: Perfetto
 * and XProf's trace viewer (W/A/S/D, '.'/',', f), uftrace and perf (Enter
 * folds, / n N), htop (? help, q quit, \ filter, < > sort column).
 */
#include "keymap.h"

#include <curses.h>
#include <stdio.h>

#define CTRL(c) ((c) & 0x1f)
/* The list views: sort, filter, Enter. */
#define TABLES (SCOPE_OPS | SCOPE_STEPS | SCOPE_MEMORY | SCOPE_DIFF | SCOPE_KERNELS | SCOPE_DEVICES)

const struct key_binding key_bindings[] = {
	/* everywhere */
	{ 'q', SCOPE_ALL, ACT_QUIT, "q", "quit", "Quit" },
	{ '?', SCOPE_ALL, ACT_HELP, "?", "show or hide this help", "Help" },
	{ KEY_F(1), SCOPE_ALL, ACT_HELP, "F1", NULL, NULL },
	{ '\t', SCOPE_ALL, ACT_VIEW_NEXT, "Tab", "next view", "View" },
	{ KEY_BTAB, SCOPE_ALL, ACT_VIEW_PREV, "S-Tab", "previous view", NULL },
	{ '1', SCOPE_ALL, ACT_VIEW_OVERVIEW, "1..8",
	  "views: overview, timeline, ops, steps, memory, kernels, devices, diff", NULL },
	{ '2', SCOPE_ALL, ACT_VIEW_TIMELINE, "2", NULL, NULL },
	{ '3', SCOPE_ALL, ACT_VIEW_OPS, "3", NULL, NULL },
	{ '4', SCOPE_ALL, ACT_VIEW_STEPS, "4", NULL, NULL },
	{ '5', SCOPE_ALL, ACT_VIEW_MEMORY, "5", NULL, NULL },
	{ '6', SCOPE_ALL, ACT_VIEW_KERNELS, "6", NULL, NULL },
	{ '7', SCOPE_ALL, ACT_VIEW_DEVICES, "7", NULL, NULL },
	{ '8', SCOPE_ALL, ACT_VIEW_DIFF, "8", NULL, NULL },
	{ 'D', SCOPE_ALL, ACT_DIFF, "D",
	  "compare this profile with the one before it (the first with the last; D again: the "
	  "next)", NULL },
	{ '/', SCOPE_ALL, ACT_SEARCH, "/", "search event names (kernels: their op too) in the whole profile",
	  "Search" },
	{ 'n', SCOPE_ALL, ACT_MATCH_NEXT, "n", "next match (any track)", NULL },
	{ 'N', SCOPE_ALL, ACT_MATCH_PREV, "N", "previous match", NULL },
	{ 'c', SCOPE_ALL, ACT_CAPTURE, "c", "capture from the attached workload (c again stops early)", "Capture" },
	{ 'x', SCOPE_ALL, ACT_SAVE, "x", "save the current profile in the logdir (TensorBoard layout)", NULL },
	{ '[', SCOPE_ALL, ACT_PROF_PREV, "[ ]", "previous / next profile (after captures)", NULL },
	{ ']', SCOPE_ALL, ACT_PROF_NEXT, "]", NULL, NULL },
	{ 'm', SCOPE_ALL, ACT_MESSAGES, "m", "messages: the status line's recent messages in full", NULL },
	{ 27, SCOPE_ALL, ACT_ESCAPE, "Esc", "close help, clear selection, search or filter", NULL },
	{ KEY_UP, SCOPE_ALL, ACT_UP, "Up", "move up", NULL },
	{ 'k', SCOPE_ALL, ACT_UP, "k", NULL, NULL },
	{ KEY_DOWN, SCOPE_ALL, ACT_DOWN, "Down", "move down", NULL },
	{ 'j', SCOPE_ALL, ACT_DOWN, "j", NULL, NULL },
	{ KEY_PPAGE, SCOPE_ALL, ACT_PAGE_UP, "PgUp", "page up", NULL },
	{ KEY_NPAGE, SCOPE_ALL, ACT_PAGE_DOWN, "PgDn", "page down", NULL },
	{ KEY_HOME, SCOPE_ALL, ACT_HOME, "Home", "first row", NULL },
	{ 'g', SCOPE_ALL, ACT_HOME, "g", NULL, NULL }, /* as G, in every view */
	{ KEY_END, SCOPE_ALL, ACT_END, "End", "last row", NULL },
	{ 'G', SCOPE_ALL, ACT_END, "G", NULL, NULL },
	/* timeline */
	{ 'w', SCOPE_TIMELINE, ACT_ZOOM_IN, "w", "zoom in at the selection (or the middle)", "Zoom" },
	{ 'W', SCOPE_TIMELINE, ACT_ZOOM_IN, "W", NULL, NULL },
	{ '+', SCOPE_TIMELINE, ACT_ZOOM_IN, "+", NULL, NULL },
	{ '=', SCOPE_TIMELINE, ACT_ZOOM_IN, "=", NULL, NULL },
	{ 's', SCOPE_TIMELINE, ACT_ZOOM_OUT, "s", "zoom out", NULL },
	{ 'S', SCOPE_TIMELINE, ACT_ZOOM_OUT, "S", NULL, NULL },
	{ '-', SCOPE_TIMELINE, ACT_ZOOM_OUT, "-", NULL, NULL },
	{ 'a', SCOPE_TIMELINE, ACT_PAN_LEFT, "a", "pan left", "Pan" },
	{ 'A', SCOPE_TIMELINE, ACT_PAN_LEFT, "A", NULL, NULL },
	{ KEY_LEFT, SCOPE_TIMELINE, ACT_PAN_LEFT, "Left", NULL, NULL },
	{ 'd', SCOPE_TIMELINE, ACT_PAN_RIGHT, "d", "pan right", NULL },
	/* No 'D' beside 'd': the diff's D, in every view, comes first. */
	{ KEY_RIGHT, SCOPE_TIMELINE, ACT_PAN_RIGHT, "Right", NULL, NULL },
	{ 'f', SCOPE_TIMELINE, ACT_FIT, "f", "fit the selected event", "Fit" },
	{ '0', SCOPE_TIMELINE, ACT_SHOW_ALL, "0", "show the whole profile", NULL },
	{ '.', SCOPE_TIMELINE, ACT_EVENT_NEXT, ".", "select the next event on the track", "Next" },
	{ ',', SCOPE_TIMELINE, ACT_EVENT_PREV, ",", "select the previous event on the track", NULL },
	{ 'u', SCOPE_TIMELINE, ACT_PARENT, "u", "select the enclosing (parent) event", NULL },
	{ 'i', SCOPE_TIMELINE, ACT_CHILD, "i", "select the first child event", NULL },
	{ ' ', SCOPE_TIMELINE, ACT_FOLD, "Space", "fold or unfold the plane under the cursor", NULL },
	{ '\n', SCOPE_TIMELINE, ACT_DETAILS, "Enter", "show or hide the details pane", "Details" },
	{ 'J', SCOPE_TIMELINE, ACT_DETAILS_DOWN, "J K", "scroll the details pane a line down / up", NULL },
	{ 'K', SCOPE_TIMELINE, ACT_DETAILS_UP, "K", NULL, NULL },
	{ '}', SCOPE_TIMELINE, ACT_DETAILS_PAGE_DOWN, "} {", "scroll the details pane a page down / up", NULL },
	{ '{', SCOPE_TIMELINE, ACT_DETAILS_PAGE_UP, "{", NULL, NULL },
	{ KEY_ENTER, SCOPE_TIMELINE, ACT_DETAILS, "Enter", NULL, NULL },
	{ '\r', SCOPE_TIMELINE, ACT_DETAILS, "Enter", NULL, NULL },
	/* overview */
	{ '\n', SCOPE_OVERVIEW, ACT_ENTER, "Enter",
	  "follow the row: a device, or a finding naming one, to its longest gap; an op, or a "
	  "finding naming one, to its op profile row; the H2D and D2H findings to the steps",
	  "Go" },
	{ KEY_ENTER, SCOPE_OVERVIEW, ACT_ENTER, "Enter", NULL, NULL },
	{ '\r', SCOPE_OVERVIEW, ACT_ENTER, "Enter", NULL, NULL },
	/* tables */
	{ '\n', TABLES, ACT_ENTER, "Enter",
	  "ops: the op's longest run (a kernel row: its longest launch; a group: fold it); "
	  "steps, memory, kernels, devices: jump there; diff: the op", "Go" },
	{ KEY_ENTER, TABLES, ACT_ENTER, "Enter", NULL, NULL },
	{ '\r', TABLES, ACT_ENTER, "Enter", NULL, NULL },
	{ '>', TABLES, ACT_SORT_NEXT, ">", "sort by the next column", "Sort" },
	{ '<', TABLES, ACT_SORT_PREV, "<", "sort by the previous column", NULL },
	{ '\\', TABLES, ACT_FILTER, "\\",
	  "filter the rows by the text they show (substring, any case; an op by all its columns)",
	  "Filter" },
	{ KEY_F(4), TABLES, ACT_FILTER, "F4", NULL, NULL },
	{ 'p', SCOPE_OPS, ACT_GROUP, "p", "group by program and category, or list flat", "Group" },
	{ 'i', TABLES, ACT_ROW, "i",
	  "the selected row in full: every column with its header, names and notes whole", "Row" },
	{ ' ', SCOPE_OPS, ACT_FOLD, "Space", "show or hide the kernels an op launched (or fold a group)",
	  "Kernels" },
	{ KEY_RESIZE, 0, ACT_NONE, NULL, NULL, NULL },
};

const unsigned key_nbindings = sizeof(key_bindings) / sizeof(key_bindings[0]);

enum action keymap_lookup(int key, unsigned scope)
{
	unsigned i;

	for (i = 0; i < key_nbindings; i++)
		if (key_bindings[i].key == key && (key_bindings[i].scope & scope))
			return key_bindings[i].action;
	return ACT_NONE;
}

const char *keymap_key_for(enum action act)
{
	unsigned i;

	for (i = 0; i < key_nbindings; i++)
		if (key_bindings[i].action == act)
			return key_bindings[i].keyname;
	return NULL;
}

const char *keymap_scope_name(unsigned scope, char *buf, size_t n)
{
	static const char *const names[] = { "timeline", "op profile", "steps",	 "memory",
					     "overview", "diff",       "kernels", "devices" };
	size_t o = 0, k;

	if ((scope & SCOPE_ALL) == SCOPE_ALL) {
		snprintf(buf, n, "everywhere");
		return buf;
	}
	buf[0] = '\0';
	for (k = 0; k < sizeof(names) / sizeof(names[0]) && o < n; k++)
		if (scope & (1u << k))
			o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", names[k]);
	return buf;
}
