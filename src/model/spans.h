/*
 * spans: sorted lists of time intervals and their unions, for the passes
 * that ask how long something was active (the step breakdown, the
 * overview's gaps and host-bound time). A leaf: it knows no trace.
 *
 * A struct spans collects intervals as sorted runs (one per source: the
 * events of a line are sorted by start, so each line appends one run, and
 * overlapping or touching intervals of a run coalesce as they come);
 * spans_union() then merges the runs pairwise into one sorted disjoint
 * list. The caller owns v and run (free both; zeroed is empty).
 */
#ifndef XT_SPANS_H
#define XT_SPANS_H

#include <stddef.h>
#include <stdint.h>

struct span {
	int64_t s, e;
};

struct spans {
	struct span *v;
	size_t n, cap;
	size_t *run;   /* start index of each sorted run */
	size_t nrun, caprun;
	size_t last_line; /* line of the last append, to detect a new run */
};

/* Appends [s, e) from source `line`; a new line starts a new run. */
void spans_add(struct spans *sp, size_t line, int64_t s, int64_t e);
/* Union of two sorted disjoint lists into out (room for na + nb); returns
 * its length. */
size_t spans_union2(const struct span *a, size_t na, const struct span *b, size_t nb,
		    struct span *out);
/* Merges the runs of sp into one sorted disjoint list (in sp->v); *tmp is
 * scratch the caller keeps between calls (and frees). */
void spans_union(struct spans *sp, struct span **tmp, size_t *tmpcap);
/* Hands sp's spans to the caller, shrunk to fit (NULL when there are
 * none), with their count in *n; frees the rest of sp. */
struct span *spans_take(struct spans *sp, size_t *n);

/*
 * A sorted disjoint list packed for reading in order: per span its gap
 * from the previous end (the first: its start) and its length, as
 * varints, differences taken modulo 2^64 (so any values round-trip). A
 * busy host line's work is millions of spans, 16 bytes each unpacked,
 * about 7 packed. Zeroed is empty; the owner frees it (span_pack_free).
 */
struct span_pack {
	uint8_t *b;
	size_t nb, cap;
	size_t n;               /* spans packed */
	struct span open;       /* the last span, still growing */
	int has_open;
	int64_t last_e;         /* end of the last span packed */
};
/* Appends [s, e), starts in order; coalesces with the last span when s is
 * not past its end. */
void span_pack_add(struct span_pack *sp, int64_t s, int64_t e);
/* Packs the last span and trims the bytes: ready to read. */
void span_pack_done(struct span_pack *sp);
/* Appends src's spans (not done; shifted by `shift`) as span_pack_add()
 * would add the intervals they were made of, shifted, one by one (when no
 * value wraps past 2^63): src starts no earlier than the spans of dst.
 * Most of src is copied as it is. */
void span_pack_cat(struct span_pack *dst, const struct span_pack *src, int64_t shift);
/* Room for `more` further bytes of packed spans (a span takes 2 to 20). */
void span_pack_reserve(struct span_pack *sp, size_t more);
void span_pack_free(struct span_pack *sp);

struct span_rd {
	const uint8_t *p, *end;
	int64_t last_e;
};
void span_rd_init(struct span_rd *r, const struct span_pack *sp);
/* The next span into *out; returns 0 at the end. */
int span_rd_next(struct span_rd *r, struct span *out);

/* The union of k packed lists, span by span in start order: a heap of the
 * lists, which the top list leaves only when another's next span starts
 * before its own (a busy line's spans come in long stretches). */
struct span_cur;
struct span_hk;
struct span_merge {
	struct span_cur *cur; /* one per list */
	struct span_hk *hp;   /* the lists not at their end, by current start */
	size_t nh;
};
void span_merge_init(struct span_merge *m, const struct span_pack *const *packs, size_t k);
/* The union's next span (disjoint from and after the last, not touching
 * it) into *out; returns 0 at the end. */
int span_merge_next(struct span_merge *m, struct span *out);
void span_merge_fini(struct span_merge *m);

/* The union of k packed lists into *out (the caller frees it); returns
 * its length. The lists are merged in start order through a heap, so
 * nothing as long as all of them together is allocated: the union of many
 * threads' busy spans is far shorter. */
size_t spans_union_packs(const struct span_pack *const *packs, size_t k, struct span **out);
/* Summed length of n disjoint spans. */
int64_t spans_len(const struct span *v, size_t n);
/* Length of the intersection of two sorted disjoint lists. */
int64_t spans_overlap(const struct span *a, size_t na, const struct span *b, size_t nb);

#endif
