/* texttab: see texttab.h. */
#include "texttab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../util/timefmt.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"

int tt_cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Byte offset of the c-th column of s (or its end). */
static size_t col_off(const char *s, int c)
{
	size_t i = 0;

	while (s[i] && c > 0) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		c--;
	}
	return i;
}

char *tt_elide(char *buf, size_t n, const char *s, int w)
{
	int len = tt_cols(s), head, tail;
	size_t hb, tb;

	if (w <= 0 || len <= w) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	if (w <= 2) {
		hb = col_off(s, w);
		snprintf(buf, n, "%.*s", (int)hb, s);
		return buf;
	}
	/* A third of the room for the head, the rest for the tail. */
	head = (w - 2) / 3;
	tail = w - 2 - head;
	hb = col_off(s, head);
	tb = col_off(s, len - tail);
	snprintf(buf, n, "%.*s..%s", (int)hb, s, s + tb);
	return buf;
}

void tt_init(struct texttab *t, const struct tt_col *cols, size_t n, int width, int indent,
	     int flex_min)
{
	int used = indent, most = 0, drop;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = n < TT_MAX_COLS ? n : TT_MAX_COLS;
	t->width = width;
	t->indent = indent;
	t->flex_min = flex_min;
	for (i = 0; i < t->ncols; i++) {
		t->show[i] = 1;
		used += cols[i].width ? cols[i].width + 1 : 0;
		most = cols[i].drop > most ? cols[i].drop : most;
	}
	if (width <= 0)
		return;
	for (drop = most; drop >= 1 && width - used < flex_min; drop--)
		for (i = 0; i < t->ncols; i++)
			if (cols[i].drop == drop && t->show[i]) {
				t->show[i] = 0;
				used -= cols[i].width + 1;
			}
}

static void put_cell(struct texttab *t, struct strbuf *o, size_t i, const char *text, int *x)
{
	const struct tt_col *c = &t->cols[i];
	char buf[4096], *out;
	size_t len;
	int w = c->width, pad;

	if (!w) {
		if (t->width <= 0) {
			/* No width (--wide): the whole text, however long. */
			strbuf_puts(o, text);
			*x += tt_cols(text);
			return;
		}
		w = t->width - *x;
		if (w < 1 && !t->over)
			return;
		/* A figure ran past its column: the name keeps a few
		 * columns (the row is past the width already). */
		if (w < 8 && t->over)
			w = 8;
	}
	if (c->right && c->width && tt_cols(text) > w) {
		/* A figure is never cut ("5..200" would read as another
		 * number): it runs past its column, and the row with it. */
		strbuf_puts(o, text);
		*x += tt_cols(text);
		t->over = 1;
		return;
	}
	/* A text of more than w columns elides to at most its own bytes. */
	len = strlen(text) + 1;
	out = len <= sizeof(buf) ? buf : xmalloc(len);
	tt_elide(out, out == buf ? sizeof(buf) : len, text, w);
	pad = c->width ? c->width - tt_cols(out) : 0;
	if (c->right)
		while (pad-- > 0)
			strbuf_add(o, " ", 1);
	strbuf_puts(o, out);
	if (!c->right && c->width)
		while (pad-- > 0)
			strbuf_add(o, " ", 1);
	*x += c->width ? c->width : tt_cols(out);
	if (out != buf)
		free(out);
}

static void line(struct texttab *t, struct strbuf *o, const char *const *cells, int head)
{
	int x = t->indent, first = 1;
	size_t i, last = 0;

	t->over = 0;
	for (i = 0; i < t->ncols; i++)
		if (t->show[i])
			last = i;
	strbuf_addf(o, "%*s", t->indent, "");
	for (i = 0; i < t->ncols; i++) {
		if (!t->show[i])
			continue;
		if (!first) {
			strbuf_add(o, " ", 1);
			x++;
		}
		first = 0;
		put_cell(t, o, i, head ? t->cols[i].head : cells[i], &x);
	}
	(void)last;
	/* No trailing blanks. */
	while (o->len && o->buf[o->len - 1] == ' ')
		o->buf[--o->len] = '\0';
	strbuf_add(o, "\n", 1);
}

int tt_flex_width(const struct texttab *t)
{
	int w = t->width - t->indent;
	size_t c;

	if (t->width <= 0)
		return 0;
	for (c = 0; c < t->ncols; c++)
		if (t->show[c] && t->cols[c].width)
			w -= t->cols[c].width + 1;
	return w < 1 ? 1 : w;
}

char **tt_fit_flex(const struct texttab *t, const char *const *texts, size_t n)
{
	char **fit = xcalloc(n ? n : 1, sizeof(*fit));
	size_t i, cap;
	int w = tt_flex_width(t);

	if (w <= 1) {
		for (i = 0; i < n; i++)
			fit[i] = xstrdup(texts[i]); /* the whole text: no width */
		return fit;
	}
	cap = (size_t)w * 4 + 16; /* w columns of up to four bytes */
	for (i = 0; i < n; i++)
		tt_elide(fit[i] = xmalloc(cap), cap, texts[i], w);
	utf8_elide_apart(fit, cap, texts, n, w, "..");
	return fit;
}

void tt_fit_free(char **fit, size_t n)
{
	size_t i;

	for (i = 0; fit && i < n; i++)
		free(fit[i]);
	free(fit);
}

void tt_head(struct texttab *t, struct strbuf *o)
{
	line(t, o, NULL, 1);
}

void tt_row(struct texttab *t, struct strbuf *o, const char *const *cells)
{
	line(t, o, cells, 0);
}

int tt_output_width(int wide)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (wide)
		return 0;
	if (c && *c) {
		v = strtol(c, &end, 10);
		if (!*end && v >= 20 && v < 100000)
			return (int)v;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}


void tt_wrap(struct strbuf *o, const char *prefix, const char *text, int indent, int width)
{
	const char *p = text;
	int col, first = 1;

	strbuf_puts(o, prefix);
	col = tt_cols(prefix);
	while (*p) {
		const char *w = fmt_word_end(p);
		int len = utf8_width_n(p, (size_t)(w - p)); /* columns, not bytes */

		if (!first) {
			if (width > 0 && col + 1 + len > width) {
				strbuf_addf(o, "\n%*s", indent, "");
				col = indent;
			} else {
				strbuf_puts(o, " ");
				col++;
			}
		}
		strbuf_add(o, p, (size_t)(w - p));
		col += len;
		first = 0;
		p = w;
		while (*p == ' ')
			p++;
	}
	strbuf_puts(o, "\n");
}
