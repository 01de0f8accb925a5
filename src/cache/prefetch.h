/* prefetch.h - a run's remote cache lookups, all at once and ahead of
 * need: every key the local store lacks is asked for as one item of the
 * run's pool (util/worker.h, its WORKER_NET queue; remote_get_many: many
 * transfers on one connection pool), each body
 * checked and entered into the store as a download always is
 * (transfer_import), while the run starts what it can. A task that comes
 * up asks its key's state; what the prefetch could not answer is asked
 * for alone, as before (docs/remote-cache.md). */
#ifndef VX_CACHE_PREFETCH_H
#define VX_CACHE_PREFETCH_H

#include <stddef.h>

#include "cache/remote.h"
#include "cache/store.h"

enum prefetch_state {
	PREFETCH_PENDING, /* not settled yet: wait */
	PREFETCH_HIT,	  /* it is in the local store now, from the remote */
	PREFETCH_MISS,	  /* the remote has no good artifact (or failed): do not ask again */
	PREFETCH_ASK,	  /* not asked here: ask alone */
};

struct prefetch;
struct worker;

/* Called on the loop's thread (a post of w's) each time keys settled: a
 * task waiting on its key is woken by it, never by asking again and
 * again. A key's state is settled before its call is posted. */
typedef void prefetch_settled_fn(void *ctx);

/* Queues the lookups of keys (n of them; they, r, st and w outlive p) on
 * w. Returns NULL when there is nothing to do. */
struct prefetch *prefetch_start(const struct store *st, struct remote *r, const char *const *keys,
				size_t n, struct worker *w, prefetch_settled_fn *settled,
				void *ctx);
/* Key i's state, as of now. */
enum prefetch_state prefetch_state(struct prefetch *p, size_t i);
/* Prints, on the caller's thread, the warnings the prefetch thread made
 * since the last call (a download refused, a tag that does not verify). */
void prefetch_say(struct prefetch *p);
/* Asks the thread to begin no more lookups (it ends those in flight);
 * any thread. */
void prefetch_stop(struct prefetch *p);
/* On the loop's thread: stops what has not started, waits for what has
 * (worker_wait: other items' done functions run meanwhile), prints what
 * is left to say, frees. NULL is fine. */
void prefetch_free(struct prefetch *p);

#endif
