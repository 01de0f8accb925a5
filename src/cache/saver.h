/* saver.h - saving cache entries on the run's pool (util/worker.h), so
 * that archiving and compressing one task's outputs never holds up the
 * run's loop (the other tasks' output, their timeouts, the status line,
 * the next start).
 *
 * The pool's WORKER_WRITE queue, one thread, saves in the order submitted
 * (entry_save is the work; the store's lock already pairs a save with a
 * concurrent reader, in this process or another). A finished save is
 * reported back on the loop's thread, where the saver calls the caller's
 * function with the save's result and every error() or warning() line the
 * save produced, which the thread never prints itself (the display
 * belongs to the loop's thread). Turborepo's cache writes in
 * the background the same way; what vx adds is that the task's dependents
 * wait for the save (the scheduler's job->held), so nothing that runs
 * after a task can change its outputs while they are being archived. */
#ifndef VX_CACHE_SAVER_H
#define VX_CACHE_SAVER_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/entry.h"
#include "cache/store.h"

struct saver;

/* rc: entry_save's result; messages: its error lines ("" when none);
 * seen: each member as it was archived, when the request asked (a
 * request's seen pointer is a flag: the saver fills its own), else NULL. */
typedef void saver_done_fn(void *tag, int rc, const char *messages, const struct inplace_seen *seen,
			   void *ctx);

struct remote;
struct worker;
/* st, remote and w must outlive the saver; done(tag, ..., ctx) is called
 * for each save, on the loop's thread. With a remote, each entry saved is
 * uploaded after its save is reported, on the pool's WORKER_NET queue
 * (several at once): neither its task's dependents nor the next save wait
 * for the network; saver_free waits for the uploads in flight, and starts
 * no queued one past the grace. With a remote and !keep_local, each entry
 * is removed from st once its upload is over, made or not: it was saved
 * only to be sent. */
struct saver *saver_new(const struct store *st, struct remote *remote, bool keep_local,
			struct worker *w, saver_done_fn *done, void *ctx);

/* Queues a save of req. Everything req points to is copied (the log bytes
 * too), so the caller may free or reuse its own at once; req->log_fd is
 * duplicated and read from offset 0, so its offset is shared: the caller
 * must not read or write it until the save is reaped (the scheduler
 * writes a job's spill only while the job runs). tag comes back in done. */
void saver_submit(struct saver *sv, const struct entry_save_request *req, void *tag);

/* How many saves were submitted and not yet reported. */
size_t saver_pending(const struct saver *sv);

/* On the loop's thread: waits until every submitted save was reported
 * (worker_wait: the pool's other done functions run meanwhile), and sets
 * the uploads' grace. */
void saver_drain(struct saver *sv);

/* Drains, waits for the uploads begun within the grace, says how many it
 * left, frees. */
void saver_free(struct saver *sv);

#endif
