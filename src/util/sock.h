/* sock.h - a TCP listener on the loopback, for the network helpers on both
 * sides of a sandbox's wall (sandbox/bridge.c outside, sandbox/netd.c inside). */
#ifndef VX_UTIL_SOCK_H
#define VX_UTIL_SOCK_H

#include <stdbool.h>

/* Listens on 127.0.0.1:port (family AF_INET) or [::1]:port (AF_INET6, v6
 * only), close-on-exec, SO_REUSEADDR (a port in TIME_WAIT is taken again; a
 * listener holding it still refuses the bind), non-blocking when asked.
 * Returns the socket, or -1 with errno. */
int sock_listen_loopback(int family, int port, bool nonblock);

#endif
