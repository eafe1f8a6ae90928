/* xplane_writer: see xplane_writer.h. */
#include "xplane_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/strbuf.h"
#include "wire.h"
#include "wire_put.h"
#include "../util/xalloc.h"

/* A Task Environment plane with profile_start_time / profile_stop_time
 * (uint64 wall-clock ns, as upstream's SetSessionTimestamps writes them). */
static void task_env_plane(struct strbuf *out, uint64_t start, uint64_t stop)
{
	struct strbuf plane, st, md;
	static const char *const names[2] = { "profile_start_time", "profile_stop_time" };
	int i;

	strbuf_init(&plane);
	strbuf_init(&st);
	strbuf_init(&md);
	wire_put_bytes(&plane, 2, "Task Environment", 16);
	for (i = 0; i < 2; i++) {
		/* stat_metadata map entry {1: id, 2: XStatMetadata{1: id, 2: name}} */
		strbuf_reset(&md);
		wire_put_uint(&md, 1, (uint64_t)(i + 1));
		wire_put_bytes(&md, 2, names[i], strlen(names[i]));
		wire_put_entry(&plane, 5, i + 1, md.buf, md.len);
		/* plane stat XStat{1: metadata_id, 3: uint64_value} */
		strbuf_reset(&st);
		wire_put_uint(&st, 1, (uint64_t)(i + 1));
		wire_put_uint(&st, 3, i ? stop : start);
		wire_put_bytes(&plane, 6, st.buf, st.len);
	}
	wire_put_bytes(out, 1, plane.buf, plane.len);
	strbuf_fini(&plane);
	strbuf_fini(&st);
	strbuf_fini(&md);
}

static int has_plane(const struct xt_host *h, const char *name)
{
	size_t p;

	for (p = 0; p < h->nplanes; p++)
		if (!strcmp(h->planes[p].name, name))
			return 1;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes the buffers to path: temporary file, fsync, then link() as the
 * rename that never replaces an existing file. */
int xplane_tmp_create(const char *path, char **tmp, struct xt_error *err)
{
	size_t n = strlen(path) + 16;
	int fd;

	*tmp = NULL;
	if (access(path, F_OK) == 0)
		return xt_error_set(err, XT_EIO, "%s already exists; not overwriting it", path);
	*tmp = xmalloc(n);
	snprintf(*tmp, n, "%s.tmpXXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		xt_error_set(err, XT_EIO, "cannot write in the directory of %s: %s", path,
			     strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return XT_EIO;
	}
	/* mkstemp makes the file private; a saved profile is an ordinary file. */
	fchmod(fd, 0644);
	return fd;
}

int xplane_tmp_commit(char *tmp, const char *path, int ok, struct xt_error *err)
{
	int rc = 0;

	/* link() fails when path exists: the rename that never replaces. */
	if (!ok)
		rc = xt_error_set(err, XT_EIO, "cannot write %s: %s", path,
				  errno ? strerror(errno) : "write failed");
	else if (link(tmp, path) < 0)
		rc = xt_error_set(err, XT_EIO, "cannot create %s: %s", path, strerror(errno));
	unlink(tmp);
	free(tmp);
	return rc;
}

void xplane_host_file(char *buf, size_t n, const char *dir, const char *host, const char *suffix)
{
	char h[256];
	size_t i;

	/* ':' is not allowed in the file name (host:port captures), as upstream. */
	snprintf(h, sizeof(h), "%s", host);
	for (i = 0; h[i]; i++)
		if (h[i] == ':' || h[i] == '/')
			h[i] = '_';
	snprintf(buf, n, "%.3800s/%s%s", dir, h, suffix);
}

static int write_atomic(const char *path, const void *a, size_t na, const void *b, size_t nb,
			struct xt_error *err)
{
	char *tmp;
	int fd = xplane_tmp_create(path, &tmp, err), ok, saved;

	if (fd < 0)
		return fd;

	errno = 0;
	ok = !(na && write_all(fd, a, na) < 0) && !(nb && write_all(fd, b, nb) < 0) &&
	     fsync(fd) == 0;
	saved = errno;
	close(fd);
	errno = saved; /* the write's error, for the message */
	return xplane_tmp_commit(tmp, path, ok, err);
}

/* What an encoded XSpace already has of what XProf wants: hostnames, and a
 * Task Environment plane (upstream writes a plane's name before its lines,
 * so each plane is only peeked at). */
static void xspace_has(const uint8_t *b, size_t n, int *hostnames, int *env)
{
	struct wire w;

	*hostnames = *env = 0;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		size_t pn;
		const uint8_t *pb;

		if (t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		pb = wire_bytes(&w, &pn);
		if (f == 4) {
			*hostnames = 1;
		} else if (f == 1) {
			struct wire pw;

			wire_init(&pw, pb, pn);
			while (wire_more(&pw)) {
				uint32_t pf;
				unsigned pt = wire_tag(&pw, &pf);

				if (pf == 2 && pt == WIRE_LEN) {
					size_t sn;
					const uint8_t *s = wire_bytes(&pw, &sn);

					if (sn == 16 && !memcmp(s, "Task Environment", 16))
						*env = 1;
					break;
				}
				if (pf == 3)
					break; /* lines: the name comes first or not at all */
				wire_skip(&pw, pt);
			}
		}
	}
}

static void extras(struct strbuf *extra, int has_hostnames, int has_env,
		   const struct xplane_write_opts *o)
{
	if (o && o->hostname && o->hostname[0] && !has_hostnames)
		wire_put_bytes(extra, 4, o->hostname, strlen(o->hostname));
	if (o && o->start_ns && o->stop_ns && !has_env)
		task_env_plane(extra, o->start_ns, o->stop_ns);
}

void xplane_add_extras(uint8_t **data, size_t *n, const struct xplane_write_opts *o)
{
	struct strbuf extra;
	int hn, env;

	strbuf_init(&extra);
	xspace_has(*data, *n, &hn, &env);
	extras(&extra, hn, env, o);
	if (extra.len) {
		*data = xrealloc(*data, *n + extra.len);
		memcpy(*data + *n, extra.buf, extra.len);
		*n += extra.len;
	}
	strbuf_fini(&extra);
}

void xplane_space_errors(const uint8_t *b, size_t n, char *out, size_t size)
{
	struct wire w;
	size_t got = 0;
	int pass;

	out[0] = '\0';
	/* errors (2) first, then warnings (3), joined with "; ". */
	for (pass = 2; pass <= 3; pass++) {
		wire_init(&w, b, n);
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);
			const uint8_t *s;
			size_t sn;

			if (t != WIRE_LEN || f != (uint32_t)pass) {
				wire_skip(&w, t);
				continue;
			}
			s = wire_bytes(&w, &sn);
			if (w.bad || got + 3 >= size)
				break;
			got += (size_t)snprintf(out + got, size - got, "%s%.*s", got ? "; " : "",
						(int)sn, (const char *)s);
			if (got >= size)
				got = size - 1;
		}
	}
}

int xplane_write_bytes(const char *path, const void *data, size_t n,
		       const struct xplane_write_opts *o, struct xt_error *err)
{
	struct strbuf extra;
	int hn, env, rc;

	strbuf_init(&extra);
	xspace_has(data, n, &hn, &env);
	extras(&extra, hn, env, o);
	rc = write_atomic(path, data, n, extra.buf, extra.len, err);
	strbuf_fini(&extra);
	return rc;
}

int xplane_host_window(const struct xt_host *h, uint64_t *start_ns, uint64_t *stop_ns)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t p, l;

	if (has_plane(h, "Task Environment"))
		return 2;
	/* In ns: ps since 1970 do not fit 64 bits. Line times are read
	 * rebased by the host's ts_base_ns; add it back for the wall clock. */
	for (p = 0; p < h->nplanes; p++) {
		for (l = 0; l < h->planes[p].nlines; l++) {
			const struct xt_line *ln = &h->planes[p].lines[l];
			size_t i;

			for (i = 0; i < ln->nev; i++) {
				int64_t s = h->ts_base_ns + ln->timestamp_ns +
					    xt_event_off(ln, i) / 1000;
				int64_t e = s + (xt_event_dur(ln, &ln->ev[i]) + 999) / 1000;

				if (s < lo)
					lo = s;
				if (e > hi)
					hi = e;
			}
		}
	}
	/* Before 1973 it is a time since the profile started, not a date. */
	if (lo == INT64_MAX || lo < (int64_t)100000000000000000ll)
		return 0;
	*start_ns = (uint64_t)lo;
	*stop_ns = (uint64_t)hi;
	return 1;
}

int xplane_write(const struct xt_host *h, const char *path, const struct xplane_write_opts *o,
		 struct xt_error *err)
{
	struct strbuf extra;
	struct xplane_write_opts own;
	int rc;

	if (o && o->from_trace) {
		/* The host's own name and wall-clock span, where it has none. */
		own = *o;
		own.hostname = h->name;
		if (xplane_host_window(h, &own.start_ns, &own.stop_ns) != 1)
			own.start_ns = own.stop_ns = 0;
		o = &own;
	}
	strbuf_init(&extra);
	extras(&extra, h->nhostnames > 0, has_plane(h, "Task Environment"), o);
	rc = write_atomic(path, h->src.data, h->src.size, extra.buf, extra.len, err);
	strbuf_fini(&extra);
	return rc;
}

static int mkdir_p(char *path)
{
	char *s;

	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* The levels a run directory sits under: <logdir>, then these. */
static const char *const level_sub[] = { "", "/plugins", "/plugins/profile" };

static void logdir_level(char *buf, size_t n, const char *logdir, int level)
{
	snprintf(buf, n, "%s%s", logdir, level_sub[level]);
}

int xplane_new_run_dir(const char *logdir, char *run_dir, size_t n, char *name, size_t nn,
		       struct xt_error *err)
{
	char root[4096], stamp[64];
	time_t now = time(NULL);
	struct tm tm;
	int k;

	logdir_level(root, sizeof(root), logdir, 2);
	if (mkdir_p(root) < 0)
		return xt_error_set(err, XT_EIO, "cannot create %s: %s", root, strerror(errno));
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y_%m_%d_%H_%M_%S", &tm);
	/* mkdir is the atomic claim on the name. */
	for (k = 1;; k++) {
		char base[80];

		if (k == 1)
			snprintf(base, sizeof(base), "%s", stamp);
		else
			snprintf(base, sizeof(base), "%s_%d", stamp, k);
		snprintf(run_dir, n, "%s/%s", root, base);
		if (mkdir(run_dir, 0755) == 0) {
			if (name)
				snprintf(name, nn, "%s", base);
			return 0;
		}
		if (errno != EEXIST || k > 1000)
			return xt_error_set(err, XT_EIO, "cannot create %s: %s", run_dir,
					    strerror(errno));
	}
}

/* The length of the directory above p[0, len) ("/a/b/" -> "/a"); 0 when
 * there is none to remove (the root, or a relative name's first part). */
static size_t parent_len(const char *p, size_t len)
{
	while (len > 1 && p[len - 1] == '/')
		len--;
	while (len > 0 && p[len - 1] != '/')
		len--;
	while (len > 1 && p[len - 1] == '/')
		len--;
	return len > 1 ? len : 0;
}

unsigned xplane_missing_dirs(const char *logdir)
{
	char p[4200];
	struct stat st;
	unsigned m = 0;
	size_t len;
	int k;

	for (k = 0; k < 3; k++) {
		logdir_level(p, sizeof(p), logdir, k);
		if (stat(p, &st) != 0)
			m |= 1u << k;
	}
	if (!(m & 1u))
		return m;
	snprintf(p, sizeof(p), "%s", logdir);
	len = strlen(p);
	for (k = 0; k < XPLANE_TRAIL_UP && (len = parent_len(p, len)); k++) {
		p[len] = '\0';
		if (stat(p, &st) == 0)
			break;
		m |= 1u << (3 + k);
	}
	return m;
}

void xplane_run_trail(const char *logdir, const char *run_dir, unsigned missing,
		      struct xplane_trail *t)
{
	size_t base = strlen(logdir), len;
	int k;

	t->n = 0;
	snprintf(t->run, sizeof(t->run), "%s", run_dir ? run_dir : "");
	logdir_level(t->path, sizeof(t->path), logdir, 2);
	if (base + strlen(level_sub[2]) >= sizeof(t->path))
		return; /* cut: remove nothing but the run */
	/* <logdir>/plugins/profile, <logdir>/plugins, <logdir>, while missing */
	for (k = 2; k >= 0 && (missing & (1u << k)); k--)
		t->cut[t->n++] = base + strlen(level_sub[k]);
	if (k >= 0)
		return;
	/* then the directories above it that mkdir -p made */
	for (len = base, k = 0; k < XPLANE_TRAIL_UP && (missing & (1u << (3 + k))) &&
				(len = parent_len(t->path, len));
	     k++)
		t->cut[t->n++] = len;
}

void xplane_rmdir_trail(const struct xplane_trail *t)
{
	char p[sizeof(t->path)];
	int i;

	if (t->run[0])
		rmdir(t->run);
	/* rmdir() refuses a directory that holds anything: a level that
	 * stays holds the ones above it. */
	for (i = 0; i < t->n; i++) {
		memcpy(p, t->path, t->cut[i]);
		p[t->cut[i]] = '\0';
		if (rmdir(p) != 0)
			break;
	}
}

void xplane_remove_run_dir(const char *logdir, const char *run_dir, unsigned missing)
{
	struct xplane_trail t;

	xplane_run_trail(logdir, run_dir, missing, &t);
	xplane_rmdir_trail(&t);
}

int xplane_save_run(const struct xt_trace *t, const char *logdir, const struct xplane_write_opts *o,
		    char *run_dir, size_t n, struct xt_error *err)
{
	char file[4096];
	size_t h, k;
	unsigned missing = xplane_missing_dirs(logdir);
	int rc;

	rc = xplane_new_run_dir(logdir, run_dir, n, NULL, 0, err);
	if (rc < 0) {
		xplane_remove_run_dir(logdir, NULL, missing);
		return rc;
	}
	for (h = 0; h < t->nhosts; h++) {
		xplane_host_file(file, sizeof(file), run_dir, t->hosts[h].name, ".xplane.pb");
		rc = xplane_write(&t->hosts[h], file, o, err);
		if (rc < 0) {
			/* A run with some hosts would open as the whole profile:
			 * the hosts written go, and the run with them. */
			for (k = 0; k < h; k++) {
				xplane_host_file(file, sizeof(file), run_dir, t->hosts[k].name,
						 ".xplane.pb");
				unlink(file);
			}
			xplane_remove_run_dir(logdir, run_dir, missing);
			run_dir[0] = '\0';
			return rc;
		}
	}
	return 0;
}
