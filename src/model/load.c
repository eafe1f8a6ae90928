/* load: see load.h. */
#include "load.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "../util/xalloc.h"
#include "clock.h"
#include "profile_path.h"
#include "xplane_reader.h"

struct load_job {
	char *path, *run;
	struct load_opts o;
	_Atomic uint64_t total, done, events;
	struct xt_live live;
	struct xt_trace *t;       /* the trace shown (under live.lock) */
	struct xt_trace **old;    /* traces of attempts that started over */
	size_t nold;
	atomic_int phase;         /* 0 decoding, 1 merging the analyses */
	atomic_int finished;
	atomic_int cancel;        /* load_job_cancel() */
	pthread_t tid;
	int rc;
	struct xt_trace *out_t;
	struct xt_analysis *out_a;
	struct xt_error err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* load_profile, and the body of a load job (job non-NULL: live). */
static int load_run(const char *path, const struct load_opts *o, struct load_job *job,
		    struct xt_trace **out_t, struct xt_analysis **out_a, struct xt_error *err)
{
	struct profile_set set;
	const struct profile_run *run;
	struct xt_trace *t;
	struct analysis_ctx *ac;
	struct xplane_load_opts lo = { 0 };
	double t0;
	size_t i, moved;
	int rc;

	*out_t = NULL;
	*out_a = NULL;
	rc = profile_scan(&set, path, err);
	if (rc < 0)
		return rc;
	run = profile_pick(&set, o ? o->run : NULL, path, err);
	if (!run) {
		profile_set_fini(&set);
		return XT_ENOENT;
	}
	if (o && o->picked) {
		free(o->picked->run);
		o->picked->run = xstrdup(run->name);
		o->picked->nruns = set.nruns;
	}
again:
	t = trace_new();
	ac = analysis_new();
	analysis_attach(ac, &lo);
	/* One host: no clock to settle, so no analyses run again on the
	 * decoded lines (clock_settle). */
	if (o && o->analyses_only && run->nfiles == 1 && !job)
		analysis_keep_none(ac, &lo);
	lo.threads = o ? o->threads : 0;
	lo.keep_resident = o ? o->keep_resident : 0;
	if (o) {
		lo.progress_bytes = o->bytes_done;
		lo.progress_events = o->events;
	}
	if (o && o->bytes_total) {
		uint64_t total = 0;

		for (i = 0; i < run->nfiles; i++)
			total += run->files[i].size;
		atomic_store(o->bytes_total, total);
	}
	if (job) {
		/* Shown from the start; hosts must not move as they come. */
		trace_reserve_hosts(t, run->nfiles);
		lo.live = &job->live;
		lo.cancel = &job->cancel;
		pthread_mutex_lock(&job->live.lock);
		if (job->t) {
			job->old = xreallocarray(job->old, job->nold + 1, sizeof(*job->old));
			job->old[job->nold++] = job->t;
		}
		job->t = t;
		job->live.version++;
		pthread_mutex_unlock(&job->live.lock);
	}
	t0 = now_s();
	for (i = 0; i < run->nfiles; i++) {
		rc = xplane_load(t, run->files[i].path, run->files[i].host, &lo, err);
		if (rc < 0) {
			analysis_abort(ac, t);
			if (!job)
				trace_free(t); /* a live trace is freed with the job */
			if (rc == XT_ERETRY && !lo.exact_peek) {
				/* A file wrote a line's timestamp after its events:
				 * everything again, reading each line to its end to
				 * choose the time base (xplane_load_opts). */
				lo.exact_peek = 1;
				if (o && o->bytes_done)
					atomic_store(o->bytes_done, 0);
				if (o && o->events)
					atomic_store(o->events, 0);
				goto again;
			}
			profile_set_fini(&set);
			return rc;
		}
	}
	profile_set_fini(&set);
	if (getenv("XTOP_TIMING")) {
		/* CPU so far too: whether both cores were busy. */
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "xtop: decode + line analyses: %.3f s (process CPU so far: user %.2f s, "
				"system %.2f s)\n",
			now_s() - t0, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
			(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6);
	}
	if (job)
		atomic_store(&job->phase, 1);
	*out_a = analysis_finish(ac, t);
	/* Hosts whose clocks are off by a robust estimate move by it; the
	 * analyses hold absolute times, so they run again on the moved lines
	 * (only then: the skew is measured on decoded events, after the
	 * analyses that ran during the load). A trace the viewer shows moves
	 * under its lock. */
	if (job)
		pthread_mutex_lock(&job->live.lock);
	moved = clock_settle(t);
	if (job) {
		if (moved)
			job->live.version++;
		pthread_mutex_unlock(&job->live.lock);
	}
	if (moved) {
		t0 = now_s();
		analysis_free(*out_a);
		ac = analysis_new();
		analysis_run(ac, t);
		*out_a = analysis_finish(ac, t);
		if (getenv("XTOP_TIMING"))
			fprintf(stderr, "xtop: analyses again after the clock skew correction: %.3f s\n",
				now_s() - t0);
	}
	*out_t = t;
	return 0;
}

int load_profile(const char *path, const struct load_opts *o, struct xt_trace **out_t,
		 struct xt_analysis **out_a, struct xt_error *err)
{
	return load_run(path, o, NULL, out_t, out_a, err);
}

static void *job_main(void *arg)
{
	struct load_job *j = arg;

	j->rc = load_run(j->path, &j->o, j, &j->out_t, &j->out_a, &j->err);
	atomic_store(&j->finished, 1);
	return NULL;
}

struct load_job *load_job_start(const char *path, const struct load_opts *o)
{
	struct load_job *j = xcalloc(1, sizeof(*j));

	j->path = xstrdup(path);
	if (o)
		j->o = *o;
	j->run = o && o->run ? xstrdup(o->run) : NULL;
	j->o.run = j->run;
	j->o.bytes_total = &j->total;
	j->o.bytes_done = &j->done;
	j->o.events = &j->events;
	pthread_mutex_init(&j->live.lock, NULL);
	j->t = trace_new(); /* empty until the first host comes */
	if (pthread_create(&j->tid, NULL, job_main, j) != 0)
		fatal("cannot create a thread");
	return j;
}

void load_job_lock(struct load_job *j)
{
	pthread_mutex_lock(&j->live.lock);
}

void load_job_unlock(struct load_job *j)
{
	pthread_mutex_unlock(&j->live.lock);
}

struct xt_trace *load_job_trace(struct load_job *j, unsigned *version)
{
	*version = j->live.version;
	return j->t;
}

double load_job_progress(const struct load_job *j, int *phase, uint64_t *events)
{
	uint64_t total = atomic_load(&j->total), done = atomic_load(&j->done);

	*phase = atomic_load(&j->phase);
	*events = atomic_load(&j->events);
	return total ? (double)done / (double)total : 0.0;
}

int load_job_done(const struct load_job *j)
{
	return atomic_load(&j->finished);
}

void load_job_cancel(struct load_job *j)
{
	atomic_store(&j->cancel, 1);
}

int load_job_finish(struct load_job *j, struct xt_trace **t, struct xt_analysis **a,
		    struct xt_error *err)
{
	int rc;
	size_t i;

	pthread_join(j->tid, NULL);
	rc = j->rc;
	*t = j->out_t;
	*a = j->out_a;
	if (rc < 0) {
		*err = j->err;
		trace_free(j->t); /* the failed attempt, shown until now */
	}
	for (i = 0; i < j->nold; i++)
		trace_free(j->old[i]);
	free(j->old);
	pthread_mutex_destroy(&j->live.lock);
	free(j->path);
	free(j->run);
	free(j);
	return rc;
}
