/* trace_json: see trace_json.h. */
#include "trace_json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "stats.h"
#include "xplane_writer.h"

/* Stats upstream keeps out of the trace viewer's args. */
static int internal_stat(const char *name)
{
	static const char *const hidden[] = { "_pt", "_p", "_ct", "_c", "_r", "flops", "program_id",
					      "symbol_id" };
	size_t i;

	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (!strcmp(name, hidden[i]))
			return 1;
	return 0;
}

static long plane_pid(const struct xt_plane *p, size_t index)
{
	if (!strcmp(p->name, "/host:CPU"))
		return 701;
	if (!strncmp(p->name, "/device:", 8))
		return 1 + (long)p->id;
	return 1000 + (long)index;
}

/* ps as microseconds with picosecond precision, like upstream. */
static void put_us(struct strbuf *b, int64_t ps)
{
	uint64_t a = ps < 0 ? 0 - (uint64_t)ps : (uint64_t)ps; /* INT64_MIN's too */

	strbuf_addf(b, "%s%" PRIu64 ".%06" PRIu64, ps < 0 ? "-" : "", a / 1000000, a % 1000000);
}

static void put_args(struct strbuf *b, const struct xt_host *h, const struct xt_plane *p,
		     const struct xt_line *l, const struct xt_event *ev)
{
	const struct xt_event_meta *m = xt_event_meta(p, ev);
	struct stat_iter it;
	struct xt_stat s;
	int pass, first = 1;
	char val[512];

	strbuf_puts(b, ",\"args\":{");
	if (m->display_name[0]) {
		strbuf_puts(b, "\"long_name\":");
		strbuf_json_str(b, m->name, strlen(m->name));
		first = 0;
	}
	/* Metadata stats first, then the event's, as upstream. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			stat_iter_meta(&it, h, p, m);
		else
			stat_iter_event(&it, h, p, l, ev);
		while (stat_next(&it, &s)) {
			const char *name = s.meta ? s.meta->name : "";

			if (!name[0] || internal_stat(name))
				continue;
			if (!first)
				strbuf_puts(b, ",");
			first = 0;
			strbuf_json_str(b, name, strlen(name));
			strbuf_puts(b, ":");
			if (s.kind == XT_STAT_STR || s.kind == XT_STAT_REF)
				strbuf_json_str(b, s.s, s.n);
			else {
				stat_to_text(&s, val, sizeof(val));
				strbuf_json_str(b, val, strlen(val));
			}
		}
	}
	strbuf_puts(b, "}");
}

static int flush(gzFile gz, struct strbuf *b, int force)
{
	if (!force && b->len < (1u << 20))
		return 0;
	if (b->len && gzwrite(gz, b->buf, (unsigned)b->len) != (int)b->len)
		return -1;
	strbuf_reset(b);
	return 0;
}

int trace_json_write(const struct xt_host *h, const char *path, struct xt_error *err)
{
	size_t p, l, e;
	char *tmp;
	struct strbuf b;
	gzFile gz;
	int fd = xplane_tmp_create(path, &tmp, err), rc, bad = 0;

	if (fd < 0)
		return fd;
	gz = gzdopen(fd, "wb6");
	strbuf_init(&b);
	strbuf_puts(&b, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},"
			"\"traceEvents\":[");
	for (p = 0; p < h->nplanes && !bad; p++) {
		const struct xt_plane *pl = &h->planes[p];
		long pid = plane_pid(pl, p);

		if (!pl->nlines)
			continue;
		strbuf_addf(&b, "{\"ph\":\"M\",\"pid\":%ld,\"name\":\"process_name\",\"args\":{\"name\":", pid);
		strbuf_json_str(&b, pl->name, strlen(pl->name));
		strbuf_addf(&b, "}},{\"ph\":\"M\",\"pid\":%ld,\"name\":\"process_sort_index\","
				"\"args\":{\"sort_index\":%ld}},",
			    pid, pid);
		for (l = 0; l < pl->nlines && !bad; l++) {
			const struct xt_line *ln = &pl->lines[l];
			int64_t tid = ln->display_id ? ln->display_id : ln->id;
			const char *lname = ln->display_name[0] ? ln->display_name : ln->name;

			if (!strcmp(ln->name, "Async XLA Ops"))
				continue; /* upstream leaves these out of the trace viewer */
			strbuf_addf(&b, "{\"ph\":\"M\",\"pid\":%ld,\"tid\":%" PRId64
					",\"name\":\"thread_name\",\"args\":{\"name\":",
				    pid, tid);
			strbuf_json_str(&b, lname, strlen(lname));
			strbuf_addf(&b, "}},{\"ph\":\"M\",\"pid\":%ld,\"tid\":%" PRId64
					",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}},",
				    pid, tid, l + 1);
			for (e = 0; e < ln->nev; e++) {
				const struct xt_event *ev = &ln->ev[e];
				const char *name = trace_event_display_name(pl, ev);

				if (xt_event_aggregated(ev))
					continue;
				strbuf_addf(&b, "{\"ph\":\"X\",\"pid\":%ld,\"tid\":%" PRId64 ",\"ts\":",
					    pid, tid);
				/* From the host's own profile start, as upstream
				 * writes it: not moved by the clock of a trace with
				 * other hosts (clock.h). */
				put_us(&b, xt_ps_sub(xt_event_start(ln, ev), h->origin_ps));
				strbuf_puts(&b, ",\"dur\":");
				put_us(&b, xt_event_dur(ln, ev) > 0 ? xt_event_dur(ln, ev) : 1);
				strbuf_puts(&b, ",\"name\":");
				strbuf_json_str(&b, name, strlen(name));
				put_args(&b, h, pl, ln, ev);
				strbuf_puts(&b, "},");
				if (flush(gz, &b, 0) < 0)
					bad = 1;
			}
		}
	}
	/* The trailing {} closes the comma list, as upstream writes it. */
	strbuf_puts(&b, "{}]}");
	if (!bad && flush(gz, &b, 1) < 0)
		bad = 1;
	if (gzclose(gz) != Z_OK)
		bad = 1;
	rc = xplane_tmp_commit(tmp, path, !bad, err);
	strbuf_fini(&b);
	return rc;
}
