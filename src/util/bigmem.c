/*
 * bigmem: see bigmem.h. Reservations start on a 2 MiB boundary so that the
 * kernel can back them with huge pages from the first byte.
 *
 * Huge pages are a bet. Where the kernel has 2 MiB of fresh memory at hand
 * they fill 8 MiB in well under a millisecond; on a virtual machine whose
 * kernel hands free memory back to the hypervisor, a fresh huge page costs
 * the host a fault per page (measured: 0.5-0.7 GB/s, against 3.4 GB/s for
 * ordinary pages made resident in one call, which the guest takes from the
 * small free blocks it never handed back). So each commit of a huge
 * reservation is timed, and the first one slower than HUGE_SLOW_MBS turns
 * huge pages off for the rest of the process: docs/performance.md.
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
/* Commits at least this big are timed (the chunk commits of event arrays,
 * never the small steps of sparse arrays). */
#define HUGE_TIMED ((size_t)4 << 20)
/* Below this rate (MB/s) huge pages lose to ordinary ones. */
#define HUGE_SLOW_MBS 2000.0

/* Set once a huge commit ran slower than HUGE_SLOW_MBS; never cleared. */
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bigmem_commit(void *p, size_t off, size_t n)
{
	uintptr_t a = ((uintptr_t)p + off) & ~(uintptr_t)4095;
	uintptr_t b = (uintptr_t)p + off + n;
	double t0;

	if (!n)
		return;
	if (b - a < HUGE_TIMED) {
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
		return;
	}
	if (atomic_load_explicit(&huge_off, memory_order_relaxed)) {
		/* A reservation made before the switch still asks for huge
		 * pages; its later commits are contiguous ranges, so their
		 * mappings merge again. */
		madvise((void *)a, b - a, MADV_NOHUGEPAGE);
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
		return;
	}
	t0 = now_s();
	madvise((void *)a, b - a, MADV_POPULATE_WRITE);
	if ((double)(b - a) / 1e6 < HUGE_SLOW_MBS * (now_s() - t0))
		atomic_store_explicit(&huge_off, 1, memory_order_relaxed);
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
