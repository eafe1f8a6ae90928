/*
 * xplane_reader: see xplane_reader.h. Field numbers are those of
 * proto/xplane.proto (upstream xplane.proto).
 */
#include "xplane_reader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/xalloc.h"
#include "clock.h"
#include "line_decode.h"
#include "stats.h"
#include "wire.h"
#include "xspace_merge.h"
#include "xplane_int.h"

static const char *const known_names[XS_COUNT] = {
	[XS_HLO_OP] = "hlo_op",
	[XS_HLO_MODULE] = "hlo_module",
	[XS_HLO_CATEGORY] = "hlo_category",
	[XS_PROGRAM_ID] = "program_id",
	[XS_GROUP_ID] = "group_id",
	[XS_STEP_NUM] = "step_num",
	[XS_ITER_NUM] = "iter_num",
	[XS_IS_ROOT] = "_r",
	[XS_TF_OP] = "tf_op",
	[XS_FLOPS] = "flops",
	[XS_BYTES_ACCESSED] = "bytes_accessed",
	[XS_KERNEL_DETAILS] = "kernel_details",
	[XS_CORRELATION_ID] = "correlation_id",
	[XS_ALLOCATOR_NAME] = "allocator_name",
	[XS_INDEX_ON_HOST] = "index_on_host",
	[XS_DEVICE_ORDINAL] = "device_ordinal",
	[XS_BYTES_RESERVED] = "bytes_reserved",
	[XS_BYTES_ALLOCATED] = "bytes_allocated",
	[XS_BYTES_AVAILABLE] = "bytes_available",
	[XS_PEAK_BYTES_IN_USE] = "peak_bytes_in_use",
	[XS_REQUESTED_BYTES] = "requested_bytes",
	[XS_ALLOCATION_BYTES] = "allocation_bytes",
	[XS_ADDR] = "addr",
	[XS_SHAPE] = "shape",
	[XS_PROFILE_START_TIME] = "profile_start_time",
	[XS_PROFILE_STOP_TIME] = "profile_stop_time",
	[XS_LEVEL0] = "level 0",
	[XS_MEM_BREAKDOWN] = "memory_access_breakdown",
	[XS_RUN_ID] = "run_id",
	[XS_DEVICE_OFFSET_PS] = "device_offset_ps",
	[XS_DEVICE_DURATION_PS] = "device_duration_ps",
};

/* Growable array helper: ensures room for one more element. */
#define VEC_PUSH(arr, n, cap)                                                    \
	do {                                                                     \
		if ((n) == (cap)) {                                              \
			(cap) = (cap) ? (cap) * 2 : 8;                           \
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr)));     \
		}                                                                \
	} while (0)


static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

/* Builds the direct id tables when ids are small enough (they are 1..N in
 * everything upstream writes); the hash tables stay for the others. */
static void plane_direct(struct xt_plane *p)
{
	int64_t emax = -1, smax = -1;
	int eneg = 0, sneg = 0;
	size_t i;

	for (i = 1; i < p->nemeta; i++) {
		if (p->emeta[i].id < 0)
			eneg = 1;
		else if (p->emeta[i].id > emax)
			emax = p->emeta[i].id;
	}
	for (i = 0; i < p->nsmeta; i++) {
		if (p->smeta[i].id < 0)
			sneg = 1;
		else if (p->smeta[i].id > smax)
			smax = p->smeta[i].id;
	}
	if (emax >= 0 && (uint64_t)emax < 4 * (uint64_t)p->nemeta + 4096) {
		p->emeta_ndirect = (size_t)emax + 1;
		p->emeta_direct = xcalloc(p->emeta_ndirect, sizeof(uint32_t));
		for (i = 1; i < p->nemeta; i++) /* later duplicates win */
			if (p->emeta[i].id >= 0)
				p->emeta_direct[p->emeta[i].id] = (uint32_t)i;
		p->emeta_direct_only = !eneg;
	}
	if (smax >= 0 && (uint64_t)smax < 4 * (uint64_t)p->nsmeta + 4096) {
		p->smeta_ndirect = (size_t)smax + 1;
		p->smeta_direct = xcalloc(p->smeta_ndirect, sizeof(uint32_t));
		for (i = 0; i < p->nsmeta; i++)
			if (p->smeta[i].id >= 0)
				p->smeta_direct[p->smeta[i].id] = (uint32_t)(i + 1);
		p->smeta_direct_only = !sneg;
	}
}

static void plane_index(struct xt_plane *p)
{
	size_t i, mask;

	/* Load factor <= 1/2. Later duplicates of a key replace earlier ones,
	 * as protobuf map parsing does. */
	p->emeta_hcap = pow2_at_least(p->nemeta * 2);
	p->emeta_hash = xcalloc(p->emeta_hcap, sizeof(uint32_t));
	mask = p->emeta_hcap - 1;
	for (i = 1; i < p->nemeta; i++) {
		size_t s = trace_hash_id(p->emeta[i].id) & mask;

		while (p->emeta_hash[s] && p->emeta[p->emeta_hash[s]].id != p->emeta[i].id)
			s = (s + 1) & mask;
		p->emeta_hash[s] = (uint32_t)i;
	}
	p->smeta_hcap = pow2_at_least(p->nsmeta * 2);
	p->smeta_hash = xcalloc(p->smeta_hcap, sizeof(uint32_t));
	mask = p->smeta_hcap - 1;
	plane_direct(p);
	for (i = 0; i < p->nsmeta; i++) {
		size_t s = trace_hash_id(p->smeta[i].id) & mask;
		size_t k;

		while (p->smeta_hash[s] && p->smeta[p->smeta_hash[s] - 1].id != p->smeta[i].id)
			s = (s + 1) & mask;
		p->smeta_hash[s] = (uint32_t)(i + 1);
		for (k = 1; k < XS_COUNT; k++) {
			if (!strcmp(p->smeta[i].name, known_names[k])) {
				p->smeta[i].known = (uint8_t)k;
				p->known_id[k] = p->smeta[i].id;
				p->has_known[k] = 1;
				break;
			}
		}
	}
}

/* Decodes a map<int64, XEventMetadata> entry. */
static int read_emeta_entry(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
			    size_t *cap)
{
	struct wire w;
	struct xt_event_meta m = { .name = "", .display_name = "" };
	const uint8_t *val = NULL;
	size_t vn = 0;
	int64_t key = 0;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_VARINT)
			key = (int64_t)wire_varint(&w);
		else if (f == 2 && t == WIRE_LEN)
			val = wire_bytes(&w, &vn);
		else
			wire_skip(&w, t);
	}
	if (w.bad)
		return -1;
	m.id = key;
	if (val) {
		wire_init(&w, val, vn);
		m.raw_off = (uint64_t)(val - r->h->src.data);
		m.raw_len = (uint32_t)vn;
		if (vn > UINT32_MAX)
			return -2;
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);
			const uint8_t *s;
			size_t sn;

			if (f == 2 && t == WIRE_LEN) {
				s = wire_bytes(&w, &sn);
				m.name = arena_strndup(&r->t->arena, (const char *)s, sn);
			} else if (f == 4 && t == WIRE_LEN) {
				s = wire_bytes(&w, &sn);
				m.display_name = arena_strndup(&r->t->arena, (const char *)s, sn);
			} else {
				wire_skip(&w, t);
			}
		}
		if (w.bad)
			return -1;
	}
	if (p->nemeta >= XT_EV_META_MASK)
		return -2;
	VEC_PUSH(p->emeta, p->nemeta, *cap);
	p->emeta[p->nemeta++] = m;
	return 0;
}

/* Decodes a map<int64, XStatMetadata> entry. */
static int read_smeta_entry(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
			    size_t *cap)
{
	struct wire w;
	struct xt_stat_meta m = { .name = "" };
	const uint8_t *val = NULL;
	size_t vn = 0;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_VARINT)
			m.id = (int64_t)wire_varint(&w);
		else if (f == 2 && t == WIRE_LEN)
			val = wire_bytes(&w, &vn);
		else
			wire_skip(&w, t);
	}
	if (w.bad)
		return -1;
	if (val) {
		m.raw_off = (uint64_t)(val - r->h->src.data);
		m.raw_len = (uint32_t)vn;
		wire_init(&w, val, vn);
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);

			if (f == 2 && t == WIRE_LEN) {
				size_t sn;
				const uint8_t *s = wire_bytes(&w, &sn);

				m.name = arena_strndup(&r->t->arena, (const char *)s, sn);
				m.name_len = (uint32_t)strlen(m.name);
			} else {
				wire_skip(&w, t);
			}
		}
		if (w.bad)
			return -1;
	}
	VEC_PUSH(p->smeta, p->nsmeta, *cap);
	p->smeta[p->nsmeta++] = m;
	return 0;
}

/* Pass 1 over one XPlane: everything but the line contents. */
static int read_plane(struct reader *r, struct xt_plane *p, const uint8_t *b, size_t n,
		      struct xt_error *err)
{
	struct wire w;
	size_t lcap = 0, ecap = 0, scap = 0, stcap = 0;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->name = "";
	p->raw_off = (uint64_t)(b - r->h->src.data);
	p->raw_len = n;
	/* Slot 0: events whose metadata id is unknown resolve to a nameless
	 * entry, as upstream's visitor does. */
	VEC_PUSH(p->emeta, p->nemeta, ecap);
	p->emeta[p->nemeta++] = (struct xt_event_meta){ .name = "", .display_name = "" };
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		const uint8_t *s;
		size_t sn;

		if (f == 1 && t == WIRE_VARINT) {
			p->id = (int64_t)wire_varint(&w);
		} else if (f == 2 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			p->name = arena_strndup(&r->t->arena, (const char *)s, sn);
		} else if (f == 3 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			VEC_PUSH(p->lines, p->nlines, lcap);
			memset(&p->lines[p->nlines], 0, sizeof(p->lines[0]));
			p->lines[p->nlines].raw_off = (uint64_t)(s - r->h->src.data);
			p->lines[p->nlines].raw_len = sn;
			p->lines[p->nlines].name = "";
			p->lines[p->nlines].display_name = "";
			p->nlines++;
		} else if (f == 4 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad && (rc = read_emeta_entry(r, p, s, sn, &ecap)) < 0)
				break;
		} else if (f == 5 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (!w.bad && (rc = read_smeta_entry(r, p, s, sn, &scap)) < 0)
				break;
		} else if (f == 6 && t == WIRE_LEN) {
			s = wire_bytes(&w, &sn);
			if (stcap == p->nstats) {
				stcap = stcap ? stcap * 2 : 8;
				p->stat_off = xreallocarray(p->stat_off, stcap, sizeof(uint64_t));
				p->stat_len = xreallocarray(p->stat_len, stcap, sizeof(uint32_t));
			}
			p->stat_off[p->nstats] = (uint64_t)(s - r->h->src.data);
			p->stat_len[p->nstats++] = (uint32_t)sn;
		} else {
			wire_skip(&w, t);
		}
	}
	if (rc == -2)
		return xt_error_set(err, XT_ELIMIT, "%s: plane '%s' has more than %u event metadata",
				    r->path, p->name, XT_EV_META_MASK - 1);
	if (w.bad || rc < 0)
		return xt_error_set(err, XT_EFORMAT,
				    "%s: not a valid XSpace (malformed plane '%s' at byte %llu)",
				    r->path, p->name, (unsigned long long)p->raw_off);
	plane_index(p);
	p->dev_time = !strncmp(p->name, "/device:", 8) && p->has_known[XS_DEVICE_OFFSET_PS] &&
		      p->has_known[XS_DEVICE_DURATION_PS];
	return 0;
}

int xplane_line_peek(const struct xt_host *h, const struct xt_line *l, int exact,
		     struct xplane_line_head *hd)
{
	struct wire w;
	int has_ts = 0, has_ev = 0;

	memset(hd, 0, sizeof(*hd));
	wire_init(&w, h->src.data + l->raw_off, l->raw_len);
	/* Not exact: a line without a timestamp before its first event has
	 * none (read_line checks that no other one follows). */
	while (wire_more(&w) && !(has_ts && has_ev) && !(has_ev && !exact)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 3 && t == WIRE_VARINT) {
			hd->ts = (int64_t)wire_varint(&w);
			has_ts = 1;
		} else if (f == 1 && t == WIRE_VARINT && !has_ev) {
			hd->id = (int64_t)wire_varint(&w);
		} else if (f == 2 && t == WIRE_LEN && !has_ev) {
			hd->name = (const char *)wire_bytes(&w, &hd->nname);
		} else if (f == 11 && t == WIRE_LEN && !has_ev) {
			hd->display_name = (const char *)wire_bytes(&w, &hd->ndisplay);
		} else {
			if (f == 4 && t == WIRE_LEN)
				has_ev = 1;
			wire_skip(&w, t);
		}
	}
	if (w.bad) {
		hd->name = hd->display_name = NULL;
		hd->nname = hd->ndisplay = 0;
	}
	return has_ev;
}

/* The Task Environment plane's profile_start_time / profile_stop_time. */
static void task_env(struct xt_host *h)
{
	size_t p, i;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strcmp(pl->name, "Task Environment"))
			continue;
		for (i = 0; i < pl->nstats; i++) {
			struct xt_stat st;

			if (!stat_decode_one(pl, h->src.data + pl->stat_off[i], pl->stat_len[i], &st))
				continue;
			if (stat_known(&st) == XS_PROFILE_START_TIME)
				h->profile_start_ns = (uint64_t)stat_as_int(&st);
			else if (stat_known(&st) == XS_PROFILE_STOP_TIME)
				h->profile_stop_ns = (uint64_t)stat_as_int(&st);
		}
	}
}

/* Decides the host's time base before any line is decoded, from the range
 * of its lines' timestamps and its Task Environment (clock.h). */
static void host_time_base(struct reader *r)
{
	struct xt_host *h = r->h;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	struct xplane_line_head hd;
	size_t p, l;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++) {
			int has_ev = xplane_line_peek(h, &h->planes[p].lines[l],
						      r->opts && r->opts->exact_peek, &hd);

			/* (Not exact: a timestamp after the events is 0 here, and
			 * the decoder that meets it asks for an exact load.) */
			h->planes[p].lines[l].peek_ts_ns = hd.ts;
			if (has_ev) {
				lo = hd.ts < lo ? hd.ts : lo;
				hi = hd.ts > hi ? hd.ts : hi;
			}
		}
	task_env(h);
	clock_host_base(r->t, h, lo, hi);
}

static const char **push_str(struct reader *r, const char **arr, size_t *n, const uint8_t *s,
			     size_t sn)
{
	arr = xreallocarray(arr, *n + 1, sizeof(*arr));
	arr[(*n)++] = arena_strndup(&r->t->arena, (const char *)s, sn);
	return arr;
}

/* The rest of load_host for a live load: the host joins the trace before
 * its lines are decoded (xplane_load_opts.live). */
static int load_live(struct reader *r, struct xt_host *h, struct xt_error *err)
{
	struct xt_live *lv = r->opts->live;
	struct xt_trace *t = r->t;
	size_t p, l;
	int rc;

	for (p = 0; p < h->nplanes; p++)
		for (l = 0; l < h->planes[p].nlines; l++)
			h->planes[p].lines[l].loading = 1;
	pthread_mutex_lock(&lv->lock);
	if (t->nhosts == t->caphosts)
		fatal("internal error: a live load needs room for its hosts");
	t->hosts[t->nhosts] = *h;
	r->h = &t->hosts[t->nhosts++];
	lv->version++;
	pthread_mutex_unlock(&lv->lock);
	rc = xplane_read_lines(r, err);
	pthread_mutex_lock(&lv->lock);
	if (rc < 0) {
		for (p = 0; p < r->h->nplanes; p++)
			for (l = 0; l < r->h->planes[p].nlines; l++)
				r->h->planes[p].lines[l].loading = 1;
	} else {
		trace_set_origin(t);
	}
	lv->version++;
	pthread_mutex_unlock(&lv->lock);
	return rc;
}

/* What is wrong with the top-level field at byte at of b (n bytes), which
 * the reader refused: into buf, for an error a user can act on (a file cut
 * short reads as a length past its end). */
static void field_why(const uint8_t *b, size_t n, size_t at, char *buf, size_t bn)
{
	static const char *const names[] = { "", " (a plane)", " (an error)", " (a warning)",
					     " (a host name)" };
	struct wire w;
	uint32_t f;
	unsigned ty;
	uint64_t len;
	const char *name;

	wire_init(&w, b + at, n - at);
	ty = wire_tag(&w, &f);
	if (w.bad) {
		uint64_t t;

		wire_init(&w, b + at, n - at);
		t = wire_varint(&w);
		if (w.bad)
			snprintf(buf, bn, "its tag cannot be read");
		else
			snprintf(buf, bn, "its field number, %llu, is not one protobuf allows",
				 (unsigned long long)(t >> 3));
		return;
	}
	name = f < sizeof(names) / sizeof(names[0]) ? names[f] : "";
	switch (ty) {
	case WIRE_LEN:
		len = wire_varint(&w);
		if (w.bad)
			snprintf(buf, bn, "field %u%s has no readable length", (unsigned)f, name);
		else
			snprintf(buf, bn, "field %u%s claims %llu bytes, but %zu follow it",
				 (unsigned)f, name, (unsigned long long)len,
				 (size_t)(w.end - w.p));
		return;
	case WIRE_I64:
	case WIRE_I32:
		snprintf(buf, bn, "field %u needs %d bytes, but %zu follow it", (unsigned)f,
			 ty == WIRE_I64 ? 8 : 4, (size_t)(w.end - w.p));
		return;
	case WIRE_VARINT:
		snprintf(buf, bn, "field %u's number has no end", (unsigned)f);
		return;
	default:
		snprintf(buf, bn, "field %u%s has wire type %u, which no XSpace field uses",
			 (unsigned)f, name, ty);
	}
}

static int load_host(struct xt_trace *t, struct source *src, const char *path,
		     const char *host_name, const struct xplane_load_opts *opts,
		     struct xt_error *err)
{
	struct reader r = { .t = t, .opts = opts, .path = path };
	struct xt_host h;
	struct wire w;
	size_t pcap = 0, p, l, field_at = 0;
	int rc;

	memset(&h, 0, sizeof(h));
	r.h = &h;
	h.src = *src;
	h.src.keep_resident = opts && opts->keep_resident;
	if (h.src.size == 0) {
		const char *what = h.src.heap ? "capture" : "file";

		source_close(&h.src);
		return xt_error_set(err, XT_EFORMAT, "%s: empty %s, not an XSpace profile", path,
				    what);
	}
	wire_init(&w, h.src.data, h.src.size);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned ty;

		field_at = (size_t)(w.p - h.src.data);
		ty = wire_tag(&w, &f);
		const uint8_t *s;
		size_t sn;

		if (ty != WIRE_LEN || f < 1 || f > 4) {
			wire_skip(&w, ty);
			continue;
		}
		s = wire_bytes(&w, &sn);
		if (w.bad)
			break;
		if (f == 1) {
			VEC_PUSH(h.planes, h.nplanes, pcap);
			rc = read_plane(&r, &h.planes[h.nplanes], s, sn, err);
			h.nplanes++;
			if (rc < 0)
				goto fail;
		} else if (f == 2) {
			h.errors = push_str(&r, h.errors, &h.nerrors, s, sn);
		} else if (f == 3) {
			h.warnings = push_str(&r, h.warnings, &h.nwarnings, s, sn);
		} else {
			h.hostnames = push_str(&r, h.hostnames, &h.nhostnames, s, sn);
		}
	}
	if (w.bad) {
		char why[128];

		field_why(h.src.data, h.src.size, field_at, why, sizeof(why));
		rc = xt_error_set(err, XT_EFORMAT,
				  "%s: not a valid XSpace profile (malformed protobuf at byte %zu of "
				  "%zu: %s; truncated or corrupted file?)",
				  path, field_at, h.src.size, why);
		goto fail;
	}
	if (h.nplanes == 0 && h.nhostnames == 0 && h.nerrors == 0 && h.nwarnings == 0) {
		rc = xt_error_set(err, XT_EFORMAT, "%s: not an XSpace profile (no planes)", path);
		goto fail;
	}
	h.name = arena_strndup(&t->arena, host_name, strlen(host_name));
	h.path = arena_strndup(&t->arena, path, strlen(path));
	host_time_base(&r);
	if (opts && opts->plane_hook)
		for (p = 0; p < h.nplanes; p++)
			opts->plane_hook(opts->ctx, &h, &h.planes[p]);
	if (opts && opts->live)
		return load_live(&r, &h, err);
	rc = xplane_read_lines(&r, err);
	if (rc < 0)
		goto fail;
	for (p = 0; p < h.nplanes; p++) {
		for (l = 0; l < h.planes[p].nlines; l++)
			h.planes[p].nev += h.planes[p].lines[l].nev;
		h.nev += h.planes[p].nev;
	}
	trace_reserve_hosts(t, t->nhosts + 1);
	t->hosts[t->nhosts++] = h;
	t->nev += h.nev;
	trace_set_origin(t);
	return 0;
fail:
	trace_host_fini(&h);
	return rc;
}

static int open_host(struct xt_trace *t, const char *path, const char *host_name,
		     const struct xplane_load_opts *opts, struct xt_error *err)
{
	struct source src;
	int rc = source_open(&src, path, err);
	uint8_t *merged;
	size_t n;

	if (rc < 0)
		return rc;
	/* A profile no ProfilerSession saved (an agent capture of an earlier
	 * xtop) has its host's planes apart: read it as upstream would have
	 * saved it (xspace_merge.h). */
	if (xspace_merge(src.data, src.size, &merged, &n) == 1) {
		size_t file_size = src.file_size, file_xspace = src.size;
		int gzipped = src.gzipped;

		source_close(&src);
		source_adopt(&src, merged, n);
		src.file_size = file_size;
		src.file_xspace = file_xspace;
		src.gzipped = gzipped;
	}
	return load_host(t, &src, path, host_name, opts, err);
}

int xplane_load(struct xt_trace *t, const char *path, const char *host_name,
		const struct xplane_load_opts *opts, struct xt_error *err)
{
	struct xplane_load_opts exact = { 0 };
	int rc = open_host(t, path, host_name, opts, err);

	/* Hooks have seen lines of the failed attempt: the caller starts over. */
	if (rc != XT_ERETRY || (opts && (opts->line_hook || opts->plane_hook)))
		return rc;
	if (opts)
		exact = *opts;
	exact.exact_peek = 1;
	return open_host(t, path, host_name, &exact, err);
}

int xplane_load_mem(struct xt_trace *t, void *data, size_t size, const char *label,
		    const char *host_name, const struct xplane_load_opts *opts, struct xt_error *err)
{
	struct xplane_load_opts exact = { 0 };
	struct source src;

	/* The buffer is consumed by one attempt, so a capture (small, in
	 * memory) reads each line to its end at once to choose its time base
	 * (xplane_load_opts.exact_peek) rather than ever needing a second. */
	if (opts)
		exact = *opts;
	exact.exact_peek = 1;
	source_adopt(&src, data, size);
	return load_host(t, &src, label, host_name, &exact, err);
}
