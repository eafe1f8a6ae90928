/* arena: see arena.h. Chunks grow to 1 MiB; large requests get their own. */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t pad; /* keeps data 16-byte aligned */
	unsigned char data[];
};

#define ARENA_CHUNK (1u << 20)

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used = a->cap = 0;
}

void arena_fini(struct arena *a)
{
	struct arena_chunk *c = a->head, *n;

	while (c) {
		n = c->next;
		free(c);
		c = n;
	}
	arena_init(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	struct arena_chunk *c;

	if (!a->head || a->cap - a->used < need) {
		size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;

		c = xmalloc(sizeof(*c) + cap);
		if (cap == need && a->head) {
			/* A large block: keep the current chunk as head. */
			c->next = a->head->next;
			a->head->next = c;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	c = a->head;
	a->used += need;
	return c->data + a->used - need;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void arena_adopt(struct arena *dst, struct arena *src)
{
	struct arena_chunk *c = src->head, *tail;

	if (!c)
		return;
	for (tail = c; tail->next; tail = tail->next)
		;
	if (dst->head) {
		/* Keep dst's head (and its free space) in front. */
		tail->next = dst->head->next;
		dst->head->next = c;
	} else {
		dst->head = c;
		dst->used = src->used;
		dst->cap = src->cap;
	}
	arena_init(src);
}
