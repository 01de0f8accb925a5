/* saver.h - saving cache entries on a worker thread, so that archiving
 * and compressing one task's outputs never holds up the run's loop (the
 * other tasks' output, their timeouts, the status line, the next start).
 *
 * One thread, one queue, saves in the order submitted (entry_save is the
 * work; the store's lock already pairs a save with a concurrent reader,
 * in this process or another). A finished save is reported back on the
 * submitting thread: saver_fd() becomes readable, and saver_reap() calls
 * the caller's function with the save's result and every error() or
 * warning() line the save produced, which the thread never prints itself
 * (the display belongs to the loop's thread). Turborepo's cache writes in
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
/* Starts the thread (with every signal blocked: they belong to the loop's
 * signalfd). st (and remote) must outlive the saver. With a remote, each
 * entry saved is uploaded after its save is reported, on uploader threads
 * of their own (REMOTE_UPLOADERS at once): neither its task's dependents
 * nor the next save wait for the network; saver_free waits for the
 * uploads in flight, and starts no queued one past the grace. With a
 * remote and !keep_local, each entry is removed from st once its upload
 * is over, made or not: it was saved only to be sent. Dies when no thread
 * can start. */
struct saver *saver_new(const struct store *st, struct remote *remote, bool keep_local);

/* Queues a save of req. Everything req points to is copied (the log bytes
 * too), so the caller may free or reuse its own at once; req->log_fd is
 * duplicated and read from offset 0, so its offset is shared: the caller
 * must not read or write it until the save is reaped (the scheduler
 * writes a job's spill only while the job runs). tag comes back in done. */
void saver_submit(struct saver *sv, const struct entry_save_request *req, void *tag);

/* Readable while a finished save waits for saver_reap. */
int saver_fd(const struct saver *sv);

/* Calls done for each finished save, in the order they were submitted.
 * Returns how many. */
size_t saver_reap(struct saver *sv, saver_done_fn *done, void *ctx);

/* Waits until every submitted save has finished, reaping each. */
void saver_drain(struct saver *sv, saver_done_fn *done, void *ctx);

/* Drains (done NULL: results dropped), stops the thread and frees. */
void saver_free(struct saver *sv);

#endif
