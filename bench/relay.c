/* relay.c - the least a process between client and server can be: bench/
 * network's ceiling for any proxy on the data path (issue 43 item 3).
 *
 *   relay PORT SERVER_PORT splice|copy
 *
 * Listens on 127.0.0.1:PORT; for each connection (a child of its own),
 * dials 127.0.0.1:SERVER_PORT, passes the client's first read (the
 * request) on, then moves the reply to the client with blocking calls and
 * nothing else: splice(2) through a 1 MiB pipe, or read/write through a
 * 1 MiB buffer. No allowlist, no poll, no event loop. */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CHUNK = 1 << 20 };

static int tcp(int port, bool listening)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (listening ? bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 64)
		      : connect(fd, (struct sockaddr *)&a, sizeof a)) {
		perror("relay");
		exit(1);
	}
	return fd;
}

static void pass_splice(int from, int to)
{
	int p[2];
	if (pipe(p) || fcntl(p[1], F_SETPIPE_SZ, CHUNK) < 0)
		exit(1);
	ssize_t k;
	while ((k = splice(from, NULL, p[1], NULL, CHUNK, SPLICE_F_MOVE)) > 0)
		while (k > 0) {
			ssize_t w = splice(p[0], NULL, to, NULL, (size_t)k, SPLICE_F_MOVE);
			if (w <= 0)
				exit(1);
			k -= w;
		}
}

static void pass_copy(int from, int to)
{
	char *buf = malloc(CHUNK);
	ssize_t k;
	while ((k = read(from, buf, CHUNK)) > 0)
		for (ssize_t off = 0; off < k;) {
			ssize_t w = write(to, buf + off, (size_t)(k - off));
			if (w <= 0)
				exit(1);
			off += w;
		}
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: relay PORT SERVER_PORT splice|copy\n");
		return 2;
	}
	bool splicing = !strcmp(argv[3], "splice");
	signal(SIGCHLD, SIG_IGN);
	int l = tcp(atoi(argv[1]), true);
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0 || fork()) {
			close(c);
			continue;
		}
		int s = tcp(atoi(argv[2]), false);
		char head[4096];
		ssize_t n = read(c, head, sizeof head);
		if (n <= 0 || write(s, head, (size_t)n) != n)
			_exit(1);
		(splicing ? pass_splice : pass_copy)(s, c);
		_exit(0);
	}
}
