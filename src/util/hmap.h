/*
 * hmap: an open-addressing hash map from byte strings to uint32 values.
 * Keys are copied into the map's own storage; the map owns everything and
 * hmap_fini() releases it. Used for op and kernel tables, where keys are
 * composite (program, name, ...) byte strings built by the caller.
 */
#ifndef XT_HMAP_H
#define XT_HMAP_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

struct hmap_slot {
	uint64_t hash;
	const char *key; /* NULL = empty */
	uint32_t len;
	uint32_t val;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;  /* power of two */
	size_t n;
	struct arena keys;
};

void hmap_init(struct hmap *m);
void hmap_fini(struct hmap *m);
/* Returns a pointer to the value for key, inserting it with value `fresh`
 * when absent (*inserted set to 1). Never NULL. The pointer is valid until
 * the next insertion. */
uint32_t *hmap_get(struct hmap *m, const void *key, size_t len, uint32_t fresh, int *inserted);
/* hmap_get() for a key whose hmap_hash() the caller has already: h. */
uint32_t *hmap_get_hashed(struct hmap *m, uint64_t h, const void *key, size_t len, uint32_t fresh,
			  int *inserted);
/* Looks a key up without inserting; NULL when absent. */
const uint32_t *hmap_find(const struct hmap *m, const void *key, size_t len);
uint64_t hmap_hash(const void *key, size_t len);
/* The stored key of the entry whose value pointer hmap_get() returned; valid
 * until hmap_fini(). */
const char *hmap_key_of(const uint32_t *val, size_t *len);

#endif
