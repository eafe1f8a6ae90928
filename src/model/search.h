/*
 * search: finds events by name across the whole profile (every host, plane
 * and line, not just what is on screen; XProf's "Find events" only searches
 * the visible window). A name matches when the query is a substring of the
 * event's display name or full name, ignoring ASCII case; on a device's
 * lines, also of the op it ran for (its hlo_op stat: a GPU's kernels are
 * named after themselves, and the op profile names their op).
 *
 * Ownership: the result owns its match array; search_free() releases it.
 */
#ifndef XT_SEARCH_H
#define XT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

struct search_match {
	uint32_t track; /* timeline track index */
	uint32_t pad;
	int64_t ev;     /* event index on the track's line */
	int64_t start;  /* absolute ps, the sort key */
};

struct search_result {
	struct search_match *m; /* sorted by start, then track, then event */
	size_t n;
	size_t limit_hit;       /* matches beyond the cap, not listed (0 normally) */
};

struct xt_analysis;

/* Runs query over every track of tl: event names, and on device lines the
 * ops of kernels, those in command buffers by the op an (NULL: not yet
 * analysed) attributes them to. Never NULL; free with search_free(). */
struct search_result *search_run(struct timeline *tl, const struct xt_analysis *an,
				 const char *query);
void search_free(struct search_result *r);
/* Index of the first match after (dir > 0) / before (dir < 0) event ev of
 * track `track`, which starts at t, in the matches' order (ev -1: from t,
 * before any event of that track starting then); wraps around; -1 when
 * there are no matches. */
long search_next(const struct search_result *r, int64_t t, uint32_t track, int64_t ev, int dir);

#endif
