/*
 * xg_scale.c - `xtop-gen --scale`: repeats every line's events K times,
 * shifted in time (see xg_scale.h). Field numbers are those of
 * proto/xplane.proto: XSpace 1 planes; XPlane 3 lines; XLine 4 events,
 * 9 duration_ps; XEvent 1 metadata_id, 2 offset_ps, 5 num_occurrences.
 */
#include "xg_scale.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/model/wire.h"
#include "pbwrite.h"
#include "xg_die.h"

/* The stats that name one instance of something (a step, a launch, a
 * program run): each copy gets its own, as a longer run would have, so that
 * steps, launch-to-kernel pairs and clock matches stay one per instance.
 * And device_offset_ps, an op's start by the device's clock (absolute ps):
 * it moves with its event, by the copy's shift (XG_DEV_OFF). */
static const char *const xg_ids[] = { "group_id", "step_num", "iter_num", "correlation_id",
				      "run_id", "device_offset_ps" };
enum { XG_DEV_OFF = 5 };
enum { XG_NIDS = sizeof(xg_ids) / sizeof(xg_ids[0]), XG_PIDS = 32, XG_VAL_OTHER = 99 };
/* Doubles hold integers exactly up to here. */
#define XG_DBL_EXACT 9007199254740992.0

struct xg_scale {
	const char *path;
	const uint8_t *in;	/* the mapped input */
	size_t in_len;
	uint64_t k;
	struct pb_sink *s;
	int sizing;
	/* lengths learnt by the counting pass, in file order */
	uint64_t *line_len, *plane_len;
	size_t nline, nplane, line_cap, plane_cap;
	size_t line_i, plane_i; /* writing pass: next entry to use */
	struct xg_scale_stats st;
	/* The survey's findings: the profile's span (first start to last
	 * end over every line, so copies keep the lines in step) and each
	 * identifier's range. */
	uint64_t span;
	int64_t id_lo[XG_NIDS], id_hi[XG_NIDS];
	uint64_t id_step[XG_NIDS]; /* copy c adds c * id_step (0: kept) */
	unsigned id_seen;          /* bit i: xg_ids[i] has a value */
	unsigned id_dbl;           /* bit i: some of them are doubles */
	unsigned id_other;         /* bit i: some are not integers (kept) */
	/* the current plane's stat metadata ids of those identifiers */
	uint64_t pid[XG_PIDS];
	unsigned pname[XG_PIDS];
	size_t npid;
	uint8_t *tmp; /* a copy's event with its identifiers renumbered */
	size_t tmp_cap;
};

/* Inflates a gzip file into an unlinked temporary file; returns its fd. */
static int xg_scale_inflate(const char *path, int fd)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(tmp, sizeof tmp, "%s/xtop-gen-scale-XXXXXX", dir);
	int out = mkstemp(tmp);
	if (out < 0)
		xg_die("cannot create a temporary file in %s: %s", dir, strerror(errno));
	unlink(tmp);
	gzFile gz = gzdopen(fd, "rb");
	if (!gz)
		xg_die("%s: cannot open the gzip stream", path);
	gzbuffer(gz, 1 << 20);
	enum { CHUNK = 1 << 20 };
	uint8_t *buf = malloc(CHUNK);
	if (!buf)
		xg_die("out of memory");
	for (;;) {
		int n = gzread(gz, buf, CHUNK);
		if (n < 0) {
			int zerr;
			const char *m = gzerror(gz, &zerr);
			xg_die("%s: %s", path, zerr == Z_ERRNO ? strerror(errno) : m);
		}
		if (n == 0)
			break;
		for (uint8_t *p = buf; n > 0;) {
			ssize_t w = write(out, p, (size_t)n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				xg_die("cannot inflate %s into a temporary file: %s", path,
				       strerror(w < 0 ? errno : EIO));
			p += w;
			n -= (int)w;
		}
	}
	free(buf);
	gzclose(gz); /* also closes fd */
	return out;
}

/* Maps the (inflated) input; *n gets its size. */
static const uint8_t *xg_scale_map(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		xg_die("%s: %s", path, strerror(errno));
	uint8_t magic[2];
	if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
		fd = xg_scale_inflate(path, fd);
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		xg_die("%s: not a regular file", path);
	*n = (size_t)st.st_size;
	if (!*n)
		xg_die("%s: empty file, not an XSpace profile", path);
	void *p = mmap(NULL, *n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		xg_die("%s: cannot map %zu bytes: %s", path, *n, strerror(errno));
	madvise(p, *n, MADV_SEQUENTIAL);
	return p;
}

static _Noreturn void xg_scale_bad(const struct xg_scale *x, const char *what)
{
	xg_die("%s: not a valid XSpace profile (malformed %s)", x->path, what);
}

/* Where one XEvent's offset_ps field is, so a copy can replace it. */
struct xg_scale_ev {
	const uint8_t *b;
	size_t n;
	size_t cut0, cut1;	/* bytes [cut0, cut1) are the offset_ps field (empty: none) */
	uint64_t off;		/* offset_ps as written (0 when absent) */
	int timed;		/* 0 for an aggregated event (num_occurrences) */
};

static int xg_scale_event(const uint8_t *b, size_t n, struct xg_scale_ev *e, uint64_t *dur)
{
	struct wire w;
	int has_off = 0;
	wire_init(&w, b, n);
	memset(e, 0, sizeof *e);
	e->b = b;
	e->n = n;
	e->timed = 1;
	*dur = 0;
	while (wire_more(&w)) {
		size_t at = (size_t)(w.p - b);
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (t == WIRE_VARINT && (f == 1 || f == 2 || f == 3 || f == 5)) {
			uint64_t v = wire_varint(&w);
			if (f == 2) {	/* the last one wins, as a parser reads it */
				e->off = v;
				e->cut0 = at;
				e->cut1 = (size_t)(w.p - b);
				has_off = 1;
			} else if (f == 3) {
				*dur = v;
			} else if (f == 5) {
				e->timed = 0;
			} else if (!has_off && at == 0) {
				/* no offset yet: a copy's goes right after
				 * metadata_id, where upstream writes it */
				e->cut0 = e->cut1 = (size_t)(w.p - b);
			}
		} else {
			wire_skip(&w, t);
		}
	}
	return w.bad ? -1 : 0;
}

/* The plane's stat metadata ids of the identifiers, into x->pid: its
 * field 5, a map (1 key, 2 XStatMetadata, whose 2 is the name). Event stats
 * name their metadata by the map's key, as the reader looks them up. */
static void xg_scale_plane_ids(struct xg_scale *x, const uint8_t *b, size_t n)
{
	struct wire w;

	x->npid = 0;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f != 5 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		size_t en, nn = 0;
		const uint8_t *eb = wire_bytes(&w, &en), *nm = NULL;
		uint64_t key = 0;
		struct wire m;
		wire_init(&m, eb, w.bad ? 0 : en);
		while (wire_more(&m)) {
			uint32_t mf;
			unsigned mt = wire_tag(&m, &mf);
			if (mf == 1 && mt == WIRE_VARINT) {
				key = wire_varint(&m);
			} else if (mf == 2 && mt == WIRE_LEN) {
				size_t vn;
				const uint8_t *vb = wire_bytes(&m, &vn);
				struct wire v;
				wire_init(&v, vb, m.bad ? 0 : vn);
				while (wire_more(&v)) {
					uint32_t vf;
					unsigned vt = wire_tag(&v, &vf);
					if (vf == 2 && vt == WIRE_LEN) {
						nm = wire_bytes(&v, &nn);
					} else {
						wire_skip(&v, vt);
					}
				}
				if (v.bad)
					xg_scale_bad(x, "stat metadata");
			} else {
				wire_skip(&m, mt);
			}
		}
		if (m.bad)
			xg_scale_bad(x, "stat metadata");
		for (unsigned k = 0; nm && k < XG_NIDS && x->npid < XG_PIDS; k++)
			if (strlen(xg_ids[k]) == nn && !memcmp(nm, xg_ids[k], nn)) {
				x->pid[x->npid] = key;
				x->pname[x->npid++] = k;
			}
	}
	if (w.bad)
		xg_scale_bad(x, "plane");
}

/* Walks the identifiers among event b's stats (an integer value, under
 * one of the plane's identifier ids). Surveying (out NULL): widens each
 * one's range. Else: writes into out the event of copy c, each identifier
 * moved by c of its steps and every other byte as it is; returns its
 * length, or 0 when nothing moved (out holds at most 3 n + 64 bytes). */
static size_t xg_scale_ids(struct xg_scale *x, const uint8_t *b, size_t n, uint64_t c,
			   uint8_t *out)
{
	struct wire w;
	const uint8_t *done = b; /* bytes before it are in out */
	uint8_t *q = out;

	if (!x->npid)
		return 0;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f != 4 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		size_t sn, v0 = 0, v1 = 0;
		const uint8_t *sb = wire_bytes(&w, &sn);
		uint64_t mid = 0, v = 0;
		unsigned vf = 0, k;
		struct wire sw;
		wire_init(&sw, sb, w.bad ? 0 : sn);
		while (wire_more(&sw)) {
			size_t fat = (size_t)(sw.p - sb);
			uint32_t ff;
			unsigned tt = wire_tag(&sw, &ff);
			if (tt == WIRE_VARINT && ff == 1) {
				mid = wire_varint(&sw);
			} else if (tt == WIRE_VARINT && (ff == 3 || ff == 4)) {
				v = wire_varint(&sw);
				vf = ff;
				v0 = fat;
				v1 = (size_t)(sw.p - sb);
			} else if (tt == WIRE_I64 && ff == 2) {
				/* a double, as the reader takes it for an integer */
				double d;
				uint64_t bits = wire_fixed64(&sw);
				memcpy(&d, &bits, sizeof d);
				vf = d >= -XG_DBL_EXACT && d <= XG_DBL_EXACT && d == (double)(int64_t)d
					     ? 2 : XG_VAL_OTHER;
				v = vf == 2 ? (uint64_t)(int64_t)d : 0;
				v0 = fat;
				v1 = (size_t)(sw.p - sb);
			} else {
				wire_skip(&sw, tt);
				if (ff >= 2 && ff <= 7) /* another value: the last wins */
					vf = XG_VAL_OTHER;
			}
		}
		if (sw.bad)
			xg_scale_bad(x, "event stat");
		for (k = 0; vf && k < x->npid && x->pid[k] != mid; k++)
			;
		if (!vf || k == x->npid)
			continue;
		unsigned id = x->pname[k];
		if (vf == XG_VAL_OTHER) {
			/* a string, or a double that is no integer: kept */
			x->id_other |= 1u << id;
			continue;
		}
		if (!out) {
			int seen = (x->id_seen >> id) & 1;
			if (vf == 2)
				x->id_dbl |= 1u << id;
			if (!seen || (int64_t)v < x->id_lo[id])
				x->id_lo[id] = (int64_t)v;
			if (!seen || (int64_t)v > x->id_hi[id])
				x->id_hi[id] = (int64_t)v;
			x->id_seen |= 1u << id;
			continue;
		}
		if (!x->id_step[id])
			continue;
		/* the bytes up to this stat, then the stat with its new value */
		uint64_t nv = v + c * x->id_step[id];
		size_t body = sn - (v1 - v0) + 1 + (vf == 2 ? 8 : pb_varint_len(nv));
		memcpy(q, done, (size_t)(at - done));
		q += at - done;
		*q++ = PB_TAG(4, PB_LEN);
		q = pb_wvarint(q, body);
		memcpy(q, sb, v0);
		q += v0;
		if (vf == 2) {
			double d = (double)(int64_t)nv;
			uint64_t bits;
			memcpy(&bits, &d, sizeof bits);
			*q++ = PB_TAG(2, PB_I64);
			q = pb_wfixed64(q, bits);
		} else {
			*q++ = PB_TAG(vf, PB_VARINT);
			q = pb_wvarint(q, nv);
		}
		memcpy(q, sb + v1, sn - v1);
		q += sn - v1;
		done = w.p;
	}
	if (w.bad)
		xg_scale_bad(x, "event");
	if (!out || done == b)
		return 0;
	memcpy(q, done, (size_t)(b + n - done));
	return (size_t)(q + (b + n - done) - out);
}

/* Body length of copy c of e (shift = c * span). */
static uint64_t xg_scale_ev_len(const struct xg_scale_ev *e, uint64_t shift)
{
	uint64_t n = e->n - (e->cut1 - e->cut0), v = e->off + shift;
	if (e->timed && (e->cut1 > e->cut0 || v))
		n += 1 + pb_varint_len(v);
	else
		n += e->cut1 - e->cut0;
	return n;
}

static void xg_scale_ev_write(struct xg_scale *x, const struct xg_scale_ev *e, uint64_t shift)
{
	uint64_t len = xg_scale_ev_len(e, shift);
	int whole = e->timed && len + 32 < PB_SINK_MAX_RESERVE;
	uint8_t *q = pb_sink_reserve(x->s, whole ? len + 32 : 32);
	*q++ = PB_TAG(4, PB_LEN);
	q = pb_wvarint(q, len);
	if (!e->timed) {
		pb_sink_commit(x->s, q);
		pb_sink_write(x->s, e->b, e->n);
		return;
	}
	if (whole) {
		/* the common case: one reservation for the whole event */
		memcpy(q, e->b, e->cut0);
		q += e->cut0;
		uint64_t v = e->off + shift;
		if (e->cut1 > e->cut0 || v) {
			*q++ = PB_TAG(2, PB_VARINT);
			q = pb_wvarint(q, v);
		}
		memcpy(q, e->b + e->cut1, e->n - e->cut1);
		pb_sink_commit(x->s, q + (e->n - e->cut1));
		return;
	}
	pb_sink_commit(x->s, q);
	pb_sink_write(x->s, e->b, e->cut0);
	uint64_t v = e->off + shift;
	if (e->cut1 > e->cut0 || v) {
		q = pb_sink_reserve(x->s, 16);
		*q++ = PB_TAG(2, PB_VARINT);
		pb_sink_commit(x->s, pb_wvarint(q, v));
	}
	pb_sink_write(x->s, e->b + e->cut1, e->n - e->cut1);
}

static void xg_scale_head(struct pb_sink *s, int field, uint64_t len)
{
	uint8_t *q = pb_sink_reserve(s, 16);
	*q++ = PB_TAG(field, PB_LEN);
	pb_sink_commit(s, pb_wvarint(q, len));
}

static void xg_scale_push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = realloc(*v, *cap * sizeof **v);
		if (!*v)
			xg_die("out of memory");
	}
	(*v)[(*n)++] = x;
}

static void xg_scale_tmp(struct xg_scale *x, size_t n)
{
	if (n > x->tmp_cap) {
		free(x->tmp);
		x->tmp = malloc(n);
		if (!x->tmp)
			xg_die("out of memory");
		x->tmp_cap = n;
	}
}

/* The survey: the profile's span over every line (line timestamp_ns,
 * field 3, plus the event's offset) and each identifier's range, which
 * set every copy's shift and identifier step. */
static void xg_scale_survey(struct xg_scale *x)
{
	struct wire w, pw, lw;
	__int128 lo = 0, hi = 0;
	int any = 0;

	wire_init(&w, x->in, x->in_len);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f != 1 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		size_t pn;
		const uint8_t *pb = wire_bytes(&w, &pn);
		if (w.bad)
			break;
		xg_scale_plane_ids(x, pb, pn);
		wire_init(&pw, pb, pn);
		while (wire_more(&pw)) {
			unsigned pt = wire_tag(&pw, &f);
			if (f != 3 || pt != WIRE_LEN) {
				wire_skip(&pw, pt);
				continue;
			}
			size_t ln;
			const uint8_t *lb = wire_bytes(&pw, &ln);
			int64_t ts = 0;
			/* the line's timestamp first: it may follow its events */
			wire_init(&lw, lb, pw.bad ? 0 : ln);
			while (wire_more(&lw)) {
				unsigned lt = wire_tag(&lw, &f);
				if (f == 3 && lt == WIRE_VARINT)
					ts = (int64_t)wire_varint(&lw);
				else
					wire_skip(&lw, lt);
			}
			if (lw.bad)
				xg_scale_bad(x, "line");
			wire_init(&lw, lb, ln);
			while (wire_more(&lw)) {
				unsigned lt = wire_tag(&lw, &f);
				if (f != 4 || lt != WIRE_LEN) {
					wire_skip(&lw, lt);
					continue;
				}
				size_t en;
				const uint8_t *eb = wire_bytes(&lw, &en);
				struct xg_scale_ev e;
				uint64_t dur;
				if (lw.bad || xg_scale_event(eb, en, &e, &dur) < 0)
					xg_scale_bad(x, "event");
				xg_scale_ids(x, eb, en, 0, NULL);
				if (!e.timed)
					continue;
				__int128 a = (__int128)ts * 1000 + (int64_t)e.off, z = a + dur;
				if (!any || a < lo)
					lo = a;
				if (!any || z > hi)
					hi = z;
				any = 1;
			}
		}
		if (pw.bad)
			xg_scale_bad(x, "plane");
	}
	if (w.bad)
		xg_scale_bad(x, "field in the XSpace");
	if (x->k == 1) /* one copy: nothing moves, however far apart */
		return;
	if (any && hi - lo > INT64_MAX)
		xg_die("%s: its lines' events span more than %lld ps: copies of it overflow the time "
		       "stamps", x->path, (long long)INT64_MAX);
	x->span = !any ? 0 : hi > lo ? (uint64_t)(hi - lo) : 1;
	for (unsigned i = 0; i < XG_NIDS; i++) {
		__int128 step = i == XG_DEV_OFF ? (__int128)x->span
						: (__int128)x->id_hi[i] - x->id_lo[i] + 1,
			 top = x->id_hi[i] + step * (__int128)(x->k - 1);
		if (!((x->id_seen >> i) & 1))
			continue;
		/* a range the copies cannot follow keeps its values, said */
		if (top <= ((x->id_dbl >> i) & 1 ? (__int128)XG_DBL_EXACT : (__int128)INT64_MAX))
			x->id_step[i] = (uint64_t)step;
		else
			fprintf(stderr,
				"xtop-gen: %s: %s goes to %lld: %llu copies cannot renumber it, so "
				"they share its values\n", x->path, xg_ids[i], (long long)x->id_hi[i],
				(unsigned long long)x->k);
	}
	for (unsigned i = 0; i < XG_NIDS; i++)
		if ((x->id_other >> i) & 1)
			fprintf(stderr,
				"xtop-gen: %s: some %s values are not integers: the copies share "
				"those\n", x->path, xg_ids[i]);
}

/* One XLine: its header as it is, its events k times. */
static void xg_scale_line(struct xg_scale *x, const uint8_t *b, size_t n)
{
	struct wire w;
	struct xg_scale_ev e;
	uint64_t dur, nev = 0, d0 = 0;
	__int128 hi = 0;
	int timed = 0;

	/* The last end of the timed events, and the line's duration: what
	 * the last copy moves furthest. */
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f == 4 && t == WIRE_LEN) {
			size_t en;
			const uint8_t *eb = wire_bytes(&w, &en);
			if (w.bad || xg_scale_event(eb, en, &e, &dur) < 0)
				xg_scale_bad(x, "event");
			nev++;
			if (!e.timed)
				continue;
			__int128 end = (__int128)(int64_t)e.off + (int64_t)dur;
			if (!timed || end > hi)
				hi = end;
			timed = 1;
		} else if (f == 9 && t == WIRE_VARINT) {
			d0 = wire_varint(&w);
		} else {
			wire_skip(&w, t);
		}
	}
	if (w.bad)
		xg_scale_bad(x, "line");
	uint64_t span = timed ? x->span : 0;
	__int128 move = (__int128)span * (x->k - 1);
	if (span && (hi + move > INT64_MAX || (__int128)(int64_t)d0 + move > INT64_MAX))
		xg_die("%s: the profile spans %llu ps: %llu copies of it overflow a line's time stamps",
		       x->path, (unsigned long long)span, (unsigned long long)x->k);

	uint64_t pos = pb_sink_pos(x->s);
	if (!x->sizing) {
		if (x->line_i >= x->nline)
			xg_die("internal error: more lines than counted");
		xg_scale_head(x->s, 3, x->line_len[x->line_i]);
		pos = pb_sink_pos(x->s);
	}
	int events_done = 0;
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f == 4 && t == WIRE_LEN) {
			size_t en;
			(void)wire_bytes(&w, &en);
			if (events_done)
				continue;
			/* all copies at the place of the first event */
			events_done = 1;
			for (uint64_t c = 0; c < x->k; c++) {
				struct wire ew;
				wire_init(&ew, at, n - (size_t)(at - b));
				while (wire_more(&ew)) {
					uint32_t ef;
					unsigned et = wire_tag(&ew, &ef);
					if (ef == 4 && et == WIRE_LEN) {
						size_t n2, m = 0;
						const uint8_t *eb = wire_bytes(&ew, &n2);
						if (c && x->npid) {
							xg_scale_tmp(x, 3 * n2 + 64);
							m = xg_scale_ids(x, eb, n2, c, x->tmp);
						}
						if (m)
							xg_scale_event(x->tmp, m, &e, &dur);
						else
							xg_scale_event(eb, n2, &e, &dur);
						xg_scale_ev_write(x, &e, c * span);
					} else {
						wire_skip(&ew, et);
					}
				}
			}
			continue;
		}
		if (f == 9 && t == WIRE_VARINT) {
			uint64_t d = wire_varint(&w);
			if (d && span)
				d += (x->k - 1) * span;
			uint8_t *q = pb_sink_reserve(x->s, 16);
			*q++ = PB_TAG(9, PB_VARINT);
			pb_sink_commit(x->s, pb_wvarint(q, d));
			continue;
		}
		wire_skip(&w, t);
		pb_sink_write(x->s, at, (size_t)(w.p - at));
	}
	uint64_t len = pb_sink_pos(x->s) - pos;
	if (x->sizing) {
		/* the counting sink counts the head too (after the body) */
		xg_scale_head(x->s, 3, len);
		xg_scale_push(&x->line_len, &x->nline, &x->line_cap, len);
	}
	else if (len != x->line_len[x->line_i++])
		xg_die("internal error: a line does not match its counted length");
	x->st.lines++;
	x->st.events += nev * x->k;
}

/* One XPlane: its lines scaled, every other field as it is. */
static void xg_scale_plane(struct xg_scale *x, const uint8_t *b, size_t n)
{
	struct wire w;
	uint64_t pos;
	if (!x->sizing) {
		if (x->plane_i >= x->nplane)
			xg_die("internal error: more planes than counted");
		xg_scale_head(x->s, 1, x->plane_len[x->plane_i]);
	}
	xg_scale_plane_ids(x, b, n);
	pos = pb_sink_pos(x->s);
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f == 3 && t == WIRE_LEN) {
			size_t ln;
			const uint8_t *lb = wire_bytes(&w, &ln);
			if (w.bad)
				break;
			xg_scale_line(x, lb, ln);
			continue;
		}
		wire_skip(&w, t);
		pb_sink_write(x->s, at, (size_t)(w.p - at));
	}
	if (w.bad)
		xg_scale_bad(x, "plane");
	uint64_t len = pb_sink_pos(x->s) - pos;
	if (x->sizing) {
		xg_scale_head(x->s, 1, len);
		xg_scale_push(&x->plane_len, &x->nplane, &x->plane_cap, len);
	}
	else if (len != x->plane_len[x->plane_i++])
		xg_die("internal error: a plane does not match its counted length");
	x->st.planes++;
}

static void xg_scale_space(struct xg_scale *x, const uint8_t *b, size_t n)
{
	struct wire w;
	memset(&x->st, 0, sizeof x->st);
	x->line_i = x->plane_i = 0;
	uint64_t pos0 = pb_sink_pos(x->s);
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		const uint8_t *at = w.p;
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		if (f == 1 && t == WIRE_LEN) {
			size_t pn;
			const uint8_t *pb = wire_bytes(&w, &pn);
			if (w.bad)
				break;
			xg_scale_plane(x, pb, pn);
			continue;
		}
		wire_skip(&w, t);
		pb_sink_write(x->s, at, (size_t)(w.p - at));
	}
	if (w.bad)
		xg_scale_bad(x, "field in the XSpace");
	x->st.bytes = pb_sink_pos(x->s) - pos0;
}

struct xg_scale *xg_scale_new(const char *in, uint64_t k)
{
	struct xg_scale *x = calloc(1, sizeof *x);
	struct pb_sink count;
	if (!x)
		xg_die("out of memory");
	x->path = in;
	x->k = k;
	x->in = xg_scale_map(in, &x->in_len);
	xg_scale_survey(x);
	pb_sink_open(&count, PB_SINK_COUNT, -1, 0);
	x->s = &count;
	x->sizing = 1;
	xg_scale_space(x, x->in, x->in_len);
	pb_sink_close(&count);
	x->s = NULL;
	return x;
}

void xg_scale_write(struct xg_scale *x, struct pb_sink *s, struct xg_scale_stats *st)
{
	x->s = s;
	x->sizing = 0;
	xg_scale_space(x, x->in, x->in_len);
	x->s = NULL;
	*st = x->st;
}

void xg_scale_free(struct xg_scale *x)
{
	munmap((void *)x->in, x->in_len);
	free(x->line_len);
	free(x->plane_len);
	free(x->tmp);
	free(x);
}
