/*
 * agent_pjrt: the PJRT plugins loaded in this process, driven through their
 * profiler extension (pjrt_abi.h). Discovery walks the loaded objects
 * (dl_iterate_phdr), takes a reference on each with dlopen(RTLD_NOLOAD |
 * RTLD_LAZY) (which never loads anything), and asks it for GetPjrtApi; the
 * extension chain of the PJRT_Api leads to PLUGIN_Profiler_Api. A plugin
 * profiles the process that loaded it: this one.
 *
 * Every call checks struct sizes first and returns plugin errors as text;
 * nothing here can abort the process.
 */
#ifndef XT_AGENT_PJRT_H
#define XT_AGENT_PJRT_H

#include <stddef.h>
#include <stdint.h>

#include "pjrt_abi.h"

#define AGENT_MAX_PLUGINS 8

struct agent_plugin {
	char path[256];                   /* the object that defines GetPjrtApi */
	void *handle;                     /* our dlopen reference; dlclose'd by release */
	const struct pjrt_api *api;
	const struct plugin_profiler_api *prof;
	int major, minor;                 /* PJRT API version (-1 when unknown) */
	struct plugin_profiler *profiler; /* during a capture */
	int started;
	const uint8_t *data;              /* the collected XSpace, trailing NUL trimmed */
	size_t len;
	uint8_t *own;                     /* data when we allocated it (else the plugin owns it) */
	char error[512];                  /* what went wrong, "" when nothing */
};

/*
 * Finds the loaded plugins that have a profiler: fills p (at most max) and
 * returns how many. Plugins without one are described in note (size n,
 * "" when none).
 */
int agent_pjrt_find(struct agent_plugin *p, int max, char *note, size_t n);
/* Creates and starts p's profiler with the serialized ProfileOptions.
 * Returns 0, or -1 with p->error. */
int agent_pjrt_start(struct agent_plugin *p, const void *opts, size_t len);
/* Stops p's profiler (idempotent). Returns 0, or -1 with p->error. */
int agent_pjrt_stop(struct agent_plugin *p);
/* Collects p's XSpace into p->data/len. Returns 0, or -1 with p->error
 * (including bytes that are not an XSpace). */
int agent_pjrt_collect(struct agent_plugin *p);
/* Destroys p's profiler (which frees a plugin-owned buffer), frees ours
 * and drops the dlopen reference. Can't fail. */
void agent_pjrt_release(struct agent_plugin *p);

#endif
