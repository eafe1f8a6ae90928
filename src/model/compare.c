/* compare: see compare.h. */
#include "compare.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/hmap.h"
#include "../util/strbuf.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"

const char *const xt_match_names[5] = { "exact", "identity", "work", "added", "removed" };

static double step_mean(const struct xt_analysis *a)
{
	double s = 0;
	size_t i;

	for (i = 0; i < a->nsteps; i++)
		s += (double)a->steps[i].duration_ps;
	return a->nsteps ? s / (double)a->nsteps : 0;
}

static struct xt_cmp_num num(double base, double new_, int has)
{
	struct xt_cmp_num n = { base, new_, new_ - base, NAN, has, 0 };

	if (has && base != 0)
		n.delta_percent = 100.0 * (new_ - base) / base;
	return n;
}

/* How much of a program's name survives a recompile: without a numeric
 * suffix ("jit_f.1" -> "jit_f") nor a program id ("jit_dot(49)", one
 * module compiled for several shapes: the ids are another run's). */
static size_t program_stem(const char *program)
{
	size_t n = strlen(program), d;

	if (n > 2 && program[n - 1] == ')') {
		for (d = n - 1; d > 0 && program[d - 1] >= '0' && program[d - 1] <= '9'; d--)
			;
		if (d > 1 && d < n - 1 && program[d - 1] == '(')
			n = d - 1;
	}
	while (n && program[n - 1] >= '0' && program[n - 1] <= '9') {
		size_t m = n;

		while (m && program[m - 1] >= '0' && program[m - 1] <= '9')
			m--;
		if (m && (program[m - 1] == '.' || program[m - 1] == '_'))
			n = m - 1;
		else
			break;
	}
	return n;
}

static int same_program_stem(const char *x, const char *y)
{
	size_t n = program_stem(x);

	return n == program_stem(y) && !memcmp(x, y, n);
}

/* The identity of an op that survives a recompile: the program's stem,
 * the op name without numeric suffixes ("fusion.12" -> "fusion"), and the
 * category. */
static void identity(struct strbuf *k, const struct xt_op_row *o)
{
	size_t n;

	strbuf_reset(k);
	n = program_stem(o->program);
	strbuf_add(k, o->program, n);
	strbuf_add(k, "", 1);
	n = strlen(o->name);
	while (n) {
		size_t m = n;

		while (m && o->name[m - 1] >= '0' && o->name[m - 1] <= '9')
			m--;
		if (m < n && m && (o->name[m - 1] == '.' || o->name[m - 1] == '_'))
			n = m - 1;
		else
			break;
	}
	strbuf_add(k, o->name, n);
	strbuf_add(k, "", 1);
	strbuf_puts(k, o->category);
}

static int op_delta_cmp(const void *x, const void *y)
{
	const struct xt_cmp_op *a = x, *b = y;
	int64_t da = xt_sat_abs(a->delta_ps), db = xt_sat_abs(b->delta_ps);
	int c;

	if (da != db)
		return da > db ? -1 : 1;
	if ((c = strcmp(a->program, b->program)))
		return c;
	return strcmp(a->name, b->name);
}

/* The runs a profile's op times cover, per its steps: an inferred step is
 * a run and the time to the next, so the last run is no step but its ops'
 * times are in the totals (dividing by the steps alone put every op 1/(n-1)
 * higher, and two profiles of different run counts apart). */
static size_t step_units(const struct xt_analysis *a)
{
	return a->nsteps && a->steps_source == XT_STEPS_INFERRED ? a->nsteps + 1 : a->nsteps;
}

/* Self time per step (when both profiles have steps) or per run. */
static int64_t per(const struct xt_cmp *c, int64_t ps, size_t steps)
{
	return c->per_step && steps ? ps / (int64_t)steps : ps;
}

/* An op's self time in the comparison's unit. */
static int64_t op_per(const struct xt_cmp *c, const struct xt_op_row *o, size_t steps)
{
	if (c->per_occurrence)
		return o->occurrences ? o->self_ps / (int64_t)o->occurrences : 0;
	return per(c, o->self_ps, steps);
}

/* NEW's work a run over BASE's, in what bounds NEW's op: bytes for a
 * memory-bound op, else FLOPs where both count some, else bytes. (By
 * FLOPs, the H200 transformer's memory-bound fusion.151, a third of
 * fusion.153's FLOPs over the same 50 MB, read 114.6 us for BASE's work,
 * +427 %, where its bytes say 38.2 us, +76 %.) */
static double work_ratio(const struct xt_op_row *b, const struct xt_op_row *n)
{
	int by_bytes = b->has_bytes && n->has_bytes && b->bytes_accessed > 0 &&
		       n->bytes_accessed > 0;

	if (!b->occurrences || !n->occurrences)
		return NAN;
	if (by_bytes && n->bound_by == XT_BOUND_MEMORY)
		return (n->bytes_accessed / (double)n->occurrences) /
		       (b->bytes_accessed / (double)b->occurrences);
	if (b->has_flops && n->has_flops && b->flops > 0 && n->flops > 0)
		return (n->flops / (double)n->occurrences) / (b->flops / (double)b->occurrences);
	if (by_bytes)
		return (n->bytes_accessed / (double)n->occurrences) /
		       (b->bytes_accessed / (double)b->occurrences);
	return NAN;
}

/* x and y a run within 1 % of each other (either unknown: alike). */
static int near(int hx, double x, uint64_t nx, int hy, double y, uint64_t ny)
{
	double a, b;

	if (!hx || !hy || !nx || !ny)
		return 1;
	a = x / (double)nx;
	b = y / (double)ny;
	return fabs(a - b) <= 0.01 * fmax(fabs(a), fabs(b));
}

/* The same work a run: FLOPs and bytes, where both profiles know them.
 * XLA numbers instructions per compilation, so `custom-call.2` of one
 * build can be another GEMM than of the next (the H100 transformer with
 * and without command buffers); names alone would pair them. */
static int same_work(const struct xt_op_row *x, const struct xt_op_row *y)
{
	return near(x->has_flops, x->flops, x->occurrences, y->has_flops, y->flops, y->occurrences) &&
	       near(x->has_bytes, x->bytes_accessed, x->occurrences, y->has_bytes, y->bytes_accessed,
		    y->occurrences);
}

/* Both output shapes known and equal: of two GEMMs of equal work,
 * [2,512,2048] and [2,2048,512], each pairs with its own shape. */
static int same_shape(const struct xt_op_row *x, const struct xt_op_row *y)
{
	return x->shape_sig && x->shape_sig == y->shape_sig;
}

/* A library call: cuBLAS's GEMMs (category gemm), cuDNN's convolutions
 * (cudnn-conv.N, category convolution), a custom call. */
static int lib_call(const struct xt_op_row *o)
{
	return !strcmp(o->category, "gemm") || !strcmp(o->category, "custom-call") ||
	       !strcmp(o->category, "convolution") || !strncmp(o->name, "custom-call", 11) ||
	       !strncmp(o->name, "cudnn", 5);
}

/* x and y can be one op done two ways: of one category, or one of them a
 * library call (a GEMM as cuBLAS's custom call, as a Triton fusion in the
 * other build). Equal FLOPs and bytes are common among one shape's
 * elementwise and reduce fusions: the H100 MLP's input_reduce_fusion (an
 * input fusion) and the scan's loop_dynamic_update_slice_fusion.1 (a loop
 * fusion) do 4.19 MFLOP and 8.4 MB a run each, and are not one op. */
static int two_ways(const struct xt_op_row *x, const struct xt_op_row *y)
{
	return !strcmp(x->category, y->category) || lib_call(x) || lib_call(y);
}

/* FLOPs and bytes known and not nothing: work that can tell an op. */
static int known_work(const struct xt_op_row *o)
{
	return o->occurrences && o->has_flops && o->flops > 0 && o->has_bytes &&
	       o->bytes_accessed > 0;
}

/* An op implemented another way (a GEMM one build runs as a cuBLAS custom
 * call and the other as a Triton fusion: another name and category) pairs
 * with one of its program (by its stem: a recompile gives other ids) that
 * does the same work, known on both sides, in order of self time: two
 * ways to one op (two_ways). */
static void work_pass(const struct xt_analysis *b, const struct xt_analysis *n, uint8_t *bused,
		      uint8_t *nused, size_t *pair, enum xt_match *how)
{
	size_t i, j;

	for (i = 0; i < n->nops; i++) {
		if (nused[i] || !known_work(&n->ops[i]))
			continue;
		for (j = 0; j < b->nops; j++)
			if (!bused[j] && known_work(&b->ops[j]) &&
			    same_program_stem(b->ops[j].program, n->ops[i].program) &&
			    same_work(&b->ops[j], &n->ops[i]) && two_ways(&b->ops[j], &n->ops[i]))
				break;
		if (j == b->nops)
			continue;
		pair[i] = j;
		how[i] = XT_MATCH_WORK;
		bused[j] = nused[i] = 1;
	}
}

static void match_ops(struct xt_cmp *c, const struct xt_analysis *b, const struct xt_analysis *n)
{
	uint8_t *bused = xcalloc(b->nops ? b->nops : 1, 1), *nused = xcalloc(n->nops ? n->nops : 1, 1);
	size_t *pair = xmalloc((n->nops ? n->nops : 1) * sizeof(size_t));
	enum xt_match *how = xmalloc((n->nops ? n->nops : 1) * sizeof(*how));
	struct hmap exact, ident;
	struct strbuf k;
	size_t i, cap = b->nops + n->nops + 1;

	hmap_init(&exact);
	hmap_init(&ident);
	strbuf_init(&k);
	for (i = 0; i < b->nops; i++) {
		int ins;

		strbuf_reset(&k);
		strbuf_puts(&k, b->ops[i].program);
		strbuf_add(&k, "", 1);
		strbuf_puts(&k, b->ops[i].name);
		(void)hmap_get(&exact, k.buf, k.len, (uint32_t)i, &ins);
	}
	/* Exact names first, for every op... */
	for (i = 0; i < n->nops; i++) {
		const uint32_t *v;

		strbuf_reset(&k);
		strbuf_puts(&k, n->ops[i].program);
		strbuf_add(&k, "", 1);
		strbuf_puts(&k, n->ops[i].name);
		v = hmap_find(&exact, k.buf, k.len);
		pair[i] = SIZE_MAX;
		if (v && !bused[*v] && same_work(&b->ops[*v], &n->ops[i])) {
			pair[i] = *v;
			how[i] = XT_MATCH_EXACT;
			bused[*v] = nused[i] = 1;
		}
	}
	/* ...then the identities of what is left, in order of self time
	 * (both tables are sorted by it): the k-th unmatched fusion of a
	 * program in NEW pairs with its k-th in BASE. */
	{
		size_t *queue = xmalloc((b->nops ? b->nops : 1) * sizeof(size_t));
		size_t *next = xcalloc(b->nops ? b->nops : 1, sizeof(size_t));
		uint32_t nq = 0;

		for (i = 0; i < b->nops; i++) {
			uint32_t *v;
			int ins;

			if (bused[i])
				continue;
			identity(&k, &b->ops[i]);
			v = hmap_get(&ident, k.buf, k.len, nq, &ins);
			if (ins) {
				queue[nq] = i;
				next[i] = SIZE_MAX;
				nq++;
			} else {
				/* Append to the chain of this identity. */
				size_t j = queue[*v];

				while (next[j] != SIZE_MAX)
					j = next[j];
				next[j] = i;
				next[i] = SIZE_MAX;
			}
		}
		/* The same work and output shape first (an op renumbered),
		 * the largest such; then the same work; then ops implemented
		 * another way (work_pass); then what is left in order (new
		 * shapes: nothing does the same work). */
		for (int pass = 0; pass < 3; pass++) {
			if (pass == 2)
				work_pass(b, n, bused, nused, pair, how);
			for (i = 0; i < n->nops; i++) {
				uint32_t *v;
				size_t j, *at;

				if (nused[i])
					continue;
				identity(&k, &n->ops[i]);
				v = (uint32_t *)hmap_find(&ident, k.buf, k.len);
				if (!v)
					continue;
				for (at = &queue[*v]; (j = *at) != SIZE_MAX; at = &next[j])
					if (!bused[j] &&
					    (pass == 2 ||
					     (same_work(&b->ops[j], &n->ops[i]) &&
					      (pass || same_shape(&b->ops[j], &n->ops[i])))))
						break;
				if (j == SIZE_MAX)
					continue;
				pair[i] = j;
				how[i] = XT_MATCH_IDENTITY;
				bused[j] = nused[i] = 1;
				*at = next[j]; /* out of its chain */
			}
		}
		free(queue);
		free(next);
	}
	c->ops = xcalloc(cap, sizeof(*c->ops));
	for (i = 0; i < n->nops; i++) {
		const struct xt_op_row *o = &n->ops[i];
		struct xt_cmp_op *r = &c->ops[c->nops++];

		r->name = arena_strndup(&c->arena, o->name, strlen(o->name));
		r->program = arena_strndup(&c->arena, o->program, strlen(o->program));
		r->category = arena_strndup(&c->arena, o->category, strlen(o->category));
		r->new_ps = op_per(c, o, c->new_units);
		r->new_rank = i;
		if (pair[i] != SIZE_MAX) {
			const struct xt_op_row *bo = &b->ops[pair[i]];

			r->base_name = arena_strndup(&c->arena, bo->name, strlen(bo->name));
			r->base_ps = op_per(c, bo, c->base_units);
			r->match = how[i];
			r->work_differs = !same_work(bo, o);
			r->work_ratio = r->work_differs ? work_ratio(bo, o) : NAN;
		} else {
			r->base_name = "";
			r->match = XT_MATCH_ADDED;
		}
	}
	for (i = 0; i < b->nops; i++) {
		const struct xt_op_row *bo = &b->ops[i];
		struct xt_cmp_op *r;

		if (bused[i])
			continue;
		r = &c->ops[c->nops++];
		r->name = r->base_name = arena_strndup(&c->arena, bo->name, strlen(bo->name));
		r->program = arena_strndup(&c->arena, bo->program, strlen(bo->program));
		r->category = arena_strndup(&c->arena, bo->category, strlen(bo->category));
		r->base_ps = op_per(c, bo, c->base_units);
		r->match = XT_MATCH_REMOVED;
		r->new_rank = SIZE_MAX;
	}
	for (i = 0; i < c->nops; i++) {
		struct xt_cmp_op *r = &c->ops[i];

		r->delta_ps = xt_sat_sub(r->new_ps, r->base_ps);
		r->delta_percent = r->base_ps ? 100.0 * (double)r->delta_ps / (double)r->base_ps : NAN;
	}
	if (c->nops > 1)
		qsort(c->ops, c->nops, sizeof(*c->ops), op_delta_cmp);
	strbuf_fini(&k);
	hmap_fini(&exact);
	hmap_fini(&ident);
	free(bused);
	free(nused);
	free(pair);
	free(how);
}

/* Rows of one kind in BASE and NEW (stride bytes apart, their host and key
 * strings at host_off and key_off), paired: the same host and key; else the
 * same key when the hosts were renamed (another capture directory), if one
 * unpaired row on each side has it: of two hosts' GPU:0, neither is a third
 * host's, whichever side has the two. pair[i] is NEW row i's in BASE, or
 * SIZE_MAX; bused[j] is set for BASE's rows taken. */
struct pair_rows {
	size_t stride, host_off, key_off;
};

static const char *pr_str(const struct pair_rows *pr, const void *rows, size_t i, size_t off)
{
	return *(const char *const *)((const char *)rows + i * pr->stride + off);
}

static void pair_rows(const struct pair_rows *pr, const void *brows, size_t nb, const void *nrows,
		      size_t nn, size_t *pair, uint8_t *bused)
{
	size_t i, j;

	for (i = 0; i < nn; i++) {
		pair[i] = SIZE_MAX;
		for (j = 0; j < nb && pair[i] == SIZE_MAX; j++)
			if (!bused[j] &&
			    !strcmp(pr_str(pr, brows, j, pr->key_off), pr_str(pr, nrows, i, pr->key_off)) &&
			    !strcmp(pr_str(pr, brows, j, pr->host_off), pr_str(pr, nrows, i, pr->host_off))) {
				pair[i] = j;
				bused[j] = 1;
			}
	}
	for (i = 0; i < nn; i++) {
		const char *key = pr_str(pr, nrows, i, pr->key_off);
		size_t sb = 0, sn = 0, hit = SIZE_MAX;

		if (pair[i] != SIZE_MAX)
			continue;
		for (j = 0; j < nb; j++)
			if (!bused[j] && !strcmp(pr_str(pr, brows, j, pr->key_off), key)) {
				sb++;
				hit = j;
			}
		for (j = 0; j < nn; j++)
			sn += pair[j] == SIZE_MAX && !strcmp(pr_str(pr, nrows, j, pr->key_off), key);
		if (sb == 1 && sn == 1) {
			pair[i] = hit;
			bused[hit] = 1;
		}
	}
}

static void match_devices(struct xt_cmp *c, const struct xt_analysis *b, const struct xt_analysis *n)
{
	static const struct pair_rows pr = { sizeof(struct xt_device_row),
					     offsetof(struct xt_device_row, host),
					     offsetof(struct xt_device_row, name) };
	uint8_t *bused = xcalloc(b->ndevices ? b->ndevices : 1, 1);
	size_t *pair = xcalloc(n->ndevices ? n->ndevices : 1, sizeof(*pair));
	size_t i, j;

	pair_rows(&pr, b->devices, b->ndevices, n->devices, n->ndevices, pair, bused);
	c->devs = xcalloc(b->ndevices + n->ndevices + 1, sizeof(*c->devs));
	for (i = 0; i < n->ndevices; i++) {
		const struct xt_device_row *d = &n->devices[i];
		struct xt_cmp_dev *r = &c->devs[c->ndevs++];
		size_t hit = pair[i];

		r->host = arena_strndup(&c->arena, d->host, strlen(d->host));
		r->name = arena_strndup(&c->arena, d->name, strlen(d->name));
		r->in_new = 1;
		r->new_known = !xt_device_silent(d);
		r->new_busy_ps = d->busy_ps;
		r->new_idle_percent = d->idle_percent;
		if (hit != SIZE_MAX) {
			r->in_base = 1;
			r->base_known = !xt_device_silent(&b->devices[hit]);
			r->base_busy_ps = b->devices[hit].busy_ps;
			r->base_idle_percent = b->devices[hit].idle_percent;
		}
	}
	for (j = 0; j < b->ndevices; j++) {
		struct xt_cmp_dev *r;

		if (bused[j])
			continue;
		r = &c->devs[c->ndevs++];
		r->host = arena_strndup(&c->arena, b->devices[j].host, strlen(b->devices[j].host));
		r->name = arena_strndup(&c->arena, b->devices[j].name, strlen(b->devices[j].name));
		r->in_base = 1;
		r->base_known = !xt_device_silent(&b->devices[j]);
		r->base_busy_ps = b->devices[j].busy_ps;
		r->base_idle_percent = b->devices[j].idle_percent;
	}
	free(pair);
	free(bused);
}

static void match_memory(struct xt_cmp *c, const struct xt_analysis *b, const struct xt_analysis *n)
{
	static const struct pair_rows pr = { sizeof(struct xt_memory_row),
					     offsetof(struct xt_memory_row, host),
					     offsetof(struct xt_memory_row, allocator) };
	uint8_t *bused = xcalloc(b->nmemory ? b->nmemory : 1, 1);
	size_t *pair = xcalloc(n->nmemory ? n->nmemory : 1, sizeof(*pair));
	size_t i, j;

	pair_rows(&pr, b->memory, b->nmemory, n->memory, n->nmemory, pair, bused);
	c->mem = xcalloc(b->nmemory + n->nmemory + 1, sizeof(*c->mem));
	for (i = 0; i < n->nmemory; i++) {
		const struct xt_memory_row *m = &n->memory[i];
		struct xt_cmp_mem *r = &c->mem[c->nmem++];
		size_t hit = pair[i];

		r->host = arena_strndup(&c->arena, m->host, strlen(m->host));
		r->allocator = arena_strndup(&c->arena, m->allocator, strlen(m->allocator));
		r->name = arena_strndup(&c->arena, m->name, strlen(m->name));
		r->in_new = 1;
		r->new_peak = m->peak_bytes;
		if (hit != SIZE_MAX) {
			r->in_base = 1;
			r->base_peak = b->memory[hit].peak_bytes;
		}
	}
	for (j = 0; j < b->nmemory; j++) {
		const struct xt_memory_row *m = &b->memory[j];
		struct xt_cmp_mem *r;

		if (bused[j])
			continue;
		r = &c->mem[c->nmem++];
		r->host = arena_strndup(&c->arena, m->host, strlen(m->host));
		r->allocator = arena_strndup(&c->arena, m->allocator, strlen(m->allocator));
		r->name = arena_strndup(&c->arena, m->name, strlen(m->name));
		r->in_base = 1;
		r->base_peak = m->peak_bytes;
	}
	free(pair);
	free(bused);
}

const char *compare_busy_summed(const struct xt_cmp *c, char *buf, size_t n)
{
	size_t k, nb = 0, nn = 0;

	for (k = 0; k < c->ndevs; k++) {
		nb += c->devs[k].in_base && c->devs[k].base_busy_ps > 0;
		nn += c->devs[k].in_new && c->devs[k].new_busy_ps > 0;
	}
	if (c->busy.has && (nb > 1 || nn > 1))
		snprintf(buf, n, "summed over %zu device%s -> %zu", nb, nb == 1 ? "" : "s", nn);
	else if (n)
		buf[0] = '\0';
	return buf;
}

struct xt_cmp *compare_new(const struct xt_analysis *b, const struct xt_analysis *n)
{
	struct xt_cmp *c = xcalloc(1, sizeof(*c));
	int both = b->nsteps && n->nsteps, alike;
	size_t i;

	arena_init(&c->arena);
	c->base_steps = b->nsteps;
	c->new_steps = n->nsteps;
	c->base_units = step_units(b);
	c->new_units = step_units(n);
	c->base_source = b->steps_source;
	c->new_source = n->steps_source;
	alike = both && b->steps_source == n->steps_source &&
		(b->steps_source != XT_STEPS_INFERRED || !strcmp(b->steps_module, n->steps_module));
	c->base_module = arena_strndup(&c->arena, b->steps_module, strlen(b->steps_module));
	c->new_module = arena_strndup(&c->arena, n->steps_module, strlen(n->steps_module));
	c->per_step = alike;
	c->per_occurrence = both && !alike;
	c->step_mean = num(step_mean(b), step_mean(n), alike);
	c->step_p50 = num((double)analysis_step_percentile(b, 50),
			  (double)analysis_step_percentile(n, 50), alike);
	c->step_p95 = num((double)analysis_step_percentile(b, 95),
			  (double)analysis_step_percentile(n, 95), alike);
	c->busy = num((double)per(c, b->busy_ps, c->base_units), (double)per(c, n->busy_ps, c->new_units),
		      !c->per_occurrence);
	/* A side without device events has no busy time to compare: not 0
	 * (NEW's "-100 %" read as an improvement). The gate still sees the
	 * values (no_device_time). */
	if (c->busy.has && (!analysis_has_device_time(b) || !analysis_has_device_time(n))) {
		c->busy.has = 0;
		c->busy.sides = analysis_has_device_time(b) | analysis_has_device_time(n) << 1;
		c->busy.delta_percent = NAN;
	}
	match_ops(c, b, n);
	for (i = 0; i < c->nops && *c->ops[i].program; i++)
		if (strcmp(c->ops[i].program, c->ops[0].program))
			break;
	c->program = c->nops && i == c->nops ? c->ops[0].program : NULL;
	match_devices(c, b, n);
	match_memory(c, b, n);
	return c;
}

const char *compare_steps_kind(char *buf, size_t n, enum xt_steps_source s, const char *module)
{
	if (s == XT_STEPS_INFERRED)
		snprintf(buf, n, "inferred runs of %s", module);
	else
		snprintf(buf, n, "%s", s == XT_STEPS_DEVICE ? "device Steps lines" : "host step markers");
	return buf;
}

void compare_free(struct xt_cmp *c)
{
	if (!c)
		return;
	free(c->ops);
	free(c->devs);
	free(c->mem);
	arena_fini(&c->arena);
	free(c);
}

/* What " (was OLD)" says of an op matched under another name: the base's
 * name from where the two differ, cut at a separator (".12" of
 * "fusion.12"); NULL when the label has none. */
static const char *label_was(const struct xt_cmp_op *o)
{
	size_t k = 0, cut = 0;

	if ((o->match != XT_MATCH_IDENTITY && o->match != XT_MATCH_WORK) ||
	    !strcmp(o->base_name, o->name))
		return NULL;
	while (o->name[k] && o->name[k] == o->base_name[k]) {
		if (strchr("._/-", o->name[k]))
			cut = k;
		k++;
	}
	return o->base_name + cut;
}

void compare_op_label(const struct xt_cmp_op *o, char *buf, size_t n)
{
	const char *sep = *o->program ? "/" : "", *was = label_was(o);

	if (!was)
		snprintf(buf, n, "%s%s%s", o->program, sep, o->name);
	else
		snprintf(buf, n, "%s%s%s (was %s)", o->program, sep, o->name, was);
}

void compare_op_label_fit(const struct xt_cmp_op *o, char *buf, size_t n, int w,
			  const char *mark, int with_program)
{
	const char *prog = with_program ? o->program : "", *sep = *prog ? "/" : "";
	const char *was = label_was(o);
	int head, room;
	size_t cap;
	char *e;

	/* PROGRAM/NAME's columns, then " (was " and ")" around OLD. */
	head = utf8_width(prog) + (int)strlen(sep) + utf8_width(o->name);
	if (!was || !w || head + 7 + utf8_width(was) <= w) {
		if (!was)
			snprintf(buf, n, "%s%s%s", prog, sep, o->name);
		else
			snprintf(buf, n, "%s%s%s (was %s)", prog, sep, o->name, was);
		return;
	}
	/* An elision is no longer than its text and the mark. */
	cap = strlen(was) + strlen(mark) + 1;
	e = xmalloc(cap);
	if ((room = w - head - 7) >= 6)
		snprintf(buf, n, "%s%s%s (was %s)", prog, sep, o->name,
			 utf8_elide(e, cap, was, room, mark));
	else if ((room = w - utf8_width(o->name) - 7) >= 4)
		/* The program gives way too: the name and as much of OLD. */
		snprintf(buf, n, "%s (was %s)", o->name, utf8_elide(e, cap, was, room, mark));
	else
		snprintf(buf, n, "%s", o->name);
	free(e);
}
