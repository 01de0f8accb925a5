/* Unit tests for cache/cachestate.c: a task's cache state moves only as
 * the table says (a hit's way through the pool, a miss's save, a --shard
 * wait asked again, a new cycle), every other move is refused, and the
 * decisions taken on the loop (wait for the prefetch, open off the loop,
 * or a plain miss) ask the store only when the answer matters. */
#include "cache/cachestate.h"
#include "check.h"

/* Walks s through events; returns the state reached, or
 * CACHE_STATE_COUNT at the first refused move. */
static enum cache_state walk(enum cache_state s, const enum cache_event *ev, size_t n)
{
	for (size_t k = 0; k < n && s != CACHE_STATE_COUNT; k++)
		s = cache_state_after(s, ev[k]);
	return s;
}
#define WALK(s, ...)                                                                               \
	walk(s, (const enum cache_event[]){__VA_ARGS__},                                           \
	     sizeof((const enum cache_event[]){__VA_ARGS__}) / sizeof(enum cache_event))

static void test_paths(void)
{
	/* a hit from the store or the remote, through the pool */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_OPEN, CACHE_EV_OPENED_HIT, CACHE_EV_RESTORED,
		       CACHE_EV_TAKE_HIT),
		  CACHE_STATE_HIT);
	/* a restore that failed: the task runs, and is saved */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_OPEN, CACHE_EV_OPENED_HIT, CACHE_EV_RESTORED,
		       CACHE_EV_TAKE_RUN, CACHE_EV_SAVE, CACHE_EV_SAVED),
		  CACHE_STATE_DONE);
	/* a damaged entry, or programs changed */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_OPEN, CACHE_EV_OPENED_MISS, CACHE_EV_TAKE_RUN),
		  CACHE_STATE_RUN);
	/* the fast hit */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_IN_PLACE), CACHE_STATE_HIT);
	/* waiting for the prefetch, then deciding afresh */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_PREFETCH_PENDING, CACHE_EV_PREFETCH_SETTLED,
		       CACHE_EV_OPEN),
		  CACHE_STATE_OPEN);
	/* a plain miss that fails: not saved */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_NOTHING, CACHE_EV_NOT_SAVED), CACHE_STATE_DONE);
	/* a --shard wait: a miss asked again, then the other shard's upload */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_NOTHING, CACHE_EV_ASK_AGAIN, CACHE_EV_OPEN,
		       CACHE_EV_OPENED_HIT, CACHE_EV_RESTORED, CACHE_EV_TAKE_HIT),
		  CACHE_STATE_HIT);
	/* no cache at all */
	CHECK_INT(WALK(CACHE_STATE_IDLE, CACHE_EV_UNCACHED, CACHE_EV_NOT_SAVED), CACHE_STATE_DONE);
}

static void test_refused(void)
{
	/* what the hooks must never do */
	CHECK_INT(cache_state_after(CACHE_STATE_IDLE, CACHE_EV_SAVED), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_IDLE, CACHE_EV_TAKE_HIT), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_OPEN, CACHE_EV_TAKE_HIT), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_PREFETCH, CACHE_EV_OPEN), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_HIT, CACHE_EV_SAVE), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_HIT, CACHE_EV_ASK_AGAIN), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_SAVE, CACHE_EV_SAVE), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_DONE, CACHE_EV_SAVED), CACHE_STATE_COUNT);
	/* a new cycle never drops what the pool still works on */
	CHECK_INT(cache_state_after(CACHE_STATE_OPEN, CACHE_EV_RESET), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_RESTORE, CACHE_EV_RESET), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_SAVE, CACHE_EV_RESET), CACHE_STATE_COUNT);
	CHECK_INT(cache_state_after(CACHE_STATE_ANSWERED, CACHE_EV_RESET), CACHE_STATE_IDLE);
	CHECK_INT(cache_state_after(CACHE_STATE_DONE, CACHE_EV_RESET), CACHE_STATE_IDLE);
	CHECK_INT(cache_state_after(CACHE_STATE_HIT, CACHE_EV_RESET), CACHE_STATE_IDLE);
	/* the table's size: 15 moves, and a reset from the 6 states at rest */
	size_t legal = 0;
	for (int s = 0; s < CACHE_STATE_COUNT; s++)
		for (int e = 0; e < CACHE_EV_COUNT; e++)
			legal += cache_state_after(s, e) != CACHE_STATE_COUNT;
	CHECK_INT(legal, 15 + 6);
	/* every state and event has a name of its own */
	for (int s = 0; s < CACHE_STATE_COUNT; s++)
		CHECK(strcmp(cache_state_name(s), "?"));
	for (int e = 0; e < CACHE_EV_COUNT; e++)
		CHECK(strcmp(cache_event_name(e), "?"));
	CHECK_STR(cache_event_name(CACHE_EV_RESET), "reset");
	CHECK_STR(cache_state_name(CACHE_STATE_DONE), "done");
}

static int here_calls;
static bool here_answer;
static bool here(void *ctx)
{
	(void)ctx;
	here_calls++;
	return here_answer;
}

/* cache_state_look's answer for the facts, and how often it stat'ed. */
static enum cache_event look(enum prefetch_state pf, bool remote_only, bool readable, bool is_here,
			     int *calls)
{
	here_calls = 0;
	here_answer = is_here;
	struct cache_look l = {.prefetch = pf,
			       .remote_only = remote_only,
			       .remote_readable = readable,
			       .here = here,
			       .ctx = NULL};
	enum cache_event e = cache_state_look(&l);
	*calls = here_calls;
	return e;
}

static void test_look(void)
{
	int calls;
	/* the prefetch has not settled it: wait, the store not asked */
	CHECK_INT(look(PREFETCH_PENDING, false, true, true, &calls), CACHE_EV_PREFETCH_PENDING);
	CHECK_INT(calls, 0);
	/* an entry here: opened off the loop */
	CHECK_INT(look(PREFETCH_ASK, false, false, true, &calls), CACHE_EV_OPEN);
	CHECK_INT(calls, 1);
	/* none here, nothing to ask the remote for: a miss on the loop */
	CHECK_INT(look(PREFETCH_ASK, false, false, false, &calls), CACHE_EV_NOTHING);
	CHECK_INT(look(PREFETCH_MISS, false, true, false, &calls), CACHE_EV_NOTHING);
	/* none here, a GET worth making: off the loop */
	CHECK_INT(look(PREFETCH_ASK, false, true, false, &calls), CACHE_EV_OPEN);
	/* the prefetch put it here */
	CHECK_INT(look(PREFETCH_HIT, false, true, true, &calls), CACHE_EV_OPEN);
	/* remote only: the local store is not asked unless the prefetch
	 * filled it; a miss there is the remote's to answer */
	CHECK_INT(look(PREFETCH_MISS, true, true, true, &calls), CACHE_EV_NOTHING);
	CHECK_INT(calls, 0);
	CHECK_INT(look(PREFETCH_ASK, true, true, true, &calls), CACHE_EV_OPEN);
	CHECK_INT(calls, 0);
	CHECK_INT(look(PREFETCH_HIT, true, true, true, &calls), CACHE_EV_OPEN);
	CHECK_INT(calls, 1);
}

static void test_open_plan(void)
{
	struct cache_open_plan p = cache_state_open_plan(PREFETCH_ASK, false);
	CHECK(p.local && !p.from_remote && p.ask_remote);
	p = cache_state_open_plan(PREFETCH_HIT, false);
	CHECK(p.local && p.from_remote && !p.ask_remote);
	p = cache_state_open_plan(PREFETCH_MISS, false);
	CHECK(p.local && !p.from_remote && !p.ask_remote);
	p = cache_state_open_plan(PREFETCH_ASK, true);
	CHECK(!p.local && p.ask_remote);
	p = cache_state_open_plan(PREFETCH_HIT, true);
	CHECK(p.local && p.from_remote && !p.ask_remote);
}

int main(void)
{
	test_paths();
	test_refused();
	test_look();
	test_open_plan();
	return check_finish("cachestate");
}
