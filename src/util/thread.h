/* thread.h - the one way vx starts a thread. Every signal vx handles is the
 * event loop's (a signalfd, docs/architecture.md): a process-directed signal
 * goes to any thread that does not block it, and there its default action
 * runs, so a SIGINT taken by a hashing thread would kill vx unannounced and
 * a SIGCHLD taken there would never reach the loop. A thread is therefore
 * born with every signal blocked, from its first instruction (blocked by
 * its creator around pthread_create, not by itself once running). */
#ifndef VX_UTIL_THREAD_H
#define VX_UTIL_THREAD_H

#include <pthread.h>

/* pthread_create(t, attr, fn, arg) with every signal blocked in the new
 * thread; the caller's mask is unchanged. Returns 0 or an error number. */
int thread_start(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

#endif
