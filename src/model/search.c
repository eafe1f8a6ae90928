/* search: see search.h. Matching is decided once per event metadata, then
 * one pass over the events collects the matches; on a device's lines an
 * event whose name does not match is matched by its op (hlo_op). */
#include "search.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis.h"
#include "stats.h"
#include "../util/xalloc.h"

/* Matches beyond this are counted but not listed (64 MiB of matches). */
#define SEARCH_CAP (4u << 20)

/* Whether needle (nn bytes) is in hay's hn bytes (a stat's text need not
 * be terminated), ignoring ASCII case. */
static int contains_nocase_n(const char *hay, size_t hn, const char *needle, size_t nn)
{
	size_t i;

	if (nn > hn)
		return 0;
	for (i = 0; i + nn <= hn; i++)
		if (!strncasecmp(hay + i, needle, nn))
			return 1;
	return 0;
}

static int contains_nocase(const char *hay, const char *needle, size_t nn)
{
	return contains_nocase_n(hay, strlen(hay), needle, nn);
}

/* What an hlo_op text says of the query: the text matches (a graph's name
 * too, as it did), or it is a graph's name, whose kernels' own ops may. */
enum op_class { OP_NO, OP_YES, OP_GRAPH };

static enum op_class op_class(const char *s, size_t n, const char *query, size_t nq)
{
	if (!s)
		return OP_NO;
	if (contains_nocase_n(s, n, query, nq))
		return OP_YES;
	return xt_name_command_buffer(s, n) ? OP_GRAPH : OP_NO;
}

/* Whether ev's op (its hlo_op stat, else its metadata's, as the op
 * profile reads it) contains the query: a GPU's kernel is named after
 * itself ("nvjet_sm90_…", "fusion_221"), and the op a user copies from the
 * op profile ("custom-call.10") is only in that stat. The last op text
 * read and its answer are kept: launches repeat a few ops. */
struct op_memo {
	const char *s;
	size_t n;
	enum op_class hit;
	uint8_t *meta; /* per metadata: 0 not read, else 1 + its op_class */
	/* A kernel in a CUDA graph has the graph's command_buffer_N for its
	 * hlo_op: its own op is the one the analysis attributes it to (by
	 * its name, its place), asked per event (NULL: not analysed yet). */
	const struct xt_analysis *an;
	const struct xt_trace *t;
	size_t host;
};

/* Whether the op the analysis gives kernel ev (in a command buffer)
 * contains the query. */
static int cb_op_matches(const struct xt_plane *p, const struct xt_line *l,
			 const struct xt_event *ev, const char *query, size_t nq,
			 const struct op_memo *memo)
{
	char buf[512];

	if (!memo->an)
		return 0;
	analysis_op_name(memo->an, memo->t, memo->host, p, l, ev, buf, sizeof(buf));
	return contains_nocase(buf, query, nq);
}

static enum op_class meta_op_class(const struct xt_host *h, const struct xt_plane *p, uint32_t mi,
				   const char *query, size_t nq, struct op_memo *memo)
{
	if (!memo->meta[mi]) {
		struct stat_iter it;
		struct xt_stat s;
		enum op_class c = OP_NO;

		stat_iter_meta(&it, h, p, &p->emeta[mi]);
		while (stat_next(&it, &s))
			if (stat_known(&s) == XS_HLO_OP) {
				c = op_class(s.s, s.n, query, nq);
				break;
			}
		memo->meta[mi] = (uint8_t)(1 + c);
	}
	return (enum op_class)(memo->meta[mi] - 1);
}

static int op_matches(const struct xt_host *h, const struct xt_plane *p, const struct xt_line *l,
		      const struct xt_event *ev, const struct stat_want *want, const char *query,
		      size_t nq, struct op_memo *memo)
{
	struct xt_stat out[XS_COUNT];
	uint64_t found;
	enum op_class c;

	if (!stat_scan_event(h, p, l, ev, want, out, &found) || !((found >> XS_HLO_OP) & 1) ||
	    !out[XS_HLO_OP].s) {
		c = meta_op_class(h, p, xt_event_meta_index(ev), query, nq, memo);
	} else {
		if (out[XS_HLO_OP].s != memo->s || out[XS_HLO_OP].n != memo->n) {
			memo->s = out[XS_HLO_OP].s;
			memo->n = out[XS_HLO_OP].n;
			memo->hit = op_class(memo->s, memo->n, query, nq);
		}
		c = memo->hit;
	}
	return c == OP_GRAPH ? cb_op_matches(p, l, ev, query, nq, memo) : c == OP_YES;
}

static int match_cmp(const void *x, const void *y)
{
	const struct search_match *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->ev > b->ev) - (a->ev < b->ev);
}

struct search_result *search_run(struct timeline *tl, const struct xt_analysis *an,
				 const char *query)
{
	struct search_result *r = xcalloc(1, sizeof(*r));
	size_t nq = strlen(query), cap = 0, i, e;
	const struct xt_plane *last = NULL;
	uint8_t *hit = NULL;
	struct stat_want want;
	int by_op = 0;
	struct op_memo memo = { NULL, 0, 0, NULL, NULL, NULL, 0 };

	if (!nq)
		return r;
	for (i = 0; i < tl->ntracks; i++) {
		const struct tl_track *tr = &tl->tracks[i];
		const struct xt_line *l = tr->l;

		if (tr->p != last) {
			size_t m;

			free(hit);
			hit = xcalloc(tr->p->nemeta ? tr->p->nemeta : 1, 1);
			for (m = 1; m < tr->p->nemeta; m++)
				hit[m] = contains_nocase(tr->p->emeta[m].display_name, query, nq) ||
					 contains_nocase(tr->p->emeta[m].name, query, nq);
			last = tr->p;
			/* Device lines only: a host's events are named by
			 * what they do, and its lines are the long ones. */
			by_op = 0;
			if (!strncmp(tr->p->name, "/device:", 8)) {
				stat_want_init(&want, tr->p, 1ull << XS_HLO_OP);
				by_op = want.n > 0;
			}
			free(memo.meta);
			memo = (struct op_memo){ NULL, 0, 0, NULL, an, tl->t, tr->host };
			if (by_op)
				memo.meta = xcalloc(tr->p->nemeta ? tr->p->nemeta : 1, 1);
		}
		for (e = 0; e < l->nev; e++) {
			const struct xt_event *ev = &l->ev[e];

			if (xt_event_aggregated(ev))
				continue;
			if (!hit[xt_event_meta_index(ev)] &&
			    (!by_op || !op_matches(&tl->t->hosts[tr->host], tr->p, l, ev, &want, query,
						   nq, &memo)))
				continue;
			if (r->n >= SEARCH_CAP) {
				r->limit_hit++;
				continue;
			}
			if (r->n == cap) {
				cap = cap ? cap * 2 : 256;
				r->m = xreallocarray(r->m, cap, sizeof(*r->m));
			}
			r->m[r->n++] = (struct search_match){ (uint32_t)i, 0, (int64_t)e,
							      xt_event_start(l, ev) };
		}
	}
	free(hit);
	free(memo.meta);
	if (r->n > 1)
		qsort(r->m, r->n, sizeof(*r->m), match_cmp);
	return r;
}

void search_free(struct search_result *r)
{
	if (!r)
		return;
	free(r->m);
	free(r);
}

/* Whether match m sorts before (t, track, ev). */
static int before(const struct search_match *m, int64_t t, uint32_t track, int64_t ev)
{
	if (m->start != t)
		return m->start < t;
	if (m->track != track)
		return m->track < track;
	return m->ev < ev;
}

long search_next(const struct search_result *r, int64_t t, uint32_t track, int64_t ev, int dir)
{
	size_t lo = 0, hi = r->n;

	if (!r->n)
		return -1;
	/* The first match not before (t, track, ev): matches that start
	 * together on one track (nested name scopes, copy-start and
	 * copy-done) are told apart by their index, none skipped. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(&r->m[mid], t, track, ev))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (dir > 0) {
		/* strictly after it */
		if (lo < r->n && r->m[lo].start == t && r->m[lo].track == track && r->m[lo].ev == ev)
			lo++;
		return lo < r->n ? (long)lo : 0;
	}
	return lo > 0 ? (long)lo - 1 : (long)r->n - 1;
}
