/* capture_ui: see capture_ui.h. */
#include "capture_ui.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/load.h"
#include "../util/xalloc.h"

int cap_ui_init(struct cap_ui *c, const char *target, const struct capture_opts *o,
		struct xt_error *err)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->wake[0] = c->wake[1] = -1;
	rc = capture_targets(target, &c->addrs, &c->naddrs, err);
	if (rc < 0)
		return rc;
	snprintf(c->target, sizeof(c->target), "%s", target);
	c->opts = *o;
	if (pipe(c->wake) < 0)
		return xt_error_set(err, XT_EIO, "cannot create a pipe");
	fcntl(c->wake[0], F_SETFD, FD_CLOEXEC);
	fcntl(c->wake[0], F_SETFL, O_NONBLOCK);
	fcntl(c->wake[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

void cap_ui_fini(struct cap_ui *c)
{
	size_t i;

	if (c->running) {
		c->stop = 1;
		pthread_join(c->tid, NULL);
		c->running = 0;
		trace_free(c->t);
		analysis_free(c->an);
	}
	capture_result_fini(&c->res);
	for (i = 0; i < c->naddrs; i++)
		free(c->addrs[i]);
	free(c->addrs);
	if (c->wake[0] >= 0) {
		close(c->wake[0]);
		close(c->wake[1]);
	}
	memset(c, 0, sizeof(*c));
}

static void *cap_worker(void *arg)
{
	struct cap_ui *c = arg;
	char one = 1;

	c->rc = capture_run(c->addrs, c->naddrs, &c->opts, &c->stop, &c->res, &c->err);
	if (c->rc == 0 && c->res.nsaved) {
		struct load_opts lo = { 0 };

		if (load_profile(c->res.run_dir, &lo, &c->t, &c->an, &c->err) < 0)
			c->rc = -1;
	}
	atomic_store(&c->done, 1);
	if (write(c->wake[1], &one, 1) < 0) {
		/* The UI also polls `done` on its timer. */
	}
	return NULL;
}

int cap_ui_start(struct cap_ui *c)
{
	if (c->running)
		return -1;
	capture_result_fini(&c->res);
	c->t = NULL;
	c->an = NULL;
	c->stop = 0;
	atomic_store(&c->done, 0);
	c->summary[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	if (pthread_create(&c->tid, NULL, cap_worker, c) != 0)
		return -1;
	c->running = 1;
	return 0;
}

void cap_ui_stop(struct cap_ui *c)
{
	if (c->running)
		c->stop = 1;
}

double cap_ui_elapsed(const struct cap_ui *c)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - c->t0.tv_sec) + (double)(now.tv_nsec - c->t0.tv_nsec) * 1e-9;
}

int cap_ui_collect(struct cap_ui *c)
{
	char buf[16];
	size_t i;

	if (!c->running || !atomic_load(&c->done))
		return 0;
	while (read(c->wake[0], buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
	pthread_join(c->tid, NULL);
	c->running = 0;
	if (c->rc < 0) {
		snprintf(c->summary, sizeof(c->summary), "capture failed: %.480s", c->err.msg);
		return 0;
	}
	if (!c->res.nsaved) {
		/* Say why, host by host (the first reason is usually enough). */
		for (i = 0; i < c->res.nhosts && !c->summary[0]; i++)
			if (c->res.hosts[i].msg[0])
				snprintf(c->summary, sizeof(c->summary), "capture failed: %.480s",
					 c->res.hosts[i].msg);
		if (!c->summary[0])
			snprintf(c->summary, sizeof(c->summary), "capture failed");
		return 0;
	}
	snprintf(c->summary, sizeof(c->summary), "captured %zu of %zu host%s in %.440s", c->res.nsaved,
		 c->res.nhosts, c->res.nhosts == 1 ? "" : "s", c->res.run_dir);
	return 1;
}
