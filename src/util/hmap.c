/* hmap: see hmap.h. Linear probing; load <= 1/2. */
#include "hmap.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* A word-at-a-time multiply-mix hash: keys hold long kernel names and op
 * names hashed once per event, so byte-wise FNV showed up in profiles. */
static inline uint64_t hmap_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)(a ^ 0xa0761d6478bd642full) * (b ^ 0xe7037ed1a0b428dbull);

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t hmap_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x8ebc6af09c88c6e3ull ^ len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = hmap_mix(h, w);
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		h = hmap_mix(h, w ^ ((uint64_t)(len - i) << 56));
	}
	return hmap_mix(h, 0x589965cc75374cc3ull);
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

/* Both lookups' body, inlined in each: hmap_get() is on hot paths. */
static inline __attribute__((always_inline)) uint32_t *
get_at(struct hmap *m, uint64_t h, const void *key, size_t len, uint32_t fresh, int *inserted)
{
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

uint32_t *hmap_get(struct hmap *m, const void *key, size_t len, uint32_t fresh, int *inserted)
{
	return get_at(m, hmap_hash(key, len), key, len, fresh, inserted);
}

uint32_t *hmap_get_hashed(struct hmap *m, uint64_t h, const void *key, size_t len, uint32_t fresh,
			  int *inserted)
{
	return get_at(m, h, key, len, fresh, inserted);
}

const char *hmap_key_of(const uint32_t *val, size_t *len)
{
	const struct hmap_slot *s =
		(const struct hmap_slot *)(const void *)((const char *)val -
							  offsetof(struct hmap_slot, val));

	*len = s->len;
	return s->key;
}
