/* remotewait.c - a run's waits for keys another machine uploads, one item
 * of the run's pool (remotewait.h). */
#include "cache/remotewait.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/remote.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/strbuf.h"
#include "util/worker.h"

struct remote_wait {
	char *key;
	bool read;
	long long next, gap, max, deadline; /* next ask (loop_now() time), its gap */
	remote_wait_done_fn *done;
	void *arg;
	bool cancelled;		  /* remote_wait_cancel: end it STOPPED at the next look */
	enum remote_wait_end end; /* once ended: what done is told */
	char body[REMOTE_WAIT_BODY];
	size_t len;
	struct remote_wait *next_wait;
};

struct remote_waits {
	struct remote *r;
	struct worker *w;
	long long tick_ms;
	remote_wait_tick_fn *tick;
	void *ctx;
	pthread_mutex_t mu;
	pthread_cond_t wake;	  /* the item: a wait added or cancelled, or stop */
	struct remote_wait *list; /* the waits on, in the order added */
	bool running;		  /* an item serves the list (set by add, cleared by it) */
	size_t items;		  /* submitted, done not yet called (the loop's) */
	bool stop;
	size_t asked;
	struct strbuf said; /* what the requests warned, not yet on the loop */
};

/* Loop: its one event, then it is gone. */
static void on_ended(void *arg, const char *messages)
{
	(void)messages;
	struct remote_wait *e = arg;
	e->done(e->arg, e->end, e->end == REMOTE_WAIT_FOUND && e->read ? e->body : NULL,
		e->end == REMOTE_WAIT_FOUND && e->read ? e->len : 0);
	free(e->key);
	free(e);
}

/* Takes e off the list and posts its end; rw->mu held. */
static void end_wait(struct remote_waits *rw, struct remote_wait *e, enum remote_wait_end end)
{
	for (struct remote_wait **p = &rw->list; *p; p = &(*p)->next_wait)
		if (*p == e) {
			*p = e->next_wait;
			break;
		}
	e->end = end;
	worker_post(rw->w, on_ended, e);
}

/* Pool: a request's warnings, for the loop to print (the display is
 * its); rw->mu not held. */
static void collect(const char *line, void *ctx)
{
	struct remote_waits *rw = ctx;
	pthread_mutex_lock(&rw->mu);
	strbuf_addstr(&rw->said, line);
	pthread_mutex_unlock(&rw->mu);
}

static void on_say(void *arg, const char *messages)
{
	(void)messages;
	struct remote_waits *rw = arg;
	pthread_mutex_lock(&rw->mu);
	fputs(rw->said.buf, stderr);
	strbuf_reset(&rw->said);
	pthread_mutex_unlock(&rw->mu);
}

static void on_tick(void *arg, const char *messages)
{
	(void)messages;
	struct remote_waits *rw = arg;
	rw->tick(rw->ctx);
}

/* Pool: one request for e's key. 1 there (a read's first bytes in e),
 * 0 not, -1 a failure. */
static int ask(struct remote_waits *rw, struct remote_wait *e)
{
	if (!e->read)
		return remote_head(rw->r, e->key);
	FILE *f = tmpfile();
	if (!f)
		return -1;
	int rc = remote_get(rw->r, e->key, fileno(f), NULL);
	if (rc == 1) {
		ssize_t n = pread(fileno(f), e->body, sizeof e->body, 0);
		e->len = n > 0 ? (size_t)n : 0;
	}
	fclose(f);
	return rc;
}

/* Sleeps on rw->wake until at (loop_now() time) or a wake; rw->mu held.
 * The condition's clock is the loop's (monotonic) where it can be. */
static void sleep_until(struct remote_waits *rw, long long at)
{
	long long left = at - loop_now();
	if (left <= 0)
		return;
	struct timespec ts;
#ifdef __linux__
	clock_gettime(CLOCK_MONOTONIC, &ts);
#else
	clock_gettime(CLOCK_REALTIME, &ts);
	if (left > 1000)
		left = 1000; /* a wall clock set back must not lengthen a sleep */
#endif
	ts.tv_sec += left / 1000;
	ts.tv_nsec += (left % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&rw->wake, &rw->mu, &ts);
}

/* Pool: while any wait is on, the one due first is asked (or ended), and
 * between asks the item sleeps until the next is due or the loop wakes it. */
static void serve(void *arg)
{
	struct remote_waits *rw = arg;
	/* said as it happens, not when the item ends (a wait can last 600 s) */
	report_to(collect, rw);
	pthread_mutex_lock(&rw->mu);
	long long next_tick = rw->tick ? loop_now() + rw->tick_ms : 0;
	while (rw->list) {
		long long now = loop_now();
		struct remote_wait *due = NULL;
		for (struct remote_wait *e = rw->list; e; e = e->next_wait) {
			if (rw->stop || e->cancelled) {
				due = e;
				break;
			}
			if (!due || e->next < due->next)
				due = e;
		}
		if (rw->stop || due->cancelled) {
			end_wait(rw, due, REMOTE_WAIT_STOPPED);
			continue;
		}
		if (rw->tick && now >= next_tick) {
			worker_post(rw->w, on_tick, rw);
			next_tick = now + rw->tick_ms;
		}
		if (due->next > now) {
			sleep_until(rw, rw->tick && next_tick < due->next ? next_tick : due->next);
			continue;
		}
		if (now >= due->deadline) {
			end_wait(rw, due, REMOTE_WAIT_GAVE_UP);
			continue;
		}
		pthread_mutex_unlock(&rw->mu);
		int rc = ask(rw, due);
		bool off = rc < 0 && !remote_readable(rw->r);
		pthread_mutex_lock(&rw->mu);
		rw->asked++;
		if (rw->said.len) /* before its end: the warning says why */
			worker_post(rw->w, on_say, rw);
		if (due->cancelled || rw->stop)
			end_wait(rw, due, REMOTE_WAIT_STOPPED);
		else if (rc == 1)
			end_wait(rw, due, REMOTE_WAIT_FOUND);
		else if (off)
			end_wait(rw, due, REMOTE_WAIT_ERROR);
		else {
			/* a failure the remote survives is asked again as a miss */
			now = loop_now();
			due->next = now + due->gap < due->deadline ? now + due->gap : due->deadline;
			due->gap = due->gap * 3 / 2 > due->max ? due->max : due->gap * 3 / 2;
		}
	}
	rw->running = false;
	pthread_mutex_unlock(&rw->mu);
}

static void served(void *arg, const char *messages)
{
	struct remote_waits *rw = arg;
	fputs(messages, stderr);
	rw->items--;
}

struct remote_waits *remote_waits_new(struct remote *r, struct worker *w, long long tick_ms,
				      remote_wait_tick_fn *tick, void *ctx)
{
	struct remote_waits *rw = xcalloc(1, sizeof *rw);
	rw->r = r;
	rw->w = w;
	rw->tick_ms = tick_ms > 0 ? tick_ms : 1000;
	rw->tick = tick;
	rw->ctx = ctx;
	strbuf_init(&rw->said);
	pthread_mutex_init(&rw->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
#ifdef __linux__
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
#endif
	pthread_cond_init(&rw->wake, &ca);
	pthread_condattr_destroy(&ca);
	return rw;
}

struct remote_wait *remote_wait_add(struct remote_waits *rw, const struct remote_wait_ask *a)
{
	struct remote_wait *e = xcalloc(1, sizeof *e);
	e->key = xstrdup(a->key);
	e->read = a->read;
	e->next = loop_now() + (a->first_ms > 0 ? a->first_ms : 0);
	e->gap = a->gap_ms > 0 ? a->gap_ms : 1;
	e->max = a->max_ms > e->gap ? a->max_ms : e->gap;
	e->deadline = a->deadline;
	e->done = a->done;
	e->arg = a->arg;
	pthread_mutex_lock(&rw->mu);
	struct remote_wait **tail = &rw->list;
	while (*tail)
		tail = &(*tail)->next_wait;
	*tail = e;
	bool start = !rw->running;
	rw->running = true;
	pthread_cond_signal(&rw->wake);
	pthread_mutex_unlock(&rw->mu);
	if (start) {
		rw->items++;
		worker_submit(rw->w, WORKER_NET, serve, served, rw);
	}
	return e;
}

void remote_wait_cancel(struct remote_waits *rw, struct remote_wait *e)
{
	pthread_mutex_lock(&rw->mu);
	e->cancelled = true;
	pthread_cond_signal(&rw->wake);
	pthread_mutex_unlock(&rw->mu);
}

void remote_waits_stop(struct remote_waits *rw)
{
	if (!rw)
		return;
	pthread_mutex_lock(&rw->mu);
	rw->stop = true;
	pthread_cond_signal(&rw->wake);
	pthread_mutex_unlock(&rw->mu);
}

size_t remote_waits_asked(struct remote_waits *rw)
{
	pthread_mutex_lock(&rw->mu);
	size_t n = rw->asked;
	pthread_mutex_unlock(&rw->mu);
	return n;
}

void remote_waits_free(struct remote_waits *rw)
{
	if (!rw)
		return;
	remote_waits_stop(rw);
	/* its posts come before its own done: none is left once it ran */
	while (rw->items)
		worker_wait(rw->w);
	on_say(rw, "");
	strbuf_release(&rw->said);
	pthread_mutex_destroy(&rw->mu);
	pthread_cond_destroy(&rw->wake);
	free(rw);
}
