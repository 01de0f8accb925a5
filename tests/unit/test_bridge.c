/* Unit tests for sandbox/bridge.c on real sockets (no sandbox): the
 * /proc/net/tcp line parser; a relay carries a UNIX connection to a
 * loopback port; a port bridge carries a loopback connection to PORT.sock
 * in a directory and never through a link planted there; a held port is
 * refused naming its holder (this process). Clients are forked children
 * with blocking sockets; the bridges run on the parent's loop. */
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
	CHECK(!bridge_tcp_line_listens("   0: 0100007F:ZZ 00000000:0000 0A 0 0 0 0 0 7\n", 3128, &ino));
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

static int unix_dial(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return connect(fd, (struct sockaddr *)&sa, sizeof sa) ? -1 : fd;
}

static int tcp_dial(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	return connect(fd, (struct sockaddr *)&sa, sizeof sa) ? -1 : fd;
}

/* A UNIX listener at path serving echo_server in a child; returns its pid. */
static pid_t unix_echo(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 16))
		return -1;
	pid_t pid = fork();
	if (!pid)
		echo_server(fd);
	close(fd);
	return pid;
}

int main(void)
{
	parse_lines();
	signal(SIGPIPE, SIG_IGN);
	const char *dir = fixture_dir();
	struct loop *l = loop_new();
	struct strbuf err = STRBUF_INIT;

	/* A relay: UNIX socket in, host loopback port out. */
	int port = 0;
	int lfd = listen_any(&port);
	CHECK(lfd >= 0);
	pid_t up = fork();
	if (!up)
		echo_server(lfd);
	char sock[128];
	snprintf(sock, sizeof sock, "%s/relay.sock", dir);
	struct bridge_relay r = {port, NULL};
	struct proxy *relay = bridge_relay_new(l, &r, sock, &err);
	CHECK(relay != NULL);
	child = fork();
	if (!child) {
		char got[64];
		int fd = unix_dial(sock);
		_exit(fd >= 0 && ask(fd, got, sizeof got) > 0 && !strcmp(got, "echo:hi") ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	CHECK_INT(proxy_served(relay), 1);

	/* Held: this process holds port (lfd); the bridge refuses, naming it. */
	struct proxy *got[2];
	size_t n = 9;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK_INT(bridge_bind_new(l, port, dfd, got, &n, &err), -1);
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
	close(lfd);
	kill(up, SIGKILL);
	waitpid(up, NULL, 0);

	/* A port bridge: the freed port on the host, carried to PORT.sock. */
	CHECK_INT(bridge_bind_new(l, port, dfd, got, &n, &err), 0);
	if (err.len)
		fprintf(stderr, "bridge_bind_new: %s\n", err.buf);
	CHECK(n >= 1);
	char inner[128], name[32];
	snprintf(name, sizeof name, "%d.sock", port);
	snprintf(inner, sizeof inner, "%s/%s", dir, name);
	/* Nothing listens inside yet: the host's client is closed, vx goes on. */
	child = fork();
	if (!child) {
		char b[64];
		int fd = tcp_dial(port);
		_exit(fd >= 0 && ask(fd, b, sizeof b) == 0 ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	/* A link planted at PORT.sock to a socket elsewhere is not followed. */
	char elsewhere[128];
	snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.sock", dir);
	pid_t other = unix_echo(elsewhere);
	CHECK(other > 0);
	CHECK_INT(symlink(elsewhere, inner), 0);
	child = fork();
	if (!child) {
		char b[64];
		int fd = tcp_dial(port);
		_exit(fd >= 0 && ask(fd, b, sizeof b) == 0 ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	unlink(inner);
	/* The task's own socket is reached. */
	pid_t inside = unix_echo(inner);
	CHECK(inside > 0);
	child = fork();
	if (!child) {
		char b[64];
		int fd = tcp_dial(port);
		_exit(fd >= 0 && ask(fd, b, sizeof b) > 0 && !strcmp(b, "echo:hi") ? 0 : 1);
	}
	run_child_on(l);
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	for (size_t k = 0; k < n; k++)
		proxy_free(got[k]);
	proxy_free(relay);
	CHECK(access(sock, F_OK) != 0);
	/* (the forked servers hold copies of the listeners: no exec closed them) */
	kill(other, SIGKILL);
	kill(inside, SIGKILL);
	waitpid(other, NULL, 0);
	waitpid(inside, NULL, 0);
	CHECK(tcp_dial(port) < 0); /* released */
	close(dfd);
	unlink(inner);
	unlink(elsewhere);
	rmdir(dir);
	loop_free(l);
	strbuf_release(&err);
	return check_finish("bridge");
}
