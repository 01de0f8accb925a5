/* proxy.h - one task's allowlisting proxy, outside its sandbox, on vx's
 * event loop (docs/network.md). Its clients are the task's connections to
 * 127.0.0.1:SANDBOX_PROXY_PORT inside, which the task's netd (netd.h)
 * passes to vx and the bridge (bridge.h) hands it (proxy_adopt); or, in
 * the tests, those accepted on a UNIX socket of its own. One proxy per
 * task: the control socket a connection came in on is what names the
 * task, so nothing the task writes changes which list applies.
 *
 * On one listener it speaks HTTP CONNECT (TLS), absolute-URI HTTP
 * forwarding (plain HTTP, rewritten to origin form with Connection: close)
 * and SOCKS5 CONNECT (no authentication; the first byte 0x05 tells it). The
 * decision is made before a byte is forwarded (netrule.h); a name is
 * resolved once and the address judged is the one dialled. A refusal
 * answers 403 (SOCKS: reply 2) and is recorded for the verdict. Each
 * direction of a connection has a bounded buffer: a side that does not
 * drain stops the other from being read, never vx's memory. */
#ifndef VX_SANDBOX_PROXY_H
#define VX_SANDBOX_PROXY_H

#include <netdb.h>
#include <stddef.h>

#include "sandbox/netrule.h"
#include "util/loop.h"
#include "util/resolver.h"
#include "util/strbuf.h"

/* The port netd listens on inside the namespace (127.0.0.1) for the proxy. */
#define SANDBOX_PROXY_PORT 3128

struct proxy_refusal {
	char *target; /* "HOST:PORT" as the client asked */
	char *reason; /* "not in allow.network", "denied by deny.network", "resolves to …" */
	char *fix;    /* the allow.network entry that would allow it, or NULL (denied) */
};

struct proxy;

/* Listens on sock_path (created 0600; its directory must be vx's own, 0700;
 * NULL: no listener, only what proxy_adopt hands it) with a copy of rules,
 * its events on l, its names looked up on res's threads (borrowed; freed
 * after the proxy). Returns the proxy, or NULL with one line in err. */
struct proxy *proxy_new(struct loop *l, struct resolver *res, const struct netrules *rules,
			const char *sock_path, struct strbuf *err);

/* Hands p a client connection accepted elsewhere (one netd passed: netd.h),
 * as if its listener had accepted it. Takes cfd. */
void proxy_adopt(struct proxy *p, int cfd);

/* A bridge's target (bridge.h): every connection goes there, with no head
 * read and nothing judged (the grant was the judgement). */
struct proxy_target {
	struct addrinfo *ai; /* addresses dialled in order, or NULL */
	/* with ai NULL: dial(ctx, port, token) asks for a connection and
	 * returns 0, then answers with proxy_dialled(token, fd) (-1 on error)
	 * unless cancel(ctx, token) came first; or returns -1 at once */
	int (*dial)(void *ctx, int port, void *token);
	void (*cancel)(void *ctx, void *token);
	void *ctx;
	int port;
};
void proxy_dialled(void *token, int fd);

/* Serves each connection accepted on lfd (listening, non-blocking; -1: only
 * what proxy_adopt hands it) by carrying it to target; a target that does
 * not answer closes the client. Takes lfd and target->ai; unlink_path, when
 * not NULL, is removed at proxy_free. */
struct proxy *proxy_new_fixed(struct loop *l, int lfd, struct proxy_target *target,
			      const char *unlink_path);

/* What it refused so far, in order, each target and reason once. */
const struct proxy_refusal *proxy_refusals(const struct proxy *p, size_t *n);
/* Connections it carried to an upstream (for tests and -v). */
size_t proxy_served(const struct proxy *p);

/* Closes every connection and the listener, and removes the socket. */
void proxy_free(struct proxy *p);

/* Resolves host for port into *out (freeaddrinfo). Names under the .test
 * top-level domain (RFC 6761: never a real host) are looked up first in
 * VX_TEST_RESOLVE ("name=addr,name=addr"), so the tests can give a name an
 * address without touching /etc/hosts; nothing else is ever mapped.
 * Returns 0 or a getaddrinfo error. */
int proxy_resolve(const char *host, int port, struct addrinfo **out);

#endif
