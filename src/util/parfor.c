/*
 * parfor: see parfor.h.
 */
#include "parfor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define PARFOR_MAX 8

struct parfor {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n;
	atomic_size_t next;
};

static void *parfor_worker(void *p)
{
	struct parfor *pf = p;
	size_t i;

	while ((i = atomic_fetch_add(&pf->next, 1)) < pf->n)
		pf->fn(pf->arg, i);
	return NULL;
}

void par_for(size_t n, unsigned max, void (*fn)(void *arg, size_t i), void *arg)
{
	struct parfor pf;
	pthread_t tid[PARFOR_MAX - 1];
	size_t nthreads, i, started = 0;

	if (!max) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		max = cpus > 0 ? (unsigned)cpus : 1;
	}
	nthreads = max < PARFOR_MAX ? max : PARFOR_MAX;
	if (nthreads > n)
		nthreads = n;
	pf.fn = fn;
	pf.arg = arg;
	pf.n = n;
	atomic_init(&pf.next, 0);
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tid[started], NULL, parfor_worker, &pf) == 0)
			started++;
	parfor_worker(&pf);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}
