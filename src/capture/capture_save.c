/* capture_save: see capture_save.h. */
#include "capture_save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>

#include "../model/trace_json.h"
#include "../model/xplane_reader.h"
#include "../model/xplane_writer.h"

static uint64_t device_events(const struct xt_host *h)
{
	uint64_t n = 0;
	size_t p;

	for (p = 0; p < h->nplanes; p++)
		if (!strncmp(h->planes[p].name, "/device:", 8))
			n += h->planes[p].nev;
	return n;
}

/* The C API's own warnings (libxtop-trace, through the agent) begin so;
 * they say what its bounds dropped, nothing about a device tracer. */
static int is_trace_note(const char *e)
{
	return !strncmp(e, "xtop trace: ", 12);
}

/* The host's errors, then warnings, joined ("" when none): those of the C
 * API (trace 1) or the others, the profilers' (trace 0). */
static void host_errors(const struct xt_host *h, char *out, size_t n, int trace)
{
	size_t i, got = 0;

	out[0] = '\0';
	for (i = 0; i < h->nerrors + h->nwarnings && got + 3 < n; i++) {
		const char *e = i < h->nerrors ? h->errors[i] : h->warnings[i - h->nerrors];

		if (is_trace_note(e) != trace)
			continue;
		got += (size_t)snprintf(out + got, n - got, "%s%s", got ? "; " : "", e);
		if (got >= n)
			got = n - 1;
	}
}

/* Why a capture came back empty, from the errors the profile carries: the
 * profilers' (why), else the C API's drops. */
static void empty_msg(struct capture_host *h, const char *label, const char *why,
		      const char *drops, const struct capture_opts *o)
{
	if (!why[0] && drops[0])
		snprintf(h->msg, sizeof(h->msg),
			 "%.100s: nothing was captured (empty trace): %.800s", label, drops);
	else if (!why[0])
		snprintf(h->msg, sizeof(h->msg),
			 "%.100s: nothing was captured (empty trace): was the workload running "
			 "during the capture?",
			 label);
	else if (o->device_tracer)
		snprintf(h->msg, sizeof(h->msg),
			 "%.100s: nothing was captured (empty trace): the device tracer failed "
			 "(%.800s)",
			 label, why);
	else
		snprintf(h->msg, sizeof(h->msg),
			 "%.100s: nothing was captured (empty trace): the profiler reported: %.800s",
			 label, why);
}

/* Judges a decoded capture: nothing in it, or no device events because the
 * device tracer failed, or C API events dropped. Returns -1 when it is not
 * worth keeping. */
static int judge(struct xt_trace *t, struct capture_job *j, const struct capture_opts *o,
		 struct capture_host *h)
{
	const struct xt_host *host = &t->hosts[t->nhosts - 1];
	char why[600], drops[600];

	host_errors(host, why, sizeof(why), 0);
	host_errors(host, drops, sizeof(drops), 1);
	if (host->nev == 0) {
		empty_msg(h, j->tg->label, why, drops, o);
		h->empty = 1;
		trace_host_fini(&t->hosts[--t->nhosts]);
		return -1;
	}
	if (o->device_tracer && why[0] && device_events(host) == 0 && (h->no_device = 1))
		snprintf(h->warning, sizeof(h->warning),
			 "%.100s: no device events, the device tracer failed (%.700s): the profile "
			 "has host events only",
			 j->tg->label, why);
	else if (drops[0])
		snprintf(h->warning, sizeof(h->warning),
			 "%.100s: not every C API event is in the profile (%.800s)", j->tg->label,
			 drops);
	return 0;
}

void capture_save(struct xt_trace *t, struct capture_job *j, const char *run_dir,
		  uint64_t start_ns, uint64_t stop_ns, const struct capture_opts *o,
		  struct capture_host *h)
{
	struct xplane_load_opts lo = { 0 };
	struct xt_error err;
	char file[4800];
	struct stat st;
	int rc;

	lo.keep_resident = 1;
	xplane_host_file(file, sizeof(file), run_dir, j->tg->host, ".xplane.pb");
	if (j->msg[0]) {
		snprintf(h->msg, sizeof(h->msg), "%s", j->msg);
		goto out;
	}
	if (j->empty) {
		char why[600] = "";

		if (j->data)
			xplane_space_errors(j->data, j->len, why, sizeof(why));
		/* Only the C API's drops: no profiler failed. */
		if (is_trace_note(why))
			empty_msg(h, j->tg->label, "", why, o);
		else
			empty_msg(h, j->tg->label, why, "", o);
		h->empty = 1;
		goto out;
	}
	if (j->server_wrote) {
		rc = xplane_load(t, file, j->tg->host, &lo, &err);
		if (stat(file, &st) == 0)
			h->bytes = (uint64_t)st.st_size;
	} else {
		struct xplane_write_opts wo = { j->tg->host, start_ns, stop_ns, 0 };

		/* The bytes in memory become exactly the file. */
		xplane_add_extras(&j->data, &j->len, &wo);
		if (o->in_memory) {
			/* Nothing is written; the trace is all there is. */
			snprintf(file, sizeof(file), "%.200s (in memory)", j->tg->label);
		} else if (xplane_write_bytes(file, j->data, j->len, NULL, &err) < 0) {
			snprintf(h->msg, sizeof(h->msg), "%.200s: %.700s", j->tg->label, err.msg);
			goto out;
		}
		h->bytes = j->len;
		rc = xplane_load_mem(t, j->data, j->len, file, j->tg->host, &lo, &err);
		j->data = NULL;
	}
	if (rc < 0) {
		if (o->in_memory && !j->server_wrote) {
			snprintf(h->msg, sizeof(h->msg),
				 "%.200s: the capture does not read as a profile: %.400s",
				 j->tg->label, err.msg);
		} else {
			/* Kept for a bug report, but under a name no loader
			 * takes, so that it does not make the run, or the
			 * logdir whose newest run this is, fail to open. */
			snprintf(h->bad, sizeof(h->bad), "%.4091s.bad", file);
			if (link(file, h->bad) == 0)
				unlink(file);
			else if (errno == EEXIST || rename(file, h->bad) != 0)
				/* A file system without hard links renames (the
				 * name is new in a new run directory); else it
				 * stays where it is. */
				snprintf(h->bad, sizeof(h->bad), "%.4095s", file);
			snprintf(h->msg, sizeof(h->msg),
				 "%.200s: saved %.300s, but it does not read as a profile: %.400s",
				 j->tg->label, h->bad, err.msg);
		}
		goto out;
	}
	if (judge(t, j, o, h) < 0) {
		if (!o->in_memory)
			unlink(file); /* ours: a new file in the new run directory */
		goto out;
	}
	h->captured = 1;
	if (!o->in_memory)
		snprintf(h->path, sizeof(h->path), "%.4095s", file);
	h->events = t->hosts[t->nhosts - 1].nev;
	if (o->trace_json && !o->in_memory) {
		char json[4800];
		size_t k = strlen(file);

		/* x.xplane.pb -> x.trace.json.gz */
		snprintf(json, sizeof(json), "%.*s.trace.json.gz", (int)(k - 10), file);
		if (trace_json_write(&t->hosts[t->nhosts - 1], json, &err) < 0)
			snprintf(h->warning, sizeof(h->warning), "%.200s: %.600s", j->tg->label,
				 err.msg);
		else
			snprintf(h->json, sizeof(h->json), "%.4095s", json);
	}
out:
	free(j->data);
	j->data = NULL;
}
