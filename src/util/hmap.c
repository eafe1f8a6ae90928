/* hmap: see hmap.h. FNV-1a 64 over the key; linear probing; load <= 1/2. */
#include "hmap.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

uint64_t hmap_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 32);
}

void hmap_init(struct hmap *m)
{
	m->cap = 64;
	m->n = 0;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	arena_init(&m->keys);
}

void hmap_fini(struct hmap *m)
{
	free(m->slots);
	arena_fini(&m->keys);
	memset(m, 0, sizeof(*m));
}

static void hmap_grow(struct hmap *m)
{
	size_t ncap = m->cap * 2, i;
	struct hmap_slot *ns = xcalloc(ncap, sizeof(*ns));

	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slots[i].key)
			continue;
		for (j = m->slots[i].hash & (ncap - 1); ns[j].key; j = (j + 1) & (ncap - 1))
			;
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
}

const uint32_t *hmap_find(const struct hmap *m, const void *key, size_t len)
{
	uint64_t h = hmap_hash(key, len);
	size_t i;

	for (i = h & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
		const struct hmap_slot *s = &m->slots[i];

		if (s->hash == h && s->len == len && !memcmp(s->key, key, len))
			return &s->val;
	}
	return NULL;
}

uint32_t *hmap_get(struct hmap *m, const void *key, size_t len, uint32_t fresh, int *inserted)
{
	uint64_t h = hmap_hash(key, len);
	size_t i;
	char *k;

	*inserted = 0;
	for (i = h & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
		struct hmap_slot *s = &m->slots[i];

		if (s->hash == h && s->len == len && !memcmp(s->key, key, len))
			return &s->val;
	}
	if ((m->n + 1) * 2 > m->cap) {
		hmap_grow(m);
		for (i = h & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1))
			;
	}
	k = arena_alloc(&m->keys, len ? len : 1);
	memcpy(k, key, len);
	m->slots[i] = (struct hmap_slot){ .hash = h, .key = k, .len = (uint32_t)len, .val = fresh };
	m->n++;
	*inserted = 1;
	return &m->slots[i].val;
}

const char *hmap_key_of(const uint32_t *val, size_t *len)
{
	const struct hmap_slot *s =
		(const struct hmap_slot *)(const void *)((const char *)val -
							  offsetof(struct hmap_slot, val));

	*len = s->len;
	return s->key;
}
