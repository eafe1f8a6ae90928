/*
 * loop: the one event loop of an interactive program (redis's ae, tmux's
 * libevent loop): poll() on file descriptors (the terminal, a capture
 * worker's wake pipe), timers on the monotonic clock, and a wake pipe that
 * other threads and signal handlers write to. Handlers change state and
 * return enum ui_reaction bits; they never draw. After each turn in which
 * some handler asked for UI_REDRAW, the loop calls the one draw function,
 * once (style rules 5, 6 and 15).
 *
 * A signal that interrupts the wait (SIGWINCH: the terminal was resized)
 * calls every fd handler once, as if its fd were readable, so a terminal
 * handler sees curses' KEY_RESIZE at once: handlers must therefore read
 * without blocking and cope with finding nothing.
 *
 * Timers fire in the turn in which their time has come; a periodic timer
 * that fell behind (a long handler) fires once and keeps its phase rather
 * than firing for every period missed. The clock can be replaced (tests
 * drive it by hand).
 *
 * No curses here: the loop is tested without a terminal.
 *
 * Ownership: struct loop owns its timers and wake pipe (loop_fini()); the
 * handlers' args are borrowed.
 */
#ifndef XT_LOOP_H
#define XT_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

#define LOOP_MAX_FDS 8

/* What happened to an fd (loop_fd_fn's events; 0 after an interrupted
 * wait). */
#define LOOP_IN 1u  /* readable */
#define LOOP_HUP 2u /* hung up or failed (a closed terminal): reading gives EOF */

/* Handlers return enum ui_reaction bits (reaction.h). */
typedef unsigned (*loop_fd_fn)(void *arg, int fd, unsigned events);
typedef unsigned (*loop_timer_fn)(void *arg, long id);
typedef unsigned (*loop_wake_fn)(void *arg);
/* Milliseconds on a monotonic clock. */
typedef uint64_t (*loop_clock_fn)(void *arg);

struct loop_fd {
	int fd;
	loop_fd_fn fn;
	void *arg;
};

struct loop_timer {
	long id;           /* > 0; 0 = a free slot */
	int armed;
	uint64_t at_ms;    /* when it fires next (loop clock) */
	uint64_t every_ms; /* period; 0 = once (then disarmed, kept for loop_timer_set) */
	uint64_t turn;     /* the turn it was armed in: it fires in a later one */
	loop_timer_fn fn;
	void *arg;
};

struct loop {
	struct loop_fd fds[LOOP_MAX_FDS];
	size_t nfds;
	struct loop_timer *timers; /* owned */
	size_t ntimers;
	long last_id;
	int wake[2];               /* [1] written by loop_wake(), [0] polled */
	loop_wake_fn on_wake;
	void *wake_arg;
	void (*draw)(void *arg);
	void *draw_arg;
	loop_clock_fn clock;
	void *clock_arg;
	unsigned pending;          /* reaction bits not acted on yet */
	uint64_t turns, draws;     /* counters, for tests and benchmarks */
};

/* Sets l up with the monotonic clock and no sources. Returns 0, or XT_EIO
 * with err when the wake pipe cannot be made. */
int loop_init(struct loop *l, struct xt_error *err);
void loop_fini(struct loop *l);

/* Calls fn(arg, fd, events) when fd is readable or hung up. Returns 0, or -1 when the loop
 * already watches LOOP_MAX_FDS descriptors. */
int loop_add_fd(struct loop *l, int fd, loop_fd_fn fn, void *arg);
/* Stops watching fd (nothing happens if it was not watched). */
void loop_del_fd(struct loop *l, int fd);

/* A timer that fires after_ms from now, then every every_ms (0: once).
 * Returns its id (> 0). Can't fail. */
long loop_add_timer(struct loop *l, uint64_t after_ms, uint64_t every_ms, loop_timer_fn fn,
		    void *arg);
/* Re-arms timer id to fire after_ms from now (its period unchanged). */
void loop_timer_set(struct loop *l, long id, uint64_t after_ms);
/* Disarms timer id; loop_timer_set() arms it again. */
void loop_timer_stop(struct loop *l, long id);
/* Removes timer id. */
void loop_del_timer(struct loop *l, long id);
/* Milliseconds until timer id fires; -1 when it is not armed. */
int64_t loop_timer_left(const struct loop *l, long id);

/* fn(arg) runs in the loop's thread after loop_wake(). */
void loop_on_wake(struct loop *l, loop_wake_fn fn, void *arg);
/* Wakes the loop from any thread or from a signal handler (one write to a
 * pipe; async-signal-safe). Wakes that arrive together run the handler
 * once. */
void loop_wake(struct loop *l);

/* The one draw function, called after a turn that asked for UI_REDRAW. */
void loop_set_draw(struct loop *l, void (*draw)(void *arg), void *arg);
/* Asks for a draw at the end of the next turn (e.g. before the first). */
void loop_redraw(struct loop *l);
/* Replaces the monotonic clock (tests). */
void loop_set_clock(struct loop *l, loop_clock_fn fn, void *arg);
/* The loop's clock, in ms. */
uint64_t loop_now(const struct loop *l);

/*
 * One turn: waits (when block is set) until an fd is readable, a timer is
 * due or a wake arrives; runs the handlers of what happened and the timers
 * that are due; then draws once if a handler (or loop_redraw) asked for it.
 * Returns the reaction bits of the turn. Can't fail (an interrupted wait is
 * a turn like any other).
 */
unsigned loop_turn(struct loop *l, int block);
/* Turns until a handler returns UI_QUIT. */
void loop_run(struct loop *l);

#endif
