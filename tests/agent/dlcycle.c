/*
 * dlcycle: loads a library holding a static copy of libxtop-trace with
 * RTLD_LOCAL, records through it, and unloads it, in a loop, while the
 * main program records through its own copy: a capture must neither touch
 * an unloaded copy nor lose the loaded ones.
 *
 *   dlcycle LIB [--exit-after MS]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <xtop/trace.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long exit_after = argc > 3 && !strcmp(argv[2], "--exit-after") ? atol(argv[3]) : 0, i;
	struct timespec t0, now;

	if (argc < 2) {
		fprintf(stderr, "usage: dlcycle LIB [--exit-after MS]\n");
		return 2;
	}
	prctl(PR_SET_NAME, "xt-dlcycle", 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		void (*work)(void);

		if (!h) {
			fprintf(stderr, "dlcycle: %s\n", dlerror());
			return 2;
		}
		*(void **)&work = dlsym(h, "dlcycle_work");
		xtop_trace_begin("main_work");
		if (work)
			work();
		xtop_trace_end();
		dlclose(h);
		sleep_ms(2);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (exit_after &&
		    (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >= exit_after)
			return 0;
	}
}
