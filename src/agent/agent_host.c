/* agent_host: see agent_host.h. Field numbers are those of
 * proto/xplane.proto. */
#include "agent_host.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/wire.h"

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* The id of name in t, given a new one (*next) the first time; 0 on OOM. */
static int64_t tab_id(struct name_tab *t, const char *s, size_t n, int64_t *next)
{
	size_t i;

	if (t->used * 2 >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64, k;
		struct name_ent *v = calloc(cap, sizeof(*v));

		if (!v)
			return 0;
		for (k = 0; k < t->cap; k++) {
			if (!t->v[k].s)
				continue;
			for (i = hash(t->v[k].s, t->v[k].n) & (cap - 1); v[i].s; i = (i + 1) & (cap - 1))
				;
			v[i] = t->v[k];
		}
		free(t->v);
		t->v = v;
		t->cap = cap;
	}
	for (i = hash(s, n) & (t->cap - 1); t->v[i].s; i = (i + 1) & (t->cap - 1))
		if (t->v[i].n == n && !memcmp(t->v[i].s, s, n))
			return t->v[i].id;
	t->v[i].s = malloc(n + 1);
	if (!t->v[i].s)
		return 0;
	memcpy(t->v[i].s, s, n);
	t->v[i].s[n] = '\0';
	t->v[i].n = n;
	t->v[i].id = (*next)++;
	t->used++;
	return t->v[i].id;
}

static void tab_fini(struct name_tab *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->v[i].s);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void host_enc_init(struct host_enc *h, uint64_t base_ns, uint64_t stop_ns, int64_t emax,
		   int64_t smax)
{
	memset(h, 0, sizeof(*h));
	abuf_init(&h->fields);
	h->base_ns = base_ns;
	h->stop_ns = stop_ns;
	h->next_eid = (emax > 0 ? emax : 0) + 1;
	h->next_sid = (smax > 0 ? smax : 0) + 1;
}

static int ref_cmp(const void *x, const void *y)
{
	const struct ev_ref *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Begun together: the longer first, the parent before its child. */
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* Writes line l into the plane's fields, its events in start order. */
static void put_line(struct host_enc *h, struct host_line *l)
{
	struct abuf hd;
	size_t i;

	if (!l->ev.n)
		return;
	/* One copy gives its events in the order they began; two are merged. */
	if (l->copies > 1)
		qsort(l->refs, l->nrefs, sizeof(*l->refs), ref_cmp);
	/* XLine {1: id, 2: name, 4: events...}; timestamp_ns 0 = the start. */
	abuf_init(&hd);
	abuf_uint(&hd, 1, l->tid);
	abuf_text(&hd, 2, l->tname, strlen(l->tname));
	abuf_tag(&h->fields, 3, 2);
	abuf_varint(&h->fields, hd.n + l->ev.n);
	abuf_put(&h->fields, hd.p, hd.n);
	if (l->copies > 1)
		for (i = 0; i < l->nrefs; i++)
			abuf_put(&h->fields, l->ev.p + l->refs[i].at, l->refs[i].len);
	else
		abuf_put(&h->fields, l->ev.p, l->ev.n);
	h->oom |= hd.oom | l->ev.oom;
	abuf_fini(&hd);
}

/* The line of thread tid, made when new; NULL without memory. */
static struct host_line *line_of(struct host_enc *h, uint64_t tid)
{
	size_t i;

	for (i = 0; i < h->nlines; i++)
		if (h->lines[i].tid == tid)
			return &h->lines[i];
	if (h->nlines == h->caplines) {
		size_t cap = h->caplines ? h->caplines * 2 : 16;
		struct host_line *v = realloc(h->lines, cap * sizeof(*v));

		if (!v)
			return NULL;
		h->lines = v;
		h->caplines = cap;
	}
	memset(&h->lines[h->nlines], 0, sizeof(h->lines[0]));
	h->lines[h->nlines].tid = tid;
	abuf_init(&h->lines[h->nlines].ev);
	return &h->lines[h->nlines++];
}

/* Notes where an event of a merged line lies (ev_ref). */
static void push_ref(struct host_enc *h, struct host_line *l, uint64_t start, uint64_t end,
		     size_t at, size_t len)
{
	if (l->nrefs == l->caprefs) {
		size_t cap = l->caprefs ? l->caprefs * 2 : 64;
		struct ev_ref *v = realloc(l->refs, cap * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return;
		}
		l->refs = v;
		l->caprefs = cap;
	}
	l->refs[l->nrefs++] = (struct ev_ref){ start, end, (uint32_t)at, (uint32_t)len };
}

/*
 * A second copy records on this line's thread: its events must be merged
 * by start, so the line's events so far get their refs, read back from
 * what this file encoded (each field 4 of the line an XEvent {1: metadata
 * id, 2: offset_ps, 3: duration_ps, 4: stats}). A line of one copy, the
 * usual case, keeps no refs.
 */
static void refs_rebuild(struct host_enc *h, struct host_line *l)
{
	struct wire w;

	wire_init(&w, l->ev.p, l->ev.n);
	while (wire_more(&w)) {
		const uint8_t *at = w.p, *ev;
		uint64_t off = 0, dur = 0;
		struct wire e;
		uint32_t f;
		size_t n;

		if (wire_tag(&w, &f) != WIRE_LEN)
			break;
		ev = wire_bytes(&w, &n);
		if (w.bad)
			break;
		wire_init(&e, ev, n);
		while (wire_more(&e)) {
			unsigned t = wire_tag(&e, &f);

			if (t == WIRE_VARINT && f == 2)
				off = wire_varint(&e);
			else if (t == WIRE_VARINT && f == 3)
				dur = wire_varint(&e);
			else
				wire_skip(&e, t);
		}
		push_ref(h, l, h->base_ns + off / 1000, h->base_ns + (off + dur) / 1000,
			 (size_t)(at - l->ev.p), (size_t)(w.p - at));
	}
}

/* Threads named in the warnings one by one; the rest are counted. */
enum { WARN_THREADS = 8 };

void host_enc_thread(void *ctx, const struct xtop_trace_thread *t)
{
	struct host_enc *h = ctx;
	struct host_line *l;

	h->cur = NULL;
	if (!t->tid && !t->nev) { /* the threads that got no buffer */
		h->lost += t->dropped;
		return;
	}
	l = line_of(h, t->tid);
	if (!l) {
		h->oom = 1;
		return;
	}
	h->cur = l;
	if (l->copies == 1)
		refs_rebuild(h, l);
	if (!l->copies++) {
		snprintf(l->tname, sizeof(l->tname), "%s",
			 t->name && t->name[0] ? t->name : "thread");
		/* The kernel keeps 15 bytes of a name, maybe half a character:
		 * the line's name and the warnings below are text. */
		abuf_u8_fix(l->tname, l->tname, strlen(l->tname));
	}
	if (t->dropped) {
		size_t k = strlen(h->thread_notes);

		h->dropped += t->dropped;
		if (++h->drop_threads <= WARN_THREADS && k + 80 < sizeof(h->thread_notes))
			snprintf(h->thread_notes + k, sizeof(h->thread_notes) - k,
				 "\nxtop trace: thread %llu (%s) dropped %llu",
				 (unsigned long long)t->tid, l->tname, (unsigned long long)t->dropped);
	}
}

/* The warnings: the totals first (a message cut short keeps them), then
 * the first threads that dropped events. */
static void drop_warnings(struct host_enc *h)
{
	size_t k = 0;

	if (h->dropped)
		k = (size_t)snprintf(h->warnings, sizeof(h->warnings),
				     "xtop trace: %llu events dropped by %llu thread%s (past the "
				     "library's bounds: memory, or spans nested over 128 deep)",
				     (unsigned long long)h->dropped, (unsigned long long)h->drop_threads,
				     h->drop_threads == 1 ? "" : "s");
	if (h->lost && k < sizeof(h->warnings))
		k += (size_t)snprintf(h->warnings + k, sizeof(h->warnings) - k,
				      "%sxtop trace: %llu events of threads that got no buffer "
				      "(over 4096 threads recording, or out of memory)",
				      k ? "; " : "", (unsigned long long)h->lost);
	if (h->dropped && k < sizeof(h->warnings))
		k += (size_t)snprintf(h->warnings + k, sizeof(h->warnings) - k, "%s%s",
				      h->thread_notes,
				      h->drop_threads > WARN_THREADS ? "\nxtop trace: ..." : "");
}

/* Whole-string number parses; 1 when all of s is the number. */
static int parse_i64(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return end != s && !*end && !errno;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return end != s && !*end && !errno && s[0] != '-';
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v);
}

/* One XStat into b: the value typed as upstream's ParseAndAddStatValue
 * (int64, else uint64, else double, else string). */
static void stat_value(struct host_enc *h, struct abuf *b, const char *k, size_t kn, const char *v,
		       size_t vn)
{
	char buf[128];
	struct abuf st;
	long long i;
	unsigned long long u;
	double d;
	int64_t sid = tab_id(&h->snames, k, kn, &h->next_sid);

	if (!sid) {
		h->oom = 1;
		return;
	}
	abuf_init(&st);
	abuf_uint(&st, 1, (uint64_t)sid);
	buf[0] = '\0';
	if (vn < sizeof(buf)) {
		memcpy(buf, v, vn);
		buf[vn] = '\0';
	}
	if (buf[0] && parse_i64(buf, &i))
		abuf_uint(&st, 4, (uint64_t)i);
	else if (buf[0] && parse_u64(buf, &u))
		abuf_uint(&st, 3, u);
	else if (buf[0] && parse_double(buf, &d))
		abuf_double(&st, 2, d);
	else
		abuf_text(&st, 5, v, vn);
	abuf_bytes(b, 4, st.p, st.n);
	h->oom |= st.oom;
	abuf_fini(&st);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* "k=v,k=v" as TraceMe writes it; commas inside brackets or quotes do not
 * split (as upstream's SplitPairs). */
static void stats_from(struct host_enc *h, struct abuf *b, const char *m, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t s = i, e, eq;
		int depth = 0, quote = 0;

		for (; i < n; i++) {
			char c = m[i];

			if (quote) {
				quote = c != '"';
			} else if (c == '"') {
				quote = 1;
			} else if (c == '(' || c == '[' || c == '{') {
				depth++;
			} else if ((c == ')' || c == ']' || c == '}') && depth) {
				depth--;
			} else if (c == ',' && !depth) {
				break;
			}
		}
		e = i++;
		for (eq = s; eq < e && m[eq] != '='; eq++)
			;
		if (eq < e) {
			size_t ks = s, ke = eq, vs = eq + 1, ve = e;

			while (ks < ke && is_space(m[ks]))
				ks++;
			while (ke > ks && is_space(m[ke - 1]))
				ke--;
			while (vs < ve && is_space(m[vs]))
				vs++;
			while (ve > vs && is_space(m[ve - 1]))
				ve--;
			if (ke > ks && ve > vs)
				stat_value(h, b, m + ks, ke - ks, m + vs, ve - vs);
		}
	}
}

void host_enc_event(void *ctx, const struct xtop_trace_event *e)
{
	struct host_enc *h = ctx;
	struct abuf ev;
	const char *name = e->name ? e->name : "";
	size_t n = e->name_len, bare = n;
	uint64_t start = e->start_ns, end = e->end_ns ? e->end_ns : h->stop_ns;
	int64_t eid;

	if (!h->cur)
		return;
	if (e->kind == XTOP_TRACE_STEP) {
		name = "train";
		n = bare = 5;
	} else if (n >= 2 && name[n - 1] == '#') {
		const char *hash1 = memchr(name, '#', n - 1);

		if (hash1)
			bare = (size_t)(hash1 - name);
	}
	eid = tab_id(&h->enames, name, bare, &h->next_eid);
	if (!eid) {
		h->oom = 1;
		return;
	}
	if (start < h->base_ns)
		start = h->base_ns;
	/* A thread that saw the session on just before the stop may end its
	 * span after it: the capture ends there, as a span still open does. */
	if (start > h->stop_ns)
		start = h->stop_ns;
	if (end > h->stop_ns)
		end = h->stop_ns;
	if (end < start)
		end = start;
	abuf_init(&ev);
	abuf_uint(&ev, 1, (uint64_t)eid);
	abuf_uint(&ev, 2, (start - h->base_ns) * 1000);
	abuf_uint(&ev, 3, (end - start) * 1000);
	if (e->kind == XTOP_TRACE_STEP) {
		char num[32];

		snprintf(num, sizeof(num), "%lld", (long long)e->step);
		stat_value(h, &ev, "step_num", 8, num, strlen(num));
		stat_value(h, &ev, "_r", 2, "1", 1);
	} else if (bare < n) {
		stats_from(h, &ev, name + bare + 1, n - bare - 2);
	}
	{
		struct host_line *l = h->cur;
		size_t at = l->ev.n;

		abuf_bytes(&l->ev, 4, ev.p, ev.n);
		if (l->copies > 1)
			push_ref(h, l, start, end, at, l->ev.n - at);
	}
	h->oom |= ev.oom;
	abuf_fini(&ev);
	h->nev++;
}

static void put_meta(struct abuf *out, uint32_t field, const struct name_tab *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++) {
		struct abuf md, ent;

		if (!t->v[i].s)
			continue;
		/* map entry {1: id, 2: X{Event,Stat}Metadata{1: id, 2: name}} */
		abuf_init(&md);
		abuf_init(&ent);
		abuf_uint(&md, 1, (uint64_t)t->v[i].id);
		abuf_text(&md, 2, t->v[i].s, t->v[i].n);
		abuf_uint(&ent, 1, (uint64_t)t->v[i].id);
		abuf_bytes(&ent, 2, md.p, md.n);
		abuf_bytes(out, field, ent.p, ent.n);
		out->oom |= md.oom | ent.oom;
		abuf_fini(&md);
		abuf_fini(&ent);
	}
}

int host_enc_finish(struct host_enc *h)
{
	size_t i;

	h->cur = NULL;
	/* The fields take every line at once (no doubling past what they
	 * need), and each line's buffers go as soon as it is written: the
	 * peak is the lines once and one of them again, not all twice. */
	{
		size_t need = h->fields.n;

		for (i = 0; i < h->nlines; i++)
			need += h->lines[i].ev.n + 64;
		abuf_reserve(&h->fields, need - h->fields.n);
	}
	for (i = 0; i < h->nlines; i++) {
		put_line(h, &h->lines[i]);
		abuf_fini(&h->lines[i].ev);
		free(h->lines[i].refs);
		h->lines[i].refs = NULL;
		h->lines[i].nrefs = h->lines[i].caprefs = 0;
	}
	drop_warnings(h);
	put_meta(&h->fields, 4, &h->enames);
	put_meta(&h->fields, 5, &h->snames);
	h->oom |= h->fields.oom;
	return h->oom ? -1 : 0;
}

void host_enc_fini(struct host_enc *h)
{
	size_t i;

	for (i = 0; i < h->nlines; i++) {
		abuf_fini(&h->lines[i].ev);
		free(h->lines[i].refs);
	}
	free(h->lines);
	abuf_fini(&h->fields);
	tab_fini(&h->enames);
	tab_fini(&h->snames);
}
