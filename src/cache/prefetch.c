/* prefetch.c - a run's remote lookups on a thread of their own
 * (prefetch.h). */
#include "cache/prefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cache/transfer.h"
#include "util/compat.h"
#include "util/die.h"
#include "util/thread.h"
#include "util/strbuf.h"

struct prefetch {
	const struct store *st;
	struct remote *r;
	struct remote_item *items;
	char **paths;	    /* per item: its temporary file while in flight */
	_Atomic int *state; /* per item: enum prefetch_state */
	size_t n;
	volatile bool stop;
	pthread_t thread;
	pthread_mutex_t lock; /* guards said */
	struct strbuf said;   /* the thread's warnings, for the caller's thread */
	int rd, wr;	      /* a byte written each time keys settle: prefetch_fd */
};

/* Says keys settled. A full pipe holds a wake-up already: none is lost. */
static void wake(struct prefetch *p)
{
	char b = 1;
	while (write(p->wr, &b, 1) < 0 && errno == EINTR)
		;
}

static void collect(const char *line, void *ctx)
{
	struct prefetch *p = ctx;
	pthread_mutex_lock(&p->lock);
	strbuf_addstr(&p->said, line);
	pthread_mutex_unlock(&p->lock);
}

static int open_body(struct remote_item *it, void *ctx)
{
	struct prefetch *p = ctx;
	return transfer_tmp(p->st, it->key, &p->paths[it->index]);
}

static void body_done(struct remote_item *it, int fd, void *ctx)
{
	struct prefetch *p = ctx;
	enum prefetch_state s = it->result == REMOTE_ASK ? PREFETCH_ASK : PREFETCH_MISS;
	if (it->result == 1) {
		struct strbuf why = STRBUF_INIT;
		int rc = transfer_import(p->st, it->key, fd, p->paths[it->index], &why);
		if (rc == 1)
			warning("the remote cache's artifact %s is refused (%s); its task runs",
				it->key, why.buf);
		strbuf_release(&why);
		s = rc == 0 ? PREFETCH_HIT : PREFETCH_MISS;
	}
	close(fd);
	unlinkat(p->st->dirfd, p->paths[it->index], 0);
	free(p->paths[it->index]);
	p->paths[it->index] = NULL;
	atomic_store(&p->state[it->index], s);
	wake(p);
}

static void *run(void *arg)
{
	struct prefetch *p = arg;
	report_to(collect, p);
	remote_get_many(p->r, p->items, p->n, transfer_body_begins, open_body, body_done, &p->stop,
			p);
	/* What was never opened stays to be asked alone. */
	for (size_t i = 0; i < p->n; i++)
		if (atomic_load(&p->state[i]) == PREFETCH_PENDING)
			atomic_store(&p->state[i], PREFETCH_ASK);
	wake(p);
	report_to(NULL, NULL);
	return NULL;
}

struct prefetch *prefetch_start(const struct store *st, struct remote *r, const char *const *keys,
				size_t n)
{
	if (!n || !remote_readable(r))
		return NULL;
	struct prefetch *p = xcalloc(1, sizeof *p);
	p->st = st;
	p->r = r;
	p->n = n;
	p->items = xcalloc(n, sizeof *p->items);
	p->paths = xcalloc(n, sizeof *p->paths);
	p->state = xcalloc(n, sizeof *p->state);
	for (size_t i = 0; i < n; i++) {
		p->items[i] = (struct remote_item){.key = keys[i], .index = i};
		atomic_init(&p->state[i], PREFETCH_PENDING);
	}
	strbuf_init(&p->said);
	pthread_mutex_init(&p->lock, NULL);
	int fds[2];
	if (compat_pipe(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("cannot make the prefetch's pipe");
	p->rd = fds[0];
	p->wr = fds[1];
	int err = thread_start(&p->thread, NULL, run, p);
	if (err) {
		close(p->rd);
		close(p->wr);
		pthread_mutex_destroy(&p->lock);
		strbuf_release(&p->said);
		free(p->items);
		free(p->paths);
		free(p->state);
		free(p);
		return NULL;
	}
	return p;
}

int prefetch_fd(const struct prefetch *p)
{
	return p->rd;
}

void prefetch_drain(struct prefetch *p)
{
	char buf[256];
	while (read(p->rd, buf, sizeof buf) > 0)
		;
}

enum prefetch_state prefetch_state(struct prefetch *p, size_t i)
{
	return (enum prefetch_state)atomic_load(&p->state[i]);
}

void prefetch_say(struct prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->said.len) {
		fputs(p->said.buf, stderr);
		strbuf_reset(&p->said);
	}
	pthread_mutex_unlock(&p->lock);
}

void prefetch_stop(struct prefetch *p)
{
	p->stop = true;
}

void prefetch_free(struct prefetch *p)
{
	if (!p)
		return;
	prefetch_stop(p);
	pthread_join(p->thread, NULL);
	prefetch_say(p);
	close(p->rd);
	close(p->wr);
	pthread_mutex_destroy(&p->lock);
	strbuf_release(&p->said);
	free(p->items);
	free(p->paths);
	free(p->state);
	free(p);
}
