/*
 * trace_json: exports a host as `<host>.trace.json.gz`, the Chrome trace
 * event format that TSL writes beside the .xplane.pb for Perfetto and
 * chrome://tracing (upstream trace_events_to_json.cc conventions: pid 701
 * for /host:CPU and 1 + plane id for devices, tid = the line's display id,
 * times in microseconds, stats as args). Unlike upstream's converter it
 * writes every event: nothing is capped.
 */
#ifndef XT_TRACE_JSON_H
#define XT_TRACE_JSON_H

#include "../util/error.h"
#include "trace.h"

/* Writes h to path (gzip), atomically, never replacing a file. Returns 0
 * or XT_EIO with err set. */
int trace_json_write(const struct xt_host *h, const char *path, struct xt_error *err);

#endif
