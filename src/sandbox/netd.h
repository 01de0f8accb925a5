/* netd.h - the sandbox's network helper: vx's own binary, run inside a
 * task's network namespace before its command (docs/network.md).
 *
 *   vx __netd CTL [-l PORT]... [-L PORT]... -- COMMAND...
 *
 * It connects to vx over CTL (a SOCK_SEQPACKET UNIX socket vx listens on,
 * bound into the sandbox), listens on 127.0.0.1:PORT for each -l (the
 * proxy's port) and on 127.0.0.1:PORT and [::1]:PORT for each -L (a relayed
 * host port), then forks: the child serves, the parent execs COMMAND. So
 * every port listens before the command's first instruction: no wait, no
 * poll of /proc/net/tcp.
 *
 * It copies no byte. Each connection it accepts is passed to vx as a
 * descriptor (SCM_RIGHTS), and vx reads and writes the task's socket
 * itself; for a port bridge (localBinding) vx asks it to dial the task's
 * port, and it passes back the connected socket. socat, which this
 * replaces, forked per connection and copied every byte through its own
 * buffers (bench/network: 3.4 ms per connection per hop, 0.2x direct
 * throughput). What netd passes gives the task nothing: a descriptor it
 * sends vx is a client of the task's own grants, as a connection it made
 * itself would be. */
#ifndef VX_SANDBOX_NETD_H
#define VX_SANDBOX_NETD_H

#include <stdint.h>

/* One message on CTL, each way; an 'A' or a successful 'R' carries one
 * descriptor. */
struct netd_msg {
	char kind; /* 'A' netd -> vx: a connection accepted on port
		    * 'D' vx -> netd: dial the task's port (id names the request)
		    * 'R' netd -> vx: the dial's answer: err 0 and the socket, or an errno */
	uint8_t pad;
	uint16_t port;
	uint32_t id;
	int32_t err;
};

/* argv[0] is "__netd". Returns only on a failure before COMMAND runs:
 * 125, after one line on stderr. */
int netd_main(int argc, char **argv);

#endif
