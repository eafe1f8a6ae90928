/*
 * an_attr: which op a GPU kernel belongs to (docs/analyses.md, "Op
 * profile"), and the HLO programs of each host that it is checked against.
 *
 * A kernel names its op in stats: `hlo_op` (XLA; the last element of a
 * "::" stack), `tf_op` or `level 0` (TensorFlow, "scope/name:Type"). Under
 * XLA's CUDA command buffers every kernel of a graph carries the graph
 * launch's hlo_op (`command_buffer_N`), so such kernels are attributed by
 * their own name, which XLA derives from the instruction's. When the
 * profile holds the program's HLO every attribution is checked against it,
 * and a kernel whose op is not an instruction is listed under its kernel
 * name rather than dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "analysis_int.h"
#include "wire.h"

/* "module(123)" -> 123 (program ids are unsigned 64-bit). */
static int program_of_name(const char *n, uint64_t *id)
{
	size_t len = strlen(n);
	const char *open = strrchr(n, '(');
	char *end;

	if (len < 3 || n[len - 1] != ')' || !open || open[1] < '0' || open[1] > '9')
		return 0;
	*id = strtoull(open + 1, &end, 10);
	return end == n + len - 1;
}

static int plane_has_gpu(const struct xt_host *h)
{
	size_t p;

	for (p = 0; p < h->nplanes; p++)
		if (!strncmp(h->planes[p].name, "/device:GPU:", 12) && h->planes[p].nlines)
			return 1;
	return 0;
}

/* Decodes the HLO programs of the host's /host:metadata plane: each event
 * metadata holding a bytes stat "Hlo Proto" (older files: "HLO Proto"). */
static void host_hlo_build(struct host_ctx *hc, const struct xt_host *h)
{
	size_t p, i;

	for (p = 0; p < h->nplanes; p++) {
		const struct xt_plane *pl = &h->planes[p];

		if (strcmp(pl->name, "/host:metadata"))
			continue;
		for (i = 1; i < pl->nemeta; i++) {
			const struct xt_event_meta *m = &pl->emeta[i];
			struct stat_iter it;
			struct xt_stat s;
			uint64_t id;

			if (!program_of_name(m->name, &id))
				id = (uint64_t)m->id;
			stat_iter_meta(&it, h, pl, m);
			while (stat_next(&it, &s)) {
				if (!s.meta || (s.kind != XT_STAT_BYTES && s.kind != XT_STAT_STR))
					continue;
				if (strcmp(s.meta->name, "Hlo Proto") && strcmp(s.meta->name, "HLO Proto"))
					continue;
				(void)hlo_set_add(&hc->hlo, id, (const uint8_t *)s.s, s.n);
				break;
			}
		}
	}
}

struct host_ctx *host_ctx_for(struct analysis_ctx *c, const struct xt_host *h)
{
	struct host_ctx *hc;
	size_t i;

	/* Plane hooks run one host at a time; the mapped source tells hosts
	 * apart (the host struct itself moves when the load completes). */
	for (i = 0; i < c->nhosts; i++)
		if (c->hosts[i]->key == (const void *)h->src.data)
			return c->hosts[i];
	hc = xcalloc(1, sizeof(*hc));
	hc->key = h->src.data;
	hlo_set_init(&hc->hlo);
	if (plane_has_gpu(h))
		host_hlo_build(hc, h);
	c->hosts = xreallocarray(c->hosts, c->nhosts + 1, sizeof(*c->hosts));
	c->hosts[c->nhosts++] = hc;
	return hc;
}

double attr_hbm_bytes(const uint8_t *b, size_t n)
{
	/* MemoryAccessBreakdown { repeated MemoryAccessed memory_accessed = 1 }
	 * with MemoryAccessed { operation_type = 1; memory_space = 2;
	 * bytes_accessed = 3 }; memory space 1 is HBM. */
	struct wire w;
	double hbm = 0;
	int entries = 0;

	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 1 && t == WIRE_LEN) {
			size_t en;
			const uint8_t *e = wire_bytes(&w, &en);
			struct wire ew;
			uint64_t space = 0, bytes = 0;

			wire_init(&ew, e, en);
			while (wire_more(&ew)) {
				uint32_t ef;
				unsigned et = wire_tag(&ew, &ef);

				if (ef == 2 && et == WIRE_VARINT)
					space = wire_varint(&ew);
				else if (ef == 3 && et == WIRE_VARINT)
					bytes = wire_varint(&ew);
				else
					wire_skip(&ew, et);
			}
			if (ew.bad)
				return -1;
			entries++;
			if (space == 1)
				hbm += (double)bytes;
		} else {
			wire_skip(&w, t);
		}
	}
	return w.bad || !entries ? -1 : hbm;
}

struct bytes_ref attr_last_scope(struct bytes_ref r)
{
	size_t i;

	for (i = r.n; i >= 2; i--)
		if (r.p[i - 1] == ':' && r.p[i - 2] == ':')
			return bref(r.p + i, r.n - i);
	return r;
}

/* command_buffer, command_buffer.3, command_buffer_12 */
static int looks_like_command_buffer(struct bytes_ref op)
{
	struct bytes_ref base = category_from_name(op);

	return base.n == 14 && !memcmp(base.p, "command_buffer", 14);
}

int xt_name_command_buffer(const char *s, size_t n)
{
	return looks_like_command_buffer(bref(s, n));
}

struct bytes_ref attr_kernel_name(const struct xt_event_meta *m)
{
	size_t n = strlen(m->name);

	if (n > 3 && !memcmp(m->name + n - 3, ".kd", 3))
		n -= 3;
	return bref(m->name, n);
}

struct bytes_ref attr_hlo_category(const struct hlo_inst *in)
{
	static const struct {
		const char *kind, *cat;
	} fk[] = { { "kLoop", "loop fusion" }, { "kInput", "input fusion" },
		   { "kOutput", "output fusion" }, { "kCustom", "custom fusion" } };
	size_t i;

	if (!strcmp(in->opcode, "fusion")) {
		for (i = 0; i < sizeof(fk) / sizeof(fk[0]); i++)
			if (!strcmp(in->fusion_kind, fk[i].kind))
				return bref_str(fk[i].cat);
		return bref_str("fusion");
	}
	if (!strcmp(in->opcode, "custom-call")) {
		if (!strncmp(in->custom_call_target, "__cublas$", 9))
			return bref_str("gemm");
		if (!strncmp(in->custom_call_target, "__cudnn$conv", 12))
			return bref_str("convolution");
		return bref_str("custom-call");
	}
	return bref_str(in->opcode);
}

/* Where a command buffer's kernels come from: the computation that the
 * command buffer instruction in calls, else (XLA converts thunks, not HLO,
 * into command buffers, so the hlo_op names no instruction) the entry. */
static void cb_where(struct gpu_attr *ga, const struct hlo_module *mod, const struct hlo_inst *in)
{
	uint32_t c = UINT32_MAX, i;
	size_t n;

	if (in) {
		for (i = 0; i < in->called.n && c == UINT32_MAX; i++) {
			const uint32_t *v = hmap_find(&mod->comp_by_id, &mod->ints[in->called.at + i],
						      sizeof(int64_t));

			if (v)
				c = *v;
		}
	} else {
		c = hlo_entry_comp(mod);
	}
	if (c != UINT32_MAX && (hlo_launch_seq(mod, c, &n), n)) {
		ga->cb_mod = mod;
		ga->cb_comp = c;
	}
}

void attr_gpu(struct gpu_attr *ga, const struct hlo_set *hlo, const struct xt_plane *p,
	      unsigned line_flags, const struct xt_event *ev, const struct xt_known_stats *ks)
{
	const struct xt_event_meta *m = xt_event_meta(p, ev);
	const struct hlo_module *mod = NULL;
	int memcpy_op;

	memset(ga, 0, sizeof(*ga));
	ga->name = ga->category = ga->module = ga->parent = bref("", 0);
	ga->in_entry = 1;
	if (stat_has(ks, XS_HLO_MODULE))
		ga->module = bref(ks->v[XS_HLO_MODULE].s, ks->v[XS_HLO_MODULE].n);
	if (stat_has(ks, XS_PROGRAM_ID)) {
		ga->has_program = ga->has_program_key = 1;
		ga->program_id = stat_as_int(&ks->v[XS_PROGRAM_ID]);
	}
	if (stat_has(ks, XS_HLO_OP) && ks->v[XS_HLO_OP].n) {
		struct bytes_ref op = attr_last_scope(bref(ks->v[XS_HLO_OP].s, ks->v[XS_HLO_OP].n));

		if (hlo && hlo->n) {
			mod = ga->has_program ? hlo_set_find(hlo, (uint64_t)ga->program_id) : NULL;
			if (!mod && ga->module.n)
				mod = hlo_set_find_name(hlo, ga->module.p, ga->module.n);
		}
		if (mod) {
			const struct hlo_inst *in = hlo_find(mod, op.p, op.n);

			if (in && !hlo_is_command_buffer(mod, in)) {
				ga->attr = XT_ATTR_HLO_OP;
				ga->name = op;
				ga->inst = in;
			} else {
				struct bytes_ref kn = attr_kernel_name(m);
				const struct hlo_inst *k = hlo_find_kernel(mod, kn.p, kn.n);

				ga->parent = op;
				/* An hlo_op the module lacks is no proof of a
				 * command buffer; its name or its callee is. */
				ga->in_cb = (uint8_t)(in ? hlo_is_command_buffer(mod, in)
							 : looks_like_command_buffer(op));
				cb_where(ga, mod, in);
				if (k && !hlo_is_command_buffer(mod, k)) {
					ga->attr = XT_ATTR_KERNEL_NAME;
					ga->name = bref_str(k->name);
					ga->inst = k;
				} else {
					ga->attr = XT_ATTR_UNRESOLVED;
					ga->name = kn;
				}
			}
		} else if (looks_like_command_buffer(op)) {
			ga->attr = XT_ATTR_KERNEL_NAME_UNCHECKED;
			ga->name = attr_kernel_name(m);
			ga->parent = op;
			ga->in_cb = 1;
		} else {
			ga->attr = XT_ATTR_HLO_OP_UNCHECKED;
			ga->name = op;
		}
		if (ga->inst)
			ga->in_entry = !hlo_in_loop(mod, ga->inst);
		if (stat_has(ks, XS_HLO_CATEGORY) && ks->v[XS_HLO_CATEGORY].n)
			ga->category = bref(ks->v[XS_HLO_CATEGORY].s, ks->v[XS_HLO_CATEGORY].n);
		else if (ga->inst)
			ga->category = attr_hlo_category(ga->inst);
		else
			ga->category = category_from_name(ga->name);
		/* GPUs name the program by hlo_module first (one module may
		 * be compiled under several program ids). */
		if (ga->module.n)
			ga->has_program = 0;
		return;
	}
	{
		/* While loading, the plane's context knows the kernel name's
		 * flags (this runs for every event whose op is new). */
		const struct plane_ctx *pc = p->hook_data;
		unsigned mf = pc && pc->info ? pc->info[xt_event_meta_index(ev)].name_flags
					     : op_name_flags(bref_str(m->name));

		(void)op_classify_flags(mf, 0, mf, line_flags, &memcpy_op);
	}
	if (!memcpy_op) {
		const struct xt_stat *tf = stat_has(ks, XS_TF_OP) && ks->v[XS_TF_OP].n ? &ks->v[XS_TF_OP]
					   : stat_has(ks, XS_LEVEL0) && ks->v[XS_LEVEL0].n
						   ? &ks->v[XS_LEVEL0]
						   : NULL;
		const char *colon = tf ? memrchr(tf->s, ':', tf->n) : NULL;

		/* "scope/name:Type"; an empty type ("XlaModule:") is no op. */
		if (colon && colon > tf->s && colon + 1 < tf->s + tf->n) {
			ga->attr = XT_ATTR_TF_OP;
			ga->name = bref(tf->s, (size_t)(colon - tf->s));
			ga->category = bref(colon + 1, tf->n - (size_t)(colon + 1 - tf->s));
			ga->has_program = ga->has_program_key = 0;
			ga->module = bref("", 0);
			return;
		}
	}
	ga->attr = XT_ATTR_EVENT_NAME;
	ga->name = bref_str(trace_event_display_name(p, ev));
	if (stat_has(ks, XS_HLO_CATEGORY) && ks->v[XS_HLO_CATEGORY].n)
		ga->category = bref(ks->v[XS_HLO_CATEGORY].s, ks->v[XS_HLO_CATEGORY].n);
	else if (memcpy_op)
		ga->category = bref("memcpy", 6);
	else
		ga->category = category_from_name(ga->name);
	if (ga->module.n)
		ga->has_program = 0;
}
