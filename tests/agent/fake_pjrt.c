/*
 * fake_pjrt: a PJRT plugin for xtop's tests. It declares the PJRT C API
 * structs on its own, as XLA's headers spell them (pjrt_c_api.h,
 * pjrt_c_api_profiler_extension.h, profiler_c_api.h), so it checks the
 * agent's copy of that ABI rather than sharing it. GetPjrtApi returns an
 * API whose extension chain holds another extension first, then the
 * profiler; the profiler "captures" a recorded XSpace file.
 *
 * Like XLA's plugin (plugin_tracer_impl.cc), collect_data called with
 * buffer == NULL returns its own buffer, one byte larger than the XSpace
 * (a trailing NUL). The test workload calls fake_pjrt_configure() after
 * dlopen to pick the file and a mode:
 *   owned          that behaviour (default)
 *   copy           the header's protocol: the size first, then the bytes
 *                  into the caller's buffer
 *   fail-start     start fails as CUPTI does when another session holds it
 *   tracer-failed  the XSpace has only an error, no planes (a device tracer
 *                  that failed)
 * With a log path, every call appends one line there (create, start, stop,
 * collect, destroy), so tests can check the lifecycle. Args whose
 * struct_size is not the v1 size are refused, as a strict plugin would.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
	PJRT_Extension_Type_Gpu_Custom_Call = 0,
	PJRT_Extension_Type_Profiler,
	PJRT_Extension_Type_Custom_Partitioner,
	PJRT_Extension_Type_Stream,
	PJRT_Extension_Type_Layouts,
	PJRT_Extension_Type_FFI,
} PJRT_Extension_Type;

typedef struct PJRT_Extension_Base {
	size_t struct_size;
	PJRT_Extension_Type type;
	struct PJRT_Extension_Base *next;
} PJRT_Extension_Base;

typedef struct PJRT_Api_Version {
	size_t struct_size;
	PJRT_Extension_Base *extension_start;
	int major_version;
	int minor_version;
} PJRT_Api_Version;

typedef struct PJRT_Api {
	size_t struct_size;
	PJRT_Extension_Base *extension_start;
	PJRT_Api_Version pjrt_api_version;
	void *PJRT_Error_Destroy; /* the real API's function pointers follow */
	void *PJRT_Error_Message;
	void *PJRT_Error_GetCode;
	void *PJRT_Plugin_Initialize;
} PJRT_Api;

#define PROFILER_STRUCT_SIZE(T, last) (offsetof(T, last) + sizeof(((T *)0)->last))

typedef struct PLUGIN_Profiler PLUGIN_Profiler;
typedef struct PLUGIN_Profiler_Error PLUGIN_Profiler_Error;

typedef struct {
	size_t struct_size;
	void *priv;
	PLUGIN_Profiler_Error *error;
} PLUGIN_Profiler_Error_Destroy_Args;
typedef struct {
	size_t struct_size;
	void *priv;
	const PLUGIN_Profiler_Error *error;
	const char *message;
	size_t message_size;
} PLUGIN_Profiler_Error_Message_Args;
typedef struct {
	size_t struct_size;
	void *priv;
	const PLUGIN_Profiler_Error *error;
	int code;
} PLUGIN_Profiler_Error_GetCode_Args;
typedef struct {
	size_t struct_size;
	const char *options;
	size_t options_size;
	PLUGIN_Profiler *profiler;
} PLUGIN_Profiler_Create_Args;
typedef struct {
	size_t struct_size;
	PLUGIN_Profiler *profiler;
} PLUGIN_Profiler_Destroy_Args, PLUGIN_Profiler_Start_Args, PLUGIN_Profiler_Stop_Args;
typedef struct {
	size_t struct_size;
	PLUGIN_Profiler *profiler;
	uint8_t *buffer;
	size_t buffer_size_in_bytes;
} PLUGIN_Profiler_CollectData_Args;

typedef struct PLUGIN_Profiler_Api {
	size_t struct_size;
	void *priv;
	void (*error_destroy)(PLUGIN_Profiler_Error_Destroy_Args *);
	void (*error_message)(PLUGIN_Profiler_Error_Message_Args *);
	PLUGIN_Profiler_Error *(*error_get_code)(PLUGIN_Profiler_Error_GetCode_Args *);
	PLUGIN_Profiler_Error *(*create)(PLUGIN_Profiler_Create_Args *);
	PLUGIN_Profiler_Error *(*destroy)(PLUGIN_Profiler_Destroy_Args *);
	PLUGIN_Profiler_Error *(*start)(PLUGIN_Profiler_Start_Args *);
	PLUGIN_Profiler_Error *(*stop)(PLUGIN_Profiler_Stop_Args *);
	PLUGIN_Profiler_Error *(*collect_data)(PLUGIN_Profiler_CollectData_Args *);
} PLUGIN_Profiler_Api;

typedef struct PJRT_Profiler_Extension {
	PJRT_Extension_Base base;
	PLUGIN_Profiler_Api *profiler_api;
	int64_t traceme_context_id;
} PJRT_Profiler_Extension;

struct PLUGIN_Profiler_Error {
	char msg[256];
};

struct PLUGIN_Profiler {
	int started;
	uint8_t *buffer; /* what collect_data hands out, freed by destroy */
	size_t size;
};

static char xspace_path[4096], mode[32] = "owned", log_path[4096];

static void fake_log(const char *what, size_t n)
{
	FILE *f;

	if (!log_path[0] || !(f = fopen(log_path, "a")))
		return;
	fprintf(f, "%s %zu\n", what, n);
	fclose(f);
}

static PLUGIN_Profiler_Error *err(const char *msg)
{
	PLUGIN_Profiler_Error *e = calloc(1, sizeof(*e));

	if (e)
		snprintf(e->msg, sizeof(e->msg), "%s", msg);
	return e;
}

static void error_destroy(PLUGIN_Profiler_Error_Destroy_Args *a)
{
	free(a->error);
}

static void error_message(PLUGIN_Profiler_Error_Message_Args *a)
{
	a->message = a->error->msg;
	a->message_size = strlen(a->error->msg);
}

static PLUGIN_Profiler_Error *error_get_code(PLUGIN_Profiler_Error_GetCode_Args *a)
{
	a->code = 9; /* FAILED_PRECONDITION */
	return NULL;
}

static PLUGIN_Profiler_Error *create(PLUGIN_Profiler_Create_Args *a)
{
	if (a->struct_size != PROFILER_STRUCT_SIZE(PLUGIN_Profiler_Create_Args, profiler))
		return err("create: bad struct_size");
	/* ProfileOptions starts with version = 1 where xtop writes it. */
	if (!a->options || !a->options_size || !memchr(a->options, 0x28, a->options_size))
		return err("create: no ProfileOptions");
	a->profiler = calloc(1, sizeof(*a->profiler));
	if (!a->profiler)
		return err("create: out of memory");
	fake_log("create", a->options_size);
	return NULL;
}

static PLUGIN_Profiler_Error *destroy(PLUGIN_Profiler_Destroy_Args *a)
{
	if (a->struct_size != PROFILER_STRUCT_SIZE(PLUGIN_Profiler_Destroy_Args, profiler))
		return err("destroy: bad struct_size");
	fake_log("destroy", 0);
	if (a->profiler)
		free(a->profiler->buffer);
	free(a->profiler);
	return NULL;
}

static PLUGIN_Profiler_Error *start(PLUGIN_Profiler_Start_Args *a)
{
	if (a->struct_size != PROFILER_STRUCT_SIZE(PLUGIN_Profiler_Start_Args, profiler))
		return err("start: bad struct_size");
	fake_log("start", 0);
	if (!strcmp(mode, "fail-start"))
		return err("cuptiSubscribe: error 15: CUPTI_ERROR_NOT_INITIALIZED");
	a->profiler->started = 1;
	return NULL;
}

static PLUGIN_Profiler_Error *stop(PLUGIN_Profiler_Stop_Args *a)
{
	if (a->struct_size != PROFILER_STRUCT_SIZE(PLUGIN_Profiler_Stop_Args, profiler))
		return err("stop: bad struct_size");
	fake_log("stop", 0);
	a->profiler->started = 0;
	return NULL;
}

/* The recorded XSpace, or one with only an error; plus the trailing NUL. */
static int load(PLUGIN_Profiler *p)
{
	static const char failed[] = "cuptiSubscribe: error 15: CUPTI_ERROR_NOT_INITIALIZED";
	FILE *f;
	long n;

	if (p->buffer)
		return 0;
	if (!strcmp(mode, "tracer-failed")) {
		p->size = 2 + sizeof(failed) - 1;
		p->buffer = calloc(1, p->size + 1);
		if (!p->buffer)
			return -1;
		p->buffer[0] = 2 << 3 | 2; /* XSpace.errors */
		p->buffer[1] = (uint8_t)(sizeof(failed) - 1);
		memcpy(p->buffer + 2, failed, sizeof(failed) - 1);
		return 0;
	}
	f = fopen(xspace_path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p->buffer = calloc(1, (size_t)n + 1);
	if (!p->buffer || fread(p->buffer, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	p->size = (size_t)n;
	return 0;
}

static PLUGIN_Profiler_Error *collect_data(PLUGIN_Profiler_CollectData_Args *a)
{
	if (a->struct_size != PROFILER_STRUCT_SIZE(PLUGIN_Profiler_CollectData_Args,
						   buffer_size_in_bytes))
		return err("collect_data: bad struct_size");
	if (load(a->profiler) < 0)
		return err("collect_data: cannot read the recorded XSpace");
	fake_log("collect", a->buffer ? a->buffer_size_in_bytes : 0);
	if (!strcmp(mode, "copy")) {
		if (!a->buffer) {
			a->buffer_size_in_bytes = a->profiler->size;
			return NULL;
		}
		memcpy(a->buffer, a->profiler->buffer, a->profiler->size);
		a->buffer_size_in_bytes = a->profiler->size;
		return NULL;
	}
	a->buffer = a->profiler->buffer;
	a->buffer_size_in_bytes = a->profiler->size + 1;
	return NULL;
}

static PLUGIN_Profiler_Api profiler_api = {
	PROFILER_STRUCT_SIZE(PLUGIN_Profiler_Api, collect_data),
	NULL,
	error_destroy,
	error_message,
	error_get_code,
	create,
	destroy,
	start,
	stop,
	collect_data,
};

static PJRT_Profiler_Extension profiler_ext = {
	{ PROFILER_STRUCT_SIZE(PJRT_Profiler_Extension, traceme_context_id),
	  PJRT_Extension_Type_Profiler, NULL },
	&profiler_api,
	-1,
};

/* Another extension first: the agent must walk the chain. */
static PJRT_Extension_Base ffi_ext = {
	sizeof(PJRT_Extension_Base),
	PJRT_Extension_Type_FFI,
	&profiler_ext.base,
};

static PJRT_Api api = {
	sizeof(PJRT_Api),
	&ffi_ext,
	{ sizeof(PJRT_Api_Version), NULL, 0, 115 },
	NULL,
	NULL,
	NULL,
	NULL,
};

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void)
{
	return &api;
}

__attribute__((visibility("default"))) void fake_pjrt_configure(const char *xspace,
								 const char *m, const char *log)
{
	snprintf(xspace_path, sizeof(xspace_path), "%s", xspace ? xspace : "");
	snprintf(mode, sizeof(mode), "%s", m && *m ? m : "owned");
	snprintf(log_path, sizeof(log_path), "%s", log ? log : "");
}
