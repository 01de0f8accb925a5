/* Unit tests for cache/prefetch.c on the run's pool, against a server in
 * this process that holds every artifact GET until the test lets it go:
 * a key's state reaches the loop as a post, and a key whose body cannot
 * be opened (its temporary file cannot be made) is "ask alone" at once,
 * while another key of the batch is still in flight. The bug: it stayed
 * pending until the whole batch ended, its task waiting for nothing. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cache/prefetch.h"
#include "cache/remote.h"
#include "cache/store.h"
#include "check.h"
#include "fstest.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/thread.h"
#include "util/worker.h"

static atomic_bool release; /* the held GETs may be answered (404) */
static atomic_int held;	    /* artifact GETs waiting for release */

/* One connection: its request read, its answer written, closed. */
static void *serve(void *arg)
{
	int c = (int)(intptr_t)arg;
	char req[4096];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof req - 1 && (r = read(c, req + n, sizeof req - 1 - n)) > 0) {
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[n] = 0;
	const char *ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
			 "22\r\nConnection: close\r\n\r\n{\"status\":\"enabled\"}\r\n";
	const char *miss =
	    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
	const char *answer = miss;
	if (strstr(req, "/v8/artifacts/status")) {
		answer = ok;
	} else {
		atomic_fetch_add(&held, 1);
		for (int k = 0; k < 20000 && !atomic_load(&release); k++)
			usleep(1000);
		atomic_fetch_sub(&held, 1);
	}
	(void)!write(c, answer, strlen(answer));
	close(c);
	return NULL;
}

static void *listener(void *arg)
{
	int s = (int)(intptr_t)arg;
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			return NULL;
		pthread_t t;
		if (thread_start(&t, NULL, serve, (void *)(intptr_t)c) == 0)
			pthread_detach(t);
		else
			close(c);
	}
}

static int settled_calls;
static void on_settled(void *ctx)
{
	(void)ctx;
	settled_calls++;
}

int main(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 16) ||
	    getsockname(s, (struct sockaddr *)&a, &alen))
		die_errno("cannot listen");
	pthread_t lt;
	if (thread_start(&lt, NULL, listener, (void *)(intptr_t)s))
		die("cannot start the server");
	char *url = xasprintf("http://127.0.0.1:%d", ntohs(a.sin_port));

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
	shutdown(s, SHUT_RDWR);
	close(s);
	pthread_join(lt, NULL);
	free(url);
	free(dir);
	fs_rmtree(root);
	free(root);
	return check_finish("prefetch");
}
