/*
 * grpc_call: see grpc_call.h. One channel and one completion queue per
 * call: captures are rare and long, so nothing is pooled. Responses may be
 * hundreds of MB (an XSpace), so the receive limit is lifted.
 */
#include "grpc_call.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;

void grpc_call_init(void)
{
	pthread_mutex_lock(&init_lock);
	if (init_count++ == 0)
		grpc_init();
	pthread_mutex_unlock(&init_lock);
}

void grpc_call_shutdown(void)
{
	pthread_mutex_lock(&init_lock);
	if (init_count > 0 && --init_count == 0)
		grpc_shutdown();
	pthread_mutex_unlock(&init_lock);
}

const char *grpc_call_status_name(int s)
{
	static const char *const names[] = {
		"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
		"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
		"UNAUTHENTICATED",
	};

	return s >= 0 && s < (int)(sizeof(names) / sizeof(names[0])) ? names[s] : "UNKNOWN";
}

static gpr_timespec after_ms(int64_t ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

int grpc_call_unary(const char *target, const char *method, const void *req, size_t req_len,
		    int64_t deadline_ms, volatile sig_atomic_t *stop, void (*on_stop)(void *ctx),
		    void *ctx, struct grpc_reply *r)
{
	grpc_arg arg;
	grpc_channel_args args;
	grpc_channel_credentials *creds;
	grpc_channel *ch;
	grpc_completion_queue *cq;
	grpc_call *call;
	grpc_slice mslice, body, details;
	grpc_byte_buffer *send, *recv = NULL;
	grpc_metadata_array initial, trailing;
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	grpc_op ops[6];
	gpr_timespec deadline = after_ms(deadline_ms);
	int stopped = 0, done = 0;

	memset(r, 0, sizeof(*r));
	arg.type = GRPC_ARG_INTEGER;
	arg.key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	arg.value.integer = -1;
	args.num_args = 1;
	args.args = &arg;
	creds = grpc_insecure_credentials_create();
	ch = grpc_channel_create(target, creds, &args);
	grpc_channel_credentials_release(creds);
	cq = grpc_completion_queue_create_for_next(NULL);
	mslice = grpc_slice_from_copied_string(method);
	call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL, deadline,
					NULL);
	body = grpc_slice_from_copied_buffer(req, req_len);
	send = grpc_raw_byte_buffer_create(&body, 1);
	grpc_metadata_array_init(&initial);
	grpc_metadata_array_init(&trailing);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
	ops[5].data.recv_status_on_client.status = &status;
	ops[5].data.recv_status_on_client.status_details = &details;
	if (grpc_call_start_batch(call, ops, 6, (void *)1, NULL) != GRPC_CALL_OK) {
		r->status = GRPC_STATUS_INTERNAL;
		snprintf(r->message, sizeof(r->message), "cannot start the call");
	} else {
		while (!done) {
			grpc_event ev = grpc_completion_queue_next(cq, after_ms(100), NULL);

			if (ev.type == GRPC_OP_COMPLETE)
				done = 1;
			else if (stop && *stop && !stopped && on_stop) {
				stopped = 1;
				on_stop(ctx);
			}
		}
		r->status = (int)status;
		if (GRPC_SLICE_LENGTH(details))
			snprintf(r->message, sizeof(r->message), "%.*s", (int)GRPC_SLICE_LENGTH(details),
				 (const char *)GRPC_SLICE_START_PTR(details));
		grpc_slice_unref(details);
		if (recv) {
			grpc_byte_buffer_reader rd;

			/* The slices straight into one buffer: a response carries the
			 * whole XSpace (1 GB for a big capture), and readall() would
			 * first join them into another copy of it. */
			if (grpc_byte_buffer_reader_init(&rd, recv)) {
				size_t total = grpc_byte_buffer_length(recv), at = 0;
				grpc_slice sl;

				r->data = xmalloc(total ? total : 1);
				while (grpc_byte_buffer_reader_next(&rd, &sl)) {
					size_t n = GRPC_SLICE_LENGTH(sl);

					if (n > total - at)
						n = total - at; /* (never: the length is theirs) */
					memcpy((char *)r->data + at, GRPC_SLICE_START_PTR(sl), n);
					at += n;
					grpc_slice_unref(sl);
				}
				r->len = at;
				grpc_byte_buffer_reader_destroy(&rd);
			}
			grpc_byte_buffer_destroy(recv);
		}
	}
	grpc_metadata_array_destroy(&initial);
	grpc_metadata_array_destroy(&trailing);
	grpc_byte_buffer_destroy(send);
	grpc_slice_unref(body);
	grpc_call_unref(call);
	grpc_slice_unref(mslice);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	grpc_channel_destroy(ch);
	return r->status == 0 ? 0 : -1;
}
