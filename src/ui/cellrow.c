/* cellrow: see cellrow.h. */
#include "cellrow.h"

#include <stdlib.h>
#include <string.h>

#include "../util/utf8.h"
#include "../util/xalloc.h"

void cellrow_init(struct cellrow *r, int w)
{
	r->w = w > 0 ? w : 0;
	r->c = xcalloc(r->w ? (size_t)r->w : 1, sizeof(*r->c));
}

void cellrow_fini(struct cellrow *r)
{
	free(r->c);
	r->c = NULL;
	r->w = 0;
}

void cellrow_fill(struct cellrow *r, int x, int w, int role, unsigned flags)
{
	int k;

	for (k = x < 0 ? 0 : x; k < x + w && k < r->w; k++) {
		r->c[k].len = 0;
		r->c[k].role = (uint8_t)role;
		r->c[k].flags = (uint8_t)flags;
	}
}

int cellrow_put(struct cellrow *r, int x, int w, int role, unsigned flags, const char *s)
{
	int n = 0;

	if (x < 0)
		return 0;
	while (*s && n < w && x + n < r->w) {
		struct cell *c = &r->c[x + n];
		size_t len = utf8_len(s);
		unsigned char b = (unsigned char)*s;

		if (b < 0x20 || b == 0x7f || (b >= 0x80 && len == 1)) {
			c->ch[0] = '?';
			c->len = 1;
		} else {
			memcpy(c->ch, s, len);
			c->len = (uint8_t)len;
		}
		c->role = (uint8_t)role;
		c->flags = (uint8_t)flags;
		s += len;
		n++;
	}
	return n;
}

char *cellrow_text(const struct cellrow *r, char *buf, size_t n)
{
	size_t o = 0;
	int k;

	for (k = 0; k < r->w && o + 5 < n; k++) {
		if (r->c[k].len) {
			memcpy(buf + o, r->c[k].ch, r->c[k].len);
			o += r->c[k].len;
		} else {
			buf[o++] = ' ';
		}
	}
	if (n)
		buf[o < n ? o : n - 1] = '\0';
	return buf;
}
