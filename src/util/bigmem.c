/*
 * bigmem: see bigmem.h. Reservations start on a 2 MiB boundary so that the
 * kernel can back them with huge pages from the first byte.
 */
#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

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
	if (huge)
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

void bigmem_commit(void *p, size_t off, size_t n)
{
	uintptr_t a = ((uintptr_t)p + off) & ~(uintptr_t)4095;
	uintptr_t b = (uintptr_t)p + off + n;

	if (n)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
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
