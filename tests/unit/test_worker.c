/* Unit tests for util/worker.c: work runs off the loop's thread, done on
 * it, with what the work said handed over instead of printed; a queue of
 * one thread keeps its order; a post reaches the loop before its item's
 * done; an item submitted while another holds the only idle thread gets a
 * thread of its own; worker_wait and worker_free wait for what is in
 * flight. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/worker.h"

static pthread_t loop_thread;

struct item {
	int n;
	bool worked_off_loop, done_on_loop, done;
	char said[128];
};

static void work(void *arg)
{
	struct item *it = arg;
	it->worked_off_loop = !pthread_equal(pthread_self(), loop_thread);
	usleep(1000 * (it->n % 3));
	if (it->n == 3)
		warning("item %d is odd", it->n);
}

/* The order the done functions of the READ queue ran in. */
static int order[16], norder;
static void ordered_done(void *arg, const char *messages)
{
	(void)messages;
	order[norder++] = ((struct item *)arg)->n;
}

/* A post from the work: seen on the loop before the item's own done. */
struct posting {
	struct worker *w;
	int posted_seen; /* 1: the post's done ran; 2: then the item's */
	bool post_on_loop;
};
static void posted(void *arg, const char *messages)
{
	struct posting *p = arg;
	p->post_on_loop = pthread_equal(pthread_self(), loop_thread) && !*messages;
	if (!p->posted_seen)
		p->posted_seen = 1;
}
static void post_work(void *arg)
{
	struct posting *p = arg;
	worker_post(p->w, posted, p);
	usleep(2000);
}
static void post_done(void *arg, const char *messages)
{
	(void)messages;
	struct posting *p = arg;
	if (p->posted_seen == 1)
		p->posted_seen = 2;
}

/* An item that holds its thread until let go (the waits' item holds one
 * for the run), and one submitted right after it. */
static atomic_bool let_go, second_ran;
static void hold(void *arg)
{
	(void)arg;
	for (int k = 0; k < 5000 && !atomic_load(&let_go); k++)
		usleep(1000);
}
static void second(void *arg)
{
	(void)arg;
	atomic_store(&second_ran, true);
}
static void nothing_done(void *arg, const char *messages)
{
	(void)arg, (void)messages;
}

static void done(void *arg, const char *messages)
{
	struct item *it = arg;
	it->done_on_loop = pthread_equal(pthread_self(), loop_thread);
	it->done = true;
	snprintf(it->said, sizeof it->said, "%s", messages);
}

int main(void)
{
	loop_thread = pthread_self();
	struct loop *l = loop_new();
	struct worker *w = worker_new(l);
	struct item items[8] = {{0}};
	capture_begin();
	for (int i = 0; i < 8; i++) {
		items[i].n = i;
		worker_submit(w, WORKER_NET, work, done, &items[i]);
	}
	CHECK(worker_busy(w) > 0);
	/* done is called from the loop, only */
	long long until = loop_now() + 5000;
	while (worker_busy(w) && loop_now() < until)
		loop_once(l, 100);
	const char *err = capture_end();
	CHECK_STR(err, ""); /* the work's warning was not printed by its thread */
	CHECK_INT(worker_busy(w), 0);
	for (int i = 0; i < 8; i++) {
		CHECK(items[i].done);
		CHECK(items[i].worked_off_loop);
		CHECK(items[i].done_on_loop);
	}
	CHECK_STR(items[3].said, "vx: warning: item 3 is odd\n");
	CHECK_STR(items[2].said, "");

	/* one thread on READ: the items end, and are done, in their order,
	 * the slow first one too */
	struct item seq[6] = {{0}};
	for (int i = 0; i < 6; i++) {
		seq[i].n = 5 - i; /* 5 sleeps 2 ms, 3 warns, 0 sleeps none */
		worker_submit(w, WORKER_READ, work, ordered_done, &seq[i]);
	}
	while (worker_busy(w))
		worker_wait(w);
	CHECK_INT(norder, 6);
	for (int i = 0; i < 6; i++)
		CHECK_INT(order[i], 5 - i);

	struct posting p = {.w = w};
	worker_submit(w, WORKER_NET, post_work, post_done, &p);
	while (worker_busy(w))
		worker_wait(w);
	CHECK_INT(p.posted_seen, 2);
	CHECK(p.post_on_loop);

	/* A pool whose NET thread is idle (its one item ended). Two items submitted back to back:
	 * the second gets a thread of its own while the first holds the idle one. The bug: the idle
	 * thread, signalled for the first and not yet awake, still counted as idle, so no thread
	 * was started for the second, which waited behind the first (a shard's waits starved the
	 * uploads another shard waits for) */
	struct worker *w1 = worker_new(l);
	worker_submit(w1, WORKER_NET, second, nothing_done, NULL); /* its one thread */
	while (worker_busy(w1))
		worker_wait(w1);
	atomic_store(&second_ran, false);
	worker_submit(w1, WORKER_NET, hold, nothing_done, NULL);
	worker_submit(w1, WORKER_NET, second, nothing_done, NULL);
	for (int k = 0; k < 3000 && !atomic_load(&second_ran); k++)
		usleep(1000);
	CHECK(atomic_load(&second_ran));
	atomic_store(&let_go, true);
	worker_free(w1);

	/* worker_free waits for the items in flight and calls their done */
	struct item late[3] = {{0}};
	for (int i = 0; i < 3; i++) {
		late[i].n = 2;
		worker_submit(w, i == 1 ? WORKER_WRITE : WORKER_READ, work, done, &late[i]);
	}
	worker_free(w);
	for (int i = 0; i < 3; i++)
		CHECK(late[i].done && late[i].done_on_loop);
	loop_free(l);
	return check_finish("worker");
}
