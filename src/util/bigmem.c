/*
 * bigmem: see bigmem.h. Reservations start on a 2 MiB boundary so that the
 * kernel can back them with huge pages from the first byte.
 *
 * Huge pages are a bet. Where the kernel has 2 MiB of fresh memory at hand
 * they fill 8 MiB in well under a millisecond; on a virtual machine whose
 * kernel hands free memory back to the hypervisor, a fresh huge page costs
 * the host a fault per page (measured: 0.5-0.7 GB/s, against 3.4 GB/s for
 * ordinary pages made resident in one call, which the guest takes from the
 * small free blocks it never handed back). So the commits of huge
 * reservations are timed in windows of HUGE_JUDGE bytes, and after a
 * window that filled slower than HUGE_SLOW, huge pages are off for the
 * rest of the process: docs/performance.md.
 */
#include "bigmem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

#if defined(__SANITIZE_ADDRESS__)
#define BIGMEM_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define BIGMEM_OFF 1
#endif
#endif

#define HUGE_SZ ((size_t)2 << 20)
/* Huge commits are judged by windows of this many bytes (a commit smaller
 * than a huge page may fill one whole, or find it filled: only a sum says
 * what a byte costs). */
#define HUGE_JUDGE ((uint64_t)8 << 20)
/* Below this rate, in bytes per nanosecond (GB/s), huge pages lose to
 * ordinary ones. */
#define HUGE_SLOW 2

/* The huge commits timed in this window, and whether huge pages are off
 * (set once; only bigmem_set_huge() clears it). */
static atomic_uint_fast64_t huge_bytes, huge_ns;
static atomic_int huge_off;

static size_t round_up(size_t n)
{
	return (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
}

static void *reserve(size_t n, int huge)
{
#ifdef BIGMEM_OFF
	(void)n;
	(void)huge;
	return NULL;
#else
	size_t len = round_up(n), lead;
	uint8_t *p;

	if (!n || len < n)
		return NULL;
	p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	lead = (HUGE_SZ - ((uintptr_t)p & (HUGE_SZ - 1))) & (HUGE_SZ - 1);
	if (lead)
		munmap(p, lead);
	munmap(p + lead + len, HUGE_SZ - lead);
	p += lead;
	if (huge && !atomic_load_explicit(&huge_off, memory_order_relaxed))
		madvise(p, len, MADV_HUGEPAGE);
	return p;
#endif
}

void *bigmem_reserve(size_t n)
{
	return reserve(n, 1);
}

void *bigmem_reserve_sparse(size_t n)
{
	return reserve(n, 0);
}

/* The calling thread's CPU time: a commit is judged by what it cost, not
 * by how long the thread waited for a core meanwhile. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bigmem_commit(void *p, size_t off, size_t n, int huge)
{
	uintptr_t a = ((uintptr_t)p + off) & ~(uintptr_t)4095;
	uintptr_t b = (uintptr_t)p + off + n;
	uint64_t t0, dt, sum_b, sum_ns;

	if (!n)
		return;
	if (!huge) {
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
		return;
	}
	if (atomic_load_explicit(&huge_off, memory_order_relaxed)) {
		/* The reservation asked for huge pages before they were
		 * turned off; its later commits are contiguous ranges, so
		 * their mappings merge again. */
		madvise((void *)a, b - a, MADV_NOHUGEPAGE);
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
		return;
	}
	t0 = now_ns();
	madvise((void *)a, b - a, MADV_POPULATE_WRITE);
	dt = now_ns() - t0;
	sum_b = atomic_fetch_add_explicit(&huge_bytes, b - a, memory_order_relaxed) + (b - a);
	sum_ns = atomic_fetch_add_explicit(&huge_ns, dt, memory_order_relaxed) + dt;
	if (sum_b < HUGE_JUDGE)
		return;
	if (sum_b < HUGE_SLOW * sum_ns) {
		atomic_store_explicit(&huge_off, 1, memory_order_relaxed);
	} else {
		/* A new window: a machine whose fresh memory turns slow
		 * later in the load is caught too. (Two threads may both
		 * reset it; a few timings lost are harmless.) */
		atomic_store_explicit(&huge_bytes, 0, memory_order_relaxed);
		atomic_store_explicit(&huge_ns, 0, memory_order_relaxed);
	}
}

void bigmem_set_huge(int on)
{
	atomic_store_explicit(&huge_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&huge_ns, 0, memory_order_relaxed);
	atomic_store_explicit(&huge_off, !on, memory_order_relaxed);
}

size_t bigmem_trim(void *p, size_t reserved, size_t used)
{
	size_t keep = round_up(used), len = round_up(reserved);

	if (keep < len)
		munmap((uint8_t *)p + keep, len - keep);
	return keep;
}

void bigmem_free(void *p, size_t mapped)
{
	if (!mapped)
		free(p);
	else if (p)
		munmap(p, mapped);
}
