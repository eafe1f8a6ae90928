/* agent_trace: see agent_trace.h. */
#include "agent_trace.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

static const struct xtop_trace_registry *_Atomic slots[AGENT_MAX_REGISTRIES];
static atomic_int nslots;

static int valid(const struct xtop_trace_registry *r)
{
	return r && r->magic == XTOP_TRACE_REGISTRY_MAGIC && r->version >= 1 &&
	       r->struct_size >= offsetof(struct xtop_trace_registry, collect) + sizeof(r->collect) &&
	       r->start && r->stop && r->collect;
}

/* Called by each copy of libxtop-trace from its constructor. */
__attribute__((visibility("default"))) void
xtop_agent_register_v1(const struct xtop_trace_registry *r)
{
	int i, n = atomic_load(&nslots);

	if (!valid(r))
		return;
	for (i = 0; i < n && i < AGENT_MAX_REGISTRIES; i++)
		if (atomic_load(&slots[i]) == r)
			return;
	i = atomic_fetch_add(&nslots, 1);
	if (i < AGENT_MAX_REGISTRIES)
		atomic_store(&slots[i], r);
}

int agent_trace_registries(const struct xtop_trace_registry **regs, int max)
{
	const struct xtop_trace_registry *r;
	void *sym = dlsym(RTLD_DEFAULT, XTOP_TRACE_REGISTRY_SYMBOL);
	int i, k, n = 0, ns = atomic_load(&nslots);

	if (ns > AGENT_MAX_REGISTRIES)
		ns = AGENT_MAX_REGISTRIES;
	for (i = 0; i <= ns && n < max; i++) {
		int dup = 0;

		/* The slots, then the global lookup. */
		r = i < ns ? atomic_load(&slots[i]) : sym;
		if (!valid(r))
			continue;
		for (k = 0; k < n; k++)
			dup |= regs[k] == r;
		if (!dup)
			regs[n++] = r;
	}
	return n;
}
