/*
 * agent_host: encodes what libxtop-trace recorded as the fields of an
 * XPlane for /host:CPU, the way upstream's host tracer converts TraceMe
 * events: one line per thread (id = kernel tid, name = thread name), event
 * metadata named by the bare name, and each "#key=value#" pair of the
 * TraceMe encoding as a stat typed int64, else uint64, else double, else
 * string. Step markers become "train" events with step_num and _r=1.
 * Times are made relative to the capture's start (base_ns); a span still
 * open at the end of the capture ends there.
 *
 * Its thread and event functions are the registry's collect() callbacks
 * (src/trace/registry.h).
 */
#ifndef XT_AGENT_HOST_H
#define XT_AGENT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "../trace/registry.h"
#include "abuf.h"

struct name_tab {
	struct name_ent {
		char *s;
		size_t n;
		int64_t id;
	} *v;             /* open addressing; owned */
	size_t cap, used;
};

/* One thread's line, gathered from every copy of libxtop-trace that
 * recorded on the thread (a static copy in the program and one in a
 * library it loaded), so that their spans nest in one line. */
struct host_line {
	uint64_t tid;
	char tname[17];
	struct abuf ev;          /* its encoded XEvents, as they came */
	struct ev_ref {
		uint64_t start, end; /* ns */
		uint32_t at;         /* where in ev (a line's events stay under 4 GiB) */
		uint32_t len;
	} *refs;                 /* one per event, once a second copy records on the
				  * thread (refs_rebuild); sorted then */
	size_t nrefs, caprefs;
	int copies;              /* thread callbacks that opened it */
};

struct host_enc {
	struct abuf fields;      /* the XPlane fields: lines, then metadata (host_enc_finish) */
	struct host_line *lines; /* by first appearance; owned */
	size_t nlines, caplines;
	struct host_line *cur;   /* the thread being collected, or NULL */
	uint64_t base_ns, stop_ns;
	int64_t next_eid, next_sid; /* ids to give out next */
	struct name_tab enames, snames;
	uint64_t nev;            /* events encoded */
	uint64_t dropped;        /* events the library's threads could not keep */
	uint64_t drop_threads;   /* threads that dropped some */
	uint64_t lost;           /* events of threads that got no buffer */
	char thread_notes[1024]; /* a line for each of the first of them */
	char warnings[2048];     /* the totals, then thread_notes (host_enc_finish) */
	int oom;
};

/* Prepares an encoder for a capture [base_ns, stop_ns]; metadata ids start
 * above emax and smax (those of the plane the lines will join). */
void host_enc_init(struct host_enc *h, uint64_t base_ns, uint64_t stop_ns, int64_t emax,
		   int64_t smax);
/* The registry's collect() callbacks; ctx is the struct host_enc. */
void host_enc_thread(void *ctx, const struct xtop_trace_thread *t);
void host_enc_event(void *ctx, const struct xtop_trace_event *e);
/* Ends the last line and appends the metadata; h->fields is then complete.
 * Returns 0, or -1 when memory ran out (the fields are unusable). */
int host_enc_finish(struct host_enc *h);
void host_enc_fini(struct host_enc *h);

#endif
