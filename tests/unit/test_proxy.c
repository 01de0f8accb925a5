/* Unit tests for sandbox/proxy.c on real sockets (loopback and a UNIX
 * socket, no sandbox): absolute-URI forwarding rewritten to origin form,
 * CONNECT and SOCKS5 tunnels, refusals by name, by deny, and by a
 * wildcard's private address (each recorded once, with its fix), a 4 MiB
 * body through the bounded buffers, and a client that never finishes its
 * head not holding up another. The upstream and the client are forked
 * children with blocking sockets; the proxy runs on the parent's loop. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "sandbox/proxy.h"

enum { BIG = 4 << 20 };

static int upstream_port;
static char sock_path[128];

/* The upstream: for each connection, reads a head and answers with the
 * request line and headers it got as the body; "GET /big" gets BIG bytes. */
static void upstream(int lfd)
{
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			_exit(0);
		char head[8192];
		size_t n = 0;
		while (n < sizeof head - 1) {
			ssize_t r = read(fd, head + n, sizeof head - 1 - n);
			if (r <= 0)
				break;
			n += (size_t)r;
			head[n] = 0;
			if (strstr(head, "\r\n\r\n"))
				break;
		}
		head[n] = 0;
		char out[9000];
		if (!strncmp(head, "GET /big ", 9)) {
			if (fork()) { /* each its own child: many at once */
				close(fd);
				continue;
			}
			int h = snprintf(out, sizeof out,
					 "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", BIG);
			if (write(fd, out, (size_t)h) < 0)
				_exit(1);
			char *body = malloc(BIG);
			for (int i = 0; i < BIG; i++)
				body[i] = (char)('a' + i % 26);
			for (size_t off = 0; off < BIG;) {
				ssize_t w = write(fd, body + off, BIG - off);
				if (w <= 0)
					break;
				off += (size_t)w;
			}
			free(body);
			_exit(0);
		} else {
			int h =
			    snprintf(out, sizeof out,
				     "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s", n, head);
			if (write(fd, out, (size_t)h) < 0)
				_exit(1);
		}
		close(fd);
	}
}

static int dial_proxy(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		_exit(3);
	return fd;
}

static void send_all(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n)
		_exit(4);
}

/* Reads until EOF (or max bytes) into a malloc'd string; *len its length. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (n == cap)
			b = realloc(b, (cap *= 2) + 1);
		ssize_t r = read(fd, b + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	b[n] = 0;
	*len = n;
	return b;
}

/* Reads exactly n bytes. */
static void read_n(int fd, void *b, size_t n)
{
	for (size_t k = 0; k < n;) {
		ssize_t r = read(fd, (char *)b + k, n - k);
		if (r <= 0)
			_exit(5);
		k += (size_t)r;
	}
}

/* Reads an HTTP head (up to and with its blank line). */
static void read_head(int fd, char *b, size_t cap)
{
	size_t n = 0;
	while (n < cap - 1) {
		read_n(fd, b + n, 1);
		b[++n] = 0;
		if (n >= 4 && !strcmp(b + n - 4, "\r\n\r\n"))
			return;
	}
}

static int failures;
#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "client: %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static void client(void)
{
	char req[512], head[4096];
	size_t len;
	/* a client that sends half a head and stalls: the others go on */
	int slow = dial_proxy();
	send_all(slow, "GET http://api.example.test", 27);

	/* plain HTTP: the absolute URI becomes origin form, Connection: close */
	int fd = dial_proxy();
	snprintf(req, sizeof req,
		 "GET http://user:pw@API.example.test:%d/x?y=1 HTTP/1.1\r\nHost: "
		 "api.example.test\r\nProxy-Connection: keep-alive\r\nConnection: "
		 "keep-alive\r\nAccept: */*\r\n\r\n",
		 upstream_port);
	send_all(fd, req, strlen(req));
	char *got = read_all(fd, &len);
	close(fd);
	EXPECT(strstr(got, "HTTP/1.1 200 OK") == got);
	EXPECT(strstr(got, "\r\n\r\nGET /x?y=1 HTTP/1.1\r\n") != NULL);
	EXPECT(strstr(got, "Accept: */*\r\n") != NULL);
	EXPECT(strstr(got, "Connection: close\r\n") != NULL);
	EXPECT(!strstr(got, "keep-alive"));
	free(got);

	/* CONNECT, then a request through the tunnel */
	fd = dial_proxy();
	snprintf(req, sizeof req, "CONNECT api.example.test:%d HTTP/1.1\r\nHost: x\r\n\r\n",
		 upstream_port);
	send_all(fd, req, strlen(req));
	read_head(fd, head, sizeof head);
	EXPECT(!strcmp(head, "HTTP/1.1 200 Connection Established\r\n\r\n"));
	send_all(fd, "GET /t HTTP/1.1\r\n\r\n", 19);
	got = read_all(fd, &len);
	close(fd);
	EXPECT(strstr(got, "GET /t HTTP/1.1") != NULL);
	free(got);

	/* SOCKS5: greeting and request in one write, a name, then the tunnel */
	fd = dial_proxy();
	unsigned char s[64] = {5, 1, 0, 5, 1, 0, 3, 16};
	memcpy(s + 8, "api.example.test", 16);
	s[24] = (unsigned char)(upstream_port >> 8);
	s[25] = (unsigned char)upstream_port;
	send_all(fd, s, 26);
	unsigned char r[12];
	read_n(fd, r, 12);
	EXPECT(r[0] == 5 && r[1] == 0 && r[2] == 5 && r[3] == 0);
	send_all(fd, "GET /s HTTP/1.1\r\n\r\n", 19);
	got = read_all(fd, &len);
	close(fd);
	EXPECT(strstr(got, "GET /s HTTP/1.1") != NULL);
	free(got);

	/* a big body through the bounded buffers, byte for byte */
	fd = dial_proxy();
	snprintf(req, sizeof req, "GET http://api.example.test:%d/big HTTP/1.1\r\n\r\n",
		 upstream_port);
	send_all(fd, req, strlen(req));
	read_head(fd, head, sizeof head);
	got = read_all(fd, &len);
	close(fd);
	EXPECT(len == BIG);
	int bad = 0;
	for (size_t i = 0; i < len; i++)
		bad += got[i] != (char)('a' + i % 26);
	EXPECT(bad == 0);
	free(got);

	/* refusals: unlisted, denied, a wildcard's private address; SOCKS too */
	const char *refused[] = {"CONNECT other.test:443 HTTP/1.1\r\n\r\n",
				 "CONNECT evil.example.test:%d HTTP/1.1\r\n\r\n",
				 "GET http://x.wild.test:%d/ HTTP/1.1\r\n\r\n",
				 "CONNECT other.test:443 HTTP/1.1\r\n\r\n"};
	for (size_t i = 0; i < 4; i++) {
		fd = dial_proxy();
		snprintf(req, sizeof req, refused[i], upstream_port);
		send_all(fd, req, strlen(req));
		got = read_all(fd, &len);
		close(fd);
		EXPECT(strstr(got, "HTTP/1.1 403 Forbidden\r\nX-Vx-Refused: ") == got);
		if (i == 0) /* the header is one line, the body the same sentence */
			EXPECT(strstr(got, "X-Vx-Refused: other.test:443 refused: not in "
					   "allow.network\r\nContent-Type: text/plain\r\n") &&
			       strstr(got, "\r\n\r\nvx: other.test:443 refused: not in "
					   "allow.network\n"));
		free(got);
	}
	fd = dial_proxy();
	unsigned char s2[64] = {5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 9};
	s2[11] = 0;
	s2[12] = 80;
	send_all(fd, s2, 13);
	read_n(fd, r, 12);
	EXPECT(r[0] == 5 && r[1] == 0 && r[2] == 5 && r[3] == 2);
	close(fd);
	/* not HTTP at all */
	fd = dial_proxy();
	send_all(fd, "HELLO\r\n\r\n", 9);
	got = read_all(fd, &len);
	close(fd);
	EXPECT(strstr(got, "HTTP/1.1 400 ") == got);
	free(got);
	close(slow);
	_exit(failures ? 1 : 0);
}

/* STALLED downloads at once, none read: each fills the proxy's buffer
 * toward the client, and only BULK_BUFS (8) of them may grow to 1 MiB. */
enum { STALLED = 24 };

static void client_stalled(void)
{
	int fds[STALLED];
	char req[256];
	snprintf(req, sizeof req, "GET http://api.example.test:%d/big HTTP/1.1\r\n\r\n",
		 upstream_port);
	for (int i = 0; i < STALLED; i++) {
		fds[i] = dial_proxy();
		send_all(fds[i], req, strlen(req));
	}
	sleep(2);
	for (int i = 0; i < STALLED; i++)
		close(fds[i]);
	_exit(0);
}

static pid_t client_pid;
static int client_status = -1;

static void poll_child(struct loop *l, void *data)
{
	int st;
	if (waitpid(client_pid, &st, WNOHANG) == client_pid)
		client_status = st;
	else
		loop_timer(l, loop_now() + 10, poll_child, data);
}

int main(void)
{
	const char *dir = fixture_dir();
	snprintf(sock_path, sizeof sock_path, "%s/p.sock", dir);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	CHECK_INT(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	CHECK_INT(listen(lfd, 16), 0);
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	upstream_port = ntohs(sa.sin_port);
	pid_t up = fork();
	if (!up)
		upstream(lfd);
	close(lfd);

	char map[256];
	snprintf(map, sizeof map,
		 "api.example.test=127.0.0.1,evil.example.test=127.0.0.1,x.wild.test=127.0.0.1");
	setenv("VX_TEST_RESOLVE", map, 1);
	struct netrules rs = {0};
	struct strbuf err = STRBUF_INIT;
	char entry[64];
	const char *allow[] = {"api.example.test:%d", "*.example.test:%d", "*.wild.test:%d"};
	for (size_t i = 0; i < 3; i++) {
		struct netrule r;
		snprintf(entry, sizeof entry, allow[i], upstream_port);
		CHECK_INT(netrule_parse(entry, &r, &err), 0);
		vec_push(&rs.allow, r);
	}
	struct netrule d;
	CHECK_INT(netrule_parse("evil.example.test", &d, &err), 0);
	vec_push(&rs.deny, d);

	struct loop *l = loop_new();
	struct resolver *res = resolver_new(l);
	struct proxy *p = proxy_new(l, res, &rs, sock_path, &err);
	CHECK(p != NULL);
	netrules_clear(&rs); /* the proxy holds its own copy */
	client_pid = fork();
	if (!client_pid)
		client();
	loop_timer(l, loop_now() + 10, poll_child, NULL);
	long long deadline = loop_now() + 30000;
	while (client_status < 0 && loop_now() < deadline)
		loop_once(l, 100);
	CHECK(WIFEXITED(client_status) && WEXITSTATUS(client_status) == 0);
	CHECK_INT(proxy_served(p), 4);
	size_t n;
	const struct proxy_refusal *rf = proxy_refusals(p, &n);
	CHECK_INT(n, 4);
	if (n == 4) {
		char t[64];
		CHECK_STR(rf[0].target, "other.test:443");
		CHECK_STR(rf[0].reason, "not in allow.network");
		CHECK_STR(rf[0].fix, "other.test");
		snprintf(t, sizeof t, "evil.example.test:%d", upstream_port);
		CHECK_STR(rf[1].target, t);
		CHECK_STR(rf[1].reason, "denied by deny.network");
		CHECK(rf[1].fix == NULL);
		snprintf(t, sizeof t, "x.wild.test:%d", upstream_port);
		CHECK_STR(rf[2].target, t);
		CHECK(strstr(rf[2].reason, "resolves to 127.0.0.1, a private address") != NULL);
		snprintf(t, sizeof t, "x.wild.test:%d", upstream_port);
		CHECK_STR(rf[2].fix, t);
		CHECK_STR(rf[3].target, "127.0.0.9:80");
	}
	/* A task's stalled downloads cannot make vx hold a 1 MiB buffer each
	 * (24 here: 24 MiB, measured; at most 8, and 64 KiB for the rest:
	 * 9 MiB, 13 under ASan) */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long before = ru.ru_maxrss;
	client_status = -1;
	client_pid = fork();
	if (!client_pid)
		client_stalled();
	loop_timer(l, loop_now() + 10, poll_child, NULL);
	deadline = loop_now() + 30000;
	while (client_status < 0 && loop_now() < deadline)
		loop_once(l, 100);
	CHECK(WIFEXITED(client_status) && WEXITSTATUS(client_status) == 0);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "%d stalled downloads: peak RSS grew %ld KiB\n", STALLED,
		ru.ru_maxrss - before);
	CHECK(ru.ru_maxrss - before < 18 * 1024);
	CHECK(ru.ru_maxrss - before > 2 * 1024); /* the buffers did fill */
	proxy_free(p);
	CHECK(access(sock_path, F_OK) != 0);
	resolver_free(res);
	loop_free(l);
	kill(up, SIGKILL);
	waitpid(up, NULL, 0);
	rmdir(dir);
	strbuf_release(&err);
	return check_finish("proxy");
}
