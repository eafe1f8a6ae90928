/* utf8: see utf8.h. */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_len(const char *s)
{
	unsigned char c = (unsigned char)*s;
	size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1, k;

	if (!c)
		return 0;
	for (k = 1; k < len; k++)
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return 1;
	return len;
}

int utf8_width(const char *s)
{
	int w = 0;

	for (; *s; s += utf8_len(s))
		w++;
	return w;
}

int utf8_width_n(const char *s, size_t n)
{
	const char *e = s + n;
	int w = 0;

	while (s < e && *s) {
		s += utf8_len(s);
		w++;
	}
	return w;
}

/* The byte offset where column col starts (or the end). */
static size_t byte_at(const char *s, int col)
{
	size_t off = 0;

	for (; col > 0 && s[off]; col--)
		off += utf8_len(s + off);
	return off;
}

char *utf8_elide(char *out, size_t n, const char *s, int w, const char *mark)
{
	int width = utf8_width(s), head, tail;
	size_t hb, tb, ml = strlen(mark), len;

	if (!n)
		return out;
	if (width <= w || w <= 0) {
		len = w <= 0 ? 0 : strlen(s);
		if (len >= n) { /* out is too small: whole characters only */
			len = n - 1;
			while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
				len--;
		}
		memcpy(out, s, len);
		out[len] = '\0';
		return out;
	}
	if (w == 1) {
		snprintf(out, n, "%s", mark);
		return out;
	}
	head = (w - 1) / 3;
	tail = w - 1 - head;
	hb = byte_at(s, head);
	tb = byte_at(s, width - tail);
	len = hb + ml + strlen(s + tb);
	if (len >= n)
		return utf8_elide(out, n, s, w - 1, mark); /* never cut a sequence */
	memcpy(out, s, hb);
	memcpy(out + hb, mark, ml);
	strcpy(out + hb + ml, s + tb);
	return out;
}

/* Columns of s up to byte off (a character boundary or inside one). */
static int col_of(const char *s, size_t off)
{
	return utf8_width_n(s, off);
}

/* The first byte where a and b differ, moved back to a character start. */
static size_t first_diff(const char *a, const char *b)
{
	size_t k = 0;

	while (a[k] && a[k] == b[k])
		k++;
	while (k && ((unsigned char)a[k] & 0xc0) == 0x80)
		k--;
	return k;
}

/* s in w columns as its head (the plain elision's, so what told it
 * apart there still does), mark, a window holding column c, mark, a
 * shorter tail; one mark when the window meets the tail. 0 when w leaves
 * too little room for the window. */
static int elide_at(char *out, size_t n, const char *s, int w, int c, const char *mark)
{
	int len = utf8_width(s), mw = utf8_width(mark), head = (w - mw) / 3;
	int room = w - 2 * mw - head, tail = room / 3, win = room - tail, a, k, np = 0;
	size_t ml = strlen(mark), o = 0, parts[3][2];

	if (win < 4 || len <= w || c < head)
		return 0;
	/* Some context before c: from the start of its path component when
	 * that leaves a third of the window after c, else a third before. */
	a = c - win / 3;
	for (k = c; k > c - win * 2 / 3 && k > 0; k--) {
		const char *p = s + byte_at(s, k - 1);

		if (*p == '/' || *p == ' ' || *p == '(') {
			a = k;
			break;
		}
	}
	if (a < head + 1)
		a = head + 1;
	parts[np][0] = 0, parts[np++][1] = byte_at(s, head);
	if (a + win >= len - tail - 1) { /* the window joins the tail */
		parts[np][0] = byte_at(s, len - tail - win - mw), parts[np++][1] = strlen(s);
	} else {
		parts[np][0] = byte_at(s, a), parts[np++][1] = byte_at(s, a + win);
		parts[np][0] = byte_at(s, len - tail), parts[np++][1] = strlen(s);
	}
	for (k = 0; k < np; k++) {
		size_t pl = parts[k][1] - parts[k][0];

		if (o + pl + ml + 1 > n)
			return 0;
		if (k) {
			memcpy(out + o, mark, ml);
			o += ml;
		}
		memcpy(out + o, s + parts[k][0], pl);
		o += pl;
	}
	out[o] = '\0';
	return 1;
}

/* The column to show so that s[i] reads apart from the texts whose plain
 * elisions (def[]) read as its own: the latest of its first differences
 * from them (where the text most like it differs), which the plain
 * elision hid; -1 when no other text reads alike. */
static int apart_col(const char *const *s, char *const *def, size_t k, size_t i, int w, int mw)
{
	size_t j, p = 0;
	int head = (w - mw) / 3, alike = 0;

	for (j = 0; j < k; j++) {
		size_t d;

		if (j == i || strcmp(def[i], def[j]) || !strcmp(s[i], s[j]))
			continue;
		alike = 1;
		if ((d = first_diff(s[i], s[j])) > p)
			p = d;
	}
	return alike && col_of(s[i], p) >= head ? col_of(s[i], p) : -1;
}

void utf8_elide_apart(char *const *out, size_t n, const char *const *s, size_t k, int w,
		      const char *mark)
{
	char **def, *buf;
	size_t i, j;
	int mw = utf8_width(mark), changed = 0, pass;

	if (k < 2 || k > 256 || !n)
		return; /* a screen's rows, or a report's top: pairs are cheap */
	def = malloc(k * sizeof(*def));
	buf = malloc(k * n);
	if (!def || !buf) {
		free(def);
		free(buf);
		return;
	}
	for (i = 0; i < k; i++) {
		def[i] = buf + i * n;
		memcpy(def[i], out[i], strlen(out[i]) + 1);
	}
	for (i = 0; i < k; i++) {
		int c = apart_col(s, def, k, i, w, mw);

		if (c >= 0 && elide_at(out[i], n, s[i], w, c, mark))
			changed = 1;
	}
	/* Never worse than before: two texts that read apart and now read
	 * alike go back to their plain elisions. */
	for (pass = 0; changed && pass < 4; pass++) {
		changed = 0;
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				if (j != i && !strcmp(out[i], out[j]) && strcmp(s[i], s[j]) &&
				    strcmp(def[i], def[j]) && strcmp(out[i], def[i])) {
					memcpy(out[i], def[i], strlen(def[i]) + 1);
					changed = 1;
					break;
				}
	}
	free(def);
	free(buf);
}
