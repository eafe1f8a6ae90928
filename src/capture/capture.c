/* capture: see capture.h. Targets, the backend table and the capture run;
 * saving and verifying is capture_save.c. */
#include "capture.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../model/profile_path.h"
#include "../model/xplane_writer.h"
#include "../util/xalloc.h"
#include "backend.h"
#include "capture_save.h"
#include "workload.h"

/* The order in which a PID is offered: the agent needs no port and knows
 * the process for sure, so it goes first. */
static const struct capture_backend *const backends[] = {
	&capture_backend_agent,
	&capture_backend_service,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

#define HOW_TO_START                                                                               \
	"start it with `xtop run -- CMD` (or `xtop --attach -- CMD`), or call "                  \
	"jax.profiler.start_server(9999) in it (TensorFlow: "                                      \
	"tf.profiler.experimental.server.start(9999))"

static int valid_addr(const char *a)
{
	const char *colon = strrchr(a, ':'), *c;
	char *end;
	long port;

	if (!colon || colon == a || strchr(a, '/') || strchr(a, ' '))
		return 0;
	for (c = a; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0; /* no host name has a control character */
	port = strtol(colon + 1, &end, 10);
	return *end == '\0' && end != colon + 1 && port > 0 && port < 65536;
}

static struct capture_target *target_add(struct capture_targets *tg)
{
	tg->v = xreallocarray(tg->v, tg->n + 1, sizeof(*tg->v));
	memset(&tg->v[tg->n], 0, sizeof(tg->v[0]));
	return &tg->v[tg->n++];
}

/* Offers pid to each backend in turn. */
static int find_pid(pid_t pid, struct capture_targets *tg, struct xt_error *err)
{
	char reasons[NBACKENDS][512];
	struct capture_target t;
	size_t b;

	{
		/* A workload that has ended (a zombie, or one xtop run saw
		 * end) is said to be so: its agent's socket may still be
		 * there, and "runs no profiler server" would mislead. */
		char how[128];
		int crashed, gone = kill(pid, 0) < 0 && errno == ESRCH;

		if (workload_ended(pid, 0, NULL, how, sizeof(how), &crashed) && strcmp(how, "exited"))
			return xt_error_set(err, XT_ENOENT, "process %d has ended (%s): nothing to capture",
					    (int)pid, how);
		if (gone)
			return xt_error_set(err, XT_ENOENT, "no process with PID %d", (int)pid);
	}
	for (b = 0; b < NBACKENDS; b++) {
		struct xt_error e = { "" };
		int rc;

		memset(&t, 0, sizeof(t));
		t.cmdbuf_flags = -1;
		rc = backends[b]->find(pid, &t, &e);
		if (rc == 0) {
			struct capture_target *nt = target_add(tg);

			*nt = t;
			nt->be = backends[b];
			nt->pid = pid;
			if (!nt->label[0])
				snprintf(nt->label, sizeof(nt->label), "%.127s", nt->addr);
			if (!nt->host[0])
				snprintf(nt->host, sizeof(nt->host), "%.127s", nt->addr);
			if (workload_cmdbuf_on(pid, nt->cmdbuf_flags))
				snprintf(tg->warning, sizeof(tg->warning),
					 "PID %d runs XLA's CUDA plugin with CUDA command buffers on: "
					 "a capture can crash it (README, Known issues); xtop run starts "
					 "workloads with them off",
					 (int)pid);
			return 0;
		}
		if (rc != XT_ENOENT)
			return xt_error_set(err, rc, "%s", e.msg);
		snprintf(reasons[b], sizeof(reasons[b]), "%s", e.msg);
	}
	{
		const char *svc = "", *agent = "";

		for (b = 0; b < NBACKENDS; b++) {
			if (backends[b] == &capture_backend_service)
				svc = reasons[b];
			else if (backends[b] == &capture_backend_agent)
				agent = reasons[b];
		}
		return xt_error_set(err, XT_ENOENT,
				    "process %d runs no profiler server%s%.200s%s and has no xtop agent%s%.100s%s: " HOW_TO_START,
				    (int)pid, *svc ? " (" : "", svc, *svc ? ")" : "", *agent ? " (" : "",
				    agent, *agent ? ")" : "");
	}
}

int capture_targets_parse(const char *spec, struct capture_targets *tg, struct xt_error *err)
{
	char *copy, *tok, *save = NULL;
	const char *p;

	memset(tg, 0, sizeof(*tg));
	if (!spec || !*spec)
		return xt_error_set(err, XT_EUSAGE, "no capture target (give HOST:PORT or a PID)");
	for (p = spec; *p >= '0' && *p <= '9'; p++)
		;
	if (!*p) {
		long pid = strtol(spec, NULL, 10);
		int rc;

		if (pid <= 0 || pid > INT_MAX)
			return xt_error_set(err, XT_EUSAGE, "bad PID %s", spec);
		rc = find_pid((pid_t)pid, tg, err);
		if (rc < 0)
			capture_targets_fini(tg);
		return rc;
	}
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *a = tok;
		struct capture_target *t;

		if (!strncmp(a, "grpc://", 7))
			a += 7;
		if (!valid_addr(a)) {
			capture_targets_fini(tg);
			xt_error_set(err, XT_EUSAGE,
				     "bad address '%s' (expected HOST:PORT, e.g. localhost:9999, or a PID)",
				     tok);
			free(copy);
			return XT_EUSAGE;
		}
		t = target_add(tg);
		t->be = &capture_backend_service;
		snprintf(t->addr, sizeof(t->addr), "%s", a);
		snprintf(t->label, sizeof(t->label), "%.127s", a);
		snprintf(t->host, sizeof(t->host), "%.127s", a);
	}
	free(copy);
	if (!tg->n)
		return xt_error_set(err, XT_EUSAGE, "no capture target in '%s'", spec);
	return 0;
}

void capture_targets_fini(struct capture_targets *tg)
{
	free(tg->v);
	memset(tg, 0, sizeof(*tg));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void capture_remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * The scratch directories of in-memory captures under way. A process that
 * ends while a capture waits on a stuck server (xtop top: ^C with --batch,
 * or q) never returns from capture_run(): at exit, or before its _exit
 * (capture_scratch_clean), it removes them, so such a capture leaves
 * nothing behind; the viewer's and top's screens remove them on SIGINT,
 * SIGTERM and SIGHUP too (capture_scratch_clean_signal; a kill -9 runs no
 * handler: that directory stays). top's copy of a capture for its viewer
 * is listed too. A process runs one capture at a time; past SCRATCH_MAX
 * at once, one is not listed.
 */
#define SCRATCH_MAX 16
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static char *scratch_dirs[SCRATCH_MAX];

/*
 * A capture's run directory, made at its start (a server that writes the
 * profile itself writes into it), is empty until a host is saved: a run
 * ended by a signal or an exit meanwhile (^C in the viewer just after c)
 * would leave it, and the logdir levels made for it, behind. Listed here
 * until the capture ends, they are removed with rmdir() alone, which takes
 * an empty directory and nothing else (never what a server wrote). The
 * paths are made when listed: a signal handler only calls rmdir().
 */
#define PENDING_MAX 8
static struct pending_run {
	int used;
	struct xplane_trail trail; /* the run, then the logdir levels it made */
} pending_runs[PENDING_MAX];

static void pending_clean(void)
{
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending_runs[i].used)
			xplane_rmdir_trail(&pending_runs[i].trail);
}

static int pending_add(const char *run, const char *logdir, unsigned missing)
{
	int slot = -1;

	pthread_mutex_lock(&scratch_lock);
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending_runs[i].used) {
			xplane_run_trail(logdir, run, missing, &pending_runs[i].trail);
			pending_runs[i].used = 1;
			slot = i;
			break;
		}
	pthread_mutex_unlock(&scratch_lock);
	return slot;
}

static void pending_remove(int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&scratch_lock);
	pending_runs[slot].used = 0;
	pthread_mutex_unlock(&scratch_lock);
}

void capture_scratch_clean(void)
{
	size_t i;

	/* Held only for a moment, never while allocating (a failed
	 * allocation exits, which runs this) nor by a thread stuck on its
	 * server. */
	pthread_mutex_lock(&scratch_lock);
	for (i = 0; i < SCRATCH_MAX; i++)
		if (scratch_dirs[i])
			capture_remove_tree(scratch_dirs[i]);
	pending_clean();
	pthread_mutex_unlock(&scratch_lock);
}

void capture_scratch_clean_signal(void)
{
	size_t i;

	/* In a signal handler: the interrupted code may hold the lock. */
	if (pthread_mutex_trylock(&scratch_lock) != 0)
		return;
	for (i = 0; i < SCRATCH_MAX; i++)
		if (scratch_dirs[i])
			capture_remove_tree(scratch_dirs[i]);
	pending_clean();
	pthread_mutex_unlock(&scratch_lock);
}

static void scratch_install(void)
{
	atexit(capture_scratch_clean);
}

void capture_scratch_add(const char *dir)
{
	char *d = xstrdup(dir);
	size_t i;

	pthread_once(&scratch_once, scratch_install);
	pthread_mutex_lock(&scratch_lock);
	for (i = 0; i < SCRATCH_MAX && scratch_dirs[i]; i++)
		;
	if (i < SCRATCH_MAX) {
		scratch_dirs[i] = d;
		d = NULL;
	}
	pthread_mutex_unlock(&scratch_lock);
	free(d);
}

/* dir removed, then off the list, under the lock: an exit meanwhile
 * waits for it. */
void capture_scratch_remove(const char *dir)
{
	size_t i;
	char *d = NULL;

	pthread_mutex_lock(&scratch_lock);
	capture_remove_tree(dir);
	for (i = 0; i < SCRATCH_MAX; i++)
		if (scratch_dirs[i] && !strcmp(scratch_dirs[i], dir)) {
			d = scratch_dirs[i];
			scratch_dirs[i] = NULL;
			break;
		}
	pthread_mutex_unlock(&scratch_lock);
	free(d);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A failed capture of a local workload: when the workload is gone, that is
 * the news, with how it ended. */
static void check_death(struct capture_job *j)
{
	char how[160], dir[256], who[24], *slash;
	int crashed;

	/* An agent's socket directory also holds xtop run's exit records. */
	snprintf(dir, sizeof(dir), "%s", j->tg->be == &capture_backend_agent ? j->tg->addr : "");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (!j->tg->pid ||
	    !workload_ended(j->tg->pid, 2000, dir[0] ? dir : NULL, how, sizeof(how), &crashed))
		return;
	/* A target named by its PID says it once ("PID 7: the workload died"). */
	who[0] = '\0';
	if (strncmp(j->tg->label, "PID ", 4))
		snprintf(who, sizeof(who), " (PID %d)", (int)j->tg->pid);
	snprintf(j->msg, sizeof(j->msg), "%.100s: the workload%s died during the capture: %s%s",
		 j->tg->label, who, how,
		 crashed ? "; if it crashed in the GPU profiler (CUPTI) with CUDA command buffers, "
			   "run it with XLA_FLAGS=--xla_gpu_enable_command_buffer= (README, Known "
			   "issues)"
			 : "");
}

static void *job_main(void *arg)
{
	struct capture_job *j = arg;

	if (j->tg->be->capture(j) < 0)
		check_death(j);
	return NULL;
}

int capture_run(const struct capture_targets *tg, const struct capture_opts *o,
		volatile sig_atomic_t *stop, int keep_trace, struct capture_result *r,
		struct xt_error *err)
{
	char logdir[4096], root[4200];
	struct capture_job *jobs;
	pthread_t *tid;
	size_t i, n = tg->n;
	unsigned missing;
	int rc, pending = -1;

	memset(r, 0, sizeof(*r));
	/* A server resolves repository_root on its side: make it absolute. In
	 * memory, a scratch directory stands in for the logdir: only a server
	 * that writes the profile itself puts anything there. */
	if (o->in_memory) {
		const char *tmp = getenv("TMPDIR");

		snprintf(logdir, sizeof(logdir), "%s/xtop-capture.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(logdir))
			return xt_error_set(err, XT_EIO, "cannot make a scratch directory in %s: %s",
					    tmp && *tmp ? tmp : "/tmp", strerror(errno));
		capture_scratch_add(logdir);
	} else if (profile_path_absolute(o->logdir, logdir, sizeof(logdir)) < 0) {
		return xt_error_set(err, XT_EIO, "cannot get the current directory: %s",
				    strerror(errno));
	}
	missing = xplane_missing_dirs(logdir);
	rc = xplane_new_run_dir(logdir, r->run_dir, sizeof(r->run_dir), r->session,
				sizeof(r->session), err);
	if (rc < 0) {
		if (o->in_memory)
			capture_scratch_remove(logdir);
		else
			xplane_remove_run_dir(logdir, NULL, missing);
		return rc;
	}
	if (!o->in_memory) {
		pthread_once(&scratch_once, scratch_install);
		pending = pending_add(r->run_dir, logdir, missing);
	}
	snprintf(root, sizeof(root), "%s/plugins/profile", logdir);
	r->hosts = xcalloc(n, sizeof(*r->hosts));
	r->nhosts = n;
	jobs = xcalloc(n, sizeof(*jobs));
	tid = xcalloc(n, sizeof(*tid));
	r->start_ns = wall_ns();
	for (i = 0; i < n; i++) {
		snprintf(r->hosts[i].addr, sizeof(r->hosts[i].addr), "%s", tg->v[i].label);
		jobs[i].tg = &tg->v[i];
		jobs[i].o = o;
		jobs[i].repository_root = root;
		jobs[i].session = r->session;
		jobs[i].stop = stop;
		if (pthread_create(&tid[i], NULL, job_main, &jobs[i]) != 0)
			fatal("cannot create a thread");
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	r->stop_ns = wall_ns();
	r->t = trace_new();
	for (i = 0; i < n; i++)
		capture_save(r->t, &jobs[i], r->run_dir, r->start_ns, r->stop_ns, o, &r->hosts[i]);
	for (i = 0; i < n; i++)
		r->nsaved += r->hosts[i].captured;
	if (!keep_trace || !r->t->nhosts) {
		trace_free(r->t);
		r->t = NULL;
	}
	/* A run that saved nothing leaves nothing behind: not its run
	 * directory (it would only confuse TensorBoard), nor the logdir
	 * levels made for it. In memory nothing stays at all (a profile the
	 * server wrote is mapped by the trace, which outlives its file). */
	if (o->in_memory) {
		capture_scratch_remove(logdir);
		r->run_dir[0] = '\0';
	} else if (!r->nsaved) {
		xplane_remove_run_dir(logdir, r->run_dir, missing);
	}
	pending_remove(pending);
	free(jobs);
	free(tid);
	return 0;
}

void capture_result_fini(struct capture_result *r)
{
	free(r->hosts);
	trace_free(r->t);
	memset(r, 0, sizeof(*r));
}
