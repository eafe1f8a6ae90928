/*
 * xplane_writer: writes a host's profile back as an XSpace file.
 *
 * The model keeps every byte it read (struct source), so writing back is
 * lossless by construction: the original encoding is written unchanged, and
 * what TensorBoard/XProf expect but the file lacks (a `hostnames` entry, a
 * `Task Environment` plane with profile_start_time / profile_stop_time) is
 * appended as extra XSpace fields, which protobuf merges into the message.
 *
 * Writes are atomic (a temporary file in the same directory, fsync, then a
 * rename that refuses to replace an existing file), so nothing saved before
 * is ever overwritten and a failed write leaves nothing behind.
 */
#ifndef XT_XPLANE_WRITER_H
#define XT_XPLANE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"
#include "trace.h"

struct xplane_write_opts {
	const char *hostname;       /* added to XSpace.hostnames when it has none; NULL = don't */
	uint64_t start_ns, stop_ns; /* wall-clock profile window for a Task Environment
				       plane added when the file has none; 0 = don't */
	int from_trace;             /* xplane_write(): instead of the above, the host's
				       name, and its events' span when they carry
				       wall-clock times (xplane_host_window) */
};

/* The wall-clock window of host h for a Task Environment plane: returns 2
 * when it already has that plane, 1 with [*start_ns, *stop_ns] from its
 * events when their times are dates (ns since 1970), 0 when they are times
 * since the profile started, which say nothing about when it was taken. */
int xplane_host_window(const struct xt_host *h, uint64_t *start_ns, uint64_t *stop_ns);

/* Writes host h to path (which must not exist). Returns 0, or a negative
 * XT_E* with err set (XT_EIO for an existing path, a full disk, a
 * read-only directory...). */
int xplane_write(const struct xt_host *h, const char *path, const struct xplane_write_opts *o,
		 struct xt_error *err);

/* Writes an encoded XSpace (e.g. a capture's) to path atomically, refusing
 * to replace an existing file, with the same additions as xplane_write().
 * Returns 0 or XT_EIO with err set. */
int xplane_write_bytes(const char *path, const void *data, size_t n,
		       const struct xplane_write_opts *o, struct xt_error *err);
/* Appends to the encoded XSpace *data (n bytes, from malloc; reallocated)
 * what xplane_write() would add to it, so that the bytes in memory are the
 * file that gets saved. Can't fail. */
void xplane_add_extras(uint8_t **data, size_t *n, const struct xplane_write_opts *o);
/* The XSpace's errors, then its warnings, joined with "; " into out (cut to
 * size); "" when it has none or is malformed. Can't fail. */
void xplane_space_errors(const uint8_t *b, size_t n, char *out, size_t size);
/* Creates <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>[_k] (a new
 * directory, never an existing one); run_dir (size n) gets its path and
 * name (size nn, may be NULL) its last component. Returns 0 or XT_EIO. */
int xplane_new_run_dir(const char *logdir, char *run_dir, size_t n, char *name, size_t nn,
		       struct xt_error *err);

/* Which of <logdir>, <logdir>/plugins and <logdir>/plugins/profile do not
 * exist yet (bits 0, 1 and 2), and when <logdir> does not, which of the
 * directories above it (bit 3 its parent, 4 the one above, up to
 * XPLANE_TRAIL_UP) do not either, since mkdir -p makes them too: call
 * before xplane_new_run_dir() to know what xplane_remove_run_dir() may
 * take away again. Can't fail. */
#define XPLANE_TRAIL_UP 8
unsigned xplane_missing_dirs(const char *logdir);
/* Undoes a run directory that received nothing: removes run_dir (may be
 * NULL) if it is empty, then those of the directories in `missing` (from
 * xplane_missing_dirs()) that are empty, deepest first. Never removes a
 * file or a directory that was there before. Can't fail. */
void xplane_remove_run_dir(const char *logdir, const char *run_dir, unsigned missing);
/* What xplane_remove_run_dir() removes, as paths made beforehand, for a
 * signal handler that may call rmdir() alone: xplane_run_trail() fills t,
 * xplane_rmdir_trail() does the removal. */
struct xplane_trail {
	char run[4200];	 /* run_dir, "" when none */
	char path[4200]; /* <logdir>/plugins/profile: each level a prefix of it */
	size_t cut[3 + XPLANE_TRAIL_UP]; /* the levels of `missing`, deepest first */
	int n;
};
void xplane_run_trail(const char *logdir, const char *run_dir, unsigned missing,
		      struct xplane_trail *t);
/* Async-signal-safe. */
void xplane_rmdir_trail(const struct xplane_trail *t);

/* The pieces of an atomic write, for writers that stream (trace_json):
 * xplane_tmp_create() refuses an existing path and returns an fd on a new
 * temporary file beside it (*tmp to free) or a negative XT_E*;
 * xplane_tmp_commit() links it to path when ok (else reports the write
 * error in errno), removes the temporary and frees tmp; returns 0 or XT_EIO. */
int xplane_tmp_create(const char *path, char **tmp, struct xt_error *err);
int xplane_tmp_commit(char *tmp, const char *path, int ok, struct xt_error *err);
/* dir/host+suffix with the ':' and '/' of host:port names made '_'. */
void xplane_host_file(char *buf, size_t n, const char *dir, const char *host, const char *suffix);

/*
 * Saves every host of t in TensorBoard's layout under logdir:
 * <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb, in a new
 * run directory (a suffix _2, _3... when that second's name is taken).
 * run_dir (size n) receives the directory written. Returns 0 or XT_E*;
 * on an error nothing of the run stays (the hosts already written, the run
 * directory, the logdir levels made for it) and run_dir is "".
 */
int xplane_save_run(const struct xt_trace *t, const char *logdir, const struct xplane_write_opts *o,
		    char *run_dir, size_t n, struct xt_error *err);

#endif
