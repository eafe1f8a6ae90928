/*
 * arena: bump allocator for data that lives exactly as long as its owner
 * (a loaded trace). Names, metadata tables and small per-line arrays come
 * from here so that one arena_fini() releases a whole profile.
 * Not thread-safe: each arena has one writer at a time.
 */
#ifndef XT_ARENA_H
#define XT_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head; /* newest chunk first */
	size_t used;              /* bytes used in head */
	size_t cap;               /* capacity of head */
};

void arena_init(struct arena *a);
/* Frees every chunk; the arena may be reused after arena_init(). */
void arena_fini(struct arena *a);
/* Returns n bytes aligned to 16, owned by the arena. Never NULL. */
void *arena_alloc(struct arena *a, size_t n);
/* Copies s[0..n) and a terminating NUL into the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Moves every chunk of src into dst (src is left empty). Lets worker threads
 * fill private arenas and hand them to the trace. */
void arena_adopt(struct arena *dst, struct arena *src);

#endif
