/*
 * an_cmdbuf: which instruction each kernel of one CUDA command buffer run
 * belongs to (docs/analyses.md, "Op profile", command buffers).
 *
 * Inside a command buffer every kernel carries the graph launch's hlo_op,
 * so only its name says what it is, and names mislead in two ways seen on
 * every real JAX profile: XLA compiles identical fusions once and launches
 * the first one's kernel for all of them (`fusion_153` runs for fusion.153
 * and fusion.148), and library calls (cuBLAS's `nvjet_...`, a `Memset`
 * before it) name no instruction. The run's order settles both: a command
 * buffer replays a contiguous stretch of the program's schedule, one
 * instruction after another (of the entry, or of a while loop's body:
 * the computation that holds most of the run's kernels by name). So the
 * kernels whose names fit that schedule in order (the longest such chain)
 * are anchors, and each stretch of kernels between two anchors is matched
 * with the instructions between them: a fusion takes one fusion kernel or
 * a copy (a dynamic slice runs as one), a group of other instructions
 * (library calls) the run of non-fusion kernels, one each after any
 * memsets when there are several. A stretch that does not parse exactly
 * keeps the name rule. Reads only the module: no analysis state.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"

enum { EDGE_MAX = 256 }; /* kernels before the first or after the last anchor */

struct cb_ctx {
	const struct hlo_module *m;
	const uint32_t *seq;
	size_t ns;
	const uint8_t *fusion_like; /* the kernel's name is some instruction's kernel */
	const uint8_t *memset;      /* a memset node (a library call's prelude) */
	const uint8_t *memcpy;      /* a copy node (a fusion run as a copy) */
};

static int is_fusion(const struct cb_ctx *x, size_t ii)
{
	return !strcmp(x->m->inst[x->seq[ii]].opcode, "fusion");
}

/*
 * Matches kernels [a, b) with launch-sequence instructions [c, d), every one
 * of them used; tmp[k - a] gets kernel k's instruction. Returns 1 when the
 * stretch parses exactly.
 */
static int cb_parse(const struct cb_ctx *x, size_t a, size_t b, size_t c, size_t d,
		    uint32_t *tmp)
{
	size_t ki = a, ii = c;

	while (ii < d) {
		size_t jj = ii, kj = ki, k, nm = 0, t;

		if (is_fusion(x, ii)) {
			if (ki >= b || !(x->fusion_like[ki] || x->memcpy[ki]))
				return 0;
			tmp[ki++ - a] = x->seq[ii++];
			continue;
		}
		while (jj < d && !is_fusion(x, jj))
			jj++;
		while (kj < b && !x->fusion_like[kj])
			nm += !x->memset[kj++];
		if (kj > ki && jj - ii > 1 && nm != jj - ii)
			return 0; /* several calls, kernels that do not split one each */
		for (k = ki, t = ii; k < kj; k++) {
			tmp[k - a] = x->seq[t];
			if (!x->memset[k] && t + 1 < jj)
				t++;
		}
		ii = jj;
		ki = kj;
	}
	return ki == b;
}

static void cb_commit(const uint32_t *name_rule, size_t a, size_t b, const uint32_t *tmp,
		      uint32_t *out, uint8_t *by_order)
{
	size_t k;

	for (k = a; k < b; k++) {
		out[k] = tmp[k - a];
		by_order[k] = name_rule[k] != out[k];
	}
}

/* Longest chain of kernels whose positions rise strictly (patience sort,
 * the earliest kernel kept on equal places); anchors gets their kernel
 * indexes in order. Returns the count. */
static size_t cb_anchors(const uint32_t *pos, size_t n, size_t *anchors)
{
	size_t *tail = xmalloc((n ? n : 1) * sizeof(*tail));
	size_t *prev = xmalloc((n ? n : 1) * sizeof(*prev));
	size_t len = 0, i, k;

	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = len;

		if (pos[i] == UINT32_MAX)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pos[tail[mid]] < pos[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The same place again is a reused kernel: XLA names a shared
		 * kernel after the first instruction in schedule order, so the
		 * earliest launch keeps the place. */
		if (lo < len && pos[tail[lo]] == pos[i])
			continue;
		prev[i] = lo ? tail[lo - 1] : SIZE_MAX;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	for (k = len, i = len ? tail[len - 1] : SIZE_MAX; k > 0; k--, i = prev[i])
		anchors[k - 1] = i;
	free(tail);
	free(prev);
	return len;
}

/* The computation whose launch sequence a run replays: the one that holds
 * the places of most of its kernels found by name; on a tie the hint (the
 * command buffer's own computation, or the entry), else the first met. */
static uint32_t cb_comp(uint32_t hint, const struct hlo_inst **own, size_t n)
{
	uint32_t *comp = xmalloc((n ? n : 1) * sizeof(*comp)), best = hint;
	size_t *cnt = xmalloc((n ? n : 1) * sizeof(*cnt)), nc = 0, bestn = 0, i, j;

	for (i = 0; i < n; i++) {
		uint32_t c = own[i] ? own[i]->seq_comp : UINT32_MAX;

		if (c == UINT32_MAX)
			continue;
		for (j = 0; j < nc && comp[j] != c; j++)
			;
		if (j == nc) {
			comp[nc] = c;
			cnt[nc++] = 0;
		}
		cnt[j]++;
	}
	for (j = 0; j < nc; j++)
		if (cnt[j] > bestn || (cnt[j] == bestn && comp[j] == hint)) {
			best = comp[j];
			bestn = cnt[j];
		}
	free(comp);
	free(cnt);
	return best;
}

void cmdbuf_resolve(const struct hlo_module *m, uint32_t comp, const struct bytes_ref *kn,
		    size_t n, uint32_t *out, uint8_t *by_order)
{
	struct cb_ctx x;
	const struct hlo_inst **own;
	uint32_t *pos, *name_rule, *tmp;
	uint8_t *fl, *ms, *mc;
	size_t *anc, na, i, j;

	for (i = 0; i < n; i++) {
		out[i] = UINT32_MAX;
		by_order[i] = 0;
	}
	if (!n)
		return;
	own = xmalloc(n * sizeof(*own));
	for (i = 0; i < n; i++)
		own[i] = hlo_find_kernel(m, kn[i].p, kn[i].n);
	comp = cb_comp(comp, own, n);
	x.m = m;
	x.seq = comp < m->ncomp ? hlo_launch_seq(m, comp, &x.ns) : NULL;
	if (!x.seq || !x.ns) {
		free(own);
		return;
	}
	pos = xmalloc(n * sizeof(*pos));
	name_rule = xmalloc(n * sizeof(*name_rule));
	tmp = xmalloc(n * sizeof(*tmp));
	fl = xmalloc(n);
	ms = xmalloc(n);
	mc = xmalloc(n);
	anc = xmalloc(n * sizeof(*anc));
	for (i = 0; i < n; i++) {
		const struct hlo_inst *in = own[i];

		fl[i] = in != NULL;
		name_rule[i] = in ? (uint32_t)(in - m->inst) : UINT32_MAX;
		pos[i] = in && in->seq_comp == comp ? in->seq_pos : UINT32_MAX;
		ms[i] = kn[i].n >= 6 && !memcmp(kn[i].p, "Memset", 6);
		mc[i] = kn[i].n >= 6 && (!memcmp(kn[i].p, "memcpy", 6) || !memcmp(kn[i].p, "Memcpy", 6));
	}
	x.fusion_like = fl;
	x.memset = ms;
	x.memcpy = mc;
	na = cb_anchors(pos, n, anc);
	for (j = 0; j < na; j++)
		out[anc[j]] = x.seq[pos[anc[j]]];
	for (j = 0; j + 1 < na; j++) {
		size_t a = anc[j] + 1, b = anc[j + 1];

		if (a < b && cb_parse(&x, a, b, pos[anc[j]] + 1, pos[anc[j + 1]], tmp))
			cb_commit(name_rule, a, b, tmp, out, by_order);
	}
	/* Before the first anchor and after the last, the run's stretch of
	 * the schedule ends somewhere unknown: take the fewest instructions
	 * next to the anchor that parse. */
	if (na && anc[0] > 0 && anc[0] <= EDGE_MAX) {
		size_t b = anc[0], d = pos[b], c;

		for (c = d; c-- > 0 && d - c <= 2 * b + 2;)
			if (cb_parse(&x, 0, b, c, d, tmp)) {
				cb_commit(name_rule, 0, b, tmp, out, by_order);
				break;
			}
	}
	if (na && anc[na - 1] + 1 < n && n - anc[na - 1] - 1 <= EDGE_MAX) {
		size_t a = anc[na - 1] + 1, c = pos[anc[na - 1]] + 1, d;

		for (d = c + 1; d <= x.ns && d - c <= 2 * (n - a) + 2; d++)
			if (cb_parse(&x, a, n, c, d, tmp)) {
				cb_commit(name_rule, a, n, tmp, out, by_order);
				break;
			}
	}
	/* Outside a parsed stretch: the name rule (out stays UINT32_MAX). */
	free(own);
	free(pos);
	free(name_rule);
	free(tmp);
	free(fl);
	free(ms);
	free(mc);
	free(anc);
}
