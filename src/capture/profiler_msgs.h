/*
 * profiler_msgs: the ProfilerService messages (proto/profiler_service.proto)
 * as xtop needs them. Only profiler_msgs.c includes the protobuf-c code.
 */
#ifndef XT_PROFILER_MSGS_H
#define XT_PROFILER_MSGS_H

#include <stddef.h>
#include <stdint.h>

struct profile_req {
	uint64_t duration_ms;
	unsigned host_tracer, device_tracer, python_tracer;
	const char *repository_root;
	const char *session_id;
	const char *host_name;
};

/* Serialized ProfileRequest / TerminateRequest; caller frees. Can't fail. */
uint8_t *profiler_msgs_profile_request(const struct profile_req *q, size_t *len);
uint8_t *profiler_msgs_terminate_request(const char *session_id, size_t *len);
/* A serialized tensorflow.ProfileOptions alone (what PJRT plugins take);
 * caller frees. Can't fail. */
uint8_t *profiler_msgs_profile_options(const struct profile_req *q, size_t *len);

struct profile_resp {
	int empty_trace;
	const uint8_t *xspace; /* points into the response buffer; NULL when absent */
	size_t xspace_len;
};

/* Parses a ProfileResponse; returns 0, or -1 when malformed. The XSpace is
 * the `xspace` field, else a tool_data entry named "xplane.pb". */
int profiler_msgs_parse_response(const uint8_t *b, size_t n, struct profile_resp *out);

#endif
