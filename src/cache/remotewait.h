/* remotewait.h - waiting for keys another machine will upload to the
 * remote cache (a --shard run waits for the parts other shards build,
 * docs/ci.md). An HTTP cache cannot say when an upload arrives, so someone
 * must ask again; it is never the loop (issue 58 item 4: a loop timer per
 * waiting task, 250 ms growing to 2 s, asked its hook again). One item of
 * the run's pool (util/worker.h, WORKER_NET) asks every waited key in
 * turn, each on its own back-off and deadline, sleeping between rounds on
 * a condition variable the loop can wake (a new key, a cancel, a stop);
 * each key ends in one readiness event posted through the pool's done
 * list: found, gave up, error or stopped. However many keys wait, the
 * waits hold one of WORKER_NET's threads: the uploads and lookups of the
 * run keep the others (a thread per wait would let eight waits starve the
 * uploads another shard is waiting for). */
#ifndef VX_CACHE_REMOTEWAIT_H
#define VX_CACHE_REMOTEWAIT_H

#include <stdbool.h>
#include <stddef.h>

struct remote;
struct worker;
struct remote_wait;
struct remote_waits;

/* How one wait ended: the one event its done gets. */
enum remote_wait_end {
	REMOTE_WAIT_FOUND,   /* the remote holds it now */
	REMOTE_WAIT_GAVE_UP, /* not there by its deadline */
	REMOTE_WAIT_ERROR,   /* the remote went off (warned): asking again is no use */
	REMOTE_WAIT_STOPPED, /* cancelled (remote_wait_cancel), or the waits stopped */
};

/* The most bytes of a found body handed to done (a read wait's). */
#define REMOTE_WAIT_BODY 64

/* On the loop's thread, once per wait. body: a read wait's first bytes
 * when found (len of them), else NULL and 0. The wait is gone after. */
typedef void remote_wait_done_fn(void *arg, enum remote_wait_end end, const char *body, size_t len);
/* On the loop's thread, every tick_ms while any wait is on. */
typedef void remote_wait_tick_fn(void *ctx);

struct remote_wait_ask {
	const char *key;    /* copied */
	bool read;	    /* GET its body (REMOTE_WAIT_BODY bytes of it), not a HEAD */
	long long first_ms; /* the first ask this long after the add (0: at once) */
	long long gap_ms;   /* then each after this long, growing by half... */
	long long max_ms;   /* ...up to this */
	long long deadline; /* loop_now() after which it gives up, asking no more */
	remote_wait_done_fn *done;
	void *arg;
};

/* Waits on r, their item on w (both outlive the waits); tick (NULL: none)
 * is posted every tick_ms while any wait is on. Starts nothing yet. */
struct remote_waits *remote_waits_new(struct remote *r, struct worker *w, long long tick_ms,
				      remote_wait_tick_fn *tick, void *ctx);
/* On the loop's thread: waits for a->key; its done is called once, later,
 * from a callback of the loop (never from here). Returns a handle for
 * remote_wait_cancel, good until its done ran. After remote_waits_stop:
 * done(STOPPED) all the same. */
struct remote_wait *remote_wait_add(struct remote_waits *rw, const struct remote_wait_ask *a);
/* On the loop's thread: its done comes soon with STOPPED, or with what a
 * request in flight found. */
void remote_wait_cancel(struct remote_waits *rw, struct remote_wait *e);
/* Any thread: every wait ends STOPPED, as soon as the request in flight
 * (if any: one, within the remote's timeout) ends; none sleeps out its
 * back-off. */
void remote_waits_stop(struct remote_waits *rw);
/* Requests made so far (HEADs and GETs), for tests and measures. */
size_t remote_waits_asked(struct remote_waits *rw);
/* On the loop's thread: stops, waits for the item to end (its dones run:
 * worker_wait), frees. NULL is fine. */
void remote_waits_free(struct remote_waits *rw);

#endif
