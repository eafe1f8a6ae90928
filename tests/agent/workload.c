/*
 * workload: a small native program for the agent's tests, started under
 * `xtop run`. It loads fake PJRT plugins with dlopen (as JAX loads its
 * plugin) and annotates its work with the C API: a step loop on the main
 * thread and spans on a worker thread, with TraceMe-encoded metadata.
 *
 *   workload [--plugin SO[,XSPACE[,MODE]]]... [--plugin-after MS]
 *            [--log FILE] [--no-annotate] [--exit-after MS] [--odd-names] [--deep]
 *            [--forker] [--exec-when FILE]
 *
 * --plugin-after loads the plugins only after MS (a JAX program loads its
 * plugin at its first computation). --odd-names adds a thread whose names
 * are not clean UTF-8 (odd_names()), --deep one that nests too deep (deep()),
 * --forker one that forks children that exit at once (forker()). It prints nothing; it runs until
 * killed, or exits with status 0 after --exit-after. --exec-when FILE runs
 * itself again with exec (with no arguments) once FILE exists, as a
 * launcher script would start the real program.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xtop/trace.h>

static volatile int annotate = 1;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	prctl(PR_SET_NAME, "xt-worker", 0, 0, 0);
	for (i = 0;; i++) {
		if (annotate) {
			xtop_trace_begin("worker_io#id=1,kind=read,bytes=4096#");
			sleep_ms(2);
			xtop_trace_end();
		} else {
			sleep_ms(2);
		}
	}
	return NULL;
}

/* Names a demanding program may well give: a thread name the kernel cuts
 * inside its last character (15 bytes kept of "prefetch-queueé"), a span
 * name past the library's 1024-byte cut with a two-byte character across
 * it, bytes that are no UTF-8, and such a stat value. */
static void *odd_names(void *arg)
{
	char longname[1100];

	(void)arg;
	prctl(PR_SET_NAME, "prefetch-queue\xc3\xa9", 0, 0, 0);
	memset(longname, 'a', 1023);
	strcpy(longname + 1023, "\xc3\xa9");
	for (;;) {
		if (xtop_trace_active()) {
			xtop_trace_begin(longname);
			xtop_trace_end();
			xtop_trace_begin("bad\xff\xfename");
			xtop_trace_end();
			xtop_trace_instant("odd#note=v\xff,ok=caf\xc3\xa9#");
		}
		sleep_ms(5);
	}
	return NULL;
}

/* Spans nested 130 deep, two past the library's 128: those two are
 * dropped each time, and the capture says so. */
static void *deep(void *arg)
{
	int k;

	(void)arg;
	prctl(PR_SET_NAME, "xt-deep", 0, 0, 0);
	for (;;) {
		for (k = 0; k < 130; k++)
			xtop_trace_begin("nest");
		for (k = 0; k < 130; k++)
			xtop_trace_end();
		sleep_ms(5);
	}
	return NULL;
}

static void *spin(void *arg)
{
	int i;

	(void)arg;
	for (;;) {
		for (i = 0; i < 1000; i++) {
			xtop_trace_begin("spin");
			xtop_trace_end();
		}
		usleep(100);
	}
	return NULL;
}

/* Forks children that exit at once, while spinning threads keep the
 * agent busy collecting: a child forked while the agent held a lock must
 * still exit (its libraries' destructors run). Says HUNG on stderr when
 * one has not ended within 10 s. */
static void *forker(void *arg)
{
	pthread_t t;
	long k;
	int i;

	(void)arg;
	for (i = 0; i < 4; i++)
		pthread_create(&t, NULL, spin, NULL);
	for (k = 0;; k++) {
		pid_t c = fork();
		int st, w;

		if (c == 0)
			exit(0);
		if (c < 0) {
			sleep_ms(10);
			continue;
		}
		for (w = 0; w < 1000 && waitpid(c, &st, WNOHANG) != c; w++)
			sleep_ms(10);
		if (w == 1000) {
			fprintf(stderr, "workload: HUNG child %d after %ld forks\n", (int)c, k);
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
		}
	}
	return NULL;
}

static void load_plugin(const char *spec, const char *log)
{
	char buf[4096], *xs, *mode;
	void *h;
	void (*configure)(const char *, const char *, const char *);

	snprintf(buf, sizeof(buf), "%s", spec);
	xs = strchr(buf, ',');
	mode = NULL;
	if (xs) {
		*xs++ = '\0';
		mode = strchr(xs, ',');
		if (mode)
			*mode++ = '\0';
	}
	h = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "workload: %s\n", dlerror());
		exit(2);
	}
	*(void **)&configure = dlsym(h, "fake_pjrt_configure");
	if (configure)
		configure(xs, mode, log);
}

int main(int argc, char **argv)
{
	const char *plugins[8], *log = NULL;
	long after = 0, exit_after = 0, step;
	const char *exec_when = NULL;
	int np = 0, i;
	pthread_t t;
	struct timespec t0, now;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plugin") && i + 1 < argc && np < 8)
			plugins[np++] = argv[++i];
		else if (!strcmp(argv[i], "--plugin-after") && i + 1 < argc)
			after = atol(argv[++i]);
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			log = argv[++i];
		else if (!strcmp(argv[i], "--no-annotate"))
			annotate = 0;
		else if (!strcmp(argv[i], "--odd-names"))
			pthread_create(&t, NULL, odd_names, NULL);
		else if (!strcmp(argv[i], "--deep"))
			pthread_create(&t, NULL, deep, NULL);
		else if (!strcmp(argv[i], "--forker"))
			pthread_create(&t, NULL, forker, NULL);
		else if (!strcmp(argv[i], "--exit-after") && i + 1 < argc)
			exit_after = atol(argv[++i]);
		else if (!strcmp(argv[i], "--exec-when") && i + 1 < argc)
			exec_when = argv[++i];
		else {
			fprintf(stderr, "workload: bad argument %s\n", argv[i]);
			return 2;
		}
	}
	prctl(PR_SET_NAME, "xt-main", 0, 0, 0);
	if (!after)
		for (i = 0; i < np; i++)
			load_plugin(plugins[i], log);
	pthread_create(&t, NULL, worker, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (step = 0;; step++) {
		long el;

		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (after && el >= after) {
			for (i = 0; i < np; i++)
				load_plugin(plugins[i], log);
			after = 0;
		}
		if (exit_after && el >= exit_after)
			exit(0);
		if (exec_when && access(exec_when, F_OK) == 0) {
			char *nargv[] = { argv[0], NULL };

			execv("/proc/self/exe", nargv);
			exit(3);
		}
		if (!annotate) {
			sleep_ms(10);
			continue;
		}
		xtop_step_begin(step);
		xtop_trace_begin("compute#batch=32,lr=0.5,tag=fwd#");
		sleep_ms(5);
		if (xtop_trace_active()) {
			char name[64];

			snprintf(name, sizeof(name), "checkpoint#step=%ld#", step);
			xtop_trace_instant(name);
		}
		xtop_trace_end();
		sleep_ms(3);
		xtop_step_end();
	}
}
