/* Unit tests for util/loop.c: read and write interest on real pipes, a
 * watch removed and added during a dispatch, timer order, cancelling, a
 * self re-arming timer that cannot hold a wake-up, descriptors before
 * signals in one wake-up, and the signal mask given back. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/loop.h"

static char order[64];
static size_t norder;

static void note(char c)
{
	if (norder + 1 < sizeof order)
		order[norder++] = c;
	order[norder] = 0;
}

static void on_read(struct loop *l, int fd, unsigned ev, void *data)
{
	(void)l;
	char buf[16];
	CHECK(ev & LOOP_READ);
	ssize_t r = read(fd, buf, sizeof buf);
	note(r > 0 ? *(char *)data : 'E'); /* 'E': end of file */
}

static void on_write(struct loop *l, int fd, unsigned ev, void *data)
{
	(void)data;
	CHECK_INT(ev, LOOP_WRITE);
	CHECK_INT(write(fd, "w", 1), 1);
	note('W');
	loop_watch(l, fd, 0, NULL, NULL); /* once is enough */
}

/* Removes the other pipe's watch (it was ready in the same wake-up, so the
 * dispatch must skip it) and watches a third one. */
struct juggle {
	int other, third;
};
static void on_juggle(struct loop *l, int fd, unsigned ev, void *data)
{
	(void)ev;
	struct juggle *j = data;
	char c;
	CHECK_INT(read(fd, &c, 1), 1);
	note('J');
	loop_unwatch(l, j->other);
	loop_watch(l, j->third, LOOP_READ, on_read, "3");
}

static void on_timer(struct loop *l, void *data)
{
	(void)l;
	note(*(char *)data);
}

static int rearms;
static void on_rearm(struct loop *l, void *data)
{
	rearms++;
	loop_timer(l, loop_now(), on_rearm, data);
}

static void on_signal(struct loop *l, int signo, void *data)
{
	(void)l;
	CHECK_INT(signo, SIGUSR1);
	note(*(char *)data);
}

int main(void)
{
	struct loop *l = loop_new();
	int a[2], b[2], c[2], w[2];
	CHECK(pipe2(a, O_CLOEXEC | O_NONBLOCK) == 0);
	CHECK(pipe2(b, O_CLOEXEC | O_NONBLOCK) == 0);
	CHECK(pipe2(c, O_CLOEXEC | O_NONBLOCK) == 0);
	CHECK(pipe2(w, O_CLOEXEC | O_NONBLOCK) == 0);

	/* Nothing ready: a timeout of 0 runs nothing. */
	loop_watch(l, a[0], LOOP_READ, on_read, "a");
	CHECK_INT(loop_once(l, 0), 0);

	/* Read interest; then a changed callback for the same fd. */
	CHECK_INT(write(a[1], "x", 1), 1);
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "a");
	loop_watch(l, a[0], LOOP_READ, on_read, "A");
	CHECK_INT(write(a[1], "x", 1), 1);
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "aA");

	/* Write interest, and a watch that removes itself. */
	loop_watch(l, w[1], LOOP_WRITE, on_write, NULL);
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "aAW");
	CHECK_INT(loop_once(l, 0), 0);

	/* a's watch, dispatched first, removes b's (ready too: skipped) and
	 * adds c's (not polled this time). */
	struct juggle j = {b[0], c[0]};
	loop_watch(l, a[0], LOOP_READ, on_juggle, &j);
	loop_watch(l, b[0], LOOP_READ, on_read, "b");
	CHECK_INT(write(a[1], "x", 1), 1);
	CHECK_INT(write(b[1], "x", 1), 1);
	CHECK_INT(write(c[1], "x", 1), 1);
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "aAWJ");
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "aAWJ3");
	loop_unwatch(l, a[0]);

	/* A closed write end reads as ready: the read sees the end. */
	close(c[1]);
	CHECK_INT(loop_once(l, -1), 1);
	CHECK_STR(order, "aAWJ3E");
	loop_unwatch(l, c[0]);

	/* Timers fire in time order, a cancelled one never, and loop_once
	 * sleeps until the nearest. */
	norder = 0;
	long long t0 = loop_now();
	loop_timer(l, t0 + 30, on_timer, "2");
	unsigned long gone = loop_timer(l, t0 + 20, on_timer, "x");
	loop_timer(l, t0 + 10, on_timer, "1");
	loop_timer_cancel(l, gone);
	loop_timer_cancel(l, gone); /* twice: nothing */
	loop_timer_cancel(l, 0);
	while (norder < 2)
		loop_once(l, -1);
	CHECK_STR(order, "12");
	CHECK(loop_now() - t0 >= 30);
	CHECK_INT(loop_once(l, 0), 0);

	/* Two due at once (a machine slow to wake: qemu-user ran the later
	 * first) run earliest first, whatever order they were set in. */
	norder = 0;
	t0 = loop_now();
	loop_timer(l, t0 - 5, on_timer, "2");
	loop_timer(l, t0 - 10, on_timer, "1");
	CHECK_INT(loop_once(l, 0), 2);
	CHECK_STR(order, "12");

	/* A timer that re-arms itself for now runs once per wake-up. */
	unsigned long id = loop_timer(l, loop_now(), on_rearm, NULL);
	(void)id;
	CHECK_INT(loop_once(l, 0), 1);
	CHECK_INT(rearms, 1);
	CHECK_INT(loop_once(l, 0), 1);
	CHECK_INT(rearms, 2);

	/* Signals through the loop; in one wake-up the ready descriptor runs
	 * before the signal, and the signal before the due timer. */
	loop_free(l);
	l = loop_new();
	norder = 0;
	sigset_t before, now;
	sigprocmask(SIG_SETMASK, NULL, &before);
	CHECK(!sigismember(&before, SIGUSR1));
	loop_signal(l, SIGUSR1, on_signal, "s");
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR1));
	CHECK(!sigismember(loop_child_sigmask(l), SIGUSR1));
	loop_watch(l, b[0], LOOP_READ, on_read, "d");
	loop_timer(l, loop_now(), on_timer, "t");
	CHECK_INT(write(b[1], "x", 1), 1);
	kill(getpid(), SIGUSR1);
	CHECK_INT(loop_once(l, -1), 3);
	CHECK_STR(order, "dst");
	/* Without a handler the signal stays blocked, and waits. */
	loop_signal(l, SIGUSR1, NULL, NULL);
	kill(getpid(), SIGUSR1);
	loop_unwatch(l, b[0]);
	CHECK_INT(loop_once(l, 0), 0);
	loop_signal(l, SIGUSR1, on_signal, "S");
	CHECK_INT(loop_once(l, 0), 1);
	CHECK_STR(order, "dstS");
	loop_free(l);
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(!sigismember(&now, SIGUSR1));

	int *pipes[] = {a, b, c, w};
	for (size_t k = 0; k < 4; k++) {
		close(pipes[k][0]);
		if (pipes[k] != c)
			close(pipes[k][1]);
	}
	return check_finish("loop");
}
