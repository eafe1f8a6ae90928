/*
 * an_sink: the analyses' event sink (ev_sink.h). While a line is decoded,
 * the events its plane marks (analysis.c, plane_hook_outer) go to the part
 * of the range being decoded (struct host_part): on a host plane memory
 * events to an_memory.c, possible step markers to an_steps.c, and
 * compilations straight into the part; on a GPU plane kernel launches to
 * an_streamsink.c. A big line's chunks are decoded
 * by every thread, so this work is shared out too, and no pass over the
 * line's tens of millions of events is left for after its last chunk.
 */
#include <stdlib.h>

#include "../util/xalloc.h"
#include "an_stream.h"

static void *host_part_new(void *ctx, const struct xt_host *h, const struct xt_plane *p)
{
	const struct plane_ctx *pc = p->hook_data;
	struct host_part *hp = xcalloc(1, sizeof(*hp));

	(void)ctx;
	hp->h = h;
	hp->p = p;
	if (pc && pc->role == ROLE_DEVICE)
		hp->kern = kern_part_new();
	else
		hp->mem = memory_part_new(h, p);
	return hp;
}

static void host_part_free(void *part)
{
	struct host_part *hp = part;

	memory_part_free(hp->mem);
	kern_part_free(hp->kern);
	free(hp->markers);
	free(hp->comp);
	free(hp->calls);
	span_pack_free(&hp->work);
	free(hp);
}

/* A host line that keeps no events: the timed events of the part's range
 * into its work (not a step marker's; the reader leaves out Python frames,
 * XT_SINK_NO_RANGE: see overview_line_host). */
static void host_part_range(void *part, const struct xt_sink_rev *v, size_t n)
{
	struct host_part *hp = part;
	size_t k;

	for (k = 0; k < n; k++) {
		if (marker_at(hp->markers, hp->nmarkers, &hp->work_mk, v[k].i))
			continue;
		span_pack_add(&hp->work, v[k].off_ps,
			      (int64_t)((uint64_t)v[k].off_ps + (uint64_t)v[k].dur_ps));
	}
}

static void host_part_event(void *part, const struct xt_sink_ev *e)
{
	struct host_part *hp = part;
	uint8_t on = hp->p->sink_meta[e->meta];

	if (on & SINK_KERNEL) {
		kern_part_event(hp->kern, e);
		return;
	}
	if (on & SINK_MEM)
		memory_event(hp->mem, e);
	if (on & SINK_COPY)
		copies_sink_event(hp, e);
	if ((on & SINK_MARKER) || e->watched)
		steps_marker_event(hp, e);
	if ((on & SINK_COMPILE) && e->dur_ps > 0) {
		if (hp->ncomp == hp->capcomp) {
			hp->capcomp = hp->capcomp ? 2 * hp->capcomp : 16;
			hp->comp = xreallocarray(hp->comp, hp->capcomp, sizeof(*hp->comp));
		}
		hp->comp[hp->ncomp++] = (struct comp_ev){
			e->off_ps, (int64_t)((uint64_t)e->off_ps + (uint64_t)e->dur_ps), e->i
		};
	}
}

const struct xt_sink analysis_sink = { host_part_new, host_part_event, host_part_free,
					host_part_range, NULL };
