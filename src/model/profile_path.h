/*
 * profile_path: what a PATH argument names.
 *
 * A PATH may be one .xplane.pb file (plain or gzip), a run directory holding
 * one file per host, or a TensorBoard logdir (`<logdir>/[sub/]plugins/profile/
 * <run>/<host>.xplane.pb`), where the newest run is chosen unless a run name
 * is given. Other files in a run directory (.SSTABLE caches, .trace.json.gz,
 * .hlo_proto.pb) are skipped.
 */
#ifndef XT_PROFILE_PATH_H
#define XT_PROFILE_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../util/error.h"

struct profile_file {
	char *path;     /* owned */
	char *host;     /* owned: file name minus .xplane.pb[.gz] */
	uint64_t size;  /* bytes on disk */
	time_t mtime;
};

struct profile_run {
	char *name;     /* owned: run directory name (relative to its profile root) */
	char *dir;      /* owned: full path of the run directory */
	struct profile_file *files;
	size_t nfiles;
	time_t mtime;   /* newest file */
};

struct profile_set {
	struct profile_run *runs; /* sorted oldest first */
	size_t nruns;
};

/* Finds every run under path (a file yields one run of one host).
 * Returns 0 or a negative XT_E* with err set. Free with profile_set_fini(). */
int profile_scan(struct profile_set *set, const char *path, struct xt_error *err);
void profile_set_fini(struct profile_set *set);
/* The run named run_name, or the newest when run_name is NULL; NULL with err
 * set when there is no such run. */
const struct profile_run *profile_pick(const struct profile_set *set, const char *run_name,
				       const char *path, struct xt_error *err);
/* Host label for a profile file name ("h.xplane.pb.gz" -> "h"). Caller frees. */
char *profile_host_name(const char *file_name);
/* The name path is shown by: its last component, trailing slashes
 * ignored ("runs/tw003/" is "tw003"), into buf (size n). Returns buf. */
char *profile_show_name(const char *path, char *buf, size_t n);
/* path made absolute against the current directory (links left as they
 * are, as the user wrote it), into out (size n). Returns 0, or -1 with
 * errno when the current directory cannot be had. */
int profile_path_absolute(const char *path, char *out, size_t n);

#endif
