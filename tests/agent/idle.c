/*
 * idle: a program that only waits, for the agent's tests: one that does
 * not use libxtop-trace, so that without a plugin the agent has nothing to
 * profile; with --plugin SO,XSPACE[,MODE] --after MS it dlopens a fake
 * PJRT plugin after MS, as a JAX program loads its plugin at its first
 * computation. --setenv NAME=VALUE sets a variable first, as a Python
 * script that sets os.environ before importing JAX.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *plugin = NULL;
	long after = 0;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--plugin"))
			plugin = argv[i + 1];
		else if (!strcmp(argv[i], "--after"))
			after = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--setenv"))
			putenv(argv[i + 1]);
	}
	if (plugin) {
		char buf[4096], *xs, *mode = NULL;
		void *h;
		void (*configure)(const char *, const char *, const char *);

		usleep((useconds_t)after * 1000);
		snprintf(buf, sizeof(buf), "%s", plugin);
		xs = strchr(buf, ',');
		if (xs) {
			*xs++ = '\0';
			mode = strchr(xs, ',');
			if (mode)
				*mode++ = '\0';
		}
		h = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "idle: %s\n", dlerror());
			return 2;
		}
		*(void **)&configure = dlsym(h, "fake_pjrt_configure");
		if (configure)
			configure(xs, mode, NULL);
	}
	for (;;)
		pause();
}
