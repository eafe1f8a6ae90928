/* utf8: see utf8.h. */
#include "utf8.h"

#include <stdio.h>
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
