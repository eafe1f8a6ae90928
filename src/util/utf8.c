/* utf8: see utf8.h. */
#include "utf8.h"

#include <stdint.h>
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
	int width = utf8_width(s), head, tail, mw;
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
	/* A mark of two columns ("..", the report's) takes two. */
	mw = utf8_width(mark);
	if (w <= mw) {
		snprintf(out, n, "%s", mark);
		return out;
	}
	head = (w - mw) / 3;
	tail = w - mw - head;
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

/* Where a window on column c should start, win columns wide: at the
 * start of c's path component when that leaves a third of the window
 * after c, else a third of the window before c. */
static int window_start(const char *s, int c, int win)
{
	size_t b = byte_at(s, c);
	int k;

	/* Back a character at a time (a broken byte may count as less than
	 * its column here: only where the window starts moves). */
	for (k = c; k > c - win * 2 / 3 && k > 0 && b; k--) {
		do
			b--;
		while (b && ((unsigned char)s[b] & 0xc0) == 0x80);
		if (s[b] == '/' || s[b] == ' ' || s[b] == '(')
			return k;
	}
	return c - win / 3;
}

/* Most windows elide_at() opens: a text that differs from its likes in
 * three places (replica, layer, dropout) shows all three, and a fourth
 * where its kind differs too (a kernel's template types, before its op:
 * with three, 48 of the V100's kernel rows of one op name read alike at
 * every width from 47 to 121 columns, the kind taking the layer's
 * window). */
#define APART_WIN 4

/*
 * s in w columns showing columns cin[0..nc) (nc 1 to APART_WIN, ascending,
 * each hidden by the plain elision): the plain elision's head (so what
 * told s apart there still does), a window on each, a shorter tail, with a
 * mark wherever text is left out. Writes out (n bytes) only when the whole
 * result fits; 0 when it does not, or w leaves too little room.
 */
static int elide_at(char *out, size_t n, const char *s, int w, const int *cin, int nc,
		    const char *mark)
{
	int len = utf8_width(s), mw = utf8_width(mark), head = (w - mw) / 3, room, tail, win;
	int c[APART_WIN], a[APART_WIN], e[APART_WIN], k, np = 0;
	int from[APART_WIN + 2], to[APART_WIN + 2];
	size_t ml = strlen(mark), o = 0, bytes = 0;

	if (nc < 1 || nc > APART_WIN)
		return 0;
	memcpy(c, cin, (size_t)nc * sizeof(*c));
	/* Close together: one window from the first shows both (it starts
	 * at most two thirds of its width before the first). */
	for (k = 1; k < nc;) {
		int r = w - head - nc * mw, wide = (r - r / (nc + 1)) / (nc - 1 ? nc - 1 : 1);

		if (c[k] - c[k - 1] < wide / 3) {
			memmove(c + k, c + k + 1, (size_t)(nc - k - 1) * sizeof(*c));
			nc--;
		} else {
			k++;
		}
	}
	room = w - head - (nc + 1) * mw;
	tail = room / (nc + 2);
	win = nc ? (room - tail) / nc : 0;
	if (win < 4 || len <= w || c[0] < head)
		return 0;
	tail = room - win * nc; /* what rounding left goes to the tail */
	for (k = 0; k < nc; k++) {
		a[k] = window_start(s, c[k], win);
		/* A place just past the last window would fall under the
		 * mark between the two: that window moves on over it, while
		 * its own place stays in it ("layer_9/dropout_2", not
		 * "layer_9/dropout_..."). */
		if (k && c[k] == e[k - 1] && a[k - 1] < c[k - 1]) {
			a[k - 1]++;
			e[k - 1]++;
		}
		if (a[k] < (k ? e[k - 1] + 1 : head))
			a[k] = k ? e[k - 1] + 1 : head;
		e[k] = a[k] + win;
	}
	if (a[0] == head)
		tail += mw; /* the first window continues the head: no mark */
	if (e[nc - 1] > len - tail - 1) {
		/* The last window runs into the tail: the tail starts there
		 * (longer, in the room of the window and its mark). */
		tail = len - a[nc - 1];
		nc--;
	}
	from[np] = 0, to[np++] = nc && a[0] == head ? e[0] : head;
	for (k = nc && a[0] == head; k < nc; k++)
		from[np] = a[k], to[np++] = e[k];
	from[np] = len - tail, to[np++] = len;
	for (k = 0, room = 0; k < np; k++) {
		bytes += byte_at(s, to[k]) - byte_at(s, from[k]) + (k ? ml : 0);
		room += to[k] - from[k] + (k ? mw : 0);
	}
	if (bytes + 1 > n || room > w || from[np - 1] < to[np - 2])
		return 0;
	for (k = 0; k < np; k++) {
		size_t b0 = byte_at(s, from[k]), b1 = byte_at(s, to[k]);

		if (k) {
			memcpy(out + o, mark, ml);
			o += ml;
		}
		memcpy(out + o, s + b0, b1 - b0);
		o += b1 - b0;
	}
	out[o] = '\0';
	return 1;
}

struct apart_key {
	const char *key;
	size_t i;
};

static int apart_cmp(const void *x, const void *y)
{
	const struct apart_key *p = x, *q = y;
	int c = strcmp(p->key, q->key);

	return c ? c : (p->i > q->i) - (p->i < q->i);
}

/* The first differences, in bytes, of each text of the group key[g0..g1)
 * (sorted by text) from the others that are not the same text: early[]
 * the earliest, late[] the latest (from the texts next to it in order,
 * which share the most with it; the earliest is with the group's first or
 * last). Indexed by text (key[].i); SIZE_MAX when every other is the same. */
static void group_diffs(const struct apart_key *key, size_t g0, size_t g1,
			const char *const *s, size_t *early, size_t *late)
{
	size_t r0, r1, j;

	for (r0 = g0; r0 < g1; r0 = r1) {
		size_t e = SIZE_MAX, l = 0, d;
		const char *t = s[key[r0].i];

		for (r1 = r0 + 1; r1 < g1 && !strcmp(s[key[r1].i], t); r1++)
			;
		if (r0 > g0) {
			l = first_diff(t, s[key[r0 - 1].i]);
			e = first_diff(t, s[key[g0].i]);
		}
		if (r1 < g1) {
			d = first_diff(t, s[key[r1].i]);
			l = d > l ? d : l;
			d = first_diff(t, s[key[g1 - 1].i]);
			e = d < e ? d : e;
		}
		for (j = r0; j < r1; j++) {
			early[key[j].i] = e;
			late[key[j].i] = l;
		}
	}
}

/* The bytes of s before its instance number ("fusion.6", "fusion.1.0",
 * "add_3" end in one): what names the kind of thing s is. */
static size_t stem_len(const char *s)
{
	size_t n = strlen(s), k = n;

	for (;;) {
		size_t d = k;

		while (d && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		if (d == k || d < 2 || (s[d - 1] != '.' && s[d - 1] != '_'))
			return k;
		k = d - 1;
	}
}

/* The tail of an elided text (after its first mark) without its instance
 * number: its n bytes at *t. */
static void tail_of(const char *out, const char *mark, const char **t, size_t *n)
{
	const char *m = strstr(out, mark);

	*t = m ? m + strlen(mark) : out;
	*n = stem_len(*t);
}

/* Whether text ii's tail reads like that of a text of another kind in its
 * group key[g0..g1) but for a letter or two next to the mark ("e_slice_"
 * and "c_slice_"): its kind is not to be told there. Tails that differ
 * further ("p_convert_fusion", "ut_reduce_fusion") tell it already. */
static int tail_alike(char *const *out, const char *const *stem, const struct apart_key *key,
		      size_t g0, size_t g1, size_t ii, const char *mark)
{
	const char *a, *b;
	size_t na, nb, j, c;

	tail_of(out[ii], mark, &a, &na);
	for (j = g0; j < g1; j++) {
		size_t jj = key[j].i;

		if (jj == ii || !strcmp(stem[jj], stem[ii]))
			continue;
		tail_of(out[jj], mark, &b, &nb);
		for (c = 0; c < na && c < nb && a[na - 1 - c] == b[nb - 1 - c]; c++)
			;
		if (c + 2 >= na && c + 2 >= nb)
			return 1;
	}
	return 0;
}

/* Pass 1's choice for the text at place i of a group g0..g1 sorted by
 * text (lcp[j]: the first difference of the texts at j and j + 1): whether
 * more of the group first differ from it where it differs from its
 * neighbours (late) than where it differs from the group's ends (early).
 * The earliest tells a replica apart where a group holds two; but where
 * one text of the group is unlike the rest (the encoder's own dropout
 * beside 24 layers' dropouts), it tells that one apart and no other. */
static int late_splits(const size_t *lcp, size_t g0, size_t g1, size_t i, size_t early,
		       size_t late)
{
	size_t ne = 0, nl = 0, m, j;

	if (late == early || g1 - g0 > 4096)
		return 0;
	for (m = SIZE_MAX, j = i; j > g0; j--) {
		m = lcp[j - 1] < m ? lcp[j - 1] : m;
		ne += m == early;
		nl += m == late;
	}
	for (m = SIZE_MAX, j = i; j + 1 < g1; j++) {
		m = lcp[j] < m ? lcp[j] : m;
		ne += m == early;
		nl += m == late;
	}
	return nl > ne;
}

/* Column c added to the ascending list v of nc (at most APART_WIN) when it
 * lies past the head (the plain elision shows what is before) and is not
 * there yet; returns the new count. */
static int col_add(int *v, int nc, int c, int head)
{
	int k, j;

	if (c < head || nc >= APART_WIN)
		return nc;
	for (k = 0; k < nc && v[k] < c; k++)
		;
	if (k < nc && v[k] == c)
		return nc;
	for (j = nc; j > k; j--)
		v[j] = v[j - 1];
	v[k] = c;
	return nc + 1;
}

void utf8_elide_apart(char *const *out, size_t n, const char *const *s, size_t k, int w,
		      const char *mark)
{
	struct apart_key *key;
	char *buf, **stems = NULL;
	size_t g0, g1, i, *early, *late, *lcp;
	int (*cols)[APART_WIN], *ncols, mw = utf8_width(mark), head = (w - mw) / 3, pass, again = 1;

	if (k < 2 || !n)
		return;
	/* DEF: each text's plain elision; TMP: its new one, until the whole
	 * pass is done (out[] is what the pass groups by). */
	buf = malloc(2 * k * n);
	key = malloc(k * sizeof(*key));
	cols = malloc(k * sizeof(*cols));
	ncols = malloc(k * sizeof(*ncols));
	early = malloc(k * sizeof(*early));
	late = malloc(k * sizeof(*late));
	lcp = malloc(k * sizeof(*lcp));
	if (!buf || !key || !cols || !ncols || !early || !late || !lcp)
		goto out;
#define DEF(i) (buf + (i) * n)
#define TMP(i) (buf + (k + (i)) * n)
	for (i = 0; i < k; i++) {
		memcpy(DEF(i), out[i], strlen(out[i]) + 1);
		TMP(i)[0] = '\0';
		ncols[i] = 0;
	}
	/*
	 * Pass -1, the kind: texts whose plain elisions share their head,
	 * and whose kinds differ, each show where its kind differs from the
	 * kinds most like it, when the plain elision hides that place
	 * ("loop_dy…slice_fusion.6" beside "…fusion.4", or at 23 columns
	 * "loop_dy…e_slice_fusion.3" beside "loop_dy…c_slice_fusion.4", hid
	 * which of them updates a slice: "loop_dy…ic_update…on.6"). The
	 * groups are of heads, the differences of stems (stem_len).
	 */
	stems = calloc(2 * k, sizeof(*stems));
	if (!stems)
		goto out;
	for (i = 0; i < k; i++) {
		const char *m = strstr(out[i], mark);

		stems[i] = strndup(out[i], m ? (size_t)(m - out[i]) : strlen(out[i]));
		stems[k + i] = strndup(s[i], stem_len(s[i]));
		if (!stems[i] || !stems[k + i])
			goto out;
	}
	/*
	 * Pass 0: texts whose plain elisions read alike each show the
	 * latest of their first differences from one another (where the
	 * text most like it differs). Pass 1: texts still alike also show
	 * the earliest (a replica before the layer). Pass 2: texts alike
	 * even then (a dropout after the layer; or texts of two plain
	 * elisions that the shorter tail made alike) also show where they
	 * differ from the text most like them among those, and pass 3 again
	 * among the texts still alike.
	 */
	for (pass = -1; pass < APART_WIN; pass++) {
		const char *const *grp = pass < 0 ? (const char *const *)stems : (const char *const *)out;
		const char *const *txt = pass < 0 ? (const char *const *)stems + k : s;

		for (i = 0; i < k; i++)
			key[i] = (struct apart_key){ grp[i], i };
		qsort(key, k, sizeof(*key), apart_cmp);
		for (g0 = 0; g0 < k; g0 = g1) {
			for (g1 = g0 + 1; g1 < k && !strcmp(key[g1].key, key[g0].key); g1++)
				;
			if (g1 - g0 < 2)
				continue;
			/* The group by text, for its neighbours in order. */
			for (i = g0; i < g1; i++)
				key[i].key = txt[key[i].i];
			qsort(key + g0, g1 - g0, sizeof(*key), apart_cmp);
			group_diffs(key, g0, g1, txt, early, late);
			if (pass == 1)
				for (i = g0; i + 1 < g1; i++)
					lcp[i] = first_diff(txt[key[i].i], txt[key[i + 1].i]);
			for (i = g0; i < g1; i++) {
				size_t ii = key[i].i;
				int c[APART_WIN], nc = ncols[ii];

				if (early[ii] == SIZE_MAX)
					continue; /* the same text (kind) reads the same */
				/* Pass 1: the earliest, or the latest where it
				 * tells more of the group apart. */
				int at = col_of(s[ii], pass == 1 && !late_splits(lcp, g0, g1, i, early[ii],
										 late[ii])
								? early[ii]
								: late[ii]);

				if (pass < 0) {
					/* Only where the plain elision hides it: a
					 * place its tail shows tells already. Of the
					 * two (the kinds before and after it), the
					 * later hidden one: "jit__redu…input_reduce_
					 * fusion" showed how it differs from the
					 * loop_convert one beside it, not that it
					 * is reduce_max where the next is reduce_sum. */
					int len = utf8_width(s[ii]), lc = col_of(s[ii], late[ii]);
					int ec = col_of(s[ii], early[ii]), tail = len - (w - mw - head);

					if (len <= w ||
					    !tail_alike(out, (const char *const *)stems + k, key, g0, g1, ii, mark))
						continue;
					if (lc < tail)
						at = lc;
					else if (ec >= head && ec < tail)
						at = ec;
					else
						continue;
				}
				/* What the last pass showed, and one place more. */
				memcpy(c, cols[ii], (size_t)nc * sizeof(*c));
				if (pass == 1 && !nc) /* pass 0 found no room */
					nc = col_add(c, nc, col_of(s[ii], late[ii]), head);
				nc = col_add(c, nc, at, head);
				if (nc == ncols[ii])
					continue; /* nothing new to show */
				if (elide_at(TMP(ii), n, s[ii], w, c, nc, mark)) {
					memcpy(cols[ii], c, (size_t)nc * sizeof(*c));
					ncols[ii] = nc;
				}
			}
		}
		for (i = 0; i < k; i++)
			if (TMP(i)[0]) {
				memcpy(out[i], TMP(i), strlen(TMP(i)) + 1);
				TMP(i)[0] = '\0';
			}
	}
	/* Never worse than the plain elisions: texts that read apart there
	 * (their plain elisions differ) and alike now go back to them. */
	for (pass = 0; again && pass < 4; pass++) {
		again = 0;
		for (i = 0; i < k; i++)
			key[i] = (struct apart_key){ out[i], i };
		qsort(key, k, sizeof(*key), apart_cmp);
		for (g0 = 0; g0 < k; g0 = g1) {
			int bad = 0;

			for (g1 = g0 + 1; g1 < k && !strcmp(key[g1].key, key[g0].key); g1++)
				bad |= strcmp(DEF(key[g1].i), DEF(key[g0].i)) != 0;
			for (i = g0; bad && i < g1; i++)
				if (strcmp(out[key[i].i], DEF(key[i].i))) {
					memcpy(out[key[i].i], DEF(key[i].i),
					       strlen(DEF(key[i].i)) + 1);
					again = 1;
				}
		}
	}
#undef DEF
#undef TMP
out:
	free(buf);
	free(key);
	free(cols);
	free(ncols);
	free(early);
	free(late);
	free(lcp);
	if (stems)
		for (i = 0; i < 2 * k; i++)
			free(stems[i]);
	free(stems);
}
