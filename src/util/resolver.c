/* resolver.c - lookups on a few threads, answers on the loop (resolver.h).
 *
 * The shared state is reference counted: the owner holds one reference and
 * each thread one, so resolver_free returns at once while a thread is
 * still inside getaddrinfo, and the last one out frees it. A request's
 * callback is touched only on the loop's thread (cancel clears it there),
 * never by a resolver thread. */
#include "util/resolver.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/die.h"
#include "util/thread.h"

struct resolve_req {
	struct resolve_req *next;
	char *host;
	int port;
	resolve_lookup_fn *lookup;
	int rc;
	struct addrinfo *ai;
	resolve_done_fn *done; /* the loop's thread only; NULL: cancelled */
	void *data;
};

struct resolver {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs; /* the owner's, and one per thread */
	bool quit;
	struct resolve_req *queue, **queue_tail; /* not yet taken by a thread */
	struct resolve_req *answered;		 /* taken back by the loop */
	int queued, threads, idle;
	int efd;
	struct loop *loop;
};

static void req_free(struct resolve_req *q)
{
	if (q->ai)
		freeaddrinfo(q->ai);
	free(q->host);
	free(q);
}

static void drop_list(struct resolve_req *q)
{
	while (q) {
		struct resolve_req *next = q->next;
		req_free(q);
		q = next;
	}
}

/* Drops a reference (the lock held); the last one frees everything. */
static void unref_locked(struct resolver *r)
{
	if (--r->refs) {
		pthread_mutex_unlock(&r->mu);
		return;
	}
	pthread_mutex_unlock(&r->mu);
	drop_list(r->queue);
	drop_list(r->answered);
	close(r->efd);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

static void *worker(void *arg)
{
	struct resolver *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->queue && !r->quit)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->quit)
			break;
		struct resolve_req *q = r->queue;
		r->queue = q->next;
		if (!r->queue)
			r->queue_tail = &r->queue;
		r->queued--;
		r->idle--;
		pthread_mutex_unlock(&r->mu);
		q->rc = q->lookup(q->host, q->port, &q->ai);
		pthread_mutex_lock(&r->mu);
		r->idle++;
		if (r->quit) {
			req_free(q);
			break;
		}
		q->next = r->answered;
		r->answered = q;
		uint64_t one = 1;
		if (write(r->efd, &one, sizeof one) < 0) {
			/* the counter is far from full: it is read at every wake-up */
		}
	}
	unref_locked(r);
	return NULL;
}

/* On the loop: every answer so far, to its callback (oldest first). */
static void on_answers(struct loop *l, int fd, unsigned ev, void *data)
{
	struct resolver *r = data;
	uint64_t n;
	if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN) {
		/* nothing to read: a spurious wake-up */
	}
	pthread_mutex_lock(&r->mu);
	struct resolve_req *q = r->answered, *fifo = NULL;
	r->answered = NULL;
	pthread_mutex_unlock(&r->mu);
	while (q) { /* reverse: the list was pushed newest first */
		struct resolve_req *next = q->next;
		q->next = fifo;
		fifo = q;
		q = next;
	}
	while (fifo) {
		q = fifo;
		fifo = q->next;
		if (q->done) {
			struct addrinfo *ai = q->ai;
			q->ai = NULL;
			q->done(q->rc, ai, q->data);
		}
		req_free(q);
	}
}

struct resolver *resolver_new(struct loop *l)
{
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0)
		return NULL;
	struct resolver *r = xcalloc(1, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->refs = 1;
	r->queue_tail = &r->queue;
	r->efd = efd;
	r->loop = l;
	loop_watch(l, efd, LOOP_READ, on_answers, r);
	return r;
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	loop_unwatch(r->loop, r->efd);
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_broadcast(&r->cv);
	unref_locked(r);
}

struct resolve_req *resolve_start(struct resolver *r, const char *host, int port,
				  resolve_lookup_fn *lookup, resolve_done_fn *done, void *data)
{
	struct resolve_req *q = xcalloc(1, sizeof *q);
	q->host = xstrdup(host);
	q->port = port;
	q->lookup = lookup;
	q->done = done;
	q->data = data;
	pthread_mutex_lock(&r->mu);
	*r->queue_tail = q;
	r->queue_tail = &q->next;
	/* a thread per lookup waiting, up to the cap: a slow one holds up
	 * only what queues behind it past the cap */
	if (++r->queued > r->idle && r->threads < RESOLVER_THREADS) {
		pthread_t t;
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (thread_start(&t, &attr, worker, r) == 0) {
			r->threads++;
			r->idle++;
			r->refs++;
		}
		pthread_attr_destroy(&attr);
		if (!r->threads)
			die("cannot start a thread for name lookups");
	}
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return q;
}

void resolve_cancel(struct resolve_req *q)
{
	q->done = NULL;
}
