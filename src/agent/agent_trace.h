/*
 * agent_trace: the copies of libxtop-trace in this process, as the
 * registry ABI describes (src/trace/registry.h): each copy registers itself
 * from its constructor through xtop_agent_register_v1 (exported here), and
 * a lookup of xtop_trace_registry_v1 at each capture finds a shared copy
 * that could not. The list is lock-free: a copy may register from any
 * thread, at any time (a library dlopen'ed mid-run).
 */
#ifndef XT_AGENT_TRACE_H
#define XT_AGENT_TRACE_H

#include "../trace/registry.h"

#define AGENT_MAX_REGISTRIES 16

/* Fills regs (at most max) with every valid registry, each once; returns
 * how many. Can't fail. */
int agent_trace_registries(const struct xtop_trace_registry **regs, int max);

#endif
