/*
 * an_streamsink: the keys of a stream line's kernel launches (see
 * an_stream.h, "an_streamsink.c"). The stream pass reads of each launch
 * a few stats that decide its op, and its correlation id; on a JAX GPU
 * profile that is a third of the file's bytes, walked stat by stat again
 * after the reader has given their pages back. The reader copies them out
 * as it skips the stats (the plane's key_ids), and the sink keeps 8 bytes
 * a launch: the id of its key within the decoded range and its
 * correlation id.
 *
 * A key pays only where launches repeat it: a JAX stream's few dozen keys
 * come back every step. A TensorFlow launch's keys never repeat (its
 * `level 0` stat refers to a stat metadata of its own, and group_id
 * changes every step), and keying each one cost a hash map of one entry
 * per launch, its growth's page faults and a memo per key, for nothing:
 * the pass decodes every launch's stats anyway. So a part that finds most
 * of a window's keys new (of the launches whose key is not their kernel's
 * last, which cost no lookup) stops keying: its launches read KP_UNIQUE (the
 * pass decodes them, as it does any launch the first time).
 *
 * New means not in the map while every launch is keyed; from the first
 * window that keys none, not seen lately: a table of KP_SEEN tags by each
 * key's hash (seeded with the map's keys), which every looked-up launch
 * writes, keyed or not. A JAX program of 20,000 launches a step has a
 * window of new keys in its first step only, and keys again from its
 * second; a map that learnt keys only while keying, one launch in 16 when
 * not, took a dozen steps to come back (20 % slower than keying all).
 * Parts whose keys repeat (most JAX lines) never make the table.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/hmap.h"
#include "../util/xalloc.h"
#include "an_stream.h"

#define KP_NONE UINT32_MAX       /* no key: aggregated, or framed otherwise */
#define KP_CORR_NONE UINT32_MAX  /* the launch has no correlation id */
#define KP_UNIQUE (UINT32_MAX - 1) /* not keyed: its key is likely new (above) */
#define KP_CORR_OTHER (UINT32_MAX - 1) /* one that does not fit: decode it */
#define KP_CACHE 4096
#define KP_WIN 1024   /* launches per window of the keying's choice */
#define KP_SEEN 65536 /* tags of the keys seen lately (a power of two) */

atomic_size_t kern_unkeyed;

struct kern_part {
	size_t first, n, cap;    /* records of events first .. first + n - 1 (file order) */
	uint32_t *id, *corr;
	struct hmap keys;        /* kernel metadata + key bytes -> id */
	size_t nids;
	const char **kb;         /* per id: its key as the map stores it */
	uint8_t *kn;
	/* The window (launches whose key is not their kernel's last): its
	 * launches, those whose key was not seen lately; whether the part
	 * keys none. */
	uint32_t win, win_new;
	int unkeyed, many;       /* many: the last window's keys were mostly new */
	uint16_t *seen;          /* [KP_SEEN] a tag of the key last seen by hash */
	size_t skipped;          /* launches not keyed, in all */
	/* The last id of a kernel metadata (by its index mod KP_CACHE): a
	 * kernel's launches mostly repeat their key. */
	struct {
		uint32_t mi, id;
	} last[KP_CACHE];
};

struct kern_part *kern_part_new(void)
{
	struct kern_part *kp = xcalloc(1, sizeof(*kp));

	hmap_init(&kp->keys);
	memset(kp->last, 0xff, sizeof(kp->last));
	return kp;
}

void kern_part_free(struct kern_part *kp)
{
	if (!kp)
		return;
	atomic_fetch_add_explicit(&kern_unkeyed, kp->skipped, memory_order_relaxed);
	free(kp->seen);
	free(kp->id);
	free(kp->corr);
	free(kp->kb);
	free(kp->kn);
	hmap_fini(&kp->keys);
	free(kp);
}

/* Keys are a few dozen bytes: compared eight at a time, without a call. */
static inline int key_eq(const uint8_t *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	for (; i < n; i++)
		if (a[i] != (uint8_t)b[i])
			return 0;
	return 1;
}

/* A key's tag in the seen table (0: an empty slot). */
static inline uint16_t seen_tag(uint64_t h)
{
	return (uint16_t)((h >> 48) | 1);
}

/* The seen table, with the map's keys in it. */
static void seen_start(struct kern_part *kp)
{
	size_t id;

	kp->seen = xcalloc(KP_SEEN, sizeof(*kp->seen));
	for (id = 0; id < kp->nids; id++) {
		uint64_t h = hmap_hash(kp->kb[id], kp->kn[id]);

		kp->seen[h & (KP_SEEN - 1)] = seen_tag(h);
	}
}

static uint32_t kern_key_id(struct kern_part *kp, uint32_t mi, const uint8_t *key, size_t n)
{
	uint32_t *v;
	int ins;
	uint32_t c = kp->last[mi % KP_CACHE].id;
	uint64_t h;
	uint16_t tag, *t;

	/* The last key of its kernel: no map, and nothing counted. */
	if (kp->last[mi % KP_CACHE].mi == mi && kp->kn[c] == n && key_eq(key, kp->kb[c], n))
		return c;
	if (kp->win == KP_WIN) {
		/* Not keyed after two windows in a row of which more than half
		 * the keys were new (a part's first window has all its keys
		 * new, JAX's too), nor until a window has fewer. */
		int many = kp->win_new * 2 > KP_WIN;

		kp->unkeyed = many && (kp->many || kp->unkeyed);
		kp->many = many;
		kp->win = kp->win_new = 0;
		if (kp->unkeyed && !kp->seen)
			seen_start(kp);
	}
	kp->win++;
	if (kp->seen) {
		h = hmap_hash(key, n);
		t = &kp->seen[h & (KP_SEEN - 1)];
		tag = seen_tag(h);
		kp->win_new += *t != tag;
		*t = tag;
		if (kp->unkeyed) {
			kp->skipped++;
			return KP_UNIQUE;
		}
		v = hmap_get_hashed(&kp->keys, h, key, n, (uint32_t)kp->nids, &ins);
	} else {
		v = hmap_get(&kp->keys, key, n, (uint32_t)kp->nids, &ins);
		kp->win_new += ins;
	}
	if (ins) {
		size_t len;

		if ((kp->nids & (kp->nids - 1)) == 0 || !kp->nids) {
			size_t cap = kp->nids ? kp->nids * 2 : 16;

			kp->kb = xreallocarray(kp->kb, cap, sizeof(*kp->kb));
			kp->kn = xreallocarray(kp->kn, cap, 1);
		}
		kp->kb[kp->nids] = hmap_key_of(v, &len);
		kp->kn[kp->nids] = (uint8_t)len;
		kp->nids++;
	}
	kp->last[mi % KP_CACHE].mi = mi;
	kp->last[mi % KP_CACHE].id = *v;
	return *v;
}

void kern_part_event(struct kern_part *kp, const struct xt_sink_ev *e)
{
	size_t j;

	if (!kp->n)
		kp->first = e->i;
	if (e->i < kp->first)
		return; /* not in file order: cannot be */
	j = e->i - kp->first;
	if (j >= kp->cap) {
		size_t cap = kp->cap ? kp->cap * 2 : 4096;

		while (cap <= j)
			cap *= 2;
		kp->id = xreallocarray(kp->id, cap, sizeof(*kp->id));
		kp->corr = xreallocarray(kp->corr, cap, sizeof(*kp->corr));
		kp->cap = cap;
	}
	/* Events the sink is not given (aggregated ones) have no key. */
	for (; kp->n < j; kp->n++)
		kp->id[kp->n] = KP_NONE;
	kp->id[j] = e->kn < 0 ? KP_NONE : kern_key_id(kp, e->meta, e->key, (size_t)e->kn);
	kp->corr[j] = e->corr == INT64_MIN				? KP_CORR_NONE
		      : e->corr >= 0 && e->corr < (int64_t)KP_CORR_OTHER ? (uint32_t)e->corr
									 : KP_CORR_OTHER;
	kp->n = j + 1;
}

int kern_key_ids(uint8_t *ids, const struct xt_plane *p)
{
	int64_t corr = p->has_known[XS_CORRELATION_ID] ? p->known_id[XS_CORRELATION_ID] : -1;
	unsigned k;

	memset(ids, 0, XT_KEY_IDS);
	for (k = 1; k < XS_COUNT; k++) {
		if (!((STREAM_WANT >> k) & 1) || !p->has_known[k])
			continue;
		if (p->known_id[k] == corr)
			return -1;
		if (p->known_id[k] >= 0 && p->known_id[k] < XT_KEY_IDS)
			ids[p->known_id[k]] = XT_KEY_STAT;
	}
	if (corr >= 0 && corr < XT_KEY_IDS)
		ids[corr] = XT_KEY_CORR;
	return 0;
}

/* ---- the pass's side ---- */

void launch_keys_init(struct launch_keys *lk, const struct xt_host *h, const struct xt_plane *p,
		      const struct xt_line *l, const struct stat_want *want,
		      const struct xt_sunk *sunk)
{
	size_t k;

	memset(lk, 0, sizeof(*lk));
	lk->h = h;
	lk->p = p;
	lk->l = l;
	lk->want = want;
	lk->corr_id = p->has_known[XS_CORRELATION_ID] ? p->known_id[XS_CORRELATION_ID] : -1;
	/* Two names for one id: every launch is decoded. */
	lk->none = lk->corr_id >= 0 && stat_want_has(want, lk->corr_id);
	/* A line the reader sorted numbers its events otherwise than the
	 * sink saw them: it reads the bytes. */
	if (sunk && sunk->nparts && !sunk->moved) {
		lk->parts = xcalloc(sunk->nparts, sizeof(*lk->parts));
		for (k = 0; k < sunk->nparts; k++) {
			const struct host_part *hp = sunk->parts[k];

			if (hp && hp->kern && hp->kern->n)
				lk->parts[lk->nparts++] = hp->kern;
		}
		lk->pmemo = xcalloc(lk->nparts ? lk->nparts : 1, sizeof(*lk->pmemo));
	}
	lk->memo = xcalloc(p->nemeta ? p->nemeta : 1, sizeof(*lk->memo));
}

void launch_keys_fini(struct launch_keys *lk)
{
	size_t k;

	for (k = 0; k < lk->nparts; k++)
		free(lk->pmemo[k]);
	free(lk->pmemo);
	free(lk->parts);
	free(lk->memo);
}

struct memo *launch_memo(struct launch_keys *lk, size_t i, int64_t *corr, int *corr_known)
{
	const struct xt_event *ev = &lk->l->ev[i];
	uint32_t mi = xt_event_meta_index(ev);
	uint8_t key[MEMO_KEY];
	struct memo *m;
	int kn;

	*corr_known = 1;
	if (lk->none) {
		*corr_known = 0;
		return NULL;
	}
	if (lk->nparts) {
		struct kern_part *kp;

		/* A piece walks forward: the part holding i is at or after the
		 * last one's. */
		if (lk->at && i < lk->parts[lk->at - 1]->first)
			lk->at = 0;
		while (lk->at < lk->nparts &&
		       i >= lk->parts[lk->at]->first + lk->parts[lk->at]->n)
			lk->at++;
		kp = lk->at < lk->nparts ? lk->parts[lk->at] : NULL;
		if (kp && i >= kp->first && kp->id[i - kp->first] != KP_NONE) {
			uint32_t c = kp->corr[i - kp->first];

			if (kp->id[i - kp->first] == KP_UNIQUE) {
				/* Not keyed: no memo, its stats are decoded. */
				*corr = c == KP_CORR_NONE ? INT64_MIN : (int64_t)c;
				*corr_known = c != KP_CORR_OTHER;
				return NULL;
			}
			if (!lk->pmemo[lk->at])
				lk->pmemo[lk->at] = xcalloc(kp->nids, sizeof(struct memo));
			*corr = c == KP_CORR_NONE ? INT64_MIN : (int64_t)c;
			*corr_known = c != KP_CORR_OTHER;
			return &lk->pmemo[lk->at][kp->id[i - kp->first]];
		}
	}
	kn = stat_scan_raw(lk->h, lk->l, ev, lk->want, lk->corr_id, key, sizeof(key), corr);
	if (kn < 0) {
		*corr_known = 0;
		return NULL;
	}
	m = &lk->memo[mi];
	if (m->valid && m->n == kn && !memcmp(m->key, key, (size_t)kn))
		return m;
	m->valid = 0;
	m->n = (uint8_t)kn;
	memcpy(m->key, key, (size_t)kn);
	return m;
}
