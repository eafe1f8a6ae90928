/*
 * clock: see clock.h. The rules are those of docs/analyses.md, "Time base"
 * and "Several hosts"; tests/oracle/xspace_oracle.py implements them again
 * (CHOICE C18, C29, C30).
 */
#include "clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/parfor.h"
#include "../util/hmap.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "stats.h"

const char *const xt_align_names[XT_ALIGN_COUNT] = { "none", "task_environment",
						     "shared_clock" };
const char *const xt_skew_method_names[XT_SKEW_COUNT] = { NULL, "reference", "collectives",
							  "device_steps" };

#define HOUR_NS 3600000000000LL

/* ---- placing a host (before its lines are read) ---- */

/* ts - base, clamped to the limit (as the reader stores timestamps). */
static int64_t rebased(int64_t ts, int64_t base)
{
	int64_t d;

	if (__builtin_sub_overflow(ts, base, &d))
		d = ts < base ? -XT_TS_LIMIT_NS : XT_TS_LIMIT_NS;
	return d < -XT_TS_LIMIT_NS ? -XT_TS_LIMIT_NS : d > XT_TS_LIMIT_NS ? XT_TS_LIMIT_NS : d;
}

/* 1 when ts lies within XT_TS_LIMIT_NS of base. */
static int near(int64_t ts, int64_t base)
{
	int64_t d;

	return !__builtin_sub_overflow(ts, base, &d) && d > -XT_TS_LIMIT_NS && d < XT_TS_LIMIT_NS;
}

void clock_host_base(struct xt_trace *t, struct xt_host *h, int64_t lo, int64_t hi)
{
	uint64_t s = h->profile_start_ns, e = h->profile_stop_ns;
	int has_start = s && s <= (uint64_t)INT64_MAX;
	int64_t window = HOUR_NS;

	h->ts_base_ns = 0;
	h->origin_ps = 0;
	h->origin_kind = XT_ORIGIN_NORMALIZED;
	h->aligned_by = XT_ALIGN_NONE;
	/* Normalized timestamps count from the profile start, so they are
	 * small: within the profile's length (when Task Environment says it)
	 * plus an hour. Anything larger is a raw clock. */
	if (s && e > s && e - s < (uint64_t)XT_TS_LIMIT_NS)
		window += (int64_t)(e - s);
	if (lo == INT64_MAX || (lo >= -window && hi <= window)) {
		/* Upstream normalizes each host to its own start (TSL's
		 * NormalizeTimestamps): the host's 0 is its profile_start_time
		 * on the wall clock, so it goes start - base after the trace's
		 * base. Without a start (or with one the trace's clock cannot
		 * reach) its 0 stays at the base: not aligned. */
		if (!has_start)
			return;
		if (!t->has_ts_base) {
			t->ts_base_ns = (int64_t)s;
			t->has_ts_base = 1;
		}
		if (!near((int64_t)s, t->ts_base_ns))
			return;
		h->ts_base_ns = t->ts_base_ns - (int64_t)s;
		h->origin_ps = -h->ts_base_ns * 1000;
		h->aligned_by = XT_ALIGN_TASK_ENV;
		return;
	}
	/* An absolute clock: rebased on the trace's base when it is near it
	 * (the hosts of one job share the clock), else on its first line. */
	if (t->has_ts_base && near(lo, t->ts_base_ns) && near(hi, t->ts_base_ns)) {
		h->ts_base_ns = t->ts_base_ns;
		h->aligned_by = XT_ALIGN_SHARED_CLOCK;
	} else {
		h->ts_base_ns = lo;
		if (!t->has_ts_base) {
			t->ts_base_ns = lo;
			t->has_ts_base = 1;
			h->aligned_by = XT_ALIGN_SHARED_CLOCK;
		}
	}
	h->origin_kind = XT_ORIGIN_FIRST_LINE;
	h->origin_ps = rebased(lo, h->ts_base_ns) * 1000;
	/* Task Environment's start when it is on the lines' clock: at most an
	 * hour before the first line and not after it. */
	if (has_start && (int64_t)s <= lo && near(lo, (int64_t)s) && lo - (int64_t)s <= HOUR_NS) {
		h->origin_ps = rebased((int64_t)s, h->ts_base_ns) * 1000;
		h->origin_kind = XT_ORIGIN_TASK_ENV;
	}
}

/* ---- saying it ---- */

char *clock_place_text(const struct xt_trace *t, const struct xt_host *h, char *buf, size_t n)
{
	int64_t off = clock_host_offset_ps(t, h);
	const char *how = "not aligned: its clock is unrelated to the trace's";
	char b[32];

	if (h->aligned_by == XT_ALIGN_TASK_ENV)
		how = "placed by its Task Environment start";
	else if (h->aligned_by == XT_ALIGN_SHARED_CLOCK)
		how = "on the clock the trace shares";
	else if (h->origin_kind == XT_ORIGIN_NORMALIZED &&
		 (!h->profile_start_ns || h->profile_start_ns > (uint64_t)INT64_MAX))
		how = "not aligned: no start time";
	snprintf(buf, n, "starts at %s%s, %s", off > 0 ? "+" : "", fmt_ps(b, sizeof(b), off), how);
	return buf;
}

char *clock_skew_text(const struct xt_trace *t, const struct xt_host *h, char *buf, size_t n)
{
	char b1[32], b2[32];
	size_t i;
	int ref = 0;

	for (i = 0; i < t->nhosts; i++)
		ref |= t->hosts[i].skew_method == XT_SKEW_REFERENCE;
	switch (h->skew_method) {
	case XT_SKEW_REFERENCE:
		snprintf(buf, n, "the reference (the other hosts' skew is against it)");
		break;
	case XT_SKEW_COLLECTIVES:
	case XT_SKEW_DEVICE_STEPS:
		if (h->skew_spread_ps < 0)
			snprintf(b2, sizeof(b2), "-");
		else
			fmt_ps(b2, sizeof(b2), h->skew_spread_ps);
		snprintf(buf, n, "%s%s, spread %s, from %u %s%s; %s", h->skew_ps > 0 ? "+" : "",
			 fmt_ps(b1, sizeof(b1), h->skew_ps), b2, (unsigned)h->skew_matches,
			 h->skew_method == XT_SKEW_COLLECTIVES ? "collective end" : "step start",
			 h->skew_matches == 1 ? "" : "s",
			 h->skew_corrected ? "corrected" : "not corrected");
		break;
	default:
		snprintf(buf, n, "unknown (%s)",
			 ref ? "nothing matches the reference host" : "no host has collectives or steps");
	}
	return buf;
}

/* ---- skew: events that happen at the same instant on every host ---- */

int clock_sync_collective(const char *name)
{
	static const char *const ops[] = { "allreduce", "allgather", "reducescatter", "alltoall" };
	char b[256];
	size_t n = 0, i;

	/* Case and separators differ between HLO ops (all-reduce.3,
	 * all-gather-done) and NCCL/RCCL kernels (ncclDevKernel_AllReduce_...). */
	for (; *name && n + 1 < sizeof(b); name++) {
		char c = *name;

		if (c == '-' || c == '_' || c == '.' || c == ' ')
			continue;
		b[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	b[n] = '\0';
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *at = strstr(b, ops[i]);

		/* The start half of an async collective returns before the data
		 * has moved: its end says nothing about the other hosts. */
		if (at && strncmp(at + strlen(ops[i]), "start", 5))
			return 1;
	}
	return 0;
}

/* One collective's end on one device, under a key naming the collective. */
struct sync_ev {
	uint64_t key;
	int64_t t_ps;
};

struct dev_sync {
	const char *plane;     /* the device plane's name */
	struct sync_ev *v;     /* sorted by (key, t_ps) */
	size_t n, cap;
};

/* One step on one host: the earliest start and latest end over its devices. */
struct step_span {
	int64_t id, s, e;
};

struct host_sync {
	struct dev_sync *dev;  /* device planes with collectives, in file order */
	size_t ndev;
	struct step_span *steps; /* by id */
	size_t nsteps;
};

static int sync_cmp(const void *x, const void *y)
{
	const struct sync_ev *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->t_ps > b->t_ps) - (a->t_ps < b->t_ps);
}

static int step_cmp(const void *x, const void *y)
{
	const struct step_span *a = x, *b = y;

	return (a->id > b->id) - (a->id < b->id);
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* XProf's derived lines (docs/analyses.md, "Which planes are devices"):
 * they repeat the events of the stream lines. */
static int derived_line(const struct xt_line *l)
{
	static const char *const names[] = {
		"Steps", "XLA Modules", "XLA Ops", "TensorFlow Ops", "Framework Ops",
		"TensorFlow Name Scope", "Framework Name Scope", "Source code", "Launch Stats",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(l->name, names[i]))
			return 1;
	return (l->id >= 0xdeadbeefLL && l->id <= 0xdeadbeefLL + 289) ||
	       (l->id >= (int64_t)(int32_t)0xdeadbeefu &&
		l->id <= (int64_t)(int32_t)0xdeadbeefu + 289);
}

static void key_add(char *k, size_t *n, size_t cap, const void *p, size_t len)
{
	if (len > cap - *n)
		len = cap - *n;
	memcpy(k + *n, p, len);
	*n += len;
}

/* The stats that tell one collective from another of the same name: one
 * name runs once per program run, NCCL kernels of different ops share a
 * name. */
static const unsigned key_stats[3] = { XS_PROGRAM_ID, XS_RUN_ID, XS_HLO_OP };
#define KEY_STATS_MASK (1ull << XS_PROGRAM_ID | 1ull << XS_RUN_ID | 1ull << XS_HLO_OP)

/* The key of a collective: its name and whichever of key_stats it has,
 * ev[k] (the event's own, when its bit is in `found`) before meta[k] (its
 * metadata's, bits in `mhave`). */
static uint64_t sync_key(const char *name, const struct xt_stat *ev, uint64_t found,
			 const struct xt_stat *meta, uint64_t mhave)
{
	char k[1024];
	size_t n = 0, i;

	key_add(k, &n, sizeof(k), name, strlen(name) + 1);
	for (i = 0; i < 3; i++) {
		unsigned ks = key_stats[i];
		const struct xt_stat *s = (found >> ks) & 1 ? &ev[ks] : (mhave >> ks) & 1 ? &meta[i]
											 : NULL;
		char tag = (char)('0' + i);

		if (!s)
			continue;
		key_add(k, &n, sizeof(k), &tag, 1);
		if (s->kind == XT_STAT_STR || s->kind == XT_STAT_REF) {
			key_add(k, &n, sizeof(k), s->s, s->n);
		} else {
			int64_t v = stat_as_int(s);

			key_add(k, &n, sizeof(k), &v, sizeof(v));
		}
	}
	return hmap_hash(k, n);
}

/* Per event metadata of a collective: its key stats, and the key of an
 * event that has none of its own. */
struct meta_key {
	uint64_t have;
	struct xt_stat v[3];
	uint64_t key;
};

/* The ends of the plane's synchronizing collectives: on its XLA Ops line
 * when it has one, else on its stream (non-derived) lines. Metadata stats
 * are read once per metadata; an event's own stats are scanned for the
 * key stats only (stat_scan_event). */
static void plane_collectives(const struct xt_host *h, const struct xt_plane *p,
			      struct dev_sync *d)
{
	struct meta_key *mk = NULL;
	struct stat_want sw;
	struct xt_stat *out = NULL;
	int any = 0, xla = 0;
	size_t i, l;

	for (i = 1; i < p->nemeta; i++) {
		const struct xt_event_meta *m = &p->emeta[i];
		const char *name = m->display_name[0] ? m->display_name : m->name;
		struct stat_iter it;
		struct xt_stat st;
		size_t k;

		if (!clock_sync_collective(name))
			continue;
		if (!mk)
			mk = xcalloc(p->nemeta, sizeof(*mk));
		mk[i].have = 1; /* bit 0: a collective */
		stat_iter_meta(&it, h, p, m);
		while (stat_next(&it, &st))
			for (k = 0; k < 3; k++)
				if (stat_known(&st) == key_stats[k] && !((mk[i].have >> key_stats[k]) & 1)) {
					mk[i].v[k] = st;
					mk[i].have |= 1ull << key_stats[k];
				}
		mk[i].key = sync_key(name, NULL, 0, mk[i].v, mk[i].have);
		any = 1;
	}
	if (!any)
		return;
	stat_want_init(&sw, p, KEY_STATS_MASK);
	out = xcalloc(XS_COUNT, sizeof(*out));
	for (l = 0; l < p->nlines; l++)
		xla |= !strcmp(p->lines[l].name, "XLA Ops");
	for (l = 0; l < p->nlines; l++) {
		const struct xt_line *ln = &p->lines[l];

		if (xla ? strcmp(ln->name, "XLA Ops") != 0 : derived_line(ln))
			continue;
		for (i = 0; i < ln->nev; i++) {
			const struct xt_event *ev = &ln->ev[i];
			const struct meta_key *m = &mk[xt_event_meta_index(ev)];
			uint64_t found = 0;

			if (xt_event_aggregated(ev) || !m->have)
				continue;
			if (d->n == d->cap) {
				d->cap = d->cap ? d->cap * 2 : 64;
				d->v = xreallocarray(d->v, d->cap, sizeof(*d->v));
			}
			if (sw.n)
				stat_scan_event(h, p, ln, ev, &sw, out, &found);
			d->v[d->n].key = found ? sync_key(trace_event_display_name(p, ev), out, found,
							  m->v, m->have)
					       : m->key;
			d->v[d->n++].t_ps = xt_event_end(ln, ev);
		}
	}
	free(out);
	free(mk);
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), sync_cmp);
}

/* The steps of the host's device Steps lines (group_id, else step_num). */
static void host_steps(const struct xt_host *h, struct host_sync *hs)
{
	const uint64_t want = 1ull << XS_GROUP_ID | 1ull << XS_STEP_NUM;
	size_t p, l, i, cap = 0, k;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strncmp(pl->name, "/device:", 8))
			continue;
		for (l = 0; l < pl->nlines; l++) {
			const struct xt_line *ln = &pl->lines[l];

			if (strcmp(ln->name, "Steps"))
				continue;
			for (i = 0; i < ln->nev; i++) {
				const struct xt_event *ev = &ln->ev[i];
				struct xt_known_stats ks;
				int64_t id;

				if (xt_event_aggregated(ev))
					continue;
				stat_collect(&ks, h, pl, ln, ev, want);
				if (stat_has(&ks, XS_GROUP_ID))
					id = stat_as_int(&ks.v[XS_GROUP_ID]);
				else if (stat_has(&ks, XS_STEP_NUM))
					id = stat_as_int(&ks.v[XS_STEP_NUM]);
				else
					continue;
				if (hs->nsteps == cap) {
					cap = cap ? cap * 2 : 64;
					hs->steps = xreallocarray(hs->steps, cap, sizeof(*hs->steps));
				}
				hs->steps[hs->nsteps++] = (struct step_span){
					id, xt_event_start(ln, ev), xt_event_end(ln, ev)
				};
			}
		}
	}
	if (hs->nsteps > 1)
		qsort(hs->steps, hs->nsteps, sizeof(*hs->steps), step_cmp);
	/* One span per id: the host's devices together. */
	for (i = 0, k = 0; i < hs->nsteps; i++) {
		if (k && hs->steps[k - 1].id == hs->steps[i].id) {
			struct step_span *m = &hs->steps[k - 1];

			m->s = hs->steps[i].s < m->s ? hs->steps[i].s : m->s;
			m->e = hs->steps[i].e > m->e ? hs->steps[i].e : m->e;
		} else {
			hs->steps[k++] = hs->steps[i];
		}
	}
	hs->nsteps = k;
}

static void host_sync_build(const struct xt_host *h, struct host_sync *hs)
{
	size_t p;

	memset(hs, 0, sizeof(*hs));
	for (p = 0; p < h->nplanes; p++) {
		struct dev_sync d = { h->planes[p].name, NULL, 0, 0 };

		if (strncmp(h->planes[p].name, "/device:", 8))
			continue;
		plane_collectives(h, &h->planes[p], &d);
		if (!d.n) {
			free(d.v);
			continue;
		}
		hs->dev = xreallocarray(hs->dev, hs->ndev + 1, sizeof(*hs->dev));
		hs->dev[hs->ndev++] = d;
	}
	host_steps(h, hs);
}

static void host_sync_free(struct host_sync *hs)
{
	size_t i;

	for (i = 0; i < hs->ndev; i++)
		free(hs->dev[i].v);
	free(hs->dev);
	free(hs->steps);
}

struct offsets {
	int64_t *v;
	size_t n, cap;
};

/* Adds the offset x - ref (left out if it overflows: corrupt times). */
static void offsets_push(struct offsets *o, int64_t x, int64_t ref)
{
	int64_t d;

	if (__builtin_sub_overflow(x, ref, &d))
		return;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = xreallocarray(o->v, o->cap, sizeof(*o->v));
	}
	o->v[o->n++] = d;
}

/*
 * Each collective of device b against the nearest end of the same
 * collective on device a (the earlier one on a tie). A collective that
 * repeats (every step, or every iteration of a loop) can only be matched
 * up to its period, so a match counts only when it is unambiguous: the
 * second nearest end of that collective is at least XT_SKEW_AMBIGUITY
 * times as far, and at least XT_SKEW_MIN_REPEAT_PS away. Then any residual
 * below half that distance is measured right; one that is a whole number
 * of periods off cannot be told apart (docs/analyses.md, "Several hosts").
 */
#define XT_SKEW_AMBIGUITY 4
#define XT_SKEW_MIN_REPEAT_PS 10000000000LL /* 10 ms */
static void match_device(const struct dev_sync *a, const struct dev_sync *b, struct offsets *o)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct sync_ev *x = &b->v[i];
		size_t lo = 0, hi = a->n;
		int64_t dl = -1, du = -1, d1, d2 = -1, best;

		/* First entry of a not before (key, t). */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sync_cmp(&a->v[mid], x) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && a->v[lo - 1].key == x->key)
			dl = x->t_ps - a->v[lo - 1].t_ps;
		if (lo < a->n && a->v[lo].key == x->key)
			du = a->v[lo].t_ps - x->t_ps;
		if (dl < 0 && du < 0)
			continue;
		if (du >= 0 && (dl < 0 || du < dl)) {
			best = a->v[lo].t_ps;
			d1 = du;
			d2 = dl;
			if (lo + 1 < a->n && a->v[lo + 1].key == x->key &&
			    (d2 < 0 || a->v[lo + 1].t_ps - x->t_ps < d2))
				d2 = a->v[lo + 1].t_ps - x->t_ps;
		} else {
			best = a->v[lo - 1].t_ps;
			d1 = dl;
			d2 = du;
			if (lo > 1 && a->v[lo - 2].key == x->key &&
			    (d2 < 0 || x->t_ps - a->v[lo - 2].t_ps < d2))
				d2 = x->t_ps - a->v[lo - 2].t_ps;
		}
		if (d2 >= 0 && (d2 < XT_SKEW_MIN_REPEAT_PS || d2 / XT_SKEW_AMBIGUITY < d1))
			continue;
		offsets_push(o, x->t_ps, best);
	}
}

/* Devices are paired by plane name; when no name is shared (devices
 * numbered across the job), by their order among those with collectives. */
static void match_collectives(const struct host_sync *a, const struct host_sync *b,
			      struct offsets *o)
{
	size_t i, j, named = 0;

	for (i = 0; i < b->ndev; i++)
		for (j = 0; j < a->ndev; j++)
			if (!strcmp(a->dev[j].plane, b->dev[i].plane)) {
				match_device(&a->dev[j], &b->dev[i], o);
				named++;
				break;
			}
	if (named)
		return;
	for (i = 0; i < b->ndev && i < a->ndev; i++)
		match_device(&a->dev[i], &b->dev[i], o);
}

/* The steps of b against the same step id on a, when the two overlap
 * (XProf's step intersection also pairs steps by their overlap: an id
 * that numbers a different step on each host is not the same step). */
static void match_steps(const struct host_sync *a, const struct host_sync *b, struct offsets *o)
{
	size_t i;

	for (i = 0; i < b->nsteps; i++) {
		const struct step_span *x = &b->steps[i];
		size_t lo = 0, hi = a->nsteps;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (a->steps[mid].id < x->id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < a->nsteps && a->steps[lo].id == x->id && x->s <= a->steps[lo].e &&
		    a->steps[lo].s <= x->e)
			offsets_push(o, x->s, a->steps[lo].s);
	}
}

/* The nearest-rank percentile p of sorted v[0..n), n > 0. */
static int64_t rank_pct(const int64_t *v, size_t n, unsigned p)
{
	size_t r = (p * n + 99) / 100;

	return v[r ? r - 1 : 0];
}

static void estimate(struct xt_host *h, struct offsets *o, enum xt_skew_method m)
{
	qsort(o->v, o->n, sizeof(*o->v), i64_cmp);
	h->skew_method = (uint8_t)m;
	h->skew_matches = o->n > UINT32_MAX ? UINT32_MAX : (uint32_t)o->n;
	h->skew_ps = rank_pct(o->v, o->n, 50);
	/* One offset has no spread: 0 would read as offsets that agree. */
	if (o->n < 2)
		h->skew_spread_ps = -1;
	else if (__builtin_sub_overflow(rank_pct(o->v, o->n, 75), rank_pct(o->v, o->n, 25),
					&h->skew_spread_ps))
		h->skew_spread_ps = INT64_MAX;
}

/*
 * Whether h's estimate is robust enough to move its lines: the ends of
 * collectives (not steps, whose boundaries differ between hosts for other
 * reasons than clocks), at least XT_SKEW_MIN_MATCHES of them agreeing (the
 * interquartile range at most a quarter of the offset), a host and a
 * reference that were both placed on the clock (the residual of a wall
 * clock, not the gap between two unrelated time bases), and an offset of
 * at least a nanosecond (what a line timestamp can move) and at most an
 * hour.
 */
#define XT_SKEW_MIN_MATCHES 8
static int robust(const struct xt_host *h, const struct xt_host *ref)
{
	int64_t a = h->skew_ps < 0 ? -h->skew_ps : h->skew_ps;

	if (h->skew_ps == INT64_MIN)
		return 0;
	return h->skew_method == XT_SKEW_COLLECTIVES && h->skew_matches >= XT_SKEW_MIN_MATCHES &&
	       h->aligned_by != XT_ALIGN_NONE && ref->aligned_by != XT_ALIGN_NONE &&
	       h->skew_spread_ps <= a / 4 && a >= 500 && a <= HOUR_NS * 1000;
}

/* Moves every line of h back by ns (and its origin with it). */
static void host_shift(struct xt_host *h, int64_t ns)
{
	size_t p, l;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++) {
			struct xt_line *ln = &h->planes[p].lines[l];

			ln->timestamp_ns = rebased(ln->timestamp_ns, ns);
		}
	h->ts_base_ns += ns;
	h->origin_ps -= ns * 1000;
}

struct sync_pool {
	const struct xt_trace *t;
	struct host_sync *hs;
};

static void sync_job(void *arg, size_t h)
{
	struct sync_pool *sp = arg;

	host_sync_build(&sp->t->hosts[h], &sp->hs[h]);
}

/* The hosts' collectives and steps, a host per thread (they only read the
 * trace). */
static void sync_all(const struct xt_trace *t, struct host_sync *hs)
{
	struct sync_pool sp = { t, hs };

	par_for(t->nhosts, 0, sync_job, &sp);
}

size_t clock_settle(struct xt_trace *t)
{
	struct host_sync *hs;
	size_t h, ref = SIZE_MAX, moved = 0;

	for (h = 0; h < t->nhosts; h++) {
		t->hosts[h].skew_method = XT_SKEW_NONE;
		t->hosts[h].skew_corrected = 0;
		t->hosts[h].skew_ps = t->hosts[h].skew_spread_ps = 0;
		t->hosts[h].skew_matches = 0;
	}
	if (t->nhosts < 2)
		return 0;
	hs = xcalloc(t->nhosts, sizeof(*hs));
	sync_all(t, hs);
	/* The reference: the first host placed on the clock that has
	 * something to match, else the first that has anything. */
	for (h = 0; h < t->nhosts && ref == SIZE_MAX; h++)
		if ((hs[h].ndev || hs[h].nsteps) && t->hosts[h].aligned_by != XT_ALIGN_NONE)
			ref = h;
	for (h = 0; h < t->nhosts && ref == SIZE_MAX; h++)
		if (hs[h].ndev || hs[h].nsteps)
			ref = h;
	if (ref != SIZE_MAX) {
		t->hosts[ref].skew_method = XT_SKEW_REFERENCE;
		for (h = 0; h < t->nhosts; h++) {
			struct offsets o = { NULL, 0, 0 };

			if (h == ref)
				continue;
			match_collectives(&hs[ref], &hs[h], &o);
			if (o.n) {
				estimate(&t->hosts[h], &o, XT_SKEW_COLLECTIVES);
			} else {
				match_steps(&hs[ref], &hs[h], &o);
				if (o.n)
					estimate(&t->hosts[h], &o, XT_SKEW_DEVICE_STEPS);
			}
			free(o.v);
		}
		for (h = 0; h < t->nhosts; h++) {
			struct xt_host *x = &t->hosts[h];

			if (h == ref || !robust(x, &t->hosts[ref]))
				continue;
			/* To the nearest nanosecond, halves away from zero. */
			host_shift(x, x->skew_ps >= 0 ? (x->skew_ps + 500) / 1000
						      : -((-x->skew_ps + 500) / 1000));
			x->skew_corrected = 1;
			moved++;
		}
	}
	for (h = 0; h < t->nhosts; h++)
		host_sync_free(&hs[h]);
	free(hs);
	if (moved)
		trace_set_origin(t);
	return moved;
}
