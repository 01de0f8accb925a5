/* bridge.c - a task's network on the host side: netd's control socket, the
 * routes of what it passes, relays in and port bridges out (bridge.h). */
#include "sandbox/bridge.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/netd.h"
#include "util/die.h"
#include "util/sock.h"
#include "util/vec.h"

struct route {
	int port;
	struct proxy *p;
};

struct pending {
	uint32_t id;
	void *token; /* the proxy connection waiting (proxy_dialled) */
};

struct bridge {
	struct loop *loop;
	int lfd, cfd; /* the control socket's listener; netd's connection, or -1 */
	char *path;
	VEC(struct route) routes;
	VEC(struct pending) pending;
	uint32_t next_id;
};

static void ctl_close(struct bridge *b)
{
	if (b->cfd < 0)
		return;
	loop_unwatch(b->loop, b->cfd);
	close(b->cfd);
	b->cfd = -1;
}

/* Takes the pending dial id off the list; its token, or NULL. */
static void *take_pending(struct bridge *b, uint32_t id)
{
	for (size_t k = 0; k < b->pending.n; k++) {
		if (b->pending.v[k].id != id)
			continue;
		void *token = b->pending.v[k].token;
		b->pending.v[k] = b->pending.v[--b->pending.n];
		return token;
	}
	return NULL;
}

/* One message from netd, and the descriptor it carries (-1: none). */
static void on_message(struct bridge *b, const struct netd_msg *m, int fd)
{
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))) {
		close(fd); /* only a socket is a connection */
		fd = -1;
	}
	if (m->kind == 'A') {
		for (size_t k = 0; fd >= 0 && k < b->routes.n; k++)
			if (b->routes.v[k].port == m->port) {
				proxy_adopt(b->routes.v[k].p, fd);
				return;
			}
	} else if (m->kind == 'R') {
		void *token = take_pending(b, m->id);
		if (token) {
			proxy_dialled(token, m->err ? -1 : fd);
			if (!m->err)
				return;
		}
	}
	if (fd >= 0)
		close(fd);
}

static void on_ctl(struct loop *l, int fd, unsigned ev, void *data)
{
	struct bridge *b = data;
	for (;;) {
		struct netd_msg m;
		struct iovec iov = {&m, sizeof m};
		union {
			char buf[CMSG_SPACE(sizeof(int) * 4)];
			struct cmsghdr align;
		} u;
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof u.buf};
		ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* every descriptor that came is closed or handed on, whatever
		 * else is wrong with the message */
		int got = -1;
		for (struct cmsghdr *c = r >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c;
		     c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t k = 0; k < nfd; k++) {
				int x;
				memcpy(&x, CMSG_DATA(c) + k * sizeof(int), sizeof x);
				if (got < 0 && !(mh.msg_flags & MSG_CTRUNC))
					got = x;
				else
					close(x);
			}
		}
		if (r <= 0) { /* netd is gone: every dial still owed fails */
			if (got >= 0)
				close(got);
			ctl_close(b);
			while (b->pending.n) {
				void *token = b->pending.v[--b->pending.n].token;
				proxy_dialled(token, -1);
			}
			return;
		}
		if (r != (ssize_t)sizeof m) {
			if (got >= 0)
				close(got);
			continue;
		}
		on_message(b, &m, got);
	}
}

static void on_ctl_accept(struct loop *l, int fd, unsigned ev, void *data)
{
	struct bridge *b = data;
	int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0)
		return;
	if (b->cfd >= 0) { /* netd connected first, before the command ran */
		close(c);
		return;
	}
	b->cfd = c;
	loop_watch(l, c, LOOP_READ, on_ctl, b);
}

struct bridge *bridge_new(struct loop *l, const char *ctl_path, struct strbuf *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(ctl_path) >= sizeof sa.sun_path) {
		strbuf_addf(err,
			    "the network's socket path %s is over %zu bytes (set TMPDIR shorter)",
			    ctl_path, sizeof sa.sun_path - 1);
		return NULL;
	}
	memcpy(sa.sun_path, ctl_path, strlen(ctl_path) + 1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    chmod(ctl_path, 0600) < 0 || listen(fd, 4) < 0) {
		strbuf_addf(err, "cannot listen on %s: %s", ctl_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(ctl_path);
		return NULL;
	}
	struct bridge *b = xcalloc(1, sizeof *b);
	b->loop = l;
	b->lfd = fd;
	b->cfd = -1;
	b->path = xstrdup(ctl_path);
	loop_watch(l, fd, LOOP_READ, on_ctl_accept, b);
	return b;
}

void bridge_route(struct bridge *b, int port, struct proxy *p)
{
	struct route r = {port, p};
	vec_push(&b->routes, r);
}

void bridge_free(struct bridge *b)
{
	if (!b)
		return;
	ctl_close(b);
	loop_unwatch(b->loop, b->lfd);
	close(b->lfd);
	unlink(b->path);
	free(b->path);
	vec_free(&b->routes);
	vec_free(&b->pending);
	free(b);
}

/* proxy_target.dial for a port bridge: asks netd for the task's port. */
static int dial_via_netd(void *ctx, int port, void *token)
{
	struct bridge *b = ctx;
	if (b->cfd < 0)
		return -1;
	struct netd_msg m = {.kind = 'D', .port = (uint16_t)port, .id = ++b->next_id};
	if (send(b->cfd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof m)
		return -1;
	struct pending q = {m.id, token};
	vec_push(&b->pending, q);
	return 0;
}

static void cancel_dial(void *ctx, void *token)
{
	struct bridge *b = ctx;
	for (size_t k = 0; k < b->pending.n; k++)
		if (b->pending.v[k].token == token) {
			b->pending.v[k] = b->pending.v[--b->pending.n];
			return;
		}
}

/* Appends the addresses of addr:port (a numeric literal) to *tail. */
static void add_address(struct addrinfo ***tail, const char *addr, int port)
{
	char service[8];
	snprintf(service, sizeof service, "%d", port);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
	struct addrinfo *ai = NULL;
	if (getaddrinfo(addr, service, &hints, &ai) || !ai)
		return;
	**tail = ai;
	while (ai->ai_next)
		ai = ai->ai_next;
	*tail = &ai->ai_next;
}

struct proxy *bridge_relay_new(struct loop *l, const struct bridge_relay *r, struct strbuf *err)
{
	struct proxy_target t = {0};
	struct addrinfo **tail = &t.ai;
	add_address(&tail, r->addr ? r->addr : "127.0.0.1", r->port);
	if (!r->addr)
		add_address(&tail, "::1", r->port);
	if (!t.ai) {
		strbuf_addf(err, "the relay's address %s does not parse", r->addr);
		return NULL;
	}
	return proxy_new_fixed(l, -1, &t, NULL);
}

int bridge_bind_new(struct loop *l, struct bridge *b, int port, struct proxy *out[2], size_t *n,
		    struct strbuf *err)
{
	static const char *const addrs[] = {"127.0.0.1", "::1"};
	static const int families[] = {AF_INET, AF_INET6};
	*n = 0;
	for (size_t k = 0; k < 2; k++) {
		int fd = sock_listen_loopback(families[k], port, true);
		/* no IPv6 on the host: the IPv4 listener is the bridge */
		if (fd < 0 && k && (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL))
			break;
		if (fd < 0) {
			int e = errno;
			strbuf_addf(err, "cannot listen on the host's %s%s%s:%d", k ? "[" : "",
				    addrs[k], k ? "]" : "", port);
			if (e == EADDRINUSE) {
				struct strbuf who = STRBUF_INIT;
				if (bridge_port_holder(port, &who))
					strbuf_addf(err, ": the port is held by %s", who.buf);
				else
					strbuf_addstr(err,
						      ": the port is in use, by no listener /proc "
						      "shows (another user's, or a closing "
						      "connection's for up to a minute)");
				strbuf_release(&who);
			} else {
				strbuf_addf(err, ": %s", strerror(e));
			}
			while (*n)
				proxy_free(out[--*n]);
			return -1;
		}
		struct proxy_target t = {
		    .dial = dial_via_netd, .cancel = cancel_dial, .ctx = b, .port = port};
		out[(*n)++] = proxy_new_fixed(l, fd, &t, NULL);
	}
	return 0;
}

bool bridge_tcp_line_listens(const char *line, int port, unsigned long *inode)
{
	char local[64];
	unsigned st;
	unsigned long ino;
	/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
	if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &ino) != 3)
		return false;
	const char *colon = strrchr(local, ':');
	if (!colon || st != 0x0A)
		return false;
	char *end;
	unsigned long p = strtoul(colon + 1, &end, 16);
	if (*end || end == colon + 1 || p != (unsigned long)port)
		return false;
	*inode = ino;
	return true;
}

/* The inodes of the sockets listening on port, from one /proc/net file. */
static void listeners(const char *file, int port, unsigned long *inodes, size_t *n, size_t cap)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return;
	char line[512];
	unsigned long ino;
	while (*n < cap && fgets(line, sizeof line, f))
		if (bridge_tcp_line_listens(line, port, &ino) && ino)
			inodes[(*n)++] = ino;
	fclose(f);
}

/* Does pid hold one of the inodes? */
static bool holds(const char *pid, const unsigned long *inodes, size_t n)
{
	char dir[300];
	snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *de; !found && (de = readdir(d));) {
		char link[600], target[64];
		snprintf(link, sizeof link, "%s/%s", dir, de->d_name);
		ssize_t len = readlink(link, target, sizeof target - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		unsigned long ino;
		char tail;
		if (sscanf(target, "socket:[%lu%c", &ino, &tail) != 2 || tail != ']')
			continue;
		for (size_t k = 0; k < n && !found; k++)
			found = inodes[k] == ino;
	}
	closedir(d);
	return found;
}

bool bridge_host_listens(int port)
{
	unsigned long inodes[1];
	size_t n = 0;
	listeners("/proc/net/tcp", port, inodes, &n, 1);
	listeners("/proc/net/tcp6", port, inodes, &n, 1);
	return n > 0;
}

bool bridge_port_holder(int port, struct strbuf *who)
{
	unsigned long inodes[16];
	size_t n = 0;
	listeners("/proc/net/tcp", port, inodes, &n, 16);
	listeners("/proc/net/tcp6", port, inodes, &n, 16);
	if (!n)
		return false;
	DIR *d = opendir("/proc");
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *de; !found && (de = readdir(d));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || !holds(de->d_name, inodes, n))
			continue;
		found = true;
		char path[300];
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		char cmd[256];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t len = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (len < 0)
			len = 0;
		while (len && !cmd[len - 1])
			len--;
		cmd[len] = 0;
		for (ssize_t k = 0; k < len; k++)
			if (!cmd[k] || cmd[k] == '\n')
				cmd[k] = ' ';
		strbuf_addf(who, "pid %s", de->d_name);
		if (len)
			strbuf_addf(who, " (%s%s)", cmd,
				    len == (ssize_t)sizeof cmd - 1 ? "..." : "");
	}
	closedir(d);
	return found;
}
