/* Unit tests for util/thread.c: a thread is born with every signal blocked
 * (a process-directed SIGINT must reach only the loop's signalfd), and its
 * creator's mask is left as it was. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "check.h"
#include "util/thread.h"

static void *read_mask(void *arg)
{
	pthread_sigmask(SIG_SETMASK, NULL, arg);
	return NULL;
}

static bool all_blocked(const sigset_t *s)
{
	/* every signal a thread can block: SIGKILL and SIGSTOP never are, and
	 * the C library keeps the two below SIGRTMIN for itself */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig >= SIGRTMIN) &&
		    sigismember(s, sig) != 1)
			return false;
	return true;
}

static void test_born_blocked(void)
{
	sigset_t none, seen, after;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	pthread_t t;
	CHECK_INT(thread_start(&t, NULL, read_mask, &seen), 0);
	pthread_join(t, NULL);
	CHECK(all_blocked(&seen));
	CHECK(sigismember(&seen, SIGINT) == 1);
	CHECK(sigismember(&seen, SIGCHLD) == 1);
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	CHECK(sigismember(&after, SIGINT) == 0);
	CHECK(sigismember(&after, SIGTERM) == 0);
}

static void test_caller_mask_kept(void)
{
	sigset_t one, seen, after;
	sigemptyset(&one);
	sigaddset(&one, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &one, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_t t;
	CHECK_INT(thread_start(&t, &attr, read_mask, &seen), 0);
	pthread_attr_destroy(&attr);
	pthread_join(t, NULL);
	CHECK(all_blocked(&seen));
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	CHECK(sigismember(&after, SIGUSR1) == 1);
	CHECK(sigismember(&after, SIGINT) == 0);
}

int main(void)
{
	test_born_blocked();
	test_caller_mask_kept();
	return check_finish("thread");
}
