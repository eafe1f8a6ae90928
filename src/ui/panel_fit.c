/* panel_fit: see panel_fit.h. */
#include "panel_fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/utf8.h"

/* s in w columns, cut at its end with mark: beside an elided op, a name's
 * start ("void Eigen::…", "loop_conv…") says more than its tail (a C++
 * kernel's parameter list). */
static void head_cut(char *out, size_t n, const char *s, int w, const char *mark)
{
	size_t o = 0, l;
	int c = 0;

	if (utf8_width(s) <= w || w < 1) {
		utf8_elide(out, n, s, w, mark);
		return;
	}
	while (s[o] && c < w - 1 && o + (l = utf8_len(s + o)) < n) {
		o += l;
		c++;
	}
	snprintf(out, n, "%.*s%s", (int)o, s, mark);
}

int panel_fit_heads(struct panel *p, char **out, size_t cap, char *const *src, const size_t *row,
		    int n, int w)
{
	size_t *tl = malloc((size_t)n * sizeof(*tl)), nl = 0;
	/* per row: the tail shown, the long tail's TEXT, the name before the
	 * tail; and the output slots of one group */
	char **v = calloc((size_t)n * 4, sizeof(*v)), **tail, **inner, **head, **gout;
	char **in = NULL; /* the long tails' TEXTs, then [nl..]: them elided */
	int k, j, *done = calloc((size_t)n, sizeof(*done)), ok = tl && v && done, iw = w - 8 - 3;

	if (!ok) {
		free(tl);
		free(v);
		free(done);
		return 0;
	}
	tail = v;
	inner = v + n;
	head = v + 2 * (size_t)n;
	gout = v + 3 * (size_t)n;

	for (k = 0; ok && k < n; k++) {
		size_t len = strlen(src[k]);
		const char *t;

		tl[k] = p->flex_tail(p->ctx, row[k]);
		if (tl[k] > len)
			tl[k] = len;
		t = src[k] + len - tl[k];
		if (utf8_width(src[k]) <= w) {
			done[k] = 1; /* whole */
			continue;
		}
		ok = (tail[k] = malloc(cap)) != NULL;
		if (!ok)
			break;
		if (w - utf8_width(t) >= 8) {
			snprintf(tail[k], cap, "%s", t);
		} else if (iw >= 4 && tl[k] >= 3 && !strncmp(t, " (", 2) && t[tl[k] - 1] == ')') {
			ok = (inner[k] = malloc(tl[k] - 2)) != NULL;
			if (ok) {
				memcpy(inner[k], t + 2, tl[k] - 3);
				inner[k][tl[k] - 3] = '\0';
				nl++;
			}
		} else {
			ok = 0; /* too narrow, or a tail of another form */
		}
	}
	if (ok && nl) {
		/* The long tails' TEXTs, elided and told apart among them. */
		size_t i = 0;

		in = calloc(nl * 2, sizeof(*in));
		ok = in && (in[nl] = malloc(nl * cap)) != NULL;
		for (k = 0; ok && k < n; k++)
			if (inner[k]) {
				in[nl + i] = in[nl] + i * cap;
				in[i] = inner[k];
				utf8_elide(in[nl + i], cap, inner[k], iw, p->mark);
				i++;
			}
		if (ok) {
			utf8_elide_apart(in + nl, cap, (const char *const *)in, nl, iw, p->mark);
			for (k = 0, i = 0; k < n; k++)
				if (inner[k])
					snprintf(tail[k], cap, " (%s)", in[nl + i++]);
		}
	}
	for (k = 0; ok && k < n; k++) {
		const char *t = src[k] + strlen(src[k]) - tl[k];
		int m = 0, hw;

		if (done[k])
			continue;
		hw = w - utf8_width(tail[k]);
		/* the rows of this tail (the same op), not yet fitted */
		for (j = k; j < n; j++) {
			size_t lj = strlen(src[j]);

			if (done[j] || tl[j] != tl[k] || strcmp(src[j] + lj - tl[j], t))
				continue;
			head[m] = malloc(lj - tl[j] + 1);
			if (!head[m]) {
				ok = 0;
				break;
			}
			memcpy(head[m], src[j], lj - tl[j]);
			head[m][lj - tl[j]] = '\0';
			gout[m] = out[j];
			if (inner[k])
				head_cut(gout[m], cap, head[m], hw, p->mark);
			else
				utf8_elide(gout[m], cap, head[m], hw, p->mark);
			done[j] = 1;
			m++;
		}
		if (ok && m > 1 && !inner[k])
			utf8_elide_apart(gout, cap, (const char *const *)head, (size_t)m, hw, p->mark);
		for (j = 0; j < m; j++) {
			size_t used = strlen(gout[j]);

			snprintf(gout[j] + used, cap - used, "%s", tail[k]);
			free(head[j]);
			head[j] = NULL;
		}
	}
	if (!ok) /* a row fitted before it failed: plain elision again */
		for (k = 0; k < n; k++)
			utf8_elide(out[k], cap, src[k], w, p->mark);
	if (in) {
		free(in[nl]);
		free(in);
	}
	for (k = 0; k < n; k++) {
		free(tail[k]);
		free(inner[k]);
	}
	free(tl);
	free(v);
	free(done);
	return ok;
}
