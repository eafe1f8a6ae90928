/*
 * profile_path: see profile_path.h. The logdir walk is bounded (depth 6) so a
 * PATH of / or a symlink loop cannot hang the program.
 */
#include "profile_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/xalloc.h"

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

static int is_profile_file(const char *name)
{
	return ends_with(name, ".xplane.pb") || ends_with(name, ".xplane.pb.gz");
}

char *profile_host_name(const char *file_name)
{
	const char *base = strrchr(file_name, '/');
	static const char *const sufs[] = { ".xplane.pb.gz", ".xplane.pb", ".pb.gz", ".pb", ".gz" };
	size_t n, i;

	base = base ? base + 1 : file_name;
	n = strlen(base);
	for (i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
		size_t k = strlen(sufs[i]);

		if (n > k && !strcmp(base + n - k, sufs[i])) {
			n -= k;
			break;
		}
	}
	return xstrndup(base, n);
}

char *profile_show_name(const char *path, char *buf, size_t n)
{
	size_t e = strlen(path), s;

	while (e > 1 && path[e - 1] == '/')
		e--;
	for (s = e; s > 0 && path[s - 1] != '/'; s--)
		;
	if (s == e) /* "/" */
		s = 0;
	snprintf(buf, n, "%.*s", (int)(e - s), path + s);
	return buf;
}

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s%s%s", a, (*a && a[strlen(a) - 1] == '/') ? "" : "/", b);
	return p;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct profile_file *)a)->host, ((const struct profile_file *)b)->host);
}

/* Collects the profile files directly inside dir into run; returns count. */
static size_t scan_run(struct profile_run *run, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!is_profile_file(de->d_name))
			continue;
		p = path_join(dir, de->d_name);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		run->files = xreallocarray(run->files, run->nfiles + 1, sizeof(*run->files));
		run->files[run->nfiles++] = (struct profile_file){
			.path = p, .host = profile_host_name(de->d_name),
			.size = (uint64_t)st.st_size, .mtime = st.st_mtime };
		if (st.st_mtime > run->mtime)
			run->mtime = st.st_mtime;
	}
	closedir(d);
	if (run->nfiles > 1)
		qsort(run->files, run->nfiles, sizeof(*run->files), file_cmp);
	/* One host in two files (h.xplane.pb and a gzip'd h.xplane.pb.gz
	 * beside it) is one host, not two with every time twice: the newer
	 * file is read, the uncompressed one on a tie (--list shows which). */
	{
		size_t i, o = 0;

		for (i = 0; i < run->nfiles; i++) {
			struct profile_file *f = &run->files[i], *k = o ? &run->files[o - 1] : NULL;

			if (k && !strcmp(k->host, f->host)) {
				int f_wins = f->mtime > k->mtime ||
					     (f->mtime == k->mtime && !ends_with(f->path, ".gz") &&
					      ends_with(k->path, ".gz"));

				if (f_wins) {
					struct profile_file t = *k;

					*k = *f;
					*f = t;
				}
				free(f->path);
				free(f->host);
				continue;
			}
			run->files[o++] = *f;
		}
		run->nfiles = o;
	}
	return run->nfiles;
}

static void add_run(struct profile_set *set, const char *dir, const char *name)
{
	struct profile_run run = { 0 };

	if (!scan_run(&run, dir))
		return;
	run.dir = xstrdup(dir);
	run.name = xstrdup(name);
	set->runs = xreallocarray(set->runs, set->nruns + 1, sizeof(*set->runs));
	set->runs[set->nruns++] = run;
}

/* Every subdirectory of a plugins/profile root is a run. */
static void scan_profile_root(struct profile_set *set, const char *root, const char *prefix)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char *p, *name;
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		p = path_join(root, de->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			n = strlen(prefix) + strlen(de->d_name) + 2;
			name = xmalloc(n);
			snprintf(name, n, "%s%s%s", prefix, *prefix ? "/" : "", de->d_name);
			add_run(set, p, name);
			free(name);
		}
		free(p);
	}
	closedir(d);
}

/* Looks for <dir>/plugins/profile, then recurses into subdirectories
 * (TensorBoard's per-job sub-runs), to a bounded depth. */
static void scan_logdir(struct profile_set *set, const char *dir, const char *prefix, int depth)
{
	DIR *d;
	struct dirent *de;
	char *pp = path_join(dir, "plugins/profile");
	struct stat st;

	if (stat(pp, &st) == 0 && S_ISDIR(st.st_mode))
		scan_profile_root(set, pp, prefix);
	free(pp);
	if (depth >= 6 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		char *p, *name;
		size_t n;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "plugins"))
			continue;
		p = path_join(dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			n = strlen(prefix) + strlen(de->d_name) + 2;
			name = xmalloc(n);
			snprintf(name, n, "%s%s%s", prefix, *prefix ? "/" : "", de->d_name);
			scan_logdir(set, p, name, depth + 1);
			free(name);
		}
		free(p);
	}
	closedir(d);
}

/* A run's own name, without the sub-job folders above it ("job/RUN"). */
static const char *run_base(const char *name)
{
	const char *s = strrchr(name, '/');

	return s ? s + 1 : name;
}

static int run_cmp(const void *a, const void *b)
{
	const struct profile_run *x = a, *y = b;
	int c = strcmp(run_base(x->name), run_base(y->name));

	/* TSL names runs by local time (YYYY_MM_DD_HH_MM_SS), so name order is
	 * time order, across the sub-jobs of a logdir too (so the folders
	 * above the run come second); file times break ties only. */
	if (!c)
		c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

int profile_scan(struct profile_set *set, const char *path, struct xt_error *err)
{
	struct stat st;
	const char *base;

	memset(set, 0, sizeof(*set));
	if (stat(path, &st) < 0)
		return xt_error_set(err, errno == ENOENT ? XT_ENOENT : XT_EIO, "%s: %s", path,
				    strerror(errno));
	if (S_ISREG(st.st_mode)) {
		struct profile_run run = { 0 };

		run.files = xcalloc(1, sizeof(*run.files));
		run.files[0] = (struct profile_file){ .path = xstrdup(path),
						      .host = profile_host_name(path),
						      .size = (uint64_t)st.st_size,
						      .mtime = st.st_mtime };
		run.nfiles = 1;
		run.mtime = st.st_mtime;
		base = strrchr(path, '/');
		run.name = xstrdup(base ? base + 1 : path);
		/* The file's own directory ("." said the current one). */
		run.dir = base ? xstrndup(path, base == path ? 1 : (size_t)(base - path)) : xstrdup(".");
		set->runs = xcalloc(1, sizeof(*set->runs));
		set->runs[0] = run;
		set->nruns = 1;
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return xt_error_set(err, XT_EIO, "%s: not a file or directory", path);
	/* A run directory itself. */
	base = strrchr(path, '/');
	add_run(set, path, base && base[1] ? base + 1 : path);
	if (!set->nruns) {
		/* A plugins/profile root, or a logdir above one. */
		size_t n = strlen(path);

		if ((n >= 15 && ends_with(path, "plugins/profile")) ||
		    (n >= 16 && ends_with(path, "plugins/profile/")))
			scan_profile_root(set, path, "");
		else
			scan_logdir(set, path, "", 0);
	}
	if (!set->nruns)
		return xt_error_set(err, XT_ENOENT,
				    "%s: no profiles found (expected *.xplane.pb files, a run directory "
				    "or a TensorBoard logdir with plugins/profile/)",
				    path);
	if (set->nruns > 1)
		qsort(set->runs, set->nruns, sizeof(*set->runs), run_cmp);
	return 0;
}

void profile_set_fini(struct profile_set *set)
{
	size_t r, f;

	for (r = 0; r < set->nruns; r++) {
		for (f = 0; f < set->runs[r].nfiles; f++) {
			free(set->runs[r].files[f].path);
			free(set->runs[r].files[f].host);
		}
		free(set->runs[r].files);
		free(set->runs[r].name);
		free(set->runs[r].dir);
	}
	free(set->runs);
	memset(set, 0, sizeof(*set));
}

const struct profile_run *profile_pick(const struct profile_set *set, const char *run_name,
				       const char *path, struct xt_error *err)
{
	size_t r;

	if (!set->nruns) {
		xt_error_set(err, XT_ENOENT, "%s: no profiles found", path);
		return NULL;
	}
	if (!run_name)
		return &set->runs[set->nruns - 1];
	/* Its full name first; a last component only when one run has it
	 * (train/… and eval/… of the same second: which is meant?). */
	for (r = 0; r < set->nruns; r++)
		if (!strcmp(set->runs[r].name, run_name))
			return &set->runs[r];
	{
		const struct profile_run *found = NULL;

		for (r = 0; r < set->nruns; r++) {
			if (strcmp(run_base(set->runs[r].name), run_name))
				continue;
			if (found) {
				xt_error_set(err, XT_EUSAGE,
					     "%s: runs '%s' and '%s' are both named '%s': give --run "
					     "the name --list shows",
					     path, found->name, set->runs[r].name, run_name);
				return NULL;
			}
			found = &set->runs[r];
		}
		if (found)
			return found;
	}
	xt_error_set(err, XT_ENOENT, "%s: no run named '%s' (see xtop report --list %s)", path,
		     run_name, path);
	return NULL;
}

int profile_path_absolute(const char *path, char *out, size_t n)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		snprintf(out, n, "%s", path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(out, n, "%s/%s", cwd, path);
	return 0;
}
