/*
 * agent_trace: the copies of libxtop-trace in this process, as the
 * registry ABI describes (src/trace/registry.h): each copy registers itself
 * from its constructor through xtop_agent_register_v1 (exported here), and
 * a lookup of xtop_trace_registry_v1 at each capture finds a shared copy
 * that could not. A copy may register from any thread, at any time (a
 * library dlopen'ed mid-run), and unregisters from its destructor
 * (xtop_agent_unregister_v1, exported here) when its library is unloaded:
 * the agent calls a registry only between agent_trace_lock() and
 * agent_trace_unlock(), and only while agent_trace_held() says it is still
 * there.
 */
#ifndef XT_AGENT_TRACE_H
#define XT_AGENT_TRACE_H

#include "../trace/registry.h"

#define AGENT_MAX_REGISTRIES 16

/* Fills regs (at most max) with every registry held, each once; returns
 * how many. Can't fail. Call without the lock: by the time it is taken
 * again, agent_trace_held() says which are still there. Nothing that takes
 * the dynamic loader's lock (dlsym, dlopen) may run under ours: a dlclose
 * holds that lock while its destructor waits for ours. */
int agent_trace_registries(const struct xtop_trace_registry **regs, int max);
void agent_trace_lock(void);
void agent_trace_unlock(void);
/* Whether r is still registered (its library loaded). Lock held. */
int agent_trace_held(const struct xtop_trace_registry *r);
/* In a forked child: the lock made free again (the thread that held it is
 * not in the child). */
void agent_trace_after_fork(void);

#endif
