/*
 * xspace_merge: what upstream's ProfilerSession does to the planes of a
 * collected XSpace before it saves one (PostProcessSingleHostXSpace's
 * MergeHostPlanesAndSortLines), for XSpaces that did not come through one:
 * the xtop agent's, which gathers the PJRT plugins' planes as they made
 * them.
 *
 * - The host's planes (/host:CPU, /host:CUPTI, /host:ROCTRACER,
 *   /host:python-tracer, /host:TPU-runtime, then /host:NVTX-CUPTI with its
 *   line ids moved out of the way) become one /host:CPU plane, after the
 *   others. Lines of one id are one line: XLA's TraceMe events and the CUPTI
 *   launch callbacks of a thread end up together, as in a profile that
 *   jax.profiler or the profiler service wrote.
 * - Other planes of one name are merged into the first.
 * - In merged planes, metadata are matched by name (ids renumbered), events
 *   sorted by start (the longer first), lines by name.
 *
 * Planes that merge with nothing keep their bytes. Upstream also sorts
 * those planes' events; xtop's model does not need it, so they are left as
 * the plugin wrote them.
 *
 * The input is borrowed; the output is the caller's. No curses, no I/O.
 * A merged plane is built by mplane.h.
 */
#ifndef XT_XSPACE_MERGE_H
#define XT_XSPACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* Returns 1 with the merged XSpace in *out (malloc'd, *out_n bytes), 0 when
 * nothing needs merging (*out untouched), -1 when the bytes are not a
 * well-formed XSpace (nothing merged, *out untouched). */
int xspace_merge(const uint8_t *in, size_t n, uint8_t **out, size_t *out_n);

#endif
