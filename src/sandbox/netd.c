/* netd.c - the sandbox's network helper, inside the namespace (netd.h). */
#include "sandbox/netd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/sock.h"

enum { MAX_LISTEN = 64 };

struct listener {
	int fd;
	uint16_t port;
};

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "vx: the sandbox's network helper %s: %s\n", what, detail);
	return 125;
}

/* Sends m, with fd when fd >= 0; a full socket blocks (vx reads on). */
static int send_msg(int ctl, const struct netd_msg *m, int fd)
{
	struct iovec iov = {(void *)m, sizeof *m};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof u.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	ssize_t w;
	do
		w = sendmsg(ctl, &mh, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof *m ? 0 : -1;
}

/* The task's own port, on its loopback: 127.0.0.1, else ::1 (a server that
 * listens there alone). Returns the connected socket, or -1 with errno. */
static int dial_task(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	int e = errno;
	if (fd >= 0)
		close(fd);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = htons((uint16_t)port),
				  .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	if (fd >= 0 && connect(fd, (struct sockaddr *)&s6, sizeof s6) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

/* The child's loop: every accepted connection to vx, every dial vx asks
 * for answered; it ends when vx closes CTL (the task is over, or vx died). */
static void serve(int ctl, const struct listener *ls, size_t n)
{
	struct pollfd p[MAX_LISTEN * 2 + 1];
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pollfd){.fd = ls[i].fd, .events = POLLIN};
	p[n] = (struct pollfd){.fd = ctl, .events = POLLIN};
	for (;;) {
		if (poll(p, n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (size_t i = 0; i < n; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			int fd = accept4(ls[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			struct netd_msg m = {.kind = 'A', .port = ls[i].port};
			int rc = send_msg(ctl, &m, fd);
			close(fd);
			if (rc < 0)
				_exit(0);
		}
		if (p[n].revents & (POLLIN | POLLHUP | POLLERR)) {
			struct netd_msg m;
			ssize_t r = recv(ctl, &m, sizeof m, 0);
			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
				_exit(0);
			if (r != (ssize_t)sizeof m || m.kind != 'D')
				continue;
			int fd = dial_task(m.port);
			struct netd_msg a = {
			    .kind = 'R', .port = m.port, .id = m.id, .err = fd < 0 ? errno : 0};
			int rc = send_msg(ctl, &a, fd);
			if (fd >= 0)
				close(fd);
			if (rc < 0)
				_exit(0);
		}
	}
}

int netd_main(int argc, char **argv)
{
	if (argc < 4)
		return fail("was started wrong",
			    "usage: __netd CTL [-l PORT]... [-L PORT]... -- COMMAND");
	const char *ctl_path = argv[1];
	struct listener ls[MAX_LISTEN * 2];
	size_t n = 0;
	int i = 2;
	for (; i < argc && strcmp(argv[i], "--"); i += 2) {
		bool both = !strcmp(argv[i], "-L");
		if ((!both && strcmp(argv[i], "-l")) || i + 1 >= argc || n + 2 > MAX_LISTEN * 2)
			return fail("was started wrong", argv[i]);
		int port = atoi(argv[i + 1]);
		if (port < 1 || port > 65535)
			return fail("was given a bad port", argv[i + 1]);
		int fd = sock_listen_loopback(AF_INET, port, false);
		if (fd < 0) {
			char what[64];
			snprintf(what, sizeof what, "cannot listen on 127.0.0.1:%d", port);
			return fail(what, strerror(errno));
		}
		ls[n++] = (struct listener){fd, (uint16_t)port};
		if (!both)
			continue;
		/* [::1] too, where the namespace has IPv6: a client's
		 * `localhost` may resolve it first */
		fd = sock_listen_loopback(AF_INET6, port, false);
		if (fd >= 0)
			ls[n++] = (struct listener){fd, (uint16_t)port};
		else if (errno != EADDRNOTAVAIL && errno != EAFNOSUPPORT)
			return fail("cannot listen on [::1]", strerror(errno));
	}
	if (i >= argc - 1)
		return fail("was started wrong", "no command after --");
	int ctl = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(ctl_path) >= sizeof sa.sun_path)
		return fail("has a control socket path too long", ctl_path);
	memcpy(sa.sun_path, ctl_path, strlen(ctl_path) + 1);
	if (ctl < 0 || connect(ctl, (struct sockaddr *)&sa, sizeof sa) < 0)
		return fail("cannot reach vx", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		return fail("cannot fork", strerror(errno));
	if (pid == 0) {
		/* The task's stdio and its watcher's fd 3 are not the helper's:
		 * everything but its listeners and CTL is closed (each of those
		 * is close-on-exec, and it execs nothing). */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		if (null > 2)
			close(null);
		/* the gaps between the kept fds, with close_range */
		unsigned from = 3;
		for (;;) {
			unsigned next = ~0U;
			if ((unsigned)ctl >= from)
				next = (unsigned)ctl;
			for (size_t k = 0; k < n; k++)
				if ((unsigned)ls[k].fd >= from && (unsigned)ls[k].fd < next)
					next = (unsigned)ls[k].fd;
			if (next > from)
				close_range(from, next == ~0U ? ~0U : next - 1, 0);
			if (next == ~0U)
				break;
			from = next + 1;
		}
		serve(ctl, ls, n);
		_exit(0);
	}
	/* COMMAND inherits none of them: each is close-on-exec */
	execv(argv[i + 1], argv + i + 1);
	return fail("cannot run the command", strerror(errno));
}
