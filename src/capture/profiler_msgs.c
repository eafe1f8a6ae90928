/* profiler_msgs: see profiler_msgs.h. Requests are small and built with
 * protobuf-c; the response may carry a huge XSpace, so it is read with the
 * model's wire cursor without copying. */
#include "profiler_msgs.h"

#include <string.h>

#include "../model/wire.h"
#include "../util/xalloc.h"
#include "profiler_service.pb-c.h"

/* What TensorBoard's Capture Profile sends (ProfilerSession's defaults). */
static void fill_options(Tensorflow__ProfileOptions *opts, const struct profile_req *q)
{
	opts->version = 1;
	opts->include_dataset_ops = 1;
	opts->host_tracer_level = q->host_tracer;
	opts->device_tracer_level = q->device_tracer;
	opts->python_tracer_level = q->python_tracer;
	opts->enable_hlo_proto = 1;
	opts->duration_ms = q->duration_ms;
	opts->repository_path = (char *)(q->repository_root ? q->repository_root : "");
	opts->session_id = (char *)(q->session_id ? q->session_id : "");
}

uint8_t *profiler_msgs_profile_request(const struct profile_req *q, size_t *len)
{
	Tensorflow__ProfileRequest req = TENSORFLOW__PROFILE_REQUEST__INIT;
	Tensorflow__ProfileOptions opts = TENSORFLOW__PROFILE_OPTIONS__INIT;
	static char *tools[] = { "xplane.pb" };
	uint8_t *buf;

	/* Every event kept (max_events 0), the XSpace asked for in the
	 * response. */
	fill_options(&opts, q);
	req.duration_ms = q->duration_ms;
	req.max_events = 0;
	req.n_tools = 1;
	req.tools = tools;
	req.opts = &opts;
	req.repository_root = (char *)q->repository_root;
	req.session_id = (char *)q->session_id;
	req.host_name = (char *)q->host_name;
	req.emit_xspace = 1;
	*len = tensorflow__profile_request__get_packed_size(&req);
	buf = xmalloc(*len ? *len : 1);
	tensorflow__profile_request__pack(&req, buf);
	return buf;
}

uint8_t *profiler_msgs_profile_options(const struct profile_req *q, size_t *len)
{
	Tensorflow__ProfileOptions opts = TENSORFLOW__PROFILE_OPTIONS__INIT;
	uint8_t *buf;

	fill_options(&opts, q);
	*len = tensorflow__profile_options__get_packed_size(&opts);
	buf = xmalloc(*len ? *len : 1);
	tensorflow__profile_options__pack(&opts, buf);
	return buf;
}

uint8_t *profiler_msgs_terminate_request(const char *session_id, size_t *len)
{
	Tensorflow__TerminateRequest req = TENSORFLOW__TERMINATE_REQUEST__INIT;
	uint8_t *buf;

	req.session_id = (char *)session_id;
	*len = tensorflow__terminate_request__get_packed_size(&req);
	buf = xmalloc(*len ? *len : 1);
	tensorflow__terminate_request__pack(&req, buf);
	return buf;
}

int profiler_msgs_parse_response(const uint8_t *b, size_t n, struct profile_resp *out)
{
	struct wire w;

	memset(out, 0, sizeof(*out));
	wire_init(&w, b, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 7 && t == WIRE_VARINT) {
			out->empty_trace = wire_varint(&w) != 0;
		} else if (f == 8 && t == WIRE_LEN) {
			out->xspace = wire_bytes(&w, &out->xspace_len);
		} else if (f == 6 && t == WIRE_LEN && !out->xspace) {
			/* ProfileToolData { 1: name, 2: data } */
			size_t tn, nn = 0, dn = 0;
			const uint8_t *tb = wire_bytes(&w, &tn), *name = NULL, *data = NULL;
			struct wire tw;

			wire_init(&tw, tb, tn);
			while (wire_more(&tw)) {
				uint32_t tf;
				unsigned tt = wire_tag(&tw, &tf);

				if (tf == 1 && tt == WIRE_LEN)
					name = wire_bytes(&tw, &nn);
				else if (tf == 2 && tt == WIRE_LEN)
					data = wire_bytes(&tw, &dn);
				else
					wire_skip(&tw, tt);
			}
			if (!tw.bad && name && nn == 9 && !memcmp(name, "xplane.pb", 9) && data) {
				out->xspace = data;
				out->xspace_len = dn;
			}
		} else {
			wire_skip(&w, t);
		}
	}
	return w.bad ? -1 : 0;
}
