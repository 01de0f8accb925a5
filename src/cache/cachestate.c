/* cachestate.c - a task's cache state and its moves (cachestate.h). */
#include "cache/cachestate.h"

#include <stddef.h>

/* One row a move: the whole machine. */
static const struct {
	enum cache_state from;
	enum cache_event ev;
	enum cache_state to;
} moves[] = {
    {CACHE_STATE_IDLE, CACHE_EV_UNCACHED, CACHE_STATE_RUN},
    {CACHE_STATE_IDLE, CACHE_EV_IN_PLACE, CACHE_STATE_HIT},
    {CACHE_STATE_IDLE, CACHE_EV_PREFETCH_PENDING, CACHE_STATE_PREFETCH},
    {CACHE_STATE_IDLE, CACHE_EV_NOTHING, CACHE_STATE_RUN},
    {CACHE_STATE_IDLE, CACHE_EV_OPEN, CACHE_STATE_OPEN},
    {CACHE_STATE_PREFETCH, CACHE_EV_PREFETCH_SETTLED, CACHE_STATE_IDLE},
    {CACHE_STATE_OPEN, CACHE_EV_OPENED_HIT, CACHE_STATE_RESTORE},
    {CACHE_STATE_OPEN, CACHE_EV_OPENED_MISS, CACHE_STATE_ANSWERED},
    {CACHE_STATE_RESTORE, CACHE_EV_RESTORED, CACHE_STATE_ANSWERED},
    {CACHE_STATE_ANSWERED, CACHE_EV_TAKE_HIT, CACHE_STATE_HIT},
    {CACHE_STATE_ANSWERED, CACHE_EV_TAKE_RUN, CACHE_STATE_RUN},
    {CACHE_STATE_RUN, CACHE_EV_ASK_AGAIN, CACHE_STATE_IDLE},
    {CACHE_STATE_RUN, CACHE_EV_SAVE, CACHE_STATE_SAVE},
    {CACHE_STATE_RUN, CACHE_EV_NOT_SAVED, CACHE_STATE_DONE},
    {CACHE_STATE_SAVE, CACHE_EV_SAVED, CACHE_STATE_DONE},
};

enum cache_state cache_state_after(enum cache_state s, enum cache_event e)
{
	/* a new cycle starts every task afresh, but never one the pool is
	 * still working on: its answer comes back to that state */
	if (e == CACHE_EV_RESET)
		return s == CACHE_STATE_OPEN || s == CACHE_STATE_RESTORE || s == CACHE_STATE_SAVE
			   ? CACHE_STATE_COUNT
			   : CACHE_STATE_IDLE;
	for (size_t k = 0; k < sizeof moves / sizeof *moves; k++)
		if (moves[k].from == s && moves[k].ev == e)
			return moves[k].to;
	return CACHE_STATE_COUNT;
}

const char *cache_state_name(enum cache_state s)
{
	static const char *const names[] = {"idle", "prefetch", "open", "restore", "answered",
					    "run",  "hit",	"save", "done"};
	return s < CACHE_STATE_COUNT ? names[s] : "?";
}

const char *cache_event_name(enum cache_event e)
{
	static const char *const names[] = {
	    "uncached", "in place", "prefetch pending", "prefetch settled",
	    "nothing",	"open",	    "opened hit",	"opened miss",
	    "restored", "take hit", "take run",		"ask again",
	    "save",	"saved",    "not saved",	"reset"};
	return e < CACHE_EV_COUNT ? names[e] : "?";
}

enum cache_event cache_state_look(const struct cache_look *l)
{
	if (l->prefetch == PREFETCH_PENDING)
		return CACHE_EV_PREFETCH_PENDING;
	/* A plain miss is known on the loop, in the order the tasks come up:
	 * no entry here (two stats, as the prefetch asks) and no GET to make.
	 * Only a hit's way in, or a GET, leaves the loop. */
	if ((!l->remote_only || l->prefetch == PREFETCH_HIT) && l->here(l->ctx))
		return CACHE_EV_OPEN;
	return l->prefetch == PREFETCH_ASK && l->remote_readable ? CACHE_EV_OPEN : CACHE_EV_NOTHING;
}

struct cache_open_plan cache_state_open_plan(enum prefetch_state prefetch, bool remote_only)
{
	return (struct cache_open_plan){
	    .local = !remote_only || prefetch == PREFETCH_HIT,
	    .from_remote = prefetch == PREFETCH_HIT,
	    .ask_remote = prefetch == PREFETCH_ASK,
	};
}
