/* Unit tests for sandbox/bridge.c and netd.c on real sockets (no sandbox:
 * the host's loopback stands in for the namespace's): the /proc/net/tcp
 * line parser; the real netd passes what it accepts to the bridge, which
 * routes it to a relay that reaches a host port; a second connection to
 * the control socket is closed; what a stand-in netd passes is checked (a
 * pipe, an unrouted port, extra descriptors: closed, none leaked); a port
 * bridge asks netd to dial and carries the host's client to the socket it
 * gets, and fails at once when netd is gone; a held port is refused naming
 * its holder (this process). Clients are forked children with blocking
 * sockets; the bridges run on the parent's loop. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "sandbox/bridge.h"
#include "sandbox/netd.h"

static void parse_lines(void)
{
	unsigned long ino = 0;
	const char *v4 = "   0: 0100007F:0C38 00000000:0000 0A 00000000:00000000 00:00000000 "
			 "00000000     0        0 380763 1 000000006b0833d1 100 0 0 10 0\n";
	CHECK(bridge_tcp_line_listens(v4, 3128, &ino));
	CHECK_INT(ino, 380763);
	CHECK(!bridge_tcp_line_listens(v4, 3129, &ino));
	const char *est = "   1: 0100007F:0C38 0100007F:D2A4 01 00000000:00000000 00:00000000 "
			  "00000000     0        0 99 1 0 20 4 30 10 -1\n";
	CHECK(!bridge_tcp_line_listens(est, 3128, &ino)); /* established, not listening */
	const char *v6 = "   0: 00000000000000000000000001000000:B26E "
			 "00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 "
			 "00000000     0        0 4242 1 000000006b0833d1 100 0 0 10 0\n";
	CHECK(bridge_tcp_line_listens(v6, 0xB26E, &ino));
	CHECK_INT(ino, 4242);
	CHECK(!bridge_tcp_line_listens("  sl  local_address rem_address   st tx_queue rx_queue tr "
				       "tm->when retrnsmt   uid  timeout inode\n",
				       3128, &ino));
	CHECK(!bridge_tcp_line_listens("", 3128, &ino));
	CHECK(!bridge_tcp_line_listens("   0: 0100007F:ZZ 00000000:0000 0A 0 0 0 0 0 7\n", 3128,
				       &ino));
}

/* A loopback listener on an ephemeral port; *port gets it. */
static int listen_any(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	int one = 1; /* its closed connections must not hold the port for the bridge after it */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 16))
		return -1;
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Serves "echo:" + what it reads, once per connection. */
static void echo_server(int lfd)
{
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			_exit(0);
		char b[256];
		ssize_t n = read(fd, b, sizeof b);
		if (n > 0 && (write(fd, "echo:", 5) != 5 || write(fd, b, (size_t)n) != n))
			_exit(1);
		close(fd);
	}
}

/* Sends "hi" on fd and reads the answer into out; returns its length. */
static ssize_t ask(int fd, char *out, size_t cap)
{
	if (write(fd, "hi", 2) != 2)
		return -1;
	shutdown(fd, SHUT_WR);
	size_t n = 0;
	for (ssize_t r; n < cap - 1 && (r = read(fd, out + n, cap - 1 - n)) > 0;)
		n += (size_t)r;
	out[n] = 0;
	return (ssize_t)n;
}

static pid_t child;
static int child_status;

static void run_child_on(struct loop *l)
{
	long long deadline = loop_now() + 20000;
	int st;
	for (;;) {
		if (waitpid(child, &st, WNOHANG) == child) {
			child_status = st;
			return;
		}
		if (loop_now() > deadline) {
			kill(child, SIGKILL);
			waitpid(child, &st, 0);
			child_status = -1;
			return;
		}
		loop_once(l, 10);
	}
}

/* A stand-in for netd: a SOCK_SEQPACKET connection to the bridge. */
static int ctl_dial(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return connect(fd, (struct sockaddr *)&sa, sizeof sa) ? -1 : fd;
}

/* Sends m with the n descriptors fds. */
static int send_fds(int ctl, const struct netd_msg *m, const int *fds, size_t n)
{
	struct iovec iov = {(void *)m, sizeof *m};
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof u);
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	return sendmsg(ctl, &mh, 0) == (ssize_t)sizeof *m ? 0 : -1;
}

static int tcp_dial(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	return connect(fd, (struct sockaddr *)&sa, sizeof sa) ? -1 : fd;
}

/* How many descriptors this process holds. */
static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void run_loop(struct loop *l, int ms)
{
	long long end = loop_now() + ms;
	while (loop_now() < end)
		loop_once(l, 10);
}

int main(void)
{
	parse_lines();
	signal(SIGPIPE, SIG_IGN);
	const char *dir = fixture_dir();
	struct loop *l = loop_new();
	struct strbuf err = STRBUF_INIT;

	/* The host's service a relay reaches. */
	int port = 0;
	int lfd = listen_any(&port);
	CHECK(lfd >= 0);
	pid_t up = fork();
	if (!up)
		echo_server(lfd);
	char ctl[128];
	snprintf(ctl, sizeof ctl, "%s/ctl.sock", dir);
	struct bridge *b = bridge_new(l, ctl, &err);
	CHECK(b != NULL);
	struct bridge_relay r = {port, NULL};
	struct proxy *relay = bridge_relay_new(l, &r, &err);
	CHECK(relay != NULL);
	bridge_route(b, 4242, relay);

	/* The real netd, in a child, listening on a free port (this test
	 * has no namespace of its own: the host's loopback stands in). */
	int nport = 0;
	int probe = listen_any(&nport);
	close(probe);
	char nps[16];
	snprintf(nps, sizeof nps, "%d", nport);
	/* netd's -l port is what it reports; the route says 4242: nothing
	 * is routed for nport, so route that too */
	bridge_route(b, nport, relay);
	pid_t netd = fork();
	if (!netd) {
		char *av[] = {"__netd", ctl, "-l", nps, "--", "/bin/sleep", "30", NULL};
		_exit(netd_main(7, av));
	}
	/* netd listens before its command runs: dial until it answers */
	child = fork();
	if (!child) {
		char got[64];
		int fd = -1;
		for (int i = 0; i < 200 && fd < 0; i++) {
			fd = tcp_dial(nport);
			if (fd < 0)
				usleep(10000);
		}
		_exit(fd >= 0 && ask(fd, got, sizeof got) > 0 && !strcmp(got, "echo:hi") ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	CHECK_INT(proxy_served(relay), 1);
	/* A second connection to the control socket is not netd's: closed. */
	int intruder = ctl_dial(ctl);
	CHECK(intruder >= 0);
	run_loop(l, 50);
	char byte;
	CHECK(recv(intruder, &byte, 1, MSG_DONTWAIT) == 0); /* EOF: vx closed it */
	close(intruder);
	kill(netd, SIGKILL); /* its command (sleep); its server ends with the bridge */
	waitpid(netd, NULL, 0);
	bridge_free(b);

	/* A stand-in netd: what it passes is checked before it is used. */
	b = bridge_new(l, ctl, &err);
	CHECK(b != NULL);
	bridge_route(b, 4242, relay);
	int fake = ctl_dial(ctl);
	CHECK(fake >= 0);
	run_loop(l, 20);
	int before = open_fds();
	int pfd[2];
	CHECK_INT(pipe(pfd), 0);
	struct netd_msg a = {.kind = 'A', .port = 4242};
	CHECK_INT(send_fds(fake, &a, &pfd[0], 1), 0); /* a pipe is no connection */
	int sp[2];
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	struct netd_msg other = {.kind = 'A', .port = 999};
	CHECK_INT(send_fds(fake, &other, &sp[0], 1), 0); /* no route: closed */
	int many[3] = {sp[0], sp[0], sp[0]};
	CHECK_INT(send_fds(fake, &a, many, 3), 0); /* the first is taken, the rest closed */
	run_loop(l, 50);
	CHECK_INT(proxy_served(relay), 2); /* the one good socket went to the host's port */
	close(pfd[0]);
	close(pfd[1]);
	close(sp[0]);
	close(sp[1]); /* the relayed connection ends: nothing it passed is left open */
	run_loop(l, 100);
	CHECK_INT(open_fds(), before);

	/* Held: this process holds port (lfd); the bridge refuses, naming it. */
	struct proxy *got[2];
	size_t n = 9;
	CHECK_INT(bridge_bind_new(l, b, port, got, &n, &err), -1);
	CHECK_INT(n, 0);
	char want[128];
	snprintf(want, sizeof want, "the port is held by pid %d (", (int)getpid());
	CHECK(strstr(err.buf, want) != NULL);
	CHECK(strstr(err.buf, "test_bridge") != NULL);
	struct strbuf who = STRBUF_INIT;
	CHECK(bridge_port_holder(port, &who));
	snprintf(want, sizeof want, "pid %d (", (int)getpid());
	CHECK(!strncmp(who.buf, want, strlen(want)));
	strbuf_release(&who);
	strbuf_reset(&err);

	/* A port bridge on a free port: each host connection asks netd for a
	 * dial; the stand-in answers with a socket to the echo server. */
	int bport = 0;
	probe = listen_any(&bport);
	close(probe);
	CHECK_INT(bridge_bind_new(l, b, bport, got, &n, &err), 0);
	CHECK(n >= 1);
	child = fork();
	if (!child) {
		char got_[64];
		int fd = tcp_dial(bport);
		_exit(fd >= 0 && ask(fd, got_, sizeof got_) > 0 && !strcmp(got_, "echo:hi") ? 0
											    : 1);
	}
	struct netd_msg d;
	for (int i = 0; i < 200; i++) { /* the dial request reaches the stand-in */
		loop_once(l, 10);
		if (recv(fake, &d, sizeof d, MSG_DONTWAIT) == (ssize_t)sizeof d)
			break;
		d.kind = 0;
	}
	CHECK(d.kind == 'D' && d.port == bport);
	int to_task = tcp_dial(port);
	struct netd_msg rep = {.kind = 'R', .port = d.port, .id = d.id};
	CHECK_INT(send_fds(fake, &rep, &to_task, 1), 0);
	close(to_task);
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	/* netd gone: a dial fails at once, the host's client is closed */
	close(fake);
	run_loop(l, 20);
	child = fork();
	if (!child) {
		char got_[64];
		int fd = tcp_dial(bport);
		_exit(fd >= 0 && ask(fd, got_, sizeof got_) == 0 ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);

	for (size_t k = 0; k < n; k++)
		proxy_free(got[k]);
	proxy_free(relay);
	bridge_free(b);
	CHECK(access(ctl, F_OK) != 0);
	close(lfd);
	kill(up, SIGKILL);
	waitpid(up, NULL, 0);
	CHECK(tcp_dial(bport) < 0); /* released */
	rmdir(dir);
	loop_free(l);
	strbuf_release(&err);
	return check_finish("bridge");
}
