/*
 * grpc_call: one unary gRPC call over the real gRPC C core library
 * (Debian's libgrpc-dev, loaded when first needed). Only this file
 * includes <grpc/...>; the rest of xtop sees bytes in, bytes out, a
 * status and a message.
 */
#ifndef XT_GRPC_CALL_H
#define XT_GRPC_CALL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct grpc_reply {
	int status;       /* grpc_status_code: 0 OK, 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED... */
	char message[512];/* the server's or the library's message */
	uint8_t *data;    /* response message bytes (malloc'd; free()); NULL if none */
	size_t len;
};

/* Process-wide init/shutdown of the gRPC library (reference counted).
 * The library is loaded by the first call (dlopen: nothing else in xtop
 * needs it); init returns -1, and nothing is to be shut down, when it
 * cannot be: grpc_call_load_error() says why. */
int grpc_call_init(void);
void grpc_call_shutdown(void);
/* Why the gRPC library cannot be loaded (one line), or NULL when it is. */
const char *grpc_call_load_error(void);
/* Starts loading the library on a thread of its own (it takes several
 * ms), for a session whose captures come later; once per process. */
void grpc_call_preload(void);

/*
 * Calls method (e.g. "/tensorflow.ProfilerService/Profile") on target
 * ("host:port") with the serialized request, waiting at most deadline_ms.
 * While waiting, *stop (if not NULL) is checked every 100 ms; when it turns
 * non-zero, on_stop(ctx) is called once (e.g. to send a Terminate RPC) and
 * the wait goes on. Fills *r; returns 0 when the call completed with OK,
 * -1 otherwise (r->status and r->message say why). Can't abort the process.
 */
int grpc_call_unary(const char *target, const char *method, const void *req, size_t req_len,
		    int64_t deadline_ms, volatile sig_atomic_t *stop, void (*on_stop)(void *ctx),
		    void *ctx, struct grpc_reply *r);
/* A name for a gRPC status code ("UNAVAILABLE"). */
const char *grpc_call_status_name(int status);

#endif
