/*
 * xplane_pool: the reader's second pass (xplane_int.h): a host's lines
 * decoded by worker threads, each line's hook run by whoever completes it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/xalloc.h"
#include "line_decode.h"
#include "xplane_int.h"

/*
 * The pool: lines are taken largest first; a line of LINE_SPLIT_MIN or
 * more is walked by the thread that takes it, which hands out its chunks
 * as it finds them (line_decode.h), and any thread decodes ready chunks
 * before starting another line. Whoever completes a line runs the hook.
 */
struct line_job {
	struct xt_plane *plane;
	struct xt_line *line;
	struct line_split *split; /* while a big line is in pieces */
	_Atomic uint64_t counted; /* progress bytes already reported */
	_Atomic uint64_t counted_ev; /* and events: a big line's, chunk by chunk */
	int first;                /* a viewer's: shorter than a chunk (job_cmp_live) */
};

struct chunk_task {
	struct line_job *job;
	size_t k;
};

struct pool {
	struct reader *r;
	struct line_job *jobs;
	size_t njobs, next;     /* next line to take */
	struct chunk_task *ready; /* chunks that may be decoded, oldest first */
	size_t head, nready, capready;
	int walking;            /* walks under way (they add chunks) */
	pthread_mutex_t lock;   /* guards next, ready, head, nready, walking */
	pthread_cond_t cond;
	atomic_int failed;
	atomic_int retry;       /* a line proved the time base needs exact_peek */
	char msg[512];
	uint64_t split;         /* lines this long are split (split_bytes) */
	int cancelled;          /* (under lock) the failure is a cancel */
};

static int cancelled(const struct pool *pl)
{
	const struct xplane_load_opts *o = pl->r->opts;

	return o && o->cancel && atomic_load(o->cancel);
}

/* The size of a big line's chunks: a third of the size that splits. */
static uint64_t pool_chunk(const struct pool *pl)
{
	return pl->split / 3;
}

static int split_line(const struct pool *pl, const struct line_job *j)
{
	return j->line->raw_len >= pl->split && j->line->raw_len <= UINT32_MAX;
}

/* A walk runs at most this many chunks ahead of their decoding, so a big
 * line's pages are resident for a few chunks at a time. */
#define POOL_AHEAD 2

static int64_t rebase_ns(int64_t ts, int64_t base)
{
	int64_t d;

	if (__builtin_sub_overflow(ts, base, &d))
		d = ts < base ? -XT_TS_LIMIT_NS : XT_TS_LIMIT_NS;
	return d < -XT_TS_LIMIT_NS ? -XT_TS_LIMIT_NS : d > XT_TS_LIMIT_NS ? XT_TS_LIMIT_NS : d;
}

static void pool_fail(struct pool *pl, int rc, const struct line_job *j)
{
	pthread_mutex_lock(&pl->lock);
	if (!atomic_load(&pl->failed)) {
		if (rc == XT_ECANCEL)
			snprintf(pl->msg, sizeof(pl->msg), "%s: loading stopped", pl->r->path);
		else if (rc == LINE_ERETRY)
			snprintf(pl->msg, sizeof(pl->msg),
				 "%s: a line of plane '%s' has its timestamp after its events",
				 pl->r->path, j->plane->name);
		else if (rc == LINE_EBIG)
			snprintf(pl->msg, sizeof(pl->msg),
				 "%s: a line of plane '%s' holds more than 4 GiB of events (not supported)",
				 pl->r->path, j->plane->name);
		else
			snprintf(pl->msg, sizeof(pl->msg),
				 "%s: not a valid XSpace (malformed line in plane '%s')", pl->r->path,
				 j->plane->name);
		atomic_store(&pl->retry, rc == LINE_ERETRY);
		pl->cancelled = rc == XT_ECANCEL;
		atomic_store(&pl->failed, 1);
	}
	pthread_cond_broadcast(&pl->cond);
	pthread_mutex_unlock(&pl->lock);
}

static void progress(struct pool *pl, uint64_t bytes, uint64_t events)
{
	const struct xplane_load_opts *o = pl->r->opts;

	if (o && o->progress_bytes && bytes)
		atomic_fetch_add(o->progress_bytes, bytes);
	if (o && o->progress_events && events)
		atomic_fetch_add(o->progress_events, events);
}

/* A decoded line: its timestamp rebased, the hook (given what the sink
 * collected, freed after), its pages given back. */
static void line_done(struct pool *pl, struct line_job *j, struct xt_sunk *sunk)
{
	struct reader *r = pl->r;
	uint64_t ce = atomic_load(&j->counted_ev);

	j->line->timestamp_ns = rebase_ns(j->line->timestamp_ns, r->h->ts_base_ns);
	if (r->opts && r->opts->line_hook)
		r->opts->line_hook(r->opts->ctx, r->h, j->plane, j->line,
				   r->opts->sink ? sunk : NULL);
	if (sunk->nparts)
		line_sunk_free(r->opts->sink, sunk);
	progress(pl, j->line->raw_len - atomic_load(&j->counted),
		 j->line->nev > ce ? j->line->nev - ce : 0);
	source_release(&r->h->src, j->line->raw_off, j->line->raw_len);
	if (r->opts && r->opts->live) {
		/* Shown from now on; the counts grow with it. */
		struct xt_live *lv = r->opts->live;

		pthread_mutex_lock(&lv->lock);
		j->line->loading = 0;
		j->plane->nev += j->line->nev;
		r->h->nev += j->line->nev;
		r->t->nev += j->line->nev;
		lv->version++;
		pthread_mutex_unlock(&lv->lock);
	}
}

static void run_chunk(struct pool *pl, struct chunk_task t, struct arena *a)
{
	struct line_split *s = t.job->split;
	uint64_t bytes = line_split_chunk_bytes(s, t.k), events = line_split_chunk_events(s, t.k);
	int rc = line_split_chunk(s, t.k);

	if (rc < 0) {
		pool_fail(pl, rc, t.job);
		return;
	}
	/* The status line's count moves while a big line decodes: "0 events"
	 * at 54 % of a profile of two lines read as an empty one. */
	atomic_fetch_add(&t.job->counted, bytes);
	atomic_fetch_add(&t.job->counted_ev, events);
	progress(pl, bytes, events);
	if (line_split_done(s)) {
		struct xt_sunk sunk;

		t.job->split = NULL;
		rc = line_split_finish(s, &sunk, a);
		if (rc < 0)
			pool_fail(pl, rc, t.job);
		else
			line_done(pl, t.job, &sunk);
	}
}

struct walk_ctx {
	struct pool *pl;
	struct line_job *job;
	struct arena *a;
};

/* line_split_walk's callback: queues chunk k, and decodes an older one
 * itself when the walk gets too far ahead. */
static void chunk_ready(void *arg, struct line_split *s, size_t k)
{
	struct walk_ctx *w = arg;
	struct pool *pl = w->pl;
	struct chunk_task t;
	int run = 0;

	(void)s;
	pthread_mutex_lock(&pl->lock);
	if (pl->nready == pl->capready) {
		pl->capready = pl->capready ? 2 * pl->capready : 64;
		pl->ready = xreallocarray(pl->ready, pl->capready, sizeof(*pl->ready));
	}
	pl->ready[pl->nready++] = (struct chunk_task){ w->job, k };
	if (pl->nready - pl->head > POOL_AHEAD && !atomic_load(&pl->failed)) {
		t = pl->ready[pl->head++];
		run = 1;
	}
	pthread_cond_signal(&pl->cond);
	pthread_mutex_unlock(&pl->lock);
	if (run)
		run_chunk(pl, t, w->a);
}

/* What line j keeps of its events (xplane_load_opts.line_keep). */
static int line_keeps(const struct reader *r, const struct line_job *j)
{
	const struct xplane_load_opts *o = r->opts;
	struct xplane_line_head hd;

	if (!o || !o->line_keep || !o->sink || o->live)
		return XT_KEEP_ALL;
	(void)xplane_line_peek(r->h, j->line, 0, &hd);
	if (!hd.name)
		return XT_KEEP_ALL; /* named after its events, or not at all */
	return o->line_keep(o->ctx, r->h, j->plane, hd.name, hd.nname);
}

static void run_line(struct pool *pl, struct line_job *j, struct arena *a)
{
	struct reader *r = pl->r;
	struct line_in in = { .h = r->h, .src = &r->h->src, .p = j->plane, .l = j->line, .a = a,
			      .exact_peek = r->opts && r->opts->exact_peek,
			      .chunk = pool_chunk(pl), .sink = r->opts ? r->opts->sink : NULL,
			      .keep = line_keeps(r, j) };
	struct xt_sunk sunk;
	int rc;

	if (!split_line(pl, j)) {
		rc = line_decode(&in, &sunk);
		if (rc < 0)
			pool_fail(pl, rc, j);
		else
			line_done(pl, j, &sunk);
		return;
	}
	{
		struct walk_ctx w = { pl, j, a };

		j->split = line_split_new(&in);
		rc = line_split_walk(j->split, chunk_ready, &w);
		pthread_mutex_lock(&pl->lock);
		pl->walking--;
		pthread_cond_broadcast(&pl->cond);
		pthread_mutex_unlock(&pl->lock);
		if (rc < 0) {
			pool_fail(pl, rc, j);
			return;
		}
		if (line_split_done(j->split)) {
			struct line_split *s = j->split;

			j->split = NULL;
			rc = line_split_finish(s, &sunk, a);
			if (rc < 0)
				pool_fail(pl, rc, j);
			else
				line_done(pl, j, &sunk);
		}
	}
}

struct worker_arg {
	struct pool *pool;
	struct arena *arena;
};

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pl = wa->pool;

	for (;;) {
		struct chunk_task t;
		struct line_job *j = NULL;

		if (cancelled(pl))
			pool_fail(pl, XT_ECANCEL, NULL);
		pthread_mutex_lock(&pl->lock);
		while (!atomic_load(&pl->failed) && pl->head == pl->nready && pl->next >= pl->njobs &&
		       pl->walking)
			pthread_cond_wait(&pl->cond, &pl->lock);
		if (atomic_load(&pl->failed)) {
			pthread_mutex_unlock(&pl->lock);
			break;
		}
		if (pl->head < pl->nready) {
			t = pl->ready[pl->head++];
			pthread_mutex_unlock(&pl->lock);
			run_chunk(pl, t, wa->arena);
			continue;
		}
		if (pl->next < pl->njobs) {
			j = &pl->jobs[pl->next++];
			if (split_line(pl, j))
				pl->walking++;
		}
		pthread_mutex_unlock(&pl->lock);
		if (!j)
			break;
		run_line(pl, j, wa->arena);
	}
	return NULL;
}

static int job_cmp(const void *a, const void *b)
{
	const struct line_job *x = a, *y = b;

	/* Largest lines first, so the last worker to finish has a small tail. */
	if (x->line->raw_len != y->line->raw_len)
		return x->line->raw_len > y->line->raw_len ? -1 : 1;
	return 0;
}

/* A viewer's order: lines shorter than a chunk first, smallest first, so
 * that they appear at once; then the rest largest first, as job_cmp. */
static int job_cmp_live(const void *a, const void *b)
{
	const struct line_job *x = a, *y = b;

	if (x->first != y->first)
		return x->first ? -1 : 1;
	return x->first ? job_cmp(b, a) : job_cmp(a, b);
}

int xplane_read_lines(struct reader *r, struct xt_error *err)
{
	struct pool pl;
	size_t p, l, i, total = 0;
	int nthreads = r->opts && r->opts->threads ? r->opts->threads : 0;
	pthread_t tid[8];
	struct worker_arg wa[8];
	struct arena arenas[8];

	if (nthreads <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		nthreads = c > 0 ? (int)c : 1;
	}
	if (nthreads > 8)
		nthreads = 8;
	memset(&pl, 0, sizeof(pl));
	pl.r = r;
	pl.split = r->opts && r->opts->split_bytes ? r->opts->split_bytes : LINE_SPLIT_MIN;
	for (p = 0; p < r->h->nplanes; p++)
		total += r->h->planes[p].nlines;
	pl.jobs = xcalloc(total ? total : 1, sizeof(*pl.jobs));
	for (p = 0; p < r->h->nplanes; p++)
		for (l = 0; l < r->h->planes[p].nlines; l++) {
			pl.jobs[pl.njobs].plane = &r->h->planes[p];
			pl.jobs[pl.njobs].line = &r->h->planes[p].lines[l];
			pl.jobs[pl.njobs].first = r->h->planes[p].lines[l].raw_len < pool_chunk(&pl);
			pl.njobs++;
		}
	/* A viewer draws a line once it is whole: its small lines first, so
	 * that a profile whose bytes are nearly all in one or two big lines
	 * shows its other rows at once, not after the big ones. The big ones
	 * keep their order: the last one's finish (one thread) then overlaps
	 * the mid-sized lines' decoding. */
	if (pl.njobs > 1)
		qsort(pl.jobs, pl.njobs, sizeof(*pl.jobs),
		      r->opts && r->opts->live ? job_cmp_live : job_cmp);
	atomic_init(&pl.failed, 0);
	atomic_init(&pl.retry, 0);
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.cond, NULL);
	for (i = 0; i < (size_t)nthreads; i++) {
		arena_init(&arenas[i]);
		wa[i] = (struct worker_arg){ .pool = &pl, .arena = &arenas[i] };
	}
	/* The calling thread is worker 0. */
	for (i = 1; i < (size_t)nthreads; i++)
		if (pthread_create(&tid[i], NULL, worker, &wa[i]) != 0)
			fatal("cannot create a thread");
	worker(&wa[0]);
	for (i = 1; i < (size_t)nthreads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < (size_t)nthreads; i++)
		arena_adopt(&r->t->arena, &arenas[i]);
	for (i = 0; i < pl.njobs; i++)
		line_split_free(pl.jobs[i].split); /* a failed load's pieces */
	pthread_cond_destroy(&pl.cond);
	pthread_mutex_destroy(&pl.lock);
	free(pl.ready);
	free(pl.jobs);
	if (atomic_load(&pl.failed))
		return xt_error_set(err, atomic_load(&pl.retry) ? XT_ERETRY
					 : pl.cancelled         ? XT_ECANCEL
								: XT_EFORMAT,
				    "%s", pl.msg);
	return 0;
}

