/* bridge.h - a task's network, on the host side (docs/network.md).
 *
 * Inside the task's namespace, netd (netd.h) listens on the proxy's port
 * and on each relayed port, and passes every connection it accepts to vx
 * as a descriptor over one control socket; the bridge is vx's end of that
 * socket. It hands each descriptor to the proxy routed for its port:
 *
 * - the task's allowlisting proxy (proxy.h), for SANDBOX_PROXY_PORT;
 * - a relay, for allow.network `localhost:PORT`: a fixed-target proxy that
 *   dials the host's loopback port (127.0.0.1, then ::1 for localhost);
 *
 * and for a port bridge (localBinding: [PORT]) it is the other way: vx
 * listens on the host's 127.0.0.1:PORT (and [::1]:PORT), and each
 * connection asks netd to dial the task's port and pass the socket back.
 *
 * All of it runs on vx's event loop: no thread, bounded buffers, released
 * with the task. */
#ifndef VX_SANDBOX_BRIDGE_H
#define VX_SANDBOX_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/proxy.h"
#include "util/loop.h"
#include "util/strbuf.h"

struct bridge;

/* Listens on ctl_path (a SOCK_SEQPACKET UNIX socket, 0600, in a 0700
 * directory of vx's), where the task's netd connects. Returns the bridge,
 * or NULL with one line in err. */
struct bridge *bridge_new(struct loop *l, const char *ctl_path, struct strbuf *err);
/* Connections netd accepts on port go to p (proxy_adopt). p must outlive
 * the bridge's routing: free the bridge first, or the proxy after. */
void bridge_route(struct bridge *b, int port, struct proxy *p);
/* Closes the control socket (netd ends), removes it, and drops every dial
 * still owed without answering it: free the bridge only after every proxy
 * that dials through it (their connections cancel their dials). */
void bridge_free(struct bridge *b);

/* One allow.network loopback entry: the port, and the address vx dials on
 * the host ("127.0.0.1", "::1", or NULL for localhost: 127.0.0.1, then ::1
 * for a server that listens only there, as Vite's may). */
struct bridge_relay {
	int port;
	const char *addr;
};

/* A relay's proxy: each connection routed to it is carried to the host's
 * loopback port r. Returns NULL with err when r's address does not parse. */
struct proxy *bridge_relay_new(struct loop *l, const struct bridge_relay *r, struct strbuf *err);

/* Listens on the host's 127.0.0.1:port, and on [::1]:port where the host
 * has IPv6, and carries each connection to the task's own port, which b's
 * netd dials. Fills out[0..*n). A port held already fails with a line
 * naming it and, when /proc says, its holder (bridge_port_holder). Returns
 * 0, or -1 with err (nothing left listening). */
int bridge_bind_new(struct loop *l, struct bridge *b, int port, struct proxy *out[2], size_t *n,
		    struct strbuf *err);

/* Appends "pid PID (COMMAND LINE)" for the process that listens on the
 * host's TCP port, read from /proc/net/tcp, tcp6 and /proc/PID/fd. Returns
 * false, appending nothing, when /proc names nobody (another user's
 * process, or one gone since). */
bool bridge_port_holder(int port, struct strbuf *who);

/* Does any process of the host listen on TCP port (any address)? */
bool bridge_host_listens(int port);

/* Does this line of /proc/net/tcp or tcp6 show a listener on port? Sets
 * *inode to its socket's inode. Pure: the parser bridge_port_holder uses. */
bool bridge_tcp_line_listens(const char *line, int port, unsigned long *inode);

#endif
