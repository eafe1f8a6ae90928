/* xspace_merge: see xspace_merge.h. Upstream's rules are those of
 * MergePlanes / CopyEvent / CopyEventMetadata (xla/tsl/profiler/utils/
 * xplane_utils.cc) and MergeHostPlanesAndSortLines (convert/
 * post_process_single_host_xplane.cc). */
#include "xspace_merge.h"

#include <stdlib.h>
#include <string.h>

#include "../util/hmap.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "mplane.h"
#include "wire.h"
#include "wire_put.h"

/* ---- the XSpace ---- */

enum { PK_OTHER, PK_HOST, PK_NVTX };

struct src_plane {
	struct bytes p, name;
	int kind;
	int group; /* index of the first plane of its name, or -1 */
	int next;  /* the next plane of its name, or -1; last: the group's last (first only) */
	int last;
};

static int is_host_plane(struct bytes n)
{
	static const char *const names[] = { "/host:CPU", "/host:CUPTI", "/host:ROCTRACER",
					     "/host:python-tracer", "/host:TPU-runtime" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (n.n == strlen(names[i]) && !memcmp(n.p, names[i], n.n))
			return 1;
	return 0;
}

static int bytes_is(struct bytes b, const char *s)
{
	return b.n == strlen(s) && !memcmp(b.p, s, b.n);
}

/* The line ids of the NVTX plane moved off those of the host planes, as
 * ChangeOccupiedLineIds does (from 1 << 32 on). */
static int64_t *nvtx_ids(const struct src_plane *v, size_t n, size_t nvtx, int *bad)
{
	struct hmap used;
	int64_t *ids = NULL, next = (int64_t)1 << 32;
	size_t k = 0, cap = 0;
	int ins;

	hmap_init(&used);
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct wire w;

			if (pass ? i != nvtx : v[i].kind != PK_HOST)
				continue;
			wire_init(&w, v[i].p.p, v[i].p.n);
			while (wire_more(&w)) {
				uint32_t f;
				unsigned t = wire_tag(&w, &f);
				struct wire l;
				int64_t id = 0;
				struct bytes lb;

				if (f != 3 || t != WIRE_LEN) {
					wire_skip(&w, t);
					continue;
				}
				lb.p = wire_bytes(&w, &lb.n);
				wire_init(&l, lb.p, lb.n);
				while (wire_more(&l)) {
					unsigned lt = wire_tag(&l, &f);

					if (f == 1)
						id = mplane_rd_int(&l, lt);
					else
						wire_skip(&l, lt);
				}
				if (l.bad)
					*bad = 1;
				if (pass) {
					if (hmap_find(&used, &id, sizeof(id))) {
						while (hmap_find(&used, &next, sizeof(next)))
							next++;
						id = next++;
					}
					if (k == cap) {
						cap = cap ? 2 * cap : 16;
						ids = xreallocarray(ids, cap, sizeof(*ids));
					}
					ids[k++] = id;
				}
				(void)hmap_get(&used, &id, sizeof(id), 0, &ins);
			}
			if (w.bad)
				*bad = 1;
		}
	}
	hmap_fini(&used);
	return ids;
}

int xspace_merge(const uint8_t *in, size_t n, uint8_t **out, size_t *out_n)
{
	struct src_plane *v = NULL;
	size_t np = 0, cap = 0, nhost = 0, nvtx = SIZE_MAX, i;
	int dups = 0, bad = 0, rc = 0;
	struct wire w;

	wire_init(&w, in, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);
		struct wire p;

		if (f != 1 || t != WIRE_LEN) {
			wire_skip(&w, t);
			continue;
		}
		if (np == cap) {
			cap = cap ? 2 * cap : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		memset(&v[np], 0, sizeof(v[0]));
		v[np].p.p = wire_bytes(&w, &v[np].p.n);
		v[np].group = v[np].next = v[np].last = -1;
		/* Protobuf writes the name (2) second, after the id: reading
		 * no further keeps a GB-sized profile's pages untouched. */
		wire_init(&p, v[np].p.p, v[np].p.n);
		while (wire_more(&p)) {
			unsigned pt = wire_tag(&p, &f);

			if (f == 2) {
				v[np].name = mplane_rd_len(&p, pt);
				break;
			}
			wire_skip(&p, pt);
		}
		if (p.bad)
			bad = 1;
		np++;
	}
	if (w.bad || bad) {
		free(v);
		return -1;
	}
	for (i = 0; i < np; i++) {
		if (is_host_plane(v[i].name)) {
			v[i].kind = PK_HOST;
			nhost++;
		} else if (nvtx == SIZE_MAX && bytes_is(v[i].name, "/host:NVTX-CUPTI")) {
			v[i].kind = PK_NVTX;
			nvtx = i;
		}
	}
	{
		/* Planes of one name: by a hash, since a hostile file may hold
		 * a hundred thousand planes. */
		struct hmap names;

		hmap_init(&names);
		for (i = 0; i < np; i++) {
			int ins;
			uint32_t first;

			if (v[i].kind != PK_OTHER)
				continue;
			first = *hmap_get(&names, v[i].name.n ? v[i].name.p : (const uint8_t *)"",
					  v[i].name.n, (uint32_t)i, &ins);
			if (!ins) {
				v[first].group = v[i].group = (int)first;
				v[v[first].last >= 0 ? (size_t)v[first].last : first].next = (int)i;
				v[first].last = (int)i;
				dups = 1;
			}
		}
		hmap_fini(&names);
	}
	for (i = 0; i < np && nhost == 1 && !bytes_is(v[i].name, "/host:CPU"); i++)
		;
	if (!dups && nvtx == SIZE_MAX && (nhost == 0 || (nhost == 1 && i < np))) {
		free(v);
		return 0;
	}

	struct strbuf o;
	struct mplane host;
	struct bytes host_name = { (const uint8_t *)"/host:CPU", 9 };

	strbuf_init(&o);
	mplane_init(&host, host_name);
	for (i = 0; i < np; i++)
		if (v[i].kind == PK_HOST)
			mplane_merge(&host, v[i].p, NULL, 0);
	if (nvtx != SIZE_MAX) {
		int64_t *ids = nvtx_ids(v, np, nvtx, &host.bad);

		mplane_merge(&host, v[nvtx].p, ids, 0);
		free(ids);
	}
	for (i = 0; i < np && !host.bad; i++) {
		struct mplane g;

		if (v[i].kind != PK_OTHER)
			continue;
		if (v[i].group < 0) {
			wire_put_bytes(&o, 1, v[i].p.p, v[i].p.n);
			continue;
		}
		if (v[i].group != (int)i)
			continue;
		mplane_init(&g, v[i].name);
		mplane_merge(&g, v[i].p, NULL, 1);
		for (int k = v[i].next; k >= 0; k = v[k].next)
			mplane_merge(&g, v[k].p, NULL, 0);
		if (!g.bad)
			mplane_write(&g, 0, &o);
		host.bad |= g.bad;
		mplane_fini(&g);
	}
	if (!host.bad && (nhost || nvtx != SIZE_MAX))
		mplane_write(&host, 1, &o);
	/* errors, warnings, hostnames and anything else, as they were */
	wire_init(&w, in, n);
	while (wire_more(&w) && !host.bad) {
		uint32_t f;
		const uint8_t *at = w.p;
		unsigned t = wire_tag(&w, &f);

		wire_skip(&w, t);
		if (f != 1)
			strbuf_add(&o, (const char *)at, (size_t)(w.p - at));
	}
	if (host.bad) {
		strbuf_fini(&o);
		rc = -1;
	} else {
		*out = (uint8_t *)o.buf;
		*out_n = o.len;
		rc = 1;
	}
	mplane_fini(&host);
	free(v);
	return rc;
}
