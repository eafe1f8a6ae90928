/*
 * trace: libxtop-trace, the C API of include/xtop/trace.h, and its side of
 * the registry the agent drives (registry.h).
 *
 * Invariants that keep it lock-free and safe inside someone else's program:
 *  - The fast path, with no capture on, is one relaxed load of `session`.
 *  - Each thread writes only its own buffer (struct tbuf). Events are
 *    published by a release store of the buffer's count; the collector
 *    reads, with acquire, only published events, and only after stop().
 *    A span's end time is the one field written after publication: it is
 *    atomic.
 *  - A buffer is reset by its own thread, the first time it records in a
 *    new session (gen != session), never by the collector.
 *  - Memory: events in 128 KiB chunks and names in 64 KiB chunks, kept by
 *    each thread for the next session; all of it counts against one budget
 *    (256 MiB by default). A buffer whose thread exited is marked free; the
 *    next start() releases its chunks and a new thread may take it over.
 *  - No allocation can fail loudly: what does not fit is counted as dropped.
 * Nothing here writes to stdout or stderr, takes a signal, or can exit.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>

#include "../../include/xtop/trace.h"
#include "registry.h"

#define XT_EXPORT __attribute__((visibility("default")))

enum {
	CHUNK_EVENTS = 4096,
	MAX_CHUNKS = 256,          /* 1 Mi events per thread and session */
	NAME_CHUNK = 64 * 1024,
	MAX_NAME_CHUNKS = 64,      /* 4 MiB of names per thread and session */
	MAX_NAME = 1024,           /* longer names are cut */
	MAX_DEPTH = 128,           /* deeper spans are dropped, ends still match */
	MAX_BUFFERS = 4096,        /* threads that may record at once */
};
#define DEFAULT_BUDGET ((size_t)256 << 20)
#define NONE UINT32_MAX

struct rec {
	uint64_t start_ns;
	_Atomic uint64_t end_ns;   /* 0 while open */
	union {
		struct {
			uint32_t at;       /* name chunk * NAME_CHUNK + offset */
			uint32_t len;
		} name;
		int64_t step;
	} u;
	uint32_t kind;
};

struct tbuf {
	struct tbuf *next;              /* the registry's list; never unlinked */
	_Atomic int owned;              /* 0 free, 1 a live thread's, 2 being trimmed */
	_Atomic uint32_t gen;           /* the session its events belong to */
	uint64_t tid;
	char name[16];
	_Atomic uint32_t nev;           /* published events */
	_Atomic uint64_t dropped;
	uint32_t depth;                 /* open spans, including those beyond the stack */
	uint32_t stack[MAX_DEPTH];      /* their event indexes (NONE: dropped) */
	uint32_t name_chunk, name_used; /* where the next name goes */
	struct rec *_Atomic ev[MAX_CHUNKS];
	char *_Atomic names[MAX_NAME_CHUNKS];
};

static struct {
	_Atomic uint32_t session;       /* 0: not recording; else the session's gen */
	uint32_t last;                  /* the last session started */
	_Atomic(struct tbuf *) head;
	_Atomic size_t nbufs;
	_Atomic size_t bytes;           /* chunk memory held by every buffer */
	_Atomic uint64_t lost;          /* events of threads that got no buffer */
	size_t budget;
	pthread_key_t key;
	pthread_once_t once;
	atomic_int key_made;            /* 1 once key_init() ran */
} g = { .once = PTHREAD_ONCE_INIT };

static _Thread_local struct tbuf *tls;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int budget_take(size_t n)
{
	if (atomic_fetch_add_explicit(&g.bytes, n, memory_order_relaxed) + n > g.budget) {
		atomic_fetch_sub_explicit(&g.bytes, n, memory_order_relaxed);
		return 0;
	}
	return 1;
}

static void budget_give(size_t n)
{
	atomic_fetch_sub_explicit(&g.bytes, n, memory_order_relaxed);
}

/* The thread is gone: its buffer (and the events it holds for the current
 * session) stays on the list, free for the next start() to trim. */
static void thread_exit(void *arg)
{
	struct tbuf *b = arg;

	tls = NULL;
	atomic_store_explicit(&b->owned, 0, memory_order_release);
}

static void key_init(void)
{
	pthread_key_create(&g.key, thread_exit);
	atomic_store(&g.key_made, 1);
}

static struct tbuf *claim(uint32_t s)
{
	struct tbuf *b;

	pthread_once(&g.once, key_init);
	/* A free buffer from an earlier session (its events were collected). */
	for (b = atomic_load_explicit(&g.head, memory_order_acquire); b; b = b->next) {
		int zero = 0;

		if (atomic_load_explicit(&b->gen, memory_order_acquire) != s &&
		    atomic_compare_exchange_strong(&b->owned, &zero, 1))
			break;
	}
	if (!b) {
		struct tbuf *head;

		if (atomic_fetch_add(&g.nbufs, 1) >= MAX_BUFFERS) {
			atomic_fetch_sub(&g.nbufs, 1);
			return NULL;
		}
		b = calloc(1, sizeof(*b));
		if (!b) {
			atomic_fetch_sub(&g.nbufs, 1);
			return NULL;
		}
		atomic_store(&b->owned, 1);
		head = atomic_load(&g.head);
		do
			b->next = head;
		while (!atomic_compare_exchange_weak(&g.head, &head, b));
	}
	tls = b;
	pthread_setspecific(g.key, b);
	return b;
}

/* The calling thread's buffer, made ready for session s; NULL when none
 * can be had. */
static struct tbuf *thread_buf(uint32_t s)
{
	struct tbuf *b = tls;

	if (!b && !(b = claim(s)))
		return NULL;
	if (atomic_load_explicit(&b->gen, memory_order_relaxed) != s) {
		atomic_store_explicit(&b->nev, 0, memory_order_relaxed);
		atomic_store_explicit(&b->dropped, 0, memory_order_relaxed);
		b->depth = 0;
		b->name_chunk = 0;
		b->name_used = 0;
		b->tid = (uint64_t)syscall(SYS_gettid); /* gettid() needs glibc 2.30 */
		memset(b->name, 0, sizeof(b->name));
		prctl(PR_GET_NAME, b->name, 0, 0, 0);
		atomic_store_explicit(&b->gen, s, memory_order_release);
	}
	return b;
}

static void drop(struct tbuf *b)
{
	atomic_store_explicit(&b->dropped, atomic_load_explicit(&b->dropped, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Copies name into the thread's name chunks; returns its position, or
 * NONE when there is no room. */
static uint32_t name_copy(struct tbuf *b, const char *name, uint32_t *len)
{
	size_t n = strnlen(name, MAX_NAME);
	char *c;

	if (b->name_used + n > NAME_CHUNK) {
		b->name_chunk++;
		b->name_used = 0;
	}
	if (b->name_chunk >= MAX_NAME_CHUNKS)
		return NONE;
	c = atomic_load_explicit(&b->names[b->name_chunk], memory_order_relaxed);
	if (!c) {
		if (!budget_take(NAME_CHUNK))
			return NONE;
		c = malloc(NAME_CHUNK);
		if (!c) {
			budget_give(NAME_CHUNK);
			return NONE;
		}
		atomic_store_explicit(&b->names[b->name_chunk], c, memory_order_relaxed);
	}
	memcpy(c + b->name_used, name, n);
	*len = (uint32_t)n;
	b->name_used += (uint32_t)n;
	return b->name_chunk * NAME_CHUNK + b->name_used - (uint32_t)n;
}

/* Appends an event begun now; returns its index, or NONE when dropped. */
static uint32_t record(struct tbuf *b, uint32_t kind, const char *name, int64_t step)
{
	uint32_t i = atomic_load_explicit(&b->nev, memory_order_relaxed);
	uint32_t c = i / CHUNK_EVENTS;
	struct rec *chunk, *r;

	if (c >= MAX_CHUNKS)
		goto dropped;
	chunk = atomic_load_explicit(&b->ev[c], memory_order_relaxed);
	if (!chunk) {
		if (!budget_take(CHUNK_EVENTS * sizeof(struct rec)))
			goto dropped;
		chunk = malloc(CHUNK_EVENTS * sizeof(struct rec));
		if (!chunk) {
			budget_give(CHUNK_EVENTS * sizeof(struct rec));
			goto dropped;
		}
		atomic_store_explicit(&b->ev[c], chunk, memory_order_relaxed);
	}
	r = &chunk[i % CHUNK_EVENTS];
	r->kind = kind;
	if (kind == XTOP_TRACE_STEP) {
		r->u.step = step;
	} else {
		r->u.name.at = name_copy(b, name ? name : "", &r->u.name.len);
		if (r->u.name.at == NONE)
			goto dropped;
	}
	r->start_ns = now_ns();
	atomic_store_explicit(&r->end_ns, kind == XTOP_TRACE_INSTANT ? r->start_ns : 0,
			      memory_order_relaxed);
	/* Publishes the record, its name and any new chunk. */
	atomic_store_explicit(&b->nev, i + 1, memory_order_release);
	return i;
dropped:
	drop(b);
	return NONE;
}

static void begin(uint32_t s, uint32_t kind, const char *name, int64_t step)
{
	struct tbuf *b = thread_buf(s);

	if (!b) {
		atomic_fetch_add_explicit(&g.lost, 1, memory_order_relaxed);
		return;
	}
	if (b->depth >= MAX_DEPTH) {
		b->depth++;
		drop(b);
		return;
	}
	b->stack[b->depth++] = record(b, kind, name, step);
}

static void end(void)
{
	uint32_t s = atomic_load_explicit(&g.session, memory_order_relaxed);
	struct tbuf *b = tls;
	uint32_t i;

	if (!s || !b || atomic_load_explicit(&b->gen, memory_order_relaxed) != s || !b->depth)
		return;
	if (--b->depth >= MAX_DEPTH)
		return;
	i = b->stack[b->depth];
	if (i == NONE)
		return;
	atomic_store_explicit(&atomic_load_explicit(&b->ev[i / CHUNK_EVENTS],
						    memory_order_relaxed)[i % CHUNK_EVENTS]
				       .end_ns,
			      now_ns(), memory_order_release);
}

XT_EXPORT void xtop_trace_begin(const char *name)
{
	uint32_t s = atomic_load_explicit(&g.session, memory_order_relaxed);

	if (__builtin_expect(s == 0, 1))
		return;
	begin(s, XTOP_TRACE_SPAN, name, 0);
}

XT_EXPORT void xtop_trace_end(void)
{
	if (__builtin_expect(atomic_load_explicit(&g.session, memory_order_relaxed) == 0, 1))
		return;
	end();
}

XT_EXPORT void xtop_trace_instant(const char *name)
{
	uint32_t s = atomic_load_explicit(&g.session, memory_order_relaxed);
	struct tbuf *b;

	if (__builtin_expect(s == 0, 1))
		return;
	b = thread_buf(s);
	if (b)
		record(b, XTOP_TRACE_INSTANT, name, 0);
	else
		atomic_fetch_add_explicit(&g.lost, 1, memory_order_relaxed);
}

XT_EXPORT void xtop_step_begin(int64_t step)
{
	uint32_t s = atomic_load_explicit(&g.session, memory_order_relaxed);

	if (__builtin_expect(s == 0, 1))
		return;
	begin(s, XTOP_TRACE_STEP, NULL, step);
}

XT_EXPORT void xtop_step_end(void)
{
	xtop_trace_end();
}

XT_EXPORT int xtop_trace_active(void)
{
	return atomic_load_explicit(&g.session, memory_order_relaxed) != 0;
}

/* ---- the registry ---- */

/* Frees the chunks of buffers whose threads exited (no one writes them). */
static void trim_free_buffers(void)
{
	struct tbuf *b;

	for (b = atomic_load(&g.head); b; b = b->next) {
		int zero = 0, k;

		if (!atomic_compare_exchange_strong(&b->owned, &zero, 2))
			continue;
		for (k = 0; k < MAX_CHUNKS; k++) {
			struct rec *c = atomic_exchange(&b->ev[k], NULL);

			if (c) {
				free(c);
				budget_give(CHUNK_EVENTS * sizeof(struct rec));
			}
		}
		for (k = 0; k < MAX_NAME_CHUNKS; k++) {
			char *c = atomic_exchange(&b->names[k], NULL);

			if (c) {
				free(c);
				budget_give(NAME_CHUNK);
			}
		}
		atomic_store(&b->owned, 0);
	}
}

static int reg_start(size_t budget)
{
	if (atomic_load(&g.session))
		return -1;
	trim_free_buffers();
	g.budget = budget ? budget : DEFAULT_BUDGET;
	atomic_store(&g.lost, 0);
	if (++g.last == 0)
		g.last = 1;
	atomic_store_explicit(&g.session, g.last, memory_order_release);
	return 0;
}

static void reg_stop(void)
{
	atomic_store_explicit(&g.session, 0, memory_order_release);
}

static void reg_collect(void *ctx, xtop_trace_thread_fn *thread, xtop_trace_event_fn *event)
{
	struct tbuf *b;

	if (atomic_load(&g.session) || !g.last)
		return;
	for (b = atomic_load_explicit(&g.head, memory_order_acquire); b; b = b->next) {
		struct xtop_trace_thread t;
		uint32_t n, i;

		if (atomic_load_explicit(&b->gen, memory_order_acquire) != g.last)
			continue;
		n = atomic_load_explicit(&b->nev, memory_order_acquire);
		t.tid = b->tid;
		t.name = b->name;
		t.nev = n;
		t.dropped = atomic_load_explicit(&b->dropped, memory_order_relaxed);
		if (!n && !t.dropped)
			continue;
		thread(ctx, &t);
		for (i = 0; i < n; i++) {
			const struct rec *r =
				&atomic_load_explicit(&b->ev[i / CHUNK_EVENTS],
						      memory_order_relaxed)[i % CHUNK_EVENTS];
			struct xtop_trace_event e;

			e.start_ns = r->start_ns;
			e.end_ns = atomic_load_explicit(&((struct rec *)r)->end_ns, memory_order_acquire);
			e.kind = r->kind;
			e.step = 0;
			e.name = NULL;
			e.name_len = 0;
			if (r->kind == XTOP_TRACE_STEP) {
				e.step = r->u.step;
			} else {
				e.name = atomic_load_explicit(&b->names[r->u.name.at / NAME_CHUNK],
							      memory_order_relaxed) +
					 r->u.name.at % NAME_CHUNK;
				e.name_len = r->u.name.len;
			}
			event(ctx, &e);
		}
	}
	/* Events of threads that got no buffer (past MAX_BUFFERS threads, or
	 * out of memory): a thread of tid 0 without events carries the count
	 * (registry.h). */
	if (atomic_load(&g.lost)) {
		struct xtop_trace_thread t = { 0, "", 0, atomic_load(&g.lost) };

		thread(ctx, &t);
	}
}

XT_EXPORT const struct xtop_trace_registry xtop_trace_registry_v1 = {
	.magic = XTOP_TRACE_REGISTRY_MAGIC,
	.version = 1,
	.struct_size = sizeof(struct xtop_trace_registry),
	.start = reg_start,
	.stop = reg_stop,
	.collect = reg_collect,
};

/* In a forked child no capture runs, and only the forking thread lives. */
static void after_fork_child(void)
{
	struct tbuf *b;

	atomic_store(&g.session, 0);
	for (b = atomic_load(&g.head); b; b = b->next)
		if (b != tls)
			atomic_store(&b->owned, 0);
}

/* This copy is unloaded (a library holding it dlclose'd): the agent must
 * not call its registry again, nor a thread's exit its key's destructor,
 * whose code goes with it. Its buffers are left: a thread may still hold
 * one, and the memory counts against this copy's budget alone. */
__attribute__((destructor)) static void trace_unregister(void)
{
	void *sym = dlsym(RTLD_DEFAULT, XTOP_AGENT_UNREGISTER_SYMBOL);

	if (sym) {
		void (*unreg)(const struct xtop_trace_registry *);

		*(void **)&unreg = sym;
		unreg(&xtop_trace_registry_v1);
	}
	atomic_store(&g.session, 0);
	if (atomic_load(&g.key_made)) /* some thread recorded: there is a key */
		pthread_key_delete(g.key);
}

/* Tells a preloaded agent about this copy of the library (registry.h). */
__attribute__((constructor)) static void trace_register(void)
{
	void *sym = dlsym(RTLD_DEFAULT, XTOP_AGENT_REGISTER_SYMBOL);

	pthread_atfork(NULL, NULL, after_fork_child);
	if (sym) {
		void (*reg)(const struct xtop_trace_registry *);

		*(void **)&reg = sym;
		reg(&xtop_trace_registry_v1);
	}
}
