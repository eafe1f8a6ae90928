/*
 * an_kernels: GPU kernel stats (docs/analyses.md, "Kernel stats") from the
 * `kernel_details` stat that CUPTI/roctracer attach to kernel events.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"

static int64_t parse_i64(const char *p, const char *end, const char **out)
{
	int64_t v = 0;
	int neg = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		/* Saturates: a hostile run of digits is impossible, not UB. */
		v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (*p - '0');
		p++;
	}
	*out = p;
	return neg ? -v : v;
}

static void parse_dim3(const char *p, const char *end, uint32_t d[3])
{
	int i;

	d[0] = d[1] = d[2] = 1;
	for (i = 0; i < 3 && p < end; i++) {
		const char *q;

		d[i] = (uint32_t)parse_i64(p, end, &q);
		if (q < end && *q == ',')
			q++;
		else
			break;
		p = q;
	}
}

int kernel_details_parse(const char *s, size_t n, uint32_t grid[3], uint32_t block[3],
			 int64_t *regs, int64_t *shared, double *occ, unsigned *bad)
{
	const char *p, *end;
	int64_t st = 0, dyn = 0, group = 0;
	int have_st = 0, have_dyn = 0, have_group = 0, seen = 0;

	if (!n)
		s = ""; /* an empty value may come as no pointer at all */
	p = s;
	end = s + n;

	grid[0] = grid[1] = grid[2] = 1;
	block[0] = block[1] = block[2] = 1;
	*regs = -1;
	*occ = NAN;
	*bad = 0;
	while (p < end) {
		const char *tok, *colon, *val;

		while (p < end && (*p == ' ' || *p == '\n' || *p == '\t'))
			p++;
		tok = p;
		while (p < end && *p != ' ' && *p != '\n' && *p != '\t')
			p++;
		colon = memchr(tok, ':', (size_t)(p - tok));
		if (!colon)
			continue;
		val = colon + 1;
#define KEY(k) ((size_t)(colon - tok) == sizeof(k) - 1 && !memcmp(tok, k, sizeof(k) - 1))
		if (KEY("regs")) {
			*regs = parse_i64(val, p, &val);
		} else if (KEY("static_shared") || KEY("shm")) {
			/* "shm": older TensorFlow's name for it */
			st = parse_i64(val, p, &val);
			have_st = 1;
		} else if (KEY("dynamic_shared")) {
			dyn = parse_i64(val, p, &val);
			have_dyn = 1;
		} else if (KEY("group_mem")) {
			group = parse_i64(val, p, &val);
			have_group = 1;
		} else if (KEY("grid")) {
			parse_dim3(val, p, grid);
		} else if (KEY("block")) {
			parse_dim3(val, p, block);
		} else if (KEY("occ_pct")) {
			char buf[32];
			size_t k = (size_t)(p - val) < sizeof(buf) - 1 ? (size_t)(p - val)
								       : sizeof(buf) - 1;

			memcpy(buf, val, k);
			buf[k] = '\0';
			*occ = strtod(buf, NULL);
			/* A kernel that ran had some occupancy: ROCm writes 0
			 * when it has none to report. */
			if (!(*occ > 0 && *occ <= 100)) {
				*occ = NAN;
				*bad |= XT_KD_BAD_OCC;
			}
		} else {
			continue;
		}
#undef KEY
		seen++;
	}
	/* A block's shared memory is its static and its dynamic parts. One
	 * alone is not it: TensorFlow's CUDA tracer (and the older ROCm one)
	 * writes `shm`, the static part, and never records the dynamic part,
	 * which cuDNN's and cuBLAS's kernels use. ROCm's group_mem is the
	 * whole. Parts out of range are impossible, not partial. */
	if (have_st && have_dyn)
		*shared = st >= 0 && dyn >= 0 && st <= (1 << 20) && dyn <= (1 << 20) ? st + dyn : -2;
	else if (have_group)
		*shared = group;
	else if (have_st || have_dyn)
		*shared = (have_st ? st : dyn) < 0 || (have_st ? st : dyn) > (1 << 20) ? -2 : -1;
	else
		*shared = -1;
	if (*shared == -1 && (have_st || have_dyn) && !have_group)
		*bad |= XT_KD_PART_SHARED;
	/* No GPU gives a thread more than 512 registers, nor a block more
	 * than 1 MiB of shared memory; larger values are garbage and are not
	 * shown. Garbage registers make the shared memory beside them garbage
	 * too: in the MI300X conv profile the two are the halves of a pointer
	 * (regs:2191500840 static_shared:32462, a heap address). */
	if (*regs > 512 || *regs < -1) {
		*regs = -1;
		*bad |= XT_KD_BAD_REGS;
		if (have_st || have_dyn) {
			*shared = -1;
			*bad = (*bad & ~XT_KD_PART_SHARED) | XT_KD_BAD_SHARED;
		}
	}
	if (*shared < -1 || *shared > (1 << 20) ||
	    (*shared == -1 && !(*bad & XT_KD_PART_SHARED) && (have_st || have_dyn || have_group))) {
		*shared = -1;
		*bad |= XT_KD_BAD_SHARED;
	}
	return seen;
}

static void kernel_row_add(struct kern_acc *a, int64_t dur)
{
	a->occurrences++;
	a->total_ps = xt_sat_add(a->total_ps, dur);
	if (dur < a->min_ps)
		a->min_ps = dur;
	if (dur > a->max_ps)
		a->max_ps = dur;
}

/* A row's key: the launch parameters (occupancy is a property of the
 * launch shape, not a key), then who: the kernel's metadata index on a
 * line (one plane, so one index is one name: a short key to hash for
 * every launch), its name across lines (at the merge, once per row); then
 * the op's program and the op. A key longer than buf goes to the heap: the caller frees it
 * when it is not buf. */
static char *kern_key(const struct kern_acc *k, const void *who, size_t nwho, char *buf,
		      size_t nbuf, size_t *len)
{
	size_t need = sizeof(k->grid) + sizeof(k->block) + 16 + nwho + 1 + 9 + k->module.n + 1 +
		      k->op.n,
	       o = 0;
	char *kb = need <= nbuf ? buf : xmalloc(need);

	memcpy(kb + o, k->grid, sizeof(k->grid));
	o += sizeof(k->grid);
	memcpy(kb + o, k->block, sizeof(k->block));
	o += sizeof(k->block);
	memcpy(kb + o, &k->regs, 8);
	o += 8;
	memcpy(kb + o, &k->shared, 8);
	o += 8;
	memcpy(kb + o, who, nwho);
	o += nwho;
	kb[o++] = '\0';
	kb[o++] = (char)k->has_program;
	memcpy(kb + o, &k->program_id, 8);
	o += 8;
	if (k->module.n)
		memcpy(kb + o, k->module.p, k->module.n);
	o += k->module.n;
	kb[o++] = '\0';
	if (k->op.n)
		memcpy(kb + o, k->op.p, k->op.n);
	*len = o + k->op.n;
	return kb;
}

/* The row of k's key (launch, metadata index, op) on the line, added (to
 * be filled by the caller) when *ins. */
static uint32_t *kern_row_find(struct line_part *lp, const struct kern_acc *k, int *ins)
{
	char key[256], *kb;
	size_t len;
	uint32_t *v;

	kb = kern_key(k, &k->meta, sizeof(k->meta), key, sizeof(key), &len);
	v = hmap_get(&lp->kern_index, kb, len, (uint32_t)lp->nkerns, ins);
	if (kb != key)
		free(kb);
	if (*ins) {
		if (lp->nkerns == lp->capkerns) {
			lp->capkerns = lp->capkerns ? lp->capkerns * 2 : 16;
			lp->kerns = xreallocarray(lp->kerns, lp->capkerns, sizeof(*lp->kerns));
		}
		lp->nkerns++;
	}
	return v;
}

void kernels_join(struct line_part *lp, const struct line_part *src)
{
	size_t r;

	for (r = 0; r < src->nkerns; r++) {
		const struct kern_acc *k = &src->kerns[r];
		uint32_t *v;
		int ins;

		v = kern_row_find(lp, k, &ins);
		if (ins) {
			lp->kerns[*v] = *k;
		} else {
			struct kern_acc *a = &lp->kerns[*v];

			a->occurrences += k->occurrences;
			a->total_ps = xt_sat_add(a->total_ps, k->total_ps);
			if (k->min_ps < a->min_ps)
				a->min_ps = k->min_ps;
			if (k->max_ps > a->max_ps)
				a->max_ps = k->max_ps;
		}
	}
}

/* The memo slot of (gen, op): its entry, or the empty slot where it goes
 * (linear probing; the table is at most half full). */
static struct kern_memo *kmemo_slot(const struct line_part *lp, uint32_t gen, uint32_t slot)
{
	uint64_t h = ((uint64_t)gen << 32 ^ slot) * UINT64_C(0x9e3779b97f4a7c15);
	size_t i = (size_t)(h >> 32) & lp->kmemo_mask;

	for (;; i = (i + 1) & lp->kmemo_mask) {
		struct kern_memo *m = &lp->kmemo[i];

		if (!m->gen || (m->gen == gen && m->slot == slot))
			return m;
	}
}

static void kmemo_grow(struct line_part *lp)
{
	struct kern_memo *old = lp->kmemo;
	size_t n = lp->kmemo_mask + 1, i;

	lp->kmemo_mask = 2 * n - 1;
	lp->kmemo = xcalloc(2 * n, sizeof(*lp->kmemo));
	for (i = 0; i < n; i++)
		if (old[i].gen)
			*kmemo_slot(lp, old[i].gen, old[i].slot) = old[i];
	free(old);
}

int analysis_launch_shape(const struct xt_trace *t, size_t host, const struct xt_plane *p,
			  const struct xt_line *l, const struct xt_event *ev, uint32_t grid[3],
			  uint32_t block[3], int64_t *regs, int64_t *shared)
{
	struct xt_known_stats ks;
	double occ;
	unsigned bad;

	memset(grid, 0, 3 * sizeof(*grid));
	memset(block, 0, 3 * sizeof(*block));
	*regs = *shared = -1;
	if (host >= t->nhosts)
		return 0;
	stat_collect(&ks, &t->hosts[host], p, l, ev, 1ull << XS_KERNEL_DETAILS);
	if (!stat_has(&ks, XS_KERNEL_DETAILS) || !ks.v[XS_KERNEL_DETAILS].s)
		return 0;
	kernel_details_parse(ks.v[XS_KERNEL_DETAILS].s, ks.v[XS_KERNEL_DETAILS].n, grid, block,
			     regs, shared, &occ, &bad);
	return 1;
}

void kernels_event(struct line_part *lp, const struct xt_plane *p, const struct xt_event *ev,
		   int64_t dur, uint32_t slot, struct bytes_ref details)
{
	const struct op_acc *oa = &lp->ops[slot];
	struct kern_acc k;
	uint32_t mi = xt_event_meta_index(ev);
	struct kd_cache *set, *c;
	struct kern_memo *memo;
	size_t nkd = (size_t)(p->nemeta ? p->nemeta : 1) * KD_WAYS; /* parses kept */
	int w;
	uint32_t *v;
	int ins;

	/* Launches of one kernel repeat a few details texts (one per launch
	 * shape): each is parsed once while it recurs. */
	if (!lp->kd) {
		lp->kd = xcalloc(nkd, sizeof(*lp->kd));
		lp->kmemo_mask = 255;
		lp->kmemo_n = 0;
		lp->kmemo = xcalloc(lp->kmemo_mask + 1, sizeof(*lp->kmemo));
	}
	set = &lp->kd[(size_t)mi * KD_WAYS];
	for (w = 0, c = NULL; w < KD_WAYS && set[w].p; w++)
		if (set[w].n == details.n && (!details.n || set[w].p == details.p ||
					      !memcmp(set[w].p, details.p, details.n))) {
			if (w) {
				/* To the front: the next launch likely has it
				 * too (memos follow its gen, not its way). */
				struct kd_cache x = set[w];

				memmove(set + 1, set, (size_t)w * sizeof(*set));
				set[0] = x;
			}
			c = &set[0];
			break;
		}
	if (!c) {
		if (lp->kd_gen == UINT32_MAX) {
			/* Parse numbers run out: every memo and parse is
			 * forgotten, so none may claim a number again. */
			memset(lp->kd, 0, nkd * sizeof(*lp->kd));
			memset(lp->kmemo, 0, (lp->kmemo_mask + 1) * sizeof(*lp->kmemo));
			lp->kmemo_n = 0;
			lp->kd_gen = 0;
		}
		/* A free way, else the oldest parse. */
		for (w = 0, c = &set[0]; w < KD_WAYS; w++) {
			if (!set[w].p) {
				c = &set[w];
				break;
			}
			if (set[w].gen < c->gen)
				c = &set[w];
		}
		kernel_details_parse(details.p, details.n, c->grid, c->block, &c->regs,
				     &c->shared, &c->occ, &c->bad);
		c->p = details.p;
		c->n = details.n;
		c->gen = ++lp->kd_gen;
	}
	/* Same parse (kernel and launch shape), same op: same row. */
	memo = kmemo_slot(lp, c->gen, slot);
	if (memo->gen) {
		kernel_row_add(&lp->kerns[memo->row], dur);
		return;
	}
	memset(&k, 0, sizeof(k));
	memcpy(k.grid, c->grid, sizeof(k.grid));
	memcpy(k.block, c->block, sizeof(k.block));
	k.regs = c->regs;
	k.shared = c->shared;
	k.occ = c->occ;
	k.bad = (uint8_t)c->bad;
	k.op = oa->name;
	k.module = oa->module;
	k.program_id = oa->program_id;
	k.has_program = oa->has_program;
	k.key_has = oa->key_has;
	k.meta = mi;
	v = kern_row_find(lp, &k, &ins);
	if (ins) {
		k.name = bref_str(xt_event_meta(p, ev)->name);
		k.min_ps = INT64_MAX;
		lp->kerns[*v] = k;
	}
	lp->kerns[*v].bad |= k.bad;
	kernel_row_add(&lp->kerns[*v], dur);
	*memo = (struct kern_memo){ c->gen, *v, slot };
	if (++lp->kmemo_n * 2 > lp->kmemo_mask)
		kmemo_grow(lp);
}

static int kernel_row_cmp(const void *x, const void *y)
{
	const struct xt_kernel_row *a = x, *b = y;
	int c;

	if (a->total_ps != b->total_ps)
		return a->total_ps > b->total_ps ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	if ((c = strcmp(a->op, b->op)))
		return c;
	if ((c = strcmp(a->program, b->program)))
		return c;
	if ((c = memcmp(a->grid, b->grid, sizeof(a->grid))))
		return c;
	return memcmp(a->block, b->block, sizeof(a->block));
}

const char *analysis_kernel_op(const struct xt_kernel_row *k, char *buf, size_t n)
{
	if (k->op_shared && *k->program)
		snprintf(buf, n, "%s/%s", k->program, k->op);
	else
		snprintf(buf, n, "%s", k->op);
	return buf;
}

/* Rows by kernel, op, program, then grid and block. */
static int apart_cmp(const void *x, const void *y)
{
	const struct xt_kernel_row *a = *(const struct xt_kernel_row *const *)x;
	const struct xt_kernel_row *b = *(const struct xt_kernel_row *const *)y;
	int r = strcmp(a->name, b->name);

	if (!r)
		r = strcmp(a->op, b->op);
	if (!r)
		r = strcmp(a->program, b->program);
	if (!r)
		r = memcmp(a->grid, b->grid, sizeof(a->grid));
	return r ? r : memcmp(a->block, b->block, sizeof(a->block));
}

/* The note on a kernel's absent figures (registers, shared memory,
 * occupancy: absent[i]), by why each is (bad, XT_KD_*). */
static char *kernel_note(const int absent[3], unsigned bad, char *b, size_t n)
{
	static const struct {
		unsigned bit;
		const char *what, *bad;
	} fig[] = {
		{ XT_KD_BAD_REGS, "registers", "above 512, or negative" },
		{ XT_KD_BAD_SHARED, "shared memory", "above 1 MiB, or beside impossible registers" },
		{ XT_KD_BAD_OCC, "occupancy", "not in (0, 100]" },
	};
	size_t i, o = 0;

	if (n)
		b[0] = '\0';
	for (i = 0; i < 3; i++) {
		int w;

		if (!absent[i])
			continue;
		if (bad & fig[i].bit)
			w = snprintf(b + o, n - o, "%s%s: impossible in its kernel_details (%s)",
				     o ? "; " : "", fig[i].what, fig[i].bad);
		else if (i == 1 && (bad & XT_KD_PART_SHARED))
			w = snprintf(b + o, n - o,
				     "%sshared memory: one part of it in its kernel_details, not the "
				     "whole (TensorFlow's shm is the static part alone)",
				     o ? "; " : "");
		else
			w = snprintf(b + o, n - o, "%s%s: not in its kernel_details", o ? "; " : "",
				     fig[i].what);
		if (w < 0 || (size_t)w >= n - o) {
			b[o] = '\0'; /* whole parts only */
			break;
		}
		o += (size_t)w;
	}
	return b;
}

char *analysis_kernel_note(const struct xt_kernel_row *k, char *b, size_t n)
{
	int absent[3] = { k->registers < 0, k->shared_bytes < 0, isnan(k->occupancy_percent) };

	return kernel_note(absent, k->details_bad, b, n);
}

char *analysis_kernel_details_note(const char *s, size_t len, char *b, size_t n)
{
	uint32_t grid[3], block[3];
	unsigned bad = 0;
	int64_t regs = -1, shared = -1;
	double occ = NAN;
	int wrong[3];

	kernel_details_parse(s, len, grid, block, &regs, &shared, &occ, &bad);
	/* Only what the text gets wrong: a figure it lacks is no news here. */
	wrong[0] = !!(bad & XT_KD_BAD_REGS);
	wrong[1] = !!(bad & (XT_KD_BAD_SHARED | XT_KD_PART_SHARED));
	wrong[2] = !!(bad & XT_KD_BAD_OCC);
	return kernel_note(wrong, bad, b, n);
}

/* Sorted so, rows that differ by their grid within one kernel, op and
 * program have neighbours that do, and rows of one grid that differ by
 * their block likewise: one pass over neighbours, not over every pair
 * (20,000 rows took 0.9 s so, at the viewer's first draw of them). */
void analysis_kernel_cols(const struct xt_analysis *a, size_t n, struct xt_kernel_cols *kc)
{
	const struct xt_kernel_row **v;
	size_t i;

	memset(kc, 0, sizeof(*kc));
	if (n > a->nkernels)
		n = a->nkernels;
	for (i = 0; i < n; i++) {
		kc->regs |= a->kernels[i].registers >= 0;
		kc->shared |= a->kernels[i].shared_bytes >= 0;
		kc->occ |= !isnan(a->kernels[i].occupancy_percent);
		kc->bad |= a->kernels[i].details_bad;
	}
	if (n < 2)
		return;
	v = xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = &a->kernels[i];
	qsort(v, n, sizeof(*v), apart_cmp);
	for (i = 1; i < n; i++) {
		const struct xt_kernel_row *x = v[i - 1], *y = v[i];

		if (strcmp(x->name, y->name) || strcmp(x->op, y->op) ||
		    strcmp(x->program, y->program))
			continue;
		if (memcmp(x->grid, y->grid, sizeof(x->grid)))
			kc->grid_apart = 1;
		else if (memcmp(x->block, y->block, sizeof(x->block)))
			kc->block_apart = 1;
	}
	free(v);
}

void kernels_merge(struct xt_analysis *a, struct xt_trace *t)
{
	struct hmap rows;
	size_t cap = 0, h, p, l, i;

	hmap_init(&rows);
	for (h = 0; h < t->nhosts; h++) {
		struct prog_names pn;

		prog_names_init(&pn, &t->hosts[h]);
		for (p = 0; p < t->hosts[h].nplanes; p++) {
			const struct xt_plane *pl = &t->hosts[h].planes[p];

			for (l = 0; l < pl->nlines; l++) {
				const struct line_part *lp = pl->lines[l].hook_data;

				if (!lp)
					continue;
				for (i = 0; i < lp->nkerns; i++) {
					/* Across lines and hosts, by the program's
					 * name, as the op rows are. */
					struct kern_acc kc = lp->kerns[i];
					const struct kern_acc *k = &kc;
					const char *prog = prog_name(a, &pn, kc.has_program,
								     kc.has_program || kc.key_has,
								     kc.program_id, kc.module);
					struct xt_kernel_row *r;
					uint32_t *v;
					int ins;

					char key[512], *kb;
					size_t len;

					kc.module = bref_str(prog);
					kc.has_program = kc.key_has = 0;
					kc.program_id = 0;
					kb = kern_key(k, k->name.p, k->name.n, key, sizeof(key), &len);
					v = hmap_get(&rows, kb, len, (uint32_t)a->nkernels, &ins);
					if (kb != key)
						free(kb);
					if (ins) {
						if (a->nkernels == cap) {
							cap = cap ? cap * 2 : 32;
							a->kernels = xreallocarray(a->kernels, cap,
										   sizeof(*a->kernels));
						}
						r = &a->kernels[a->nkernels++];
						memset(r, 0, sizeof(*r));
						r->name = arena_bref(&a->arena, k->name);
						r->op = arena_bref(&a->arena, k->op);
						r->program = prog;
						memcpy(r->grid, k->grid, sizeof(r->grid));
						memcpy(r->block, k->block, sizeof(r->block));
						r->registers = k->regs;
						r->shared_bytes = k->shared;
						r->occupancy_percent = k->occ;
						r->min_ps = INT64_MAX;
					}
					r = &a->kernels[*v];
					r->details_bad |= k->bad;
					r->occurrences += k->occurrences;
					r->total_ps = xt_sat_add(r->total_ps, k->total_ps);
					if (k->min_ps < r->min_ps)
						r->min_ps = k->min_ps;
					if (k->max_ps > r->max_ps)
						r->max_ps = k->max_ps;
				}
			}
		}
		prog_names_fini(&pn);
	}
	if (a->nkernels > 1)
		qsort(a->kernels, a->nkernels, sizeof(*a->kernels), kernel_row_cmp);
	hmap_fini(&rows);
	/* Ops of one name in several programs: their rows say which. */
	hmap_init(&rows);
	for (i = 0; i < a->nkernels; i++) {
		struct xt_kernel_row *r = &a->kernels[i];
		uint32_t *v;
		int ins;

		v = hmap_get(&rows, r->op, strlen(r->op), (uint32_t)i, &ins);
		if (!ins && strcmp(a->kernels[*v].program, r->program))
			a->kernels[*v].op_shared = r->op_shared = 1;
	}
	for (i = 0; i < a->nkernels; i++) {
		struct xt_kernel_row *r = &a->kernels[i];
		const uint32_t *v = hmap_find(&rows, r->op, strlen(r->op));

		if (v && a->kernels[*v].op_shared)
			r->op_shared = 1;
	}
	hmap_fini(&rows);
}
