/*
 * hlo_seq: the launch sequences of a module (hlo.h): from the schedule
 * hlo.c decoded, per computation the instructions that do work on the
 * device in the order XLA runs them, which the order-based attribution of
 * command buffer runs reads (an_cmdbuf.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "hlo.h"

void hlo_module_sequences(struct hlo_module *m);

/* Instructions that launch nothing on the device: values, tuples and
 * aliases that XLA's thunk emitter turns into no work, and the waits that
 * end async ops. */
static int launches_nothing(const char *op)
{
	static const char *const none[] = { "parameter", "constant", "get-tuple-element", "tuple",
					    "bitcast", "after-all", "add-dependency", "opt-barrier",
					    "domain" };
	size_t i, n = strlen(op);

	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (!strcmp(op, none[i]))
			return 1;
	return n > 5 && !strcmp(op + n - 5, "-done");
}

/* What an instruction of a schedule launches: an async-start, the root of
 * the computation it wraps (a dynamic slice run as a copy on another
 * stream is named after that fusion); anything else, itself. */
static uint32_t launched(const struct hlo_module *m, uint32_t ix)
{
	const struct hlo_inst *in = &m->inst[ix];
	const uint32_t *c, *r;
	int64_t key[2];

	if (strcmp(in->opcode, "async-start") || !in->called.n)
		return ix;
	c = hmap_find(&m->comp_by_id, &m->ints[in->called.at], sizeof(int64_t));
	if (!c)
		return ix;
	key[0] = (int64_t)*c;
	key[1] = m->comp[*c].root_id;
	r = hmap_find(&m->by_cid, key, sizeof(key));
	return r ? *r : ix;
}

/* Turns the raw schedule into each computation's launch sequence. */
void hlo_module_sequences(struct hlo_module *m)
{
	size_t r, i, cap = 0;

	uint8_t *wrapped = xcalloc(m->ncomp ? m->ncomp : 1, 1);

	/* An async op's computation has a schedule of its own, but what it
	 * wraps runs in its caller's sequence. */
	for (i = 0; i < m->ninst; i++) {
		const struct hlo_inst *in = &m->inst[i];
		const uint32_t *c;

		m->inst[i].seq_pos = m->inst[i].seq_comp = UINT32_MAX;
		if (!strcmp(in->opcode, "async-start") && in->called.n &&
		    (c = hmap_find(&m->comp_by_id, &m->ints[in->called.at], sizeof(int64_t))))
			wrapped[*c] = 1;
	}
	for (r = 0; r < m->nraw_seq; r++) {
		const struct hlo_raw_seq *rs = &m->raw_seq[r];
		const uint32_t *c = hmap_find(&m->comp_by_id, &rs->comp_id, sizeof(int64_t));
		struct hlo_comp *hc;

		if (!c || m->comp[*c].seq_n || wrapped[*c])
			continue;
		hc = &m->comp[*c];
		hc->seq_first = (uint32_t)m->nseq;
		for (i = 0; i < rs->ids.n; i++) {
			int64_t key[2] = { (int64_t)*c, m->ints[rs->ids.at + i] };
			const uint32_t *v = hmap_find(&m->by_cid, key, sizeof(key));
			uint32_t ix;

			if (!v || launches_nothing(m->inst[*v].opcode))
				continue;
			ix = launched(m, *v);
			if (m->inst[ix].seq_pos != UINT32_MAX)
				continue;
			if (m->nseq == cap) {
				cap = cap ? cap * 2 : 16;
				m->seq = xreallocarray(m->seq, cap, sizeof(*m->seq));
			}
			m->inst[ix].seq_pos = (uint32_t)(m->nseq - hc->seq_first);
			m->inst[ix].seq_comp = *c;
			m->seq[m->nseq++] = ix;
		}
		hc->seq_n = (uint32_t)(m->nseq - hc->seq_first);
	}
	free(wrapped);
	free(m->raw_seq);
	m->raw_seq = NULL;
	m->nraw_seq = m->capraw_seq = 0;
}

uint32_t hlo_entry_comp(const struct hlo_module *m)
{
	const uint32_t *v = hmap_find(&m->comp_by_id, &m->entry_id, sizeof(int64_t));

	return v ? *v : UINT32_MAX;
}
