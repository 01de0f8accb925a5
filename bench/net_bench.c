/* bench/network's helper: a loopback HTTP server and a client, so the
 * same client measures a direct connection on the host and the path
 * through a sandboxed task's bridge and proxy (bench/network runs it
 * inside `vx run`). Standalone: no vx code.
 *
 *   net_bench serve PORT                  GET /small: 2 bytes; /big: 100 MiB
 *   net_bench small HOST:PORT URL N       N requests, each its own connection;
 *                                         prints the median and p90 in microseconds
 *   net_bench big HOST:PORT URL N         N downloads; prints the best MiB/s
 *
 * HOST:PORT is where the client connects (the server, or the proxy); URL is
 * what it asks for: "/small" (direct) or "http://NAME:PORT/small" (proxy). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { BIG = 100 << 20 };

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int dial(const char *hostport)
{
	char host[64];
	const char *colon = strrchr(hostport, ':');
	snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)atoi(colon + 1))};
	inet_pton(AF_INET, host, &sa.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		perror("connect");
		exit(1);
	}
	return fd;
}

/* One request on its own connection; returns the body's bytes. */
static long long request(const char *hostport, const char *url)
{
	int fd = dial(hostport);
	char req[512];
	int n = snprintf(req, sizeof req,
			 "GET %s HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n", url);
	if (write(fd, req, (size_t)n) != n)
		exit(1);
	static char buf[1 << 16];
	long long total = 0;
	for (ssize_t r; (r = read(fd, buf, sizeof buf)) > 0;)
		total += r;
	close(fd);
	return total;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void serve(int port)
{
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 128)) {
		perror("bind");
		exit(1);
	}
	static char zero[1 << 16];
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		char head[4096];
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
		bool big = strstr(head, "/big ") != NULL;
		if (big && fork()) { /* the big one in a child: small ones go on */
			close(fd);
			continue;
		}
		char out[128];
		int h = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s",
				 big ? BIG : 2, big ? "" : "ok");
		if (write(fd, out, (size_t)h) == h && big)
			for (long long left = BIG; left > 0;) {
				ssize_t w = write(fd, zero,
						  left < (long long)sizeof zero ? (size_t)left
										: sizeof zero);
				if (w <= 0)
					break;
				left -= w;
			}
		close(fd);
		if (big)
			_exit(0);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve")) {
		serve(atoi(argv[2]));
	} else if (argc == 5 && !strcmp(argv[1], "small")) {
		int n = atoi(argv[4]);
		double *t = malloc(sizeof *t * (size_t)n);
		for (int i = 0; i < n; i++) {
			double t0 = now_us();
			if (request(argv[2], argv[3]) <= 0) {
				fprintf(stderr, "net_bench: request %d got nothing\n", i);
				return 1;
			}
			t[i] = now_us() - t0;
		}
		qsort(t, (size_t)n, sizeof *t, cmp);
		printf("median_us=%.0f p90_us=%.0f\n", t[n / 2], t[n * 9 / 10]);
		free(t);
	} else if (argc == 5 && !strcmp(argv[1], "big")) {
		double best = 0; /* the best of N: this machine's noise only slows */
		for (int i = 0; i < atoi(argv[4]); i++) {
			double t0 = now_us();
			long long got = request(argv[2], argv[3]);
			double s = (now_us() - t0) / 1e6;
			if (got < BIG) {
				fprintf(stderr, "net_bench: got %lld bytes of %d\n", got, BIG);
				return 1;
			}
			if ((double)got / (1 << 20) / s > best)
				best = (double)got / (1 << 20) / s;
		}
		printf("mib_per_s=%.0f\n", best);
	} else {
		fprintf(
		    stderr,
		    "usage: net_bench serve PORT | small HOST:PORT URL N | big HOST:PORT URL N\n");
		return 2;
	}
	return 0;
}
