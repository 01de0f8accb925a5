/* loop.h - vx's one event loop: descriptors with read or write interest,
 * one-shot timers, and signals delivered through one signalfd, all on one
 * poll(2). redis's ae.c is the model. The scheduler is its first user; the
 * network proxy and the watcher's inotify register on the same loop, so no
 * thread per connection is ever needed. Work that blocks on a disk or a
 * server (a cache save, a restore, a remote GET) runs on util/worker.h's
 * threads and reports back through a descriptor the loop watches.
 *
 * Callbacks run on the loop's thread, one at a time, and may add or remove
 * watches, timers and signals (their own too) while they run. In one
 * wake-up, descriptors are dispatched first (in the order they were
 * watched), then signals, then the timers that are due: a child's last
 * output sits in its pipe before its SIGCHLD, and is read first. */
#ifndef VX_UTIL_LOOP_H
#define VX_UTIL_LOOP_H

#include <signal.h>

enum { LOOP_READ = 1, LOOP_WRITE = 2 };

struct loop;

/* fd is ready for events (LOOP_READ, LOOP_WRITE or both; a hang-up or an
 * error counts as each the watch asked for, so the read or write that
 * follows sees it). */
typedef void loop_io_fn(struct loop *l, int fd, unsigned events, void *data);
typedef void loop_timer_fn(struct loop *l, void *data);
typedef void loop_signal_fn(struct loop *l, int signo, void *data);

struct loop *loop_new(void);
/* Closes the signalfd and gives the thread back the signal mask it had
 * before the loop blocked anything. Watched descriptors are the caller's. */
void loop_free(struct loop *l);

/* CLOCK_MONOTONIC in milliseconds: the clock every timer is set on. */
long long loop_now(void);
/* The same clock in microseconds, for what is timed finer than a timer. */
long long loop_now_us(void);

/* Watches fd for events (a mask of LOOP_READ and LOOP_WRITE); a second call
 * for the same fd replaces its interest and callback. 0 stops the watch, as
 * does loop_unwatch, which the caller must call before closing fd. */
void loop_watch(struct loop *l, int fd, unsigned events, loop_io_fn *fn, void *data);
void loop_unwatch(struct loop *l, int fd);

/* Calls fn once, at loop_now() >= at_ms (or at the first wake-up after).
 * Returns the timer's id, never 0. Cancelling a timer that fired or was
 * cancelled already, or id 0, does nothing. */
unsigned long loop_timer(struct loop *l, long long at_ms, loop_timer_fn *fn, void *data);
void loop_timer_cancel(struct loop *l, unsigned long id);

/* Delivers signo to fn through the loop: the signal is blocked for the
 * thread and read from the signalfd, never handled asynchronously. NULL
 * takes the handler away (the signal stays blocked until loop_free, so a
 * second one is not lost while nobody listens). */
void loop_signal(struct loop *l, int signo, loop_signal_fn *fn, void *data);
/* The mask the thread had before the loop: what a spawned child gets back. */
const sigset_t *loop_child_sigmask(const struct loop *l);

/* Sleeps until a watched descriptor is ready, a signal arrives, the next
 * timer is due or timeout_ms pass (-1: no limit of its own), then runs the
 * callbacks of what happened. Returns how many ran. Dies only when poll or
 * the signalfd fails for a reason that is not an interruption. */
int loop_once(struct loop *l, long long timeout_ms);

#endif
