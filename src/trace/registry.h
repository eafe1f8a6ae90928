/*
 * registry: the private, versioned ABI between libxtop-trace (one or more
 * copies in a process: the shared library, or the static one linked into
 * executables and other libraries) and the xtop agent. Not installed.
 *
 * How the agent finds each copy (docs/agent.md, "The C API registry"):
 *  1. Each copy's constructor looks up XTOP_AGENT_REGISTER_SYMBOL with
 *     dlsym(RTLD_DEFAULT); the agent, being preloaded, is in the global
 *     scope, so this works for a static copy in an executable or in a
 *     library loaded with RTLD_LOCAL, whose own symbols nobody could see.
 *  2. At each capture the agent also looks up XTOP_TRACE_REGISTRY_SYMBOL
 *     with dlsym(RTLD_DEFAULT), for a copy whose constructor ran before the
 *     agent existed (it cannot have: the agent is preloaded; kept as a
 *     fallback for an agent injected otherwise).
 * Both give a pointer to the copy's const struct xtop_trace_registry; the
 * agent keeps each pointer once. A copy inside a library that is unloaded
 * (dlclose) takes its registry back from its destructor through
 * XTOP_AGENT_UNREGISTER_SYMBOL, which waits while the agent is calling
 * into it; the agent never calls a registry it no longer holds.
 *
 * Compatibility: the agent accepts magic == XTOP_TRACE_REGISTRY_MAGIC,
 * version >= 1 and struct_size >= the v1 size, and uses only v1 members;
 * new members are only ever appended.
 */
#ifndef XT_TRACE_REGISTRY_H
#define XT_TRACE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#define XTOP_TRACE_REGISTRY_SYMBOL "xtop_trace_registry_v1"
#define XTOP_AGENT_REGISTER_SYMBOL "xtop_agent_register_v1"
#define XTOP_AGENT_UNREGISTER_SYMBOL "xtop_agent_unregister_v1"
#define XTOP_TRACE_REGISTRY_MAGIC 0x78747472u /* "xttr" */

enum xtop_trace_kind {
	XTOP_TRACE_SPAN = 0,    /* xtop_trace_begin/end */
	XTOP_TRACE_INSTANT = 1, /* xtop_trace_instant */
	XTOP_TRACE_STEP = 2,    /* xtop_step_begin/end */
};

/* A thread that recorded events in the last session. Last, tid 0 with no
 * events stands for the threads that got no buffer at all: `dropped` is
 * how many events they lost. */
struct xtop_trace_thread {
	uint64_t tid;      /* kernel thread id */
	const char *name;  /* thread name (prctl PR_GET_NAME) */
	uint64_t nev;      /* events that follow */
	uint64_t dropped;  /* events lost to the bounds (memory, nesting depth) */
};

/* One event; pointers are valid during the collect() call only. */
struct xtop_trace_event {
	uint64_t start_ns; /* CLOCK_REALTIME */
	uint64_t end_ns;   /* CLOCK_REALTIME; 0 while the span is still open */
	uint32_t kind;     /* enum xtop_trace_kind */
	uint32_t name_len; /* bytes of name (no NUL); 0 for a step */
	const char *name;  /* TraceMe-encoded name; NULL for a step */
	int64_t step;      /* the step number of XTOP_TRACE_STEP */
};

typedef void xtop_trace_thread_fn(void *ctx, const struct xtop_trace_thread *t);
typedef void xtop_trace_event_fn(void *ctx, const struct xtop_trace_event *e);

struct xtop_trace_registry {
	uint32_t magic;       /* XTOP_TRACE_REGISTRY_MAGIC */
	uint32_t version;     /* 1 */
	size_t struct_size;   /* sizeof this struct in the copy */
	/* Starts a session: every thread records from now on, with at most
	 * budget bytes of buffers in all (0: the default, 256 MiB). Memory left
	 * by exited threads is freed first. Returns 0, or -1 when a session is
	 * already on. */
	int (*start)(size_t budget);
	/* Stops recording. Events stay readable until the next start(). */
	void (*stop)(void);
	/* After stop(): for each thread that recorded in the last session,
	 * thread(ctx, t) and then event(ctx, e) for each of its events, in
	 * the order they began. Must not run during a session. */
	void (*collect)(void *ctx, xtop_trace_thread_fn *thread, xtop_trace_event_fn *event);
};

#endif
