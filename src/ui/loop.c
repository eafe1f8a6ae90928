/* loop: see loop.h. */
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/xalloc.h"
#include "reaction.h"

static uint64_t mono_ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int loop_init(struct loop *l, struct xt_error *err)
{
	memset(l, 0, sizeof(*l));
	l->clock = mono_ms;
	if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		l->wake[0] = l->wake[1] = -1;
		return xt_error_set(err, XT_EIO, "cannot create a pipe: %s", strerror(errno));
	}
	return 0;
}

void loop_fini(struct loop *l)
{
	if (l->wake[0] >= 0) {
		close(l->wake[0]);
		close(l->wake[1]);
	}
	free(l->timers);
	memset(l, 0, sizeof(*l));
	l->wake[0] = l->wake[1] = -1;
}

int loop_add_fd(struct loop *l, int fd, loop_fd_fn fn, void *arg)
{
	if (l->nfds == LOOP_MAX_FDS)
		return -1;
	l->fds[l->nfds].fd = fd;
	l->fds[l->nfds].fn = fn;
	l->fds[l->nfds].arg = arg;
	l->nfds++;
	return 0;
}

void loop_del_fd(struct loop *l, int fd)
{
	size_t i;

	for (i = 0; i < l->nfds; i++) {
		if (l->fds[i].fd != fd)
			continue;
		memmove(&l->fds[i], &l->fds[i + 1], (l->nfds - i - 1) * sizeof(l->fds[0]));
		l->nfds--;
		return;
	}
}

static struct loop_timer *timer_find(const struct loop *l, long id)
{
	size_t i;

	for (i = 0; id > 0 && i < l->ntimers; i++)
		if (l->timers[i].id == id)
			return &l->timers[i];
	return NULL;
}

long loop_add_timer(struct loop *l, uint64_t after_ms, uint64_t every_ms, loop_timer_fn fn,
		    void *arg)
{
	struct loop_timer *t = NULL;
	size_t i;

	/* A free slot (id 0) is reused. */
	for (i = 0; i < l->ntimers && !t; i++)
		if (!l->timers[i].id)
			t = &l->timers[i];
	if (!t) {
		l->timers = xreallocarray(l->timers, l->ntimers + 1, sizeof(*l->timers));
		t = &l->timers[l->ntimers++];
	}
	t->id = ++l->last_id;
	t->armed = 1;
	t->turn = l->turns;
	t->at_ms = loop_now(l) + after_ms;
	t->every_ms = every_ms;
	t->fn = fn;
	t->arg = arg;
	return t->id;
}

void loop_timer_set(struct loop *l, long id, uint64_t after_ms)
{
	struct loop_timer *t = timer_find(l, id);

	if (t) {
		t->armed = 1;
		t->turn = l->turns;
		t->at_ms = loop_now(l) + after_ms;
	}
}

void loop_timer_stop(struct loop *l, long id)
{
	struct loop_timer *t = timer_find(l, id);

	if (t)
		t->armed = 0;
}

void loop_del_timer(struct loop *l, long id)
{
	struct loop_timer *t = timer_find(l, id);

	if (t)
		memset(t, 0, sizeof(*t));
}

int64_t loop_timer_left(const struct loop *l, long id)
{
	const struct loop_timer *t = timer_find(l, id);
	uint64_t now = loop_now(l);

	if (!t || !t->armed)
		return -1;
	return t->at_ms > now ? (int64_t)(t->at_ms - now) : 0;
}

void loop_on_wake(struct loop *l, loop_wake_fn fn, void *arg)
{
	l->on_wake = fn;
	l->wake_arg = arg;
}

void loop_wake(struct loop *l)
{
	char one = 1;
	int e = errno; /* a signal handler must leave errno as it found it */

	/* A full pipe already holds a wake: nothing is lost. */
	if (write(l->wake[1], &one, 1) < 0) {
	}
	errno = e;
}

void loop_set_draw(struct loop *l, void (*draw)(void *arg), void *arg)
{
	l->draw = draw;
	l->draw_arg = arg;
}

void loop_redraw(struct loop *l)
{
	l->pending |= UI_REDRAW;
}

void loop_set_clock(struct loop *l, loop_clock_fn fn, void *arg)
{
	l->clock = fn ? fn : mono_ms;
	l->clock_arg = arg;
}

uint64_t loop_now(const struct loop *l)
{
	return l->clock(l->clock_arg);
}

/* How long poll() may wait: until the next armed timer, or for ever. */
static int wait_ms(const struct loop *l)
{
	uint64_t now = loop_now(l), soonest = UINT64_MAX;
	size_t i;

	for (i = 0; i < l->ntimers; i++)
		if (l->timers[i].id && l->timers[i].armed && l->timers[i].at_ms < soonest)
			soonest = l->timers[i].at_ms;
	if (soonest == UINT64_MAX)
		return -1;
	if (soonest <= now)
		return 0;
	return soonest - now > INT_MAX ? INT_MAX : (int)(soonest - now);
}

/* Runs the timers due now; a handler may add, re-arm or remove timers (the
 * array may move), so each step looks its timer up again. A timer armed in
 * this turn waits for the next, after this turn's draw: the viewer handles
 * the next typed key on a timer of 0 ms, and "7i" handled both keys before
 * the devices view was drawn ("no row is selected"). */
static unsigned run_timers(struct loop *l)
{
	uint64_t now = loop_now(l);
	size_t i, n = l->ntimers;
	unsigned r = 0;

	for (i = 0; i < n && i < l->ntimers; i++) {
		struct loop_timer *t = &l->timers[i];
		loop_timer_fn fn;
		void *arg;
		long id;

		if (!t->id || !t->armed || t->at_ms > now || t->turn == l->turns)
			continue;
		if (t->every_ms)
			t->at_ms += ((now - t->at_ms) / t->every_ms + 1) * t->every_ms;
		else
			t->armed = 0;
		fn = t->fn;
		arg = t->arg;
		id = t->id;
		r |= fn(arg, id);
	}
	return r;
}

unsigned loop_turn(struct loop *l, int block)
{
	struct pollfd pf[LOOP_MAX_FDS + 1];
	struct loop_fd fds[LOOP_MAX_FDS];
	size_t i, k, n = l->nfds;
	unsigned r = 0;
	int rc, timeout = block && !(l->pending & UI_REDRAW) ? wait_ms(l) : 0;

	/* Handlers may add or remove fds: work on a copy, and call a handler
	 * only while its fd is still watched. */
	memcpy(fds, l->fds, n * sizeof(fds[0]));
	for (i = 0; i < n; i++) {
		pf[i].fd = fds[i].fd;
		pf[i].events = POLLIN;
		pf[i].revents = 0;
	}
	pf[n].fd = l->wake[0];
	pf[n].events = POLLIN;
	pf[n].revents = 0;
	rc = poll(pf, (nfds_t)(n + 1), timeout);
	l->turns++;
	for (i = 0; i < n; i++) {
		unsigned ev = 0;
		int still = 0;

		if (rc < 0 && errno == EINTR)
			ev = 0; /* a signal: every handler looks */
		else if (pf[i].revents & POLLIN)
			ev = LOOP_IN;
		else if (pf[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			ev = LOOP_HUP;
		else
			continue;
		for (k = 0; k < l->nfds; k++)
			still |= l->fds[k].fd == fds[i].fd && l->fds[k].fn == fds[i].fn;
		if (still)
			r |= fds[i].fn(fds[i].arg, fds[i].fd, ev);
	}
	if (rc > 0 && (pf[n].revents & POLLIN)) {
		char buf[64];

		while (read(l->wake[0], buf, sizeof(buf)) > 0)
			;
		if (l->on_wake)
			r |= l->on_wake(l->wake_arg);
	}
	r |= run_timers(l);
	r |= l->pending;
	l->pending = 0;
	if ((r & UI_REDRAW) && !(r & UI_QUIT) && l->draw) {
		l->draw(l->draw_arg);
		l->draws++;
	}
	return r;
}

void loop_run(struct loop *l)
{
	while (!(loop_turn(l, 1) & UI_QUIT))
		;
}
