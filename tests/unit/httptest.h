/* httptest.h - a remote cache server in a unit test's own process, on
 * loopback: each connection on a thread of its own, its request read,
 * answered by the test's function (which may block: a request held until
 * the test lets it go), closed. /v8/artifacts/status is answered
 * "enabled" before the test's function is asked. */
#ifndef VX_TEST_HTTPTEST_H
#define VX_TEST_HTTPTEST_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/die.h"
#include "util/thread.h"

/* The status code for method ("GET", "HEAD", "PUT") on path; *body: the
 * answer's body (static, or NULL for none; a HEAD's is not sent). */
typedef int httptest_answer_fn(const char *method, const char *path, const char **body);

struct httptest {
	int sock;
	pthread_t listener;
	char *url; /* "http://127.0.0.1:PORT" */
	httptest_answer_fn *answer;
};

struct httptest_conn {
	struct httptest *h;
	int fd;
};

static void *httptest_serve(void *arg)
{
	struct httptest_conn *c = arg;
	char req[4096];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof req - 1 && (r = read(c->fd, req + n, sizeof req - 1 - n)) > 0) {
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[n] = 0;
	char method[16] = "", path[1024] = "";
	if (sscanf(req, "%15s %1023s", method, path) != 2)
		method[0] = path[0] = 0;
	const char *body = NULL;
	int code = 200;
	if (!strncmp(path, "/v8/artifacts/status", 20))
		body = "{\"status\":\"enabled\"}";
	else
		code = c->h->answer(method, path, &body);
	char head[256];
	int len = snprintf(head, sizeof head,
			   "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			   code, body ? strlen(body) : 0);
	(void)!write(c->fd, head, (size_t)len);
	if (body && strcmp(method, "HEAD"))
		(void)!write(c->fd, body, strlen(body));
	close(c->fd);
	free(c);
	return NULL;
}

static void *httptest_listen(void *arg)
{
	struct httptest *h = arg;
	for (;;) {
		int fd = accept(h->sock, NULL, NULL);
		if (fd < 0)
			return NULL;
		struct httptest_conn *c = xcalloc(1, sizeof *c);
		c->h = h;
		c->fd = fd;
		pthread_t t;
		if (thread_start(&t, NULL, httptest_serve, c) == 0) {
			pthread_detach(t);
		} else {
			close(fd);
			free(c);
		}
	}
}

/* Listens and serves on a thread; dies when it cannot. */
static inline void httptest_start(struct httptest *h, httptest_answer_fn *answer)
{
	h->answer = answer;
	h->sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof a;
	if (h->sock < 0 || bind(h->sock, (struct sockaddr *)&a, sizeof a) || listen(h->sock, 64) ||
	    getsockname(h->sock, (struct sockaddr *)&a, &alen))
		die_errno("cannot listen");
	if (thread_start(&h->listener, NULL, httptest_listen, h))
		die("cannot start the server");
	h->url = xasprintf("http://127.0.0.1:%d", ntohs(a.sin_port));
}

/* Stops listening (connections in flight end on their own). */
static inline void httptest_stop(struct httptest *h)
{
	shutdown(h->sock, SHUT_RDWR);
	close(h->sock);
	pthread_join(h->listener, NULL);
	free(h->url);
}

#endif
