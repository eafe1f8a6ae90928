/* agent_pjrt: see agent_pjrt.h. */
#include "agent_pjrt.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_space.h"

struct objects {
	char **v;
	size_t n, cap;
};

static int collect_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objects *o = arg;
	char *s;

	(void)size;
	/* The main program has no name here; the vDSO has no file. */
	if (!info->dlpi_name || !info->dlpi_name[0] || !strncmp(info->dlpi_name, "linux-vdso", 10))
		return 0;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		char **v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return 1;
		o->v = v;
		o->cap = cap;
	}
	s = strdup(info->dlpi_name);
	if (s)
		o->v[o->n++] = s;
	return 0;
}

/* Records what a plugin lacks, for the note. */
static void note_add(char *note, size_t n, const char *path, const char *why)
{
	size_t k = strlen(note);

	if (k + 2 < n)
		snprintf(note + k, n - k, "%s%s: %s", k ? "; " : "", path, why);
}

/* Checks api and finds its profiler; returns NULL with *why set. */
static const struct plugin_profiler_api *profiler_of(const struct pjrt_api *api, const char **why)
{
	const struct pjrt_extension_base *e;
	int hops = 0;

	if (!api || api->struct_size < offsetof(struct pjrt_api, pjrt_api_version)) {
		*why = "GetPjrtApi returned no usable PJRT_Api";
		return NULL;
	}
	for (e = api->extension_start; e && hops < 64; e = e->next, hops++) {
		const struct pjrt_profiler_extension *pe = (const void *)e;

		if (e->type != PJRT_EXTENSION_PROFILER)
			continue;
		if (e->struct_size < PJRT_PROFILER_EXTENSION_V0_SIZE || !pe->profiler_api) {
			*why = "its profiler extension has no profiler";
			return NULL;
		}
		if (pe->profiler_api->struct_size < PLUGIN_PROFILER_API_V1_SIZE) {
			*why = "its profiler API is older than version 1";
			return NULL;
		}
		if (!pe->profiler_api->create || !pe->profiler_api->destroy ||
		    !pe->profiler_api->start || !pe->profiler_api->stop ||
		    !pe->profiler_api->collect_data || !pe->profiler_api->error_message ||
		    !pe->profiler_api->error_destroy) {
			*why = "its profiler API lacks a function";
			return NULL;
		}
		return pe->profiler_api;
	}
	*why = "it has no profiler extension";
	return NULL;
}

int agent_pjrt_find(struct agent_plugin *p, int max, char *note, size_t n)
{
	struct objects o = { NULL, 0, 0 };
	int np = 0;
	size_t i;

	note[0] = '\0';
	dl_iterate_phdr(collect_object, &o);
	for (i = 0; i < o.n; i++) {
		void *h = dlopen(o.v[i], RTLD_NOLOAD | RTLD_LAZY);
		void *sym = h ? dlsym(h, "GetPjrtApi") : NULL;
		const struct pjrt_api *api;
		const struct plugin_profiler_api *prof;
		const char *why = NULL;
		get_pjrt_api_fn *fn;
		Dl_info di;
		int k, dup = 0;

		if (!sym) {
			if (h)
				dlclose(h);
			continue;
		}
		/* dlsym also searches the object's dependencies: keep each
		 * GetPjrtApi once, under the object that defines it. */
		*(void **)&fn = sym;
		api = fn();
		for (k = 0; k < np; k++)
			dup |= p[k].api == api;
		if (dup || np >= max) {
			dlclose(h);
			continue;
		}
		prof = profiler_of(api, &why);
		if (!dladdr(sym, &di) || !di.dli_fname)
			di.dli_fname = o.v[i];
		if (!prof) {
			note_add(note, n, di.dli_fname, why);
			dlclose(h);
			continue;
		}
		memset(&p[np], 0, sizeof(p[np]));
		snprintf(p[np].path, sizeof(p[np].path), "%s", di.dli_fname);
		p[np].handle = h;
		p[np].api = api;
		p[np].prof = prof;
		p[np].major = p[np].minor = -1;
		if (api->struct_size >= offsetof(struct pjrt_api, pjrt_api_version) +
						offsetof(struct pjrt_api_version, minor_version) + sizeof(int)) {
			p[np].major = api->pjrt_api_version.major_version;
			p[np].minor = api->pjrt_api_version.minor_version;
		}
		np++;
	}
	for (i = 0; i < o.n; i++)
		free(o.v[i]);
	free(o.v);
	return np;
}

/* Takes a plugin error: its message into p->error (prefixed), then frees it. */
static int failed(struct agent_plugin *p, const char *what, struct plugin_profiler_error *e)
{
	struct plugin_error_message_args m;
	struct plugin_error_destroy_args d;

	memset(&m, 0, sizeof(m));
	m.struct_size = PJRT_V1_SIZE(struct plugin_error_message_args, message_size);
	m.error = e;
	p->prof->error_message(&m);
	snprintf(p->error, sizeof(p->error), "%s: %s: %.*s", p->path, what,
		 m.message ? (int)(m.message_size > 400 ? 400 : m.message_size) : 7,
		 m.message ? m.message : "unknown");
	memset(&d, 0, sizeof(d));
	d.struct_size = PJRT_V1_SIZE(struct plugin_error_destroy_args, error);
	d.error = e;
	p->prof->error_destroy(&d);
	return -1;
}

static struct plugin_profiler_args args_of(struct agent_plugin *p)
{
	struct plugin_profiler_args a;

	a.struct_size = PJRT_V1_SIZE(struct plugin_profiler_args, profiler);
	a.profiler = p->profiler;
	return a;
}

int agent_pjrt_start(struct agent_plugin *p, const void *opts, size_t len)
{
	struct plugin_create_args c;
	struct plugin_profiler_args a;
	struct plugin_profiler_error *e;

	memset(&c, 0, sizeof(c));
	c.struct_size = PJRT_V1_SIZE(struct plugin_create_args, profiler);
	c.options = opts;
	c.options_size = len;
	e = p->prof->create(&c);
	if (e)
		return failed(p, "cannot create its profiler", e);
	if (!c.profiler) {
		snprintf(p->error, sizeof(p->error), "%s: its profiler came back NULL", p->path);
		return -1;
	}
	p->profiler = c.profiler;
	a = args_of(p);
	e = p->prof->start(&a);
	if (e)
		return failed(p, "its profiler failed to start", e);
	p->started = 1;
	return 0;
}

int agent_pjrt_stop(struct agent_plugin *p)
{
	struct plugin_profiler_args a;
	struct plugin_profiler_error *e;

	if (!p->started)
		return 0;
	p->started = 0;
	a = args_of(p);
	e = p->prof->stop(&a);
	return e ? failed(p, "its profiler failed to stop", e) : 0;
}

int agent_pjrt_collect(struct agent_plugin *p)
{
	struct plugin_collect_args a;
	struct plugin_profiler_error *e;
	struct space_scan sc;

	memset(&a, 0, sizeof(a));
	a.struct_size = PJRT_V1_SIZE(struct plugin_collect_args, buffer_size_in_bytes);
	a.profiler = p->profiler;
	e = p->prof->collect_data(&a);
	if (e)
		return failed(p, "cannot collect its data", e);
	if (a.buffer) {
		/* XLA's plugins return their own buffer (valid until destroy). */
		p->data = a.buffer;
		p->len = a.buffer_size_in_bytes;
	} else if (a.buffer_size_in_bytes) {
		/* The header's protocol: size first, then fill our buffer. */
		p->own = malloc(a.buffer_size_in_bytes);
		if (!p->own) {
			snprintf(p->error, sizeof(p->error), "%s: no memory for its %zu-byte profile",
				 p->path, a.buffer_size_in_bytes);
			return -1;
		}
		a.buffer = p->own;
		e = p->prof->collect_data(&a);
		if (e)
			return failed(p, "cannot collect its data", e);
		p->data = p->own;
		p->len = a.buffer_size_in_bytes;
	}
	p->len = space_trim(p->data, p->len);
	if (p->len && space_scan(p->data, p->len, &sc) < 0) {
		snprintf(p->error, sizeof(p->error),
			 "%s: its %zu-byte profile is not an XSpace; left out", p->path, p->len);
		p->data = NULL;
		p->len = 0;
		return -1;
	}
	return 0;
}

void agent_pjrt_release(struct agent_plugin *p)
{
	if (p->profiler) {
		struct plugin_profiler_args a = args_of(p);
		struct plugin_profiler_error *e;

		agent_pjrt_stop(p);
		e = p->prof->destroy(&a);
		if (e)
			failed(p, "cannot destroy its profiler", e);
		p->profiler = NULL;
	}
	free(p->own);
	p->own = NULL;
	p->data = NULL;
	p->len = 0;
	if (p->handle)
		dlclose(p->handle);
	p->handle = NULL;
}
