/* loop.c - one poll(2) over the watched descriptors and a signalfd, with
 * the nearest timer as its timeout. Watches and timers live in small arrays
 * scanned per wake-up: vx watches tens of descriptors (a job's pipe, a
 * proxy's connections), not the tens of thousands epoll is for, and poll
 * keeps the Linux-only part of this file to the signalfd. */
#include "util/loop.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/vec.h"

#define NEVER LLONG_MAX

struct watch {
	int fd; /* -1: removed during a dispatch, compacted after it */
	unsigned events;
	loop_io_fn *fn;
	void *data;
};

struct timer {
	unsigned long id;
	long long at;
	loop_timer_fn *fn;
	void *data;
};

struct loop {
	VEC(struct watch) watches;
	VEC(struct timer) timers;
	VEC(struct pollfd) pfds; /* rebuilt per wake-up; [0] the signalfd when there is one */
	bool dispatching;	 /* watches removed now are marked, not moved */
	unsigned long next_id;
	int sigfd;	  /* -1 until the first loop_signal */
	sigset_t sigs;	  /* the signals the signalfd reads */
	sigset_t oldmask; /* the thread's mask before the first loop_signal */
	loop_signal_fn *sigfn[COMPAT_NSIG];
	void *sigdata[COMPAT_NSIG];
};

struct loop *loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof *l);
	l->sigfd = -1;
	l->next_id = 1;
	sigemptyset(&l->sigs);
	if (pthread_sigmask(SIG_SETMASK, NULL, &l->oldmask))
		die_errno("reading the signal mask");
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	if (l->sigfd >= 0) {
		close(l->sigfd);
		if (pthread_sigmask(SIG_SETMASK, &l->oldmask, NULL))
			die_errno("restoring the signal mask");
	}
	vec_free(&l->watches);
	vec_free(&l->timers);
	vec_free(&l->pfds);
	free(l);
}

long long loop_now_us(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die_errno("clock_gettime");
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long long loop_now(void)
{
	return loop_now_us() / 1000;
}

static struct watch *watch_find(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->watches.n; i++)
		if (l->watches.v[i].fd == fd)
			return &l->watches.v[i];
	return NULL;
}

void loop_watch(struct loop *l, int fd, unsigned events, loop_io_fn *fn, void *data)
{
	if (fd < 0)
		die("loop_watch: descriptor %d", fd);
	if (!events) {
		loop_unwatch(l, fd);
		return;
	}
	struct watch *w = watch_find(l, fd);
	if (w) {
		*w = (struct watch){fd, events, fn, data};
		return;
	}
	vec_push(&l->watches, ((struct watch){fd, events, fn, data}));
}

void loop_unwatch(struct loop *l, int fd)
{
	struct watch *w = fd >= 0 ? watch_find(l, fd) : NULL;
	if (!w)
		return;
	if (l->dispatching) {
		w->fd = -1;
		return;
	}
	size_t i = (size_t)(w - l->watches.v);
	memmove(w, w + 1, (l->watches.n - i - 1) * sizeof *w);
	l->watches.n--;
}

unsigned long loop_timer(struct loop *l, long long at_ms, loop_timer_fn *fn, void *data)
{
	unsigned long id = l->next_id++;
	vec_push(&l->timers, ((struct timer){id, at_ms, fn, data}));
	return id;
}

void loop_timer_cancel(struct loop *l, unsigned long id)
{
	for (size_t i = 0; id && i < l->timers.n; i++)
		if (l->timers.v[i].id == id) {
			l->timers.v[i] = l->timers.v[--l->timers.n];
			return;
		}
}

void loop_signal(struct loop *l, int signo, loop_signal_fn *fn, void *data)
{
	if (signo <= 0 || signo >= COMPAT_NSIG)
		die("loop_signal: signal %d", signo);
	l->sigfn[signo] = fn;
	l->sigdata[signo] = data;
	if (!fn) {
		/* Out of the signalfd's set, still blocked: it stays pending. */
		if (sigismember(&l->sigs, signo)) {
			sigdelset(&l->sigs, signo);
			if (signalfd(l->sigfd, &l->sigs, 0) < 0)
				die_errno("signalfd");
		}
		return;
	}
	if (sigismember(&l->sigs, signo))
		return;
	sigaddset(&l->sigs, signo);
	/* Blocked first: one that arrives in between waits in the signalfd. */
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, signo);
	if (pthread_sigmask(SIG_BLOCK, &one, NULL))
		die_errno("blocking signal %d", signo);
	int fd = signalfd(l->sigfd, &l->sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		die_errno("signalfd");
	l->sigfd = fd;
}

const sigset_t *loop_child_sigmask(const struct loop *l)
{
	return &l->oldmask;
}

static int run_signals(struct loop *l)
{
	struct signalfd_siginfo si;
	int ran = 0;
	for (;;) {
		ssize_t r = read(l->sigfd, &si, sizeof si);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return ran;
		if (r != (ssize_t)sizeof si)
			die_errno("reading the signalfd");
		int signo = (int)si.ssi_signo;
		if (signo > 0 && signo < COMPAT_NSIG && l->sigfn[signo]) {
			l->sigfn[signo](l, signo, l->sigdata[signo]);
			ran++;
		}
	}
}

/* Runs the timers due now that were set before this pass began, earliest
 * first (two due at once, as on a machine slow to wake, ran in the order
 * the array held them: arm64's unit tests under qemu-user saw 30 ms before
 * 10 ms): one a callback sets for "now" waits for the next wake-up, so a
 * timer that re-arms itself cannot hold the loop. */
static int run_timers(struct loop *l)
{
	unsigned long bound = l->next_id;
	long long now = loop_now();
	int ran = 0;
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < l->timers.n; i++) {
			const struct timer *t = &l->timers.v[i];
			if (t->at > now || t->id >= bound)
				continue;
			const struct timer *b = best == SIZE_MAX ? NULL : &l->timers.v[best];
			if (!b || t->at < b->at || (t->at == b->at && t->id < b->id))
				best = i;
		}
		if (best == SIZE_MAX)
			return ran;
		/* the callback may cancel or add any timer: looked for afresh */
		struct timer t = l->timers.v[best];
		l->timers.v[best] = l->timers.v[--l->timers.n];
		t.fn(l, t.data);
		ran++;
	}
}

static long long next_timer(const struct loop *l)
{
	long long next = NEVER;
	for (size_t i = 0; i < l->timers.n; i++)
		if (l->timers.v[i].at < next)
			next = l->timers.v[i].at;
	return next;
}

int loop_once(struct loop *l, long long timeout_ms)
{
	long long deadline = timeout_ms < 0 ? NEVER : loop_now() + timeout_ms;
	long long next = next_timer(l);
	if (next < deadline)
		deadline = next;
	int timeout = -1;
	if (deadline != NEVER) {
		long long wait = deadline - loop_now();
		timeout = wait < 0 ? 0 : wait > INT_MAX ? INT_MAX : (int)wait;
	}
	size_t n = 0, first = 0;
	vec_reserve(&l->pfds, l->watches.n + 1);
	if (l->sigfd >= 0) {
		l->pfds.v[n++] = (struct pollfd){.fd = l->sigfd, .events = POLLIN};
		first = 1;
	}
	for (size_t i = 0; i < l->watches.n; i++) {
		const struct watch *w = &l->watches.v[i];
		l->pfds.v[n++] =
		    (struct pollfd){.fd = w->fd,
				    .events = (short)((w->events & LOOP_READ ? POLLIN : 0) |
						      (w->events & LOOP_WRITE ? POLLOUT : 0))};
	}
	int r = poll(l->pfds.v, (nfds_t)n, timeout);
	if (r < 0 && errno != EINTR)
		die_errno("poll");
	int ran = 0;
	l->dispatching = true;
	for (size_t k = first; r > 0 && k < n; k++) {
		short re = l->pfds.v[k].revents;
		/* k - first indexes the watches as they were at poll time:
		 * removals during the dispatch only mark, and additions go
		 * after them. */
		struct watch *w = &l->watches.v[k - first];
		if (!re || w->fd != l->pfds.v[k].fd)
			continue;
		unsigned ev = 0;
		if (re & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			ev |= w->events & LOOP_READ;
		if (re & (POLLOUT | POLLHUP | POLLERR | POLLNVAL))
			ev |= w->events & LOOP_WRITE;
		if (ev) {
			w->fn(l, w->fd, ev, w->data);
			ran++;
		}
	}
	l->dispatching = false;
	size_t keep = 0;
	for (size_t i = 0; i < l->watches.n; i++)
		if (l->watches.v[i].fd >= 0)
			l->watches.v[keep++] = l->watches.v[i];
	l->watches.n = keep;
	if (r > 0 && first && l->pfds.v[0].revents)
		ran += run_signals(l);
	ran += run_timers(l);
	return ran;
}
