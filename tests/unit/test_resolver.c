/* Unit tests for util/resolver.c: a lookup that hangs does not stall the
 * loop (a timer fires and other lookups are answered while it hangs),
 * answers come back on the loop's thread, a cancelled request's callback
 * never runs, and resolver_free does not wait for a lookup in flight. The
 * lookups are injected, and a hanging one waits on a pipe the test writes
 * to: nothing is timed, and a resolver that waited would hang the test. */
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/resolver.h"

static pthread_t loop_thread;

static void nap(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int gate[2]; /* a "slow-*" lookup waits for a byte here */

/* "slow-*" hangs until the test lets it go; "bad-*" fails; the rest
 * answer 127.0.0.1 at once. */
static int lookup(const char *host, int port, struct addrinfo **out)
{
	char b;
	if (!strncmp(host, "slow-", 5) && read(gate[0], &b, 1) != 1)
		return EAI_SYSTEM;
	if (!strncmp(host, "bad-", 4))
		return EAI_NONAME;
	char service[8];
	snprintf(service, sizeof service, "%d", port);
	struct addrinfo hints = {
	    .ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
	return getaddrinfo("127.0.0.1", service, &hints, out);
}

struct answer {
	int order; /* 1-based: when it came back */
	int rc;
	bool had_ai;
	bool on_loop_thread;
};
static int answered;

static void done(int rc, struct addrinfo *ai, void *data)
{
	struct answer *a = data;
	a->order = ++answered;
	a->rc = rc;
	a->had_ai = ai != NULL;
	a->on_loop_thread = pthread_equal(pthread_self(), loop_thread);
	if (ai)
		freeaddrinfo(ai);
}

static int ticks;
static void tick(struct loop *l, void *data)
{
	ticks++;
	loop_timer(l, loop_now() + 20, tick, data);
}

int main(void)
{
	loop_thread = pthread_self();
	if (pipe(gate))
		return 1;
	struct loop *l = loop_new();
	struct resolver *r = resolver_new(l);
	CHECK(r != NULL);
	struct answer slow = {0}, fast = {0}, bad = {0}, gone = {0};
	resolve_start(r, "slow-a.test", 443, lookup, done, &slow);
	resolve_start(r, "fast.test", 80, lookup, done, &fast);
	resolve_start(r, "bad-name.test", 80, lookup, done, &bad);
	struct resolve_req *cancelled = resolve_start(r, "slow-b.test", 80, lookup, done, &gone);
	resolve_cancel(cancelled);
	loop_timer(l, loop_now() + 20, tick, NULL);
	/* the slow ones hang (on the gate) while the rest are answered */
	while (!fast.order || !bad.order || ticks < 2)
		loop_once(l, 100);
	CHECK_INT(slow.order, 0);
	CHECK_INT(fast.rc, 0);
	CHECK(fast.had_ai && !bad.had_ai);
	CHECK_INT(bad.rc, EAI_NONAME);
	if (write(gate[1], "xy", 2) != 2) /* both slow lookups go */
		return 1;
	while (!slow.order)
		loop_once(l, 100);
	CHECK_INT(slow.order, 3);
	CHECK(slow.had_ai);
	CHECK(slow.on_loop_thread && fast.on_loop_thread && bad.on_loop_thread);
	/* the cancelled one came back too, or will: its callback must not run */
	for (int k = 0; k < 5; k++)
		loop_once(l, 20);
	CHECK_INT(gone.order, 0);

	/* resolver_free with a lookup in flight returns while it still
	 * hangs; the thread finishes on its own and nothing is called back */
	struct answer late = {0};
	resolve_start(r, "slow-c.test", 80, lookup, done, &late);
	resolver_free(r);
	if (write(gate[1], "z", 1) != 1)
		return 1;
	nap(100); /* the thread frees what is left (ASan sees it) */
	loop_once(l, 0);
	CHECK_INT(late.order, 0);
	loop_free(l);
	return check_finish("resolver");
}
