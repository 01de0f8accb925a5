/* cachestate.h - where one task's cache answer is, as one enum per task,
 * and the decisions that move it: the cache's side of a run (issue 58
 * item 4). The orchestrator's hooks (run/cacheflow.c) look up the facts
 * (an in-place record, the store, the prefetch), hand the slow work to the
 * run's pool, and move each task's state only through cache_state_after,
 * whose table is the whole machine: a move not in it is a bug, said.
 *
 *   IDLE -uncached/nothing-> RUN -save-> SAVE -saved-> DONE
 *   IDLE -in place-> HIT
 *   IDLE -prefetch pending-> PREFETCH -settled/let go-> IDLE
 *   IDLE -open-> OPEN -opened hit-> RESTORE -restored-> ANSWERED
 *                OPEN -opened miss-> ANSWERED -take hit-> HIT
 *                                    ANSWERED -take run-> RUN
 *   RUN -ask again (a --shard wait)-> IDLE;  any -reset (the next cycle)-> IDLE
 */
#ifndef VX_CACHE_CACHESTATE_H
#define VX_CACHE_CACHESTATE_H

#include <stdbool.h>

#include "cache/prefetch.h"

enum cache_state {
	CACHE_STATE_IDLE,     /* not asked yet this cycle */
	CACHE_STATE_PREFETCH, /* its hook waits for the prefetch to settle its key */
	CACHE_STATE_OPEN,     /* its entry is opened (and fetched) on the pool */
	CACHE_STATE_RESTORE,  /* its outputs are restored on the pool */
	CACHE_STATE_ANSWERED, /* the pool answered: its hook asked again takes it */
	CACHE_STATE_RUN,      /* a miss (or no cache): the task runs */
	CACHE_STATE_HIT,      /* a hit: its outputs and its log are back */
	CACHE_STATE_SAVE,     /* its entry is saved on the pool; dependents held */
	CACHE_STATE_DONE,     /* ran; saved, or not to be */
	CACHE_STATE_COUNT
};

enum cache_event {
	CACHE_EV_UNCACHED,	   /* not cacheable, no store, or the run does not read */
	CACHE_EV_IN_PLACE,	   /* its outputs are in place for this key: the fast hit */
	CACHE_EV_PREFETCH_PENDING, /* its key is in the prefetch, not settled yet */
	CACHE_EV_PREFETCH_SETTLED, /* the prefetch settled it, or the run let go */
	CACHE_EV_NOTHING,	   /* no entry here and none to ask for: a miss */
	CACHE_EV_OPEN,		   /* an entry here, or one to ask the remote for */
	CACHE_EV_OPENED_HIT,	   /* opened, its programs unchanged: restore it */
	CACHE_EV_OPENED_MISS,	   /* none, damaged, or its programs changed */
	CACHE_EV_RESTORED,	   /* restored, or failed to (the answer says which) */
	CACHE_EV_TAKE_HIT,	   /* the hook took the pool's answer: a hit */
	CACHE_EV_TAKE_RUN,	   /* the hook took the pool's answer: run it */
	CACHE_EV_ASK_AGAIN,	   /* its hook is asked again (a --shard wait) */
	CACHE_EV_SAVE,		   /* it succeeded: its save is on the pool */
	CACHE_EV_SAVED,		   /* its save ended (made or not) */
	CACHE_EV_NOT_SAVED,	   /* it ended and is not saved (failed, or no cache) */
	CACHE_EV_RESET,		   /* the next cycle (vx watch), or an answer no one took */
	CACHE_EV_COUNT
};

/* The state after e in s, or CACHE_STATE_COUNT when the table has no such
 * move. */
enum cache_state cache_state_after(enum cache_state s, enum cache_event e);
/* "idle", "prefetch", ...; "open" and so on for events. */
const char *cache_state_name(enum cache_state s);
const char *cache_event_name(enum cache_event e);

/* A task come up, its fast hit not there: what the cache does next. */
struct cache_look {
	enum prefetch_state prefetch; /* its prefetch answer; PREFETCH_ASK: not in it */
	bool remote_only;	      /* the local store is only the remote's staging */
	bool remote_readable;	      /* a GET may still be made */
	/* whether the store holds its entry (two stats): asked only when the
	 * answer matters */
	bool (*here)(void *ctx);
	void *ctx;
};
/* CACHE_EV_PREFETCH_PENDING (wait for the prefetch), CACHE_EV_OPEN (an
 * entry to open here, or a GET worth making: off the loop) or
 * CACHE_EV_NOTHING (a plain miss, known on the loop). */
enum cache_event cache_state_look(const struct cache_look *l);

/* What the open on the pool does, for a prefetch answer. */
struct cache_open_plan {
	bool local;	  /* open the local store's entry (not when remote_only and
			   * the prefetch did not just put it there) */
	bool from_remote; /* a local hit is the remote's (the prefetch fetched it) */
	bool ask_remote;  /* no local hit: GET it alone */
};
struct cache_open_plan cache_state_open_plan(enum prefetch_state prefetch, bool remote_only);

#endif
