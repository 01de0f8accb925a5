/* prefetch.c - a run's remote lookups, one item of the run's pool
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
#include "util/strbuf.h"
#include "util/worker.h"

struct prefetch {
	const struct store *st;
	struct remote *r;
	struct remote_item *items;
	char **paths;	    /* per item: its temporary file while in flight */
	_Atomic int *state; /* per item: enum prefetch_state */
	size_t n;
	volatile bool stop;
	struct worker *w;
	prefetch_settled_fn *settled;
	void *ctx;
	bool ended;	      /* the batch's done ran, on the loop's thread */
	pthread_mutex_t lock; /* guards said */
	struct strbuf said;   /* the batch's warnings, for the loop's thread */
};

static void on_settled(void *arg, const char *messages)
{
	(void)messages;
	struct prefetch *p = arg;
	p->settled(p->ctx);
}

/* Says keys settled: a post to the loop (issue 58 item 4: a waiting hit
 * was asked again every 2 ms). */
static void wake(struct prefetch *p)
{
	worker_post(p->w, on_settled, p);
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
	int fd = transfer_tmp(p->st, it->key, &p->paths[it->index]);
	if (fd < 0) {
		/* not asked here: its task asks alone now, not once the
		 * batch ends (remote_get_many skips it, never calling
		 * body_done) */
		atomic_store(&p->state[it->index], PREFETCH_ASK);
		wake(p);
	}
	return fd;
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

static void run(void *arg)
{
	struct prefetch *p = arg;
	report_to(collect, p);
	remote_get_many(p->r, p->items, p->n, transfer_body_begins, open_body, body_done, &p->stop,
			p);
	/* What was never begun (a stop) stays to be asked alone. */
	for (size_t i = 0; i < p->n; i++)
		if (atomic_load(&p->state[i]) == PREFETCH_PENDING)
			atomic_store(&p->state[i], PREFETCH_ASK);
	report_to(NULL, NULL);
}

static void ended(void *arg, const char *messages)
{
	struct prefetch *p = arg;
	prefetch_say(p);
	fputs(messages, stderr);
	p->ended = true;
	p->settled(p->ctx);
}

struct prefetch *prefetch_start(const struct store *st, struct remote *r, const char *const *keys,
				size_t n, struct worker *w, prefetch_settled_fn *settled, void *ctx)
{
	if (!n || !remote_readable(r))
		return NULL;
	struct prefetch *p = xcalloc(1, sizeof *p);
	p->st = st;
	p->r = r;
	p->n = n;
	p->w = w;
	p->settled = settled;
	p->ctx = ctx;
	p->items = xcalloc(n, sizeof *p->items);
	p->paths = xcalloc(n, sizeof *p->paths);
	p->state = xcalloc(n, sizeof *p->state);
	for (size_t i = 0; i < n; i++) {
		p->items[i] = (struct remote_item){.key = keys[i], .index = i};
		atomic_init(&p->state[i], PREFETCH_PENDING);
	}
	strbuf_init(&p->said);
	pthread_mutex_init(&p->lock, NULL);
	worker_submit(w, WORKER_NET, run, ended, p);
	return p;
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
	/* its posts come before its own done: none is left once it ran */
	while (!p->ended)
		worker_wait(p->w);
	prefetch_say(p);
	pthread_mutex_destroy(&p->lock);
	strbuf_release(&p->said);
	free(p->items);
	free(p->paths);
	free(p->state);
	free(p);
}
