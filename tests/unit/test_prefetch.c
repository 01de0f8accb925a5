/* Unit tests for cache/prefetch.c on the run's pool, against a server in
 * this process that holds every artifact GET until the test lets it go:
 * a key's state reaches the loop as a post, and a key whose body cannot
 * be opened (its temporary file cannot be made) is "ask alone" at once,
 * while another key of the batch is still in flight. The bug: it stayed
 * pending until the whole batch ended, its task waiting for nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/prefetch.h"
#include "cache/remote.h"
#include "cache/store.h"
#include "check.h"
#include "fstest.h"
#include "httptest.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/worker.h"

static atomic_bool release; /* the held GETs may be answered (404) */
static atomic_int held;	    /* artifact GETs waiting for release */

/* Every artifact GET is held until the test lets it go, then a 404. */
static int answer(const char *method, const char *path, const char **body)
{
	(void)method, (void)path, (void)body;
	atomic_fetch_add(&held, 1);
	for (int k = 0; k < 20000 && !atomic_load(&release); k++)
		usleep(1000);
	atomic_fetch_sub(&held, 1);
	return 404;
}

static int settled_calls;
static void on_settled(void *ctx)
{
	(void)ctx;
	settled_calls++;
}

int main(void)
{
	struct httptest server;
	httptest_start(&server, answer);
	const char *url = server.url;

	char *root = fs_tmpdir();
	char *dir = xasprintf("%s/store", root);
	struct store st;
	CHECK_INT(store_open(&st, dir), 0);
	struct remote_opts ro = {.url = url, .token = "t", .read = true, .timeout_ms = 30000};
	struct remote *r = remote_new(&ro);
	struct loop *l = loop_new();
	struct worker *w = worker_new(l);
	/* key 1's temporary file cannot be made: its shard's directory
	 * holds no "nodir" */
	const char *keys[] = {"0123456789abcdef0123456789abcdef", "ab/nodir/x"};
	struct prefetch *p = prefetch_start(&st, r, keys, 2, w, on_settled, NULL);
	CHECK(p != NULL);
	long long until = loop_now() + 10000;
	/* the state is stored on the pool's thread, then its post reaches the
	 * loop: wait for both (checking the post as soon as the state showed
	 * failed ~1 run in 300) */
	while ((prefetch_state(p, 1) == PREFETCH_PENDING || settled_calls == 0) &&
	       loop_now() < until)
		loop_once(l, 100);
	/* settled while key 0's GET is held by the server (or not yet sent):
	 * its batch cannot have ended */
	CHECK_INT(prefetch_state(p, 1), PREFETCH_ASK);
	CHECK_INT(prefetch_state(p, 0), PREFETCH_PENDING);
	CHECK(settled_calls >= 1);
	atomic_store(&release, true);
	while (prefetch_state(p, 0) == PREFETCH_PENDING && loop_now() < until)
		loop_once(l, 100);
	CHECK_INT(prefetch_state(p, 0), PREFETCH_MISS);
	prefetch_free(p);
	worker_free(w);
	loop_free(l);
	remote_free(r);
	store_close(&st);
	httptest_stop(&server);
	free(dir);
	fs_rmtree(root);
	free(root);
	return check_finish("prefetch");
}
