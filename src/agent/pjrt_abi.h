/*
 * pjrt_abi: the parts of the PJRT C API that the agent uses, laid out as in
 * XLA's headers (xla/pjrt/c/pjrt_c_api.h, pjrt_c_api_profiler_extension.h,
 * xla/backends/profiler/plugin/profiler_c_api.h; PJRT_Extension_Type_Profiler
 * = 1 since PJRT API 0.34). Only the leading members are declared: PJRT
 * appends and never reorders, and every struct carries its struct_size, so
 * the agent checks a size before it reads a member.
 *
 * The sizes asserted below are the <T>_STRUCT_SIZE values of the v1 headers
 * on LP64 (offsetof(last member) + its size).
 */
#ifndef XT_PJRT_ABI_H
#define XT_PJRT_ABI_H

#include <stddef.h>
#include <stdint.h>

#define PJRT_EXTENSION_PROFILER 1

struct pjrt_extension_base {
	size_t struct_size;
	int type; /* PJRT_Extension_Type (a C enum: int) */
	struct pjrt_extension_base *next;
};

struct pjrt_api_version {
	size_t struct_size;
	struct pjrt_extension_base *extension_start;
	int major_version;
	int minor_version;
};

/* The head of PJRT_Api; dozens of function pointers follow. */
struct pjrt_api {
	size_t struct_size;
	struct pjrt_extension_base *extension_start;
	struct pjrt_api_version pjrt_api_version;
};

struct plugin_profiler;
struct plugin_profiler_error;

struct plugin_error_destroy_args {
	size_t struct_size;
	void *priv;
	struct plugin_profiler_error *error;
};

struct plugin_error_message_args {
	size_t struct_size;
	void *priv;
	const struct plugin_profiler_error *error;
	const char *message;  /* out */
	size_t message_size;  /* out */
};

struct plugin_error_get_code_args {
	size_t struct_size;
	void *priv;
	const struct plugin_profiler_error *error;
	int code;             /* out */
};

struct plugin_create_args {
	size_t struct_size;
	const char *options;  /* serialized tensorflow.ProfileOptions */
	size_t options_size;
	struct plugin_profiler *profiler; /* out */
};

/* Destroy, Start and Stop take the same two members. */
struct plugin_profiler_args {
	size_t struct_size;
	struct plugin_profiler *profiler;
};

struct plugin_collect_args {
	size_t struct_size;
	struct plugin_profiler *profiler;
	uint8_t *buffer;             /* in/out */
	size_t buffer_size_in_bytes; /* out */
};

typedef void plugin_error_destroy_fn(struct plugin_error_destroy_args *);
typedef void plugin_error_message_fn(struct plugin_error_message_args *);
typedef struct plugin_profiler_error *plugin_error_get_code_fn(struct plugin_error_get_code_args *);
typedef struct plugin_profiler_error *plugin_create_fn(struct plugin_create_args *);
typedef struct plugin_profiler_error *plugin_profiler_fn(struct plugin_profiler_args *);
typedef struct plugin_profiler_error *plugin_collect_fn(struct plugin_collect_args *);

struct plugin_profiler_api {
	size_t struct_size;
	void *priv;
	plugin_error_destroy_fn *error_destroy;
	plugin_error_message_fn *error_message;
	plugin_error_get_code_fn *error_get_code;
	plugin_create_fn *create;
	plugin_profiler_fn *destroy;
	plugin_profiler_fn *start;
	plugin_profiler_fn *stop;
	plugin_collect_fn *collect_data;
	/* newer plugins append consume/serialize entries: not used */
};

/* PJRT_Profiler_Extension: v1 adds traceme_context_id after profiler_api. */
struct pjrt_profiler_extension {
	struct pjrt_extension_base base;
	struct plugin_profiler_api *profiler_api;
	int64_t traceme_context_id;
};

typedef const struct pjrt_api *get_pjrt_api_fn(void);

#define PJRT_V1_SIZE(T, last) (offsetof(T, last) + sizeof(((T *)0)->last))
#define PLUGIN_PROFILER_API_V1_SIZE PJRT_V1_SIZE(struct plugin_profiler_api, collect_data)
#define PJRT_PROFILER_EXTENSION_V0_SIZE PJRT_V1_SIZE(struct pjrt_profiler_extension, profiler_api)

#if defined(__LP64__)
_Static_assert(sizeof(struct pjrt_extension_base) == 24, "PJRT_Extension_Base");
_Static_assert(PLUGIN_PROFILER_API_V1_SIZE == 80, "PLUGIN_Profiler_Api v1");
_Static_assert(PJRT_V1_SIZE(struct pjrt_profiler_extension, traceme_context_id) == 40,
	       "PJRT_Profiler_Extension v1");
_Static_assert(PJRT_PROFILER_EXTENSION_V0_SIZE == 32, "PJRT_Profiler_Extension v0");
_Static_assert(PJRT_V1_SIZE(struct plugin_create_args, profiler) == 32, "Create_Args");
_Static_assert(PJRT_V1_SIZE(struct plugin_profiler_args, profiler) == 16, "Start_Args");
_Static_assert(PJRT_V1_SIZE(struct plugin_collect_args, buffer_size_in_bytes) == 32,
	       "CollectData_Args");
_Static_assert(PJRT_V1_SIZE(struct plugin_error_destroy_args, error) == 24, "Error_Destroy_Args");
_Static_assert(PJRT_V1_SIZE(struct plugin_error_message_args, message_size) == 40,
	       "Error_Message_Args");
_Static_assert(PJRT_V1_SIZE(struct plugin_error_get_code_args, code) == 28, "Error_GetCode_Args");
#endif

#endif
