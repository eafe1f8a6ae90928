/* panel: see panel.h. */
#include "panel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "panel_fit.h"
#include "reaction.h"
#include "roles.h"

#define PANEL_FLEX_MIN 8

void panel_init(struct panel *p, const struct panel_ops *ops, void *ctx,
		const struct panel_column *cols, size_t ncols)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->ctx = ctx;
	p->cols = cols;
	p->ncols = ncols;
	p->sort = -1;
	p->found = -1;
	p->mark = "~";
	p->open = "-";
	p->closed = "+";
	p->up = "^";
}

void panel_fini(struct panel *p)
{
	size_t i;

	for (i = 0; i < p->nfolds; i++)
		free(p->folds[i]);
	free(p->folds);
	free(p->order);
	free(p->kids);
	memset(p, 0, sizeof(*p));
}

/* ---- what a row says ---- */

static void layout(const struct panel *p, int w, int *show, int *width);

/* The row's text; with show, only the columns shown (what the filter
 * reads: the TPU's steps filtered by "79" kept steps 45 and 93 by their
 * START, a column 80 columns do not show). */
static void row_text(const struct panel *p, size_t row, char *buf, size_t n, const int *show)
{
	size_t c, o = 0;

	buf[0] = '\0';
	if (p->ops->text) {
		p->ops->text(p->ctx, row, buf, n);
		return;
	}
	for (c = 0; c < p->ncols && o + 2 < n; c++) {
		if (!p->cols[c].text || (show && c < 32 && !show[c]))
			continue;
		if (o)
			buf[o++] = ' ';
		p->cols[c].text(p->ctx, row, buf + o, n - o);
		o += strlen(buf + o);
	}
	if (!o && !p->cols)
		snprintf(buf, n, "%zu", row);
}

static void row_key(const struct panel *p, size_t row, char *buf, size_t n)
{
	if (p->ops->key)
		p->ops->key(p->ctx, row, buf, n);
	else
		row_text(p, row, buf, n, NULL);
}

int panel_folded(const struct panel *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nfolds; i++)
		if (!strcmp(p->folds[i], key))
			return 1;
	return 0;
}

/* ---- the shown rows ---- */

struct sort_ctx {
	const struct panel *p;
	int (*cmp)(void *ctx, size_t a, size_t b);
};

static int order_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *sc = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int r = sc->cmp(sc->p->ctx, a, b);

	return r ? r : (a > b) - (a < b); /* stable: the view's order breaks ties */
}

static void sort_rows(const struct panel *p, size_t *rows, size_t n)
{
	struct sort_ctx sc = { p, NULL };

	if (p->sort < 0 || (size_t)p->sort >= p->ncols || !p->cols[p->sort].cmp || n < 2)
		return;
	sc.cmp = p->cols[p->sort].cmp;
	qsort_r(rows, n, sizeof(size_t), order_cmp, &sc);
}

static void push(struct panel *p, size_t row)
{
	if (p->norder == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->order = xreallocarray(p->order, p->cap, sizeof(size_t));
	}
	p->order[p->norder++] = row;
}

/* Tree rows: siblings sorted among themselves, each subtree under its row,
 * folded subtrees and rows with no match in their subtree left out. */
static void build_tree(struct panel *p, size_t n, const unsigned char *match)
{
	unsigned *depth = xmalloc((n ? n : 1) * sizeof(unsigned));
	long *parent = xmalloc((n ? n : 1) * sizeof(long)), *stack;
	unsigned char *keep = xcalloc(n ? n : 1, 1);
	size_t *child, *first, *nchild, i, sp = 0;
	char key[256];

	stack = xmalloc((n + 1) * sizeof(long));
	for (i = 0; i < n; i++) {
		depth[i] = p->ops->depth(p->ctx, i);
		/* The parent is the last row above with a smaller depth. */
		while (sp && depth[stack[sp - 1]] >= depth[i])
			sp--;
		parent[i] = sp ? stack[sp - 1] : -1;
		stack[sp++] = (long)i;
	}
	for (i = n; i-- > 0;) {
		keep[i] |= match[i];
		if (keep[i] && parent[i] >= 0)
			keep[parent[i]] = 1;
		if (parent[i] >= 0)
			p->kids[parent[i]] = 1;
	}
	/* Children lists, parent -1 first (index n). */
	nchild = xcalloc(n + 1, sizeof(size_t));
	first = xcalloc(n + 2, sizeof(size_t));
	child = xmalloc((n ? n : 1) * sizeof(size_t));
	for (i = 0; i < n; i++)
		nchild[parent[i] < 0 ? n : (size_t)parent[i]]++;
	for (i = 0; i <= n; i++)
		first[i + 1] = first[i] + nchild[i];
	memset(nchild, 0, (n + 1) * sizeof(size_t));
	for (i = 0; i < n; i++) {
		size_t pi = parent[i] < 0 ? n : (size_t)parent[i];

		child[first[pi] + nchild[pi]++] = i;
	}
	for (i = 0; i <= n; i++)
		sort_rows(p, child + first[i], nchild[i]);
	/* Pre-order walk with an explicit stack of (list, position). */
	{
		size_t *ls = xmalloc((n + 1) * sizeof(size_t)), *pos = xmalloc((n + 1) * sizeof(size_t));
		size_t top = 0;

		ls[0] = n;
		pos[0] = 0;
		top = 1;
		while (top) {
			size_t l = ls[top - 1], r;

			if (pos[top - 1] >= nchild[l]) {
				top--;
				continue;
			}
			r = child[first[l] + pos[top - 1]++];
			if (!keep[r])
				continue;
			push(p, r);
			if (!p->kids[r])
				continue;
			row_key(p, r, key, sizeof(key));
			/* A filter opens folded rows that hold a match. */
			if (!p->filter[0] && panel_folded(p, key))
				continue;
			ls[top] = r;
			pos[top] = 0;
			top++;
		}
		free(ls);
		free(pos);
	}
	free(child);
	free(first);
	free(nchild);
	free(keep);
	free(stack);
	free(parent);
	free(depth);
}

static void remember_selection(struct panel *p)
{
	if (p->sel >= 0 && (size_t)p->sel < p->norder) {
		row_key(p, p->order[p->sel], p->selkey, sizeof(p->selkey));
		p->has_key = 1;
	}
}

void panel_refresh(struct panel *p, int width)
{
	size_t n = p->ops->count(p->ctx, width), i;
	unsigned char *match = xmalloc(n ? n : 1);
	char buf[8192], key[256];
	int show[32], widths[32];

	for (i = 0; i < 32; i++)
		show[i] = 1;
	if (p->cols && p->ncols <= 32 && width > 0)
		layout(p, width, show, widths);
	p->width = width;
	p->norder = 0;
	free(p->kids);
	p->kids = xcalloc(n ? n : 1, 1);
	p->nkids = n;
	for (i = 0; i < n; i++) {
		match[i] = 1;
		if (p->filter[0]) {
			row_text(p, i, buf, sizeof(buf), p->cols && p->ncols <= 32 ? show : NULL);
			match[i] = strcasestr(buf, p->filter) != NULL;
		}
	}
	if (p->ops->depth) {
		build_tree(p, n, match);
	} else {
		for (i = 0; i < n; i++)
			if (match[i])
				push(p, i);
		sort_rows(p, p->order, p->norder);
	}
	free(match);
	if (p->pager)
		return;
	/* The selection follows its row, found by key. */
	if (p->has_key) {
		int here = 0;

		if (p->sel >= 0 && (size_t)p->sel < p->norder) {
			row_key(p, p->order[p->sel], key, sizeof(key));
			here = !strcmp(key, p->selkey);
		}
		/* When the row is gone the selection stays at its position. */
		if (!here)
			panel_select_key(p, p->selkey);
	}
	if (p->sel >= (long)p->norder)
		p->sel = (long)p->norder - 1;
	if (p->sel < 0)
		p->sel = 0;
	remember_selection(p);
}

int panel_select_key(struct panel *p, const char *key)
{
	char k[256];
	size_t i;

	for (i = 0; i < p->norder; i++) {
		row_key(p, p->order[i], k, sizeof(k));
		if (!strcmp(k, key)) {
			p->sel = (long)i;
			remember_selection(p);
			return 0;
		}
	}
	return -1;
}

long panel_selected(const struct panel *p)
{
	if (p->pager || p->sel < 0 || (size_t)p->sel >= p->norder)
		return -1;
	return (long)p->order[p->sel];
}

void panel_set_filter(struct panel *p, const char *text)
{
	snprintf(p->filter, sizeof(p->filter), "%s", text);
	p->top = 0;
	panel_refresh(p, p->width);
}

int panel_find(struct panel *p, const char *text, int dir)
{
	long n = (long)p->norder, start = p->pager ? p->top : p->sel, k;
	char buf[8192];

	/* A pager goes on from the row found last while it is on screen: the
	 * draw keeps the last page whole, so a match on it leaves the top
	 * above the match, and going on from the top found it again. */
	if (p->pager && p->found >= p->top && p->found < n &&
	    p->found < p->top + (p->height > 0 ? p->height : 1))
		start = p->found;

	if (!n || !text[0])
		return -1;
	for (k = 1; k <= n; k++) {
		long i = ((start + (dir > 0 ? k : -k)) % n + n) % n;

		row_text(p, p->order[i], buf, sizeof(buf), NULL);
		if (strcasestr(buf, text)) {
			if (p->pager) {
				p->top = i;
				p->found = i;
			} else {
				p->sel = i;
				remember_selection(p);
			}
			return 0;
		}
	}
	return -1;
}

int panel_toggle_fold(struct panel *p)
{
	char key[256];
	long row = panel_selected(p);
	size_t i;

	if (row < 0 || (size_t)row >= p->nkids || !p->kids[row])
		return -1;
	row_key(p, (size_t)row, key, sizeof(key));
	for (i = 0; i < p->nfolds; i++) {
		if (!strcmp(p->folds[i], key)) {
			free(p->folds[i]);
			p->folds[i] = p->folds[--p->nfolds];
			panel_refresh(p, p->width);
			return 0;
		}
	}
	p->folds = xreallocarray(p->folds, p->nfolds + 1, sizeof(char *));
	p->folds[p->nfolds++] = xstrdup(key);
	panel_refresh(p, p->width);
	return 0;
}

/* ---- keys ---- */

static void move_by(struct panel *p, long d)
{
	long n = (long)p->norder;

	if (p->pager) {
		long max = n - (p->height > 0 ? p->height : 1);

		p->top += d;
		if (p->top > max)
			p->top = max;
		if (p->top < 0)
			p->top = 0;
		return;
	}
	if (!n)
		return;
	p->sel += d;
	if (p->sel >= n)
		p->sel = n - 1;
	if (p->sel < 0)
		p->sel = 0;
	remember_selection(p);
}

static int next_sortable(const struct panel *p, int dir)
{
	int n = (int)p->ncols, k, c = p->sort;

	for (k = 0; k < n; k++) {
		c = ((c < 0 ? (dir > 0 ? -1 : 0) : c) + dir + n) % n;
		if (p->cols[c].cmp)
			return c;
	}
	return -1;
}

unsigned panel_act(struct panel *p, enum action act)
{
	long page = p->height > 1 ? p->height - 1 : 1;

	switch (act) {
	case ACT_UP:
		move_by(p, -1);
		return UI_REDRAW;
	case ACT_DOWN:
		move_by(p, 1);
		return UI_REDRAW;
	case ACT_PAGE_UP:
		move_by(p, -page);
		return UI_REDRAW;
	case ACT_PAGE_DOWN:
		move_by(p, page);
		return UI_REDRAW;
	case ACT_HOME:
		move_by(p, -(long)p->norder - 1);
		return UI_REDRAW;
	case ACT_END:
		move_by(p, (long)p->norder + 1);
		return UI_REDRAW;
	case ACT_SORT_NEXT:
	case ACT_SORT_PREV: {
		int c = p->cols ? next_sortable(p, act == ACT_SORT_NEXT ? 1 : -1) : -1;

		if (c < 0)
			return 0;
		p->sort = c;
		panel_refresh(p, p->width);
		return UI_REDRAW;
	}
	default:
		return 0;
	}
}

/* ---- layout ---- */

/* Which columns fit in w (show[c] cleared for those that do not) and their
 * widths (width[c]; flexible columns share what is left). Columns go by
 * their drop order; then, still too wide, the sort column if it may go,
 * then figures from the right: the flexible column, what names the row,
 * keeps its room, and no figure is drawn cut ("72" of "72.83 s"). */
static int drop_rank(const struct panel *p, size_t c)
{
	int empty = c < sizeof(p->empty) * 8 && ((p->empty >> c) & 1);

	return (p->drop_at ? p->drop_at[c] : p->cols[c].drop) + (empty ? 1000 : 0);
}

/* A blank column before the first shown column when its text starts at its
 * left edge (the memory view's HOST): the title and the other views' tables
 * start one column in, and a name flush with the screen's edge reads as cut. */
static int lead_of(const struct panel *p, const int *show)
{
	size_t c;

	for (c = 0; c < p->ncols && c < 32; c++)
		if (show[c])
			return !p->cols[c].right && !p->cols[c].cells;
	return 0;
}

static void layout(const struct panel *p, int w, int *show, int *width)
{
	size_t c;
	int used, flex, pass = 0;

	if (p->hide_empty)
		for (c = 0; c < p->ncols && c < sizeof(p->empty) * 8; c++)
			if (((p->empty >> c) & 1) && (int)c != p->sort && p->cols[c].drop)
				show[c] = 0;

	for (;;) {
		int worst = -1;

		int nshown = 0;

		used = 0;
		flex = 0;
		for (c = 0; c < p->ncols; c++) {
			if (!show[c])
				continue;
			used += p->cols[c].width;
			flex += !p->cols[c].width;
			nshown++;
		}
		used += nshown > 1 ? nshown - 1 : 0; /* one space between columns */
		used += lead_of(p, show);
		if (used + flex * (p->flex_min ? p->flex_min : PANEL_FLEX_MIN) <= w)
			break;
		/* The most droppable column goes (the sort column last), one that
		 * holds nothing before any that says something. */
		for (c = 0; c < p->ncols; c++)
			if (show[c] && p->cols[c].drop && ((int)c != p->sort || pass) &&
			    (worst < 0 || drop_rank(p, c) > drop_rank(p, (size_t)worst)))
				worst = (int)c;
		if (worst < 0 && pass == 2) {
			/* The rightmost fixed column, while one other stays. */
			int fixed = 0;

			for (c = 0; c < p->ncols; c++)
				fixed += show[c] && p->cols[c].width;
			for (c = p->ncols; c-- > 0 && fixed > 1;)
				if (show[c] && p->cols[c].width) {
					worst = (int)c;
					break;
				}
		}
		if (worst < 0) {
			if (pass++ < 2)
				continue;
			break;
		}
		show[worst] = 0;
	}
	for (c = 0; c < p->ncols; c++) {
		width[c] = p->cols[c].width;
		if (show[c] && !p->cols[c].width)
			width[c] = flex ? (w - used) / flex : 0;
		if (width[c] < 0)
			width[c] = 0;
	}
}

/* Writes text into [x, x + w), shortened in the middle if it is longer. */
static void put_cell(const struct panel *p, struct cellrow *r, int x, int w, int right, int role,
		     unsigned flags, const char *text)
{
	char buf[4096]; /* w columns of up to four bytes */
	int len;

	utf8_elide(buf, sizeof(buf), text, w, p->mark);
	len = utf8_width(buf);
	cellrow_fill(r, x, w, role, flags);
	cellrow_put(r, right ? x + w - len : x, len, role, flags, buf);
}

/* With rows above and no room left for panel_mark_above (the steps' bar
 * reaching the right edge at 80 columns), the last column, when it is the
 * flexible one, names them in its header's place: "▲ 83 above", else
 * "▲ 83". name gets that text; 1 when it does. */
static int flex_says_above(const struct panel *p, size_t c, const int *show, int w, char *name,
			   size_t n)
{
	char m[48], t[48];
	size_t k;
	int len = panel_above_text(m, sizeof(m), p->top, p->up);

	if (!len || p->cols[c].width)
		return 0;
	for (k = c + 1; k < p->ncols && k < 32; k++)
		if (show[k])
			return 0;
	if (utf8_width(name) + len <= w)
		return 0; /* the name and the mark after it both fit */
	snprintf(t, sizeof(t), "%s %ld above", p->up ? p->up : "^", p->top);
	if (utf8_width(t) > w)
		snprintf(t, sizeof(t), "%s %ld", p->up ? p->up : "^", p->top);
	if (utf8_width(t) > w)
		return 0; /* the name stays */
	snprintf(name, n, "%s", t);
	return 1;
}

void panel_header(struct panel *p, struct cellrow *r, int w)
{
	int show[32], width[32], x = 0;
	size_t c;

	cellrow_fill(r, 0, w, ROLE_HEADER, 0);
	if (!p->cols)
		return;
	for (c = 0; c < p->ncols && c < 32; c++)
		show[c] = 1;
	layout(p, w, show, width);
	x = lead_of(p, show);
	for (c = 0; c < p->ncols && c < 32; c++) {
		char name[64];

		if (!show[c])
			continue;
		panel_head_name(name, sizeof(name), p->cols[c].name, (int)c == p->sort, width[c]);
		put_cell(p, r, x, width[c],
			 flex_says_above(p, c, show, width[c], name, sizeof(name)) ? 0 : p->cols[c].right,
			 ROLE_HEADER, 0, name);
		x += width[c] + 1;
	}
}

int panel_above_text(char *s, size_t n, long above, const char *up)
{
	if (above <= 0) {
		if (n)
			s[0] = '\0';
		return 0;
	}
	snprintf(s, n, " %s %ld above ", up ? up : "^", above);
	return utf8_width(s);
}

void panel_mark_above(struct cellrow *r, int w, long above, const char *up)
{
	char s[48];
	int len = panel_above_text(s, sizeof(s), above, up), x;

	if (!len || len >= w)
		return;
	for (x = w - len; x < w; x++)
		if (r->c[x].len && r->c[x].ch[0] != ' ')
			return; /* no room: a header's name is there */
	cellrow_put(r, w - len, len, ROLE_HEADER, 0, s);
}

void panel_head_name(char *buf, size_t n, const char *name, int sorted, int w)
{
	size_t k;

	snprintf(buf, n, "%s", name);
	if (!sorted)
		return;
	k = strlen(buf);
	if ((int)k + 1 > w && w >= 2 && (size_t)w - 1 < k)
		k = (size_t)w - 1;
	snprintf(buf + k, n - k, "v");
}

void panel_no_fit(char *buf, size_t n, int w)
{
	int k;

	for (k = 0; k < w && k + 1 < (int)n; k++)
		buf[k] = '#';
	if (n)
		buf[k] = '\0';
}

/* Column c's text for row, as the row shows it before fitting: the tree
 * column indented with its fold mark, a figure too wide for its column
 * as "###". */
static void cell_text(struct panel *p, size_t row, size_t c, int wc, char *cell, size_t n)
{
	const struct panel_column *col = &p->cols[c];
	/* Whole names: a C++ kernel's runs to a kilobyte or more, and
	 * elision keeps its tail (a cut one would show a middle). */
	char text[4096];

	text[0] = '\0';
	if (p->fit_flex && !col->width && !col->cells)
		p->fit_flex(p->ctx, row, text, sizeof(text), wc);
	else if (col->text)
		col->text(p->ctx, row, text, sizeof(text));
	if (p->ops->depth && (int)c == p->tree_col) {
		unsigned d = p->ops->depth(p->ctx, row), k;
		int o = 0;
		char key[256];

		for (k = 0; k < d && o < 64; k++)
			o += snprintf(cell + o, n - (size_t)o, "  ");
		if (row < p->nkids && p->kids[row]) {
			row_key(p, row, key, sizeof(key));
			o += snprintf(cell + o, n - (size_t)o, "%s ",
				      panel_folded(p, key) && !p->filter[0] ? p->closed : p->open);
		}
		snprintf(cell + o, n - (size_t)o, "%s", text);
	} else if (col->right && col->width && utf8_width(text) > wc) {
		panel_no_fit(cell, n, wc);
	} else {
		snprintf(cell, n, "%s", text);
	}
}

#define CELL_MAX (4096 + 160)

/* pre: column pre_col's text already fitted (panel_render's names told
 * apart), or NULL. */
static void draw_row(struct panel *p, size_t row, int selected, struct cellrow *r, int w,
		     const int *show, const int *width, const char *pre, size_t pre_col)
{
	int role = ROLE_TEXT, x = 0;
	unsigned flags = 0;
	size_t c;

	if (p->ops->style)
		p->ops->style(p->ctx, row, &role, &flags);
	if (selected)
		role = ROLE_SELECT;
	cellrow_fill(r, 0, w, role, flags);
	if (!p->cols) {
		p->ops->row(p->ctx, row, r);
		if (selected)
			for (x = 0; x < r->w; x++)
				r->c[x].role = ROLE_SELECT;
		return;
	}
	x = lead_of(p, show);
	for (c = 0; c < p->ncols && c < 32; c++) {
		const struct panel_column *col = &p->cols[c];
		char cell[CELL_MAX];

		if (!show[c])
			continue;
		if (col->cells) {
			col->cells(p->ctx, row, r, x, width[c]);
		} else {
			if (pre && c == pre_col)
				snprintf(cell, sizeof(cell), "%s", pre);
			else
				cell_text(p, row, c, width[c], cell, sizeof(cell));
			put_cell(p, r, x, width[c], col->right, role, flags, cell);
		}
		x += width[c];
		if (x < w)
			cellrow_fill(r, x, 1, role, flags);
		x++;
	}
}

/* The visible rows' names in the flexible column, fitted to it, with names
 * that would read alike told apart (utf8_elide_apart): rows top.. of the
 * order, n of them. NULL when there is no such column or no memory. */
static char **fit_names(struct panel *p, long top, int n, const int *show, const int *width,
			size_t *col)
{
	char **out, *buf, **src;
	size_t c, k, cap;
	int w = 0;

	for (c = 0; c < p->ncols && c < 32; c++)
		if (show[c] && !p->cols[c].width && !p->cols[c].cells &&
		    (p->cols[c].text || p->fit_flex))
			break;
	if (c >= p->ncols || c >= 32 || n < (p->flex_tail ? 1 : 2) || (w = width[c]) < 1)
		return NULL;
	*col = c;
	cap = (size_t)w * 4 + 16; /* w columns of up to 4 bytes, and the marks */
	out = calloc((size_t)n * 2, sizeof(*out));
	buf = malloc((size_t)n * (cap + CELL_MAX));
	if (!out || !buf) {
		free(out);
		free(buf);
		return NULL;
	}
	src = out + n;
	for (k = 0; k < (size_t)n; k++) {
		out[k] = buf + k * (cap + CELL_MAX);
		src[k] = out[k] + cap;
		cell_text(p, p->order[top + (long)k], c, w, src[k], CELL_MAX);
		utf8_elide(out[k], cap, src[k], w, p->mark);
	}
	if (p->flex_tail && !(p->ops->depth && (int)c == p->tree_col) &&
	    panel_fit_heads(p, out, cap, src, p->order + top, n, w))
		return out;
	utf8_elide_apart(out, cap, (const char *const *)src, (size_t)n, w, p->mark);
	return out;
}

static void free_names(char **names)
{
	if (names) {
		free(names[0]);
		free(names);
	}
}

void panel_render(struct panel *p, int h, int w,
		  void (*emit)(void *arg, int i, const struct cellrow *r), void *arg)
{
	struct cellrow r;
	int show[32], width[32], i = 0, body;
	size_t c, ncol = 0;
	char **names = NULL;

	if (h <= 0 || w <= 0)
		return;
	panel_refresh(p, w);
	cellrow_init(&r, w);
	for (c = 0; c < p->ncols && c < 32; c++)
		show[c] = 1;
	if (p->cols)
		layout(p, w, show, width);
	if (p->header)
		i++; /* the header is drawn once the first row shown is known */
	body = h - i;
	p->height = body;
	/* Keep the selection on screen; in pager mode keep the page full. */
	if (p->pager) {
		if (p->top > (long)p->norder - body)
			p->top = (long)p->norder - body;
	} else {
		if (p->sel < p->top)
			p->top = p->sel;
		if (p->sel >= p->top + body)
			p->top = p->sel - body + 1;
		/* A taller window shows the first rows again rather than
		 * blank lines under the last (the selection stays on screen). */
		if (body > 0 && p->top > (long)p->norder - body)
			p->top = (long)p->norder - body;
	}
	if (p->top < 0)
		p->top = 0;
	if (p->header) {
		panel_header(p, &r, w);
		panel_mark_above(&r, w, p->top, p->up);
		emit(arg, 0, &r);
	}
	if (p->cols) {
		long n = (long)p->norder - p->top < body ? (long)p->norder - p->top : body;

		names = n > (p->flex_tail ? 0 : 1) ? fit_names(p, p->top, (int)n, show, width, &ncol)
						    : NULL;
	}
	for (; i < h; i++) {
		long k = p->top + (i - (h - body));

		if (k >= (long)p->norder) {
			cellrow_fill(&r, 0, w, ROLE_TEXT, 0);
		} else {
			draw_row(p, p->order[k], !p->pager && k == p->sel, &r, w, show, width,
				 names ? names[k - p->top] : NULL, ncol);
		}
		emit(arg, i, &r);
	}
	free_names(names);
	cellrow_fini(&r);
}

void panel_draw_row(struct panel *p, size_t row, struct cellrow *r, int w, int selected)
{
	int show[32], width[32];
	size_t c;

	for (c = 0; c < p->ncols && c < 32; c++)
		show[c] = 1;
	if (p->cols)
		layout(p, w, show, width);
	draw_row(p, row, selected, r, w, show, width, NULL, 0);
}
