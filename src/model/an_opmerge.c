/*
 * an_opmerge: joins the per-line op tables of every device of every host
 * into the op profile (docs/analyses.md, "Op profile"): rows keyed by
 * (program, name), the kernels each op launched, and the inputs of its
 * rates, which need the device each line ran on.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "analysis_int.h"

/* program_id -> module name, from /host:metadata names "module(id)". */
static void program_names(struct hmap *m, const struct xt_host *h)
{
	size_t p, i;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strcmp(pl->name, "/host:metadata"))
			continue;
		for (i = 1; i < pl->nemeta; i++) {
			const char *n = pl->emeta[i].name, *open;
			size_t len = strlen(n);
			char *end;
			int64_t id;
			int ins;

			if (len < 3 || n[len - 1] != ')' || !(open = strrchr(n, '(')) ||
			    open[1] < '0' || open[1] > '9')
				continue;
			/* Program ids are unsigned 64-bit fingerprints. */
			id = (int64_t)strtoull(open + 1, &end, 10);
			if (end != n + len - 1 || end == open + 1)
				continue;
			*hmap_get(m, &id, sizeof(id), i, &ins) = (uint32_t)i;
			(void)ins;
		}
		return;
	}
}

void prog_names_init(struct prog_names *pn, const struct xt_host *h)
{
	size_t p;

	hmap_init(&pn->map);
	program_names(&pn->map, h);
	pn->meta = NULL;
	for (p = 0; p < h->nplanes; p++)
		if (!strcmp(h->planes[p].name, "/host:metadata"))
			pn->meta = &h->planes[p];
}

void prog_names_fini(struct prog_names *pn)
{
	hmap_fini(&pn->map);
}

struct bytes_ref prog_ref(const struct prog_names *pn, int has_program, int64_t program_id,
			  struct bytes_ref module, char idbuf[32])
{
	if (has_program && pn->meta) {
		const uint32_t *v = hmap_find(&pn->map, &program_id, sizeof(program_id));

		if (v) {
			const char *n = pn->meta->emeta[*v].name;

			return bref(n, (size_t)(strrchr(n, '(') - n));
		}
	}
	if (module.n)
		return module;
	if (has_program) {
		snprintf(idbuf, 32, "%" PRIu64, (uint64_t)program_id);
		return bref_str(idbuf);
	}
	return bref("", 0);
}

static int split_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether the program name r is one of a->split_progs. */
static int prog_is_split(const struct xt_analysis *a, struct bytes_ref r)
{
	size_t lo = 0, hi = a->nsplit_progs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = a->split_progs[mid];
		int c = strncmp(s, r.p ? r.p : "", r.n);

		if (!c)
			c = s[r.n] != '\0';
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Program r as its rows name it: "module(id)" when split, else the
 * module (n >= r.n + 24 holds either). */
static char *prog_fmt(const struct xt_analysis *a, struct bytes_ref r, int id_known,
		      int64_t program_id, char *buf, size_t n)
{
	if (id_known && r.n && prog_is_split(a, r))
		snprintf(buf, n, "%.*s(%" PRIu64 ")", (int)r.n, r.p, (uint64_t)program_id);
	else
		snprintf(buf, n, "%.*s", (int)r.n, r.p ? r.p : "");
	return buf;
}

char *prog_label(const struct xt_analysis *a, const struct prog_names *pn, int has_program,
		 int id_known, int64_t program_id, struct bytes_ref module, char *buf, size_t n)
{
	char idbuf[32];

	return prog_fmt(a, prog_ref(pn, has_program, program_id, module, idbuf), id_known,
			program_id, buf, n);
}

const char *prog_name(struct xt_analysis *a, const struct prog_names *pn, int has_program,
		      int id_known, int64_t program_id, struct bytes_ref module)
{
	char idbuf[32];
	struct bytes_ref r = prog_ref(pn, has_program, program_id, module, idbuf);

	return prog_fmt(a, r, id_known, program_id, arena_alloc(&a->arena, r.n + 24), r.n + 24);
}

/* A program name (the map's copy), its first id, and whether another came. */
struct prog_ids {
	struct bytes_ref name;
	int64_t id;
	int split;
};

void prog_split_find(struct xt_analysis *a, const struct xt_trace *t)
{
	struct hmap seen;
	struct prog_ids *ids = NULL;
	size_t nids = 0, h, p, l, i, k;

	hmap_init(&seen);
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];
		struct prog_names pn;

		prog_names_init(&pn, host);
		for (p = 0; p < host->nplanes; p++)
			for (l = 0; l < host->planes[p].nlines; l++) {
				const struct line_part *lp = host->planes[p].lines[l].hook_data;

				if (!lp || (lp->role != LROLE_XLA_OPS && lp->role != LROLE_STREAM))
					continue;
				for (i = 0; i < lp->nops; i++) {
					const struct op_acc *o = &lp->ops[i];
					char idbuf[32];
					struct bytes_ref r;
					uint32_t *v;
					int ins;

					if (!o->has_program && !o->key_has)
						continue;
					r = prog_ref(&pn, o->has_program, o->program_id, o->module,
						     idbuf);
					if (!r.n)
						continue;
					v = hmap_get(&seen, r.p, r.n, (uint32_t)nids, &ins);
					if (ins) {
						size_t kn;
						/* the map's copy: r may be in idbuf */
						const char *kp = hmap_key_of(v, &kn);

						ids = xreallocarray(ids, nids + 1, sizeof(*ids));
						ids[nids++] = (struct prog_ids){ bref(kp, kn), o->program_id,
										 0 };
					} else if (ids[*v].id != o->program_id) {
						ids[*v].split = 1;
					}
				}
			}
		prog_names_fini(&pn);
	}
	for (i = 0; i < nids; i++)
		a->nsplit_progs += ids[i].split;
	a->split_progs = arena_alloc(&a->arena, (a->nsplit_progs ? a->nsplit_progs : 1) *
							sizeof(*a->split_progs));
	for (i = 0, k = 0; i < nids; i++)
		if (ids[i].split)
			a->split_progs[k++] = arena_strndup(&a->arena, ids[i].name.p, ids[i].name.n);
	if (k > 1)
		qsort(a->split_progs, k, sizeof(*a->split_progs), split_cmp);
	free(ids);
	hmap_fini(&seen);
}

static int op_row_cmp(const void *x, const void *y)
{
	const struct xt_op_row *a = x, *b = y;
	int c;

	if (a->self_ps != b->self_ps)
		return a->self_ps > b->self_ps ? -1 : 1;
	if (a->total_ps != b->total_ps)
		return a->total_ps > b->total_ps ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->program, b->program);
	/* A total order: the rows' order never depends on the lines'. */
	return c ? c : strcmp(a->category, b->category);
}

static int op_kernel_cmp(const void *x, const void *y)
{
	const struct xt_op_kernel *a = x, *b = y;

	if (a->total_ps != b->total_ps)
		return a->total_ps > b->total_ps ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Merge-time state of one row. */
struct row_acc {
	uint64_t n_flops, n_bytes, n_hbm;
	struct rate_acc ra;
	size_t nk, capk;
};

struct merge {
	struct xt_analysis *a;
	struct hmap rows, kmap;
	struct row_acc *acc;
	size_t cap;
	struct strbuf key;
};

static uint32_t row_for(struct merge *m, const char *prog, const struct op_acc *o)
{
	struct xt_analysis *a = m->a;
	uint32_t *v;
	int ins;

	strbuf_reset(&m->key);
	strbuf_puts(&m->key, prog);
	strbuf_add(&m->key, "", 1);
	strbuf_add(&m->key, o->name.p, o->name.n);
	v = hmap_get(&m->rows, m->key.buf, m->key.len, (uint32_t)a->nops, &ins);
	if (ins) {
		struct xt_op_row *r;

		if (a->nops == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 64;
			a->ops = xreallocarray(a->ops, m->cap, sizeof(*a->ops));
			m->acc = xreallocarray(m->acc, m->cap, sizeof(*m->acc));
		}
		r = &a->ops[a->nops];
		memset(r, 0, sizeof(*r));
		memset(&m->acc[a->nops], 0, sizeof(m->acc[0]));
		r->name = arena_bref(&a->arena, o->name);
		r->program = prog;
		r->category = arena_bref(&a->arena, o->category);
		r->attr = (enum xt_op_attr)o->attr;
		r->parent = arena_bref(&a->arena, o->parent);
		r->async = o->async;
		r->host_mem = o->host_mem;
		if (o->host_mem && (o->cls == EVC_H2D || o->cls == EVC_D2H))
			r->host_copy = o->cls == EVC_H2D ? XT_HOST_COPY_IN : XT_HOST_COPY_OUT;
		r->shape_sig = o->shape_sig;
		a->nops++;
	}
	return *v;
}

static void kernel_add(struct merge *m, uint32_t row, const char *name, const struct op_kernel *k)
{
	struct xt_op_row *r = &m->a->ops[row];
	struct row_acc *ra = &m->acc[row];
	size_t n = strlen(name);
	char stack[300];
	char *key = n + 4 <= sizeof(stack) ? stack : xmalloc(n + 4);
	uint32_t *v;
	int ins;

	memcpy(key, &row, 4);
	memcpy(key + 4, name, n);
	v = hmap_get(&m->kmap, key, n + 4, (uint32_t)ra->nk, &ins);
	if (key != stack)
		free(key);
	if (ins) {
		if (ra->nk == ra->capk) {
			ra->capk = ra->capk ? ra->capk * 2 : 4;
			r->kernels = xreallocarray(r->kernels, ra->capk, sizeof(*r->kernels));
		}
		r->kernels[ra->nk++] =
			(struct xt_op_kernel){ arena_strndup(&m->a->arena, name, n), 0, 0 };
		r->nkernels = ra->nk;
	}
	r->kernels[*v].occurrences += k->occurrences;
	r->kernels[*v].total_ps = xt_sat_add(r->kernels[*v].total_ps, k->total_ps);
}

/* The device row of every /device: plane of host h (devices_build order). */
static const struct xt_device_row *device_of(const struct xt_analysis *a, size_t *next,
					     const struct xt_plane *pl)
{
	if (strncmp(pl->name, "/device:", 8) || *next >= a->ndevices)
		return NULL;
	return &a->devices[(*next)++];
}

/* The Async XLA Ops part of a plane, if it has one. */
static const struct line_part *async_part(const struct xt_plane *pl)
{
	size_t l;

	for (l = 0; l < pl->nlines; l++) {
		const struct line_part *lp = pl->lines[l].hook_data;

		if (lp && lp->role == LROLE_ASYNC)
			return lp;
	}
	return NULL;
}

static void merge_line(struct merge *m, const struct line_part *lp, const struct xt_plane *pl,
		       const char *const *progs, const struct xt_device_row *dev,
		       const struct line_part *async)
{
	struct xt_analysis *a = m->a;
	uint32_t *row_of = xcalloc(lp->nops ? lp->nops : 1, sizeof(uint32_t));
	size_t i;

	for (i = 0; i < lp->nops; i++) {
		const struct op_acc *o = &lp->ops[i];
		uint32_t row;
		struct xt_op_row *r;
		struct row_acc *ra;

		/* A command buffer's kernels can all move to the ops their
		 * places name (an_cmdbuf.c): the name rule's op is then empty. */
		if (!o->occurrences)
			continue;
		row = row_for(m, progs[i], o);
		r = &a->ops[row];
		ra = &m->acc[row];
		row_of[i] = row;
		r->occurrences += o->occurrences;
		r->self_ps = xt_sat_add(r->self_ps, o->self_ps);
		r->total_ps = xt_sat_add(r->total_ps, o->total_ps);
		r->flops += o->flops;
		r->bytes_accessed += o->bytes;
		r->hbm_bytes += o->hbm_bytes;
		r->cost_src |= o->cost_src;
		if (r->shape_sig != o->shape_sig)
			r->shape_sig = 0; /* two shapes under one name: none */
		ra->n_flops += o->n_flops;
		ra->n_bytes += o->n_bytes;
		ra->n_hbm += o->n_hbm;
		rate_add(&ra->ra, o, dev, async);
	}
	for (i = 0; i < lp->nopk; i++) {
		const struct op_kernel *k = &lp->opk[i];

		kernel_add(m, row_of[k->slot], pl->emeta[k->meta].name, k);
	}
	free(row_of);
}

static int by_name(const void *x, const void *y)
{
	const struct xt_op_row *a = *(const struct xt_op_row *const *)x,
			       *b = *(const struct xt_op_row *const *)y;

	return strcmp(a->name, b->name);
}

/* Marks the ops whose name another program's op has too (one module
 * compiled for several shapes; fusions numbered alike): shown without
 * their program, they would read the same. */
static void ops_mark_shared(struct xt_op_row *ops, size_t n)
{
	struct xt_op_row **v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t i, j, k;

	for (i = 0; i < n; i++)
		v[i] = &ops[i];
	qsort(v, n, sizeof(*v), by_name);
	for (i = 0; i < n; i = j) {
		int shared = 0;

		for (j = i + 1; j < n && !strcmp(v[j]->name, v[i]->name); j++)
			shared |= strcmp(v[j]->program, v[i]->program) != 0;
		for (k = i; shared && k < j; k++)
			v[k]->name_shared = 1;
	}
	free(v);
}

void ops_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct merge m;
	size_t h, p, l, i, next_dev = 0;

	memset(&m, 0, sizeof(m));
	m.a = a;
	hmap_init(&m.rows);
	hmap_init(&m.kmap);
	strbuf_init(&m.key);
	for (h = 0; h < t->nhosts; h++) {
		const struct xt_host *host = &t->hosts[h];
		struct prog_names pn;

		prog_names_init(&pn, host);
		for (p = 0; p < host->nplanes; p++) {
			const struct xt_plane *pl = &host->planes[p];
			const struct xt_device_row *dev = device_of(a, &next_dev, pl);
			const struct line_part *async = async_part(pl);

			for (l = 0; l < pl->nlines; l++) {
				const struct line_part *lp = pl->lines[l].hook_data;
				const char **progs;

				if (!lp || (lp->role != LROLE_XLA_OPS && lp->role != LROLE_STREAM))
					continue;
				progs = xcalloc(lp->nops ? lp->nops : 1, sizeof(*progs));
				for (i = 0; i < lp->nops; i++)
					progs[i] = prog_name(a, &pn, lp->ops[i].has_program,
							     lp->ops[i].has_program || lp->ops[i].key_has,
							     lp->ops[i].program_id, lp->ops[i].module);
				merge_line(&m, lp, pl, progs, dev, async);
				free(progs);
			}
		}
		prog_names_fini(&pn);
	}
	/* The percents' total: all ops' self time. Device busy time is the
	 * union of each device's streams, which concurrent kernels overlap:
	 * over it, a GPU's column would add up to more than 100 %. */
	a->ops_self_ps = 0;
	for (i = 0; i < a->nops; i++)
		a->ops_self_ps = xt_sat_add(a->ops_self_ps, a->ops[i].self_ps);
	for (i = 0; i < a->nops; i++) {
		struct xt_op_row *r = &a->ops[i];
		const struct row_acc *ra = &m.acc[i];

		/* A sum over some occurrences only would understate the op:
		 * FLOPs and bytes are given only when every occurrence had them. */
		r->has_flops = r->occurrences && ra->n_flops == r->occurrences;
		r->has_bytes = r->occurrences && ra->n_bytes == r->occurrences &&
			       ra->n_hbm == r->occurrences;
		if (!r->has_flops)
			r->flops = 0;
		if (!r->has_bytes)
			r->bytes_accessed = r->hbm_bytes = 0;
		if (!r->has_flops && !r->has_bytes)
			r->cost_src = 0;
		r->percent = a->ops_self_ps > 0 ? 100.0 * (double)r->self_ps / (double)a->ops_self_ps
						 : 0.0;
		op_rates(r, &ra->ra, ra->n_flops > 0 || ra->n_bytes > 0);
		if (r->nkernels > 1)
			qsort(r->kernels, r->nkernels, sizeof(*r->kernels), op_kernel_cmp);
	}
	if (a->nops > 1)
		qsort(a->ops, a->nops, sizeof(*a->ops), op_row_cmp);
	ops_mark_shared(a->ops, a->nops);
	free(m.acc);
	strbuf_fini(&m.key);
	hmap_fini(&m.rows);
	hmap_fini(&m.kmap);
}
