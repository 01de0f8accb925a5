/* worker.h - slow work off the loop, redis's bio.c cut to size: a few
 * threads take items in the order submitted, run each item's work, and
 * report it done back on the loop's thread (a pipe the loop watches), where
 * the item's done function runs. The loop never waits for a disk or a
 * network; the work never touches what the loop owns.
 *
 * What the work says through error() and warning() is not printed by its
 * thread (the display belongs to the loop's): it is collected and handed
 * to done, which prints it, or makes it the reason of a line of its own. */
#ifndef VX_UTIL_WORKER_H
#define VX_UTIL_WORKER_H

#include <stddef.h>

struct loop;
struct worker;

/* Runs on a worker thread, every signal blocked. */
typedef void worker_work_fn(void *arg);
/* Runs on the loop's thread once work(arg) ended; messages: the error and
 * warning lines the work made ("" when none). */
typedef void worker_done_fn(void *arg, const char *messages);

/* Starts threads (at least 1) and watches the result pipe on l, which
 * must outlive the worker. Dies when no thread can start. */
struct worker *worker_new(struct loop *l, size_t threads);
/* Queues an item; done is called from a callback of l, after work. */
void worker_submit(struct worker *w, worker_work_fn *work, worker_done_fn *done, void *arg);
/* How many items are queued or running, or ended with done not yet called. */
size_t worker_busy(const struct worker *w);
/* Waits until every item submitted has ended and calls their done
 * functions, then stops the threads and frees. NULL is fine. */
void worker_free(struct worker *w);

#endif
