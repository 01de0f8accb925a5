/* proxy.c - one task's allowlisting HTTP/SOCKS5 proxy on the event loop.
 *
 * A connection is a small state machine: HEAD (reading the request: an
 * HTTP head, or a SOCKS5 greeting and request), DIAL (a non-blocking
 * connect to the judged addresses, one after the other), TUNNEL (bytes both
 * ways, each direction through a bounded buffer with its half-close), and
 * FLUSH (a refusal or error reply being written, then close). */
#include "sandbox/proxy.h"

#include <errno.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/die.h"
#include "util/vec.h"

enum {
	BUF_CAP = 64 * 1024,	/* per direction, to begin with */
	BULK_CAP = 1024 * 1024, /* a direction that keeps its buffer full */
	BULK_BUFS = 8,		/* at once, per proxy: 256 connections never hold 512 MiB */
	HEAD_MAX = 16 * 1024,	/* an HTTP head or a SOCKS request */
	HEAD_MS = 10000,	/* a client that sends no whole head in this long is dropped */
	DIAL_MS = 10000,	/* per address */
	MAX_CONNS = 256,	/* per task */
};

enum cstate { S_HEAD, S_RESOLVE, S_DIAL, S_TUNNEL, S_FLUSH };

/* One direction of a connection: what vx writes itself (replies, a
 * rewritten head), then the tunnelled bytes, through one buffer. Copied,
 * not spliced: on this machine read/write through a 1 MiB buffer moves a
 * download at 1.3-1.6x the rate splice(2) through a pipe does, in vx and
 * in a bare relay alike (bench/network, docs/network.md "Costs"). */
struct buf {
	char *b;
	size_t off, len; /* b[off..len) is still to be written */
	size_t cap;	 /* BUF_CAP, or BULK_CAP once grown */
};

struct conn {
	struct proxy *p;
	struct conn *prev, *next;
	int cfd, ufd;
	enum cstate state;
	char head[HEAD_MAX];
	size_t head_len;
	int socks;	  /* 0: HTTP; 1: a SOCKS5 greeting expected; 2: its request */
	bool tunnel_mode; /* CONNECT or SOCKS: the success reply comes once dialled */
	struct buf up, down;
	bool c_eof, u_eof, c_shut, u_shut;
	unsigned long timer;
	struct addrinfo *ai, *cur;
	struct resolve_req *lookup; /* in S_RESOLVE: the name's lookup, on a resolver thread */
	bool dialing;		    /* in S_DIAL: the target's dial hook owes an answer */
	char *host;
	int port;
	bool exact;
};

struct proxy {
	struct loop *loop;
	struct resolver *resolver;
	int lfd;
	char *sock_path;
	struct netrules rules;
	bool fixed;		    /* a bridge's: every connection goes to the target */
	struct proxy_target target; /* with fixed */
	struct conn *conns;
	size_t n_conns, served;
	size_t bulk; /* buffers grown to BULK_CAP */
	VEC(struct proxy_refusal) refusals;
};

static void conn_update(struct conn *c);

static void conn_close(struct conn *c)
{
	struct proxy *p = c->p;
	loop_unwatch(p->loop, c->cfd);
	close(c->cfd);
	if (c->ufd >= 0) {
		loop_unwatch(p->loop, c->ufd);
		close(c->ufd);
	}
	loop_timer_cancel(p->loop, c->timer);
	if (c->lookup)
		resolve_cancel(c->lookup);
	if (c->dialing)
		p->target.cancel(p->target.ctx, c);
	if (c->ai)
		freeaddrinfo(c->ai);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->n_conns--;
	for (struct buf *b = &c->up; b; b = b == &c->up ? &c->down : NULL) {
		p->bulk -= b->cap == BULK_CAP;
		free(b->b);
	}
	free(c->host);
	free(c);
}

/* A buffer is allocated at its first byte: a client held in its head (a
 * slowloris) costs its head alone, not both directions' 64 KiB. */
static void buf_alloc(struct buf *b)
{
	if (!b->b)
		b->b = xmalloc(b->cap = BUF_CAP);
}

static void buf_add(struct buf *b, const void *data, size_t n)
{
	buf_alloc(b);
	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	if (n > b->cap - b->len) /* replies and heads are far below the cap */
		n = b->cap - b->len;
	memcpy(b->b + b->len, data, n);
	b->len += n;
}

static bool pending(const struct buf *b)
{
	return b->off < b->len;
}

/* Has b room for what fd has to give? */
static bool has_room(const struct buf *b)
{
	return !b->b || b->len - b->off < b->cap;
}

/* Reads from fd into b; returns bytes read, 0 at EOF, -1 on EAGAIN, -2 on
 * error. A read that fills an empty buffer is a bulk transfer: the buffer
 * grows to BULK_CAP while the proxy has fewer than BULK_BUFS such (fewer
 * calls and wake-ups per byte: 64 KiB buffers moved a download at 0.34x
 * the direct rate, 1 MiB ones at 0.52-0.63x). */
static ssize_t buf_fill(struct proxy *p, struct buf *b, int fd)
{
	buf_alloc(b);
	if (b->off) {
		memmove(b->b, b->b + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len == b->cap)
		return -1;
	size_t was = b->len;
	ssize_t r = recv(fd, b->b + b->len, b->cap - b->len, MSG_DONTWAIT);
	if (r > 0)
		b->len += (size_t)r;
	if (!was && b->len == b->cap && b->cap < BULK_CAP && p->bulk < BULK_BUFS) {
		b->b = xrealloc(b->b, b->cap = BULK_CAP);
		p->bulk++;
	}
	return r >= 0 ? r : errno == EAGAIN || errno == EINTR ? -1 : -2;
}

/* Writes what b holds to fd; returns 0, or -1 on an error other than
 * EAGAIN. */
static int buf_flush(struct buf *b, int fd)
{
	while (b->off < b->len) {
		ssize_t w = send(fd, b->b + b->off, b->len - b->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		b->off += (size_t)w;
	}
	b->off = b->len = 0;
	return 0;
}

static void record(struct proxy *p, const char *target, const char *reason, char *fix)
{
	for (size_t i = 0; i < p->refusals.n; i++)
		if (!strcmp(p->refusals.v[i].target, target) &&
		    !strcmp(p->refusals.v[i].reason, reason)) {
			free(fix);
			return;
		}
	struct proxy_refusal r = {xstrdup(target), xstrdup(reason), fix};
	vec_push(&p->refusals, r);
}

/* Answers the client and closes once the answer is written. */
static void reply_and_close(struct conn *c, int http_status, const char *status_text,
			    unsigned char socks_code, const char *why)
{
	if (c->socks) {
		unsigned char r[10] = {5, socks_code, 0, 1, 0, 0, 0, 0, 0, 0};
		buf_add(&c->down, r, sizeof r);
	} else {
		char body[512], head[1024];
		int n = snprintf(body, sizeof body, "vx: %s\n", why);
		int h = snprintf(head, sizeof head,
				 "HTTP/1.1 %d %s\r\nX-Vx-Refused: %.*s\r\nContent-Type: "
				 "text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
				 http_status, status_text, n - 5, body + 4, n);
		buf_add(&c->down, head, (size_t)h);
		buf_add(&c->down, body, (size_t)n);
	}
	c->state = S_FLUSH;
	if (c->ufd >= 0) {
		loop_unwatch(c->p->loop, c->ufd);
		close(c->ufd);
		c->ufd = -1;
	}
	conn_update(c);
}

static void refuse(struct conn *c, const char *reason, char *fix)
{
	char *target = net_target(c->host, c->port);
	record(c->p, target, reason, fix);
	char *why = xasprintf("%s refused: %s", target, reason);
	reply_and_close(c, 403, "Forbidden", 2, why);
	free(why);
	free(target);
}

static void dial_next(struct conn *c);
static void resolved(int rc, struct addrinfo *ai, void *data);

static void on_timeout(struct loop *l, void *data)
{
	struct conn *c = data;
	c->timer = 0;
	if (c->state == S_HEAD) {
		reply_and_close(c, 408, "Request Timeout", 1, "no whole request within 10 s");
	} else if (c->state == S_DIAL) {
		loop_unwatch(l, c->ufd);
		close(c->ufd);
		c->ufd = -1;
		c->cur = c->cur->ai_next;
		dial_next(c);
	}
}

static void connected(struct conn *c)
{
	loop_timer_cancel(c->p->loop, c->timer);
	c->timer = 0;
	c->state = S_TUNNEL;
	c->p->served++;
	if (c->socks) {
		static const unsigned char ok[10] = {5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
		buf_add(&c->down, ok, sizeof ok);
	} else if (c->tunnel_mode) {
		static const char ok[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
		buf_add(&c->down, ok, sizeof ok - 1);
	}
	conn_update(c);
}

static void on_upstream(struct loop *l, int fd, unsigned ev, void *data);
static void on_client(struct loop *l, int fd, unsigned ev, void *data);

/* Dials c->cur, then the addresses after it; none left: 502 (a bridge's
 * client, which sent no request, is closed). */
static void dial_next(struct conn *c)
{
	if (c->p->fixed && c->p->target.dial) {
		/* through netd (netd.h): the answer comes as proxy_dialled */
		c->state = S_DIAL;
		c->dialing = true;
		if (c->p->target.dial(c->p->target.ctx, c->p->target.port, c) < 0) {
			c->dialing = false;
			return conn_close(c);
		}
		return conn_update(c);
	}
	for (; c->cur; c->cur = c->cur->ai_next) {
		int fd = socket(c->cur->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, c->cur->ai_addr, c->cur->ai_addrlen) == 0) {
			c->ufd = fd;
			connected(c);
			return;
		}
		if (errno == EINPROGRESS) {
			c->ufd = fd;
			c->state = S_DIAL;
			c->timer = loop_timer(c->p->loop, loop_now() + DIAL_MS, on_timeout, c);
			conn_update(c);
			return;
		}
		close(fd);
	}
	if (c->p->fixed)
		return conn_close(c);
	char *target = net_target(c->host, c->port);
	char *why = xasprintf("%s: no address of it answered", target);
	reply_and_close(c, 502, "Bad Gateway", 5, why);
	free(why);
	free(target);
}

/* The decision, then the resolution, then the dial. */
static void decide(struct conn *c)
{
	struct proxy *p = c->p;
	loop_timer_cancel(p->loop, c->timer);
	c->timer = 0;
	switch (netrules_decide(&p->rules, c->host, c->port, &c->exact)) {
	case NET_DENIED:
		refuse(c, "denied by deny.network", NULL);
		return;
	case NET_NOT_ALLOWED:
		refuse(c, "not in allow.network", netrule_fix(c->host, c->port));
		return;
	case NET_ALLOWED:
		break;
	}
	c->state = S_RESOLVE;
	c->lookup = resolve_start(p->resolver, c->host, c->port, proxy_resolve, resolved, c);
	conn_update(c);
}

/* Is a 127/8 or ::1? */
static bool net_loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	return a->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/* Is sa an address of one of this machine's own interfaces but loopback?
 * Such an address reaches the host's own services (a dev database bound
 * to 0.0.0.0) as loopback would, and a public or global IPv6 one passed
 * as public (issue 36): refused however it is named, unless relayed
 * (allow.network localhost:PORT). Loopback itself stays a private address
 * (named exactly, or refused). Read afresh each time: interfaces come and
 * go. A failure to list them refuses. */
static bool host_address(const struct sockaddr *sa)
{
	struct ifaddrs *ifs;
	if (getifaddrs(&ifs) < 0)
		return true;
	bool mine = false;
	for (struct ifaddrs *i = ifs; i && !mine; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;
		/* lo too: an address other than 127/8 configured there (tests,
		 * VPN clients) is the host's own (issue 53 item 9); loopback
		 * itself stays a private address, judged by the rules */
		if (!a || a->sa_family != sa->sa_family || net_loopback(a))
			continue;
		if (sa->sa_family == AF_INET)
			mine = ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
			       ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
		else if (sa->sa_family == AF_INET6)
			mine = !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)sa)->sin6_addr,
				       sizeof(struct in6_addr));
	}
	freeifaddrs(ifs);
	if (!mine && sa->sa_family == AF_INET6) {
		/* ::ffff:a.b.c.d is a.b.c.d */
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		if (!memcmp(b, mapped, 12)) {
			struct sockaddr_in v4 = {.sin_family = AF_INET};
			memcpy(&v4.sin_addr, b + 12, 4);
			return host_address((const struct sockaddr *)&v4);
		}
	}
	return mine;
}

/* The name's addresses, judged, then dialled. */
static void resolved(int rc, struct addrinfo *ai, void *data)
{
	struct conn *c = data;
	struct proxy *p = c->p;
	c->lookup = NULL;
	if (rc) {
		char *target = net_target(c->host, c->port);
		char *why = xasprintf("%s does not resolve: %s", target, gai_strerror(rc));
		reply_and_close(c, 502, "Bad Gateway", 4, why);
		free(why);
		free(target);
		return;
	}
	/* Keep only the addresses the rules allow: the one judged is the
	 * one dialled (no second lookup a rebinding server could answer). */
	struct strbuf why = STRBUF_INIT;
	struct addrinfo **link = &ai;
	while (*link) {
		struct addrinfo *a = *link;
		strbuf_reset(&why);
		if (host_address(a->ai_addr)) {
			char addr[INET6_ADDRSTRLEN];
			net_addr_text(a->ai_addr, addr);
			strbuf_addf(&why,
				    "resolves to %s, an address of this machine: its services are "
				    "reached only through a relay (allow.network localhost:PORT)",
				    addr);
		} else if (netrules_address_ok(&p->rules, a->ai_addr, c->exact, &why)) {
			link = &a->ai_next;
			continue;
		}
		*link = a->ai_next;
		a->ai_next = NULL;
		freeaddrinfo(a);
	}
	if (!ai) {
		bool deny = strstr(why.buf, "deny.network") != NULL ||
			    strstr(why.buf, "this machine") != NULL;
		bool metadata = strstr(why.buf, "metadata") != NULL;
		refuse(c, why.buf, deny || metadata ? NULL : netrule_fix(c->host, c->port));
		strbuf_release(&why);
		return;
	}
	strbuf_release(&why);
	c->ai = c->cur = ai;
	dial_next(c);
}

/* Splits "host:port" / "[v6]:port" (port: default when absent, 0 for none
 * allowed). Returns false on a malformed authority. */
static bool split_authority(const char *a, size_t n, int dflt, char **host, int *port)
{
	const char *end = a + n, *colon = NULL;
	const char *h = a, *he;
	if (n && *a == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return false;
		h = a + 1;
		he = close;
		if (close + 1 < end && close[1] != ':')
			return false;
		colon = close + 1 < end ? close + 1 : NULL;
	} else {
		colon = memchr(a, ':', n);
		he = colon ? colon : end;
	}
	*port = dflt;
	if (colon) {
		char digits[8];
		size_t dn = (size_t)(end - colon - 1);
		if (!dn || dn > 5)
			return false;
		memcpy(digits, colon + 1, dn);
		digits[dn] = 0;
		char *e;
		long v = strtol(digits, &e, 10);
		if (*e || v < 1 || v > 65535)
			return false;
		*port = (int)v;
	}
	if (*port <= 0)
		return false;
	*host = xstrndup(h, (size_t)(he - h));
	if (!netrule_name_canonical(*host)) {
		free(*host);
		*host = NULL;
		return false;
	}
	return true;
}

static bool header_is(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	return n > k && line[k] == ':' && !strncasecmp(line, name, k);
}

static void bad_request(struct conn *c, const char *why)
{
	reply_and_close(c, 400, "Bad Request", 1, why);
}

/* An HTTP head is whole in c->head[0..end): CONNECT, or an absolute URI
 * to rewrite into origin form. */
static void http_head(struct conn *c, size_t end)
{
	char *h = c->head;
	char *eol = memchr(h, '\n', end);
	size_t ll = (size_t)(eol - h);
	if (ll && h[ll - 1] == '\r')
		ll--;
	char *sp1 = memchr(h, ' ', ll);
	char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(h + ll - sp1 - 1)) : NULL;
	if (!sp1 || !sp2)
		return bad_request(c, "the request line is not METHOD TARGET VERSION");
	const char *uri = sp1 + 1;
	size_t ul = (size_t)(sp2 - uri);
	if ((size_t)(sp1 - h) == 7 && !strncmp(h, "CONNECT", 7)) {
		if (!split_authority(uri, ul, 0, &c->host, &c->port))
			return bad_request(c, "CONNECT needs HOST:PORT");
		c->tunnel_mode = true;
		/* bytes the client sent past the head (a TLS hello) go on */
		buf_add(&c->up, h + end, c->head_len - end);
		return decide(c);
	}
	if (ul < 7 || strncasecmp(uri, "http://", 7))
		return bad_request(c, "vx's proxy takes CONNECT, or an absolute http:// URI");
	const char *auth = uri + 7, *uend = uri + ul, *path = auth;
	while (path < uend && *path != '/' && *path != '?' && *path != '#')
		path++;
	const char *at = auth;
	for (const char *s = auth; s < path; s++)
		if (*s == '@')
			at = s + 1; /* credentials in the URI are the origin's, never a host */
	if (!split_authority(at, (size_t)(path - at), 80, &c->host, &c->port))
		return bad_request(c, "the URI's host is not HOST[:PORT]");
	struct strbuf out = STRBUF_INIT;
	strbuf_add(&out, h, (size_t)(sp1 - h + 1));
	if (path == uend || *path != '/')
		strbuf_addch(&out, '/');
	strbuf_add(&out, path, (size_t)(uend - path));
	strbuf_add(&out, sp2, (size_t)(h + ll - sp2));
	strbuf_addstr(&out, "\r\n");
	for (char *line = eol + 1; line < h + end;) {
		char *nl = memchr(line, '\n', (size_t)(h + end - line));
		size_t n = (size_t)(nl - line);
		size_t text = n && line[n - 1] == '\r' ? n - 1 : n;
		if (!text)
			break;
		if (!header_is(line, text, "proxy-connection") &&
		    !header_is(line, text, "proxy-authorization") &&
		    !header_is(line, text, "connection") && !header_is(line, text, "keep-alive")) {
			strbuf_add(&out, line, text);
			strbuf_addstr(&out, "\r\n");
		}
		line = nl + 1;
	}
	/* One request per connection: a second one on it could name another
	 * host, and this connection is tied to the one judged. */
	strbuf_addstr(&out, "Connection: close\r\n\r\n");
	buf_add(&c->up, out.buf, out.len);
	buf_add(&c->up, h + end, c->head_len - end);
	strbuf_release(&out);
	decide(c);
}

/* SOCKS5 (RFC 1928): a greeting, then one CONNECT request. */
static void socks_head(struct conn *c)
{
	unsigned char *h = (unsigned char *)c->head;
	size_t n = c->head_len;
	if (c->socks == 1) {
		if (n < 2 || n < 2u + h[1])
			return;
		if (!memchr(h + 2, 0, h[1])) {
			static const unsigned char no[2] = {5, 0xff};
			buf_add(&c->down, no, 2);
			c->state = S_FLUSH;
			return conn_update(c);
		}
		static const unsigned char ok[2] = {5, 0};
		buf_add(&c->down, ok, 2);
		size_t used = 2u + h[1];
		memmove(h, h + used, n - used);
		c->head_len = n -= used;
		c->socks = 2;
	}
	if (n < 5)
		return conn_update(c);
	size_t alen = h[3] == 1 ? 4 : h[3] == 4 ? 16 : h[3] == 3 ? 1u + h[4] : 0;
	if (!alen)
		return reply_and_close(c, 0, "", 8, "address type not supported");
	if (n < 4 + alen + 2)
		return conn_update(c);
	if (h[0] != 5 || h[1] != 1)
		return reply_and_close(c, 0, "", 7, "only CONNECT is supported");
	char addr[256];
	if (h[3] == 1)
		inet_ntop(AF_INET, h + 4, addr, sizeof addr);
	else if (h[3] == 4)
		inet_ntop(AF_INET6, h + 4, addr, sizeof addr);
	else
		snprintf(addr, sizeof addr, "%.*s", (int)h[4], (char *)h + 5);
	c->port = h[4 + alen] << 8 | h[4 + alen + 1];
	c->host = xstrdup(addr);
	if (!netrule_name_canonical(c->host) || !c->port)
		return reply_and_close(c, 0, "", 1, "malformed request");
	c->tunnel_mode = true;
	size_t used = 4 + alen + 2;
	buf_add(&c->up, c->head + used, n - used);
	decide(c);
}

static void read_head(struct conn *c)
{
	ssize_t r = recv(c->cfd, c->head + c->head_len, HEAD_MAX - c->head_len, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0)
		return conn_close(c);
	if (!c->head_len && c->head[0] == 5)
		c->socks = 1;
	c->head_len += (size_t)r;
	if (c->socks)
		return socks_head(c);
	for (size_t i = 0; i + 1 < c->head_len; i++) {
		if (c->head[i] != '\n')
			continue;
		if (c->head[i + 1] == '\n')
			return http_head(c, i + 2);
		if (c->head[i + 1] == '\r' && i + 2 < c->head_len && c->head[i + 2] == '\n')
			return http_head(c, i + 3);
	}
	if (c->head_len == HEAD_MAX)
		reply_and_close(c, 431, "Request Header Fields Too Large", 1,
				"the request head is over 16 KiB");
}

static void on_client(struct loop *l, int fd, unsigned ev, void *data)
{
	struct conn *c = data;
	if ((ev & LOOP_WRITE) && buf_flush(&c->down, c->cfd) < 0)
		return conn_close(c);
	if (ev & LOOP_READ) {
		if (c->state == S_HEAD)
			return read_head(c);
		if (c->state == S_TUNNEL) {
			ssize_t r = buf_fill(c->p, &c->up, c->cfd);
			if (r == 0)
				c->c_eof = true;
			else if (r == -2)
				return conn_close(c);
		}
		if (c->state == S_FLUSH) {
			char sink[4096]; /* what a refused client still sends is dropped */
			ssize_t r = recv(c->cfd, sink, sizeof sink, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				return conn_close(c);
		}
	}
	conn_update(c);
}

static void on_upstream(struct loop *l, int fd, unsigned ev, void *data)
{
	struct conn *c = data;
	if (c->state == S_DIAL) {
		int err = 0;
		socklen_t len = sizeof err;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			loop_timer_cancel(l, c->timer);
			loop_unwatch(l, fd);
			close(fd);
			c->ufd = -1;
			c->cur = c->cur->ai_next;
			return dial_next(c);
		}
		return connected(c);
	}
	if ((ev & LOOP_WRITE) && buf_flush(&c->up, c->ufd) < 0)
		return conn_close(c);
	if (ev & LOOP_READ) {
		ssize_t r = buf_fill(c->p, &c->down, c->ufd);
		if (r == 0)
			c->u_eof = true;
		else if (r == -2)
			return conn_close(c);
	}
	conn_update(c);
}

/* Sets each fd's interest from the state and the buffers, passes each
 * end-of-file on once its buffer drained, and closes what is done. */
static void conn_update(struct conn *c)
{
	struct loop *l = c->p->loop;
	if (c->state == S_FLUSH && !pending(&c->down)) {
		/* the answer is out: close (a client still writing gets a reset
		 * only after it had the whole answer) */
		shutdown(c->cfd, SHUT_WR);
		return conn_close(c);
	}
	if (c->state == S_TUNNEL) {
		if (c->c_eof && !pending(&c->up) && !c->u_shut) {
			shutdown(c->ufd, SHUT_WR);
			c->u_shut = true;
		}
		if (c->u_eof && !pending(&c->down) && !c->c_shut) {
			shutdown(c->cfd, SHUT_WR);
			c->c_shut = true;
		}
		if (c->u_shut && c->c_shut)
			return conn_close(c);
	}
	unsigned ce = pending(&c->down) ? LOOP_WRITE : 0;
	if (c->state == S_HEAD || c->state == S_FLUSH ||
	    (c->state == S_TUNNEL && !c->c_eof && has_room(&c->up)))
		ce |= LOOP_READ;
	loop_watch(l, c->cfd, ce, on_client, c);
	if (c->ufd < 0)
		return;
	unsigned ue = 0;
	if (c->state == S_DIAL)
		ue = LOOP_WRITE;
	else if (c->state == S_TUNNEL)
		ue = (pending(&c->up) ? LOOP_WRITE : 0) |
		     (!c->u_eof && has_room(&c->down) ? LOOP_READ : 0);
	loop_watch(l, c->ufd, ue, on_upstream, c);
}

void proxy_adopt(struct proxy *p, int cfd)
{
	if (p->n_conns >= MAX_CONNS || fcntl(cfd, F_SETFL, O_NONBLOCK) < 0) {
		close(cfd);
		return;
	}
	struct conn *c = xcalloc(1, sizeof *c);
	c->p = p;
	c->cfd = cfd;
	c->ufd = -1;
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->n_conns++;
	if (p->fixed) {
		c->cur = p->target.ai; /* the proxy's: c->ai stays NULL */
		dial_next(c);
		return;
	}
	c->timer = loop_timer(p->loop, loop_now() + HEAD_MS, on_timeout, c);
	conn_update(c);
}

void proxy_dialled(void *token, int fd)
{
	struct conn *c = token;
	c->dialing = false;
	if (fd < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		if (fd >= 0)
			close(fd);
		return conn_close(c);
	}
	c->ufd = fd;
	connected(c);
}

static void on_accept(struct loop *l, int fd, unsigned ev, void *data)
{
	struct proxy *p = data;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return;
		proxy_adopt(p, cfd);
	}
}

/* A proxy holding lfd (-1: none), watching it for connections. */
static struct proxy *proxy_alloc(struct loop *l, int lfd, const char *sock_path)
{
	struct proxy *p = xcalloc(1, sizeof *p);
	p->loop = l;
	p->lfd = lfd;
	p->sock_path = sock_path ? xstrdup(sock_path) : NULL;
	if (lfd >= 0)
		loop_watch(l, lfd, LOOP_READ, on_accept, p);
	return p;
}

struct proxy *proxy_new(struct loop *l, struct resolver *res, const struct netrules *rules,
			const char *sock_path, struct strbuf *err)
{
	int fd = -1;
	if (sock_path) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		if (strlen(sock_path) >= sizeof sa.sun_path) {
			strbuf_addf(
			    err,
			    "the proxy's socket path %s is over %zu bytes (set TMPDIR shorter)",
			    sock_path, sizeof sa.sun_path - 1);
			return NULL;
		}
		memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
		    chmod(sock_path, 0600) < 0 || listen(fd, 128) < 0) {
			strbuf_addf(err, "cannot listen on %s: %s", sock_path, strerror(errno));
			if (fd >= 0)
				close(fd);
			unlink(sock_path);
			return NULL;
		}
	}
	struct proxy *p = proxy_alloc(l, fd, sock_path);
	p->resolver = res;
	netrules_copy(&p->rules, rules);
	return p;
}

struct proxy *proxy_new_fixed(struct loop *l, int lfd, struct proxy_target *target,
			      const char *unlink_path)
{
	struct proxy *p = proxy_alloc(l, lfd, unlink_path);
	p->fixed = true;
	p->target = *target;
	target->ai = NULL;
	return p;
}

const struct proxy_refusal *proxy_refusals(const struct proxy *p, size_t *n)
{
	*n = p->refusals.n;
	return p->refusals.v;
}

size_t proxy_served(const struct proxy *p)
{
	return p->served;
}

void proxy_free(struct proxy *p)
{
	if (!p)
		return;
	while (p->conns)
		conn_close(p->conns);
	if (p->lfd >= 0) {
		loop_unwatch(p->loop, p->lfd);
		close(p->lfd);
	}
	if (p->sock_path)
		unlink(p->sock_path);
	free(p->sock_path);
	if (p->target.ai)
		freeaddrinfo(p->target.ai);
	netrules_clear(&p->rules);
	for (size_t i = 0; i < p->refusals.n; i++) {
		free(p->refusals.v[i].target);
		free(p->refusals.v[i].reason);
		free(p->refusals.v[i].fix);
	}
	vec_free(&p->refusals);
	free(p);
}

int proxy_resolve(const char *host, int port, struct addrinfo **out)
{
	char service[8];
	snprintf(service, sizeof service, "%d", port);
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	size_t n = strlen(host);
	const char *map = getenv("VX_TEST_RESOLVE");
	if (map && n > 5 && !strcmp(host + n - 5, ".test")) {
		/* RFC 6761: .test never names a real host, so a mapping of it
		 * cannot redirect one. */
		for (const char *s = map; *s;) {
			const char *e = strchr(s, ',');
			size_t len = e ? (size_t)(e - s) : strlen(s);
			if (len > n && !strncmp(s, host, n) && s[n] == '=') {
				char *addr = xstrndup(s + n + 1, len - n - 1);
				hints.ai_flags = AI_NUMERICHOST;
				int rc = getaddrinfo(addr, service, &hints, out);
				free(addr);
				return rc;
			}
			s += len + (e != NULL);
		}
	}
	return getaddrinfo(host, service, &hints, out);
}
