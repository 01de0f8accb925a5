/* worker.c - the run's pool: a queue and threads per kind of work, one
 * result pipe (worker.h). */
#include "util/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/strbuf.h"
#include "util/thread.h"

/* Threads per queue, at most: the order READ and WRITE promise needs one. */
static const size_t max_threads[WORKER_QUEUES] = {
    [WORKER_READ] = 1, [WORKER_WRITE] = 1, [WORKER_NET] = WORKER_NET_THREADS};

struct item {
	worker_work_fn *work; /* NULL: a post, only its done to call */
	worker_done_fn *done;
	void *arg;
	struct strbuf messages;
	struct item *next;
};

struct queue {
	struct worker *w;
	pthread_t threads[WORKER_NET_THREADS];
	size_t nthreads, idle; /* started; waiting for an item */
	size_t queued;	       /* items not yet taken by a thread */
	pthread_cond_t wake;   /* its threads: an item queued, or stop */
	struct item *head, **tail;
};

struct worker {
	struct loop *loop;
	struct queue q[WORKER_QUEUES];
	pthread_mutex_t mu;
	pthread_cond_t finished;	/* worker_wait: an item ended, or a post */
	struct item *done, **done_tail; /* ended or posted, done not yet called */
	size_t busy;			/* submitted, done not yet called */
	bool stop;
	int rd, wr; /* the result pipe: a byte per item ended or posted */
};

/* Puts it on the done list and wakes the loop; w->mu held. */
static void finish(struct worker *w, struct item *it)
{
	it->next = NULL;
	*w->done_tail = it;
	w->done_tail = &it->next;
	pthread_cond_broadcast(&w->finished);
	char b = 1;
	/* the pipe holds a wake-up already when it is full: the done list
	 * stays whole, and the loop empties both */
	while (write(w->wr, &b, 1) < 0 && errno == EINTR)
		;
}

static void *thread_main(void *arg)
{
	struct queue *q = arg;
	struct worker *w = q->w;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		q->idle++;
		while (!q->head && !w->stop)
			pthread_cond_wait(&q->wake, &w->mu);
		q->idle--;
		if (!q->head)
			break;
		struct item *it = q->head;
		q->queued--;
		q->head = it->next;
		if (!q->head)
			q->tail = &q->head;
		pthread_mutex_unlock(&w->mu);
		report_to(strbuf_report_line, &it->messages);
		it->work(it->arg);
		report_to(NULL, NULL);
		pthread_mutex_lock(&w->mu);
		finish(w, it);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Calls done for every item ended or posted so far, in that order. */
static void reap(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	struct item *list = w->done;
	w->done = NULL;
	w->done_tail = &w->done;
	pthread_mutex_unlock(&w->mu);
	while (list) {
		struct item *it = list;
		list = it->next;
		it->done(it->arg, it->messages.buf);
		bool posted = !it->work;
		strbuf_release(&it->messages);
		free(it);
		if (posted)
			continue;
		pthread_mutex_lock(&w->mu);
		w->busy--;
		pthread_mutex_unlock(&w->mu);
	}
}

static void empty_pipe(int fd)
{
	char buf[256];
	while (read(fd, buf, sizeof buf) > 0)
		;
}

static void on_ready(struct loop *l, int fd, unsigned events, void *data)
{
	(void)l;
	(void)events;
	empty_pipe(fd);
	reap(data);
}

struct worker *worker_new(struct loop *l)
{
	struct worker *w = xcalloc(1, sizeof *w);
	w->loop = l;
	w->done_tail = &w->done;
	int p[2];
	if (compat_pipe(p, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("cannot make the worker's pipe");
	w->rd = p[0];
	w->wr = p[1];
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->finished, NULL);
	for (size_t k = 0; k < WORKER_QUEUES; k++) {
		w->q[k].w = w;
		w->q[k].tail = &w->q[k].head;
		pthread_cond_init(&w->q[k].wake, NULL);
	}
	loop_watch(l, w->rd, LOOP_READ, on_ready, w);
	return w;
}

void worker_submit(struct worker *w, enum worker_queue qi, worker_work_fn *work,
		   worker_done_fn *done, void *arg)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->work = work;
	it->done = done;
	it->arg = arg;
	strbuf_init(&it->messages);
	struct queue *q = &w->q[qi];
	pthread_mutex_lock(&w->mu);
	*q->tail = it;
	q->tail = &it->next;
	q->queued++;
	w->busy++;
	/* a thread more while the items waiting outnumber the idle threads,
	 * up to the queue's count: a run that never saves never starts the
	 * save thread. Not "while none is idle": an idle thread signalled
	 * for one item counts as idle until it wakes, and a second item
	 * submitted meanwhile found no thread to start and waited behind the
	 * first (the waits' item can last the whole run) */
	int e = 0;
	if (q->queued > q->idle && q->nthreads < max_threads[qi] &&
	    !(e = thread_start(&q->threads[q->nthreads], NULL, thread_main, q)))
		q->nthreads++;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&w->mu);
	/* one that cannot start only costs parallelism; none at all is fatal */
	if (!q->nthreads) {
		errno = e;
		die_errno("cannot start a worker thread");
	}
}

void worker_post(struct worker *w, worker_done_fn *done, void *arg)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->done = done;
	it->arg = arg;
	strbuf_init(&it->messages);
	pthread_mutex_lock(&w->mu);
	finish(w, it);
	pthread_mutex_unlock(&w->mu);
}

size_t worker_busy(const struct worker *w)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->mu);
	size_t n = w->busy;
	pthread_mutex_unlock((pthread_mutex_t *)&w->mu);
	return n;
}

void worker_wait(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (!w->done && w->busy)
		pthread_cond_wait(&w->finished, &w->mu);
	pthread_mutex_unlock(&w->mu);
	empty_pipe(w->rd);
	reap(w);
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	while (worker_busy(w))
		worker_wait(w);
	reap(w); /* posts that came after the last item's done */
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	for (size_t k = 0; k < WORKER_QUEUES; k++)
		pthread_cond_broadcast(&w->q[k].wake);
	pthread_mutex_unlock(&w->mu);
	for (size_t k = 0; k < WORKER_QUEUES; k++) {
		for (size_t t = 0; t < w->q[k].nthreads; t++)
			pthread_join(w->q[k].threads[t], NULL);
		pthread_cond_destroy(&w->q[k].wake);
	}
	loop_unwatch(w->loop, w->rd);
	close(w->rd);
	close(w->wr);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->finished);
	free(w);
}
