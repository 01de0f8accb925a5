/* bridge.h - a task's port grants, on the host side (docs/network.md).
 *
 * A relay carries one host loopback port INTO the task's network
 * namespace (allow.network: localhost:PORT): vx listens on a UNIX socket
 * bound into the sandbox, a socat inside listens on the port and connects
 * to it, and each connection vx accepts is dialled to the host's port.
 *
 * A port bridge carries one of the task's own listeners OUT (localBinding:
 * [PORT]): vx listens on the host's 127.0.0.1:PORT (and [::1]:PORT where the
 * host has IPv6), a socat inside listens on PORT.sock in a directory bound
 * into the sandbox and connects to the port there, and each connection vx
 * accepts is dialled to that socket.
 *
 * Both are fixed-target proxies (proxy.h) on vx's event loop: no thread,
 * bounded buffers, released with the task. */
#ifndef VX_SANDBOX_BRIDGE_H
#define VX_SANDBOX_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/proxy.h"
#include "util/loop.h"
#include "util/strbuf.h"

/* One allow.network loopback entry: the port, and the address vx dials on
 * the host ("127.0.0.1", "::1", or NULL for localhost: 127.0.0.1, then ::1
 * for a server that listens only there, as Vite's may). */
struct bridge_relay {
	int port;
	const char *addr;
};

/* Listens on sock_path (UNIX, 0600, in a 0700 directory of vx's) and
 * carries each connection to the host's loopback port r. Returns the
 * proxy, or NULL with one line in err. */
struct proxy *bridge_relay_new(struct loop *l, const struct bridge_relay *r, const char *sock_path,
			       struct strbuf *err);

/* Listens on the host's 127.0.0.1:port, and on [::1]:port where the host
 * has IPv6, and carries each connection to the socket "PORT.sock" in the
 * directory dirfd (borrowed; each proxy holds a copy). Fills out[0..*n).
 * A port held already fails with a line naming it and, when /proc says,
 * its holder (bridge_port_holder). Returns 0, or -1 with err (nothing left
 * listening). */
int bridge_bind_new(struct loop *l, int port, int dirfd, struct proxy *out[2], size_t *n,
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
