/* worker.h - the run's one pool for slow work, redis's bio.c cut to size:
 * a queue per kind of work, each served by threads of its own (started at
 * its first item, so a run that never saves starts no save thread), items
 * taken in the order submitted; every ending is reported back on the
 * loop's thread through one pipe the loop watches, where the item's done
 * function runs. The loop never waits for a disk or a network; the work
 * never touches what the loop owns. A cache save, a hit's restore, the
 * remote prefetch, an upload and a --shard lookup all run here.
 *
 * What the work says through error() and warning() is not printed by its
 * thread (the display belongs to the loop's): it is collected and handed
 * to done, which prints it, or makes it the reason of a line of its own. */
#ifndef VX_UTIL_WORKER_H
#define VX_UTIL_WORKER_H

#include <stddef.h>

struct loop;
struct worker;

/* The queues, by what their work waits on. */
enum worker_queue {
	WORKER_READ,  /* a hit's open and restore: one thread, so hits come back
		       * in the order their tasks came up (a -j1 run's output) */
	WORKER_WRITE, /* cache saves: one thread, in the order submitted */
	WORKER_NET,   /* remote transfers (a prefetch batch, uploads, lookups):
		       * WORKER_NET_THREADS, so a far remote's round trips do
		       * not add up one after the other */
	WORKER_QUEUES
};
#define WORKER_NET_THREADS 8

/* Runs on a worker thread, every signal blocked. */
typedef void worker_work_fn(void *arg);
/* Runs on the loop's thread once work(arg) ended; messages: the error and
 * warning lines the work made ("" when none). */
typedef void worker_done_fn(void *arg, const char *messages);

/* Watches the result pipe on l, which must outlive the pool. Starts no
 * thread yet. Dies when the pipe cannot be made. */
struct worker *worker_new(struct loop *l);
/* Queues an item on q; done is called from a callback of l, after work.
 * Dies when q has no thread and none can start. */
void worker_submit(struct worker *w, enum worker_queue q, worker_work_fn *work,
		   worker_done_fn *done, void *arg);
/* From inside a work function: calls done(arg, "") on the loop's thread
 * soon, before the done of the item posting it (a prefetch's key settled
 * while the rest of its batch goes on). Any thread. */
void worker_post(struct worker *w, worker_done_fn *done, void *arg);
/* How many items are queued or running, or ended with done not yet called. */
size_t worker_busy(const struct worker *w);
/* On the loop's thread: sleeps until an item ended or a post came, unless
 * one is there already, and calls the done functions due. For an owner
 * waiting for its own items to end (a run's end waits for its saves). */
void worker_wait(struct worker *w);
/* Waits until every item submitted has ended and calls their done
 * functions, then stops the threads and frees. NULL is fine. */
void worker_free(struct worker *w);

#endif
