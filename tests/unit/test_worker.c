/* Unit tests for util/worker.c: work runs off the loop's thread, done on
 * it, with what the work said handed over instead of printed; worker_free
 * waits for what is in flight. */
#include <pthread.h>
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
	struct worker *w = worker_new(l, 2);
	struct item items[8] = {{0}};
	capture_begin();
	for (int i = 0; i < 8; i++) {
		items[i].n = i;
		worker_submit(w, work, done, &items[i]);
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

	/* worker_free waits for the items in flight and calls their done */
	struct item late[3] = {{0}};
	for (int i = 0; i < 3; i++) {
		late[i].n = 2;
		worker_submit(w, work, done, &late[i]);
	}
	worker_free(w);
	for (int i = 0; i < 3; i++)
		CHECK(late[i].done && late[i].done_on_loop);
	loop_free(l);
	return check_finish("worker");
}
