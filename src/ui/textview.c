/* textview: see textview.h. */
#include "textview.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"

static size_t tv_count(void *ctx, int width)
{
	return textview_rows(ctx, width);
}

static void tv_row(void *ctx, size_t i, struct cellrow *r)
{
	struct textview *tv = ctx;
	const struct tv_row *row = &tv->rows[i];
	const struct tv_line *l = &tv->lines[row->line];
	char buf[1024];
	size_t len = row->len < sizeof(buf) - 1 ? row->len : sizeof(buf) - 1;
	int x = row->cont ? l->indent : 0;

	memcpy(buf, l->text + row->off, len);
	buf[len] = '\0';
	cellrow_fill(r, 0, r->w, l->role, l->flags);
	cellrow_put(r, x, r->w - x, l->role, l->flags, buf);
}

static void tv_text(void *ctx, size_t i, char *buf, size_t n)
{
	struct textview *tv = ctx;
	const struct tv_row *row = &tv->rows[i];
	size_t len = row->len < n - 1 ? row->len : n - 1;

	memcpy(buf, tv->lines[row->line].text + row->off, len);
	buf[len] = '\0';
}

static const struct panel_ops tv_ops = { tv_count, NULL, tv_row, tv_text, NULL, NULL };

struct panel *textview_panel(struct textview *tv)
{
	if (tv->panel.ops != &tv_ops) {
		panel_init(&tv->panel, &tv_ops, tv, NULL, 0);
		tv->panel.pager = 1;
		tv->wrapped_w = -1;
	}
	return &tv->panel;
}

void textview_clear(struct textview *tv)
{
	size_t i;

	textview_panel(tv);
	for (i = 0; i < tv->nlines; i++)
		free(tv->lines[i].text);
	tv->nlines = 0;
	tv->nrows = 0;
	tv->wrapped_w = -1;
	tv->panel.top = 0;
	tv->panel.found = -1; /* a new text: a find starts from its top */
}

void textview_add(struct textview *tv, int role, unsigned flags, int indent, const char *fmt, ...)
{
	va_list ap;
	char *s;

	textview_panel(tv);
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	if (tv->nlines == tv->cap) {
		tv->cap = tv->cap ? tv->cap * 2 : 32;
		tv->lines = xreallocarray(tv->lines, tv->cap, sizeof(*tv->lines));
	}
	tv->lines[tv->nlines++] = (struct tv_line){ role, flags, indent, s };
	tv->wrapped_w = -1;
}

static void add_row(struct textview *tv, size_t line, size_t off, size_t len, int cont)
{
	if (tv->nrows == tv->rcap) {
		tv->rcap = tv->rcap ? tv->rcap * 2 : 64;
		tv->rows = xreallocarray(tv->rows, tv->rcap, sizeof(*tv->rows));
	}
	tv->rows[tv->nrows++] = (struct tv_row){ line, off, len, cont };
}

/* Wraps line i: as many characters as fit, broken after the last space
 * when there is one in the second half of the row, never between a figure
 * and its unit ("189.17 ms"); else after the last '/', ',' or ':' there
 * that no ':' follows (a path, an op's scopes, a C++ name: "layer_17/"
 * and "dropout_1", not "layer_17/dr" and "opout_1"; "Eigen::" and
 * "Tensor", not "Eigen:" and ":Tensor"). */
static void wrap_line(struct textview *tv, size_t i, int width)
{
	const struct tv_line *l = &tv->lines[i];
	const char *s = l->text;
	size_t off = 0, total = strlen(s);
	int cont = 0;

	if (!total) {
		add_row(tv, i, 0, 0, 0);
		return;
	}
	while (off < total) {
		int avail = width - (cont ? l->indent : 0), n = 0, brk = -1, soft = -1;
		size_t o = off, brk_off = 0, soft_off = 0;

		if (avail < 8)
			avail = width > 8 ? 8 : width > 0 ? width : 1;
		while (s[o] && n < avail) {
			if (s[o] == ' ' && n >= avail / 2 && !fmt_is_unit(s + o + 1)) {
				brk = n;
				brk_off = o;
			} else if (n >= avail / 2 &&
				   (s[o] == '/' || s[o] == ',' || (s[o] == ':' && s[o + 1] != ':'))) {
				soft = n + 1;
				soft_off = o + 1;
			}
			o += utf8_len(s + o);
			n++;
		}
		if (s[o] && brk > 0) {
			add_row(tv, i, off, brk_off - off, cont);
			off = brk_off + 1; /* the space at the break is dropped */
		} else if (s[o] && soft > 0 && s[soft_off]) {
			add_row(tv, i, off, soft_off - off, cont); /* the mark stays */
			off = soft_off;
		} else {
			add_row(tv, i, off, o - off, cont);
			off = o;
		}
		/* Continuation rows start at the next word. */
		while (off < total && s[off] == ' ')
			off++;
		cont = 1;
	}
}

size_t textview_rows(struct textview *tv, int width)
{
	size_t i;

	if (tv->wrapped_w == width)
		return tv->nrows;
	tv->nrows = 0;
	for (i = 0; i < tv->nlines; i++)
		wrap_line(tv, i, width);
	tv->wrapped_w = width;
	return tv->nrows;
}

void textview_fini(struct textview *tv)
{
	size_t i;

	for (i = 0; i < tv->nlines; i++)
		free(tv->lines[i].text);
	free(tv->lines);
	free(tv->rows);
	if (tv->panel.ops)
		panel_fini(&tv->panel);
	memset(tv, 0, sizeof(*tv));
}
