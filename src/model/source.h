/*
 * source: the bytes of one profile file, mapped read-only.
 *
 * A plain file is mmap'd as it is. A gzip-compressed file is inflated into an
 * unlinked temporary file which is then mapped the same way, so both cases
 * give the model one stable byte range that lives as long as the trace: the
 * model keeps offsets into it instead of copying stats and HLO protos
 * (that is what keeps peak memory below the file size), and writing the
 * profile back later re-reads the same bytes without loss.
 *
 * Pages are file-backed, so source_release() can drop a parsed range from
 * resident memory; touching it again simply faults it back in.
 *
 * A profile that arrived over a socket (a capture) is adopted as it is
 * (source_adopt): the model reads the heap buffer in place, with the same
 * bounds checks, instead of writing it to a temporary file to map it.
 */
#ifndef XT_SOURCE_H
#define XT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

struct source {
	const uint8_t *data; /* mapped bytes; NULL for an empty file */
	size_t size;         /* bytes of (uncompressed) XSpace */
	size_t file_xspace;  /* bytes of XSpace the file holds: size, unless the reader
				merged its host planes (xspace_merge.h) into data */
	size_t file_size;    /* bytes on disk */
	int gzipped;         /* 1 when the file was gzip-compressed */
	int heap;            /* 1: data is a malloc'd buffer (source_adopt), not a mapping */
	int keep_resident;   /* 1: source_release() keeps pages (tests, small files) */
};

/* Maps path. Returns 0, or XT_ENOENT/XT_EIO/XT_EFORMAT with err set.
 * On success the caller owns the mapping: release it with source_close(). */
int source_open(struct source *src, const char *path, struct xt_error *err);
void source_close(struct source *src);
/* Takes ownership of data (size bytes from malloc; NULL when size is 0):
 * source_close() frees it. Can't fail. */
void source_adopt(struct source *src, void *data, size_t size);
/* Advises the kernel that [off, off+len) will not be needed soon and drops
 * those pages from this process's resident set (unless keep_resident; a
 * no-op for an adopted heap buffer, whose pages are the only copy).
 * Can't fail. */
void source_release(const struct source *src, uint64_t off, uint64_t len);
/* Maps [off, off+len) into this process's page tables at once, ahead of a
 * read (one call instead of a page fault per 64 KiB). A hint: can't fail. */
void source_prefetch(const struct source *src, uint64_t off, uint64_t len);
/* Returns 1 when the first bytes of path are a gzip header. */
int source_is_gzip(const char *path);

#endif
