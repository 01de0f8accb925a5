/* prefetch.h - a run's remote cache lookups, all at once and ahead of
 * need: every key the local store lacks is asked for on one thread of its
 * own (remote_get_many: many transfers on one connection pool), each body
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

/* Starts the thread on keys (n of them; they and r, st outlive it).
 * Returns NULL when there is nothing to do or no thread can start. */
struct prefetch *prefetch_start(const struct store *st, struct remote *r, const char *const *keys,
				size_t n);
/* A descriptor that is readable once keys settled since the last
 * prefetch_drain: a task waiting on its key waits on the caller's loop for
 * it, never by asking again and again. Owned by p. */
int prefetch_fd(const struct prefetch *p);
/* Empties prefetch_fd, before its keys' states are looked at. */
void prefetch_drain(struct prefetch *p);
/* Key i's state, as of now. */
enum prefetch_state prefetch_state(struct prefetch *p, size_t i);
/* Prints, on the caller's thread, the warnings the prefetch thread made
 * since the last call (a download refused, a tag that does not verify). */
void prefetch_say(struct prefetch *p);
/* Asks the thread to begin no more lookups (it ends those in flight);
 * any thread. */
void prefetch_stop(struct prefetch *p);
/* Stops what has not started, waits for what has, prints what is left
 * to say, frees. NULL is fine. */
void prefetch_free(struct prefetch *p);

#endif
