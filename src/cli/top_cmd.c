/* top_cmd: see top_cmd.h. The options, and the batch mode: the same watch
 * engine and event loop as the screen, printing each refresh instead of
 * drawing it. */
#include "top_cmd.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../capture/watch.h"
#include "../model/rolling.h"
#include "../ui/loop.h"
#include "../ui/reaction.h"
#include "../ui/top.h"
#include "../util/strbuf.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "config.h"
#include "options.h"
#include "texttab.h"

enum { OPT_EVERY = 1, OPT_DURATION, OPT_AVERAGE, OPT_LOGDIR, OPT_BATCH, OPT_JSON, OPT_TOP,
       OPT_SORT, OPT_HOST, OPT_DEVICE, OPT_PYTHON, OPT_DEADLINE, OPT_ASCII, OPT_HELP };

static const struct xt_option top_options[] = {
	{ OPT_EVERY, 'e', "every", 1, "SECONDS",
	  "start a capture every SECONDS, e.g. 5 or 0.5 (default: the top_every setting, 5)" },
	{ OPT_DURATION, 'd', "duration", 1, "MS",
	  "each capture records MS milliseconds (default: the top_duration setting, 1000)" },
	{ OPT_AVERAGE, 'a', "average", 1, "N", "average over the last N captures (default 10)" },
	{ OPT_LOGDIR, 'o', "logdir", 1, "DIR",
	  "x saves the newest capture under DIR (default: the logdir setting, xtop-logdir)" },
	{ OPT_BATCH, 'b', "batch", 1, "N",
	  "no screen: print N refreshes as text tables and exit (0: until interrupted)" },
	{ OPT_JSON, 0, "json", 0, NULL, "no screen: print one JSON object per refresh (with --batch N: N)" },
	{ OPT_TOP, 'n', "top", 1, "N", "batch tables show the top N ops (default 20; 0 = all)" },
	{ OPT_SORT, 's', "sort", 1, "COLUMN",
	  "sort by latest, avg, change, chg%, count, share, seen, program or op (default latest)" },
	{ OPT_HOST, 0, "host-tracer", 1, "LEVEL", "host (TraceMe) tracer level 0-3 (default: setting, 2)" },
	{ OPT_DEVICE, 0, "device-tracer", 1, "LEVEL", "device tracer level 0-1 (default: setting, 1)" },
	{ OPT_PYTHON, 0, "python-tracer", 1, "LEVEL", "Python tracer level 0-1 (default: setting, 0)" },
	{ OPT_DEADLINE, 0, "deadline", 1, "MS",
	  "give up on a capture after MS (default: the deadline setting, else duration + 20 s)" },
	{ OPT_ASCII, 0, "ascii", 0, NULL, "draw with ASCII only" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

struct top_cmd {
	struct top_opts o;
	int batch;           /* 1: no screen */
	unsigned long count; /* refreshes to print; 0 = until interrupted */
	int json;
	size_t top;          /* table rows (text) */
};

/* "--every 2.5": seconds with up to three decimals, 0.1 to a day. */
static int parse_every(const char *v, uint64_t *ms)
{
	if (options_seconds(v, 86400, ms) == 0)
		return 0;
	options_say("--every needs a number of seconds from 0.1 to 86400, not '%s'", v);
	return -1;
}

/* ---- batch output ---- */

static void clock_text(char *buf, size_t n, uint64_t wall_ns)
{
	time_t s = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	localtime_r(&s, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

static void secs_text(char *buf, size_t n, uint64_t ms)
{
	snprintf(buf, n, ms < 10000 ? "%.2f s" : "%.1f s", (double)ms / 1000.0);
}

static void print_table(struct strbuf *o, const struct watch *w, const struct top_cmd *c)
{
	const struct rolling *r = w->roll;
	struct tt_col cols[ROLLING_NCOLS];
	char cell[ROLLING_NCOLS][512];
	const char *cells[ROLLING_NCOLS];
	struct texttab tt;
	size_t *order = xmalloc((r->nops ? r->nops : 1) * sizeof(size_t)), i, n;
	int k;

	for (k = 0; k < ROLLING_NCOLS; k++) {
		const struct rolling_column *rc = &rolling_columns[k];

		/* The column the table is sorted by stays, as on the screen. */
		cols[k] = (struct tt_col){ rc->name, rc->width, rc->right,
					   k == (int)c->o.sort ? 0 : rc->drop };
		cells[k] = cell[k];
	}
	tt_init(&tt, cols, ROLLING_NCOLS, tt_output_width(0), 1, 26);
	rolling_sorted(r, c->o.sort, order);
	n = c->top && c->top < r->nops ? c->top : r->nops;
	tt_head(&tt, o);
	for (i = 0; i < n; i++) {
		for (k = 0; k < ROLLING_NCOLS; k++)
			rolling_columns[k].text((void *)r, order[i], cell[k], sizeof(cell[k]));
		tt_row(&tt, o, cells);
	}
	if (n < r->nops)
		strbuf_addf(o, " (%zu more ops; --top N shows more)\n", r->nops - n);
	free(order);
}

static void print_text(struct strbuf *o, const struct watch *w, const struct top_cmd *c,
		       uint64_t now_ms)
{
	char when[32], took[32], busy[32], of[32] = "", events[32];
	int64_t due = watch_due_in(w, now_ms);

	clock_text(when, sizeof(when), w->wall_ns);
	secs_text(took, sizeof(took), w->took_ms);
	if (c->count)
		snprintf(of, sizeof(of), " of %lu", c->count);
	if (w->last_failed) {
		char retry[64] = "";

		if (due >= 0 && (!c->count || w->refreshes < c->count))
			snprintf(retry, sizeof(retry), ", retrying in %.1f s", (double)due / 1000.0);
		strbuf_addf(o, "xtop top %s: refresh %lu%s at %s: capture failed%s: %s\n\n", c->o.target,
			    w->refreshes, of, when, retry, w->msg);
		return;
	}
	fmt_ps(busy, sizeof(busy), w->ok_busy_ps);
	strbuf_addf(o, "xtop top %s: refresh %lu%s at %s, took %s\n", c->o.target, w->refreshes, of,
		    when, took);
	/* Two lines: the text output fits 80 columns, and on one line these
	 * took 82 at 19,217 events. */
	strbuf_addf(o, "device busy %s, %zu ops, %s events\n", busy, w->roll->nops,
		    fmt_count(events, sizeof(events), w->ok_events));
	strbuf_addf(o, "average of %zu capture%s (last %zu kept)\n", w->roll->n,
		    w->roll->n == 1 ? "" : "s", w->roll->window);
	if (w->msg[0])
		strbuf_addf(o, "warning: %s\n", w->msg);
	print_table(o, w, c);
	strbuf_puts(o, "\n");
}

static void json_num(struct strbuf *o, const char *key, double v, int integer)
{
	strbuf_addf(o, ",\"%s\":", key);
	if (isnan(v))
		strbuf_puts(o, "null");
	else if (integer)
		strbuf_addf(o, "%lld", (long long)llround(v));
	else
		strbuf_addf(o, "%.3f", v);
}

static void print_json(struct strbuf *o, const struct watch *w, const struct top_cmd *c,
		       uint64_t now_ms)
{
	const struct rolling *r = w->roll;
	size_t *order, i;
	int64_t due = watch_due_in(w, now_ms);

	strbuf_addf(o, "{\"refresh\":%lu,\"target\":", w->refreshes);
	strbuf_json_str(o, c->o.target, strlen(c->o.target));
	strbuf_addf(o, ",\"start_ns\":%" PRIu64 ",\"took_ms\":%" PRIu64 ",\"duration_ms\":%" PRIu64
		       ",\"every_ms\":%" PRIu64 ",\"hosts\":%zu,\"hosts_captured\":%zu,\"error\":",
		    w->wall_ns, w->took_ms, c->o.duration_ms, c->o.every_ms, w->hosts, w->hosts_ok);
	if (w->last_failed) {
		strbuf_json_str(o, w->msg, strlen(w->msg));
		/* As the text: no retry after the last refresh asked for. */
		if (due >= 0 && (!c->count || w->refreshes < c->count))
			strbuf_addf(o, ",\"retry_in_ms\":%lld", (long long)due);
		else
			strbuf_puts(o, ",\"retry_in_ms\":null");
		/* Every object has every key: what this refresh did not
		 * measure is null; the window's captures are still there. */
		strbuf_addf(o, ",\"warning\":null,\"captures\":%zu,\"window\":%zu,\"busy_ps\":null,"
			       "\"events\":null,\"ops\":null}\n",
			    r->n, r->window);
		return;
	}
	strbuf_puts(o, "null,\"retry_in_ms\":null,\"warning\":");
	if (w->msg[0])
		strbuf_json_str(o, w->msg, strlen(w->msg));
	else
		strbuf_puts(o, "null");
	strbuf_addf(o, ",\"captures\":%zu,\"window\":%zu,\"busy_ps\":%" PRId64 ",\"events\":%" PRIu64
		       ",\"ops\":[",
		    r->n, r->window, w->ok_busy_ps, w->ok_events);
	order = xmalloc((r->nops ? r->nops : 1) * sizeof(size_t));
	rolling_sorted(r, c->o.sort, order);
	for (i = 0; i < r->nops; i++) {
		const struct rolling_op *op = &r->ops[order[i]];
		double d, pct;
		int has = rolling_change(r, order[i], &d, &pct);

		strbuf_puts(o, i ? ",{\"name\":" : "{\"name\":");
		strbuf_json_str(o, op->name, strlen(op->name));
		strbuf_puts(o, ",\"program\":");
		strbuf_json_str(o, op->program, strlen(op->program));
		strbuf_puts(o, ",\"category\":");
		strbuf_json_str(o, op->category, strlen(op->category));
		strbuf_addf(o, ",\"latest_ps\":%" PRId64 ",\"occurrences\":%" PRIu64,
			    rolling_latest_ps(r, order[i]), rolling_latest_occ(r, order[i]));
		json_num(o, "avg_ps", rolling_avg_ps(r, order[i]), 1);
		json_num(o, "change_ps", has ? d : NAN, 1);
		json_num(o, "change_percent", has ? pct : NAN, 0);
		json_num(o, "share_percent", rolling_share(r, order[i]), 0);
		strbuf_addf(o, ",\"seen\":%u,\"new\":%s}", op->seen,
			    rolling_is_new(r, order[i]) ? "true" : "false");
	}
	strbuf_puts(o, "]}\n");
	free(order);
}

/* ---- the batch loop ---- */

struct batch {
	struct watch *w;
	struct loop l;
	const struct top_cmd *c;
	long timer;
	int rc;
};

static volatile sig_atomic_t stop_sig;
static struct loop *sig_loop;

static void on_signal(int sig)
{
	stop_sig = sig;
	if (sig_loop)
		loop_wake(sig_loop);
}

static void rearm(struct batch *b)
{
	int64_t due = watch_due_in(b->w, loop_now(&b->l));

	if (due >= 0)
		loop_timer_set(&b->l, b->timer, (uint64_t)due);
	else
		loop_timer_stop(&b->l, b->timer);
}

static unsigned on_schedule(void *arg, long id)
{
	struct batch *b = arg;

	(void)id;
	watch_tick(b->w, loop_now(&b->l));
	rearm(b);
	return 0;
}

static unsigned on_capture(void *arg, int fd, unsigned events)
{
	struct batch *b = arg;
	struct watch *w = b->w;
	uint64_t now = loop_now(&b->l);
	struct strbuf o;

	(void)fd;
	(void)events;
	if (!watch_collect(w, now))
		return 0;
	if (w->refreshes == 1 && w->last_failed && !w->reached) {
		/* Refused at the start: nothing to watch. */
		fprintf(stderr, "xtop: %s\n", w->msg);
		b->rc = 2;
		return UI_QUIT;
	}
	strbuf_init(&o);
	if (b->c->json)
		print_json(&o, w, b->c, now);
	else
		print_text(&o, w, b->c, now);
	fwrite(o.buf, 1, o.len, stdout);
	strbuf_fini(&o);
	if (options_stdout_done() < 0) {
		b->rc = 1; /* nowhere to print to: top's answer is lost */
		return UI_QUIT;
	}
	/* A later failure is in its refresh (text or JSON), not on stderr:
	 * top goes on, and the exit status says it happened. */
	if (w->last_failed)
		b->rc = 1;
	if (b->c->count && w->refreshes >= b->c->count)
		return UI_QUIT;
	rearm(b);
	return 0;
}

static unsigned on_wake(void *arg)
{
	(void)arg;
	return stop_sig ? UI_QUIT : 0;
}

static int top_batch(struct watch *w, const struct top_cmd *c)
{
	struct batch b;
	struct xt_error err;

	memset(&b, 0, sizeof(b));
	b.w = w;
	b.c = c;
	if (loop_init(&b.l, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	loop_add_fd(&b.l, watch_wake_fd(w), on_capture, &b);
	loop_on_wake(&b.l, on_wake, &b);
	b.timer = loop_add_timer(&b.l, 0, 0, on_schedule, &b);
	sig_loop = &b.l;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	loop_run(&b.l);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sig_loop = NULL;
	loop_fini(&b.l);
	/* Asked for N refreshes and stopped before: a script must see that
	 * it got fewer (with no count, a signal is how top --json ends). */
	if (stop_sig && c->count && w->refreshes < c->count && b.rc == 0) {
		fprintf(stderr, "xtop: stopped by %s after %lu of %lu refreshes\n",
			stop_sig == SIGINT ? "SIGINT" : "SIGTERM", w->refreshes, c->count);
		b.rc = 1;
	}
	return b.rc;
}

/* ---- the command ---- */

static int parse(int argc, char **argv, struct top_cmd *c, struct capture_opts *co, int *done)
{
	unsigned long long v;
	struct option lopts[20];
	char sopts[64];
	int ch;

	options_build(top_options, lopts, sopts, sizeof(sopts));
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(top_options, ch)) {
		case OPT_EVERY:
			if (parse_every(optarg, &c->o.every_ms) < 0)
				return 2;
			break;
		case OPT_DURATION:
			if (options_number("--duration", optarg, 1, 24ull * 3600 * 1000, "milliseconds",
					   &v))
				return 2;
			c->o.duration_ms = v;
			break;
		case OPT_AVERAGE:
			if (options_number("--average", optarg, 1, ROLLING_MAX_WINDOW,
					   "a number of captures", &v))
				return 2;
			c->o.window = (size_t)v;
			break;
		case OPT_LOGDIR:
			c->o.logdir = optarg;
			break;
		case OPT_BATCH:
			if (options_number("--batch", optarg, 0, 1000000000, "a number of refreshes", &v))
				return 2;
			c->batch = 1;
			c->count = (unsigned long)v;
			break;
		case OPT_JSON:
			c->json = 1;
			c->batch = 1;
			break;
		case OPT_TOP:
			if (options_number("--top", optarg, 0, SIZE_MAX, "a number of rows (0 = all)", &v))
				return 2;
			c->top = (size_t)v;
			break;
		case OPT_SORT:
			c->o.sort = rolling_column_find(optarg);
			if (c->o.sort < 0) {
				fprintf(stderr, "xtop: --sort needs one of latest, avg, change, chg%%, count, "
						"share, seen, program, op, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_HOST:
			if (options_number("--host-tracer", optarg, 0, 3, "a level", &v))
				return 2;
			co->host_tracer = (unsigned)v;
			break;
		case OPT_DEVICE:
			if (options_number("--device-tracer", optarg, 0, 1, "a level", &v))
				return 2;
			co->device_tracer = (unsigned)v;
			break;
		case OPT_PYTHON:
			if (options_number("--python-tracer", optarg, 0, 1, "a level", &v))
				return 2;
			co->python_tracer = (unsigned)v;
			break;
		case OPT_DEADLINE:
			if (options_number("--deadline", optarg, 1, 7ull * 24 * 3600 * 1000,
					   "milliseconds", &v))
				return 2;
			co->deadline_ms = v;
			break;
		case OPT_ASCII:
			c->o.ascii = 1;
			break;
		case OPT_HELP:
			options_usage(stdout, "xtop top [options] HOST:PORT[,HOST:PORT...] | PID",
				      "A live table of the device ops of running workloads, refreshed from a\n"
				      "short capture every few seconds (kept in memory, never written unless\n"
				      "you save one): each op's self time in the newest capture, its average\n"
				      "over the last N captures and the change. Keys: p pauses, x saves the\n"
				      "newest capture, Enter opens it in the viewer, ? lists them all.\n"
				      "Without a terminal, use --batch N or --json.",
				      top_options);
			*done = 1;
			return 0;
		default:
			options_error(top_options, ch, argv, "xtop top");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xtop: top needs one target: HOST:PORT[,HOST:PORT...] or a PID\n");
		return 2;
	}
	c->o.target = argv[optind];
	return 0;
}

int top_main(int argc, char **argv)
{
	struct top_cmd c;
	struct capture_opts co;
	struct config cfg;
	struct xt_error err;
	struct watch w;
	int rc, done = 0;

	if (config_load(&cfg, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	config_capture_opts(&cfg, &co);
	c.o.every_ms = config_ms(&cfg, CFG_EVERY);
	c.o.duration_ms = config_num(&cfg, CFG_TOP_DURATION);
	c.o.window = 10;
	c.o.sort = ROLLING_COL_LATEST;
	c.o.logdir = co.logdir;
	c.top = 20;
	rc = parse(argc, argv, &c, &co, &done);
	if (rc || done)
		return rc;
	co.duration_ms = c.o.duration_ms;
	co.logdir = c.o.logdir;
	/* A stuck server is news within seconds, not after upstream's 60. */
	if (!co.deadline_ms)
		co.deadline_ms = c.o.duration_ms + 20000;
	if (watch_init(&w, c.o.target, &co, c.o.every_ms, c.o.window, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		watch_fini(&w);
		return 2;
	}
	if (w.cap.tg.warning[0])
		fprintf(stderr, "xtop: warning: %s\n", w.cap.tg.warning);
	if (!c.batch && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))) {
		fprintf(stderr, "xtop: top needs a terminal; use --batch N (or --json) to print refreshes "
				"as text\n");
		watch_fini(&w);
		return 2;
	}
	rc = c.batch ? top_batch(&w, &c) : top_tui(&w, &c.o);
	if (watch_stop(&w, 3000) < 0) {
		/* The server answers neither the capture nor the request to end
		 * it: leave without it. The worker is blocked in the gRPC
		 * library, so no exit handlers run (the library's own could
		 * wait for it): its scratch directory goes first. */
		capture_scratch_clean();
		fflush(NULL);
		_exit(rc);
	}
	watch_fini(&w);
	return rc;
}
