/* net.h - one task's network, host side: netd's control socket (bridge.h)
 * in a 0700 directory of the run's, the task's proxy (proxy.h), a relay
 * per allow.network localhost:PORT and a port bridge per localBinding
 * port. Filled from the task's config by the orchestrator
 * (run/sandbox_net.c), started before the task, stopped after it. */
#ifndef VX_SANDBOX_NET_H
#define VX_SANDBOX_NET_H

#include <stdbool.h>

#include "sandbox/bridge.h"
#include "sandbox/netrule.h"
#include "sandbox/proxy.h"
#include "util/loop.h"
#include "util/resolver.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct sandbox_net {
	struct netrules rules;		 /* allow.network / deny.network, parsed by init */
	bool proxied;			 /* a host grant: the task gets its own proxy */
	VEC(struct bridge_relay) relays; /* allow.network localhost:PORT (addr owned) */
	/* relays' ports, parallel to relays: as the request's input and the
	 * judge's take them (a list of ints), made once with relays */
	VEC(int) relay_ports;
	VEC(int) binds;		     /* localBinding ports */
	struct bridge *bridge;	     /* netd's control socket, while it runs, or NULL */
	struct proxy *proxy;	     /* while it runs (start to stop), or NULL */
	VEC(struct proxy *) bridges; /* its relays and port bridges, while it runs */
	char *dir;		     /* its 0700 directory in the run dir (the control
				      * socket), or NULL */
	char *ctl;		     /* the control socket in dir */
};

/* Who else holds port's bridge now (a name for the message), or NULL. */
typedef const char *sandbox_net_holder(int port, void *ctx);

/* Does the task get a network of its own (netd, a control socket): a host
 * grant (its proxy), a relay or a port bridge? */
bool sandbox_net_wanted(const struct sandbox_net *n);

/* Starts n on loop, after stopping what ran before: a fresh 0700
 * directory under run_dir ("/tmp" when NULL) holding netd's control
 * socket, the proxy (its lookups by *resolver, made with the first proxy),
 * a relay per loopback entry, the port bridges (a port held_by names, or
 * one held on the host, refuses the task). Returns 0, or -1 with one line
 * in err and what was started left for sandbox_net_stop. */
int sandbox_net_start(struct sandbox_net *n, struct loop *loop, struct resolver **resolver,
		      const char *run_dir, sandbox_net_holder *held_by, void *ctx,
		      struct strbuf *err);

/* Stops what sandbox_net_start started (the proxies first) and removes
 * its directory; n keeps its rules. */
void sandbox_net_stop(struct sandbox_net *n);

/* Frees the rules and lists (after sandbox_net_stop). */
void sandbox_net_release(struct sandbox_net *n);

#endif
