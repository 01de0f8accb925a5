/* worker.c - a few threads and one result pipe (worker.h). */
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

/* More than this many threads only queue on one disk. */
#define WORKER_MAX_THREADS 8

struct item {
	worker_work_fn *work;
	worker_done_fn *done;
	void *arg;
	struct strbuf messages;
	struct item *next;
};

struct worker {
	struct loop *loop;
	pthread_t threads[WORKER_MAX_THREADS];
	size_t nthreads;
	pthread_mutex_t mu;
	pthread_cond_t wake;	 /* the threads: an item queued, or stop */
	pthread_cond_t finished; /* worker_free: an item ended */
	struct item *queue, **tail;
	struct item *done, **done_tail; /* ended, done not yet called */
	size_t busy;			/* submitted, done not yet called */
	bool stop;
	int rd, wr; /* the result pipe: a byte per item ended */
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->queue && !w->stop)
			pthread_cond_wait(&w->wake, &w->mu);
		if (!w->queue)
			break;
		struct item *it = w->queue;
		w->queue = it->next;
		if (!w->queue)
			w->tail = &w->queue;
		pthread_mutex_unlock(&w->mu);
		report_to(strbuf_report_line, &it->messages);
		it->work(it->arg);
		report_to(NULL, NULL);
		pthread_mutex_lock(&w->mu);
		it->next = NULL;
		*w->done_tail = it;
		w->done_tail = &it->next;
		pthread_cond_broadcast(&w->finished);
		char b = 1;
		/* the pipe holds far more bytes than items can be pending; a
		 * full one would still leave the done list whole */
		while (write(w->wr, &b, 1) < 0 && errno == EINTR)
			;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Calls done for every item ended so far, in the order they ended. */
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
		strbuf_release(&it->messages);
		free(it);
		pthread_mutex_lock(&w->mu);
		w->busy--;
		pthread_mutex_unlock(&w->mu);
	}
}

static void on_ready(struct loop *l, int fd, unsigned events, void *data)
{
	(void)l;
	(void)events;
	char buf[256];
	while (read(fd, buf, sizeof buf) > 0)
		;
	reap(data);
}

struct worker *worker_new(struct loop *l, size_t threads)
{
	struct worker *w = xcalloc(1, sizeof *w);
	w->loop = l;
	w->tail = &w->queue;
	w->done_tail = &w->done;
	int p[2];
	if (compat_pipe(p, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("cannot make the worker's pipe");
	w->rd = p[0];
	w->wr = p[1];
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->finished, NULL);
	if (threads < 1)
		threads = 1;
	if (threads > WORKER_MAX_THREADS)
		threads = WORKER_MAX_THREADS;
	int e = 0;
	while (w->nthreads < threads &&
	       !(e = thread_start(&w->threads[w->nthreads], NULL, thread_main, w)))
		w->nthreads++;
	if (!w->nthreads) {
		errno = e;
		die_errno("cannot start a worker thread");
	}
	loop_watch(l, w->rd, LOOP_READ, on_ready, w);
	return w;
}

void worker_submit(struct worker *w, worker_work_fn *work, worker_done_fn *done, void *arg)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->work = work;
	it->done = done;
	it->arg = arg;
	strbuf_init(&it->messages);
	pthread_mutex_lock(&w->mu);
	*w->tail = it;
	w->tail = &it->next;
	w->busy++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->mu);
}

size_t worker_busy(const struct worker *w)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->mu);
	size_t n = w->busy;
	pthread_mutex_unlock((pthread_mutex_t *)&w->mu);
	return n;
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	for (;;) {
		reap(w);
		pthread_mutex_lock(&w->mu);
		bool idle = !w->busy;
		while (!idle && !w->done)
			pthread_cond_wait(&w->finished, &w->mu);
		pthread_mutex_unlock(&w->mu);
		if (idle)
			break;
	}
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->mu);
	for (size_t k = 0; k < w->nthreads; k++)
		pthread_join(w->threads[k], NULL);
	loop_unwatch(w->loop, w->rd);
	close(w->rd);
	close(w->wr);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->finished);
	free(w);
}
