/*
 * analysis: the hooks, plane/line classification and device busy time; the
 * other views live in an_*.c (see analysis_int.h for the shared state).
 */
#include "analysis.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/parfor.h"
#include "../util/xalloc.h"
#include "an_stream.h"

const char *const xt_step_cat_names[XT_CAT_COUNT] = {
	[XT_CAT_DEVICE_COMPUTE] = "device_compute",
	[XT_CAT_DEVICE_TO_HOST] = "device_to_host",
	[XT_CAT_COLLECTIVES] = "collectives",
	[XT_CAT_HOST_TO_DEVICE] = "host_to_device",
	[XT_CAT_HOST_COMPUTE] = "host_compute",
};

/* ---- small helpers shared by the an_*.c files ---- */

int bref_contains(struct bytes_ref r, const char *needle)
{
	size_t k = strlen(needle);

	return k <= r.n && r.p && memmem(r.p, r.n, needle, k) != NULL;
}

int bref_starts(struct bytes_ref r, const char *prefix)
{
	size_t k = strlen(prefix);

	return r.n >= k && !memcmp(r.p, prefix, k);
}

const char *arena_bref(struct arena *a, struct bytes_ref r)
{
	return arena_strndup(a, r.p ? r.p : "", r.p ? r.n : 0);
}

/* Strips every trailing ".N" / "_N": "fusion.3" -> "fusion",
 * "cudnn-conv.1.0" -> "cudnn-conv". */
struct bytes_ref category_from_name(struct bytes_ref name)
{
	size_t n = name.n;

	for (;;) {
		size_t k = n;

		while (k > 0 && name.p[k - 1] >= '0' && name.p[k - 1] <= '9')
			k--;
		if (k < n && k > 1 && (name.p[k - 1] == '.' || name.p[k - 1] == '_'))
			n = k - 1;
		else
			break;
	}
	return bref(name.p, n);
}

static int is_copy_name(struct bytes_ref r)
{
	static const char *const names[] = { "CopyHostToDevice", "CopyDeviceToHost",
					     "CopyDeviceToDevice", "CopyHostToHost" };
	size_t i;

	for (i = 0; i < 4; i++)
		if (r.n == strlen(names[i]) && !memcmp(r.p, names[i], r.n))
			return 1;
	return 0;
}

static int is_sendrecv(struct bytes_ref b)
{
	return (b.n == 4 && (!memcmp(b.p, "send", 4) || !memcmp(b.p, "recv", 4))) ||
	       (b.n == 9 && (!memcmp(b.p, "send-done", 9) || !memcmp(b.p, "recv-done", 9)));
}

unsigned op_name_flags(struct bytes_ref s)
{
	static const char *const coll[] = { "all-reduce", "all-gather", "reduce-scatter",
					    "all-to-all", "collective-permute" };
	unsigned f = 0;
	size_t i;

	if (!s.n)
		return 0;
	for (i = 0; i < sizeof(coll) / sizeof(coll[0]); i++)
		if (bref_contains(s, coll[i]))
			f |= OPF_COLL;
	if (bref_starts(s, "nccl") || bref_starts(s, "rccl"))
		f |= OPF_NCCL;
	if (is_sendrecv(category_from_name(s)))
		f |= OPF_SENDRECV;
	if (bref_contains(s, "Memcpy"))
		f |= OPF_MEMCPY;
	if (is_copy_name(s))
		f |= OPF_COPY_NAME;
	if (bref_contains(s, "MemcpyH2D") || bref_contains(s, "CopyHostToDevice"))
		f |= OPF_H2D;
	if (bref_contains(s, "MemcpyD2H") || bref_contains(s, "CopyDeviceToHost"))
		f |= OPF_D2H;
	return f;
}

unsigned op_line_flags(struct bytes_ref s)
{
	unsigned f = op_name_flags(s);
	const char *k, *e;

	if (!(f & OPF_MEMCPY))
		return f;
	/* A stream's name lists the kinds of work seen on it: "Stream
	 * #14(MemcpyD2D,Compute)" runs kernels too, and names no copy by
	 * itself. Only a stream of copies alone makes its events copies. */
	k = memchr(s.p, '(', s.n);
	e = k ? memchr(k, ')', s.n - (size_t)(k - s.p)) : NULL;
	if (!k || !e)
		return f;
	for (k++; k < e;) {
		const char *c = memchr(k, ',', (size_t)(e - k));

		if (!c)
			c = e;
		if ((size_t)(c - k) < 6 || memcmp(k, "Memcpy", 6))
			return f & ~(unsigned)(OPF_MEMCPY | OPF_H2D | OPF_D2H);
		k = c + 1;
	}
	return f;
}

int op_classify_flags(unsigned op, unsigned cat, unsigned meta, unsigned line, int *is_memcpy)
{
	*is_memcpy = 0;
	if ((op | cat) & (OPF_COLL | OPF_NCCL | OPF_SENDRECV))
		return EVC_COLLECTIVE;
	if (!(((op | meta | line) & OPF_MEMCPY) || ((op | meta) & OPF_COPY_NAME)))
		return EVC_COMPUTE;
	*is_memcpy = 1;
	if ((op | meta | line) & OPF_H2D)
		return EVC_H2D;
	if ((op | meta | line) & OPF_D2H)
		return EVC_D2H;
	return EVC_D2D;
}

int op_classify(struct bytes_ref op, struct bytes_ref cat, struct bytes_ref meta,
		struct bytes_ref line, int *is_memcpy)
{
	return op_classify_flags(op_name_flags(op), op_name_flags(cat), op_name_flags(meta),
				 op_line_flags(line), is_memcpy);
}

void *actx_own(struct analysis_ctx *c, void *p)
{
	pthread_mutex_lock(&c->lock);
	if (c->nowned == c->capowned) {
		c->capowned = c->capowned ? c->capowned * 2 : 64;
		c->owned = xreallocarray(c->owned, c->capowned, sizeof(void *));
	}
	c->owned[c->nowned++] = p;
	pthread_mutex_unlock(&c->lock);
	return p;
}

struct line_part *line_part_alone(enum line_role role)
{
	struct line_part *lp = xcalloc(1, sizeof(*lp));

	lp->role = role;
	hmap_init(&lp->op_index);
	hmap_init(&lp->kern_index);
	hmap_init(&lp->kern_op_index);
	hmap_init(&lp->async_index);
	return lp;
}

struct line_part *line_part_new(struct analysis_ctx *c, enum line_role role)
{
	struct line_part *lp = line_part_alone(role);

	pthread_mutex_lock(&c->lock);
	if (c->nparts == c->capparts) {
		c->capparts = c->capparts ? c->capparts * 2 : 64;
		c->parts = xreallocarray(c->parts, c->capparts, sizeof(*c->parts));
	}
	c->parts[c->nparts++] = lp;
	pthread_mutex_unlock(&c->lock);
	return lp;
}

void line_part_free(struct line_part *lp)
{
	size_t i;

	hmap_fini(&lp->op_index);
	hmap_fini(&lp->kern_index);
	hmap_fini(&lp->kern_op_index);
	hmap_fini(&lp->async_index);
	free(lp->opk);
	free(lp->async);
	free(lp->runs);
	for (i = 0; i < lp->nmeta_ks; i++)
		free(lp->meta_ks[i]);
	free(lp->meta_ks);
	free(lp->kd);
	free(lp->kmemo);
	free(lp->calls);
	free(lp->pend);
	free(lp->pend_as);
	free(lp->cls);
	free(lp->ops);
	free(lp->slot_of_meta);
	free(lp->markers);
	span_pack_free(&lp->work);
	span_pack_free(&lp->busy);
	free(lp->comp);
	memory_free(lp);
	free(lp->kerns);
	free(lp->cbn);
	free(lp);
}

/* ---- classification ---- */

static int is_derived_line(const struct xt_line *l)
{
	static const char *const derived[] = {
		"Steps", "XLA Modules", "XLA Ops", "TensorFlow Ops", "Framework Ops",
		"TensorFlow Name Scope", "Framework Name Scope", "Source code", "Launch Stats",
	};
	size_t i;

	for (i = 0; i < sizeof(derived) / sizeof(derived[0]); i++)
		if (!strcmp(l->name, derived[i]))
			return 1;
	/* XProf's derived ids, also as written sign-extended from 32 bits. */
	return (l->id >= 0xdeadbeefLL && l->id <= 0xdeadbeefLL + 289) ||
	       (l->id >= (int64_t)(int32_t)0xdeadbeefu &&
		l->id <= (int64_t)(int32_t)0xdeadbeefu + 289);
}

static enum line_role line_role_of(const struct plane_ctx *pc, const struct xt_line *l)
{
	if (pc->role == ROLE_HOST)
		return LROLE_HOST;
	if (pc->role != ROLE_DEVICE)
		return LROLE_NONE;
	if (!strcmp(l->name, "Steps"))
		return LROLE_STEPS;
	if (pc->kind == XT_DEV_XLA)
		return !strcmp(l->name, "XLA Ops")	    ? LROLE_XLA_OPS
		       : !strcmp(l->name, "Async XLA Ops") ? LROLE_ASYNC
		       : !strcmp(l->name, "XLA Modules")   ? LROLE_MODULES
							   : LROLE_NONE;
	if (pc->kind == XT_DEV_GPU)
		return is_derived_line(l) ? LROLE_NONE : LROLE_STREAM;
	return LROLE_NONE;
}

/* Decodes the keys of a TraceMe-encoded name "name#k=v,k=v#" that make a
 * step marker (step_num, group_id, _r) into the marker fields of in. */
static void traceme_keys(const char *name, struct marker_keys *mk)
{
	size_t n = strlen(name);
	const char *hash = memchr(name, '#', n);
	const char *p;

	if (!hash || n < 2 || name[n - 1] != '#' || hash == name + n - 1)
		return;
	for (p = hash + 1; p < name + n - 1;) {
		const char *end = memchr(p, ',', (size_t)(name + n - 1 - p));
		const char *eq;
		char buf[32];
		size_t k;
		char *e;
		long long v;

		if (!end)
			end = name + n - 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		eq = memchr(p, '=', (size_t)(end - p));
		k = eq ? (size_t)(end - eq - 1) : 0;
		if (eq && k > 0 && k < sizeof(buf)) {
			memcpy(buf, eq + 1, k);
			buf[k] = '\0';
			v = strtoll(buf, &e, 10);
			if (e != buf) {
				if (eq - p == 8 && !memcmp(p, "step_num", 8)) {
					mk->step = v;
					mk->has |= MK_STEP;
				} else if (eq - p == 8 && !memcmp(p, "group_id", 8)) {
					mk->group = v;
					mk->has |= MK_GROUP;
				} else if (eq - p == 2 && !memcmp(p, "_r", 2)) {
					mk->has |= MK_ROOT;
				}
			}
		}
		p = end + 1;
	}
}

/* Fills the marker keys of mk that are still missing from stats. */
void marker_keys_take(struct marker_keys *mk, const struct xt_stat *s)
{
	switch (stat_known(s)) {
	case XS_STEP_NUM:
		if (!(mk->has & MK_STEP)) {
			mk->step = stat_as_int(s);
			mk->has |= MK_STEP;
		}
		break;
	case XS_GROUP_ID:
		if (!(mk->has & MK_GROUP)) {
			mk->group = stat_as_int(s);
			mk->has |= MK_GROUP;
		}
		break;
	case XS_IS_ROOT:
		mk->has |= MK_ROOT;
		break;
	default:
		break;
	}
}

static void emeta_info_fill(struct emeta_info *in, const struct xt_host *h,
			    const struct xt_plane *p, const struct xt_event_meta *m,
			    enum plane_role role)
{
	struct stat_iter it;
	struct xt_stat s;

	memset(in, 0, sizeof(*in));
	stat_iter_meta(&it, h, p, m);
	while (stat_next(&it, &s)) {
		switch (stat_known(&s)) {
		case XS_HLO_CATEGORY:
			in->category = bref(s.s, s.n);
			break;
		case XS_HLO_MODULE:
			in->module = bref(s.s, s.n);
			break;
		case XS_PROGRAM_ID:
			in->program_id = stat_as_int(&s);
			in->has_program = 1;
			break;
		case XS_FLOPS:
			in->flops = stat_as_double(&s);
			in->has_flops = 1;
			break;
		case XS_BYTES_ACCESSED:
			in->bytes = stat_as_double(&s);
			in->has_bytes = 1;
			break;
		case XS_MEM_BREAKDOWN:
			in->hbm_bytes = attr_hbm_bytes((const uint8_t *)s.s, s.n);
			in->has_hbm = in->hbm_bytes >= 0;
			break;
		default:
			break;
		}
	}
	if (role == ROLE_DEVICE) {
		in->name_flags = (uint8_t)op_name_flags(bref_str(m->name));
		in->blit = (uint8_t)copy_is_blit(m->name);
	}
	if (role == ROLE_HOST) {
		in->copy_cls = (uint8_t)copy_call_class(m->name);
		in->py_frame = m->name[0] == '$';
		if (!strcmp(m->name, "MemoryAllocation"))
			in->mem = 1;
		else if (!strcmp(m->name, "MemoryDeallocation"))
			in->mem = 2;
		in->compile = (uint8_t)(overview_is_compile(m->name) ||
					overview_is_compile(m->display_name));
		/* Marker keys: a TraceMe-encoded name first, then metadata stats
		 * (event stats come before both, per event). */
		traceme_keys(m->name, &in->mk);
		stat_iter_meta(&it, h, p, m);
		while (stat_next(&it, &s))
			marker_keys_take(&in->mk, &s);
	}
}

static void plane_hook(void *vctx, struct xt_host *h, struct xt_plane *p)
{
	struct analysis_ctx *c = vctx;
	struct plane_ctx *pc = actx_own(c, xcalloc(1, sizeof(*pc)));
	size_t i;

	pc->host = h->name;
	pc->hc = host_ctx_for(c, h);
	pc->no_event_queries = c->keep_none;
	if (!strncmp(p->name, "/device:", 8)) {
		pc->role = ROLE_DEVICE;
		/* XLA-ops devices are recognised in plane_hook_outer. */
		pc->kind = !strncmp(p->name, "/device:GPU:", 12) ? XT_DEV_GPU : XT_DEV_OTHER;
	} else if (!strcmp(p->name, "/host:CPU")) {
		pc->role = ROLE_HOST;
		pc->has_marker_stats = p->has_known[XS_STEP_NUM] ||
				       (p->has_known[XS_IS_ROOT] && p->has_known[XS_GROUP_ID]);
	} else if (!strcmp(p->name, "/host:metadata")) {
		pc->role = ROLE_META;
	}
	if (pc->role == ROLE_DEVICE || pc->role == ROLE_HOST) {
		pc->info = actx_own(c, xcalloc(p->nemeta, sizeof(*pc->info)));
		for (i = 0; i < p->nemeta; i++) {
			emeta_info_fill(&pc->info[i], h, p, &p->emeta[i], pc->role);
			pc->has_mem |= pc->info[i].mem != 0;
			pc->has_copy_calls |= pc->info[i].copy_cls != 0;
			if (pc->role == ROLE_DEVICE && xt_name_memset(p->emeta[i].name)) {
				if (!pc->memset_meta)
					pc->memset_meta = actx_own(c, xcalloc(p->nemeta, 1));
				pc->memset_meta[i] = 1;
			}
		}
	}
	p->hook_data = pc;
}

/* Line names are only known once a line is decoded, so whether a device
 * records XLA Ops is settled by peeking at its lines' names here. */
static int plane_has_xla_ops(const struct xt_host *h, const struct xt_plane *p)
{
	size_t i;

	for (i = 0; i < p->nlines; i++) {
		struct wire w;
		const struct xt_line *l = &p->lines[i];

		wire_init(&w, h->src.data + l->raw_off, l->raw_len);
		while (wire_more(&w)) {
			uint32_t f;
			unsigned t = wire_tag(&w, &f);

			if (f == 2 && t == WIRE_LEN) {
				size_t n;
				const uint8_t *s = wire_bytes(&w, &n);

				if (n == 7 && !memcmp(s, "XLA Ops", 7))
					return 1;
				/* Upstream writes the name before the events: no
				 * need to walk the rest of the line. */
				break;
			} else {
				wire_skip(&w, t);
			}
		}
	}
	return 0;
}

/* Sets the reader's watch on the stats of ks (only while loading: a trace
 * loaded without hooks has no watch flags on its events). */
static void plane_watch(struct xt_plane *p, const unsigned *ks, size_t n)
{
	size_t i;

	p->watch_on = 1;
	for (i = 0; i < n && p->watch_on; i++) {
		if (!p->has_known[ks[i]])
			continue;
		if (p->known_id[ks[i]] >= 0 && p->known_id[ks[i]] < 64)
			p->watch_lo |= 1ull << p->known_id[ks[i]];
		else if (p->nwatch_ids < XT_WATCH_MAX)
			p->watch_ids[p->nwatch_ids++] = p->known_id[ks[i]];
		else
			p->watch_on = 0; /* too many to watch: analyses scan all */
	}
}

static void plane_hook_outer(void *vctx, struct xt_host *h, struct xt_plane *p)
{
	static const unsigned xla[] = { XS_PROGRAM_ID, XS_HLO_CATEGORY, XS_HLO_MODULE, XS_FLOPS,
					XS_BYTES_ACCESSED, XS_MEM_BREAKDOWN };
	/* A host event is a marker by step_num or by _r (with group_id). */
	static const unsigned host[] = { XS_STEP_NUM, XS_IS_ROOT };
	struct analysis_ctx *c = vctx;
	struct plane_ctx *pc;

	plane_hook(vctx, h, p);
	pc = p->hook_data;
	if (pc->role == ROLE_DEVICE && plane_has_xla_ops(h, p)) {
		pc->kind = XT_DEV_XLA;
		if (c->loading)
			plane_watch(p, xla, sizeof(xla) / sizeof(xla[0]));
	}
	if (pc->role == ROLE_HOST && c->loading)
		plane_watch(p, host, sizeof(host) / sizeof(host[0]));
	if (pc->role == ROLE_DEVICE && pc->kind == XT_DEV_GPU && c->loading) {
		/* Every kernel launch's key is read as it is decoded
		 * (an_streamsink.c). */
		uint8_t *on = actx_own(c, xmalloc(p->nemeta ? p->nemeta : 1));

		uint8_t *ids = actx_own(c, xmalloc(XT_KEY_IDS));

		memset(on, SINK_KERNEL, p->nemeta ? p->nemeta : 1);
		p->sink_meta = on;
		if (kern_key_ids(ids, p) == 0)
			p->key_ids = ids;
	}
	if (pc->role == ROLE_HOST && c->loading) {
		/* Memory events, step markers and compilations are read as they
		 * are decoded (an_sink.c). Markers only where the reader flags
		 * the events carrying marker stats, or no event carries any. */
		uint8_t *on = actx_own(c, xmalloc(p->nemeta ? p->nemeta : 1));
		size_t i;

		pc->sink_markers = p->watch_on || !pc->has_marker_stats;
		for (i = 0; i < p->nemeta; i++) {
			const struct emeta_info *in = &pc->info[i];

			on[i] = (uint8_t)((in->mem ? SINK_MEM : 0) | (in->compile ? SINK_COMPILE : 0) |
					  (in->copy_cls ? SINK_COPY : 0) |
					  (in->py_frame ? XT_SINK_NO_RANGE : 0) |
					  (pc->sink_markers && (in->mk.has & (MK_STEP | MK_ROOT))
						   ? SINK_MARKER
						   : 0));
		}
		p->sink_meta = on;
	}
}

static void line_hook(void *vctx, struct xt_host *h, struct xt_plane *p, struct xt_line *l,
		      struct xt_sunk *sunk)
{
	struct analysis_ctx *c = vctx;
	struct plane_ctx *pc = p->hook_data;
	enum line_role role;
	struct line_part *lp;

	if (!pc)
		return;
	role = line_role_of(pc, l);
	if (role == LROLE_NONE)
		return;
	lp = line_part_new(c, role);
	switch (role) {
	case LROLE_XLA_OPS:
		ops_line_xla(lp, h, p, l);
		break;
	case LROLE_STREAM:
		ops_line_stream(lp, h, p, l, sunk); /* and overview_line_device */
		break;
	case LROLE_STEPS:
		steps_line_markers(lp, h, p, l);
		break;
	case LROLE_ASYNC:
		ops_line_async(lp, h, p, l);
		break;
	case LROLE_MODULES:
		steps_line_modules(lp, h, p, l);
		break;
	case LROLE_HOST:
		/* What a host line needs the sink read while it was decoded
		 * (when there was one: with sunk->nparts); its Python frames
		 * are left out of host work. */
		if (sunk && sunk->nparts && pc->sink_markers)
			steps_take_markers(lp, l, sunk);
		else
			steps_line_markers(lp, h, p, l);
		if (l->kept_none) {
			/* What the sink made of its ranges, as it was decoded
			 * (analysis_keep_none: with sink_markers). */
			overview_take_comp(lp, l, sunk);
			overview_take_work(lp, l, sunk);
		} else {
			overview_line_host(lp, p, l);
		}
		memory_line(lp, h, p, l, sunk);
		copies_line_host(lp, h, p, l, sunk);
		break;
	case LROLE_NONE:
		break;
	}
	l->hook_data = lp;
}

struct analysis_ctx *analysis_new(void)
{
	struct analysis_ctx *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	return c;
}

/* xplane_load_opts.line_keep: a host thread's line keeps no events when
 * its analyses need them only while it is decoded: its markers, memory
 * events and compilations go to the sink, and its work (not its Python
 * frames) is made of each range as it is decoded. */
static int line_keep(void *vctx, const struct xt_host *h, const struct xt_plane *p,
		     const char *name, size_t n)
{
	const struct plane_ctx *pc = p->hook_data;

	(void)vctx;
	(void)h;
	(void)name; /* every host line alike: Python frames are left out by sink_meta */
	(void)n;
	if (!pc || pc->role != ROLE_HOST || !pc->sink_markers || !p->sink_meta)
		return XT_KEEP_ALL;
	return XT_KEEP_NONE_RANGES;
}

void analysis_keep_none(struct analysis_ctx *ctx, struct xplane_load_opts *opts)
{
	ctx->keep_none = 1;
	opts->line_keep = line_keep;
}

void analysis_attach(struct analysis_ctx *ctx, struct xplane_load_opts *opts)
{
	ctx->loading = 1;
	opts->plane_hook = plane_hook_outer;
	opts->line_hook = line_hook;
	opts->ctx = ctx;
	opts->sink = &analysis_sink;
}

/* analysis_run's line hooks, shared out among threads biggest line first
 * (line hooks are written to run side by side, as they do while loading). */
struct run_line {
	struct xt_host *h;
	struct xt_plane *p;
	struct xt_line *l;
};

struct run_pool {
	struct analysis_ctx *ctx;
	struct run_line *v;
};

static int run_line_cmp(const void *x, const void *y)
{
	const struct run_line *a = x, *b = y;

	return (a->l->nev < b->l->nev) - (a->l->nev > b->l->nev);
}

static void run_job(void *arg, size_t i)
{
	struct run_pool *rp = arg;

	line_hook(rp->ctx, rp->v[i].h, rp->v[i].p, rp->v[i].l, NULL);
}

void analysis_run(struct analysis_ctx *ctx, struct xt_trace *t)
{
	struct run_pool rp = { ctx, NULL };
	size_t h, p, l, n = 0;

	ctx->loading = 0;
	for (h = 0; h < t->nhosts; h++) {
		struct xt_host *host = &t->hosts[h];

		for (p = 0; p < host->nplanes; p++) {
			plane_hook_outer(ctx, host, &host->planes[p]);
			n += host->planes[p].nlines;
		}
	}
	rp.v = xcalloc(n ? n : 1, sizeof(*rp.v));
	n = 0;
	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes; p++)
			for (l = 0; l < t->hosts[h].planes[p].nlines; l++) {
				if (t->hosts[h].planes[p].lines[l].kept_none)
					fatal("internal error: analyses run again on a trace that "
					      "kept no host events");
				rp.v[n++] = (struct run_line){ &t->hosts[h], &t->hosts[h].planes[p],
							       &t->hosts[h].planes[p].lines[l] };
			}
	qsort(rp.v, n, sizeof(*rp.v), run_line_cmp);
	par_for(n, 0, run_job, &rp);
	free(rp.v);
}

static void ctx_free(struct analysis_ctx *c, struct xt_trace *t)
{
	size_t i, h, p, l;

	if (t) {
		for (h = 0; h < t->nhosts; h++) {
			for (p = 0; p < t->hosts[h].nplanes; p++) {
				struct xt_plane *pl = &t->hosts[h].planes[p];

				pl->hook_data = NULL;
				pl->sink_meta = NULL;
				pl->key_ids = NULL;
				for (l = 0; l < pl->nlines; l++)
					pl->lines[l].hook_data = NULL;
			}
		}
	}
	/* Everything is freed from the context's own lists, so parts made for
	 * a host whose load failed (and was discarded) are not leaked. */
	for (i = 0; i < c->nparts; i++)
		line_part_free(c->parts[i]);
	free(c->parts);
	for (i = 0; i < c->nhosts; i++) {
		hlo_set_free(&c->hosts[i]->hlo);
		free(c->hosts[i]);
	}
	free(c->hosts);
	for (i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* The analysis keeps each host's HLO programs (analysis_op_name needs
 * them); they move out of the context, which is freed. */
static void hlo_keep(struct xt_analysis *a, struct analysis_ctx *c, const struct xt_trace *t)
{
	size_t h, i;

	a->nhlo = t->nhosts;
	a->hlo = xcalloc(t->nhosts ? t->nhosts : 1, sizeof(*a->hlo));
	for (h = 0; h < t->nhosts; h++) {
		hlo_set_init(&a->hlo[h]);
		for (i = 0; i < c->nhosts; i++) {
			if (c->hosts[i]->key != (const void *)t->hosts[h].src.data)
				continue;
			hlo_set_free(&a->hlo[h]);
			a->hlo[h] = c->hosts[i]->hlo;
			hlo_set_init(&c->hosts[i]->hlo);
			a->hlo_programs += a->hlo[h].n;
		}
	}
}

/* The steps merge on a thread of its own, beside the other merges. The
 * overview's device walks need the device rows only and share nothing with
 * the merges that use a->arena, so whichever thread is free first runs
 * them: on GPU profiles the steps are done long before the memory rows, on
 * TPU ones the other way round. */
struct steps_job {
	struct xt_analysis *a;
	struct xt_trace *t;
	const struct host_act *ha;
	atomic_int devices_ready; /* the device rows are built */
	atomic_int ov_taken;      /* a thread has claimed overview_devices */
};

/* Each device row's run_ps, from its plane's (steps_merge found the runs
 * while the rows were built): rows are in host, plane order. */
static void devices_take_runs(struct xt_analysis *a, const struct xt_trace *t)
{
	size_t h, p, di = 0;

	for (h = 0; h < t->nhosts; h++)
		for (p = 0; p < t->hosts[h].nplanes && di < a->ndevices; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];
			const struct plane_ctx *pc = pl->hook_data;

			if (strncmp(pl->name, "/device:", 8))
				continue;
			a->devices[di++].run_ps = pc && pc->run_ps > 0 ? pc->run_ps : -1;
		}
}

/* Runs overview_devices unless the other thread has; 1 when this one did. */
static int ov_claim(struct steps_job *j)
{
	if (atomic_exchange(&j->ov_taken, 1))
		return 0;
	overview_devices(j->a, j->t, j->ha);
	return 1;
}

static void *steps_thread(void *arg)
{
	struct steps_job *j = arg;

	steps_merge(j->a, j->t, j->ha);
	if (atomic_load_explicit(&j->devices_ready, memory_order_acquire))
		(void)ov_claim(j);
	return NULL;
}

/* The unions analysis_finish needs first: host activity, then GPU busy. */
struct prep_jobs {
	struct host_acts_plan *hp;
	size_t nhost;
	struct gpu_busy_set *gs;
};

static void prep_job(void *arg, size_t i)
{
	struct prep_jobs *pj = arg;

	if (i < pj->nhost)
		host_acts_run(pj->hp, i);
	else
		gpu_busy_run(pj->gs, i - pj->nhost);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Atomic uint64_t analysis_serials; /* xt_analysis.serial */

struct xt_analysis *analysis_finish(struct analysis_ctx *ctx, struct xt_trace *t)
{
	struct xt_analysis *a = xcalloc(1, sizeof(*a));
	/* XTOP_TIMING=1 prints where the time goes (for bench/ and profiling). */
	int timing = getenv("XTOP_TIMING") != NULL;
	double t0 = timing ? now_s() : 0, t1, t2, t3, t4;

	struct host_act *ha;
	struct prep_jobs pj;
	struct steps_job sj;
	struct gpu_busy_set gs;
	pthread_t tid;
	int threaded;

	arena_init(&a->arena);
	a->serial = atomic_fetch_add(&analysis_serials, 1) + 1;
	a->origin_ps = t->origin_ps;
	hlo_keep(a, ctx, t);
	/* Before anything reads the line parts: it moves blit copies. */
	copies_resolve(a, t);
	stream_keep_names(a, t);
	/* The hosts' activity and the GPUs' busy unions first, one list of
	 * jobs (the hosts' halves first, often the largest), so that a profile
	 * of one GPU and one busy host line unions both at once. Then the step
	 * breakdown, which reads only them and the trace and writes only
	 * a->steps and the device planes' run_ps (read once it is joined:
	 * devices_take_runs), runs beside the other merges (which share
	 * a->arena). */
	pj.hp = host_acts_plan(t, &pj.nhost);
	pj.gs = &gs;
	par_for(pj.nhost + gpu_busy_plan(&gs, t), 2, prep_job, &pj);
	ha = host_acts_done(pj.hp);
	sj.a = a;
	sj.t = t;
	sj.ha = ha;
	atomic_init(&sj.devices_ready, 0);
	atomic_init(&sj.ov_taken, 0);
	threaded = pthread_create(&tid, NULL, steps_thread, &sj) == 0;
	if (!threaded)
		steps_merge(a, t, ha);
	devices_build(a, t, &gs);
	gpu_busy_free(&gs);
	atomic_store_explicit(&sj.devices_ready, 1, memory_order_release);
	t1 = timing ? now_s() : 0;
	prog_split_find(a, t);
	ops_merge(a, t);
	t2 = timing ? now_s() : 0;
	memory_merge(a, t);
	kernels_merge(a, t);
	(void)ov_claim(&sj);
	t3 = timing ? now_s() : 0;
	if (threaded)
		pthread_join(tid, NULL);
	devices_take_runs(a, t);
	host_acts_free(ha, t->nhosts);
	t4 = timing ? now_s() : 0;
	overview_build(a);
	if (timing)
		fprintf(stderr, "xtop: analysis merge: devices %.3f s, ops %.3f s, memory+kernels"
				"(+overview devices, unless the steps' thread took them) %.3f s, "
				"steps done after %.3f s, overview %.3f s\n",
			t1 - t0, t2 - t1, t3 - t2, t4 - t0, now_s() - t4);
	ctx_free(ctx, t);
	return a;
}

void analysis_abort(struct analysis_ctx *ctx, struct xt_trace *t)
{
	ctx_free(ctx, t);
}

void analysis_free(struct xt_analysis *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nmemory; i++) {
		free(a->memory[i].live);
		free(a->memory[i].series);
	}
	for (i = 0; i < a->nops; i++)
		free(a->ops[i].kernels);
	for (i = 0; i < a->nhlo; i++)
		hlo_set_free(&a->hlo[i]);
	copies_free(a);
	stream_names_free(a);
	free(a->hlo);
	free(a->ops);
	free(a->devices);
	free(a->steps);
	free(a->memory);
	free(a->kernels);
	free(a->overview.findings);
	arena_fini(&a->arena);
	free(a);
}
