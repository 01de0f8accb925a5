#include "util/thread.h"

#include <signal.h>

int thread_start(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	int e = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (e)
		return e;
	e = pthread_create(t, attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
