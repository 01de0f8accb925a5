/* Unit tests for run/shardrun.c's waits, on a loop and the run's pool,
 * against a remote cache in this process: a task another shard builds
 * waits pending, and its upload arriving ends the wait by an event of the
 * pool, the loop asking nothing again (issue 58 item 4: a loop timer per
 * waiting task, 250 ms growing to 2 s, put the job back on the ready
 * queue, and only the hook asked again looked: this loop, with no
 * scheduler, never saw the wait end); a shard that published a split
 * unlike this one's lets its waiting task go, built here; a stop ends a
 * wait of ten minutes at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "capture.h"
#include "check.h"
#include "httptest.h"
#include "orchestrator/config/taskcfg.h"
#include "orchestrator/run/shardrun.h"
#include "orchestrator/run/taskcache.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/worker.h"

#define KEY_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static atomic_bool uploaded; /* KEY_A is on the server */
static atomic_bool unlike;   /* every published split differs from this shard's */
static atomic_int asked_a;   /* requests for KEY_A */

static int answer(const char *method, const char *path, const char **body)
{
	(void)method;
	if (strstr(path, "/v8/artifacts/" KEY_A)) {
		atomic_fetch_add(&asked_a, 1);
		*body = atomic_load(&uploaded) ? "an artifact" : NULL;
	} else if (atomic_load(&unlike)) {
		*body = "ffffffffffffffffffffffffffffffff"; /* a split of another shape */
	}
	return *body ? 200 : 404;
}

/* The loop alone, no hook asked again, until job is let go (a bound for a
 * broken build, not a measure: nothing asserts a time). */
static void loop_until_let_go(struct loop *l, const struct job *job)
{
	long long until = loop_now() + 20000;
	while (job->pending && loop_now() < until)
		loop_once(l, 100);
}

int main(void)
{
	struct httptest server;
	httptest_start(&server, answer);
	const char *url = server.url;
	struct remote_opts ro = {.url = url, .token = "t", .read = true, .timeout_ms = 30000};

	/* three tasks: a and b built by shard 1, c by shard 3; this is 2/3 */
	struct task_cfg cfg = {.cache = true};
	struct task_node nodes[3] = {
	    {.index = 0, .id = "a#build", .command = "make", .cfg = &cfg},
	    {.index = 1, .id = "b#build", .command = "make", .cfg = &cfg},
	    {.index = 2, .id = "c#build", .command = "make", .cfg = &cfg},
	};
	struct graph g = {0};
	for (int k = 0; k < 3; k++)
		vec_push(&g.nodes, &nodes[k]);
	char keys[3][KEY_HEX_SIZE] = {KEY_A, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
				      "cccccccccccccccccccccccccccccccc"};
	struct loop *l = loop_new();
	struct taskcache tc = {.g = &g, .remote = remote_new(&ro), .worker = worker_new(l)};
	tc.ks.keys = keys;
	unsigned owner[3] = {0, 0, 2};
	struct shardrun s = {.index = 1, .count = 3, .wait_ms = 600000};
	s.owner = xcalloc(3, sizeof *s.owner);
	memcpy(s.owner, owner, sizeof owner);
	shardrun_start(&s, 3);
	struct job jobs[3] = {{0}};
	for (int k = 0; k < 3; k++)
		jobs[k].data = &nodes[k];

	/* a waits; its upload comes after a few asks: the pool's event lets
	 * the job go, and the loop asked nothing again */
	capture_begin();
	CHECK(shardrun_wait(&s, &tc, 0, &jobs[0]));
	jobs[0].pending = true; /* as the scheduler does on BEFORE_PENDING */
	long long until = loop_now() + 20000;
	while (atomic_load(&asked_a) < 2 && loop_now() < until)
		loop_once(l, 100);
	CHECK(jobs[0].pending);
	atomic_store(&uploaded, true);
	loop_until_let_go(l, &jobs[0]);
	CHECK(!jobs[0].pending);
	const char *err = capture_end();
	CHECK(strstr(err, "a#build: shard 1/3 builds it; waiting up to 600s for its upload"));
	shardrun_settled(&s, 0); /* the hook asked again: a hit */

	/* b waits on the same shard, whose split turns out unlike this one's:
	 * let go, and the hook asked again builds it here, said */
	atomic_store(&unlike, true);
	capture_begin();
	CHECK(shardrun_wait(&s, &tc, 1, &jobs[1]));
	jobs[1].pending = true;
	loop_until_let_go(l, &jobs[1]);
	CHECK(!jobs[1].pending);
	CHECK(!shardrun_wait(&s, &tc, 1, &jobs[1]));
	err = capture_end();
	CHECK(strstr(err, "shard 1/3 split the graph unlike this one"));

	/* c waits for ten minutes on shard 3, and the run stops: let go at
	 * once, not after a back-off (the test would hang on one) */
	atomic_store(&unlike, false);
	capture_begin();
	CHECK(shardrun_wait(&s, &tc, 2, &jobs[2]));
	jobs[2].pending = true;
	shardrun_stop(&s);
	loop_until_let_go(l, &jobs[2]);
	capture_end();
	CHECK(!jobs[2].pending);

	shardrun_finish(&s);
	shardrun_free(&s);
	worker_free(tc.worker);
	loop_free(l);
	remote_free(tc.remote);
	free(g.nodes.v);
	httptest_stop(&server);
	return check_finish("shardrun");
}
