/* agent_trace: see agent_trace.h. */
#include "agent_trace.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* The registries held; a NULL slot is free. Under `lock`, which the agent
 * also holds while it calls into a registry, so a copy being unloaded
 * waits until that call is over. */
static const struct xtop_trace_registry *slots[AGENT_MAX_REGISTRIES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int valid(const struct xtop_trace_registry *r)
{
	return r && r->magic == XTOP_TRACE_REGISTRY_MAGIC && r->version >= 1 &&
	       r->struct_size >= offsetof(struct xtop_trace_registry, collect) + sizeof(r->collect) &&
	       r->start && r->stop && r->collect;
}

/* Adds r unless held (lock held). */
static void hold(const struct xtop_trace_registry *r)
{
	int i, free_slot = -1;

	for (i = 0; i < AGENT_MAX_REGISTRIES; i++) {
		if (slots[i] == r)
			return;
		if (!slots[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0)
		slots[free_slot] = r;
}

/* Called by each copy of libxtop-trace from its constructor. */
__attribute__((visibility("default"))) void
xtop_agent_register_v1(const struct xtop_trace_registry *r)
{
	if (!valid(r))
		return;
	pthread_mutex_lock(&lock);
	hold(r);
	pthread_mutex_unlock(&lock);
}

/* Called by a copy from its destructor, as its library is unloaded. */
__attribute__((visibility("default"))) void
xtop_agent_unregister_v1(const struct xtop_trace_registry *r)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < AGENT_MAX_REGISTRIES; i++)
		if (slots[i] == r)
			slots[i] = NULL;
	pthread_mutex_unlock(&lock);
}

void agent_trace_after_fork(void)
{
	static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	/* Only this thread runs in the child: a fresh mutex in its place. */
	memcpy(&lock, &fresh, sizeof(lock));
}

void agent_trace_lock(void)
{
	pthread_mutex_lock(&lock);
}

void agent_trace_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

int agent_trace_held(const struct xtop_trace_registry *r)
{
	int i;

	for (i = 0; r && i < AGENT_MAX_REGISTRIES; i++)
		if (slots[i] == r)
			return 1;
	return 0;
}

int agent_trace_registries(const struct xtop_trace_registry **regs, int max)
{
	/* Looked up before the lock is taken: dlsym takes the loader's lock,
	 * which a dlclose holds while its destructor waits for ours. */
	const struct xtop_trace_registry *sym = dlsym(RTLD_DEFAULT, XTOP_TRACE_REGISTRY_SYMBOL);
	int i, n = 0;

	pthread_mutex_lock(&lock);
	/* The global lookup's copy is held like the others, so that it too
	 * can take its registry back. */
	if (valid(sym))
		hold(sym);
	for (i = 0; i < AGENT_MAX_REGISTRIES && n < max; i++)
		if (slots[i])
			regs[n++] = slots[i];
	pthread_mutex_unlock(&lock);
	return n;
}
