/* Unit tests for cache/remotewait.c on the run's pool, against a server in
 * this process: a key uploaded while it is waited for ends its wait FOUND
 * through the loop (a read wait with its body), one never uploaded GAVE_UP
 * at its deadline, a cancelled or stopped one STOPPED without sleeping
 * out a back-off of ten minutes (the test would hang), one the remote
 * fails until it goes off ERROR; however many keys wait, they are one item
 * of the pool, so an upload submitted meanwhile runs at once. The loop
 * keeps no timer: each end is a done called by the pool's pipe. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "cache/remotewait.h"
#include "capture.h"
#include "check.h"
#include "httptest.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/worker.h"

static atomic_bool uploaded;		   /* "late" is on the server */
static atomic_int asked_late, asked_never; /* requests for each key */

static int answer(const char *method, const char *path, const char **body)
{
	(void)method;
	if (strstr(path, "/v8/artifacts/late")) {
		atomic_fetch_add(&asked_late, 1);
		if (!atomic_load(&uploaded))
			return 404;
		*body = "the split";
		return 200;
	}
	if (strstr(path, "/v8/artifacts/never"))
		atomic_fetch_add(&asked_never, 1);
	return strstr(path, "/v8/artifacts/broken") ? 500 : 404;
}

struct waited {
	bool ended;
	enum remote_wait_end end;
	char body[REMOTE_WAIT_BODY + 1];
};

static void on_end(void *arg, enum remote_wait_end end, const char *body, size_t len)
{
	struct waited *wd = arg;
	CHECK(!wd->ended); /* one event a wait */
	wd->ended = true;
	wd->end = end;
	if (body)
		memcpy(wd->body, body, len);
}

static int ticks;
static void on_tick(void *ctx)
{
	(void)ctx;
	ticks++;
}

/* The loop alone, until wd ended (a bound for a broken build, not a
 * measure: no assertion is on time). */
static void run_until(struct loop *l, const struct waited *wd)
{
	long long until = loop_now() + 20000;
	while (!wd->ended && loop_now() < until)
		loop_once(l, 100);
}

static atomic_bool upload_ran;
static void upload(void *arg)
{
	(void)arg;
	atomic_store(&upload_ran, true);
}
static void upload_done(void *arg, const char *messages)
{
	(void)arg, (void)messages;
}

int main(void)
{
	struct httptest server;
	httptest_start(&server, answer);
	const char *url = server.url;
	struct remote_opts ro = {.url = url, .token = "t", .read = true, .timeout_ms = 30000};
	struct remote *r = remote_new(&ro);
	struct loop *l = loop_new();
	struct worker *w = worker_new(l);
	struct remote_waits *rws = remote_waits_new(r, w, 20, on_tick, NULL);

	/* uploaded after a few asks: found, by the pool's event */
	struct waited late = {0};
	struct remote_wait_ask ask = {.key = "late",
				      .read = true,
				      .first_ms = 5,
				      .gap_ms = 5,
				      .max_ms = 20,
				      .deadline = loop_now() + 600000,
				      .done = on_end,
				      .arg = &late};
	remote_wait_add(rws, &ask);
	while (atomic_load(&asked_late) < 3 && loop_now() < ask.deadline)
		loop_once(l, 50);
	CHECK(!late.ended);
	atomic_store(&uploaded, true);
	run_until(l, &late);
	CHECK(late.ended);
	CHECK_INT(late.end, REMOTE_WAIT_FOUND);
	CHECK_STR(late.body, "the split");
	CHECK(remote_waits_asked(rws) >= 4);
	CHECK(ticks >= 1); /* said while it waited */

	/* never uploaded: gives up at its deadline */
	struct waited never = {0};
	ask = (struct remote_wait_ask){.key = "never",
				       .first_ms = 0,
				       .gap_ms = 10,
				       .max_ms = 10,
				       .deadline = loop_now() + 100,
				       .done = on_end,
				       .arg = &never};
	remote_wait_add(rws, &ask);
	run_until(l, &never);
	CHECK_INT(never.end, REMOTE_WAIT_GAVE_UP);
	CHECK(atomic_load(&asked_never) >= 1);

	/* twenty keys wait, asked again only every ten minutes: one item of
	 * the pool; an upload submitted meanwhile runs; a cancel ends one
	 * and a stop the rest, none sleeping its ten minutes out */
	struct waited many[20] = {{0}};
	struct remote_wait *handles[20];
	for (int k = 0; k < 20; k++) {
		ask = (struct remote_wait_ask){.key = "never",
					       .first_ms = 0,
					       .gap_ms = 600000,
					       .max_ms = 600000,
					       .deadline = loop_now() + 3600000,
					       .done = on_end,
					       .arg = &many[k]};
		handles[k] = remote_wait_add(rws, &ask);
	}
	while (worker_busy(w) > 1) /* the last wait's item, ended */
		worker_wait(w);
	CHECK_INT(worker_busy(w), 1);
	worker_submit(w, WORKER_NET, upload, upload_done, NULL);
	long long until = loop_now() + 20000;
	while (!atomic_load(&upload_ran) && loop_now() < until)
		loop_once(l, 50);
	CHECK(atomic_load(&upload_ran));
	for (int k = 0; k < 20; k++)
		CHECK(!many[k].ended);
	remote_wait_cancel(rws, handles[7]);
	run_until(l, &many[7]);
	CHECK_INT(many[7].end, REMOTE_WAIT_STOPPED);
	CHECK(!many[8].ended);
	remote_waits_stop(rws);
	for (int k = 0; k < 20; k++) {
		run_until(l, &many[k]);
		CHECK_INT(many[k].end, REMOTE_WAIT_STOPPED);
	}
	/* a wait added after the stop ends at once too */
	struct waited after = {0};
	ask.arg = &after;
	remote_wait_add(rws, &ask);
	run_until(l, &after);
	CHECK_INT(after.end, REMOTE_WAIT_STOPPED);
	remote_waits_free(rws);

	/* a remote failing every ask goes off (three in a row): ERROR, with
	 * the remote's warning said on the loop */
	rws = remote_waits_new(r, w, 1000, NULL, NULL);
	struct waited broken = {0};
	ask = (struct remote_wait_ask){.key = "broken",
				       .first_ms = 0,
				       .gap_ms = 1,
				       .max_ms = 1,
				       .deadline = loop_now() + 600000,
				       .done = on_end,
				       .arg = &broken};
	capture_begin();
	remote_wait_add(rws, &ask);
	run_until(l, &broken);
	const char *err = capture_end();
	CHECK_INT(broken.end, REMOTE_WAIT_ERROR);
	CHECK(strstr(err, "500") != NULL);
	remote_waits_free(rws);

	worker_free(w);
	loop_free(l);
	remote_free(r);
	httptest_stop(&server);
	return check_finish("remotewait");
}
