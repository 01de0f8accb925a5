/* resolver.h - name lookups off the event loop. getaddrinfo blocks, for as
 * long as a slow DNS server takes (5 s per try by default); on the loop it
 * would stall every task's output and every other proxy connection. A few
 * threads (at most RESOLVER_THREADS, started as lookups queue up) run the
 * lookups, and each answer comes back on the loop through an eventfd: the
 * callback runs on the loop's thread, like every other callback. */
#ifndef VX_UTIL_RESOLVER_H
#define VX_UTIL_RESOLVER_H

#include <netdb.h>

#include "util/loop.h"

#define RESOLVER_THREADS 4

struct resolver;
struct resolve_req;

/* The lookup a request runs on a resolver thread: getaddrinfo, or a
 * wrapper of it (proxy_resolve). Returns 0 or a getaddrinfo error. */
typedef int resolve_lookup_fn(const char *host, int port, struct addrinfo **out);
/* The answer, on the loop: rc 0 and ai (the callee's, freeaddrinfo), or a
 * getaddrinfo error and NULL. */
typedef void resolve_done_fn(int rc, struct addrinfo *ai, void *data);

/* A resolver whose answers come back on l. Returns NULL with errno when
 * its eventfd cannot be made. */
struct resolver *resolver_new(struct loop *l);
/* Stops watching, drops every answer not delivered (no callback runs after
 * this), and lets each thread end when its lookup returns: it never waits
 * for a slow lookup. */
void resolver_free(struct resolver *r);

/* Queues the lookup of host:port; done(rc, ai, data) runs on the loop once
 * it is answered, unless cancelled first. Returns the request (for
 * resolve_cancel). */
struct resolve_req *resolve_start(struct resolver *r, const char *host, int port,
				  resolve_lookup_fn *lookup, resolve_done_fn *done, void *data);
/* The request's callback will not run (data may be freed now). */
void resolve_cancel(struct resolve_req *q);

#endif
