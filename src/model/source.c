/*
 * source: see source.h. Gzip input is inflated in 1 MiB steps straight to a
 * temporary file (never to the heap), so a multi-GB compressed profile costs
 * disk, not memory, and a gzip bomb fails on disk space with a clear error.
 */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/xalloc.h"

int source_is_gzip(const char *path)
{
	unsigned char m[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, m, 2);
	close(fd);
	return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

static int source_tmpfile(struct xt_error *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/xtop-inflate-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return xt_error_set(err, XT_EIO, "cannot create a temporary file in %s: %s", dir,
				    strerror(errno));
	unlink(path);
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Inflates in to a new temporary file; returns its fd or a negative XT_E*. */
static int source_inflate(int in, const char *path, struct xt_error *err)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *ibuf = xmalloc(CHUNK), *obuf = xmalloc(CHUNK);
	z_stream z;
	int out, zr = Z_OK, rc = 0, finished = 0;

	out = source_tmpfile(err);
	if (out < 0) {
		free(ibuf);
		free(obuf);
		return out;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		rc = xt_error_set(err, XT_EIO, "%s: cannot initialise zlib", path);
		goto out;
	}
	for (;;) {
		ssize_t n = read(in, ibuf, CHUNK);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = xt_error_set(err, XT_EIO, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0) {
			if (!finished)
				rc = xt_error_set(err, XT_EFORMAT,
						  "%s: truncated gzip stream (ends before its trailer)",
						  path);
			break;
		}
		z.next_in = ibuf;
		z.avail_in = (uInt)n;
		while (z.avail_in) {
			if (finished) {
				/* Concatenated members (gzip -c a b) form one stream. */
				if (inflateReset(&z) != Z_OK) {
					rc = xt_error_set(err, XT_EFORMAT, "%s: bad gzip stream", path);
					goto end;
				}
				finished = 0;
			}
			z.next_out = obuf;
			z.avail_out = CHUNK;
			zr = inflate(&z, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
				rc = xt_error_set(err, XT_EFORMAT, "%s: corrupt gzip data: %s", path,
						  z.msg ? z.msg : "inflate failed");
				goto end;
			}
			if (write_all(out, obuf, CHUNK - z.avail_out) < 0) {
				rc = xt_error_set(err, XT_EIO,
						  "cannot inflate %s into a temporary file: %s", path,
						  strerror(errno));
				goto end;
			}
			if (zr == Z_STREAM_END)
				finished = 1;
			else if (zr == Z_BUF_ERROR && z.avail_out == CHUNK)
				break;
		}
	}
end:
	inflateEnd(&z);
out:
	free(ibuf);
	free(obuf);
	if (rc < 0) {
		close(out);
		return rc;
	}
	return out;
}

int source_open(struct source *src, const char *path, struct xt_error *err)
{
	struct stat st;
	int fd, mfd;
	void *p;

	memset(src, 0, sizeof(*src));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xt_error_set(err, errno == ENOENT ? XT_ENOENT : XT_EIO, "%s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return xt_error_set(err, XT_EIO, "%s: not a regular file", path);
	}
	src->file_size = (size_t)st.st_size;
	mfd = fd;
	if (source_is_gzip(path)) {
		src->gzipped = 1;
		mfd = source_inflate(fd, path, err);
		close(fd);
		if (mfd < 0)
			return mfd;
		if (fstat(mfd, &st) < 0) {
			close(mfd);
			return xt_error_set(err, XT_EIO, "%s: %s", path, strerror(errno));
		}
	}
	src->size = (size_t)st.st_size;
	src->file_xspace = src->size;
	if (src->size == 0) {
		close(mfd);
		return 0;
	}
	p = mmap(NULL, src->size, PROT_READ, MAP_PRIVATE, mfd, 0);
	close(mfd);
	if (p == MAP_FAILED)
		return xt_error_set(err, XT_EIO, "%s: cannot map %zu bytes: %s", path, src->size,
				    strerror(errno));
	/* The reader walks each line front to back. */
	madvise(p, src->size, MADV_SEQUENTIAL);
	src->data = p;
	return 0;
}

void source_adopt(struct source *src, void *data, size_t size)
{
	memset(src, 0, sizeof(*src));
	src->data = size ? data : NULL;
	src->size = size;
	src->file_size = size;
	src->file_xspace = size;
	src->heap = 1;
	if (!size)
		free(data);
}

void source_close(struct source *src)
{
	if (src->heap)
		free((void *)src->data);
	else if (src->data)
		munmap((void *)src->data, src->size);
	memset(src, 0, sizeof(*src));
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older kernels say EINVAL */
#endif

void source_prefetch(const struct source *src, uint64_t off, uint64_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a, b;

	/* An adopted heap buffer is resident already. */
	if (!src->data || !len || src->heap)
		return;
	a = ((uintptr_t)src->data + off) & ~(pg - 1);
	b = (uintptr_t)src->data + off + len;
	madvise((void *)a, b - a, MADV_POPULATE_READ);
}

void source_release(const struct source *src, uint64_t off, uint64_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a, b;

	/* MADV_DONTNEED on anonymous memory would zero it, not drop a copy. */
	if (!src->data || !len || src->keep_resident || src->heap)
		return;
	a = ((uintptr_t)src->data + off + pg - 1) & ~(pg - 1);
	b = ((uintptr_t)src->data + off + len) & ~(pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}
