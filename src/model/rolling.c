/* rolling: see rolling.h. */
#include "rolling.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/timefmt.h"
#include "../util/xalloc.h"

/* The index key of an op: program, a unit separator, name. */
static size_t make_key(char *buf, size_t n, const char *program, const char *name)
{
	int k = snprintf(buf, n, "%s\x1f%s", program, name);

	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

struct rolling *rolling_new(size_t window)
{
	struct rolling *r = xcalloc(1, sizeof(*r));

	if (window < 1)
		window = 1;
	if (window > ROLLING_MAX_WINDOW)
		window = ROLLING_MAX_WINDOW;
	r->window = window;
	r->self_ps = xcalloc(window, sizeof(*r->self_ps));
	hmap_init(&r->index);
	return r;
}

static size_t op_bytes(const struct rolling *r, const struct rolling_op *o)
{
	return strlen(o->program) + strlen(o->name) + strlen(o->category) + 3 +
	       r->window * (sizeof(*o->self_ps) + sizeof(*o->occ) + sizeof(*o->ran));
}

static void op_fini(struct rolling_op *o)
{
	free(o->program);
	free(o->self_ps);
	free(o->occ);
	free(o->ran);
}

void rolling_free(struct rolling *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nops; i++)
		op_fini(&r->ops[i]);
	free(r->ops);
	free(r->self_ps);
	hmap_fini(&r->index);
	free(r);
}

static size_t op_find_or_add(struct rolling *r, const struct xt_op_row *row)
{
	char key[2048];
	size_t len = make_key(key, sizeof(key), row->program, row->name);
	int inserted = 0;
	uint32_t *v = hmap_get(&r->index, key, len, (uint32_t)r->nops, &inserted);
	struct rolling_op *o;
	size_t lp, ln, lc;

	if (!inserted)
		return *v;
	if (r->nops == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ops = xreallocarray(r->ops, r->cap, sizeof(*r->ops));
	}
	o = &r->ops[r->nops++];
	memset(o, 0, sizeof(*o));
	lp = strlen(row->program);
	ln = strlen(row->name);
	lc = strlen(row->category);
	o->program = xmalloc(lp + ln + lc + 3);
	memcpy(o->program, row->program, lp + 1);
	o->name = o->program + lp + 1;
	memcpy(o->name, row->name, ln + 1);
	o->category = o->name + ln + 1;
	memcpy(o->category, row->category, lc + 1);
	o->self_ps = xcalloc(r->window, sizeof(*o->self_ps));
	o->occ = xcalloc(r->window, sizeof(*o->occ));
	o->ran = xcalloc(r->window, sizeof(*o->ran));
	r->bytes += op_bytes(r, o);
	return r->nops - 1;
}

/* Drops the ops that ran in none of the ring's captures and rebuilds the
 * index (hmap has no delete, and its key storage would otherwise grow with
 * every op ever seen). */
static void evict(struct rolling *r)
{
	size_t i, k = 0;
	char key[2048];

	for (i = 0; i < r->nops; i++) {
		if (r->ops[i].seen) {
			r->ops[k++] = r->ops[i];
			continue;
		}
		r->bytes -= op_bytes(r, &r->ops[i]);
		op_fini(&r->ops[i]);
	}
	if (k == r->nops)
		return;
	r->nops = k;
	hmap_fini(&r->index);
	hmap_init(&r->index);
	for (i = 0; i < r->nops; i++) {
		size_t len = make_key(key, sizeof(key), r->ops[i].program, r->ops[i].name);
		int inserted;

		*hmap_get(&r->index, key, len, (uint32_t)i, &inserted) = (uint32_t)i;
	}
	/* Shrink a table that emptied a lot (a workload that changed). */
	if (r->cap > 64 && r->nops < r->cap / 4) {
		r->cap /= 2;
		r->ops = xreallocarray(r->ops, r->cap, sizeof(*r->ops));
	}
}

/* Sets same_name on ops whose name another kept op (of another program)
 * has. */
static void mark_same_names(struct rolling *r)
{
	struct hmap names;
	size_t i;

	hmap_init(&names);
	for (i = 0; i < r->nops; i++) {
		int inserted;
		uint32_t *first = hmap_get(&names, r->ops[i].name, strlen(r->ops[i].name), (uint32_t)i,
					   &inserted);

		r->ops[i].same_name = !inserted;
		if (!inserted)
			r->ops[*first].same_name = 1;
	}
	hmap_fini(&names);
}

void rolling_add(struct rolling *r, const struct xt_op_row *rows, size_t n, int64_t self_ps)
{
	size_t slot = r->n ? (r->head + 1) % r->window : 0, i;

	if (r->n == r->window) {
		/* The oldest capture leaves the ring. */
		for (i = 0; i < r->nops; i++) {
			struct rolling_op *o = &r->ops[i];

			o->sum_self_ps = xt_sat_sub(o->sum_self_ps, o->self_ps[slot]);
			o->sum_occ -= o->occ[slot];
			o->seen -= o->ran[slot];
			o->self_ps[slot] = 0;
			o->occ[slot] = 0;
			o->ran[slot] = 0;
		}
		/* Before the new capture comes in, so that the table never holds
		 * more than the ops of window captures. */
		evict(r);
	} else {
		r->n++;
	}
	r->head = slot;
	r->self_ps[slot] = self_ps;
	r->added++;
	for (i = 0; i < n; i++) {
		size_t k = op_find_or_add(r, &rows[i]); /* may move r->ops */
		struct rolling_op *o = &r->ops[k];

		o->self_ps[slot] += rows[i].self_ps;
		o->occ[slot] += rows[i].occurrences;
		o->sum_self_ps = xt_sat_add(o->sum_self_ps, rows[i].self_ps);
		o->sum_occ += rows[i].occurrences;
		if (!o->ran[slot]) {
			o->ran[slot] = 1;
			o->seen++;
		}
	}
	mark_same_names(r);
}

int64_t rolling_latest_ps(const struct rolling *r, size_t i)
{
	return r->ops[i].self_ps[r->head];
}

uint64_t rolling_latest_occ(const struct rolling *r, size_t i)
{
	return r->ops[i].occ[r->head];
}

int rolling_ran_latest(const struct rolling *r, size_t i)
{
	return r->ops[i].ran[r->head];
}

double rolling_avg_ps(const struct rolling *r, size_t i)
{
	return r->n ? (double)r->ops[i].sum_self_ps / (double)r->n : NAN;
}

int rolling_change(const struct rolling *r, size_t i, double *delta_ps, double *percent)
{
	double avg = rolling_avg_ps(r, i);

	*delta_ps = NAN;
	*percent = NAN;
	if (r->n < 2)
		return 0;
	*delta_ps = (double)rolling_latest_ps(r, i) - avg;
	if (avg > 0)
		*percent = *delta_ps / avg * 100.0;
	return 1;
}

double rolling_share(const struct rolling *r, size_t i)
{
	int64_t total = rolling_latest_self(r);

	return total > 0 ? (double)rolling_latest_ps(r, i) / (double)total * 100.0 : NAN;
}

int rolling_is_new(const struct rolling *r, size_t i)
{
	return r->n >= 2 && r->ops[i].seen == 1 && rolling_ran_latest(r, i);
}

int64_t rolling_latest_self(const struct rolling *r)
{
	return r->n ? r->self_ps[r->head] : 0;
}

void rolling_key(const struct rolling *r, size_t i, char *buf, size_t n)
{
	const struct rolling_op *o = &r->ops[i];

	snprintf(buf, n, "%s%s%s", o->program, o->program[0] ? "/" : "", o->name);
}

size_t rolling_bytes(const struct rolling *r)
{
	size_t keys = 0, i;

	/* The index's slots and, roughly, its copies of the keys. */
	for (i = 0; i < r->nops; i++)
		keys += strlen(r->ops[i].program) + strlen(r->ops[i].name) + 1;
	return sizeof(*r) + r->window * sizeof(*r->self_ps) + r->cap * sizeof(*r->ops) + r->bytes +
	       r->index.cap * sizeof(*r->index.slots) + keys;
}

/* ---- columns ---- */

#define R(ctx) ((const struct rolling *)(ctx))

static void put_ps(char *buf, size_t n, int64_t ps)
{
	if (ps == 0)
		snprintf(buf, n, "0");
	else
		fmt_ps(buf, n, ps);
}

static void t_latest(void *ctx, size_t i, char *buf, size_t n)
{
	put_ps(buf, n, rolling_latest_ps(R(ctx), i));
}

static void t_avg(void *ctx, size_t i, char *buf, size_t n)
{
	put_ps(buf, n, (int64_t)llround(rolling_avg_ps(R(ctx), i)));
}

static void t_change(void *ctx, size_t i, char *buf, size_t n)
{
	double d, pct;
	int64_t v;
	char t[32];

	if (!rolling_change(R(ctx), i, &d, &pct)) {
		snprintf(buf, n, "-");
		return;
	}
	v = (int64_t)llround(d);
	if (!v) {
		snprintf(buf, n, "0");
		return;
	}
	fmt_ps(t, sizeof(t), xt_sat_abs(v));
	snprintf(buf, n, "%c%s", v < 0 ? '-' : '+', t);
}

static void t_change_pct(void *ctx, size_t i, char *buf, size_t n)
{
	double d, pct;

	if (rolling_is_new(R(ctx), i))
		snprintf(buf, n, "new");
	else if (!rolling_change(R(ctx), i, &d, &pct) || isnan(pct))
		snprintf(buf, n, "-");
	else if (fabs(pct) < 0.05)
		snprintf(buf, n, "0%%");
	else if (pct >= 99999.5)
		snprintf(buf, n, ">+1e5%%"); /* a spike: no figure fits CHG% */
	else if (pct <= -99999.5)
		snprintf(buf, n, "<-1e5%%"); /* below -100 %: a negative time */
	else
		fmt_pct_change(buf, n, pct); /* whole percents from 1000 %: 7 columns */
}

static void t_occ(void *ctx, size_t i, char *buf, size_t n)
{
	fmt_count_fit(buf, n, rolling_latest_occ(R(ctx), i), 7); /* COUNT's width */
}

static void t_share(void *ctx, size_t i, char *buf, size_t n)
{
	double s = rolling_share(R(ctx), i);

	if (isnan(s))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", s);
}

static void t_seen(void *ctx, size_t i, char *buf, size_t n)
{
	/* Seven columns: "100/100", and "999/1k" of a thousand kept. */
	if (R(ctx)->n >= 1000)
		snprintf(buf, n, "%u/1k", R(ctx)->ops[i].seen);
	else
		snprintf(buf, n, "%u/%zu", R(ctx)->ops[i].seen, R(ctx)->n);
}

static void t_program(void *ctx, size_t i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", R(ctx)->ops[i].program);
}

static void t_name(void *ctx, size_t i, char *buf, size_t n)
{
	const struct rolling_op *o = &R(ctx)->ops[i];

	if (o->same_name && o->program[0])
		snprintf(buf, n, "%s (%s)", o->name, o->program);
	else
		snprintf(buf, n, "%s", o->name);
}

/* Largest first. */
static int desc(double a, double b)
{
	return (a < b) - (a > b);
}

/* Largest first, absent values (NAN) last. */
static int desc_nan(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return desc(a, b);
}

static int c_latest(void *ctx, size_t a, size_t b)
{
	return desc((double)rolling_latest_ps(R(ctx), a), (double)rolling_latest_ps(R(ctx), b));
}

static int c_avg(void *ctx, size_t a, size_t b)
{
	return desc(rolling_avg_ps(R(ctx), a), rolling_avg_ps(R(ctx), b));
}

/* The change both ways: the largest move first, whatever its sign. */
static int c_change(void *ctx, size_t a, size_t b)
{
	double da, db, pa, pb;

	rolling_change(R(ctx), a, &da, &pa);
	rolling_change(R(ctx), b, &db, &pb);
	return desc_nan(fabs(da), fabs(db));
}

static int c_change_pct(void *ctx, size_t a, size_t b)
{
	double da, db, pa, pb;
	int na = rolling_is_new(R(ctx), a), nb = rolling_is_new(R(ctx), b);

	if (na != nb)
		return nb - na; /* new ops first */
	rolling_change(R(ctx), a, &da, &pa);
	rolling_change(R(ctx), b, &db, &pb);
	return desc_nan(fabs(pa), fabs(pb));
}

static int c_occ(void *ctx, size_t a, size_t b)
{
	return desc((double)rolling_latest_occ(R(ctx), a), (double)rolling_latest_occ(R(ctx), b));
}

static int c_share(void *ctx, size_t a, size_t b)
{
	return desc_nan(rolling_share(R(ctx), a), rolling_share(R(ctx), b));
}

static int c_seen(void *ctx, size_t a, size_t b)
{
	return desc(R(ctx)->ops[a].seen, R(ctx)->ops[b].seen);
}

static int c_program(void *ctx, size_t a, size_t b)
{
	return strcmp(R(ctx)->ops[a].program, R(ctx)->ops[b].program);
}

static int c_name(void *ctx, size_t a, size_t b)
{
	return strcmp(R(ctx)->ops[a].name, R(ctx)->ops[b].name);
}

const struct rolling_column rolling_columns[ROLLING_NCOLS] = {
	[ROLLING_COL_LATEST] = { "LATEST", 8, 1, 0, t_latest, c_latest,
				 "self time in the newest capture" },
	[ROLLING_COL_AVG] = { "AVG", 8, 1, 0, t_avg, c_avg,
			      "self time averaged over the captures kept (0 where it did not run)" },
	[ROLLING_COL_CHANGE] = { "CHANGE", 9, 1, 0, t_change, c_change,
				 "latest minus average (sorts by size, either way)" },
	[ROLLING_COL_CHANGE_PCT] = { "CHG%", 7, 1, 0, t_change_pct, c_change_pct,
				     "the change in % of the average; new: only in the newest capture" },
	[ROLLING_COL_OCC] = { "COUNT", 7, 1, 2, t_occ, c_occ, "occurrences in the newest capture" },
	[ROLLING_COL_SHARE] = { "SHARE", 6, 1, 1, t_share, c_share,
				"latest self time in % of the newest capture's op self time (the op profile's %DEV)" },
	[ROLLING_COL_SEEN] = { "SEEN", 7, 1, 3, t_seen, c_seen,
			       "captures it ran in, of those kept" },
	[ROLLING_COL_PROGRAM] = { "PROGRAM", 16, 0, 4, t_program, c_program,
				  "the XLA program (module) the op belongs to" },
	[ROLLING_COL_NAME] = { "OP", 0, 0, 0, t_name, c_name, "the op" },
};

int rolling_column_find(const char *name)
{
	int c;

	if (!strcasecmp(name, "change%") || !strcasecmp(name, "change-pct"))
		return ROLLING_COL_CHANGE_PCT;
	if (!strcasecmp(name, "op") || !strcasecmp(name, "name"))
		return ROLLING_COL_NAME;
	if (!strcasecmp(name, "occurrences"))
		return ROLLING_COL_OCC;
	for (c = 0; c < ROLLING_NCOLS; c++)
		if (!strcasecmp(name, rolling_columns[c].name))
			return c;
	return -1;
}

struct sort_arg {
	const struct rolling *r;
	int c;
};

static int sort_cmp(const void *x, const void *y, void *arg)
{
	const struct sort_arg *s = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int k = rolling_columns[s->c].cmp((void *)s->r, a, b);

	return k ? k : (a > b) - (a < b);
}

void rolling_sorted(const struct rolling *r, int c, size_t *out)
{
	struct sort_arg s = { r, c };
	size_t i;

	for (i = 0; i < r->nops; i++)
		out[i] = i;
	if (c >= 0 && c < ROLLING_NCOLS && r->nops > 1)
		qsort_r(out, r->nops, sizeof(*out), sort_cmp, &s);
}
