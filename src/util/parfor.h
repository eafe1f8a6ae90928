/*
 * parfor: runs n independent jobs on a few threads, each thread taking the
 * next job number from one atomic counter until none is left; the calling
 * thread is one of them. For the analyses' passes that are a job per device,
 * host or line. A leaf: it knows nothing of what the jobs are.
 */
#ifndef XT_PARFOR_H
#define XT_PARFOR_H

#include <stddef.h>

/* Calls fn(arg, i) once for every i in [0, n), on at most max threads (0:
 * as many as CPUs online, at most 8; never more than n). fn must be safe to
 * run for different i at once. Can't fail: when no thread can be started,
 * this thread runs every job. */
void par_for(size_t n, unsigned max, void (*fn)(void *arg, size_t i), void *arg);

#endif
