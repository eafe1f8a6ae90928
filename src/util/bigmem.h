/*
 * bigmem: very large arrays straight from mmap, for the per-line event
 * arrays of multi-GB profiles.
 *
 * Why not malloc: each 4 KiB page of a fresh anonymous array costs a page
 * fault when first written, and on virtual machines a fault costs tens of
 * microseconds (measured: 3.5 s to touch 1 GiB page by page, 0.5 s when the
 * kernel fills it in large batches; docs/performance.md). A bigmem array
 * reserves address space for its largest possible size once (so it never
 * moves or copies while it grows), asks for transparent huge pages while
 * they prove fast (see bigmem.c), and is made resident in batches
 * (MADV_POPULATE_WRITE) as the writer reaches them. bigmem_trim() then
 * gives back everything past what was used.
 *
 * Ownership: the caller keeps the pointer and the mapped size that
 * bigmem_trim() returned, and releases both with bigmem_free().
 */
#ifndef XT_BIGMEM_H
#define XT_BIGMEM_H

#include <stddef.h>

/* Bytes made resident by one bigmem_commit() step. */
#define BIGMEM_STEP ((size_t)8 << 20)

/* Reserves n bytes of address space (nothing resident yet). Returns NULL
 * when bigmem is not used in this build (sanitizers track only malloc) or
 * the reservation fails: the caller then uses malloc. */
void *bigmem_reserve(size_t n);
/* The same, on ordinary pages: for an array written in scattered parts,
 * where a huge page would make a part's untouched neighbours resident. */
void *bigmem_reserve_sparse(size_t n);
/* Makes the pages of [off, off + n) resident at once (a hint: pages not
 * made resident simply fault in when written). Thread-safe; can't fail.
 * huge: p came from bigmem_reserve(); these commits are timed, and when
 * huge pages fill slowly, later reservations and huge commits (this
 * reservation's too) use ordinary pages. */
void bigmem_commit(void *p, size_t off, size_t n, int huge);
/* Turns huge pages on (a fresh judgement) or off, for the process: for
 * tests, which must cover both. */
void bigmem_set_huge(int on);
/* Releases what lies past the first `used` bytes of a reservation of
 * `reserved` bytes; returns the bytes still mapped (0 when used is 0: the
 * whole reservation is gone). */
size_t bigmem_trim(void *p, size_t reserved, size_t used);
/* Releases a mapping of `mapped` bytes (as bigmem_trim() returned). With
 * mapped 0, p is the malloc'd array used instead (or NULL): it is freed,
 * so an owner that records 0 for malloc needs no branch of its own. */
void bigmem_free(void *p, size_t mapped);

#endif
