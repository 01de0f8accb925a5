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
#define KEY_NEVER "dddddddd" /* the first 8 of keys never uploaded */

static atomic_bool uploaded; /* KEY_A is on the server */
static atomic_bool unlike;   /* every published split differs from this shard's */
static atomic_int asked_a;   /* requests for KEY_A */

static int answer(const char *method, const char *path, const char **body)
{
	(void)method;
	if (strstr(path, "/v8/artifacts/" KEY_A)) {
		atomic_fetch_add(&asked_a, 1);
		*body = atomic_load(&uploaded) ? "an artifact" : NULL;
	} else if (strstr(path, "/v8/artifacts/" KEY_NEVER)) {
		*body = NULL; /* never uploaded */
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

/* The other shard's split is looked up while any task of that shard
 * waits, not only until the first wait's deadline (the review's finding:
 * the lookup gave up with the first wait, d, and was not asked again, so
 * e, waiting since later, missed the unlike split published after and
 * waited out its own deadline, built here with the wrong reason). d waits
 * 6 s from t=0, e from t=4.5; the split appears after d gave up; the
 * lookup asks every 2 s, so e is let go before its deadline at 10.5. */
static void test_lookup_outlives_first_wait(const char *url)
{
	struct remote_opts ro = {.url = url, .token = "t", .read = true, .timeout_ms = 30000};
	struct task_cfg cfg = {.cache = true};
	struct task_node nodes[2] = {
	    {.index = 0, .id = "d#build", .command = "make", .cfg = &cfg},
	    {.index = 1, .id = "e#build", .command = "make", .cfg = &cfg},
	};
	struct graph g = {0};
	for (int k = 0; k < 2; k++)
		vec_push(&g.nodes, &nodes[k]);
	char keys[2][KEY_HEX_SIZE] = {KEY_NEVER "000000000000000000000000",
				      KEY_NEVER "111111111111111111111111"};
	struct loop *l = loop_new();
	struct taskcache tc = {.g = &g, .remote = remote_new(&ro), .worker = worker_new(l)};
	tc.ks.keys = keys;
	struct shardrun s = {.index = 1, .count = 2, .wait_ms = 6000};
	s.owner = xcalloc(2, sizeof *s.owner); /* both shard 1/2's; this is 2/2 */
	shardrun_start(&s, 2);
	struct job jobs[2] = {{0}};
	for (int k = 0; k < 2; k++)
		jobs[k].data = &nodes[k];
	atomic_store(&unlike, false);
	capture_begin();
	CHECK(shardrun_wait(&s, &tc, 0, &jobs[0]));
	jobs[0].pending = true;
	long long e_at = loop_now() + 4500;
	while (loop_now() < e_at)
		loop_once(l, 100);
	CHECK(shardrun_wait(&s, &tc, 1, &jobs[1]));
	jobs[1].pending = true;
	loop_until_let_go(l, &jobs[0]); /* d gave up, at 6 s */
	CHECK_INT(s.nodes[0].state, SHARD_WAIT_GAVE_UP);
	CHECK(jobs[1].pending);
	atomic_store(&unlike, true);
	loop_until_let_go(l, &jobs[1]);
	capture_end();
	CHECK_INT(s.nodes[1].state, SHARD_WAIT_LET_GO);
	atomic_store(&unlike, false);
	shardrun_finish(&s);
	shardrun_free(&s);
	worker_free(tc.worker);
	loop_free(l);
	remote_free(tc.remote);
	free(g.nodes.v);
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
	test_lookup_outlives_first_wait(url);
	httptest_stop(&server);
	return check_finish("shardrun");
}
