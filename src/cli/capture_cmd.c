/* capture_cmd: see capture_cmd.h. */
#include "capture_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../util/timefmt.h"
#include "../util/xalloc.h"
#include "config.h"
#include "options.h"

enum { OPT_DURATION = 1, OPT_LOGDIR, OPT_EVERY, OPT_KEEP, OPT_HOST, OPT_DEVICE, OPT_PYTHON,
       OPT_DEADLINE, OPT_TRACE_JSON, OPT_HELP };

static const struct xt_option capture_options[] = {
	{ OPT_DURATION, 'd', "duration", 1, "MS", "capture for MS milliseconds (default: the duration setting, 2000)" },
	{ OPT_LOGDIR, 'o', "logdir", 1, "DIR", "save under DIR/plugins/profile/<run>/ (default: the logdir setting, xtop-logdir)" },
	{ OPT_EVERY, 0, "every", 1, "SECONDS", "capture again every SECONDS until interrupted" },
	{ OPT_KEEP, 0, "keep", 1, "N", "with --every, keep only the last N runs this command made" },
	{ OPT_HOST, 0, "host-tracer", 1, "LEVEL", "host (TraceMe) tracer level 0-3 (default: setting, 2)" },
	{ OPT_DEVICE, 0, "device-tracer", 1, "LEVEL", "device tracer level 0-1 (default: setting, 1)" },
	{ OPT_PYTHON, 0, "python-tracer", 1, "LEVEL", "Python tracer level 0-1 (default: setting, 0)" },
	{ OPT_DEADLINE, 0, "deadline", 1, "MS", "give up on a host after MS (default max(60 s, 2 x duration))" },
	{ OPT_TRACE_JSON, 0, "trace-json", 0, NULL, "also write <host>.trace.json.gz (Perfetto, chrome://tracing)" },
	{ OPT_HELP, 'h', "help", 0, NULL, "show this help" },
	{ 0, 0, NULL, 0, NULL, NULL },
};

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
	if (stop_flag) {
		/* A second ^C: give up at once. */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	stop_flag = 1;
}

/* A run this command made, and the files it wrote there, each with what
 * it was when written (a file someone put in its place is theirs). */
struct kept_file {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};
struct kept_run {
	char *dir;
	struct kept_file *files;
	size_t nfiles;
};

static void kept_add(struct kept_run *k, const char *path)
{
	struct stat st;

	if (!path[0] || lstat(path, &st) != 0)
		return;
	k->files[k->nfiles++] = (struct kept_file){ xstrdup(path), st.st_dev, st.st_ino, st.st_size,
						    st.st_mtim };
}

static struct kept_run kept_run_of(const struct capture_result *r)
{
	struct kept_run k = { xstrdup(r->run_dir), xcalloc(3 * r->nhosts + 1, sizeof(*k.files)),
			      0 };
	size_t i;

	for (i = 0; i < r->nhosts; i++) {
		kept_add(&k, r->hosts[i].path);
		kept_add(&k, r->hosts[i].json);
		kept_add(&k, r->hosts[i].bad);
	}
	return k;
}

/* Whether f is still the file this command wrote. */
static int kept_same(const struct kept_file *f)
{
	struct stat st;

	return lstat(f->path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino &&
	       st.st_size == f->size && st.st_mtim.tv_sec == f->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == f->mtime.tv_nsec;
}

static void kept_run_free(struct kept_run *k)
{
	size_t i;

	for (i = 0; i < k->nfiles; i++)
		free(k->files[i].path);
	free(k->files);
	free(k->dir);
}

/* Removes the files this command wrote in a run it made, then the run's
 * directory when nothing else is left in it: what someone else put there
 * (notes, TensorBoard's caches) is theirs, and stays. */
static void remove_run(const struct kept_run *k, size_t keep)
{
	size_t i;

	for (i = 0; i < k->nfiles; i++) {
		if (kept_same(&k->files[i]))
			unlink(k->files[i].path);
		else if (!access(k->files[i].path, F_OK))
			printf("kept %s: not the file this capture wrote any more\n",
			       k->files[i].path);
	}
	if (rmdir(k->dir) == 0)
		printf("removed %s (keeping the last %zu run%s)\n", k->dir, keep,
		       keep == 1 ? "" : "s");
	else
		printf("removed the profiles of %s (keeping the last %zu run%s); the directory "
		       "stays: %s\n",
		       k->dir, keep, keep == 1 ? "" : "s",
		       errno == ENOTEMPTY || errno == EEXIST ? "it holds other files"
									  : strerror(errno));
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The last runs of one kind this command made, oldest first. */
struct run_queue {
	struct kept_run *v;
	size_t n;
};

/* Adds r's run to q, removing the oldest past keep. */
static void queue_run(struct run_queue *q, const struct capture_result *r, size_t keep)
{
	q->v[q->n++] = kept_run_of(r);
	while (q->n > keep) {
		remove_run(&q->v[0], keep);
		kept_run_free(&q->v[0]);
		memmove(q->v, q->v + 1, (q->n - 1) * sizeof(*q->v));
		q->n--;
	}
}

/* good: runs with a profile saved; bad: runs that hold only bytes that do
 * not read as a profile, kept aside for a bug report (a server sending
 * garbage at every capture must not fill the disk), each its own last N,
 * so that bad runs never push out good ones. */
static int capture_once(const struct capture_targets *tg, const struct capture_opts *o,
			struct run_queue *good, struct run_queue *bad, size_t keep)
{
	struct capture_result r;
	struct xt_error err;
	size_t i;
	int ok;

	if (capture_run(tg, o, &stop_flag, 0, &r, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	for (i = 0; i < r.nhosts; i++) {
		char b1[32], b2[32];

		if (r.hosts[i].path[0])
			printf("saved %s (%s, %s event%s) from %s\n", r.hosts[i].path,
			       fmt_bytes(b1, sizeof(b1), (double)r.hosts[i].bytes),
			       fmt_count(b2, sizeof(b2), r.hosts[i].events),
			       r.hosts[i].events == 1 ? "" : "s", r.hosts[i].addr);
		else
			fprintf(stderr, "xtop: %s\n", r.hosts[i].msg);
		if (r.hosts[i].warning[0])
			fprintf(stderr, "xtop: warning: %s\n", r.hosts[i].warning);
	}
	ok = r.nsaved == r.nhosts;
	if (r.nsaved) {
		printf("run %s: %zu of %zu host%s saved (open it with: xtop %s)\n", r.run_dir, r.nsaved,
		       r.nhosts, r.nhosts == 1 ? "" : "s", r.run_dir);
		if (keep)
			queue_run(good, &r, keep);
	} else if (keep && r.run_dir[0]) {
		int any_bad = 0;

		for (i = 0; i < r.nhosts; i++)
			any_bad |= r.hosts[i].bad[0] != '\0';
		if (any_bad)
			queue_run(bad, &r, keep);
	}
	fflush(stdout);
	capture_result_fini(&r);
	return ok ? 0 : 1;
}

int capture_main(int argc, char **argv)
{
	struct capture_opts o;
	struct config cfg;
	unsigned long long v, every = 0, keep = 0;
	struct option lopts[16];
	char sopts[64];
	struct run_queue good = { NULL, 0 }, bad = { NULL, 0 };
	struct capture_targets tg;
	size_t i;
	struct xt_error err;
	int c, rc;

	if (config_load(&cfg, &err) < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	config_capture_opts(&cfg, &o);
	options_build(capture_options, lopts, sopts, sizeof(sopts));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (options_id(capture_options, c)) {
		case OPT_DURATION:
			if (options_number("--duration", optarg, 1, 24ull * 3600 * 1000, "milliseconds",
					   &v))
				return 2;
			o.duration_ms = v;
			break;
		case OPT_LOGDIR:
			o.logdir = optarg;
			break;
		case OPT_DEADLINE:
			if (options_number("--deadline", optarg, 1, 7ull * 24 * 3600 * 1000,
					   "milliseconds", &v))
				return 2;
			o.deadline_ms = v;
			break;
		case OPT_TRACE_JSON:
			o.trace_json = 1;
			break;
		case OPT_EVERY:
			if (options_number("--every", optarg, 1, 7ull * 24 * 3600, "seconds", &every))
				return 2;
			break;
		case OPT_KEEP:
			if (options_number("--keep", optarg, 1, 100000, "a number of runs", &keep))
				return 2;
			break;
		case OPT_HOST:
			if (options_number("--host-tracer", optarg, 0, 3, "a level", &v))
				return 2;
			o.host_tracer = (unsigned)v;
			break;
		case OPT_DEVICE:
			if (options_number("--device-tracer", optarg, 0, 1, "a level", &v))
				return 2;
			o.device_tracer = (unsigned)v;
			break;
		case OPT_PYTHON:
			if (options_number("--python-tracer", optarg, 0, 1, "a level", &v))
				return 2;
			o.python_tracer = (unsigned)v;
			break;
		case OPT_HELP:
			options_usage(stdout, "xtop capture [options] HOST:PORT[,HOST:PORT...] | PID",
				      "Capture a profile from running workloads (started with xtop run, or running\n"
				      "jax.profiler.start_server or TensorFlow's profiler server) and save it for\n"
				      "xtop and TensorBoard.\n"
				      "^C stops the capture early and still saves what was collected.",
				      capture_options);
			return 0;
		default:
			options_error(capture_options, c, argv, "xtop capture");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xtop: capture needs one target: HOST:PORT[,HOST:PORT...] or a PID\n");
		return 2;
	}
	if (keep && !every) {
		fprintf(stderr, "xtop: --keep goes with --every\n");
		return 2;
	}
	rc = capture_targets_parse(argv[optind], &tg, &err);
	if (rc < 0) {
		fprintf(stderr, "xtop: %s\n", err.msg);
		return 2;
	}
	if (tg.warning[0])
		fprintf(stderr, "xtop: warning: %s\n", tg.warning);
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	if (keep) {
		good.v = xcalloc(keep + 1, sizeof(*good.v));
		bad.v = xcalloc(keep + 1, sizeof(*bad.v));
	}
	for (;;) {
		uint64_t t0 = mono_ms();

		rc = capture_once(&tg, &o, &good, &bad, (size_t)keep);
		if (!every || stop_flag || rc == 2)
			break;
		/* --every 2 is 2 s from this capture's start, not to the
		 * next change of a whole second (time()). */
		while (!stop_flag && mono_ms() - t0 < every * 1000)
			usleep(20000);
		if (stop_flag)
			break;
	}
	capture_targets_fini(&tg);
	for (i = 0; i < good.n; i++)
		kept_run_free(&good.v[i]);
	for (i = 0; i < bad.n; i++)
		kept_run_free(&bad.v[i]);
	free(good.v);
	free(bad.v);
	return rc;
}
