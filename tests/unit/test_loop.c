/*
 * test_loop: the event loop (src/ui/loop.c) without a terminal. Timers run
 * on a clock the test moves by hand, so what fires when is exact and never
 * depends on how busy the machine is; fds, the wake pipe and a worker
 * thread use real pipes (the test only waits, it never times anything).
 */
#include "testutil.h"

#include <pthread.h>

#include "ui/loop.h"
#include "ui/reaction.h"

static uint64_t fake_now;

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

struct counts {
	int fired[8];    /* by timer id */
	long last_id;
	int draws;
	int wakes;
	int reads;
	unsigned last_events;
	char got[64];
	size_t ngot;
	unsigned ret;    /* what the handlers return */
	struct loop *l;
	long rearm;      /* a one-shot timer that re-arms itself this much later */
	long kill;       /* a timer to remove from the handler */
};

static unsigned on_timer(void *arg, long id)
{
	struct counts *c = arg;

	if (id > 0 && id < 8)
		c->fired[id]++;
	c->last_id = id;
	if (c->rearm && id == c->rearm)
		loop_timer_set(c->l, id, 50);
	if (c->kill) {
		loop_del_timer(c->l, c->kill);
		c->kill = 0;
	}
	return c->ret;
}

static void on_draw(void *arg)
{
	((struct counts *)arg)->draws++;
}

static unsigned on_wake(void *arg)
{
	((struct counts *)arg)->wakes++;
	return UI_REDRAW;
}

static unsigned on_read(void *arg, int fd, unsigned events)
{
	struct counts *c = arg;
	ssize_t n;

	c->reads++;
	c->last_events = events;
	while (c->ngot < sizeof(c->got) - 1 &&
	       (n = read(fd, c->got + c->ngot, sizeof(c->got) - 1 - c->ngot)) > 0)
		c->ngot += (size_t)n;
	return UI_REDRAW;
}

static void setup_loop(struct loop *l, struct counts *c)
{
	struct xt_error err;

	memset(c, 0, sizeof(*c));
	assert_int_equal(loop_init(l, &err), 0);
	c->l = l;
	fake_now = 1000;
	loop_set_clock(l, fake_clock, NULL);
	loop_set_draw(l, on_draw, c);
}

/* One-shot and periodic timers fire exactly when their time comes, once
 * per turn; a late periodic timer fires once and keeps its phase. */
static void test_timers(void **state)
{
	struct loop l;
	struct counts c;
	long once, every;

	(void)state;
	setup_loop(&l, &c);
	once = loop_add_timer(&l, 100, 0, on_timer, &c);
	every = loop_add_timer(&l, 30, 30, on_timer, &c);
	assert_true(once > 0 && every > 0 && once != every);
	assert_int_equal(loop_timer_left(&l, once), 100);
	loop_turn(&l, 0);
	assert_int_equal(c.fired[once] + c.fired[every], 0);
	fake_now = 1029;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[every], 0);
	fake_now = 1030;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[every], 1);
	assert_int_equal(loop_timer_left(&l, every), 30);
	fake_now = 1100;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[once], 1);
	/* 1060 and 1090 were both due: one call, and the next is at 1120. */
	assert_int_equal(c.fired[every], 2);
	assert_int_equal(loop_timer_left(&l, every), 20);
	/* The one-shot timer is disarmed, not gone: it can be armed again. */
	assert_int_equal(loop_timer_left(&l, once), -1);
	fake_now = 1500;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[once], 1);
	loop_timer_set(&l, once, 10);
	fake_now = 1510;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[once], 2);
	/* Stopped and removed timers stay quiet. */
	loop_timer_stop(&l, every);
	assert_int_equal(loop_timer_left(&l, every), -1);
	fake_now = 5000;
	c.fired[every] = 0;
	loop_turn(&l, 0);
	assert_int_equal(c.fired[every], 0);
	loop_timer_set(&l, every, 0);
	loop_del_timer(&l, every);
	loop_turn(&l, 0);
	assert_int_equal(c.fired[every], 0);
	/* A freed slot is reused with a new id. */
	assert_true(loop_add_timer(&l, 1, 0, on_timer, &c) > every);
	loop_fini(&l);
}

/* A timer handler may re-arm itself and remove other timers; the loop
 * draws once per turn, only when asked, and stops on UI_QUIT. */
static void test_reactions(void **state)
{
	struct loop l;
	struct counts c;
	long a, b;
	unsigned r;

	(void)state;
	setup_loop(&l, &c);
	a = loop_add_timer(&l, 10, 0, on_timer, &c);
	b = loop_add_timer(&l, 10, 0, on_timer, &c);
	c.rearm = a;
	c.kill = b; /* a runs first and removes b before it fires */
	fake_now = 1010;
	r = loop_turn(&l, 0);
	assert_int_equal(r, 0);
	assert_int_equal(c.fired[a], 1);
	assert_int_equal(c.fired[b], 0);
	assert_int_equal(c.draws, 0);
	assert_int_equal(loop_timer_left(&l, a), 50);
	/* Two handlers asking for a redraw in one turn: one draw. */
	c.ret = UI_REDRAW;
	b = loop_add_timer(&l, 50, 0, on_timer, &c);
	fake_now = 1060;
	r = loop_turn(&l, 0);
	assert_int_equal(c.fired[a], 2);
	assert_int_equal(c.fired[b], 1);
	assert_true(r & UI_REDRAW);
	assert_int_equal(c.draws, 1);
	/* loop_redraw() asks for a draw without any handler. */
	c.ret = 0;
	loop_redraw(&l);
	loop_turn(&l, 0);
	assert_int_equal(c.draws, 2);
	loop_turn(&l, 0);
	assert_int_equal(c.draws, 2);
	/* UI_QUIT ends loop_run() (and nothing is drawn on the way out). */
	c.ret = UI_QUIT | UI_REDRAW;
	c.rearm = 0;
	loop_timer_set(&l, a, 0);
	loop_run(&l);
	assert_int_equal(c.draws, 2);
	loop_fini(&l);
}

/* A handler that arms a timer for now (the viewer's next typed key) sees
 * it fire in the next turn, after this turn's draw: each key's result is
 * drawn before the next key is handled. */
static unsigned on_read_arm(void *arg, int fd, unsigned events)
{
	struct counts *c = arg;

	on_read(arg, fd, events);
	loop_timer_set(c->l, c->rearm, 0);
	return UI_REDRAW;
}

static void test_timer_armed_now(void **state)
{
	struct loop l;
	struct counts c;
	int p[2];

	(void)state;
	setup_loop(&l, &c);
	c.rearm = loop_add_timer(&l, 1000000, 0, on_timer, &c);
	c.ret = UI_REDRAW;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0); /* on_read reads all there is */
	assert_int_equal(loop_add_fd(&l, p[0], on_read_arm, &c), 0);
	assert_int_equal(write(p[1], "7", 1), 1);
	loop_turn(&l, 0);
	assert_int_equal(c.reads, 1);
	assert_int_equal(c.fired[c.rearm], 0); /* armed this turn: not yet */
	assert_int_equal(c.draws, 1);
	loop_turn(&l, 0);
	assert_int_equal(c.fired[c.rearm], 1);
	assert_int_equal(c.draws, 2);
	loop_del_fd(&l, p[0]);
	close(p[0]);
	close(p[1]);
	loop_fini(&l);
}

/* fds: a handler runs when its fd is readable, sees a hang-up, and stops
 * running once the fd is removed. */
static void test_fds(void **state)
{
	struct loop l;
	struct counts c;
	int p[2];

	(void)state;
	setup_loop(&l, &c);
	assert_int_equal(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	assert_int_equal(loop_add_fd(&l, p[0], on_read, &c), 0);
	loop_turn(&l, 0);
	assert_int_equal(c.reads, 0);
	assert_int_equal(write(p[1], "ab", 2), 2);
	loop_turn(&l, 1);
	assert_int_equal(c.reads, 1);
	assert_int_equal(c.last_events, LOOP_IN);
	assert_string_equal(c.got, "ab");
	assert_int_equal(c.draws, 1);
	close(p[1]);
	loop_turn(&l, 1);
	assert_int_equal(c.reads, 2);
	assert_true(c.last_events & (LOOP_IN | LOOP_HUP));
	loop_del_fd(&l, p[0]);
	loop_turn(&l, 0);
	assert_int_equal(c.reads, 2);
	close(p[0]);
	loop_fini(&l);
}

struct worker {
	struct loop *l;
	int n;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < w->n; i++)
		loop_wake(w->l);
	return NULL;
}

/* A worker thread wakes a loop blocked with nothing else to wait for; wakes
 * that pile up run the handler once. */
static void test_wake_from_thread(void **state)
{
	struct loop l;
	struct counts c;
	struct worker w;
	pthread_t tid;

	(void)state;
	setup_loop(&l, &c);
	loop_set_clock(&l, NULL, NULL); /* the real clock: no timers here */
	loop_on_wake(&l, on_wake, &c);
	w.l = &l;
	w.n = 1000; /* more than the pipe holds when nobody reads */
	assert_int_equal(pthread_create(&tid, NULL, worker_main, &w), 0);
	pthread_join(tid, NULL);
	loop_turn(&l, 1); /* blocks until the wake; here it is already there */
	assert_int_equal(c.wakes, 1);
	assert_int_equal(c.draws, 1);
	loop_turn(&l, 0);
	assert_int_equal(c.wakes, 1);
	w.n = 1;
	assert_int_equal(pthread_create(&tid, NULL, worker_main, &w), 0);
	loop_turn(&l, 1); /* blocks until the thread wakes it */
	pthread_join(tid, NULL);
	assert_int_equal(c.wakes, 2);
	loop_fini(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_timers),
		TU_TEST(test_reactions),
		TU_TEST(test_timer_armed_now),
		TU_TEST(test_fds),
		TU_TEST(test_wake_from_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
