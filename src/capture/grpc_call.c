/*
 * grpc_call: see grpc_call.h. One channel and one completion queue per
 * call: captures are rare and long, so nothing is pooled. Responses may be
 * hundreds of MB (an XSpace), so the receive limit is lifted.
 *
 * The library is loaded when the first capture starts (or, for a session
 * whose captures come later, in the background as it begins: the load
 * takes 7 ms), not linked: linked, gRPC and the fifty-odd libraries it
 * needs cost every run of xtop about 5 ms of dynamic loading and
 * relocation, most of the time a report of a small profile takes
 * (docs/performance.md). The functions used are looked up once, by their
 * names and with their declared types.
 */
#include "grpc_call.h"

#include <dlfcn.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

/* The library's file (its soname, from the build; the Makefile sets it). */
#ifndef XT_GRPC_SONAME
#define XT_GRPC_SONAME "libgrpc.so"
#endif

/* The library's functions that xtop calls. */
#define GRPC_FNS(X)                                                                         \
	X(grpc_init) X(grpc_shutdown) X(gpr_now) X(gpr_time_add) X(gpr_time_from_millis)    \
	X(gpr_inf_future) X(grpc_insecure_credentials_create) X(grpc_channel_create)        \
	X(grpc_channel_credentials_release) X(grpc_completion_queue_create_for_next)        \
	X(grpc_slice_from_copied_string) X(grpc_channel_create_call)                        \
	X(grpc_slice_from_copied_buffer) X(grpc_raw_byte_buffer_create)                     \
	X(grpc_metadata_array_init) X(grpc_call_start_batch) X(grpc_completion_queue_next)  \
	X(grpc_slice_unref) X(grpc_byte_buffer_reader_init) X(grpc_byte_buffer_length)      \
	X(grpc_byte_buffer_reader_next) X(grpc_byte_buffer_reader_destroy)                  \
	X(grpc_byte_buffer_destroy) X(grpc_metadata_array_destroy) X(grpc_call_unref)       \
	X(grpc_completion_queue_shutdown) X(grpc_completion_queue_destroy)                  \
	X(grpc_channel_destroy)

static struct {
#define X(f) __typeof__(f) *f;
	GRPC_FNS(X)
#undef X
} lib;
static int lib_ok;
static char lib_err[256];
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_load(void)
{
	/* XTOP_GRPC_LIB: another file, for a gRPC installed elsewhere. */
	const char *file = getenv("XTOP_GRPC_LIB");
	void *h;

	if (!file || !*file)
		file = XT_GRPC_SONAME;
	h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib_err, sizeof(lib_err),
			 "cannot load the gRPC library, which capture needs: %.200s", dlerror());
		return;
	}
#define X(f)                                                                             \
	if (!(*(void **)&lib.f = dlsym(h, #f))) {                                         \
		snprintf(lib_err, sizeof(lib_err), "the gRPC library %.150s has no %s",   \
			 file, #f);                                                       \
		dlclose(h);                                                               \
		return;                                                                   \
	}
	GRPC_FNS(X)
#undef X
	lib_ok = 1; /* kept loaded: gRPC's threads may outlive a call */
}

const char *grpc_call_load_error(void)
{
	pthread_once(&lib_once, lib_load);
	return lib_ok ? NULL : lib_err;
}

static void *preload_run(void *arg)
{
	(void)arg;
	(void)grpc_call_load_error();
	return NULL;
}

void grpc_call_preload(void)
{
	static atomic_flag started = ATOMIC_FLAG_INIT;
	pthread_attr_t at;
	pthread_t t;

	if (atomic_flag_test_and_set(&started))
		return;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* Without a thread, the first capture loads it. */
	(void)pthread_create(&t, &at, preload_run, NULL);
	pthread_attr_destroy(&at);
}

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;

int grpc_call_init(void)
{
	if (grpc_call_load_error())
		return -1;
	pthread_mutex_lock(&init_lock);
	if (init_count++ == 0)
		lib.grpc_init();
	pthread_mutex_unlock(&init_lock);
	return 0;
}

void grpc_call_shutdown(void)
{
	pthread_mutex_lock(&init_lock);
	if (init_count > 0 && --init_count == 0)
		lib.grpc_shutdown();
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
	return lib.gpr_time_add(lib.gpr_now(GPR_CLOCK_MONOTONIC),
				lib.gpr_time_from_millis(ms, GPR_TIMESPAN));
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
	gpr_timespec deadline;
	int stopped = 0, done = 0;

	memset(r, 0, sizeof(*r));
	if (grpc_call_load_error()) {
		r->status = GRPC_STATUS_UNAVAILABLE;
		snprintf(r->message, sizeof(r->message), "%s", lib_err);
		return -1;
	}
	deadline = after_ms(deadline_ms);
	arg.type = GRPC_ARG_INTEGER;
	arg.key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	arg.value.integer = -1;
	args.num_args = 1;
	args.args = &arg;
	creds = lib.grpc_insecure_credentials_create();
	ch = lib.grpc_channel_create(target, creds, &args);
	lib.grpc_channel_credentials_release(creds);
	cq = lib.grpc_completion_queue_create_for_next(NULL);
	mslice = lib.grpc_slice_from_copied_string(method);
	call = lib.grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL,
					    deadline, NULL);
	body = lib.grpc_slice_from_copied_buffer(req, req_len);
	send = lib.grpc_raw_byte_buffer_create(&body, 1);
	lib.grpc_metadata_array_init(&initial);
	lib.grpc_metadata_array_init(&trailing);
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
	if (lib.grpc_call_start_batch(call, ops, 6, (void *)1, NULL) != GRPC_CALL_OK) {
		r->status = GRPC_STATUS_INTERNAL;
		snprintf(r->message, sizeof(r->message), "cannot start the call");
	} else {
		while (!done) {
			grpc_event ev = lib.grpc_completion_queue_next(cq, after_ms(100), NULL);

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
		lib.grpc_slice_unref(details);
		if (recv) {
			grpc_byte_buffer_reader rd;

			/* The slices straight into one buffer: a response carries the
			 * whole XSpace (1 GB for a big capture), and readall() would
			 * first join them into another copy of it. */
			if (lib.grpc_byte_buffer_reader_init(&rd, recv)) {
				size_t total = lib.grpc_byte_buffer_length(recv), at = 0;
				grpc_slice sl;

				r->data = xmalloc(total ? total : 1);
				while (lib.grpc_byte_buffer_reader_next(&rd, &sl)) {
					size_t n = GRPC_SLICE_LENGTH(sl);

					if (n > total - at)
						n = total - at; /* (never: the length is theirs) */
					memcpy((char *)r->data + at, GRPC_SLICE_START_PTR(sl), n);
					at += n;
					lib.grpc_slice_unref(sl);
				}
				r->len = at;
				lib.grpc_byte_buffer_reader_destroy(&rd);
			}
			lib.grpc_byte_buffer_destroy(recv);
		}
	}
	lib.grpc_metadata_array_destroy(&initial);
	lib.grpc_metadata_array_destroy(&trailing);
	lib.grpc_byte_buffer_destroy(send);
	lib.grpc_slice_unref(body);
	lib.grpc_call_unref(call);
	lib.grpc_slice_unref(mslice);
	lib.grpc_completion_queue_shutdown(cq);
	while (lib.grpc_completion_queue_next(cq, lib.gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
		       .type != GRPC_QUEUE_SHUTDOWN)
		;
	lib.grpc_completion_queue_destroy(cq);
	lib.grpc_channel_destroy(ch);
	return r->status == 0 ? 0 : -1;
}
